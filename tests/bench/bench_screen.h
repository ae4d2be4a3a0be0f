/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The interactive view for the frame benchmarks (bench_ui.c, bench_icicle.c):
 * ktop's UI on a curses screen of @rows x @cols that writes to /dev/null
 * (newterm), over the store of @a, so that ui_frame() does all its work
 * (format, draw, doupdate) and the terminal costs nothing.
 */
#ifndef KTOP_BENCH_SCREEN_H
#define KTOP_BENCH_SCREEN_H

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>

#include "app/app.h"
#include "lib/clock.h"
#include "ui-local.h"

struct bench_screen {
	SCREEN		*scr;
	FILE		*out, *in;
	struct ui	*ui;
};

/* Return: 0 and @bs ready (free with bench_screen_free), or -1 (said on stderr). */
static inline int bench_screen_new(struct bench_screen *bs, struct app *a, const char *rows,
				   const char *cols)
{
	a->wake_fd = -1;
	a->start_ns = clock_mono_ns();
	setenv("LINES", rows, 1);
	setenv("COLUMNS", cols, 1);
	bs->out = fopen("/dev/null", "w");
	bs->in = fopen("/dev/null", "r");
	bs->scr = bs->out && bs->in ? newterm("xterm-256color", bs->out, bs->in) : NULL;
	if (!bs->scr) {
		fprintf(stderr, "bench: newterm failed\n");
		return -1;
	}
	set_term(bs->scr);
	bs->ui = calloc(1, sizeof(*bs->ui));
	if (!bs->ui || ui_init(bs->ui, a)) {
		fprintf(stderr, "bench: ui_init failed\n");
		return -1;
	}
	ui_term_setup(bs->ui);
	return 0;
}

static inline void bench_screen_free(struct bench_screen *bs)
{
	ui_destroy(bs->ui);
	free(bs->ui);
	endwin();
	delscreen(bs->scr);
	fclose(bs->out);
	fclose(bs->in);
}

#endif
