/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * BPF statistics: ktop's CO-RE programs (bpf/kstat.bpf.c) count in per-CPU
 * maps; a poller thread ("ktop-bpf") reads them every tick, turns the counters
 * into per-tick deltas and time series, collects run-queue latency outliers
 * from a ring buffer, and wakes the UI. Readers (batch printer, TUI panes)
 * query copies; nothing they get points into the poller's memory.
 *
 * Clocks: BPF timestamps are bpf_ktime_get_ns(), i.e. CLOCK_MONOTONIC. An
 * outlier's @ts is that plus the clock offset (bpfstats_set_clock_offset), so
 * that with ktop's tracefs instance on trace_clock "mono" the offset is 0 and
 * the outlier's ts can be passed straight to store_seek().
 *
 * Histograms are log2 of nanoseconds: slot k counts values in [2^k, 2^(k+1)).
 */
#ifndef KTOP_BPFSTATS_H
#define KTOP_BPFSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct features;
struct bpfstats;

#define BPFSTATS_SLOTS		40
#define BPFSTATS_COMM_LEN	16
#define BPFSTATS_HIST_WINDOW	120	/* ticks of per-tick histograms kept */

struct bpfstats_opts {
	double		interval;	/* poll period, seconds; 0: 0.5 */
	uint64_t	outlier_ns;	/* run-queue latency worth an outlier record; 0: 10 ms */
	unsigned int	history;	/* samples kept per series; 0: 240 */
	int		wake_fd;	/* eventfd (or pipe) written after each tick; -1: none */
	int64_t		clock_offset_ns;	/* store clock - CLOCK_MONOTONIC */
	bool		no_syscalls;	/* do not trace sys_enter/sys_exit (the costly part) */
	bool		no_irqs;	/* do not trace irq/softirq entry/exit */
	bool		force_raw_tp;	/* raw_tp programs even when tp_btf works */
};

struct bpfstats_hist {
	uint64_t	slot[BPFSTATS_SLOTS];
	uint64_t	count;
	uint64_t	sum_ns;
	uint64_t	max_ns;		/* cumulative windows only (0 for tick windows) */
};

/* Per-CPU (and all-CPU) series, one sample per tick. */
enum bpfstats_metric {
	BPFSTATS_CTXSW,		/* context switches per second */
	BPFSTATS_RUNQ_RATE,	/* woken tasks that got a CPU, per second */
	BPFSTATS_RUNQ_AVG_US,	/* mean run-queue latency in the tick, microseconds */
	BPFSTATS_RUNQ_P99_US,	/* 99th percentile, from the tick's histogram */
	BPFSTATS_HARDIRQ_PCT,	/* share of the tick spent in hardirq handlers, % */
	BPFSTATS_SOFTIRQ_PCT,	/* share in softirqs, % */
	BPFSTATS_SYSCALL_RATE,	/* syscalls completed per second */
	BPFSTATS_METRIC_NR,
};

struct bpfstats_status {
	bool		running;	/* poller thread alive */
	const char	*mode;		/* "tp_btf" or "raw_tp" */
	unsigned int	ncpus;		/* CPU indices 0..ncpus-1 are valid */
	bool		syscalls;	/* syscall programs attached */
	bool		irqs;
	double		interval;
	uint64_t	ticks;		/* polls done; also a generation number */
	uint64_t	last_tick_ns;	/* CLOCK_MONOTONIC of the last poll */
	uint64_t	poll_ns;	/* how long the last poll took */
	uint64_t	outliers;	/* received since start */
	uint64_t	outliers_dropped;	/* ring buffer full in the kernel */
	uint64_t	tasks;		/* tasks tracked now */
	uint64_t	tasks_untracked;	/* map full: tasks not counted */
	int64_t		clock_offset_ns;
};

struct bpfstats_task {
	uint32_t	tid;
	uint32_t	tgid;
	char		comm[BPFSTATS_COMM_LEN];
	uint64_t	offcpu_ns;	/* switch-out -> switch-in (run-queue wait included) */
	uint64_t	offcpu_n;
	uint64_t	runq_ns;	/* wakeup -> switch-in */
	uint64_t	runq_n;
	uint64_t	runq_max_ns;	/* since start, whatever the window */
};

