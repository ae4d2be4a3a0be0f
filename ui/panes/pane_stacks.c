// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The stacks pane ("stacks", 8): who caused it. Two views of one stack set
 * (stackview.h):
 *
 *   - the caller tree, leaf first: the frames the stacks end in (what the
 *     events were doing), under each the frames that called it, with counts
 *     and shares; folding as in the graph pane (Space, c/e, C/E, ] [ P H),
 *     Enter lists the events under a node: the view filter narrows every
 *     pane to them ("stack:...;frame$", UI_REQ_NARROW) and the event list
 *     shows the newest;
 *   - the icicle, root first: one row per depth, each frame as wide as its
 *     share of the frame zoomed into, its name cut to fit, coloured by kernel
 *     subsystem or user module (the theme's stack_* roles); Left/Right walk a
 *     row, Up/Down go to the parent and the widest child, Enter zooms into a
 *     frame, Backspace or Esc zooms out, Home back to the root; / n N search
 *     (every match highlighted, the title says what share they weigh).
 *
 * Sources (o): the event stacks (--stack; Y turns them on for an event live),
 * the BPF off-CPU stacks (--offcpu; width: time off CPU) and the function_graph
 * paths (width: total time). Other panes open it on their selected row (y the
 * caller tree, i the icicle) through UI_REQ_STACKS: an event (its type's
 * stacks, its own selected), an event type, a function of the graph.
 *
 * UI state is kept by frame path (selection, folds, zoom), so it stays put as
 * the tree is rebuilt with new stacks.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "store/store.h"
#include "view/viewfilter.h"
#include "rowsel.h"
#include "stack_rows.h"
#include "stackview.h"
#include "ui-local.h"
#include "pane_stacks-local.h"

#define STACKS_MAX_ROWS		(4u << 20)
#define STACKS_MAX_CELLS	(1u << 16)


static int stacks_init(struct ui *ui, struct pane *p)
{
	struct stacks_state *ss = p->priv;

	sv_init(&ss->sv);
	snprintf(ss->sv.scope.what, sizeof(ss->sv.scope.what), "every event with a stack");
	return 0;
}

static void stacks_destroy(struct pane *p)
{
	struct stacks_state *ss = p->priv;

	sv_destroy(&ss->sv);
	sv_folds_free(&ss->folds);
	free(ss->hash);
	free(ss->rows);
	free(ss->row_at);
	free(ss->cells);
	free(ss->croles);
	free(ss->roles);
}

/* The colour role of node @id, by its name. */
static enum ui_role node_role(struct stacks_state *ss, const struct stack_tree *t, uint32_t id)
{
	const struct stack_node *nd = stack_tree_node(t, id);
	uint32_t name = nd->name;

	if (name >= ss->nroles) {
		uint32_t n = name + 4096;
		uint8_t *r = realloc(ss->roles, n);

		if (!r)
			return sv_frame_role(stack_tree_name(t, id), nd->kind,
					     stack_tree_module(t, id));
		memset(r + ss->nroles, 0, n - ss->nroles);
		ss->roles = r;
		ss->nroles = n;
	}
	if (!ss->roles[name])
		ss->roles[name] = (uint8_t)(1 + sv_frame_role(stack_tree_name(t, id), nd->kind,
							      stack_tree_module(t, id)));
	return (enum ui_role)(ss->roles[name] - 1);
}

static const struct stack_tree *cur_tree(struct ui *ui, struct stacks_state *ss)
{
	return sv_tree(&ss->sv, ui->st, (enum stack_tree_dir)ss->mode);
}

static bool time_values(const struct stacks_state *ss)
{
	return ss->sv.scope.src != SV_SRC_EVENTS;
}

/* ---- the caller tree --------------------------------------------------------------- */

/* The rows, made again when the set or the folds changed. */
static void callers_layout(struct stacks_state *ss, const struct stack_tree *t)
{
	size_t n;

	if (ss->hash_gen != ss->sv.gen + 1) {
		uint32_t *r = realloc(ss->row_at, stack_tree_size(t) * sizeof(*r));

		ss->n = 0;
		if (!r || sv_hashes(t, &ss->hash, &ss->nhash)) {
			ss->row_at = r ? r : ss->row_at;
			return;
		}
		ss->row_at = r;
		ss->hash_gen = ss->sv.gen + 1;
		ss->rows_gen = 0;
	}
	if (ss->rows_gen == ss->sv.gen + 1 && ss->rows_folds == ss->folds.gen)
		return;
	n = sv_caller_rows(t, ss->hash, &ss->folds, ss->rows, ss->cap);
	if (n > ss->cap && n <= STACKS_MAX_ROWS) {
		size_t cap = n + n / 2 + 64;
		struct sv_row *r = realloc(ss->rows, cap * sizeof(*r));

		if (r) {
			ss->rows = r;
			ss->cap = cap;
			n = sv_caller_rows(t, ss->hash, &ss->folds, ss->rows, ss->cap);
		}
	}
	ss->n = n < ss->cap ? n : ss->cap;
	memset(ss->row_at, 0, stack_tree_size(t) * sizeof(*ss->row_at));
	for (size_t i = 0; i < ss->n; i++)
		ss->row_at[ss->rows[i].id] = (uint32_t)i + 1;
	ss->rows_gen = ss->sv.gen + 1;
	ss->rows_folds = ss->folds.gen;
}

static long row_of(const struct stacks_state *ss, uint32_t id)
{
	return (long)ss->row_at[id] - 1;
}

/* Unfold the ancestors of @id, so that its row is shown. */
static void callers_reveal(struct stacks_state *ss, const struct stack_tree *t, uint32_t id)
{
	for (uint32_t a = stack_tree_node(t, id)->parent; a && a != STACK_TREE_NONE;
	     a = stack_tree_node(t, a)->parent)
		sv_fold_set(&ss->folds, ss->hash[a], false);
}

/* The rows, the selected row (its node, or its nearest shown ancestor) and the page. */
static uint32_t callers_sync(struct stacks_state *ss, const struct stack_tree *t, long page)
{
	uint32_t id;
	long r = -1, top = -1;

	callers_layout(ss, t);
	if (!ss->n)
		return 0;
	for (id = sv_path_find(t, &ss->sel[M_CALLERS], NULL); id && r < 0;
	     id = stack_tree_node(t, id)->parent)
		r = row_of(ss, id);
	ss->sel_row = r < 0 ? 0 : r;
	id = ss->rows[ss->sel_row].id;
	sv_path_of(t, id, &ss->sel[M_CALLERS]);
	top = ss->top.n ? row_of(ss, sv_path_find(t, &ss->top, NULL)) : -1;
	ss->top_row = ui_rowsel_top(ss->sel_row, top < 0 ? ss->top_row : top, page);
	if (ss->top_row >= (long)ss->n)
		ss->top_row = 0;
	sv_path_of(t, ss->rows[ss->top_row].id, &ss->top);
	return id;
}

static void callers_draw(struct ui *ui, struct stacks_state *ss, const struct stack_tree *t,
			 int y, int h, int w)
{
	const struct stack_node *root = stack_tree_node(t, 0);
	bool tv = time_values(ss);
	int page = h > 1 ? h - 1 : 1;	/* under the column header */
	struct richstr rs;

	callers_sync(ss, t, page);
	sv_fmt_caller_header(&rs, tv);
	richstr_pad(&rs, ROLE_COLHDR, w);
	ui_draw_rs(&ui->screen, y, 0, &rs, w);
	for (int r = 0; r < page && ss->top_row + r < (long)ss->n; r++) {
		const struct sv_row *row = &ss->rows[ss->top_row + r];
		const struct stack_node *nd = stack_tree_node(t, row->id);
		bool folded = nd->first_child != STACK_TREE_NONE &&
			      sv_folded(&ss->folds, ss->hash[row->id]);
		const char *name = stack_tree_name(t, row->id);

		sv_fmt_caller_row(&rs, t, row->id, row->level, folded, tv,
				  tv ? root->value : root->count, node_role(ss, t, row->id));
		if (ss->match[0] && name && strstr(name, ss->match)) {
			const char *m = strstr(rs.ch + sv_caller_name_col(tv), name);

			if (m)
				richstr_set_role(&rs, (int)(m - rs.ch),
						 (int)(m - rs.ch + (long)strlen(name)), ROLE_MATCH);
		}
		/* the names scroll; the figures stay */
		richstr_cut(&rs, sv_caller_name_col(tv), ss->hscroll);
		if (ss->top_row + r == ss->sel_row)
			ui_rowsel_mark(&rs, w);
		ui_draw_rs(&ui->screen, y + 1 + r, 0, &rs, w);
	}
}

/* ---- the icicle ---------------------------------------------------------------- */

/* Lay the icicle out under the zoom, @w x @h; the zoom's path is trimmed to what exists. */
static uint32_t icicle_layout(struct stacks_state *ss, const struct stack_tree *t, int w, int h)
{
	uint32_t depth, zoom = sv_path_find(t, &ss->zoom, &depth);
	size_t n;

	ss->zoom.n = depth;
	n = sv_icicle_layout(t, zoom, w, h, ss->cells, ss->ccap);
	while (n > ss->ccap && ss->ccap < STACKS_MAX_CELLS) {
		size_t cap = ss->ccap ? 2 * ss->ccap : 1024;
		struct sv_cell *c = realloc(ss->cells, cap * sizeof(*c));
		uint8_t *r = c ? realloc(ss->croles, cap) : NULL;

		if (c)
			ss->cells = c;
		if (!r)
			break;
		ss->croles = r;
		ss->ccap = cap;
		n = sv_icicle_layout(t, zoom, w, h, ss->cells, ss->ccap);
	}
	ss->ncells = n < ss->ccap ? n : ss->ccap;
	for (size_t i = 0; i < ss->ncells; i++)
		ss->croles[i] = (uint8_t)node_role(ss, t, ss->cells[i].id);
	return zoom;
}

/* The selected cell: the selection's, or its nearest laid out ancestor's, or the zoom's. */
static long icicle_sel(struct stacks_state *ss, const struct stack_tree *t)
{
	uint32_t id = sv_path_find(t, &ss->sel[M_ICICLE], NULL);
	long c = -1;

	for (; c < 0; id = stack_tree_node(t, id)->parent) {
		c = sv_cell_of(ss->cells, ss->ncells, id);
		if (!id)
			break;
	}
	if (c < 0)
		c = 0;
	if (ss->ncells)
		sv_path_of(t, ss->cells[c].id, &ss->sel[M_ICICLE]);
	return ss->ncells ? c : -1;
}

/*
 * After a request or a search: zoom out, or into an ancestor, far enough that
 * the selected frame has a cell (not too deep for @h rows, not too narrow).
 */
static void icicle_reveal(struct stacks_state *ss, const struct stack_tree *t, int w, int h)
{
	uint32_t d, id = sv_path_find(t, &ss->sel[M_ICICLE], &d);

	ss->reveal = false;
	icicle_layout(ss, t, w, h);
	if (!id || sv_cell_of(ss->cells, ss->ncells, id) >= 0)
		return;
	/* the selection's ancestor @h - 1 levels up, or the root */
	ss->zoom = ss->sel[M_ICICLE];
	ss->zoom.n = d > (uint32_t)(h - 1) ? d - (uint32_t)(h - 1) : 0;
	icicle_layout(ss, t, w, h);
	if (sv_cell_of(ss->cells, ss->ncells, id) < 0) {
		ss->zoom.n = d ? d - 1 : 0;	/* too narrow there: its parent, whole width */
		icicle_layout(ss, t, w, h);
	}
}

/*
 * The line above the icicle: the zoom's path, "zoom: all > main > stk_outer",
 * its start cut ("...") when it does not fit @w columns.
 */
static void zoom_line(struct richstr *rs, const struct stack_tree *t, const struct sv_path *z,
		      int w)
{
	char buf[RICHSTR_MAX * 2];
	size_t n = 0;
	uint32_t id = 0;
	int cut;

	for (uint32_t k = 0; k < z->n && n < sizeof(buf) - 1; k++) {
		id = stack_tree_child(t, id, z->name[k]);
		if (id == STACK_TREE_NONE)
			break;
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " > %s", stack_tree_name(t, id));
	}
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	buf[n] = '\0';
	richstr_clear(rs);
	richstr_add(rs, ROLE_DIM, "zoom: ");
	cut = (int)n - (w - 40);
	if (cut > 0) {
		richstr_add(rs, ROLE_DIM, "...");
		richstr_add(rs, ROLE_EVENT, buf + cut);
	} else {
		richstr_add(rs, ROLE_EVENT, "all");
		richstr_add(rs, ROLE_EVENT, buf);
	}
	richstr_add(rs, ROLE_DIM, z->n ? "  (Backspace zooms out, Home to all)" :
		    "  (Enter zooms into the selected frame)");
}

