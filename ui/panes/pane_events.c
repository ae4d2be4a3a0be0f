// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The event list ("events"), in the kernel's trace format. Follows the live
 * tail or stays frozen at a position; scrolls back through everything the
 * store holds; / search with n/N; t jumps to a time. A frame reads only the
 * rows it shows (a k-way merge of the CPU streams from the bottom row
 * backwards).
 *
 * A search reads the store through src/view/evsearch.h with the event list's
 * own lines as the text (ui/linematch.h). It runs in the key for up to
 * SEARCH_KEY_NS; one that needs longer goes on in slices between frames
 * (ui_work), the title and the message line saying how far it is, until it
 * finds the match, knows there is none, or Esc (any key of the list but
 * Left and Right, which scroll the columns only) stops it: then the selection
 * stays where it was.
 *
 * Other panes show it through a request (struct ui_events_req): a time, a
 * window [t0, t1] ending the page, one CPU's events only (the latency pane's
 * spike, the BPF pane's outlier), a search. One CPU's list lasts until the
 * list follows the live tail again.
 *
 * v marks the selected row as one end of a time window, the cursor is the
 * other end: the rows with timestamps in the window are highlighted, and s
 * offers to save only those. The window is the UI's (struct ui_window: the
 * header and the save prompt read it), kept up to date here. The window
 * is by timestamp, like the exports' [t0, t1] (src/formats/format.h), so what is
 * highlighted and counted is exactly what a save of the window writes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/app.h"
#include "lib/clock.h"
#include "linematch.h"
#include "rowsel.h"
#include "store/store.h"
#include "ui-local.h"
#include "view/evsearch.h"
#include "pane_events-local.h"

/* What a search may take in the key that starts it; the rest goes on in slices. */
#define SEARCH_KEY_NS		30000000ull


/* Stop the search that goes on, if any. */
static void search_stop(struct events_state *es)
{
	evsearch_free(es->run);
	es->run = NULL;
	linematch_destroy(&es->run_text);
}

static int events_init(struct ui *ui, struct pane *p)
{
	struct events_state *es = p->priv;

	es->follow = true;
	es->sel = -1;
	es->only_cpu = -1;
	return 0;
}

static void events_destroy(struct pane *p)
{
	struct events_state *es = p->priv;

	search_stop(es);
	free(es->rows);
}

static void events_header(struct ui *ui, struct pane *p, struct richstr *rs)
{
	richstr_clear(rs);
	/* the kernel's own column header, aligned with ui_fmt_event() */
	richstr_add(rs, ROLE_COLHDR, "#           TASK-PID     CPU#  flags  TIMESTAMP  "
		    "FUNCTION/EVENT: fields");
}

static void shift_left(struct richstr *rs, int n)
{
	if (n <= 0)
		return;
	if (n >= rs->len) {
		richstr_clear(rs);
		return;
	}
	memmove(rs->ch, rs->ch + n, (size_t)(rs->len - n) + 1);
	memmove(rs->role, rs->role + n, (size_t)(rs->len - n));
	rs->len -= n;
}

static void mark_match(struct richstr *rs, const char *needle)
{
	size_t nl = strlen(needle);
	const char *m;

	if (!nl)
		return;
	for (m = strstr(rs->ch, needle); m; m = strstr(m + nl, needle))
		richstr_set_role(rs, (int)(m - rs->ch), (int)(m - rs->ch + (long)nl), ROLE_MATCH);
}

static int rows_visible(const struct pane *p)
{
	return p->h > 3 ? p->h - 2 : 1;
}

/*
 * Read the page: the @nrows events up to the bottom row (the anchor), or the
 * tail, or after g the oldest events held (the page stays on them as older
 * ones are evicted). A frozen page whose events have all aged out moves to
 * the oldest events held rather than showing none.
 */
