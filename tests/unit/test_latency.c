// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Tests of the osnoise/timerlat latency model (src/model/latency.c).
 *
 * Synthetic: random samples on random CPUs; every figure of the model is
 * recomputed here the plain way (scan all samples) and compared.
 * Fixtures: tests/fixtures/rt-* with timerlat/osnoise records: the model fed
 * from the raw records is compared with figures computed from the kernel's
 * own text output of the same run (trace.txt), parsed here.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test.h"
#include "ingest/decode.h"
#include "ingest/fixture.h"
#include "model/latency.h"
#include "store/store.h"
#include "kernel/symbols.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

#define NS	20000

struct s {
	struct ktop_event ev;
};

static struct ktop_event evs[NS];
static int nev;

static void gen(int ncpus, bool osnoise)
{
	uint64_t ts = 5000000000ull;

	nev = 0;
	for (int i = 0; i < NS; i++) {
		struct ktop_event *e = &evs[nev++];

		memset(e, 0, sizeof(*e));
		ts += 1 + rnd(3000000);	/* up to 3 ms apart: ~30 s in all */
		e->ts = ts;
		e->cpu = (uint16_t)rnd((uint64_t)ncpus);
		if (!osnoise) {
			e->type = KTOP_T_TIMERLAT;
			e->nargs = 3;
			e->args[0] = (uint64_t)i;
			e->args[1] = rnd(3);
			/* heavy tail: mostly us, sometimes ms */
			e->args[2] = rnd(100) < 3 ? rnd(5000000) : rnd(40000);
		} else if (rnd(4)) {
			e->type = KTOP_T_OSNOISE;
			e->nargs = 8;
			e->args[0] = 1000000;		/* runtime, us */
			e->args[1] = rnd(2000);		/* noise, us */
			e->args[2] = e->args[1] ? rnd(e->args[1] + 1) : 0;
			for (int k = 3; k < 8; k++)
				e->args[k] = rnd(50);
		} else {
			e->type = (uint16_t)(KTOP_T_IRQ_NOISE + rnd(4));
			if (e->type == KTOP_T_THREAD_NOISE) {
				e->args[2] = ts - 100000;
				e->args[3] = rnd(100000);
			} else {
				e->args[0] = ts - 100000;
				e->args[1] = rnd(100000);
			}
		}
	}
}

/* The plain log2 bucket: the largest i with 2^i <= v (0 for v < 2). */
static unsigned int ref_log2(uint64_t v)
{
	unsigned int i = 0;

	while (i < 63 && (1ull << (i + 1)) <= v)
		i++;
	return i;
}

TEST(latency_timerlat_table)
{
	gen(4, false);
	struct latency *l = latency_new(NULL);
	struct latency_row row;

	for (int i = 0; i < nev; i++)
		CHECK(latency_feed(l, &evs[i]) == 0);
	CHECK_EQ_U64(latency_ncpus(l), 4);
	for (int cpu = -1; cpu < 4; cpu++) {
		CHECK(latency_row(l, cpu, &row) == 0);
		for (int ctx = 0; ctx < 3; ctx++) {
			uint64_t n = 0, mn = UINT64_MAX, mx = 0, sum = 0, cur = 0;

			for (int i = 0; i < nev; i++) {
				if ((cpu >= 0 && evs[i].cpu != cpu) || evs[i].args[1] != (uint64_t)ctx)
					continue;
				uint64_t v = evs[i].args[2];

				n++;
				sum += v;
				cur = v;
				if (v < mn)
					mn = v;
				if (v > mx)
					mx = v;
			}
			CHECK(n > 0);
			CHECK_EQ_U64(row.tl[ctx].count, n);
			CHECK_EQ_U64(row.tl[ctx].min, mn);
			CHECK_EQ_U64(row.tl[ctx].max, mx);
			CHECK_EQ_U64(row.tl[ctx].sum, sum);
			CHECK_EQ_U64(row.tl[ctx].cur, cur);
			CHECK(row.tl[ctx].max >= row.tl[ctx].sum / row.tl[ctx].count);
			CHECK(row.tl[ctx].sum / row.tl[ctx].count >= row.tl[ctx].min);
		}
	}
	CHECK(latency_row(l, 7, &row) == -ENOENT);
	latency_free(l);
}

