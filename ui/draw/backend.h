/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The screen's backend (screen.h): what puts rows of attributed text on a
 * terminal. curses.c is ktop's; tests/unit/text_screen.c the unit tests' (the
 * same panes drawn into rows of plain text). Nothing else calls curses to draw.
 *
 * Context: the UI thread only.
 */
#ifndef KTOP_UI_BACKEND_H
#define KTOP_UI_BACKEND_H

#include <stdbool.h>
#include "richstr.h"
#include "theme.h"

/* The screen as the drawing layer knows it (struct ui holds one). */
struct ui_screen {
	int		rows, cols;	/* the terminal's size, as of the frame being drawn */
	bool		utf8;		/* box lines in UTF-8, else ASCII */
	bool		color;		/* colours in use (else the theme's mono attributes) */
	bool		ready;		/* set up (ui_screen_setup): colours can be applied */
};

/* After the terminal is opened (newterm): colours, keys, the mouse, then @t's colours. */
void ui_screen_setup(struct ui_screen *s, const struct ui_theme *t);
/* Colour each role as @t says. */
void ui_screen_theme(struct ui_screen *s, const struct ui_theme *t);
/* A frame begins: the terminal's size now, a blank screen. */
void ui_screen_begin(struct ui_screen *s);
/* ... and ends: send what changed. */
void ui_screen_end(struct ui_screen *s);

/* The terminal lent to another program (its own ktop -i: endwin), and taken back
 * (the next frame redraws every row). */
void ui_screen_leave(struct ui_screen *s);
void ui_screen_back(struct ui_screen *s);

/* @rs at row @y, column @x, at most @w columns; rows off the screen draw nothing. */
void ui_draw_rs(struct ui_screen *s, int y, int x, const struct richstr *rs, int w);
/* Row @y blank in @role, @w columns from the left. */
void ui_fill_row(struct ui_screen *s, int y, enum ui_role role, int w);
/* A blank overlay box with a border. */
void ui_draw_box(struct ui_screen *s, int y, int x, int h, int w);

/* What a mouse event was (read after the key KEY_MOUSE). */
enum ui_mouse {
	UI_MOUSE_NONE,		/* none, or one not used */
	UI_MOUSE_WHEEL_UP,
	UI_MOUSE_WHEEL_DOWN,
	UI_MOUSE_PRESS,		/* button 1, at *@y, *@x */
};
enum ui_mouse ui_screen_mouse(int *y, int *x);

#endif
