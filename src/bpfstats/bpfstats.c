// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The BPF statistics poller: see bpfstats.h. One thread reads the kernel's
 * per-CPU maps into scratch buffers without the lock, then, under the lock,
 * rotates them into "current", computes the tick's deltas and series, merges
 * the task and irq tables and drains the outlier ring buffer.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include "bpfstats-local.h"
#include "lib/clock.h"
#include "lib/series.h"
#include "lib/strutil.h"
#include "kernel/features.h"
#include "lib/syscalls.h"

_Static_assert(BPFSTATS_SLOTS == KSTAT_SLOTS, "histogram slots differ");
_Static_assert(BPFSTATS_COMM_LEN == KSTAT_COMM_LEN, "comm length differs");

#define PRUNE_AFTER_TICKS	40	/* unchanged this long: is the task still there? */

static const char *const softirq_names[KSTAT_MAX_SOFTIRQS] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED",
	"HRTIMER", "RCU",
};

const char *bpfstats_syscall_name(uint32_t id)
{
	if (id >= KSTAT_MAX_SYSCALLS)
		return NULL;
	return syscall_name(id);
}

const char *bpfstats_metric_name(enum bpfstats_metric m)
{
	static const char *const names[BPFSTATS_METRIC_NR] = {
		[BPFSTATS_CTXSW]	= "ctxsw/s",
		[BPFSTATS_RUNQ_RATE]	= "runq/s",
		[BPFSTATS_RUNQ_AVG_US]	= "runq avg us",
		[BPFSTATS_RUNQ_P99_US]	= "runq p99 us",
		[BPFSTATS_HARDIRQ_PCT]	= "hardirq %",
		[BPFSTATS_SOFTIRQ_PCT]	= "softirq %",
		[BPFSTATS_SYSCALL_RATE]	= "syscalls/s",
	};

	return (unsigned int)m < BPFSTATS_METRIC_NR ? names[m] : "?";
}

uint64_t bpfstats_hist_quantile(const struct bpfstats_hist *h, double q)
{
	return series_hist_quantile(h->slot, BPFSTATS_SLOTS, q);
}

static void hist_from_kstat(struct bpfstats_hist *out, const struct kstat_hist *a,
			    const struct kstat_hist *b /* subtracted, or NULL */)
{
	unsigned int i;

	for (i = 0; i < BPFSTATS_SLOTS; i++)
		out->slot[i] += a->slot[i] - (b ? b->slot[i] : 0);
	out->count += a->count - (b ? b->count : 0);
	out->sum_ns += a->sum_ns - (b ? b->sum_ns : 0);
	if (!b && a->max_ns > out->max_ns)
		out->max_ns = a->max_ns;
}

static void hist_add(struct bpfstats_hist *out, const struct bpfstats_hist *a)
{
	unsigned int i;

	for (i = 0; i < BPFSTATS_SLOTS; i++)
		out->slot[i] += a->slot[i];
	out->count += a->count;
	out->sum_ns += a->sum_ns;
	if (a->max_ns > out->max_ns)
		out->max_ns = a->max_ns;
}

/* --- outliers: called by the ring buffer drain, lock held --- */

struct bpfstats_outlier *bpfstats_outlier_slot(struct bpfstats *bs)
{
	struct bpfstats_outlier *o;

	bs->outl_seq++;
	bs->outl_total++;
	o = &bs->outl[(bs->outl_seq - 1) % BPFSTATS_OUTLIERS_KEPT];
	o->seq = bs->outl_seq;
	return o;
}

static int bpfstats_on_outlier(void *ctx, const struct kstat_outlier *ko)
{
	struct bpfstats *bs = ctx;
	struct bpfstats_outlier *o;

	if (ko->ts < __atomic_load_n(&bs->outl_from, __ATOMIC_RELAXED))
		return 0;	/* before tracing started */
	o = bpfstats_outlier_slot(bs);
	o->ts_mono = ko->ts;
	o->ts = ko->ts + (uint64_t)bs->o.clock_offset_ns;
	o->latency_ns = ko->latency_ns;
	o->pid = ko->pid;
	o->tgid = ko->tgid;
	o->cpu = ko->cpu;
	o->prev_pid = ko->prev_pid;
	memcpy(o->comm, ko->comm, sizeof(o->comm));
	o->comm[sizeof(o->comm) - 1] = '\0';
	memcpy(o->prev_comm, ko->prev_comm, sizeof(o->prev_comm));
	o->prev_comm[sizeof(o->prev_comm) - 1] = '\0';
	return 0;
}

void bpfstats_outliers_from(struct bpfstats *bs, uint64_t mono_ns)
{
	if (bs)
		__atomic_store_n(&bs->outl_from, mono_ns, __ATOMIC_RELAXED);
}

/* --- irq names from /proc/interrupts, looked up when a new irq shows up --- */

static void irq_name_lookup(uint32_t irq, char *name, size_t len)
{
	char line[1024], *p, *end, *last;
	FILE *fp;
	long n;

	snprintf(name, len, "irq %u", irq);
	fp = fopen("/proc/interrupts", "re");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		n = strtol(line, &end, 10);
		if (end == line || *end != ':' || n != (long)irq)
			continue;
		/* the device name is the last field */
		p = line + strlen(line);
		while (p > line && (p[-1] == '\n' || p[-1] == ' '))
			*--p = '\0';
		last = strrchr(line, ' ');
		if (last && last[1])
			snprintf(name, len, "%s", last + 1);
		break;
	}
	fclose(fp);
}

static int irq_tab_alloc(struct irq_tab *t, unsigned int ncpus)
{
	t->ids = calloc(KSTAT_MAX_IRQS, sizeof(*t->ids));
	t->cur = calloc((size_t)KSTAT_MAX_IRQS * ncpus, sizeof(*t->cur));
	t->prev = calloc((size_t)KSTAT_MAX_IRQS * ncpus, sizeof(*t->prev));
	t->names = calloc(KSTAT_MAX_IRQS, sizeof(*t->names));
	if (!t->ids || !t->cur || !t->prev || !t->names)
		return -ENOMEM;
	return 0;
}