static void events_fetch(struct ui *ui, struct pane *p, int nrows)
{
	struct events_state *es = p->priv;
	struct ui_evpos pos = es->follow ? UI_EVPOS_END : es->anchor;

	if (nrows > es->cap) {
		struct ui_evrow *r = realloc(es->rows, (size_t)nrows * sizeof(*r));

		if (!r)
			return;
		es->rows = r;
		es->cap = nrows;
	}
	es->n = 0;
	if (!es->at_oldest)
		es->n = ui_ev_read_view(ui->st, ui_view(ui), &pos, -1, true, es->only_cpu, es->rows,
					nrows);
	if (es->follow || es->n > 0)
		return;
	/* g, or all of the page aged out: the oldest events held (in the view) */
	es->n = ui_ev_read_view(ui->st, ui_view(ui), &UI_EVPOS_START, 1, true, es->only_cpu,
				es->rows, nrows);
	if (es->n > 0)
		es->anchor = ui_evpos_of(&es->rows[es->n - 1]);
}

/* Return: the selected event's row on the page, or -1. */
static int find_sel(const struct events_state *es)
{
	for (int i = 0; i < es->n; i++) {
		struct ui_evpos q = ui_evpos_of(&es->rows[i]);

		if (!ui_evpos_cmp(&q, &es->sel_pos))
			return i;
	}
	return -1;
}

/*
 * Has the selected event aged out: evicted, and older than the page? (Or a
 * place before every event, as g leaves it.)
 */
static bool sel_aged_out(struct ui *ui, const struct events_state *es)
{
	struct ui_evpos top;
	struct ktop_event ev;

	if (es->n <= 0)
		return false;
	top = ui_evpos_of(&es->rows[0]);
	if (ui_evpos_cmp(&es->sel_pos, &top) >= 0)
		return false;
	return store_get(ui->st, es->sel_pos.cpu, es->sel_pos.seq, &ev) ||
	       ev.ts != es->sel_pos.ts;
}

/* Read the rows of the page and find the selected row in them. */
static void events_sync(struct ui *ui, struct pane *p, int nrows)
{
	struct events_state *es = p->priv;

	if (!es->keep_rows || es->n == 0)
		events_fetch(ui, p, nrows);
	if (es->have_sel && !es->follow) {
		int i = find_sel(es);

		/* aged out: the oldest event still held takes its place */
		if (i < 0 && sel_aged_out(ui, es))
			i = 0;
		/*
		 * Another CPU's events published since the page was placed (a
		 * reader takes a partly filled page up to 100 ms later) may
		 * come in between the selected row and the bottom of the page
		 * and push the selection off it: the page then ends at the
		 * selection, so that a search's match stays in view.
		 */
		if (i < 0 && !es->keep_rows) {
			struct ui_evpos was = es->anchor;

			es->anchor = es->sel_pos;
			events_fetch(ui, p, nrows);
			i = find_sel(es);
			if (i < 0) {	/* evicted meanwhile: the page as it was */
				es->anchor = was;
				events_fetch(ui, p, nrows);
			}
		}
		if (i >= 0)
			es->sel = i;
	}
	if (es->sel < 0 || es->sel >= es->n || es->follow)
		es->sel = es->n - 1;
	es->have_sel = es->n > 0;
	if (es->have_sel)
		es->sel_pos = ui_evpos_of(&es->rows[es->sel]);
}

/* The cursor's event: the selected row, or the newest row while following. */
static bool cursor_pos(const struct events_state *es, struct ui_evpos *pos)
{
	if (es->follow) {
		if (es->n <= 0)
			return false;
		*pos = ui_evpos_of(&es->rows[es->n - 1]);
		return true;
	}
	if (!es->have_sel)
		return false;
	*pos = es->sel_pos;
	return true;
}

/* The marked window's ends: the mark and the cursor, as the cursor is now. */
static void window_sync(struct ui *ui, const struct events_state *es)
{
	uint64_t m = ui->window.mark;
	struct ui_evpos c;

	if (!ui->window.on)
		return;
	if (!cursor_pos(es, &c))
		c.ts = m;
	ui->window.t0 = c.ts < m ? c.ts : m;
	ui->window.t1 = c.ts < m ? m : c.ts;
}

/* Seconds as the TIMESTAMP column shows them: microseconds, rounded. */
static void add_ts(struct richstr *rs, enum ui_role role, uint64_t ts)
{
	richstr_addf(rs, role, "%llu.%06llu", (unsigned long long)((ts + 500) / 1000 / 1000000),
		     (unsigned long long)((ts + 500) / 1000 % 1000000));
}

