// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * View filter benchmark (src/view/viewfilter.h) on 10 M held events:
 *
 *   viewfilter.narrow_<kind>      a new filter, evaluated over every held event
 *                                 (viewfilter_update to the end): target <= 1 s
 *   viewfilter.first_page_<kind>  a new filter, then the newest page of 100
 *                                 matches (viewfilter_page), no full pass first:
 *                                 target <= 100 ms
 *   viewfilter.scan.anchor        store_iter over the same events, event by event
 *
 * The store holds a recorded fixture (tests/fixtures/host-sched: sched, irq,
 * syscalls and timer events of a real run) replayed until it holds 10 M events,
 * shifted in time; in every other block of 64 rounds the pids move up, as new
 * tasks would come and go, so a task filter has chunks to skip.
 * Times are thread CPU time (the machine is shared).
 *
 *   bench_viewfilter [EVENTS]    (default 10000000)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/err.h"
#include "ingest/fixture.h"
#include "lib/intern.h"
#include "store/schema.h"
#include "store/store.h"
#include "view/viewfilter.h"

static double now(void)
{
	return (double)clock_thread_ns() / 1e9;	/* the machine is shared */
}

/* The fixture's events, replayed into @dst until it holds @want events. */
static int fill(struct store *dst, struct store *src, uint64_t want)
{
	const struct schema *sc = store_schema(src);
	unsigned int ncpus = store_ncpus(src);
	struct ktop_event *evs = NULL;
	size_t n = 0, cap = 0;
	struct store_stats ss;
	uint64_t span, total = 0;
	uint32_t *strmap;

	for (unsigned int id = KTOP_T_DYNAMIC; id < schema_max_id(sc); id++) {
		const struct ktop_schema_type *t = schema_get(sc, (uint16_t)id);

		if (t)
			schema_add(store_schema(dst), t->system, t->name, t->nfields, t->fields);
	}
	strmap = calloc(intern_count(store_strings(src)) + 1, sizeof(*strmap));
	if (!strmap)
		return -1;
	for (uint32_t i = 0; i < intern_count(store_strings(src)); i++) {
		const char *s = intern_str(store_strings(src), i);

		strmap[i] = intern_id(store_strings(dst), s, strlen(s));
	}
	/* the events once, with strings in the new table, in per-CPU order */
	for (unsigned int cpu = 0; cpu < ncpus; cpu++) {
		uint64_t first, end;

		store_cpu_range(src, cpu, &first, &end);
		for (uint64_t q = first; q < end; q++) {
			const struct ktop_schema_type *t;

			if (n == cap) {
				cap = cap ? cap * 2 : 4096;
				evs = realloc(evs, cap * sizeof(*evs));
				if (!evs)
					return -1;
			}
			if (store_get(src, cpu, q, &evs[n]))
				continue;
			t = schema_get(sc, evs[n].type);
			for (unsigned int k = 0; t && k < evs[n].nargs && k < t->nfields; k++)
				if (t->fields[k].kind == KTOP_FK_STR || t->fields[k].kind == KTOP_FK_SYM)
					evs[n].args[k] = strmap[evs[n].args[k]];
			n++;
		}
	}
	store_get_stats(src, &ss);
	span = ss.last_ts - ss.first_ts + 1000;
	for (uint64_t r = 0; total < want; r++) {
		int32_t shift = (r / 64) % 2 ? (int32_t)(100000 * (r / 64)) : 0;

		for (size_t i = 0; i < n && total < want; i++) {
			struct ktop_event ev = evs[i];

			ev.ts += r * span;
			if (ev.pid && shift) {
				const char *c = store_comm(src, ev.pid);

				ev.pid += shift;
				if (c && r % 64 == 0)
					store_set_comm(dst, ev.pid, c, 0);
			} else if (ev.pid && r == 0 && store_comm(src, ev.pid)) {
				store_set_comm(dst, ev.pid, store_comm(src, ev.pid), 0);
			}
			if (store_append(dst, &ev))
				return -1;
			total++;
		}
		for (unsigned int cpu = 0; cpu < ncpus; cpu++)
			store_publish(dst, cpu);
	}
	free(evs);
	free(strmap);
	return 0;
}

