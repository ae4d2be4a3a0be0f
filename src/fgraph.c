// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The function_graph call-tree model: see fgraph.h.
 *
 * Timeline nodes live in one array indexed by id, linked first-child /
 * next-sibling, so a node never moves and skipping a folded subtree is one
 * link. Each context (a task, or a CPU's interrupt context) keeps the stack
 * of its open frames with their kernel depths; a record is matched against
 * that stack by depth and function, which is how irregular input (missing
 * entries or exits, lost events) is detected and marked.
 *
 * Aggregated nodes are keyed by (parent, function, kind) in a hash. Feeding
 * does not touch them: when the aggregated view is read, the calls created
 * since the last read get their path's node and the calls closed since add
 * their durations. When a late exit adopts calls seen before it (a trace
 * that started mid-call, or lost events), their paths change: the
 * aggregated figures are then rebuilt from the timeline at the next read.
 *
 * Lost events: a gap node goes where they happened, and the frames open
 * across it are "suspended": new calls do not go under them (they become
 * orphans of the context, flagged PARENT_MISSING) until one of them exits
 * with a calltime that proves it is the same call; then it adopts the
 * orphans that ran inside it.
 *
 * A depth jump is read as lost records too, except one the kernel makes
 * itself: since 6.11 an interrupt taken in the return path of a call that
 * has just returned is recorded one level deeper (see entry_skew).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fgraph.h"
#include "hashmap.h"
#include "store.h"

#define NONE	FGRAPH_NONE
#define F_INCOMPLETE	(FGRAPH_F_ENTRY_MISSING | FGRAPH_F_EXIT_MISSING | FGRAPH_F_OPEN | \
			 FGRAPH_F_HAS_GAP)

struct fg_node {
	uint64_t	start;
	uint64_t	dur;
	uint64_t	child_time;	/* sum of the children's durations */
	uint32_t	parent, first, last, next, prev;
	uint32_t	func;		/* CALL: sym; TASK: pid; IRQ: cpu; GAP: lost (saturated) */
	uint32_t	nchild;
	uint16_t	cpu;
	uint16_t	depth;
	uint16_t	flags;
	uint16_t	overflow;	/* saturated; fgraph_stats.overflow is exact */
	uint8_t		kind;
	uint8_t		skew;		/* open frame: how much deeper than a child an
					 * interrupt may nest now (see entry_skew) */
};	/* 64 bytes: one cache line per call */
_Static_assert(sizeof(struct fg_node) == 64, "one cache line per call");

struct fg_agg {
	uint64_t	count;		/* complete calls (GAP: events lost) */
	uint64_t	incomplete;	/* calls with a missing entry/exit or a gap inside */
	uint64_t	total, self, min, max;
	uint32_t	parent, first, last, next, prev;
	uint32_t	func;
	uint32_t	refs;		/* timeline nodes mapped here */
	uint32_t	hnext;		/* hash chain */
	int32_t		pid;
	uint16_t	cpu;
	uint16_t	flags;
	uint8_t		kind;
};

struct fg_ctx {
	uint32_t	node;		/* the context node */
	uint32_t	*stack;		/* open frames, outermost first */
	uint32_t	top, cap;
	uint32_t	susp;		/* frames [0, susp) span lost events: not trusted */
	uint32_t	barrier;	/* first node id after the last gap */
	int32_t		pid;
	int		last_cpu;
	uint64_t	last_ts;
	bool		seen;
};

struct fg_lost {
	uint64_t	from, to;	/* records lost in (from, to) */
	uint64_t	count;
	bool		lead;		/* before anything of its CPU: its trace starts here */
};

struct fg_cpu {
	struct fg_ctx	*irq;
	struct fg_ctx	*idle;
	struct fg_ctx	*cur;		/* the task last seen here */
	struct fg_lost	*lost;
	size_t		nlost, caplost;
	uint64_t	last_ts;	/* of the last record fed for this CPU */
};

struct fgraph {
	struct fgraph_config	cfg;
	struct fg_node		*n;
	uint32_t		nn, capn;
	struct fg_agg		*a;
	uint32_t		na, capa;
	uint32_t		*ahash;
	uint32_t		ahmask;
	bool			agg_dirty;	/* paths changed: rebuild from scratch */
	uint32_t		agg_nn;		/* timeline ids below this are mapped */
	uint32_t		*amap;		/* timeline id -> aggregated id */
	uint32_t		capamap;
	uint32_t		*pending;	/* calls closed since the last agg_sync */
	uint32_t		npending, cappending;
	uint64_t		last_lost_ts;	/* of any CPU */
	/*
	 * Whether an exit's calltime is on the clock of the records' time
	 * stamps: it is trace_clock_local, the same as the ring buffer's only
	 * with the "local" trace_clock. Learnt from matched calls unless set.
	 */
	bool			same_clock;
	uint32_t		clock_agree, clock_disagree;

	struct hmap		tasks;		/* pid -> struct fg_ctx * (not the idle tasks) */
	struct fg_cpu		*cpus;
	unsigned int		ncpus;
	unsigned int		cpu_width;	/* digits of the highest CPU seen */
	unsigned int		cpu_p10;

	struct fgraph_stats	st;

	/* search cache: per sym, 0 unknown, 1 match, 2 no match */
	char			*needle;
	uint8_t			*match;
	uint32_t		nmatch;

	uint32_t		*scratch;	/* fgraph_rows sorted mode */
	size_t			nscratch;
	char			namebuf[96];
};

/* ---- small helpers ------------------------------------------------------ */

