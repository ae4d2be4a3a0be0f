// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fleet pane (0): one row per host of `ktop --pcp HOST,...` (or of
 * --pcp-archive), from each host's pmcd and ktop agent (src/pcp/fleet.h):
 * events/s, lost/s, the busiest event, the timerlat and osnoise maxima of the
 * newest second, run-queue p99, probe hits and drops. F6, > and < sort by
 * the next column, I inverts; Enter shows the selected host's CPUs below the
 * table (Enter or Backspace again hides them). A host that does not answer
 * stays in the table as down, with why and since when, and is tried again
 * every interval. The rows are the same text --batch prints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcp/fleet.h"
#include "pcp/fleet_batch.h"
#include "draw/richstr.h"
#include "ui-local.h"

enum fleet_sort {
	FS_HOST, FS_EVENTS, FS_LOST, FS_TOP, FS_TIMERLAT, FS_OSNOISE, FS_RUNQ, FS_PROBES,
	FS_DROPS, FS_NR,
};

static const char *const fs_names[FS_NR] = {
	"host", "events/s", "lost/s", "top event/s", "timerlat", "osnoise", "run-queue p99",
	"probes/s", "drops/s",
};

struct fleet_state {
	int			sel, top;
	enum fleet_sort		sort;
	bool			invert;
	bool			cpus;		/* the selected host's CPUs shown */
	char			sel_host[128];	/* the selection follows its host when rows move */
};

static double sort_key(const struct fleet_row *r, enum fleet_sort s)
{
	switch (s) {
	case FS_EVENTS:
		return r->events_per_s;
	case FS_LOST:
		return r->lost_per_s;
	case FS_TOP:
		return r->top_event_per_s;
	case FS_TIMERLAT:
		return r->has_timerlat ? (double)r->timerlat_max_ns : -1;
	case FS_OSNOISE:
		return r->has_osnoise ? (double)r->osnoise_max_ns : -1;
	case FS_RUNQ:
		return r->has_runq ? (double)r->runq_p99_ns : -1;
	case FS_PROBES:
		return r->has_probes ? r->probe_hits_per_s : -1;
	case FS_DROPS:
		return r->has_drops ? r->drops_per_s : -1;
	default:
		return 0;
	}
}

struct sorted_row {
	struct fleet_row	r;
	size_t			idx;	/* in the fleet */
};

static int cmp_rows(const void *x, const void *y, void *arg)
{
	const struct sorted_row *a = x, *b = y;
	const struct fleet_state *fs = arg;
	double ka, kb;
	int c;

	if (a->r.up != b->r.up)
		return a->r.up ? -1 : 1;	/* down hosts last, whatever the order */
	if (fs->sort == FS_HOST) {
		c = strcmp(a->r.host, b->r.host);
	} else {
		ka = sort_key(&a->r, fs->sort);
		kb = sort_key(&b->r, fs->sort);
		c = ka > kb ? -1 : ka < kb ? 1 : strcmp(a->r.host, b->r.host);
	}
	return fs->invert ? -c : c;
}

static size_t fleet_sorted(struct ui *ui, struct fleet_state *fs, struct sorted_row *out)
{
	size_t n = 0;

	for (size_t i = 0; ui->fleet && i < fleet_nhosts(ui->fleet) && n < FLEET_MAX_HOSTS; i++) {
		if (fleet_row(ui->fleet, i, &out[n].r))
			continue;
		out[n++].idx = i;
	}
	qsort_r(out, n, sizeof(*out), cmp_rows, fs);
	return n;
}

static void draw_line(struct ui *ui, int y, int w, enum ui_role role, const char *text)
{
	struct richstr rs;

	richstr_clear(&rs);
	richstr_add(&rs, role, text);
	richstr_fit_words(&rs, w);
	richstr_pad(&rs, role, w);
	ui_draw_rs(&ui->screen, y, 0, &rs, w);
}

