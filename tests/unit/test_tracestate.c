// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/kernel/tracestate.c on a directory laid out like tracefs (no root needed):
 * normalisation, diff, restore, the blind restore, save/load.
 *
 * The file contents below are what this host's kernel (6.18) prints in
 * those files (copied from `cat`), not what tracestate.c produces.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_tracefs.h"
#include "test.h"
#include "kernel/tracestate.h"

static void make_tree(void)
{
	if (fake_root[0] && fake_remove())
		perror("rm");
	snprintf(fake_root, sizeof(fake_root), "/tmp/ktop-unit-ts.XXXXXX");
	if (!mkdtemp(fake_root))
		abort();
	fake_put("tracing_on", "1\n");
	fake_put("current_tracer", "nop\n");
	fake_put("trace_clock",
		 "[local] global counter uptime perf mono mono_raw boot tai x86-tsc\n");
	fake_put("buffer_percent", "50\n");
	fake_put("buffer_size_kb", "7 (expanded: 1408)\n");
	fake_put("per_cpu/cpu0/buffer_size_kb", "7\n");
	fake_put("per_cpu/cpu1/buffer_size_kb", "7\n");
	fake_put("tracing_cpumask", "3\n");
	fake_put("set_event", "");
	fake_put("set_event_pid", "");
	fake_put("set_ftrace_pid", "no pid\n");
	fake_put("options/raw", "0\n");
	fake_put("options/overwrite", "1\n");
	fake_put("events/sched/sched_switch/enable", "0\n");
	fake_put("events/sched/sched_switch/filter", "none\n");
	fake_put("events/sched/sched_switch/trigger",
	    "# Available triggers:\n# traceon traceoff snapshot stacktrace enable_event\n");
	fake_put("events/irq/irq_handler_entry/enable", "1\n");
	fake_put("events/irq/irq_handler_entry/filter", "irq == 5\n");
	fake_put("events/irq/irq_handler_entry/trigger", "# Available triggers:\n");
	fake_put("instances/other/tracing_on", "1\n");
}

TEST(capture_normalises)
{
	struct tracestate *ts;

	make_tree();
	ts = tracestate_capture(fake_root, 0);
	CHECK(ts);
	CHECK_STR(tracestate_get(ts, "tracing_on"), "1");
	CHECK_STR(tracestate_get(ts, "trace_clock"), "local");
	CHECK_STR(tracestate_get(ts, "buffer_size_kb"), "1408");
	/* not yet expanded: the per-CPU size it will have */
	CHECK_STR(tracestate_get(ts, "per_cpu/cpu1/buffer_size_kb"), "1408");
	CHECK_STR(tracestate_get(ts, "set_ftrace_pid"), "");
	CHECK_STR(tracestate_get(ts, "options/overwrite"), "1");
	CHECK_STR(tracestate_get(ts, "instances"), "other");
	/* event files only when not at their default */
	CHECK(!tracestate_get(ts, "events/sched/sched_switch/enable"));
	CHECK(!tracestate_get(ts, "events/sched/sched_switch/filter"));
	CHECK(!tracestate_get(ts, "events/sched/sched_switch/trigger"));
	CHECK_STR(tracestate_get(ts, "events/irq/irq_handler_entry/enable"), "1");
	CHECK_STR(tracestate_get(ts, "events/irq/irq_handler_entry/filter"), "irq == 5");
	/* files that do not exist are left out */
	CHECK(!tracestate_get(ts, "set_graph_function"));
	tracestate_free(ts);

	ts = tracestate_capture(fake_root, TRACESTATE_NO_EVENTS | TRACESTATE_NO_INSTANCES);
	CHECK(ts);
	CHECK(!tracestate_get(ts, "events/irq/irq_handler_entry/enable"));
	CHECK(!tracestate_get(ts, "instances"));
	tracestate_free(ts);
}

