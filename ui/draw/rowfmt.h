/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Row formatting for the panes, off screen into a struct richstr. No curses.
 */
#ifndef KTOP_UI_ROWFMT_H
#define KTOP_UI_ROWFMT_H

#include <stddef.h>
#include <stdint.h>
#include "lib/strutil.h"
#include "store/event.h"
#include "model/flags.h"
#include "richstr.h"

struct store;

/* 999, 1.0k, 12.3k, 123k, 1.23M, ... Return: @buf. */
char *ui_fmt_count(char *buf, size_t len, uint64_t n);
/* 512ns, 12.3us, 1.23ms, 2.50s: str_dur() (src/lib/strutil.h), as the batch text has them. */
static inline char *ui_fmt_dur(char *buf, size_t len, uint64_t ns)
{
	return str_dur(buf, len, ns);
}
/* 512B, 12.3K, 1.2M, 3.0G (powers of 1024). Return: @buf. */
char *ui_fmt_bytes(char *buf, size_t len, uint64_t n);
/* "12.3%", "100%", "0.0%", "-" when @total is 0. Return: @buf. */
char *ui_fmt_share(char *buf, size_t len, uint64_t part, uint64_t total);
/* HH:MM:SS. Return: @buf. */
char *ui_fmt_elapsed(char *buf, size_t len, uint64_t ns);

/* "sched_switch", a dynamic type's name, or "type#N". */
const char *ui_event_name(struct store *st, uint16_t type);

/* Softirq vector names, as in the kernel's softirq_to_name[]. */
const char *ui_softirq_name(uint64_t vec);


/* The fields of @ev as "name=value ..." (sched_switch in the kernel's own layout). */
void ui_fmt_fields(struct richstr *rs, struct store *st, const struct ktop_event *ev);

/**
 * ui_fmt_event - one event as a line of the kernel's trace file:
 * "          <idle>-0       [001] d..2.  1234.567890: sched_switch: prev_comm=..."
 * Context: any thread.
 */
void ui_fmt_event(struct richstr *rs, struct store *st, enum flags_style style,
		  const struct ktop_event *ev);

/* Per-CPU flag share columns, in display order. */
enum ui_flag_col {
	UI_FLAG_IRQS_OFF,
	UI_FLAG_RESCHED,
	UI_FLAG_HARDIRQ,
	UI_FLAG_SOFTIRQ,
	UI_FLAG_NMI,
	UI_FLAG_PREEMPT,
	UI_FLAG_MIGRATE,
	UI_FLAG_NR,
};

/* Which share columns an event counts in (bit per enum ui_flag_col). */
unsigned int ui_flag_bits(uint8_t flags, uint8_t pc);

/* Column header and one row of the per-CPU flag table (fits in 80 columns). */
void ui_fmt_cpu_header(struct richstr *rs);
void ui_fmt_cpu_row(struct richstr *rs, int cpu, double rate, uint64_t lost,
		    const uint64_t counts[UI_FLAG_NR], uint64_t total);

#endif
