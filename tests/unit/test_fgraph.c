// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Tests of the function_graph call-tree model (src/model/fgraph.c).
 *
 * Synthetic: a random machine (tasks that call, return, migrate between
 * CPUs and get interrupted) writes entry/exit records and, beside them, the
 * true call tree. The model built from the records must equal the truth;
 * with records cut off at the start, or lost in the middle, it must mark
 * what is missing and never invent a parent.
 *
 * Fixtures: tests/fixtures/rt-* recorded from the rt kernel in qemu: the
 * model built from the raw records is compared with the tree parsed from
 * the kernel's own text output of the same run (trace.txt). The *-lost
 * ones were recorded with a buffer the kernel overwrote: their lost counts
 * and gaps must be the pages' missed-event marks, and their calls without
 * an entry the text's. Every fixture is also fed with each middle page of
 * a CPU left out in turn (marked as lost): no call may be merged across.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <traceevent/kbuffer.h>
#include "test.h"
#include "ingest/decode.h"
#include "model/fgraph.h"
#include "fgraph_text.h"
#include "ingest/fixture.h"
#include "lib/intern.h"
#include "store/store.h"
#include "kernel/symbols.h"

/* ---- a random machine --------------------------------------------------- */

#define G_MAXN		200000
#define G_MAXEV		400000
#define G_NFUNC		40

struct tnode {
	uint32_t	func;
	uint64_t	start, end;	/* end 0: still open */
	uint64_t	kcall, kret;	/* calltime/rettime as the exit carries them */
	int		parent;		/* truth parent, -1: top level of its context */
	int		iparent;	/* parent when interrupt frames nest in the task */
	int		depth;
	int		pid;		/* task context; -1 for interrupt context */
	int		cpu;		/* entry CPU (and the irq context's CPU) */
	int		entry_ev, exit_ev;
	bool		irq;
};

struct gen {
	struct tnode	n[G_MAXN];
	int		nn;
	struct ktop_event ev[G_MAXEV];
	int		nev;
	int		evnode[G_MAXEV];	/* node of each event */
	uint64_t	clock;
	uint64_t	rng;
};

struct gtask {
	int	pid;
	int	stack[64];
	int	top;
	int	running;	/* cpu or -1 */
};

/*
 * calltime/rettime on another clock than the time stamps (trace_clock other
 * than "local"): offset and jitter, in ns.
 */
static uint64_t g_skew, g_jitter;

/*
 * Depths as 6.12 records them (the fgraph shadow-stack rework, 6.11): the
 * return handler lowers the depth only after the exit record is written,
 * with interrupts enabled again in between, so an interrupt taken in a
 * call's return path nests one level deeper than the call's siblings. Off:
 * as 6.1, where the depth is lowered first.
 */
static bool g_ret_irq;

static uint32_t rnd(struct gen *g, uint32_t n)
{
	g->rng ^= g->rng << 13;
	g->rng ^= g->rng >> 7;
	g->rng ^= g->rng << 17;
	return (uint32_t)(g->rng % n);
}

static void gen_event(struct gen *g, int node, bool entry, int cpu, int pid, uint8_t flags)
{
	struct ktop_event *e = &g->ev[g->nev];
	struct tnode *x = &g->n[node];

	memset(e, 0, sizeof(*e));
	g->clock += 1 + rnd(g, 3000);
	e->ts = g->clock;
	e->cpu = (uint16_t)cpu;
	e->pid = pid;
	e->flags = flags;
	e->args[0] = x->func;
	e->args[1] = (uint64_t)x->depth;
	if (entry) {
		e->type = KTOP_T_FGRAPH_ENTRY;
		e->nargs = 2;
		x->start = e->ts;
		x->entry_ev = g->nev;
	} else {
		e->type = KTOP_T_FGRAPH_EXIT;
		e->nargs = 5;
		x->end = e->ts;
		x->kcall = x->start + g_skew + (g_jitter ? rnd(g, (uint32_t)g_jitter) : 0);
		x->kret = x->end + g_skew + (g_jitter ? rnd(g, (uint32_t)g_jitter) : 0);
		if (x->kret < x->kcall)
			x->kret = x->kcall;
		e->args[2] = x->kcall;	/* calltime */
		e->args[3] = x->kret;	/* rettime */
		e->args[4] = 0;		/* overrun */
		x->exit_ev = g->nev;
	}
	g->evnode[g->nev] = node;
	g->nev++;
}

static int gen_node(struct gen *g, uint32_t func, int depth, int parent, int iparent, int pid,
		    int cpu, bool irq)
{
	struct tnode *x = &g->n[g->nn];

	memset(x, 0, sizeof(*x));
	x->func = func;
	x->depth = depth;
	x->parent = parent;
	x->iparent = iparent;
	x->pid = pid;
	x->cpu = cpu;
	x->irq = irq;
	x->entry_ev = x->exit_ev = -1;
	return g->nn++;
}

/* A whole interrupt on @cpu over task @t: nested calls, all with @flags. */
static void gen_irq(struct gen *g, struct gtask *t, int cpu, int depth, int parent, int iparent,
		    uint8_t flags, int budget)
{
	int id = gen_node(g, 1 + rnd(g, G_NFUNC), depth, parent, iparent,
			  t->pid ? t->pid : -2 - cpu, cpu, true);
	int kids = budget > 0 ? (int)rnd(g, 3) : 0;

	gen_event(g, id, true, cpu, t->pid, flags);
	for (int k = 0; k < kids && g->nn < G_MAXN - 64 && g->nev < G_MAXEV - 128; k++)
		gen_irq(g, t, cpu, depth + 1, id, id, flags, budget - 1);
	gen_event(g, id, false, cpu, t->pid, flags);
}

/* Run the machine for about @steps records; @close: return from everything at the end. */
static void gen_run(struct gen *g, uint64_t seed, int ntasks, int ncpus, int steps, bool close)
{
	struct gtask tasks[32];
	int cur[8];

	memset(g, 0, sizeof(*g));
	g->rng = seed * 2654435761u + 88172645463325252ull;
	g->clock = 1000000;
	/* tasks[0..ncpus-1] are the idle tasks of each CPU (pid 0) */
	for (int i = 0; i < ntasks + ncpus; i++) {
		tasks[i].pid = i < ncpus ? 0 : 100 + i;
		tasks[i].top = 0;
		tasks[i].running = i < ncpus ? i : -1;
	}
	for (int c = 0; c < ncpus; c++)
		cur[c] = c;
	while (g->nev < steps && g->nn < G_MAXN - 64 && g->nev < G_MAXEV - 128) {
		int c = (int)rnd(g, (uint32_t)ncpus), r = (int)rnd(g, 100);
		struct gtask *t = &tasks[cur[c]];

		if (r < 4) {
			/*
			 * Switch to a task not running anywhere (or this CPU's idle task):
			 * as in the kernel, through a schedule() call that the task
			 * enters here and leaves wherever it runs next.
			 */
			int n = (int)rnd(g, (uint32_t)ntasks + 1);
			int pick = n == ntasks ? c : ncpus + n;
			struct gtask *nt = &tasks[pick];

			if (nt->running >= 0 || t->top >= 40)
				continue;
			int parent = t->top ? t->stack[t->top - 1] : -1;
			int id = gen_node(g, G_NFUNC + 1, t->top, parent, parent,
					  t->pid ? t->pid : -2 - c, c, false);

			gen_event(g, id, true, c, t->pid, 0);
			t->stack[t->top++] = id;
			t->running = -1;
			nt->running = c;
			cur[c] = pick;
			if (nt->top && G_NFUNC + 1 == g->n[nt->stack[nt->top - 1]].func)
				gen_event(g, nt->stack[--nt->top], false, c, nt->pid, 0);
		} else if (r < 8) {
			int ip = t->top ? t->stack[t->top - 1] : -1;
			uint8_t fl = rnd(g, 4) ? KTOP_KF_HARDIRQ : KTOP_KF_SOFTIRQ;

			gen_irq(g, t, c, t->top, -1, ip, fl | KTOP_KF_IRQS_OFF, 2);
		} else if (t->top && (t->top >= 20 || rnd(g, 100) < 45)) {
			gen_event(g, t->stack[--t->top], false, c, t->pid, 0);
			if (g_ret_irq && rnd(g, 100) < 20) {
				/* in its return path: the returned call's level still counts */
				int ip = t->top ? t->stack[t->top - 1] : -1;
				uint8_t fl = rnd(g, 4) ? KTOP_KF_HARDIRQ : KTOP_KF_SOFTIRQ;

				gen_irq(g, t, c, t->top + 1, -1, ip, fl | KTOP_KF_IRQS_OFF, 2);
			}
		} else {
			int parent = t->top ? t->stack[t->top - 1] : -1;
			int id = gen_node(g, 1 + rnd(g, G_NFUNC), t->top, parent, parent, t->pid, c,
					  false);

			if (t->pid == 0)
				g->n[id].pid = -2 - c;	/* idle task of CPU c */
			gen_event(g, id, true, c, t->pid, 0);
			t->stack[t->top++] = id;
		}
	}
	if (close) {
		for (int i = 0; i < ntasks + ncpus; i++) {
			struct gtask *t = &tasks[i];
			int c = t->running >= 0 ? t->running : (int)rnd(g, (uint32_t)ncpus);

			if (i < ncpus)
				c = i;	/* an idle task stays on its CPU */

			while (t->top)
				gen_event(g, t->stack[--t->top], false, c, t->pid, 0);
		}
	}
}

/* ---- comparing the model with the truth -------------------------------- */

static struct gen G;
static int *t2m;	/* truth node -> model id */
static int *tkid[2], *tnext[2];	/* [inline]: first child (index +1; [0] = top level), next */

/* Children lists of the truth in creation (= start) order, for both nestings. */
static void truth_lists(void)
{
	for (int m = 0; m < 2; m++) {
		int *last = malloc(sizeof(int) * (size_t)(G.nn + 1));

		free(tkid[m]);
		free(tnext[m]);
		tkid[m] = malloc(sizeof(int) * (size_t)(G.nn + 1));
		tnext[m] = malloc(sizeof(int) * (size_t)G.nn);
		for (int i = 0; i <= G.nn; i++)
			tkid[m][i] = last[i] = -1;
		for (int i = 0; i < G.nn; i++) {
			int p = (m ? G.n[i].iparent : G.n[i].parent) + 1;

			tnext[m][i] = -1;
			if (last[p] < 0)
				tkid[m][p] = i;
			else
				tnext[m][last[p]] = i;
			last[p] = i;
		}
		free(last);
	}
}

static uint32_t find_ctx(struct fgraph *fg, int pid, int cpu, bool irq)
{
	struct fgraph_info in;

	for (uint32_t k = fgraph_first_child(fg, FGRAPH_TIMELINE, FGRAPH_ROOT); k != FGRAPH_NONE;
	     k = fgraph_next_sibling(fg, FGRAPH_TIMELINE, k)) {
		fgraph_node(fg, FGRAPH_TIMELINE, k, &in);
		if (irq && in.kind == FGRAPH_K_IRQ && in.cpu == cpu)
			return k;
		if (!irq && in.kind == FGRAPH_K_TASK && in.pid == pid && (pid || in.cpu == cpu))
			return k;
	}
	return FGRAPH_NONE;
}

/*
 * Map every model call to the truth node with the same start and function
 * (times are unique). Return: number of model calls that map to nothing.
 */
static int map_model(struct fgraph *fg, int **m2t_out, uint32_t *nm)
{
	struct fgraph_stats st;
	struct fgraph_info in;
	int *m2t, bad = 0;

	fgraph_get_stats(fg, &st);
	m2t = malloc(sizeof(int) * st.nodes);
	for (uint32_t id = 0; id < st.nodes; id++) {
		int lo = 0, hi = G.nn, t = -1;

		m2t[id] = -1;
		fgraph_node(fg, FGRAPH_TIMELINE, id, &in);
		if (in.kind != FGRAPH_K_CALL)
			continue;
		if (!(in.flags & FGRAPH_F_ENTRY_MISSING)) {
			/* truth starts increase with creation order */
			while (lo < hi) {
				int mid = (lo + hi) / 2;

				if (G.n[mid].start < in.start)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < G.nn && G.n[lo].start == in.start)
				t = lo;
		} else {
			/* the start is an estimate: the exit's time stamp is not */
			int e = 0;

			for (e = 0; e < G.nev; e++)
				if (G.ev[e].type == KTOP_T_FGRAPH_EXIT && G.ev[e].ts == in.start + in.total)
					break;
			if (e < G.nev)
				t = G.evnode[e];
		}
		if (t >= 0 && G.n[t].func == in.func)
			m2t[id] = t;
		else
			bad++;
	}
	*m2t_out = m2t;
	*nm = st.nodes;
	return bad;
}

/*
 * Compare the children of model node @m with the truth nodes whose parent
 * (iparent when @inl) is @tp within context filter. Return: 0 when equal.
 */
static int cmp_children(struct fgraph *fg, uint32_t m, int tp, int pid, int cpu, bool irq,
			bool inl, int *where)
{
	struct fgraph_info in;
	uint32_t k = fgraph_first_child(fg, FGRAPH_TIMELINE, m);

	for (int i = tkid[inl][tp + 1]; i >= 0; i = tnext[inl][i]) {
		struct tnode *x = &G.n[i];

		if (tp < 0) {
			/* top level: the context must match */
			if (!inl && x->irq != irq)
				continue;
			if ((inl || !irq) && x->pid != (pid ? pid : -2 - cpu))
				continue;
			if (!inl && irq && x->cpu != cpu)
				continue;
		}
		if (k == FGRAPH_NONE) {
			*where = i;
			return 1;
		}
		fgraph_node(fg, FGRAPH_TIMELINE, k, &in);
		if (in.kind != FGRAPH_K_CALL || in.func != x->func || in.start != x->start ||
		    in.depth != (unsigned int)x->depth) {
			printf("  model %u kind %d func %u start %llu depth %u flags %#x; truth func %u "
			       "start %llu depth %d irq %d\n", k, in.kind, in.func,
			       (unsigned long long)in.start, in.depth, in.flags, x->func,
			       (unsigned long long)x->start, x->depth, x->irq);
			*where = i;
			return 2;
		}
		if (x->end && (in.flags & (FGRAPH_F_OPEN | FGRAPH_F_EXIT_MISSING) ||
			       in.total != x->kret - x->kcall)) {
			*where = i;
			return 3;
		}
		if (!x->end && !(in.flags & FGRAPH_F_OPEN)) {
			*where = i;
			return 4;
		}
		if (in.flags & (FGRAPH_F_ENTRY_MISSING | FGRAPH_F_HAS_GAP)) {
			*where = i;
			return 5;
		}
		if (cmp_children(fg, k, i, pid, cpu, irq, inl, where))
			return 6;
		t2m[i] = (int)k;
		k = fgraph_next_sibling(fg, FGRAPH_TIMELINE, k);
	}
	if (k != FGRAPH_NONE) {
		*where = -1;
		return 7;
	}
	return 0;
}

