// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Sealed chunks of the store: encoding the rows of a full chunk into columns
 * (store.c explains the codecs), decoding them back for readers.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/err.h"
#include "schema.h"
#include "store-local.h"

static _Atomic uint64_t chunk_uid_next = 1;

uint64_t chunk_uid_new(void)
{
	return atomic_fetch_add_explicit(&chunk_uid_next, 1, memory_order_relaxed);
}

static const uint8_t fixed_codec[KTOP_T_NR_FIXED][KTOP_MAX_ARGS] = {
	[KTOP_T_FUNCTION]		= { C_UV, C_UV },
	[KTOP_T_FGRAPH_ENTRY]		= { C_UV, C_DPREV },
	[KTOP_T_FGRAPH_EXIT]		= { C_UV, C_DPREV, C_DTS, C_DTS, C_UV },
	[KTOP_T_FUNC_REPEATS]		= { C_UV, C_UV, C_UV, C_UV },
	[KTOP_T_SCHED_SWITCH]		= { C_UV, C_PID, C_DPREV, C_UV, C_UV, C_PID, C_DPREV },
	[KTOP_T_SCHED_WAKEUP]		= { C_UV, C_PID, C_DPREV, C_DPREV },
	[KTOP_T_SCHED_WAKEUP_NEW]	= { C_UV, C_PID, C_DPREV, C_DPREV },
	[KTOP_T_SCHED_PROCESS_EXEC]	= { C_UV, C_PID, C_PID },
	[KTOP_T_SCHED_PROCESS_EXIT]	= { C_UV, C_PID, C_DPREV },
	[KTOP_T_IRQ_HANDLER_ENTRY]	= { C_DPREV, C_UV },
	[KTOP_T_IRQ_HANDLER_EXIT]	= { C_DPREV, C_ZZ },
	[KTOP_T_SYS_EXIT]		= { C_DPREV, C_ZZ },
	[KTOP_T_OSNOISE]		= { C_DPREV, C_UV, C_UV, C_UV, C_UV, C_UV, C_UV, C_UV },
	[KTOP_T_TIMERLAT]		= { C_DPREV, C_UV, C_UV },
	[KTOP_T_IRQ_NOISE]		= { C_DTS, C_UV, C_UV, C_DPREV },
	[KTOP_T_SOFTIRQ_NOISE]		= { C_DTS, C_UV, C_DPREV },
	[KTOP_T_NMI_NOISE]		= { C_DTS, C_UV },
	[KTOP_T_THREAD_NOISE]		= { C_UV, C_PID, C_DTS, C_UV },
	[KTOP_T_SAMPLE_THRESHOLD]	= { C_DTS, C_UV, C_UV },
	[KTOP_T_MARKER]			= { C_UV },
};

/* The argument count of each fixed type (src/store/event.h), for enc_args()'s unrolled cases. */
static const uint8_t fixed_nargs[KTOP_T_NR_FIXED] = {
	[KTOP_T_FUNCTION] = 2, [KTOP_T_FGRAPH_ENTRY] = 2, [KTOP_T_FGRAPH_EXIT] = 5,
	[KTOP_T_FUNC_REPEATS] = 4, [KTOP_T_SCHED_SWITCH] = 7, [KTOP_T_SCHED_WAKEUP] = 4,
	[KTOP_T_SCHED_WAKEUP_NEW] = 4, [KTOP_T_SCHED_PROCESS_EXEC] = 3,
	[KTOP_T_SCHED_PROCESS_EXIT] = 3, [KTOP_T_IRQ_HANDLER_ENTRY] = 2,
	[KTOP_T_IRQ_HANDLER_EXIT] = 2, [KTOP_T_SOFTIRQ_ENTRY] = 1, [KTOP_T_SOFTIRQ_EXIT] = 1,
	[KTOP_T_SYS_ENTER] = 7, [KTOP_T_SYS_EXIT] = 2, [KTOP_T_OSNOISE] = 8,
	[KTOP_T_TIMERLAT] = 3, [KTOP_T_IRQ_NOISE] = 4, [KTOP_T_SOFTIRQ_NOISE] = 3,
	[KTOP_T_NMI_NOISE] = 2, [KTOP_T_THREAD_NOISE] = 4, [KTOP_T_SAMPLE_THRESHOLD] = 3,
	[KTOP_T_MARKER] = 1,
};

/* ---- encoding (writer) ------------------------------------------------------ */

static uint32_t enc_pid(struct enc *e, int32_t pid)
{
	struct enc_slot *sl = enc_slot_find(e->ph, PID_HASH_BITS, e->stamp, (uint32_t)pid);

	if (sl->stamp == e->stamp)
		return sl->idx;
	if (e->npid == PID_DICT_MAX)
		return UINT32_MAX;
	*sl = (struct enc_slot){ .key = (uint32_t)pid, .stamp = e->stamp, .idx = e->npid };
	e->pids[e->npid] = pid;
	return e->npid++;
}

