/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fleet: one row per host, read from PCP (`ktop --pcp HOST,...`: each
 * host's pmcd and its ktop agent; `--pcp-archive A,...`: pmlogger's
 * archives of them). A row says events/s, lost, the busiest event, the
 * timerlat and osnoise maxima of the newest second, the run-queue p99,
 * probe hits/s and network drops; a host's per-CPU figures on demand.
 *
 * Live, each host has a thread ("ktop-pcp") that connects, fetches every
 * interval and, when the host does not answer, says why and tries again the
 * next interval: a host that hangs holds up its own row only. Rates are the
 * differences of the agent's counters between two fetches over pmcd's
 * timestamps. An archive is stepped by the caller (fleet_step), all in the
 * same thread.
 */
#ifndef KTOP_FLEET_H
#define KTOP_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fleet;

#define FLEET_MAX_HOSTS		64
#define FLEET_MAX_CPUS		1024
#define FLEET_NFLAGS		7	/* irqs_off, need_resched, hardirq, softirq, nmi, preempt, migrate_disable */

struct fleet_opts {
	const char	*hosts;		/* "HOST[:PORT],..." or NULL */
	const char	*archives;	/* "PATH,..." or NULL */
	double		interval;	/* seconds; 0: 1 */
	const char	*start, *finish, *origin;	/* PCP time window (archives) */
};

struct fleet_row {
	char		host[128];	/* as given (an archive: the host it recorded) */
	bool		up;		/* the newest fetch answered */
	bool		rates;		/* two samples: the rates below mean something */
	char		why[256];	/* down: why; up: what is missing ("" when nothing) */
	uint64_t	down_since;	/* down: wall ns it went down (0: never came up) */
	double		t;		/* the newest sample's time, wall seconds */
	unsigned int	ncpus;
	char		tracer[32];
	double		events_per_s, lost_per_s;
	uint64_t	events_total, lost_total;
	char		top_event[96];	/* "" when none */
	double		top_event_per_s;
	bool		has_timerlat, has_osnoise, has_runq, has_probes, has_drops;
	uint64_t	timerlat_max_ns;	/* the largest CPU's, newest second (irq or thread) */
	uint64_t	osnoise_max_ns;
	uint64_t	runq_p99_ns;
	double		probe_hits_per_s;
	double		drops_per_s;
	uint64_t	fetches;	/* answered since the start */
};

struct fleet_cpu {
	unsigned int	cpu;
	double		events_per_s, lost_per_s;
	double		flag_share[FLEET_NFLAGS];	/* of its events this interval, 0..1 */
	bool		has_timerlat;
	uint64_t	timerlat_max_ns;
};

extern const char *const fleet_flag_names[FLEET_NFLAGS];

/**
 * fleet_new - the hosts of @o, connecting (live: the threads start here)
 * @err: what is wrong with @o (no PCP, a bad time window, an archive that
 *       cannot be opened), for the user
 * Return: the fleet (fleet_free), or NULL with @err set.
 * Context: the main thread.
 */
struct fleet *fleet_new(const struct fleet_opts *o, char *err, size_t errlen);
void fleet_free(struct fleet *f);

/* True for archives (the caller steps them), false live. */
bool fleet_is_archive(const struct fleet *f);

/**
 * fleet_step - archives: take the next sample of each (one interval on)
 * Return: how many archives had one; 0 when all have ended.
 */
int fleet_step(struct fleet *f);

/* The number of hosts (rows). */
size_t fleet_nhosts(const struct fleet *f);

/* A copy of row @i. Return: 0, or -ENOENT. Context: any thread. */
int fleet_row(struct fleet *f, size_t i, struct fleet_row *out);

/* Host @i's CPUs of the newest interval. Return: how many copied (<= @max). */
size_t fleet_cpus(struct fleet *f, size_t i, struct fleet_cpu *out, size_t max);

/* The fetches done so far, all hosts: a generation number for redraws. */
uint64_t fleet_generation(struct fleet *f);

/* An eventfd written after each host's fetch (for a UI's poll), or -1. */
int fleet_wake_fd(const struct fleet *f);

#endif
