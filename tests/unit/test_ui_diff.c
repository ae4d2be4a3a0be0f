// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The diff panes (ui/panes/pane_diff.c, diff_rows.c) drawn into the text
 * screen, as ktop -i BASE --diff NEW shows them (ui_init_diff), on recordings
 * of the two rt kernels (6.1-rt as BASE, 6.12-rt as NEW), each line of the
 * screen read back and checked against the kernel's own text of the same
 * records (trace.txt), read here without ktop's decoder:
 *
 *   - Top (events, rt*-sched-irq): the title's row count is the number of
 *     event names of both texts; the column heads; each line BASE, NEW (events
 *     per second of each text's length), DELTA (signed), RATIO (n.nnx, "new",
 *     "gone") of one event within the printed precision; every event of the
 *     texts on one line; lines by the largest change first; F6 until "by name"
 *     puts them in name order; v shows the syscalls table;
 *   - Latency, v (histograms, rt*-timerlat): each series under its heading,
 *     each line one log2 bucket (its label's bounds), BASE/s and NEW/s the
 *     samples the texts print in it per second, its bar '=' for what both
 *     have, '+' for NEW beyond BASE, '-' for BASE beyond NEW, scaled to the
 *     series' largest rate; every sample of the texts in a listed bucket;
 *   - the header's line of both sides at 400 to 80 columns: within the width,
 *     each side's length, CPUs and events (the texts') whole, the names
 *     shortened to fit (their last component, then its tail), the CPU
 *     counts left out last.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "test.h"

#include "app/app.h"
#include "app/opts.h"
#include "diff/diff.h"
#include "ingest/fixture.h"
#include "snap_common.h"
#include "stacks_text.h"
#include "ui-local.h"
#include "text_screen.h"

static char tmpdir[] = "/tmp/ktop-test-ui-diff-XXXXXX";

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

/* ---- the two recordings, and the screen ---------------------------------------------- */

static struct {
	struct app	side[2];	/* BASE, NEW */
	struct ui	ui;
} rig;

/* Fixture @name written as a .ktop in tmpdir, opened as ktop -i opens it. */
static bool side_open(struct app *a, const char *name)
{
	struct snapshot_meta meta = { 0 };
	struct res r = { 0 };
	struct store *st;
	static char path[2][600];
	char *p = path[a == &rig.side[1]];
	char err[512] = "";

	if (!strncmp(name, "stacks-", 7)) {
		/* its frames named as its text names them (stacks_text.h) */
		snprintf(err, sizeof(err), "%s/%s", fixture_root(), name);
		st = fixture_stacks_store(err, &r);
		if (st)
			snapshot_meta_load_dir(&meta, err, NULL);
		/* every stack named while the fixture's symbols are there */
		for (uint32_t id = 1; st && id <= stacks_count(store_stacks(st)); id++) {
			uint32_t names[2 * STACK_MAX_FRAMES];

			stacks_names(store_stacks(st), id, names, 2 * STACK_MAX_FRAMES);
		}
	} else {
		st = snap_fixture_store(name, &meta);
	}
	if (!st)
		return false;
	snprintf(p, 600, "%s/%s.ktop", tmpdir, name);
	if (export_write(FORMAT_KTOP, p, st, &meta, NULL, NULL, err, sizeof(err))) {
		printf("  %s: %s\n", name, err);
		store_free(st);
		snapshot_meta_free(&meta);
		symbols_free(r.ksyms);
		return false;
	}
	snapshot_meta_free(&meta);
	store_free(st);
	symbols_free(r.ksyms);
	memset(a, 0, sizeof(*a));
	opts_defaults(&a->opts);
	a->wake_fd = -1;
	a->opts.input = p;
	if (app_open_snapshot(a, p, -1, APP_SNAP_SYNC, err, sizeof(err))) {
		printf("  %s: %s\n", p, err);
		return false;
	}
	return true;
}

static bool rig_open(const char *base, const char *new)
{
	memset(&rig, 0, sizeof(rig));
	if (!side_open(&rig.side[0], base) || !side_open(&rig.side[1], new))
		return false;
	if (ui_init_diff(&rig.ui, &rig.side[1], &rig.side[0]))
		return false;
	rig.ui.screen.rows = SCR_ROWS;
	rig.ui.screen.cols = SCR_COLS;
	return true;
}

