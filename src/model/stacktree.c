// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Stack sets and the trees merged from them (stacktree.h).
 *
 * A tree is built from the set's frame-name sequences sorted
 * lexicographically (leaf first or root first): walking them in that order
 * with the path of the previous one, a sequence shares the nodes of its
 * common prefix with the previous and adds the rest, so every node is made
 * once and the stacks under a node are a contiguous run of the sorted order.
 * Cost: a sort of the distinct stacks (not of events), O(frames) after.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "fgraph.h"
#include "lib/intern.h"
#include "stacktree.h"
#include "store/store.h"

#define CPU_MASK_WORDS	128	/* 8192 CPUs, as the batch printer */

void stack_query_all(struct stack_query *q)
{
	memset(q, 0, sizeof(*q));
	q->cpu = -1;
	q->pid = -1;
	q->type = -1;
}

/* Every event of @q, in time order, to @fn. Return: 0, -ENOMEM, or @fn's value. */
static int query_walk(struct store *st, const struct stack_query *q, stack_event_fn fn,
		      void *ctx)
{
	uint64_t mask[CPU_MASK_WORDS] = { 0 };
	struct store_iter *it;
	struct ktop_event ev;
	uint64_t seq;
	int ret = 0;

	if (q->cpu >= 0) {
		if ((unsigned int)q->cpu >= store_ncpus(st) || q->cpu >= CPU_MASK_WORDS * 64)
			return 0;
		mask[q->cpu / 64] = 1ull << (q->cpu % 64);
	}
	it = store_iter_new(st, q->t0, q->t1 ? q->t1 : UINT64_MAX, q->cpu >= 0 ? mask : NULL);
	if (!it)
		return -ENOMEM;
	while (!ret && store_iter_next(it, &ev, &seq)) {
		if ((q->type >= 0 && ev.type != q->type) || (q->pid >= 0 && ev.pid != q->pid))
			continue;
		if (q->keep && !q->keep(q->keep_ctx, &ev))
			continue;
		ret = fn(ctx, &ev, seq);
	}
	store_iter_free(it);
	return ret;
}

/* ---- stack sets ------------------------------------------------------------- */

/* Accumulates weights by stack id: ids are dense, so an array indexed by id. */
struct acc {
	struct stacks		*sk;
	uint32_t		*slot;		/* id -> index + 1 into set->v; 0: none */
	uint8_t			*ok;		/* func filter: 0 unknown, 1 no, 2 yes */
	uint32_t		nslot;
	uint32_t		func;
	struct stack_set	*set;
	size_t			cap;
};

static bool acc_has_func(struct acc *a, uint32_t id)
{
	uint32_t names[2 * STACK_MAX_FRAMES + 2];
	int n;

	if (!a->ok[id]) {
		n = stacks_names(a->sk, id, names, sizeof(names) / sizeof(names[0]));
		a->ok[id] = 1;
		for (int i = 0; i < n && i < (int)(sizeof(names) / sizeof(names[0])); i++)
			if (names[i] == a->func)
				a->ok[id] = 2;
	}
	return a->ok[id] == 2;
}

/* Add @count and @value to stack @id. Return: 0 or -ENOMEM. */
static int acc_add(struct acc *a, uint32_t id, int32_t pid, uint64_t count, uint64_t value)
{
	struct stack_set *s = a->set;
	struct stack_weight *w;

	if (id >= a->nslot) {
		uint32_t n = stacks_count(a->sk) + 1, *sl;
		uint8_t *ok;

		if (id >= n)
			return 0;	/* not a stack of this table */
		sl = realloc(a->slot, n * sizeof(*sl));
		ok = sl ? realloc(a->ok, n) : NULL;
		if (!sl || !ok) {
			a->slot = sl ? sl : a->slot;
			return -ENOMEM;
		}
		memset(sl + a->nslot, 0, (n - a->nslot) * sizeof(*sl));
		memset(ok + a->nslot, 0, n - a->nslot);
		a->slot = sl;
		a->ok = ok;
		a->nslot = n;
	}
	if (a->func && !acc_has_func(a, id))
		return 0;
	if (!a->slot[id]) {
		if (array_grow((void **)&s->v, &a->cap, s->n + 1, sizeof(*s->v)))
			return -ENOMEM;
		s->v[s->n] = (struct stack_weight){ .stack = id, .pid = pid };
		a->slot[id] = (uint32_t)++s->n;
	}
	w = &s->v[a->slot[id] - 1];
	if (w->pid != pid)
		w->pid = -1;
	w->count += count;
	w->value += value;
	s->count += count;
	s->value += value;
	return 0;
}

