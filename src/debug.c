// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KTOP_DEBUG_START=1: how long each start-up step took, on stderr. A start
 * on a slow machine (an emulator, a loaded box) can take seconds; this says
 * which step, without a profiler.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "debug.h"

static uint64_t debug_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void debug_step(const char *what)
{
	static int on = -1;
	static uint64_t t0, prev;
	uint64_t now;

	if (on < 0) {
		const char *e = getenv("KTOP_DEBUG_START");

		on = e && *e && strcmp(e, "0");
		t0 = prev = debug_now_ns();
	}
	if (!on)
		return;
	now = debug_now_ns();
	fprintf(stderr, "ktop: start: %-28s %9.1f ms (at %9.1f ms)\n", what, (now - prev) / 1e6,
		(now - t0) / 1e6);
	prev = now;
}
