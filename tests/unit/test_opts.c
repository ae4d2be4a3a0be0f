// SPDX-License-Identifier: GPL-2.0-or-later
/* Command-line parsing: trace-cmd's letters, sizes, lists, and the refusals. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <pcre2.h>
#include <stdio.h>

#include "app/app.h"
#include "app/opts.h"
#include "agg/agg.h"
#include "opts_common.h"
#include "test.h"

TEST(defaults)
{
	struct app_opts o;

	CHECK(PARSE(&o, "--batch") == OPTS_RUN);
	CHECK(o.batch);
	CHECK(!o.json);
	CHECK(o.interval == 1.0);
	CHECK(o.memory == (256u << 20));
	CHECK(o.so.exclude_self);
	CHECK(o.so.tracer == NULL);
	CHECK_EQ_U64(o.so.nevents, 0);
}

TEST(trace_cmd_letters)
{
	struct app_opts o;

	CHECK(PARSE(&o, "-p", "function", "-l", "vfs_*", "-l", "ksys_read", "-n", "schedule",
		    "-e", "sched", "-e", "irq:irq_handler_*", "-P", "12", "-P", "34,56",
		    "-C", "0-1,3", "-b", "4096", "-m", "64M") == OPTS_RUN);
	CHECK_STR(o.so.tracer, "function");
	CHECK_EQ_U64(o.so.nfilters, 2);
	CHECK_STR(o.so.filters[1], "ksys_read");
	CHECK_EQ_U64(o.so.nnotrace, 1);
	CHECK_EQ_U64(o.so.nevents, 2);
	CHECK_STR(o.so.events[1], "irq:irq_handler_*");
	CHECK_EQ_U64(o.so.npids, 3);
	CHECK_EQ_U64(o.so.pids[2], 56);
	CHECK_STR(o.so.cpus, "0-1,3");
	CHECK_EQ_U64(o.so.buffer_kb, 4096);
	CHECK_EQ_U64(o.memory, 64u << 20);
}

/* -e none: the tracer's records only (as rtla), and it is not an event pattern */
TEST(events_none)
{
	struct app_opts o;

	CHECK(PARSE(&o, "-p", "timerlat", "-e", "none") == OPTS_RUN);
	CHECK(o.so.no_events);
	CHECK_EQ_U64(o.so.nevents, 0);
	CHECK(PARSE(&o, "-p", "timerlat") == OPTS_RUN);
	CHECK(!o.so.no_events);
	CHECK(PARSE(&o, "-p", "timerlat", "-e", "none", "-e", "irq") == OPTS_RUN);
	CHECK(o.so.no_events);
	CHECK_EQ_U64(o.so.nevents, 1);
}

TEST(long_names)
{
	struct app_opts o;

	CHECK(PARSE(&o, "--tracer=nop", "--event", "raw_syscalls", "--pid=7", "--cpu", "1",
		    "--buffer-kb", "8", "--memory", "1G", "--json", "--duration", "2.5",
		    "--interval", "0.5", "--iterations", "3", "--force", "--no-bpf",
		    "--theme", "mono") == OPTS_RUN);
	CHECK_STR(o.so.tracer, "nop");
	CHECK(o.json && o.batch);	/* --json implies --batch */
	CHECK(o.duration == 2.5);
	CHECK(o.interval == 0.5);
	CHECK_EQ_U64(o.iterations, 3);
	CHECK(o.so.force);
	CHECK(o.no_bpf);
	CHECK_STR(o.theme, "mono");
	CHECK_EQ_U64(o.memory, 1u << 30);
}

TEST(filters_imply_tracer)
{
	struct app_opts o;

	CHECK(PARSE(&o, "-g", "vfs_read") == OPTS_RUN);
	CHECK_STR(o.so.tracer, "function_graph");
	CHECK(PARSE(&o, "-l", "vfs_read") == OPTS_RUN);
	CHECK_STR(o.so.tracer, "function");
	CHECK(PARSE(&o, "-p", "function", "-g", "vfs_read") == -EINVAL);
	CHECK(strstr(err, "function_graph"));
}