/* Select row @i of the page. */
static void select_row(struct events_state *es, int i)
{
	es->sel = i;
	es->have_sel = i >= 0 && i < es->n;
	if (es->have_sel)
		es->sel_pos = ui_evpos_of(&es->rows[i]);
}

static void events_draw(struct ui *ui, struct pane *p, int y, int h, int w)
{
	struct events_state *es = p->priv;
	int nrows = h - 2 > 0 ? h - 2 : 1;
	uint64_t wt0 = 0, wt1 = 0;
	bool in_window = false;
	struct richstr rs;
	char b[32], b2[32];

	/* paused: the live tail stands still where it was, and follows again after */
	if (ui->paused && es->follow && es->n > 0) {
		es->anchor = ui_evpos_of(&es->rows[es->n - 1]);
		es->follow = false;
		es->follow_after_pause = true;
	} else if (!ui->paused && es->follow_after_pause) {
		es->follow = true;
		es->follow_after_pause = false;
	}
	if (!ui->paused)
		es->keep_rows = false;
	events_sync(ui, p, nrows);
	es->keep_rows = ui->paused;
	window_sync(ui, es);

	richstr_clear(&rs);
	if (ui_window(ui, &wt0, &wt1, NULL)) {
		/* the window first: the rest of the line may not fit */
		richstr_add(&rs, ROLE_WARN, "Events: window ");
		add_ts(&rs, ROLE_EVENT, wt0);
		richstr_add(&rs, ROLE_EVENT, "-");
		add_ts(&rs, ROLE_EVENT, wt1);
		richstr_addf(&rs, ROLE_EVENT, "  %.6f s  %llu events", (double)(wt1 - wt0) / 1e9,
			     (unsigned long long)ui_ev_count_view(ui->st, ui_view(ui), wt0, wt1));
		richstr_add(&rs, ROLE_DIM, "  (s saves, v clears)");
		in_window = true;
	} else if (es->follow) {
		richstr_add(&rs, ROLE_OK, "Events: following the live tail");
	} else {
		richstr_add(&rs, ROLE_WARN, "Events: frozen (End or F follows the tail)");
	}
	/* a request's CPU and window: "CPU 1, 12.000100-12.000250" */
	if (es->only_cpu >= 0)
		richstr_addf(&rs, ROLE_EVENT, "  CPU %d", es->only_cpu);
	if (es->req_t1) {
		richstr_add(&rs, ROLE_EVENT, es->only_cpu >= 0 ? ", " : "  ");
		add_ts(&rs, ROLE_EVENT, es->req_t0);
		richstr_add(&rs, ROLE_EVENT, "-");
		add_ts(&rs, ROLE_EVENT, es->req_t1);
	}
	if (es->run) {
		struct evsearch_progress pr;

		evsearch_progress(es->run, &pr);
		richstr_addf(&rs, ROLE_WARN, "  searching %s for \"%s\": %s of %s events read "
			     "(Esc stops)", es->run_dir < 0 ? "older" : "newer", es->search,
			     ui_fmt_count(b, sizeof(b), pr.done),
			     ui_fmt_count(b2, sizeof(b2), pr.total));
	} else if (es->search[0]) {
		richstr_addf(&rs, ROLE_DIM, "  search \"%s\" (n older, N newer)", es->search);
	}
	if (es->n == 0 && ui_view(ui))
		richstr_add(&rs, ROLE_WARN, "  no event held matches the view (w widens)");
	else if (es->n == 0)
		richstr_add(&rs, ROLE_DIM, "  no events held yet");
	else
		richstr_addf(&rs, ROLE_DIM, "  %d rows  scroll %s", es->n,
			     ui_fmt_count(b, sizeof(b), (uint64_t)es->hscroll));
	richstr_fit_words(&rs, w);
	ui_draw_rs(&ui->screen, y, 0, &rs, w);
	events_header(ui, p, &rs);
	shift_left(&rs, es->hscroll);
	richstr_pad(&rs, ROLE_COLHDR, w);
	ui_draw_rs(&ui->screen, y + 1, 0, &rs, w);
	for (int i = 0; i < es->n; i++) {
		ui_fmt_event(&rs, ui->st, ui->fstyle, &es->rows[i].ev);
		if (in_window && es->rows[i].ev.ts >= wt0 && es->rows[i].ev.ts <= wt1) {
			richstr_set_role(&rs, 0, rs.len, ROLE_WINDOW);
			richstr_pad(&rs, ROLE_WINDOW, w + es->hscroll);
		}
		if (es->search[0])
			mark_match(&rs, es->search);
		shift_left(&rs, es->hscroll);
		if (i == es->sel && ui->active == p && !es->follow) {
			richstr_set_role(&rs, 0, rs.len, ROLE_SELECTED);
			richstr_pad(&rs, ROLE_SELECTED, w);
		}
		ui_draw_rs(&ui->screen, y + 2 + (nrows - es->n) * 0 + i, 0, &rs, w);
	}
}

