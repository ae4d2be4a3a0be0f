/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tasks pane's state (pane_tasks.c): private to it and its tests.
 */
#ifndef KTOP_UI_PANE_TASKS_LOCAL_H
#define KTOP_UI_PANE_TASKS_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include "view/tasks.h"

struct tasks_state {
	struct tasks		*tm;
	uint64_t		gen;		/* the view the counts are of */
	uint64_t		fed;		/* the model has read up to here (trace time) */
	uint64_t		slice;
	uint64_t		tick_ns;
	uint64_t		tick_fed;	/* ts->fed at the last rate tick */
	struct tasks_query	q;
	struct tasks_row	*rows;
	size_t			n;		/* rows held (at most TASKS_MAX_ROWS) */
	size_t			total;		/* rows the model has for the query */
	long			sel, top;
	int32_t			sel_pid;	/* the selection follows its task */
	int			width;		/* of the last frame */
	int			hscroll;	/* l/Right steps: tasks_hscroll_chars() */
};

#endif
