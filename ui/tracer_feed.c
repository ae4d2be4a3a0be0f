// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Feeding the graph and latency panes' models from the store (see
 * tracer_feed.h).
 */
#include <time.h>

#include "app.h"
#include "clock.h"
#include "tracer_feed.h"

uint64_t ui_feed_window_end(struct ui *ui, uint64_t lag_ns)
{
	return app_feed_end(ui->app, lag_ns);
}

uint64_t ui_feed_clock(void)
{
	return clock_thread_ns();
}

bool ui_feed_pace(struct ui *ui, uint64_t *slice, uint64_t slice_start, uint64_t feed_start,
		  uint64_t budget_ns, bool more)
{
	uint64_t took = ui_feed_clock() - slice_start;

	if (took < budget_ns / 8 && *slice < (1ull << 40))
		*slice *= 2;
	else if (took > budget_ns / 2 && *slice > 1000000)
		*slice /= 2;
	if (ui_feed_clock() - feed_start > budget_ns) {
		ui->dirty = more;
		return true;
	}
	return false;
}
