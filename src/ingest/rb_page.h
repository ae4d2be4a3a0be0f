/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The layout of a ring-buffer page as trace_pipe_raw hands it out and
 * trace.dat stores it (kernel/trace/ring_buffer.c; libtraceevent's kbuffer.h
 * says the same): one definition for the readers that walk pages (decode.c,
 * consumer.c) and the writer that builds them (formats/tracedat.c).
 *
 *   page:   u64 timestamp | long commit | event...
 *           commit: bytes of events in the low RB_COMMIT_BITS, and the
 *           RB_MISSED_* flags in the top bits
 *   event:  u32 header: type_len (5 bits) | time delta (27 bits)
 *           type_len 1..RB_TYPE_DATA_MAX: data of type_len * 4 bytes follows
 *           type_len 0: a u32 length (including itself), then the data
 *           RB_TYPE_PADDING: a u32 length of padding follows (0: end of page)
 *           RB_TYPE_TIME_EXTEND: the next u32 holds delta bits 27..58
 *           RB_TYPE_TIME_STAMP: the same, an absolute time
 */
#ifndef KTOP_RB_PAGE_H
#define KTOP_RB_PAGE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define RB_TYPE_BITS		5
#define RB_TYPE_MASK		((1u << RB_TYPE_BITS) - 1)
#define RB_TYPE_DATA_MAX	28
#define RB_TYPE_PADDING		29
#define RB_TYPE_TIME_EXTEND	30
#define RB_TYPE_TIME_STAMP	31

#define RB_TS_SHIFT		27	/* bits of delta in an event header */
#define RB_EVENT_HDR		4	/* bytes of an event header */
#define RB_MAX_SMALL_DATA	(RB_TYPE_DATA_MAX * 4)	/* most data without a length word */

#define RB_COMMIT_BITS		27
#define RB_COMMIT_MASK		((1u << RB_COMMIT_BITS) - 1)
#define RB_MISSED_EVENTS	(1ull << 31)	/* events were lost before this page */
#define RB_MISSED_STORED	(1ull << 30)	/* and their count follows the last event */

/* The page header on a kernel whose long is @long_size bytes (4 or 8). */
#define RB_PAGE_HDR(long_size)	(8 + (long_size))

/*
 * A walk over the events of one page in the host's byte order, as
 * kbuffer_next_event() does but inline: in decode.c's loop that walk's
 * indirect calls cost more than the decoding itself.
 *
 *	struct rb_walk w;
 *	const uint8_t *rec;
 *	uint32_t len;
 *
 *	if (rb_walk_init(&w, page, page_len, long_size))
 *		while (rb_walk_next(&w, &rec, &len) == RB_WALK_EVENT)
 *			use(rec, len, w.ts);
 */
struct rb_walk {
	const uint8_t	*data;		/* the first event */
	uint32_t	size;		/* bytes of events: the commit, within the page */
	uint32_t	off;		/* of the next event header */
	uint64_t	ts;		/* of the event last returned */
	uint64_t	commit;		/* the page's commit word, flags included */
};

enum rb_walk_ret {
	RB_WALK_BAD	= -1,		/* an event that runs past the commit */
	RB_WALK_END	= 0,
	RB_WALK_EVENT	= 1,
};

static inline uint32_t rb_load32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/*
 * Start a walk over @page, @len bytes, of a kernel whose long is @long_size
 * bytes. Return: 0, or -1 when @len cannot hold the page header.
 */
static inline int rb_walk_init(struct rb_walk *w, const void *page, size_t len, int long_size)
{
	size_t hdr = RB_PAGE_HDR((size_t)long_size);

	w->commit = 0;
	w->off = 0;
	w->size = 0;
	w->ts = 0;
	w->data = (const uint8_t *)page + hdr;
	if (len < hdr)
		return -1;
	memcpy(&w->ts, page, 8);
	memcpy(&w->commit, (const uint8_t *)page + 8, (size_t)long_size);
	w->size = (uint32_t)(w->commit & RB_COMMIT_MASK);
	if (w->size > len - hdr)
		w->size = (uint32_t)(len - hdr);
	return 0;
}

/*
 * The next data event: its payload in *@rec, *@len bytes (rounded up to 4
 * for a long event, as the kernel stores it), its time in w->ts. Padding and
 * time extends are taken in passing. Return: enum rb_walk_ret.
 */
static inline __attribute__((always_inline)) int
rb_walk_next(struct rb_walk *w, const uint8_t **rec, uint32_t *len)
{
	while (w->off + RB_EVENT_HDR <= w->size) {
		const uint8_t *ev = w->data + w->off;
		uint32_t h = rb_load32(ev), type_len = h & RB_TYPE_MASK, rlen;
		uint64_t delta = h >> RB_TYPE_BITS;

		switch (type_len) {
		case RB_TYPE_PADDING:
			if (w->off + 8 > w->size)
				return RB_WALK_END;
			rlen = rb_load32(ev + 4);
			if (rlen > w->size - w->off - 4)
				return RB_WALK_END;
			w->off += 4 + rlen;
			continue;
		case RB_TYPE_TIME_EXTEND:
		case RB_TYPE_TIME_STAMP:
			if (w->off + 8 > w->size)
				return RB_WALK_END;
			delta += (uint64_t)rb_load32(ev + 4) << RB_TS_SHIFT;
			w->ts = type_len == RB_TYPE_TIME_STAMP ? delta : w->ts + delta;
			w->off += 8;
			continue;
		case 0:
			if (w->off + 8 > w->size)
				return RB_WALK_END;
			rlen = rb_load32(ev + 4);
			if (rlen < 4)
				return RB_WALK_BAD;
			rlen = (rlen - 4 + 3) & ~3u;
			*rec = ev + 8;
			break;
		default:
			rlen = type_len * 4;
			*rec = ev + 4;
			break;
		}
		if (rlen > w->size - w->off - (uint32_t)(*rec - ev))
			return RB_WALK_BAD;
		w->off += (uint32_t)(*rec - ev) + rlen;
		w->ts += delta;
		*len = rlen;
		return RB_WALK_EVENT;
	}
	return RB_WALK_END;
}

#endif
