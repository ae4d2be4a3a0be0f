/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The live source's state (src/source/source_live.c), for the files that act on the
 * running kernel on its behalf: probes made while tracing (src/app/app_probe.c)
 * and stacks turned on while tracing (src/app/app_stacks.c). Nothing else
 * includes this: the rest of ktop asks through app.h.
 */
#ifndef KTOP_SOURCE_LIVE_H
#define KTOP_SOURCE_LIVE_H

#include <stdbool.h>

#include "app/app.h"
#include "source.h"

struct session;
struct symbols;
struct decode_ctx;
struct consumer;
struct probe_set;
struct ftrace_filter;

/* a->src_priv of the live source */
struct live_src {
	struct session		*sess;
	struct symbols		*syms;
	struct decode_ctx	*dc;
	struct consumer		*cons;
	struct probe_set	*probes;	/* --probe and the prompt's, or NULL */
	/* the kernel's function filter, opened on first use */
	struct ftrace_filter	*filter;
	char			filter_why[256];
	bool			filter_tried;
};

/* The live source's state when @a traces the running kernel, else NULL (a recording). */
static inline struct live_src *live_src(const struct app *a)
{
	return a->src == &source_live ? a->src_priv : NULL;
}

#endif
