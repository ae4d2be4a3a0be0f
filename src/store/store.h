/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The columnar event store.
 *
 * Events live in per-CPU streams of chunks. A chunk is struct-of-arrays
 * (time, pid, type, flags, preempt count, argument payload) and carries its
 * own time range, so a seek by timestamp skips whole chunks. Each CPU stream
 * has exactly one writer (the consumer thread of that CPU, or a loader);
 * readers (UI, batch, exporters) never block it for more than a pointer swap:
 * the writer publishes a count with release semantics and a reader always sees
 * a consistent prefix.
 *
 * Events are named by (cpu, seq): seq is the per-CPU sequence number, which
 * counts from 0 at creation and is never reused, so references survive
 * eviction of older chunks (a stale reference simply stops resolving).
 *
 * The store is bounded: when its chunks, lost-event marks, strings, comm table
 * and schema together use more than the memory limit, the oldest chunks and
 * marks (across CPUs, by time) are dropped and counted. Strings, comms and
 * types cannot be dropped: a snapshot reader refuses input whose tables do
 * not fit (src/formats/ktop_read.c).
 *
 * Threads: a thread may write several CPU streams, but each stream has one
 * writer at a time. Readers may run in any number of threads, concurrently
 * with the writers and with eviction; what they get back is a copy, so there
 * is nothing to release except iterators. store_free() needs all readers and
 * writers to be done.
 */
#ifndef KTOP_STORE_H
#define KTOP_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "event.h"

struct store;
struct intern;
struct schema;
struct stacks;

#define STORE_DEFAULT_MEMORY	(256ull << 20)
#define STORE_CHUNK_EVENTS	2048	/* events in a chunk, at most */

/**
 * store_new - create an empty store
 * @mem_limit: bytes the store may use, tables included (0: STORE_DEFAULT_MEMORY)
 * @ncpus: number of CPU streams
 *
 * Return: the store (free with store_free), or NULL on ENOMEM.
 */
struct store *store_new(size_t mem_limit, unsigned int ncpus);
void store_free(struct store *st);

unsigned int store_ncpus(const struct store *st);
struct intern *store_strings(struct store *st);
struct schema *store_schema(struct store *st);
/* The table of the distinct stacks the events' stack ids name (src/store/stacks.h). */
struct stacks *store_stacks(const struct store *st);

struct taskstate_fmt;
/**
 * store_set_task_states - how this trace's sched_switch prints prev_state
 * @f: the table of its format (src/lib/taskstate.h), copied
 * Return: 0, -EEXIST (set already: the first stays), -ENOMEM.
 * Context: any thread (the source, once its formats are known).
 */
int store_set_task_states(struct store *st, const struct taskstate_fmt *f);
/* Return: the table set, or NULL (then taskstate_format() uses the default). Context: any. */
const struct taskstate_fmt *store_task_states(const struct store *st);

/* --- writer side: Context: the single writer of ev->cpu's stream --- */

/**
 * store_append - add one event at the end of its CPU stream
 *
 * Events of one CPU must come in non-decreasing time order; an event older
 * than the last one of its CPU is clamped to it and counted as reordered.
 * Return: 0, or -ENOMEM.
 */
int store_append(struct store *st, const struct ktop_event *ev);

/*
 * One event as the open chunk holds it: the fields of struct ktop_event
 * without the cpu, its arguments at @aoff in the chunk's argument array.
 */
struct store_brow {
	uint64_t	ts;
	int32_t		pid;
	uint32_t	stack;		/* stack id, 0: none */
	uint16_t	aoff;
	uint16_t	type;
	uint8_t		flags;
	uint8_t		pc;
	uint8_t		nargs;
};

/*
 * Writing in place (a decoder): instead of building events and copying them
 * in, the writer asks for room at the end of the open chunk of its CPU, writes
 * rows and arguments there, then commits them. What it writes past the
 * committed end stays invisible, as appended events do until store_publish().
 */
