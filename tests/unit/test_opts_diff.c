// SPDX-License-Identifier: GPL-2.0-or-later
/* --diff NEW: parsed, and its combinations refused with the reason. */
#include <stdio.h>
#include <string.h>

#include "app/app.h"
#include "app/opts.h"
#include "opts_common.h"
#include "test.h"

TEST(diff_options)
{
	struct app_opts o;

	CHECK(PARSE(&o, "-i", "base.ktop", "--diff", "new.dat", "--json") == OPTS_RUN);
	CHECK_STR(o.input, "base.ktop");
	CHECK_STR(o.diff, "new.dat");
	CHECK(!opts_diff_live(&o));
	/* a folded diff, of the events' stacks or of the graph's paths */
	CHECK(PARSE(&o, "-i", "b.ktop", "--diff", "n.ktop", "--batch", "-o", "d.folded",
		    "--folded", "graph") == OPTS_RUN);
	CHECK_STR(o.output, "d.folded");
	/* live: what to trace is NEW's */
	CHECK(PARSE(&o, "-i", "b.ktop", "--diff", "live", "-e", "sched", "--net", "--batch",
		    "-F", "comm:bash") == OPTS_RUN);
	CHECK(opts_diff_live(&o));
	CHECK_EQ_U64(o.so.nevents, 1);
	CHECK(PARSE(&o, "-i", "b.ktop", "--diff", "./live", "--batch") == OPTS_RUN);
	CHECK(!opts_diff_live(&o));
}

TEST(diff_refusals)
{
	struct app_opts o;

	CHECK(PARSE(&o, "--diff", "new.ktop", "--batch") < 0);
	CHECK(strstr(err, "-i BASE --diff new.ktop"));
	CHECK(PARSE(&o, "-i", "-", "--diff", "new.ktop") < 0);
	CHECK(strstr(err, "save the stream first"));
	CHECK(PARSE(&o, "-i", "b.ktop", "--diff", "n.ktop", "-o", "x.ktop") < 0);
	CHECK(strstr(err, "-o FILE.folded"));
	CHECK(PARSE(&o, "-i", "b.ktop", "--diff", "n.ktop", "-e", "sched") < 0);
	CHECK(strstr(err, "--diff live only"));
	CHECK(PARSE(&o, "-i", "b.ktop", "--diff", "n.ktop", "-o", "x.folded", "--folded",
		    "offcpu") < 0);
	CHECK(strstr(err, "events") && strstr(err, "graph"));
	CHECK(PARSE(&o, "-i", "b.ktop", "--diff", "live", "--save-on", "lost") < 0);
	CHECK(strstr(err, "--save-on"));
	CHECK(PARSE(&o, "-i", "b.ktop", "--diff", "") < 0);
	CHECK(strstr(err, "--diff wants"));
}

TEST_MAIN()
