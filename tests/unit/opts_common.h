/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by test_opts.c and test_opts_tracer.c: parse a command line from
 * the defaults, the refusal's text in err, usage text to /dev/null.
 */
#ifndef KTOP_OPTS_COMMON_H
#define KTOP_OPTS_COMMON_H

#include <stdio.h>

#include "app/app.h"
#include "app/opts.h"

static char err[256];
static FILE *sink;

/* "ktop" and the NULL-terminated @args through opts_parse(). Return: its result. */
static inline int parse(struct app_opts *o, const char **args)
{
	char *argv[64];
	int argc = 0;

	argv[argc++] = (char *)"ktop";
	for (; *args; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	if (!sink)
		sink = fopen("/dev/null", "w");
	opts_defaults(o);
	err[0] = 0;
	return opts_parse(o, argc, argv, sink, err, sizeof(err));
}

#define PARSE(o, ...) parse(o, (const char *[]){ __VA_ARGS__, NULL })

#endif
