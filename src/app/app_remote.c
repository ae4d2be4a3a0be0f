// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * How a stream stands (`-i -`, `ktop --remote`): running, ended by the far
 * side, or cut off; and the one line the view and stderr say once it is over.
 * A stream that ends is not an error of the view: what arrived stays held
 * and can be explored and saved.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "source/remote.h"
#include "source/source.h"
#include "store/store.h"

enum app_stream_state app_stream_state(const struct app *a)
{
	char err[8];

	if (app_flags(a) & SOURCE_KERNEL)
		return APP_STREAM_NONE;
	if (!a->remote && !(a->opts.input && !strcmp(a->opts.input, "-")))
		return APP_STREAM_NONE;
	if (app_loading(a) || !app_end_rt(a))
		return APP_STREAM_RUNNING;
	return app_loader_status(a, err, sizeof(err)) ? APP_STREAM_CUT : APP_STREAM_ENDED;
}

enum app_stream_state app_stream_end_desc(const struct app *a, char *buf, size_t len)
{
	enum app_stream_state s = app_stream_state(a);
	char when[16] = "?", why[320] = "", lerr[512] = "";
	uint64_t rt = app_end_rt(a);
	time_t t = (time_t)(rt / 1000000000ull);
	struct store_stats ss;
	struct tm tm;

	buf[0] = 0;
	if (s == APP_STREAM_NONE || s == APP_STREAM_RUNNING)
		return s;
	if (localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
	store_get_stats(a->st, &ss);
	if (a->remote)
		remote_end_reason(a->remote, why, sizeof(why));
	if (s == APP_STREAM_CUT) {
		/* what ssh says is the news; how the stream broke off, when it says nothing */
		if (!why[0])
			app_loader_status(a, lerr, sizeof(lerr));
		snprintf(buf, len, "disconnected from %s at %s after %llu events (%s%s%s)",
			 a->remote ? remote_dest(a->remote) : "the stream on standard input",
			 when, (unsigned long long)ss.appended, why, why[0] && lerr[0] ? "; " : "",
			 lerr);
	} else {
		snprintf(buf, len, "stream from %s ended at %s after %llu events (the far side "
			 "ended it%s%s)", a->remote ? remote_dest(a->remote) : "standard input",
			 when, (unsigned long long)ss.appended, why[0] ? "; " : "", why);
	}
	return s;
}
