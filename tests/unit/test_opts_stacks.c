// SPDX-License-Identifier: GPL-2.0-or-later
/* The stack options: --stack, --ustack, -e EVENT:stack / :ustack, --offcpu, --folded. */
#include <errno.h>
#include <string.h>

#include "app/app.h"
#include "formats/folded.h"
#include "app/opts.h"
#include "opts_common.h"
#include "kernel/stacktrig.h"
#include "test.h"

TEST(stack_options_enable_the_event_too)
{
	struct app_opts o;

	CHECK(PARSE(&o, "--stack", "sched:sched_switch", "-e", "irq:softirq_entry:stack",
		    "--ustack", "sched:sched_wakeup", "-e", "block:*:ustack", "-e", "raw_syscalls")
	      == OPTS_RUN);
	CHECK_EQ_U64(o.so.nstacks, 4);
	CHECK_STR(o.so.stacks[0].spec, "sched:sched_switch");
	CHECK(o.so.stacks[0].parts == STACKTRIG_KERN);
	CHECK_STR(o.so.stacks[1].spec, "irq:softirq_entry");
	CHECK(o.so.stacks[1].parts == STACKTRIG_KERN);
	CHECK_STR(o.so.stacks[2].spec, "sched:sched_wakeup");
	CHECK(o.so.stacks[2].parts == (STACKTRIG_KERN | STACKTRIG_USER));
	CHECK_STR(o.so.stacks[3].spec, "block:*");
	CHECK(o.so.stacks[3].parts == (STACKTRIG_KERN | STACKTRIG_USER));
	/* each enabled, the suffix gone */
	CHECK_EQ_U64(o.so.nevents, 5);
	CHECK_STR(o.so.events[0], "sched:sched_switch");
	CHECK_STR(o.so.events[1], "irq:softirq_entry");
	CHECK_STR(o.so.events[3], "block:*");
	CHECK_STR(o.so.events[4], "raw_syscalls");
}

TEST(offcpu_and_folded)
{
	struct app_opts o;

	CHECK(PARSE(&o, "--offcpu", "--folded", "graph-count", "-e", "sched") == OPTS_RUN);
	CHECK(o.offcpu);
	CHECK_STR(o.folded, "graph-count");
	CHECK(folded_source_from_name(o.folded) == FOLDED_GRAPH_COUNT);
	CHECK(folded_source_from_name("events") == FOLDED_EVENTS);
	CHECK(folded_source_from_name("flame") == -1);
}

TEST(stack_refusals_name_the_problem)
{
	struct app_opts o;

	CHECK(PARSE(&o, "--stack", "sched/sched_switch") == -EINVAL);
	CHECK(strstr(err, "--stack") && strstr(err, "sched/sched_switch"));
	CHECK(PARSE(&o, "-e", ":stack") == -EINVAL);
	CHECK(PARSE(&o, "--ustack", "") == -EINVAL);
	CHECK(PARSE(&o, "--folded", "flame") == -EINVAL);
	CHECK(strstr(err, "events, offcpu, graph or graph-count"));
	CHECK(PARSE(&o, "-i", "x.ktop", "--stack", "sched:sched_switch") == -EINVAL);
	CHECK(strstr(err, "-i"));
	CHECK(PARSE(&o, "--demo", "--offcpu") == -EINVAL);
	CHECK(PARSE(&o, "--offcpu", "--no-bpf") == -EINVAL);
	CHECK(strstr(err, "--no-bpf"));
}

TEST_MAIN()
