// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The diff panes (ktop -i BASE --diff NEW): each a pane's tables of
 * src/diff/diff.h, BASE against NEW, in place of the pane of the same name
 * and tab: CPUs, Top (events, syscalls, connections, drops), Graph
 * (functions, call paths), Latency (series, histograms drawn over each
 * other, in-kernel latencies), BPF, Tasks. A row is BASE, NEW, DELTA and
 * RATIO of one figure (h/l pick it; NEW's others beside it where the width
 * allows) and the row's name; the delta and ratio in the theme's colour of
 * growth or shrinkage; sorted by the largest change (F6, >, < cycle the
 * sorts); v shows the pane's next table. Rows on one side only say "new" or
 * "gone" in the ratio column.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diff/diff.h"
#include "diff_rows.h"
#include "ui-local.h"

#define DP_MAX_TABLES	4

struct diff_pane {
	const enum diff_kind	*kinds;
	unsigned int		nkinds;
	unsigned int		cur;
	unsigned int		col[DP_MAX_TABLES];
	enum diff_sort		sort[DP_MAX_TABLES];
	int			sel, top;
	uint32_t		*order;
	size_t			cap;
	char			footer[160];
};

static const enum diff_kind k_cpus[] = { DIFF_CPUS };
static const enum diff_kind k_top[] = { DIFF_EVENTS, DIFF_SYSCALLS, DIFF_CONNS, DIFF_DROPS };
static const enum diff_kind k_graph[] = { DIFF_FUNCS, DIFF_PATHS };
static const enum diff_kind k_latency[] = { DIFF_LATENCY, DIFF_HIST, DIFF_AGG };
static const enum diff_kind k_bpf[] = { DIFF_BPF };
static const enum diff_kind k_tasks[] = { DIFF_TASKS };

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

static int dp_init(struct pane *p, const enum diff_kind *kinds, unsigned int n)
{
	struct diff_pane *dp = p->priv;

	dp->kinds = kinds;
	dp->nkinds = n;
	for (unsigned int i = 0; i < n; i++)
		dp->sort[i] = kinds[i] == DIFF_HIST ? DIFF_SORT_ORDER : DIFF_SORT_CHANGE;
	return 0;
}

#define DP_INIT(name, kinds) \
	static int name(struct ui *ui, struct pane *p) \
	{ \
		(void)ui; \
		return dp_init(p, kinds, NELEM(kinds)); \
	}
DP_INIT(init_cpus, k_cpus)
DP_INIT(init_top, k_top)
DP_INIT(init_graph, k_graph)
DP_INIT(init_latency, k_latency)
DP_INIT(init_bpf, k_bpf)
DP_INIT(init_tasks, k_tasks)

static void dp_destroy(struct pane *p)
{
	struct diff_pane *dp = p->priv;

	free(dp->order);
}

/* The table shown, or NULL with why in @why. */
static const struct diff_table *dp_table(struct ui *ui, struct diff_pane *dp, char *why,
					 size_t len)
{
	return ui_diff_table(ui, dp->kinds[dp->cur], why, len);
}

/* The largest figure of the histogram @r belongs to (its series and name), both sides. */
static double hist_max(const struct diff_table *t, const struct diff_row *r)
{
	double m = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct diff_row *o = &t->rows[i];

		if (o->series != r->series || strcmp(o->name, r->name))
			continue;
		for (int s = 0; s < DIFF_NSIDES; s++)
			if (o->v[s][0] > m)
				m = o->v[s][0];
	}
	return m;
}

static void draw_title(struct ui *ui, struct diff_pane *dp, const struct diff_table *t, int y,
		       int w)
{
	struct richstr rs;
	enum diff_kind k = dp->kinds[dp->cur];
	unsigned int col = dp->col[dp->cur];

	richstr_clear(&rs);
	richstr_addf(&rs, ROLE_HEADER_VALUE, " %s", t ? t->title : diff_kind_name(k));
	if (t && t->n) {
		richstr_addf(&rs, ROLE_HEADER, ": %zu rows, by %s", t->n,
			     diff_sort_name(dp->sort[dp->cur]));
		if (k != DIFF_HIST && dp->sort[dp->cur] != DIFF_SORT_NAME &&
		    dp->sort[dp->cur] != DIFF_SORT_ORDER)
			richstr_addf(&rs, ROLE_HEADER, " of %s", t->cols[col].head);
	}
	if (dp->nkinds > 1)
		richstr_addf(&rs, ROLE_DIM, "  (v: %s)",
			     diff_kind_name(dp->kinds[(dp->cur + 1) % dp->nkinds]));
	if (t && t->n && t->note[0])
		richstr_addf(&rs, ROLE_DIM, "  %s", t->note);
	richstr_pad(&rs, ROLE_HEADER, w);
	richstr_truncate(&rs, w);
	ui_draw_rs(&ui->screen, y, 0, &rs, w);
}

