// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The BPF block of a .ktop stream (BLK_BPF): one poll of the far side's BPF
 * statistics (struct bpfstats_raw, cumulative counters and the outliers new
 * since the last block), so the reader of a stream shows the BPF pane of the
 * machine that streams. Integers are varints; histograms list their
 * non-zero slots; every count is checked against what the rest of the block
 * can hold before anything is allocated.
 *
 *   var version(1) mono_ns ncpus nonline  u8 flags(1 irqs, 2 syscalls)
 *   str mode  var interval_us
 *   per CPU: var ctxsw hardirq_ns hardirq_n softirq_ns softirq_n rb_drops
 *            map_full, hist runq
 *   var n, n x (var id cpu ns count)            softirqs
 *   var n, n x (var irq, str name)              irq names
 *   var n, n x (var id cpu ns count)            irqs
 *   var n, n x (var id cpu, hist)               syscalls
 *   var n, n x (var tid tgid, str comm, var offcpu_ns offcpu_n runq_ns
 *               runq_n runq_max_ns, u8 dead)    tasks
 *   var n, n x (var ts ts_mono latency_ns pid tgid cpu prev_pid,
 *               str comm prev_comm)             outliers
 *   hist: var count sum_ns max_ns, var n, n x (var slot value)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfstats/bpfstats.h"
#include "ktop-local.h"
#include "ktop_bpf.h"

#define BPF_BLOCK_VERSION	1
#define BPF_MAX_CPUS		8192

static void put_hist(struct buf *b, const struct bpfstats_hist *h)
{
	unsigned int n = 0;

	buf_var(b, h->count);
	buf_var(b, h->sum_ns);
	buf_var(b, h->max_ns);
	for (unsigned int i = 0; i < BPFSTATS_SLOTS; i++)
		n += h->slot[i] != 0;
	buf_var(b, n);
	for (unsigned int i = 0; i < BPFSTATS_SLOTS; i++)
		if (h->slot[i]) {
			buf_var(b, i);
			buf_var(b, h->slot[i]);
		}
}

static void put_vecs(struct buf *b, const struct bpfstats_raw_vec *v, size_t n)
{
	buf_var(b, n);
	for (size_t i = 0; i < n; i++) {
		buf_var(b, v[i].id);
		buf_var(b, v[i].cpu);
		buf_var(b, v[i].ns);
		buf_var(b, v[i].count);
	}
}

int ktop_bpf_encode(struct buf *b, const struct bpfstats_raw *r)
{
	buf_var(b, BPF_BLOCK_VERSION);
	buf_var(b, r->mono_ns);
	buf_var(b, r->ncpus);
	buf_var(b, r->nonline);
	buf_u8(b, (r->irqs ? 1 : 0) | (r->syscalls ? 2 : 0));
	buf_strn(b, r->mode, sizeof(r->mode) - 1);
	buf_var(b, (uint64_t)(r->interval * 1e6));
	for (unsigned int c = 0; c < r->ncpus; c++) {
		const struct bpfstats_raw_cpu *k = &r->cpu[c];

#define PUT(f) buf_var(b, k->f);
		BPFSTATS_CPU_COUNTERS(PUT)
#undef PUT
		put_hist(b, &k->runq);
	}
	put_vecs(b, r->softirq, r->nsoftirq);
	buf_var(b, r->nirq_name);
	for (size_t i = 0; i < r->nirq_name; i++) {
		buf_var(b, r->irq_name[i].vec);
		buf_strn(b, r->irq_name[i].name, sizeof(r->irq_name[i].name) - 1);
	}
	put_vecs(b, r->irq, r->nirq);
	buf_var(b, r->nsys);
	for (size_t i = 0; i < r->nsys; i++) {
		buf_var(b, r->sys[i].id);
		buf_var(b, r->sys[i].cpu);
		put_hist(b, &r->sys[i].h);
	}
	buf_var(b, r->ntask);
	for (size_t i = 0; i < r->ntask; i++) {
		const struct bpfstats_task *t = &r->task[i];

		buf_var(b, t->tid);
		buf_var(b, t->tgid);
		buf_strn(b, t->comm, sizeof(t->comm) - 1);
		buf_var(b, t->offcpu_ns);
		buf_var(b, t->offcpu_n);
		buf_var(b, t->runq_ns);
		buf_var(b, t->runq_n);
		buf_var(b, t->runq_max_ns);
		buf_u8(b, r->task_dead[i]);
	}
	buf_var(b, r->noutl);
	for (size_t i = 0; i < r->noutl; i++) {
		const struct bpfstats_outlier *o = &r->outl[i];

		buf_var(b, o->ts);
		buf_var(b, o->ts_mono);
		buf_var(b, o->latency_ns);
		buf_var(b, o->pid);
		buf_var(b, o->tgid);
		buf_var(b, o->cpu);
		buf_var(b, o->prev_pid);
		buf_strn(b, o->comm, sizeof(o->comm) - 1);
		buf_strn(b, o->prev_comm, sizeof(o->prev_comm) - 1);
	}
	return b->err;
}

