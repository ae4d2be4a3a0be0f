// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The stacks pane (ui/panes/pane_stacks.c, stackview.c, stack_rows.c) on the
 * rt guest fixtures recorded with stacks (tests/fixtures/stacks-rt*: the
 * stacktrace trigger on sched_switch and softirq_entry, every event's user
 * stack), against an independent reading of the kernel's own text of the
 * same records (trace.txt, tests/unit/stacks_text.h):
 *
 *   - the caller tree's rows: one per distinct leaf-first frame path, at its
 *     depth, depth first, with the count and share the text gives it;
 *     folding one node hides exactly the text's paths under it, C leaves
 *     the distinct leaf frames;
 *   - the icicle's cells: one per distinct root-first path, each exactly
 *     its count wide when the width is the number of events, inside its
 *     parent, never overlapping; at 80 columns each within a column of its
 *     share of its parent, and left out only below one column;
 *   - the pane as drawn into a text screen: zoom in (Enter) and out
 *     (Backspace, Home), the search (n N) and the share of its matches, the
 *     caller tree's Enter narrowing the view to the events under a node
 *     (as many as the text has), the stack: clauses of the view filter, the
 *     save prompt's .folded of what the pane shows.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "test.h"

#include "app/app.h"
#include "fgraph_text.h"
#include "lib/err.h"
#include "model/fgraph.h"
#include "model/stacktree.h"
#include "stacks_text.h"
#include "view/viewfilter.h"
#include "ui-local.h"
#include "panes/pane_events-local.h"
#include "panes/pane_stacks-local.h"
#include "text_screen.h"

/* A function_graph model, for the stacks pane's function_graph source: the test's. */
static struct fgraph *graph_model;

/* ---- the text's side --------------------------------------------------------------- */

/* Events of the text with a stack. */
static uint64_t text_with(const struct text *t)
{
	uint64_t n = 0;

	for (size_t i = 0; i < t->n; i++)
		n += tev_frames(&t->ev[i]) > 0;
	return n;
}

/*
 * Events whose root-first chain holds @frames (SEP-joined) one after the
 * other; @root, @leaf: at the chain's start, at its end.
 */
static uint64_t text_holding(const struct text *t, const char *frames, bool root, bool leaf)
{
	size_t fl = strlen(frames);
	uint64_t n = 0;

	for (size_t i = 0; i < t->n; i++) {
		char *c = chain(&t->ev[i], true, MAX_FRAMES), *w;
		size_t cl = strlen(c);

		if (!tev_frames(&t->ev[i]) || fl > cl) {
			free(c);
			continue;
		}
		w = calloc(1, cl + 3);
		sprintf(w, SEP "%s" SEP, c);
		if (root && leaf)
			n += !strcmp(c, frames);
		else if (root)
			n += !strncmp(c, frames, fl) && (c[fl] == SEP[0] || !c[fl]);
		else if (leaf)
			n += !strcmp(c + cl - fl, frames) && (cl == fl || c[cl - fl - 1] == SEP[0]);
		else {
			char *needle = calloc(1, fl + 3);

			sprintf(needle, SEP "%s" SEP, frames);
			n += strstr(w, needle) != NULL;
			free(needle);
		}
		free(w);
		free(c);
	}
	return n;
}

/* The path of tree node @id from the root, SEP-joined. */
static char *node_key(struct store *tr_store, const struct stack_tree *tr, uint32_t id)
{
	struct sv_path p;
	size_t len = 1;
	char *s;

	sv_path_of(tr, id, &p);
	for (uint32_t k = 0; k < p.n; k++)
		len += strlen(intern_str(store_strings(tr_store), p.name[k])) + 1;
	s = calloc(1, len);
	for (uint32_t k = 0; k < p.n; k++) {
		if (k)
			strcat(s, SEP);
		strcat(s, intern_str(store_strings(tr_store), p.name[k]));
	}
	return s;
}

/* ---- the model -------------------------------------------------------------------- */

struct fx {
	struct res		r;
	struct store		*st;
	struct text		t;
	struct stackview	sv;
	uint64_t		with;
	char			name[300];
};

static bool fx_open(struct fx *f, const char *dir)
{
	char path[700];

	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%.290s", dir);
	f->st = fixture_stacks_store(f->name, &f->r);
	snprintf(path, sizeof(path), "%s/trace.txt", f->name);
	if (!f->st || text_read(path, &f->t))
		return false;
	f->with = text_with(&f->t);
	/* every event of the store, as the pane counts them */
	sv_init(&f->sv);
	return !sv_feed(&f->sv, f->st, NULL, UINT64_MAX - 1) &&
	       !sv_make_set(&f->sv, f->st, NULL, NULL, 1);
}

static void fx_close(struct fx *f)
{
	sv_destroy(&f->sv);
	text_free(&f->t);
	store_free(f->st);
	symbols_free(f->r.ksyms);
}

/* Run @fn on every stacks-* fixture. */
static void each_fixture(void (*fn)(struct fx *f))
{
	char names[16][300];
	int n = list_stack_fixtures(names, 16);

	CHECK(n >= 2);
	for (int i = 0; i < n; i++) {
		struct fx f;

		CHECK(fx_open(&f, names[i]));
		fn(&f);
		fx_close(&f);
	}
}

