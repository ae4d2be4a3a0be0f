// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The latency pane ("latency"): osnoise and timerlat. One row per CPU and a totals row, as rtla
 * top shows them (timerlat: IRQ, thread and user-return latency cur/min/avg/
 * max; osnoise: runtime, noise, % CPU available, max single noise and the
 * HW/NMI/IRQ/SIRQ/THREAD interference counts), sorted by a column; below,
 * the selected CPU's histogram (log2 or linear buckets) and a sparkline of
 * its max latency over time. Enter on a CPU opens the event list at that
 * CPU's worst sample with the window before it (the cause of the spike). T
 * sets a stop threshold: a sample above it freezes the view and the kernel's
 * recording (app_set_recording), so the context is kept. o switches the
 * tracer (app_switch_tracer).
 *
 * The A->B latencies (--latency, --sql, --hist; m adds one while it runs)
 * are the kernel's (src/agg/agg.h): one row per measure (pairs, rate, min,
 * mean, p50, p99, max, engine), below the selected one's log2 histogram as
 * bars, its worst pair (Enter: the events from its START to its END) and the
 * breakdown by its key. A switches between them and the per-CPU table; they
 * are shown first where there are any. The kernel counts every pair: the
 * view filter does not narrow them, and the pane says so.
 *
 * The model (src/model/latency.h) is fed here, on the UI thread, with only the
 * events published since the last frame. Without the tracers the pane says
 * why (CONFIG_OSNOISE_TRACER / CONFIG_TIMERLAT_TRACER, or EPERM).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agg/agg.h"
#include "app/app.h"
#include "lib/clock.h"
#include "lib/series.h"
#include "kernel/features.h"
#include "model/latency.h"
#include "rowsel.h"
#include "store/store.h"
#include "tracer_feed.h"
#include "tracer_rows.h"
#include "view/viewfilter.h"
#include "ui-local.h"
#include "pane_latency-local.h"

#define LAT_LAG_NS	(300ull * 1000 * 1000)	/* how far behind "now" a feed ends */
#define LAT_SPARK	120
#define LAT_FEED_NS	(20ull * 1000 * 1000)	/* feeding per frame, at most about */
#define AGG_END_SLACK	(200ull * 1000)	/* Enter: past a pair's END time */


static const int latency_features[] = { FEATURE_OSNOISE, FEATURE_TIMERLAT };

static struct latency *lat_new(enum latency_hist_mode mode)
{
	struct latency_config cfg = { .hist_mode = mode, .spark_len = LAT_SPARK };

	if (mode == LATENCY_HIST_LINEAR) {
		cfg.bucket_ns = 5000;	/* 5 us */
		cfg.nbuckets = 40;
	}
	return latency_new(&cfg);
}

static int latency_init(struct ui *ui, struct pane *p)
{
	struct lat_state *ls = p->priv;

	ls->l = lat_new(LATENCY_HIST_LOG2);
	ls->sel_cpu = -1;
	ls->pick = -1;
	ls->series = LATENCY_TL_THREAD;
	return ls->l ? 0 : -1;
}

static void latency_destroy(struct pane *p)
{
	struct lat_state *ls = p->priv;

	latency_free(ls->l);
}

/* A sample's latency in ns for the stop threshold (timerlat, osnoise max single). */
static uint64_t lat_sample_ns(const struct ktop_event *ev)
{
	if (ev->type == KTOP_T_TIMERLAT)
		return ev->args[2];
	if (ev->type == KTOP_T_OSNOISE)
		return ev->args[2] * 1000;	/* max_sample, us */
	return 0;
}

static void lat_stop(struct ui *ui, struct lat_state *ls, const struct ktop_event *ev)
{
	ls->stopped = true;
	ls->stop_at = (struct latency_worst){
		.valid = true, .cpu = ev->cpu, .value = lat_sample_ns(ev), .ts = ev->ts,
		.win_start = ev->ts > lat_sample_ns(ev) ? ev->ts - lat_sample_ns(ev) : 0,
		.win_end = ev->ts,
	};
	/* freeze the view, and the kernel's recording so that what led to it stays */
	ui_set_paused(ui, true);
	app_set_recording(ui->app, false);
	ui_message(ui, "latency %.3f us on CPU %d above the threshold: view and buffer frozen "
		   "(Enter: its cause; T: a new threshold resumes)", (double)ls->stop_at.value / 1e3,
		   ls->stop_at.cpu);
}

/*
 * Feed [ls->t0, t1] from one iterator (making one costs a seek on every CPU),
 * up to one sample above the stop threshold. Past the frame's budget it stops
 * between two timestamps, so that ls->t0, the first time not fed, leaves
 * nothing half fed.
 */
static void lat_feed_window(struct ui *ui, struct lat_state *ls, uint64_t t1, uint64_t t_in)
{
	struct viewfilter *vf = ui_view(ui);
	struct store_iter *it;
	struct ktop_event ev;
	uint64_t seq, last = 0, n = 0;
	bool over = false;

	it = store_iter_new(ui->st, ls->t0, t1, NULL);
	if (!it)
		return;
	ls->t0 = t1 + 1;
	while (store_iter_next(it, &ev, &seq)) {
		if (ev.ts != last && over) {
			ls->t0 = ev.ts;
			ui->dirty = true;	/* the rest next frame */
			break;
		}
		last = ev.ts;
		if (!(++n & 255) && clock_thread_ns() - t_in > LAT_FEED_NS)
			over = true;
		if (vf && !viewfilter_match(vf, &ev))
			continue;
		if (latency_feed(ls->l, &ev) < 0)
			break;
		if (ls->stop_ns && lat_sample_ns(&ev) > ls->stop_ns) {
			ls->t0 = ev.ts + 1;
			lat_stop(ui, ls, &ev);
			break;
		}
	}
	store_iter_free(it);
}

