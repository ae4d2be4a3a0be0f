// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/tracestate.c on a directory laid out like tracefs (no root needed):
 * normalisation, diff, restore, the blind restore, save/load.
 *
 * The file contents below are what this host's kernel (6.18) prints in
 * those files (copied from `cat`), not what tracestate.c produces.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "tracestate.h"

static char root[256];

static void put(const char *rel, const char *content)
{
	char path[512], dir[512], *slash;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	/* mkdir -p of the parent */
	snprintf(dir, sizeof(dir), "%s", path);
	for (slash = dir + strlen(root) + 1; (slash = strchr(slash, '/')); slash++) {
		*slash = '\0';
		mkdir(dir, 0755);
		*slash = '/';
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		if (write(fd, content, strlen(content)) < 0)
			perror(path);
		close(fd);
	}
}

static char *get(const char *rel)
{
	static char buf[4096];
	char path[512];
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[r < 0 ? 0 : r] = '\0';
	return buf;
}

static void make_tree(void)
{
	char cmd[300];

	if (root[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd))
			perror("rm");
	}
	snprintf(root, sizeof(root), "/tmp/ktop-unit-ts.XXXXXX");
	if (!mkdtemp(root))
		abort();
	put("tracing_on", "1\n");
	put("current_tracer", "nop\n");
	put("trace_clock", "[local] global counter uptime perf mono mono_raw boot tai x86-tsc\n");
	put("buffer_percent", "50\n");
	put("buffer_size_kb", "7 (expanded: 1408)\n");
	put("per_cpu/cpu0/buffer_size_kb", "7\n");
	put("per_cpu/cpu1/buffer_size_kb", "7\n");
	put("tracing_cpumask", "3\n");
	put("set_event", "");
	put("set_event_pid", "");
	put("set_ftrace_pid", "no pid\n");
	put("options/raw", "0\n");
	put("options/overwrite", "1\n");
	put("events/sched/sched_switch/enable", "0\n");
	put("events/sched/sched_switch/filter", "none\n");
	put("events/sched/sched_switch/trigger",
	    "# Available triggers:\n# traceon traceoff snapshot stacktrace enable_event\n");
	put("events/irq/irq_handler_entry/enable", "1\n");
	put("events/irq/irq_handler_entry/filter", "irq == 5\n");
	put("events/irq/irq_handler_entry/trigger", "# Available triggers:\n");
	put("instances/other/tracing_on", "1\n");
}

TEST(capture_normalises)
{
	struct tracestate *ts;

	make_tree();
	ts = tracestate_capture(root, 0);
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

	ts = tracestate_capture(root, TRACESTATE_NO_EVENTS | TRACESTATE_NO_INSTANCES);
	CHECK(ts);
	CHECK(!tracestate_get(ts, "events/irq/irq_handler_entry/enable"));
	CHECK(!tracestate_get(ts, "instances"));
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
	a = tracestate_capture(root, 0);
	CHECK(a);
	put("current_tracer", "function\n");
	put("options/raw", "1\n");
	put("events/sched/sched_switch/enable", "1\n");		/* absent -> "1" */
	put("events/irq/irq_handler_entry/filter", "none\n");	/* "irq == 5" -> absent */
	put("tracing_on", "0\n");
	b = tracestate_capture(root, 0);
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

TEST(restore_writes_only_differences)
{
	struct tracestate *a, *b;

	make_tree();
	a = tracestate_capture(root, 0);
	CHECK(a);
	put("current_tracer", "function\n");
	put("set_event", "sched:sched_switch\nirq:irq_handler_entry\n");
	put("events/sched/sched_switch/enable", "1\n");
	put("events/irq/irq_handler_entry/filter", "none\n");
	put("options/raw", "1\n");
	put("tracing_on", "0\n");
	CHECK_EQ_U64(tracestate_restore(a), 0);
	/* written back */
	CHECK_STR(get("current_tracer"), "nop");
	CHECK_STR(get("set_event"), "");
	CHECK_STR(get("events/sched/sched_switch/enable"), "0");
	CHECK_STR(get("events/irq/irq_handler_entry/filter"), "irq == 5");
	CHECK_STR(get("options/raw"), "0");
	CHECK_STR(get("tracing_on"), "1");
	/* equal ones untouched: the kernel's decorated text is still there */
	CHECK_STR(get("trace_clock"),
		  "[local] global counter uptime perf mono mono_raw boot tai x86-tsc\n");
	CHECK_STR(get("buffer_size_kb"), "7 (expanded: 1408)\n");
	b = tracestate_capture(root, 0);
	CHECK(b);
	CHECK_EQ_U64(tracestate_diff(a, b, stderr, NULL), 0);
	tracestate_free(a);
	tracestate_free(b);
}

TEST(restore_blind)
{
	struct tracestate *a, *b;

	make_tree();
	a = tracestate_capture(root, 0);
	CHECK(a);
	put("current_tracer", "function\n");
	put("set_event", "sched:sched_switch\n");
	put("set_event_pid", "42\n");
	put("tracing_cpumask", "1\n");
	put("tracing_on", "0\n");
	CHECK_EQ_U64(tracestate_restore_blind(a), 0);
	CHECK_STR(get("current_tracer"), "nop");
	CHECK_STR(get("set_event"), "");
	CHECK_STR(get("set_event_pid"), "");
	CHECK_STR(get("tracing_cpumask"), "3");
	CHECK_STR(get("tracing_on"), "1");
	b = tracestate_capture(root, 0);
	CHECK(b);
	CHECK_EQ_U64(tracestate_diff(a, b, stderr, NULL), 0);
	tracestate_free(a);
	tracestate_free(b);
}

TEST(save_load_round_trip)
{
	struct tracestate *a, *b;
	char path[300];

	make_tree();
	/* content with newlines, tabs and backslashes survives */
	put("set_event", "sched:sched_switch\nirq:irq_handler_entry\n");
	put("events/irq/irq_handler_entry/filter", "name ~ \"a\\\\b\tc\"\n");
	a = tracestate_capture(root, 0);
	CHECK(a);
	snprintf(path, sizeof(path), "%s.state", root);
	CHECK_EQ_U64(tracestate_save(a, path), 0);
	b = tracestate_load(path);
	CHECK(b);
	CHECK_STR(tracestate_dir(b), root);
	CHECK_EQ_U64(tracestate_count(b), tracestate_count(a));
	CHECK_EQ_U64(tracestate_diff(a, b, stderr, NULL), 0);
	CHECK_STR(tracestate_get(b, "set_event"), "sched:sched_switch\nirq:irq_handler_entry");
	CHECK_STR(tracestate_get(b, "events/irq/irq_handler_entry/filter"),
		  "name ~ \"a\\\\b\tc\"");

	/* a loaded state restores like a captured one */
	put("set_event", "");
	put("current_tracer", "blk\n");
	CHECK_EQ_U64(tracestate_restore(b), 0);
	/* one write per item, each ended by a newline */
	CHECK_STR(get("set_event"), "sched:sched_switch\nirq:irq_handler_entry\n");
	CHECK_STR(get("current_tracer"), "nop");
	unlink(path);
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

TEST(zz_cleanup)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
}

TEST_MAIN()
