/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The unit tests' text screen (text_screen.c, the screen backend the UI tests
 * link in place of curses): the UI library's panes, prompts and frame draw
 * into scr[][], one NUL-terminated line per row. A test draws SCR_ROWS rows
 * (40, or its own #define before including this, at most TEXT_ROWS) of
 * SCR_COLS columns.
 */
#ifndef TEXT_SCREEN_H
#define TEXT_SCREEN_H

#include <stdio.h>
#include <stdlib.h>

#define TEXT_ROWS	64
#define TEXT_COLS	200

#ifndef SCR_ROWS
#define SCR_ROWS	40
#endif
#define SCR_COLS	TEXT_COLS

extern char scr[TEXT_ROWS][TEXT_COLS + 1];

/* Every row blank. */
void text_screen_clear(void);

#ifdef KTOP_UI_LOCAL_H
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

#endif