/* Feed what was published since the last call, within a budget. */
static void lat_feed(struct ui *ui, struct lat_state *ls)
{
	uint64_t t1, t_in = clock_thread_ns();

	if (ls->view_gen != ui_view_gen(ui)) {
		/* another view: the samples of the events it matches, fed again */
		struct latency *nl = lat_new(ls->mode);

		if (nl) {
			latency_free(ls->l);
			ls->l = nl;
			ls->t0 = ls->switched ? ls->t0 : 0;
		}
		ls->view_gen = ui_view_gen(ui);
	}
	if (ls->stopped || (ui->paused && ls->t0))
		return;
	/* a live run without these tracers has no samples to read */
	if ((app_flags(ui->app) & SOURCE_GROWS) && strcmp(app_tracer(ui->app), "timerlat") &&
	    strcmp(app_tracer(ui->app), "osnoise"))
		return;
	t1 = ui_feed_window_end(ui, LAT_LAG_NS);
	if (ui_feed_clamp(ui, &ls->t0, &t1))
		lat_feed_window(ui, ls, t1, t_in);
}

/* Does the model hold samples of table @t? */
static bool lat_has(struct lat_state *ls, enum latency_table t)
{
	struct latency_row all;

	if (latency_row(ls->l, -1, &all))
		return false;
	if (t == LATENCY_TABLE_TIMERLAT)
		return all.tl[LATENCY_TL_IRQ].count || all.tl[LATENCY_TL_THREAD].count;
	return all.os_samples;
}

/*
 * Which table: the one o picked where there is no kernel to switch (a
 * recording, a stream), else the tracer of this run, else what the samples
 * held say (timerlat first).
 */
static bool lat_table(struct ui *ui, struct lat_state *ls, enum latency_table *t)
{
	const char *tr = app_tracer(ui->app);

	if (ls->pick >= 0 && lat_has(ls, (enum latency_table)ls->pick)) {
		*t = (enum latency_table)ls->pick;
		return true;
	}
	if (!strcmp(tr, "timerlat")) {
		*t = LATENCY_TABLE_TIMERLAT;
		return true;
	}
	if (!strcmp(tr, "osnoise")) {
		*t = LATENCY_TABLE_OSNOISE;
		return true;
	}
	if (lat_has(ls, LATENCY_TABLE_TIMERLAT)) {
		*t = LATENCY_TABLE_TIMERLAT;
		return true;
	}
	if (lat_has(ls, LATENCY_TABLE_OSNOISE)) {
		*t = LATENCY_TABLE_OSNOISE;
		return true;
	}
	return false;
}

/*
 * o without a kernel to switch: show the other tracer's samples of what is
 * held, when there are any (a recording may hold both tracers' records).
 */
static void lat_switch_view(struct ui *ui, struct lat_state *ls)
{
	enum latency_table t, to;

	if (!lat_table(ui, ls, &t)) {
		ui_message(ui, "no osnoise or timerlat samples held");
		return;
	}
	to = t == LATENCY_TABLE_TIMERLAT ? LATENCY_TABLE_OSNOISE : LATENCY_TABLE_TIMERLAT;
	if (!lat_has(ls, to)) {
		ui_message(ui, "no %s samples held: %s only", to == LATENCY_TABLE_OSNOISE ?
			   "osnoise" : "timerlat", t == LATENCY_TABLE_OSNOISE ? "osnoise" :
			   "timerlat");
		return;
	}
	ls->pick = (int)to;
	ui_message(ui, "the %s samples held (o: the %s ones)", to == LATENCY_TABLE_OSNOISE ?
		   "osnoise" : "timerlat", t == LATENCY_TABLE_OSNOISE ? "osnoise" : "timerlat");
}

/*
 * o: timerlat <-> osnoise in ktop's instance while tracing goes on. A marker
 * in the trace separates the two; the table starts again from the switch
 * (the session's clock is CLOCK_MONOTONIC, as clock_mono_ns()), since the rows
 * of one tracer mean nothing to the other.
 */
static void lat_switch(struct ui *ui, struct lat_state *ls)
{
	const char *to = !strcmp(app_tracer(ui->app), "timerlat") ? "osnoise" : "timerlat";
	struct latency *nl;
	char err[256], text[96], from[32];
	int ret;

	/* a copy: the name of the app's tracer changes with the switch */
	snprintf(from, sizeof(from), "%s", app_tracer(ui->app));
	if (ls->stopped) {
		ui_message(ui, "stopped at the threshold: T resumes first");
		return;
	}
	ret = app_switch_tracer(ui->app, to, err, sizeof(err));
	if (ret == -ENODEV) {
		lat_switch_view(ui, ls);
		return;
	}
	if (ret) {
		ui_message(ui, "%s", err);
		return;
	}
	snprintf(text, sizeof(text), "ktop: tracer %s -> %s", from, to);
	if (app_mark(ui->app, text))
		ui_message(ui, "tracer: %s (was %s); no marker in the trace", to, from);
	else
		ui_message(ui, "tracer: %s (was %s); the table starts from here", to, from);
	nl = lat_new(ls->mode);
	if (nl) {
		latency_free(ls->l);
		ls->l = nl;
	}
	ls->t0 = clock_mono_ns();
	ls->switched = true;
}

static bool lat_user(struct lat_state *ls)
{
	struct latency_row all;

	return !latency_row(ls->l, -1, &all) && all.tl[LATENCY_TL_USER].count;
}

/* What the rows are sorted by: the table and the pane's model and sort key. */
struct row_order {
	enum latency_table	table;
	const struct lat_state	*ls;
};

static int row_cmp(const void *a, const void *b, void *arg)
{
	const struct row_order *o = arg;
	struct latency_row ra, rb;
	uint64_t ka, kb;

	latency_row(o->ls->l, *(const int *)a, &ra);
	latency_row(o->ls->l, *(const int *)b, &rb);
	ka = ui_lat_sort_key(o->table, &ra, o->ls->sort);
	kb = ui_lat_sort_key(o->table, &rb, o->ls->sort);
	if (ka != kb)
		return ka > kb ? -1 : 1;
	return *(const int *)a - *(const int *)b;
}