/*
 * The aggregated view agrees with the timeline: each call maps to the node
 * of its path (its parent's node's child, same function), and each node
 * counts the complete calls mapped to it and the incomplete ones apart.
 */
static int check_agg(struct fgraph *fg)
{
	struct fgraph_stats st;
	struct fgraph_info in, an;
	uint64_t *cnt, *inc, *tot;
	int bad = 0;

	fgraph_agg_of(fg, 0);
	fgraph_get_stats(fg, &st);
	cnt = calloc(st.agg_nodes, 8);
	inc = calloc(st.agg_nodes, 8);
	tot = calloc(st.agg_nodes, 8);
	for (uint32_t id = 1; id < st.nodes; id++) {
		uint32_t a = fgraph_agg_of(fg, id), pa;

		fgraph_node(fg, FGRAPH_TIMELINE, id, &in);
		if (in.kind != FGRAPH_K_CALL)
			continue;
		if (a >= st.agg_nodes) {
			bad++;
			continue;
		}
		fgraph_node(fg, FGRAPH_AGG, a, &an);
		pa = fgraph_agg_of(fg, in.parent);
		if (an.func != in.func || an.parent != pa)
			bad++;
		if (in.flags & FGRAPH_F_OPEN)
			continue;
		if (in.flags & (FGRAPH_F_ENTRY_MISSING | FGRAPH_F_EXIT_MISSING | FGRAPH_F_HAS_GAP)) {
			inc[a]++;
		} else {
			cnt[a]++;
			tot[a] += in.total;
		}
	}
	for (uint32_t a = 1; a < st.agg_nodes; a++) {
		fgraph_node(fg, FGRAPH_AGG, a, &an);
		if (an.kind == FGRAPH_K_CALL &&
		    (an.count != cnt[a] || an.incomplete != inc[a] || an.total != tot[a]))
			bad++;
	}
	free(cnt);
	free(inc);
	free(tot);
	return bad;
}

static struct fgraph *build(bool inl, int from, int to)
{
	struct fgraph_config cfg = { .irq_inline = inl };
	struct fgraph *fg = fgraph_new(&cfg);

	for (int i = from; i < to; i++)
		if (fgraph_feed(fg, &G.ev[i]))
			return NULL;
	return fg;
}

/* Compare every context of the model with the truth. Return: 0 when equal. */
static int cmp_all(struct fgraph *fg, bool inl, int ntasks, int ncpus)
{
	int where = 0, r;

	free(t2m);
	t2m = calloc((size_t)G.nn, sizeof(int));
	truth_lists();
	for (int c = 0; c < ncpus; c++) {
		uint32_t ctx = find_ctx(fg, 0, c, false);

		if (ctx != FGRAPH_NONE && (r = cmp_children(fg, ctx, -1, 0, c, false, inl, &where))) {
			printf("  idle cpu %d: mismatch %d at truth node %d\n", c, r, where);
			return r;
		}
		ctx = find_ctx(fg, -1, c, true);
		if (!inl && ctx != FGRAPH_NONE &&
		    (r = cmp_children(fg, ctx, -1, -1, c, true, inl, &where))) {
			printf("  irq cpu %d: mismatch %d at truth node %d\n", c, r, where);
			return r;
		}
	}
	for (int t = 0; t < ntasks; t++) {
		int pid = 100 + ncpus + t;
		uint32_t ctx = find_ctx(fg, pid, -1, false);

		if (ctx != FGRAPH_NONE &&
		    (r = cmp_children(fg, ctx, -1, pid, -1, false, inl, &where))) {
			printf("  pid %d: mismatch %d at truth node %d\n", pid, r, where);
			return r;
		}
	}
	/* and nothing in the truth was left out */
	for (int i = 0; i < G.nn; i++)
		if (G.n[i].entry_ev >= 0 && !t2m[i]) {
			printf("  truth node %d (pid %d irq %d) not in the model\n", i, G.n[i].pid,
			       G.n[i].irq);
			return 8;
		}
	return 0;
}

TEST(fgraph_synthetic_matches_truth)
{
	uint64_t nseeds = getenv("FGRAPH_SEEDS") ? strtoull(getenv("FGRAPH_SEEDS"), NULL, 0) : 12;

	for (uint64_t seed = 1; seed <= nseeds; seed++) {
		int ntasks = 1 + (int)(seed % 6), ncpus = 1 + (int)(seed % 4);

		g_ret_irq = (seed / 2) % 2;	/* half the seeds: 6.12 depths */
		gen_run(&G, seed, ntasks, ncpus, 20000, seed % 2);
		g_ret_irq = false;
		for (int inl = 0; inl < 2; inl++) {
			struct fgraph *fg = build(inl, 0, G.nev);
			struct fgraph_stats st;

			CHECK(fg);
			fgraph_get_stats(fg, &st);
			CHECK_EQ_U64(st.entry_missing, 0);
			CHECK_EQ_U64(st.exit_missing, 0);
			CHECK_EQ_U64(st.gaps, 0);
			CHECK_EQ_U64(st.inconsistent, 0);
			CHECK(cmp_all(fg, inl, ntasks, ncpus) == 0);
			fgraph_free(fg);
		}
	}
}

/* Links are a tree: every node once in its parent's list, prev/next and counts right. */
static int check_links(struct fgraph *fg)
{
	struct fgraph_stats st;
	struct fgraph_info in;
	uint32_t *seen;
	int bad = 0;

	fgraph_get_stats(fg, &st);
	seen = calloc(st.nodes, sizeof(*seen));
	for (uint32_t p = 0; p < st.nodes; p++) {
		uint32_t prev = FGRAPH_NONE, n = 0;

		for (uint32_t k = fgraph_first_child(fg, FGRAPH_TIMELINE, p); k != FGRAPH_NONE;
		     k = fgraph_next_sibling(fg, FGRAPH_TIMELINE, k)) {
			if (k >= st.nodes || seen[k]++ || fgraph_parent(fg, FGRAPH_TIMELINE, k) != p ||
			    fgraph_prev_sibling(fg, FGRAPH_TIMELINE, k) != prev) {
				bad++;
				break;
			}
			prev = k;
			n++;
		}
		fgraph_node(fg, FGRAPH_TIMELINE, p, &in);
		if (fgraph_last_child(fg, FGRAPH_TIMELINE, p) != prev || in.nchildren != n)
			bad++;
	}
	for (uint32_t k = 1; k < st.nodes; k++)
		if (seen[k] != 1)
			bad++;
	free(seen);
	return bad;
}

/* Garbage in (random depths, functions, flags, CPUs, losses): a sound tree out. */
TEST(fgraph_fuzz_keeps_a_tree)
{
	uint64_t nseeds = getenv("FGRAPH_SEEDS") ? strtoull(getenv("FGRAPH_SEEDS"), NULL, 0) : 8;

	for (uint64_t seed = 1; seed <= nseeds; seed++) {
		struct fgraph_config cfg = { .irq_inline = seed % 2, .max_depth = 12,
					     .max_nodes = 20000 + (uint32_t)(seed % 3) * 50000 };
		struct fgraph *fg = fgraph_new(&cfg);
		struct ktop_event e;
		uint64_t ts = 1000, r = seed * 0x9e3779b97f4a7c15ull;

		for (int i = 0; i < 60000; i++) {
			r ^= r << 13;
			r ^= r >> 7;
			r ^= r << 17;
			memset(&e, 0, sizeof(e));
			ts += r % 1000;
			e.ts = ts;
			e.cpu = (uint16_t)(r >> 8) % 3;
			e.pid = (int32_t)((r >> 12) % 5);
			e.flags = (uint8_t)((r >> 16) % 7 == 0 ? KTOP_KF_HARDIRQ :
					    (r >> 16) % 7 == 1 ? KTOP_KF_SOFTIRQ : 0);
			e.type = (r >> 20) % 2 ? KTOP_T_FGRAPH_ENTRY : KTOP_T_FGRAPH_EXIT;
			e.args[0] = 1 + (r >> 24) % 6;
			e.args[1] = (r >> 28) % 15;
			e.args[2] = ts - (r >> 32) % 5000;
			e.args[3] = ts;
			if ((r >> 40) % 500 == 0)
				CHECK(fgraph_lost(fg, e.cpu, ts, (r >> 44) % 100) == 0);
			int ret = fgraph_feed(fg, &e);

			CHECK(ret == 0 || ret == -ENOSPC);
		}
		struct fgraph_stats st;

		fgraph_get_stats(fg, &st);
		CHECK(check_links(fg) == 0);
		CHECK(check_agg(fg) == 0);
		CHECK_EQ_U64(fgraph_rows(fg, FGRAPH_TIMELINE, FGRAPH_ROOT, FGRAPH_SORT_ORDER, NULL, NULL,
					 NULL, 0), st.nodes - 1);
		CHECK(fgraph_rows(fg, FGRAPH_TIMELINE, FGRAPH_ROOT, FGRAPH_SORT_SELF, NULL, NULL, NULL,
				  0) == st.nodes - 1);
		CHECK(st.nodes <= cfg.max_nodes + 1);
		CHECK(st.max_depth_seen < 12);
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		struct fgraph_print_opts po = { .view = FGRAPH_AGG, .sort = FGRAPH_SORT_TOTAL };

		CHECK(fgraph_print(fg, f, NULL) == 0);
		CHECK(fgraph_print(fg, f, &po) == 0);
		fclose(f);
		CHECK(len > 0);
		free(buf);
		fgraph_free(fg);
	}
}

/* Calls the kernel cannot have recorded yet still nest right: a trace that
 * starts mid-call. Every truth node whose exit is kept is there; those whose
 * entry was cut are marked; parents are the true ones. */
TEST(fgraph_truncated_start)
{
	uint64_t nseeds = getenv("FGRAPH_SEEDS") ? strtoull(getenv("FGRAPH_SEEDS"), NULL, 0) : 12;

	for (uint64_t seed = 20; seed < 20 + nseeds; seed++) {
		int ntasks = 1 + (int)(seed % 5), ncpus = 1 + (int)(seed % 3);

		g_skew = seed % 2 ? 816000000 : 0;	/* odd seeds: calltime on another clock */
		g_jitter = seed % 2 ? 150000 : 0;
		g_ret_irq = (seed / 2) % 2;	/* half the seeds: 6.12 depths */
		gen_run(&G, seed, ntasks, ncpus, 20000, true);
		g_skew = g_jitter = 0;
		g_ret_irq = false;
		int cut = 100 + (int)(seed * 97 % 3000);

		for (int inl = 0; inl < 2; inl++) {
			struct fgraph *fg = build(inl, cut, G.nev);
			struct fgraph_info in, pin;
			uint32_t nm;
			int *m2t, missing = 0, kept = 0;

			CHECK(fg);
			CHECK(map_model(fg, &m2t, &nm) == 0);
			for (int i = 0; i < G.nn; i++)
				kept += G.n[i].exit_ev >= cut;
			int calls = 0;

			for (uint32_t id = 0; id < nm; id++) {
				int t = m2t[id], tp;

				if (t < 0)
					continue;
				calls++;
				fgraph_node(fg, FGRAPH_TIMELINE, id, &in);
				CHECK(G.n[t].exit_ev >= cut);
				CHECK_EQ_U64(in.total, G.n[t].kret - G.n[t].kcall);
				CHECK(!!(in.flags & FGRAPH_F_ENTRY_MISSING) == (G.n[t].entry_ev < cut));
				missing += G.n[t].entry_ev < cut;
				tp = inl ? G.n[t].iparent : G.n[t].parent;
				fgraph_node(fg, FGRAPH_TIMELINE, in.parent, &pin);
				if (pin.kind == FGRAPH_K_CALL) {
					CHECK(m2t[in.parent] == tp);
				} else {
					/* top level of a context: the truth parent must be cut
					 * or absent, or be in the other context */
					CHECK(tp < 0 || (!inl && G.n[t].irq != G.n[tp].irq));
				}
			}
			CHECK_EQ_U64(calls, kept);
			CHECK(missing > 0);
			CHECK(check_agg(fg) == 0);
			free(m2t);
			fgraph_free(fg);
		}
	}
}

/* Records of one CPU lost in a window: gaps are marked, and no call gets a
 * parent it did not have or a duration it did not take. */