static void rig_close(void)
{
	ui_destroy(&rig.ui);
	app_stop(&rig.side[0]);
	app_stop(&rig.side[1]);
}

static struct pane *pane_of(const char *name)
{
	return ui_pane(&rig.ui, name);
}

static void draw(struct pane *p)
{
	text_screen_draw(&rig.ui, p);
}

static void key(struct pane *p, enum ui_action act)
{
	CHECK(p->ops->key(&rig.ui, p, act) & UI_REDRAW);
}

/* ---- the kernel's text ------------------------------------------------------------------ */

struct ktext {
	double		secs;		/* first to last time stamp */
	char		(*name)[64];	/* event names, with their counts */
	uint64_t	*count;
	size_t		n;
	uint64_t	lat[2][4096];	/* timerlat: irq, thread latencies (ns) */
	size_t		nlat[2];
};

static void ktext_read(const char *fixture, struct ktext *t)
{
	char path[600], *buf, *save = NULL;
	double first = -1, last = 0;

	memset(t, 0, sizeof(*t));
	snprintf(path, sizeof(path), "%s/%s/trace.txt", fixture_root(), fixture);
	buf = fixture_read_file(path, NULL);
	CHECK(buf);
	if (!buf)
		return;
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		const char *br = strstr(l, "] "), *c;
		char what[64];
		double ts;
		size_t i;

		/* "  comm-pid  [CPU] flags  TS: name: ..." */
		if (l[0] == '#' || !br || sscanf(br + 2, "%*s %lf: %63[^:]", &ts, what) != 2)
			continue;
		if (first < 0)
			first = ts;
		last = ts;
		c = strstr(l, "context ");
		if (c) {
			unsigned long long v;
			char ctx[16];

			if (sscanf(c, "context %15s timer_latency %llu ns", ctx, &v) == 2) {
				int s = !strcmp(ctx, "thread");

				if (t->nlat[s] < 4096)
					t->lat[s][t->nlat[s]++] = v;
			}
			continue;
		}
		for (i = 0; i < t->n && strcmp(t->name[i], what); i++)
			;
		if (i == t->n) {
			t->name = realloc(t->name, (t->n + 1) * sizeof(*t->name));
			t->count = realloc(t->count, (t->n + 1) * sizeof(*t->count));
			snprintf(t->name[i], 64, "%s", what);
			t->count[i] = 0;
			t->n++;
		}
		t->count[i]++;
	}
	t->secs = last - first;
	free(buf);
}

static void ktext_free(struct ktext *t)
{
	free(t->name);
	free(t->count);
}

/* Events per second of event @ev (no system) in @t. */
static double ktext_rate(const struct ktext *t, const char *ev, bool *has)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->name[i], ev)) {
			*has = true;
			return (double)t->count[i] / t->secs;
		}
	*has = false;
	return 0;
}

/* ---- the screen's text ----------------------------------------------------------------- */

/* A figure as the panes print it ("45.8k", "-1.23", "+781", "1.2ms"): its value, in ns for a time. */
static bool fig(const char *s, double *v)
{
	static const struct {
		const char	*sfx;
		double		mul;
	} sfx[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "k", 1e3 },
		    { "M", 1e6 }, { "G", 1e9 }, { "", 1 } };
	char *end;

	*v = strtod(s, &end);
	if (end == s)
		return false;
	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++)
		if (!strcmp(end, sfx[i].sfx)) {
			*v *= sfx[i].mul;
			return true;
		}
	return false;
}

/* Is the printed @got @want, to the three digits the panes print? */
static bool shown_as(double got, double want)
{
	return fabs(got - want) <= 0.0051 * fabs(want) + 0.0051;
}

/* The screen's row @y, its blanks at the end cut. */
static const char *line(int y, char *buf, size_t len)
{
	size_t n;

	snprintf(buf, len, "%s", scr[y]);
	n = strlen(buf);
	while (n && buf[n - 1] == ' ')
		buf[--n] = 0;
	return buf;
}

/* ---- Top: the events ------------------------------------------------------------------- */

struct ev_line {
	char	name[64];
	double	base, new, delta, ratio;	/* ratio: -1 "new", -2 "gone" */
};

