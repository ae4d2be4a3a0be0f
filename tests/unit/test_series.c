// SPDX-License-Identifier: GPL-2.0-or-later
/* src/lib/series.c: the sample ring and log2 histogram quantiles. */
#include "test.h"
#include "lib/series.h"
#include "bpfstats/bpfstats.h"
#include <sys/syscall.h>

TEST(series_keeps_newest_in_order)
{
	struct series s;
	double out[8];
	size_t n;
	int i;

	CHECK(series_init(&s, 4) == 0);
	CHECK(series_copy(&s, out, 8) == 0);
	CHECK(series_last(&s) == 0);
	for (i = 1; i <= 6; i++)
		series_push(&s, i);
	n = series_copy(&s, out, 8);
	CHECK_EQ_U64(n, 4);
	CHECK(out[0] == 3 && out[1] == 4 && out[2] == 5 && out[3] == 6);
	n = series_copy(&s, out, 2);	/* the newest two */
	CHECK_EQ_U64(n, 2);
	CHECK(out[0] == 5 && out[1] == 6);
	CHECK(series_last(&s) == 6);
	series_destroy(&s);
	series_destroy(&s);	/* twice is fine */
}

TEST(hist_quantile_inside_the_right_slot)
{
	uint64_t slot[40] = { 0 };
	uint64_t q;

	CHECK_EQ_U64(series_hist_quantile(slot, 40, 0.5), 0);
	/* 90 values in [1024, 2048), 10 in [1M, 2M) */
	slot[10] = 90;
	slot[20] = 10;
	q = series_hist_quantile(slot, 40, 0.5);
	CHECK(q >= 1024 && q < 2048);
	q = series_hist_quantile(slot, 40, 0.99);
	CHECK(q >= (1u << 20) && q < (1u << 21));
	q = series_hist_quantile(slot, 40, 0.9);	/* the last of slot 10 */
	CHECK(q >= 1024 && q <= 2048);
	CHECK(series_hist_quantile(slot, 40, 0) <= 2048);
}

TEST(hist_span_first_and_last_nonempty)
{
	uint64_t slot[8] = { 0 };
	int first = 7, last = 7;

	CHECK(!series_hist_span(slot, 8, &first, &last) && first == -1 && last == -1);
	slot[3] = 1;
	CHECK(series_hist_span(slot, 8, &first, &last) && first == 3 && last == 3);
	slot[0] = slot[7] = 2;
	CHECK(series_hist_span(slot, 8, &first, &last) && first == 0 && last == 7);
	CHECK(series_hist_span(slot, 4, &first, &last) && first == 0 && last == 3);
	CHECK(!series_hist_span(slot, 0, &first, &last) && first == -1);
}

TEST(hist_slot_bounds_as_bcc_prints_them)
{
	uint64_t lo, hi;

	series_hist_slot_bounds(0, &lo, &hi);
	CHECK(lo == 0 && hi == 1);
	series_hist_slot_bounds(1, &lo, &hi);
	CHECK(lo == 2 && hi == 3);
	series_hist_slot_bounds(10, &lo, &hi);
	CHECK(lo == 1024 && hi == 2047);
	series_hist_slot_bounds(39, &lo, &hi);
	CHECK(lo == 1ull << 39 && hi == (1ull << 40) - 1);
	series_hist_slot_bounds(63, &lo, &hi);
	CHECK(lo == 1ull << 63 && hi == UINT64_MAX);
}

TEST(bpfstats_names)
{
	/* the table is generated from <sys/syscall.h>: check it against the libc macros */
	CHECK(bpfstats_syscall_name(SYS_read) && !strcmp(bpfstats_syscall_name(SYS_read), "read"));
	CHECK(bpfstats_syscall_name(SYS_futex) &&
	      !strcmp(bpfstats_syscall_name(SYS_futex), "futex"));
	CHECK(bpfstats_syscall_name(100000) == NULL);
	CHECK(strcmp(bpfstats_metric_name(BPFSTATS_CTXSW), "?") != 0);
	CHECK(!strcmp(bpfstats_metric_name(BPFSTATS_METRIC_NR), "?"));
}

TEST_MAIN()
