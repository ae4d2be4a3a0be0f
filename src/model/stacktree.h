/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Caller trees and icicles: the data side of the stack views.
 *
 * Two steps, so that every source of stacks feeds the same trees:
 *
 *   1. a stack set: the distinct stacks of a source, each with a count and a
 *      value (struct stack_weight):
 *        stack_set_from_store()   the events of a window with stacks (count =
 *                                 events, value = events), by event type,
 *                                 task, CPU, a function on the stack, and a
 *                                 view filter (a predicate on the event)
 *        stack_set_from_offcpu()  the BPF off-CPU totals (count = switches
 *                                 out, value = ns off CPU), of a thread or
 *                                 of a view filter's tasks
 *        stack_set_from_fgraph()  the paths of a function_graph tree (value =
 *                                 self ns, or calls), optionally only those
 *                                 ending in one function
 *      and a single event's stack is a set of one (its ktop_event.stack).
 *   2. a tree: stack_tree_build() merges the set's stacks frame by frame, by
 *      name (the frames stacks_shown_names() gives: the tracing code's own
 *      leaf frames left out), either leaf first (STACK_TREE_CALLERS: the root is what the
 *      events were doing, its children who called that: a caller tree) or
 *      root first (STACK_TREE_ROOTS: the icicle / flame graph, one row per
 *      depth). A node has the count and value of every stack through it and
 *      of those ending at it, children by value (largest first), and the
 *      range of the set's stacks under it (stack_tree_stacks()[lo..hi)), so
 *      "the events under this node" is stack_tree_events().
 *
 * Nothing here locks or keeps UI state: a pane keeps folded/selected node
 * ids of its own tree and rebuilds the tree (cheap: distinct stacks, not
 * events) when the set changes. Node ids are positions in a lexicographic
 * order of the merged frame names, so they are the same for the same set.
 *
 * Context: one tree per thread; the store may be written meanwhile.
 */
#ifndef KTOP_STACKTREE_H
#define KTOP_STACKTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "store/event.h"
#include "store/stacks.h"

struct store;
struct fgraph;

#define STACK_TREE_NONE	UINT32_MAX

/* Which events' stacks. Zero it, then set what narrows. */
struct stack_query {
	uint64_t	t0, t1;		/* inclusive window; t1 0: no end */
	int32_t		cpu;		/* -1: every CPU (set it: 0 is CPU 0) */
	int32_t		pid;		/* -1: every task */
	int32_t		type;		/* event type id; -1: every type */
	uint32_t	func;		/* a frame name (string id) the stack must hold; 0: any */
	/* a view filter: false leaves the event out; NULL keeps every event */
	bool		(*keep)(void *ctx, const struct ktop_event *ev);
	void		*keep_ctx;
	/* the off-CPU totals, which are by task and not events: false leaves task
	 * @pid out (a view filter's pid:/comm: clauses); NULL keeps every task */
	bool		(*task_ok)(void *ctx, int32_t pid);
	void		*task_ctx;
};

/* stack_query for everything: every CPU, task and type, the whole store. */
void stack_query_all(struct stack_query *q);

struct stack_set {
	struct stack_weight	*v;		/* distinct stacks, by count, descending */
	size_t			n;
	uint64_t		count;		/* sum of the counts */
	uint64_t		value;		/* sum of the values */
	uint64_t		without;	/* events of the query that had no stack */
};

/**
 * stack_set_from_store - the stacks of the events @q selects
 * Return: 0, or -ENOMEM. Free @out with stack_set_free().
 * Cost: one pass over the window's events.
 */
int stack_set_from_store(struct store *st, const struct stack_query *q, struct stack_set *out);

/*
 * The BPF off-CPU totals kept in the store's table, by stack (@per_pid: by
 * stack and thread), of the threads @q takes: thread @q->pid only (0 or -1:
 * every thread), and those @q->task_ok keeps. The other fields of @q are for
 * events: they do not apply to totals.
 */