/* The last line: the selected frame's figures. */
static void icicle_info(struct stacks_state *ss, const struct stack_tree *t, uint32_t zoom,
			uint32_t id, struct richstr *rs)
{
	const struct stack_node *nd = stack_tree_node(t, id), *z = stack_tree_node(t, zoom);
	const struct stack_node *root = stack_tree_node(t, 0);
	char b1[32], b2[32], b3[32];
	bool tv = time_values(ss);

	richstr_clear(rs);
	richstr_add(rs, node_role(ss, t, id), stack_tree_name(t, id));
	if (*stack_tree_module(t, id))
		richstr_addf(rs, ROLE_DIM, " [%s]", stack_tree_module(t, id));
	if (tv)
		richstr_addf(rs, ROLE_DEFAULT, "  %s, %s times",
			     ui_fmt_dur(b1, sizeof(b1), nd->value),
			     ui_fmt_count(b2, sizeof(b2), nd->count));
	else
		richstr_addf(rs, ROLE_DEFAULT, "  %s events",
			     ui_fmt_count(b1, sizeof(b1), nd->count));
	richstr_addf(rs, ROLE_DEFAULT, "  %s of all, %s of the zoom",
		     ui_fmt_share(b2, sizeof(b2), nd->value, root->value),
		     ui_fmt_share(b3, sizeof(b3), nd->value, z->value));
	if (nd->self_value)
		richstr_addf(rs, ROLE_DIM, "  %s%s in it (no callee)",
			     tv ? ui_fmt_dur(b1, sizeof(b1), nd->self_value) :
			     ui_fmt_count(b1, sizeof(b1), nd->self_count), tv ? "" : " end");
	richstr_add(rs, ROLE_DIM, "  Enter zooms");
}

