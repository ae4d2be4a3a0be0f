// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The osnoise/timerlat latency model: see latency.h.
 *
 * Each CPU has a fixed block: the table figures, one histogram and one
 * sparkline ring per series. The totals row is a block of its own, updated
 * with every sample, so reading it costs nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "latency.h"
#include "store/store.h"

#define NSPARK	(LATENCY_NSERIES + 1)	/* + the max over the timerlat series */

struct lat_block {
	bool			seen;
	struct latency_row	row;
	uint64_t		*hist;		/* LATENCY_NSERIES * nbuckets */
	uint64_t		*spark;		/* NSPARK * spark_len */
	uint64_t		spark_head[NSPARK];	/* newest interval number + 1 (0: none) */
	uint64_t		last_ts;	/* of the last sample (totals: for cur) */
	struct latency_worst	table_worst[2];	/* by enum latency_table */
};

struct latency {
	struct latency_config	cfg;
	struct lat_block	*cpu;
	unsigned int		ncpus, cap;
	struct lat_block	total;
	bool			have_t0;
	uint64_t		t0;		/* time origin of the sparkline intervals */
	uint64_t		ghead;		/* newest interval number + 1 over all CPUs */
	struct latency_worst	stop;
};

static int block_init(struct latency *l, struct lat_block *b, int cpu)
{
	memset(b, 0, sizeof(*b));
	b->hist = calloc((size_t)LATENCY_NSERIES * l->cfg.nbuckets, sizeof(*b->hist));
	b->spark = calloc((size_t)NSPARK * l->cfg.spark_len, sizeof(*b->spark));
	if (!b->hist || !b->spark) {
		free(b->hist);
		free(b->spark);
		return -ENOMEM;
	}
	b->row.cpu = cpu;
	return 0;
}

static void block_clear(struct latency *l, struct lat_block *b)
{
	uint64_t *h = b->hist, *s = b->spark;
	int cpu = b->row.cpu;

	memset(h, 0, (size_t)LATENCY_NSERIES * l->cfg.nbuckets * sizeof(*h));
	memset(s, 0, (size_t)NSPARK * l->cfg.spark_len * sizeof(*s));
	memset(b, 0, sizeof(*b));
	b->hist = h;
	b->spark = s;
	b->row.cpu = cpu;
}

struct latency *latency_new(const struct latency_config *cfg)
{
	struct latency *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	if (cfg)
		l->cfg = *cfg;
	if (!l->cfg.nbuckets)
		l->cfg.nbuckets = l->cfg.hist_mode == LATENCY_HIST_LOG2 ? 64 : 100;
	if (l->cfg.hist_mode == LATENCY_HIST_LOG2 && l->cfg.nbuckets > 64)
		l->cfg.nbuckets = 64;
	if (!l->cfg.bucket_ns)
		l->cfg.bucket_ns = 1000;
	if (!l->cfg.spark_ns)
		l->cfg.spark_ns = 1000000000ull;
	if (!l->cfg.spark_len)
		l->cfg.spark_len = 120;
	if (!l->cfg.osnoise_unit_ns)
		l->cfg.osnoise_unit_ns = 1000;
	if (block_init(l, &l->total, -1)) {
		free(l);
		return NULL;
	}
	return l;
}

void latency_free(struct latency *l)
{
	unsigned int i;

	if (!l)
		return;
	for (i = 0; i < l->ncpus; i++) {
		free(l->cpu[i].hist);
		free(l->cpu[i].spark);
	}
	free(l->cpu);
	free(l->total.hist);
	free(l->total.spark);
	free(l);
}

void latency_reset(struct latency *l)
{
	unsigned int i;

	for (i = 0; i < l->ncpus; i++)
		block_clear(l, &l->cpu[i]);
	block_clear(l, &l->total);
	l->have_t0 = false;
	l->ghead = 0;
	memset(&l->stop, 0, sizeof(l->stop));
}