TEST(fgraph_lost_events)
{
	uint64_t nseeds = getenv("FGRAPH_SEEDS") ? strtoull(getenv("FGRAPH_SEEDS"), NULL, 0) : 16;

	for (uint64_t seed = 40; seed < 40 + nseeds; seed++) {
		int ntasks = 2 + (int)(seed % 5), ncpus = 2 + (int)(seed % 3);

		g_skew = seed % 2 ? 816000000 : 0;	/* odd seeds: calltime on another clock */
		g_jitter = seed % 2 ? 150000 : 0;
		g_ret_irq = (seed / 2) % 2;	/* half the seeds: 6.12 depths */
		gen_run(&G, seed, ntasks, ncpus, 30000, true);
		g_skew = g_jitter = 0;
		g_ret_irq = false;
		int lcpu = (int)(seed % (uint64_t)ncpus), w0 = G.nev / 3, w1 = w0 + 200 +
			   (int)(seed * 31 % 2000);

		for (int mode = 0; mode < 4; mode++) {
			/* irq frames nested or apart; fed directly or through a store */
			int inl = mode & 1, via_store = mode >> 1;
			struct fgraph_config cfg = { .irq_inline = inl };
			struct fgraph *fg = fgraph_new(&cfg);
			struct store *sto = via_store ? store_new(0, (unsigned int)ncpus) : NULL;
			struct fgraph_stats st;
			struct fgraph_info in, pin;
			bool marked = false;
			uint32_t nm;
			int *m2t, ndrop = 0, nfar = 0;

			for (int i = 0; i < G.nev; i++) {
				bool drop = i >= w0 && i < w1 && G.ev[i].cpu == lcpu;

				if (drop) {
					/* the kernel stamps the loss with the next record kept on
					 * that CPU; an offline reader knows it at the first loss */
					if (!marked) {
						int j = w1;
						uint64_t lts;

						while (j < G.nev && G.ev[j].cpu != lcpu)
							j++;
						lts = j < G.nev ? G.ev[j].ts : G.clock + 1;
						if (sto)
							store_add_lost(sto, (unsigned int)lcpu, lts, 0,
								       STORE_LOST_KERNEL);
						else
							CHECK(fgraph_lost(fg, (unsigned int)lcpu, lts, 0) == 0);
						marked = true;
					}
					ndrop++;
					continue;
				}
				if (sto)
					CHECK(store_append(sto, &G.ev[i]) == 0);
				else
					CHECK(fgraph_feed(fg, &G.ev[i]) == 0);
			}
			if (sto) {
				for (int c = 0; c < ncpus; c++)
					store_publish(sto, (unsigned int)c);
				CHECK(fgraph_feed_store(fg, sto, 0, UINT64_MAX) == G.nev - ndrop);
				store_free(sto);
			}
			CHECK(ndrop > 0);
			fgraph_get_stats(fg, &st);
			CHECK(st.gaps > 0);
			CHECK(st.same_clock == !(seed % 2));	/* learnt from the records */
			CHECK(map_model(fg, &m2t, &nm) == 0);
			for (uint32_t id = 0; id < nm; id++) {
				int t = m2t[id], tp;

				if (t < 0)
					continue;
				fgraph_node(fg, FGRAPH_TIMELINE, id, &in);
				if (!(in.flags & (FGRAPH_F_EXIT_MISSING | FGRAPH_F_OPEN)) &&
				    in.total != G.n[t].kret - G.n[t].kcall)
					printf("  seed %llu inl %d: truth %d (pid %d, entry_ev %d exit_ev %d)"
					       " flags %#x\n", (unsigned long long)seed, inl, t, G.n[t].pid,
					       G.n[t].entry_ev, G.n[t].exit_ev, in.flags);
				if (!(in.flags & (FGRAPH_F_EXIT_MISSING | FGRAPH_F_OPEN)))
					CHECK_EQ_U64(in.total, G.n[t].kret - G.n[t].kcall);
				tp = inl ? G.n[t].iparent : G.n[t].parent;
				fgraph_node(fg, FGRAPH_TIMELINE, in.parent, &pin);
				if (pin.kind == FGRAPH_K_CALL) {
					/* the model's parent is a true ancestor, and the true
					 * parent itself when it is one level up */
					int mp = m2t[in.parent], anc = tp;

					while (anc >= 0 && anc != mp)
						anc = inl ? G.n[anc].iparent : G.n[anc].parent;
					if (anc < 0 || (pin.depth + 1 == in.depth && mp != tp))
						printf("  seed %llu mode %d: truth %d depth %u parent truth "
						       "%d, model's %d depth %u\n",
						       (unsigned long long)seed, mode, t, in.depth, tp, mp,
						       pin.depth);
					CHECK(anc >= 0);
					CHECK(pin.depth + 1 != in.depth || mp == tp);
					if (mp != tp)
						CHECK(in.flags & FGRAPH_F_PARENT_MISSING);
					nfar += mp != tp;
				}
			}
			if (getenv("FGRAPH_VERBOSE"))
				printf("  seed %llu inl %d: dropped %d, gaps %llu, inconsistent %llu, "
				       "entry/exit missing %llu/%llu, far parents %d\n",
				       (unsigned long long)seed, inl, ndrop,
				       (unsigned long long)st.gaps,
				       (unsigned long long)st.inconsistent,
				       (unsigned long long)st.entry_missing,
				       (unsigned long long)st.exit_missing, nfar);
			CHECK(check_agg(fg) == 0);
			free(m2t);
			fgraph_free(fg);
		}
	}
}

/* ---- fixtures recorded from the rt kernel -------------------------------- */

/* A tree parsed from the kernel's text output. */
struct xnode {
	char		func[96];
	int		depth;
	bool		has_dur, entry_missing, closed;
	uint64_t	dur, unit;
	int		parent, first, last, next;
};

struct xtask {
	int		pid, cpu;	/* cpu only for pid 0 (each CPU has its idle task) */
	int		first, last;	/* top-level nodes */
	int		stack[512];
	int		top;
};

struct xtree {
	struct xnode	*n;
	int		nn, cap;
	struct xtask	t[512];
	int		nt;
	uint64_t	lines, records;
};

static struct xtask *x_task(struct xtree *x, int pid, int cpu)
{
	for (int i = 0; i < x->nt; i++)
		if (x->t[i].pid == pid && (pid > 0 || x->t[i].cpu == cpu))
			return &x->t[i];
	if (x->nt == 512)
		return NULL;
	struct xtask *t = &x->t[x->nt++];

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->cpu = pid > 0 ? -1 : cpu;
	t->first = t->last = -1;
	return t;
}

static void x_link(struct xtree *x, struct xtask *t, int id, int parent)
{
	int *first = parent >= 0 ? &x->n[parent].first : &t->first;
	int *last = parent >= 0 ? &x->n[parent].last : &t->last;

	x->n[id].parent = parent;
	x->n[id].next = -1;
	if (*last >= 0)
		x->n[*last].next = id;
	else
		*first = id;
	*last = id;
}

static int x_new(struct xtree *x, const struct ft_rec *r)
{
	if (x->nn == x->cap) {
		x->cap = x->cap ? x->cap * 2 : 4096;
		x->n = realloc(x->n, sizeof(*x->n) * (size_t)x->cap);
	}
	struct xnode *n = &x->n[x->nn];

	memset(n, 0, sizeof(*n));
	snprintf(n->func, sizeof(n->func), "%s", r->func);
	n->depth = r->indent;
	n->first = n->last = n->next = n->parent = -1;
	n->has_dur = r->has_dur;
	n->dur = r->dur;
	n->unit = r->dur_unit;
	return x->nn++;
}

/*
 * Build per-task trees from the kernel's function_graph text: "f() {" opens,
 * "f();" is a leaf, "}" closes the innermost open call of the task on that
 * CPU. The task of a line is its proc column, or the last context switch
 * line ("a-1 => b-2") of that CPU (before the first one: its left side).
 */
static int x_parse(struct xtree *x, const char *text)
{
	int cur[256], ncpu = 256;
	const char *p = text;
	struct ft_rec r;
	char line[1024];

	memset(x, 0, sizeof(*x));
	for (int c = 0; c < ncpu; c++)
		cur[c] = -1;
	/* first pass: the task each CPU starts with */
	for (const char *q = text; *q;) {
		const char *e = strchr(q, '\n');
		size_t n = e ? (size_t)(e - q) : strlen(q);

		snprintf(line, sizeof(line), "%.*s", (int)(n < 1023 ? n : 1023), q);
		q += n + (e ? 1 : 0);
		if (ft_parse_line(line, &r) != 1 || r.kind != FT_SWITCH || r.cpu < 0 || r.cpu >= ncpu)
			continue;
		if (cur[r.cpu] == -1) {
			const char *arrow = strstr(line, "=>"), *a = arrow;

			while (a > line && a[-1] == ' ')
				a--;
			const char *b = a;

			while (b > line && b[-1] != ' ')
				b--;
			cur[r.cpu] = arrow ? ft_pid_of(b, (size_t)(a - b)) : -2;
			if (cur[r.cpu] < 0)
				cur[r.cpu] = -2;
		}
	}
	for (int c = 0; c < ncpu; c++)
		if (cur[c] == -1)
			cur[c] = -2;	/* never switched: unknown task */
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		snprintf(line, sizeof(line), "%.*s", (int)(n < 1023 ? n : 1023), p);
		p += n + (e ? 1 : 0);
		x->lines++;
		if (ft_parse_line(line, &r) != 1 || r.cpu < 0 || r.cpu >= ncpu)
			continue;
		if (r.kind == FT_SWITCH) {
			cur[r.cpu] = r.pid;
			continue;
		}
		if (r.kind == FT_CTX)
			continue;
		x->records++;
		int pid = r.pid >= 0 ? r.pid : cur[r.cpu];
		struct xtask *t = x_task(x, pid, r.cpu);

		if (!t)
			return -1;
		if (r.kind == FT_EXIT) {
			while (t->top && x->n[t->stack[t->top - 1]].depth > r.indent)
				t->top--;	/* exit missing */
			if (t->top && x->n[t->stack[t->top - 1]].depth == r.indent) {
				struct xnode *o = &x->n[t->stack[--t->top]];

				o->has_dur = r.has_dur;
				o->dur = r.dur;
				o->unit = r.dur_unit;
				o->closed = true;
				continue;
			}
			/* entry not in the text: it adopts the deeper calls before it */
			int id = x_new(x, &r), parent = t->top ? t->stack[t->top - 1] : -1;
			int *last = parent >= 0 ? &x->n[parent].last : &t->last;
			int run = -1;

			x->n[id].entry_missing = true;
			x->n[id].closed = true;
			for (int k = parent >= 0 ? x->n[parent].first : t->first; k >= 0;
			     k = x->n[k].next)
				if (x->n[k].depth > r.indent) {
					if (run < 0)
						run = k;
				} else {
					run = -1;
				}
			if (run >= 0) {
				/* cut the run off the parent's list, hang it under id */
				int prev = -1;

				for (int k = parent >= 0 ? x->n[parent].first : t->first; k != run;
				     k = x->n[k].next)
					prev = k;
				if (prev >= 0)
					x->n[prev].next = -1;
				else if (parent >= 0)
					x->n[parent].first = -1;
				else
					t->first = -1;
				*last = prev;
				x->n[id].first = run;
				for (int k = run; k >= 0; k = x->n[k].next) {
					x->n[k].parent = id;
					x->n[id].last = k;
				}
			}
			x_link(x, t, id, parent);
			continue;
		}
		while (t->top && x->n[t->stack[t->top - 1]].depth >= r.indent)
			t->top--;	/* exit missing */
		int id = x_new(x, &r);

		x_link(x, t, id, t->top ? t->stack[t->top - 1] : -1);
		if (r.kind == FT_LEAF)
			x->n[id].closed = true;
		else if (t->top < 512)
			t->stack[t->top++] = id;
	}
	return 0;
}

static const char *intern_name(void *ctx, uint32_t sym)
{
	return intern_str(ctx, sym);
}

/* Per aggregated node: what the text says of the calls matched to it. */
static uint64_t *fx_acnt, *fx_atot, *fx_aerr;
static uint32_t fx_na;

static int fx_cmp(struct fgraph *fg, uint32_t m, struct xtree *x, int first, int lvl,
		  char *why, size_t len)
{
	uint32_t k = fgraph_first_child(fg, FGRAPH_TIMELINE, m);
	struct fgraph_info in;

	for (int i = first; i >= 0; i = x->n[i].next) {
		struct xnode *xn = &x->n[i];

		while (k != FGRAPH_NONE && (fgraph_node(fg, FGRAPH_TIMELINE, k, &in), 1) &&
		       in.kind == FGRAPH_K_GAP)
			k = fgraph_next_sibling(fg, FGRAPH_TIMELINE, k);
		if (k == FGRAPH_NONE) {
			snprintf(why, len, "level %d: text has %s, model has no more", lvl, xn->func);
			return 1;
		}
		fgraph_node(fg, FGRAPH_TIMELINE, k, &in);
		if (strcmp(in.name, xn->func) && !(xn->entry_missing && !xn->func[0])) {
			snprintf(why, len, "level %d: text %s, model %s (id %u)", lvl, xn->func,
				 in.name, k);
			return 2;
		}
		if (xn->has_dur && xn->closed &&
		    !(in.total >= xn->dur && in.total - xn->dur < xn->unit)) {
			snprintf(why, len, "level %d: %s: text %llu ns, model %llu ns", lvl, xn->func,
				 (unsigned long long)xn->dur, (unsigned long long)in.total);
			return 3;
		}
		if (xn->entry_missing != !!(in.flags & FGRAPH_F_ENTRY_MISSING)) {
			snprintf(why, len, "level %d: %s: entry missing: text %d, model %d", lvl,
				 xn->func, xn->entry_missing, !!(in.flags & FGRAPH_F_ENTRY_MISSING));
			return 4;
		}
		if (fx_cmp(fg, k, x, xn->first, lvl + 1, why, len))
			return 5;
		uint32_t a = fgraph_agg_of(fg, k);

		if (a < fx_na && xn->has_dur && xn->closed && !xn->entry_missing) {
			fx_acnt[a]++;
			fx_atot[a] += xn->dur;
			fx_aerr[a] += xn->unit;
		}
		k = fgraph_next_sibling(fg, FGRAPH_TIMELINE, k);
	}
	while (k != FGRAPH_NONE && (fgraph_node(fg, FGRAPH_TIMELINE, k, &in), 1) &&
	       in.kind == FGRAPH_K_GAP)
		k = fgraph_next_sibling(fg, FGRAPH_TIMELINE, k);
	if (k != FGRAPH_NONE) {
		fgraph_node(fg, FGRAPH_TIMELINE, k, &in);
		snprintf(why, len, "level %d: model has %s more", lvl, in.name);
		return 6;
	}
	return 0;
}