/* Rows [y, y + h): the zoom's path, the icicle, the selected frame's figures. */
static void icicle_draw(struct ui *ui, struct stacks_state *ss, const struct stack_tree *t,
			int y, int h, int w, struct richstr *title)
{
	int rows = h - 2 > 0 ? h - 2 : 1;
	struct richstr rs;
	uint32_t zoom, sel;
	long c;

	if (ss->reveal)
		icicle_reveal(ss, t, w, rows);
	zoom = icicle_layout(ss, t, w, rows);
	c = icicle_sel(ss, t);
	sel = c >= 0 ? ss->cells[c].id : zoom;
	if (ss->match[0]) {
		uint32_t nm;
		uint64_t v = sv_match_value(t, zoom, ss->match, &nm);
		char b[32];

		richstr_addf(title, ROLE_MATCH, "  \"%s\": %u frame%s, %s", ss->match, nm,
			     nm == 1 ? "" : "s",
			     ui_fmt_share(b, sizeof(b), v, stack_tree_node(t, zoom)->value));
	}
	zoom_line(&rs, t, &ss->zoom, w);
	ui_draw_rs(&ui->screen, y, 0, &rs, w);
	for (int r = 0; r < rows; r++) {
		sv_fmt_icicle_row(&rs, t, ss->cells, ss->ncells, ss->croles, r, w, sel, ss->match);
		ui_draw_rs(&ui->screen, y + 1 + r, 0, &rs, w);
	}
	icicle_info(ss, t, zoom, sel, &rs);
	ui_draw_rs(&ui->screen, y + h - 1, 0, &rs, w);
}

