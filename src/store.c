// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The columnar event store.
 *
 * Each CPU stream is a list of chunks of up to CHUNK_EVENTS events. The newest
 * chunk is open: plain fixed-size rows and an argument array that its single
 * writer fills in place. When it is full the writer seals it: each column is
 * encoded on its own, compactly, into one immutable allocation (time deltas,
 * run-length pid and type/flags/preempt dictionary indices, arguments with a
 * per-type codec: symbol and string ids as varints, timestamps relative to the
 * event's, pids through the chunk's pid dictionary, the rest as deltas from
 * the previous value of the same slot, per syscall for sys_enter), and the
 * raw buffer is recycled. Readers decode a sealed chunk on access into their
 * own buffer (store_get keeps the last one per thread); queries decode only
 * the columns they need. A sealed chunk also keeps how many events each entry
 * of its pid and meta dictionaries has, so that counting by type, pid or cpu
 * over a window decodes only the chunks at its two ends (store_count_by).
 * Events with a stack (src/stacks.h) give a chunk one more column: a
 * dictionary of the chunk's stack ids and run-length indices into it, so
 * the column costs a byte or two per stacked event and nothing in a chunk
 * without stacks.
 *
 * Visibility: the writer appends past the published end and moves pub_end
 * forward with a release store (store_publish); readers load it with acquire
 * and never look past it, so they always see a consistent prefix.
 *
 * Lifetime: the chunk list of a stream is guarded by a mutex that readers hold
 * only to find a chunk and take a reference on it (the writer takes it once
 * per chunk, to swap pointers). Chunks are reference counted: the list holds
 * one reference, readers one each while they decode or copy; eviction only
 * drops the list's reference, and whoever drops the last one frees the chunk,
 * so a reader never touches freed memory and never blocks the writer.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "intern.h"
#include "lostmarks.h"
#include "schema.h"
#include "stacks.h"
#include "store.h"

#define CHUNK_EVENTS	STORE_CHUNK_EVENTS
#define CHUNK_ARGS	(CHUNK_EVENTS * 4)
#define PID_DICT_MAX	4096		/* pids per chunk: event pids plus pid arguments */
#define PID_HASH	8192
#define META_HASH	4096
#define META_CACHE	256		/* direct-mapped, in front of the meta hash */
#define PREV_TYPES	128
#define PREV_SYS	64		/* sys_enter arguments: previous values per syscall */
#define PREV_ROWS	(PREV_TYPES + PREV_SYS)
#define DECBUF_POOL	64
#define STK_HASH	4096		/* stack ids per chunk: at most CHUNK_EVENTS */

/* store_brow.aoff is 16 bits */
_Static_assert(CHUNK_ARGS + KTOP_MAX_ARGS <= UINT16_MAX, "argument offsets must fit aoff");

/* Argument codecs. The default (0) is a delta against the previous value of
 * the same slot of the same type within the chunk. */
enum {
	C_DPREV,	/* zigzag(v - previous) */
	C_UV,		/* unsigned varint: ids, counts */
	C_ZZ,		/* zigzag varint: small signed values */
	C_DTS,		/* zigzag(v - ts): timestamps near the event's own */
	C_PID,		/* index in the chunk's pid dictionary, escape 0 + zigzag */
};

/*
 * An open chunk, or a decoded sealed one: one row per event plus the argument
 * array. Rows, not separate arrays, while a chunk is written or read event by
 * event: eight arrays at 4 KiB-multiple offsets, times several CPUs, thrash
 * the L1 sets (measured 4x slower appends). Sealed chunks are columnar.
 * A row is a struct store_brow (store.h): writers may fill rows in place
 * (store_reserve).
 */
struct raw {
	void		*base;		/* what to free */
	struct store_brow row[CHUNK_EVENTS];
	uint64_t	args[CHUNK_ARGS + KTOP_MAX_ARGS];	/* slack: appends copy all 16 */
};

struct meta {
	uint16_t	type;
	uint8_t		flags;
	uint8_t		pc;
	uint8_t		nargs;
	uint8_t		codec[KTOP_MAX_ARGS];
	uint8_t		kind;		/* enum meta_kind: which argument loop codes it */
	/* the codecs as slot bitmasks, so coding an argument needs no switch */
	uint16_t	m_ts, m_prev, m_zz, m_pid;
};

/* How enc_args() codes the arguments of a meta. */
enum meta_kind {
	MK_GENERIC,	/* slot by slot, with pids and sys_enter's per-syscall rows */
	MK_FUNC2,	/* function: two symbol ids */
	MK_SYS7,	/* sys_enter: id, then six arguments against the same syscall's */
	MK_MASKED,	/* no pid slot: base and zigzag chosen by masks, no branch */
	MK_FIXED,	/* a fixed type with its usual argument count: unrolled code */
};

/* A reader's decode target, with the scratch a decode needs. */
struct decbuf {
	struct raw	r;
	uint16_t	midx[CHUNK_EVENTS];
	uint16_t	pidx[CHUNK_EVENTS];
	uint16_t	sidx[CHUNK_EVENTS];
	int32_t		pids[PID_DICT_MAX];
	uint32_t	stks[CHUNK_EVENTS];
	struct meta	metas[CHUNK_EVENTS];
};

struct stream;

struct chunk {
	atomic_int	refs;
	uint32_t	n;		/* events (sealed) */
	uint64_t	first_seq;
	uint64_t	t_min, t_max;	/* t_max: sealed only */
	uint64_t	uid;		/* names the contents, for decode caches */
	size_t		bytes;
	struct raw	*raw;		/* open chunk: the arrays; sealed: NULL */
	struct stream	*sm;
	/* sealed: columns in data[], in this order */
	uint32_t	npid, nmeta;
	uint32_t	npid_rows;	/* pids [0, npid_rows) are events' own, in the counts */
	uint32_t	nstk;		/* distinct stack ids; 0: no stack column */
	uint32_t	off_pid, off_meta, off_args, off_pdict, off_mdict, off_cnt, off_stk, len;
	uint8_t		data[];
};

/* Writer-private encoding scratch. */
struct enc {
	uint32_t	stamp;
	uint32_t	npid, nmeta;
	struct {
		int32_t		key;
		uint32_t	stamp;
		uint32_t	idx;
	} ph[PID_HASH];
	struct {
		uint64_t	key;
		uint32_t	stamp;
		uint32_t	idx;
	} mh[META_HASH];
	/*
	 * key << 16 | (index + 1), 0 when empty; cleared per chunk. The few
	 * metas of a chunk (tens) come back in no fixed order: this small
	 * table stays in L1 where the hash's 64 KiB does not.
	 */
	uint64_t	mc[META_CACHE];
	/* events per pid and per meta index, zero between chunks */
	uint32_t	pcnt[PID_DICT_MAX];
	uint32_t	mcnt[CHUNK_EVENTS];
	int32_t		pids[PID_DICT_MAX];
	struct meta	metas[CHUNK_EVENTS];
	uint16_t	midx[CHUNK_EVENTS];
	/* the pid and meta index columns, run-length coded as the rows are read */
	uint8_t		pcol[CHUNK_EVENTS * 4 + 8], mcol[CHUNK_EVENTS * 4 + 8];
	uint64_t	prev[PREV_ROWS][KTOP_MAX_ARGS];
	uint32_t	prev_stamp[PREV_TYPES];
	/* the stack column: id -> dictionary index, the dictionary, the runs */
	struct {
		uint32_t	key;
		uint32_t	stamp;
		uint32_t	idx;
	} sh[STK_HASH];
	uint32_t	nstk;
	uint32_t	stks[CHUNK_EVENTS];
	uint8_t		scol[CHUNK_EVENTS * 4 + 8];
	uint8_t		buf[];
};

