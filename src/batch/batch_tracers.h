/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tracer views of --batch/--json: the function_graph call tree
 * (src/model/fgraph.h) and the osnoise/timerlat per-CPU latency table
 * (src/model/latency.h), fed incrementally from the store every interval.
 * src/batch/batch.c calls these; each accepts NULL (a tracer with no view).
 */
#ifndef KTOP_BATCH_TRACERS_H
#define KTOP_BATCH_TRACERS_H

#include <stdint.h>
#include <stdio.h>

struct app;
struct batch_tracers;

/**
 * batch_tracers_new - the view for the app's tracer
 * Return: the view, or NULL when the tracer has none (or out of memory:
 * the summary then goes without it).
 */
struct batch_tracers *batch_tracers_new(struct app *a);
void batch_tracers_free(struct batch_tracers *bt);

/**
 * batch_tracers_update - feed the events that arrived since the last call
 *
 * The window ends a little behind the newest events (every CPU's records up
 * to there are in the store), so calls and samples are fed in time order.
 * Context: the batch thread.
 */
void batch_tracers_update(struct batch_tracers *bt);

/* For tests (offline stores): the view for @tracer, and an update up to @t1. */
struct batch_tracers *batch_tracers_new_tracer(struct app *a, const char *tracer);
void batch_tracers_update_to(struct batch_tracers *bt, uint64_t t1);

struct latency;

/* The osnoise/timerlat model fed so far (NULL for function_graph, or @bt NULL). */
const struct latency *batch_tracers_latency(const struct batch_tracers *bt);

/* The view as text: the new calls of this interval and the call paths, or the table. */
void batch_tracers_text(struct batch_tracers *bt, FILE *o);

/* The view as JSON members, each with a leading comma: ,"graph":{...} or ,"latency":{...} */
void batch_tracers_json(struct batch_tracers *bt, FILE *o);

#endif
