// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktop -i BASE --diff NEW in the view: the diff (src/diff/diff.h) the diff
 * panes draw, kept fresh while a side is read or NEW is live, and the
 * header's lines that say what is compared with what.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "app/app.h"
#include "diff/diff.h"
#include "lib/clock.h"
#include "ui-local.h"

/* A refresh of a live NEW: no more often than this, nor than 10x a table's cost. */
#define DIFF_REFRESH_NS	1000000000ull

int ui_diff_start(struct ui *ui, struct app *base)
{
	ui->diff = diff_new(base, ui->app);
	if (!ui->diff)
		return -ENOMEM;
	ui->base = base;
	diff_refresh(ui->diff);
	ui->diff_next = 0;
	return 0;
}

void ui_diff_stop(struct ui *ui)
{
	diff_free(ui->diff);
	ui->diff = NULL;
	ui->base = NULL;
}

void ui_diff_tick(struct ui *ui, uint64_t now_ns)
{
	struct diff_side_info b, n;
	uint64_t pace;

	if (!ui->diff || now_ns < ui->diff_next || (ui->paused && diff_ready(ui->diff)))
		return;
	/* read before the refresh: a window taken once both were whole is final */
	diff_side(ui->diff, DIFF_BASE, &b);
	diff_side(ui->diff, DIFF_NEW, &n);
	if (diff_refresh(ui->diff) || b.loading || n.loading)
		ui->dirty = true;
	if (!b.loading && !n.loading && !n.live && diff_ready(ui->diff)) {
		ui->diff_next = UINT64_MAX;	/* two recordings read: the tables stand */
		return;
	}
	pace = diff_ready(ui->diff) ? DIFF_REFRESH_NS : DIFF_REFRESH_NS / 4;
	if (pace < 10 * ui->diff_cost)
		pace = 10 * ui->diff_cost;
	ui->diff_next = now_ns + pace;
}

/* A side's name as the header shows it: @fit > 0, the last component. */
static const char *side_name(const struct diff_side_info *s, int fit)
{
	const char *name = s->name && *s->name ? s->name : "?", *slash = strrchr(name, '/');

	return fit && slash && slash[1] ? slash + 1 : name;
}

/*
 * The header's line of both sides, each name as @fit says: 0 as given, 1 its
 * last component, 2 that without the line's closing words, 3 that cut from
 * the left to @room columns ("...tail"), 4 that without the CPU counts (a
 * note says when they differ).
 */
static void side_text(struct richstr *rs, const char *label, const struct diff_side_info *s,
		      int fit, int room)
{
	const char *name = side_name(s, fit);
	char b[32];

	richstr_add(rs, ROLE_HEADER, label);
	if (fit >= 3 && (int)strlen(name) > room) {
		richstr_add(rs, ROLE_HEADER_VALUE, "...");
		name += strlen(name) - (size_t)(room > 3 ? room - 3 : 1);
	}
	richstr_add(rs, ROLE_HEADER_VALUE, name);
	if (s->loading) {
		richstr_addf(rs, ROLE_WARN, " (reading: %s events)",
			     ui_fmt_count(b, sizeof(b), s->events));
		return;
	}
	richstr_addf(rs, ROLE_HEADER, " (%.1f s, ", s->secs);
	if (fit < 4)
		richstr_addf(rs, ROLE_HEADER, "%u CPUs, ", s->ncpus);
	richstr_addf(rs, ROLE_HEADER, "%s events", ui_fmt_count(b, sizeof(b), s->events));
	if (s->lost)
		richstr_addf(rs, ROLE_WARN, ", %s lost", ui_fmt_count(b, sizeof(b), s->lost));
	richstr_add(rs, ROLE_HEADER, ")");
}

static void sides_text(struct richstr *rs, const struct diff_side_info *b,
		       const struct diff_side_info *n, int fit, int room)
{
	richstr_clear(rs);
	richstr_add(rs, ROLE_HEADER_VALUE, " diff ");
	side_text(rs, " BASE ", b, fit, room);
	side_text(rs, "  NEW ", n, fit, room);
	if (fit < 2)
		richstr_add(rs, ROLE_HEADER, "  per s of each side's own length");
}

bool ui_diff_header(struct ui *ui, int line, struct richstr *rs)
{
	struct diff_side_info b, n;
	const char *notes[8];
	unsigned int nn;

	if (!ui->diff)
		return false;
	richstr_clear(rs);
	if (line == 0) {
		int cols = ui->screen.cols > 0 ? ui->screen.cols : 80, fit, fixed, room = 0;

		diff_side(ui->diff, DIFF_BASE, &b);
		diff_side(ui->diff, DIFF_NEW, &n);
		/* both sides' figures stay on the line: the names give way first */
		for (fit = 0; fit < 3; fit++) {
			sides_text(rs, &b, &n, fit, 0);
			if (rs->len <= cols)
				return true;
		}
		/* what is left for the two names, shared between them: at least 12 each */
		for (; fit <= 4; fit++) {
			sides_text(rs, &b, &n, fit, 1 << 20);
			fixed = rs->len - (int)strlen(side_name(&b, fit)) -
				(int)strlen(side_name(&n, fit));
			room = (cols - fixed) / 2;
			if (room >= 12 || fit == 4)
				break;
		}
		sides_text(rs, &b, &n, fit, room > 4 ? room : 4);
		return true;
	}
	nn = diff_notes(ui->diff, notes, 8);
	if (!nn)
		return false;
	richstr_add(rs, ROLE_WARN, " note:");
	for (unsigned int i = 0; i < nn && i < 8; i++)
		richstr_addf(rs, ROLE_HEADER, "%s %s", i ? ";" : "", notes[i]);
	return true;
}

bool ui_diff_ready(struct ui *ui, char *why, size_t len)
{
	struct diff_side_info s;

	if (!ui->diff) {
		snprintf(why, len, "no diff");
		return false;
	}
	if (diff_ready(ui->diff))
		return true;
	/* a side that could not be read is never ready: say why */
	for (int i = 0; i < DIFF_NSIDES; i++) {
		char err[400] = "";

		diff_side(ui->diff, i, &s);
		if (app_loader_status(i ? ui->app : ui->base, err, sizeof(err))) {
			snprintf(why, len, "%s %s cannot be read: %s", i ? "NEW" : "BASE", s.name,
				 err);
			return false;
		}
	}
	snprintf(why, len, "reading the recordings; the diff follows once both are read");
	for (int i = 0; i < DIFF_NSIDES; i++) {
		char b[32];

		diff_side(ui->diff, i, &s);
		if (s.loading) {
			snprintf(why, len, "reading %s %s: %s events so far; the diff follows "
				 "once both are read", i ? "NEW" : "BASE", s.name,
				 ui_fmt_count(b, sizeof(b), s.events));
			break;
		}
	}
	return false;
}

const struct diff_table *ui_diff_table(struct ui *ui, int kind, char *why, size_t len)
{
	const struct diff_table *t;
	uint64_t t0;

	if (!ui_diff_ready(ui, why, len))
		return NULL;
	t0 = clock_mono_ns();
	t = diff_table(ui->diff, (enum diff_kind)kind);
	t0 = clock_mono_ns() - t0;
	/* a table kept from before costs nothing: only a made one sets the pace */
	if (t0 > 1000000)
		ui->diff_cost = t0;
	return t;
}
