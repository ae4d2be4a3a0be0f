// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fleet's --batch and --json output (see fleet_batch.h). Live, a summary
 * comes a fifth of an interval after each of the hosts' fetches were due, so
 * each row has the newest pair of samples; archives are stepped as fast as
 * they are read.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernel/session.h"
#include "lib/clock.h"
#include "lib/jsonw.h"
#include "fleet.h"
#include "fleet_batch.h"

#define COLS	"%-22s %-5s %10s %8s  %-28s %8s %9s %9s %9s %8s %8s"

const char *fleet_row_header(void)
{
	static char buf[200];

	snprintf(buf, sizeof(buf), COLS, "HOST", "STATE", "EVENTS/s", "LOST/s", "TOP EVENT",
		 "/s", "TIMERLAT", "OSNOISE", "RUNQ-P99", "PROBES/s", "DROPS/s");
	return buf;
}

/* A rate, "-" when there is none yet. */
static const char *num(char *buf, size_t len, bool have, double v)
{
	if (!have)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.0f", v);
	return buf;
}

/* A latency: "12.3us", "4.56ms", "1.23s"; "-" when the host has none. */
static const char *lat(char *buf, size_t len, bool have, uint64_t ns)
{
	if (!have)
		snprintf(buf, len, "-");
	else if (ns < 1000000)
		snprintf(buf, len, "%.1fus", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2fms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", (double)ns / 1e9);
	return buf;
}

void fleet_row_text(const struct fleet_row *r, char *buf, size_t len)
{
	char a[32], b[32], c[32], d[32], e[32], g[32], h[32], i[32], clock[32];
	struct tm tm;
	time_t t;

	if (!r->up) {
		clock[0] = '\0';
		if (r->down_since) {
			t = (time_t)(r->down_since / 1000000000ull);
			localtime_r(&t, &tm);
			strftime(clock, sizeof(clock), " (since %H:%M:%S)", &tm);
		}
		snprintf(buf, len, "%-22s %-5s %s%s", r->host, "down", r->why, clock);
		return;
	}
	snprintf(buf, len, COLS "%s%s", r->host, "up", num(a, sizeof(a), r->rates, r->events_per_s),
		 num(b, sizeof(b), r->rates, r->lost_per_s),
		 r->top_event[0] ? r->top_event : "-",
		 num(c, sizeof(c), r->rates && r->top_event[0], r->top_event_per_s),
		 lat(d, sizeof(d), r->has_timerlat, r->timerlat_max_ns),
		 lat(e, sizeof(e), r->has_osnoise, r->osnoise_max_ns),
		 lat(g, sizeof(g), r->has_runq, r->runq_p99_ns),
		 num(h, sizeof(h), r->rates && r->has_probes, r->probe_hits_per_s),
		 num(i, sizeof(i), r->rates && r->has_drops, r->drops_per_s),
		 r->why[0] ? "  " : "", r->why);
}

const char *fleet_cpu_header(void)
{
	static char buf[200];
	int n = snprintf(buf, sizeof(buf), "%4s %10s %8s", "CPU", "EVENTS/s", "LOST/s");

	for (int k = 0; k < FLEET_NFLAGS && n > 0 && (size_t)n < sizeof(buf); k++)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " %8.8s", fleet_flag_names[k]);
	if (n > 0 && (size_t)n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - (size_t)n, " %9s", "TIMERLAT");
	return buf;
}

void fleet_cpu_text(const struct fleet_cpu *c, char *buf, size_t len)
{
	char tl[32];
	int n = snprintf(buf, len, "%4u %10.0f %8.0f", c->cpu, c->events_per_s, c->lost_per_s);

	for (int k = 0; k < FLEET_NFLAGS && n > 0 && (size_t)n < len; k++)
		n += snprintf(buf + n, len - (size_t)n, " %7.1f%%", 100.0 * c->flag_share[k]);
	if (n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " %9s",
			 lat(tl, sizeof(tl), c->has_timerlat, c->timerlat_max_ns));
}

