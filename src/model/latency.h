/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The osnoise/timerlat latency model: per-CPU tables, a totals row,
 * histograms, a max-latency-over-time series for sparklines, and each CPU's
 * worst sample with the time window that holds its cause.
 *
 * Fed with decoded events (any type; only these are used):
 *   KTOP_T_TIMERLAT        seqnum, context (0 irq, 1 thread, 2 user-return),
 *                          timer_latency (ns)
 *   KTOP_T_OSNOISE         runtime, noise, max_sample (all in us, as the
 *                          kernel's osnoise tracer writes them), hw_count,
 *                          nmi_count, irq_count, softirq_count, thread_count
 *   KTOP_T_IRQ_NOISE, KTOP_T_SOFTIRQ_NOISE, KTOP_T_NMI_NOISE,
 *   KTOP_T_THREAD_NOISE, KTOP_T_SAMPLE_THRESHOLD   start (ns), duration (ns)
 *                          (the argument slots of src/store/event.h)
 * Every figure the model gives back is in ns.
 *
 * Context: one model belongs to one thread (the UI or the batch printer).
 */
#ifndef KTOP_LATENCY_H
#define KTOP_LATENCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "store/event.h"

struct latency;

/* What is measured: the rows of the table and the histograms. */
enum latency_series {
	LATENCY_TL_IRQ,		/* timerlat, IRQ context */
	LATENCY_TL_THREAD,	/* timerlat, thread context */
	LATENCY_TL_USER,	/* timerlat, return to user space (timerlat -u) */
	LATENCY_OS_SAMPLE,	/* osnoise: max single noise of each period */
	LATENCY_OS_NOISE,	/* osnoise: each noise event's duration */
	LATENCY_NSERIES,
};

/* The noise events, by kind: index = type - KTOP_T_IRQ_NOISE. */
enum latency_noise {
	LATENCY_N_IRQ,
	LATENCY_N_SOFTIRQ,
	LATENCY_N_NMI,
	LATENCY_N_THREAD,
	LATENCY_N_THRESHOLD,	/* osnoise:sample_threshold */
	LATENCY_NNOISE,
};

enum latency_hist_mode {
	LATENCY_HIST_LOG2,	/* bucket 0: [0, 2) ns, bucket i: [2^i, 2^(i+1)) ns */
	LATENCY_HIST_LINEAR,	/* bucket i: [i*w, (i+1)*w); the last one takes the rest */
};

struct latency_config {
	enum latency_hist_mode	hist_mode;
	uint64_t		bucket_ns;	/* LINEAR width; 0: 1000 (1 us) */
	unsigned int		nbuckets;	/* 0: 64 (LOG2) or 100 (LINEAR) */
	uint64_t		spark_ns;	/* sparkline interval; 0: 1 s */
	unsigned int		spark_len;	/* intervals kept; 0: 120 */
	uint64_t		stop_ns;	/* latency_feed() returns 1 above this; 0: off */
	uint64_t		osnoise_unit_ns; /* unit of the osnoise sample fields; 0: 1000 */
};

struct latency_stat {
	uint64_t	count;
	uint64_t	cur;		/* last value */
	uint64_t	min, max, sum;	/* avg = sum / count; min is 0 when count is 0 */
	uint64_t	max_ts;		/* when the max was seen */
};

struct latency_worst {
	bool		valid;
	enum latency_series series;
	int		cpu;
	uint64_t	value;		/* ns */
	uint64_t	ts;		/* the sample's event time */
	uint64_t	win_start;	/* where to look for the cause: [win_start, win_end] */
	uint64_t	win_end;
	uint64_t	seqnum;		/* timerlat's sequence number, 0 for osnoise */
};

struct latency_row {
	int			cpu;		/* -1: the totals row */
	struct latency_stat	tl[3];		/* LATENCY_TL_IRQ..LATENCY_TL_USER */
	/* osnoise, summed over periods as rtla osnoise top does */
	uint64_t		os_samples;	/* periods */
	uint64_t		os_runtime;	/* sum of runtime, ns */
	uint64_t		os_noise;	/* sum of noise, ns */
	uint64_t		os_cur_runtime, os_cur_noise;	/* the last period */
	uint64_t		os_max_noise;	/* largest per-period noise, ns */
	uint64_t		os_max_single;	/* largest single noise, ns */
	uint32_t		os_avail_ppm;	/* CPU available: (runtime-noise)/runtime, ppm */
	uint64_t		hw, nmi, irq, softirq, thread;	/* interference counts */
	struct latency_stat	noise[LATENCY_NNOISE];	/* the noise events' durations */
	struct latency_worst	worst;
};

/**
 * latency_new - an empty model
 * @cfg: may be NULL for the defaults; copied
 * Return: the model (free with latency_free), or NULL on ENOMEM/EINVAL.
 */
struct latency *latency_new(const struct latency_config *cfg);
void latency_free(struct latency *l);
void latency_reset(struct latency *l);

/**
 * latency_feed - add one event (other types are ignored)
 * Events of one CPU must come in time order; CPUs may interleave.
 * Return: 1 when this sample is above stop_ns (the caller freezes the view),
 * 0 otherwise, or -ENOMEM.
 */
int latency_feed(struct latency *l, const struct ktop_event *ev);

struct store;

/**
 * latency_feed_store - feed the events of @st with time in [@t0, @t1]
 * @stop: set when a sample was above stop_ns (may be NULL)
 * Return: the number of events read, or a negative errno.
 */
long latency_feed_store(struct latency *l, const struct store *st, uint64_t t0, uint64_t t1,
			bool *stop);

/*
 * latency_feed_store() that also hands every event it read to @each (with
 * @arg), for a caller that keeps figures of its own on the same pass.
 */
long latency_feed_store_each(struct latency *l, const struct store *st, uint64_t t0,
			     uint64_t t1, bool *stop,
			     void (*each)(void *arg, const struct ktop_event *ev), void *arg);

/* Number of CPU rows (one past the highest CPU seen). */
unsigned int latency_ncpus(const struct latency *l);

/* Return: true when @cpu has any sample. */
bool latency_cpu_seen(const struct latency *l, unsigned int cpu);

/**
 * latency_row - the table row of @cpu, or the totals row for @cpu == -1
 * Return: 0, or -ENOENT for a CPU never seen.
 */
int latency_row(const struct latency *l, int cpu, struct latency_row *out);

/* The worst sample of @cpu (-1: of all CPUs). Return: 0, or -ENOENT when none. */
int latency_worst(const struct latency *l, int cpu, struct latency_worst *out);

/* The tables: timerlat's, osnoise's. */
enum latency_table {
	LATENCY_TABLE_TIMERLAT,
	LATENCY_TABLE_OSNOISE,
};

/* The worst of the samples of table @t (a recording may hold both tracers'). */
int latency_worst_of(const struct latency *l, int cpu, enum latency_table t,
		     struct latency_worst *out);

/* The sample that crossed stop_ns first. Return: 0, or -ENOENT when none did. */
int latency_stop_sample(const struct latency *l, struct latency_worst *out);

/* Histogram shape: number of buckets, and bucket @i's bounds [lo, hi) in ns
 * (hi is UINT64_MAX for the last bucket). */
unsigned int latency_hist_nbuckets(const struct latency *l);
void latency_hist_bounds(const struct latency *l, unsigned int i, uint64_t *lo, uint64_t *hi);

/**
 * latency_hist - the histogram of @series on @cpu (-1: all CPUs)
 * @out: receives min(@max, nbuckets) counts
 * Return: the number of buckets copied, or -ENOENT / -EINVAL.
 */
int latency_hist(const struct latency *l, int cpu, enum latency_series series,
		 uint64_t *out, unsigned int max);

/**
 * latency_spark - the max latency of each of the last @max intervals
 * @cpu: -1 for all CPUs
 * @series: LATENCY_NSERIES for the max over the timerlat series, or one series
 * @out: oldest first; 0 for an interval without samples
 * @t_end: receives the end time of the newest interval (may be NULL)
 * Return: the number of values written (<= spark_len), or -ENOENT / -EINVAL.
 */
int latency_spark(const struct latency *l, int cpu, enum latency_series series,
		  uint64_t *out, unsigned int max, uint64_t *t_end);

/**
 * latency_print - the per-CPU table and its totals row as text (for --batch),
 * in us with 3 decimals, one line per CPU with samples, then "ALL"
 *
 * timerlat: CPU, then for IRQ, thread and (when any) user-return:
 *           count cur min avg max
 * osnoise:  CPU samples runtime noise %avail max-noise max-single HW NMI IRQ SIRQ THREAD
 * Return: 0, or -EIO when writing failed.
 */
int latency_print(const struct latency *l, FILE *f, enum latency_table which);

#endif