static void irq_tab_free(struct irq_tab *t)
{
	free(t->ids);
	free(t->cur);
	free(t->prev);
	free(t->names);
}

static long irq_tab_find(const struct irq_tab *t, uint32_t id)
{
	size_t lo = 0, hi = t->n, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (t->ids[mid] == id)
			return (long)mid;
		if (t->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Build irq_new from what was read, keeping names and previous values; swap. */
static void irq_merge(struct bpfstats *bs)
{
	struct irq_tab *o = &bs->irq, *t = &bs->irq_new, tmp;
	size_t i, j, nc = bs->ncpus, n = bs->irq_rd_n > 0 ? (size_t)bs->irq_rd_n : 0;
	uint32_t id;
	long at;

	/* insertion sort of a few dozen ids */
	for (i = 0; i < n; i++) {
		id = bs->irq_rd_ids[i];
		for (j = i; j > 0 && t->ids[j - 1] > id; j--) {
			t->ids[j] = t->ids[j - 1];
			memcpy(&t->cur[j * nc], &t->cur[(j - 1) * nc], nc * sizeof(*t->cur));
		}
		t->ids[j] = id;
		memcpy(&t->cur[j * nc], &bs->irq_rd[i * nc], nc * sizeof(*t->cur));
	}
	t->n = n;
	for (i = 0; i < n; i++) {
		at = irq_tab_find(o, t->ids[i]);
		if (at >= 0) {
			memcpy(&t->prev[i * nc], &o->cur[(size_t)at * nc], nc * sizeof(*t->prev));
			memcpy(t->names[i], o->names[at], sizeof(t->names[i]));
		} else {
			memset(&t->prev[i * nc], 0, nc * sizeof(*t->prev));
			if (bs->k)	/* fed: the far side's names come with the figures */
				irq_name_lookup(t->ids[i], t->names[i], sizeof(t->names[i]));
			else
				snprintf(t->names[i], sizeof(t->names[i]), "irq %u", t->ids[i]);
		}
	}
	tmp = *o;
	*o = *t;
	*t = tmp;
}

/* --- tasks --- */

static int task_cmp(const void *a, const void *b)
{
	const struct task_ent *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static struct task_ent *task_find(struct task_ent *v, size_t n, uint32_t tid)
{
	struct task_ent key = { .tid = tid };

	return bsearch(&key, v, n, sizeof(*v), task_cmp);
}

/*
 * Lock held. Rebuild the task table from what was read. Tasks that exited
 * (marked dead by the kernel) go into @stale for the caller to delete from
 * the map; their last figures stay in the table for KEEP_DEAD_TICKS polls.
 * Tasks that vanished without the mark (map reset, missed exit) are checked
 * with kill(0) now and then.
 */
#define KEEP_DEAD_TICKS	8

static void task_merge(struct bpfstats *bs, uint32_t *stale, size_t *nstale, size_t maxstale)
{
	size_t i, n = bs->task_rd_n > 0 ? (size_t)bs->task_rd_n : 0, m;
	struct task_ent *e, *old, *tmp;
	const struct kstat_task *kt;

	*nstale = 0;
	for (i = 0; i < n; i++) {
		e = &bs->tasks_new[i];
		kt = &bs->task_rd[i];
		memset(e, 0, sizeof(*e));
		e->tid = bs->task_rd_ids[i];
		e->tgid = kt->tgid;
		memcpy(e->comm, kt->comm, sizeof(e->comm));
		e->comm[sizeof(e->comm) - 1] = '\0';
		e->cur.offcpu_ns = kt->offcpu_ns;
		e->cur.offcpu_n = kt->offcpu_n;
		e->cur.runq_ns = kt->runq_ns;
		e->cur.runq_n = kt->runq_n;
		e->runq_max_ns = kt->runq_max_ns;
		e->dead = kt->dead != 0;
		if (e->dead && *nstale < maxstale)
			stale[(*nstale)++] = e->tid;
	}
	qsort(bs->tasks_new, n, sizeof(*bs->tasks_new), task_cmp);
	for (i = 0; i < n; i++) {
		e = &bs->tasks_new[i];
		old = task_find(bs->tasks, bs->ntasks, e->tid);
		if (!old)
			continue;
		e->prev = old->cur;
		if (!memcmp(&e->cur, &old->cur, sizeof(e->cur)))
			e->unchanged = old->unchanged + 1;
		/* a task that died unnoticed stops changing: check now and then */
		if (bs->k && !e->dead && e->unchanged >= PRUNE_AFTER_TICKS &&
		    !(e->unchanged % PRUNE_AFTER_TICKS) && *nstale < maxstale &&
		    kill((pid_t)e->tid, 0) && errno == ESRCH)
			stale[(*nstale)++] = e->tid;
	}
	/* keep the recently dead (deleted from the map last time) for a while */
	m = n;
	for (i = 0; i < bs->ntasks && m < KSTAT_MAX_TASKS; i++) {
		old = &bs->tasks[i];
		if (!old->dead || old->unchanged >= KEEP_DEAD_TICKS ||
		    task_find(bs->tasks_new, n, old->tid))
			continue;
		e = &bs->tasks_new[m++];
		*e = *old;
		e->prev = old->cur;
		e->unchanged = old->unchanged + 1;
	}
	if (m != n)
		qsort(bs->tasks_new, m, sizeof(*bs->tasks_new), task_cmp);
	tmp = bs->tasks;
	bs->tasks = bs->tasks_new;
	bs->tasks_new = tmp;
	bs->ntasks = m;
}

/* --- one poll --- */

/* @push: false for a tick too short to give meaningful rates (a final poll) */
static void series_tick(struct bpfstats *bs, double dt, bool push)
{
	unsigned int c, s, nc = bs->ncpus, id;
	struct bpfstats_hist *hw, all = {};
	double tick_ns = dt * 1e9, v[BPFSTATS_METRIC_NR];
	uint64_t ctx = 0, hi = 0, si = 0, sys = 0, csys;

	hw = &bs->hwin[(size_t)bs->hw_head * nc];
	for (c = 0; c < nc; c++) {
		const struct kstat_cpu *a = &bs->cpu_cur[c], *b = &bs->cpu_prev[c];

		memset(&hw[c], 0, sizeof(hw[c]));
		hist_from_kstat(&hw[c], &a->runq, &b->runq);
		hist_add(&all, &hw[c]);
		csys = 0;
		if (bs->has_sys) {
			for (id = 0; id < KSTAT_MAX_SYSCALLS; id++)
				csys += bs->sys_cur[id * nc + c].count -
					bs->sys_prev[id * nc + c].count;
		}
		v[BPFSTATS_CTXSW] = (double)(a->ctxsw - b->ctxsw) / dt;
		v[BPFSTATS_RUNQ_RATE] = (double)hw[c].count / dt;
		v[BPFSTATS_RUNQ_AVG_US] = hw[c].count ?
			(double)hw[c].sum_ns / (double)hw[c].count / 1e3 : 0;
		v[BPFSTATS_RUNQ_P99_US] = (double)bpfstats_hist_quantile(&hw[c], 0.99) / 1e3;
		v[BPFSTATS_HARDIRQ_PCT] = (double)(a->hardirq_ns - b->hardirq_ns) * 100 / tick_ns;
		v[BPFSTATS_SOFTIRQ_PCT] = (double)(a->softirq_ns - b->softirq_ns) * 100 / tick_ns;
		v[BPFSTATS_SYSCALL_RATE] = (double)csys / dt;
		for (s = 0; push && s < BPFSTATS_METRIC_NR; s++)
			series_push(&bs->ser[s * (nc + 1) + c], v[s]);
		ctx += a->ctxsw - b->ctxsw;
		hi += a->hardirq_ns - b->hardirq_ns;
		si += a->softirq_ns - b->softirq_ns;
		sys += csys;
	}
	v[BPFSTATS_CTXSW] = (double)ctx / dt;
	v[BPFSTATS_RUNQ_RATE] = (double)all.count / dt;
	v[BPFSTATS_RUNQ_AVG_US] = all.count ? (double)all.sum_ns / (double)all.count / 1e3 : 0;
	v[BPFSTATS_RUNQ_P99_US] = (double)bpfstats_hist_quantile(&all, 0.99) / 1e3;
	v[BPFSTATS_HARDIRQ_PCT] = (double)hi * 100 / tick_ns / bs->nonline;
	v[BPFSTATS_SOFTIRQ_PCT] = (double)si * 100 / tick_ns / bs->nonline;
	v[BPFSTATS_SYSCALL_RATE] = (double)sys / dt;
	for (s = 0; push && s < BPFSTATS_METRIC_NR; s++)
		series_push(&bs->ser[s * (nc + 1) + nc], v[s]);

	bs->hw_head = (bs->hw_head + 1) % BPFSTATS_HIST_WINDOW;
	if (bs->hw_n < BPFSTATS_HIST_WINDOW)
		bs->hw_n++;
}

#define SWAP3(rd, cur, prev) do {		\
		void *_t = (prev);		\
		(prev) = (cur);			\
		(cur) = (rd);			\
		(rd) = _t;			\
	} while (0)

void bpfstats_apply_locked(struct bpfstats *bs, uint64_t now, uint32_t *stale, size_t *nstale,
			   size_t maxstale)
{
	bool push;
	double dt;

	SWAP3(bs->cpu_rd, bs->cpu_cur, bs->cpu_prev);
	SWAP3(bs->sirq_rd, bs->sirq_cur, bs->sirq_prev);
	SWAP3(bs->sys_rd, bs->sys_cur, bs->sys_prev);
	dt = (double)(now - bs->last_ns) / 1e9;
	if (dt <= 0)
		dt = 1e-9;
	push = dt >= bs->o.interval / 4;
	series_tick(bs, dt, push);
	if (push)
		series_push(&bs->times, (double)now);
	if (bs->has_irqs)
		irq_merge(bs);
	task_merge(bs, stale, nstale, maxstale);
	bs->last_ns = now;
	bs->ticks++;
	bs->last_err = 0;
}

int bpfstats_poll(struct bpfstats *bs)
{
	uint32_t stale[256];
	uint64_t t0, now;
	size_t nstale = 0, i;
	int err;

	t0 = clock_mono_ns();
	/* read everything without the lock */
	err = bpf_kstat_read_cpu(bs->k, bs->cpu_rd);
	if (!err && bs->has_irqs)
		err = bpf_kstat_read_softirq(bs->k, bs->sirq_rd);
	if (!err && bs->has_sys)
		err = bpf_kstat_read_syscalls(bs->k, bs->sys_rd);
	if (!err && bs->has_irqs) {
		bs->irq_rd_n = bpf_kstat_read_hardirq(bs->k, bs->irq_rd_ids, bs->irq_rd,
						      KSTAT_MAX_IRQS);
		if (bs->irq_rd_n < 0)
			err = bs->irq_rd_n;
	}
	if (!err) {
		bs->task_rd_n = bpf_kstat_read_tasks(bs->k, bs->task_rd_ids, bs->task_rd,
						     KSTAT_MAX_TASKS);
		if (bs->task_rd_n < 0)
			err = bs->task_rd_n;
	}
	now = clock_mono_ns();

	pthread_mutex_lock(&bs->lock);
	if (err) {
		bs->last_err = err;
		pthread_mutex_unlock(&bs->lock);
		return err;
	}
	bpfstats_apply_locked(bs, now, stale, &nstale, sizeof(stale) / sizeof(stale[0]));
	bpf_kstat_drain_outliers(bs->k);
	bs->poll_ns = clock_mono_ns() - t0;
	pthread_mutex_unlock(&bs->lock);

	for (i = 0; i < nstale; i++)
		bpf_kstat_forget_task(bs->k, stale[i]);
	return 0;
}

/* --- thread --- */

static void *bpfstats_thread(void *arg)
{
	struct bpfstats *bs = arg;
	uint64_t next, now, one = 1, period;
	struct pollfd pfd;
	int timeout;

	pthread_setname_np(pthread_self(), "ktop-bpf");
	period = (uint64_t)(bs->o.interval * 1e9);
	next = clock_mono_ns() + period;
	pfd.fd = bs->stop_fd;
	pfd.events = POLLIN;
	for (;;) {
		now = clock_mono_ns();
		timeout = next > now ? (int)((next - now + 999999) / 1000000) : 0;
		if (poll(&pfd, 1, timeout) > 0)
			break;
		now = clock_mono_ns();
		if (now < next)
			continue;
		next += period;
		if (next < now)
			next = now + period;	/* we were stopped: do not burst */
		bpfstats_poll(bs);
		if (bs->o.wake_fd >= 0 && write(bs->o.wake_fd, &one, sizeof(one)) < 0) {
			/* a full eventfd or pipe already wakes the UI */
		}
	}
	return NULL;
}

int bpfstats_start(struct bpfstats *bs)
{
	sigset_t all, old;
	int err;

	if (bs->thr_started)
		return 0;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = -pthread_create(&bs->thr, NULL, bpfstats_thread, bs);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!err)
		bs->thr_started = true;
	return err;
}

/* --- life cycle --- */

static int bpfstats_check_features(const struct features *ft, char *why, size_t whylen)
{
	const struct feature *f;

	if (ft) {
		f = &ft->f[FEATURE_BPF];
		if (f->state != FEAT_AVAILABLE && f->state != FEAT_UNKNOWN) {
			snprintf(why, whylen, "BPF statistics off: BPF is %s%s%s",
				 feature_state_str(f->state), f->detail[0] ? ": " : "", f->detail);
			return f->state == FEAT_NOT_BUILT ? -EOPNOTSUPP : -EPERM;
		}
		f = &ft->f[FEATURE_BTF];
		if (f->state != FEAT_AVAILABLE && f->state != FEAT_UNKNOWN) {
			snprintf(why, whylen, "BPF statistics off: kernel BTF is %s%s%s "
				 "(ktop's CO-RE programs need /sys/kernel/btf/vmlinux, "
				 "CONFIG_DEBUG_INFO_BTF=y)", feature_state_str(f->state),
				 f->detail[0] ? ": " : "", f->detail);
			return -ENOENT;
		}
		return 0;
	}
	if (geteuid() != 0) {
		snprintf(why, whylen, "BPF statistics off: loading BPF programs needs root");
		return -EPERM;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(why, whylen, "BPF statistics off: no kernel BTF at "
			 "/sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF=y is needed for CO-RE "
			 "programs)");
		return -ENOENT;
	}
	return 0;
}

int bpfstats_alloc(struct bpfstats *bs)
{
	size_t nc = bs->ncpus, i, nser = (size_t)BPFSTATS_METRIC_NR * (nc + 1);

#define ALLOC(p, n) do { (p) = calloc((n), sizeof(*(p))); if (!(p)) return -ENOMEM; } while (0)
	ALLOC(bs->cpu_rd, nc);
	ALLOC(bs->cpu_cur, nc);
	ALLOC(bs->cpu_prev, nc);
	ALLOC(bs->sirq_rd, KSTAT_MAX_SOFTIRQS * nc);
	ALLOC(bs->sirq_cur, KSTAT_MAX_SOFTIRQS * nc);
	ALLOC(bs->sirq_prev, KSTAT_MAX_SOFTIRQS * nc);
	ALLOC(bs->sys_rd, KSTAT_MAX_SYSCALLS * nc);
	ALLOC(bs->sys_cur, KSTAT_MAX_SYSCALLS * nc);
	ALLOC(bs->sys_prev, KSTAT_MAX_SYSCALLS * nc);
	ALLOC(bs->irq_rd_ids, KSTAT_MAX_IRQS);
	ALLOC(bs->irq_rd, KSTAT_MAX_IRQS * nc);
	ALLOC(bs->task_rd_ids, KSTAT_MAX_TASKS);
	ALLOC(bs->task_rd, KSTAT_MAX_TASKS);
	ALLOC(bs->tasks, KSTAT_MAX_TASKS);
	ALLOC(bs->tasks_new, KSTAT_MAX_TASKS);
	ALLOC(bs->hwin, BPFSTATS_HIST_WINDOW * nc);
	ALLOC(bs->ser, nser);
	ALLOC(bs->outl, BPFSTATS_OUTLIERS_KEPT);
#undef ALLOC
	if (irq_tab_alloc(&bs->irq, bs->ncpus) || irq_tab_alloc(&bs->irq_new, bs->ncpus))
		return -ENOMEM;
	for (i = 0; i < nser; i++)
		if (series_init(&bs->ser[i], bs->o.history))
			return -ENOMEM;
	if (series_init(&bs->times, bs->o.history))
		return -ENOMEM;
	bs->stop_fd = eventfd(0, EFD_CLOEXEC);
	return bs->stop_fd < 0 ? -errno : 0;
}

void bpfstats_stop(struct bpfstats *bs)
{
	uint64_t one = 1, v;

	if (!bs || !bs->thr_started)
		return;
	if (write(bs->stop_fd, &one, sizeof(one)) < 0) {
		/* cannot happen with a fresh eventfd; join anyway */
	}
	pthread_join(bs->thr, NULL);
	if (read(bs->stop_fd, &v, sizeof(v)) < 0) {
		/* drained for a later bpfstats_start */
	}
	pthread_mutex_lock(&bs->lock);
	bs->thr_started = false;
	pthread_mutex_unlock(&bs->lock);
}

void bpfstats_free(struct bpfstats *bs)
{
	size_t i;

	if (!bs)
		return;
	bpfstats_stop(bs);
	bpf_kstat_destroy(bs->k);
	if (bs->stop_fd >= 0)
		close(bs->stop_fd);
	if (bs->ser)
		for (i = 0; i < (size_t)BPFSTATS_METRIC_NR * (bs->ncpus + 1); i++)
			series_destroy(&bs->ser[i]);
	series_destroy(&bs->times);
	irq_tab_free(&bs->irq);
	irq_tab_free(&bs->irq_new);
	free(bs->cpu_rd);
	free(bs->cpu_cur);
	free(bs->cpu_prev);
	free(bs->sirq_rd);
	free(bs->sirq_cur);
	free(bs->sirq_prev);
	free(bs->sys_rd);
	free(bs->sys_cur);
	free(bs->sys_prev);
	free(bs->irq_rd_ids);
	free(bs->irq_rd);
	free(bs->task_rd_ids);
	free(bs->task_rd);
	free(bs->tasks);
	free(bs->tasks_new);
	free(bs->hwin);
	free(bs->ser);
	free(bs->outl);
	pthread_mutex_destroy(&bs->lock);
	free(bs);
}

struct bpfstats *bpfstats_blank(const struct bpfstats_opts *o)
{
	struct bpfstats *bs = calloc(1, sizeof(*bs));

	if (!bs)
		return NULL;
	pthread_mutex_init(&bs->lock, NULL);
	bs->stop_fd = -1;
	if (o)
		bs->o = *o;
	else
		bs->o.wake_fd = -1;
	if (bs->o.interval <= 0)
		bs->o.interval = 0.5;
	if (!bs->o.history)
		bs->o.history = 240;
	if (!bs->o.outlier_ns)
		bs->o.outlier_ns = 10000000ull;
	return bs;
}

int bpfstats_new(struct bpfstats **out, const struct bpfstats_opts *o,
		 const struct features *ft, char *why, size_t whylen)
{
	struct bpf_kstat_opts ko = {};
	struct bpfstats *bs;
	long on;
	int err;

	*out = NULL;
	err = bpfstats_check_features(ft, why, whylen);
	if (err)
		return err;
	bs = bpfstats_blank(o);
	if (!bs) {
		snprintf(why, whylen, "BPF statistics off: out of memory");
		return -ENOMEM;
	}

	ko.self_tgid = (uint32_t)getpid();
	ko.outlier_ns = bs->o.outlier_ns;
	ko.no_syscalls = bs->o.no_syscalls;
	ko.no_irqs = bs->o.no_irqs;
	ko.force_raw_tp = bs->o.force_raw_tp;
	err = bpf_kstat_open(&bs->k, &ko, bpfstats_on_outlier, bs, why, whylen);
	if (err)
		goto out_free;
	bs->ncpus = bpf_kstat_ncpus(bs->k);
	bs->has_sys = bpf_kstat_has_syscalls(bs->k);
	bs->has_irqs = bpf_kstat_has_irqs(bs->k);
	snprintf(bs->mode, sizeof(bs->mode), "%s", bpf_kstat_mode(bs->k));
	on = sysconf(_SC_NPROCESSORS_ONLN);
	bs->nonline = on > 0 ? (unsigned int)on : bs->ncpus;
	err = bpfstats_alloc(bs);
	if (err) {
		snprintf(why, whylen, "BPF statistics off: %s", strerror(-err));
		goto out_free;
	}
	bs->last_ns = clock_mono_ns();
	*out = bs;
	return 0;

out_free:
	bpfstats_free(bs);
	return err;
}

/* --- queries --- */

void bpfstats_get_status(struct bpfstats *bs, struct bpfstats_status *st)
{
	unsigned int c;

	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&bs->lock);
	st->running = bs->thr_started;
	st->mode = bs->mode;
	st->ncpus = bs->ncpus;
	st->syscalls = bs->has_sys;
	st->irqs = bs->has_irqs;
	st->interval = bs->o.interval;
	st->ticks = bs->ticks;
	st->last_tick_ns = bs->last_ns;
	st->poll_ns = bs->poll_ns;
	st->outliers = bs->outl_total;
	for (c = 0; c < bs->ncpus; c++) {
		st->outliers_dropped += bs->cpu_cur[c].rb_drops;
		st->tasks_untracked += bs->cpu_cur[c].map_full;
	}
	st->tasks = bs->ntasks;
	st->clock_offset_ns = bs->o.clock_offset_ns;
	pthread_mutex_unlock(&bs->lock);
}

