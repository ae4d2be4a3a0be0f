// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Decode + store rate on one core, from raw pages recorded on a real kernel
 * (tests/fixtures/host-sched by default; KTOP_BENCH_FIXTURE=DIR overrides),
 * replayed until at least KTOP_BENCH_SECONDS (default 1) of work is done.
 * Each replay moves the page timestamps forward, so the store sees time go
 * on as it would live.
 *
 * Prints:
 *   bench decode.store_rate          M events/s, decoder_page() into the store
 *   bench decode.ns_per_event        the same, per event
 *   bench decode.store_append_ns_per_event   store_append() alone on the same
 *                                    events already decoded (the store's share)
 *   bench decode.decode_share_ns_per_event   the difference: the decoder's share
 *   bench decode.record_ns_per_event decoder_record() alone (no store), fed by
 *                                    kbuffer's walk
 *   bench decode.ns_per_event.anchor libtraceevent's generic path on the same
 *                                    records: kbuffer walk, tep_data_type, and
 *                                    tep_get_field_val/_raw for every field
 *   bench decode.anchor.libtraceevent_generic  the same figure, ns/event
 * The trace-cmd report anchor is tests/bench/decode_anchor.sh (needs root).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

#include "ingest/decode.h"
#include "ingest/fixture.h"
#include "store/store.h"
#include "kernel/symbols.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct pages {
	unsigned int	ncpus;
	size_t		page_size;
	size_t		*n;
	uint8_t		**buf;	/* per CPU: n pages, writable copies */
	uint64_t	span;	/* last ts - first ts over all pages, + 1 ms */
};

static int pages_load(struct fixture *fx, struct pages *p)
{
	uint64_t first = UINT64_MAX, last = 0;

	p->ncpus = fixture_ncpus(fx);
	p->page_size = fixture_page_size(fx);
	p->n = calloc(p->ncpus, sizeof(*p->n));
	p->buf = calloc(p->ncpus, sizeof(*p->buf));
	if (!p->n || !p->buf)
		return -ENOMEM;
	for (unsigned int c = 0; c < p->ncpus; c++) {
		p->n[c] = fixture_npages(fx, c);
		p->buf[c] = malloc(p->n[c] * p->page_size + 1);
		if (!p->buf[c])
			return -ENOMEM;
		for (size_t i = 0; i < p->n[c]; i++) {
			uint64_t ts;

			memcpy(p->buf[c] + i * p->page_size, fixture_page(fx, c, i), p->page_size);
			memcpy(&ts, p->buf[c] + i * p->page_size, 8);
			if (ts < first)
				first = ts;
			if (ts > last)
				last = ts;
		}
	}
	p->span = last - first + 1000000;
	return 0;
}

/* Move every page header timestamp forward by one replay span. */
static void pages_advance(struct pages *p)
{
	for (unsigned int c = 0; c < p->ncpus; c++)
		for (size_t i = 0; i < p->n[c]; i++) {
			uint8_t *pg = p->buf[c] + i * p->page_size;
			uint64_t ts;

			memcpy(&ts, pg, 8);
			ts += p->span;
			memcpy(pg, &ts, 8);
		}
}

static double target_seconds(void)
{
	const char *s = getenv("KTOP_BENCH_SECONDS");

	return s ? atof(s) : 1.0;
}

