// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The BPF figures as data (bpfstats.h, "the figures of one poll"): taken
 * from a poller's last poll for --stream to send, and fed, poll after poll,
 * into a bpfstats with no kernel on the reading side. Feeding goes through
 * the same step as a local poll (bpfstats_apply_locked): deltas, series,
 * task and irq tables come out as the far side's own would.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpfstats-local.h"

static void hist_to_raw(struct bpfstats_hist *o, const struct kstat_hist *k)
{
	memcpy(o->slot, k->slot, sizeof(o->slot));
	o->count = k->count;
	o->sum_ns = k->sum_ns;
	o->max_ns = k->max_ns;
}

static void hist_from_raw(struct kstat_hist *k, const struct bpfstats_hist *o)
{
	memcpy(k->slot, o->slot, sizeof(k->slot));
	k->count = o->count;
	k->sum_ns = o->sum_ns;
	k->max_ns = o->max_ns;
}

void bpfstats_raw_free(struct bpfstats_raw *r)
{
	free(r->cpu);
	free(r->softirq);
	free(r->irq);
	free(r->irq_name);
	free(r->sys);
	free(r->task);
	free(r->task_dead);
	free(r->outl);
	memset(r, 0, sizeof(*r));
}

/* Lock held: how many rows of each table are non-zero, then the tables. */
static int raw_alloc_locked(struct bpfstats *bs, uint64_t after_seq, struct bpfstats_raw *r)
{
	size_t nc = bs->ncpus, i, nout;

	nout = bs->outl_seq > after_seq ? (size_t)(bs->outl_seq - after_seq) : 0;
	if (nout > BPFSTATS_OUTLIERS_KEPT)
		nout = BPFSTATS_OUTLIERS_KEPT;
	for (i = 0; i < KSTAT_MAX_SOFTIRQS * nc; i++)
		r->nsoftirq += bs->sirq_cur[i].count != 0;
	for (i = 0; i < bs->irq.n * nc; i++)
		r->nirq += bs->irq.cur[i].count != 0;
	for (i = 0; bs->has_sys && i < KSTAT_MAX_SYSCALLS * nc; i++)
		r->nsys += bs->sys_cur[i].count != 0;
	r->cpu = calloc(nc, sizeof(*r->cpu));
	r->softirq = calloc(r->nsoftirq + 1, sizeof(*r->softirq));
	r->irq = calloc(r->nirq + 1, sizeof(*r->irq));
	r->irq_name = calloc(bs->irq.n + 1, sizeof(*r->irq_name));
	r->sys = calloc(r->nsys + 1, sizeof(*r->sys));
	r->task = calloc(bs->ntasks + 1, sizeof(*r->task));
	r->task_dead = calloc(bs->ntasks + 1, sizeof(*r->task_dead));
	r->outl = calloc(nout + 1, sizeof(*r->outl));
	if (!r->cpu || !r->softirq || !r->irq || !r->irq_name || !r->sys || !r->task ||
	    !r->task_dead || !r->outl)
		return -ENOMEM;
	for (i = 0; i < nout; i++)
		r->outl[r->noutl++] = bs->outl[(bs->outl_seq - nout + i) % BPFSTATS_OUTLIERS_KEPT];
	return 0;
}

/* Lock held: the sparse tables. */
static void raw_tables_locked(struct bpfstats *bs, struct bpfstats_raw *r)
{
	size_t nc = bs->ncpus, i, c, n;

	n = 0;
	for (i = 0; i < KSTAT_MAX_SOFTIRQS; i++)
		for (c = 0; c < nc; c++) {
			const struct kstat_vec *v = &bs->sirq_cur[i * nc + c];

			if (v->count)
				r->softirq[n++] = (struct bpfstats_raw_vec){
					(uint32_t)i, (uint32_t)c, v->ns, v->count };
		}
	n = 0;
	for (i = 0; i < bs->irq.n; i++) {
		r->irq_name[r->nirq_name].vec = bs->irq.ids[i];
		memcpy(r->irq_name[r->nirq_name++].name, bs->irq.names[i],
		       sizeof(r->irq_name->name));
		for (c = 0; c < nc; c++) {
			const struct kstat_vec *v = &bs->irq.cur[i * nc + c];

			if (v->count)
				r->irq[n++] = (struct bpfstats_raw_vec){
					bs->irq.ids[i], (uint32_t)c, v->ns, v->count };
		}
	}
	n = 0;
	for (i = 0; bs->has_sys && i < KSTAT_MAX_SYSCALLS; i++)
		for (c = 0; c < nc; c++) {
			if (!bs->sys_cur[i * nc + c].count)
				continue;
			r->sys[n].id = (uint32_t)i;
			r->sys[n].cpu = (uint32_t)c;
			hist_to_raw(&r->sys[n++].h, &bs->sys_cur[i * nc + c]);
		}
	for (i = 0; i < bs->ntasks; i++) {
		const struct task_ent *e = &bs->tasks[i];
		struct bpfstats_task *t = &r->task[i];

		t->tid = e->tid;
		t->tgid = e->tgid;
		memcpy(t->comm, e->comm, sizeof(t->comm));
		t->offcpu_ns = e->cur.offcpu_ns;
		t->offcpu_n = e->cur.offcpu_n;
		t->runq_ns = e->cur.runq_ns;
		t->runq_n = e->cur.runq_n;
		t->runq_max_ns = e->runq_max_ns;
		r->task_dead[i] = e->dead;
	}
	r->ntask = bs->ntasks;
}