/* The event rows of the screen (from row 2) into @out, @n of them. */
static void event_lines(struct ev_line *out, int max, int *np)
{
	int n = 0;

	for (int y = 2; y < SCR_ROWS && n < max; y++) {
		char b[TEXT_COLS + 1], f[4][32], name[128];
		struct ev_line *e = &out[n];

		if (sscanf(line(y, b, sizeof(b)), "%31s %31s %31s %31s %127s", f[0], f[1], f[2],
			   f[3], name) != 5)
			break;
		CHECK(fig(f[0], &e->base) && fig(f[1], &e->new) && fig(f[2], &e->delta));
		/* a growth is signed */
		CHECK(e->delta <= 0 || f[2][0] == '+');
		if (!strcmp(f[3], "new"))
			e->ratio = -1;
		else if (!strcmp(f[3], "gone"))
			e->ratio = -2;
		else
			CHECK(sscanf(f[3], "%lfx", &e->ratio) == 1 && f[3][strlen(f[3]) - 1] == 'x');
		snprintf(e->name, sizeof(e->name), "%.63s", name);
		*np = ++n;
	}
}

TEST(top_pane_events_line_by_line)
{
	struct ktext tx[2];
	struct ev_line ev[64];
	struct pane *p;
	size_t names = 0;
	char b[TEXT_COLS + 1], want[64];
	int n = 0;

	ktext_read("rt-sched-irq", &tx[0]);
	ktext_read("rt612-sched-irq", &tx[1]);
	CHECK(tx[0].secs > 0 && tx[1].secs > 0 && tx[0].n >= 5);
	/* the union of both texts' event names */
	names = tx[0].n;
	for (size_t i = 0; i < tx[1].n; i++) {
		bool has;

		ktext_rate(&tx[0], tx[1].name[i], &has);
		names += !has;
	}
	CHECK(rig_open("rt-sched-irq", "rt612-sched-irq"));
	p = pane_of("top");
	CHECK(p);
	CHECK(ui_diff_ready(&rig.ui, b, sizeof(b)));
	draw(p);
	snprintf(want, sizeof(want), " Events: %zu rows, by change of EVENTS/s", names);
	CHECK(!strncmp(line(0, b, sizeof(b)), want, strlen(want)));
	if (strncmp(b, want, strlen(want)))
		printf("  title: '%s', want '%s'\n", b, want);
	CHECK(strstr(b, "(v: syscalls)"));
	CHECK(!strncmp(line(1, b, sizeof(b)), "     BASE       NEW     DELTA   RATIO  EVENT", 44));

	event_lines(ev, 64, &n);
	CHECK_EQ_U64((uint64_t)n, names);
	for (int i = 0; i < n; i++) {
		const char *nm = strchr(ev[i].name, ':') ? strchr(ev[i].name, ':') + 1 : ev[i].name;
		bool hb, hn;
		double rb = ktext_rate(&tx[0], nm, &hb), rn = ktext_rate(&tx[1], nm, &hn);

		/* each event once */
		for (int j = 0; j < i; j++)
			CHECK(strcmp(ev[i].name, ev[j].name));
		CHECK(hb || hn);
		if (!shown_as(ev[i].base, rb) || !shown_as(ev[i].new, rn) ||
		    !shown_as(ev[i].delta, rn - rb))
			printf("  %s: %g %g %g on the screen, the texts %g %g %g\n", ev[i].name,
			       ev[i].base, ev[i].new, ev[i].delta, rb, rn, rn - rb);
		CHECK(shown_as(ev[i].base, rb) && shown_as(ev[i].new, rn));
		CHECK(shown_as(ev[i].delta, rn - rb));
		if (!hb)
			CHECK(ev[i].ratio == -1);
		else if (!hn)
			CHECK(ev[i].ratio == -2);
		else
			CHECK(fabs(ev[i].ratio - rn / rb) <= 0.0051 + 0.001 * rn / rb);
		/* by the largest change first (the texts' changes, within their stamps' us) */
		if (i) {
			const char *pn = strchr(ev[i - 1].name, ':') + 1;
			double pb = ktext_rate(&tx[0], pn, &hb), pw = ktext_rate(&tx[1], pn, &hn);

			CHECK(fabs(pw - pb) >= fabs(rn - rb) * (1 - 1e-4));
		}
	}
	printf("  %d event lines agree with the texts (%.3f s, %.3f s)\n", n, tx[0].secs,
	       tx[1].secs);

	/* F6 until the rows are by name: the same lines in name order */
	for (int i = 0; i < 6 && !strstr(line(0, b, sizeof(b)), "by name"); i++) {
		key(p, ACT_PANE_SORT);
		draw(p);
	}
	CHECK(strstr(line(0, b, sizeof(b)), " rows, by name"));
	event_lines(ev, 64, &n);
	CHECK_EQ_U64((uint64_t)n, names);
	for (int i = 1; i < n; i++)
		CHECK(strcmp(ev[i - 1].name, ev[i].name) < 0);
	/* v: the syscalls table (none in these recordings: it says so) */
	key(p, ACT_VIEW);
	draw(p);
	CHECK(!strncmp(line(0, b, sizeof(b)), " Syscalls", 9));
	CHECK(strstr(b, "(v: connections)"));
	rig_close();
	ktext_free(&tx[0]);
	ktext_free(&tx[1]);
}