/* The rows: "ALL" first, then the CPUs with samples in sort order. */
static void lat_rows(struct lat_state *ls, enum latency_table t)
{
	unsigned int n = latency_ncpus(ls->l);

	ls->nrows = 0;
	ls->rows[ls->nrows++] = -1;
	for (unsigned int c = 0; c < n && c < LAT_MAX_CPUS; c++)
		if (latency_cpu_seen(ls->l, c))
			ls->rows[ls->nrows++] = (int)c;
	qsort_r(ls->rows + 1, (size_t)ls->nrows - 1, sizeof(int), row_cmp,
		&(struct row_order){ .table = t, .ls = ls });
	/* the selection follows its CPU through re-sorting */
	for (int i = 0; i < ls->nrows; i++)
		if (ls->rows[i] == ls->sel_cpu)
			ls->sel = i;
	if (ls->sel >= ls->nrows)
		ls->sel = ls->nrows - 1;
	ls->sel_cpu = ls->rows[ls->sel];
}

static const char *series_name(enum latency_series s)
{
	static const char *const names[LATENCY_NSERIES] = {
		[LATENCY_TL_IRQ] = "IRQ latency", [LATENCY_TL_THREAD] = "thread latency",
		[LATENCY_TL_USER] = "user-return latency",
		[LATENCY_OS_SAMPLE] = "max single noise per period", [LATENCY_OS_NOISE] = "noise",
	};

	return s < LATENCY_NSERIES ? names[s] : "noise";
}

/* A time stamp as the event list prints it: seconds, microseconds rounded. */
static const char *ts_str(char *buf, size_t len, uint64_t ns)
{
	uint64_t us = (ns + 500) / 1000;

	snprintf(buf, len, "%" PRIu64 ".%06" PRIu64, us / 1000000u, us % 1000000u);
	return buf;
}

static void lat_unavailable(struct ui *ui, int y, int h, int w)
{
	const struct features *ft = &ui->app->ft;
	bool avail = ft->f[FEATURE_OSNOISE].state == FEAT_AVAILABLE ||
		     ft->f[FEATURE_TIMERLAT].state == FEAT_AVAILABLE;

	ui_draw_unavailable(ui, y, h, w, "OS noise and timer latency",
			    latency_features, (int)(sizeof(latency_features) / sizeof(int)),
			    avail ? "This run does not trace osnoise or timerlat and no samples "
				    "are held: start ktop with -p timerlat or -p osnoise to see the "
				    "per-CPU latency table, histograms and the jump to a spike's "
				    "cause here. m measures an A->B latency in the kernel (A: "
				    "those)." :
				    "The per-CPU latency table, histograms and the jump from a "
				    "spike to its cause need the osnoise or timerlat tracer: a "
				    "kernel with CONFIG_OSNOISE_TRACER / CONFIG_TIMERLAT_TRACER "
				    "(Debian's -rt kernel has both). Everything else works without "
				    "them. m measures an A->B latency in the kernel (A: those).");
}

/*
 * How many adjacent buckets of [@first, @last] share a row of a histogram of
 * at most @rows rows: more buckets than rows, no sample left out.
 */
static int hist_group(int first, int last, int rows)
{
	if (first < 0)
		return 1;
	if (rows < 1)
		rows = 1;
	return last - first + 1 <= rows ? 1 : (last - first + rows) / rows;
}

/* Bucket @b's bounds in ns, of the histogram @arg (hist_draw). */
typedef void hist_bounds_fn(const void *arg, unsigned int b, uint64_t *lo, uint64_t *hi);

static void tracer_bounds(const void *arg, unsigned int b, uint64_t *lo, uint64_t *hi)
{
	latency_hist_bounds(arg, b, lo, hi);
}

/*
 * Buckets [@first, @last] of @hist as bars from row @y, @group to a row, at
 * most @rows rows; the groups end at the highest bucket, the lowest group may
 * be short. Return: rows drawn.
 */
static int hist_draw(struct ui *ui, const uint64_t *hist, int first, int last, int group,
		     hist_bounds_fn *bounds, const void *arg, int y, int rows, int w)
{
	uint64_t max = 0, lo, hi, x;
	struct richstr rs;
	int n = 0;

	first = last + 1 - group * ((last - first + group) / group);
	for (int i = first; i <= last; i += group) {
		uint64_t c = 0;

		for (int j = i < 0 ? 0 : i; j < i + group; j++)
			c += hist[j];
		if (c > max)
			max = c;
	}
	for (int i = first; i <= last && n < rows; i += group, n++) {
		uint64_t c = 0;

		for (int j = i < 0 ? 0 : i; j < i + group; j++)
			c += hist[j];
		bounds(arg, (unsigned int)(i < 0 ? 0 : i), &lo, &x);
		bounds(arg, (unsigned int)(i + group - 1), &x, &hi);
		ui_fmt_hist_row(&rs, lo, hi, c, max, w - 46);
		ui_draw_rs(&ui->screen, y + n, 0, &rs, w);
	}
	return n;
}

static void lat_draw_detail(struct ui *ui, struct lat_state *ls, int y, int h, int w)
{
	uint64_t spark[LAT_SPARK], hist[128];
	enum latency_series s = ls->series;
	int n, first, last, rows, avail, group;
	struct richstr rs;

	if (h < 1)
		return;
	if (h < 3) {
		ui_draw_text(&ui->screen, y, 0, ROLE_WARN,
			     "(the histogram and sparkline need 3 more rows)", w);
		return;
	}
	richstr_clear(&rs);
	richstr_addf(&rs, ROLE_EVENT, "%s, %s", ls->sel_cpu < 0 ? "all CPUs" : "CPU",
		     series_name(s));
	if (ls->sel_cpu >= 0)
		richstr_addf(&rs, ROLE_EVENT, " (CPU %d)", ls->sel_cpu);
	richstr_add(&rs, ROLE_DIM, "  max per second: ");
	n = latency_spark(ls->l, ls->sel_cpu, s, spark, LAT_SPARK, NULL);
	avail = w - rs.len - 2;
	if (avail < 0)
		avail = 0;
	if (n > avail) {
		/* the newest that fit */
		memmove(spark, spark + (n - avail), (size_t)avail * sizeof(spark[0]));
		n = avail;
	}
	if (n > 0)
		ui_fmt_spark(&rs, spark, n);
	ui_draw_rs(&ui->screen, y, 0, &rs, w);
	n = latency_hist(ls->l, ls->sel_cpu, s, hist, 128);
	series_hist_span(hist, n, &first, &last);
	rows = h - 2;
	group = hist_group(first, last, rows);
	richstr_clear(&rs);
	richstr_addf(&rs, ROLE_COLHDR, "histogram (%s buckets, b switches, v: series)",
		     ls->mode == LATENCY_HIST_LOG2 ? "log2" : "linear 5 us");
	if (group > 1)
		richstr_addf(&rs, ROLE_WARN, "  %d buckets a row", group);
	richstr_pad(&rs, ROLE_COLHDR, w);
	ui_draw_rs(&ui->screen, y + 1, 0, &rs, w);
	if (first < 0) {
		ui_draw_text(&ui->screen, y + 2, 2, ROLE_DIM, "no samples of this series", w - 2);
		return;
	}
	hist_draw(ui, hist, first, last, group, tracer_bounds, ls->l, y + 2, rows, w);
}

