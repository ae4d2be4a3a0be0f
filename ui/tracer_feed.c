// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Feeding the graph and latency panes' models from the store (see
 * tracer_feed.h).
 */
#include <time.h>

#include "app/app.h"
#include "lib/clock.h"
#include "store/store.h"
#include "tracer_feed.h"

uint64_t ui_feed_window_end(struct ui *ui, uint64_t lag_ns)
{
	return app_feed_end(ui->app, lag_ns);
}

bool ui_feed_pace(struct ui *ui, uint64_t *slice, uint64_t slice_start, uint64_t feed_start,
		  uint64_t budget_ns, bool more)
{
	uint64_t took = clock_thread_ns() - slice_start;

	if (took < budget_ns / 8 && *slice < (1ull << 40))
		*slice *= 2;
	else if (took > budget_ns / 2 && *slice > 1000000)
		*slice /= 2;
	if (clock_thread_ns() - feed_start > budget_ns) {
		if (more)
			ui->dirty = true;
		return true;
	}
	return false;
}

bool ui_feed_clamp(struct ui *ui, uint64_t *next, uint64_t *t1)
{
	struct store_stats ss;

	store_get_stats(ui->st, &ss);
	if (*t1 > ss.last_ts)
		*t1 = ss.last_ts;
	if (*next < ss.first_ts)
		*next = ss.first_ts;
	return *t1 && *next <= *t1;
}

int ui_feed_slices(struct ui *ui, uint64_t *next, uint64_t t1, uint64_t *slice,
		   uint64_t feed_start, uint64_t budget_ns, ui_feed_fn fn, void *ctx)
{
	/* only the time the store holds: no empty slices before or after it */
	if (!ui_feed_clamp(ui, next, &t1))
		return 0;
	while (*next <= t1) {
		uint64_t end = t1 - *next > *slice ? *next + *slice : t1;
		uint64_t c0 = clock_thread_ns();
		int ret = fn(ui, ctx, *next, end);

		if (ret)
			return ret;
		*next = end + 1;
		if (ui_feed_pace(ui, slice, c0, feed_start, budget_ns, *next <= t1))
			break;
	}
	return 0;
}
