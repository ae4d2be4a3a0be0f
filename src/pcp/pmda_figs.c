// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The figures of `ktop --pmda` (see pmda_figs.h).
 *
 * An update walks the CPUs once: the events each published since the previous
 * update are a window [t0, t1] of its stream (as --batch takes them,
 * src/batch/batch.c), counted by type and by task with the store's per-chunk
 * counts, never event by event; the per-CPU events, flags and losses are the
 * sequence numbers and the reader's own cumulative counters. The latency
 * model is --batch's (src/batch/batch_tracers.h), fed up to a little behind
 * "now" so every CPU's samples come in time order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg/agg.h"
#include "app/app.h"
#include "batch/batch.h"
#include "batch/batch_tracers.h"
#include "bpfstats/bpfstats.h"
#include "lib/array.h"
#include "lib/series.h"
#include "lib/intern.h"
#include "lib/file.h"
#include "model/latency.h"
#include "model/net.h"
#include "probe/probe.h"
#include "probe/probe_gen.h"
#include "store/schema.h"
#include "store/store.h"
#include "pmda_figs.h"

#define PMDA_MAX_CPUS		8192
#define PMDA_MAX_PROBES		64
#define PMDA_MAX_SYSCALLS	512
#define PMDA_MAX_IRQS		256

/* Where the previous update stopped on one CPU. */
struct figs_cursor {
	uint64_t	next_seq;
	uint64_t	last_ts;
	bool		any;
};

/* A list of named counters: the intern id (from 1) is the entry's index + 1. */
struct figs_list {
	struct intern		*names;
	struct pmda_named	*v;
	size_t			n, cap;
};

struct pmda_figs {
	struct app		*a;
	unsigned int		ncpus;
	struct pmda_cpu		*cpu;
	struct figs_cursor	*cur;
	uint64_t		updates;
	uint64_t		prev_ns;
	/* by event type id: the list entry (0: not yet named) */
	uint32_t		*type_entry;
	size_t			type_cap;
	struct figs_list	list[PMDA_LIST_NR];
	/* tasks of the newest window: merged per-CPU counts */
	struct store_count	*tmp, *pids;
	size_t			tmp_cap, npids, pids_cap;
	struct pmda_task	tasks[PMDA_TOP_TASKS];
	size_t			ntasks;
	/* osnoise/timerlat */
	struct batch_tracers	*bt;
	struct intern		*probe_lines;	/* the probes' definitions */
	/* the network model, made once the session has a network event */
	struct net		*net;
	struct net_totals	net_tot;
	/* in-kernel aggregations, by PMDA_LIST_LATENCIES entry */
	struct figs_agg {
		uint64_t	bucket[PMDA_HIST_BUCKETS];
		unsigned int	unit_ns;
		bool		latency;
	}			*agg;
	size_t			agg_cap;
	struct intern		*agg_titles;
	/* BPF */
	bool			bpf_ok;
	uint64_t		runq_hist[PMDA_HIST_BUCKETS];
	uint64_t		runq_p99;
};

struct pmda_figs *pmda_figs_new(struct app *a)
{
	struct pmda_figs *f = calloc(1, sizeof(*f));
	const char *tracer;

	if (!f)
		return NULL;
	f->a = a;
	f->ncpus = a->st ? store_ncpus(a->st) : 0;
	if (f->ncpus > PMDA_MAX_CPUS)
		f->ncpus = PMDA_MAX_CPUS;
	f->cpu = calloc(f->ncpus ? f->ncpus : 1, sizeof(*f->cpu));
	f->cur = calloc(f->ncpus ? f->ncpus : 1, sizeof(*f->cur));
	if (!f->cpu || !f->cur)
		goto fail;
	for (int i = 0; i < PMDA_LIST_NR; i++) {
		f->list[i].names = intern_new();
		if (!f->list[i].names)
			goto fail;
	}
	f->probe_lines = intern_new();
	f->agg_titles = intern_new();
	if (!f->probe_lines || !f->agg_titles)
		goto fail;
	tracer = a->st ? app_tracer(a) : NULL;
	if (tracer && (!strcmp(tracer, "timerlat") || !strcmp(tracer, "osnoise")))
		f->bt = batch_tracers_new(a);
	return f;
fail:
	pmda_figs_free(f);
	return NULL;
}

