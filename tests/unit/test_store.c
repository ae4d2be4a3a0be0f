// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The event store: append/publish/get, exact round trips of every field,
 * eviction, the time index, the merge across CPUs, the queries, lost marks,
 * comms, and a concurrent reader and writer checked event by event.
 *
 * Expected values come from a deterministic generator (a hash of cpu and seq),
 * never from the store itself.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "lib/intern.h"
#include "store/schema.h"
#include "store/store.h"
#include "test.h"

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SLOW 1
#else
#define SLOW 0
#endif

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static const uint8_t gen_nargs[KTOP_T_NR_FIXED] = {
	[KTOP_T_FUNCTION] = 2, [KTOP_T_FGRAPH_ENTRY] = 2, [KTOP_T_FGRAPH_EXIT] = 5,
	[KTOP_T_SCHED_SWITCH] = 7, [KTOP_T_SCHED_WAKEUP] = 4, [KTOP_T_SYS_ENTER] = 7,
	[KTOP_T_SYS_EXIT] = 2, [KTOP_T_IRQ_HANDLER_ENTRY] = 2, [KTOP_T_TIMERLAT] = 3,
	[KTOP_T_OSNOISE] = 8, [KTOP_T_MARKER] = 1, [KTOP_T_THREAD_NOISE] = 4,
};

/* An argument of any magnitude: small, pid-like, id-like, negative, huge. */
static uint64_t gen_arg(uint64_t h)
{
	switch (h & 7) {
	case 0:
		return (h >> 8) & 0xf;
	case 1:
		return 1000 + ((h >> 8) & 31);
	case 2:
		return (h >> 8) & 0xfff;
	case 3:
		return (uint64_t)-(int64_t)((h >> 8) & 0xff);
	case 4:
		return h;
	case 5:
		return 0xffffffff81000000ull + ((h >> 8) & 0xffffff);
	case 6:
		return (uint64_t)(int64_t)(int32_t)(h >> 20);
	default:
		return 0;
	}
}

/*
 * Event number @seq of @cpu. Time strictly increases with seq (steps of
 * 1..1000 ns on top of 1000 per event), so ts identifies the event.
 */
static void gen_event(unsigned int cpu, uint64_t seq, uint16_t dyn_type, struct ktop_event *ev)
{
	static const uint16_t types[] = {
		KTOP_T_FUNCTION, KTOP_T_FUNCTION, KTOP_T_FGRAPH_ENTRY, KTOP_T_FGRAPH_EXIT,
		KTOP_T_SCHED_SWITCH, KTOP_T_SCHED_WAKEUP, KTOP_T_SYS_ENTER, KTOP_T_SYS_EXIT,
		KTOP_T_IRQ_HANDLER_ENTRY, KTOP_T_TIMERLAT, KTOP_T_OSNOISE, KTOP_T_MARKER,
		KTOP_T_THREAD_NOISE, KTOP_T_DYNAMIC,
	};
	uint64_t h = mix64(((uint64_t)cpu << 48) ^ seq);

	memset(ev, 0, sizeof(*ev));
	ev->cpu = cpu;
	ev->ts = 1000000000ull + seq * 1000 + (h % 1000) + cpu * 7;
	h = mix64(h);
	ev->type = types[h % (sizeof(types) / sizeof(types[0]))];
	if (ev->type == KTOP_T_DYNAMIC)
		ev->type = dyn_type;
	ev->pid = (h >> 8) % 5 == 0 ? (int32_t)(h >> 16) : (int32_t)(100 + ((h >> 12) % 40));
	ev->flags = (h >> 20) & 3 ? 0 : (uint8_t)(h >> 24);
	ev->pc = (h >> 32) & 1 ? 0 : (uint8_t)(h >> 40);
	if (ev->type < KTOP_T_NR_FIXED)
		ev->nargs = gen_nargs[ev->type];
	else
		ev->nargs = (h >> 44) % (KTOP_MAX_ARGS + 1);
	for (unsigned int i = 0; i < ev->nargs; i++) {
		h = mix64(h + i);
		ev->args[i] = gen_arg(h);
	}
	/* function keys: a symbol id from a small set */
	if (ev->type == KTOP_T_FUNCTION || ev->type == KTOP_T_FGRAPH_ENTRY)
		ev->args[0] = 1 + (h >> 50) % 50;
}

static int ev_equal(const struct ktop_event *a, const struct ktop_event *b)
{
	if (a->ts != b->ts || a->pid != b->pid || a->cpu != b->cpu || a->type != b->type ||
	    a->flags != b->flags || a->pc != b->pc || a->nargs != b->nargs)
		return 0;
	return !memcmp(a->args, b->args, a->nargs * sizeof(a->args[0]));
}

static uint16_t add_dyn_type(struct store *st)
{
	struct ktop_field f[KTOP_MAX_ARGS];

	for (int i = 0; i < KTOP_MAX_ARGS; i++)
		f[i] = (struct ktop_field){ "f", (enum ktop_field_kind)(i % 5) };
	return schema_add(store_schema(st), "test", "dyn", KTOP_MAX_ARGS, f);
}

static struct store *fill(size_t limit, unsigned int ncpus, uint64_t n, uint16_t *dyn)
{
	struct store *st = store_new(limit, ncpus);
	struct ktop_event ev;

	if (!st)
		return NULL;
	*dyn = add_dyn_type(st);
	for (uint64_t s = 0; s < n; s++) {
		for (unsigned int c = 0; c < ncpus; c++) {
			gen_event(c, s, *dyn, &ev);
			if (store_append(st, &ev))
				return NULL;
		}
		if (s % 100 == 99)
			for (unsigned int c = 0; c < ncpus; c++)
				store_publish(st, c);
	}
	for (unsigned int c = 0; c < ncpus; c++)
		store_publish(st, c);
	return st;
}

TEST(store_append_publish_get)
{
	struct store *st = store_new(0, 2);
	struct ktop_event ev, got;
	struct store_stats s;
	uint64_t first, end;

	CHECK(st);
	CHECK_EQ_U64(store_ncpus(st), 2);
	CHECK(store_strings(st) && store_schema(st));
	store_get_stats(st, &s);
	CHECK_EQ_U64(s.events, 0);
	CHECK_EQ_U64(s.first_ts, 0);
	CHECK_EQ_U64(s.limit, STORE_DEFAULT_MEMORY);
	for (uint64_t i = 0; i < 10; i++) {
		gen_event(1, i, KTOP_T_FUNCTION, &ev);
		CHECK(!store_append(st, &ev));
	}
	/* nothing visible before publish */
	CHECK_EQ_U64(store_get(st, 1, 0, &got), -ENOENT);
	store_cpu_range(st, 1, &first, &end);
	CHECK_EQ_U64(end, 0);
	store_publish(st, 1);
	store_cpu_range(st, 1, &first, &end);
	CHECK_EQ_U64(first, 0);
	CHECK_EQ_U64(end, 10);
	for (uint64_t i = 0; i < 10; i++) {
		gen_event(1, i, KTOP_T_FUNCTION, &ev);
		CHECK(!store_get(st, 1, i, &got));
		CHECK(ev_equal(&ev, &got));
		for (unsigned int a = got.nargs; a < KTOP_MAX_ARGS; a++)
			CHECK_EQ_U64(got.args[a], 0);
	}
	CHECK_EQ_U64(store_get(st, 1, 10, &got), -ENOENT);
	CHECK_EQ_U64(store_get(st, 0, 0, &got), -ENOENT);
	CHECK_EQ_U64(store_get(st, 5, 0, &got), -ENOENT);
	store_get_stats(st, &s);
	CHECK_EQ_U64(s.events, 10);
	CHECK_EQ_U64(s.appended, 10);
	gen_event(1, 0, 0, &ev);
	CHECK_EQ_U64(s.first_ts, ev.ts);
	gen_event(1, 9, 0, &ev);
	CHECK_EQ_U64(s.last_ts, ev.ts);
	store_get_cpu_stats(st, 0, &s);
	CHECK_EQ_U64(s.events, 0);
	/* an event older than the last one is clamped and counted */
	gen_event(1, 3, KTOP_T_FUNCTION, &ev);
	CHECK(!store_append(st, &ev));
	store_publish(st, 1);
	CHECK(!store_get(st, 1, 10, &got));
	gen_event(1, 9, 0, &ev);
	CHECK_EQ_U64(got.ts, ev.ts);
	store_get_stats(st, &s);
	CHECK_EQ_U64(s.reordered, 1);
	store_free(st);
	store_free(NULL);
}