void bpfstats_set_clock_offset(struct bpfstats *bs, int64_t off_ns)
{
	size_t i;

	pthread_mutex_lock(&bs->lock);
	bs->o.clock_offset_ns = off_ns;
	for (i = 0; i < BPFSTATS_OUTLIERS_KEPT; i++)
		bs->outl[i].ts = bs->outl[i].ts_mono + (uint64_t)off_ns;
	pthread_mutex_unlock(&bs->lock);
}

int bpfstats_cpu_totals(struct bpfstats *bs, int cpu, struct bpfstats_cpu *out)
{
	const struct kstat_cpu *k;
	unsigned int c;

	memset(out, 0, sizeof(*out));
	if (cpu >= (int)bs->ncpus || cpu < -1)
		return -EINVAL;
	pthread_mutex_lock(&bs->lock);
	for (c = 0; c < bs->ncpus; c++) {
		if (cpu >= 0 && (unsigned int)cpu != c)
			continue;
		k = &bs->cpu_cur[c];
		out->ctxsw += k->ctxsw;
		out->runq_n += k->runq.count;
		out->hardirq_ns += k->hardirq_ns;
		out->hardirq_n += k->hardirq_n;
		out->softirq_ns += k->softirq_ns;
		out->softirq_n += k->softirq_n;
	}
	pthread_mutex_unlock(&bs->lock);
	return 0;
}