/* ---- Latency: the histograms ------------------------------------------------------------ */

TEST(latency_pane_histograms_line_by_line)
{
	static const char *const series[2] = { "timerlat irq", "timerlat thread" };
	struct ktext *tx = calloc(2, sizeof(*tx));
	uint64_t held[2][2] = { { 0 } };
	int cur = -1, buckets = 0, grow = 0, shrink = 0;
	double max[2][2] = { { 0 } };	/* per series: the largest rate of either side */
	struct pane *p;
	char b[TEXT_COLS + 1];

	ktext_read("rt-timerlat", &tx[0]);
	ktext_read("rt612-timerlat", &tx[1]);
	CHECK(tx[0].nlat[0] > 20 && tx[1].nlat[1] > 20);
	/* each series' largest bucket rate, as the bars scale to it */
	for (int s = 0; s < 2; s++)
		for (int k = 0; k < 63; k++)
			for (int i = 0; i < 2; i++) {
				uint64_t c = 0;

				for (size_t j = 0; j < tx[i].nlat[s]; j++)
					c += tx[i].lat[s][j] >= (k ? 1ull << k : 0) &&
					     tx[i].lat[s][j] < 2ull << k;
				if ((double)c / tx[i].secs > max[s][0])
					max[s][0] = (double)c / tx[i].secs;
			}
	CHECK(rig_open("rt-timerlat", "rt612-timerlat"));
	p = pane_of("latency");
	CHECK(p);
	key(p, ACT_VIEW);
	draw(p);
	CHECK(!strncmp(line(0, b, sizeof(b)), " Latency histograms: ", 21));
	CHECK(strstr(b, "by order"));
	CHECK(strstr(line(1, b, sizeof(b)), "BASE/s") && strstr(b, "NEW/s") &&
	      strstr(b, "+ more in NEW") && strstr(b, "- less in NEW"));
	for (int y = 2; y < SCR_ROWS; y++) {
		char f[3][32], *bar;
		double vb, vn, lo, hi, want[2];
		uint64_t c[2] = { 0, 0 };
		int k, eq = 0, plus = 0, minus = 0, room, nb, nn;

		line(y, b, sizeof(b));
		if (!b[0])
			break;
		if (b[0] == ' ' && b[1] != ' ') {
			/* a heading: the series of the lines below */
			cur = !strcmp(b + 1, series[0]) ? 0 : !strcmp(b + 1, series[1]) ? 1 : -1;
			CHECK(cur >= 0);
			continue;
		}
		CHECK(cur >= 0);
		if (cur < 0 || sscanf(b, "%31s %31s %31s", f[0], f[1], f[2]) != 3)
			break;
		CHECK(fig(f[0], &vb) && fig(f[1], &vn));
		/* the bucket "LO-HI": a power of two and the next */
		bar = strchr(f[2], '-');
		CHECK(bar);
		if (!bar)
			break;
		*bar = 0;
		CHECK(fig(f[2], &lo) && fig(bar + 1, &hi));
		k = lo > 0 ? (int)lround(log2(lo)) : 0;
		CHECK(shown_as(lo, k ? (double)(1ull << k) : 0) && shown_as(hi, (double)(2ull << k)));
		for (int i = 0; i < 2; i++) {
			for (size_t j = 0; j < tx[i].nlat[cur]; j++)
				c[i] += tx[i].lat[cur][j] >= (k ? 1ull << k : 0) &&
					tx[i].lat[cur][j] < 2ull << k;
			want[i] = (double)c[i] / tx[i].secs;
			held[i][cur] += c[i];
		}
		if (!shown_as(vb, want[0]) || !shown_as(vn, want[1]))
			printf("  %s [%g, %g): %g %g on the screen, the texts %g %g\n", series[cur], lo,
			       hi, vb, vn, want[0], want[1]);
		CHECK(shown_as(vb, want[0]) && shown_as(vn, want[1]));
		/* the bar, from the column after the label's padding to the screen's end */
		bar = scr[y] + 2 * (9 + 1) + 1 + 16;
		room = SCR_COLS - (int)(bar - scr[y]) - 1;
		for (char *q = bar; *q && *q != ' '; q++) {
			eq += *q == '=';
			plus += *q == '+';
			minus += *q == '-';
		}
		nb = (int)lround(want[0] / max[cur][0] * room);
		nn = (int)lround(want[1] / max[cur][0] * room);
		/* the texts' stamps are microseconds: a bar's end within one column */
		CHECK(abs(eq - (nb < nn ? nb : nn)) <= 1);
		CHECK(abs(plus - (nn > nb ? nn - nb : 0)) <= 1 && abs(minus - (nb > nn ? nb - nn : 0)) <= 1);
		CHECK(!plus || !minus);
		grow += plus > 1;
		shrink += minus > 1;
		buckets++;
	}
	/* every sample of the texts is in a bucket on the screen */
	for (int i = 0; i < 2; i++)
		for (int s = 0; s < 2; s++)
			CHECK_EQ_U64(held[i][s], tx[i].nlat[s]);
	CHECK(buckets >= 10 && grow && shrink);
	printf("  %d bucket lines agree with the texts (%d with +, %d with -)\n", buckets, grow,
	       shrink);
	rig_close();
	free(tx);
}

