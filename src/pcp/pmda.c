// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `ktop --pmda`: the agent (see pmda.h).
 *
 * Startup, as pmcd expects of a daemon PMDA on a pipe: pmdaDaemon, pmdaInit
 * over the metric table (pmda_table.c), pmdaConnect on stdin/stdout. The
 * pipe's fds then move above 2 and stdin/stdout go to /dev/null and the log,
 * so nothing ktop prints can corrupt the protocol. Tracing starts after the
 * connection (pmcd.conf says "notready": pmcd does not ask until the agent
 * says PM_ERR_PMDAREADY), so a slow start (formats, BPF load) times nothing
 * out.
 *
 * The loop: poll(2) on pmcd's pipe, the signal fd and the update timer.
 * A PDU is answered at once (__pmdaMainPDU); a fetch or an instance request
 * first takes in what arrived when the figures are older than 100 ms, and the
 * timer does so every --interval, so the latency model and the per-interval
 * counts keep up whatever the clients' rate (pmlogger's default is 60 s).
 * pmcd closing the pipe, SIGTERM, SIGINT or SIGHUP end the loop; the
 * session then stops and the kernel is put back, as on every exit path.
 *
 * Instance domains are pmdaCache ones, loaded from and saved to PCP's
 * $PCP_VAR_DIR/config/pmda/DOMAIN.SERIAL: an event keeps its instance number
 * across restarts, so archives and clients see the same instance.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "app/app.h"
#include "kernel/session.h"
#include "lib/clock.h"
#include "lib/jsonw.h"
#include "lib/series.h"
#include "pcplib.h"
#include "pmda-local.h"
#include "pmda.h"

#ifdef KTOP_HAVE_PCP

#define P		pcplib()
#define STALE_NS	(100ull * 1000 * 1000)	/* a fetch refreshes figures older than this */

static struct pmda_agent {
	struct app		*a;
	struct pmda_figs	*figs;
	pmdaInterface		dispatch;
	pmdaMetric		*metrics;
	pmInDom			indom[PMDA_INDOM_NR];
	int			domain;
	bool			tracing;
	char			status[512];
	char			source[512];
	char			domain_labels[1024];
	uint64_t		fetches;
	uint64_t		updated_ns;	/* when the figures were last updated */
	size_t			synced[PMDA_LIST_NR];	/* list entries in the caches */
	unsigned int		cache_dirty;	/* bit per indom: save */
} ag;

/* ---- instance domains: pmdaCache ---------------------------------------- */

/* Add @name to @serial's cache (active), with @idx + 1 as its private data. */
static void ag_cache_add(int serial, const char *name, size_t idx)
{
	int inst, ret;
	void *priv;

	ret = P->pmdaCacheLookupName(ag.indom[serial], name, &inst, &priv);
	if (ret == PMDA_CACHE_ACTIVE && priv == (void *)(uintptr_t)(idx + 1))
		return;
	ret = P->pmdaCacheStore(ag.indom[serial], PMDA_CACHE_ADD, name,
				(void *)(uintptr_t)(idx + 1));
	if (ret < 0) {
		char e[PM_MAXERRMSGLEN];

		fprintf(stderr, "ktop: instance %s: %s\n", name, pcplib_err(ret, e, sizeof(e)));
		return;
	}
	ag.cache_dirty |= 1u << serial;
}

static const int list_indom[PMDA_LIST_NR] = {
	[PMDA_LIST_EVENTS] = PMDA_INDOM_EVENT,
	[PMDA_LIST_PROBES] = PMDA_INDOM_PROBE,
	[PMDA_LIST_SYSCALLS] = PMDA_INDOM_SYSCALL,
	[PMDA_LIST_IRQS] = PMDA_INDOM_IRQ,
	[PMDA_LIST_NETDROPS] = PMDA_INDOM_NETDROP,
	[PMDA_LIST_LATENCIES] = PMDA_INDOM_LATENCY,
};

