// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The diff's tables that come from the models the panes use, one model per
 * side fed from its store: the tasks (src/view/tasks.h), the function_graph
 * call paths (src/model/fgraph.h, the aggregated view), the osnoise/timerlat
 * tables and histograms (src/model/latency.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "diff-local.h"
#include "lib/hashmap.h"
#include "model/fgraph.h"
#include "model/latency.h"
#include "view/tasks.h"

/* ---- tasks, by comm -------------------------------------------------------------- */

struct comm_agg {
	const char	*comm;
	uint64_t	events, syscalls, switches;
	uint64_t	runq_ns, runq_n, offcpu_ns;
	uint64_t	best;		/* events of the busiest task */
	int32_t		pid;		/* ... its pid */
	uint32_t	ntasks;
};

/* Feed @s's tasks model up to its window's end (its own thread: diff_sides_run). */
static void tasks_prep(struct diff_side *s, void *arg)
{
	int *err = arg;

	if (!s->ready)
		return;
	if (!s->tasks) {
		s->tasks = tasks_new(s->st, NULL);
		if (!s->tasks) {
			*err = -ENOMEM;
			return;
		}
		tasks_set_view(s->tasks, s->vf);
	}
	if (tasks_update(s->tasks, s->t1) < 0)
		*err = -ENOMEM;
}

void diff_make_tasks(struct diff *d, struct diff_build *b)
{
	int err[DIFF_NSIDES] = { 0, 0 };

	diff_sides_run(d, tasks_prep, (void *[]){ &err[0], &err[1] });
	for (int i = 0; i < DIFF_NSIDES; i++) {
		struct diff_side *s = &d->side[i];
		struct tasks_query q = { .sort = TASKS_BY_EVENTS };
		struct comm_agg *agg = NULL;
		struct tasks_row *rows;
		struct strmap by = { 0 };
		size_t n, na = 0;

		if (!s->ready || !s->tasks || err[i]) {
			b->err = err[i] ? err[i] : b->err;
			continue;
		}
		n = tasks_rows(s->tasks, &q, NULL, 0);
		rows = malloc((n ? n : 1) * sizeof(*rows));
		agg = calloc(n ? n : 1, sizeof(*agg));
		if (!rows || !agg) {
			free(rows);
			free(agg);
			b->err = -ENOMEM;
			return;
		}
		n = tasks_rows(s->tasks, &q, rows, n);
		for (size_t k = 0; k < n; k++) {
			const struct tasks_row *t = &rows[k];
			const char *comm = t->comm ? t->comm : "<...>";
			bool added;
			uint64_t *slot;
			struct comm_agg *c;

			if (!t->events && !t->switches)
				continue;
			slot = strmap_put(&by, comm, &added);
			if (!slot) {
				b->err = -ENOMEM;
				break;
			}
			if (added) {
				*slot = na;
				agg[na].comm = comm;
				agg[na].pid = -1;
				na++;
			}
			c = &agg[*slot];
			c->events += t->events;
			c->syscalls += t->syscalls;
			c->switches += t->switches;
			c->runq_ns += t->runq_ns;
			c->runq_n += t->runq_n;
			c->offcpu_ns += t->offcpu_ns;
			c->ntasks++;
			if (c->pid < 0 || t->events > c->best) {
				c->best = t->events;
				c->pid = t->pid;
			}
		}
		for (size_t k = 0; k < na; k++) {
			const struct comm_agg *c = &agg[k];
			struct diff_row *r = diff_build_row(b, c->comm, strlen(c->comm), NULL);

			if (!r)
				break;
			r->in |= i == DIFF_BASE ? DIFF_IN_BASE : DIFF_IN_NEW;
			r->pid[i] = c->pid;
			r->ntasks[i] = c->ntasks;
			r->v[i][0] = diff_rate(s, (double)c->events);
			r->v[i][1] = diff_rate(s, (double)c->syscalls);
			r->v[i][2] = diff_rate(s, (double)c->switches);
			r->v[i][3] = c->runq_n ? (double)c->runq_ns / (double)c->runq_n : NAN;
			r->v[i][4] = diff_rate(s, (double)c->offcpu_ns);
		}
		b->t->have[i] = na > 0;
		strmap_destroy(&by);
		free(rows);
		free(agg);
	}
	/* a comm on one side only has no run-queue figure on the other: unknown, not 0 */
	for (size_t k = 0; k < b->t->n; k++) {
		struct diff_row *r = &b->t->rows[k];

		for (int i = 0; i < DIFF_NSIDES; i++)
			if (!(r->in & (1u << i)))
				r->v[i][3] = NAN;
	}
}

/* ---- function_graph call paths --------------------------------------------------- */

struct fgraph *diff_side_fgraph(struct diff_side *s)
{
	if (!diff_side_has(s, DIFF_T(KTOP_T_FGRAPH_ENTRY) | DIFF_T(KTOP_T_FGRAPH_EXIT)))
		return NULL;
	if (!s->g) {
		s->g = app_fgraph_new(s->a, s->vf ? diff_keep : NULL, s->vf);
		s->g_fed = 0;
		if (!s->g)
			return NULL;
	}
	if (s->t1 > s->g_fed || !s->g_fed) {
		uint64_t from = s->g_fed ? s->g_fed + 1 : s->t0;

		if (fgraph_feed_store(s->g, s->st, from, s->t1) < 0)
			return NULL;
		s->g_fed = s->t1;
	}
	return s->g;
}

struct path_walk {
	struct diff_build	*b;
	struct diff_side	*s;
	int			side;
	struct fgraph		*g;
	char			path[8192];
	uint64_t		calls;
};

static void path_node(struct path_walk *w, uint32_t id, size_t len)
{
	struct fgraph_info fi;

	for (uint32_t k = fgraph_first_child(w->g, FGRAPH_AGG, id); k != FGRAPH_NONE;
	     k = fgraph_next_sibling(w->g, FGRAPH_AGG, k)) {
		size_t l = len, nl;
		struct diff_row *r;

		if (fgraph_node(w->g, FGRAPH_AGG, k, &fi))
			continue;
		if (fi.kind == FGRAPH_K_GAP)
			continue;
		if (fi.kind == FGRAPH_K_TASK) {
			path_node(w, k, 0);
			continue;
		}
		if (fi.kind == FGRAPH_K_IRQ) {
			l = (size_t)snprintf(w->path, sizeof(w->path), "%s", fi.name ? fi.name :
					     "[interrupts]");
			path_node(w, k, l);
			continue;
		}
		nl = strlen(fi.name ? fi.name : "?");
		if (l + nl + 2 >= sizeof(w->path))
			continue;
		if (l)
			w->path[l++] = ';';
		memcpy(w->path + l, fi.name ? fi.name : "?", nl);
		l += nl;
		w->path[l] = 0;
		if (fi.count) {
			r = diff_build_row(w->b, w->path, l, NULL);
			if (!r)
				return;
			r->in |= w->side == DIFF_BASE ? DIFF_IN_BASE : DIFF_IN_NEW;
			r->v[w->side][0] += diff_rate(w->s, (double)fi.count);
			r->v[w->side][1] += diff_rate(w->s, (double)fi.total);
			r->v[w->side][2] += diff_rate(w->s, (double)fi.self);
			/* per call: sums kept in the rate columns' ratio, set below */
			w->calls += fi.count;
		}
		path_node(w, k, l);
	}
}

static void fgraph_prep(struct diff_side *s, void *arg)
{
	(void)arg;
	diff_side_fgraph(s);
}

void diff_make_paths(struct diff *d, struct diff_build *b)
{
	diff_sides_run(d, fgraph_prep, (void *[]){ NULL, NULL });
	for (int i = 0; i < DIFF_NSIDES; i++) {
		struct diff_side *s = &d->side[i];
		struct fgraph *g = s->g;
		struct path_walk *w;
		struct fgraph_info fi;

		if (!g)
			continue;
		w = malloc(sizeof(*w));
		if (!w) {
			b->err = -ENOMEM;
			return;
		}
		w->b = b;
		w->s = s;
		w->side = i;
		w->g = g;
		w->calls = 0;
		w->path[0] = 0;
		/* fgraph_node() brings the aggregated view up to date; the walk then reads it */
		if (!fgraph_node(g, FGRAPH_AGG, FGRAPH_ROOT, &fi))
			path_node(w, FGRAPH_ROOT, 0);
		b->t->have[i] = w->calls > 0;
		free(w);
	}
	for (size_t k = 0; k < b->t->n; k++) {
		struct diff_row *r = &b->t->rows[k];

		for (int i = 0; i < DIFF_NSIDES; i++) {
			double calls = r->v[i][0];

			r->v[i][3] = calls > 0 ? r->v[i][1] / calls : NAN;
			r->v[i][4] = calls > 0 ? r->v[i][2] / calls : NAN;
		}
	}
	if (!b->t->have[0] && !b->t->have[1])
		snprintf(b->t->note, sizeof(b->t->note),
			 "neither recording has function_graph calls");
}

/* ---- osnoise / timerlat ------------------------------------------------------------ */

#define LAT_TYPES	(DIFF_T(KTOP_T_TIMERLAT) | DIFF_T(KTOP_T_OSNOISE) | \
			 DIFF_T(KTOP_T_IRQ_NOISE) | DIFF_T(KTOP_T_SOFTIRQ_NOISE) | \
			 DIFF_T(KTOP_T_NMI_NOISE) | DIFF_T(KTOP_T_THREAD_NOISE) | \
			 DIFF_T(KTOP_T_SAMPLE_THRESHOLD))

