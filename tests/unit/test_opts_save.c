// SPDX-License-Identifier: GPL-2.0-or-later
/* --save-on and its settings (the flight recorder): parsed, defaulted, refused with the reason. */
#include <errno.h>
#include <stdio.h>

#include "app/app.h"
#include "app/opts.h"
#include "opts_common.h"
#include "test.h"

TEST(save_options)
{
	struct app_opts o;

	CHECK(PARSE(&o, "--batch", "--save-on", "sched:sched_process_exec comm ~ \"pg*\"",
		    "--save-on", "timerlat > 100us", "-o", "cap-%t-%n.dat", "--save-before", "2.5",
		    "--save-after", "0", "--save-max", "7", "--save-gap", "30",
		    "-F", "cpu:0", "--dat-version", "6") == OPTS_RUN);
	CHECK_EQ_U64(o.rec.nconds, 2);
	CHECK_STR(o.rec.conds[1], "timerlat > 100us");
	/* -o is the saves' name pattern, not a file written on exit */
	CHECK_STR(o.rec.pattern, "cap-%t-%n.dat");
	CHECK(!o.output);
	CHECK_EQ_U64(o.rec.before_ns, 2500000000ull);
	CHECK_EQ_U64(o.rec.after_ns, 0);
	CHECK_EQ_U64(o.rec.max, 7);
	CHECK_EQ_U64(o.rec.gap_ns, 30000000000ull);
	CHECK_EQ_U64(o.rec.nviews, 1);
	CHECK_EQ_U64(o.rec.dat_version, 6);
	/* the defaults: 10 s before, 1 s after, 100 files, no gap, ktop-%t-%n.ktop */
	CHECK(PARSE(&o, "--save-on", "lost") == OPTS_RUN);
	CHECK_EQ_U64(o.rec.before_ns, 10000000000ull);
	CHECK_EQ_U64(o.rec.after_ns, 1000000000ull);
	CHECK_EQ_U64(o.rec.max, 100);
	CHECK_EQ_U64(o.rec.gap_ns, 0);
	CHECK(!o.rec.pattern);
	CHECK(PARSE(&o, "-o", "x.ktop") == OPTS_RUN);
	CHECK_STR(o.output, "x.ktop");
	CHECK(!o.rec.nconds);
}

TEST(save_refusals)
{
	struct app_opts o;

	CHECK(PARSE(&o, "--save-on", "timerlat > soon") == -EINVAL);
	CHECK(strstr(err, "--save-on 'timerlat > soon': 'soon' is not a duration"));
	CHECK(PARSE(&o, "--save-on", "lost", "-o", "cap.ktop") == -EINVAL);
	CHECK(strstr(err, "every save would get this one name"));
	CHECK(PARSE(&o, "--save-on", "lost", "-o", "cap.ktop", "--save-max", "1") == OPTS_RUN);
	CHECK(PARSE(&o, "--save-after", "2") == -EINVAL);
	CHECK(strstr(err, "are settings of --save-on"));
	CHECK(PARSE(&o, "--save-on", "lost", "--save-before", "-1") == -EINVAL);
	CHECK(strstr(err, "--save-before wants a number of seconds >= 0"));
	CHECK(PARSE(&o, "--save-on", "lost", "--save-max", "x") == -EINVAL);
	CHECK(PARSE(&o, "-i", "x.ktop", "--save-on", "lost") == -EINVAL);
	CHECK(strstr(err, "--save-on watches a live session"));
	CHECK(PARSE(&o, "--save-on", "lost", "-o", "-") == -EINVAL);
	CHECK(strstr(err, "not standard output"));
}

TEST_MAIN()
