// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What keeps the kernel as ktop found it when ktop does not end well (see
 * session.c): the terminating and fatal signals, the emergency restore
 * that runs without allocating, the flock()ed lock file that tells a live
 * ktop from a reused pid, and the reaping of what a killed ktop left
 * (its instance, a saved top level, global files).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracefs.h>

#include "features.h"
#include "lib/file.h"
#include "lib/output.h"
#include "session-local.h"
#include "tracestate.h"

#define SESSION_MAX_FDS		1024

struct session *volatile session_live;
static int session_emergency_done;

/* fds that keep the instance busy (trace_pipe_raw): closed before rmdir on emergency */
static volatile int session_fds[SESSION_MAX_FDS];
static int session_nfds;

#define SESSION_MAX_HOOKS	4
static void (*volatile session_emergency_hook[SESSION_MAX_HOOKS])(void);
static bool ktop_alive(long pid);

static int sig_pipe[2] = { -1, -1 };
static char sig_altstack[64 * 1024] __attribute__((aligned(16)));
static volatile sig_atomic_t sig_pending;

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
	file_write_str(s->p_tracing_on, "0", O_TRUNC);
	if (s->top) {
		if (s->top_taken && !s->restored)
			file_write_str(s->p_trace, "", O_TRUNC);	/* this session's unread events */
		if (s->saved && !s->restored && !tracestate_restore_blind(s->saved)) {
			unlink(s->state_path);
			if (s->ours_path[0])
				unlink(s->ours_path);
		}
	} else {
		if (s->events_on)
			file_write_str(s->p_set_event, "", O_TRUNC);
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
	for (int i = 0; i < SESSION_MAX_HOOKS; i++)
		if (session_emergency_hook[i])
			session_emergency_hook[i]();
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
	for (int i = 0; i < SESSION_MAX_HOOKS; i++) {
		if (session_emergency_hook[i] == fn)
			return;
		if (!session_emergency_hook[i]) {
			session_emergency_hook[i] = fn;
			return;
		}
	}
}

bool session_ktop_alive(long pid)
{
	return ktop_alive(pid);
}

const char *session_run_dir(void)
{
	return sess_run_dir();
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

int sess_lock_acquire(struct session *s)
{
	if (!sess_run_dir())
		return 0;	/* others know a live ktop by /proc/<pid>/comm: ktop_alive() */
	snprintf(s->lock_path, sizeof(s->lock_path), "%s/ktop-%d.lock", sess_run_dir(), getpid());
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

void sess_lock_release(struct session *s)
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
	snprintf(path, sizeof(path), "%s/ktop-%ld.lock", sess_run_dir() ? sess_run_dir() : "", pid);
	fd = sess_run_dir() ? open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
	if (fd >= 0) {
		alive = flock(fd, LOCK_EX | LOCK_NB) != 0;
		close(fd);
		return alive;
	}
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	if (file_read_value(path, comm, sizeof(comm)))
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

	snprintf(path, sizeof(path), "%s/%s", sess_run_dir(), name);
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
bool sess_top_level_still_ours(long pid)
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

/*
 * sess_top_level_entries - events held in the top level's ring buffer
 * @tracefs: the tracefs mount
 * @cpus: set to the number of CPUs holding some (may be NULL)
 *
 * Sums "entries:" of per_cpu/cpuN/stats: what is in the buffer now, whoever
 * wrote it. Reading stats neither consumes nor pauses the buffer (reading
 * "trace" would pause it). Return: the count, 0 when none or unreadable.
 */
uint64_t sess_top_level_entries(const char *tracefs, int *cpus)
{
	char path[PATH_MAX], buf[512];
	uint64_t sum = 0;
	int n = 0;

	for (int cpu = 0; cpu < 4096; cpu++) {
		uint64_t v;
		int ret;

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", tracefs, cpu);
		ret = file_read_value(path, buf, sizeof(buf));
		if (ret == -ENOENT)
			break;		/* past the last CPU */
		if (ret < 0)
			continue;
		if (!file_text_u64(buf, "entries", &v) && v) {
			sum += v;
			n++;
		}
	}
	if (cpus)
		*cpus = n;
	return sum;
}

/* Put back the top level a dead ktop @pid had saved. Return: 1 when restored. */
static int reap_top_level(long pid)
{
	char state[PATH_MAX], ours[PATH_MAX], name[64];
	struct tracestate *ts;
	int ret = 0;

	snprintf(state, sizeof(state), "%s/toplevel-%ld.state", sess_run_dir(), pid);
	snprintf(ours, sizeof(ours), "%s/toplevel-%ld.ours", sess_run_dir(), pid);
	snprintf(name, sizeof(name), "toplevel-%ld.state", pid);
	ts = reap_load(name);
	if (!ts)
		return 0;
	if (!sess_top_level_still_ours(pid)) {
		fprintf(stderr, "ktop: the top level was changed after ktop %ld died; not "
			"restoring the state it had saved\n", pid);
		unlink(state);
		unlink(ours);
	} else {
		char path[PATH_MAX];

		/* the dead session's unread events are ktop's: cleared, as a clean exit does */
		snprintf(path, sizeof(path), "%s/tracing_on", tracestate_dir(ts));
		file_write_str(path, "0", O_TRUNC);
		snprintf(path, sizeof(path), "%s/trace", tracestate_dir(ts));
		file_write_str(path, "", O_TRUNC);
		if (!tracestate_restore(ts)) {
			unlink(state);
			unlink(ours);
			ret = 1;
		}
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

	snprintf(path, sizeof(path), "%s/%s", sess_run_dir(), name);
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
		file_write_str(path, "0", O_TRUNC);
		snprintf(path, sizeof(path), "%s/instances/%s", tracefs_dir(), de->d_name);
		if (!rmdir(path))
			cleaned++;
	}
	if (d)
		closedir(d);

	d = sess_run_dir() ? opendir(sess_run_dir()) : NULL;
	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char *end;

		/* a save cut by a SIGKILL before its rename: toplevel-PID.ours.tmp, ... */
		if (len > 4 && !strcmp(de->d_name + len - 4, ".tmp") &&
		    (!strncmp(de->d_name, "toplevel-", 9) || !strncmp(de->d_name, "global-", 7))) {
			pid = strtol(de->d_name + (de->d_name[0] == 't' ? 9 : 7), &end, 10);
			if (pid > 0 && *end == '.' && !ktop_alive(pid)) {
				snprintf(path, sizeof(path), "%s/%s", sess_run_dir(), de->d_name);
				unlink(path);
			}
			continue;
		}
		if (!strncmp(de->d_name, "toplevel-", 9)) {
			pid = strtol(de->d_name + 9, &end, 10);
			if (ktop_alive(pid))
				continue;
			if (!strcmp(end, ".state")) {
				cleaned += reap_top_level(pid);
			} else if (!strcmp(end, ".ours")) {
				/* an orphan: its .state is gone */
				snprintf(path, sizeof(path), "%s/toplevel-%ld.state", sess_run_dir(),
					 pid);
				if (access(path, F_OK)) {
					snprintf(path, sizeof(path), "%s/%s", sess_run_dir(),
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
			snprintf(path, sizeof(path), "%s/%s", sess_run_dir(), de->d_name);
			unlink(path);
		}
	}
	if (d)
		closedir(d);
	return cleaned;
}
