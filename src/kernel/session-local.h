/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tracing session's private types and helpers (src/kernel/session.c: opening
 * and closing; src/kernel/session_guard.c: signals, the emergency restore, the lock
 * files and the reaping of a killed ktop's leftovers; src/kernel/session_tracer.c:
 * the tracer's settings and the global files they need). Nothing else
 * includes this.
 */
#ifndef KTOP_SESSION_LOCAL_H
#define KTOP_SESSION_LOCAL_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "session.h"

#define SESSION_MAX_SYSTEMS	64

struct tracefs_instance;
struct tep_handle;
struct tracestate;
struct stacktrig;
struct features;

struct session {
	struct tracefs_instance	*inst;		/* NULL: top level */
	struct tep_handle	*tep;
	struct tracestate	*saved;		/* top level: the state before ktop */
	/* instance: the global files (osnoise/, tracing_thresh...) before ktop set them */
	struct tracestate	*global;
	bool			global_restored;
	char			global_path[PATH_MAX];	/* its copy, for a later ktop */
	bool			top;
	bool			restored;	/* top level already put back */
	bool			events_on;	/* an event was enabled: set_event to clear */
	int			recording;	/* session_recording(): atomic access */
	int			ncpus;
	int			lock_fd;
	char			name[64];
	char			tracer[64];
	/* the tracer goes on at session_start(): see configure() */
	bool			tracer_pending;
	int			funcgraph_irqs, funcgraph_tail;
	char			dir[512];	/* tracefs directory of the session */
	char			tracefs[256];	/* tracefs mount point */
	/* prepared for the signal-handler path: no formatting there */
	char			p_tracing_on[600];
	char			p_trace[600];	/* the top level's trace: cleared on exit */
	bool			top_taken;	/* the top level cleared for this session */
	char			p_set_event[600];
	char			state_path[PATH_MAX];
	char			ours_path[PATH_MAX];	/* the top level as ktop set it */
	char			lock_path[PATH_MAX];
	const char		*systems[SESSION_MAX_SYSTEMS + 1];
	int			nsystems;
	bool			all_systems;
	pid_t			owner;		/* a forked child must not undo it */
	struct stacktrig	*trig;		/* stack traces (--stack) */
	char			stack_note[512];
};

/* The session the fatal-signal and atexit paths restore (session_guard.c). */
extern struct session *volatile session_live;

/* file_write_str(O_TRUNC) of @file in the session's directory. */
int sess_write(struct session *s, const char *file, const char *str);
/* The directory of the lock and state files, or NULL; and why not, when NULL. */
const char *sess_run_dir(void);
const char *sess_run_dir_why(void);
/* Turn on the events of @spec ("sys", "sys:event", globs). Return: >= 0 or -errno. */
int sess_enable_events(struct session *s, const char *spec, char *err, size_t errlen);

/* session_guard.c */
int sess_lock_acquire(struct session *s);
void sess_lock_release(struct session *s);
bool sess_top_level_still_ours(long pid);
uint64_t sess_top_level_entries(const char *tracefs, int *cpus);

/* session_tracer.c */
int sess_check_settings(const struct session_opts *o, const char *tracer, char *err,
			size_t errlen);
int sess_configure_settings(struct session *s, const struct session_opts *o,
			    const char *tracer, char *err, size_t errlen);
int sess_configure_options(struct session *s, char *err, size_t errlen);
void sess_enable_tracer_events(struct session *s, const char *tracer);
void sess_restore_global(struct session *s);

#endif
