// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The flight recorder's line in the header (ui-local.h), when one runs
 * (--save-on, or armed in the recorder prompt, prompts/prompt_recorder.c):
 * "recorder armed: 2 conditions | saved 3 | last 14:02:11 ...".
 */
#include <string.h>

#include "app/app.h"
#include "recorder/recorder.h"
#include "ui-local.h"

/* Its " · " separators as " | ": a row's text is drawn byte by byte (richstr). */
const char *ui_recorder_status(const struct recorder_status *st, char *buf, size_t len)
{
	char line[512];
	size_t o = 0;

	recorder_status_line(st, line, sizeof(line));
	for (const char *p = line; *p && o + 2 < len; p++) {
		if (!strncmp(p, "\u00b7", 2)) {
			buf[o++] = '|';
			p++;
			continue;
		}
		buf[o++] = *p;
	}
	buf[o] = '\0';
	return buf;
}

bool ui_recorder_header(struct ui *ui, struct richstr *rs)
{
	struct recorder_status st;
	char line[512];

	if (!ui->app->rec)
		return false;
	recorder_status(ui->app->rec, &st);
	richstr_clear(rs);
	richstr_add(rs, ROLE_HEADER, " recorder ");
	richstr_add(rs, st.failed ? ROLE_WARN : st.armed ? ROLE_HEADER_VALUE : ROLE_DIM,
		    ui_recorder_status(&st, line, sizeof(line)));
	richstr_add(rs, ROLE_DIM, "  R: conditions and saves");
	return true;
}
