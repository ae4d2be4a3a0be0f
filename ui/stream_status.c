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
#include "lib/clock.h"
#include "pcp/fleet.h"
#include "draw/richstr.h"
#include "ui-local.h"

uint64_t ui_rec_span(struct ui *ui)
{
	uint64_t start, now;

	if (!ui->app || (app_flags(ui->app) & SOURCE_GROWS) || !app_clock(ui->app, &start, &now))
		return 0;
	return now > start ? now - start : 0;
}

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

/*
 * ktop --pcp, --pcp-archive: the header is the fleet's, not the empty local
 * session's: how many hosts answer, and the sums and worst figures of those
 * that do (what pane 0 lists host by host).
 */
int ui_fleet_header(struct ui *ui)
{
	size_t n = fleet_nhosts(ui->fleet), up = 0;
	double ev = 0, lost = 0, drops = 0;
	uint64_t tl = 0, rq = 0, now = clock_mono_ns();
	char tl_host[128] = "", rq_host[128] = "", b1[32], b2[32];
	struct fleet_row r;
	struct richstr rs;
	bool rates = false;

	for (size_t i = 0; i < n; i++) {
		if (fleet_row(ui->fleet, i, &r) || !r.up)
			continue;
		up++;
		if (!r.rates)
			continue;
		rates = true;
		ev += r.events_per_s;
		lost += r.lost_per_s;
		drops += r.has_drops ? r.drops_per_s : 0;
		if (r.has_timerlat && r.timerlat_max_ns > tl) {
			tl = r.timerlat_max_ns;
			snprintf(tl_host, sizeof(tl_host), "%s", r.host);
		}
		if (r.has_runq && r.runq_p99_ns > rq) {
			rq = r.runq_p99_ns;
			snprintf(rq_host, sizeof(rq_host), "%s", r.host);
		}
	}
	richstr_clear(&rs);
	richstr_add(&rs, ROLE_HEADER_VALUE, " ktop ");
	richstr_add(&rs, ROLE_HEADER_VALUE, "FLEET");
	richstr_addf(&rs, ROLE_HEADER, "  %s  hosts ",
		     fleet_is_archive(ui->fleet) ? "pmlogger archives" : "pmcd, live");
	richstr_addf(&rs, ROLE_HEADER_VALUE, "%zu", n);
	richstr_add(&rs, ROLE_HEADER, "  up ");
	richstr_addf(&rs, ROLE_HEADER_VALUE, "%zu", up);
	richstr_add(&rs, ROLE_HEADER, "  down ");
	richstr_addf(&rs, up < n ? ROLE_WARN : ROLE_HEADER_VALUE, "%zu", n - up);
	if (!ui->fleet_t0)
		ui->fleet_t0 = now;
	richstr_addf(&rs, ROLE_HEADER, "  %s  refresh %dms",
		     ui_fmt_elapsed(b1, sizeof(b1), now - ui->fleet_t0), ui->refresh_ms);
	richstr_pad(&rs, ROLE_HEADER, ui->screen.cols);
	ui_draw_rs(&ui->screen, 0, 0, &rs, ui->screen.cols);

	richstr_clear(&rs);
	if (!rates) {
		richstr_add(&rs, ROLE_HEADER, up ? " the hosts' rates after their second sample" :
			    " no host answers yet");
	} else {
		richstr_add(&rs, ROLE_HEADER, " events/s ");
		richstr_add(&rs, ROLE_HEADER_VALUE, ui_fmt_count(b1, sizeof(b1), (uint64_t)ev));
		richstr_add(&rs, ROLE_HEADER, "  lost/s ");
		richstr_add(&rs, lost > 0 ? ROLE_WARN : ROLE_HEADER_VALUE,
			    ui_fmt_count(b1, sizeof(b1), (uint64_t)(lost + 0.5)));
		richstr_add(&rs, ROLE_HEADER, "  drops/s ");
		richstr_add(&rs, ROLE_HEADER_VALUE, ui_fmt_count(b1, sizeof(b1),
								 (uint64_t)(drops + 0.5)));
		if (tl) {
			richstr_add(&rs, ROLE_HEADER, "  timerlat max ");
			richstr_addf(&rs, ROLE_HEADER_VALUE, "%s (%s)",
				     ui_fmt_dur(b2, sizeof(b2), tl), tl_host);
		}
		if (rq) {
			richstr_add(&rs, ROLE_HEADER, "  runq p99 ");
			richstr_addf(&rs, ROLE_HEADER_VALUE, "%s (%s)",
				     ui_fmt_dur(b2, sizeof(b2), rq), rq_host);
		}
		richstr_add(&rs, ROLE_HEADER, "  (hosts up, newest second)");
	}
	richstr_pad(&rs, ROLE_HEADER, ui->screen.cols);
	ui_draw_rs(&ui->screen, 1, 0, &rs, ui->screen.cols);
	return 2;
}