/* The fixed instances: CPUs, task ranks, histogram buckets. */
static void ag_cache_fixed(void)
{
	char name[64];

	for (unsigned int cpu = 0; ag.figs && cpu < pmda_figs_ncpus(ag.figs); cpu++) {
		snprintf(name, sizeof(name), "cpu%u", cpu);
		ag_cache_add(PMDA_INDOM_CPU, name, cpu);
	}
	for (unsigned int r = 0; r < PMDA_TOP_TASKS; r++) {
		snprintf(name, sizeof(name), "%u", r + 1);
		ag_cache_add(PMDA_INDOM_TASK, name, r);
	}
	for (unsigned int b = 0; b < PMDA_HIST_BUCKETS; b++) {
		pmda_hist_name(b, name, sizeof(name));
		ag_cache_add(PMDA_INDOM_HIST, name, b);
	}
}

/* New names of the lists into their caches; the caches saved when they changed. */
static void ag_cache_sync(void)
{
	for (int l = 0; ag.figs && l < PMDA_LIST_NR; l++) {
		const struct pmda_named *v;
		size_t n = pmda_figs_list(ag.figs, (enum pmda_list)l, &v);

		for (size_t i = ag.synced[l]; i < n; i++) {
			ag_cache_add(list_indom[l], v[i].name, i);
			for (unsigned int b = 0; l == PMDA_LIST_LATENCIES && b < PMDA_HIST_BUCKETS;
			     b++) {
				char name[PMDA_NAME_MAX + 64];
				uint64_t lo, hi;

				if (pmda_agg_hist_name(ag.figs, i, b, name, sizeof(name), &lo, &hi))
					ag_cache_add(PMDA_INDOM_LATHIST, name,
						     i * PMDA_HIST_BUCKETS + b);
			}
		}
		ag.synced[l] = n;
	}
	for (int s = 0; s < PMDA_INDOM_NR; s++)
		if (ag.cache_dirty & (1u << s))
			P->pmdaCacheOp(ag.indom[s], PMDA_CACHE_SAVE);
	ag.cache_dirty = 0;
}

/* ---- figures ------------------------------------------------------------ */

static void ag_update(bool if_stale)
{
	uint64_t now = clock_mono_ns();

	if (!ag.figs || (if_stale && now - ag.updated_ns < STALE_NS))
		return;
	pmda_figs_update(ag.figs, now);
	ag.updated_ns = now;
	ag_cache_sync();
}

static uint64_t ag_cpu_time(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ull +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ull;
}

static int ag_str(pmAtomValue *atom, const char *s)
{
	/* pmdaFetch copies it before the next callback */
	atom->cp = (char *)(s ? s : "");
	return PMDA_FETCH_STATIC;
}

static int ag_u64(pmAtomValue *atom, uint64_t v)
{
	atom->ull = v;
	return PMDA_FETCH_STATIC;
}

/* Metrics without an instance domain. */
static int ag_fetch_single(const struct pmda_metric_def *m, pmAtomValue *atom)
{
	struct pmda_totals t;

	switch (m->val) {
	case V_STATUS:
		return ag_str(atom, ag.status);
	case V_VERSION:
		return ag_str(atom, KTOP_VERSION);
	case V_SOURCE:
		return ag_str(atom, ag.source);
	case V_FETCHES:
		return ag_u64(atom, ag.fetches);
	case V_CPU_TIME:
		return ag_u64(atom, ag_cpu_time());
	default:
		break;
	}
	if (!ag.tracing)
		return PMDA_FETCH_NOVALUES;
	switch (m->val) {
	case V_TRACER:
		return ag_str(atom, *app_tracer(ag.a) ? app_tracer(ag.a) : "nop");
	case V_MODE:
		return ag_str(atom, ag.a->mode_why);
	case V_INSTANCE:
		return ag_str(atom, app_instance(ag.a));
	case V_UPDATES:
		return ag_u64(atom, pmda_figs_updates(ag.figs));
	case V_BPF_RUNQ_P99:
		if (!pmda_figs_has_bpf(ag.figs))
			return PMDA_FETCH_NOVALUES;
		return ag_u64(atom, pmda_figs_runq_p99(ag.figs));
	case V_NET_OPENED:
	case V_NET_OPEN:
	case V_NET_RETRANS:
	case V_NET_RESETS:
	case V_NET_DROPS: {
		struct pmda_net n;

		if (!pmda_figs_net(ag.figs, &n))
			return PMDA_FETCH_NOVALUES;
		return ag_u64(atom, m->val == V_NET_OPENED ? n.opened : m->val == V_NET_OPEN ?
			      n.open : m->val == V_NET_RETRANS ? n.retransmits :
			      m->val == V_NET_RESETS ? n.resets : n.drops);
	}
	default:
		break;
	}
	pmda_figs_totals(ag.figs, &t);
	switch (m->val) {
	case V_EVENTS:
		return ag_u64(atom, t.events);
	case V_LOST:
		return ag_u64(atom, t.lost);
	case V_STORE_BYTES:
		return ag_u64(atom, t.store_bytes);
	case V_STORE_LIMIT:
		return ag_u64(atom, t.store_limit);
	case V_STORE_HELD:
		return ag_u64(atom, t.store_held);
	case V_STORE_EVICTED:
		return ag_u64(atom, t.store_evicted);
	default:
		return PM_ERR_PMID;
	}
}

