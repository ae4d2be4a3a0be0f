/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Headless mode: like top -b, a plain-text (or JSON) summary of what was
 * traced every --interval seconds, until --duration, --iterations or a
 * terminating signal. Needs no terminal.
 */
#ifndef KTOP_BATCH_H
#define KTOP_BATCH_H

#include <stdint.h>
#include <stdio.h>
#include "ingest/consumer.h"
#include "store/store.h"

struct app;

/* A CPU's lost events since the start, as the summaries count them. */
struct batch_lost {
	uint64_t			total;	/* dropped + every reason below */
	/* by reason: the kernel's is the largest of marks, overrun and kernel records */
	uint64_t			why[STORE_LOST_NR];
	struct consumer_cpu_stats	cs;	/* the reader's counters (0 without one) */
};

/**
 * batch_lost_read - @cpu's lost events since the start, by reason
 * @a: a started app (live: the consumer's counters; a recording: its own)
 * @out: receives the totals; each only grows from one call to the next
 * Context: the thread that owns the app.
 */
void batch_lost_read(struct app *a, unsigned int cpu, struct batch_lost *out);

/**
 * batch_run - print summaries of the running app until it is time to stop
 * @a: started with app_start(); stays running (the caller stops it)
 * @out: where the summaries go (stdout)
 *
 * Each summary covers only what arrived since the previous one: the work per
 * interval is proportional to the new events, not to the store's size.
 * Context: the main thread.
 * Return: the process exit status (0, or 1 when @out could not be written
 * for a reason other than a closed pipe).
 */
int batch_run(struct app *a, FILE *out);

/**
 * batch_diff_run - print the diff of @base and @new (ktop -i BASE --diff NEW)
 * @base: a started recording; @new: a recording, or the live session
 *
 * Two recordings: one summary of the whole of both. Live NEW: a summary
 * every --interval (NEW since its start against BASE), until --duration,
 * --iterations or a terminating signal, as batch_run() goes. --json: one
 * object per summary, {"diff": {...}}. With -o FILE.folded the last
 * summary's folded diff is written there (--folded events or graph).
 * Context: the main thread.
 * Return: the exit status (0; 1 when @out or the folded file could not be
 * written).
 */
int batch_diff_run(struct app *base, struct app *new, FILE *out);

#endif
