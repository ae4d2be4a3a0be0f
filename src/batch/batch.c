// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Headless mode (--batch, --json): a summary every interval, like top -b.
 *
 * Every figure is per interval and computed from the new events only: for
 * each CPU we remember the sequence number and timestamp where the previous
 * summary stopped, and ask store_count_by() for the time window of the events
 * published since. Live without a view, the flag counts are the differences
 * of the consumer's cumulative counters (the decoder counts them as it
 * decodes), so no pass goes over the events; under a view, or without a
 * consumer (a store filled by other means), one pass over [that seq,
 * published end) counts the events the view keeps. Events whose context the
 * kernel did not record (ktop_ctx_recorded()) are in no flag column: they are
 * counted apart and said.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agg/agg.h"
#include "app/app.h"
#include "batch.h"
#include "batch_stacks.h"
#include "lib/clock.h"
#include "lib/file.h"
#include "batch_net.h"
#include "batch_tracers.h"
#include "bpfstats/bpfstats.h"
#include "kernel/cmdlines.h"
#include "ingest/consumer.h"
#include "store/event.h"
#include "batch-local.h"
#include "lib/intern.h"
#include "lib/jsonw.h"
#include "lib/hashmap.h"
#include "model/flags.h"
#include "store/schema.h"
#include "kernel/session.h"
#include "formats/format.h"
#include "store/store.h"
#include "view/tasks.h"
#include "view/viewfilter.h"

#define BATCH_TOP	10	/* rows in each top list */
#define BATCH_TOP_JSON	50	/* entries in each JSON top list (for scripts) */
#define KTOP_BATCH_MAX_CPUS	8192

/* live, the counts come from consumer_cpu_stats.flags[]: same indices */
enum batch_flag {
	BF_IRQS_OFF = DECODE_F_IRQS_OFF,
	BF_NEED_RESCHED = DECODE_F_NEED_RESCHED,
	BF_HARDIRQ = DECODE_F_HARDIRQ,
	BF_SOFTIRQ = DECODE_F_SOFTIRQ,
	BF_NMI = DECODE_F_NMI,
	BF_PREEMPT = DECODE_F_PREEMPT,
	BF_MIGRATE = DECODE_F_MIGRATE,
	BF_NR = DECODE_F_NR,
};

_Static_assert((int)FLAGS_S_NR == (int)BF_NR && (int)FLAGS_S_HARDIRQ == (int)BF_HARDIRQ &&
	       (int)FLAGS_S_MIGRATE == (int)BF_MIGRATE, "the flag shares are the decoders' counts");
#define flag_names	flags_share_names
#define flag_heads	flags_share_heads

struct batch_cpu {
	/* where the previous summary stopped */
	uint64_t			next_seq;
	uint64_t			last_ts;
	bool				any;		/* last_ts is valid */
	struct consumer_cpu_stats	cs;		/* consumer counters at that time */
	/* this interval */
	uint64_t			events;
	uint64_t			flags[BF_NR];
	uint64_t			unrec;		/* events without flags (in no flags[]) */
	uint64_t			missed, overrun, dropped, lost;
	uint64_t			lost_total;
	/* of lost_total, by reason (the kernel's: see batch_lost_cpu); with dropped, its sum */
	uint64_t			why_total[STORE_LOST_NR];
	uint64_t			ktop_dropped;	/* by ktop: decode backlog full */
	bool				window;		/* has new events */
	uint64_t			t0, t1;		/* their time window */
};

struct batch_list {
	struct store_count	*v;
	size_t			n, cap;
};

struct batch {
	struct app		*a;
	FILE			*out;
	unsigned int		ncpus;
	struct batch_cpu	*cpu;
	long			iteration;
	uint64_t		prev_ns;	/* monotonic time of the previous summary */
	uint64_t		rec_seen;	/* the newest save printed (--save-on) */
	uint64_t		bpf_seq;	/* the newest BPF outlier printed */
	double			dt;		/* seconds covered by this summary */
	uint64_t		events;		/* this interval, all CPUs */
	uint64_t		lost;		/* this interval */
	uint64_t		lost_total;
	uint64_t		ktop_dropped;	/* this interval, all CPUs */
	uint64_t		ktop_dropped_total;
	uint64_t		backlog, backlog_max, queue;	/* pages, all CPUs */
	uint64_t		page_size;
	struct store_stats	ss;
	struct batch_list	types, funcs, pids;
	bool			has_funcs;
	struct batch_tracers	*bt;		/* function_graph tree, latency table */
	struct batch_stacks	*bs;		/* top stacks, off-CPU stacks */
	struct batch_net	*bn;		/* connections, drops */
	struct store_count	*tmp;
	size_t			tmp_cap;
	struct viewfilter	*vf;		/* --view, or NULL */
	bool			trace_clock;	/* a recording: rates on its own timestamps */
	uint64_t		trace_end;	/* ... where the previous summary ended */
	double			up;		/* seconds since the start (or the recording's) */
	struct hmap		self;		/* ktop's own threads (live) */
	uint64_t		self_hidden;	/* --hide-self: rows left out of Top tasks */
};

/* ---- gathering ------------------------------------------------------ */

