/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The stacks pane's rows, off screen: the caller tree's rows with their
 * folds, the icicle's cells (each frame as wide as its share of the frame
 * zoomed into, one row per depth), their formatting into a struct richstr,
 * and the colour role of a frame (kernel subsystem or user module, from the
 * theme). No curses.
 */
#ifndef KTOP_UI_STACK_ROWS_H
#define KTOP_UI_STACK_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/hashmap.h"
#include "draw/richstr.h"
#include "model/stacktree.h"

/* ---- folds --------------------------------------------------------------------- */

/*
 * Which caller tree nodes are folded, by the hash of their frame-name path
 * (sv_hashes()), so that a fold outlives the rebuilds of the tree: the nodes
 * whose state differs from @all_folded.
 */
struct sv_folds {
	struct hmap	flip;
	bool		all_folded;
	uint64_t	gen;		/* changes with every fold or unfold */
};

bool sv_folded(const struct sv_folds *f, uint64_t hash);
void sv_fold_set(struct sv_folds *f, uint64_t hash, bool folded);
/* Fold or unfold everything. */
void sv_fold_all(struct sv_folds *f, bool folded);
void sv_folds_free(struct sv_folds *f);

/*
 * The path hash of every node of @t into @h (stack_tree_size() entries): a
 * node's hash mixes its parent's and its name, so equal paths hash equal in
 * any tree. Return: 0 or -ENOMEM (*@h is realloc'd, *@n its size).
 */
int sv_hashes(const struct stack_tree *t, uint64_t **h, uint32_t *n);
/* The same hash of the path of @n names from the root (a node of any tree). */
uint64_t sv_path_hash(const uint32_t *names, uint32_t n);

/* ---- the caller tree's rows -------------------------------------------------------- */

struct sv_row {
	uint32_t	id;		/* the node */
	uint16_t	level;		/* 0: a child of the root */
};

/**
 * sv_caller_rows - the rows of @t's nodes below the root, depth first in the
 * tree's order (children by value, largest first), without the descendants
 * of folded nodes
 * Return: the number of rows (may exceed @max; @out holds the first @max).
 */
size_t sv_caller_rows(const struct stack_tree *t, const uint64_t *hash, const struct sv_folds *f,
		      struct sv_row *out, size_t max);

/* The column header; @time: the figures are times (off-CPU, function_graph). */
void sv_fmt_caller_header(struct richstr *rs, bool time);

/**
 * sv_fmt_caller_row - one row: count, share, (time,) then the indented name
 * @folded: the node has children and they are hidden
 * @total: the root's count (or value, for @time) the share is of
 * @role: the frame's colour role (sv_frame_role())
 *
 * "   12.3k  45.6%  - __schedule", "+" before a folded node, " " before a
 * leaf; a user frame's module after its name ("main [stackload]").
 */
void sv_fmt_caller_row(struct richstr *rs, const struct stack_tree *t, uint32_t id,
		       unsigned int level, bool folded, bool time, uint64_t total,
		       enum ui_role role);

/* Return: the column where a caller row's tree (the fold sign) starts. */
int sv_caller_name_col(bool time);

/* ---- the icicle ------------------------------------------------------------------ */

struct sv_cell {
	uint32_t	id;		/* the node */
	int		row;		/* 0: the frame zoomed into */
	int		x0, x1;		/* columns [x0, x1) */
};

/**
 * sv_icicle_layout - the frames under @zoom as cells @w columns wide, @h rows deep
 *
 * Row 0 is @zoom over the whole width; row k its descendants k levels down,
 * each as wide as its value's share of @zoom's, children left to right in the
 * tree's order (largest first), a parent's own part (the stacks that end at
 * it) left blank on the right. Edges are rounded from the cumulative values,
 * so neighbours never overlap and children never leave their parent. A frame
 * whose share is under one column is left out, with what is under it. Cost:
 * the cells laid out, not the frames under them.
 * Return: the number of cells, by row, then column; @max + 1 when they do not
 * fit in @out (ask again with more room).
 */
size_t sv_icicle_layout(const struct stack_tree *t, uint32_t zoom, int w, int h,
			struct sv_cell *out, size_t max);

/* Return: the index of the cell of node @id, or -1. */
long sv_cell_of(const struct sv_cell *c, size_t n, uint32_t id);

/*
 * The row @row of an icicle: each cell's name cut to fit ("vfs_re.."), in
 * its role (@roles[i] for @cells[i]), its last column a gap; the selected
 * node's cell as the selection, cells whose names hold @match as matches.
 */
void sv_fmt_icicle_row(struct richstr *rs, const struct stack_tree *t, const struct sv_cell *cells,
		       size_t n, const uint8_t *roles, int row, int w, uint32_t sel,
		       const char *match);

/* ---- frames -------------------------------------------------------------------- */

/*
 * The colour role of a frame: [unknown]; user frames by module (the program,
 * or a shared library: "lib*", "*.so*", "ld-*"); kernel frames (and
 * function_graph names) by subsystem, from their names (entry_SYSCALL_64,
 * __x64_sys_* -> syscall; __schedule -> sched; do_nanosleep -> time; ...).
 */
enum ui_role sv_frame_role(const char *name, uint8_t kind, const char *module);

/*
 * The search: the next node after @from in the tree's depth-first order
 * (@dir > 0: the previous) whose name holds @needle, wrapping around.
 * Return: the node, or STACK_TREE_NONE.
 */
uint32_t sv_find(const struct stack_tree *t, uint32_t from, const char *needle, int dir);

/*
 * What @needle's matches at and under @zoom weigh: the value of the matching
 * nodes not under another match (flamegraph.pl's "Matched"). *@nodes
 * receives how many of those there are.
 */
uint64_t sv_match_value(const struct stack_tree *t, uint32_t zoom, const char *needle,
			uint32_t *nodes);

#endif
