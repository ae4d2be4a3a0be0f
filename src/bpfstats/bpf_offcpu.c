// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wrapper around the generated skeleton of bpf/offcpu.bpf.c (bpf_offcpu.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../../bpf/offcpu.h"
#include "bpf_offcpu.h"
#include "lib/file.h"
#include "offcpu.skel.h"
#include "store/stacks.h"
#include "store/store.h"
#include "kernel/symbols.h"

#define SID_CACHE	8192	/* (kstack, ustack, tgid) -> table id, direct-mapped */

struct sid_entry {
	int32_t		k, u;
	uint32_t	tgid;
	uint32_t	id;		/* 0: empty */
};

struct bpf_offcpu {
	struct offcpu_bpf	*skel;
	const struct symbols	*ksyms;
	int			*pids;		/* -P: kept at poll */
	unsigned int		npids;
	bool			raw_tp;
	struct offcpu_key	*keys;
	struct offcpu_val	*vals;
	struct stack_weight	*w;
	struct bpf_offcpu_stats	last;
	struct stacks_cache	cache;
	struct sid_entry	sid[SID_CACHE];
};

/* libbpf's messages: kept for the reason string, never printed over the screen. */
static char offcpu_log[256];

static int __attribute__((format(printf, 2, 0)))
offcpu_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level != LIBBPF_DEBUG && !offcpu_log[0])
		vsnprintf(offcpu_log, sizeof(offcpu_log), fmt, ap);
	return 0;
}

static int offcpu_try(struct bpf_offcpu *b, const struct bpf_offcpu_opts *o, bool raw, char *why,
		      size_t whylen)
{
	struct offcpu_bpf *s;
	int err;

	offcpu_log[0] = '\0';
	s = offcpu_bpf__open();
	if (!s) {
		err = errno ? -errno : -ENOMEM;
		snprintf(why, whylen, "BPF off-CPU: cannot open the object: %s", strerror(-err));
		return err;
	}
	s->rodata->self_tgid = o->self_tgid ? o->self_tgid : (uint32_t)getpid();
	s->rodata->min_ns = o->min_ns;
	s->rodata->filter_pids = o->npids > 0;
	bpf_program__set_autoload(s->progs.ktop_offcpu, !raw);
	bpf_program__set_autoload(s->progs.ktop_offcpu_r, raw);
	err = offcpu_bpf__load(s);
	for (unsigned int i = 0; !err && i < o->npids && i < OFFCPU_MAX_PIDS; i++) {
		uint32_t pid = (uint32_t)o->pids[i];
		uint8_t one = 1;

		if (bpf_map_update_elem(bpf_map__fd(s->maps.ktop_offcpu_pids), &pid, &one, 0))
			err = -errno;
	}
	if (!err)
		err = offcpu_bpf__attach(s);
	if (err) {
		size_t n = strlen(offcpu_log);

		while (n && (offcpu_log[n - 1] == '\n' || offcpu_log[n - 1] == ' '))
			offcpu_log[--n] = '\0';
		snprintf(why, whylen, "BPF off-CPU: %s %s programs failed: %s%s%s%s",
			 s->links.ktop_offcpu || s->links.ktop_offcpu_r ? "attaching" : "loading",
			 raw ? "raw_tp" : "tp_btf", strerror(-err), offcpu_log[0] ? " (" : "",
			 offcpu_log, offcpu_log[0] ? ")" : "");
		offcpu_bpf__destroy(s);
		return err;
	}
	b->skel = s;
	b->raw_tp = raw;
	return 0;
}

int bpf_offcpu_open(struct bpf_offcpu **out, const struct bpf_offcpu_opts *o, char *why,
		    size_t whylen)
{
	struct bpf_offcpu_opts def = { 0 };
	struct bpf_offcpu *b;
	char why2[256];
	int err = -EINVAL;

	*out = NULL;
	if (!o)
		o = &def;
	libbpf_set_print(offcpu_print);
	b = calloc(1, sizeof(*b));
	if (b) {
		b->keys = calloc(OFFCPU_MAX_ENTRIES, sizeof(*b->keys));
		b->vals = calloc(OFFCPU_MAX_ENTRIES, sizeof(*b->vals));
		b->w = calloc(OFFCPU_MAX_ENTRIES, sizeof(*b->w));
	}
	if (!b || !b->keys || !b->vals || !b->w) {
		snprintf(why, whylen, "BPF off-CPU: out of memory");
		err = -ENOMEM;
		goto out_free;
	}
	b->ksyms = o->ksyms;
	if (o->npids) {
		b->pids = malloc(o->npids * sizeof(*b->pids));
		if (!b->pids) {
			err = -ENOMEM;
			goto out_free;
		}
		memcpy(b->pids, o->pids, o->npids * sizeof(*b->pids));
		b->npids = o->npids;
	}
	if (!o->force_raw_tp)
		err = offcpu_try(b, o, false, why, whylen);
	if (err) {
		err = offcpu_try(b, o, true, why2, sizeof(why2));
		if (err) {
			if (o->force_raw_tp)
				snprintf(why, whylen, "%s", why2);
			goto out_free;
		}
	}
	why[0] = '\0';
	*out = b;
	return 0;

out_free:
	bpf_offcpu_destroy(b);
	return err;
}

void bpf_offcpu_destroy(struct bpf_offcpu *b)
{
	if (!b)
		return;
	offcpu_bpf__destroy(b->skel);
	free(b->pids);
	free(b->keys);
	free(b->vals);
	free(b->w);
	free(b);
}