struct store_wbuf {
	struct store_brow	*row;		/* row[0..nrow) may be written */
	uint64_t		*args;		/* the chunk's arguments */
	uint32_t		nrow;		/* >= 1 */
	uint32_t		aoff;		/* the first free argument slot */
	uint32_t		aend;		/* args[aoff..aend) may be written */
	uint64_t		last_ts;	/* the stream's last: clamp older events to it */
};

/**
 * store_reserve - room for events at the end of @cpu's stream
 * @ts: the time of the first event to be written (starts a new chunk when
 * the open one is full)
 *
 * Row i written at @w->row[i] has its arguments at @w->args[row.aoff],
 * row.aoff from @w->aoff up, packed (each event's start where the previous
 * ends), and an event may start only where KTOP_MAX_ARGS slots remain below
 * @w->aend (@w->aoff always qualifies). Rows must come in non-decreasing
 * time order, none older than @w->last_ts: the writer clamps and counts.
 * Context: the single writer of @cpu's stream; nothing else may append to it
 * until store_commit().
 * Return: 0, -ENOMEM (no new chunk could be had: nothing can be written, the
 * full one may have been sealed), -EINVAL (@cpu out of range).
 */
int store_reserve(struct store *st, unsigned int cpu, uint64_t ts, struct store_wbuf *w);

/**
 * store_commit - append the first @n rows written after store_reserve()
 * @aend: the end of their arguments (@w->aoff when @n is 0)
 * @last_ts: the time of the last row
 * @reordered: how many of them were clamped to an older event's time
 * Context: the single writer of @cpu's stream.
 */
void store_commit(struct store *st, unsigned int cpu, const struct store_wbuf *w, uint32_t n,
		  uint32_t aend, uint64_t last_ts, uint64_t reordered);

/* Make everything appended so far to @cpu visible to readers. */
void store_publish(struct store *st, unsigned int cpu);

/**
 * store_seal_idle - @cpu's writer will not append for a while: seal its
 * partly filled chunk (evictable from then on) and free its spare buffer
 *
 * A writer of many CPU streams (a snapshot reader) calls it after each batch
 * of a CPU, so that its unevictable buffers are one CPU's, not every CPU's
 * (240 KiB each). Return: 0, or -ENOMEM (the chunk stays open).
 * Context: the writer of @cpu's stream, after store_publish().
 */
int store_seal_idle(struct store *st, unsigned int cpu);

/*
 * Why events were lost. The values are written in .ktop files (version 3 on):
 * new reasons go at the end.
 */
enum store_lost_why {
	STORE_LOST_KERNEL,	/* the kernel's ring buffer: overwritten, missed */
	STORE_LOST_KTOP,	/* read, then dropped by ktop: its decode backlog was full */
	STORE_LOST_STREAM,	/* left out by the sender's --stream-rate bound */
	STORE_LOST_UNSENT,	/* evicted from the sender's store before it was sent */
	STORE_LOST_UNKNOWN,	/* from a .ktop file older than version 3 */
	STORE_LOST_NR,
};

/* "kernel", "ktop", "stream", "unsent", "unknown"; NULL past the last. */
const char *store_lost_why_name(unsigned int why);

/**
 * store_add_lost - record that @count events of @cpu were lost just before
 * @ts (count 0 means "some, number unknown"), for reason @why (an out of
 * range reason counts as STORE_LOST_UNKNOWN).
 * Context: the writer of @cpu's stream.
 */
void store_add_lost(struct store *st, unsigned int cpu, uint64_t ts, uint64_t count,
		    enum store_lost_why why);

/* The trace time of a comm that names a task at the end of the recording. */
#define STORE_COMM_LAST	UINT64_MAX