/* ---- the A->B latencies (src/agg/agg.h) ------------------------------------ */

static unsigned int agg_count(struct ui *ui)
{
	struct agg_set *s = app_agg(ui->app);

	return s ? agg_set_count(s) : 0;
}

/* The A->B section rather than the tracer's table? */
static bool agg_shown(struct ui *ui, struct lat_state *ls)
{
	if (ls->show != LAT_SHOW_AUTO)
		return ls->show == LAT_SHOW_AGG;
	return agg_count(ui) || ls->agg_err[0];
}

static void agg_cell(struct richstr *rs, enum ui_role role, uint64_t ns, int width)
{
	char b[24];

	richstr_add_right(rs, role, agg_fmt_ns(b, sizeof(b), ns), width);
}

/* Below this width a row leaves out RATE/s, MIN and P50, for the spec's sake. */
#define AGG_WIDE	120

static void agg_fmt_row(struct richstr *rs, const struct agg_result *r, bool narrow)
{
	char b[32];

	richstr_clear(rs);
	richstr_addf(rs, ROLE_DIM, "%3u ", r->idx);
	snprintf(b, sizeof(b), "%" PRIu64, r->count);
	richstr_add_right(rs, ROLE_DEFAULT, b, 10);
	if (!narrow) {
		snprintf(b, sizeof(b), "%.1f", r->rate);
		richstr_add_right(rs, ROLE_DEFAULT, b, 9);
	}
	if (r->kind == AGG_LATENCY && r->count) {
		if (!narrow)
			agg_cell(rs, ROLE_DEFAULT, r->min_ns, 9);
		agg_cell(rs, ROLE_DEFAULT, r->sum_ns / r->count, 9);
		if (!narrow)
			agg_cell(rs, ROLE_DEFAULT, agg_quantile(r, 0.5), 9);
		agg_cell(rs, ROLE_DEFAULT, agg_quantile(r, 0.99), 9);
		agg_cell(rs, ROLE_WARN, r->max_ns, 9);
	} else {
		richstr_add_right(rs, ROLE_DIM, r->kind == AGG_HIST ? "(counts)" : "-",
				  narrow ? 27 : 45);
	}
	richstr_addf(rs, ROLE_DIM, " %-5s ", r->engine ? r->engine : "?");
	richstr_add(rs, r->error[0] ? ROLE_ERROR : ROLE_EVENT, r->title);
}

/* How many adjacent buckets share a row of a histogram of at most @rows rows. */
static int agg_hist_group(const struct agg_result *r, int rows)
{
	int first, last;

	series_hist_span(r->bucket, AGG_BUCKETS, &first, &last);
	return hist_group(first, last, rows);
}

static void agg_bounds(const void *arg, unsigned int b, uint64_t *lo, uint64_t *hi)
{
	const struct agg_result *r = arg;

	agg_bucket_bounds(r->unit_ns, b, lo, hi);
}

/* The selected measure's log2 histogram, as bars: at most @rows rows. Return: rows drawn. */
static int agg_draw_hist(struct ui *ui, const struct agg_result *r, int y, int rows, int w)
{
	int first, last;

	if (!series_hist_span(r->bucket, AGG_BUCKETS, &first, &last) || rows < 1)
		return 0;
	return hist_draw(ui, r->bucket, first, last, hist_group(first, last, rows), agg_bounds, r,
			 y, rows, w);
}

/* The breakdown's orders: F6, >, Right the next, Left the previous. */
enum agg_sort { AGG_SORT_COUNT, AGG_SORT_VALUE, AGG_SORT_MAX, AGG_SORT_KEY, AGG_SORT_NR };

/* What a row of @r is sorted by; --hist has no MAX column (its value is a sum). */
static const char *agg_sort_name(const struct agg_result *r, int sort)
{
	switch (sort) {
	case AGG_SORT_VALUE:
		return r->kind == AGG_LATENCY ? "mean" : "sum";
	case AGG_SORT_MAX:
		return "max";
	case AGG_SORT_KEY:
		return "key";
	default:
		return r->kind == AGG_LATENCY ? "pairs" : "count";
	}
}

static int agg_row_cmp(const void *pa, const void *pb, void *arg)
{
	const struct agg_row *a = pa, *b = pb;
	const int *how = arg;	/* the sort, the measure's kind */
	uint64_t ka, kb;

	switch (how[0]) {
	case AGG_SORT_VALUE:
		/* a latency's mean, a --hist's sum */
		ka = how[1] == AGG_HIST ? a->sum : a->count ? a->sum / a->count : 0;
		kb = how[1] == AGG_HIST ? b->sum : b->count ? b->sum / b->count : 0;
		break;
	case AGG_SORT_MAX:
		ka = a->max;
		kb = b->max;
		break;
	case AGG_SORT_KEY:
		return strcmp(a->key, b->key);
	default:
		ka = a->count;
		kb = b->count;
		break;
	}
	if (ka != kb)
		return ka > kb ? -1 : 1;
	return strcmp(a->key, b->key);
}

