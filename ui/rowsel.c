// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Row selection and scrolling shared by the graph and latency panes (see
 * rowsel.h). Terminal-free, like the row formatters.
 */
#include "rowsel.h"

bool ui_rowsel_moves(enum ui_action act)
{
	return act == ACT_UP || act == ACT_DOWN || act == ACT_PGUP || act == ACT_PGDN ||
	       act == ACT_HOME || act == ACT_END;
}

long ui_rowsel_move(long sel, long n, long page, enum ui_action act)
{
	switch (act) {
	case ACT_UP:
		sel--;
		break;
	case ACT_DOWN:
		sel++;
		break;
	case ACT_PGUP:
		sel -= page;
		break;
	case ACT_PGDN:
		sel += page;
		break;
	case ACT_HOME:
		sel = 0;
		break;
	case ACT_END:
		sel = n - 1;
		break;
	default:
		return sel;
	}
	if (sel >= n)
		sel = n - 1;
	return sel < 0 ? 0 : sel;
}

long ui_rowsel_clamp(long sel, long n)
{
	if (sel >= n)
		sel = n - 1;
	return sel < 0 ? 0 : sel;
}

long ui_rowsel_top(long sel, long top, long page)
{
	if (sel < top)
		top = sel;
	if (page > 0 && sel >= top + page)
		top = sel - page + 1;
	return top < 0 ? 0 : top;
}

long ui_rowsel_click(long top, int line, int header, long n)
{
	long r = top + line - header;

	return line >= header && r < n ? r : -1;
}

void ui_rowsel_mark(struct richstr *rs, int w)
{
	richstr_set_role(rs, 0, rs->len, ROLE_SELECTED);
	richstr_pad(rs, ROLE_SELECTED, w);
}

int ui_rowsel_hscroll(int hscroll, enum ui_action act)
{
	if (act == ACT_LEFT)
		return hscroll > 8 ? hscroll - 8 : 0;
	if (act == ACT_RIGHT && hscroll < RICHSTR_MAX - 40)
		return hscroll + 8;
	return hscroll;
}