/*
 * One pass over the events @cpu published since the previous summary, with a
 * single-CPU iterator (it decodes each chunk once and takes no lock per
 * event). It starts at the last timestamp seen and skips by sequence number,
 * so events that share that timestamp are neither lost nor counted twice.
 */
static void batch_scan_cpu(struct batch *b, unsigned int cpu)
{
	uint64_t mask[(KTOP_BATCH_MAX_CPUS + 63) / 64] = { 0 };
	struct batch_cpu *c = &b->cpu[cpu];
	struct flags_count fc = { 0 };
	uint64_t first, end, seq;
	struct store_iter *it;
	struct ktop_event ev;

	c->events = 0;
	memset(c->flags, 0, sizeof(c->flags));
	c->unrec = 0;
	c->window = false;
	store_cpu_range(b->a->st, cpu, &first, &end);
	if (end <= c->next_seq || end <= first)
		return;
	mask[cpu / 64] |= 1ull << (cpu % 64);
	it = store_iter_new(b->a->st, c->any ? c->last_ts : 0, UINT64_MAX, mask);
	if (!it)
		return;
	while (store_iter_next(it, &ev, &seq)) {
		if (seq < c->next_seq)
			continue;
		if (seq >= end)		/* published after we looked: next time */
			break;
		/* the window moves over every event; only matches are counted */
		if (!c->window) {
			c->window = true;
			c->t0 = ev.ts;
		}
		c->t1 = ev.ts;
		if (b->vf && !viewfilter_match(b->vf, &ev))
			continue;
		flags_count_add(&fc, ev.flags, ev.pc);
	}
	store_iter_free(it);
	c->events = fc.events;
	c->unrec = fc.unrec;
	memcpy(c->flags, fc.n, sizeof(c->flags));
	c->next_seq = end;
	if (!c->window)
		return;
	/* the count_by window must not take the previous summary's last event again */
	if (c->any && c->t0 <= c->last_ts)
		c->t0 = c->last_ts + 1;
	c->last_ts = c->t1;
	c->any = true;
}

/*
 * Live: the window of the events @cpu published since the previous summary,
 * from sequence numbers and the newest event's time, without reading the
 * events (batch_lost_cpu() takes the flag counts from the consumer).
 */
static void batch_window_cpu(struct batch *b, unsigned int cpu)
{
	struct batch_cpu *c = &b->cpu[cpu];
	struct ktop_event ev;
	struct store_stats ss;
	uint64_t first, end;

	c->events = 0;
	c->window = false;
	store_cpu_range(b->a->st, cpu, &first, &end);
	if (end <= c->next_seq)
		return;
	c->events = end - c->next_seq;
	c->next_seq = end;
	if (store_get(b->a->st, cpu, end - 1, &ev)) {
		/* evicted already: the newest time the CPU stream has seen */
		store_get_cpu_stats(b->a->st, cpu, &ss);
		ev.ts = ss.last_ts;
	}
	c->window = true;
	/* the count_by window must not take the previous summary's last event again */
	c->t0 = c->any ? c->last_ts + 1 : 0;
	c->t1 = ev.ts;
	if (c->t1 > c->last_ts || !c->any)
		c->last_ts = c->t1;
	c->any = true;
}

static uint64_t max3(uint64_t x, uint64_t y, uint64_t z)
{
	uint64_t m = x > y ? x : y;

	return m > z ? m : z;
}

void batch_lost_read(struct app *a, unsigned int cpu, struct batch_lost *out)
{
	const struct snapshot_meta *rm;
	struct consumer_cpu_stats *cs = &out->cs;
	struct store_stats ss;

	memset(out, 0, sizeof(*out));
	/* the store first: what the consumer has marked in it is counted before */
	store_get_cpu_stats(a->st, cpu, &ss);
	/* a recording's own per_cpu stats (a trace.dat's CPUSTAT options) */
	rm = app_recording_meta(a);
	if (rm && rm->cpustats && cpu < rm->ncpus && rm->cpustats[cpu].valid) {
		cs->overrun = rm->cpustats[cpu].overrun;
		cs->dropped = rm->cpustats[cpu].dropped;
	}
	if (app_consumer(a))
		consumer_get_stats(app_consumer(a), cpu, cs);
	/*
	 * Missed-event marks, the per_cpu "overrun" and the store's kernel
	 * records count the same kernel loss; marks may say "some, number
	 * unknown", so take the largest. ktop's own drops are counted when they
	 * happen and marked in the store when decoding reaches them: the
	 * larger. A stream's bound, its sender's evictions and an older file's
	 * records only the store knows. Each part only grows, so the total does.
	 */
	memcpy(out->why, ss.lost_why, sizeof(out->why));
	out->why[STORE_LOST_KERNEL] = max3(cs->missed, cs->overrun, ss.lost_why[STORE_LOST_KERNEL]);
	if (cs->ktop_dropped > out->why[STORE_LOST_KTOP])
		out->why[STORE_LOST_KTOP] = cs->ktop_dropped;
	out->total = cs->dropped;
	for (unsigned int w = 0; w < STORE_LOST_NR; w++)
		out->total += out->why[w];
}

