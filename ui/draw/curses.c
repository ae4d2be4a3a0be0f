// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The screen's curses backend (backend.h): stdscr, each role a colour pair or
 * the theme's mono attributes, a frame erased and sent with wnoutrefresh() and
 * doupdate(), so curses sends only what changed (cheap over ssh). ktop links
 * it; the unit tests link tests/unit/text_screen.c in its place.
 */
#include <curses.h>
#include <langinfo.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "backend.h"

/* Each role's attributes, as ui_screen_theme() set them. */
static attr_t role_attr[ROLE_NR];

static attr_t to_curses_attr(unsigned int a)
{
	attr_t r = A_NORMAL;

	if (a & UI_A_BOLD)
		r |= A_BOLD;
	if (a & UI_A_REVERSE)
		r |= A_REVERSE;
	if (a & UI_A_UNDERLINE)
		r |= A_UNDERLINE;
	if (a & UI_A_DIM)
		r |= A_DIM;
	return r;
}

static short pick_color(short c256, short c8)
{
	if (c256 == UI_COLOR_DEFAULT || c8 == UI_COLOR_DEFAULT)
		return c256 >= 0 && c256 < COLORS ? c256 : -1;
	return c256 >= 0 && c256 < COLORS ? c256 : c8;
}

void ui_screen_theme(struct ui_screen *s, const struct ui_theme *t)
{
	for (int i = 0; i < ROLE_NR; i++) {
		const struct ui_style *st = &t->style[i];

		if (!s->color) {
			role_attr[i] = to_curses_attr(ui_role_mono_attr((enum ui_role)i) |
						      (st->attr & (UI_A_BOLD | UI_A_REVERSE |
								   UI_A_UNDERLINE)));
			continue;
		}
		init_pair((short)(i + 1), pick_color(st->fg, st->fg8), pick_color(st->bg, st->bg8));
		role_attr[i] = COLOR_PAIR(i + 1) | to_curses_attr(st->attr);
	}
	bkgdset(' ' | role_attr[ROLE_DEFAULT]);
}

void ui_screen_setup(struct ui_screen *s, const struct ui_theme *t)
{
	const char *nc = getenv("NO_COLOR"), *cs = nl_langinfo(CODESET);

	s->utf8 = cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
	s->color = has_colors() && !(nc && *nc);
	if (s->color && start_color() == OK) {
		use_default_colors();
	} else {
		s->color = false;
	}
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	mouseinterval(0);
	s->rows = LINES;
	s->cols = COLS;
	s->ready = true;
	ui_screen_theme(s, t);
}

void ui_screen_begin(struct ui_screen *s)
{
	s->rows = LINES;
	s->cols = COLS;
	erase();
}

void ui_screen_end(struct ui_screen *s)
{
	wnoutrefresh(stdscr);
	doupdate();
}

void ui_screen_leave(struct ui_screen *s)
{
	endwin();
}

void ui_screen_back(struct ui_screen *s)
{
	clearok(curscr, TRUE);
}

void ui_draw_rs(struct ui_screen *s, int y, int x, const struct richstr *rs, int w)
{
	int i = 0, n = rs->len < w ? rs->len : w;

	if (y < 0 || y >= s->rows)
		return;
	while (i < n) {
		int j = i;

		while (j < n && rs->role[j] == rs->role[i])
			j++;
		attrset(role_attr[rs->role[i]]);
		mvaddnstr(y, x + i, rs->ch + i, j - i);
		i = j;
	}
	attrset(role_attr[ROLE_DEFAULT]);
}

void ui_fill_row(struct ui_screen *s, int y, enum ui_role role, int w)
{
	if (y < 0 || y >= s->rows)
		return;
	attrset(role_attr[role]);
	mvhline(y, 0, ' ', w);
	attrset(role_attr[ROLE_DEFAULT]);
}

void ui_draw_box(struct ui_screen *s, int y, int x, int h, int w)
{
	const char *hl = s->utf8 ? "\u2500" : "-", *vl = s->utf8 ? "\u2502" : "|";

	attrset(role_attr[ROLE_OVERLAY]);
	for (int r = y; r < y + h; r++)
		mvhline(r, x, ' ', w);
	/* box characters as UTF-8 text (terminals and tmux may lack the ACS
	 * charset); plain ASCII when the locale is not UTF-8 */
	for (int i = 1; i < w - 1; i++) {
		mvaddstr(y, x + i, hl);
		mvaddstr(y + h - 1, x + i, hl);
	}
	for (int r = 1; r < h - 1; r++) {
		mvaddstr(y + r, x, vl);
		mvaddstr(y + r, x + w - 1, vl);
	}
	mvaddstr(y, x, s->utf8 ? "\u250c" : "+");
	mvaddstr(y, x + w - 1, s->utf8 ? "\u2510" : "+");
	mvaddstr(y + h - 1, x, s->utf8 ? "\u2514" : "+");
	mvaddstr(y + h - 1, x + w - 1, s->utf8 ? "\u2518" : "+");
	attrset(role_attr[ROLE_DEFAULT]);
}

enum ui_mouse ui_screen_mouse(int *y, int *x)
{
	MEVENT me;

	if (getmouse(&me) != OK)
		return UI_MOUSE_NONE;
	*y = me.y;
	*x = me.x;
	if (me.bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED))
		return me.bstate & BUTTON4_PRESSED ? UI_MOUSE_WHEEL_UP : UI_MOUSE_WHEEL_DOWN;
	if (me.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED))
		return UI_MOUSE_PRESS;
	return UI_MOUSE_NONE;
}
