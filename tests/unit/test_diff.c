// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The diff of two recordings (src/diff/diff.h) on fixtures recorded from real
 * kernels, each written as a .ktop and read back through the file source, as
 * ktop -i BASE --diff NEW reads them.
 *
 * Expectations come from the kernel's own text of each fixture (trace.txt),
 * read here without ktop's decoder: the function_graph paths' calls and
 * times (tests/unit/fgraph_text.h), the timerlat samples bucketed by their
 * printed latency, the osnoise noise events by kind, the stacks of the
 * stacks-* fixtures (tests/unit/stacks_text.h). The recording's length, that
 * the rates are per second of, comes from the raw records' time stamps as
 * libtraceevent's kbuffer reads them (fixture_for_each_record), or from the
 * text's.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/app.h"
#include "app/opts.h"
#include "diff/diff.h"
#include "fgraph_text.h"
#include "snap_common.h"
#include "stacks_text.h"
#include "test.h"

static char tmpdir[] = "/tmp/ktop-test-diff-XXXXXX";

static void tmpdir_rm(void)
{
	test_rm_rf(tmpdir);
}

/* The recordings' directory, made before the first case and removed at the end. */
__attribute__((constructor)) static void tmpdir_make(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		exit(1);
	}
	atexit(tmpdir_rm);
}

/* ---- recordings ------------------------------------------------------------------ */

/* Write the store of fixture @name as @name.ktop in tmpdir. Return: its path, or NULL. */
static const char *fx_ktop(const char *name, char *path, size_t len)
{
	struct snapshot_meta meta;
	struct store *st = snap_fixture_store(name, &meta);
	char err[512];
	int ret;

	if (!st)
		return NULL;
	snprintf(path, len, "%s/%s.ktop", tmpdir, name);
	ret = export_write(FORMAT_KTOP, path, st, &meta, NULL, NULL, err, sizeof(err));
	if (ret)
		printf("  %s: %s\n", name, err);
	snapshot_meta_free(&meta);
	store_free(st);
	return ret ? NULL : path;
}

/* A stacks-* fixture, its frames named as its text names them (stacks_text.h). */
static const char *fx_stacks_ktop(const char *name, char *path, size_t len)
{
	struct snapshot_meta meta = { 0 };
	char dir[512], err[512];
	struct store *st;
	struct res r;
	int ret;

	snprintf(dir, sizeof(dir), "%s/%s", fixture_root(), name);
	st = fixture_stacks_store(dir, &r);
	if (!st)
		return NULL;
	for (uint32_t id = 1; id <= stacks_count(store_stacks(st)); id++) {
		uint32_t names[2 * STACK_MAX_FRAMES];

		stacks_names(store_stacks(st), id, names, 2 * STACK_MAX_FRAMES);
	}
	snapshot_meta_load_dir(&meta, dir, NULL);
	snprintf(path, len, "%s/%s.ktop", tmpdir, name);
	ret = export_write(FORMAT_KTOP, path, st, &meta, NULL, NULL, err, sizeof(err));
	if (ret)
		printf("  %s: %s\n", name, err);
	snapshot_meta_free(&meta);
	store_free(st);
	symbols_free(r.ksyms);
	return ret ? NULL : path;
}

struct side {
	struct app	a;
};

static bool side_open(struct side *s, const char *path)
{
	char err[512] = "";
	int ret;

	memset(s, 0, sizeof(*s));
	opts_defaults(&s->a.opts);
	s->a.wake_fd = -1;
	s->a.opts.input = path;
	ret = app_open_snapshot(&s->a, path, -1, APP_SNAP_SYNC, err, sizeof(err));
	if (ret)
		printf("  %s: %s\n", path, err);
	return !ret;
}

static void side_close(struct side *s)
{
	app_stop(&s->a);
}

/* Seconds from the first to the last raw record of fixture @name, as kbuffer reads them. */
struct span {
	unsigned long long	t0, t1;
};

static int span_rec(void *arg, unsigned int cpu, unsigned long long ts, void *data, int size)
{
	struct span *s = arg;

	(void)cpu;
	(void)data;
	(void)size;
	if (!s->t0 || ts < s->t0)
		s->t0 = ts;
	if (ts > s->t1)
		s->t1 = ts;
	return 0;
}

