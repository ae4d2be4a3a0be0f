/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tasks model (the tasks pane, --batch's task figures): one row per task
 * (thread) seen in the store, from the events themselves:
 *
 *   events, syscalls   events with the task as common_pid (under the view
 *                      filter when one is set), of which raw_syscalls:sys_enter
 *   switches           times it was switched out (sched_switch prev_pid)
 *   run-queue wait     sched_wakeup(_new) -> its next switch-in, as ktop's BPF
 *                      program measures it (bpf/kstat.bpf.c: a wakeup older than
 *                      the last switch-out does not count)
 *   off-CPU time       switch-out -> next switch-in
 *   CPU last seen      the CPU of its newest event or switch-in
 *   state              prev_state at its last switch-out (raw, as the kernel
 *                      writes it), or running since its last switch-in
 *   parent             the tree parent from src/model/taskrel.h, where known
 *   self               one of ktop's own threads (live: /proc/self/task)
 *
 * Where BPF statistics run (a live session), tasks_rows() can take run-queue
 * wait and off-CPU time from their per-task map instead (since ktop started,
 * every task, no trace events needed); tasks_row.bpf says which rows did.
 *
 * Rates: per second of trace time over the last interval closed by
 * tasks_tick(), or, before any tick, over the span of the events read.
 *
 * Events are read once, in time order across CPUs, up to a horizon the caller
 * gives (app_feed_end(): every CPU has published up to there); each update
 * reads only what came since.
 *
 * Context: one thread (the owner of the view).
 */
#ifndef KTOP_TASKS_H
#define KTOP_TASKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct store;
struct taskrel;
struct viewfilter;
struct bpfstats;
struct tasks;

#define TASKS_RUNNING	UINT64_MAX	/* tasks_row.state: switched in last */

struct tasks_row {
	int32_t		pid;		/* the task (thread) id */
	int32_t		tgid;		/* -1: unknown */
	int32_t		parent;		/* tree parent, -1: unknown */
	const char	*comm;		/* valid until the store is freed */
	uint64_t	events, syscalls, switches;
	double		events_rate, syscalls_rate, switches_rate;	/* per second */
	uint64_t	runq_ns, runq_n;
	uint64_t	offcpu_ns, offcpu_n;
	int32_t		last_cpu;	/* -1: none */
	uint64_t	last_ts;
	uint64_t	state;		/* prev_state at the last switch-out, or TASKS_RUNNING */
	bool		state_known;
	bool		exited;		/* sched_process_exit seen */
	bool		self;		/* one of ktop's threads */
	bool		bpf;		/* run-queue and off-CPU figures from BPF */
	uint16_t	depth;		/* tree order: levels below its root */
};

struct tasks *tasks_new(struct store *st, struct taskrel *tr);	/* tr may be NULL */
void tasks_free(struct tasks *tm);

/* Count only the events @vf matches (NULL: all); forgets what was counted. */
void tasks_set_view(struct tasks *tm, struct viewfilter *vf);
/* Take run-queue wait and off-CPU time from @bs where it tracks the task (NULL: never). */
void tasks_set_bpf(struct tasks *tm, struct bpfstats *bs);
/*
 * ktop's own threads: read @taskdir ("/proc/self/task") now and at each
 * update (threads come and go). NULL: none known (a recording).
 */
void tasks_set_self(struct tasks *tm, const char *taskdir);

/* Forget every count (the store was replaced, the view changed). */
void tasks_reset(struct tasks *tm);

/**
 * tasks_update - read the events published since the last update, up to @t_end
 * Return: how many events were read, or a negative errno.
 */
int64_t tasks_update(struct tasks *tm, uint64_t t_end);

/* Close a rate interval at trace time @ts (the rates are those of [last tick, @ts]). */
void tasks_tick(struct tasks *tm, uint64_t ts);

enum tasks_sort {
	TASKS_BY_PID,
	TASKS_BY_COMM,
	TASKS_BY_EVENTS,
	TASKS_BY_SYSCALLS,	/* syscalls_rate (the figure shown), then the total */
	TASKS_BY_SWITCHES,	/* switches_rate, then the total */
	TASKS_BY_RUNQ,
	TASKS_BY_OFFCPU,
	TASKS_BY_CPU,
	TASKS_BY_STATE,
	TASKS_BY_LAST,		/* last seen */
	TASKS_SORT_NR,
};

struct tasks_query {
	enum tasks_sort	sort;
	bool		reverse;	/* against the natural order: ids and names
					 * ascending, figures descending */
	bool		hide_self;	/* leave ktop's own threads out */
	bool		tree;		/* parents before their children, sorted among siblings */
	const char	*search;	/* rows whose comm contains it, or whose pid starts with it */
};

/**
 * tasks_rows - the rows @q asks for
 * Return: how many rows match (may exceed @max; @out receives the first @max).
 */
size_t tasks_rows(struct tasks *tm, const struct tasks_query *q, struct tasks_row *out,
		  size_t max);

struct hmap;
/*
 * The thread ids of a /proc/PID/task directory ("/proc/self/task": ktop's
 * own) into @out (cleared first). Return: 0, or a negative errno.
 */
int tasks_read_tids(const char *taskdir, struct hmap *out);

/* Is @pid one of ktop's own threads (as of the last update)? */
bool tasks_is_self(const struct tasks *tm, int32_t pid);

/* The name of a sort key ("events", "runq", ...), for headers and options. */
const char *tasks_sort_name(enum tasks_sort s);

#endif
