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
};

/**
 * features_probe - find out what this kernel permits, changing nothing
 * (every tracer tried is tried in a scratch instance that is removed, or at
 * top level with the previous tracer restored).
 * Return: 0, or a negative errno when probing itself failed.
 */
int features_probe(struct features *ft);
void features_print(const struct features *ft, FILE *fp);
const char *feature_state_str(enum feature_state s);

#endif
