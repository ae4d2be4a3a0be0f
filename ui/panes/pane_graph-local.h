/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The graph pane's state (pane_graph.c): private to it and its tests.
 */
#ifndef KTOP_UI_PANE_GRAPH_LOCAL_H
#define KTOP_UI_PANE_GRAPH_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/fgraph.h"

struct graph_vstate {
	uint8_t		*flip;		/* bit per node id: folded differs from all_folded */
	size_t		nbytes;
	bool		all_folded;
	uint32_t	sel;		/* selected node, FGRAPH_NONE: none */
	uint32_t	top;		/* node on the first row of the page */
};

struct graph_state {
	struct fgraph		*g;		/* the UI's (ui_fgraph), for the UI's life */
	unsigned int		tree;		/* the tree the folds are of (ui->fgraph.tree) */
	enum fgraph_view	view;
	enum fgraph_sort	sort;
	bool			follow;
	struct graph_vstate	vs[2];
	struct fgraph_row	*rows;
	size_t			cap;
	long			n;
	long			sel_row, top_row;
	int			hscroll;	/* the name column, shifted left by this */
};

static inline bool vs_flipped(const struct graph_vstate *vs, uint32_t id)
{
	return (size_t)id / 8 < vs->nbytes && (vs->flip[id / 8] >> (id % 8)) & 1;
}

static inline bool graph_folded(void *ctx, uint32_t id)
{
	const struct graph_vstate *vs = ctx;

	return vs->all_folded != vs_flipped(vs, id);
}

#endif