static double fx_secs(const char *name)
{
	struct span s = { 0, 0 };
	struct fixture *fx;
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/%s", fixture_root(), name);
	fx = fixture_open(dir);
	if (!fx)
		return -1;
	for (unsigned int cpu = 0; cpu < fixture_ncpus(fx); cpu++)
		fixture_for_each_record(fx, cpu, span_rec, &s);
	fixture_close(fx);
	return (double)(s.t1 - s.t0) / 1e9;
}

static char *fx_text(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s/trace.txt", fixture_root(), name);
	return fixture_read_file(path, NULL);
}

static bool near(double x, double y, double rel)
{
	return fabs(x - y) <= rel * (fabs(x) > fabs(y) ? fabs(x) : fabs(y)) + 1e-9;
}

static const struct diff_row *row_of(const struct diff_table *t, const char *name, int cpu)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->rows[i].name, name) && t->rows[i].cpu == cpu)
			return &t->rows[i];
	return NULL;
}

/* ---- a recording against itself ------------------------------------------------ */

TEST(diff_self_no_change)
{
	static const char *const names[] = { "host-sched", "rt-fgraph", "rt612-timerlat",
					     "host-net", "stacks-rt" };
	char p1[600], p2[600];

	for (size_t f = 0; f < sizeof(names) / sizeof(names[0]); f++) {
		struct side b, n;
		struct diff *d;
		size_t rows = 0;

		CHECK(fx_ktop(names[f], p1, sizeof(p1)));
		/* two files, two reads: the same bytes through two stores */
		snprintf(p2, sizeof(p2), "%s/%s-again.ktop", tmpdir, names[f]);
		CHECK(!link(p1, p2) || errno == EEXIST);
		CHECK(side_open(&b, p1));
		CHECK(side_open(&n, p2));
		d = diff_new(&b.a, &n.a);
		CHECK(d && diff_ready(d));
		for (int k = 0; k < DIFF_NKINDS; k++) {
			const struct diff_table *t = diff_table(d, k);

			for (size_t i = 0; i < t->n; i++) {
				if (!diff_row_same(t, &t->rows[i]))
					printf("  %s %s row %s changed\n", names[f], t->name,
					       t->rows[i].name);
				CHECK(diff_row_same(t, &t->rows[i]));
				CHECK(diff_delta(&t->rows[i], 0) == 0);
			}
			CHECK(t->have[0] == t->have[1]);
			rows += t->n;
		}
		CHECK(diff_table(d, DIFF_EVENTS)->n > 0);
		printf("  %s against itself: %zu rows, none changed\n", names[f], rows);
		diff_free(d);
		side_close(&b);
		side_close(&n);
	}
}

/* ---- function_graph: per-path deltas from the kernel's text ------------------------ */

struct tpath {
	char		path[2048];
	uint64_t	calls, total;
};

struct tpaths {
	struct tpath	*v;
	size_t		n, cap;
};

static struct tpath *tpath_get(struct tpaths *p, const char *path)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].path, path))
			return &p->v[i];
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 256;
		p->v = realloc(p->v, p->cap * sizeof(*p->v));
	}
	memset(&p->v[p->n], 0, sizeof(p->v[0]));
	snprintf(p->v[p->n].path, sizeof(p->v[0].path), "%s", path);
	return &p->v[p->n++];
}

/*
 * Every call path of the text, root first and ';'-joined, with its calls and
 * the sum of their printed durations (a closing brace's, or a leaf's); a CPU
 * stack of the open calls per CPU column.
 */
