/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's latency column ("d.h1." in the trace file): irqs-off/BH-off,
 * need-resched, hardirq/softirq/NMI, preempt depth, migrate-disable depth,
 * formatted from the raw common_flags and common_preempt_count exactly as
 * kernel/trace/trace_output.c trace_print_lat_fmt() does for the kernel that
 * wrote them. Which letters a bit gives depends on the kernel: see
 * enum flags_style.
 */
#ifndef KTOP_FLAGS_H
#define KTOP_FLAGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "store/event.h"

enum flags_style {
	/* before 6.12: bit 0x02 is IRQS_NOSUPPORT ('X'); five columns */
	FLAGS_STYLE_NOSUPPORT,
	/* 6.12 and later (and 6.12-rt): bit 0x02 is NEED_RESCHED_LAZY; five columns */
	FLAGS_STYLE_LAZY,
	/*
	 * The old PREEMPT_RT lazy-preemption patch (6.1-rt and earlier, the kernels
	 * with common_preempt_lazy_count): 0x20 means NEED_RESCHED_LAZY (there is
	 * no PREEMPT_RESCHED), shown in its own column, plus a preempt-lazy-depth
	 * column; seven columns.
	 */
	FLAGS_STYLE_RT_LAZY_COUNT,
};

/* Longest column (seven characters) plus the NUL. */
#define FLAGS_COLUMN_MAX	8

/**
 * flags_style_detect - the style of a kernel
 * @release: uname -r of the kernel that wrote the events (NULL: unknown, taken as new)
 * @has_lazy_count: the event formats have common_preempt_lazy_count
 * Return: the style.
 */
enum flags_style flags_style_detect(const char *release, bool has_lazy_count);

struct snapshot_meta;
/*
 * The style of a recording's kernel: its release and whether its event
 * formats have common_preempt_lazy_count, not the kernel reading it.
 */
enum flags_style flags_style_of_meta(const struct snapshot_meta *m);

/**
 * flags_format - format the latency column
 * @buf: receives the column, NUL-terminated; at least FLAGS_COLUMN_MAX bytes
 * @flags: raw common_flags
 * @pc: raw common_preempt_count
 * @lazy_count: raw common_preempt_lazy_count (FLAGS_STYLE_RT_LAZY_COUNT only)
 * Return: the number of characters written (5 or 7).
 * Context: any thread.
 */
int flags_format(char *buf, enum flags_style style, uint8_t flags, uint8_t pc,
		 uint8_t lazy_count);

/**
 * flags_format_shown - the latency column as ktop shows it
 *
 * As flags_format(), but an event whose context the kernel did not record
 * (ktop_ctx_recorded() in src/store/event.h: uprobe events whose flags read
 * "DBZff") gets '?' in every column rather than letters that do not hold.
 * Files written for other tools keep the kernel's letters (flags_format()).
 * Return: the number of characters written (5 or 7).
 * Context: any thread.
 */
int flags_format_shown(char *buf, enum flags_style style, uint8_t flags, uint8_t pc,
		       uint8_t lazy_count);

/*
 * The per-CPU flag shares (--batch's IRQOFF .. MIGDIS columns, the diff's
 * CPU table): an event counts in each column whose condition its context
 * meets; an event whose context the kernel did not record
 * (ktop_ctx_recorded()) counts in none, only in @unrec. The order is the
 * decoders' (DECODE_F_*, src/ingest/decode.h), whose live counts batch reads.
 */
enum flags_share {
	FLAGS_S_IRQS_OFF,	/* KTOP_KF_IRQS_OFF */
	FLAGS_S_NEED_RESCHED,	/* KTOP_KF_NEED_RESCHED */
	FLAGS_S_HARDIRQ,	/* KTOP_KF_HARDIRQ */
	FLAGS_S_SOFTIRQ,	/* KTOP_KF_SOFTIRQ */
	FLAGS_S_NMI,		/* KTOP_KF_NMI */
	FLAGS_S_PREEMPT,	/* KTOP_PC_PREEMPT(pc) > 0 */
	FLAGS_S_MIGRATE,	/* KTOP_PC_MIGRATE(pc) > 0 (migration disabled) */
	FLAGS_S_NR,
};

/* "irqs_off", "need_resched", ... (JSON) and "IRQOFF", "NRESCHED", ... (tables). */
extern const char *const flags_share_names[FLAGS_S_NR];
extern const char *const flags_share_heads[FLAGS_S_NR];

struct flags_count {
	uint64_t	events;		/* counted, @unrec included */
	uint64_t	unrec;		/* context not recorded: in no n[] */
	uint64_t	n[FLAGS_S_NR];
};

/* Count one event of raw common_flags @f and common_preempt_count @pc. */
static inline void flags_count_add(struct flags_count *c, uint8_t f, uint8_t pc)
{
	c->events++;
	if (!ktop_ctx_recorded(pc)) {
		c->unrec++;
		return;
	}
	c->n[FLAGS_S_IRQS_OFF] += !!(f & KTOP_KF_IRQS_OFF);
	c->n[FLAGS_S_NEED_RESCHED] += !!(f & KTOP_KF_NEED_RESCHED);
	c->n[FLAGS_S_HARDIRQ] += !!(f & KTOP_KF_HARDIRQ);
	c->n[FLAGS_S_SOFTIRQ] += !!(f & KTOP_KF_SOFTIRQ);
	c->n[FLAGS_S_NMI] += !!(f & KTOP_KF_NMI);
	c->n[FLAGS_S_PREEMPT] += KTOP_PC_PREEMPT(pc) > 0;
	c->n[FLAGS_S_MIGRATE] += KTOP_PC_MIGRATE(pc) > 0;
}

#endif
