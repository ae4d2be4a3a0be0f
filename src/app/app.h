/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The running program: options, what the kernel permits, the tracing session,
 * the store and the collectors. main() builds one, then hands it to the batch
 * printer (src/batch/batch.c) or the TUI (ui/ui.h). Nothing here includes curses.
 */
#ifndef KTOP_APP_H
#define KTOP_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "kernel/features.h"
#include "source/remote.h"
#include "kernel/session.h"
#include "recorder/recorder.h"
#include "source/source.h"

struct store;
struct fgraph;
struct ktop_event;
struct consumer;
struct bpfstats;
struct snapshot_meta;
struct session;
struct ftrace_filter;
struct ftrace_filter_result;
struct funcfilter_set;
struct probe_set;
struct viewfilter;
struct taskrel;
struct probe_def;
struct probe_info;
struct probe_caps;
struct bpf_offcpu;
struct agg_set;
struct remote;

/* What an entry of app_opts.aggs is. */
enum app_agg_kind { APP_AGG_LATENCY, APP_AGG_HIST, APP_AGG_SQL };

/* --net: the network events this kernel has; with tcp:tcp_probe (per packet). */
enum { APP_NET_ON = 1, APP_NET_PROBE = 2 };

struct app_opts {
	struct session_opts	so;
	size_t			memory;		/* -m, bytes */
	bool			batch;
	bool			json;
	bool			features_only;
	bool			no_bpf;
	bool			bpf_syscalls;	/* --bpf-syscalls */
	double			interval;	/* --interval, seconds */
	double			duration;	/* --duration, seconds, 0: none */
	long			iterations;	/* --iterations, 0: none */
	const char		*output;	/* -o */
	const char		*input;		/* -i */
	const char		*diff;		/* --diff NEW: -i is the baseline ("live": now) */
	const char		*theme;		/* --theme */
	bool			demo;		/* --demo */
	bool			stream;		/* --stream */
	size_t			stream_rate;	/* --stream-rate, bytes/s, 0: unbounded */
	const char		*probes[SESSION_MAX_LIST];	/* --probe SPEC */
	unsigned int		nprobes;
	/* in-kernel aggregations (src/agg/agg.h), in the order given */
	const char		*aggs[SESSION_MAX_LIST];	/* --latency, --hist, --sql */
	uint8_t			agg_kind[SESSION_MAX_LIST];	/* enum app_agg_kind */
	unsigned int		naggs;
	int			agg_engine;	/* --agg-engine: enum agg_engine */
	const char		*views[SESSION_MAX_LIST];	/* -F, --view */
	unsigned int		nviews;
	bool			hide_self;	/* --hide-self */
	unsigned int		dat_version;	/* --dat-version: trace.dat 6 or 7, 0: 7 */
	int			dat_compress;	/* --dat-compress: enum tracedat_compress */
	bool			offcpu;		/* --offcpu: BPF off-CPU stacks */
	uint8_t			net;		/* --net: APP_NET_ON, APP_NET_PROBE; 0: off */
	const char		*folded;	/* --folded: what -o FILE.folded holds */
	/* --remote: ssh runs ktop --stream there, the view reads it (src/source/remote.h) */
	struct remote_opts	remote;		/* .dest NULL: not remote */
	/* --save-on and its settings (the flight recorder); rec.pattern is -o's */
	struct recorder_opts	rec;
	unsigned int		save_set;	/* 1: --save-on, 2: one of its settings given */
	/* Performance Co-Pilot (src/pcp/) */
	bool			pmda;		/* --pmda: be pmcd's agent */
	int			pmda_domain;	/* -d N with --pmda; 0: ktop's */
	bool			pmda_notready;	/* --notready: pmcd.conf says notready */
	const char		*pmda_files;	/* --pmda-files DIR */
	const char		*pcp_hosts;	/* --pcp HOST[,HOST...] */
	const char		*pcp_archive;	/* --pcp-archive ARCHIVE[,ARCHIVE...] */
	const char		*pcp_start;	/* --start, --finish, --origin: PCP's time */
	const char		*pcp_finish;	/*   window of an archive (PCPIntro(1)) */
	const char		*pcp_origin;
	/* -e EVENT:stack: EVENT without its suffix (so.events and so.stacks point here) */
	char			specbuf[SESSION_MAX_LIST][128];
	unsigned int		nspecbuf;
};

