// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Store benchmark: append rate (with sealing), bytes per event for event
 * mixes shaped like real ones, and merged iteration rate.
 *
 * The streams are synthetic but shaped like a busy machine: gaps between
 * events log-uniform in 100 ns..10 us (100 ns..2 us for function events),
 * 40 pids, 3000 symbols picked with a Zipf-like skew and a few callers each,
 * sys_enter arguments as registers really look (small fds, per-process
 * buffer pointers, sizes, leftovers), sched_switch/wakeup between the pids.
 *
 * Real events too: each recorded fixture (tests/fixtures, raw pages from this
 * host's kernel) is decoded, then replayed shifted in time until the store
 * holds enough chunks for the size to be the sealed size.
 *
 * Anchors: the naive store (an array of struct ktop_event) for size and
 * append rate, measured in the same run.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ingest/decode.h"
#include "ingest/fixture.h"
#include "lib/intern.h"
#include "store/schema.h"
#include "store/store.h"

#define NPIDS	40
#define NSYMS	3000

static uint64_t rng_state = 0x1234567;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rng_state = x;
	return x;
}

static double rndf(void)
{
	return (rnd() >> 11) * (1.0 / 9007199254740992.0);
}

static uint64_t gap(double lo, double hi)
{
	return (uint64_t)exp(log(lo) + rndf() * (log(hi) - log(lo)));
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);	/* the machine is shared */
	return t.tv_sec + t.tv_nsec * 1e-9;
}

struct gen {
	uint64_t	ts;
	int		cur;		/* index of the running pid */
	int32_t		pids[NPIDS];
	uint32_t	comms[NPIDS];
	uint64_t	bufs[NPIDS];
	uint32_t	syms[NSYMS];
	uint32_t	parents[NSYMS][3];
	int		in_sys;		/* sys_enter pending */
	int		sysno;
	uint64_t	run_left;	/* function events until the next switch */
};

static void gen_init(struct gen *g, struct store *st, unsigned int cpu)
{
	struct intern *in = store_strings(st);
	char name[64];

	memset(g, 0, sizeof(*g));
	g->ts = 1000000000ull + cpu * 13;
	for (int i = 0; i < NPIDS; i++) {
		int len;

		g->pids[i] = 1000 + (int32_t)(rnd() % 30000);
		len = snprintf(name, sizeof(name), "proc-%d", i % 25);
		g->comms[i] = intern_id(in, name, len);
		g->bufs[i] = 0x7ffc00000000ull + (rnd() & 0xffffff000ull);
	}
	for (int i = 0; i < NSYMS; i++) {
		int len = snprintf(name, sizeof(name), "kernel_function_%d", i);

		g->syms[i] = intern_id(in, name, len);
	}
	for (int i = 0; i < NSYMS; i++)
		for (int k = 0; k < 3; k++)
			g->parents[i][k] = g->syms[rnd() % NSYMS];
	g->run_left = 1000;
}

/* Zipf-like: small indices much more likely. */
static int zipf(int n)
{
	double u = rndf();

	return (int)(pow(u, 3.0) * n);
}

static void gen_base(struct gen *g, struct ktop_event *ev, unsigned int cpu, double lo, double hi)
{
	memset(ev, 0, sizeof(*ev));
	g->ts += gap(lo, hi);
	ev->ts = g->ts;
	ev->cpu = cpu;
	ev->pid = g->pids[g->cur];
}

static void gen_sched(struct gen *g, struct ktop_event *ev, unsigned int cpu)
{
	gen_base(g, ev, cpu, 100, 10000);
	if (rnd() % 2) {
		int next = rnd() % NPIDS;

		ev->type = KTOP_T_SCHED_SWITCH;
		ev->nargs = 7;
		ev->flags = 0x01;			/* irqs off in __schedule */
		ev->pc = rnd() % 4 ? 0x02 : 0x12;
		ev->args[0] = g->comms[g->cur];
		ev->args[1] = (uint64_t)(int64_t)g->pids[g->cur];
		ev->args[2] = g->cur < 3 ? 49 : 120;
		ev->args[3] = rnd() % 3 ? 1 : 0;	/* S or R */
		ev->args[4] = g->comms[next];
		ev->args[5] = (uint64_t)(int64_t)g->pids[next];
		ev->args[6] = next < 3 ? 49 : 120;
		g->cur = next;
	} else {
		int w = rnd() % NPIDS;

		ev->type = KTOP_T_SCHED_WAKEUP;
		ev->nargs = 4;
		ev->flags = rnd() % 3 ? 0x00 : 0x09;	/* sometimes from hardirq */
		ev->pc = rnd() % 2 ? 0x01 : 0x02;
		ev->args[0] = g->comms[w];
		ev->args[1] = (uint64_t)(int64_t)g->pids[w];
		ev->args[2] = w < 3 ? 49 : 120;
		ev->args[3] = cpu ^ (rnd() % 4 == 0);
	}
}