int bpfstats_runq_hist(struct bpfstats *bs, int cpu, unsigned int ticks,
		       struct bpfstats_hist *out)
{
	unsigned int c, t, nc = bs->ncpus, idx;

	memset(out, 0, sizeof(*out));
	if (cpu >= (int)nc || cpu < -1)
		return -EINVAL;
	pthread_mutex_lock(&bs->lock);
	for (c = 0; c < nc; c++) {
		if (cpu >= 0 && (unsigned int)cpu != c)
			continue;
		if (!ticks) {
			hist_from_kstat(out, &bs->cpu_cur[c].runq, NULL);
			continue;
		}
		for (t = 0; t < ticks && t < bs->hw_n; t++) {
			idx = (bs->hw_head + BPFSTATS_HIST_WINDOW - 1 - t) % BPFSTATS_HIST_WINDOW;
			hist_add(out, &bs->hwin[(size_t)idx * nc + c]);
		}
	}
	pthread_mutex_unlock(&bs->lock);
	return 0;
}

size_t bpfstats_series(struct bpfstats *bs, enum bpfstats_metric m, int cpu,
		       double *out, uint64_t *times, size_t max)
{
	unsigned int nc = bs->ncpus, row;
	double *tv;
	size_t n, i;

	if ((unsigned int)m >= BPFSTATS_METRIC_NR || cpu >= (int)nc || cpu < -1)
		return 0;
	row = cpu < 0 ? nc : (unsigned int)cpu;
	pthread_mutex_lock(&bs->lock);
	n = series_copy(&bs->ser[m * (nc + 1) + row], out, max);
	if (times) {
		tv = malloc(n * sizeof(*tv) + 1);
		if (tv) {
			series_copy(&bs->times, tv, n);
			for (i = 0; i < n; i++)
				times[i] = (uint64_t)tv[i];
			free(tv);
		} else {
			memset(times, 0, n * sizeof(*times));
		}
	}
	pthread_mutex_unlock(&bs->lock);
	return n;
}

