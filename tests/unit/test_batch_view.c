// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Summaries of a recording and under a view filter (no tracefs, no root):
 *  - a recording's rates and times come from its own timestamps (issue 18
 *    #4: a 66 s trace read in a second said "up 1.0s, 1165981/s");
 *  - --json has the BPF section the text summary has (#13), here its
 *    "not available" form (tests/live/test_batch_view.sh checks the figures);
 *  - --view: the counts, the top lists and the view line count only matches.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "batch.h"
#include "fixture.h"
#include "store.h"
#include "test.h"
#include "viewfilter.h"

static struct fixture *fx;

static struct app *app_fixture(const char *name, bool json)
{
	static struct app a;
	char dir[512];

	memset(&a, 0, sizeof(a));
	a.opts.interval = 1.0;
	a.opts.iterations = 1;
	a.opts.json = json;
	a.opts.batch = true;
	a.wake_fd = -1;
	snprintf(dir, sizeof(dir), "%s/%s", fixture_root(), name);
	fx = fixture_open(dir);
	a.st = fx ? store_new(0, fixture_ncpus(fx)) : NULL;
	if (!a.st || fixture_decode(fx, a.st, NULL))
		return NULL;
	snprintf(a.mode_why, sizeof(a.mode_why), "snapshot %s", name);
	snprintf(a.bpf_why, sizeof(a.bpf_why), "BPF statistics: not in a snapshot");
	/* as main_offline does for a file: one summary, at once */
	a.start_ns = app_now_ns() - 1000000000ull;
	return &a;
}

static void app_done(struct app *a)
{
	viewfilter_free(a->view);
	store_free(a->st);
	fixture_close(fx);
}

static char *run(struct app *a)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	if (!fp)
		return NULL;
	batch_run(a, fp);
	fclose(fp);
	return buf;
}

static double num(const char *json, const char *key)
{
	char k[64];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(json, k);
	return p ? strtod(p + strlen(k), NULL) : -1;
}

TEST(recording_rates_from_its_timestamps)
{
	struct app *a = app_fixture("host-sched", true);
	struct store_stats ss;
	double span, interval, up, rate;
	char *out;

	CHECK(a);
	store_get_stats(a->st, &ss);
	span = (double)(ss.last_ts - ss.first_ts) / 1e9;
	out = run(a);
	CHECK(out);
	interval = num(out, "interval_s");
	up = num(out, "uptime_s");
	rate = num(out, "events_per_s");
	printf("# span %.3f s: interval_s %.3f uptime_s %.3f events_per_s %.0f (%llu events)\n",
	       span, interval, up, rate, (unsigned long long)ss.events);
	CHECK(strstr(out, "\"clock\":\"trace\""));
	CHECK(interval > span - 0.002 && interval < span + 0.002);
	CHECK(up > span - 0.002 && up < span + 0.002);
	CHECK(rate > ss.events / span * 0.99 && rate < ss.events / span * 1.01);
	free(out);
	app_done(a);

	a = app_fixture("host-sched", false);
	CHECK(a);
	out = run(a);
	CHECK(out);
	{
		char want[64];

		snprintf(want, sizeof(want), "up %.1fs, summary 1, interval %.2fs (trace time)",
			 span, span);
		if (!strstr(out, want))
			printf("# wanted '%s' in:\n%.300s\n", want, out);
		CHECK(strstr(out, want));
	}
	free(out);
	app_done(a);
}

TEST(json_has_the_bpf_section)
{
	struct app *a = app_fixture("host-sched", true);
	char *out;

	CHECK(a);
	out = run(a);
	CHECK(out && strstr(out, ",\"bpf\":{\"error\":\"BPF statistics: not in a snapshot\"}"));
	free(out);
	app_done(a);
}

TEST(summaries_under_a_view)
{
	struct app *a = app_fixture("host-sched", true);
	struct viewfilter_counts vc;
	char *out, *p;
	double events;

	CHECK(a);
	a->view = viewfilter_new(a->st, NULL);
	CHECK(!viewfilter_push(a->view, "comm:cat", NULL));
	CHECK(!viewfilter_push(a->view, "!event:raw_syscalls:sys_exit", NULL));
	viewfilter_update(a->view, 0);
	viewfilter_counts(a->view, &vc);
	CHECK(vc.matched > 0 && vc.matched < vc.held);
	out = run(a);
	CHECK(out);
	events = num(out, "events");
	CHECK_EQ_U64((uint64_t)events, vc.matched);
	CHECK(strstr(out, "\"view\":{\"filter\":\"comm:cat && !event:raw_syscalls:sys_exit\""));
	CHECK(!strstr(out, "\"event\":\"raw_syscalls:sys_exit\""));
	/* every top task is a cat */
	p = strstr(out, "\"top_tasks\":[");
	CHECK(p);
	for (p = strstr(p, "\"comm\":"); p && p < strstr(out, "\"self_hidden\"");
	     p = strstr(p + 1, "\"comm\":"))
		CHECK(!strncmp(p, "\"comm\":\"cat\"", 12));
	free(out);
	app_done(a);
}

TEST_MAIN()