static int weight_cmp(const void *x, const void *y)
{
	const struct stack_weight *a = x, *b = y;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if (a->value != b->value)
		return a->value > b->value ? -1 : 1;
	return a->stack < b->stack ? -1 : a->stack > b->stack;
}

/* Off-CPU: by time. */
static int value_cmp(const void *x, const void *y)
{
	const struct stack_weight *a = x, *b = y;

	if (a->value != b->value)
		return a->value > b->value ? -1 : 1;
	return weight_cmp(x, y);
}

static void acc_init(struct acc *a, struct store *st, struct stack_set *out, uint32_t func)
{
	memset(a, 0, sizeof(*a));
	memset(out, 0, sizeof(*out));
	a->sk = store_stacks(st);
	a->set = out;
	a->func = func;
}

static int acc_done(struct acc *a, int ret)
{
	free(a->slot);
	free(a->ok);
	if (ret) {
		stack_set_free(a->set);
		return ret;
	}
	if (a->set->n)
		qsort(a->set->v, a->set->n, sizeof(*a->set->v), weight_cmp);
	return 0;
}

static int acc_event(void *ctx, const struct ktop_event *ev, uint64_t seq)
{
	struct acc *a = ctx;

	(void)seq;
	if (!ev->stack) {
		a->set->without++;
		return 0;
	}
	return acc_add(a, ev->stack, ev->pid, 1, 1);
}

int stack_set_from_store(struct store *st, const struct stack_query *q, struct stack_set *out)
{
	struct acc a;

	acc_init(&a, st, out, q->func);
	return acc_done(&a, query_walk(st, q, acc_event, &a));
}

int stack_set_from_offcpu(struct store *st, bool per_pid, const struct stack_query *q,
			    struct stack_set *out)
{
	struct stacks *sk = store_stacks(st);
	struct stack_weight *w;
	size_t n = stacks_weights_get(sk, STACKS_W_OFFCPU, NULL, 0, NULL), got;
	struct acc a;
	int ret = 0;

	acc_init(&a, st, out, 0);
	w = malloc((n ? n : 1) * sizeof(*w));
	if (!w)
		return -ENOMEM;
	got = stacks_weights_get(sk, STACKS_W_OFFCPU, w, n, NULL);
	if (got > n)
		got = n;	/* grew meanwhile: the older copy is whole */
	if (q->pid > 0 || q->task_ok) {
		size_t k = 0;

		for (size_t i = 0; i < got; i++)
			if ((q->pid <= 0 || w[i].pid == q->pid) &&
			    (!q->task_ok || q->task_ok(q->task_ctx, w[i].pid)))
				w[k++] = w[i];
		got = k;
	}
	if (per_pid) {
		out->v = w;
		out->n = got;
		for (size_t i = 0; i < got; i++) {
			out->count += w[i].count;
			out->value += w[i].value;
		}
		qsort(out->v, out->n, sizeof(*out->v), value_cmp);
		return 0;
	}
	for (size_t i = 0; !ret && i < got; i++)
		ret = acc_add(&a, w[i].stack, -1, w[i].count, w[i].value);
	free(w);
	ret = acc_done(&a, ret);
	if (!ret && out->n)
		qsort(out->v, out->n, sizeof(*out->v), value_cmp);
	return ret;
}

struct fg_todo {
	uint32_t	id;
	uint32_t	depth;		/* calls above it */
};

/* Push the children of @id, at @depth, on the walk's stack. Return: 0 or -ENOMEM. */
static int fg_push(struct fgraph *g, uint32_t id, uint32_t depth, struct fg_todo **todo,
		   size_t *n, size_t *cap)
{
	for (uint32_t c = fgraph_first_child(g, FGRAPH_AGG, id); c != FGRAPH_NONE;
	     c = fgraph_next_sibling(g, FGRAPH_AGG, c)) {
		if (array_grow((void **)todo, cap, *n + 1, sizeof(**todo)))
			return -ENOMEM;
		(*todo)[(*n)++] = (struct fg_todo){ c, depth };
	}
	return 0;
}

