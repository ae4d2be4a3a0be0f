// SPDX-License-Identifier: GPL-2.0-or-later
/* The tracer settings of the command line (issues 5 and 6): function_graph's
 * --max-depth, --[no-]funcgraph-irqs/-tail, --thresh, and -O NAME=VALUE. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "app/app.h"
#include "app/opts.h"
#include "opts_common.h"
#include "kernel/session.h"
#include "test.h"

TEST(defaults_leave_the_kernel_alone)
{
	struct app_opts o;

	CHECK(PARSE(&o, "-p", "function_graph") == OPTS_RUN);
	CHECK(!o.so.max_depth_set);
	CHECK(!o.so.thresh_set);
	CHECK(o.so.funcgraph_irqs == SESSION_OPT_KEEP);
	CHECK(o.so.funcgraph_tail == SESSION_OPT_KEEP);
	CHECK_EQ_U64(o.so.ntracer_opts, 0);
}

TEST(funcgraph_settings)
{
	struct app_opts o;

	CHECK(PARSE(&o, "-g", "vfs_read", "--max-depth", "0", "--thresh", "25",
		    "--no-funcgraph-irqs", "--funcgraph-tail") == OPTS_RUN);
	CHECK_STR(o.so.tracer, "function_graph");
	CHECK(o.so.max_depth_set);
	CHECK_EQ_U64(o.so.max_depth, 0);
	CHECK(o.so.thresh_set);
	CHECK_EQ_U64(o.so.thresh_us, 25);
	CHECK(o.so.funcgraph_irqs == SESSION_OPT_OFF);
	CHECK(o.so.funcgraph_tail == SESSION_OPT_ON);
	CHECK(PARSE(&o, "--funcgraph-irqs", "--no-funcgraph-tail") == OPTS_RUN);
	CHECK(o.so.funcgraph_irqs == SESSION_OPT_ON);
	CHECK(o.so.funcgraph_tail == SESSION_OPT_OFF);
}

TEST(funcgraph_bad_numbers)
{
	struct app_opts o;

	CHECK(PARSE(&o, "--max-depth", "-1") == -EINVAL);
	CHECK(strstr(err, "--max-depth") != NULL);
	CHECK(PARSE(&o, "--max-depth", "3x") == -EINVAL);
	CHECK(PARSE(&o, "--thresh", "") == -EINVAL);
	CHECK(strstr(err, "microseconds") != NULL);
	CHECK(PARSE(&o, "--thresh", "99999999999999") == -EINVAL);
}

TEST(tracer_options)
{
	struct app_opts o;

	CHECK(PARSE(&o, "-p", "osnoise", "-O", "period_us=200000", "--tracer-option",
		    "runtime_us=100000") == OPTS_RUN);
	CHECK_EQ_U64(o.so.ntracer_opts, 2);
	CHECK_STR(o.so.tracer_opts[0], "period_us=200000");
	CHECK_STR(o.so.tracer_opts[1], "runtime_us=100000");
	CHECK(PARSE(&o, "-p", "timerlat", "-O", "timerlat_period_us") == -EINVAL);
	CHECK(strstr(err, "NAME=VALUE") != NULL);
	CHECK(PARSE(&o, "-p", "timerlat", "-O", "=5") == -EINVAL);
	CHECK(PARSE(&o, "-p", "timerlat", "-O", "period=5") == -EINVAL);
	CHECK(strstr(err, "unknown setting") != NULL);
	CHECK(strstr(err, "timerlat_period_us") != NULL);
	CHECK(PARSE(&o, "-p", "timerlat", "-O", "period_us_x=5") == -EINVAL);
	CHECK(PARSE(&o, "-p", "timerlat", "-O", "cpus=0-1") == OPTS_RUN);
}

/* The names -O accepts are exactly the files of the kernel's osnoise/ directory
 * that issue 6 lists. */
TEST(osnoise_file_names)
{
	static const char *const want[] = { "period_us", "runtime_us", "stop_tracing_us",
		"stop_tracing_total_us", "timerlat_period_us", "print_stack", "cpus" };
	unsigned int n = 0;

	for (; session_osnoise_files[n]; n++)
		;
	CHECK_EQ_U64(n, sizeof(want) / sizeof(want[0]));
	for (unsigned int i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		bool found = false;

		for (unsigned int k = 0; k < n; k++)
			found |= !strcmp(session_osnoise_files[k], want[i]);
		CHECK(found);
	}
}

TEST_MAIN()
