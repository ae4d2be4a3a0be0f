// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The stack table (src/store/stacks.h) and the store's stack column: interning,
 * names, weighted sets, ids through sealed chunks, and what stacks cost per
 * event.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "lib/intern.h"
#include "formats/format.h"
#include "formats/ktop.h"
#include "store/stacks.h"
#include "store/store.h"
#include "test.h"

TEST(intern_same_stack_same_id)
{
	struct intern *in = intern_new();
	struct stacks *sk = stacks_new(in, 0);
	struct stacks_cache *c = calloc(1, sizeof(*c));
	uint64_t k[3] = { 0xffffffff81000010ull, 0xffffffff81000020ull, 0xffffffff81000030ull };
	uint64_t u[2] = { 0x401000, 0x402000 };
	struct stack_info si;
	uint32_t a, b, ku, ku2;

	CHECK(in && sk && c);
	a = stacks_intern(sk, k, 3, NULL, 0, 77, 0, c);
	CHECK(a == 1);
	/* the same frames: the same id, from the cache and from the table */
	CHECK(stacks_intern(sk, k, 3, NULL, 0, 0, 0, c) == a);
	CHECK(stacks_intern(sk, k, 3, NULL, 0, 0, 0, NULL) == a);
	b = stacks_intern(sk, k, 2, NULL, 0, 0, 0, c);
	CHECK(b == 2);
	ku = stacks_intern(sk, k, 3, u, 2, 1234, 0, c);
	/* a user part belongs to its process: another tgid is another stack */
	ku2 = stacks_intern(sk, k, 3, u, 2, 1235, 0, c);
	CHECK(ku == 3 && ku2 == 4);
	CHECK(stacks_intern(sk, NULL, 0, NULL, 0, 0, 0, c) == 0);
	CHECK_EQ_U64(stacks_count(sk), 4);
	CHECK(!stacks_get(sk, ku, &si));
	CHECK(si.nkern == 3 && si.nuser == 2 && si.tgid == 1234);
	CHECK(si.frames[0] == k[0] && si.frames[3] == u[0] && si.frames[4] == u[1]);
	/* kernel-only stacks carry no tgid */
	CHECK(!stacks_get(sk, a, &si) && si.tgid == 0);
	CHECK(stacks_get(sk, 5, &si) == -ENOENT && stacks_get(sk, 0, &si) == -ENOENT);
	free(c);
	stacks_free(sk);
	intern_free(in);
}

static uint32_t fake_name(void *ctx, const struct stack_info *s, unsigned int i, uint32_t *mod)
{
	struct intern *in = ctx;
	char buf[64];
	int n;

	if (s->frames[i] == 0xdead)
		return 0;
	n = snprintf(buf, sizeof(buf), "f%llx", (unsigned long long)s->frames[i]);
	*mod = i >= s->nkern ? intern_id(in, "libx.so", 7) : 0;
	return intern_id(in, buf, (size_t)n);
}

TEST(frame_names_resolve_once)
{
	struct intern *in = intern_new();
	struct stacks *sk = stacks_new(in, 0);
	uint64_t k[2] = { 0x10, 0xdead }, u[1] = { 0x20 };
	struct stack_frame f;
	uint32_t id, ids[8], nm, md;

	stacks_set_resolver(sk, fake_name, NULL, in);
	id = stacks_intern(sk, k, 2, u, 1, 9, 0, NULL);
	stacks_peek_name(sk, id, 0, &nm, &md);
	CHECK(nm == 0);
	CHECK(!stacks_frame(sk, id, 0, &f));
	CHECK_STR(f.name, "f10");
	CHECK(f.kind == STACK_FRAME_KERNEL && f.addr == 0x10);
	CHECK(!stacks_frame(sk, id, 1, &f));
	CHECK_STR(f.name, "[unknown]");
	CHECK(!stacks_frame(sk, id, 2, &f));
	CHECK_STR(f.name, "f20");
	CHECK_STR(f.module, "libx.so");
	CHECK(f.kind == STACK_FRAME_USER);
	CHECK(stacks_frame(sk, id, 3, &f) == -ENOENT);
	CHECK(stacks_names(sk, id, ids, 8) == 3);
	CHECK_STR(intern_str(in, ids[0]), "f10");
	CHECK_STR(intern_str(in, ids[2]), "f20");
	/* kept: a name set from a file wins over the resolver */
	stacks_set_name(sk, id, 0, intern_id(in, "given", 5), 0);
	CHECK(!stacks_frame(sk, id, 0, &f));
	CHECK_STR(f.name, "given");
	/* name stacks are their own names */
	{
		uint64_t nmv[2] = { intern_id(in, "leaf", 4), intern_id(in, "root", 4) };
		uint32_t nid = stacks_intern(sk, nmv, 2, NULL, 0, 0, STACK_F_NAMES, NULL);

		CHECK(nid && !stacks_frame(sk, nid, 1, &f));
		CHECK_STR(f.name, "root");
		CHECK(f.kind == STACK_FRAME_NAME);
	}
	stacks_free(sk);
	intern_free(in);
}

