// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * View filters (src/view/viewfilter.h): walks over the matches in time order, in
 * either direction, and counting under the filter. Both evaluate the chunks
 * they reach that the index has not evaluated yet, so the first page of a
 * new filter costs the chunks it shows (and those that hold no match on the
 * way), not a pass over the store.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "viewfilter-local.h"

#define VW_BATCH	128	/* matches read ahead per CPU */
#define VW_STEP		4	/* chunks a fill looks at before the merge looks again */

struct vw_cpu {
	uint64_t		next;	/* forwards: the next seq to look at; backwards: one past */
	bool			end;
	uint16_t		bn, bi;
	struct ktop_event	*buf;
	uint64_t		*seq;
};

struct viewfilter_walk {
	struct viewfilter	*vf;
	uint64_t		gen;
	int			dir;
	bool			incl;
	struct viewfilter_pos	pos;
	struct vw_cpu		*c;
};

/* Is the event on the walk's side of its start? */
static bool walk_side(const struct viewfilter_walk *w, const struct ktop_event *ev, uint64_t seq)
{
	int c = vf_pos_cmp(ev->ts, ev->cpu, seq, &w->pos);

	return c * w->dir > 0 || (!c && w->incl);
}

/*
 * Read matches of @cpu from @c->next on, forwards, until the buffer is full,
 * the end, or (with none found yet) VW_STEP chunks looked at.
 */
static void fill_fwd(struct viewfilter_walk *w, unsigned int cpu, struct vw_cpu *c)
{
	struct viewfilter *vf = w->vf;
	struct store_chunk_rows r;
	unsigned int steps = 0;

	while (c->bn < VW_BATCH && (c->bn || steps++ < VW_STEP)) {
		ssize_t k = vf_seg_find(vf, cpu, c->next);
		const struct vf_cpu *vc = &vf->cpu[cpu];
		struct vf_seg *s;
		uint32_t i, end;

		if (k < 0) {
			/* evicted meanwhile: on from the oldest held */
			if (vc->lo < vc->hi && c->next < vc->v[vc->lo].first_seq) {
				c->next = vc->v[vc->lo].first_seq;
				continue;
			}
			c->end = true;
			return;
		}
		s = &vc->v[k];
		if (vf_seg_eval(vf, cpu, s) || s->kind == SK_NONE ||
		    store_chunk_rows(vf->rd, cpu, c->next, STORE_COL_ALL, &r)) {
			c->next = s->first_seq + s->n;
			continue;
		}
		end = r.n < s->done ? r.n : s->done;
		for (i = r.lo; i < end && c->bn < VW_BATCH; i++) {
			struct ktop_event *ev = &c->buf[c->bn];

			if (!vf_seg_match(s, i))
				continue;
			store_chunk_event(vf->rd, i, cpu, ev);
			if (walk_side(w, ev, s->first_seq + i))
				c->seq[c->bn++] = s->first_seq + i;
		}
		c->next = s->first_seq + (i < end ? i : s->n);
	}
}

static void fill_bwd(struct viewfilter_walk *w, unsigned int cpu, struct vw_cpu *c)
{
	struct viewfilter *vf = w->vf;
	struct store_chunk_rows r;
	unsigned int steps = 0;

	while (c->bn < VW_BATCH && (c->bn || steps++ < VW_STEP)) {
		const struct vf_cpu *vc = &vf->cpu[cpu];
		struct vf_seg *s;
		ssize_t k;
		uint32_t i;

		if (!c->next || vc->lo == vc->hi) {
			c->end = true;
			return;
		}
		k = vf_seg_find(vf, cpu, c->next - 1);
		if (k < 0) {
			const struct vf_seg *last = &vc->v[vc->hi - 1];

			/* past what the index holds: from its newest */
			if (c->next > last->first_seq + last->n) {
				c->next = last->first_seq + last->n;
				continue;
			}
			c->end = true;
			return;
		}
		s = &vc->v[k];
		if (vf_seg_eval(vf, cpu, s) || s->kind == SK_NONE ||
		    store_chunk_rows(vf->rd, cpu, s->first_seq, STORE_COL_ALL, &r)) {
			c->next = s->first_seq;
			continue;
		}
		i = (uint32_t)(c->next - s->first_seq);
		if (i > s->done)
			i = s->done;
		if (i > r.n)
			i = r.n;
		for (; i > 0 && c->bn < VW_BATCH; i--) {
			struct ktop_event *ev = &c->buf[c->bn];

			if (!vf_seg_match(s, i - 1))
				continue;
			store_chunk_event(vf->rd, i - 1, cpu, ev);
			if (walk_side(w, ev, s->first_seq + i - 1))
				c->seq[c->bn++] = s->first_seq + i - 1;
		}
		c->next = s->first_seq + i;
	}
}

