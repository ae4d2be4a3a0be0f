/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Before and after: two recordings compared figure by figure (ktop -i BASE
 * --diff NEW; NEW may be the live session).
 *
 * Each side is a started app (src/app/app.h): a recording read through the
 * file source, or the live session. The figures of each side come from the
 * models the panes and --batch use (store_count_by and the view filter's
 * counts, src/view/tasks.h, src/model/fgraph.h, latency.h, stacktree.h,
 * net.h, the BPF statistics a stream carries), fed from that side's store;
 * the diff only matches them and says what changed:
 *
 *   - every figure is a rate per second of its own side's length (the trace
 *     time from its first event to its last), or a figure that has no time
 *     in it (a latency, an average per call, a share);
 *   - rows are matched by name, never by id: events by "system:name", tasks
 *     by comm (the busiest pid of each side shown), functions by name, call
 *     paths and stacks by their frames' names, syscalls by name, drops by
 *     reason; a row on one side only is new (only in NEW) or gone (only in
 *     BASE);
 *   - CPUs are matched by number; when the two sides have different CPU
 *     counts the diff says so (diff_notes()).
 *
 * A table is made when first asked for (diff_table()) and kept until
 * diff_refresh() says NEW moved on (live); so a first screen needs only its
 * own table, not a pass over every event of both sides.
 *
 * Context: one thread owns a diff (the UI or the batch printer); the sides'
 * stores may be written meanwhile (live NEW).
 */
#ifndef KTOP_DIFF_H
#define KTOP_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct app;
struct diff;

enum diff_sides { DIFF_BASE, DIFF_NEW, DIFF_NSIDES };

/* The tables, each a figure of one pane. */
enum diff_kind {
	DIFF_EVENTS,		/* events by name: events/s */
	DIFF_TASKS,		/* tasks by comm: events/s, syscalls/s, switches/s, ... */
	DIFF_CPUS,		/* CPUs by number: events/s and the flag shares */
	DIFF_SYSCALLS,		/* syscalls by name (raw_syscalls:sys_enter): calls/s */
	DIFF_FUNCS,		/* functions by name (function, function_graph): calls/s */
	DIFF_PATHS,		/* function_graph call paths: calls/s, time/s, per call */
	DIFF_LATENCY,		/* osnoise/timerlat: per series and CPU, samples/s, min/avg/max */
	DIFF_HIST,		/* their histograms: samples/s per bucket, in bucket order */
	DIFF_STACKS,		/* the events' stacks (folded paths): events/s */
	DIFF_CONNS,		/* connections by task and peer: opened/s, bytes/s, ... */
	DIFF_DROPS,		/* packet drops by reason: drops/s */
	DIFF_BPF,		/* ktop's BPF figures of a stream: per CPU and syscall */
	DIFF_AGG,		/* in-kernel latencies (--latency): per measure and key */
	DIFF_NKINDS,
};

/* What a column's figure is. */
enum diff_unit {
	DIFF_U_RATE,		/* per second */
	DIFF_U_NS,		/* a time in ns (a latency, an average per call) */
	DIFF_U_NS_RATE,		/* ns per second: time spent a second */
	DIFF_U_PCT,		/* a share, percent */
	DIFF_U_BYTES_RATE,	/* bytes per second */
};

#define DIFF_MAX_COLS	8
#define DIFF_SERIES_AGG	100	/* diff_row.series of an in-kernel measure's buckets */

struct diff_col {
	const char	*head;		/* text tables' heading ("EVENTS/s") */
	const char	*json;		/* JSON stem: base_<json>, new_<json>, delta_<json> */
	enum diff_unit	unit;
};

enum diff_in {
	DIFF_IN_BASE	= 1,
	DIFF_IN_NEW	= 2,
	DIFF_IN_BOTH	= 3,
};

