// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The store, chunk by chunk: reading chunks with their dictionaries and the
 * columns asked for (filters that skip what cannot match), and moving
 * sealed chunks out as bytes and back in (.ktop files).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema.h"
#include "stacks.h"
#include "store-local.h"


struct store_chunk_rd {
	const struct store	*st;
	struct decbuf		*d;
	uint64_t		uid;		/* the sealed chunk decoded in d, 0: none */
	unsigned int		cols;		/* ... and its columns */
	int32_t			pid[PID_DICT_MAX];
	uint32_t		pid_n[PID_DICT_MAX];
	uint16_t		type[CHUNK_EVENTS];
	uint32_t		type_n[CHUNK_EVENTS];
	/* type -> index in type[]: a chunk has hundreds of metas (flags, preempt counts) */
	uint32_t		stamp;
	struct {
		uint32_t	stamp;
		uint16_t	type, idx;
	} th[2 * CHUNK_EVENTS];
};

size_t store_chunks(const struct store *st, unsigned int cpu, uint64_t from,
		    struct store_chunk_info *out, size_t max)
{
	struct stream *sm;
	uint64_t pub;
	size_t lo, n = 0;

	if (cpu >= st->ncpus || !max)
		return 0;
	sm = (struct stream *)&st->sm[cpu];
	pthread_mutex_lock(&sm->lock);
	pub = atomic_load_explicit(&sm->pub_end, memory_order_acquire);
	lo = stream_sealed_after(sm, from);
	for (; lo < sm->hi && n < max && sm->v[lo]->first_seq < pub; lo++) {
		const struct chunk *c = sm->v[lo];

		out[n++] = (struct store_chunk_info){
			.first_seq = c->first_seq, .t_min = c->t_min, .t_max = c->t_max,
			.n = (uint32_t)(pub - c->first_seq < c->n ? pub - c->first_seq : c->n),
			.sealed = true,
		};
	}
	if (n < max && sm->open && sm->open->first_seq < pub && pub > from) {
		const struct chunk *o = sm->open;
		uint32_t k = (uint32_t)(pub - o->first_seq);

		/* rows below the published end do not change: readable under the lock */
		out[n++] = (struct store_chunk_info){
			.first_seq = o->first_seq, .t_min = o->t_min,
			.t_max = o->raw->row[k - 1].ts, .n = k, .sealed = false,
		};
	}
	pthread_mutex_unlock(&sm->lock);
	return n;
}

struct store_chunk_rd *store_chunk_rd_new(const struct store *st)
{
	struct store_chunk_rd *rd = malloc(sizeof(*rd));

	if (!rd)
		return NULL;
	rd->st = st;
	rd->d = NULL;
	rd->uid = 0;
	rd->cols = 0;
	rd->stamp = 0;
	memset(rd->th, 0, sizeof(rd->th));
	return rd;
}

void store_chunk_rd_free(struct store_chunk_rd *rd)
{
	if (!rd)
		return;
	decbuf_put(rd->st, rd->d);
	free(rd);
}

int store_chunk_dict(struct store_chunk_rd *rd, unsigned int cpu, uint64_t first_seq,
		     struct store_chunk_dict *out)
{
	const uint8_t *pd, *cn, *md;
	uint64_t seq = first_seq;
	struct chunk *c;
	uint32_t nt = 0;

	if (cpu >= rd->st->ncpus)
		return -ENOENT;
	c = stream_ref(&rd->st->sm[cpu], &seq, false);
	if (!c)
		return -ENOENT;
	if (c->first_seq != first_seq || c->raw) {
		int ret = c->raw && c->first_seq == first_seq ? -EAGAIN : -ENOENT;

		chunk_put(c);
		return ret;
	}
	pd = c->data + c->off_pdict;
	cn = c->data + c->off_cnt;
	for (uint32_t i = 0; i < c->npid_rows; i++) {
		uint64_t v, k;

		pd = get_uv(pd, &v);
		cn = get_uv(cn, &k);
		rd->pid[i] = (int32_t)zz_dec(v);
		rd->pid_n[i] = (uint32_t)k;
	}
	md = c->data + c->off_mdict;
	if (++rd->stamp == 0) {
		memset(rd->th, 0, sizeof(rd->th));
		rd->stamp = 1;
	}
	/* metas differ by flags and preempt count too: one entry per type */
	for (uint32_t i = 0; i < c->nmeta; i++) {
		uint32_t h;
		struct meta mt;
		uint64_t k;

		md = chunk_get_meta(md, &mt);
		cn = get_uv(cn, &k);
		h = ((uint32_t)mt.type * 0x9e3779b1u) >> (32 - 12);
		while (rd->th[h].stamp == rd->stamp && rd->th[h].type != mt.type)
			h = (h + 1) & (2 * CHUNK_EVENTS - 1);
		if (rd->th[h].stamp != rd->stamp) {
			rd->th[h].stamp = rd->stamp;
			rd->th[h].type = mt.type;
			rd->th[h].idx = (uint16_t)nt;
			rd->type[nt] = mt.type;
			rd->type_n[nt++] = 0;
		}
		rd->type_n[rd->th[h].idx] += (uint32_t)k;
	}
	out->npid = c->npid_rows;
	out->pid = rd->pid;
	out->pid_n = rd->pid_n;
	out->ntype = nt;
	out->type = rd->type;
	out->type_n = rd->type_n;
	chunk_put(c);
	return 0;
}

int store_chunk_rows(struct store_chunk_rd *rd, unsigned int cpu, uint64_t seq, unsigned int cols,
		     struct store_chunk_rows *out)
{
	const struct stream *sm;
	unsigned int mask = 0;
	struct chunk *c;
	uint64_t pub;

