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
 * (every tracer tried is tried in a scratch instance that is removed, or at
 * top level with the previous tracer restored).
 * Return: 0, or a negative errno when probing itself failed.
 */
int features_probe(struct features *ft);

/**
 * features_probe_keep - features_probe(), but the scratch instance is named
 * ktop-<pid>, the name a session of this process takes, and is left in
 * place (tracing off, tracer nop, no filter) for session_open() to adopt:
 * one mkdir and one rmdir fewer at start, much of the start-up time on a
 * slow machine. Its name is in @ft->kept.
 * @latency: try osnoise and timerlat too; without it they are only looked
 *	     up in available_tracers, as starting them starts a kernel thread
 *	     per CPU.
 *
 * Context: the caller must end with features_release() on every path where
 * no session took the instance over.
 * Return: as features_probe().
 */
int features_probe_keep(struct features *ft, bool latency);

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

/* Remove the instance features_probe_keep() left, if it is still there. */
void features_release(struct features *ft);
void features_print(const struct features *ft, FILE *fp);
const char *feature_state_str(enum feature_state s);

#endif