enum bpfstats_sort {
	BPFSTATS_BY_OFFCPU,
	BPFSTATS_BY_RUNQ,	/* total run-queue wait */
	BPFSTATS_BY_RUNQ_MAX,
};

struct bpfstats_syscall {
	uint32_t		id;
	const char		*name;	/* static string, "sys_<id>" when unknown */
	struct bpfstats_hist	h;
};

struct bpfstats_irq {
	bool		soft;
	uint32_t	vec;		/* irq number or softirq vector */
	char		name[32];	/* from /proc/interrupts, or the softirq name */
	uint64_t	ns;
	uint64_t	count;
};

struct bpfstats_outlier {
	uint64_t	seq;		/* 1, 2, ...: pass the last one seen to get newer ones */
	uint64_t	ts;		/* store clock: ts_mono + clock offset */
	uint64_t	ts_mono;	/* CLOCK_MONOTONIC, as the BPF program saw it */
	uint64_t	latency_ns;	/* wakeup -> switch-in */
	uint32_t	pid;
	uint32_t	tgid;
	uint32_t	cpu;
	uint32_t	prev_pid;	/* the task it replaced on the CPU */
	char		comm[BPFSTATS_COMM_LEN];
	char		prev_comm[BPFSTATS_COMM_LEN];
};

/**
 * bpfstats_new - load and attach ktop's BPF programs (no thread yet)
 * @ft: what features_probe found (FEATURE_BPF, FEATURE_BTF), or NULL to just try
 * @why: on failure, a sentence for the user saying what is missing and why
 *
 * Context: main thread, before bpfstats_start().
 * Return: 0 and *@out (free with bpfstats_free), or a negative errno; on
 * failure nothing is left attached and the rest of ktop can go on without it.
 */
int bpfstats_new(struct bpfstats **out, const struct bpfstats_opts *o,
		 const struct features *ft, char *why, size_t whylen);

/**
 * bpfstats_start - start the poller thread ("ktop-bpf", all signals blocked)
 * Context: main thread. Return: 0 or a negative errno.
 */
int bpfstats_start(struct bpfstats *bs);

/**
 * bpfstats_outliers_from - keep only outliers whose switch-in came at or
 * after @mono_ns (CLOCK_MONOTONIC): the programs load before tracing starts,
 * and an outlier from before then has no events in the trace to show it.
 * Accepts NULL. Context: any thread.
 */
void bpfstats_outliers_from(struct bpfstats *bs, uint64_t mono_ns);

/**
 * bpfstats_poll - poll once now, in the calling thread
 * For batch printing without a thread and for tests.
 * Context: any thread, but not while the poller thread runs.
 * Return: 0 or a negative errno.
 */
int bpfstats_poll(struct bpfstats *bs);

/*
 * Stop the poller thread (programs stay attached), e.g. to poll a last time
 * with bpfstats_poll() before printing. Safe when not started.
 * Context: main thread.
 */
void bpfstats_stop(struct bpfstats *bs);

/*
 * Stop the thread, detach every program and free every map and buffer.
 * Accepts NULL. Context: main thread.
 */
void bpfstats_free(struct bpfstats *bs);

/* --- queries: Context: any thread; each returns a consistent copy --- */

void bpfstats_get_status(struct bpfstats *bs, struct bpfstats_status *st);

/* Outliers' ts = ts_mono + @off_ns from now on (and for those already held). */
void bpfstats_set_clock_offset(struct bpfstats *bs, int64_t off_ns);

struct bpfstats_cpu {
	uint64_t	ctxsw;
	uint64_t	runq_n;
	uint64_t	hardirq_ns;
	uint64_t	hardirq_n;
	uint64_t	softirq_ns;
	uint64_t	softirq_n;
};

/**
 * bpfstats_cpu_totals - counters since start of @cpu, or of all CPUs for -1
 * Return: 0, or -EINVAL for a bad CPU.
 */