/* Per-CPU metrics. */
static int ag_fetch_cpu(const struct pmda_metric_def *m, unsigned int cpu, pmAtomValue *atom)
{
	const struct pmda_cpu *c = pmda_figs_cpu(ag.figs, cpu);
	bool bpf = pmda_figs_has_bpf(ag.figs);

	if (!c)
		return PM_ERR_INST;
	switch (m->val) {
	case V_CPU_EVENTS:
		return ag_u64(atom, c->events);
	case V_CPU_LOST:
		return ag_u64(atom, c->lost);
	case V_CPU_LOST_KERNEL:
		return ag_u64(atom, c->lost_kernel);
	case V_CPU_LOST_KTOP:
		return ag_u64(atom, c->lost_ktop);
	case V_CPU_FLAG:
		if (!(app_flags(ag.a) & SOURCE_KERNEL))
			return PMDA_FETCH_NOVALUES;	/* a recording's flags: not counted */
		return ag_u64(atom, c->flags[m->arg]);
	case V_BPF_CTXSW:
		return bpf ? ag_u64(atom, c->ctxsw) : PMDA_FETCH_NOVALUES;
	case V_BPF_RUNQ_N:
		return bpf ? ag_u64(atom, c->runq_n) : PMDA_FETCH_NOVALUES;
	case V_BPF_HARDIRQ:
		return bpf ? ag_u64(atom, c->hardirq_ns) : PMDA_FETCH_NOVALUES;
	case V_BPF_SOFTIRQ:
		return bpf ? ag_u64(atom, c->softirq_ns) : PMDA_FETCH_NOVALUES;
	default:
		break;
	}
	if (!c->lat_seen)
		return PMDA_FETCH_NOVALUES;
	switch (m->val) {
	case V_LAT_SAMPLES:
		return ag_u64(atom, c->lat_count[m->arg]);
	case V_LAT_TOTAL:
		return ag_u64(atom, c->lat_sum[m->arg]);
	case V_LAT_MAX:
		return ag_u64(atom, c->lat_max[m->arg]);
	case V_LAT_RECENT:
		return ag_u64(atom, c->lat_recent[m->arg]);
	case V_OS_RUNTIME:
		return ag_u64(atom, c->os_runtime);
	case V_OS_NOISE:
		return ag_u64(atom, c->os_noise);
	default:
		return PM_ERR_PMID;
	}
}