/* The node of @tr at the SEP-joined path @key, or STACK_TREE_NONE. */
static uint32_t node_at(struct store *st, const struct stack_tree *tr, const char *key)
{
	uint32_t id = 0;

	for (const char *s = key, *e; s && id != STACK_TREE_NONE; s = e ? e + 1 : NULL) {
		char name[256];

		e = strchr(s, SEP[0]);
		snprintf(name, sizeof(name), "%.*s", e ? (int)(e - s) : (int)strlen(s), s);
		id = stack_tree_child(tr, id, intern_id(store_strings(st), name, strlen(name)));
	}
	return id;
}

static void caller_rows_one(struct fx *f)
{
	const struct stack_tree *tr = sv_tree(&f->sv, f->st, STACK_TREE_CALLERS);
	struct sv_folds folds = { 0 };
	struct counts c = { 0 };
	uint64_t *hash = NULL;
	uint32_t nhash = 0;
	struct sv_row *rows;
	size_t n, leaves = 0, under = 0;
	const char *first;

	text_tree(&f->t, false, &c);
	CHECK(tr && !sv_hashes(tr, &hash, &nhash));
	CHECK_EQ_U64(f->sv.set.count, f->with);
	rows = calloc(c.n + 1, sizeof(*rows));
	n = sv_caller_rows(tr, hash, &folds, rows, c.n + 1);
	printf("  %s: %zu rows, the text %zu paths, %llu events\n", f->name, n, c.n,
	       (unsigned long long)f->with);
	CHECK_EQ_U64(n, c.n);
	first = n ? stack_tree_name(tr, rows[0].id) : "";
	for (size_t i = 0; i < n && i < c.n; i++) {
		const struct stack_node *nd = stack_tree_node(tr, rows[i].id);
		char *key = node_key(f->st, tr, rows[i].id), b1[32], b2[32], want[128];
		struct kc *k = counts_find(&c, key);
		struct richstr rs;

		CHECK(k != NULL);
		CHECK_EQ_U64(rows[i].level + 1u, nd->depth);
		CHECK_EQ_U64(nd->count, k ? k->n : 0);
		/* depth first: a row one level down is a child of the row above */
		if (i && rows[i].level > rows[i - 1].level)
			CHECK(rows[i].level == rows[i - 1].level + 1 && nd->parent == rows[i - 1].id);
		/* the row as drawn: count, share of every event with a stack, the name */
		sv_fmt_caller_row(&rs, tr, rows[i].id, rows[i].level, false, false, f->with,
				  ROLE_STK_KERNEL);
		snprintf(want, sizeof(want), "%9s%7s", ui_fmt_count(b1, sizeof(b1), k ? k->n : 0),
			 ui_fmt_share(b2, sizeof(b2), k ? k->n : 0, f->with));
		CHECK(!strncmp(rs.ch, want, strlen(want)));
		CHECK(!strncmp(rs.ch + sv_caller_name_col(false) + rows[i].level + 2,
			       stack_tree_name(tr, rows[i].id), strlen(stack_tree_name(tr, rows[i].id))));
		leaves += !strchr(key, SEP[0]);
		under += i && !strncmp(key, first, strlen(first)) && key[strlen(first)] == SEP[0];
		free(key);
	}
	/* folding the first row hides the text's paths under it */
	sv_fold_set(&folds, hash[rows[0].id], true);
	CHECK_EQ_U64(sv_caller_rows(tr, hash, &folds, rows, c.n + 1), c.n - under);
	/* C: the distinct leaf frames; E: everything again */
	sv_fold_all(&folds, true);
	CHECK_EQ_U64(sv_caller_rows(tr, hash, &folds, rows, c.n + 1), leaves);
	sv_fold_all(&folds, false);
	CHECK_EQ_U64(sv_caller_rows(tr, hash, &folds, rows, c.n + 1), c.n);
	sv_folds_free(&folds);
	free(rows);
	free(hash);
	counts_free(&c);
}

/* The caller tree's rows, unfolded, against the text's leaf-first paths. */
TEST(caller_rows_match_kernel_text)
{
	each_fixture(caller_rows_one);
}

/* Every root-first path of the text, laid out @w columns wide: its cell within a column. */
static void icicle_check_shares(struct fx *f, const struct stack_tree *tr, const struct counts *c,
				const struct sv_cell *cells, size_t n, size_t *omitted)
{
	*omitted = 0;

	for (size_t i = 0; i < c->n; i++) {
		uint32_t id = node_at(f->st, tr, c->v[i].key);
		const struct stack_node *nd = stack_tree_node(tr, id);
		long ci, pi;
		double share;

		CHECK(nd != NULL);
		if (!nd)
			continue;
		ci = sv_cell_of(cells, n, id);
		pi = sv_cell_of(cells, n, nd->parent);
		if (pi < 0) {	/* its parent was left out: so is it */
			CHECK(ci < 0);
			continue;
		}
		share = (double)c->v[i].n * (cells[pi].x1 - cells[pi].x0) /
			(double)stack_tree_node(tr, nd->parent)->value;
		if (ci < 0) {
			CHECK(share < 1.0);
			(*omitted)++;
			continue;
		}
		CHECK(cells[ci].x1 - cells[ci].x0 >= (int)share);
		CHECK(cells[ci].x1 - cells[ci].x0 <= (int)share + 1);
		CHECK(cells[ci].x0 >= cells[pi].x0 && cells[ci].x1 <= cells[pi].x1);
	}
}

