/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The .ktop format's private definitions, shared by its writer
 * (ktop_write.c) and reader (ktop_read.c).
 *
 * Layout, little-endian:
 *   file header  "KTOPSNAP" u32 version u32 header_size(32) u64 created_ns
 *                u32 flags u32 crc32(bytes 0..27)
 *   block        u32 'KBLK' u8 type u8 flags u16 0 u32 raw_len u32 comp_len
 *                u32 crc32(payload) u32 crc32(bytes 0..19), then comp_len
 *                bytes: one zstd frame of raw_len bytes, or (flag BLK_F_RAW)
 *                the raw_len bytes themselves
 * Inside the payloads, integers are LEB128 varints (zigzag for signed ones),
 * except the chunks of a CHUNKS block, which are the store's own bytes
 * (store_chunk_export()).
 */
#ifndef KTOP_FORMAT_KTOP_LOCAL_H
#define KTOP_FORMAT_KTOP_LOCAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "ktop_stacks.h"

#define SNAP_MAGIC		"KTOPSNAP"
#define SNAP_HDR_SIZE		32
#define BLK_MAGIC		0x4b4c424bu	/* "KBLK" */
#define BLK_HDR_SIZE		24
#define BLK_F_RAW		0x01	/* flags: the payload is stored, not compressed */
/*
 * Version 4 on: a reader that does not know the block's type skips it. The
 * blocks that only add to what the events say carry it (AGG), so that a
 * later block type need not make every older reader refuse the file.
 */
#define BLK_F_OPTIONAL		0x02
#define WRITE_BLOCK_EVENTS	16384u
#define WRITE_CHUNK_BYTES	(4u << 20)	/* raw bytes of a CHUNKS block, about */
#define WRITE_BLOCK_ITEMS	65536u	/* lost marks or comms in one block */
#define COMM_SCAN_MAX		(1u << 23)	/* store.c COMM_MAX_PID */

enum blk_type {
	BLK_META = 1,
	BLK_SCHEMA,
	BLK_STRINGS,
	BLK_COMM,
	BLK_EVENTS,
	BLK_LOST,	/* u count, per record: cpu, ts, count, why (version 3 on) */
	BLK_END,
	BLK_STACKS = SNAP_BLK_STACKS,	/* stacks (ktop_stacks.h), version 1 on */
	BLK_EVSTK = SNAP_BLK_EVSTK,
	BLK_STACKW = SNAP_BLK_STACKW,
	BLK_CHUNKS,	/* version 2: u32 count, then per chunk: cpu, u32 length, its bytes */
	BLK_BPF,	/* a poll of the BPF statistics (ktop_bpf.c), streams of version 2 on */
	BLK_AGG,	/* in-kernel aggregations' results (ktop_agg.c), version 4 on */
	BLK_NR,
};

enum meta_key {
	MK_RELEASE = 1,
	MK_HOSTNAME,
	MK_TRACER,
	MK_CLOCK,
	MK_NCPUS,
	MK_PAGE_SIZE,
	MK_HEADER_PAGE,
	MK_KALLSYMS,
	MK_FEATURES,
	MK_FORMAT,	/* system NUL text */
	/* added with version 2 (a version 1 reader skips keys it does not know) */
	MK_HEADER_EVENT,
	MK_PRINTK,
	MK_CMDLINES,
	MK_OPTIONS,
	MK_BUFFER,	/* one buffer: "cpu0 ncpus page_size\tclock\tname" */
	MK_SAVE_NOTE,	/* why a flight recorder wrote the file (snapshot_meta.save_note) */
};

/* The columns of an events block, in the order they are written and read back. */
enum ev_col { EV_DTS, EV_PID, EV_TYPE, EV_FLAGS, EV_PC, EV_NARGS, EV_ARGS, EV_NCOLS };

/*
 * The meta keys that hold one member of struct snapshot_meta, in the order the
 * writer puts them: the writer and the reader walk this one table. MK_NCPUS
 * (written from the store), MK_BUFFER and MK_FORMAT are handled apart.
 */