TEST(latency_histograms)
{
	struct latency_config lin = { .hist_mode = LATENCY_HIST_LINEAR, .bucket_ns = 2000,
				      .nbuckets = 50 };

	gen(3, false);
	for (int mode = 0; mode < 2; mode++) {
		struct latency *l = latency_new(mode ? &lin : NULL);
		unsigned int nb = latency_hist_nbuckets(l);
		uint64_t h[128], ref[128], lo, hi;

		for (int i = 0; i < nev; i++)
			latency_feed(l, &evs[i]);
		for (int cpu = -1; cpu < 3; cpu++) {
			for (int s = LATENCY_TL_IRQ; s <= LATENCY_TL_USER; s++) {
				memset(ref, 0, sizeof(ref));
				for (int i = 0; i < nev; i++) {
					uint64_t v = evs[i].args[2], b;

					if ((cpu >= 0 && evs[i].cpu != cpu) || evs[i].args[1] != (uint64_t)s)
						continue;
					if (mode)
						b = v / 2000 >= 50 ? 49 : v / 2000;
					else
						b = ref_log2(v);
					ref[b]++;
				}
				CHECK(latency_hist(l, cpu, (enum latency_series)s, h, 128) == (int)nb);
				for (unsigned int b = 0; b < nb; b++)
					CHECK_EQ_U64(h[b], ref[b]);
			}
		}
		/* bounds: contiguous, the last one open */
		uint64_t prev = 0;

		for (unsigned int b = 0; b < nb; b++) {
			latency_hist_bounds(l, b, &lo, &hi);
			CHECK_EQ_U64(lo, prev);
			CHECK(hi > lo);
			prev = hi;
		}
		CHECK_EQ_U64(prev, UINT64_MAX);
		latency_free(l);
	}
}

TEST(latency_sparkline_and_worst)
{
	struct latency_config cfg = { .spark_ns = 500000000ull, .spark_len = 40 };

	gen(2, false);
	struct latency *l = latency_new(&cfg);
	uint64_t sp[64], t_end, t0 = evs[0].ts;
	struct latency_worst w;

	for (int i = 0; i < nev; i++)
		latency_feed(l, &evs[i]);
	uint64_t last_k = (evs[nev - 1].ts - t0) / cfg.spark_ns;

	for (int cpu = -1; cpu < 2; cpu++) {
		int n = latency_spark(l, cpu, LATENCY_NSERIES, sp, 64, &t_end);

		CHECK_EQ_U64(n, 40);
		CHECK_EQ_U64(t_end, t0 + (last_k + 1) * cfg.spark_ns);
		for (int k = 0; k < n; k++) {
			uint64_t iv = last_k + 1 - 40 + (uint64_t)k, mx = 0;

			for (int i = 0; i < nev; i++)
				if ((cpu < 0 || evs[i].cpu == cpu) &&
				    (evs[i].ts - t0) / cfg.spark_ns == iv && evs[i].args[2] > mx)
					mx = evs[i].args[2];
			CHECK_EQ_U64(sp[k], mx);
		}
		/* one series only: thread */
		n = latency_spark(l, cpu, LATENCY_TL_THREAD, sp, 64, NULL);
		for (int k = 0; k < n; k++) {
			uint64_t iv = last_k + 1 - 40 + (uint64_t)k, mx = 0;

			for (int i = 0; i < nev; i++)
				if ((cpu < 0 || evs[i].cpu == cpu) && evs[i].args[1] == 1 &&
				    (evs[i].ts - t0) / cfg.spark_ns == iv && evs[i].args[2] > mx)
					mx = evs[i].args[2];
			CHECK_EQ_U64(sp[k], mx);
		}
		/* the worst sample: the first with the largest value */
		int wi = -1;

		for (int i = 0; i < nev; i++)
			if ((cpu < 0 || evs[i].cpu == cpu) &&
			    (wi < 0 || evs[i].args[2] > evs[wi].args[2]))
				wi = i;
		CHECK(latency_worst(l, cpu, &w) == 0);
		CHECK_EQ_U64(w.value, evs[wi].args[2]);
		CHECK_EQ_U64(w.ts, evs[wi].ts);
		CHECK_EQ_U64(w.cpu, evs[wi].cpu);
		CHECK_EQ_U64(w.seqnum, evs[wi].args[0]);
		CHECK_EQ_U64(w.win_end, evs[wi].ts);
		CHECK_EQ_U64(w.win_start, evs[wi].ts - evs[wi].args[2]);
		CHECK((int)w.series == (int)evs[wi].args[1]);
	}
	latency_free(l);
}

