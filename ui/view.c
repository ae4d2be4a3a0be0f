// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What every pane shows (ui-local.h): the view filter, the app's
 * (src/app/app_view.c), with its generation and the header's line, and the
 * marked time window. Panes ask the filter directly (src/view/viewfilter.h):
 * the event panes through its walks and counts, the BPF pane's figures by
 * task and CPU through viewfilter_task_ok() and viewfilter_cpu_ok(). The view
 * prompt (prompt_view.c) changes the filter, the event list the window.
 */
#include <stdio.h>
#include <string.h>

#include "app/app.h"
#include "view/viewfilter.h"
#include "ui-local.h"

#define VIEW_UPDATE_NS		(20ull * 1000 * 1000)	/* evaluating a frame, at most */

struct viewfilter *ui_view(struct ui *ui)
{
	return ui->app ? app_view(ui->app) : NULL;
}

uint64_t ui_view_gen(struct ui *ui)
{
	return ui->app && ui->app->view ? viewfilter_gen(ui->app->view) : 0;
}

bool ui_view_header(struct ui *ui, struct richstr *rs)
{
	struct viewfilter *vf = ui_view(ui);
	struct viewfilter_counts vc;
	static const char hint[] = "  w widens, W clears, \\ adds";
	char desc[VIEWFILTER_TEXT_MAX], b1[32], b2[32], cnt[96], pct[32] = "";
	int room;

	if (!vf)
		return false;
	if (!viewfilter_update(vf, VIEW_UPDATE_NS))
		ui->dirty = true;	/* more to evaluate: the next frame goes on */
	viewfilter_counts(vf, &vc);
	snprintf(cnt, sizeof(cnt), "  %s%s of %s events", vc.evaluated < vc.held ? ">=" : "",
		 ui_fmt_count(b1, sizeof(b1), vc.matched), ui_fmt_count(b2, sizeof(b2), vc.held));
	if (vc.evaluated < vc.held)
		snprintf(pct, sizeof(pct), " (%d%% read)",
			 (int)(100 * vc.evaluated / (vc.held ? vc.held : 1)));
	viewfilter_describe(vf, desc, sizeof(desc));
	/* a long clause (stack:...) gives way to the count: "N of M" always shows */
	room = ui->screen.cols - 6 - (int)strlen(cnt) - (int)strlen(pct);
	if (room >= 8 && (int)strlen(desc) > room)
		snprintf(desc + room - 3, sizeof(desc) - (size_t)(room - 3), "...");
	richstr_clear(rs);
	richstr_add(rs, ROLE_HEADER, " view ");
	richstr_add(rs, ROLE_HEADER_VALUE, desc);
	richstr_add(rs, ROLE_HEADER_VALUE, cnt);
	if (pct[0])
		richstr_add(rs, ROLE_HEADER, pct);
	if (rs->len + (int)strlen(hint) <= ui->screen.cols)
		richstr_add(rs, ROLE_HEADER, hint);
	return true;
}

bool ui_window(struct ui *ui, uint64_t *t0, uint64_t *t1, uint64_t *n)
{
	if (!ui->window.on)
		return false;
	*t0 = ui->window.t0;
	*t1 = ui->window.t1;
	if (n)
		*n = ui_ev_count_view(ui->st, ui_view(ui), *t0, *t1);
	return true;
}
