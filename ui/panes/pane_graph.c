// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The graph pane ("graph"): the function_graph call tree, live and foldable. Two views of one
 * model (src/model/fgraph.h): the timeline (every call, in order, per task and per
 * CPU for interrupt context, like the kernel's function_graph text) and the
 * aggregated call paths (count, total, self, avg, max). Keys: Enter/Space
 * fold, c/e the children, C/E everything, ]/[ siblings, P parent, H the
 * longest child (the hot path), v the view, s the sort, F follow the newest
 * calls, / n N search names; Left/Right (h/l) scroll the name column sideways
 * as they scroll the event list, the figures staying in place. Under 120
 * columns the aggregated view's figures take their narrow layout (durations
 * with units), leaving the names room for about twice the depth.
 *
 * UI-only state lives here, keyed by the model's stable node ids: which
 * nodes are folded (a bitmap of the nodes that differ from the default, so
 * C/E are O(1) whatever the size of the tree), the selected node and the node
 * at the top of the page. New calls arriving, or a new sort, change the rows
 * but not these. The model is the UI's (graph_feed.c: the stacks pane takes
 * its call paths too), fed on the UI thread, each frame with only the events
 * published since the last one; when it starts a new tree, the state kept by
 * its node ids starts again.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/app.h"
#include "lib/clock.h"
#include "kernel/features.h"
#include "model/fgraph.h"
#include "lib/intern.h"
#include "rowsel.h"
#include "store/stacks.h"
#include "store/store.h"
#include "tracer_rows.h"
#include "ui-local.h"
#include "pane_graph-local.h"

#define GRAPH_MAX_ROWS		(4u << 20)



#define GRAPH_COMPACT_BELOW	120	/* columns: the narrow layout of the figures */

static const int graph_features[] = { FEATURE_FUNCTION_GRAPH, FEATURE_FTRACE_FILTER };

static const char *const sort_names[] = {
	[FGRAPH_SORT_ORDER] = "order", [FGRAPH_SORT_TOTAL] = "total", [FGRAPH_SORT_SELF] = "self",
	[FGRAPH_SORT_COUNT] = "count", [FGRAPH_SORT_MAX] = "max", [FGRAPH_SORT_NAME] = "name",
};

/* ---- fold state --------------------------------------------------------- */

static void vs_set(struct graph_vstate *vs, uint32_t id, bool folded)
{
	bool flip = folded != vs->all_folded;

	if ((size_t)id / 8 >= vs->nbytes) {
		size_t n = vs->nbytes ? vs->nbytes : 4096;
		uint8_t *p;

		if (!flip)
			return;
		while (n <= (size_t)id / 8)
			n *= 2;
		p = realloc(vs->flip, n);
		if (!p)
			return;
		memset(p + vs->nbytes, 0, n - vs->nbytes);
		vs->flip = p;
		vs->nbytes = n;
	}
	if (flip)
		vs->flip[id / 8] |= (uint8_t)(1u << (id % 8));
	else
		vs->flip[id / 8] &= (uint8_t)~(1u << (id % 8));
}

static void vs_all(struct graph_vstate *vs, bool folded)
{
	if (vs->flip)
		memset(vs->flip, 0, vs->nbytes);
	vs->all_folded = folded;
}

/* ---- model -------------------------------------------------------------- */

static int graph_init(struct ui *ui, struct pane *p)
{
	struct graph_state *gs = p->priv;

	for (int v = 0; v < 2; v++)
		gs->vs[v].sel = gs->vs[v].top = FGRAPH_NONE;
	gs->follow = true;
	gs->g = ui_fgraph(ui);
	return gs->g ? 0 : -1;
}

static void graph_destroy(struct pane *p)
{
	struct graph_state *gs = p->priv;

	for (int v = 0; v < 2; v++)
		free(gs->vs[v].flip);
	free(gs->rows);
}

/* Bring the model up to date; a new tree of it: the fold state starts again. */
static void graph_feed(struct ui *ui, struct graph_state *gs)
{
	ui_fgraph_feed(ui);
	if (gs->tree == ui->fgraph.tree)
		return;
	for (int v = 0; v < 2; v++) {
		vs_all(&gs->vs[v], gs->vs[v].all_folded);
		gs->vs[v].sel = gs->vs[v].top = FGRAPH_NONE;
	}
	gs->tree = ui->fgraph.tree;
}