static int lat_event(void *ctx, const struct ktop_event *ev)
{
	return latency_feed(ctx, ev) < 0 ? -ENOMEM : 0;
}

/*
 * The latency model of @s's window: its samples only (the chunks that hold
 * none are skipped), each CPU's in time order, as latency_feed() wants them;
 * made again whole when the window moved.
 */
struct latency *diff_side_latency(struct diff_side *s)
{
	if (!diff_side_has(s, LAT_TYPES))
		return NULL;
	if (s->lat && s->lat_fed == s->t1)
		return s->lat;
	if (!s->lat)
		s->lat = latency_new(NULL);
	else
		latency_reset(s->lat);
	s->lat_fed = 0;
	if (!s->lat || diff_walk(s, LAT_TYPES, STORE_COL_ARGS, lat_event, s->lat))
		return NULL;
	s->lat_fed = s->t1;
	return s->lat;
}

static void lat_prep(struct diff_side *s, void *arg)
{
	(void)arg;
	diff_side_latency(s);
}

static const char *const series_names[LATENCY_NSERIES] = {
	[LATENCY_TL_IRQ] = "timerlat irq",
	[LATENCY_TL_THREAD] = "timerlat thread",
	[LATENCY_TL_USER] = "timerlat user",
	[LATENCY_OS_SAMPLE] = "osnoise sample",
	[LATENCY_OS_NOISE] = "osnoise noise",
};

