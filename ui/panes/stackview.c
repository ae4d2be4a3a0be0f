// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The stacks pane's model (stackview.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "lib/clock.h"
#include "lib/intern.h"
#include "store/store.h"
#include "tracer_feed.h"
#include "view/viewfilter.h"
#include "stackview.h"
#include "ui-local.h"

#define SV_LAG_NS	(300ull * 1000 * 1000)	/* a live feed ends this far behind now */
#define SV_FEED_NS	(20ull * 1000 * 1000)	/* feeding a frame, at most about */
#define SV_REBUILD_NS	(1000ull * 1000 * 1000)	/* a new set while counts change, at most */

void sv_init(struct stackview *sv)
{
	memset(sv, 0, sizeof(*sv));
	sv->scope.type = -1;
	sv->slice = 10000000;
}

static void sv_drop_set(struct stackview *sv)
{
	for (int d = 0; d < 2; d++) {
		stack_tree_free(sv->tree[d]);
		sv->tree[d] = NULL;
	}
	stack_set_free(&sv->set);
}

void sv_destroy(struct stackview *sv)
{
	sv_drop_set(sv);
	free(sv->count);
	sv->count = NULL;
	sv->ncount = 0;
}

void sv_set_scope(struct stackview *sv, const struct sv_scope *sc)
{
	struct sv_scope keep = *sc;
	uint64_t gen = sv->gen;

	sv_destroy(sv);
	sv_init(sv);
	sv->scope = keep;
	/* on from the last one: a pane caches its rows by it, whatever the scope */
	sv->gen = gen + 1;
	sv->changed = true;
}

const char *sv_source_name(enum sv_source src)
{
	static const char *const names[SV_SRC_NR] = {
		[SV_SRC_EVENTS] = "event stacks", [SV_SRC_OFFCPU] = "off-CPU stacks (BPF)",
		[SV_SRC_GRAPH] = "function_graph paths",
	};

	return src < SV_SRC_NR ? names[src] : "?";
}

int sv_feed(struct stackview *sv, struct store *st, struct viewfilter *vf, uint64_t t1)
{
	struct stack_query q;
	struct stack_set win;
	int ret;

	if (t1 < sv->next_t)
		return 0;
	stack_query_all(&q);
	q.t0 = sv->next_t;
	q.t1 = t1;
	q.type = sv->scope.type;
	q.func = sv->scope.func;
	viewfilter_stack_query(vf, &q);
	ret = stack_set_from_store(st, &q, &win);
	if (ret)
		return ret;
	sv->next_t = t1 + 1;
	sv->without += win.without;
	for (size_t i = 0; i < win.n; i++) {
		uint32_t id = win.v[i].stack;

		if (id >= sv->ncount) {
			uint32_t n = id + 1024;
			uint64_t *c = realloc(sv->count, n * sizeof(*c));

			if (!c) {
				stack_set_free(&win);
				return -ENOMEM;
			}
			memset(c + sv->ncount, 0, (n - sv->ncount) * sizeof(*c));
			sv->count = c;
			sv->ncount = n;
		}
		sv->count[id] += win.v[i].count;
		sv->events += win.v[i].count;
		sv->changed = true;
	}
	stack_set_free(&win);
	return 0;
}

/* By count, descending, then by id: the order stack_set_from_store() gives. */
static int weight_cmp(const void *x, const void *y)
{
	const struct stack_weight *a = x, *b = y;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return a->stack < b->stack ? -1 : a->stack > b->stack;
}

/* The set of the events counted. Return: 0 or -ENOMEM. */
static int set_of_counts(struct stackview *sv, struct stack_set *out)
{
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	for (uint32_t id = 1; id < sv->ncount; id++)
		n += sv->count[id] != 0;
	out->v = calloc(n ? n : 1, sizeof(*out->v));
	if (!out->v)
		return -ENOMEM;
	for (uint32_t id = 1; id < sv->ncount; id++) {
		if (!sv->count[id])
			continue;
		out->v[out->n++] = (struct stack_weight){
			.stack = id, .pid = -1, .count = sv->count[id], .value = sv->count[id],
		};
		out->count += sv->count[id];
	}
	out->value = out->count;
	out->without = sv->without;
	qsort(out->v, out->n, sizeof(*out->v), weight_cmp);
	return 0;
}

int sv_make_set(struct stackview *sv, struct store *st, struct fgraph *g, struct viewfilter *vf,
		uint64_t now)
{
	struct stack_set set = { 0 };
	struct stack_query q;
	int ret = 0;

	switch (sv->scope.src) {
	case SV_SRC_EVENTS:
		ret = set_of_counts(sv, &set);
		break;
	case SV_SRC_OFFCPU:
		stack_query_all(&q);
		q.pid = sv->scope.pid;
		viewfilter_stack_query(vf, &q);
		ret = stack_set_from_offcpu(st, false, &q, &set);
		break;
	case SV_SRC_GRAPH:
		if (g)
			ret = stack_set_from_fgraph(st, g, sv->scope.func, true, &set);
		break;
	default:
		break;
	}
	sv->err = ret;
	if (ret)
		return ret;
	sv_drop_set(sv);
	sv->set = set;
	sv->value = sv->scope.src != SV_SRC_EVENTS;
	sv->changed = false;
	sv->built_ns = now;
	sv->gen++;
	return 0;
}