/* The rows of the current view with the current folds. */
static void graph_layout(struct graph_state *gs)
{
	struct graph_vstate *vs = &gs->vs[gs->view];
	long n;

	n = fgraph_rows(gs->g, gs->view, FGRAPH_ROOT, gs->sort, graph_folded, vs, gs->rows,
			gs->cap);
	if (n > (long)gs->cap && n <= (long)GRAPH_MAX_ROWS) {
		size_t cap = (size_t)n + (size_t)n / 2 + 64;
		struct fgraph_row *r = realloc(gs->rows, cap * sizeof(*r));

		if (r) {
			gs->rows = r;
			gs->cap = cap;
			n = fgraph_rows(gs->g, gs->view, FGRAPH_ROOT, gs->sort, graph_folded, vs,
					gs->rows, gs->cap);
		}
	}
	gs->n = n < 0 ? 0 : n > (long)gs->cap ? (long)gs->cap : n;
}

static long row_of(struct graph_state *gs, uint32_t id)
{
	if (id == FGRAPH_NONE)
		return -1;
	for (long i = 0; i < gs->n; i++)
		if (gs->rows[i].id == id)
			return i;
	return -1;
}

/* The newest call of the timeline: the last child of the context that ran last. */
static uint32_t graph_newest(struct graph_state *gs)
{
	uint32_t best = FGRAPH_NONE, ctx, k;
	uint64_t best_ts = 0;
	struct fgraph_info in;

	for (ctx = fgraph_first_child(gs->g, FGRAPH_TIMELINE, FGRAPH_ROOT); ctx != FGRAPH_NONE;
	     ctx = fgraph_next_sibling(gs->g, FGRAPH_TIMELINE, ctx)) {
		k = fgraph_last_child(gs->g, FGRAPH_TIMELINE, ctx);
		if (k == FGRAPH_NONE || fgraph_node(gs->g, FGRAPH_TIMELINE, k, &in))
			continue;
		if (best == FGRAPH_NONE || in.start >= best_ts) {
			best = k;
			best_ts = in.start;
		}
	}
	return best;
}

/* Make @id's row visible: unfold its ancestors. */
static void graph_reveal(struct graph_state *gs, uint32_t id)
{
	struct graph_vstate *vs = &gs->vs[gs->view];

	for (uint32_t a = fgraph_parent(gs->g, gs->view, id); a != FGRAPH_NONE;
	     a = fgraph_parent(gs->g, gs->view, a))
		if (graph_folded(vs, a))
			vs_set(vs, a, false);
}

/* Find the selection's row after the rows changed: the node, or its nearest shown ancestor. */
static void graph_sync(struct graph_state *gs, int page)
{
	struct graph_vstate *vs = &gs->vs[gs->view];
	long r = -1, t;

	if (gs->follow && gs->view == FGRAPH_TIMELINE) {
		uint32_t k = graph_newest(gs);

		if (k != FGRAPH_NONE)
			vs->sel = k;
	}
	for (uint32_t id = vs->sel; id != FGRAPH_NONE && id != FGRAPH_ROOT;
	     id = fgraph_parent(gs->g, gs->view, id)) {
		r = row_of(gs, id);
		if (r >= 0)
			break;
	}
	if (r < 0)
		r = gs->follow ? gs->n - 1 : 0;
	if (r >= gs->n)
		r = gs->n - 1;
	gs->sel_row = r < 0 ? 0 : r;
	if (gs->n > 0)
		vs->sel = gs->rows[gs->sel_row].id;
	/* the page keeps its first node where it can */
	t = row_of(gs, vs->top);
	t = ui_rowsel_top(gs->sel_row, t < 0 ? gs->top_row : t, page);
	gs->top_row = t;
	vs->top = t < gs->n ? gs->rows[t].id : FGRAPH_NONE;
}

/* ---- drawing ------------------------------------------------------------ */

static bool graph_has_calls(struct graph_state *gs)
{
	return fgraph_first_child(gs->g, FGRAPH_TIMELINE, FGRAPH_ROOT) != FGRAPH_NONE;
}

