/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The help overlay's state (help.c): private to it and its tests.
 */
#ifndef KTOP_UI_HELP_LOCAL_H
#define KTOP_UI_HELP_LOCAL_H

struct help_state {
	int	top;		/* the first line shown */
	int	nlines;		/* lines at the last draw's width */
	int	page;		/* lines the last draw showed */
};

#endif
