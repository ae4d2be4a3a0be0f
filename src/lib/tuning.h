/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tuning and test switches: the KTOP_* environment variables, all in one
 * table (tuning.c), read once at start into struct tuning. Code that acts on
 * one reads tuning()->field, never getenv(). `ktop --help-debug` lists them
 * and man/ktop.1 (ENVIRONMENT) documents them; a unit test checks that the
 * table, the manual and the sources agree.
 *
 * These are not options: they are for measuring ktop (a benchmark's
 * variant), testing it (a fixture directory, a code path a kernel here cannot
 * reach) and finding out why a start is slow. The standard variables (TERM,
 * NO_COLOR, HOME, XDG_CONFIG_HOME, XDG_STATE_HOME) are read where they apply.
 *
 * Switches: unset, empty or "0" is off, anything else on. Numbers: decimal,
 * within the range the table gives. Paths: as given.
 */
#ifndef KTOP_TUNING_H
#define KTOP_TUNING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct tuning {
	/* tests */
	const char	*fixtures;		/* KTOP_FIXTURES */
	bool		test_top_level;		/* KTOP_TEST_TOP_LEVEL */
	const char	*filter_funcs;		/* KTOP_FILTER_FUNCS */
	const char	*probe_btf;		/* KTOP_PROBE_BTF */
	/* the consumer, for benchmarks */
	unsigned int	read_queue_mb;		/* KTOP_READ_QUEUE_MB */
	bool		decode_thread;		/* KTOP_DECODE_THREAD */
	bool		no_splice;		/* KTOP_NO_SPLICE */
	bool		decode_kbuffer_walk;	/* KTOP_DECODE_KBUFFER_WALK */
	/* measuring and debugging */
	bool		debug_start;		/* KTOP_DEBUG_START */
	const char	*ui_key_latency;	/* KTOP_UI_KEY_LATENCY */
	const char	*theme_dir;		/* KTOP_THEME_DIR */
	/* bit i: tuning_vars[i] was set (not empty), default or not */
	unsigned long	given;
};

enum tuning_kind {
	TUNING_SWITCH,
	TUNING_NUMBER,
	TUNING_PATH,
};

/* One variable: where it goes in struct tuning, its default, what it does. */
struct tuning_var {
	const char		*name;
	enum tuning_kind	kind;
	size_t			offset;		/* of its field in struct tuning */
	unsigned long		min, max;	/* TUNING_NUMBER: accepted range */
	unsigned long		def;		/* TUNING_SWITCH, TUNING_NUMBER */
	const char		*def_path;	/* TUNING_PATH: NULL, or the default */
	const char		*meaning;
};

extern const struct tuning_var tuning_vars[];
extern const size_t tuning_nvars;

/**
 * tuning_read - fill @t from the environment
 * @t: receives every variable; one that is unset or wrong keeps its default
 * @err: on failure, which variable is wrong and what it accepts
 *
 * Return: 0, or -EINVAL for a value out of range or not a number (the first
 * one; @t is filled all the same).
 * Context: any thread; reads the environment, writes only @t.
 */
int tuning_read(struct tuning *t, char *err, size_t errlen);

/**
 * tuning_init - read the environment into the process's tuning
 * @err: as tuning_read()
 *
 * main() calls it first, and stops with @err on a wrong value; a test that
 * changes a variable calls it again. Anything else that calls tuning() before
 * gets the variables read then, with defaults for wrong values.
 * Return: 0 or -EINVAL.
 * Context: before other threads start (it writes what tuning() returns).
 */
int tuning_init(char *err, size_t errlen);

/**
 * tuning - the process's switches
 * Return: the values, read once (see tuning_init()).
 * Context: any thread.
 */
const struct tuning *tuning(void);

/**
 * tuning_given - whether the variable @name was set (to anything but "")
 *
 * For a default that means "look in the usual places" rather than a value
 * (--demo looks in $KTOP_FIXTURES first only when it is set).
 * Return: true when set; false when unset, empty or not in the table.
 */
bool tuning_given(const struct tuning *t, const char *name);

/* The table as `ktop --help-debug` prints it: name, default, meaning. */
void tuning_print(FILE *fp);

#endif
