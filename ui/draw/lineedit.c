// SPDX-License-Identifier: GPL-2.0-or-later
/* The prompts' line editor (lineedit.h). */
#include <curses.h>
#include <stdio.h>
#include <string.h>
#include "lineedit.h"


void ui_line_init(struct ui_line *l, size_t max)
{
	l->max = max && max < UI_LINE_MAX ? max : UI_LINE_MAX;
	l->text[0] = '\0';
	l->len = l->cursor = 0;
	l->overflow = false;
}

void ui_line_set(struct ui_line *l, const char *s)
{
	size_t n = strlen(s);

	l->overflow = n > l->max;
	l->len = l->cursor = l->overflow ? l->max : n;
	memcpy(l->text, s, l->len);
	l->text[l->len] = '\0';
}

bool ui_line_insert(struct ui_line *l, const char *s, size_t n)
{
	if (l->len + n > l->max) {
		l->overflow = true;
		return false;
	}
	memmove(l->text + l->cursor + n, l->text + l->cursor, l->len - l->cursor + 1);
	memcpy(l->text + l->cursor, s, n);
	l->cursor += n;
	l->len += n;
	return true;
}

bool ui_line_replace(struct ui_line *l, size_t start, const char *s)
{
	size_t n = strlen(s), tail = l->len - l->cursor;

	if (start > l->cursor || start + n + tail > l->max)
		return false;
	memmove(l->text + start + n, l->text + l->cursor, tail + 1);
	memcpy(l->text + start, s, n);
	l->cursor = start + n;
	l->len = start + n + tail;
	return true;
}

bool ui_line_complete(struct ui_line *l, size_t start, const char *const *cand, size_t n)
{
	char word[UI_LINE_MAX + 1];
	size_t common;

	if (!n || start > l->cursor)
		return false;
	common = strlen(cand[0]);
	for (size_t i = 1; i < n; i++) {
		size_t k = 0;

		while (k < common && cand[i][k] == cand[0][k])
			k++;
		common = k;
	}
	if (common <= l->cursor - start || common > UI_LINE_MAX)
		return false;
	snprintf(word, sizeof(word), "%.*s", (int)common, cand[0]);
	return ui_line_replace(l, start, word);
}

/* Remove the byte at @at (< len). */
static void line_remove(struct ui_line *l, size_t at)
{
	memmove(l->text + at, l->text + at + 1, l->len - at);
	l->len--;
	l->overflow = false;
}

int ui_line_key(struct ui_line *l, int ch)
{
	switch (ch) {
	case KEY_LEFT:
		if (l->cursor > 0)
			l->cursor--;
		return UI_LINE_MOVED;
	case KEY_RIGHT:
		if (l->cursor < l->len)
			l->cursor++;
		return UI_LINE_MOVED;
	case KEY_HOME:
	case UI_CTRL('a'):
		l->cursor = 0;
		return UI_LINE_MOVED;
	case KEY_END:
	case UI_CTRL('e'):
		l->cursor = l->len;
		return UI_LINE_MOVED;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		if (l->cursor > 0)
			line_remove(l, --l->cursor);
		return UI_LINE_CHANGED;
	case KEY_DC:
		if (l->cursor < l->len)
			line_remove(l, l->cursor);
		return UI_LINE_CHANGED;
	case UI_CTRL('u'):
		ui_line_set(l, "");
		return UI_LINE_CHANGED;
	default:
		break;
	}
	/* bytes of UTF-8 too: a prompt's parser checks the encoding and says where */
	if ((ch >= 0x20 && ch < 0x7f) || (ch >= 0x80 && ch <= 0xff)) {
		char c = (char)ch;

		ui_line_insert(l, &c, 1);
		return UI_LINE_CHANGED;
	}
	return 0;
}

int ui_line_fmt(struct richstr *rs, const struct ui_line *l, enum ui_role role, int w)
{
	int x0 = rs->len, room = w - rs->len - 4, from = 0;

	if (room < 1)
		room = 1;
	if ((int)l->cursor > room)
		from = (int)l->cursor - room;
	richstr_addn(rs, role, l->text + from, (int)l->cursor - from);
	richstr_addn(rs, ROLE_SELECTED, l->cursor < l->len ? l->text + l->cursor : " ", 1);
	if (l->cursor < l->len)
		richstr_addn(rs, role, l->text + l->cursor + 1, (int)(l->len - l->cursor - 1));
	return x0 - from;
}
