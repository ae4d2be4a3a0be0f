// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktop: an interactive explorer for live Linux kernel traces.
 *
 * main() parses the command line, refuses early (exit status 2, kernel
 * untouched) what cannot work, starts the app, and hands it to the batch
 * printer or the TUI.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agg/agg.h"
#include "app/app.h"
#include "batch/batch.h"
#include "diff/diff.h"
#include "lib/clock.h"
#include "kernel/features.h"
#include "formats/format.h"
#include "app/opts.h"
#include "lib/output.h"
#include "lib/safefile.h"
#include "pcp/fleet.h"
#include "pcp/fleet_batch.h"
#include "pcp/pmda.h"
#include "probe/probe.h"
#include "kernel/session.h"
#include "lib/tuning.h"
#include "store/store.h"
#include "ui.h"

#define EXIT_USAGE	2

/*
 * --features and -i as root: remove what a killed ktop left (its instance
 * traces on until then; its saved top-level state waits to be put back), as
 * a live start does. That is ktop's own business, not the top level's; it is
 * said on stderr. Where tracefs is not mounted there is nothing to reap, and
 * -i must not mount it.
 */
static void main_reap_stale(void)
{
	int n;

	if (geteuid() != 0 || !features_tracefs_mounted())
		return;
	n = app_reap_stale();
	if (n > 0)
		fprintf(stderr, "ktop: cleaned up %d leftover%s of killed ktop sessions "
			"(tracefs instances, saved tracing state, probe events, hist triggers)\n", n,
			n > 1 ? "s" : "");
}

/*
 * The summaries go to standard output through an output stream (src/lib/output.h):
 * a reader that stops reading cannot keep a stop request from ending ktop.
 */
static int main_batch(struct app *a)
{
	FILE *out = output_fdopen(STDOUT_FILENO, false);
	int status;

	if (!out) {
		fprintf(stderr, "ktop: standard output: %s\n", strerror(errno));
		return 1;
	}
	status = batch_run(a, out);
	if (fclose(out) && !status && errno != EPIPE && errno != EINTR)
		status = 1;
	return status;
}

/* --batch, --json of --diff: to standard output, as main_batch() writes. */
static int main_diff_batch(struct app *base, struct app *a)
{
	FILE *out = output_fdopen(STDOUT_FILENO, false);
	int status;

	if (!out) {
		fprintf(stderr, "ktop: standard output: %s\n", strerror(errno));
		return 1;
	}
	status = batch_diff_run(base, a, out);
	if (fclose(out) && !status && errno != EPIPE && errno != EINTR)
		status = 1;
	return status;
}

/*
 * -o FILE.folded after the diff panes: the folded diff of both sides whole
 * (recordings read to their end; live NEW: what it holds now), as --batch
 * writes it.
 */
static int main_diff_output(struct app *base, struct app *a, bool live, int status)
{
	enum diff_stack_src src = a->opts.folded && !strcmp(a->opts.folded, "graph") ?
				  DIFF_STACK_GRAPH : DIFF_STACK_EVENTS;
	char err[512] = "";
	struct diff *d;
	int ret;

	if (!a->opts.output)
		return status;
	if (app_loader_wait(base, err, sizeof(err)) ||
	    (!live && app_loader_wait(a, err, sizeof(err))))
		return EXIT_USAGE;	/* said after, by the loaders' status */
	if (live)
		app_drain(a);
	d = diff_new(base, a);
	if (!d) {
		fprintf(stderr, "ktop: -o %s: %s\n", a->opts.output, strerror(ENOMEM));
		return status ? status : 1;
	}
	diff_refresh(d);
	ret = diff_save_folded(d, src, a->opts.output, 0, err, sizeof(err));
	diff_free(d);
	if (ret) {
		fprintf(stderr, "ktop: %s\n", err[0] ? err : strerror(-ret));
		return status ? status : 1;
	}
	return status;
}

