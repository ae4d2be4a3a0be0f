// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The BPF pane's row formatting (ui/bpf_format.c), without a terminal or BPF:
 * histogram rows in the layout of bcc's print_log2_hist, sparklines, top-task
 * and outlier rows; and the pane's histogram block (ui/pane_bpf.c) drawn into
 * a text screen at any height. Expected figures are computed here from the
 * inputs, not copied from the output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test.h"

#include "../../ui/richstr.c"
#include "../../ui/format.c"
#include "../../ui/bpf_format.c"
#include "../../ui/evnav.c"
#include "../../ui/rowsel.c"
#include "../../ui/lineedit.c"
#include "../../ui/route.c"
#include "../../ui/prompt_view.c"
#include "../../ui/pane_bpf.c"

#include "app.h"
#include "text_screen.h"

void ui_draw_unavailable(struct ui *ui, int y, int h, int w, const char *title,
			 const int *features, int nfeatures, const char *plan)
{
}

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
		rows = draw_hist(&ui, 0, 0, height, 120, "Run-queue latency", &h);
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
	draw_hist(&ui, 0, 0, 2, 120, "Run-queue latency", &h);
	CHECK(strstr(scr[0], "n=") && strstr(scr[0], "no room"));
}

TEST_MAIN()