TEST(latency_osnoise_table)
{
	gen(3, true);
	struct latency *l = latency_new(NULL);
	struct latency_row row;

	for (int i = 0; i < nev; i++)
		CHECK(latency_feed(l, &evs[i]) == 0);
	for (int cpu = -1; cpu < 3; cpu++) {
		uint64_t n = 0, rt = 0, no = 0, mno = 0, msi = 0, cnt[5] = { 0 }, nk[4] = { 0 };
		uint64_t mk[4] = { 0 };

		for (int i = 0; i < nev; i++) {
			const struct ktop_event *e = &evs[i];

			if (cpu >= 0 && e->cpu != cpu)
				continue;
			if (e->type == KTOP_T_OSNOISE) {
				n++;
				rt += e->args[0] * 1000;
				no += e->args[1] * 1000;
				if (e->args[1] * 1000 > mno)
					mno = e->args[1] * 1000;
				if (e->args[2] * 1000 > msi)
					msi = e->args[2] * 1000;
				for (int k = 0; k < 5; k++)
					cnt[k] += e->args[3 + k];
			} else {
				int k = e->type - KTOP_T_IRQ_NOISE;
				uint64_t d = e->type == KTOP_T_THREAD_NOISE ? e->args[3] : e->args[1];

				nk[k]++;
				if (d > mk[k])
					mk[k] = d;
			}
		}
		CHECK(latency_row(l, cpu, &row) == 0);
		CHECK_EQ_U64(row.os_samples, n);
		CHECK_EQ_U64(row.os_runtime, rt);
		CHECK_EQ_U64(row.os_noise, no);
		CHECK_EQ_U64(row.os_max_noise, mno);
		CHECK_EQ_U64(row.os_max_single, msi);
		CHECK_EQ_U64(row.hw, cnt[0]);
		CHECK_EQ_U64(row.nmi, cnt[1]);
		CHECK_EQ_U64(row.irq, cnt[2]);
		CHECK_EQ_U64(row.softirq, cnt[3]);
		CHECK_EQ_U64(row.thread, cnt[4]);
		/* % available the way the kernel prints it: (runtime - noise) / runtime */
		CHECK_EQ_U64(row.os_avail_ppm, (rt - no) * 1000000 / rt);
		for (int k = 0; k < 4; k++) {
			CHECK_EQ_U64(row.noise[k].count, nk[k]);
			CHECK_EQ_U64(row.noise[k].max, mk[k]);
		}
	}
	latency_free(l);
}

TEST(latency_stop_threshold)
{
	struct latency_config cfg = { .stop_ns = 3000000 };

	gen(2, false);
	struct latency *l = latency_new(&cfg);
	struct latency_worst w;
	int first = -1, r;

	CHECK(latency_stop_sample(l, &w) == -ENOENT);
	for (int i = 0; i < nev; i++) {
		r = latency_feed(l, &evs[i]);
		CHECK(r == (evs[i].args[2] > cfg.stop_ns));
		if (r && first < 0)
			first = i;
	}
	CHECK(first >= 0);
	CHECK(latency_stop_sample(l, &w) == 0);
	CHECK_EQ_U64(w.ts, evs[first].ts);
	CHECK_EQ_U64(w.value, evs[first].args[2]);
	latency_reset(l);
	struct latency_row row;

	CHECK(latency_row(l, -1, &row) == -ENOENT);
	latency_free(l);
}