static int list_rt(char names[][256], int max)
{
	const char *root = fixture_root();
	DIR *d = opendir(root);
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max)
		if (!strncmp(de->d_name, "rt", 2) && strlen(root) + strlen(de->d_name) < 250)
			snprintf(names[n++], 256, "%.120s/%.120s", root, de->d_name);
	closedir(d);
	return n;
}

/* Records on a raw page, and the time stamp of its first one (kbuffer's reading). */
static int page_records(struct fixture *fx, unsigned int cpu, size_t page, uint64_t *first)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	unsigned long long ts = 0;
	int n = 0;

	*first = 0;
	if (kb && kbuffer_load_subbuffer(kb, fixture_page(fx, cpu, page)) >= 0) {
		for (void *d = kbuffer_read_event(kb, &ts); d; d = kbuffer_next_event(kb, &ts)) {
			if (!n)
				*first = ts;
			n++;
		}
	}
	kbuffer_free(kb);
	return n;
}

/*
 * Decode the raw pages of a fixture into a store and feed the model from it.
 * With @skip_page >= 0, page @skip_page of CPU @skip_cpu is left out and, as
 * the kernel would mark an overwritten page, the next one carries a lost mark
 * with its record count (*@mark_ts: where; 0 if there is no next record).
 */
static struct fgraph *fx_build_skip(const char *dir, struct fixture **fxo, struct store **sto,
				    struct fgraph_config *cfg, unsigned int skip_cpu,
				    long skip_page, uint64_t *mark_ts)
{
	struct fixture *fx = fixture_open(dir);
	struct symbols *syms;
	struct decode_ctx *dc;
	struct store *st;
	struct fgraph *fg;
	int skipped = 0;

	if (!fx)
		return NULL;
	st = store_new(0, fixture_ncpus(fx));
	syms = symbols_load(fixture_path(fx, "kallsyms"));
	dc = decode_ctx_new(fixture_tep(fx), st, syms);
	for (unsigned int cpu = 0; dc && cpu < fixture_ncpus(fx); cpu++) {
		struct decoder *d = decoder_new(dc, cpu);

		for (size_t i = 0; d && i < fixture_npages(fx, cpu); i++) {
			uint64_t ts;

			if (cpu == skip_cpu && (long)i == skip_page) {
				skipped = page_records(fx, cpu, i, &ts);
				continue;
			}
			if (cpu == skip_cpu && skip_page >= 0 && (long)i == skip_page + 1 &&
			    page_records(fx, cpu, i, &ts) > 0) {
				store_add_lost(st, cpu, ts, (uint64_t)skipped, STORE_LOST_KERNEL);
				*mark_ts = ts;
			}
			decoder_page(d, fixture_page(fx, cpu, i), fixture_page_size(fx), NULL);
		}
		decoder_free(d);
		store_publish(st, cpu);
	}
	decode_ctx_free(dc);
	symbols_free(syms);
	cfg->name = intern_name;
	cfg->name_ctx = store_strings(st);
	fg = fgraph_new(cfg);
	if (fg && fgraph_feed_store(fg, st, 0, UINT64_MAX) < 0) {
		fgraph_free(fg);
		fg = NULL;
	}
	*fxo = fx;
	*sto = st;
	return fg;
}

static struct fgraph *fx_build(const char *dir, struct fixture **fxo, struct store **sto,
			       struct fgraph_config *cfg)
{
	return fx_build_skip(dir, fxo, sto, cfg, 0, -1, NULL);
}

/* The model built from the raw records is the tree of the kernel's own text. */
TEST(fgraph_fixtures_match_kernel_text)
{
	char names[16][256], why[512];
	int n = list_rt(names, 16), checked = 0;

	for (int i = 0; i < n; i++) {
		struct fgraph_config cfg = { .irq_inline = true };
		struct fixture *fx = NULL;
		struct store *st = NULL;
		struct fgraph *fg;
		struct fgraph_stats fst;
		struct xtree x;
		const char *tr;
		char *text;

		fx = fixture_open(names[i]);
		tr = fx ? fixture_meta(fx, "tracer") : NULL;
		if (!tr || strcmp(tr, "function_graph")) {
			fixture_close(fx);
			continue;
		}
		const char *clk = fixture_meta(fx, "trace_clock");
		int local = clk ? !strcmp(clk, "local") : -1;

		text = fixture_read_file(fixture_path(fx, "trace.txt"), NULL);
		fixture_close(fx);
		if (!text)
			continue;
		fg = fx_build(names[i], &fx, &st, &cfg);
		CHECK(fg);
		CHECK(x_parse(&x, text) == 0);
		fgraph_get_stats(fg, &fst);
		printf("  %s: text %llu records in %d tasks; model %llu entries %llu exits, "
		       "%llu calls, entry/exit missing %llu/%llu, gaps %llu, lost %llu, calltime %s "
		       "the time stamps' clock\n", names[i],
		       (unsigned long long)x.records, x.nt, (unsigned long long)fst.entries,
		       (unsigned long long)fst.exits, (unsigned long long)fst.calls,
		       (unsigned long long)fst.entry_missing, (unsigned long long)fst.exit_missing,
		       (unsigned long long)fst.gaps, (unsigned long long)fst.lost,
		       fst.same_clock ? "on" : "not on");
		CHECK(x.records > 0);
		fx_na = fst.agg_nodes + 1;
		fgraph_agg_of(fg, 0);
		fgraph_get_stats(fg, &fst);
		fx_na = fst.agg_nodes;
		fx_acnt = calloc(fx_na, 8);
		fx_atot = calloc(fx_na, 8);
		fx_aerr = calloc(fx_na, 8);
		/* where the kernel lost nothing, the model marks no gap and finds no hole */
		if (!fst.lost && !strstr(text, "LOST")) {
			CHECK_EQ_U64(fst.gaps, 0);
			CHECK_EQ_U64(fst.inconsistent, 0);
		}
		/* calltime is trace_clock_local: comparable only under the "local" trace_clock */
		if (local >= 0 && fst.exits > fst.entry_missing + 8)
			CHECK(fst.same_clock == (local == 1));
		for (int t = 0; t < x.nt; t++) {
			struct xtask *xt = &x.t[t];
			uint32_t ctx = FGRAPH_NONE;
			struct fgraph_info in;

			int nctx = 0;

			for (uint32_t k = fgraph_first_child(fg, FGRAPH_TIMELINE, FGRAPH_ROOT);
			     k != FGRAPH_NONE; k = fgraph_next_sibling(fg, FGRAPH_TIMELINE, k)) {
				fgraph_node(fg, FGRAPH_TIMELINE, k, &in);
				if (in.kind != FGRAPH_K_TASK)
					continue;
				if (xt->pid >= 0 && in.pid == xt->pid && (xt->pid || in.cpu == xt->cpu))
					ctx = k, nctx++;
				/* a CPU that never switched: the one task with calls there */
				if (xt->pid < 0 && fgraph_first_child(fg, FGRAPH_TIMELINE, k) !=
				    FGRAPH_NONE) {
					struct fgraph_info c0;

					fgraph_node(fg, FGRAPH_TIMELINE,
						    fgraph_first_child(fg, FGRAPH_TIMELINE, k), &c0);
					if (c0.cpu == xt->cpu)
						ctx = k, nctx++;
				}
			}
			if (nctx != 1) {
				printf("  %s: text task %d: %d model tasks match\n", names[i], xt->pid,
				       nctx);
				CHECK(0);
			}
			CHECK(ctx != FGRAPH_NONE);
			if (fx_cmp(fg, ctx, &x, xt->first, 0, why, sizeof(why))) {
				printf("  %s: pid %d (cpu %d): %s\n", names[i], xt->pid, xt->cpu, why);
				CHECK(0);
			}
			checked++;
		}
		/*
		 * One task only (no context switch in the text): the printed timeline is
		 * the kernel's own text, line for line.
		 */
		if (x.nt == 1 && !strstr(text, "=>") && !strstr(text, "LOST")) {
			char *buf = NULL, *mine, *kern, *sm = NULL, *sk = NULL, *a, *b;
			size_t len = 0;
			FILE *f = open_memstream(&buf, &len);
			long same = 0;

			CHECK(fgraph_print(fg, f, NULL) == 0);
			fclose(f);
			mine = buf;
			kern = strdup(text);
			a = strtok_r(mine, "\n", &sm);
			b = strtok_r(kern, "\n", &sk);
			for (;;) {
				while (a && a[0] == '#')
					a = strtok_r(NULL, "\n", &sm);
				while (b && b[0] == '#')
					b = strtok_r(NULL, "\n", &sk);
				if (!a || !b)
					break;
				if (strcmp(a, b)) {
					printf("  %s: line %ld: printed\n    \"%s\"\n  kernel\n    \"%s\"\n",
					       names[i], same + 1, a, b);
					break;
				}
				same++;
				a = strtok_r(NULL, "\n", &sm);
				b = strtok_r(NULL, "\n", &sk);
			}
			printf("  %s: %ld printed lines equal the kernel's text\n", names[i], same);
			CHECK(!a && !b);
			free(buf);
			free(kern);
		}
		/* the aggregated view: count and total of each path, as the text sums them */
		uint64_t paths = 0;

		for (uint32_t a = 1; a < fx_na; a++) {
			struct fgraph_info an;

			if (fgraph_node(fg, FGRAPH_AGG, a, &an) || an.kind != FGRAPH_K_CALL ||
			    !fx_acnt[a])
				continue;
			CHECK_EQ_U64(an.count, fx_acnt[a]);
			CHECK(an.total >= fx_atot[a] && an.total - fx_atot[a] < fx_aerr[a] + 1);
			paths++;
		}
		printf("  %s: %llu aggregated paths agree with the text\n", names[i],
		       (unsigned long long)paths);
		CHECK(paths > 0);
		free(fx_acnt);
		free(fx_atot);
		free(fx_aerr);
		/*
		 * Interrupt frames apart (the default): the same calls; those moved to
		 * a CPU's interrupt context entered there with a hardirq/softirq/NMI
		 * flag, or one level below such a call.
		 */
		{
			struct fgraph_config c2 = { .irq_inline = false };
			struct fixture *fx2 = NULL;
			struct store *st2 = NULL;
			struct fgraph *g2 = fx_build(names[i], &fx2, &st2, &c2);
			struct fgraph_stats s2;
			struct fgraph_info in, pin;
			uint64_t moved = 0;

			CHECK(g2);
			fgraph_get_stats(g2, &s2);
			CHECK_EQ_U64(s2.calls, fst.calls);
			CHECK_EQ_U64(s2.entry_missing + s2.exit_missing,
				     fst.entry_missing + fst.exit_missing);
			for (uint32_t id = 1; id < s2.nodes; id++) {
				uint32_t k = id;

				fgraph_node(g2, FGRAPH_TIMELINE, id, &in);
				if (in.kind != FGRAPH_K_CALL)
					continue;
				while (fgraph_parent(g2, FGRAPH_TIMELINE, k) != FGRAPH_ROOT)
					k = fgraph_parent(g2, FGRAPH_TIMELINE, k);
				fgraph_node(g2, FGRAPH_TIMELINE, k, &pin);
				if (pin.kind != FGRAPH_K_IRQ)
					continue;
				moved++;
				fgraph_node(g2, FGRAPH_TIMELINE, in.parent, &pin);
				CHECK((in.flags & (FGRAPH_F_HARDIRQ | FGRAPH_F_SOFTIRQ | FGRAPH_F_NMI)) ||
				      pin.kind == FGRAPH_K_CALL);
			}
			printf("  %s: %llu calls in interrupt context\n", names[i],
			       (unsigned long long)moved);
			fgraph_free(g2);
			store_free(st2);
			fixture_close(fx2);
		}
		free(x.n);
		free(text);
		fgraph_free(fg);
		store_free(st);
		fixture_close(fx);
	}
	if (!checked)
		printf("  (no rt-* function_graph fixture under %s yet)\n", fixture_root());
}

/* The funcgraph records of the fixture in @dir, in the order they are fed (time order). */
static struct ktop_event *fx_records(const char *dir, struct fgraph_config *cfg,
				     struct fixture **fx, struct store **st, int *n)
{
	struct fgraph *fg = fx_build(dir, fx, st, cfg);
	struct ktop_event e, *ev = NULL, *nev;
	struct store_iter *it;
	uint64_t seq;
	int cap = 0;

	*n = 0;
	fgraph_free(fg);
	if (!*st || !(it = store_iter_new(*st, 0, UINT64_MAX, NULL)))
		return NULL;
	while (store_iter_next(it, &e, &seq)) {
		if (e.type != KTOP_T_FGRAPH_ENTRY && e.type != KTOP_T_FGRAPH_EXIT)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 1024;
			nev = realloc(ev, sizeof(*ev) * (size_t)cap);
			if (!nev)
				break;
			ev = nev;
		}
		ev[(*n)++] = e;
	}
	store_iter_free(it);
	return ev;
}

/* The record before (@dir -1) or after (+1) @i of the same CPU and task, or -1. */
static int rec_near(const struct ktop_event *ev, int n, int i, int dir)
{
	for (int j = i + dir; j >= 0 && j < n; j += dir)
		if (ev[j].cpu == ev[i].cpu && ev[j].pid == ev[i].pid)
			return j;
	return -1;
}

/*
 * Feed @ev but record @drop (-1: none), with a lost mark in its place when
 * @mark (stamped, as the kernel does, with the next record kept on its CPU).
 * *@probe_st: the stats right after record @probe was fed (nodes - 1: its node).
 */
static struct fgraph *fx_feed(const struct fgraph_config *cfg, const struct ktop_event *ev,
			      int n, int drop, bool mark, int probe, struct fgraph_stats *probe_st)
{
	struct fgraph *fg = fgraph_new(cfg);

	for (int i = 0; fg && i < n; i++) {
		if (i == drop) {
			int j = i + 1;

			while (j < n && ev[j].cpu != ev[i].cpu)
				j++;
			if (mark && fgraph_lost(fg, ev[i].cpu, j < n ? ev[j].ts : ev[i].ts + 1, 1))
				break;
			continue;
		}
		if (fgraph_feed(fg, &ev[i]))
			break;
		if (i == probe)
			fgraph_get_stats(fg, probe_st);
	}
	return fg;
}