struct diff_row {
	const char	*name;		/* the key as shown: valid until the table is made again */
	uint8_t		in;		/* enum diff_in: 1 gone, 2 new, 3 both */
	int32_t		pid[DIFF_NSIDES];	/* tasks, connections: the busiest pid; -1 */
	uint32_t	ntasks[DIFF_NSIDES];	/* tasks: threads with this comm */
	int32_t		cpu;		/* CPUs, latency: the CPU; -1: all */
	int		series;		/* latency, histograms: enum latency_series, or
					 * DIFF_SERIES_AGG + the measure (in-kernel); -1 */
	uint64_t	lo, hi;		/* histograms: the bucket [lo, hi) in ns; an
					 * in-kernel measure's is (lo, hi] */
	double		v[DIFF_NSIDES][DIFF_MAX_COLS];
};

struct diff_table {
	enum diff_kind		kind;
	const char		*name;		/* JSON key: "events", "tasks", ... */
	const char		*title;		/* "Events", "Tasks", ... */
	const char		*key;		/* JSON name of a row's key: "event", "comm" */
	unsigned int		ncols;
	const struct diff_col	*cols;
	size_t			n;
	struct diff_row		*rows;
	bool			have[DIFF_NSIDES];	/* the side has figures of this kind */
	char			note[256];	/* what the table leaves out, or why it is empty */
};

/**
 * diff_new - compare the apps @base and @new (both started; either may still
 * be loading: its tables are empty until it is read)
 * Return: the diff (free with diff_free; the apps stay the caller's), or NULL
 * on ENOMEM.
 */
struct diff *diff_new(struct app *base, struct app *new);
void diff_free(struct diff *d);

/*
 * NEW (or a side still loading) may have moved on: tables made before are
 * made again when next asked for. Return: true when either side's window
 * changed since the last refresh.
 */
bool diff_refresh(struct diff *d);

/* Are both sides read (and so the tables complete)? */
bool diff_ready(const struct diff *d);

/**
 * diff_table - table @k, made now when it was not (one pass over what it
 * needs of both stores), its rows by the largest change of the first column
 * (histograms: in bucket order)
 * Return: the table (the diff's; valid until the next refresh), never NULL.
 */
const struct diff_table *diff_table(struct diff *d, enum diff_kind k);

/* The name of table @k ("events", ...) and its kind by name (-1: none). */
const char *diff_kind_name(enum diff_kind k);
int diff_kind_by_name(const char *name);

enum diff_sort {
	DIFF_SORT_CHANGE,	/* |new - base| of the column, largest first */
	DIFF_SORT_RATIO,	/* new / base, the largest growth first (new rows first) */
	DIFF_SORT_NEW,		/* NEW's figure, largest first */
	DIFF_SORT_BASE,		/* BASE's figure, largest first */
	DIFF_SORT_NAME,		/* by name */
	DIFF_SORT_ORDER,	/* the table's own order (histograms: buckets) */
	DIFF_SORT_NR,
};

/* The name of a sort ("change", "ratio", ...). */
const char *diff_sort_name(enum diff_sort s);

/**
 * diff_sort_rows - order @n rows of a table by @s on column @col
 * @order: receives the row indices, in the order
 */
void diff_sort_rows(const struct diff_table *t, enum diff_sort s, unsigned int col,
		    uint32_t *order);

/* delta and ratio of a row's column (ratio: NaN when BASE's figure is 0). */
static inline double diff_delta(const struct diff_row *r, unsigned int col)
{
	return r->v[DIFF_NEW][col] - r->v[DIFF_BASE][col];
}
double diff_ratio(const struct diff_row *r, unsigned int col);

/* Is the row's figure the same on both sides (within rounding)? */
bool diff_row_same(const struct diff_table *t, const struct diff_row *r);

/**
 * diff_fmt - a figure as the tables print it: "12.3k", "1.23ms", "45.6%",
 * "1.2M"; "-" when unknown (NaN)
 * @sign: "+" before a figure above 0 (a delta)
 * Return: @buf.
 */
const char *diff_fmt(char *buf, size_t len, enum diff_unit u, double v, bool sign);

/* A row's ratio on column @col: "2.50x", "new", "gone", "-" (both 0). Return: @buf. */
const char *diff_fmt_ratio(char *buf, size_t len, const struct diff_row *r, unsigned int col);

/* The two forms of a row's name: the text report's (padded columns), a pane's (narrow). */
enum diff_name_form {
	DIFF_NAME_TEXT,		/* "   PID  comm (N threads)", "CPU  series", "series  [lo, hi)" */
	DIFF_NAME_PANE,		/* "  PID comm (N)", "CPU series", "[lo, hi) series" */
};