static void gen_syscall(struct gen *g, struct ktop_event *ev, unsigned int cpu)
{
	static const int calls[] = { 0, 1, 202, 232, 7, 3, 257, 228, 17, 44, 45 };

	gen_base(g, ev, cpu, 100, 10000);
	if (!g->in_sys) {
		uint64_t buf = g->bufs[g->cur];

		if (rnd() % 200 == 0)
			g->cur = rnd() % NPIDS;	/* a context switch now and then */
		ev->pid = g->pids[g->cur];
		g->sysno = calls[zipf(sizeof(calls) / sizeof(calls[0]))];
		ev->type = KTOP_T_SYS_ENTER;
		ev->nargs = 7;
		ev->args[0] = g->sysno;
		ev->args[1] = rnd() % 16;				/* fd */
		ev->args[2] = buf + (rnd() % 8) * 4096;			/* buffer */
		ev->args[3] = rnd() % 4 ? 4096 : rnd() % 65536;		/* count */
		ev->args[4] = rnd() % 2 ? 0 : buf + 0x1000;		/* leftovers */
		ev->args[5] = rnd() % 2 ? 8 : 0;
		ev->args[6] = rnd() % 3 ? 0 : 0x55550000a000ull + (rnd() % 64) * 16;
		g->in_sys = 1;
	} else {
		ev->type = KTOP_T_SYS_EXIT;
		ev->nargs = 2;
		ev->args[0] = g->sysno;
		ev->args[1] = rnd() % 8 ? rnd() % 4097 : (uint64_t)-(int64_t)(rnd() % 20 + 1);
		g->in_sys = 0;
	}
}

static void gen_function(struct gen *g, struct ktop_event *ev, unsigned int cpu)
{
	int s = zipf(NSYMS);

	if (!g->run_left--) {
		g->cur = rnd() % NPIDS;
		g->run_left = 200 + rnd() % 5000;
	}
	gen_base(g, ev, cpu, 100, 2000);
	ev->type = KTOP_T_FUNCTION;
	ev->nargs = 2;
	ev->args[0] = g->syms[s];
	ev->args[1] = g->parents[s][rnd() % 3];
	if (rnd() % 10 == 0) {
		ev->flags = 0x09;	/* in an irq handler */
		ev->pc = 0x01;
	} else if (rnd() % 10 == 0) {
		ev->flags = 0x01;
	}
}

enum mix { MIX_SCHED, MIX_SYSCALL, MIX_FUNCTION, MIX_MIXED, MIX_NR };
static const char *const mix_names[MIX_NR] = { "sched", "syscall", "function", "mixed" };

static void gen_event(struct gen *g, enum mix m, struct ktop_event *ev, unsigned int cpu)
{
	if (m == MIX_MIXED) {
		unsigned int r = rnd() % 10;

		/* keep enter/exit paired */
		if (g->in_sys || r < 3)
			gen_syscall(g, ev, cpu);
		else if (r < 5)
			gen_sched(g, ev, cpu);
		else
			gen_function(g, ev, cpu);
		return;
	}
	if (m == MIX_SCHED)
		gen_sched(g, ev, cpu);
	else if (m == MIX_SYSCALL)
		gen_syscall(g, ev, cpu);
	else
		gen_function(g, ev, cpu);
}

