// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The event search (src/view/evsearch.h): a scan of the store's chunks in
 * slices, from the start position away, one CPU's chunk at a time.
 *
 * Which chunk next: of the chunks each CPU has left, the one that comes
 * first in the search's direction (the newest t_max backwards, the oldest
 * t_min forwards). A match found in a CPU's chunk is that CPU's best (the
 * chunk is read from the start position away), and it is the search's
 * answer once no CPU's next chunk can hold an event before it: then every
 * event nearer the start has been looked at.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/hashmap.h"
#include "store/schema.h"
#include "evsearch.h"
#include "viewfilter-local.h"

/* Per type: what type_may() said. */
enum { TV_UNKNOWN, TV_NO, TV_MAY };

struct es_cpu {
	uint64_t		lo, hi;		/* the seqs left: [lo, hi) */
	bool			done;
	bool			have;		/* @ci is the next chunk to read */
	struct store_chunk_info	ci;
};

struct evsearch {
	struct store			*st;
	struct viewfilter		*vf;
	uint64_t			vf_gen;
	const struct evsearch_ops	*ops;
	void				*arg;
	struct viewfilter_pos		from;
	int				dir;
	unsigned int			ncpus;
	struct es_cpu			*c;
	struct store_chunk_rd		*rd;
	uint8_t				*tv;		/* by type id: TV_* */
	size_t				ntv;
	struct hmap			task;		/* pid << 16 | type -> 1 no, 2 may */
	int				state;
	bool				have_hit;
	struct ktop_event		hit;
	struct viewfilter_pos		hit_pos;
	struct evsearch_progress	pr;
};

struct evsearch *evsearch_new(struct store *st, struct viewfilter *vf,
			      const struct viewfilter_pos *from, int dir, int cpu,
			      const struct evsearch_ops *ops, void *arg)
{
	struct evsearch *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->st = st;
	s->vf = vf;
	s->vf_gen = vf ? viewfilter_gen(vf) : 0;
	s->ops = ops;
	s->arg = arg;
	s->from = *from;
	s->dir = dir < 0 ? -1 : 1;
	s->ncpus = store_ncpus(st);
	s->c = calloc(s->ncpus, sizeof(*s->c));
	s->rd = store_chunk_rd_new(st);
	if (!s->c || !s->rd)
		goto out_free;
	for (unsigned int i = 0; i < s->ncpus; i++) {
		struct es_cpu *c = &s->c[i];
		uint64_t first, end;

		store_cpu_range(st, i, &first, &end);
		c->done = (cpu >= 0 && (unsigned int)cpu != i) || (vf && !vf_cpu_ok(vf, i));
		if (vf && !c->done && vf_sync_cpu(vf, i))
			goto out_free;
		c->lo = first;
		c->hi = end;
		if (s->dir < 0 && from->ts != UINT64_MAX)
			c->hi = store_seek(st, i, from->ts + 1);
		else if (s->dir > 0)
			c->lo = store_seek(st, i, from->ts);
		if (c->lo >= c->hi)
			c->done = true;
		if (!c->done)
			s->pr.total += c->hi - c->lo;
	}
	return s;
out_free:
	evsearch_free(s);
	return NULL;
}

void evsearch_free(struct evsearch *s)
{
	if (!s)
		return;
	store_chunk_rd_free(s->rd);
	hmap_destroy(&s->task);
	free(s->tv);
	free(s->c);
	free(s);
}

bool evsearch_hit(const struct evsearch *s, struct ktop_event *ev, struct viewfilter_pos *pos)
{
	if (s->state != EVSEARCH_FOUND)
		return false;
	if (ev)
		*ev = s->hit;
	if (pos)
		*pos = s->hit_pos;
	return true;
}

void evsearch_progress(const struct evsearch *s, struct evsearch_progress *out)
{
	*out = s->pr;
	if (out->done > out->total)
		out->done = out->total;
}

/* Return: may an event of @type match (type_may(), asked once)? */
static bool type_may(struct evsearch *s, uint16_t type)
{
	if (!s->ops->type_may)
		return true;
	if (type >= s->ntv) {
		size_t n = (size_t)type + 64;
		uint8_t *v = realloc(s->tv, n);

		if (!v)
			return true;	/* no room to remember: read the rows */
		memset(v + s->ntv, TV_UNKNOWN, n - s->ntv);
		s->tv = v;
		s->ntv = n;
	}
	if (s->tv[type] == TV_UNKNOWN)
		s->tv[type] = s->ops->type_may(s->arg, type) ? TV_MAY : TV_NO;
	return s->tv[type] == TV_MAY;
}

