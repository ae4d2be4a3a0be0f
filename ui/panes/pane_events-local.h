/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event list's state (pane_events.c): private to it and its tests
 * (tests/unit/test_ui_events.c and the tests that show it).
 */
#ifndef KTOP_UI_PANE_EVENTS_LOCAL_H
#define KTOP_UI_PANE_EVENTS_LOCAL_H

#include <stdbool.h>

#include "ui-local.h"
#include "linematch.h"

struct events_state {
	bool			follow;
	struct ui_evpos		anchor;		/* bottom row when frozen */
	/*
	 * The selected row, by position: late events of another CPU may still
	 * be published into the page, so a row index alone would drift.
	 */
	struct ui_evpos		sel_pos;
	bool			have_sel;
	bool			keep_rows;	/* paused: show exactly the same rows */
	bool			follow_after_pause;
	int			sel;
	int			hscroll;
	int			n, cap;
	struct ui_evrow		*rows;		/* the rows of the last frame */
	/* from a request: only this CPU's events (-1: all), the window [t0, t1] (t1 0: none) */
	int			only_cpu;
	uint64_t		req_t0, req_t1;
	char			search[128];	/* the list's last search (title, highlight) */
	bool			at_oldest;	/* g: the page shows the oldest events held */
	/* the search that goes on (NULL: none), its text and direction */
	struct evsearch		*run;
	struct linematch	run_text;
	int			run_dir;
	bool			run_long;	/* past its first slice: the progress was shown */
};

#endif
