/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `ktop --pmda`: ktop as a Performance Co-Pilot agent (a daemon PMDA on a
 * pipe to pmcd). It runs the headless session --batch would (the same
 * what-to-trace options), and answers pmcd from its own loop: one poll(2)
 * over pmcd's pipe, the signal fd and the update timer, no thread of its own.
 * Every metric is in one table (pmda_table.c) that also writes the PMDA's
 * files in PCP's layout (pmns, help, domain.h, root).
 */
#ifndef KTOP_PMDA_H
#define KTOP_PMDA_H

#include <stddef.h>

struct app;

/*
 * ktop's PMDA domain: in PCP's free range 256..510 (the PMID's domain field
 * has 9 bits; 511 is reserved, 230-255 are PCP's QA's and the samples', below
 * 230 the registered agents'). pmcd 6.0.3 takes it (tests/live/test_pmda.sh).
 */
#define PMDA_KTOP_DOMAIN	363

/**
 * pmda_main - run as pmcd's agent until pmcd closes the pipe or a signal
 * @a: options parsed (a->opts.pcp: the domain, the log); not started yet
 *
 * Connects to pmcd (stdin/stdout), then starts tracing as --batch does and
 * says "ready"; if tracing cannot start, it stays connected and serves
 * ktop.agent.status with the reason. Stops tracing (the kernel restored)
 * before it returns.
 * Return: the exit status.
 * Context: the main thread, signals installed (session_signals_init).
 */
int pmda_main(struct app *a);

/**
 * pmda_write_files - write pmns, root, help and domain.h into @dir (PCP's
 * PMDA layout, the names with the symbolic domain KTOP)
 * Return: 0, or a negative errno with @err naming the file.
 */
int pmda_write_files(const char *dir, char *err, size_t errlen);

#endif
