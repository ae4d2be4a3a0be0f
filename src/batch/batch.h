/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Headless mode: like top -b, a plain-text (or JSON) summary of what was
 * traced every --interval seconds, until --duration, --iterations or a
 * terminating signal. Needs no terminal.
 */
#ifndef KTOP_BATCH_H
#define KTOP_BATCH_H

#include <stdio.h>

struct app;

/**
 * batch_run - print summaries of the running app until it is time to stop
 * @a: started with app_start(); stays running (the caller stops it)
 * @out: where the summaries go (stdout)
 *
 * Each summary covers only what arrived since the previous one: the work per
 * interval is proportional to the new events, not to the store's size.
 * Context: the main thread.
 * Return: the process exit status (0, or 1 when @out could not be written
 * for a reason other than a closed pipe).
 */
int batch_run(struct app *a, FILE *out);

#endif