#define ENC_BUF_SIZE	(CHUNK_EVENTS * (10 + 6 + 6 + 5 + 4 + KTOP_MAX_ARGS) + \
			 CHUNK_ARGS * 11 + \
			 PID_DICT_MAX * 5 + \
			 CHUNK_EVENTS * 2 * 2 + \
			 CHUNK_EVENTS * (5 + 4) + \
			 9)	/* counts take 2 bytes at most; put_uv stores up to 9 bytes;
			 * the stack column: 5 per dictionary id, 4 per run */

struct stream {
	pthread_mutex_t		lock;
	/* under lock: sealed chunks v[lo..hi), then the open chunk */
	struct chunk		**v;
	size_t			lo, hi, cap;
	struct chunk		*open;
	_Atomic uint64_t	pub_end;	/* published seq end */
	_Atomic uint64_t	first_seq;	/* oldest held seq */
	_Atomic uint64_t	evict_tmin;	/* t_min of the oldest sealed chunk, or MAX */
	_Atomic uint64_t	last_pub_ts;
	_Atomic(struct raw *)	spare;		/* a recycled raw buffer */
	/* counters, written by one thread each (relaxed) */
	_Atomic uint64_t	appended, reordered, evicted, lost, lost_marks;
	_Atomic int64_t		bytes;
	/* writer-private */
	uint64_t		end;		/* appended seq end */
	uint64_t		last_ts;
	uint32_t		on, oa;		/* events and args in the open chunk */
	struct raw		*wraw;		/* the open chunk's raw */
	unsigned int		cpu;
	struct store		*st;
};

#define COMM_PAGE_SHIFT	12
#define COMM_PAGE	(1u << COMM_PAGE_SHIFT)
#define COMM_MAX_PID	(1u << 23)

struct store {
	unsigned int		ncpus;
	size_t			limit;
	struct intern		*strings;
	struct schema		*schema;
	struct stacks		*stacks;
	_Atomic int64_t		bytes;		/* chunks and their raw buffers */
	_Atomic int64_t		comm_bytes;	/* comm pages */
	pthread_mutex_t		evict_lock;
	pthread_mutex_t		pool_lock;	/* readers' decode buffers, reused */
	struct decbuf		*pool[DECBUF_POOL];
	unsigned int		npool;
	struct lostmarks	*lost;
	_Atomic(_Atomic uint32_t *) comm[COMM_MAX_PID / COMM_PAGE + 1];	/* pid -> id + 1 */
	struct stream		sm[];
};

static _Atomic uint64_t chunk_uid_next = 1;

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

/* The argument count of each fixed type (src/event.h), for enc_args()'s unrolled cases. */
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

/* ---- varints ------------------------------------------------------------- */

/*
 * Prefix varints: n bytes hold a value of up to 7n bits (as LEB128, so the
 * same sizes), and the n - 1 trailing one bits of the first byte say how
 * many bytes follow, where LEB128 spreads a continuation bit over each byte.
 * A value is then coded with one shift and one 8-byte store, and decoded
 * with one 8-byte load, a count of trailing ones and a shift; LEB128's
 * spreading of 7-bit groups cost about 40 instructions per value of two
 * bytes or more (callgrind, bench_decode). Values of 57 bits or more: 0xff
 * and the 8 bytes.
 */

/* Bytes of a value whose highest set bit is bit i: ceil((i + 1) / 7), 9 past 56 bits. */
static const uint8_t uv_len[64] = {
	1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4,
	5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 8,
	9, 9, 9, 9, 9, 9, 9, 9,
};

/* The first byte's low bits for @len bytes: len - 1 ones, then a zero. */
static const uint8_t uv_tag[9] = { 0, 0, 0x1, 0x3, 0x7, 0xf, 0x1f, 0x3f, 0x7f };

/* Callers leave 9 writable bytes at @p. */
static inline __attribute__((always_inline)) uint8_t *put_uv(uint8_t *p, uint64_t v)
{
	unsigned int len;
	uint64_t x;

	if (__builtin_expect(v < 0x80, 1)) {
		*p = (uint8_t)(v << 1);
		return p + 1;
	}
	len = uv_len[63 ^ __builtin_clzll(v)];
	if (__builtin_expect(len > 8, 0)) {
		*p = 0xff;
		memcpy(p + 1, &v, 8);
		return p + 9;
	}
	x = v << len | uv_tag[len];
	memcpy(p, &x, 8);
	return p + len;
}

/* Callers have 8 readable bytes at @p (chunks have the slack). */
static inline const uint8_t *get_uv(const uint8_t *p, uint64_t *out)
{
	unsigned int b = *p, len;
	uint64_t x;

	if (__builtin_expect(!(b & 1), 1)) {
		*out = b >> 1;
		return p + 1;
	}
	if (__builtin_expect(b == 0xff, 0)) {
		memcpy(out, p + 1, 8);
		return p + 9;
	}
	len = __builtin_ctz(~b) + 1;
	memcpy(&x, p, 8);
	*out = (x >> len) & (~0ull >> (64 - 7 * len));
	return p + len;
}

static inline uint64_t zz_enc(uint64_t v)
{
	return (v << 1) ^ (uint64_t)((int64_t)v >> 63);
}

static inline uint64_t zz_dec(uint64_t v)
{
	return (v >> 1) ^ (uint64_t)-(int64_t)(v & 1);
}

/*
 * The arguments of sys_enter are best predicted by the previous call of the
 * same syscall (the same fd, buffer, size), so they get a row per syscall nr.
 */
static inline unsigned int prev_sys_slot(uint64_t nr)
{
	return PREV_TYPES + (nr & (PREV_SYS - 1));
}

static inline unsigned int prev_slot(uint16_t type)
{
	return type < 64 ? type : 64 + (type & 63);
}

/* One run of an index column: uv(idx * 2 + (run > 1)) [uv(run - 2)]. */
static inline uint8_t *put_run(uint8_t *p, uint16_t v, uint32_t run)
{
	p = put_uv(p, (uint64_t)v * 2 + (run > 1));
	if (run > 1)
		p = put_uv(p, run - 2);
	return p;
}

static const uint8_t *get_rle(const uint8_t *p, uint16_t *idx, uint32_t n)
{
	uint32_t i = 0;

	while (i < n) {
		uint64_t v, run = 1;

		p = get_uv(p, &v);
		if (v & 1) {
			p = get_uv(p, &run);
			run += 2;
		}
		if (run > n - i)
			run = n - i;
		for (uint64_t k = 0; k < run; k++)
			idx[i++] = (uint16_t)(v >> 1);
	}
	return p;
}

/* ---- chunks -------------------------------------------------------------- */