static void graph_unavailable(struct ui *ui, int y, int h, int w)
{
	const struct feature *f = &ui->app->ft.f[FEATURE_FUNCTION_GRAPH];
	char plan[512];

	if (ui_view(ui) && (!(app_flags(ui->app) & SOURCE_GROWS) ||
			     !strcmp(app_tracer(ui->app), "function_graph")))
		snprintf(plan, sizeof(plan), "No finished call among the events the view filter "
			 "matches (w widens it, W clears it).");
	else if (!strcmp(app_tracer(ui->app), "function_graph"))
		snprintf(plan, sizeof(plan), "Tracing function_graph: no call has finished yet.");
	else if (f->state == FEAT_AVAILABLE || f->state == FEAT_TOP_LEVEL_ONLY ||
		 f->state == FEAT_NOT_TRIED)
		snprintf(plan, sizeof(plan), "This run does not trace function_graph: start ktop "
			 "with -p function_graph (and -g FUNCTION for the calls below one "
			 "function) to see the live call tree here.");
	else
		snprintf(plan, sizeof(plan), "The live call tree (timeline and aggregated call "
			 "paths, folding, the hot path) needs the function_graph tracer, which this "
			 "kernel %s. A kernel with CONFIG_FUNCTION_GRAPH_TRACER (for example "
			 "Debian's -rt kernel) has it; snapshots recorded there show their trees "
			 "here too. Everything else works without it.",
			 f->state == FEAT_NOT_BUILT ? "does not have (CONFIG_FUNCTION_GRAPH_TRACER "
			 "is not set)" : f->state == FEAT_NOT_PERMITTED ?
			 "does not permit (EPERM)" : "does not offer");
	ui_draw_unavailable(ui, y, h, w, "Function graph", graph_features,
			    (int)(sizeof(graph_features) / sizeof(int)), plan);
}

static void graph_title(struct ui *ui, struct graph_state *gs, struct richstr *rs)
{
	struct fgraph_stats fs;
	char b[32];

	fgraph_get_stats(gs->g, &fs);
	richstr_clear(rs);
	richstr_addf(rs, ROLE_DEFAULT, "Function graph: %s",
		     gs->view == FGRAPH_TIMELINE ? "timeline" : "call paths merged");
	richstr_addf(rs, ROLE_DIM, "  sort %s", sort_names[gs->sort]);
	if (gs->view == FGRAPH_TIMELINE)
		richstr_add(rs, gs->follow ? ROLE_OK : ROLE_WARN,
			    gs->follow ? "  following" : "  staying (F follows)");
	if (ui_view(ui))
		richstr_add(rs, ROLE_WARN, "  in the view");
	richstr_addf(rs, ROLE_DIM, "  %s calls", ui_fmt_count(b, sizeof(b), fs.calls));
	if (fs.lost || fs.gaps)
		richstr_addf(rs, ROLE_WARN, "  lost %s (%" PRIu64 " gaps)",
			     ui_fmt_count(b, sizeof(b), fs.lost), fs.gaps);
	if (fs.entry_missing || fs.exit_missing)
		richstr_addf(rs, ROLE_DIM, "  entry/exit missing %" PRIu64 "/%" PRIu64,
			     fs.entry_missing, fs.exit_missing);
	if (fs.dropped)
		richstr_addf(rs, ROLE_WARN, "  %" PRIu64 " dropped", fs.dropped);
	if (ui->fgraph.resets)
		richstr_addf(rs, ROLE_DIM, "  tree restarted %u times", ui->fgraph.resets);
}

/* Scroll the name column of a row @n columns to the left; the figures stay. */
static void shift_names(struct richstr *rs, int n)
{
	int at = ui_graph_name_col(rs);

	if (at)
		richstr_cut(rs, at, n);
}

static void graph_update(struct ui *ui, struct pane *p)
{
	graph_feed(ui, p->priv);
}

