/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The top view's state (pane_top.c): private to it and its tests.
 */
#ifndef KTOP_UI_PANE_TOP_LOCAL_H
#define KTOP_UI_PANE_TOP_LOCAL_H

#include <stddef.h>

#include "stats_view.h"
#include "ui-local.h"

#define TOP_MAX		4096

struct top_state {
	int			sel;
	int			top;
	size_t			n;
	const struct ui_top_ent	*rows[TOP_MAX];
	struct ui_stats_view	view;		/* the rows under a view filter */
};

#endif
