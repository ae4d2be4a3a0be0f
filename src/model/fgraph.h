/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The function_graph call-tree model.
 *
 * Built incrementally from funcgraph_entry/funcgraph_exit events (plus lost
 * event marks), fed in time order across CPUs (the order of store_iter).
 * Two views of the same calls:
 *
 *   FGRAPH_TIMELINE  every call instance, in order, under one context node
 *                    per task (pid; the idle tasks per CPU) and one per CPU
 *                    for interrupt context (hardirq, softirq, NMI);
 *   FGRAPH_AGG       identical call paths merged (count, total, self, avg,
 *                    min, max), under the same context nodes.
 *
 * Node ids are stable: a node keeps its id for the life of the model, in
 * both views, whatever arrives later, so UI state keyed by id (folded,
 * selected) survives live updates and re-sorting. Fold state is not kept
 * here: the row functions take a callback that says whether a node is
 * folded.
 *
 * What the kernel's records look like: a leaf call is an entry and an exit
 * record in the raw buffer (the text output merges them into "func();").
 * The depth of a record is the depth of the task's return stack, which an
 * interrupt shares with the task it interrupted; so interrupt frames nest
 * on top of the interrupted task's frames on the same CPU. The model moves
 * them under the CPU's interrupt context node. Since 6.11 (seen on 6.12)
 * the depth is lowered only after the exit record is written, so an
 * interrupt taken in a call's return path is recorded one level deeper than
 * the call's siblings; the model puts it under the frame it interrupted
 * (fgraph_info.depth keeps the recorded depth), not behind a gap.
 *
 * Irregular input is kept and marked, never dropped silently:
 *   FGRAPH_F_ENTRY_MISSING  an exit whose entry was not seen (a trace that
 *                           starts mid-call): start and duration come from
 *                           the exit's calltime/rettime, and the orphan
 *                           calls seen before it under it are adopted;
 *   FGRAPH_F_EXIT_MISSING   an entry whose exit was not seen although the
 *                           stack moved on (or the trace ended: see
 *                           FGRAPH_F_OPEN);
 *   FGRAPH_F_GAP            a node of kind FGRAPH_K_GAP: events were lost
 *                           here; the frames around it carry
 *                           FGRAPH_F_HAS_GAP and are aggregated apart from
 *                           complete calls;
 *   FGRAPH_F_DEPTH_OVERFLOW calls deeper than max_depth were cut off below
 *                           this node (counted in overflow).
 *
 * A pane, typically:
 *	fgraph_feed() every new event (store_iter order), fgraph_lost() the
 *	store's lost marks; keep folded ids in a set; on redraw
 *	n = fgraph_rows(g, view, FGRAPH_ROOT, sort, is_folded, set, rows, max);
 *	then fgraph_node() for the ~50 rows on screen; keep the selection as a
 *	node id and find its row again after the update (ids never change).
 *	Keys: fgraph_parent/first_child/next_sibling/prev_sibling,
 *	fgraph_longest_child (hot path), fgraph_find (search; unfold the
 *	ancestors of the hit). "Follow": the last child of a context node.
 *	Duration column: fgraph_mark() and fgraph_fmt_duration().
 *
 * Interrupt context comes from the records' own common_flags (hardirq,
 * softirq, NMI bits), so irq_handler/softirq events are not needed.
 *
 * Context: one model belongs to one thread (the UI or the batch printer);
 * nothing here locks.
 */
#ifndef KTOP_FGRAPH_H
#define KTOP_FGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "store/event.h"

struct fgraph;

#define FGRAPH_NONE		UINT32_MAX	/* "no node" */
#define FGRAPH_ROOT		0		/* the root of both views */
#define FGRAPH_DEFAULT_DEPTH	128
#define FGRAPH_DEFAULT_NODES	(2u << 20)

enum fgraph_view {
	FGRAPH_TIMELINE,
	FGRAPH_AGG,
};