TEST(table_limit_counts_dropped)
{
	struct intern *in = intern_new();
	struct stacks *sk = stacks_new(in, 1 << 20);
	struct stacks_stats ss;
	uint64_t k[64];
	uint32_t last = 0, n = 0;

	for (int i = 0; i < 64; i++)
		k[i] = 0xffffffff81000000ull + i;
	for (uint64_t i = 0; i < 100000; i++) {
		k[0] = i;
		last = stacks_intern(sk, k, 64, NULL, 0, 0, 0, NULL);
		if (!last)
			break;
		n++;
	}
	CHECK(!last);
	stacks_get_stats(sk, &ss);
	CHECK(ss.dropped >= 1);
	CHECK(ss.bytes <= ss.limit);
	CHECK_EQ_U64(ss.stacks, n);
	/* what is in still resolves */
	CHECK(stacks_intern(sk, k, 0, NULL, 0, 0, 0, NULL) == 0);
	k[0] = 0;
	CHECK(stacks_intern(sk, k, 64, NULL, 0, 0, 0, NULL) == 1);
	stacks_free(sk);
	intern_free(in);
}

TEST(weights_replace_as_a_whole)
{
	struct intern *in = intern_new();
	struct stacks *sk = stacks_new(in, 0);
	struct stack_weight w[3] = { { 1, 10, 2, 300 }, { 2, 11, 1, 50 }, { 3, -1, 7, 9 } }, o[3];
	uint64_t g1, g2;

	CHECK(!stacks_weights_set(sk, STACKS_W_OFFCPU, w, 3));
	CHECK(stacks_weights_get(sk, STACKS_W_OFFCPU, o, 3, &g1) == 3);
	CHECK(o[0].value == 300 && o[2].pid == -1);
	CHECK(!stacks_weights_set(sk, STACKS_W_OFFCPU, w + 1, 1));
	CHECK(stacks_weights_get(sk, STACKS_W_OFFCPU, o, 1, &g2) == 1 && g2 == g1 + 1);
	CHECK(o[0].stack == 2);
	CHECK(stacks_weights_get(sk, STACKS_W_OFFCPU, NULL, 0, NULL) == 1);
	stacks_free(sk);
	intern_free(in);
}

/* Events for the store tests: one in @every has one of @nstacks stacks. */
static void fill(struct store *st, uint64_t n, unsigned int every, unsigned int nstacks,
		 const uint32_t *ids)
{
	for (uint64_t i = 0; i < n; i++) {
		struct ktop_event ev = {
			.ts = 1000 + i * 100, .pid = 100 + (int32_t)(i % 7), .cpu = 0,
			.type = (i % every) ? KTOP_T_SYS_EXIT : KTOP_T_SCHED_SWITCH,
		};

		if (ev.type == KTOP_T_SCHED_SWITCH) {
			ev.nargs = 7;
			ev.args[0] = 1;
			ev.args[1] = ev.pid;
			ev.args[5] = ev.pid + 1;
			/* nstacks 0: skewed, 9 in 10 from the first 20 of 2000 */
			if (ids && nstacks)
				ev.stack = ids[(i * 7919) % nstacks];
			else if (ids)
				ev.stack = ids[i % 10 ? (i * 13) % 20 : (i * 7919) % 2000];
		} else {
			ev.nargs = 2;
			ev.args[0] = 230;
			ev.args[1] = 0;
		}
		store_append(st, &ev);
		if (i % 512 == 511)
			store_publish(st, 0);
	}
	store_publish(st, 0);
}

static uint32_t *make_stacks(struct store *st, unsigned int n)
{
	uint32_t *ids = calloc(n, sizeof(*ids));
	uint64_t k[20];

	for (unsigned int i = 0; ids && i < n; i++) {
		for (int f = 0; f < 20; f++)
			k[f] = 0xffffffff81000000ull + (uint64_t)(i * 31 + f) * 64;
		ids[i] = stacks_intern(store_stacks(st), k, 20, NULL, 0, 0, 0, NULL);
	}
	return ids;
}

