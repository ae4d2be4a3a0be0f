// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The diff of two recordings (src/diff/diff.h): the sides and their windows,
 * the tables' common machinery (rows matched by key, sorting), and the
 * tables read straight from the stores' counts: events, CPUs, syscalls,
 * functions. The tables of the models are in diff_models.c (tasks, call
 * paths, latency), diff_stacks.c, diff_net.c and diff_bpf.c.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "app/app.h"
#include "diff-local.h"
#include "lib/array.h"
#include "lib/intern.h"
#include "lib/syscalls.h"
#include "model/fgraph.h"
#include "model/flags.h"
#include "model/latency.h"
#include "model/net.h"
#include "store/meta.h"
#include "store/schema.h"
#include "view/tasks.h"
#include "view/viewfilter.h"

/* How far behind now a live side's window ends: every CPU has published up to there. */
#define DIFF_LAG_NS		(300ull * 1000 * 1000)
#define DIFF_POOL_BLOCK		(64u << 10)

/* ---- the tables' shapes ---------------------------------------------------------- */

static const struct diff_col cols_rate[] = {
	{ "EVENTS/s", "per_s", DIFF_U_RATE },
};
static const struct diff_col cols_calls[] = {
	{ "CALLS/s", "per_s", DIFF_U_RATE },
};
static const struct diff_col cols_tasks[] = {
	{ "EVENTS/s", "per_s", DIFF_U_RATE },
	{ "SYSCALLS/s", "syscalls_per_s", DIFF_U_RATE },
	{ "SWITCHES/s", "switches_per_s", DIFF_U_RATE },
	{ "RUNQ avg", "runq_avg_ns", DIFF_U_NS },
	{ "OFFCPU/s", "offcpu_ns_per_s", DIFF_U_NS_RATE },
};
static const struct diff_col cols_cpus[] = {
	{ "EVENTS/s", "per_s", DIFF_U_RATE },
	{ "IRQOFF", "irqs_off_pct", DIFF_U_PCT },
	{ "NRESCHED", "need_resched_pct", DIFF_U_PCT },
	{ "HARDIRQ", "hardirq_pct", DIFF_U_PCT },
	{ "SOFTIRQ", "softirq_pct", DIFF_U_PCT },
	{ "NMI", "nmi_pct", DIFF_U_PCT },
	{ "PREEMPT", "preempt_pct", DIFF_U_PCT },
	{ "MIGDIS", "migrate_disable_pct", DIFF_U_PCT },
};
static const struct diff_col cols_paths[] = {
	{ "CALLS/s", "per_s", DIFF_U_RATE },
	{ "TOTAL/s", "total_ns_per_s", DIFF_U_NS_RATE },
	{ "SELF/s", "self_ns_per_s", DIFF_U_NS_RATE },
	{ "TOTAL/call", "total_ns_per_call", DIFF_U_NS },
	{ "SELF/call", "self_ns_per_call", DIFF_U_NS },
};
static const struct diff_col cols_latency[] = {
	{ "SAMPLES/s", "per_s", DIFF_U_RATE },
	{ "MIN", "min_ns", DIFF_U_NS },
	{ "AVG", "avg_ns", DIFF_U_NS },
	{ "MAX", "max_ns", DIFF_U_NS },
};
static const struct diff_col cols_hist[] = {
	{ "SAMPLES/s", "per_s", DIFF_U_RATE },
};
static const struct diff_col cols_conns[] = {
	{ "OPENED/s", "per_s", DIFF_U_RATE },
	{ "SENT/s", "sent_bytes_per_s", DIFF_U_BYTES_RATE },
	{ "RECV/s", "received_bytes_per_s", DIFF_U_BYTES_RATE },
	{ "RETRANS/s", "retransmits_per_s", DIFF_U_RATE },
	{ "RESETS/s", "resets_per_s", DIFF_U_RATE },
	{ "DROPS/s", "drops_per_s", DIFF_U_RATE },
};
static const struct diff_col cols_drops[] = {
	{ "DROPS/s", "per_s", DIFF_U_RATE },
};
static const struct diff_col cols_agg[] = {
	{ "PAIRS/s", "per_s", DIFF_U_RATE },
	{ "MIN", "min_ns", DIFF_U_NS },
	{ "AVG", "avg_ns", DIFF_U_NS },
	{ "P99", "p99_ns", DIFF_U_NS },
	{ "MAX", "max_ns", DIFF_U_NS },
};
static const struct diff_col cols_bpf[] = {
	{ "COUNT/s", "per_s", DIFF_U_RATE },
	{ "TIME/s", "ns_per_s", DIFF_U_NS_RATE },
	{ "AVG", "avg_ns", DIFF_U_NS },
};

#define COLS(c)	(sizeof(c) / sizeof((c)[0])), (c)

