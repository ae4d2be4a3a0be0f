// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * "Save what I see": every export format under a view filter holds exactly
 * the matching events. .ktop and trace.dat are read back (format_load),
 * the text and CSV counted, the JSON loaded by Python's json module; each
 * against the filter's own count and, event by event, against the filter.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "snap_common.h"
#include "formats/format.h"
#include "model/fgraph.h"
#include "formats/folded.h"
#include "model/stacktree.h"
#include "view/viewfilter.h"

static char tmpdir[] = "/tmp/ktop-test-expview.XXXXXX";

/* Every event of @st matches @text (a fresh filter over @st) and there are @want. */
static int check_store(struct store *st, const char *text, uint64_t want)
{
	struct viewfilter *vf = viewfilter_new(st, NULL);
	struct store_iter *it = store_iter_new(st, 0, UINT64_MAX, NULL);
	struct ktop_event ev;
	uint64_t n = 0, seq, bad = 0;

	if (!vf || !it || viewfilter_push(vf, text, NULL))
		return __LINE__;
	while (store_iter_next(it, &ev, &seq)) {
		n++;
		bad += !viewfilter_match(vf, &ev);
	}
	store_iter_free(it);
	viewfilter_free(vf);
	if (n != want || bad) {
		printf("# %s: %llu events read back (%llu not matching), want %llu\n", text,
		       (unsigned long long)n, (unsigned long long)bad, (unsigned long long)want);
		return __LINE__;
	}
	return 0;
}

/* Lines of @path that are events (not "#" comments). */
static uint64_t text_lines(const char *path, const char *needle, uint64_t *with)
{
	char line[4096];
	uint64_t n = 0;
	FILE *fp = fopen(path, "r");

	*with = 0;
	while (fp && fgets(line, sizeof(line), fp)) {
		if (line[0] == '#')
			continue;
		n++;
		*with += strstr(line, needle) != NULL;
	}
	if (fp)
		fclose(fp);
	return n;
}

TEST(exports_hold_what_the_view_matches)
{
	static const char *const views[] = {
		"cpu:1", "event:sched:sched_switch", "prev_state & 1 || comm ~ \"*sh*\"",
	};
	struct snapshot_meta meta;
	struct store *st = snap_fixture_store("host-sched", &meta);
	char err[512], path[600], cmd[800];

	CHECK(st);
	CHECK(mkdtemp(tmpdir));
	for (size_t v = 0; v < sizeof(views) / sizeof(views[0]); v++) {
		struct viewfilter *vf = viewfilter_new(st, NULL);
		struct export_opts o = { .csv_key = STORE_KEY_TYPE };
		struct viewfilter_counts vc;
		struct snapshot_meta back;
		struct store *st2;
		uint64_t n, with;
		FILE *p;

		CHECK(vf && !viewfilter_push(vf, views[v], NULL));
		viewfilter_update(vf, 0);
		viewfilter_counts(vf, &vc);
		CHECK(vc.matched > 0 && vc.matched < vc.held);
		o.view = vf;
		/* .ktop and trace.dat, read back */
		snprintf(path, sizeof(path), "%s/v.ktop", tmpdir);
		CHECK(!export_write(FORMAT_KTOP, path, st, &meta, &o, NULL, err, sizeof(err)));
		CHECK(!format_load(path, 0, &st2, &back, err, sizeof(err)));
		CHECK(!check_store(st2, views[v], vc.matched));
		store_free(st2);
		snapshot_meta_free(&back);
		snprintf(path, sizeof(path), "%s/v.dat", tmpdir);
		CHECK(!export_write(FORMAT_TRACEDAT, path, st, &meta, &o, NULL, err, sizeof(err)));
		CHECK(!format_load(path, 0, &st2, &back, err, sizeof(err)));
		CHECK(!check_store(st2, views[v], vc.matched));
		store_free(st2);
		snapshot_meta_free(&back);
		/* the text: one line per event */
		snprintf(path, sizeof(path), "%s/v.txt", tmpdir);
		CHECK(!export_write(FORMAT_TEXT, path, st, &meta, &o, NULL, err, sizeof(err)));
		n = text_lines(path, v == 0 ? "[001]" : v == 1 ? ": sched_switch: " : "", &with);
		CHECK_EQ_U64(n, vc.matched);
		CHECK_EQ_U64(with, n);
		/* CSV: the counts add up to the matches */
		snprintf(path, sizeof(path), "%s/v.csv", tmpdir);
		CHECK(!export_write(FORMAT_CSV, path, st, &meta, &o, NULL, err, sizeof(err)));
		snprintf(cmd, sizeof(cmd), "python3 -c 'import csv,sys; print(sum(int(r[\"events\"]) "
			 "for r in csv.DictReader(open(sys.argv[1]))))' %s", path);
		p = popen(cmd, "r");
		CHECK(p && fscanf(p, "%llu", (unsigned long long *)&n) == 1);
		pclose(p);
		CHECK_EQ_U64(n, vc.matched);
		/* JSON: one record per event (no function_graph here), and the lost marks */
		snprintf(path, sizeof(path), "%s/v.json", tmpdir);
		CHECK(!export_write(FORMAT_JSON, path, st, &meta, &o, NULL, err, sizeof(err)));
		snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));"
			 " print(sum(1 for e in d[\"traceEvents\"] if e[\"ph\"] != \"M\" and"
			 " e[\"name\"] != \"lost events\"))' %s", path);
		p = popen(cmd, "r");
		CHECK(p && fscanf(p, "%llu", (unsigned long long *)&n) == 1);
		pclose(p);
		CHECK_EQ_U64(n, vc.matched);
		viewfilter_free(vf);
	}
	CHECK(!test_rm_rf(tmpdir));
	snapshot_meta_free(&meta);
	store_free(st);
}