static void task_out(const struct task_ent *e, unsigned int ticks, struct bpfstats_task *o)
{
	memset(o, 0, sizeof(*o));
	o->tid = e->tid;
	o->tgid = e->tgid;
	memcpy(o->comm, e->comm, sizeof(o->comm));
	o->offcpu_ns = e->cur.offcpu_ns - (ticks ? e->prev.offcpu_ns : 0);
	o->offcpu_n = e->cur.offcpu_n - (ticks ? e->prev.offcpu_n : 0);
	o->runq_ns = e->cur.runq_ns - (ticks ? e->prev.runq_ns : 0);
	o->runq_n = e->cur.runq_n - (ticks ? e->prev.runq_n : 0);
	o->runq_max_ns = e->runq_max_ns;
}

static uint64_t task_key(const struct bpfstats_task *t, enum bpfstats_sort by)
{
	switch (by) {
	case BPFSTATS_BY_RUNQ:
		return t->runq_ns;
	case BPFSTATS_BY_RUNQ_MAX:
		return t->runq_n ? t->runq_max_ns : 0;
	case BPFSTATS_BY_OFFCPU:
	default:
		return t->offcpu_ns;
	}
}

/* insertion of @t (key @key) into the sorted top @max of @out, @kept of them so far */
static void top_insert(struct bpfstats_task *out, size_t max, size_t *kept,
		       const struct bpfstats_task *t, uint64_t key, enum bpfstats_sort by)
{
	size_t j;

	if (!max || (*kept == max && task_key(&out[max - 1], by) >= key))
		return;
	j = *kept < max ? (*kept)++ : max - 1;
	while (j > 0 && task_key(&out[j - 1], by) < key) {
		out[j] = out[j - 1];
		j--;
	}
	out[j] = *t;
}