static int main_features(void)
{
	struct probe_caps pc;
	struct features ft;
	int ret;

	main_reap_stale();
	ret = features_probe(&ft);
	if (ret) {
		fprintf(stderr, "ktop: cannot probe the kernel's tracing support: %s\n",
			strerror(-ret));
		return 1;
	}
	features_print(&ft, stdout);
	/* what --probe can define: apart, as the view's header names only the above */
	printf("\nprobe kinds (--probe)\n");
	if (ft.tracefs[0] && !probe_caps_read(ft.tracefs, &pc))
		probe_caps_print(&pc, stdout);
	else
		printf("%-18s %-44s %s\n", "probes", "unknown", ft.root ?
		       "cannot read the tracefs README" : "reading tracefs needs root");
	return 0;
}

/*
 * --demo: the bundled snapshot. Looked for in $KTOP_FIXTURES, then in the
 * source tree next to the binary (./ktop or build/ktop), then in the
 * installed data directory.
 */
static const char *main_demo_path(char *buf, size_t len, char *tried, size_t tlen)
{
	const char *fx = tuning()->fixtures;
	char exe[PATH_MAX - 64], *slash;
	ssize_t n;
	int t = 0;

	tried[0] = 0;
	if (tuning_given(tuning(), "KTOP_FIXTURES")) {
		snprintf(buf, len, "%s/demo.ktop", fx);
		t += snprintf(tried + t, tlen - (size_t)t, "%s", buf);
		if (!access(buf, R_OK))
			return buf;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		slash = strrchr(exe, '/');
		if (slash)
			*slash = 0;
		for (int up = 0; up < 2; up++) {
			snprintf(buf, len, "%s%s/tests/fixtures/demo.ktop", exe, up ? "/.." : "");
			if (t < (int)tlen)
				t += snprintf(tried + t, tlen - (size_t)t, "%s%s", t ? ", " : "",
					      buf);
			if (!access(buf, R_OK))
				return buf;
		}
	}
	snprintf(buf, len, "%s/demo.ktop", KTOP_DATADIR);
	if (t < (int)tlen)
		snprintf(tried + t, tlen - (size_t)t, "%s%s", t ? ", " : "", buf);
	return access(buf, R_OK) ? NULL : buf;
}

/* -o FILE: write the snapshot; a failure is reported, and makes the exit status 1. */
static int main_output(struct app *a, int status)
{
	char err[512] = "";
	int ret;

	if (!a->opts.output)
		return status;
	ret = app_save(a, a->opts.output, -1, 0, 0, 0, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ktop: %s\n", err[0] ? err : strerror(-ret));
		return status ? status : 1;
	}
	return status;
}

/*
 * The interactive view reads keys from standard input; with `-i -` that is
 * the stream, so the stream moves to another fd and the terminal comes back
 * on 0 (as less(1) does). Return: the stream's fd, or -1 with a message.
 */
static int main_stdin_to_tty(void)
{
	int in, tty;

	in = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
	if (in < 0)
		return -1;
	tty = open("/dev/tty", O_RDWR | O_CLOEXEC);
	if (tty < 0 || dup2(tty, STDIN_FILENO) < 0) {
		fprintf(stderr, "ktop: -i -: no terminal to read keys from (%s); "
			"use --batch\n", strerror(errno));
		if (tty >= 0)
			close(tty);
		close(in);
		return -1;
	}
	close(tty);
	return in;
}

/* -i FILE@NAME: a buffer of a trace.dat (trace-cmd record -B NAME). */
static bool main_buffer_of(const char *path)
{
	char file[PATH_MAX];
	const char *buffer;

	return format_split_part(path, file, sizeof(file), &buffer);
}

/* The view reads keys from standard input and draws on standard output. */
static bool main_has_terminal(void)
{
	if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))
		return true;
	fprintf(stderr, "ktop: the interactive view needs a terminal; "
		"use --batch or --json without one\n");
	return false;
}

/* Before anything changes, so every signal finds the exit path. Return: 0, or 1 said. */
static int main_signals(void)
{
	int ret = session_signals_init();

	if (ret)
		fprintf(stderr, "ktop: cannot install signal handlers: %s\n", strerror(-ret));
	return ret ? 1 : 0;
}

/*
 * A stream in the view that ended, or was cut off (the link dropped): said
 * on stderr once the screen is back. Not a failure: the view kept what came,
 * and the user asked to quit.
 */
