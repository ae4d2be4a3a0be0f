/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The statistics of the events a view filter keeps: a struct ui_stats of its
 * own, fed on the UI thread by a walk of the matches in time order (up to
 * where every CPU has published), within a budget per frame, and counted
 * again whenever the view changes. The top view's rows and the CPU pane's
 * rates and flag shares come from one when a view is set. No curses here.
 */
#ifndef KTOP_UI_STATS_VIEW_H
#define KTOP_UI_STATS_VIEW_H

#include <stdbool.h>
#include <stdint.h>
#include "stats.h"
#include "view/viewfilter.h"

struct ui;

struct ui_stats_view {
	struct ui_stats		s;
	bool			init;
	uint64_t		gen;		/* of the view counted */
	struct viewfilter_pos	pos;		/* the last event counted */
	bool			caught_up, was_caught_up;
	uint64_t		tick_ns;
};

/* Where a feed starts once the view changes. */
enum ui_stats_view_from {
	UI_STATS_VIEW_OLDEST,		/* every event held */
	UI_STATS_VIEW_LAST_SECOND,	/* live: the last second (a recording: every event) */
};

/**
 * ui_stats_view_feed - count what the view matches since the last frame
 * @vs: the table; zeroed before the first call
 * @vf: the view filter (not NULL)
 * @from: where to start when the view changed or on the first call
 * Return: the table, or NULL when it could not be made (ENOMEM).
 * Context: UI thread.
 */
struct ui_stats *ui_stats_view_feed(struct ui *ui, struct ui_stats_view *vs,
				    struct viewfilter *vf, enum ui_stats_view_from from);

/* Free what the table holds (it may be fed again after). */
void ui_stats_view_drop(struct ui_stats_view *vs);

#endif