const char *bpf_offcpu_mode(const struct bpf_offcpu *b)
{
	return b->raw_tp ? "raw_tp" : "tp_btf";
}

/* The frames of stack map entry @id, leaf first. Return: how many (0: none). */
static unsigned int read_stack(struct bpf_offcpu *b, int32_t id, uint64_t *out)
{
	unsigned int n = 0;

	if (id < 0 || bpf_map_lookup_elem(bpf_map__fd(b->skel->maps.ktop_offcpu_stacks), &id, out))
		return 0;
	while (n < OFFCPU_STACK_DEPTH && out[n])
		n++;
	return n;
}

/* Frames of the BPF program and the tracepoint glue at the leaf of @kf. */
static unsigned int glue_frames(const struct bpf_offcpu *b, const uint64_t *kf, unsigned int n)
{
	for (unsigned int i = 0; b->ksyms && i < n && i < 8; i++) {
		const char *s = symbols_lookup(b->ksyms, kf[i], NULL);

		if (s && (!strncmp(s, "__traceiter_", 12) || !strncmp(s, "__bpf_trace_", 12)))
			return i + 1;
	}
	return 0;
}

/* The table id of the stack pair of @k, read from the stack map once. */
static uint32_t stack_id(struct bpf_offcpu *b, struct stacks *sk, const struct offcpu_key *k)
{
	uint64_t kf[OFFCPU_STACK_DEPTH], uf[OFFCPU_STACK_DEPTH];
	unsigned int nk, nu, skip;
	struct sid_entry *e;
	uint32_t h;

	h = ((uint32_t)k->kstack * 0x9e3779b1u) ^ ((uint32_t)k->ustack * 0x85ebca6bu) ^
	    (k->tgid * 0xc2b2ae35u);
	e = &b->sid[(h >> 13) & (SID_CACHE - 1)];
	if (e->id && e->k == k->kstack && e->u == k->ustack && e->tgid == k->tgid)
		return e->id;
	nk = read_stack(b, k->kstack, kf);
	nu = read_stack(b, k->ustack, uf);
	skip = glue_frames(b, kf, nk);
	e->id = stacks_intern(sk, kf + skip, nk - skip, uf, nu, k->tgid, 0, &b->cache);
	e->k = k->kstack;
	e->u = k->ustack;
	e->tgid = k->tgid;
	return e->id;
}

/* The totals, by batch when the kernel has it, else key by key. */
static size_t read_totals(struct bpf_offcpu *b)
{
	int fd = bpf_map__fd(b->skel->maps.ktop_offcpu_total);
	struct offcpu_key *prev = NULL, key;
	uint32_t in_b = 0, out_b = 0, count;
	bool first = true;
	size_t n = 0;
	int err;

	while (n < OFFCPU_MAX_ENTRIES) {
		count = (uint32_t)(OFFCPU_MAX_ENTRIES - n);
		err = bpf_map_lookup_batch(fd, first ? NULL : &in_b, &out_b, b->keys + n,
					   b->vals + n, &count, NULL);
		if (err && errno != ENOENT) {
			if (first)
				goto slow;
			break;
		}
		n += count;
		if (err)
			break;
		in_b = out_b;
		first = false;
	}
	return n;
slow:
	n = 0;
	while (n < OFFCPU_MAX_ENTRIES && !bpf_map_get_next_key(fd, prev, &b->keys[n])) {
		key = b->keys[n];
		prev = &key;
		if (!bpf_map_lookup_elem(fd, &key, &b->vals[n]))
			n++;
	}
	return n;
}

/* -P: is the thread or its process one of those asked? */
static bool offcpu_wanted(const struct bpf_offcpu *b, const struct offcpu_key *k)
{
	for (unsigned int i = 0; i < b->npids; i++)
		if ((uint32_t)b->pids[i] == k->pid || (uint32_t)b->pids[i] == k->tgid)
			return true;
	return !b->npids;
}

/* A name for threads the trace never named (they blocked, never scheduled in view). */
static void offcpu_comm(struct store *st, uint32_t pid)
{
	char path[64], comm[32];

	if (store_comm(st, (int32_t)pid))
		return;
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	if (!file_read_value(path, comm, sizeof(comm)))
		store_set_comm(st, (int32_t)pid, comm, 0);
}

int bpf_offcpu_poll(struct bpf_offcpu *b, struct store *st, struct bpf_offcpu_stats *out)
{
	struct bpf_offcpu_stats s = { 0 };
	struct stacks *sk = store_stacks(st);
	size_t n = read_totals(b), nw = 0;

	for (size_t i = 0; i < n; i++) {
		const struct offcpu_key *k = &b->keys[i];
		uint32_t id = 0;

		if (!offcpu_wanted(b, k))
			continue;
		s.entries++;
		s.ns += b->vals[i].ns;
		if (k->kstack >= 0 || k->ustack >= 0)
			id = stack_id(b, sk, k);
		if (!id || k->kstack < 0) {
			/* the stack map was full or collided: the time stays, the path is lost */
			s.lost_stacks++;
			s.lost_ns += b->vals[i].ns;
			if (!id)
				continue;
		}
		b->w[nw++] = (struct stack_weight){ .stack = id, .pid = (int32_t)k->pid,
						    .count = b->vals[i].count,
						    .value = b->vals[i].ns };
		offcpu_comm(st, k->pid);
	}
	if (out)
		*out = s;
	b->last = s;
	return stacks_weights_set(sk, STACKS_W_OFFCPU, b->w, nw);
}

void bpf_offcpu_last(const struct bpf_offcpu *b, struct bpf_offcpu_stats *out)
{
	*out = b->last;
}
