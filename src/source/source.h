/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where the events come from: one interface, two implementations.
 *
 *   source_live   (src/source/source_live.c)  the running kernel: probe what it
 *                 permits, open a tracing session, read its buffers into
 *                 the store; program actions (tracer switch, marks, the
 *                 function filter, recording on/off) act on it.
 *   source_file   (src/source/source_file.c)  a recording: a file in any format
 *                 ktop reads (src/formats/), or a .ktop stream on a pipe,
 *                 read into the store by a loader thread while the views
 *                 draw. It has no kernel to act on: those actions are
 *                 refused with a message saying so.
 *
 * struct app holds one (a->src) and its state (a->src_priv); everything
 * else asks through app.h, which dispatches here. Neither implementation
 * calls the other.
 */
#ifndef KTOP_SOURCE_H
#define KTOP_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct app;
struct bpfstats;
struct snapshot_meta;
struct session;
struct consumer;
struct ftrace_filter;
struct ftrace_filter_result;
struct funcfilter_set;

enum source_flags {
	SOURCE_KERNEL	= 1 << 0,	/* this machine's kernel, now: /proc, tracefs, actions */
	SOURCE_GROWS	= 1 << 1,	/* events keep arriving: views follow the newest */
};

/* What a source was asked to open (main.c fills it from the options). */
struct source_args {
	const char	*path;		/* source_file: a file, or "-" for a stream on @fd */
	int		fd;		/* source_file, "-": the stream's fd (-1: standard input) */
	int		flags;		/* source_file: APP_SNAP_* (app.h) */
};

struct source_ops {
	const char	*name;		/* "live", "file", "stream" */

	/*
	 * start - open the source and make a->st (and a->wake_fd, which the
	 * source writes as events arrive). On failure a negative errno and a
	 * message for the user; the caller calls app_stop() either way.
	 */
	int (*start)(struct app *a, const struct source_args *args, char *err, size_t errlen);
	/* stop - stop writing a->st and free the source's state; safe twice */
	void (*stop)(struct app *a);

	/* SOURCE_* of this source as opened */
	unsigned int (*flags)(const struct app *a);
	/*
	 * feed_end - where a model fed from the store can read up to now
	 * (app_feed_end): a recording, all of it once loaded (0 before); live,
	 * what every CPU has published.
	 */
	uint64_t (*feed_end)(const struct app *a, uint64_t lag_ns);
	/*
	 * meta - the metadata a save writes with the store: the recording's as
	 * it was read; live, read from the running kernel. @stream: for
	 * --stream (the formats of what the session enabled, no kallsyms).
	 * Return: 0 and a copy in @out (snapshot_meta_free it), or a negative
	 * errno with a message (@out is then still usable, partly filled).
	 */
	int (*meta)(struct app *a, struct snapshot_meta *out, bool stream, char *err,
		    size_t errlen);
	/* the tracer of this run, "" for none */
	const char *(*tracer)(const struct app *a);
	/* the tracing instance's name, "" for none */
	const char *(*instance)(const struct app *a);
	/* a recording still being read: 0; its error once the reader failed */
	int (*status)(const struct app *a, bool *loading, char *err, size_t errlen);
	/* wait for the reader to finish (a recording); 0 or its error */
	int (*wait)(struct app *a, char *err, size_t errlen);

	/*
	 * Actions on the kernel (app.h says what each does); NULL where the
	 * source has no kernel: app.h refuses with -ENODEV and a message.
	 */
	int (*switch_tracer)(struct app *a, const char *tracer, char *err, size_t errlen);
	int (*mark)(struct app *a, const char *text);
	int (*set_recording)(struct app *a, bool on);
	/* stop recording and wait until what the buffers hold is in the store */
	void (*drain)(struct app *a);
	const struct ftrace_filter *(*filter)(struct app *a, const char **why);
	int (*filter_apply)(struct app *a, const char *line, struct ftrace_filter_result *res);
	int (*filter_undo)(struct app *a, bool redo, struct ftrace_filter_result *res);
	int (*filter_current)(struct app *a, struct funcfilter_set *out);
	/* the function filter if it was opened, else NULL (opens nothing: the header) */
	const struct ftrace_filter *(*filter_held)(const struct app *a);

	/* the live source's parts some readers show (NULL elsewhere) */
	struct session *(*session)(const struct app *a);
	struct consumer *(*consumer)(const struct app *a);
};

extern const struct source_ops source_live;
extern const struct source_ops source_file;

/* The BPF statistics the recording carries (a stream's BPF blocks), or NULL. */
struct bpfstats *source_file_bpf(const struct app *a);

/* The aggregations' results the recording carries (a .ktop's AGG blocks), or NULL. */
struct agg_set;
struct agg_set *source_file_agg(const struct app *a);

/* When the recording's loader finished (CLOCK_REALTIME ns); 0 while it reads, or live. */
uint64_t source_file_end_rt(const struct app *a);

/* The recording's metadata when @a reads one (source_file), else NULL. */
const struct snapshot_meta *source_file_meta(const struct app *a);

#endif
