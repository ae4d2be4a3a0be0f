/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where the events come from: one interface, two implementations, and the
 * app above them. app -> source.h <- {live, file}: neither source knows the
 * app, nor the other.
 *
 *   live   (source_live.c)  the running kernel: probe what it permits, open a
 *          tracing session, read its buffers into the store; the program's
 *          actions (tracer switch, marks, the function filter, recording
 *          on/off) act on it.
 *   file   (source_file.c)  a recording: a file in any format ktop reads
 *          (src/formats/), or a .ktop stream on a pipe, read into the store
 *          by a loader thread while the views draw. It has no kernel: the
 *          actions are NULL, and app.h refuses them with a message.
 *
 * A source is opened with its inputs (struct source_live_args, struct
 * source_file_args: copies of what the options ask, never rewritten) and a
 * sink (struct source_sink: the eventfd it writes as events arrive; it puts
 * the store it fills there), and returns an opaque struct source. The app
 * holds one and calls its table; an operation a source cannot do is NULL.
 *
 * Live-only facilities are optional tables of their own, NULL for files; a
 * table that is there fills every member. Probes made while tracing (probe,
 * live_probe.c) and stacks (stacks, live_stacks.c) are two. A new one (a BPF
 * aggregation engine, hist triggers in ktop's instance, a network event set)
 * goes the same way:
 *   - a `const struct source_NAME_ops *NAME` member of struct source_ops;
 *   - its implementation in src/source/live_NAME.c, on the live source's
 *     state (struct live_src, live-local.h), started and stopped by
 *     source_live.c's open and close;
 *   - its entry points in src/app/app_NAME.c, which call the table and
 *     refuse with -ENODEV, saying why, where it is NULL.
 */
#ifndef KTOP_SOURCE_H
#define KTOP_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct agg_set;
struct bpfstats;
struct bpf_offcpu;
struct consumer;
struct features;
struct ftrace_filter;
struct ftrace_filter_result;
struct funcfilter_set;
struct probe_caps;
struct probe_def;
struct probe_info;
struct session;
struct session_opts;
struct snapshot_meta;
struct store;

enum source_flags {
	SOURCE_KERNEL	= 1 << 0,	/* this machine's kernel, now: /proc, tracefs, actions */
	SOURCE_GROWS	= 1 << 1,	/* events keep arriving: views follow the newest */
};

/*
 * Where a source puts what it reads. The app makes the eventfd; the source
 * makes the store (it alone knows its CPUs) and sets @st when it exists,
 * even when the open fails after: the app frees it once the source is
 * closed.
 */
struct source_sink {
	int		wake_fd;	/* written (eventfd) as events arrive */
	struct store	*st;		/* set by the open: the store the source fills */
};

/* What the live source is asked: the options', copied at the open. */
struct source_live_args {
	/*
	 * -e, -p, -l, --stack...: copied; the source adds its defaults, --net's
	 * events and the probes' group to its own copy
	 */
	const struct session_opts *so;
	size_t		mem_limit;	/* the store's (-m) */
	double		bpf_interval;	/* seconds between BPF statistics polls */
	bool		no_bpf;		/* --no-bpf */
	bool		bpf_syscalls;	/* --bpf-syscalls */
	bool		offcpu;		/* --offcpu: BPF off-CPU stacks */
	bool		net;		/* --net: the network events this kernel has */
	bool		net_probe;	/* --net=probe: with tcp:tcp_probe */
	const char *const *probes;	/* --probe SPEC */
	unsigned int	nprobes;
	/*
	 * The caller's own work in the kernel (the app's in-kernel
	 * aggregations), called with @before_arg once the kernel's features are
	 * known and the probes made, before the session opens: a negative errno
	 * (and the reason in @err) fails the open with the kernel as it was.
	 * NULL: nothing.
	 */
	int (*before_session)(void *arg, const struct features *ft, char *err, size_t errlen);
	void		*before_arg;
};

/* What the recording source is asked. */
struct source_file_args {
	const char	*path;		/* a file, FILE@NAME, or "-" for a stream on @fd */
	int		fd;		/* "-": the stream's fd (-1: standard input) */
	size_t		mem_limit;	/* the store's (-m) */
	bool		sync;		/* read it all before the open returns */
	bool		end_signal;	/* a stream: SIGTERM ourselves at its end (batch) */
	const char	*tracer;	/* -p: the tracer, when the recording names none */
	const char	*remote;	/* --remote: the host ssh reached (the description) */
};

struct source;

/*
 * source_live_open, source_file_open - open a source
 * @sink: its wake_fd is written as events arrive; the store goes in its st
 * @out: receives the source (close it with its ops' close)
 * Return: 0, or a negative errno with a message for the user in @err; then
 * nothing is left open but the store in @sink->st, if it was made. Live:
 * the kernel is as it was.
 */
int source_live_open(const struct source_live_args *in, struct source_sink *sink,
		     struct source **out, char *err, size_t errlen);
int source_file_open(const struct source_file_args *in, struct source_sink *sink,
		     struct source **out, char *err, size_t errlen);

/* Probes made while tracing (live_probe.c; app.h says what each does). */
struct source_probe_ops {
	/* NULL when probes can be made, else why not (the set is made on first use) */
	const char *(*why)(struct source *s);
	const char *(*group)(const struct source *s);
	const struct probe_caps *(*caps)(struct source *s);
	int (*preview)(struct source *s, const char *spec, struct probe_def *def, char *err,
		       size_t errlen);
	int (*proto)(struct source *s, const char *func, char *buf, size_t len);
	int (*complete)(struct source *s, const char *text, size_t cursor, char **out,
			size_t max, size_t *start);
	int (*add)(struct source *s, const char *spec, struct probe_def *def, char *err,
		   size_t errlen);
	int (*remove)(struct source *s, const char *event, char *err, size_t errlen);
	int (*enable)(struct source *s, const char *event, bool on, char *err, size_t errlen);
	unsigned int (*list)(struct source *s, struct probe_info *out, unsigned int max);
};

/* Stacks while tracing (live_stacks.c; app.h says what each does). */
struct source_stacks_ops {
	int (*add)(struct source *s, const char *spec, unsigned int parts, char *note,
		   size_t notelen, char *err, size_t errlen);
	/* the off-CPU stacks' BPF object (--offcpu), else NULL and *@why (may be "") */
	struct bpf_offcpu *(*offcpu)(const struct source *s, const char **why);
	/* the off-CPU totals into the store's stack table; -ENODEV without --offcpu */
	int (*offcpu_poll)(struct source *s);
};

struct source_ops {
	const char	*name;		/* "live", "file" */

	/* stop writing the store, put the kernel back (live), free @s (not the store) */
	void (*close)(struct source *s);

	/* SOURCE_* of this source as opened */
	unsigned int (*flags)(const struct source *s);
	/* what it traces, and why; or what it reads (the header's "This run") */
	const char *(*describe)(const struct source *s);
	/* CLOCK_MONOTONIC ns its events began at (live: tracing on; a file: the open) */
	uint64_t (*start_ns)(const struct source *s);
	/* what the running kernel permits, probed at the open (live) */
	const struct features *(*features)(const struct source *s);
	/*
	 * feed_end - where a model fed from the store can read up to now
	 * (app_feed_end): a recording, all of it once loaded (0 before); live,
	 * what every CPU has published.
	 */
	uint64_t (*feed_end)(const struct source *s, uint64_t lag_ns);
	/*
	 * meta - the metadata a save writes with the store: the recording's as
	 * it was read; live, read from the running kernel. @stream: for
	 * --stream (the formats of what the session enabled, no kallsyms).
	 * Return: 0 and a copy in @out (snapshot_meta_free it), or a negative
	 * errno with a message (@out is then still usable, partly filled).
	 */
	int (*meta)(struct source *s, struct snapshot_meta *out, bool stream, char *err,
		    size_t errlen);
	/* the metadata of a recording as it was read (not a copy) */
	const struct snapshot_meta *(*recorded_meta)(const struct source *s);
	/* the in-kernel aggregations' results a recording carries (its AGG blocks), or NULL */
	struct agg_set *(*recorded_agg)(const struct source *s);
	/* the tracer of this run, "" for none */
	const char *(*tracer)(const struct source *s);
	/* the events the session was opened with (-e, the defaults, --net's, the probes') */
	unsigned int (*events)(const struct source *s, const char *const **events);
	/* the tracing instance's name, "" for none */
	const char *(*instance)(const struct source *s);
	/* a recording still being read: 0; its error once the reader failed */
	int (*status)(const struct source *s, bool *loading, char *err, size_t errlen);
	/* wait for the reader to finish (a recording); 0 or its error */
	int (*wait)(struct source *s, char *err, size_t errlen);
	/* when the reader finished (CLOCK_REALTIME ns); 0 while it reads */
	uint64_t (*end_rt)(const struct source *s);
	/*
	 * The BPF statistics of this run: live, this machine's poller; a
	 * stream's, once its first BPF block came. NULL, and *@why (may be "")
	 * when there are none. Context: any thread.
	 */
	struct bpfstats *(*bpf)(const struct source *s, const char **why);

	/*
	 * Actions on the kernel (app.h says what each does); NULL where the
	 * source has no kernel: app.h refuses with -ENODEV and a message.
	 */
	int (*switch_tracer)(struct source *s, const char *tracer, char *err, size_t errlen);
	int (*mark)(struct source *s, const char *text);
	int (*set_recording)(struct source *s, bool on);
	/* stop recording and wait until what the buffers hold is in the store */
	void (*drain)(struct source *s);
	const struct ftrace_filter *(*filter)(struct source *s, const char **why);
	int (*filter_apply)(struct source *s, const char *line, struct ftrace_filter_result *res);
	int (*filter_undo)(struct source *s, bool redo, struct ftrace_filter_result *res);
	int (*filter_current)(struct source *s, struct funcfilter_set *out);
	/* the function filter if it was opened, else NULL (opens nothing: the header) */
	const struct ftrace_filter *(*filter_held)(const struct source *s);

	/* the live source's parts some readers show */
	struct session *(*session)(const struct source *s);
	struct consumer *(*consumer)(const struct source *s);

	/* live-only facilities (see the top of this file) */
	const struct source_probe_ops	*probe;
	const struct source_stacks_ops	*stacks;
};

/* What every source is; each implementation embeds it first. */
struct source {
	const struct source_ops	*ops;
};

#endif
