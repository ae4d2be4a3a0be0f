// SPDX-License-Identifier: GPL-2.0-or-later
/* Time-ordered walks over the store, in either direction. No curses here. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "evnav.h"
#include "store/store.h"
#include "view/viewfilter.h"

int ui_evpos_cmp(const struct ui_evpos *a, const struct ui_evpos *b)
{
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return 0;
}

struct ui_evpos ui_evpos_of(const struct ui_evrow *r)
{
	return (struct ui_evpos){ .ts = r->ev.ts, .seq = r->seq, .cpu = r->ev.cpu };
}

/* Fetch the head of @cpu's stream in the walk's direction. */
static void walk_fill(struct ui_evwalk *w, unsigned int cpu)
{
	struct ui_evrow *buf = w->buf + (size_t)cpu * UI_EVWALK_BATCH;
	uint64_t first, end;
	uint16_t n = 0;

	w->have[cpu] = false;
	if (w->bi[cpu] < w->bn[cpu]) {
		w->head[cpu] = buf[w->bi[cpu]++];
		w->have[cpu] = true;
		return;
	}
	store_cpu_range(w->st, cpu, &first, &end);
	if (w->dir > 0) {
		if (w->next[cpu] < first)
			w->next[cpu] = first;	/* evicted meanwhile */
		while (n < UI_EVWALK_BATCH && w->next[cpu] < end) {
			if (!store_get(w->st, cpu, w->next[cpu], &buf[n].ev))
				buf[n++].seq = w->next[cpu];
			w->next[cpu]++;
		}
	} else {
		while (n < UI_EVWALK_BATCH && w->next[cpu] > first) {
			w->next[cpu]--;
			if (!store_get(w->st, cpu, w->next[cpu], &buf[n].ev))
				buf[n++].seq = w->next[cpu];
		}
	}
	w->bn[cpu] = n;
	w->bi[cpu] = 0;
	if (n) {
		w->head[cpu] = buf[w->bi[cpu]++];
		w->have[cpu] = true;
	}
}

int ui_evwalk_init(struct ui_evwalk *w, struct store *st, const struct ui_evpos *pos,
		   int dir, bool incl)
{
	return ui_evwalk_init_cpu(w, st, pos, dir, incl, -1);
}

int ui_evwalk_init_cpu(struct ui_evwalk *w, struct store *st, const struct ui_evpos *pos,
		       int dir, bool incl, int cpu)
{
	unsigned int n = store_ncpus(st);

	memset(w, 0, sizeof(*w));
	w->st = st;
	w->ncpus = n;
	w->cpu = cpu;
	w->dir = dir >= 0 ? 1 : -1;
	w->next = calloc(n, sizeof(*w->next));
	w->first = calloc(n, sizeof(*w->first));
	w->head = calloc(n, sizeof(*w->head));
	w->have = calloc(n, sizeof(*w->have));
	w->buf = calloc((size_t)n * UI_EVWALK_BATCH, sizeof(*w->buf));
	w->bn = calloc(n, sizeof(*w->bn));
	w->bi = calloc(n, sizeof(*w->bi));
	if (!w->next || !w->first || !w->head || !w->have || !w->buf || !w->bn || !w->bi) {
		ui_evwalk_destroy(w);
		return -ENOMEM;
	}
	for (unsigned int c = 0; c < n; c++) {
		uint64_t first, end, s;
		struct ktop_event ev;

		if (cpu >= 0 && c != (unsigned int)cpu)
			continue;	/* never read: have[c] stays false */
		store_cpu_range(st, c, &first, &end);
		w->first[c] = first;
		/* s: first seq of @c whose position is past @pos (or at it, when !incl) */
		if (pos->ts == UINT64_MAX) {
			s = end;
		} else {
			s = store_seek(st, c, pos->ts);
			while (s < end && !store_get(st, c, s, &ev) && ev.ts == pos->ts) {
				struct ui_evpos p = { ev.ts, s, c };
				int cmp = ui_evpos_cmp(&p, pos);

				if (cmp > 0 || (cmp == 0 && (w->dir > 0) == incl))
					break;
				s++;
			}
		}
		/*
		 * Backwards: read below s. Forwards: read from s. With incl and
		 * dir > 0 the loop stopped at pos itself; with incl and dir < 0
		 * it stepped past it, so it is read first.
		 */
		w->next[c] = s;
		walk_fill(w, c);
	}
	return 0;
}

