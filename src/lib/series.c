// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "series.h"

int series_init(struct series *s, uint32_t cap)
{
	memset(s, 0, sizeof(*s));
	if (!cap)
		cap = 1;
	s->v = calloc(cap, sizeof(*s->v));
	if (!s->v)
		return -ENOMEM;
	s->cap = cap;
	return 0;
}

void series_destroy(struct series *s)
{
	if (!s)
		return;
	free(s->v);
	memset(s, 0, sizeof(*s));
}

void series_push(struct series *s, double v)
{
	if (!s->cap)
		return;
	s->v[s->head] = v;
	s->head = (s->head + 1) % s->cap;
	if (s->n < s->cap)
		s->n++;
}

size_t series_copy(const struct series *s, double *out, size_t max)
{
	size_t n = s->n < max ? s->n : max;
	size_t i, start;

	/* oldest of the newest n */
	start = (s->head + s->cap - n) % (s->cap ? s->cap : 1);
	for (i = 0; i < n; i++)
		out[i] = s->v[(start + i) % s->cap];
	return n;
}

double series_last(const struct series *s)
{
	if (!s->n)
		return 0;
	return s->v[(s->head + s->cap - 1) % s->cap];
}

uint64_t series_hist_quantile(const uint64_t *slot, unsigned int nslots, double q)
{
	uint64_t total = 0, cum = 0;
	double target, lo, hi, frac;
	unsigned int k;

	for (k = 0; k < nslots; k++)
		total += slot[k];
	if (!total)
		return 0;
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	target = q * (double)total;
	for (k = 0; k < nslots; k++) {
		if (!slot[k])
			continue;
		if ((double)(cum + slot[k]) >= target) {
			lo = k ? (double)(1ull << k) : 0;
			hi = (double)(1ull << (k + 1));
			frac = (target - (double)cum) / (double)slot[k];
			return (uint64_t)(lo + frac * (hi - lo));
		}
		cum += slot[k];
	}
	return 1ull << nslots;
}

bool series_hist_span(const uint64_t *slot, int nslots, int *first, int *last)
{
	*first = *last = -1;
	for (int k = 0; k < nslots; k++) {
		if (!slot[k])
			continue;
		if (*first < 0)
			*first = k;
		*last = k;
	}
	return *first >= 0;
}
