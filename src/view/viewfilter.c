// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * View filters (src/view/viewfilter.h): clauses, matching, and the per-chunk index.
 *
 * A chunk is decided from its dictionaries when it can be: no type of it can
 * match (an event clause, or an expression on fields its types lack), or no
 * pid of it passes the task clauses: none of its rows matches; every type
 * passes without an expression and every pid passes: all do. Only the other
 * chunks are decoded, and only the columns the clauses read. Results per pid
 * are remembered (task clauses with children walk the task tree).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "lib/clock.h"
#include "lib/err.h"
#include "lib/globmatch.h"
#include "store/meta.h"
#include "store/schema.h"
#include "model/net.h"
#include "model/stacktree.h"
#include "model/taskrel.h"
#include "viewfilter-local.h"

#define VF_BITS_WORDS	(STORE_CHUNK_EVENTS / 64)
#define VF_TREE_DEPTH	256

/*
 * typed_prefix[i] makes a clause of kind i; "buffer:" a VK_CPU one, "port:",
 * "addr:" and "conn:" VK_NET ones
 */
static const char *const typed_prefix[] = {
	"pid:", "comm:", "cpu:", "event:", "stack:", "buffer:", "port:", "addr:", "conn:",
};
#define TYPED_BUFFER	5	/* not a kind (VK_EXPR is never a typed one) */
#define TYPED_PORT	6	/* port:, then addr:, conn: (vf_net_parse's what) */

/* ---- clauses ---------------------------------------------------------------------- */

