/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What this kernel lets ktop do, probed at start. */
#ifndef KTOP_FEATURES_H
#define KTOP_FEATURES_H

#include <stdio.h>
#include <stdbool.h>

enum feature_state {
	FEAT_AVAILABLE,
	FEAT_NOT_BUILT,		/* CONFIG_ option missing */
	FEAT_NOT_PERMITTED,	/* EPERM */
	FEAT_NEEDS_ROOT,
	FEAT_TOP_LEVEL_ONLY,	/* available, but only in the top-level instance */
	FEAT_UNKNOWN,
	FEAT_NOT_TRIED,		/* listed, but trying it would change what is not ktop's */
};

/* What the session that features_probe_keep() prepares for will do. */
enum features_probe_flags {
	FEATURES_LATENCY	= 1 << 0,	/* try osnoise and timerlat too */
	FEATURES_TRACER		= 1 << 1,	/* it sets a tracer (or picks one) */
};

enum feature_id {
	FEATURE_TRACEFS,
	FEATURE_INSTANCES,
	FEATURE_EVENTS,
	FEATURE_FUNCTION,
	FEATURE_FUNCTION_GRAPH,
	FEATURE_FTRACE_FILTER,
	FEATURE_OSNOISE,
	FEATURE_TIMERLAT,
	FEATURE_BPF,
	FEATURE_BTF,
	FEATURE_HIST,		/* hist triggers and synthetic events (--latency, --hist) */
	FEATURE_NR,
};

struct feature {
	const char		*name;		/* "function_graph" */
	const char		*config;	/* "CONFIG_FUNCTION_GRAPH_TRACER" */
	enum feature_state	state;
	char			detail[128];	/* why, in words */
};

struct features {
	struct feature	f[FEATURE_NR];
	bool		root;
	char		tracefs[256];	/* mount point, "" when none */
	char		kept[64];	/* instance features_probe_keep() left, or "" */
};

/**
 * features_probe - find out what this kernel permits, changing nothing
 *
 * Every tracer is tried in a scratch instance that is removed after, never at
 * the top level. EPERM there is "not permitted"; no instance to try in is
 * "not tried". On a kernel whose buffer expansion is global (6.1) and not
 * done yet, no tracer is tried either: it would fix the top-level buffer at
 * its boot size (see features_expand_global()).
 * Return: 0, or a negative errno when probing itself failed.
 */
int features_probe(struct features *ft);

/**
 * features_probe_keep - features_probe(), but the scratch instance is named
 * ktop-<pid>, the name a session of this process takes, and is left in
 * place (tracing off, tracer nop, no filter) for session_open() to adopt:
 * one mkdir and one rmdir fewer at start, much of the start-up time on a
 * slow machine. Its name is in @ft->kept.
 * @flags: enum features_probe_flags. Without FEATURES_LATENCY osnoise and
 *	   timerlat are only looked up in available_tracers, as starting them
 *	   starts a kernel thread per CPU. Without FEATURES_TRACER, on a kernel
 *	   whose expansion is global and not done yet, no tracer is tried; with
 *	   it, the buffers are expanded first as the session's events would.
 *
 * Context: the caller must end with features_release() on every path where
 * no session took the instance over.
 * Return: as features_probe().
 */
int features_probe_keep(struct features *ft, unsigned int flags);

/**
 * features_expand_global - before a write to an instance that sets the
 * kernel's "buffers expanded" flag without expanding the top level
 * (current_tracer, buffer_size_kb), on kernels where that flag is global
 * (6.1): expand the buffers as an event enable in any instance does there
 * by the kernel's design. Elsewhere, or once expanded, nothing is written.
 * @dir: the instance's directory
 *
 * Without it the top-level buffer would stay at its boot size (a few pages)
 * for every later user of the top level.
 * Return: 1 when it expanded them, 0 when there was nothing to do, -errno.
 */
int features_expand_global(const char *dir);

/**
 * features_rmdir_instance - rmdir a tracefs instance directory
 * @max_ms: how long to keep trying while the kernel says EBUSY, which it
 *	    does while anyone holds one of the instance's files open (a reader
 *	    closing its trace_pipe_raw, a script reading tracing_on)
 *
 * Context: async-signal-safe (rmdir and nanosleep only), for the emergency
 * clean-up in a signal handler too.
 * Return: 0, or -errno (errno is set as well).
 */
int features_rmdir_instance(const char *path, unsigned int max_ms);

/* Is tracefs mounted (at /sys/kernel/tracing or under debugfs)? Mounts nothing. */
bool features_tracefs_mounted(void);

/* Remove the instance features_probe_keep() left, if it is still there. */
void features_release(struct features *ft);

/*
 * features_has_hist - hist triggers (the README at @tracefs documents them)
 * and synthetic events (synthetic_events)? Reads two files, changes nothing.
 * @why: what there is, or what is missing, in words
 */
bool features_has_hist(const char *tracefs, char *why, size_t len);
void features_print(const struct features *ft, FILE *fp);
const char *feature_state_str(enum feature_state s);

/**
 * features_tracer_listed - is tracer @name in @dir/available_tracers?
 * @list: receives the file's list, for a message (may be NULL with @len 0)
 * Return: true when listed; false when not, or the file cannot be read.
 */
bool features_tracer_listed(const char *dir, const char *name, char *list, size_t len);

#endif
