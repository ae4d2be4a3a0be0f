/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the parts of the diff (src/diff/diff*.c) share. */
#ifndef KTOP_DIFF_LOCAL_H
#define KTOP_DIFF_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diff.h"
#include "lib/hashmap.h"
#include "store/event.h"
#include "store/store.h"

struct fgraph;
struct latency;
struct net;
struct tasks;
struct viewfilter;

/* Strings that live as long as a table: a chain of blocks. */
struct diff_pool {
	char		*blk;		/* the newest block; its first word links the older */
	size_t		used, size;
};

const char *diff_pool_str(struct diff_pool *p, const char *s, size_t len);
void diff_pool_free(struct diff_pool *p);

/* One side: an app, its window, and the models fed from its store. */
struct diff_side {
	struct app		*a;
	struct store		*st;
	struct viewfilter	*vf;		/* the app's view, or NULL */
	bool			ready;		/* read (a recording), or fed (live) */
	bool			live;
	uint64_t		t0, t1;		/* the window, inclusive */
	double			secs;
	uint64_t		events, lost;
	uint64_t		types;		/* bit t: fixed type t (< 64) is in the window */
	bool			dyn_types;	/* ... and some dynamic type is */
	char			name[256];
	char			release[65];
	/* models kept between refreshes (live NEW feeds them on) */
	struct tasks		*tasks;
	struct fgraph		*g;
	uint64_t		g_fed;		/* fed up to here (inclusive) */
	struct latency		*lat;
	uint64_t		lat_fed;
	struct net		*net;
	bool			net_tried;
};

struct diff_stree {
	struct diff_snode	*v;
	size_t			n, cap;
	struct hmap		idx;		/* hash(parent, name) -> node + 1 */
	const char		*unit;
	bool			callers;
	enum diff_stack_src	src;
};

struct diff {
	struct diff_side	side[DIFF_NSIDES];
	struct diff_table	tab[DIFF_NKINDS];
	struct diff_pool	pool[DIFF_NKINDS];
	bool			made[DIFF_NKINDS];
	struct diff_stree	*stree;
	char			notes[6][256];
	unsigned int		nnotes;
};

/* ---- building a table: rows found or added by key ---- */

struct diff_build {
	struct diff_table	*t;
	struct diff_pool	*pool;
	struct strmap		keys;		/* key (pooled) -> row index + 1 */
	size_t			cap;
	int			err;
};

void diff_build_start(struct diff_build *b, struct diff *d, enum diff_kind k);
/*
 * The row of @key (@len bytes), added when new with @name as its shown name
 * (NULL: the key). NULL on ENOMEM (b->err set; later calls do nothing).
 */
struct diff_row *diff_build_row(struct diff_build *b, const char *key, size_t len,
				const char *name);
/* Add @v to column @col of @side of @key's row, and mark it present there. */
void diff_build_add(struct diff_build *b, enum diff_sides side, const char *key, unsigned int col,
		    double v);
/* Finish: sort by change (or keep the order), free the key index. */
void diff_build_end(struct diff_build *b, bool keep_order);

/* Per second of @s's length. */
static inline double diff_rate(const struct diff_side *s, double n)
{
	return s->secs > 0 ? n / s->secs : n;
}

/* Fixed types as a bitmap for diff_walk() and diff_side_has(). */
#define DIFF_T(t)	(1ull << (t))

/* Does @s's window hold any of the fixed types of @mask? */
static inline bool diff_side_has(const struct diff_side *s, uint64_t mask)
{
	return s->ready && (s->types & mask);
}

/*
 * Walk the events of @s's window, CPU by CPU (each CPU in time order, the
 * CPUs one after the other): @fn is called with each event the view keeps.
 * @types: a bitmap of fixed types (DIFF_T), only whose events are passed and
 * only chunks holding one read; 0: every event. @cols: the STORE_COL_* the
 * caller reads of an event (without STORE_COL_ARGS its arguments are not
 * read: nargs is 0). @fn returns non-zero to stop.
 * Return: 0, the value @fn stopped with, or -ENOMEM.
 */
int diff_walk(struct diff_side *s, uint64_t types, unsigned int cols,
	      int (*fn)(void *ctx, const struct ktop_event *ev), void *ctx);

/*
 * Run @fn(side, @arg[side]) for both sides at once, BASE on a thread of its
 * own: each touches its side alone (its store, its view, its models).
 */
void diff_sides_run(struct diff *d, void (*fn)(struct diff_side *s, void *arg), void *arg[2]);

/* A view filter's keep callback for the models (fgraph, net). */
bool diff_keep(void *ctx, const struct ktop_event *ev);

/* The tables' makers, one file each part. */
void diff_make_tasks(struct diff *d, struct diff_build *b);
void diff_make_paths(struct diff *d, struct diff_build *b);
void diff_make_latency(struct diff *d, struct diff_build *b, bool hist);
void diff_make_stacks(struct diff *d, struct diff_build *b);
void diff_make_conns(struct diff *d, struct diff_build *b);
void diff_make_drops(struct diff *d, struct diff_build *b);
void diff_make_bpf(struct diff *d, struct diff_build *b);
void diff_make_agg(struct diff *d, struct diff_build *b);
/* The in-kernel measures' buckets, as histogram rows (after the latency model's). */
void diff_agg_hist(struct diff *d, struct diff_build *b);

/* The models of a side, fed up to its window's end (NULL: none, or ENOMEM). */
struct fgraph *diff_side_fgraph(struct diff_side *s);
struct latency *diff_side_latency(struct diff_side *s);

void diff_stree_free(struct diff_stree *t);

#endif