static int grow(void **p, uint32_t *cap, uint32_t need, size_t size)
{
	uint64_t ncap = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	if (ncap > UINT32_MAX - 1)
		ncap = UINT32_MAX - 1;
	q = realloc(*p, ncap * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = (uint32_t)ncap;
	return 0;
}

static const char *sym_name(struct fgraph *g, uint32_t sym, char *buf, size_t len)
{
	const char *s = g->cfg.name ? g->cfg.name(g->cfg.name_ctx, sym) : NULL;

	if (s && *s)
		return s;
	snprintf(buf, len, "sym#%u", sym);
	return buf;
}

static unsigned int ev_ctxflags(uint8_t kf)
{
	unsigned int f = 0;

	if (kf & KTOP_KF_HARDIRQ)
		f |= FGRAPH_F_HARDIRQ;
	if (kf & KTOP_KF_SOFTIRQ)
		f |= FGRAPH_F_SOFTIRQ;
	if (kf & KTOP_KF_NMI)
		f |= FGRAPH_F_NMI;
	return f;
}

/* ---- timeline nodes ------------------------------------------------------ */

static uint32_t node_new(struct fgraph *g, enum fgraph_kind kind, uint32_t parent)
{
	struct fg_node *x;
	uint32_t id;

	if (g->nn >= g->cfg.max_nodes && kind != FGRAPH_K_ROOT)
		return NONE;
	if (grow((void **)&g->n, &g->capn, g->nn + 1, sizeof(*g->n)))
		return NONE;
	id = g->nn++;
	x = &g->n[id];
	memset(x, 0, sizeof(*x));
	x->kind = kind;
	x->parent = parent;
	x->first = x->last = x->next = x->prev = NONE;
	if (parent != NONE) {
		struct fg_node *p = &g->n[parent];

		x->prev = p->last;
		if (p->last != NONE)
			g->n[p->last].next = id;
		else
			p->first = id;
		p->last = id;
		p->nchild++;
	}
	return id;
}

static void node_unlink(struct fgraph *g, uint32_t id)
{
	struct fg_node *x = &g->n[id], *p = &g->n[x->parent];

	if (x->prev != NONE)
		g->n[x->prev].next = x->next;
	else
		p->first = x->next;
	if (x->next != NONE)
		g->n[x->next].prev = x->prev;
	else
		p->last = x->prev;
	x->next = x->prev = NONE;
	p->nchild--;
}

/* Move the run of siblings [first .. parent's last] under @np, in order. */
static void node_adopt(struct fgraph *g, uint32_t np, uint32_t first)
{
	uint32_t id = first, nx;

	while (id != NONE) {
		nx = g->n[id].next;
		node_unlink(g, id);
		g->n[id].parent = np;
		g->n[id].prev = g->n[np].last;
		if (g->n[np].last != NONE)
			g->n[g->n[np].last].next = id;
		else
			g->n[np].first = id;
		g->n[np].last = id;
		g->n[np].nchild++;
		id = nx;
	}
}

/* ---- aggregated nodes ---------------------------------------------------- */

static uint32_t agg_hash(uint32_t parent, uint32_t func, unsigned int kind, unsigned int cpu)
{
	uint64_t h = ((uint64_t)parent << 32 | func) * 0x9e3779b97f4a7c15ull;

	h ^= (uint64_t)(kind << 16 | cpu) * 0xc2b2ae3d27d4eb4full;
	return (uint32_t)(h >> 32);
}

static int agg_rehash(struct fgraph *g)
{
	uint32_t nsize = (g->ahmask + 1) * 2, i;
	uint32_t *nh;

	if (!g->ahash)
		nsize = 1024;
	nh = malloc(nsize * sizeof(*nh));
	if (!nh)
		return -ENOMEM;
	for (i = 0; i < nsize; i++)
		nh[i] = NONE;
	free(g->ahash);
	g->ahash = nh;
	g->ahmask = nsize - 1;
	for (i = 0; i < g->na; i++) {
		struct fg_agg *a = &g->a[i];
		uint32_t b;

		if (i == FGRAPH_ROOT)
			continue;
		b = agg_hash(a->parent, a->func, a->kind, a->cpu) & g->ahmask;
		a->hnext = nh[b];
		nh[b] = i;
	}
	return 0;
}

static uint32_t agg_get(struct fgraph *g, uint32_t parent, uint32_t func,
			unsigned int kind, unsigned int cpu)
{
	struct fg_agg *a, *p;
	uint32_t b, id;

	if (parent == NONE)
		return NONE;
	b = agg_hash(parent, func, kind, cpu) & g->ahmask;
	for (id = g->ahash[b]; id != NONE; id = g->a[id].hnext) {
		a = &g->a[id];
		if (a->parent == parent && a->func == func && a->kind == kind && a->cpu == cpu)
			return id;
	}
	if (grow((void **)&g->a, &g->capa, g->na + 1, sizeof(*g->a)))
		return NONE;
	id = g->na++;
	a = &g->a[id];
	memset(a, 0, sizeof(*a));
	a->parent = parent;
	a->func = func;
	a->kind = kind;
	a->cpu = cpu;
	a->pid = -1;
	a->min = UINT64_MAX;
	a->first = a->last = a->next = NONE;
	p = &g->a[parent];
	a->prev = p->last;
	if (p->last != NONE)
		g->a[p->last].next = id;
	else
		p->first = id;
	p->last = id;
	a->hnext = g->ahash[b];
	g->ahash[b] = id;
	if (g->na > (g->ahmask + 1) / 2 * 1)
		agg_rehash(g);
	return id;
}

/* The aggregated node for timeline node @id, whose parent is already mapped. */
static uint32_t agg_map(struct fgraph *g, uint32_t id)
{
	struct fg_node *x = &g->n[id];
	uint32_t pa, a;

	if (grow((void **)&g->amap, &g->capamap, id + 1, sizeof(*g->amap)))
		return NONE;
	if (id == FGRAPH_ROOT)
		return g->amap[id] = FGRAPH_ROOT;
	pa = g->amap[x->parent];

	switch (x->kind) {
	case FGRAPH_K_TASK:
		if (g->cfg.agg_merge_tasks)
			a = agg_get(g, FGRAPH_ROOT, 0, FGRAPH_K_TASK, 0);
		else
			a = agg_get(g, FGRAPH_ROOT, x->func, FGRAPH_K_TASK, x->func ? 0 : x->cpu);
		break;
	case FGRAPH_K_IRQ:
		a = agg_get(g, FGRAPH_ROOT, 0, FGRAPH_K_IRQ,
			    g->cfg.agg_merge_tasks ? 0 : x->cpu);
		break;
	case FGRAPH_K_GAP:
		a = agg_get(g, pa, 0, FGRAPH_K_GAP, 0);
		break;
	default:
		a = agg_get(g, pa, x->func, FGRAPH_K_CALL, 0);
		break;
	}
	if (a != NONE) {
		struct fg_agg *ag = &g->a[a];

		ag->refs++;
		if (x->kind == FGRAPH_K_TASK && !g->cfg.agg_merge_tasks)
			ag->pid = (int32_t)x->func;
		if (x->kind == FGRAPH_K_GAP)
			ag->count += x->func;
	}
	g->amap[id] = a;
	return a;
}

/* Add a closed call's figures to its aggregated node. */
static void agg_close(struct fgraph *g, uint32_t id)
{
	struct fg_node *x = &g->n[id];
	struct fg_agg *a;
	uint64_t self;

	if (id >= g->capamap || g->amap[id] == NONE)
		return;
	a = &g->a[g->amap[id]];
	a->flags |= x->flags & (F_INCOMPLETE | FGRAPH_F_DEPTH_OVERFLOW);
	if (x->flags & F_INCOMPLETE) {
		a->incomplete++;
		return;
	}
	self = x->dur > x->child_time ? x->dur - x->child_time : 0;
	a->count++;
	a->total += x->dur;
	a->self += self;
	if (x->dur < a->min)
		a->min = x->dur;
	if (x->dur > a->max)
		a->max = x->dur;
}

static void agg_rebuild(struct fgraph *g)
{
	uint32_t i;

	for (i = 0; i < g->na; i++) {
		struct fg_agg *a = &g->a[i];

		a->count = a->incomplete = a->total = a->self = a->max = 0;
		a->min = UINT64_MAX;
		a->refs = i == FGRAPH_ROOT;
		a->flags = 0;
	}
	/* pre-order: a parent is always mapped before its children */
	agg_map(g, FGRAPH_ROOT);
	i = g->n[FGRAPH_ROOT].first;
	while (i != NONE) {
		struct fg_node *x = &g->n[i];

		agg_map(g, i);
		if (x->kind == FGRAPH_K_CALL && !(x->flags & FGRAPH_F_OPEN))
			agg_close(g, i);
		else if (x->kind == FGRAPH_K_CALL && g->amap[i] != NONE)
			g->a[g->amap[i]].flags |= FGRAPH_F_OPEN;
		if (x->first != NONE) {
			i = x->first;
			continue;
		}
		while (i != NONE && g->n[i].next == NONE)
			i = g->n[i].parent == FGRAPH_ROOT ? NONE : g->n[i].parent;
		if (i != NONE)
			i = g->n[i].next;
	}
	g->agg_dirty = false;
	g->agg_nn = g->nn;
	g->npending = 0;
}

/*
 * Bring the aggregated view up to date. Feeding does not touch it: calls
 * are mapped to their paths here, in id order (a parent's id is lower than
 * its children's unless an adoption happened, which asks for a rebuild).
 */
static void agg_sync(struct fgraph *g)
{
	uint32_t i;

	if (g->agg_dirty) {
		agg_rebuild(g);
		return;
	}
	for (i = g->agg_nn; i < g->nn; i++)
		agg_map(g, i);
	g->agg_nn = g->nn;
	for (i = 0; i < g->npending; i++)
		agg_close(g, g->pending[i]);
	g->npending = 0;
}

/* A call closed: its figures go to the aggregated view at the next agg_sync. */
static void agg_pending(struct fgraph *g, uint32_t id)
{
	if (g->agg_dirty)
		return;
	if (grow((void **)&g->pending, &g->cappending, g->npending + 1, sizeof(*g->pending))) {
		g->agg_dirty = true;	/* cannot queue: recompute everything later */
		return;
	}
	g->pending[g->npending++] = id;
}

/* ---- contexts ------------------------------------------------------------ */

static struct fg_cpu *cpu_get(struct fgraph *g, unsigned int cpu)
{
	if (cpu < g->ncpus)
		return &g->cpus[cpu];
	{
		unsigned int n = cpu + 1 > 2 * g->ncpus ? cpu + 1 : 2 * g->ncpus;
		struct fg_cpu *c = realloc(g->cpus, n * sizeof(*c));

		if (!c)
			return NULL;
		memset(c + g->ncpus, 0, (n - g->ncpus) * sizeof(*c));
		g->cpus = c;
		g->ncpus = n;
	}
	return &g->cpus[cpu];
}

static struct fg_ctx *ctx_new(struct fgraph *g, enum fgraph_kind kind, int32_t pid,
			      unsigned int cpu)
{
	struct fg_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->node = node_new(g, kind, FGRAPH_ROOT);
	if (c->node == NONE) {
		free(c);
		return NULL;
	}
	g->n[c->node].func = kind == FGRAPH_K_TASK ? (uint32_t)pid : cpu;
	g->n[c->node].cpu = cpu;
	c->pid = pid;
	c->last_cpu = cpu;
	return c;
}

static void ctx_free(struct fg_ctx *c)
{
	if (c) {
		free(c->stack);
		free(c);
	}
}

static struct fg_ctx *task_get(struct fgraph *g, int32_t pid, unsigned int cpu)
{
	struct fg_cpu *pc = cpu_get(g, cpu);
	struct fg_ctx *c;
	uint64_t *slot;
	bool added;

	if (!pc)
		return NULL;
	if (pc->cur && pc->cur->pid == pid && (pid || pc->cur == pc->idle))
		return pc->cur;
	if (pid == 0) {
		if (!pc->idle)
			pc->idle = ctx_new(g, FGRAPH_K_TASK, 0, cpu);
		return pc->idle;
	}
	slot = hmap_put(&g->tasks, (uint32_t)pid, &added);
	if (!slot)
		return NULL;
	if (!added)
		return (struct fg_ctx *)(uintptr_t)*slot;
	c = ctx_new(g, FGRAPH_K_TASK, pid, cpu);
	if (!c) {
		hmap_del(&g->tasks, (uint32_t)pid, NULL);
		return NULL;
	}
	*slot = (uintptr_t)c;
	return c;
}

static struct fg_ctx *irq_get(struct fgraph *g, unsigned int cpu)
{
	struct fg_cpu *pc = cpu_get(g, cpu);

	if (!pc)
		return NULL;
	if (!pc->irq)
		pc->irq = ctx_new(g, FGRAPH_K_IRQ, -1, cpu);
	return pc->irq;
}

static uint32_t ctx_top(const struct fgraph *g, const struct fg_ctx *c)
{
	return c->top ? c->stack[c->top - 1] : NONE;
}

static int ctx_push(struct fg_ctx *c, uint32_t id)
{
	if (grow((void **)&c->stack, &c->cap, c->top + 1, sizeof(*c->stack)))
		return -ENOMEM;
	c->stack[c->top++] = id;
	return 0;
}

/* Close the innermost open frame as "exit missing". */
static void ctx_pop_missing(struct fgraph *g, struct fg_ctx *c)
{
	uint32_t id = c->stack[--c->top];
	struct fg_node *x = &g->n[id];

	if (c->susp > c->top)
		c->susp = c->top;

	x->flags &= ~FGRAPH_F_OPEN;
	x->flags |= FGRAPH_F_EXIT_MISSING;
	g->st.exit_missing++;
	agg_pending(g, id);
}

/* A gap node under the innermost open frame of @c; every open frame spans it. */
static int ctx_gap(struct fgraph *g, struct fg_ctx *c, uint64_t ts, uint64_t count)
{
	uint32_t top = ctx_top(g, c), id, i;

	id = node_new(g, FGRAPH_K_GAP, top != NONE ? top : c->node);
	if (id != NONE) {
		g->n[id].start = ts;
		g->n[id].func = count > UINT32_MAX ? UINT32_MAX : (uint32_t)count;
		g->n[id].flags = FGRAPH_F_HAS_GAP;
		g->n[id].depth = top != NONE ? g->n[top].depth + 1 : 0;
	} else {
		g->st.dropped++;	/* no room for the marker: the frames still know */
	}
	for (i = 0; i < c->top; i++) {
		g->n[c->stack[i]].flags |= FGRAPH_F_HAS_GAP;
		g->n[c->stack[i]].skew = 0;
	}
	/*
	 * Who the open frames are after the gap is unknown until one of them
	 * exits with a matching calltime: new calls do not go under them.
	 */
	c->susp = c->top;
	c->barrier = g->nn;
	g->st.gaps++;
	return 0;
}

/*
 * Losses on @cpu whose window overlaps (after, upto): the first one's end and
 * the sum. A loss before anything of its CPU (an overwritten buffer read
 * after the fact: each CPU's oldest pages are gone, and the CPUs' records
 * start at different times) counts only once it has ended, at @upto or
 * before: that CPU's trace starts there, and a context seen elsewhere
 * before it gets its gap where it starts, once, not at each of its records
 * before (every one of which would otherwise overlap it).
 */
static bool cpu_lost_between(struct fgraph *g, unsigned int cpu, uint64_t after, uint64_t upto,
			     uint64_t *first, uint64_t *sum)
{
	struct fg_cpu *pc;
	size_t lo, hi;
	bool any = false;

	if (cpu >= g->ncpus)
		return false;
	pc = &g->cpus[cpu];
	if (!pc->nlost || pc->lost[pc->nlost - 1].to <= after)
		return false;
	lo = 0;
	hi = pc->nlost;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (pc->lost[mid].to <= after)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < pc->nlost && pc->lost[lo].from < upto; lo++) {
		if (pc->lost[lo].lead && pc->lost[lo].to > upto)
			continue;
		if (!any || pc->lost[lo].to < *first)
			*first = pc->lost[lo].to;
		*sum += pc->lost[lo].count;
		any = true;
	}
	return any;
}