/*
 * The running program. Who writes each field (everyone may read it, on the
 * thread that owns the app unless it says otherwise):
 *   main/opts.c   opts, before the start (app_recorder_prepare adds to it);
 *                 main may add to mode_why and set start_ns after the start
 *   app.c         ft, st, wake_fd, start_ns, mode_why at the start (what the
 *                 source said), src; they stay until app_stop()
 *   app_view.c    view, rel, rec_t0; app_recorder.c rec, rec_plan; app_agg.c agg,
 *                 agg_why; main remote
 * What the source keeps to itself (the session, probes, stacks, BPF) is asked
 * through the functions below.
 */
struct app {
	struct app_opts		opts;
	struct features		ft;		/* what the kernel permits; zero for a recording */
	struct store		*st;		/* the source fills it; threads read it lock-free */
	int			wake_fd;	/* eventfd the source writes as events arrive */
	uint64_t		start_ns;	/* CLOCK_MONOTONIC at start */
	char			mode_why[256];	/* what ktop chose to trace, and why */
	/* where the events come from (src/source/source.h): the live kernel or a recording */
	struct source		*src;
	char			probe_why[512];	/* app_probe_why()'s, when the source has none */
	/* --latency, --hist, --sql: live, the set measuring (src/app/app_agg.c) */
	struct agg_set		*agg;
	int			agg_idx[SESSION_MAX_LIST];	/* opts.aggs[i]'s measure */
	char			agg_why[512];	/* no set: why; a set: its engines */
	/* what readers of the store honour (src/app/app_view.c) */
	struct viewfilter	*view;		/* --view; the UI's later */
	struct taskrel		*rel;
	uint64_t		rec_t0;		/* a recording: its first event seen */
	struct remote		*remote;	/* --remote: the ssh link (main's) */
	/* --save-on: the flight recorder (src/app/app_recorder.c); NULL: none */
	struct recorder		*rec;
	struct recorder_plan	rec_plan;	/* what its conditions asked of the session */
};

/**
 * app_start - trace the running kernel (the live source, src/source/source_live.c):
 * probe, open the session, start collectors
 * @err: the message for the user on failure
 * Return: 0, or a negative errno; on failure the kernel state is unchanged.
 */
int app_start(struct app *a, char *err, size_t errlen);

/* Stop the source (collectors, session: the kernel restored), free the store. Safe twice. */
void app_stop(struct app *a);

/* SOURCE_* (src/source/source.h): a kernel to act on, events that keep arriving. 0 before a start. */
unsigned int app_flags(const struct app *a);
/* The live session and its readers, for what shows them (NULL for a recording). */
struct session *app_session(const struct app *a);
struct consumer *app_consumer(const struct app *a);
/* The tracing instance's name ("ktop-1234", "(top level)"), "" for a recording. */
const char *app_instance(const struct app *a);
/* A recording's metadata as it was read, NULL live. */
const struct snapshot_meta *app_recording_meta(const struct app *a);
/*
 * The metadata a save writes with the store (the source's meta operation):
 * the recording's, or the running kernel's; @stream: --stream's (no kallsyms).
 * Return: 0 and @out filled (snapshot_meta_free it), or a negative errno with
 * the message (@out still usable, partly filled).
 */
int app_meta(struct app *a, struct snapshot_meta *out, bool stream, char *err, size_t errlen);
/* When a stream or file finished being read (CLOCK_REALTIME ns); 0 while it reads, or live. */
uint64_t app_end_rt(const struct app *a);
/*
 * Stop recording and wait until the readers have brought in what the kernel
 * held (--duration's last summary). Nothing for a recording.
 */
void app_drain(struct app *a);

/* ---- recordings: src/source/source_file.c ---- */

#define APP_SNAP_SYNC		1	/* read the whole .ktop before returning */
#define APP_SNAP_END_SIGNAL	2	/* -i -: SIGTERM ourselves at the stream's end */

/**
 * app_open_snapshot - open a .ktop or trace.dat file (or a stream) instead of tracing
 * @path: a file, or "-" for a .ktop stream on @in_fd (-1: standard input)
 * @flags: APP_SNAP_*
 *
 * The recording source (src/source/source_file.c). Touches no tracefs and needs no
 * root. The format comes from the content (src/formats/format.h). A loader
 * thread reads it (unless APP_SNAP_SYNC), writing a->wake_fd as blocks
 * arrive: a->st exists on return, and grows. A stream has SOURCE_GROWS.
 * Return: 0, or a negative errno with a message naming the file in @err
 * (the caller exits with status 2). Call app_stop() in either case.
 */
