/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The stacks pane's state (pane_stacks.c): private to it and its tests.
 */
#ifndef KTOP_UI_PANE_STACKS_LOCAL_H
#define KTOP_UI_PANE_STACKS_LOCAL_H

#include <stdbool.h>
#include <stdint.h>

#include "stack_rows.h"
#include "stackview.h"

enum { M_CALLERS = STACK_TREE_CALLERS, M_ICICLE = STACK_TREE_ROOTS };

struct stacks_state {
	struct stackview	sv;
	int			mode;		/* M_CALLERS or M_ICICLE */
	struct sv_path		sel[2];		/* the selected node, by mode */
	/* the caller tree */
	struct sv_folds		folds;
	uint64_t		*hash;		/* path hashes of the tree's nodes */
	uint32_t		nhash;
	uint64_t		hash_gen;	/* the set they were made for (+1; 0: none) */
	struct sv_row		*rows;
	uint32_t		*row_at;	/* by node id: its row + 1, 0: not shown */
	size_t			cap, n;
	uint64_t		rows_gen, rows_folds;	/* the set and folds of the rows */
	long			sel_row, top_row;
	struct sv_path		top;		/* the node on the first row */
	int			hscroll;
	/* the icicle */
	struct sv_path		zoom;
	struct sv_cell		*cells;
	uint8_t			*croles;	/* the cells' roles */
	size_t			ncells, ccap;
	bool			reveal;		/* zoom out far enough to show the selection */
	/* frame roles by name id, each computed once: role + 1, 0 not yet */
	uint8_t			*roles;
	uint32_t		nroles;
	char			match[128];	/* the search the icicle highlights */
};

#endif