static struct lat_block *cpu_block(struct latency *l, unsigned int cpu)
{
	if (cpu >= l->cap) {
		unsigned int n = cpu + 1 > 2 * l->cap ? cpu + 1 : 2 * l->cap;
		struct lat_block *b = realloc(l->cpu, n * sizeof(*b));

		if (!b)
			return NULL;
		l->cpu = b;
		l->cap = n;
	}
	while (l->ncpus <= cpu) {
		if (block_init(l, &l->cpu[l->ncpus], (int)l->ncpus))
			return NULL;
		l->ncpus++;
	}
	return &l->cpu[cpu];
}

static unsigned int hist_bucket(const struct latency *l, uint64_t v)
{
	unsigned int b;

	if (l->cfg.hist_mode == LATENCY_HIST_LOG2) {
		b = v < 2 ? 0 : 63 - (unsigned int)__builtin_clzll(v);
	} else {
		uint64_t q = v / l->cfg.bucket_ns;

		b = q >= l->cfg.nbuckets ? l->cfg.nbuckets - 1 : (unsigned int)q;
	}
	return b >= l->cfg.nbuckets ? l->cfg.nbuckets - 1 : b;
}

static void stat_add(struct latency_stat *s, uint64_t v, uint64_t ts)
{
	if (!s->count || v < s->min)
		s->min = v;
	if (!s->count || v > s->max) {
		s->max = v;
		s->max_ts = ts;
	}
	s->count++;
	s->sum += v;
	s->cur = v;
}

/* Sparkline: the max of interval @k in ring @r of @b. */
static void spark_add(struct latency *l, struct lat_block *b, unsigned int r, uint64_t k,
		      uint64_t v)
{
	uint64_t *ring = b->spark + (size_t)r * l->cfg.spark_len, head = b->spark_head[r];
	unsigned int len = l->cfg.spark_len;

	if (k + 1 > head) {
		/* clear the intervals skipped since the newest one */
		uint64_t lo = k + 1 > len ? k + 1 - len : 0, from = head > lo ? head : lo;

		for (uint64_t i = from; i <= k; i++)
			ring[i % len] = 0;
		b->spark_head[r] = head = k + 1;
	}
	if (k + len < head)
		return;	/* older than the ring */
	if (v > ring[k % len])
		ring[k % len] = v;
}

static void worst_offer(struct lat_block *b, enum latency_series s, int cpu, uint64_t v,
			uint64_t ts, uint64_t w0, uint64_t w1, uint64_t seq)
{
	struct latency_worst *ws[2] = {
		&b->row.worst, &b->table_worst[s >= LATENCY_OS_SAMPLE],
	};

	for (int i = 0; i < 2; i++) {
		struct latency_worst *w = ws[i];

		if (w->valid && v <= w->value)
			continue;
		w->valid = true;
		w->series = s;
		w->cpu = cpu;
		w->value = v;
		w->ts = ts;
		w->win_start = w0;
		w->win_end = w1;
		w->seqnum = seq;
	}
}

/* One measured value of @series into @cpu's block and the totals. */
static void sample(struct latency *l, struct lat_block *b, enum latency_series s, uint64_t v,
		   uint64_t ts, uint64_t w0, uint64_t w1, uint64_t seq)
{
	struct lat_block *blk[2] = { b, &l->total };
	unsigned int hb = hist_bucket(l, v);
	uint64_t k;

	if (!l->have_t0) {
		l->have_t0 = true;
		l->t0 = ts;
	}
	k = ts > l->t0 ? (ts - l->t0) / l->cfg.spark_ns : 0;
	if (k + 1 > l->ghead)
		l->ghead = k + 1;
	for (int i = 0; i < 2; i++) {
		struct lat_block *x = blk[i];

		x->seen = true;
		x->hist[(size_t)s * l->cfg.nbuckets + hb]++;
		spark_add(l, x, s, k, v);
		if (s <= LATENCY_TL_USER)
			spark_add(l, x, LATENCY_NSERIES, k, v);
		worst_offer(x, s, b->row.cpu, v, ts, w0, w1, seq);
		if (ts >= x->last_ts)
			x->last_ts = ts;
	}
}

