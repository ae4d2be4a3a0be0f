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

#endif