void pmda_figs_free(struct pmda_figs *f)
{
	if (!f)
		return;
	for (int i = 0; i < PMDA_LIST_NR; i++) {
		intern_free(f->list[i].names);
		free(f->list[i].v);
	}
	intern_free(f->probe_lines);
	intern_free(f->agg_titles);
	free(f->agg);
	net_free(f->net);
	batch_tracers_free(f->bt);
	free(f->type_entry);
	free(f->tmp);
	free(f->pids);
	free(f->cpu);
	free(f->cur);
	free(f);
}

/* The entry named @name in list @l, added (count 0) if new. Return: NULL on ENOMEM. */
static struct pmda_named *figs_entry(struct figs_list *l, const char *name)
{
	uint32_t id = intern_id(l->names, name, strlen(name));

	if (id == UINT32_MAX || !id)
		return NULL;
	if (id > l->n) {
		if (array_grow((void **)&l->v, &l->cap, id, sizeof(*l->v)))
			return NULL;
		memset(l->v + l->n, 0, (id - l->n) * sizeof(*l->v));
		l->n = id;
		l->v[id - 1].name = intern_str(l->names, id);
	}
	return &l->v[id - 1];
}

/* The events list's entry of type @id (named once, from the schema). */
static struct pmda_named *figs_type(struct pmda_figs *f, uint64_t id)
{
	const struct ktop_schema_type *t;
	char name[PMDA_NAME_MAX];
	struct pmda_named *e;

	if (id < f->type_cap && f->type_entry[id])
		return &f->list[PMDA_LIST_EVENTS].v[f->type_entry[id] - 1];
	t = schema_get(store_schema(f->a->st), (uint16_t)id);
	if (!t)
		snprintf(name, sizeof(name), "type#%llu", (unsigned long long)id);
	else if (t->system && t->system[0])
		snprintf(name, sizeof(name), "%s:%s", t->system, t->name);
	else
		snprintf(name, sizeof(name), "%s", t->name);
	e = figs_entry(&f->list[PMDA_LIST_EVENTS], name);
	if (!e || id > UINT16_MAX)
		return e;
	if (id >= f->type_cap) {
		size_t old = f->type_cap;

		if (array_grow((void **)&f->type_entry, &f->type_cap, id + 1, sizeof(uint32_t)))
			return e;
		memset(f->type_entry + old, 0, (f->type_cap - old) * sizeof(uint32_t));
	}
	f->type_entry[id] = (uint32_t)(e - f->list[PMDA_LIST_EVENTS].v) + 1;
	return e;
}

/* store_count_by over one CPU's window into f->tmp. Return: how many keys. */
static size_t figs_count(struct pmda_figs *f, enum store_key key, unsigned int cpu,
			 uint64_t t0, uint64_t t1)
{
	struct store_filter sf = { .t0 = t0, .t1 = t1, .pid = -1, .cpu = (int32_t)cpu };
	size_t n;

	for (;;) {
		n = store_count_by(f->a->st, key, &sf, f->tmp, f->tmp_cap);
		if (n <= f->tmp_cap)
			return n;
		if (array_grow((void **)&f->tmp, &f->tmp_cap, n + n / 2, sizeof(*f->tmp)))
			return f->tmp_cap;
	}
}