static void main_stream_end(struct app *a)
{
	char desc[1024];

	if (app_stream_end_desc(a, desc, sizeof(desc)) >= APP_STREAM_ENDED)
		fprintf(stderr, "ktop: %s\n", desc);
}

/*
 * -i FILE, -i -, --demo, --remote: no tracefs, no root. @in_fd: the stream
 * of "-" (-1: standard input, whose terminal then comes from /dev/tty).
 */
static int main_offline(struct app *a, const char *path, int in_fd)
{
	bool said, is_stdin = !strcmp(path, "-");
	char err[512] = "";
	int ret, status, flags = 0;
	pid_t sharer = 0;

	/* a file that is not there is the first thing to hear about, terminal or not */
	if (!is_stdin && access(path, R_OK) && !main_buffer_of(path)) {
		fprintf(stderr, "ktop: %s: %s\n", path, strerror(errno));
		return EXIT_USAGE;
	}
	if (!a->opts.batch) {
		if (is_stdin && in_fd < 0) {
			in_fd = main_stdin_to_tty();
			if (in_fd < 0)
				return EXIT_USAGE;
			sharer = -1;	/* looked for once the stream began: ssh runs by then */
		}
		if (!main_has_terminal())
			return EXIT_USAGE;
	} else {
		flags = is_stdin ? APP_SNAP_END_SIGNAL : APP_SNAP_SYNC;
	}
	if (main_signals())
		return 1;
	ret = app_open_snapshot(a, path, in_fd, flags, err, sizeof(err));
	if (!ret)
		ret = app_view_start(a, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ktop: %s\n", err[0] ? err : strerror(-ret));
		app_stop(a);
		return EXIT_USAGE;
	}
	if (sharer < 0)
		sharer = remote_tty_sharer(STDOUT_FILENO);	/* the terminal, not /dev/tty */
	if (sharer > 0) {
		size_t n = strlen(a->mode_why);

		snprintf(a->mode_why + n, sizeof(a->mode_why) - n, "; ssh (pid %d) reads this "
			 "terminal too, and takes keys typed here: use ktop --remote HOST, or "
			 "ssh -n", (int)sharer);
	}
	main_reap_stale();
	if (a->opts.batch) {
		uint64_t interval = (uint64_t)(a->opts.interval * 1e9);

		/* a file: one summary over all of it, at once */
		if (!is_stdin) {
			if (!a->opts.iterations && !(a->opts.duration > 0))
				a->opts.iterations = 1;
			a->start_ns = clock_mono_ns() - interval;
		}
		status = main_batch(a);
	} else {
		status = ui_run(a);
	}
	/*
	 * A stream that breaks off is bad input for --batch, as a truncated file
	 * is: status 2. The view has said so on screen and kept what came.
	 */
	said = is_stdin && (!a->opts.batch || a->remote);
	if (said)
		main_stream_end(a);
	ret = app_loader_status(a, err, sizeof(err));
	if (ret && ret != -EINTR && (a->opts.batch || !is_stdin)) {
		if (!said)
			fprintf(stderr, "ktop: %s\n", err);
		status = EXIT_USAGE;
	}
	/* the far side stops tracing once ssh is gone; the loader sees the end */
	if (a->remote)
		remote_hangup(a->remote);
	status = main_output(a, status);
	app_stop(a);
	return status;
}

/*
 * --remote: ssh runs ktop --stream on the far side; the view reads the
 * stream as -i - does, the terminal staying its own (src/source/remote.h).
 */
static int main_remote(struct app *a)
{
	char err[512] = "";
	struct remote *r;
	int ret, status;

	if (!a->opts.batch && !main_has_terminal())
		return EXIT_USAGE;
	if (main_signals())
		return 1;
	r = remote_start(&a->opts.remote, err, sizeof(err));
	if (!r) {
		fprintf(stderr, "ktop: %s\n", err);
		return EXIT_USAGE;
	}
	ret = remote_wait_stream(r, stderr, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ktop: %s\n", err);
		remote_stop(r);
		return EXIT_USAGE;
	}
	a->remote = r;
	status = main_offline(a, "-", remote_stream_fd(r));
	a->remote = NULL;
	remote_stop(r);
	return status;
}