TEST(later_options_parse)
{
	struct app_opts o;

	CHECK(PARSE(&o, "-o", "x.ktop", "--stream") == OPTS_RUN);
	CHECK_STR(o.output, "x.ktop");
	CHECK(o.stream);
	CHECK(PARSE(&o, "-i", "-") == OPTS_RUN);
	CHECK_STR(o.input, "-");
	CHECK(PARSE(&o, "--demo") == OPTS_RUN);
	CHECK(o.demo);
	CHECK(PARSE(&o, "--demo", "-i", "x") == -EINVAL);
}

TEST(help_and_version)
{
	struct app_opts o;

	CHECK(PARSE(&o, "-h") == OPTS_DONE);
	CHECK(PARSE(&o, "--version") == OPTS_DONE);
	CHECK(PARSE(&o, "-V") == OPTS_DONE);
}

TEST(refusals_name_the_problem)
{
	struct app_opts o;

	CHECK(PARSE(&o, "--bogus") == -EINVAL);
	CHECK(strstr(err, "--bogus"));
	CHECK(PARSE(&o, "-Z") == -EINVAL);
	CHECK(strstr(err, "-Z"));
	CHECK(PARSE(&o, "-p") == -EINVAL);
	CHECK(strstr(err, "-p") && strstr(err, "argument"));
	CHECK(PARSE(&o, "--interval") == -EINVAL);
	CHECK(strstr(err, "--interval"));
	CHECK(PARSE(&o, "stray") == -EINVAL);
	CHECK(strstr(err, "stray"));
	CHECK(PARSE(&o, "-b", "0") == -EINVAL);
	CHECK(PARSE(&o, "-b", "-4") == -EINVAL);
	CHECK(PARSE(&o, "-b", "4k") == -EINVAL);
	CHECK(PARSE(&o, "-m", "512") == -EINVAL);	/* bytes: below the minimum */
	CHECK(strstr(err, "512M"));
	CHECK(PARSE(&o, "-m", "12X") == -EINVAL);
	CHECK(PARSE(&o, "-P", "abc") == -EINVAL);
	CHECK(PARSE(&o, "-P", "0") == -EINVAL);
	CHECK(PARSE(&o, "-C", "1-0") == -EINVAL);
	CHECK(PARSE(&o, "-C", "a") == -EINVAL);
	CHECK(PARSE(&o, "--duration", "0") == -EINVAL);
	CHECK(PARSE(&o, "--duration", "x") == -EINVAL);
	CHECK(PARSE(&o, "--iterations", "-1") == -EINVAL);
	CHECK(PARSE(&o, "-e", "") == -EINVAL);
	CHECK(PARSE(&o, "-e", "a b") == -EINVAL);
	CHECK(PARSE(&o, "-p", "") == -EINVAL);
}

/*
 * Issue 18 #3.14: -l, -n, -g take the filter prompt's language; a broken
 * regex is refused before anything is traced, named as a regex error with
 * its column in the option's argument and pcre2's own message.
 */
TEST(function_filters_in_the_prompts_language)
{
	static const char *const bad[] = { "/^vfs_(read/", "/a[b/", "/x{2,1}/" };
	struct app_opts o;

	CHECK(PARSE(&o, "-l", "/^vfs_(read|write)$/", "-n", "!*rcu* /lock$/", "-l", "tcp_*",
		    "-g", "/^do_sys_open/") == OPTS_RUN);
	CHECK_EQ_U64(o.so.nfilters, 2);
	CHECK_STR(o.so.filters[0], "/^vfs_(read|write)$/");
	CHECK_STR(o.so.notrace[0], "!*rcu* /lock$/");
	CHECK_STR(o.so.tracer, "function_graph");
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *opt[] = { "-l", "-n", "-g" };
		PCRE2_UCHAR msg[256];
		PCRE2_SIZE off;
		char col[32];
		int ec;
		pcre2_code *re = pcre2_compile((PCRE2_SPTR)bad[i] + 1, strlen(bad[i]) - 2, 0, &ec,
					       &off, NULL);

		CHECK(re == NULL);
		pcre2_get_error_message(ec, msg, sizeof(msg));
		/* the column in the argument, 1-based: after its opening '/' */
		snprintf(col, sizeof(col), "column %d", (int)off + 2);
		CHECK(PARSE(&o, "-p", "function_graph", opt[i], bad[i]) == -EINVAL);
		if (!strstr(err, "regex") || !strstr(err, col) || !strstr(err, (char *)msg) ||
		    !strstr(err, bad[i]) || !strstr(err, opt[i]))
			printf("  %s '%s': \"%s\" (want %s, %s)\n", opt[i], bad[i], err, col,
			       (char *)msg);
		CHECK(strstr(err, "regex") && strstr(err, col) && strstr(err, (char *)msg));
		CHECK(strstr(err, bad[i]) && strstr(err, opt[i]));
	}
	/* unbalanced, and what belongs to other options */
	CHECK(PARSE(&o, "-l", "/^vfs_read") == -EINVAL);
	CHECK(strstr(err, "-l") && strstr(err, "regex"));
	CHECK(PARSE(&o, "-l", "pid:12") == -EINVAL);
	CHECK(strstr(err, "-P"));
	CHECK(PARSE(&o, "-n", "+ vfs_*") == -EINVAL);
	CHECK(PARSE(&o, "-l", "sched_switch: prev_pid == 1") == -EINVAL);
	CHECK(PARSE(&o, "-l", "") == -EINVAL);
}