static const struct {
	const char		*name, *title, *key;
	unsigned int		ncols;
	const struct diff_col	*cols;
} kinds[DIFF_NKINDS] = {
	[DIFF_EVENTS]	= { "events", "Events", "event", COLS(cols_rate) },
	[DIFF_TASKS]	= { "tasks", "Tasks", "comm", COLS(cols_tasks) },
	[DIFF_CPUS]	= { "cpus", "CPUs", "cpu", COLS(cols_cpus) },
	[DIFF_SYSCALLS]	= { "syscalls", "Syscalls", "syscall", COLS(cols_calls) },
	[DIFF_FUNCS]	= { "functions", "Functions", "function", COLS(cols_calls) },
	[DIFF_PATHS]	= { "paths", "Call paths", "path", COLS(cols_paths) },
	[DIFF_LATENCY]	= { "latency", "Latency", "series", COLS(cols_latency) },
	[DIFF_HIST]	= { "histograms", "Latency histograms", "bucket", COLS(cols_hist) },
	[DIFF_STACKS]	= { "stacks", "Stacks", "stack", COLS(cols_rate) },
	[DIFF_CONNS]	= { "connections", "Connections", "conn", COLS(cols_conns) },
	[DIFF_DROPS]	= { "drops", "Drops", "reason", COLS(cols_drops) },
	[DIFF_BPF]	= { "bpf", "BPF", "figure", COLS(cols_bpf) },
	[DIFF_AGG]	= { "latencies", "In-kernel latencies", "measure", COLS(cols_agg) },
};

const char *diff_kind_name(enum diff_kind k)
{
	return (unsigned int)k < DIFF_NKINDS ? kinds[k].name : "?";
}

int diff_kind_by_name(const char *name)
{
	for (int k = 0; name && k < DIFF_NKINDS; k++)
		if (!strcmp(name, kinds[k].name))
			return k;
	return -1;
}

const char *diff_sort_name(enum diff_sort s)
{
	static const char *const names[DIFF_SORT_NR] = {
		"change", "ratio", "new", "base", "name", "order",
	};

	return (unsigned int)s < DIFF_SORT_NR ? names[s] : "?";
}

/* ---- strings ------------------------------------------------------------------------ */

const char *diff_pool_str(struct diff_pool *p, const char *s, size_t len)
{
	char *out;

	if (!p->blk || p->used + len + 1 > p->size) {
		size_t size = len + 1 + sizeof(char *) > DIFF_POOL_BLOCK ?
			      len + 1 + sizeof(char *) : DIFF_POOL_BLOCK;
		char *b = malloc(size);

		if (!b)
			return NULL;
		memcpy(b, &p->blk, sizeof(char *));
		p->blk = b;
		p->size = size;
		p->used = sizeof(char *);
	}
	out = p->blk + p->used;
	memcpy(out, s, len);
	out[len] = 0;
	p->used += len + 1;
	return out;
}

void diff_pool_free(struct diff_pool *p)
{
	while (p->blk) {
		char *next;

		memcpy(&next, p->blk, sizeof(char *));
		free(p->blk);
		p->blk = next;
	}
	memset(p, 0, sizeof(*p));
}

/* ---- building and sorting ------------------------------------------------------------ */

void diff_build_start(struct diff_build *b, struct diff *d, enum diff_kind k)
{
	struct diff_table *t = &d->tab[k];

	memset(b, 0, sizeof(*b));
	b->t = t;
	b->pool = &d->pool[k];
	t->kind = k;
	t->name = kinds[k].name;
	t->title = kinds[k].title;
	t->key = kinds[k].key;
	t->ncols = kinds[k].ncols;
	t->cols = kinds[k].cols;
}

struct diff_row *diff_build_row(struct diff_build *b, const char *key, size_t len,
				const char *name)
{
	struct diff_table *t = b->t;
	struct diff_row *r;
	const char *k;
	uint64_t *slot;

	if (b->err)
		return NULL;
	slot = strmap_get(&b->keys, key, len);
	if (slot)
		return &t->rows[*slot - 1];
	k = diff_pool_str(b->pool, key, len);
	if (!k || array_grow((void **)&t->rows, &b->cap, t->n + 1, sizeof(*t->rows)))
		goto nomem;
	if (name && !(name = diff_pool_str(b->pool, name, strlen(name))))
		goto nomem;
	slot = strmap_put(&b->keys, k, NULL);
	if (!slot)
		goto nomem;
	*slot = t->n + 1;
	r = &t->rows[t->n++];
	memset(r, 0, sizeof(*r));
	r->name = name ? name : k;
	r->pid[0] = r->pid[1] = -1;
	r->cpu = -1;
	r->series = -1;
	return r;
nomem:
	b->err = -ENOMEM;
	return NULL;
}

