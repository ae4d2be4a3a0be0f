// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The stack column of a sealed chunk (store.c: events with a stack give a
 * chunk one more column): encoding it, decoding it, and checking the column
 * of a chunk that comes from a file.
 *
 * The column, after the counts: uv(nstk * 2 + direct), then with a
 * dictionary (direct 0) its nstk stack ids and the runs of indices into it
 * (put_run), or (direct 1) the runs of the ids themselves, whichever is
 * smaller: a chunk whose events share a few stacks takes a byte per run, one
 * whose stacks are all different (no dictionary pays) about two. A chunk
 * without stacks has no column (nstk 0).
 */
#include <stdint.h>

#include "store-local.h"

/* A stack id's index in the chunk's stack dictionary, added if new. */
static uint32_t enc_stk(struct enc *e, uint32_t id)
{
	struct enc_slot *sl = enc_slot_find(e->sh, STK_HASH_BITS, e->stamp, id);

	if (sl->stamp == e->stamp)
		return sl->idx;
	*sl = (struct enc_slot){ .key = id, .stamp = e->stamp, .idx = e->nstk };
	e->stks[e->nstk] = id;
	return e->nstk++;
}

static inline unsigned int uv_size(uint64_t v)
{
	return v < 0x80 ? 1 : uv_len[63 ^ __builtin_clzll(v)];
}

/* The direct form: runs of the ids themselves. */
static uint8_t *enc_stacks_direct(uint8_t *p, const struct raw *r, uint32_t n)
{
	uint32_t ss = 0;

	for (uint32_t i = 1; i <= n; i++) {
		if (i < n && r->row[i].stack == r->row[i - 1].stack)
			continue;
		p = put_uv(p, (uint64_t)r->row[i - 1].stack * 2 + (i - ss > 1));
		if (i - ss > 1)
			p = put_uv(p, i - ss - 2);
		ss = i;
	}
	return p;
}

uint8_t *chunk_encode_stacks(struct enc *e, uint8_t *p, const struct raw *r, uint32_t n)
{
	uint8_t *sc = e->scol;
	uint32_t ls, ss = 0, lid = r->row[0].stack;
	size_t direct = 0, dict;

	e->nstk = 0;
	ls = enc_stk(e, lid);
	for (uint32_t i = 1; i <= n; i++) {
		uint32_t run = i - ss;

		if (i < n && r->row[i].stack == lid)
			continue;
		sc = put_run(sc, (uint16_t)ls, run);
		direct += uv_size((uint64_t)lid * 2 + (run > 1)) + (run > 1 ? uv_size(run - 2) : 0);
		if (i == n)
			break;
		lid = r->row[i].stack;
		ls = enc_stk(e, lid);
		ss = i;
	}
	dict = sc - e->scol;
	for (uint32_t i = 0; i < e->nstk; i++)
		dict += uv_size(e->stks[i]);
	if (direct < dict) {
		p = put_uv(p, (uint64_t)e->nstk * 2 + 1);
		return enc_stacks_direct(p, r, n);
	}
	p = put_uv(p, (uint64_t)e->nstk * 2);
	for (uint32_t i = 0; i < e->nstk; i++)
		p = put_uv(p, e->stks[i]);
	memcpy(p, e->scol, sc - e->scol);
	return p + (sc - e->scol);
}

void chunk_decode_stacks(const struct chunk *c, struct decbuf *d)
{
	struct raw *r = &d->r;
	const uint8_t *p = c->data + c->off_stk;
	uint32_t i = 0;
	uint64_t v;

	if (!c->nstk) {
		for (i = 0; i < c->n; i++)
			r->row[i].stack = 0;
		return;
	}
	p = get_uv(p, &v);
	if (v & 1) {
		/* runs of ids, as get_rle() reads runs of indices */
		while (i < c->n) {
			uint64_t id, run = 1;

			p = get_uv(p, &id);
			if (id & 1) {
				p = get_uv(p, &run);
				run += 2;
			}
			for (uint64_t k = 0; k < run && i < c->n; k++)
				r->row[i++].stack = (uint32_t)(id >> 1);
		}
		return;
	}
	for (i = 0; i < c->nstk; i++) {
		p = get_uv(p, &v);
		d->stks[i] = (uint32_t)v;
	}
	get_rle(p, d->sidx, c->n);
	for (i = 0; i < c->n; i++)
		r->row[i].stack = d->sidx[i] < c->nstk ? d->stks[d->sidx[i]] : 0;
}

/* The runs of a stack column: @n events, values below @max (ids, or indices). */
static const uint8_t *check_stack_runs(const uint8_t *p, const uint8_t *end, uint32_t n,
				       uint64_t max)
{
	uint32_t i = 0;

	while (i < n) {
		uint64_t v, run = 1;

		p = get_uv_in(p, end, &v);
		if (p && (v & 1)) {
			p = get_uv_in(p, end, &run);
			run += 2;
		}
		if (!p || v >> 1 >= max || run > n - i)
			return NULL;
		i += (uint32_t)run;
	}
	return p;
}

const char *chunk_check_stacks(const struct chunk *c, uint32_t max_id)
{
	const uint8_t *p = c->data + c->off_stk, *end = c->data + c->len;
	uint64_t v;

	if (!c->nstk)
		return p == end ? NULL : "stack column without stacks";
	if (c->nstk > c->n)
		return "more stacks than events";
	p = get_uv_in(p, end, &v);
	if (!p || v >> 1 != c->nstk)
		return "stack column header";
	if (v & 1) {
		p = check_stack_runs(p, end, c->n, (uint64_t)max_id + 1);
	} else {
		for (uint32_t i = 0; i < c->nstk && p; i++) {
			p = get_uv_in(p, end, &v);
			if (p && v > max_id)
				return "a stack the file did not define";
		}
		p = p ? check_stack_runs(p, end, c->n, c->nstk) : NULL;
	}
	if (!p)
		return "stack column: a stack the file did not define, or bad runs";
	return p == end ? NULL : "stack column: bytes too many";
}