/* One CPU: its new events by type, its tasks, its counters. */
static void figs_cpu(struct pmda_figs *f, unsigned int cpu)
{
	struct figs_cursor *c = &f->cur[cpu];
	struct pmda_cpu *pc = &f->cpu[cpu];
	struct ktop_event ev;
	struct store_stats ss;
	struct batch_lost bl;
	uint64_t first, end, t0, t1;
	size_t n;

	batch_lost_read(f->a, cpu, &bl);
	pc->lost = bl.total;
	pc->lost_kernel = bl.why[STORE_LOST_KERNEL];
	pc->lost_ktop = bl.why[STORE_LOST_KTOP];
	memcpy(pc->flags, bl.cs.flags, sizeof(pc->flags));

	store_cpu_range(f->a->st, cpu, &first, &end);
	pc->events = end;
	if (end <= c->next_seq)
		return;
	c->next_seq = end;
	if (store_get(f->a->st, cpu, end - 1, &ev)) {
		/* evicted already: the newest time the CPU stream has seen */
		store_get_cpu_stats(f->a->st, cpu, &ss);
		ev.ts = ss.last_ts;
	}
	t0 = c->any ? c->last_ts + 1 : 0;
	t1 = ev.ts;
	if (t1 > c->last_ts || !c->any)
		c->last_ts = t1;
	c->any = true;
	if (t0 > t1)
		return;
	n = figs_count(f, STORE_KEY_TYPE, cpu, t0, t1);
	for (size_t i = 0; i < n && i < f->tmp_cap; i++) {
		struct pmda_named *e = figs_type(f, f->tmp[i].key);

		if (e)
			e->count += f->tmp[i].count;
	}
	n = figs_count(f, STORE_KEY_PID, cpu, t0, t1);
	if (n > f->tmp_cap)
		n = f->tmp_cap;
	if (n && !array_grow((void **)&f->pids, &f->pids_cap, f->npids + n, sizeof(*f->pids))) {
		memcpy(f->pids + f->npids, f->tmp, n * sizeof(*f->pids));
		f->npids += n;
	}
}

/* The tasks of this update: the per-CPU counts merged, the first PMDA_TOP_TASKS kept. */
static void figs_tasks(struct pmda_figs *f, double dt)
{
	f->ntasks = 0;
	f->npids = store_counts_merge(f->pids, f->npids);
	for (size_t i = 0; i < f->npids && f->ntasks < PMDA_TOP_TASKS; i++) {
		struct pmda_task *t = &f->tasks[f->ntasks++];
		int32_t pid = (int32_t)f->pids[i].key;
		t->pid = pid;
		snprintf(t->comm, sizeof(t->comm), "%s", store_task_name(f->a->st, pid));
		t->events = f->pids[i].count;
		t->rate = dt > 0 ? (double)t->events / dt : 0;
	}
	f->npids = 0;
}

static const enum latency_series lat_series[PMDA_LAT_NR] = {
	[PMDA_LAT_IRQ] = LATENCY_TL_IRQ,
	[PMDA_LAT_THREAD] = LATENCY_TL_THREAD,
	[PMDA_LAT_USER] = LATENCY_TL_USER,
	[PMDA_LAT_OS_SAMPLE] = LATENCY_OS_SAMPLE,
	[PMDA_LAT_OS_NOISE] = LATENCY_OS_NOISE,
};

/* The newest whole second's maximum of @s on @cpu (latency_spark's last full slot). */
static uint64_t figs_recent(const struct latency *l, int cpu, enum latency_series s)
{
	uint64_t v[2] = { 0, 0 };
	int n = latency_spark(l, cpu, s, v, 2, NULL);

	return n >= 2 ? v[0] : 0;
}

