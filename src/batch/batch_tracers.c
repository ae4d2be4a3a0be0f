// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tracer views of --batch/--json (see batch_tracers.h).
 *
 * function_graph: one fgraph model fed with each new time window. Every
 * summary prints the top-level calls that finished since the previous one,
 * as the kernel's function_graph text does (CPU, duration with its marker,
 * braces, indentation two spaces a level), then the call paths merged since
 * the start (total, self, avg, max, calls), and the model's counters.
 *
 * osnoise/timerlat: one latency model, the per-CPU table of latency_print
 * (figures since the start, as rtla top shows them); for osnoise also the
 * noise of each period per CPU (count, min, avg, max).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "app/app.h"
#include "batch_tracers.h"
#include "store/event.h"
#include "model/fgraph.h"
#include "lib/jsonw.h"
#include "model/latency.h"
#include "kernel/session.h"
#include "store/store.h"

#define BT_LAG_NS		(300ull * 1000 * 1000)	/* how far behind "now" a window ends */
#define BT_MAX_CALL_LINES	400	/* timeline lines per text summary */
#define BT_MIN_CTX_LINES	16	/* a context's share never drops below this */
#define BT_AGG_ROWS		60	/* call-path rows per text summary */
#define BT_AGG_ROWS_JSON	500
#define BT_MAX_CPUS		8192
#define BT_RESET_NODES		(1u << 20)	/* tree nodes before the tree starts again */

enum bt_kind {
	BT_FGRAPH,
	BT_TIMERLAT,
	BT_OSNOISE,
};

/* Where the previous summary stopped printing in a context's calls. */
struct bt_cursor {
	uint32_t	ctx;
	uint32_t	last;		/* last call printed, FGRAPH_NONE: none yet */
};

/* osnoise: the noise of each period, per CPU */
struct bt_period {
	uint64_t	count, min, max, sum;
};

struct batch_tracers {
	struct app		*a;
	enum bt_kind		kind;
	uint64_t		t0;		/* next window starts here */
	uint64_t		fed;		/* events fed since the start */
	int			err;		/* first error of a feed, -errno */
	/* function_graph */
	struct fgraph		*g;
	struct bt_cursor	*cur;
	size_t			ncur, capcur;
	uint64_t		new_calls;	/* top-level calls finished this interval */
	uint64_t		total_calls;
	char			*timeline;	/* this interval's new calls, as text */
	size_t			timeline_len;
	unsigned long		timeline_lines;
	uint64_t		not_shown;
	unsigned int		resets;
	/* osnoise/timerlat */
	struct latency		*l;
	struct bt_period	*per;
	unsigned int		nper;
	struct bt_period	per_all;
};

struct batch_tracers *batch_tracers_new(struct app *a)
{
	return batch_tracers_new_tracer(a, app_tracer(a));
}

struct batch_tracers *batch_tracers_new_tracer(struct app *a, const char *tracer)
{
	struct batch_tracers *bt;

	if (!tracer || !a->st)
		return NULL;
	bt = calloc(1, sizeof(*bt));
	if (!bt)
		return NULL;
	bt->a = a;
	if (!strcmp(tracer, "function_graph")) {
		bt->kind = BT_FGRAPH;
		bt->g = app_fgraph_new(a, NULL, NULL);
		if (!bt->g)
			goto fail;
	} else if (!strcmp(tracer, "timerlat") || !strcmp(tracer, "osnoise")) {
		bt->kind = !strcmp(tracer, "timerlat") ? BT_TIMERLAT : BT_OSNOISE;
		bt->l = latency_new(NULL);
		if (!bt->l)
			goto fail;
	} else {
		goto fail;
	}
	return bt;
fail:
	free(bt);
	return NULL;
}

void batch_tracers_free(struct batch_tracers *bt)
{
	if (!bt)
		return;
	fgraph_free(bt->g);
	latency_free(bt->l);
	free(bt->cur);
	free(bt->timeline);
	free(bt->per);
	free(bt);
}

/* ---- function_graph: the new calls as the kernel's text -------------- */

static void tl_prefix(FILE *f, int cpu, bool with_dur, uint64_t dur)
{
	char d[40];

	if (cpu >= 0)
		fprintf(f, " %d) ", cpu);
	else
		fputs("    ", f);
	if (with_dur) {
		fgraph_fmt_duration(d, sizeof(d), dur);
		fprintf(f, "%c %s|  ", fgraph_mark(dur), d);
	} else {
		fputs("              |  ", f);
	}
}

