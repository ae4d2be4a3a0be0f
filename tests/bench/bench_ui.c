// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * TUI frame cost with 10 M events in the store: each pane is drawn many times
 * into a curses screen on /dev/null (newterm), with new events arriving
 * between frames as they would live, and the time of every ui_frame() (format
 * + draw + doupdate; new events are read by the statistics helper thread,
 * outside the frame, and that cost is reported per event) is recorded: p50 and p99 per pane.
 *
 * Anchor: what a frame would cost if the top view recounted the whole store
 * every frame (store_count_by over all events), measured in the same run.
 *
 * Output:
 *   bench ui.ingest_ns_per_event V ns       reading each event once (live, the
 *                                           ktop-ui-stats helper does it, not the frame)
 *   bench ui.frame_p50.PANE V ms / ui.frame_p99.PANE V ms
 *   bench ui.frame_p99 V ms                 worst pane's p99
 *   bench ui.frame_p99.anchor V ms (...)
 */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/app.h"
#include "lib/clock.h"
#include "lib/intern.h"
#include "store/store.h"
#include "ui-local.h"
#include "bench_screen.h"
#include "bench_util.h"

#define NEVENTS_DEFAULT	10000000ull
#define NFRAMES		200
#define PER_FRAME	5000	/* new events between frames: 20 k/s at 4 frames/s ... x5 */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint32_t comm_ids[40];
static uint64_t ts_now = 1000000000ull;

/* A mix shaped like this host's default view: syscalls, scheduling, irqs. */
static void append_one(struct store *st, unsigned int cpu)
{
	struct ktop_event ev = { 0 };
	uint64_t r = rnd();
	int pid = 100 + (int)(r % 40);

	ts_now += 100 + r % 2000;
	ev.ts = ts_now;
	ev.cpu = (uint16_t)cpu;
	ev.pid = pid;
	ev.flags = (r >> 8) % 7 == 0 ? KTOP_KF_IRQS_OFF : 0;
	ev.pc = (r >> 12) % 5 == 0 ? 1 : 0;
	switch ((r >> 16) % 10) {
	case 0:
		ev.type = KTOP_T_SCHED_SWITCH;
		ev.nargs = 7;
		ev.args[0] = comm_ids[pid - 100];
		ev.args[1] = (uint64_t)pid;
		ev.args[2] = 120;
		ev.args[3] = (r >> 24) & 1;
		ev.args[4] = comm_ids[(pid + 1 - 100) % 40];
		ev.args[5] = (uint64_t)(100 + (pid + 1 - 100) % 40);
		ev.args[6] = 120;
		break;
	case 1:
		ev.type = KTOP_T_SCHED_WAKEUP;
		ev.nargs = 4;
		ev.args[0] = comm_ids[(pid + 3 - 100) % 40];
		ev.args[1] = (uint64_t)(100 + (pid + 3 - 100) % 40);
		ev.args[2] = 120;
		ev.args[3] = cpu;
		break;
	case 2:
		ev.type = KTOP_T_IRQ_HANDLER_ENTRY;
		ev.nargs = 2;
		ev.args[0] = 24 + (r >> 30) % 4;
		ev.args[1] = comm_ids[0];
		ev.flags |= KTOP_KF_HARDIRQ | KTOP_KF_IRQS_OFF;
		break;
	case 3:
	case 4:
	case 5:
		ev.type = KTOP_T_SYS_ENTER;
		ev.nargs = 7;
		ev.args[0] = (r >> 32) % 30;
		ev.args[1] = (r >> 40) % 16;
		break;
	default:
		ev.type = KTOP_T_SYS_EXIT;
		ev.nargs = 2;
		ev.args[0] = (r >> 32) % 30;
		ev.args[1] = 0;
		break;
	}
	store_append(st, &ev);
}

/* A stand-in for the live source: only its flags (events keep coming, a kernel to act on). */
static unsigned int fake_live_flags(const struct source *s)
{
	return SOURCE_KERNEL | SOURCE_GROWS;
}

static const struct source_ops fake_live_ops = { .name = "fake-live", .flags = fake_live_flags };
static struct source fake_live = { .ops = &fake_live_ops };