/* ---- reading ---------------------------------------------------------------------- */

/* A count of entries of at least @min_bytes each that the rest of the block can hold. */
static size_t get_count(struct cur *c, size_t min_bytes, size_t max)
{
	uint64_t n = cur_var(c);

	if (c->bad || n > max || n > (size_t)(c->end - c->p) / min_bytes) {
		c->bad = true;
		return 0;
	}
	return (size_t)n;
}

/*
 * A count (as get_count()) and an array of that many zeroed entries of @size
 * bytes, one more so that an empty array is not NULL.
 * Return: the array, which the caller frees, or NULL with c->bad set.
 */
static void *get_array(struct cur *c, size_t min_bytes, size_t max, size_t size, size_t *np)
{
	size_t n = get_count(c, min_bytes, max);
	void *v = c->bad ? NULL : calloc(n + 1, size);

	*np = v ? n : 0;
	if (!v)
		c->bad = true;
	return v;
}

static uint32_t get_u32(struct cur *c)
{
	uint64_t v = cur_var(c);

	if (v > UINT32_MAX)
		c->bad = true;
	return (uint32_t)v;
}

static void get_cstr(struct cur *c, char *out, size_t len)
{
	size_t n = get_count(c, 1, len - 1);

	if (!c->bad) {
		memcpy(out, c->p, n);
		c->p += n;
	}
	out[c->bad ? 0 : n] = 0;
}

static void get_hist(struct cur *c, struct bpfstats_hist *h)
{
	size_t n;

	memset(h, 0, sizeof(*h));
	h->count = cur_var(c);
	h->sum_ns = cur_var(c);
	h->max_ns = cur_var(c);
	n = get_count(c, 2, BPFSTATS_SLOTS);
	for (size_t i = 0; i < n && !c->bad; i++) {
		uint64_t slot = cur_var(c);

		if (slot >= BPFSTATS_SLOTS) {
			c->bad = true;
			break;
		}
		h->slot[slot] = cur_var(c);
	}
}

static struct bpfstats_raw_vec *get_vecs(struct cur *c, size_t *np)
{
	struct bpfstats_raw_vec *v;
	size_t n;

	v = get_array(c, 4, SIZE_MAX, sizeof(*v), &n);
	if (!v)
		return NULL;
	for (size_t i = 0; i < n && !c->bad; i++) {
		v[i].id = get_u32(c);
		v[i].cpu = get_u32(c);
		v[i].ns = cur_var(c);
		v[i].count = cur_var(c);
	}
	*np = n;
	return v;
}

static void get_cpus_and_irqs(struct cur *c, struct bpfstats_raw *r)
{
	r->cpu = calloc(r->ncpus, sizeof(*r->cpu));
	if (!r->cpu) {
		c->bad = true;
		return;
	}
	for (unsigned int i = 0; i < r->ncpus && !c->bad; i++) {
		struct bpfstats_raw_cpu *k = &r->cpu[i];

#define GET(f) k->f = cur_var(c);
		BPFSTATS_CPU_COUNTERS(GET)
#undef GET
		get_hist(c, &k->runq);
	}
	r->softirq = get_vecs(c, &r->nsoftirq);
	r->irq_name = get_array(c, 2, SIZE_MAX, sizeof(*r->irq_name), &r->nirq_name);
	if (!r->irq_name)
		return;
	for (size_t i = 0; i < r->nirq_name && !c->bad; i++) {
		r->irq_name[i].vec = get_u32(c);
		get_cstr(c, r->irq_name[i].name, sizeof(r->irq_name[i].name));
	}
	r->irq = get_vecs(c, &r->nirq);
}

