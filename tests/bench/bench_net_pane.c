// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The Net pane (ui/panes/pane_net.c) with 100,000 connections held: the network
 * events of tests/fixtures/host-net (recorded on this host: 11 lifetimes, two
 * of them refused connects, the nftables transfer's retransmits and drops)
 * replayed 9,091 times one after the other (each copy 5 ms of trace time,
 * every lifetime a new generation of its socket address), the pane drawn by
 * ui_frame() into a curses screen on /dev/null (newterm, 200x50), as
 * bench_ui.c does:
 *
 *   bench net.feed_ns_per_event         the model reading the store (every
 *                                       event, the network ones decoded)
 *   bench net.pane_redraw_ms            a frame with nothing new (p50, .p99):
 *                                       the visible rows formatted and drawn
 *   bench net.pane_sort_frame_ms        a frame after F6 (p50): the 100,000
 *                                       rows put in order again, then drawn
 *   bench net.pane_redraw_ms.anchor     net_conns() of every row: what a pane
 *                                       that copied every row each frame pays
 *
 * Frames are timed in the thread's CPU time (the machine is shared).
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "ingest/fixture.h"
#include "kernel/symbols.h"
#include "model/net.h"
#include "store/store.h"
#include "ui-local.h"
#include "bench_screen.h"
#include "bench_util.h"

#define WANT_CONNS	100000
#define COPY_NS		(5ull * 1000 * 1000)
#define NFRAMES		100

/* host-net's network events, replayed until WANT_CONNS lifetimes. Return: copies, or -1. */
static long fill(struct store *st, const char *dir)
{
	struct fixture *fx = fixture_open(dir);
	struct net_fields *nf;
	struct store_iter *it;
	struct ktop_event ev, *evs = NULL;
	size_t n = 0, cap = 0, lifetimes = 0;
	uint64_t seq, t0 = 0, t1 = 0, base;
	long copies;

	if (!fx || fixture_decode(fx, st, NULL))
		return -1;
	nf = net_fields_new(st);
	it = store_iter_new(st, 0, UINT64_MAX, NULL);
	while (it && nf && store_iter_next(it, &ev, &seq)) {
		struct net_ev_fields f;

		if (!net_fields_read(nf, ev.type, ev.args, ev.nargs, &f))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			evs = realloc(evs, cap * sizeof(*evs));
			if (!evs)
				return -1;
		}
		evs[n++] = ev;
		lifetimes += f.ends_life && strstr(ui_event_name(st, ev.type), "destroy");
		if (!t0)
			t0 = ev.ts;
		t1 = ev.ts;
	}
	store_iter_free(it);
	net_fields_free(nf);
	fixture_close(fx);
	if (!n || !lifetimes)
		return -1;
	copies = (long)((WANT_CONNS + lifetimes - 1) / lifetimes);
	base = t1 + COPY_NS;
	for (long k = 0; k < copies; k++) {
		for (size_t i = 0; i < n; i++) {
			ev = evs[i];
			/* the copy's events in the same order, squeezed into COPY_NS */
			ev.ts = base + (uint64_t)k * COPY_NS +
				(ev.ts - t0) * (COPY_NS / 2) / (t1 - t0 + 1);
			store_append(st, &ev);
		}
	}
	for (unsigned int cpu = 0; cpu < store_ncpus(st); cpu++)
		store_publish(st, cpu);
	free(evs);
	return copies;
}

static void frames(struct ui *ui, uint64_t *t, int n, int key)
{
	for (int i = 0; i < n; i++) {
		uint64_t c0;

		if (key)
			ui_handle_key(ui, key);
		c0 = bench_cpu_ns();
		ui_frame(ui, false);
		t[i] = bench_cpu_ns() - c0;
	}
}

int main(void)
{
	static uint64_t t[NFRAMES];
	struct net_conn_row *rows;
	struct net_query q = { .sort = NET_BY_LAST };
	struct net_totals tot;
	struct bench_screen bs;
	struct store_stats ss;
	struct app a = { 0 };
	struct net *n;
	char dir[512];
	uint64_t c0, fed;
	long copies;

	snprintf(dir, sizeof(dir), "%s/host-net", fixture_root());
	a.opts.memory = 1ull << 30;
	a.st = store_new(a.opts.memory, 2);
	copies = a.st ? fill(a.st, dir) : -1;
	if (copies < 0) {
		fprintf(stderr, "bench net: cannot replay %s\n", dir);
		return 1;
	}
	store_get_stats(a.st, &ss);
	/* the model alone: its feed, its rows */
	n = app_net_new(&a);
	c0 = bench_cpu_ns();
	net_update(n, UINT64_MAX - 1);
	fed = bench_cpu_ns() - c0;
	net_totals(n, &tot);
	printf("  %ld copies of host-net's network events: %llu events, %llu connections held "
	       "(%llu aged out, %llu over the bound)\n", copies, (unsigned long long)ss.events,
	       (unsigned long long)tot.conns, (unsigned long long)tot.aged_out,
	       (unsigned long long)tot.bounded_out);
	printf("bench net.feed_ns_per_event %.1f ns (the model over %llu events)\n",
	       (double)fed / (double)ss.events, (unsigned long long)ss.events);
	rows = calloc(tot.conns, sizeof(*rows));
	for (int i = 0; rows && i < 5; i++) {
		c0 = bench_cpu_ns();
		net_conns(n, &q, rows, tot.conns);
		t[i] = bench_cpu_ns() - c0;
	}
	free(rows);
	net_free(n);
	/* the pane: fed first (slices within the frame budget), then timed */
	if (bench_screen_new(&bs, &a, "50", "200"))
		return 1;
	ui_show_pane(bs.ui, "net");
	for (int i = 0, quick = 0; i < 2000 && quick < 3; i++) {
		c0 = bench_cpu_ns();
		ui_frame(bs.ui, false);
		quick = bench_cpu_ns() - c0 < 5000000 ? quick + 1 : 0;
	}
	frames(bs.ui, t + 5, NFRAMES - 5, 0);
	printf("bench net.pane_redraw_ms %.3f ms (p50: %llu connections held, 200x50)\n",
	       bench_pct_ms(t + 5, NFRAMES - 5, 0.5), (unsigned long long)tot.conns);
	printf("bench net.pane_redraw_ms.p99 %.3f ms\n", bench_pct_ms(t + 5, NFRAMES - 5, 0.99));
	printf("bench net.pane_redraw_ms.anchor %.3f ms (net_conns of every row, p50 of 5: a "
	       "pane that copied every row each frame)\n", bench_pct_ms(t, 5, 0.5));
	frames(bs.ui, t, 20, '>');
	printf("bench net.pane_sort_frame_ms %.3f ms (p50: a frame after F6, every row put in "
	       "order again)\n", bench_pct_ms(t, 20, 0.5));
	bench_screen_free(&bs);
	store_free(a.st);
	return 0;
}
