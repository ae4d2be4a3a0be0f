// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bpf_drive: run ktop's BPF statistics (src/bpfstats/bpfstats.c) without the TUI, for
 * the live tests and the overhead benchmark.
 *
 *   bpf_drive [-i SECONDS] [-t SECONDS] [-T TID,TID...] [-o US] [-S] [-I] [-r] [-q] [-p] [-A]
 *
 * Prints "ready MODE" once the programs are attached, then polls until
 * SIGINT/SIGTERM/SIGHUP or -t, then stops the poller, polls a last time and
 * prints a summary (one fact per line, "key value..."), and frees everything.
 *   -i poll interval   -t duration   -T tids to report   -o outlier threshold (us, fractions allowed: 0.001 is 1 ns)
 *   -S no syscall programs   -I no irq programs   -r raw_tp programs   -q less output
 *   -p also print the batch block (bpfstats_print)   -A print every outlier held
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include "bpfstats/bpfstats.h"

#define MAX_TIDS 64

static void print_hist(const char *title, const struct bpfstats_hist *h)
{
	unsigned int k, last = 0;

	printf("hist %s count %" PRIu64 " avg_ns %" PRIu64 " p50_ns %" PRIu64
	       " p99_ns %" PRIu64 " max_ns %" PRIu64 "\n", title, h->count,
	       h->count ? h->sum_ns / h->count : 0, bpfstats_hist_quantile(h, 0.5),
	       bpfstats_hist_quantile(h, 0.99), h->max_ns);
	for (k = 0; k < BPFSTATS_SLOTS; k++)
		if (h->slot[k])
			last = k;
	for (k = 0; h->count && k <= last; k++)
		printf("slot %s %llu..%llu ns %" PRIu64 "\n", title,
		       k ? 1ull << k : 0ull, (1ull << (k + 1)) - 1, h->slot[k]);
}

