/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The recorder's private parts, shared by its files:
 *
 *   rec_cond.c     conditions: the grammar, the check against the kernel
 *   rec_window.c   which matches make which file: windows, gap, --save-max
 *   rec_scan.c     finding matches in the store, the lost marks, the BPF series
 *   rec_save.c     writing one save: its name, free space, what the store held, the note
 *   rec_kernel.c   the kernel's stop at the match (traceoff triggers)
 *   recorder.c     the object and its thread
 */
#ifndef KTOP_RECORDER_LOCAL_H
#define KTOP_RECORDER_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "recorder.h"

struct agg_set;
struct vfexpr;
struct store;
struct store_chunk_rd;
struct ktop_event;

/* ---- rec_window.c: the windows (pure: times in, decisions out) ---------------------- */

#define REC_MATCHES_KEPT	16	/* matches a save names; more are counted */

struct rec_match {
	unsigned int	cond;		/* index of the condition */
	uint64_t	ts;		/* trace clock */
	uint64_t	value;		/* what crossed the bound (latency, count), 0: none */
	int32_t		pid;		/* the event's task, -1: none */
	uint16_t	cpu;
	bool		kstop;		/* the kernel stopped recording at it */
	char		what[96];	/* "timerlat 212.4us", "comm rec_target pid 42" */
};

/* A window waiting for its after part. */
struct rec_pending {
	bool		active;
	uint64_t	first;		/* the first match */
	uint64_t	t0, t1;		/* the window */
	unsigned int	nmatch;		/* every match in it */
	struct rec_match m[REC_MATCHES_KEPT];	/* the first REC_MATCHES_KEPT */
	bool		kstop;		/* a kernel stop: recording is off until it is written */
};

#define REC_READY_MAX		8	/* closed windows waiting to be written */

/*
 * A kernel stop stops the CPU of the match at once, the others when it
 * reaches them: events up to REC_KSTOP_SLACK_NS after the match are theirs
 * (18 ms seen in a 6.1-rt guest under TCG, whose vCPUs take turns), a later
 * one says the kernel did not stop. Its window is written once every CPU has
 * published up to REC_KSTOP_SETTLE_NS after the match, so that the verdict
 * sees past the slack.
 */
#define REC_KSTOP_SLACK_NS	(150ull * 1000 * 1000)
#define REC_KSTOP_SETTLE_NS	(300ull * 1000 * 1000)

struct rec_window {
	uint64_t	before, after, gap, extend_max;
	unsigned int	max;		/* 0: no limit */
	unsigned int	opened;		/* windows opened (each becomes a save, or a refusal) */
	uint64_t	written_t1;	/* the end of the last window handed out, 0: none */
	/* windows closed (a later match opened the next) and the open one, oldest first */
	struct rec_pending w[REC_READY_MAX + 1];
	unsigned int	n;
	/* counts */
	uint64_t	matches, skipped_gap, skipped_max, late;
};

/* What became of a match. */
enum rec_verdict {
	REC_NEW,		/* it opened a window */
	REC_EXTENDED,		/* inside the window waiting: named there (and extended) */
	REC_GAP,		/* within --save-gap of the last window: skipped */
	REC_MAX,		/* --save-max reached: skipped */
	REC_LATE,		/* inside a window already written: skipped */
};

void rec_window_init(struct rec_window *w, uint64_t before, uint64_t after, uint64_t gap,
		     unsigned int max);
/* Feed one match (in any order of time; the thread sorts each poll's). */
enum rec_verdict rec_window_match(struct rec_window *w, const struct rec_match *m);
/*
 * Is the oldest waiting window complete, every CPU having published up to
 * @published (REC_KSTOP_SETTLE_NS past a kernel stop's match)?
 */
bool rec_window_due(const struct rec_window *w, uint64_t published);
/* Hand out the oldest waiting window (into @out). Return: false when none waits. */
bool rec_window_take(struct rec_window *w, struct rec_pending *out);
/* The oldest window waiting, or NULL. */
const struct rec_pending *rec_window_next(const struct rec_window *w);
/* --save-max reached and nothing waits: nothing more will be written. */
bool rec_window_done(const struct rec_window *w);

/* ---- rec_cond.c ------------------------------------------------------------------ */

/* Parse a duration "100us", "2.5ms", "1s", "300" (us). Return: 0 or -EINVAL. */
int rec_parse_duration(const char *s, size_t len, uint64_t *ns);

/* ---- rec_scan.c: one compiled condition ---------------------------------------------- */

struct rec_watch {
	struct recorder_cond	c;
	struct vfexpr		*x;		/* the filter; NULL: none */
	uint8_t			*tok;		/* by type id: 0 unknown, 1 no, 2 yes (the event) */
	size_t			ntok;
	bool			kstop;		/* the kernel stops recording at its matches */
	char			trigger[RECORDER_COND_MAX + 64];	/* the trigger file's line */
	char			trigger_path[512];	/* "" when none set */
	uint64_t		bpf_last;	/* BPF: the newest sample time seen (mono) */
	uint64_t		lost_seq;	/* LOST: the next lost mark to look at */
	/* AGG: the measure, and what its last poll seen held */
	struct agg_set		*agg;
	unsigned int		agg_idx;
	uint64_t		agg_looked;	/* when the measure was last looked at (mono) */
	uint64_t		agg_polled;	/* its poll's time (mono), 0: none yet */
	uint64_t		agg_max;	/* the largest latency then */
	uint64_t		agg_bucket[64];	/* its histogram then (AGG_BUCKETS) */
};

