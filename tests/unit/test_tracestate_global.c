// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The global tracer settings a session in an instance changes (issues 5 and
 * 6): tracestate_capture_files() keeps exactly the files named, the full
 * capture includes osnoise/, and both restore what was there. On a directory
 * laid out like tracefs (no root needed); the values are the 6.1-rt guest's
 * defaults as `cat` printed them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_tracefs.h"
#include "test.h"
#include "kernel/tracestate.h"

/* The file as the kernel's `cat` would show it, without its newline. */
static const char *get(const char *rel)
{
	char *s = fake_get(rel);
	size_t n;

	if (!s)
		return "(absent)";
	n = strlen(s);
	if (n && s[n - 1] == '\n')
		s[n - 1] = '\0';
	return s;
}

static void layout(void)
{
	snprintf(fake_root, sizeof(fake_root), "/tmp/ktop-test-tsg-%d", getpid());
	mkdir(fake_root, 0755);
	fake_put("current_tracer", "nop\n");
	fake_put("tracing_on", "1\n");
	fake_put("tracing_thresh", "0\n");
	fake_put("max_graph_depth", "0\n");
	fake_put("set_graph_function", "#### all functions enabled ####\n");
	fake_put("osnoise/period_us", "1000000\n");
	fake_put("osnoise/runtime_us", "1000000\n");
	fake_put("osnoise/stop_tracing_us", "0\n");
	fake_put("osnoise/stop_tracing_total_us", "0\n");
	fake_put("osnoise/timerlat_period_us", "1000\n");
	fake_put("osnoise/print_stack", "0\n");
	fake_put("osnoise/cpus", "0-1\n");
}

TEST(capture_files_keeps_only_those_named)
{
	static const char *const files[] = { "tracing_thresh", "osnoise/period_us",
					     "osnoise/runtime_us", "osnoise/nosuch", NULL };
	struct tracestate *ts;

	layout();
	ts = tracestate_capture_files(fake_root, files);
	CHECK(ts != NULL);
	CHECK_STR(tracestate_get(ts, "tracing_thresh"), "0");
	CHECK_STR(tracestate_get(ts, "osnoise/period_us"), "1000000");
	CHECK_STR(tracestate_get(ts, "osnoise/runtime_us"), "1000000");
	CHECK(tracestate_get(ts, "osnoise/nosuch") == NULL);
	CHECK(tracestate_get(ts, "current_tracer") == NULL);
	CHECK(tracestate_get(ts, "max_graph_depth") == NULL);
	tracestate_free(ts);
}

TEST(full_capture_has_the_osnoise_files)
{
	struct tracestate *ts;

	layout();
	ts = tracestate_capture(fake_root, TRACESTATE_NO_EVENTS | TRACESTATE_NO_INSTANCES);
	CHECK(ts != NULL);
	CHECK_STR(tracestate_get(ts, "osnoise/timerlat_period_us"), "1000");
	CHECK_STR(tracestate_get(ts, "osnoise/cpus"), "0-1");
	CHECK_STR(tracestate_get(ts, "osnoise/stop_tracing_total_us"), "0");
	CHECK_STR(tracestate_get(ts, "osnoise/print_stack"), "0");
	tracestate_free(ts);
}

TEST(restore_and_reload)
{
	static const char *const files[] = { "osnoise/period_us", "osnoise/runtime_us",
		"osnoise/timerlat_period_us", "osnoise/cpus", "max_graph_depth", NULL };
	char path[512];
	struct tracestate *ts, *back;

	layout();
	ts = tracestate_capture_files(fake_root, files);
	CHECK(ts != NULL);
	snprintf(path, sizeof(path), "%s.state", fake_root);
	CHECK(tracestate_save(ts, path) == 0);

	/* what a session sets */
	fake_put("osnoise/period_us", "200000\n");
	fake_put("osnoise/runtime_us", "100000\n");
	fake_put("osnoise/timerlat_period_us", "500\n");
	fake_put("osnoise/cpus", "1\n");
	fake_put("max_graph_depth", "6\n");
	fake_put("tracing_thresh", "25\n");		/* not saved: must stay */
	CHECK(tracestate_restore(ts) == 0);
	CHECK_STR(get("osnoise/period_us"), "1000000");
	CHECK_STR(get("osnoise/runtime_us"), "1000000");
	CHECK_STR(get("osnoise/timerlat_period_us"), "1000");
	CHECK_STR(get("osnoise/cpus"), "0-1");
	CHECK_STR(get("max_graph_depth"), "0");
	CHECK_STR(get("tracing_thresh"), "25");

	/* after a SIGKILL: from the saved file, blind (the fatal-signal path) */
	fake_put("osnoise/period_us", "300000\n");
	fake_put("osnoise/timerlat_period_us", "2000\n");
	back = tracestate_load(path);
	CHECK(back != NULL);
	CHECK(tracestate_diff(ts, back, NULL, NULL) == 0);
	CHECK(tracestate_restore_blind(back) == 0);
	CHECK_STR(get("osnoise/period_us"), "1000000");
	CHECK_STR(get("osnoise/timerlat_period_us"), "1000");
	tracestate_free(back);
	tracestate_free(ts);
	unlink(path);
}

TEST(zz_cleanup)
{
	CHECK(fake_remove() == 0);
}

TEST_MAIN()