/* ---- drawing ------------------------------------------------------------------------ */

static void stacks_title(struct ui *ui, struct stacks_state *ss, struct richstr *rs)
{
	const struct stack_set *set = &ss->sv.set;
	struct stacks_stats ks;
	char b1[32], b2[32];

	richstr_clear(rs);
	richstr_addf(rs, ROLE_DEFAULT, "Stacks: %s of %s",
		     ss->mode == M_ICICLE ? "icicle" : "caller tree", ss->sv.scope.what);
	richstr_addf(rs, ROLE_DIM, "  %s", sv_source_name(ss->sv.scope.src));
	if (ss->sv.scope.src == SV_SRC_EVENTS)
		richstr_addf(rs, ROLE_DIM, "  %s events, %s stack%s",
			     ui_fmt_count(b1, sizeof(b1), set->count),
			     ui_fmt_count(b2, sizeof(b2), set->n), set->n == 1 ? "" : "s");
	else
		richstr_addf(rs, ROLE_DIM, "  %s, %s stack%s", ui_fmt_dur(b1, sizeof(b1), set->value),
			     ui_fmt_count(b2, sizeof(b2), set->n), set->n == 1 ? "" : "s");
	if (ss->sv.scope.src == SV_SRC_EVENTS && set->without)
		richstr_addf(rs, ROLE_DIM, ", %s without", ui_fmt_count(b1, sizeof(b1), set->without));
	stacks_get_stats(store_stacks(ui->st), &ks);
	if (ks.dropped)
		/* the table's memory is spent: those events carry no stack, counted above */
		richstr_addf(rs, ROLE_WARN, "  %s stacks dropped (table full)",
			     ui_fmt_count(b1, sizeof(b1), ks.dropped));
	if (ui_view(ui))
		richstr_add(rs, ROLE_WARN, "  in the view");
	if (ss->mode == M_CALLERS && ss->hscroll)
		richstr_addf(rs, ROLE_WARN, "  names scrolled %d (h/l)", ss->hscroll);
}