/* Each row as text: a frame's name (or its start and "..") at its first column. */
static void icicle_check_text(const struct stack_tree *tr, const struct sv_cell *cells, size_t n,
			      int w, int depth)
{
	uint8_t *roles = calloc(n + 1, 1);

	for (int row = 0; row <= depth; row++) {
		struct richstr rs;

		sv_fmt_icicle_row(&rs, tr, cells, n, roles, row, w, STACK_TREE_NONE, NULL);
		for (size_t i = 0; i < n; i++) {
			const char *name = stack_tree_name(tr, cells[i].id);
			int room = cells[i].x1 - cells[i].x0 - 1;

			if (cells[i].row != row || room < 3)
				continue;
			if ((int)strlen(name) <= room)
				CHECK(!strncmp(rs.ch + cells[i].x0, name, strlen(name)));
			else if (room >= 4)
				CHECK(!strncmp(rs.ch + cells[i].x0, name, room - 2) &&
				      !strncmp(rs.ch + cells[i].x0 + room - 2, "..", 2));
		}
	}
	free(roles);
}

static void icicle_one(struct fx *f)
{
	const struct stack_tree *tr = sv_tree(&f->sv, f->st, STACK_TREE_ROOTS);
	struct counts c = { 0 };
	struct sv_cell *cells;
	size_t n, omitted;
	int depth = 0;

	text_tree(&f->t, true, &c);
	for (size_t i = 0; i < c.n; i++) {
		int d = 1;

		for (const char *p = c.v[i].key; *p; p++)
			d += *p == SEP[0];
		depth = d > depth ? d : depth;
	}
	cells = calloc(c.n + 2, sizeof(*cells));
	/* as wide as there are events: each frame exactly its count */
	n = sv_icicle_layout(tr, 0, (int)f->with, depth + 1, cells, c.n + 2);
	CHECK_EQ_U64(n, c.n + 1);
	for (size_t i = 1; i < n && i <= c.n; i++) {
		char *key = node_key(f->st, tr, cells[i].id);
		struct kc *k = counts_find(&c, key);
		long p = sv_cell_of(cells, n, stack_tree_node(tr, cells[i].id)->parent);

		CHECK(k != NULL);
		CHECK_EQ_U64((uint64_t)(cells[i].x1 - cells[i].x0), k ? k->n : 0);
		CHECK(cells[i].row == (int)stack_tree_node(tr, cells[i].id)->depth);
		CHECK(p >= 0 && cells[p].x0 <= cells[i].x0 && cells[i].x1 <= cells[p].x1);
		/* by row, then left to right, never overlapping */
		CHECK(cells[i - 1].row < cells[i].row || cells[i - 1].x1 <= cells[i].x0);
		free(key);
	}
	icicle_check_shares(f, tr, &c, cells, n, &omitted);
	CHECK_EQ_U64(omitted, 0);
	/* 80 columns: within a column of the share of the parent, left out below one */
	n = sv_icicle_layout(tr, 0, 80, depth + 1, cells, c.n + 2);
	CHECK(n > 1 && n <= c.n + 1);
	icicle_check_shares(f, tr, &c, cells, n, &omitted);
	printf("  %s: %zu frames, %zu cells at 80 columns (%zu too narrow)\n", f->name, c.n,
	       n - 1, omitted);
	icicle_check_text(tr, cells, n, 80, depth);
	/* a buffer too small says so, and the first cells are the same */
	CHECK(sv_icicle_layout(tr, 0, 80, depth + 1, cells, 3) == 4);
	free(cells);
	counts_free(&c);
}

TEST(icicle_cells_match_kernel_text)
{
	each_fixture(icicle_one);
}


/* ---- the pane, drawn into a text screen -------------------------------------------- */

static struct {
	struct app	app;
	struct ui	ui;
	struct fx	f;
} rig;

static bool rig_open(const char *fixture)
{
	static const struct pane_ops *const panes[] = { &pane_stacks_ops, &pane_events_ops };
	static const struct prompt_ops *const prompts[] = {
		&prompt_search_ops, &prompt_save_ops, &prompt_view_ops,
	};
	char dir[400];

	memset(&rig, 0, sizeof(rig));
	snprintf(dir, sizeof(dir), "%s/%s", fixture_root(), fixture);
	if (!fx_open(&rig.f, dir))
		return false;
	rig.app.st = rig.f.st;
	rig.app.view = viewfilter_new(rig.app.st, NULL);
	rig.ui.app = &rig.app;
	rig.ui.st = rig.app.st;
	rig.ui.screen.rows = SCR_ROWS;
	rig.ui.screen.cols = SCR_COLS;
	return rig.app.view && !ui_views_init(&rig.ui, panes, 2, prompts, 3);
}