static void stream_bytes_add(struct stream *sm, int64_t d)
{
	atomic_fetch_add_explicit(&sm->bytes, d, memory_order_relaxed);
	atomic_fetch_add_explicit(&sm->st->bytes, d, memory_order_relaxed);
}

static struct raw *raw_get(struct stream *sm)
{
	struct raw *r = atomic_exchange_explicit(&sm->spare, NULL, memory_order_acq_rel);
	void *base;

	if (r)
		return r;
	/* stagger the buffers of different CPUs across cache sets */
	base = malloc(sizeof(*r) + 4096);
	if (!base)
		return NULL;
	r = (struct raw *)((char *)base + (sm->cpu * 17 % 64) * 64);
	r->base = base;
	stream_bytes_add(sm, sizeof(*r) + 4096);
	return r;
}

static void raw_recycle(struct stream *sm, struct raw *r)
{
	r = atomic_exchange_explicit(&sm->spare, r, memory_order_acq_rel);
	if (r) {
		free(r->base);
		stream_bytes_add(sm, -(int64_t)(sizeof(*r) + 4096));
	}
}

static void chunk_put(struct chunk *c)
{
	if (atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) != 1)
		return;
	if (c->raw)
		raw_recycle(c->sm, c->raw);
	free(c);
}

static void raw_to_event(const struct raw *r, uint32_t i, unsigned int cpu,
			 struct ktop_event *ev)
{
	const uint64_t *a = &r->args[r->row[i].aoff];
	unsigned int k, na = r->row[i].nargs;

	ev->ts = r->row[i].ts;
	ev->pid = r->row[i].pid;
	ev->stack = r->row[i].stack;
	ev->cpu = cpu;
	ev->type = r->row[i].type;
	ev->flags = r->row[i].flags;
	ev->pc = r->row[i].pc;
	ev->nargs = na;
	/* short variable copies: plain loops beat rep movs here */
	for (k = 0; k < na; k++)
		ev->args[k] = a[k];
	for (; k < KTOP_MAX_ARGS; k++)
		ev->args[k] = 0;
}

/* ---- encoding (writer) ------------------------------------------------------ */

