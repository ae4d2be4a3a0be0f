// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The stacks pane (ui/panes/pane_stacks.c) with 100,000 distinct stacks: 300,000
 * stacked events (three per stack, depth 12-28, shared roots, names from a
 * vocabulary of 5,000 functions, as bench_stacks.c's tree), the pane drawn
 * by ui_frame() into a curses screen on /dev/null (newterm, 200x50), as
 * bench_ui.c does:
 *
 *   bench stacks.icicle_first_frame_ms      the first frame: every event's
 *                                           stack counted, the set and the
 *                                           icicle built, drawn
 *   bench stacks.icicle_redraw_ms           a frame of the icicle after that,
 *                                           p50 (and .p99): layout, names,
 *                                           colours, the screen
 *   bench stacks.icicle_zoom_frame_ms       a frame after a zoom in or out (every
 *                                           cell new on the screen), p50
 *   bench stacks.icicle_redraw_ms.anchor    stack_tree_build() of the same
 *                                           stacks: what a pane that rebuilt
 *                                           its tree every frame would pay
 *   bench stacks.callers_redraw_ms          the caller tree's frame, p50
 *
 * Frames are timed in the thread's CPU time (the machine is shared).
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "lib/intern.h"
#include "store/stacks.h"
#include "model/stacktree.h"
#include "store/store.h"
#include "ui-local.h"
#include "bench_screen.h"
#include "bench_util.h"

#define NSTACKS		100000
#define PER_STACK	3
#define NFRAMES		100

/* 100,000 distinct stacks, @PER_STACK sched_switch events each. Return: the set. */
static int fill(struct store *st, struct stack_set *set)
{
	struct intern *in = store_strings(st);
	uint64_t names[5000], k[32], ts = 1000;

	for (int i = 0; i < 5000; i++) {
		char buf[32];
		int n = snprintf(buf, sizeof(buf), "func_%d", i);

		names[i] = intern_id(in, buf, (size_t)n);
	}
	memset(set, 0, sizeof(*set));
	set->v = calloc(NSTACKS, sizeof(*set->v));
	if (!set->v)
		return -1;
	for (uint32_t i = 0; i < NSTACKS; i++) {
		unsigned int depth = 12 + bench_mix(i) % 17;
		uint32_t id;

		for (unsigned int f = 0; f < depth; f++) {
			unsigned int from_root = depth - 1 - f;

			k[f] = names[from_root < 6 ? bench_mix(from_root * 7 + i % 5) % 40 :
				     bench_mix(i * 131 + f) % 5000];
		}
		id = stacks_intern(store_stacks(st), k, depth, NULL, 0, 0, STACK_F_NAMES, NULL);
		if (!id)
			continue;
		set->v[set->n++] = (struct stack_weight){ id, -1, PER_STACK, PER_STACK };
		set->count += PER_STACK;
		for (int e = 0; e < PER_STACK; e++) {
			struct ktop_event ev = {
				.ts = ts += 1000, .pid = 100 + (int32_t)(i % 13), .cpu = (uint16_t)(i & 1),
				.type = KTOP_T_SCHED_SWITCH, .nargs = 7, .stack = id,
			};

			store_append(st, &ev);
		}
	}
	set->value = set->count;
	store_publish(st, 0);
	store_publish(st, 1);
	return 0;
}

/* @n frames of the pane as it is: their CPU times into @t. */
static void frames(struct ui *ui, uint64_t *t, int n)
{
	for (int i = 0; i < n; i++) {
		uint64_t c0 = bench_cpu_ns();

		ui_frame(ui, false);
		t[i] = bench_cpu_ns() - c0;
	}
}

int main(void)
{
	uint64_t t[NFRAMES], c0;
	static struct app a;
	struct stack_set set;
	struct stack_tree *tr;
	struct store *st;
	struct bench_screen bs;
	struct ui *ui;

	st = store_new(1ull << 30, 2);
	if (!st || fill(st, &set))
		return 1;
	a.st = st;
	if (bench_screen_new(&bs, &a, "50", "200"))
		return 1;
	ui = bs.ui;
	ui_request(ui, &(struct ui_req){
		.kind = UI_REQ_STACKS, .stacks = { .icicle = true, .type = -1 },
	});
	/* the first frames count within a budget each, then the set is made once a second */
	c0 = bench_cpu_ns();
	do
		ui_frame(ui, false);
	while (ui->dirty);
	t[0] = bench_cpu_ns() - c0;
	nanosleep(&(struct timespec){ 1, 100000000 }, NULL);
	c0 = bench_cpu_ns();
	ui_frame(ui, false);
	printf("bench stacks.icicle_first_frame_ms %.1f ms (%d events' stacks counted, %u "
	       "distinct: the set and the icicle built, drawn)\n",
	       (double)(t[0] + bench_cpu_ns() - c0) / 1e6, NSTACKS * PER_STACK,
	       stacks_count(store_stacks(st)));
	frames(ui, t, NFRAMES);
	printf("bench stacks.icicle_redraw_ms %.3f ms (a frame of the icicle of %d distinct "
	       "stacks, 200x50: layout, names, colours, curses)\n", bench_pct_ms(t, NFRAMES, 0.5),
	       NSTACKS);
	printf("bench stacks.icicle_redraw_ms.p99 %.3f ms\n", bench_pct_ms(t, NFRAMES, 0.99));
	/* frames that change every cell: zoom into the widest frame, then back (Home) */
	ui_handle_key(ui, KEY_DOWN);
	for (int i = 0; i < NFRAMES; i++) {
		uint64_t c1;

		ui_handle_key(ui, i & 1 ? KEY_HOME : '\n');
		c1 = bench_cpu_ns();
		ui_frame(ui, false);
		t[i] = bench_cpu_ns() - c1;
	}
	printf("bench stacks.icicle_zoom_frame_ms %.3f ms (a frame after Enter or Home: every "
	       "cell laid out and sent again)\n", bench_pct_ms(t, NFRAMES, 0.5));
	for (int i = 0; i < 5; i++) {
		c0 = bench_cpu_ns();
		tr = stack_tree_build(st, &set, STACK_TREE_ROOTS);
		t[i] = bench_cpu_ns() - c0;
		stack_tree_free(tr);
	}
	printf("bench stacks.icicle_redraw_ms.anchor %.1f ms (stack_tree_build of the same "
	       "stacks: a pane that rebuilt its tree every frame)\n", bench_pct_ms(t, 5, 0.5));
	ui_request(ui, &(struct ui_req){
		.kind = UI_REQ_STACKS, .stacks = { .icicle = false, .type = -1 },
	});
	ui_frame(ui, false);
	frames(ui, t, NFRAMES);
	printf("bench stacks.callers_redraw_ms %.3f ms (a frame of their caller tree)\n",
	       bench_pct_ms(t, NFRAMES, 0.5));
	bench_screen_free(&bs);
	stack_set_free(&set);
	store_free(st);
	return 0;
}
