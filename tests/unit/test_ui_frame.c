// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A frame and the work it leaves (ui/frame.c): what draws a frame may do a
 * slice of a longer job and set ui->dirty to say "more: the next frame goes
 * on" (the view filter's evaluation in the header, the graph and latency
 * feeds, the filtered top view). The main loop draws another frame while
 * ui->dirty is set, so the frame must not clear what its own drawing set: a
 * job of N slices takes N frames, and a frame with nothing left leaves the UI
 * clean (no frames for nothing). Drawn on the text screen, with the header of
 * a recorded fixture's store (host-sched) and a view filter set, as the view
 * prompt leaves it.
 */
#include <stdlib.h>
#include "test.h"

#include "app/app.h"
#include "snap_common.h"
#include "model/taskrel.h"
#include "store/store.h"
#include "view/viewfilter.h"
#include "ui-local.h"

#include "text_screen.h"

/* A pane whose drawing does one slice of a job of slices_left slices per frame. */
static int slices_left, slices_done;

static void slices_draw(struct ui *ui, struct pane *p, int y, int h, int w)
{
	if (slices_left <= 0)
		return;
	slices_left--;
	slices_done++;
	if (slices_left)
		ui->dirty = true;	/* more: the next frame goes on, as view.c says */
}

static const struct pane_ops pane_slices_ops = {
	.name	= "slices",
	.label	= "Slices",
	.draw	= slices_draw,
};

static struct {
	struct app	app;
	struct ui	ui;
} rig;

static bool rig_open(void)
{
	static const struct pane_ops *const panes[] = { &pane_slices_ops };
	struct err_pos err;

	memset(&rig, 0, sizeof(rig));
	rig.app.st = snap_fixture_store("host-sched", NULL);
	if (!rig.app.st)
		return false;
	rig.app.rel = taskrel_new(rig.app.st);
	rig.app.view = viewfilter_new(rig.app.st, rig.app.rel);
	rig.ui.app = &rig.app;
	rig.ui.st = rig.app.st;
	rig.ui.refresh_ms = 250;
	if (!rig.app.view || viewfilter_push(rig.app.view, "cpu:0", &err) ||
	    ui_stats_init(&rig.ui.stats, rig.app.st))
		return false;
	/* the view evaluated whole (no budget): the header's evaluation leaves nothing */
	if (!viewfilter_update(rig.app.view, 0))
		return false;
	return !ui_views_init(&rig.ui, panes, 1, NULL, 0);
}

static void rig_close(void)
{
	ui_views_destroy(&rig.ui);
	ui_stats_destroy(&rig.ui.stats);
	viewfilter_free(rig.app.view);
	taskrel_free(rig.app.rel);
	store_free(rig.app.st);
}

/* The main loop's rule: another frame while ui->dirty. Return: the frames drawn. */
static int frames_until_clean(int max)
{
	int n = 0;

	rig.ui.dirty = true;	/* a key, a tick: the first frame */
	while (rig.ui.dirty && n < max) {
		ui_frame(&rig.ui, false);
		n++;
	}
	return n;
}

TEST(a_job_of_slices_keeps_frames_coming_until_done)
{
	CHECK(rig_open());
	CHECK(rig.ui.active && rig.ui.active->ops == &pane_slices_ops);
	slices_left = 5;
	slices_done = 0;
	CHECK(frames_until_clean(50) == 5);
	CHECK(slices_done == 5 && slices_left == 0);
	CHECK(!rig.ui.dirty);
	/* the header drew the view (one slice of its evaluation or all of it) */
	CHECK(strstr(scr[2], " view ") || strstr(scr[3], " view "));
	rig_close();
}

TEST(a_frame_with_nothing_left_leaves_the_ui_clean)
{
	CHECK(rig_open());
	slices_left = 0;
	slices_done = 0;
	CHECK(frames_until_clean(50) == 1);
	CHECK(slices_done == 0);
	rig_close();
}

TEST_MAIN()