static void meta_masks(struct meta *m)
{
	m->kind = MK_GENERIC;
	m->m_ts = m->m_prev = m->m_zz = m->m_pid = 0;
	for (unsigned int s = 0; s < m->nargs; s++) {
		uint16_t b = 1u << s;

		switch (m->codec[s]) {
		case C_UV:
			break;
		case C_ZZ:
			m->m_zz |= b;
			break;
		case C_DTS:
			m->m_zz |= b;
			m->m_ts |= b;
			break;
		case C_PID:
			m->m_pid |= b;
			break;
		default:
			m->m_zz |= b;
			m->m_prev |= b;
			break;
		}
	}
	if (m->type == KTOP_T_FUNCTION && m->nargs == 2)
		m->kind = MK_FUNC2;
	else if (m->type == KTOP_T_SYS_ENTER && m->nargs == 7)
		m->kind = MK_SYS7;
	else if (m->type < KTOP_T_NR_FIXED && m->type != KTOP_T_SYS_ENTER &&
		 m->nargs == fixed_nargs[m->type])
		m->kind = MK_FIXED;
	else if (!m->m_pid && m->type != KTOP_T_SYS_ENTER)
		m->kind = MK_MASKED;
}

/* Per codec: is the base the event's ts, the previous value; is it zigzag. */
static const uint64_t codec_ts[8] = { [C_DTS] = ~0ull };
static const uint64_t codec_prev[8] = { [C_DPREV] = ~0ull };
static const uint64_t codec_zz[8] = { [C_DPREV] = ~0ull, [C_ZZ] = ~0ull, [C_DTS] = ~0ull };

static void meta_codecs(struct store *st, struct meta *m)
{
	const struct ktop_schema_type *t = NULL;

	memset(m->codec, C_DPREV, sizeof(m->codec));
	if (m->type < KTOP_T_NR_FIXED) {
		memcpy(m->codec, fixed_codec[m->type], sizeof(m->codec));
	} else {
		t = schema_get(st->schema, m->type);
		for (unsigned int i = 0; t && i < t->nfields && i < KTOP_MAX_ARGS; i++)
			if (t->fields[i].kind == KTOP_FK_STR || t->fields[i].kind == KTOP_FK_SYM)
				m->codec[i] = C_UV;
	}
	meta_masks(m);
}

/* type, flags, pc and nargs in one word */
static inline uint64_t row_meta_key(const struct store_brow *w)
{
	return w->type | (uint64_t)w->flags << 16 | (uint64_t)w->pc << 24 |
	       (uint64_t)w->nargs << 32;
}

/* The meta hash, behind enc_meta()'s cache: @key is not in @mc. */
static __attribute__((noinline)) uint32_t
enc_meta_lookup(struct store *st, struct enc *e, const struct raw *r, uint32_t i, uint64_t key,
		uint64_t hk, uint64_t *mc)
{
	uint32_t h = (uint32_t)(hk >> (64 - 12));

	for (;;) {
		if (e->mh[h].stamp != e->stamp) {
			struct meta *m = &e->metas[e->nmeta];

			e->mh[h].stamp = e->stamp;
			e->mh[h].key = key;
			e->mh[h].idx = e->nmeta;
			m->type = r->row[i].type;
			m->flags = r->row[i].flags;
			m->pc = r->row[i].pc;
			m->nargs = r->row[i].nargs;
			meta_codecs(st, m);
			if (e->prev_stamp[prev_slot(m->type)] != e->stamp) {
				e->prev_stamp[prev_slot(m->type)] = e->stamp;
				memset(e->prev[prev_slot(m->type)], 0, sizeof(e->prev[0]));
				if (m->type == KTOP_T_SYS_ENTER)
					memset(e->prev[PREV_TYPES], 0,
					       PREV_SYS * sizeof(e->prev[0]));
			}
			*mc = key << 16 | (e->nmeta + 1);
			return e->nmeta++;
		}
		if (e->mh[h].key == key) {
			*mc = key << 16 | (e->mh[h].idx + 1);
			return e->mh[h].idx;
		}
		h = (h + 1) & (META_HASH - 1);
	}
}

/* Return: the index of row @i's meta in the chunk's dictionary, added if new. */
static inline uint32_t enc_meta(struct store *st, struct enc *e, const struct raw *r, uint32_t i)
{
	uint64_t key = row_meta_key(&r->row[i]), hk = key * 0x9e3779b97f4a7c15ull;
	uint64_t *mc = &e->mc[hk >> (64 - 8)];

	if (*mc >> 16 == key && (*mc & 0xffff))
		return (*mc & 0xffff) - 1;
	return enc_meta_lookup(st, e, r, i, key, hk, mc);
}

/* A pid argument: its index in the dictionary + 1, or 0 and the value. */
static inline uint8_t *enc_pid_arg(struct enc *e, uint8_t *p, uint64_t v)
{
	uint32_t idx = UINT32_MAX;

	if (v == (uint64_t)(int64_t)(int32_t)v)
		idx = enc_pid(e, (int32_t)v);
	if (idx != UINT32_MAX)
		return put_uv(p, idx + 1);
	*p++ = 0;
	return put_uv(p, zz_enc(v));
}

/*
 * The arguments of one event, slot by slot, as @codec says (sys_enter's
 * per-syscall rows aside). With a constant @codec and @na, as in enc_args()'s
 * MK_FIXED cases, this unrolls into straight code.
 */