static void text_paths(const char *text, struct tpaths *out)
{
	char stack[64][64][96];
	int depth[64] = { 0 };
	char *dup = strdup(text), *save = NULL;

	memset(out, 0, sizeof(*out));
	for (char *l = strtok_r(dup, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		struct ft_rec r;
		char path[2048];
		int cpu, d;

		if (ft_parse_line(l, &r) != 1 || r.cpu < 0 || r.cpu >= 64)
			continue;
		cpu = r.cpu;
		if (r.kind != FT_ENTRY && r.kind != FT_LEAF && r.kind != FT_EXIT)
			continue;
		if (r.kind == FT_EXIT) {
			if (!depth[cpu])
				continue;	/* the trace began inside this call */
			d = depth[cpu];
		} else {
			if (depth[cpu] >= 64)
				continue;
			snprintf(stack[cpu][depth[cpu]], 96, "%s", r.func);
			d = depth[cpu] + 1;
		}
		path[0] = 0;
		for (int k = 0; k < d; k++) {
			if (k)
				strcat(path, ";");
			strcat(path, stack[cpu][k]);
		}
		if (r.kind == FT_ENTRY) {
			depth[cpu]++;
			tpath_get(out, path)->calls++;
			continue;
		}
		if (r.kind == FT_LEAF)
			tpath_get(out, path)->calls++;
		if (r.has_dur)
			tpath_get(out, path)->total += r.dur;
		if (r.kind == FT_EXIT)
			depth[cpu]--;
	}
	free(dup);
}

static void fgraph_pair(const char *bn, const char *nn)
{
	char pb[600], pn[600];
	double secs[2] = { fx_secs(bn), fx_secs(nn) };
	struct tpaths tp[2];
	const struct diff_table *t;
	struct side b, n;
	struct diff *d;
	size_t checked = 0;

	CHECK(secs[0] > 0 && secs[1] > 0);
	for (int i = 0; i < 2; i++) {
		char *text = fx_text(i ? nn : bn);

		CHECK(text);
		text_paths(text, &tp[i]);
		free(text);
	}
	CHECK(fx_ktop(bn, pb, sizeof(pb)) && fx_ktop(nn, pn, sizeof(pn)));
	CHECK(side_open(&b, pb) && side_open(&n, pn));
	d = diff_new(&b.a, &n.a);
	CHECK(d);
	t = diff_table(d, DIFF_PATHS);
	CHECK(t->have[0] && t->have[1] && t->n > 0);
	for (size_t i = 0; i < t->n; i++) {
		const struct diff_row *r = &t->rows[i];
		double want[2], total[2];

		/* interrupts moved out of the task they hit: the text nests them there */
		if (!strncmp(r->name, "[interrupts]", 12))
			continue;
		for (int s = 0; s < 2; s++) {
			struct tpath *p = tpath_get(&tp[s], r->name);

			want[s] = (double)p->calls / secs[s];
			total[s] = (double)p->total / secs[s];
			if (!near(r->v[s][0], want[s], 1e-6))
				printf("  side %d %s: %.3f calls/s, the text %.3f (%llu calls)\n", s,
				       r->name, r->v[s][0], want[s], (unsigned long long)p->calls);
			CHECK(near(r->v[s][0], want[s], 1e-6));
			/* printed durations are truncated to 10 ns: within that per call */
			CHECK(fabs(r->v[s][1] - total[s]) <= 10.0 * (double)p->calls / secs[s] + 1e-6);
		}
		CHECK(near(diff_delta(r, 0), want[1] - want[0], 1e-6));
		checked++;
	}
	{
		const struct diff_row *r = row_of(t, "vfs_read", -1);

		CHECK(r && r->in == DIFF_IN_BOTH);
		/* vmload read /dev/zero 20: twenty vfs_read trees in each */
		CHECK(near(r->v[0][0] * secs[0], 20, 1e-9) && near(r->v[1][0] * secs[1], 20, 1e-9));
	}
	printf("  %s -> %s: %zu task paths agree with the texts (of %zu rows)\n", bn, nn,
	       checked, t->n);
	CHECK(checked >= 8);
	free(tp[0].v);
	free(tp[1].v);
	diff_free(d);
	side_close(&b);
	side_close(&n);
}

TEST(diff_fgraph_paths_from_text)
{
	fgraph_pair("rt-fgraph", "rt612-fgraph");
	fgraph_pair("rt612-fgraph", "rt-fgraph");
}

/* ---- timerlat: per-bucket deltas ---------------------------------------------------- */

/* log2 buckets of latency.h: 0 holds [0, 2), i holds [2^i, 2^(i+1)) */
static int bucket_of(uint64_t v)
{
	int b = 0;

	while (v >= 2) {
		v >>= 1;
		b++;
	}
	return b;
}

struct tl_text {
	uint64_t	hist[2][64];	/* irq, thread */
	uint64_t	n[2], min[2], max[2];
};

static void timerlat_text(const char *text, struct tl_text *o)
{
	memset(o, 0, sizeof(*o));
	for (const char *p = strstr(text, "context "); p; p = strstr(p + 1, "context ")) {
		const char *q = p + 8;
		unsigned long long v;
		int s;

		while (*q == ' ')
			q++;
		if (!strncmp(q, "irq", 3))
			s = 0;
		else if (!strncmp(q, "thread", 6))
			s = 1;
		else
			continue;
		q = strstr(q, "timer_latency");
		if (!q || sscanf(q, "timer_latency %llu ns", &v) != 1)
			continue;
		o->hist[s][bucket_of(v)]++;
		if (!o->n[s] || v < o->min[s])
			o->min[s] = v;
		if (v > o->max[s])
			o->max[s] = v;
		o->n[s]++;
	}
}

TEST(diff_timerlat_buckets_from_text)
{
	static const char *const series[2] = { "timerlat irq", "timerlat thread" };
	const char *names[2] = { "rt-timerlat", "rt612-timerlat" };
	double secs[2] = { fx_secs(names[0]), fx_secs(names[1]) };
	const struct diff_table *h, *l;
	struct tl_text tt[2];
	char pb[600], pn[600];
	struct side b, n;
	struct diff *d;
	size_t buckets = 0;

	for (int i = 0; i < 2; i++) {
		char *text = fx_text(names[i]);

		CHECK(text);
		timerlat_text(text, &tt[i]);
		free(text);
		CHECK(tt[i].n[0] > 20 && tt[i].n[1] > 20);
	}
	CHECK(fx_ktop(names[0], pb, sizeof(pb)) && fx_ktop(names[1], pn, sizeof(pn)));
	CHECK(side_open(&b, pb) && side_open(&n, pn));
	d = diff_new(&b.a, &n.a);
	CHECK(d);
	h = diff_table(d, DIFF_HIST);
	for (int s = 0; s < 2; s++) {
		int seen[64] = { 0 };

		for (size_t i = 0; i < h->n; i++) {
			const struct diff_row *r = &h->rows[i];
			int k = bucket_of(r->lo ? r->lo : 1);
			double want[2];

			if (strcmp(r->name, series[s]))
				continue;
			CHECK(r->lo == (k ? 1ull << k : 0) && r->hi == 2ull << k);
			for (int i2 = 0; i2 < 2; i2++)
				want[i2] = (double)tt[i2].hist[s][k] / secs[i2];
			CHECK(near(r->v[0][0], want[0], 1e-6) && near(r->v[1][0], want[1], 1e-6));
			CHECK(near(diff_delta(r, 0), want[1] - want[0], 1e-6));
			seen[k] = 1;
			buckets++;
		}
		/* every bucket the texts fill is a row */
		for (int k = 0; k < 64; k++)
			CHECK(seen[k] || (!tt[0].hist[s][k] && !tt[1].hist[s][k]));
	}
	/* the table: samples/s, min and max of each series over all CPUs */
	l = diff_table(d, DIFF_LATENCY);
	for (int s = 0; s < 2; s++) {
		const struct diff_row *r = row_of(l, series[s], -1);

		CHECK(r && r->in == DIFF_IN_BOTH);
		for (int i = 0; i < 2; i++) {
			CHECK(near(r->v[i][0], (double)tt[i].n[s] / secs[i], 1e-6));
			CHECK(r->v[i][1] == (double)tt[i].min[s] && r->v[i][3] == (double)tt[i].max[s]);
		}
	}
	printf("  %s -> %s: %zu buckets agree with the texts\n", names[0], names[1], buckets);
	CHECK(buckets >= 6);
	diff_free(d);
	side_close(&b);
	side_close(&n);
}

/* ---- osnoise: noise events by kind ---------------------------------------------------- */

TEST(diff_osnoise_noise_from_text)
{
	static const char *const kinds[] = { "irq_noise", "softirq_noise", "nmi_noise",
					     "thread_noise", "sample_threshold" };
	static const char *const rows[] = { "osnoise irq noise", "osnoise softirq noise",
					    "osnoise nmi noise", "osnoise thread noise",
					    "osnoise sample_threshold" };
	const char *names[2] = { "rt-osnoise", "rt612-osnoise" };
	double secs[2] = { fx_secs(names[0]), fx_secs(names[1]) };
	uint64_t cnt[2][5] = { { 0 } }, mx[2][5] = { { 0 } };
	const struct diff_table *l;
	char pb[600], pn[600];
	struct side b, n;
	struct diff *d;
	int checked = 0;

	for (int i = 0; i < 2; i++) {
		char *text = fx_text(names[i]), *save = NULL;

		CHECK(text);
		for (char *ln = strtok_r(text, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
			for (int k = 0; k < 5; k++) {
				char pat[40];
				const char *p, *du;
				unsigned long long v;

				snprintf(pat, sizeof(pat), ": %s: ", kinds[k]);
				p = strstr(ln, pat);
				du = p ? strstr(p, " duration ") : NULL;
				if (!du || sscanf(du, " duration %llu ns", &v) != 1)
					continue;
				cnt[i][k]++;
				if (v > mx[i][k])
					mx[i][k] = v;
			}
		}
		free(text);
	}
	CHECK(fx_ktop(names[0], pb, sizeof(pb)) && fx_ktop(names[1], pn, sizeof(pn)));
	CHECK(side_open(&b, pb) && side_open(&n, pn));
	d = diff_new(&b.a, &n.a);
	CHECK(d);
	l = diff_table(d, DIFF_LATENCY);
	for (int k = 0; k < 5; k++) {
		const struct diff_row *r = row_of(l, rows[k], -1);

		if (!cnt[0][k] && !cnt[1][k]) {
			CHECK(!r);
			continue;
		}
		CHECK(r);
		for (int i = 0; i < 2; i++) {
			CHECK(near(r->v[i][0], (double)cnt[i][k] / secs[i], 1e-6));
			if (cnt[i][k])
				CHECK(r->v[i][3] == (double)mx[i][k]);
		}
		CHECK(near(diff_delta(r, 0), (double)cnt[1][k] / secs[1] -
			   (double)cnt[0][k] / secs[0], 1e-6));
		checked++;
	}
	printf("  %s -> %s: %d noise kinds agree with the texts\n", names[0], names[1], checked);
	CHECK(checked >= 2);
	diff_free(d);
	side_close(&b);
	side_close(&n);
}

/* ---- stacks: the table, the merged tree and the folded diff --------------------------- */

/* The text's events with stacks, each as its folded line (root first). */
static void text_folded(const struct text *tx, struct counts *c)
{
	for (size_t i = 0; i < tx->n; i++) {
		char *ch;

		if (!tev_frames(&tx->ev[i]))
			continue;
		ch = chain(&tx->ev[i], true, tev_frames(&tx->ev[i]));
		for (char *p = ch; *p; p++)
			if (*p == ' ' || *p == ';')
				*p = '_';
		for (char *p = ch; (p = strstr(p, SEP)); p++)
			*p = ';';
		counts_add(c, ch, 1, 0);
	}
	counts_done(c);
}

/* The seconds from the text's first event to its last ("... 12.993774: name: ..."). */
static double text_secs(const char *name)
{
	double t0 = -1, t1 = -1;
	char *text = fx_text(name), *save = NULL;

	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		const char *br = strstr(l, "] ");
		double ts;
		char what[64];

		if (l[0] == '#' || !br || sscanf(br + 2, "%*s %lf: %63s", &ts, what) != 2 ||
		    what[0] == '<')
			continue;
		if (t0 < 0)
			t0 = ts;
		t1 = ts;
	}
	free(text);
	return t1 - t0;
}

TEST(diff_stacks_from_text)
{
	const char *names[2] = { "stacks-rt", "stacks-rt612" };
	double secs[2] = { text_secs(names[0]), text_secs(names[1]) };
	struct counts c[2] = { { 0 } };
	const struct diff_table *t;
	const struct diff_stree *tr;
	char pb[600], pn[600];
	struct side b, n;
	struct diff *d;
	size_t matched = 0;
	double root[2] = { 0, 0 };

	CHECK(secs[0] > 0 && secs[1] > 0);
	for (int i = 0; i < 2; i++) {
		struct text tx;
		char path[600];

		snprintf(path, sizeof(path), "%s/%s/trace.txt", fixture_root(), names[i]);
		CHECK(!text_read(path, &tx));
		text_folded(&tx, &c[i]);
		text_free(&tx);
		CHECK(c[i].n > 0);
	}
	CHECK(fx_stacks_ktop(names[0], pb, sizeof(pb)) && fx_stacks_ktop(names[1], pn, sizeof(pn)));
	CHECK(side_open(&b, pb) && side_open(&n, pn));
	d = diff_new(&b.a, &n.a);
	CHECK(d);
	t = diff_table(d, DIFF_STACKS);
	CHECK(t->have[0] && t->have[1]);
	for (size_t i = 0; i < t->n; i++) {
		const struct diff_row *r = &t->rows[i];

		for (int s = 0; s < 2; s++) {
			const struct kc *k = counts_find(&c[s], r->name);
			double want = k ? (double)k->n / secs[s] : 0;

			/* the text's stamps are microseconds: the length within one */
			CHECK(near(r->v[s][0], want, 2e-6 / secs[s] + 1e-9));
			root[s] += r->v[s][0];
		}
		matched++;
	}
	/* every stack of the texts is a row */
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < c[s].n; i++)
			CHECK(row_of(t, c[s].v[i].key, -1));
	/* the icicle's root holds every stack of each side; a child's share of NEW sums up */
	tr = diff_stree(d, DIFF_STACK_EVENTS, false);
	CHECK(tr && diff_stree_size(tr) > 1);
	for (int s = 0; s < 2; s++)
		CHECK(near(diff_stree_node(tr, 0)->v[s], root[s], 1e-9));
	for (uint32_t id = 0; id < diff_stree_size(tr); id++) {
		const struct diff_snode *nd = diff_stree_node(tr, id);
		double sum[2] = { nd->self[0], nd->self[1] }, prev = INFINITY;

		for (uint32_t k = nd->first_child; k != DIFF_SNONE;
		     k = diff_stree_node(tr, k)->next_sibling) {
			const struct diff_snode *ch = diff_stree_node(tr, k);

			CHECK(ch->parent == id && ch->depth == nd->depth + 1);
			CHECK(ch->v[DIFF_NEW] <= prev);	/* by NEW's width */
			prev = ch->v[DIFF_NEW];
			sum[0] += ch->v[0];
			sum[1] += ch->v[1];
		}
		CHECK(near(sum[0], nd->v[0], 1e-9) && near(sum[1], nd->v[1], 1e-9));
	}
	/* the caller tree: the root's children are the leaves */
	tr = diff_stree(d, DIFF_STACK_EVENTS, true);
	CHECK(tr && near(diff_stree_node(tr, 0)->v[1], root[1], 1e-9));
	printf("  %s -> %s: %zu stacks agree with the texts\n", names[0], names[1], matched);
	counts_free(&c[0]);
	counts_free(&c[1]);
	diff_free(d);
	side_close(&b);
	side_close(&n);
}

