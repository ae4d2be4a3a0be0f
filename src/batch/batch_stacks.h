/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The stack sections of --batch/--json: "Top stacks" of the events that
 * carry them (this interval, by event type and stack) and "Off-CPU stacks"
 * (BPF, --offcpu, since start). src/batch/batch.c calls these; each accepts NULL.
 */
#ifndef KTOP_BATCH_STACKS_H
#define KTOP_BATCH_STACKS_H

#include <stdio.h>

struct app;
struct batch_stacks;

/* Return: the sections' state (free with batch_stacks_free), or NULL on ENOMEM. */
struct batch_stacks *batch_stacks_new(struct app *a);
void batch_stacks_free(struct batch_stacks *bs);

/*
 * Count the stacks of the events published since the last call (by
 * sequence number, per CPU: none twice, none left out) and poll the
 * off-CPU totals. Context: the batch thread.
 */
void batch_stacks_update(struct batch_stacks *bs);

/* The sections as text (nothing when the session has no stacks). */
void batch_stacks_text(struct batch_stacks *bs, FILE *o);

/* The sections as JSON members, each with a leading comma: ,"stacks":{...},"offcpu":{...} */
void batch_stacks_json(struct batch_stacks *bs, FILE *o);

#endif