static void tl_call(struct batch_tracers *bt, FILE *f, uint32_t id, unsigned int lv)
{
	struct fgraph_info in;
	bool closed;
	char name[256];
	uint32_t k;

	if (fgraph_node(bt->g, FGRAPH_TIMELINE, id, &in))
		return;
	bt->timeline_lines++;
	if (in.kind == FGRAPH_K_GAP) {
		tl_prefix(f, -1, false, 0);
		fprintf(f, "%*s/* lost %" PRIu64 " events */\n", lv * 2, "", in.count);
		return;
	}
	if (in.kind != FGRAPH_K_CALL)
		return;
	closed = !(in.flags & (FGRAPH_F_OPEN | FGRAPH_F_EXIT_MISSING));
	snprintf(name, sizeof(name), "%s", in.name ? in.name : "?");
	if (!in.nchildren && closed && !in.overflow) {
		tl_prefix(f, in.cpu, true, in.total);
		fprintf(f, "%*s%s();%s\n", lv * 2, "", name,
			in.flags & FGRAPH_F_ENTRY_MISSING ? " /* entry missing */" : "");
		return;
	}
	tl_prefix(f, in.cpu, false, 0);
	fprintf(f, "%*s%s() {%s\n", lv * 2, "", name,
		in.flags & FGRAPH_F_ENTRY_MISSING ? " /* entry missing */" : "");
	for (k = fgraph_first_child(bt->g, FGRAPH_TIMELINE, id); k != FGRAPH_NONE;
	     k = fgraph_next_sibling(bt->g, FGRAPH_TIMELINE, k))
		tl_call(bt, f, k, lv + 1);
	if (in.overflow) {
		tl_prefix(f, -1, false, 0);
		fprintf(f, "%*s/* %" PRIu64 " calls deeper than max_depth */\n", (lv + 1) * 2, "",
			in.overflow);
	}
	bt->timeline_lines++;
	tl_prefix(f, in.cpu, closed, in.total);
	if (closed)
		fprintf(f, "%*s}\n", lv * 2, "");
	else
		fprintf(f, "%*s} /* %s: exit missing */\n", lv * 2, "", name);
}

/* ctx's cursor, NULL when it has none yet */
static struct bt_cursor *bt_cursor_find(struct batch_tracers *bt, uint32_t ctx)
{
	for (size_t i = 0; i < bt->ncur; i++)
		if (bt->cur[i].ctx == ctx)
			return &bt->cur[i];
	return NULL;
}

/* ctx's cursor, a new one if it has none; NULL: out of memory */
static struct bt_cursor *bt_cursor_of(struct batch_tracers *bt, uint32_t ctx)
{
	struct bt_cursor *c = bt_cursor_find(bt, ctx);

	if (c)
		return c;
	if (array_grow((void **)&bt->cur, &bt->capcur, bt->ncur + 1, sizeof(*bt->cur)))
		return NULL;
	bt->cur[bt->ncur] = (struct bt_cursor){ .ctx = ctx, .last = FGRAPH_NONE };
	return &bt->cur[bt->ncur++];
}

/* The first call of ctx after its cursor c (or the first), FGRAPH_NONE: none. */
static uint32_t bt_next_call(struct batch_tracers *bt, uint32_t ctx, const struct bt_cursor *c)
{
	if (!c || c->last == FGRAPH_NONE)
		return fgraph_first_child(bt->g, FGRAPH_TIMELINE, ctx);
	return fgraph_next_sibling(bt->g, FGRAPH_TIMELINE, c->last);
}

/* How many contexts have a call that finished since the last summary. */
static unsigned long bt_busy_contexts(struct batch_tracers *bt)
{
	unsigned long n = 0;
	uint32_t ctx, k;

	for (ctx = fgraph_first_child(bt->g, FGRAPH_TIMELINE, FGRAPH_ROOT); ctx != FGRAPH_NONE;
	     ctx = fgraph_next_sibling(bt->g, FGRAPH_TIMELINE, ctx)) {
		struct fgraph_info in;
		const struct bt_cursor *c = bt_cursor_find(bt, ctx);

		k = bt_next_call(bt, ctx, c);
		if (k != FGRAPH_NONE && !fgraph_node(bt->g, FGRAPH_TIMELINE, k, &in) &&
		    !(in.flags & FGRAPH_F_OPEN))
			n++;
	}
	return n;
}