/* ---- events and tasks by name; new and gone -------------------------------------------- */

TEST(diff_events_by_name)
{
	const char *names[2] = { "rt-sched-irq", "rt612-sched-irq" };
	double secs[2] = { fx_secs(names[0]), fx_secs(names[1]) };
	struct counts c[2] = { { 0 } };
	const struct diff_table *t;
	char pb[600], pn[600];
	struct side b, n;
	struct diff *d;
	int matched = 0;

	for (int i = 0; i < 2; i++) {
		char *text = fx_text(names[i]), *save = NULL;

		CHECK(text);
		for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			const char *br = strstr(l, "] ");
			char what[64];

			if (l[0] == '#' || !br || sscanf(br + 2, "%*s %*f: %63[^:]", what) != 1)
				continue;
			counts_add(&c[i], strdup(what), 1, 0);
		}
		free(text);
		counts_done(&c[i]);
	}
	CHECK(fx_ktop(names[0], pb, sizeof(pb)) && fx_ktop(names[1], pn, sizeof(pn)));
	CHECK(side_open(&b, pb) && side_open(&n, pn));
	d = diff_new(&b.a, &n.a);
	CHECK(d);
	t = diff_table(d, DIFF_EVENTS);
	for (size_t i = 0; i < t->n; i++) {
		const struct diff_row *r = &t->rows[i];
		const char *ev = strchr(r->name, ':') ? strchr(r->name, ':') + 1 : r->name;

		for (int s = 0; s < 2; s++) {
			const struct kc *k = counts_find(&c[s], ev);

			CHECK(near(r->v[s][0], k ? (double)k->n / secs[s] : 0, 1e-6));
			CHECK(!!(r->in & (1 << s)) == !!k);
		}
		matched++;
	}
	/* sorted by the largest change */
	for (size_t i = 1; i < t->n; i++)
		CHECK(fabs(diff_delta(&t->rows[i - 1], 0)) >= fabs(diff_delta(&t->rows[i], 0)));
	printf("  %s -> %s: %d events agree with the texts\n", names[0], names[1], matched);
	CHECK(matched >= 5);
	/* the vmload task (vmload spin, vmload read) is on both sides, by comm */
	t = diff_table(d, DIFF_TASKS);
	{
		const struct diff_row *r = row_of(t, "vmload", -1);

		CHECK(r && r->in == DIFF_IN_BOTH && r->pid[0] > 0 && r->pid[1] > 0);
	}
	counts_free(&c[0]);
	counts_free(&c[1]);
	diff_free(d);
	side_close(&b);
	side_close(&n);
}

