// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Every metric of `ktop --pmda`, in one table: its name, PMID, type,
 * semantics, units, instance domain, help text, and what its fetch reads.
 * The agent serves it (pmda.c), and pmda_write_files() writes PCP's files
 * from it (pmns, help, domain.h, root), so they cannot disagree.
 *
 * Counters are counters (PCP clients take the rates); instant values are the
 * newest update's. Times are nanoseconds, as the kernel gives them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/err.h"
#include "lib/safefile.h"
#include "pmda-local.h"
#include "pmda.h"

#ifdef KTOP_HAVE_PCP
#include <pcp/pmapi.h>

#define C	PM_SEM_COUNTER
#define I	PM_SEM_INSTANT
#define D	PM_SEM_DISCRETE
#define U64	PM_TYPE_U64
#define U32	PM_TYPE_U32
#define DBL	PM_TYPE_DOUBLE
#define STR	PM_TYPE_STRING
#define CPU	PMDA_INDOM_CPU
#define NONE	PMDA_INDOM_NONE

#define FLAG(item, name, what)							\
	{ "cpu.flags." name, 1, item, U64, C, CPU, U_COUNT, V_CPU_FLAG, item - 10,	\
	  "events with " what " on each CPU",					\
	  "Events recorded on this CPU whose flags said " what ", since the agent\n"	\
	  "started (the flags column of the kernel's trace). Its rate divided by\n"	\
	  "the rate of ktop.cpu.events is the share of events with the flag." }

#define TL(base, ser, name, ctx)						\
	{ "timerlat." name ".samples", 5, base, U64, C, CPU, U_COUNT, V_LAT_SAMPLES, ser, \
	  "timerlat samples, " ctx ", per CPU",					\
	  "timerlat samples taken in " ctx " context on this CPU since the agent\n"	\
	  "started (the kernel's timerlat tracer)." },				\
	{ "timerlat." name ".total", 5, base + 1, U64, C, CPU, U_NSEC, V_LAT_TOTAL, ser, \
	  "sum of timerlat latencies, " ctx ", per CPU",			\
	  "The sum of the " ctx " context latencies of timerlat's samples on this\n"	\
	  "CPU: its rate over the rate of .samples is the mean latency." },	\
	{ "timerlat." name ".max", 5, base + 2, U64, I, CPU, U_NSEC, V_LAT_MAX, ser,	\
	  "largest timerlat latency, " ctx ", per CPU, since the start",	\
	  "The largest " ctx " context latency timerlat measured on this CPU since\n" \
	  "the agent started." },						\
	{ "timerlat." name ".interval_max", 5, base + 3, U64, I, CPU, U_NSEC, V_LAT_RECENT, \
	  ser, "largest timerlat latency, " ctx ", of the newest second",	\
	  "The largest " ctx " context latency timerlat measured on this CPU in the\n" \
	  "newest whole second the agent has taken in (0: none in it). The figure\n" \
	  "for an alert on a bound (pmie)." }

#define HIST(item, name, ser, what)						\
	{ name, 7, item, U64, C, PMDA_INDOM_HIST, U_COUNT, V_HIST, ser,		\
	  "histogram of " what ", all CPUs",					\
	  "A log2 histogram of " what ", all CPUs, since the agent started: one\n" \
	  "instance per bucket named lo-hi in nanoseconds (hi inclusive), as\n"	\
	  "pmdabpf names its buckets, so grafana-pcp draws it as a heat map. The\n" \
	  "last bucket also holds every value above it." }

