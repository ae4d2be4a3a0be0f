// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Row formatting for the BPF pane. The histogram rows copy the layout of
 * bcc's print_log2_hist() (libbpf-tools trace_helpers.c), so a reader who
 * knows runqlat's output reads these at a glance.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "bpf_rows.h"
#include "draw/rowfmt.h"
#include "lib/series.h"

#define HIST_STARS	32	/* the histogram block's bar */

#define HIST_IDX_W	10	/* bcc: width of each bound */

void bpf_fmt_hist_header(struct richstr *rs, const char *unit)
{
	richstr_clear(rs);
	/* bcc: "%*s%-*s : count    distribution" with 5 and 19 for 10-wide bounds */
	richstr_addf(rs, ROLE_COLHDR, "%5s%-19s : count    distribution", "", unit);
}

void bpf_hist_span(const struct bpfstats_hist *h, int *first, int *end)
{
	if (series_hist_span(h->slot, BPFSTATS_SLOTS, first, end))
		++*end;
	else
		*first = *end = 0;
}

uint64_t bpf_hist_max(const struct bpfstats_hist *h)
{
	uint64_t m = 0;

	for (int k = 0; k < BPFSTATS_SLOTS; k++)
		if (h->slot[k] > m)
			m = h->slot[k];
	return m;
}

void bpf_fmt_hist_range(struct richstr *rs, const struct bpfstats_hist *h, int k0, int k1,
			uint64_t max, int stars)
{
	uint64_t low, high, x, v = 0;
	int n;

	series_hist_slot_bounds((unsigned int)k0, &low, &x);
	series_hist_slot_bounds((unsigned int)k1, &x, &high);
	for (int k = k0; k <= k1 && k < BPFSTATS_SLOTS; k++)
		v += h->slot[k];
	n = max ? (int)((double)v * stars / (double)max + 0.5) : 0;
	if (v && !n)
		n = 1;
	if (n > stars)
		n = stars;
	richstr_clear(rs);
	richstr_addf(rs, ROLE_DEFAULT, "%*" PRIu64 " -> %-*" PRIu64 " : ", HIST_IDX_W, low,
		     HIST_IDX_W, high);
	richstr_addf(rs, v ? ROLE_DEFAULT : ROLE_DIM, "%-8" PRIu64 " ", v);
	richstr_add(rs, ROLE_DIM, "|");
	for (int i = 0; i < n; i++)
		richstr_add(rs, ROLE_BAR, "*");
	richstr_pad(rs, ROLE_DEFAULT, rs->len + stars - n);
	richstr_add(rs, ROLE_DIM, "|");
}

void bpf_fmt_hist_row(struct richstr *rs, const struct bpfstats_hist *h, int k, uint64_t max,
		      int stars)
{
	bpf_fmt_hist_range(rs, h, k, k, max, stars);
}

int bpf_hist_group(int first, int end, int rows)
{
	if (rows < 1)
		return 0;
	return end - first <= rows ? 1 : (end - first + rows - 1) / rows;
}

void bpf_fmt_spark(struct richstr *rs, enum ui_role role, const double *v, size_t n, int width)
{
	static const char lv[] = BPF_SPARK_LEVELS;
	const int top = (int)sizeof(lv) - 2;	/* highest level index */
	size_t from = n > (size_t)width ? n - (size_t)width : 0;
	double max = 0;

	for (size_t i = from; i < n; i++)
		if (v[i] > max)
			max = v[i];
	for (int i = (int)(n - from); i < width; i++)
		richstr_add(rs, role, " ");
	for (size_t i = from; i < n; i++) {
		int l = 0;
		char c[2];

		if (v[i] > 0 && max > 0) {
			l = (int)(v[i] / max * top + 0.5);
			if (l < 1)
				l = 1;
			if (l > top)
				l = top;
		}
		c[0] = lv[l];
		c[1] = '\0';
		richstr_add(rs, role, c);
	}
}

void bpf_fmt_task_header(struct richstr *rs, enum bpfstats_sort by)
{
	richstr_clear(rs);
	richstr_addf(rs, ROLE_COLHDR, "%7s %-16s %9s %8s %9s", "TID", "COMM",
		     by == BPFSTATS_BY_OFFCPU ? "OFF-CPU" : "RUNQ", "COUNT",
		     by == BPFSTATS_BY_OFFCPU ? "AVG" : "MAX");
}

void bpf_fmt_task_row(struct richstr *rs, const struct bpfstats_task *t, enum bpfstats_sort by)
{
	uint64_t total = by == BPFSTATS_BY_OFFCPU ? t->offcpu_ns : t->runq_ns;
	uint64_t n = by == BPFSTATS_BY_OFFCPU ? t->offcpu_n : t->runq_n;
	uint64_t last = by == BPFSTATS_BY_OFFCPU ? (n ? total / n : 0) : t->runq_max_ns;
	char comm[BPFSTATS_COMM_LEN + 1], b1[32], b2[32], b3[32];

	memcpy(comm, t->comm, BPFSTATS_COMM_LEN);
	comm[BPFSTATS_COMM_LEN] = '\0';
	richstr_clear(rs);
	richstr_addf(rs, ROLE_PID, "%7u ", t->tid);
	richstr_addf(rs, ROLE_TASK, "%-16s ", comm);
	richstr_addf(rs, ROLE_DEFAULT, "%9s %8s %9s", ui_fmt_dur(b1, sizeof(b1), total),
		     ui_fmt_count(b2, sizeof(b2), n), ui_fmt_dur(b3, sizeof(b3), last));
}

