/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel statistics BPF object (bpf/kstat.bpf.c): load, attach, read its
 * maps, destroy. The only user is src/bpfstats/bpfstats.c, which polls it from a thread;
 * nothing here keeps state across reads (deltas are the poller's business).
 */
#ifndef KTOP_BPF_KSTAT_H_USER
#define KTOP_BPF_KSTAT_H_USER

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../../bpf/kstat.h"

struct bpf_kstat;

struct bpf_kstat_opts {
	uint32_t	self_tgid;	/* not measured; 0: getpid() */
	uint64_t	outlier_ns;	/* run-queue latency that makes a record; 0: 10 ms */
	bool		no_syscalls;	/* leave sys_enter/sys_exit alone */
	bool		no_irqs;	/* leave irq and softirq alone */
	bool		force_raw_tp;	/* skip the tp_btf attempt (tests) */
};

typedef int (*bpf_kstat_outlier_fn)(void *ctx, const struct kstat_outlier *o);

/**
 * bpf_kstat_open - open, load and attach the programs
 * @why: on failure, a sentence for the user (what failed and why)
 *
 * tp_btf programs are tried first, raw_tp ones if the kernel refuses them.
 * Return: 0 and *@out (free with bpf_kstat_destroy), or a negative errno.
 * Context: any thread; libbpf's messages are kept, never printed.
 */
int bpf_kstat_open(struct bpf_kstat **out, const struct bpf_kstat_opts *o,
		   bpf_kstat_outlier_fn fn, void *ctx, char *why, size_t whylen);

/* Detach every program and free every map; accepts NULL. */
void bpf_kstat_destroy(struct bpf_kstat *k);

/* "tp_btf" or "raw_tp": which program set is attached. */
const char *bpf_kstat_mode(const struct bpf_kstat *k);
/* Number of per-CPU slots in every per-CPU value (possible CPUs). */
unsigned int bpf_kstat_ncpus(const struct bpf_kstat *k);
bool bpf_kstat_has_syscalls(const struct bpf_kstat *k);
bool bpf_kstat_has_irqs(const struct bpf_kstat *k);

/* Reads. Per-CPU arrays are laid out [key][cpu]. Return: 0 or a negative errno. */
int bpf_kstat_read_cpu(struct bpf_kstat *k, struct kstat_cpu *out /* [ncpus] */);
int bpf_kstat_read_softirq(struct bpf_kstat *k,
			   struct kstat_vec *out /* [KSTAT_MAX_SOFTIRQS * ncpus] */);
int bpf_kstat_read_syscalls(struct bpf_kstat *k,
			    struct kstat_hist *out /* [KSTAT_MAX_SYSCALLS * ncpus] */);
/* Return: number of irqs stored (at most @max), or a negative errno. */
int bpf_kstat_read_hardirq(struct bpf_kstat *k, uint32_t *irqs,
			   struct kstat_vec *out /* [max * ncpus] */, size_t max);
/* Return: number of tasks stored (at most @max), or a negative errno. Not per-CPU. */
int bpf_kstat_read_tasks(struct bpf_kstat *k, uint32_t *tids,
			 struct kstat_task *out /* [max] */, size_t max);
int bpf_kstat_forget_task(struct bpf_kstat *k, uint32_t tid);

/* Hand every queued outlier to the callback. Return: number handled or -errno. */
int bpf_kstat_drain_outliers(struct bpf_kstat *k);

#endif
