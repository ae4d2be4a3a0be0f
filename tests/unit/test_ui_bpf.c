// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The BPF pane's row formatting (ui/panes/bpf_rows.c), without a terminal or BPF:
 * histogram rows in the layout of bcc's print_log2_hist, sparklines, top-task
 * and outlier rows; and the pane's histogram block (bpf_draw_hist) drawn into
 * a text screen at any height. Expected figures are computed here from the
 * inputs, not copied from the output.
 *
 * The off-CPU view (o) on real kernel stacks (tests/fixtures/stacks-host:
 * tests/tools/stackload sleeping in nanosleep(2), the kernel's own stacks
 * of its switches) given off-CPU times: every task's stacks merged, then
 * the selected task's, by time, each row's frames from where it blocked;
 * Enter/i/y ask the stacks pane for that task's stacks with a typed request
 * (a stand-in pane records it); without --offcpu it says how to turn it on;
 * on a short screen the rows scroll and the title says which are shown.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test.h"

#include "app/app.h"
#include "bpfstats/bpfstats.h"
#include "lib/intern.h"
#include "panes/bpf_rows.h"
#include "stacks_text.h"
#include "store/stacks.h"
#include "view/viewfilter.h"
#include "ui-local.h"
#include "text_screen.h"

#define OFF_FRAMES	64	/* frames of a stack read here */