enum fgraph_kind {
	FGRAPH_K_ROOT,
	FGRAPH_K_TASK,		/* a task's calls: pid (cpu too for pid 0) */
	FGRAPH_K_IRQ,		/* a CPU's interrupt-context calls */
	FGRAPH_K_CALL,
	FGRAPH_K_GAP,		/* lost events */
};

enum fgraph_flag {
	FGRAPH_F_ENTRY_MISSING	= 0x01,
	FGRAPH_F_EXIT_MISSING	= 0x02,
	FGRAPH_F_OPEN		= 0x04,	/* no exit yet (still running, or trace ended) */
	FGRAPH_F_HAS_GAP	= 0x08,	/* events were lost while this call ran */
	FGRAPH_F_DEPTH_OVERFLOW	= 0x10,
	FGRAPH_F_HARDIRQ	= 0x20,	/* entered in hardirq context */
	FGRAPH_F_SOFTIRQ	= 0x40,	/* entered while serving a softirq */
	FGRAPH_F_NMI		= 0x80,
	FGRAPH_F_PARENT_MISSING	= 0x100,	/* depth jumped: ancestors not seen */
};

/* Resolves a symbol id (interned name) to text; return NULL if unknown. */
typedef const char *(*fgraph_name_fn)(void *ctx, uint32_t sym);
/* pid -> comm for context node labels; may return NULL. */
typedef const char *(*fgraph_comm_fn)(void *ctx, int32_t pid);

/*
 * The clock of funcgraph_exit's calltime/rettime is trace_clock_local; the
 * records' time stamps are on the instance's trace_clock. Only with "local"
 * can a call's entry time be compared with an exit's calltime (which helps
 * to tell a call from an older one of the same function across lost events).
 */
enum fgraph_clock {
	FGRAPH_CLOCK_AUTO,	/* learn it from the first matched calls */
	FGRAPH_CLOCK_SAME,	/* trace_clock is "local" */
	FGRAPH_CLOCK_OTHER,	/* any other trace_clock */
};

struct fgraph_config {
	enum fgraph_clock clock;
	unsigned int	max_depth;	/* 0: FGRAPH_DEFAULT_DEPTH; deeper calls are cut */
	uint32_t	max_nodes;	/* 0: FGRAPH_DEFAULT_NODES; beyond: counted as dropped */
	bool		irq_inline;	/* keep interrupt frames where the kernel nests them */
	bool		agg_merge_tasks;	/* AGG: one context for all tasks, one for irqs */
	fgraph_name_fn	name;		/* NULL: names print as "sym#<id>" */
	void		*name_ctx;
	fgraph_comm_fn	comm;		/* may be NULL */
	void		*comm_ctx;
	/* fgraph_feed_store feeds only the events this keeps (a view filter); NULL: all */
	bool		(*keep)(void *ctx, const struct ktop_event *ev);
	void		*keep_ctx;
};

/**
 * fgraph_new - an empty model
 * @cfg: may be NULL for the defaults; copied
 * Return: the model (free with fgraph_free), or NULL on ENOMEM.
 */
struct fgraph *fgraph_new(const struct fgraph_config *cfg);
void fgraph_free(struct fgraph *g);
/* Forget every call; the configuration stays. Ids start again from scratch. */
void fgraph_reset(struct fgraph *g);

/**
 * fgraph_feed - add one event
 *
 * Takes KTOP_T_FGRAPH_ENTRY and KTOP_T_FGRAPH_EXIT; every other type is
 * ignored (returns 0), so a whole event stream can be fed. Events must come
 * in time order across CPUs.
 * Return: 0, or -ENOSPC when max_nodes was reached (the call is counted in
 * fgraph_stats.dropped), or -ENOMEM.
 */
int fgraph_feed(struct fgraph *g, const struct ktop_event *ev);

