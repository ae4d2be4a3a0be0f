// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The TUI's terminal-free parts: row formatting (checked against the kernel's
 * own trace text of a recorded fixture), the attributed line buffer, the
 * time-ordered walks over the store, the incremental statistics, themes and
 * the config file. No terminal: the ui/ files below never include curses.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "lib/clock.h"
#include "test.h"

#include "ui-local.h"

#include "ingest/decode.h"
#include "ingest/fixture.h"
#include "lib/syscalls.h"
#include "lib/taskstate.h"
#include "store/store.h"

TEST(richstr_add_pad_truncate)
{
	struct richstr rs;

	richstr_clear(&rs);
	richstr_add(&rs, ROLE_EVENT, "ab\tc");
	CHECK_STR(rs.ch, "ab?c");
	CHECK(rs.role[0] == ROLE_EVENT && rs.role[3] == ROLE_EVENT);
	richstr_pad(&rs, ROLE_DIM, 8);
	CHECK_EQ_U64(rs.len, 8);
	CHECK(rs.role[7] == ROLE_DIM);
	richstr_add_right(&rs, ROLE_PID, "42", 5);
	CHECK_STR(rs.ch, "ab?c       42");
	richstr_add_right(&rs, ROLE_PID, "123456", 3);
	CHECK_STR(rs.ch + 13, "456");
	richstr_truncate(&rs, 3);
	CHECK_STR(rs.ch, "ab?");
	for (int i = 0; i < 2 * RICHSTR_MAX; i++)
		richstr_add(&rs, ROLE_DEFAULT, "x");
	CHECK_EQ_U64(rs.len, RICHSTR_MAX);
	CHECK_EQ_U64(strlen(rs.ch), RICHSTR_MAX);
}

TEST(format_counts_durations_shares)
{
	char b[32];

	CHECK_STR(ui_fmt_count(b, sizeof(b), 0), "0");
	CHECK_STR(ui_fmt_count(b, sizeof(b), 999), "999");
	CHECK_STR(ui_fmt_count(b, sizeof(b), 1000), "1.00k");
	CHECK_STR(ui_fmt_count(b, sizeof(b), 12345), "12.3k");
	CHECK_STR(ui_fmt_count(b, sizeof(b), 123456), "123k");
	CHECK_STR(ui_fmt_count(b, sizeof(b), 999600), "1.00M");
	CHECK_STR(ui_fmt_count(b, sizeof(b), 1234567), "1.23M");
	CHECK_STR(ui_fmt_count(b, sizeof(b), 10000000000ull), "10.0G");
	CHECK_STR(ui_fmt_dur(b, sizeof(b), 999), "999ns");
	CHECK_STR(ui_fmt_dur(b, sizeof(b), 1500), "1.5us");
	CHECK_STR(ui_fmt_dur(b, sizeof(b), 2500000), "2.50ms");
	CHECK_STR(ui_fmt_dur(b, sizeof(b), 3000000000ull), "3.00s");
	CHECK_STR(ui_fmt_share(b, sizeof(b), 1, 3), "33.3%");
	CHECK_STR(ui_fmt_share(b, sizeof(b), 0, 0), "-");
	CHECK_STR(ui_fmt_share(b, sizeof(b), 5, 5), "100%");
	CHECK_STR(ui_fmt_bytes(b, sizeof(b), 256ull << 20), "256M");
	CHECK_STR(ui_fmt_elapsed(b, sizeof(b), 3723ull * 1000000000u), "01:02:03");
}

TEST(flag_bits_follow_raw_bits)
{
	unsigned int b = ui_flag_bits(KTOP_KF_IRQS_OFF | KTOP_KF_HARDIRQ, 0x21);

	CHECK(b == ((1u << UI_FLAG_IRQS_OFF) | (1u << UI_FLAG_HARDIRQ) |
		    (1u << UI_FLAG_PREEMPT) | (1u << UI_FLAG_MIGRATE)));
	CHECK(ui_flag_bits(0, 0) == 0);
	CHECK(ui_flag_bits(KTOP_KF_NMI | KTOP_KF_SOFTIRQ | KTOP_KF_NEED_RESCHED, 0) ==
	      ((1u << UI_FLAG_NMI) | (1u << UI_FLAG_SOFTIRQ) | (1u << UI_FLAG_RESCHED)));
}

