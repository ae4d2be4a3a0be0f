// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The diff's in-kernel latencies (--latency, --sql; src/agg/agg.h): each
 * side's measures as app_agg() gives them (a recording's AGG blocks, or the
 * live set), matched by their title (the spec, normalised), and each
 * measure's breakdown by key value: pairs a second of the side's length,
 * min, mean, p99, max; their log2 buckets join the histograms.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg/agg.h"
#include "app/app.h"
#include "diff-local.h"

#define AGG_KEY_ROWS	50	/* keys of a measure's breakdown, the busiest */

/* Measure @i of @s's set, or false. @r is the caller's (agg_result_clear it). */
static bool side_measure(struct diff_side *s, unsigned int i, struct agg_result *r)
{
	struct agg_set *set = s->ready ? app_agg(s->a) : NULL;

	memset(r, 0, sizeof(*r));
	if (!set || i >= agg_set_count(set) || agg_set_result(set, i, r))
		return false;
	return r->kind == AGG_LATENCY;
}

static unsigned int side_count(struct diff_side *s)
{
	struct agg_set *set = s->ready ? app_agg(s->a) : NULL;

	return set ? agg_set_count(set) : 0;
}

static void agg_row(struct diff_build *b, struct diff_side *s, int side, const char *key,
		    uint64_t count, double min, double avg, double p99, double max)
{
	struct diff_row *r = diff_build_row(b, key, strlen(key), NULL);

	if (!r)
		return;
	r->in |= side == DIFF_BASE ? DIFF_IN_BASE : DIFF_IN_NEW;
	r->v[side][0] = diff_rate(s, (double)count);
	r->v[side][1] = min;
	r->v[side][2] = avg;
	r->v[side][3] = p99;
	r->v[side][4] = max;
}

void diff_make_agg(struct diff *d, struct diff_build *b)
{
	for (int i = 0; i < DIFF_NSIDES; i++) {
		struct diff_side *s = &d->side[i];

		for (unsigned int m = 0; m < side_count(s); m++) {
			struct agg_result r;

			if (!side_measure(s, m, &r)) {
				agg_result_clear(&r);
				continue;
			}
			b->t->have[i] = true;
			agg_row(b, s, i, r.title, r.count, r.count ? (double)r.min_ns : NAN,
				r.count ? (double)r.sum_ns / (double)r.count : NAN,
				r.count ? (double)agg_quantile(&r, 0.99) : NAN,
				r.count ? (double)r.max_ns : NAN);
			for (size_t k = 0; k < r.nrows && k < AGG_KEY_ROWS; k++) {
				const struct agg_row *kr = &r.rows[k];
				char key[AGG_TEXT_MAX + AGG_KEYTEXT + 8];

				snprintf(key, sizeof(key), "%s [%s]", r.title, kr->key);
				agg_row(b, s, i, key, kr->count, NAN,
					kr->count ? (double)kr->sum / (double)kr->count : NAN, NAN,
					(double)kr->max);
			}
			agg_result_clear(&r);
		}
	}
	/* a side without the row: its times are unknown there, not 0 */
	for (size_t k = 0; k < b->t->n; k++) {
		struct diff_row *r = &b->t->rows[k];

		for (int i = 0; i < DIFF_NSIDES; i++)
			if (!(r->in & (1u << i)))
				for (int c = 1; c < 5; c++)
					r->v[i][c] = NAN;
	}
	if (!b->t->have[0] && !b->t->have[1])
		snprintf(b->t->note, sizeof(b->t->note),
			 "neither side has in-kernel latencies (--latency, --sql)");
}

void diff_agg_hist(struct diff *d, struct diff_build *b)
{
	char titles[AGG_MAX_ITEMS][AGG_TEXT_MAX];
	unsigned int nt = 0;

	/* the measures of both, BASE's first, each title once */
	for (int i = 0; i < DIFF_NSIDES; i++) {
		for (unsigned int m = 0; m < side_count(&d->side[i]); m++) {
			struct agg_result r;
			unsigned int t;

			if (side_measure(&d->side[i], m, &r)) {
				for (t = 0; t < nt && strcmp(titles[t], r.title); t++)
					;
				if (t == nt && nt < AGG_MAX_ITEMS)
					snprintf(titles[nt++], sizeof(titles[0]), "%s", r.title);
			}
			agg_result_clear(&r);
		}
	}
	for (unsigned int t = 0; t < nt; t++) {
		uint64_t h[DIFF_NSIDES][AGG_BUCKETS] = { { 0 } };
		unsigned int unit = 1;
		bool have[DIFF_NSIDES] = { false, false };
		int lo = -1, hi = -1;

		for (int i = 0; i < DIFF_NSIDES; i++) {
			for (unsigned int m = 0; m < side_count(&d->side[i]); m++) {
				struct agg_result r;

				if (side_measure(&d->side[i], m, &r) && !strcmp(r.title, titles[t])) {
					memcpy(h[i], r.bucket, sizeof(h[i]));
					unit = r.unit_ns;
					have[i] = true;
				}
				agg_result_clear(&r);
			}
			for (int k = 0; k < AGG_BUCKETS; k++) {
				if (!h[i][k])
					continue;
				lo = lo < 0 || k < lo ? k : lo;
				hi = k > hi ? k : hi;
				b->t->have[i] = true;
			}
		}
		for (int k = lo; lo >= 0 && k <= hi; k++) {
			char key[AGG_TEXT_MAX + 16];
			struct diff_row *r;

			snprintf(key, sizeof(key), "%.*s\t%d", AGG_TEXT_MAX - 1, titles[t], k);
			r = diff_build_row(b, key, strlen(key), titles[t]);
			if (!r)
				return;
			r->series = DIFF_SERIES_AGG + (int)t;
			agg_bucket_bounds(unit, (unsigned int)k, &r->lo, &r->hi);
			for (int i = 0; i < DIFF_NSIDES; i++) {
				if (!have[i])
					continue;
				r->in |= i == DIFF_BASE ? DIFF_IN_BASE : DIFF_IN_NEW;
				r->v[i][0] = diff_rate(&d->side[i], (double)h[i][k]);
			}
		}
	}
}