/* Common flags of a record written in interrupt context or with interrupts off. */
#define KF_IRQ_OR_OFF	(KTOP_KF_IRQS_OFF | KTOP_KF_HARDIRQ | KTOP_KF_SOFTIRQ | KTOP_KF_NMI)

/*
 * Where the entry @ev goes relative to the open frame @x: 0 when it is a
 * child (one level deeper), k > 0 when it is an interrupt taken in the
 * return path of a child of @x that has just returned, -1 when it does not
 * fit (records were lost).
 *
 * Since the shadow-stack rework of fgraph (6.11; seen on 6.12-rt), the
 * return handler decrements the task's depth only after the return
 * callbacks ran, and the graph tracer writes the exit record with
 * interrupts off, enabling them right after: an interrupt pending
 * meanwhile comes in with the returned child's level still counted, so its
 * calls are recorded one level deeper than children of @x (k = 1; k = 2
 * for one taken in the return path of such an interrupt's call). The
 * window is x->skew: feed_exit() opens it when a child of @x returns, the
 * next child of @x closes it. The first record of an interrupt has
 * interrupts off or an interrupt context flag; a task's call found too
 * deep after lost records usually has neither, and still makes a gap.
 */
static int entry_skew(const struct fg_node *x, const struct ktop_event *ev)
{
	unsigned int depth = (unsigned int)ev->args[1];

	if (depth == x->depth + 1u)
		return 0;
	if (depth > x->depth + 1u && depth - x->depth - 1u <= x->skew &&
	    (ev->flags & KF_IRQ_OR_OFF))
		return (int)(depth - x->depth - 1u);
	return -1;
}

/*
 * Is the next record of @c what its stack expects? An entry one level below
 * the innermost open frame (or an interrupt in its return path: see
 * entry_skew), or the exit of that frame (entered after the exit's
 * calltime: an older instance of the same function does not count).
 */
static bool ctx_consistent(struct fgraph *g, struct fg_ctx *c, const struct ktop_event *ev)
{
	uint32_t top = ctx_top(g, c);
	unsigned int depth = (unsigned int)ev->args[1];
	const struct fg_node *x;

	if (top == NONE)
		return ev->type == KTOP_T_FGRAPH_ENTRY;
	x = &g->n[top];
	if (ev->type == KTOP_T_FGRAPH_ENTRY)
		return entry_skew(x, ev) >= 0;
	if (x->depth != depth || x->func != (uint32_t)ev->args[0])
		return false;
	return !g->same_clock || x->start >= ev->args[2];
}

/*
 * Before @c's record @ev: a gap if events may have been lost while it ran.
 * Losses on the CPUs where it was last seen and is now always count; a loss
 * on another CPU (where it may have run meanwhile) counts when the record
 * does not fit the stack.
 */
static int ctx_check_lost_slow(struct fgraph *g, struct fg_ctx *c, const struct ktop_event *ev)
{
	uint64_t first = 0, sum = 0, ts = ev->ts;
	unsigned int cpu = ev->cpu, i;
	bool any;

	any = cpu_lost_between(g, c->last_cpu, c->last_ts, ts, &first, &sum);
	if ((int)cpu != c->last_cpu)
		any |= cpu_lost_between(g, cpu, c->last_ts, ts, &first, &sum);
	/*
	 * It may have run on a lossy CPU meanwhile. To get there and back it
	 * went through schedule(), so the record that resumes it here is the
	 * exit of a schedule() entered in the lost window: a calltime later
	 * than the open frame's entry gives it away. Without a comparable
	 * calltime nothing does: then any loss it may have run into counts.
	 */
	if (!any && c->pid >= 0 && (!g->same_clock || !ctx_consistent(g, c, ev))) {
		for (i = 0; i < g->ncpus; i++)
			if ((int)i != c->last_cpu && i != cpu)
				any |= cpu_lost_between(g, i, c->last_ts, ts, &first, &sum);
	}
	c->last_ts = ts;
	c->last_cpu = cpu;
	return any ? ctx_gap(g, c, first, sum) : 0;
}

static inline int ctx_check_lost(struct fgraph *g, struct fg_ctx *c, const struct ktop_event *ev)
{
	if (!c->seen || g->last_lost_ts <= c->last_ts) {
		c->seen = true;
		c->last_ts = ev->ts;
		c->last_cpu = ev->cpu;
		return 0;
	}
	return ctx_check_lost_slow(g, c, ev);
}

/* ---- feeding ------------------------------------------------------------- */

/*
 * The parent for a new call at @depth in @c (whose deeper frames were popped;
 * @depth less its entry_skew): the innermost open frame if trusted, else the
 * context node (an orphan, adopted later by the exit that proves its parent).
 */
static uint32_t ctx_parent(struct fgraph *g, struct fg_ctx *c, bool task, unsigned int depth,
			   unsigned int *flags)
{
	uint32_t top = ctx_top(g, c);

	if (top != NONE && c->top > c->susp) {
		if (g->n[top].depth + 1u != depth)
			*flags |= FGRAPH_F_PARENT_MISSING;
		return top;
	}
	if (top != NONE || (task && depth))
		*flags |= FGRAPH_F_PARENT_MISSING;
	return c->node;
}