/**
 * store_set_comm - name task @pid @comm, as seen at trace time @ts
 * (sched_switch, exec, wakeup, ...).
 *
 * The table keeps the name seen at the latest trace time, not the one set
 * last: the per-CPU readers decode at their own pace, and a lagging CPU's
 * event from before an exec must not bring the old name back. A name seen at
 * the same time or later replaces the entry (its time goes up even when the
 * name is the same); an older one is dropped. @ts 0 is a name with no trace
 * time (saved_cmdlines, /proc, a .ktop's table): it replaces only another
 * one, in the order they are set; STORE_COMM_LAST replaces any.
 * Context: any thread.
 */
void store_set_comm(struct store *st, int32_t pid, const char *comm, uint64_t ts);
/*
 * store_set_comm_id - store_set_comm() with @comm given as its id in
 * store_strings(@st) (the decoders' strings are interned there already).
 * Context: any thread.
 */
void store_set_comm_id(struct store *st, int32_t pid, uint32_t id, uint64_t ts);
/*
 * Return: the comm of @pid, or NULL when never seen. The string is interned:
 * it stays valid until store_free(). Context: any thread.
 */
const char *store_comm(const struct store *st, int32_t pid);
/*
 * store_comm_next - the comm of the first pid at or after *@pid that has one,
 * in pid order, with *@pid set to it; the table's empty pages are skipped
 * whole (a save's walk of every pid was 8 M lookups, ~15 ms).
 * Return: the comm (interned), or NULL past the last. Context: any thread.
 */
const char *store_comm_next(const struct store *st, int32_t *pid);
/*
 * Return: the name task @pid shows as, as the kernel's trace prints it:
 * "<idle>" for pid 0, its comm, or "<...>" when none (or an empty one) was
 * seen (or @st is NULL). Context: any thread.
 */
const char *store_task_name(const struct store *st, int32_t pid);

/* --- reader side: Context: any thread --- */

struct store_stats {
	uint64_t	events;		/* currently held */
	uint64_t	appended;	/* ever appended (as of the last publish or seal) */
	uint64_t	evicted;	/* dropped for the memory limit */
	uint64_t	lost;		/* lost events, sum of store_add_lost */
	uint64_t	lost_why[STORE_LOST_NR];	/* of lost, by reason (they add up to it) */
	uint64_t	lost_marks;	/* number of lost-event records */
	uint64_t	reordered;
	uint64_t	bytes;		/* chunk memory in use */
	/*
	 * Global only: the lost marks' memory, and the tables' (strings, comm
	 * table, schema, stacks). The limit bounds bytes + lost_bytes + tables; tables
	 * cannot be evicted and alone can pass it (then no event is held).
	 */
	uint64_t	lost_bytes;
	uint64_t	tables;
	uint64_t	marks_evicted;	/* lost-event marks dropped for the limit */
	uint64_t	limit;
	uint64_t	first_ts;	/* oldest held, 0 when empty */
	uint64_t	last_ts;
};
void store_get_stats(const struct store *st, struct store_stats *out);
/* store_stats' tables alone, without walking the CPU streams. */
uint64_t store_table_bytes(const struct store *st);
/* Per-CPU figures, same meaning. */
void store_get_cpu_stats(const struct store *st, unsigned int cpu, struct store_stats *out);

/**
 * store_feed_end - what every CPU of a growing store (live, or a stream) has
 * published: now less @lag_ns when its newest event is on our
 * CLOCK_MONOTONIC (within a minute of now), else the oldest CPU's newest event
 * Return: the end in trace time, ns; 0 when the store holds nothing yet.
 * Context: any thread.
 */
uint64_t store_feed_end(const struct store *st, uint64_t lag_ns);

struct store_lost {
	uint64_t	ts;
	uint64_t	count;
	uint16_t	cpu;
	uint8_t		why;		/* enum store_lost_why */
};
/**
 * store_lost_marks - copy lost-event records with ts in [t0, t1], in order of
 * arrival. The oldest are evicted with the oldest events (store_stats'
 * marks_evicted counts them; lost and lost_marks still count them).
 * Return: how many exist (may exceed @max; only @max are copied).
 */