int stack_set_from_fgraph(struct store *st, struct fgraph *g, uint32_t func, bool ns,
			  struct stack_set *out)
{
	uint64_t path[STACK_MAX_FRAMES], leaf_first[STACK_MAX_FRAMES];
	struct fg_todo *todo = NULL;
	size_t n = 0, cap = 0;
	struct fgraph_info fi;
	struct acc a;
	int ret;

	acc_init(&a, st, out, 0);
	/*
	 * Depth first over the aggregated view, children pushed together:
	 * a popped node's subtree is done before its siblings, so path[0..d)
	 * holds its calls above. Context nodes (tasks, interrupts) start paths.
	 */
	/* fgraph_node() brings the aggregated view up to date; the walk then reads it */
	if (fgraph_node(g, FGRAPH_AGG, FGRAPH_ROOT, &fi))
		return acc_done(&a, 0);
	ret = fg_push(g, FGRAPH_ROOT, 0, &todo, &n, &cap);
	while (!ret && n) {
		struct fg_todo x = todo[--n];
		unsigned int d = x.depth;
		uint32_t sid;

		if (fgraph_node(g, FGRAPH_AGG, x.id, &fi) || fi.kind == FGRAPH_K_GAP)
			continue;
		if (fi.kind == FGRAPH_K_CALL) {
			if (d >= STACK_MAX_FRAMES)
				continue;
			path[d] = fi.func;
			for (unsigned int i = 0; i <= d; i++)
				leaf_first[i] = path[d - i];
			if ((!func || fi.func == func) && (ns ? fi.self : fi.count)) {
				sid = stacks_intern(store_stacks(st), leaf_first, d + 1, NULL, 0, 0,
						    STACK_F_NAMES, NULL);
				if (sid)
					ret = acc_add(&a, sid, fi.pid, fi.count,
						      ns ? fi.self : fi.count);
			}
			d++;
		} else {
			d = 0;
		}
		if (!ret)
			ret = fg_push(g, x.id, d, &todo, &n, &cap);
	}
	free(todo);
	return acc_done(&a, ret);
}

/* The shown frames of each entry of a set, for stack_set_merge(). */
struct mseq {
	uint32_t	off, len;	/* names[off .. off + len) */
	uint32_t	w;		/* index into the set */
	int32_t		pid;		/* the key's pid; 0 when not by pid */
};

static const uint32_t *merge_names;

static int mseq_cmp(const void *x, const void *y)
{
	const struct mseq *a = x, *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	for (uint32_t i = 0; i < a->len; i++)
		if (merge_names[a->off + i] != merge_names[b->off + i])
			return merge_names[a->off + i] < merge_names[b->off + i] ? -1 : 1;
	return a->w < b->w ? -1 : a->w > b->w;
}

static bool mseq_same(const uint32_t *names, const struct mseq *a, const struct mseq *b)
{
	return a->pid == b->pid && a->len == b->len &&
	       !memcmp(names + a->off, names + b->off, a->len * sizeof(*names));
}

