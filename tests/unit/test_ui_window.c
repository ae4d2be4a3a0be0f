// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The event list's marked time window (ui/panes/pane_events.c,
 * ui/prompts/prompt_save.c): the count the view shows (ui_ev_count,
 * ui/evnav.c) and what a save of the window writes (app_save with [t0, t1],
 * the TUI's s). The window's ends are picked as the view picks them, from two
 * rows of the time-ordered event list (ui_ev_after); the expected events come
 * from an independent scan of every event the store holds (store_get over
 * each CPU's seqs), and the files are read back with the library's own
 * readers (format_load) or parsed here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"

#include "ui-local.h"

#include "app/app.h"
#include "formats/format.h"
#include "snap_common.h"

struct scan {
	uint64_t	n;
	uint64_t	first, last;	/* smallest and largest ts in the window */
};

/* Every event of @st with @t0 <= ts <= @t1, by brute force. */
static struct scan scan_window(struct store *st, uint64_t t0, uint64_t t1)
{
	struct scan s = { .first = UINT64_MAX };

	for (unsigned int cpu = 0; cpu < store_ncpus(st); cpu++) {
		uint64_t first, end;

		store_cpu_range(st, cpu, &first, &end);
		for (uint64_t seq = first; seq < end; seq++) {
			struct ktop_event ev;

			if (store_get(st, cpu, seq, &ev) || ev.ts < t0 || ev.ts > t1)
				continue;
			s.n++;
			if (ev.ts < s.first)
				s.first = ev.ts;
			if (ev.ts > s.last)
				s.last = ev.ts;
		}
	}
	return s;
}

/* The file as format_load reads it: events held, first and last ts. */
static struct scan scan_file(const char *path)
{
	struct scan s = { .first = UINT64_MAX };
	struct store_stats ss;
	struct store *st;
	char err[256];

	if (format_load(path, 0, &st, NULL, err, sizeof(err))) {
		printf("  %s: %s\n", path, err);
		return s;
	}
	s = scan_window(st, 0, UINT64_MAX);
	store_get_stats(st, &ss);
	if (ss.events != s.n)
		printf("  %s: stats say %llu events, a scan finds %llu\n", path,
		       (unsigned long long)ss.events, (unsigned long long)s.n);
	store_free(st);
	return s;
}

/* The ts of rows @a and @b of the event list (oldest first), as the view's v and cursor. */
static int pick_rows(struct store *st, int a, int b, uint64_t *t0, uint64_t *t1)
{
	int n = (a > b ? a : b) + 1;
	struct ui_evrow *r = calloc((size_t)n, sizeof(*r));
	int got;

	if (!r)
		return -ENOMEM;
	got = ui_ev_after(st, &UI_EVPOS_START, true, r, n);
	if (got < n) {
		free(r);
		return -ERANGE;
	}
	/* the cursor may be above or below the mark */
	*t0 = r[a].ev.ts < r[b].ev.ts ? r[a].ev.ts : r[b].ev.ts;
	*t1 = r[a].ev.ts < r[b].ev.ts ? r[b].ev.ts : r[a].ev.ts;
	free(r);
	return 0;
}

static char demo[4096];

static const char *demo_path(void)
{
	const char *fx = getenv("KTOP_FIXTURES");

	snprintf(demo, sizeof(demo), "%s/demo.ktop", fx && *fx ? fx : "tests/fixtures");
	return demo;
}

static void app_init(struct app *a)
{
	memset(a, 0, sizeof(*a));
	a->wake_fd = -1;
	a->opts.memory = STORE_DEFAULT_MEMORY;
}

/* Text: one line per event; '#' lines are the header, lost-event lines say LOST. */
static uint64_t text_events(const char *path)
{
	FILE *fp = fopen(path, "r");
	char line[4096];
	uint64_t n = 0;

	while (fp && fgets(line, sizeof(line), fp))
		n += line[0] != '#' && line[0] != '\n' && !strstr(line, "LOST");
	if (fp)
		fclose(fp);
	return n;
}

/* CSV: the events column (the third) summed over the rows. */
static uint64_t csv_events(const char *path)
{
	FILE *fp = fopen(path, "r");
	char line[1024];
	uint64_t n = 0;

	if (!fp)
		return 0;
	if (fgets(line, sizeof(line), fp))	/* the header */
		while (fgets(line, sizeof(line), fp)) {
			char *c = strrchr(line, ',');

			*c = '\0';	/* drop the percent, the events column is now last */
			c = strrchr(line, ',');
			n += c ? strtoull(c + 1, NULL, 10) : 0;
		}
	fclose(fp);
	return n;
}

/* JSON: every "ts" (microseconds with ns decimals) in [t0, t1]. Return: how many, or -1. */
static long json_ts_in(const char *path, uint64_t t0, uint64_t t1)
{
	FILE *fp = fopen(path, "r");
	char line[4096];
	long n = 0;

	while (fp && fgets(line, sizeof(line), fp)) {
		char *p = strstr(line, "\"ts\":"), *end;
		unsigned long long us, frac = 0;
		uint64_t ns;

		if (!p)
			continue;
		us = strtoull(p + 5, &end, 10);
		if (*end == '.') {
			char *e2;

			frac = strtoull(end + 1, &e2, 10);
			for (long d = e2 - end - 1; d < 3; d++)
				frac *= 10;
		}
		ns = us * 1000 + frac;
		if (ns < t0 || ns > t1) {
			printf("  %s: ts %llu outside [%llu, %llu]\n", path, (unsigned long long)ns,
			       (unsigned long long)t0, (unsigned long long)t1);
			n = -1;
			break;
		}
		n++;
	}
	if (fp)
		fclose(fp);
	return n;
}

TEST(count_matches_a_scan_on_every_fixture)
{
	char names[SNAP_MAX_FIXTURES][64];
	int nf = snap_fixture_names(names, SNAP_MAX_FIXTURES), tried = 0;

	CHECK(nf > 0);
	for (int i = 0; i < nf; i++) {
		struct store *st = snap_fixture_store(names[i], NULL);
		uint64_t held = st ? snap_count(st) : 0, t0, t1;

		if (!st || held < 8) {
			store_free(st);
			continue;
		}
		/* a window in the middle, one at each end, one timestamp, everything */
		const int rows[][2] = {
			{ (int)(held / 3), (int)(held / 2) }, { 0, (int)(held / 4) },
			{ (int)(held - 1), (int)(held * 3 / 4) }, { (int)(held / 2), (int)(held / 2) },
			{ 0, (int)(held - 1) },
		};
		for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
			struct scan s;

			CHECK(pick_rows(st, rows[k][0], rows[k][1], &t0, &t1) == 0);
			s = scan_window(st, t0, t1);
			if (ui_ev_count(st, t0, t1) != s.n)
				printf("  %s rows %d-%d: ui_ev_count %llu, scan %llu\n", names[i],
				       rows[k][0], rows[k][1],
				       (unsigned long long)ui_ev_count(st, t0, t1),
				       (unsigned long long)s.n);
			CHECK_EQ_U64(ui_ev_count(st, t0, t1), s.n);
			CHECK(s.n >= 1 && s.first == t0 && s.last == t1);
		}
		/* the whole store, and nothing */
		CHECK_EQ_U64(ui_ev_count(st, 0, UINT64_MAX), held);
		CHECK_EQ_U64(ui_ev_count(st, t1 + 1, t1), 0);
		tried++;
		store_free(st);
	}
	CHECK(tried > 0);
}

TEST(window_save_of_every_fixture_holds_exactly_the_window)
{
	char names[SNAP_MAX_FIXTURES][64], dir[] = "/tmp/ktop-test-window.XXXXXX", path[8192];
	int nf = snap_fixture_names(names, SNAP_MAX_FIXTURES), tried = 0;

	CHECK(mkdtemp(dir));
	for (int i = 0; i < nf; i++) {
		struct snapshot_meta meta;
		struct store *st = snap_fixture_store(names[i], &meta), *back;
		uint64_t held = st ? snap_count(st) : 0;
		struct export_opts o = { .csv_key = STORE_KEY_TYPE };
		char err[512] = "";
		struct scan want, got;

		if (!st || held < 8) {
			store_free(st);
			snapshot_meta_free(&meta);
			continue;
		}
		CHECK(pick_rows(st, (int)(held * 2 / 3), (int)(held / 5), &o.t0, &o.t1) == 0);
		want = scan_window(st, o.t0, o.t1);
		CHECK(want.n > 0 && want.n < held);
		snprintf(path, sizeof(path), "%s/%s.ktop", dir, names[i]);
		CHECK(export_write(FORMAT_KTOP, path, st, &meta, &o, NULL, err, sizeof(err)) == 0);
		got = scan_file(path);
		if (got.n != want.n)
			printf("  %s: window of %llu events, file holds %llu\n", names[i],
			       (unsigned long long)want.n, (unsigned long long)got.n);
		CHECK_EQ_U64(got.n, want.n);
		CHECK_EQ_U64(got.first, want.first);
		CHECK_EQ_U64(got.last, want.last);
		/* and event by event */
		CHECK(format_load(path, 0, &back, NULL, err, sizeof(err)) == 0);
		CHECK(snap_compare(st, back, o.t0, o.t1) == 0);
		store_free(back);
		unlink(path);
		tried++;
		store_free(st);
		snapshot_meta_free(&meta);
	}
	CHECK(tried > 0);
	CHECK(rmdir(dir) == 0);	/* no temporary file left */
}

TEST(app_save_of_a_window_in_every_format)
{
	static const char *const ext[] = { "ktop", "dat", "json", "txt", "csv" };
	char dir[] = "/tmp/ktop-test-window-app.XXXXXX", path[256], err[512] = "";
	uint64_t t0, t1, held;
	struct scan want, got;
	struct stat sb;
	struct app a;

	CHECK(mkdtemp(dir));
	app_init(&a);
	CHECK(app_open_snapshot(&a, demo_path(), -1, APP_SNAP_SYNC, err, sizeof(err)) == 0);
	held = snap_count(a.st);
	CHECK(held > 100);
	/* the cursor above the mark, as after v and some Up presses */
	CHECK(pick_rows(a.st, (int)(held * 3 / 5), (int)(held / 4), &t0, &t1) == 0);
	want = scan_window(a.st, t0, t1);
	CHECK(want.n > 0 && want.n < held);
	CHECK_EQ_U64(ui_ev_count(a.st, t0, t1), want.n);
	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		snprintf(path, sizeof(path), "%s/w.%s", dir, ext[i]);
		CHECK(app_save(&a, path, -1, t0, t1, 0, err, sizeof(err)) == 0);
		CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0600 && sb.st_size > 0);
	}
	/* .ktop and trace.dat: read back by the library's readers */
	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/w.%s", dir, ext[i]);
		got = scan_file(path);
		if (got.n != want.n)
			printf("  %s: window of %llu events, file holds %llu\n", path,
			       (unsigned long long)want.n, (unsigned long long)got.n);
		CHECK_EQ_U64(got.n, want.n);
		CHECK_EQ_U64(got.first, want.first);
		CHECK_EQ_U64(got.last, want.last);
	}
	snprintf(path, sizeof(path), "%s/w.txt", dir);
	CHECK_EQ_U64(text_events(path), want.n);
	snprintf(path, sizeof(path), "%s/w.csv", dir);
	CHECK_EQ_U64(csv_events(path), want.n);
	snprintf(path, sizeof(path), "%s/w.json", dir);
	CHECK(json_ts_in(path, t0, t1) > 0);
	/* no window: everything, as before */
	snprintf(path, sizeof(path), "%s/all.ktop", dir);
	CHECK(app_save(&a, path, -1, 0, 0, 0, err, sizeof(err)) == 0);
	CHECK_EQ_U64(scan_file(path).n, held);
	unlink(path);
	app_stop(&a);
	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		snprintf(path, sizeof(path), "%s/w.%s", dir, ext[i]);
		unlink(path);
	}
	CHECK(rmdir(dir) == 0);
}

TEST_MAIN()