static void figs_latency(struct pmda_figs *f)
{
	const struct latency *l;
	struct latency_row row;

	batch_tracers_update(f->bt);
	l = batch_tracers_latency(f->bt);
	if (!l)
		return;
	for (unsigned int cpu = 0; cpu < f->ncpus; cpu++) {
		struct pmda_cpu *pc = &f->cpu[cpu];

		if (!latency_cpu_seen(l, cpu) || latency_row(l, (int)cpu, &row))
			continue;
		pc->lat_seen = true;
		for (int i = PMDA_LAT_IRQ; i <= PMDA_LAT_USER; i++) {
			pc->lat_count[i] = row.tl[i].count;
			pc->lat_sum[i] = row.tl[i].sum;
			pc->lat_max[i] = row.tl[i].max;
		}
		pc->lat_count[PMDA_LAT_OS_SAMPLE] = row.os_samples;
		pc->lat_sum[PMDA_LAT_OS_SAMPLE] = row.os_noise;
		pc->lat_max[PMDA_LAT_OS_SAMPLE] = row.os_max_single;
		pc->lat_max[PMDA_LAT_OS_NOISE] = row.os_max_noise;
		pc->os_runtime = row.os_runtime;
		pc->os_noise = row.os_noise;
		for (int i = 0; i < PMDA_LAT_NR; i++)
			pc->lat_recent[i] = figs_recent(l, (int)cpu, lat_series[i]);
	}
}

/* BPF: per-CPU counters, the run-queue histogram, syscalls, irqs. */
static void figs_bpf(struct pmda_figs *f)
{
	struct bpfstats *bs = app_bpf(f->a);
	struct bpfstats_syscall sc[PMDA_MAX_SYSCALLS];
	struct bpfstats_irq irq[PMDA_MAX_IRQS];
	struct bpfstats_hist h;
	double p99 = 0;
	size_t n;

	f->bpf_ok = bs != NULL;
	if (!bs)
		return;
	for (unsigned int cpu = 0; cpu < f->ncpus; cpu++) {
		struct bpfstats_cpu bc;
		struct pmda_cpu *pc = &f->cpu[cpu];

		if (bpfstats_cpu_totals(bs, (int)cpu, &bc))
			continue;
		pc->ctxsw = bc.ctxsw;
		pc->runq_n = bc.runq_n;
		pc->hardirq_ns = bc.hardirq_ns;
		pc->softirq_ns = bc.softirq_ns;
	}
	if (!bpfstats_runq_hist(bs, -1, 0, &h)) {
		memset(f->runq_hist, 0, sizeof(f->runq_hist));
		for (unsigned int k = 0; k < BPFSTATS_SLOTS; k++)
			f->runq_hist[k < PMDA_HIST_BUCKETS ? k : PMDA_HIST_BUCKETS - 1] +=
				h.slot[k];
	}
	if (bpfstats_series(bs, BPFSTATS_RUNQ_P99_US, -1, &p99, NULL, 1) == 1)
		f->runq_p99 = (uint64_t)(p99 * 1000.0);
	n = bpfstats_syscalls(bs, -1, 0, sc, PMDA_MAX_SYSCALLS);
	for (size_t i = 0; i < n && i < PMDA_MAX_SYSCALLS; i++) {
		struct pmda_named *e = figs_entry(&f->list[PMDA_LIST_SYSCALLS], sc[i].name);

		if (e) {
			e->count = sc[i].h.count;
			e->ns = sc[i].h.sum_ns;
		}
	}
	n = bpfstats_irqs(bs, -1, 0, irq, PMDA_MAX_IRQS);
	for (size_t i = 0; i < n && i < PMDA_MAX_IRQS; i++) {
		char name[PMDA_NAME_MAX];
		struct pmda_named *e;

		snprintf(name, sizeof(name), "%s:%s", irq[i].soft ? "softirq" : "hardirq",
			 irq[i].name[0] ? irq[i].name : "?");
		e = figs_entry(&f->list[PMDA_LIST_IRQS], name);
		if (e) {
			e->count = irq[i].count;
			e->ns = irq[i].ns;
		}
	}
}

