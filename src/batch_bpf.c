// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --json: the BPF statistics, as the text summary's block has them
 * (bpfstats_print): the programs' status, per-CPU rates, the run-queue latency
 * histogram, the tasks that waited and slept longest, syscall latencies, irq
 * time and the newest run-queue outliers. Times in ns.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "batch-local.h"
#include "bpfstats.h"

#define BPF_JSON_ROWS	32

static void json_cpus(struct bpfstats *bs, FILE *o, unsigned int ncpus)
{
	fputs(",\"cpus\":[", o);
	for (unsigned int cpu = 0; cpu <= ncpus; cpu++) {
		int row = cpu == ncpus ? -1 : (int)cpu;

		if (row < 0)
			fprintf(o, "%s{\"cpu\":\"all\"", cpu ? "," : "");
		else
			fprintf(o, "%s{\"cpu\":%d", cpu ? "," : "", row);
		for (unsigned int m = 0; m < BPFSTATS_METRIC_NR; m++) {
			double v = 0;

			bpfstats_series(bs, (enum bpfstats_metric)m, row, &v, NULL, 1);
			fputc(',', o);
			batch_json_str(o, bpfstats_metric_name((enum bpfstats_metric)m));
			fprintf(o, ":%.1f", v);
		}
		fputc('}', o);
	}
	fputc(']', o);
}

static void json_runq(struct bpfstats *bs, FILE *o, unsigned int ticks)
{
	struct bpfstats_hist h;
	bool first = true;

	bpfstats_runq_hist(bs, -1, ticks, &h);
	fprintf(o, ",\"runq\":{\"window\":\"%s\",\"count\":%" PRIu64 ",\"avg_ns\":%" PRIu64
		",\"p99_ns\":%" PRIu64 ",\"hist\":[", ticks ? "last poll" : "since start", h.count,
		h.count ? h.sum_ns / h.count : 0, bpfstats_hist_quantile(&h, 0.99));
	for (unsigned int k = 0; k < BPFSTATS_SLOTS; k++) {
		if (!h.slot[k])
			continue;
		fprintf(o, "%s{\"lo_ns\":%llu,\"hi_ns\":%llu,\"count\":%" PRIu64 "}",
			first ? "" : ",", k ? 1ull << k : 0ull, (1ull << (k + 1)) - 1, h.slot[k]);
		first = false;
	}
	fputs("]}", o);
}

static void json_tasks(struct bpfstats *bs, FILE *o, unsigned int ticks, size_t max,
		       struct bpfstats_task *t)
{
	size_t n = bpfstats_top_tasks(bs, BPFSTATS_BY_RUNQ, ticks, t, max);

	fputs(",\"top_runq\":[", o);
	for (size_t i = 0; i < n && i < max; i++) {
		fprintf(o, "%s{\"tid\":%u,\"tgid\":%u,\"comm\":", i ? "," : "", t[i].tid, t[i].tgid);
		batch_json_str(o, t[i].comm);
		fprintf(o, ",\"wait_ns\":%" PRIu64 ",\"wakeups\":%" PRIu64 ",\"max_ns\":%" PRIu64 "}",
			t[i].runq_ns, t[i].runq_n, t[i].runq_max_ns);
	}
	n = bpfstats_top_tasks(bs, BPFSTATS_BY_OFFCPU, ticks, t, max);
	fputs("],\"top_offcpu\":[", o);
	for (size_t i = 0; i < n && i < max; i++) {
		fprintf(o, "%s{\"tid\":%u,\"tgid\":%u,\"comm\":", i ? "," : "", t[i].tid, t[i].tgid);
		batch_json_str(o, t[i].comm);
		fprintf(o, ",\"offcpu_ns\":%" PRIu64 ",\"switches\":%" PRIu64 "}", t[i].offcpu_ns,
			t[i].offcpu_n);
	}
	fputc(']', o);
}

static void json_syscalls_irqs(struct bpfstats *bs, FILE *o, unsigned int ticks, size_t max,
			       struct bpfstats_syscall *s, struct bpfstats_irq *q)
{
	size_t n = bpfstats_syscalls(bs, -1, ticks, s, max);