size_t store_lost_marks(const struct store *st, uint64_t t0, uint64_t t1,
			struct store_lost *out, size_t max);
/*
 * store_lost_marks_from - copy up to @max records numbered *@seq and later
 * (numbered from 0 in order of arrival); *@seq becomes the number after the
 * last one copied, past any evicted before they could be. Return: how many.
 */
size_t store_lost_marks_from(const struct store *st, uint64_t *seq, struct store_lost *out,
			     size_t max);

/* Range of valid seq numbers of @cpu: [*first, *end). */
void store_cpu_range(const struct store *st, unsigned int cpu, uint64_t *first, uint64_t *end);

/*
 * Return: 0 and the event (args past nargs are 0), or -ENOENT when evicted or
 * not yet published.
 */
int store_get(const struct store *st, unsigned int cpu, uint64_t seq, struct ktop_event *out);
/*
 * store_get_range - events [@from, @to) of @cpu into @out, with one lookup per
 * chunk rather than per event; an event evicted meanwhile comes back with type
 * KTOP_T_NONE. Return: how many slots were filled (fewer than asked only past
 * the published end, or on -ENOMEM).
 */
size_t store_get_range(const struct store *st, unsigned int cpu, uint64_t from, uint64_t to,
		       struct ktop_event *out);

/* Return: the seq of the first event of @cpu with ts >= @ts (the end seq if none). */
uint64_t store_seek(const struct store *st, unsigned int cpu, uint64_t ts);

/*
 * Iteration in time order across CPUs (a k-way merge of the CPU streams), over
 * [t0, t1] and the CPUs set in @cpus (NULL: all). The iterator sees the events
 * published when it was started, plus any published while it runs.
 *
 * While writers run, time order holds for each CPU; across CPUs it holds for
 * what was published when each event was returned (a CPU may later publish
 * events older than ones already returned). An iterator holds no chunk
 * between calls: events evicted under it are skipped. One thread per iterator.
 */
struct store_iter;
struct store_iter *store_iter_new(const struct store *st, uint64_t t0, uint64_t t1,
				  const uint64_t *cpus /* bitmap or NULL */);
/* Return: true and the next event (and its cpu/seq in *seq), false at the end. */
bool store_iter_next(struct store_iter *it, struct ktop_event *out, uint64_t *seq);
void store_iter_free(struct store_iter *it);

/*
 * Chunk-level reading, for filters that skip what cannot match: the chunks of
 * a CPU stream with their time ranges, a sealed chunk's dictionaries (which
 * pids and types it holds, and how many events each) read without decoding
 * a row, and the rows of one chunk, decoding only the columns asked for.
 */
struct store_chunk_info {
	uint64_t	first_seq;
	uint64_t	t_min, t_max;	/* of the whole chunk (sealed), or of its published rows */
	uint32_t	n;		/* published events in it */
	bool		sealed;		/* false: the open chunk, which may still grow */
};

/**
 * store_chunks - the chunks of @cpu holding published events at @from and later
 * Return: how many were copied to @out (at most @max), oldest first; a chunk
 * evicted meanwhile is simply not there. Context: any thread.
 */
size_t store_chunks(const struct store *st, unsigned int cpu, uint64_t from,
		    struct store_chunk_info *out, size_t max);

/* A reader of chunks: its decode buffer and dictionaries. One thread at a time. */
struct store_chunk_rd;
struct store_chunk_rd *store_chunk_rd_new(const struct store *st);	/* NULL: ENOMEM */
void store_chunk_rd_free(struct store_chunk_rd *rd);

/* A sealed chunk's dictionaries; the arrays belong to the reader (valid until its next call). */
struct store_chunk_dict {
	uint32_t	npid, ntype;
	const int32_t	*pid;		/* the events' pids (common_pid), distinct */
	const uint32_t	*pid_n;		/* events of each */
	const uint16_t	*type;		/* event types, distinct */
	const uint32_t	*type_n;
};

