// SPDX-License-Identifier: GPL-2.0-or-later
/* --net and --net=probe (issue 25): what they ask for, and what they refuse. */
#include <errno.h>
#include <string.h>

#include "app/app.h"
#include "app/opts.h"
#include "opts_common.h"
#include "test.h"

TEST(net_and_probe)
{
	struct app_opts o;

	CHECK(PARSE(&o, "--net") == OPTS_RUN);
	CHECK(o.net == APP_NET_ON);
	CHECK_EQ_U64(o.so.nevents, 0);	/* the live source picks them from the kernel's */
	CHECK(PARSE(&o, "--net=probe", "-e", "sched:sched_switch") == OPTS_RUN);
	CHECK(o.net == APP_NET_PROBE);
	CHECK_EQ_U64(o.so.nevents, 1);
	/* the far side traces: --remote takes it along as written */
	CHECK(PARSE(&o, "--remote", "host", "--net=probe") == OPTS_RUN);
	CHECK_EQ_U64(o.remote.nfwd, 1);
	CHECK_STR(o.remote.fwd_name[0], "net");
	CHECK_STR(o.remote.fwd_arg[0], "probe");
	CHECK(PARSE(&o, "--remote", "host", "--net") == OPTS_RUN);
	CHECK(!o.remote.fwd_arg[0]);
}

TEST(net_refusals_name_the_problem)
{
	struct app_opts o;

	CHECK(PARSE(&o, "--net=all") == -EINVAL);
	CHECK(strstr(err, "--net") && strstr(err, "'all'") && strstr(err, "=probe"));
	CHECK(PARSE(&o, "--net", "probe") == -EINVAL);	/* no separate argument */
	CHECK(strstr(err, "'probe'"));
	CHECK(PARSE(&o, "-i", "x.ktop", "--net") == -EINVAL);
	CHECK(strstr(err, "-i") && strstr(err, "Net pane"));
	CHECK(PARSE(&o, "--demo", "--net=probe") == -EINVAL);
}

TEST_MAIN()