/* Each header column ends where the value under it ends, and all fits in 80. */
TEST(cpu_table_fits_80_and_aligns)
{
	uint64_t counts[UI_FLAG_NR] = { 1, 2, 3, 4, 5, 6, 7 };
	struct richstr h, r;

	ui_fmt_cpu_header(&h);
	ui_fmt_cpu_row(&r, 255, 12345678.0, 9999999, counts, 7);
	CHECK(h.len <= 80);
	CHECK(r.len <= 80);
	CHECK_EQ_U64(h.len, r.len);
	for (int i = 1; i < h.len; i++) {
		bool hend = h.ch[i - 1] != ' ' && (i == h.len || h.ch[i] == ' ');
		bool rend = r.ch[i - 1] != ' ' && (i == r.len || r.ch[i] == ' ');

		if (i >= 4)
			CHECK(hend == rend);
	}
	CHECK(strstr(r.ch, "100%") != NULL);	/* 7 of 7 */
	CHECK(strstr(r.ch, "14.3%") != NULL);	/* 1 of 7 */
}

TEST(task_state_letters)
{
	char b[16];

	CHECK_STR(taskstate_format(NULL, 0, b, sizeof(b)), "R");
	CHECK_STR(taskstate_format(NULL, 1, b, sizeof(b)), "S");
	CHECK_STR(taskstate_format(NULL, 2, b, sizeof(b)), "D");
	CHECK_STR(taskstate_format(NULL, 0x100, b, sizeof(b)), "R+");
	CHECK_STR(taskstate_format(NULL, 0x80, b, sizeof(b)), "I");
}

/* ---- against the kernel's own text ----------------------------------------- */

static struct store *load_fixture(const char *name, struct fixture **fxp)
{
	char dir[512];
	struct fixture *fx;
	struct decode_ctx *dc;
	struct store *st;

	snprintf(dir, sizeof(dir), "%s/%s", fixture_root(), name);
	fx = fixture_open(dir);
	if (!fx)
		return NULL;
	st = store_new(0, fixture_ncpus(fx));
	dc = st ? decode_ctx_new(fixture_tep(fx), st, NULL) : NULL;
	if (!dc) {
		store_free(st);
		fixture_close(fx);
		return NULL;
	}
	for (unsigned int cpu = 0; cpu < fixture_ncpus(fx); cpu++) {
		struct decoder *d = decoder_new(dc, cpu);
		struct decode_stats ds = { 0 };

		for (size_t i = 0; d && i < fixture_npages(fx, cpu); i++)
			decoder_page(d, fixture_page(fx, cpu, i), fixture_page_size(fx), &ds);
		decoder_free(d);
	}
	decode_ctx_free(dc);
	*fxp = fx;
	return st;
}

/*
 * Walk the store in time order (ui_evwalk) and format each event as the event
 * list does: from "-PID" to the event name the line must equal the kernel's
 * trace line by line, and sched_switch lines must equal it whole after the comm.
 */