static int ag_fetch_cb(pmdaMetric *mdesc, unsigned int inst, pmAtomValue *atom)
{
	const struct pmda_metric_def *m = mdesc->m_user;
	const struct pmda_named *v;
	const struct pmda_task *t;
	uint64_t hist[PMDA_HIST_BUCKETS];
	size_t idx, n;
	char *name;
	void *priv;

	if (m->indom == PMDA_INDOM_NONE)
		return ag_fetch_single(m, atom);
	if (!ag.tracing)
		return PMDA_FETCH_NOVALUES;
	if (P->pmdaCacheLookup(ag.indom[m->indom], (int)inst, &name, &priv) !=
	    PMDA_CACHE_ACTIVE || !priv)
		return PM_ERR_INST;
	idx = (uintptr_t)priv - 1;
	switch (m->indom) {
	case PMDA_INDOM_CPU:
		return ag_fetch_cpu(m, (unsigned int)idx, atom);
	case PMDA_INDOM_TASK:
		n = pmda_figs_tasks(ag.figs, &t);
		if (idx >= n)
			return PMDA_FETCH_NOVALUES;
		if (m->val == V_TASK_PID) {
			atom->ul = (uint32_t)t[idx].pid;
			return PMDA_FETCH_STATIC;
		}
		if (m->val == V_TASK_COMM)
			return ag_str(atom, t[idx].comm);
		if (m->val == V_TASK_EVENTS)
			return ag_u64(atom, t[idx].events);
		atom->d = t[idx].rate;
		return PMDA_FETCH_STATIC;
	case PMDA_INDOM_HIST:
		if (!pmda_figs_hist(ag.figs, m->arg, hist) || idx >= PMDA_HIST_BUCKETS)
			return PMDA_FETCH_NOVALUES;
		return ag_u64(atom, hist[idx]);
	case PMDA_INDOM_LATHIST:
		if (!pmda_figs_agg_hist(ag.figs, idx / PMDA_HIST_BUCKETS, hist))
			return PMDA_FETCH_NOVALUES;
		return ag_u64(atom, hist[idx % PMDA_HIST_BUCKETS]);
	default:
		n = pmda_figs_list(ag.figs, (enum pmda_list)m->arg, &v);
		if (idx >= n)
			return PM_ERR_INST;
		if (m->val == V_PROBE_DEF || m->val == V_NAMED_DETAIL)
			return ag_str(atom, v[idx].detail);
		if (m->val == V_NAMED_MAX)
			return ag_u64(atom, v[idx].max);
		if (m->val == V_NAMED_DROPPED)
			return ag_u64(atom, v[idx].dropped);
		return ag_u64(atom, m->val == V_NAMED_NS ? v[idx].ns : v[idx].count);
	}
}

/* ---- the PDUs' handlers -------------------------------------------------- */

static int ag_fetch(int n, pmID *pmids, pmResult **resp, pmdaExt *ext)
{
	ag_update(true);
	ag.fetches++;
	return P->pmdaFetch(n, pmids, resp, ext);
}

static int ag_instance(pmInDom indom, int inst, char *name, pmInResult **res, pmdaExt *ext)
{
	ag_update(true);
	return P->pmdaInstance(indom, inst, name, res, ext);
}

static const struct pmda_metric_def *ag_metric(pmID id)
{
	unsigned int cl = P->pmID_cluster(id), it = P->pmID_item(id);

	for (unsigned int i = 0; i < pmda_nmetrics; i++)
		if (pmda_metrics[i].cluster == cl && pmda_metrics[i].item == it)
			return &pmda_metrics[i];
	return NULL;
}

static int ag_text(int ident, int type, char **buf, pmdaExt *ext)
{
	bool one = type & PM_TEXT_ONELINE;

	(void)ext;
	if (type & PM_TEXT_INDOM) {
		unsigned int s = P->pmInDom_serial((pmInDom)ident);

		if (s >= PMDA_INDOM_NR)
			return PM_ERR_TEXT;
		*buf = (char *)(one ? pmda_indoms[s].oneline : pmda_indoms[s].help);
		return 0;
	}
	const struct pmda_metric_def *m = ag_metric((pmID)ident);

	if (!m)
		return PM_ERR_TEXT;
	*buf = (char *)(one ? m->oneline : m->help);
	return 0;
}

/* Domain labels: the agent, its tracer, the kernel. */
static int ag_label(int ident, int type, pmLabelSet **lp, pmdaExt *ext)
{
	if (type == PM_LABEL_DOMAIN && ag.domain_labels[0])
		P->pmdaAddLabels(lp, "%s", ag.domain_labels);
	return P->pmdaLabel(ident, type, lp, ext);
}

/* A label {"@key":"@val"}, with "lower_ns"/"upper_ns" when @hi is not 0. */
static int ag_label_json(pmLabelSet **lp, const char *key, const char *val, uint64_t lo,
			 uint64_t hi)
{
	struct jsonw w;
	char *json;
	int ret;

	jsonw_init_buf(&w);
	jsonw_obj_open(&w);
	jsonw_key(&w, key);
	jsonw_str(&w, val ? val : "");
	if (hi) {
		jsonw_key(&w, "lower_ns");
		jsonw_u64(&w, lo);
		jsonw_key(&w, "upper_ns");
		jsonw_u64(&w, hi);
	}
	jsonw_obj_close(&w);
	json = jsonw_take(&w, NULL);
	ret = json ? P->pmdaAddLabels(lp, "%s", json) : 0;
	free(json);
	return ret;
}