TEST(store_keeps_stack_ids_through_sealing)
{
	struct store *st = store_new(0, 1);
	uint32_t *ids = make_stacks(st, 300);
	struct store_iter *it;
	struct ktop_event ev;
	uint64_t seq, first, end, n = 0, with = 0;

	CHECK(st && ids && ids[299] == 300);
	fill(st, 20000, 3, 300, ids);
	store_cpu_range(st, 0, &first, &end);
	CHECK_EQ_U64(end, 20000);
	for (uint64_t i = 0; i < end; i++) {
		CHECK(!store_get(st, 0, i, &ev));
		if (i % 3) {
			CHECK(ev.stack == 0);
		} else {
			CHECK_EQ_U64(ev.stack, ids[(i * 7919) % 300]);
			with++;
		}
	}
	it = store_iter_new(st, 0, UINT64_MAX, NULL);
	while (store_iter_next(it, &ev, &seq)) {
		CHECK_EQ_U64(ev.stack, seq % 3 ? 0 : ids[(seq * 7919) % 300]);
		n++;
	}
	store_iter_free(it);
	CHECK_EQ_U64(n, 20000);
	CHECK(with > 6000);
	/* an id the table never gave out is not kept */
	ev.ts = 1u << 30;
	ev.stack = 12345;
	ev.nargs = 0;
	ev.type = KTOP_T_SYS_EXIT;
	CHECK(!store_append(st, &ev));
	store_publish(st, 0);
	CHECK(!store_get(st, 0, 20000, &ev) && ev.stack == 0);
	free(ids);
	store_free(st);
}

/* Events of @cpu, each with the next of @n stacks: no two neighbours share one. */
static void fill_distinct(struct store *st, unsigned int cpu, uint64_t n, const uint32_t *ids,
			  unsigned int nids)
{
	for (uint64_t i = 0; i < n; i++) {
		struct ktop_event ev = {
			.ts = 5000 + i * 50, .pid = 200, .cpu = (uint16_t)cpu,
			.type = KTOP_T_SYS_EXIT, .nargs = 2, .stack = ids[i % nids],
		};

		ev.args[0] = 1;
		store_append(st, &ev);
	}
	store_publish(st, cpu);
}

/*
 * Issue 15 point 3 with stacks: a version 2 .ktop copies the sealed chunks,
 * stack column and all (the dictionary form on CPU 0, the direct form on
 * CPU 1), and the table with the same ids; the reader hands the chunks to
 * its store as they are.
 */
TEST(ktop_chunks_keep_the_stack_column)
{
	char path[] = "/tmp/ktop-test-stkchunks-XXXXXX", err[512] = "";
	struct store *st = store_new(0, 2), *back = NULL;
	uint32_t *ids = make_stacks(st, 3000);
	struct ktop_writer_stats ws;
	struct ktop_writer *w;
	uint64_t compared = 0;
	int fd = mkstemp(path);

	CHECK(st && ids && fd >= 0);
	fill(st, 20000, 3, 300, ids);
	fill_distinct(st, 1, 10000, ids, 3000);
	w = ktop_writer_new(fd, path, st, NULL, NULL, err, sizeof(err));
	CHECK(w);
	CHECK(!ktop_writer_flush(w, st) && !ktop_writer_finish(w));
	ktop_writer_stats(w, &ws);
	ktop_writer_free(w);
	close(fd);
	printf("  %llu events, %llu of them in %llu sealed chunks copied, %llu bytes\n",
	       (unsigned long long)ws.events, (unsigned long long)ws.chunks * 2048,
	       (unsigned long long)ws.chunks, (unsigned long long)ws.bytes);
	CHECK(ws.chunks >= 12);
	CHECK(!format_load(path, 0, &back, NULL, err, sizeof(err)));
	CHECK_EQ_U64(stacks_count(store_stacks(back)), stacks_count(store_stacks(st)));
	for (unsigned int cpu = 0; cpu < 2; cpu++) {
		uint64_t first, end, f2, e2;

		store_cpu_range(st, cpu, &first, &end);
		store_cpu_range(back, cpu, &f2, &e2);
		CHECK_EQ_U64(e2 - f2, end - first);
		for (uint64_t i = 0; i < end - first; i++) {
			struct ktop_event a, b;

			CHECK(!store_get(st, cpu, first + i, &a) && !store_get(back, cpu, f2 + i, &b));
			if (a.stack != b.stack)
				printf("  cpu %u event %llu: stack %u, read back %u\n", cpu,
				       (unsigned long long)i, a.stack, b.stack);
			CHECK_EQ_U64(b.stack, a.stack);
			compared += a.stack != 0;
		}
	}
	CHECK(compared > 16000);
	for (uint32_t id = 1; id <= stacks_count(store_stacks(st)); id++) {
		struct stack_info x, y;

		CHECK(!stacks_get(store_stacks(st), id, &x) && !stacks_get(store_stacks(back), id, &y));
		CHECK(x.nkern == y.nkern && x.nuser == y.nuser && x.tgid == y.tgid);
		CHECK(!memcmp(x.frames, y.frames, (x.nkern + x.nuser) * sizeof(x.frames[0])));
	}
	store_free(back);
	store_free(st);
	free(ids);
	unlink(path);
}

