// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Finding the conditions' matches in the store, as the events arrive.
 *
 * Each CPU stream is read from where the last scan ended (a seq per CPU, so
 * an event a CPU publishes late is still seen), up to the time every CPU has
 * published. A sealed chunk whose dictionary holds none of the watched event
 * types is skipped without decoding a row (as the view filter does); the
 * rows of the others are read with the columns a match needs, and a filter
 * is evaluated only on the watched types (src/view/vfexpr.h). On this host's
 * default events (sched, irq, raw_syscalls, 130k events/s), an exec watch
 * skips most chunks by their dictionaries; the open chunks are read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/err.h"
#include "lib/intern.h"
#include "store/schema.h"
#include "store/store.h"
#include "view/vfexpr.h"
#include "recorder-local.h"

#define SCAN_CHUNKS	64

int rec_scan_init(struct rec_scan *s, struct store *st, uint64_t from)
{
	memset(s, 0, sizeof(*s));
	s->st = st;
	s->ncpus = store_ncpus(st);
	s->from = from;
	s->next = calloc(s->ncpus ? s->ncpus : 1, sizeof(*s->next));
	s->rd = store_chunk_rd_new(st);
	if (!s->next || !s->rd) {
		rec_scan_destroy(s);
		return -ENOMEM;
	}
	/* what is held already is not watched: from the end of every stream on */
	for (unsigned int cpu = 0; cpu < s->ncpus; cpu++) {
		uint64_t first;

		store_cpu_range(st, cpu, &first, &s->next[cpu]);
	}
	return 0;
}

void rec_scan_destroy(struct rec_scan *s)
{
	free(s->next);
	store_chunk_rd_free(s->rd);
	s->next = NULL;
	s->rd = NULL;
}

int rec_watch_compile(struct rec_watch *w, struct store *st, bool (*known)(void *, const char *),
		      void *arg, struct err_pos *err)
{
	int ret;

	w->x = NULL;
	if (!w->c.filter[0] || (w->c.kind != RECORDER_EVENT && w->c.kind != RECORDER_PROBE))
		return 0;
	ret = vfexpr_parse(&w->x, w->c.filter, st, known, arg, err);
	if (ret && err && err->offset >= 0)
		err->offset += w->c.filter_pos;
	return ret;
}

void rec_watch_destroy(struct rec_watch *w)
{
	vfexpr_free(w->x);
	free(w->tok);
	w->x = NULL;
	w->tok = NULL;
	w->ntok = 0;
}

uint64_t rec_latency_value(const struct recorder_cond *c, uint16_t type, const uint64_t *args,
			   uint8_t nargs)
{
	switch (c->lat) {
	case RECORDER_LAT_OSNOISE:
		if (type == KTOP_T_OSNOISE && nargs > 2)
			return args[2] * 1000;		/* max_sample, us */
		if (type == KTOP_T_SAMPLE_THRESHOLD && nargs > 1)
			return args[1];			/* duration, ns */
		return 0;
	default:
		if (type != KTOP_T_TIMERLAT || nargs < 3)
			return 0;
		/* context: 0 irq, 1 thread, 2 return to user space */
		if (c->lat != RECORDER_LAT_TIMERLAT &&
		    args[1] != (uint64_t)(c->lat - RECORDER_LAT_TIMERLAT_IRQ))
			return 0;
		return args[2];
	}
}

/* Does @type interest watch @w (its event, or its samples)? Cached per type id. */
static bool watch_type(struct rec_watch *w, const struct schema *sc, uint16_t type)
{
	const struct ktop_schema_type *t;
	bool yes = false;

	if (type < w->ntok && w->tok[type])
		return w->tok[type] == 2;
	switch (w->c.kind) {
	case RECORDER_LATENCY:
		yes = w->c.lat == RECORDER_LAT_OSNOISE ?
		      type == KTOP_T_OSNOISE || type == KTOP_T_SAMPLE_THRESHOLD :
		      type == KTOP_T_TIMERLAT;
		break;
	case RECORDER_EVENT:
	case RECORDER_PROBE:
		if (!w->c.event[0])
			return false;	/* a probe not made (yet) */
		t = schema_get(sc, type);
		if (!t)
			return false;	/* not registered yet: ask again */
		yes = !strcmp(t->name, w->c.event) && (!w->c.system[0] ||
						       !strcmp(t->system, w->c.system));
		if (yes && w->x && vfexpr_type(w->x, type) == VFX_FALSE)
			yes = false;
		break;
	default:
		return false;
	}
	if (type >= w->ntok) {
		size_t n = (size_t)type + 64;
		uint8_t *v = realloc(w->tok, n);

		if (!v)
			return yes;
		memset(v + w->ntok, 0, n - w->ntok);
		w->tok = v;
		w->ntok = n;
	}
	w->tok[type] = yes ? 2 : 1;
	return yes;
}