/* Follow the live tail again: of every CPU, without a request's window. */
static void follow_tail(struct events_state *es)
{
	es->follow = true;
	es->at_oldest = false;
	es->only_cpu = -1;
	es->req_t1 = 0;
}

static void freeze_here(struct events_state *es)
{
	if (es->follow && es->n > 0) {
		es->anchor = ui_evpos_of(&es->rows[es->n - 1]);
		es->follow = false;
	}
}

/* Move the bottom of the page by @delta events (negative: older). */
static void scroll_by(struct ui *ui, struct events_state *es, int delta)
{
	struct ui_evrow r;
	struct ui_evwalk w;
	int moved = 0;

	/* nothing is older than the oldest events held */
	if (!delta || es->n == 0 || (delta < 0 && es->at_oldest))
		return;
	freeze_here(es);
	es->at_oldest = false;
	if (ui_evwalk_init_view(&w, ui->st, ui_view(ui),
				&es->anchor, delta < 0 ? -1 : 1, false, es->only_cpu))
		return;
	while (moved < abs(delta) && ui_evwalk_next(&w, &r)) {
		es->anchor = ui_evpos_of(&r);
		moved++;
	}
	ui_evwalk_destroy(&w);
	if (delta > 0 && moved < delta)
		follow_tail(es);	/* ran into the newest event */
	es->have_sel = false;		/* the same row index, now another event */
	/* keep the page full when scrolling up near the oldest events */
}

/* The cursor row's event, or NULL. */
static const struct ktop_event *cursor_event(const struct events_state *es)
{
	struct ui_evpos c;

	if (!cursor_pos(es, &c))
		return NULL;
	for (int i = es->n - 1; i >= 0; i--) {
		struct ui_evpos q = ui_evpos_of(&es->rows[i]);

		if (!ui_evpos_cmp(&q, &c))
			return &es->rows[i].ev;
	}
	return NULL;
}

/* z, Z, #, e: narrow every pane to the cursor row's task, CPU or event. */
static int events_narrow(struct ui *ui, struct events_state *es, enum ui_action act)
{
	const struct ktop_event *ev = cursor_event(es);

	if (!ev)
		return 0;
	return ui_request(ui, &(struct ui_req){
		.kind = UI_REQ_NARROW,
		.view = {
			.what = act == ACT_VIEW_CPU ? UI_VIEW_CPU : act == ACT_VIEW_EVENT ?
				UI_VIEW_EVENT : UI_VIEW_TASK,
			.pid = ev->pid, .kids = act == ACT_VIEW_TASK_KIDS, .cpu = ev->cpu,
			.type = ev->type,
		},
	});
}

/* y, i, Y: the stacks of the cursor row's event type, its own stack selected. */
static int events_stacks(struct ui *ui, struct events_state *es, enum ui_action act)
{
	const struct ktop_event *ev = cursor_event(es);
	char what[160];

	if (!ev)
		return 0;
	snprintf(what, sizeof(what), "%s events", ui_event_name(ui->st, ev->type));
	if (!ev->stack && act != ACT_STACK_ON)
		ui_message(ui, "this %s has no stack%s", ui_event_name(ui->st, ev->type),
			   (app_flags(ui->app) & SOURCE_KERNEL) ? ": Y records them from now on" : "");
	return ui_request(ui, &(struct ui_req){
		.kind = act == ACT_STACK_ON ? UI_REQ_STACKS_ON : UI_REQ_STACKS,
		.stacks = {
			.icicle = act == ACT_STACK_ICICLE,
			.type = ev->type, .stack = ev->stack, .what = what,
		},
	});
}