static void clause_free(struct vf_clause *c)
{
	free(c->text);
	free(c->pids);
	free(c->glob);
	free(c->cpus);
	for (size_t i = 0; i < c->nev; i++)
		free(c->ev[i]);
	free(c->ev);
	vfexpr_free(c->x);
	vf_stack_free(c);
	vf_net_free(c);
	memset(c, 0, sizeof(*c));
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

/* "12,34" with an optional '+' at the end. */
static int parse_pids(struct vf_clause *c, const char *s, int off, struct err_pos *err)
{
	const char *p = s;

	for (;;) {
		char *end;
		long v;
		int32_t *n;

		errno = 0;
		v = strtol(p, &end, 10);
		if (end == p || errno || v < 0 || v > INT32_MAX || (*end && !strchr(",+", *end)))
			return vf_err(err, off + (int)(p - s), "pid: wants task ids (12,34), not '%s'",
				      p);
		n = realloc(c->pids, (c->npids + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		c->pids = n;
		c->pids[c->npids++] = (int32_t)v;
		p = end;
		if (*p == '+') {
			if (p[1])
				return vf_err(err, off + (int)(p - s) + 1, "'+' ends the list");
			c->flags |= VIEWFILTER_KIDS;
			break;
		}
		if (!*p)
			break;
		p++;
	}
	qsort(c->pids, c->npids, sizeof(*c->pids), cmp_i32);
	return 0;
}

/* "0-3,6" into a bitmap of @ncpus CPUs (0: the syntax only). */
static int parse_cpus(struct vf_clause *c, const char *s, int off, unsigned int ncpus,
		      struct err_pos *err)
{
	size_t words = ncpus ? (ncpus + 63) / 64 : 1;
	const char *p = s;

	c->cpus = calloc(words, sizeof(*c->cpus));
	if (!c->cpus)
		return -ENOMEM;
	for (;;) {
		unsigned long a, b;
		char *end;

		if (*p < '0' || *p > '9')
			return vf_err(err, off + (int)(p - s), "cpu: wants a CPU list (0-3,6)");
		a = b = strtoul(p, &end, 10);
		if (*end == '-') {
			const char *q = end + 1;

			if (*q < '0' || *q > '9')
				return vf_err(err, off + (int)(q - s), "cpu: wants a CPU list (0-3,6)");
			b = strtoul(q, &end, 10);
		}
		if (b < a)
			return vf_err(err, off + (int)(p - s), "cpu: %lu-%lu is an empty range", a, b);
		if (ncpus && b >= ncpus)
			return vf_err(err, off + (int)(p - s), "cpu: no CPU %lu here (0-%u)", b,
				      ncpus - 1);
		for (unsigned long k = a; ncpus && k <= b; k++)
			c->cpus[k / 64] |= 1ull << (k % 64);
		p = end;
		if (!*p)
			return 0;
		if (*p != ',')
			return vf_err(err, off + (int)(p - s), "cpu: wants a CPU list (0-3,6)");
		p++;
	}
}

/*
 * "NAME,NAME" into a bitmap of the CPUs of those buffers; @vf NULL: the
 * syntax only. Without a buffer table, "top" is every CPU.
 */
static int parse_buffers(struct vf_clause *c, const char *s, int off,
			 const struct viewfilter *vf, struct err_pos *err)
{
	unsigned int ncpus = vf ? store_ncpus(vf->st) : 0;
	const char *p = s;

	c->cpus = calloc(ncpus ? (ncpus + 63) / 64 : 1, sizeof(*c->cpus));
	if (!c->cpus)
		return -ENOMEM;
	for (;;) {
		size_t len = strcspn(p, ",");
		const struct vf_buffer *b = NULL;
		char have[256] = "top";

		if (!len)
			return vf_err(err, off + (int)(p - s), "buffer: wants a buffer's name");
		for (size_t i = 0; vf && i < vf->nbufs && !b; i++)
			if (strlen(vf->bufs[i].name) == len && !strncmp(vf->bufs[i].name, p, len))
				b = &vf->bufs[i];
		if (vf && !b && !vf->nbufs && len == 3 && !strncmp(p, "top", 3)) {
			for (unsigned int k = 0; k < ncpus; k++)
				c->cpus[k / 64] |= 1ull << (k % 64);
		} else if (vf && !b) {
			for (size_t i = 0, n = 0; i < vf->nbufs && n < sizeof(have); i++)
				n += (size_t)snprintf(have + n, sizeof(have) - n, "%s%s",
						      i ? ", " : "", vf->bufs[i].name);
			return vf_err(err, off + (int)(p - s), "buffer: no buffer '%.*s' here (%s)",
				      (int)len, p, have);
		}
		for (uint32_t k = b ? b->cpu0 : 0; b && k < b->cpu0 + b->ncpus && k < ncpus; k++)
			c->cpus[k / 64] |= 1ull << (k % 64);
		p += len;
		if (!*p)
			return 0;
		p++;
	}
}

static bool ev_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       strchr("_*?[]!:/.,-", ch);
}

/* Does type @t match the event glob @g (SYS:NAME, SYS/NAME, or NAME matching either)? */
static bool ev_glob_match(const char *g, const struct ktop_schema_type *t)
{
	const char *sep = strpbrk(g, ":/");
	char sys[256];

	if (!sep)
		return glob_match(g, t->name) || glob_match(g, t->system);
	if ((size_t)(sep - g) >= sizeof(sys))
		return false;
	memcpy(sys, g, sep - g);
	sys[sep - g] = 0;
	return glob_match(sys, t->system) && glob_match(sep + 1, t->name);
}

static bool clause_ev_match(const struct vf_clause *c, const struct ktop_schema_type *t)
{
	for (size_t i = 0; i < c->nev; i++)
		if (ev_glob_match(c->ev[i], t))
			return true;
	return false;
}

/* "sched:sched_switch,irq:*" (@len bytes) into c->ev; checked against @st's types when given. */
static int parse_events(struct vf_clause *c, const char *s, size_t len, int off,
			struct store *st, struct err_pos *err)
{
	size_t i = 0;

	while (i < len) {
		size_t k = i;
		char *g, **v;

		while (k < len && s[k] != ',')
			k++;
		if (k == i)
			return vf_err(err, off + (int)i, "event: wants SYSTEM:NAME globs");
		for (size_t j = i; j < k; j++)
			if (!ev_char(s[j]))
				return vf_err(err, off + (int)j, "event: '%c' in an event name", s[j]);
		g = strndup(s + i, k - i);
		v = g ? realloc(c->ev, (c->nev + 1) * sizeof(*v)) : NULL;
		if (!v) {
			free(g);
			return -ENOMEM;
		}
		c->ev = v;
		c->ev[c->nev++] = g;
		if (st) {
			const struct schema *sc = store_schema(st);
			bool any = false;

			for (unsigned int id = 1; id < schema_max_id(sc) && !any; id++) {
				const struct ktop_schema_type *t = schema_get(sc, (uint16_t)id);

				any = t && ev_glob_match(g, t);
			}
			if (!any)
				return vf_err(err, off + (int)i, "no event here matches '%s'", g);
		}
		i = k + 1;
	}
	return 0;
}

/*
 * Parse one clause of @text into @c. @vf gives the store and the live field
 * names; NULL: the syntax only.
 */
static int parse_clause(struct viewfilter *vf, const char *text, struct vf_clause *c,
			struct err_pos *err)
{
	struct store *st = vf ? vf->st : NULL;
	const char *p = text, *rest;
	size_t tok, len;
	int kind = -1, ret, base;

	memset(c, 0, sizeof(*c));
	while (*p == ' ' || *p == '\t')
		p++;
	base = (int)(p - text);
	len = strlen(p);
	while (len && (p[len - 1] == ' ' || p[len - 1] == '\t' || p[len - 1] == '\n'))
		len--;
	if (!len)
		return vf_err(err, (int)(p - text), "empty filter");
	if (len > VIEWFILTER_TEXT_MAX)
		return vf_err(err, VIEWFILTER_TEXT_MAX, "filter longer than %d bytes",
			      VIEWFILTER_TEXT_MAX);
	c->text = strndup(p, len);
	if (!c->text)
		return -ENOMEM;
	p = c->text;
	for (size_t i = 0; i < sizeof(typed_prefix) / sizeof(typed_prefix[0]) && kind < 0; i++) {
		const char *q = p + (*p == '!');

		if (!strncmp(q, typed_prefix[i], strlen(typed_prefix[i]))) {
			kind = (int)i;
			c->flags |= *p == '!' ? VIEWFILTER_NOT : 0;
			p = q + strlen(typed_prefix[i]);
		}
	}
	/* offsets below are into c->text: add where it starts in @text */
	ret = base;
	switch (kind) {
	case VK_PID:
		c->kind = VK_PID;
		return parse_pids(c, p, ret + (int)(p - c->text), err);
	case VK_COMM:
		c->kind = VK_COMM;
		len = strlen(p);
		if (len && p[len - 1] == '+') {
			c->flags |= VIEWFILTER_KIDS;
			len--;
		}
		if (!len)
			return vf_err(err, ret + (int)(p - c->text), "comm: wants a name or a glob");
		c->glob = strndup(p, len);
		return c->glob ? 0 : -ENOMEM;
	case VK_CPU:
		c->kind = VK_CPU;
		return parse_cpus(c, p, ret + (int)(p - c->text), st ? store_ncpus(st) : 0, err);
	case VK_EVENT:
		c->kind = VK_EVENT;
		return parse_events(c, p, strlen(p), ret + (int)(p - c->text), st, err);
	case VK_STACK:
		c->kind = VK_STACK;
		return vf_stack_parse(c, p, ret + (int)(p - c->text), err);
	case TYPED_BUFFER:
		c->kind = VK_CPU;
		return parse_buffers(c, p, ret + (int)(p - c->text), vf, err);
	case TYPED_PORT:
	case TYPED_PORT + 1:
	case TYPED_PORT + 2:
		return vf_net_parse(c, (unsigned int)(kind - TYPED_PORT), p,
				    ret + (int)(p - c->text), err);
	}
	/* EV,EV: EXPR (trace-cmd report -F), EV,EV alone, or EXPR */
	tok = strcspn(p, " \t");
	for (len = 0; len < tok && ev_char(p[len]); len++)
		;
	c->kind = VK_EXPR;
	if (len == tok && tok > 1 && p[tok - 1] == ':' && p[tok]) {
		ret = parse_events(c, p, tok - 1, ret, st, err);
		if (ret)
			return ret;
		rest = p + tok;
	} else if (len == tok && !p[tok] && vfexpr_parse(&c->x, p, NULL, NULL, NULL, NULL)) {
		c->kind = VK_EVENT;
		return parse_events(c, p, tok, ret, st, err);
	} else {
		rest = p;
	}
	vfexpr_free(c->x);
	c->x = NULL;
	ret += (int)(rest - c->text);
	if (vfexpr_parse(&c->x, rest, st, vf ? vf->known : NULL, vf ? vf->known_arg : NULL,
			 err)) {
		if (err)
			err->offset += ret;
		return -EINVAL;
	}
	return 0;
}

int viewfilter_check(const char *text, struct err_pos *err)
{
	struct vf_clause c;
	int ret = parse_clause(NULL, text, &c, err);

	clause_free(&c);
	return ret;
}

/* ---- derived state ---------------------------------------------------------------- */

static void seg_reset(struct vf_seg *s)
{
	free(s->bits);
	s->bits = NULL;
	s->done = s->count = 0;
	s->kind = SK_NONE;
	s->by_dict = false;
}

/* The clauses changed: recompute what derives from them, forget every result. */
static void vf_derive(struct viewfilter *vf)
{
	size_t words = (vf->ncpus + 63) / 64;

	vf->gen++;
	if (vf->ntype) {
		memset(vf->tcls, TC_UNKNOWN, vf->ntype);
		memset(vf->tmask, 0, vf->ntype * sizeof(*vf->tmask));
	}
	memset(vf->cpuok, 0xff, words * sizeof(*vf->cpuok));
	vf->has_task = vf->has_kids = vf->has_comm = vf->has_stack = vf->has_net = false;
	if (vf->stk)
		memset(vf->stk, 0, vf->nstk);
	for (size_t i = 0; i < vf->nc; i++) {
		const struct vf_clause *c = &vf->c[i];

		if (c->kind == VK_CPU) {
			for (size_t w = 0; w < words; w++)
				vf->cpuok[w] &= c->flags & VIEWFILTER_NOT ? ~c->cpus[w] : c->cpus[w];
		}
		vf->has_stack |= c->kind == VK_STACK;
		vf->has_net |= c->kind == VK_NET;
		if (c->kind == VK_PID || c->kind == VK_COMM) {
			vf->has_task = true;
			vf->has_kids |= (c->flags & VIEWFILTER_KIDS) && vf->tr;
			vf->has_comm |= c->kind == VK_COMM;
		}
	}
	hmap_clear(&vf->memo);
	if (vf->has_kids) {
		if (vf->procdir && !vf->proc_read) {
			taskrel_scan_proc(vf->tr, vf->procdir);
			vf->proc_read = true;
		}
		taskrel_update(vf->tr);
	}
	if (vf->tr)
		vf->rel_cursor = taskrel_gen(vf->tr);
	vf_net_reset(vf);
	for (unsigned int cpu = 0; cpu < vf->ncpus; cpu++)
		for (size_t k = vf->cpu[cpu].lo; k < vf->cpu[cpu].hi; k++)
			seg_reset(&vf->cpu[cpu].v[k]);
}

uint8_t vf_tclass(struct viewfilter *vf, uint16_t type)
{
	const struct ktop_schema_type *t;
	uint8_t cls = TC_PASS;
	uint32_t mask = 0;

	if (type >= vf->ntype) {
		size_t n = (size_t)type + 256;
		uint8_t *c = realloc(vf->tcls, n);
		uint32_t *m = c ? realloc(vf->tmask, n * sizeof(*m)) : NULL;

		if (c)
			vf->tcls = c;
		if (!m)
			return TC_NO;
		vf->tmask = m;
		memset(vf->tcls + vf->ntype, TC_UNKNOWN, n - vf->ntype);
		memset(vf->tmask + vf->ntype, 0, (n - vf->ntype) * sizeof(*m));
		vf->ntype = n;
	}
	if (vf->tcls[type] != TC_UNKNOWN)
		return vf->tcls[type];
	t = schema_get(store_schema(vf->st), type);
	if (!t)
		return TC_NO;	/* not registered yet: no held event has it */
	for (size_t i = 0; i < vf->nc && cls != TC_NO; i++) {
		struct vf_clause *c = &vf->c[i];

		if (c->kind == VK_EVENT) {
			if (clause_ev_match(c, t) == !!(c->flags & VIEWFILTER_NOT))
				cls = TC_NO;
		} else if (c->kind == VK_NET) {
			/* an event with nothing network: no end to match, nothing to join */
			if (vf_net_tclass(vf, c, type) == TC_NO)
				cls = c->flags & VIEWFILTER_NOT ? cls : TC_NO;
			else
				mask |= 1u << i;
		} else if (c->kind == VK_EXPR) {
			enum vfexpr_verdict v = vfexpr_type(c->x, type);

			if ((c->nev && !clause_ev_match(c, t)) || v == VFX_FALSE)
				cls = TC_NO;
			else if (v == VFX_EVAL)
				mask |= 1u << i;
		}
	}
	if (cls != TC_NO && mask)
		cls = TC_EVAL;
	vf->tcls[type] = cls;
	vf->tmask[type] = mask;
	return cls;
}

static const char *vf_comm(const struct viewfilter *vf, int32_t pid)
{
	return store_task_name(vf->st, pid);
}

/* Does @pid (or, with children, an ancestor) match the task clause @c? */
static bool clause_task_match(const struct viewfilter *vf, const struct vf_clause *c, int32_t pid)
{
	for (int depth = 0; depth < VF_TREE_DEPTH && pid >= 0; depth++) {
		if (c->kind == VK_PID) {
			if (bsearch(&pid, c->pids, c->npids, sizeof(*c->pids), cmp_i32))
				return true;
		} else if (glob_match(c->glob, vf_comm(vf, pid))) {
			return true;
		}
		if (!(c->flags & VIEWFILTER_KIDS) || !vf->tr || pid <= 0)
			break;
		pid = taskrel_up(vf->tr, pid);
	}
	return false;
}

static bool task_eval(const struct viewfilter *vf, int32_t pid)
{
	for (size_t i = 0; i < vf->nc; i++) {
		const struct vf_clause *c = &vf->c[i];

		if ((c->kind == VK_PID || c->kind == VK_COMM) &&
		    clause_task_match(vf, c, pid) == !!(c->flags & VIEWFILTER_NOT))
			return false;
	}
	return true;
}

bool vf_pid_ok(struct viewfilter *vf, int32_t pid)
{
	uint64_t tag, *v;
	bool r;

	if (!vf->has_task)
		return true;
	/* a name clause holds while the task keeps the name it had */
	tag = vf->has_comm ? (uint64_t)(uintptr_t)store_comm(vf->st, pid) : 0;
	v = hmap_get(&vf->memo, (uint32_t)pid);
	if (v && (*v & ~3ull) == tag)
		return (*v & 3) == 2;
	r = task_eval(vf, pid);
	v = hmap_put(&vf->memo, (uint32_t)pid, NULL);
	if (v)
		*v = tag | (r ? 2 : 1);
	return r;
}

/*
 * The whole match of one event, from its parts (@pid_known: false when not
 * decoded; @stack: its stack id, read whenever there are stack clauses).
 */
static bool vf_match_row(struct viewfilter *vf, uint8_t cls, const struct vfexpr_ev *e,
			 bool pid_known, uint32_t stack)
{
	uint32_t mask;

	if (cls == TC_NO || (pid_known && !vf_pid_ok(vf, e->pid)) || !vf_stack_ok(vf, stack))
		return false;
	for (mask = cls == TC_EVAL ? vf->tmask[e->type] : 0; mask; mask &= mask - 1) {
		const struct vf_clause *c = &vf->c[__builtin_ctz(mask)];

		if (c->kind == VK_NET) {
			if (vf_net_eval(vf, c, e) == !!(c->flags & VIEWFILTER_NOT))
				return false;
		} else if (!vfexpr_eval(c->x, e)) {
			return false;
		}
	}
	return true;
}

bool viewfilter_match(struct viewfilter *vf, const struct ktop_event *ev)
{
	struct vfexpr_ev e = {
		.args = ev->args, .ts = ev->ts, .pid = ev->pid, .cpu = ev->cpu, .type = ev->type,
		.flags = ev->flags, .pc = ev->pc, .nargs = ev->nargs,
	};

	if (!vf->nc)
		return true;
	if (!vf_cpu_ok(vf, ev->cpu))
		return false;
	if (vf->has_net)
		vf_net_sync(vf, ev->ts + VF_NET_AHEAD_NS);
	return vf_match_row(vf, vf_tclass(vf, ev->type), &e, true, ev->stack);
}

bool viewfilter_task_ok(struct viewfilter *vf, int32_t pid)
{
	return vf_pid_ok(vf, pid);
}

bool viewfilter_cpu_ok(struct viewfilter *vf, unsigned int cpu)
{
	return vf_cpu_ok(vf, cpu);
}

static bool vf_query_keep(void *ctx, const struct ktop_event *ev)
{
	return viewfilter_match(ctx, ev);
}

static bool vf_query_task_ok(void *ctx, int32_t pid)
{
	return vf_pid_ok(ctx, pid);
}

void viewfilter_stack_query(struct viewfilter *vf, struct stack_query *q)
{
	if (!vf)
		return;
	q->keep = vf_query_keep;
	q->keep_ctx = vf;
	q->task_ok = vf_query_task_ok;
	q->task_ctx = vf;
}

/* ---- the index ------------------------------------------------------------------------ */

static int seg_to_bits(struct vf_seg *s)
{
	s->bits = calloc(VF_BITS_WORDS, sizeof(*s->bits));
	if (!s->bits)
		return -ENOMEM;
	if (s->kind == SK_ALL) {
		for (uint32_t i = 0; i < s->done; i++)
			s->bits[i / 64] |= 1ull << (i % 64);
	}
	s->kind = SK_BITS;
	return 0;
}

/* Rows [done, n) all match (@all) or none does. */
static int seg_fill(struct vf_seg *s, bool all)
{
	uint8_t kind = all ? SK_ALL : SK_NONE;

	if (s->done && s->kind != kind) {
		if (s->kind != SK_BITS && seg_to_bits(s))
			return -ENOMEM;
		for (uint32_t i = s->done; all && i < s->n; i++)
			s->bits[i / 64] |= 1ull << (i % 64);
	} else {
		s->kind = kind;
	}
	s->count += all ? s->n - s->done : 0;
	s->done = s->n;
	return 0;
}

/* Row @s->done matches or not. */
static inline int seg_put(struct vf_seg *s, bool m)
{
	uint32_t i = s->done;

	if (!i)
		s->kind = m ? SK_ALL : SK_NONE;
	else if (s->kind != SK_BITS && (s->kind == SK_ALL) != m && seg_to_bits(s))
		return -ENOMEM;
	if (m && s->kind == SK_BITS)
		s->bits[i / 64] |= 1ull << (i % 64);
	s->count += m;
	s->done = i + 1;
	return 0;
}

/*
 * What a sealed chunk's dictionaries decide. Return: 1 all match, 0 none,
 * -1 the rows must say (*@cols: the columns they need), or a negative errno
 * below -1 (-ENOENT: evicted).
 */
static int seg_dict(struct viewfilter *vf, unsigned int cpu, const struct vf_seg *s,
		    unsigned int *cols)
{
	bool tall = true, tnone = true, pall = true, pnone = true, args = false;
	struct store_chunk_dict d;
	int ret = store_chunk_dict(vf->rd, cpu, s->first_seq, &d);

	if (ret)
		return ret == -EAGAIN ? -1 : ret;
	for (uint32_t i = 0; i < d.ntype; i++) {
		uint8_t c = vf_tclass(vf, d.type[i]);

		tnone &= c == TC_NO;
		tall &= c == TC_PASS;
		args |= c == TC_EVAL;
	}
	if (tnone)
		return 0;
	for (uint32_t i = 0; vf->has_task && i < d.npid; i++) {
		bool ok = vf_pid_ok(vf, d.pid[i]);

		pnone &= !ok;
		pall &= ok;
	}
	if (pnone && vf->has_task)
		return 0;
	/* stacks are no dictionary of the chunk's: the rows say (their column comes with ALL) */
	if (tall && pall && !vf->has_stack)
		return 1;
	*cols = STORE_COL_TYPE | (pall ? 0 : STORE_COL_PID) |
		(args || vf->has_stack ? STORE_COL_ALL : 0);
	return -1;
}

int vf_seg_eval(struct viewfilter *vf, unsigned int cpu, struct vf_seg *s)
{
	unsigned int cols = STORE_COL_TYPE | STORE_COL_PID;
	struct store_chunk_rows r;
	bool need_pid = true;
	int ret;

	if (s->done >= s->n)
		return 0;
	if (!vf_cpu_ok(vf, cpu))
		return seg_fill(s, false);
	if (!vf->nc)
		return seg_fill(s, true);
	for (size_t i = 0; i < vf->nc; i++)
		if (vf->c[i].kind == VK_EXPR || vf->c[i].kind == VK_STACK || vf->c[i].kind == VK_NET)
			cols = STORE_COL_ALL;
	if (s->sealed) {
		ret = seg_dict(vf, cpu, s, &cols);
		if (ret == -ENOENT)
			return seg_fill(s, false);	/* evicted: the next sync drops it */
		if (ret >= 0) {
			s->by_dict = !s->done;
			return seg_fill(s, ret);
		}
		if (ret < -1)
			return ret;
		need_pid = cols & STORE_COL_PID;
	}
	if (vf->has_net) {
		/* the joins up to the segment's end, before the rows (the open one: to now) */
		ret = vf_net_sync(vf, s->sealed ? s->t_max + VF_NET_AHEAD_NS : UINT64_MAX - 1);
		if (ret)
			return ret;
	}
	ret = store_chunk_rows(vf->rd, cpu, s->first_seq + s->done, cols, &r);
	if (ret)
		return ret == -ENOENT ? seg_fill(s, false) : ret;
	for (uint32_t i = r.lo; i < r.n && i < s->n; i++) {
		const struct store_brow *w = &r.row[i];
		struct vfexpr_ev e = {
			.args = &r.args[w->aoff], .ts = w->ts, .pid = w->pid, .cpu = (uint16_t)cpu,
			.type = w->type, .flags = w->flags, .pc = w->pc, .nargs = w->nargs,
		};

		ret = seg_put(s, vf_match_row(vf, vf_tclass(vf, w->type), &e, need_pid,
					      vf->has_stack ? w->stack : 0));
		if (ret)
			return ret;
	}
	return 0;
}

ssize_t vf_seg_find(const struct viewfilter *vf, unsigned int cpu, uint64_t seq)
{
	const struct vf_cpu *c = &vf->cpu[cpu];
	size_t lo = c->lo, hi = c->hi;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->v[mid].first_seq <= seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == c->lo || seq >= c->v[lo - 1].first_seq + c->v[lo - 1].n)
		return -1;
	return (ssize_t)(lo - 1);
}

static struct vf_seg *seg_append(struct vf_cpu *c)
{
	if (array_fifo_room((void **)&c->v, &c->lo, &c->hi, &c->cap, sizeof(*c->v)))
		return NULL;
	memset(&c->v[c->hi], 0, sizeof(c->v[0]));
	return &c->v[c->hi++];
}

int vf_sync_cpu(struct viewfilter *vf, unsigned int cpu)
{
	struct store_chunk_info ci[128];
	struct vf_cpu *c = &vf->cpu[cpu];
	uint64_t first, end, from;
	size_t n;

	store_cpu_range(vf->st, cpu, &first, &end);
	/* chunks are evicted whole */
	while (c->lo < c->hi && c->v[c->lo].first_seq < first)
		seg_reset(&c->v[c->lo++]);
	if (c->lo == c->hi)
		c->lo = c->hi = 0;
	from = c->hi ? c->v[c->hi - 1].first_seq : first;
	do {
		n = store_chunks(vf->st, cpu, from, ci, 128);
		for (size_t k = 0; k < n; k++) {
			struct vf_seg *s = c->hi > c->lo ? &c->v[c->hi - 1] : NULL;

			if (!s || ci[k].first_seq > s->first_seq) {
				s = seg_append(c);
				if (!s)
					return -ENOMEM;
				s->first_seq = ci[k].first_seq;
				s->t_min = ci[k].t_min;
			} else if (ci[k].first_seq < s->first_seq) {
				continue;
			}
			if (ci[k].n > s->n)
				s->n = ci[k].n;
			s->t_max = ci[k].t_max;
			s->sealed = ci[k].sealed;
			from = ci[k].first_seq + ci[k].n;
		}
	} while (n == 128);
	return 0;
}

/*
 * New task links: the results of pids whose answer changed are redone, and
 * the chunks holding such a pid (from the earliest fork learned on) evaluated
 * again.
 */
static int vf_relations(struct viewfilter *vf)
{
	struct hmap changed = { 0 };
	uint64_t gen, min_birth = UINT64_MAX, key, v;
	size_t pos = 0;
	int32_t pid;

	if (!vf->has_kids)
		return 0;
	taskrel_update(vf->tr);
	gen = taskrel_gen(vf->tr);
	if (gen == vf->rel_cursor)
		return 0;
	while (vf->rel_cursor < gen) {
		uint64_t b;

		taskrel_changes(vf->tr, &vf->rel_cursor, &pid, 1);
		b = taskrel_birth(vf->tr, pid);
		min_birth = b < min_birth ? b : min_birth;
	}
	while (hmap_next(&vf->memo, &pos, &key, &v)) {
		bool r = task_eval(vf, (int32_t)(uint32_t)key);

		if (r != ((v & 3) == 2) && !hmap_put(&changed, key, NULL))
			goto out_nomem;
		/* a value, not a key: the walk goes on */
		*hmap_get(&vf->memo, key) = (v & ~3ull) | (r ? 2 : 1);
	}
	for (unsigned int cpu = 0; changed.n && cpu < vf->ncpus; cpu++) {
		struct vf_cpu *c = &vf->cpu[cpu];

		for (size_t k = c->lo; k < c->hi; k++) {
			struct vf_seg *s = &c->v[k];
			struct store_chunk_dict d;
			bool hit = !s->sealed;

			if (!s->done || s->t_max < min_birth)
				continue;
			if (!hit && !store_chunk_dict(vf->rd, cpu, s->first_seq, &d))
				for (uint32_t i = 0; i < d.npid && !hit; i++)
					hit = hmap_get(&changed, (uint32_t)d.pid[i]) != NULL;
			if (hit)
				seg_reset(s);
		}
	}
	hmap_destroy(&changed);
	return 0;
out_nomem:
	hmap_destroy(&changed);
	return -ENOMEM;
}

/*
 * Joins learnt about time already evaluated (a CPU that published late): the
 * segments from there on are evaluated again.
 */
static void vf_net_dirty(struct viewfilter *vf)
{
	if (!vf->has_net || vf->net_dirty == UINT64_MAX)
		return;
	for (unsigned int cpu = 0; cpu < vf->ncpus; cpu++)
		for (size_t k = vf->cpu[cpu].lo; k < vf->cpu[cpu].hi; k++)
			if (vf->cpu[cpu].v[k].done && vf->cpu[cpu].v[k].t_max >= vf->net_dirty)
				seg_reset(&vf->cpu[cpu].v[k]);
	vf->net_dirty = UINT64_MAX;
}

bool viewfilter_update(struct viewfilter *vf, uint64_t budget_ns)
{
	uint64_t t0 = clock_mono_ns();
	unsigned int steps = 0;

	vf_relations(vf);
	for (unsigned int cpu = 0; cpu < vf->ncpus; cpu++)
		vf_sync_cpu(vf, cpu);
	if (vf->has_net) {
		vf_net_sync(vf, UINT64_MAX - 1);
		vf_net_dirty(vf);
	}
	/* newest first: what a view shows first is counted first */
	for (unsigned int cpu = 0; cpu < vf->ncpus; cpu++) {
		struct vf_cpu *c = &vf->cpu[cpu];

		for (size_t k = c->hi; k > c->lo; k--) {
			struct vf_seg *s = &c->v[k - 1];

			if (s->done >= s->n)
				continue;
			if (vf_seg_eval(vf, cpu, s))
				return false;
			if (budget_ns && !(++steps & 7) && clock_mono_ns() - t0 > budget_ns)
				return false;
		}
	}
	return true;
}

void viewfilter_counts(const struct viewfilter *vf, struct viewfilter_counts *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned int cpu = 0; cpu < vf->ncpus; cpu++) {
		const struct vf_cpu *c = &vf->cpu[cpu];

		for (size_t k = c->lo; k < c->hi; k++) {
			out->matched += c->v[k].count;
			out->evaluated += c->v[k].done;
			out->held += c->v[k].n;
			out->chunks++;
			out->by_dict += c->v[k].by_dict;
		}
	}
}

