// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tracing session: ktop's own instance ktop-<pid>, or the top level with
 * its whole state saved first (to memory, and to a file under /run/ktop so a
 * later ktop can put it back after a SIGKILL), and the exit paths that undo
 * it: session_close(), the terminating signals (through the main loop), the
 * fatal signals and atexit() (best effort, here).
 *
 * A live session holds an flock()ed file /run/ktop/ktop-<pid>.lock: that is
 * how session_reap_stale() tells a ktop that is alive from a pid that was
 * reused.
 *
 * Here: opening (instance or top level, events, pids, the tep) and closing.
 * The signal and emergency paths, the lock file and the reaper are in
 * session_guard.c; the tracer's settings in session_tracer.c; their shared
 * types in session-local.h.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>
#include <event-parse.h>

#include "lib/debug.h"
#include "lib/evformat.h"
#include "features.h"
#include "lib/file.h"
#include "lib/output.h"
#include "lib/safefile.h"
#include "funcfilter_cmdline.h"
#include "session-local.h"
#include "tracestate.h"
#include "lib/tuning.h"

/*
 * Wake the readers when a tenth of the buffer is full; they also wake every
 * 100 ms. At 1 % a reader woke for every page and spliced one at a time:
 * under a one-byte dd at -b 256 the readers' CPU per event halved at 10 %
 * (85 -> 42 ns) and fewer events were lost in each of three runs (0.75 ->
 * 0.27 %, 18.9 -> 12.3 %, 15.9 -> 10.1 %, the last two on a busy host); at
 * 25 % the loss went up again in the quiet run (4.5 %).
 */
#define SESSION_BUFFER_PERCENT	"10"
#define SESSION_MAX_OPEN	4

/* Sessions not yet closed; compared, never dereferenced, when checking a pointer. */
static struct session *session_open_list[SESSION_MAX_OPEN];

const char *const session_osnoise_files[] = {
	"period_us", "runtime_us", "stop_tracing_us", "stop_tracing_total_us",
	"timerlat_period_us", "print_stack", "cpus", NULL
};

/* ---- small file helpers ---------------------------------------------- */

int sess_write(struct session *s, const char *file, const char *str)
{
	char path[2048];

	snprintf(path, sizeof(path), "%s/%s", s->dir, file);
	return file_write_str(path, str, O_TRUNC);
}

/* Open @file of the session for writing each item with its own write(). */
static int sess_open_w(struct session *s, const char *file, bool trunc)
{
	char path[2048];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", s->dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC | (trunc ? O_TRUNC : O_APPEND));
	return fd < 0 ? -errno : fd;
}

/*
 * The directory of the lock and state files: /run/ktop, or /tmp/ktop when
 * /run/ktop cannot be made. Used only when trusted (safefile_dir_open():
 * owned by root or the euid, not writable by group or others, and so every
 * directory above it), since the reaper restores what the files there say:
 * a /tmp/ktop another user made first is refused. NULL when neither will do,
 * said once on stderr (the reason stays in run_dir_why), and when not root.
 */
static char run_dir_why[600];

const char *sess_run_dir_why(void)
{
	return run_dir_why;
}

const char *sess_run_dir(void)
{
	static const char *const dirs[] = { "/run/ktop", "/tmp/ktop" };
	static const char *dir;
	static bool tried;

	if (tried)
		return dir;
	tried = true;
	if (geteuid())
		return NULL;	/* not root: nothing to save or restore; make no /tmp/ktop */
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !dir; i++) {
		char why[256];
		int fd = -1;

		if (mkdir(dirs[i], 0700) && errno != EEXIST)
			snprintf(why, sizeof(why), "%s: %s", dirs[i], strerror(errno));
		else if ((fd = safefile_dir_open(dirs[i], 0, why, sizeof(why))) >= 0)
			dir = dirs[i];
		if (fd >= 0)
			close(fd);
		else
			snprintf(run_dir_why + strlen(run_dir_why),
				 sizeof(run_dir_why) - strlen(run_dir_why), "%s%s",
				 run_dir_why[0] ? "; " : "", why);
	}
	if (!dir)
		fprintf(stderr, "ktop: no safe directory for the lock and crash-recovery files "
			"(%s): ktop's own instance is traced without them; a session that "
			"changes the top level or global settings is refused\n", run_dir_why);
	return dir;
}

/* ---- session_open ----------------------------------------------------- */

