// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Lost-event records of the store (see lostmarks.h): one array, the held
 * marks at [lo, hi), under one mutex. Marks are rare next to events (one per
 * overrun page at most), so the lock is not on a hot path; what matters is
 * that a file or stream made of nothing but marks cannot grow it past the
 * store's limit.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lostmarks.h"

#define LOSTMARKS_MIN_CAP	64

struct lostmarks {
	pthread_mutex_t		lock;
	struct store_lost	*v;
	size_t			lo, hi, cap;
	uint64_t		base;		/* the number of the mark at lo */
	_Atomic size_t		bytes;
	_Atomic uint64_t	evicted;
};

struct lostmarks *lostmarks_new(void)
{
	struct lostmarks *lm = calloc(1, sizeof(*lm));

	if (lm)
		pthread_mutex_init(&lm->lock, NULL);
	return lm;
}

void lostmarks_free(struct lostmarks *lm)
{
	if (!lm)
		return;
	free(lm->v);
	pthread_mutex_destroy(&lm->lock);
	free(lm);
}

/* Called locked: move the held marks to the front, into an array of @cap. */
static int lostmarks_resize(struct lostmarks *lm, size_t cap)
{
	struct store_lost *v;
	size_t n = lm->hi - lm->lo;

	if (lm->lo)
		memmove(lm->v, lm->v + lm->lo, n * sizeof(*lm->v));
	lm->lo = 0;
	lm->hi = n;
	if (cap == lm->cap)
		return 0;
	v = realloc(lm->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;	/* compacted at least */
	lm->v = v;
	lm->cap = cap;
	atomic_store_explicit(&lm->bytes, cap * sizeof(*v), memory_order_relaxed);
	return 0;
}

int lostmarks_add(struct lostmarks *lm, const struct store_lost *m)
{
	int ret = 0;

	pthread_mutex_lock(&lm->lock);
	if (lm->hi == lm->cap) {
		size_t n = lm->hi - lm->lo;

		/* room at the front from evictions: compact, else grow */
		lostmarks_resize(lm, n < lm->cap / 2 ? lm->cap
				 : (lm->cap ? lm->cap * 2 : LOSTMARKS_MIN_CAP));
		if (lm->hi == lm->cap)
			ret = -ENOMEM;
	}
	if (!ret)
		lm->v[lm->hi++] = *m;
	pthread_mutex_unlock(&lm->lock);
	return ret;
}

size_t lostmarks_copy(struct lostmarks *lm, uint64_t t0, uint64_t t1, struct store_lost *out,
		      size_t max)
{
	size_t n = 0;

	pthread_mutex_lock(&lm->lock);
	for (size_t i = lm->lo; i < lm->hi; i++) {
		if (lm->v[i].ts < t0 || lm->v[i].ts > t1)
			continue;
		if (n < max)
			out[n] = lm->v[i];
		n++;
	}
	pthread_mutex_unlock(&lm->lock);
	return n;
}

size_t lostmarks_from(struct lostmarks *lm, uint64_t *seq, struct store_lost *out, size_t max)
{
	size_t i, n = 0;

	pthread_mutex_lock(&lm->lock);
	if (*seq < lm->base)
		*seq = lm->base;
	for (i = lm->lo + (size_t)(*seq - lm->base); i < lm->hi && n < max; i++)
		out[n++] = lm->v[i];
	*seq += n;
	pthread_mutex_unlock(&lm->lock);
	return n;
}

bool lostmarks_oldest(struct lostmarks *lm, uint64_t *ts)
{
	bool any;

	pthread_mutex_lock(&lm->lock);
	any = lm->lo < lm->hi;
	if (any)
		*ts = lm->v[lm->lo].ts;
	pthread_mutex_unlock(&lm->lock);
	return any;
}

size_t lostmarks_evict(struct lostmarks *lm, uint64_t before)
{
	size_t k = 0, n;

	pthread_mutex_lock(&lm->lock);
	n = lm->hi - lm->lo;
	if (before == UINT64_MAX)
		k = n ? (n + 1) / 2 : 0;
	else
		while (k < n && lm->v[lm->lo + k].ts < before)
			k++;
	lm->lo += k;
	lm->base += k;
	n -= k;
	/* give memory back once three quarters are unused */
	if (k && lm->cap > LOSTMARKS_MIN_CAP && n <= lm->cap / 4) {
		size_t cap = lm->cap / 2;

		while (cap > LOSTMARKS_MIN_CAP && n <= cap / 4)
			cap /= 2;
		lostmarks_resize(lm, cap);
	}
	pthread_mutex_unlock(&lm->lock);
	atomic_fetch_add_explicit(&lm->evicted, k, memory_order_relaxed);
	return k;
}

size_t lostmarks_bytes(const struct lostmarks *lm)
{
	return atomic_load_explicit(&lm->bytes, memory_order_relaxed);
}

uint64_t lostmarks_evicted(const struct lostmarks *lm)
{
	return atomic_load_explicit(&lm->evicted, memory_order_relaxed);
}
