/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the panes show, aggregated incrementally by the UI thread: each frame
 * reads only the events published since the previous one (within a time
 * budget), so a frame costs the same with 10 events or 10 M in the store.
 * UI-only state: nothing here is written back to the store. No curses here.
 */
#ifndef KTOP_UI_STATS_H
#define KTOP_UI_STATS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include "draw/rowfmt.h"
#include "lib/hashmap.h"

struct store;

/* An entry seen, its exit still to come: when, and the syscall nr or vector. */
struct ui_open_span {
	uint64_t	ts;			/* 0: none open */
	uint32_t	id;
};

struct ui_cpu_stat {
	uint64_t	seq;			/* next seq to read */
	/*
	 * The flag windows: events with each flag, and the events that have
	 * flags (total); those whose context was not recorded are in @unrec
	 * only (ktop_ctx_recorded()).
	 */
	uint64_t	cur[UI_FLAG_NR], cur_total, cur_unrec;	/* window being filled */
	uint64_t	shown[UI_FLAG_NR], shown_total, shown_unrec;	/* last complete one */
	uint64_t	events;			/* examined since start */
	uint64_t	events_prev;		/* ... at the last tick (a fed table's rate) */
	uint64_t	skipped;		/* not examined: behind, or evicted first */
	uint64_t	appended_prev;
	double		rate;			/* events/s published (a fed table: counted) */
	uint64_t	lost;
	struct ui_open_span	irq, softirq;	/* open irq/softirq entries */
};

/* A top-view row: an event type, or a function, syscall, irq or softirq within one. */
struct ui_top_ent {
	uint64_t	key;			/* type << 32 | sub */
	uint64_t	count, count_prev;
	uint64_t	dur_total, dur_n, dur_max;
	double		rate;
};

#define UI_TOP_KEY(type, sub)	(((uint64_t)(type) << 32) | (uint32_t)(sub))
#define UI_TOP_TYPE(key)	((uint16_t)((key) >> 32))
#define UI_TOP_SUB(key)		((uint32_t)(key))

struct ui_narrow {
	int32_t		pid;		/* -1: any */
	int32_t		cpu;		/* -1: any */
	char		comm[32];	/* "": any */
};

enum ui_sort {
	UI_SORT_COUNT,
	UI_SORT_RATE,
	UI_SORT_TOTAL,
	UI_SORT_AVG,
	UI_SORT_MAX,
	UI_SORT_NAME,
	UI_SORT_NR,
};

struct ui_stats {
	struct store		*st;
	unsigned int		ncpus;
	struct ui_cpu_stat	*cpu;
	uint64_t		*top_seq;	/* per CPU: next seq the top view reads */
	uint64_t		*rescan_end;	/* per CPU: end of a rescan in progress */
	struct ui_top_ent	*tab;		/* rows in order of first sight */
	size_t			cap, n;
	struct hmap		index;		/* key -> row */
	struct ui_narrow	narrow;
	uint8_t			*comm_match;	/* per pid & 0xffff: 0 unknown, 1 no, 2 yes */
	int32_t			*comm_pid;
	struct {
		int32_t			pid;
		struct ui_open_span	span;
	}			*sys;		/* open syscalls by pid & 0xffff */
	uint64_t		last_tick_ns;
	/*
	 * A whole recording's span of trace time (ui_rec_span()), 0 live: set,
	 * the rates are the counts over it (the recording's time base), not what
	 * arrived since the last tick (all of it at once, then nothing).
	 */
	uint64_t		span_ns;
	uint64_t		examined;	/* events read, each once: a recount adds none */
	uint64_t		last_ingest_ns;	/* cost of the last ingest */
	bool			rates_valid;
	bool			rescanning;
	bool			live_skip;	/* live: skip ahead when far behind */
	bool			fed;		/* fed by its owner (ui_stats_count): rates
						 * from the events counted, not the store's */
	uint64_t		gen;		/* bumped by each reset of the top view */
	struct ktop_event	*buf;		/* events read, not yet counted */
};

int ui_stats_init(struct ui_stats *s, struct store *st);
void ui_stats_destroy(struct ui_stats *s);

/**
 * ui_stats_ingest - read what was published since the last call
 * @budget_ns: stop after about this long (0: no limit)
 * @m: the lock that guards @s against the UI thread, or NULL; taken only to
 *     count, never while reading from the store. Call without holding it.
 * Context: one thread at a time (the UI's statistics helper, or a test).
 * Return: the number of events read.
 */
uint64_t ui_stats_ingest(struct ui_stats *s, uint64_t budget_ns, pthread_mutex_t *m);

/* Return: true when events were published that ui_stats_ingest has not read. */
bool ui_stats_behind(struct ui_stats *s);

/* Once a second or so: rates from the counts, and roll the flag windows. */
void ui_stats_tick(struct ui_stats *s, uint64_t now_ns);

/*
 * Count @ev in the top view's table and in its CPU's flag window as
 * ui_stats_ingest does, for a table fed by its owner (under a view filter:
 * the events it matches, ui/stats_view.h).
 */
void ui_stats_count(struct ui_stats *s, const struct ktop_event *ev);

/* Change the top view's narrowing; the top view recounts from the oldest event held. */
void ui_stats_set_narrow(struct ui_stats *s, const struct ui_narrow *n);
void ui_stats_reset_top(struct ui_stats *s);

/* The row's display name into @buf ("sched_switch", "sys_enter id=1", a function). */
const char *ui_top_name(struct ui_stats *s, uint64_t key, char *buf, size_t len);

/**
 * ui_stats_sorted - the top rows sorted by @key, descending (NAME: ascending)
 * @out: receives up to @max pointers into the table (valid until the next ingest)
 * Return: how many.
 */
size_t ui_stats_sorted(struct ui_stats *s, enum ui_sort key, const struct ui_top_ent **out,
		       size_t max);

const char *ui_sort_name(enum ui_sort k);


#endif