static void add_system(struct session *s, const char *sys)
{
	for (int i = 0; i < s->nsystems; i++)
		if (!strcmp(s->systems[i], sys))
			return;
	if (s->nsystems == SESSION_MAX_SYSTEMS) {
		s->all_systems = true;
		return;
	}
	s->systems[s->nsystems] = strdup(sys);
	if (s->systems[s->nsystems])
		s->nsystems++;
	else
		s->all_systems = true;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/*
 * Enable the events @spec names: "sys", "sys:event", "event", globs in any
 * part ("sched:sched_sw*", "*:*irq*"). Return: number enabled, or -errno.
 */
int sess_enable_events(struct session *s, const char *spec, char *err, size_t errlen)
{
	char sysg[256], evg[256], path[1024];
	const char *colon = strpbrk(spec, ":/");
	struct dirent *sde, *ede;
	DIR *sd, *ed;
	int n = 0, ret = 0, r;
	bool bare = !colon;

	if (colon) {
		snprintf(sysg, sizeof(sysg), "%.*s", (int)(colon - spec), spec);
		snprintf(evg, sizeof(evg), "%s", colon + 1);
	} else {
		snprintf(sysg, sizeof(sysg), "%s", spec);
		evg[0] = '\0';
	}
	if (!sysg[0])
		snprintf(sysg, sizeof(sysg), "*");

	snprintf(path, sizeof(path), "%s/events", s->dir);
	sd = opendir(path);
	if (!sd) {
		snprintf(err, errlen, "cannot list %s: %s", path, strerror(errno));
		return -errno;
	}
again:
	rewinddir(sd);
	while ((sde = readdir(sd))) {
		if (sde->d_name[0] == '.' || fnmatch(sysg, sde->d_name, 0))
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", s->dir, sde->d_name);
		if (!is_dir(path))
			continue;
		if (!evg[0] || !strcmp(evg, "*")) {
			snprintf(path, sizeof(path), "events/%s/enable", sde->d_name);
			r = sess_write(s, path, "1");
			if (r && !ret)
				ret = r;
			if (!r) {
				n++;
				add_system(s, sde->d_name);
			}
			continue;
		}
		ed = opendir(path);
		while (ed && (ede = readdir(ed))) {
			if (ede->d_name[0] == '.' || fnmatch(evg, ede->d_name, 0))
				continue;
			snprintf(path, sizeof(path), "events/%s/%s/enable", sde->d_name,
				 ede->d_name);
			r = sess_write(s, path, "1");
			if (r == -ENOENT)
				continue;	/* a file, not an event */
			if (r && !ret)
				ret = r;
			if (!r) {
				n++;
				add_system(s, sde->d_name);
			}
		}
		if (ed)
			closedir(ed);
	}
	/* "sched_switch" alone: an event name in any system, as trace-cmd -e allows */
	if (!n && !ret && bare) {
		bare = false;
		snprintf(evg, sizeof(evg), "%s", spec);
		snprintf(sysg, sizeof(sysg), "*");
		goto again;
	}
	closedir(sd);
	s->events_on |= n > 0;
	if (ret && !n) {
		snprintf(err, errlen, "cannot enable event '%s': %s", spec, strerror(-ret));
		return ret;
	}
	if (!n) {
		snprintf(err, errlen, "unknown event '%s': no such event; see %s/available_events",
			 spec, s->tracefs);
		return -ENOENT;
	}
	return n;
}

static int write_pids(struct session *s, const char *file, const int *pids, unsigned int n,
		      char *err, size_t errlen)
{
	char buf[32];
	int fd = sess_open_w(s, file, true);

	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s/%s: %s", s->dir, file, strerror(-fd));
		return fd;
	}
	for (unsigned int i = 0; i < n; i++) {
		snprintf(buf, sizeof(buf), "%d ", pids[i]);
		if (write(fd, buf, strlen(buf)) < 0) {
			int ret = -errno;

			snprintf(err, errlen, "pid %d for %s: %s", pids[i], file, strerror(-ret));
			close(fd);
			return ret;
		}
	}
	close(fd);
	return 0;
}

/* Every thread of this process, to keep ktop out of its own trace. */
static int self_tids(int *tids, int max)
{
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir("/proc/self/task");
	while (d && (de = readdir(d)) && n < max)
		if (isdigit((unsigned char)de->d_name[0]))
			tids[n++] = atoi(de->d_name);
	if (d)
		closedir(d);
	if (!n)
		tids[n++] = getpid();
	return n;
}

static int count_cpus(const char *dir)
{
	char path[1024];
	struct dirent *de;
	int max = -1;
	DIR *d;

	snprintf(path, sizeof(path), "%s/per_cpu", dir);
	d = opendir(path);
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, "cpu", 3) && isdigit((unsigned char)de->d_name[3]))
			if (atoi(de->d_name + 3) > max)
				max = atoi(de->d_name + 3);
	if (d)
		closedir(d);
	if (max < 0) {
		long n = sysconf(_SC_NPROCESSORS_CONF);

		return n > 0 ? (int)n : 1;
	}
	return max + 1;
}