static void batch_lost_cpu(struct batch *b, unsigned int cpu)
{
	struct batch_cpu *c = &b->cpu[cpu];
	struct consumer_cpu_stats *cs;
	struct batch_lost bl;

	batch_lost_read(b->a, cpu, &bl);
	cs = &bl.cs;
	/* every event's: under a view batch_scan_cpu() counted the view's */
	if (app_consumer(b->a) && !b->vf) {
		for (int i = 0; i < BF_NR; i++)
			c->flags[i] = cs->flags[i] - c->cs.flags[i];
		c->unrec = cs->flags_unrecorded - c->cs.flags_unrecorded;
	}
	/*
	 * From cumulative counts, so that the intervals add up to the total
	 * however late each count comes in (marks are decoded after the backlog,
	 * overrun is read once a second).
	 */
	c->missed = cs->missed - c->cs.missed;
	c->overrun = cs->overrun - c->cs.overrun;
	c->dropped = cs->dropped - c->cs.dropped;
	c->ktop_dropped = cs->ktop_dropped - c->cs.ktop_dropped;
	memcpy(c->why_total, bl.why, sizeof(c->why_total));
	c->lost = bl.total > c->lost_total ? bl.total - c->lost_total : 0;
	c->lost_total = bl.total;
	c->cs = *cs;
	b->ktop_dropped += c->ktop_dropped;
	b->backlog += cs->backlog_pages;
	b->backlog_max += cs->backlog_max;
	b->queue += cs->queue_pages;
	if (cs->page_size)
		b->page_size = cs->page_size;
}

