/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The drawing layer's screen: where panes, prompts and the frame draw rows of
 * attributed text (richstr.h), coloured by role (theme.h). It knows no pane,
 * prompt or struct ui: everything above draws through it, nothing here calls
 * up.
 *
 * Two parts. The backend (backend.h) puts text on a terminal: curses.c for
 * ktop (stdscr, sent with wnoutrefresh()/doupdate(), so curses sends only what
 * changed); tests/unit/text_screen.c for the unit tests, which draw the real
 * panes into rows of plain text. Built on it, for both, here: ui_draw_text,
 * ui_draw_wrapped (screen.c) and the prompts' bottom overlay (overlay.c).
 *
 * Context: the UI thread only.
 */
#ifndef KTOP_UI_SCREEN_H
#define KTOP_UI_SCREEN_H

#include "backend.h"
#include "lineedit.h"

/* @str in @role at row @y, column @x, at most @w columns. */
void ui_draw_text(struct ui_screen *s, int y, int x, enum ui_role role, const char *str, int w);
/* Wrap @text into rows [y, y + h) with a left margin. Return: the rows used. */
int ui_draw_wrapped(struct ui_screen *s, int y, int h, int w, enum ui_role role,
		    const char *text);

/* Row @y of a bottom overlay (the prompts'), @w wide: @rs after a margin. */
void ui_overlay_row(struct ui_screen *s, int y, int w, const struct richstr *rs);
/*
 * A bottom overlay, @w wide and *@h rows high, at most the screen but the tabs
 * and footer (*@h lowered to that), blanked. Return: its first row.
 */
int ui_overlay_bottom(struct ui_screen *s, int *h, int w);
/* Row @y of a bottom overlay: "> " and the line being typed. Return: ui_line_fmt()'s. */
int ui_overlay_line(struct ui_screen *s, int y, int w, const struct ui_line *l);

#endif