/* Histograms: a row's heading (its series) when it differs from the row above. */
static bool hist_heads(const struct diff_table *t, const uint32_t *order, int i, int top)
{
	const struct diff_row *r = &t->rows[order[i]], *p;

	if (i == top)
		return true;
	p = &t->rows[order[i - 1]];
	return p->series != r->series || strcmp(p->name, r->name);
}

/* Histograms: the last row that fits in @lines from @top, headings included. */
static int hist_last(const struct diff_table *t, const uint32_t *order, int top, int lines)
{
	int i = top, used = 0;

	for (; i < (int)t->n; i++) {
		used += 1 + hist_heads(t, order, i, top);
		if (used > lines)
			break;
	}
	return i - 1;
}

/* The longest name of the rows from @top on a page of @rows, at most 60. */
static int names_w(const struct diff_table *t, const uint32_t *order, int top, int rows)
{
	char name[600];
	int m = 0;

	for (int i = top; i < top + rows && i < (int)t->n; i++) {
		int l;

		diff_row_name(t, &t->rows[order[i]], DIFF_NAME_PANE, name, sizeof(name));
		l = (int)strlen(name);
		m = l > m ? l : m;
	}
	return m > 60 ? 60 : m;
}

static void clamp_sel(struct diff_pane *dp, int n, int rows)
{
	if (dp->sel >= n)
		dp->sel = n - 1;
	if (dp->sel < 0)
		dp->sel = 0;
	if (dp->top > dp->sel)
		dp->top = dp->sel;
	if (rows > 0 && dp->sel >= dp->top + rows)
		dp->top = dp->sel - rows + 1;
	if (dp->top < 0)
		dp->top = 0;
}

static void dp_draw(struct ui *ui, struct pane *p, int y, int h, int w)
{
	struct diff_pane *dp = p->priv;
	const struct diff_table *t;
	struct richstr rs;
	char why[512];
	unsigned int col, extra;
	int rows;

	if (h < 3)
		return;
	t = dp_table(ui, dp, why, sizeof(why));
	draw_title(ui, dp, t, y, w);
	if (!t) {
		ui_draw_wrapped(&ui->screen, y + 1, h - 1, w, ROLE_DIM, why);
		return;
	}
	if (!t->n) {
		snprintf(why, sizeof(why), "%s", t->note[0] ? t->note :
			 "neither side has figures of this kind");
		ui_draw_wrapped(&ui->screen, y + 1, h - 1, w, ROLE_DIM, why);
		return;
	}
	if (dp->cap < t->n) {
		uint32_t *o = realloc(dp->order, t->n * sizeof(*o));

		if (!o)
			return;
		dp->order = o;
		dp->cap = t->n;
	}
	col = dp->col[dp->cur] < t->ncols ? dp->col[dp->cur] : 0;
	dp->col[dp->cur] = col;
	diff_sort_rows(t, dp->sort[dp->cur], col, dp->order);
	rows = h - 2;
	clamp_sel(dp, (int)t->n, rows);
	if (t->kind == DIFF_HIST)
		while (dp->top < dp->sel && hist_last(t, dp->order, dp->top, rows) < dp->sel)
			dp->top++;
	extra = t->kind == DIFF_HIST ? 0 :
		dr_extra_cols(t, w, names_w(t, dp->order, dp->top, rows));
	if (t->kind == DIFF_HIST) {
		richstr_clear(&rs);
		richstr_add_right(&rs, ROLE_COLHDR, "BASE/s", DR_FIG_W);
		richstr_add(&rs, ROLE_COLHDR, " ");
		richstr_add_right(&rs, ROLE_COLHDR, "NEW/s", DR_FIG_W);
		richstr_add(&rs, ROLE_COLHDR, "  BUCKET          ");
		richstr_add(&rs, ROLE_COLHDR, "= both  ");
		richstr_add(&rs, ROLE_DIFF_GROW, "+ more in NEW");
		richstr_add(&rs, ROLE_COLHDR, "  ");
		richstr_add(&rs, ROLE_DIFF_SHRINK, "- less in NEW");
		richstr_pad(&rs, ROLE_COLHDR, w);
		richstr_truncate(&rs, w);
	} else {
		dr_fmt_header(&rs, t, col, extra, w);
	}
	ui_draw_rs(&ui->screen, y + 1, 0, &rs, w);
	for (int i = dp->top, line = 0; line < rows && i < (int)t->n; i++) {
		const struct diff_row *r = &t->rows[dp->order[i]];

		if (t->kind == DIFF_HIST && hist_heads(t, dp->order, i, dp->top)) {
			/* each histogram under its series' name */
			richstr_clear(&rs);
			richstr_addf(&rs, ROLE_EVENT, " %s", r->name);
			if (r->cpu >= 0)
				richstr_addf(&rs, ROLE_EVENT, ", CPU %d", (int)r->cpu);
			richstr_truncate(&rs, w);
			ui_draw_rs(&ui->screen, y + 2 + line++, 0, &rs, w);
			if (line >= rows)
				break;
		}
		if (t->kind == DIFF_HIST)
			dr_fmt_bucket(&rs, r, hist_max(t, r), w);
		else
			dr_fmt_row(&rs, t, r, col, extra, w);
		if (i == dp->sel) {
			richstr_pad(&rs, ROLE_DEFAULT, w);
			richstr_set_role(&rs, 0, rs.len, ROLE_SELECTED);
		}
		ui_draw_rs(&ui->screen, y + 2 + line++, 0, &rs, w);
	}
}