static int batch_list_add(struct batch_list *l, const struct store_count *v, size_t n)
{
	if (!n)
		return 0;	/* v may be NULL, and so may l->v */
	if (l->n + n > l->cap) {
		size_t cap = l->cap ? l->cap : 64;
		struct store_count *p;

		while (cap < l->n + n)
			cap *= 2;
		p = realloc(l->v, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		l->v = p;
		l->cap = cap;
	}
	memcpy(l->v + l->n, v, n * sizeof(*v));
	l->n += n;
	return 0;
}

/* Merge the per-CPU lists: sum equal keys, sort by count. */
static void batch_list_finish(struct batch_list *l)
{
	l->n = store_counts_merge(l->v, l->n);
}

/* Every key of one CPU's window (exact, so that merging CPUs stays exact). */
static void batch_count(struct batch *b, enum store_key key, unsigned int cpu,
			struct batch_list *l)
{
	const struct batch_cpu *c = &b->cpu[cpu];
	struct store_filter f = {
		.t0 = c->t0, .t1 = c->t1, .pid = -1, .cpu = (int32_t)cpu, .comm_id = 0,
	};
	size_t n;

	for (;;) {
		if (b->vf)
			n = viewfilter_count_by(b->vf, key, (int)cpu, c->t0, c->t1, b->tmp,
						b->tmp_cap);
		else
			n = store_count_by(b->a->st, key, &f, b->tmp, b->tmp_cap);
		if (n <= b->tmp_cap)
			break;
		free(b->tmp);
		b->tmp_cap = n + n / 2;
		b->tmp = malloc(b->tmp_cap * sizeof(*b->tmp));
		if (!b->tmp) {
			b->tmp_cap = 0;
			return;
		}
	}
	batch_list_add(l, b->tmp, n);
}

/*
 * A recording's summary covers the trace time of its events: from where the
 * previous one ended (or its first event) to its newest.
 */
static void batch_trace_time(struct batch *b)
{
	uint64_t t0 = UINT64_MAX, t1 = 0, start, now;

	for (unsigned int cpu = 0; cpu < b->ncpus; cpu++) {
		const struct batch_cpu *c = &b->cpu[cpu];

		if (!c->window)
			continue;
		t0 = c->t0 < t0 ? c->t0 : t0;
		t1 = c->t1 > t1 ? c->t1 : t1;
	}
	if (b->trace_end)
		t0 = b->trace_end;
	b->dt = t1 > t0 ? (double)(t1 - t0) / 1e9 : 0;
	if (t1 > b->trace_end)
		b->trace_end = t1;
	app_clock(b->a, &start, &now);
	b->up = now > start ? (double)(now - start) / 1e9 : 0;
}

static void batch_gather(struct batch *b, uint64_t now)
{
	b->dt = (double)(now - b->prev_ns) / 1e9;
	b->up = (double)(now - b->a->start_ns) / 1e9;
	b->prev_ns = now;
	b->events = 0;
	b->lost = 0;
	b->ktop_dropped = 0;
	b->backlog = b->backlog_max = b->queue = 0;
	b->types.n = b->funcs.n = b->pids.n = 0;
	for (unsigned int cpu = 0; cpu < b->ncpus; cpu++) {
		struct batch_cpu *c = &b->cpu[cpu];

		/* live without a view: no pass over the events (the consumer counted them) */
		if (app_consumer(b->a) && !b->vf)
			batch_window_cpu(b, cpu);
		else
			batch_scan_cpu(b, cpu);
		batch_lost_cpu(b, cpu);
		b->events += c->events;
		b->lost += c->lost;
		if (!c->window || c->t0 > c->t1)
			continue;
		batch_count(b, STORE_KEY_TYPE, cpu, &b->types);
		batch_count(b, STORE_KEY_PID, cpu, &b->pids);
		if (b->has_funcs)
			batch_count(b, STORE_KEY_FUNC, cpu, &b->funcs);
		/*
		 * A reader woken meanwhile waits for this thread to give up the
		 * CPU, up to a tick under lazy preemption: let it in between
		 * CPUs (ui/stats.c says more).
		 */
		sched_yield();
	}
	b->lost_total += b->lost;
	b->ktop_dropped_total += b->ktop_dropped;
	if (b->trace_clock)
		batch_trace_time(b);
	if (b->vf)
		viewfilter_update(b->vf, 0);
	if (app_flags(b->a) & SOURCE_KERNEL)
		tasks_read_tids("/proc/self/task", &b->self);
	batch_list_finish(&b->types);
	batch_list_finish(&b->pids);
	batch_list_finish(&b->funcs);
	b->self_hidden = 0;
	for (size_t i = 0; b->a->opts.hide_self && i < b->pids.n; i++)
		b->self_hidden += hmap_get(&b->self, (uint32_t)(int32_t)b->pids.v[i].key) != NULL;
	store_get_stats(b->a->st, &b->ss);
	/* "Store: used of limit" is all that counts against the limit */
	b->ss.bytes += b->ss.lost_bytes + b->ss.tables;
}

/* ---- naming ----------------------------------------------------------- */

/* Has a task counted in this interval no comm in the store? */
static bool batch_unnamed(const struct batch *b)
{
	for (size_t i = 0; i < b->pids.n; i++)
		if (b->pids.v[i].key && !store_comm(b->a->st, (int32_t)b->pids.v[i].key))
			return true;
	return false;
}

static const char *batch_type_name(struct batch *b, uint64_t id, char *buf, size_t len)
{
	const struct ktop_schema_type *t = schema_get(store_schema(b->a->st), (uint16_t)id);

	if (!t)
		snprintf(buf, len, "type#%" PRIu64, id);
	else if (t->system && t->system[0])
		snprintf(buf, len, "%s:%s", t->system, t->name);
	else
		snprintf(buf, len, "%s", t->name);
	return buf;
}

static const char *batch_func_name(struct batch *b, uint64_t id)
{
	const char *s = intern_str(store_strings(b->a->st), (uint32_t)id);

	return s && *s ? s : "?";
}

/*
 * The comm as traced (sched_switch, exec); for a task the trace has not named
 * (no sched events enabled) and that is still alive, ask /proc.
 */
static const char *batch_comm(struct batch *b, int32_t pid)
{
	const char *s = pid ? store_comm(b->a->st, pid) : NULL;
	static char buf[32];
	char path[64];

	/* a live task the store has not named: the kernel knows it */
	if (pid && !(s && *s) && (app_flags(b->a) & SOURCE_KERNEL)) {
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		if (!file_read_value(path, buf, sizeof(buf)))
			return buf;
	}
	return store_task_name(b->a->st, pid);
}

/* One of ktop's own threads (live: /proc/self/task as of this summary)? */
static bool batch_self(struct batch *b, int32_t pid)
{
	return hmap_get(&b->self, (uint32_t)pid) != NULL;
}

static const char *batch_tracer(struct batch *b)
{
	/* a snapshot: the tracer it recorded */
	const char *t = app_tracer(b->a);

	return t && *t ? t : "nop";
}

static void batch_size(char *buf, size_t len, uint64_t v)
{
	if (v >= (1ull << 30))
		snprintf(buf, len, "%.1fG", (double)v / (1ull << 30));
	else if (v >= (1ull << 20))
		snprintf(buf, len, "%.1fM", (double)v / (1ull << 20));
	else if (v >= (1ull << 10))
		snprintf(buf, len, "%.1fK", (double)v / (1ull << 10));
	else
		snprintf(buf, len, "%" PRIu64 "B", v);
}

static double batch_rate(const struct batch *b, uint64_t n)
{
	return b->dt > 0 ? (double)n / b->dt : 0;
}

/* ---- text ------------------------------------------------------------- */

/* The width of the CPU column: "tdr:1" for a CPU of a trace.dat's instance. */
static int batch_cpu_width(const struct batch *b, const struct snapshot_meta *rm)
{
	int cw = 4;
	char name[160];

	for (unsigned int cpu = 0; cpu < b->ncpus; cpu++) {
		int n = (int)strlen(snapshot_meta_cpu_name(rm, cpu, name, sizeof(name)));

		cw = n > cw ? n : cw;
	}
	return cw;
}

/*
 * Lost per CPU since start, as the sum of its reasons. The terms only streams
 * and files have are shown when a CPU has some.
 */
static void batch_text_lost(struct batch *b, FILE *o, const struct snapshot_meta *rm, int cw)
{
	static const struct {
		enum store_lost_why	why;
		const char		*name, *what;
	} extra[] = {
		{ STORE_LOST_STREAM, "stream bound", "left out by the sender's --stream-rate" },
		{ STORE_LOST_UNSENT, "unsent", "evicted by the sender before it was sent" },
		{ STORE_LOST_UNKNOWN, "unknown", "a .ktop file older than version 3" },
	};
	enum { NX = sizeof(extra) / sizeof(extra[0]) };
	bool show[NX] = { false };
	char name[160];

	for (unsigned int cpu = 0; cpu < b->ncpus; cpu++)
		for (size_t i = 0; i < NX; i++)
			show[i] |= b->cpu[cpu].why_total[extra[i].why] > 0;
	fprintf(o, "\nLost per CPU (since start) = kernel ring buffer (missed-event marks or "
		"overrun: the same loss, the larger) + dropped + dropped by ktop (decode backlog)");
	for (size_t i = 0, first = 1; i < NX; i++) {
		if (!show[i])
			continue;
		fprintf(o, "%s%s: %s", first ? "\n  " : "; ", extra[i].name, extra[i].what);
		first = 0;
	}
	fputc('\n', o);
	for (unsigned int cpu = 0; cpu < b->ncpus; cpu++) {
		const struct batch_cpu *c = &b->cpu[cpu];

		fprintf(o, "%*s %10" PRIu64 "  = kernel %" PRIu64 " (missed %" PRIu64
			", overrun %" PRIu64 ") + dropped %" PRIu64 " + dropped by ktop %" PRIu64,
			cw, snapshot_meta_cpu_name(rm, cpu, name, sizeof(name)), c->lost_total,
			c->why_total[STORE_LOST_KERNEL], c->cs.missed, c->cs.overrun,
			c->cs.dropped, c->why_total[STORE_LOST_KTOP]);
		for (size_t i = 0; i < NX; i++)
			if (show[i])
				fprintf(o, " + %s %" PRIu64, extra[i].name,
					c->why_total[extra[i].why]);
		fputc('\n', o);
	}
}

/* Events, rate, losses and flag categories per CPU, and for all. */
static void batch_text_cpus(struct batch *b, FILE *o, const struct snapshot_meta *rm, int cw)
{
	struct batch_cpu all = { 0 };
	char name[160];

	fprintf(o, "%*s %10s %10s %8s", cw, "CPU", "EVENTS", "RATE/s", "LOST");
	for (int i = 0; i < BF_NR; i++)
		fprintf(o, " %8s", flag_heads[i]);
	fputc('\n', o);
	for (unsigned int cpu = 0; cpu <= b->ncpus; cpu++) {
		const struct batch_cpu *c = cpu < b->ncpus ? &b->cpu[cpu] : &all;

		if (cpu < b->ncpus) {
			all.events += c->events;
			all.unrec += c->unrec;
			all.lost += c->lost;
			for (int i = 0; i < BF_NR; i++)
				all.flags[i] += c->flags[i];
			fprintf(o, "%*s", cw, snapshot_meta_cpu_name(rm, cpu, name, sizeof(name)));
		} else {
			fprintf(o, "%*s", cw, "all");
		}
		fprintf(o, " %10" PRIu64 " %10.0f %8" PRIu64, c->events, batch_rate(b, c->events),
			c->lost);
		for (int i = 0; i < BF_NR; i++)
			fprintf(o, " %8" PRIu64, c->flags[i]);
		fputc('\n', o);
	}
	if (all.unrec)
		fprintf(o, "%*s %10" PRIu64 " events without flags (their context was not recorded: "
			"uprobe events on some kernels), in none of the flag columns\n", cw, "",
			all.unrec);
}

static void batch_text(struct batch *b)
{
	const struct snapshot_meta *rm = app_recording_meta(b->a);
	char used[32], limit[32], name[160], clock[32];
	int cw = batch_cpu_width(b, rm);
	FILE *o = b->out;
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
	batch_size(used, sizeof(used), b->ss.bytes);
	batch_size(limit, sizeof(limit), b->ss.limit);

	fprintf(o, "ktop %s - %s, up %.1fs, summary %ld, interval %.2fs%s\n", KTOP_VERSION,
		clock, b->up, b->iteration, b->dt, b->trace_clock ? " (trace time)" : "");
	fprintf(o, "Trace: %s\n", b->a->mode_why);
	fprintf(o, "Session: %s, tracer %s\n", *app_instance(b->a) ? app_instance(b->a) : "-",
		batch_tracer(b));
	fprintf(o, "Events: %" PRIu64 " this interval, %.0f/s ingested, %" PRIu64
		" since start\n", b->events, batch_rate(b, b->events), b->ss.appended);
	fprintf(o, "Store: %s used of %s (%.1f%%), %" PRIu64 " events held, %" PRIu64
		" evicted", used, limit,
		b->ss.limit ? 100.0 * (double)b->ss.bytes / (double)b->ss.limit : 0.0,
		b->ss.events, b->ss.evicted);
	if (b->ss.marks_evicted)
		fprintf(o, " (and %" PRIu64 " lost-event marks)", b->ss.marks_evicted);
	fputc('\n', o);
	fprintf(o, "Lost: %" PRIu64 " this interval, %" PRIu64 " since start\n", b->lost,
		b->lost_total);
	if (b->vf) {
		struct viewfilter_counts vc;
		char desc[VIEWFILTER_TEXT_MAX];

		viewfilter_counts(b->vf, &vc);
		fprintf(o, "View: %s: %" PRIu64 " of %" PRIu64 " held events match (the figures "
			"below count only those, but for the losses)\n", viewfilter_describe(b->vf, desc, sizeof(desc)),
			vc.matched, vc.held);
	}
	if (app_consumer(b->a)) {
		char bl[32], bq[32], bm[32];

		batch_size(bl, sizeof(bl), b->backlog * b->page_size);
		batch_size(bm, sizeof(bm), b->backlog_max * b->page_size);
		batch_size(bq, sizeof(bq), b->queue * b->page_size);
		fprintf(o, "Reader: decode backlog %s of %s (peak %s); dropped by ktop (decode "
			"backlog): %" PRIu64 " this interval, %" PRIu64 " since start (in Lost)\n",
			bl, bq, bm, b->ktop_dropped, b->ktop_dropped_total);
	}
	batch_recorder_text(b->a, o, &b->rec_seen);
	fputc('\n', o);

	batch_text_cpus(b, o, rm, cw);

	fprintf(o, "\nTop events\n%10s  %s\n", "COUNT", "EVENT");
	for (size_t i = 0; i < b->types.n && i < BATCH_TOP; i++)
		fprintf(o, "%10" PRIu64 "  %s\n", b->types.v[i].count,
			batch_type_name(b, b->types.v[i].key, name, sizeof(name)));
	if (!b->types.n)
		fprintf(o, "%10s  (none this interval)\n", "-");

	fprintf(o, "\nTop functions\n%10s  %s\n", "COUNT", "FUNCTION");
	for (size_t i = 0; i < b->funcs.n && i < BATCH_TOP; i++)
		fprintf(o, "%10" PRIu64 "  %s\n", b->funcs.v[i].count,
			batch_func_name(b, b->funcs.v[i].key));
	if (!b->funcs.n)
		fprintf(o, "%10s  (%s)\n", "-", b->has_funcs ? "none this interval" :
			"no function tracer in this session");

	fprintf(o, "\nTop tasks\n%10s %8s  %s\n", "COUNT", "PID", "COMM");
	for (size_t i = 0, k = 0; i < b->pids.n && k < BATCH_TOP; i++) {
		int32_t pid = (int32_t)b->pids.v[i].key;
		bool self = batch_self(b, pid);

		if (self && b->a->opts.hide_self)
			continue;
		fprintf(o, "%10" PRIu64 " %8d  %s%s\n", b->pids.v[i].count, pid, batch_comm(b, pid),
			self ? " [ktop]" : "");
		k++;
	}
	if (!b->pids.n)
		fprintf(o, "%10s %8s  (none this interval)\n", "-", "-");
	if (b->self_hidden)
		fprintf(o, "%10s %8s  (%" PRIu64 " of ktop's own threads left out: --hide-self)\n",
			"-", "-", b->self_hidden);

	batch_text_lost(b, o, rm, cw);
	fputc('\n', o);
	batch_stacks_text(b->bs, o);
	batch_agg_text(b->a, o);
	batch_tracers_text(b->bt, o);
	batch_net_text(b->bn, o);
	if (app_bpf(b->a))
		b->bpf_seq = bpfstats_print(app_bpf(b->a), o, 1, 5, b->bpf_seq);
	else if (app_bpf_why(b->a)[0])
		fprintf(o, "BPF: %s\n\n", app_bpf_why(b->a));
}

/* ---- JSON ------------------------------------------------------------- */

void batch_json_member(FILE *o, const char *key, struct jsonw *w)
{
	char *t;

	jsonw_finish(w);
	t = jsonw_take(w, NULL);
	if (t)
		fprintf(o, ",\"%s\":%s", key, t);
	free(t);
	jsonw_destroy(w);
}

static void batch_json(struct batch *b)
{
	char name[160], clock[40];
	time_t t = time(NULL);
	FILE *o = b->out;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(clock, sizeof(clock), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(o, "{\"time\":\"%s\",\"uptime_s\":%.3f,\"summary\":%ld,\"interval_s\":%.3f,"
		"\"clock\":\"%s\",", clock, b->up, b->iteration, b->dt,
		b->trace_clock ? "trace" : "monotonic");
	fputs("\"mode\":", o);
	jsonw_str_fp(o, b->a->mode_why);
	fputs(",\"tracer\":", o);
	jsonw_str_fp(o, batch_tracer(b));
	fputs(",\"session\":", o);
	jsonw_str_fp(o, app_instance(b->a));
	fprintf(o, ",\"events\":%" PRIu64 ",\"events_per_s\":%.1f,\"events_total\":%" PRIu64
		",\"lost\":%" PRIu64 ",\"lost_total\":%" PRIu64,
		b->events, batch_rate(b, b->events), b->ss.appended, b->lost, b->lost_total);
	fprintf(o, ",\"ktop_dropped\":%" PRIu64 ",\"ktop_dropped_total\":%" PRIu64
		",\"backlog\":{\"pages\":%" PRIu64 ",\"peak_pages\":%" PRIu64
		",\"queue_pages\":%" PRIu64 ",\"page_size\":%" PRIu64 "}",
		b->ktop_dropped, b->ktop_dropped_total, b->backlog, b->backlog_max, b->queue,
		b->page_size);
	fprintf(o, ",\"store\":{\"bytes\":%" PRIu64 ",\"limit\":%" PRIu64 ",\"held\":%" PRIu64
		",\"evicted\":%" PRIu64 ",\"marks_evicted\":%" PRIu64 "}", b->ss.bytes,
		b->ss.limit, b->ss.events, b->ss.evicted, b->ss.marks_evicted);

	fputs(",\"cpus\":[", o);
	for (unsigned int cpu = 0; cpu < b->ncpus; cpu++) {
		const struct batch_cpu *c = &b->cpu[cpu];

		const struct snapshot_meta *rm = app_recording_meta(b->a);
		const struct snapshot_buffer *buf = rm && rm->nbuffers > 1 ?
			snapshot_meta_buffer(rm, cpu, NULL) : NULL;

		if (buf) {
			unsigned int bcpu;

			snapshot_meta_buffer(rm, cpu, &bcpu);
			fprintf(o, "%s{\"buffer\":", cpu ? "," : "");
			jsonw_str_fp(o, buf->name);
			fprintf(o, ",\"buffer_cpu\":%u,", bcpu);
		} else {
			fprintf(o, "%s{", cpu ? "," : "");
		}
		fprintf(o, "\"cpu\":%u,\"events\":%" PRIu64 ",\"rate\":%.1f,\"lost\":%" PRIu64
			",\"lost_total\":%" PRIu64 ",\"missed_total\":%" PRIu64
			",\"overrun_total\":%" PRIu64 ",\"dropped_total\":%" PRIu64
			",\"ktop_dropped_total\":%" PRIu64 ",\"kernel_total\":%" PRIu64
			",\"stream_total\":%" PRIu64 ",\"unsent_total\":%" PRIu64
			",\"unknown_total\":%" PRIu64 ",\"backlog_pages\":%" PRIu64
			",\"backlog_peak_pages\":%" PRIu64 ",\"read_cpu_ns\":%" PRIu64
			",\"decode_cpu_ns\":%" PRIu64 ",\"decoded_total\":%" PRIu64
			",\"flags\":{",
			cpu, c->events, batch_rate(b, c->events), c->lost,
			c->lost_total, c->cs.missed, c->cs.overrun, c->cs.dropped,
			c->why_total[STORE_LOST_KTOP], c->why_total[STORE_LOST_KERNEL],
			c->why_total[STORE_LOST_STREAM], c->why_total[STORE_LOST_UNSENT],
			c->why_total[STORE_LOST_UNKNOWN], c->cs.backlog_pages, c->cs.backlog_max, c->cs.read_ns,
			c->cs.decode_ns, c->cs.events);
		for (int i = 0; i < BF_NR; i++)
			fprintf(o, "%s\"%s\":%" PRIu64, i ? "," : "", flag_names[i], c->flags[i]);
		fprintf(o, "},\"flags_not_recorded\":%" PRIu64 "}", c->unrec);
	}
	fputs("],\"top_events\":[", o);
	for (size_t i = 0; i < b->types.n && i < BATCH_TOP_JSON; i++) {
		fprintf(o, "%s{\"event\":", i ? "," : "");
		jsonw_str_fp(o, batch_type_name(b, b->types.v[i].key, name, sizeof(name)));
		fprintf(o, ",\"count\":%" PRIu64 "}", b->types.v[i].count);
	}
	fputs("],\"top_functions\":[", o);
	for (size_t i = 0; i < b->funcs.n && i < BATCH_TOP_JSON; i++) {
		fprintf(o, "%s{\"function\":", i ? "," : "");
		jsonw_str_fp(o, batch_func_name(b, b->funcs.v[i].key));
		fprintf(o, ",\"count\":%" PRIu64 "}", b->funcs.v[i].count);
	}
	fputs("],\"top_tasks\":[", o);
	for (size_t i = 0, k = 0; i < b->pids.n && k < BATCH_TOP_JSON; i++) {
		int32_t pid = (int32_t)b->pids.v[i].key;
		bool self = batch_self(b, pid);

		if (self && b->a->opts.hide_self)
			continue;
		fprintf(o, "%s{\"pid\":%d,\"comm\":", k++ ? "," : "", pid);
		jsonw_str_fp(o, batch_comm(b, pid));
		fprintf(o, ",\"count\":%" PRIu64 "%s}", b->pids.v[i].count,
			self ? ",\"self\":true" : "");
	}
	fprintf(o, "],\"self_hidden\":%" PRIu64, b->self_hidden);
	if (b->vf) {
		struct viewfilter_counts vc;
		char desc[VIEWFILTER_TEXT_MAX];

		viewfilter_counts(b->vf, &vc);
		fputs(",\"view\":{\"filter\":", o);
		jsonw_str_fp(o, viewfilter_describe(b->vf, desc, sizeof(desc)));
		fprintf(o, ",\"matched\":%" PRIu64 ",\"held\":%" PRIu64 "}", vc.matched,
			vc.held);
	}
	batch_recorder_json(b->a, o, &b->rec_seen);
	batch_agg_json(b->a, o);
	batch_tracers_json(b->bt, o);
	if (app_bpf(b->a))
		b->bpf_seq = batch_bpf_json(app_bpf(b->a), o, 1, BATCH_TOP_JSON, b->bpf_seq);
	else if (app_bpf_why(b->a)[0])
		batch_bpf_json_off(o, app_bpf_why(b->a));
	batch_stacks_json(b->bs, o);
	batch_net_json(b->bn, o);
	fputs("}\n", o);
}

/* ---- the loop --------------------------------------------------------- */

bool batch_wait(uint64_t deadline)
{
	int sfd = session_signal_fd();

	for (;;) {
		struct pollfd pfd = { .fd = sfd, .events = POLLIN };
		uint64_t now = clock_mono_ns();
		int ms;

		if (session_signal_pending())
			return true;
		if (now >= deadline)
			return false;
		ms = (int)((deadline - now + 999999) / 1000000);
		if (poll(&pfd, sfd >= 0 ? 1 : 0, ms) < 0 && errno != EINTR)
			return false;
	}
}

static void batch_drain_wake(struct app *a)
{
	uint64_t v;

	/* the collectors' wake-ups matter to the UI only; keep the counter low */
	if (a->wake_fd >= 0 && read(a->wake_fd, &v, sizeof(v)) < 0)
		return;
}

/*
 * The last summary of a run that ends by itself (--duration, --iterations)
 * covers every event to the end: tracing stops, and once the readers have
 * brought in what the kernel still held (the store stops growing; the
 * partly filled pages are asked for at once, consumer_flush, rather than left
 * to the readers' next poll timeout), the tracer views take the whole store
 * instead of lagging behind "now".
 */
static void batch_drain(struct app *a)
{
	app_drain(a);
}

int batch_run(struct app *a, FILE *out)
{
	uint64_t interval = (uint64_t)(a->opts.interval * 1e9);
	uint64_t end = 0, next;
	struct batch b = { .a = a, .out = out };
	const char *tracer;
	int status = 0;
	bool last;

	if (!interval)
		interval = 1000000000ull;
	b.ncpus = store_ncpus(a->st);
	if (b.ncpus > KTOP_BATCH_MAX_CPUS)
		b.ncpus = KTOP_BATCH_MAX_CPUS;
	b.cpu = calloc(b.ncpus ? b.ncpus : 1, sizeof(*b.cpu));
	if (!b.cpu)
		return 1;
	tracer = batch_tracer(&b);
	b.has_funcs = !strcmp(tracer, "function") || !strcmp(tracer, "function_graph");
	b.bt = batch_tracers_new(a);
	b.vf = app_view(a);
	b.trace_clock = !(app_flags(a) & SOURCE_KERNEL);
	b.bs = batch_stacks_new(a);
	b.bn = batch_net_new(a, b.vf);
	b.prev_ns = a->start_ns;
	next = a->start_ns + interval;
	if (a->opts.duration > 0)
		end = a->start_ns + (uint64_t)(a->opts.duration * 1e9);

	for (;;) {
		uint64_t deadline = end && end < next ? end : next, now;
		bool stopped = false;

		if (batch_wait(deadline)) {
			int sig = session_signal_pending();

			/*
			 * Ctrl-C or kill: one last summary to this moment, as
			 * the end of --duration gives (a second Ctrl-C while it
			 * drains ends ktop at once). A hang-up or a closed pipe:
			 * nobody is left to read it.
			 */
			if (sig != SIGINT && sig != SIGTERM)
				break;
			stopped = true;
		}
		now = clock_mono_ns();
		b.iteration++;
		last = stopped || (a->opts.iterations && b.iteration >= a->opts.iterations) ||
		       (end && now >= end);
		if (last) {
			/* the saves under way end first: their lines go in this summary */
			app_recorder_finish(a, clock_mono_ns() + APP_RECORDER_FINISH_NS);
			batch_drain(a);	/* the summary stays at the end: now */
			/* and the aggregations' figures too, not those of the last poll */
			if (app_agg(a))
				agg_set_poll(app_agg(a));
		}
		batch_drain_wake(a);
		batch_gather(&b, now);
		/*
		 * Tasks seen only in non-scheduler events get saved_cmdlines'
		 * name. Reading it costs a millisecond of CPU or more (thousands
		 * of lines): only when a task of this interval has no name yet.
		 */
		if ((app_flags(a) & SOURCE_KERNEL) && a->ft.tracefs[0] && batch_unnamed(&b))
			cmdlines_fill(a->st, a->ft.tracefs);
		if (last)
			batch_tracers_update_to(b.bt, UINT64_MAX - 1);
		else
			batch_tracers_update(b.bt);
		batch_net_update(b.bn, last ? UINT64_MAX - 1 : 0);
		batch_stacks_update(b.bs);
		if (a->opts.json)
			batch_json(&b);
		else
			batch_text(&b);
		if (fflush(out) || ferror(out)) {
			/* the reader left, or it took nothing while ktop was stopping */
			status = errno == EPIPE || errno == EINTR ? 0 : 1;
			break;
		}
		if (last)
			break;
		next += interval;
		if (next <= now)	/* we fell behind: do not print a burst */
			next = now + interval;
	}
	free(b.tmp);
	free(b.types.v);
	free(b.funcs.v);
	free(b.pids.v);
	free(b.cpu);
	hmap_destroy(&b.self);
	batch_tracers_free(b.bt);
	batch_stacks_free(b.bs);
	batch_net_free(b.bn);
	return status;
}