static void rig_close(void)
{
	ui_views_destroy(&rig.ui);
	viewfilter_free(rig.app.view);
	fx_close(&rig.f);
}

static struct pane *stacks_pane(void)
{
	return ui_pane(&rig.ui, "stacks");
}

static struct stacks_state *stacks(void)
{
	return stacks_pane()->priv;
}

/* The tree the pane shows (its mode's). */
static const struct stack_tree *cur_tree(struct ui *ui, struct stacks_state *ss)
{
	return sv_tree(&ss->sv, ui->st, (enum stack_tree_dir)ss->mode);
}

static void draw(void)
{
	text_screen_draw(&rig.ui, rig.ui.active);
}

static int key(enum ui_action act)
{
	return stacks_pane()->ops->key(&rig.ui, stacks_pane(), act);
}

/* Open the pane on every event stack, in @icicle or the caller tree, and draw it. */
static void open_all(bool icicle)
{
	CHECK(ui_request(&rig.ui, &(struct ui_req){
		.kind = UI_REQ_STACKS, .stacks = { .icicle = icicle, .type = -1 },
	}) & UI_HANDLED);
	CHECK(ui_showing(&rig.ui, "stacks"));
	draw();
}

/* Zoom in (Enter) and out (Backspace, Home): row 0 is the frame zoomed into. */
TEST(icicle_zoom_in_and_out)
{
	const struct stack_tree *t;
	const struct stack_node *z, *c;
	char name[128], want[300];
	int w;

	CHECK(rig_open("stacks-rt"));
	open_all(true);
	CHECK(!strncmp(scr[1], "zoom: all  (Enter", 17));
	CHECK(!strncmp(scr[2], "all ", 4));
	CHECK(strstr(scr[SCR_ROWS - 1], "100% of all"));
	/* Down: the widest frame under the root; Enter zooms into it */
	key(ACT_DOWN);
	key(ACT_ENTER);
	draw();
	t = cur_tree(&rig.ui, stacks());
	z = stack_tree_node(t, sv_path_find(t, &stacks()->zoom, NULL));
	CHECK(z && z->depth == 1);
	snprintf(name, sizeof(name), "%s", stack_tree_name(t, sv_path_find(t, &stacks()->zoom,
									     NULL)));
	CHECK(!strncmp(scr[2], name, strlen(name)));
	snprintf(want, sizeof(want), "zoom: all > %s  (Backspace", name);
	CHECK(!strncmp(scr[1], want, strlen(want)));
	/* its first callee spans its share of the whole width, as the text counts them */
	c = stack_tree_node(t, z->first_child);
	CHECK(c != NULL);
	for (w = 0; scr[3][w] && scr[3][w + 1] && !(scr[3][w] == ' ' && scr[3][w + 1] != ' '); w++)
		;
	snprintf(want, sizeof(want), "%s" SEP "%s", name, stack_tree_name(t, z->first_child));
	CHECK_EQ_U64(c->count, text_holding(&rig.f.t, want, true, false));
	CHECK((uint64_t)w + 1 >= c->count * SCR_COLS / z->count &&
	      (uint64_t)w <= c->count * SCR_COLS / z->count + 1);
	/* deeper, then one out, then Home */
	key(ACT_DOWN);
	key(ACT_ENTER);
	CHECK_EQ_U64(stacks()->zoom.n, 2);
	key(ACT_ZOOM_OUT);
	draw();
	CHECK_EQ_U64(stacks()->zoom.n, 1);
	CHECK(!strncmp(scr[2], name, strlen(name)));
	key(ACT_DOWN);
	key(ACT_ENTER);
	key(ACT_HOME);
	draw();
	CHECK(!strncmp(scr[2], "all ", 4));
	/* Esc zooms out too, and says nothing more when there is nothing to zoom out of */
	CHECK(key(ACT_ESC) == 0);
	rig_close();
}

