// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The top view ("top"), "what is the kernel doing right now": events and
 * functions by count, rate and (where entry/exit pairs give one) duration.
 * Sort key selectable (F6, Left/Right, a click on a column header); narrowed
 * by pid, comm or CPU (p, c, C; x clears).
 *
 * Under a view filter the rows are those of the events it matches: a table of
 * its own, fed on the UI thread by a walk of the matches in time order (up to
 * where every CPU has published), within a budget per frame, and counted
 * again from the oldest event held whenever the view changes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/app.h"
#include "lib/clock.h"
#include "lib/intern.h"
#include "rowsel.h"
#include "store/store.h"
#include "stats_view.h"
#include "view/viewfilter.h"
#include "ui-local.h"
#include "pane_top-local.h"

#define COLW		9

/* The table the rows come from: the view's, or every event's. */
static struct ui_stats *top_stats(struct ui *ui, struct top_state *ts)
{
	struct viewfilter *vf = ui_view(ui);
	struct ui_stats *s;

	if (!vf) {
		ui_stats_view_drop(&ts->view);
		return &ui->stats;
	}
	s = ui_stats_view_feed(ui, &ts->view, vf, UI_STATS_VIEW_OLDEST);
	return s ? s : &ui->stats;
}

static const char *const col_title[UI_SORT_NR] = {
	[UI_SORT_COUNT] = "COUNT", [UI_SORT_RATE] = "RATE/s", [UI_SORT_TOTAL] = "TOTAL",
	[UI_SORT_AVG] = "AVG", [UI_SORT_MAX] = "MAX", [UI_SORT_NAME] = "EVENT / FUNCTION",
};

static void top_header(struct ui *ui, struct pane *p, struct richstr *rs)
{
	richstr_clear(rs);
	for (int i = 0; i < UI_SORT_NR; i++) {
		enum ui_role r = i == (int)ui->sort ? ROLE_COLHDR_SORT : ROLE_COLHDR;

		if (i == UI_SORT_NAME) {
			richstr_add(rs, r, "  ");
			richstr_add(rs, r, col_title[i]);
		} else {
			richstr_add_right(rs, r, col_title[i], COLW);
		}
	}
}

/* One row of the top view. Exported for tests through the header. */
static void top_row(struct ui *ui, struct ui_stats *s, const struct ui_top_ent *e,
		    struct richstr *rs)
{
	char b[32], name[160];

	richstr_clear(rs);
	richstr_add_right(rs, ROLE_DEFAULT, ui_fmt_count(b, sizeof(b), e->count), COLW);
	if (s->rates_valid)
		richstr_add_right(rs, ROLE_DEFAULT,
				  ui_fmt_count(b, sizeof(b), (uint64_t)(e->rate + 0.5)), COLW);
	else
		richstr_add_right(rs, ROLE_DIM, "-", COLW);
	if (e->dur_n) {
		richstr_add_right(rs, ROLE_DEFAULT, ui_fmt_dur(b, sizeof(b), e->dur_total), COLW);
		richstr_add_right(rs, ROLE_DEFAULT,
				  ui_fmt_dur(b, sizeof(b), e->dur_total / e->dur_n), COLW);
		richstr_add_right(rs, ROLE_DEFAULT, ui_fmt_dur(b, sizeof(b), e->dur_max), COLW);
	} else {
		for (int i = 0; i < 3; i++)
			richstr_add_right(rs, ROLE_DIM, "-", COLW);
	}
	richstr_add(rs, ROLE_DEFAULT, "  ");
	richstr_add(rs, ROLE_EVENT, ui_top_name(s, e->key, name, sizeof(name)));
}

static void top_title(struct ui *ui, struct top_state *ts, struct richstr *rs)
{
	const struct ui_narrow *n = &ui->stats.narrow;
	char b[32];

	richstr_clear(rs);
	richstr_addf(rs, ROLE_DEFAULT, "Top events and functions by %s", ui_sort_name(ui->sort));
	if (n->pid >= 0 || n->cpu >= 0 || n->comm[0]) {
		richstr_add(rs, ROLE_WARN, "  narrowed to");
		if (n->pid >= 0)
			richstr_addf(rs, ROLE_WARN, " pid %d", n->pid);
		if (n->comm[0])
			richstr_addf(rs, ROLE_WARN, " comm %s", n->comm);
		if (n->cpu >= 0)
			richstr_addf(rs, ROLE_WARN, " CPU %d", n->cpu);
		richstr_add(rs, ROLE_DIM, " (x clears)");
	}
	if (ui_view(ui)) {
		richstr_add(rs, ROLE_WARN, "  in the view");
		if (!ts->view.caught_up)
			richstr_add(rs, ROLE_WARN, ", counting the matches held...");
		richstr_addf(rs, ROLE_DIM, "  %s counted",
			     ui_fmt_count(b, sizeof(b), ts->view.s.examined));
		return;
	}
	if (ui->stats.rescanning)
		richstr_add(rs, ROLE_WARN, "  recounting the events held...");
	/* too fast to read every event: the counts are a sample, say how much is missing */
	{
		uint64_t skipped = 0;

		for (unsigned int c = 0; c < ui->stats.ncpus; c++)
			skipped += ui->stats.cpu[c].skipped;
		if (skipped)
			richstr_addf(rs, ROLE_WARN, "  sampled: %s not read",
				     ui_fmt_count(b, sizeof(b), skipped));
	}
	richstr_addf(rs, ROLE_DIM, "  %s read", ui_fmt_count(b, sizeof(b), ui->stats.examined));
}