const struct stack_tree *sv_tree(struct stackview *sv, struct store *st, enum stack_tree_dir dir)
{
	if (!sv->tree[dir] && sv->set.n)
		sv->tree[dir] = stack_tree_build(st, &sv->set, dir);
	return sv->tree[dir];
}

static int sv_feed_slice(struct ui *ui, void *ctx, uint64_t t0, uint64_t t1)
{
	(void)t0;	/* sv_feed() reads on from sv->next_t */
	return sv_feed(ctx, ui->st, ui_view(ui), t1);
}

/* Feed the events published since the last frame, in time slices within the budget. */
static void sv_feed_frame(struct ui *ui, struct stackview *sv)
{
	uint64_t t1 = ui_feed_window_end(ui, SV_LAG_NS), t_in = clock_thread_ns();

	if (sv->view_gen != ui_view_gen(ui)) {
		/* another view: count again what it matches, from the oldest event held */
		struct sv_scope sc = sv->scope;

		sv_set_scope(sv, &sc);
		sv->view_gen = ui_view_gen(ui);
	}
	if (!t1 || (ui->paused && sv->built_ns))
		return;
	if (ui_feed_slices(ui, &sv->next_t, t1, &sv->slice, t_in, SV_FEED_NS, sv_feed_slice, sv))
		sv->err = -ENOMEM;
}

bool sv_update(struct ui *ui, struct stackview *sv)
{
	uint64_t now = clock_mono_ns();
	bool due = !sv->built_ns || now - sv->built_ns >= SV_REBUILD_NS;

	switch (sv->scope.src) {
	case SV_SRC_EVENTS:
		sv_feed_frame(ui, sv);
		if (!sv->changed || !due)
			return false;
		break;
	case SV_SRC_OFFCPU:
		if (sv->view_gen != ui_view_gen(ui)) {
			/* another view: its tasks' totals, now */
			sv->view_gen = ui_view_gen(ui);
			due = true;
		} else if (!due || (ui->paused && sv->built_ns)) {
			return false;
		}
		app_offcpu_poll(ui->app);	/* -ENODEV without --offcpu: the store's, from a file */
		break;
	case SV_SRC_GRAPH:
		if (!due || (ui->paused && sv->built_ns))
			return false;
		break;
	default:
		return false;
	}
	if (sv->scope.src == SV_SRC_GRAPH)
		ui_fgraph_feed(ui);
	return !sv_make_set(sv, ui->st, sv->scope.src == SV_SRC_GRAPH ? ui_fgraph(ui) : NULL,
			    ui_view(ui), now);
}

/* ---- paths ------------------------------------------------------------------------ */

void sv_path_of(const struct stack_tree *t, uint32_t id, struct sv_path *p)
{
	const struct stack_node *nd = stack_tree_node(t, id);
	uint32_t d = nd ? nd->depth : 0;

	p->n = d < SV_PATH_MAX ? d : SV_PATH_MAX;
	for (; nd && nd->depth; nd = stack_tree_node(t, nd->parent))
		if (nd->depth <= p->n)
			p->name[nd->depth - 1] = nd->name;
}

uint32_t sv_path_find(const struct stack_tree *t, const struct sv_path *p, uint32_t *depth)
{
	uint32_t id = 0, d = 0;

	while (d < p->n) {
		uint32_t c = stack_tree_child(t, id, p->name[d]);

		if (c == STACK_TREE_NONE)
			break;
		id = c;
		d++;
	}
	if (depth)
		*depth = d;
	return id;
}

void sv_path_of_stack(struct store *st, uint32_t id, enum stack_tree_dir dir, struct sv_path *p)
{
	uint32_t names[SV_PATH_MAX];
	int n = stacks_shown_names(store_stacks(st), id, names, SV_PATH_MAX, NULL);

	if (n < 0)
		n = 0;
	/* the trees merge at most SV_PATH_MAX - 1 frames of a stack */
	if (n > SV_PATH_MAX - 1)
		n = SV_PATH_MAX - 1;
	p->n = (uint32_t)n;
	for (int k = 0; k < n; k++)
		p->name[k] = dir == STACK_TREE_CALLERS ? names[k] : names[n - 1 - k];
}

const char *sv_clause(const struct stack_tree *t, uint32_t id, enum stack_tree_dir dir, char *buf,
		      size_t len)
{
	const struct stack_node *nd = stack_tree_node(t, id);
	uint32_t ids[SV_PATH_MAX], n = 0;
	size_t at;

	buf[0] = '\0';
	while (nd && nd->depth && n < SV_PATH_MAX) {
		ids[n++] = id;
		id = nd->parent;
		nd = stack_tree_node(t, id);
	}
	if (!n || len < 8)
		return buf;
	/* ids[] runs from the node up: root first is its end for an icicle node; a caller
	 * tree's path is leaf first, so root first is its start */
	at = (size_t)snprintf(buf, len, "stack:%s", dir == STACK_TREE_ROOTS ? "^" : "");
	for (uint32_t k = 0; k < n && at < len; k++) {
		const char *s = stack_tree_name(t, ids[dir == STACK_TREE_ROOTS ? n - 1 - k : k]);

		at += (size_t)snprintf(buf + at, len - at, "%s%s", k ? ";" : "",
				       s && *s ? s : "[unknown]");
	}
	if (at < len && dir == STACK_TREE_CALLERS)
		at += (size_t)snprintf(buf + at, len - at, "$");
	if (at >= len)
		buf[0] = '\0';
	return buf;
}
