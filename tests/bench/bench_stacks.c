// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Stacks in the store, offline (one core):
 *
 *   bench stacks.store_bytes_per_event      1 M sched_switch events, each with one
 *                                           of 2,000 distinct 20-frame stacks (9 in
 *                                           10 from 20 of them), chunks and table
 *   bench stacks.store_bytes_per_event.anchor   the same events without stacks
 *   bench stacks.decode_ns_per_event        decoder_page() + store of the recorded
 *                                           stacks-host pages (every event followed
 *                                           by its stack records), per event
 *   bench stacks.tree_ms                    caller tree of 100,000 distinct stacks
 *                                           (depth 12-28, shared prefixes)
 *   bench stacks.icicle_ms                  the same stacks root first
 *   bench stacks.folded_ms                  their folded text
 *
 * KTOP_BENCH_SECONDS (default 1) bounds the decode replay.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ingest/decode.h"
#include "ingest/fixture.h"
#include "formats/folded.h"
#include "lib/intern.h"
#include "store/stacks.h"
#include "model/stacktree.h"
#include "store/store.h"
#include "kernel/symbols.h"
#include "bench_util.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* @n stacked sched_switch events (ids: 9 in 10 from the first 20). */
static void fill(struct store *st, uint64_t n, const uint32_t *ids, unsigned int nids)
{
	for (uint64_t i = 0; i < n; i++) {
		struct ktop_event ev = {
			.ts = 1000 + i * 1000, .pid = 100 + (int32_t)(i % 13), .cpu = 0,
			.type = KTOP_T_SCHED_SWITCH, .nargs = 7,
		};

		ev.args[0] = 1;
		ev.args[1] = ev.pid;
		ev.args[4] = 2;
		ev.args[5] = 100 + (i + 1) % 13;
		if (ids)
			ev.stack = ids[i % 10 ? bench_mix(i) % 20 : bench_mix(i) % nids];
		store_append(st, &ev);
		if (i % 512 == 511)
			store_publish(st, 0);
	}
	store_publish(st, 0);
}

static void bench_bytes(void)
{
	struct store *a = store_new(1ull << 30, 1), *b = store_new(1ull << 30, 1);
	uint32_t ids[2000];
	uint64_t k[20];
	struct store_stats sa, sb;
	struct stacks_stats ks;

	for (unsigned int i = 0; i < 2000; i++) {
		for (int f = 0; f < 20; f++)
			k[f] = 0xffffffff81000000ull + (bench_mix(i * 40 + f) & 0xffffff);
		ids[i] = stacks_intern(store_stacks(b), k, 20, NULL, 0, 0, 0, NULL);
	}
	fill(a, 1000000, NULL, 0);
	fill(b, 1000000, ids, 2000);
	store_get_stats(a, &sa);
	store_get_stats(b, &sb);
	stacks_get_stats(store_stacks(b), &ks);
	printf("bench stacks.store_bytes_per_event %.2f B (1 M sched_switch, 2,000 distinct "
	       "stacks, 9 in 10 from 20: %.2f in chunks + %.2f for the stack table)\n",
	       (double)(sb.bytes + ks.bytes) / 1e6, (double)sb.bytes / 1e6, (double)ks.bytes / 1e6);
	printf("bench stacks.store_bytes_per_event.anchor %.2f B (the same events without "
	       "stacks)\n", (double)sa.bytes / 1e6);
	store_free(a);
	store_free(b);
}