int main(int argc, char **argv)
{
	uint64_t nevents = argc > 1 ? strtoull(argv[1], NULL, 10) : NEVENTS_DEFAULT;
	static const char *const pname[] = { "cpus", "top", "events", "events_scrolled" };
	uint64_t t[NFRAMES], tc[NFRAMES], worst = 0, worst_cpu = 0, t0, c0, caught;
	struct store_count counts[64];
	struct store_filter f = { .t0 = 0, .t1 = UINT64_MAX, .pid = -1, .cpu = -1 };
	struct store_stats ss;
	static struct app a;
	struct store *st;
	struct bench_screen bs;
	struct ui *ui;

	st = store_new(2ull << 30, 2);
	if (!st)
		return 1;
	for (int i = 0; i < 40; i++) {
		char name[32];

		snprintf(name, sizeof(name), "task-%d", i);
		comm_ids[i] = intern_id(store_strings(st), name, strlen(name));
		store_set_comm(st, 100 + i, name, 0);
	}
	for (uint64_t i = 0; i < nevents; i++)
		append_one(st, (unsigned int)(i & 1));
	store_publish(st, 0);
	store_publish(st, 1);
	store_get_stats(st, &ss);
	fprintf(stderr, "store: %" PRIu64 " events, %" PRIu64 " bytes\n", ss.events, ss.bytes);

	a.st = st;
	a.src = &fake_live;
	if (bench_screen_new(&bs, &a, "40", "120"))
		return 1;
	ui = bs.ui;
	ui->stats.live_skip = false;	/* read all 10 M once, as a snapshot would */

	/* first frames: catch up with everything held */
	t0 = clock_mono_ns();
	while (ui_stats_behind(&ui->stats))
		ui_stats_ingest(&ui->stats, 0, NULL);
	caught = clock_mono_ns() - t0;
	printf("bench ui.ingest_ns_per_event %.1f ns (reading each event once, incremental)\n",
	       (double)caught / (double)nevents);
	ui_tick(ui, clock_mono_ns());

	for (unsigned int p = 0; p < 4; p++) {
		ui_show_pane(ui, pname[p < 3 ? p : 2]);
		if (p == 3)
			/* the event list frozen in the middle of the 10 M */
			ui_show_events(ui, &(struct ui_events_req){
				.at = ss.first_ts + (ss.last_ts - ss.first_ts) / 2,
			});
		for (int i = 0; i < NFRAMES; i++) {
			for (int k = 0; k < PER_FRAME; k++)
				append_one(st, (unsigned int)(k & 1));
			store_publish(st, 0);
			store_publish(st, 1);
			ui_stats_ingest(&ui->stats, 0, NULL);	/* ktop-ui-stats does this live */
			c0 = bench_cpu_ns();
			t0 = clock_mono_ns();
			ui_frame(ui, false);
			t[i] = clock_mono_ns() - t0;
			tc[i] = bench_cpu_ns() - c0;
			if (i % 20 == 19)
				ui_tick(ui, clock_mono_ns());
		}
		printf("bench ui.frame_p50.%s %.3f ms\n", pname[p], bench_pct_ms(t, NFRAMES, 0.50));
		printf("bench ui.frame_p99.%s %.3f ms\n", pname[p], bench_pct_ms(t, NFRAMES, 0.99));
		if (t[(int)((NFRAMES - 1) * 0.99)] > worst)
			worst = t[(int)((NFRAMES - 1) * 0.99)];
		printf("bench ui.frame_cpu_p99.%s %.3f ms\n", pname[p], bench_pct_ms(tc, NFRAMES, 0.99));
		if (tc[(int)((NFRAMES - 1) * 0.99)] > worst_cpu)
			worst_cpu = tc[(int)((NFRAMES - 1) * 0.99)];
	}
	printf("bench ui.frame_p99 %.3f ms\n", (double)worst / 1e6);
	printf("bench ui.frame_cpu_p99 %.3f ms (thread CPU time: without preemption by others)\n",
	       (double)worst_cpu / 1e6);

	/* anchor: recount the whole store by type, as a non-incremental top view would */
	for (int i = 0; i < 5; i++) {
		t0 = clock_mono_ns();
		store_count_by(st, STORE_KEY_TYPE, &f, counts, 64);
		t[i] = clock_mono_ns() - t0;
	}
	printf("bench ui.frame_p99.anchor %.3f ms (store_count_by over all %" PRIu64
	       " events: a top view that recounts each frame)\n", bench_pct_ms(t, 5, 1.0),
	       nevents);

	bench_screen_free(&bs);
	store_free(st);
	return 0;
}