/* Check what the options ask against the features. Sets *top. Return: 0 or -errno. */
static int check_opts(const struct session_opts *o, const struct features *ft,
		      const char *tracer, bool *top, char *err, size_t errlen)
{
	const struct feature *f = NULL;
	char list[1024];

	*top = false;
	if (!ft->root) {
		snprintf(err, errlen, "ktop needs root: tracefs and BPF are root-only here "
			 "(run it with sudo, or open a snapshot with -i FILE)");
		return -EPERM;
	}
	if (!ft->tracefs[0]) {
		snprintf(err, errlen, "tracefs is not mounted (%s); as root: "
			 "mount -t tracefs nodev /sys/kernel/tracing",
			 ft->f[FEATURE_TRACEFS].detail);
		return -ENOENT;
	}
	if (tracer) {
		for (int i = 0; i < FEATURE_NR; i++)
			if (ft->f[i].name && !strcmp(ft->f[i].name, tracer))
				f = &ft->f[i];
		if (f && f->state == FEAT_NOT_BUILT) {
			snprintf(err, errlen, "tracer '%s' is not built into this kernel (%s); "
				 "see %s/available_tracers", tracer, f->config, ft->tracefs);
			return -ENOENT;
		}
		if (f && f->state == FEAT_NOT_PERMITTED) {
			snprintf(err, errlen, "tracer '%s' not permitted by this kernel (EPERM): "
				 "writing current_tracer is refused (lockdown or security policy); "
				 "trace events instead, e.g. -e sched -e irq -e raw_syscalls",
				 tracer);
			return -EPERM;
		}
		if (f && f->state == FEAT_TOP_LEVEL_ONLY)
			*top = true;
		if (!f && !features_tracer_listed(ft->tracefs, tracer, list, sizeof(list))) {
			snprintf(err, errlen, "unknown tracer '%s'; this kernel has: %s", tracer,
				 list[0] ? list : "(none)");
			return -EINVAL;
		}
	}
	if ((o->nfilters || o->nnotrace || o->ngraph_funcs) && !tracer) {
		snprintf(err, errlen, "-l/-n/-g filter functions: they need a function tracer "
			 "(-p function or -p function_graph)");
		return -EINVAL;
	}
	if ((o->nfilters || o->nnotrace || o->ngraph_funcs) &&
	    ft->f[FEATURE_FTRACE_FILTER].state != FEAT_AVAILABLE) {
		snprintf(err, errlen, "function filters (-l/-n/-g) are unavailable: %s: %s",
			 feature_state_str(ft->f[FEATURE_FTRACE_FILTER].state),
			 ft->f[FEATURE_FTRACE_FILTER].detail);
		return -EPERM;
	}
	if (!tracer && !o->nevents) {
		snprintf(err, errlen, "nothing to trace: give a tracer (-p) or events (-e)");
		return -EINVAL;
	}
	/* Test hook: exercise the top-level path on kernels where no tracer needs it. */
	if (tuning()->test_top_level)
		*top = true;
	return 0;
}

/* Is instance @name held by an open session of this process? */
static bool instance_held(const char *name)
{
	for (int i = 0; i < SESSION_MAX_OPEN; i++)
		if (session_open_list[i] && !strcmp(session_open_list[i]->name, name))
			return true;
	return false;
}

/*
 * Create ktop-<pid>, or adopt it when it is the one features_probe_keep()
 * left (@ft->kept, held by no session): the probe set it up as new.
 */