/* The sort that applies to @r: a --hist without values has only count and key. */
static int agg_sort_of(const struct agg_result *r, int sort)
{
	if (r->kind == AGG_HIST && sort == AGG_SORT_MAX)
		return AGG_SORT_KEY;
	if (r->kind == AGG_HIST && sort == AGG_SORT_VALUE && !r->sum_ns)
		return AGG_SORT_KEY;
	return sort;
}

/* Below the list: the selected measure's worst pair, histogram and breakdown by key. */
static void agg_draw_detail(struct ui *ui, struct agg_result *r, int sort, int y, int h,
			    int w)
{
	struct richstr rs;
	char a[24], b[24], c[24];
	int hrows, n;

	if (h < 1)
		return;
	richstr_clear(&rs);
	if (r->error[0]) {
		richstr_addf(&rs, ROLE_ERROR, "%u: %s", r->idx, r->error);
		ui_draw_rs(&ui->screen, y++, 0, &rs, w);
		if (--h < 1)
			return;
		richstr_clear(&rs);
	}
	if (r->kind == AGG_LATENCY && !r->count) {
		richstr_addf(&rs, ROLE_DIM, "%u: no pairs yet (%" PRIu64 " START, %" PRIu64
			     " END records); %s: %s", r->idx, r->starts, r->ends, r->engine,
			     r->why);
		ui_draw_rs(&ui->screen, y, 0, &rs, w);
		return;
	}
	if (r->kind == AGG_LATENCY) {
		richstr_addf(&rs, ROLE_DEFAULT, "%u worst %s", r->idx,
			     agg_fmt_ns(a, sizeof(a), r->worst.lat_ns));
		richstr_addf(&rs, ROLE_DIM, ", %s %s", r->keynames, r->worst.key);
		if (r->worst.te_ns)
			richstr_addf(&rs, ROLE_DIM, ", END at %" PRIu64 ".%06" PRIu64
				     " (Enter: its events)", r->worst.te_ns / 1000000000u,
				     r->worst.te_ns % 1000000000u / 1000u);
		if (r->dropped)
			richstr_addf(&rs, ROLE_WARN, "  %" PRIu64 " pairs lost: the %s engine's "
				     "maps are full", r->dropped, r->engine);
		ui_draw_rs(&ui->screen, y, 0, &rs, w);
		richstr_clear(&rs);
		richstr_addf(&rs, ROLE_COLHDR, "histogram of %" PRIu64 " pairs (log2 buckets%s), "
			     "%s engine: %s", r->count, agg_hist_group(r, (h - 3) / 2) > 1 ?
			     ", several a row" : "", r->engine, r->why);
		richstr_pad(&rs, ROLE_COLHDR, w);
		ui_draw_rs(&ui->screen, y + 1, 0, &rs, w);
		/* the histogram takes at most half of what is left, the keys the rest */
		hrows = (h - 3) / 2;
		if (hrows < 1)
			hrows = 1;
		n = agg_draw_hist(ui, r, y + 2, hrows, w);
		y += 2 + n;
		h -= 2 + n;
	} else {
		richstr_addf(&rs, ROLE_DEFAULT, "%u: %" PRIu64 " events by %s", r->idx, r->count,
			     r->keynames);
		if (r->dropped)
			richstr_addf(&rs, ROLE_WARN, "  %" PRIu64 " left out: the %s engine's maps "
				     "are full", r->dropped, r->engine);
		ui_draw_rs(&ui->screen, y++, 0, &rs, w);
		h--;
	}
	if (h < 2)
		return;
	{
		int arg[2] = { agg_sort_of(r, sort), r->kind };

		qsort_r(r->rows, r->nrows, sizeof(*r->rows), agg_row_cmp, arg);
		sort = arg[0];
	}
	richstr_clear(&rs);
	if (r->kind == AGG_LATENCY)
		richstr_addf(&rs, ROLE_COLHDR, "%10s %9s %9s  %s", sort == AGG_SORT_COUNT ?
			     "PAIRS v" : "PAIRS", sort == AGG_SORT_VALUE ? "MEAN v" : "MEAN",
			     sort == AGG_SORT_MAX ? "MAX v" : "MAX", r->keynames);
	else
		richstr_addf(&rs, ROLE_COLHDR, "%10s %14s  %s", sort == AGG_SORT_COUNT ?
			     "COUNT v" : "COUNT", !r->sum_ns ? "" : sort == AGG_SORT_VALUE ?
			     "SUM v" : "SUM", r->keynames);
	if (sort == AGG_SORT_KEY)
		richstr_add(&rs, ROLE_COLHDR, " ^");
	richstr_addf(&rs, ROLE_COLHDR, "  (by %s; F6 > < sort)", agg_sort_name(r, sort));
	if (r->keys_dropped)
		richstr_addf(&rs, ROLE_WARN, "  (%" PRIu64 " pairs not here: the breakdown's map "
			     "is full)", r->keys_dropped);
	richstr_pad(&rs, ROLE_COLHDR, w);
	ui_draw_rs(&ui->screen, y, 0, &rs, w);
	for (size_t i = 0; i < r->nrows && (int)i < h - 1; i++) {
		const struct agg_row *k = &r->rows[i];

		richstr_clear(&rs);
		if (r->kind == AGG_LATENCY)
			richstr_addf(&rs, ROLE_DEFAULT, "%10" PRIu64 " %9s %9s  ", k->count,
				     agg_fmt_ns(b, sizeof(b), k->count ? k->sum / k->count : 0),
				     agg_fmt_ns(c, sizeof(c), k->max));
		else if (r->sum_ns)
			richstr_addf(&rs, ROLE_DEFAULT, "%10" PRIu64 " %14" PRIu64 "  ", k->count,
				     k->sum);
		else
			richstr_addf(&rs, ROLE_DEFAULT, "%10" PRIu64 " %14s  ", k->count, "");
		richstr_add(&rs, ROLE_TASK, k->key);
		ui_draw_rs(&ui->screen, y + 1 + (int)i, 0, &rs, w);
	}
}