static uint32_t enc_pid(struct enc *e, int32_t pid)
{
	uint32_t h = ((uint32_t)pid * 0x9e3779b1u) >> (32 - 13);

	for (;;) {
		if (e->ph[h].stamp != e->stamp) {
			if (e->npid == PID_DICT_MAX)
				return UINT32_MAX;
			e->ph[h].stamp = e->stamp;
			e->ph[h].key = pid;
			e->ph[h].idx = e->npid;
			e->pids[e->npid] = pid;
			return e->npid++;
		}
		if (e->ph[h].key == pid)
			return e->ph[h].idx;
		h = (h + 1) & (PID_HASH - 1);
	}
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

/* A stack id's index in the chunk's stack dictionary, added if new. */
static uint32_t enc_stk(struct enc *e, uint32_t id)
{
	uint32_t h = (id * 0x9e3779b1u) >> (32 - 12);

	for (;;) {
		if (e->sh[h].stamp != e->stamp) {
			e->sh[h].stamp = e->stamp;
			e->sh[h].key = id;
			e->sh[h].idx = e->nstk;
			e->stks[e->nstk] = id;
			return e->nstk++;
		}
		if (e->sh[h].key == id)
			return e->sh[h].idx;
		h = (h + 1) & (STK_HASH - 1);
	}
}

static inline unsigned int uv_size(uint64_t v)
{
	return v < 0x80 ? 1 : uv_len[63 ^ __builtin_clzll(v)];
}

/*
 * The stack column of @n rows into @p: uv(nstk * 2 + direct), then with a
 * dictionary (direct 0) its nstk ids and the runs of indices into it, or
 * (direct 1) the runs of the ids themselves, whichever is smaller: a chunk
 * whose events share a few stacks takes a byte per run, one whose stacks are
 * all different (no dictionary pays) about two. Return: the end.
 */
static uint8_t *enc_stacks(struct enc *e, uint8_t *p, const struct raw *r, uint32_t n)
{
	uint8_t *sc = e->scol;
	uint32_t ls, ss = 0, lid = r->row[0].stack;
	size_t direct = 0, dict;

	e->nstk = 0;
	ls = enc_stk(e, lid);
	for (uint32_t i = 1; i <= n; i++) {
		uint32_t x, run = i - ss;

		if (i < n && r->row[i].stack == lid)
			continue;
		sc = put_run(sc, ls, run);
		direct += uv_size((uint64_t)lid * 2 + (run > 1)) + (run > 1 ? uv_size(run - 2) : 0);
		if (i == n)
			break;
		lid = r->row[i].stack;
		x = enc_stk(e, lid);
		ss = i;
		ls = x;
	}
	dict = sc - e->scol;
	for (uint32_t i = 0; i < e->nstk; i++)
		dict += uv_size(e->stks[i]);
	if (direct < dict) {
		p = put_uv(p, (uint64_t)e->nstk * 2 + 1);
		ss = 0;
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
	p = put_uv(p, (uint64_t)e->nstk * 2);
	for (uint32_t i = 0; i < e->nstk; i++)
		p = put_uv(p, e->stks[i]);
	memcpy(p, e->scol, sc - e->scol);
	return p + (sc - e->scol);
}

/* type, flags, pc and nargs in one word */
static inline uint64_t row_meta_key(const struct store_brow *w)
{
	return w->type | (uint64_t)w->flags << 16 | (uint64_t)w->pc << 24 |
	       (uint64_t)w->nargs << 32;
}

/* The meta hash, behind enc_meta()'s cache: @key is not in @mc. */
static __attribute__((noinline)) uint32_t
enc_meta_lookup(struct stream *sm, struct enc *e, const struct raw *r, uint32_t i, uint64_t key,
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
			meta_codecs(sm->st, m);
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
static inline uint32_t enc_meta(struct stream *sm, struct enc *e, const struct raw *r, uint32_t i)
{
	uint64_t key = row_meta_key(&r->row[i]), hk = key * 0x9e3779b97f4a7c15ull;
	uint64_t *mc = &e->mc[hk >> (64 - 8)];

	if (*mc >> 16 == key && (*mc & 0xffff))
		return (*mc & 0xffff) - 1;
	return enc_meta_lookup(sm, e, r, i, key, hk, mc);
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

/* Return: a sealed chunk holding the @n events of @r, or NULL on ENOMEM. */
static struct chunk *chunk_encode(struct stream *sm, struct enc *e, const struct raw *r,
				  uint32_t n, uint64_t first_seq)
{
	uint8_t *p = e->buf, *pid_col, *meta_col, *args_col, *pdict, *mdict, *cnt, *stk;
	uint8_t *pc = e->pcol, *mc = e->mcol;
	uint32_t m2 = 0, lp, lm, ps = 0, ms = 0, npid_rows;
	uint64_t k1, k2 = UINT64_MAX;
	uint32_t any_stack = r->row[0].stack;
	struct chunk *c;
	size_t len;

	if (++e->stamp == 0) {
		memset(e->ph, 0, sizeof(e->ph));
		memset(e->sh, 0, sizeof(e->sh));
		memset(e->mh, 0, sizeof(e->mh));
		e->stamp = 1;
	}
	e->npid = 0;
	e->nmeta = 0;
	memset(e->mc, 0, sizeof(e->mc));
	/* one pass over the rows: the time column, pid and meta indices */
	lp = enc_pid(e, r->row[0].pid);
	lm = e->midx[0] = enc_meta(sm, e, r, 0);
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
		any_stack |= w->stack;
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

			lm = key == k2 ? m2 : enc_meta(sm, e, r, i);
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
	pc = put_run(pc, lp, n - ps);
	mc = put_run(mc, lm, n - ms);
	e->pcnt[lp] += n - ps;
	e->mcnt[lm] += n - ms;
	npid_rows = e->npid;	/* enc_args() adds pids met only as arguments */
	pid_col = p;
	memcpy(p, e->pcol, pc - e->pcol);
	p += pc - e->pcol;
	meta_col = p;
	memcpy(p, e->mcol, mc - e->mcol);
	p += mc - e->mcol;
	args_col = p;
	p = enc_args(e, p, r, n);
	pdict = p;
	for (uint32_t i = 0; i < e->npid; i++)
		p = put_uv(p, zz_enc((uint64_t)(int64_t)e->pids[i]));
	mdict = p;
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
	cnt = p;
	for (uint32_t i = 0; i < npid_rows; i++) {
		p = put_uv(p, e->pcnt[i]);
		e->pcnt[i] = 0;
	}
	for (uint32_t i = 0; i < e->nmeta; i++) {
		p = put_uv(p, e->mcnt[i]);
		e->mcnt[i] = 0;
	}
	stk = p;
	e->nstk = 0;
	if (any_stack)
		p = enc_stacks(e, p, r, n);
	len = p - e->buf;
	/* + 8: get_uv() loads 8 bytes from the start of each value */
	c = malloc(sizeof(*c) + len + 8);
	if (!c)
		return NULL;
	memcpy(c->data, e->buf, len);
	memset(c->data + len, 0, 8);
	atomic_init(&c->refs, 1);
	c->n = n;
	c->first_seq = first_seq;
	c->t_min = r->row[0].ts;
	c->t_max = r->row[n - 1].ts;
	c->uid = atomic_fetch_add_explicit(&chunk_uid_next, 1, memory_order_relaxed);
	c->bytes = sizeof(*c) + len + 8;
	c->raw = NULL;
	c->sm = sm;
	c->npid = e->npid;
	c->nmeta = e->nmeta;
	c->off_pid = pid_col - e->buf;
	c->off_meta = meta_col - e->buf;
	c->off_args = args_col - e->buf;
	c->off_pdict = pdict - e->buf;
	c->off_mdict = mdict - e->buf;
	c->off_cnt = cnt - e->buf;
	c->off_stk = stk - e->buf;
	c->nstk = e->nstk;
	c->npid_rows = npid_rows;
	c->len = len;
	return c;
}

/* ---- decoding (readers) ------------------------------------------------------ */

enum {
	DEC_TS		= 1,
	DEC_PID		= 2,
	DEC_META	= 4,
	DEC_ARGS	= 8,
	DEC_STACK	= 16,
	DEC_ALL		= 31,
};

/* The stack column into row[i].stack (zeros when the chunk has none). */
static void chunk_decode_stacks(const struct chunk *c, struct decbuf *d)
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

/* Decode the time column into ts[0], ts[stride], ... */
static void chunk_decode_ts(const struct chunk *c, uint64_t *ts, size_t stride)
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
static const uint8_t *get_meta(const uint8_t *p, struct meta *m)
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

static void chunk_decode(const struct chunk *c, struct decbuf *d, unsigned int mask)
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
			p = get_meta(p, &d->metas[i]);
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

/* ---- store ----------------------------------------------------------------- */

struct store *store_new(size_t mem_limit, unsigned int ncpus)
{
	struct store *st;

	if (!ncpus)
		ncpus = 1;
	st = calloc(1, sizeof(*st) + ncpus * sizeof(st->sm[0]));
	if (!st)
		return NULL;
	st->ncpus = ncpus;
	st->limit = mem_limit ? mem_limit : STORE_DEFAULT_MEMORY;
	pthread_mutex_init(&st->evict_lock, NULL);
	pthread_mutex_init(&st->pool_lock, NULL);
	for (unsigned int i = 0; i < ncpus; i++) {
		struct stream *sm = &st->sm[i];

		pthread_mutex_init(&sm->lock, NULL);
		sm->cpu = i;
		sm->st = st;
		sm->on = CHUNK_EVENTS;	/* no open chunk */
		atomic_init(&sm->evict_tmin, UINT64_MAX);
	}
	st->strings = intern_new();
	st->schema = schema_new();
	st->lost = lostmarks_new();
	st->stacks = st->strings ? stacks_new(st->strings, 0) : NULL;
	if (!st->strings || !st->schema || !st->lost || !st->stacks) {
		store_free(st);
		return NULL;
	}
	return st;
}

void store_free(struct store *st)
{
	if (!st)
		return;
	for (unsigned int i = 0; i < st->ncpus; i++) {
		struct stream *sm = &st->sm[i];

		for (size_t k = sm->lo; k < sm->hi; k++)
			free(sm->v[k]);
		free(sm->v);
		if (sm->open) {
			free(sm->open->raw->base);
			free(sm->open);
		}
		if (atomic_load(&sm->spare))
			free(atomic_load(&sm->spare)->base);
		pthread_mutex_destroy(&sm->lock);
	}
	for (size_t i = 0; i < sizeof(st->comm) / sizeof(st->comm[0]); i++)
		free((void *)atomic_load_explicit(&st->comm[i], memory_order_relaxed));
	lostmarks_free(st->lost);
	stacks_free(st->stacks);
	intern_free(st->strings);
	schema_free(st->schema);
	pthread_mutex_destroy(&st->evict_lock);
	for (unsigned int i = 0; i < st->npool; i++)
		free(st->pool[i]);
	pthread_mutex_destroy(&st->pool_lock);
	free(st);
}

unsigned int store_ncpus(const struct store *st)
{
	return st->ncpus;
}

struct intern *store_strings(struct store *st)
{
	return st->strings;
}

struct schema *store_schema(struct store *st)
{
	return st->schema;
}

struct stacks *store_stacks(const struct store *st)
{
	return st->stacks;
}

uint64_t store_table_bytes(const struct store *st)
{
	struct stacks_stats ks;

	stacks_get_stats(st->stacks, &ks);
	return intern_bytes(st->strings) + schema_bytes(st->schema) + ks.bytes +
	       (uint64_t)atomic_load_explicit(&st->comm_bytes, memory_order_relaxed);
}

/* What counts against the limit: everything that grows with the input. */
static bool store_over(const struct store *st)
{
	return (uint64_t)atomic_load_explicit(&st->bytes, memory_order_relaxed) +
	       lostmarks_bytes(st->lost) + store_table_bytes(st) > st->limit;
}

/*
 * Drop the oldest of what can go, across CPUs, until under the limit: sealed
 * chunks, and the lost-event marks older than them (marks alone, as a file of
 * nothing else brings, go oldest half first).
 */
static void store_evict(struct store *st)
{
	pthread_mutex_lock(&st->evict_lock);
	while (store_over(st)) {
		struct stream *best = NULL;
		uint64_t best_t = UINT64_MAX, mark_t;
		struct chunk *c = NULL;

		for (unsigned int i = 0; i < st->ncpus; i++) {
			uint64_t t = atomic_load_explicit(&st->sm[i].evict_tmin,
							  memory_order_relaxed);

			if (t < best_t) {
				best_t = t;
				best = &st->sm[i];
			}
		}
		if (lostmarks_oldest(st->lost, &mark_t) && mark_t < best_t &&
		    lostmarks_evict(st->lost, best_t))
			continue;
		if (!best)
			break;
		pthread_mutex_lock(&best->lock);
		if (best->lo < best->hi) {
			c = best->v[best->lo++];
			atomic_store_explicit(&best->first_seq, c->first_seq + c->n,
					      memory_order_release);
			atomic_store_explicit(&best->evict_tmin, best->lo < best->hi ?
					      best->v[best->lo]->t_min : UINT64_MAX,
					      memory_order_relaxed);
		}
		pthread_mutex_unlock(&best->lock);
		if (!c)
			continue;
		atomic_fetch_add_explicit(&best->evicted, c->n, memory_order_relaxed);
		stream_bytes_add(best, -(int64_t)c->bytes);
		chunk_put(c);
	}
	pthread_mutex_unlock(&st->evict_lock);
}

/*
 * Per-thread scratch: the encoder of a writer thread (shared by the CPU
 * streams it writes, so it stays in cache), and a reader's decode cache.
 * Freed when the thread exits.
 */
struct tls_cache {
	uint64_t	uid;
	struct decbuf	d;
};

static __thread struct enc *tls_enc;
static __thread struct tls_cache *tls_cache;
static pthread_key_t tls_enc_key, tls_cache_key;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;

static void tls_keys_init(void)
{
	pthread_key_create(&tls_enc_key, free);
	pthread_key_create(&tls_cache_key, free);
}

static struct enc *tls_enc_get(void)
{
	if (tls_enc)
		return tls_enc;
	pthread_once(&tls_once, tls_keys_init);
	tls_enc = calloc(1, sizeof(*tls_enc) + ENC_BUF_SIZE);
	if (tls_enc)
		pthread_setspecific(tls_enc_key, tls_enc);
	return tls_enc;
}

static struct tls_cache *tls_cache_get(void)
{
	if (tls_cache)
		return tls_cache;
	pthread_once(&tls_once, tls_keys_init);
	tls_cache = malloc(sizeof(*tls_cache));
	if (tls_cache) {
		tls_cache->uid = 0;
		pthread_setspecific(tls_cache_key, tls_cache);
	}
	return tls_cache;
}

/* Writer: encode the open chunk and swap it for its sealed form. */
static int stream_seal(struct stream *sm)
{
	struct chunk *o = sm->open, *c;
	struct enc *e = tls_enc_get();

	if (!e)
		return -ENOMEM;
	c = chunk_encode(sm, e, o->raw, sm->on, o->first_seq);
	if (!c)
		return -ENOMEM;
	pthread_mutex_lock(&sm->lock);
	if (sm->hi == sm->cap) {
		if (sm->lo > sm->cap / 2) {
			memmove(sm->v, sm->v + sm->lo, (sm->hi - sm->lo) * sizeof(*sm->v));
			sm->hi -= sm->lo;
			sm->lo = 0;
		} else {
			size_t cap = sm->cap ? sm->cap * 2 : 64;
			struct chunk **v = realloc(sm->v, cap * sizeof(*v));

			if (!v) {
				pthread_mutex_unlock(&sm->lock);
				free(c);
				return -ENOMEM;
			}
			sm->v = v;
			sm->cap = cap;
		}
	}
	sm->v[sm->hi++] = c;
	if (sm->hi - sm->lo == 1)
		atomic_store_explicit(&sm->evict_tmin, c->t_min, memory_order_relaxed);
	sm->open = NULL;
	pthread_mutex_unlock(&sm->lock);
	stream_bytes_add(sm, c->bytes);
	chunk_put(o);
	sm->on = CHUNK_EVENTS;
	sm->oa = 0;
	sm->wraw = NULL;
	atomic_store_explicit(&sm->appended, sm->end, memory_order_relaxed);
	if (store_over(sm->st))
		store_evict(sm->st);
	return 0;
}

static int stream_open(struct stream *sm, uint64_t ts)
{
	struct chunk *o = malloc(sizeof(*o));

	if (!o)
		return -ENOMEM;
	memset(o, 0, sizeof(*o));
	o->raw = raw_get(sm);
	if (!o->raw) {
		free(o);
		return -ENOMEM;
	}
	atomic_init(&o->refs, 1);
	o->first_seq = sm->end;
	o->t_min = ts;
	o->sm = sm;
	o->bytes = 0;	/* the raw buffer is counted on its own */
	sm->wraw = o->raw;
	pthread_mutex_lock(&sm->lock);
	sm->open = o;
	pthread_mutex_unlock(&sm->lock);
	return 0;
}

/* Seal the full open chunk, if there is one, and open a new one starting at @ts. */
static int stream_next_chunk(struct stream *sm, uint64_t ts)
{
	int ret;

	if (sm->open) {
		ret = stream_seal(sm);
		if (ret)
			return ret;
	}
	return stream_open(sm, ts);
}

/*
 * Append @n rows to @sm, with the writer's position held in locals: the
 * stores into the chunk may alias anything as far as the compiler knows.
 * Return: how many were appended (fewer than @n when a new chunk could not be
 * had).
 */
static inline __attribute__((always_inline)) uint32_t
stream_append_rows(struct stream *sm, const struct store_brow *rows, const uint64_t *args,
		   uint32_t n)
{
	uint64_t last = sm->last_ts, end = sm->end, reordered = 0;
	uint32_t on = sm->on, oa = sm->oa, i;
	struct raw *r = sm->wraw;

	for (i = 0; i < n; i++) {
		const struct store_brow *b = &rows[i];
		unsigned int na = b->nargs < KTOP_MAX_ARGS ? b->nargs : KTOP_MAX_ARGS;
		const uint64_t *a = &args[b->aoff];
		uint64_t ts = b->ts;
		struct store_brow *row;

		if (__builtin_expect(ts < last, 0)) {
			ts = last;
			reordered++;
		}
		if (__builtin_expect(on == CHUNK_EVENTS || oa + na > CHUNK_ARGS, 0)) {
			/* full, or no open chunk (on starts at CHUNK_EVENTS) */
			sm->on = on;
			sm->oa = oa;
			sm->end = end;
			sm->last_ts = last;
			if (stream_next_chunk(sm, ts)) {
				/* a seal may have gone through: take its state */
				on = sm->on;
				oa = sm->oa;
				break;
			}
			on = 0;
			oa = 0;
			r = sm->wraw;
		}
		/* fixed-size copies are cheaper than a variable one; args[] has the slack */
		memcpy(&r->args[oa], a, 4 * sizeof(a[0]));
		if (na > 4)
			memcpy(&r->args[oa + 4], &a[4], 12 * sizeof(a[0]));
		row = &r->row[on];
		row->ts = ts;
		row->pid = b->pid;
		row->stack = b->stack;
		row->aoff = oa;
		row->type = b->type;
		row->flags = b->flags;
		row->pc = b->pc;
		row->nargs = na;
		on++;
		oa += na;
		end++;
		last = ts;
	}
	sm->on = on;
	sm->oa = oa;
	sm->end = end;
	sm->last_ts = last;
	if (reordered) {
		uint64_t v = atomic_load_explicit(&sm->reordered, memory_order_relaxed);

		/* one writer: no read-modify-write needed */
		atomic_store_explicit(&sm->reordered, v + reordered, memory_order_relaxed);
	}
	return i;
}

int store_append(struct store *st, const struct ktop_event *ev)
{
	struct store_brow b = {
		.ts = ev->ts, .pid = ev->pid, .aoff = 0, .type = ev->type,
		.flags = ev->flags, .pc = ev->pc, .nargs = ev->nargs,
		/* an id the table never gave out would name nothing, or another stack later */
		.stack = ev->stack <= stacks_count(st->stacks) ? ev->stack : 0,
	};

	if (ev->cpu >= st->ncpus)
		return -EINVAL;
	return stream_append_rows(&st->sm[ev->cpu], &b, ev->args, 1) ? 0 : -ENOMEM;
}

int store_reserve(struct store *st, unsigned int cpu, uint64_t ts, struct store_wbuf *w)
{
	struct stream *sm;
	int ret;

	if (cpu >= st->ncpus)
		return -EINVAL;
	sm = &st->sm[cpu];
	if (ts < sm->last_ts)
		ts = sm->last_ts;
	/*
	 * Full when an event of KTOP_MAX_ARGS would not fit: the writer knows
	 * an event's argument count only once it has decoded it in place.
	 */
	if (sm->on == CHUNK_EVENTS || sm->oa + KTOP_MAX_ARGS > CHUNK_ARGS) {
		ret = stream_next_chunk(sm, ts);
		if (ret)
			return ret;
		sm->on = 0;
		sm->oa = 0;
	}
	w->row = &sm->wraw->row[sm->on];
	w->args = sm->wraw->args;
	w->nrow = CHUNK_EVENTS - sm->on;
	w->aoff = sm->oa;
	w->aend = CHUNK_ARGS;
	w->last_ts = sm->last_ts;
	return 0;
}

void store_commit(struct store *st, unsigned int cpu, const struct store_wbuf *w, uint32_t n,
		  uint32_t aend, uint64_t last_ts, uint64_t reordered)
{
	struct stream *sm;

	if (cpu >= st->ncpus || !n)
		return;
	sm = &st->sm[cpu];
	if (!sm->on && w->row[0].ts != sm->open->t_min) {
		/*
		 * The chunk was opened at the time store_reserve() was given,
		 * for an event the writer then did not commit (a bad record):
		 * start it at its first row. Readers look at t_min under the lock.
		 */
		pthread_mutex_lock(&sm->lock);
		sm->open->t_min = w->row[0].ts;
		pthread_mutex_unlock(&sm->lock);
	}
	sm->on += n;
	sm->oa = aend;
	sm->end += n;
	sm->last_ts = last_ts;
	if (reordered) {
		uint64_t v = atomic_load_explicit(&sm->reordered, memory_order_relaxed);

		/* one writer: no read-modify-write needed */
		atomic_store_explicit(&sm->reordered, v + reordered, memory_order_relaxed);
	}
}

void store_publish(struct store *st, unsigned int cpu)
{
	struct stream *sm;

	if (cpu >= st->ncpus)
		return;
	sm = &st->sm[cpu];
	atomic_store_explicit(&sm->last_pub_ts, sm->last_ts, memory_order_relaxed);
	atomic_store_explicit(&sm->appended, sm->end, memory_order_relaxed);
	atomic_store_explicit(&sm->pub_end, sm->end, memory_order_release);
}

int store_seal_idle(struct store *st, unsigned int cpu)
{
	struct stream *sm;
	struct raw *r;
	int ret = 0;

	if (cpu >= st->ncpus)
		return -EINVAL;
	sm = &st->sm[cpu];
	if (sm->open && sm->on && sm->on <= CHUNK_EVENTS)
		ret = stream_seal(sm);
	r = atomic_exchange_explicit(&sm->spare, NULL, memory_order_acq_rel);
	if (r) {
		free(r->base);
		stream_bytes_add(sm, -(int64_t)(sizeof(*r) + 4096));
	}
	return ret;
}

void store_add_lost(struct store *st, unsigned int cpu, uint64_t ts, uint64_t count)
{
	struct store_lost m = { .ts = ts, .count = count, .cpu = (uint16_t)cpu };
	struct stream *sm;

	if (cpu >= st->ncpus)
		return;
	sm = &st->sm[cpu];
	/* counted even when there is no memory for the mark: the totals stay right */
	atomic_fetch_add_explicit(&sm->lost, count, memory_order_relaxed);
	atomic_fetch_add_explicit(&sm->lost_marks, 1, memory_order_relaxed);
	lostmarks_add(st->lost, &m);
	if (store_over(st))
		store_evict(st);
}

/* ---- comm ------------------------------------------------------------------ */

void store_set_comm(struct store *st, int32_t pid, const char *comm)
{
	_Atomic uint32_t *page, *exp = NULL;
	uint32_t id;

	if (pid < 0 || (uint32_t)pid > COMM_MAX_PID || !comm)
		return;
	id = intern_id(st->strings, comm, strlen(comm));
	if (id == UINT32_MAX)
		return;
	page = atomic_load_explicit(&st->comm[pid >> COMM_PAGE_SHIFT], memory_order_acquire);
	if (!page) {
		page = calloc(COMM_PAGE, sizeof(*page));
		if (!page)
			return;
		if (!atomic_compare_exchange_strong_explicit(&st->comm[pid >> COMM_PAGE_SHIFT],
							     &exp, page, memory_order_acq_rel,
							     memory_order_acquire)) {
			free((void *)page);
			page = exp;
		} else {
			atomic_fetch_add_explicit(&st->comm_bytes, COMM_PAGE * sizeof(*page),
						  memory_order_relaxed);
		}
	}
	atomic_store_explicit(&page[pid & (COMM_PAGE - 1)], id + 1, memory_order_release);
}

/* Return: the interned comm id + 1 of @pid, 0 when never seen. */
static uint32_t store_comm_id1(const struct store *st, int32_t pid)
{
	_Atomic uint32_t *page;

	if (pid < 0 || (uint32_t)pid > COMM_MAX_PID)
		return 0;
	page = atomic_load_explicit(&((struct store *)st)->comm[pid >> COMM_PAGE_SHIFT],
				    memory_order_acquire);
	if (!page)
		return 0;
	return atomic_load_explicit(&page[pid & (COMM_PAGE - 1)], memory_order_acquire);
}

const char *store_comm(const struct store *st, int32_t pid)
{
	uint32_t id1 = store_comm_id1(st, pid);

	return id1 ? intern_str(st->strings, id1 - 1) : NULL;
}

/* ---- stats ----------------------------------------------------------------- */

static void stream_stats(const struct store *st, unsigned int cpu, struct store_stats *o)
{
	struct stream *sm = (struct stream *)&st->sm[cpu];
	uint64_t pub, first, t_first = 0;

	pthread_mutex_lock(&sm->lock);
	pub = atomic_load_explicit(&sm->pub_end, memory_order_acquire);
	first = atomic_load_explicit(&sm->first_seq, memory_order_relaxed);
	if (pub > first) {
		if (sm->lo < sm->hi)
			t_first = sm->v[sm->lo]->t_min;
		else if (sm->open)
			t_first = sm->open->t_min;
	}
	pthread_mutex_unlock(&sm->lock);
	if (pub > first) {
		uint64_t last = atomic_load_explicit(&sm->last_pub_ts, memory_order_relaxed);

		o->events += pub - first;
		if (!o->first_ts || t_first < o->first_ts)
			o->first_ts = t_first;
		if (last > o->last_ts)
			o->last_ts = last;
	}
	o->appended += atomic_load_explicit(&sm->appended, memory_order_relaxed);
	o->evicted += atomic_load_explicit(&sm->evicted, memory_order_relaxed);
	o->lost += atomic_load_explicit(&sm->lost, memory_order_relaxed);
	o->lost_marks += atomic_load_explicit(&sm->lost_marks, memory_order_relaxed);
	o->reordered += atomic_load_explicit(&sm->reordered, memory_order_relaxed);
	o->bytes += atomic_load_explicit(&sm->bytes, memory_order_relaxed);
}

void store_get_stats(const struct store *st, struct store_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned int i = 0; i < st->ncpus; i++)
		stream_stats(st, i, out);
	out->limit = st->limit;
	out->lost_bytes = lostmarks_bytes(st->lost);
	out->tables = store_table_bytes(st);
	out->marks_evicted = lostmarks_evicted(st->lost);
}

void store_get_cpu_stats(const struct store *st, unsigned int cpu, struct store_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->limit = st->limit;
	if (cpu < st->ncpus)
		stream_stats(st, cpu, out);
}

size_t store_lost_marks(const struct store *st, uint64_t t0, uint64_t t1,
			struct store_lost *out, size_t max)
{
	return lostmarks_copy(st->lost, t0, t1, out, max);
}

size_t store_lost_marks_from(const struct store *st, uint64_t *seq, struct store_lost *out,
			     size_t max)
{
	return lostmarks_from(st->lost, seq, out, max);
}

void store_cpu_range(const struct store *st, unsigned int cpu, uint64_t *first, uint64_t *end)
{
	const struct stream *sm;

	*first = *end = 0;
	if (cpu >= st->ncpus)
		return;
	sm = &st->sm[cpu];
	*end = atomic_load_explicit(&sm->pub_end, memory_order_acquire);
	*first = atomic_load_explicit(&sm->first_seq, memory_order_acquire);
	if (*end < *first)
		*end = *first;
}

/* ---- reading ----------------------------------------------------------------- */

/* Called locked. Return: the chunk holding @seq, or NULL. */
static struct chunk *stream_find_locked(const struct stream *sm, uint64_t seq)
{
	size_t lo = sm->lo, hi = sm->hi;

	if (sm->open && seq >= sm->open->first_seq)
		return sm->open;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sm->v[mid]->first_seq <= seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == sm->lo)
		return NULL;
	if (seq >= sm->v[lo - 1]->first_seq + sm->v[lo - 1]->n)
		return NULL;
	return sm->v[lo - 1];
}

/*
 * Take a reference on the chunk holding @*seq; when @clamp, an evicted @*seq
 * moves up to the oldest held event. Return: the chunk, or NULL.
 */
static struct chunk *stream_ref(const struct stream *csm, uint64_t *seq, bool clamp)
{
	struct stream *sm = (struct stream *)csm;
	struct chunk *c;

	pthread_mutex_lock(&sm->lock);
	if (clamp) {
		uint64_t first = atomic_load_explicit(&sm->first_seq, memory_order_relaxed);

		if (*seq < first)
			*seq = first;
	}
	c = stream_find_locked(sm, *seq);
	if (c)
		atomic_fetch_add_explicit(&c->refs, 1, memory_order_relaxed);
	pthread_mutex_unlock(&sm->lock);
	return c;
}

/*
 * The rows of a referenced chunk: its raw buffer while it is open, else this
 * thread's decode of it, kept until the thread reads another chunk.
 * Return: NULL when the thread's decode buffer cannot be allocated.
 */
static const struct raw *chunk_rows(const struct chunk *c)
{
	struct tls_cache *tc;

	if (c->raw)
		return c->raw;
	tc = tls_cache_get();
	if (!tc)
		return NULL;
	if (tc->uid != c->uid) {
		chunk_decode(c, &tc->d, DEC_ALL);
		tc->uid = c->uid;
	}
	return &tc->d.r;
}

size_t store_get_range(const struct store *st, unsigned int cpu, uint64_t from, uint64_t to,
		       struct ktop_event *out)
{
	const struct stream *sm;
	uint64_t pub, q = from;
	size_t n = 0;

	if (cpu >= st->ncpus)
		return 0;
	sm = &st->sm[cpu];
	pub = atomic_load_explicit(&sm->pub_end, memory_order_acquire);
	if (to > pub)
		to = pub;
	while (q < to) {
		uint64_t seq = q, end;
		const struct raw *r;
		struct chunk *c = stream_ref(sm, &seq, false);

		if (!c) {	/* evicted meanwhile */
			memset(&out[n], 0, sizeof(out[n]));
			out[n].type = KTOP_T_NONE;
			n++;
			q++;
			continue;
		}
		r = chunk_rows(c);
		if (!r) {
			chunk_put(c);
			break;
		}
		end = c->first_seq + c->n;
		if (c->raw || end > to)
			end = to;	/* an open chunk's n is not kept up to date */
		for (; q < end; q++)
			raw_to_event(r, (uint32_t)(q - c->first_seq), cpu, &out[n++]);
		chunk_put(c);
	}
	return n;
}

int store_get(const struct store *st, unsigned int cpu, uint64_t seq, struct ktop_event *out)
{
	const struct stream *sm;
	const struct raw *r;
	struct chunk *c;
	int ret = 0;

	if (cpu >= st->ncpus)
		return -ENOENT;
	sm = &st->sm[cpu];
	if (seq >= atomic_load_explicit(&sm->pub_end, memory_order_acquire))
		return -ENOENT;
	c = stream_ref(sm, &seq, false);
	if (!c)
		return -ENOENT;
	r = chunk_rows(c);
	if (r)
		raw_to_event(r, seq - c->first_seq, cpu, out);
	else
		ret = -ENOMEM;
	chunk_put(c);
	return ret;
}

static uint32_t row_lower_bound(const struct store_brow *row, uint32_t n, uint64_t t)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (row[mid].ts < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint32_t ts_lower_bound(const uint64_t *ts, uint32_t n, uint64_t t)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ts[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t store_seek(const struct store *st, unsigned int cpu, uint64_t ts)
{
	struct stream *sm;
	uint64_t pub, first, seq;
	struct chunk *c = NULL;
	size_t lo, hi;

	if (cpu >= st->ncpus)
		return 0;
	sm = (struct stream *)&st->sm[cpu];
	pub = atomic_load_explicit(&sm->pub_end, memory_order_acquire);
	pthread_mutex_lock(&sm->lock);
	first = atomic_load_explicit(&sm->first_seq, memory_order_relaxed);
	/* the first sealed chunk ending at or after @ts, else the open one */
	lo = sm->lo;
	hi = sm->hi;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sm->v[mid]->t_max < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	c = lo < sm->hi ? sm->v[lo] : sm->open;
	if (c)
		atomic_fetch_add_explicit(&c->refs, 1, memory_order_relaxed);
	pthread_mutex_unlock(&sm->lock);
	if (pub < first)
		pub = first;
	if (!c)
		return pub;
	if (c->first_seq >= pub) {
		seq = pub;
	} else if (c->raw) {
		seq = c->first_seq + row_lower_bound(c->raw->row, pub - c->first_seq, ts);
	} else {
		uint64_t tsv[CHUNK_EVENTS];

		/* only the time column is decoded */
		chunk_decode_ts(c, tsv, 1);
		seq = c->first_seq + ts_lower_bound(tsv, c->n, ts);
	}
	chunk_put(c);
	if (seq > pub)
		seq = pub;
	if (seq < first)
		seq = first;
	return seq;
}

/*
 * Decode buffers of iterators and queries are big (~200 KiB): keep a few for
 * the next user rather than fault fresh pages in for every screen refresh.
 */
static struct decbuf *decbuf_get(struct store *st)
{
	struct decbuf *d = NULL;

	pthread_mutex_lock(&st->pool_lock);
	if (st->npool)
		d = st->pool[--st->npool];
	pthread_mutex_unlock(&st->pool_lock);
	return d ? d : malloc(sizeof(*d));
}

static void decbuf_put(const struct store *cst, struct decbuf *d)
{
	struct store *st = (struct store *)cst;

	if (!d)
		return;
	pthread_mutex_lock(&st->pool_lock);
	if (st->npool < DECBUF_POOL) {
		st->pool[st->npool++] = d;
		d = NULL;
	}
	pthread_mutex_unlock(&st->pool_lock);
	free(d);
}

/* A reader's position in one CPU stream, with its own decoded copy. */
struct cursor {
	uint64_t	bfirst;		/* seq of buffer index 0 */
	uint32_t	pos, end;	/* valid buffer indices [pos, end) */
	uint64_t	next;		/* seq of the next event to return */
	bool		off;		/* excluded, or past the window */
	struct decbuf	*d;
};

/* Refill @cu from @next. Return: true when events are available. */
static bool cursor_load(const struct stream *sm, struct cursor *cu, unsigned int mask)
{
	uint64_t pub = atomic_load_explicit(&sm->pub_end, memory_order_acquire);
	uint64_t seq = cu->next;
	struct chunk *c;

	if (seq >= pub)
		return false;
	if (!cu->d) {
		cu->d = decbuf_get(sm->st);
		if (!cu->d)
			return false;
	}
	c = stream_ref(sm, &seq, true);
	if (!c)
		return false;
	/*
	 * @seq was evicted meanwhile and moved on to the oldest chunk held, which
	 * may start past the end published when @pub was read: nothing to read
	 * in this snapshot yet (and pub - first_seq would wrap).
	 */
	if (seq >= pub) {
		chunk_put(c);
		return false;
	}
	cu->bfirst = c->first_seq;
	cu->pos = seq - c->first_seq;
	if (c->raw) {
		uint32_t a0, a1, end = pub - c->first_seq;
		const struct raw *r = c->raw;

		a0 = r->row[cu->pos].aoff;
		a1 = r->row[end - 1].aoff + r->row[end - 1].nargs;
		memcpy(&cu->d->r.row[cu->pos], &r->row[cu->pos],
		       (end - cu->pos) * sizeof(r->row[0]));
		memcpy(&cu->d->r.args[a0], &r->args[a0], (a1 - a0) * sizeof(r->args[0]));
		cu->end = end;
	} else {
		chunk_decode(c, cu->d, mask);
		cu->end = c->n;
		if (cu->bfirst + cu->end > pub)
			cu->end = pub - cu->bfirst;
	}
	cu->next = seq;
	chunk_put(c);
	return cu->pos < cu->end;
}

static inline bool cursor_ready(const struct stream *sm, struct cursor *cu, unsigned int mask)
{
	return cu->pos < cu->end || cursor_load(sm, cu, mask);
}

static inline void cursor_advance(struct cursor *cu)
{
	cu->pos++;
	cu->next++;
}

struct store_iter {
	const struct store	*st;
	uint64_t		t0, t1;
	struct cursor		cu[];
};

struct store_iter *store_iter_new(const struct store *st, uint64_t t0, uint64_t t1,
				  const uint64_t *cpus)
{
	struct store_iter *it;

	it = calloc(1, sizeof(*it) + st->ncpus * sizeof(it->cu[0]));
	if (!it)
		return NULL;
	it->st = st;
	it->t0 = t0;
	it->t1 = t1;
	for (unsigned int i = 0; i < st->ncpus; i++) {
		if (cpus && !(cpus[i / 64] & (1ull << (i % 64))))
			it->cu[i].off = true;
		else
			it->cu[i].next = store_seek(st, i, t0);
	}
	return it;
}

bool store_iter_next(struct store_iter *it, struct ktop_event *out, uint64_t *seq)
{
	const struct store *st = it->st;
	struct cursor *best = NULL;
	uint64_t best_ts = UINT64_MAX;
	unsigned int best_cpu = 0;

	for (unsigned int i = 0; i < st->ncpus; i++) {
		struct cursor *cu = &it->cu[i];
		uint64_t t;

		if (cu->off || !cursor_ready(&st->sm[i], cu, DEC_ALL))
			continue;
		t = cu->d->r.row[cu->pos].ts;
		if (t < it->t0) {
			/* evicted under us and clamped: skip to the window */
			while (cursor_ready(&st->sm[i], cu, DEC_ALL) &&
			       cu->d->r.row[cu->pos].ts < it->t0)
				cursor_advance(cu);
			if (cu->pos >= cu->end)
				continue;
			t = cu->d->r.row[cu->pos].ts;
		}
		if (t > it->t1) {
			cu->off = true;
			continue;
		}
		if (!best || t < best_ts) {
			best = cu;
			best_ts = t;
			best_cpu = i;
		}
	}
	if (!best)
		return false;
	raw_to_event(&best->d->r, best->pos, best_cpu, out);
	if (seq)
		*seq = best->next;
	cursor_advance(best);
	return true;
}

void store_iter_free(struct store_iter *it)
{
	if (!it)
		return;
	for (unsigned int i = 0; i < it->st->ncpus; i++)
		decbuf_put(it->st, it->cu[i].d);
	free(it);
}

/* ---- chunk-level reading ------------------------------------------------------- */

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
	size_t lo, hi, n = 0;

	if (cpu >= st->ncpus || !max)
		return 0;
	sm = (struct stream *)&st->sm[cpu];
	pthread_mutex_lock(&sm->lock);
	pub = atomic_load_explicit(&sm->pub_end, memory_order_acquire);
	/* the first sealed chunk ending past @from */
	lo = sm->lo;
	hi = sm->hi;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sm->v[mid]->first_seq + sm->v[mid]->n <= from)
			lo = mid + 1;
		else
			hi = mid;
	}
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

		md = get_meta(md, &mt);
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
