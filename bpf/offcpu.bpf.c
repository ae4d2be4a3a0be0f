// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Off-CPU time by stack, like libbpf-tools offcputime: at a context switch the
 * task going off CPU gets its kernel and user stack ids (bpf_get_stackid into
 * a stack map) and the time; when it comes back on CPU, the time it was away
 * is added to its (thread, kernel stack, user stack) total. User space
 * (src/bpfstats/bpf_offcpu.c) polls the totals and reads the stacks.
 *
 * Two copies of the program, tp_btf (the cheapest) and raw_tp (the fallback);
 * user space loads one. Kernel threads get no user stack. User stacks follow
 * frame pointers: a program built without them gives its leaf frame only.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "offcpu.h"

char LICENSE[] SEC("license") = "GPL";

#define PF_KTHREAD	0x00200000

const volatile __u32 self_tgid = 0;	/* ktop itself: not measured */
const volatile __u64 min_ns = 0;	/* shorter stays off CPU are left out */
const volatile bool filter_pids = false;	/* only the tgids/pids of ktop_offcpu_pids */

/* -P: set before attach. Others get no stack walk, and take no room in the stack map. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OFFCPU_MAX_PIDS);
	__type(key, __u32);
	__type(value, __u8);
} ktop_offcpu_pids SEC(".maps");

struct offcpu_start {
	__u64			ts;
	struct offcpu_key	key;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OFFCPU_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct offcpu_start);
} ktop_offcpu_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OFFCPU_MAX_ENTRIES);
	__type(key, struct offcpu_key);
	__type(value, struct offcpu_val);
} ktop_offcpu_total SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, OFFCPU_MAX_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, OFFCPU_STACK_DEPTH * sizeof(__u64));
} ktop_offcpu_stacks SEC(".maps");

static __always_inline void on_switch(void *ctx, struct task_struct *prev,
				      struct task_struct *next)
{
	struct offcpu_start *sp, s = {};
	struct offcpu_val *v, zero = {};
	__u64 now = bpf_ktime_get_ns();
	__u32 pid = BPF_CORE_READ(prev, pid), tgid = BPF_CORE_READ(prev, tgid);
	__u32 npid = BPF_CORE_READ(next, pid);

	/* prev is still current: its stacks are the ones the helper walks */
	if (pid && tgid != self_tgid &&
	    (!filter_pids || bpf_map_lookup_elem(&ktop_offcpu_pids, &tgid) ||
	     bpf_map_lookup_elem(&ktop_offcpu_pids, &pid))) {
		s.ts = now;
		s.key.pid = pid;
		s.key.tgid = tgid;
		s.key.kstack = bpf_get_stackid(ctx, &ktop_offcpu_stacks, 0);
		s.key.ustack = BPF_CORE_READ(prev, flags) & PF_KTHREAD ? -1 :
			       bpf_get_stackid(ctx, &ktop_offcpu_stacks, BPF_F_USER_STACK);
		bpf_map_update_elem(&ktop_offcpu_start, &pid, &s, BPF_ANY);
	}
	if (!npid)
		return;
	sp = bpf_map_lookup_elem(&ktop_offcpu_start, &npid);
	if (!sp)
		return;
	if (now - sp->ts >= min_ns && now > sp->ts) {
		v = bpf_map_lookup_elem(&ktop_offcpu_total, &sp->key);
		if (!v) {
			bpf_map_update_elem(&ktop_offcpu_total, &sp->key, &zero, BPF_NOEXIST);
			v = bpf_map_lookup_elem(&ktop_offcpu_total, &sp->key);
		}
		if (v) {
			__sync_fetch_and_add(&v->ns, now - sp->ts);
			__sync_fetch_and_add(&v->count, 1);
		}
	}
	bpf_map_delete_elem(&ktop_offcpu_start, &npid);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(ktop_offcpu, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	on_switch(ctx, prev, next);
	return 0;
}

SEC("raw_tp/sched_switch")
int BPF_PROG(ktop_offcpu_r, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	on_switch(ctx, prev, next);
	return 0;
}
