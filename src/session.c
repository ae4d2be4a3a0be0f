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
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
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

#include "debug.h"
#include "features.h"
#include "fixture.h"
#include "output.h"
#include "safefile.h"
#include "filter_cmdline.h"
#include "session.h"
#include "tracestate.h"

/*
 * Wake the readers when a tenth of the buffer is full; they also wake every
 * 100 ms. At 1 % a reader woke for every page and spliced one at a time:
 * under a one-byte dd at -b 256 the readers' CPU per event halved at 10 %
 * (85 -> 42 ns) and fewer events were lost in each of three runs (0.75 ->
 * 0.27 %, 18.9 -> 12.3 %, 15.9 -> 10.1 %, the last two on a busy host); at
 * 25 % the loss went up again in the quiet run (4.5 %).
 */
#define SESSION_BUFFER_PERCENT	"10"
#define SESSION_MAX_SYSTEMS	64
#define SESSION_MAX_FDS		1024
#define SESSION_MAX_OPEN	4

struct session {
	struct tracefs_instance	*inst;		/* NULL: top level */
	struct tep_handle	*tep;
	struct tracestate	*saved;		/* top level: the state before ktop */
	/* instance: the global files (osnoise/, tracing_thresh...) before ktop set them */
	struct tracestate	*global;
	bool			global_restored;
	char			global_path[PATH_MAX];	/* its copy, for a later ktop */
	bool			top;
	bool			restored;	/* top level already put back */
	bool			events_on;	/* an event was enabled: set_event to clear */
	int			ncpus;
	int			lock_fd;
	char			name[64];
	char			tracer[64];
	/* the tracer goes on at session_start(): see configure() */
	bool			tracer_pending;
	int			funcgraph_irqs, funcgraph_tail;
	char			dir[512];	/* tracefs directory of the session */
	char			tracefs[256];	/* tracefs mount point */
	/* prepared for the signal-handler path: no formatting there */
	char			p_tracing_on[600];
	char			p_set_event[600];
	char			state_path[PATH_MAX];
	char			ours_path[PATH_MAX];	/* the top level as ktop set it */
	char			lock_path[PATH_MAX];
	const char		*systems[SESSION_MAX_SYSTEMS + 1];
	int			nsystems;
	bool			all_systems;
	pid_t			owner;		/* a forked child must not undo it */
	struct stacktrig	*trig;		/* stack traces (--stack) */
	char			stack_note[512];
};

/* Sessions not yet closed; compared, never dereferenced, when checking a pointer. */
static struct session *session_open_list[SESSION_MAX_OPEN];
/* The session the fatal-signal and atexit paths restore. */
static struct session *volatile session_live;
static int session_emergency_done;

/* fds that keep the instance busy (trace_pipe_raw): closed before rmdir on emergency */
static volatile int session_fds[SESSION_MAX_FDS];
static int session_nfds;

const char *const session_osnoise_files[] = {
	"period_us", "runtime_us", "stop_tracing_us", "stop_tracing_total_us",
	"timerlat_period_us", "print_stack", "cpus", NULL
};

static void (*volatile session_emergency_hook)(void);
static bool ktop_alive(long pid);

static int sig_pipe[2] = { -1, -1 };
static char sig_altstack[64 * 1024] __attribute__((aligned(16)));
static volatile sig_atomic_t sig_pending;

/* ---- small file helpers ---------------------------------------------- */