/* ---- life cycle and clause stack ----------------------------------------------------- */

struct viewfilter *viewfilter_new(struct store *st, struct taskrel *tr)
{
	struct viewfilter *vf = calloc(1, sizeof(*vf));

	if (!vf)
		return NULL;
	vf->st = st;
	vf->tr = tr;
	vf->ncpus = store_ncpus(st);
	vf->cpu = calloc(vf->ncpus, sizeof(*vf->cpu));
	vf->cpuok = calloc((vf->ncpus + 63) / 64, sizeof(*vf->cpuok));
	vf->rd = store_chunk_rd_new(st);
	vf->netf = net_fields_new(st);
	vf->net_next = calloc(vf->ncpus ? vf->ncpus : 1, sizeof(*vf->net_next));
	if (!vf->cpu || !vf->cpuok || !vf->rd || !vf->netf || !vf->net_next) {
		viewfilter_free(vf);
		return NULL;
	}
	vf_derive(vf);
	return vf;
}

void viewfilter_free(struct viewfilter *vf)
{
	if (!vf)
		return;
	for (size_t i = 0; i < vf->nc; i++)
		clause_free(&vf->c[i]);
	for (unsigned int cpu = 0; vf->cpu && cpu < vf->ncpus; cpu++) {
		for (size_t k = vf->cpu[cpu].lo; k < vf->cpu[cpu].hi; k++)
			free(vf->cpu[cpu].v[k].bits);
		free(vf->cpu[cpu].v);
	}
	free(vf->cpu);
	free(vf->cpuok);
	free(vf->tcls);
	free(vf->tmask);
	free(vf->stk);
	hmap_destroy(&vf->memo);
	store_chunk_rd_free(vf->rd);
	net_fields_free(vf->netf);
	free(vf->net_next);
	free(vf->bufs);
	free(vf);
}

