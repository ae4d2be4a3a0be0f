/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tasks pane's rows (pane_tasks.c), off screen into a struct richstr: the
 * column header and a task's row (src/view/tasks.h), its state as the event
 * list prints prev_state. No curses.
 */
#ifndef KTOP_UI_TASKS_ROWS_H
#define KTOP_UI_TASKS_ROWS_H

#include <stdbool.h>
#include "draw/richstr.h"
#include "view/tasks.h"

struct taskstate_fmt;

/* The PID column, the first: it stays in place when the rest scroll. */
#define TASKS_PID_W	8

/* The column header, the column of @sort marked. */
void tasks_fmt_header(struct richstr *rs, enum tasks_sort sort);

/*
 * Task @r's row: PID, events, rates, run-queue and off-CPU time, CPU, state
 * (@sf: the sched_switch format's letters), last seen, the command (@tree:
 * indented by its depth).
 */
void tasks_fmt_row(struct richstr *rs, const struct tasks_row *r, const struct taskstate_fmt *sf,
		   bool tree);

/* Return: the sort of the column at column @x of a row (not scrolled). */
enum tasks_sort tasks_col_sort(int x);

/*
 * The columns after PID scroll by whole columns (a title never shows cut):
 * Return: the characters they move left after @steps presses of l or Right,
 * each past one column, then past LAST 8 characters of COMMAND a step.
 */
int tasks_hscroll_chars(int steps);
#define TASKS_HSCROLL_MAX	17	/* every column, then 64 characters of COMMAND */

/* Return: the width of a row up to COMMAND (the columns and the two spaces before it). */
int tasks_fixed_width(void);

#endif
