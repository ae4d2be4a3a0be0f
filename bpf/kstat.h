/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Types shared by bpf/kstat.bpf.c (kernel side) and src/bpfstats/bpf_kstat.c (user
 * side). Fixed-size integers only, so both compilers agree on the layout.
 * Histograms are log2 of nanoseconds: slot k counts values in [2^k, 2^(k+1)),
 * slot 0 also counts 0.
 */
#ifndef KTOP_BPF_KSTAT_H
#define KTOP_BPF_KSTAT_H

#define KSTAT_SLOTS		40	/* 2^40 ns ~ 18 minutes */
#define KSTAT_MAX_SYSCALLS	512	/* syscall ids >= this are counted in the last slot */
#define KSTAT_MAX_SOFTIRQS	16	/* NR_SOFTIRQS is 10 */
#define KSTAT_MAX_IRQS		1024	/* distinct hardirq numbers */
#define KSTAT_MAX_TASKS		16384	/* tasks tracked at once */
#define KSTAT_COMM_LEN		16

struct kstat_hist {
	__u64	slot[KSTAT_SLOTS];
	__u64	count;
	__u64	sum_ns;
	__u64	max_ns;
};

/* One per CPU (PERCPU_ARRAY, key 0). */
struct kstat_cpu {
	__u64			ctxsw;		/* sched_switch on this CPU */
	__u64			hardirq_ns;
	__u64			hardirq_n;
	__u64			softirq_ns;
	__u64			softirq_n;
	__u64			irq_start;	/* scratch: current hardirq entry */
	__u64			sirq_start;	/* scratch: current softirq entry */
	__u64			rb_drops;	/* outliers the ring buffer had no room for */
	__u64			map_full;	/* tasks not tracked: map full */
	struct kstat_hist	runq;		/* wakeup -> switch-in, by switch-in CPU */
};

/* Per irq number or softirq vector, per CPU. */
struct kstat_vec {
	__u64	ns;
	__u64	count;
};

/*
 * Per task (HASH by tid): what the task spent off CPU and waiting to run.
 * Not per-CPU: the statistics of a task are only written at its own
 * switch-in, which happens on one CPU at a time, and one lookup per switch
 * finds both the timestamps and the sums.
 */
struct kstat_task {
	__u64	offcpu_ns;	/* switch-out -> switch-in, run-queue wait included */
	__u64	offcpu_n;
	__u64	runq_ns;	/* wakeup -> switch-in */
	__u64	runq_n;
	__u64	runq_max_ns;
	__u64	off_ts;		/* scratch: last switch-out, 0 when on CPU */
	__u64	wake_ts;	/* scratch: last wakeup, 0 when consumed */
	__u32	tgid;
	__u32	dead;		/* set at exit: user space reads it a last time, then deletes */
	char	comm[KSTAT_COMM_LEN];
};

/* One run-queue latency above the threshold, through the ring buffer. */
struct kstat_outlier {
	__u64	ts;		/* bpf_ktime_get_ns() at switch-in: CLOCK_MONOTONIC */
	__u64	latency_ns;
	__u32	pid;		/* the task that waited */
	__u32	tgid;
	__u32	cpu;
	__u32	prev_pid;	/* the task it replaced */
	char	comm[KSTAT_COMM_LEN];
	char	prev_comm[KSTAT_COMM_LEN];
};

#endif