static void bench_decode(void)
{
	char dir[512];
	struct fixture *fx;
	struct store *st;
	struct decode_ctx *dc;
	struct decode_stats ds = { 0 };
	struct decoder *d[64] = { 0 };
	double t0, t, secs = getenv("KTOP_BENCH_SECONDS") ? atof(getenv("KTOP_BENCH_SECONDS")) : 1;
	uint64_t shift = 0, span = 0;
	struct symbols *syms;

	snprintf(dir, sizeof(dir), "%s/stacks-host", fixture_root());
	fx = fixture_open(dir);
	if (!fx) {
		printf("bench stacks: %s: %s\n", dir, strerror(errno));
		return;
	}
	snprintf(dir, sizeof(dir), "%s/stacks-host/kallsyms", fixture_root());
	syms = symbols_load(dir);
	st = store_new(64ull << 20, fixture_ncpus(fx));
	dc = decode_ctx_new(fixture_tep(fx), st, syms);
	for (unsigned int c = 0; c < fixture_ncpus(fx); c++)
		for (size_t i = 0; i < fixture_npages(fx, c); i++) {
			uint64_t ts;

			memcpy(&ts, fixture_page(fx, c, i), 8);
			if (ts > span)
				span = ts;
		}
	span += 1000000;
	for (unsigned int c = 0; dc && c < fixture_ncpus(fx) && c < 64; c++)
		d[c] = decoder_new(dc, c);
	t0 = now();
	do {
		for (unsigned int c = 0; dc && c < fixture_ncpus(fx) && c < 64; c++) {
			for (size_t i = 0; i < fixture_npages(fx, c); i++) {
				uint8_t page[65536];
				uint64_t ts;

				memcpy(page, fixture_page(fx, c, i), fixture_page_size(fx));
				memcpy(&ts, page, 8);
				ts += shift;
				memcpy(page, &ts, 8);
				decoder_page(d[c], page, fixture_page_size(fx), &ds);
			}
		}
		shift += span;
		t = now() - t0;
	} while (dc && t < secs);
	for (unsigned int c = 0; dc && c < fixture_ncpus(fx) && c < 64; c++) {
		decoder_flush(d[c], false, &ds);
		decoder_free(d[c]);
	}
	printf("bench stacks.decode_ns_per_event %.1f ns (decoder_page + store of the stacks-host "
	       "pages: %llu events, %llu stack records tied, %llu dropped)\n",
	       t * 1e9 / (ds.events ? ds.events : 1), (unsigned long long)ds.events,
	       (unsigned long long)ds.stacks, (unsigned long long)ds.stack_dropped);
	decode_ctx_free(dc);
	store_free(st);
	symbols_free(syms);
	fixture_close(fx);
}

/* 100,000 distinct stacks named from a vocabulary of 5,000 functions, with shared roots. */
static void bench_tree(void)
{
	struct store *st = store_new(0, 1);
	struct intern *in = store_strings(st);
	struct stack_set set = { 0 };
	uint64_t names[5000], k[32];
	struct stack_tree *tr;
	double t0, t1, t2, t3;
	FILE *fp;

	for (int i = 0; i < 5000; i++) {
		char buf[32];
		int n = snprintf(buf, sizeof(buf), "func_%d", i);

		names[i] = intern_id(in, buf, (size_t)n);
	}
	set.v = calloc(100000, sizeof(*set.v));
	for (uint32_t i = 0; i < 100000 && set.v; i++) {
		unsigned int depth = 12 + bench_mix(i) % 17;

		/* root end: a few common paths; leaf end: spread */
		for (unsigned int f = 0; f < depth; f++) {
			unsigned int from_root = depth - 1 - f;

			k[f] = names[from_root < 6 ? bench_mix(from_root * 7 + i % 5) % 40 :
				     bench_mix(i * 131 + f) % 5000];
		}
		set.v[set.n].stack = stacks_intern(store_stacks(st), k, depth, NULL, 0, 0,
						   STACK_F_NAMES, NULL);
		set.v[set.n].count = 1 + bench_mix(i) % 100;
		set.v[set.n].value = set.v[set.n].count;
		set.v[set.n].pid = -1;
		set.count += set.v[set.n].count;
		set.n += set.v[set.n].stack != 0;
	}
	t0 = now();
	tr = stack_tree_build(st, &set, STACK_TREE_CALLERS);
	t1 = now();
	printf("bench stacks.tree_ms %.1f ms (caller tree of %zu distinct stacks: %u nodes)\n",
	       (t1 - t0) * 1e3, set.n, stack_tree_size(tr));
	stack_tree_free(tr);
	t1 = now();
	tr = stack_tree_build(st, &set, STACK_TREE_ROOTS);
	t2 = now();
	printf("bench stacks.icicle_ms %.1f ms (the same stacks root first: %u nodes)\n",
	       (t2 - t1) * 1e3, stack_tree_size(tr));
	stack_tree_free(tr);
	fp = fopen("/dev/null", "w");
	t2 = now();
	if (fp)
		folded_write_set(fp, st, &set, false);
	t3 = now();
	if (fp)
		fclose(fp);
	printf("bench stacks.folded_ms %.1f ms (their folded text)\n", (t3 - t2) * 1e3);
	stack_set_free(&set);
	store_free(st);
}

int main(void)
{
	bench_bytes();
	bench_decode();
	bench_tree();
	return 0;
}