static const char *const noise_names[LATENCY_NNOISE] = {
	[LATENCY_N_IRQ] = "osnoise irq noise",
	[LATENCY_N_SOFTIRQ] = "osnoise softirq noise",
	[LATENCY_N_NMI] = "osnoise nmi noise",
	[LATENCY_N_THREAD] = "osnoise thread noise",
	[LATENCY_N_THRESHOLD] = "osnoise sample_threshold",
};

/* One latency row: count/s, min, avg, max of a stat. */
static void lat_row(struct diff_build *b, struct diff_side *s, int side, const char *name,
		    int series, int cpu, double count, double min, double avg, double max)
{
	char key[96];
	struct diff_row *r;

	if (cpu >= 0)
		snprintf(key, sizeof(key), "%s\tcpu %d", name, cpu);
	else
		snprintf(key, sizeof(key), "%s\tall", name);
	r = diff_build_row(b, key, strlen(key), name);
	if (!r)
		return;
	r->in |= side == DIFF_BASE ? DIFF_IN_BASE : DIFF_IN_NEW;
	r->cpu = cpu;
	r->series = series;
	r->v[side][0] = diff_rate(s, count);
	r->v[side][1] = min;
	r->v[side][2] = avg;
	r->v[side][3] = max;
}

static void lat_rows(struct diff_build *b, struct diff_side *s, int side,
		     const struct latency_row *lr)
{
	int cpu = lr->cpu;

	for (int k = 0; k < 3; k++) {
		const struct latency_stat *st = &lr->tl[k];

		if (st->count)
			lat_row(b, s, side, series_names[k], k, cpu, (double)st->count,
				(double)st->min, (double)st->sum / (double)st->count,
				(double)st->max);
	}
	if (lr->os_samples)
		/* a period: its noise (no minimum kept), the largest period's noise */
		lat_row(b, s, side, "osnoise period", LATENCY_OS_SAMPLE, cpu,
			(double)lr->os_samples, NAN,
			(double)lr->os_noise / (double)lr->os_samples, (double)lr->os_max_noise);
	for (int k = 0; k < LATENCY_NNOISE; k++) {
		const struct latency_stat *st = &lr->noise[k];

		if (st->count)
			lat_row(b, s, side, noise_names[k], LATENCY_OS_NOISE, cpu,
				(double)st->count, (double)st->min,
				(double)st->sum / (double)st->count, (double)st->max);
	}
}