struct viewfilter_walk *viewfilter_walk_new(struct viewfilter *vf,
					    const struct viewfilter_pos *pos, int dir, bool incl)
{
	struct viewfilter_walk *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->vf = vf;
	w->gen = viewfilter_gen(vf);
	w->dir = dir < 0 ? -1 : 1;
	w->incl = incl;
	w->pos = *pos;
	w->c = calloc(vf->ncpus, sizeof(*w->c));
	if (!w->c)
		goto out_free;
	for (unsigned int cpu = 0; cpu < vf->ncpus; cpu++) {
		struct vw_cpu *c = &w->c[cpu];
		uint64_t first, end;

		c->buf = malloc(VW_BATCH * sizeof(*c->buf));
		c->seq = malloc(VW_BATCH * sizeof(*c->seq));
		if (!c->buf || !c->seq)
			goto out_free;
		if (vf_sync_cpu(vf, cpu))
			goto out_free;
		store_cpu_range(vf->st, cpu, &first, &end);
		c->end = !vf_cpu_ok(vf, cpu);
		if (pos->ts == UINT64_MAX)
			c->next = end;
		else if (w->dir > 0)
			c->next = store_seek(vf->st, cpu, pos->ts);
		else
			c->next = store_seek(vf->st, cpu, pos->ts + 1);
	}
	return w;
out_free:
	viewfilter_walk_free(w);
	return NULL;
}

void viewfilter_walk_free(struct viewfilter_walk *w)
{
	if (!w)
		return;
	for (unsigned int cpu = 0; w->c && cpu < w->vf->ncpus; cpu++) {
		free(w->c[cpu].buf);
		free(w->c[cpu].seq);
	}
	free(w->c);
	free(w);
}

/*
 * Can @cpu, with nothing read ahead, still give an event on the walk's near
 * side of @h (the best head so far)? Its next chunk's time range says.
 */
static bool walk_may_beat(const struct viewfilter_walk *w, unsigned int cpu,
			  const struct ktop_event *h)
{
	const struct viewfilter *vf = w->vf;
	const struct vw_cpu *c = &w->c[cpu];
	ssize_t k;

	if (w->dir > 0) {
		k = vf_seg_find(vf, cpu, c->next);
		return k < 0 || vf->cpu[cpu].v[k].t_min <= h->ts;
	}
	k = c->next ? vf_seg_find(vf, cpu, c->next - 1) : -1;
	return k < 0 || vf->cpu[cpu].v[k].t_max >= h->ts;
}

/* The CPU whose head comes first in the walk's direction, or NULL. */
static struct vw_cpu *walk_best(struct viewfilter_walk *w)
{
	struct vw_cpu *best = NULL;

	for (unsigned int cpu = 0; cpu < w->vf->ncpus; cpu++) {
		struct vw_cpu *c = &w->c[cpu];
		const struct ktop_event *h;
		struct viewfilter_pos bp;

		if (c->bi >= c->bn)
			continue;
		h = &c->buf[c->bi];
		if (best) {
			bp = (struct viewfilter_pos){ .ts = best->buf[best->bi].ts,
						      .seq = best->seq[best->bi],
						      .cpu = best->buf[best->bi].cpu };
			if (vf_pos_cmp(h->ts, h->cpu, c->seq[c->bi], &bp) * w->dir > 0)
				continue;
		}
		best = c;
	}
	return best;
}

/*
 * The merge reads ahead in steps, and only on CPUs that may still give an
 * event before the best head so far: a CPU with no match near the walk's
 * start is read as far as the others' matches go, not to its end.
 */
bool viewfilter_walk_next(struct viewfilter_walk *w, struct ktop_event *ev, uint64_t *seq)
{
	struct vw_cpu *best;
	bool pending;

	if (w->gen != viewfilter_gen(w->vf))
		return false;
	do {
		best = walk_best(w);
		pending = false;
		for (unsigned int cpu = 0; cpu < w->vf->ncpus; cpu++) {
			struct vw_cpu *c = &w->c[cpu];

			if (c->bi < c->bn || c->end)
				continue;
			if (best && !walk_may_beat(w, cpu, &best->buf[best->bi]))
				continue;
			c->bi = c->bn = 0;
			if (w->dir > 0)
				fill_fwd(w, cpu, c);
			else
				fill_bwd(w, cpu, c);
			pending = true;
		}
	} while (pending);
	if (!best)
		return false;
	*ev = best->buf[best->bi];
	if (seq)
		*seq = best->seq[best->bi];
	best->bi++;
	return true;
}

