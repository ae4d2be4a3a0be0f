/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ktop's clocks, in nanoseconds. Monotonic time for intervals, deadlines and
 * rates (never CLOCK_REALTIME, which jumps); a thread's CPU time for what a
 * thread spent (the readers' and decoders' own cost, the UI's feed budget).
 *
 * The kernel's trace clock is another matter: events carry the timestamp
 * of the instance's trace_clock, see session.c.
 */
#ifndef KTOP_CLOCK_H
#define KTOP_CLOCK_H

#include <stdint.h>
#include <time.h>

#define NSEC_PER_SEC	1000000000ull
#define NSEC_PER_MSEC	1000000ull

static inline uint64_t clock_ns_of(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * NSEC_PER_SEC + (uint64_t)ts->tv_nsec;
}

/**
 * clock_mono_ns - CLOCK_MONOTONIC now
 * Context: any thread; about 20 ns (vDSO).
 */
static inline uint64_t clock_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return clock_ns_of(&ts);
}

/**
 * clock_wall_ns - CLOCK_REALTIME now: a time of day to show the user (when a
 * stream ended), never to measure an interval with
 * Context: any thread.
 */
static inline uint64_t clock_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return clock_ns_of(&ts);
}

/**
 * clock_thread_ns - the CPU time the calling thread has used
 * Context: any thread; a system call on some kernels (~200 ns), so not per event.
 */
static inline uint64_t clock_thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return clock_ns_of(&ts);
}

#endif
