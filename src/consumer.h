/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tracefs consumer: reads every CPU's trace_pipe_raw without blocking
 * (poll + non-blocking tracefs_cpu_read), decodes the pages and appends to the
 * store. Collector threads block all signals, name themselves, and wake the UI
 * through a file descriptor.
 */
#ifndef KTOP_CONSUMER_H
#define KTOP_CONSUMER_H

#include <stdint.h>

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
};

/**
 * consumer_start - start reading
 * @wake_fd: written (8-byte eventfd increment) when new data was published;
 *           -1 for none
 * Return: 0, or a negative errno (nothing left running on failure).
 */
int consumer_start(struct consumer **out, struct session *s, struct store *st,
		   struct decode_ctx *dc, int wake_fd);

/* Stop, join, drain what is left in the kernel buffers. Accepts NULL. */
void consumer_stop(struct consumer *c);

/* Context: any thread. */
void consumer_get_stats(struct consumer *c, unsigned int cpu, struct consumer_cpu_stats *out);

#endif
