/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Row formatting of the function graph pane (src/model/fgraph.h) and the latency
 * pane (src/model/latency.h), off screen into a struct richstr. No curses.
 */
#ifndef KTOP_UI_TRACER_ROWS_H
#define KTOP_UI_TRACER_ROWS_H

#include <stdbool.h>
#include <stdint.h>
#include "model/fgraph.h"
#include "model/latency.h"
#include "draw/richstr.h"

/* The theme role of a duration marker (+ ! # * @ $); ROLE_DEFAULT for ' '. */
enum ui_role ui_mark_role(char mark);

/*
 * Column header of the graph pane for view @v. @compact: the narrow layout of
 * the aggregated view (durations with their unit, "12.3us", in 9 columns
 * instead of "12.345" us in 12-13), for terminals under 120 columns.
 */
void ui_fmt_graph_header(struct richstr *rs, enum fgraph_view v, bool compact);

/**
 * ui_fmt_graph_row - one row of the graph pane
 * @level: the row's level below the root (fgraph_row.level)
 * @folded: the node has children and they are hidden
 * @compact: the narrow layout of the aggregated view's columns
 *
 * TIMELINE: " 0) + 12.345 us   |  " as the kernel's function_graph text
 * (CPU, marker, duration), then the indentation, a fold sign ("+" folded,
 * "-" open, " " leaf), "func();" for a leaf, "func() {" when open, and
 * "func() { ... }" with the number of calls when folded; what is missing
 * (entry, exit, lost events, depth cut) as C comments, as fgraph_print does.
 * AGG: total, self, avg, max, calls, then the indented name.
 * In both, the name column starts 3 columns after the first '|' of the row
 * (ui_graph_name_col()).
 */
void ui_fmt_graph_row(struct richstr *rs, enum fgraph_view v, const struct fgraph_info *in,
		      unsigned int level, bool folded, bool compact);

/* Return: the column where the name column of a graph row @rs starts, or 0. */
int ui_graph_name_col(const struct richstr *rs);

/* The latency table's columns and their sort keys. */
enum ui_lat_sort {
	UI_LAT_SORT_CPU,
	UI_LAT_SORT_MAX,	/* timerlat: thread max; osnoise: max single noise */
	UI_LAT_SORT_AVG,	/* timerlat: thread avg; osnoise: noise */
	UI_LAT_SORT_CUR,	/* timerlat: thread cur; osnoise: % available (ascending) */
	UI_LAT_SORT_COUNT,	/* samples */
	UI_LAT_SORT_NR,
};

const char *ui_lat_sort_name(enum ui_lat_sort s);

/*
 * The table header; @user: timerlat has user-return samples. @compact: the
 * narrow layout, for terminals where the full one does not fit
 * (ui_lat_width()): durations with their unit ("139.30ms") in 9 columns,
 * counts as "12.3k", and of timerlat's IRQ and user-return latencies only avg
 * and max (the thread's cur, avg and max stay: the sort keys).
 */
void ui_fmt_lat_header(struct richstr *rs, enum latency_table t, bool user, enum ui_lat_sort s,
		       bool compact);

/* Return: the columns the table takes in that layout. */
int ui_lat_width(enum latency_table t, bool user, bool compact);

/*
 * One CPU row (row->cpu -1: "ALL"). Figures in us with 3 decimals, as rtla
 * top; @compact as the header.
 */
void ui_fmt_lat_row(struct richstr *rs, enum latency_table t, bool user,
		    const struct latency_row *row, bool compact);

/* The sort value of @row for @s (larger sorts first). */
uint64_t ui_lat_sort_key(enum latency_table t, const struct latency_row *row, enum ui_lat_sort s);

/*
 * A sparkline of @n values scaled to their maximum: one character each, from
 * " .:-=+*#%@" (ASCII, so it works on every terminal).
 */
void ui_fmt_spark(struct richstr *rs, const uint64_t *v, int n);

/* One histogram row: "[lo, hi) count" and a bar of @width scaled to @max. */
void ui_fmt_hist_row(struct richstr *rs, uint64_t lo, uint64_t hi, uint64_t count,
		     uint64_t max, int width);

#endif