/*
 * Move under @np the calls at the end of @from's children that are deeper
 * than @depth, started at or after @since and have an id of at least
 * @min_id: the calls seen before their
 * ancestor's exit proved where they belong. Stops at a gap.
 * Return: true when some moved.
 */
static bool adopt_trailing(struct fgraph *g, uint32_t from, uint32_t np, unsigned int depth,
			   uint64_t since, uint32_t min_id)
{
	uint32_t id, first = NONE, k;

	for (id = g->n[from].last; id != NONE; id = g->n[id].prev) {
		struct fg_node *x = &g->n[id];

		if (id == np || x->kind != FGRAPH_K_CALL || x->depth <= depth || x->start < since ||
		    id < min_id)
			break;
		first = id;
	}
	if (first == NONE)
		return false;
	node_adopt(g, np, first);
	for (k = first; k != NONE; k = g->n[k].next)
		g->n[np].child_time += g->n[k].dur;
	g->agg_dirty = true;
	return true;
}

/*
 * The call node of @ev in @c when no open frame of @c is its own: an entry
 * (@fit: its entry_skew under the innermost frame, -1 when it does not fit)
 * or an exit whose entry was not seen (@fit -1). A record that does not fit
 * the trusted open frames means records were lost there: a gap goes first.
 * Then the frames at its depth or deeper are closed as exit missing, and the
 * call goes under its parent (ctx_parent) with @flags.
 * *@idp gets the node; its start time, duration and stack place are left to
 * the caller.
 * Return: 0, or -ENOSPC when max_nodes was reached (counted in dropped).
 */
static int ctx_call_new(struct fgraph *g, struct fg_ctx *c, bool task, const struct ktop_event *ev,
			int fit, unsigned int flags, uint32_t *idp)
{
	unsigned int depth = (unsigned int)ev->args[1];
	uint32_t id, parent;
	int err;

	if (fit < 0 && c->top > c->susp) {
		/* records are missing here: who the open frames are is no longer known */
		g->st.inconsistent++;
		err = ctx_gap(g, c, ev->ts, 0);
		if (err)
			return err;
	}
	while (c->top && g->n[ctx_top(g, c)].depth >= depth)
		ctx_pop_missing(g, c);
	parent = ctx_parent(g, c, task, fit > 0 ? depth - (unsigned int)fit : depth, &flags);
	id = node_new(g, FGRAPH_K_CALL, parent);
	if (id == NONE) {
		g->st.dropped++;
		return -ENOSPC;
	}
	/* a child of the open frame closes its return-path window, an interrupt in it narrows it */
	if (fit >= 0 && parent != c->node)
		g->n[parent].skew = (uint8_t)fit;
	g->n[id].func = (uint32_t)ev->args[0];
	g->n[id].depth = (uint16_t)depth;
	g->n[id].cpu = ev->cpu;
	g->n[id].flags = (uint16_t)flags;
	g->st.calls++;
	if (depth > g->st.max_depth_seen)
		g->st.max_depth_seen = depth;
	*idp = id;
	return 0;
}

static int feed_entry(struct fgraph *g, const struct ktop_event *ev)
{
	unsigned int depth = (unsigned int)ev->args[1], cf = ev_ctxflags(ev->flags);
	struct fg_ctx *task, *irq = NULL, *c;
	unsigned int flags = FGRAPH_F_OPEN | cf;
	uint32_t top, id;
	struct fg_cpu *pc;
	int err;

	g->st.entries++;
	task = task_get(g, ev->pid, ev->cpu);
	if (!task)
		return g->nn >= g->cfg.max_nodes ? -ENOSPC : -ENOMEM;
	pc = &g->cpus[ev->cpu];
	pc->cur = task;
	c = task;
	if (!g->cfg.irq_inline) {
		/* an interrupt in progress on this CPU is on top of whatever runs */
		irq = pc->irq;
		if (irq && irq->top > irq->susp && entry_skew(&g->n[ctx_top(g, irq)], ev) >= 0)
			c = irq;
		else if (cf)
			c = irq_get(g, ev->cpu);
		if (!c)
			return -ENOMEM;
	}
	err = ctx_check_lost(g, c, ev);
	if (err)
		return err;

	if (depth >= g->cfg.max_depth) {
		top = ctx_top(g, c);
		g->st.overflow++;
		if (top != NONE) {
			if (g->n[top].overflow < UINT16_MAX)
				g->n[top].overflow++;
			g->n[top].flags |= FGRAPH_F_DEPTH_OVERFLOW;
		}
		return 0;
	}
	top = ctx_top(g, c);
	err = ctx_call_new(g, c, c == task, ev, top != NONE ? entry_skew(&g->n[top], ev) : 0,
			   flags, &id);
	if (err)
		return err;
	g->n[id].start = ev->ts;
	return ctx_push(c, id);
}

/*
 * Index in @c's stack of the open frame (depth, func) that an exit with
 * @calltime closes, or -1. A frame that spans lost events, or that is not
 * the innermost one, may be an older instance of the same function whose
 * exit was lost: it must have been entered at or after the exit's calltime
 * (the same clock, trace_clock_local, stamps both).
 */
static int ctx_find(struct fgraph *g, struct fg_ctx *c, unsigned int depth, uint32_t func,
		    uint64_t calltime)
{
	int i;

	for (i = (int)c->top - 1; i >= 0; i--) {
		struct fg_node *x = &g->n[c->stack[i]];

		if (x->depth < depth)
			break;
		if (x->depth != depth || x->func != func)
			continue;
		if (i == (int)c->top - 1 && !(x->flags & FGRAPH_F_HAS_GAP))
			return i;
		if (g->same_clock ? x->start >= calltime : !(x->flags & FGRAPH_F_HAS_GAP))
			return i;	/* unverifiable across a gap on another clock: no */
	}
	return -1;
}

/* Learn whether calltime and the time stamps share a clock, from a matched call. */
static void clock_learn(struct fgraph *g, const struct fg_node *x, uint64_t calltime)
{
	if (g->cfg.clock != FGRAPH_CLOCK_AUTO)
		return;
	/* the entry record is written just after calltime is taken */
	if (x->start >= calltime && x->start - calltime < 1000000)
		g->clock_agree++;
	else
		g->clock_disagree++;
	/* an interrupt between calltime and the entry record is a rare outlier */
	g->same_clock = g->clock_agree && g->clock_agree >= 8 * g->clock_disagree;
}

static void node_close(struct fgraph *g, uint32_t id, uint64_t dur)
{
	struct fg_node *x = &g->n[id];

	x->dur = dur;
	x->flags &= ~FGRAPH_F_OPEN;
	if (x->parent != NONE && g->n[x->parent].kind == FGRAPH_K_CALL)
		g->n[x->parent].child_time += dur;
	agg_pending(g, id);
}