int ui_evwalk_init_view(struct ui_evwalk *w, struct store *st, struct viewfilter *vf,
			const struct ui_evpos *pos, int dir, bool incl, int cpu)
{
	const struct viewfilter_pos vp = { .ts = pos->ts, .seq = pos->seq, .cpu = pos->cpu };

	if (!vf)
		return ui_evwalk_init_cpu(w, st, pos, dir, incl, cpu);
	memset(w, 0, sizeof(*w));
	w->st = st;
	w->cpu = cpu;
	w->dir = dir >= 0 ? 1 : -1;
	w->vw = viewfilter_walk_new(vf, &vp, w->dir, incl);
	return w->vw ? 0 : -ENOMEM;
}

/* The next event the view's walk gives, of w->cpu when one CPU is asked for. */
static bool walk_view_next(struct ui_evwalk *w, struct ui_evrow *out)
{
	while (viewfilter_walk_next(w->vw, &out->ev, &out->seq))
		if (w->cpu < 0 || out->ev.cpu == (unsigned int)w->cpu)
			return true;
	return false;
}

bool ui_evwalk_next(struct ui_evwalk *w, struct ui_evrow *out)
{
	int best = -1;

	if (w->vw)
		return walk_view_next(w, out);

	for (unsigned int c = 0; c < w->ncpus; c++) {
		struct ui_evpos a, b;

		if (!w->have[c])
			continue;
		if (best < 0) {
			best = (int)c;
			continue;
		}
		a = ui_evpos_of(&w->head[c]);
		b = ui_evpos_of(&w->head[best]);
		if ((ui_evpos_cmp(&a, &b) < 0) == (w->dir > 0))
			best = (int)c;
	}
	if (best < 0)
		return false;
	*out = w->head[best];
	walk_fill(w, (unsigned int)best);
	return true;
}

void ui_evwalk_destroy(struct ui_evwalk *w)
{
	viewfilter_walk_free(w->vw);
	w->vw = NULL;
	free(w->next);
	free(w->first);
	free(w->head);
	free(w->have);
	free(w->buf);
	free(w->bn);
	free(w->bi);
	w->buf = NULL;
	w->bn = w->bi = NULL;
	w->next = w->first = NULL;
	w->head = NULL;
	w->have = NULL;
}

int ui_ev_read(struct store *st, const struct ui_evpos *pos, int dir, bool incl, int cpu,
	       struct ui_evrow *out, int n)
{
	return ui_ev_read_view(st, NULL, pos, dir, incl, cpu, out, n);
}

int ui_ev_read_view(struct store *st, struct viewfilter *vf, const struct ui_evpos *pos,
		    int dir, bool incl, int cpu, struct ui_evrow *out, int n)
{
	struct ui_evwalk w;
	int k = 0;

	if (n <= 0 || ui_evwalk_init_view(&w, st, vf, pos, dir, incl, cpu))
		return 0;
	/* backwards: the newest first, filled from the end */
	while (k < n && ui_evwalk_next(&w, &out[dir < 0 ? n - 1 - k : k]))
		k++;
	ui_evwalk_destroy(&w);
	if (dir < 0 && k < n)
		memmove(out, out + (n - k), (size_t)k * sizeof(*out));
	return k;
}

int ui_ev_before(struct store *st, const struct ui_evpos *pos, bool incl,
		 struct ui_evrow *out, int n)
{
	return ui_ev_read(st, pos, -1, incl, -1, out, n);
}

int ui_ev_after(struct store *st, const struct ui_evpos *pos, bool incl,
		struct ui_evrow *out, int n)
{
	return ui_ev_read(st, pos, 1, incl, -1, out, n);
}

uint64_t ui_ev_count(struct store *st, uint64_t t0, uint64_t t1)
{
	uint64_t n = 0;

	if (t1 < t0)
		return 0;
	/* time order holds within a CPU's stream, so a window is one run of seqs per CPU */
	for (unsigned int cpu = 0; cpu < store_ncpus(st); cpu++) {
		uint64_t first, end, a, b;

		store_cpu_range(st, cpu, &first, &end);
		a = store_seek(st, cpu, t0);
		b = t1 == UINT64_MAX ? end : store_seek(st, cpu, t1 + 1);
		if (a < first)
			a = first;
		if (b > end)
			b = end;
		if (b > a)
			n += b - a;
	}
	return n;
}

uint64_t ui_ev_count_view(struct store *st, struct viewfilter *vf, uint64_t t0, uint64_t t1)
{
	unsigned int ncpus = store_ncpus(st);
	struct store_count *c;
	uint64_t n = 0;
	size_t k;

	if (!vf)
		return ui_ev_count(st, t0, t1);
	if (t1 < t0)
		return 0;
	c = calloc(ncpus, sizeof(*c));
	if (!c)
		return 0;
	k = viewfilter_count_by(vf, STORE_KEY_CPU, -1, t0, t1, c, ncpus);
	for (size_t i = 0; i < k && i < ncpus; i++)
		n += c[i].count;
	free(c);
	return n;
}
