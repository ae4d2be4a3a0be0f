// SPDX-License-Identifier: GPL-2.0-or-later
/* Row formatting. No curses here: unit tests include this file. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "rowfmt.h"
#include "lib/intern.h"
#include "store/schema.h"
#include "store/store.h"
#include "lib/syscalls.h"
#include "lib/taskstate.h"

char *ui_fmt_count(char *buf, size_t len, uint64_t n)
{
	static const char unit[] = "kMGTPE";
	double v = (double)n;
	int u = -1;

	if (n < 1000) {
		snprintf(buf, len, "%" PRIu64, n);
		return buf;
	}
	while (v >= 999.5 && u < 5) {
		v /= 1000.0;
		u++;
	}
	if (v < 9.995)
		snprintf(buf, len, "%.2f%c", v, unit[u]);
	else if (v < 99.95)
		snprintf(buf, len, "%.1f%c", v, unit[u]);
	else
		snprintf(buf, len, "%.0f%c", v, unit[u]);
	return buf;
}

char *ui_fmt_bytes(char *buf, size_t len, uint64_t n)
{
	static const char unit[] = "KMGTPE";
	double v = (double)n;
	int u = -1;

	if (n < 1024) {
		snprintf(buf, len, "%" PRIu64 "B", n);
		return buf;
	}
	while (v >= 1023.95 && u < 5) {
		v /= 1024.0;
		u++;
	}
	snprintf(buf, len, v < 99.95 ? "%.1f%c" : "%.0f%c", v, unit[u]);
	return buf;
}

char *ui_fmt_share(char *buf, size_t len, uint64_t part, uint64_t total)
{
	if (!total) {
		snprintf(buf, len, "-");
		return buf;
	}
	if (part >= total)
		snprintf(buf, len, "100%%");
	else
		snprintf(buf, len, "%.1f%%", 100.0 * (double)part / (double)total);
	return buf;
}

char *ui_fmt_elapsed(char *buf, size_t len, uint64_t ns)
{
	uint64_t s = ns / 1000000000u;

	snprintf(buf, len, "%02" PRIu64 ":%02" PRIu64 ":%02" PRIu64, s / 3600, s / 60 % 60,
		 s % 60);
	return buf;
}

const char *ui_event_name(struct store *st, uint16_t type)
{
	static __thread char buf[24];
	const struct ktop_schema_type *t = st ? schema_get(store_schema(st), type) : NULL;

	if (t && t->name)
		return t->name;
	snprintf(buf, sizeof(buf), "type#%u", type);
	return buf;
}

const char *ui_softirq_name(uint64_t vec)
{
	static const char *const names[] = {
		"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
		"SCHED", "HRTIMER", "RCU",
	};

	return vec < sizeof(names) / sizeof(names[0]) ? names[vec] : "?";
}

static void add_field(struct richstr *rs, struct store *st, const struct ktop_field *f,
		      uint64_t v)
{
	switch (f->kind) {
	case KTOP_FK_INT:
		richstr_addf(rs, ROLE_FIELD, "%s=%" PRId64, f->name, (int64_t)v);
		break;
	case KTOP_FK_UINT:
		richstr_addf(rs, ROLE_FIELD, "%s=%" PRIu64, f->name, v);
		break;
	case KTOP_FK_HEX:
		richstr_addf(rs, ROLE_FIELD, "%s=0x%" PRIx64, f->name, v);
		break;
	case KTOP_FK_STR:
	case KTOP_FK_SYM: {
		const char *str = st ? intern_str(store_strings(st), (uint32_t)v) : NULL;
		size_t len;

		if (!str)
			str = "?";
		len = strlen(str);

		/* a trace_marker text ends its line: the kernel's text shows no "\n" */
		if (len && str[len - 1] == '\n')
			len--;
		richstr_addf(rs, ROLE_FIELD, "%s=%.*s", f->name, (int)len, str);
		break;
	}
	}
}

/*
 * raw_syscalls, named: "read(fd: 0x3, buf: 0x7ffd5e0c8e10, count: 0x1000)" with
 * the kernel's argument names of syscalls:sys_enter_read (all six values
 * where they are not known), and "read -> 4096", "openat -> -2 ENOENT",
 * "mmap -> 0x7f3a1c000000" as syscalls:sys_exit_* returns read. A number
 * without a name (-1: a new task's first return) as raw_syscalls prints it.
 */
