// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Feeding the graph and latency panes' models from the store (see
 * tracer_feed.h).
 */
#include "app.h"
#include "session.h"
#include "store.h"
#include "tracer_feed.h"

const char *ui_feed_tracer(struct ui *ui)
{
	const char *t = ui->app->sess ? session_tracer(ui->app->sess) : ui->app->opts.so.tracer;

	return t ? t : "";
}

uint64_t ui_feed_window_end(struct ui *ui, uint64_t lag_ns)
{
	uint64_t now = ui_now_ns(), newest = 0, oldest = UINT64_MAX;
	unsigned int n = store_ncpus(ui->st);

	if (!ui->app->live)	/* a snapshot file: all of it, once loaded */
		return app_snapshot_end(ui->app);
	for (unsigned int cpu = 0; cpu < n; cpu++) {
		struct store_stats ss;

		store_get_cpu_stats(ui->st, cpu, &ss);
		if (!ss.last_ts)
			continue;
		if (ss.last_ts > newest)
			newest = ss.last_ts;
		if (ss.last_ts < oldest)
			oldest = ss.last_ts;
	}
	if (!newest)
		return 0;
	if (newest <= now + 60000000000ull && newest + 60000000000ull >= now)
		return now > lag_ns ? now - lag_ns : 0;
	return oldest;
}

bool ui_feed_pace(struct ui *ui, uint64_t *slice, uint64_t slice_start, uint64_t feed_start,
		  uint64_t budget_ns, bool more)
{
	uint64_t took = ui_now_ns() - slice_start;

	if (took < budget_ns / 8 && *slice < (1ull << 40))
		*slice *= 2;
	else if (took > budget_ns / 2 && *slice > 1000000)
		*slice /= 2;
	if (ui_now_ns() - feed_start > budget_ns) {
		ui->dirty = more;
		return true;
	}
	return false;
}
