// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * session_drive: the tracing session and consumer alone, without the TUI or
 * the batch printer, for the live tests of src/kernel/session.c and src/ingest/consumer.c.
 *
 *   session_drive [-e EVENT]... [-p TRACER] [-b KB] [-P PID] [-C CPUS]
 *                 [-d SECONDS] [-F] [-S] [-c] [-n]
 *
 * Probes, reaps stale sessions, opens a session, starts one consumer thread
 * per CPU, prints "ready NAME" on stdout, then waits for a terminating
 * signal (through session_signal_fd) or -d seconds, and prints per-CPU
 * figures and "events N lost M overrun O rate R/s". -F forces the top level,
 * -S crashes with SIGSEGV after the start (tests the fatal path), -c prints
 * the consumer's CPU time (user+sys of the whole process) at the end, -n
 * turns off the exclusion of ktop's own threads. The last line also gives
 * "self N": events whose pid is one of this process's threads (but not
 * their sched_switch events, which the kernel keeps for the other side), and
 * "pids N": events of the -P pids.
 * Exit status: 0, 2 when session_open failed (its message on stderr), 128+sig
 * on a signal, as a shell would show.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "ingest/consumer.h"
#include "store/event.h"
#include "ingest/decode.h"
#include "kernel/features.h"
#include "kernel/session.h"
#include "store/store.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Events of this process's threads (*self) and of the -P pids (*pids). */
static long self_tids[64];
static int nself_tids;

/* Remember this process's threads while the consumer threads still run. */
static void note_tids(void)
{
	struct dirent *de;
	DIR *d;

	d = opendir("/proc/self/task");
	while (d && (de = readdir(d)) && nself_tids < 64)
		if (atol(de->d_name) > 0)
			self_tids[nself_tids++] = atol(de->d_name);
	if (d)
		closedir(d);
}

static void count_pids(struct store *st, const struct session_opts *so, uint64_t *self,
		       uint64_t *pids)
{
	struct store_filter f = { .t0 = 0, .t1 = UINT64_MAX, .pid = -1, .cpu = -1 };
	static struct store_count cnt[65536];
	size_t n;

	for (int j = 0; j < nself_tids; j++) {
		struct store_filter ft = f;
		size_t nt;

		/*
		 * Not its sched_switch events: the kernel keeps a switch whose
		 * other side is traced (ktop's thread leaving the CPU to another
		 * task), so their number grows with the machine's load.
		 */
		ft.pid = (int32_t)self_tids[j];
		nt = store_count_by(st, STORE_KEY_TYPE, &ft, cnt, 65536);
		for (size_t i = 0; i < nt && i < 65536; i++)
			if (cnt[i].key != KTOP_T_SCHED_SWITCH)
				*self += cnt[i].count;
	}
	n = store_count_by(st, STORE_KEY_PID, &f, cnt, 65536);
	if (n > 65536)
		n = 65536;
	for (unsigned int j = 0; j < so->npids; j++)
		for (size_t i = 0; i < n; i++)
			if ((long)cnt[i].key == so->pids[j])
				*pids += cnt[i].count;
}