static void top_draw(struct ui *ui, struct pane *p, int y, int h, int w)
{
	struct top_state *ts = p->priv;
	struct richstr rs;
	int rows = h - 2;

	struct ui_stats *s = top_stats(ui, ts);

	ts->n = ui_stats_sorted(s, ui->sort, ts->rows, TOP_MAX);
	top_title(ui, ts, &rs);
	richstr_fit_words(&rs, w);
	ui_draw_rs(&ui->screen, y, 0, &rs, w);
	top_header(ui, p, &rs);
	richstr_pad(&rs, ROLE_COLHDR, w);
	ui_draw_rs(&ui->screen, y + 1, 0, &rs, w);
	ts->sel = (int)ui_rowsel_clamp(ts->sel, (long)ts->n);
	ts->top = (int)ui_rowsel_top(ts->sel, ts->top, rows);
	if (!ts->n) {
		ui_draw_text(&ui->screen, y + 2, 2, ROLE_DIM,
			     ui_view(ui) ? "no event held matches the view" :
			     ui->stats.narrow.pid >= 0 || ui->stats.narrow.cpu >= 0 ||
			     ui->stats.narrow.comm[0] ? "no events match the narrowing yet" :
			     "no events yet", w - 2);
		return;
	}
	for (int r = 0; r < rows && ts->top + r < (int)ts->n; r++) {
		top_row(ui, s, ts->rows[ts->top + r], &rs);
		if (ts->top + r == ts->sel) {
			richstr_set_role(&rs, 0, rs.len, ROLE_SELECTED);
			richstr_pad(&rs, ROLE_SELECTED, w);
		}
		ui_draw_rs(&ui->screen, y + 2 + r, 0, &rs, w);
	}
}

/* What the event list shows for the events of a row, as ui_fmt_event writes it. */
static void top_needle(struct ui *ui, uint64_t key, char *buf, size_t len)
{
	uint16_t type = UI_TOP_TYPE(key);
	int32_t sub = (int32_t)UI_TOP_SUB(key);
	const char *name = ui_event_name(ui->st, type);

	switch (type) {
	case KTOP_T_SYS_ENTER:
		snprintf(buf, len, "%s: id=%d ", name, sub);
		break;
	case KTOP_T_IRQ_HANDLER_ENTRY:
		snprintf(buf, len, "%s: irq=%d ", name, sub);
		break;
	case KTOP_T_SOFTIRQ_ENTRY:
		snprintf(buf, len, "%s: vec=%d ", name, sub);
		break;
	case KTOP_T_FUNCTION:
	case KTOP_T_FGRAPH_ENTRY:
		ui_top_name(&ui->stats, key, buf, len);
		break;
	default:
		snprintf(buf, len, "%s: ", name);
		break;
	}
}

/* y, i, Y: the stacks of an event type's row, or of the events through a function's. */
static int top_stacks(struct ui *ui, struct ui_stats *s, uint64_t key, enum ui_action act)
{
	uint16_t type = UI_TOP_TYPE(key);
	bool func = type == KTOP_T_FUNCTION || type == KTOP_T_FGRAPH_ENTRY;
	char name[160], what[200];

	if (func && act == ACT_STACK_ON) {
		ui_message(ui, "Y: the selected row is a function; stack traces are for events");
		return UI_HANDLED | UI_REDRAW;
	}
	ui_top_name(s, key, name, sizeof(name));
	if (func)
		name[strcspn(name, "+ ")] = '\0';	/* "func+0x1a [mod]" -> "func" */
	snprintf(what, sizeof(what), func ? "the events through %s" : "%s events", name);
	return ui_request(ui, &(struct ui_req){
		.kind = act == ACT_STACK_ON ? UI_REQ_STACKS_ON : UI_REQ_STACKS,
		.stacks = {
			.icicle = act == ACT_STACK_ICICLE,
			.type = func ? -1 : type,
			.func = func ? intern_id(store_strings(ui->st), name, strlen(name)) : 0,
			.what = what,
		},
	});
}

