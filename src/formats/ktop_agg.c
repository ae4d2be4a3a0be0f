// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The AGG block of a .ktop file or stream (BLK_AGG, format version 4): the
 * in-kernel aggregations' results (struct agg_result) as the last poll had
 * them, so a recording shows the latency pane and the --batch/--json
 * sections of the run that made it. A file has one, before its END; a
 * stream one per poll. Integers are varints; every count is checked against
 * the bytes left before anything is allocated.
 *
 *   var version(1) n, n x result:
 *     var idx kind, str engine title start end keynames why kobj error,
 *     var unit_ns count sum_ns min_ns max_ns dropped keys_dropped starts ends
 *         rate_milli,
 *     var nb, nb x (var bucket count),
 *     var worst_lat worst_te, str worst_key,
 *     var nrows, nrows x (str key, var count sum max max_te)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg/agg.h"
#include "ktop-local.h"
#include "ktop_agg.h"

#define AGG_BLOCK_VERSION	1
#define AGG_BLOCK_ROWS		(1u << 20)

int ktop_agg_encode(struct buf *b, struct agg_set *s)
{
	unsigned int n = agg_set_count(s);

	buf_var(b, AGG_BLOCK_VERSION);
	buf_var(b, n);
	for (unsigned int i = 0; i < n; i++) {
		struct agg_result r;
		unsigned int nb = 0;

		memset(&r, 0, sizeof(r));
		if (agg_set_result(s, i, &r))
			r.idx = i;
		buf_var(b, r.idx);
		buf_var(b, r.kind);
		buf_strn(b, r.engine ? r.engine : "", 16);
		buf_strn(b, r.title, sizeof(r.title));
		buf_strn(b, r.start, sizeof(r.start));
		buf_strn(b, r.end, sizeof(r.end));
		buf_strn(b, r.keynames, sizeof(r.keynames));
		buf_strn(b, r.why, sizeof(r.why));
		buf_strn(b, r.kobj, sizeof(r.kobj));
		buf_strn(b, r.error, sizeof(r.error));
		buf_var(b, r.unit_ns);
		buf_var(b, r.count);
		buf_var(b, r.sum_ns);
		buf_var(b, r.min_ns);
		buf_var(b, r.max_ns);
		buf_var(b, r.dropped);
		buf_var(b, r.keys_dropped);
		buf_var(b, r.starts);
		buf_var(b, r.ends);
		buf_var(b, (uint64_t)(r.rate * 1000 + 0.5));
		for (int k = 0; k < AGG_BUCKETS; k++)
			nb += r.bucket[k] != 0;
		buf_var(b, nb);
		for (int k = 0; k < AGG_BUCKETS; k++)
			if (r.bucket[k]) {
				buf_var(b, k);
				buf_var(b, r.bucket[k]);
			}
		buf_var(b, r.worst.lat_ns);
		buf_var(b, r.worst.te_ns);
		buf_strn(b, r.worst.key, sizeof(r.worst.key));
		buf_var(b, r.nrows);
		for (size_t k = 0; k < r.nrows; k++) {
			buf_strn(b, r.rows[k].key, sizeof(r.rows[k].key));
			buf_var(b, r.rows[k].count);
			buf_var(b, r.rows[k].sum);
			buf_var(b, r.rows[k].max);
			buf_var(b, r.rows[k].max_te);
		}
		agg_result_clear(&r);
	}
	return b->err;
}

static void get_str(struct cur *c, char *out, size_t len)
{
	uint64_t n = cur_var(c);

	out[0] = '\0';
	if (c->bad || n >= len || n > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		return;
	}
	memcpy(out, c->p, n);
	out[n] = '\0';
	c->p += n;
}

static const char *engine_name(const char *s)
{
	return !strcmp(s, "hist") ? "hist" : !strcmp(s, "bpf") ? "bpf" : "?";
}

int ktop_agg_decode(const uint8_t *p, size_t n, struct agg_result **out, unsigned int *nout,
		    char *err, size_t errlen)
{
	struct cur c = { .p = p, .end = p + n };
	struct agg_result *res = NULL;
	uint64_t ver, cnt;
	unsigned int i = 0;

	ver = cur_var(&c);
	if (!c.bad && ver != AGG_BLOCK_VERSION) {
		snprintf(err, errlen, "aggregation block of version %llu (this ktop reads %d)",
			 (unsigned long long)ver, AGG_BLOCK_VERSION);
		return -EPROTO;
	}
	cnt = cur_var(&c);
	if (c.bad || cnt > AGG_MAX_ITEMS)
		goto bad;
	res = calloc(cnt ? cnt : 1, sizeof(*res));
	if (!res) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < cnt && !c.bad; i++) {
		struct agg_result *r = &res[i];
		char eng[17];
		uint64_t nb, nrows;

		r->idx = cur_var(&c);
		r->kind = cur_var(&c) == AGG_HIST ? AGG_HIST : AGG_LATENCY;
		get_str(&c, eng, sizeof(eng));
		r->engine = engine_name(eng);
		get_str(&c, r->title, sizeof(r->title));
		get_str(&c, r->start, sizeof(r->start));
		get_str(&c, r->end, sizeof(r->end));
		get_str(&c, r->keynames, sizeof(r->keynames));
		get_str(&c, r->why, sizeof(r->why));
		get_str(&c, r->kobj, sizeof(r->kobj));
		get_str(&c, r->error, sizeof(r->error));
		r->unit_ns = cur_var(&c);
		r->count = cur_var(&c);
		r->sum_ns = cur_var(&c);
		r->min_ns = cur_var(&c);
		r->max_ns = cur_var(&c);
		r->dropped = cur_var(&c);
		r->keys_dropped = cur_var(&c);
		r->starts = cur_var(&c);
		r->ends = cur_var(&c);
		r->rate = (double)cur_var(&c) / 1000;
		nb = cur_var(&c);
		if (c.bad || nb > AGG_BUCKETS)
			goto bad;
		for (uint64_t k = 0; k < nb; k++) {
			uint64_t b = cur_var(&c);

			if (b >= AGG_BUCKETS) {
				c.bad = true;
				break;
			}
			r->bucket[b] = cur_var(&c);
		}
		r->worst.lat_ns = cur_var(&c);
		r->worst.te_ns = cur_var(&c);
		get_str(&c, r->worst.key, sizeof(r->worst.key));
		nrows = cur_var(&c);
		/* a row takes 5 bytes at least */
		if (c.bad || nrows > AGG_BLOCK_ROWS || nrows * 5 > (uint64_t)(c.end - c.p))
			goto bad;
		r->rows = calloc(nrows ? nrows : 1, sizeof(*r->rows));
		if (!r->rows) {
			c.bad = true;
			break;
		}
		for (uint64_t k = 0; k < nrows && !c.bad; k++) {
			struct agg_row *row = &r->rows[r->nrows++];

			get_str(&c, row->key, sizeof(row->key));
			row->count = cur_var(&c);
			row->sum = cur_var(&c);
			row->max = cur_var(&c);
			row->max_te = cur_var(&c);
		}
		r->running = true;
	}
	if (c.bad || c.p != c.end)
		goto bad;
	*out = res;
	*nout = (unsigned int)cnt;
	return 0;
bad:
	for (unsigned int k = 0; res && k <= i && k < cnt; k++)
		agg_result_clear(&res[k]);
	free(res);
	snprintf(err, errlen, "a corrupt aggregation block");
	return -EBADMSG;
}