/* The histograms: per series, samples/s per bucket, in bucket order. */
static void hist_rows(struct diff *d, struct diff_build *b)
{
	struct latency *l[DIFF_NSIDES];
	unsigned int nb = 0;

	for (int i = 0; i < DIFF_NSIDES; i++) {
		l[i] = diff_side_latency(&d->side[i]);
		if (l[i])
			nb = latency_hist_nbuckets(l[i]);
	}
	for (int sr = 0; sr < LATENCY_NSERIES && nb; sr++) {
		uint64_t h[DIFF_NSIDES][128] = { { 0 } };
		int lo = -1, hi = -1;

		if (nb > 128)
			nb = 128;
		for (int i = 0; i < DIFF_NSIDES; i++) {
			if (!l[i] || latency_hist(l[i], -1, sr, h[i], nb) < 0)
				continue;
			for (unsigned int k = 0; k < nb; k++) {
				if (!h[i][k])
					continue;
				if (lo < 0 || (int)k < lo)
					lo = (int)k;
				if ((int)k > hi)
					hi = (int)k;
				b->t->have[i] = true;
			}
		}
		for (int k = lo; lo >= 0 && k <= hi; k++) {
			uint64_t blo, bhi;
			char key[96], name[96];
			struct diff_row *r;

			latency_hist_bounds(l[0] ? l[0] : l[1], (unsigned int)k, &blo, &bhi);
			snprintf(key, sizeof(key), "%s\t%d", series_names[sr], k);
			snprintf(name, sizeof(name), "%s", series_names[sr]);
			r = diff_build_row(b, key, strlen(key), name);
			if (!r)
				return;
			r->series = sr;
			r->lo = blo;
			r->hi = bhi;
			for (int i = 0; i < DIFF_NSIDES; i++) {
				if (!l[i])
					continue;
				r->in |= i == DIFF_BASE ? DIFF_IN_BASE : DIFF_IN_NEW;
				r->v[i][0] = diff_rate(&d->side[i], (double)h[i][k]);
			}
		}
	}
}

void diff_make_latency(struct diff *d, struct diff_build *b, bool hist)
{
	diff_sides_run(d, lat_prep, (void *[]){ NULL, NULL });
	if (hist) {
		hist_rows(d, b);
		diff_agg_hist(d, b);
	} else {
		for (int i = 0; i < DIFF_NSIDES; i++) {
			struct diff_side *s = &d->side[i];
			struct latency *l = diff_side_latency(s);
			struct latency_row lr;

			if (!l || latency_row(l, -1, &lr))
				continue;
			b->t->have[i] = lr.tl[0].count || lr.tl[1].count || lr.tl[2].count ||
					lr.os_samples;
			for (int k = 0; k < LATENCY_NNOISE; k++)
				b->t->have[i] |= lr.noise[k].count > 0;
			if (!b->t->have[i])
				continue;
			lat_rows(b, s, i, &lr);
			for (unsigned int c = 0; c < latency_ncpus(l); c++)
				if (latency_cpu_seen(l, c) && !latency_row(l, (int)c, &lr))
					lat_rows(b, s, i, &lr);
		}
		/* a row on one side only: its min/avg/max are unknown on the other */
		for (size_t k = 0; k < b->t->n; k++) {
			struct diff_row *r = &b->t->rows[k];

			for (int i = 0; i < DIFF_NSIDES; i++)
				if (!(r->in & (1u << i)))
					r->v[i][1] = r->v[i][2] = r->v[i][3] = NAN;
		}
	}
	if (!b->t->have[0] && !b->t->have[1])
		snprintf(b->t->note, sizeof(b->t->note), hist ?
			 "neither recording has osnoise or timerlat samples, or in-kernel latencies" :
			 "neither recording has osnoise or timerlat samples");
}
