// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktop's kernel statistics: run-queue latency per CPU, off-CPU time and
 * run-queue latency per task, hardirq and softirq time per CPU and vector,
 * syscall latency per syscall, context switches per CPU. Everything is summed
 * in per-CPU maps that user space polls (src/bpfstats/bpf_kstat.c); only run-queue
 * latencies above a threshold go through a ring buffer, one record each.
 *
 * Every program exists twice: tp_btf (cheapest, needs kernel BTF and the
 * "tracing" program type) and raw_tp (the fallback); user space loads one set.
 * Both use BPF_CORE_READ, which is valid in either.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "kstat.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by user space before load. */
const volatile __u32 self_tgid = 0;		/* ktop itself: not measured */
const volatile __u64 outlier_ns = 10000000;	/* run-queue latency worth a record */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kstat_cpu);
} ktop_cpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KSTAT_MAX_SYSCALLS);
	__type(key, __u32);
	__type(value, struct kstat_hist);
} ktop_sys SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KSTAT_MAX_SOFTIRQS);
	__type(key, __u32);
	__type(value, struct kstat_vec);
} ktop_softirq SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, KSTAT_MAX_IRQS);
	__type(key, __u32);
	__type(value, struct kstat_vec);
} ktop_hardirq SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KSTAT_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct kstat_task);
} ktop_task SEC(".maps");

struct sys_start {
	__u64	ts;
	__u64	id;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KSTAT_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct sys_start);
} ktop_sys_ts SEC(".maps");

/* The same, in task local storage: much cheaper than a hash, tp_btf only. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sys_start);
} ktop_sys_tls SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} ktop_outliers SEC(".maps");

static __always_inline struct kstat_cpu *this_cpu(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&ktop_cpu, &zero);
}

static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0, shift;

	shift = (v > 0xffffffffULL) << 5; v >>= shift; r |= shift;
	shift = (v > 0xffff) << 4; v >>= shift; r |= shift;
	shift = (v > 0xff) << 3; v >>= shift; r |= shift;
	shift = (v > 0xf) << 2; v >>= shift; r |= shift;
	shift = (v > 0x3) << 1; v >>= shift; r |= shift;
	r |= (v >> 1);
	return r;
}

static __always_inline void hist_add(struct kstat_hist *h, __u64 ns)
{
	__u32 s = log2_u64(ns);

	if (s >= KSTAT_SLOTS)
		s = KSTAT_SLOTS - 1;
	h->slot[s]++;
	h->count++;
	h->sum_ns += ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

/*
 * Task fields: tp_btf programs read them directly (plain loads, CO-RE
 * relocated), raw_tp ones through bpf_probe_read_kernel. @btf is a constant
 * in every inlined copy, so the other branch is not even emitted.
 */
#define TASK_READ(btf, p, f)	((btf) ? (p)->f : BPF_CORE_READ(p, f))

static __always_inline struct kstat_task *task_get(struct task_struct *p, __u32 tid,
						   struct kstat_cpu *c)
{
	struct kstat_task *t, init = {};

	t = bpf_map_lookup_elem(&ktop_task, &tid);
	if (t)
		return t;
	init.tgid = BPF_CORE_READ(p, tgid);
	bpf_probe_read_kernel_str(init.comm, sizeof(init.comm), &p->comm);
	if (bpf_map_update_elem(&ktop_task, &tid, &init, BPF_NOEXIST) && c)
		c->map_full++;
	return bpf_map_lookup_elem(&ktop_task, &tid);
}

static __always_inline void on_wakeup(struct task_struct *p, const bool btf)
{
	struct kstat_task *t;
	__u32 tid;

	if (TASK_READ(btf, p, tgid) == self_tgid)
		return;
	tid = TASK_READ(btf, p, pid);
	if (!tid)
		return;
	t = task_get(p, tid, NULL);
	if (t)
		t->wake_ts = bpf_ktime_get_ns();
}

static __always_inline void emit_outlier(struct task_struct *prev, struct task_struct *next,
					 __u32 tid, __u64 now, __u64 lat, struct kstat_cpu *c)
{
	struct kstat_outlier *o;

	o = bpf_ringbuf_reserve(&ktop_outliers, sizeof(*o), 0);
	if (!o) {
		if (c)
			c->rb_drops++;
		return;
	}
	o->ts = now;
	o->latency_ns = lat;
	o->pid = tid;
	o->tgid = BPF_CORE_READ(next, tgid);
	o->cpu = bpf_get_smp_processor_id();
	o->prev_pid = BPF_CORE_READ(prev, pid);
	bpf_probe_read_kernel_str(o->comm, sizeof(o->comm), &next->comm);
	bpf_probe_read_kernel_str(o->prev_comm, sizeof(o->prev_comm), &prev->comm);
	bpf_ringbuf_submit(o, 0);
}