static void graph_draw(struct ui *ui, struct pane *p, int y, int h, int w)
{
	struct graph_state *gs = p->priv;
	int page = h - 2 > 0 ? h - 2 : 1;
	bool compact = w < GRAPH_COMPACT_BELOW;
	struct fgraph_info in;
	struct richstr rs;

	graph_feed(ui, gs);
	if (!graph_has_calls(gs)) {
		graph_unavailable(ui, y, h, w);
		return;
	}
	graph_layout(gs);
	graph_sync(gs, page);
	graph_title(ui, gs, &rs);
	if (gs->hscroll)
		richstr_addf(&rs, ROLE_WARN, "  names scrolled %d (h/l)", gs->hscroll);
	richstr_fit_words(&rs, w);
	ui_draw_rs(&ui->screen, y, 0, &rs, w);
	ui_fmt_graph_header(&rs, gs->view, compact);
	richstr_pad(&rs, ROLE_COLHDR, w);
	ui_draw_rs(&ui->screen, y + 1, 0, &rs, w);
	for (int r = 0; r < page && gs->top_row + r < gs->n; r++) {
		long i = gs->top_row + r;

		if (fgraph_node(gs->g, gs->view, gs->rows[i].id, &in))
			continue;
		ui_fmt_graph_row(&rs, gs->view, &in, gs->rows[i].level,
				 in.nchildren && graph_folded(&gs->vs[gs->view], in.id), compact);
		shift_names(&rs, gs->hscroll);
		if (ui->search[0] && in.name && strstr(in.name, ui->search)) {
			const char *m = strstr(rs.ch, in.name);

			if (m)
				richstr_set_role(&rs, (int)(m - rs.ch),
						 (int)(m - rs.ch + (long)strlen(in.name)), ROLE_MATCH);
		}
		if (i == gs->sel_row)
			ui_rowsel_mark(&rs, w);
		ui_draw_rs(&ui->screen, y + 2 + r, 0, &rs, w);
	}
}

/* ---- keys --------------------------------------------------------------- */

static void graph_select(struct graph_state *gs, uint32_t id)
{
	if (id == FGRAPH_NONE || id == FGRAPH_ROOT)
		return;
	graph_reveal(gs, id);
	gs->vs[gs->view].sel = id;
	gs->follow = false;
}

/* y, i: the stacks pane on the selected function: its callers, or the icicle at its path. */
static int graph_stacks(struct ui *ui, struct graph_state *gs, uint32_t id, enum ui_action act)
{
	uint32_t path[STACK_MAX_FRAMES], n = 0, func = 0;
	struct fgraph_info in;
	char what[160];

	if (gs->view == FGRAPH_TIMELINE)
		id = fgraph_agg_of(gs->g, id);
	/* the calls from the selected one up to its context (a task, an interrupt) */
	for (; id != FGRAPH_NONE && n < STACK_MAX_FRAMES; id = fgraph_parent(gs->g, FGRAPH_AGG, id)) {
		if (fgraph_node(gs->g, FGRAPH_AGG, id, &in) || in.kind != FGRAPH_K_CALL)
			break;
		path[n++] = in.func;
	}
	if (!n) {
		ui_message(ui, "%s: select a call first", act == ACT_STACK_ICICLE ? "i" : "y");
		return UI_HANDLED | UI_REDRAW;
	}
	func = path[0];
	for (uint32_t k = 0; k < n / 2; k++) {
		uint32_t x = path[k];

		path[k] = path[n - 1 - k];
		path[n - 1 - k] = x;
	}
	snprintf(what, sizeof(what), "%s %s", act == ACT_STACK_ICICLE ? "every call path, at" :
		 "the calls of", intern_str(store_strings(ui->st), func));
	return ui_request(ui, &(struct ui_req){
		.kind = UI_REQ_STACKS,
		.stacks = {
			.icicle = act == ACT_STACK_ICICLE, .src = SV_SRC_GRAPH, .type = -1,
			/* the icicle: the whole tree, zoomed out to the call; callers: of it */
			.func = act == ACT_STACK_ICICLE ? 0 : func, .path = path, .npath = n,
			.what = what,
		},
	});
}