TEST(parse_twice)
{
	struct app_opts o;

	/* getopt keeps state between calls; opts_parse must reset it */
	CHECK(PARSE(&o, "-e", "sched") == OPTS_RUN);
	CHECK(PARSE(&o, "-e", "irq") == OPTS_RUN);
	CHECK_STR(o.so.events[0], "irq");
	CHECK_EQ_U64(o.so.nevents, 1);
}

TEST(aggregations)
{
	struct app_opts o;

	CHECK(PARSE(&o, "--latency", "a:b -> a:c", "--hist", "a:b key=x", "--sql", "SELECT 1",
		    "--agg-engine", "both") == OPTS_RUN);
	CHECK_EQ_U64(o.naggs, 3);
	CHECK_STR(o.aggs[1], "a:b key=x");
	CHECK(o.agg_kind[0] == APP_AGG_LATENCY && o.agg_kind[1] == APP_AGG_HIST &&
	      o.agg_kind[2] == APP_AGG_SQL);
	CHECK(o.agg_engine == AGG_ENGINE_BOTH);
	/* what says what to trace goes to the far side */
	CHECK(PARSE(&o, "--remote", "h", "--latency", "a:b -> a:c") == OPTS_RUN);
	CHECK_EQ_U64(o.remote.nfwd, 1);
	CHECK_STR(o.remote.fwd_name[0], "latency");
	CHECK(PARSE(&o, "--agg-engine", "kernel") == -EINVAL);
	CHECK(strstr(err, "auto, hist, bpf or both, not 'kernel'"));
	CHECK(PARSE(&o, "-i", "x.ktop", "--hist", "a:b key=x") == -EINVAL);
	CHECK(strstr(err, "--hist measures in the live kernel"));
	CHECK(PARSE(&o, "--latency", "") == -EINVAL);
}

TEST(sizes)
{
	size_t v;

	CHECK(opts_parse_size("4096", &v) == 0);
	CHECK_EQ_U64(v, 4096);
	CHECK(opts_parse_size("64k", &v) == 0);
	CHECK_EQ_U64(v, 64u << 10);
	CHECK(opts_parse_size("256M", &v) == 0);
	CHECK_EQ_U64(v, 256u << 20);
	CHECK(opts_parse_size("256MiB", &v) == 0);
	CHECK_EQ_U64(v, 256u << 20);
	CHECK(opts_parse_size("2G", &v) == 0);
	CHECK_EQ_U64(v, 2ull << 30);
	CHECK(opts_parse_size("", &v) == -EINVAL);
	CHECK(opts_parse_size("M", &v) == -EINVAL);
	CHECK(opts_parse_size("-1M", &v) == -EINVAL);
	CHECK(opts_parse_size("1MX", &v) == -EINVAL);
	CHECK(opts_parse_size("99999999999999999999", &v) == -EINVAL);
	CHECK(opts_parse_size("99999999999G", &v) == -EINVAL);
}

TEST(cpulists)
{
	CHECK(opts_check_cpulist("0") == 0);
	CHECK(opts_check_cpulist("0-3,6,8-9") == 0);
	CHECK(opts_check_cpulist("") == -EINVAL);
	CHECK(opts_check_cpulist("0,") == -EINVAL);
	CHECK(opts_check_cpulist("3-1") == -EINVAL);
	CHECK(opts_check_cpulist("-1") == -EINVAL);
	CHECK(opts_check_cpulist("1-") == -EINVAL);
}

TEST_MAIN()
