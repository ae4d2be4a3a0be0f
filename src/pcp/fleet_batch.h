/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fleet's table as --batch text or --json lines: what the fleet pane
 * shows, one summary per interval (live), or per step of the archives.
 */
#ifndef KTOP_FLEET_BATCH_H
#define KTOP_FLEET_BATCH_H

#include <stdbool.h>
#include <stdio.h>

struct fleet;

struct fleet_batch_opts {
	bool	json;
	double	interval;	/* seconds; 0: 1 */
	double	duration;	/* 0: none */
	long	iterations;	/* 0: none (archives: to their end) */
};

/**
 * fleet_batch_run - print summaries until --iterations, --duration, the
 * archives' end, or SIGINT/SIGTERM
 * Return: the exit status (0, or 1 when @out could not be written).
 * Context: the main thread, signals installed (session_signals_init).
 */
int fleet_batch_run(struct fleet *f, const struct fleet_batch_opts *o, FILE *out);

/* One row as text (the table's line), for the batch printer and the pane. */
struct fleet_row;
void fleet_row_text(const struct fleet_row *r, char *buf, size_t len);
/* The table's header line, in the same columns. */
const char *fleet_row_header(void);

/* A host's CPU as text (the per-CPU table's line), and that table's header. */
struct fleet_cpu;
void fleet_cpu_text(const struct fleet_cpu *c, char *buf, size_t len);
const char *fleet_cpu_header(void);

#endif
