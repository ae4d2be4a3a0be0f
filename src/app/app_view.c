// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What every reader of the store honours besides the store itself: the view
 * filter of --view (and, later, of the UI), the task relations it and the
 * tasks model use, and the clock rates and times are read on.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "app.h"
#include "lib/clock.h"
#include "model/fgraph.h"
#include "lib/intern.h"
#include "lib/err.h"
#include "kernel/session.h"
#include "store/store.h"
#include "model/taskrel.h"
#include "view/viewfilter.h"

/* A field of any event of the session's formats (their types come with their first records). */
static bool tep_has_field(void *arg, const char *name)
{
	struct tep_event **evs = tep_list_events(arg, TEP_EVENT_SORT_ID);

	for (int i = 0; evs && evs[i]; i++)
		if (tep_find_any_field(evs[i], name))
			return true;
	return false;
}

bool app_field_known(void *arg, const char *name)
{
	struct app *a = arg;
	struct tep_handle *tep = app_session(a) ? session_tep(app_session(a)) : NULL;

	return tep && tep_has_field(tep, name);
}

/* A snapshot still loading: its types are not all in the schema yet; the syntax was checked. */
static bool any_field(void *arg, const char *name)
{
	return true;
}

/* Up to where every CPU has published (the view's joins walk no further). */
static uint64_t view_feed_end(void *arg, uint64_t lag_ns)
{
	return app_feed_end(arg, lag_ns);
}

int app_view_start(struct app *a, char *err, size_t errlen)
{
	struct tep_handle *tep = app_session(a) ? session_tep(app_session(a)) : NULL;
	char msg[1024];

	a->rel = taskrel_new(a->st);
	a->view = a->rel ? viewfilter_new(a->st, a->rel) : NULL;
	if (!a->view) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (app_session(a))
		viewfilter_set_live(a->view, tep ? tep_has_field : NULL, tep, "/proc");
	else if (app_loading(a))
		viewfilter_set_live(a->view, any_field, NULL, NULL);
	viewfilter_set_feed_end(a->view, view_feed_end, a);
	/* buffer:NAME, for a trace.dat's buffers */
	if (viewfilter_set_buffers(a->view, app_recording_meta(a))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < a->opts.nviews; i++) {
		struct err_pos fe;
		int ret = viewfilter_push(a->view, a->opts.views[i], &fe);

		if (ret == -EINVAL) {
			snprintf(err, errlen, "--view: %s",
				 viewfilter_error_format(a->opts.views[i], &fe, msg, sizeof(msg)));
			return ret;
		}
		if (ret) {
			snprintf(err, errlen, "--view '%s': %s", a->opts.views[i], strerror(-ret));
			return ret;
		}
	}
	return 0;
}

void app_view_stop(struct app *a)
{
	viewfilter_free(a->view);
	a->view = NULL;
	taskrel_free(a->rel);
	a->rel = NULL;
}

struct viewfilter *app_view(const struct app *a)
{
	return a->view && viewfilter_nclauses(a->view) ? a->view : NULL;
}

static const char *fgraph_sym_name(void *ctx, uint32_t sym)
{
	const char *s = intern_str(store_strings(ctx), sym);

	return s && *s ? s : NULL;
}

static const char *fgraph_comm(void *ctx, int32_t pid)
{
	return store_comm(ctx, pid);
}

struct fgraph *app_fgraph_new(const struct app *a,
			      bool (*keep)(void *ctx, const struct ktop_event *ev), void *keep_ctx)
{
	const struct fgraph_config cfg = {
		.clock = FGRAPH_CLOCK_AUTO,
		.max_depth = a->opts.so.max_depth_set ? a->opts.so.max_depth : 0,
		.agg_merge_tasks = true,
		.name = fgraph_sym_name, .name_ctx = a->st,
		.comm = fgraph_comm, .comm_ctx = a->st,
		.keep = keep, .keep_ctx = keep_ctx,
	};

	return fgraph_new(&cfg);
}

bool app_clock(struct app *a, uint64_t *start, uint64_t *now)
{
	struct store_stats ss;

	if ((app_flags(a) & SOURCE_KERNEL) || !a->st) {
		*start = a->start_ns;
		*now = clock_mono_ns();
		return false;
	}
	store_get_stats(a->st, &ss);
	if (ss.first_ts && (!a->rec_t0 || ss.first_ts < a->rec_t0))
		a->rec_t0 = ss.first_ts;
	*start = a->rec_t0;
	*now = ss.last_ts > a->rec_t0 ? ss.last_ts : a->rec_t0;
	return true;
}