static __always_inline void on_switch(struct task_struct *prev, struct task_struct *next,
				      const bool btf)
{
	struct kstat_cpu *c = this_cpu();
	__u64 now = bpf_ktime_get_ns();
	struct kstat_task *t;
	__u64 off, wake;
	__u32 tid;

	if (c)
		c->ctxsw++;

	/* prev goes off CPU */
	tid = TASK_READ(btf, prev, pid);
	if (tid && TASK_READ(btf, prev, tgid) != self_tgid) {
		t = task_get(prev, tid, c);
		if (t)
			t->off_ts = now;
	}

	/* next comes on CPU */
	tid = TASK_READ(btf, next, pid);
	if (!tid)
		return;
	t = bpf_map_lookup_elem(&ktop_task, &tid);
	if (!t)
		return;
	off = t->off_ts;
	wake = t->wake_ts;
	t->off_ts = 0;
	t->wake_ts = 0;
	/* a wakeup older than the last switch-out woke a task that was still running */
	if (wake && wake < off)
		wake = 0;
	if (off) {
		t->offcpu_ns += now - off;
		t->offcpu_n++;
	}
	if (!wake)
		return;
	wake = now - wake;
	t->runq_ns += wake;
	t->runq_n++;
	if (wake > t->runq_max_ns)
		t->runq_max_ns = wake;
	if (c)
		hist_add(&c->runq, wake);
	if (wake >= outlier_ns)
		emit_outlier(prev, next, tid, now, wake, c);
}

static __always_inline void on_exit(struct task_struct *p, const bool btf)
{
	__u32 tid = TASK_READ(btf, p, pid);
	struct kstat_task *t;

	t = bpf_map_lookup_elem(&ktop_task, &tid);
	if (t)
		t->dead = 1;
	if (!btf)	/* task storage goes with the task */
		bpf_map_delete_elem(&ktop_sys_ts, &tid);
}

/* exec changes the comm that was copied when the task was first seen */
static __always_inline void on_exec(struct task_struct *p, const bool btf)
{
	__u32 tid = TASK_READ(btf, p, pid);
	struct kstat_task *t;

	t = bpf_map_lookup_elem(&ktop_task, &tid);
	if (t)
		bpf_probe_read_kernel_str(t->comm, sizeof(t->comm), &p->comm);
}

static __always_inline void on_irq_entry(void)
{
	struct kstat_cpu *c = this_cpu();

	if (c)
		c->irq_start = bpf_ktime_get_ns();
}

static __always_inline void on_irq_exit(__u32 irq)
{
	struct kstat_cpu *c = this_cpu();
	struct kstat_vec *v, init = {};
	__u64 d;

	if (!c || !c->irq_start)
		return;
	d = bpf_ktime_get_ns() - c->irq_start;
	c->irq_start = 0;
	c->hardirq_ns += d;
	c->hardirq_n++;
	v = bpf_map_lookup_elem(&ktop_hardirq, &irq);
	if (v) {
		v->ns += d;
		v->count++;
		return;
	}
	init.ns = d;
	init.count = 1;
	bpf_map_update_elem(&ktop_hardirq, &irq, &init, BPF_ANY);
}

static __always_inline void on_softirq_entry(void)
{
	struct kstat_cpu *c = this_cpu();

	if (c)
		c->sirq_start = bpf_ktime_get_ns();
}

static __always_inline void on_softirq_exit(__u32 vec)
{
	struct kstat_cpu *c = this_cpu();
	struct kstat_vec *v;
	__u64 d;

	if (!c || !c->sirq_start)
		return;
	d = bpf_ktime_get_ns() - c->sirq_start;
	c->sirq_start = 0;
	c->softirq_ns += d;
	c->softirq_n++;
	v = bpf_map_lookup_elem(&ktop_softirq, &vec);
	if (v) {
		v->ns += d;
		v->count++;
	}
}

