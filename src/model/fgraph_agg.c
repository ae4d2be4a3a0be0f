// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The function_graph model's aggregated view (see fgraph.c): nodes keyed by
 * (parent, function, kind, CPU), brought up to date from the timeline when
 * read, rebuilt from it after an adoption changed paths.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fgraph-local.h"

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
	if (fgraph_grow((void **)&g->a, &g->capa, g->na + 1, sizeof(*g->a)))
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

	if (fgraph_grow((void **)&g->amap, &g->capamap, id + 1, sizeof(*g->amap)))
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
void fgraph_agg_sync(struct fgraph *g)
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
void fgraph_agg_pending(struct fgraph *g, uint32_t id)
{
	if (g->agg_dirty)
		return;
	if (fgraph_grow((void **)&g->pending, &g->cappending, g->npending + 1, sizeof(*g->pending))) {
		g->agg_dirty = true;	/* cannot queue: recompute everything later */
		return;
	}
	g->pending[g->npending++] = id;
}

/* The aggregated root, and an empty hash. Return: 0 or -ENOMEM. */
int fgraph_agg_init(struct fgraph *g)
{
	uint32_t i;

	if (fgraph_grow((void **)&g->a, &g->capa, 1, sizeof(*g->a)))
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
	return 0;
}