/**
 * fgraph_lost - the kernel lost @count events on @cpu after the last record
 * fed for @cpu and before @ts (count 0: an unknown number)
 *
 * Marks a gap node in the contexts that ran on @cpu, and in any context
 * that may have run there meanwhile when it next shows up; the frames open
 * across a gap get no new children until one of them exits with a matching
 * calltime. Feed it as early as it is known: right after the last record of
 * @cpu before the loss when reading offline (the store's lost marks), at the
 * latest before the first record of @cpu at or after @ts. A context that ran
 * on @cpu in the lost window and shows up elsewhere before the mark is fed
 * is caught only if its records stop fitting its stack.
 * Return: 0 or -ENOMEM.
 */
int fgraph_lost(struct fgraph *g, unsigned int cpu, uint64_t ts, uint64_t count);

struct store;

/**
 * fgraph_feed_store - feed the events of @st with time in [@t0, @t1] in time
 * order, and the store's lost marks of that range right after the last
 * record of their CPU before the loss
 *
 * For live use call it again with @t0 just above the last @t1, and keep @t1
 * at or below the oldest of the CPUs' newest published times, so that no
 * CPU's records arrive after later ones of another CPU.
 * Context: the model's thread; the store may be written meanwhile.
 * Return: the number of events fed, or a negative errno.
 */
long fgraph_feed_store(struct fgraph *g, const struct store *st, uint64_t t0, uint64_t t1);

struct fgraph_stats {
	uint64_t	entries;	/* entry records fed */
	uint64_t	exits;
	uint64_t	calls;		/* call nodes */
	uint64_t	entry_missing;
	uint64_t	exit_missing;
	uint64_t	gaps;
	uint64_t	lost;		/* sum of fgraph_lost counts */
	uint64_t	overflow;	/* records deeper than max_depth */
	uint64_t	dropped;	/* records refused for max_nodes */
	uint64_t	inconsistent;	/* records that did not fit the stack (lost records) */
	uint32_t	nodes;		/* timeline node ids in use */
	uint32_t	agg_nodes;
	unsigned int	max_depth_seen;
	bool		same_clock;	/* calltime comparable with the time stamps */
	uint64_t	first_ts, last_ts;
};
void fgraph_get_stats(const struct fgraph *g, struct fgraph_stats *out);

/* One node of either view, as the UI and the printer read it. */
struct fgraph_info {
	uint32_t	id;
	uint32_t	parent;		/* FGRAPH_NONE for the root */
	enum fgraph_kind kind;
	unsigned int	flags;		/* enum fgraph_flag */
	uint32_t	func;		/* symbol id (CALL) */
	const char	*name;		/* function name or context label; valid until next call */
	int32_t		pid;		/* TASK; -1 otherwise */
	int		cpu;		/* IRQ, idle TASK, CALL (entry CPU); -1 otherwise */
	unsigned int	depth;		/* kernel depth (CALL) */
	unsigned int	level;		/* distance from the root */
	uint32_t	nchildren;
	uint64_t	start;		/* TIMELINE: entry time, ns */
	uint64_t	count;		/* AGG: calls merged; TIMELINE: 1; GAP: events lost */
	uint64_t	total;		/* TIMELINE: duration; AGG: sum of durations */
	uint64_t	self;		/* total minus children's totals */
	uint64_t	min, max;	/* AGG */
	uint64_t	incomplete;	/* AGG: calls left out of the figures above (entry or
					 * exit missing, events lost inside) */
	uint64_t	overflow;	/* TIMELINE: calls cut off below for max_depth
					 * (saturates at 65535; fgraph_stats.overflow is exact) */
};

/* Return: 0 and the node, or -ENOENT. */
int fgraph_node(struct fgraph *g, enum fgraph_view v, uint32_t id, struct fgraph_info *out);

/* Navigation. Each returns a node id, or FGRAPH_NONE. Children in view order: time order
 * (TIMELINE) or first appearance (AGG). */
