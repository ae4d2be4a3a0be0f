// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The prompts' bottom overlay (screen.h): its rows, its place on the screen
 * and its line being typed. No curses here: it draws through ui_fill_row()
 * and ui_draw_rs(), so the unit tests' text screen draws it too.
 */
#include "screen.h"

void ui_overlay_row(struct ui_screen *s, int y, int w, const struct richstr *rs)
{
	struct richstr r = *rs;

	richstr_truncate(&r, w - 2);
	ui_fill_row(s, y, ROLE_OVERLAY, w);
	ui_draw_rs(s, y, 1, &r, w - 2);
}

int ui_overlay_bottom(struct ui_screen *s, int *h, int w)
{
	int y;

	if (*h > s->rows - 2)
		*h = s->rows - 2;
	y = s->rows - *h;
	for (int r = 0; r < *h; r++)
		ui_fill_row(s, y + r, ROLE_OVERLAY, w);
	return y;
}

int ui_overlay_line(struct ui_screen *s, int y, int w, const struct ui_line *l)
{
	struct richstr rs;
	int x0;

	richstr_clear(&rs);
	richstr_add(&rs, ROLE_FKEY, "> ");
	x0 = ui_line_fmt(&rs, l, ROLE_OVERLAY, w);
	ui_overlay_row(s, y, w, &rs);
	return x0;
}