enum meta_kind {
	MF_ARRAY,	/* a char array, truncated to fit */
	MF_TEXT,	/* a char * the meta owns */
	MF_UINT,	/* a uint32_t in decimal, left out when 0 */
};

struct meta_field {
	enum meta_key	key;
	enum meta_kind	kind;
	size_t		off;	/* offsetof(struct snapshot_meta, member) */
	size_t		size;	/* sizeof the member */
};

extern const struct meta_field ktop_meta_fields[];
extern const size_t ktop_meta_nfields;

/* ---- byte buffers and cursors --------------------------------------------- */

struct buf {
	uint8_t	*p;
	size_t	len, cap;
	int	err;
};

static inline int buf_reserve(struct buf *b, size_t more)
{
	size_t cap;
	uint8_t *n;

	if (b->err)
		return b->err;
	if (b->len + more <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + more)
		cap *= 2;
	n = realloc(b->p, cap);
	if (!n)
		return b->err = -ENOMEM;
	b->p = n;
	b->cap = cap;
	return 0;
}

static inline void buf_put(struct buf *b, const void *p, size_t n)
{
	if (buf_reserve(b, n))
		return;
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static inline void buf_u8(struct buf *b, uint8_t v)
{
	if (b->len < b->cap) {
		b->p[b->len++] = v;
		return;
	}
	buf_put(b, &v, 1);
}

static inline void buf_var(struct buf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n++] = (v & 0x7f) | (v > 0x7f ? 0x80 : 0);
		v >>= 7;
	} while (v);
	if (b->len + n <= b->cap) {
		memcpy(b->p + b->len, tmp, n);
		b->len += n;
		return;
	}
	buf_put(b, tmp, n);
}

static inline uint64_t zz_enc(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t zz_dec(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline void buf_str(struct buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	buf_var(b, n);
	buf_put(b, s, n);
}

/* At most @max bytes of @s, up to its NUL (a fixed char array's text). */
static inline void buf_strn(struct buf *b, const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	buf_var(b, n);
	buf_put(b, s, n);
}

static inline void buf_free(struct buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

struct cur {
	const uint8_t	*p, *end;
	bool		bad;
};

static inline uint64_t cur_var(struct cur *c)
{
	uint64_t v = 0;
	unsigned int shift = 0;

	if (__builtin_expect(c->p < c->end && *c->p < 0x80, 1))
		return *c->p++;	/* the common one-byte case */

	while (c->p < c->end) {
		uint8_t x = *c->p++;

		if (shift == 63 && x > 1)
			break;
		v |= (uint64_t)(x & 0x7f) << shift;
		if (!(x & 0x80))
			return v;
		shift += 7;
		if (shift > 63)
			break;
	}
	c->bad = true;
	return 0;
}

static inline uint8_t cur_u8(struct cur *c)
{
	if (c->p >= c->end) {
		c->bad = true;
		return 0;
	}
	return *c->p++;
}

/* A length-prefixed string, copied NUL-terminated (free it), NULL when bad. */
static inline char *cur_strdup(struct cur *c, size_t max)
{
	uint64_t n = cur_var(c);
	char *s;

	if (c->bad || n > max || n > (size_t)(c->end - c->p)) {
		c->bad = true;
		return NULL;
	}
	s = malloc(n + 1);
	if (!s) {
		c->bad = true;
		return NULL;
	}
	memcpy(s, c->p, n);
	s[n] = 0;
	c->p += n;
	return s;
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static inline uint32_t get_le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

static inline uint32_t crc(const void *p, size_t n)
{
	return (uint32_t)crc32(crc32(0, NULL, 0), p, (uInt)n);
}



struct format_out;
struct store;
struct snapshot_meta;
struct export_opts;
struct export_stats;

/* format_ktop.save (ktop_write.c). */
int ktop_save(const struct format_out *out, struct store *st, const struct snapshot_meta *meta,
	      const struct export_opts *eo, struct export_stats *stats, char *err, size_t errlen);

#endif
