/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * View filter internals shared by src/view/viewfilter.c (clauses, matching, the
 * index) and src/view/viewfilter_walk.c (walks, pages, counts).
 */
#ifndef KTOP_VIEWFILTER_LOCAL_H
#define KTOP_VIEWFILTER_LOCAL_H

#include <sys/types.h>

#include "lib/err.h"
#include "lib/hashmap.h"
#include "viewfilter.h"

/* The typed kinds first, in the order of their prefixes (viewfilter.c typed_prefix[]). */
enum vf_kind { VK_PID, VK_COMM, VK_CPU, VK_EVENT, VK_STACK, VK_EXPR, VK_NET };

struct vf_clause {
	uint8_t		kind;		/* enum vf_kind */
	uint8_t		flags;		/* VIEWFILTER_NOT, VIEWFILTER_KIDS */
	char		*text;
	int32_t		*pids;		/* VK_PID: sorted */
	size_t		npids;
	char		*glob;		/* VK_COMM */
	uint64_t	*cpus;		/* VK_CPU: bitmap */
	char		**ev;		/* VK_EVENT, VK_EXPR: event globs (none: all events) */
	size_t		nev;
	struct vfexpr	*x;		/* VK_EXPR */
	char		**frames;	/* VK_STACK: frame names or globs, root first */
	size_t		nframes;
	bool		root, leaf;	/* VK_STACK: '^' ties the first to the root, '$' the
					 * last to the leaf */
	struct vf_net	*net;		/* VK_NET: port:, addr:, conn: (viewfilter_net.c) */
};

/* What the matches of a chunk's evaluated rows [0, done) are. */
enum vf_seg_kind { SK_NONE, SK_ALL, SK_BITS };

/* One store chunk, as the index knows it. */
struct vf_seg {
	uint64_t	first_seq;
	uint64_t	t_min, t_max;
	uint32_t	n;		/* published rows, as of the last sync */
	uint32_t	done;		/* rows evaluated: [0, done) */
	uint32_t	count;		/* matches among them */
	uint8_t		kind;		/* enum vf_seg_kind */
	bool		sealed;
	bool		by_dict;	/* decided from its dictionaries, no row decoded */
	uint64_t	*bits;		/* SK_BITS: STORE_CHUNK_EVENTS bits */
};

/* One CPU's segments, oldest first: v[lo, hi). */
struct vf_cpu {
	struct vf_seg	*v;
	size_t		lo, hi, cap;
};

/* Per event type: can it match (and which expression clauses it must pass). */
enum { TC_UNKNOWN, TC_NO, TC_PASS, TC_EVAL };

/* A buffer of a recording: its name and store CPU streams (buffer: clauses). */
struct vf_buffer {
	char		name[64];
	uint32_t	cpu0, ncpus;
};

struct viewfilter {
	struct store		*st;
	struct taskrel		*tr;
	struct vf_clause	c[VIEWFILTER_MAX_CLAUSES];
	size_t			nc;
	uint64_t		gen;
	vfexpr_field_fn		known;
	void			*known_arg;
	const char		*procdir;	/* live: /proc for the task tree */
	uint64_t		(*feed_end)(void *arg, uint64_t lag_ns);
	void			*feed_arg;
	uint64_t		feed_to, feed_asked;	/* its last answer, and when */
	struct vf_buffer	*bufs;		/* NULL: one buffer, "top" */
	size_t			nbufs;
	bool			proc_read;
	/* derived from the clauses */
	uint8_t			*tcls;		/* by type id: TC_* */
	uint32_t		*tmask;		/* by type id: expression clauses to evaluate */
	size_t			ntype;
	uint64_t		*cpuok;		/* bitmap over the store's CPUs */
	bool			has_task;	/* pid or comm clauses */
	bool			has_kids;	/* ... with children */
	bool			has_comm;
	bool			has_stack;	/* stack clauses */
	uint8_t			*stk;		/* by stack id: 0 unknown, 1 fails, 2 passes them */
	uint32_t		nstk;
	struct hmap		memo;		/* pid -> 1 no, 2 yes (| comm pointer) */
	uint64_t		rel_cursor;	/* task links seen */
	/* the index */
	struct vf_cpu		*cpu;
	unsigned int		ncpus;
	struct store_chunk_rd	*rd;
	uint64_t		held;		/* as of the last sync */
	/* network clauses' joins (viewfilter_net.c) */
	bool			has_net;
	struct net_fields	*netf;		/* each type's network fields */
	uint64_t		*net_next;	/* per CPU: the next seq of the join pass */
	uint64_t		net_done;	/* the join pass has walked up to here */
	uint64_t		net_dirty;	/* joins learnt from here on since the last update */
};

