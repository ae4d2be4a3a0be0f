/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The CPU pane's state (pane_cpus.c): private to it and its tests.
 */
#ifndef KTOP_UI_PANE_CPUS_LOCAL_H
#define KTOP_UI_PANE_CPUS_LOCAL_H

#include "stats_view.h"

struct cpus_state {
	int			sel;
	int			top;
	struct ui_stats_view	view;
};

#endif