int bpfstats_cpu_totals(struct bpfstats *bs, int cpu, struct bpfstats_cpu *out);

/**
 * bpfstats_runq_hist - run-queue latency histogram
 * @cpu: the CPU where the task got to run, or -1 for all
 * @ticks: 0 since start, else the last @ticks polls (at most BPFSTATS_HIST_WINDOW)
 * Return: 0, or -EINVAL for a bad CPU.
 */
int bpfstats_runq_hist(struct bpfstats *bs, int cpu, unsigned int ticks,
		       struct bpfstats_hist *out);

/**
 * bpfstats_series - a metric's newest samples, oldest first
 * @cpu: a CPU, or -1 for all CPUs (rates summed, % and latencies over all CPUs)
 * @times: if not NULL, receives each sample's CLOCK_MONOTONIC time
 * Return: the number of samples copied (<= @max).
 */
size_t bpfstats_series(struct bpfstats *bs, enum bpfstats_metric m, int cpu,
		       double *out, uint64_t *times, size_t max);

/**
 * bpfstats_top_tasks - tasks sorted by @by, descending, zero rows left out
 * @ticks: 0 since start, else the last poll only
 * Return: the number of tasks with a non-zero value (may exceed @max).
 */
size_t bpfstats_top_tasks(struct bpfstats *bs, enum bpfstats_sort by, unsigned int ticks,
			  struct bpfstats_task *out, size_t max);

/**
 * bpfstats_top_tasks_if - bpfstats_top_tasks() of the tasks @keep keeps
 * @keep: called without the statistics' lock, for every task with a non-zero
 *	value (NULL keeps all)
 * Return: the number of kept tasks with a non-zero value (may exceed @max).
 */
size_t bpfstats_top_tasks_if(struct bpfstats *bs, enum bpfstats_sort by, unsigned int ticks,
			     bool (*keep)(void *ctx, uint32_t tid), void *ctx,
			     struct bpfstats_task *out, size_t max);

/* One task's figures since start. Return: 0, or -ENOENT when not tracked. */
int bpfstats_task(struct bpfstats *bs, uint32_t tid, struct bpfstats_task *out);

/**
 * bpfstats_syscalls - syscall latency histograms, sorted by total time, descending
 * @cpu: -1 for all; @ticks: 0 since start, else the last poll only
 * Return: the number of syscalls seen (may exceed @max).
 */
size_t bpfstats_syscalls(struct bpfstats *bs, int cpu, unsigned int ticks,
			 struct bpfstats_syscall *out, size_t max);

/**
 * bpfstats_irqs - hardirq (per irq) and softirq (per vector) time, by ns descending
 * @cpu: -1 for all; @ticks: 0 since start, else the last poll only
 * Return: the number of vectors seen (may exceed @max).
 */
size_t bpfstats_irqs(struct bpfstats *bs, int cpu, unsigned int ticks,
		     struct bpfstats_irq *out, size_t max);

/**
 * bpfstats_outliers - outliers newer than @after_seq, oldest first
 * The newest BPFSTATS_OUTLIERS_KEPT are held.
 * Return: the number copied.
 */
#define BPFSTATS_OUTLIERS_KEPT	4096
size_t bpfstats_outliers(struct bpfstats *bs, uint64_t after_seq,
			 struct bpfstats_outlier *out, size_t max);

/**
 * bpfstats_print - a plain-text summary block for the batch printer
 * @ticks: 0: figures since start; else the last poll (rates are always the
 *         last poll's; set the poll interval to the batch interval to match)
 * @rows: rows per table (tasks, syscalls, irqs, outliers); 0: 5
 * @after_seq: outliers newer than this are listed; returns the newest listed
 *
 * Context: any thread. Return: the newest outlier seq listed (or @after_seq).
 */
uint64_t bpfstats_print(struct bpfstats *bs, FILE *o, unsigned int ticks, unsigned int rows,
			uint64_t after_seq);

/* ---- the figures of one poll, as data: what --stream sends (src/bpfstats/bpfstats_feed.c) ---- */