/* / n N: the selected frame goes to each match; the title weighs them as the text does. */
TEST(search_selects_and_weighs_matches)
{
	const struct stack_tree *t;
	uint32_t sel, first;
	char want[128], b[32];

	CHECK(rig_open("stacks-rt"));
	open_all(true);
	CHECK(stacks_pane()->ops->search(&rig.ui, stacks_pane(), "do_nanosleep", -1) & UI_HANDLED);
	draw();
	t = cur_tree(&rig.ui, stacks());
	first = sel = sv_path_find(t, &stacks()->sel[M_ICICLE], NULL);
	CHECK(!strcmp(stack_tree_name(t, sel), "do_nanosleep"));
	CHECK(!strncmp(scr[SCR_ROWS - 1], "do_nanosleep", 12));
	/* what the matches weigh: the events through do_nanosleep, of all with a stack */
	snprintf(want, sizeof(want), "\"do_nanosleep\": ");
	CHECK(strstr(scr[0], want));
	ui_fmt_share(b, sizeof(b), text_holding(&rig.f.t, "do_nanosleep", false, false),
		     rig.f.with);
	CHECK(strstr(strstr(scr[0], want), b));
	/* n goes on to the next match, if any, and comes back round */
	for (int k = 0; k < 8; k++) {
		stacks_pane()->ops->search(&rig.ui, stacks_pane(), "do_nanosleep", -1);
		sel = sv_path_find(t, &stacks()->sel[M_ICICLE], NULL);
		CHECK(!strcmp(stack_tree_name(t, sel), "do_nanosleep"));
		if (sel == first)
			break;
	}
	CHECK(sel == first);
	/* in the caller tree, folded: the match's callers unfold to show it */
	key(ACT_VIEW);
	draw();
	key(ACT_FOLD_ALL);
	stacks_pane()->ops->search(&rig.ui, stacks_pane(), "hrtimer_nanosleep", -1);
	draw();
	t = cur_tree(&rig.ui, stacks());
	CHECK(!strcmp(stack_tree_name(t, stacks()->rows[stacks()->sel_row].id),
		      "hrtimer_nanosleep"));
	CHECK(stacks()->n > 5);
	CHECK(stacks_pane()->ops->search(&rig.ui, stacks_pane(), "no_such_frame", -1) & UI_HANDLED);
	CHECK(strstr(rig.ui.message, "no frame matches"));
	rig_close();
}

/* Count the events the view matches, and check each has a stack the clause names. */
static uint64_t view_matches(void)
{
	struct viewfilter_counts vc;

	viewfilter_update(rig.app.view, 0);
	viewfilter_counts(rig.app.view, &vc);
	return vc.matched;
}

/* Enter on a caller tree node: every pane narrowed to the events under it, the list shown. */
TEST(enter_lists_the_events_under_a_node)
{
	const struct stack_tree *t;
	struct events_state *es;
	uint32_t id;
	char path[512];

	CHECK(rig_open("stacks-rt"));
	open_all(false);
	/* the second row: the biggest leaf frame's biggest caller */
	key(ACT_HOME);
	key(ACT_DOWN);
	draw();
	t = cur_tree(&rig.ui, stacks());
	id = stacks()->rows[stacks()->sel_row].id;
	CHECK(stack_tree_node(t, id)->depth == 2);
	snprintf(path, sizeof(path), "%s" SEP "%s", stack_tree_name(t, id),
		 stack_tree_name(t, stack_tree_node(t, id)->parent));
	CHECK(key(ACT_ENTER) & UI_HANDLED);
	CHECK(ui_showing(&rig.ui, "events"));
	CHECK_EQ_U64(viewfilter_nclauses(rig.app.view), 1);
	CHECK(!strncmp(viewfilter_clause(rig.app.view, 0), "stack:", 6));
	CHECK(viewfilter_clause(rig.app.view, 0)[strlen(viewfilter_clause(rig.app.view, 0)) - 1]
	      == '$');
	/* as many events as the node counts, and as the text has ending so */
	CHECK_EQ_U64(view_matches(), stack_tree_node(t, id)->count);
	CHECK_EQ_U64(view_matches(), text_holding(&rig.f.t, path, false, true));
	draw();
	es = ui_pane(&rig.ui, "events")->priv;
	CHECK(es->n > 0);
	for (int i = 0; i < es->n; i++) {
		struct sv_path p;

		sv_path_of_stack(rig.app.st, es->rows[i].ev.stack, STACK_TREE_CALLERS, &p);
		CHECK(p.n >= 2 && !strcmp(intern_str(store_strings(rig.app.st), p.name[1]),
					  stack_tree_name(t, id)));
	}
	/* opened on an event type: the type's clause, then the stack's */
	viewfilter_clear(rig.app.view);
	CHECK(ui_request(&rig.ui, &(struct ui_req){
		.kind = UI_REQ_STACKS, .stacks = { .type = KTOP_T_SCHED_SWITCH, .what = "switches" },
	}) & UI_HANDLED);
	draw();
	key(ACT_HOME);
	key(ACT_ENTER);
	CHECK_EQ_U64(viewfilter_nclauses(rig.app.view), 2);
	CHECK(!strncmp(viewfilter_clause(rig.app.view, 0), "event:", 6));
	t = cur_tree(&rig.ui, stacks());
	CHECK_EQ_U64(view_matches(), stack_tree_node(t, stack_tree_node(t, 0)->first_child)->count);
	rig_close();
}

/*
 * A view set while the caller tree is shown: the tree is built again from the
 * events it keeps, and the rows with it (they were the old tree's when the
 * stack view's generation started again from 1 at every new scope).
 */
