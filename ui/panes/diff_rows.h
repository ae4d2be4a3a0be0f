/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The diff panes' rows, off screen (ktop -i BASE --diff NEW): a table row of
 * src/diff/diff.h as BASE, NEW, DELTA and RATIO of one figure and the row's
 * name (NEW's other figures after it where the width allows), the colour of
 * a change, the histograms of both sides drawn over each other, and the
 * differential icicle's cells (each frame as wide as its NEW share, coloured
 * by growth or shrinkage) and caller tree rows. No curses.
 */
#ifndef KTOP_UI_DIFF_ROWS_H
#define KTOP_UI_DIFF_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "diff/diff.h"
#include "draw/richstr.h"

#define DR_FIG_W	9	/* a figure's column */
#define DR_RATIO_W	7
/* BASE NEW DELTA RATIO and their gaps: where the name starts */
#define DR_NAME_COL	(3 * (DR_FIG_W + 1) + DR_RATIO_W + 2)

/*
 * The role of a change of @delta against @base and @new (the figures it is
 * between): growth, shrinkage, or about the same (under 2% of the larger).
 */
enum ui_role dr_change_role(double base, double new, double delta);

/**
 * dr_extra_cols - how many of the table's other figures (after @col) fit in
 * @w beside a name of @name_w columns (at least 20)
 */
unsigned int dr_extra_cols(const struct diff_table *t, int w, int name_w);

/* The column header: figure @col's BASE NEW DELTA RATIO, the name's heading, @extra more. */
void dr_fmt_header(struct richstr *rs, const struct diff_table *t, unsigned int col,
		   unsigned int extra, int w);

/* Row @r: figure @col's four, then NEW's others with their deltas, then the name. */
void dr_fmt_row(struct richstr *rs, const struct diff_table *t, const struct diff_row *r,
		unsigned int col, unsigned int extra, int w);

/*
 * One bucket of a histogram with both sides drawn over each other, @w wide:
 * "BASE  NEW  lo-hi  " then a bar as long as the larger of the two over
 * @max: the part both share, then NEW's growth (NEW beyond BASE) or BASE's
 * part that is gone (BASE beyond NEW) in the change's colour.
 */
void dr_fmt_bucket(struct richstr *rs, const struct diff_row *r, double max, int w);

/* ---- the differential icicle -------------------------------------------------------- */

struct dr_cell {
	uint32_t	id;		/* the node */
	int		row;		/* 0: the frame zoomed into */
	int		x0, x1;		/* columns [x0, x1) */
};

/**
 * dr_icicle_layout - the frames under @zoom as cells, @w columns wide and @h
 * rows deep: row 0 is @zoom over the whole width, row k its descendants k
 * levels down, each as wide as its share of @zoom's NEW value, children left
 * to right largest first. A frame under one column is left out (a frame that
 * is gone, with no NEW value, always is).
 * Return: the number of cells (by row, then column); @max + 1 when they do
 * not fit in @out.
 */
size_t dr_icicle_layout(const struct diff_stree *t, uint32_t zoom, int w, int h,
			struct dr_cell *out, size_t max);

/* Row @row of the icicle: each cell's name cut to fit, in its change's colour. */
void dr_fmt_icicle_row(struct richstr *rs, const struct diff_stree *t, const struct dr_cell *c,
		       size_t n, int row, int w, uint32_t sel);

/* A caller tree row: BASE NEW DELTA RATIO of the node, then its name at @level. */
void dr_fmt_tree_row(struct richstr *rs, const struct diff_stree *t, uint32_t id,
		     unsigned int level, bool folded, int w);

#endif