int viewfilter_set_buffers(struct viewfilter *vf, const struct snapshot_meta *m)
{
	free(vf->bufs);
	vf->bufs = NULL;
	vf->nbufs = 0;
	if (!m || !m->nbuffers)
		return 0;
	vf->bufs = calloc(m->nbuffers, sizeof(*vf->bufs));
	if (!vf->bufs)
		return -ENOMEM;
	for (size_t i = 0; i < m->nbuffers; i++) {
		snprintf(vf->bufs[i].name, sizeof(vf->bufs[i].name), "%s", m->buffers[i].name);
		vf->bufs[i].cpu0 = m->buffers[i].cpu0;
		vf->bufs[i].ncpus = m->buffers[i].ncpus;
	}
	vf->nbufs = m->nbuffers;
	return 0;
}

void viewfilter_set_live(struct viewfilter *vf, vfexpr_field_fn known, void *arg,
			 const char *procdir)
{
	vf->known = known;
	vf->known_arg = arg;
	vf->procdir = procdir;
}

void viewfilter_set_feed_end(struct viewfilter *vf, uint64_t (*end)(void *arg, uint64_t lag_ns),
			     void *arg)
{
	vf->feed_end = end;
	vf->feed_arg = arg;
}

static int vf_add(struct viewfilter *vf, struct vf_clause *c)
{
	if (vf->nc == VIEWFILTER_MAX_CLAUSES) {
		clause_free(c);
		return -ENOSPC;
	}
	vf->c[vf->nc++] = *c;
	vf_derive(vf);
	return 0;
}