/* us with 3 decimals back to ns */
static uint64_t us_ns(const char *tok)
{
	unsigned long long a = 0, b = 0;

	sscanf(tok, "%llu.%llu", &a, &b);
	return a * 1000 + b;
}

/* The batch table, read back, says what latency_row() says. */
TEST(latency_print_reads_back)
{
	for (int os = 0; os < 2; os++) {
		gen(3, os);
		struct latency *l = latency_new(NULL);
		char *buf = NULL, *save = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		int rows = 0;

		for (int i = 0; i < nev; i++)
			latency_feed(l, &evs[i]);
		CHECK(latency_print(l, f, os ? LATENCY_TABLE_OSNOISE : LATENCY_TABLE_TIMERLAT) == 0);
		fclose(f);
		for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *tok[64], *sv = NULL;
			struct latency_row r;
			int nt = 0, cpu;

			if (line[0] == '#')
				continue;
			for (char *t = strtok_r(line, " |", &sv); t && nt < 64; t = strtok_r(NULL, " |", &sv))
				tok[nt++] = t;
			cpu = strcmp(tok[0], "ALL") ? atoi(tok[0]) : -1;
			CHECK(latency_row(l, cpu, &r) == 0);
			if (!os) {
				CHECK_EQ_U64(nt, 1 + 3 * 5);	/* irq, thread, user-ret */
				for (int k = 0; k < 3; k++) {
					char **x = tok + 1 + 5 * k;

					CHECK_EQ_U64(strtoull(x[0], NULL, 10), r.tl[k].count);
					CHECK_EQ_U64(us_ns(x[1]), r.tl[k].cur);
					CHECK_EQ_U64(us_ns(x[2]), r.tl[k].min);
					CHECK_EQ_U64(us_ns(x[3]), r.tl[k].sum / r.tl[k].count);
					CHECK_EQ_U64(us_ns(x[4]), r.tl[k].max);
				}
			} else {
				CHECK_EQ_U64(nt, 12);
				CHECK_EQ_U64(strtoull(tok[1], NULL, 10), r.os_samples);
				CHECK_EQ_U64(us_ns(tok[2]), r.os_runtime);
				CHECK_EQ_U64(us_ns(tok[3]), r.os_noise);
				CHECK_EQ_U64((uint64_t)(strtod(tok[4], NULL) * 10000 + 0.5), r.os_avail_ppm);
				CHECK_EQ_U64(us_ns(tok[5]), r.os_max_noise);
				CHECK_EQ_U64(us_ns(tok[6]), r.os_max_single);
				CHECK_EQ_U64(strtoull(tok[7], NULL, 10), r.hw);
				CHECK_EQ_U64(strtoull(tok[11], NULL, 10), r.thread);
			}
			rows++;
		}
		CHECK_EQ_U64(rows, 4);	/* 3 CPUs and ALL */
		free(buf);
		latency_free(l);
	}
}

/* ---- fixtures recorded from the rt kernel -------------------------------- */

static int list_rt(char names[][256], int max)
{
	const char *root = fixture_root();
	DIR *d = opendir(root);
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max)
		if (!strncmp(de->d_name, "rt", 2) && strlen(root) + strlen(de->d_name) < 250)
			snprintf(names[n++], 256, "%.120s/%.120s", root, de->d_name);
	closedir(d);
	return n;
}