/* A set trigger is captured, unless asked not to; enable and filter still are. */
TEST(capture_no_triggers)
{
	struct tracestate *ts;

	make_tree();
	fake_put("events/irq/irq_handler_entry/trigger", "traceoff:unlimited\n");
	ts = tracestate_capture(fake_root, 0);
	CHECK(ts);
	CHECK_STR(tracestate_get(ts, "events/irq/irq_handler_entry/trigger"),
		  "traceoff:unlimited");
	tracestate_free(ts);
	ts = tracestate_capture(fake_root, TRACESTATE_NO_TRIGGERS);
	CHECK(ts);
	CHECK(!tracestate_get(ts, "events/irq/irq_handler_entry/trigger"));
	CHECK_STR(tracestate_get(ts, "events/irq/irq_handler_entry/enable"), "1");
	CHECK_STR(tracestate_get(ts, "events/irq/irq_handler_entry/filter"), "irq == 5");
	tracestate_free(ts);
}

TEST(capture_missing_dir)
{
	CHECK(!tracestate_capture("/nonexistent/ktop", 0));
	CHECK(errno == ENOENT);
}

TEST(diff_counts_each_change)
{
	struct tracestate *a, *b;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;
	int n;

	make_tree();
	a = tracestate_capture(fake_root, 0);
	CHECK(a);
	fake_put("current_tracer", "function\n");
	fake_put("options/raw", "1\n");
	fake_put("events/sched/sched_switch/enable", "1\n");		/* absent -> "1" */
	fake_put("events/irq/irq_handler_entry/filter", "none\n");	/* "irq == 5" -> absent */
	fake_put("tracing_on", "0\n");
	b = tracestate_capture(fake_root, 0);
	CHECK(b);
	fp = open_memstream(&buf, &len);
	n = tracestate_diff(a, b, fp, NULL);
	fclose(fp);
	CHECK_EQ_U64(n, 5);
	CHECK(strstr(buf, "current_tracer: 'nop' -> 'function'"));
	CHECK(strstr(buf, "events/sched/sched_switch/enable: '0' -> '1'"));
	CHECK(strstr(buf, "events/irq/irq_handler_entry/filter: 'irq == 5' -> 'none'"));
	free(buf);
	CHECK_EQ_U64(tracestate_diff(b, a, NULL, NULL), 5);
	CHECK_EQ_U64(tracestate_diff(a, a, NULL, NULL), 0);
	{
		static const char *const ign[] = { "options/", "events/", NULL };

		CHECK_EQ_U64(tracestate_diff(a, b, NULL, ign), 2);
	}
	tracestate_free(a);
	tracestate_free(b);
}

/* A file a test changes, and what a restore must leave in it. */
struct change {
	const char	*file;
	const char	*changed;	/* written after the capture */
	const char	*restored;	/* read after the restore */
};

/*
 * On a new tree: capture, write @ch's changes (up to one with a NULL file),
 * restore with @restore, and check that each file is back and a new capture
 * equals the first. Prints what differs. Return: true when all is back.
 */
static bool restores(int (*restore)(const struct tracestate *), const struct change *ch)
{
	struct tracestate *a, *b = NULL;
	bool back = false;
	const char *got;
	int i;

	make_tree();
	a = tracestate_capture(fake_root, 0);
	if (!a)
		return false;
	for (i = 0; ch[i].file; i++)
		fake_put(ch[i].file, ch[i].changed);
	if (restore(a)) {
		printf("restore failed\n");
		goto out;
	}
	for (i = 0; ch[i].file; i++) {
		got = fake_get(ch[i].file);
		if (!got || strcmp(got, ch[i].restored)) {
			printf("%s: \"%s\", not \"%s\"\n", ch[i].file, got ? got : "(absent)",
			       ch[i].restored);
			goto out;
		}
	}
	b = tracestate_capture(fake_root, 0);
	back = b && tracestate_diff(a, b, stderr, NULL) == 0;
out:
	tracestate_free(a);
	tracestate_free(b);
	return back;
}

TEST(restore_writes_only_differences)
{
	static const struct change ch[] = {
		{ "current_tracer", "function\n", "nop" },
		{ "set_event", "sched:sched_switch\nirq:irq_handler_entry\n", "" },
		{ "events/sched/sched_switch/enable", "1\n", "0" },
		{ "events/irq/irq_handler_entry/filter", "none\n", "irq == 5" },
		{ "options/raw", "1\n", "0" },
		{ "tracing_on", "0\n", "1" },
		{ NULL, NULL, NULL }
	};

	CHECK(restores(tracestate_restore, ch));
	/* equal ones untouched: the kernel's decorated text is still there */
	CHECK_STR(fake_get("trace_clock"),
		  "[local] global counter uptime perf mono mono_raw boot tai x86-tsc\n");
	CHECK_STR(fake_get("buffer_size_kb"), "7 (expanded: 1408)\n");
}