	if (cpu >= rd->st->ncpus)
		return -ENOENT;
	sm = &rd->st->sm[cpu];
	pub = atomic_load_explicit(&sm->pub_end, memory_order_acquire);
	if (seq >= pub)
		return -ENOENT;
	if (!rd->d) {
		rd->d = decbuf_get((struct store *)rd->st);
		if (!rd->d)
			return -ENOMEM;
	}
	c = stream_ref(sm, &seq, false);
	if (!c)
		return -ENOENT;
	out->first_seq = c->first_seq;
	out->lo = (uint32_t)(seq - c->first_seq);
	out->n = (uint32_t)(pub - c->first_seq < c->n || c->raw ? pub - c->first_seq : c->n);
	out->row = rd->d->r.row;
	out->args = rd->d->r.args;
	if (c->raw) {
		const struct raw *r = c->raw;
		uint32_t a0 = r->row[out->lo].aoff;
		uint32_t a1 = r->row[out->n - 1].aoff + r->row[out->n - 1].nargs;

		/* rows below the published end are not written again: copy them */
		memcpy(&rd->d->r.row[out->lo], &r->row[out->lo],
		       (out->n - out->lo) * sizeof(r->row[0]));
		if (a1 > a0)
			memcpy(&rd->d->r.args[a0], &r->args[a0], (a1 - a0) * sizeof(r->args[0]));
		rd->uid = 0;
	} else {
		if (cols & STORE_COL_TS)
			mask |= DEC_TS;
		if (cols & STORE_COL_PID)
			mask |= DEC_PID;
		if (cols & STORE_COL_TYPE)
			mask |= DEC_META;
		if (cols & STORE_COL_ARGS)
			mask |= DEC_ALL & ~DEC_PID;
		if (rd->uid != c->uid)
			rd->cols = 0;
		if (mask & ~rd->cols) {
			chunk_decode(c, rd->d, mask | rd->cols);
			rd->uid = c->uid;
			rd->cols |= mask;
		}
	}
	chunk_put(c);
	return 0;
}

void store_chunk_event(const struct store_chunk_rd *rd, uint32_t i, unsigned int cpu,
		       struct ktop_event *out)
{
	raw_to_event(&rd->d->r, i, cpu, out);
}

/* ---- chunks as bytes ------------------------------------------------------------ */

size_t store_chunk_export_max(void)
{
	return chunk_export_max();
}

size_t store_chunk_export(const struct store *st, unsigned int cpu, uint64_t first_seq,
			  uint8_t *out)
{
	uint64_t seq = first_seq;
	struct chunk *c;
	size_t n = 0;

	if (cpu >= st->ncpus)
		return 0;
	c = stream_ref(&st->sm[cpu], &seq, false);
	if (!c)
		return 0;
	if (!c->raw && c->first_seq == first_seq)
		n = chunk_export(c, out);
	chunk_put(c);
	return n;
}

/* Writer: no open chunk in @sm (seal a partly filled one, drop an empty one). */
static int stream_close_open(struct stream *sm)
{
	struct chunk *o = sm->open;
	int ret;

	if (!o)
		return 0;
	if (sm->on && sm->on <= CHUNK_EVENTS) {
		ret = stream_seal(sm);
		if (ret)
			return ret;
	} else {
		pthread_mutex_lock(&sm->lock);
		sm->open = NULL;
		pthread_mutex_unlock(&sm->lock);
		chunk_put(o);
	}
	sm->on = CHUNK_EVENTS;
	sm->oa = 0;
	sm->wraw = NULL;
	return 0;
}

/* struct store_chunk_in is a struct chunk not in a stream yet. */
int store_chunk_import(const struct store *st, const uint8_t *in, size_t len,
		       struct store_chunk_in **out, char *why, size_t whylen)
{
	return chunk_import(st->schema, stacks_count(st->stacks), in, len, (struct chunk **)out,
			    why, whylen);
}

uint32_t store_chunk_in_events(const struct store_chunk_in *c)
{
	return ((const struct chunk *)c)->n;
}

void store_chunk_in_free(struct store_chunk_in *c)
{
	free(c);
}

int store_chunk_push(struct store *st, unsigned int cpu, struct store_chunk_in *ci, char *why,
		     size_t whylen)
{
	struct chunk *c = (struct chunk *)ci;
	struct stream *sm;
	int ret;

	if (cpu >= st->ncpus) {
		free(c);
		return -EINVAL;
	}
	sm = &st->sm[cpu];
	if (c->t_min < sm->last_ts) {
		snprintf(why, whylen, "chunk of CPU %u starts before the events it follows", cpu);
		free(c);
		return -EBADMSG;
	}
	ret = stream_close_open(sm);
	if (!ret) {
		c->first_seq = sm->end;
		ret = stream_push(sm, c);
	}
	if (ret) {
		snprintf(why, whylen, "out of memory");
		free(c);
		return ret;
	}
	sm->end += c->n;
	sm->last_ts = c->t_max;
	store_publish(st, cpu);
	if (store_over(st))
		store_evict(st);
	return 0;
}

int store_chunk_adopt(struct store *st, unsigned int cpu, const uint8_t *in, size_t len,
		      char *why, size_t whylen)
{
	struct store_chunk_in *c;
	int ret;

	if (cpu >= st->ncpus)
		return -EINVAL;
	ret = store_chunk_import(st, in, len, &c, why, whylen);
	if (ret)
		return ret;
	return store_chunk_push(st, cpu, c, why, whylen);
}
