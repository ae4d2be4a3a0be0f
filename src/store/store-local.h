/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The store's private definitions, shared by store.c (streams, readers,
 * eviction) and store_codec.c (encoding and decoding sealed chunks, and
 * checking the bytes of a chunk that comes from a file).
 */
#ifndef KTOP_STORE_LOCAL_H
#define KTOP_STORE_LOCAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "store.h"

struct intern;
struct schema;
struct lostmarks;
struct stacks;

#define CHUNK_EVENTS	STORE_CHUNK_EVENTS
#define CHUNK_ARGS	(CHUNK_EVENTS * 4)
#define PID_DICT_MAX	4096		/* pids per chunk: event pids plus pid arguments */
#define PID_HASH_BITS	13
#define PID_HASH	(1u << PID_HASH_BITS)
#define META_HASH	4096
#define META_CACHE	256		/* direct-mapped, in front of the meta hash */
#define PREV_TYPES	128
#define PREV_SYS	64		/* sys_enter arguments: previous values per syscall */
#define PREV_ROWS	(PREV_TYPES + PREV_SYS)
#define DECBUF_POOL	64
#define STK_HASH_BITS	12
#define STK_HASH	(1u << STK_HASH_BITS)	/* stack ids per chunk: at most CHUNK_EVENTS */

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

/*
 * A slot of a chunk's pid or stack-id dictionary: key -> index. The tables
 * are not cleared between chunks: a slot whose stamp is not the chunk's is
 * empty.
 */
struct enc_slot {
	uint32_t	key;
	uint32_t	stamp;
	uint32_t	idx;
};

/*
 * enc_slot_find - the slot of @key in @tab (2^@bits slots) for the chunk
 * @stamp: the key's own, or the empty one where the caller adds it.
 */
static inline struct enc_slot *enc_slot_find(struct enc_slot *tab, unsigned int bits,
					     uint32_t stamp, uint32_t key)
{
	uint32_t h = (key * 0x9e3779b1u) >> (32 - bits);

	while (tab[h].stamp == stamp && tab[h].key != key)
		h = (h + 1) & ((1u << bits) - 1);
	return &tab[h];
}