static int dp_key(struct ui *ui, struct pane *p, enum ui_action act)
{
	struct diff_pane *dp = p->priv;
	const struct diff_table *t;
	int page = p->h > 4 ? p->h - 3 : 1;
	char why[8];

	switch (act) {
	case ACT_UP:
		dp->sel--;
		break;
	case ACT_DOWN:
		dp->sel++;
		break;
	case ACT_PGUP:
		dp->sel -= page;
		break;
	case ACT_PGDN:
		dp->sel += page;
		break;
	case ACT_HOME:
		dp->sel = 0;
		break;
	case ACT_END:
		dp->sel = 1 << 30;
		break;
	case ACT_VIEW:
		dp->cur = (dp->cur + 1) % dp->nkinds;
		dp->sel = dp->top = 0;
		ui_message(ui, "%s", diff_kind_name(dp->kinds[dp->cur]));
		break;
	case ACT_PANE_SORT:
	case ACT_SORT_PREV:
		dp->sort[dp->cur] = (enum diff_sort)((dp->sort[dp->cur] +
						      (act == ACT_PANE_SORT ? 1 : DIFF_SORT_NR - 1)) %
						     DIFF_SORT_NR);
		dp->sel = dp->top = 0;
		ui_message(ui, "sorted by %s", diff_sort_name(dp->sort[dp->cur]));
		break;
	case ACT_LEFT:
	case ACT_RIGHT:
		t = dp_table(ui, dp, why, sizeof(why));
		if (!t || t->ncols < 2)
			return UI_REDRAW;
		dp->col[dp->cur] = (dp->col[dp->cur] + (act == ACT_RIGHT ? 1 : t->ncols - 1)) %
				   t->ncols;
		ui_message(ui, "figure: %s", t->cols[dp->col[dp->cur]].head);
		break;
	default:
		return 0;
	}
	if (dp->sel < 0)
		dp->sel = 0;
	return UI_REDRAW;
}

static const char *dp_footer(struct ui *ui, struct pane *p)
{
	struct diff_pane *dp = p->priv;

	(void)ui;
	snprintf(dp->footer, sizeof(dp->footer), "F6/</> sort: %s  h/l: figure%s%s",
		 diff_sort_name(dp->sort[dp->cur]), dp->nkinds > 1 ? "  v: " : "",
		 dp->nkinds > 1 ? diff_kind_name(dp->kinds[(dp->cur + 1) % dp->nkinds]) : "");
	return dp->footer;
}

#define DP_OPS(var, nm, lbl, initfn) \
	const struct pane_ops var = { \
		.name = nm, .label = lbl, .keyset = "diff", \
		.priv_size = sizeof(struct diff_pane), \
		.init = initfn, .destroy = dp_destroy, .draw = dp_draw, .key = dp_key, \
		.footer = dp_footer, \
	}
DP_OPS(pane_diff_cpus_ops, "cpus", "CPUs", init_cpus);
DP_OPS(pane_diff_top_ops, "top", "Top", init_top);
DP_OPS(pane_diff_graph_ops, "graph", "Graph", init_graph);
DP_OPS(pane_diff_latency_ops, "latency", "Latency", init_latency);
DP_OPS(pane_diff_bpf_ops, "bpf", "BPF", init_bpf);
DP_OPS(pane_diff_tasks_ops, "tasks", "Tasks", init_tasks);
