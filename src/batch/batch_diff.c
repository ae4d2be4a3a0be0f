// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --batch and --json of ktop -i BASE --diff NEW: the diff's tables
 * (src/diff/diff.h) as text or as one JSON object, once for two recordings,
 * every --interval for a live NEW.
 *
 * Text: a header naming both sides (file, length, CPUs, events, kernel),
 * the notes, then per table its rows by the largest change: BASE, NEW, the
 * delta and the ratio of the table's first figure, NEW's other figures with
 * their deltas, and the row's name. JSON: {"diff": {"base": {...}, "new":
 * {...}, "notes": [...], "events": [{"event", "status", "base_per_s",
 * "new_per_s", "delta_per_s", "ratio"}, ...], "tasks": [...], ...}}, each
 * figure of a row as base_X, new_X, delta_X; null where a figure is unknown
 * (the ratio when BASE's is 0).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "batch-local.h"
#include "batch.h"
#include "diff/diff.h"
#include "kernel/session.h"
#include "lib/clock.h"
#include "lib/jsonw.h"

#define DIFF_TEXT_ROWS	20	/* rows per table in the text */
#define DIFF_TEXT_HIST	64
#define DIFF_JSON_ROWS	1000

/* The tables in the order they print. */
static const enum diff_kind order[] = {
	DIFF_EVENTS, DIFF_TASKS, DIFF_CPUS, DIFF_SYSCALLS, DIFF_FUNCS, DIFF_PATHS, DIFF_LATENCY,
	DIFF_AGG, DIFF_HIST, DIFF_STACKS, DIFF_CONNS, DIFF_DROPS, DIFF_BPF,
};

/* ---- text ---------------------------------------------------------------------------- */

static void text_side(FILE *o, const char *what, const struct diff_side_info *s)
{
	fprintf(o, "%-5s %s: %.3f s, %u CPUs, %" PRIu64 " events", what, s->name, s->secs,
		s->ncpus, s->events);
	if (s->lost)
		fprintf(o, ", %" PRIu64 " lost", s->lost);
	if (s->release[0])
		fprintf(o, ", kernel %s", s->release);
	if (s->tracer[0])
		fprintf(o, ", tracer %s", s->tracer);
	if (s->loading)
		fputs(" (still being read)", o);
	fputc('\n', o);
}

static const char *label_head(const struct diff_table *t)
{
	switch (t->kind) {
	case DIFF_TASKS:
		return "     PID  COMM";
	case DIFF_CPUS:
		return "CPU";
	case DIFF_LATENCY:
		return "CPU  SERIES";
	case DIFF_HIST:
		return "SERIES           BUCKET";
	case DIFF_EVENTS:
		return "EVENT";
	case DIFF_SYSCALLS:
		return "SYSCALL";
	case DIFF_FUNCS:
		return "FUNCTION";
	case DIFF_PATHS:
		return "CALL PATH";
	case DIFF_STACKS:
		return "STACK (root first)";
	case DIFF_CONNS:
		return "CONNECTION";
	case DIFF_DROPS:
		return "REASON";
	case DIFF_AGG:
		return "MEASURE [KEY]";
	default:
		return "FIGURE";
	}
}

static void text_table(FILE *o, struct diff *d, enum diff_kind k)
{
	const struct diff_table *t = diff_table(d, k);
	size_t max = k == DIFF_HIST ? DIFF_TEXT_HIST : DIFF_TEXT_ROWS, shown = 0;
	const struct diff_col *c0 = &t->cols[0];
	uint32_t *ord;
	char b[4][40];
	size_t same = 0;

	if (!t->have[DIFF_BASE] && !t->have[DIFF_NEW])
		return;
	fprintf(o, "\n%s: per second of each recording's length, %s; other columns NEW "
		"(+delta)\n", t->title, t->kind == DIFF_HIST ? "in bucket order" :
		"by the largest change");
	if (t->note[0])
		fprintf(o, "  %s\n", t->note);
	fprintf(o, "%12s %12s %12s %7s", "BASE", "NEW", "DELTA", "RATIO");
	/* the first figure's name with the key's heading, at the end */
	for (unsigned int c = 1; c < t->ncols; c++)
		fprintf(o, " %18s", t->cols[c].head);
	fprintf(o, "  %s  [%s]\n", label_head(t), c0->head);
	ord = malloc((t->n ? t->n : 1) * sizeof(*ord));
	if (!ord)
		return;
	diff_sort_rows(t, k == DIFF_HIST ? DIFF_SORT_ORDER : DIFF_SORT_CHANGE, 0, ord);
	for (size_t i = 0; i < t->n; i++) {
		const struct diff_row *r = &t->rows[ord[i]];
		char label[600];

		if (diff_row_same(t, r))
			same++;
		if (shown == max)
			continue;
		shown++;
		fprintf(o, "%12s %12s %12s %7s",
			diff_fmt(b[0], sizeof(b[0]), c0->unit, r->v[DIFF_BASE][0], false),
			diff_fmt(b[1], sizeof(b[1]), c0->unit, r->v[DIFF_NEW][0], false),
			diff_fmt(b[2], sizeof(b[2]), c0->unit, diff_delta(r, 0), true),
			diff_fmt_ratio(b[3], sizeof(b[3]), r, 0));
		for (unsigned int c = 1; c < t->ncols; c++) {
			char cell[64];

			double dl = diff_delta(r, c);

			diff_fmt(b[0], sizeof(b[0]), t->cols[c].unit, r->v[DIFF_NEW][c], false);
			if (dl == 0 || isnan(dl))
				snprintf(cell, sizeof(cell), "%s", b[0]);
			else
				snprintf(cell, sizeof(cell), "%s %s", b[0],
					 diff_fmt(b[1], sizeof(b[1]), t->cols[c].unit, dl, true));
			fprintf(o, " %18s", cell);
		}
		diff_row_name(t, r, DIFF_NAME_TEXT, label, sizeof(label));
		fprintf(o, "  %s\n", label);
	}
	if (t->n > shown)
		fprintf(o, "  ... %zu more (--json lists up to %d)\n", t->n - shown,
			DIFF_JSON_ROWS);
	if (same == t->n && t->n)
		fputs("  (no change)\n", o);
	free(ord);
}

static void diff_text(FILE *o, struct diff *d, long iteration)
{
	struct diff_side_info s[DIFF_NSIDES];
	const char *notes[8];
	unsigned int nn;

	diff_side(d, DIFF_BASE, &s[0]);
	diff_side(d, DIFF_NEW, &s[1]);
	fprintf(o, "ktop %s - diff%s\n", KTOP_VERSION, s[1].live ? "" : " of two recordings");
	if (s[1].live)
		fprintf(o, "summary %ld: the live session so far against the baseline\n",
			iteration);
	text_side(o, "BASE", &s[0]);
	text_side(o, "NEW", &s[1]);
	nn = diff_notes(d, notes, 8);
	for (unsigned int i = 0; i < nn && i < 8; i++)
		fprintf(o, "Note: %s\n", notes[i]);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		text_table(o, d, order[i]);
	fputc('\n', o);
}

/* ---- JSON ---------------------------------------------------------------------------- */

static void json_side(struct jsonw *w, const char *key, const struct diff_side_info *s)
{
	jsonw_key(w, key);
	jsonw_obj_open(w);
	jsonw_kv_str(w, "file", s->name);
	jsonw_kv_bool(w, "live", s->live);
	jsonw_kv_double(w, "secs", s->secs, 6);
	jsonw_kv_u64(w, "cpus", s->ncpus);
	jsonw_kv_u64(w, "events", s->events);
	jsonw_kv_u64(w, "lost", s->lost);
	jsonw_kv_str(w, "kernel", s->release);
	jsonw_kv_str(w, "tracer", s->tracer);
	jsonw_kv_bool(w, "loading", s->loading);
	jsonw_obj_close(w);
}

static void json_stem(struct jsonw *w, const char *pre, const char *stem, double v)
{
	char key[64];

	snprintf(key, sizeof(key), "%s_%s", pre, stem);
	jsonw_kv_double(w, key, v, 6);
}

static void json_row(struct jsonw *w, const struct diff_table *t, const struct diff_row *r)
{
	static const char *const status[] = { "", "gone", "new", "both" };

	jsonw_obj_open(w);
	switch (t->kind) {
	case DIFF_TASKS:
		jsonw_kv_str(w, "comm", r->name);
		jsonw_kv_i64(w, "pid", r->pid[DIFF_NEW] >= 0 ? r->pid[DIFF_NEW] : r->pid[DIFF_BASE]);
		jsonw_kv_i64(w, "base_pid", r->pid[DIFF_BASE]);
		jsonw_kv_i64(w, "new_pid", r->pid[DIFF_NEW]);
		jsonw_kv_u64(w, "base_threads", r->ntasks[DIFF_BASE]);
		jsonw_kv_u64(w, "new_threads", r->ntasks[DIFF_NEW]);
		break;
	case DIFF_CPUS:
		if (r->cpu >= 0)
			jsonw_kv_i64(w, "cpu", r->cpu);
		else
			jsonw_kv_str(w, "cpu", "all");
		break;
	case DIFF_LATENCY:
		jsonw_kv_str(w, "series", r->name);
		if (r->cpu >= 0)
			jsonw_kv_i64(w, "cpu", r->cpu);
		else
			jsonw_kv_str(w, "cpu", "all");
		break;
	case DIFF_HIST:
		jsonw_kv_str(w, "series", r->name);
		jsonw_kv_u64(w, "lo_ns", r->lo);
		if (r->hi == UINT64_MAX) {
			jsonw_key(w, "hi_ns");
			jsonw_null(w);
		} else {
			jsonw_kv_u64(w, "hi_ns", r->hi);
		}
		break;
	default:
		jsonw_kv_str(w, t->key, r->name);
		break;
	}
	jsonw_kv_str(w, "status", status[r->in & 3]);
	for (unsigned int c = 0; c < t->ncols; c++) {
		json_stem(w, "base", t->cols[c].json, r->v[DIFF_BASE][c]);
		json_stem(w, "new", t->cols[c].json, r->v[DIFF_NEW][c]);
		json_stem(w, "delta", t->cols[c].json, diff_delta(r, c));
		if (!c)
			jsonw_kv_double(w, "ratio", diff_ratio(r, 0), 6);
	}
	jsonw_obj_close(w);
}

static void json_table(struct jsonw *w, struct diff *d, enum diff_kind k, uint64_t *more)
{
	const struct diff_table *t = diff_table(d, k);
	uint32_t *ord = malloc((t->n ? t->n : 1) * sizeof(*ord));
	size_t n = t->n < DIFF_JSON_ROWS ? t->n : DIFF_JSON_ROWS;

	*more = t->n - n;
	jsonw_key(w, t->name);
	jsonw_arr_open(w);
	if (ord) {
		diff_sort_rows(t, k == DIFF_HIST ? DIFF_SORT_ORDER : DIFF_SORT_CHANGE, 0, ord);
		for (size_t i = 0; i < n; i++)
			json_row(w, t, &t->rows[ord[i]]);
	}
	jsonw_arr_close(w);
	free(ord);
}

static int diff_json(FILE *o, struct diff *d, long iteration)
{
	struct diff_side_info s[DIFF_NSIDES];
	uint64_t more[sizeof(order) / sizeof(order[0])];
	const char *notes[8];
	struct jsonw w;
	unsigned int nn;

	diff_side(d, DIFF_BASE, &s[0]);
	diff_side(d, DIFF_NEW, &s[1]);
	jsonw_init_file(&w, o);
	jsonw_obj_open(&w);
	jsonw_key(&w, "diff");
	jsonw_obj_open(&w);
	if (s[1].live)
		jsonw_kv_i64(&w, "summary", iteration);
	json_side(&w, "base", &s[0]);
	json_side(&w, "new", &s[1]);
	nn = diff_notes(d, notes, 8);
	jsonw_key(&w, "notes");
	jsonw_arr_open(&w);
	for (unsigned int i = 0; i < nn && i < 8; i++)
		jsonw_str(&w, notes[i]);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		const struct diff_table *t = diff_table(d, order[i]);
		char buf[400];

		if (!t->note[0] || (!t->have[0] && !t->have[1] && !t->n))
			continue;
		snprintf(buf, sizeof(buf), "%s: %s", t->name, t->note);
		jsonw_str(&w, buf);
	}
	jsonw_arr_close(&w);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		json_table(&w, d, order[i], &more[i]);
	jsonw_key(&w, "more");
	jsonw_obj_open(&w);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (more[i])
			jsonw_kv_u64(&w, diff_kind_name(order[i]), more[i]);
	jsonw_obj_close(&w);
	jsonw_obj_close(&w);
	jsonw_obj_close(&w);
	if (jsonw_finish(&w))
		return -EIO;
	fputc('\n', o);
	return 0;
}