/*
 * The top-level calls of every context that finished since the last summary.
 * Each context gets an equal share of the lines, so that one busy task (a
 * shell sleeping in the graph function, a context switch traced all the way
 * down) cannot push every other task's calls out of the summary.
 */
static void bt_fgraph_collect(struct batch_tracers *bt)
{
	unsigned long busy = bt_busy_contexts(bt), share;
	FILE *f;
	uint32_t ctx, k;

	share = busy ? BT_MAX_CALL_LINES / busy : BT_MAX_CALL_LINES;
	if (share < BT_MIN_CTX_LINES)
		share = BT_MIN_CTX_LINES;

	free(bt->timeline);
	bt->timeline = NULL;
	bt->timeline_len = 0;
	bt->timeline_lines = 0;
	bt->new_calls = 0;
	bt->not_shown = 0;
	f = open_memstream(&bt->timeline, &bt->timeline_len);
	if (!f)
		return;
	for (ctx = fgraph_first_child(bt->g, FGRAPH_TIMELINE, FGRAPH_ROOT); ctx != FGRAPH_NONE;
	     ctx = fgraph_next_sibling(bt->g, FGRAPH_TIMELINE, ctx)) {
		struct bt_cursor *c = bt_cursor_of(bt, ctx);
		unsigned long ctx_lines = 0;
		bool header = false;

		if (!c)
			break;
		k = bt_next_call(bt, ctx, c);
		for (; k != FGRAPH_NONE; k = fgraph_next_sibling(bt->g, FGRAPH_TIMELINE, k)) {
			unsigned long before;
			struct fgraph_info in;

			if (fgraph_node(bt->g, FGRAPH_TIMELINE, k, &in))
				break;
			if (in.flags & FGRAPH_F_OPEN)
				break;		/* still running: next time */
			c->last = k;
			if (in.kind == FGRAPH_K_CALL) {
				bt->new_calls++;
				bt->total_calls++;
			}
			if (ctx_lines >= share ||
			    bt->timeline_lines >= BT_MAX_CALL_LINES + BT_MIN_CTX_LINES * busy) {
				bt->not_shown += in.kind == FGRAPH_K_CALL;
				continue;
			}
			if (!header) {
				struct fgraph_info cx;

				if (!fgraph_node(bt->g, FGRAPH_TIMELINE, ctx, &cx))
					fprintf(f, "# %s\n", cx.name ? cx.name : "?");
				header = true;
			}
			before = bt->timeline_lines;
			tl_call(bt, f, k, 0);
			ctx_lines += bt->timeline_lines - before;
		}
	}
	fclose(f);
}

/* ---- feeding ------------------------------------------------------------ */

static void bt_period_add(struct bt_period *p, uint64_t v)
{
	if (!p->count || v < p->min)
		p->min = v;
	if (v > p->max)
		p->max = v;
	p->sum += v;
	p->count++;
}

/* An osnoise sample, for the per-CPU periods (the noise field is in us, latency.h). */
static void bt_osnoise_period(void *arg, const struct ktop_event *ev)
{
	struct batch_tracers *bt = arg;

	if (ev->type != KTOP_T_OSNOISE || ev->cpu >= BT_MAX_CPUS)
		return;
	if (ev->cpu >= bt->nper) {
		unsigned int nn = ev->cpu + 1u;
		struct bt_period *p = realloc(bt->per, nn * sizeof(*p));

		if (!p)
			return;
		memset(p + bt->nper, 0, (nn - bt->nper) * sizeof(*p));
		bt->per = p;
		bt->nper = nn;
	}
	bt_period_add(&bt->per[ev->cpu], ev->args[1] * 1000);
	bt_period_add(&bt->per_all, ev->args[1] * 1000);
}

static long bt_feed_latency(struct batch_tracers *bt, uint64_t t0, uint64_t t1)
{
	return latency_feed_store_each(bt->l, bt->a->st, t0, t1, NULL, bt_osnoise_period, bt);
}

void batch_tracers_update(struct batch_tracers *bt)
{
	if (bt)
		batch_tracers_update_to(bt, app_feed_end(bt->a, BT_LAG_NS));
}