/* Every field of every type, over many chunks, comes back bit for bit. */
TEST(store_roundtrip_exact)
{
	const uint64_t n = SLOW ? 20000 : 100000;
	struct ktop_event ev, got;
	uint16_t dyn;
	struct store *st = fill(0, 3, n, &dyn);

	CHECK(st);
	for (unsigned int c = 0; c < 3; c++) {
		uint64_t first, end;

		store_cpu_range(st, c, &first, &end);
		CHECK_EQ_U64(first, 0);
		CHECK_EQ_U64(end, n);
		for (uint64_t s = 0; s < n; s++) {
			gen_event(c, s, dyn, &ev);
			CHECK(!store_get(st, c, s, &got));
			if (!ev_equal(&ev, &got))
				printf("cpu %u seq %" PRIu64 " type %u\n", c, s, ev.type);
			CHECK(ev_equal(&ev, &got));
		}
		/* backwards and scattered, too (each may decode a chunk) */
		for (uint64_t k = 0; k < (SLOW ? 200 : 2000); k++) {
			uint64_t s = mix64(k) % n;

			gen_event(c, s, dyn, &ev);
			CHECK(!store_get(st, c, s, &got));
			CHECK(ev_equal(&ev, &got));
		}
	}
	store_free(st);
}

/*
 * Writing in place (store_reserve/store_commit), as the decoder does: windows
 * of any size across chunk boundaries, rows written but not committed,
 * store_append between windows, the clamp of older events, every argument
 * count from 0 to KTOP_MAX_ARGS: all read back bit for bit.
 */
TEST(store_reserve_commit)
{
	const uint64_t n = SLOW ? 20000 : 60000;
	struct store *st = store_new(0, 2);
	struct ktop_event ev, got;
	struct store_wbuf w;
	struct store_stats s;
	uint64_t seq = 0, reordered = 0, first, end, h = 1;
	uint16_t dyn;

	CHECK(st);
	dyn = add_dyn_type(st);
	CHECK_EQ_U64(store_reserve(st, 2, 0, &w), -EINVAL);
	/* a chunk opened for an event that is then not committed starts at its first row */
	CHECK(!store_reserve(st, 1, 5000, &w));
	CHECK(w.nrow >= 1 && w.aoff + KTOP_MAX_ARGS <= w.aend);
	CHECK_EQ_U64(w.last_ts, 0);
	store_commit(st, 1, &w, 0, w.aoff, 0, 0);
	CHECK(!store_reserve(st, 1, 5000, &w));
	gen_event(1, 0, dyn, &ev);
	ev.ts = 4000;
	w.row[0] = (struct store_brow){ .ts = ev.ts, .pid = ev.pid, .aoff = w.aoff,
					.type = ev.type, .flags = ev.flags, .pc = ev.pc,
					.nargs = ev.nargs };
	memcpy(&w.args[w.aoff], ev.args, ev.nargs * sizeof(ev.args[0]));
	store_commit(st, 1, &w, 1, w.aoff + ev.nargs, ev.ts, 0);
	CHECK_EQ_U64(store_get(st, 1, 0, &got), -ENOENT);	/* not published */
	store_publish(st, 1);
	store_get_stats(st, &s);
	CHECK_EQ_U64(s.first_ts, 4000);
	CHECK(!store_get(st, 1, 0, &got));
	CHECK(ev_equal(&ev, &got));
	seq = 1;
	while (seq < n) {
		uint32_t k = 0, a, want;
		uint64_t last, clamped = 0;

		h = mix64(h);
		if (h % 7 == 0) {
			/* store_append between windows */
			gen_event(1, seq, dyn, &ev);
			CHECK(!store_append(st, &ev));
			seq++;
			continue;
		}
		want = 1 + (h >> 8) % (h & 8 ? 600 : 5);
		gen_event(1, seq, dyn, &ev);
		CHECK(!store_reserve(st, 1, ev.ts, &w));
		a = w.aoff;
		last = w.last_ts;
		while (k < want && k < w.nrow && a + KTOP_MAX_ARGS <= w.aend && seq + k < n) {
			gen_event(1, seq + k, dyn, &ev);
			if (seq + k == n / 2) {
				/* older than the last: the writer clamps and counts */
				ev.ts = last - 1;
				clamped++;
			}
			if (ev.ts < last)
				ev.ts = last;
			w.row[k] = (struct store_brow){ .ts = ev.ts, .pid = ev.pid, .aoff = a,
							.type = ev.type, .flags = ev.flags,
							.pc = ev.pc, .nargs = ev.nargs };
			/* what a decoder writes: all KTOP_MAX_ARGS slots may be touched */
			memset(&w.args[a], 0xa5, KTOP_MAX_ARGS * sizeof(w.args[0]));
			memcpy(&w.args[a], ev.args, ev.nargs * sizeof(ev.args[0]));
			a += ev.nargs;
			last = ev.ts;
			k++;
		}
		/* a row written past the committed ones is not appended */
		if (k < w.nrow && a + KTOP_MAX_ARGS <= w.aend) {
			memset(&w.row[k], 0xff, sizeof(w.row[k]));
			memset(&w.args[a], 0xff, KTOP_MAX_ARGS * sizeof(w.args[0]));
		}
		store_commit(st, 1, &w, k, a, last, clamped);
		reordered += clamped;
		seq += k;
		if (h & 16)
			store_publish(st, 1);
	}
	store_publish(st, 1);
	store_cpu_range(st, 1, &first, &end);
	CHECK_EQ_U64(first, 0);
	CHECK_EQ_U64(end, n);
	store_get_stats(st, &s);
	CHECK_EQ_U64(s.reordered, reordered);
	CHECK_EQ_U64(reordered, 1);
	CHECK_EQ_U64(s.events, n);
	for (uint64_t i = 1; i < n; i++) {
		gen_event(1, i, dyn, &ev);
		if (i == n / 2) {
			struct ktop_event prev;

			CHECK(!store_get(st, 1, i - 1, &prev));
			ev.ts = prev.ts;
		}
		CHECK(!store_get(st, 1, i, &got));
		if (!ev_equal(&ev, &got))
			printf("seq %" PRIu64 " type %u nargs %u\n", i, ev.type, ev.nargs);
		CHECK(ev_equal(&ev, &got));
	}
	store_cpu_range(st, 0, &first, &end);
	CHECK_EQ_U64(end, 0);
	store_free(st);
}