/* Return: may an event of @type (one that type_may() takes) from @pid match? */
static bool task_may(struct evsearch *s, int32_t pid, uint16_t type)
{
	uint64_t key = (uint64_t)(uint32_t)pid << 16 | type, *v;

	if (!s->ops->task_may)
		return true;
	v = hmap_put(&s->task, key, NULL);
	if (!v)
		return true;
	if (!*v)
		*v = s->ops->task_may(s->arg, pid, type) ? 2 : 1;
	return *v == 2;
}

/*
 * Can a sealed chunk hold a match? Its dictionaries say: none of its types
 * may match, or none of its tasks with any of those types.
 */
static bool chunk_may(struct evsearch *s, unsigned int cpu, const struct store_chunk_info *ci)
{
	struct store_chunk_dict d;
	bool any = false;

	if (!ci->sealed || (!s->ops->type_may && !s->ops->task_may))
		return true;
	if (store_chunk_dict(s->rd, cpu, ci->first_seq, &d))
		return true;	/* evicted meanwhile: the rows say so */
	for (uint32_t t = 0; t < d.ntype; t++) {
		if (!type_may(s, d.type[t]))
			continue;
		if (!s->ops->task_may)
			return true;
		any = true;
	}
	if (!any)
		return false;
	/* the dictionaries pair no pid with a type: every pair of them may occur */
	for (uint32_t t = 0; t < d.ntype; t++) {
		if (!type_may(s, d.type[t]))
			continue;
		for (uint32_t p = 0; p < d.npid; p++)
			if (task_may(s, d.pid[p], d.type[t]))
				return true;
	}
	return false;
}

/* Look up @cpu's next chunk. Return: false when the CPU has none left. */
static bool next_chunk(struct evsearch *s, unsigned int cpu)
{
	struct es_cpu *c = &s->c[cpu];
	uint64_t first, end;

	if (c->done)
		return false;
	if (c->have)
		return true;
	store_cpu_range(s->st, cpu, &first, &end);
	if (c->lo < first)
		c->lo = first;		/* evicted meanwhile */
	if (c->lo >= c->hi ||
	    store_chunks(s->st, cpu, s->dir < 0 ? c->hi - 1 : c->lo, &c->ci, 1) != 1 ||
	    c->ci.first_seq >= c->hi) {
		/* nothing left, or what is left was evicted */
		c->done = true;
		return false;
	}
	if (s->dir > 0 && c->ci.first_seq > c->lo)
		c->lo = c->ci.first_seq;	/* evicted chunks jumped over */
	c->have = true;
	return true;
}

/*
 * The nearest position @cpu's next chunk may hold, and whether it comes
 * before the best match so far (or there is none yet).
 */
static bool may_beat(const struct evsearch *s, unsigned int cpu)
{
	const struct es_cpu *c = &s->c[cpu];

	if (!s->have_hit)
		return true;
	if (s->dir < 0)
		return vf_pos_cmp(c->ci.t_max, cpu, c->hi - 1, &s->hit_pos) > 0;
	return vf_pos_cmp(c->ci.t_min, cpu, c->lo, &s->hit_pos) < 0;
}

/* Is the event at (@ts, @cpu, @seq) on the search's side of its start? */
static bool past_start(const struct evsearch *s, uint64_t ts, unsigned int cpu, uint64_t seq)
{
	if (ts != s->from.ts)
		return true;	/* the seek bounds took care of the rest */
	return vf_pos_cmp(ts, cpu, seq, &s->from) * s->dir > 0;
}

/*
 * Read @cpu's next chunk from the start side away, up to its first match.
 * Return: 0, or -ENOMEM.
 */
