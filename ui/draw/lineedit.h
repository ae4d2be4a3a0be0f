/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The line every prompt edits: insert at a cursor, Backspace/Delete, Left/
 * Right, Home/End (Ctrl-A/E), Ctrl-U clears. Bytes of UTF-8 are taken as they
 * come (the prompt's parser checks the encoding). Only key codes come from
 * curses; nothing here draws.
 */
#ifndef KTOP_UI_LINEEDIT_H
#define KTOP_UI_LINEEDIT_H

#include <stdbool.h>
#include <stddef.h>
#include "richstr.h"
#include "theme.h"

#define UI_LINE_MAX	4096	/* bytes in the longest line (the filter prompt's) */

/* The key code of Ctrl-@c ('a' to 'z'). */
#define UI_CTRL(c)	((c) & 0x1f)

struct ui_line {
	char	text[UI_LINE_MAX + 1];
	size_t	len, cursor;
	size_t	max;		/* bytes this line holds, at most UI_LINE_MAX */
	bool	overflow;	/* more was typed or pasted than it holds */
};

/* Empty the line and let it hold @max bytes (0 or more than UI_LINE_MAX: UI_LINE_MAX). */
void ui_line_init(struct ui_line *l, size_t max);

/* Replace the text (cut at l->max), the cursor at its end. */
void ui_line_set(struct ui_line *l, const char *s);

/* Insert @n bytes of @s at the cursor. Return: false when they did not fit (overflow). */
bool ui_line_insert(struct ui_line *l, const char *s, size_t n);

/*
 * Replace the bytes from @start to the cursor (the word being completed) with
 * @s, the cursor after it. Return: false, and nothing changed, when it does
 * not fit or @start is past the cursor.
 */
bool ui_line_replace(struct ui_line *l, size_t start, const char *s);

/*
 * Tab: replace the word from @start to the cursor with the longest prefix the
 * @n candidates share, when that is longer than the word.
 * Return: true when the line changed.
 */
bool ui_line_complete(struct ui_line *l, size_t start, const char *const *cand, size_t n);

#define UI_LINE_MOVED	1	/* the cursor moved (or stayed at an end) */
#define UI_LINE_CHANGED	2	/* the text may have changed */

/*
 * An editing key: a printable byte, Backspace, Delete, Left, Right, Home, End,
 * Ctrl-A, Ctrl-E, Ctrl-U.
 * Return: UI_LINE_MOVED or UI_LINE_CHANGED for those keys, 0 for any other.
 */
int ui_line_key(struct ui_line *l, int ch);

/**
 * ui_line_fmt - append the line to @rs for a row @w columns wide: the part
 * that holds the cursor (the tail, when the line is longer than the room
 * left), in @role, with the cursor as a selected cell
 *
 * Return: the column of the line's byte 0 within the row (less than the
 * columns before it when the start scrolled out), for a caret under an offset.
 */
int ui_line_fmt(struct richstr *rs, const struct ui_line *l, enum ui_role role, int w);

#endif
