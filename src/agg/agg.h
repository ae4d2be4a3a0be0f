/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * In-kernel aggregation: A->B latencies and histograms that cost no event
 * stream (--latency, --sql, --hist; issue 26). The kernel measures and sums;
 * ktop reads the sums about once a second.
 *
 * Two engines, one result (struct agg_result):
 *
 *   hist   (agg_hist.c) where the kernel has hist triggers and synthetic
 *          events: a synthetic event ktop_<pid>_<n> carries each START->END
 *          latency, made by triggers on START and END that libtracefs' synth
 *          API (or its SQL, for --sql) spells, written by ktop into its own
 *          instance ktop-agg-<pid> (libtracefs 1.6.4 would write them at the
 *          top level); two triggers on the synthetic event keep the log2
 *          buckets (with each bucket's smallest latency) and the per-key
 *          counts with their maxima (onmax().save()). ktop reads their hist
 *          files (agg_histfile.h).
 *   bpf    (agg_bpf.c) where it has not: one generic tracepoint program
 *          (bpf/agglat.bpf.c) told at load time, in rodata, where the match
 *          fields lie in each record (the format files' offsets), keeps the
 *          START timestamps by match key and the same log2 histogram.
 *
 * The engines pair the same way: an END pairs with the latest START of its
 * key, and consumes it; a START on a key already waiting replaces it.
 * Everything the set makes in the kernel is removed on every exit path:
 * agg_set_free(), agg_emergency() (fatal signals, atexit), and a later
 * ktop's agg_reap_stale() after a SIGKILL. Synthetic events and instances of
 * other tools are never touched.
 *
 * For a flight recorder ("record when an A->B latency exceeds a bound"):
 * agg_max() gives the largest latency so far with its key and END time;
 * agg_watch() calls back from the poller with each new maximum.
 */
#ifndef KTOP_AGG_H
#define KTOP_AGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agg_spec.h"

#define AGG_BUCKETS	64	/* bucket b holds values in (2^(b-1), 2^b]; b = 0: 0 and 1 */
#define AGG_MAX_ITEMS	32
#define AGG_KEYTEXT	96

enum agg_engine { AGG_ENGINE_AUTO, AGG_ENGINE_HIST, AGG_ENGINE_BPF, AGG_ENGINE_BOTH };

/* One row of the per-key breakdown, or of a --hist table. */
struct agg_row {
	char		key[AGG_KEYTEXT];	/* "1234", "bash", "bash, 12": the key's values */
	uint64_t	count;
	uint64_t	sum;			/* latencies (ns); --hist: the val field's sum */
	uint64_t	max;			/* the largest latency (ns) */
	uint64_t	max_te;			/* its END's time (trace clock ns), 0: unknown */
};

/* The largest latency of a measure: what a recorder watches. */
struct agg_worst {
	uint64_t	lat_ns;
	uint64_t	te_ns;			/* its END's time (mono ns); 0: not known */
	char		key[AGG_KEYTEXT];	/* its breakdown key */
};

/* A measure's figures at its last poll (a copy: the caller owns it). */
struct agg_result {
	unsigned int	idx;			/* in the set, from 0 */
	enum agg_spec_kind kind;
	char		title[AGG_TEXT_MAX];	/* the spec, normalised (agg_spec_title) */
	char		start[2 * AGG_NAME_MAX], end[2 * AGG_NAME_MAX];	/* event names */
	char		keynames[AGG_TEXT_MAX];	/* "next_pid", "prev_comm, prev_pid" */
	const char	*engine;		/* "hist" or "bpf" */
	char		why[256];		/* why that engine */
	char		kobj[AGG_NAME_MAX];	/* hist: the synthetic event; bpf: "" */
	bool		running;		/* false: stopped, or failed (see error) */
	char		error[256];		/* a poll that failed */
	uint64_t	polled_ns;		/* CLOCK_MONOTONIC of the last poll, 0: none yet */
	double		rate;			/* pairs (--hist: events) per second, last interval */
	/* latencies (AGG_LATENCY): pairs; AGG_HIST: events counted */
	uint64_t	count, sum_ns, min_ns, max_ns;
	/* bucket b: values in (2^(b-1), 2^b] units of unit_ns (1; 1000 for --sql in usecs) */
	uint64_t	bucket[AGG_BUCKETS];
	unsigned int	unit_ns;
	struct agg_worst worst;
	/* what was left out: pairs or events the engine's maps had no room for */
	uint64_t	dropped;
	uint64_t	keys_dropped;		/* pairs left out of the breakdown (rows full) */
	uint64_t	starts, ends;		/* records that passed their filters, where known */
	size_t		nrows;
	struct agg_row	*rows;			/* by count, largest first (malloc'd) */
};

/* The value at quantile @q (0..1) of a log2 histogram, interpolated, within [min, max]. */
uint64_t agg_quantile(const struct agg_result *r, double q);
/* @ns as "850ns", "2.13us", "12.3ms", "1.20s". Return: @buf. */
char *agg_fmt_ns(char *buf, size_t len, uint64_t ns);
/* Free @r's rows (the result itself is the caller's). */
void agg_result_clear(struct agg_result *r);
/* Copy @src into @dst (rows duplicated). Return: 0 or -ENOMEM. */
int agg_result_copy(struct agg_result *dst, const struct agg_result *src);
/*
 * The bucket @v falls in: the kernel's .log2, ilog2(roundup_pow_of_two(v)); values
 * above 2^63 in the last (AGG_BUCKETS - 1), as agg_bucket_bounds() has it.
 */
unsigned int agg_bucket(uint64_t v);
/**
 * agg_bucket_bounds - bucket @b's bounds in ns, (lo, hi], of a histogram in
 * units of @unit_ns (0: 1): (2^(b-1), 2^b] units; bucket 0 is (0, 1] and
 * holds 0 too. The last bucket takes everything above: its @hi is UINT64_MAX,
 * as is any bound beyond 64 bits.
 */
void agg_bucket_bounds(unsigned int unit_ns, unsigned int b, uint64_t *lo, uint64_t *hi);

struct agg_set;

struct agg_opts {
	const char	*tracefs;	/* the tracefs mount */
	const char	*events_dir;	/* its events/ (tests: a fixture's); NULL: tracefs/events */
	enum agg_engine	engine;		/* --agg-engine; AUTO: hist where the kernel has it */
	const char	*clock;		/* the session's trace clock ("mono"), for timestamps */
	unsigned int	poll_ms;	/* 0: 1000 */
	bool		has_hist;	/* the kernel has hist triggers and synthetic events */
	bool		has_bpf;	/* ... and may load BPF tracepoint programs */
	const char	*no_bpf_why;	/* why not, when !has_bpf */
};

/* Return: 0 and *@out (free with agg_set_free), or a negative errno. */
int agg_set_new(struct agg_set **out, const struct agg_opts *o, char *err, size_t errlen);

/**
 * agg_set_add - parse, check and make one measure in the kernel, all or nothing
 * @kind: AGG_LATENCY for a --latency spec, AGG_HIST for --hist
 * @sql: @text is sqlhist's SQL (--sql; hist engine only)
 * @err: what is wrong (the field or event, with a caret; the kernel's
 *	 error_log line and caret where the kernel refused), nothing made
 * Context: not the poller's thread; the set's lock is taken.
 * Return: the measure's index, or a negative errno.
 */
int agg_set_add(struct agg_set *s, enum agg_spec_kind kind, bool sql, const char *text,
		char *err, size_t errlen);

/*
 * agg_set_new_fed - a set of results that come from elsewhere (a .ktop file
 * or stream's AGG blocks): no kernel, no poller; agg_set_feed replaces its
 * results (by idx), agg_set_result reads them.
 */
int agg_set_new_fed(struct agg_set **out);
/* Take @n results (their rows too: @res's are cleared). Return: 0 or -EINVAL/-ENOMEM. */
int agg_set_feed(struct agg_set *s, struct agg_result *res, unsigned int n);

/* Start the poller thread (once the measures of the command line are made). */
int agg_set_start(struct agg_set *s);

/* Poll every measure now (the caller's thread), e.g. for a last summary. */
void agg_set_poll(struct agg_set *s);

/* Stop polling, remove everything from the kernel, free. Accepts NULL. */
void agg_set_free(struct agg_set *s);

unsigned int agg_set_count(const struct agg_set *s);

/*
 * agg_set_result - a copy of measure @i's figures at its last poll
 * @out: the caller's (agg_result_clear it)
 * Context: any thread.
 */
int agg_set_result(struct agg_set *s, unsigned int i, struct agg_result *out);

/* The engines this kernel offers and which AUTO picks, as a sentence. */
const char *agg_set_engine_why(const struct agg_set *s);

/* ---- for a flight recorder --------------------------------------------- */

/*
 * agg_max - the largest latency measure @i has seen (at its last poll)
 * Return: 0 (@out filled), -ENOENT (none yet), -EINVAL (no such latency).
 * Context: any thread.
 */
int agg_max(struct agg_set *s, unsigned int i, struct agg_worst *out);

/*
 * agg_watch - call @fn(@arg, i, worst) from the poller thread each time a
 * poll finds a latency measure's maximum larger than at the poll before
 * (at most once per measure per poll: a poll interval's largest). One
 * watcher per set; NULL removes it.
 * Context: @fn runs on the poller thread and must not call agg_set_add/free.
 */
void agg_watch(struct agg_set *s, void (*fn)(void *arg, unsigned int i,
					     const struct agg_worst *w), void *arg);

/* ---- what a killed ktop left ------------------------------------------- */

/*
 * agg_reap_stale - remove the ktop-agg-<pid> instances (their triggers
 * first) and the ktop_<pid>_* synthetic events of ktops that are dead
 * Return: how many objects were removed.
 */
int agg_reap_stale(const char *tracefs, bool (*alive)(long pid));

/* Remove what the live set made, without allocating. Context: async-signal-safe. */
void agg_emergency(void);

#endif
