/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A tracing session: ktop's tracefs instance (or, for tracers the kernel
 * allows only at top level, the top level with its whole state saved), the
 * tracer and events enabled in it, and the guarantee that every exit path
 * puts the kernel back as it was.
 */
#ifndef KTOP_SESSION_H
#define KTOP_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include "features.h"
#include "stacktrig.h"

struct tracefs_instance;
struct tep_handle;

#define SESSION_MAX_LIST	64

struct session_opts {
	const char	*tracer;		/* NULL/"nop": events only */
	const char	*events[SESSION_MAX_LIST];	/* "sched", "sched:sched_switch", globs */
	unsigned int	nevents;
	bool		no_events;		/* -e none: the tracer's own records only */
	const char	*filters[SESSION_MAX_LIST];	/* -l */
	unsigned int	nfilters;
	const char	*notrace[SESSION_MAX_LIST];	/* -n */
	unsigned int	nnotrace;
	const char	*graph_funcs[SESSION_MAX_LIST];	/* -g */
	unsigned int	ngraph_funcs;
	int		pids[SESSION_MAX_LIST];	/* -P */
	unsigned int	npids;
	const char	*cpus;			/* -C list, NULL: all */
	size_t		buffer_kb;		/* per CPU, 0: kernel's default */
	bool		force;			/* take over a busy top level */
	bool		exclude_self;		/* do not trace ktop's own pids */
	/* function_graph settings; zero: leave the kernel's own */
	bool		max_depth_set;		/* max_graph_depth = max_depth (0: no limit) */
	unsigned int	max_depth;
	int		funcgraph_irqs;		/* SESSION_OPT_KEEP, _ON or _OFF */
	int		funcgraph_tail;
	bool		thresh_set;		/* tracing_thresh = thresh_us */
	unsigned long	thresh_us;
	/* osnoise/timerlat settings "NAME=VALUE" (NAME a file of osnoise/: period_us...) */
	const char	*tracer_opts[SESSION_MAX_LIST];
	unsigned int	ntracer_opts;
	/* stack traces of chosen events (--stack, -e EVENT:stack / :ustack) */
	struct stacktrig_req stacks[SESSION_MAX_LIST];
	unsigned int	nstacks;
};

enum { SESSION_OPT_KEEP, SESSION_OPT_ON, SESSION_OPT_OFF };

/* The osnoise/ files -O NAME=VALUE may set (NULL-terminated). */
extern const char *const session_osnoise_files[];

struct session;

/**
 * session_open - set up tracing as @o asks, without starting it
 * @err: receives a message for the user on failure (what and what to do)
 *
 * Return: 0, or a negative errno; on failure nothing is left changed.
 */
int session_open(struct session **out, const struct session_opts *o,
		 const struct features *ft, char *err, size_t errlen);

int session_start(struct session *s);		/* tracing_on = 1 */
int session_stop(struct session *s);		/* tracing_on = 0 */
/* tracing_on as session_start()/session_stop() last set it. Context: any thread. */
bool session_recording(const struct session *s);

/* Undo everything session_open did; accepts NULL. Safe to call twice. */
void session_close(struct session *s);

struct tracefs_instance *session_instance(struct session *s);	/* NULL: top level */
struct tep_handle *session_tep(struct session *s);
const char *session_tracer(const struct session *s);
/* The session's tracefs directory: its instance's, or the mount point's (top level). */
const char *session_dir(const struct session *s);

/* Enable or disable one event in the session's directory. Return: 0 or -errno. */
int session_enable_event(struct session *s, const char *system, const char *name, bool on);

/**
 * session_switch_latency_tracer - osnoise <-> timerlat while tracing goes on
 * @tracer: "osnoise" or "timerlat"
 * @err: receives a message for the user on failure
 *
 * Only between these two, in ktop's own instance: they share their events
 * and settings (osnoise/), so nothing else changes, and removing the
 * instance at the end undoes it.
 *
 * Return: 0 (also when @tracer is already the current one), or a negative
 * errno with nothing changed.
 * Context: the thread that owns the session (the UI thread).
 */
int session_switch_latency_tracer(struct session *s, const char *tracer, char *err,
				  size_t errlen);
const char *session_name(const struct session *s);	/* "ktop-1234" or "(top level)" */
/* What the stack traces cost beyond the events asked (options instead of triggers), or "". */
const char *session_stack_note(const struct session *s);
/*
 * Stack traces for more events while tracing goes on (stacktrig_add(); the
 * first call sets them up as --stack does). The caller tells the decoders.
 * Return: 0 (@note: what they cost beyond the events asked, or ""), or a
 * negative errno with the message --stack gives in @err.
 */
int session_stack_add(struct session *s, const struct stacktrig_req *req, unsigned int n,
		      char *note, size_t notelen, char *err, size_t errlen);
int session_ncpus(const struct session *s);

/*
 * Remove ktop-<pid> instances whose pid is dead, and restore a top-level
 * state saved by a ktop that was killed. Return: number cleaned.
 */
int session_reap_stale(void);

/*
 * Install handlers so that SIGINT, SIGTERM, SIGHUP, SIGPIPE and SIGQUIT end
 * the program through the normal exit path: they set a flag and write to
 * session_signal_fd(); fatal signals (SIGSEGV, SIGBUS, SIGABRT, SIGFPE,
 * SIGILL) restore the kernel state best-effort and re-raise.
 */
int session_signals_init(void);

/*
 * Tell the fatal-signal path about an fd that keeps the instance busy (a
 * trace_pipe_raw): it is closed there before the instance is removed.
 * @add false forgets it (call before close()). Context: any thread.
 */
void session_track_fd(int fd, bool add);
/*
 * @fn runs on the emergency path (fatal signals, atexit), after the
 * session's instance is gone, and also when no session is open yet; it must
 * be async-signal-safe. ktop's probe events (probe_emergency) and in-kernel
 * aggregations (agg_emergency) use it. Each hook is kept once (up to four),
 * and they run in the order they were set.
 */
void session_set_emergency_hook(void (*fn)(void));

/* Is the ktop with @pid alive (its lock held)? For reaping what a dead one left. */
bool session_ktop_alive(long pid);

/*
 * The directory where a ktop leaves what its successor needs to clean up
 * after a SIGKILL (/run/ktop, else /tmp/ktop), or NULL (not root, or none
 * usable).
 */
const char *session_run_dir(void);

int session_signal_fd(void);		/* readable when a terminating signal came */
int session_signal_pending(void);	/* the signal number, 0 when none */

#endif
