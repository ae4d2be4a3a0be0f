// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --batch and --json: the in-kernel aggregations (src/agg/agg.h) at their
 * last poll. Text: per latency its figures, its log2 histogram as bars, the
 * worst case and the busiest keys; per --hist its busiest keys. JSON: the
 * "latencies" and "hists" members, times in ns. Both are cumulative since
 * the measure was made (the kernel keeps no intervals).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg/agg.h"
#include "app/app.h"
#include "batch-local.h"
#include "lib/jsonw.h"
#include "lib/series.h"

#define AGG_TEXT_ROWS	5
#define AGG_JSON_ROWS	32
#define AGG_BAR		30

static void text_hist(const struct agg_result *r, FILE *o)
{
	uint64_t most = 0;
	int first, last;

	series_hist_span(r->bucket, AGG_BUCKETS, &first, &last);
	for (int b = first; b >= 0 && b <= last; b++)
		if (r->bucket[b] > most)
			most = r->bucket[b];
	for (int b = first; b >= 0 && b <= last; b++) {
		char lo[24], hi[24], bar[AGG_BAR + 1];
		uint64_t l, h;
		int n = most ? (int)((r->bucket[b] * AGG_BAR + most - 1) / most) : 0;

		agg_bucket_bounds(r->unit_ns, (unsigned int)b, &l, &h);
		memset(bar, '#', n);
		bar[n] = '\0';
		fprintf(o, "  %9s .. %-9s |%-*s| %" PRIu64 "\n", agg_fmt_ns(lo, sizeof(lo), l),
			agg_fmt_ns(hi, sizeof(hi), h), AGG_BAR, bar, r->bucket[b]);
	}
}

static void text_one(const struct agg_result *r, FILE *o)
{
	char a[24], b[24], c[24], d[24], e[24];

	if (r->kind == AGG_HIST) {
		fprintf(o, "Hist %u: %s  [%s]\n  %" PRIu64 " events (%.1f/s)", r->idx, r->title,
			r->engine, r->count, r->rate);
		if (r->dropped)
			fprintf(o, ", %" PRIu64 " left out (%s's maps full)", r->dropped, r->engine);
		/* a SUM column where val= gave one */
		if (r->sum_ns)
			fprintf(o, "\n  %10s %14s  %s\n", "COUNT", "SUM", r->keynames);
		else
			fprintf(o, "\n  %10s  %s\n", "COUNT", r->keynames);
		for (size_t i = 0; i < r->nrows && i < AGG_TEXT_ROWS; i++) {
			if (r->sum_ns)
				fprintf(o, "  %10" PRIu64 " %14" PRIu64 "  %s\n", r->rows[i].count,
					r->rows[i].sum, r->rows[i].key);
			else
				fprintf(o, "  %10" PRIu64 "  %s\n", r->rows[i].count, r->rows[i].key);
		}
		fputc('\n', o);
		return;
	}
	fprintf(o, "Latency %u: %s  [%s: %s]\n", r->idx, r->title, r->engine, r->why);
	if (r->error[0])
		fprintf(o, "  error: %s\n", r->error);
	if (!r->count) {
		fprintf(o, "  no pairs yet (%" PRIu64 " START, %" PRIu64 " END records)\n\n",
			r->starts, r->ends);
		return;
	}
	fprintf(o, "  pairs %" PRIu64 " (%.1f/s)  min %s  mean %s  p50 %s  p99 %s  max %s",
		r->count, r->rate, agg_fmt_ns(a, sizeof(a), r->min_ns),
		agg_fmt_ns(b, sizeof(b), r->sum_ns / r->count),
		agg_fmt_ns(c, sizeof(c), agg_quantile(r, 0.5)),
		agg_fmt_ns(d, sizeof(d), agg_quantile(r, 0.99)),
		agg_fmt_ns(e, sizeof(e), r->max_ns));
	if (r->dropped)
		fprintf(o, "  (%" PRIu64 " lost: maps full)", r->dropped);
	fputc('\n', o);
	text_hist(r, o);
	fprintf(o, "  worst %s, %s %s", agg_fmt_ns(a, sizeof(a), r->worst.lat_ns), r->keynames,
		r->worst.key);
	if (r->worst.te_ns)
		fprintf(o, ", END at %" PRIu64 ".%06" PRIu64 " (mono)", r->worst.te_ns / 1000000000,
			r->worst.te_ns % 1000000000 / 1000);
	fprintf(o, "\n  %10s %9s %9s  %s\n", "PAIRS", "MEAN", "MAX", r->keynames);
	for (size_t i = 0; i < r->nrows && i < AGG_TEXT_ROWS; i++)
		fprintf(o, "  %10" PRIu64 " %9s %9s  %s\n", r->rows[i].count,
			agg_fmt_ns(a, sizeof(a), r->rows[i].count ? r->rows[i].sum / r->rows[i].count :
				   0), agg_fmt_ns(b, sizeof(b), r->rows[i].max), r->rows[i].key);
	if (r->keys_dropped)
		fprintf(o, "  (%" PRIu64 " pairs not in the breakdown: its map is full)\n",
			r->keys_dropped);
	fputc('\n', o);
}