/* Two recordings of different tracers: what one lacks is new or gone, and said. */
TEST(diff_new_and_gone)
{
	char pb[600], pn[600];
	const struct diff_table *t;
	const char *notes[8];
	struct side b, n;
	struct diff *d;
	unsigned int nn;
	bool tracers = false;

	CHECK(fx_ktop("rt-timerlat", pb, sizeof(pb)) && fx_ktop("rt-fgraph", pn, sizeof(pn)));
	CHECK(side_open(&b, pb) && side_open(&n, pn));
	d = diff_new(&b.a, &n.a);
	CHECK(d);
	t = diff_table(d, DIFF_EVENTS);
	CHECK(row_of(t, "ftrace:timerlat", -1) &&
	      row_of(t, "ftrace:timerlat", -1)->in == DIFF_IN_BASE);
	CHECK(row_of(t, "ftrace:funcgraph_entry", -1) &&
	      row_of(t, "ftrace:funcgraph_entry", -1)->in == DIFF_IN_NEW);
	CHECK(isnan(diff_ratio(row_of(t, "ftrace:funcgraph_entry", -1), 0)));
	CHECK(diff_ratio(row_of(t, "ftrace:timerlat", -1), 0) == 0);
	t = diff_table(d, DIFF_LATENCY);
	CHECK(t->have[0] && !t->have[1]);
	t = diff_table(d, DIFF_PATHS);
	CHECK(!t->have[0] && t->have[1]);
	nn = diff_notes(d, notes, 8);
	for (unsigned int i = 0; i < nn; i++)
		tracers |= strstr(notes[i], "tracers differ") != NULL;
	CHECK(tracers);
	diff_free(d);
	side_close(&b);
	side_close(&n);
}