int stack_set_from_offcpu(struct store *st, bool per_pid, const struct stack_query *q,
			  struct stack_set *out);

/**
 * stack_set_from_fgraph - the call paths of @g's aggregated view as stacks
 * (of kind STACK_F_NAMES, interned in @st's table)
 * @func: only paths ending in this function (string id); 0: every path
 * @ns: value = self time in ns (a flame graph of time); false: calls
 * Return: 0 or -ENOMEM.
 */
int stack_set_from_fgraph(struct store *st, struct fgraph *g, uint32_t func, bool ns,
			  struct stack_set *out);

/**
 * stack_set_merge - one entry per distinct list of shown frames
 * @by_pid: entries of different pids stay apart (off-CPU by thread); false:
 *	they merge, and the entry's pid is -1 where theirs differ
 * @by_value: sort the result by value (else by count)
 *
 * Stacks that differ only in addresses within the same functions, or in the
 * tracing code's own leaf frames (stacks_shown_names()), are one entry, with
 * the stack id of the first of them (in a sorted set, the heaviest). For what
 * is printed (--batch, the folded export): a tree merges by name itself, and
 * stack_tree_events() finds a node's events by the ids of an unmerged set.
 * Return: 0, or -ENOMEM with @set unchanged.
 */
int stack_set_merge(struct store *st, struct stack_set *set, bool by_pid, bool by_value);

void stack_set_free(struct stack_set *s);

enum stack_tree_dir {
	STACK_TREE_CALLERS,	/* leaf first: a caller tree */
	STACK_TREE_ROOTS,	/* root first: an icicle / flame graph */
};

struct stack_node {
	uint32_t	parent;		/* STACK_TREE_NONE for the root (node 0) */
	uint32_t	first_child;	/* STACK_TREE_NONE when none */
	uint32_t	next_sibling;
	uint32_t	nchildren;
	uint32_t	name;		/* the frame's name, a string id; 0 at the root */
	uint32_t	module;		/* user frames: the file's base name; 0 otherwise */
	uint8_t		kind;		/* enum stack_frame_kind */
	uint16_t	depth;		/* 0 at the root */
	uint64_t	count, value;	/* every stack through this node */
	uint64_t	self_count, self_value;	/* the stacks that end here */
	uint32_t	lo, hi;		/* its stacks: stack_tree_stacks()[lo..hi) */
};

struct stack_tree;

/**
 * stack_tree_build - merge the stacks of @set
 * Return: the tree (free with stack_tree_free), or NULL on ENOMEM.
 */
struct stack_tree *stack_tree_build(struct store *st, const struct stack_set *set,
				    enum stack_tree_dir dir);
void stack_tree_free(struct stack_tree *t);

uint32_t stack_tree_size(const struct stack_tree *t);
const struct stack_node *stack_tree_node(const struct stack_tree *t, uint32_t id);
/* The frame name of @id ("all" at the root). */
const char *stack_tree_name(const struct stack_tree *t, uint32_t id);
/* The module of @id's frame (a user frame's file), "" when it has none. */
const char *stack_tree_module(const struct stack_tree *t, uint32_t id);
/* The set's stacks in tree order; *@n receives how many. */
const struct stack_weight *stack_tree_stacks(const struct stack_tree *t, uint32_t *n);
/* Return: the child of @id named @name (string id), or STACK_TREE_NONE. */
uint32_t stack_tree_child(const struct stack_tree *t, uint32_t id, uint32_t name);

typedef int (*stack_event_fn)(void *ctx, const struct ktop_event *ev, uint64_t seq);

/**
 * stack_tree_events - every event of @q whose stack is under @node
 * @fn: called in time order with each event and its seq (cpu in ev->cpu);
 *	returns non-zero to stop
 * Return: the number of events passed to @fn, or -ENOMEM.
 */
long stack_tree_events(struct store *st, const struct stack_query *q, const struct stack_tree *t,
		       uint32_t node, stack_event_fn fn, void *ctx);

#endif