static void summary(struct bpfstats *bs, const uint32_t *tids, size_t ntids, bool quiet)
{
	struct bpfstats_outlier ol[10];
	struct bpfstats_syscall sc[10];
	struct bpfstats_status st;
	struct bpfstats_task tk[10];
	struct bpfstats_irq iq[10];
	struct bpfstats_hist h;
	struct bpfstats_cpu c;
	size_t i, n;
	int cpu;

	bpfstats_get_status(bs, &st);
	printf("status mode %s ncpus %u ticks %" PRIu64 " poll_us %.1f outliers %" PRIu64
	       " dropped %" PRIu64 " tasks %" PRIu64 " untracked %" PRIu64 "\n", st.mode,
	       st.ncpus, st.ticks, (double)st.poll_ns / 1e3, st.outliers, st.outliers_dropped,
	       st.tasks, st.tasks_untracked);
	for (cpu = -1; cpu < (int)st.ncpus; cpu++) {
		bpfstats_cpu_totals(bs, cpu, &c);
		printf("cpu %d ctxsw %" PRIu64 " runq_n %" PRIu64 " hardirq_ns %" PRIu64
		       " hardirq_n %" PRIu64 " softirq_ns %" PRIu64 " softirq_n %" PRIu64 "\n",
		       cpu, c.ctxsw, c.runq_n, c.hardirq_ns, c.hardirq_n, c.softirq_ns,
		       c.softirq_n);
	}
	for (i = 0; i < ntids; i++) {
		struct bpfstats_task t;

		if (bpfstats_task(bs, tids[i], &t)) {
			printf("task %u missing\n", tids[i]);
			continue;
		}
		printf("task %u tgid %u comm %s offcpu_n %" PRIu64 " offcpu_ns %" PRIu64
		       " runq_n %" PRIu64 " runq_ns %" PRIu64 " runq_max_ns %" PRIu64 "\n",
		       t.tid, t.tgid, t.comm, t.offcpu_n, t.offcpu_ns, t.runq_n, t.runq_ns,
		       t.runq_max_ns);
	}
	bpfstats_runq_hist(bs, -1, 0, &h);
	print_hist("runq", &h);
	if (quiet)
		return;
	n = bpfstats_top_tasks(bs, BPFSTATS_BY_RUNQ, 0, tk, 10);
	for (i = 0; i < n && i < 10; i++)
		printf("top_runq %u %s runq_ns %" PRIu64 " runq_n %" PRIu64 " max_ns %" PRIu64 "\n",
		       tk[i].tid, tk[i].comm, tk[i].runq_ns, tk[i].runq_n, tk[i].runq_max_ns);
	n = bpfstats_top_tasks(bs, BPFSTATS_BY_OFFCPU, 0, tk, 10);
	for (i = 0; i < n && i < 10; i++)
		printf("top_offcpu %u %s offcpu_ns %" PRIu64 " offcpu_n %" PRIu64 "\n",
		       tk[i].tid, tk[i].comm, tk[i].offcpu_ns, tk[i].offcpu_n);
	n = bpfstats_syscalls(bs, -1, 0, sc, 10);
	for (i = 0; i < n && i < 10; i++)
		printf("syscall %u %s count %" PRIu64 " total_ns %" PRIu64 " p99_ns %" PRIu64 "\n",
		       sc[i].id, sc[i].name, sc[i].h.count, sc[i].h.sum_ns,
		       bpfstats_hist_quantile(&sc[i].h, 0.99));
	n = bpfstats_irqs(bs, -1, 0, iq, 10);
	for (i = 0; i < n && i < 10; i++)
		printf("%s %u %s ns %" PRIu64 " count %" PRIu64 "\n",
		       iq[i].soft ? "softirq" : "irq", iq[i].vec, iq[i].name, iq[i].ns,
		       iq[i].count);
	n = bpfstats_outliers(bs, st.outliers > 10 ? st.outliers - 10 : 0, ol, 10);
	for (i = 0; i < n; i++)
		printf("outlier %" PRIu64 " ts %" PRIu64 " cpu %u pid %u %s latency_ns %" PRIu64
		       " prev %u %s\n", ol[i].seq, ol[i].ts, ol[i].cpu, ol[i].pid, ol[i].comm,
		       ol[i].latency_ns, ol[i].prev_pid, ol[i].prev_comm);
	for (i = 0; i < BPFSTATS_METRIC_NR; i++) {
		double v[8];

		n = bpfstats_series(bs, (enum bpfstats_metric)i, -1, v, NULL, 8);
		printf("series %s:", bpfstats_metric_name((enum bpfstats_metric)i));
		for (size_t j = 0; j < n; j++)
			printf(" %.1f", v[j]);
		printf("\n");
	}
}

/* Every outlier held: "outlier SEQ ts TS cpu CPU pid PID COMM latency_ns NS" */
static void print_outliers(struct bpfstats *bs)
{
	struct bpfstats_outlier ol[64];
	uint64_t seq = 0;
	size_t n, i;

	while ((n = bpfstats_outliers(bs, seq, ol, 64))) {
		for (i = 0; i < n; i++)
			printf("outlier %" PRIu64 " ts %" PRIu64 " cpu %u pid %u %s latency_ns %"
			       PRIu64 "\n", ol[i].seq, ol[i].ts, ol[i].cpu, ol[i].pid, ol[i].comm,
			       ol[i].latency_ns);
		seq = ol[n - 1].seq;
	}
}