struct rec_scan {
	struct store		*st;
	unsigned int		ncpus;
	uint64_t		*next;		/* per CPU: the next seq to look at */
	struct store_chunk_rd	*rd;
	uint64_t		from;		/* matches at or after this time only */
};

int rec_scan_init(struct rec_scan *s, struct store *st, uint64_t from);
void rec_scan_destroy(struct rec_scan *s);

/*
 * Compile @w->c against @st (the filter, the event's type as it appears).
 * Return: 0, or -EINVAL with @err.
 */
int rec_watch_compile(struct rec_watch *w, struct store *st, bool (*known)(void *, const char *),
		      void *arg, struct err_pos *err);
void rec_watch_destroy(struct rec_watch *w);

/*
 * The store's new events up to @upto, against the event/probe/latency
 * watches: each match goes to @fn. Return: how many events were read.
 */
uint64_t rec_scan_events(struct rec_scan *s, struct rec_watch *const *w, unsigned int nw,
			 uint64_t upto, void (*fn)(void *arg, const struct rec_match *m),
			 void *arg);

/* The lost marks since the last call, against LOST watch @w. */
void rec_scan_lost(struct rec_scan *s, struct rec_watch *w, unsigned int idx,
		   void (*fn)(void *arg, const struct rec_match *m), void *arg);

/* A latency watch's sample value (ns) of @ev, or 0 when @ev is not its sample. */
uint64_t rec_latency_value(const struct recorder_cond *c, uint16_t type, const uint64_t *args,
			   uint8_t nargs);

/* ---- rec_save.c ---------------------------------------------------------------------- */

struct snapshot_meta;
struct viewfilter;

struct rec_save_req {
	const struct rec_pending	*p;
	const struct rec_watch		*const *w;	/* by cond index, for their texts */
	unsigned int			nw;
	const char			*pattern;
	unsigned int			id;		/* the save's number */
	uint64_t			before, after;	/* asked */
	int64_t				wall_offset_ns;
	struct viewfilter		*view;		/* -F; NULL: everything */
	unsigned int			dat_version;
	int				dat_compress;
	const int			*cancel;	/* export_opts.cancel */
	const char			*cut;		/* why the window ends early, or NULL */
	bool				kstop_failed;	/* asked to stop, the kernel did not */
	double				per_event;	/* bytes per event the last save took */
	/*
	 * When recording was off inside the window (an earlier kernel stop): from
	 * the last event recorded before the stop reached every CPU to the
	 * recorder's restart, and the match it stopped at (off_match <= off[][0]).
	 */
	uint64_t			off[16][2];
	uint64_t			off_match[16];
	unsigned int			noff;
};

/*
 * Write one save from @st with @meta (its save_note is set here). Fills @out
 * (the record) whatever happens. Return: 0, or a negative errno (@out->msg).
 */
int rec_save_write(const struct rec_save_req *q, struct store *st, struct snapshot_meta *meta,
		   struct recorder_save *out);

/* The note a save carries (snapshot_meta.save_note). Return: a malloc'd text, or NULL. */
char *rec_save_note(const struct rec_save_req *q, const struct recorder_save *s);

/* Events the store holds in [@t0, @t1], from the CPUs' seeks (none read). */
uint64_t rec_store_events(struct store *st, uint64_t t0, uint64_t t1);

/*
 * The newest event the store holds in [@t0, @t1), over every CPU. Return: its
 * time, or @t0 when there is none.
 */
uint64_t rec_store_last(struct store *st, uint64_t t0, uint64_t t1);

struct format_ops;

/*
 * Roughly the bytes a save of @events events takes in format @f (a little
 * more, rather than less): by the format's figure, or by @learnt, the bytes
 * per event the last save of this run took (0: none yet).
 */
uint64_t rec_save_estimate(const struct format_ops *f, uint64_t events, unsigned int dat_version,
			   int dat_compress, double learnt);

/*
 * Is there room for @need bytes in the file system of @path, with a reserve
 * left over? Return: 0, or -ENOSPC with the message in @msg.
 */
int rec_space_check(const char *path, uint64_t need, char *msg, size_t len);

/* ---- rec_kernel.c: the traceoff trigger on an event of ktop's instance ------------------ */

/*
 * Put "traceoff [if FILTER]" on @w's event in @instance_dir. Return: 0, or a
 * negative errno with why not in @why (the kernel's refusal).
 */
int rec_kernel_trigger_set(struct rec_watch *w, const char *instance_dir, char *why, size_t len);
/* Take it back ("!traceoff..."). Safe when none was set. */
void rec_kernel_trigger_clear(struct rec_watch *w);

#endif