/* ktop's probes: the kernel's hit count, or (fprobes, eprobes) the events counted. */
static void figs_probes(struct pmda_figs *f)
{
	struct probe_info pi[PMDA_MAX_PROBES];
	unsigned int n;

	if (!(app_flags(f->a) & SOURCE_KERNEL) || !f->a->opts.nprobes)
		return;
	n = app_probe_list(f->a, pi, PMDA_MAX_PROBES);
	for (unsigned int i = 0; i < n; i++) {
		char name[PMDA_NAME_MAX];
		struct pmda_named *e, *ev;

		snprintf(name, sizeof(name), "%s", pi[i].def->event);
		e = figs_entry(&f->list[PMDA_LIST_PROBES], name);
		if (!e)
			continue;
		if (pi[i].have_hits) {
			e->count = pi[i].hits;
		} else {
			snprintf(name, sizeof(name), "%s:%s", pi[i].def->group, pi[i].def->event);
			ev = figs_entry(&f->list[PMDA_LIST_EVENTS], name);
			e->count = ev ? ev->count : 0;
		}
		e->detail = intern_str(f->probe_lines, intern_id(f->probe_lines, pi[i].def->line,
								   strlen(pi[i].def->line)));
	}
}

#define NET_LAG_NS	(300ull * 1000 * 1000)	/* as --batch's tracer views: behind "now" */
#define NET_DROPS_MAX	256

/*
 * The network model, once the store knows a network event (its schema has
 * one of net_event_names): live, the formats' symbol tables (drop reasons,
 * states) from tracefs. Then each update reads what came since.
 */
static void figs_net(struct pmda_figs *f)
{
	struct net_drop_row drops[NET_DROPS_MAX];
	size_t n;

	if (!f->net) {
		bool any = false;

		for (int i = 0; net_event_names[i] && !any; i++) {
			const char *c = strchr(net_event_names[i], ':');
			char sys[32];

			snprintf(sys, sizeof(sys), "%.*s", (int)(c - net_event_names[i]),
				 net_event_names[i]);
			any = schema_find(store_schema(f->a->st), sys, c + 1) >= 0;
		}
		if (!any)
			return;
		f->net = net_new(f->a->st, NULL);
		if (!f->net)
			return;
		for (int i = 0; f->a->ft.tracefs[0] && net_event_names[i]; i++) {
			const char *c = strchr(net_event_names[i], ':');
			char path[4096], sys[32], *text;

			snprintf(sys, sizeof(sys), "%.*s", (int)(c - net_event_names[i]),
				 net_event_names[i]);
			snprintf(path, sizeof(path), "%s/events/%s/%s/format", f->a->ft.tracefs, sys,
				 c + 1);
			text = file_read_text(path);
			if (text)
				net_load_format(f->net, sys, c + 1, text);
			free(text);
		}
	}
	net_update(f->net, app_feed_end(f->a, NET_LAG_NS));
	net_totals(f->net, &f->net_tot);
	n = net_drops(f->net, NET_DROPS_BY_REASON, drops, NET_DROPS_MAX);
	for (size_t i = 0; i < n && i < NET_DROPS_MAX; i++) {
		struct pmda_named *e = figs_entry(&f->list[PMDA_LIST_NETDROPS],
						  drops[i].reason_name && *drops[i].reason_name ?
						  drops[i].reason_name : "unknown");

		if (e)
			e->count = drops[i].count;
	}
}

/*
 * An instance name for a measure: PCP wants names unique up to their first
 * space, so the title's spaces go: "sched:sched_waking->sched:sched_switch
 * _on_pid=next_pid" (spaces beside "->", "=", "," dropped, others '_').
 */
static void agg_inst_name(const char *title, char *buf, size_t len)
{
	size_t o = 0;

	for (const char *p = title; *p && o + 1 < len; p++) {
		if (*p != ' ') {
			buf[o++] = *p;
			continue;
		}
		while (p[1] == ' ')
			p++;
		if (!o || strchr("-=,<>!", buf[o - 1]) || strchr("-=,<>!", p[1]))
			continue;
		buf[o++] = '_';
	}
	buf[o] = '\0';
}

