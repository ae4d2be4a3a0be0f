// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The screen's backend for the unit tests (ui/draw/backend.h), in place of
 * ui/draw/curses.c: the UI library draws into scr[][], one NUL-terminated
 * line of text per row, TEXT_ROWS x TEXT_COLS. Roles and attributes are not
 * kept; the mouse never moves.
 */
#include <string.h>

#include "draw/backend.h"
#include "text_screen.h"

char scr[TEXT_ROWS][TEXT_COLS + 1];

void text_screen_clear(void)
{
	for (int r = 0; r < TEXT_ROWS; r++) {
		memset(scr[r], ' ', TEXT_COLS);
		scr[r][TEXT_COLS] = '\0';
	}
}

void ui_screen_setup(struct ui_screen *s, const struct ui_theme *t)
{
	s->utf8 = false;
	s->color = false;
	s->ready = true;
	ui_screen_begin(s);
}

void ui_screen_theme(struct ui_screen *s, const struct ui_theme *t)
{
}

void ui_screen_begin(struct ui_screen *s)
{
	s->rows = TEXT_ROWS;
	s->cols = TEXT_COLS;
	text_screen_clear();
}

void ui_screen_end(struct ui_screen *s)
{
}

void ui_screen_leave(struct ui_screen *s)
{
}

void ui_screen_back(struct ui_screen *s)
{
}

void ui_draw_rs(struct ui_screen *s, int y, int x, const struct richstr *rs, int w)
{
	for (int i = 0; i < rs->len && i < w && y >= 0 && y < TEXT_ROWS && x + i < TEXT_COLS; i++)
		scr[y][x + i] = rs->ch[i];
}

void ui_fill_row(struct ui_screen *s, int y, enum ui_role role, int w)
{
	for (int i = 0; i < w && y >= 0 && y < TEXT_ROWS && i < TEXT_COLS; i++)
		scr[y][i] = ' ';
}

void ui_draw_box(struct ui_screen *s, int y, int x, int h, int w)
{
	for (int r = y; r < y + h && r < TEXT_ROWS; r++)
		for (int i = x; i < x + w && i < TEXT_COLS; i++)
			if (r >= 0 && i >= 0)
				scr[r][i] = r == y || r == y + h - 1 ? '-' :
					    i == x || i == x + w - 1 ? '|' : ' ';
}

enum ui_mouse ui_screen_mouse(int *y, int *x)
{
	return UI_MOUSE_NONE;
}