uint32_t fgraph_parent(const struct fgraph *g, enum fgraph_view v, uint32_t id);
uint32_t fgraph_first_child(const struct fgraph *g, enum fgraph_view v, uint32_t id);
uint32_t fgraph_last_child(const struct fgraph *g, enum fgraph_view v, uint32_t id);
uint32_t fgraph_next_sibling(const struct fgraph *g, enum fgraph_view v, uint32_t id);
uint32_t fgraph_prev_sibling(const struct fgraph *g, enum fgraph_view v, uint32_t id);
/* The child with the largest duration (TIMELINE) or total (AGG): the hot path. */
uint32_t fgraph_longest_child(const struct fgraph *g, enum fgraph_view v, uint32_t id);
/* The timeline call's node in the aggregated view (FGRAPH_NONE while unknown). */
uint32_t fgraph_agg_of(struct fgraph *g, uint32_t timeline_id);

/**
 * fgraph_find - the next call whose function name contains @needle
 * @from: search starts after this node, in pre-order ignoring folding
 *        (FGRAPH_NONE: from the start)
 * @backward: search in reverse pre-order
 * Wraps around once. The caller unfolds the ancestors (fgraph_parent) to show it.
 * Return: the node id, or FGRAPH_NONE.
 */
uint32_t fgraph_find(struct fgraph *g, enum fgraph_view v, uint32_t from,
		     const char *needle, bool backward);

/* Return: true when @id is folded (its children are hidden). */
typedef bool (*fgraph_folded_fn)(void *ctx, uint32_t id);

enum fgraph_sort {
	FGRAPH_SORT_ORDER,	/* time (TIMELINE) or first appearance (AGG) */
	FGRAPH_SORT_TOTAL,	/* descending */
	FGRAPH_SORT_SELF,
	FGRAPH_SORT_COUNT,
	FGRAPH_SORT_MAX,
	FGRAPH_SORT_NAME,	/* ascending */
};

struct fgraph_row {
	uint32_t	id;
	uint32_t	level;		/* 0 for the children of @top */
};

/**
 * fgraph_rows - the visible rows under @top (not @top itself), in display order
 * @folded: may be NULL (everything open)
 * @out: receives up to @max rows (may be NULL with @max 0 to count)
 *
 * Cost: O(visible rows), plus a sort of each open node's children when
 * @sort is not FGRAPH_SORT_ORDER.
 * Return: the number of visible rows (may exceed @max), or -ENOMEM.
 */
long fgraph_rows(struct fgraph *g, enum fgraph_view v, uint32_t top, enum fgraph_sort sort,
		 fgraph_folded_fn folded, void *ctx, struct fgraph_row *out, size_t max);

/* The kernel's duration marker for @ns: '$' > 1 s, '@' > 100 ms, '*' > 10 ms,
 * '#' > 1 ms, '!' > 100 us, '+' > 10 us, else ' '. */
char fgraph_mark(uint64_t ns);

/* Format @ns as the kernel's function_graph duration column ("12.345 us", padded
 * to the kernel's width). Return: the length written (snprintf semantics). */
int fgraph_fmt_duration(char *buf, size_t len, uint64_t ns);

struct fgraph_print_opts {
	enum fgraph_view	view;
	enum fgraph_sort	sort;
	uint32_t		top;		/* print under this node; FGRAPH_ROOT for all */
	bool			no_cpu;		/* TIMELINE: leave out the " 0) " column */
	uint64_t		min_dur;	/* hide calls shorter than this, ns */
	unsigned int		max_level;	/* 0: no limit */
};

/**
 * fgraph_print - the tree as text
 *
 * TIMELINE prints like the kernel's function_graph output, one block per
 * context: " 0) + 12.345 us   |    func() {", leaves as "func();", a closing
 * "}" with the duration; missing entries/exits and gaps are written as
 * C comments. A call recorded deeper than one level below its parent call
 * is indented by its depth, as the kernel indents it. AGG prints total,
 * self, avg, max, count and the indented name.
 * Return: 0, or -errno from the stream.
 */
int fgraph_print(struct fgraph *g, FILE *f, const struct fgraph_print_opts *opts);

#endif