/* The in-kernel aggregations (--latency, --sql, --hist): their last poll. */
static void figs_agg(struct pmda_figs *f)
{
	struct agg_set *set = app_agg(f->a);
	unsigned int n = set ? agg_set_count(set) : 0;

	for (unsigned int i = 0; i < n; i++) {
		struct agg_result r = { 0 };
		char name[PMDA_NAME_MAX];
		struct pmda_named *e;
		struct figs_agg *g;
		size_t idx, had;

		if (agg_set_result(set, i, &r))
			continue;
		agg_inst_name(r.title, name, sizeof(name));
		had = f->list[PMDA_LIST_LATENCIES].n;
		e = figs_entry(&f->list[PMDA_LIST_LATENCIES], name);
		if (!e) {
			agg_result_clear(&r);
			continue;
		}
		idx = (size_t)(e - f->list[PMDA_LIST_LATENCIES].v);
		if (idx >= f->agg_cap &&
		    array_grow((void **)&f->agg, &f->agg_cap, idx + 1, sizeof(*f->agg))) {
			agg_result_clear(&r);
			continue;
		}
		g = &f->agg[idx];
		if (idx >= had)
			memset(g, 0, sizeof(*g));
		e->count = r.count;
		e->ns = r.kind == AGG_LATENCY ? r.sum_ns : 0;
		e->max = r.kind == AGG_LATENCY ? r.max_ns : 0;
		e->dropped = r.dropped;
		e->detail = intern_str(f->agg_titles, intern_id(f->agg_titles, r.title,
								 strlen(r.title)));
		g->latency = r.kind == AGG_LATENCY;
		g->unit_ns = r.unit_ns ? r.unit_ns : 1;
		memset(g->bucket, 0, sizeof(g->bucket));
		for (unsigned int b = 0; b < AGG_BUCKETS; b++)
			g->bucket[b < PMDA_HIST_BUCKETS ? b : PMDA_HIST_BUCKETS - 1] += r.bucket[b];
		agg_result_clear(&r);
	}
}

bool pmda_figs_agg_hist(const struct pmda_figs *f, size_t i, uint64_t *out)
{
	if (i >= f->list[PMDA_LIST_LATENCIES].n || i >= f->agg_cap || !f->agg[i].latency)
		return false;
	memcpy(out, f->agg[i].bucket, sizeof(f->agg[i].bucket));
	return true;
}

bool pmda_agg_hist_name(const struct pmda_figs *f, size_t i, unsigned int b, char *buf,
			size_t len, uint64_t *lo, uint64_t *hi)
{
	uint64_t u;

	if (i >= f->list[PMDA_LIST_LATENCIES].n || i >= f->agg_cap || b >= PMDA_HIST_BUCKETS)
		return false;
	u = f->agg[i].unit_ns ? f->agg[i].unit_ns : 1;
	/*
	 * bucket b: values v of the unit with 2^(b-1) < v <= 2^b; b = 0: 0 and 1;
	 * in whole ns: the first ns of unit 2^(b-1) + 1 to the last ns of unit 2^b
	 */
	agg_bucket_bounds(f->agg[i].unit_ns, b, lo, hi);
	*lo = b ? *lo + u : 0;
	*hi += u - 1;
	snprintf(buf, len, "%s/%llu-%llu", f->list[PMDA_LIST_LATENCIES].v[i].name,
		 (unsigned long long)*lo, (unsigned long long)*hi);
	return true;
}

bool pmda_figs_net(const struct pmda_figs *f, struct pmda_net *out)
{
	memset(out, 0, sizeof(*out));
	if (!f->net)
		return false;
	out->opened = f->net_tot.opened;
	out->open = f->net_tot.open;
	out->retransmits = f->net_tot.retransmits;
	out->resets = f->net_tot.resets;
	out->drops = f->net_tot.drops;
	return true;
}