static inline __attribute__((always_inline)) uint8_t *
enc_slots(struct enc *e, uint8_t *p, const uint64_t *a, uint64_t *prev, uint64_t ts,
	  const uint8_t *codec, unsigned int na)
{
	for (unsigned int s = 0; s < na; s++) {
		uint64_t v = a[s];

		switch (codec[s]) {
		case C_UV:
			p = put_uv(p, v);
			break;
		case C_ZZ:
			p = put_uv(p, zz_enc(v));
			break;
		case C_DTS:
			p = put_uv(p, zz_enc(v - ts));
			break;
		case C_PID:
			p = enc_pid_arg(e, p, v);
			continue;	/* pids do not update prev */
		default:
			p = put_uv(p, zz_enc(v - prev[s]));
			break;
		}
		prev[s] = v;
	}
	return p;
}

#define ENC_FIXED(t)	\
	case t:		\
		p = enc_slots(e, p, a, prev, ts, fixed_codec[t], fixed_nargs[t]); \
		break

/*
 * Arguments, event by event. Each value is coded as put_uv(zz?(v - base))
 * where base is the event's ts (C_DTS), the previous value of the slot
 * (C_DPREV) or 0, selected with masks; pids go through the dictionary.
 */
static uint8_t *enc_args(struct enc *e, uint8_t *p, const struct raw *r, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct meta *m = &e->metas[e->midx[i]];
		const uint64_t *a = &r->args[r->row[i].aoff];
		unsigned int na = m->nargs;
		const uint8_t *codec;
		uint64_t ts, *prev;

		switch (m->kind) {
		case MK_FUNC2:
			/* the most frequent events, without the generic loop */
			p = put_uv(p, a[0]);
			p = put_uv(p, a[1]);
			continue;
		case MK_SYS7:
			prev = e->prev[prev_slot(KTOP_T_SYS_ENTER)];
			p = put_uv(p, zz_enc(a[0] - prev[0]));
			prev[0] = a[0];
			prev = e->prev[prev_sys_slot(a[0])];
#pragma GCC unroll 6
			for (unsigned int s = 1; s < 7; s++) {
				p = put_uv(p, zz_enc(a[s] - prev[s]));
				prev[s] = a[s];
			}
			continue;
		case MK_MASKED:
			/* the switch below, as masks: v - (ts | prev | 0), zigzag or not */
			prev = e->prev[prev_slot(m->type)];
			ts = r->row[i].ts;
			for (unsigned int s = 0; s < na; s++) {
				uint64_t v = a[s], d, zm;

				d = v - ((ts & -(uint64_t)((m->m_ts >> s) & 1)) |
					 (prev[s] & -(uint64_t)((m->m_prev >> s) & 1)));
				zm = -(uint64_t)((m->m_zz >> s) & 1);
				p = put_uv(p, (zz_enc(d) & zm) | (d & ~zm));
				prev[s] = v;
			}
			continue;
		case MK_FIXED:
			prev = e->prev[prev_slot(m->type)];
			ts = r->row[i].ts;
			switch (m->type) {
			ENC_FIXED(KTOP_T_FGRAPH_ENTRY);
			ENC_FIXED(KTOP_T_FGRAPH_EXIT);
			ENC_FIXED(KTOP_T_FUNC_REPEATS);
			ENC_FIXED(KTOP_T_SCHED_SWITCH);
			ENC_FIXED(KTOP_T_SCHED_WAKEUP);
			ENC_FIXED(KTOP_T_SCHED_WAKEUP_NEW);
			ENC_FIXED(KTOP_T_SCHED_PROCESS_EXEC);
			ENC_FIXED(KTOP_T_SCHED_PROCESS_EXIT);
			ENC_FIXED(KTOP_T_IRQ_HANDLER_ENTRY);
			ENC_FIXED(KTOP_T_IRQ_HANDLER_EXIT);
			ENC_FIXED(KTOP_T_SOFTIRQ_ENTRY);
			ENC_FIXED(KTOP_T_SOFTIRQ_EXIT);
			ENC_FIXED(KTOP_T_SYS_EXIT);
			ENC_FIXED(KTOP_T_OSNOISE);
			ENC_FIXED(KTOP_T_TIMERLAT);
			ENC_FIXED(KTOP_T_IRQ_NOISE);
			ENC_FIXED(KTOP_T_SOFTIRQ_NOISE);
			ENC_FIXED(KTOP_T_NMI_NOISE);
			ENC_FIXED(KTOP_T_THREAD_NOISE);
			ENC_FIXED(KTOP_T_SAMPLE_THRESHOLD);
			ENC_FIXED(KTOP_T_MARKER);
			default:
				p = enc_slots(e, p, a, prev, ts, m->codec, na);
				break;
			}
			continue;
		default:
			break;
		}
		prev = e->prev[prev_slot(m->type)];
		codec = m->codec;
		ts = r->row[i].ts;

		if (m->type == KTOP_T_SYS_ENTER && na) {
			/* the id first; the other slots run on that syscall's own row */
			p = enc_slots(e, p, a, prev, ts, codec, 1);
			p = enc_slots(e, p, a + 1, e->prev[prev_sys_slot(a[0])] + 1, ts, codec + 1,
				      na - 1);
		} else {
			p = enc_slots(e, p, a, prev, ts, codec, na);
		}
	}
	return p;
}

/*
 * One pass over the rows: the time column at @p, the pid and meta index
 * columns run-length coded into e->pcol and e->mcol (their ends in *@pend and
 * *@mend), the events per pid and meta in e->pcnt and e->mcnt.
 * Return: the end of the time column.
 */