size_t bpfstats_top_tasks(struct bpfstats *bs, enum bpfstats_sort by, unsigned int ticks,
			  struct bpfstats_task *out, size_t max)
{
	struct bpfstats_task t;
	size_t i, n = 0, kept = 0;
	uint64_t key;

	pthread_mutex_lock(&bs->lock);
	for (i = 0; i < bs->ntasks; i++) {
		task_out(&bs->tasks[i], ticks, &t);
		key = task_key(&t, by);
		if (!key)
			continue;
		n++;
		top_insert(out, max, &kept, &t, key, by);
	}
	pthread_mutex_unlock(&bs->lock);
	return n;
}

size_t bpfstats_top_tasks_if(struct bpfstats *bs, enum bpfstats_sort by, unsigned int ticks,
			     bool (*keep)(void *ctx, uint32_t tid), void *ctx,
			     struct bpfstats_task *out, size_t max)
{
	struct bpfstats_task *all;
	size_t i, got = 0, n = 0, kept = 0;

	/* a copy of every task with a figure, so that @keep runs without the lock */
	pthread_mutex_lock(&bs->lock);
	all = malloc((bs->ntasks ? bs->ntasks : 1) * sizeof(*all));
	for (i = 0; all && i < bs->ntasks; i++) {
		task_out(&bs->tasks[i], ticks, &all[got]);
		if (task_key(&all[got], by))
			got++;
	}
	pthread_mutex_unlock(&bs->lock);
	if (!all)
		return 0;
	for (i = 0; i < got; i++) {
		if (keep && !keep(ctx, all[i].tid))
			continue;
		n++;
		top_insert(out, max, &kept, &all[i], task_key(&all[i], by), by);
	}
	free(all);
	return n;
}

int bpfstats_task(struct bpfstats *bs, uint32_t tid, struct bpfstats_task *out)
{
	struct task_ent *e;
	int err = -ENOENT;

	pthread_mutex_lock(&bs->lock);
	e = task_find(bs->tasks, bs->ntasks, tid);
	if (e) {
		task_out(e, 0, out);
		err = 0;
	}
	pthread_mutex_unlock(&bs->lock);
	return err;
}

static int syscall_cmp(const void *a, const void *b)
{
	const struct bpfstats_syscall *x = a, *y = b;

	return x->h.sum_ns > y->h.sum_ns ? -1 : x->h.sum_ns < y->h.sum_ns;
}

