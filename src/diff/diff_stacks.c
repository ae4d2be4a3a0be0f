// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The diff's stacks: each side's stack set (src/model/stacktree.h: the
 * events' stacks, or the function_graph paths made into stacks), matched by
 * their frames' names. Three shapes of the same match:
 *
 *   the stacks table   one row per distinct stack (its folded line), events/s
 *   a merged tree      root first (a differential icicle: a frame's width
 *                      from NEW, its colour from the change) or leaf first
 *                      (a caller tree with both sides' figures)
 *   the folded diff    difffolded.pl's two columns, for flamegraph.pl
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff-local.h"
#include "formats/format.h"
#include "lib/array.h"
#include "lib/intern.h"
#include "model/fgraph.h"
#include "model/stacktree.h"
#include "store/stacks.h"

#define NAMES_MAX	(2 * STACK_MAX_FRAMES + 2)

/* One side's stacks of @src. Return: 0 (an empty set when it has none), or -ENOMEM. */
static int side_set(struct diff_side *s, enum diff_stack_src src, struct stack_set *out)
{
	struct stack_query q;

	memset(out, 0, sizeof(*out));
	if (!s->ready || (src == DIFF_STACK_EVENTS && !stacks_count(store_stacks(s->st))))
		return 0;
	if (src == DIFF_STACK_GRAPH) {
		struct fgraph *g = diff_side_fgraph(s);

		return g ? stack_set_from_fgraph(s->st, g, 0, true, out) : 0;
	}
	stack_query_all(&q);
	q.t0 = s->t0;
	q.t1 = s->t1;
	if (s->vf) {
		q.keep = diff_keep;
		q.keep_ctx = s->vf;
	}
	return stack_set_from_store(s->st, &q, out);
}

struct set_job {
	enum diff_stack_src	src;
	struct stack_set	set;
	int			err;
};

static void set_prep(struct diff_side *s, void *arg)
{
	struct set_job *j = arg;

	j->err = side_set(s, j->src, &j->set);
}

/* Both sides' sets at once (free each with stack_set_free). Return: 0 or -ENOMEM. */
static int sets_both(struct diff *d, enum diff_stack_src src, struct stack_set out[2])
{
	struct set_job j[2] = { { .src = src }, { .src = src } };

	diff_sides_run(d, set_prep, (void *[]){ &j[0], &j[1] });
	out[0] = j[0].set;
	out[1] = j[1].set;
	if (j[0].err || j[1].err) {
		stack_set_free(&out[0]);
		stack_set_free(&out[1]);
		return -ENOMEM;
	}
	return 0;
}

/* The weight of an entry: events (count), or self ns of a graph path (value). */
static uint64_t weight(enum diff_stack_src src, const struct stack_weight *w)
{
	return src == DIFF_STACK_GRAPH ? w->value : w->count;
}

/* A frame's name as folded lines write it: ';' and blanks are separators there. */
static size_t put_name(char *out, size_t room, const char *s)
{
	size_t n = 0;

	for (; *s && n + 1 < room; s++, n++)
		out[n] = *s == ';' || *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' ?
			 '_' : *s;
	return n;
}

/* The folded line of stack @id of @st, root first, into @buf. Return: its length, 0: none. */
static size_t folded_key(struct store *st, uint32_t id, char *buf, size_t len)
{
	struct intern *in = store_strings(st);
	uint32_t names[NAMES_MAX];
	int n = stacks_shown_names(store_stacks(st), id, names, NAMES_MAX, NULL);
	size_t l = 0;

	if (n <= 0)
		return 0;
	if (n > NAMES_MAX)
		n = NAMES_MAX;
	for (int k = n - 1; k >= 0 && l + 2 < len; k--) {
		const char *s = intern_str(in, names[k]);

		l += put_name(buf + l, len - l - 1, s[0] ? s : "[unknown]");
		if (k && l + 1 < len)
			buf[l++] = ';';
	}
	buf[l] = 0;
	return l;
}

/* ---- the stacks table ------------------------------------------------------------ */

void diff_make_stacks(struct diff *d, struct diff_build *b)
{
	char *key = malloc(64 << 10);
	struct stack_set sets[2];

	if (!key || sets_both(d, DIFF_STACK_EVENTS, sets)) {
		free(key);
		b->err = -ENOMEM;
		return;
	}
	for (int i = 0; i < DIFF_NSIDES; i++) {
		struct diff_side *s = &d->side[i];
		struct stack_set set = sets[i];

		for (size_t k = 0; k < set.n; k++) {
			size_t l = folded_key(s->st, set.v[k].stack, key, 64 << 10);
			struct diff_row *r;

			if (!l || !set.v[k].count)
				continue;
			r = diff_build_row(b, key, l, NULL);
			if (!r)
				break;
			r->in |= i == DIFF_BASE ? DIFF_IN_BASE : DIFF_IN_NEW;
			r->v[i][0] += diff_rate(s, (double)set.v[k].count);
		}
		b->t->have[i] = set.count > 0;
		stack_set_free(&set);
	}
	free(key);
	if (!b->t->have[0] && !b->t->have[1])
		snprintf(b->t->note, sizeof(b->t->note),
			 "neither recording has events with stacks (--stack, -e EVENT:stack)");
}

/* ---- the merged tree ------------------------------------------------------------- */

void diff_stree_free(struct diff_stree *t)
{
	if (!t)
		return;
	hmap_destroy(&t->idx);
	free(t->v);
	free(t);
}

static uint64_t node_hash(uint32_t parent, const char *name)
{
	return hash_str(name, strlen(name)) ^ ((uint64_t)parent * HMAP_GOLDEN + 1);
}

/* The child of @parent named @name, added when missing. Return: its id, DIFF_SNONE: ENOMEM. */
static uint32_t stree_child(struct diff_stree *t, uint32_t parent, const char *name)
{
	uint64_t h = node_hash(parent, name), *slot;
	struct diff_snode *p = &t->v[parent], *c;
	uint32_t id;

	slot = hmap_get(&t->idx, h);
	if (slot) {
		c = &t->v[*slot - 1];
		if (c->parent == parent && !strcmp(c->name, name))
			return (uint32_t)(*slot - 1);
		/* a collision: the siblings, one by one */
		for (id = p->first_child; id != DIFF_SNONE; id = t->v[id].next_sibling)
			if (!strcmp(t->v[id].name, name))
				return id;
	}
	if (array_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v)))
		return DIFF_SNONE;
	id = (uint32_t)t->n++;
	p = &t->v[parent];
	c = &t->v[id];
	memset(c, 0, sizeof(*c));
	c->parent = parent;
	c->first_child = DIFF_SNONE;
	c->next_sibling = p->first_child;
	c->name = name;
	c->depth = (uint16_t)(p->depth + 1);
	p->first_child = id;
	p->nchildren++;
	if (!slot && hmap_set(&t->idx, h, id + 1))
		return DIFF_SNONE;
	return id;
}