static int events_act(struct ui *ui, struct pane *p, enum ui_action act)
{
	struct events_state *es = p->priv;
	int page = rows_visible(p);

	if (es->run && (act == ACT_LEFT || act == ACT_RIGHT)) {
		/*
		 * The columns scroll sideways, the selection and the page stay:
		 * a search that goes on goes on (one scrolls to the fields it
		 * looks for at once after its Enter, before it may have ended)
		 */
		es->hscroll = ui_rowsel_hscroll(es->hscroll, act);
		return UI_HANDLED | UI_REDRAW;
	}
	if (es->run) {
		/* Esc, or any other key of the list, stops a search that goes on */
		search_stop(es);
		ui_message(ui, "search for \"%s\" stopped: the selection stays where it was",
			   es->search);
		if (act == ACT_ESC)
			return UI_HANDLED | UI_REDRAW;
	}
	if (act == ACT_ESC) {
		/* Esc with nothing open: drop the marked window, if any, and nothing else */
		if (!ui->window.on)
			return 0;
		ui->window.on = false;
		ui_message(ui, "window cleared");
		return UI_HANDLED | UI_REDRAW;
	}
	es->follow_after_pause = false;
	es->keep_rows = false;
	/* keys may come faster than frames: act on the page as it is now */
	if (!es->follow)
		events_sync(ui, p, page);
	switch (act) {
	case ACT_UP:
		freeze_here(es);
		if (es->sel > 0)
			select_row(es, es->sel - 1);
		else
			scroll_by(ui, es, -1);
		break;
	case ACT_DOWN:
		if (es->follow)
			break;
		if (es->sel < es->n - 1)
			select_row(es, es->sel + 1);
		else
			scroll_by(ui, es, 1);
		break;
	case ACT_PGUP:
		scroll_by(ui, es, -page);
		break;
	case ACT_PGDN:
		if (!es->follow)
			scroll_by(ui, es, page);
		break;
	case ACT_HOME:
		/* the oldest events held, the oldest selected, as eviction goes on */
		es->follow = false;
		es->at_oldest = true;
		es->anchor = UI_EVPOS_START;
		es->sel_pos = UI_EVPOS_START;
		es->have_sel = true;
		break;
	case ACT_END:
		follow_tail(es);
		break;
	case ACT_FREEZE:
		if (es->follow)
			freeze_here(es);
		else
			follow_tail(es);
		break;
	case ACT_LEFT:
	case ACT_RIGHT:
		es->hscroll = ui_rowsel_hscroll(es->hscroll, act);
		break;
	case ACT_MARK:
		if (ui->window.on) {
			ui->window.on = false;
			ui_message(ui, "window cleared");
			break;
		}
		freeze_here(es);
		if (es->n <= 0) {
			ui_message(ui, "v: no events held yet");
			break;
		}
		if (es->sel < 0 || es->sel >= es->n)
			es->sel = es->n - 1;
		select_row(es, es->sel);
		ui->window.mark = es->sel_pos.ts;
		ui->window.on = true;
		ui_message(ui, "window marked at %.6f: move to its other end; s saves it, v or Esc "
			   "clears", (double)ui->window.mark / 1e9);
		break;
	case ACT_VIEW_TASK:
	case ACT_VIEW_TASK_KIDS:
	case ACT_VIEW_CPU:
	case ACT_VIEW_EVENT:
		return events_narrow(ui, es, act);
	case ACT_STACK_CALLERS:
	case ACT_STACK_ICICLE:
	case ACT_STACK_ON:
		return events_stacks(ui, es, act);
	case ACT_ENTER:
		if (es->sel >= 0 && es->sel < es->n) {
			struct richstr rs;

			ui_fmt_event(&rs, ui->st, ui->fstyle, &es->rows[es->sel].ev);
			ui_message(ui, "%s", rs.ch);
		}
		break;
	case ACT_PROBE:
		/* following the tail, no row is selected */
		if (es->follow || es->sel < 0 || es->sel >= es->n)
			return 0;
		return ui_request(ui, &(struct ui_req){
			.kind = UI_REQ_PROBE, .probe.event = true,
			.probe.type = es->rows[es->sel].ev.type,
			.probe.arg0 = es->rows[es->sel].ev.args[0],
		});
	default:
		return 0;
	}
	return UI_HANDLED | UI_REDRAW;
}