TEST(event_lines_match_kernel_trace_text)
{
	struct fixture *fx = NULL;
	struct store *st = load_fixture("host-sched", &fx);
	char *text, *line, *save = NULL;
	struct ui_evwalk w;
	struct ui_evrow r;
	struct richstr rs;
	enum flags_style style;
	int n = 0, bad = 0, switches = 0;

	CHECK(st != NULL);
	style = flags_style_detect(fixture_meta(fx, "release"), false);
	text = fixture_read_file(fixture_path(fx, "trace.txt"), NULL);
	CHECK(text != NULL);
	CHECK(ui_evwalk_init(&w, st, &UI_EVPOS_START, 1, true) == 0);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *a, *b, *ea, *eb;

		if (line[0] == '#')
			continue;
		if (!ui_evwalk_next(&w, &r)) {
			printf("  store ran out at kernel line %d\n", n);
			bad++;
			break;
		}
		n++;
		ui_fmt_event(&rs, st, style, &r.ev);
		/* the kernel pads the comm to 16: the pid starts at the '-' at column 16 */
		a = rs.ch + 16;
		b = line + 16;
		ea = strstr(a, ": ");
		ea = ea ? strstr(ea + 2, ": ") : NULL;
		eb = strstr(b, ": ");
		eb = eb ? strstr(eb + 2, ": ") : NULL;
		if (!ea || !eb || ea - a != eb - b || memcmp(a, b, (size_t)(ea - a))) {
			if (bad++ < 3)
				printf("  line %d:\n    kernel: %s\n    ktop:   %s\n", n, line,
				       rs.ch);
			continue;
		}
		if (r.ev.type == KTOP_T_SCHED_SWITCH) {
			switches++;
			if (strcmp(a, b) && bad++ < 3)
				printf("  sched_switch %d:\n    kernel: %s\n    ktop:   %s\n", n,
				       line, rs.ch);
		}
	}
	ui_evwalk_destroy(&w);
	free(text);
	printf("  %d lines compared, %d sched_switch, %d differ\n", n, switches, bad);
	store_free(st);
	fixture_close(fx);
	CHECK(n > 1000);
	CHECK(switches > 10);
	CHECK(bad == 0);
}

/*
 * One raw_syscalls line's fields, ours against the kernel's: "read(fd: 0x3,
 * buf: 0x7ffd..., count: 0x1000)" against "NR 0 (3, 7ffd..., 1000, 0, 0, 0)", and
 * "read -> 4096" / "-> -2 ENOENT" / "-> 0x7f..." against "NR 0 = 4096".
 * Return: true when they say the same.
 */
static bool syscall_fields_agree(const char *ours, const char *kernel, bool enter, int nargs)
{
	unsigned long long v[6], nr;
	const char *name, *p;
	long long ret;

	if (enter) {
		if (sscanf(kernel, "NR %llu (%llx, %llx, %llx, %llx, %llx, %llx)", &nr, &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5]) != 7)
			return false;
	} else if (sscanf(kernel, "NR %llu = %lld", &nr, &ret) != 2) {
		return false;
	}
	name = syscall_name((uint32_t)nr);
	if (!name || strncmp(ours, name, strlen(name)))
		return false;
	p = ours + strlen(name);
	if (!enter) {
		long long got;
		unsigned long long hex;

		if (sscanf(p, " -> 0x%llx", &hex) == 1)
			return (long long)hex == ret;
		return sscanf(p, " -> %lld", &got) == 1 && got == ret &&
		       (got >= 0 || strchr(p + 4, 'E'));
	}
	if (*p++ != '(')
		return false;
	for (int i = 0; i < nargs; i++) {
		unsigned long long got;
		const char *c = strstr(p, ": 0x");

		if (!c || sscanf(c, ": 0x%llx", &got) != 1 || got != v[i])
			return false;
		p = c + 4;
	}
	return strchr(p, ')') && !strstr(p, ": 0x");
}

/*
 * Issue 18 #3.15: raw_syscalls lines name the syscall and its arguments (the
 * kernel's names, recorded in tests/fixtures/host-syscalls) with the values
 * of the kernel's own text, and the return value; every such line of
 * host-sched.
 */