TEST(a_new_view_lays_the_rows_out_again)
{
	const struct stack_tree *t;
	uint32_t tops = 0;
	size_t n_all;

	CHECK(rig_open("stacks-rt"));
	open_all(false);
	draw();
	n_all = stacks()->n;
	CHECK(n_all > 0);
	CHECK(ui_request(&rig.ui, &(struct ui_req){
		.kind = UI_REQ_NARROW,
		.view = { .what = UI_VIEW_EVENT, .type = KTOP_T_SCHED_SWITCH },
	}) & UI_HANDLED);
	CHECK(ui_show_pane(&rig.ui, "stacks"));
	draw();
	draw();
	t = cur_tree(&rig.ui, stacks());
	CHECK(t != NULL);
	/* every row a node of the tree shown, its top rows the root's children */
	for (size_t i = 0; i < stacks()->n; i++) {
		CHECK(stacks()->rows[i].id < stack_tree_size(t));
		tops += stacks()->rows[i].level == 0;
	}
	for (uint32_t c = stack_tree_node(t, 0)->first_child; c != STACK_TREE_NONE;
	     c = stack_tree_node(t, c)->next_sibling)
		tops--;
	CHECK_EQ_U64(tops, 0);
	CHECK(stacks()->n < n_all);
	rig_close();
}

/* stack: clauses of the view filter against the text: anchors, globs, negation, errors. */
TEST(stack_clauses_match_kernel_text)
{
	static const struct {
		const char	*clause;
		const char	*frames;
		bool		root, leaf, not, none;	/* none: no event (the anchor decides) */
	} c[] = {
		/* the leaf the views show: below the tracepoint's own frames (issue 31 #9) */
		{ "stack:__schedule$", "__schedule", false, true, false, false },
		/* anchored where those frames never are: none, though the frames are there */
		{ "stack:^kthread", "kthread", true, false, false, true },
		{ "stack:kthread", "kthread", false, false, false, false },
		{ "stack:do_nanosleep", "do_nanosleep", false, false, false, false },
		{ "stack:hrtimer_nanosleep;do_nanosleep", "hrtimer_nanosleep" SEP "do_nanosleep",
		  false, false, false, false },
		{ "stack:^ret_from_fork;kthread", "ret_from_fork" SEP "kthread", true, false, false,
		  false },
		/* the tracing code's frames are not among those a view shows */
		{ "stack:__schedule;__traceiter_sched_switch;trace_event_raw_event_sched_switch$",
		  "__schedule" SEP "__traceiter_sched_switch" SEP "trace_event_raw_event_sched_switch",
		  false, true, false, true },
		{ "!stack:do_nanosleep", "do_nanosleep", false, false, true, false },
	};
	struct err_pos fe;

	CHECK(rig_open("stacks-rt"));
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint64_t want = text_holding(&rig.f.t, c[i].frames, c[i].root, c[i].leaf);
		uint64_t held = 0;

		for (unsigned int cpu = 0; cpu < store_ncpus(rig.app.st); cpu++) {
			uint64_t first, end;

			store_cpu_range(rig.app.st, cpu, &first, &end);
			held += end - first;
		}
		viewfilter_clear(rig.app.view);
		CHECK(!viewfilter_push(rig.app.view, c[i].clause, &fe));
		if (c[i].not)
			want = held - want;
		printf("  %s: %llu events\n", c[i].clause, (unsigned long long)want);
		CHECK(c[i].none ? want == 0 : want > 0);
		CHECK_EQ_U64(view_matches(), want);
	}
	/* a glob frame */
	viewfilter_clear(rig.app.view);
	CHECK(!viewfilter_push(rig.app.view, "stack:*_nanosleep", &fe));
	CHECK(view_matches() >= text_holding(&rig.f.t, "do_nanosleep", false, false));
	/* mistakes, with the column */
	CHECK(viewfilter_check("stack:", &fe) == -EINVAL && fe.offset == 6);
	CHECK(viewfilter_check("stack:a;;b", &fe) == -EINVAL && fe.offset == 8);
	CHECK(viewfilter_check("stack:^$", &fe) == -EINVAL);
	rig_close();
}

/* s in the stacks pane: the .folded file holds what the pane shows (the zoom's stacks). */
TEST(save_prompt_writes_the_folded_stacks_shown)
{
	char path[] = "/tmp/ktop-test-folded-XXXXXX.folded", line[8192], zoom[256];
	const struct stack_tree *t;
	uint64_t sum = 0, lines = 0;
	int fd = mkstemps(path, 7);
	FILE *fp;

	CHECK(fd >= 0);
	close(fd);
	unlink(path);
	CHECK(rig_open("stacks-rt"));
	open_all(true);
	key(ACT_DOWN);
	key(ACT_ENTER);
	draw();
	t = cur_tree(&rig.ui, stacks());
	snprintf(zoom, sizeof(zoom), "%s", stack_tree_name(t, sv_path_find(t, &stacks()->zoom,
									     NULL)));
	CHECK(ui_prompt_open(&rig.ui, "save") & UI_HANDLED);
	CHECK(strstr(rig.ui.prompt->label, ".folded"));
	CHECK(strstr(rig.ui.prompt->line.text, ".folded"));
	ui_line_set(&rig.ui.prompt->line, path);
	ui_prompt_key(&rig.ui, '\n');
	CHECK(strstr(rig.ui.message, "saved"));
	fp = fopen(path, "r");
	CHECK(fp);
	while (fp && fgets(line, sizeof(line), fp)) {
		char *sp = strrchr(line, ' ');

		CHECK(sp && !strncmp(line, zoom, strlen(zoom)) && line[strlen(zoom)] == ';');
		sum += strtoull(sp + 1, NULL, 10);
		lines++;
	}
	if (fp)
		fclose(fp);
	/* as many events as the text has through that root frame */
	CHECK(lines > 0);
	CHECK_EQ_U64(sum, text_holding(&rig.f.t, zoom, true, false));
	unlink(path);
	rig_close();
}