/* --stream: the live store as a .ktop stream on standard output. */
static int main_stream(struct app *a)
{
	char err[512] = "";
	int ret, status;

	if (isatty(STDOUT_FILENO)) {
		fprintf(stderr, "ktop: --stream writes binary data: pipe it, e.g. "
			"ktop --stream | ktop -i -; from another machine: ktop --remote HOST\n");
		return EXIT_USAGE;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "ktop: needs root to trace (tracefs and BPF are root-only)\n");
		return EXIT_USAGE;
	}
	if (main_signals())
		return 1;
	ret = app_start(a, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ktop: %s\n", err[0] ? err : strerror(-ret));
		return EXIT_USAGE;
	}
	status = app_stream(a, STDOUT_FILENO, a->opts.stream_rate, stderr);
	app_stop(a);
	return status;
}

/* --pcp, --pcp-archive: the fleet's table, headless or in the fleet pane. */
static int main_fleet(struct app *a)
{
	struct fleet_opts fo = {
		.hosts = a->opts.pcp_hosts, .archives = a->opts.pcp_archive,
		.interval = a->opts.interval, .start = a->opts.pcp_start,
		.finish = a->opts.pcp_finish, .origin = a->opts.pcp_origin,
	};
	struct fleet_batch_opts bo = {
		.json = a->opts.json, .interval = a->opts.interval,
		.duration = a->opts.duration, .iterations = a->opts.iterations,
	};
	char err[512] = "";
	struct fleet *f;
	FILE *out;
	int status;

	if (!a->opts.batch && !main_has_terminal())
		return EXIT_USAGE;
	if (main_signals())
		return 1;
	f = fleet_new(&fo, err, sizeof(err));
	if (!f) {
		fprintf(stderr, "ktop: %s\n", err);
		return EXIT_USAGE;
	}
	if (!a->opts.batch) {
		/* the other panes have no events here: an empty store */
		a->st = store_new(a->opts.memory, 1);
		a->wake_fd = fleet_wake_fd(f);
		status = a->st ? ui_run_fleet(a, f) : 1;
		store_free(a->st);
		a->st = NULL;
		a->wake_fd = -1;
		fleet_free(f);
		return status;
	}
	out = output_fdopen(STDOUT_FILENO, false);
	if (!out) {
		fleet_free(f);
		return 1;
	}
	status = fleet_batch_run(f, &bo, out);
	if (fclose(out) && !status && errno != EPIPE && errno != EINTR)
		status = 1;
	fleet_free(f);
	return status;
}

/*
 * ktop -i BASE --diff NEW: BASE is read through the file source as -i
 * reads it, into an app of its own; NEW is a second recording, or the live
 * session (--diff live), and is the app the view follows. Both take the
 * same --view.
 */