size_t bpfstats_syscalls(struct bpfstats *bs, int cpu, unsigned int ticks,
			 struct bpfstats_syscall *out, size_t max)
{
	struct bpfstats_syscall *all;
	unsigned int c, id, nc = bs->ncpus;
	size_t n = 0;

	if (cpu >= (int)nc || cpu < -1)
		return 0;
	all = calloc(KSTAT_MAX_SYSCALLS, sizeof(*all));
	if (!all)
		return 0;
	pthread_mutex_lock(&bs->lock);
	for (id = 0; id < KSTAT_MAX_SYSCALLS; id++) {
		struct bpfstats_syscall *s = &all[n];

		memset(s, 0, sizeof(*s));
		for (c = 0; c < nc; c++) {
			if (cpu >= 0 && (unsigned int)cpu != c)
				continue;
			hist_from_kstat(&s->h, &bs->sys_cur[id * nc + c],
					ticks ? &bs->sys_prev[id * nc + c] : NULL);
		}
		if (!s->h.count)
			continue;
		s->id = id;
		s->name = bpfstats_syscall_name(id);
		if (!s->name)
			s->name = id == KSTAT_MAX_SYSCALLS - 1 ? "(other)" : "?";
		n++;
	}
	pthread_mutex_unlock(&bs->lock);
	qsort(all, n, sizeof(*all), syscall_cmp);
	memcpy(out, all, (n < max ? n : max) * sizeof(*out));
	free(all);
	return n;
}

static int irq_cmp(const void *a, const void *b)
{
	const struct bpfstats_irq *x = a, *y = b;

	return x->ns > y->ns ? -1 : x->ns < y->ns;
}

/*
 * Add row @i of the [rows][@nc] per-CPU vectors @cur, less @prev (NULL: since
 * the start), on @cpu (-1: every CPU), to @r.
 */
static void irq_add(struct bpfstats_irq *r, const struct kstat_vec *cur,
		    const struct kstat_vec *prev, size_t i, unsigned int nc, int cpu)
{
	for (unsigned int c = 0; c < nc; c++) {
		size_t k = i * nc + c;

		if (cpu >= 0 && (unsigned int)cpu != c)
			continue;
		r->ns += cur[k].ns - (prev ? prev[k].ns : 0);
		r->count += cur[k].count - (prev ? prev[k].count : 0);
	}
}

size_t bpfstats_irqs(struct bpfstats *bs, int cpu, unsigned int ticks,
		     struct bpfstats_irq *out, size_t max)
{
	unsigned int v, nc = bs->ncpus;
	struct bpfstats_irq *all, *r;
	size_t n = 0, i;

	if (cpu >= (int)nc || cpu < -1)
		return 0;
	all = calloc(KSTAT_MAX_IRQS + KSTAT_MAX_SOFTIRQS, sizeof(*all));
	if (!all)
		return 0;
	pthread_mutex_lock(&bs->lock);
	for (i = 0; i < bs->irq.n; i++) {
		r = &all[n];
		r->vec = bs->irq.ids[i];
		snprintf(r->name, sizeof(r->name), "%s", bs->irq.names[i]);
		irq_add(r, bs->irq.cur, ticks ? bs->irq.prev : NULL, i, nc, cpu);
		if (r->count)
			n++;
	}
	for (v = 0; v < KSTAT_MAX_SOFTIRQS; v++) {
		r = &all[n];
		memset(r, 0, sizeof(*r));
		r->soft = true;
		r->vec = v;
		snprintf(r->name, sizeof(r->name), "%s", softirq_names[v] ? softirq_names[v] : "?");
		irq_add(r, bs->sirq_cur, ticks ? bs->sirq_prev : NULL, v, nc, cpu);
		if (r->count)
			n++;
	}
	pthread_mutex_unlock(&bs->lock);
	qsort(all, n, sizeof(*all), irq_cmp);
	memcpy(out, all, (n < max ? n : max) * sizeof(*out));
	free(all);
	return n;
}

size_t bpfstats_outliers(struct bpfstats *bs, uint64_t after_seq,
			 struct bpfstats_outlier *out, size_t max)
{
	uint64_t first, s;
	size_t n = 0;

	pthread_mutex_lock(&bs->lock);
	first = 1;
	if (bs->outl_seq > BPFSTATS_OUTLIERS_KEPT)
		first = bs->outl_seq - BPFSTATS_OUTLIERS_KEPT + 1;
	if (after_seq + 1 > first)
		first = after_seq + 1;
	for (s = first; s <= bs->outl_seq && n < max; s++)
		out[n++] = bs->outl[(s - 1) % BPFSTATS_OUTLIERS_KEPT];
	pthread_mutex_unlock(&bs->lock);
	return n;
}

/* --- batch text --- */

/* The status line and the per-CPU figures of the last poll. */
static void print_cpus(struct bpfstats *bs, FILE *o, const struct bpfstats_status *st)
{
	unsigned int m;
	int cpu;

	fprintf(o, "BPF: %s programs%s%s, poll %.2fs (last took %.2fms), outliers %" PRIu64
		" (%" PRIu64 " dropped), tasks %" PRIu64 "%s\n", st->mode,
		st->irqs ? ", irq" : "", st->syscalls ? ", syscalls" :
		", no syscall latency (--bpf-syscalls)", st->interval,
		(double)st->poll_ns / 1e6, st->outliers, st->outliers_dropped, st->tasks,
		st->tasks_untracked ? " (map full: some untracked)" : "");
	fprintf(o, "%4s", "CPU");
	for (m = 0; m < BPFSTATS_METRIC_NR; m++)
		fprintf(o, " %12s", bpfstats_metric_name((enum bpfstats_metric)m));
	fprintf(o, "\n");
	for (cpu = 0; cpu <= (int)st->ncpus; cpu++) {
		int row = cpu == (int)st->ncpus ? -1 : cpu;
		double v;

		if (row < 0)
			fprintf(o, "%4s", "all");
		else
			fprintf(o, "%4d", row);
		for (m = 0, v = 0; m < BPFSTATS_METRIC_NR; m++, v = 0) {
			bpfstats_series(bs, (enum bpfstats_metric)m, row, &v, NULL, 1);
			fprintf(o, " %12.1f", v);
		}
		fprintf(o, "\n");
	}
}

