// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tasks pane's rows, off screen (tasks_rows.h).
 */
#include <stdio.h>

#include "draw/rowfmt.h"
#include "lib/taskstate.h"
#include "tasks_rows.h"

#define COLW		9

/* The columns, and the sort each stands for. */
static const struct {
	const char	*title;
	enum tasks_sort	sort;
	int		w;
} cols[] = {
	{ "PID", TASKS_BY_PID, TASKS_PID_W }, { "EVENTS", TASKS_BY_EVENTS, COLW },
	{ "EV/s", TASKS_BY_EVENTS, COLW }, { "SYSC/s", TASKS_BY_SYSCALLS, COLW },
	{ "CSW/s", TASKS_BY_SWITCHES, COLW }, { "RUNQ", TASKS_BY_RUNQ, COLW },
	{ "OFF-CPU", TASKS_BY_OFFCPU, COLW }, { "CPU", TASKS_BY_CPU, 4 },
	{ "S", TASKS_BY_STATE, 3 }, { "LAST", TASKS_BY_LAST, 12 },
	{ "COMMAND", TASKS_BY_COMM, 0 },
};

#define NCOLS	((int)(sizeof(cols) / sizeof(cols[0])))

/*
 * The state: R running, else prev_state at its last switch-out as the
 * event list prints it (the sched_switch format's letters, "R+" preempted),
 * cut to the column's @len - 1 characters.
 */
static const char *state_text(const struct taskstate_fmt *sf, const struct tasks_row *r,
			      char *buf, size_t len)
{
	if (r->exited)
		return "X";
	if (!r->state_known)
		return "?";
	if (r->state == TASKS_RUNNING)
		return "R";
	return taskstate_format(sf, r->state, buf, len);
}

void tasks_fmt_header(struct richstr *rs, enum tasks_sort sort)
{
	richstr_clear(rs);
	for (int i = 0; i < NCOLS; i++) {
		enum ui_role r = cols[i].sort == sort ? ROLE_COLHDR_SORT : ROLE_COLHDR;

		if (cols[i].w)
			richstr_add_right(rs, r, cols[i].title, cols[i].w);
		else {
			richstr_add(rs, ROLE_COLHDR, "  ");
			richstr_add(rs, r, cols[i].title);
		}
	}
}

static void tasks_add_dur(struct richstr *rs, uint64_t ns, uint64_t n)
{
	char b[32];

	if (n)
		richstr_add_right(rs, ROLE_DEFAULT, ui_fmt_dur(b, sizeof(b), ns), COLW);
	else
		richstr_add_right(rs, ROLE_DIM, "-", COLW);
}

static void tasks_add_rate(struct richstr *rs, double v)
{
	char b[32];

	richstr_add_right(rs, v > 0 ? ROLE_DEFAULT : ROLE_DIM,
			  ui_fmt_count(b, sizeof(b), (uint64_t)(v + 0.5)), COLW);
}

void tasks_fmt_row(struct richstr *rs, const struct tasks_row *r, const struct taskstate_fmt *sf,
		   bool tree)
{
	char b[32];

	richstr_clear(rs);
	snprintf(b, sizeof(b), "%d", r->pid);
	richstr_add_right(rs, ROLE_PID, b, 8);
	richstr_add_right(rs, ROLE_DEFAULT, ui_fmt_count(b, sizeof(b), r->events), COLW);
	tasks_add_rate(rs, r->events_rate);
	tasks_add_rate(rs, r->syscalls_rate);
	tasks_add_rate(rs, r->switches_rate);
	tasks_add_dur(rs, r->runq_ns, r->runq_n);
	tasks_add_dur(rs, r->offcpu_ns, r->offcpu_n);
	if (r->last_cpu >= 0) {
		snprintf(b, sizeof(b), "%d", r->last_cpu);
		richstr_add_right(rs, ROLE_CPU, b, 4);
	} else {
		richstr_add_right(rs, ROLE_DIM, "-", 4);
	}
	richstr_add_right(rs, ROLE_DEFAULT, state_text(sf, r, b, 4), 3);
	snprintf(b, sizeof(b), "%.3f", (double)r->last_ts / 1e9);
	richstr_add_right(rs, ROLE_TIME, r->last_ts ? b : "-", 12);
	richstr_add(rs, ROLE_DEFAULT, "  ");
	if (tree && r->depth) {
		richstr_pad(rs, ROLE_DEFAULT, rs->len + 2 * (r->depth - 1));
		richstr_add(rs, ROLE_DIM, "`- ");
	}
	richstr_add(rs, ROLE_TASK, r->comm ? r->comm : "<...>");
	if (r->self)
		richstr_add(rs, ROLE_WARN, " [ktop]");
}

enum tasks_sort tasks_col_sort(int x)
{
	int c, at = 0;

	/* the last column (COMMAND) takes the rest of the row */
	for (c = 0; cols[c].w && x >= at + cols[c].w; c++)
		at += cols[c].w;
	return cols[c].sort;
}

int tasks_hscroll_chars(int steps)
{
	int c, at = 0;

	/* the columns after PID, whole */
	for (c = 1; cols[c].w && c <= steps; c++)
		at += cols[c].w;
	/* then COMMAND (a tree's indented names), 8 characters a step */
	if (steps >= c)
		at += 8 * (steps - c + 1);
	return at;
}

int tasks_fixed_width(void)
{
	int w = 0;

	for (int c = 0; cols[c].w; c++)
		w += cols[c].w;
	return w + 2;
}
