/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One decoded kernel event, as the decoder hands it to the store and the
 * store hands it back to readers. This is a transfer struct, not the storage
 * layout: the store keeps events in compact struct-of-arrays chunks.
 */
#ifndef KTOP_EVENT_H
#define KTOP_EVENT_H

#include <stdint.h>
#include <stdbool.h>

#define KTOP_MAX_ARGS	16

/*
 * Raw common_flags bits, as the kernel writes them (include/linux/trace_events.h,
 * enum trace_flag_type). 0x02 meant IRQS_NOSUPPORT before v6.12 and means
 * NEED_RESCHED_LAZY since; which one applies is a property of the kernel and
 * is decided by the formatter, never by the store.
 */
enum ktop_kflag {
	KTOP_KF_IRQS_OFF	= 0x01,
	KTOP_KF_BIT1		= 0x02,	/* IRQS_NOSUPPORT (old) or NEED_RESCHED_LAZY (new) */
	KTOP_KF_NEED_RESCHED	= 0x04,
	KTOP_KF_HARDIRQ		= 0x08,
	KTOP_KF_SOFTIRQ		= 0x10,
	KTOP_KF_PREEMPT_RESCHED	= 0x20,
	KTOP_KF_NMI		= 0x40,
	KTOP_KF_BH_OFF		= 0x80,
};

/* common_preempt_count: low nibble preempt depth, high nibble migrate-disable depth */
#define KTOP_PC_PREEMPT(pc)	((pc) & 0x0f)
#define KTOP_PC_MIGRATE(pc)	(((pc) >> 4) & 0x0f)

/**
 * ktop_ctx_recorded - did the kernel record this event's context (flags, depths)?
 * @pc: raw common_preempt_count
 *
 * Both depths at their cap (preempt_count 15 or more while migrate_disable is
 * nested 15 deep) do not occur: it is what tracing_gen_ctx_dec() leaves when
 * it takes one off a context of 0, as uprobe events get on kernels with
 * CONFIG_PREEMPTION (seen on 6.18: "DBZff"). The borrow runs on into the
 * flags byte (0xff, or one less than the true flags: "dL.ff" for "dN..."),
 * so neither byte says anything. Such events are "not recorded": the flag
 * figures leave them out and say how many.
 *
 * Return: false for such an event.
 */
static inline bool ktop_ctx_recorded(uint8_t pc)
{
	return pc != 0xff;
}

/*
 * Types with a fixed id, decoded by dedicated code. Every other tracefs event
 * gets a dynamic id >= KTOP_T_DYNAMIC from the schema (src/store/schema.h) and keeps
 * all of its fields generically.
 */
enum ktop_type {
	KTOP_T_NONE = 0,
	KTOP_T_FUNCTION,		/* args: ip sym, parent_ip sym */
	KTOP_T_FGRAPH_ENTRY,		/* args: func sym, depth */
	KTOP_T_FGRAPH_EXIT,		/* args: func sym, depth, calltime, rettime, overrun */
	KTOP_T_FUNC_REPEATS,		/* args: ip sym, parent sym, count, top_delta_ts */
	KTOP_T_SCHED_SWITCH,		/* args: prev_comm str, prev_pid, prev_prio, prev_state,
					 *       next_comm str, next_pid, next_prio */
	KTOP_T_SCHED_WAKEUP,		/* args: comm str, pid, prio, target_cpu */
	KTOP_T_SCHED_WAKEUP_NEW,	/* args: comm str, pid, prio, target_cpu */
	KTOP_T_SCHED_PROCESS_EXEC,	/* args: filename str, pid, old_pid */
	KTOP_T_SCHED_PROCESS_EXIT,	/* args: comm str, pid, prio */
	KTOP_T_IRQ_HANDLER_ENTRY,	/* args: irq, name str */
	KTOP_T_IRQ_HANDLER_EXIT,	/* args: irq, ret */
	KTOP_T_SOFTIRQ_ENTRY,		/* args: vec */
	KTOP_T_SOFTIRQ_EXIT,		/* args: vec */
	KTOP_T_SYS_ENTER,		/* args: id, args[0..5] */
	KTOP_T_SYS_EXIT,		/* args: id, ret */
	KTOP_T_OSNOISE,			/* ftrace:osnoise sample: runtime, noise, max_sample,
					 * hw_count, nmi_count, irq_count, softirq_count,
					 * thread_count */
	KTOP_T_TIMERLAT,		/* ftrace:timerlat: seqnum, context, timer_latency */
	KTOP_T_IRQ_NOISE,		/* osnoise:irq_noise: start, duration, desc str, vector */
	KTOP_T_SOFTIRQ_NOISE,		/* osnoise:softirq_noise: start, duration, vector */
	KTOP_T_NMI_NOISE,		/* osnoise:nmi_noise: start, duration */
	KTOP_T_THREAD_NOISE,		/* osnoise:thread_noise: comm str, pid, start, duration */
	KTOP_T_SAMPLE_THRESHOLD,	/* osnoise:sample_threshold: start, duration, interference */
	KTOP_T_MARKER,			/* ktop's own marks (filter changes): args: text str */
	KTOP_T_NR_FIXED,
	KTOP_T_DYNAMIC = 64,
};

struct ktop_event {
	uint64_t	ts;		/* ring-buffer clock, ns */
	uint64_t	args[KTOP_MAX_ARGS];	/* meaning given by the schema of @type */
	int32_t		pid;		/* common_pid */
	uint32_t	stack;		/* stack id in store_stacks(), 0: none (src/store/stacks.h) */
	uint16_t	cpu;
	uint16_t	type;		/* enum ktop_type or a dynamic schema id */
	uint8_t		flags;		/* raw common_flags, enum ktop_kflag */
	uint8_t		pc;		/* raw common_preempt_count */
	uint8_t		nargs;
};

#endif
