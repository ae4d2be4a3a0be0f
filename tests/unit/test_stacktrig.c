// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Stack trace triggers (src/kernel/stacktrig.h) on a directory laid out like a
 * tracefs instance (tests/unit/fake_tracefs.h): what --stack sets, what the
 * interactive view's "stacks for this event" (Y) adds while tracing goes on,
 * a refusal that leaves what was set, the options/stacktrace fallback when
 * the kernel refuses a trigger, and everything taken back by clear. The
 * same paths run against the kernel in tests/live/test_stacks.sh and
 * tests/tui/test_tui_stacks.sh.
 */
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/stacktrig.h"
#include "test.h"
#include "fake_tracefs.h"

/* What @rel holds ("" when missing). */
static const char *got(const char *rel)
{
	const char *s = fake_get(rel);

	return s ? s : "";
}

static void fake_instance(void)
{
	snprintf(fake_root, sizeof(fake_root), "/tmp/ktop-test-stacktrig-%d", getpid());
	if (fake_remove())
		return;
	mkdir(fake_root, 0755);
	fake_put("set_event", "sched:sched_switch\nirq:softirq_entry\nirq:softirq_exit\n");
	fake_put("events/sched/sched_switch/trigger", "");
	fake_put("events/irq/softirq_entry/trigger", "");
	fake_put("events/irq/softirq_exit/trigger", "");
	fake_put("options/stacktrace", "0");
	fake_put("options/userstacktrace", "0");
}

TEST(add_sets_a_trigger_per_event_and_keeps_what_was_set)
{
	struct stacktrig_req sw = { "sched:sched_switch", STACKTRIG_KERN };
	struct stacktrig_req si = { "irq:softirq_entry", STACKTRIG_KERN };
	struct stacktrig_req no = { "net:netif_rx", STACKTRIG_KERN };
	char note[512], err[512];
	struct stacktrig *t;

	fake_instance();
	CHECK(!stacktrig_set(&t, fake_root, false, &sw, 1, note, sizeof(note), err, sizeof(err)));
	CHECK_STR(got("events/sched/sched_switch/trigger"), "stacktrace");
	CHECK(stacktrig_count(t) == 1 && !note[0]);
	/* Y on another event while tracing: one more trigger */
	CHECK(!stacktrig_add(t, false, &si, 1, note, sizeof(note), err, sizeof(err)));
	CHECK_STR(got("events/irq/softirq_entry/trigger"), "stacktrace");
	CHECK(stacktrig_count(t) == 2);
	/* the same event again: nothing new */
	CHECK(!stacktrig_add(t, false, &sw, 1, note, sizeof(note), err, sizeof(err)));
	CHECK(stacktrig_count(t) == 2);
	/* an event the session does not trace: the message --stack gives, nothing changed */
	CHECK(stacktrig_add(t, false, &no, 1, note, sizeof(note), err, sizeof(err)) == -ENOENT);
	CHECK(strstr(err, "--stack net:netif_rx: no such event enabled in"));
	CHECK(stacktrig_count(t) == 2);
	CHECK_STR(got("events/sched/sched_switch/trigger"), "stacktrace");
	CHECK_STR(got("options/stacktrace"), "0");
	/* clear takes every trigger back */
	stacktrig_clear(t);
	CHECK_STR(got("events/sched/sched_switch/trigger"), "!stacktrace");
	CHECK_STR(got("events/irq/softirq_entry/trigger"), "!stacktrace");
	CHECK(stacktrig_add(t, false, &si, 1, note, sizeof(note), err, sizeof(err)) < 0);
	stacktrig_free(t);
	CHECK(!fake_remove());
}

TEST(a_refused_trigger_falls_back_to_the_option)
{
	struct stacktrig_req sw = { "sched:sched_switch", STACKTRIG_KERN };
	struct stacktrig_req sx = { "irq:softirq_exit", STACKTRIG_KERN };
	char note[512], err[512], path[512];
	struct stacktrig *t;

	fake_instance();
	CHECK(!stacktrig_set(&t, fake_root, false, &sw, 1, note, sizeof(note), err, sizeof(err)));
	/* a trigger file that cannot be written (a directory): the kernel's refusal */
	snprintf(path, sizeof(path), "%s/events/irq/softirq_exit/trigger", fake_root);
	unlink(path);
	mkdir(path, 0755);
	CHECK(!stacktrig_add(t, false, &sx, 1, note, sizeof(note), err, sizeof(err)));
	CHECK(strstr(note, "options/stacktrace"));
	CHECK(stacktrig_all_events(t) && stacktrig_count(t) == 0);
	CHECK_STR(got("options/stacktrace"), "1");
	/* the option covers every event: the earlier trigger went */
	CHECK_STR(got("events/sched/sched_switch/trigger"), "!stacktrace");
	stacktrig_clear(t);
	CHECK_STR(got("options/stacktrace"), "0");
	stacktrig_free(t);
	CHECK(!fake_remove());
}

TEST(top_level_uses_the_option_only)
{
	struct stacktrig_req sw = { "sched:sched_switch", STACKTRIG_KERN };
	struct stacktrig_req us = { "irq:softirq_entry", STACKTRIG_KERN | STACKTRIG_USER };
	char note[512], err[512];
	struct stacktrig *t;

	fake_instance();
	CHECK(!stacktrig_set(&t, fake_root, true, &sw, 1, note, sizeof(note), err, sizeof(err)));
	CHECK_STR(got("events/sched/sched_switch/trigger"), "");
	CHECK_STR(got("options/stacktrace"), "1");
	CHECK(!stacktrig_add(t, true, &us, 1, note, sizeof(note), err, sizeof(err)));
	CHECK_STR(got("options/userstacktrace"), "1");
	CHECK(strstr(note, "userstacktrace"));
	stacktrig_clear(t);
	CHECK_STR(got("options/stacktrace"), "0");
	CHECK_STR(got("options/userstacktrace"), "0");
	stacktrig_free(t);
	CHECK(!fake_remove());
}

TEST_MAIN()