/*
 * Values of every width, both sides of each varint length (7, 14, .. 56 bits,
 * then 64), as arguments of each codec, time steps and pids: round trips.
 */
TEST(store_varint_widths)
{
	static const uint16_t types[] = {
		KTOP_T_FUNCTION, KTOP_T_SCHED_SWITCH, KTOP_T_SYS_ENTER, KTOP_T_FGRAPH_EXIT,
		KTOP_T_IRQ_HANDLER_EXIT, KTOP_T_THREAD_NOISE, KTOP_T_OSNOISE, 0,
	};
	struct store *st = store_new(0, 1);
	struct ktop_event ev, got;
	uint64_t n = 0, ts = 1, first, end;
	uint16_t dyn;

	CHECK(st);
	dyn = add_dyn_type(st);
	for (unsigned int round = 0; round < 3; round++) {
		for (unsigned int b = 0; b <= 64; b++) {
			for (unsigned int k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
				uint64_t v = b == 64 ? ~0ull : (1ull << b) - 1;

				memset(&ev, 0, sizeof(ev));
				ev.type = types[k] ? types[k] : dyn;
				ev.nargs = ev.type == dyn ? KTOP_MAX_ARGS : gen_nargs[ev.type];
				if (ev.type == KTOP_T_THREAD_NOISE)
					ev.nargs = 4;
				/* time steps of every width too, up to 2^40 */
				ts += (b < 40 ? v : 1) + 1;
				ev.ts = ts;
				ev.pid = (int32_t)(round & 1 ? v : 0 - v);
				for (unsigned int a = 0; a < ev.nargs; a++)
					ev.args[a] = (round == 2 ? -v : v) + a - (round & 1);
				CHECK(!store_append(st, &ev));
				n++;
			}
		}
	}
	/* more events than a chunk holds: those above are read from sealed chunks */
	for (uint64_t i = 0; i < 3000; i++) {
		gen_event(0, i, dyn, &ev);
		ev.ts += ts;
		CHECK(!store_append(st, &ev));
	}
	store_publish(st, 0);
	store_cpu_range(st, 0, &first, &end);
	CHECK_EQ_U64(end, n + 3000);
	ts = 1;
	n = 0;
	for (unsigned int round = 0; round < 3; round++) {
		for (unsigned int b = 0; b <= 64; b++) {
			for (unsigned int k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
				uint64_t v = b == 64 ? ~0ull : (1ull << b) - 1;

				memset(&ev, 0, sizeof(ev));
				ev.type = types[k] ? types[k] : dyn;
				ev.nargs = ev.type == dyn ? KTOP_MAX_ARGS : gen_nargs[ev.type];
				if (ev.type == KTOP_T_THREAD_NOISE)
					ev.nargs = 4;
				ts += (b < 40 ? v : 1) + 1;
				ev.ts = ts;
				ev.pid = (int32_t)(round & 1 ? v : 0 - v);
				for (unsigned int a = 0; a < ev.nargs; a++)
					ev.args[a] = (round == 2 ? -v : v) + a - (round & 1);
				CHECK(!store_get(st, 0, n, &got));
				if (!ev_equal(&ev, &got))
					printf("round %u bits %u type %u\n", round, b, ev.type);
				CHECK(ev_equal(&ev, &got));
				n++;
			}
		}
	}
	store_free(st);
}

TEST(store_eviction)
{
	const size_t limit = 4u << 20;
	const uint64_t n = SLOW ? 100000 : 300000;
	struct store_stats s, c0, c1;
	struct ktop_event ev, got;
	uint64_t first0, end0, first1, end1;
	uint16_t dyn;
	struct store *st = fill(limit, 2, n, &dyn);

	CHECK(st);
	store_get_stats(st, &s);
	CHECK_EQ_U64(s.limit, limit);
	CHECK_EQ_U64(s.appended, 2 * n);
	CHECK(s.evicted > 0);
	CHECK(s.bytes <= limit);
	CHECK_EQ_U64(s.events + s.evicted, s.appended);
	store_get_cpu_stats(st, 0, &c0);
	store_get_cpu_stats(st, 1, &c1);
	CHECK_EQ_U64(c0.evicted + c1.evicted, s.evicted);
	CHECK_EQ_U64(c0.events + c1.events, s.events);
	CHECK_EQ_U64(c0.bytes + c1.bytes, s.bytes);
	store_cpu_range(st, 0, &first0, &end0);
	store_cpu_range(st, 1, &first1, &end1);
	CHECK_EQ_U64(end0, n);
	CHECK_EQ_U64(end1, n);
	CHECK(first0 > 0 && first1 > 0);
	CHECK_EQ_U64(first0, c0.evicted);
	CHECK_EQ_U64(end0 - first0, c0.events);
	/* the oldest went first: both CPUs keep about the same time span */
	CHECK(first0 < first1 + n / 10 && first1 < first0 + n / 10);
	CHECK_EQ_U64(store_get(st, 0, first0 - 1, &got), -ENOENT);
	CHECK_EQ_U64(store_get(st, 0, 0, &got), -ENOENT);
	CHECK(!store_get(st, 0, first0, &got));
	gen_event(0, first0, dyn, &ev);
	CHECK(ev_equal(&ev, &got));
	CHECK(s.first_ts <= ev.ts);
	gen_event(1, first1, dyn, &ev);
	CHECK(s.first_ts <= ev.ts);
	CHECK(s.first_ts == ev.ts || s.first_ts == c0.first_ts);
	gen_event(1, n - 1, dyn, &ev);
	CHECK_EQ_U64(s.last_ts, ev.ts);
	/* seek below the held range lands on the first held event */
	CHECK_EQ_U64(store_seek(st, 0, 0), first0);
	store_free(st);
}

/*
 * store_get_range returns what store_get returns event by event: across chunk
 * boundaries, into the open chunk, stopping at the published end, and with
 * evicted events as KTOP_T_NONE. Expected events from the generator.
 */
TEST(store_get_range_matches_the_generator)
{
	enum { MAXR = 5000 };
	const uint64_t n = SLOW ? 60000 : 200000;
	static struct ktop_event out[MAXR];
	struct ktop_event ev;
	uint64_t first, end, h = 7;
	uint16_t dyn;
	/* small enough that the oldest events of n are evicted */
	struct store *st = fill(SLOW ? 1u << 20 : 4u << 20, 2, n, &dyn);

	CHECK(st);
	store_cpu_range(st, 1, &first, &end);
	CHECK(first > 0 && end == n);
	for (int round = 0; round < 300; round++) {
		uint64_t from, to;
		size_t got;

		h = mix64(h);
		/* below the held range sometimes, past the end sometimes */
		from = first - first / 50 + h % (end - first + first / 50);
		to = from + (h >> 32) % MAXR;
		got = store_get_range(st, 1, from, to, out);
		CHECK_EQ_U64(got, (to < end ? to : end) - from);
		for (size_t i = 0; i < got; i++) {
			if (from + i < first) {
				CHECK_EQ_U64(out[i].type, KTOP_T_NONE);
				continue;
			}
			gen_event(1, from + i, dyn, &ev);
			CHECK(ev_equal(&out[i], &ev));
		}
	}
	/* the open chunk: a few events appended and published after the fill */
	for (uint64_t s = n; s < n + 10; s++) {
		gen_event(1, s, dyn, &ev);
		CHECK(!store_append(st, &ev));
	}
	CHECK_EQ_U64(store_get_range(st, 1, n - 5, n + 10, out), 5);
	store_publish(st, 1);
	CHECK_EQ_U64(store_get_range(st, 1, n - 5, n + 10, out), 15);
	for (size_t i = 0; i < 15; i++) {
		gen_event(1, n - 5 + i, dyn, &ev);
		CHECK(ev_equal(&out[i], &ev));
	}
	CHECK_EQ_U64(store_get_range(st, 9, 0, 10, out), 0);
	store_free(st);
}

