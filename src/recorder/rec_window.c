// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Which matches make which file. Pure: trace times in, decisions out, so
 * that every rule is a unit test (tests/unit/test_recorder.c).
 *
 *   - A match opens a window [match - before, match + after]. It is written
 *     once every CPU has published past its end.
 *   - A match inside a window not written yet is named in it and extends its
 *     end to match + after, up to RECORDER_EXTEND_MAX_NS past its first
 *     match: a storm of matches still ends in a file.
 *   - A match past the newest window's end + --save-gap opens the next one
 *     (the first then waits, closed, for its after part); one before that is
 *     skipped and counted: the gap keeps a storm from writing a file a second.
 *     One inside a window already written (a CPU that published late) is
 *     counted as late.
 *   - After --save-max windows, every match is skipped (counted).
 *   - A kernel stop (the kernel stopped recording at the match) ends the
 *     window at the match: little after it is recorded (another CPU's
 *     events until the stop reaches it).
 */
#include <string.h>

#include "recorder-local.h"

void rec_window_init(struct rec_window *w, uint64_t before, uint64_t after, uint64_t gap,
		     unsigned int max)
{
	memset(w, 0, sizeof(*w));
	w->before = before;
	w->after = after;
	w->gap = gap;
	w->max = max;
	w->extend_max = RECORDER_EXTEND_MAX_NS > after ? RECORDER_EXTEND_MAX_NS : after;
}

static void pending_add(struct rec_window *w, struct rec_pending *p, const struct rec_match *m)
{
	uint64_t end;

	if (p->nmatch < REC_MATCHES_KEPT)
		p->m[p->nmatch] = *m;
	p->nmatch++;
	if (m->ts < p->first) {
		/* an older match a CPU published late: the window starts before it */
		p->first = m->ts;
		p->t0 = m->ts > w->before ? m->ts - w->before : 0;
	}
	if (m->kstop) {
		/* nothing is recorded after the kernel's stop */
		p->kstop = true;
		if (m->ts < p->t1)
			p->t1 = m->ts > p->first ? m->ts : p->first;
		return;
	}
	if (p->kstop)
		return;
	end = m->ts + w->after;
	if (end > p->first + w->extend_max)
		end = p->first + w->extend_max;
	if (end > p->t1)
		p->t1 = end;
}

enum rec_verdict rec_window_match(struct rec_window *w, const struct rec_match *m)
{
	struct rec_pending *p, *last = w->n ? &w->w[w->n - 1] : NULL;

	w->matches++;
	for (unsigned int i = 0; i < w->n; i++) {
		p = &w->w[i];
		if (m->ts >= p->t0 && m->ts <= p->t1) {
			pending_add(w, p, m);
			return REC_EXTENDED;
		}
	}
	if (w->written_t1 && m->ts <= w->written_t1 && (!last || m->ts < last->t0)) {
		w->late++;
		return REC_LATE;
	}
	if ((last && m->ts < last->t1 + w->gap) ||
	    (!last && w->written_t1 && m->ts < w->written_t1 + w->gap)) {
		w->skipped_gap++;
		return REC_GAP;
	}
	if ((w->max && w->opened >= w->max) || w->n > REC_READY_MAX) {
		w->skipped_max++;
		return REC_MAX;
	}
	p = &w->w[w->n++];
	memset(p, 0, sizeof(*p));
	p->active = true;
	p->first = m->ts;
	p->t0 = m->ts > w->before ? m->ts - w->before : 0;
	p->t1 = m->ts;
	w->opened++;
	pending_add(w, p, m);
	return REC_NEW;
}

const struct rec_pending *rec_window_next(const struct rec_window *w)
{
	return w->n ? &w->w[0] : NULL;
}

bool rec_window_due(const struct rec_window *w, uint64_t published)
{
	return w->n && published >= w->w[0].t1 + (w->w[0].kstop ? REC_KSTOP_SETTLE_NS : 0);
}

bool rec_window_take(struct rec_window *w, struct rec_pending *out)
{
	if (!w->n)
		return false;
	*out = w->w[0];
	if (w->w[0].t1 > w->written_t1)
		w->written_t1 = w->w[0].t1;
	memmove(&w->w[0], &w->w[1], (w->n - 1) * sizeof(w->w[0]));
	w->n--;
	return true;
}

bool rec_window_done(const struct rec_window *w)
{
	return w->max && w->opened >= w->max && !w->n;
}
