// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pane: Function graph. Its content belongs to another piece of work; until it
 * lands, the pane keeps its place in the layout and says plainly what this
 * kernel permits and why.
 */
#include "features.h"
#include "ui-local.h"

static const int graph_features[] = {
	FEATURE_FUNCTION,
	FEATURE_FUNCTION_GRAPH,
	FEATURE_FTRACE_FILTER,
};

static void graph_draw(struct ui *ui, struct pane *p, int y, int h, int w)
{
	ui_draw_unavailable(ui, y, h, w, "Function graph",
			    graph_features, (int)(sizeof(graph_features) / sizeof(int)),
			    "The function call tree (F5 tree, fold/unfold) is drawn here once ktop "
			    "records function_graph events (ktop issue 5). This kernel cannot "
			    "produce them for the reasons above; run ktop on a kernel with "
			    "CONFIG_FUNCTION_GRAPH_TRACER (for example Debian's -rt kernel) to use "
			    "this pane.");
}

const struct pane_ops pane_graph_ops = {
	.name	= "Graph",
	.draw	= graph_draw,
};