static int feed_exit(struct fgraph *g, const struct ktop_event *ev)
{
	unsigned int depth = (unsigned int)ev->args[1], cf = ev_ctxflags(ev->flags);
	uint64_t calltime = ev->args[2], rettime = ev->args[3];
	uint64_t dur = rettime > calltime ? rettime - calltime : 0;
	unsigned int flags = FGRAPH_F_ENTRY_MISSING | cf;
	uint32_t func = (uint32_t)ev->args[0], id, parent;
	struct fg_ctx *task, *irq = NULL, *c = NULL;
	uint32_t top;
	struct fg_cpu *pc;
	int i = -1, err;

	g->st.exits++;
	task = task_get(g, ev->pid, ev->cpu);
	if (!task)
		return g->nn >= g->cfg.max_nodes ? -ENOSPC : -ENOMEM;
	pc = &g->cpus[ev->cpu];
	pc->cur = task;
	if (depth >= g->cfg.max_depth) {
		g->st.overflow++;
		return 0;
	}
	/* losses first: they decide whether the open frames can be trusted */
	if (!g->cfg.irq_inline) {
		irq = pc->irq;
		if (irq && (err = ctx_check_lost(g, irq, ev)))
			return err;
		if (irq && irq->top && (i = ctx_find(g, irq, depth, func, calltime)) >= 0)
			c = irq;
	}
	if (!c) {
		err = ctx_check_lost(g, task, ev);
		if (err)
			return err;
		i = ctx_find(g, task, depth, func, calltime);
		c = task;
		if (i < 0 && cf && !g->cfg.irq_inline)
			c = irq_get(g, ev->cpu);
		if (!c)
			return -ENOMEM;
		if (c != task && c != irq && (err = ctx_check_lost(g, c, ev)))
			return err;
	}

	if (i >= 0 && i < (int)c->top) {
		bool suspended = (uint32_t)i < c->susp, innermost = i == (int)c->top - 1;

		id = c->stack[i];
		if (!innermost)
			g->st.inconsistent++;
		else if (!suspended && g->clock_agree + g->clock_disagree < 256)
			clock_learn(g, &g->n[id], calltime);
		while ((int)c->top - 1 > i)
			ctx_pop_missing(g, c);
		c->top--;
		if (suspended) {
			/*
			 * Proven the same call as before the gap: so are its
			 * ancestors, down to the first frame whose parent was
			 * not known when it was entered.
			 */
			uint32_t k = (uint32_t)i;

			while (k > 0 && g->n[c->stack[k]].parent == c->stack[k - 1])
				k--;
			c->susp = k;
			adopt_trailing(g, c->node, id, depth, g->n[id].start, 0);
		}
		node_close(g, id, dur);
		/*
		 * Until its return handler is done the kernel still counts its
		 * level: an interrupt now nests that much deeper (entry_skew).
		 */
		top = ctx_top(g, c);
		if (innermost && c->top > c->susp && g->n[id].parent == top)
			g->n[top].skew = depth - g->n[top].depth < UINT8_MAX ?
					 (uint8_t)(depth - g->n[top].depth) : UINT8_MAX;
		/* an interrupt cannot outlive the task frame it came in over */
		if (c == task && irq)
			while (irq->top && g->n[ctx_top(g, irq)].depth > depth)
				ctx_pop_missing(g, irq);
		return 0;
	}

	/*
	 * Entry not seen: the trace started inside this call (then no trusted
	 * frame is open), or records were lost.
	 */
	err = ctx_call_new(g, c, c == task, ev, -1, flags, &id);
	if (err)
		return err;
	parent = g->n[id].parent;
	/* its start on the records' clock: the exit's time less the duration */
	g->n[id].start = g->same_clock ? calltime : (ev->ts > dur ? ev->ts - dur : 0);
	/* the calls seen before it that ran inside it */
	node_unlink(g, id);
	{
		uint32_t last;

		/*
		 * Without a comparable calltime, calls from before a gap cannot
		 * be told from its own: they stay where they are.
		 */
		adopt_trailing(g, parent, id, depth, g->same_clock ? calltime : 0,
			       g->same_clock ? 0 : c->barrier);
		/* back into @parent, after what stayed there */
		last = g->n[parent].last;
		g->n[id].parent = parent;
		g->n[id].prev = last;
		g->n[id].next = NONE;
		if (last != NONE)
			g->n[last].next = id;
		else
			g->n[parent].first = id;
		g->n[parent].last = id;
		g->n[parent].nchild++;
	}
	g->st.entry_missing++;
	node_close(g, id, dur);
	return 0;
}

int fgraph_feed(struct fgraph *g, const struct ktop_event *ev)
{
	int ret;

	if (ev->type != KTOP_T_FGRAPH_ENTRY && ev->type != KTOP_T_FGRAPH_EXIT)
		return 0;
	if (!g->st.first_ts)
		g->st.first_ts = ev->ts;
	g->st.last_ts = ev->ts;
	if (ev->cpu < g->ncpus)
		g->cpus[ev->cpu].last_ts = ev->ts;
	while (ev->cpu >= g->cpu_p10 && g->cpu_width < 9) {
		/* the kernel sizes its CPU column for the highest CPU number */
		g->cpu_p10 *= 10;
		g->cpu_width++;
	}
	if (ev->type == KTOP_T_FGRAPH_ENTRY)
		ret = feed_entry(g, ev);
	else
		ret = feed_exit(g, ev);
	return ret;
}

int fgraph_lost(struct fgraph *g, unsigned int cpu, uint64_t ts, uint64_t count)
{
	struct fg_cpu *pc = cpu_get(g, cpu);
	struct fg_lost *l;
	uint32_t cap;
	int err = 0;

	if (!pc)
		return -ENOMEM;
	cap = (uint32_t)pc->caplost;
	if (grow((void **)&pc->lost, &cap, (uint32_t)pc->nlost + 1, sizeof(*pc->lost)))
		return -ENOMEM;
	pc->caplost = cap;
	l = &pc->lost[pc->nlost++];
	l->lead = !pc->last_ts && pc->nlost == 1;
	l->from = pc->last_ts;
	l->to = ts > pc->last_ts ? ts : pc->last_ts + 1;
	l->count = count;
	g->st.lost += count;
	if (l->to > g->last_lost_ts)
		g->last_lost_ts = l->to;
	/* the contexts known to be on @cpu get their gap now; others when next seen */
	if (pc->cur && pc->cur->seen && pc->cur->last_cpu == (int)cpu && pc->cur->last_ts < l->to) {
		err = ctx_gap(g, pc->cur, l->to, count);
		pc->cur->last_ts = l->to;
	}
	if (!err && pc->irq && pc->irq->seen && pc->irq->last_ts < l->to) {
		err = ctx_gap(g, pc->irq, l->to, count);
		pc->irq->last_ts = l->to;
	}
	return err;
}

struct mark_pos {
	struct store_lost	m;
	uint64_t		after;	/* feed it after this seq of its CPU */
	bool			done;
};

static int mark_cmp(const void *a, const void *b)
{
	const struct mark_pos *x = a, *y = b;

	if (x->m.cpu != y->m.cpu)
		return x->m.cpu < y->m.cpu ? -1 : 1;
	return x->after < y->after ? -1 : x->after > y->after;
}

long fgraph_feed_store(struct fgraph *g, const struct store *st, uint64_t t0, uint64_t t1)
{
	unsigned int ncpus = store_ncpus(st), cpu;
	struct mark_pos *mp = NULL;
	struct store_lost *ml = NULL;
	size_t nm, i, *next = NULL;
	struct store_iter *it;
	struct ktop_event ev;
	uint64_t seq;
	long n = 0;
	int err;

	nm = store_lost_marks(st, t0, t1, NULL, 0);
	if (nm) {
		ml = calloc(nm, sizeof(*ml));
		mp = calloc(nm, sizeof(*mp));
		next = calloc(ncpus + 1, sizeof(*next));
		if (!ml || !mp || !next) {
			n = -ENOMEM;
			goto out_free;
		}
		nm = store_lost_marks(st, t0, t1, ml, nm);
		for (i = 0; i < nm; i++) {
			uint64_t s = store_seek(st, ml[i].cpu, ml[i].ts), first, end;

			store_cpu_range(st, ml[i].cpu, &first, &end);
			mp[i].m = ml[i];
			/* UINT64_MAX: nothing of its CPU before it in the store */
			mp[i].after = s > first ? s - 1 : UINT64_MAX;
		}
		qsort(mp, nm, sizeof(*mp), mark_cmp);
		/* losses before anything of their CPU that this call feeds */
		for (i = 0; i < nm; i++) {
			struct store_lost *m = &mp[i].m;
			struct ktop_event pe;

			if (mp[i].after != UINT64_MAX &&
			    !(store_get(st, m->cpu, mp[i].after, &pe) == 0 && pe.ts < t0))
				continue;
			err = fgraph_lost(g, m->cpu, m->ts, m->count);
			if (err) {
				n = err;
				goto out_free;
			}
			mp[i].done = true;
		}
		/* next[cpu]: the first pending mark of that CPU */
		for (cpu = 0; cpu <= ncpus; cpu++)
			next[cpu] = nm;
		for (i = nm; i-- > 0;)
			if (!mp[i].done && mp[i].m.cpu < ncpus)
				next[mp[i].m.cpu] = i;
	}
	it = store_iter_new(st, t0, t1, NULL);
	if (!it) {
		n = -ENOMEM;
		goto out_free;
	}
	while (store_iter_next(it, &ev, &seq)) {
		if (!g->cfg.keep || g->cfg.keep(g->cfg.keep_ctx, &ev)) {
			err = fgraph_feed(g, &ev);
			if (err && err != -ENOSPC) {
				n = err;
				break;
			}
			n++;
		}
		if (!nm || ev.cpu >= ncpus)
			continue;
		for (i = next[ev.cpu]; i < nm && mp[i].m.cpu == ev.cpu && mp[i].after <= seq; i++) {
			if (mp[i].done)
				continue;
			err = fgraph_lost(g, ev.cpu, mp[i].m.ts, mp[i].m.count);
			if (err)
				break;
			mp[i].done = true;
		}
		next[ev.cpu] = i;
	}
	store_iter_free(it);
out_free:
	free(ml);
	free(mp);
	free(next);
	return n;
}

/* ---- life cycle ---------------------------------------------------------- */

static int fgraph_init_roots(struct fgraph *g)
{
	uint32_t i;

	if (node_new(g, FGRAPH_K_ROOT, NONE) != FGRAPH_ROOT)
		return -ENOMEM;
	if (grow((void **)&g->a, &g->capa, 1, sizeof(*g->a)))
		return -ENOMEM;
	memset(&g->a[0], 0, sizeof(g->a[0]));
	g->a[0].parent = g->a[0].first = g->a[0].last = g->a[0].next = g->a[0].prev = NONE;
	g->a[0].kind = FGRAPH_K_ROOT;
	g->a[0].refs = 1;
	g->a[0].pid = -1;
	g->na = 1;
	if (!g->ahash && agg_rehash(g))
		return -ENOMEM;
	for (i = 0; i <= g->ahmask; i++)
		g->ahash[i] = NONE;
	g->cpu_width = 1;
	g->cpu_p10 = 10;
	return 0;
}