/* What a pane does on every wake: query everything (and exercise the locking). */
static void query_all(struct bpfstats *bs)
{
	static struct bpfstats_syscall sc[16];
	static struct bpfstats_outlier ol[16];
	static struct bpfstats_task tk[16];
	static struct bpfstats_irq iq[16];
	static uint64_t seen;
	struct bpfstats_status st;
	struct bpfstats_hist h;
	uint64_t times[64];
	double v[64];
	size_t n;
	int cpu;

	bpfstats_get_status(bs, &st);
	for (cpu = -1; cpu < (int)st.ncpus; cpu++) {
		bpfstats_runq_hist(bs, cpu, 8, &h);
		bpfstats_series(bs, BPFSTATS_CTXSW, cpu, v, times, 64);
	}
	bpfstats_top_tasks(bs, BPFSTATS_BY_OFFCPU, 1, tk, 16);
	bpfstats_top_tasks(bs, BPFSTATS_BY_RUNQ_MAX, 0, tk, 16);
	bpfstats_syscalls(bs, -1, 1, sc, 16);
	bpfstats_irqs(bs, 0, 1, iq, 16);
	while ((n = bpfstats_outliers(bs, seen, ol, 16)))
		seen = ol[n - 1].seq;
}

int main(int argc, char **argv)
{
	struct bpfstats_opts o = { .wake_fd = -1 };
	uint32_t tids[MAX_TIDS];
	struct pollfd pfd[2];
	size_t ntids = 0;
	double duration = 0;
	struct bpfstats *bs;
	struct timespec t0, t;
	char why[512], *p;
	bool quiet = false, print_block = false, all_outliers = false;
	sigset_t sigs;
	uint64_t v;
	int opt, err, timeout;

	while ((opt = getopt(argc, argv, "i:t:T:o:SIrqpA")) != -1) {
		switch (opt) {
		case 'i':
			o.interval = atof(optarg);
			break;
		case 't':
			duration = atof(optarg);
			break;
		case 'T':
			for (p = optarg; *p && ntids < MAX_TIDS; ) {
				tids[ntids++] = (uint32_t)strtoul(p, &p, 10);
				if (*p == ',')
					p++;
				else
					break;
			}
			break;
		case 'o':
			o.outlier_ns = (uint64_t)(strtod(optarg, NULL) * 1000.0 + 0.5);
			break;
		case 'S':
			o.no_syscalls = true;
			break;
		case 'I':
			o.no_irqs = true;
			break;
		case 'r':
			o.force_raw_tp = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'p':
			print_block = true;
			break;
		case 'A':
			all_outliers = true;
			break;
		default:
			fprintf(stderr, "usage: bpf_drive [-i S] [-t S] [-T TIDS] [-o US] "
				"[-S] [-I] [-r] [-q] [-p] [-A]\n");
			return 2;
		}
	}
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	pfd[0].fd = signalfd(-1, &sigs, SFD_CLOEXEC);
	pfd[0].events = POLLIN;
	o.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	pfd[1].fd = o.wake_fd;
	pfd[1].events = POLLIN;

	err = bpfstats_new(&bs, &o, NULL, why, sizeof(why));
	if (err) {
		printf("unavailable %s\n", why);
		return 3;
	}
	err = bpfstats_start(bs);
	if (err) {
		printf("error starting poller: %s\n", strerror(-err));
		bpfstats_free(bs);
		return 1;
	}
	{
		struct bpfstats_status st;

		bpfstats_get_status(bs, &st);
		printf("ready %s\n", st.mode);
		fflush(stdout);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		timeout = -1;
		if (duration > 0) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			double left = duration - ((double)(t.tv_sec - t0.tv_sec) +
						  (double)(t.tv_nsec - t0.tv_nsec) / 1e9);
			if (left <= 0)
				break;
			timeout = (int)(left * 1000) + 1;
		}
		if (poll(pfd, 2, timeout) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(pfd[0].fd, &si, sizeof(si)) == sizeof(si))
				printf("signal %u\n", si.ssi_signo);
			break;
		}
		if (pfd[1].revents & POLLIN) {
			if (read(pfd[1].fd, &v, sizeof(v)) < 0)
				break;
			query_all(bs);
		}
	}
	bpfstats_stop(bs);
	bpfstats_poll(bs);
	summary(bs, tids, ntids, quiet);
	if (print_block)
		bpfstats_print(bs, stdout, 0, 5, 0);
	if (all_outliers)
		print_outliers(bs);
	bpfstats_free(bs);
	printf("freed\n");
	return 0;
}