const struct pmda_metric_def pmda_metrics[] = {
	{ "agent.status", 0, 0, STR, D, NONE, U_NONE, V_STATUS, 0,
	  "tracing, or why ktop cannot trace",
	  "\"tracing\" while the agent traces the kernel (or serves a recording);\n"
	  "otherwise the reason it cannot (not root, tracefs missing, an option\n"
	  "the kernel refuses), with what to do. Every other metric then has no\n"
	  "values." },
	{ "agent.tracer", 0, 1, STR, D, NONE, U_NONE, V_TRACER, 0,
	  "the ftrace tracer of the agent's session",
	  "The tracer of the agent's tracing instance: nop (trace events only),\n"
	  "function_graph, osnoise, timerlat, ..." },
	{ "agent.mode", 0, 2, STR, D, NONE, U_NONE, V_MODE, 0,
	  "what the agent traces, and why",
	  "What ktop chose to trace and why (the first line of ktop --batch),\n"
	  "e.g. \"events sched, irq, raw_syscalls (default): function_graph is\n"
	  "not built in\"." },
	{ "agent.instance", 0, 3, STR, D, NONE, U_NONE, V_INSTANCE, 0,
	  "the agent's tracefs instance",
	  "The tracefs instance the agent traces in (ktop-PID), \"(top level)\",\n"
	  "or empty for a recording." },
	{ "agent.updates", 0, 4, U64, C, NONE, U_COUNT, V_UPDATES, 0,
	  "updates of the agent's figures",
	  "How many times the agent took in what arrived: once each --interval\n"
	  "(default 1 s), and before a fetch when the figures are older than\n"
	  "100 ms." },
	{ "agent.fetches", 0, 5, U64, C, NONE, U_COUNT, V_FETCHES, 0,
	  "fetches the agent answered",
	  "Fetch requests from pmcd the agent answered since it started." },
	{ "agent.cpu_time", 0, 6, U64, C, NONE, U_NSEC, V_CPU_TIME, 0,
	  "CPU time of the agent's process",
	  "User and system CPU time of the whole ktop process (every thread:\n"
	  "the per-CPU readers, the BPF poller, the agent's loop): its rate is\n"
	  "what the agent costs." },
	{ "agent.source", 0, 7, STR, D, NONE, U_NONE, V_SOURCE, 0,
	  "where the agent's events come from",
	  "\"live\" for the running kernel, or \"recording PATH\" for an agent\n"
	  "started on a file (ktop --pmda -i FILE, for tests and demos)." },
	{ "agent.version", 0, 8, STR, D, NONE, U_NONE, V_VERSION, 0,
	  "ktop's version", "The version of the ktop that serves these metrics." },

	{ "cpu.events", 1, 0, U64, C, CPU, U_COUNT, V_CPU_EVENTS, 0,
	  "events recorded on each CPU",
	  "Trace events the agent read from this CPU's ring buffer and stored,\n"
	  "since it started." },
	{ "cpu.lost", 1, 1, U64, C, CPU, U_COUNT, V_CPU_LOST, 0,
	  "events lost on each CPU",
	  "Events of this CPU that never reached ktop's store, every reason:\n"
	  "the kernel's ring buffer (overwritten or dropped) and ktop's own\n"
	  "decode backlog. The sum of ktop.cpu.lost_kernel, ktop.cpu.lost_ktop\n"
	  "and the kernel's dropped count, as ktop --batch's Lost column." },
	{ "cpu.lost_kernel", 1, 2, U64, C, CPU, U_COUNT, V_CPU_LOST_KERNEL, 0,
	  "events the kernel's ring buffer lost on each CPU",
	  "Events overwritten in this CPU's ring buffer before ktop read them:\n"
	  "the larger of the missed-event marks and per_cpu/cpuN/stats overrun." },
	{ "cpu.lost_ktop", 1, 3, U64, C, CPU, U_COUNT, V_CPU_LOST_KTOP, 0,
	  "events ktop dropped on each CPU",
	  "Events read from the kernel that ktop dropped because its decode\n"
	  "backlog was full." },
	FLAG(10, "irqs_off", "interrupts disabled"),
	FLAG(11, "need_resched", "need-resched set"),
	FLAG(12, "hardirq", "hardirq context"),
	FLAG(13, "softirq", "softirq context"),
	FLAG(14, "nmi", "NMI context"),
	FLAG(15, "preempt", "preemption disabled"),
	FLAG(16, "migrate_disable", "migration disabled"),

	{ "events.total", 2, 0, U64, C, NONE, U_COUNT, V_EVENTS, 0,
	  "events recorded, all CPUs", "The sum of ktop.cpu.events." },
	{ "events.lost", 2, 1, U64, C, NONE, U_COUNT, V_LOST, 0,
	  "events lost, all CPUs", "The sum of ktop.cpu.lost." },
	{ "store.bytes", 2, 2, U64, I, NONE, U_BYTE, V_STORE_BYTES, 0,
	  "memory of ktop's event store",
	  "What the event store uses, against its limit (ktop -m)." },
	{ "store.limit", 2, 3, U64, D, NONE, U_BYTE, V_STORE_LIMIT, 0,
	  "the event store's limit", "The store's memory limit (ktop -m, default 256M)." },
	{ "store.held", 2, 4, U64, I, NONE, U_COUNT, V_STORE_HELD, 0,
	  "events held in the store", "Events the store holds now." },
	{ "store.evicted", 2, 5, U64, C, NONE, U_COUNT, V_STORE_EVICTED, 0,
	  "events evicted from the store",
	  "Events the store dropped, oldest first, to stay within its limit.\n"
	  "The agent's counters took them in before." },

	{ "event.count", 3, 0, U64, C, PMDA_INDOM_EVENT, U_COUNT, V_EVENT_COUNT, 0,
	  "events by name",
	  "Events recorded of each trace event (system:name), all CPUs, since the\n"
	  "agent started. An event's instance keeps its number across restarts." },

	{ "task.pid", 4, 0, U32, I, PMDA_INDOM_TASK, U_NONE, V_TASK_PID, 0,
	  "the top tasks' pids",
	  "The pid (thread id) of the task at each rank of the newest update's\n"
	  "window, by events recorded (rank 1: the most)." },
	{ "task.comm", 4, 1, STR, I, PMDA_INDOM_TASK, U_NONE, V_TASK_COMM, 0,
	  "the top tasks' names", "The name (comm) of the task at each rank." },
	{ "task.events", 4, 2, U64, I, PMDA_INDOM_TASK, U_COUNT, V_TASK_EVENTS, 0,
	  "the top tasks' events in the newest window",
	  "Events the task at each rank caused in the newest update's window." },
	{ "task.rate", 4, 3, DBL, I, PMDA_INDOM_TASK, U_PER_SEC, V_TASK_RATE, 0,
	  "the top tasks' events per second",
	  "ktop.task.events over the window's length." },

	TL(0, PMDA_LAT_IRQ, "irq", "IRQ"),
	TL(10, PMDA_LAT_THREAD, "thread", "thread"),
	TL(20, PMDA_LAT_USER, "user", "return-to-user"),
	{ "osnoise.samples", 6, 0, U64, C, CPU, U_COUNT, V_LAT_SAMPLES, PMDA_LAT_OS_SAMPLE,
	  "osnoise periods, per CPU",
	  "osnoise sample periods on this CPU since the agent started." },
	{ "osnoise.runtime", 6, 1, U64, C, CPU, U_NSEC, V_OS_RUNTIME, 0,
	  "osnoise runtime, per CPU",
	  "The time osnoise's periods ran on this CPU." },
	{ "osnoise.noise", 6, 2, U64, C, CPU, U_NSEC, V_OS_NOISE, 0,
	  "osnoise noise, per CPU",
	  "The noise osnoise measured in its periods on this CPU: its rate over\n"
	  "the rate of ktop.osnoise.runtime is the share of the CPU lost." },
	{ "osnoise.max_single", 6, 3, U64, I, CPU, U_NSEC, V_LAT_MAX, PMDA_LAT_OS_SAMPLE,
	  "largest single noise, per CPU, since the start",
	  "The largest single noise osnoise saw on this CPU since the agent\n"
	  "started." },
	{ "osnoise.max_noise", 6, 4, U64, I, CPU, U_NSEC, V_LAT_MAX, PMDA_LAT_OS_NOISE,
	  "largest noise of a period, per CPU, since the start",
	  "The largest noise of one osnoise period on this CPU since the agent\n"
	  "started." },
	{ "osnoise.interval_max", 6, 5, U64, I, CPU, U_NSEC, V_LAT_RECENT, PMDA_LAT_OS_SAMPLE,
	  "largest single noise of the newest second, per CPU",
	  "The largest single noise osnoise saw on this CPU in the newest whole\n"
	  "second the agent has taken in (0: none)." },

	HIST(0, "timerlat.irq.hist", PMDA_LAT_IRQ, "timerlat's IRQ latencies"),
	HIST(1, "timerlat.thread.hist", PMDA_LAT_THREAD, "timerlat's thread latencies"),
	HIST(2, "timerlat.user.hist", PMDA_LAT_USER, "timerlat's return-to-user latencies"),
	HIST(3, "osnoise.sample_hist", PMDA_LAT_OS_SAMPLE,
	     "osnoise's largest single noise of each period"),
	HIST(4, "osnoise.noise_hist", PMDA_LAT_OS_NOISE, "osnoise's noise events"),
	HIST(5, "bpf.runq.hist", -1, "run-queue latency (BPF: wakeup to running)"),

	{ "bpf.cpu.ctxsw", 8, 0, U64, C, CPU, U_COUNT, V_BPF_CTXSW, 0,
	  "context switches, per CPU (BPF)",
	  "Context switches on this CPU, counted by ktop's BPF program on\n"
	  "sched_switch." },
	{ "bpf.cpu.runq_count", 8, 1, U64, C, CPU, U_COUNT, V_BPF_RUNQ_N, 0,
	  "woken tasks that got this CPU (BPF)",
	  "Woken tasks that got to run on this CPU: the samples of the run-queue\n"
	  "latency histogram." },
	{ "bpf.cpu.hardirq_time", 8, 2, U64, C, CPU, U_NSEC, V_BPF_HARDIRQ, 0,
	  "time in hardirq handlers, per CPU (BPF)", "Time this CPU spent in hardirq handlers." },
	{ "bpf.cpu.softirq_time", 8, 3, U64, C, CPU, U_NSEC, V_BPF_SOFTIRQ, 0,
	  "time in softirqs, per CPU (BPF)", "Time this CPU spent in softirq handlers." },
	{ "bpf.runq.p99", 9, 0, U64, I, NONE, U_NSEC, V_BPF_RUNQ_P99, 0,
	  "run-queue latency, 99th percentile, newest poll (BPF)",
	  "The 99th percentile of run-queue latency (wakeup to running) over all\n"
	  "CPUs in the BPF poller's newest tick (half a second)." },
	{ "bpf.syscall.count", 10, 0, U64, C, PMDA_INDOM_SYSCALL, U_COUNT, V_NAMED_COUNT,
	  PMDA_LIST_SYSCALLS, "syscalls completed, by syscall (BPF)",
	  "Syscalls completed, every task, by syscall: with ktop --bpf-syscalls\n"
	  "only (every syscall of every task pays for them)." },
	{ "bpf.syscall.time", 10, 1, U64, C, PMDA_INDOM_SYSCALL, U_NSEC, V_NAMED_NS,
	  PMDA_LIST_SYSCALLS, "time in syscalls, by syscall (BPF)",
	  "Time from entry to exit of each syscall, summed (--bpf-syscalls)." },
	{ "bpf.irq.count", 11, 0, U64, C, PMDA_INDOM_IRQ, U_COUNT, V_NAMED_COUNT, PMDA_LIST_IRQS,
	  "interrupts handled, by irq and softirq vector (BPF)",
	  "Hardirq handler runs by irq (named from /proc/interrupts) and softirq\n"
	  "runs by vector." },
	{ "bpf.irq.time", 11, 1, U64, C, PMDA_INDOM_IRQ, U_NSEC, V_NAMED_NS, PMDA_LIST_IRQS,
	  "time in interrupt handlers, by irq and softirq vector (BPF)",
	  "Time spent in each hardirq's handler and each softirq vector." },

	{ "probe.hits", 12, 0, U64, C, PMDA_INDOM_PROBE, U_COUNT, V_NAMED_COUNT,
	  PMDA_LIST_PROBES, "hits of ktop's probes",
	  "Times each probe of the agent's session (ktop --probe) fired: the\n"
	  "kernel's uprobe_profile/kprobe_profile count, or for fprobes and\n"
	  "eprobes the events recorded." },
	{ "probe.definition", 12, 1, STR, D, PMDA_INDOM_PROBE, U_NONE, V_PROBE_DEF,
	  PMDA_LIST_PROBES, "the probes' definitions",
	  "The line ktop wrote to dynamic_events for each probe." },

	{ "net.opened", 13, 0, U64, C, NONE, U_COUNT, V_NET_OPENED, 0,
	  "network connections begun",
	  "Connection lifetimes begun (connect, passive open, listen), from\n"
	  "sock:inet_sock_set_state: only when the agent traces network events\n"
	  "(e.g. -e sock -e tcp -e skb:kfree_skb in ktop.options)." },
	{ "net.open", 13, 1, U64, I, NONE, U_COUNT, V_NET_OPEN, 0,
	  "network connections open now",
	  "Connections the network model holds open (listeners included)." },
	{ "net.retransmits", 13, 2, U64, C, NONE, U_COUNT, V_NET_RETRANS, 0,
	  "TCP retransmits", "TCP retransmits (tcp:tcp_retransmit_skb)." },
	{ "net.resets", 13, 3, U64, C, NONE, U_COUNT, V_NET_RESETS, 0,
	  "TCP resets sent and received",
	  "TCP resets sent and received (tcp:tcp_send_reset, tcp_receive_reset)." },
	{ "net.drops", 13, 4, U64, C, NONE, U_COUNT, V_NET_DROPS, 0,
	  "packets dropped",
	  "Packets the kernel dropped (skb:kfree_skb with a drop reason): the\n"
	  "fleet view's DROPS/s is its rate." },
	{ "net.drop.count", 13, 5, U64, C, PMDA_INDOM_NETDROP, U_COUNT, V_NAMED_COUNT,
	  PMDA_LIST_NETDROPS, "packets dropped, by reason",
	  "Packets dropped by each of the kernel's drop reasons (named from\n"
	  "the kfree_skb format's own table: NO_SOCKET, NETFILTER_DROP, ...)." },

#define LAT_WHEN "Only for the measures the agent was started with (--latency, --sql,\n" \
	"--hist in ktop.options), measured in the kernel (hist triggers and\n" \
	"synthetic events, or ktop's BPF program where the kernel has none)."
	{ "latency.count", 14, 0, U64, C, PMDA_INDOM_LATENCY, U_COUNT, V_NAMED_COUNT,
	  PMDA_LIST_LATENCIES, "pairs measured by each in-kernel latency",
	  "START->END pairs each latency measure has timed since the agent\n"
	  "started (a --hist: the events it counted). " LAT_WHEN },
	{ "latency.total", 14, 1, U64, C, PMDA_INDOM_LATENCY, U_NSEC, V_NAMED_NS,
	  PMDA_LIST_LATENCIES, "sum of each in-kernel latency",
	  "The sum of the latencies each measure timed: its rate over the rate of\n"
	  "ktop.latency.count is the mean latency. " LAT_WHEN },
	{ "latency.max", 14, 2, U64, I, PMDA_INDOM_LATENCY, U_NSEC, V_NAMED_MAX,
	  PMDA_LIST_LATENCIES, "largest in-kernel latency since the start",
	  "The largest latency each measure has timed since the agent started:\n"
	  "the figure for an alert on a bound (pmie). " LAT_WHEN },
	{ "latency.dropped", 14, 3, U64, C, PMDA_INDOM_LATENCY, U_COUNT, V_NAMED_DROPPED,
	  PMDA_LIST_LATENCIES, "pairs an in-kernel latency could not keep",
	  "Pairs (or events) the engine's tables had no room for: not in the\n"
	  "count, the sum or the histogram. " LAT_WHEN },
	{ "latency.measure", 14, 4, STR, D, PMDA_INDOM_LATENCY, U_NONE, V_NAMED_DETAIL,
	  PMDA_LIST_LATENCIES, "each in-kernel latency's definition",
	  "The measure as ktop normalised it, e.g. \"sched:sched_waking ->\n"
	  "sched:sched_switch on pid = next_pid\"; the instance name is the\n"
	  "same without spaces. " LAT_WHEN },
	{ "latency.hist", 14, 5, U64, C, PMDA_INDOM_LATHIST, U_COUNT, V_AGG_HIST, 0,
	  "log2 histogram of each in-kernel latency",
	  "The kernel's log2 histogram of each latency measure since the agent\n"
	  "started: one instance per measure and bucket, MEASURE/lo-hi in\n"
	  "nanoseconds (hi inclusive; the kernel's .log2 buckets), with the\n"
	  "labels measure, lower_ns and upper_ns for heat maps. The last bucket\n"
	  "also holds every value above it. " LAT_WHEN },
};

