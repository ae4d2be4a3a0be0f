/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The off-CPU BPF object (bpf/offcpu.bpf.c): where tasks block and for how
 * long, by kernel and user stack (--offcpu). open loads and attaches; poll
 * reads the totals and the stacks into a store's stack table (the set
 * STACKS_W_OFFCPU: count = switches out, value = ns off CPU, per thread);
 * destroy detaches. Nothing else includes the skeleton.
 *
 * Cost: one stack walk (kernel, and user for user tasks) at every context
 * switch of the machine, and two hash updates: tests/bench/offcpu_overhead.sh
 * measures it next to libbpf-tools offcputime on the same load.
 */
#ifndef KTOP_BPF_OFFCPU_H_USER
#define KTOP_BPF_OFFCPU_H_USER

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bpf_offcpu;
struct store;
struct symbols;

struct bpf_offcpu_opts {
	uint32_t	self_tgid;	/* not measured; 0: getpid() */
	/*
	 * Kernel symbols (may be NULL; must outlive the object): a stack walked
	 * from the BPF program starts in the program and the tracepoint glue,
	 * cut off up to the tracepoint's iterator (__traceiter_sched_switch) so
	 * that the stack starts where the task blocked (__schedule).
	 */
	const struct symbols *ksyms;
	uint64_t	min_ns;		/* shorter stays off CPU are left out */
	const int	*pids;		/* only these threads or processes (-P); NULL: all */
	unsigned int	npids;
	bool		force_raw_tp;	/* skip the tp_btf attempt (tests) */
};

/**
 * bpf_offcpu_open - open, load and attach
 * @why: on failure, a sentence for the user (what failed and why)
 * Return: 0 and *@out (free with bpf_offcpu_destroy), or a negative errno.
 */
int bpf_offcpu_open(struct bpf_offcpu **out, const struct bpf_offcpu_opts *o, char *why,
		    size_t whylen);
void bpf_offcpu_destroy(struct bpf_offcpu *b);

/* "tp_btf" or "raw_tp". */
const char *bpf_offcpu_mode(const struct bpf_offcpu *b);

struct bpf_offcpu_stats {
	uint64_t	entries;	/* (thread, stacks) totals read */
	uint64_t	ns;		/* their time off CPU */
	uint64_t	lost_stacks;	/* totals whose stacks the stack map had no room for */
	uint64_t	lost_ns;
};

/**
 * bpf_offcpu_poll - read the totals (since open) into @st's stack table
 * @out: may be NULL
 * Context: one thread at a time.
 * Return: 0 or a negative errno.
 */
int bpf_offcpu_poll(struct bpf_offcpu *b, struct store *st, struct bpf_offcpu_stats *out);

/* The figures of the last poll. Context: the polling thread. */
void bpf_offcpu_last(const struct bpf_offcpu *b, struct bpf_offcpu_stats *out);

#endif
