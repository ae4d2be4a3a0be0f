/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The stacks pane's model: which stacks it shows (a source and a scope), the
 * stack set of that scope kept up to date as events arrive, and the two trees
 * merged from it (src/model/stacktree.h): the caller tree (leaf first) and the
 * icicle (root first). No curses.
 *
 * Sources: the stacks of events that have one (--stack, or "stacks for this
 * event" live; count = events), the BPF off-CPU totals (--offcpu; value = ns
 * off CPU), the function_graph tree's call paths (value = time: a node's
 * width in the icicle is its total time). Events are counted as they are
 * published, a time slice at a time within a per-frame budget, into a
 * counter per stack id, so a live view costs what the new events cost; the
 * trees are rebuilt from the counters (distinct stacks, not events) at most
 * once a second while the counts change.
 *
 * UI state that must outlive a rebuild (the selected node, folds, the
 * icicle's zoom) is kept by frame-name path, never by node id: node ids
 * change when new stacks come.
 *
 * Context: the UI thread.
 */
#ifndef KTOP_UI_STACKVIEW_H
#define KTOP_UI_STACKVIEW_H

#include <stdbool.h>
#include <stdint.h>
#include "model/stacktree.h"
#include "ui-local.h"

struct ui;
struct store;
struct viewfilter;

/* What the pane shows of a source. */
struct sv_scope {
	enum sv_source	src;
	int32_t		type;		/* events: this event type only; -1: every type */
	uint32_t	func;		/* events: stacks through this frame; graph: the
					 * paths ending in this function (string ids); 0: all */
	int32_t		pid;		/* off-CPU: this thread's waits only; 0: every thread */
	char		what[160];	/* the title's words for it ("sched_switch events") */
};

/* A node by its frame names from the root (the root itself: n 0). */
#define SV_PATH_MAX	(2 * STACK_MAX_FRAMES + 2)

struct sv_path {
	uint32_t	n;
	uint32_t	name[SV_PATH_MAX];
};

struct stackview {
	struct sv_scope		scope;
	/* events: what was counted, by stack id, and up to where */
	uint64_t		*count;
	uint32_t		ncount;
	uint64_t		events;		/* events of the scope counted (with a stack) */
	uint64_t		without;	/* ... without one */
	uint64_t		next_t;		/* the next feed starts at this trace time */
	uint64_t		slice;		/* trace time fed per step */
	uint64_t		view_gen;	/* the view filter counted under */
	bool			changed;	/* counted since the set was made */
	/* the set and its trees */
	struct stack_set	set;
	bool			value;		/* the set's widths are values (ns), not counts */
	struct stack_tree	*tree[2];	/* by enum stack_tree_dir; built on demand */
	uint64_t		built_ns;	/* when the set was made (sv_update's @now) */
	uint64_t		gen;		/* bumped with every new set */
	int			err;		/* the last failure (-ENOMEM), or 0 */
};

void sv_init(struct stackview *sv);
void sv_destroy(struct stackview *sv);

/* Show @sc from now on: the counts start again. */
void sv_set_scope(struct stackview *sv, const struct sv_scope *sc);

/* The words of a source ("event stacks", "off-CPU stacks", "function_graph paths"). */
const char *sv_source_name(enum sv_source src);

/**
 * sv_feed - count the events of the scope with timestamps in [sv->next_t, @t1]
 * @vf: the view filter they must match, or NULL
 *
 * Return: 0 or -ENOMEM. sv->next_t is then @t1 + 1.
 */
int sv_feed(struct stackview *sv, struct store *st, struct viewfilter *vf, uint64_t t1);

/**
 * sv_make_set - the stack set of the scope, from the counts (events), the
 * store's off-CPU totals (of the tasks view filter @vf shows; NULL: all), or
 * the function_graph model @g (may be NULL)
 *
 * The old set and trees go; sv->gen changes. @now: the time to remember as
 * sv->built_ns.
 * Return: 0 or -ENOMEM.
 */
struct viewfilter;
int sv_make_set(struct stackview *sv, struct store *st, struct fgraph *g, struct viewfilter *vf,
		uint64_t now);

/* The tree of the set in direction @dir, built on first use. NULL: no set or ENOMEM. */
const struct stack_tree *sv_tree(struct stackview *sv, struct store *st, enum stack_tree_dir dir);

/**
 * sv_update - bring the view up to date in a frame
 *
 * Events: feed what was published since (within a budget, the rest in the
 * next frames), and make a new set when the counts changed and the last one
 * is a second old (or there is none). Off-CPU: poll the BPF totals once a
 * second. Graph: a new set of the UI's function_graph tree (ui_fgraph) once a second.
 * Return: true when the set changed (the trees are new).
 */
bool sv_update(struct ui *ui, struct stackview *sv);

/* The path of node @id of @t (root first). */
void sv_path_of(const struct stack_tree *t, uint32_t id, struct sv_path *p);

/**
 * sv_path_find - the node of @t at path @p, or its deepest ancestor there
 * @depth: receives how many names of @p were found (NULL: not needed)
 * Return: the node (0, the root, when none of @p is there).
 */
uint32_t sv_path_find(const struct stack_tree *t, const struct sv_path *p, uint32_t *depth);

/*
 * The path of stack @id's frames (as the tree of direction @dir merges them),
 * up to the tree's depth limit.
 */
void sv_path_of_stack(struct store *st, uint32_t id, enum stack_tree_dir dir, struct sv_path *p);

/*
 * The "stack:" view filter clause that selects the events under node @id of
 * @t (src/view/viewfilter.h): its frames root first, tied to the root (an icicle
 * node) or to the leaf (a caller tree node). Return: @buf, "" when @id is the
 * root or the clause would not fit.
 */
const char *sv_clause(const struct stack_tree *t, uint32_t id, enum stack_tree_dir dir, char *buf,
		      size_t len);

#endif
