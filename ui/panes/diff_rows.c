// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The diff panes' rows, off screen (diff_rows.h).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diff_rows.h"

#define DR_NAME_MIN	20
#define DR_EXTRA_W	18

enum ui_role dr_change_role(double base, double new, double delta)
{
	double big = fabs(base) > fabs(new) ? fabs(base) : fabs(new);

	if (isnan(delta) || fabs(delta) <= 0.02 * big)
		return ROLE_DIFF_SAME;
	return delta > 0 ? ROLE_DIFF_GROW : ROLE_DIFF_SHRINK;
}

static const char *name_head(const struct diff_table *t)
{
	switch (t->kind) {
	case DIFF_TASKS:
		return "    PID COMM";
	case DIFF_CPUS:
		return "CPU";
	case DIFF_LATENCY:
		return "CPU SERIES";
	case DIFF_HIST:
		return "BUCKET";
	case DIFF_PATHS:
		return "CALL PATH";
	case DIFF_STACKS:
		return "STACK (root first)";
	case DIFF_AGG:
		return "MEASURE [KEY]";
	default:
		return t->key ? t->key : "NAME";
	}
}

unsigned int dr_extra_cols(const struct diff_table *t, int w, int name_w)
{
	int room = w - DR_NAME_COL - (name_w > DR_NAME_MIN ? name_w : DR_NAME_MIN);
	unsigned int n = room > 0 ? (unsigned int)(room / DR_EXTRA_W) : 0;

	return t->ncols > 1 && n > t->ncols - 1 ? t->ncols - 1 : t->ncols > 1 ? n : 0;
}

/* The @k-th other figure after @col (wrapping past the last). */
static unsigned int other_col(const struct diff_table *t, unsigned int col, unsigned int k)
{
	return (col + 1 + k) % t->ncols;
}

void dr_fmt_header(struct richstr *rs, const struct diff_table *t, unsigned int col,
		   unsigned int extra, int w)
{
	char head[64];

	richstr_clear(rs);
	richstr_add_right(rs, ROLE_COLHDR_SORT, "BASE", DR_FIG_W);
	richstr_add(rs, ROLE_COLHDR, " ");
	richstr_add_right(rs, ROLE_COLHDR_SORT, "NEW", DR_FIG_W);
	richstr_add(rs, ROLE_COLHDR, " ");
	richstr_add_right(rs, ROLE_COLHDR_SORT, "DELTA", DR_FIG_W);
	richstr_add(rs, ROLE_COLHDR, " ");
	richstr_add_right(rs, ROLE_COLHDR_SORT, "RATIO", DR_RATIO_W);
	richstr_add(rs, ROLE_COLHDR, "  ");
	for (unsigned int k = 0; k < extra; k++) {
		richstr_add_right(rs, ROLE_COLHDR, t->cols[other_col(t, col, k)].head,
				  DR_EXTRA_W - 1);
		richstr_add(rs, ROLE_COLHDR, " ");
	}
	/* the JSON key ("event", "function") as a column's head: in capitals, as the others */
	snprintf(head, sizeof(head), "%s", name_head(t));
	for (char *c = head; *c; c++)
		*c = (char)toupper((unsigned char)*c);
	richstr_add(rs, ROLE_COLHDR, head);
	richstr_pad(rs, ROLE_COLHDR, w);
	richstr_truncate(rs, w);
}

/* A table cell's role: a change in its colour, the same figure plain. */
static enum ui_role cell_role(double base, double new, double delta)
{
	enum ui_role r = dr_change_role(base, new, delta);

	return r == ROLE_DIFF_SAME ? ROLE_DEFAULT : r;
}

