// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktop: an interactive explorer for live Linux kernel traces.
 *
 * main() parses the command line, refuses early (exit status 2, kernel
 * untouched) what cannot work, starts the app, and hands it to the batch
 * printer or the TUI.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "batch.h"
#include "features.h"
#include "opts.h"
#include "session.h"
#include "ui.h"

/*
 * The TUI lives in ui/ and is linked in when it is built; until then the
 * symbol is absent and ktop says so instead of failing to link.
 */
#pragma weak ui_run

#define EXIT_USAGE	2

static int main_features(void)
{
	struct features ft;
	int ret;

	ret = features_probe(&ft);
	if (ret) {
		fprintf(stderr, "ktop: cannot probe the kernel's tracing support: %s\n",
			strerror(-ret));
		return 1;
	}
	features_print(&ft, stdout);
	return 0;
}

/* Options parsed today but implemented by later work. */
static int main_not_yet(const struct app_opts *o)
{
	const char *what = NULL;

	if (o->output)
		what = "-o/--output";
	else if (o->input)
		what = "-i/--input";
	else if (o->stream)
		what = "--stream";
	else if (o->demo)
		what = "--demo";
	if (!what)
		return 0;
	fprintf(stderr, "ktop: %s is not implemented yet\n", what);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	static struct app a;
	char err[512] = "";
	int ret, status;

	opts_defaults(&a.opts);
	a.wake_fd = -1;
	ret = opts_parse(&a.opts, argc, argv, stdout, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "ktop: %s\n", err);
		return EXIT_USAGE;
	}
	if (ret == OPTS_DONE)
		return 0;
	if (a.opts.features_only)
		return main_features();
	ret = main_not_yet(&a.opts);
	if (ret)
		return ret;
	if (!a.opts.batch) {
		if (!ui_run) {
			fprintf(stderr, "ktop: this build has no interactive view yet; "
				"use --batch or --json\n");
			return EXIT_USAGE;
		}
		if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
			fprintf(stderr, "ktop: the interactive view needs a terminal; "
				"use --batch or --json without one\n");
			return EXIT_USAGE;
		}
	}
	if (geteuid() != 0) {
		fprintf(stderr, "ktop: needs root to trace (tracefs and BPF are root-only); "
			"try: sudo ktop, or ktop --features to see what this kernel permits\n");
		return EXIT_USAGE;
	}

	/* before anything changes in tracefs, so every signal finds the exit path */
	ret = session_signals_init();
	if (ret) {
		fprintf(stderr, "ktop: cannot install signal handlers: %s\n", strerror(-ret));
		return 1;
	}
	ret = app_start(&a, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ktop: %s\n", err[0] ? err : strerror(-ret));
		return EXIT_USAGE;
	}
	if (a.opts.batch)
		status = batch_run(&a, stdout);
	else
		status = ui_run(&a);
	app_stop(&a);
	return status;
}