/* What to say when there is nothing to show, and how to get something. */
static void stacks_empty(struct ui *ui, struct stacks_state *ss, int y, int h, int w)
{
	const struct app *a = ui->app;
	char text[1024];

	switch (ss->sv.scope.src) {
	case SV_SRC_OFFCPU:
		snprintf(text, sizeof(text), "No off-CPU stacks%s. They come from ktop's BPF program "
			 "on sched_switch: where each task waits, and for how long (start ktop with "
			 "--offcpu; a .ktop file recorded with it has them too). %s%s",
			 app_offcpu(a) ? " yet (read every second)" : "", app_offcpu_why(a)[0] ?
			 "Here: " : "", app_offcpu_why(a));
		break;
	case SV_SRC_GRAPH:
		snprintf(text, sizeof(text), "No function_graph call%s. The graph pane (4) says how "
			 "to trace them (-p function_graph); o shows the event stacks or the "
			 "off-CPU stacks.", ss->sv.scope.func ? " of that function" : "");
		break;
	default: {
		/* the scope names its events: "every event with a stack", "sched_switch events" */
		bool every = strstr(ss->sv.scope.what, "with a stack") != NULL;

		snprintf(text, sizeof(text), "No %s%s%s%s. Stack traces are recorded for "
			 "the events named with --stack EVENT (or -e EVENT:stack) at start; in a "
			 "live session Y on an event in the event list (3) or the top view (2) turns "
			 "them on for it from now on. o shows the BPF off-CPU stacks (--offcpu) or "
			 "the function_graph paths.%s", every ? "event with a stack" :
			 ss->sv.scope.what, every ? "" : " with a stack",
			 ui_view(ui) ? " in the view" : "", (app_flags(a) & SOURCE_GROWS) ? " yet" : "",
			 ss->sv.without ? " The events of this scope held so far have none." : "");
		break;
	}
	}
	ui_draw_wrapped(&ui->screen, y, h, w, ROLE_DEFAULT, text);
}

static void stacks_draw(struct ui *ui, struct pane *p, int y, int h, int w)
{
	struct stacks_state *ss = p->priv;
	const struct stack_tree *t;
	struct richstr title;

	sv_update(ui, &ss->sv);
	t = cur_tree(ui, ss);
	stacks_title(ui, ss, &title);
	richstr_fit_words(&title, w);
	if (!t || stack_tree_size(t) < 2) {
		ui_draw_rs(&ui->screen, y, 0, &title, w);
		stacks_empty(ui, ss, y + 2, h - 2, w);
		return;
	}
	if (ss->mode == M_ICICLE)
		icicle_draw(ui, ss, t, y + 1, h - 1, w, &title);
	else
		callers_draw(ui, ss, t, y + 1, h - 1, w);
	ui_draw_rs(&ui->screen, y, 0, &title, w);
}

/* ---- keys ------------------------------------------------------------------------ */

/* The scope of a source with nothing narrowed. */
static void scope_all(struct sv_scope *sc, enum sv_source src)
{
	static const char *const what[SV_SRC_NR] = {
		[SV_SRC_EVENTS] = "every event with a stack",
		[SV_SRC_OFFCPU] = "every task's waits",
		[SV_SRC_GRAPH] = "every call path",
	};

	memset(sc, 0, sizeof(*sc));
	sc->src = src;
	sc->type = -1;
	snprintf(sc->what, sizeof(sc->what), "%s", what[src]);
}

/*
 * Enter in the caller tree: the events under @id. The view filter narrows
 * every pane to them (the scope's event type, then the node's "stack:"
 * clause), and the event list shows the newest of them.
 */
static int list_events(struct ui *ui, struct stacks_state *ss, const struct stack_tree *t,
		       uint32_t id)
{
	char clause[VIEWFILTER_TEXT_MAX];
	uint64_t gen;

	if (ss->sv.scope.src != SV_SRC_EVENTS) {
		ui_message(ui, "%s are no events: Enter lists the events of event stacks (o)",
			   sv_source_name(ss->sv.scope.src));
		return UI_HANDLED | UI_REDRAW;
	}
	if (!ui->app->view) {
		ui_message(ui, "Enter: no view filter in this run");
		return UI_HANDLED | UI_REDRAW;
	}
	if (!*sv_clause(t, id, STACK_TREE_CALLERS, clause, sizeof(clause))) {
		ui_message(ui, "Enter: this stack is too deep for a view filter clause");
		return UI_HANDLED | UI_REDRAW;
	}
	if (ss->sv.scope.type >= 0)
		ui_request(ui, &(struct ui_req){
			.kind = UI_REQ_NARROW,
			.view = { .what = UI_VIEW_EVENT, .type = (uint16_t)ss->sv.scope.type },
		});
	gen = ui_view_gen(ui);
	ui_request(ui, &(struct ui_req){
		.kind = UI_REQ_NARROW, .view = { .what = UI_VIEW_CLAUSE, .text = clause },
	});
	if (ui_view_gen(ui) == gen)
		return UI_HANDLED | UI_REDRAW;	/* refused: the view prompt said why */
	return ui_show_events(ui, &(struct ui_events_req){ .at = UINT64_MAX - 1 }) | UI_REDRAW;
}

/* Select node @id of the current mode. */
static void select_node(struct stacks_state *ss, const struct stack_tree *t, uint32_t id)
{
	if (id == STACK_TREE_NONE || !id)
		return;
	sv_path_of(t, id, &ss->sel[ss->mode]);
	if (ss->mode == M_CALLERS)
		callers_reveal(ss, t, id);
	else
		ss->reveal = true;
}