void bpf_fmt_outlier_header(struct richstr *rs)
{
	richstr_clear(rs);
	richstr_addf(rs, ROLE_COLHDR, "%17s %4s %9s %7s %-16s  %s", "TIMESTAMP", "CPU", "RUNQ",
		     "PID", "COMM", "AFTER (pid comm)");
}

void bpf_fmt_outlier_row(struct richstr *rs, const struct bpfstats_outlier *o)
{
	char comm[BPFSTATS_COMM_LEN + 1], prev[BPFSTATS_COMM_LEN + 1], b[32];
	uint64_t us = (o->ts + 500) / 1000;

	memcpy(comm, o->comm, BPFSTATS_COMM_LEN);
	comm[BPFSTATS_COMM_LEN] = '\0';
	memcpy(prev, o->prev_comm, BPFSTATS_COMM_LEN);
	prev[BPFSTATS_COMM_LEN] = '\0';
	richstr_clear(rs);
	/* TIMESTAMP as ui_fmt_event prints it: microseconds, rounded as the kernel does */
	richstr_addf(rs, ROLE_TIME, "%10" PRIu64 ".%06" PRIu64 " ", us / 1000000u, us % 1000000u);
	richstr_addf(rs, ROLE_CPU, "%4u ", o->cpu);
	richstr_addf(rs, ROLE_WARN, "%9s ", ui_fmt_dur(b, sizeof(b), o->latency_ns));
	richstr_addf(rs, ROLE_PID, "%7u ", o->pid);
	richstr_addf(rs, ROLE_TASK, "%-16s", comm);
	richstr_addf(rs, ROLE_DIM, "  %u %s", o->prev_pid, prev);
}

void bpf_fmt_offcpu_header(struct richstr *rs)
{
	richstr_clear(rs);
	richstr_addf(rs, ROLE_COLHDR, "%9s %6s %8s  %s", "OFF-CPU", "SHARE", "SWITCHES",
		     "STACK (where it blocked first, then its callers)");
}

void bpf_fmt_offcpu_row(struct richstr *rs, uint64_t ns, uint64_t total, uint64_t count,
			const char *const *frames, unsigned int n)
{
	char b1[32], b2[32];
	unsigned int i = 0;

	richstr_clear(rs);
	richstr_addf(rs, ROLE_DEFAULT, "%9s %5.1f%% %8s  ", ui_fmt_dur(b1, sizeof(b1), ns),
		     total ? 100.0 * (double)ns / (double)total : 0.0,
		     ui_fmt_count(b2, sizeof(b2), count));
	/*
	 * every off-CPU stack goes through __schedule (after the tracepoint's glue
	 * in a stack the kernel recorded): where it blocked is the frame above
	 */
	for (unsigned int k = 0; k + 1 < n && k < 8; k++)
		if (!strcmp(frames[k], "__schedule"))
			i = k + 1;
	for (; i < n && rs->len < RICHSTR_MAX - 8; i++) {
		if (rs->ch[rs->len - 1] != ' ')
			richstr_add(rs, ROLE_DIM, " <- ");
		richstr_add(rs, ROLE_DEFAULT, frames[i]);
	}
}

int bpf_draw_hist(struct ui_screen *s, int y, int x, int h, int w, const char *title,
		  const struct bpfstats_hist *hist)
{
	struct richstr rs;
	int first, end, group, row = 0;
	uint64_t max = 0;
	char b1[32], b2[32], b3[32];

	if (h <= 0)
		return 0;
	bpf_hist_span(hist, &first, &end);
	group = bpf_hist_group(first, end, h - 2);
	richstr_clear(&rs);
	richstr_add(&rs, ROLE_EVENT, title);
	if (hist->count)
		richstr_addf(&rs, ROLE_DIM, "  n=%s avg=%s p99=%s",
			     ui_fmt_count(b1, sizeof(b1), hist->count),
			     ui_fmt_dur(b2, sizeof(b2), hist->sum_ns / hist->count),
			     ui_fmt_dur(b3, sizeof(b3), bpfstats_hist_quantile(hist, 0.99)));
	if (end && group > 1)
		richstr_addf(&rs, ROLE_WARN, "  (%d slots a row)", group);
	else if (end && !group)
		richstr_add(&rs, ROLE_WARN, "  (no room for its rows)");
	ui_draw_rs(s, y + row++, x, &rs, w);
	if (row >= h)
		return row;
	if (end == 0) {
		ui_draw_text(s, y + row++, x, ROLE_DIM, "  (nothing counted yet)", w);
		return row;
	}
	if (!group)
		return row;
	bpf_fmt_hist_header(&rs, "nsecs");
	ui_draw_rs(s, y + row++, x, &rs, w);
	/* the groups end at the last slot: the slow end stays at full resolution first */
	for (int k = end - group; k + group > first; k -= group) {
		uint64_t v = 0;

		for (int j = k < first ? first : k; j < k + group; j++)
			v += hist->slot[j];
		if (v > max)
			max = v;
	}
	for (int k = end - group * ((end - first + group - 1) / group); k < end && row < h;
	     k += group) {
		bpf_fmt_hist_range(&rs, hist, k < first ? first : k, k + group - 1, max,
				   HIST_STARS);
		ui_draw_rs(s, y + row++, x, &rs, w);
	}
	return row;
}