/* The text that says how to measure: the A->B section without a measure. */
static void agg_draw_none(struct ui *ui, int y, int h, int w)
{
	static const char *const lines[] = {
		"No A->B latency is measured in the kernel yet.",
		"",
		"m: measure one while ktop runs, e.g.",
		"     sched:sched_waking -> sched:sched_switch on pid = next_pid",
		"   (START -> END [on START_FIELD = END_FIELD] [where FILTER], as --latency):",
		"   the kernel pairs each END with the latest START of its key and keeps the",
		"   histogram (hist triggers and a synthetic event, or a BPF program where the",
		"   kernel has none); no event comes to ktop for it.",
		"A: the osnoise/timerlat table.",
	};

	for (int i = 0; i < (int)(sizeof(lines) / sizeof(lines[0])) && i < h; i++)
		ui_draw_text(&ui->screen, y + i, 2, i ? ROLE_DIM : ROLE_DEFAULT, lines[i], w - 2);
}

/* How many lines what m refused takes (at most 3). */
static int agg_err_lines(const struct lat_state *ls)
{
	int n = 0;

	for (const char *p = ls->agg_err; *p && n < 3; n++) {
		p += strcspn(p, "\n");
		p += *p == '\n';
	}
	return n;
}

static void agg_draw(struct ui *ui, struct lat_state *ls, int y, int h, int w)
{
	struct agg_set *s = app_agg(ui->app);
	unsigned int n = agg_count(ui);
	struct agg_result sel;
	struct richstr rs;
	int list_h, top, r;

	richstr_clear(&rs);
	if (w < AGG_WIDE)
		richstr_addf(&rs, ROLE_DEFAULT, "A->B latencies in the kernel (m: a new one, A: "
			     "the CPUs)");
	else
		richstr_addf(&rs, ROLE_DEFAULT, "A->B latencies measured in the kernel, since each "
			     "was made (m: a new one, A: the per-CPU table)");
	if (ui_view(ui))
		richstr_add(&rs, ROLE_WARN, "  the view filter does not narrow them: the kernel "
			    "counts every pair");
	ui_draw_rs(&ui->screen, y, 0, &rs, w);
	y++;
	h--;
	if (ls->agg_err[0]) {
		/* what m could not make, its lines as they are (the caret's too) */
		const char *p = ls->agg_err;

		for (int i = 0; *p && i < 3 && h > 0; i++, y++, h--) {
			int len = (int)strcspn(p, "\n");

			richstr_clear(&rs);
			richstr_addf(&rs, i ? ROLE_WARN : ROLE_ERROR, "%s%.*s", i ? "" : "refused: ",
				     len, p);
			ui_draw_rs(&ui->screen, y, 0, &rs, w);
			p += len + (p[len] == '\n');
		}
	}
	if (!n) {
		agg_draw_none(ui, y + 1, h - 1, w);
		if (s && h > 11)
			ui_draw_text(&ui->screen, y + 11, 2, ROLE_DIM, app_agg_why(ui->app), w - 2);
		return;
	}
	if (ls->agg_sel >= (int)n)
		ls->agg_sel = (int)n - 1;
	richstr_clear(&rs);
	if (w < AGG_WIDE)
		richstr_addf(&rs, ROLE_COLHDR, "%3s %10s%9s%9s%9s %-5s %s", "#", "PAIRS",
			     "MEAN", "P99", "MAX", "ENG", "START -> END");
	else
		richstr_addf(&rs, ROLE_COLHDR, "%3s %10s%9s%9s%9s%9s%9s%9s %-5s %s", "#",
			     "PAIRS", "RATE/s", "MIN", "MEAN", "P50", "P99", "MAX", "ENG",
			     "START -> END");
	richstr_pad(&rs, ROLE_COLHDR, w);
	ui_draw_rs(&ui->screen, y, 0, &rs, w);
	/* the list takes what it needs, at most a third of the pane */
	list_h = (int)n < (h - 1) / 3 ? (int)n : (h - 1) / 3;
	if (list_h < 1)
		list_h = 1;
	top = ls->agg_sel >= list_h ? ls->agg_sel - list_h + 1 : 0;
	for (r = 0; r < list_h && top + r < (int)n; r++) {
		struct agg_result res;

		memset(&res, 0, sizeof(res));
		if (agg_set_result(s, (unsigned int)(top + r), &res))
			continue;
		agg_fmt_row(&rs, &res, w < AGG_WIDE);
		if (top + r == ls->agg_sel)
			ui_rowsel_mark(&rs, w);
		ui_draw_rs(&ui->screen, y + 1 + r, 0, &rs, w);
		agg_result_clear(&res);
	}
	memset(&sel, 0, sizeof(sel));
	if (agg_set_result(s, (unsigned int)ls->agg_sel, &sel))
		return;
	agg_draw_detail(ui, &sel, ls->agg_sort, y + 2 + list_h, h - 2 - list_h, w);
	agg_result_clear(&sel);
}

/* Enter: the events of the selected measure's worst pair, from its START to its END. */
static int agg_jump(struct ui *ui, struct lat_state *ls)
{
	struct agg_set *s = app_agg(ui->app);
	struct agg_result r;
	uint64_t t0, t1;
	char b[24];
	int ret;

	memset(&r, 0, sizeof(r));
	if (!s || agg_set_result(s, (unsigned int)ls->agg_sel, &r)) {
		ui_message(ui, "no A->B latency selected");
		return UI_HANDLED | UI_REDRAW;
	}
	t1 = r.worst.te_ns;
	if (r.kind != AGG_LATENCY || !t1) {
		ui_message(ui, "%u: %s", r.idx, r.kind != AGG_LATENCY ? "a --hist has no pairs" :
			   r.count ? "the END time of the worst pair is not known" :
			   "no pairs yet");
		agg_result_clear(&r);
		return UI_HANDLED | UI_REDRAW;
	}
	t0 = t1 > r.worst.lat_ns ? t1 - r.worst.lat_ns : 0;
	/*
	 * the BPF engine's END time is its program's clock read, which may come before
	 * the record's time stamp (the tracepoint's callbacks run in turn)
	 */
	ret = ui_show_events(ui, &(struct ui_events_req){ .t0 = t0, .t1 = t1 + AGG_END_SLACK });
	ui_message(ui, "%u: the events of its worst pair (%s, %s %s), where the trace holds "
		   "them", r.idx, agg_fmt_ns(b, sizeof(b), r.worst.lat_ns), r.keynames,
		   r.worst.key);
	agg_result_clear(&r);
	return ret | UI_HANDLED | UI_REDRAW;
}