/* decoder_page into a store; returns ns/event, sets *events. */
static double bench_store(struct fixture *fx, struct pages *p, struct symbols *syms,
			  uint64_t *events)
{
	struct store *st = store_new(64ull << 20, p->ncpus);
	struct decode_ctx *dc = st ? decode_ctx_new(fixture_tep(fx), st, syms) : NULL;
	struct decoder **d = calloc(p->ncpus, sizeof(*d));
	struct decode_stats ds = { 0 };
	double t0, t;

	if (!dc || !d)
		return -1;
	for (unsigned int c = 0; c < p->ncpus; c++)
		d[c] = decoder_new(dc, c);
	t0 = now();
	do {
		for (unsigned int c = 0; c < p->ncpus; c++)
			for (size_t i = 0; i < p->n[c]; i++)
				decoder_page(d[c], p->buf[c] + i * p->page_size, p->page_size, &ds);
		pages_advance(p);
		t = now() - t0;
	} while (t < target_seconds());
	*events = ds.events;
	if (ds.bad)
		fprintf(stderr, "bench_decode: %llu bad records\n", (unsigned long long)ds.bad);
	for (unsigned int c = 0; c < p->ncpus; c++)
		decoder_free(d[c]);
	free(d);
	decode_ctx_free(dc);
	store_free(st);
	return t * 1e9 / (ds.events ? ds.events : 1);
}

struct collect {
	struct decoder		*d;
	struct ktop_event	*ev;
	size_t			n, cap;
};

static int collect_one(void *arg, unsigned int cpu, unsigned long long ts, void *data, int size)
{
	struct collect *c = arg;

	if (c->n == c->cap) {
		struct ktop_event *p = realloc(c->ev, (c->cap = c->cap ? 2 * c->cap : 4096) *
					       sizeof(*p));

		if (!p)
			return -1;
		c->ev = p;
	}
	if (!decoder_record(c->d, data, size, ts, &c->ev[c->n]))
		c->ev[c->n++].cpu = cpu;
	return 0;
}

/* store_append alone, of the same events already decoded: the store's share. */
static double bench_append(struct fixture *fx, struct symbols *syms)
{
	struct store *st = store_new(64ull << 20, fixture_ncpus(fx));
	struct decode_ctx *dc = decode_ctx_new(fixture_tep(fx), st, syms);
	struct collect c = { .d = dc ? decoder_new(dc, 0) : NULL };
	uint64_t shift = 0, n = 0, span;
	double t0, t;

	if (!c.d)
		return -1;
	for (unsigned int cpu = 0; cpu < fixture_ncpus(fx); cpu++)
		fixture_for_each_record(fx, cpu, collect_one, &c);
	span = c.n ? c.ev[c.n - 1].ts - c.ev[0].ts + 1000000 : 1;
	for (size_t i = 0; i < c.n; i++)
		if (c.ev[i].ts - c.ev[0].ts >= span)
			span = c.ev[i].ts - c.ev[0].ts + 1000000;
	t0 = now();
	do {
		for (size_t i = 0; i < c.n; i++) {
			c.ev[i].ts += shift;
			store_append(st, &c.ev[i]);
			c.ev[i].ts -= shift;
		}
		for (unsigned int cpu = 0; cpu < fixture_ncpus(fx); cpu++)
			store_publish(st, cpu);
		n += c.n;
		shift += span;
		t = now() - t0;
	} while (t < target_seconds());
	free(c.ev);
	decoder_free(c.d);
	decode_ctx_free(dc);
	store_free(st);
	return t * 1e9 / (n ? n : 1);
}

struct walk {
	struct decoder		*d;
	struct tep_handle	*tep;
	struct trace_seq	s;
	uint64_t		events;
	uint64_t		sink;
};

static int walk_decode(void *arg, unsigned int cpu, unsigned long long ts, void *data, int size)
{
	struct walk *w = arg;
	struct ktop_event ev;

	if (!decoder_record(w->d, data, size, ts, &ev)) {
		w->events++;
		w->sink += ev.args[0];
	}
	return 0;
}