/* Instance labels: a CPU's number, a probe's definition, a bucket's bounds, a measure. */
static int ag_label_inst(pmInDom indom, unsigned int inst, pmLabelSet **lp)
{
	unsigned int s = P->pmInDom_serial(indom);
	const struct pmda_named *v;
	struct jsonw w;
	char *name, *json;
	void *priv;
	size_t idx, n;
	int ret;

	if (s >= PMDA_INDOM_NR ||
	    P->pmdaCacheLookup(indom, (int)inst, &name, &priv) != PMDA_CACHE_ACTIVE || !priv)
		return 0;
	idx = (uintptr_t)priv - 1;
	if (s == PMDA_INDOM_CPU)
		return P->pmdaAddLabels(lp, "{\"cpu\":%zu}", idx);
	if (s == PMDA_INDOM_HIST) {
		uint64_t lo, hi;

		series_hist_slot_bounds((unsigned int)idx, &lo, &hi);
		return P->pmdaAddLabels(lp, "{\"lower_ns\":%llu,\"upper_ns\":%llu}",
					(unsigned long long)lo, (unsigned long long)hi);
	}
	if (s == PMDA_INDOM_LATHIST && ag.figs) {
		char bname[PMDA_NAME_MAX + 64];
		uint64_t lo, hi;

		n = pmda_figs_list(ag.figs, PMDA_LIST_LATENCIES, &v);
		if (idx / PMDA_HIST_BUCKETS >= n ||
		    !pmda_agg_hist_name(ag.figs, idx / PMDA_HIST_BUCKETS, idx % PMDA_HIST_BUCKETS,
					bname, sizeof(bname), &lo, &hi))
			return 0;
		return ag_label_json(lp, "measure", v[idx / PMDA_HIST_BUCKETS].detail, lo, hi);
	}
	if (s == PMDA_INDOM_LATENCY && ag.figs) {
		n = pmda_figs_list(ag.figs, PMDA_LIST_LATENCIES, &v);
		return idx < n ? ag_label_json(lp, "measure", v[idx].detail, 0, 0) : 0;
	}
	if (s != PMDA_INDOM_PROBE || !ag.figs)
		return 0;
	n = pmda_figs_list(ag.figs, PMDA_LIST_PROBES, &v);
	if (idx >= n || !v[idx].detail)
		return 0;
	jsonw_init_buf(&w);
	jsonw_obj_open(&w);
	jsonw_key(&w, "probe");
	jsonw_str(&w, v[idx].name);
	jsonw_key(&w, "definition");
	jsonw_str(&w, v[idx].detail);
	jsonw_obj_close(&w);
	json = jsonw_take(&w, NULL);
	ret = json ? P->pmdaAddLabels(lp, "%s", json) : 0;
	free(json);
	return ret;
}

/* ---- start and loop ------------------------------------------------------ */

static int ag_metrics_init(void)
{
	ag.metrics = calloc(pmda_nmetrics, sizeof(*ag.metrics));
	if (!ag.metrics)
		return -ENOMEM;
	for (int s = 0; s < PMDA_INDOM_NR; s++)
		ag.indom[s] = P->pmInDom_build((unsigned int)ag.domain, (unsigned int)s);
	for (unsigned int i = 0; i < pmda_nmetrics; i++) {
		const struct pmda_metric_def *m = &pmda_metrics[i];
		pmDesc *d = &ag.metrics[i].m_desc;

		ag.metrics[i].m_user = (void *)m;
		d->pmid = P->pmID_build((unsigned int)ag.domain, m->cluster, m->item);
		d->type = m->type;
		d->indom = m->indom == PMDA_INDOM_NONE ? PM_INDOM_NULL : ag.indom[m->indom];
		d->sem = m->sem;
		memset(&d->units, 0, sizeof(d->units));
		switch (m->unit) {
		case U_COUNT:
			d->units.dimCount = 1;
			break;
		case U_NSEC:
			d->units.dimTime = 1;
			d->units.scaleTime = PM_TIME_NSEC;
			break;
		case U_MSEC:
			d->units.dimTime = 1;
			d->units.scaleTime = PM_TIME_MSEC;
			break;
		case U_BYTE:
			d->units.dimSpace = 1;
			d->units.scaleSpace = PM_SPACE_BYTE;
			break;
		case U_PER_SEC:
			d->units.dimCount = 1;
			d->units.dimTime = -1;
			d->units.scaleTime = PM_TIME_SEC;
			break;
		default:
			break;
		}
	}
	return 0;
}