int stack_set_merge(struct store *st, struct stack_set *set, bool by_pid, bool by_value)
{
	uint32_t buf[2 * STACK_MAX_FRAMES + 2], *names = NULL;
	struct stack_weight *v;
	struct mseq *seq;
	size_t len = 0, cap = 0, n = 0;

	if (set->n < 2)
		return 0;
	seq = malloc(set->n * sizeof(*seq));
	v = malloc(set->n * sizeof(*v));
	if (!seq || !v)
		goto nomem;
	for (size_t i = 0; i < set->n; i++) {
		int k = stacks_shown_names(store_stacks(st), set->v[i].stack, buf,
					   sizeof(buf) / sizeof(buf[0]), NULL);

		if (k < 0)
			k = 0;
		if (k > (int)(sizeof(buf) / sizeof(buf[0])))
			k = (int)(sizeof(buf) / sizeof(buf[0]));
		if (array_grow((void **)&names, &cap, len + (size_t)k + 1, sizeof(*names)))
			goto nomem;
		memcpy(names + len, buf, (size_t)k * sizeof(*buf));
		seq[i] = (struct mseq){ (uint32_t)len, (uint32_t)k, (uint32_t)i,
					by_pid ? set->v[i].pid : 0 };
		len += (size_t)k;
	}
	merge_names = names;
	qsort(seq, set->n, sizeof(*seq), mseq_cmp);
	for (size_t i = 0; i < set->n; i++) {
		const struct stack_weight *w = &set->v[seq[i].w];

		if (!i || !mseq_same(names, &seq[i - 1], &seq[i])) {
			v[n++] = *w;
			continue;
		}
		/* the same frames: one entry, named by the first (a sorted set's heaviest) */
		if (v[n - 1].pid != w->pid)
			v[n - 1].pid = -1;
		v[n - 1].count += w->count;
		v[n - 1].value += w->value;
	}
	merge_names = NULL;
	free(names);
	free(seq);
	free(set->v);
	set->v = v;
	set->n = n;
	qsort(v, n, sizeof(*v), by_value ? value_cmp : weight_cmp);
	return 0;

nomem:
	free(names);
	free(seq);
	free(v);
	return -ENOMEM;
}

void stack_set_free(struct stack_set *s)
{
	if (!s)
		return;
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* ---- trees -------------------------------------------------------------------- */

struct stack_tree {
	struct store		*st;
	struct stack_node	*nodes;
	uint32_t		nnodes, cap;
	struct stack_weight	*stacks;	/* the set's, in tree order */
	uint32_t		nstacks;
};

struct tseq {
	uint32_t	off, len;	/* names[off .. off + len), in tree order */
	uint32_t	w;		/* index into the set */
	uint32_t	skip;		/* leaf frames not shown: name k is frame skip + k */
};

/* qsort has no context argument: the names of the sort in progress. */
static __thread const uint32_t *sort_names;

static int tseq_cmp(const void *x, const void *y)
{
	const struct tseq *a = x, *b = y;
	uint32_t n = a->len < b->len ? a->len : b->len;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t p = sort_names[a->off + i], q = sort_names[b->off + i];

		if (p != q)
			return p < q ? -1 : 1;
	}
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return a->w < b->w ? -1 : a->w > b->w;
}

static uint32_t tree_node_new(struct stack_tree *t, uint32_t parent, uint32_t name,
			      uint16_t depth, uint32_t lo)
{
	struct stack_node *n;

	if (t->nnodes == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 1024;

		n = realloc(t->nodes, cap * sizeof(*n));
		if (!n)
			return STACK_TREE_NONE;
		t->nodes = n;
		t->cap = cap;
	}
	n = &t->nodes[t->nnodes];
	memset(n, 0, sizeof(*n));
	n->parent = parent;
	n->first_child = n->next_sibling = STACK_TREE_NONE;
	n->name = name;
	n->depth = depth;
	n->lo = n->hi = lo;
	return t->nnodes++;
}

/* qsort of children: by value, then count, descending; then name, node id. */
static __thread const struct stack_node *sort_nodes;