const unsigned int pmda_nmetrics = sizeof(pmda_metrics) / sizeof(pmda_metrics[0]);

const struct pmda_indom_def pmda_indoms[PMDA_INDOM_NR] = {
	[PMDA_INDOM_CPU] = { "CPUs", "One instance per CPU: cpu0, cpu1, ..." },
	[PMDA_INDOM_TASK] = { "ranks of the top tasks",
			      "1 is the task that caused the most events in the newest update's\n"
			      "window, 2 the next, up to 10." },
	[PMDA_INDOM_EVENT] = { "trace events",
			       "One instance per trace event recorded, named system:name. Kept\n"
			       "across restarts of the agent (pmdaCache)." },
	[PMDA_INDOM_PROBE] = { "ktop's probes",
			       "One instance per probe of the agent's session (ktop --probe), named\n"
			       "by its event." },
	[PMDA_INDOM_SYSCALL] = { "syscalls", "One instance per syscall seen (--bpf-syscalls)." },
	[PMDA_INDOM_IRQ] = { "hardirqs and softirq vectors",
			     "hardirq:NAME per irq, softirq:NAME per softirq vector." },
	[PMDA_INDOM_NETDROP] = { "drop reasons",
				 "One instance per drop reason seen (skb:kfree_skb's reason, named from\n"
				 "its format)." },
	[PMDA_INDOM_LATENCY] = { "in-kernel latency measures",
				 "One instance per --latency, --sql or --hist measure of the agent,\n"
				 "named by its definition without spaces." },
	[PMDA_INDOM_LATHIST] = { "buckets of the in-kernel latencies",
				 "MEASURE/lo-hi: the bucket of a latency measure holding lo to hi\n"
				 "nanoseconds (the kernel's log2 buckets)." },
	[PMDA_INDOM_HIST] = { "log2 histogram buckets, nanoseconds",
			      "Bucket lo-hi holds values from lo to hi nanoseconds (0-1, 2-3, 4-7,\n"
			      "...), as pmdabpf's histograms; the last also holds what is above." },
};

