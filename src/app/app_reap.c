// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a killed ktop leaves in the kernel (its tracefs instance tracing on,
 * its saved top-level state, its probes, its hist triggers and synthetic
 * events) is removed by the next ktop that starts; a reaper removes it at
 * once, for a ktop that may be killed by someone else (pmcd's SIGKILL of an
 * agent that takes longer than about half a second to stop).
 *
 * The reaper is a child forked before any thread or tracing starts. It holds
 * the read end of a pipe whose write end only the ktop holds: when the ktop
 * ends, however it ends, the read returns. A ktop that put everything back
 * says so first (one byte); otherwise the reaper removes the leftovers of
 * every dead ktop, as a live start does, and says so on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "agg/agg.h"
#include "kernel/session.h"
#include "probe/probe.h"
#include "app.h"

int app_reap_stale(void)
{
	int n = session_reap_stale();

	/* after the instances, which may have had them enabled */
	n += probe_reap_stale(NULL, session_ktop_alive);
	n += agg_reap_stale(NULL, session_ktop_alive);
	return n;
}

static int reaper_fd = -1;

/* The child: wait for the ktop's end; clean up after it when it did not. */
static void reaper_run(int rd, pid_t ktop)
{
	char c;
	ssize_t r;
	int n;

	setsid();
	signal(SIGHUP, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_NAME, "ktop-reaper", 0, 0, 0);
	do
		r = read(rd, &c, 1);
	while (r < 0 && errno == EINTR);
	if (r == 1)
		_exit(0);	/* the ktop put everything back */
	/* EOF: the ktop is gone (its last fd closed when it died) */
	n = app_reap_stale();
	fprintf(stderr, "ktop: reaper: ktop %ld ended without putting the kernel back; "
		"removed %d leftover%s (instance, saved state, probes, hist triggers)\n",
		(long)ktop, n, n == 1 ? "" : "s");
	_exit(0);
}

int app_reaper_start(void)
{
	int p[2];
	pid_t pid, self = getpid();

	if (reaper_fd >= 0)
		return 0;
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(p[0]);
		close(p[1]);
		return -e;
	}
	if (!pid) {
		/* keep stdio (the log) and the pipe's read end, nothing else of the ktop's */
		int rd = fcntl(p[0], F_DUPFD, 3);

		if (rd < 0 || dup2(rd, 3) < 0)
			_exit(1);
		if (close_range(4, ~0u, 0))
			for (int fd = 4; fd < 1024; fd++)
				close(fd);
		reaper_run(3, self);
	}
	close(p[0]);
	reaper_fd = p[1];
	return 0;
}

void app_reaper_done(void)
{
	char c = 'd';

	if (reaper_fd < 0)
		return;
	if (write(reaper_fd, &c, 1) != 1)
		fprintf(stderr, "ktop: telling the reaper: %s\n", strerror(errno));
	close(reaper_fd);
	reaper_fd = -1;
}