int app_open_snapshot(struct app *a, const char *path, int in_fd, int flags, char *err,
		      size_t errlen);

/* True while a loader thread is still filling a->st. */
bool app_loading(const struct app *a);

/*
 * The end of the time window the tracer panes may feed from an offline
 * store: 0 while it is still loading (wait), then everything.
 */
uint64_t app_snapshot_end(const struct app *a);

/* Join the loader. Return: 0, or its error (message in @err). */
int app_loader_wait(struct app *a, char *err, size_t errlen);

/* The loader's error once it has finished with one, else 0. Context: any thread. */
int app_loader_status(const struct app *a, char *err, size_t errlen);

/* ---- streams: -i -, --remote (src/app/app_remote.c) ---- */

enum app_stream_state {
	APP_STREAM_NONE,	/* not a stream: live, or a file */
	APP_STREAM_RUNNING,	/* still arriving */
	APP_STREAM_ENDED,	/* ended properly (its END block: the far side stopped) */
	APP_STREAM_CUT,		/* cut off: the link dropped, the far side died */
};

/* Where the stream being read stands. Context: any thread. */
enum app_stream_state app_stream_state(const struct app *a);

/**
 * app_stream_end_desc - one line on a stream that ended, for the view and stderr
 * @buf: "disconnected from HOST at 14:03:22 after 12345 events (ssh killed by
 *       signal 9; standard input: truncated ...)", "stream from HOST ended at
 *       ...", or "" while the stream runs (or is none)
 *
 * Return: app_stream_state().
 * Context: any thread.
 */
enum app_stream_state app_stream_end_desc(const struct app *a, char *buf, size_t len);

/**
 * app_save - write the store (or the window [@t0, @t1]; both 0: all) to @path
 * @fmt: enum format_id, or -1 to choose by the name (.ktop when unknown)
 * @file_flags: enum safefile_out_flags (the view: SAFEFILE_OUT_NO_TERMINAL)
 *
 * Live, the metadata comes from the running kernel (uname, tracefs formats,
 * kallsyms); offline, from the snapshot. A regular file is replaced
 * atomically, mode 0600; "-", a device or a FIFO is written in place
 * (src/lib/safefile.h).
 * Return: 0, or a negative errno with a message naming @path in @err.
 */
int app_save(struct app *a, const char *path, int fmt, uint64_t t0, uint64_t t1,
	     unsigned int file_flags, char *err, size_t errlen);

/*
 * The BPF statistics to show: this machine's (a->bpf), or those a stream
 * carries (the far side's, once its first BPF block came); NULL: none.
 * Context: any thread.
 */
struct bpfstats *app_bpf(const struct app *a);

/*
 * The in-kernel aggregations (src/agg/agg.h): live, the set measuring
 * --latency/--hist/--sql and what the latency pane added; for a recording,
 * the results its AGG blocks carry. NULL when there are none.
 */
struct agg_set *app_agg(const struct app *a);
/* Which engines measure and why, or why nothing does. */
const char *app_agg_why(const struct app *a);
/*
 * app_agg_add - measure @text (a --latency spec, --hist with @kind
 * APP_AGG_HIST, SQL) from now on: live only (-ENODEV with a message for a
 * recording); the set is made with the first.
 * Context: the UI thread. Return: the measure's index, or a negative errno
 * with the reason in @err (nothing made).
 */
int app_agg_add(struct app *a, enum app_agg_kind kind, const char *text, char *err,
		size_t errlen);
/* Live: make the set and the measures of the options, all or none (app_start). */
int app_agg_start(struct app *a, char *err, size_t errlen);
/* Live: remove every measure from the kernel, free the set. Safe twice. */
void app_agg_stop(struct app *a);
/* Why there are no BPF statistics to show, "" when there are or nobody said. */
const char *app_bpf_why(const struct app *a);

/* The events this run traces, as the session was opened with them (-e, the defaults, --net). */
unsigned int app_events(const struct app *a, const char *const **events);

/**
 * app_stream - ktop --stream: write a .ktop stream of the live store to @fd
 * every 100 ms until a terminating signal, --duration, or the reader going
 * away (EPIPE: quietly). The caller then calls app_stop(), which restores
 * the kernel.
 * Return: the exit status.
 */
int app_stream(struct app *a, int fd, uint64_t max_bytes_per_sec, FILE *log);

/* ---- stacks: src/app/app_stacks.c (the source's stacks facility) ---- */