TEST(restore_blind)
{
	static const struct change ch[] = {
		{ "current_tracer", "function\n", "nop" },
		{ "set_event", "sched:sched_switch\n", "" },
		{ "set_event_pid", "42\n", "" },
		{ "tracing_cpumask", "1\n", "3" },
		{ "tracing_on", "0\n", "1" },
		{ NULL, NULL, NULL }
	};

	CHECK(restores(tracestate_restore_blind, ch));
}

TEST(save_load_round_trip)
{
	struct tracestate *a, *b;
	char path[300];

	make_tree();
	/* content with newlines, tabs and backslashes survives */
	fake_put("set_event", "sched:sched_switch\nirq:irq_handler_entry\n");
	fake_put("events/irq/irq_handler_entry/filter", "name ~ \"a\\\\b\tc\"\n");
	a = tracestate_capture(fake_root, 0);
	CHECK(a);
	snprintf(path, sizeof(path), "%s.state", fake_root);
	CHECK_EQ_U64(tracestate_save(a, path), 0);
	b = tracestate_load(path);
	CHECK(b);
	CHECK_STR(tracestate_dir(b), fake_root);
	CHECK_EQ_U64(tracestate_count(b), tracestate_count(a));
	CHECK_EQ_U64(tracestate_diff(a, b, stderr, NULL), 0);
	CHECK_STR(tracestate_get(b, "set_event"), "sched:sched_switch\nirq:irq_handler_entry");
	CHECK_STR(tracestate_get(b, "events/irq/irq_handler_entry/filter"),
		  "name ~ \"a\\\\b\tc\"");

	/* a loaded state restores like a captured one */
	fake_put("set_event", "");
	fake_put("current_tracer", "blk\n");
	CHECK_EQ_U64(tracestate_restore(b), 0);
	/* one write per item, each ended by a newline */
	CHECK_STR(fake_get("set_event"), "sched:sched_switch\nirq:irq_handler_entry\n");
	CHECK_STR(fake_get("current_tracer"), "nop");
	unlink(path);
	tracestate_free(a);
	tracestate_free(b);
}

/*
 * The tests' raw captures keep what the kernel shows: the allocation of a
 * fresh boot's top-level buffer ("7 (expanded: 1408)" -> "1410") is a
 * difference, where the normalised capture saw 1408 and, once allocated,
 * 1410 and missed that the buffer had been allocated at all.
 */
TEST(raw_keeps_what_the_kernel_shows)
{
	struct tracestate *a, *b, *l;
	char path[300];

	make_tree();
	fake_put("buffer_total_size_kb", "14 (expanded: 2816)\n");
	a = tracestate_capture(fake_root, TRACESTATE_RAW);
	CHECK(a);
	CHECK(tracestate_is_raw(a));
	CHECK_STR(tracestate_get(a, "buffer_size_kb"), "7 (expanded: 1408)\n");
	CHECK_STR(tracestate_get(a, "per_cpu/cpu1/buffer_size_kb"), "7\n");
	CHECK_STR(tracestate_get(a, "buffer_total_size_kb"), "14 (expanded: 2816)\n");
	CHECK_STR(tracestate_get(a, "trace_clock"),
		  "[local] global counter uptime perf mono mono_raw boot tai x86-tsc\n");
	CHECK_STR(tracestate_get(a, "set_ftrace_pid"), "no pid\n");
	/* event files at their default are still left out; the others are raw */
	CHECK(!tracestate_get(a, "events/sched/sched_switch/enable"));
	CHECK(!tracestate_get(a, "events/sched/sched_switch/trigger"));
	CHECK_STR(tracestate_get(a, "events/irq/irq_handler_entry/filter"), "irq == 5\n");

	/* what the first write of the top-level current_tracer leaves on 6.1/6.18 */
	fake_put("buffer_size_kb", "1410\n");
	fake_put("per_cpu/cpu0/buffer_size_kb", "1410\n");
	fake_put("per_cpu/cpu1/buffer_size_kb", "1410\n");
	fake_put("buffer_total_size_kb", "2820\n");
	b = tracestate_capture(fake_root, TRACESTATE_RAW);
	CHECK(b);
	CHECK_EQ_U64(tracestate_diff(a, b, NULL, NULL), 4);
	tracestate_free(b);
	b = tracestate_capture(fake_root, 0);
	CHECK(b);
	CHECK(!tracestate_is_raw(b));
	CHECK_STR(tracestate_get(b, "buffer_size_kb"), "1410");

	/* saved and loaded as raw; never written back */
	snprintf(path, sizeof(path), "%s.raw", fake_root);
	CHECK_EQ_U64(tracestate_save(a, path), 0);
	l = tracestate_load(path);
	CHECK(l);
	CHECK(tracestate_is_raw(l));
	CHECK_EQ_U64(tracestate_diff(a, l, stderr, NULL), 0);
	CHECK(tracestate_restore(l) == -EINVAL);
	CHECK(tracestate_restore_blind(l) > 0);
	CHECK_STR(fake_get("buffer_size_kb"), "1410\n");
	unlink(path);
	tracestate_free(l);
	tracestate_free(a);
	tracestate_free(b);
}

