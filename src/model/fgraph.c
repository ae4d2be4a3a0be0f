// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The function_graph call-tree model (see fgraph.h): the timeline and how
 * records feed it. The aggregated view is built in fgraph_agg.c, read with
 * the timeline in fgraph_view.c and printed in fgraph_print.c; their shared
 * types are in fgraph-local.h.
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

#include "fgraph-local.h"
#include "store/store.h"

/* ---- small helpers ------------------------------------------------------ */

int fgraph_grow(void **p, uint32_t *cap, uint32_t need, size_t size)
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
	if (fgraph_grow((void **)&g->n, &g->capn, g->nn + 1, sizeof(*g->n)))
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

/* The task of @ev (*@task), now the current context of its CPU (*@pc). Return: 0 or -errno. */
static int task_of(struct fgraph *g, const struct ktop_event *ev, struct fg_ctx **task,
		   struct fg_cpu **pc)
{
	*task = task_get(g, ev->pid, ev->cpu);
	if (!*task)
		return g->nn >= g->cfg.max_nodes ? -ENOSPC : -ENOMEM;
	*pc = &g->cpus[ev->cpu];
	(*pc)->cur = *task;
	return 0;
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
	if (fgraph_grow((void **)&c->stack, &c->cap, c->top + 1, sizeof(*c->stack)))
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
	fgraph_agg_pending(g, id);
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
	err = task_of(g, ev, &task, &pc);
	if (err)
		return err;
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
	fgraph_agg_pending(g, id);
}

/*
 * The exit of the call open at @i in @c's stack: the frames inside it close
 * as "exit missing", a suspended one proves its ancestors (see ctx_gap).
 */
static void exit_matched(struct fgraph *g, struct fg_ctx *c, int i, struct fg_ctx *task,
			 struct fg_ctx *irq, unsigned int depth, uint64_t calltime, uint64_t dur)
{
	bool suspended = (uint32_t)i < c->susp, innermost = i == (int)c->top - 1;
	uint32_t id = c->stack[i], top;

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
}

static int feed_exit(struct fgraph *g, const struct ktop_event *ev)
{
	unsigned int depth = (unsigned int)ev->args[1], cf = ev_ctxflags(ev->flags);
	uint64_t calltime = ev->args[2], rettime = ev->args[3];
	uint64_t dur = rettime > calltime ? rettime - calltime : 0;
	unsigned int flags = FGRAPH_F_ENTRY_MISSING | cf;
	uint32_t func = (uint32_t)ev->args[0], id, parent;
	struct fg_ctx *task, *irq = NULL, *c = NULL;
	struct fg_cpu *pc;
	int i = -1, err;

	g->st.exits++;
	err = task_of(g, ev, &task, &pc);
	if (err)
		return err;
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
		exit_matched(g, c, i, task, irq, depth, calltime, dur);
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
	if (fgraph_grow((void **)&pc->lost, &cap, (uint32_t)pc->nlost + 1, sizeof(*pc->lost)))
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
	if (node_new(g, FGRAPH_K_ROOT, NONE) != FGRAPH_ROOT)
		return -ENOMEM;
	if (fgraph_agg_init(g))
		return -ENOMEM;
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