/* Decode fixture @name and replay it into a fresh store. */
static void bench_real(const char *name)
{
	struct store *src = NULL, *dst = NULL;
	struct decode_ctx *dc = NULL;
	struct fixture *fx;
	struct store_stats s;
	uint64_t total = 0, span, held;
	unsigned int ncpus;
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/%s", fixture_root(), name);
	fx = fixture_open(dir);
	if (!fx) {
		printf("# bench store.bytes_per_event.real_%s: no fixture %s\n", name, dir);
		return;
	}
	ncpus = fixture_ncpus(fx);
	src = store_new(0, ncpus);
	dst = store_new(4ull << 30, ncpus);
	dc = src && dst ? decode_ctx_new(fixture_tep(fx), src, NULL) : NULL;
	if (!dc)
		goto out;
	for (unsigned int cpu = 0; cpu < ncpus; cpu++) {
		struct decoder *d = decoder_new(dc, cpu);
		struct decode_stats ds = { 0 };

		for (size_t i = 0; d && i < fixture_npages(fx, cpu); i++)
			decoder_page(d, fixture_page(fx, cpu, i), fixture_page_size(fx), &ds);
		decoder_free(d);
		store_publish(src, cpu);
	}
	/* same dynamic type ids in the copy, so the same codecs */
	for (unsigned int id = KTOP_T_DYNAMIC; id < schema_max_id(store_schema(src)); id++) {
		const struct ktop_schema_type *t = schema_get(store_schema(src), id);

		if (t)
			schema_add(store_schema(dst), t->system, t->name, t->nfields, t->fields);
	}
	store_get_stats(src, &s);
	held = s.events;
	span = s.last_ts - s.first_ts + 1000000;
	for (uint64_t rep = 0; held && total < 1000000; rep++) {
		for (unsigned int cpu = 0; cpu < ncpus; cpu++) {
			uint64_t first, end;
			struct ktop_event ev;

			store_cpu_range(src, cpu, &first, &end);
			for (uint64_t q = first; q < end; q++) {
				if (store_get(src, cpu, q, &ev))
					continue;
				ev.ts += rep * span;
				store_append(dst, &ev);
				total++;
			}
			store_publish(dst, cpu);
		}
	}
	store_get_stats(dst, &s);
	if (s.events)
		printf("bench store.bytes_per_event.real_%s %.2f B (%" PRIu64 " recorded events, "
		       "replayed)\n", name, (double)s.bytes / s.events, held);
out:
	decode_ctx_free(dc);
	store_free(src);
	store_free(dst);
	fixture_close(fx);
}

#define NCPU	4
#define WIN	16384

/*
 * Counting by type over a window of 90% of the events, as a --batch summary
 * or a pane asks: events in the window per second of counting. Anchor: the
 * same count through store_iter, event by event.
 */