static void fmt_syscall(struct richstr *rs, const struct ktop_event *ev)
{
	const char *name = ev->args[0] <= UINT32_MAX ? syscall_name((uint32_t)ev->args[0]) : NULL;
	const char *an[SYSCALL_MAX_ARGS];
	int n;

	if (!name && ev->type == KTOP_T_SYS_EXIT) {
		richstr_addf(rs, ROLE_FIELD, "NR %" PRId64 " = %" PRId64, (int64_t)ev->args[0],
			     (int64_t)ev->args[1]);
		return;
	}
	if (!name) {
		richstr_addf(rs, ROLE_FIELD, "NR %" PRId64 " (", (int64_t)ev->args[0]);
		for (unsigned int i = 1; i < ev->nargs && i <= SYSCALL_MAX_ARGS; i++)
			richstr_addf(rs, ROLE_FIELD, "%s%" PRIx64, i > 1 ? ", " : "", ev->args[i]);
		richstr_add(rs, ROLE_FIELD, ")");
		return;
	}
	if (ev->type == KTOP_T_SYS_EXIT) {
		int64_t ret = (int64_t)ev->args[1];

		richstr_addf(rs, ROLE_FIELD, "%s -> ", name);
		if (ret < 0 && ret >= -4095 && strerrorname_np((int)-ret))
			richstr_addf(rs, ROLE_FIELD, "%" PRId64 " %s", ret,
				     strerrorname_np((int)-ret));
		else if (ret >= 0 && ret <= UINT32_MAX)
			richstr_addf(rs, ROLE_FIELD, "%" PRId64, ret);
		else
			richstr_addf(rs, ROLE_FIELD, "0x%" PRIx64, ev->args[1]);
		return;
	}
	n = syscall_args((uint32_t)ev->args[0], an);
	richstr_addf(rs, ROLE_FIELD, "%s(", name);
	for (int i = 0; i < (n < 0 ? SYSCALL_MAX_ARGS : n) && i + 1 < (int)ev->nargs; i++)
		richstr_addf(rs, ROLE_FIELD, "%s%s%s0x%" PRIx64, i ? ", " : "", n < 0 ? "" : an[i],
			     n < 0 ? "" : ": ", ev->args[i + 1]);
	richstr_add(rs, ROLE_FIELD, ")");
}

void ui_fmt_fields(struct richstr *rs, struct store *st, const struct ktop_event *ev)
{
	const struct ktop_schema_type *t = st ? schema_get(store_schema(st), ev->type) : NULL;
	struct intern *in = st ? store_strings(st) : NULL;
	unsigned int n;

	if (ev->type == KTOP_T_SCHED_SWITCH && in && ev->nargs >= 7) {
		char state[24];

		taskstate_format(store_task_states(st), ev->args[3], state, sizeof(state));
		richstr_addf(rs, ROLE_FIELD,
			     "prev_comm=%s prev_pid=%" PRId64 " prev_prio=%" PRId64
			     " prev_state=%s ==> next_comm=%s next_pid=%" PRId64
			     " next_prio=%" PRId64,
			     intern_str(in, (uint32_t)ev->args[0]), (int64_t)ev->args[1],
			     (int64_t)ev->args[2], state, intern_str(in, (uint32_t)ev->args[4]),
			     (int64_t)ev->args[5], (int64_t)ev->args[6]);
		return;
	}
	if ((ev->type == KTOP_T_SYS_ENTER || ev->type == KTOP_T_SYS_EXIT) && ev->nargs >= 2) {
		fmt_syscall(rs, ev);
		return;
	}
	if (!t) {
		for (unsigned int i = 0; i < ev->nargs && i < KTOP_MAX_ARGS; i++)
			richstr_addf(rs, ROLE_FIELD, "%sarg%u=0x%" PRIx64, i ? " " : "", i,
				     ev->args[i]);
		return;
	}
	n = ev->nargs < t->nfields ? ev->nargs : t->nfields;
	for (unsigned int i = 0; i < n; i++) {
		if (i)
			richstr_add(rs, ROLE_FIELD, " ");
		add_field(rs, st, &t->fields[i], ev->args[i]);
	}
	if (ev->type == KTOP_T_SOFTIRQ_ENTRY || ev->type == KTOP_T_SOFTIRQ_EXIT)
		richstr_addf(rs, ROLE_FIELD, " [action=%s]", ui_softirq_name(ev->args[0]));
}