/* Writer-private encoding scratch. */
struct enc {
	uint32_t	stamp;
	uint32_t	npid, nmeta;
	struct enc_slot	ph[PID_HASH];
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
	struct enc_slot	sh[STK_HASH];
	uint32_t	nstk;
	uint32_t	any_stack;	/* the rows' stack ids or'ed: 0, no column */
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
	_Atomic uint64_t	lost_why[STORE_LOST_NR];
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
#define COMM_TS_LOCK	(1ull << 63)	/* set in a ts while its entry is written */

/*
 * 4096 pids' comms. A name is kept with the trace time it was last seen at:
 * the per-CPU readers decode at different paces, and a lagging CPU's event
 * from before an exec must not bring the old name back (store_set_comm).
 */
struct comm_page {
	_Atomic uint64_t	ts[COMM_PAGE];	/* COMM_TS_LOCK while written */
	_Atomic uint32_t	id1[COMM_PAGE];	/* interned id + 1, 0 none */
};

struct store {
	unsigned int		ncpus;
	size_t			limit;
	struct intern		*strings;
	struct schema		*schema;
	struct stacks		*stacks;
	/* sched_switch's prev_state letters (store_set_task_states), set once */
	struct taskstate_fmt *_Atomic	tstates;
	_Atomic int64_t		bytes;		/* chunks and their raw buffers */
	_Atomic int64_t		comm_bytes;	/* comm pages */
	pthread_mutex_t		evict_lock;
	pthread_mutex_t		pool_lock;	/* readers' decode buffers, reused */
	struct decbuf		*pool[DECBUF_POOL];
	unsigned int		npool;
	struct lostmarks	*lost;
	struct comm_page *_Atomic comm[COMM_MAX_PID / COMM_PAGE + 1];	/* by pid >> 12 */
	struct stream		sm[];
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

/* A value of a section ending at @end: NULL when it would run past it. */
static inline const uint8_t *get_uv_in(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	if (p >= end)
		return NULL;
	p = get_uv(p, v);
	return p <= end ? p : NULL;
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

static inline const uint8_t *get_rle(const uint8_t *p, uint16_t *idx, uint32_t n)
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

/* ---- store_codec.c ---------------------------------------------------------- */

/* What chunk_decode() decodes. */
enum {
	DEC_TS		= 1,
	DEC_PID		= 2,
	DEC_META	= 4,
	DEC_ARGS	= 8,
	DEC_STACK	= 16,
	DEC_ALL		= 31,
};

/*
 * chunk_encode - a sealed chunk holding the @n events of @r (first seq
 * @first_seq), encoded with @e (the writer thread's scratch) and the codecs
 * @st's schema gives dynamic types. Return: the chunk (refs 1), or NULL on ENOMEM.
 */
struct chunk *chunk_encode(struct store *st, struct enc *e, const struct raw *r, uint32_t n,
			   uint64_t first_seq);
/* Decode the columns @mask (DEC_*) of sealed chunk @c into @d. */
void chunk_decode(const struct chunk *c, struct decbuf *d, unsigned int mask);
/* Decode the time column into ts[0], ts[stride], ... */
void chunk_decode_ts(const struct chunk *c, uint64_t *ts, size_t stride);
/* Read one entry of a sealed chunk's meta dictionary into @m. Return: past it. */
const uint8_t *chunk_get_meta(const uint8_t *p, struct meta *m);
/* A sealed chunk of @len bytes of data (refs 1, a fresh uid), the rest zero; NULL: ENOMEM. */
struct chunk *chunk_alloc(size_t len);
/* A fresh id for a chunk's contents (decode caches key on it). */
uint64_t chunk_uid_new(void);

/* The most bytes chunk_export() writes. */
size_t chunk_export_max(void);
/* Write sealed chunk @c as bytes (header, data) to @out. Return: how many. */
size_t chunk_export(const struct chunk *c, uint8_t *out);
/*
 * chunk_import - a sealed chunk from the bytes chunk_export() wrote, checked
 * (chunk_check) against @sc and the stack table's highest id @max_stack
 * before anything trusts it
 * Return: 0 and the chunk (refs 1, first_seq and sm unset), -EBADMSG with
 * @why, or -ENOMEM.
 */
int chunk_import(const struct schema *sc, uint32_t max_stack, const uint8_t *in, size_t len,
		 struct chunk **out, char *why, size_t whylen);

/* ---- store_stack.c: the stack column ---------------------------------------------- */

/* The stack column of the @n rows of @r at @p (e->nstk: its dictionary size). Return: the end. */
uint8_t *chunk_encode_stacks(struct enc *e, uint8_t *p, const struct raw *r, uint32_t n);
/* The stack column of @c into d->r.row[].stack (zeros when it has none). */
void chunk_decode_stacks(const struct chunk *c, struct decbuf *d);
/* Is the stack column of an imported @c whole, its ids at most @max_id? Return: NULL or why not. */
const char *chunk_check_stacks(const struct chunk *c, uint32_t max_id);

/* ---- store.c ------------------------------------------------------------------ */

void stream_bytes_add(struct stream *sm, int64_t d);
/* Drop a reference; the last one frees the chunk (and recycles an open one's rows). */
void chunk_put(struct chunk *c);
/* Row @i of @r as an event of @cpu. */
void raw_to_event(const struct raw *r, uint32_t i, unsigned int cpu, struct ktop_event *ev);
/* Is @st over its memory limit? */
bool store_over(const struct store *st);
/* Drop the oldest chunks and marks until under the limit. */
void store_evict(struct store *st);
/*
 * Take a reference on the chunk holding @*seq; when @clamp, an evicted @*seq
 * moves up to the oldest held event. Return: the chunk, or NULL.
 */
struct chunk *stream_ref(const struct stream *sm, uint64_t *seq, bool clamp);
/* Called locked. Return: the index in v[lo..hi] of the first sealed chunk that
 * ends after @seq (hi: none does). */
size_t stream_sealed_after(const struct stream *sm, uint64_t seq);
/* A decode buffer from the pool (or malloc), and back. */
struct decbuf *decbuf_get(struct store *st);
void decbuf_put(const struct store *st, struct decbuf *d);
/* Writer: append sealed chunk @c to @sm's list; the open chunk leaves it. Return: 0, -ENOMEM. */
int stream_push(struct stream *sm, struct chunk *c);
/* Writer: seal @sm's open chunk. Return: 0, -ENOMEM. */
int stream_seal(struct stream *sm);

#endif