/* A version 1 file with stacks (the fuzz corpus keeps one main wrote) still reads. */
TEST(ktop_version1_stacks_read)
{
	const char *path = "tests/fuzz/corpus/3425011bdfd8045e4be70cce5e83c56ed362844d";
	struct snapshot_meta m = { 0 };
	struct store *st = NULL;
	struct store_iter *it;
	struct ktop_event ev;
	uint64_t seq, with = 0;
	char err[512] = "";

	CHECK(!format_load(path, 0, &st, &m, err, sizeof(err)));
	CHECK_EQ_U64(m.version, 1);
	CHECK(stacks_count(store_stacks(st)) > 0);
	it = store_iter_new(st, 0, UINT64_MAX, NULL);
	while (store_iter_next(it, &ev, &seq))
		with += ev.stack != 0;
	store_iter_free(it);
	printf("  %u stacks, %llu events with one\n", stacks_count(store_stacks(st)),
	       (unsigned long long)with);
	CHECK(with > 0);
	snapshot_meta_free(&m);
	store_free(st);
}

/*
 * The brief's figure: a million events with 2,000 distinct stacks cost
 * little more than without. Every event is a stacked sched_switch.
 */
TEST(stack_column_cost_per_event)
{
	struct store *a = store_new(1ull << 30, 1), *b = store_new(1ull << 30, 1);
	uint32_t *ids = make_stacks(b, 2000);
	struct store_stats sa, sb;
	struct stacks_stats ks;
	double ba, bb, bk;

	CHECK(a && b && ids);
	fill(a, 1000000, 1, 2000, NULL);
	fill(b, 1000000, 1, 2000, ids);
	store_get_stats(a, &sa);
	store_get_stats(b, &sb);
	stacks_get_stats(store_stacks(b), &ks);
	ba = (double)sa.bytes / 1e6;
	bb = (double)sb.bytes / 1e6;
	bk = (double)ks.bytes / 1e6;
	printf("# store bytes/event: %.2f without stacks, %.2f with 2000 distinct stacks drawn "
	       "evenly, + %.2f for the stack table\n", ba, bb, bk);
	/* about two bytes per id, no dictionary when it does not pay; a small table */
	CHECK(bb - ba < 2.5);
	CHECK(bk < 1.0);
	store_free(b);
	b = store_new(1ull << 30, 1);
	free(ids);
	ids = make_stacks(b, 2000);
	fill(b, 1000000, 1, 0, ids);
	store_get_stats(b, &sb);
	bb = (double)sb.bytes / 1e6;
	printf("# store bytes/event: %.2f with 2000 distinct stacks, 9 in 10 events from 20 of "
	       "them\n", bb);
	CHECK(bb - ba < 1.5);
	free(ids);
	store_free(a);
	store_free(b);
}

struct race {
	struct stacks	*sk;
	int		seed;
	uint32_t	ids[500];
};

static void *race_intern(void *arg)
{
	struct race *r = arg;
	struct stacks_cache *c = calloc(1, sizeof(*c));
	uint64_t k[8];

	for (int round = 0; round < 20; round++)
		for (int i = 0; i < 500; i++) {
			int x = (i * 7 + r->seed + round) % 500;

			for (int f = 0; f < 8; f++)
				k[f] = 0x1000 + (uint64_t)x * 16 + f;
			r->ids[x] = stacks_intern(r->sk, k, 8, NULL, 0, 0, 0, c);
		}
	free(c);
	return NULL;
}

TEST(concurrent_writers_agree)
{
	struct intern *in = intern_new();
	struct stacks *sk = stacks_new(in, 0);
	struct race r[3];
	pthread_t t[3];

	for (int i = 0; i < 3; i++) {
		r[i].sk = sk;
		r[i].seed = i * 13;
		pthread_create(&t[i], NULL, race_intern, &r[i]);
	}
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ_U64(stacks_count(sk), 500);
	for (int x = 0; x < 500; x++) {
		struct stack_info si;

		CHECK(r[0].ids[x] == r[1].ids[x] && r[1].ids[x] == r[2].ids[x]);
		CHECK(!stacks_get(sk, r[0].ids[x], &si));
		CHECK(si.frames[0] == 0x1000 + (uint64_t)x * 16);
	}
	stacks_free(sk);
	intern_free(in);
}

TEST_MAIN()