static uint8_t *enc_rows(struct store *st, struct enc *e, const struct raw *r, uint32_t n,
			 uint8_t *p, uint8_t **pend, uint8_t **mend)
{
	uint8_t *pc = e->pcol, *mc = e->mcol;
	uint32_t m2 = 0, lp, lm, ps = 0, ms = 0;
	uint64_t k1, k2 = UINT64_MAX;

	lp = enc_pid(e, r->row[0].pid);
	lm = e->midx[0] = enc_meta(st, e, r, 0);
	e->any_stack = r->row[0].stack;
	/*
	 * k1, k2: the last two metas seen, most recent first: events often
	 * alternate between two (sys_enter and sys_exit), which then needs no
	 * hash lookup.
	 */
	k1 = row_meta_key(&r->row[0]);
	/* ps, ms: where the current runs of pid and meta indices started */
	for (uint32_t i = 1; i < n; i++) {
		const struct store_brow *w = &r->row[i], *v = &r->row[i - 1];
		uint64_t key = row_meta_key(w);

		p = put_uv(p, w->ts - v->ts);
		e->any_stack |= w->stack;
		/* always fits: n <= PID_DICT_MAX; pids and metas come in runs */
		if (w->pid != v->pid) {
			uint32_t np = enc_pid(e, w->pid);

			if ((uint16_t)np != (uint16_t)lp) {
				pc = put_run(pc, lp, i - ps);
				e->pcnt[lp] += i - ps;
				ps = i;
			}
			lp = np;
		}
		if (key != k1) {
			uint32_t m1 = lm;

			lm = key == k2 ? m2 : enc_meta(st, e, r, i);
			k2 = k1;
			m2 = m1;
			k1 = key;
			if ((uint16_t)lm != (uint16_t)m1) {
				mc = put_run(mc, m1, i - ms);
				e->mcnt[m1] += i - ms;
				ms = i;
			}
		}
		e->midx[i] = lm;
	}
	*pend = put_run(pc, lp, n - ps);
	*mend = put_run(mc, lm, n - ms);
	e->pcnt[lp] += n - ps;
	e->mcnt[lm] += n - ms;
	return p;
}

/* The pid and meta dictionaries, then the counts (@npid_rows pids have one). */
static uint8_t *enc_dicts(struct enc *e, uint8_t *p, uint32_t npid_rows, uint32_t *off_mdict,
			  uint32_t *off_cnt)
{
	for (uint32_t i = 0; i < e->npid; i++)
		p = put_uv(p, zz_enc((uint64_t)(int64_t)e->pids[i]));
	*off_mdict = p - e->buf;
	for (uint32_t i = 0; i < e->nmeta; i++) {
		const struct meta *m = &e->metas[i];

		p = put_uv(p, m->type);
		*p++ = m->flags;
		*p++ = m->pc;
		*p++ = m->nargs;
		for (unsigned int s = 0; s < m->nargs; s += 2)
			*p++ = m->codec[s] | m->codec[s + 1] << 4;
	}
	/* the counts: a window that covers the chunk is counted without a decode */
	*off_cnt = p - e->buf;
	for (uint32_t i = 0; i < npid_rows; i++) {
		p = put_uv(p, e->pcnt[i]);
		e->pcnt[i] = 0;
	}
	for (uint32_t i = 0; i < e->nmeta; i++) {
		p = put_uv(p, e->mcnt[i]);
		e->mcnt[i] = 0;
	}
	return p;
}

struct chunk *chunk_alloc(size_t len)
{
	/* + 8: get_uv() loads 8 bytes from the start of each value */
	struct chunk *c = malloc(sizeof(*c) + len + 8);

	if (!c)
		return NULL;
	memset(c, 0, sizeof(*c));
	memset(c->data + len, 0, 8);
	atomic_init(&c->refs, 1);
	c->uid = chunk_uid_new();
	c->bytes = sizeof(*c) + len + 8;
	c->len = len;
	return c;
}

struct chunk *chunk_encode(struct store *st, struct enc *e, const struct raw *r, uint32_t n,
			   uint64_t first_seq)
{
	uint8_t *p = e->buf, *pc, *mc;
	struct chunk c0, *c;

	if (++e->stamp == 0) {
		memset(e->ph, 0, sizeof(e->ph));
		memset(e->sh, 0, sizeof(e->sh));
		memset(e->mh, 0, sizeof(e->mh));
		e->stamp = 1;
	}
	e->npid = 0;
	e->nmeta = 0;
	memset(e->mc, 0, sizeof(e->mc));
	p = enc_rows(st, e, r, n, p, &pc, &mc);
	c0.npid_rows = e->npid;	/* enc_args() adds pids met only as arguments */
	c0.off_pid = p - e->buf;
	memcpy(p, e->pcol, pc - e->pcol);
	p += pc - e->pcol;
	c0.off_meta = p - e->buf;
	memcpy(p, e->mcol, mc - e->mcol);
	p += mc - e->mcol;
	c0.off_args = p - e->buf;
	p = enc_args(e, p, r, n);
	c0.off_pdict = p - e->buf;
	p = enc_dicts(e, p, c0.npid_rows, &c0.off_mdict, &c0.off_cnt);
	c0.off_stk = p - e->buf;
	e->nstk = 0;
	if (e->any_stack)
		p = chunk_encode_stacks(e, p, r, n);
	c = chunk_alloc(p - e->buf);
	if (!c)
		return NULL;
	memcpy(c->data, e->buf, c->len);
	c->n = n;
	c->first_seq = first_seq;
	c->t_min = r->row[0].ts;
	c->t_max = r->row[n - 1].ts;
	c->npid = e->npid;
	c->nmeta = e->nmeta;
	c->npid_rows = c0.npid_rows;
	c->off_pid = c0.off_pid;
	c->off_meta = c0.off_meta;
	c->off_args = c0.off_args;
	c->off_pdict = c0.off_pdict;
	c->off_mdict = c0.off_mdict;
	c->off_cnt = c0.off_cnt;
	c->off_stk = c0.off_stk;
	c->nstk = e->nstk;
	return c;
}

