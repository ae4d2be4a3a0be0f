/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the panes that feed a model from the store (graph, latency, stacks,
 * tasks: src/model/fgraph.h, src/model/latency.h, ...) share on the UI thread: where the
 * next feed ends, and a feed in time slices within a per-frame budget. (The
 * tracer of the run is app_tracer's.)
 */
#ifndef KTOP_UI_TRACER_FEED_H
#define KTOP_UI_TRACER_FEED_H

#include <stdbool.h>
#include <stdint.h>
#include "ui-local.h"

/**
 * ui_feed_window_end - where the next feed ends
 * @lag_ns: how far behind "now" a live feed ends, so that every CPU's
 *          events up to there have been published
 *
 * app_feed_end() for this run.
 *
 * Return: the end in trace time, ns; 0 when there is nothing to feed.
 * Context: UI thread.
 */
uint64_t ui_feed_window_end(struct ui *ui, uint64_t lag_ns);


/**
 * ui_feed_pace - after one time slice of a feed
 * @slice: trace time fed per slice, ns: doubled when the slice took less than
 *         an eighth of @budget_ns, halved when it took more than half of it
 * @slice_start: clock_thread_ns() when the slice began
 * @feed_start: clock_thread_ns() when this frame's feed began
 * @budget_ns: how long a frame's feed may take, about
 * @more: the window has more slices to feed
 *
 * Once the budget is spent, the frame is marked dirty when @more, so that the
 * next frame goes on (never clean: other work of the frame may have marked
 * it). The budget is the UI thread's CPU time, not the
 * wall clock, so that a thread kept waiting for a CPU (a loaded or emulated
 * machine) does not shrink its slices to nothing and fall ever further
 * behind the trace.
 *
 * Return: true when the budget is spent and the feed stops for this frame.
 * Context: UI thread.
 */
bool ui_feed_pace(struct ui *ui, uint64_t *slice, uint64_t slice_start, uint64_t feed_start,
		  uint64_t budget_ns, bool more);

/**
 * ui_feed_clamp - the part of [@*next, @*t1] the store holds
 * @next: raised to the oldest event held
 * @t1: lowered to the newest event held
 * Return: whether anything is left to feed.
 * Context: UI thread.
 */
bool ui_feed_clamp(struct ui *ui, uint64_t *next, uint64_t *t1);

/**
 * typedef ui_feed_fn - feed one time slice to a model
 * @ctx: the caller's, as given to ui_feed_slices()
 * @t0: first trace time of the slice, ns
 * @t1: last trace time of the slice (inclusive), ns
 *
 * Return: 0 to go on; anything else stops this frame's feed there and is
 * returned by ui_feed_slices(), which then leaves the cursor where the
 * callback put it.
 */
typedef int (*ui_feed_fn)(struct ui *ui, void *ctx, uint64_t t0, uint64_t t1);

/**
 * ui_feed_slices - feed the store's events up to @t1 in time slices
 * @next: cursor, the first trace time not fed yet: raised to the oldest event
 *        the store holds, and past each slice fed
 * @t1: end of the window (ui_feed_window_end()); lowered to the newest event
 *      held, so that no slice is empty; 0 feeds nothing
 * @slice: trace time per slice, paced by ui_feed_pace()
 * @feed_start: clock_thread_ns() when this frame's feed began
 * @budget_ns: how long a frame's feed may take, about
 * @fn: feeds one slice
 * @ctx: passed to @fn
 *
 * Return: 0, or what @fn returned to stop.
 * Context: UI thread.
 */
int ui_feed_slices(struct ui *ui, uint64_t *next, uint64_t t1, uint64_t *slice,
		   uint64_t feed_start, uint64_t budget_ns, ui_feed_fn fn, void *ctx);

#endif