static int events_key(struct ui *ui, struct pane *p, enum ui_action act)
{
	int ret = events_act(ui, p, act);

	window_sync(ui, p->priv);
	return ret;
}

/* Show the match at @pos, selected, with half a page of context after it. */
static void show_match(struct ui *ui, struct pane *p, const struct ui_evpos *pos)
{
	struct events_state *es = p->priv;
	struct ui_evwalk w;
	struct ui_evrow r;
	int k = 0;

	es->follow = false;
	es->at_oldest = false;
	es->anchor = *pos;
	es->sel_pos = es->anchor;
	es->have_sel = true;
	es->keep_rows = false;
	if (ui_evwalk_init_view(&w, ui->st, ui_view(ui), &es->anchor, 1, false, es->only_cpu))
		return;
	while (k++ < rows_visible(p) / 2 && ui_evwalk_next(&w, &r))
		es->anchor = ui_evpos_of(&r);
	ui_evwalk_destroy(&w);
}

/* Go on with the search for up to @budget_ns. Return: enum ui_result flags. */
static int search_step(struct ui *ui, struct pane *p, uint64_t budget_ns)
{
	struct events_state *es = p->priv;
	struct evsearch_progress pr;
	struct viewfilter_pos hit;
	int ret = evsearch_step(es->run, budget_ns);
	char b[32], b2[32];

	evsearch_progress(es->run, &pr);
	switch (ret) {
	case EVSEARCH_MORE:
		ui_message(ui, "searching %s events for \"%s\": %s of %s read, Esc stops",
			   es->run_dir < 0 ? "older" : "newer", es->search,
			   ui_fmt_count(b, sizeof(b), pr.done), ui_fmt_count(b2, sizeof(b2), pr.total));
		ui_work_later(ui);
		es->run_long = true;
		return UI_HANDLED | UI_REDRAW;
	case EVSEARCH_FOUND:
		evsearch_hit(es->run, NULL, &hit);
		show_match(ui, p, &(struct ui_evpos){ .ts = hit.ts, .seq = hit.seq, .cpu = hit.cpu });
		if (es->run_long)	/* in place of the progress */
			ui_message(ui, "\"%s\": found (%s events searched)", es->search,
				   ui_fmt_count(b, sizeof(b), pr.done));
		break;
	case EVSEARCH_NONE:
		ui_message(ui, "\"%s\": no %s match (%s events searched)", es->search,
			   es->run_dir < 0 ? "older" : "newer", ui_fmt_count(b, sizeof(b), pr.done));
		break;
	case -ESTALE:
		ui_message(ui, "search for \"%s\" stopped: the view changed (n searches again)",
			   es->search);
		break;
	default:
		ui_message(ui, "search for \"%s\" failed: %s", es->search, strerror(-ret));
		break;
	}
	search_stop(es);
	return UI_HANDLED | UI_REDRAW;
}

static int events_find(struct ui *ui, struct pane *p, const char *needle, int dir)
{
	struct events_state *es = p->priv;
	struct ui_evpos from;

	if (es->run && dir == es->run_dir && !strcmp(needle, es->search))
		return UI_HANDLED;	/* n again: the search goes on */
	search_stop(es);
	if (!es->follow || es->n == 0)
		events_sync(ui, p, rows_visible(p));
	if (es->n == 0) {
		ui_message(ui, "search: no events held");
		return UI_HANDLED;
	}
	if (es->sel < 0 || es->sel >= es->n)
		es->sel = es->n - 1;
	if (needle != es->search)
		snprintf(es->search, sizeof(es->search), "%s", needle);
	from = ui_evpos_of(&es->rows[es->sel]);
	if (linematch_init(&es->run_text, ui->st, ui->fstyle, needle))
		return UI_HANDLED;
	es->run = evsearch_new(ui->st, ui_view(ui),
			       &(struct viewfilter_pos){ .ts = from.ts, .seq = from.seq,
							 .cpu = from.cpu },
			       dir, es->only_cpu, &linematch_ops, &es->run_text);
	if (!es->run) {
		linematch_destroy(&es->run_text);
		ui_message(ui, "search: out of memory");
		return UI_HANDLED;
	}
	es->run_dir = dir < 0 ? -1 : 1;
	es->run_long = false;
	return search_step(ui, p, SEARCH_KEY_NS);
}

