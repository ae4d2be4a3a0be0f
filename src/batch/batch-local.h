/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the parts of the batch printer (src/batch*.c) share. */
#ifndef KTOP_BATCH_LOCAL_H
#define KTOP_BATCH_LOCAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct bpfstats;
struct jsonw;

/**
 * batch_bpf_json - the BPF statistics as a ",\"bpf\":{...}" member, the same
 * figures as bpfstats_print() writes for the text summary
 * @ticks: 0: since start; else the last poll (rates are always the last poll's)
 * @rows: rows per list; @after_seq: outliers newer than this are listed
 * Return: the newest outlier listed (or @after_seq).
 */
uint64_t batch_bpf_json(struct bpfstats *bs, FILE *o, unsigned int ticks, unsigned int rows,
			uint64_t after_seq);
/* Without BPF: ",\"bpf\":{\"error\":WHY}". */
void batch_bpf_json_off(FILE *o, const char *why);

struct app;

/*
 * The flight recorder's state and the saves made since save *@seen (which
 * becomes the newest printed): "Recorder:" and "saved ..." lines, or the
 * ",\"recorder\":{...},\"saves\":[...]" members; a recording's save note too
 * (src/batch/batch_recorder.c).
 */
void batch_recorder_text(struct app *a, FILE *o, uint64_t *seen);
void batch_recorder_json(struct app *a, FILE *o, uint64_t *seen);

/*
 * The in-kernel aggregations at their last poll (src/batch/batch_agg.c): a
 * block per latency and --hist, or the ",\"latencies\":[...],\"hists\":[...]"
 * members; nothing when the run has none.
 */
void batch_agg_text(struct app *a, FILE *o);
void batch_agg_json(struct app *a, FILE *o);

/* ,"KEY":VALUE into @o, the value built in @w (a buffer writer), which is then freed. */
void batch_json_member(FILE *o, const char *key, struct jsonw *w);

/* Sleep until @deadline (monotonic ns) or a terminating signal. Return: true on signal. */
bool batch_wait(uint64_t deadline);

#endif