void batch_tracers_update_to(struct batch_tracers *bt, uint64_t t1)
{
	long n;

	if (!bt)
		return;
	if (t1 >= bt->t0) {
		if (bt->kind == BT_FGRAPH)
			n = fgraph_feed_store(bt->g, bt->a->st, bt->t0, t1);
		else
			n = bt_feed_latency(bt, bt->t0, t1);
		if (n < 0 && !bt->err)
			bt->err = (int)n;
		if (n > 0)
			bt->fed += (uint64_t)n;
		bt->t0 = t1 + 1;
	}
	if (bt->kind == BT_FGRAPH) {
		struct fgraph_stats fs;

		bt_fgraph_collect(bt);
		/* bounded memory: start a new tree (its first calls are marked as cut) */
		fgraph_get_stats(bt->g, &fs);
		if (fs.nodes > BT_RESET_NODES) {
			fgraph_reset(bt->g);
			bt->ncur = 0;
			bt->resets++;
		}
	}
}

const struct latency *batch_tracers_latency(const struct batch_tracers *bt)
{
	return bt ? bt->l : NULL;
}

/* ---- text --------------------------------------------------------------- */

static void us3(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}

static void bt_agg_text(struct batch_tracers *bt, FILE *o)
{
	struct fgraph_print_opts po = { .view = FGRAPH_AGG, .sort = FGRAPH_SORT_ORDER,
					.top = FGRAPH_ROOT };
	struct fgraph_row rows[BT_AGG_ROWS];
	char t[32], s[32], a[32], m[32];
	long n;

	n = fgraph_rows(bt->g, FGRAPH_AGG, FGRAPH_ROOT, FGRAPH_SORT_ORDER, NULL, NULL, rows,
			BT_AGG_ROWS);
	if (n < 0)
		return;
	if (n <= BT_AGG_ROWS) {
		fgraph_print(bt->g, o, &po);
		return;
	}
	/* too many to print: the first rows, in the same columns as fgraph_print */
	fprintf(o, "# %14s %14s %14s %14s %9s  %s\n", "total us", "self us", "avg us", "max us",
		"calls", "function");
	for (long i = 0; i < BT_AGG_ROWS; i++) {
		struct fgraph_info in;

		if (fgraph_node(bt->g, FGRAPH_AGG, rows[i].id, &in))
			continue;
		if (in.kind == FGRAPH_K_TASK || in.kind == FGRAPH_K_IRQ) {
			fprintf(o, "# %s\n", in.name ? in.name : "?");
			continue;
		}
		if (in.kind != FGRAPH_K_CALL)
			continue;
		us3(t, sizeof(t), in.total);
		us3(s, sizeof(s), in.self);
		us3(a, sizeof(a), in.count ? in.total / in.count : 0);
		us3(m, sizeof(m), in.max);
		fprintf(o, "%c %14s %14s %14s %14s %9" PRIu64 "  %*s%s\n", fgraph_mark(in.max), t,
			s, a, m, in.count, (int)rows[i].level * 2, "", in.name ? in.name : "?");
	}
	fprintf(o, "  ... %ld more call-path rows (see --json)\n", n - BT_AGG_ROWS);
}

static void bt_fgraph_text(struct batch_tracers *bt, FILE *o)
{
	struct fgraph_stats fs;

	fgraph_get_stats(bt->g, &fs);
	fprintf(o, "Function graph: %" PRIu64 " top-level calls finished this interval, %" PRIu64
		" since start (%" PRIu64 " entries, %" PRIu64 " exits, %" PRIu64
		" lost, %" PRIu64 " entry missing, %" PRIu64 " exit missing, max depth %u)\n",
		bt->new_calls, bt->total_calls, fs.entries, fs.exits, fs.lost, fs.entry_missing,
		fs.exit_missing, fs.max_depth_seen);
	if (bt->err)
		fprintf(o, "  (the call tree stopped early: %s)\n", strerror(-bt->err));
	if (bt->resets)
		fprintf(o, "  (the tree was started again %u times to bound its memory; "
			"the merged paths cover the time since the last restart)\n", bt->resets);
	if (fs.dropped)
		fprintf(o, "  (%" PRIu64 " records dropped: the tree reached its node limit)\n",
			fs.dropped);
	if (bt->timeline && bt->timeline_len)
		fwrite(bt->timeline, 1, bt->timeline_len, o);
	if (bt->not_shown)
		fprintf(o, "  ... %" PRIu64 " more calls this interval not shown\n",
			bt->not_shown);
	fprintf(o, "\nCall paths since start (merged):\n");
	bt_agg_text(bt, o);
}