TEST(syscall_lines_name_the_syscall_and_its_arguments)
{
	struct fixture *fx = NULL;
	struct store *st = load_fixture("host-sched", &fx);
	char *text, *line, *save = NULL, dir[512];
	int n = 0, bad = 0, named = 0, unnamed = 0;
	struct ui_evwalk w;
	struct ui_evrow r;
	struct richstr rs;

	CHECK(st != NULL);
	snprintf(dir, sizeof(dir), "%s/host-syscalls", fixture_root());
	syscall_args_dir(dir);
	text = fixture_read_file(fixture_path(fx, "trace.txt"), NULL);
	CHECK(text != NULL);
	CHECK(ui_evwalk_init(&w, st, &UI_EVPOS_START, 1, true) == 0);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *k, *o;
		bool enter;
		int na;
		const char *an[SYSCALL_MAX_ARGS];

		if (line[0] == '#' || !ui_evwalk_next(&w, &r))
			continue;
		if (r.ev.type != KTOP_T_SYS_ENTER && r.ev.type != KTOP_T_SYS_EXIT)
			continue;
		enter = r.ev.type == KTOP_T_SYS_ENTER;
		ui_fmt_event(&rs, st, FLAGS_STYLE_LAZY, &r.ev);
		k = strstr(line, enter ? "sys_enter: " : "sys_exit: ");
		o = strstr(rs.ch, enter ? "sys_enter: " : "sys_exit: ");
		if (!k || !o) {
			bad++;
			continue;
		}
		n++;
		/* no name (NR -1): the kernel's own text */
		if (r.ev.args[0] > UINT32_MAX || !syscall_name((uint32_t)r.ev.args[0])) {
			unnamed++;
			if (strcmp(k, o) && bad++ < 3)
				printf("  kernel: %s\n  ktop:   %s\n", k, o);
			continue;
		}
		na = syscall_args((uint32_t)r.ev.args[0], an);
		named += na >= 0;
		if (!syscall_fields_agree(o + (enter ? 11 : 10), k + (enter ? 11 : 10), enter,
					  na < 0 ? 6 : na) && bad++ < 3)
			printf("  kernel: %s\n  ktop:   %s\n", k, o);
	}
	ui_evwalk_destroy(&w);
	free(text);
	printf("  %d syscall lines, %d with the kernel's argument names, %d without a name, "
	       "%d differ\n", n, named, unnamed, bad);
	syscall_args_dir(NULL);
	store_free(st);
	fixture_close(fx);
	CHECK(n > 500);
	CHECK(named + unnamed == n && unnamed < 20);
	CHECK(bad == 0);
}

/* ---- walks over the store ---------------------------------------------------- */

static int cmp_pos(const void *a, const void *b)
{
	return ui_evpos_cmp(a, b);
}

TEST(evwalk_orders_across_cpus_both_ways)
{
	struct store *st = store_new(0, 3);
	struct ui_evpos all[3000];
	struct ui_evrow rows[50];
	struct ui_evwalk w;
	struct ui_evrow r;
	uint64_t seq[3] = { 0 };
	int n = 0;

	CHECK(st != NULL);
	srand(7);
	for (int i = 0; i < 3000; i++) {
		struct ktop_event ev = { 0 };
		unsigned int c = (unsigned int)rand() % 3;

		/* shared timestamps across CPUs on purpose: ties are ordered by cpu, seq */
		ev.cpu = (uint16_t)c;
		ev.ts = 1000 + (uint64_t)i / 4 * 10;
		ev.type = KTOP_T_SCHED_WAKEUP;
		CHECK(store_append(st, &ev) == 0);
		all[n++] = (struct ui_evpos){ ev.ts, seq[c]++, c };
	}
	for (unsigned int c = 0; c < 3; c++)
		store_publish(st, c);
	qsort(all, (size_t)n, sizeof(all[0]), cmp_pos);

	CHECK(ui_evwalk_init(&w, st, &UI_EVPOS_START, 1, true) == 0);
	for (int i = 0; i < n; i++) {
		struct ui_evpos p;

		CHECK(ui_evwalk_next(&w, &r));
		p = ui_evpos_of(&r);
		CHECK(ui_evpos_cmp(&p, &all[i]) == 0);
	}
	CHECK(!ui_evwalk_next(&w, &r));
	ui_evwalk_destroy(&w);

	/* backwards from the middle, exclusive and inclusive */
	CHECK(ui_evwalk_init(&w, st, &all[1500], -1, false) == 0);
	for (int i = 1499; i >= 1400; i--) {
		struct ui_evpos p;

		CHECK(ui_evwalk_next(&w, &r));
		p = ui_evpos_of(&r);
		CHECK(ui_evpos_cmp(&p, &all[i]) == 0);
	}
	ui_evwalk_destroy(&w);
	CHECK(ui_ev_before(st, &all[1500], true, rows, 50) == 50);
	for (int i = 0; i < 50; i++) {
		struct ui_evpos p = ui_evpos_of(&rows[i]);

		CHECK(ui_evpos_cmp(&p, &all[1451 + i]) == 0);
	}
	CHECK(ui_ev_before(st, &UI_EVPOS_END, true, rows, 50) == 50);
	{
		struct ui_evpos p = ui_evpos_of(&rows[49]);

		CHECK(ui_evpos_cmp(&p, &all[n - 1]) == 0);
	}
	CHECK(ui_ev_after(st, &all[n - 3], false, rows, 50) == 2);
	CHECK(ui_ev_before(st, &all[2], false, rows, 50) == 2);
	store_free(st);
}