static void fleet_draw(struct ui *ui, struct pane *p, int y, int h, int w)
{
	static struct sorted_row rows[FLEET_MAX_HOSTS];
	static struct fleet_cpu cpus[FLEET_MAX_CPUS];
	struct fleet_state *fs = p->priv;
	int row = y, end = y + h, nrows;
	char line[512];
	size_t n, nc = 0;

	if (!ui->fleet) {
		/* wrapped: at 80 columns it is three lines */
		draw_line(ui, row++, w, ROLE_DEFAULT, "Fleet: no hosts.");
		ui_draw_wrapped(&ui->screen, row, end - row, w, ROLE_DEFAULT,
				"Start ktop with --pcp HOST[:PORT],... (each host's pmcd runs "
				"ktop's agent: make install-pmda, ./Install), or --pcp-archive "
				"ARCHIVE,... (their pmlogger archives).");
		return;
	}
	n = fleet_sorted(ui, fs, rows);
	/* the selection stays on its host when the order changes */
	for (size_t i = 0; fs->sel_host[0] && i < n; i++)
		if (!strcmp(rows[i].r.host, fs->sel_host))
			fs->sel = (int)i;
	if (fs->sel >= (int)n)
		fs->sel = (int)n - 1;
	if (fs->sel < 0)
		fs->sel = 0;
	if (n)
		snprintf(fs->sel_host, sizeof(fs->sel_host), "%s", rows[fs->sel].r.host);
	snprintf(line, sizeof(line), "Fleet: %zu hosts (%s), sorted by %s%s; F6 > < sort, I "
		 "inverts, Enter: the host's CPUs", n, fleet_is_archive(ui->fleet) ?
		 "pmlogger archives" : "pmcd, live", fs_names[fs->sort],
		 fs->invert ? " (inverted)" : "");
	draw_line(ui, row++, w, ROLE_DIM, line);
	draw_line(ui, row++, w, ROLE_COLHDR, fleet_row_header());
	if (fs->cpus && n)
		nc = fleet_cpus(ui->fleet, rows[fs->sel].idx, cpus, FLEET_MAX_CPUS);
	/* the hosts get what the CPUs leave, at least three rows */
	nrows = end - row - (fs->cpus ? (int)nc + 3 : 0);
	if (nrows < 3)
		nrows = 3;
	if (fs->sel < fs->top)
		fs->top = fs->sel;
	if (fs->sel >= fs->top + nrows)
		fs->top = fs->sel - nrows + 1;
	for (int i = fs->top; i < (int)n && i < fs->top + nrows && row < end; i++) {
		enum ui_role role = rows[i].r.up ? ROLE_DEFAULT : ROLE_WARN;

		fleet_row_text(&rows[i].r, line, sizeof(line));
		if (i == fs->sel && ui->active == p)
			role = ROLE_SELECTED;
		draw_line(ui, row++, w, role, line);
	}
	if (!fs->cpus || !n || row + 2 > end)
		return;
	row++;
	snprintf(line, sizeof(line), "CPUs of %s%s (Enter or Backspace: back)", rows[fs->sel].r.host,
		 rows[fs->sel].r.up ? "" : ": down");
	draw_line(ui, row++, w, ROLE_DIM, line);
	draw_line(ui, row++, w, ROLE_COLHDR, fleet_cpu_header());
	for (size_t c = 0; c < nc && row < end; c++) {
		fleet_cpu_text(&cpus[c], line, sizeof(line));
		draw_line(ui, row++, w, ROLE_DEFAULT, line);
	}
}

static int fleet_key(struct ui *ui, struct pane *p, enum ui_action act)
{
	struct fleet_state *fs = p->priv;
	size_t n = ui->fleet ? fleet_nhosts(ui->fleet) : 0;

	switch (act) {
	case ACT_UP:
		fs->sel_host[0] = '\0';
		fs->sel = fs->sel > 0 ? fs->sel - 1 : 0;
		return UI_REDRAW;
	case ACT_DOWN:
		fs->sel_host[0] = '\0';
		if (fs->sel + 1 < (int)n)
			fs->sel++;
		return UI_REDRAW;
	case ACT_HOME:
		fs->sel_host[0] = '\0';
		fs->sel = 0;
		return UI_REDRAW;
	case ACT_END:
		fs->sel_host[0] = '\0';
		fs->sel = n ? (int)n - 1 : 0;
		return UI_REDRAW;
	case ACT_ENTER:
		fs->cpus = !fs->cpus;
		return UI_REDRAW;
	case ACT_ZOOM_OUT:
		fs->cpus = false;
		return UI_REDRAW;
	case ACT_PANE_SORT:
	case ACT_SORT_PREV:
		fs->sort = (enum fleet_sort)((fs->sort + (act == ACT_PANE_SORT ? 1 : FS_NR - 1)) %
					     FS_NR);
		ui_message(ui, "fleet sorted by %s", fs_names[fs->sort]);
		return UI_REDRAW;
	case ACT_SORT_INVERT:
		fs->invert = !fs->invert;
		return UI_REDRAW;
	default:
		return 0;
	}
}

const struct pane_ops pane_fleet_ops = {
	.name = "fleet",
	.label = "Fleet",
	.priv_size = sizeof(struct fleet_state),
	.draw = fleet_draw,
	.key = fleet_key,
	.keys = "Enter CPUs  F6 sort  I invert",
};
