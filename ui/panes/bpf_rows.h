/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Row formatting for the BPF pane (pane_bpf.c), off screen into a struct
 * richstr: log2 histograms as runqlat/funclatency print them, ASCII
 * sparklines, top-task and outlier rows; and the histogram block, drawn on
 * the screen (draw/screen.h). No curses.
 */
#ifndef KTOP_UI_BPF_ROWS_H
#define KTOP_UI_BPF_ROWS_H

#include <stddef.h>
#include <stdint.h>
#include "bpfstats/bpfstats.h"
#include "draw/richstr.h"
#include "draw/screen.h"

/* Levels of a sparkline cell, lowest first; ' ' is zero. */
#define BPF_SPARK_LEVELS	" .:-=+*#@"

/* "     nsecs               : count     distribution" (bcc's header). */
void bpf_fmt_hist_header(struct richstr *rs, const char *unit);

/* Return: the first and one past the last non-empty slot ([0, 0) when empty). */
void bpf_hist_span(const struct bpfstats_hist *h, int *first, int *end);

/**
 * bpf_fmt_hist_row - slot @k of @h as bcc's print_log2_hist prints it:
 * "      1024 -> 2047       : 17       |*****          |"
 * @max: the largest slot count of @h (scales the stars)
 * @stars: width of the bar between the pipes
 */
void bpf_fmt_hist_row(struct richstr *rs, const struct bpfstats_hist *h, int k, uint64_t max,
		      int stars);

/*
 * bpf_fmt_hist_range - slots [@k0, @k1] of @h as one row ("1024 -> 8191 : 51"),
 * their counts summed: a histogram taller than its rows, compressed
 * @max: the largest count of a row (scales the stars)
 */
void bpf_fmt_hist_range(struct richstr *rs, const struct bpfstats_hist *h, int k0, int k1,
			uint64_t max, int stars);

/*
 * Return: the slots a row takes so that [@first, @end) fits in @rows rows
 * (1 when it fits; 0 when @rows < 1).
 */
int bpf_hist_group(int first, int end, int rows);

/* The largest slot count of @h. */
uint64_t bpf_hist_max(const struct bpfstats_hist *h);

/**
 * bpf_fmt_spark - the last @width of the @n samples @v as one ASCII cell each
 * (BPF_SPARK_LEVELS, scaled to the largest shown; any value above 0 gets at
 * least the first visible level); left-padded with spaces when @n < @width.
 */
void bpf_fmt_spark(struct richstr *rs, enum ui_role role, const double *v, size_t n, int width);

/* Column header and row of a top-task table sorted by @by. */
void bpf_fmt_task_header(struct richstr *rs, enum bpfstats_sort by);
void bpf_fmt_task_row(struct richstr *rs, const struct bpfstats_task *t, enum bpfstats_sort by);

/* Column header and row of the outlier list (TIMESTAMP as the event list shows it). */
void bpf_fmt_outlier_header(struct richstr *rs);
void bpf_fmt_outlier_row(struct richstr *rs, const struct bpfstats_outlier *o);

/*
 * Column header and row of the off-CPU stacks: @ns off CPU (its share of
 * @total), @count switches out, then the @n frames leaf first, joined by
 * " <- " ("schedule <- do_nanosleep <- hrtimer_nanosleep ..."; __schedule,
 * on every such stack, and the frames below it left out), as many as the
 * row holds.
 */
void bpf_fmt_offcpu_header(struct richstr *rs);
void bpf_fmt_offcpu_row(struct richstr *rs, uint64_t ns, uint64_t total, uint64_t count,
			const char *const *frames, unsigned int n);

/*
 * bpf_draw_hist - a histogram block at row @y, column @x, at most @h rows of @w
 * columns: @title (with n, avg, p99), bcc's header, the rows. When the slots do
 * not fit, adjacent slots share a row (the title says how many), so that every
 * sample stays counted on the screen.
 * Return: the rows drawn.
 */
int bpf_draw_hist(struct ui_screen *s, int y, int x, int h, int w, const char *title,
		  const struct bpfstats_hist *hist);

#endif