/* ---- the header's line of both sides ----------------------------------------------------- */

/* "(S s, N CPUs, E events)" of a side in @line, from @from on: its figures. */
static const char *side_figs(const char *from, double *secs, unsigned int *cpus, double *events)
{
	const char *p = strstr(from, " (");
	char ev[32];

	*cpus = 0;
	if (!p || (sscanf(p, " (%lf s, %u CPUs, %31s events)", secs, cpus, ev) != 3 &&
		   sscanf(p, " (%lf s, %31s events)", secs, ev) != 2) || !fig(ev, events))
		return NULL;
	return strchr(p, ')');
}

TEST(header_line_of_both_sides_fits)
{
	static const int widths[] = { 400, 200, 120, 100, 80 };
	struct ktext tx[2];
	uint64_t total[2] = { 0, 0 };
	struct richstr rs;

	ktext_read("rt-sched-irq", &tx[0]);
	ktext_read("rt612-sched-irq", &tx[1]);
	for (int i = 0; i < 2; i++)
		for (size_t k = 0; k < tx[i].n; k++)
			total[i] += tx[i].count[k];
	CHECK(rig_open("rt-sched-irq", "rt612-sched-irq"));
	for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
		char l[RICHSTR_MAX + 1];
		const char *p, *nb, *nn;
		double secs, events;
		unsigned int cpus;

		rig.ui.screen.cols = widths[w];
		CHECK(ui_diff_header(&rig.ui, 0, &rs));
		snprintf(l, sizeof(l), "%.*s", rs.len, rs.ch);
		if (getenv("KTOP_TEST_SHOW"))
			printf("  %3d: '%s'\n", widths[w], l);
		/* within the width, both sides' figures whole: the names gave way */
		CHECK(rs.len <= widths[w]);
		CHECK(!strncmp(l, " diff  BASE ", 12));
		nb = strstr(l, "rt-sched-irq.ktop");
		nn = strstr(l, "rt612-sched-irq.ktop");
		/* each name whole, or its tail after "..." */
		CHECK((nb && nn) || widths[w] <= 100);
		CHECK(strstr(l, ".ktop (") && strstr(strstr(l, ".ktop (") + 1, ".ktop ("));
		p = l;
		for (int i = 0; i < 2; i++) {
			p = side_figs(p, &secs, &cpus, &events);
			CHECK(p);
			/* the CPU counts give way last (below 120 columns here) */
			CHECK(fabs(secs - tx[i].secs) < 0.051 && (cpus == 2 || widths[w] < 120));
			CHECK(shown_as(events, (double)total[i]));
		}
		CHECK(strstr(l, "  NEW "));
		/* the whole paths where they fit */
		if (widths[w] == 400)
			CHECK(strstr(l, tmpdir) && strstr(l, "per s of each side's own length"));
	}
	rig_close();
	ktext_free(&tx[0]);
	ktext_free(&tx[1]);
}