/* The keys of the A->B section. Return: 0 for those it does not take. */
static int agg_key(struct ui *ui, struct lat_state *ls, enum ui_action act)
{
	unsigned int n = agg_count(ui);

	switch (act) {
	case ACT_UP:
	case ACT_DOWN:
	case ACT_HOME:
	case ACT_END:
		if (n)
			ls->agg_sel = (int)ui_rowsel_move(ls->agg_sel, (long)n, 1, act);
		return UI_HANDLED | UI_REDRAW;
	case ACT_JUMP_WORST:
		return agg_jump(ui, ls);
	case ACT_PANE_SORT:
	case ACT_RIGHT:
		ls->agg_sort = (ls->agg_sort + 1) % AGG_SORT_NR;
		return UI_HANDLED | UI_REDRAW;
	case ACT_LEFT:
		ls->agg_sort = (ls->agg_sort + AGG_SORT_NR - 1) % AGG_SORT_NR;
		return UI_HANDLED | UI_REDRAW;
	default:
		return 0;
	}
}

static void latency_update(struct ui *ui, struct pane *p)
{
	lat_feed(ui, p->priv);
}

static void latency_draw(struct ui *ui, struct pane *p, int y, int h, int w)
{
	struct lat_state *ls = p->priv;
	enum latency_table t;
	struct latency_row row;
	struct richstr rs;
	int table_h, r;
	bool user, compact;

	lat_feed(ui, ls);
	if (agg_shown(ui, ls)) {
		agg_draw(ui, ls, y, h, w);
		return;
	}
	if (!lat_table(ui, ls, &t)) {
		lat_unavailable(ui, y, h, w);
		return;
	}
	user = lat_user(ls);
	if (t == LATENCY_TABLE_OSNOISE && ls->series < LATENCY_OS_SAMPLE)
		ls->series = LATENCY_OS_SAMPLE;
	else if (t == LATENCY_TABLE_TIMERLAT && ls->series >= LATENCY_OS_SAMPLE)
		ls->series = LATENCY_TL_THREAD;
	lat_rows(ls, t);
	richstr_clear(&rs);
	richstr_addf(&rs, ROLE_DEFAULT, "%s: per-CPU %s since the %s, sorted by %s",
		     t == LATENCY_TABLE_TIMERLAT ? "timerlat" : "osnoise",
		     t == LATENCY_TABLE_TIMERLAT ? "timer latency" : "noise",
		     ls->switched ? "switch" : "start", ui_lat_sort_name(ls->sort));
	if (ui_view(ui))
		richstr_add(&rs, ROLE_WARN, "  of the events in the view");
	if (ls->stopped)
		richstr_addf(&rs, ROLE_PAUSED, "  STOPPED: %.3f us on CPU %d > %.3f us",
			     (double)ls->stop_at.value / 1e3, ls->stop_at.cpu,
			     (double)ls->stop_ns / 1e3);
	else if (ls->stop_ns)
		richstr_addf(&rs, ROLE_DIM, "  stop above %.3f us", (double)ls->stop_ns / 1e3);
	richstr_fit_words(&rs, w);
	ui_draw_rs(&ui->screen, y, 0, &rs, w);
	compact = ui_lat_width(t, user, false) > w;
	ui_fmt_lat_header(&rs, t, user, ls->sort, compact);
	richstr_pad(&rs, ROLE_COLHDR, w);
	ui_draw_rs(&ui->screen, y + 1, 0, &rs, w);
	/* the table takes what it needs, at most half the pane */
	table_h = ls->nrows < (h - 2) / 2 ? ls->nrows : (h - 2) / 2;
	if (table_h < 1)
		table_h = 1;
	ls->top = (int)ui_rowsel_top(ls->sel, ls->top, table_h);
	for (r = 0; r < table_h && ls->top + r < ls->nrows; r++) {
		int i = ls->top + r;

		if (latency_row(ls->l, ls->rows[i], &row))
			continue;
		ui_fmt_lat_row(&rs, t, user, &row, compact);
		if (i == ls->sel)
			ui_rowsel_mark(&rs, w);
		ui_draw_rs(&ui->screen, y + 2 + r, 0, &rs, w);
	}
	{
		struct latency_worst wst;
		char b[40];

		richstr_clear(&rs);
		if (!latency_worst_of(ls->l, ls->sel_cpu, t, &wst)) {
			static const char hint[] = " (Enter: the events before it)";

			richstr_addf(&rs, ROLE_DIM, "worst %s: %.3f us on CPU %d at %s",
				     series_name(wst.series), (double)wst.value / 1e3, wst.cpu,
				     ts_str(b, sizeof(b), wst.ts));
			/* whole or not at all (the footer says it too) */
			if (rs.len + (int)sizeof(hint) - 1 <= w)
				richstr_add(&rs, ROLE_DIM, hint);
		}
		ui_draw_rs(&ui->screen, y + 2 + table_h, 0, &rs, w);
	}
	lat_draw_detail(ui, ls, y + 4 + table_h, h - 4 - table_h, w);
}