/*
 * --folded graph-count under a view: the function_graph calls of the matching
 * events only, as the graph pane shows them. The reference is a call graph fed
 * by hand with the events the view matches, one by one. The views split the
 * recorded function_graph fixtures (one CPU, one task) by the hardirq flag.
 */
TEST(folded_graph_holds_what_the_view_matches)
{
	static const char *const fx[] = { "rt-fgraph", "rt612-fgraph" };
	static const char *const views[] = { "common_flags & 8", "!(common_flags & 8)" };
	char dir[] = "/tmp/ktop-test-expfold.XXXXXX";
	int done = 0;

	CHECK(mkdtemp(dir));
	for (size_t f = 0; f < sizeof(fx) / sizeof(fx[0]); f++) {
		struct export_opts all = { .folded = FOLDED_GRAPH_COUNT };
		struct snapshot_meta meta;
		struct store *st = snap_fixture_store(fx[f], &meta);
		char err[512], path[600];
		uint64_t total;
		size_t lines;

		if (!st)
			continue;
		snprintf(path, sizeof(path), "%s/all.folded", dir);
		CHECK(!export_write(FORMAT_FOLDED, path, st, &meta, &all, NULL, err, sizeof(err)));
		total = test_folded_sum(path, &lines);
		CHECK(total > 0 && lines > 0);
		for (size_t v = 0; v < sizeof(views) / sizeof(views[0]); v++) {
			struct export_opts o = all;
			struct store_iter *it = store_iter_new(st, 0, UINT64_MAX, NULL);
			struct viewfilter *vf = viewfilter_new(st, NULL);
			struct fgraph *g = fgraph_new(NULL);
			struct stack_set want;
			struct ktop_event ev;
			uint64_t seq, n;

			CHECK(it && vf && g && !viewfilter_push(vf, views[v], NULL));
			while (store_iter_next(it, &ev, &seq))
				if (viewfilter_match(vf, &ev))
					CHECK(fgraph_feed(g, &ev) >= 0);
			store_iter_free(it);
			CHECK(!stack_set_from_fgraph(st, g, 0, false, &want));
			o.view = vf;
			snprintf(path, sizeof(path), "%s/%zu.folded", dir, v);
			CHECK(!export_write(FORMAT_FOLDED, path, st, &meta, &o, NULL, err,
					    sizeof(err)));
			n = test_folded_sum(path, &lines);
			printf("  %s '%s': %llu of %llu calls, %llu by hand\n", fx[f], views[v],
			       (unsigned long long)n, (unsigned long long)total,
			       (unsigned long long)want.count);
			CHECK(n > 0 && n < total);
			CHECK_EQ_U64(n, want.count);
			stack_set_free(&want);
			fgraph_free(g);
			viewfilter_free(vf);
		}
		snapshot_meta_free(&meta);
		store_free(st);
		done++;
	}
	CHECK(done > 0 || strcmp(fixture_root(), "tests/fixtures"));
	CHECK(!test_rm_rf(dir));
}

TEST_MAIN()