static int top_key(struct ui *ui, struct pane *p, enum ui_action act)
{
	struct top_state *ts = p->priv;
	int page = p->h > 3 ? p->h - 3 : 1;

	struct ui_stats *s = top_stats(ui, ts);

	/* the rows as drawn (a key may come before the first draw) */
	ts->n = ui_stats_sorted(s, ui->sort, ts->rows, TOP_MAX);
	if (ui_rowsel_moves(act)) {
		ts->sel = (int)ui_rowsel_move(ts->sel, (long)ts->n, page, act);
		return UI_HANDLED | UI_REDRAW;
	}
	switch (act) {
	case ACT_LEFT:
		ui->sort = (enum ui_sort)((ui->sort + UI_SORT_NR - 1) % UI_SORT_NR);
		break;
	case ACT_RIGHT:
		ui->sort = (enum ui_sort)((ui->sort + 1) % UI_SORT_NR);
		break;
	case ACT_ENTER: {
		char name[160];


		if (ts->sel < 0 || ts->sel >= (int)ts->n)
			return UI_HANDLED;
		top_needle(ui, ts->rows[ts->sel]->key, name, sizeof(name));
		return ui_show_events(ui, &(struct ui_events_req){ .search = name }) | UI_HANDLED;
	}
	case ACT_PROBE:
		if (ts->sel < 0 || ts->sel >= (int)ts->n)
			return 0;
		return ui_request(ui, &(struct ui_req){
			.kind = UI_REQ_PROBE, .probe.event = true,
			.probe.type = UI_TOP_TYPE(ts->rows[ts->sel]->key),
			.probe.arg0 = UI_TOP_SUB(ts->rows[ts->sel]->key),
		});
	case ACT_VIEW_EVENT:
		if (ts->sel < 0 || ts->sel >= (int)ts->n)
			return 0;
		return ui_request(ui, &(struct ui_req){
			.kind = UI_REQ_NARROW,
			.view = { .what = UI_VIEW_EVENT, .type = UI_TOP_TYPE(ts->rows[ts->sel]->key) },
		});
	case ACT_STACK_CALLERS:
	case ACT_STACK_ICICLE:
	case ACT_STACK_ON:
		if (ts->sel < 0 || ts->sel >= (int)ts->n)
			return 0;
		return top_stacks(ui, s, ts->rows[ts->sel]->key, act);
	case ACT_FILTER_TOGGLE: {
		uint16_t type;
		char name[160];

		if (ts->sel < 0 || ts->sel >= (int)ts->n)
			return UI_HANDLED;
		type = UI_TOP_TYPE(ts->rows[ts->sel]->key);
		if (type != KTOP_T_FUNCTION && type != KTOP_T_FGRAPH_ENTRY) {
			ui_message(ui, "a: the selected row is an event, not a function");
			return UI_HANDLED | UI_REDRAW;
		}
		ui_top_name(s, ts->rows[ts->sel]->key, name, sizeof(name));
		name[strcspn(name, "+ ")] = '\0';	/* "func+0x1a [mod]" -> "func" */
		return ui_request(ui, &(struct ui_req){
			.kind = UI_REQ_FILTER_TOGGLE, .filter.func = name,
		}) | UI_HANDLED | UI_REDRAW;
	}
	default:
		return 0;
	}
	ts->sel = (int)ui_rowsel_clamp(ts->sel, (long)ts->n);
	return UI_HANDLED | UI_REDRAW;
}

static int top_click(struct ui *ui, struct pane *p, int row, int col)
{
	struct top_state *ts = p->priv;
	long r = ui_rowsel_click(ts->top, row, 2, (long)ts->n);

	if (row == 1) {
		int c = col / COLW;

		ui->sort = (enum ui_sort)(c < UI_SORT_NAME ? c : UI_SORT_NAME);
		ui_message(ui, "top view sorted by %s", ui_sort_name(ui->sort));
	} else if (r >= 0) {
		ts->sel = (int)r;
	}
	return UI_HANDLED | UI_REDRAW;
}

/* UI_REQ_TOP: narrowed as asked. */
static int top_request(struct ui *ui, struct pane *p, const struct ui_req *r)
{
	if (r->kind != UI_REQ_TOP)
		return 0;
	if (r->top.narrow)
		ui_stats_set_narrow(&ui->stats, r->top.narrow);
	return UI_HANDLED | UI_REDRAW;
}

static void top_destroy(struct pane *p)
{
	struct top_state *ts = p->priv;

	ui_stats_view_drop(&ts->view);
}

const struct pane_ops pane_top_ops = {
	.name		= "top",
	.label		= "Top",
	.priv_size	= sizeof(struct top_state),
	.destroy	= top_destroy,
	.draw		= top_draw,
	.key		= top_key,
	.click		= top_click,
	.keys		= "p/c/C narrow x clear a filter e view this event y/i stacks Y on",
	.request	= top_request,
};