/* The keys both views share. Return: enum ui_result, or -1: not one of them. */
static int common_keys(struct ui *ui, struct stacks_state *ss, const struct stack_tree *t,
		       uint32_t id, enum ui_action act)
{
	const struct stack_node *nd = stack_tree_node(t, id);
	struct sv_scope sc;

	switch (act) {
	case ACT_VIEW:
		ss->mode = ss->mode == M_CALLERS ? M_ICICLE : M_CALLERS;
		break;
	case ACT_STACK_SOURCE:
		scope_all(&sc, (enum sv_source)((ss->sv.scope.src + 1) % SV_SRC_NR));
		sv_set_scope(&ss->sv, &sc);
		ss->zoom.n = 0;
		ui_message(ui, "stacks: %s", sv_source_name(sc.src));
		break;
	case ACT_STACK_ALL:
		scope_all(&sc, ss->sv.scope.src);
		sv_set_scope(&ss->sv, &sc);
		ui_message(ui, "stacks: %s", sc.what);
		break;
	case ACT_NEXT_SIBLING:
		select_node(ss, t, nd->next_sibling);
		break;
	case ACT_PREV_SIBLING: {
		uint32_t c = nd->depth ? stack_tree_node(t, nd->parent)->first_child : id, prev = 0;

		for (; c != id && c != STACK_TREE_NONE; c = stack_tree_node(t, c)->next_sibling)
			prev = c;
		select_node(ss, t, prev);
		break;
	}
	case ACT_PARENT:
		select_node(ss, t, nd->parent);
		break;
	case ACT_HOT_PATH:
		if (nd->first_child == STACK_TREE_NONE)
			ui_message(ui, "stacks: %s has no %s", stack_tree_name(t, id),
				   ss->mode == M_CALLERS ? "callers" : "callees");
		select_node(ss, t, nd->first_child);
		break;
	default:
		return -1;
	}
	return UI_HANDLED | UI_REDRAW;
}

static int callers_key(struct ui *ui, struct pane *p, const struct stack_tree *t,
		       enum ui_action act)
{
	struct stacks_state *ss = p->priv;
	long page = p->h > 3 ? p->h - 2 : 1;	/* as callers_draw() */
	uint32_t id = callers_sync(ss, t, page), c;
	int ret;

	if (!ss->n)
		return 0;
	if (ui_rowsel_moves(act)) {
		ss->sel_row = ui_rowsel_move(ss->sel_row, (long)ss->n, page, act);
		sv_path_of(t, ss->rows[ss->sel_row].id, &ss->sel[M_CALLERS]);
		return UI_HANDLED | UI_REDRAW;
	}
	ret = common_keys(ui, ss, t, id, act);
	if (ret >= 0)
		return ret;
	switch (act) {
	case ACT_ENTER:
		return list_events(ui, ss, t, id);
	case ACT_FOLD_TOGGLE:
		if (stack_tree_node(t, id)->first_child != STACK_TREE_NONE)
			sv_fold_set(&ss->folds, ss->hash[id], !sv_folded(&ss->folds, ss->hash[id]));
		break;
	case ACT_FOLD_CHILDREN:
	case ACT_UNFOLD_CHILDREN:
		sv_fold_set(&ss->folds, ss->hash[id], false);
		for (c = stack_tree_node(t, id)->first_child; c != STACK_TREE_NONE;
		     c = stack_tree_node(t, c)->next_sibling)
			sv_fold_set(&ss->folds, ss->hash[c], act == ACT_FOLD_CHILDREN);
		break;
	case ACT_FOLD_ALL:
	case ACT_UNFOLD_ALL:
		sv_fold_all(&ss->folds, act == ACT_FOLD_ALL);
		break;
	case ACT_LEFT:
	case ACT_RIGHT:
		ss->hscroll = ui_rowsel_hscroll(ss->hscroll, act);
		break;
	default:
		return 0;
	}
	return UI_HANDLED | UI_REDRAW;
}

/* The cell beside @c in its row (@dir -1: left, +1: right), or @c. */
static long row_neighbour(const struct stacks_state *ss, long c, int dir)
{
	for (long k = c + dir; k >= 0 && k < (long)ss->ncells; k += dir)
		if (ss->cells[k].row == ss->cells[c].row)
			return k;
	return c;
}

static int icicle_key(struct ui *ui, struct pane *p, const struct stack_tree *t,
		      enum ui_action act)
{
	struct stacks_state *ss = p->priv;
	int rows = p->h > 4 ? p->h - 3 : 1, ret;
	uint32_t zoom = icicle_layout(ss, t, ui->screen.cols, rows), id;
	long c = icicle_sel(ss, t);

