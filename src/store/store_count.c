// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * store_count_by(): counting by type, pid, CPU or function over a window, on
 * the chunk-level reading API (src/store/store.h). A sealed chunk that lies wholly
 * inside the window is counted from its dictionaries' per-entry counts,
 * without decoding a row (function ids are not counted there: a chunk with no
 * function event is skipped, any other decoded); only the chunks at the
 * window's two ends, the open chunk, and chunks whose pids pass the filter in
 * part (by type) decode the columns they need.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/intern.h"
#include "lib/hashmap.h"
#include "store.h"

#define COUNT_CHUNKS	64

struct counting {
	struct store		*st;
	const struct store_filter *f;
	enum store_key		key;
	const char		*comm;		/* f->comm_id's string, or NULL */
	bool			by_pid;		/* the pid column is needed */
	struct hmap		m;
	struct store_chunk_rd	*rd;
};

/* Does @pid pass the filter's pid and comm conditions? */
static bool pid_ok(const struct counting *c, int32_t pid)
{
	return (c->f->pid < 0 || pid == c->f->pid) &&
	       (!c->comm || store_comm(c->st, pid) == c->comm);
}

enum { COUNT_DECODE, COUNT_DONE, COUNT_PAST };

/* A sealed chunk inside the window, from its dictionaries. Return: COUNT_* or -ENOMEM. */
static int count_whole(struct counting *c, unsigned int cpu, const struct store_chunk_info *ci)
{
	struct store_chunk_dict d;
	uint64_t total = 0, matched = 0;

	if (store_chunk_dict(c->rd, cpu, ci->first_seq, &d))
		return COUNT_DECODE;
	for (uint32_t i = 0; i < d.npid; i++)
		total += d.pid_n[i];
	if (total != ci->n)
		return COUNT_DECODE;	/* not all of it published yet */
	/* the events of the pids that pass, counted by pid on the way */
	for (uint32_t i = 0; i < d.npid; i++) {
		if (!d.pid_n[i] || (c->by_pid && !pid_ok(c, d.pid[i])))
			continue;
		matched += d.pid_n[i];
		if (c->key == STORE_KEY_PID && hmap_add(&c->m, (uint64_t)(int64_t)d.pid[i], d.pid_n[i]))
			return -ENOMEM;
	}
	if (c->key == STORE_KEY_PID || !matched)
		return COUNT_DONE;
	if (c->key == STORE_KEY_CPU)
		return hmap_add(&c->m, cpu, matched) ? -ENOMEM : COUNT_DONE;
	if (matched != total && c->key == STORE_KEY_TYPE)
		return COUNT_DECODE;	/* some pids pass, some not: per row */
	for (uint32_t i = 0; i < d.ntype; i++) {
		if (c->key == STORE_KEY_FUNC) {
			if (d.type[i] == KTOP_T_FUNCTION || d.type[i] == KTOP_T_FGRAPH_ENTRY)
				return COUNT_DECODE;
			continue;
		}
		if (hmap_add(&c->m, d.type[i], d.type_n[i]))
			return -ENOMEM;
	}
	return COUNT_DONE;
}

/* Rows of @cpu from @seq in its chunk. Return: COUNT_PAST (the window ended), COUNT_DONE, or -ENOMEM. */
static int count_rows(struct counting *c, unsigned int cpu, uint64_t seq)
{
	unsigned int cols = STORE_COL_TS | (c->by_pid ? STORE_COL_PID : 0) | store_key_cols(c->key);
	struct store_chunk_rows r;

	if (store_chunk_rows(c->rd, cpu, seq, cols, &r))
		return COUNT_DONE;	/* evicted meanwhile */
	for (uint32_t i = r.lo; i < r.n; i++) {
		const struct store_brow *w = &r.row[i];
		uint64_t k;

		if (w->ts > c->f->t1)
			return COUNT_PAST;
		if (w->ts < c->f->t0 || (c->by_pid && !pid_ok(c, w->pid)) ||
		    !store_row_key(&r, i, cpu, c->key, &k))
			continue;
		if (hmap_add(&c->m, k, 1))
			return -ENOMEM;
	}
	return COUNT_DONE;
}

/* One CPU's events in the window. Return: 0 or -ENOMEM. */
static int count_cpu(struct counting *c, unsigned int cpu)
{
	struct store_chunk_info ci[COUNT_CHUNKS];
	uint64_t from = store_seek(c->st, cpu, c->f->t0);
	size_t n;

	do {
		n = store_chunks(c->st, cpu, from, ci, COUNT_CHUNKS);
		for (size_t k = 0; k < n; k++) {
			int ret = COUNT_DECODE;

			if (ci[k].t_min > c->f->t1)
				return 0;
			if (ci[k].sealed && ci[k].first_seq >= from && ci[k].t_min >= c->f->t0 &&
			    ci[k].t_max <= c->f->t1)
				ret = count_whole(c, cpu, &ci[k]);
			if (ret == COUNT_DECODE)
				ret = count_rows(c, cpu, from > ci[k].first_seq ? from :
								     ci[k].first_seq);
			if (ret < 0)
				return ret;
			if (ret == COUNT_PAST)
				return 0;
			from = ci[k].first_seq + ci[k].n;
		}
	} while (n == COUNT_CHUNKS);
	return 0;
}

static int count_cmp(const void *a, const void *b)
{
	const struct store_count *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->key < y->key ? -1 : x->key > y->key;
}

static int key_cmp(const void *a, const void *b)
{
	const struct store_count *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

size_t store_counts_merge(struct store_count *v, size_t n)
{
	size_t w = 0;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), key_cmp);
	for (size_t r = 1; r < n; r++) {
		if (v[r].key == v[w].key)
			v[w].count += v[r].count;
		else
			v[++w] = v[r];
	}
	qsort(v, w + 1, sizeof(*v), count_cmp);
	return w + 1;
}

size_t store_count_sorted(const struct hmap *m, struct store_count *out, size_t max)
{
	struct store_count *v = malloc((hmap_count(m) ? hmap_count(m) : 1) * sizeof(*v));
	size_t n = 0, pos = 0;

	if (!v)
		return 0;
	while (hmap_next(m, &pos, &v[n].key, &v[n].count))
		n++;
	qsort(v, n, sizeof(*v), count_cmp);
	if (out)
		memcpy(out, v, (n < max ? n : max) * sizeof(*out));
	free(v);
	return n;
}

size_t store_count_by(const struct store *st, enum store_key key,
		      const struct store_filter *f, struct store_count *out, size_t max)
{
	static const struct store_filter all = { 0, UINT64_MAX, -1, -1, 0 };
	struct counting c = {
		.st = (struct store *)st, .f = f ? f : &all, .key = key,
	};
	size_t n = 0;

	c.comm = c.f->comm_id ? intern_str(store_strings(c.st), c.f->comm_id) : NULL;
	c.by_pid = key == STORE_KEY_PID || c.f->pid >= 0 || c.f->comm_id;
	c.rd = store_chunk_rd_new(st);
	if (!c.rd)
		return 0;
	for (unsigned int cpu = 0; cpu < store_ncpus(st); cpu++) {
		if (c.f->cpu >= 0 && (unsigned int)c.f->cpu != cpu)
			continue;
		if (count_cpu(&c, cpu))
			break;
	}
	n = store_count_sorted(&c.m, out, max);
	hmap_destroy(&c.m);
	store_chunk_rd_free(c.rd);
	return n;
}