/* ---- decoding (readers) ------------------------------------------------------ */

/* Decode the time column into ts[0], ts[stride], ... */
void chunk_decode_ts(const struct chunk *c, uint64_t *ts, size_t stride)
{
	const uint8_t *p = c->data;
	uint64_t t = c->t_min;

	ts[0] = t;
	for (uint32_t i = 1; i < c->n; i++) {
		uint64_t dt;

		p = get_uv(p, &dt);
		t += dt;
		ts[i * stride] = t;
	}
}

/* Read one entry of a sealed chunk's meta dictionary (chunk_encode) into @m. Return: past it. */
const uint8_t *chunk_get_meta(const uint8_t *p, struct meta *m)
{
	uint64_t v;

	p = get_uv(p, &v);
	m->type = (uint16_t)v;
	m->flags = *p++;
	m->pc = *p++;
	m->nargs = *p++;
	for (unsigned int s = 0; s < m->nargs; s += 2) {
		m->codec[s] = *p & 0xf;
		if (s + 1 < KTOP_MAX_ARGS)
			m->codec[s + 1] = *p >> 4;
		p++;
	}
	return p;
}

void chunk_decode(const struct chunk *c, struct decbuf *d, unsigned int mask)
{
	struct raw *r = &d->r;
	const uint8_t *p;
	uint32_t n = c->n;

	if (mask & DEC_ARGS)
		mask |= DEC_TS | DEC_META;
	if (mask & DEC_TS)
		chunk_decode_ts(c, &r->row[0].ts, sizeof(struct store_brow) / sizeof(uint64_t));
	if (mask & DEC_STACK)
		chunk_decode_stacks(c, d);
	if (mask & DEC_PID) {
		p = c->data + c->off_pdict;
		for (uint32_t i = 0; i < c->npid; i++) {
			uint64_t v;

			p = get_uv(p, &v);
			d->pids[i] = (int32_t)zz_dec(v);
		}
		get_rle(c->data + c->off_pid, d->pidx, n);
		for (uint32_t i = 0; i < n; i++)
			r->row[i].pid = d->pids[d->pidx[i]];
	}
	if (mask & DEC_META) {
		p = c->data + c->off_mdict;
		for (uint32_t i = 0; i < c->nmeta; i++) {
			p = chunk_get_meta(p, &d->metas[i]);
			meta_masks(&d->metas[i]);
		}
		get_rle(c->data + c->off_meta, d->midx, n);
		for (uint32_t i = 0; i < n; i++) {
			const struct meta *m = &d->metas[d->midx[i]];

			r->row[i].type = m->type;
			r->row[i].flags = m->flags;
			r->row[i].pc = m->pc;
			r->row[i].nargs = m->nargs;
		}
	}
	if (mask & DEC_ARGS) {
		uint64_t prev[PREV_ROWS][KTOP_MAX_ARGS];
		uint8_t used[PREV_TYPES] = { 0 };
		uint32_t a = 0;

		if (!(mask & DEC_PID)) {
			p = c->data + c->off_pdict;
			for (uint32_t i = 0; i < c->npid; i++) {
				uint64_t v;

				p = get_uv(p, &v);
				d->pids[i] = (int32_t)zz_dec(v);
			}
		}
		for (uint32_t i = 0; i < c->nmeta; i++) {
			unsigned int slot = prev_slot(d->metas[i].type);

			if (!used[slot]) {
				used[slot] = 1;
				memset(prev[slot], 0, sizeof(prev[slot]));
				if (d->metas[i].type == KTOP_T_SYS_ENTER)
					memset(prev[PREV_TYPES], 0, PREV_SYS * sizeof(prev[0]));
			}
		}
		p = c->data + c->off_args;
		for (uint32_t i = 0; i < n; i++) {
			const struct meta *m = &d->metas[d->midx[i]];
			uint64_t *pv, *out = &r->args[a];
			unsigned int na = m->nargs;
			uint64_t ts;

			r->row[i].aoff = a;
			a += na;
			if (m->type == KTOP_T_FUNCTION && na == 2) {
				p = get_uv(p, &out[0]);
				p = get_uv(p, &out[1]);
				continue;
			}
			pv = prev[prev_slot(m->type)];
			if (m->type == KTOP_T_SYS_ENTER && na == 7) {
				uint64_t v;

				p = get_uv(p, &v);
				out[0] = pv[0] = zz_dec(v) + pv[0];
				pv = prev[prev_sys_slot(out[0])];
				for (unsigned int s = 1; s < 7; s++) {
					p = get_uv(p, &v);
					out[s] = pv[s] = zz_dec(v) + pv[s];
				}
				continue;
			}
			ts = r->row[i].ts;
			for (unsigned int s = 0; s < na; s++) {
				uint64_t v, zm;
				unsigned int k;

				p = get_uv(p, &v);
				if (__builtin_expect((m->m_pid >> s) & 1, 0)) {
					if (v) {
						v = (uint64_t)(int64_t)d->pids[v - 1];
					} else {
						p = get_uv(p, &v);
						v = zz_dec(v);
					}
					out[s] = v;
					continue;
				}
				k = m->codec[s];
				zm = codec_zz[k];
				v = (zz_dec(v) & zm) | (v & ~zm);
				v += (ts & codec_ts[k]) | (pv[s] & codec_prev[k]);
				pv[s] = v;
				out[s] = v;
				if (!s && m->type == KTOP_T_SYS_ENTER)
					pv = prev[prev_sys_slot(v)];
			}
		}
	}
}