TEST(store_seek)
{
	const uint64_t n = SLOW ? 20000 : 50000;
	struct ktop_event ev;
	uint16_t dyn;
	struct store *st = fill(0, 2, n, &dyn);

	CHECK(st);
	for (unsigned int c = 0; c < 2; c++) {
		CHECK_EQ_U64(store_seek(st, c, 0), 0);
		CHECK_EQ_U64(store_seek(st, c, UINT64_MAX), n);
		for (uint64_t k = 0; k < (SLOW ? 300 : 3000); k++) {
			uint64_t s = mix64(k * 31 + c) % n;
			struct ktop_event prev;

			gen_event(c, s, dyn, &ev);
			/* exactly at an event, and just after the previous one */
			CHECK_EQ_U64(store_seek(st, c, ev.ts), s);
			if (s > 0) {
				gen_event(c, s - 1, dyn, &prev);
				CHECK_EQ_U64(store_seek(st, c, prev.ts + 1), s);
			}
			CHECK_EQ_U64(store_seek(st, c, ev.ts + 1), s + 1);
		}
	}
	store_free(st);
}

static int iter_check(struct store *st, unsigned int ncpus, uint64_t n, uint16_t dyn,
		      uint64_t t0, uint64_t t1, const uint64_t *cpus)
{
	struct store_iter *it = store_iter_new(st, t0, t1, cpus);
	uint64_t expect = 0, seen = 0, last = 0, seq;
	struct ktop_event ev, got;

	if (!it)
		return 0;
	for (unsigned int c = 0; c < ncpus; c++) {
		if (cpus && !(cpus[0] & (1ull << c)))
			continue;
		for (uint64_t s = 0; s < n; s++) {
			gen_event(c, s, dyn, &ev);
			expect += ev.ts >= t0 && ev.ts <= t1;
		}
	}
	while (store_iter_next(it, &got, &seq)) {
		if (got.ts < last || got.ts < t0 || got.ts > t1)
			break;
		if (cpus && !(cpus[0] & (1ull << got.cpu)))
			break;
		gen_event(got.cpu, seq, dyn, &ev);
		if (!ev_equal(&ev, &got))
			break;
		last = got.ts;
		seen++;
	}
	store_iter_free(it);
	return seen == expect;
}

TEST(store_iter_merge)
{
	const uint64_t n = SLOW ? 10000 : 40000;
	uint64_t mask = 0x5;	/* cpus 0 and 2 */
	uint16_t dyn;
	struct store *st = fill(0, 4, n, &dyn);
	struct ktop_event a, b;

	CHECK(st);
	CHECK(iter_check(st, 4, n, dyn, 0, UINT64_MAX, NULL));
	gen_event(1, n / 3, dyn, &a);
	gen_event(2, 2 * n / 3, dyn, &b);
	CHECK(iter_check(st, 4, n, dyn, a.ts, b.ts, NULL));
	CHECK(iter_check(st, 4, n, dyn, a.ts, b.ts, &mask));
	CHECK(iter_check(st, 4, n, dyn, b.ts, a.ts, NULL));
	store_free(st);
}

static int count_cmp(const void *x, const void *y)
{
	const struct store_count *a = x, *b = y;

	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	return a->key < b->key ? -1 : a->key > b->key;
}