void diff_build_add(struct diff_build *b, enum diff_sides side, const char *key, unsigned int col,
		    double v)
{
	struct diff_row *r = diff_build_row(b, key, strlen(key), NULL);

	if (!r)
		return;
	r->v[side][col] += v;
	r->in |= side == DIFF_BASE ? DIFF_IN_BASE : DIFF_IN_NEW;
}

static int row_cmp_change(const struct diff_row *x, const struct diff_row *y, unsigned int col)
{
	double dx = fabs(diff_delta(x, col)), dy = fabs(diff_delta(y, col));

	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->name, y->name);
}

void diff_build_end(struct diff_build *b, bool keep_order)
{
	struct diff_table *t = b->t;

	strmap_destroy(&b->keys);
	if (b->err) {
		t->n = 0;
		snprintf(t->note, sizeof(t->note), "out of memory");
		return;
	}
	if (keep_order || t->n < 2)
		return;
	/* insertion sort is too slow for stacks: sort an index, then permute */
	{
		uint32_t *order = malloc(t->n * sizeof(*order));
		struct diff_row *rows = malloc(t->n * sizeof(*rows));

		if (order && rows) {
			diff_sort_rows(t, DIFF_SORT_CHANGE, 0, order);
			for (size_t i = 0; i < t->n; i++)
				rows[i] = t->rows[order[i]];
			free(t->rows);
			t->rows = rows;
			rows = NULL;
		}
		free(order);
		free(rows);
	}
}

double diff_ratio(const struct diff_row *r, unsigned int col)
{
	double base = r->v[DIFF_BASE][col];

	return base != 0 ? r->v[DIFF_NEW][col] / base : NAN;
}

bool diff_row_same(const struct diff_table *t, const struct diff_row *r)
{
	if (r->in != DIFF_IN_BOTH)
		return false;
	for (unsigned int c = 0; c < t->ncols; c++) {
		double x = r->v[DIFF_BASE][c], y = r->v[DIFF_NEW][c];

		if (isnan(x) && isnan(y))
			continue;
		if (fabs(x - y) > 1e-9 * (fabs(x) > fabs(y) ? fabs(x) : fabs(y)))
			return false;
	}
	return true;
}

struct sort_ctx {
	const struct diff_table	*t;
	enum diff_sort		s;
	unsigned int		col;
};

/* NaN (unknown) sorts after every figure. */
static int cmp_desc(double x, double y)
{
	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	return x < y ? 1 : x > y ? -1 : 0;
}

static int sort_cmp(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	const struct diff_row *x = &c->t->rows[ia], *y = &c->t->rows[ib];
	int r = 0;

	switch (c->s) {
	case DIFF_SORT_CHANGE:
		return row_cmp_change(x, y, c->col);
	case DIFF_SORT_RATIO: {
		/* new rows (infinite growth) first, gone rows last */
		double rx = x->v[DIFF_BASE][c->col] ? diff_ratio(x, c->col) :
			    x->v[DIFF_NEW][c->col] ? INFINITY : NAN;
		double ry = y->v[DIFF_BASE][c->col] ? diff_ratio(y, c->col) :
			    y->v[DIFF_NEW][c->col] ? INFINITY : NAN;

		r = cmp_desc(rx, ry);
		break;
	}
	case DIFF_SORT_NEW:
		r = cmp_desc(x->v[DIFF_NEW][c->col], y->v[DIFF_NEW][c->col]);
		break;
	case DIFF_SORT_BASE:
		r = cmp_desc(x->v[DIFF_BASE][c->col], y->v[DIFF_BASE][c->col]);
		break;
	case DIFF_SORT_NAME:
		r = strcmp(x->name, y->name);
		if (!r)
			r = x->cpu - y->cpu;
		break;
	default:
		break;
	}
	if (!r)
		r = ia < ib ? -1 : ia > ib;
	return r;
}

void diff_sort_rows(const struct diff_table *t, enum diff_sort s, unsigned int col,
		    uint32_t *order)
{
	struct sort_ctx c = { .t = t, .s = s, .col = col < t->ncols ? col : 0 };

	for (size_t i = 0; i < t->n; i++)
		order[i] = (uint32_t)i;
	if (s != DIFF_SORT_ORDER)
		qsort_r(order, t->n, sizeof(*order), sort_cmp, &c);
}

/* ---- printing figures ------------------------------------------------------------------ */

/* @v with a k/M/G suffix: 3 significant digits where it has a suffix. */
static int fmt_si(char *buf, size_t len, double v, const char *sign, const char *unit)
{
	static const char sfx[] = " kMGTP";
	double a = fabs(v);
	int e = 0;

	while (a >= 999.5 && e < 5) {
		a /= 1000;
		v /= 1000;
		e++;
	}
	if (!e)
		return snprintf(buf, len, "%s%.*f%s", sign, a >= 100 || a == (long)a ? 0 :
				a >= 10 ? 1 : 2, v, unit);
	return snprintf(buf, len, "%s%.*f%c%s", sign, a >= 100 ? 0 : a >= 10 ? 1 : 2, v, sfx[e],
			unit);
}

