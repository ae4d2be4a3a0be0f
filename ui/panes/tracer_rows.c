// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Row formatting of the function graph and latency panes (tracer_rows.h).
 * Nothing here draws: the panes put these rows on the screen, the tests read
 * them as text.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "draw/rowfmt.h"
#include "tracer_rows.h"

enum ui_role ui_mark_role(char mark)
{
	switch (mark) {
	case '+':
	case '!':
		return ROLE_DUR_US;
	case '#':
	case '*':
		return ROLE_DUR_MS;
	case '@':
	case '$':
		return ROLE_DUR_S;
	default:
		return ROLE_DEFAULT;
	}
}

/* "12.345" us with 3 decimals, as rtla and latency_print write them */
static void us3(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}

static void add_us(struct richstr *rs, enum ui_role role, uint64_t ns, int width)
{
	char b[32];

	us3(b, sizeof(b), ns);
	richstr_add_right(rs, role, b, width);
}

static void add_u64(struct richstr *rs, enum ui_role role, uint64_t v, int width)
{
	char b[32];

	snprintf(b, sizeof(b), "%" PRIu64, v);
	richstr_add_right(rs, role, b, width);
}

/* ---- function graph ------------------------------------------------------ */

/* The aggregated view's columns: width of each, full and compact, and the name's start. */
#define AGG_W(c, full, compact)	((c) ? (compact) : (full))
#define AGG_NAME_BAR(c)		AGG_W(c, 61, 45)	/* the column of the '|' */

void ui_fmt_graph_header(struct richstr *rs, enum fgraph_view v, bool compact)
{
	richstr_clear(rs);
	if (v == FGRAPH_TIMELINE) {
		richstr_add(rs, ROLE_COLHDR, " CPU  DURATION      |  FUNCTION CALLS");
		return;
	}
	richstr_add_right(rs, ROLE_COLHDR, compact ? "TOTAL" : "TOTAL us", AGG_W(compact, 13, 9));
	richstr_add_right(rs, ROLE_COLHDR, compact ? "SELF" : "SELF us", AGG_W(compact, 13, 9));
	richstr_add_right(rs, ROLE_COLHDR, compact ? "AVG" : "AVG us", AGG_W(compact, 12, 9));
	richstr_add_right(rs, ROLE_COLHDR, compact ? "MAX" : "MAX us", AGG_W(compact, 12, 9));
	richstr_add_right(rs, ROLE_COLHDR, "CALLS", AGG_W(compact, 9, 7));
	richstr_add(rs, ROLE_COLHDR, "  |  CALL PATH");
}

int ui_graph_name_col(const struct richstr *rs)
{
	const char *bar = memchr(rs->ch, '|', (size_t)rs->len);

	return bar ? (int)(bar - rs->ch) + 3 : 0;
}

/* A duration in @width columns: "12.345" us, or compact "12.3us". */
static void add_dur(struct richstr *rs, enum ui_role role, uint64_t ns, int width, bool compact)
{
	char b[32];

	if (!compact) {
		add_us(rs, role, ns, width);
		return;
	}
	richstr_add_right(rs, role, ui_fmt_dur(b, sizeof(b), ns), width);
}

/* What is missing or cut, as fgraph_print writes it. */
static void graph_notes(struct richstr *rs, const struct fgraph_info *in)
{
	if (in->flags & FGRAPH_F_ENTRY_MISSING)
		richstr_add(rs, ROLE_WARN, " /* entry missing */");
	if (in->flags & FGRAPH_F_EXIT_MISSING)
		richstr_add(rs, ROLE_WARN, " /* exit missing */");
	else if (in->flags & FGRAPH_F_OPEN)
		richstr_add(rs, ROLE_DIM, " /* running */");
	if (in->flags & FGRAPH_F_HAS_GAP)
		richstr_add(rs, ROLE_WARN, " /* events lost inside */");
	if (in->flags & FGRAPH_F_PARENT_MISSING)
		richstr_add(rs, ROLE_WARN, " /* callers not seen */");
	if (in->overflow)
		richstr_addf(rs, ROLE_WARN, " /* %" PRIu64 " calls deeper than max_depth */",
			     in->overflow);
}