/* ---- incremental statistics -------------------------------------------------- */

TEST(stats_counts_pairs_and_narrowing)
{
	struct store *st = store_new(0, 2);
	const struct ui_top_ent *rows[16];
	struct ui_narrow nw = { .pid = 7, .cpu = -1 };
	struct ui_stats s;
	uint64_t irqs_off = 0, nsys7 = 0;
	size_t n;

	CHECK(st != NULL);
	CHECK(ui_stats_init(&s, st) == 0);
	for (int i = 0; i < 1000; i++) {
		struct ktop_event ev = { 0 };

		ev.cpu = (uint16_t)(i & 1);
		ev.pid = i % 3 == 0 ? 7 : 8;
		ev.ts = 1000000 + (uint64_t)i * 100;
		ev.flags = i % 5 == 0 ? KTOP_KF_IRQS_OFF : 0;
		irqs_off += ev.cpu == 0 && i % 5 == 0;
		/* each sys_enter is followed 100 ns later by its sys_exit (2 events per pair) */
		ev.type = i % 2 == 0 ? KTOP_T_SYS_ENTER : KTOP_T_SYS_EXIT;
		ev.cpu = 0;
		ev.pid = (i / 2) % 3 == 0 ? 7 : 8;
		ev.args[0] = 39;
		ev.nargs = 2;
		nsys7 += ev.pid == 7 && ev.type == KTOP_T_SYS_ENTER;
		CHECK(store_append(st, &ev) == 0);
	}
	store_publish(st, 0);
	CHECK_EQ_U64(ui_stats_ingest(&s, 0, NULL), 1000);
	ui_stats_tick(&s, clock_mono_ns() + 1000000000ull);
	n = ui_stats_sorted(&s, UI_SORT_COUNT, rows, 16);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(rows[0]->count, 500);
	CHECK(UI_TOP_TYPE(rows[0]->key) == KTOP_T_SYS_ENTER || UI_TOP_TYPE(rows[1]->key) ==
	      KTOP_T_SYS_ENTER);
	for (size_t i = 0; i < n; i++) {
		if (UI_TOP_TYPE(rows[i]->key) != KTOP_T_SYS_ENTER)
			continue;
		CHECK_EQ_U64(UI_TOP_SUB(rows[i]->key), 39);
		CHECK_EQ_U64(rows[i]->dur_n, 500);
		CHECK_EQ_U64(rows[i]->dur_max, 100);
		CHECK_EQ_U64(rows[i]->dur_total, 500 * 100);
	}
	CHECK_EQ_U64(s.cpu[0].shown_total, 1000);
	CHECK_EQ_U64(s.cpu[0].shown[UI_FLAG_IRQS_OFF], 200);
	(void)irqs_off;
	/* narrowed to pid 7: recounted from the oldest event held */
	ui_stats_set_narrow(&s, &nw);
	CHECK(s.rescanning);
	ui_stats_ingest(&s, 0, NULL);
	CHECK(!s.rescanning);
	/* the recount read the 1000 events again: "1000 read" still (issue 18, 3.16) */
	CHECK_EQ_U64(s.examined, 1000);
	n = ui_stats_sorted(&s, UI_SORT_COUNT, rows, 16);
	CHECK(n >= 1);
	for (size_t i = 0; i < n; i++)
		if (UI_TOP_TYPE(rows[i]->key) == KTOP_T_SYS_ENTER)
			CHECK_EQ_U64(rows[i]->count, nsys7);
	ui_stats_destroy(&s);
	store_free(st);
}