static int count_char(const char *s, char c)
{
	int n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

TEST(hist_row_has_bcc_layout_and_scaled_stars)
{
	struct bpfstats_hist h = { 0 };
	struct richstr rs;
	char want[128];

	h.slot[10] = 17;
	h.slot[11] = 34;
	CHECK_EQ_U64(bpf_hist_max(&h), 34);
	bpf_fmt_hist_row(&rs, &h, 10, bpf_hist_max(&h), 32);
	/* bcc: "%*lld -> %-*lld : %-8d |" with width 10, slot k = [2^k, 2^(k+1) - 1] */
	snprintf(want, sizeof(want), "%10d -> %-10d : %-8d |", 1 << 10, (1 << 11) - 1, 17);
	CHECK(!strncmp(rs.ch, want, strlen(want)));
	CHECK(count_char(rs.ch, '*') == 16);		/* 17 / 34 of 32 */
	CHECK(rs.ch[rs.len - 1] == '|');
	CHECK(rs.len == (int)strlen(want) + 32 + 1);	/* the bar always 32 wide */
	bpf_fmt_hist_row(&rs, &h, 11, bpf_hist_max(&h), 32);
	CHECK(count_char(rs.ch, '*') == 32);
}

TEST(hist_row_slot0_small_and_empty)
{
	struct bpfstats_hist h = { 0 };
	struct richstr rs;

	h.slot[0] = 1;
	h.slot[5] = 100000;
	bpf_fmt_hist_row(&rs, &h, 0, bpf_hist_max(&h), 32);
	CHECK(!strncmp(rs.ch, "         0 -> 1          : 1 ", 29));
	CHECK(count_char(rs.ch, '*') == 1);	/* not empty: at least one star */
	bpf_fmt_hist_row(&rs, &h, 3, bpf_hist_max(&h), 32);
	CHECK(count_char(rs.ch, '*') == 0);
	CHECK(strstr(rs.ch, ": 0 ") != NULL);
}

TEST(hist_span_first_and_end)
{
	struct bpfstats_hist h = { 0 };
	int first, end;

	bpf_hist_span(&h, &first, &end);
	CHECK(first == 0 && end == 0);
	h.slot[3] = 1;
	h.slot[7] = 2;
	bpf_hist_span(&h, &first, &end);
	CHECK(first == 3 && end == 8);
}

TEST(hist_header_lines_up_with_rows)
{
	struct bpfstats_hist h = { 0 };
	struct richstr hd, row;

	h.slot[4] = 1;
	bpf_fmt_hist_header(&hd, "nsecs");
	bpf_fmt_hist_row(&row, &h, 4, 1, 32);
	/* the " : " separators are in the same column */
	CHECK(strstr(hd.ch, " : count") - hd.ch == strstr(row.ch, " : ") - row.ch);
	CHECK(strstr(hd.ch, "nsecs") != NULL);
}

TEST(sparkline_levels_and_padding)
{
	static const char lv[] = BPF_SPARK_LEVELS;
	const int top = (int)strlen(lv) - 1;
	double v[] = { 0, 1, 2, 4, 8 };
	struct richstr rs;

	richstr_clear(&rs);
	bpf_fmt_spark(&rs, ROLE_BAR, v, 5, 8);
	CHECK(rs.len == 8);
	CHECK(!strncmp(rs.ch, "    ", 4));		/* 3 pad + the zero sample */
	CHECK(rs.ch[7] == lv[top]);			/* the largest: the top level */
	CHECK(rs.ch[6] == lv[(int)(4.0 / 8 * top + 0.5)]);
	CHECK(rs.ch[4] == lv[1]);			/* 1/8 of top rounds to >= 1 */
	CHECK(rs.role[7] == ROLE_BAR);
	/* more samples than cells: the newest @width, scaled among themselves */
	richstr_clear(&rs);
	bpf_fmt_spark(&rs, ROLE_BAR, v, 5, 2);
	CHECK(rs.len == 2);
	CHECK(rs.ch[1] == lv[top] && rs.ch[0] == lv[(int)(4.0 / 8 * top + 0.5)]);
	/* all zero: blank, no division by zero */
	richstr_clear(&rs);
	bpf_fmt_spark(&rs, ROLE_BAR, v, 1, 3);
	CHECK_STR(rs.ch, "   ");
}

TEST(task_row_offcpu_and_runq)
{
	struct bpfstats_task t = { .tid = 4242, .tgid = 4242, .offcpu_ns = 3000000,
				   .offcpu_n = 3, .runq_ns = 5000, .runq_n = 2,
				   .runq_max_ns = 4000 };
	struct richstr rs, hd;
	char avg[32], max[32];

	memcpy(t.comm, "abcdefghijklmnop", BPFSTATS_COMM_LEN);	/* 16 bytes, no NUL */
	bpf_fmt_task_row(&rs, &t, BPFSTATS_BY_OFFCPU);
	CHECK(strstr(rs.ch, "4242 abcdefghijklmnop ") != NULL);
	CHECK(strstr(rs.ch, ui_fmt_dur(avg, sizeof(avg), 1000000)) != NULL);	/* 3 ms / 3 */
	bpf_fmt_task_header(&hd, BPFSTATS_BY_OFFCPU);
	CHECK(hd.len == rs.len);
	bpf_fmt_task_row(&rs, &t, BPFSTATS_BY_RUNQ);
	CHECK(strstr(rs.ch, ui_fmt_dur(max, sizeof(max), 4000)) != NULL);
	bpf_fmt_task_header(&hd, BPFSTATS_BY_RUNQ);
	CHECK(strstr(hd.ch, "RUNQ") && strstr(hd.ch, "MAX"));
}

TEST(outlier_row_timestamp_as_event_list)
{
	struct bpfstats_outlier o = { .seq = 1, .ts = 4388234493623ull, .latency_ns = 12580000,
				      .pid = 5349, .cpu = 1, .prev_pid = 16039 };
	struct richstr rs;
	char ts[32], lat[32];

	memcpy(o.comm, "kworker/0:1", 12);
	memcpy(o.prev_comm, "qemu-system-x86", 16);
	bpf_fmt_outlier_row(&rs, &o);
	/* the kernel's trace prints microseconds rounded: %.6f of the seconds does too */
	snprintf(ts, sizeof(ts), "%.6f", (double)o.ts / 1e9);
	CHECK(strstr(rs.ch, ts) != NULL);
	CHECK(strstr(rs.ch, ui_fmt_dur(lat, sizeof(lat), o.latency_ns)) != NULL);
	CHECK(strstr(rs.ch, " 5349 kworker/0:1 ") != NULL);
	CHECK(strstr(rs.ch, "16039 qemu-system-x86") != NULL);
}

/* Sum the counts of the histogram rows on screen rows [y, y + h); their lowest and highest bound. */
static uint64_t screen_hist(int y, int h, uint64_t *lo, uint64_t *hi)
{
	uint64_t sum = 0;

	*lo = UINT64_MAX;
	*hi = 0;
	for (int r = y; r < y + h && r < SCR_ROWS; r++) {
		unsigned long long a, b, c;

		if (sscanf(scr[r], " %llu -> %llu : %llu", &a, &b, &c) != 3)
			continue;
		sum += c;
		if (a < *lo)
			*lo = a;
		if (b > *hi)
			*hi = b;
	}
	return sum;
}

/*
 * Issue 18 #3.3: a histogram block shorter than its slots keeps every sample
 * on the screen (slots share rows, the title says how many), from the lowest
 * slot with samples to the highest; with no row for slots at all it says so.
 */
TEST(hist_block_keeps_every_sample_when_short)
{
	struct bpfstats_hist h = { 0 };
	struct ui ui = { 0 };

	/* 21 slots: 1 us to 2 s */
	for (int k = 10; k <= 30; k++) {
		h.slot[k] = (uint64_t)(k * 7 % 13 + 1);
		h.count += h.slot[k];
		h.sum_ns += h.slot[k] << k;
	}
	for (int height = 30; height >= 3; height--) {
		uint64_t lo, hi, sum;
		int rows;

		text_screen_clear();
		rows = bpf_draw_hist(&ui.screen, 0, 0, height, 120, "Run-queue latency", &h);
		CHECK(rows <= height);
		sum = screen_hist(0, height, &lo, &hi);
		if (sum != h.count || lo != 1u << 10 || hi != (1ull << 31) - 1)
			printf("  %d rows: %llu of %llu, %llu -> %llu\n", height,
			       (unsigned long long)sum, (unsigned long long)h.count,
			       (unsigned long long)lo, (unsigned long long)hi);
		CHECK_EQ_U64(sum, h.count);
		CHECK_EQ_U64(lo, 1u << 10);
		CHECK_EQ_U64(hi, (1ull << 31) - 1);
		CHECK((strstr(scr[0], "slots a row") != NULL) == (height - 2 < 21));
	}
	text_screen_clear();
	bpf_draw_hist(&ui.screen, 0, 0, 2, 120, "Run-queue latency", &h);
	CHECK(strstr(scr[0], "n=") && strstr(scr[0], "no room"));
}

/* ---- the off-CPU view ---------------------------------------------------------------- */

#define LOAD_TID	27932	/* stackload in the fixture (its trace.txt) */
#define OTHER_TID	100

static struct {
	struct app		app;
	struct ui		ui;
	struct res		r;
	struct bpfstats		*b;
	uint32_t		sleep, other;	/* a stack through do_nanosleep, one without */
	struct ui_req		req;		/* the last request the stand-in took */
	char			what[160];	/* ... its words */
	int			nreq;
} orig;

/*
 * The source the BPF pane asks: the fed statistics (or none, and why), no
 * off-CPU object (and why).
 */
static char offcpu_why[64], bpf_why[64];
static bool bpf_none;

static struct bpfstats *orig_bpf(const struct source *s, const char **why)
{
	if (why)
		*why = bpf_why;
	return bpf_none ? NULL : orig.b;
}

static struct bpf_offcpu *orig_offcpu(const struct source *s, const char **why)
{
	if (why)
		*why = offcpu_why;
	return NULL;
}

static int orig_offcpu_poll(struct source *s)
{
	return -ENODEV;
}

static const struct source_stacks_ops orig_stacks = {
	.offcpu = orig_offcpu, .offcpu_poll = orig_offcpu_poll,
};
static const struct source_ops orig_ops = { .name = "test", .bpf = orig_bpf,
					    .stacks = &orig_stacks };
static struct source orig_src = { .ops = &orig_ops };

static struct bpfstats_raw_cpu ocpu[2];
static struct bpfstats_task otask[2];
static bool odead[2];

static int standin_request(struct ui *ui, struct pane *p, const struct ui_req *r)
{
	orig.req = *r;
	snprintf(orig.what, sizeof(orig.what), "%s", r->stacks.what ? r->stacks.what : "");
	orig.nreq++;
	return UI_HANDLED | UI_REDRAW;
}

static const struct pane_ops standin_stacks = {
	.name = "stacks", .label = "Stacks", .request = standin_request,
};

/* Whether stack @id's frames hold @name. */
static bool stack_has(struct store *st, uint32_t id, const char *name)
{
	uint32_t ids[OFF_FRAMES];
	int n = stacks_names(store_stacks(st), id, ids, OFF_FRAMES);

	for (int k = 0; k < n && k < OFF_FRAMES; k++)
		if (ids[k] && !strcmp(intern_str(store_strings(st), ids[k]), name))
			return true;
	return false;
}

/* "schedule <- do_nanosleep <- ..." of stack @id as the row should show it (up to @max). */
static void stack_line(struct store *st, uint32_t id, char *buf, size_t max)
{
	uint32_t ids[OFF_FRAMES];
	int n = stacks_names(store_stacks(st), id, ids, OFF_FRAMES), from = 0;
	size_t len = 0;

	/* from the frame above __schedule (the kernel's stacks start in the tracepoint) */
	for (int k = 0; k + 1 < n && k < 8; k++)
		if (!strcmp(intern_str(store_strings(st), ids[k]), "__schedule"))
			from = k + 1;
	buf[0] = '\0';
	for (int k = from; k < n && k < OFF_FRAMES && len + 1 < max; k++)
		len += (size_t)snprintf(buf + len, max - len, "%s%s", len ? " <- " : "",
					intern_str(store_strings(st), ids[k]));
}

/* The BPF pane on the fixture's stacks, @with_offcpu: off-CPU times given. */
static bool orig_open(bool with_offcpu)
{
	static const struct pane_ops *const panes[] = { &pane_bpf_ops, &standin_stacks };
	struct bpfstats_raw raw = { 0 };
	char dir[400];
	struct store *st;

	memset(&orig, 0, sizeof(orig));
	snprintf(dir, sizeof(dir), "%s/stacks-host", fixture_root());
	st = fixture_stacks_store(dir, &orig.r);
	if (!st)
		return false;
	for (uint32_t id = 1; id <= stacks_count(store_stacks(st)); id++) {
		struct stack_info si;

		if (stacks_get(store_stacks(st), id, &si) || !si.nkern)
			continue;
		if (!orig.sleep && stack_has(st, id, "do_nanosleep"))
			orig.sleep = id;
		else if (!orig.other && !stack_has(st, id, "do_nanosleep") && si.nkern > 2)
			orig.other = id;
	}
	if (!orig.sleep || !orig.other)
		return false;
	if (with_offcpu) {
		/* stackload: 49 sleeps for 980 ms, 3 other waits for 20 ms; another task 300 ms */
		struct stack_weight w[] = {
			{ orig.sleep, LOAD_TID, 49, 980000000 },
			{ orig.other, LOAD_TID, 3, 20000000 },
			{ orig.other, OTHER_TID, 5, 300000000 },
		};

		if (stacks_weights_set(store_stacks(st), STACKS_W_OFFCPU, w, 3))
			return false;
	}
	/* the BPF statistics: the two tasks by time off CPU */
	raw.mono_ns = 1000000000;
	raw.ncpus = raw.nonline = 2;
	strcpy(raw.mode, "tp_btf");
	raw.interval = 0.5;
	raw.cpu = ocpu;
	otask[0] = (struct bpfstats_task){ .tid = LOAD_TID, .tgid = LOAD_TID, .comm = "stackload",
					   .offcpu_ns = 1000000000, .offcpu_n = 52 };
	otask[1] = (struct bpfstats_task){ .tid = OTHER_TID, .tgid = OTHER_TID, .comm = "kworker/0:1",
					   .offcpu_ns = 300000000, .offcpu_n = 5 };
	raw.task = otask;
	raw.task_dead = odead;
	raw.ntask = 2;
	if (bpfstats_new_fed(&orig.b, &raw, NULL) || bpfstats_feed(orig.b, &raw))
		return false;
	orig.app.st = st;
	orig.app.src = &orig_src;
	offcpu_why[0] = '\0';
	bpf_why[0] = '\0';
	bpf_none = false;
	orig.ui.app = &orig.app;
	orig.ui.st = st;
	orig.ui.screen.rows = SCR_ROWS;
	orig.ui.screen.cols = SCR_COLS;
	return !ui_views_init(&orig.ui, panes, 2, NULL, 0);
}

static void orig_close(void)
{
	ui_views_destroy(&orig.ui);
	bpfstats_free(orig.b);
	store_free(orig.app.st);
	symbols_free(orig.r.ksyms);
}

static int okey(enum ui_action act)
{
	struct pane *p = ui_pane(&orig.ui, "bpf");

	return p->ops->key(&orig.ui, p, act);
}

static void odraw(void)
{
	text_screen_draw(&orig.ui, ui_pane(&orig.ui, "bpf"));
}

/* The screen row holding @s, or -1. */
static int row_of(const char *s)
{
	for (int r = 0; r < SCR_ROWS; r++)
		if (strstr(scr[r], s))
			return r;
	return -1;
}

/* The stack row whose frames are @id's: its time, share and switches as given. */
static bool stack_row_is(uint32_t id, uint64_t ns, double share, uint64_t count)
{
	char line[600], want[700], b1[32], b2[32];
	int r;

	stack_line(orig.app.st, id, line, 60);
	snprintf(want, sizeof(want), "%9s %5.1f%% %8s  %.40s", ui_fmt_dur(b1, sizeof(b1), ns), share,
		 ui_fmt_count(b2, sizeof(b2), count), line);
	r = row_of(want);
	if (r < 0)
		printf("  no row \"%s\"\n", want);
	return r >= 0;
}

TEST(offcpu_view_every_task_then_the_selected_task)
{
	char b1[32];
	int r;

	CHECK(orig_open(true));
	CHECK(okey(ACT_STACK_SOURCE) & UI_HANDLED);
	odraw();
	CHECK(row_of("Off-CPU time by task") >= 0);
	/* every task: the stacks merged across tasks, by time */
	r = row_of("> " "  (every task)");
	CHECK(r >= 0);
	CHECK(row_of("Off-CPU stacks of every task") >= 0);
	CHECK(strstr(scr[row_of("Off-CPU stacks of every task")],
		     ui_fmt_dur(b1, sizeof(b1), 1300000000)) != NULL);
	CHECK(stack_row_is(orig.sleep, 980000000, 980.0 / 13, 49));
	CHECK(stack_row_is(orig.other, 320000000, 320.0 / 13, 8));
	CHECK(row_of("schedule <- do_nanosleep <- hrtimer_nanosleep") >= 0);
	CHECK(row_of("__schedule") < 0);	/* on every such stack: left out */
	/* the first task (most time off CPU): its own stacks only */
	okey(ACT_DOWN);
	odraw();
	CHECK(row_of("Off-CPU stacks of 27932 stackload") >= 0);
	CHECK(row_of(">   27932 stackload") >= 0);
	CHECK(stack_row_is(orig.sleep, 980000000, 98.0, 49));
	CHECK(stack_row_is(orig.other, 20000000, 2.0, 3));
	/* the next: no nanosleep of its own */
	okey(ACT_DOWN);
	odraw();
	CHECK(row_of("Off-CPU stacks of 100 kworker/0:1") >= 0);
	CHECK(stack_row_is(orig.other, 300000000, 100.0, 5));
	CHECK(row_of("do_nanosleep") < 0);
	/* o: back to the histograms and outliers */
	okey(ACT_STACK_SOURCE);
	odraw();
	CHECK(row_of("Off-CPU time by task") < 0 && row_of("Run-queue latency outliers") >= 0);
	orig_close();
}

TEST(offcpu_view_opens_the_stacks_pane_by_request)
{
	CHECK(orig_open(true));
	okey(ACT_STACK_SOURCE);
	odraw();
	okey(ACT_DOWN);		/* stackload */
	odraw();
	CHECK(okey(ACT_STACK_ICICLE) & UI_HANDLED);
	CHECK(orig.nreq == 1 && orig.req.kind == UI_REQ_STACKS);
	CHECK(orig.req.stacks.icicle && orig.req.stacks.src == SV_SRC_OFFCPU);
	CHECK(orig.req.stacks.pid == LOAD_TID);
	CHECK(orig.req.stacks.stack == orig.sleep);	/* the top stack selected */
	CHECK(strstr(orig.what, "27932 stackload") != NULL);
	CHECK(ui_showing(&orig.ui, "stacks"));
	/* back, the next stack, the caller tree */
	orig.ui.active = ui_pane(&orig.ui, "bpf");
	okey(ACT_NEXT_SIBLING);
	odraw();
	CHECK(row_of(">   20.00ms") >= 0);
	CHECK(okey(ACT_STACK_CALLERS) & UI_HANDLED);
	CHECK(orig.nreq == 2 && !orig.req.stacks.icicle && orig.req.stacks.stack == orig.other);
	/* Enter: the icicle; every task: pid 0 */
	orig.ui.active = ui_pane(&orig.ui, "bpf");
	okey(ACT_HOME);
	odraw();
	CHECK(okey(ACT_ENTER) & UI_HANDLED);
	CHECK(orig.nreq == 3 && orig.req.stacks.icicle && orig.req.stacks.pid == 0);
	orig_close();
}

/*
 * Off-CPU stacks without the BPF statistics (a recording that has the one and
 * not the other): the pane says what is off, and shows the off-CPU view, its
 * tasks by the stacks' own totals; the keys work as with the statistics.
 */
TEST(offcpu_view_without_bpf_statistics)
{
	char want[64], b1[32];

	CHECK(orig_open(true));
	bpf_none = true;
	snprintf(bpf_why, sizeof(bpf_why), "BPF statistics: not in this recording");
	odraw();
	CHECK(row_of("BPF statistics: not in this recording; off-CPU stacks below") >= 0);
	CHECK(row_of("Off-CPU time by task") >= 0 && row_of("2 tasks") >= 0);
	CHECK(row_of("Run-queue latency") < 0);
	/* stackload: 1.00 s in 52 switches (its two stacks), first; the other 300 ms in 5 */
	snprintf(want, sizeof(want), "27932 %-16s %9s %8s", "stackload",
		 ui_fmt_dur(b1, sizeof(b1), 1000000000), "52");
	CHECK(row_of(want) >= 0 && row_of(want) < row_of("    100 <...>"));
	CHECK(stack_row_is(orig.sleep, 980000000, 980.0 / 13, 49));
	/* the first task, its icicle through the stacks pane */
	CHECK(okey(ACT_DOWN) & UI_HANDLED);
	odraw();
	CHECK(row_of("Off-CPU stacks of 27932 stackload") >= 0);
	CHECK(okey(ACT_STACK_ICICLE) & UI_HANDLED);
	CHECK(orig.nreq == 1 && orig.req.stacks.src == SV_SRC_OFFCPU);
	CHECK(orig.req.stacks.pid == LOAD_TID && orig.req.stacks.stack == orig.sleep);
	/* o switches to nothing: the off-CPU view is all there is */
	orig.ui.active = ui_pane(&orig.ui, "bpf");
	CHECK(okey(ACT_STACK_SOURCE) == 0);
	orig_close();
}

TEST(offcpu_view_without_offcpu_says_how)
{
	CHECK(orig_open(false));
	snprintf(offcpu_why, sizeof(offcpu_why), "not asked for");
	okey(ACT_STACK_SOURCE);
	odraw();
	CHECK(row_of("start ktop with --offcpu") >= 0);
	CHECK(row_of("Here: not asked for") >= 0);
	/* the tasks are still listed; i says why and asks nothing */
	CHECK(row_of("27932 stackload") >= 0);
	CHECK(okey(ACT_STACK_ICICLE) & UI_HANDLED);
	CHECK(orig.nreq == 0 && strstr(orig.ui.message, "--offcpu"));
	orig_close();
}

/* A short screen: the stacks scroll with the selection, the title says which rows are shown. */
TEST(offcpu_view_short_screen_scrolls)
{
	struct stack_weight w[20];
	struct pane *p;
	char want[64];
	uint32_t n = 0;

	CHECK(orig_open(true));
	for (uint32_t id = 1; id <= stacks_count(store_stacks(orig.app.st)) && n < 20; id++)
		w[n] = (struct stack_weight){ id, LOAD_TID, 1, 1000000ull * (100 - n) }, n++;
	CHECK(n == 20);
	CHECK(!stacks_weights_set(store_stacks(orig.app.st), STACKS_W_OFFCPU, w, n));
	p = ui_pane(&orig.ui, "bpf");
	okey(ACT_STACK_SOURCE);
	for (int h = 14; h >= 9; h--) {
		int shown;

		okey(ACT_HOME);
		text_screen_clear();
		p->ops->draw(&orig.ui, p, 0, h, 120);
		/* the stack rows on the screen: under their header, each with its share */
		shown = 0;
		for (int r = row_of("SHARE SWITCHES") + 1; r > 0 && r < h; r++)
			shown += strchr(scr[r], '%') != NULL;
		CHECK(shown >= 1);
		snprintf(want, sizeof(want), "rows 1-%d of 20", shown);
		CHECK(row_of(want) >= 0);
		for (int k = 0; k < 19; k++)
			okey(ACT_NEXT_SIBLING);
		text_screen_clear();
		p->ops->draw(&orig.ui, p, 0, h, 120);
		snprintf(want, sizeof(want), "rows %d-20 of 20", 21 - shown);
		CHECK(row_of(want) >= 0);
		/* the last stack (1 ms less per row: 81 ms) is on the screen, selected */
		CHECK(row_of(">   81.00ms") >= 0);
		if (row_of(">   81.00ms") < 0)
			for (int r = 0; r < h; r++)
				printf("  %d rows |%.110s\n", h, scr[r]);
		for (int k = 0; k < 19; k++)
			okey(ACT_PREV_SIBLING);
	}
	orig_close();
}

/*
 * Under a view filter the task list holds the view's tasks, and the "every
 * task" row their stacks only; widening the view brings the others back.
 */
TEST(offcpu_view_lists_the_tasks_of_the_view)
{
	static const struct prompt_ops *const prompts[] = { &prompt_view_ops };
	static const struct pane_ops *const panes[] = { &pane_bpf_ops, &standin_stacks };

	CHECK(orig_open(true));
	ui_views_destroy(&orig.ui);
	orig.app.view = viewfilter_new(orig.app.st, NULL);
	CHECK(orig.app.view && !ui_views_init(&orig.ui, panes, 2, prompts, 1));
	CHECK(ui_request(&orig.ui, &(struct ui_req){
		.kind = UI_REQ_NARROW, .view = { .what = UI_VIEW_CLAUSE, .text = "pid:100" },
	}));
	orig.ui.active = ui_pane(&orig.ui, "bpf");
	okey(ACT_STACK_SOURCE);
	odraw();
	CHECK(row_of("(since start, 1 tasks in the view") >= 0);
	CHECK(row_of("100 kworker/0:1") >= 0 && row_of("27932 stackload") < 0);
	CHECK(row_of("Off-CPU stacks of every task in the view") >= 0);
	CHECK(stack_row_is(orig.other, 300000000, 100.0, 5));
	CHECK(row_of("do_nanosleep") < 0);
	/* every task again */
	CHECK(ui_request(&orig.ui, &(struct ui_req){ .kind = UI_REQ_WIDEN, .view.all = true }));
	orig.ui.active = ui_pane(&orig.ui, "bpf");
	odraw();
	CHECK(row_of("Off-CPU stacks of every task") >= 0 && row_of("in the view") < 0);
	CHECK(stack_row_is(orig.sleep, 980000000, 980.0 / 13, 49));
	CHECK(stack_row_is(orig.other, 320000000, 320.0 / 13, 8));
	orig_close();
	viewfilter_free(orig.app.view);
}

TEST_MAIN()