static void graph_name(struct richstr *rs, const struct fgraph_info *in, unsigned int level,
		       bool folded)
{
	bool kids = in->nchildren > 0;

	for (unsigned int i = 0; i < level && rs->len < RICHSTR_MAX - 40; i++)
		richstr_add(rs, ROLE_DEFAULT, "  ");
	richstr_add(rs, kids ? ROLE_FLAGS : ROLE_DEFAULT, !kids ? "  " : folded ? "+ " : "- ");
	if (in->kind == FGRAPH_K_GAP) {
		richstr_addf(rs, ROLE_WARN, "/* lost %" PRIu64 " events */", in->count);
		return;
	}
	if (in->kind == FGRAPH_K_TASK || in->kind == FGRAPH_K_IRQ) {
		richstr_addf(rs, ROLE_TASK, "%s", in->name ? in->name : "?");
		richstr_addf(rs, ROLE_DIM, "  (%" PRIu32 " %s)", in->nchildren,
			     in->nchildren == 1 ? "call" : "calls");
		return;
	}
	richstr_add(rs, ROLE_EVENT, in->name ? in->name : "?");
	if (!kids)
		richstr_add(rs, ROLE_DEFAULT, "();");
	else if (folded)
		richstr_addf(rs, ROLE_DEFAULT, "() { ... }  /* %" PRIu32 " %s */", in->nchildren,
			     in->nchildren == 1 ? "call" : "calls");
	else
		richstr_add(rs, ROLE_DEFAULT, "() {");
	graph_notes(rs, in);
}

void ui_fmt_graph_row(struct richstr *rs, enum fgraph_view v, const struct fgraph_info *in,
		      unsigned int level, bool folded, bool compact)
{
	bool call = in->kind == FGRAPH_K_CALL;

	richstr_clear(rs);
	if (v == FGRAPH_TIMELINE) {
		/* the kernel's " 0) + 12.345 us   |  " prefix */
		bool dur = call && !(in->flags & (FGRAPH_F_OPEN | FGRAPH_F_EXIT_MISSING));
		char d[40], m[2] = { ' ', 0 };

		if (call && in->cpu >= 0)
			richstr_addf(rs, ROLE_CPU, " %d) ", in->cpu);
		else
			richstr_add(rs, ROLE_CPU, "    ");
		if (dur) {
			m[0] = fgraph_mark(in->total);
			fgraph_fmt_duration(d, sizeof(d), in->total);
			richstr_add(rs, ui_mark_role(m[0]), m);
			richstr_add(rs, ROLE_DEFAULT, " ");
			richstr_add(rs, m[0] != ' ' ? ui_mark_role(m[0]) : ROLE_DEFAULT, d);
			richstr_add(rs, ROLE_DIM, "|  ");
		} else {
			richstr_add(rs, ROLE_DIM, "              |  ");
		}
		graph_name(rs, in, level, folded);
		return;
	}
	if (call) {
		uint64_t done = in->count > in->incomplete ? in->count - in->incomplete : 0;
		char m = fgraph_mark(in->max);

		add_dur(rs, ROLE_DEFAULT, in->total, AGG_W(compact, 13, 9), compact);
		add_dur(rs, ROLE_DEFAULT, in->self, AGG_W(compact, 13, 9), compact);
		add_dur(rs, ROLE_DEFAULT, done ? in->total / done : 0, AGG_W(compact, 12, 9),
			compact);
		add_dur(rs, ui_mark_role(m), in->max, AGG_W(compact, 12, 9), compact);
		add_u64(rs, ROLE_DEFAULT, in->count, AGG_W(compact, 9, 7));
		richstr_addf(rs, ui_mark_role(m), " %c", m);
		richstr_add(rs, ROLE_DIM, "|  ");
	} else {
		richstr_pad(rs, ROLE_DEFAULT, AGG_NAME_BAR(compact));
		richstr_add(rs, ROLE_DIM, "|  ");
	}
	graph_name(rs, in, level, folded);
	if (call && in->incomplete)
		richstr_addf(rs, ROLE_WARN, "  /* %" PRIu64 " incomplete */", in->incomplete);
}

/* ---- latency ------------------------------------------------------------- */

static const char *const lat_sort_names[UI_LAT_SORT_NR] = {
	[UI_LAT_SORT_CPU] = "CPU", [UI_LAT_SORT_MAX] = "max", [UI_LAT_SORT_AVG] = "avg",
	[UI_LAT_SORT_CUR] = "cur", [UI_LAT_SORT_COUNT] = "samples",
};

const char *ui_lat_sort_name(enum ui_lat_sort s)
{
	return (unsigned int)s < UI_LAT_SORT_NR ? lat_sort_names[s] : "?";
}

#define LW	12	/* a latency column, us with 3 decimals */
#define LWC	9	/* the same, compact: " 139.30ms" */

/* A latency: "12.345" us in LW columns, or compact ("12.3us") in LWC. */
static void add_lat(struct richstr *rs, enum ui_role role, uint64_t ns, bool compact)
{
	char b[32];

	if (!compact) {
		add_us(rs, role, ns, LW);
		return;
	}
	richstr_add_right(rs, role, ui_fmt_dur(b, sizeof(b), ns), LWC);
}