/**
 * app_stacks_add - kernel (@parts STACKTRIG_KERN) or user stacks of the
 * events @spec names from now on, while tracing goes on ("stacks for this
 * event" in the interactive view): session_stack_add(), and the decoders told
 * with the readers stopped.
 * @note: what it costs beyond the events asked (options instead of a
 *	  trigger), or ""
 * Return: 0, -ENODEV (not live: a recording), or a negative errno; @err says
 * what --stack would say.
 * Context: the thread that owns the app.
 */
int app_stacks_add(struct app *a, const char *spec, unsigned int parts, char *note,
		   size_t notelen, char *err, size_t errlen);

/* The off-CPU stacks' BPF object (--offcpu, live), else NULL. */
struct bpf_offcpu *app_offcpu(const struct app *a);
/* Why there is none when --offcpu asked for it, else "". */
const char *app_offcpu_why(const struct app *a);
/*
 * Read the off-CPU totals into the store's stack table (the batch printer
 * each interval, the exporters before writing). Context: one thread at a
 * time. Return: 0, -ENODEV without --offcpu, or a negative errno.
 */
int app_offcpu_poll(struct app *a);

/* ---- the flight recorder: src/app/app_recorder.c ---- */

/* How long a save under way may go on once ktop is told to stop (then it is abandoned). */
#define APP_RECORDER_FINISH_NS	(600ull * 1000 * 1000)

/**
 * app_recorder_prepare - what --save-on's conditions need of the session,
 * into the options before app_start(): the tracer a latency condition
 * implies, the kernel's stop threshold (-O stop_tracing_us, with
 * --save-after 0), the probes of probe conditions, the events of event
 * conditions next to explicit -e options. Nothing is written to the kernel.
 * Return: 0, or -EINVAL with the message (exit status 2).
 */
int app_recorder_prepare(struct app *a, char *err, size_t errlen);

/**
 * app_recorder_start - the flight recorder over the live store (after
 * app_start): its conditions checked against the session, the kernel's stop
 * set where it can be, its thread started.
 * Return: 0, or a negative errno with the message (exit status 2; the caller
 * calls app_stop(), which puts the kernel back).
 */
int app_recorder_start(struct app *a, char *err, size_t errlen);

/**
 * app_recorder_add - arm one more condition while tracing (the view's
 * recorder prompt); the recorder is made on the first, with the command
 * line's --save-* settings and -o pattern (default ktop-%t-%n.ktop)
 * @err: what is wrong, a caret line under the condition's problem
 * Return: 0, or a negative errno (-ENODEV: not live).
 * Context: the thread that owns the app.
 */
int app_recorder_add(struct app *a, const char *text, char *err, size_t errlen);

/*
 * app_recorder_finish - stop watching; windows still waiting are written cut
 * at what is held, a write still going at @deadline_ns (CLOCK_MONOTONIC) is
 * abandoned (nothing half-written is left). The saves stay listed. Safe twice.
 */
void app_recorder_finish(struct app *a, uint64_t deadline_ns);

/* Finish (within APP_RECORDER_FINISH_NS) and free; app_stop() calls it first. */
void app_recorder_stop(struct app *a);

/* ---- the view: src/app/app_view.c ---- */

/* Is @name a field of some event of the live session's formats? (vfexpr_field_fn, @arg the app) */
bool app_field_known(void *arg, const char *name);


/**
 * app_view_start - the view filter of --view over a->st, and the task relations
 * Call once the store exists (after app_start or app_open_snapshot). Field
 * names are checked against the schema (a snapshot read whole), the session's
 * event formats (live), or not at all (a snapshot still loading).
 * Return: 0, or a negative errno with the message, and a caret under the
 * problem, in @err (the caller exits with status 2).
 */
int app_view_start(struct app *a, char *err, size_t errlen);
/* Free the view (app_stop calls it before the store goes). */
void app_view_stop(struct app *a);
/* The view filter when it has a clause, else NULL (readers then take everything). */
struct viewfilter *app_view(const struct app *a);

/**
 * app_fgraph_new - a function_graph model as this run asks for it: cut at
 * --max-depth, tasks merged in the aggregate, functions and tasks named from
 * a->st (the UI's call tree and --batch's use the same one)
 * @keep, @keep_ctx: the events fgraph_feed_store takes (a view filter); NULL: all
 * Return: the model (free with fgraph_free), or NULL on ENOMEM.
 */