void dr_fmt_row(struct richstr *rs, const struct diff_table *t, const struct diff_row *r,
		unsigned int col, unsigned int extra, int w)
{
	enum diff_unit u = t->cols[col].unit;
	double d = diff_delta(r, col);
	char b[48], name[600];
	enum ui_role role = cell_role(r->v[DIFF_BASE][col], r->v[DIFF_NEW][col], d);

	richstr_clear(rs);
	richstr_add_right(rs, ROLE_DEFAULT, diff_fmt(b, sizeof(b), u, r->v[DIFF_BASE][col], false),
			  DR_FIG_W);
	richstr_add(rs, ROLE_DEFAULT, " ");
	richstr_add_right(rs, ROLE_DEFAULT, diff_fmt(b, sizeof(b), u, r->v[DIFF_NEW][col], false),
			  DR_FIG_W);
	richstr_add(rs, ROLE_DEFAULT, " ");
	richstr_add_right(rs, role, diff_fmt(b, sizeof(b), u, d, true), DR_FIG_W);
	richstr_add(rs, ROLE_DEFAULT, " ");
	richstr_add_right(rs, role, diff_fmt_ratio(b, sizeof(b), r, col), DR_RATIO_W);
	richstr_add(rs, ROLE_DEFAULT, "  ");
	for (unsigned int k = 0; k < extra; k++) {
		unsigned int c = other_col(t, col, k);
		double dc = diff_delta(r, c);
		char v[32], dv[32], cell[72];

		diff_fmt(v, sizeof(v), t->cols[c].unit, r->v[DIFF_NEW][c], false);
		if (dc == 0 || isnan(dc))
			snprintf(cell, sizeof(cell), "%s", v);
		else
			snprintf(cell, sizeof(cell), "%s %s", v,
				 diff_fmt(dv, sizeof(dv), t->cols[c].unit, dc, true));
		richstr_add_right(rs, cell_role(r->v[DIFF_BASE][c], r->v[DIFF_NEW][c], dc), cell,
				  DR_EXTRA_W - 1);
		richstr_add(rs, ROLE_DEFAULT, " ");
	}
	diff_row_name(t, r, DIFF_NAME_PANE, name, sizeof(name));
	richstr_add(rs, t->kind == DIFF_TASKS ? ROLE_TASK : ROLE_EVENT, name);
	richstr_truncate(rs, w);
}

void dr_fmt_bucket(struct richstr *rs, const struct diff_row *r, double max, int w)
{
	double b = r->v[DIFF_BASE][0], n = r->v[DIFF_NEW][0];
	char name[128], v[32];
	int room, nb, nn, common;

	richstr_clear(rs);
	richstr_add_right(rs, ROLE_DEFAULT, diff_fmt(v, sizeof(v), DIFF_U_RATE, b, false),
			  DR_FIG_W);
	richstr_add(rs, ROLE_DEFAULT, " ");
	richstr_add_right(rs, ROLE_DEFAULT, diff_fmt(v, sizeof(v), DIFF_U_RATE, n, false),
			  DR_FIG_W);
	richstr_add(rs, ROLE_DEFAULT, "  ");
	diff_fmt(name, sizeof(name) / 2, DIFF_U_NS, (double)r->lo, false);
	diff_fmt(v, sizeof(v), DIFF_U_NS, (double)r->hi, false);
	snprintf(name + strlen(name), sizeof(name) - strlen(name), "-%s",
		 r->hi == UINT64_MAX ? "inf" : v);
	richstr_add(rs, ROLE_TIME, name);
	richstr_pad(rs, ROLE_DEFAULT, 2 * (DR_FIG_W + 1) + 1 + 16);
	room = w - rs->len - 1;
	if (room < 4 || !(max > 0))
		return;
	nb = (int)lround(b / max * room);
	nn = (int)lround(n / max * room);
	common = nb < nn ? nb : nn;
	for (int i = 0; i < common; i++)
		richstr_add(rs, ROLE_BAR, "=");
	/* NEW beyond BASE: growth; BASE beyond NEW: what is gone */
	for (int i = common; i < nn; i++)
		richstr_add(rs, ROLE_DIFF_GROW, "+");
	for (int i = common; i < nb; i++)
		richstr_add(rs, ROLE_DIFF_SHRINK, "-");
	richstr_truncate(rs, w);
}

/* ---- the differential icicle ------------------------------------------------------ */

size_t dr_icicle_layout(const struct diff_stree *t, uint32_t zoom, int w, int h,
			struct dr_cell *out, size_t max)
{
	const struct diff_snode *z = diff_stree_node(t, zoom);
	size_t n = 0, done = 0;