static bool over(const struct recorder_cond *c, uint64_t v)
{
	return c->ge ? v >= c->bound : v > c->bound;
}

/*
 * The task's name at an exec: the kernel names the new image after its file
 * (kbasename, 15 characters), as the decoder does. The store's comm table
 * has the last name decoded for the pid, which another CPU's reader may
 * have set after this event (the fork, decoded after the child's exec).
 * Return: @buf, or NULL for other events.
 */
static const char *event_comm(struct rec_scan *s, uint16_t type, const uint64_t *args,
			      uint8_t nargs, char *buf, size_t len)
{
	const char *fn, *base;

	if (type != KTOP_T_SCHED_PROCESS_EXEC || !nargs)
		return NULL;
	fn = intern_str(store_strings(s->st), (uint32_t)args[0]);
	if (!fn)
		return NULL;
	base = strrchr(fn, '/');
	snprintf(buf, len < 16 ? len : 16, "%s", base ? base + 1 : fn);
	return buf;
}

/* Row @i of @r against the watches. */
static void scan_row(struct rec_scan *s, struct rec_watch *const *w, unsigned int nw,
		     const struct store_chunk_rows *r, uint32_t i, unsigned int cpu,
		     void (*fn)(void *arg, const struct rec_match *m), void *arg)
{
	const struct schema *sc = store_schema(s->st);
	const struct store_brow *b = &r->row[i];
	const uint64_t *args = r->args + b->aoff;
	char cbuf[32];
	const char *comm = NULL;
	bool comm_done = false;

	for (unsigned int k = 0; k < nw; k++) {
		struct rec_match m;
		uint64_t v = 0;

		if (w[k]->c.kind != RECORDER_EVENT && w[k]->c.kind != RECORDER_PROBE &&
		    w[k]->c.kind != RECORDER_LATENCY)
			continue;
		if (!watch_type(w[k], sc, b->type))
			continue;
		if (w[k]->c.kind == RECORDER_LATENCY) {
			v = rec_latency_value(&w[k]->c, b->type, args, b->nargs);
			if (!v || !over(&w[k]->c, v))
				continue;
		} else if (w[k]->x) {
			struct vfexpr_ev e = { .args = args, .pid = b->pid, .cpu = (uint16_t)cpu,
					       .type = b->type, .flags = b->flags, .pc = b->pc,
					       .nargs = b->nargs };

			if (!comm_done) {
				comm = event_comm(s, b->type, args, b->nargs, cbuf, sizeof(cbuf));
				comm_done = true;
			}
			e.comm = comm;
			if (!vfexpr_eval(w[k]->x, &e))
				continue;
		}
		memset(&m, 0, sizeof(m));
		m.cond = k;
		m.ts = b->ts;
		m.value = v;
		m.pid = b->pid;
		m.cpu = (uint16_t)cpu;
		m.kstop = w[k]->kstop;
		if (w[k]->c.kind == RECORDER_LATENCY) {
			char val[64];

			snprintf(m.what, sizeof(m.what), "%s on CPU %u",
				 recorder_value_str(&w[k]->c, v, val, sizeof(val)), cpu);
		} else {
			const char *c = comm_done ? comm : event_comm(s, b->type, args, b->nargs,
								      cbuf, sizeof(cbuf));

			if (!c)
				c = store_comm(s->st, b->pid);
			snprintf(m.what, sizeof(m.what), "%.40s by %.16s pid %d on CPU %u",
				 w[k]->c.event, c ? c : "?", b->pid, cpu);
		}
		fn(arg, &m);
	}
}

