// SPDX-License-Identifier: GPL-2.0-or-later
/* --view/-F and --hide-self, and -m's suggestion (issue 18 #16: "-m 10K" suggested "10KM"). */
#include <errno.h>
#include <stdio.h>

#include "app/app.h"
#include "app/opts.h"
#include "opts_common.h"
#include "test.h"

TEST(view_options)
{
	struct app_opts o;

	CHECK(PARSE(&o, "--batch", "-F", "pid:12+", "--view", "prev_state & 2",
		    "--view", "sched_switch: next_comm ~ \"kworker*\"", "--hide-self") == OPTS_RUN);
	CHECK_EQ_U64(o.nviews, 3);
	CHECK_STR(o.views[0], "pid:12+");
	CHECK_STR(o.views[2], "sched_switch: next_comm ~ \"kworker*\"");
	CHECK(o.hide_self);
	CHECK(PARSE(&o, "--batch") == OPTS_RUN);
	CHECK(!o.hide_self && !o.nviews);
	CHECK(PARSE(&o, "--json", "-F", "cpu:0") == OPTS_RUN);
	/* the interactive view starts narrowed; a stream sends every event */
	CHECK(PARSE(&o, "-F", "cpu:0") == OPTS_RUN);
	CHECK_EQ_U64(o.nviews, 1);
	CHECK(PARSE(&o, "-i", "x.ktop", "-F", "pid:1+", "-F", "cpu:1") == OPTS_RUN);
	CHECK_EQ_U64(o.nviews, 2);
	CHECK(PARSE(&o, "--stream", "--batch", "-F", "cpu:0") == -EINVAL);
	CHECK(strstr(err, "--view does not apply to --stream"));
}

/* The syntax is refused before anything starts, with a caret under the problem. */
TEST(view_syntax_errors)
{
	struct app_opts o;

	CHECK(PARSE(&o, "--batch", "-F", "prev_state & 2 &&") == -EINVAL);
	CHECK(strstr(err, "--view: expected a field name at the end (at column 18)"));
	CHECK(strstr(err, "\n  prev_state & 2 &&\n                   ^"));
	CHECK(PARSE(&o, "--batch", "--view", "cpu:1-x") == -EINVAL);
	CHECK(strstr(err, "cpu: wants a CPU list"));
	CHECK(PARSE(&o, "-F") == -EINVAL);
	CHECK(strstr(err, "needs an argument"));
}

TEST(memory_suggestion)
{
	struct app_opts o;

	CHECK(PARSE(&o, "-m", "10K") == -EINVAL);
	CHECK(strstr(err, "did you mean 10M?"));
	CHECK(PARSE(&o, "-m", "512") == -EINVAL);
	CHECK(strstr(err, "did you mean 512M?"));
	CHECK(PARSE(&o, "-m", "100KiB") == -EINVAL);
	CHECK(strstr(err, "did you mean 100M?"));
}

TEST_MAIN()