static void bench_count(struct store *st, uint64_t n)
{
	struct store_iter *it = store_iter_new(st, 0, UINT64_MAX, NULL);
	struct store_count out[64];
	struct store_filter f = { 0, UINT64_MAX, -1, -1, 0 };
	uint64_t t0 = UINT64_MAX, t1 = 0, seq, k = 0, per_type[65536] = { 0 }, total = 0;
	struct ktop_event ev;
	size_t nk;
	double t;
	int reps = 20;

	while (store_iter_next(it, &ev, &seq)) {
		t0 = ev.ts < t0 ? ev.ts : t0;
		t1 = ev.ts > t1 ? ev.ts : t1;
	}
	store_iter_free(it);
	f.t0 = t0 + (t1 - t0) / 20;
	f.t1 = t1 - (t1 - t0) / 20;
	t = now();
	for (int r = 0; r < reps; r++) {
		nk = store_count_by(st, STORE_KEY_TYPE, &f, out, 64);
		for (size_t i = 0; i < nk && i < 64; i++)
			k += out[i].count;
	}
	t = now() - t;
	k /= reps;
	printf("bench store.count_by_type %.1f Mevents/s (%" PRIu64 " of %" PRIu64
	       " events in the window)\n", k / (t / reps) / 1e6, k, n);
	it = store_iter_new(st, f.t0, f.t1, NULL);
	t = now();
	while (store_iter_next(it, &ev, &seq)) {
		per_type[ev.type]++;
		total++;
	}
	t = now() - t;
	store_iter_free(it);
	if (total != k)
		fprintf(stderr, "count_by: %" PRIu64 " != %" PRIu64 " by store_iter\n", k, total);
	printf("bench store.count_by_type.anchor %.1f Mevents/s (the same window counted "
	       "through store_iter, event by event)\n", total / t / 1e6);
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 2000000;
	struct ktop_event *evs, *naive;
	double t, dt_store = 0, dt_naive;
	uint64_t total = 0, span;
	struct store *st;
	struct gen *g;

	evs = malloc(WIN * sizeof(*evs));
	g = malloc(NCPU * sizeof(*g));
	if (!evs || !g)
		return 1;
	for (int m = 0; m < MIX_NR; m++) {
		struct store_stats s;

		st = store_new(4ull << 30, NCPU);
		if (!st)
			return 1;
		/*
		 * Pre-generate a window of events, hot in cache as a decoder's
		 * output would be, so only the store is timed; replay it shifted
		 * in time to make @n events.
		 */
		for (unsigned int c = 0; c < NCPU; c++)
			gen_init(&g[c], st, c);
		for (uint64_t i = 0; i < WIN; i++)
			gen_event(&g[i % NCPU], m, &evs[i], i % NCPU);
		span = evs[WIN - 1].ts + 1000000;
		t = now();
		for (uint64_t i = 0, w = 0, off = 0; i < n; i++) {
			struct ktop_event ev = evs[w];

			ev.ts += off;
			if (store_append(st, &ev))
				return 1;
			if (i % 256 == 255)
				store_publish(st, i % NCPU);
			if (++w == WIN) {
				w = 0;
				off += span;
			}
		}
		for (unsigned int c = 0; c < NCPU; c++)
			store_publish(st, c);
		dt_store += now() - t;
		total += n;
		store_get_stats(st, &s);
		printf("bench store.bytes_per_event.%s %.2f B\n", mix_names[m],
		       (double)s.bytes / s.events);
		if (m == MIX_MIXED) {
			struct store_iter *it = store_iter_new(st, 0, UINT64_MAX, NULL);
			struct ktop_event ev;
			uint64_t k = 0, seq, sum = 0;

			t = now();
			while (store_iter_next(it, &ev, &seq)) {
				sum += ev.ts + ev.args[0];
				k++;
			}
			t = now() - t;
			store_iter_free(it);
			if (k != n)
				fprintf(stderr, "iter: %" PRIu64 " != %" PRIu64 " (%" PRIu64 ")\n",
					k, n, sum);
			printf("bench store.iter %.2f Mevents/s\n", k / t / 1e6);
			/* per-CPU reads by seq, as a pane scrolls */
			t = now();
			for (unsigned int c = 0; c < NCPU; c++) {
				uint64_t first, end;

				store_cpu_range(st, c, &first, &end);
				for (uint64_t q = first; q < end; q++)
					if (!store_get(st, c, q, &ev))
						sum += ev.ts;
			}
			t = now() - t;
			printf("bench store.get_seq %.2f Mevents/s\n", n / t / 1e6);
			/* the same, 2048 at a time, as the UI's stats helper reads */
			t = now();
			for (unsigned int c = 0; c < NCPU; c++) {
				uint64_t first, end;

				store_cpu_range(st, c, &first, &end);
				for (uint64_t q = first; q < end; q += WIN / 8) {
					size_t got = store_get_range(st, c, q, q + WIN / 8, evs);

					for (size_t i = 0; i < got; i++)
						sum += evs[i].ts;
				}
			}
			t = now() - t;
			printf("bench store.get_range %.2f Mevents/s (anchor: store.get_seq, one event "
			       "per call)\n", n / t / 1e6);
			bench_count(st, n);
		}
		store_free(st);
	}
	bench_real("host-sched");
	bench_real("host-overrun");
	bench_real("host-irq");
	printf("bench store.bytes_per_event.anchor %zu B (naive array of struct ktop_event)\n",
	       sizeof(struct ktop_event));
	printf("bench store.append %.2f Mevents/s\n", total / dt_store / 1e6);
	printf("bench store.append_ns %.1f ns/event\n", dt_store * 1e9 / total);

	/* anchor: appending to a naive array (no encoding, no bound) */
	naive = malloc(n * sizeof(*naive));
	if (!naive)
		return 1;
	memset(naive, 0, n * sizeof(*naive));	/* fault it in first: time the copy only */
	t = now();
	for (uint64_t i = 0; i < n; i++)
		naive[i] = evs[i % WIN];
	dt_naive = now() - t;
	/* keep the copy alive */
	if (naive[n / 2].ts != evs[(n / 2) % WIN].ts)
		return 1;
	printf("bench store.append.anchor %.2f Mevents/s (copy into a naive array of "
	       "struct ktop_event)\n", n / dt_naive / 1e6);
	{
		uint64_t sum = 0;

		t = now();
		for (uint64_t i = 0; i < n; i++)
			sum += naive[i].ts + naive[i].args[0];
		t = now() - t;
		printf("bench store.iter.anchor %.2f Mevents/s (reading the naive array in order, "
		       "one CPU, %" PRIu64 ")\n", n / t / 1e6, sum & 1);
	}
	free(naive);
	free(evs);
	free(g);
	return 0;
}