/* ---- a sealed chunk as bytes ----------------------------------------------------- */

/*
 * The header of an exported chunk: the layout, then prefix varints: n,
 * t_min, t_max - t_min, npid, nmeta, npid_rows, nstk, and the sizes of the
 * sections of the data in their order (time, pid runs, meta runs, arguments,
 * pid dictionary, meta dictionary, counts, stacks). The data follows as it is.
 */
#define XHDR_FIXED	7
#define XHDR_SECTIONS	8
#define XHDR_VALUES	(XHDR_FIXED + XHDR_SECTIONS)
#define XHDR_MAX	(1 + XHDR_VALUES * 9)

size_t chunk_export_max(void)
{
	return XHDR_MAX + ENC_BUF_SIZE + 16;
}

size_t chunk_export(const struct chunk *c, uint8_t *out)
{
	uint8_t *p = out;

	*p++ = STORE_CHUNK_LAYOUT;
	p = put_uv(p, c->n);
	p = put_uv(p, c->t_min);
	p = put_uv(p, c->t_max - c->t_min);
	p = put_uv(p, c->npid);
	p = put_uv(p, c->nmeta);
	p = put_uv(p, c->npid_rows);
	p = put_uv(p, c->nstk);
	p = put_uv(p, c->off_pid);
	p = put_uv(p, c->off_meta - c->off_pid);
	p = put_uv(p, c->off_args - c->off_meta);
	p = put_uv(p, c->off_pdict - c->off_args);
	p = put_uv(p, c->off_mdict - c->off_pdict);
	p = put_uv(p, c->off_cnt - c->off_mdict);
	p = put_uv(p, c->off_stk - c->off_cnt);
	p = put_uv(p, c->len - c->off_stk);
	memcpy(p, c->data, c->len);
	return (size_t)(p - out) + c->len;
}