/* ---- PCP's files -------------------------------------------------------- */

/* Metric names are "a.b.c": the PMNS lists each non-leaf node with its children. */
static void pmns_node(FILE *f, const char *prefix)
{
	size_t plen = strlen(prefix);
	char seen[64][64];
	unsigned int nseen = 0;

	fprintf(f, "%s%s%s {\n", "ktop", plen ? "." : "", prefix);
	for (unsigned int i = 0; i < pmda_nmetrics; i++) {
		const struct pmda_metric_def *m = &pmda_metrics[i];
		const char *rest, *dot;
		char child[64];
		bool dup = false;

		if (plen && (strncmp(m->name, prefix, plen) || m->name[plen] != '.'))
			continue;
		rest = m->name + (plen ? plen + 1 : 0);
		dot = strchr(rest, '.');
		snprintf(child, sizeof(child), "%.*s", dot ? (int)(dot - rest) : (int)strlen(rest),
			 rest);
		for (unsigned int k = 0; k < nseen; k++)
			dup |= !strcmp(seen[k], child);
		if (dup || nseen == 64)
			continue;
		snprintf(seen[nseen++], sizeof(seen[0]), "%s", child);
		if (dot)
			fprintf(f, "\t%s\n", child);
		else
			fprintf(f, "\t%s\t\tKTOP:%u:%u\n", child, m->cluster, m->item);
	}
	fprintf(f, "}\n\n");
	for (unsigned int k = 0; k < nseen; k++) {
		char sub[256];
		bool inner = false;

		if (snprintf(sub, sizeof(sub), "%s%s%s", prefix, plen ? "." : "", seen[k]) >=
		    (int)sizeof(sub))
			continue;
		for (unsigned int i = 0; i < pmda_nmetrics && !inner; i++)
			inner = !strncmp(pmda_metrics[i].name, sub, strlen(sub)) &&
				pmda_metrics[i].name[strlen(sub)] == '.';
		if (inner)
			pmns_node(f, sub);
	}
}

