/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The insides of struct bpfstats, shared by the poller (src/bpfstats/bpfstats.c) and
 * the stream's side of it (src/bpfstats/bpfstats_feed.c): one model of the figures,
 * filled from the kernel's maps or from what a --stream sent.
 */
#ifndef KTOP_BPFSTATS_LOCAL_H
#define KTOP_BPFSTATS_LOCAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "bpf_kstat.h"
#include "bpfstats.h"
#include "lib/series.h"

struct task_sums {
	uint64_t	offcpu_ns;
	uint64_t	offcpu_n;
	uint64_t	runq_ns;
	uint64_t	runq_n;
};

struct task_ent {
	uint32_t		tid;
	uint32_t		tgid;
	char			comm[KSTAT_COMM_LEN];
	struct task_sums	cur;
	struct task_sums	prev;
	uint64_t		runq_max_ns;
	uint32_t		unchanged;	/* ticks without change */
	bool			dead;		/* exited; no longer in the map */
};

struct irq_tab {
	size_t			n;
	uint32_t		*ids;		/* sorted */
	struct kstat_vec	*cur;		/* [n][ncpus] */
	struct kstat_vec	*prev;		/* [n][ncpus], aligned with ids */
	char			(*names)[32];
};

struct bpfstats {
	struct bpf_kstat	*k;		/* NULL: fed (bpfstats_feed), no kernel */
	bool			has_sys;	/* syscall programs attached (on the far side) */
	bool			has_irqs;
	char			mode[8];	/* "tp_btf", "raw_tp" */
	struct bpfstats_opts	o;
	unsigned int		ncpus;		/* possible CPUs: per-CPU value slots */
	unsigned int		nonline;

	pthread_t		thr;
	bool			thr_started;
	int			stop_fd;

	pthread_mutex_t		lock;		/* everything below */
	uint64_t		ticks;
	uint64_t		last_ns;
	uint64_t		poll_ns;
	int			last_err;

	/* rotating buffers: rd is filled without the lock, then becomes cur */
	struct kstat_cpu	*cpu_rd, *cpu_cur, *cpu_prev;
	struct kstat_vec	*sirq_rd, *sirq_cur, *sirq_prev;
	struct kstat_hist	*sys_rd, *sys_cur, *sys_prev;

	uint32_t		*irq_rd_ids;
	struct kstat_vec	*irq_rd;
	int			irq_rd_n;
	struct irq_tab		irq, irq_new;

	uint32_t		*task_rd_ids;
	struct kstat_task	*task_rd;
	int			task_rd_n;
	struct task_ent		*tasks, *tasks_new;
	size_t			ntasks;

	struct bpfstats_hist	*hwin;		/* [BPFSTATS_HIST_WINDOW][ncpus] */
	unsigned int		hw_n, hw_head;

	struct series		*ser;		/* [METRIC_NR][ncpus + 1], last = all CPUs */
	struct series		times;

	struct bpfstats_outlier	*outl;		/* ring of BPFSTATS_OUTLIERS_KEPT */
	uint64_t		outl_seq;	/* last given */
	uint64_t		outl_total;
	uint64_t		outl_from;	/* mono ns; earlier ones are not kept */
};

/* A bpfstats with its lock and options (defaults filled), no tables yet; NULL: no memory. */
struct bpfstats *bpfstats_blank(const struct bpfstats_opts *o);

/* Allocate every table of @bs (ncpus and o set) and its stop fd. Return: 0 or -errno. */
int bpfstats_alloc(struct bpfstats *bs);

/*
 * Lock held: the figures just read into the *_rd buffers become the current
 * ones at @now (CLOCK_MONOTONIC of whoever read them); tasks that exited go
 * into @stale (kernel side only) for the caller to forget.
 */
void bpfstats_apply_locked(struct bpfstats *bs, uint64_t now, uint32_t *stale, size_t *nstale,
			   size_t maxstale);

/* Lock held: the next slot of the outlier ring (seq and counts advanced). */
struct bpfstats_outlier *bpfstats_outlier_slot(struct bpfstats *bs);

#endif