static int open_instance(struct session *s, const struct features *ft, char *err,
			 size_t errlen)
{
	char *dir;

	snprintf(s->name, sizeof(s->name), "ktop-%d", getpid());
	if (tracefs_instance_exists(s->name) &&
	    (strcmp(ft->kept, s->name) || instance_held(s->name))) {
		snprintf(err, errlen, "instance %s already exists (a session of this process "
			 "is open)", s->name);
		return -EEXIST;
	}
	/* libtracefs: creates it, or returns a handle to the one there */
	s->inst = tracefs_instance_create(s->name);
	if (!s->inst) {
		int ret = errno ? -errno : -ENOMEM;

		snprintf(err, errlen, "cannot create tracefs instance %s: %s", s->name,
			 strerror(-ret));
		return ret;
	}
	dir = tracefs_instance_get_dir(s->inst);
	if (!dir) {
		tracefs_instance_free(s->inst);
		s->inst = NULL;
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	snprintf(s->dir, sizeof(s->dir), "%s", dir);
	free(dir);
	/* a new instance starts with tracing_on=1: nothing until session_start() */
	sess_write(s, "tracing_on", "0");
	return 0;
}

/* The pid of another live ktop whose session holds the top level (its toplevel-PID.state), or 0. */
static long top_level_holder(void)
{
	const char *run = sess_run_dir();
	struct dirent *de;
	long pid, found = 0;
	DIR *d;

	if (!run || !(d = opendir(run)))
		return 0;
	while (!found && (de = readdir(d))) {
		char *end;

		if (strncmp(de->d_name, "toplevel-", 9))
			continue;
		pid = strtol(de->d_name + 9, &end, 10);
		if (pid > 0 && pid != getpid() && !strcmp(end, ".state") && session_ktop_alive(pid))
			found = pid;
	}
	closedir(d);
	return found;
}

static int open_top(struct session *s, const struct session_opts *o, char *err, size_t errlen)
{
	const char *cur, *ev;
	uint64_t held;
	int ret, held_cpus;
	long holder;

	snprintf(s->name, sizeof(s->name), "(top level)");
	snprintf(s->dir, sizeof(s->dir), "%s", s->tracefs);
	/*
	 * Another live ktop's session there: its saved state is the one to put
	 * back. Taking over would save its settings as "before" and leave them
	 * behind when both have ended, whichever ends first: --force does not
	 * share the top level.
	 */
	holder = top_level_holder();
	if (holder > 0) {
		snprintf(err, errlen, "ktop %ld traces at the top level (its state to put back is "
			 "%s/toplevel-%ld.state): two sessions there would put back each other's "
			 "settings; stop it first (--force does not share the top level)", holder,
			 sess_run_dir(), holder);
		return -EBUSY;
	}
	s->saved = tracestate_capture(s->dir, TRACESTATE_NO_TRIGGERS);
	if (!s->saved) {
		ret = -errno;
		snprintf(err, errlen, "cannot read the top-level tracing state: %s",
			 strerror(-ret));
		return ret;
	}
	cur = tracestate_get(s->saved, "current_tracer");
	ev = tracestate_get(s->saved, "set_event");
	if (!o->force && cur && strcmp(cur, "nop")) {
		snprintf(err, errlen, "the top-level tracer is in use (current_tracer is '%s'): "
			 "another tool is tracing; stop it, or run with --force "
			 "(ktop puts the top level back as it was on exit)", cur);
		return -EBUSY;
	}
	if (!o->force && ev && ev[0]) {
		snprintf(err, errlen, "events are enabled at the top level (%.60s%s): another "
			 "tool is tracing; stop it, or run with --force (ktop puts the top level "
			 "back as it was on exit)", ev, strlen(ev) > 60 ? "..." : "");
		return -EBUSY;
	}
	/* nop and no events, but what another tool recorded is still held: not ours to clear */
	held = sess_top_level_entries(s->tracefs, &held_cpus);
	if (!o->force && held) {
		snprintf(err, errlen, "the top-level ring buffer holds %" PRIu64 " event%s on %d "
			 "CPU%s that another tool recorded; ktop traces at the top level here and "
			 "would clear them: read or save them first (cat %s/trace, or trace-cmd "
			 "extract), or run with --force to discard them", held,
			 held == 1 ? "" : "s", held_cpus, held_cpus == 1 ? "" : "s", s->tracefs);
		return -EBUSY;
	}
	if (!sess_run_dir()) {
		snprintf(err, errlen, "no safe directory to save the top-level state in (needed "
			 "to restore it if ktop is killed): %s", sess_run_dir_why());
		return -EPERM;
	}
	snprintf(s->state_path, sizeof(s->state_path), "%s/toplevel-%d.state", sess_run_dir(),
		 getpid());
	ret = tracestate_save(s->saved, s->state_path);
	if (ret) {
		s->state_path[0] = '\0';
		snprintf(err, errlen, "cannot save the top-level state to %s/: %s "
			 "(needed to restore it if ktop is killed)", sess_run_dir(), strerror(-ret));
		return ret;
	}
	/* from here on, a crash restores the top level */
	session_live = s;

	/* start from a clean top level: what others left would filter our events */
	sess_write(s, "tracing_on", "0");
	sess_write(s, "set_event", "");
	sess_write(s, "set_event_pid", "");
	sess_write(s, "set_event_notrace_pid", "");
	sess_write(s, "set_ftrace_pid", "");
	sess_write(s, "set_ftrace_notrace_pid", "");
	sess_write(s, "current_tracer", "nop");
	sess_write(s, "trace", "");
	s->top_taken = true;
	return 0;
}

/*
 * "0-3,6" -> "4f", in the kernel's cpumask format: hex, groups of 32 bits
 * separated by commas, most significant first. Return: 0 or -EINVAL.
 */
static int cpulist_to_mask(const char *list, int ncpus, char *out, size_t len)
{
	uint32_t words[1024 / 32] = { 0 };
	int nwords = (ncpus + 31) / 32, any = 0;
	const char *p = list;
	size_t off = 0;
	char *end;

	if (ncpus <= 0 || ncpus > 1024)
		return -EINVAL;
	while (*p) {
		long a = strtol(p, &end, 10), b;

		if (end == p || a < 0)
			return -EINVAL;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1)
				return -EINVAL;
			p = end;
		}
		if (b < a || b >= ncpus)
			return -EINVAL;
		for (long c = a; c <= b; c++)
			words[c / 32] |= 1u << (c % 32);
		any = 1;
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	if (!any)
		return -EINVAL;
	for (int i = nwords - 1; i >= 0 && off < len; i--)
		off += snprintf(out + off, len - off, i == nwords - 1 ? "%x" : ",%08x", words[i]);
	return off < len ? 0 : -EINVAL;
}

