/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Searching the store for the next event, in time order, that a predicate
 * takes: the event list's / n N. The search is resumable: each step runs
 * for a time budget and says whether it found the match, knows there is
 * none, or has more to read, so a UI can scan a recording of any size in
 * slices between frames (and drop the search when asked) instead of giving
 * up after a fixed number of events.
 *
 * It reads the store chunk by chunk, not event by event: each CPU stream is
 * scanned from the start position away, the chunk whose time range comes
 * next in the search's direction first, and the search ends as soon as the
 * best match found cannot be beaten by any chunk left. A chunk is skipped
 * whole when the view filter's index keeps none of its events, or when its
 * dictionary holds no event type the predicate may take; in the others only
 * the time and type columns are decoded until a row of a type that may
 * match needs the whole event.
 *
 * Positions order events by (ts, cpu, seq), as the event list and the view
 * filter's walks do (struct viewfilter_pos).
 *
 * Context: one thread (the UI), as the view filter.
 */
#ifndef KTOP_EVSEARCH_H
#define KTOP_EVSEARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "store/event.h"
#include "viewfilter.h"

struct store;
struct evsearch;

/* The predicate. @arg is the one given to evsearch_new(). */
struct evsearch_ops {
	/*
	 * May an event of @type match at all? Asked at most once per type and
	 * search; NULL: every type may. Answering true is always safe.
	 */
	bool	(*type_may)(void *arg, uint16_t type);
	/*
	 * May an event of @type from task @pid match? Asked for rows whose
	 * type may, at most once per pair (the answers are kept); NULL: every
	 * task may. Answering true is always safe.
	 */
	bool	(*task_may)(void *arg, int32_t pid, uint16_t type);
	/* Does @ev match? */
	bool	(*match)(void *arg, const struct ktop_event *ev);
};

/* What evsearch_step() says. */
enum evsearch_state {
	EVSEARCH_MORE,		/* not done: step again */
	EVSEARCH_FOUND,		/* evsearch_hit() has the match */
	EVSEARCH_NONE,		/* no event on that side matches */
};

/**
 * evsearch_new - a search from @from in direction @dir
 * @vf: only the events this view filter keeps; NULL: every event
 * @from: where to start; the event there is not taken (VIEWFILTER_POS_END,
 *        VIEWFILTER_POS_START: from the newest or the oldest end)
 * @dir: -1: the newest match before @from; +1: the oldest after it
 * @cpu: only this CPU's events; -1: every CPU's
 *
 * A search forwards stops at the events published when it was started.
 * Nothing is read before the first step.
 * Return: the search (free with evsearch_free), or NULL on ENOMEM.
 */
struct evsearch *evsearch_new(struct store *st, struct viewfilter *vf,
			      const struct viewfilter_pos *from, int dir, int cpu,
			      const struct evsearch_ops *ops, void *arg);
void evsearch_free(struct evsearch *s);

/**
 * evsearch_step - search on for about @budget_ns (at least one chunk; 0: to the end)
 * Return: enum evsearch_state, or -ESTALE (the view filter changed: the
 * search no longer means what it did), -ENOMEM.
 */
int evsearch_step(struct evsearch *s, uint64_t budget_ns);

/* The match after EVSEARCH_FOUND: the event and its position. Return: false before. */
bool evsearch_hit(const struct evsearch *s, struct ktop_event *ev, struct viewfilter_pos *pos);

struct evsearch_progress {
	uint64_t	total;		/* events on the search's side of its start, when started */
	uint64_t	done;		/* of them, passed: read, or skipped in whole chunks */
	uint64_t	skipped;	/* of done, in chunks skipped without reading a row */
	uint64_t	matched;	/* events the predicate was asked about (match()) */
};
void evsearch_progress(const struct evsearch *s, struct evsearch_progress *out);

#endif