static int graph_key(struct ui *ui, struct pane *p, enum ui_action act)
{
	struct graph_state *gs = p->priv;
	struct graph_vstate *vs = &gs->vs[gs->view];
	int page = p->h > 3 ? p->h - 2 : 1;
	struct fgraph_info in;
	uint32_t id, k;
	long r;

	if (!graph_has_calls(gs))
		return 0;
	graph_layout(gs);
	graph_sync(gs, page);
	id = vs->sel;
	if (gs->n <= 0 || id == FGRAPH_NONE || fgraph_node(gs->g, gs->view, id, &in))
		return 0;
	r = gs->sel_row;
	switch (act) {
	case ACT_UP:
	case ACT_DOWN:
	case ACT_PGUP:
	case ACT_PGDN:
	case ACT_HOME:
	case ACT_END:
		r = ui_rowsel_move(r, gs->n, page, act);
		vs->sel = gs->rows[r].id;
		gs->follow = false;
		break;
	case ACT_FOLD_TOGGLE:
		if (in.nchildren)
			vs_set(vs, id, !graph_folded(vs, id));
		gs->follow = false;
		break;
	case ACT_LEFT:
	case ACT_RIGHT:
		/* sideways, as in the event list: the folds and the selection stay */
		gs->hscroll = ui_rowsel_hscroll(gs->hscroll, act);
		break;
	case ACT_FOLD_CHILDREN:
	case ACT_UNFOLD_CHILDREN:
		vs_set(vs, id, false);
		for (k = fgraph_first_child(gs->g, gs->view, id); k != FGRAPH_NONE;
		     k = fgraph_next_sibling(gs->g, gs->view, k))
			vs_set(vs, k, act == ACT_FOLD_CHILDREN);
		gs->follow = false;
		break;
	case ACT_FOLD_ALL:
	case ACT_UNFOLD_ALL:
		vs_all(vs, act == ACT_FOLD_ALL);
		break;
	case ACT_NEXT_SIBLING:
		graph_select(gs, fgraph_next_sibling(gs->g, gs->view, id));
		break;
	case ACT_PREV_SIBLING:
		graph_select(gs, fgraph_prev_sibling(gs->g, gs->view, id));
		break;
	case ACT_PARENT:
		graph_select(gs, fgraph_parent(gs->g, gs->view, id));
		break;
	case ACT_HOT_PATH:
		k = fgraph_longest_child(gs->g, gs->view, id);
		if (k == FGRAPH_NONE)
			ui_message(ui, "graph: %s has no children", in.name ? in.name : "this");
		graph_select(gs, k);
		break;
	case ACT_VIEW:
		gs->view = gs->view == FGRAPH_TIMELINE ? FGRAPH_AGG : FGRAPH_TIMELINE;
		if (gs->view == FGRAPH_AGG && (k = fgraph_agg_of(gs->g, id)) != FGRAPH_NONE)
			graph_select(gs, k);
		gs->follow = gs->follow && gs->view == FGRAPH_TIMELINE;
		break;
	case ACT_PANE_SORT:
		gs->sort = (enum fgraph_sort)((gs->sort + 1) % (FGRAPH_SORT_NAME + 1));
		ui_message(ui, "graph sorted by %s", sort_names[gs->sort]);
		break;
	case ACT_FREEZE:
		gs->follow = !gs->follow;
		break;
	case ACT_STACK_CALLERS:
	case ACT_STACK_ICICLE:
		return graph_stacks(ui, gs, id, act);
	case ACT_PROBE:
		return ui_request(ui, &(struct ui_req){ .kind = UI_REQ_PROBE, .probe.func = in.name });
	default:
		return 0;
	}
	return UI_HANDLED | UI_REDRAW;
}

static int graph_search(struct ui *ui, struct pane *p, const char *needle, int dir)
{
	struct graph_state *gs = p->priv;
	uint32_t k;

	if (!graph_has_calls(gs)) {
		ui_message(ui, "graph: no calls to search");
		return UI_HANDLED;
	}
	/* n ("older") goes down the tree, N up */
	k = fgraph_find(gs->g, gs->view, gs->vs[gs->view].sel, needle, dir > 0);
	if (k == FGRAPH_NONE) {
		ui_message(ui, "graph: no function matches \"%s\"", needle);
		return UI_HANDLED;
	}
	graph_select(gs, k);
	return UI_HANDLED | UI_REDRAW;
}

static int graph_click(struct ui *ui, struct pane *p, int row, int col)
{
	struct graph_state *gs = p->priv;
	long r = ui_rowsel_click(gs->top_row, row, 2, gs->n);

	if (r >= 0) {
		gs->vs[gs->view].sel = gs->rows[r].id;
		gs->follow = false;
	}
	return UI_HANDLED | UI_REDRAW;
}

const struct pane_ops pane_graph_ops = {
	.name		= "graph",
	.label		= "Graph",
	.priv_size	= sizeof(struct graph_state),
	.init		= graph_init,
	.destroy	= graph_destroy,
	.draw		= graph_draw,
	.update		= graph_update,
	.key		= graph_key,
	.click		= graph_click,
	.keys		= "Enter fold c/e C/E H hot v view h/l scroll F follow",
	.search		= graph_search,
};
