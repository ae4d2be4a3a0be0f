// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tracer's settings (see session.c): the osnoise/timerlat files,
 * tracing_thresh, the function_graph options, checked before anything is
 * written, saved first when they are global (an instance cannot have its
 * own) and put back after, and the events a tracer is best seen with.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "features.h"
#include "lib/file.h"
#include "session-local.h"
#include "tracestate.h"

/* ---- tracer settings ---------------------------------------------------- */

static bool is_osnoise_tracer(const char *tracer)
{
	return tracer && (!strcmp(tracer, "osnoise") || !strcmp(tracer, "timerlat"));
}

/*
 * Where the setting @file lives: in the session's directory, or (for the
 * files the kernel has only once, such as osnoise/, tracing_thresh,
 * max_graph_depth) at the top level. Return: true when global.
 */
static bool sess_locate(struct session *s, const char *file, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", s->dir, file);
	if (s->top || !access(path, F_OK))
		return false;
	snprintf(path, len, "%s/%s", s->tracefs, file);
	return true;
}

/*
 * Before writing global files from an instance session: save them (memory,
 * and a file a later ktop restores from if this one is killed).
 */
static int save_global(struct session *s, const char *const *files, char *err, size_t errlen)
{
	int ret;

	if (s->top || s->global || !files[0])
		return 0;
	if (!sess_run_dir()) {
		snprintf(err, errlen, "no safe directory to save the global tracing settings in "
			 "(needed to restore them if ktop is killed): %s", sess_run_dir_why());
		return -EPERM;
	}
	s->global = tracestate_capture_files(s->tracefs, files);
	if (!s->global) {
		ret = errno ? -errno : -ENOMEM;
		snprintf(err, errlen, "cannot read the global tracing settings: %s",
			 strerror(-ret));
		return ret;
	}
	snprintf(s->global_path, sizeof(s->global_path), "%s/global-%d.state", sess_run_dir(),
		 getpid());
	ret = tracestate_save(s->global, s->global_path);
	if (ret) {
		snprintf(err, errlen, "cannot save the global tracing settings to %s: %s "
			 "(needed to restore them if ktop is killed)", s->global_path,
			 strerror(-ret));
		s->global_path[0] = '\0';
		tracestate_free(s->global);
		s->global = NULL;
		return ret;
	}
	return 0;
}

void sess_restore_global(struct session *s)
{
	if (!s->global || s->global_restored)
		return;
	if (!tracestate_restore(s->global)) {
		s->global_restored = true;
		if (s->global_path[0])
			unlink(s->global_path);
	}
}

/* Write a setting; on failure say which, what value, and why. */
static int set_setting(struct session *s, const char *file, const char *value, const char *opt,
		       char *err, size_t errlen)
{
	char path[1024];
	int ret;

	sess_locate(s, file, path, sizeof(path));
	ret = file_write_str(path, value, O_TRUNC);
	if (ret)
		snprintf(err, errlen, "%s: the kernel refused %s = '%s': %s%s", opt, file, value,
			 strerror(-ret), ret == -ENOENT ? " (this kernel has no such setting)" :
			 ret == -EINVAL ? " (value out of range)" : "");
	return ret;
}

/* -O NAME=VALUE: NAME must be one of session_osnoise_files. Return: its index or -1. */
static int osnoise_file_index(const char *opt, size_t namelen)
{
	for (int i = 0; session_osnoise_files[i]; i++)
		if (strlen(session_osnoise_files[i]) == namelen &&
		    !strncmp(session_osnoise_files[i], opt, namelen))
			return i;
	return -1;
}

/* Do the tracer settings fit the tracer? Reads nothing. Return: 0 or -EINVAL. */
int sess_check_settings(const struct session_opts *o, const char *tracer, char *err,
			  size_t errlen)
{
	char known[256] = "";

	if ((o->max_depth_set || o->thresh_set || o->funcgraph_irqs || o->funcgraph_tail) &&
	    (!tracer || strcmp(tracer, "function_graph"))) {
		snprintf(err, errlen, "--max-depth, --thresh and --funcgraph-* are settings of "
			 "the function_graph tracer (-p function_graph), not of '%s'",
			 tracer ? tracer : "nop");
		return -EINVAL;
	}
	if (o->ntracer_opts && !is_osnoise_tracer(tracer)) {
		snprintf(err, errlen, "-O NAME=VALUE sets osnoise/timerlat settings: it needs "
			 "-p osnoise or -p timerlat, not '%s'", tracer ? tracer : "nop");
		return -EINVAL;
	}
	for (int i = 0; session_osnoise_files[i]; i++)
		snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s",
			 i ? ", " : "", session_osnoise_files[i]);
	for (unsigned int i = 0; i < o->ntracer_opts; i++) {
		const char *eq = strchr(o->tracer_opts[i], '=');

		if (!eq || osnoise_file_index(o->tracer_opts[i], eq - o->tracer_opts[i]) < 0) {
			snprintf(err, errlen, "-O '%s': unknown %s setting; use NAME=VALUE with "
				 "NAME one of: %s", o->tracer_opts[i], tracer, known);
			return -EINVAL;
		}
		if (!eq[1]) {
			snprintf(err, errlen, "-O '%s': no value after '='", o->tracer_opts[i]);
			return -EINVAL;
		}
	}

	return 0;
}