static void get_tasks_and_outliers(struct cur *c, struct bpfstats_raw *r)
{
	r->task = get_array(c, 9, SIZE_MAX, sizeof(*r->task), &r->ntask);
	r->task_dead = r->task ? calloc(r->ntask + 1, sizeof(*r->task_dead)) : NULL;
	if (!r->task_dead) {
		c->bad = true;
		return;
	}
	for (size_t i = 0; i < r->ntask && !c->bad; i++) {
		struct bpfstats_task *t = &r->task[i];

		t->tid = get_u32(c);
		t->tgid = get_u32(c);
		get_cstr(c, t->comm, sizeof(t->comm));
		t->offcpu_ns = cur_var(c);
		t->offcpu_n = cur_var(c);
		t->runq_ns = cur_var(c);
		t->runq_n = cur_var(c);
		t->runq_max_ns = cur_var(c);
		r->task_dead[i] = cur_u8(c) != 0;
	}
	r->outl = get_array(c, 9, BPFSTATS_OUTLIERS_KEPT, sizeof(*r->outl), &r->noutl);
	if (!r->outl)
		return;
	for (size_t i = 0; i < r->noutl && !c->bad; i++) {
		struct bpfstats_outlier *o = &r->outl[i];

		o->ts = cur_var(c);
		o->ts_mono = cur_var(c);
		o->latency_ns = cur_var(c);
		o->pid = get_u32(c);
		o->tgid = get_u32(c);
		o->cpu = get_u32(c);
		o->prev_pid = get_u32(c);
		get_cstr(c, o->comm, sizeof(o->comm));
		get_cstr(c, o->prev_comm, sizeof(o->prev_comm));
	}
}

int ktop_bpf_decode(const uint8_t *p, size_t n, struct bpfstats_raw *r, char *err,
		    size_t errlen)
{
	struct cur c = { .p = p, .end = p + n };
	uint64_t version, us;
	uint8_t flags;

	memset(r, 0, sizeof(*r));
	version = cur_var(&c);
	if (!c.bad && version != BPF_BLOCK_VERSION) {
		snprintf(err, errlen, "BPF block of version %llu (this ktop reads %d)",
			 (unsigned long long)version, BPF_BLOCK_VERSION);
		return -EPROTO;
	}
	r->mono_ns = cur_var(&c);
	r->ncpus = get_u32(&c);
	r->nonline = get_u32(&c);
	flags = cur_u8(&c);
	r->irqs = flags & 1;
	r->syscalls = flags & 2;
	get_cstr(&c, r->mode, sizeof(r->mode));
	us = cur_var(&c);
	r->interval = (double)us / 1e6;
	if (!c.bad && (!r->ncpus || r->ncpus > BPF_MAX_CPUS || !us ||
		       r->ncpus > (size_t)(c.end - c.p) / 12))
		c.bad = true;
	if (!c.bad)
		get_cpus_and_irqs(&c, r);
	r->sys = get_array(&c, 7, SIZE_MAX, sizeof(*r->sys), &r->nsys);
	for (size_t i = 0; i < r->nsys && !c.bad; i++) {
		r->sys[i].id = get_u32(&c);
		r->sys[i].cpu = get_u32(&c);
		get_hist(&c, &r->sys[i].h);
	}
	if (!c.bad)
		get_tasks_and_outliers(&c, r);
	if (c.bad || c.p != c.end) {
		bpfstats_raw_free(r);
		snprintf(err, errlen, "a BPF block that does not parse (%zu bytes)", n);
		return -EBADMSG;
	}
	return 0;
}
