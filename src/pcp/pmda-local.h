/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the agent's parts share: the metric and instance domain tables. */
#ifndef KTOP_PMDA_LOCAL_H
#define KTOP_PMDA_LOCAL_H

#include <stdint.h>
#include "pmda_figs.h"

/* Instance domains, by serial. */
enum pmda_indom {
	PMDA_INDOM_CPU,		/* "cpu0", "cpu1", ... */
	PMDA_INDOM_TASK,	/* "1" .. "10": ranks of the top tasks */
	PMDA_INDOM_EVENT,	/* "sched:sched_switch" */
	PMDA_INDOM_PROBE,	/* a probe's event name */
	PMDA_INDOM_SYSCALL,	/* "read" */
	PMDA_INDOM_IRQ,		/* "hardirq:NAME", "softirq:NAME" */
	PMDA_INDOM_HIST,	/* "0-1", "2-3", "4-7", ... (ns, as pmdabpf names buckets) */
	PMDA_INDOM_NETDROP,	/* drop reasons: "NO_SOCKET", ... */
	PMDA_INDOM_LATENCY,	/* --latency measures: "sched:sched_waking->..._on_pid=next_pid" */
	PMDA_INDOM_LATHIST,	/* their buckets: "MEASURE/lo-hi" (ns) */
	PMDA_INDOM_NR,
	PMDA_INDOM_NONE = -1,
};

/* What a metric's fetch reads (pmda.c switches on it). */
enum pmda_val {
	V_STATUS, V_TRACER, V_MODE, V_INSTANCE, V_UPDATES, V_FETCHES, V_CPU_TIME, V_SOURCE,
	V_VERSION,
	V_CPU_EVENTS, V_CPU_LOST, V_CPU_LOST_KERNEL, V_CPU_LOST_KTOP, V_CPU_FLAG,
	V_EVENTS, V_LOST, V_STORE_BYTES, V_STORE_LIMIT, V_STORE_HELD, V_STORE_EVICTED,
	V_EVENT_COUNT,
	V_TASK_PID, V_TASK_COMM, V_TASK_EVENTS, V_TASK_RATE,
	V_LAT_SAMPLES, V_LAT_TOTAL, V_LAT_MAX, V_LAT_RECENT, V_OS_RUNTIME, V_OS_NOISE,
	V_HIST,
	V_BPF_CTXSW, V_BPF_RUNQ_N, V_BPF_HARDIRQ, V_BPF_SOFTIRQ, V_BPF_RUNQ_P99,
	V_NAMED_COUNT, V_NAMED_NS, V_PROBE_DEF,
	V_NET_OPENED, V_NET_OPEN, V_NET_RETRANS, V_NET_RESETS, V_NET_DROPS,
	V_NAMED_MAX, V_NAMED_DROPPED, V_NAMED_DETAIL, V_AGG_HIST,
};

/* Units, as PCP's pmUnits fields: dimension and scale of space, time, count. */
enum pmda_unit {
	U_NONE,		/* a number, a string */
	U_COUNT,	/* events, samples */
	U_NSEC,
	U_MSEC,
	U_BYTE,
	U_PER_SEC,	/* count / second */
};

struct pmda_metric_def {
	const char	*name;		/* below "ktop." */
	uint16_t	cluster, item;
	int		type;		/* PM_TYPE_* */
	int		sem;		/* PM_SEM_* */
	int		indom;		/* enum pmda_indom */
	enum pmda_unit	unit;
	enum pmda_val	val;
	int		arg;		/* a flag, a latency series, a list */
	const char	*oneline;
	const char	*help;
};

struct pmda_indom_def {
	const char	*oneline;
	const char	*help;
};

extern const struct pmda_metric_def pmda_metrics[];
extern const unsigned int pmda_nmetrics;
extern const struct pmda_indom_def pmda_indoms[PMDA_INDOM_NR];

#endif
