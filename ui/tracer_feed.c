// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Feeding the graph and latency panes' models from the store (see
 * tracer_feed.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <tracefs.h>

#include "app.h"
#include "consumer.h"
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
	return app_feed_end(ui->app, lag_ns);
}

uint64_t ui_feed_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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

int ui_trace_marker(struct ui *ui, const char *text)
{
	struct app *a = ui->app;
	size_t n = strlen(text);
	int fd, ret = 0;

	if (!a->sess || !a->live)
		return -ENODEV;
	fd = tracefs_instance_file_open(session_instance(a->sess), "trace_marker", O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, text, n > 4000 ? 4000 : n) < 0)
		ret = -errno;
	close(fd);
	/* in the views at once, not when its page fills or the readers time out */
	if (!ret)
		consumer_flush(a->cons);
	return ret;
}
