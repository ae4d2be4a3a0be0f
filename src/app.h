/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The running program: options, what the kernel permits, the tracing session,
 * the store and the collectors. main() builds one, then hands it to the batch
 * printer (src/batch.c) or the TUI (ui/ui.h). Nothing here includes curses.
 */
#ifndef KTOP_APP_H
#define KTOP_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "features.h"
#include "session.h"

struct store;
struct symbols;
struct decode_ctx;
struct consumer;
struct bpfstats;

struct app_opts {
	struct session_opts	so;
	size_t			memory;		/* -m, bytes */
	bool			batch;
	bool			json;
	bool			features_only;
	bool			no_bpf;
	double			interval;	/* --interval, seconds */
	double			duration;	/* --duration, seconds, 0: none */
	long			iterations;	/* --iterations, 0: none */
	const char		*output;	/* -o */
	const char		*input;		/* -i */
	const char		*theme;		/* --theme */
	bool			demo;		/* --demo */
	bool			stream;		/* --stream */
};

struct app {
	struct app_opts		opts;
	struct features		ft;
	struct session		*sess;
	struct store		*st;
	struct symbols		*syms;
	struct decode_ctx	*dc;
	struct consumer		*cons;
	int			wake_fd;	/* eventfd the collectors write */
	uint64_t		start_ns;	/* CLOCK_MONOTONIC at start */
	char			mode_why[256];	/* what ktop chose to trace, and why */
	bool			live;		/* false: an offline snapshot */
	struct bpfstats		*bpf;		/* NULL: BPF off, see bpf_why */
	char			bpf_why[256];
	uint64_t		bpf_seq;	/* newest BPF outlier printed */
};

/**
 * app_start - probe, open the session, start collectors
 * @err: the message for the user on failure
 * Return: 0, or a negative errno; on failure the kernel state is unchanged.
 */
int app_start(struct app *a, char *err, size_t errlen);

/* Stop collectors, close the session, restore the kernel. Safe twice. */
void app_stop(struct app *a);

/* Monotonic nanoseconds. */
uint64_t app_now_ns(void);

#endif