/*
 * The tracer's global settings, written before current_tracer (function_graph
 * picks its handlers from tracing_thresh when it starts): max_graph_depth,
 * tracing_thresh, set_graph_function when the instance has none, and the
 * osnoise/ files of -O.
 */
int sess_configure_settings(struct session *s, const struct session_opts *o,
			      const char *tracer, char *err, size_t errlen)
{
	const char *files[SESSION_MAX_LIST + 16];
	char buf[1024];
	unsigned int nf = 0;
	bool pending[SESSION_MAX_LIST] = { false };
	int ret;

	/* which global files will change: save them first */
	if (o->max_depth_set && sess_locate(s, "max_graph_depth", buf, sizeof(buf)))
		files[nf++] = "max_graph_depth";
	if (o->thresh_set && sess_locate(s, "tracing_thresh", buf, sizeof(buf)))
		files[nf++] = "tracing_thresh";
	if (o->ngraph_funcs && sess_locate(s, "set_graph_function", buf, sizeof(buf)))
		files[nf++] = "set_graph_function";
	if (o->ntracer_opts && sess_locate(s, "osnoise/period_us", buf, sizeof(buf))) {
		static char names[8][40];

		for (int i = 0; session_osnoise_files[i] && i < 8; i++) {
			snprintf(names[i], sizeof(names[i]), "osnoise/%s",
				 session_osnoise_files[i]);
			files[nf++] = names[i];
		}
	}
	files[nf] = NULL;
	ret = save_global(s, files, err, errlen);
	if (ret)
		return ret;

	if (o->max_depth_set) {
		snprintf(buf, sizeof(buf), "%u", o->max_depth);
		ret = set_setting(s, "max_graph_depth", buf, "--max-depth", err, errlen);
		if (ret)
			return ret;
	}
	if (o->thresh_set) {
		snprintf(buf, sizeof(buf), "%lu", o->thresh_us);
		ret = set_setting(s, "tracing_thresh", buf, "--thresh", err, errlen);
		if (ret)
			return ret;
	}
	/*
	 * period_us >= runtime_us at every moment: the kernel refuses a write
	 * that breaks it, so a refused value gets a second chance after the
	 * others are in.
	 */
	for (unsigned int i = 0; i < o->ntracer_opts; i++)
		pending[i] = true;
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned int i = 0; i < o->ntracer_opts; i++) {
			const char *eq = strchr(o->tracer_opts[i], '=');
			char file[64];

			if (!pending[i])
				continue;
			snprintf(file, sizeof(file), "osnoise/%.*s", (int)(eq - o->tracer_opts[i]),
				 o->tracer_opts[i]);
			ret = set_setting(s, file, eq + 1, "-O", err, errlen);
			if (!ret) {
				pending[i] = false;
				err[0] = '\0';
			} else if (pass || ret != -EINVAL) {
				return ret;
			}
		}
	}
	return 0;
}

/* The tracer's own options (options/funcgraph-*), written once it is the current tracer. */
int sess_configure_options(struct session *s, char *err, size_t errlen)
{
	static const struct {
		const char	*file;
		const char	*opt;
		size_t		off;
	} t[] = {
		{ "options/funcgraph-irqs", "--funcgraph-irqs",
		  offsetof(struct session, funcgraph_irqs) },
		{ "options/funcgraph-tail", "--funcgraph-tail",
		  offsetof(struct session, funcgraph_tail) },
	};
	int ret;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int v = *(const int *)((const char *)s + t[i].off);

		if (v == SESSION_OPT_KEEP)
			continue;
		/* the session's own options only: a global fallback would not be restored */
		ret = sess_write(s, t[i].file, v == SESSION_OPT_ON ? "1" : "0");
		if (ret) {
			snprintf(err, errlen, "%s: cannot set %s in %s: %s", t[i].opt, t[i].file,
				 s->name, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/*
 * Events worth having with a tracer when none were asked for: the noise
 * events of osnoise (its interference, per kind), and for timerlat those
 * plus interrupts and scheduling, the usual causes of a latency spike.
 * Missing ones are skipped.
 */
void sess_enable_tracer_events(struct session *s, const char *tracer)
{
	static const char *const osnoise_ev[] = { "osnoise", NULL };
	static const char *const timerlat_ev[] = {
		"osnoise", "irq", "sched:sched_switch", "sched:sched_wakeup",
		"sched:sched_waking", NULL
	};
	const char *const *ev = !strcmp(tracer, "osnoise") ? osnoise_ev :
				!strcmp(tracer, "timerlat") ? timerlat_ev : NULL;
	char err[256];

	for (; ev && *ev; ev++)
		sess_enable_events(s, *ev, err, sizeof(err));
}