static int feed_timerlat(struct latency *l, struct lat_block *b, const struct ktop_event *ev)
{
	uint64_t seq = ev->args[0], ctx = ev->args[1], v = ev->args[2];
	enum latency_series s;

	if (ctx > 2)
		return 0;
	s = (enum latency_series)(LATENCY_TL_IRQ + ctx);
	stat_add(&b->row.tl[ctx], v, ev->ts);
	stat_add(&l->total.row.tl[ctx], v, ev->ts);
	/* the timer was due at ts - v: the cause ran in between */
	sample(l, b, s, v, ev->ts, ev->ts > v ? ev->ts - v : 0, ev->ts, seq);
	if (l->cfg.stop_ns && v > l->cfg.stop_ns) {
		if (!l->stop.valid)
			l->stop = (struct latency_worst){
				.valid = true, .series = s, .cpu = b->row.cpu, .value = v,
				.ts = ev->ts, .win_start = ev->ts > v ? ev->ts - v : 0,
				.win_end = ev->ts, .seqnum = seq };
		return 1;
	}
	return 0;
}

static void os_avail(struct latency_row *r)
{
	uint64_t net = r->os_runtime > r->os_noise ? r->os_runtime - r->os_noise : 0;

	r->os_avail_ppm = r->os_runtime ? (uint32_t)(net * 1000000 / r->os_runtime) : 0;
}

static int feed_osnoise(struct latency *l, struct lat_block *b, const struct ktop_event *ev)
{
	uint64_t u = l->cfg.osnoise_unit_ns;
	uint64_t runtime = ev->args[0] * u, noise = ev->args[1] * u, single = ev->args[2] * u;
	struct latency_row *rows[2] = { &b->row, &l->total.row };

	for (int i = 0; i < 2; i++) {
		struct latency_row *r = rows[i];

		r->os_samples++;
		r->os_runtime += runtime;
		r->os_noise += noise;
		r->os_cur_runtime = runtime;
		r->os_cur_noise = noise;
		if (noise > r->os_max_noise)
			r->os_max_noise = noise;
		if (single > r->os_max_single)
			r->os_max_single = single;
		r->hw += ev->args[3];
		r->nmi += ev->args[4];
		r->irq += ev->args[5];
		r->softirq += ev->args[6];
		r->thread += ev->args[7];
		os_avail(r);
	}
	/* the sample closes a period of @runtime: the noise was somewhere in it */
	sample(l, b, LATENCY_OS_SAMPLE, single, ev->ts, ev->ts > runtime ? ev->ts - runtime : 0,
	       ev->ts, 0);
	if (l->cfg.stop_ns && single > l->cfg.stop_ns) {
		if (!l->stop.valid)
			l->stop = (struct latency_worst){
				.valid = true, .series = LATENCY_OS_SAMPLE, .cpu = b->row.cpu,
				.value = single, .ts = ev->ts,
				.win_start = ev->ts > runtime ? ev->ts - runtime : 0,
				.win_end = ev->ts };
		return 1;
	}
	return 0;
}

static int feed_noise(struct latency *l, struct lat_block *b, const struct ktop_event *ev)
{
	unsigned int kind = ev->type - KTOP_T_IRQ_NOISE;
	uint64_t start, dur;

	/* start and duration are the first two slots, except thread_noise (comm, pid first) */
	if (ev->type == KTOP_T_THREAD_NOISE) {
		start = ev->args[2];
		dur = ev->args[3];
	} else {
		start = ev->args[0];
		dur = ev->args[1];
	}
	stat_add(&b->row.noise[kind], dur, ev->ts);
	stat_add(&l->total.row.noise[kind], dur, ev->ts);
	if (ev->type != KTOP_T_SAMPLE_THRESHOLD)
		sample(l, b, LATENCY_OS_NOISE, dur, ev->ts, start, start + dur, 0);
	return 0;
}

int latency_feed(struct latency *l, const struct ktop_event *ev)
{
	struct lat_block *b;

	switch (ev->type) {
	case KTOP_T_TIMERLAT:
	case KTOP_T_OSNOISE:
	case KTOP_T_IRQ_NOISE:
	case KTOP_T_SOFTIRQ_NOISE:
	case KTOP_T_NMI_NOISE:
	case KTOP_T_THREAD_NOISE:
	case KTOP_T_SAMPLE_THRESHOLD:
		break;
	default:
		return 0;
	}
	b = cpu_block(l, ev->cpu);
	if (!b)
		return -ENOMEM;
	b->seen = true;
	l->total.seen = true;
	if (ev->type == KTOP_T_TIMERLAT)
		return feed_timerlat(l, b, ev);
	if (ev->type == KTOP_T_OSNOISE)
		return feed_osnoise(l, b, ev);
	return feed_noise(l, b, ev);
}

