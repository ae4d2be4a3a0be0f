// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wrapper around the generated skeleton of bpf/kstat.bpf.c. This is the only
 * file that includes a .skel.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pthread.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpf_kstat.h"
#include "kstat.skel.h"

struct bpf_kstat {
	struct kstat_bpf	*skel;
	struct ring_buffer	*rb;
	bpf_kstat_outlier_fn	fn;
	void			*ctx;
	unsigned int		ncpus;
	bool			raw_tp;
	bool			syscalls;
	bool			irqs;
};

/*
 * libbpf talks through one global hook: keep its first warning of an attempt
 * (the failing program, not the generic "failed to load skeleton") for the
 * reason string; never print.
 */
static pthread_mutex_t kstat_log_lock = PTHREAD_MUTEX_INITIALIZER;
static char kstat_log_last[256];

static int __attribute__((format(printf, 2, 0)))
kstat_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char buf[256];
	size_t n;

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	pthread_mutex_lock(&kstat_log_lock);
	if (!kstat_log_last[0])
		snprintf(kstat_log_last, sizeof(kstat_log_last), "%s", buf);
	pthread_mutex_unlock(&kstat_log_lock);
	return 0;
}

static void kstat_why(char *why, size_t whylen, const char *what, int err)
{
	const char *last;

	pthread_mutex_lock(&kstat_log_lock);
	last = kstat_log_last;
	if (!strncmp(last, "libbpf: ", 8))
		last += 8;
	snprintf(why, whylen, "%s: %s%s%s", what, strerror(-err),
		 last[0] ? " (libbpf: " : "", last);
	if (last[0] && strlen(why) + 1 < whylen)
		strcat(why, ")");
	pthread_mutex_unlock(&kstat_log_lock);
}

static void kstat_select(struct kstat_bpf *s, bool raw, bool sys, bool irq)
{
	struct {
		struct bpf_program	*btf, *raw;
		bool			on;
	} p[] = {
		{ s->progs.ktop_switch, s->progs.ktop_switch_r, true },
		{ s->progs.ktop_wakeup, s->progs.ktop_wakeup_r, true },
		{ s->progs.ktop_wakeup_new, s->progs.ktop_wakeup_new_r, true },
		{ s->progs.ktop_exit, s->progs.ktop_exit_r, true },
		{ s->progs.ktop_exec, s->progs.ktop_exec_r, true },
		{ s->progs.ktop_irq_in, s->progs.ktop_irq_in_r, irq },
		{ s->progs.ktop_irq_out, s->progs.ktop_irq_out_r, irq },
		{ s->progs.ktop_sirq_in, s->progs.ktop_sirq_in_r, irq },
		{ s->progs.ktop_sirq_out, s->progs.ktop_sirq_out_r, irq },
		{ s->progs.ktop_sys_in, s->progs.ktop_sys_in_r, sys },
		{ s->progs.ktop_sys_out, s->progs.ktop_sys_out_r, sys },
	};
	size_t i;

	for (i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		bpf_program__set_autoload(p[i].btf, p[i].on && !raw);
		bpf_program__set_autoload(p[i].raw, p[i].on && raw);
	}
	/* each set has its own syscall scratch map; do not create the other */
	bpf_map__set_autocreate(s->maps.ktop_sys_tls, sys && !raw);
	bpf_map__set_autocreate(s->maps.ktop_sys_ts, raw);	/* ktop_exit_r uses it too */
}

static int kstat_rb_cb(void *ctx, void *data, size_t size)
{
	struct bpf_kstat *k = ctx;

	if (size < sizeof(struct kstat_outlier) || !k->fn)
		return 0;
	return k->fn(k->ctx, data);
}

static int kstat_try(struct bpf_kstat *k, const struct bpf_kstat_opts *o, bool raw,
		     char *why, size_t whylen)
{
	struct kstat_bpf *s;
	int err;

	pthread_mutex_lock(&kstat_log_lock);
	kstat_log_last[0] = '\0';
	pthread_mutex_unlock(&kstat_log_lock);
	s = kstat_bpf__open();
	if (!s) {
		err = -errno ? -errno : -ENOMEM;
		kstat_why(why, whylen, "BPF: cannot open the kstat object", err);
		return err;
	}
	s->rodata->self_tgid = o->self_tgid ? o->self_tgid : (uint32_t)getpid();
	s->rodata->outlier_ns = o->outlier_ns ? o->outlier_ns : 10000000ull;
	kstat_select(s, raw, k->syscalls, k->irqs);
	err = kstat_bpf__load(s);
	if (err) {
		kstat_why(why, whylen, raw ? "BPF: loading raw_tp programs failed" :
			  "BPF: loading tp_btf programs failed", err);
		goto out_destroy;
	}
	err = kstat_bpf__attach(s);
	if (err) {
		kstat_why(why, whylen, "BPF: attaching to tracepoints failed", err);
		goto out_destroy;
	}
	k->skel = s;
	k->raw_tp = raw;
	return 0;

out_destroy:
	kstat_bpf__destroy(s);
	return err;
}