static uint64_t fx_overrun(struct fixture *fx, unsigned int cpu);

#define IRQ_OR_OFF	(KTOP_KF_IRQS_OFF | KTOP_KF_HARDIRQ | KTOP_KF_SOFTIRQ | KTOP_KF_NMI)

/*
 * An interrupt taken in a call's return path, found in the records alone: an
 * entry one level deeper than the exit just before it (same CPU and task).
 * 6.1 lowers the depth before it writes the exit record, so it never records
 * one; since the fgraph rework (6.11) the depth is lowered after, and 6.12
 * does. The model puts it under the frame it interrupted, with no gap. The
 * same depth jump after real losses (records of the fixture dropped) is still
 * a gap: with or without a lost mark when nothing marks it as an interrupt.
 */
TEST(fgraph_return_path_irq_vs_lost)
{
	int n_new = 0, nret_new = 0, njump = 0;
	char names[16][256];
	int n = list_rt(names, 16);

	for (int f = 0; f < n; f++) {
		struct fgraph_config cfg = { .irq_inline = true };
		int nev = 0, nret = 0, maj = 0, min = 0, k = -1, kc = -1;
		struct fixture *fx = fixture_open(names[f]);
		const char *v = fx ? fixture_meta(fx, "tracer") : NULL;
		bool graph = v && !strcmp(v, "function_graph");
		char rel[128] = "";
		struct fgraph_info in, pin;
		struct store *st = NULL;
		struct fgraph_stats fst, pst;
		struct ktop_event *ev;
		struct fgraph *fg;
		bool late;

		/* fixture_meta's value lasts until its next call */
		v = fx ? fixture_meta(fx, "release") : NULL;
		snprintf(rel, sizeof(rel), "%s", v ? v : "");
		if (!graph || sscanf(rel, "%d.%d", &maj, &min) != 2) {
			fixture_close(fx);
			continue;
		}
		fixture_close(fx);
		fx = NULL;
		late = maj > 6 || (maj == 6 && min >= 11);
		ev = fx_records(names[f], &cfg, &fx, &st, &nev);
		CHECK(ev && nev > 0);
		for (int i = 0; i < nev; i++) {
			int j = rec_near(ev, nev, i, -1);

			if (ev[i].type != KTOP_T_FGRAPH_ENTRY || j < 0 ||
			    ev[j].type != KTOP_T_FGRAPH_EXIT || ev[i].args[1] != ev[j].args[1] + 1)
				continue;
			nret++;
			/* under the frame it interrupted (inline), no gap, in both nestings */
			for (int inl = 0; inl < 2; inl++) {
				cfg.irq_inline = inl;
				memset(&pst, 0, sizeof(pst));
				fg = fx_feed(&cfg, ev, nev, -1, false, i, &pst);
				CHECK(fg);
				fgraph_get_stats(fg, &fst);
				CHECK_EQ_U64(fst.gaps, 0);
				CHECK_EQ_U64(fst.inconsistent, 0);
				CHECK(fgraph_node(fg, FGRAPH_TIMELINE, pst.nodes - 1, &in) == 0);
				CHECK(in.kind == FGRAPH_K_CALL && in.func == ev[i].args[0]);
				CHECK_EQ_U64(in.depth, ev[i].args[1]);
				CHECK(!(in.flags & FGRAPH_F_PARENT_MISSING));
				fgraph_node(fg, FGRAPH_TIMELINE, in.parent, &pin);
				if (inl && ev[j].args[1] > 0)
					CHECK(pin.kind == FGRAPH_K_CALL);
				if (pin.kind == FGRAPH_K_CALL)
					CHECK_EQ_U64(pin.depth + 2, in.depth);
				fgraph_free(fg);
			}
			/* the exit before it lost and marked: a gap */
			cfg.irq_inline = true;
			fg = fx_feed(&cfg, ev, nev, j, true, -1, NULL);
			CHECK(fg);
			fgraph_get_stats(fg, &fst);
			CHECK(fst.gaps >= 1);
			fgraph_free(fg);
		}
		printf("  %s (%s): %d entries one level deeper than the exit before them\n",
		       names[f], rel, nret);
		if (!late)
			CHECK_EQ_U64(nret, 0);
		n_new += late;
		nret_new += late ? nret : 0;

		/*
		 * A task's call entered right after a sibling returned (the window
		 * for a return-path interrupt is open), its child after it, neither
		 * with interrupts off: lose the call's entry, and its child is two
		 * levels below the open frame.
		 */
		/* (in a trace that starts mid-call the frame may be unknown: not there) */
		for (unsigned int cpu = 0; cpu < fixture_ncpus(fx); cpu++)
			if (fx_overrun(fx, cpu))
				k = nev;
		for (int i = 0; i < nev && k < 0; i++) {
			int p = rec_near(ev, nev, i, -1), c = rec_near(ev, nev, i, 1);

			if (ev[i].type == KTOP_T_FGRAPH_ENTRY && ev[i].args[1] >= 1 && p >= 0 &&
			    c >= 0 && ev[p].type == KTOP_T_FGRAPH_EXIT &&
			    ev[p].args[1] == ev[i].args[1] && ev[c].type == KTOP_T_FGRAPH_ENTRY &&
			    ev[c].args[1] == ev[i].args[1] + 1 && !(ev[i].flags & IRQ_OR_OFF) &&
			    !(ev[c].flags & IRQ_OR_OFF)) {
				k = i;
				kc = c;
			}
		}
		CHECK(k >= 0);
		for (int mark = 0; mark < 2 && k < nev; mark++) {
			cfg.irq_inline = true;
			memset(&pst, 0, sizeof(pst));
			fg = fx_feed(&cfg, ev, nev, k, mark, kc, &pst);
			CHECK(fg);
			/* the gap is there by the time the child is placed */
			CHECK(pst.gaps >= 1);
			if (!mark)
				CHECK(pst.inconsistent >= 1);
			CHECK(fgraph_node(fg, FGRAPH_TIMELINE, pst.nodes - 1, &in) == 0);
			CHECK(in.func == ev[kc].args[0] && in.depth == ev[kc].args[1]);
			/* its parent is not taken for known */
			CHECK(in.flags & FGRAPH_F_PARENT_MISSING);
			fgraph_free(fg);
		}
		njump += k < nev;
		free(ev);
		store_free(st);
		fixture_close(fx);
	}
	/* rt612-fgraph has one (record 314 of cpu1: irq_enter_rcu after __rcu_read_lock) */
	CHECK(!n_new || nret_new > 0);
	if (!njump)
		printf("  (no rt-* function_graph fixture under %s yet)\n", fixture_root());
}

/* ---- fixtures whose buffer the kernel overwrote --------------------------- */

struct fx_mark {
	unsigned int	cpu;
	size_t		page;
	uint64_t	ts;		/* the first record after the loss */
	long long	count;		/* -1: the page had no room for the count */
};

/* The missed-events marks of the raw pages, as libtraceevent's kbuffer reads them. */
static int fx_marks(struct fixture *fx, struct fx_mark *m, int max)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	int n = 0;

	for (unsigned int cpu = 0; kb && cpu < fixture_ncpus(fx); cpu++) {
		for (size_t i = 0; i < fixture_npages(fx, cpu); i++) {
			unsigned long long ts = 0;
			int missed;

			if (kbuffer_load_subbuffer(kb, fixture_page(fx, cpu, i)) < 0)
				continue;
			missed = kbuffer_missed_events(kb);
			if (!missed || !kbuffer_read_event(kb, &ts) || n == max)
				continue;
			m[n++] = (struct fx_mark){ cpu, i, ts, missed };
		}
	}
	kbuffer_free(kb);
	return n;
}

/* per_cpu/cpuN/stats "overrun:" (events the kernel overwrote), read before the pages. */
static uint64_t fx_overrun(struct fixture *fx, unsigned int cpu)
{
	char name[32], *s, *p;
	uint64_t n = 0;

	snprintf(name, sizeof(name), "stats%u", cpu);
	s = fixture_read_file(fixture_path(fx, name), NULL);
	p = s ? strstr(s, "\noverrun:") : NULL;
	if (p)
		n = strtoull(p + 9, NULL, 10);
	free(s);
	return n;
}

/* The task node above @id (or the context node: IRQ). */
static uint32_t ctx_of(struct fgraph *fg, uint32_t id)
{
	while (id != FGRAPH_NONE && fgraph_parent(fg, FGRAPH_TIMELINE, id) != FGRAPH_ROOT)
		id = fgraph_parent(fg, FGRAPH_TIMELINE, id);
	return id;
}

/* The task node of @pid (pid 0: the idle task of @cpu). */
static uint32_t task_node(struct fgraph *fg, int pid, int cpu)
{
	struct fgraph_info in;

	for (uint32_t k = fgraph_first_child(fg, FGRAPH_TIMELINE, FGRAPH_ROOT); k != FGRAPH_NONE;
	     k = fgraph_next_sibling(fg, FGRAPH_TIMELINE, k)) {
		fgraph_node(fg, FGRAPH_TIMELINE, k, &in);
		if (in.kind == FGRAPH_K_TASK && in.pid == pid && (pid || in.cpu == cpu))
			return k;
	}
	return FGRAPH_NONE;
}

/* A gap node at @ts under the context node @ctx. */
static bool has_gap_at(struct fgraph *fg, uint32_t ctx, uint64_t ts)
{
	struct fgraph_stats st;
	struct fgraph_info in;

	fgraph_get_stats(fg, &st);
	for (uint32_t id = 1; id < st.nodes; id++) {
		if (fgraph_node(fg, FGRAPH_TIMELINE, id, &in) || in.kind != FGRAPH_K_GAP)
			continue;
		if (in.start == ts && ctx_of(fg, id) == ctx)
			return true;
	}
	return false;
}

/*
 * Contexts that must show the loss @m: every task seen before it that has
 * records on the lossy CPU after it (it may have run there in the lost
 * window), in the records alone. Return: how many; -1 if one has no gap.
 */
static int check_marked(struct fgraph *fg, const struct ktop_event *ev, int nev,
			uint64_t from, const struct fx_mark *m, const char *name)
{
	int want = 0;

	for (int i = 0; i < nev; i++) {
		bool before = false, dup = false;

		if ((int)ev[i].cpu != (int)m->cpu || ev[i].ts < m->ts)
			continue;
		for (int j = 0; j < i && !dup; j++)
			dup = ev[j].pid == ev[i].pid && (int)ev[j].cpu == (int)m->cpu &&
			      ev[j].ts >= m->ts && (ev[i].pid || ev[j].cpu == ev[i].cpu);
		for (int j = 0; j < nev && !before && !dup; j++)
			before = ev[j].pid == ev[i].pid && ev[j].ts < from &&
				 (ev[i].pid || ev[j].cpu == ev[i].cpu);
		if (dup || !before)
			continue;
		want++;
		if (!has_gap_at(fg, task_node(fg, ev[i].pid, (int)ev[i].cpu), m->ts)) {
			printf("  %s: task %d ran on cpu%u before and after the loss at %llu: "
			       "no gap\n", name, ev[i].pid, m->cpu, (unsigned long long)m->ts);
			return -1;
		}
	}
	return want;
}

/*
 * Recorded with a per-CPU buffer the kernel overwrote (rt*-fgraph-lost):
 * each CPU's oldest page kept carries the kernel's missed-events mark, and
 * its records start in the middle of calls. The model counts what the
 * marks say, shows as entry-missing exactly the calls whose entry the
 * kernel's own text of the same records lacks, and finds no other hole.
 */
