/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the C benchmarks share: the thread's CPU time (the machine is shared,
 * so a figure is what ktop's thread spent, not the wall clock), percentiles
 * of a run of samples, and a 64-bit mixer for reproducible synthetic data.
 */
#ifndef KTOP_BENCH_UTIL_H
#define KTOP_BENCH_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* The calling thread's CPU time, ns. */
static inline uint64_t bench_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline int bench_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The @p quantile (0..1) of @n samples in ns, in ms. Sorts @v. */
static inline double bench_pct_ms(uint64_t *v, int n, double p)
{
	qsort(v, (size_t)n, sizeof(*v), bench_cmp_u64);
	return (double)v[(int)((n - 1) * p)] / 1e6;
}

/* A 64-bit mix (MurmurHash3's finalizer, first half): reproducible spread. */
static inline uint64_t bench_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

#endif
