/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The command line: trace-cmd's option letters where they exist, parsed into
 * struct app_opts. Pure: no tracefs, no root, so it is unit-tested.
 */
#ifndef KTOP_OPTS_H
#define KTOP_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct app_opts;

enum opts_result {
	OPTS_RUN	= 0,	/* go on and run */
	OPTS_DONE	= 1,	/* --help or --version printed: exit 0 */
};

/* Fill @o with the defaults (interval 1 s, 256M store, exclude ktop's own pids). */
void opts_defaults(struct app_opts *o);

/**
 * opts_parse - parse the command line into @o
 * @out: where --help and --version print
 * @err: receives the message for the user on failure (without "ktop: ")
 *
 * Strings in @o point into @argv. -l/-n imply the function tracer and -g the
 * function_graph tracer when no -p is given; --json implies --batch.
 * Return: OPTS_RUN, OPTS_DONE, or -EINVAL with @err filled.
 */
int opts_parse(struct app_opts *o, int argc, char **argv, FILE *out, char *err, size_t errlen);

void opts_usage(FILE *fp);

/**
 * opts_parse_size - "256M", "1G", "4096", "64k" -> bytes (K/M/G are powers of 1024)
 * Return: 0, or -EINVAL for anything else (empty, negative, junk, overflow).
 */
/* --diff live: NEW is the running kernel, traced now. */
bool opts_diff_live(const struct app_opts *o);

int opts_parse_size(const char *s, size_t *out);

/* Return: 0 when @s is a CPU list such as "0", "0-3,6", else -EINVAL. */
int opts_check_cpulist(const char *s);

#endif