/*
 * Cumulative counters since the programs loaded, as the poll read them from
 * the kernel's maps; sparse tables hold only non-zero rows. A bpfstats with
 * no kernel is fed them one poll after another and answers every query as
 * the far side's would: the reader of a stream shows the BPF figures of the
 * machine that streams.
 */
/* The counters of struct bpfstats_raw_cpu (and struct kstat_cpu), in the stream's order. */
#define BPFSTATS_CPU_COUNTERS(X) \
	X(ctxsw) X(hardirq_ns) X(hardirq_n) X(softirq_ns) X(softirq_n) X(rb_drops) X(map_full)

struct bpfstats_raw_cpu {
	uint64_t		ctxsw;
	uint64_t		hardirq_ns;
	uint64_t		hardirq_n;
	uint64_t		softirq_ns;
	uint64_t		softirq_n;
	uint64_t		rb_drops;
	uint64_t		map_full;
	struct bpfstats_hist	runq;
};

struct bpfstats_raw_vec {
	uint32_t	id;		/* irq number, softirq vector, syscall id */
	uint32_t	cpu;
	uint64_t	ns;		/* vectors */
	uint64_t	count;
};

struct bpfstats_raw_sys {
	uint32_t		id;
	uint32_t		cpu;
	struct bpfstats_hist	h;
};

struct bpfstats_raw {
	uint64_t		mono_ns;	/* when it was read (the far side's CLOCK_MONOTONIC) */
	uint32_t		ncpus;
	uint32_t		nonline;
	bool			irqs;
	bool			syscalls;
	char			mode[8];
	double			interval;
	struct bpfstats_raw_cpu	*cpu;		/* [ncpus] */
	struct bpfstats_raw_vec	*softirq;	/* id: the vector */
	size_t			nsoftirq;
	struct bpfstats_raw_vec	*irq;		/* id: the irq */
	size_t			nirq;
	struct bpfstats_irq	*irq_name;	/* vec and name of each irq (the far /proc) */
	size_t			nirq_name;
	struct bpfstats_raw_sys	*sys;
	size_t			nsys;
	struct bpfstats_task	*task;		/* runq_max_ns since start */
	bool			*task_dead;	/* [ntask] */
	size_t			ntask;
	struct bpfstats_outlier	*outl;		/* newer than the seq asked for, oldest first */
	size_t			noutl;
};

/**
 * bpfstats_raw_get - the figures of the last poll, and outliers newer than @after_seq
 * @out: filled; its tables are allocated (bpfstats_raw_free)
 * Return: 0, -EAGAIN before the first poll, or -ENOMEM.
 * Context: any thread.
 */
int bpfstats_raw_get(struct bpfstats *bs, uint64_t after_seq, struct bpfstats_raw *out);

/* Free the tables of @r (not @r). */
void bpfstats_raw_free(struct bpfstats_raw *r);

/**
 * bpfstats_new_fed - a bpfstats with no kernel, fed by bpfstats_feed()
 * @first: the first poll received (its CPU count, mode and tables set the shape)
 * @o: history and wake_fd; the rest is the far side's
 * Return: 0 and *@out, or -EINVAL (a shape it cannot hold) or -ENOMEM.
 */
int bpfstats_new_fed(struct bpfstats **out, const struct bpfstats_raw *first,
		     const struct bpfstats_opts *o);

/**
 * bpfstats_feed - one more poll of the far side: deltas, series, tasks and
 * outliers as a poll of a local kernel makes them
 * Return: 0, or -EINVAL when @r does not fit (another CPU count, an id out
 * of range): nothing is changed then.
 * Context: the one thread that feeds; queries from any thread.
 */
int bpfstats_feed(struct bpfstats *bs, const struct bpfstats_raw *r);

/* Pure helpers. */
uint64_t bpfstats_hist_quantile(const struct bpfstats_hist *h, double q);
/* Return: a static name ("read"), or NULL when unknown. */
const char *bpfstats_syscall_name(uint32_t id);
const char *bpfstats_metric_name(enum bpfstats_metric m);

#endif