/* Decode a fixture's raw pages and feed every record to a new model, in time order. */
static struct latency *fx_latency(const char *dir, const struct latency_config *cfg,
				  uint64_t *nrec)
{
	struct fixture *fx = fixture_open(dir);
	struct decode_ctx *dc;
	struct store *st;
	struct latency *l;

	*nrec = 0;
	if (!fx)
		return NULL;
	st = store_new(0, fixture_ncpus(fx));
	dc = st ? decode_ctx_new(fixture_tep(fx), st, NULL) : NULL;
	for (unsigned int cpu = 0; dc && cpu < fixture_ncpus(fx); cpu++) {
		struct decoder *d = decoder_new(dc, cpu);

		for (size_t i = 0; d && i < fixture_npages(fx, cpu); i++)
			decoder_page(d, fixture_page(fx, cpu, i), fixture_page_size(fx), NULL);
		decoder_free(d);
		store_publish(st, cpu);
	}
	l = latency_new(cfg);
	if (l && st) {
		long n = latency_feed_store(l, st, 0, UINT64_MAX, NULL);

		*nrec = n > 0 ? (uint64_t)n : 0;
	}
	decode_ctx_free(dc);
	store_free(st);
	fixture_close(fx);
	return l;
}

/* What the kernel's text says, per CPU (index 64: all CPUs). */
struct txt {
	struct latency_stat	tl[65][3];
	uint64_t		os_n[65], os_rt[65], os_no[65], os_max[65], os_single[65];
	uint64_t		cnt[65][5];
	double			os_pct[65];	/* of the last sample */
	struct latency_stat	noise[65][LATENCY_NNOISE];
	uint64_t		lines;
};

static void txt_add(struct latency_stat *s, uint64_t v)
{
	if (!s->count || v < s->min)
		s->min = v;
	if (v > s->max)
		s->max = v;
	s->count++;
	s->sum += v;
	s->cur = v;
}

/* "  <idle>-0  [001] d..h1..  77.98: REST" -> cpu and REST; Return: false if not a record. */
static bool txt_split(const char *line, int *cpu, const char **rest)
{
	const char *b = strstr(line, " ["), *c;

	if (line[0] == '#' || !b || !isdigit((unsigned char)b[2]))
		return false;
	*cpu = atoi(b + 2);
	c = strstr(b, ": ");
	if (!c || *cpu < 0 || *cpu >= 64)
		return false;
	*rest = c + 2;
	return true;
}

static void txt_parse(struct txt *t, char *text)
{
	static const char *const kinds[LATENCY_NNOISE] = {
		"irq_noise:", "softirq_noise:", "nmi_noise:", "thread_noise:", "sample_threshold:"
	};
	char *save = NULL;

	memset(t, 0, sizeof(*t));
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *r;
		int cpu, k;

		if (!txt_split(line, &cpu, &r))
			continue;
		t->lines++;
		if (r[0] == '#') {
			/* timerlat: "#2     context    irq timer_latency     57270 ns" */
			char ctx[16];
			unsigned long long seq, v;

			if (sscanf(r, "#%llu context %15s timer_latency %llu ns", &seq, ctx, &v) != 3)
				continue;
			k = !strcmp(ctx, "irq") ? 0 : !strcmp(ctx, "thread") ? 1 :
			    !strcmp(ctx, "user-ret") ? 2 : -1;
			if (k < 0)
				continue;
			txt_add(&t->tl[cpu][k], v);
			txt_add(&t->tl[64][k], v);
			continue;
		}
		for (k = 0; k < LATENCY_NNOISE; k++)
			if (!strncmp(r, kinds[k], strlen(kinds[k])))
				break;
		if (k < LATENCY_NNOISE) {
			const char *d = strstr(r, " duration ");

			if (d) {
				txt_add(&t->noise[cpu][k], strtoull(d + 10, NULL, 10));
				txt_add(&t->noise[64][k], strtoull(d + 10, NULL, 10));
			}
			continue;
		}
		/* osnoise sample: runtime noise %avail max_single hw nmi irq sirq thread */
		unsigned long long rt, no, ms, c[5];
		double pct;

		if (sscanf(r, "%llu %llu %lf %llu %llu %llu %llu %llu %llu", &rt, &no, &pct, &ms,
			   &c[0], &c[1], &c[2], &c[3], &c[4]) != 9)
			continue;
		for (int i = 0; i < 2; i++) {
			int x = i ? 64 : cpu;

			t->os_n[x]++;
			t->os_rt[x] += rt * 1000;
			t->os_no[x] += no * 1000;
			if (no * 1000 > t->os_max[x])
				t->os_max[x] = no * 1000;
			if (ms * 1000 > t->os_single[x])
				t->os_single[x] = ms * 1000;
			for (int j = 0; j < 5; j++)
				t->cnt[x][j] += c[j];
			t->os_pct[x] = pct;
		}
	}
}