struct fgraph *fgraph_new(const struct fgraph_config *cfg)
{
	struct fgraph *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	if (cfg)
		g->cfg = *cfg;
	if (!g->cfg.max_depth)
		g->cfg.max_depth = FGRAPH_DEFAULT_DEPTH;
	if (g->cfg.max_depth > UINT16_MAX)
		g->cfg.max_depth = UINT16_MAX;
	g->same_clock = g->cfg.clock == FGRAPH_CLOCK_SAME;
	if (!g->cfg.max_nodes || g->cfg.max_nodes > UINT32_MAX - 2)
		g->cfg.max_nodes = g->cfg.max_nodes ? UINT32_MAX - 2 : FGRAPH_DEFAULT_NODES;
	if (fgraph_init_roots(g)) {
		fgraph_free(g);
		return NULL;
	}
	return g;
}

static void fgraph_clear(struct fgraph *g)
{
	unsigned int i;
	uint64_t task;

	for (size_t pos = 0; hmap_next(&g->tasks, &pos, NULL, &task);)
		ctx_free((struct fg_ctx *)(uintptr_t)task);
	hmap_destroy(&g->tasks);
	for (i = 0; i < g->ncpus; i++) {
		ctx_free(g->cpus[i].irq);
		ctx_free(g->cpus[i].idle);
		free(g->cpus[i].lost);
	}
	free(g->cpus);
	g->cpus = NULL;
	g->ncpus = 0;
	g->nn = 0;
	g->na = 0;
	free(g->match);
	g->match = NULL;
	g->nmatch = 0;
	free(g->needle);
	g->needle = NULL;
	memset(&g->st, 0, sizeof(g->st));
	g->agg_dirty = false;
	g->agg_nn = 0;
	g->npending = 0;
	g->last_lost_ts = 0;
	g->same_clock = g->cfg.clock == FGRAPH_CLOCK_SAME;
	g->clock_agree = g->clock_disagree = 0;
}

void fgraph_reset(struct fgraph *g)
{
	fgraph_clear(g);
	fgraph_init_roots(g);
}

void fgraph_free(struct fgraph *g)
{
	if (!g)
		return;
	fgraph_clear(g);
	free(g->n);
	free(g->a);
	free(g->ahash);
	free(g->pending);
	free(g->amap);
	free(g->scratch);
	free(g);
}

void fgraph_get_stats(const struct fgraph *g, struct fgraph_stats *out)
{
	*out = g->st;
	out->nodes = g->nn;
	out->agg_nodes = g->na;
	out->same_clock = g->same_clock;
}

/* ---- reading ------------------------------------------------------------- */

static bool valid(const struct fgraph *g, enum fgraph_view v, uint32_t id)
{
	return v == FGRAPH_AGG ? id < g->na : id < g->nn;
}

/* AGG nodes no timeline node maps to any more (after an adoption) are skipped. */
static uint32_t agg_live(const struct fgraph *g, uint32_t id, bool fwd)
{
	while (id != NONE && !g->a[id].refs)
		id = fwd ? g->a[id].next : g->a[id].prev;
	return id;
}

uint32_t fgraph_parent(const struct fgraph *g, enum fgraph_view v, uint32_t id)
{
	if (!valid(g, v, id))
		return NONE;
	return v == FGRAPH_AGG ? g->a[id].parent : g->n[id].parent;
}

uint32_t fgraph_first_child(const struct fgraph *g, enum fgraph_view v, uint32_t id)
{
	if (!valid(g, v, id))
		return NONE;
	return v == FGRAPH_AGG ? agg_live(g, g->a[id].first, true) : g->n[id].first;
}

uint32_t fgraph_last_child(const struct fgraph *g, enum fgraph_view v, uint32_t id)
{
	if (!valid(g, v, id))
		return NONE;
	return v == FGRAPH_AGG ? agg_live(g, g->a[id].last, false) : g->n[id].last;
}

uint32_t fgraph_next_sibling(const struct fgraph *g, enum fgraph_view v, uint32_t id)
{
	if (!valid(g, v, id))
		return NONE;
	return v == FGRAPH_AGG ? agg_live(g, g->a[id].next, true) : g->n[id].next;
}

uint32_t fgraph_prev_sibling(const struct fgraph *g, enum fgraph_view v, uint32_t id)
{
	if (!valid(g, v, id))
		return NONE;
	return v == FGRAPH_AGG ? agg_live(g, g->a[id].prev, false) : g->n[id].prev;
}

static uint64_t key_total(const struct fgraph *g, enum fgraph_view v, uint32_t id)
{
	return v == FGRAPH_AGG ? g->a[id].total : g->n[id].dur;
}

uint32_t fgraph_longest_child(const struct fgraph *g, enum fgraph_view v, uint32_t id)
{
	uint32_t k, best = NONE;

	for (k = fgraph_first_child(g, v, id); k != NONE; k = fgraph_next_sibling(g, v, k))
		if (best == NONE || key_total(g, v, k) > key_total(g, v, best))
			best = k;
	return best;
}

uint32_t fgraph_agg_of(struct fgraph *g, uint32_t timeline_id)
{
	if (timeline_id >= g->nn)
		return NONE;
	agg_sync(g);
	return g->amap[timeline_id];
}

static const char *ctx_label(struct fgraph *g, enum fgraph_kind kind, int32_t pid, int cpu,
			     bool merged)
{
	const char *comm = NULL;

	if (kind == FGRAPH_K_IRQ) {
		if (merged)
			return "[interrupts]";
		snprintf(g->namebuf, sizeof(g->namebuf), "[irq] CPU %d", cpu);
		return g->namebuf;
	}
	if (merged)
		return "[tasks]";
	if (pid == 0) {
		snprintf(g->namebuf, sizeof(g->namebuf), "<idle>-0 CPU %d", cpu);
		return g->namebuf;
	}
	if (g->cfg.comm)
		comm = g->cfg.comm(g->cfg.comm_ctx, pid);
	snprintf(g->namebuf, sizeof(g->namebuf), "%s-%d", comm && *comm ? comm : "<...>", pid);
	return g->namebuf;
}

int fgraph_node(struct fgraph *g, enum fgraph_view v, uint32_t id, struct fgraph_info *o)
{
	uint32_t k, lv = 0;

	if (v == FGRAPH_AGG)
		agg_sync(g);
	if (!valid(g, v, id))
		return -ENOENT;
	memset(o, 0, sizeof(*o));
	o->id = id;
	o->pid = -1;
	o->cpu = -1;
	for (k = fgraph_parent(g, v, id); k != NONE; k = fgraph_parent(g, v, k))
		lv++;
	o->level = lv;
	if (v == FGRAPH_TIMELINE)
		o->nchildren = g->n[id].nchild;
	else
		for (k = fgraph_first_child(g, v, id); k != NONE; k = fgraph_next_sibling(g, v, k))
			o->nchildren++;
	if (v == FGRAPH_AGG) {
		const struct fg_agg *a = &g->a[id];
		bool merged = g->cfg.agg_merge_tasks;

		o->parent = a->parent;
		o->kind = a->kind;
		o->flags = a->flags;
		o->func = a->func;
		o->count = a->count;
		o->total = a->total;
		o->self = a->self;
		o->min = a->count ? a->min : 0;
		o->max = a->max;
		o->incomplete = a->incomplete;
		if (a->kind == FGRAPH_K_TASK) {
			o->pid = merged ? -1 : a->pid;
			o->cpu = !merged && a->pid == 0 ? a->cpu : -1;
			o->name = ctx_label(g, a->kind, a->pid, a->cpu, merged);
		} else if (a->kind == FGRAPH_K_IRQ) {
			o->cpu = merged ? -1 : a->cpu;
			o->name = ctx_label(g, a->kind, -1, a->cpu, merged);
		} else if (a->kind == FGRAPH_K_GAP) {
			o->name = "[lost events]";
		} else if (a->kind == FGRAPH_K_CALL) {
			o->name = sym_name(g, a->func, g->namebuf, sizeof(g->namebuf));
		} else {
			o->name = "";
		}
		return 0;
	} else {
		const struct fg_node *x = &g->n[id];

		o->parent = x->parent;
		o->kind = x->kind;
		o->flags = x->flags;
		o->start = x->start;
		o->overflow = x->overflow;
		switch (x->kind) {
		case FGRAPH_K_TASK:
			o->pid = (int32_t)x->func;
			o->cpu = x->func ? -1 : x->cpu;
			o->name = ctx_label(g, x->kind, o->pid, x->cpu, false);
			break;
		case FGRAPH_K_IRQ:
			o->cpu = x->cpu;
			o->name = ctx_label(g, x->kind, -1, x->cpu, false);
			break;
		case FGRAPH_K_GAP:
			o->count = x->func;
			o->name = "[lost events]";
			break;
		case FGRAPH_K_CALL:
			o->func = x->func;
			o->cpu = x->cpu;
			o->depth = x->depth;
			o->count = 1;
			o->total = o->min = o->max = x->dur;
			o->self = x->dur > x->child_time ? x->dur - x->child_time : 0;
			o->name = sym_name(g, x->func, g->namebuf, sizeof(g->namebuf));
			break;
		default:
			o->name = "";
			break;
		}
	}
	return 0;
}