static int key_cmp(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* Brute force over the generator. Return: distinct keys, sorted into @out. */
static size_t count_expect(unsigned int ncpus, uint64_t n, uint16_t dyn, enum store_key key,
			   const struct store_filter *f, struct store_count *out, size_t cap)
{
	uint64_t *keys = malloc(ncpus * n * sizeof(*keys));
	struct ktop_event ev;
	size_t nk = 0, m = 0;

	if (!keys)
		return SIZE_MAX;
	for (unsigned int c = 0; c < ncpus; c++) {
		for (uint64_t s = 0; s < n; s++) {
			gen_event(c, s, dyn, &ev);
			if (ev.ts < f->t0 || ev.ts > f->t1)
				continue;
			if ((f->pid >= 0 && ev.pid != f->pid) || (f->cpu >= 0 && ev.cpu != f->cpu))
				continue;
			if (key == STORE_KEY_TYPE)
				keys[m++] = ev.type;
			else if (key == STORE_KEY_CPU)
				keys[m++] = ev.cpu;
			else if (key == STORE_KEY_PID)
				keys[m++] = (uint64_t)(int64_t)ev.pid;
			else if (ev.type == KTOP_T_FUNCTION || ev.type == KTOP_T_FGRAPH_ENTRY)
				keys[m++] = ev.args[0];
		}
	}
	qsort(keys, m, sizeof(*keys), key_cmp);
	for (size_t i = 0; i < m; i++) {
		if (!nk || out[nk - 1].key != keys[i]) {
			if (nk == cap) {
				free(keys);
				return SIZE_MAX;
			}
			out[nk++] = (struct store_count){ .key = keys[i] };
		}
		out[nk - 1].count++;
	}
	free(keys);
	qsort(out, nk, sizeof(*out), count_cmp);
	return nk;
}

TEST(store_count_by)
{
	enum { CAP = 1 << 16 };
	const uint64_t n = SLOW ? 5000 : 20000;
	static struct store_count exp[CAP], got[CAP];
	struct ktop_event a, b;
	uint16_t dyn;
	struct store *st = fill(0, 3, n, &dyn);
	struct store_filter filters[4];

	CHECK(st);
	gen_event(0, n / 4, dyn, &a);
	gen_event(2, n / 2, dyn, &b);
	filters[0] = (struct store_filter){ 0, UINT64_MAX, -1, -1, 0 };
	filters[1] = (struct store_filter){ a.ts, b.ts, -1, -1, 0 };
	filters[2] = (struct store_filter){ 0, UINT64_MAX, 105, -1, 0 };
	filters[3] = (struct store_filter){ a.ts, UINT64_MAX, 110, 1, 0 };
	for (int fi = 0; fi < 4; fi++) {
		for (int key = STORE_KEY_TYPE; key <= STORE_KEY_PID; key++) {
			size_t ne, ng;

			ne = count_expect(3, n, dyn, key, &filters[fi], exp, CAP);
			CHECK(ne != SIZE_MAX && ne > 0);
			ng = store_count_by(st, key, &filters[fi], got, CAP);
			if (ne != ng)
				printf("filter %d key %d: %zu != %zu\n", fi, key, ne, ng);
			CHECK_EQ_U64(ng, ne);
			for (size_t i = 0; i < ne; i++) {
				CHECK_EQ_U64(got[i].count, exp[i].count);
				CHECK_EQ_U64(got[i].key, exp[i].key);
			}
			/* a short @out gets the top entries, the return counts all */
			CHECK_EQ_U64(store_count_by(st, key, &filters[fi], got, 2), ne);
			CHECK_EQ_U64(got[0].count, exp[0].count);
		}
	}
	store_free(st);
}

/*
 * Windows that cover whole sealed chunks are counted from the chunks' own
 * per-pid and per-type counts, not row by row: pids here come in runs longer
 * than a chunk, and event kinds in phases (some chunks hold no function event,
 * some only function_graph entries),
 * so that every case of that path is taken: a pid or comm filter that every
 * event of a chunk passes, that none passes, or some; function counts; and
 * windows ending inside chunks. Expected counts are from the events as
 * generated, counted here one by one.
 */
struct wc_ev {
	uint64_t	ts;
	int32_t		pid;
	uint16_t	type;
	uint64_t	func;
	unsigned int	cpu;
};

static uint64_t wc_key(const struct wc_ev *e, enum store_key key)
{
	switch (key) {
	case STORE_KEY_TYPE:
		return e->type;
	case STORE_KEY_FUNC:
		return e->func;
	case STORE_KEY_CPU:
		return e->cpu;
	default:
		return (uint64_t)(int64_t)e->pid;
	}
}

TEST(store_count_by_whole_chunks)
{
	enum { NCPU = 2, N = SLOW ? 20000 : 40000, CAP = 64 };
	static const int32_t run_pids[] = { 300, 301, 302, 303 };
	static struct wc_ev evs[NCPU * N];
	struct store_count exp[CAP], got[CAP];
	struct store *st = store_new(0, NCPU);
	struct ktop_event ev;
	uint32_t alpha;
	size_t ne = 0;
	uint64_t h = 1;

	CHECK(st);
	store_set_comm(st, 300, "alpha", 0);
	store_set_comm(st, 302, "alpha", 0);
	store_set_comm(st, 301, "beta", 0);
	for (unsigned int c = 0; c < NCPU; c++) {
		for (uint64_t s = 0; s < N; s++) {
			struct wc_ev *e = &evs[ne++];

			h = mix64(h);
			memset(&ev, 0, sizeof(ev));
			ev.cpu = c;
			ev.ts = 1000 + s * 100 + c;
			/* pid runs of 2500-5000 events; a stray pid now and then */
			ev.pid = run_pids[(s / (2500 + 2500 * c)) % 4];
			if (h % 97 == 0)
				ev.pid = 400 + (int32_t)(h >> 40) % 7;
			/* phases: sys only, function and sched, function_graph, mixed */
			switch ((s / 5000) % 4) {
			case 0:
				ev.type = h & 256 ? KTOP_T_SYS_ENTER : KTOP_T_SYS_EXIT;
				break;
			case 1:
				ev.type = h & 256 ? KTOP_T_FUNCTION : KTOP_T_SCHED_SWITCH;
				break;
			case 2:
				ev.type = h & 256 ? KTOP_T_FGRAPH_ENTRY : KTOP_T_FGRAPH_EXIT;
				break;
			default:
				ev.type = (uint16_t)(h >> 20) % KTOP_T_NR_FIXED;
				break;
			}
			ev.nargs = gen_nargs[ev.type];
			for (unsigned int i = 0; i < ev.nargs; i++)
				ev.args[i] = gen_arg(mix64(h + i));
			if (ev.type == KTOP_T_FUNCTION || ev.type == KTOP_T_FGRAPH_ENTRY)
				ev.args[0] = 1 + (h >> 50) % 20;
			CHECK(!store_append(st, &ev));
			if (s % 700 == 0)
				store_publish(st, c);
			*e = (struct wc_ev){ ev.ts, ev.pid, ev.type,
					     ev.type == KTOP_T_FUNCTION ||
					     ev.type == KTOP_T_FGRAPH_ENTRY ? ev.args[0] : 0, c };
		}
		store_publish(st, c);
	}
	alpha = intern_id(store_strings(st), "alpha", 5);
	for (int round = 0; round < (SLOW ? 40 : 150); round++) {
		struct store_filter f = { 0, UINT64_MAX, -1, -1, 0 };
		uint64_t a, b;

		h = mix64(h);
		a = 1000 + (h % (N * 100));
		b = 1000 + ((h >> 32) % (N * 100));
		if (round % 5)	/* and every fifth, everything */
			f.t0 = a < b ? a : b, f.t1 = a < b ? b : a;
		switch (round % 4) {
		case 1:
			f.pid = run_pids[(h >> 8) % 4];
			break;
		case 2:
			f.comm_id = alpha;
			break;
		case 3:
			f.cpu = (int32_t)((h >> 12) % NCPU);
			break;
		}
		for (int key = STORE_KEY_TYPE; key <= STORE_KEY_PID; key++) {
			size_t nk = 0, ng;

			for (size_t i = 0; i < ne; i++) {
				const struct wc_ev *e = &evs[i];
				uint64_t k;
				size_t j;

				if (e->ts < f.t0 || e->ts > f.t1 ||
				    (f.pid >= 0 && e->pid != f.pid) ||
				    (f.cpu >= 0 && e->cpu != (unsigned int)f.cpu) ||
				    (f.comm_id && e->pid != 300 && e->pid != 302))
					continue;
				if (key == STORE_KEY_FUNC && !e->func)
					continue;
				k = wc_key(e, (enum store_key)key);
				for (j = 0; j < nk && exp[j].key != k; j++)
					;
				if (j == nk) {
					CHECK(nk < CAP);
					exp[nk++] = (struct store_count){ .key = k };
				}
				exp[j].count++;
			}
			qsort(exp, nk, sizeof(*exp), count_cmp);
			ng = store_count_by(st, (enum store_key)key, &f, got, CAP);
			if (ng != nk)
				printf("round %d key %d: %zu keys, expected %zu\n", round, key, ng, nk);
			CHECK_EQ_U64(ng, nk);
			for (size_t i = 0; i < nk; i++) {
				if (got[i].key != exp[i].key || got[i].count != exp[i].count)
					printf("round %d key %d entry %zu: %llu x%llu, expected %llu x%llu\n",
					       round, key, i, (unsigned long long)got[i].key,
					       (unsigned long long)got[i].count,
					       (unsigned long long)exp[i].key,
					       (unsigned long long)exp[i].count);
				CHECK_EQ_U64(got[i].key, exp[i].key);
				CHECK_EQ_U64(got[i].count, exp[i].count);
			}
		}
	}
	store_free(st);
}

TEST(store_count_by_comm)
{
	struct store *st = store_new(0, 1);
	struct store_filter f = { 0, UINT64_MAX, -1, -1, 0 };
	struct store_count out[8];
	struct ktop_event ev;

	CHECK(st);
	store_set_comm(st, 10, "alpha", 0);
	store_set_comm(st, 11, "beta", 0);
	store_set_comm(st, 12, "alpha", 0);
	for (int i = 0; i < 30; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.ts = 100 + i;
		ev.type = KTOP_T_SYS_EXIT;
		ev.pid = 10 + i % 3;
		ev.nargs = 2;
		CHECK(!store_append(st, &ev));
	}
	store_publish(st, 0);
	f.comm_id = intern_id(store_strings(st), "alpha", 5);
	CHECK_EQ_U64(store_count_by(st, STORE_KEY_PID, &f, out, 8), 2);
	CHECK_EQ_U64(out[0].count, 10);
	CHECK(out[0].key == 10 && out[1].key == 12);
	store_free(st);
}

/* Two CPUs' counts made one list (--batch's and the PMDA's top keys). */
TEST(store_counts_merge)
{
	struct store_count v[] = {
		{ 7, 1 }, { 3, 5 }, { 9, 2 },		/* one CPU's */
		{ 9, 4 }, { 3, 1 }, { 5, 6 }, { 7, 5 },	/* another's */
	};

	CHECK_EQ_U64(store_counts_merge(v, 7), 4);
	/* by count descending, equal counts by key: 3 and 7 and 9 summed */
	CHECK(v[0].key == 3 && v[0].count == 6);
	CHECK(v[1].key == 5 && v[1].count == 6);
	CHECK(v[2].key == 7 && v[2].count == 6);
	CHECK(v[3].key == 9 && v[3].count == 6);
	CHECK_EQ_U64(store_counts_merge(v, 0), 0);
	v[0] = (struct store_count){ 1, 1 };
	v[1] = (struct store_count){ 2, 3 };
	CHECK_EQ_U64(store_counts_merge(v, 2), 2);
	CHECK(v[0].key == 2 && v[1].key == 1);
}

/* The name a task shows as, the kernel's way, whoever asks (panes, filters, batch). */
TEST(store_task_name_as_the_kernel_prints_it)
{
	struct store *st = store_new(0, 1);

	CHECK(st);
	store_set_comm(st, 0, "swapper/0", 0);
	store_set_comm(st, 10, "alpha", 0);
	store_set_comm(st, 11, "", 0);
	CHECK_STR(store_task_name(st, 0), "<idle>");
	CHECK_STR(store_task_name(st, 10), "alpha");
	CHECK_STR(store_task_name(st, 11), "<...>");
	CHECK_STR(store_task_name(st, 12), "<...>");
	CHECK_STR(store_task_name(NULL, 0), "<idle>");
	CHECK_STR(store_task_name(NULL, 10), "<...>");
	store_free(st);
}

TEST(store_lost_marks)
{
	struct store *st = store_new(0, 4);
	struct store_lost out[8];
	struct store_stats s;

	CHECK(st);
	store_add_lost(st, 0, 1000, 5, STORE_LOST_KERNEL);
	store_add_lost(st, 3, 2000, 0, STORE_LOST_STREAM);
	store_add_lost(st, 1, 3000, 7, STORE_LOST_KTOP);
	store_add_lost(st, 0, 4000, 1, STORE_LOST_UNSENT);
	store_get_stats(st, &s);
	CHECK_EQ_U64(s.lost, 13);
	CHECK_EQ_U64(s.lost_marks, 4);
	store_get_cpu_stats(st, 0, &s);
	CHECK_EQ_U64(s.lost, 6);
	CHECK_EQ_U64(s.lost_marks, 2);
	CHECK_EQ_U64(store_lost_marks(st, 0, UINT64_MAX, out, 8), 4);
	CHECK_EQ_U64(store_lost_marks(st, 1500, 3000, out, 8), 2);
	CHECK(out[0].ts == 2000 && out[0].cpu == 3 && out[0].count == 0);
	CHECK(out[1].ts == 3000 && out[1].cpu == 1 && out[1].count == 7);
	CHECK_EQ_U64(store_lost_marks(st, 0, UINT64_MAX, out, 1), 4);
	CHECK_EQ_U64(out[0].ts, 1000);
	CHECK_EQ_U64(store_lost_marks(st, 5000, 6000, out, 8), 0);
	/* each mark keeps its reason; per CPU, the counts by reason add up to lost */
	store_add_lost(st, 2, 5000, 9, (enum store_lost_why)200);	/* not a reason */
	CHECK_EQ_U64(store_lost_marks(st, 0, UINT64_MAX, out, 8), 5);
	CHECK(out[0].why == STORE_LOST_KERNEL && out[1].why == STORE_LOST_STREAM &&
	      out[2].why == STORE_LOST_KTOP && out[3].why == STORE_LOST_UNSENT &&
	      out[4].why == STORE_LOST_UNKNOWN);
	store_get_cpu_stats(st, 0, &s);
	CHECK(s.lost_why[STORE_LOST_KERNEL] == 5 && s.lost_why[STORE_LOST_UNSENT] == 1 &&
	      s.lost_why[STORE_LOST_KTOP] == 0);
	store_get_cpu_stats(st, 2, &s);
	CHECK(s.lost == 9 && s.lost_why[STORE_LOST_UNKNOWN] == 9);
	store_get_stats(st, &s);
	CHECK_EQ_U64(s.lost_why[STORE_LOST_KERNEL] + s.lost_why[STORE_LOST_KTOP] +
		     s.lost_why[STORE_LOST_STREAM] + s.lost_why[STORE_LOST_UNSENT] +
		     s.lost_why[STORE_LOST_UNKNOWN], s.lost);
	CHECK_STR(store_lost_why_name(STORE_LOST_STREAM), "stream");
	CHECK(!store_lost_why_name(STORE_LOST_NR));
	store_free(st);
}

/*
 * Lost marks count against the limit (issue 14: a file of nothing but marks
 * grew without bound): alone, the oldest go; among events, they go with the
 * oldest events. The totals still count every mark.
 */
TEST(store_lost_marks_bounded)
{
	const size_t limit = 1u << 20;
	const uint64_t n = 200000;
	struct store_lost first, *all;
	struct store_stats s;
	uint64_t seq = 0, sum = 0, held;
	struct store *st = store_new(limit, 2);

	CHECK(st);
	for (uint64_t i = 0; i < n; i++) {
		store_add_lost(st, i & 1, 1000 + i * 10, i % 7, STORE_LOST_KERNEL);
		sum += i % 7;
	}
	store_get_stats(st, &s);
	CHECK_EQ_U64(s.lost_marks, n);
	CHECK_EQ_U64(s.lost, sum);
	CHECK(s.marks_evicted > 0);
	CHECK(s.bytes + s.lost_bytes + s.tables <= limit);
	held = store_lost_marks(st, 0, UINT64_MAX, NULL, 0);
	CHECK_EQ_U64(held + s.marks_evicted, n);
	/* the newest are held, in order, and numbered past the evicted ones */
	all = calloc(held, sizeof(*all));
	CHECK(all);
	CHECK_EQ_U64(store_lost_marks(st, 0, UINT64_MAX, all, held), held);
	CHECK_EQ_U64(all[held - 1].ts, 1000 + (n - 1) * 10);
	CHECK_EQ_U64(all[0].ts, 1000 + s.marks_evicted * 10);
	free(all);
	CHECK_EQ_U64(store_lost_marks_from(st, &seq, &first, 1), 1);
	CHECK_EQ_U64(seq, s.marks_evicted + 1);
	CHECK_EQ_U64(first.ts, 1000 + s.marks_evicted * 10);
	seq = n;
	CHECK_EQ_U64(store_lost_marks_from(st, &seq, &first, 1), 0);
	store_free(st);
}

TEST(store_lost_marks_go_with_events)
{
	const size_t limit = 2u << 20;
	const uint64_t n = SLOW ? 100000 : 400000;
	struct store *st = store_new(limit, 2);
	struct store_lost *m;
	struct store_stats s;
	struct ktop_event ev;
	uint16_t dyn;
	size_t held;

	CHECK(st);
	dyn = add_dyn_type(st);
	for (uint64_t i = 0; i < n; i++) {
		for (unsigned int c = 0; c < 2; c++) {
			gen_event(c, i, dyn, &ev);
			if (i % 100 == 50)	/* a mark just before this event */
				store_add_lost(st, c, ev.ts, 3, STORE_LOST_KERNEL);
			CHECK(!store_append(st, &ev));
		}
		if (i % 100 == 99)
			for (unsigned int c = 0; c < 2; c++)
				store_publish(st, c);
	}
	store_get_stats(st, &s);
	CHECK(s.evicted > 0 && s.marks_evicted > 0);
	CHECK_EQ_U64(s.lost_marks, 2 * (n / 100));
	CHECK(s.bytes + s.lost_bytes + s.tables <= limit);
	held = store_lost_marks(st, 0, UINT64_MAX, NULL, 0);
	m = calloc(held + 1, sizeof(*m));
	CHECK(m);
	store_lost_marks(st, 0, UINT64_MAX, m, held);
	/* kept with their events: none older than the oldest held chunk's span */
	for (size_t i = 0; i < held; i++)
		CHECK(m[i].ts + 2 * 2048 * 1000 >= s.first_ts);
	/* and about as many as the held events had */
	CHECK(held + 2 * 2048 / 100 * 2 >= s.events / 100);
	free(m);
	store_free(st);
}

TEST(store_comm)
{
	struct store *st = store_new(0, 1);

	CHECK(st);
	CHECK(store_comm(st, 42) == NULL);
	CHECK(store_comm(st, -1) == NULL);
	store_set_comm(st, 42, "bash", 0);
	store_set_comm(st, 0, "swapper/0", 0);
	store_set_comm(st, 4194304, "maxpid", 0);
	CHECK_STR(store_comm(st, 42), "bash");
	CHECK_STR(store_comm(st, 0), "swapper/0");
	CHECK_STR(store_comm(st, 4194304), "maxpid");
	store_set_comm(st, 42, "ls", 0);
	CHECK_STR(store_comm(st, 42), "ls");
	CHECK(store_comm(st, 43) == NULL);
	store_free(st);
}

/* The newest name by trace time wins, not the one set last (readers decode at their own pace). */
TEST(store_comm_newest_by_time)
{
	struct store *st = store_new(0, 2);

	CHECK(st);
	/* an exec on one CPU, then a lagging CPU's event from before it */
	store_set_comm(st, 7, "bash", 100);
	store_set_comm(st, 7, "nwrite", 300);
	store_set_comm(st, 7, "bash", 200);
	CHECK_STR(store_comm(st, 7), "nwrite");
	/* the same time: the one set last */
	store_set_comm(st, 7, "other", 300);
	CHECK_STR(store_comm(st, 7), "other");
	/* a later sighting of the same name moves its time: an older rename loses */
	store_set_comm(st, 8, "a", 10);
	store_set_comm(st, 8, "a", 50);
	store_set_comm(st, 8, "b", 30);
	CHECK_STR(store_comm(st, 8), "a");
	/* untimed names (saved_cmdlines, /proc) replace untimed ones only */
	store_set_comm(st, 9, "cmdline", 0);
	store_set_comm(st, 9, "cmdline2", 0);
	CHECK_STR(store_comm(st, 9), "cmdline2");
	store_set_comm(st, 9, "event", 5);
	store_set_comm(st, 9, "cmdline3", 0);
	CHECK_STR(store_comm(st, 9), "event");
	/* the end of the recording replaces any, and stays */
	store_set_comm(st, 9, "atend", STORE_COMM_LAST);
	store_set_comm(st, 9, "late", UINT64_MAX - 1);
	CHECK_STR(store_comm(st, 9), "atend");
	CHECK(store_comm(st, 10) == NULL);
	store_free(st);
}

/* Threads naming the same pids at interleaved times: each pid ends with its newest name. */
#define CT_THREADS	4
#define CT_PIDS		64
#define CT_ROUNDS	4000

struct ct {
	struct store	*st;
	unsigned int	k;
	atomic_int	*done;
};

static void *ct_name(void *p)
{
	struct ct *c = p;
	char comm[16];

	for (unsigned int r = 0; r < CT_ROUNDS; r++) {
		/* thread k's round r is time r * CT_THREADS + k; odd threads go backwards */
		unsigned int rr = c->k & 1 ? CT_ROUNDS - 1 - r : r;

		snprintf(comm, sizeof(comm), "t%u-%u", c->k, rr % 5);
		store_set_comm(c->st, 1000 + (int32_t)(r % CT_PIDS), comm,
			       1 + (uint64_t)rr * CT_THREADS + c->k);
	}
	atomic_fetch_add(c->done, 1);
	return NULL;
}

static void *ct_read(void *p)
{
	struct ct *c = p;
	uint64_t reads = 0;

	while (atomic_load(c->done) < CT_THREADS || !reads)
		for (int32_t pid = 1000; pid < 1000 + CT_PIDS; pid++, reads++) {
			const char *s = store_comm(c->st, pid);

			if (s && s[0] != 't')
				abort();
		}
	return NULL;
}

TEST(store_comm_threads_keep_newest)
{
	struct ct c[CT_THREADS + 1];
	pthread_t th[CT_THREADS + 1];
	atomic_int done = 0;
	struct store *st = store_new(0, 2);

	CHECK(st);
	for (unsigned int k = 0; k <= CT_THREADS; k++) {
		c[k] = (struct ct){ .st = st, .k = k, .done = &done };
		CHECK(!pthread_create(&th[k], NULL, k < CT_THREADS ? ct_name : ct_read, &c[k]));
	}
	for (unsigned int k = 0; k <= CT_THREADS; k++)
		pthread_join(th[k], NULL);
	/* what each pid must end with: the name its newest time came with */
	for (unsigned int j = 0; j < CT_PIDS; j++) {
		uint64_t best = 0;
		char want[16] = "";

		for (unsigned int k = 0; k < CT_THREADS; k++)
			for (unsigned int r = j; r < CT_ROUNDS; r += CT_PIDS) {
				unsigned int rr = k & 1 ? CT_ROUNDS - 1 - r : r;

				if (1 + (uint64_t)rr * CT_THREADS + k > best) {
					best = 1 + (uint64_t)rr * CT_THREADS + k;
					snprintf(want, sizeof(want), "t%u-%u", k, rr % 5);
				}
			}
		CHECK_STR(store_comm(st, 1000 + (int32_t)j), want);
	}
	store_free(st);
}

/* store_comm_next walks the pids with a comm, in order, across and within the table's pages */
TEST(store_comm_next)
{
	static const int32_t pids[] = { 0, 1, 4095, 4096, 4097, 100000, 8388607, 8388608 };
	struct store *st = store_new(0, 1);
	int32_t pid = 0;
	size_t n = 0;
	const char *c;

	CHECK(st);
	CHECK(store_comm_next(st, &pid) == NULL);
	for (size_t i = 0; i < sizeof(pids) / sizeof(pids[0]); i++) {
		char name[16];

		snprintf(name, sizeof(name), "t%d", pids[i]);
		store_set_comm(st, pids[i], name, 0);
	}
	for (pid = 0; (c = store_comm_next(st, &pid)); pid++, n++) {
		char name[16];

		CHECK(n < sizeof(pids) / sizeof(pids[0]));
		CHECK_EQ_U64(pid, pids[n]);
		snprintf(name, sizeof(name), "t%d", pids[n]);
		CHECK_STR(c, name);
	}
	CHECK_EQ_U64(n, sizeof(pids) / sizeof(pids[0]));
	pid = 4098;
	CHECK_STR(store_comm_next(st, &pid), "t100000");
	CHECK_EQ_U64(pid, 100000);
	store_free(st);
}

/* ---- a concurrent writer per CPU and readers ---------------------------- */

#define CW_CPUS		2
#define CW_READERS	2

struct cw {
	struct store	*st;
	uint64_t	n;
	uint16_t	dyn;
	atomic_int	done;
	atomic_int	bad;
	atomic_ullong	reads;
};

struct cw_writer {
	struct cw	*cw;
	unsigned int	cpu;
};

static void *cw_write(void *p)
{
	struct cw_writer *w = p;
	struct ktop_event ev;
	char comm[16];

	for (uint64_t s = 0; s < w->cw->n; s++) {
		gen_event(w->cpu, s, w->cw->dyn, &ev);
		if (store_append(w->cw->st, &ev))
			atomic_fetch_add(&w->cw->bad, 1);
		if (s % 64 == 63 || (s & 0x1ff) == 0x11)
			store_publish(w->cw->st, w->cpu);
		if (s % 1000 == 0) {
			snprintf(comm, sizeof(comm), "c%u-%" PRIu64, w->cpu, s % 7);
			store_set_comm(w->cw->st, 100 + s % 40, comm, 0);
		}
		if (s % 50 == 0)	/* marks evicted as the writers evict chunks */
			store_add_lost(w->cw->st, w->cpu, ev.ts, 1, STORE_LOST_KERNEL);
	}
	store_publish(w->cw->st, w->cpu);
	return NULL;
}

static void *cw_read(void *p)
{
	struct cw *cw = p;
	struct ktop_event ev, got;
	struct store_stats stats;
	struct store_count cnt[4];
	struct store_filter f = { 0, UINT64_MAX, -1, -1, 0 };
	uint64_t k = 0, reads = 0;
	uint64_t lastc[CW_CPUS];

	while (!atomic_load(&cw->done)) {
		unsigned int cpu = k % CW_CPUS;
		uint64_t first, end, seq;
		struct store_iter *it;
		int n = 0;

		k++;
		store_cpu_range(cw->st, cpu, &first, &end);
		if (end > first) {
			/* the newest, the oldest (may be evicted meanwhile), random */
			uint64_t pick[3] = { end - 1, first, first + mix64(k) % (end - first) };

			for (int i = 0; i < 3; i++) {
				int r = store_get(cw->st, cpu, pick[i], &got);

				if (r == -ENOENT && i > 0)
					continue;
				gen_event(cpu, pick[i], cw->dyn, &ev);
				if (r || !ev_equal(&ev, &got))
					atomic_fetch_add(&cw->bad, 1);
				reads++;
			}
		}
		/*
		 * A short merged walk from the oldest held events. While writers
		 * run, time order holds per CPU only: a CPU may publish events
		 * older than ones another CPU already gave.
		 */
		memset(lastc, 0, sizeof(lastc));
		it = store_iter_new(cw->st, 0, UINT64_MAX, NULL);
		while (it && n++ < 3000 && store_iter_next(it, &got, &seq)) {
			gen_event(got.cpu, seq, cw->dyn, &ev);
			if (!ev_equal(&ev, &got) || got.ts < lastc[got.cpu])
				atomic_fetch_add(&cw->bad, 1);
			lastc[got.cpu] = got.ts;
			reads++;
		}
		store_iter_free(it);
		if (k % 16 == 0) {
			uint64_t t;

			store_get_stats(cw->st, &stats);
			store_count_by(cw->st, STORE_KEY_TYPE, &f, cnt, 4);
			t = store_seek(cw->st, cpu, stats.last_ts);
			store_cpu_range(cw->st, cpu, &first, &end);
			if (t > end)
				atomic_fetch_add(&cw->bad, 1);
			store_comm(cw->st, 100 + k % 40);
			/* the held marks: each CPU's in time order, while they are evicted */
			{
				struct store_lost m[64];
				uint64_t mseq = k * 7, lastm[CW_CPUS] = { 0 };
				size_t nm = store_lost_marks_from(cw->st, &mseq, m, 64);

				for (size_t i = 0; i < nm; i++) {
					if (m[i].cpu >= CW_CPUS || m[i].ts < lastm[m[i].cpu])
						atomic_fetch_add(&cw->bad, 1);
					else
						lastm[m[i].cpu] = m[i].ts;
				}
				store_lost_marks(cw->st, stats.first_ts, UINT64_MAX, m, 64);
			}
		}
	}
	atomic_fetch_add(&cw->reads, reads);
	return NULL;
}

TEST(store_concurrent)
{
	struct cw cw = { .n = SLOW ? 60000 : 400000 };
	struct cw_writer wr[CW_CPUS];
	pthread_t tw[CW_CPUS], tr[CW_READERS];
	struct ktop_event ev, got;
	struct store_stats s;
	uint64_t first, end;

	cw.st = store_new(2u << 20, CW_CPUS);
	CHECK(cw.st);
	cw.dyn = add_dyn_type(cw.st);
	for (int i = 0; i < CW_READERS; i++)
		CHECK(!pthread_create(&tr[i], NULL, cw_read, &cw));
	for (unsigned int c = 0; c < CW_CPUS; c++) {
		wr[c] = (struct cw_writer){ &cw, c };
		CHECK(!pthread_create(&tw[c], NULL, cw_write, &wr[c]));
	}
	for (unsigned int c = 0; c < CW_CPUS; c++)
		pthread_join(tw[c], NULL);
	atomic_store(&cw.done, 1);
	for (int i = 0; i < CW_READERS; i++)
		pthread_join(tr[i], NULL);
	CHECK_EQ_U64(atomic_load(&cw.bad), 0);
	CHECK(atomic_load(&cw.reads) > 0);
	store_get_stats(cw.st, &s);
	CHECK_EQ_U64(s.appended, CW_CPUS * cw.n);
	CHECK(s.evicted > 0);
	CHECK(s.marks_evicted > 0);
	CHECK_EQ_U64(s.lost_marks, CW_CPUS * ((cw.n + 49) / 50));
	CHECK_EQ_U64(s.events + s.evicted, s.appended);
	for (unsigned int c = 0; c < CW_CPUS; c++) {
		store_cpu_range(cw.st, c, &first, &end);
		CHECK_EQ_U64(end, cw.n);
		for (uint64_t q = first; q < end; q++) {
			gen_event(c, q, cw.dyn, &ev);
			CHECK(!store_get(cw.st, c, q, &got));
			CHECK(ev_equal(&ev, &got));
		}
	}
	store_free(cw.st);
}

TEST_MAIN()