	if (c < 0)
		return 0;
	id = ss->cells[c].id;
	ret = common_keys(ui, ss, t, id, act);
	if (ret >= 0)
		return ret;
	switch (act) {
	case ACT_LEFT:
	case ACT_RIGHT:
		c = row_neighbour(ss, c, act == ACT_LEFT ? -1 : 1);
		sv_path_of(t, ss->cells[c].id, &ss->sel[M_ICICLE]);
		break;
	case ACT_UP:
		if (id != zoom) {
			select_node(ss, t, stack_tree_node(t, id)->parent);
			break;
		}
		/* at the frame zoomed into: zoom out */
		/* fall through */
	case ACT_ZOOM_OUT:
	case ACT_ESC:
		if (!ss->zoom.n)
			return act == ACT_ESC ? 0 : UI_HANDLED;
		ss->zoom.n--;
		break;
	case ACT_DOWN:
		select_node(ss, t, stack_tree_node(t, id)->first_child);
		break;
	case ACT_ENTER:
		ss->zoom = ss->sel[M_ICICLE];
		break;
	case ACT_HOME:
		ss->zoom.n = 0;
		break;
	default:
		return 0;
	}
	return UI_HANDLED | UI_REDRAW;
}

static int stacks_key(struct ui *ui, struct pane *p, enum ui_action act)
{
	struct stacks_state *ss = p->priv;
	const struct stack_tree *t = cur_tree(ui, ss);
	struct sv_scope sc;

	if (act == ACT_STACK_CALLERS || act == ACT_STACK_ICICLE) {
		/* y, i here: the other view of the same stacks */
		ss->mode = act == ACT_STACK_ICICLE ? M_ICICLE : M_CALLERS;
		return UI_HANDLED | UI_REDRAW;
	}
	if (!t || stack_tree_size(t) < 2) {
		/* nothing to move in: the source and scope keys still work */
		if (act != ACT_VIEW && act != ACT_STACK_SOURCE && act != ACT_STACK_ALL)
			return 0;
		if (act == ACT_VIEW) {
			ss->mode = ss->mode == M_CALLERS ? M_ICICLE : M_CALLERS;
			return UI_HANDLED | UI_REDRAW;
		}
		scope_all(&sc, act == ACT_STACK_ALL ? ss->sv.scope.src :
			  (enum sv_source)((ss->sv.scope.src + 1) % SV_SRC_NR));
		sv_set_scope(&ss->sv, &sc);
		ui_message(ui, "stacks: %s", act == ACT_STACK_ALL ? sc.what :
			   sv_source_name(sc.src));
		return UI_HANDLED | UI_REDRAW;
	}
	return ss->mode == M_CALLERS ? callers_key(ui, p, t, act) : icicle_key(ui, p, t, act);
}

static int stacks_search(struct ui *ui, struct pane *p, const char *needle, int dir)
{
	struct stacks_state *ss = p->priv;
	const struct stack_tree *t = cur_tree(ui, ss);
	uint32_t from, id;

	snprintf(ss->match, sizeof(ss->match), "%s", needle);
	if (!t || stack_tree_size(t) < 2) {
		ui_message(ui, "stacks: no frames to search");
		return UI_HANDLED;
	}
	from = sv_path_find(t, &ss->sel[ss->mode], NULL);
	/* n ("older") goes down the tree, N up, as in the graph pane */
	id = sv_find(t, from, needle, dir);
	if (id == STACK_TREE_NONE) {
		ui_message(ui, "stacks: no frame matches \"%s\"", needle);
		return UI_HANDLED | UI_REDRAW;
	}
	if (ss->mode == M_CALLERS && ss->hash_gen != ss->sv.gen + 1)
		callers_layout(ss, t);
	select_node(ss, t, id);
	return UI_HANDLED | UI_REDRAW;
}

static int stacks_click(struct ui *ui, struct pane *p, int row, int col)
{
	struct stacks_state *ss = p->priv;
	const struct stack_tree *t = cur_tree(ui, ss);

	if (!t)
		return UI_HANDLED;
	if (ss->mode == M_CALLERS) {
		long r = ui_rowsel_click(ss->top_row, row, 2, (long)ss->n);

		if (r >= 0)
			sv_path_of(t, ss->rows[r].id, &ss->sel[M_CALLERS]);
		return UI_HANDLED | UI_REDRAW;
	}
	for (size_t i = 0; i < ss->ncells; i++)
		if (ss->cells[i].row == row - 2 && col >= ss->cells[i].x0 && col < ss->cells[i].x1)
			sv_path_of(t, ss->cells[i].id, &ss->sel[M_ICICLE]);
	return UI_HANDLED | UI_REDRAW;
}