/* ---- search -------------------------------------------------------------- */

static bool name_matches(struct fgraph *g, uint32_t sym, const char *needle)
{
	char buf[32];

	if (sym >= g->nmatch) {
		uint32_t n = sym + 1024;
		uint8_t *m = realloc(g->match, n);

		if (!m)
			return strstr(sym_name(g, sym, buf, sizeof(buf)), needle) != NULL;
		memset(m + g->nmatch, 0, n - g->nmatch);
		g->match = m;
		g->nmatch = n;
	}
	if (!g->match[sym])
		g->match[sym] = strstr(sym_name(g, sym, buf, sizeof(buf)), needle) ? 1 : 2;
	return g->match[sym] == 1;
}

static uint32_t preorder_next(const struct fgraph *g, enum fgraph_view v, uint32_t id)
{
	uint32_t k = fgraph_first_child(g, v, id);

	if (k != NONE)
		return k;
	while (id != NONE) {
		k = fgraph_next_sibling(g, v, id);
		if (k != NONE)
			return k;
		id = fgraph_parent(g, v, id);
	}
	return NONE;
}

static uint32_t preorder_prev(const struct fgraph *g, enum fgraph_view v, uint32_t id)
{
	uint32_t k = fgraph_prev_sibling(g, v, id), c;

	if (k == NONE)
		return fgraph_parent(g, v, id);
	while ((c = fgraph_last_child(g, v, k)) != NONE)
		k = c;
	return k;
}

static uint32_t deepest_last(const struct fgraph *g, enum fgraph_view v, uint32_t id)
{
	uint32_t c;

	while ((c = fgraph_last_child(g, v, id)) != NONE)
		id = c;
	return id;
}

static bool find_hit(struct fgraph *g, enum fgraph_view v, uint32_t id, const char *needle)
{
	if (v == FGRAPH_AGG)
		return g->a[id].kind == FGRAPH_K_CALL && name_matches(g, g->a[id].func, needle);
	return g->n[id].kind == FGRAPH_K_CALL && name_matches(g, g->n[id].func, needle);
}

uint32_t fgraph_find(struct fgraph *g, enum fgraph_view v, uint32_t from,
		     const char *needle, bool backward)
{
	bool wrapped = false;
	uint32_t id, start;

	if (!needle || !*needle)
		return NONE;
	if (v == FGRAPH_AGG)
		agg_sync(g);
	if (!g->needle || strcmp(g->needle, needle)) {
		free(g->needle);
		g->needle = strdup(needle);
		if (g->match)
			memset(g->match, 0, g->nmatch);
	}
	start = valid(g, v, from) ? from : FGRAPH_ROOT;
	if (start == FGRAPH_ROOT) {
		wrapped = true;
		id = backward ? deepest_last(g, v, FGRAPH_ROOT) :
				fgraph_first_child(g, v, FGRAPH_ROOT);
	} else {
		id = backward ? preorder_prev(g, v, start) : preorder_next(g, v, start);
	}
	for (;;) {
		if (id == NONE || id == FGRAPH_ROOT) {
			if (wrapped)
				return NONE;
			wrapped = true;
			id = backward ? deepest_last(g, v, FGRAPH_ROOT) :
					fgraph_first_child(g, v, FGRAPH_ROOT);
			if (id == NONE || id == FGRAPH_ROOT)
				return NONE;
		}
		if (find_hit(g, v, id, needle))
			return id;
		if (wrapped && id == start)
			return NONE;
		id = backward ? preorder_prev(g, v, id) : preorder_next(g, v, id);
	}
}

/* ---- visible rows -------------------------------------------------------- */

struct sort_ctx {
	struct fgraph		*g;
	enum fgraph_view	v;
	enum fgraph_sort	k;
};

static uint64_t sort_val(const struct sort_ctx *sc, uint32_t id)
{
	const struct fgraph *g = sc->g;

	if (sc->v == FGRAPH_AGG) {
		const struct fg_agg *a = &g->a[id];

		switch (sc->k) {
		case FGRAPH_SORT_SELF:	return a->self;
		case FGRAPH_SORT_COUNT:	return a->count;
		case FGRAPH_SORT_MAX:	return a->max;
		default:		return a->total;
		}
	} else {
		const struct fg_node *x = &g->n[id];

		switch (sc->k) {
		case FGRAPH_SORT_SELF:
			return x->dur > x->child_time ? x->dur - x->child_time : 0;
		case FGRAPH_SORT_COUNT:	return x->nchild;
		default:		return x->dur;
		}
	}
}

/* Name of a node for sorting; contexts sort by their id. */
static const char *sort_name(const struct sort_ctx *sc, uint32_t id, char *buf, size_t len)
{
	struct fgraph *g = sc->g;

	if (sc->v == FGRAPH_AGG ? g->a[id].kind != FGRAPH_K_CALL : g->n[id].kind != FGRAPH_K_CALL)
		return "";
	return sym_name(g, sc->v == FGRAPH_AGG ? g->a[id].func : g->n[id].func, buf, len);
}

static int sort_cmp(const void *pa, const void *pb, void *arg)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	const struct sort_ctx *sc = arg;
	uint64_t va, vb;

	if (sc->k == FGRAPH_SORT_NAME) {
		char ba[32], bb[32];
		int r = strcmp(sort_name(sc, a, ba, sizeof(ba)), sort_name(sc, b, bb, sizeof(bb)));

		if (r)
			return r;
	} else {
		va = sort_val(sc, a);
		vb = sort_val(sc, b);
		if (va != vb)
			return va > vb ? -1 : 1;
	}
	return a < b ? -1 : a > b;	/* ties: by id, i.e. by order */
}

static long rows_ordered(struct fgraph *g, enum fgraph_view v, uint32_t top,
			 fgraph_folded_fn folded, void *ctx, struct fgraph_row *out, size_t max)
{
	uint32_t id = fgraph_first_child(g, v, top), level = 0, k;
	long n = 0;

	while (id != NONE) {
		if ((size_t)n < max) {
			out[n].id = id;
			out[n].level = level;
		}
		n++;
		k = fgraph_first_child(g, v, id);
		if (k != NONE && !(folded && folded(ctx, id))) {
			id = k;
			level++;
			continue;
		}
		for (;;) {
			k = fgraph_next_sibling(g, v, id);
			if (k != NONE) {
				id = k;
				break;
			}
			if (!level) {
				id = NONE;
				break;
			}
			id = fgraph_parent(g, v, id);
			level--;
		}
	}
	return n;
}

static int scratch_push(struct fgraph *g, size_t *len, uint32_t id)
{
	if (*len >= g->nscratch) {
		size_t nn = g->nscratch ? g->nscratch * 2 : 4096;
		uint32_t *p = realloc(g->scratch, nn * sizeof(*p));

		if (!p)
			return -ENOMEM;
		g->scratch = p;
		g->nscratch = nn;
	}
	g->scratch[(*len)++] = id;
	return 0;
}

struct rows_frame {
	size_t	begin, end, next;
};

static long rows_sorted(struct fgraph *g, enum fgraph_view v, uint32_t top, enum fgraph_sort sort,
			fgraph_folded_fn folded, void *ctx, struct fgraph_row *out, size_t max)
{
	struct sort_ctx sc = { .g = g, .v = v, .k = sort };
	struct rows_frame *fr = NULL, *nf;
	size_t nfr = 0, capfr = 0, len = 0;
	uint32_t id = top, k;
	long n = 0;

	for (;;) {
		if (id != NONE) {
			/* open @id: push its sorted children */
			if (nfr == capfr) {
				capfr = capfr ? capfr * 2 : 64;
				nf = realloc(fr, capfr * sizeof(*fr));
				if (!nf)
					goto out_nomem;
				fr = nf;
			}
			fr[nfr].begin = fr[nfr].next = len;
			for (k = fgraph_first_child(g, v, id); k != NONE;
			     k = fgraph_next_sibling(g, v, k))
				if (scratch_push(g, &len, k))
					goto out_nomem;
			fr[nfr].end = len;
			qsort_r(g->scratch + fr[nfr].begin, len - fr[nfr].begin, sizeof(uint32_t),
				sort_cmp, &sc);
			nfr++;
		}
		id = NONE;
		while (nfr) {
			struct rows_frame *f = &fr[nfr - 1];

			if (f->next < f->end) {
				id = g->scratch[f->next++];
				break;
			}
			len = f->begin;
			nfr--;
		}
		if (id == NONE)
			break;
		if ((size_t)n < max) {
			out[n].id = id;
			out[n].level = (uint32_t)nfr - 1;
		}
		n++;
		if (fgraph_first_child(g, v, id) == NONE || (folded && folded(ctx, id)))
			id = NONE;
	}
	free(fr);
	return n;
out_nomem:
	free(fr);
	return -ENOMEM;
}

