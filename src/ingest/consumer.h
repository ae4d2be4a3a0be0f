/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tracefs consumer: reads every CPU's trace_pipe_raw without blocking
 * (poll + non-blocking splice of whole pages, read() of the partly filled
 * one) into a bounded per-CPU page queue,
 * decodes the queued pages and appends to the store. Reading is never held up
 * by decoding: when the queue is full, pages are dropped and counted as lost
 * by ktop (ktop_dropped), apart from what the kernel lost. Collector threads
 * block all signals, name themselves, and wake the UI through a file
 * descriptor.
 *
 * Tuning (src/lib/tuning.h): KTOP_READ_QUEUE_MB (page queue per CPU),
 * KTOP_DECODE_THREAD (decode in a second thread per CPU instead of in the
 * reader when the kernel buffer is empty), KTOP_NO_SPLICE (read() every page,
 * the partly filled one at each wake-up, as before splicing; for comparison
 * in tests/bench/live_loss.sh).
 */
#ifndef KTOP_CONSUMER_H
#define KTOP_CONSUMER_H

#include <stdint.h>
#include "decode.h"

struct session;
struct store;
struct decode_ctx;
struct consumer;

struct consumer_cpu_stats {
	uint64_t	events;		/* decoded */
	uint64_t	pages;
	uint64_t	bytes;
	uint64_t	missed;		/* from missed-event marks */
	uint64_t	overrun;	/* per_cpu/cpuN/stats "overrun" */
	uint64_t	dropped;	/* per_cpu/cpuN/stats "dropped events" */
	/* decoded events with each flag category (enum decode_flag) */
	uint64_t	flags[DECODE_F_NR];
	uint64_t	flags_unrecorded;	/* decoded events in no category: ktop_ctx_recorded() */
	/*
	 * read from the kernel but dropped by ktop: the page queue was full
	 * (marked in the store, once decoding reaches them, as STORE_LOST_KTOP)
	 */
	uint64_t	ktop_dropped;		/* events in those pages */
	uint64_t	ktop_dropped_pages;
	uint64_t	backlog_pages;		/* read, not yet decoded (now) */
	uint64_t	backlog_max;		/* highest backlog so far */
	uint64_t	queue_pages;		/* capacity of the page queue */
	uint64_t	page_size;
	uint64_t	read_ns;		/* thread CPU time reading pages */
	uint64_t	decode_ns;		/* thread CPU time decoding and storing */
	uint64_t	stacks;			/* stack records tied to their event */
	uint64_t	stack_dropped;		/* stack records without one (decode.h) */
	uint64_t	stack_cut;		/* events whose stack a stop cut (decode.h) */
	bool		held;			/* an event waits for its stack (decode.h) */
};

/**
 * consumer_start - start reading
 * @wake_fd: written (8-byte eventfd increment) when new data was published;
 *           -1 for none
 * Return: 0, or a negative errno (nothing left running on failure).
 */
int consumer_start(struct consumer **out, struct session *s, struct store *st,
		   struct decode_ctx *dc, int wake_fd);

/*
 * Ask every reader to take what the kernel holds now, the partly filled page
 * included (readers splice whole pages and take a partial one only on a poll
 * timeout or this request), without waiting for it: the store shows it once
 * the readers have decoded it. For a summary "up to now" after
 * session_stop(). Context: any thread. Accepts NULL.
 */
void consumer_flush(struct consumer *c);

/* Stop, join, drain what is left in the kernel buffers. Accepts NULL. */
void consumer_stop(struct consumer *c);

/*
 * All counters are cumulative since consumer_start() (backlog_* and the
 * sizes excepted); take differences for a rate. Context: any thread.
 */
void consumer_get_stats(struct consumer *c, unsigned int cpu, struct consumer_cpu_stats *out);

/**
 * consumer_page_records - the number of event records on a raw ring-buffer
 * page (as read from trace_pipe_raw), from the record headers alone: what a
 * page dropped by ktop held. Padding and time stamps do not count.
 * @long_size: the kernel's long, 8 or 4 (the size of the page's commit field)
 * Context: any thread.
 * Return: the number of data records.
 */
uint64_t consumer_page_records(const void *page, size_t len, int long_size);

#endif