static void bench_filter(struct store *st, const char *kind, const char *text, uint64_t held)
{
	struct viewfilter *vf = viewfilter_new(st, NULL);
	struct ktop_event *page = malloc(100 * sizeof(*page));
	struct viewfilter_counts vc;
	struct err_pos err;
	double t;
	size_t got;

	if (!vf || !page)
		exit(1);
	/* the first page of a new filter */
	t = now();
	if (viewfilter_push(vf, text, &err)) {
		fprintf(stderr, "%s: %s at %d\n", text, err.msg, err.offset);
		exit(1);
	}
	got = viewfilter_page(vf, &VIEWFILTER_POS_END, -1, false, page, NULL, 100);
	t = now() - t;
	printf("bench viewfilter.first_page_%s %.1f ms (%zu rows, newest first; '%s'; "
	       "target <= 100 ms)\n", kind, t * 1e3, got, text);
	/* the whole store under a new filter */
	viewfilter_clear(vf);
	t = now();
	viewfilter_push(vf, text, NULL);
	viewfilter_update(vf, 0);
	t = now() - t;
	viewfilter_counts(vf, &vc);
	if (vc.held != held || vc.evaluated != held)
		fprintf(stderr, "%s: held %" PRIu64 " evaluated %" PRIu64 " of %" PRIu64 "\n",
			kind, vc.held, vc.evaluated, held);
	printf("bench viewfilter.narrow_%s %.3f s (%" PRIu64 " of %" PRIu64 " events match; "
	       "%" PRIu64 " of %" PRIu64 " chunks decided from their dictionaries; "
	       "target <= 1 s)\n", kind, t, vc.matched, vc.held, vc.by_dict, vc.chunks);
	free(page);
	viewfilter_free(vf);
}

int main(int argc, char **argv)
{
	uint64_t want = argc > 1 ? strtoull(argv[1], NULL, 0) : 10000000;
	struct store *src, *st;
	struct store_stats ss;
	struct store_iter *it;
	struct fixture *fx;
	struct ktop_event ev;
	uint64_t k = 0, seq, sum = 0;
	char dir[512], buf[64];
	double t;

	snprintf(dir, sizeof(dir), "%s/host-sched", fixture_root());
	fx = fixture_open(dir);
	src = fx ? store_new(0, fixture_ncpus(fx)) : NULL;
	if (!src || fixture_decode(fx, src, NULL)) {
		fprintf(stderr, "cannot load %s\n", dir);
		return 1;
	}
	st = store_new(4ull << 30, store_ncpus(src));
	if (!st || fill(st, src, want))
		return 1;
	store_get_stats(st, &ss);
	printf("# %" PRIu64 " events held, %.1f MB\n", ss.events, ss.bytes / 1e6);

	/* anchor: every event through store_iter */
	t = now();
	it = store_iter_new(st, 0, UINT64_MAX, NULL);
	while (store_iter_next(it, &ev, &seq)) {
		sum += ev.pid;
		k++;
	}
	store_iter_free(it);
	t = now() - t;
	printf("bench viewfilter.scan.anchor %.3f s (store_iter over the same %" PRIu64
	       " events, %.1f M events/s; %" PRIu64 ")\n", t, k, k / t / 1e6, sum & 1);

	/* a task present in half of the blocks: the other half's chunks are skipped */
	{
		struct store_count c[2];

		store_count_by(src, STORE_KEY_PID, NULL, c, 2);
		snprintf(buf, sizeof(buf), "pid:%" PRIu64, c[0].key ? c[0].key : c[1].key);
	}
	bench_filter(st, "pid", buf, ss.events);
	bench_filter(st, "comm", "comm:cat", ss.events);
	bench_filter(st, "event", "event:sched:sched_switch", ss.events);
	bench_filter(st, "expr", "prev_state & 2 || next_comm ~ \"kworker*\"", ss.events);
	bench_filter(st, "expr_all", "common_flags & 1 && CPU == 1", ss.events);
	store_free(st);
	store_free(src);
	fixture_close(fx);
	return 0;
}