/* libtraceevent's generic per-field path: what a by-name decoder costs. */
static int walk_generic(void *arg, unsigned int cpu, unsigned long long ts, void *data, int size)
{
	struct walk *w = arg;
	struct tep_record rec = { .ts = ts, .cpu = cpu, .data = data, .size = size };
	struct tep_event *ev = tep_find_event(w->tep, tep_data_type(w->tep, &rec));
	unsigned long long val;
	int len;

	if (!ev)
		return 0;
	tep_get_common_field_val(&w->s, ev, "common_pid", &rec, &val, 0);
	w->sink += val;
	tep_get_common_field_val(&w->s, ev, "common_flags", &rec, &val, 0);
	w->sink += val;
	tep_get_common_field_val(&w->s, ev, "common_preempt_count", &rec, &val, 0);
	w->sink += val;
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next) {
		if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) {
			void *p = tep_get_field_raw(&w->s, ev, f->name, &rec, &len, 0);

			w->sink += (uintptr_t)p + len;
		} else if (!tep_get_field_val(&w->s, ev, f->name, &rec, &val, 0)) {
			w->sink += val;
		}
	}
	trace_seq_reset(&w->s);
	w->events++;
	return 0;
}

static double bench_walk(struct fixture *fx, struct walk *w, fixture_record_fn fn)
{
	double t0 = now(), t;

	w->events = 0;
	do {
		for (unsigned int c = 0; c < fixture_ncpus(fx); c++)
			fixture_for_each_record(fx, c, fn, w);
		t = now() - t0;
	} while (t < target_seconds());
	return t * 1e9 / (w->events ? w->events : 1);
}

int main(void)
{
	const char *dir = getenv("KTOP_BENCH_FIXTURE");
	char path[512];
	struct pages p = { 0 };
	struct walk w = { 0 };
	struct symbols *syms;
	struct fixture *fx;
	struct store *st;
	struct decode_ctx *dc;
	uint64_t events = 0;
	double ns, rec_ns, gen_ns, app_ns;

	if (!dir) {
		snprintf(path, sizeof(path), "%s/host-sched", fixture_root());
		dir = path;
	}
	fx = fixture_open(dir);
	if (!fx) {
		fprintf(stderr, "bench_decode: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	if (pages_load(fx, &p)) {
		fprintf(stderr, "bench_decode: out of memory\n");
		return 1;
	}
	syms = symbols_load(fixture_path(fx, "kallsyms"));

	ns = bench_store(fx, &p, syms, &events);
	if (ns < 0) {
		fprintf(stderr, "bench_decode: setup failed: %s\n", strerror(errno));
		return 1;
	}

	app_ns = bench_append(fx, syms);
	st = store_new(0, fixture_ncpus(fx));
	dc = decode_ctx_new(fixture_tep(fx), st, syms);
	w.d = decoder_new(dc, 0);
	w.tep = fixture_tep(fx);
	trace_seq_init(&w.s);
	rec_ns = bench_walk(fx, &w, walk_decode);
	gen_ns = bench_walk(fx, &w, walk_generic);

	printf("bench decode.store_rate %.2f Mevents/s (%llu events from %s, one core)\n",
	       1e3 / ns, (unsigned long long)events, dir);
	printf("bench decode.ns_per_event %.1f ns\n", ns);
	printf("bench decode.store_append_ns_per_event %.1f ns (store_append alone, same events "
	       "already decoded: the store's share of ns_per_event)\n", app_ns);
	printf("bench decode.decode_share_ns_per_event %.1f ns (ns_per_event minus the store's "
	       "share)\n", ns - app_ns);
	printf("bench decode.record_ns_per_event %.1f ns (decoder_record alone, kbuffer walk "
	       "included)\n", rec_ns);
	printf("bench decode.ns_per_event.anchor %.1f ns (libtraceevent generic: "
	       "tep_get_field_val/_raw for every field, same records)\n", gen_ns);
	printf("bench decode.anchor.libtraceevent_generic %.1f ns/event\n", gen_ns);
	printf("bench decode.speedup_vs_generic %.1f x\n", gen_ns / ns);

	trace_seq_destroy(&w.s);
	decoder_free(w.d);
	decode_ctx_free(dc);
	store_free(st);
	symbols_free(syms);
	for (unsigned int c = 0; c < p.ncpus; c++)
		free(p.buf[c]);
	free(p.buf);
	free(p.n);
	fixture_close(fx);
	return 0;
}
