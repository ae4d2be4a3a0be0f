/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Types shared by bpf/offcpu.bpf.c and src/bpfstats/bpf_offcpu.c: time off CPU per
 * (thread, kernel stack, user stack), as libbpf-tools offcputime keeps it.
 */
#ifndef KTOP_BPF_OFFCPU_H
#define KTOP_BPF_OFFCPU_H

#define OFFCPU_MAX_ENTRIES	16384	/* (thread, stacks) totals */
#define OFFCPU_MAX_STACKS	16384	/* stack map slots (a collision loses the stack) */
#define OFFCPU_STACK_DEPTH	64	/* frames kept per stack */
#define OFFCPU_MAX_THREADS	32768	/* threads off CPU at one time */
#define OFFCPU_MAX_PIDS		64	/* -P: the processes or threads measured */

struct offcpu_key {
	__u32	pid;		/* the thread (task pid) */
	__u32	tgid;		/* its process: the user stack's address space */
	__s32	kstack;		/* stack map ids; negative: none (-EEXIST: lost to a
				 * full or colliding stack map) */
	__s32	ustack;
};

struct offcpu_val {
	__u64	ns;		/* time off CPU */
	__u64	count;		/* times switched out there */
};

#endif