/* Can a sealed chunk hold a watched event? From its type dictionary alone. */
static bool chunk_may_match(struct rec_scan *s, struct rec_watch *const *w, unsigned int nw,
			    unsigned int cpu, uint64_t first_seq)
{
	const struct schema *sc = store_schema(s->st);
	struct store_chunk_dict d;

	if (store_chunk_dict(s->rd, cpu, first_seq, &d))
		return true;	/* the open chunk, or gone: read its rows */
	for (uint32_t i = 0; i < d.ntype; i++)
		for (unsigned int k = 0; k < nw; k++)
			if (watch_type(w[k], sc, d.type[i]))
				return true;
	return false;
}

uint64_t rec_scan_events(struct rec_scan *s, struct rec_watch *const *w, unsigned int nw,
			 uint64_t upto, void (*fn)(void *arg, const struct rec_match *m),
			 void *arg)
{
	struct store_chunk_info ci[SCAN_CHUNKS];
	uint64_t read = 0;
	bool any = false;

	for (unsigned int k = 0; k < nw; k++)
		any |= w[k]->c.kind == RECORDER_EVENT || w[k]->c.kind == RECORDER_PROBE ||
		       w[k]->c.kind == RECORDER_LATENCY;
	for (unsigned int cpu = 0; cpu < s->ncpus; cpu++) {
		uint64_t from = s->next[cpu];
		bool stop = false;
		size_t n;

		while (!stop && (n = store_chunks(s->st, cpu, from, ci, SCAN_CHUNKS))) {
			for (size_t i = 0; i < n && !stop; i++) {
				const struct store_chunk_info *c = &ci[i];
				struct store_chunk_rows r;
				uint32_t j;

				if (c->first_seq + c->n <= from)
					continue;
				if (c->first_seq > from)
					from = c->first_seq;	/* evicted meanwhile */
				if (c->t_min > upto) {
					stop = true;
					break;
				}
				if (!any || (c->sealed && c->t_max <= upto &&
					     !chunk_may_match(s, w, nw, cpu, c->first_seq))) {
					from = c->first_seq + c->n;
					continue;
				}
				if (store_chunk_rows(s->rd, cpu, from, STORE_COL_ALL, &r)) {
					from = c->first_seq + c->n;	/* evicted under us */
					continue;
				}
				for (j = r.lo; j < r.n; j++) {
					if (r.row[j].ts > upto) {
						stop = true;
						break;
					}
					if (r.row[j].ts >= s->from)
						scan_row(s, w, nw, &r, j, cpu, fn, arg);
				}
				read += j - r.lo;
				from = r.first_seq + j;
				if (!c->sealed)
					stop = true;	/* the open chunk: the rest is not published */
			}
			if (n < SCAN_CHUNKS)
				break;
		}
		s->next[cpu] = from;
	}
	return read;
}

void rec_scan_lost(struct rec_scan *s, struct rec_watch *w, unsigned int idx,
		   void (*fn)(void *arg, const struct rec_match *m), void *arg)
{
	struct store_lost lm[256];
	size_t n;

	while ((n = store_lost_marks_from(s->st, &w->lost_seq, lm, 256))) {
		for (size_t i = 0; i < n; i++) {
			struct rec_match m;

			/* count 0: some, number unknown; only a bare 'lost' takes it */
			if (lm[i].count ? !over(&w->c, lm[i].count) : w->c.bound || w->c.ge)
				continue;
			if (lm[i].ts < s->from)
				continue;
			memset(&m, 0, sizeof(m));
			m.cond = idx;
			m.ts = lm[i].ts;
			m.value = lm[i].count;
			m.pid = -1;
			m.cpu = lm[i].cpu;
			snprintf(m.what, sizeof(m.what), "%llu events lost on CPU %u (%s)",
				 (unsigned long long)lm[i].count, lm[i].cpu,
				 store_lost_why_name(lm[i].why) ? store_lost_why_name(lm[i].why) :
				 "?");
			fn(arg, &m);
		}
		if (n < 256)
			break;
	}
}