static void text_summary(struct fleet *f, FILE *o, long n, double dt)
{
	struct fleet_cpu cpus[FLEET_MAX_CPUS];
	struct fleet_row r;
	char line[512], clock[16];
	size_t up = 0, nh = fleet_nhosts(f);
	time_t t = time(NULL);
	struct tm tm;

	for (size_t i = 0; i < nh; i++)
		up += !fleet_row(f, i, &r) && r.up;
	localtime_r(&t, &tm);
	strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
	fprintf(o, "ktop %s - fleet of %zu hosts (%s), %zu up, %s, summary %ld, interval %.2fs\n",
		KTOP_VERSION, nh, fleet_is_archive(f) ? "archives" : "live", up, clock, n, dt);
	fprintf(o, "%s\n", fleet_row_header());
	for (size_t i = 0; i < nh; i++) {
		if (fleet_row(f, i, &r))
			continue;
		fleet_row_text(&r, line, sizeof(line));
		fprintf(o, "%s\n", line);
	}
	fprintf(o, "\nPer CPU (rates of the newest interval; flags: share of the CPU's events)\n");
	fprintf(o, "%-22s %s\n", "HOST", fleet_cpu_header());
	for (size_t i = 0; i < nh; i++) {
		size_t nc;

		if (fleet_row(f, i, &r) || !r.up)
			continue;
		nc = fleet_cpus(f, i, cpus, FLEET_MAX_CPUS);
		for (size_t c = 0; c < nc; c++) {
			fleet_cpu_text(&cpus[c], line, sizeof(line));
			fprintf(o, "%-22s %s\n", r.host, line);
		}
	}
	fputc('\n', o);
}

static void json_opt_ns(struct jsonw *w, const char *key, bool have, uint64_t ns)
{
	jsonw_key(w, key);
	if (have)
		jsonw_u64(w, ns);
	else
		jsonw_null(w);
}

static void json_opt_rate(struct jsonw *w, const char *key, bool have, double v)
{
	jsonw_key(w, key);
	if (have)
		jsonw_double(w, v, 1);
	else
		jsonw_null(w);
}

static void json_summary(struct fleet *f, FILE *o, long n, double dt)
{
	struct fleet_cpu cpus[FLEET_MAX_CPUS];
	struct fleet_row r;
	char clock[40];
	time_t t = time(NULL);
	struct jsonw w;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(clock, sizeof(clock), "%Y-%m-%dT%H:%M:%SZ", &tm);
	jsonw_init_file(&w, o);
	jsonw_obj_open(&w);
	jsonw_key(&w, "time");
	jsonw_str(&w, clock);
	jsonw_key(&w, "summary");
	jsonw_i64(&w, n);
	jsonw_key(&w, "interval_s");
	jsonw_double(&w, dt, 3);
	jsonw_key(&w, "source");
	jsonw_str(&w, fleet_is_archive(f) ? "archives" : "pcp");
	jsonw_key(&w, "hosts");
	jsonw_arr_open(&w);
	for (size_t i = 0; i < fleet_nhosts(f); i++) {
		size_t nc;

		if (fleet_row(f, i, &r))
			continue;
		jsonw_obj_open(&w);
		jsonw_key(&w, "host");
		jsonw_str(&w, r.host);
		jsonw_key(&w, "up");
		jsonw_bool(&w, r.up);
		jsonw_key(&w, "why");
		jsonw_str(&w, r.why);
		if (!r.up) {
			jsonw_key(&w, "down_since");
			if (r.down_since)
				jsonw_double(&w, (double)r.down_since / 1e9, 3);
			else
				jsonw_null(&w);
			jsonw_obj_close(&w);
			continue;
		}
		jsonw_key(&w, "sample_time");
		jsonw_double(&w, r.t, 3);
		jsonw_key(&w, "tracer");
		jsonw_str(&w, r.tracer);
		json_opt_rate(&w, "events_per_s", r.rates, r.events_per_s);
		jsonw_key(&w, "events_total");
		jsonw_u64(&w, r.events_total);
		jsonw_key(&w, "lost");
		jsonw_u64(&w, r.lost_total);
		json_opt_rate(&w, "lost_per_s", r.rates, r.lost_per_s);
		jsonw_key(&w, "top_event");
		if (r.top_event[0])
			jsonw_str(&w, r.top_event);
		else
			jsonw_null(&w);
		json_opt_rate(&w, "top_event_per_s", r.rates && r.top_event[0], r.top_event_per_s);
		json_opt_ns(&w, "timerlat_max_ns", r.has_timerlat, r.timerlat_max_ns);
		json_opt_ns(&w, "osnoise_max_ns", r.has_osnoise, r.osnoise_max_ns);
		json_opt_ns(&w, "runq_p99_ns", r.has_runq, r.runq_p99_ns);
		json_opt_rate(&w, "probe_hits_per_s", r.rates && r.has_probes, r.probe_hits_per_s);
		json_opt_rate(&w, "drops_per_s", r.rates && r.has_drops, r.drops_per_s);
		jsonw_key(&w, "cpus");
		jsonw_arr_open(&w);
		nc = fleet_cpus(f, i, cpus, FLEET_MAX_CPUS);
		for (size_t c = 0; c < nc; c++) {
			jsonw_obj_open(&w);
			jsonw_key(&w, "cpu");
			jsonw_u64(&w, cpus[c].cpu);
			jsonw_key(&w, "events_per_s");
			jsonw_double(&w, cpus[c].events_per_s, 1);
			jsonw_key(&w, "lost_per_s");
			jsonw_double(&w, cpus[c].lost_per_s, 1);
			jsonw_key(&w, "flags");
			jsonw_obj_open(&w);
			for (int k = 0; k < FLEET_NFLAGS; k++) {
				jsonw_key(&w, fleet_flag_names[k]);
				jsonw_double(&w, cpus[c].flag_share[k], 4);
			}
			jsonw_obj_close(&w);
			json_opt_ns(&w, "timerlat_max_ns", cpus[c].has_timerlat,
				    cpus[c].timerlat_max_ns);
			jsonw_obj_close(&w);
		}
		jsonw_arr_close(&w);
		jsonw_obj_close(&w);
	}
	jsonw_arr_close(&w);
	jsonw_obj_close(&w);
	jsonw_finish(&w);
	fputc('\n', o);
}

