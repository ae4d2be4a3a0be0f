/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The selected row and the first row of the page of a pane's table, as the
 * panes move them: keys, scrolling, clicks and the highlight. No curses: the state (selected row, top row) stays in the pane.
 */
#ifndef KTOP_UI_ROWSEL_H
#define KTOP_UI_ROWSEL_H

#include "draw/richstr.h"
#include "ui-local.h"

/* True for the movement keys ui_rowsel_move() takes: Up, Down, PgUp, PgDn, Home, End. */
bool ui_rowsel_moves(enum ui_action act);

/**
 * ui_rowsel_move - the selected row after a movement key
 * @sel: the selected row, 0 <= @sel < @n
 * @n: how many rows (none: 0)
 * @page: rows on a page (Page Up/Down)
 * @act: ACT_UP, ACT_DOWN, ACT_PGUP, ACT_PGDN, ACT_HOME or ACT_END
 *
 * Return: the new selected row, kept within the rows; @sel for other actions.
 */
long ui_rowsel_move(long sel, long n, long page, enum ui_action act);

/* The selected row kept within @n rows: from 0 to @n - 1, 0 when there are none. */
long ui_rowsel_clamp(long sel, long n);

/**
 * ui_rowsel_top - the first row of the page after the selection moved
 * @sel: the selected row
 * @top: the first row shown until now
 * @page: rows on a page; 0 or less: only scroll up to the selection
 *
 * The page moves only as far as it must to show @sel.
 * Return: the new first row, 0 or more.
 */
long ui_rowsel_top(long sel, long top, long page);

/**
 * ui_rowsel_click - the row a click on a screen line of the pane selects
 * @top: the first row shown
 * @line: the clicked line, counted from the pane's first line
 * @header: lines above the first row (title, column header)
 * @n: how many rows
 *
 * Return: the row, or -1 when the click is on the header or below the rows.
 */
long ui_rowsel_click(long top, int line, int header, long n);

/*
 * ui_rowsel_hscroll - how far a pane's lines are scrolled sideways after
 * Left (ACT_LEFT) or Right (ACT_RIGHT): 8 columns a key, from 0 to what a
 * struct richstr holds. Return: the new offset (@hscroll for other actions).
 */
int ui_rowsel_hscroll(int hscroll, enum ui_action act);

/* Show @rs, @w columns wide, as the selected row. */
void ui_rowsel_mark(struct richstr *rs, int w);

#endif