/*
 * The function_graph source: the call paths of the rt*-fgraph fixtures, each
 * node of the icicle as wide as its total time and counting the calls under
 * it, as a reader of the kernel's function_graph text sums them (calls nest
 * by CPU, interrupts inline where the kernel nests them).
 */
static void graph_text(const char *path, struct counts *calls, struct counts *ns)
{
	char *text = fixture_read_file(path, NULL), line[4096], stack[64][96], key[8192];
	int depth[64] = { 0 };
	FILE *fp = text ? fmemopen(text, strlen(text), "r") : NULL;

	while (fp && fgets(line, sizeof(line), fp)) {
		struct ft_rec r;
		int c;

		if (ft_parse_line(line, &r) != 1 || r.cpu < 0 || r.cpu >= 64)
			continue;
		c = r.cpu;
		if (r.kind == FT_EXIT) {
			if (!depth[c])
				continue;
			depth[c]--;
		} else if (r.kind != FT_ENTRY && r.kind != FT_LEAF) {
			continue;
		}
		key[0] = '\0';
		for (int k = 0; k < depth[c] + (r.kind == FT_EXIT); k++) {
			strcat(key, stack[k]);
			if (k + 1 < depth[c] + (r.kind == FT_EXIT))
				strcat(key, SEP);
		}
		if (r.kind != FT_EXIT) {
			/* the call itself, at its path */
			if (key[0])
				strcat(key, SEP);
			strcat(key, r.func);
			counts_add(calls, strdup(key), 1, 0);
			if (r.kind == FT_ENTRY && depth[c] < 64)
				snprintf(stack[depth[c]++], sizeof(stack[0]), "%s", r.func);
		}
		/* a call's time: the leaf's line, or the closing brace of an entry */
		if ((r.kind == FT_LEAF || r.kind == FT_EXIT) && r.has_dur) {
			counts_add(ns, strdup(key), r.dur, r.dur_unit);
		}
	}
	if (fp)
		fclose(fp);
	free(text);
	counts_done(calls);
	counts_done(ns);
}

TEST(graph_icicle_is_total_time)
{
	static const char *const fx[] = { "rt-fgraph", "rt612-fgraph" };
	int done = 0;

	for (size_t f = 0; f < sizeof(fx) / sizeof(fx[0]); f++) {
		struct fgraph_config cfg = { .irq_inline = true };
		struct counts calls = { 0 }, ns = { 0 };
		const struct stack_tree *tr;
		struct stackview sv;
		char dir[600], path[700];
		struct res r = { 0 };
		struct store *st;
		size_t timed = 0;

		snprintf(dir, sizeof(dir), "%s/%s", fixture_root(), fx[f]);
		snprintf(path, sizeof(path), "%s/trace.txt", dir);
		if (access(dir, R_OK))
			continue;
		st = fixture_stacks_store(dir, &r);
		graph_model = fgraph_new(&cfg);
		CHECK(st && graph_model && fgraph_feed_store(graph_model, st, 0, UINT64_MAX) > 0);
		sv_init(&sv);
		sv.scope.src = SV_SRC_GRAPH;
		CHECK(!sv_make_set(&sv, st, graph_model, NULL, 1));
		tr = sv_tree(&sv, st, STACK_TREE_ROOTS);
		graph_text(path, &calls, &ns);
		CHECK(tr && stack_tree_size(tr) == calls.n + 1);
		for (uint32_t id = 1; tr && id < stack_tree_size(tr); id++) {
			const struct stack_node *nd = stack_tree_node(tr, id);
			char *key = node_key(st, tr, id);
			struct kc *kt = counts_find(&ns, key);
			uint64_t under = 0;
			size_t kl = strlen(key);

			/* the calls at the path and under it */
			for (size_t i = 0; i < calls.n; i++)
				if (!strncmp(calls.v[i].key, key, kl) &&
				    (!calls.v[i].key[kl] || calls.v[i].key[kl] == SEP[0]))
					under += calls.v[i].n;
			CHECK_EQ_U64(nd->count, under);
			/* its width: the time of its calls, as printed (to the digit printed) */
			if (kt) {
				CHECK(nd->value + kt->self >= kt->n && nd->value <= kt->n + kt->self);
				timed++;
			}
			free(key);
		}
		printf("  %s: %zu call paths, %zu with times, root %s\n", fx[f], calls.n, timed,
		       stack_tree_name(tr, stack_tree_node(tr, 0)->first_child));
		CHECK(timed > calls.n / 2);
		sv_destroy(&sv);
		counts_free(&calls);
		counts_free(&ns);
		fgraph_free(graph_model);
		graph_model = NULL;
		store_free(st);
		symbols_free(r.ksyms);
		done++;
	}
	CHECK(done > 0);
}