static int write_pmns(FILE *f, void *arg)
{
	(void)arg;
	fprintf(f, "/*\n * ktop's metrics (ktop --pmda), written by ktop --pmda-files from\n"
		" * the table it serves. KTOP is the domain (domain.h).\n */\n\n");
	pmns_node(f, "");
	return 0;
}

static int write_root(FILE *f, void *arg)
{
	(void)arg;
	fprintf(f, "/*\n * fake \"root\" for validating the local PMNS subtree\n */\n\n"
		"#define KTOP %d\n\nroot { ktop }\n\n#include \"pmns\"\n", PMDA_KTOP_DOMAIN);
	return 0;
}

static int write_domain(FILE *f, void *arg)
{
	(void)arg;
	fprintf(f, "/*\n * ktop's PMDA domain: in PCP's free range 256-510 (stdpmid.pcp).\n */\n"
		"#define KTOP %d\n", PMDA_KTOP_DOMAIN);
	return 0;
}

static int write_help(FILE *f, void *arg)
{
	(void)arg;
	fprintf(f, "#\n# ktop PMDA help text (newhelp's input), written by ktop --pmda-files\n"
		"#\n\n");
	for (int i = 0; i < PMDA_INDOM_NR; i++)
		fprintf(f, "@ KTOP.%d %s\n%s\n\n", i, pmda_indoms[i].oneline, pmda_indoms[i].help);
	for (unsigned int i = 0; i < pmda_nmetrics; i++)
		fprintf(f, "@ ktop.%s %s\n%s\n\n", pmda_metrics[i].name, pmda_metrics[i].oneline,
			pmda_metrics[i].help);
	return 0;
}