static int scan_chunk(struct evsearch *s, unsigned int cpu)
{
	struct es_cpu *c = &s->c[cpu];
	const struct store_chunk_info *ci = &c->ci;
	uint64_t lo = c->lo > ci->first_seq ? c->lo : ci->first_seq;
	uint64_t hi = ci->first_seq + ci->n < c->hi ? ci->first_seq + ci->n : c->hi;
	const struct vf_seg *seg = NULL;
	struct store_chunk_rows r;
	bool all;
	int ret;

	c->have = false;
	if (s->dir < 0)
		c->hi = lo;
	else
		c->lo = hi;
	if (lo >= hi)
		return 0;
	if (s->vf) {
		ssize_t k = vf_seg_find(s->vf, cpu, lo);
		struct vf_seg *vs;

		if (k < 0 || s->vf->cpu[cpu].v[k].first_seq != ci->first_seq ||
		    s->vf->cpu[cpu].v[k].n < hi - ci->first_seq) {
			ret = vf_sync_cpu(s->vf, cpu);
			if (ret)
				return ret;
			k = vf_seg_find(s->vf, cpu, lo);
			if (k < 0 || s->vf->cpu[cpu].v[k].first_seq != ci->first_seq)
				goto skipped;	/* evicted: the view holds no such chunk */
		}
		vs = &s->vf->cpu[cpu].v[k];
		ret = vf_seg_eval(s->vf, cpu, vs);
		if (ret)
			return ret;
		if (vs->kind == SK_NONE)
			goto skipped;
		seg = vs;
	}
	if (!chunk_may(s, cpu, ci))
		goto skipped;
	/*
	 * The dictionaries said a row may match: nearly always one does, and
	 * its arguments are needed, so every column is decoded at once (a
	 * second pass would decode the first columns again).
	 */
	ret = store_chunk_rows(s->rd, cpu, lo, ci->sealed && s->ops->type_may ? STORE_COL_ALL :
			       STORE_COL_TS | STORE_COL_TYPE | STORE_COL_PID, &r);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	all = ci->sealed && s->ops->type_may;
	if (hi > r.first_seq + r.n)
		hi = r.first_seq + r.n;
	s->pr.done += hi - lo;
	for (uint64_t k = 0; k < hi - lo; k++) {
		uint64_t seq = s->dir < 0 ? hi - 1 - k : lo + k;
		uint32_t i = (uint32_t)(seq - r.first_seq);
		const struct store_brow *w = &r.row[i];
		struct ktop_event ev;

		if (seg && !vf_seg_match(seg, i))
			continue;
		if (!type_may(s, w->type) || !task_may(s, w->pid, w->type) ||
		    !past_start(s, w->ts, cpu, seq))
			continue;
		if (!all) {
			/* the same chunk: only the columns not decoded yet are */
			ret = store_chunk_rows(s->rd, cpu, lo, STORE_COL_ALL, &r);
			if (ret)
				return ret == -ENOENT ? 0 : ret;
			all = true;
		}
		store_chunk_event(s->rd, i, cpu, &ev);
		s->pr.matched++;
		if (!s->ops->match(s->arg, &ev))
			continue;
		/* this CPU's best: the rest of its events are further from the start */
		c->done = true;
		if (!s->have_hit ||
		    vf_pos_cmp(ev.ts, cpu, seq, &s->hit_pos) * s->dir < 0) {
			s->hit = ev;
			s->hit_pos = (struct viewfilter_pos){ .ts = ev.ts, .seq = seq, .cpu = cpu };
			s->have_hit = true;
		}
		break;
	}
	return 0;
skipped:
	s->pr.done += hi - lo;
	s->pr.skipped += hi - lo;
	return 0;
}

int evsearch_step(struct evsearch *s, uint64_t budget_ns)
{
	uint64_t t0 = clock_mono_ns();

	if (s->state != EVSEARCH_MORE)
		return s->state;
	if (s->vf && viewfilter_gen(s->vf) != s->vf_gen)
		return -ESTALE;
	for (;;) {
		int best = -1, ret;

		for (unsigned int cpu = 0; cpu < s->ncpus; cpu++) {
			const struct store_chunk_info *b;

			if (!next_chunk(s, cpu) || !may_beat(s, cpu))
				continue;
			b = best >= 0 ? &s->c[best].ci : NULL;
			if (!b || (s->dir < 0 ? s->c[cpu].ci.t_max > b->t_max :
						s->c[cpu].ci.t_min < b->t_min))
				best = (int)cpu;
			else if (s->dir < 0 && s->c[cpu].ci.t_max == b->t_max)
				best = (int)cpu;	/* the same time: the higher CPU comes later */
		}
		if (best < 0) {
			s->state = s->have_hit ? EVSEARCH_FOUND : EVSEARCH_NONE;
			return s->state;
		}
		ret = scan_chunk(s, (unsigned int)best);
		if (ret)
			return ret;
		if (budget_ns && clock_mono_ns() - t0 >= budget_ns)
			return EVSEARCH_MORE;
	}
}