static int child_cmp(const void *x, const void *y)
{
	const struct stack_node *a = &sort_nodes[*(const uint32_t *)x];
	const struct stack_node *b = &sort_nodes[*(const uint32_t *)y];

	if (a->value != b->value)
		return a->value > b->value ? -1 : 1;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if (a->name != b->name)
		return a->name < b->name ? -1 : 1;
	return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

/* Link every node's children, largest first. Return: 0 or -ENOMEM. */
static int tree_link(struct stack_tree *t)
{
	uint32_t *ids = malloc((t->nnodes ? t->nnodes : 1) * sizeof(*ids));
	uint32_t *start = calloc(t->nnodes + 1, sizeof(*start));

	if (!ids || !start) {
		free(ids);
		free(start);
		return -ENOMEM;
	}
	/* children grouped by parent (counting sort), then each group sorted */
	for (uint32_t i = 1; i < t->nnodes; i++)
		start[t->nodes[i].parent + 1]++;
	for (uint32_t i = 0; i < t->nnodes; i++)
		start[i + 1] += start[i];
	for (uint32_t i = 1; i < t->nnodes; i++)
		ids[start[t->nodes[i].parent]++] = i;
	for (uint32_t i = t->nnodes; i > 0; i--)
		start[i] = start[i - 1];
	start[0] = 0;
	sort_nodes = t->nodes;
	for (uint32_t p = 0; p < t->nnodes; p++) {
		uint32_t a = start[p], b = start[p + 1];
		struct stack_node *pn = &t->nodes[p];

		qsort(ids + a, b - a, sizeof(*ids), child_cmp);
		pn->nchildren = b - a;
		pn->first_child = a < b ? ids[a] : STACK_TREE_NONE;
		for (uint32_t k = a; k < b; k++)
			t->nodes[ids[k]].next_sibling = k + 1 < b ? ids[k + 1] : STACK_TREE_NONE;
	}
	sort_nodes = NULL;
	free(ids);
	free(start);
	return 0;
}

/* The frame names of every stack of @set, in tree order. Return: 0 or -ENOMEM. */
static int tree_names(struct stacks *sk, const struct stack_set *set, enum stack_tree_dir dir,
		      struct tseq *seq, uint32_t **names_out)
{
	uint32_t buf[2 * STACK_MAX_FRAMES + 2], *names = NULL;
	size_t len = 0, cap = 0;

	for (size_t i = 0; i < set->n; i++) {
		unsigned int skip;
		int n = stacks_shown_names(sk, set->v[i].stack, buf, sizeof(buf) / sizeof(buf[0]),
					   &skip);

		if (n < 0)
			n = 0;
		if (len + (size_t)n > cap) {
			size_t nc = cap ? cap * 2 : 4096;
			uint32_t *p;

			while (nc < len + (size_t)n)
				nc *= 2;
			p = realloc(names, nc * sizeof(*p));
			if (!p) {
				free(names);
				return -ENOMEM;
			}
			names = p;
			cap = nc;
		}
		seq[i] = (struct tseq){ (uint32_t)len, (uint32_t)n, (uint32_t)i, skip };
		for (int k = 0; k < n; k++)
			names[len + k] = dir == STACK_TREE_CALLERS ? buf[k] : buf[n - 1 - k];
		len += n;
	}
	*names_out = names;
	return 0;
}

/* The kind and module of a new node: from the frame of its first stack (named already). */
static void tree_frame(struct stacks *sk, struct stack_node *nd, const struct stack_info *si,
		       const struct tseq *s, enum stack_tree_dir dir)
{
	uint32_t i = s->skip + (dir == STACK_TREE_CALLERS ? nd->depth - 1u : s->len - nd->depth);
	uint32_t name;

	if (si->flags & STACK_F_NAMES) {
		nd->kind = STACK_FRAME_NAME;
		return;
	}
	nd->kind = i < si->nkern ? STACK_FRAME_KERNEL : STACK_FRAME_USER;
	stacks_peek_name(sk, si->id, i, &name, &nd->module);
}

struct stack_tree *stack_tree_build(struct store *st, const struct stack_set *set,
				    enum stack_tree_dir dir)
{
	struct stacks *sk = store_stacks(st);
	uint32_t path[2 * STACK_MAX_FRAMES + 2], *names = NULL;
	struct tseq *seq;
	struct stack_tree *t;
	const struct tseq *prev = NULL;

	t = calloc(1, sizeof(*t));
	seq = malloc((set->n ? set->n : 1) * sizeof(*seq));
	if (!t || !seq)
		goto out_free;
	t->st = st;
	if (tree_names(sk, set, dir, seq, &names))
		goto out_free;
	sort_names = names;
	if (set->n)
		qsort(seq, set->n, sizeof(*seq), tseq_cmp);
	sort_names = NULL;
	t->stacks = malloc((set->n ? set->n : 1) * sizeof(*t->stacks));
	if (!t->stacks)
		goto out_free;
	t->nstacks = (uint32_t)set->n;
	path[0] = tree_node_new(t, STACK_TREE_NONE, 0, 0, 0);
	if (path[0] == STACK_TREE_NONE)
		goto out_free;
	for (uint32_t k = 0; k < set->n; k++) {
		const struct tseq *s = &seq[k];
		const struct stack_weight *w = &set->v[s->w];
		uint32_t common = 0, len = s->len;
		struct stack_info si = { 0 };

		t->stacks[k] = *w;
		stacks_get(sk, w->stack, &si);
		if (len > sizeof(path) / sizeof(path[0]) - 1)
			len = sizeof(path) / sizeof(path[0]) - 1;
		while (prev && common < len && common < prev->len &&
		       names[prev->off + common] == names[s->off + common])
			common++;
		for (uint32_t d = common; d < len; d++) {
			uint32_t id = tree_node_new(t, path[d], names[s->off + d], (uint16_t)(d + 1),
						    k);

			if (id == STACK_TREE_NONE)
				goto out_free;
			tree_frame(sk, &t->nodes[id], &si, s, dir);
			path[d + 1] = id;
		}
		for (uint32_t d = 0; d <= len; d++) {
			struct stack_node *nd = &t->nodes[path[d]];

			nd->count += w->count;
			nd->value += w->value;
			nd->hi = k + 1;
		}
		t->nodes[path[len]].self_count += w->count;
		t->nodes[path[len]].self_value += w->value;
		prev = s;
	}
	if (tree_link(t))
		goto out_free;
	free(names);
	free(seq);
	return t;

out_free:
	free(names);
	free(seq);
	stack_tree_free(t);
	return NULL;
}

void stack_tree_free(struct stack_tree *t)
{
	if (!t)
		return;
	free(t->nodes);
	free(t->stacks);
	free(t);
}

uint32_t stack_tree_size(const struct stack_tree *t)
{
	return t ? t->nnodes : 0;
}

const struct stack_node *stack_tree_node(const struct stack_tree *t, uint32_t id)
{
	return t && id < t->nnodes ? &t->nodes[id] : NULL;
}

const char *stack_tree_name(const struct stack_tree *t, uint32_t id)
{
	if (!t || id >= t->nnodes)
		return NULL;
	if (!id)
		return "all";
	return intern_str(store_strings(t->st), t->nodes[id].name);
}

const char *stack_tree_module(const struct stack_tree *t, uint32_t id)
{
	if (!t || id >= t->nnodes || !t->nodes[id].module)
		return "";
	return intern_str(store_strings(t->st), t->nodes[id].module);
}

const struct stack_weight *stack_tree_stacks(const struct stack_tree *t, uint32_t *n)
{
	*n = t ? t->nstacks : 0;
	return t ? t->stacks : NULL;
}

uint32_t stack_tree_child(const struct stack_tree *t, uint32_t id, uint32_t name)
{
	const struct stack_node *n = stack_tree_node(t, id);

	for (uint32_t c = n ? n->first_child : STACK_TREE_NONE; c != STACK_TREE_NONE;
	     c = t->nodes[c].next_sibling)
		if (t->nodes[c].name == name)
			return c;
	return STACK_TREE_NONE;
}

struct under {
	const uint8_t	*bits;
	uint32_t	nbits;
	stack_event_fn	fn;
	void		*ctx;
	long		n;
};

static int under_event(void *ctx, const struct ktop_event *ev, uint64_t seq)
{
	struct under *u = ctx;

	if (!ev->stack || ev->stack >= u->nbits || !(u->bits[ev->stack / 8] & (1u << (ev->stack % 8))))
		return 0;
	u->n++;
	return u->fn(u->ctx, ev, seq);
}

long stack_tree_events(struct store *st, const struct stack_query *q, const struct stack_tree *t,
		       uint32_t node, stack_event_fn fn, void *ctx)
{
	const struct stack_node *nd = stack_tree_node(t, node);
	struct under u = { .fn = fn, .ctx = ctx };
	uint8_t *bits;
	int ret;

	if (!nd)
		return 0;
	u.nbits = stacks_count(store_stacks(st)) + 1;
	bits = calloc(u.nbits / 8 + 1, 1);
	if (!bits)
		return -ENOMEM;
	for (uint32_t i = nd->lo; i < nd->hi; i++)
		if (t->stacks[i].stack < u.nbits)
			bits[t->stacks[i].stack / 8] |= 1u << (t->stacks[i].stack % 8);
	u.bits = bits;
	ret = query_walk(st, q, under_event, &u);
	free(bits);
	return ret < 0 ? ret : u.n;
}