/* The top view names syscalls ("sys_enter read"); numbers from <sys/syscall.h>. */
TEST(top_name_of_a_syscall)
{
	struct store *st = store_new(0, 1);
	char want[64], buf[128];
	struct ui_stats s;

	CHECK(st != NULL);
	CHECK(ui_stats_init(&s, st) == 0);
	snprintf(want, sizeof(want), "%s read", ui_event_name(st, KTOP_T_SYS_ENTER));
	CHECK_STR(ui_top_name(&s, UI_TOP_KEY(KTOP_T_SYS_ENTER, SYS_read), buf, sizeof(buf)), want);
	snprintf(want, sizeof(want), "%s futex", ui_event_name(st, KTOP_T_SYS_ENTER));
	CHECK_STR(ui_top_name(&s, UI_TOP_KEY(KTOP_T_SYS_ENTER, SYS_futex), buf, sizeof(buf)),
		  want);
	/* no name on this architecture: the number, as before */
	snprintf(want, sizeof(want), "%s id=100000", ui_event_name(st, KTOP_T_SYS_ENTER));
	CHECK_STR(ui_top_name(&s, UI_TOP_KEY(KTOP_T_SYS_ENTER, 100000), buf, sizeof(buf)), want);
	snprintf(want, sizeof(want), "%s id=-1", ui_event_name(st, KTOP_T_SYS_ENTER));
	CHECK_STR(ui_top_name(&s, UI_TOP_KEY(KTOP_T_SYS_ENTER, -1), buf, sizeof(buf)), want);
	ui_stats_destroy(&s);
	store_free(st);
}

/* ---- themes and the config file ----------------------------------------------- */

TEST(theme_files_parse_and_name_every_role)
{
	char *names[32], err[256];
	int n = ui_theme_list(names, 32), found = 0;

	CHECK(n >= 4);
	for (int i = 0; i < n; i++) {
		char path[512], *text;
		struct ui_theme t;

		snprintf(path, sizeof(path), "themes/%s.theme", names[i]);
		text = fixture_read_file(path, NULL);
		if (!text)
			continue;
		found += !strcmp(names[i], "default") || !strcmp(names[i], "light") ||
			 !strcmp(names[i], "mono") || !strcmp(names[i], "high-contrast");
		if (ui_theme_parse(&t, names[i], text, err, sizeof(err)))
			printf("  %s: %s\n", path, err);
		CHECK(ui_theme_parse(&t, names[i], text, err, sizeof(err)) == 0);
		/* every role is set by the file itself, not left to the built-in */
		for (int r = 0; r < ROLE_NR; r++) {
			char key[64];

			snprintf(key, sizeof(key), "\n%s =", ui_role_name((enum ui_role)r));
			if (!strstr(text, key))
				printf("  %s: no role %s\n", path, ui_role_name((enum ui_role)r));
			CHECK(strstr(text, key) != NULL);
		}
		free(text);
		free(names[i]);
	}
	CHECK(found == 4);
}