struct fgraph *app_fgraph_new(const struct app *a,
			      bool (*keep)(void *ctx, const struct ktop_event *ev), void *keep_ctx);

/**
 * app_clock - the clock rates and elapsed times are read on
 * Live: CLOCK_MONOTONIC from a->start_ns. A recording (-i FILE, -i -): its
 * own timestamps, from its first event to its newest held, however fast it
 * was read: a 66 s trace says 66 s.
 * Return: true for a recording's clock.
 * Context: the thread that owns the app.
 */
bool app_clock(struct app *a, uint64_t *start, uint64_t *now);

/* ---- the network model: src/app/app_net.c ---- */

struct net;
/*
 * Does this run have network events to show: --net live, or a recording
 * (a file, a stream) holding one of the formats the network model reads?
 */
bool app_net_present(const struct app *a);
/**
 * app_net_new - the network model (src/model/net.h) for this run: rows bounded
 * by -m, the reasons' and states' names from the events' own formats (the
 * recording's, or the running kernel's), drop locations named from kallsyms
 * where the kernel's format leaves them addresses
 * Return: the model (free with net_free), or NULL on ENOMEM.
 * Context: the thread that owns the model.
 */
struct net *app_net_new(struct app *a);
/**
 * app_net_probe - live, with --net: turn tcp:tcp_probe on (*@on true) when it
 * is off, else off, in ktop's session (an instance goes with its events; at the
 * top level the session's saved state puts it back)
 * Return: 0, or a negative errno with @err (-ENODEV: a recording).
 * Context: the thread that owns the app.
 */
int app_net_probe(struct app *a, bool *on, char *err, size_t errlen);

/*
 * ---- actions on the program ----
 * What a view may ask of the running program. Each says what it does, whatever
 * the source of the events; where the source cannot do it (a recording has no
 * kernel to change), it refuses with -ENODEV and changes nothing.
 */

/* The tracer of this run ("function_graph", "timerlat", ...); "" for none. */
const char *app_tracer(const struct app *a);

/**
 * app_switch_tracer - change the tracer while tracing goes on
 * @tracer: "osnoise" or "timerlat" (the tracers the kernel can switch between
 *          without new buffers)
 * @err: receives a message for the user on failure
 *
 * The kernel refuses a new current_tracer while trace_pipe_raw is open
 * (EBUSY), so the readers stop first (what the buffers hold is drained into
 * the store), the tracer changes in ktop's instance, and the readers start
 * again. Tracing stays on: the ring buffer keeps what comes meanwhile.
 *
 * Return: 0, or a negative errno: the tracer is unchanged (-ENODEV: nothing
 * is traced live), or (on a failure to start reading again, said in @err)
 * reading has stopped.
 * Context: the thread that owns the app; nothing else may use a->cons.
 */
int app_switch_tracer(struct app *a, const char *tracer, char *err, size_t errlen);

/**
 * app_mark - write @text into the recording, in time order with the events
 *
 * Live: to the trace_marker of ktop's instance, so it lands in the ring buffer
 * between the events before a change and those after it, and reaches the
 * store (as an ftrace print event) like any other event. No new kernel state.
 *
 * Return: 0, or a negative errno (-ENODEV: not tracing live).
 * Context: the thread that owns the app.
 */
int app_mark(struct app *a, const char *text);

/**
 * app_set_recording - stop (@on false) or restart the kernel's recording
 *
 * What the buffers hold stays; the readers keep draining it. The latency
 * pane's stop threshold keeps the context of a spike this way.
 * Return: 0, or a negative errno (-ENODEV: not tracing live).
 */
int app_set_recording(struct app *a, bool on);

/**
 * app_filter - the kernel's function filter of this run, opened on first use
 * @why: receives why there is none, or why function filtering is unavailable
 *       ("" when it is); the text lives as long as the app
 *
 * For reading only (the function list, the undo depth): changes go through
 * app_filter_apply() and app_filter_undo(). app_stop() closes it.
 * Return: the filter, or NULL (not live, or the kernel refused it).
 */
const struct ftrace_filter *app_filter(struct app *a, const char **why);

/* set_ftrace_filter read back into @out (see ftrace_filter_current). Return: 0 or -errno. */
int app_filter_current(struct app *a, struct funcfilter_set *out);

/* Apply a filter line (src/funcfilter/funcfilter.h's language). Return: res->err, or -ENODEV. */
int app_filter_apply(struct app *a, const char *line, struct ftrace_filter_result *res);

