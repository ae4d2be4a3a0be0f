/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The flight recorder: leave ktop running, and get a file of the seconds
 * around a rare event (--save-on COND).
 *
 * The store (src/store/) already is a bounded window of everything traced
 * (-m). The recorder watches it for its conditions; on a match it waits for
 * --save-after seconds of what follows, then writes the window
 * [match - before, match + after] with the exporters (src/formats/), in any
 * output format, to a file named by a pattern (-o 'cap-%t-%n.ktop'), and
 * goes on. A match inside a window still to be written extends it (one file
 * names both); --save-max and a minimum gap (--save-gap) keep a storm from
 * filling the disk; the file system's free space is checked before a write,
 * and a refused or failed write is said and the recorder goes on.
 *
 * Conditions (recorder_cond_parse() has the grammar):
 *   EVENT [if] [FILTER]         sched:sched_process_exec comm ~ "postgres*"
 *   probe SPEC [if FILTER]      a probe of --probe's syntax, on its fields
 *   timerlat [irq|thread|user] > 100us, osnoise > 50us
 *   lost [> N]                  events lost (the kernel's ring buffer, ktop)
 *   runq-p99 > 5ms ...          a BPF statistic over a bound (src/bpfstats/)
 *   latency A -> B [on ...] > 2ms
 *                               an in-kernel A->B latency (src/agg/, --latency's
 *                               spec) over a bound: its measure's new maximum,
 *                               or pairs in its histogram's buckets above the bound
 * FILTER is the kernel's event filter grammar, evaluated on the store with
 * src/view/vfexpr.c.
 *
 * Where the kernel can act at the moment itself, the recorder has it stop
 * recording at the match (--save-after 0): a traceoff trigger on the event in
 * ktop's instance, or the osnoise/timerlat stop_tracing_us settings, so that
 * what led to the match stays in the ring buffer however late user space
 * reads it, as rtla's -a does; once the window is in the store, recording
 * resumes (rtla's --on-threshold continue). Where it cannot, the saves say so.
 *
 * Each file records which conditions matched, when, the window asked for,
 * and what part of it the store still held (eviction for -m and lost events
 * can cut the part before the match): the .ktop metadata's save note
 * (snapshot_meta.save_note), which the JSON and text formats carry too.
 *
 * Threads: one thread ("ktop-recorder") scans the store and writes the
 * files; the functions below may be called from any one other thread (the UI
 * or the batch printer) at a time.
 */
#ifndef KTOP_RECORDER_H
#define KTOP_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct store;
struct snapshot_meta;
struct bpfstats;
struct err_pos;
struct agg_set;

#define RECORDER_MAX_CONDS	16
#define RECORDER_COND_MAX	1024	/* bytes of a condition's text */
#define RECORDER_DEFAULT_PATTERN "ktop-%t-%n.ktop"

/* What a condition watches. */
enum recorder_kind {
	RECORDER_EVENT,		/* an event, optionally filtered */
	RECORDER_PROBE,		/* a probe made for it, optionally filtered */
	RECORDER_LATENCY,	/* a timerlat or osnoise sample over a bound */
	RECORDER_LOST,		/* lost events */
	RECORDER_BPF,		/* a BPF statistic over a bound */
	RECORDER_AGG,		/* an in-kernel A->B latency (src/agg/) over a bound */
};

/* The latency conditions' samples. */
enum recorder_lat {
	RECORDER_LAT_TIMERLAT,		/* any context */
	RECORDER_LAT_TIMERLAT_IRQ,
	RECORDER_LAT_TIMERLAT_THREAD,
	RECORDER_LAT_TIMERLAT_USER,
	RECORDER_LAT_OSNOISE,		/* a single noise (osnoise's max_sample, sample_threshold) */
};

/* A parsed condition. Pure data: no store, no kernel. */
struct recorder_cond {
	enum recorder_kind	kind;
	char			text[RECORDER_COND_MAX];	/* as given, trimmed */
	char			system[64];	/* EVENT: "" when given without one */
	char			event[128];	/* EVENT; PROBE: the probe's event once made */
	char			filter[RECORDER_COND_MAX];	/* "" when none */
	int			filter_pos;	/* where the filter starts in text */
	char			probe[RECORDER_COND_MAX];	/* PROBE: the spec */
	char			agg[RECORDER_COND_MAX];	/* AGG: --latency's spec */
	enum recorder_lat	lat;		/* LATENCY */
	int			metric;		/* BPF: enum bpfstats_metric */
	bool			ge;		/* '>=' rather than '>' */
	uint64_t		bound;		/* LATENCY, AGG, BPF durations: ns; LOST: count;
						 * BPF others: the value x 1000 */
};

/**
 * recorder_cond_parse - read a condition's text (the grammar in recorder.h's head)
 * @err: the message and the byte offset in @text of the problem
 *
 * The syntax only: whether the event exists and has the filter's fields is
 * for recorder_cond_check() against the kernel.
 * Return: 0, or -EINVAL with @err.
 */
int recorder_cond_parse(struct recorder_cond *c, const char *text, struct err_pos *err);

/**
 * recorder_cond_check - the event a condition names, and its filter's
 * fields, against the kernel's formats under @tracefs (read only: nothing is
 * written, so a bad condition changes nothing)
 * @c: an EVENT condition (others are not checked here); a bare NAME gets its
 *     system filled in
 * Return: 0, or -EINVAL/-ENOENT with @err (the offset into c->text).
 */
int recorder_cond_check(struct recorder_cond *c, const char *tracefs, struct err_pos *err);

/* "timerlat 212.4us", "lost 31", "runq-p99 12.0ms": a matched value as text. Return: @buf. */
const char *recorder_value_str(const struct recorder_cond *c, uint64_t value, char *buf,
			       size_t len);

/* --- the whole configuration ----------------------------------------------------- */

struct recorder_opts {
	const char	*conds[RECORDER_MAX_CONDS];	/* --save-on */
	unsigned int	nconds;
	const char	*pattern;	/* -o PATTERN; NULL: RECORDER_DEFAULT_PATTERN */
	uint64_t	before_ns;	/* --save-before (default 10 s) */
	uint64_t	after_ns;	/* --save-after (default 1 s) */
	uint64_t	gap_ns;		/* --save-gap: from a window's end to the next start */
	unsigned int	max;		/* --save-max; 0: no limit */
	/* what the saves honour, as app_save does */
	const char	*views[32];	/* -F clauses */
	unsigned int	nviews;
	unsigned int	dat_version;
	int		dat_compress;
};

#define RECORDER_DEFAULT_BEFORE_NS	(10ull * 1000000000ull)
#define RECORDER_DEFAULT_AFTER_NS	(1ull * 1000000000ull)
#define RECORDER_DEFAULT_GAP_NS		0ull
#define RECORDER_DEFAULT_MAX		100u
/* A window grows with matches inside it up to this far past its first match. */
#define RECORDER_EXTEND_MAX_NS		(60ull * 1000000000ull)

/**
 * recorder_pattern_check - is @pattern a usable -o PATTERN for saves?
 * %n (the save's number), %t (its time, YYYYmmdd-HHMMSS) and %% are the only
 * escapes; without %n or %t each save would replace the last, which is
 * refused unless @max is 1. The format comes from the name's ending
 * (.ktop .dat .json .txt .csv .folded; anything else: .ktop).
 * Return: 0, or -EINVAL with the message in @err.
 */
int recorder_pattern_check(const char *pattern, unsigned int max, char *err, size_t errlen);

/**
 * recorder_pattern_expand - the file name of save @n matched at wall time @wall_ns
 * Return: 0, or -ENAMETOOLONG.
 */
int recorder_pattern_expand(const char *pattern, unsigned int n, uint64_t wall_ns, char *buf,
			    size_t len);

/**
 * recorder_opts_check - every condition's syntax and the pattern (no kernel)
 * Return: 0, or -EINVAL with "--save-on 'COND': why" and a caret line in @err.
 */
int recorder_opts_check(const struct recorder_opts *o, char *err, size_t errlen);

/*
 * What the conditions need of the session, before it opens: the tracer a
 * latency condition implies, the kernel's stop at the match for it
 * (osnoise/stop_tracing_us..., only with --save-after 0), the probes to make.
 */
struct recorder_plan {
	const char	*tracer;	/* "timerlat", "osnoise", or NULL */
	char		tracer_opts[2][48];	/* "stop_tracing_us=100" */
	unsigned int	ntracer_opts;
	char		probes[RECORDER_MAX_CONDS][RECORDER_COND_MAX];	/* the probes' specs */
	unsigned int	nprobes;
	/* the in-kernel latencies to measure (--latency specs), each once */
	char		latencies[RECORDER_MAX_CONDS][RECORDER_COND_MAX];
	unsigned int	nlatencies;
	char		note[256];	/* what the plan could not give */
};

/**
 * recorder_plan - what @o's conditions need of the session
 * @tracer: the tracer asked for (-p), NULL when none
 * Return: 0, or -EINVAL when they need what the command line rules out (a
 * timerlat condition with -p function) with the message in @err.
 */
int recorder_plan(const struct recorder_opts *o, const char *tracer,
		  struct recorder_plan *plan, char *err, size_t errlen);

/* --- the running recorder --------------------------------------------------------- */

/*
 * What the recorder needs of the running program (the app provides it): the
 * store, the metadata a save carries, how far every CPU has published, and
 * the kernel's recording switch. The callbacks are called from the
 * recorder's thread.
 */
struct recorder_host {
	struct store	*st;
	void		*arg;
	/*
	 * the metadata of a save (live: read from the kernel): @full: as app_save
	 * writes it, kallsyms included (a trace.dat writes symbols back as
	 * addresses); else the event formats of the session (as --stream has
	 * them: the kernel's kallsyms cost 0.1-0.3 s a read)
	 */
	int		(*meta)(void *arg, struct snapshot_meta *m, bool full, char *err,
				size_t errlen);
	/* the time every CPU of the store has published up to (app_feed_end) */
	uint64_t	(*published)(void *arg);
	/* turn the kernel's recording back on after a kernel stop; NULL: none */
	int		(*set_recording)(void *arg, bool on);
	/* a probe condition's event (SYS:NAME of the probe made from @spec); NULL: none */
	int		(*probe_event)(void *arg, const char *spec, char *sys, size_t syslen,
				       char *name, size_t namelen);
	/* field names the session's formats know (vfexpr_field_fn), may be NULL */
	bool		(*known_field)(void *arg, const char *name);
	/* ktop's instance directory, for triggers; NULL: none (a recording, the top level) */
	const char	*instance_dir;
	const char	*tracefs;	/* for the events' formats */
	bool		top_level;	/* the session is the top level: no triggers there */
	const char	*tracer;	/* the session's tracer, "" or NULL: none */
	struct bpfstats	*bpf;		/* NULL: no BPF statistics */
	/*
	 * an AGG condition's measure: the index in *@set of the in-kernel
	 * latency @spec measures (made now if need be); NULL: none (a recording)
	 */
	int		(*latency)(void *arg, const char *spec, struct agg_set **set,
				   char *err, size_t errlen);
	int64_t		wall_offset_ns;	/* wall clock - trace clock; 0: unknown */
	int		wake_fd;	/* written after each save (the UI redraws); -1 */
};

struct recorder;

/**
 * recorder_new - a recorder for @o's conditions over @h's store (not started)
 * Conditions are compiled against the store's schema and the session's
 * formats; the kernel's stop at the match is set where it can be.
 * Return: 0 and *@out (free with recorder_free), or a negative errno with the
 * message in @err (a condition that does not fit the session: exit status 2).
 */
int recorder_new(struct recorder **out, const struct recorder_opts *o,
		 const struct recorder_host *h, char *err, size_t errlen);

/* Start the thread. Return: 0 or a negative errno. */
int recorder_start(struct recorder *r);

/**
 * recorder_finish - stop watching, and end the save under way
 * @deadline_ns: CLOCK_MONOTONIC: a window not yet complete is written cut at
 *		 what the store holds now; a write still going at the deadline
 *		 is abandoned, its temporary file removed. Nothing half-written
 *		 is ever left under a save's name.
 * Joins the thread; takes back the kernel's stop triggers. Safe twice.
 */
void recorder_finish(struct recorder *r, uint64_t deadline_ns);

/* recorder_finish() with no time left, and free. Accepts NULL. */
void recorder_free(struct recorder *r);

/* Arm or disarm every condition (the TUI's prompt). */
void recorder_arm(struct recorder *r, bool on);

/**
 * recorder_add - arm one more condition while running (the TUI's prompt)
 * Return: 0, or a negative errno with @err (-ENOSPC: RECORDER_MAX_CONDS).
 */
int recorder_add(struct recorder *r, const char *text, struct err_pos *err);

/* Remove condition @i. Return: 0 or -ENOENT. */
int recorder_remove(struct recorder *r, unsigned int i);

/* Condition @i's text into @buf ("" past the last). Return: whether there is one. */
bool recorder_cond_text(struct recorder *r, unsigned int i, char *buf, size_t len);

struct recorder_status {
	bool		armed;
	unsigned int	nconds;
	uint64_t	matches;	/* every match seen */
	uint64_t	saved;		/* files written */
	uint64_t	failed;		/* saves refused or failed */
	uint64_t	skipped_gap;	/* matches within --save-gap of a window */
	uint64_t	skipped_max;	/* matches after --save-max */
	uint64_t	late;		/* matches inside a window already written */
	bool		pending;	/* a window waits for its after part */
	uint64_t	pending_t1;	/* ... until then (trace clock) */
	bool		max_reached;
	/* the last save: wall time, what matched */
	uint64_t	last_wall_ns;
	char		last_what[96];	/* "timerlat 212.4us", "sched_process_exec" */
	char		kernel[256];	/* the kernel's stop: in use, and why not */
};

void recorder_status(struct recorder *r, struct recorder_status *out);

/* One save, done or refused. */
struct recorder_save {
	uint64_t	id;		/* 1, 2, ... in order of writing */
	int		err;		/* 0: written; a negative errno: refused or failed */
	char		path[512];
	char		cond[RECORDER_COND_MAX];	/* the first match's condition */
	char		what[96];	/* its value: "timerlat 212.4us", "comm rec_target" */
	unsigned int	nmatch;		/* matches in the window */
	uint64_t	match_ts;	/* the first match, trace clock */
	uint64_t	match_wall_ns;	/* ... wall clock (0: unknown) */
	uint64_t	t0, t1;		/* the window written */
	uint64_t	held_from;	/* the oldest time the store held of it (> t0: cut) */
	uint64_t	events, bytes, lost;
	uint64_t	write_ns;	/* the metadata read and the file written (wall) */
	bool		kernel_stop;	/* the kernel stopped recording at the match */
	char		msg[384];	/* the message: why refused, what is missing */
};

/**
 * recorder_saves - the saves numbered after @after_id, oldest first
 * Return: how many were copied (at most @max). The newest
 * RECORDER_SAVES_KEPT are kept.
 */
#define RECORDER_SAVES_KEPT	256
size_t recorder_saves(struct recorder *r, uint64_t after_id, struct recorder_save *out,
		      size_t max);

/* "saved FILE: COND at TIME, window A..B" (or "save refused: ..."), one line. Return: @buf. */
const char *recorder_save_line(const struct recorder_save *s, char *buf, size_t len);

/* "armed: 2 conditions · saved 3 · last 14:02:11 timerlat 212us". Return: @buf. */
const char *recorder_status_line(const struct recorder_status *s, char *buf, size_t len);

#endif
