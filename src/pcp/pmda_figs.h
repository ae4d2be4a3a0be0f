/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The figures `ktop --pmda` serves, gathered from a running app (live, or a
 * recording with -i) without any PCP call, so they are tested without PCP.
 *
 * Every counter is cumulative since the agent started and only grows (PCP
 * clients take rates); instant values say so. Each update costs what arrived
 * since the previous one: per-CPU counts come from sequence numbers and the
 * reader's counters, names and tasks from the store's per-chunk counts over
 * the new window, the latency model is fed the new window only.
 */
#ifndef KTOP_PMDA_FIGS_H
#define KTOP_PMDA_FIGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ingest/decode.h"

struct app;
struct pmda_figs;

#define PMDA_TOP_TASKS		10	/* ranks of ktop.task.* */
#define PMDA_HIST_BUCKETS	40	/* log2 ns buckets: 0-1, 2-3, 4-7, ..., 2^39-(2^40-1) */
#define PMDA_NAME_MAX		128

/* timerlat's three series, osnoise's two (model/latency.h's LATENCY_TL_*, LATENCY_OS_*) */
enum pmda_lat {
	PMDA_LAT_IRQ,
	PMDA_LAT_THREAD,
	PMDA_LAT_USER,
	PMDA_LAT_OS_SAMPLE,	/* osnoise: the largest single noise of each period */
	PMDA_LAT_OS_NOISE,	/* osnoise: each noise event */
	PMDA_LAT_NR,
};

struct pmda_cpu {
	uint64_t	events;			/* stored since the start */
	uint64_t	lost, lost_kernel, lost_ktop;
	uint64_t	flags[DECODE_F_NR];	/* events with each flag (live only) */
	/* BPF (bpf_ok) */
	uint64_t	ctxsw, runq_n, hardirq_ns, softirq_ns;
	/* osnoise/timerlat (lat_seen) */
	bool		lat_seen;
	uint64_t	lat_count[PMDA_LAT_NR], lat_sum[PMDA_LAT_NR];
	uint64_t	lat_max[PMDA_LAT_NR];	/* since the start, ns */
	uint64_t	lat_recent[PMDA_LAT_NR];	/* of the newest whole second, ns */
	uint64_t	os_runtime, os_noise;	/* ns */
};

/* A named counter of a dynamic instance domain: events, probes, syscalls, irqs. */
struct pmda_named {
	const char	*name;		/* "sched:sched_switch", "hardirq:eth0" */
	uint64_t	count;		/* since the start */
	uint64_t	ns;		/* syscalls, irqs: time since the start */
	const char	*detail;	/* probes: the definition; latencies: the measure; NULL */
	uint64_t	max;		/* latencies: the largest (ns) */
	uint64_t	dropped;	/* latencies: pairs the engine had no room for */
};

struct pmda_task {
	int32_t		pid;
	char		comm[32];
	uint64_t	events;		/* in the newest update's window */
	double		rate;		/* events/s in that window */
};

/**
 * pmda_figs_new - figures of @a (started: app_start or app_open_snapshot)
 * Return: the figures (free with pmda_figs_free), or NULL on ENOMEM.
 */
struct pmda_figs *pmda_figs_new(struct app *a);
void pmda_figs_free(struct pmda_figs *f);

/**
 * pmda_figs_update - take in what arrived since the previous update
 * @now_ns: CLOCK_MONOTONIC (the window's length for the tasks' rates)
 * Context: the thread that owns the app.
 */
void pmda_figs_update(struct pmda_figs *f, uint64_t now_ns);

/* The number of updates done (0: none yet). */
uint64_t pmda_figs_updates(const struct pmda_figs *f);

/* CPUs (rows 0..n-1) and one CPU's figures. */
unsigned int pmda_figs_ncpus(const struct pmda_figs *f);
const struct pmda_cpu *pmda_figs_cpu(const struct pmda_figs *f, unsigned int cpu);

/* Totals since the start: events stored, lost, and the store. */
struct pmda_totals {
	uint64_t	events, lost;
	uint64_t	store_bytes, store_limit, store_held, store_evicted;
};
void pmda_figs_totals(const struct pmda_figs *f, struct pmda_totals *out);

/* What is there: BPF counters, a latency model (and which tracer). */
bool pmda_figs_has_bpf(const struct pmda_figs *f);
bool pmda_figs_has_latency(const struct pmda_figs *f);

enum pmda_list {
	PMDA_LIST_EVENTS,	/* by "system:name", every type seen */
	PMDA_LIST_PROBES,	/* ktop's probes (--probe), hits */
	PMDA_LIST_SYSCALLS,	/* BPF, --bpf-syscalls: count and ns */
	PMDA_LIST_IRQS,		/* BPF: "hardirq:NAME", "softirq:NAME": count and ns */
	PMDA_LIST_NETDROPS,	/* the network model's drops by reason (skb:kfree_skb) */
	PMDA_LIST_LATENCIES,	/* --latency, --sql, --hist (src/agg): pairs, ns, max */
	PMDA_LIST_NR,
};

/*
 * The entries of @which: *@out points into @f, valid until the next update.
 * Names never leave a list once in it (a counter keeps its last value).
 * Return: how many.
 */
size_t pmda_figs_list(const struct pmda_figs *f, enum pmda_list which,
		      const struct pmda_named **out);

/* The top tasks of the newest window, by events. Return: how many (<= PMDA_TOP_TASKS). */
size_t pmda_figs_tasks(const struct pmda_figs *f, const struct pmda_task **out);

/*
 * A histogram since the start, every CPU, PMDA_HIST_BUCKETS log2 ns buckets
 * (the last takes everything above): @which a latency series, or -1 for BPF's
 * run-queue latency. Return: true when there is one.
 */
bool pmda_figs_hist(const struct pmda_figs *f, int which, uint64_t *out);

/*
 * The network model's totals (src/model/net.h; issue 25), when the session
 * traces network events (sock:*, tcp:*, skb:kfree_skb). Return: false: none.
 */
struct pmda_net {
	uint64_t	opened;		/* connection lifetimes begun */
	uint64_t	open;		/* open now */
	uint64_t	retransmits, resets, drops;
};
bool pmda_figs_net(const struct pmda_figs *f, struct pmda_net *out);

/*
 * The log2 histogram of latency measure @i (an entry of PMDA_LIST_LATENCIES),
 * PMDA_HIST_BUCKETS buckets named by pmda_agg_hist_name(); the last also
 * holds what is above it. Return: false: no such measure, or not a latency
 * (--hist counts events by key: no histogram).
 */
bool pmda_figs_agg_hist(const struct pmda_figs *f, size_t i, uint64_t *out);

/*
 * Bucket @b of latency measure @i: "lo-hi" in ns (the kernel's .log2
 * buckets, (2^(b-1), 2^b] of the measure's unit), into @buf; @lo, @hi the
 * bounds. Return: false: no such measure.
 */
bool pmda_agg_hist_name(const struct pmda_figs *f, size_t i, unsigned int b, char *buf,
			size_t len, uint64_t *lo, uint64_t *hi);

/* BPF run-queue latency, 99th percentile of the newest poll, ns (0: none). */
uint64_t pmda_figs_runq_p99(const struct pmda_figs *f);

/* Bucket @i's bounds as pmdabpf names its instances: "lo-hi", hi inclusive, in ns. */
void pmda_hist_name(unsigned int i, char *buf, size_t len);

#endif