/* A search that goes on: its next slice. Return: true while it goes on. */
static bool events_work(struct ui *ui, struct pane *p, uint64_t budget_ns)
{
	struct events_state *es = p->priv;

	if (!es->run)
		return false;
	search_step(ui, p, budget_ns);
	window_sync(ui, es);
	return es->run != NULL;
}

/*
 * Freeze the page at @t1. With @select: it ends at the newest event listed
 * at or before @t1, selected, when one is at or after @t0 (a request's
 * window); else just after the events at @t1 (a time to jump to).
 */
static void place_at(struct ui *ui, struct events_state *es, uint64_t t0, uint64_t t1,
		     bool select)
{
	struct ui_evpos pos = { .ts = t1, .seq = UINT64_MAX, .cpu = UINT32_MAX };
	struct ui_evwalk w;
	struct ui_evrow r;
	bool found = false;

	if (select && !ui_evwalk_init_view(&w, ui->st, ui_view(ui), &pos, -1, true, es->only_cpu)) {
		found = ui_evwalk_next(&w, &r) && r.ev.ts >= t0;
		ui_evwalk_destroy(&w);
	}
	es->follow = false;
	es->at_oldest = false;
	es->follow_after_pause = false;
	es->keep_rows = false;
	es->anchor = found ? ui_evpos_of(&r) : pos;
	es->sel_pos = es->anchor;
	es->have_sel = found;
	es->sel = -1;
}

static int events_request(struct ui *ui, struct pane *p, const struct ui_req *req)
{
	const struct ui_events_req *r = &req->events;
	struct events_state *es = p->priv;
	uint64_t end = r->t1 ? r->t1 : r->at;
	int ret = UI_HANDLED | UI_REDRAW;

	if (req->kind != UI_REQ_EVENTS)
		return 0;
	search_stop(es);
	es->only_cpu = r->one_cpu ? (int)r->cpu : -1;
	es->req_t0 = r->t1 ? r->t0 : 0;
	es->req_t1 = r->t1;
	if (!end && r->one_cpu)
		end = UINT64_MAX;	/* that CPU's newest events */
	if (end)
		place_at(ui, es, r->t1 ? r->t0 : 0, end, r->t1 || r->one_cpu);
	/* the title shows this request's search, or none: not one another pane left */
	snprintf(es->search, sizeof(es->search), "%s", r->search ? r->search : "");
	if (r->search && *r->search) {
		if (r->search != ui->search)
			snprintf(ui->search, sizeof(ui->search), "%s", r->search);
		ret |= events_find(ui, p, es->search, -1);
	}
	window_sync(ui, es);
	return ret;
}

static int events_click(struct ui *ui, struct pane *p, int row, int col)
{
	struct events_state *es = p->priv;

	search_stop(es);
	if (row >= 2 && row - 2 < es->n) {
		freeze_here(es);
		es->keep_rows = false;
		select_row(es, row - 2);
	}
	window_sync(ui, es);
	return UI_HANDLED | UI_REDRAW;
}

static const char *events_footer(struct ui *ui, struct pane *p)
{
	return ui->window.on ? "/ n N search t time F freeze s save window v clear" :
			       "/ n N search t time v window z task # CPU e event y/i stacks";
}

static int events_search(struct ui *ui, struct pane *p, const char *needle, int dir)
{
	int ret = events_find(ui, p, needle, dir);

	window_sync(ui, p->priv);
	return ret;
}

const struct pane_ops pane_events_ops = {
	.name		= "events",
	.label		= "Events",
	.priv_size	= sizeof(struct events_state),
	.init		= events_init,
	.destroy	= events_destroy,
	.draw		= events_draw,
	.key		= events_key,
	.click		= events_click,
	.footer		= events_footer,
	.search		= events_search,
	.work		= events_work,
	.request	= events_request,
};