void ui_fmt_event(struct richstr *rs, struct store *st, enum flags_style style,
		  const struct ktop_event *ev)
{
	char flags[FLAGS_COLUMN_MAX], pid[16];
	const char *comm = store_task_name(st, ev->pid);
	uint64_t us;

	richstr_clear(rs);
	/* The kernel's "%16s-%-7d [%03d] %s %5llu.%06lu: %s: " */
	richstr_add_right(rs, ROLE_TASK, comm, 16);
	snprintf(pid, sizeof(pid), "-%-7d", ev->pid);
	richstr_add(rs, ROLE_PID, pid);
	richstr_addf(rs, ROLE_CPU, " [%03u] ", ev->cpu);
	flags_format_shown(flags, style, ev->flags, ev->pc, 0);
	richstr_add(rs, ROLE_FLAGS, flags);
	/* the kernel rounds to the microsecond (ns2usecs adds 500) */
	us = (ev->ts + 500) / 1000;
	richstr_addf(rs, ROLE_TIME, " %5" PRIu64 ".%06" PRIu64 ": ", (uint64_t)(us / 1000000u),
		     (uint64_t)(us % 1000000u));
	richstr_add(rs, ROLE_EVENT, ui_event_name(st, ev->type));
	richstr_add(rs, ROLE_DEFAULT, ": ");
	ui_fmt_fields(rs, st, ev);
}

unsigned int ui_flag_bits(uint8_t flags, uint8_t pc)
{
	unsigned int b = 0;

	if (flags & KTOP_KF_IRQS_OFF)
		b |= 1u << UI_FLAG_IRQS_OFF;
	if (flags & KTOP_KF_NEED_RESCHED)
		b |= 1u << UI_FLAG_RESCHED;
	if (flags & KTOP_KF_HARDIRQ)
		b |= 1u << UI_FLAG_HARDIRQ;
	if (flags & KTOP_KF_SOFTIRQ)
		b |= 1u << UI_FLAG_SOFTIRQ;
	if (flags & KTOP_KF_NMI)
		b |= 1u << UI_FLAG_NMI;
	if (KTOP_PC_PREEMPT(pc))
		b |= 1u << UI_FLAG_PREEMPT;
	if (KTOP_PC_MIGRATE(pc))
		b |= 1u << UI_FLAG_MIGRATE;
	return b;
}

/* Column layout of the CPU table: 4 + 9 + 7 + 7 * 8 = 76 columns. */
static const char *const cpu_cols[UI_FLAG_NR] = {
	"irqoff", "resched", "hardirq", "softirq", "NMI", "preempt", "migrdis",
};

void ui_fmt_cpu_header(struct richstr *rs)
{
	richstr_clear(rs);
	richstr_add(rs, ROLE_COLHDR, "CPU");
	richstr_add_right(rs, ROLE_COLHDR, "events/s", 10);
	richstr_add_right(rs, ROLE_COLHDR, "lost", 7);
	for (int i = 0; i < UI_FLAG_NR; i++)
		richstr_add_right(rs, ROLE_COLHDR, cpu_cols[i], 8);
}

void ui_fmt_cpu_row(struct richstr *rs, int cpu, double rate, uint64_t lost,
		    const uint64_t counts[UI_FLAG_NR], uint64_t total)
{
	char buf[32];

	richstr_clear(rs);
	richstr_addf(rs, ROLE_CPU, "%3d", cpu);
	richstr_add_right(rs, ROLE_DEFAULT,
			  ui_fmt_count(buf, sizeof(buf), (uint64_t)(rate + 0.5)), 10);
	richstr_add_right(rs, lost ? ROLE_WARN : ROLE_DEFAULT,
			  ui_fmt_count(buf, sizeof(buf), lost), 7);
	for (int i = 0; i < UI_FLAG_NR; i++)
		richstr_add_right(rs, counts[i] ? ROLE_DEFAULT : ROLE_DIM,
				  ui_fmt_share(buf, sizeof(buf), counts[i], total), 8);
}