	fputs(",\"syscalls\":[", o);
	for (size_t i = 0; i < n && i < max; i++) {
		fprintf(o, "%s{\"id\":%u,\"name\":", i ? "," : "", s[i].id);
		batch_json_str(o, s[i].name);
		fprintf(o, ",\"calls\":%" PRIu64 ",\"total_ns\":%" PRIu64 ",\"avg_ns\":%" PRIu64
			",\"p99_ns\":%" PRIu64 "}", s[i].h.count, s[i].h.sum_ns,
			s[i].h.count ? s[i].h.sum_ns / s[i].h.count : 0,
			bpfstats_hist_quantile(&s[i].h, 0.99));
	}
	n = bpfstats_irqs(bs, -1, ticks, q, max);
	fputs("],\"irqs\":[", o);
	for (size_t i = 0; i < n && i < max; i++) {
		fprintf(o, "%s{\"kind\":\"%s\",\"vec\":%u,\"name\":", i ? "," : "",
			q[i].soft ? "softirq" : "irq", q[i].vec);
		batch_json_str(o, q[i].name);
		fprintf(o, ",\"ns\":%" PRIu64 ",\"count\":%" PRIu64 "}", q[i].ns, q[i].count);
	}
	fputc(']', o);
}

uint64_t batch_bpf_json(struct bpfstats *bs, FILE *o, unsigned int ticks, unsigned int rows,
			uint64_t after_seq)
{
	size_t max = rows && rows < BPF_JSON_ROWS ? rows : BPF_JSON_ROWS, n;
	struct bpfstats_outlier ol[16];
	struct bpfstats_status st;
	bool first = true;
	union {
		struct bpfstats_task	t[BPF_JSON_ROWS];
		struct bpfstats_syscall	s[BPF_JSON_ROWS];
	} *u = malloc(sizeof(*u));
	struct bpfstats_irq *q = malloc(BPF_JSON_ROWS * sizeof(*q));

	bpfstats_get_status(bs, &st);
	fprintf(o, ",\"bpf\":{\"mode\":\"%s\",\"irqs\":%s,\"syscalls\":%s,\"interval_s\":%.3f,"
		"\"poll_ns\":%" PRIu64 ",\"outliers_total\":%" PRIu64 ",\"outliers_dropped\":%"
		PRIu64 ",\"tasks\":%" PRIu64 ",\"tasks_untracked\":%" PRIu64, st.mode,
		st.irqs ? "true" : "false", st.syscalls ? "true" : "false", st.interval, st.poll_ns,
		st.outliers, st.outliers_dropped, st.tasks, st.tasks_untracked);
	json_cpus(bs, o, st.ncpus);
	json_runq(bs, o, ticks);
	if (u && q) {
		json_tasks(bs, o, ticks, max, u->t);
		json_syscalls_irqs(bs, o, ticks, max, u->s, q);
	}
	free(u);
	free(q);
	/* the outliers since the previous summary, the newest @max at most */
	fputs(",\"outliers\":[", o);
	if (st.outliers > max && after_seq < st.outliers - max)
		after_seq = st.outliers - max;
	while ((n = bpfstats_outliers(bs, after_seq, ol, 16))) {
		for (size_t i = 0; i < n; i++) {
			fprintf(o, "%s{\"ts\":%" PRIu64 ",\"cpu\":%u,\"tid\":%u,\"comm\":",
				first ? "" : ",", ol[i].ts, ol[i].cpu, ol[i].pid);
			batch_json_str(o, ol[i].comm);
			fprintf(o, ",\"latency_ns\":%" PRIu64 ",\"prev_tid\":%u,\"prev_comm\":",
				ol[i].latency_ns, ol[i].prev_pid);
			batch_json_str(o, ol[i].prev_comm);
			fputc('}', o);
			first = false;
		}
		after_seq = ol[n - 1].seq;
		if (n < 16)
			break;
	}
	fputs("]}", o);
	return after_seq;
}

void batch_bpf_json_off(FILE *o, const char *why)
{
	fputs(",\"bpf\":{\"error\":", o);
	batch_json_str(o, why);
	fputc('}', o);
}