	if (!z || w <= 0 || h <= 0)
		return 0;
	if (n < max)
		out[n] = (struct dr_cell){ zoom, 0, 0, w };
	n++;
	/* breadth first: the cells of row k are laid out from those of row k - 1 */
	while (done < n && done < max) {
		struct dr_cell p = out[done++];
		const struct diff_snode *pn = diff_stree_node(t, p.id);
		double total = diff_stree_node(t, zoom)->v[DIFF_NEW], acc = 0;

		if (p.row + 1 >= h || !(total > 0))
			continue;
		/* children inside the parent's span, scaled to the zoom's width */
		acc = 0;
		for (uint32_t k = pn->first_child; k != DIFF_SNONE;
		     k = diff_stree_node(t, k)->next_sibling) {
			const struct diff_snode *c = diff_stree_node(t, k);
			int x0 = p.x0 + (int)lround(acc / total * w);
			int x1;

			acc += c->v[DIFF_NEW];
			x1 = p.x0 + (int)lround(acc / total * w);
			if (x1 > p.x1)
				x1 = p.x1;
			if (x1 - x0 < 1)
				continue;
			if (n < max)
				out[n] = (struct dr_cell){ k, p.row + 1, x0, x1 };
			n++;
		}
	}
	return n > max ? max + 1 : n;
}

void dr_fmt_icicle_row(struct richstr *rs, const struct diff_stree *t, const struct dr_cell *c,
		       size_t n, int row, int w, uint32_t sel)
{
	richstr_clear(rs);
	for (size_t i = 0; i < n; i++) {
		const struct diff_snode *nd = diff_stree_node(t, c[i].id);
		int x1 = c[i].x1 < w ? c[i].x1 : w, width = x1 - c[i].x0, at;
		enum ui_role role;

		if (c[i].row != row || c[i].x0 >= w || width < 1)
			continue;
		role = dr_change_role(nd->v[DIFF_BASE], nd->v[DIFF_NEW],
				      nd->v[DIFF_NEW] - nd->v[DIFF_BASE]);
		if (c[i].id == sel)
			role = ROLE_SELECTED;
		richstr_pad(rs, ROLE_DEFAULT, c[i].x0);
		at = rs->len;
		if (width > 1) {
			richstr_addn(rs, role, nd->name, width - 1);
			richstr_pad(rs, role, at + width - 1);
			/* the last column a gap, so that neighbours stay apart */
			richstr_add(rs, ROLE_DEFAULT, " ");
		} else {
			richstr_add(rs, role, " ");
		}
		richstr_truncate(rs, at + width);
	}
}

void dr_fmt_tree_row(struct richstr *rs, const struct diff_stree *t, uint32_t id,
		     unsigned int level, bool folded, int w)
{
	const struct diff_snode *nd = diff_stree_node(t, id);
	double b = nd->v[DIFF_BASE], n = nd->v[DIFF_NEW], d = n - b;
	struct diff_row r = { .in = (uint8_t)((b > 0 ? DIFF_IN_BASE : 0) |
					      (n > 0 ? DIFF_IN_NEW : 0)) };
	enum ui_role role = cell_role(b, n, d);
	bool ns = !strcmp(diff_stree_unit(t), "ns/s");
	enum diff_unit u = ns ? DIFF_U_NS_RATE : DIFF_U_RATE;
	char v[48];

	r.v[DIFF_BASE][0] = b;
	r.v[DIFF_NEW][0] = n;
	richstr_clear(rs);
	richstr_add_right(rs, ROLE_DEFAULT, diff_fmt(v, sizeof(v), u, b, false), DR_FIG_W);
	richstr_add(rs, ROLE_DEFAULT, " ");
	richstr_add_right(rs, ROLE_DEFAULT, diff_fmt(v, sizeof(v), u, n, false), DR_FIG_W);
	richstr_add(rs, ROLE_DEFAULT, " ");
	richstr_add_right(rs, role, diff_fmt(v, sizeof(v), u, d, true), DR_FIG_W);
	richstr_add(rs, ROLE_DEFAULT, " ");
	richstr_add_right(rs, role, diff_fmt_ratio(v, sizeof(v), &r, 0), DR_RATIO_W);
	richstr_add(rs, ROLE_DEFAULT, "  ");
	richstr_addf(rs, ROLE_DIM, "%*s%s ", (int)(level > 40 ? 40 : level), "",
		     !nd->nchildren ? " " : folded ? "+" : "-");
	richstr_add(rs, role, nd->name);
	richstr_truncate(rs, w);
}