TEST(theme_parse_rejects_bad_lines)
{
	struct ui_theme t;
	char err[128];

	CHECK(ui_theme_parse(&t, "x", "header = white blue bold\n", err, sizeof(err)) == 0);
	CHECK(t.style[ROLE_HEADER].fg8 == 7 && t.style[ROLE_HEADER].bg8 == 4);
	CHECK(t.style[ROLE_HEADER].attr == UI_A_BOLD);
	CHECK(ui_theme_parse(&t, "x", "dim = 244/black default\n", err, sizeof(err)) == 0);
	CHECK(t.style[ROLE_DIM].fg == 244 && t.style[ROLE_DIM].fg8 == 0);
	CHECK(ui_theme_parse(&t, "x", "# c\n\nheader = mauve blue\n", err, sizeof(err)) ==
	      -EINVAL);
	CHECK(strstr(err, "line 3") != NULL);
	CHECK(ui_theme_parse(&t, "x", "nosuchrole = red blue\n", err, sizeof(err)) == -EINVAL);
	CHECK(ui_theme_parse(&t, "x", "header = red\n", err, sizeof(err)) == -EINVAL);
	CHECK(ui_theme_load(&t, "../etc/passwd", err, sizeof(err)) == -ENOENT);
}

TEST(config_set_get_round_trip)
{
	char dir[] = "/tmp/ktop-ui-conf.XXXXXX", val[64], path[512], why[256], *old;

	CHECK(mkdtemp(dir) != NULL);
	old = getenv("XDG_CONFIG_HOME") ? strdup(getenv("XDG_CONFIG_HOME")) : NULL;
	setenv("XDG_CONFIG_HOME", dir, 1);
	CHECK(ui_config_get("theme", val, sizeof(val)) < 0);
	CHECK(ui_config_set("other", "1", why, sizeof(why)) == 0);
	CHECK(ui_config_set("theme", "light", why, sizeof(why)) == 0);
	CHECK(ui_config_set("theme", "mono", why, sizeof(why)) == 0);
	CHECK(ui_config_get("theme", val, sizeof(val)) == 0);
	CHECK_STR(val, "mono");
	CHECK(ui_config_get("other", val, sizeof(val)) == 0);
	CHECK_STR(val, "1");
	ui_config_path(path, sizeof(path));
	CHECK(strstr(path, "/ktop/ktop.conf") != NULL);
	unlink(path);
	snprintf(path, sizeof(path), "%s/ktop", dir);
	rmdir(path);
	rmdir(dir);
	if (old)
		setenv("XDG_CONFIG_HOME", old, 1);
	else
		unsetenv("XDG_CONFIG_HOME");
	free(old);
}

/*
 * Issue 31 #3: an event whose context the kernel did not record (a uprobe
 * hit here: flags and preempt count 0xff, "DBZff" in the kernel's text) shows
 * "?????" in the event list's flags column, not irqs-off, NMI and the rest.
 */
TEST(event_list_flags_not_recorded)
{
	struct fixture *fx;
	struct store *st = load_fixture("host-sched", &fx);
	struct ui_evwalk w;
	struct ui_evrow r;
	struct richstr rs;

	CHECK(st != NULL);
	CHECK(ui_evwalk_init(&w, st, &UI_EVPOS_START, 1, true) == 0);
	CHECK(ui_evwalk_next(&w, &r));
	ui_fmt_event(&rs, st, FLAGS_STYLE_LAZY, &r.ev);
	CHECK(!strstr(rs.ch, "] ?????"));
	r.ev.flags = 0xff;
	r.ev.pc = 0xff;
	ui_fmt_event(&rs, st, FLAGS_STYLE_LAZY, &r.ev);
	CHECK(strstr(rs.ch, "] ????? "));
	ui_evwalk_destroy(&w);
	store_free(st);
	fixture_close(fx);
}

TEST_MAIN()