TEST(fgraph_overwritten_fixtures)
{
	char names[16][256];
	int n = list_rt(names, 16), lossy = 0, plain = 0;

	for (int f = 0; f < n; f++) {
		struct fgraph_config cfg = { .irq_inline = true };
		struct fx_mark marks[64];
		uint64_t overrun = 0, marked = 0, text_missing = 0, text_lost = 0, gaps = 0;
		uint64_t text_recs = 0;
		uint64_t missing_on[64] = { 0 };
		int nm, nlost_lines = 0, must = 0, nev = 0;
		struct fixture *fx = fixture_open(names[f]), *fxr = NULL;
		const char *v = fx ? fixture_meta(fx, "tracer") : NULL;
		struct fgraph_stats fst;
		struct fgraph_info in;
		struct ktop_event *ev;
		struct store *st = NULL, *str = NULL;
		struct fgraph *fg;
		struct xtree x;
		char *text;

		if (!v || strcmp(v, "function_graph")) {
			fixture_close(fx);
			continue;
		}
		for (unsigned int cpu = 0; cpu < fixture_ncpus(fx); cpu++)
			overrun += fx_overrun(fx, cpu);
		if (!overrun) {
			plain++;
			fixture_close(fx);
			continue;
		}
		lossy++;
		nm = fx_marks(fx, marks, 64);
		CHECK(nm > 0);
		/*
		 * Read after tracing stopped: all the kernel overwrote is older than
		 * each CPU's oldest page kept, so only that page carries a mark, and
		 * its count is the CPU's overrun.
		 */
		for (unsigned int cpu = 0; cpu < fixture_ncpus(fx) && cpu < 64; cpu++) {
			uint64_t sum = 0;
			bool unknown = false;

			for (int i = 0; i < nm; i++) {
				if (marks[i].cpu != cpu)
					continue;
				CHECK_EQ_U64(marks[i].page, 0);
				if (marks[i].count < 0)
					unknown = true;
				else
					sum += (uint64_t)marks[i].count;
			}
			CHECK(unknown ? sum <= fx_overrun(fx, cpu) : sum == fx_overrun(fx, cpu));
			marked += sum;
		}
		text = fixture_read_file(fixture_path(fx, "trace.txt"), NULL);
		fixture_close(fx);
		fx = NULL;
		CHECK(text);
		if (!text)
			continue;
		/* the kernel's own loss lines, if its text has any, are the marks */
		for (const char *p = strstr(text, "[LOST"); p; p = strstr(p + 1, "[LOST")) {
			const char *l = p;
			unsigned int cpu;
			unsigned long long cnt;
			bool found = false;

			while (l > text && l[-1] != '\n')
				l--;
			nlost_lines++;
			if (sscanf(l, " CPU:%u [LOST %llu EVENTS]", &cpu, &cnt) != 2)
				continue;
			text_lost += cnt;
			for (int i = 0; i < nm; i++)
				found |= marks[i].cpu == cpu && marks[i].count == (long long)cnt;
			CHECK(found);
		}
		CHECK(!nlost_lines || nlost_lines == nm);
		/* the text is of the same records: as many entries and exits (a leaf is both) */
		for (const char *p = text; *p;) {
			const char *e = strchr(p, '\n');
			size_t len = e ? (size_t)(e - p) : strlen(p);
			char line[1024];
			struct ft_rec r;

			snprintf(line, sizeof(line), "%.*s", (int)(len < 1023 ? len : 1023), p);
			p += len + (e ? 1 : 0);
			if (ft_parse_line(line, &r) != 1)
				continue;
			text_recs += r.kind == FT_LEAF ? 2 :
				     r.kind == FT_ENTRY || r.kind == FT_EXIT;
		}
		CHECK(x_parse(&x, text) == 0);
		for (int i = 0; i < x.nn; i++)
			text_missing += x.n[i].entry_missing;

		fg = fx_build(names[f], &fx, &st, &cfg);
		CHECK(fg);
		if (!fg) {
			free(x.n);
			free(text);
			store_free(st);
			fixture_close(fx);
			continue;
		}
		fgraph_get_stats(fg, &fst);
		if (getenv("FGRAPH_VERBOSE")) {
			for (int i = 0; i < nm; i++)
				printf("  mark cpu%u page %zu ts %llu count %lld\n",
				       marks[i].cpu, marks[i].page,
				       (unsigned long long)marks[i].ts, marks[i].count);
			printf("  inconsistent %llu gaps %llu\n",
			       (unsigned long long)fst.inconsistent, (unsigned long long)fst.gaps);
			for (uint32_t id = 1, k = 0; id < fst.nodes && k < 12; id++) {
				uint32_t pv;
				struct fgraph_info cin, pvin;

				fgraph_node(fg, FGRAPH_TIMELINE, id, &in);
				if (in.kind != FGRAPH_K_GAP)
					continue;
				k++;
				fgraph_node(fg, FGRAPH_TIMELINE, ctx_of(fg, id), &cin);
				pv = fgraph_prev_sibling(fg, FGRAPH_TIMELINE, id);
				if (pv != FGRAPH_NONE)
					fgraph_node(fg, FGRAPH_TIMELINE, pv, &pvin);
				printf("  gap %u at %llu count %llu in %s (pid %d), "
				       "after %s at %llu\n", id, (unsigned long long)in.start,
				       (unsigned long long)in.count,
				       cin.name, cin.pid, pv != FGRAPH_NONE ? pvin.name : "-",
				       pv != FGRAPH_NONE ? (unsigned long long)pvin.start : 0ULL);
			}
		}
		CHECK_EQ_U64(fst.lost, marked);
		CHECK_EQ_U64(fst.entries + fst.exits, text_recs);
		/* nothing else was lost: every record after the start fits its stack */
		CHECK_EQ_U64(fst.inconsistent, 0);
		/* the truncated start: the calls the text shows without an entry */
		CHECK(text_missing > 0);
		CHECK_EQ_U64(fst.entry_missing, text_missing);
		for (uint32_t id = 1; id < fst.nodes; id++) {
			bool at_mark = false;

			fgraph_node(fg, FGRAPH_TIMELINE, id, &in);
			if (in.kind == FGRAPH_K_CALL && (in.flags & FGRAPH_F_ENTRY_MISSING) &&
			    in.cpu >= 0 && in.cpu < 64)
				missing_on[in.cpu]++;
			if (in.kind != FGRAPH_K_GAP)
				continue;
			/* a gap is where a mark is, and behind something of its context */
			gaps++;
			for (int i = 0; i < nm; i++)
				at_mark |= marks[i].ts == in.start;
			CHECK(at_mark);
			CHECK(fgraph_prev_sibling(fg, FGRAPH_TIMELINE, id) != FGRAPH_NONE ||
			      fgraph_parent(fg, FGRAPH_TIMELINE, in.parent) != FGRAPH_ROOT);
		}
		CHECK_EQ_U64(gaps, fst.gaps);
		/* each CPU that lost events starts in the middle of calls */
		for (int i = 0; i < nm; i++)
			CHECK(marks[i].cpu < 64 && missing_on[marks[i].cpu] > 0);
		/* every task that may have run in a lost window shows it */
		ev = fx_records(names[f], &cfg, &fxr, &str, &nev);
		for (int i = 0; i < nm; i++) {
			int w = check_marked(fg, ev, nev, marks[i].ts, &marks[i], names[f]);

			CHECK(w >= 0);
			must += w > 0 ? w : 0;
		}
		printf("  %s: kernel overwrote %llu events; %d page marks (%llu), text: %llu "
		       "records, %d LOST lines (%llu), %llu calls without entry; model: lost %llu, "
		       "entry missing %llu, gaps %llu (%d tasks that must show one)\n", names[f],
		       (unsigned long long)overrun, nm, (unsigned long long)marked,
		       (unsigned long long)text_recs, nlost_lines,
		       (unsigned long long)text_lost, (unsigned long long)text_missing,
		       (unsigned long long)fst.lost, (unsigned long long)fst.entry_missing,
		       (unsigned long long)gaps, must);
		free(ev);
		free(x.n);
		free(text);
		fgraph_free(fg);
		store_free(st);
		store_free(str);
		fixture_close(fx);
		fixture_close(fxr);
	}
	/* the rt function_graph set includes the overwritten recordings */
	CHECK(lossy > 0 || !plain);
	if (!lossy && !plain)
		printf("  (no rt-* function_graph fixture under %s yet)\n", fixture_root());
}

/*
 * A loss before anything of its CPU (an overwritten start) against a task
 * seen on another CPU before and after it: with calltime on another clock
 * the task may have run there, and gets one gap, where the lossy CPU's
 * records start; not one at each of its records before that (which all
 * fall in the open window). With comparable calltimes and records that fit
 * their stack, none.
 */
TEST(fgraph_lead_loss_marks_once)
{
	/* pid 100 on CPU 0: f { g(); h(); } k();  CPU 1 starts at 45, pid 200 */
	static const struct {
		int cpu, pid, entry, func, depth;
		uint64_t ts, call;
	} r[] = {
		{ 0, 100, 1, 1, 0, 10, 0 }, { 0, 100, 1, 2, 1, 20, 0 }, { 0, 100, 0, 2, 1, 30, 20 },
		{ 0, 100, 1, 3, 1, 40, 0 }, { 1, 200, 1, 5, 0, 45, 0 }, { 0, 100, 0, 3, 1, 50, 40 },
		{ 1, 200, 0, 5, 0, 55, 45 }, { 0, 100, 0, 1, 0, 60, 10 },
		{ 0, 100, 1, 4, 0, 70, 0 }, { 0, 100, 0, 4, 0, 80, 70 },
	};

	for (int same = 0; same < 2; same++) {
		struct fgraph_config cfg = { .clock = same ? FGRAPH_CLOCK_SAME : FGRAPH_CLOCK_OTHER,
					     .irq_inline = true };
		struct fgraph *fg = fgraph_new(&cfg);
		struct fgraph_stats st;
		struct fgraph_info in, cin;
		int ngaps = 0;

		CHECK(fg);
		CHECK(fgraph_lost(fg, 1, 45000, 1000) == 0);
		for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
			struct ktop_event e = { 0 };

			e.ts = r[i].ts * 1000;
			e.cpu = (uint16_t)r[i].cpu;
			e.pid = r[i].pid;
			e.type = r[i].entry ? KTOP_T_FGRAPH_ENTRY : KTOP_T_FGRAPH_EXIT;
			e.nargs = r[i].entry ? 2 : 5;
			e.args[0] = (uint64_t)r[i].func;
			e.args[1] = (uint64_t)r[i].depth;
			e.args[2] = r[i].call * 1000 + (same ? 0 : 777000000);
			e.args[3] = r[i].ts * 1000 + (same ? 0 : 777000000);
			CHECK(fgraph_feed(fg, &e) == 0);
		}
		fgraph_get_stats(fg, &st);
		for (uint32_t id = 1; id < st.nodes; id++) {
			fgraph_node(fg, FGRAPH_TIMELINE, id, &in);
			if (in.kind != FGRAPH_K_GAP)
				continue;
			ngaps++;
			fgraph_node(fg, FGRAPH_TIMELINE, ctx_of(fg, id), &cin);
			CHECK_EQ_U64(in.start, 45000);
			CHECK_EQ_U64(cin.pid, 100);
		}
		if (getenv("FGRAPH_VERBOSE"))
			printf("  %s clock: %llu gaps, entry/exit missing %llu/%llu\n",
			       same ? "same" : "other", (unsigned long long)st.gaps,
			       (unsigned long long)st.entry_missing,
			       (unsigned long long)st.exit_missing);
		CHECK_EQ_U64(st.lost, 1000);
		CHECK_EQ_U64(ngaps, same ? 0 : 1);
		CHECK_EQ_U64(st.gaps, ngaps);
		if (same) {
			CHECK_EQ_U64(st.entry_missing + st.exit_missing, 0);
		} else {
			/* f and h were open across it: each closing line names its own */
			char *buf = NULL;
			size_t len = 0;
			FILE *f = open_memstream(&buf, &len);

			CHECK(f && fgraph_print(fg, f, NULL) == 0);
			fclose(f);
			CHECK(strstr(buf, "} /* sym#3: exit missing */"));
			CHECK(strstr(buf, "} /* sym#1: exit missing */"));
			free(buf);
		}
		fgraph_free(fg);
	}
}

/* Timeline calls with an entry, by (entry time, entry CPU). */
struct callkey {
	uint64_t	start;
	int		cpu;
	uint32_t	id;
};

