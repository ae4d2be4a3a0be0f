// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The stacks pane of a diff (ktop -i BASE --diff NEW): the stacks of both
 * sides merged frame by frame by name (src/diff/diff.h's diff_stree), drawn
 * as a differential icicle, root first, each frame as wide as its share of
 * NEW and coloured by its growth or shrinkage per second (as differential
 * flame graphs do), or as a caller tree (v), leaf first, each frame with
 * BASE, NEW, DELTA and RATIO. o: the events' stacks or the function_graph
 * paths (self time). In the icicle the arrows walk the frames, Enter zooms
 * into the selected one, Backspace zooms out. The zoom and the selection are
 * kept as frame paths: a refresh (a live NEW) makes the tree again, with
 * other node numbers, and they stay on the same frames (or the deepest of
 * their callers still there).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diff/diff.h"
#include "diff_rows.h"
#include "ui-local.h"

#define DS_MAX_CELLS	8192
#define DS_MAX_ROWS	100000
#define DS_PATH_MAX	8192

struct diff_stacks {
	enum diff_stack_src	src;
	bool			tree;		/* the caller tree, else the icicle */
	uint32_t		zoom, sel;	/* icicle: node ids in the tree drawn */
	char			zpath[DS_PATH_MAX];	/* ... as frame paths, '\n'-joined */
	char			spath[DS_PATH_MAX];
	int			tsel, ttop;	/* tree: the selected row, the first shown */
	struct dr_cell		cells[DS_MAX_CELLS];
	uint32_t		*rows;		/* tree: node, level << 24 */
	size_t			nrows, cap;
	char			footer[128];
};

static void ds_destroy(struct pane *p)
{
	struct diff_stacks *ds = p->priv;

	free(ds->rows);
}

static const struct diff_stree *ds_tree(struct ui *ui, struct diff_stacks *ds)
{
	char why[8];

	/* the tables wait for both sides to be read: so do the stacks */
	if (!ui_diff_ready(ui, why, sizeof(why)))
		return NULL;
	return diff_stree(ui->diff, ds->src, ds->tree);
}

/* @id's frames from the root's child down, '\n'-joined, into @buf ("" for the root). */
static void path_of(const struct diff_stree *t, uint32_t id, char *buf, size_t len)
{
	uint32_t ids[512];
	int n = 0;
	size_t at = 0;

	buf[0] = 0;
	for (uint32_t k = id; k != DIFF_SNONE && k && n < 512; k = diff_stree_node(t, k)->parent)
		ids[n++] = k;
	while (n-- > 0) {
		const char *name = diff_stree_node(t, ids[n])->name;
		size_t l = strlen(name);

		if (at + l + 2 > len)
			break;	/* deeper than kept: the path stops at its caller */
		memcpy(buf + at, name, l);
		at += l;
		buf[at++] = '\n';
		buf[at] = 0;
	}
}

/* The node of frame path @path in @t, or the deepest of its callers there. */
static uint32_t node_of(const struct diff_stree *t, const char *path)
{
	uint32_t id = 0;

	while (*path) {
		const char *end = strchr(path, '\n');
		size_t l = end ? (size_t)(end - path) : strlen(path);
		uint32_t k = diff_stree_node(t, id)->first_child;

		for (; k != DIFF_SNONE; k = diff_stree_node(t, k)->next_sibling) {
			const char *name = diff_stree_node(t, k)->name;

			if (strlen(name) == l && !memcmp(name, path, l))
				break;
		}
		if (k == DIFF_SNONE)
			break;
		id = k;
		path += l + (end ? 1 : 0);
	}
	return id;
}

/* The zoom and the selection in tree @t, from their frame paths. */
static void icicle_find(struct diff_stacks *ds, const struct diff_stree *t)
{
	ds->zoom = node_of(t, ds->zpath);
	ds->sel = node_of(t, ds->spath);
	/* the selection is at or under the zoom */
	for (uint32_t k = ds->sel; k != ds->zoom; k = diff_stree_node(t, k)->parent)
		if (k == DIFF_SNONE || !k) {
			ds->sel = ds->zoom;
			break;
		}
}

/* The zoom and the selection as frame paths, after a key moved them. */
static void icicle_keep(struct diff_stacks *ds, const struct diff_stree *t)
{
	path_of(t, ds->zoom, ds->zpath, sizeof(ds->zpath));
	path_of(t, ds->sel, ds->spath, sizeof(ds->spath));
}

static const char *src_name(enum diff_stack_src s)
{
	return s == DIFF_STACK_GRAPH ? "function_graph paths (self time)" : "the events' stacks";
}

/* The tree's rows, depth first, children by NEW's value, to DS_MAX_ROWS. */
static void tree_rows(struct diff_stacks *ds, const struct diff_stree *t)
{
	uint32_t stack[256], lv[256];
	int sp = 0;

	ds->nrows = 0;
	if (!ds->cap) {
		ds->rows = malloc(DS_MAX_ROWS * sizeof(*ds->rows));
		if (!ds->rows)
			return;
		ds->cap = DS_MAX_ROWS;
	}
	/* the root ("all") and its children, each with its own below it */
	stack[sp] = 0;
	lv[sp++] = 0;
	while (sp && ds->nrows < ds->cap) {
		uint32_t id = stack[--sp], level = lv[sp], kids[256];
		const struct diff_snode *n = diff_stree_node(t, id);
		int nk = 0;

		ds->rows[ds->nrows++] = id;
		/* children pushed in reverse, so that the largest comes out first */
		for (uint32_t k = n->first_child; k != DIFF_SNONE && nk < 256;
		     k = diff_stree_node(t, k)->next_sibling)
			kids[nk++] = k;
		while (nk && sp < 255) {
			stack[sp] = kids[--nk];
			lv[sp++] = level + 1;
		}
		/* the level rides in the row's top byte */
		ds->rows[ds->nrows - 1] |= (level > 255 ? 255 : level) << 24;
	}
}

static void draw_line(struct ui *ui, int y, int w, enum ui_role role, const char *text)
{
	struct richstr rs;

	richstr_clear(&rs);
	richstr_add(&rs, role, text);
	richstr_pad(&rs, role, w);
	richstr_truncate(&rs, w);
	ui_draw_rs(&ui->screen, y, 0, &rs, w);
}

static void draw_icicle(struct ui *ui, struct diff_stacks *ds, const struct diff_stree *t,
			int y, int h, int w)
{
	struct richstr rs;
	size_t n;

	icicle_find(ds, t);
	n = dr_icicle_layout(t, ds->zoom, w, h - 1, ds->cells, DS_MAX_CELLS);
	if (n > DS_MAX_CELLS)
		n = DS_MAX_CELLS;
	for (int row = 0; row < h - 1; row++) {
		dr_fmt_icicle_row(&rs, t, ds->cells, n, row, w, ds->sel);
		ui_draw_rs(&ui->screen, y + row, 0, &rs, w);
	}
	/* the selected frame's figures */
	dr_fmt_tree_row(&rs, t, ds->sel, 0, false, w);
	ui_draw_rs(&ui->screen, y + h - 1, 0, &rs, w);
}

static void draw_tree(struct ui *ui, struct diff_stacks *ds, const struct diff_stree *t, int y,
		      int h, int w)
{
	struct richstr rs;
	int rows = h - 1;

	tree_rows(ds, t);
	richstr_clear(&rs);
	richstr_add_right(&rs, ROLE_COLHDR, "BASE", DR_FIG_W);
	richstr_add(&rs, ROLE_COLHDR, " ");
	richstr_add_right(&rs, ROLE_COLHDR, "NEW", DR_FIG_W);
	richstr_add(&rs, ROLE_COLHDR, " ");
	richstr_add_right(&rs, ROLE_COLHDR, "DELTA", DR_FIG_W);
	richstr_add(&rs, ROLE_COLHDR, " ");
	richstr_add_right(&rs, ROLE_COLHDR, "RATIO", DR_RATIO_W);
	richstr_addf(&rs, ROLE_COLHDR, "  FRAME, its callers under it (%s)", diff_stree_unit(t));
	richstr_pad(&rs, ROLE_COLHDR, w);
	richstr_truncate(&rs, w);
	ui_draw_rs(&ui->screen, y, 0, &rs, w);
	if (ds->tsel >= (int)ds->nrows)
		ds->tsel = (int)ds->nrows - 1;
	if (ds->tsel < 0)
		ds->tsel = 0;
	if (ds->ttop > ds->tsel)
		ds->ttop = ds->tsel;
	if (ds->tsel >= ds->ttop + rows)
		ds->ttop = ds->tsel - rows + 1;
	for (int i = 0; i < rows && ds->ttop + i < (int)ds->nrows; i++) {
		uint32_t r = ds->rows[ds->ttop + i];

		dr_fmt_tree_row(&rs, t, r & 0xffffff, r >> 24, false, w);
		if (ds->ttop + i == ds->tsel) {
			richstr_pad(&rs, ROLE_DEFAULT, w);
			richstr_set_role(&rs, 0, rs.len, ROLE_SELECTED);
		}
		ui_draw_rs(&ui->screen, y + 1 + i, 0, &rs, w);
	}
}

static void ds_draw(struct ui *ui, struct pane *p, int y, int h, int w)
{
	struct diff_stacks *ds = p->priv;
	const struct diff_stree *t;
	char title[256], why[512];

	if (h < 4)
		return;
	t = ds_tree(ui, ds);
	snprintf(title, sizeof(title), " Stacks: %s, %s (v: %s, o: %s)",
		 ds->tree ? "caller tree" : "differential icicle, widths from NEW",
		 src_name(ds->src), ds->tree ? "icicle" : "caller tree",
		 src_name(!ds->src));
	draw_line(ui, y, w, ROLE_HEADER_VALUE, title);
	if (!t) {
		if (!ui_diff_ready(ui, why, sizeof(why)))
			ui_draw_wrapped(&ui->screen, y + 1, h - 1, w, ROLE_DIM, why);
		else
			ui_draw_wrapped(&ui->screen, y + 1, h - 1, w, ROLE_DIM,
					ds->src == DIFF_STACK_GRAPH ?
					"neither side has function_graph paths (o: the events' stacks)" :
					"neither side has stacks (record with --stack EVENT; o: the "
					"function_graph paths)");
		return;
	}
	if (ds->tree)
		draw_tree(ui, ds, t, y + 1, h - 1, w);
	else
		draw_icicle(ui, ds, t, y + 1, h - 1, w);
}

/* The sibling before @id, or @id when it is the first. */
static uint32_t prev_sibling(const struct diff_stree *t, uint32_t id)
{
	const struct diff_snode *n = diff_stree_node(t, id);
	uint32_t prev = id;

	if (n->parent == DIFF_SNONE)
		return id;
	for (uint32_t k = diff_stree_node(t, n->parent)->first_child; k != DIFF_SNONE && k != id;
	     k = diff_stree_node(t, k)->next_sibling)
		prev = k;
	return prev;
}

static int icicle_key(struct ui *ui, struct diff_stacks *ds, enum ui_action act)
{
	const struct diff_stree *t = ds_tree(ui, ds);
	const struct diff_snode *n;

	if (!t)
		return 0;
	icicle_find(ds, t);
	n = diff_stree_node(t, ds->sel);
	switch (act) {
	case ACT_UP:
		if (ds->sel != ds->zoom && n->parent != DIFF_SNONE)
			ds->sel = n->parent;
		else if (n->parent != DIFF_SNONE)
			ds->sel = ds->zoom = n->parent;
		break;
	case ACT_DOWN:
		if (n->first_child != DIFF_SNONE)
			ds->sel = n->first_child;
		break;
	case ACT_LEFT:
		if (ds->sel != ds->zoom)
			ds->sel = prev_sibling(t, ds->sel);
		break;
	case ACT_RIGHT:
		if (ds->sel != ds->zoom && n->next_sibling != DIFF_SNONE)
			ds->sel = n->next_sibling;
		break;
	case ACT_ENTER:
		ds->zoom = ds->sel;
		break;
	case ACT_ZOOM_OUT:
	case ACT_ESC:
		n = diff_stree_node(t, ds->zoom);
		if (n->parent != DIFF_SNONE)
			ds->zoom = n->parent;
		break;
	case ACT_HOME:
		ds->zoom = ds->sel = 0;
		break;
	default:
		return 0;
	}
	icicle_keep(ds, t);
	return UI_REDRAW;
}

static int ds_key(struct ui *ui, struct pane *p, enum ui_action act)
{
	struct diff_stacks *ds = p->priv;
	int page = p->h > 4 ? p->h - 3 : 1;

	switch (act) {
	case ACT_VIEW:
		ds->tree = !ds->tree;
		ds->zoom = ds->sel = 0;
		ds->zpath[0] = ds->spath[0] = 0;
		ds->tsel = ds->ttop = 0;
		return UI_REDRAW;
	case ACT_STACK_SOURCE:
		ds->src = ds->src == DIFF_STACK_EVENTS ? DIFF_STACK_GRAPH : DIFF_STACK_EVENTS;
		ds->zoom = ds->sel = 0;
		ds->zpath[0] = ds->spath[0] = 0;
		ds->tsel = ds->ttop = 0;
		ui_message(ui, "stacks: %s", src_name(ds->src));
		return UI_REDRAW;
	default:
		break;
	}
	if (!ds->tree)
		return icicle_key(ui, ds, act);
	switch (act) {
	case ACT_UP:
		ds->tsel--;
		break;
	case ACT_DOWN:
		ds->tsel++;
		break;
	case ACT_PGUP:
		ds->tsel -= page;
		break;
	case ACT_PGDN:
		ds->tsel += page;
		break;
	case ACT_HOME:
		ds->tsel = 0;
		break;
	case ACT_END:
		ds->tsel = 1 << 30;
		break;
	default:
		return 0;
	}
	if (ds->tsel < 0)
		ds->tsel = 0;
	return UI_REDRAW;
}

static const char *ds_footer(struct ui *ui, struct pane *p)
{
	struct diff_stacks *ds = p->priv;

	(void)ui;
	snprintf(ds->footer, sizeof(ds->footer), "v: %s  o: %s%s",
		 ds->tree ? "icicle" : "caller tree", ds->src ? "event stacks" : "graph paths",
		 ds->tree ? "" : "  Enter: zoom  Bksp: out");
	return ds->footer;
}

const struct pane_ops pane_diff_stacks_ops = {
	.name = "stacks", .label = "Stacks", .keyset = "diff-stacks",
	.priv_size = sizeof(struct diff_stacks),
	.destroy = ds_destroy, .draw = ds_draw, .key = ds_key, .footer = ds_footer,
};