TEST(load_rejects_garbage)
{
	char path[300];
	FILE *fp;

	snprintf(path, sizeof(path), "/tmp/ktop-unit-ts-bad.%d", getpid());
	fp = fopen(path, "w");
	CHECK(fp);
	fputs("not a state file\n", fp);
	fclose(fp);
	CHECK(!tracestate_load(path));
	CHECK(errno == EINVAL);
	unlink(path);
}

/* @text as a state file; loaded back. */
static struct tracestate *load_text(const char *text)
{
	char path[300];
	struct tracestate *ts;
	FILE *fp;

	snprintf(path, sizeof(path), "/tmp/ktop-unit-ts-check.%d", getpid());
	fp = fopen(path, "w");
	if (!fp)
		return NULL;
	fputs(text, fp);
	fclose(fp);
	ts = tracestate_load(path);
	unlink(path);
	return ts;
}

TEST(check_dir_accepts_only_files_inside)
{
	char text[1024], why[512] = "", link[600];
	struct tracestate *ts;

	make_tree();
	/* what ktop itself saves passes */
	ts = tracestate_capture(fake_root, 0);
	CHECK(ts);
	CHECK_EQ_U64(tracestate_check_dir(ts, fake_root, why, sizeof(why)), 0);
	tracestate_free(ts);
	/* another directory */
	ts = load_text("ktop-tracestate 1\ndir\t/tmp\n000\ttracing_thresh\t1\n");
	CHECK(ts);
	CHECK(tracestate_check_dir(ts, fake_root, why, sizeof(why)) == -EPERM);
	CHECK(strstr(why, "names the directory /tmp, not"));
	tracestate_free(ts);
	/* keys that climb out, are absolute, or are empty */
	static const char *const bad[] = {
		"events/../../../../etc/x", "../x", "/etc/x", "options//raw", "options/./raw",
		"options/", "",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "ktop-tracestate 1\ndir\t%s\n010\t%s\t1\n",
			 fake_root, bad[i]);
		ts = load_text(text);
		CHECK(ts);
		CHECK(tracestate_check_dir(ts, fake_root, why, sizeof(why)) == -EPERM);
		CHECK(strstr(why, "not a file in"));
		tracestate_free(ts);
	}
	/* a link inside that leads out */
	snprintf(link, sizeof(link), "%s/options/out", fake_root);
	CHECK(symlink("/etc/hostname", link) == 0);
	snprintf(text, sizeof(text), "ktop-tracestate 1\ndir\t%s\n000\toptions/out\t1\n",
		 fake_root);
	ts = load_text(text);
	CHECK(ts);
	CHECK(tracestate_check_dir(ts, fake_root, why, sizeof(why)) == -EPERM);
	tracestate_free(ts);
	unlink(link);
	/* the same directory named another way is the same */
	snprintf(text, sizeof(text), "ktop-tracestate 1\ndir\t%s/options/..\n000\toptions/raw\t1\n",
		 fake_root);
	ts = load_text(text);
	CHECK(ts);
	CHECK_EQ_U64(tracestate_check_dir(ts, fake_root, why, sizeof(why)), 0);
	tracestate_free(ts);
}

TEST(zz_cleanup)
{
	CHECK(fake_remove() == 0);
}

TEST_MAIN()
