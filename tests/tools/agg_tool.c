// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * agg_tool: the in-kernel aggregation (src/agg/agg.h) without the rest of
 * ktop, for the live and vm tests and the benchmarks.
 *
 *   agg_tool [-e auto|hist|bpf|both] [-t SECONDS] [-i POLL_MS] [-w FILE]
 *            [-l LATENCY]... [-H HIST]... [-s SQL]...
 *   agg_tool reap
 *
 * Makes every measure (all or nothing: the first refusal prints "agg_tool:
 * MESSAGE" and exits 2 having left nothing), prints "ready" (and creates
 * FILE, -w), then waits for -t or SIGINT/SIGTERM, polls a last time and
 * prints, per measure, one fact per line:
 *   measure I ENGINE TITLE
 *   why I TEXT
 *   total I count N sum_ns S min_ns M max_ns X p50_ns P p99_ns Q dropped D
 *         keys_dropped K starts S ends E
 *   bucket I B COUNT              (latency: values in (2^(B-1), 2^B] ns)
 *   row I count N sum S max M te T key KEY
 *   worst I lat_ns L te_ns T key KEY
 * then removes everything. "reap" removes what dead ktops left (agg_reap_stale).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "agg/agg.h"
#include "kernel/features.h"
#include "kernel/session.h"

static volatile sig_atomic_t stop;

static void on_sig(int sig)
{
	stop = sig;
}

static void print(struct agg_set *s)
{
	for (unsigned int i = 0; i < agg_set_count(s); i++) {
		struct agg_result r;

		memset(&r, 0, sizeof(r));
		if (agg_set_result(s, i, &r))
			continue;
		printf("measure %u %s %s\n", i, r.engine, r.title);
		printf("why %u %s\n", i, r.why);
		if (r.error[0])
			printf("error %u %s\n", i, r.error);
		printf("total %u count %" PRIu64 " sum_ns %" PRIu64 " min_ns %" PRIu64 " max_ns %"
		       PRIu64 " p50_ns %" PRIu64 " p99_ns %" PRIu64 " dropped %" PRIu64
		       " keys_dropped %" PRIu64 " starts %" PRIu64 " ends %" PRIu64 "\n", i,
		       r.count, r.sum_ns, r.min_ns, r.max_ns, agg_quantile(&r, 0.5),
		       agg_quantile(&r, 0.99), r.dropped, r.keys_dropped, r.starts, r.ends);
		for (int b = 0; b < AGG_BUCKETS; b++)
			if (r.bucket[b])
				printf("bucket %u %d %" PRIu64 "\n", i, b, r.bucket[b]);
		for (size_t k = 0; k < r.nrows; k++)
			printf("row %u count %" PRIu64 " sum %" PRIu64 " max %" PRIu64 " te %" PRIu64
			       " key %s\n", i, r.rows[k].count, r.rows[k].sum, r.rows[k].max,
			       r.rows[k].max_te, r.rows[k].key);
		if (r.kind == AGG_LATENCY && r.count)
			printf("worst %u lat_ns %" PRIu64 " te_ns %" PRIu64 " key %s\n", i,
			       r.worst.lat_ns, r.worst.te_ns, r.worst.key);
		agg_result_clear(&r);
	}
}

int main(int argc, char **argv)
{
	struct agg_opts o = { .clock = "mono" };
	const char *wfile = NULL, *tfs;
	struct agg_set *s = NULL;
	char err[2048], why[256];
	double secs = 0;
	int c, ret = 0;

	tfs = tracefs_tracing_dir();
	if (!tfs) {
		fprintf(stderr, "agg_tool: tracefs is not mounted\n");
		return 2;
	}
	if (argc == 2 && !strcmp(argv[1], "reap")) {
		printf("reaped %d\n", agg_reap_stale(tfs, session_ktop_alive));
		return 0;
	}
	o.tracefs = tfs;
	o.has_hist = features_has_hist(tfs, why, sizeof(why));
	o.has_bpf = true;
	/* the options first: the engine applies to every measure */
	while ((c = getopt(argc, argv, "e:t:i:w:l:H:s:")) != -1) {
		switch (c) {
		case 'e':
			o.engine = !strcmp(optarg, "hist") ? AGG_ENGINE_HIST :
				   !strcmp(optarg, "bpf") ? AGG_ENGINE_BPF :
				   !strcmp(optarg, "both") ? AGG_ENGINE_BOTH : AGG_ENGINE_AUTO;
			break;
		case 't':
			secs = atof(optarg);
			break;
		case 'i':
			o.poll_ms = atoi(optarg);
			break;
		case 'w':
			wfile = optarg;
			break;
		case 'l':
		case 'H':
		case 's':
			break;
		default:
			fprintf(stderr, "usage: agg_tool [-e ENGINE] [-t S] [-i MS] [-w FILE] "
				"[-l LATENCY] [-H HIST] [-s SQL] | reap\n");
			return 2;
		}
	}
	if (agg_set_new(&s, &o, err, sizeof(err))) {
		fprintf(stderr, "agg_tool: %s\n", err);
		return 2;
	}
	printf("engines %s\n", agg_set_engine_why(s));
	optind = 1;
	while ((c = getopt(argc, argv, "e:t:i:w:l:H:s:")) != -1) {
		if (c != 'l' && c != 'H' && c != 's')
			continue;
		ret = agg_set_add(s, c == 'H' ? AGG_HIST : AGG_LATENCY, c == 's', optarg, err,
				  sizeof(err));
		if (ret < 0) {
			fprintf(stderr, "agg_tool: %s '%s': %s\n", c == 'l' ? "--latency" :
				c == 'H' ? "--hist" : "--sql", optarg, err);
			agg_set_free(s);
			return 2;
		}
	}
	signal(SIGINT, on_sig);
	signal(SIGTERM, on_sig);
	agg_set_start(s);
	printf("ready\n");
	fflush(stdout);
	if (wfile)
		close(open(wfile, O_WRONLY | O_CREAT, 0600));
	if (secs > 0) {
		struct timespec ts = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };

		while (!stop && nanosleep(&ts, &ts))
			;
	} else {
		while (!stop)
			pause();
	}
	agg_set_poll(s);
	print(s);
	agg_set_free(s);
	return 0;
}