int bpfstats_raw_get(struct bpfstats *bs, uint64_t after_seq, struct bpfstats_raw *out)
{
	int ret = 0;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&bs->lock);
	if (!bs->ticks) {
		ret = -EAGAIN;
		goto out;
	}
	ret = raw_alloc_locked(bs, after_seq, out);
	if (ret)
		goto out;
	out->mono_ns = bs->last_ns;
	out->ncpus = bs->ncpus;
	out->nonline = bs->nonline;
	out->irqs = bs->has_irqs;
	out->syscalls = bs->has_sys;
	memcpy(out->mode, bs->mode, sizeof(out->mode));
	out->interval = bs->o.interval;
	for (unsigned int c = 0; c < bs->ncpus; c++) {
		const struct kstat_cpu *k = &bs->cpu_cur[c];
		struct bpfstats_raw_cpu *o = &out->cpu[c];

#define COPY(f) o->f = k->f;
		BPFSTATS_CPU_COUNTERS(COPY)
#undef COPY
		hist_to_raw(&o->runq, &k->runq);
	}
	raw_tables_locked(bs, out);
out:
	pthread_mutex_unlock(&bs->lock);
	if (ret)
		bpfstats_raw_free(out);
	return ret;
}

int bpfstats_new_fed(struct bpfstats **out, const struct bpfstats_raw *first,
		     const struct bpfstats_opts *o)
{
	struct bpfstats *bs;
	int err;

	*out = NULL;
	if (!first->ncpus || first->ncpus > 8192 || !(first->interval > 0))
		return -EINVAL;
	bs = bpfstats_blank(o);
	if (!bs)
		return -ENOMEM;
	bs->o.interval = first->interval;
	bs->ncpus = first->ncpus;
	bs->nonline = first->nonline && first->nonline <= first->ncpus ? first->nonline :
		      first->ncpus;
	bs->has_sys = first->syscalls;
	bs->has_irqs = first->irqs;
	memcpy(bs->mode, first->mode, sizeof(bs->mode));
	bs->mode[sizeof(bs->mode) - 1] = 0;
	err = bpfstats_alloc(bs);
	if (err) {
		bpfstats_free(bs);
		return err;
	}
	/* the first poll's rates cover one interval, as a local first poll's */
	bs->last_ns = first->mono_ns - (uint64_t)(first->interval * 1e9);
	*out = bs;
	return 0;
}

/* Is @r within what @bs holds? Checked whole before anything changes. */
static bool raw_fits(const struct bpfstats *bs, const struct bpfstats_raw *r)
{
	size_t i;

	if (r->ncpus != bs->ncpus || r->ntask > KSTAT_MAX_TASKS || r->nirq_name > KSTAT_MAX_IRQS ||
	    (r->nsys && !bs->has_sys) || r->mono_ns <= bs->last_ns)
		return false;
	for (i = 0; i < r->nsoftirq; i++)
		if (r->softirq[i].id >= KSTAT_MAX_SOFTIRQS || r->softirq[i].cpu >= bs->ncpus)
			return false;
	for (i = 0; i < r->nsys; i++)
		if (r->sys[i].id >= KSTAT_MAX_SYSCALLS || r->sys[i].cpu >= bs->ncpus)
			return false;
	for (i = 0; i < r->nirq; i++) {
		size_t j;

		if (r->irq[i].cpu >= bs->ncpus)
			return false;
		for (j = 0; j < r->nirq_name && r->irq_name[j].vec != r->irq[i].id; j++)
			;
		if (j == r->nirq_name)
			return false;	/* every irq with figures is named */
	}
	return true;
}