int viewfilter_push(struct viewfilter *vf, const char *text, struct err_pos *err)
{
	struct vf_clause c;
	int ret = parse_clause(vf, text, &c, err);

	if (ret) {
		clause_free(&c);
		return ret;
	}
	return vf_add(vf, &c);
}

int viewfilter_try(struct viewfilter *vf, const char *text, struct err_pos *err)
{
	struct vf_clause c;
	int ret = parse_clause(vf, text, &c, err);

	clause_free(&c);
	return ret;
}

int viewfilter_push_pid(struct viewfilter *vf, int32_t pid, unsigned int flags)
{
	char buf[40];

	snprintf(buf, sizeof(buf), "%spid:%d%s", flags & VIEWFILTER_NOT ? "!" : "", pid,
		 flags & VIEWFILTER_KIDS ? "+" : "");
	return viewfilter_push(vf, buf, NULL);
}

int viewfilter_push_cpu(struct viewfilter *vf, unsigned int cpu, unsigned int flags)
{
	char buf[40];

	snprintf(buf, sizeof(buf), "%scpu:%u", flags & VIEWFILTER_NOT ? "!" : "", cpu);
	return viewfilter_push(vf, buf, NULL);
}

int viewfilter_push_type(struct viewfilter *vf, uint16_t type, unsigned int flags)
{
	const struct ktop_schema_type *t = schema_get(store_schema(vf->st), type);
	struct vf_clause c = { .kind = VK_EVENT, .flags = (uint8_t)(flags & VIEWFILTER_NOT) };

	if (!t)
		return -ENOENT;
	c.ev = malloc(sizeof(*c.ev));
	if (c.ev) {
		c.nev = 1;
		c.ev[0] = NULL;
		if (asprintf(&c.ev[0], "%s:%s", t->system, t->name) < 0)
			c.ev[0] = NULL;
	}
	if (!c.ev || !c.ev[0] ||
	    asprintf(&c.text, "%sevent:%s", flags & VIEWFILTER_NOT ? "!" : "", c.ev[0]) < 0) {
		c.text = NULL;
		clause_free(&c);
		return -ENOMEM;
	}
	return vf_add(vf, &c);
}