/* ---- Stacks: the icicle's zoom across a refresh ------------------------------------------ */

/* The icicle's zoomed frame (its first row) and the selected one (the last line). */
static void icicle_names(char *zoom, char *sel, size_t len)
{
	char b[TEXT_COLS + 1], *p;

	snprintf(zoom, len, "%s", line(1, b, sizeof(b)));
	/* the selected frame's line: figures, then its name after the tree's marker */
	line(SCR_ROWS - 1, b, sizeof(b));
	p = strrchr(b, ' ');
	snprintf(sel, len, "%s", p ? p + 1 : b);
}

/* The root's child that the icicle's row @name starts with, in the diff's tree now. */
static uint32_t child_named(const char *name)
{
	const struct diff_stree *t = diff_stree(rig.ui.diff, DIFF_STACK_EVENTS, false);

	for (uint32_t k = t ? diff_stree_node(t, 0)->first_child : DIFF_SNONE; k != DIFF_SNONE;
	     k = diff_stree_node(t, k)->next_sibling) {
		const char *n = diff_stree_node(t, k)->name;

		/* the row shows the name cut to its cell, then blanks */
		if (!strncmp(name, n, strlen(n)) && (!name[strlen(n)] || name[strlen(n)] == ' '))
			return k;
	}
	return DIFF_SNONE;
}

/*
 * Zoom into a frame two levels down and select one of its children, then
 * make the diff again with the sides the other way round (the tree's nodes
 * are numbered again, its children by the other side's rates), as a refresh
 * of a live NEW does: the icicle stays on the same frames.
 */
TEST(icicle_zoom_follows_the_frame_across_a_refresh)
{
	char z0[TEXT_COLS + 1], s0[TEXT_COLS + 1], z1[TEXT_COLS + 1], s1[TEXT_COLS + 1];
	char b[TEXT_COLS + 1];
	struct pane *p;
	uint32_t old_id;

	CHECK(rig_open("stacks-rt", "stacks-rt612"));
	p = pane_of("stacks");
	CHECK(p);
	draw(p);
	CHECK(!strncmp(line(1, b, sizeof(b)), "all", 3));
	/* down twice, right as far as the frames allow (a frame other trees number otherwise) */
	key(p, ACT_DOWN);
	for (int i = 0; i < 3; i++)
		p->ops->key(&rig.ui, p, ACT_RIGHT);
	key(p, ACT_ENTER);
	key(p, ACT_DOWN);
	for (int i = 0; i < 2; i++)
		p->ops->key(&rig.ui, p, ACT_RIGHT);
	draw(p);
	icicle_names(z0, s0, sizeof(z0));
	CHECK(strncmp(z0, "all", 3) && strcmp(z0, s0));
	old_id = child_named(z0);
	CHECK(old_id != DIFF_SNONE);
	/* the refresh: BASE and NEW swapped, the tree made again */
	ui_diff_stop(&rig.ui);
	rig.ui.app = &rig.side[0];
	CHECK(!ui_diff_start(&rig.ui, &rig.side[1]));
	/* the zoomed frame has another number in the new tree */
	CHECK(child_named(z0) != DIFF_SNONE && child_named(z0) != old_id);
	draw(p);
	icicle_names(z1, s1, sizeof(z1));
	if (strcmp(z0, z1) || strcmp(s0, s1))
		printf("  before: zoom '%.60s' sel '%s'; after: zoom '%.60s' sel '%s'\n", z0, s0,
		       z1, s1);
	CHECK(!strcmp(z0, z1) && !strcmp(s0, s1));
	printf("  zoom '%.40s' (node %u, then %u), selected '%s': kept across the refresh\n", z0,
	       old_id, child_named(z0), s0);
	rig.ui.app = &rig.side[1];
	rig_close();
}

TEST_MAIN()