/* The *_rd buffers, as a kernel read would leave them. */
static void raw_to_rd(struct bpfstats *bs, const struct bpfstats_raw *r)
{
	size_t nc = bs->ncpus, i, j;

	for (i = 0; i < nc; i++) {
		const struct bpfstats_raw_cpu *o = &r->cpu[i];
		struct kstat_cpu *k = &bs->cpu_rd[i];

		memset(k, 0, sizeof(*k));
#define COPY(f) k->f = o->f;
		BPFSTATS_CPU_COUNTERS(COPY)
#undef COPY
		hist_from_raw(&k->runq, &o->runq);
	}
	memset(bs->sirq_rd, 0, KSTAT_MAX_SOFTIRQS * nc * sizeof(*bs->sirq_rd));
	for (i = 0; i < r->nsoftirq; i++)
		bs->sirq_rd[r->softirq[i].id * nc + r->softirq[i].cpu] =
			(struct kstat_vec){ r->softirq[i].ns, r->softirq[i].count };
	if (bs->has_sys) {
		memset(bs->sys_rd, 0, KSTAT_MAX_SYSCALLS * nc * sizeof(*bs->sys_rd));
		for (i = 0; i < r->nsys; i++)
			hist_from_raw(&bs->sys_rd[r->sys[i].id * nc + r->sys[i].cpu], &r->sys[i].h);
	}
	/* every named irq is a row, in the order named */
	bs->irq_rd_n = (int)r->nirq_name;
	memset(bs->irq_rd, 0, r->nirq_name * nc * sizeof(*bs->irq_rd));
	for (i = 0; i < r->nirq_name; i++)
		bs->irq_rd_ids[i] = r->irq_name[i].vec;
	for (i = 0; i < r->nirq; i++) {
		for (j = 0; r->irq_name[j].vec != r->irq[i].id; j++)
			;
		bs->irq_rd[j * nc + r->irq[i].cpu] = (struct kstat_vec){ r->irq[i].ns,
									  r->irq[i].count };
	}
	bs->task_rd_n = (int)r->ntask;
	for (i = 0; i < r->ntask; i++) {
		const struct bpfstats_task *t = &r->task[i];
		struct kstat_task *k = &bs->task_rd[i];

		memset(k, 0, sizeof(*k));
		bs->task_rd_ids[i] = t->tid;
		k->tgid = t->tgid;
		memcpy(k->comm, t->comm, sizeof(k->comm));
		k->comm[sizeof(k->comm) - 1] = 0;
		k->offcpu_ns = t->offcpu_ns;
		k->offcpu_n = t->offcpu_n;
		k->runq_ns = t->runq_ns;
		k->runq_n = t->runq_n;
		k->runq_max_ns = t->runq_max_ns;
		k->dead = r->task_dead[i];
	}
}

int bpfstats_feed(struct bpfstats *bs, const struct bpfstats_raw *r)
{
	uint32_t stale[256];
	size_t nstale, i;

	if (!raw_fits(bs, r))
		return -EINVAL;
	raw_to_rd(bs, r);
	pthread_mutex_lock(&bs->lock);
	bpfstats_apply_locked(bs, r->mono_ns, stale, &nstale, sizeof(stale) / sizeof(stale[0]));
	/* the far side's names, which a local /proc/interrupts does not have */
	for (i = 0; i < r->nirq_name; i++) {
		long at = -1;

		for (size_t j = 0; j < bs->irq.n; j++)
			if (bs->irq.ids[j] == r->irq_name[i].vec)
				at = (long)j;
		if (at >= 0)
			snprintf(bs->irq.names[at], sizeof(bs->irq.names[at]), "%.31s",
				 r->irq_name[i].name);
	}
	for (i = 0; i < r->noutl; i++) {
		struct bpfstats_outlier *o = bpfstats_outlier_slot(bs);
		uint64_t seq = o->seq;

		*o = r->outl[i];
		o->seq = seq;
		o->comm[sizeof(o->comm) - 1] = 0;
		o->prev_comm[sizeof(o->prev_comm) - 1] = 0;
	}
	pthread_mutex_unlock(&bs->lock);
	return 0;
}
