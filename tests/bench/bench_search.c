// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The event list's search (src/view/evsearch.h with ui/linematch.h) on a
 * recording: from the newest event back to the newest line holding TEXT,
 * as / TEXT does, timed to its end (each step as long as it needs).
 * tests/bench/bench_search.sh runs it on a 10 M-event recording next to grep over
 * the same recording's text export.
 *
 *   bench_search FILE TEXT [plain]
 *
 * Prints one line: "WALL_S CPU_S DONE TOTAL TESTED SKIPPED FOUND_TS" (best
 * wall time of three); "plain": without the layout's answers (every event
 * formatted, no chunk skipped), for comparison. Exit status 1 when nothing
 * was found.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/format.h"
#include "lib/clock.h"
#include "linematch.h"
#include "store/store.h"
#include "view/evsearch.h"
#include "bench_util.h"

static bool plain_match(void *arg, const struct ktop_event *ev)
{
	return linematch_line(arg, ev);
}

static const struct evsearch_ops plain_ops = { .match = plain_match };

int main(int argc, char **argv)
{
	double best = 0, best_cpu = 0;
	struct evsearch_progress pr = { 0 };
	struct viewfilter_pos hit = { 0 };
	struct store *st;
	char err[512];
	int found = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: bench_search FILE TEXT [plain]\n");
		return 2;
	}
	if (format_load(argv[1], 4ull << 30, &st, NULL, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	for (int run = 0; run < 3; run++) {
		uint64_t t0 = clock_mono_ns(), c0 = bench_cpu_ns();
		struct linematch m;
		struct evsearch *s;
		double wall, cpu;
		int ret;

		if (linematch_init(&m, st, FLAGS_STYLE_LAZY, argv[2]))
			return 2;
		s = evsearch_new(st, NULL, &VIEWFILTER_POS_END, -1, -1,
				 argc > 3 ? &plain_ops : &linematch_ops, &m);
		if (!s)
			return 2;
		ret = evsearch_step(s, 0);
		wall = (double)(clock_mono_ns() - t0) / 1e9;
		cpu = (double)(bench_cpu_ns() - c0) / 1e9;
		found = ret == EVSEARCH_FOUND;
		evsearch_progress(s, &pr);
		evsearch_hit(s, NULL, &hit);
		evsearch_free(s);
		linematch_destroy(&m);
		if (!run || wall < best) {
			best = wall;
			best_cpu = cpu;
		}
	}
	printf("%.3f %.3f %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %.6f\n", best, best_cpu,
	       pr.done, pr.total, pr.matched, pr.skipped, (double)hit.ts / 1e9);
	store_free(st);
	return found ? 0 : 1;
}