static int callkey_cmp(const void *a, const void *b)
{
	const struct callkey *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

static struct callkey *call_keys(struct fgraph *fg, size_t *n)
{
	struct fgraph_stats st;
	struct fgraph_info in;
	struct callkey *k;

	fgraph_get_stats(fg, &st);
	k = calloc(st.nodes + 1, sizeof(*k));
	*n = 0;
	for (uint32_t id = 1; k && id < st.nodes; id++) {
		fgraph_node(fg, FGRAPH_TIMELINE, id, &in);
		if (in.kind == FGRAPH_K_CALL && !(in.flags & FGRAPH_F_ENTRY_MISSING))
			k[(*n)++] = (struct callkey){ in.start, in.cpu, id };
	}
	if (k)
		qsort(k, *n, sizeof(*k), callkey_cmp);
	return k;
}

/* Has @id a descendant call entered on @cpu strictly between @lo and @hi? */
static bool desc_entered(struct fgraph *fg, uint32_t id, int cpu, uint64_t lo, uint64_t hi)
{
	struct fgraph_info in;

	for (uint32_t k = fgraph_first_child(fg, FGRAPH_TIMELINE, id); k != FGRAPH_NONE;
	     k = fgraph_next_sibling(fg, FGRAPH_TIMELINE, k)) {
		fgraph_node(fg, FGRAPH_TIMELINE, k, &in);
		if (in.kind == FGRAPH_K_CALL && !(in.flags & FGRAPH_F_ENTRY_MISSING) &&
		    in.cpu == cpu && in.start > lo && in.start < hi)
			return true;
		if (desc_entered(fg, k, cpu, lo, hi))
			return true;
	}
	return false;
}

/* Is @a an ancestor of @id in the timeline? */
static bool is_ancestor(struct fgraph *fg, uint32_t a, uint32_t id)
{
	for (id = fgraph_parent(fg, FGRAPH_TIMELINE, id); id != FGRAPH_NONE;
	     id = fgraph_parent(fg, FGRAPH_TIMELINE, id))
		if (id == a)
			return true;
	return false;
}

/*
 * The call of @fg entered at @start on @cpu, of function @name at @depth, or
 * FGRAPH_NONE. Records of one CPU can share a time stamp (the 6.1 fixtures
 * have pages of them), so among equal ones: preferably one that took @total
 * (UINT64_MAX: any), or that is an ancestor of @below (FGRAPH_NONE: any).
 */
static uint32_t call_find(struct fgraph *fg, const struct callkey *k, size_t n, uint64_t start,
			  int cpu, const char *name, unsigned int depth, uint64_t total,
			  uint32_t below)
{
	struct callkey key = { start, cpu, 0 };
	const struct callkey *hit = bsearch(&key, k, n, sizeof(*k), callkey_cmp);
	uint32_t any = FGRAPH_NONE;
	struct fgraph_info in;

	while (hit && hit > k && !callkey_cmp(hit - 1, &key))
		hit--;
	for (; hit && hit < k + n && !callkey_cmp(hit, &key); hit++) {
		if (fgraph_node(fg, FGRAPH_TIMELINE, hit->id, &in) || in.depth != depth ||
		    strcmp(in.name, name))
			continue;
		if ((total == UINT64_MAX || in.total == total) &&
		    (below == FGRAPH_NONE || is_ancestor(fg, hit->id, below)))
			return hit->id;
		if (any == FGRAPH_NONE)
			any = hit->id;
	}
	return any;
}

/* What a call of the model with a lost page is checked against. */
struct cut_ctx {
	struct fgraph		*full;		/* the model of every record */
	const struct callkey	*keys;		/* its calls with an entry */
	size_t			nkeys;
	int			cpu;		/* the lost page's CPU */
	uint64_t		from, to;	/* its first record, the next page's */
	uint64_t		complete, spans, held;
};

/*
 * Call @id of @cut (a model fed without one page) against the same call
 * (its entry record) in the model of all the records: a complete call took
 * its true time (its exit is its own), one that a lost call ran under says
 * so (HAS_GAP), and its parent is a true ancestor, flagged unless direct.
 * A failed CHECK sets test_failed_now.
 */
static void cut_check_call(struct fgraph *cut, uint32_t id, struct cut_ctx *k)
{
	struct fgraph_info in, fin, pin;
	bool done;
	uint32_t fid, fp;

	fgraph_node(cut, FGRAPH_TIMELINE, id, &in);
	if (in.kind != FGRAPH_K_CALL || (in.flags & FGRAPH_F_ENTRY_MISSING))
		return;
	done = !(in.flags & (FGRAPH_F_EXIT_MISSING | FGRAPH_F_OPEN));
	fid = call_find(k->full, k->keys, k->nkeys, in.start, in.cpu, in.name, in.depth,
			done ? in.total : UINT64_MAX, FGRAPH_NONE);
	CHECK(fid != FGRAPH_NONE);
	fgraph_node(k->full, FGRAPH_TIMELINE, fid, &fin);
	if (done) {
		if (in.total != fin.total)
			printf("  %s at %llu: %llu ns, truly %llu\n", in.name,
			       (unsigned long long)in.start, (unsigned long long)in.total,
			       (unsigned long long)fin.total);
		CHECK_EQ_U64(in.total, fin.total);
		k->complete++;
	}
	if (done && desc_entered(k->full, fid, k->cpu, k->from, k->to)) {
		if (!(in.flags & FGRAPH_F_HAS_GAP))
			printf("  %s at %llu spans the loss, no gap flag\n", in.name,
			       (unsigned long long)in.start);
		CHECK(in.flags & FGRAPH_F_HAS_GAP);
		k->spans++;
	}
	fgraph_node(cut, FGRAPH_TIMELINE, in.parent, &pin);
	if (pin.kind != FGRAPH_K_CALL || (pin.flags & FGRAPH_F_ENTRY_MISSING))
		return;
	fp = call_find(k->full, k->keys, k->nkeys, pin.start, pin.cpu, pin.name, pin.depth,
		       UINT64_MAX, fid);
	if (fp == FGRAPH_NONE || !is_ancestor(k->full, fp, fid))
		printf("  %s at %llu under %s at %llu, not an ancestor\n", in.name,
		       (unsigned long long)in.start, pin.name, (unsigned long long)pin.start);
	CHECK(fp != FGRAPH_NONE && is_ancestor(k->full, fp, fid));
	if (fp != fin.parent)
		CHECK(in.flags & FGRAPH_F_PARENT_MISSING);
	k->held++;
}

/*
 * The function_graph fixtures, each page of a CPU in turn lost in the
 * middle (as the kernel overwrites a page a slow reader has not taken), the
 * next page marked with its count. The model of all the records (which
 * fgraph_fixtures_match_kernel_text checks against the kernel's text) is
 * the truth: no call is merged across the gap (a complete call has its true
 * duration, a parent is a true ancestor, flagged when not the direct one),
 * a call that was open while the task's records were lost carries the gap,
 * and every task with records on that CPU on both sides shows the gap.
 */
TEST(fgraph_fixture_page_lost)
{
	char names[16][256];
	int n = list_rt(names, 16), cuts = 0;

	for (int f = 0; f < n; f++) {
		struct fgraph_config cfg = { .irq_inline = true };
		struct fixture *fx = fixture_open(names[f]), *fx2 = NULL, *fxf = NULL;
		const char *v = fx ? fixture_meta(fx, "tracer") : NULL;
		struct store *st = NULL, *stf = NULL;
		struct fgraph *full;
		struct callkey *keys;
		struct ktop_event *ev;
		struct fgraph_stats fst;
		size_t nkeys;
		int nev = 0, cuts0 = cuts;

		if (!v || strcmp(v, "function_graph")) {
			fixture_close(fx);
			continue;
		}
		full = fx_build(names[f], &fxf, &stf, &cfg);	/* stf: its names */
		CHECK(full);
		fgraph_get_stats(full, &fst);
		keys = call_keys(full, &nkeys);
		ev = fx_records(names[f], &cfg, &fx2, &st, &nev);
		CHECK(ev && keys);
		for (unsigned int cpu = 0; ev && keys && cpu < fixture_ncpus(fx); cpu++) {
			for (size_t pg = 1; pg + 1 < fixture_npages(fx, cpu); pg++) {
				struct fx_mark m = { cpu, pg + 1, 0, 0 };
				struct fixture *fx3 = NULL;
				struct store *st3 = NULL;
				struct fgraph_stats cs;
				struct cut_ctx ck;
				uint64_t from;
				struct fgraph *cut;
				int want;

				m.count = page_records(fx, cpu, pg, &from);
				ck = (struct cut_ctx){ .full = full, .keys = keys, .nkeys = nkeys,
						       .cpu = (int)cpu, .from = from };
				cut = fx_build_skip(names[f], &fx3, &st3, &cfg, cpu, (long)pg,
						    &m.ts);
				CHECK(cut);
				if (m.ts <= from) {
					/* the pages share a time stamp: no time tells them apart */
					fgraph_free(cut);
					store_free(st3);
					fixture_close(fx3);
					continue;
				}
				cuts++;
				fgraph_get_stats(cut, &cs);
				CHECK_EQ_U64(cs.lost, fst.lost + (uint64_t)m.count);
				CHECK(cs.gaps >= 1);
				want = check_marked(cut, ev, nev, from, &m, names[f]);
				CHECK(want > 0);
				ck.to = m.ts;
				for (uint32_t id = 1; id < cs.nodes; id++) {
					cut_check_call(cut, id, &ck);
					if (test_failed_now) {
						printf("  %s: cpu%u page %zu lost\n", names[f], cpu,
						       pg);
						return;
					}
				}
				if (getenv("FGRAPH_VERBOSE"))
					printf("  %s cpu%u page %zu: %lld lost, gaps %llu in %d "
					       "tasks, %llu complete calls as true, %llu spanning, "
					       "%llu parents held\n", names[f], cpu, pg, m.count,
					       (unsigned long long)cs.gaps, want,
					       (unsigned long long)ck.complete,
					       (unsigned long long)ck.spans,
					       (unsigned long long)ck.held);
				fgraph_free(cut);
				store_free(st3);
				fixture_close(fx3);
			}
		}
		printf("  %s: %d pages lost in turn, none merged across\n", names[f], cuts - cuts0);
		free(keys);
		free(ev);
		fgraph_free(full);
		store_free(stf);
		store_free(st);
		fixture_close(fxf);
		fixture_close(fx2);
		fixture_close(fx);
	}
	if (!cuts)
		printf("  (no rt-* function_graph fixture under %s yet)\n", fixture_root());
}

/* ---- views, navigation, text --------------------------------------------- */

static const char *test_name(void *ctx, uint32_t sym)
{
	static char buf[8][32];
	static int i;

	(void)ctx;
	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "fn_%u", sym);
	return buf[i];
}

/* The aggregated view equals a plain path-keyed sum of the truth. */
TEST(fgraph_aggregate_matches_truth)
{
	gen_run(&G, 7, 3, 2, 30000, true);
	struct fgraph_config cfg = { .name = test_name };
	struct fgraph *fg = fgraph_new(&cfg);
	struct fgraph_info in;
	long n;

	for (int i = 0; i < G.nev; i++)
		CHECK(fgraph_feed(fg, &G.ev[i]) == 0);
	CHECK(cmp_all(fg, false, 3, 2) == 0);
	/* for each aggregated call node, recompute from the truth nodes mapped to it */
	n = fgraph_rows(fg, FGRAPH_AGG, FGRAPH_ROOT, FGRAPH_SORT_ORDER, NULL, NULL, NULL, 0);
	CHECK(n > 0);
	struct fgraph_row *rows = malloc(sizeof(*rows) * (size_t)n);

	CHECK(fgraph_rows(fg, FGRAPH_AGG, FGRAPH_ROOT, FGRAPH_SORT_ORDER, NULL, NULL, rows,
			  (size_t)n) == n);
	uint64_t sumcount = 0;
	struct fgraph_stats st;

	fgraph_get_stats(fg, &st);
	uint64_t *acnt = calloc(st.agg_nodes, 8), *atot = calloc(st.agg_nodes, 8);
	uint64_t *aself = calloc(st.agg_nodes, 8), *amax = calloc(st.agg_nodes, 8);
	uint64_t *ct = calloc((size_t)G.nn, 8);

	for (int i = 0; i < G.nn; i++)
		if (G.n[i].parent >= 0)
			ct[G.n[i].parent] += G.n[i].end - G.n[i].start;
	for (int i = 0; i < G.nn; i++) {
		uint32_t a = fgraph_agg_of(fg, (uint32_t)t2m[i]);
		uint64_t d = G.n[i].end - G.n[i].start;

		CHECK(a < st.agg_nodes);
		acnt[a]++;
		atot[a] += d;
		aself[a] += d - ct[i];
		if (d > amax[a])
			amax[a] = d;
	}
	for (long r = 0; r < n; r++) {
		fgraph_node(fg, FGRAPH_AGG, rows[r].id, &in);
		if (in.kind != FGRAPH_K_CALL)
			continue;
		CHECK_EQ_U64(in.count, acnt[rows[r].id]);
		CHECK_EQ_U64(in.total, atot[rows[r].id]);
		CHECK_EQ_U64(in.self, aself[rows[r].id]);
		CHECK_EQ_U64(in.max, amax[rows[r].id]);
		sumcount += in.count;
	}
	CHECK_EQ_U64(sumcount, G.nn);
	free(acnt);
	free(atot);
	free(aself);
	free(amax);
	free(ct);
	/* paths: an aggregated child's function differs from its siblings' */
	for (long r = 0; r < n; r++) {
		uint32_t a = rows[r].id, b;

		for (b = fgraph_next_sibling(fg, FGRAPH_AGG, a); b != FGRAPH_NONE;
		     b = fgraph_next_sibling(fg, FGRAPH_AGG, b)) {
			struct fgraph_info ia, ib;

			fgraph_node(fg, FGRAPH_AGG, a, &ia);
			fgraph_node(fg, FGRAPH_AGG, b, &ib);
			CHECK(ia.kind != ib.kind || ia.func != ib.func || ia.kind != FGRAPH_K_CALL);
		}
	}
	free(rows);
	fgraph_free(fg);
}

struct foldset {
	uint32_t	*ids;
	int		n;
};

static bool is_folded(void *ctx, uint32_t id)
{
	struct foldset *f = ctx;

	for (int i = 0; i < f->n; i++)
		if (f->ids[i] == id)
			return true;
	return false;
}

/* Count the descendants of @id by plain recursion. */
static long count_desc(struct fgraph *fg, enum fgraph_view v, uint32_t id)
{
	long n = 0;

	for (uint32_t k = fgraph_first_child(fg, v, id); k != FGRAPH_NONE;
	     k = fgraph_next_sibling(fg, v, k))
		n += 1 + count_desc(fg, v, k);
	return n;
}

TEST(fgraph_rows_fold_sort_find)
{
	gen_run(&G, 3, 2, 2, 8000, true);
	struct fgraph_config cfg = { .name = test_name };
	struct fgraph *fg = fgraph_new(&cfg);
	struct fgraph_stats st;
	struct fgraph_info in;
	uint32_t fold[4];
	struct foldset fs = { fold, 0 };

	for (int i = 0; i < G.nev; i++)
		CHECK(fgraph_feed(fg, &G.ev[i]) == 0);
	fgraph_get_stats(fg, &st);
	long all = fgraph_rows(fg, FGRAPH_TIMELINE, FGRAPH_ROOT, FGRAPH_SORT_ORDER, NULL, NULL,
			       NULL, 0);

	CHECK_EQ_U64(all, st.nodes - 1);
	CHECK_EQ_U64(all, count_desc(fg, FGRAPH_TIMELINE, FGRAPH_ROOT));
	/* fold the call with the most descendants: rows drop by exactly that many */
	uint32_t big = FGRAPH_NONE;
	long bigd = -1;

	for (uint32_t id = 1; id < st.nodes; id++) {
		fgraph_node(fg, FGRAPH_TIMELINE, id, &in);
		if (in.kind != FGRAPH_K_CALL)
			continue;
		long d = count_desc(fg, FGRAPH_TIMELINE, id);

		if (d > bigd) {
			bigd = d;
			big = id;
		}
	}
	CHECK(big != FGRAPH_NONE && bigd > 0);
	fold[fs.n++] = big;
	for (int s = FGRAPH_SORT_ORDER; s <= FGRAPH_SORT_NAME; s++) {
		long n = fgraph_rows(fg, FGRAPH_TIMELINE, FGRAPH_ROOT, (enum fgraph_sort)s,
				     is_folded, &fs, NULL, 0);

		CHECK_EQ_U64(n, all - bigd);
	}
	/* sorted rows: siblings in descending total; levels consistent with parents */
	long n = fgraph_rows(fg, FGRAPH_TIMELINE, FGRAPH_ROOT, FGRAPH_SORT_TOTAL, NULL, NULL,
			     NULL, 0);
	struct fgraph_row *rows = malloc(sizeof(*rows) * (size_t)n);

	CHECK(fgraph_rows(fg, FGRAPH_TIMELINE, FGRAPH_ROOT, FGRAPH_SORT_TOTAL, NULL, NULL, rows,
			  (size_t)n) == n);
	for (long r = 1; r < n; r++) {
		struct fgraph_info a, b;

		fgraph_node(fg, FGRAPH_TIMELINE, rows[r].id, &b);
		CHECK(rows[r].level <= rows[r - 1].level + 1);
		if (rows[r].level == rows[r - 1].level + 1)
			CHECK(b.parent == rows[r - 1].id);
		if (rows[r].level == rows[r - 1].level) {
			fgraph_node(fg, FGRAPH_TIMELINE, rows[r - 1].id, &a);
			CHECK(a.parent == b.parent);
			CHECK(a.total >= b.total);
		}
	}
	free(rows);
	/* longest child, siblings, parent */
	uint32_t lc = fgraph_longest_child(fg, FGRAPH_TIMELINE, big);

	CHECK(lc != FGRAPH_NONE);
	fgraph_node(fg, FGRAPH_TIMELINE, lc, &in);
	uint64_t best = in.total;

	for (uint32_t k = fgraph_first_child(fg, FGRAPH_TIMELINE, big); k != FGRAPH_NONE;
	     k = fgraph_next_sibling(fg, FGRAPH_TIMELINE, k)) {
		struct fgraph_info kk;

		fgraph_node(fg, FGRAPH_TIMELINE, k, &kk);
		CHECK(kk.total <= best);
		CHECK(fgraph_parent(fg, FGRAPH_TIMELINE, k) == big);
		if (fgraph_next_sibling(fg, FGRAPH_TIMELINE, k) != FGRAPH_NONE)
			CHECK(fgraph_prev_sibling(fg, FGRAPH_TIMELINE,
						  fgraph_next_sibling(fg, FGRAPH_TIMELINE, k)) == k);
	}
	/* search: every hit has the name, and walking all hits finds them all */
	int hits = 0, want = 0;

	for (int i = 0; i < G.nn; i++)
		want += G.n[i].func == 17;
	uint32_t h = FGRAPH_NONE, first = FGRAPH_NONE;

	for (;;) {
		h = fgraph_find(fg, FGRAPH_TIMELINE, h, "fn_17", false);
		if (h == FGRAPH_NONE || h == first)
			break;
		if (first == FGRAPH_NONE)
			first = h;
		fgraph_node(fg, FGRAPH_TIMELINE, h, &in);
		CHECK(in.func == 17);
		hits++;
		CHECK(hits <= want);
	}
	CHECK_EQ_U64(hits, want);
	/* backward from the first hit wraps to the last one */
	h = fgraph_find(fg, FGRAPH_TIMELINE, first, "fn_17", true);
	CHECK(h != FGRAPH_NONE && h != first);
	CHECK(fgraph_find(fg, FGRAPH_TIMELINE, FGRAPH_NONE, "no_such_fn", false) == FGRAPH_NONE);
	/* aggregated view search */
	h = fgraph_find(fg, FGRAPH_AGG, FGRAPH_NONE, "fn_17", false);
	CHECK(h != FGRAPH_NONE);
	fgraph_node(fg, FGRAPH_AGG, h, &in);
	CHECK(in.func == 17);
	fgraph_free(fg);
}