static void bt_osnoise_periods_text(struct batch_tracers *bt, FILE *o)
{
	char mn[32], av[32], mx[32];

	fprintf(o, "# Noise per period (us)\n# %4s %8s %15s %15s %15s\n", "CPU", "periods", "min",
		"avg", "max");
	for (unsigned int cpu = 0; cpu <= bt->nper; cpu++) {
		const struct bt_period *p = cpu < bt->nper ? &bt->per[cpu] : &bt->per_all;

		if (!p->count)
			continue;
		us3(mn, sizeof(mn), p->min);
		us3(av, sizeof(av), p->sum / p->count);
		us3(mx, sizeof(mx), p->max);
		if (cpu < bt->nper)
			fprintf(o, "  %4u", cpu);
		else
			fprintf(o, "  %4s", "ALL");
		fprintf(o, " %8" PRIu64 " %15s %15s %15s\n", p->count, mn, av, mx);
	}
}

void batch_tracers_text(struct batch_tracers *bt, FILE *o)
{
	if (!bt)
		return;
	if (bt->kind == BT_FGRAPH) {
		bt_fgraph_text(bt, o);
		fputc('\n', o);
		return;
	}
	fprintf(o, "%s per CPU since start (%" PRIu64 " events read)\n",
		bt->kind == BT_TIMERLAT ? "Timer latency" : "Operating system noise", bt->fed);
	if (bt->err)
		fprintf(o, "  (the table stopped early: %s)\n", strerror(-bt->err));
	latency_print(bt->l, o, bt->kind == BT_TIMERLAT ? LATENCY_TABLE_TIMERLAT :
		      LATENCY_TABLE_OSNOISE);
	if (bt->kind == BT_OSNOISE)
		bt_osnoise_periods_text(bt, o);
	fputc('\n', o);
}

/* ---- JSON --------------------------------------------------------------- */

static void bt_fgraph_json(struct batch_tracers *bt, FILE *o)
{
	struct fgraph_row *rows;
	struct fgraph_stats fs;
	bool first = true;
	long n;

	fgraph_get_stats(bt->g, &fs);
	fprintf(o, ",\"graph\":{\"new_calls\":%" PRIu64 ",\"calls\":%" PRIu64 ",\"entries\":%"
		PRIu64 ",\"exits\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"gaps\":%" PRIu64
		",\"entry_missing\":%" PRIu64 ",\"exit_missing\":%" PRIu64 ",\"overflow\":%"
		PRIu64 ",\"dropped\":%" PRIu64 ",\"max_depth\":%u,\"paths\":[",
		bt->new_calls, bt->total_calls, fs.entries, fs.exits, fs.lost, fs.gaps,
		fs.entry_missing, fs.exit_missing, fs.overflow, fs.dropped, fs.max_depth_seen);
	rows = malloc(BT_AGG_ROWS_JSON * sizeof(*rows));
	n = rows ? fgraph_rows(bt->g, FGRAPH_AGG, FGRAPH_ROOT, FGRAPH_SORT_ORDER, NULL, NULL,
			       rows, BT_AGG_ROWS_JSON) : 0;
	for (long i = 0; i < n && i < BT_AGG_ROWS_JSON; i++) {
		struct fgraph_info in, par;
		char ctx[128];

		if (fgraph_node(bt->g, FGRAPH_AGG, rows[i].id, &in) || in.kind != FGRAPH_K_CALL)
			continue;
		fprintf(o, "%s{\"function\":", first ? "" : ",");
		first = false;
		jsonw_str_fp(o, in.name);
		fputs(",\"parent\":", o);
		if (!fgraph_node(bt->g, FGRAPH_AGG, in.parent, &par) && par.kind == FGRAPH_K_CALL) {
			jsonw_str_fp(o, par.name);
			ctx[0] = '\0';
		} else {
			fputs("null", o);
			snprintf(ctx, sizeof(ctx), "%s", par.name ? par.name : "");
		}
		fprintf(o, ",\"level\":%u,\"calls\":%" PRIu64 ",\"total_ns\":%" PRIu64
			",\"self_ns\":%" PRIu64 ",\"avg_ns\":%" PRIu64 ",\"min_ns\":%" PRIu64
			",\"max_ns\":%" PRIu64 ",\"incomplete\":%" PRIu64, rows[i].level, in.count,
			in.total, in.self, in.count ? in.total / in.count : 0, in.min, in.max,
			in.incomplete);
		if (ctx[0]) {
			fputs(",\"context\":", o);
			jsonw_str_fp(o, ctx);
		}
		fputc('}', o);
	}
	free(rows);
	fprintf(o, "],\"paths_total\":%ld}", n);
}