static __always_inline void sys_done(struct sys_start *s)
{
	struct kstat_hist *h;
	__u32 id;
	__u64 d;

	d = bpf_ktime_get_ns() - s->ts;
	id = s->id >= KSTAT_MAX_SYSCALLS ? KSTAT_MAX_SYSCALLS - 1 : s->id;
	s->ts = 0;
	h = bpf_map_lookup_elem(&ktop_sys, &id);
	if (h)
		hist_add(h, d);
}

/* tp_btf: the start lives in the task's local storage */
static __always_inline void on_sys_enter_btf(long id)
{
	struct sys_start *s;

	if ((bpf_get_current_pid_tgid() >> 32) == self_tgid)
		return;
	s = bpf_task_storage_get(&ktop_sys_tls, bpf_get_current_task_btf(), 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!s)
		return;
	s->ts = bpf_ktime_get_ns();
	s->id = id;
}

static __always_inline void on_sys_exit_btf(void)
{
	struct sys_start *s;

	s = bpf_task_storage_get(&ktop_sys_tls, bpf_get_current_task_btf(), 0, 0);
	if (s && s->ts)
		sys_done(s);
}

/* raw_tp: in a hash by tid */
static __always_inline void on_sys_enter(long id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct sys_start s;
	__u32 tid = (__u32)pid_tgid;

	if ((pid_tgid >> 32) == self_tgid)
		return;
	s.ts = bpf_ktime_get_ns();
	s.id = id;
	bpf_map_update_elem(&ktop_sys_ts, &tid, &s, BPF_ANY);
}

static __always_inline void on_sys_exit(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct sys_start *s;

	s = bpf_map_lookup_elem(&ktop_sys_ts, &tid);
	if (!s)
		return;
	sys_done(s);
	bpf_map_delete_elem(&ktop_sys_ts, &tid);
}

/* tp_btf set */
SEC("tp_btf/sched_switch")
int BPF_PROG(ktop_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	on_switch(prev, next, true);
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(ktop_wakeup, struct task_struct *p)
{
	on_wakeup(p, true);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(ktop_wakeup_new, struct task_struct *p)
{
	on_wakeup(p, true);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(ktop_exit, struct task_struct *p)
{
	on_exit(p, true);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(ktop_exec, struct task_struct *p)
{
	on_exec(p, true);
	return 0;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(ktop_irq_in, int irq)
{
	on_irq_entry();
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(ktop_irq_out, int irq)
{
	on_irq_exit(irq);
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(ktop_sirq_in, unsigned int vec)
{
	on_softirq_entry();
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(ktop_sirq_out, unsigned int vec)
{
	on_softirq_exit(vec);
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(ktop_sys_in, struct pt_regs *regs, long id)
{
	on_sys_enter_btf(id);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(ktop_sys_out, struct pt_regs *regs, long ret)
{
	on_sys_exit_btf();
	return 0;
}

/* raw_tp set: same code, for kernels that refuse the tracing program type */
SEC("raw_tp/sched_switch")
int BPF_PROG(ktop_switch_r, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	on_switch(prev, next, false);
	return 0;
}

SEC("raw_tp/sched_wakeup")
int BPF_PROG(ktop_wakeup_r, struct task_struct *p)
{
	on_wakeup(p, false);
	return 0;
}

SEC("raw_tp/sched_wakeup_new")
int BPF_PROG(ktop_wakeup_new_r, struct task_struct *p)
{
	on_wakeup(p, false);
	return 0;
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(ktop_exit_r, struct task_struct *p)
{
	on_exit(p, false);
	return 0;
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(ktop_exec_r, struct task_struct *p)
{
	on_exec(p, false);
	return 0;
}

SEC("raw_tp/irq_handler_entry")
int BPF_PROG(ktop_irq_in_r, int irq)
{
	on_irq_entry();
	return 0;
}

SEC("raw_tp/irq_handler_exit")
int BPF_PROG(ktop_irq_out_r, int irq)
{
	on_irq_exit(irq);
	return 0;
}

SEC("raw_tp/softirq_entry")
int BPF_PROG(ktop_sirq_in_r, unsigned int vec)
{
	on_softirq_entry();
	return 0;
}

SEC("raw_tp/softirq_exit")
int BPF_PROG(ktop_sirq_out_r, unsigned int vec)
{
	on_softirq_exit(vec);
	return 0;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(ktop_sys_in_r, struct pt_regs *regs, long id)
{
	on_sys_enter(id);
	return 0;
}

SEC("raw_tp/sys_exit")
int BPF_PROG(ktop_sys_out_r, struct pt_regs *regs, long ret)
{
	on_sys_exit();
	return 0;
}