/* The BPF off-CPU source: widths are the time off CPU, not the count of switches. */
TEST(offcpu_icicle_is_time_off_cpu)
{
	const struct stack_tree *t;
	struct stack_weight w[2];

	CHECK(rig_open("stacks-rt"));
	/* two stacks of the fixture: one switched out often for little, one once for long */
	w[0] = (struct stack_weight){ 1, 10, 100, 1000000 };
	w[1] = (struct stack_weight){ 2, 11, 1, 9000000 };
	CHECK(!stacks_weights_set(store_stacks(rig.app.st), STACKS_W_OFFCPU, w, 2));
	open_all(true);
	key(ACT_STACK_SOURCE);
	draw();
	CHECK(stacks()->sv.scope.src == SV_SRC_OFFCPU);
	CHECK(strstr(scr[0], "off-CPU stacks (BPF)") && strstr(scr[0], "10.00ms, 2 stacks"));
	t = cur_tree(&rig.ui, stacks());
	CHECK(t && stack_tree_node(t, 0)->value == 10000000);
	CHECK_EQ_U64(stack_tree_node(t, 0)->count, 101);
	/* the caller tree's TIME column */
	key(ACT_VIEW);
	draw();
	CHECK(strstr(scr[1], "TIME  SHARE    COUNT"));
	rig_close();
}

/*
 * The rig on stacks-rt with off-CPU totals of two threads: 10 waits on stack 1
 * (100 times, 1 ms); 11 on stack 2 (once, 9 ms) and on stack 1 (4 times, 3 ms).
 */
static bool rig_open_offcpu(void)
{
	const struct stack_weight w[] = {
		{ 1, 10, 100, 1000000 }, { 2, 11, 1, 9000000 }, { 1, 11, 4, 3000000 },
	};

	return rig_open("stacks-rt") &&
	       !stacks_weights_set(store_stacks(rig.app.st), STACKS_W_OFFCPU, w, 3);
}

/* The BPF pane's request for one thread's off-CPU stacks: the scope holds that thread's only. */
TEST(offcpu_scope_of_one_thread)
{
	const struct stack_tree *t;

	CHECK(rig_open_offcpu());
	CHECK(ui_request(&rig.ui, &(struct ui_req){
		.kind = UI_REQ_STACKS,
		.stacks = { .icicle = true, .src = SV_SRC_OFFCPU, .type = -1, .pid = 11, .stack = 2,
			    .what = "the waits of 11 x" },
	}) & UI_HANDLED);
	draw();
	CHECK(stacks()->sv.scope.src == SV_SRC_OFFCPU && stacks()->sv.scope.pid == 11);
	CHECK(strstr(scr[0], "icicle of the waits of 11 x") && strstr(scr[0], "12.00ms, 2 stacks"));
	t = cur_tree(&rig.ui, stacks());
	CHECK(t && stack_tree_node(t, 0)->value == 12000000);
	CHECK_EQ_U64(stack_tree_node(t, 0)->count, 5);
	/* x: every thread again */
	key(ACT_STACK_ALL);
	draw();
	t = cur_tree(&rig.ui, stacks());
	CHECK(stacks()->sv.scope.pid == 0 && t && stack_tree_node(t, 0)->value == 13000000);
	rig_close();
}

/* Under a view filter, the off-CPU stacks are those of the view's tasks (pid:, comm:). */
TEST(offcpu_stacks_of_the_view_tasks)
{
	const struct stack_tree *t;

	CHECK(rig_open_offcpu());
	open_all(true);
	key(ACT_STACK_SOURCE);
	draw();
	t = cur_tree(&rig.ui, stacks());
	CHECK(t && stack_tree_node(t, 0)->value == 13000000);
	CHECK(ui_request(&rig.ui, &(struct ui_req){
		.kind = UI_REQ_NARROW, .view = { .what = UI_VIEW_CLAUSE, .text = "pid:10" },
	}));
	rig.ui.active = ui_pane(&rig.ui, "stacks");
	draw();
	CHECK(strstr(scr[0], "in the view") && strstr(scr[0], "1.00ms, 1 stack"));
	t = cur_tree(&rig.ui, stacks());
	CHECK(t && stack_tree_node(t, 0)->value == 1000000);
	CHECK_EQ_U64(stack_tree_node(t, 0)->count, 100);
	/* every task again */
	CHECK(ui_request(&rig.ui, &(struct ui_req){ .kind = UI_REQ_WIDEN, .view.all = true }));
	rig.ui.active = ui_pane(&rig.ui, "stacks");
	draw();
	t = cur_tree(&rig.ui, stacks());
	CHECK(t && stack_tree_node(t, 0)->value == 13000000);
	rig_close();
}

/* Issue 31 #11: a recording without stacks says so in words that read. */
TEST(no_stacks_says_so_once)
{
	char all[SCR_ROWS * (SCR_COLS + 1) + 1] = "";

	CHECK(rig_open("host-sched"));
	open_all(false);
	for (int r = 0; r < SCR_ROWS; r++)
		strcat(all, scr[r]);
	CHECK(strstr(all, "No event with a stack."));
	CHECK(!strstr(all, "with a stack with a stack"));
	rig_close();
}

TEST_MAIN()