/* Sleep until @deadline (monotonic ns) or a terminating signal. Return: true on a signal. */
static bool fb_wait(uint64_t deadline)
{
	int sfd = session_signal_fd();

	for (;;) {
		struct pollfd pfd = { .fd = sfd, .events = POLLIN };
		uint64_t now = clock_mono_ns();

		if (session_signal_pending())
			return true;
		if (now >= deadline)
			return false;
		if (poll(&pfd, sfd >= 0 ? 1 : 0, (int)((deadline - now + 999999) / 1000000)) < 0 &&
		    errno != EINTR)
			return false;
	}
}

int fleet_batch_run(struct fleet *f, const struct fleet_batch_opts *o, FILE *out)
{
	uint64_t interval = (uint64_t)((o->interval > 0 ? o->interval : 1.0) * 1e9);
	uint64_t start = clock_mono_ns(), end = 0, next;
	long n = 0;

	if (o->duration > 0)
		end = start + (uint64_t)(o->duration * 1e9);
	/* live: the hosts fetch at start and every interval; read a fifth of one after */
	next = start + interval + interval / 5;
	if (fleet_is_archive(f) && fleet_step(f) == 0)
		return 0;	/* the first step only primes the rates */
	for (;;) {
		bool more = true;

		if (fleet_is_archive(f)) {
			more = fleet_step(f) > 0;
			if (!more)
				break;
		} else if (fb_wait(end && end < next ? end : next)) {
			int sig = session_signal_pending();

			if (sig != SIGINT && sig != SIGTERM)
				break;
			more = false;
		}
		n++;
		if (o->json)
			json_summary(f, out, n, (double)interval / 1e9);
		else
			text_summary(f, out, n, (double)interval / 1e9);
		if (fflush(out) || ferror(out))
			return errno == EPIPE ? 0 : 1;
		if (!more || (o->iterations && n >= o->iterations) ||
		    (end && clock_mono_ns() >= end) || session_signal_pending())
			break;
		next += interval;
	}
	return 0;
}
