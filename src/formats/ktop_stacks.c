// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The STACKS, EVSTK and STACKW blocks of .ktop files (ktop_stacks.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktop_stacks.h"
#include "store/stacks.h"
#include "store/store.h"

/* ---- payloads ------------------------------------------------------------ */

static void pl_reserve(struct snap_payload *b, size_t more)
{
	size_t cap;
	uint8_t *n;

	if (b->err || b->len + more <= b->cap)
		return;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + more)
		cap *= 2;
	n = realloc(b->p, cap);
	if (!n) {
		b->err = -ENOMEM;
		return;
	}
	b->p = n;
	b->cap = cap;
}

static void pl_var(struct snap_payload *b, uint64_t v)
{
	pl_reserve(b, 10);
	if (b->err)
		return;
	do {
		uint8_t c = v & 0x7f;

		v >>= 7;
		b->p[b->len++] = c | (v ? 0x80 : 0);
	} while (v);
}

static void pl_u64(struct snap_payload *b, uint64_t v)
{
	pl_reserve(b, 8);
	if (b->err)
		return;
	for (int i = 0; i < 8; i++)
		b->p[b->len++] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t zz(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

struct rd {
	const uint8_t	*p, *end;
	bool		bad;
};

static uint64_t rd_var(struct rd *r)
{
	uint64_t v = 0;

	for (unsigned int s = 0; s < 64; s += 7) {
		uint8_t c;

		if (r->p >= r->end) {
			r->bad = true;
			return 0;
		}
		c = *r->p++;
		v |= (uint64_t)(c & 0x7f) << s;
		if (!(c & 0x80))
			return v;
	}
	r->bad = true;
	return 0;
}

static uint64_t rd_u64(struct rd *r)
{
	uint64_t v = 0;

	if (r->end - r->p < 8) {
		r->bad = true;
		return 0;
	}
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += 8;
	return v;
}

/* ---- writer ---------------------------------------------------------------- */

struct snap_stk_w {
	uint32_t	sent;		/* stacks 1..sent were sent */
	uint32_t	named;		/* stacks 1..named have every frame named */
	uint64_t	wgen;		/* the off-CPU set's generation sent */
	bool		wsent;
};

struct snap_stk_w *snap_stk_w_new(void)
{
	return calloc(1, sizeof(struct snap_stk_w));
}

void snap_stk_w_free(struct snap_stk_w *sw)
{
	free(sw);
}

void snap_stk_w_name(struct snap_stk_w *sw, struct store *st)
{
	struct stacks *sk = store_stacks(st);
	uint32_t n = stacks_count(sk);
	struct stack_frame f;

	for (uint32_t id = sw->named + 1; id <= n; id++)
		for (unsigned int i = 0; !stacks_frame(sk, id, i, &f); i++)
			;
	sw->named = n;
}

bool snap_stk_w_pending(const struct snap_stk_w *sw)
{
	return sw->named > sw->sent;
}

uint32_t snap_stk_w_sent(const struct snap_stk_w *sw)
{
	return sw->sent;
}

int snap_stk_w_stacks(struct snap_stk_w *sw, struct store *st, struct snap_payload *out)
{
	struct stacks *sk = store_stacks(st);
	struct stack_info si;

	out->len = 0;
	if (sw->named <= sw->sent)
		return 0;
	pl_var(out, sw->named - sw->sent);
	for (uint32_t id = sw->sent + 1; id <= sw->named; id++) {
		unsigned int n;

		if (stacks_get(sk, id, &si))
			return -EINVAL;
		n = (unsigned int)si.nkern + si.nuser;
		pl_var(out, id);
		pl_var(out, si.flags);
		pl_var(out, si.tgid);
		pl_var(out, si.nkern);
		pl_var(out, si.nuser);
		for (unsigned int i = 0; i < n; i++)
			pl_u64(out, si.frames[i]);
		for (unsigned int i = 0; i < n; i++) {
			uint32_t name, mod;

			stacks_peek_name(sk, id, i, &name, &mod);
			pl_var(out, name);
			pl_var(out, mod);
		}
	}
	if (out->err)
		return out->err;
	sw->sent = sw->named;
	return 0;
}

int snap_stk_w_evstk(unsigned int cpu, const struct ktop_event *ev, size_t n,
		     struct snap_payload *out, uint32_t *max)
{
	uint32_t m = 0;

	out->len = 0;
	for (size_t i = 0; i < n; i++)
		if (ev[i].stack > m)
			m = ev[i].stack;
	*max = m;
	if (!m)
		return 0;
	pl_var(out, cpu);
	pl_var(out, n);
	for (size_t i = 0; i < n; i++)
		pl_var(out, ev[i].stack);
	return out->err;
}

int snap_stk_w_weights(struct snap_stk_w *sw, struct store *st, struct snap_payload *out,
		       uint32_t *max)
{
	struct stacks *sk = store_stacks(st);
	struct stack_weight *w;
	uint64_t gen;
	size_t n;

	out->len = 0;
	*max = 0;
	n = stacks_weights_get(sk, STACKS_W_OFFCPU, NULL, 0, &gen);
	if (sw->wsent ? gen == sw->wgen : !gen)
		return 0;
	w = malloc((n ? n : 1) * sizeof(*w));
	if (!w)
		return -ENOMEM;
	{
		size_t got = stacks_weights_get(sk, STACKS_W_OFFCPU, w, n, &gen);

		if (got < n)
			n = got;	/* replaced by a smaller set meanwhile */
	}
	pl_var(out, STACKS_W_OFFCPU);
	pl_var(out, n);
	for (size_t i = 0; i < n; i++) {
		pl_var(out, w[i].stack);
		pl_var(out, zz(w[i].pid));
		pl_var(out, w[i].count);
		pl_var(out, w[i].value);
		if (w[i].stack > *max)
			*max = w[i].stack;
	}
	free(w);
	if (out->err)
		return out->err;
	sw->wgen = gen;
	sw->wsent = true;
	return 0;
}

/* ---- reader ---------------------------------------------------------------- */

struct snap_stk_r {
	struct store	*st;
	uint32_t	*map;		/* file stack id -> store id */
	uint32_t	nmap;
	uint32_t	*pend;		/* EVSTK: ids for the next EVENTS block */
	size_t		npend;
	unsigned int	pend_cpu;
	bool		has_pend;
	bool		same_ids;	/* version 2: the store's ids are the file's */
};

struct snap_stk_r *snap_stk_r_new(struct store *st, bool same_ids)
{
	struct snap_stk_r *sr = calloc(1, sizeof(*sr));

	if (sr) {
		sr->st = st;
		sr->same_ids = same_ids;
	}
	return sr;
}

void snap_stk_r_free(struct snap_stk_r *sr)
{
	if (!sr)
		return;
	free(sr->map);
	free(sr->pend);
	free(sr);
}

static int rd_fail(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "corrupt stack block (%s)", what);
	return -EBADMSG;
}

/* A file stack id, mapped. Return: false when it was never sent. */
static bool map_id(const struct snap_stk_r *sr, uint64_t v, uint32_t *out)
{
	if (!v) {
		*out = 0;
		return true;
	}
	if (v >= sr->nmap || !sr->map[v])
		return false;
	*out = sr->map[v];
	return true;
}

static int rd_stacks(struct snap_stk_r *sr, struct rd *r, const uint32_t *strmap, uint32_t nstr,
		     char *err, size_t errlen)
{
	uint64_t frames[2 * STACK_MAX_FRAMES];
	struct stacks *sk = store_stacks(sr->st);
	uint64_t count = rd_var(r);

	if (r->bad || count > (uint64_t)(r->end - r->p))
		return rd_fail(err, errlen, "count");
	for (uint64_t k = 0; k < count; k++) {
		uint64_t id = rd_var(r), flags = rd_var(r), tgid = rd_var(r);
		uint64_t nk = rd_var(r), nu = rd_var(r);
		uint32_t sid;

		if (r->bad || !id || id > 64ull << 20 || flags > STACK_F_NAMES || tgid > UINT32_MAX ||
		    nk > STACK_MAX_FRAMES || nu > STACK_MAX_FRAMES || (!nk && !nu))
			return rd_fail(err, errlen, "header");
		for (uint64_t i = 0; i < nk + nu; i++) {
			frames[i] = rd_u64(r);
			if (flags & STACK_F_NAMES)
				frames[i] = frames[i] < nstr ? strmap[frames[i]] : UINT64_MAX;
			if (frames[i] == UINT64_MAX && (flags & STACK_F_NAMES))
				return rd_fail(err, errlen, "unknown frame string");
		}
		if (r->bad)
			return rd_fail(err, errlen, "frames");
		sid = stacks_intern(sk, frames, (unsigned int)nk, frames + nk, (unsigned int)nu,
				    (uint32_t)tgid, (unsigned int)flags, NULL);
		/* version 2: the chunks' stack column names it by the file's id */
		if (sr->same_ids && sid != id) {
			snprintf(err, errlen, "corrupt stack block (stack %llu %s)",
				 (unsigned long long)id, sid ? "repeats another" :
				 "does not fit in the stack table");
			return -EBADMSG;
		}
		if (id >= sr->nmap) {
			uint32_t n = (uint32_t)id + 1024, *m = realloc(sr->map, n * sizeof(*m));

			if (!m)
				return -ENOMEM;
			memset(m + sr->nmap, 0, (n - sr->nmap) * sizeof(*m));
			sr->map = m;
			sr->nmap = n;
		}
		sr->map[id] = sid;
		for (uint64_t i = 0; i < nk + nu; i++) {
			uint64_t name = rd_var(r), mod = rd_var(r);

			if (r->bad || name >= nstr || mod >= nstr)
				return rd_fail(err, errlen, "frame names");
			if (sid)
				stacks_set_name(sk, sid, (unsigned int)i, name ? strmap[name] : 0,
						mod ? strmap[mod] : 0);
		}
	}
	return 0;
}

static int rd_evstk(struct snap_stk_r *sr, struct rd *r, char *err, size_t errlen)
{
	uint64_t cpu = rd_var(r), n = rd_var(r);
	uint32_t *p;

	if (r->bad || n > 65536 || n > (uint64_t)(r->end - r->p) || cpu > UINT32_MAX)
		return rd_fail(err, errlen, "event stacks header");
	p = realloc(sr->pend, (n ? n : 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	sr->pend = p;
	for (uint64_t i = 0; i < n; i++)
		if (!map_id(sr, rd_var(r), &p[i]) || r->bad)
			return rd_fail(err, errlen, "an event names a stack not sent");
	sr->npend = n;
	sr->pend_cpu = (unsigned int)cpu;
	sr->has_pend = true;
	return 0;
}

static int rd_weights(struct snap_stk_r *sr, struct rd *r, char *err, size_t errlen)
{
	uint64_t set = rd_var(r), n = rd_var(r);
	struct stack_weight *w;
	int ret;

	if (r->bad || set >= STACKS_W_NR || n > (uint64_t)(r->end - r->p))
		return rd_fail(err, errlen, "weights header");
	w = malloc((n ? n : 1) * sizeof(*w));
	if (!w)
		return -ENOMEM;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t pid;

		if (!map_id(sr, rd_var(r), &w[i].stack) || !w[i].stack) {
			free(w);
			return rd_fail(err, errlen, "a weight names a stack not sent");
		}
		pid = rd_var(r);
		w[i].pid = (int32_t)((pid >> 1) ^ -(pid & 1));
		w[i].count = rd_var(r);
		w[i].value = rd_var(r);
	}
	if (r->bad) {
		free(w);
		return rd_fail(err, errlen, "weights");
	}
	ret = stacks_weights_set(store_stacks(sr->st), (enum stacks_wset)set, w, n);
	free(w);
	return ret;
}

int snap_stk_r_block(struct snap_stk_r *sr, unsigned int type, const uint8_t *p, size_t len,
		     const uint32_t *strmap, uint32_t nstr, char *err, size_t errlen)
{
	struct rd r = { p, p + len, false };

	switch (type) {
	case SNAP_BLK_STACKS:
		return rd_stacks(sr, &r, strmap, nstr, err, errlen);
	case SNAP_BLK_EVSTK:
		return rd_evstk(sr, &r, err, errlen);
	case SNAP_BLK_STACKW:
		return rd_weights(sr, &r, err, errlen);
	}
	return rd_fail(err, errlen, "type");
}

const uint32_t *snap_stk_r_events(struct snap_stk_r *sr, unsigned int cpu, size_t n)
{
	bool match = sr && sr->has_pend && sr->pend_cpu == cpu && sr->npend == n;

	if (sr)
		sr->has_pend = false;
	return match ? sr->pend : NULL;
}