static int configure(struct session *s, const struct session_opts *o, const char *tracer,
		     char *err, size_t errlen)
{
	char buf[64];
	int ret;

	if (o->buffer_kb) {
		snprintf(buf, sizeof(buf), "%zu", o->buffer_kb);
		if (!s->top)
			features_expand_global(s->dir);
		ret = sess_write(s, "buffer_size_kb", buf);
		if (ret) {
			snprintf(err, errlen, "cannot set a %zu KB buffer per CPU: %s",
				 o->buffer_kb, strerror(-ret));
			return ret;
		}
	}
	sess_write(s, "buffer_percent", SESSION_BUFFER_PERCENT);
	/*
	 * A new instance takes the top level's trace options: where someone left
	 * options/stacktrace or userstacktrace on there, every event of ktop's
	 * would carry a stack (8 times the store's bytes, seen). Stacks are
	 * ktop's to ask for (--stack, --ustack, Y: stacktrig.c sets them again);
	 * at the top level as ktop's session they are saved and put back.
	 */
	sess_write(s, "options/stacktrace", "0");
	sess_write(s, "options/userstacktrace", "0");
	/*
	 * CLOCK_MONOTONIC timestamps line the ring buffer up with BPF's
	 * bpf_ktime_get_ns() and with the UI's clock; "local" drifts per CPU.
	 * Kernels without "mono" keep their default (alignment then relies on
	 * bpfstats_set_clock_offset).
	 */
	sess_write(s, "trace_clock", "mono");

	if ((o->cpus && o->cpus[0]) || s->top) {
		char mask[1200];

		snprintf(buf, sizeof(buf), "0-%d", s->ncpus - 1);
		ret = cpulist_to_mask(o->cpus && o->cpus[0] ? o->cpus : buf, s->ncpus, mask,
				      sizeof(mask));
		if (ret) {
			snprintf(err, errlen, "bad CPU list '%s' for -C: use numbers from 0 to %d, "
				 "ranges and commas (e.g. 0-3,6)", o->cpus, s->ncpus - 1);
			return ret;
		}
		ret = sess_write(s, "tracing_cpumask", mask);
		if (ret) {
			snprintf(err, errlen, "cannot set tracing_cpumask to %s (-C %s): %s", mask,
				 o->cpus, strerror(-ret));
			return ret;
		}
	}

	if (o->npids) {
		ret = write_pids(s, "set_event_pid", o->pids, o->npids, err, errlen);
		if (ret)
			return ret;
		if (tracer) {
			ret = write_pids(s, "set_ftrace_pid", o->pids, o->npids, err, errlen);
			if (ret)
				return ret;
		}
	} else if (o->exclude_self) {
		int tids[256], n = self_tids(tids, 256);

		/* event-fork: threads ktop starts later inherit the exclusion */
		sess_write(s, "options/event-fork", "1");
		ret = write_pids(s, "set_event_notrace_pid", tids, n, err, errlen);
		if (ret)
			return ret;
		if (tracer) {
			sess_write(s, "options/function-fork", "1");
			write_pids(s, "set_ftrace_notrace_pid", tids, n, err, errlen);
			err[0] = '\0';
		}
	}

	for (unsigned int i = 0; i < o->nevents; i++) {
		ret = sess_enable_events(s, o->events[i], err, errlen);
		if (ret < 0)
			return ret;
	}

	if (tracer) {
		ret = sess_configure_settings(s, o, tracer, err, errlen);
		if (ret)
			return ret;
		/* -l, -n, -g in the filter prompt's language, resolved as the prompt does */
		ret = funcfilter_cmdline_apply(o, s->dir, s->tracefs, err, errlen);
		if (ret)
			return ret;
		if (!o->nevents && !o->no_events)
			sess_enable_tracer_events(s, tracer);
		/* the tracer itself goes on at the end of session_open(): apply_tracer() */
		snprintf(s->tracer, sizeof(s->tracer), "%s", tracer);
		s->tracer_pending = true;
		s->funcgraph_irqs = o->funcgraph_irqs;
		s->funcgraph_tail = o->funcgraph_tail;
		add_system(s, "ftrace");
	}
	if (o->nstacks) {
		/* after every event is on: a trigger would fire on a disabled event */
		ret = stacktrig_set(&s->trig, s->dir, s->top, o->stacks, o->nstacks, s->stack_note,
				    sizeof(s->stack_note), err, errlen);
		if (ret)
			return ret;
		add_system(s, "ftrace");	/* kernel_stack, user_stack */
	}
	return 0;
}