/*
 * The pipe to pmcd moves above 2; stdin reads /dev/null and stdout writes
 * the log (stderr), so a stray print cannot corrupt a PDU.
 */
static int ag_guard_fds(void)
{
	pmdaExt *ext = ag.dispatch.version.seven.ext;
	int in, out, null;

	in = fcntl(ext->e_infd, F_DUPFD_CLOEXEC, 3);
	out = fcntl(ext->e_outfd, F_DUPFD_CLOEXEC, 3);
	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (in < 0 || out < 0 || null < 0)
		return -errno;
	ext->e_infd = in;
	ext->e_outfd = out;
	if (dup2(null, STDIN_FILENO) < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		return -errno;
	close(null);
	return 0;
}

/* Start tracing (or open the recording); on failure, say why in ag.status. */
static void ag_start(struct app *a)
{
	struct utsname u;
	char err[512] = "";
	struct jsonw w;
	char *json;
	int ret;

	if (a->opts.input) {
		snprintf(ag.source, sizeof(ag.source), "recording %s", a->opts.input);
		ret = app_open_snapshot(a, a->opts.input, -1, APP_SNAP_SYNC, err, sizeof(err));
	} else {
		snprintf(ag.source, sizeof(ag.source), "live");
		ret = geteuid() ? -EPERM : app_start(a, err, sizeof(err));
		if (geteuid())
			snprintf(err, sizeof(err), "needs root to trace (tracefs and BPF are "
				 "root-only): pmcd starts its agents as root");
	}
	if (ret) {
		snprintf(ag.status, sizeof(ag.status), "%s", err[0] ? err : strerror(-ret));
		fprintf(stderr, "ktop: cannot trace: %s\n", ag.status);
		return;
	}
	ag.figs = pmda_figs_new(a);
	if (!ag.figs) {
		snprintf(ag.status, sizeof(ag.status), "out of memory");
		return;
	}
	ag.tracing = true;
	snprintf(ag.status, sizeof(ag.status), "tracing");
	fprintf(stderr, "ktop: tracing: %s\n", a->mode_why);
	ag_update(false);
	ag_cache_fixed();
	ag_cache_sync();
	jsonw_init_buf(&w);
	jsonw_obj_open(&w);
	jsonw_key(&w, "agent");
	jsonw_str(&w, "ktop");
	jsonw_key(&w, "tracer");
	jsonw_str(&w, *app_tracer(a) ? app_tracer(a) : "nop");
	if (!a->opts.input && !uname(&u)) {
		jsonw_key(&w, "kernel");
		jsonw_str(&w, u.release);
	}
	jsonw_obj_close(&w);
	json = jsonw_take(&w, NULL);
	if (json)
		snprintf(ag.domain_labels, sizeof(ag.domain_labels), "%s", json);
	free(json);
}

static void ag_loop(struct app *a)
{
	uint64_t interval = (uint64_t)(a->opts.interval * 1e9), next;

	if (!interval)
		interval = 1000000000ull;
	next = clock_mono_ns() + interval;
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = ag.dispatch.version.seven.ext->e_infd, .events = POLLIN },
			{ .fd = session_signal_fd(), .events = POLLIN },
		};
		uint64_t now = clock_mono_ns();
		int ms = now >= next ? 0 : (int)((next - now + 999999) / 1000000);

		if (session_signal_pending())
			break;
		if (poll(pfd, pfd[1].fd >= 0 ? 2 : 1, ms) < 0 && errno != EINTR)
			break;
		if (session_signal_pending())
			break;
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			/* pmcd closed the pipe (it stopped, or dropped us): EOF */
			if (P->__pmdaMainPDU(&ag.dispatch) < 0)
				break;
		}
		now = clock_mono_ns();
		if (now >= next) {
			if (ag.tracing)
				ag_update(false);
			next += interval;
			if (next <= now)
				next = now + interval;
		}
	}
}