int bpf_kstat_open(struct bpf_kstat **out, const struct bpf_kstat_opts *o,
		   bpf_kstat_outlier_fn fn, void *ctx, char *why, size_t whylen)
{
	struct bpf_kstat_opts def = {};
	struct bpf_kstat *k;
	char why2[256];
	int err, n;

	*out = NULL;
	if (!o)
		o = &def;
	libbpf_set_print(kstat_libbpf_print);
	n = libbpf_num_possible_cpus();
	if (n <= 0) {
		snprintf(why, whylen, "BPF: cannot count possible CPUs: %s", strerror(-n));
		return n < 0 ? n : -EINVAL;
	}
	k = calloc(1, sizeof(*k));
	if (!k) {
		snprintf(why, whylen, "BPF: out of memory");
		return -ENOMEM;
	}
	k->ncpus = n;
	k->fn = fn;
	k->ctx = ctx;
	k->syscalls = !o->no_syscalls;
	k->irqs = !o->no_irqs;

	err = -EINVAL;
	if (!o->force_raw_tp)
		err = kstat_try(k, o, false, why, whylen);
	if (err) {
		err = kstat_try(k, o, true, why2, sizeof(why2));
		if (err) {
			if (o->force_raw_tp)
				snprintf(why, whylen, "%s", why2);
			goto out_free;
		}
	}
	k->rb = ring_buffer__new(bpf_map__fd(k->skel->maps.ktop_outliers), kstat_rb_cb, k, NULL);
	if (!k->rb) {
		err = -errno ? -errno : -ENOMEM;
		kstat_why(why, whylen, "BPF: ring buffer", err);
		goto out_destroy;
	}
	why[0] = '\0';
	*out = k;
	return 0;

out_destroy:
	kstat_bpf__destroy(k->skel);
out_free:
	free(k);
	return err;
}

void bpf_kstat_destroy(struct bpf_kstat *k)
{
	if (!k)
		return;
	ring_buffer__free(k->rb);
	kstat_bpf__destroy(k->skel);
	free(k);
}

const char *bpf_kstat_mode(const struct bpf_kstat *k)
{
	return k->raw_tp ? "raw_tp" : "tp_btf";
}

unsigned int bpf_kstat_ncpus(const struct bpf_kstat *k)
{
	return k->ncpus;
}

bool bpf_kstat_has_syscalls(const struct bpf_kstat *k)
{
	return k->syscalls;
}

bool bpf_kstat_has_irqs(const struct bpf_kstat *k)
{
	return k->irqs;
}

/* Read every key of a per-CPU array, by batch when the kernel has it. */
static int kstat_read_array(struct bpf_map *m, void *out, uint32_t nkeys, size_t vsz,
			    unsigned int ncpus)
{
	int fd = bpf_map__fd(m);
	uint32_t key, count, out_batch;
	uint32_t *keys;
	int err;

	keys = malloc(nkeys * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	count = nkeys;
	err = bpf_map_lookup_batch(fd, NULL, &out_batch, keys, out, &count, NULL);
	if ((!err || err == -ENOENT) && count == nkeys) {
		free(keys);
		return 0;
	}
	free(keys);
	for (key = 0; key < nkeys; key++) {
		err = bpf_map_lookup_elem(fd, &key, (char *)out + (size_t)key * vsz * ncpus);
		if (err)
			return -errno;
	}
	return 0;
}

int bpf_kstat_read_cpu(struct bpf_kstat *k, struct kstat_cpu *out)
{
	uint32_t key = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(k->skel->maps.ktop_cpu), &key, out))
		return -errno;
	return 0;
}

int bpf_kstat_read_softirq(struct bpf_kstat *k, struct kstat_vec *out)
{
	return kstat_read_array(k->skel->maps.ktop_softirq, out, KSTAT_MAX_SOFTIRQS,
				sizeof(*out), k->ncpus);
}

int bpf_kstat_read_syscalls(struct bpf_kstat *k, struct kstat_hist *out)
{
	return kstat_read_array(k->skel->maps.ktop_sys, out, KSTAT_MAX_SYSCALLS,
				sizeof(*out), k->ncpus);
}

/*
 * Read a per-CPU hash: by batch (one syscall for many entries), else by
 * get_next_key + lookup. Entries may come and go meanwhile; a deleted one is
 * skipped.
 */
static int kstat_read_hash(struct bpf_map *m, uint32_t *keys, void *out, size_t vsz,
			   unsigned int ncpus, size_t max)
{
	int fd = bpf_map__fd(m);
	uint32_t in_b = 0, out_b = 0, count, key, next;
	bool first = true;
	void *prev = NULL;
	size_t n = 0;
	int err;

	while (n < max) {
		count = (uint32_t)(max - n);
		err = bpf_map_lookup_batch(fd, first ? NULL : &in_b, &out_b, keys + n,
					   (char *)out + n * vsz * ncpus, &count, NULL);
		if (err && err != -ENOENT) {
			if (first)
				goto slow;	/* no batch ops: walk */
			break;			/* -ENOSPC near the end: keep what we have */
		}
		n += count;
		if (err)
			break;
		in_b = out_b;
		first = false;
	}
	return (int)n;

slow:
	while (n < max && !bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, (char *)out + n * vsz * ncpus))
			continue;
		keys[n++] = key;
	}
	return (int)n;
}

int bpf_kstat_read_hardirq(struct bpf_kstat *k, uint32_t *irqs, struct kstat_vec *out,
			   size_t max)
{
	return kstat_read_hash(k->skel->maps.ktop_hardirq, irqs, out, sizeof(*out), k->ncpus,
			       max);
}

int bpf_kstat_read_tasks(struct bpf_kstat *k, uint32_t *tids, struct kstat_task *out,
			 size_t max)
{
	return kstat_read_hash(k->skel->maps.ktop_task, tids, out, sizeof(*out), 1, max);
}

int bpf_kstat_forget_task(struct bpf_kstat *k, uint32_t tid)
{
	if (bpf_map_delete_elem(bpf_map__fd(k->skel->maps.ktop_task), &tid))
		return -errno;
	return 0;
}

int bpf_kstat_drain_outliers(struct bpf_kstat *k)
{
	return ring_buffer__consume(k->rb);
}