/**
 * store_chunk_dict - the dictionaries of @cpu's sealed chunk starting at @first_seq
 * The counts cover the whole chunk, published or not (store_chunk_info.n may be less).
 * Return: 0, -ENOENT (evicted, or no chunk starts there), -EAGAIN (the open
 * chunk: it has none yet; read its rows).
 */
int store_chunk_dict(struct store_chunk_rd *rd, unsigned int cpu, uint64_t first_seq,
		     struct store_chunk_dict *out);

/* Columns of store_chunk_rows(): what a caller reads of each row. */
enum {
	STORE_COL_TS	= 1,	/* row.ts */
	STORE_COL_PID	= 2,	/* row.pid */
	STORE_COL_TYPE	= 4,	/* row.type, flags, pc, nargs */
	STORE_COL_ARGS	= 8,	/* row.aoff and the arguments (implies TS and TYPE) */
	STORE_COL_ALL	= 15,
};

struct store_chunk_rows {
	const struct store_brow	*row;	/* row[i], i in [lo, n): seq first_seq + i */
	const uint64_t		*args;	/* row[i]'s arguments at args[row[i].aoff] */
	uint64_t		first_seq;
	uint32_t		lo, n;
};

/**
 * store_chunk_rows - the published rows of the chunk of @cpu holding @seq, from @seq on
 * @cols: STORE_COL_*; other fields of the rows are undefined
 * The rows belong to the reader, valid until its next call.
 * Return: 0, -ENOENT (evicted or not published), -ENOMEM.
 */
int store_chunk_rows(struct store_chunk_rd *rd, unsigned int cpu, uint64_t seq, unsigned int cols,
		     struct store_chunk_rows *out);

/* Row @i of @r (read by @rd) as an event of @cpu. */
void store_chunk_event(const struct store_chunk_rd *rd, uint32_t i, unsigned int cpu,
		       struct ktop_event *out);

/*
 * Sealed chunks as bytes: a .ktop file carries them as the store holds them
 * (its columns, already compact), so a save copies them out and a load hands
 * them back without encoding an event again. The bytes: a layout number
 * (STORE_CHUNK_LAYOUT), a header of varints (events, time range, dictionary
 * sizes, section sizes), the columns. They name strings, event types and
 * stacks by the ids of the store that wrote them: the reader's tables must
 * give the same ids (a .ktop reader builds them in the same order).
 */
#define STORE_CHUNK_LAYOUT	2	/* 2: with the stack column */

/* Return: the most bytes store_chunk_export() writes for one chunk. */
size_t store_chunk_export_max(void);

/**
 * store_chunk_export - the bytes of @cpu's sealed chunk that starts at @first_seq
 * @out: store_chunk_export_max() bytes
 * Return: how many bytes were written; 0 when there is no such sealed chunk
 * (evicted meanwhile, or the open one). Context: any thread.
 */
size_t store_chunk_export(const struct store *st, unsigned int cpu, uint64_t first_seq,
			  uint8_t *out);

/**
 * store_chunk_adopt - append the chunk of @len bytes at @in to @cpu's stream
 *
 * The bytes are checked before the store trusts them: the header's sizes,
 * every column walked within its bounds, dictionary indices in range, event
 * types the schema knows, argument counts, counts that match the rows, the
 * time range after what @cpu holds. The chunk is then added as it is (its
 * memory counts against the limit; the oldest chunks go when over it), a
 * partly filled open chunk of @cpu is sealed first, and its events are
 * published. store_chunk_import() and store_chunk_push() are its two halves.
 * Context: the single writer of @cpu's stream.
 * Return: 0, -EBADMSG (the bytes are not a chunk: why in @why), -ENOMEM,
 * -EINVAL (@cpu out of range).
 */
int store_chunk_adopt(struct store *st, unsigned int cpu, const uint8_t *in, size_t len,
		      char *why, size_t whylen);