size_t viewfilter_page(struct viewfilter *vf, const struct viewfilter_pos *pos, int dir,
		       bool incl, struct ktop_event *out, uint64_t *seqs, size_t n)
{
	struct viewfilter_walk *w = viewfilter_walk_new(vf, pos, dir, incl);
	size_t k = 0;

	if (!w)
		return 0;
	while (k < n && viewfilter_walk_next(w, &out[k], seqs ? &seqs[k] : NULL))
		k++;
	viewfilter_walk_free(w);
	if (dir < 0) {
		/* read newest first: give them oldest first */
		for (size_t i = 0; i < k / 2; i++) {
			struct ktop_event t = out[i];

			out[i] = out[k - 1 - i];
			out[k - 1 - i] = t;
			if (seqs) {
				uint64_t q = seqs[i];

				seqs[i] = seqs[k - 1 - i];
				seqs[k - 1 - i] = q;
			}
		}
	}
	return k;
}

/* ---- counting ------------------------------------------------------------------------- */

/* A whole chunk whose events all match, from its dictionaries. Return: 1 done, 0 not, <0 errno. */
static int count_dict(struct viewfilter *vf, unsigned int cpu, const struct vf_seg *s,
		      enum store_key key, struct hmap *m)
{
	struct store_chunk_dict d;
	uint64_t total = 0;

	if (key == STORE_KEY_CPU)
		return hmap_add(m, cpu, s->n) ? -ENOMEM : 1;
	if (key == STORE_KEY_FUNC || store_chunk_dict(vf->rd, cpu, s->first_seq, &d))
		return 0;
	for (uint32_t i = 0; i < d.npid; i++)
		total += d.pid_n[i];
	if (total != s->n)
		return 0;	/* not all of it published yet */
	for (uint32_t i = 0; key == STORE_KEY_PID && i < d.npid; i++)
		if (hmap_add(m, (uint64_t)(int64_t)d.pid[i], d.pid_n[i]))
			return -ENOMEM;
	for (uint32_t i = 0; key == STORE_KEY_TYPE && i < d.ntype; i++)
		if (hmap_add(m, d.type[i], d.type_n[i]))
			return -ENOMEM;
	return 1;
}

static int count_rows(struct viewfilter *vf, unsigned int cpu, const struct vf_seg *s,
		      enum store_key key, uint64_t t0, uint64_t t1, struct hmap *m)
{
	struct store_chunk_rows r;
	uint32_t end;

	if (store_chunk_rows(vf->rd, cpu, s->first_seq, STORE_COL_TS | store_key_cols(key), &r))
		return 0;	/* evicted meanwhile */
	end = r.n < s->done ? r.n : s->done;
	for (uint32_t i = 0; i < end; i++) {
		uint64_t k;

		if (!vf_seg_match(s, i) || r.row[i].ts < t0 || r.row[i].ts > t1 ||
		    !store_row_key(&r, i, cpu, key, &k))
			continue;
		if (hmap_add(m, k, 1))
			return -ENOMEM;
	}
	return 0;
}

size_t viewfilter_count_by(struct viewfilter *vf, enum store_key key, int cpu, uint64_t t0,
			   uint64_t t1, struct store_count *out, size_t max)
{
	struct hmap m = { 0 };
	size_t n;

	for (unsigned int c = 0; c < vf->ncpus; c++) {
		const struct vf_cpu *vc = &vf->cpu[c];

		if ((cpu >= 0 && (unsigned int)cpu != c) || !vf_cpu_ok(vf, c))
			continue;
		if (vf_sync_cpu(vf, c))
			goto out;
		for (size_t k = vc->lo; k < vc->hi; k++) {
			struct vf_seg *s = &vc->v[k];
			int ret;

			if (s->t_max < t0)
				continue;
			if (s->t_min > t1)
				break;
			if (vf_seg_eval(vf, c, s))
				goto out;
			if (s->kind == SK_NONE)
				continue;
			ret = 0;
			if (s->kind == SK_ALL && s->sealed && s->t_min >= t0 && s->t_max <= t1)
				ret = count_dict(vf, c, s, key, &m);
			if (!ret)
				ret = count_rows(vf, c, s, key, t0, t1, &m);
			if (ret < 0)
				goto out;
		}
	}
out:
	n = store_count_sorted(&m, out, max);
	hmap_destroy(&m);
	return n;
}
