/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The store's lost-event records ("marks"), in order of arrival, bounded like
 * the events: the store counts their memory against its limit and evicts the
 * oldest with the oldest events (store.c, store_evict). Marks are numbered
 * from 0 as they arrive; an evicted mark's number is never reused, so a
 * reader that sends them on (the snapshot writer) can tell what it missed.
 */
#ifndef KTOP_LOSTMARKS_H
#define KTOP_LOSTMARKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

struct lostmarks;

struct lostmarks *lostmarks_new(void);
void lostmarks_free(struct lostmarks *lm);

/* Append @m. Return: 0 or -ENOMEM. Context: any thread (locked). */
int lostmarks_add(struct lostmarks *lm, const struct store_lost *m);

/*
 * lostmarks_copy - copy the held marks with ts in [@t0, @t1], in order of
 * arrival. Return: how many there are (only @max are copied).
 */
size_t lostmarks_copy(struct lostmarks *lm, uint64_t t0, uint64_t t1, struct store_lost *out,
		      size_t max);

/*
 * lostmarks_from - copy up to @max held marks numbered *@seq and later;
 * *@seq becomes the number after the last one copied (marks evicted before
 * they could be copied are skipped). Return: how many were copied.
 */
size_t lostmarks_from(struct lostmarks *lm, uint64_t *seq, struct store_lost *out, size_t max);

/* The time of the oldest held mark. Return: false when none is held. */
bool lostmarks_oldest(struct lostmarks *lm, uint64_t *ts);

/*
 * lostmarks_evict - drop the oldest marks: those before @before, or, when
 * @before is UINT64_MAX, the older half (at least one); then give memory
 * back. Return: how many were dropped.
 */
size_t lostmarks_evict(struct lostmarks *lm, uint64_t before);

/* Memory held (the array's capacity), and marks evicted so far. Context: any thread. */
size_t lostmarks_bytes(const struct lostmarks *lm);
uint64_t lostmarks_evicted(const struct lostmarks *lm);

#endif