static int bad(char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(why, whylen, -EBADMSG, fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

/* What chunk_check() learns walking the columns, to check the rest against. */
struct xcheck {
	uint16_t	midx[CHUNK_EVENTS];
	uint32_t	pcnt[PID_DICT_MAX];
	uint32_t	mcnt[CHUNK_EVENTS];
	struct meta	metas[CHUNK_EVENTS];
	uint8_t		haspid[CHUNK_EVENTS];	/* metas[i] has a pid slot the decoder reads */
};

/* The time column: n - 1 deltas adding up to t_max - t_min. */
static int check_ts(const struct chunk *c, char *why, size_t whylen)
{
	const uint8_t *p = c->data, *end = c->data + c->off_pid;
	uint64_t t = 0, dt;

	for (uint32_t i = 1; i < c->n; i++) {
		p = get_uv_in(p, end, &dt);
		if (!p || dt > c->t_max - c->t_min - t)
			return bad(why, whylen, "time column: event %u", i);
		t += dt;
	}
	if (p != end || t != c->t_max - c->t_min)
		return bad(why, whylen, "time column: ends at %llu of %llu ns",
			   (unsigned long long)t, (unsigned long long)(c->t_max - c->t_min));
	return 0;
}

/* A run-length column of indices below @max into @idx (may be NULL), counted in @cnt. */
static int check_runs(const struct chunk *c, uint32_t off, uint32_t end_off, uint32_t max,
		      uint16_t *idx, uint32_t *cnt, const char *what, char *why, size_t whylen)
{
	const uint8_t *p = c->data + off, *end = c->data + end_off;
	uint32_t i = 0;

	while (i < c->n) {
		uint64_t v, run = 1;

		p = get_uv_in(p, end, &v);
		if (p && (v & 1)) {
			p = get_uv_in(p, end, &run);
			run += 2;
		}
		if (!p || v >> 1 >= max || run > c->n - i)
			return bad(why, whylen, "%s column: event %u", what, i);
		cnt[v >> 1] += (uint32_t)run;
		for (uint64_t k = 0; idx && k < run; k++)
			idx[i + k] = (uint16_t)(v >> 1);
		i += (uint32_t)run;
	}
	if (p != end)
		return bad(why, whylen, "%s column: %td bytes too many", what, end - p);
	return 0;
}

/* The meta dictionary: known types, argument counts and codecs in range. */
static int check_mdict(const struct chunk *c, const struct schema *sc, struct xcheck *x,
		       char *why, size_t whylen)
{
	const uint8_t *p = c->data + c->off_mdict, *end = c->data + c->off_cnt;

	for (uint32_t i = 0; i < c->nmeta; i++) {
		struct meta *m = &x->metas[i];
		uint64_t type;

		p = get_uv_in(p, end, &type);
		if (!p || type > UINT16_MAX || end - p < 3 ||
		    end - p < 3 + (p[2] + 1) / 2)
			return bad(why, whylen, "event dictionary: entry %u", i);
		if (p[2] > KTOP_MAX_ARGS)
			return bad(why, whylen, "event dictionary: %u arguments", p[2]);
		if (!schema_get(sc, (uint16_t)type))
			return bad(why, whylen, "event type %llu that the file does not define",
				   (unsigned long long)type);
		m->type = (uint16_t)type;
		m->flags = p[0];
		m->pc = p[1];
		m->nargs = p[2];
		p += 3;
		for (unsigned int s = 0; s < m->nargs; s++) {
			m->codec[s] = s & 1 ? p[s / 2] >> 4 : p[s / 2] & 0xf;
			if (m->codec[s] > C_PID)
				return bad(why, whylen, "event dictionary: codec %u", m->codec[s]);
		}
		p += (m->nargs + 1) / 2;
		x->haspid[i] = 0;
		if (!(m->type == KTOP_T_FUNCTION && m->nargs == 2) &&
		    !(m->type == KTOP_T_SYS_ENTER && m->nargs == 7))
			for (unsigned int s = 0; s < m->nargs; s++)
				x->haspid[i] |= m->codec[s] == C_PID;
	}
	if (p != end)
		return bad(why, whylen, "event dictionary: %td bytes too many", end - p);
	return 0;
}

/* Bytes of the prefix varint whose first byte is @b (put_uv). */
static inline unsigned int uv_bytes(uint8_t b)
{
	return b == 0xff ? 9 : (unsigned int)__builtin_ctz(~(unsigned int)b) + 1;
}

/*
 * The arguments of one event whose meta has a pid slot, each value within
 * the column, pid indices within the dictionary. Return: past them, or NULL.
 */
static const uint8_t *check_pid_args(const struct chunk *c, const struct meta *m,
				     const uint8_t *p, const uint8_t *end)
{
	uint64_t v;

	for (unsigned int s = 0; s < m->nargs && p; s++) {
		p = get_uv_in(p, end, &v);
		if (!p || m->codec[s] != C_PID)
			continue;
		if (!v)
			p = get_uv_in(p, end, &v);
		else if (v - 1 >= c->npid)
			return NULL;
	}
	return p;
}

/*
 * The argument column: every value within it, pid indices in the dictionary.
 * Most events have no pid argument: their values are only skipped, by the
 * length their first byte gives, while the column has room for any event.
 */
static int check_args(const struct chunk *c, const struct xcheck *x, char *why, size_t whylen)
{
	const uint8_t *p = c->data + c->off_args, *end = c->data + c->off_pdict;
	const uint8_t *fast_end = end - (end - p > 9 * KTOP_MAX_ARGS ? 9 * KTOP_MAX_ARGS : end - p);
	uint32_t a = 0;

	for (uint32_t i = 0; i < c->n; i++) {
		uint16_t mi = x->midx[i];
		const struct meta *m = &x->metas[mi];

		a += m->nargs;
		if (a > CHUNK_ARGS)
			return bad(why, whylen, "more than %u arguments", CHUNK_ARGS);
		if (!x->haspid[mi] && p < fast_end) {
			for (unsigned int s = 0; s < m->nargs; s++)
				p += uv_bytes(*p);
			continue;
		}
		p = check_pid_args(c, m, p, end);
		if (!p)
			return bad(why, whylen, "argument column: event %u", i);
	}
	if (p != end)
		return bad(why, whylen, "argument column: %td bytes %s", end - p,
			   p < end ? "too many" : "missing");
	return 0;
}

/* The pid dictionary (32-bit pids), and the counts, as the runs gave them. */
static int check_dicts(const struct chunk *c, const struct xcheck *x, char *why, size_t whylen)
{
	const uint8_t *p = c->data + c->off_pdict, *end = c->data + c->off_mdict;
	uint64_t v;

	for (uint32_t i = 0; i < c->npid; i++) {
		int64_t pid;

		p = get_uv_in(p, end, &v);
		pid = p ? (int64_t)zz_dec(v) : 0;
		if (!p || pid < INT32_MIN || pid > INT32_MAX)
			return bad(why, whylen, "pid dictionary: entry %u", i);
	}
	if (p != end)
		return bad(why, whylen, "pid dictionary: %td bytes too many", end - p);
	p = c->data + c->off_cnt;
	end = c->data + c->off_stk;
	for (uint32_t i = 0; i < c->npid_rows + c->nmeta; i++) {
		uint32_t want = i < c->npid_rows ? x->pcnt[i] : x->mcnt[i - c->npid_rows];

		p = get_uv_in(p, end, &v);
		if (!p || v != want)
			return bad(why, whylen, "counts: entry %u says %llu, the events %u", i,
				   p ? (unsigned long long)v : 0ull, want);
	}
	if (p != end)
		return bad(why, whylen, "counts: %td bytes too many", end - p);
	return 0;
}

/*
 * Is decoding @c safe, and does it say what its dictionaries say? Every
 * column is walked within its bounds: n - 1 time deltas adding up to its
 * span, runs of indices within the dictionaries covering n events, known
 * event types with at most KTOP_MAX_ARGS arguments, pid arguments within the
 * pid dictionary, no more than CHUNK_ARGS arguments, true counts. What the
 * decoder cannot check (a string id past the table reads as "") does no harm.
 */
static __thread struct xcheck *tls_xcheck;
static pthread_key_t xcheck_key;
static pthread_once_t xcheck_once = PTHREAD_ONCE_INIT;

static void xcheck_key_init(void)
{
	pthread_key_create(&xcheck_key, free);
}

/* The calling thread's scratch (100 KiB: a fresh one per chunk would be an mmap each). */
static struct xcheck *xcheck_get(void)
{
	if (tls_xcheck)
		return tls_xcheck;
	pthread_once(&xcheck_once, xcheck_key_init);
	tls_xcheck = malloc(sizeof(*tls_xcheck));
	if (tls_xcheck)
		pthread_setspecific(xcheck_key, tls_xcheck);
	return tls_xcheck;
}

static int chunk_check(const struct chunk *c, const struct schema *sc, uint32_t max_stack,
		       char *why, size_t whylen)
{
	struct xcheck *x = xcheck_get();
	const char *stk;
	int ret;

	if (!x)
		return bad(why, whylen, "out of memory");
	memset(x->pcnt, 0, c->npid_rows * sizeof(x->pcnt[0]));
	memset(x->mcnt, 0, c->nmeta * sizeof(x->mcnt[0]));
	ret = check_ts(c, why, whylen);
	if (!ret)
		ret = check_runs(c, c->off_pid, c->off_meta, c->npid_rows, NULL, x->pcnt, "pid",
				 why, whylen);
	if (!ret)
		ret = check_runs(c, c->off_meta, c->off_args, c->nmeta, x->midx, x->mcnt,
				 "event", why, whylen);
	if (!ret)
		ret = check_mdict(c, sc, x, why, whylen);
	if (!ret)
		ret = check_args(c, x, why, whylen);
	if (!ret)
		ret = check_dicts(c, x, why, whylen);
	stk = ret ? NULL : chunk_check_stacks(c, max_stack);
	if (stk)
		ret = bad(why, whylen, "%s", stk);
	return ret;
}

/* Read the header of an exported chunk into @c (@v: its values). Return: its size, or 0. */
static size_t import_header(const uint8_t *in, size_t len, uint64_t *v)
{
	uint8_t h[XHDR_MAX + 16] = { 0 };
	const uint8_t *p = h + 1;

	memcpy(h, in, len < XHDR_MAX ? len : XHDR_MAX);
	if (h[0] != STORE_CHUNK_LAYOUT)
		return 0;
	for (unsigned int i = 0; i < XHDR_VALUES; i++)
		p = get_uv(p, &v[i]);
	return (size_t)(p - h) <= len ? (size_t)(p - h) : 0;
}

int chunk_import(const struct schema *sc, uint32_t max_stack, const uint8_t *in, size_t len,
		 struct chunk **out, char *why, size_t whylen)
{
	uint64_t v[XHDR_VALUES], off = 0, sec[XHDR_SECTIONS];
	struct chunk *c;
	size_t hl;
	int ret;

	*out = NULL;
	hl = import_header(in, len, v);
	if (!hl)
		return bad(why, whylen, "chunk header: %s", len && in[0] != STORE_CHUNK_LAYOUT ?
			   "unknown layout" : "truncated");
	for (int i = 0; i < XHDR_SECTIONS; i++) {
		sec[i] = off;
		if (v[XHDR_FIXED + i] > len)
			return bad(why, whylen, "chunk header: section %d of %llu bytes", i,
				   (unsigned long long)v[XHDR_FIXED + i]);
		off += v[XHDR_FIXED + i];
	}
	if (!v[0] || v[0] > CHUNK_EVENTS || v[3] > PID_DICT_MAX || v[5] > v[3] ||
	    v[5] > v[0] || !v[4] || v[4] > v[0] || v[2] > UINT64_MAX - v[1] || v[6] > v[0])
		return bad(why, whylen, "chunk header: %llu events, %llu pids, %llu types",
			   (unsigned long long)v[0], (unsigned long long)v[3],
			   (unsigned long long)v[4]);
	if (off != len - hl || off > ENC_BUF_SIZE)
		return bad(why, whylen, "chunk of %zu bytes says %llu", len - hl,
			   (unsigned long long)off);
	c = chunk_alloc(off);
	if (!c)
		return bad(why, whylen, "out of memory");
	memcpy(c->data, in + hl, off);
	c->n = (uint32_t)v[0];
	c->t_min = v[1];
	c->t_max = v[1] + v[2];
	c->npid = (uint32_t)v[3];
	c->nmeta = (uint32_t)v[4];
	c->npid_rows = (uint32_t)v[5];
	c->nstk = (uint32_t)v[6];
	c->off_pid = (uint32_t)sec[1];
	c->off_meta = (uint32_t)sec[2];
	c->off_args = (uint32_t)sec[3];
	c->off_pdict = (uint32_t)sec[4];
	c->off_mdict = (uint32_t)sec[5];
	c->off_cnt = (uint32_t)sec[6];
	c->off_stk = (uint32_t)sec[7];
	ret = chunk_check(c, sc, max_stack, why, whylen);
	if (ret) {
		free(c);
		return ret;
	}
	*out = c;
	return 0;
}
