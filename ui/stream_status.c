// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A stream's state in the header (`-i -`, `ktop --remote`): LIVE while it
 * arrives; once it ends or the link drops, a line that says so, when, after
 * how many events and why, in the place of nothing. What came stays held and
 * can still be explored and saved; q quits as always (status 0).
 */
#include <stdio.h>
#include <string.h>

#include "app/app.h"
#include "ui-local.h"

const char *ui_source_word(const struct ui *ui)
{
	const struct app *a = ui->app;

	if (ui->fleet)
		return "FLEET";	/* ktop --pcp: no events here, the hosts' in pane 0 */
	switch (app_stream_state(a)) {
	case APP_STREAM_ENDED:
		return "ENDED";
	case APP_STREAM_CUT:
		return "DISCONNECTED";
	default:
		break;
	}
	/* --remote: the far side's kernel, named (UI thread only: one buffer) */
	if (a->remote && (app_flags(a) & SOURCE_GROWS)) {
		static char word[96];

		snprintf(word, sizeof(word), "REMOTE %.80s", remote_dest(a->remote));
		return word;
	}
	/* a snapshot file still being read by its loader thread: LOADING */
	return app_flags(a) & SOURCE_GROWS ? "LIVE" : app_loading(a) ? "LOADING" : "SNAPSHOT";
}

int ui_stream_header(struct ui *ui, int y)
{
	enum ui_role role = ROLE_HEADER_VALUE;
	enum app_stream_state s;
	char desc[600];
	const char *p = desc;
	int lines = 0, width = ui->screen.cols - 1;
	struct richstr rs;

	s = app_stream_end_desc(ui->app, desc, sizeof(desc) - 16);
	if (s != APP_STREAM_ENDED && s != APP_STREAM_CUT)
		return 0;
	if (s == APP_STREAM_CUT)
		role = ROLE_WARN;
	strcat(desc, "; q quits");
	/* two lines at most: the reason is the news, and it comes last */
	while (*p && lines < 2 && width > 10) {
		int n = (int)strlen(p);

		if (n > width && lines == 0) {
			n = width;
			while (n > width / 2 && p[n] != ' ')
				n--;
		}
		richstr_clear(&rs);
		richstr_add(&rs, role, " ");
		richstr_addn(&rs, role, p, n < width ? n : width);
		richstr_pad(&rs, ROLE_HEADER, ui->screen.cols);
		ui_draw_rs(&ui->screen, y + lines++, 0, &rs, ui->screen.cols);
		p += n;
		while (*p == ' ')
			p++;
	}
	return lines;
}
