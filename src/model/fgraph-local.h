/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The function_graph model's private types (src/model/fgraph.c: timeline and
 * feeding; src/model/fgraph_agg.c: the aggregated view; src/model/fgraph_view.c:
 * reading, search, visible rows; src/model/fgraph_print.c: text). Nothing else
 * includes this.
 */
#ifndef KTOP_FGRAPH_LOCAL_H
#define KTOP_FGRAPH_LOCAL_H

#include <stdbool.h>
#include <stdint.h>

#include "fgraph.h"
#include "lib/hashmap.h"

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

/* Make room for @need elements of @size in *@p (capacity *@cap). Return: 0 or -ENOMEM. */
int fgraph_grow(void **p, uint32_t *cap, uint32_t need, size_t size);

/* The name of function @sym, or "sym#N" in @buf. */
const char *fgraph_sym_name(struct fgraph *g, uint32_t sym, char *buf, size_t len);

/* src/model/fgraph_agg.c */
int fgraph_agg_init(struct fgraph *g);
void fgraph_agg_sync(struct fgraph *g);
void fgraph_agg_pending(struct fgraph *g, uint32_t id);

#endif