int main(int argc, char **argv)
{
	struct session_opts so = { .exclude_self = true };
	struct consumer_cpu_stats cs;
	struct decode_ctx *dc = NULL;
	struct consumer *cons = NULL;
	struct session *sess = NULL;
	struct store *st = NULL;
	struct features ft;
	uint64_t t0 = 0, t1 = 0, events = 0, lost = 0, overrun = 0, wakes = 0, self = 0, pids = 0;
	double duration = 0;
	bool crash = false, cpu_time = false;
	struct rusage ru;
	char err[512];
	int c, ret, sig = 0, wake_fd;

	while ((c = getopt(argc, argv, "e:p:b:P:C:d:FScn")) != -1) {
		switch (c) {
		case 'e': so.events[so.nevents++] = optarg; break;
		case 'p': so.tracer = optarg; break;
		case 'b': so.buffer_kb = strtoul(optarg, NULL, 10); break;
		case 'P': so.pids[so.npids++] = atoi(optarg); break;
		case 'C': so.cpus = optarg; break;
		case 'd': duration = atof(optarg); break;
		case 'F': so.force = true; break;
		case 'S': crash = true; break;
		case 'c': cpu_time = true; break;
		case 'n': so.exclude_self = false; break;
		default:
			fprintf(stderr, "usage: session_drive [-e EV]... [-p TRACER] [-b KB] "
				"[-P PID] [-C CPUS] [-d SEC] [-F] [-S] [-c]\n");
			return 2;
		}
		if (so.nevents == SESSION_MAX_LIST || so.npids == SESSION_MAX_LIST)
			return 2;
	}

	ret = session_signals_init();
	if (ret) {
		fprintf(stderr, "session_signals_init: %s\n", strerror(-ret));
		return 1;
	}
	features_probe(&ft);
	ret = session_reap_stale();
	if (ret)
		fprintf(stderr, "reaped %d stale session(s)\n", ret);
	ret = session_open(&sess, &so, &ft, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "session_drive: %s\n", err);
		return 2;
	}
	st = store_new(64ull << 20, session_ncpus(sess));
	dc = st ? decode_ctx_new(session_tep(sess), st, NULL) : NULL;
	wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!dc || wake_fd < 0) {
		fprintf(stderr, "session_drive: setup: %s\n", strerror(errno));
		ret = 1;
		goto out;
	}
	ret = consumer_start(&cons, sess, st, dc, wake_fd);
	if (ret) {
		fprintf(stderr, "session_drive: consumer_start: %s\n", strerror(-ret));
		ret = 1;
		goto out;
	}
	ret = session_start(sess);
	if (ret) {
		fprintf(stderr, "session_drive: session_start: %s\n", strerror(-ret));
		ret = 1;
		goto out;
	}
	printf("ready %s\n", session_name(sess));
	fflush(stdout);
	if (crash)
		raise(SIGSEGV);

	t0 = mono_ns();
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = session_signal_fd(), .events = POLLIN },
			{ .fd = wake_fd, .events = POLLIN },
		};
		int timeout = -1;

		if (duration > 0) {
			double left = duration - (mono_ns() - t0) / 1e9;

			if (left <= 0)
				break;
			timeout = (int)(left * 1000) + 1;
		}
		if (poll(pfd, 2, timeout) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents & POLLIN) {
			uint64_t v;

			if (read(wake_fd, &v, sizeof(v)) == sizeof(v))
				wakes += v;
		}
		sig = session_signal_pending();
		if (sig)
			break;
	}
	t1 = mono_ns();
	note_tids();
	session_stop(sess);
	/* let the threads drain and read their per_cpu stats once more */
	usleep(300 * 1000);
	for (int cpu = 0; cpu < session_ncpus(sess); cpu++) {
		consumer_get_stats(cons, cpu, &cs);
		printf("cpu%d events %llu pages %llu missed %llu overrun %llu dropped %llu\n", cpu,
		       (unsigned long long)cs.events, (unsigned long long)cs.pages,
		       (unsigned long long)cs.missed, (unsigned long long)cs.overrun,
		       (unsigned long long)cs.dropped);
		overrun += cs.overrun;
	}
	consumer_stop(cons);
	cons = NULL;
	ret = sig ? 128 + sig : 0;
out:
	if (cons)
		consumer_stop(cons);
	session_close(sess);
	if (st) {
		struct store_stats ss;

		store_get_stats(st, &ss);
		events = ss.appended;
		lost = ss.lost;
		count_pids(st, &so, &self, &pids);
	}
	if (cpu_time && !getrusage(RUSAGE_SELF, &ru))
		printf("cpu_ms %.1f\n", ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3 +
		       ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3);
	if (!ret || sig)
		printf("events %llu lost %llu overrun %llu self %llu pids %llu wakeups %llu "
		       "rate %.0f/s signal %d\n",
		       (unsigned long long)events, (unsigned long long)lost,
		       (unsigned long long)overrun, (unsigned long long)self,
		       (unsigned long long)pids,
		       (unsigned long long)wakes, events / ((t1 - t0) / 1e9 + 1e-9), sig);
	fflush(stdout);
	decode_ctx_free(dc);
	store_free(st);
	return ret;
}