/* UI_REQ_LATENCY_STOP: a new stop threshold; a view stopped at the old one resumes. */
static int latency_request(struct ui *ui, struct pane *p, const struct ui_req *r)
{
	struct lat_state *ls = p->priv;

	if (r->kind == UI_REQ_LATENCY_AGG) {
		ls->show = LAT_SHOW_AGG;
		if (r->latency.agg_idx < 0) {
			snprintf(ls->agg_err, sizeof(ls->agg_err), "%s", r->latency.agg_err ?
				 r->latency.agg_err : "");
			return UI_HANDLED | UI_REDRAW;
		}
		ls->agg_err[0] = '\0';
		ls->agg_sel = r->latency.agg_idx;
		ui_message(ui, "latency %d measured in the kernel: %s", r->latency.agg_idx,
			   app_agg_why(ui->app));
		return UI_HANDLED | UI_REDRAW;
	}
	if (r->kind != UI_REQ_LATENCY_STOP)
		return 0;
	ls->stop_ns = r->latency.stop_ns;
	if (ls->stopped) {
		ls->stopped = false;
		ui_set_paused(ui, false);
		app_set_recording(ui->app, true);
	}
	if (ls->stop_ns)
		ui_message(ui, "latency: stop when a sample is above %.3f us",
			   (double)ls->stop_ns / 1e3);
	else
		ui_message(ui, "latency: no stop threshold");
	return UI_HANDLED | UI_REDRAW;
}

static int lat_jump(struct ui *ui, struct lat_state *ls)
{
	struct latency_worst wst;
	enum latency_table t;
	uint64_t t0;
	char b[40];
	int ret;

	if (ls->stopped && ls->sel_cpu < 0)
		wst = ls->stop_at;
	else if (!lat_table(ui, ls, &t) || latency_worst_of(ls->l, ls->sel_cpu, t, &wst)) {
		ui_message(ui, "no sample on this CPU yet");
		return UI_HANDLED | UI_REDRAW;
	}
	/* the sample's own window, and as much again before it */
	t0 = wst.win_start - (wst.win_end - wst.win_start < wst.win_start ?
			      wst.win_end - wst.win_start : wst.win_start);
	ret = ui_show_events(ui, &(struct ui_events_req){
		.one_cpu = true, .cpu = (unsigned int)wst.cpu, .t0 = t0, .t1 = wst.ts,
	});
	ui_message(ui, "CPU %d: events before its worst sample (%.3f us at %s)", wst.cpu,
		   (double)wst.value / 1e3, ts_str(b, sizeof(b), wst.ts));
	return ret | UI_HANDLED | UI_REDRAW;
}

static int latency_key(struct ui *ui, struct pane *p, enum ui_action act)
{
	struct lat_state *ls = p->priv;
	enum latency_table t;
	struct latency *nl;
	int ret;

	if (act == ACT_AGG_ADD)
		return ui_prompt_open(ui, "agg");
	if (act == ACT_AGG_SECTION) {
		ls->show = agg_shown(ui, ls) ? LAT_SHOW_TRACER : LAT_SHOW_AGG;
		return UI_HANDLED | UI_REDRAW;
	}
	if (agg_shown(ui, ls) && (ret = agg_key(ui, ls, act)))
		return ret;
	if (agg_shown(ui, ls) || !lat_table(ui, ls, &t))
		return 0;
	lat_rows(ls, t);
	switch (act) {
	case ACT_UP:
	case ACT_DOWN:
	case ACT_HOME:
	case ACT_END:
		ls->sel = (int)ui_rowsel_move(ls->sel, ls->nrows, 1, act);
		break;
	case ACT_PANE_SORT:
	case ACT_RIGHT:
		ls->sort = (enum ui_lat_sort)((ls->sort + 1) % UI_LAT_SORT_NR);
		break;
	case ACT_LEFT:
		ls->sort = (enum ui_lat_sort)((ls->sort + UI_LAT_SORT_NR - 1) % UI_LAT_SORT_NR);
		break;
	case ACT_VIEW:
		if (t == LATENCY_TABLE_OSNOISE)
			ls->series = ls->series == LATENCY_OS_SAMPLE ? LATENCY_OS_NOISE :
				     LATENCY_OS_SAMPLE;
		else
			ls->series = ls->series == LATENCY_TL_IRQ ? LATENCY_TL_THREAD :
				     ls->series == LATENCY_TL_THREAD && lat_user(ls) ?
				     LATENCY_TL_USER : LATENCY_TL_IRQ;
		break;
	case ACT_HIST_MODE:
		/* a new model with the other buckets, fed again from what the store holds */
		ls->mode = ls->mode == LATENCY_HIST_LOG2 ? LATENCY_HIST_LINEAR : LATENCY_HIST_LOG2;
		nl = lat_new(ls->mode);
		if (!nl)
			break;
		latency_free(ls->l);
		ls->l = nl;
		ls->t0 = 0;
		if (ls->stopped) {
			latency_feed_store(ls->l, ui->st, 0, ls->stop_at.ts, NULL);
			ls->t0 = ls->stop_at.ts + 1;
		}
		break;
	case ACT_THRESHOLD:
		return ui_prompt_open(ui, "threshold");
	case ACT_JUMP_WORST:
		return lat_jump(ui, ls);
	case ACT_SWITCH_TRACER:
		lat_switch(ui, ls);
		break;
	default:
		return 0;
	}
	ls->sel_cpu = ls->rows[ls->sel < ls->nrows ? ls->sel : 0];
	return UI_HANDLED | UI_REDRAW;
}

static int latency_click(struct ui *ui, struct pane *p, int row, int col)
{
	struct lat_state *ls = p->priv;
	long r;

	if (agg_shown(ui, ls)) {
		/* the list's rows start below the title, what m refused and the header */
		r = ui_rowsel_click(0, row, 2 + agg_err_lines(ls), (long)agg_count(ui));
		if (r >= 0)
			ls->agg_sel = (int)r;
		return UI_HANDLED | UI_REDRAW;
	}
	r = ui_rowsel_click(ls->top, row, 2, ls->nrows);

	if (r >= 0) {
		ls->sel = (int)r;
		ls->sel_cpu = ls->rows[ls->sel];
	}
	return UI_HANDLED | UI_REDRAW;
}

const struct pane_ops pane_latency_ops = {
	.name		= "latency",
	.label		= "Latency",
	.priv_size	= sizeof(struct lat_state),
	.init		= latency_init,
	.destroy	= latency_destroy,
	.draw		= latency_draw,
	.update		= latency_update,
	.key		= latency_key,
	.click		= latency_click,
	.keys		= "Enter cause > sort v series b buckets T stop A A->B m measure",
	.request	= latency_request,
};