/* A count in @width columns; compact: "12.3k" in @cwidth. */
static void add_cnt(struct richstr *rs, uint64_t v, int width, int cwidth, bool compact)
{
	char b[32];

	if (!compact) {
		add_u64(rs, ROLE_DEFAULT, v, width);
		return;
	}
	richstr_add_right(rs, ROLE_DEFAULT, ui_fmt_count(b, sizeof(b), v), cwidth);
}

/*
 * The columns of a timerlat group: cur, min, avg, max; in the narrow layout
 * the thread's cur, avg and max (what the sort keys read) and the others' avg
 * and max.
 */
static bool lat_col_shown(bool compact, bool thread, int col)
{
	return !compact || col >= 2 || (thread && col == 0);
}

/* " |" and a group of latency columns: @first cur, min, avg, max; @sort: which sorts. */
static void lat_group_header(struct richstr *rs, const char *name, bool sort, enum ui_lat_sort s,
			     bool compact)
{
	static const char *const col[] = { "cur", "min", "avg", "max" };
	static const enum ui_lat_sort by[] = {
		UI_LAT_SORT_CUR, UI_LAT_SORT_NR, UI_LAT_SORT_AVG, UI_LAT_SORT_MAX,
	};
	bool named = false;

	richstr_add(rs, ROLE_COLHDR, " |");
	for (int i = 0; i < 4; i++) {
		char b[16];

		if (!lat_col_shown(compact, sort, i))
			continue;
		/* the group's name on its first column: "Thr cur", "IRQ avg" */
		snprintf(b, sizeof(b), "%s%s%s", named ? "" : name, named ? "" : " ", col[i]);
		named = true;
		richstr_add_right(rs, sort && s == by[i] ? ROLE_COLHDR_SORT : ROLE_COLHDR, b,
				  compact ? LWC : LW);
	}
}

void ui_fmt_lat_header(struct richstr *rs, enum latency_table t, bool user, enum ui_lat_sort s,
		       bool compact)
{
#define H(col, text, w) richstr_add_right(rs, s == (col) ? ROLE_COLHDR_SORT : ROLE_COLHDR, \
					  text, w)
	richstr_clear(rs);
	H(UI_LAT_SORT_CPU, "CPU", compact ? 3 : 5);
	H(UI_LAT_SORT_COUNT, "samples", compact ? 8 : 9);
	if (t == LATENCY_TABLE_TIMERLAT) {
		lat_group_header(rs, "IRQ", false, s, compact);
		lat_group_header(rs, "Thr", true, s, compact);
		if (user)
			lat_group_header(rs, "Usr", false, s, compact);
		if (!compact)
			richstr_add(rs, ROLE_COLHDR, "  (us)");
		return;
	}
	richstr_add_right(rs, ROLE_COLHDR, compact ? "runtime" : "runtime us", compact ? 9 : 14);
	H(UI_LAT_SORT_AVG, compact ? "noise" : "noise us", compact ? 9 : 12);
	H(UI_LAT_SORT_CUR, "% avail", compact ? 8 : 10);
	H(UI_LAT_SORT_MAX, "max single", compact ? 11 : 12);
	richstr_add_right(rs, ROLE_COLHDR, "HW", compact ? 6 : 7);
	richstr_add_right(rs, ROLE_COLHDR, "NMI", compact ? 6 : 7);
	richstr_add_right(rs, ROLE_COLHDR, "IRQ", compact ? 6 : 8);
	richstr_add_right(rs, ROLE_COLHDR, "SIRQ", compact ? 6 : 8);
	richstr_add_right(rs, ROLE_COLHDR, "THREAD", compact ? 7 : 8);
#undef H
}

int ui_lat_width(enum latency_table t, bool user, bool compact)
{
	struct richstr rs;

	ui_fmt_lat_header(&rs, t, user, UI_LAT_SORT_CPU, compact);
	return rs.len;
}

static void lat_stat(struct richstr *rs, const struct latency_stat *s, bool thread, bool compact)
{
	const uint64_t v[] = { s->cur, s->min, s->count ? s->sum / s->count : 0, s->max };

	richstr_add(rs, ROLE_DIM, " |");
	for (int i = 0; i < 4; i++) {
		if (!lat_col_shown(compact, thread, i))
			continue;
		if (!s->count)
			richstr_add_right(rs, ROLE_DIM, "-", compact ? LWC : LW);
		else
			add_lat(rs, i == 3 ? ROLE_WARN : ROLE_DEFAULT, v[i], compact);
	}
}

