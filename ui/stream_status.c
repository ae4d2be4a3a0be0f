// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A stream's state in the header (`-i -`, `ktop --remote`): LIVE while it
 * arrives; once it ends or the link drops, a line that says so, when, after
 * how many events and why, in the place of nothing. What came stays held and
 * can still be explored and saved; q quits as always (status 0).
 */
#include "app.h"
#include "ui-local.h"

const char *ui_source_word(const struct ui *ui)
{
	const struct app *a = ui->app;

	switch (app_stream_state(a)) {
	case APP_STREAM_ENDED:
		return "ENDED";
	case APP_STREAM_CUT:
		return "DISCONNECTED";
	default:
		break;
	}
	/* a snapshot file still being read by its loader thread: LOADING */
	return a->live ? "LIVE" : app_loading(a) ? "LOADING" : "SNAPSHOT";
}

bool ui_stream_header(struct ui *ui, struct richstr *rs)
{
	enum app_stream_state s;
	char desc[512];

	s = app_stream_end_desc(ui->app, desc, sizeof(desc));
	if (s != APP_STREAM_ENDED && s != APP_STREAM_CUT)
		return false;
	richstr_clear(rs);
	richstr_add(rs, s == APP_STREAM_CUT ? ROLE_WARN : ROLE_HEADER_VALUE, " ");
	richstr_add(rs, s == APP_STREAM_CUT ? ROLE_WARN : ROLE_HEADER_VALUE, desc);
	richstr_add(rs, ROLE_HEADER, "; q quits");
	return true;
}