/* Undo the last filter change, or redo (@redo) the last undone one. Return: 0, -ENOENT, -ENODEV. */
int app_filter_undo(struct app *a, bool redo, struct ftrace_filter_result *res);

/**
 * app_filter_desc - the filters in effect, one line for the header
 * @buf: receives e.g. "functions vfs_* ; pid:1234; sched_switch: prev_pid == 1",
 *       or "none": what the filter prompt left in the kernel (read back after
 *       each change, undo and redo), and what the command line set (-l, -n,
 *       -g, -P) where the prompt has not changed it since
 * Return: @buf.
 */
const char *app_filter_desc(const struct app *a, char *buf, size_t len);

/**
 * app_feed_end - where a model fed from the store (a tree, a latency table)
 * can read up to now
 * @lag_ns: how far behind "now" a live feed ends, so that every CPU's events
 *          up to there have been published
 *
 * A snapshot file: all of it, once loaded. Live, on the session's
 * CLOCK_MONOTONIC (the newest record within a minute of now): now - @lag_ns
 * (the readers wake when a CPU's buffer is 10% full, the session's
 * buffer_percent, and poll every 100 ms). On another clock: the oldest of
 * the busy CPUs' newest records.
 *
 * Return: the end in trace time, ns; 0 when there is nothing to feed.
 * Context: any thread.
 */
uint64_t app_feed_end(const struct app *a, uint64_t lag_ns);

/*
 * ---- probes while tracing: src/app/app_probe.c ----
 * The probe prompt's actions. A probe is defined in ktop's group (see
 * src/probe/probe.h), its format read, given to the decoders and enabled in ktop's
 * instance, all or nothing; its events then come like any other's. Where
 * there is no kernel (a recording, a stream) each refuses with -ENODEV and
 * app_probe_why() says why. Context: the thread that owns the app.
 */

/* Return: why probes cannot be made in this run, or NULL when they can. */
const char *app_probe_why(struct app *a);

/* The group of this run's probes (ktop_<pid>), "" before the set is made. */
const char *app_probe_group(const struct app *a);

/* What probe events this kernel has; NULL when app_probe_why() says why not. */
const struct probe_caps *app_probe_caps(struct app *a);

/* probe_preview(), probe_proto(), probe_complete() on this run's set. */
int app_probe_preview(struct app *a, const char *spec, struct probe_def *def, char *err,
		      size_t errlen);
int app_probe_proto(struct app *a, const char *func, char *buf, size_t len);
int app_probe_complete(struct app *a, const char *text, size_t cursor, char **out, size_t max,
		       size_t *start);

/**
 * app_probe_add - define @spec's probe and trace it from now on
 * @def: receives the definition (NULL: not needed)
 * @err: what the library or the kernel said (the error_log line with its
 *       caret), or why the readers could not take it
 *
 * The readers stop while the decoders learn the new event's format (what the
 * buffers hold is drained first), then start again; the event is enabled
 * after. A trace_marker line "ktop: probe ..." shows where it starts.
 * Return: 0, or a negative errno with nothing left defined.
 */
int app_probe_add(struct app *a, const char *spec, struct probe_def *def, char *err,
		  size_t errlen);

/* Disable @event and undefine it. Its recorded events stay. Return: 0 or -errno (@err). */
int app_probe_remove(struct app *a, const char *event, char *err, size_t errlen);

/* Enable or disable @event in ktop's instance. Return: 0 or -errno (@err). */
int app_probe_enable(struct app *a, const char *event, bool on, char *err, size_t errlen);

/*
 * Fill @out with up to @max probes of the run (struct probe_info,
 * src/probe/probe.h; one read of the profile files). Return: how many.
 */
unsigned int app_probe_list(struct app *a, struct probe_info *out, unsigned int max);

/*
 * app_reap_stale - remove what killed ktops left in the kernel: their
 * tracefs instances (and saved top-level state), probes, hist triggers and
 * synthetic events (src/app/app_reap.c)
 * Return: how many things were removed.
 */
int app_reap_stale(void);

/*
 * app_reaper_start - fork a reaper that removes this ktop's leftovers at
 * once if it ends without app_reaper_done() (killed), before any thread or
 * tracing starts. Return: 0 or a negative errno (no reaper: the next ktop
 * reaps).
 */
int app_reaper_start(void);
/* The kernel is put back: the reaper ends without doing anything. */
void app_reaper_done(void);

#endif
