/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Small time-series and histogram helpers for polled statistics: a ring of
 * doubles that keeps the newest samples, and quantiles of log2 histograms.
 * Pure logic, no locking: the owner serialises access.
 */
#ifndef KTOP_SERIES_H
#define KTOP_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct series {
	double		*v;
	uint32_t	cap;
	uint32_t	n;	/* samples held, <= cap */
	uint32_t	head;	/* where the next sample goes */
};

/* Return: 0 or -ENOMEM. The ring keeps the newest @cap samples. */
int series_init(struct series *s, uint32_t cap);
/* Free the samples; accepts a zeroed or destroyed series. */
void series_destroy(struct series *s);
void series_push(struct series *s, double v);
/**
 * series_copy - the newest min(@max, n) samples, oldest first
 * Return: the number copied.
 */
size_t series_copy(const struct series *s, double *out, size_t max);
/* Return: the newest sample, or 0 when empty. */
double series_last(const struct series *s);

/**
 * series_hist_quantile - estimate the @q quantile (0..1) of a log2 histogram
 * @slot: counts, slot k holding values in [2^k, 2^(k+1)) (slot 0: [0, 2))
 *
 * Interpolates linearly inside the slot that holds the quantile.
 * Return: the estimate, 0 for an empty histogram.
 */
uint64_t series_hist_quantile(const uint64_t *slot, unsigned int nslots, double q);

/*
 * series_hist_slot_bounds - slot @k's bounds, both inclusive, as bcc and
 * pmdabpf print them: [2^k, 2^(k+1) - 1]; slot 0: [0, 1]. The top one
 * ends at UINT64_MAX.
 */
static inline void series_hist_slot_bounds(unsigned int k, uint64_t *lo, uint64_t *hi)
{
	*lo = !k ? 0 : k < 64 ? 1ull << k : UINT64_MAX;
	*hi = k < 63 ? (2ull << k) - 1 : UINT64_MAX;
}

/*
 * series_hist_span - the first and last non-empty of a histogram's @nslots
 * slots (any histogram). Return: false, and both -1, when all are empty.
 */
bool series_hist_span(const uint64_t *slot, int nslots, int *first, int *last);

#endif