long latency_feed_store_each(struct latency *l, const struct store *st, uint64_t t0,
			     uint64_t t1, bool *stop,
			     void (*each)(void *arg, const struct ktop_event *ev), void *arg)
{
	struct store_iter *it = store_iter_new(st, t0, t1, NULL);
	struct ktop_event ev;
	uint64_t seq;
	long n = 0;
	int r;

	if (!it)
		return -ENOMEM;
	while (store_iter_next(it, &ev, &seq)) {
		r = latency_feed(l, &ev);
		if (r < 0) {
			n = r;
			break;
		}
		if (r && stop)
			*stop = true;
		n++;
		if (each)
			each(arg, &ev);
	}
	store_iter_free(it);
	return n;
}

long latency_feed_store(struct latency *l, const struct store *st, uint64_t t0, uint64_t t1,
			bool *stop)
{
	return latency_feed_store_each(l, st, t0, t1, stop, NULL, NULL);
}

unsigned int latency_ncpus(const struct latency *l)
{
	return l->ncpus;
}

bool latency_cpu_seen(const struct latency *l, unsigned int cpu)
{
	return cpu < l->ncpus && l->cpu[cpu].seen;
}

static const struct lat_block *block_of(const struct latency *l, int cpu)
{
	if (cpu < 0)
		return l->total.seen ? &l->total : NULL;
	if ((unsigned int)cpu >= l->ncpus || !l->cpu[cpu].seen)
		return NULL;
	return &l->cpu[cpu];
}

int latency_row(const struct latency *l, int cpu, struct latency_row *out)
{
	const struct lat_block *b = block_of(l, cpu);

	if (!b) {
		memset(out, 0, sizeof(*out));
		out->cpu = cpu;
		return -ENOENT;
	}
	*out = b->row;
	return 0;
}

int latency_worst(const struct latency *l, int cpu, struct latency_worst *out)
{
	const struct lat_block *b = block_of(l, cpu);

	if (!b || !b->row.worst.valid)
		return -ENOENT;
	*out = b->row.worst;
	return 0;
}

int latency_worst_of(const struct latency *l, int cpu, enum latency_table t,
		     struct latency_worst *out)
{
	const struct lat_block *b = block_of(l, cpu);

	if (!b || (unsigned int)t > LATENCY_TABLE_OSNOISE || !b->table_worst[t].valid)
		return -ENOENT;
	*out = b->table_worst[t];
	return 0;
}

int latency_stop_sample(const struct latency *l, struct latency_worst *out)
{
	if (!l->stop.valid)
		return -ENOENT;
	*out = l->stop;
	return 0;
}

unsigned int latency_hist_nbuckets(const struct latency *l)
{
	return l->cfg.nbuckets;
}

void latency_hist_bounds(const struct latency *l, unsigned int i, uint64_t *lo, uint64_t *hi)
{
	bool last = i + 1 >= l->cfg.nbuckets;

	if (l->cfg.hist_mode == LATENCY_HIST_LOG2) {
		*lo = i ? 1ull << i : 0;
		*hi = last || i >= 63 ? UINT64_MAX : 1ull << (i + 1);
	} else {
		*lo = (uint64_t)i * l->cfg.bucket_ns;
		*hi = last ? UINT64_MAX : (uint64_t)(i + 1) * l->cfg.bucket_ns;
	}
}

int latency_hist(const struct latency *l, int cpu, enum latency_series series,
		 uint64_t *out, unsigned int max)
{
	const struct lat_block *b = block_of(l, cpu);
	unsigned int n = max < l->cfg.nbuckets ? max : l->cfg.nbuckets;

	if ((unsigned int)series >= LATENCY_NSERIES)
		return -EINVAL;
	if (!b)
		return -ENOENT;
	memcpy(out, b->hist + (size_t)series * l->cfg.nbuckets, n * sizeof(*out));
	return (int)n;
}

