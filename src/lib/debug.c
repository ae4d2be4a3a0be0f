// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KTOP_DEBUG_START=1: how long each start-up step took, on stderr. A start
 * on a slow machine (an emulator, a loaded box) can take seconds; this says
 * which step, without a profiler.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "clock.h"
#include "debug.h"
#include "tuning.h"

void debug_step(const char *what)
{
	static int on = -1;
	static uint64_t t0, prev;
	uint64_t now;

	if (on < 0) {
		on = tuning()->debug_start;
		t0 = prev = clock_mono_ns();
	}
	if (!on)
		return;
	now = clock_mono_ns();
	fprintf(stderr, "ktop: start: %-28s %9.1f ms (at %9.1f ms)\n", what, (now - prev) / 1e6,
		(now - t0) / 1e6);
	prev = now;
}