static int main_diff(struct app *a)
{
	static struct app base;
	bool live = opts_diff_live(&a->opts);
	char err[512] = "";
	int ret, status, flags;
	const char *bad = NULL;

	base.opts = a->opts;
	base.wake_fd = -1;
	base.opts.diff = NULL;
	base.opts.output = NULL;
	a->opts.input = live ? NULL : a->opts.diff;
	if (access(base.opts.input, R_OK) && !main_buffer_of(base.opts.input))
		bad = base.opts.input;
	else if (!live && access(a->opts.input, R_OK) && !main_buffer_of(a->opts.input))
		bad = a->opts.input;
	if (bad) {
		fprintf(stderr, "ktop: %s: %s\n", bad, strerror(errno));
		return EXIT_USAGE;
	}
	if (!a->opts.batch && !main_has_terminal())
		return EXIT_USAGE;
	if (live && geteuid() != 0) {
		fprintf(stderr, "ktop: --diff live traces this machine now: that needs root "
			"(tracefs and BPF are root-only)\n");
		return EXIT_USAGE;
	}
	if (main_signals())
		return 1;
	/* the batch summary needs both whole; the view draws while they are read */
	flags = a->opts.batch ? APP_SNAP_SYNC : 0;
	ret = app_open_snapshot(&base, base.opts.input, -1, flags, err, sizeof(err));
	if (!ret)
		ret = app_view_start(&base, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ktop: %s\n", err[0] ? err : strerror(-ret));
		app_stop(&base);
		return EXIT_USAGE;
	}
	if (live)
		ret = app_start(a, err, sizeof(err));
	else
		ret = app_open_snapshot(a, a->opts.input, -1, flags, err, sizeof(err));
	if (!ret)
		ret = app_view_start(a, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ktop: %s\n", err[0] ? err : strerror(-ret));
		app_stop(a);
		app_stop(&base);
		return EXIT_USAGE;
	}
	main_reap_stale();
	if (a->opts.batch)
		status = main_diff_batch(&base, a);
	else
		status = main_diff_output(&base, a, live, ui_run_diff(a, &base));
	for (int i = 0; i < 2; i++) {
		struct app *x = i ? a : &base;

		ret = x == a && live ? 0 : app_loader_status(x, err, sizeof(err));
		if (ret && ret != -EINTR) {
			fprintf(stderr, "ktop: %s\n", err);
			status = EXIT_USAGE;
		}
	}
	app_stop(a);
	app_stop(&base);
	return status;
}

int main(int argc, char **argv)
{
	static struct app a;
	static char demo[PATH_MAX];
	char err[512] = "";
	int ret, status;

	if (tuning_init(err, sizeof(err))) {
		fprintf(stderr, "ktop: %s (see ktop --help-debug)\n", err);
		return EXIT_USAGE;
	}
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
	if (a.opts.pmda_files) {
		if (pmda_write_files(a.opts.pmda_files, err, sizeof(err))) {
			fprintf(stderr, "ktop: --pmda-files: %s\n", err);
			return EXIT_USAGE;
		}
		return 0;
	}
	if (a.opts.pmda)
		return main_signals() ? 1 : pmda_main(&a);
	if (a.opts.pcp_hosts || a.opts.pcp_archive)
		return main_fleet(&a);
	if (a.opts.demo) {
		char tried[1024];

		a.opts.input = main_demo_path(demo, sizeof(demo), tried, sizeof(tried));
		if (!a.opts.input) {
			fprintf(stderr, "ktop: --demo: no demo snapshot (looked for %s)\n", tried);
			return EXIT_USAGE;
		}
	}
	/* a target -o would refuse is said now, not after minutes of tracing */
	if (a.opts.output && safefile_out_check(a.opts.output, 0, err, sizeof(err))) {
		fprintf(stderr, "ktop: -o %s\n", err);
		return EXIT_USAGE;
	}
	if (a.opts.diff)
		return main_diff(&a);
	if (a.opts.remote.dest)
		return main_remote(&a);
	if (a.opts.input)
		return main_offline(&a, a.opts.input, -1);
	if (a.opts.stream)
		return main_stream(&a);
	if (!a.opts.batch && !main_has_terminal())
		return EXIT_USAGE;
	if (geteuid() != 0) {
		fprintf(stderr, "ktop: needs root to trace (tracefs and BPF are root-only); "
			"try: sudo ktop, or ktop --features to see what this kernel permits\n");
		return EXIT_USAGE;
	}

	/* what --save-on needs of the session: into the options, nothing written yet */
	if (app_recorder_prepare(&a, err, sizeof(err))) {
		fprintf(stderr, "ktop: %s\n", err);
		return EXIT_USAGE;
	}
	/* before anything changes in tracefs, so every signal finds the exit path */
	if (main_signals())
		return 1;
	ret = app_start(&a, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ktop: %s\n", err[0] ? err : strerror(-ret));
		return EXIT_USAGE;
	}
	ret = app_view_start(&a, err, sizeof(err));
	if (!ret)
		ret = app_recorder_start(&a, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ktop: %s\n", err);
		app_stop(&a);
		return EXIT_USAGE;
	}
	if (a.opts.batch)
		status = main_batch(&a);
	else
		status = ui_run(&a);
	status = main_output(&a, status);
	app_stop(&a);
	return status;
}
