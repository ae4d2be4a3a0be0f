// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The event list's text search (ui/linematch.c): what it says from the line's
 * layout alone ("no line of an event of this type, from this task, can hold
 * the text") must be true of the lines ui_fmt_event() writes. Checked on every
 * recorded fixture and the demo recording: pieces of real lines (of every
 * event type, and of many events of each) are never refused for the event
 * they come from. And the layout does refuse what it should, or the search
 * would format every event.
 */
#include <stdlib.h>
#include "test.h"
#include "snap_common.h"
#include "store/store.h"
#include "draw/rowfmt.h"
#include "linematch.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/* Is piece @len at @off of @ev's line taken for @ev by the layout (and the line)? */
static bool piece_ok(struct store *st, enum flags_style style, const struct ktop_event *ev,
		     const char *line, size_t off, size_t len)
{
	struct linematch m;
	char needle[LINEMATCH_MAX + 1];
	bool ok;

	if (len > LINEMATCH_MAX)
		len = LINEMATCH_MAX;
	memcpy(needle, line + off, len);
	needle[len] = '\0';
	if (linematch_init(&m, st, style, needle))
		return false;
	ok = linematch_type_may(&m, ev->type) && linematch_task_may(&m, ev->pid, ev->type) &&
	     linematch_line(&m, ev);
	if (!ok)
		printf("  refused \"%s\" of line \"%s\" (type %u, pid %d)\n", needle, line,
		       ev->type, ev->pid);
	linematch_destroy(&m);
	return ok;
}

/* Pieces of the lines of @st's events, about @want of them. Return: how many were refused. */
static int check_store(struct store *st, int want, uint64_t *tried)
{
	static const enum flags_style styles[] = { FLAGS_STYLE_LAZY, FLAGS_STYLE_NOSUPPORT,
						   FLAGS_STYLE_RT_LAZY_COUNT };
	static uint32_t per_type[65536];
	struct store_stats ss;
	struct store_iter *it;
	struct ktop_event ev;
	uint64_t seq, i = 0, stride;
	int bad = 0;

	memset(per_type, 0, sizeof(per_type));
	store_get_stats(st, &ss);
	stride = ss.events / (uint64_t)want + 1;
	it = store_iter_new(st, 0, UINT64_MAX, NULL);
	while (it && store_iter_next(it, &ev, &seq) && bad < 5) {
		enum flags_style style = styles[i % 3];
		struct richstr rs;
		size_t len, at;

		/* every type's first events, then every stride-th */
		if (per_type[ev.type]++ >= 4 && i++ % stride)
			continue;
		ui_fmt_event(&rs, st, style, &ev);
		len = (size_t)rs.len;
		if (!len)
			continue;
		/* a random piece, the line from its event name on, a short one */
		at = rnd((uint32_t)len);
		bad += !piece_ok(st, style, &ev, rs.ch, at, 1 + rnd((uint32_t)(len - at)));
		at = strstr(rs.ch, ui_event_name(st, ev.type)) ?
		     (size_t)(strstr(rs.ch, ui_event_name(st, ev.type)) - rs.ch) : 0;
		bad += !piece_ok(st, style, &ev, rs.ch, at, len - at);
		at = rnd((uint32_t)len);
		bad += !piece_ok(st, style, &ev, rs.ch, at, 1 + rnd(len - at < 6 ? (uint32_t)(len - at) : 6));
		*tried += 3;
	}
	store_iter_free(it);
	return bad;
}

TEST(no_piece_of_a_real_line_is_refused)
{
	char names[SNAP_MAX_FIXTURES][64], path[4200], err[256];
	int n = snap_fixture_names(names, SNAP_MAX_FIXTURES), bad = 0;
	const char *fx = getenv("KTOP_FIXTURES");
	struct snapshot_meta meta;
	uint64_t tried = 0;
	struct store *st;

	CHECK(n > 10);
	for (int f = 0; f < n && !bad; f++) {
		st = snap_fixture_store(names[f], &meta);
		CHECK(st);
		bad += check_store(st, 150, &tried);
		if (bad)
			printf("  in fixture %s\n", names[f]);
		store_free(st);
		snapshot_meta_free(&meta);
	}
	snprintf(path, sizeof(path), "%s/demo.ktop", fx && *fx ? fx : "tests/fixtures");
	CHECK(format_load(path, 0, &st, NULL, err, sizeof(err)) == 0);
	bad += check_store(st, 600, &tried);
	store_free(st);
	printf("  %llu pieces of lines tried\n", (unsigned long long)tried);
	CHECK(tried > 5000);
	CHECK_EQ_U64(bad, 0);
}

/* The layout refuses what no line can hold: the search then formats few events. */
TEST(the_layout_refuses_what_no_line_holds)
{
	char path[4200], err[256];
	const char *fx = getenv("KTOP_FIXTURES");
	struct linematch m;
	struct store *st;
	int32_t vmload = -1;

	snprintf(path, sizeof(path), "%s/demo.ktop", fx && *fx ? fx : "tests/fixtures");
	CHECK(format_load(path, 0, &st, NULL, err, sizeof(err)) == 0);
	for (int32_t pid = 1; pid < 1000 && vmload < 0; pid++)
		if (store_comm(st, pid) && !strcmp(store_comm(st, pid), "vmload"))
			vmload = pid;
	CHECK(vmload > 0);

	/* fields: "comm=vmload pid=224" is sched_process_exit's, not sched_switch's */
	CHECK(linematch_init(&m, st, FLAGS_STYLE_LAZY, "comm=vmload pid=224") == 0);
	CHECK(linematch_type_may(&m, KTOP_T_SCHED_PROCESS_EXIT));
	CHECK(!linematch_type_may(&m, KTOP_T_SCHED_SWITCH));
	CHECK(!linematch_type_may(&m, KTOP_T_SYS_ENTER));
	CHECK(!linematch_type_may(&m, KTOP_T_SYS_EXIT));
	CHECK(!linematch_type_may(&m, KTOP_T_TIMERLAT));
	CHECK(!linematch_type_may(&m, KTOP_T_FGRAPH_ENTRY));
	linematch_destroy(&m);

	/* a task's name: its own events, and those with a string that may be it */
	CHECK(linematch_init(&m, st, FLAGS_STYLE_LAZY, "vmload") == 0);
	CHECK(linematch_type_may(&m, KTOP_T_TIMERLAT));
	CHECK(linematch_task_may(&m, vmload, KTOP_T_TIMERLAT));
	CHECK(!linematch_task_may(&m, 0, KTOP_T_TIMERLAT));
	CHECK(linematch_task_may(&m, 0, KTOP_T_SCHED_SWITCH));
	/* a syscall's line: by its number, name and arguments are known */
	{
		struct ktop_event ev = { .ts = 1000, .type = KTOP_T_SYS_EXIT, .nargs = 2,
					 .args = { 0, 5 } };

		CHECK(linematch_task_may(&m, 0, KTOP_T_SYS_EXIT));	/* some syscall may */
		CHECK(!linematch_sys_may(&m, &ev));				/* read may not */
		linematch_destroy(&m);
		CHECK(linematch_init(&m, st, FLAGS_STYLE_LAZY, "read -> 5") == 0);
		CHECK(linematch_sys_may(&m, &ev));
		CHECK(linematch_line(&m, &ev));
		ev.args[1] = 6;
		CHECK(!linematch_line(&m, &ev));
	}
	linematch_destroy(&m);

	/* no string of the table holds it: no field does either */
	CHECK(linematch_init(&m, st, FLAGS_STYLE_LAZY, "no-such-task-name") == 0);
	CHECK(!linematch_type_may(&m, KTOP_T_SCHED_SWITCH));
	CHECK(!linematch_type_may(&m, KTOP_T_SCHED_PROCESS_EXEC));
	linematch_destroy(&m);
	store_free(st);
}

TEST_MAIN()