/* A time: ns, us, ms, s. */
static int fmt_ns(char *buf, size_t len, double v, const char *sign)
{
	static const char *const units[] = { "ns", "us", "ms", "s" };
	double a = fabs(v);
	int e = 0;

	while (a >= 999.5 && e < 3) {
		a /= 1000;
		v /= 1000;
		e++;
	}
	return snprintf(buf, len, "%s%.*f%s", sign, !e || a >= 100 ? 0 : a >= 10 ? 1 : 2, v,
			units[e]);
}

const char *diff_fmt(char *buf, size_t len, enum diff_unit u, double v, bool sign)
{
	const char *sg = sign && v > 0 ? "+" : "";

	if (isnan(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	switch (u) {
	case DIFF_U_NS:
	case DIFF_U_NS_RATE:
		fmt_ns(buf, len, v, sg);
		break;
	case DIFF_U_PCT:
		snprintf(buf, len, "%s%.1f%%", sg, v);
		break;
	case DIFF_U_BYTES_RATE:
		fmt_si(buf, len, v, sg, "B");
		break;
	default:
		fmt_si(buf, len, v, sg, "");
		break;
	}
	return buf;
}

const char *diff_row_name(const struct diff_table *t, const struct diff_row *r,
			  enum diff_name_form form, char *buf, size_t len)
{
	bool text = form == DIFF_NAME_TEXT;
	char lo[32], hi[32];

	switch (t->kind) {
	case DIFF_TASKS: {
		int32_t pid = r->pid[DIFF_NEW] >= 0 ? r->pid[DIFF_NEW] : r->pid[DIFF_BASE];
		uint32_t nt = r->ntasks[DIFF_NEW] ? r->ntasks[DIFF_NEW] : r->ntasks[DIFF_BASE];

		if (nt <= 1)
			snprintf(buf, len, text ? "%8d  %s" : "%7d %s", (int)pid, r->name);
		else
			snprintf(buf, len, text ? "%8d  %s (%u threads)" : "%7d %s (%u)", (int)pid,
				 r->name, nt);
		break;
	}
	case DIFF_CPUS:
		snprintf(buf, len, "%s", r->cpu >= 0 ? r->name : "all");
		break;
	case DIFF_LATENCY:
		if (r->cpu >= 0)
			snprintf(buf, len, text ? "%-4d %s" : "%-3d %s", (int)r->cpu, r->name);
		else
			snprintf(buf, len, text ? "all  %s" : "all %s", r->name);
		break;
	case DIFF_HIST: {
		/* an in-kernel measure's buckets hold (lo, hi] */
		bool agg = r->series >= DIFF_SERIES_AGG;

		diff_fmt(lo, sizeof(lo), DIFF_U_NS, (double)r->lo, false);
		if (r->hi == UINT64_MAX)
			snprintf(hi, sizeof(hi), "inf");
		else
			diff_fmt(hi, sizeof(hi), DIFF_U_NS, (double)r->hi, false);
		if (text)
			snprintf(buf, len, agg ? "%-16s (%s, %s]" : "%-16s [%s, %s)", r->name, lo,
				 hi);
		else
			snprintf(buf, len, agg ? "(%s, %s] %s" : "[%s, %s) %s", lo, hi, r->name);
		break;
	}
	default:
		snprintf(buf, len, "%s", r->name);
		break;
	}
	return buf;
}

const char *diff_fmt_ratio(char *buf, size_t len, const struct diff_row *r, unsigned int col)
{
	double b = r->v[DIFF_BASE][col], n = r->v[DIFF_NEW][col];

	if (!(r->in & DIFF_IN_BASE) || (b == 0 && n != 0 && !isnan(n)))
		snprintf(buf, len, "new");
	else if (!(r->in & DIFF_IN_NEW) || (n == 0 && b != 0 && !isnan(b)))
		snprintf(buf, len, "gone");
	else if (isnan(b) || isnan(n) || b == 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2fx", n / b);
	return buf;
}

/* ---- the sides ----------------------------------------------------------------------- */

static void side_name(struct diff_side *s)
{
	const struct snapshot_meta *m = app_recording_meta(s->a);
	struct utsname u;

	s->live = app_flags(s->a) & SOURCE_KERNEL;
	if (s->live) {
		snprintf(s->name, sizeof(s->name), "live");
		if (!uname(&u))
			snprintf(s->release, sizeof(s->release), "%s", u.release);
		return;
	}
	snprintf(s->name, sizeof(s->name), "%s", s->a->opts.input ? s->a->opts.input : "?");
	if (m)
		snprintf(s->release, sizeof(s->release), "%s", m->release);
}

static void side_models_free(struct diff_side *s)
{
	tasks_free(s->tasks);
	s->tasks = NULL;
	fgraph_free(s->g);
	s->g = NULL;
	s->g_fed = 0;
	latency_free(s->lat);
	s->lat = NULL;
	s->lat_fed = 0;
	net_free(s->net);
	s->net = NULL;
	s->net_tried = false;
}

/* Which event types the window [@t0, @t1] of @s holds (from the chunks' counts). */
static void side_types(struct diff_side *s, uint64_t t0, uint64_t t1)
{
	struct store_filter f = { .t0 = t0, .t1 = t1, .pid = -1, .cpu = -1 };
	struct store_count v[256];
	size_t n = store_count_by(s->st, STORE_KEY_TYPE, &f, v, 256);

	s->types = 0;
	s->dyn_types = n > 256;
	for (size_t i = 0; i < n && i < 256; i++) {
		if (v[i].key < 64)
			s->types |= DIFF_T(v[i].key);
		else
			s->dyn_types = true;
	}
}

/* Read @s's window. Return: true when it moved. */
static bool side_window(struct diff_side *s)
{
	uint64_t t0 = 0, t1 = 0, end;
	struct store_stats ss;
	bool ready = false;

	s->st = s->a->st;
	s->vf = app_view(s->a);
	end = s->st ? app_feed_end(s->a, DIFF_LAG_NS) : 0;
	if (end && s->st) {
		store_get_stats(s->st, &ss);
		if (ss.events) {
			t0 = ss.first_ts;
			t1 = end < ss.last_ts ? end : ss.last_ts;
			ready = t1 >= t0;
		}
		s->events = ss.events;
		s->lost = ss.lost;
	}
	if (ready && (t0 != s->t0 || t1 != s->t1 || !s->ready))
		side_types(s, t0, t1);
	if (!ready)
		t0 = t1 = 0;
	if (ready == s->ready && t0 == s->t0 && t1 == s->t1)
		return false;
	/* the models hold what they read: an older start (eviction) means reading again */
	if (t0 != s->t0 || !ready)
		side_models_free(s);
	s->ready = ready;
	s->t0 = t0;
	s->t1 = t1;
	s->secs = ready ? (double)(t1 - t0) / 1e9 : 0;
	return true;
}

static void diff_tables_free(struct diff *d)
{
	for (int k = 0; k < DIFF_NKINDS; k++) {
		free(d->tab[k].rows);
		memset(&d->tab[k], 0, sizeof(d->tab[k]));
		diff_pool_free(&d->pool[k]);
		d->made[k] = false;
	}
	diff_stree_free(d->stree);
	d->stree = NULL;
}

static void diff_make_notes(struct diff *d);

struct diff *diff_new(struct app *base, struct app *new)
{
	struct diff *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->side[DIFF_BASE].a = base;
	d->side[DIFF_NEW].a = new;
	for (int i = 0; i < DIFF_NSIDES; i++)
		side_name(&d->side[i]);
	diff_refresh(d);
	return d;
}

void diff_free(struct diff *d)
{
	if (!d)
		return;
	diff_tables_free(d);
	for (int i = 0; i < DIFF_NSIDES; i++)
		side_models_free(&d->side[i]);
	free(d);
}

bool diff_refresh(struct diff *d)
{
	bool moved = false;

	for (int i = 0; i < DIFF_NSIDES; i++)
		moved |= side_window(&d->side[i]);
	if (moved || !d->nnotes) {
		diff_tables_free(d);
		diff_make_notes(d);
	}
	return moved;
}

bool diff_ready(const struct diff *d)
{
	for (int i = 0; i < DIFF_NSIDES; i++)
		if (!d->side[i].ready || (!d->side[i].live && app_loading(d->side[i].a)))
			return false;
	return true;
}

void diff_side(const struct diff *d, enum diff_sides i, struct diff_side_info *out)
{
	const struct diff_side *s = &d->side[i];
	const char *t = app_tracer(s->a);

	memset(out, 0, sizeof(*out));
	out->name = s->name;
	out->live = s->live;
	out->loading = !s->live && app_loading(s->a);
	out->secs = s->secs;
	out->ncpus = s->st ? store_ncpus(s->st) : 0;
	out->events = s->events;
	out->lost = s->lost;
	out->t0 = s->t0;
	out->t1 = s->t1;
	out->tracer = t && strcmp(t, "nop") ? t : "";
	out->release = s->release;
	out->view = s->vf != NULL;
}

static void diff_make_notes(struct diff *d)
{
	struct diff_side_info b, n;

	d->nnotes = 0;
	diff_side(d, DIFF_BASE, &b);
	diff_side(d, DIFF_NEW, &n);
#define NOTE(...) \
	do { \
		if (d->nnotes < sizeof(d->notes) / sizeof(d->notes[0])) \
			snprintf(d->notes[d->nnotes++], sizeof(d->notes[0]), __VA_ARGS__); \
	} while (0)
	if (b.ncpus != n.ncpus && b.ncpus && n.ncpus)
		NOTE("CPU counts differ: BASE has %u CPUs, NEW %u; CPU rows are matched by "
		     "number, and a CPU one side lacks is new or gone", b.ncpus, n.ncpus);
	if (b.release[0] && n.release[0] && strcmp(b.release, n.release))
		NOTE("kernels differ: BASE %s, NEW %s; events, fields and functions are "
		     "matched by name", b.release, n.release);
	if (strcmp(b.tracer, n.tracer))
		NOTE("tracers differ: BASE %s, NEW %s", b.tracer[0] ? b.tracer : "none",
		     n.tracer[0] ? n.tracer : "none");
	for (int i = 0; i < DIFF_NSIDES; i++) {
		const struct diff_side_info *s = i ? &n : &b;

		if (s->lost)
			NOTE("%s lost %llu events: its rates are low by as much", i ? "NEW" : "BASE",
			     (unsigned long long)s->lost);
	}
	if (b.view || n.view)
		NOTE("a view filter applies: every figure counts only the events it keeps");
#undef NOTE
}

unsigned int diff_notes(struct diff *d, const char **out, unsigned int max)
{
	for (unsigned int i = 0; i < d->nnotes && i < max; i++)
		out[i] = d->notes[i];
	return d->nnotes;
}

/* ---- walking a side's events ----------------------------------------------------------- */

bool diff_keep(void *ctx, const struct ktop_event *ev)
{
	return viewfilter_match(ctx, ev);
}

static bool dict_has(const struct store_chunk_dict *dict, uint64_t types)
{
	for (uint32_t i = 0; i < dict->ntype; i++)
		if (dict->type[i] < 64 && (types & DIFF_T(dict->type[i])))
			return true;
	return false;
}

int diff_walk(struct diff_side *s, uint64_t types, unsigned int cols,
	      int (*fn)(void *ctx, const struct ktop_event *ev), void *ctx)
{
	struct store_chunk_rd *rd;
	struct store_chunk_info ci[32];
	int ret = 0;

	if (!s->ready || (types && !(s->types & types)))
		return 0;
	/* a view filter reads the whole event; the window needs the times */
	cols = s->vf ? STORE_COL_ALL : cols | STORE_COL_TS | (types ? STORE_COL_TYPE : 0);
	rd = store_chunk_rd_new(s->st);
	if (!rd)
		return -ENOMEM;
	for (unsigned int cpu = 0; !ret && cpu < store_ncpus(s->st); cpu++) {
		uint64_t from = store_seek(s->st, cpu, s->t0);
		bool done = false;
		size_t n;

		while (!ret && !done && (n = store_chunks(s->st, cpu, from, ci, 32))) {
			for (size_t c = 0; !ret && !done && c < n; c++) {
				struct store_chunk_dict dict;
				struct store_chunk_rows r;

				if (ci[c].t_min > s->t1) {
					done = true;
					break;
				}
				if (types && ci[c].sealed &&
				    !store_chunk_dict(rd, cpu, ci[c].first_seq, &dict) &&
				    !dict_has(&dict, types))
					goto next;
				if (store_chunk_rows(rd, cpu, from > ci[c].first_seq ? from :
						     ci[c].first_seq, cols, &r))
					goto next;
				for (uint32_t i = r.lo; i < r.n; i++) {
					const struct store_brow *w = &r.row[i];
					struct ktop_event ev;

					if (w->ts < s->t0)
						continue;
					if (w->ts > s->t1) {
						done = true;
						break;
					}
					if (types && (w->type >= 64 || !(types & DIFF_T(w->type))))
						continue;
					if (cols & STORE_COL_ARGS) {
						store_chunk_event(rd, i, cpu, &ev);
					} else {
						ev.ts = w->ts;
						ev.pid = w->pid;
						ev.type = w->type;
						ev.flags = w->flags;
						ev.pc = w->pc;
						ev.cpu = (uint16_t)cpu;
						ev.nargs = 0;
						ev.stack = 0;
					}
					if (s->vf && !viewfilter_match(s->vf, &ev))
						continue;
					ret = fn(ctx, &ev);
					if (ret)
						break;
				}
next:
				from = ci[c].first_seq + ci[c].n;
			}
			if (n < 32)
				break;
		}
	}
	store_chunk_rd_free(rd);
	return ret;
}

struct run_arg {
	void			(*fn)(struct diff_side *s, void *arg);
	struct diff_side	*s;
	void			*arg;
};

static void *run_side(void *p)
{
	struct run_arg *r = p;

	r->fn(r->s, r->arg);
	return NULL;
}

void diff_sides_run(struct diff *d, void (*fn)(struct diff_side *s, void *arg), void *arg[2])
{
	struct run_arg r = { fn, &d->side[DIFF_BASE], arg[DIFF_BASE] };
	pthread_t th;
	bool threaded = d->side[DIFF_BASE].ready && d->side[DIFF_NEW].ready &&
			!pthread_create(&th, NULL, run_side, &r);

	if (!threaded)
		fn(&d->side[DIFF_BASE], arg[DIFF_BASE]);
	fn(&d->side[DIFF_NEW], arg[DIFF_NEW]);
	if (threaded)
		pthread_join(th, NULL);
}

/* ---- counts by key ----------------------------------------------------------------- */

/* Every key of @key in @s's window (under its view). Return: how many, or -ENOMEM. */
static long side_count_by(struct diff_side *s, enum store_key key, struct store_count **out)
{
	struct store_filter f = { .t0 = s->t0, .t1 = s->t1, .pid = -1, .cpu = -1 };
	size_t cap = 256, n;

	*out = NULL;
	for (;;) {
		struct store_count *v = realloc(*out, cap * sizeof(*v));

		if (!v) {
			free(*out);
			*out = NULL;
			return -ENOMEM;
		}
		*out = v;
		if (s->vf)
			n = viewfilter_count_by(s->vf, key, -1, s->t0, s->t1, v, cap);
		else
			n = store_count_by(s->st, key, &f, v, cap);
		if (n <= cap)
			return (long)n;
		cap = n + n / 4;
	}
}

static void make_events(struct diff *d, struct diff_build *b)
{
	for (int i = 0; i < DIFF_NSIDES; i++) {
		struct diff_side *s = &d->side[i];
		struct store_count *v;
		long n;

		if (!s->ready)
			continue;
		n = side_count_by(s, STORE_KEY_TYPE, &v);
		for (long k = 0; k < n; k++) {
			const struct ktop_schema_type *t =
				schema_get(store_schema(s->st), (uint16_t)v[k].key);
			char name[160];

			if (!t)
				snprintf(name, sizeof(name), "type#%llu",
					 (unsigned long long)v[k].key);
			else if (t->system && t->system[0])
				snprintf(name, sizeof(name), "%s:%s", t->system, t->name);
			else
				snprintf(name, sizeof(name), "%s", t->name);
			diff_build_add(b, i, name, 0, diff_rate(s, (double)v[k].count));
		}
		b->t->have[i] = n > 0;
		free(v);
	}
}

static void make_funcs(struct diff *d, struct diff_build *b)
{
	for (int i = 0; i < DIFF_NSIDES; i++) {
		struct diff_side *s = &d->side[i];
		struct store_count *v;
		long n;

		if (!s->ready)
			continue;
		n = side_count_by(s, STORE_KEY_FUNC, &v);
		for (long k = 0; k < n; k++) {
			const char *name = intern_str(store_strings(s->st), (uint32_t)v[k].key);

			diff_build_add(b, i, name && *name ? name : "?", 0,
				       diff_rate(s, (double)v[k].count));
		}
		b->t->have[i] = n > 0;
		free(v);
	}
	if (!b->t->have[0] && !b->t->have[1])
		snprintf(b->t->note, sizeof(b->t->note),
			 "neither recording has function or function_graph events");
}

/* ---- CPUs ------------------------------------------------------------------------------ */

struct cpu_walk {
	struct flags_count	*fc;
	unsigned int		ncpus;
	int			err;
};

static int cpu_event(void *ctx, const struct ktop_event *ev)
{
	struct cpu_walk *w = ctx;

	if (ev->cpu < w->ncpus)
		flags_count_add(&w->fc[ev->cpu], ev->flags, ev->pc);
	return 0;
}

static void cpu_prep(struct diff_side *s, void *arg)
{
	struct cpu_walk *w = arg;

	if (!s->ready)
		return;
	w->ncpus = store_ncpus(s->st);
	w->fc = calloc(w->ncpus, sizeof(*w->fc));
	if (!w->fc || diff_walk(s, 0, STORE_COL_TYPE, cpu_event, w))
		w->err = -ENOMEM;
}

static void make_cpus(struct diff *d, struct diff_build *b)
{
	struct cpu_walk w[DIFF_NSIDES] = { { 0 } };

	diff_sides_run(d, cpu_prep, (void *[]){ &w[0], &w[1] });
	for (int i = 0; i < DIFF_NSIDES; i++) {
		struct diff_side *s = &d->side[i];
		struct flags_count all = { 0 };

		if (w[i].err)
			b->err = w[i].err;
		for (unsigned int c = 0; w[i].fc && c <= w[i].ncpus; c++) {
			const struct flags_count *fc = c < w[i].ncpus ? &w[i].fc[c] : &all;
			uint64_t rec = fc->events - fc->unrec;
			struct diff_row *r;
			char key[32];

			if (c < w[i].ncpus && !fc->events)
				continue;
			if (c < w[i].ncpus) {
				all.events += fc->events;
				all.unrec += fc->unrec;
				for (int f = 0; f < FLAGS_S_NR; f++)
					all.n[f] += fc->n[f];
				snprintf(key, sizeof(key), "%u", c);
			} else {
				snprintf(key, sizeof(key), "all");
			}
			r = diff_build_row(b, key, strlen(key), NULL);
			if (!r)
				break;
			r->cpu = c < w[i].ncpus ? (int32_t)c : -1;
			r->in |= i == DIFF_BASE ? DIFF_IN_BASE : DIFF_IN_NEW;
			r->v[i][0] = diff_rate(s, (double)fc->events);
			for (int f = 0; f < FLAGS_S_NR; f++)
				r->v[i][1 + f] = rec ? 100.0 * (double)fc->n[f] / (double)rec : 0;
		}
		b->t->have[i] = all.events > 0;
		free(w[i].fc);
	}
}

/* ---- syscalls --------------------------------------------------------------------------- */

struct sys_walk {
	struct hmap	nr;		/* syscall nr -> count */
	int		err;
};

static int sys_event(void *ctx, const struct ktop_event *ev)
{
	struct sys_walk *w = ctx;
	uint64_t *c = hmap_put(&w->nr, ev->args[0], NULL);

	if (!c)
		return w->err = -ENOMEM;
	(*c)++;
	return 0;
}

static void sys_prep(struct diff_side *s, void *arg)
{
	struct sys_walk *w = arg;

	if (diff_walk(s, DIFF_T(KTOP_T_SYS_ENTER), STORE_COL_ARGS, sys_event, w) && !w->err)
		w->err = -ENOMEM;
}

static void make_syscalls(struct diff *d, struct diff_build *b)
{
	struct sys_walk w[DIFF_NSIDES];

	memset(w, 0, sizeof(w));

	diff_sides_run(d, sys_prep, (void *[]){ &w[0], &w[1] });
	for (int i = 0; i < DIFF_NSIDES; i++) {
		struct diff_side *s = &d->side[i];
		uint64_t nr, count;
		size_t pos = 0;

		if (w[i].err)
			b->err = w[i].err;
		while (hmap_next(&w[i].nr, &pos, &nr, &count)) {
			const char *name = syscall_name((uint32_t)nr);
			char buf[32];

			if (!name) {
				snprintf(buf, sizeof(buf), "sys_%llu", (unsigned long long)nr);
				name = buf;
			}
			diff_build_add(b, i, name, 0, diff_rate(s, (double)count));
		}
		b->t->have[i] = hmap_count(&w[i].nr) > 0;
		hmap_destroy(&w[i].nr);
	}
	if (!b->t->have[0] && !b->t->have[1])
		snprintf(b->t->note, sizeof(b->t->note),
			 "neither recording has raw_syscalls:sys_enter events");
}

/* ---- the tables ------------------------------------------------------------------------- */

const struct diff_table *diff_table(struct diff *d, enum diff_kind k)
{
	struct diff_build b;

	if ((unsigned int)k >= DIFF_NKINDS)
		k = DIFF_EVENTS;
	if (d->made[k])
		return &d->tab[k];
	free(d->tab[k].rows);
	memset(&d->tab[k], 0, sizeof(d->tab[k]));
	diff_pool_free(&d->pool[k]);
	diff_build_start(&b, d, k);
	switch (k) {
	case DIFF_EVENTS:
		make_events(d, &b);
		break;
	case DIFF_TASKS:
		diff_make_tasks(d, &b);
		break;
	case DIFF_CPUS:
		make_cpus(d, &b);
		break;
	case DIFF_SYSCALLS:
		make_syscalls(d, &b);
		break;
	case DIFF_FUNCS:
		make_funcs(d, &b);
		break;
	case DIFF_PATHS:
		diff_make_paths(d, &b);
		break;
	case DIFF_LATENCY:
		diff_make_latency(d, &b, false);
		break;
	case DIFF_HIST:
		diff_make_latency(d, &b, true);
		break;
	case DIFF_STACKS:
		diff_make_stacks(d, &b);
		break;
	case DIFF_CONNS:
		diff_make_conns(d, &b);
		break;
	case DIFF_DROPS:
		diff_make_drops(d, &b);
		break;
	case DIFF_BPF:
		diff_make_bpf(d, &b);
		break;
	case DIFF_AGG:
		diff_make_agg(d, &b);
		break;
	default:
		break;
	}
	diff_build_end(&b, k == DIFF_HIST);
	d->made[k] = true;
	return &d->tab[k];
}