/* A row's name in both forms: the text report's padded columns, a pane's narrow ones. */
TEST(diff_row_name_forms)
{
	static const struct {
		enum diff_kind	kind;
		struct diff_row	r;
		const char	*text, *pane;
	} c[] = {
		{ DIFF_TASKS, { .name = "nwrite", .pid = { 7, 42 }, .ntasks = { 1, 3 } },
		  "      42  nwrite (3 threads)", "     42 nwrite (3)" },
		{ DIFF_TASKS, { .name = "nwrite", .pid = { 7, -1 }, .ntasks = { 1, 0 } },
		  "       7  nwrite", "      7 nwrite" },
		{ DIFF_CPUS, { .name = "3", .cpu = 3 }, "3", "3" },
		{ DIFF_CPUS, { .name = "3", .cpu = -1 }, "all", "all" },
		{ DIFF_LATENCY, { .name = "irq", .cpu = 2 }, "2    irq", "2   irq" },
		{ DIFF_LATENCY, { .name = "irq", .cpu = -1 }, "all  irq", "all irq" },
		{ DIFF_HIST, { .name = "irq", .series = 0, .lo = 1024, .hi = 2048 },
		  "irq              [1.02us, 2.05us)", "[1.02us, 2.05us) irq" },
		{ DIFF_HIST, { .name = "wake", .series = DIFF_SERIES_AGG, .lo = 0,
			       .hi = UINT64_MAX },
		  "wake             (0ns, inf]", "(0ns, inf] wake" },
		{ DIFF_EVENTS, { .name = "sched:sched_switch" }, "sched:sched_switch",
		  "sched:sched_switch" },
	};
	char buf[128];

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct diff_table t = { .kind = c[i].kind };

		CHECK_STR(diff_row_name(&t, &c[i].r, DIFF_NAME_TEXT, buf, sizeof(buf)),
			    c[i].text);
		CHECK_STR(diff_row_name(&t, &c[i].r, DIFF_NAME_PANE, buf, sizeof(buf)),
			    c[i].pane);
	}
}

TEST_MAIN()
