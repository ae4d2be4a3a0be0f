/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * View filters: narrow what is already held in a store (live, snapshot or
 * stream alike), without touching what the kernel records.
 *
 * A view filter is a stack of clauses, ANDed; the newest can be popped
 * ("widen back") or any one removed. A clause is one of (text forms, as
 * --view/-F and the UI's prompt take them):
 *
 *   [!]pid:PID[,PID...][+]      the events of these tasks (common_pid); '+':
 *                               with their children and threads (src/model/taskrel.h
 *                               says where those links come from)
 *   [!]comm:GLOB[+]             the tasks whose name matches (the name the
 *                               store holds for the pid, as the event list shows)
 *   [!]cpu:LIST                 0-3,6
 *   [!]buffer:NAME[,NAME...]    the CPUs of these buffers of a recording
 *                               (a trace.dat's instances; "top": the top one)
 *   [!]event:EV[,EV...]         EV: SYSTEM:NAME, SYSTEM/NAME or NAME, globs
 *                               allowed; a NAME alone matches a system too
 *   [!]stack:[^]F;F;...[$]      the events whose stack holds these frames, root
 *                               first as the folded export writes them; '^' ties
 *                               the first to the root, '$' the last to the leaf;
 *                               globs allowed (src/view/viewfilter_stack.c)
 *   [!]port:N[,N...]            network events with port N at an end, and the
 *   [!]addr:IP[/LEN]            events joined to them (their sockets' sends,
 *   [!]conn:IP:PORT-IP:PORT     receives and drops, their packets): src/view/
 *                               viewfilter_net.c; conn: either direction
 *   EV[,EV...]: EXPR            trace-cmd report -F: EXPR on those events only
 *   EV[,EV...]                  the same as event:EV,... (when it is no EXPR)
 *   EXPR                        a field expression over all events (src/view/vfexpr.h)
 *
 * '!' keeps what the clause does not match.
 *
 * Matches are kept per store chunk (none, all, or a bitmap), computed from
 * the chunk's dictionaries where the task and event clauses decide for the
 * whole chunk, and from its rows otherwise (field expressions are evaluated
 * only on chunks holding a type they may match). viewfilter_update() brings
 * the index up to date in steps of a given time budget: new events are
 * evaluated once, evicted chunks dropped. Walks, counts and exports evaluate
 * the chunks they reach on demand, so the first page needs no full pass.
 *
 * Context: one thread (the UI, the batch printer), as for src/model/taskrel.h.
 */
#ifndef KTOP_VIEWFILTER_H
#define KTOP_VIEWFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/event.h"
#include "store/store.h"
#include "vfexpr.h"

struct err_pos;
struct taskrel;
struct viewfilter;

#define VIEWFILTER_MAX_CLAUSES	32
#define VIEWFILTER_TEXT_MAX	4096

/* Clause flags of the typed pushes. */
#define VIEWFILTER_NOT		1	/* keep what does not match */
#define VIEWFILTER_KIDS		2	/* pid: with children and threads */

/**
 * viewfilter_new - an empty view filter (everything matches) over @st
 * @tr: task relations for '+' clauses, or NULL (then '+' means the task only)
 * Return: the filter (free with viewfilter_free), or NULL on ENOMEM.
 */
struct viewfilter *viewfilter_new(struct store *st, struct taskrel *tr);
void viewfilter_free(struct viewfilter *vf);

/*
 * Live sessions: field names of the session's event formats (their types
 * reach the schema with their first record), and /proc for the task tree.
 * Either may be NULL.
 */
void viewfilter_set_live(struct viewfilter *vf, vfexpr_field_fn known, void *arg,
			 const char *procdir);

/*
 * A growing store (live, a stream, a recording still loading): @end(@arg,
 * lag) says up to where every CPU has published (app_feed_end). The joins of
 * the network clauses (port:, addr:, conn:) are walked in time order up to
 * there only, since a packet's events tell its life apart from the next
 * packet's at the same address by their order; what they join later is
 * evaluated again. NULL (the default): the store is complete.
 */
void viewfilter_set_feed_end(struct viewfilter *vf, uint64_t (*end)(void *arg, uint64_t lag_ns),
			     void *arg);

struct snapshot_meta;

/**
 * viewfilter_set_buffers - the buffers whose CPUs buffer:NAME clauses take
 * @m: a recording's metadata (its buffer table), or NULL: one buffer, "top"
 * Return: 0 or -ENOMEM. Context: before clauses naming buffers are pushed.
 */
int viewfilter_set_buffers(struct viewfilter *vf, const struct snapshot_meta *m);

/**
 * viewfilter_check - the syntax of a clause, without a store (command-line checks)
 * Return: 0, or -EINVAL with the message and offset in @err.
 */
int viewfilter_check(const char *text, struct err_pos *err);

/**
 * viewfilter_push - add a clause (the text forms above)
 * @err: the message and the byte offset in @text of the problem
 * Return: 0, -EINVAL (@err), -ENOSPC (VIEWFILTER_MAX_CLAUSES), -ENOMEM.
 */
int viewfilter_push(struct viewfilter *vf, const char *text, struct err_pos *err);

/**
 * viewfilter_try - compile a clause as viewfilter_push() would (the fields
 * against the store's events), without adding it: a prompt's check as the
 * user types
 * Return: 0, or what viewfilter_push() would return, with @err.
 */
int viewfilter_try(struct viewfilter *vf, const char *text, struct err_pos *err);
/* One key in the UI: narrow to a row's task, CPU or event type. Return: as viewfilter_push. */
int viewfilter_push_pid(struct viewfilter *vf, int32_t pid, unsigned int flags);
int viewfilter_push_cpu(struct viewfilter *vf, unsigned int cpu, unsigned int flags);
int viewfilter_push_type(struct viewfilter *vf, uint16_t type, unsigned int flags);

/* Widen back: drop the newest clause, or clause @i. Return: 0, or -ENOENT. */
int viewfilter_pop(struct viewfilter *vf);
int viewfilter_remove(struct viewfilter *vf, size_t i);
void viewfilter_clear(struct viewfilter *vf);

size_t viewfilter_nclauses(const struct viewfilter *vf);
/* Clause @i as text (the typed pushes too: "pid:1234+"), "" when out of range. */
const char *viewfilter_clause(const struct viewfilter *vf, size_t i);
/* All clauses as one line for a header ("pid:1234+ && cpu:1"), "" when none. Return: @buf. */
const char *viewfilter_describe(const struct viewfilter *vf, char *buf, size_t len);
/* A generation number: changes whenever a clause is pushed or removed. */
uint64_t viewfilter_gen(const struct viewfilter *vf);

/**
 * viewfilter_update - sync with the store and evaluate for up to @budget_ns
 * (0: until done). New events are evaluated once; evicted chunks are dropped;
 * new task links (with '+' clauses) re-evaluate the chunks they change.
 * Return: true when every held event is evaluated.
 */
bool viewfilter_update(struct viewfilter *vf, uint64_t budget_ns);

struct viewfilter_counts {
	uint64_t	matched;	/* "N of M events": N, among those evaluated */
	uint64_t	held;		/* M: events held as of the last sync */
	uint64_t	evaluated;	/* matched is exact when evaluated == held */
	uint64_t	chunks;		/* store chunks held */
	uint64_t	by_dict;	/* ... decided from their dictionaries alone */
};
void viewfilter_counts(const struct viewfilter *vf, struct viewfilter_counts *out);

/* Does one event match? (Any event, held or not: exports, batch passes.) */
bool viewfilter_match(struct viewfilter *vf, const struct ktop_event *ev);

/*
 * Do task @pid and CPU @cpu pass the task clauses (pid:, comm:) and the cpu:
 * clauses, whatever their events? (Figures that are not events: the BPF
 * pane's tasks and CPUs.)
 */
bool viewfilter_task_ok(struct viewfilter *vf, int32_t pid);
bool viewfilter_cpu_ok(struct viewfilter *vf, unsigned int cpu);
/*
 * The clauses those two cannot answer for (neither pid:/comm: nor cpu:/buffer:), joined
 * as viewfilter_describe() joins them: what such figures do not honour. Return: @buf, ""
 * when there are none.
 */
const char *viewfilter_describe_events(const struct viewfilter *vf, char *buf, size_t len);

struct stack_query;
/*
 * Narrow @q to what @vf shows: its events (stack_query.keep) and, for the
 * off-CPU totals, its tasks (stack_query.task_ok). @vf NULL: @q is left as it is.
 */
void viewfilter_stack_query(struct viewfilter *vf, struct stack_query *q);

/*
 * Walking the matches in time order, from either end or from any position.
 * Positions order events by (ts, cpu, seq), as the event list does.
 */
struct viewfilter_pos {
	uint64_t	ts;
	uint64_t	seq;
	uint32_t	cpu;
};

#define VIEWFILTER_POS_START	((struct viewfilter_pos){ 0, 0, 0 })
#define VIEWFILTER_POS_END	((struct viewfilter_pos){ UINT64_MAX, UINT64_MAX, UINT32_MAX })

struct viewfilter_walk;

/**
 * viewfilter_walk_new - walk the matches after (@dir +1) or before (@dir -1) @pos
 * @incl: include the event at @pos itself when it matches
 * The walk ends early (returns false) once the filter changes.
 * Return: the walk (free with viewfilter_walk_free), or NULL on ENOMEM.
 */
struct viewfilter_walk *viewfilter_walk_new(struct viewfilter *vf,
					    const struct viewfilter_pos *pos, int dir, bool incl);
/* Return: true and the next match in the walk's direction (its seq in *@seq). */
bool viewfilter_walk_next(struct viewfilter_walk *w, struct ktop_event *ev, uint64_t *seq);
void viewfilter_walk_free(struct viewfilter_walk *w);

/**
 * viewfilter_page - up to @n matches next to @pos, in time order (oldest first)
 * @dir: -1: the @n before @pos (VIEWFILTER_POS_END: the newest page);
 *       +1: the @n after it (VIEWFILTER_POS_START: the oldest page)
 * @seqs: may be NULL
 * Return: how many were copied.
 */
size_t viewfilter_page(struct viewfilter *vf, const struct viewfilter_pos *pos, int dir,
		       bool incl, struct ktop_event *out, uint64_t *seqs, size_t n);

/**
 * viewfilter_count_by - store_count_by() under the filter
 * @cpu: one CPU, or -1 for all
 * Return: the number of distinct keys (may exceed @max; @out sorted by count, descending).
 */
size_t viewfilter_count_by(struct viewfilter *vf, enum store_key key, int cpu, uint64_t t0,
			   uint64_t t1, struct store_count *out, size_t max);

/*
 * Format @err about @text for a terminal: the message, then the text and a
 * caret under the offending byte. Return: @buf.
 */
const char *viewfilter_error_format(const char *text, const struct err_pos *err,
				    char *buf, size_t len);

#endif
