/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A text screen for the tests that run a pane's own draw code without a
 * terminal (tests/unit/test_ui_*.c): the screen functions the panes call are
 * defined here to write into scr[][], one NUL-terminated line per row, and
 * ui_message() keeps its text in last_msg. Define SCR_ROWS before including
 * this for a taller screen.
 */
#ifndef TEXT_SCREEN_H
#define TEXT_SCREEN_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SCR_ROWS
#define SCR_ROWS	40
#endif
#define SCR_COLS	200

static char scr[SCR_ROWS][SCR_COLS + 1];
static char last_msg[256];

static void text_screen_clear(void)
{
	for (int r = 0; r < SCR_ROWS; r++) {
		memset(scr[r], ' ', SCR_COLS);
		scr[r][SCR_COLS] = '\0';
	}
}

void ui_draw_rs(struct ui *ui, int y, int x, const struct richstr *rs, int w)
{
	for (int i = 0; i < rs->len && i < w && y >= 0 && y < SCR_ROWS && x + i < SCR_COLS; i++)
		scr[y][x + i] = rs->ch[i];
}

void ui_draw_text(struct ui *ui, int y, int x, enum ui_role role, const char *s, int w)
{
	struct richstr rs;

	richstr_clear(&rs);
	richstr_add(&rs, role, s);
	ui_draw_rs(ui, y, x, &rs, w);
}

void ui_fill_row(struct ui *ui, int y, enum ui_role role, int w)
{
	for (int i = 0; i < w && y >= 0 && y < SCR_ROWS && i < SCR_COLS; i++)
		scr[y][i] = ' ';
}

/* The prompts' bottom overlays, drawn by ui/overlay.c's own code onto this screen. */
#include "../../ui/overlay.c"

void ui_message(struct ui *ui, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
	va_end(ap);
}

/* Draw pane @p into the whole text screen (KTOP_TEST_SHOW=1 prints it). */
static inline void text_screen_draw(struct ui *ui, struct pane *p)
{
	text_screen_clear();
	p->h = SCR_ROWS;
	p->ops->draw(ui, p, 0, SCR_ROWS, SCR_COLS);
	if (getenv("KTOP_TEST_SHOW"))
		for (int i = 0; i < SCR_ROWS; i++)
			printf("|%.150s\n", scr[i]);
}

#endif