int pmda_write_files(const char *dir, char *err, size_t errlen)
{
	static const struct {
		const char	*name;
		int		(*fn)(FILE *f, void *arg);
	} files[] = {
		{ "pmns", write_pmns }, { "root", write_root }, { "domain.h", write_domain },
		{ "help", write_help },
	};
	char path[4096], why[512];
	size_t len;
	char *buf;
	FILE *f;
	int ret;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i].name);
		f = open_memstream(&buf, &len);
		if (!f)
			return err_set_at(err, errlen, -ENOMEM, path, "%s", strerror(ENOMEM));
		files[i].fn(f, NULL);
		if (fclose(f)) {
			free(buf);
			return err_set_at(err, errlen, -ENOMEM, path, "%s", strerror(ENOMEM));
		}
		ret = safefile_replace(path, buf, len, 0644, why, sizeof(why));
		free(buf);
		if (ret)
			return err_set_at(err, errlen, ret, path, "%s", why);
	}
	return 0;
}

#else /* !KTOP_HAVE_PCP */

int pmda_write_files(const char *dir, char *err, size_t errlen)
{
	(void)dir;
	return err_set(err, errlen, -ENOSYS, "this ktop was built without Performance "
		       "Co-Pilot's headers (libpcp3-dev, libpcp-pmda3-dev)");
}

#endif