/* A chunk checked and copied out of its bytes, not in a stream yet. */
struct store_chunk_in;

/**
 * store_chunk_import - the first half of store_chunk_adopt(): copy and check
 * Context: any thread (a reader may check chunks on several while its writer
 * thread pushes them in order); the schema must already hold the types.
 * Return: 0 and the chunk in *@out, -EBADMSG with @why, or -ENOMEM.
 */
int store_chunk_import(const struct store *st, const uint8_t *in, size_t len,
		       struct store_chunk_in **out, char *why, size_t whylen);

/**
 * store_chunk_push - the second half: append @c to @cpu's stream (it is the
 * store's then, whatever the result)
 * Return: 0, -EBADMSG (it starts before what @cpu holds), -ENOMEM, -EINVAL.
 * Context: the single writer of @cpu's stream.
 */
int store_chunk_push(struct store *st, unsigned int cpu, struct store_chunk_in *c, char *why,
		     size_t whylen);

/* The events of @c. */
uint32_t store_chunk_in_events(const struct store_chunk_in *c);
/* Free @c (not pushed). Accepts NULL. */
void store_chunk_in_free(struct store_chunk_in *c);

/* Aggregation queries for the panes. */
enum store_key {
	STORE_KEY_TYPE,		/* event type id */
	STORE_KEY_FUNC,		/* function symbol id (function, funcgraph entry) */
	STORE_KEY_CPU,
	STORE_KEY_PID,
};

struct store_filter {
	uint64_t	t0, t1;		/* time window, inclusive */
	int32_t		pid;		/* -1: any */
	int32_t		cpu;		/* -1: any */
	uint32_t	comm_id;	/* 0: any; interned comm */
};

struct store_count {
	uint64_t	key;
	uint64_t	count;
};

/**
 * store_count_by - count events by @key over the filter (src/store/store_count.c)
 * @out: receives up to @max entries sorted by count, descending
 * Return: the number of distinct keys found (may exceed @max).
 */
size_t store_count_by(const struct store *st, enum store_key key,
		      const struct store_filter *f, struct store_count *out, size_t max);

/* The columns of store_chunk_rows() that store_row_key() reads for @key. */
static inline unsigned int store_key_cols(enum store_key key)
{
	switch (key) {
	case STORE_KEY_TYPE:
		return STORE_COL_TYPE;
	case STORE_KEY_FUNC:
		return STORE_COL_ALL;
	case STORE_KEY_PID:
		return STORE_COL_PID;
	default:
		return 0;
	}
}

/* Row @i's @key (of CPU @cpu). Return: false when it has none (not a function event). */
static inline bool store_row_key(const struct store_chunk_rows *r, uint32_t i, unsigned int cpu,
				 enum store_key key, uint64_t *k)
{
	const struct store_brow *w = &r->row[i];

	switch (key) {
	case STORE_KEY_TYPE:
		*k = w->type;
		return true;
	case STORE_KEY_FUNC:
		*k = r->args[w->aoff];
		return w->type == KTOP_T_FUNCTION || w->type == KTOP_T_FGRAPH_ENTRY;
	case STORE_KEY_CPU:
		*k = cpu;
		return true;
	default:
		*k = (uint64_t)(int64_t)w->pid;
		return true;
	}
}

struct hmap;
/*
 * store_count_sorted - counts kept in a hash map (src/lib/hashmap.h: key -> count)
 * as store_count_by() returns them: up to @max in @out, by count descending.
 * For other counters of the same keys (view filters). Return: how many keys.
 */
size_t store_count_sorted(const struct hmap *m, struct store_count *out, size_t max);
/*
 * store_counts_merge - @n counts of several lists (each CPU's, say) made
 * one: the counts of equal keys summed, in place, by count descending (then
 * by key), as store_count_by() returns them. Return: how many keys remain.
 */
size_t store_counts_merge(struct store_count *v, size_t n);

#endif