/* The tables built from the raw records agree with the kernel's text of the same run. */
TEST(latency_fixtures_match_kernel_text)
{
	char names[16][256];
	int n = list_rt(names, 16), checked = 0;

	for (int i = 0; i < n; i++) {
		struct fixture *fx = fixture_open(names[i]);
		const char *tr = fx ? fixture_meta(fx, "tracer") : NULL;
		struct latency_row row;
		struct latency *l;
		struct txt *t;
		uint64_t nrec;
		char *text;

		if (!tr || (strcmp(tr, "timerlat") && strcmp(tr, "osnoise"))) {
			fixture_close(fx);
			continue;
		}
		text = fixture_read_file(fixture_path(fx, "trace.txt"), NULL);
		fixture_close(fx);
		if (!text)
			continue;
		t = malloc(sizeof(*t));
		txt_parse(t, text);
		free(text);
		l = fx_latency(names[i], NULL, &nrec);
		CHECK(l);
		printf("  %s: %llu text records, %llu raw records, %u CPUs\n", names[i],
		       (unsigned long long)t->lines, (unsigned long long)nrec, latency_ncpus(l));
		CHECK(t->lines > 0);
		for (int cpu = -1; cpu < (int)latency_ncpus(l); cpu++) {
			int x = cpu < 0 ? 64 : cpu;

			CHECK(latency_row(l, cpu, &row) == 0);
			for (int k = 0; k < 3; k++) {
				CHECK_EQ_U64(row.tl[k].count, t->tl[x][k].count);
				CHECK_EQ_U64(row.tl[k].min, t->tl[x][k].min);
				CHECK_EQ_U64(row.tl[k].max, t->tl[x][k].max);
				CHECK_EQ_U64(row.tl[k].sum, t->tl[x][k].sum);
				if (cpu >= 0)
					CHECK_EQ_U64(row.tl[k].cur, t->tl[x][k].cur);
			}
			CHECK_EQ_U64(row.os_samples, t->os_n[x]);
			CHECK_EQ_U64(row.os_runtime, t->os_rt[x]);
			CHECK_EQ_U64(row.os_noise, t->os_no[x]);
			CHECK_EQ_U64(row.os_max_noise, t->os_max[x]);
			CHECK_EQ_U64(row.os_max_single, t->os_single[x]);
			CHECK_EQ_U64(row.hw, t->cnt[x][0]);
			CHECK_EQ_U64(row.nmi, t->cnt[x][1]);
			CHECK_EQ_U64(row.irq, t->cnt[x][2]);
			CHECK_EQ_U64(row.softirq, t->cnt[x][3]);
			CHECK_EQ_U64(row.thread, t->cnt[x][4]);
			/* one period: % available as the kernel printed it (5 decimals, truncated) */
			if (t->os_n[x] == 1)
				CHECK_EQ_U64(row.os_avail_ppm, (uint64_t)(t->os_pct[x] * 10000 + 1e-6));
			for (int k = 0; k < LATENCY_NNOISE; k++) {
				CHECK_EQ_U64(row.noise[k].count, t->noise[x][k].count);
				CHECK_EQ_U64(row.noise[k].max, t->noise[x][k].max);
				CHECK_EQ_U64(row.noise[k].sum, t->noise[x][k].sum);
			}
			if (row.tl[0].count || row.tl[1].count || row.os_samples) {
				struct latency_worst w;

				CHECK(latency_worst(l, cpu, &w) == 0);
				CHECK(w.win_start <= w.ts && w.win_end >= w.ts);
				if (cpu >= 0)
					CHECK_EQ_U64(w.cpu, cpu);
			}
			checked++;
		}
		free(t);
		latency_free(l);
	}
	if (!checked)
		printf("  (no rt-* timerlat/osnoise fixture under %s yet)\n", fixture_root());
}

TEST_MAIN()