/* ---- the loop ------------------------------------------------------------------------- */

static int diff_folded(struct app *new, struct diff *d)
{
	const char *path = new->opts.output;
	enum diff_stack_src src = new->opts.folded && !strcmp(new->opts.folded, "graph") ?
				  DIFF_STACK_GRAPH : DIFF_STACK_EVENTS;
	char err[512] = "";
	int ret;

	if (!path)
		return 0;
	ret = diff_save_folded(d, src, path, 0, err, sizeof(err));
	if (ret)
		fprintf(stderr, "ktop: %s\n", err[0] ? err : strerror(-ret));
	return ret ? 1 : 0;
}

int batch_diff_run(struct app *base, struct app *new, FILE *out)
{
	uint64_t interval = (uint64_t)(new->opts.interval * 1e9), end = 0, next;
	bool live = app_flags(new) & SOURCE_KERNEL;
	struct diff *d = diff_new(base, new);
	long iteration = 0;
	int status = 0;

	if (!d)
		return 1;
	if (!interval)
		interval = 1000000000ull;
	next = new->start_ns + interval;
	if (new->opts.duration > 0)
		end = new->start_ns + (uint64_t)(new->opts.duration * 1e9);
	for (;;) {
		bool last = !live, stopped = false;
		uint64_t now;

		if (live) {
			if (batch_wait(end && end < next ? end : next)) {
				int sig = session_signal_pending();

				if (sig != SIGINT && sig != SIGTERM)
					break;
				stopped = true;
			}
			now = clock_mono_ns();
			iteration++;
			last = stopped || (new->opts.iterations &&
					   iteration >= new->opts.iterations) || (end && now >= end);
			if (last)
				app_drain(new);
		} else {
			iteration++;
			now = clock_mono_ns();
		}
		diff_refresh(d);
		if (new->opts.json)
			status = diff_json(out, d, iteration) ? 1 : 0;
		else
			diff_text(out, d, iteration);
		if (fflush(out) || ferror(out)) {
			status = errno == EPIPE || errno == EINTR ? 0 : 1;
			break;
		}
		if (last) {
			status |= diff_folded(new, d);
			break;
		}
		next += interval;
		if (next <= now)
			next = now + interval;
	}
	diff_free(d);
	return status;
}
