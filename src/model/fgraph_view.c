// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reading the function_graph model (see fgraph.h): node figures and names,
 * tree walks, search and the visible rows of either view.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgraph-local.h"

const char *fgraph_sym_name(struct fgraph *g, uint32_t sym, char *buf, size_t len)
{
	const char *s = g->cfg.name ? g->cfg.name(g->cfg.name_ctx, sym) : NULL;

	if (s && *s)
		return s;
	snprintf(buf, len, "sym#%u", sym);
	return buf;
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
	fgraph_agg_sync(g);
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
		fgraph_agg_sync(g);
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
			o->name = fgraph_sym_name(g, a->func, g->namebuf, sizeof(g->namebuf));
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
			o->name = fgraph_sym_name(g, x->func, g->namebuf, sizeof(g->namebuf));
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
			return strstr(fgraph_sym_name(g, sym, buf, sizeof(buf)), needle) != NULL;
		memset(m + g->nmatch, 0, n - g->nmatch);
		g->match = m;
		g->nmatch = n;
	}
	if (!g->match[sym])
		g->match[sym] = strstr(fgraph_sym_name(g, sym, buf, sizeof(buf)), needle) ? 1 : 2;
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
		fgraph_agg_sync(g);
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
	return fgraph_sym_name(g, sc->v == FGRAPH_AGG ? g->a[id].func : g->n[id].func, buf, len);
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
		fgraph_agg_sync(g);
	if (!valid(g, v, top))
		return 0;
	if (sort == FGRAPH_SORT_ORDER)
		return rows_ordered(g, v, top, folded, ctx, out, max);
	return rows_sorted(g, v, top, sort, folded, ctx, out, max);
}