/* Ids survive live updates: rows computed before more records arrive keep their ids. */
TEST(fgraph_ids_stable_while_feeding)
{
	gen_run(&G, 9, 3, 2, 10000, true);
	struct fgraph *fg = fgraph_new(NULL);
	struct fgraph_info a, b;

	for (int i = 0; i < G.nev / 2; i++)
		CHECK(fgraph_feed(fg, &G.ev[i]) == 0);
	long n = fgraph_rows(fg, FGRAPH_TIMELINE, FGRAPH_ROOT, FGRAPH_SORT_ORDER, NULL, NULL,
			     NULL, 0);
	struct fgraph_row *rows = malloc(sizeof(*rows) * (size_t)n);
	struct fgraph_info *before = malloc(sizeof(*before) * (size_t)n);

	fgraph_rows(fg, FGRAPH_TIMELINE, FGRAPH_ROOT, FGRAPH_SORT_ORDER, NULL, NULL, rows,
		    (size_t)n);
	for (long r = 0; r < n; r++)
		fgraph_node(fg, FGRAPH_TIMELINE, rows[r].id, &before[r]);
	for (int i = G.nev / 2; i < G.nev; i++)
		CHECK(fgraph_feed(fg, &G.ev[i]) == 0);
	for (long r = 0; r < n; r++) {
		fgraph_node(fg, FGRAPH_TIMELINE, rows[r].id, &b);
		a = before[r];
		CHECK(a.kind == b.kind && a.func == b.func && a.start == b.start &&
		      a.parent == b.parent);
	}
	free(rows);
	free(before);
	fgraph_free(fg);
}

/* One context for all tasks, one for all interrupts: the same calls, merged. */
TEST(fgraph_aggregate_merged_contexts)
{
	gen_run(&G, 13, 4, 3, 20000, true);
	struct fgraph_config c1 = { 0 }, c2 = { .agg_merge_tasks = true };
	struct fgraph *a = fgraph_new(&c1), *b = fgraph_new(&c2);
	struct fgraph_info in;
	uint64_t ca = 0, cb = 0;
	int nctx = 0;

	for (int i = 0; i < G.nev; i++) {
		CHECK(fgraph_feed(a, &G.ev[i]) == 0);
		CHECK(fgraph_feed(b, &G.ev[i]) == 0);
	}
	CHECK(check_agg(a) == 0);
	CHECK(check_agg(b) == 0);
	for (uint32_t k = fgraph_first_child(b, FGRAPH_AGG, FGRAPH_ROOT); k != FGRAPH_NONE;
	     k = fgraph_next_sibling(b, FGRAPH_AGG, k)) {
		fgraph_node(b, FGRAPH_AGG, k, &in);
		CHECK(in.kind == FGRAPH_K_TASK || in.kind == FGRAPH_K_IRQ);
		nctx++;
	}
	CHECK_EQ_U64(nctx, 2);
	long na = fgraph_rows(a, FGRAPH_AGG, FGRAPH_ROOT, FGRAPH_SORT_ORDER, NULL, NULL, NULL, 0);
	long nb = fgraph_rows(b, FGRAPH_AGG, FGRAPH_ROOT, FGRAPH_SORT_ORDER, NULL, NULL, NULL, 0);
	struct fgraph_row *ra = malloc(sizeof(*ra) * (size_t)na), *rb = malloc(sizeof(*rb) * (size_t)nb);

	fgraph_rows(a, FGRAPH_AGG, FGRAPH_ROOT, FGRAPH_SORT_ORDER, NULL, NULL, ra, (size_t)na);
	fgraph_rows(b, FGRAPH_AGG, FGRAPH_ROOT, FGRAPH_SORT_ORDER, NULL, NULL, rb, (size_t)nb);
	for (long r = 0; r < na; r++)
		ca += (fgraph_node(a, FGRAPH_AGG, ra[r].id, &in), in.count * (in.kind == FGRAPH_K_CALL));
	for (long r = 0; r < nb; r++)
		cb += (fgraph_node(b, FGRAPH_AGG, rb[r].id, &in), in.count * (in.kind == FGRAPH_K_CALL));
	CHECK_EQ_U64(ca, cb);
	CHECK(nb < na);
	/* reset: empty, and the same again when fed again */
	fgraph_reset(b);
	CHECK(fgraph_rows(b, FGRAPH_AGG, FGRAPH_ROOT, FGRAPH_SORT_ORDER, NULL, NULL, NULL, 0) == 0);
	for (int i = 0; i < G.nev; i++)
		CHECK(fgraph_feed(b, &G.ev[i]) == 0);
	CHECK_EQ_U64(fgraph_rows(b, FGRAPH_AGG, FGRAPH_ROOT, FGRAPH_SORT_ORDER, NULL, NULL, NULL, 0),
		     nb);
	free(ra);
	free(rb);
	fgraph_free(a);
	fgraph_free(b);
}

TEST(fgraph_depth_overflow)
{
	gen_run(&G, 11, 2, 1, 20000, true);
	struct fgraph_config cfg = { .max_depth = 6 };
	struct fgraph *fg = fgraph_new(&cfg);
	struct fgraph_stats st;
	struct fgraph_info in;
	uint64_t deep = 0, over = 0;

	for (int i = 0; i < G.nev; i++) {
		CHECK(fgraph_feed(fg, &G.ev[i]) == 0);
		deep += G.ev[i].args[1] >= 6;
	}
	fgraph_get_stats(fg, &st);
	CHECK(deep > 0);
	CHECK_EQ_U64(st.overflow, deep);
	CHECK(st.max_depth_seen < 6);
	for (uint32_t id = 1; id < st.nodes; id++) {
		fgraph_node(fg, FGRAPH_TIMELINE, id, &in);
		over += in.overflow;
		if (in.overflow)
			CHECK(in.flags & FGRAPH_F_DEPTH_OVERFLOW);
	}
	CHECK(over > 0);
	CHECK_EQ_U64(st.entry_missing + st.exit_missing, 0);
	fgraph_free(fg);
}

TEST(fgraph_marks_and_durations)
{
	char b[40];

	CHECK(fgraph_mark(10000) == ' ');
	CHECK(fgraph_mark(10001) == '+');
	CHECK(fgraph_mark(100001) == '!');
	CHECK(fgraph_mark(1000001) == '#');
	CHECK(fgraph_mark(10000001) == '*');
	CHECK(fgraph_mark(100000001) == '@');
	CHECK(fgraph_mark(1000000001) == '$');
	/* the column is 12 wide: "N.NNN us" plus padding, as the kernel pads it */
	fgraph_fmt_duration(b, sizeof(b), 451);
	CHECK_EQ_U64(strlen(b), 12);
	uint64_t ns, unit;

	for (uint64_t v = 1; v < 20000000000ull; v = v * 7 + 3) {
		fgraph_fmt_duration(b, sizeof(b), v);
		CHECK(ft_parse_dur(b, b + strlen(b), &ns, &unit));
		CHECK(ns <= v && v - ns < unit);
	}
}

/*
 * The printed timeline, read back by the kernel-text parser, is the model
 * again; a call deeper than one level below its parent call (6.12: an
 * interrupt in a return path) is indented by its depth, as the kernel does.
 */
TEST(fgraph_print_reads_back)
{
	g_ret_irq = true;
	gen_run(&G, 5, 2, 2, 6000, false);
	g_ret_irq = false;
	for (int inl = 0; inl < 2; inl++) {
		struct fgraph_config cfg = { .name = test_name, .irq_inline = inl };
		struct fgraph *fg = fgraph_new(&cfg);
		struct fgraph_print_opts po = { .view = FGRAPH_TIMELINE, .top = FGRAPH_ROOT };
		char *buf = NULL, line[512];
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		struct ft_rec r;

		for (int i = 300; i < G.nev; i++)	/* a truncated start too */
			CHECK(fgraph_feed(fg, &G.ev[i]) == 0);
		CHECK(fgraph_print(fg, f, &po) == 0);
		fclose(f);
		/* walk the model in pre-order alongside the parsed lines */
		long n = fgraph_rows(fg, FGRAPH_TIMELINE, FGRAPH_ROOT, FGRAPH_SORT_ORDER, NULL,
				     NULL, NULL, 0);
		struct fgraph_row *rows = malloc(sizeof(*rows) * (size_t)n);
		struct fgraph_stats st;

		fgraph_get_stats(fg, &st);
		/* indentation of each call: its parent call's plus its depth below it */
		unsigned int *ind = calloc(st.nodes, sizeof(*ind));

		fgraph_rows(fg, FGRAPH_TIMELINE, FGRAPH_ROOT, FGRAPH_SORT_ORDER, NULL, NULL, rows,
			    (size_t)n);
		FILE *in = fmemopen(buf, len, "r");
		long ri = 0, closes = 0, opens = 0, leaves = 0, deeper = 0;
		uint32_t stack[256];
		int sp = 0;

		while (fgets(line, sizeof(line), in)) {
			struct fgraph_info ni, pi;

			if (ft_parse_line(line, &r) != 1)
				continue;
			if (r.kind == FT_CTX) {
				while (ri < n &&
				       (fgraph_node(fg, FGRAPH_TIMELINE, rows[ri].id, &ni), 1) &&
				       ni.kind != FGRAPH_K_TASK && ni.kind != FGRAPH_K_IRQ)
					ri++;
				CHECK(ri < n);
				CHECK_STR(r.label, ni.name);
				ri++;
				CHECK(sp == 0);
				continue;
			}
			if (r.kind == FT_EXIT) {
				CHECK(sp > 0);
				fgraph_node(fg, FGRAPH_TIMELINE, stack[--sp], &ni);
				CHECK_EQ_U64(r.indent, ind[stack[sp]]);
				if (!(ni.flags & (FGRAPH_F_OPEN | FGRAPH_F_EXIT_MISSING))) {
					CHECK(r.has_dur);
					CHECK(ni.total >= r.dur && ni.total - r.dur < r.dur_unit);
					CHECK(r.mark == fgraph_mark(ni.total));
				} else {
					CHECK(!r.has_dur);
				}
				closes++;
				continue;
			}
			while (ri < n && (fgraph_node(fg, FGRAPH_TIMELINE, rows[ri].id, &ni), 1) &&
			       ni.kind == FGRAPH_K_GAP)
				ri++;
			CHECK(ri < n);
			CHECK_STR(r.func, ni.name);
			fgraph_node(fg, FGRAPH_TIMELINE, ni.parent, &pi);
			if (pi.kind == FGRAPH_K_CALL)
				ind[ni.id] = ind[pi.id] +
					     (ni.depth > pi.depth ? ni.depth - pi.depth : 1);
			deeper += ind[ni.id] != rows[ri].level - 1;
			CHECK_EQ_U64(r.indent, ind[ni.id]);
			CHECK_EQ_U64(r.cpu, ni.cpu);
			if (r.kind == FT_LEAF) {
				CHECK(ni.nchildren == 0);
				CHECK(r.has_dur && ni.total >= r.dur &&
				      ni.total - r.dur < r.dur_unit);
				leaves++;
			} else {
				stack[sp++] = rows[ri].id;
				opens++;
			}
			ri++;
		}
		CHECK(sp == 0);
		CHECK_EQ_U64(opens, closes);
		CHECK(leaves > 0 && opens > 0);
		/* inline, interrupts taken in return paths sit deeper under the task's calls */
		CHECK(!inl || deeper > 0);
		fclose(in);
		free(buf);
		free(rows);
		free(ind);
		fgraph_free(fg);
	}
}

TEST_MAIN()
