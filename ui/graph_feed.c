// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The function_graph model the UI keeps (ui-local.h, struct ui_fgraph): one
 * tree (src/model/fgraph.h) of the calls among the events the view filter
 * keeps, fed on the UI thread, each frame with only the events published
 * since. The graph pane shows it; the stacks pane takes its call paths. Either
 * feeds it when it needs it up to date: a second feed in a frame finds little
 * or nothing new.
 */
#include <string.h>

#include "app/app.h"
#include "lib/clock.h"
#include "model/fgraph.h"
#include "store/store.h"
#include "tracer_feed.h"
#include "view/viewfilter.h"
#include "ui-local.h"

#define GRAPH_LAG_NS		(300ull * 1000 * 1000)
#define GRAPH_RESET_NODES	(1u << 20)	/* a new tree beyond this (bounded memory) */
#define GRAPH_FEED_NS		(40ull * 1000 * 1000)	/* feeding per frame, at most about */

/* The tree holds the calls of the events the view filter matches. */
static bool graph_keep(void *ctx, const struct ktop_event *ev)
{
	struct viewfilter *vf = ui_view(ctx);

	return !vf || viewfilter_match(vf, ev);
}

struct fgraph *ui_fgraph(struct ui *ui)
{
	struct ui_fgraph *m = &ui->fgraph;

	if (!m->g) {
		m->g = app_fgraph_new(ui->app, graph_keep, ui);
		m->slice = 10000000;
	}
	return m->g;
}

void ui_fgraph_free(struct ui *ui)
{
	fgraph_free(ui->fgraph.g);
	memset(&ui->fgraph, 0, sizeof(ui->fgraph));
}

/* A new tree: node ids start again, and so does the state kept by them. */
static void new_tree(struct ui_fgraph *m)
{
	fgraph_reset(m->g);
	m->tree++;
}

static int graph_feed_slice(struct ui *ui, void *ctx, uint64_t t0, uint64_t t1)
{
	fgraph_feed_store(ctx, ui->st, t0, t1);
	return 0;
}

void ui_fgraph_feed(struct ui *ui)
{
	struct ui_fgraph *m = &ui->fgraph;
	uint64_t t1, t_in = clock_thread_ns();
	struct fgraph_stats fs;

	if (!ui_fgraph(ui))
		return;
	if (m->view_gen != ui_view_gen(ui)) {
		/* another view: a new tree of what it matches, from the oldest event held */
		new_tree(m);
		m->next = 0;
		m->view_gen = ui_view_gen(ui);
	}
	if (ui->paused && m->next)
		return;
	/* a live run without function_graph has no call records to read */
	if ((app_flags(ui->app) & SOURCE_GROWS) && strcmp(app_tracer(ui->app), "function_graph"))
		return;
	t1 = ui_feed_window_end(ui, GRAPH_LAG_NS);
	if (!t1 || t1 < m->next)
		return;
	fgraph_get_stats(m->g, &fs);
	if (fs.nodes > GRAPH_RESET_NODES) {
		/* bounded memory: start a new tree */
		new_tree(m);
		m->resets++;
		ui_message(ui, "graph: more than %u nodes, a new tree starts", GRAPH_RESET_NODES);
	}
	/*
	 * In time slices, within a budget: the frame (and the first one, which
	 * may find seconds of calls held) stays short; the rest comes with the
	 * next frames.
	 */
	ui_feed_slices(ui, &m->next, t1, &m->slice, t_in, GRAPH_FEED_NS, graph_feed_slice, m->g);
}