int viewfilter_remove(struct viewfilter *vf, size_t i)
{
	if (i >= vf->nc)
		return -ENOENT;
	clause_free(&vf->c[i]);
	memmove(&vf->c[i], &vf->c[i + 1], (vf->nc - i - 1) * sizeof(vf->c[0]));
	vf->nc--;
	vf_derive(vf);
	return 0;
}

int viewfilter_pop(struct viewfilter *vf)
{
	return vf->nc ? viewfilter_remove(vf, vf->nc - 1) : -ENOENT;
}

void viewfilter_clear(struct viewfilter *vf)
{
	while (vf->nc)
		clause_free(&vf->c[--vf->nc]);
	vf_derive(vf);
}

size_t viewfilter_nclauses(const struct viewfilter *vf)
{
	return vf->nc;
}

const char *viewfilter_clause(const struct viewfilter *vf, size_t i)
{
	return i < vf->nc ? vf->c[i].text : "";
}

uint64_t viewfilter_gen(const struct viewfilter *vf)
{
	return vf->gen;
}

/* The clauses for which @pick is true, joined with " && ". Return: @buf. */
static const char *describe_some(const struct viewfilter *vf,
				 bool (*pick)(const struct vf_clause *c), char *buf, size_t len)
{
	size_t at = 0;

	if (!len)
		return buf;
	buf[0] = 0;
	for (size_t i = 0; i < vf->nc && at < len; i++) {
		int n;

		if (!pick(&vf->c[i]))
			continue;
		n = snprintf(buf + at, len - at, "%s%s", at ? " && " : "", vf->c[i].text);
		if (n < 0)
			break;
		at += (size_t)n;
	}
	return buf;
}

static bool any_clause(const struct vf_clause *c)
{
	return true;
}

/* Neither a task clause (pid:, comm:) nor a CPU clause (cpu:, buffer:). */
static bool event_clause(const struct vf_clause *c)
{
	return c->kind != VK_PID && c->kind != VK_COMM && c->kind != VK_CPU;
}

const char *viewfilter_describe(const struct viewfilter *vf, char *buf, size_t len)
{
	return describe_some(vf, any_clause, buf, len);
}

const char *viewfilter_describe_events(const struct viewfilter *vf, char *buf, size_t len)
{
	return describe_some(vf, event_clause, buf, len);
}

const char *viewfilter_error_format(const char *text, const struct err_pos *err,
				    char *buf, size_t len)
{
	int col = err->offset < 0 ? 0 : err->offset;

	if (col > (int)strlen(text))
		col = (int)strlen(text);
	snprintf(buf, len, "%s (at column %d)\n  %s\n  %*s^", err->msg, col + 1, text, col, "");
	return buf;
}