int pmda_main(struct app *a)
{
	char err[512];
	uint64_t t0;
	int ret;

	if (isatty(STDIN_FILENO) || isatty(STDOUT_FILENO)) {
		fprintf(stderr, "ktop: --pmda is Performance Co-Pilot's agent: pmcd starts it "
			"(make install-pmda, then pminfo -f ktop), or dbpmda for a test\n");
		return 2;
	}
	if (pcplib_load(PCPLIB_CLIENT | PCPLIB_PMDA, err, sizeof(err))) {
		fprintf(stderr, "ktop: --pmda: %s\n", err);
		return 2;
	}
	memset(&ag, 0, sizeof(ag));
	ag.a = a;
	ag.domain = a->opts.pmda_domain ? a->opts.pmda_domain : PMDA_KTOP_DOMAIN;
	snprintf(ag.status, sizeof(ag.status), "starting");
	P->pmSetProgname("pmdaktop");
	P->pmdaDaemon(&ag.dispatch, PMDA_INTERFACE_7, "pmdaktop", ag.domain, "ktop.log", NULL);
	/* stderr to $PCP_LOG_DIR/pmcd/ktop.log, as PCP's agents log */
	P->pmdaOpenLog(&ag.dispatch);
	if (ag.dispatch.status) {
		fprintf(stderr, "ktop: --pmda: pmdaDaemon: %s\n",
			pcplib_err(ag.dispatch.status, err, sizeof(err)));
		return 1;
	}
	ret = ag_metrics_init();
	if (ret)
		return 1;
	ag.dispatch.version.seven.fetch = ag_fetch;
	ag.dispatch.version.seven.instance = ag_instance;
	ag.dispatch.version.seven.text = ag_text;
	ag.dispatch.version.seven.label = ag_label;
	P->pmdaSetFetchCallBack(&ag.dispatch, ag_fetch_cb);
	P->pmdaSetLabelCallBack(&ag.dispatch, ag_label_inst);
	P->pmdaInit(&ag.dispatch, NULL, 0, ag.metrics, (int)pmda_nmetrics);
	if (ag.dispatch.status) {
		fprintf(stderr, "ktop: --pmda: pmdaInit: %s\n",
			pcplib_err(ag.dispatch.status, err, sizeof(err)));
		free(ag.metrics);
		return 1;
	}
	for (int s = 0; s < PMDA_INDOM_NR; s++)
		P->pmdaCacheOp(ag.indom[s], PMDA_CACHE_LOAD);
	P->pmdaConnect(&ag.dispatch);
	if (ag.dispatch.status) {
		fprintf(stderr, "ktop: --pmda: pmdaConnect: %s\n",
			pcplib_err(ag.dispatch.status, err, sizeof(err)));
		free(ag.metrics);
		return 1;
	}
	ret = ag_guard_fds();
	if (ret) {
		fprintf(stderr, "ktop: --pmda: %s\n", strerror(-ret));
		free(ag.metrics);
		return 1;
	}
	/*
	 * pmcd's shutdown SIGKILLs an agent ~0.5 s after closing its pipe; putting
	 * the kernel back takes 80-260 ms here and may take longer on a loaded
	 * machine: a reaper cleans up at once after an agent killed midway.
	 */
	if (!a->opts.input && !geteuid()) {
		ret = app_reaper_start();
		if (ret)
			fprintf(stderr, "ktop: no reaper (%s): a killed agent's leftovers wait for "
				"the next ktop\n", strerror(-ret));
	}
	ag_start(a);
	/* only pmcd waits for it (pmcd.conf's notready); dbpmda would take it for an answer */
	if (a->opts.pmda_notready)
		P->pmdaSendError(&ag.dispatch, PM_ERR_PMDAREADY);
	ag_loop(a);
	fprintf(stderr, "ktop: stopping (%s)\n", session_signal_pending() ?
		strsignal(session_signal_pending()) : "pmcd closed the pipe");
	for (int s = 0; s < PMDA_INDOM_NR; s++)
		P->pmdaCacheOp(ag.indom[s], PMDA_CACHE_SAVE);
	t0 = clock_mono_ns();
	pmda_figs_free(ag.figs);
	ag.figs = NULL;
	app_stop(a);
	app_reaper_done();
	fprintf(stderr, "ktop: stopped in %.0f ms: tracing state put back\n",
		(double)(clock_mono_ns() - t0) / 1e6);
	free(ag.metrics);
	return 0;
}

#else /* !KTOP_HAVE_PCP */

int pmda_main(struct app *a)
{
	char err[512];

	(void)a;
	pcplib_load(PCPLIB_CLIENT | PCPLIB_PMDA, err, sizeof(err));
	fprintf(stderr, "ktop: --pmda: %s\n", err);
	return 2;
}

#endif