/* UI_REQ_STACKS: show the stacks a pane's selected row names. */
static int stacks_request(struct ui *ui, struct pane *p, const struct ui_req *req)
{
	const struct ui_stacks_req *r = &req->stacks;
	struct stacks_state *ss = p->priv;
	struct sv_scope sc;

	if (req->kind != UI_REQ_STACKS)
		return 0;
	scope_all(&sc, r->src >= 0 && r->src < SV_SRC_NR ? (enum sv_source)r->src : SV_SRC_EVENTS);
	sc.type = sc.src == SV_SRC_EVENTS ? r->type : -1;
	sc.func = r->func;
	sc.pid = sc.src == SV_SRC_OFFCPU && r->pid > 0 ? r->pid : 0;
	if (r->what)
		snprintf(sc.what, sizeof(sc.what), "%s", r->what);
	if (sc.src != ss->sv.scope.src || sc.type != ss->sv.scope.type ||
	    sc.func != ss->sv.scope.func || sc.pid != ss->sv.scope.pid ||
	    strcmp(sc.what, ss->sv.scope.what))
		sv_set_scope(&ss->sv, &sc);
	ss->mode = r->icicle ? M_ICICLE : M_CALLERS;
	ss->zoom.n = 0;
	ss->match[0] = '\0';
	if (r->stack) {
		sv_path_of_stack(ui->st, r->stack, STACK_TREE_CALLERS, &ss->sel[M_CALLERS]);
		sv_path_of_stack(ui->st, r->stack, STACK_TREE_ROOTS, &ss->sel[M_ICICLE]);
	} else if (r->path && r->npath) {
		/* a call path, root first: its last function ends the caller tree's path */
		unsigned int n = r->npath < SV_PATH_MAX ? r->npath : SV_PATH_MAX;

		ss->sel[M_ICICLE].n = ss->sel[M_CALLERS].n = n;
		for (unsigned int k = 0; k < n; k++) {
			ss->sel[M_ICICLE].name[k] = r->path[k];
			ss->sel[M_CALLERS].name[k] = r->path[r->npath - 1 - k];
		}
	} else {
		ss->sel[M_ICICLE].n = ss->sel[M_CALLERS].n = 0;
	}
	/* the selection shown: its caller tree ancestors unfolded, the icicle zoomed out to it */
	ss->reveal = true;
	for (uint32_t d = 1; d < ss->sel[M_CALLERS].n; d++)
		sv_fold_set(&ss->folds, sv_path_hash(ss->sel[M_CALLERS].name, d), false);
	return UI_HANDLED | UI_REDRAW;
}

static bool stacks_folded(struct ui *ui, struct pane *p, struct stack_set *out, bool *value,
			  char *what, size_t len)
{
	struct stacks_state *ss = p->priv;
	const struct stack_tree *t;
	const struct stack_weight *w;
	const struct stack_node *z;
	uint32_t n;

	memset(out, 0, sizeof(*out));
	if (!(t = sv_tree(&ss->sv, ui->st, STACK_TREE_ROOTS)))
		return false;
	w = stack_tree_stacks(t, &n);
	/* the icicle zoomed into a frame shows the stacks through it */
	z = stack_tree_node(t, ss->mode == M_ICICLE ? sv_path_find(t, &ss->zoom, NULL) : 0);
	out->v = calloc(z->hi - z->lo ? z->hi - z->lo : 1, sizeof(*out->v));
	if (!out->v || z->hi <= z->lo) {
		free(out->v);
		out->v = NULL;
		return false;
	}
	for (uint32_t i = z->lo; i < z->hi && i < n; i++) {
		out->v[out->n++] = w[i];
		out->count += w[i].count;
		out->value += w[i].value;
	}
	*value = ss->sv.value;
	snprintf(what, len, "%s %s%s%s", sv_source_name(ss->sv.scope.src), ss->sv.scope.what,
		 ss->mode == M_ICICLE && ss->zoom.n ? " through " : "",
		 ss->mode == M_ICICLE && ss->zoom.n ? stack_tree_name(t, sv_path_find(t, &ss->zoom,
											NULL)) : "");
	return true;
}

static const char *stacks_footer(struct ui *ui, struct pane *p)
{
	const struct stacks_state *ss = p->priv;

	return ss->mode == M_ICICLE ?
	       "Enter zoom Bksp out v callers o source x all / search s .folded" :
	       "Enter events Space fold c/e C/E v icicle o source x all s .folded";
}

const struct pane_ops pane_stacks_ops = {
	.name		= "stacks",
	.label		= "Stacks",
	.priv_size	= sizeof(struct stacks_state),
	.init		= stacks_init,
	.destroy	= stacks_destroy,
	.draw		= stacks_draw,
	.key		= stacks_key,
	.click		= stacks_click,
	.footer		= stacks_footer,
	.search		= stacks_search,
	.request	= stacks_request,
	.folded		= stacks_folded,
};