long fgraph_rows(struct fgraph *g, enum fgraph_view v, uint32_t top, enum fgraph_sort sort,
		 fgraph_folded_fn folded, void *ctx, struct fgraph_row *out, size_t max)
{
	if (v == FGRAPH_AGG)
		agg_sync(g);
	if (!valid(g, v, top))
		return 0;
	if (sort == FGRAPH_SORT_ORDER)
		return rows_ordered(g, v, top, folded, ctx, out, max);
	return rows_sorted(g, v, top, sort, folded, ctx, out, max);
}

/* ---- text ---------------------------------------------------------------- */

char fgraph_mark(uint64_t ns)
{
	if (ns > 1000000000ull)
		return '$';
	if (ns > 100000000ull)
		return '@';
	if (ns > 10000000ull)
		return '*';
	if (ns > 1000000ull)
		return '#';
	if (ns > 100000ull)
		return '!';
	if (ns > 10000ull)
		return '+';
	return ' ';
}

/* As the kernel's trace_print_graph_duration(): at most 7 digits, then " us ", padded. */
int fgraph_fmt_duration(char *buf, size_t len, uint64_t ns)
{
	char us[24], frac[8];
	int n, w;

	n = snprintf(us, sizeof(us), "%llu", (unsigned long long)(ns / 1000));
	w = n;
	frac[0] = 0;
	if (n < 7) {
		int keep = 8 - n - 1 < 3 ? 8 - n - 1 : 3;

		snprintf(frac, sizeof(frac), ".%03llu", (unsigned long long)(ns % 1000));
		frac[1 + keep] = 0;
		w += 1 + keep;
	}
	return snprintf(buf, len, "%s%s us %*s", us, frac, w < 8 ? 8 - w : 0, "");
}

struct pr {
	struct fgraph			*g;
	FILE				*f;
	const struct fgraph_print_opts	*o;
	char				name[96];
};

static void pr_prefix(struct pr *p, int cpu, bool with_dur, uint64_t dur)
{
	char d[40];

	if (!p->o->no_cpu) {
		if (cpu >= 0)
			fprintf(p->f, " %*d) ", (int)p->g->cpu_width, cpu);
		else
			fprintf(p->f, " %*s  ", (int)p->g->cpu_width, "");
	}
	if (with_dur) {
		fgraph_fmt_duration(d, sizeof(d), dur);
		fprintf(p->f, "%c %s|  ", fgraph_mark(dur), d);
	} else {
		fputs("              |  ", p->f);
	}
}

/*
 * The children of @id, at level @lv under the top, indented @ind steps. A
 * call deeper than one level below its parent call (an interrupt in a return
 * path, see entry_skew; or ancestors not seen) is indented by its depth, as
 * the kernel does.
 */
static void pr_timeline(struct pr *p, uint32_t id, unsigned int lv, unsigned int ind)
{
	struct fgraph *g = p->g;
	const struct fg_node *up = &g->n[id];
	uint32_t k;

	for (k = up->first; k != NONE; k = g->n[k].next) {
		const struct fg_node *x = &g->n[k];
		bool closed = !(x->flags & (FGRAPH_F_OPEN | FGRAPH_F_EXIT_MISSING));
		unsigned int in = ind;
		const char *nm;

		if (p->o->max_level && lv >= p->o->max_level)
			return;
		if (x->kind == FGRAPH_K_GAP) {
			pr_prefix(p, -1, false, 0);
			fprintf(p->f, "%*s/* lost ", ind * 2, "");
			if (x->func)
				fprintf(p->f, "%u events */\n", x->func);
			else
				fputs("events */\n", p->f);
			continue;
		}
		if (x->kind != FGRAPH_K_CALL)
			continue;
		if (closed && p->o->min_dur && x->dur < p->o->min_dur)
			continue;
		if (up->kind == FGRAPH_K_CALL && x->depth > up->depth + 1u)
			in += x->depth - up->depth - 1u;
		nm = sym_name(g, x->func, p->name, sizeof(p->name));
		if (x->first == NONE && closed && !x->overflow) {
			pr_prefix(p, x->cpu, true, x->dur);
			fprintf(p->f, "%*s%s();%s\n", in * 2, "", nm,
				x->flags & FGRAPH_F_ENTRY_MISSING ? " /* entry missing */" : "");
			continue;
		}
		pr_prefix(p, x->cpu, false, 0);
		fprintf(p->f, "%*s%s() {%s\n", in * 2, "", nm,
			x->flags & FGRAPH_F_ENTRY_MISSING ? " /* entry missing */" : "");
		pr_timeline(p, k, lv + 1, in + 1);
		if (x->overflow) {
			pr_prefix(p, -1, false, 0);
			fprintf(p->f, "%*s/* %u calls deeper than max_depth */\n", (in + 1) * 2, "",
				x->overflow);
		}
		pr_prefix(p, x->cpu, closed, x->dur);
		/* the children's lines reused p->name */
		nm = sym_name(g, x->func, p->name, sizeof(p->name));
		if (closed)
			fprintf(p->f, "%*s}\n", in * 2, "");
		else
			fprintf(p->f, "%*s} /* %s: %s */\n", in * 2, "", nm,
				x->flags & FGRAPH_F_OPEN ? "still running" : "exit missing");
	}
}

static void us3(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%llu.%03llu", (unsigned long long)(ns / 1000),
		 (unsigned long long)(ns % 1000));
}

static void pr_agg(struct pr *p, const struct fgraph_row *rows, long n)
{
	char t[32], s[32], a[32], m[32];
	struct fgraph_info in;
	long i;

	fprintf(p->f, "# %14s %14s %14s %14s %9s  %s\n", "total us", "self us", "avg us", "max us",
		"calls", "function");
	for (i = 0; i < n; i++) {
		if (fgraph_node(p->g, FGRAPH_AGG, rows[i].id, &in))
			continue;
		if (in.kind == FGRAPH_K_TASK || in.kind == FGRAPH_K_IRQ) {
			fprintf(p->f, "# %s\n", in.name);
			continue;
		}
		if (p->o->max_level && rows[i].level > p->o->max_level)
			continue;
		if (in.kind == FGRAPH_K_GAP) {
			fprintf(p->f, "  %14s %14s %14s %14s %9llu  %*s/* lost events */\n", "", "",
				"", "", (unsigned long long)in.count, (int)rows[i].level * 2, "");
			continue;
		}
		if (p->o->min_dur && in.max < p->o->min_dur)
			continue;
		us3(t, sizeof(t), in.total);
		us3(s, sizeof(s), in.self);
		us3(a, sizeof(a), in.count ? in.total / in.count : 0);
		us3(m, sizeof(m), in.max);
		fprintf(p->f, "%c %14s %14s %14s %14s %9llu  %*s%s", fgraph_mark(in.max), t, s, a,
			m, (unsigned long long)in.count, (int)rows[i].level * 2, "", in.name);
		if (in.incomplete)
			fprintf(p->f, " /* +%llu incomplete */", (unsigned long long)in.incomplete);
		fputc('\n', p->f);
	}
}

int fgraph_print(struct fgraph *g, FILE *f, const struct fgraph_print_opts *opts)
{
	struct fgraph_print_opts def = { .view = FGRAPH_TIMELINE, .top = FGRAPH_ROOT };
	struct pr p = { .g = g, .f = f, .o = opts ? opts : &def };
	struct fgraph_info in;
	uint32_t k;

	if (p.o->view == FGRAPH_AGG) {
		struct fgraph_row *rows;
		long n = fgraph_rows(g, FGRAPH_AGG, p.o->top, p.o->sort, NULL, NULL, NULL, 0);

		if (n < 0)
			return (int)n;
		rows = malloc((n + 1) * sizeof(*rows));
		if (!rows)
			return -ENOMEM;
		n = fgraph_rows(g, FGRAPH_AGG, p.o->top, p.o->sort, NULL, NULL, rows, n);
		if (n >= 0)
			pr_agg(&p, rows, n);
		free(rows);
	} else if (p.o->top != FGRAPH_ROOT) {
		if (p.o->top >= g->nn)
			return -ENOENT;
		pr_timeline(&p, p.o->top, 0, 0);
	} else {
		for (k = g->n[FGRAPH_ROOT].first; k != NONE; k = g->n[k].next) {
			if (g->n[k].first == NONE)
				continue;
			fgraph_node(g, FGRAPH_TIMELINE, k, &in);
			fprintf(f, "# %s\n", in.name);
			pr_timeline(&p, k, 0, 0);
		}
	}
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