static void bt_stat_json(FILE *o, const char *name, const struct latency_stat *s)
{
	fprintf(o, ",\"%s\":{\"count\":%" PRIu64 ",\"cur_ns\":%" PRIu64 ",\"min_ns\":%" PRIu64
		",\"avg_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64 "}", name, s->count, s->cur,
		s->count ? s->min : 0, s->count ? s->sum / s->count : 0, s->max);
}

static void bt_row_json(struct batch_tracers *bt, FILE *o, const struct latency_row *r)
{
	const struct bt_period *p = NULL;

	if (r->cpu >= 0)
		fprintf(o, "{\"cpu\":%d", r->cpu);
	else
		fputs("{\"cpu\":\"ALL\"", o);
	if (bt->kind == BT_TIMERLAT) {
		fprintf(o, ",\"samples\":%" PRIu64, r->tl[LATENCY_TL_IRQ].count);
		bt_stat_json(o, "irq", &r->tl[LATENCY_TL_IRQ]);
		bt_stat_json(o, "thread", &r->tl[LATENCY_TL_THREAD]);
		if (r->tl[LATENCY_TL_USER].count)
			bt_stat_json(o, "user", &r->tl[LATENCY_TL_USER]);
	} else {
		fprintf(o, ",\"samples\":%" PRIu64 ",\"runtime_ns\":%" PRIu64 ",\"noise_ns\":%"
			PRIu64 ",\"avail_ppm\":%u,\"max_noise_ns\":%" PRIu64
			",\"max_single_ns\":%" PRIu64 ",\"hw\":%" PRIu64 ",\"nmi\":%" PRIu64
			",\"irq\":%" PRIu64 ",\"softirq\":%" PRIu64 ",\"thread\":%" PRIu64,
			r->os_samples, r->os_runtime, r->os_noise, r->os_avail_ppm, r->os_max_noise,
			r->os_max_single, r->hw, r->nmi, r->irq, r->softirq, r->thread);
		p = r->cpu < 0 ? &bt->per_all :
		    (unsigned int)r->cpu < bt->nper ? &bt->per[r->cpu] : NULL;
		if (p)
			fprintf(o, ",\"period_noise\":{\"count\":%" PRIu64 ",\"min_ns\":%" PRIu64
				",\"avg_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64 "}", p->count,
				p->count ? p->min : 0, p->count ? p->sum / p->count : 0, p->max);
	}
	if (r->worst.valid)
		fprintf(o, ",\"worst\":{\"value_ns\":%" PRIu64 ",\"ts\":%" PRIu64
			",\"win_start\":%" PRIu64 ",\"win_end\":%" PRIu64 "}", r->worst.value,
			r->worst.ts, r->worst.win_start, r->worst.win_end);
	fputc('}', o);
}

static void bt_latency_json(struct batch_tracers *bt, FILE *o)
{
	struct latency_row r;
	bool first = true;

	fputs(",\"latency\":{\"tracer\":", o);
	jsonw_str_fp(o, bt->kind == BT_TIMERLAT ? "timerlat" : "osnoise");
	fprintf(o, ",\"events\":%" PRIu64 ",\"cpus\":[", bt->fed);
	for (unsigned int cpu = 0; cpu < latency_ncpus(bt->l); cpu++) {
		if (!latency_cpu_seen(bt->l, cpu) || latency_row(bt->l, (int)cpu, &r))
			continue;
		if (!first)
			fputc(',', o);
		first = false;
		bt_row_json(bt, o, &r);
	}
	fputs("],\"all\":", o);
	if (!latency_row(bt->l, -1, &r))
		bt_row_json(bt, o, &r);
	else
		fputs("null", o);
	fputc('}', o);
}

void batch_tracers_json(struct batch_tracers *bt, FILE *o)
{
	if (!bt)
		return;
	if (bt->kind == BT_FGRAPH)
		bt_fgraph_json(bt, o);
	else
		bt_latency_json(bt, o);
}
