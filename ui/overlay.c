// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The prompts' bottom overlay: its rows, its place on the screen and its
 * line being typed (ui-local.h). No curses here: it draws through
 * ui_fill_row() and ui_draw_rs(), so the unit tests' text screen
 * (tests/unit/text_screen.h) draws it too.
 */
#include "richstr.h"
#include "ui-local.h"

void ui_overlay_row(struct ui *ui, int y, int w, const struct richstr *rs)
{
	struct richstr r = *rs;

	richstr_truncate(&r, w - 2);
	ui_fill_row(ui, y, ROLE_OVERLAY, w);
	ui_draw_rs(ui, y, 1, &r, w - 2);
}

int ui_overlay_bottom(struct ui *ui, int *h, int w)
{
	int y;

	if (*h > ui->rows - 2)
		*h = ui->rows - 2;
	y = ui->rows - *h;
	for (int r = 0; r < *h; r++)
		ui_fill_row(ui, y + r, ROLE_OVERLAY, w);
	return y;
}

int ui_overlay_line(struct ui *ui, int y, int w, const struct ui_line *l)
{
	struct richstr rs;
	int x0;

	richstr_clear(&rs);
	richstr_add(&rs, ROLE_FKEY, "> ");
	x0 = ui_line_fmt(&rs, l, ROLE_OVERLAY, w);
	ui_overlay_row(ui, y, w, &rs);
	return x0;
}