static int stree_add(struct diff_stree *t, int side, struct store *st, uint32_t stack, double v)
{
	struct intern *in = store_strings(st);
	uint32_t names[NAMES_MAX], node = 0;
	int n = stacks_shown_names(store_stacks(st), stack, names, NAMES_MAX, NULL);

	if (n <= 0)
		return 0;
	if (n > NAMES_MAX)
		n = NAMES_MAX;
	t->v[0].v[side] += v;
	for (int k = 0; k < n; k++) {
		/* the table holds the leaf first: an icicle starts at the root */
		int f = t->callers ? k : n - 1 - k;
		const char *s = intern_str(in, names[f]);

		node = stree_child(t, node, s[0] ? s : "[unknown]");
		if (node == DIFF_SNONE)
			return -ENOMEM;
		t->v[node].v[side] += v;
	}
	t->v[node].self[side] += v;
	return 0;
}

static int child_cmp(const void *a, const void *b, void *arg)
{
	const struct diff_stree *t = arg;
	const struct diff_snode *x = &t->v[*(const uint32_t *)a], *y = &t->v[*(const uint32_t *)b];

	if (x->v[DIFF_NEW] != y->v[DIFF_NEW])
		return x->v[DIFF_NEW] < y->v[DIFF_NEW] ? 1 : -1;
	if (x->v[DIFF_BASE] != y->v[DIFF_BASE])
		return x->v[DIFF_BASE] < y->v[DIFF_BASE] ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Children by NEW's value, largest first (then BASE's: frames that are gone last). */
static int stree_order(struct diff_stree *t)
{
	uint32_t *kids = NULL;
	size_t cap = 0;

	for (size_t id = 0; id < t->n; id++) {
		struct diff_snode *p = &t->v[id];
		uint32_t k, n = 0;

		if (p->nchildren < 2)
			continue;
		if (array_grow((void **)&kids, &cap, p->nchildren, sizeof(*kids))) {
			free(kids);
			return -ENOMEM;
		}
		for (k = p->first_child; k != DIFF_SNONE; k = t->v[k].next_sibling)
			kids[n++] = k;
		qsort_r(kids, n, sizeof(*kids), child_cmp, t);
		p->first_child = kids[0];
		for (k = 0; k + 1 < n; k++)
			t->v[kids[k]].next_sibling = kids[k + 1];
		t->v[kids[n - 1]].next_sibling = DIFF_SNONE;
	}
	free(kids);
	return 0;
}