void pmda_figs_update(struct pmda_figs *f, uint64_t now_ns)
{
	double dt;

	if (!f->a->st)
		return;
	dt = f->prev_ns && now_ns > f->prev_ns ? (double)(now_ns - f->prev_ns) / 1e9 : 0;
	if (!f->prev_ns)
		dt = now_ns > f->a->start_ns ? (double)(now_ns - f->a->start_ns) / 1e9 : 0;
	f->prev_ns = now_ns;
	for (unsigned int cpu = 0; cpu < f->ncpus; cpu++)
		figs_cpu(f, cpu);
	figs_tasks(f, dt);
	figs_latency(f);
	figs_bpf(f);
	figs_probes(f);
	figs_net(f);
	figs_agg(f);
	f->updates++;
}

uint64_t pmda_figs_updates(const struct pmda_figs *f)
{
	return f->updates;
}

unsigned int pmda_figs_ncpus(const struct pmda_figs *f)
{
	return f->ncpus;
}

const struct pmda_cpu *pmda_figs_cpu(const struct pmda_figs *f, unsigned int cpu)
{
	return cpu < f->ncpus ? &f->cpu[cpu] : NULL;
}

void pmda_figs_totals(const struct pmda_figs *f, struct pmda_totals *out)
{
	struct store_stats ss;

	memset(out, 0, sizeof(*out));
	for (unsigned int cpu = 0; cpu < f->ncpus; cpu++) {
		out->events += f->cpu[cpu].events;
		out->lost += f->cpu[cpu].lost;
	}
	if (!f->a->st)
		return;
	store_get_stats(f->a->st, &ss);
	out->store_bytes = ss.bytes + ss.lost_bytes + ss.tables;
	out->store_limit = ss.limit;
	out->store_held = ss.events;
	out->store_evicted = ss.evicted;
}

bool pmda_figs_has_bpf(const struct pmda_figs *f)
{
	return f->bpf_ok;
}

bool pmda_figs_has_latency(const struct pmda_figs *f)
{
	return batch_tracers_latency(f->bt) != NULL;
}

size_t pmda_figs_list(const struct pmda_figs *f, enum pmda_list which,
		      const struct pmda_named **out)
{
	if ((unsigned int)which >= PMDA_LIST_NR) {
		*out = NULL;
		return 0;
	}
	*out = f->list[which].v;
	return f->list[which].n;
}

size_t pmda_figs_tasks(const struct pmda_figs *f, const struct pmda_task **out)
{
	*out = f->tasks;
	return f->ntasks;
}

bool pmda_figs_hist(const struct pmda_figs *f, int which, uint64_t *out)
{
	uint64_t b[64];
	const struct latency *l;
	int n;

	memset(out, 0, PMDA_HIST_BUCKETS * sizeof(*out));
	if (which < 0) {
		if (!f->bpf_ok)
			return false;
		memcpy(out, f->runq_hist, sizeof(f->runq_hist));
		return true;
	}
	l = batch_tracers_latency(f->bt);
	if (!l || which >= PMDA_LAT_NR)
		return false;
	n = latency_hist(l, -1, lat_series[which], b, 64);
	if (n < 0)
		return true;	/* no sample yet: every bucket 0 */
	for (int i = 0; i < n; i++)
		out[i < PMDA_HIST_BUCKETS ? i : PMDA_HIST_BUCKETS - 1] += b[i];
	return true;
}

uint64_t pmda_figs_runq_p99(const struct pmda_figs *f)
{
	return f->runq_p99;
}

void pmda_hist_name(unsigned int i, char *buf, size_t len)
{
	uint64_t lo, hi;

	series_hist_slot_bounds(i, &lo, &hi);
	snprintf(buf, len, "%llu-%llu", (unsigned long long)lo, (unsigned long long)hi);
}