void batch_agg_text(struct app *a, FILE *o)
{
	struct agg_set *s = app_agg(a);

	if (!s)
		return;
	for (unsigned int i = 0; i < agg_set_count(s); i++) {
		struct agg_result r;

		memset(&r, 0, sizeof(r));
		if (agg_set_result(s, i, &r))
			continue;
		text_one(&r, o);
		agg_result_clear(&r);
	}
}

static void json_rows(const struct agg_result *r, struct jsonw *w)
{
	jsonw_key(w, "rows");
	jsonw_arr_open(w);
	for (size_t i = 0; i < r->nrows && i < AGG_JSON_ROWS; i++) {
		jsonw_obj_open(w);
		jsonw_kv_str(w, "key", r->rows[i].key);
		jsonw_kv_u64(w, "count", r->rows[i].count);
		jsonw_kv_u64(w, r->kind == AGG_HIST ? "sum" : "sum_ns", r->rows[i].sum);
		if (r->kind == AGG_LATENCY) {
			jsonw_kv_u64(w, "max_ns", r->rows[i].max);
			jsonw_kv_u64(w, "max_end_ns", r->rows[i].max_te);
		}
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_kv_u64(w, "rows_total", r->nrows);
}

static void json_one(const struct agg_result *r, struct jsonw *w)
{
	jsonw_obj_open(w);
	jsonw_kv_str(w, "title", r->title);
	if (r->kind == AGG_LATENCY) {
		jsonw_kv_str(w, "start", r->start);
		jsonw_kv_str(w, "end", r->end);
	} else {
		jsonw_kv_str(w, "event", r->start);
	}
	jsonw_kv_str(w, "keys", r->keynames);
	jsonw_kv_str(w, "engine", r->engine);
	jsonw_kv_str(w, "why", r->why);
	if (r->error[0])
		jsonw_kv_str(w, "error", r->error);
	jsonw_kv_u64(w, "count", r->count);
	jsonw_key(w, "rate");
	jsonw_double(w, r->rate, 1);
	jsonw_kv_u64(w, "dropped", r->dropped);
	if (r->kind == AGG_LATENCY) {
		jsonw_kv_u64(w, "starts", r->starts);
		jsonw_kv_u64(w, "ends", r->ends);
		jsonw_kv_u64(w, "min_ns", r->min_ns);
		jsonw_kv_u64(w, "max_ns", r->max_ns);
		jsonw_kv_u64(w, "mean_ns", r->count ? r->sum_ns / r->count : 0);
		jsonw_kv_u64(w, "sum_ns", r->sum_ns);
		jsonw_kv_u64(w, "p50_ns", agg_quantile(r, 0.5));
		jsonw_kv_u64(w, "p99_ns", agg_quantile(r, 0.99));
		jsonw_key(w, "buckets");
		jsonw_arr_open(w);
		for (int b = 0; b < AGG_BUCKETS; b++) {
			uint64_t lo, hi;

			if (!r->bucket[b])
				continue;
			agg_bucket_bounds(r->unit_ns, (unsigned int)b, &lo, &hi);
			jsonw_obj_open(w);
			jsonw_kv_u64(w, "gt_ns", lo);
			jsonw_kv_u64(w, "le_ns", hi);
			jsonw_kv_u64(w, "count", r->bucket[b]);
			jsonw_obj_close(w);
		}
		jsonw_arr_close(w);
		jsonw_key(w, "worst");
		jsonw_obj_open(w);
		jsonw_kv_u64(w, "lat_ns", r->worst.lat_ns);
		jsonw_kv_u64(w, "end_ns", r->worst.te_ns);
		jsonw_kv_str(w, "key", r->worst.key);
		jsonw_obj_close(w);
		jsonw_kv_u64(w, "keys_dropped", r->keys_dropped);
	} else {
		jsonw_kv_u64(w, "sum", r->sum_ns);
	}
	json_rows(r, w);
	jsonw_obj_close(w);
}

void batch_agg_json(struct app *a, FILE *o)
{
	struct agg_set *s = app_agg(a);

	if (!s)
		return;
	for (int kind = AGG_LATENCY; kind <= AGG_HIST; kind++) {
		struct jsonw w;
		size_t len;
		char *doc;

		jsonw_init_buf(&w);
		jsonw_arr_open(&w);
		for (unsigned int i = 0; i < agg_set_count(s); i++) {
			struct agg_result r;

			memset(&r, 0, sizeof(r));
			if (agg_set_result(s, i, &r))
				continue;
			if ((int)r.kind == kind)
				json_one(&r, &w);
			agg_result_clear(&r);
		}
		jsonw_arr_close(&w);
		doc = jsonw_finish(&w) ? NULL : jsonw_take(&w, &len);
		fputs(kind == AGG_LATENCY ? ",\"latencies\":" : ",\"hists\":", o);
		if (doc)
			fwrite(doc, 1, len, o);
		else
			fputs("[]", o);
		free(doc);
		jsonw_destroy(&w);
	}
}