void ui_fmt_lat_row(struct richstr *rs, enum latency_table t, bool user,
		    const struct latency_row *row, bool compact)
{
	char b[32];

	richstr_clear(rs);
	if (row->cpu < 0)
		richstr_add_right(rs, ROLE_EVENT, "ALL", compact ? 3 : 5);
	else
		add_u64(rs, ROLE_CPU, (uint64_t)row->cpu, compact ? 3 : 5);
	if (t == LATENCY_TABLE_TIMERLAT) {
		/* samples: the timer activations, counted in IRQ context */
		add_cnt(rs, row->tl[LATENCY_TL_IRQ].count, 9, 8, compact);
		lat_stat(rs, &row->tl[LATENCY_TL_IRQ], false, compact);
		lat_stat(rs, &row->tl[LATENCY_TL_THREAD], true, compact);
		if (user)
			lat_stat(rs, &row->tl[LATENCY_TL_USER], false, compact);
		return;
	}
	add_cnt(rs, row->os_samples, 9, 8, compact);
	if (compact) {
		add_lat(rs, ROLE_DEFAULT, row->os_runtime, true);
		add_lat(rs, ROLE_DEFAULT, row->os_noise, true);
	} else {
		add_us(rs, ROLE_DEFAULT, row->os_runtime, 14);
		add_us(rs, ROLE_DEFAULT, row->os_noise, 12);
	}
	snprintf(b, sizeof(b), "%u.%04u", row->os_avail_ppm / 10000, row->os_avail_ppm % 10000);
	richstr_add_right(rs, ROLE_DEFAULT, b, compact ? 8 : 10);
	if (compact)
		richstr_add_right(rs, ROLE_WARN, ui_fmt_dur(b, sizeof(b), row->os_max_single), 11);
	else
		add_us(rs, ROLE_WARN, row->os_max_single, 12);
	add_cnt(rs, row->hw, 7, 6, compact);
	add_cnt(rs, row->nmi, 7, 6, compact);
	add_cnt(rs, row->irq, 8, 6, compact);
	add_cnt(rs, row->softirq, 8, 6, compact);
	add_cnt(rs, row->thread, 8, 7, compact);
}

uint64_t ui_lat_sort_key(enum latency_table t, const struct latency_row *row, enum ui_lat_sort s)
{
	const struct latency_stat *th = &row->tl[LATENCY_TL_THREAD];
	bool tl = t == LATENCY_TABLE_TIMERLAT;

	switch (s) {
	case UI_LAT_SORT_MAX:
		return tl ? th->max : row->os_max_single;
	case UI_LAT_SORT_AVG:
		return tl ? (th->count ? th->sum / th->count : 0) : row->os_noise;
	case UI_LAT_SORT_CUR:
		return tl ? th->cur : 1000000u - row->os_avail_ppm;
	case UI_LAT_SORT_COUNT:
		return tl ? row->tl[LATENCY_TL_IRQ].count : row->os_samples;
	default:
		return UINT64_MAX - (uint64_t)(row->cpu + 1);
	}
}

void ui_fmt_spark(struct richstr *rs, const uint64_t *v, int n)
{
	static const char lv[] = " .:-=+*#%@";
	uint64_t max = 0;

	for (int i = 0; i < n; i++)
		if (v[i] > max)
			max = v[i];
	for (int i = 0; i < n; i++) {
		char c[2] = { ' ', 0 };

		/* any sample shows: 1..9 of the 9 marks */
		if (v[i] && max)
			c[0] = lv[1 + (int)((v[i] * 8 + max - 1) / max)];
		richstr_add(rs, c[0] == '@' ? ROLE_WARN : ROLE_BAR, c);
	}
}

void ui_fmt_hist_row(struct richstr *rs, uint64_t lo, uint64_t hi, uint64_t count,
		     uint64_t max, int width)
{
	char a[32], b[32];
	int bar;

	richstr_clear(rs);
	us3(a, sizeof(a), lo);
	if (hi == UINT64_MAX)
		snprintf(b, sizeof(b), "inf");
	else
		us3(b, sizeof(b), hi);
	richstr_add_right(rs, ROLE_DIM, a, 12);
	richstr_add(rs, ROLE_DIM, " - ");
	richstr_add_right(rs, ROLE_DIM, b, 12);
	richstr_add(rs, ROLE_DIM, " us");
	add_u64(rs, ROLE_DEFAULT, count, 10);
	richstr_add(rs, ROLE_DEFAULT, " ");
	bar = max && width > 0 ? (int)((count * (uint64_t)width + max - 1) / max) : 0;
	for (int i = 0; i < bar && rs->len < RICHSTR_MAX; i++)
		richstr_add(rs, ROLE_BAR, "#");
}