const struct diff_stree *diff_stree(struct diff *d, enum diff_stack_src src, bool callers)
{
	struct diff_stree *t = d->stree;
	struct stack_set sets[2];
	bool any = false;

	if (t && t->src == src && t->callers == callers)
		return t;
	diff_stree_free(t);
	d->stree = t = calloc(1, sizeof(*t));
	if (!t || array_grow((void **)&t->v, &t->cap, 1, sizeof(*t->v)))
		goto fail;
	t->src = src;
	t->callers = callers;
	t->unit = src == DIFF_STACK_GRAPH ? "ns/s" : "events/s";
	t->n = 1;
	memset(&t->v[0], 0, sizeof(t->v[0]));
	t->v[0].parent = DIFF_SNONE;
	t->v[0].first_child = DIFF_SNONE;
	t->v[0].next_sibling = DIFF_SNONE;
	t->v[0].name = "all";
	if (sets_both(d, src, sets))
		goto fail;
	for (int i = 0; i < DIFF_NSIDES; i++) {
		struct diff_side *s = &d->side[i];

		for (size_t k = 0; k < sets[i].n; k++) {
			uint64_t w = weight(src, &sets[i].v[k]);

			if (w && stree_add(t, i, s->st, sets[i].v[k].stack,
					   diff_rate(s, (double)w))) {
				stack_set_free(&sets[0]);
				stack_set_free(&sets[1]);
				goto fail;
			}
			any |= w > 0;
		}
	}
	stack_set_free(&sets[0]);
	stack_set_free(&sets[1]);
	if (!any || stree_order(t))
		goto fail;
	return t;
fail:
	diff_stree_free(d->stree);
	d->stree = NULL;
	return NULL;
}

uint32_t diff_stree_size(const struct diff_stree *t)
{
	return t ? (uint32_t)t->n : 0;
}

const struct diff_snode *diff_stree_node(const struct diff_stree *t, uint32_t id)
{
	return t && id < t->n ? &t->v[id] : NULL;
}

const char *diff_stree_unit(const struct diff_stree *t)
{
	return t ? t->unit : "";
}

/* ---- the folded diff --------------------------------------------------------------- */

struct fold_line {
	const char	*key;
	uint64_t	w[DIFF_NSIDES];
};

/* A number as flamegraph.pl reads it: digits, a point and up to 3 decimals. */
static void put_num(FILE *fp, double v)
{
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "%.3f", v);

	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = 0;
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = 0;
	fputs(buf, fp);
}

long diff_write_folded(struct diff *d, enum diff_stack_src src, FILE *fp)
{
	struct fold_line *lines = NULL;
	struct diff_pool pool = { 0 };
	struct strmap by = { 0 };
	size_t n = 0, cap = 0;
	char *key = malloc(64 << 10);
	struct stack_set sets[2];
	double scale;
	long ret = 0;

	if (!key || sets_both(d, src, sets)) {
		free(key);
		return -ENOMEM;
	}
	for (int i = 0; i < DIFF_NSIDES && !ret; i++) {
		struct diff_side *s = &d->side[i];
		struct stack_set set = sets[i];

		for (size_t k = 0; k < set.n && !ret; k++) {
			uint64_t w = weight(src, &set.v[k]), *slot;
			size_t l = folded_key(s->st, set.v[k].stack, key, 64 << 10);
			bool added;
			const char *pk;

			if (!w || !l)
				continue;
			slot = strmap_get(&by, key, l);
			if (!slot) {
				pk = diff_pool_str(&pool, key, l);
				if (!pk || array_grow((void **)&lines, &cap, n + 1, sizeof(*lines)) ||
				    !(slot = strmap_put(&by, pk, &added))) {
					ret = -ENOMEM;
					break;
				}
				*slot = n;
				lines[n].key = pk;
				lines[n].w[0] = lines[n].w[1] = 0;
				n++;
			}
			lines[*slot].w[i] += w;
		}
	}
	stack_set_free(&sets[0]);
	stack_set_free(&sets[1]);
	free(key);
	if (!ret && !n)
		ret = -ENOENT;
	/* BASE counted over NEW's length: the colours compare rates, the widths are NEW's */
	scale = d->side[DIFF_BASE].secs > 0 && d->side[DIFF_NEW].secs > 0 ?
		d->side[DIFF_NEW].secs / d->side[DIFF_BASE].secs : 1;
	for (size_t k = 0; !ret && k < n; k++) {
		fputs(lines[k].key, fp);
		fputc(' ', fp);
		put_num(fp, (double)lines[k].w[DIFF_BASE] * scale);
		fprintf(fp, " %llu\n", (unsigned long long)lines[k].w[DIFF_NEW]);
	}
	if (!ret && ferror(fp))
		ret = -EIO;
	strmap_destroy(&by);
	diff_pool_free(&pool);
	free(lines);
	return ret ? ret : (long)n;
}

int diff_save_folded(struct diff *d, enum diff_stack_src src, const char *path,
		     unsigned int file_flags, char *err, size_t errlen)
{
	struct format_out out = { .path = path, .fd = -1 };
	struct format_file f;
	long n;
	int ret;

	ret = format_out_open(&f, &out, file_flags, true, err, errlen);
	if (ret)
		return ret;
	n = diff_write_folded(d, src, f.fp);
	if (n == -ENOENT)
		snprintf(err, errlen, "%s: neither recording has %s to diff", path,
			 src == DIFF_STACK_GRAPH ? "function_graph calls" :
			 "events with stacks (--stack, -e EVENT:stack)");
	else if (n < 0)
		snprintf(err, errlen, "%s: %s", path, strerror((int)-n));
	return format_out_close(&f, n < 0 ? (int)n : 0, NULL, err, errlen);
}
