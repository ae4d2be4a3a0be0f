// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --json: the BPF statistics, as the text summary's block has them
 * (bpfstats_print): the programs' status, per-CPU rates, the run-queue latency
 * histogram, the tasks that waited and slept longest, syscall latencies, irq
 * time and the newest run-queue outliers. Times in ns.
 */
#include <stdlib.h>
#include <string.h>

#include "batch-local.h"
#include "bpfstats/bpfstats.h"
#include "lib/jsonw.h"
#include "lib/series.h"

#define BPF_JSON_ROWS	32

static void json_cpus(struct bpfstats *bs, struct jsonw *w, unsigned int ncpus)
{
	jsonw_key(w, "cpus");
	jsonw_arr_open(w);
	for (unsigned int cpu = 0; cpu <= ncpus; cpu++) {
		int row = cpu == ncpus ? -1 : (int)cpu;

		jsonw_obj_open(w);
		jsonw_key(w, "cpu");
		if (row < 0)
			jsonw_str(w, "all");
		else
			jsonw_i64(w, row);
		for (unsigned int m = 0; m < BPFSTATS_METRIC_NR; m++) {
			double v = 0;

			bpfstats_series(bs, (enum bpfstats_metric)m, row, &v, NULL, 1);
			jsonw_key(w, bpfstats_metric_name((enum bpfstats_metric)m));
			jsonw_double(w, v, 1);
		}
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
}

static void json_runq(struct bpfstats *bs, struct jsonw *w, unsigned int ticks)
{
	struct bpfstats_hist h;

	bpfstats_runq_hist(bs, -1, ticks, &h);
	jsonw_key(w, "runq");
	jsonw_obj_open(w);
	jsonw_kv_str(w, "window", ticks ? "last poll" : "since start");
	jsonw_kv_u64(w, "count", h.count);
	jsonw_kv_u64(w, "avg_ns", h.count ? h.sum_ns / h.count : 0);
	jsonw_kv_u64(w, "p99_ns", bpfstats_hist_quantile(&h, 0.99));
	jsonw_key(w, "hist");
	jsonw_arr_open(w);
	for (unsigned int k = 0; k < BPFSTATS_SLOTS; k++) {
		uint64_t lo, hi;

		if (!h.slot[k])
			continue;
		series_hist_slot_bounds(k, &lo, &hi);
		jsonw_obj_open(w);
		jsonw_kv_u64(w, "lo_ns", lo);
		jsonw_kv_u64(w, "hi_ns", hi);
		jsonw_kv_u64(w, "count", h.slot[k]);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_obj_close(w);
}

static void json_tasks(struct bpfstats *bs, struct jsonw *w, unsigned int ticks, size_t max,
		       struct bpfstats_task *t)
{
	for (int list = 0; list < 2; list++) {
		size_t n = bpfstats_top_tasks(bs, list ? BPFSTATS_BY_OFFCPU : BPFSTATS_BY_RUNQ, ticks,
					      t, max);

		jsonw_key(w, list ? "top_offcpu" : "top_runq");
		jsonw_arr_open(w);
		for (size_t i = 0; i < n && i < max; i++) {
			jsonw_obj_open(w);
			jsonw_kv_u64(w, "tid", t[i].tid);
			jsonw_kv_u64(w, "tgid", t[i].tgid);
			jsonw_kv_str(w, "comm", t[i].comm);
			if (list) {
				jsonw_kv_u64(w, "offcpu_ns", t[i].offcpu_ns);
				jsonw_kv_u64(w, "switches", t[i].offcpu_n);
			} else {
				jsonw_kv_u64(w, "wait_ns", t[i].runq_ns);
				jsonw_kv_u64(w, "wakeups", t[i].runq_n);
				jsonw_kv_u64(w, "max_ns", t[i].runq_max_ns);
			}
			jsonw_obj_close(w);
		}
		jsonw_arr_close(w);
	}
}

static void json_syscalls_irqs(struct bpfstats *bs, struct jsonw *w, unsigned int ticks,
			       size_t max, struct bpfstats_syscall *s, struct bpfstats_irq *q)
{
	size_t n = bpfstats_syscalls(bs, -1, ticks, s, max);

	jsonw_key(w, "syscalls");
	jsonw_arr_open(w);
	for (size_t i = 0; i < n && i < max; i++) {
		jsonw_obj_open(w);
		jsonw_kv_u64(w, "id", s[i].id);
		jsonw_kv_str(w, "name", s[i].name);
		jsonw_kv_u64(w, "calls", s[i].h.count);
		jsonw_kv_u64(w, "total_ns", s[i].h.sum_ns);
		jsonw_kv_u64(w, "avg_ns", s[i].h.count ? s[i].h.sum_ns / s[i].h.count : 0);
		jsonw_kv_u64(w, "p99_ns", bpfstats_hist_quantile(&s[i].h, 0.99));
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	n = bpfstats_irqs(bs, -1, ticks, q, max);
	jsonw_key(w, "irqs");
	jsonw_arr_open(w);
	for (size_t i = 0; i < n && i < max; i++) {
		jsonw_obj_open(w);
		jsonw_kv_str(w, "kind", q[i].soft ? "softirq" : "irq");
		jsonw_kv_u64(w, "vec", q[i].vec);
		jsonw_kv_str(w, "name", q[i].name);
		jsonw_kv_u64(w, "ns", q[i].ns);
		jsonw_kv_u64(w, "count", q[i].count);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
}

/* The outliers after @after_seq, the newest @max at most. Return: the newest listed. */
static uint64_t json_outliers(struct bpfstats *bs, struct jsonw *w, uint64_t total, size_t max,
			      uint64_t after_seq)
{
	struct bpfstats_outlier ol[16];
	size_t n;

	jsonw_key(w, "outliers");
	jsonw_arr_open(w);
	if (total > max && after_seq < total - max)
		after_seq = total - max;
	while ((n = bpfstats_outliers(bs, after_seq, ol, 16))) {
		for (size_t i = 0; i < n; i++) {
			jsonw_obj_open(w);
			jsonw_kv_u64(w, "ts", ol[i].ts);
			jsonw_kv_u64(w, "cpu", ol[i].cpu);
			jsonw_kv_u64(w, "tid", ol[i].pid);
			jsonw_kv_str(w, "comm", ol[i].comm);
			jsonw_kv_u64(w, "latency_ns", ol[i].latency_ns);
			jsonw_kv_u64(w, "prev_tid", ol[i].prev_pid);
			jsonw_kv_str(w, "prev_comm", ol[i].prev_comm);
			jsonw_obj_close(w);
		}
		after_seq = ol[n - 1].seq;
		if (n < 16)
			break;
	}
	jsonw_arr_close(w);
	return after_seq;
}

/* Write the finished object @w holds as the member "bpf" of the summary. */
static void json_emit(struct jsonw *w, FILE *o)
{
	size_t len;
	char *doc = jsonw_finish(w) ? NULL : jsonw_take(w, &len);

	fputs(",\"bpf\":", o);
	if (doc)
		fwrite(doc, 1, len, o);
	else
		fputs("{\"error\":\"out of memory\"}", o);
	free(doc);
	jsonw_destroy(w);
}

uint64_t batch_bpf_json(struct bpfstats *bs, FILE *o, unsigned int ticks, unsigned int rows,
			uint64_t after_seq)
{
	size_t max = rows && rows < BPF_JSON_ROWS ? rows : BPF_JSON_ROWS;
	struct bpfstats_status st;
	struct jsonw w;
	union {
		struct bpfstats_task	t[BPF_JSON_ROWS];
		struct bpfstats_syscall	s[BPF_JSON_ROWS];
	} *u = malloc(sizeof(*u));
	struct bpfstats_irq *q = malloc(BPF_JSON_ROWS * sizeof(*q));

	bpfstats_get_status(bs, &st);
	jsonw_init_buf(&w);
	jsonw_obj_open(&w);
	jsonw_kv_str(&w, "mode", st.mode);
	/* which programs run (the lists of the same names come below) */
	jsonw_key(&w, "irq_programs");
	jsonw_bool(&w, st.irqs);
	jsonw_key(&w, "syscall_programs");
	jsonw_bool(&w, st.syscalls);
	jsonw_key(&w, "interval_s");
	jsonw_double(&w, st.interval, 3);
	jsonw_kv_u64(&w, "poll_ns", st.poll_ns);
	jsonw_kv_u64(&w, "outliers_total", st.outliers);
	jsonw_kv_u64(&w, "outliers_dropped", st.outliers_dropped);
	jsonw_kv_u64(&w, "tasks", st.tasks);
	jsonw_kv_u64(&w, "tasks_untracked", st.tasks_untracked);
	json_cpus(bs, &w, st.ncpus);
	json_runq(bs, &w, ticks);
	if (u && q) {
		json_tasks(bs, &w, ticks, max, u->t);
		json_syscalls_irqs(bs, &w, ticks, max, u->s, q);
	}
	free(u);
	free(q);
	after_seq = json_outliers(bs, &w, st.outliers, max, after_seq);
	jsonw_obj_close(&w);
	json_emit(&w, o);
	return after_seq;
}

void batch_bpf_json_off(FILE *o, const char *why)
{
	struct jsonw w;

	jsonw_init_buf(&w);
	jsonw_obj_open(&w);
	jsonw_kv_str(&w, "error", why);
	jsonw_obj_close(&w);
	json_emit(&w, o);
}