/**
 * diff_row_name - the name of row @r of @t in @form: tasks with their pid (and
 * thread count), CPUs ("all" for the total), latency series with their CPU,
 * buckets spelled "[lo, hi)" ("(lo, hi]" for an in-kernel measure's), the
 * rest their name
 * Return: @buf.
 */
const char *diff_row_name(const struct diff_table *t, const struct diff_row *r,
			  enum diff_name_form form, char *buf, size_t len);

/* One side, as the header and the summaries name it. */
struct diff_side_info {
	const char	*name;		/* the file, or "live" */
	bool		live;
	bool		loading;
	double		secs;		/* the length the rates are per second of */
	unsigned int	ncpus;
	uint64_t	events;		/* held in the window */
	uint64_t	lost;
	uint64_t	t0, t1;		/* the window, trace time */
	const char	*tracer;	/* "" for none */
	const char	*release;	/* the kernel that recorded it ("" unknown) */
	bool		view;		/* a view filter narrows the figures */
};
void diff_side(const struct diff *d, enum diff_sides s, struct diff_side_info *out);

/*
 * What the reader must know to read the figures, one sentence each (the CPU
 * counts differ, the kernels differ, a side lost events, a view filter
 * applies): up to @max into @out (valid until the next refresh).
 * Return: how many there are.
 */
unsigned int diff_notes(struct diff *d, const char **out, unsigned int max);

/* ---- the stacks: a differential icicle and a caller tree ------------------------ */

/* Which stacks: the events', or the function_graph paths (self ns). */
enum diff_stack_src {
	DIFF_STACK_EVENTS,
	DIFF_STACK_GRAPH,
	DIFF_STACK_NSRC,
};

/*
 * One node of a merged tree of both sides' stacks: the stacks of both,
 * frame by frame by name, root first (an icicle) or leaf first (a caller
 * tree). Values are per second of each side's length.
 */
struct diff_snode {
	uint32_t	parent;		/* DIFF_SNONE at the root (node 0) */
	uint32_t	first_child;	/* children by NEW's value, largest first */
	uint32_t	next_sibling;
	uint32_t	nchildren;
	const char	*name;		/* the frame ("all" at the root) */
	uint16_t	depth;
	double		v[DIFF_NSIDES];		/* every stack through it, per s */
	double		self[DIFF_NSIDES];	/* the stacks that end here, per s */
};

#define DIFF_SNONE	UINT32_MAX

struct diff_stree;

/**
 * diff_stree - the merged tree of source @src's stacks
 * @callers: leaf first (a caller tree); false: root first (an icicle)
 * Return: the tree (the diff's, valid until the next refresh or the next
 * call for the other direction), or NULL when neither side has such stacks.
 */
const struct diff_stree *diff_stree(struct diff *d, enum diff_stack_src src, bool callers);
uint32_t diff_stree_size(const struct diff_stree *t);
const struct diff_snode *diff_stree_node(const struct diff_stree *t, uint32_t id);
/* The unit of the values: "events/s" or "ns/s". */
const char *diff_stree_unit(const struct diff_stree *t);

/**
 * diff_write_folded - the two-column folded stacks difffolded.pl writes
 * ("frame;frame;frame BASE NEW", root first), for flamegraph.pl: NEW's
 * column is its count (events, or self ns), BASE's is its count scaled to
 * NEW's length (BASE x NEW's seconds / BASE's seconds), so the colours say
 * what changed per second and the widths are NEW's
 * Return: the number of lines, or a negative errno (-ENOENT: no stacks).
 */
long diff_write_folded(struct diff *d, enum diff_stack_src src, FILE *fp);

/**
 * diff_save_folded - diff_write_folded() to @path, as the exports write
 * files (atomic, mode 0600; "-" is standard output)
 * Return: 0, or a negative errno with a message naming @path in @err.
 */
int diff_save_folded(struct diff *d, enum diff_stack_src src, const char *path,
		     unsigned int file_flags, char *err, size_t errlen);

#endif