/* The run-queue latency histogram, as runqlat draws it. */
static void print_runq(struct bpfstats *bs, FILE *o, unsigned int ticks)
{
	int first, last;
	struct bpfstats_hist h;
	uint64_t peak = 0;
	char a[32], b[32];

	bpfstats_runq_hist(bs, -1, ticks, &h);
	str_dur(a, sizeof(a), h.count ? h.sum_ns / h.count : 0);
	str_dur(b, sizeof(b), bpfstats_hist_quantile(&h, 0.99));
	fprintf(o, "Run-queue latency %s: %" PRIu64 " wakeups, avg %s, p99 %s\n",
		ticks ? "(last poll)" : "(since start)", h.count, a, b);
	series_hist_span(h.slot, BPFSTATS_SLOTS, &first, &last);
	for (int k = first; k >= 0 && k <= last; k++)
		if (h.slot[k] > peak)
			peak = h.slot[k];
	for (int k = first; k >= 0 && k <= last; k++) {
		uint64_t lo, hi;
		char bar[41];
		unsigned int w = (unsigned int)(h.slot[k] * 40 / (peak ? peak : 1));

		memset(bar, '*', w);
		bar[w] = '\0';
		series_hist_slot_bounds((unsigned int)k, &lo, &hi);
		str_dur(a, sizeof(a), lo);
		str_dur(b, sizeof(b), hi);
		fprintf(o, "  %9s -> %-9s : %-10" PRIu64 " |%-40s|\n", a, b, h.slot[k], bar);
	}
}

uint64_t bpfstats_print(struct bpfstats *bs, FILE *o, unsigned int ticks, unsigned int rows,
			uint64_t after_seq)
{
	struct bpfstats_outlier ol[16];
	struct bpfstats_status st;
	char a[32], b[32], c[32];
	size_t n, i, max;
	union {
		struct bpfstats_task	t[32];
		struct bpfstats_syscall	s[32];
		struct bpfstats_irq	q[32];
	} *u;

	if (!rows)
		rows = 5;
	max = rows < 32 ? rows : 32;
	bpfstats_get_status(bs, &st);
	print_cpus(bs, o, &st);
	print_runq(bs, o, ticks);

	u = malloc(sizeof(*u));
	if (!u)
		return after_seq;
	n = bpfstats_top_tasks(bs, BPFSTATS_BY_RUNQ, ticks, u->t, max);
	if (n)
		fprintf(o, "%7s %-16s %10s %10s %10s  (top run-queue wait)\n", "TID", "COMM",
			"WAIT", "WAKEUPS", "MAX");
	for (i = 0; i < n && i < max; i++) {
		str_dur(a, sizeof(a), u->t[i].runq_ns);
		str_dur(b, sizeof(b), u->t[i].runq_max_ns);
		fprintf(o, "%7u %-16s %10s %10" PRIu64 " %10s\n", u->t[i].tid, u->t[i].comm, a,
			u->t[i].runq_n, b);
	}
	n = bpfstats_top_tasks(bs, BPFSTATS_BY_OFFCPU, ticks, u->t, max);
	if (n)
		fprintf(o, "%7s %-16s %10s %10s  (top off-CPU)\n", "TID", "COMM", "OFF-CPU",
			"SWITCHES");
	for (i = 0; i < n && i < max; i++) {
		str_dur(a, sizeof(a), u->t[i].offcpu_ns);
		fprintf(o, "%7u %-16s %10s %10" PRIu64 "\n", u->t[i].tid, u->t[i].comm, a,
			u->t[i].offcpu_n);
	}
	n = bpfstats_syscalls(bs, -1, ticks, u->s, max);
	if (n)
		fprintf(o, "%-16s %10s %10s %10s %10s  (syscalls by total time)\n", "SYSCALL",
			"CALLS", "TOTAL", "AVG", "P99");
	for (i = 0; i < n && i < max; i++) {
		str_dur(a, sizeof(a), u->s[i].h.sum_ns);
		str_dur(b, sizeof(b), u->s[i].h.sum_ns / u->s[i].h.count);
		str_dur(c, sizeof(c), bpfstats_hist_quantile(&u->s[i].h, 0.99));
		fprintf(o, "%-16s %10" PRIu64 " %10s %10s %10s\n", u->s[i].name, u->s[i].h.count,
			a, b, c);
	}
	n = bpfstats_irqs(bs, -1, ticks, u->q, max);
	if (n)
		fprintf(o, "%-8s %-20s %10s %10s  (irq time)\n", "KIND", "NAME", "TIME", "COUNT");
	for (i = 0; i < n && i < max; i++) {
		str_dur(a, sizeof(a), u->q[i].ns);
		fprintf(o, "%-8s %-20s %10s %10" PRIu64 "\n", u->q[i].soft ? "softirq" : "irq",
			u->q[i].name, a, u->q[i].count);
	}
	free(u);
	/* only the newest @max outliers */
	if (st.outliers > max && after_seq < st.outliers - max)
		after_seq = st.outliers - max;
	while ((n = bpfstats_outliers(bs, after_seq, ol, max < 16 ? max : 16))) {
		for (i = 0; i < n; i++) {
			str_dur(a, sizeof(a), ol[i].latency_ns);
			fprintf(o, "outlier ts %" PRIu64 " cpu %u tid %u %s waited %s "
				"(after %u %s)\n", ol[i].ts, ol[i].cpu, ol[i].pid, ol[i].comm, a,
				ol[i].prev_pid, ol[i].prev_comm);
		}
		after_seq = ol[n - 1].seq;
		if (n < (max < 16 ? max : 16))
			break;
	}
	return after_seq;
}
