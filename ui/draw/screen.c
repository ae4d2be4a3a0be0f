// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Drawing on the screen's backend (screen.h): text in one role, and text
 * wrapped into rows. No curses here, so the unit tests' text screen draws it
 * too.
 */
#include <string.h>
#include "screen.h"

void ui_draw_text(struct ui_screen *s, int y, int x, enum ui_role role, const char *str, int w)
{
	struct richstr rs;

	richstr_clear(&rs);
	richstr_add(&rs, role, str);
	ui_draw_rs(s, y, x, &rs, w);
}

int ui_draw_wrapped(struct ui_screen *s, int y, int h, int w, enum ui_role role,
		    const char *text)
{
	const char *p = text;
	int used = 0, width = w - 4;

	if (width < 10)
		width = w;
	while (*p && used < h) {
		const char *nl = strchr(p, '\n');
		int n = richstr_wrap_len(p, nl ? (int)(nl - p) : (int)strlen(p), width);
		struct richstr rs;

		richstr_clear(&rs);
		richstr_addn(&rs, role, p, n);
		ui_draw_rs(s, y + used, 2, &rs, width);
		used++;
		p += n;
		while (*p == ' ')
			p++;
		if (*p == '\n')
			p++;
	}
	return used;
}