int latency_spark(const struct latency *l, int cpu, enum latency_series series,
		  uint64_t *out, unsigned int max, uint64_t *t_end)
{
	const struct lat_block *b = block_of(l, cpu);
	unsigned int len = l->cfg.spark_len, n = max < len ? max : len, i;
	const uint64_t *ring;
	uint64_t head, first;

	if ((unsigned int)series > LATENCY_NSERIES)
		return -EINVAL;
	if (!b)
		return -ENOENT;
	ring = b->spark + (size_t)series * len;
	head = b->spark_head[series];
	if (n > l->ghead)
		n = (unsigned int)l->ghead;
	first = l->ghead - n;	/* every CPU ends at the newest interval of all */
	for (i = 0; i < n; i++) {
		uint64_t k = first + i;

		out[i] = k < head && k + len >= head ? ring[k % len] : 0;
	}
	if (t_end)
		*t_end = l->t0 + l->ghead * l->cfg.spark_ns;
	return (int)n;
}

static void pr_us(FILE *f, uint64_t ns, int w)
{
	fprintf(f, " %*llu.%03llu", w - 4, (unsigned long long)(ns / 1000),
		(unsigned long long)(ns % 1000));
}

static void pr_stat(FILE *f, const struct latency_stat *s)
{
	fprintf(f, " %8llu", (unsigned long long)s->count);
	pr_us(f, s->cur, 11);
	pr_us(f, s->count ? s->min : 0, 11);
	pr_us(f, s->count ? s->sum / s->count : 0, 11);
	pr_us(f, s->max, 11);
}

int latency_print(const struct latency *l, FILE *f, enum latency_table which)
{
	struct latency_row r, tot;
	bool user;
	int cpu;

	latency_row(l, -1, &tot);
	user = tot.tl[LATENCY_TL_USER].count > 0;
	if (which == LATENCY_TABLE_TIMERLAT) {
		fprintf(f, "# %4s %52s |%52s%s\n", "", "IRQ latency (us)", "Thread latency (us)",
			user ? " |                               User-ret latency (us)" : "");
		fprintf(f, "# %4s", "CPU");
		for (int k = 0; k < (user ? 3 : 2); k++)
			fprintf(f, " %8s %11s %11s %11s %11s%s", "count", "cur", "min", "avg", "max",
				k < (user ? 2 : 1) ? " |" : "");
		fputc('\n', f);
	} else {
		fprintf(f, "# %4s %8s %15s %15s %9s %15s %15s %8s %8s %8s %8s %8s\n", "CPU",
			"samples", "runtime us", "noise us", "% avail", "max noise us",
			"max single us", "HW", "NMI", "IRQ", "SIRQ", "THREAD");
	}
	for (cpu = 0; cpu <= (int)l->ncpus; cpu++) {
		bool all = cpu == (int)l->ncpus;

		if (all ? latency_row(l, -1, &r) : latency_row(l, cpu, &r))
			continue;
		if (which == LATENCY_TABLE_TIMERLAT) {
			if (!r.tl[0].count && !r.tl[1].count && !r.tl[2].count)
				continue;
			if (all)
				fprintf(f, "  %4s", "ALL");
			else
				fprintf(f, "  %4d", cpu);
			for (int k = 0; k < (user ? 3 : 2); k++) {
				pr_stat(f, &r.tl[k]);
				if (k < (user ? 2 : 1))
					fputs(" |", f);
			}
		} else {
			if (!r.os_samples)
				continue;
			if (all)
				fprintf(f, "  %4s", "ALL");
			else
				fprintf(f, "  %4d", cpu);
			fprintf(f, " %8llu", (unsigned long long)r.os_samples);
			pr_us(f, r.os_runtime, 15);
			pr_us(f, r.os_noise, 15);
			fprintf(f, " %4u.%04u", r.os_avail_ppm / 10000, r.os_avail_ppm % 10000);
			pr_us(f, r.os_max_noise, 15);
			pr_us(f, r.os_max_single, 15);
			fprintf(f, " %8llu %8llu %8llu %8llu %8llu", (unsigned long long)r.hw,
				(unsigned long long)r.nmi, (unsigned long long)r.irq,
				(unsigned long long)r.softirq, (unsigned long long)r.thread);
		}
		fputc('\n', f);
	}
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
