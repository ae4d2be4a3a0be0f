// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * prev_state letters from the sched_switch format (src/lib/taskstate.h,
 * issue 31 #4): the recorded formats of 6.18 (the host), 6.1-rt and 6.12-rt
 * give mask 0xff, "SDTtXZPI" and "+" for 0x100 (TASK_REPORT_MAX); a table
 * whose bits differ (the 4.x kernels' TP_printk, as its format file spells
 * it) gives its own letters.
 */
#include <errno.h>
#include <stdlib.h>
#include "test.h"

#include "ingest/fixture.h"
#include "lib/taskstate.h"

static char *fixture_format(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s/events/sched/sched_switch/format", fixture_root(),
		 name);
	return fixture_read_file(path, NULL);
}

TEST(recorded_formats_give_the_kernels_table)
{
	static const char *const names[] = { "host-sched", "rt-sched-irq", "rt612-sched-irq" };
	char b[32];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct taskstate_fmt f;
		char *text = fixture_format(names[i]);

		CHECK(text != NULL);
		CHECK(taskstate_parse(text, &f) == 0);
		free(text);
		CHECK(f.mask == 0xff && f.plus == 0x100 && f.n == 8);
		CHECK_STR(f.bits[0].name, "S");
		CHECK_STR(f.bits[7].name, "I");
		CHECK(f.bits[7].value == 0x80);
		CHECK_STR(taskstate_format(&f, 0x100, b, sizeof(b)), "R+");
		CHECK_STR(taskstate_format(&f, 0, b, sizeof(b)), "R");
		CHECK_STR(taskstate_format(&f, 0x2, b, sizeof(b)), "D");
		CHECK_STR(taskstate_format(&f, 0x81, b, sizeof(b)), "S|I");
		/* a bit outside the mask and not the "+" one: as the kernel, not shown */
		CHECK_STR(taskstate_format(&f, 0x200, b, sizeof(b)), "R");
	}
}

TEST(another_kernels_table)
{
	/* Linux 4.9's TP_printk with TASK_STATE_MAX 2048, as a format file writes it */
	static const char text[] =
		"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> "
		"next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, "
		"REC->prev_prio, REC->prev_state & (2048-1) ? __print_flags(REC->prev_state & "
		"(2048-1), \"|\", { 1, \"S\"} , { 2, \"D\" }, { 4, \"T\" }, { 8, \"t\" }, "
		"{ 16, \"Z\" }, { 32, \"X\" }, { 64, \"x\" }, { 128, \"K\" }, { 256, \"W\" }, "
		"{ 512, \"P\" }, { 1024, \"N\" }) : \"R\", REC->prev_state & 2048 ? \"+\" : \"\", "
		"REC->next_comm, REC->next_pid, REC->next_prio";
	struct taskstate_fmt f;
	char b[32];

	CHECK(taskstate_parse(text, &f) == 0);
	CHECK(f.mask == 2047 && f.plus == 2048 && f.n == 11);
	CHECK_STR(taskstate_format(&f, 0x82, b, sizeof(b)), "D|K");
	CHECK_STR(taskstate_format(&f, 0x100, b, sizeof(b)), "W");
	CHECK_STR(taskstate_format(&f, 2048, b, sizeof(b)), "R+");
}

TEST(no_table_is_the_default)
{
	struct taskstate_fmt f;
	char b[32];

	CHECK(taskstate_parse(NULL, &f) == -ENOENT);
	CHECK(taskstate_parse("print fmt: \"x=%d\", REC->x", &f) == -ENOENT);
	CHECK(f.mask == 0xff && f.plus == 0x100);
	CHECK_STR(taskstate_format(NULL, 0x100, b, sizeof(b)), "R+");
	/* a bit the table does not name, as libtraceevent's __print_flags() */
	f.n = 1;
	CHECK_STR(taskstate_format(&f, 0x41, b, sizeof(b)), "S|0x40");
	/* cut to the buffer, NUL-terminated */
	CHECK_STR(taskstate_format(&f, 0x141, b, 4), "S|0");
}

TEST_MAIN()
