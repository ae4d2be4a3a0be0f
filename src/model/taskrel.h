/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Task relations: who is whose parent, and which thread group a thread
 * belongs to, for "this task with its children and threads" (view filters)
 * and the tree of the tasks pane.
 *
 * Two sources, each named by where it came from:
 *  - the trace, where it recorded them: sched:sched_process_fork (parent_pid
 *    -> child_pid, at the time of the fork), task:task_newtask (common_pid ->
 *    pid, and CLONE_THREAD in clone_flags says "a thread of the same group"),
 *    sched:sched_process_exec (the task leads its group from then on). Live
 *    sessions trace sched:* by default, so forks are in the trace; a recording
 *    made without those events knows none, and tasks born before it started
 *    are known only from the running system.
 *  - /proc, on the running system only (taskrel_scan_proc): every thread's
 *    thread group and its process's parent, as they are now.
 * A relation the trace gave is not replaced by /proc's (a parent that died
 * since leaves its children to init there); a later fork of a reused pid
 * replaces an earlier one.
 *
 * The tree parent of a thread is its group leader; of a group leader, its
 * parent process (or the thread that forked it, when only the fork is known).
 *
 * Context: one thread (the owner of the view: the UI or the batch printer).
 */
#ifndef KTOP_TASKREL_H
#define KTOP_TASKREL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct store;
struct taskrel;

/* Where a task's links came from. */
enum taskrel_src {
	TASKREL_NONE	= 0,
	TASKREL_TRACE	= 1,	/* fork/newtask/exec events */
	TASKREL_PROC	= 2,	/* /proc */
};

struct taskrel *taskrel_new(struct store *st);	/* NULL: ENOMEM */
void taskrel_free(struct taskrel *tr);

/**
 * taskrel_update - learn from the events published since the last call
 * Chunks that hold no fork, newtask or exec event are skipped from their
 * dictionaries, without decoding a row.
 * Return: how many tasks got a new link, or a negative errno.
 */
int taskrel_update(struct taskrel *tr);

/**
 * taskrel_scan_proc - learn every thread's group and parent from @procdir
 * @procdir: "/proc" (tests pass a directory of the same layout)
 * Return: how many tasks got a new link, or a negative errno.
 */
int taskrel_scan_proc(struct taskrel *tr, const char *procdir);

/* Raw links, -1 when unknown. */
int32_t taskrel_ppid(const struct taskrel *tr, int32_t pid);
int32_t taskrel_tgid(const struct taskrel *tr, int32_t pid);
/* The tree parent (see above), -1 when unknown. */
int32_t taskrel_up(const struct taskrel *tr, int32_t pid);
/* Where @pid's links came from (enum taskrel_src bits). */
unsigned int taskrel_source(const struct taskrel *tr, int32_t pid);
/* The time of @pid's fork when the trace has it, else 0. */
uint64_t taskrel_birth(const struct taskrel *tr, int32_t pid);

/* Is @anc @pid itself or one of its tree ancestors? */
bool taskrel_descends(const struct taskrel *tr, int32_t pid, int32_t anc);

/*
 * Changes: each task that got a new link is logged once per change.
 * taskrel_changes copies the pids logged from *@cursor on (at most @max) and
 * moves *@cursor past them. Return: how many were copied.
 */
uint64_t taskrel_gen(const struct taskrel *tr);
size_t taskrel_changes(const struct taskrel *tr, uint64_t *cursor, int32_t *out, size_t max);

/* Every pid with a link, for walking the tree: copies up to @max. Return: how many there are. */
size_t taskrel_pids(const struct taskrel *tr, int32_t *out, size_t max);

#endif