/* A refusal of the text at byte @pos (err_pos_set() of src/lib/err.h). */
#define vf_err(err, pos, ...)	err_pos_set(err, pos, -EINVAL, __VA_ARGS__)

/* viewfilter_stack.c: "stack:PATH" clauses. */
int vf_stack_parse(struct vf_clause *c, const char *s, int off, struct err_pos *err);
void vf_stack_free(struct vf_clause *c);
/* Return: does stack @id (0: none) pass every stack clause? */
bool vf_stack_ok(struct viewfilter *vf, uint32_t id);

/* viewfilter_net.c: "port:", "addr:", "conn:" clauses (@what: 0, 1, 2). */
int vf_net_parse(struct vf_clause *c, unsigned int what, const char *s, int off,
		 struct err_pos *err);
void vf_net_free(struct vf_clause *c);
/* TC_EVAL when events of @type can carry ends, a socket or an skb; else TC_NO. */
uint8_t vf_net_tclass(struct viewfilter *vf, const struct vf_clause *c, uint16_t type);
/* Does @e match @c (its '!' not applied)? The join pass must have walked past @e->ts. */
bool vf_net_eval(struct viewfilter *vf, const struct vf_clause *c, const struct vfexpr_ev *e);
/* Walk the store in time order up to @t, learning the joins. Return: 0 or -ENOMEM. */
int vf_net_sync(struct viewfilter *vf, uint64_t t);
/* Forget the joins (the clauses changed). */
void vf_net_reset(struct viewfilter *vf);
/* How far past an event's time the join pass must have walked before it is evaluated. */
#define VF_NET_AHEAD_NS	(1000ull * 1000)
/* How far behind "now" the join pass stays in a growing store (every CPU published there). */
#define VF_NET_LAG_NS	(300ull * 1000 * 1000)
#define VF_NET_FEED_ASK_NS	(10ull * 1000 * 1000)

/* Bring @cpu's segments in line with the store's chunks. Return: 0 or -ENOMEM. */
int vf_sync_cpu(struct viewfilter *vf, unsigned int cpu);
/* The index of the segment of @cpu holding @seq, or -1. */
ssize_t vf_seg_find(const struct viewfilter *vf, unsigned int cpu, uint64_t seq);
/* Evaluate the rows of a segment not evaluated yet. Return: 0 or a negative errno. */
int vf_seg_eval(struct viewfilter *vf, unsigned int cpu, struct vf_seg *s);

static inline bool vf_seg_match(const struct vf_seg *s, uint32_t i)
{
	if (i >= s->done || s->kind == SK_NONE)
		return false;
	return s->kind == SK_ALL || (s->bits[i / 64] >> (i % 64)) & 1;
}

static inline bool vf_cpu_ok(const struct viewfilter *vf, unsigned int cpu)
{
	return cpu < vf->ncpus && (vf->cpuok[cpu / 64] >> (cpu % 64)) & 1;
}

/* Return: the TC_* class of @type (computed when first asked). */
uint8_t vf_tclass(struct viewfilter *vf, uint16_t type);
/* Return: does @pid pass the task clauses? */
bool vf_pid_ok(struct viewfilter *vf, int32_t pid);

/* An event at (@ts, @cpu, @seq) against position @p, in the walks' order. Return: <0, 0, >0. */
static inline int vf_pos_cmp(uint64_t ts, unsigned int cpu, uint64_t seq,
			     const struct viewfilter_pos *p)
{
	if (ts != p->ts)
		return ts < p->ts ? -1 : 1;
	if (cpu != p->cpu)
		return cpu < p->cpu ? -1 : 1;
	if (seq != p->seq)
		return seq < p->seq ? -1 : 1;
	return 0;
}

#endif
