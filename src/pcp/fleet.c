// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fleet (see fleet.h): PCP clients of ktop's agents.
 *
 * Each host keeps the previous sample of the counters it rates (events,
 * lost, events by name, probe hits, per-CPU events, lost and flags) by PCP
 * instance, and the names it needed once (a CPU instance's number, an
 * event instance's name). Live, a host's thread owns its PCP context (libpcp
 * keeps the current context per thread) and publishes a copy of its row and
 * CPUs under the fleet's lock after every fetch.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/err.h"
#include "lib/hashmap.h"
#include "fleet.h"
#include "pcplib.h"

const char *const fleet_flag_names[FLEET_NFLAGS] = {
	"irqs_off", "need_resched", "hardirq", "softirq", "nmi", "preempt", "migrate_disable",
};

#ifdef KTOP_HAVE_PCP

#define P	pcplib()

/* The metrics a row is made of, in the order they are fetched. */
enum fm {
	FM_STATUS, FM_TRACER, FM_EVENTS, FM_LOST, FM_EVENT_COUNT, FM_TL_IRQ, FM_TL_THREAD,
	FM_OS_MAX, FM_RUNQ_P99, FM_PROBE_HITS, FM_NET_DROPS, FM_CPU_EVENTS, FM_CPU_LOST,
	FM_FLAG0, FM_FLAG_LAST = FM_FLAG0 + FLEET_NFLAGS - 1,
	FM_NR,
};

static const char *const fm_names[FM_NR] = {
	[FM_STATUS] = "ktop.agent.status", [FM_TRACER] = "ktop.agent.tracer",
	[FM_EVENTS] = "ktop.events.total", [FM_LOST] = "ktop.events.lost",
	[FM_EVENT_COUNT] = "ktop.event.count",
	[FM_TL_IRQ] = "ktop.timerlat.irq.interval_max",
	[FM_TL_THREAD] = "ktop.timerlat.thread.interval_max",
	[FM_OS_MAX] = "ktop.osnoise.interval_max", [FM_RUNQ_P99] = "ktop.bpf.runq.p99",
	[FM_PROBE_HITS] = "ktop.probe.hits", [FM_NET_DROPS] = "ktop.net.drops",
	[FM_CPU_EVENTS] = "ktop.cpu.events",
	[FM_CPU_LOST] = "ktop.cpu.lost",
	[FM_FLAG0 + 0] = "ktop.cpu.flags.irqs_off", [FM_FLAG0 + 1] = "ktop.cpu.flags.need_resched",
	[FM_FLAG0 + 2] = "ktop.cpu.flags.hardirq", [FM_FLAG0 + 3] = "ktop.cpu.flags.softirq",
	[FM_FLAG0 + 4] = "ktop.cpu.flags.nmi", [FM_FLAG0 + 5] = "ktop.cpu.flags.preempt",
	[FM_FLAG0 + 6] = "ktop.cpu.flags.migrate_disable",
};

struct cpu_prev {
	bool		have;
	uint64_t	ev, lost, flags[FLEET_NFLAGS];
};

struct fleet_host {
	struct fleet		*f;
	size_t			idx;
	char			spec[128];
	int			ctx;		/* -1: not connected */
	pmID			ids[FM_NR];	/* PM_ID_NULL: the agent has no such metric */
	pmDesc			desc[FM_NR];
	pthread_t		th;
	bool			started;
	/* the previous sample */
	bool			have_prev;
	double			prev_t;
	uint64_t		prev_events, prev_lost, prev_probes, prev_drops;
	struct hmap		prev_event;	/* event inst + 1 -> count */
	struct hmap		cpu_of;		/* cpu inst + 1 -> cpu + 1 */
	struct cpu_prev		*cpu_prev;	/* FLEET_MAX_CPUS */
	uint32_t		top_inst;	/* the top event's instance + 1, its name cached */
	char			top_name[96];
	/* the newest, built here and published under f->lock */
	struct fleet_row	row;
	struct fleet_cpu	*cpus;
	size_t			ncpus;
};

struct fleet {
	bool			archive;
	uint64_t		interval_ns;
	size_t			n;
	struct fleet_host	h[FLEET_MAX_HOSTS];
	pthread_mutex_t		lock;
	pthread_cond_t		cond;
	bool			stop;
	uint64_t		generation;
	int			wake_fd;
	/* published copies */
	struct fleet_row	rows[FLEET_MAX_HOSTS];
	struct fleet_cpu	*cpus[FLEET_MAX_HOSTS];
	size_t			ncpus[FLEET_MAX_HOSTS];
};

static void host_why(struct fleet_host *h, const char *what, int code)
{
	char e[PM_MAXERRMSGLEN];

	snprintf(h->row.why, sizeof(h->row.why), "%s: %s", what, pcplib_err(code, e, sizeof(e)));
}

static void host_disconnect(struct fleet_host *h)
{
	if (h->ctx >= 0)
		P->pmDestroyContext(h->ctx);
	h->ctx = -1;
	h->have_prev = false;
	hmap_clear(&h->prev_event);
	hmap_clear(&h->cpu_of);
	h->top_inst = 0;
	if (h->cpu_prev)
		memset(h->cpu_prev, 0, FLEET_MAX_CPUS * sizeof(*h->cpu_prev));
}

/* Look up the names and descriptors once per connection. Return: 0, or a PCP error. */
static int host_lookup(struct fleet_host *h)
{
	int found = 0;

	for (int i = 0; i < FM_NR; i++) {
		const char *name = fm_names[i];
		int ret = P->pmLookupName(1, &name, &h->ids[i]);

		if (ret < 0 || h->ids[i] == PM_ID_NULL ||
		    P->pmLookupDesc(h->ids[i], &h->desc[i]) < 0) {
			h->ids[i] = PM_ID_NULL;
			continue;
		}
		found++;
	}
	return found && h->ids[FM_EVENTS] != PM_ID_NULL ? 0 : PM_ERR_NAME;
}

static int host_connect(struct fleet_host *h)
{
	int ret;

	ret = P->pmNewContext(PM_CONTEXT_HOST, h->spec);
	if (ret < 0) {
		host_why(h, "pmcd does not answer", ret);
		return ret;
	}
	h->ctx = ret;
	ret = host_lookup(h);
	if (ret < 0) {
		snprintf(h->row.why, sizeof(h->row.why), "pmcd answers, but serves no ktop "
			 "metrics: install ktop's agent there (make install-pmda; ./Install)");
		host_disconnect(h);
		return ret;
	}
	return 0;
}

static bool val_u64(const struct fleet_host *h, int m, const pmValueSet *vs, int j,
		    uint64_t *out)
{
	pmAtomValue a;

	if (P->pmExtractValue(vs->valfmt, &vs->vlist[j], h->desc[m].type, &a, PM_TYPE_U64) < 0)
		return false;
	*out = a.ull;
	return true;
}

static void val_str(const struct fleet_host *h, int m, const pmValueSet *vs, char *buf,
		    size_t len)
{
	pmAtomValue a;

	buf[0] = '\0';
	if (vs->numval < 1 ||
	    P->pmExtractValue(vs->valfmt, &vs->vlist[0], h->desc[m].type, &a, PM_TYPE_STRING) < 0)
		return;
	snprintf(buf, len, "%s", a.cp);
	free(a.cp);
}

/* A CPU instance's number (its name is "cpuN"), cached. Return: -1 when not one. */
static int host_cpu(struct fleet_host *h, int inst)
{
	uint64_t *v = hmap_get(&h->cpu_of, (uint64_t)inst + 1);
	char *name = NULL;
	unsigned int cpu;
	bool added;
	int ret;

	if (v)
		return (int)*v - 1;
	ret = h->f->archive ? P->pmNameInDomArchive(h->desc[FM_CPU_EVENTS].indom, inst, &name) :
	      P->pmNameInDom(h->desc[FM_CPU_EVENTS].indom, inst, &name);
	if (ret < 0 || sscanf(name, "cpu%u", &cpu) != 1 || cpu >= FLEET_MAX_CPUS)
		cpu = UINT32_MAX;
	free(name);
	v = hmap_put(&h->cpu_of, (uint64_t)inst + 1, &added);
	if (v)
		*v = cpu == UINT32_MAX ? 0 : (uint64_t)cpu + 1;
	return cpu == UINT32_MAX ? -1 : (int)cpu;
}

static double rate(uint64_t cur, uint64_t prev, double dt)
{
	return dt > 0 && cur >= prev ? (double)(cur - prev) / dt : 0;
}

/* Per-CPU figures from the three per-CPU counters' value sets. */
static void host_cpus(struct fleet_host *h, pmResult *r, const int *pos, double dt)
{
	uint64_t ev[FLEET_MAX_CPUS], lost[FLEET_MAX_CPUS], fl[FLEET_NFLAGS][FLEET_MAX_CPUS];
	bool seen[FLEET_MAX_CPUS] = { false };
	unsigned int top = 0;

	if (!h->cpu_prev)
		h->cpu_prev = calloc(FLEET_MAX_CPUS, sizeof(*h->cpu_prev));
	if (!h->cpus)
		h->cpus = calloc(FLEET_MAX_CPUS, sizeof(*h->cpus));
	if (!h->cpu_prev || !h->cpus || pos[FM_CPU_EVENTS] < 0)
		return;
	memset(lost, 0, sizeof(lost));
	memset(fl, 0, sizeof(fl));
	for (int m = FM_CPU_EVENTS; m <= FM_FLAG_LAST; m++) {
		const pmValueSet *vs;

		if (pos[m] < 0)
			continue;
		vs = r->vset[pos[m]];
		for (int j = 0; j < vs->numval; j++) {
			int cpu = host_cpu(h, vs->vlist[j].inst);
			uint64_t v;

			if (cpu < 0 || !val_u64(h, m, vs, j, &v))
				continue;
			if (m == FM_CPU_EVENTS) {
				ev[cpu] = v;
				seen[cpu] = true;
				if ((unsigned int)cpu + 1 > top)
					top = (unsigned int)cpu + 1;
			} else if (m == FM_CPU_LOST) {
				lost[cpu] = v;
			} else {
				fl[m - FM_FLAG0][cpu] = v;
			}
		}
	}
	h->ncpus = 0;
	for (unsigned int c = 0; c < top; c++) {
		struct cpu_prev *p = &h->cpu_prev[c];
		struct fleet_cpu *o;
		uint64_t dev;

		if (!seen[c])
			continue;
		o = &h->cpus[h->ncpus++];
		memset(o, 0, sizeof(*o));
		o->cpu = c;
		dev = p->have && ev[c] >= p->ev ? ev[c] - p->ev : 0;
		if (p->have) {
			o->events_per_s = rate(ev[c], p->ev, dt);
			o->lost_per_s = rate(lost[c], p->lost, dt);
			for (int i = 0; i < FLEET_NFLAGS; i++)
				o->flag_share[i] = dev && fl[i][c] >= p->flags[i] ?
					(double)(fl[i][c] - p->flags[i]) / (double)dev : 0;
		}
		p->have = true;
		p->ev = ev[c];
		p->lost = lost[c];
		for (int i = 0; i < FLEET_NFLAGS; i++)
			p->flags[i] = fl[i][c];
	}
	h->row.ncpus = (unsigned int)h->ncpus;
}

/* The instant per-CPU maxima: timerlat (irq or thread), osnoise. */
static void host_maxima(struct fleet_host *h, pmResult *r, const int *pos)
{
	for (int m = FM_TL_IRQ; m <= FM_OS_MAX; m++) {
		const pmValueSet *vs;

		if (pos[m] < 0)
			continue;
		vs = r->vset[pos[m]];
		for (int j = 0; j < vs->numval; j++) {
			int cpu = host_cpu(h, vs->vlist[j].inst);
			uint64_t v;

			if (!val_u64(h, m, vs, j, &v))
				continue;
			if (m == FM_OS_MAX) {
				h->row.has_osnoise = true;
				if (v > h->row.osnoise_max_ns)
					h->row.osnoise_max_ns = v;
				continue;
			}
			h->row.has_timerlat = true;
			if (v > h->row.timerlat_max_ns)
				h->row.timerlat_max_ns = v;
			for (size_t k = 0; cpu >= 0 && k < h->ncpus; k++) {
				if (h->cpus[k].cpu != (unsigned int)cpu)
					continue;
				h->cpus[k].has_timerlat = true;
				if (v > h->cpus[k].timerlat_max_ns)
					h->cpus[k].timerlat_max_ns = v;
			}
		}
	}
}

/* The event whose count grew most since the previous sample. */
static void host_top_event(struct fleet_host *h, pmResult *r, int pos, double dt)
{
	const pmValueSet *vs = r->vset[pos];
	uint64_t best = 0;
	int best_inst = -1;

	for (int j = 0; j < vs->numval; j++) {
		uint64_t v, *prev;
		bool added;

		if (!val_u64(h, FM_EVENT_COUNT, vs, j, &v))
			continue;
		prev = hmap_put(&h->prev_event, (uint64_t)vs->vlist[j].inst + 1, &added);
		if (!prev)
			continue;
		if (!added && v >= *prev && v - *prev > best) {
			best = v - *prev;
			best_inst = vs->vlist[j].inst;
		}
		*prev = v;
	}
	if (best_inst < 0)
		return;
	if (h->top_inst != (uint32_t)best_inst + 1) {
		char *name = NULL;
		int ret = h->f->archive ?
			P->pmNameInDomArchive(h->desc[FM_EVENT_COUNT].indom, best_inst, &name) :
			P->pmNameInDom(h->desc[FM_EVENT_COUNT].indom, best_inst, &name);

		snprintf(h->top_name, sizeof(h->top_name), "%s", ret >= 0 && name ? name : "?");
		free(name);
		h->top_inst = (uint32_t)best_inst + 1;
	}
	snprintf(h->row.top_event, sizeof(h->row.top_event), "%s", h->top_name);
	h->row.top_event_per_s = dt > 0 ? (double)best / dt : 0;
}

/* One fetch into h->row and h->cpus. Return: 0, PM_ERR_EOL (an archive's end), or an error. */
static int host_fetch(struct fleet_host *h)
{
	pmID ids[FM_NR];
	int pos[FM_NR], n = 0, ret;
	char status[200];
	pmResult *r;
	uint64_t v;
	double t, dt;

	for (int i = 0; i < FM_NR; i++) {
		pos[i] = h->ids[i] == PM_ID_NULL ? -1 : n;
		if (pos[i] >= 0)
			ids[n++] = h->ids[i];
	}
	if (P->pmUseContext(h->ctx) < 0)
		return PM_ERR_NOCONTEXT;
	ret = P->pmFetch(n, ids, &r);
	if (ret < 0)
		return ret;
	t = (double)r->timestamp.tv_sec + (double)r->timestamp.tv_usec / 1e6;
	dt = h->have_prev ? t - h->prev_t : 0;
	h->row.up = true;
	h->row.down_since = 0;
	h->row.why[0] = '\0';
	h->row.t = t;
	h->row.fetches++;
	h->row.rates = h->have_prev && dt > 0;
	h->row.has_timerlat = h->row.has_osnoise = h->row.has_runq = false;
	h->row.has_probes = h->row.has_drops = false;
	h->row.timerlat_max_ns = h->row.osnoise_max_ns = h->row.runq_p99_ns = 0;
	h->row.top_event[0] = '\0';
	h->row.top_event_per_s = 0;
	if (pos[FM_STATUS] >= 0) {
		val_str(h, FM_STATUS, r->vset[pos[FM_STATUS]], status, sizeof(status));
		if (status[0] && strcmp(status, "tracing"))
			snprintf(h->row.why, sizeof(h->row.why), "agent: %s", status);
	}
	if (pos[FM_TRACER] >= 0)
		val_str(h, FM_TRACER, r->vset[pos[FM_TRACER]], h->row.tracer, sizeof(h->row.tracer));
	if (r->vset[pos[FM_EVENTS]]->numval > 0 &&
	    val_u64(h, FM_EVENTS, r->vset[pos[FM_EVENTS]], 0, &v)) {
		h->row.events_per_s = h->have_prev ? rate(v, h->prev_events, dt) : 0;
		h->row.events_total = h->prev_events = v;
	}
	if (pos[FM_LOST] >= 0 && r->vset[pos[FM_LOST]]->numval > 0 &&
	    val_u64(h, FM_LOST, r->vset[pos[FM_LOST]], 0, &v)) {
		h->row.lost_per_s = h->have_prev ? rate(v, h->prev_lost, dt) : 0;
		h->row.lost_total = h->prev_lost = v;
	}
	if (pos[FM_EVENT_COUNT] >= 0)
		host_top_event(h, r, pos[FM_EVENT_COUNT], dt);
	if (pos[FM_RUNQ_P99] >= 0 && r->vset[pos[FM_RUNQ_P99]]->numval > 0 &&
	    val_u64(h, FM_RUNQ_P99, r->vset[pos[FM_RUNQ_P99]], 0, &v)) {
		h->row.has_runq = true;
		h->row.runq_p99_ns = v;
	}
	if (pos[FM_PROBE_HITS] >= 0 && r->vset[pos[FM_PROBE_HITS]]->numval > 0) {
		const pmValueSet *vs = r->vset[pos[FM_PROBE_HITS]];
		uint64_t sum = 0;

		for (int j = 0; j < vs->numval; j++)
			if (val_u64(h, FM_PROBE_HITS, vs, j, &v))
				sum += v;
		h->row.has_probes = true;
		h->row.probe_hits_per_s = h->have_prev ? rate(sum, h->prev_probes, dt) : 0;
		h->prev_probes = sum;
	}
	if (pos[FM_NET_DROPS] >= 0 && r->vset[pos[FM_NET_DROPS]]->numval > 0 &&
	    val_u64(h, FM_NET_DROPS, r->vset[pos[FM_NET_DROPS]], 0, &v)) {
		h->row.has_drops = true;
		h->row.drops_per_s = h->have_prev ? rate(v, h->prev_drops, dt) : 0;
		h->prev_drops = v;
	}
	host_cpus(h, r, pos, dt);
	host_maxima(h, r, pos);
	h->have_prev = true;
	h->prev_t = t;
	P->pmFreeResult(r);
	return 0;
}

static void fleet_publish(struct fleet *f, struct fleet_host *h)
{
	uint64_t one = 1;

	pthread_mutex_lock(&f->lock);
	f->rows[h->idx] = h->row;
	if (!h->row.up)
		f->ncpus[h->idx] = 0;	/* a down host has no CPU figures, not stale ones */
	else if (h->cpus && f->cpus[h->idx]) {
		memcpy(f->cpus[h->idx], h->cpus, h->ncpus * sizeof(*h->cpus));
		f->ncpus[h->idx] = h->ncpus;
	}
	f->generation++;
	pthread_mutex_unlock(&f->lock);
	if (f->wake_fd >= 0 && write(f->wake_fd, &one, sizeof(one)) < 0)
		return;
}

/* Live: connect, fetch; a host that fails is down, said why, tried again next time. */
static void host_poll(struct fleet_host *h)
{
	int ret;

	if (h->ctx < 0 && host_connect(h) < 0) {
		if (h->row.up || !h->row.down_since)
			h->row.down_since = clock_wall_ns();
		h->row.up = false;
		return;
	}
	ret = host_fetch(h);
	if (ret < 0) {
		host_why(h, "fetch failed", ret);
		if (h->row.up || !h->row.down_since)
			h->row.down_since = clock_wall_ns();
		h->row.up = false;
		host_disconnect(h);
	}
}

static void *host_thread(void *arg)
{
	struct fleet_host *h = arg;
	struct fleet *f = h->f;
	char name[16];
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	snprintf(name, sizeof(name), "ktop-pcp");
	pthread_setname_np(pthread_self(), name);
	for (;;) {
		struct timespec ts;
		uint64_t next = clock_wall_ns() + f->interval_ns;

		host_poll(h);
		fleet_publish(f, h);
		pthread_mutex_lock(&f->lock);
		ts.tv_sec = (time_t)(next / 1000000000ull);
		ts.tv_nsec = (long)(next % 1000000000ull);
		while (!f->stop && pthread_cond_timedwait(&f->cond, &f->lock, &ts) != ETIMEDOUT)
			;
		if (f->stop) {
			pthread_mutex_unlock(&f->lock);
			break;
		}
		pthread_mutex_unlock(&f->lock);
	}
	host_disconnect(h);
	return NULL;
}

/* --start/--finish/--origin on @h's archive, then interpolated steps of the interval. */
static int host_archive(struct fleet *f, struct fleet_host *h, const struct fleet_opts *o,
			char *err, size_t errlen)
{
	struct timeval start, end, rs, re, ro;
	pmLogLabel label;
	char *msg = NULL, e[PM_MAXERRMSGLEN];
	int ret;

	ret = P->pmNewContext(PM_CONTEXT_ARCHIVE, h->spec);
	if (ret < 0)
		return err_set(err, errlen, -ENOENT, "--pcp-archive %s: %s", h->spec,
			       pcplib_err(ret, e, sizeof(e)));
	h->ctx = ret;
	if (P->pmGetArchiveLabel(&label) < 0 || P->pmGetArchiveEnd(&end) < 0)
		return err_set(err, errlen, -EINVAL, "--pcp-archive %s: no label or end", h->spec);
	start = label.ll_start;
	if (P->pmParseTimeWindow(o->start, o->finish, NULL, o->origin, &start, &end, &rs, &re, &ro,
				 &msg) < 0) {
		ret = err_set(err, errlen, -EINVAL, "--pcp-archive %s: the time window: %s",
			      h->spec, msg ? msg : "not understood");
		free(msg);
		return ret;
	}
	free(msg);
	P->pmGetContextHostName_r(h->ctx, h->row.host, sizeof(h->row.host));
	ret = host_lookup(h);
	if (ret < 0)
		return err_set(err, errlen, -ENOENT, "--pcp-archive %s: it holds no ktop metrics "
			       "(ktop.events.total): log them with pmlogger", h->spec);
	ret = P->pmSetMode(PM_MODE_INTERP, &ro, (int)(f->interval_ns / 1000000ull));
	if (ret < 0)
		return err_set(err, errlen, -EINVAL, "--pcp-archive %s: %s", h->spec,
			       pcplib_err(ret, e, sizeof(e)));
	h->row.up = true;
	return 0;
}

struct fleet *fleet_new(const struct fleet_opts *o, char *err, size_t errlen)
{
	const char *list = o->hosts ? o->hosts : o->archives;
	struct fleet *f;
	int ret;

	if (pcplib_load(PCPLIB_CLIENT, err, errlen))
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f) {
		err_set(err, errlen, -ENOMEM, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	f->archive = !o->hosts;
	f->interval_ns = (uint64_t)((o->interval > 0 ? o->interval : 1.0) * 1e9);
	f->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	P->pmSetProgname("ktop");
	for (const char *p = list; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
		f->n++;
	if (f->n > FLEET_MAX_HOSTS) {
		err_set(err, errlen, -E2BIG, "%s: %zu %s, at most %d", o->hosts ? "--pcp" :
			"--pcp-archive", f->n, o->hosts ? "hosts" : "archives", FLEET_MAX_HOSTS);
		f->n = 0;
		fleet_free(f);
		return NULL;
	}
	f->n = 0;
	for (const char *p = list; p && *p && f->n < FLEET_MAX_HOSTS;) {
		size_t len = strcspn(p, ",");
		struct fleet_host *h = &f->h[f->n];

		h->f = f;
		h->idx = f->n++;
		h->ctx = -1;
		snprintf(h->spec, sizeof(h->spec), "%.*s", (int)len, p);
		memcpy(h->row.host, h->spec, sizeof(h->row.host));
		snprintf(h->row.why, sizeof(h->row.why), "connecting");
		f->cpus[h->idx] = calloc(FLEET_MAX_CPUS, sizeof(struct fleet_cpu));
		p += len + (p[len] == ',');
	}
	for (size_t i = 0; i < f->n; i++) {
		struct fleet_host *h = &f->h[i];

		if (f->archive) {
			if (host_archive(f, h, o, err, errlen)) {
				fleet_free(f);
				return NULL;
			}
			h->row.why[0] = '\0';
			f->rows[i] = h->row;
			continue;
		}
		f->rows[i] = h->row;
		ret = pthread_create(&h->th, NULL, host_thread, h);
		if (ret) {
			err_set(err, errlen, -ret, "cannot start a thread: %s", strerror(ret));
			fleet_free(f);
			return NULL;
		}
		h->started = true;
	}
	return f;
}

void fleet_free(struct fleet *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&f->lock);
	f->stop = true;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
	for (size_t i = 0; i < f->n; i++) {
		struct fleet_host *h = &f->h[i];

		if (h->started)
			pthread_join(h->th, NULL);
		else
			host_disconnect(h);
		hmap_destroy(&h->prev_event);
		hmap_destroy(&h->cpu_of);
		free(h->cpu_prev);
		free(h->cpus);
		free(f->cpus[i]);
	}
	if (f->wake_fd >= 0)
		close(f->wake_fd);
	pthread_mutex_destroy(&f->lock);
	pthread_cond_destroy(&f->cond);
	free(f);
}

int fleet_step(struct fleet *f)
{
	int live = 0;

	for (size_t i = 0; f->archive && i < f->n; i++) {
		struct fleet_host *h = &f->h[i];
		int ret;

		if (h->ctx < 0)
			continue;
		ret = host_fetch(h);
		if (ret == PM_ERR_EOL) {
			snprintf(h->row.why, sizeof(h->row.why), "end of archive");
			h->row.up = false;
			P->pmDestroyContext(h->ctx);
			h->ctx = -1;
		} else if (ret < 0) {
			host_why(h, "archive", ret);
		} else {
			live++;
		}
		fleet_publish(f, h);
	}
	return live;
}

#else /* !KTOP_HAVE_PCP */

struct fleet {
	int	unused;
};

struct fleet *fleet_new(const struct fleet_opts *o, char *err, size_t errlen)
{
	(void)o;
	pcplib_load(PCPLIB_CLIENT, err, errlen);
	return NULL;
}

void fleet_free(struct fleet *f)
{
	free(f);
}

int fleet_step(struct fleet *f)
{
	(void)f;
	return 0;
}

#endif

#ifdef KTOP_HAVE_PCP
bool fleet_is_archive(const struct fleet *f)
{
	return f->archive;
}

size_t fleet_nhosts(const struct fleet *f)
{
	return f->n;
}

int fleet_row(struct fleet *f, size_t i, struct fleet_row *out)
{
	if (i >= f->n)
		return -ENOENT;
	pthread_mutex_lock(&f->lock);
	*out = f->rows[i];
	pthread_mutex_unlock(&f->lock);
	return 0;
}

size_t fleet_cpus(struct fleet *f, size_t i, struct fleet_cpu *out, size_t max)
{
	size_t n;

	if (i >= f->n || !f->cpus[i])
		return 0;
	pthread_mutex_lock(&f->lock);
	n = f->ncpus[i] < max ? f->ncpus[i] : max;
	memcpy(out, f->cpus[i], n * sizeof(*out));
	pthread_mutex_unlock(&f->lock);
	return n;
}

uint64_t fleet_generation(struct fleet *f)
{
	uint64_t g;

	pthread_mutex_lock(&f->lock);
	g = f->generation;
	pthread_mutex_unlock(&f->lock);
	return g;
}

int fleet_wake_fd(const struct fleet *f)
{
	return f->wake_fd;
}
#else
bool fleet_is_archive(const struct fleet *f)
{
	(void)f;
	return false;
}

size_t fleet_nhosts(const struct fleet *f)
{
	(void)f;
	return 0;
}

int fleet_row(struct fleet *f, size_t i, struct fleet_row *out)
{
	(void)f; (void)i; (void)out;
	return -ENOENT;
}

size_t fleet_cpus(struct fleet *f, size_t i, struct fleet_cpu *out, size_t max)
{
	(void)f; (void)i; (void)out; (void)max;
	return 0;
}

uint64_t fleet_generation(struct fleet *f)
{
	(void)f;
	return 0;
}

int fleet_wake_fd(const struct fleet *f)
{
	(void)f;
	return -1;
}
#endif