/*
 * Save the top level as ktop set it up, for sess_top_level_still_ours() of a
 * later ktop, should this one be killed. Best effort: without it, the
 * saved state is restored unconditionally.
 */
static void save_ours(struct session *s)
{
	struct tracestate *ours = tracestate_capture(s->dir, TRACESTATE_NO_INSTANCES |
						     TRACESTATE_NO_EVENTS);

	snprintf(s->ours_path, sizeof(s->ours_path), "%s/toplevel-%d.ours",
		 sess_run_dir() ? sess_run_dir() : "", getpid());
	if (!ours || !sess_run_dir() || tracestate_save(ours, s->ours_path))
		s->ours_path[0] = '\0';
	tracestate_free(ours);
}

/* Parse every events/<sys>/<event>/format of one system into tep. */
static void load_system_formats(struct session *s, const char *sys)
{
	char events[PATH_MAX];

	snprintf(events, sizeof(events), "%s/events", s->tracefs);
	evformat_load_system(s->tep, events, sys, false);
}

/*
 * The formats of the events this session can record. Not with
 * tracefs_local_events_system(): that also reads /proc/kallsyms into the tep,
 * which the decoders never use (they have their own symbol table), and which
 * costs seconds on a slow machine.
 */
static int load_tep(struct session *s, char *err, size_t errlen)
{
	char path[PATH_MAX];
	size_t len;
	char *buf;
	int ret = -ENOMEM;

	add_system(s, "ftrace");	/* print, function, funcgraph: small */
	s->tep = tep_alloc();
	if (!s->tep)
		goto out_err;
	tep_set_long_size(s->tep, sizeof(long));
	tep_set_page_size(s->tep, getpagesize());
	tep_set_file_bigendian(s->tep, tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(s->tep, tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	snprintf(path, sizeof(path), "%s/events/header_page", s->tracefs);
	ret = file_read(path, FILE_NO_MAX, &buf, &len);
	if (ret)
		goto out_err;
	ret = tep_parse_header_page(s->tep, buf, len, sizeof(long)) ? -EINVAL : 0;
	free(buf);
	if (ret)
		goto out_err;
	if (s->all_systems) {
		char **sys = tracefs_event_systems(s->tracefs);

		for (int i = 0; sys && sys[i]; i++)
			load_system_formats(s, sys[i]);
		tracefs_list_free(sys);
	} else {
		for (int i = 0; i < s->nsystems; i++)
			load_system_formats(s, s->systems[i]);
	}
	/* bprint's format strings, and comms known before the session */
	snprintf(path, sizeof(path), "%s/printk_formats", s->tracefs);
	if (!file_read(path, FILE_NO_MAX, &buf, &len)) {
		tep_parse_printk_formats(s->tep, buf);
		free(buf);
	}
	snprintf(path, sizeof(path), "%s/saved_cmdlines", s->tracefs);
	if (!file_read(path, FILE_NO_MAX, &buf, &len)) {
		tep_parse_saved_cmdlines(s->tep, buf);
		free(buf);
	}
	if (!tep_get_events_count(s->tep)) {
		ret = -ENOENT;
		goto out_err;
	}
	return 0;

out_err:
	snprintf(err, errlen, "cannot read the event formats under %s/events: %s", s->tracefs,
		 strerror(-ret));
	if (s->tep)
		tep_free(s->tep);
	s->tep = NULL;
	return ret;
}

/*
 * The tracer, last of session_open(): a function tracer hooks every kernel
 * function from here on (tracing_on does not change that), so the setup
 * before it runs at full speed. It cannot wait for session_start(): the
 * kernel refuses to change the tracer (EBUSY) while trace_pipe_raw is open,
 * and the readers open it before tracing starts.
 */
static int apply_tracer(struct session *s, char *err, size_t errlen)
{
	int ret;

	if (!s->tracer_pending)
		return 0;
	ret = sess_configure_options(s, err, errlen);
	if (ret)
		return ret;
	/* 6.1: else the top level's buffer stays at its boot size for good */
	if (!s->top)
		features_expand_global(s->dir);
	ret = sess_write(s, "current_tracer", s->tracer);
	if (ret) {
		snprintf(err, errlen, "tracer '%s' refused in %s: %s%s", s->tracer, s->name,
			 strerror(-ret), ret == -EPERM ?
			 " (not permitted by this kernel: lockdown or security policy)" :
			 ret == -EBUSY ? " (another instance runs it; stop that first)" : "");
		return ret;
	}
	s->tracer_pending = false;
	return 0;
}

static void session_undo(struct session *s)
{
	if (s->top) {
		if (s->saved && !s->restored) {
			sess_write(s, "tracing_on", "0");
			stacktrig_clear(s->trig);
			/* what is left unread is this session's: the next user finds it empty */
			if (s->top_taken)
				sess_write(s, "trace", "");
			if (!tracestate_restore(s->saved)) {
				s->restored = true;
				if (s->state_path[0])
					unlink(s->state_path);
				if (s->ours_path[0])
					unlink(s->ours_path);
			}
		}
	} else if (s->inst) {
		sess_write(s, "tracing_on", "0");
		stacktrig_clear(s->trig);
		/* only then: on 6.1 any event write, even this, expands the top level */
		if (s->events_on)
			sess_write(s, "set_event", "");
		/* EBUSY while readers still close their trace_pipe_raw */
		features_rmdir_instance(s->dir, 1000);
		if (is_dir(s->dir))
			fprintf(stderr, "ktop: could not remove tracefs instance %s: %s; the next "
				"ktop start removes it\n", s->dir, strerror(errno));
		tracefs_instance_free(s->inst);
		s->inst = NULL;
	}
	sess_restore_global(s);
}

static void session_free(struct session *s)
{
	for (int i = 0; i < SESSION_MAX_OPEN; i++)
		if (session_open_list[i] == s)
			session_open_list[i] = NULL;
	if (session_live == s)
		session_live = NULL;
	sess_lock_release(s);
	tep_free(s->tep);
	tracestate_free(s->saved);
	tracestate_free(s->global);
	stacktrig_free(s->trig);
	for (int i = 0; i < s->nsystems; i++)
		free((char *)s->systems[i]);
	free(s);
}

int session_open(struct session **out, const struct session_opts *o,
		 const struct features *ft, char *err, size_t errlen)
{
	const char *tracer = o->tracer && strcmp(o->tracer, "nop") ? o->tracer : NULL;
	struct session *s;
	bool top;
	int ret, slot;

	*out = NULL;
	if (errlen)
		err[0] = '\0';
	ret = check_opts(o, ft, tracer, &top, err, errlen);
	if (!ret)
		ret = sess_check_settings(o, tracer, err, errlen);
	if (ret)
		return ret;
	for (slot = 0; slot < SESSION_MAX_OPEN && session_open_list[slot]; slot++)
		;
	if (slot == SESSION_MAX_OPEN || (top && session_live)) {
		snprintf(err, errlen, "too many tracing sessions open in this process");
		return -EBUSY;
	}

	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->lock_fd = -1;
	s->top = top;
	s->owner = getpid();
	snprintf(s->tracefs, sizeof(s->tracefs), "%s", ft->tracefs);
	snprintf(s->tracer, sizeof(s->tracer), "nop");
	ret = sess_lock_acquire(s);
	if (ret) {
		snprintf(err, errlen, "cannot create the lock file %s: %s", s->lock_path,
			 strerror(-ret));
		free(s);
		return ret;
	}

	ret = top ? open_top(s, o, err, errlen) : open_instance(s, ft, err, errlen);
	debug_step(top ? "session: save the top level" : "session: make the instance");
	if (ret)
		goto out_undo;
	s->ncpus = count_cpus(s->dir);
	snprintf(s->p_tracing_on, sizeof(s->p_tracing_on), "%s/tracing_on", s->dir);
	snprintf(s->p_trace, sizeof(s->p_trace), "%s/trace", s->dir);
	snprintf(s->p_set_event, sizeof(s->p_set_event), "%s/set_event", s->dir);
	if (!session_live)
		session_live = s;

	ret = configure(s, o, tracer, err, errlen);
	debug_step("session: filters, events");
	if (ret)
		goto out_undo;
	ret = load_tep(s, err, errlen);
	debug_step("session: event formats");
	if (ret)
		goto out_undo;
	ret = apply_tracer(s, err, errlen);
	debug_step("session: current_tracer");
	if (ret)
		goto out_undo;
	if (s->top) {
		save_ours(s);
		debug_step("session: note what is ours");
	}

	session_open_list[slot] = s;
	*out = s;
	return 0;

out_undo:
	session_undo(s);
	session_free(s);
	return ret;
}

int session_start(struct session *s)
{
	int ret;

	if (s->top && !s->ours_path[0])
		save_ours(s);
	ret = sess_write(s, "tracing_on", "1");
	if (!ret)
		__atomic_store_n(&s->recording, 1, __ATOMIC_RELEASE);
	return ret;
}

int session_stop(struct session *s)
{
	int ret = sess_write(s, "tracing_on", "0");

	if (!ret)
		__atomic_store_n(&s->recording, 0, __ATOMIC_RELEASE);
	return ret;
}

bool session_recording(const struct session *s)
{
	return __atomic_load_n(&s->recording, __ATOMIC_ACQUIRE);
}

void session_close(struct session *s)
{
	bool open = false;

	if (!s)
		return;
	for (int i = 0; i < SESSION_MAX_OPEN; i++)
		open |= session_open_list[i] == s;
	if (!open)
		return;		/* closed already (or never opened) */
	sess_write(s, "tracing_on", "0");
	session_undo(s);
	session_free(s);
}

struct tracefs_instance *session_instance(struct session *s)
{
	return s->inst;
}

struct tep_handle *session_tep(struct session *s)
{
	return s->tep;
}

const char *session_tracer(const struct session *s)
{
	return s->tracer;
}

const char *session_dir(const struct session *s)
{
	return s->dir;
}

int session_enable_event(struct session *s, const char *system, const char *name, bool on)
{
	char file[512];
	int ret;

	snprintf(file, sizeof(file), "events/%s/%s/enable", system, name);
	ret = sess_write(s, file, on ? "1" : "0");
	if (!ret && on)
		s->events_on = true;
	return ret;
}

static bool is_latency_tracer(const char *t)
{
	return !strcmp(t, "osnoise") || !strcmp(t, "timerlat");
}

int session_switch_latency_tracer(struct session *s, const char *tracer, char *err,
				  size_t errlen)
{
	int ret;

	if (!is_latency_tracer(tracer) || !is_latency_tracer(s->tracer)) {
		snprintf(err, errlen, "this run traces with %s: osnoise and timerlat switch "
			 "only between themselves (start ktop with -p timerlat or -p osnoise)",
			 s->tracer);
		return -EINVAL;
	}
	if (s->top || !s->inst) {
		snprintf(err, errlen, "%s runs at the top level here: not switched live", s->tracer);
		return -EPERM;
	}
	if (!strcmp(tracer, s->tracer))
		return 0;
	ret = sess_write(s, "current_tracer", tracer);
	if (ret) {
		snprintf(err, errlen, "tracer '%s' refused in %s: %s%s", tracer, s->name,
			 strerror(-ret), ret == -EBUSY ?
			 " (its trace_pipe or trace_pipe_raw is open, or another instance runs "
			 "the other one)" : "");
		sess_write(s, "current_tracer", s->tracer);	/* as it was, if it went off */
		return ret;
	}
	snprintf(s->tracer, sizeof(s->tracer), "%s", tracer);
	return 0;
}

const char *session_name(const struct session *s)
{
	return s->name;
}

const char *session_stack_note(const struct session *s)
{
	return s->stack_note;
}

int session_stack_add(struct session *s, const struct stacktrig_req *req, unsigned int n,
		      char *note, size_t notelen, char *err, size_t errlen)
{
	int ret = s->trig ? stacktrig_add(s->trig, s->top, req, n, note, notelen, err, errlen) :
			    stacktrig_set(&s->trig, s->dir, s->top, req, n, note, notelen, err,
					  errlen);

	if (!ret && note[0] && !s->stack_note[0])
		snprintf(s->stack_note, sizeof(s->stack_note), "%s", note);
	return ret;
}

int session_ncpus(const struct session *s)
{
	return s->ncpus;
}