/* Write @s to @path (truncating). No allocation. Return: 0 or -errno. */
static int sess_write_path(const char *path, const char *s)
{
	int fd, ret = 0;
	size_t len = strlen(s);

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (len && write(fd, s, len) < 0)
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

static int sess_write(struct session *s, const char *file, const char *str)
{
	char path[2048];

	snprintf(path, sizeof(path), "%s/%s", s->dir, file);
	return sess_write_path(path, str);
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

static int sess_read(const char *path, char *buf, size_t len)
{
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = read(fd, buf, len - 1);
	if (r < 0)
		r = -errno;
	close(fd);
	if (r < 0)
		return r;
	buf[r] = '\0';
	while (r && isspace((unsigned char)buf[r - 1]))
		buf[--r] = '\0';
	return 0;
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

static const char *run_dir(void)
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

/* ---- fds and emergency restore ---------------------------------------- */

/**
 * session_track_fd - tell the emergency path about an fd that keeps the
 * instance busy (a trace_pipe_raw), so it can close it before rmdir
 * @add: true to add, false to forget (before close())
 * Context: any thread.
 */
void session_track_fd(int fd, bool add)
{
	int i;

	if (fd < 0)
		return;
	if (!add) {
		for (i = 0; i < session_nfds; i++)
			if (session_fds[i] == fd)
				__atomic_store_n(&session_fds[i], -1, __ATOMIC_RELEASE);
		return;
	}
	for (i = 0; i < session_nfds; i++) {
		int exp = -1;

		if (__atomic_compare_exchange_n(&session_fds[i], &exp, fd, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return;
	}
	i = __atomic_fetch_add(&session_nfds, 1, __ATOMIC_ACQ_REL);
	if (i < SESSION_MAX_FDS)
		__atomic_store_n(&session_fds[i], fd, __ATOMIC_RELEASE);
	else
		__atomic_fetch_sub(&session_nfds, 1, __ATOMIC_ACQ_REL);
}

/*
 * Put the kernel back without allocating: for fatal signals and atexit.
 * Only open/write/close/rmdir/unlink on paths prepared by session_open().
 */
static void session_emergency(void)
{
	struct session *s = session_live;

	if (!s || s->owner != getpid() ||
	    __atomic_exchange_n(&session_emergency_done, 1, __ATOMIC_ACQ_REL))
		goto out_hook;
	sess_write_path(s->p_tracing_on, "0");
	if (s->top) {
		if (s->saved && !s->restored && !tracestate_restore_blind(s->saved)) {
			unlink(s->state_path);
			if (s->ours_path[0])
				unlink(s->ours_path);
		}
	} else {
		if (s->events_on)
			sess_write_path(s->p_set_event, "");
		for (int i = 0; i < session_nfds && i < SESSION_MAX_FDS; i++) {
			int fd = session_fds[i];

			if (fd >= 0)
				close(fd);
		}
		features_rmdir_instance(s->dir, 200);
		if (s->global && !s->global_restored && !tracestate_restore_blind(s->global))
			unlink(s->global_path);
	}
	if (s->lock_fd >= 0)
		unlink(s->lock_path);
	session_live = NULL;
out_hook:
	/* after the instance: what it had enabled can go now (probe events) */
	if (session_emergency_hook)
		session_emergency_hook();
}

static void session_atexit(void)
{
	session_emergency();
}

static void on_fatal(int sig)
{
	session_emergency();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_term(int sig)
{
	int saved = errno;

	/* A second ^C while the first is being handled: give up waiting. */
	if (sig_pending && (sig == SIGINT || sig == SIGQUIT)) {
		session_emergency();
		signal(sig, SIG_DFL);
		raise(sig);
	}
	if (!sig_pending)
		sig_pending = sig;
	if (sig_pipe[1] >= 0 && write(sig_pipe[1], "", 1) < 0) {
		/* pipe full: a wake-up is already pending */
	}
	errno = saved;
}

int session_signals_init(void)
{
	static const int term[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT };
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };
	static bool done;
	struct sigaction sa;
	stack_t ss;

	if (done)
		return 0;
	if (pipe2(sig_pipe, O_NONBLOCK | O_CLOEXEC))
		return -errno;

	/* A stack overflow must still reach the restore. */
	ss.ss_sp = sig_altstack;
	ss.ss_size = sizeof(sig_altstack);
	ss.ss_flags = 0;
	sigaltstack(&ss, NULL);

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_term;
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < sizeof(term) / sizeof(term[0]); i++)
		if (sigaction(term[i], &sa, NULL))
			return -errno;

	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER | SA_ONSTACK;
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		if (sigaction(fatal[i], &sa, NULL))
			return -errno;

	atexit(session_atexit);
	/* a write to a reader that stopped reading must not outlast a stop request */
	output_set_stop_fd(sig_pipe[0]);
	done = true;
	return 0;
}

void session_set_emergency_hook(void (*fn)(void))
{
	session_emergency_hook = fn;
}

bool session_ktop_alive(long pid)
{
	return ktop_alive(pid);
}

int session_signal_fd(void)
{
	return sig_pipe[0];
}

int session_signal_pending(void)
{
	return sig_pending;
}

/* ---- liveness of other ktops ------------------------------------------ */

static int lock_acquire(struct session *s)
{
	if (!run_dir())
		return 0;	/* others know a live ktop by /proc/<pid>/comm: ktop_alive() */
	snprintf(s->lock_path, sizeof(s->lock_path), "%s/ktop-%d.lock", run_dir(), getpid());
	s->lock_fd = open(s->lock_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (s->lock_fd < 0)
		return -errno;
	if (flock(s->lock_fd, LOCK_EX | LOCK_NB)) {
		int ret = -errno;

		close(s->lock_fd);
		s->lock_fd = -1;
		return ret;
	}
	return 0;
}

static void lock_release(struct session *s)
{
	if (s->lock_fd < 0)
		return;
	unlink(s->lock_path);
	close(s->lock_fd);
	s->lock_fd = -1;
}

/*
 * Is the ktop with @pid alive? Its lock file says so when there is one (an
 * flock dies with its process); without one, /proc/<pid>/comm must be a ktop.
 */
static bool ktop_alive(long pid)
{
	char path[PATH_MAX], comm[64];
	bool alive;
	int fd;

	if (pid == getpid())
		return true;
	snprintf(path, sizeof(path), "/proc/%ld", pid);
	if (access(path, F_OK))
		return false;
	snprintf(path, sizeof(path), "%s/ktop-%ld.lock", run_dir() ? run_dir() : "", pid);
	fd = run_dir() ? open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
	if (fd >= 0) {
		alive = flock(fd, LOCK_EX | LOCK_NB) != 0;
		close(fd);
		return alive;
	}
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	if (sess_read(path, comm, sizeof(comm)))
		return false;
	return !strncmp(comm, "ktop", 4);
}

/* "ktop-123" or "ktop-probe-123" -> 123, else -1. */
static long instance_pid(const char *name)
{
	const char *p;
	char *end;
	long pid;

	if (strncmp(name, "ktop-", 5))
		return -1;
	p = name + 5;
	if (!strncmp(p, "probe-", 6))
		p += 6;
	if (!isdigit((unsigned char)*p))
		return -1;
	pid = strtol(p, &end, 10);
	return *end ? -1 : pid;
}

static const char *tracefs_dir(void)
{
	const char *d = tracefs_tracing_dir();

	return d ? d : "/sys/kernel/tracing";
}

/*
 * Load the state file @name of the run directory for restoring: a regular
 * file of root's (or the euid's), every entry a file under the tracefs mount
 * ktop uses. Anything else did not come from a ktop: it is refused, named on
 * stderr and left in place.
 */
static struct tracestate *reap_load(const char *name)
{
	char path[PATH_MAX], why[512] = "not a regular file of root's";
	struct tracestate *ts = NULL;
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", run_dir(), name);
	if (lstat(path, &st))
		return NULL;
	if (S_ISREG(st.st_mode) && (!st.st_uid || st.st_uid == geteuid())) {
		ts = tracestate_load(path);
		if (!ts || !tracestate_check_dir(ts, tracefs_dir(), why, sizeof(why)))
			return ts;
	}
	fprintf(stderr, "ktop: %s: %s: not restored (left in place; remove it)\n", path, why);
	tracestate_free(ts);
	return NULL;
}

/*
 * Does the top level still look as the dead ktop @pid set it up? If another
 * tool took it over since, putting back the old state would wreck its work.
 * tracing_on and the instance list do not count: ktop started tracing after
 * saving its setup, and instances come and go; nor do the notrace pid lists,
 * which grow with ktop's own threads. The per-event files are not compared
 * (set_event, which says which events are on, is): reading every event's
 * files twice more took seconds of each start under emulation, and a tool
 * that took over would have changed more than an event's filter.
 */
static bool top_level_still_ours(long pid)
{
	static const char *const ignore[] = {
		"tracing_on", "instances",
		/* event-fork adds ktop's later threads to these */
		"set_event_notrace_pid", "set_ftrace_notrace_pid", NULL
	};
	struct tracestate *ours, *now;
	char name[64];
	bool same;

	snprintf(name, sizeof(name), "toplevel-%ld.ours", pid);
	ours = reap_load(name);
	if (!ours)
		return true;	/* killed before its setup was saved: restore */
	now = tracestate_capture(tracestate_dir(ours), TRACESTATE_NO_INSTANCES |
				 TRACESTATE_NO_EVENTS);
	same = now && !tracestate_diff(ours, now, NULL, ignore);
	tracestate_free(ours);
	tracestate_free(now);
	return same;
}

/* Put back the top level a dead ktop @pid had saved. Return: 1 when restored. */
static int reap_top_level(long pid)
{
	char state[PATH_MAX], ours[PATH_MAX], name[64];
	struct tracestate *ts;
	int ret = 0;

	snprintf(state, sizeof(state), "%s/toplevel-%ld.state", run_dir(), pid);
	snprintf(ours, sizeof(ours), "%s/toplevel-%ld.ours", run_dir(), pid);
	snprintf(name, sizeof(name), "toplevel-%ld.state", pid);
	ts = reap_load(name);
	if (!ts)
		return 0;
	if (!top_level_still_ours(pid)) {
		fprintf(stderr, "ktop: the top level was changed after ktop %ld died; not "
			"restoring the state it had saved\n", pid);
		unlink(state);
		unlink(ours);
	} else if (!tracestate_restore(ts)) {
		unlink(state);
		unlink(ours);
		ret = 1;
	}
	tracestate_free(ts);
	return ret;
}

/*
 * Put back the global files (osnoise/, tracing_thresh, ...) a dead ktop had
 * changed while it traced in an instance. Its instance is gone by now.
 * Return: 1 when restored.
 */
static int reap_global(const char *name)
{
	struct tracestate *ts = reap_load(name);
	char path[PATH_MAX];
	int ret = 0;

	snprintf(path, sizeof(path), "%s/%s", run_dir(), name);
	if (ts && !tracestate_restore(ts)) {
		unlink(path);
		ret = 1;
	}
	tracestate_free(ts);
	return ret;
}

int session_reap_stale(void)
{
	char path[PATH_MAX];
	struct dirent *de;
	int cleaned = 0;
	long pid;
	DIR *d;

	snprintf(path, sizeof(path), "%s/instances", tracefs_dir());
	d = opendir(path);
	while (d && (de = readdir(d))) {
		pid = instance_pid(de->d_name);
		if (pid <= 0 || ktop_alive(pid))
			continue;
		/* a probe takes no lock and lasts 0.1 s: any live pid keeps it */
		snprintf(path, sizeof(path), "/proc/%ld", pid);
		if (!strncmp(de->d_name, "ktop-probe-", 11) && !access(path, F_OK))
			continue;
		snprintf(path, sizeof(path), "%s/instances/%s/tracing_on", tracefs_dir(),
			 de->d_name);
		sess_write_path(path, "0");
		snprintf(path, sizeof(path), "%s/instances/%s", tracefs_dir(), de->d_name);
		if (!rmdir(path))
			cleaned++;
	}
	if (d)
		closedir(d);

	d = run_dir() ? opendir(run_dir()) : NULL;
	while (d && (de = readdir(d))) {
		char *end;

		if (!strncmp(de->d_name, "toplevel-", 9)) {
			pid = strtol(de->d_name + 9, &end, 10);
			if (ktop_alive(pid))
				continue;
			if (!strcmp(end, ".state")) {
				cleaned += reap_top_level(pid);
			} else if (!strcmp(end, ".ours")) {
				/* an orphan: its .state is gone */
				snprintf(path, sizeof(path), "%s/toplevel-%ld.state", run_dir(),
					 pid);
				if (access(path, F_OK)) {
					snprintf(path, sizeof(path), "%s/%s", run_dir(),
						 de->d_name);
					unlink(path);
				}
			}
		} else if (!strncmp(de->d_name, "global-", 7)) {
			pid = strtol(de->d_name + 7, &end, 10);
			if (strcmp(end, ".state") || ktop_alive(pid))
				continue;
			cleaned += reap_global(de->d_name);
		} else if (!strncmp(de->d_name, "ktop-", 5)) {
			pid = strtol(de->d_name + 5, &end, 10);
			if (strcmp(end, ".lock") || ktop_alive(pid))
				continue;
			snprintf(path, sizeof(path), "%s/%s", run_dir(), de->d_name);
			unlink(path);
		}
	}
	if (d)
		closedir(d);
	return cleaned;
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
static int enable_events(struct session *s, const char *spec, char *err, size_t errlen)
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

static bool tracer_listed(const char *tracefs, const char *name, char *list, size_t len)
{
	char path[512], *tok, *save, buf[1024];

	snprintf(path, sizeof(path), "%s/available_tracers", tracefs);
	if (sess_read(path, list, len))
		list[0] = '\0';
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		if (!strcmp(tok, name))
			return true;
	return false;
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
		if (!f && !tracer_listed(ft->tracefs, tracer, list, sizeof(list))) {
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
	if (getenv("KTOP_TEST_TOP_LEVEL"))
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

static int open_top(struct session *s, const struct session_opts *o, char *err, size_t errlen)
{
	const char *cur, *ev;
	int ret;

	snprintf(s->name, sizeof(s->name), "(top level)");
	snprintf(s->dir, sizeof(s->dir), "%s", s->tracefs);
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
	if (!run_dir()) {
		snprintf(err, errlen, "no safe directory to save the top-level state in (needed "
			 "to restore it if ktop is killed): %s", run_dir_why);
		return -EPERM;
	}
	snprintf(s->state_path, sizeof(s->state_path), "%s/toplevel-%d.state", run_dir(),
		 getpid());
	ret = tracestate_save(s->saved, s->state_path);
	if (ret) {
		s->state_path[0] = '\0';
		snprintf(err, errlen, "cannot save the top-level state to %s/: %s "
			 "(needed to restore it if ktop is killed)", run_dir(), strerror(-ret));
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
	if (!run_dir()) {
		snprintf(err, errlen, "no safe directory to save the global tracing settings in "
			 "(needed to restore them if ktop is killed): %s", run_dir_why);
		return -EPERM;
	}
	s->global = tracestate_capture_files(s->tracefs, files);
	if (!s->global) {
		ret = errno ? -errno : -ENOMEM;
		snprintf(err, errlen, "cannot read the global tracing settings: %s",
			 strerror(-ret));
		return ret;
	}
	snprintf(s->global_path, sizeof(s->global_path), "%s/global-%d.state", run_dir(),
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

static void restore_global(struct session *s)
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
	ret = sess_write_path(path, value);
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
static int check_settings(const struct session_opts *o, const char *tracer, char *err,
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
static int configure_settings(struct session *s, const struct session_opts *o,
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
static int configure_options(struct session *s, char *err, size_t errlen)
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
static void enable_tracer_events(struct session *s, const char *tracer)
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
		enable_events(s, *ev, err, sizeof(err));
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
		ret = enable_events(s, o->events[i], err, errlen);
		if (ret < 0)
			return ret;
	}

	if (tracer) {
		ret = configure_settings(s, o, tracer, err, errlen);
		if (ret)
			return ret;
		/* -l, -n, -g in the filter prompt's language, resolved as the prompt does */
		ret = filter_cmdline_apply(o, s->dir, s->tracefs, err, errlen);
		if (ret)
			return ret;
		if (!o->nevents && !o->no_events)
			enable_tracer_events(s, tracer);
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
 * Save the top level as ktop set it up, for top_level_still_ours() of a
 * later ktop, should this one be killed. Best effort: without it, the
 * saved state is restored unconditionally.
 */
static void save_ours(struct session *s)
{
	struct tracestate *ours = tracestate_capture(s->dir, TRACESTATE_NO_INSTANCES |
						     TRACESTATE_NO_EVENTS);

	snprintf(s->ours_path, sizeof(s->ours_path), "%s/toplevel-%d.ours",
		 run_dir() ? run_dir() : "", getpid());
	if (!ours || !run_dir() || tracestate_save(ours, s->ours_path))
		s->ours_path[0] = '\0';
	tracestate_free(ours);
}

/* Parse every events/<sys>/<event>/format of one system into tep. */
static void load_system_formats(struct session *s, const char *sys)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/events/%s", s->tracefs, sys);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t len;
		char *buf;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", s->tracefs, sys, de->d_name);
		buf = fixture_read_file(path, &len);
		if (!buf)
			continue;	/* "enable", "filter": not events */
		tep_parse_event(s->tep, buf, len, sys);
		free(buf);
	}
	closedir(d);
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
	buf = fixture_read_file(path, &len);
	if (!buf) {
		ret = errno ? -errno : -ENOENT;
		goto out_err;
	}
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
	buf = fixture_read_file(path, &len);
	if (buf) {
		tep_parse_printk_formats(s->tep, buf);
		free(buf);
	}
	snprintf(path, sizeof(path), "%s/saved_cmdlines", s->tracefs);
	buf = fixture_read_file(path, &len);
	if (buf) {
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
	ret = configure_options(s, err, errlen);
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
	restore_global(s);
}

static void session_free(struct session *s)
{
	for (int i = 0; i < SESSION_MAX_OPEN; i++)
		if (session_open_list[i] == s)
			session_open_list[i] = NULL;
	if (session_live == s)
		session_live = NULL;
	lock_release(s);
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
		ret = check_settings(o, tracer, err, errlen);
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
	ret = lock_acquire(s);
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
	if (s->top && !s->ours_path[0])
		save_ours(s);
	return sess_write(s, "tracing_on", "1");
}

int session_stop(struct session *s)
{
	return sess_write(s, "tracing_on", "0");
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
