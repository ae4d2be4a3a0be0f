// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The table of distinct stacks (see stacks.h).
 *
 * Entries sit in pages reached through a directory of atomic pointers, as the
 * schema's types do; an entry is written in full before the count that makes
 * its id valid is stored with release semantics, so readers need no lock.
 * Frames and names are carved from an arena of large blocks (freed only with
 * the table). The index from content to id is an open-addressing hash of ids
 * under the mutex, used only on a miss of the caller's direct-mapped cache:
 * a decoder that sees the same few thousand stacks again and again hashes the
 * frames and compares them with the cached entry, nothing more.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lib/intern.h"
#include "stacks.h"

#define STK_PAGE_SHIFT	12
#define STK_PAGE	(1u << STK_PAGE_SHIFT)
#define STK_DIR		1024u			/* up to 4 Mi stacks */
#define STK_MAX_ID	(STK_PAGE * STK_DIR - 1)
#define ARENA_BLOCK	(256u << 10)
#define UNKNOWN		"[unknown]"

struct stk {
	uint64_t		hash;
	uint64_t		*frames;
	_Atomic uint32_t	*names;		/* 2 per frame: name id, module id */
	uint32_t		tgid;
	uint16_t		nk, nu;
	uint16_t		flags;
};

struct stk_page {
	struct stk	e[STK_PAGE];
};

struct arena_blk {
	struct arena_blk	*next;
	size_t			used, size;
	uint64_t		mem[];
};

struct wset {
	struct stack_weight	*v;
	size_t			n;
	uint64_t		gen;
};

struct stacks {
	pthread_mutex_t			lock;
	struct intern			*strings;
	uint32_t			unknown;	/* the id of "[unknown]" */
	size_t				limit;
	_Atomic uint32_t		count;
	_Atomic(struct stk_page *)	dir[STK_DIR];
	/* under lock */
	uint32_t			*index;		/* ids, 0: empty */
	size_t				index_cap;
	struct arena_blk		*arena;
	_Atomic uint64_t		bytes, frames, dropped;
	/* resolver */
	stacks_name_fn			name_fn;
	stacks_new_fn			new_fn;
	void				*ctx;
	/* weighted sets, under wlock */
	pthread_mutex_t			wlock;
	struct wset			w[STACKS_W_NR];
};

static inline uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v * 0x9e3779b97f4a7c15ull;
	h = (h << 27 | h >> 37) * 0xc2b2ae3d27d4eb4full;
	return h;
}

static uint64_t stk_hash(const uint64_t *k, unsigned int nk, const uint64_t *u, unsigned int nu,
			 uint32_t tgid, unsigned int flags)
{
	uint64_t h = mix((uint64_t)nk << 32 | nu, (uint64_t)tgid << 8 | flags);

	for (unsigned int i = 0; i < nk; i++)
		h = mix(h, k[i]);
	for (unsigned int i = 0; i < nu; i++)
		h = mix(h, u[i]);
	h ^= h >> 31;
	return h ? h : 1;
}

static struct stk *stk_at(const struct stacks *sk, uint32_t id)
{
	struct stk_page *p;

	p = atomic_load_explicit(&((struct stacks *)sk)->dir[id >> STK_PAGE_SHIFT],
				 memory_order_acquire);
	return p ? &p->e[id & (STK_PAGE - 1)] : NULL;
}

/* Return: the entry of a published @id, or NULL. */
static struct stk *stk_get(const struct stacks *sk, uint32_t id)
{
	if (!id || id > atomic_load_explicit(&((struct stacks *)sk)->count, memory_order_acquire))
		return NULL;
	return stk_at(sk, id);
}

static bool stk_equal(const struct stk *e, uint64_t hash, const uint64_t *k, unsigned int nk,
		      const uint64_t *u, unsigned int nu, uint32_t tgid, unsigned int flags)
{
	return e->hash == hash && e->nk == nk && e->nu == nu && e->tgid == tgid &&
	       e->flags == flags && (!nk || !memcmp(e->frames, k, nk * sizeof(*k))) &&
	       (!nu || !memcmp(e->frames + nk, u, nu * sizeof(*u)));
}

struct stacks *stacks_new(struct intern *strings, size_t max_bytes)
{
	struct stacks *sk = calloc(1, sizeof(*sk));

	if (!sk)
		return NULL;
	pthread_mutex_init(&sk->lock, NULL);
	pthread_mutex_init(&sk->wlock, NULL);
	sk->strings = strings;
	sk->limit = max_bytes ? max_bytes : STACKS_DEFAULT_BYTES;
	sk->unknown = strings ? intern_id(strings, UNKNOWN, strlen(UNKNOWN)) : 0;
	if (sk->unknown == UINT32_MAX)
		sk->unknown = 0;
	return sk;
}

void stacks_free(struct stacks *sk)
{
	struct arena_blk *b, *n;

	if (!sk)
		return;
	for (unsigned int i = 0; i < STK_DIR; i++)
		free(atomic_load_explicit(&sk->dir[i], memory_order_relaxed));
	for (b = sk->arena; b; b = n) {
		n = b->next;
		free(b);
	}
	for (unsigned int i = 0; i < STACKS_W_NR; i++)
		free(sk->w[i].v);
	free(sk->index);
	pthread_mutex_destroy(&sk->lock);
	pthread_mutex_destroy(&sk->wlock);
	free(sk);
}

void stacks_set_resolver(struct stacks *sk, stacks_name_fn name, stacks_new_fn on_new, void *ctx)
{
	sk->name_fn = name;
	sk->new_fn = on_new;
	sk->ctx = ctx;
}

/* Called locked: @words zeroed 8-byte words from the arena, or NULL over the limit. */
static uint64_t *arena_alloc(struct stacks *sk, size_t words)
{
	struct arena_blk *b = sk->arena;
	size_t size;

	if (!b || b->used + words > b->size) {
		size = words > ARENA_BLOCK / 8 ? words : ARENA_BLOCK / 8;
		if (atomic_load_explicit(&sk->bytes, memory_order_relaxed) + size * 8 > sk->limit)
			return NULL;
		b = calloc(1, sizeof(*b) + size * 8);
		if (!b)
			return NULL;
		b->size = size;
		b->next = sk->arena;
		sk->arena = b;
		atomic_fetch_add_explicit(&sk->bytes, sizeof(*b) + size * 8, memory_order_relaxed);
	}
	b->used += words;
	return b->mem + b->used - words;
}

/* Called locked: room for id @n + 1 in the index. Return: 0 or -ENOMEM. */
static int index_grow(struct stacks *sk, uint32_t n)
{
	size_t cap = sk->index_cap ? sk->index_cap * 2 : 4096;
	uint32_t *ix;

	if ((n + 1) * 2 <= sk->index_cap)
		return 0;
	ix = calloc(cap, sizeof(*ix));
	if (!ix)
		return -ENOMEM;
	for (size_t i = 0; i < sk->index_cap; i++) {
		uint32_t id = sk->index[i];
		size_t h;

		if (!id)
			continue;
		h = stk_at(sk, id)->hash & (cap - 1);
		while (ix[h])
			h = (h + 1) & (cap - 1);
		ix[h] = id;
	}
	free(sk->index);
	sk->index = ix;
	sk->index_cap = cap;
	atomic_fetch_add_explicit(&sk->bytes, (cap - cap / 2) * sizeof(*ix), memory_order_relaxed);
	return 0;
}

/* Called locked. Return: the new entry's id, or 0. */
static uint32_t stk_add(struct stacks *sk, uint64_t hash, const uint64_t *k, unsigned int nk,
			const uint64_t *u, unsigned int nu, uint32_t tgid, unsigned int flags,
			size_t slot)
{
	uint32_t id = atomic_load_explicit(&sk->count, memory_order_relaxed) + 1;
	struct stk_page *p;
	uint64_t *mem;
	struct stk *e;

	if (id > STK_MAX_ID)
		return 0;
	p = atomic_load_explicit(&sk->dir[id >> STK_PAGE_SHIFT], memory_order_relaxed);
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return 0;
		atomic_fetch_add_explicit(&sk->bytes, sizeof(*p), memory_order_relaxed);
		atomic_store_explicit(&sk->dir[id >> STK_PAGE_SHIFT], p, memory_order_release);
	}
	/* frames, then two 32-bit names per frame: (nk + nu) * 2 words */
	mem = arena_alloc(sk, (size_t)(nk + nu) * 2);
	if (!mem)
		return 0;
	e = &p->e[id & (STK_PAGE - 1)];
	if (nk)
		memcpy(mem, k, nk * sizeof(*k));
	if (nu)
		memcpy(mem + nk, u, nu * sizeof(*u));
	e->frames = mem;
	e->names = (_Atomic uint32_t *)(mem + nk + nu);
	e->hash = hash;
	e->nk = nk;
	e->nu = nu;
	e->tgid = tgid;
	e->flags = flags;
	sk->index[slot] = id;
	atomic_fetch_add_explicit(&sk->frames, nk + nu, memory_order_relaxed);
	atomic_store_explicit(&sk->count, id, memory_order_release);
	return id;
}

uint32_t stacks_intern(struct stacks *sk, const uint64_t *kern, unsigned int nk,
		       const uint64_t *user, unsigned int nu, uint32_t tgid, unsigned int flags,
		       struct stacks_cache *cache)
{
	unsigned int ci = 0;
	uint32_t id = 0;
	uint64_t hash;
	bool added = false;
	size_t h;

	if (nk > STACK_MAX_FRAMES)
		nk = STACK_MAX_FRAMES;
	if (nu > STACK_MAX_FRAMES)
		nu = STACK_MAX_FRAMES;
	if (!nk && !nu)
		return 0;
	if (!nu)
		tgid = 0;
	hash = stk_hash(kern, nk, user, nu, tgid, flags);
	if (cache) {
		struct stk *e;

		ci = (hash >> 23) & (sizeof(cache->e) / sizeof(cache->e[0]) - 1);
		if (cache->e[ci].hash == hash && (e = stk_get(sk, cache->e[ci].id)) &&
		    stk_equal(e, hash, kern, nk, user, nu, tgid, flags))
			return cache->e[ci].id;
	}
	pthread_mutex_lock(&sk->lock);
	if (index_grow(sk, atomic_load_explicit(&sk->count, memory_order_relaxed)))
		goto out_unlock;
	h = hash & (sk->index_cap - 1);
	for (;; h = (h + 1) & (sk->index_cap - 1)) {
		uint32_t x = sk->index[h];

		if (!x) {
			id = stk_add(sk, hash, kern, nk, user, nu, tgid, flags, h);
			if (!id)
				atomic_fetch_add_explicit(&sk->dropped, 1, memory_order_relaxed);
			added = id != 0;
			break;
		}
		if (stk_equal(stk_at(sk, x), hash, kern, nk, user, nu, tgid, flags)) {
			id = x;
			break;
		}
	}
out_unlock:
	pthread_mutex_unlock(&sk->lock);
	if (id && cache) {
		cache->e[ci].hash = hash;
		cache->e[ci].id = id;
	}
	if (added && nu && sk->new_fn) {
		struct stack_info si;

		stacks_get(sk, id, &si);
		sk->new_fn(sk->ctx, &si);
	}
	return id;
}

int stacks_get(const struct stacks *sk, uint32_t id, struct stack_info *out)
{
	const struct stk *e = sk ? stk_get(sk, id) : NULL;

	if (!e)
		return -ENOENT;
	out->id = id;
	out->tgid = e->tgid;
	out->nkern = e->nk;
	out->nuser = e->nu;
	out->flags = e->flags;
	out->frames = e->frames;
	return 0;
}

uint32_t stacks_count(const struct stacks *sk)
{
	return sk ? atomic_load_explicit(&((struct stacks *)sk)->count, memory_order_acquire) : 0;
}

/* The name ids of frame @i of @e, resolved now if it has none. */
static void stk_name(struct stacks *sk, uint32_t id, struct stk *e, unsigned int i,
		     uint32_t *name, uint32_t *module)
{
	uint32_t n = atomic_load_explicit(&e->names[2 * i], memory_order_acquire), m = 0;

	if (n) {
		*name = n;
		*module = atomic_load_explicit(&e->names[2 * i + 1], memory_order_relaxed);
		return;
	}
	if (e->flags & STACK_F_NAMES) {
		n = (uint32_t)e->frames[i];
	} else if (sk->name_fn) {
		struct stack_info si = {
			.id = id, .tgid = e->tgid, .nkern = e->nk, .nuser = e->nu,
			.flags = e->flags, .frames = e->frames,
		};

		n = sk->name_fn(sk->ctx, &si, i, &m);
	}
	if (!n || n == UINT32_MAX) {
		n = sk->unknown;
		m = 0;
	}
	/* racing resolvers find the same name: either store is right */
	atomic_store_explicit(&e->names[2 * i + 1], m, memory_order_relaxed);
	if (n)
		atomic_store_explicit(&e->names[2 * i], n, memory_order_release);
	*name = n;
	*module = m;
}

int stacks_frame(struct stacks *sk, uint32_t id, unsigned int i, struct stack_frame *out)
{
	struct stk *e = stk_get(sk, id);

	if (!e || i >= (unsigned int)e->nk + e->nu)
		return -ENOENT;
	stk_name(sk, id, e, i, &out->name_id, &out->module_id);
	out->name = sk->strings ? intern_str(sk->strings, out->name_id) : UNKNOWN;
	if (!out->name[0])
		out->name = UNKNOWN;
	out->module = sk->strings ? intern_str(sk->strings, out->module_id) : "";
	if (e->flags & STACK_F_NAMES) {
		out->kind = STACK_FRAME_NAME;
		out->addr = 0;
	} else {
		out->kind = i < e->nk ? STACK_FRAME_KERNEL : STACK_FRAME_USER;
		out->addr = e->frames[i];
	}
	return 0;
}

int stacks_names(struct stacks *sk, uint32_t id, uint32_t *out, unsigned int max)
{
	struct stk *e = stk_get(sk, id);
	unsigned int n;
	uint32_t m;

	if (!e)
		return -ENOENT;
	n = (unsigned int)e->nk + e->nu;
	for (unsigned int i = 0; i < n && i < max; i++)
		stk_name(sk, id, e, i, &out[i], &m);
	return (int)n;
}

bool stacks_tracing_frame(const char *name)
{
	static const char *const prefix[] = {
		"trace_event_raw_event_", "__traceiter_", "perf_trace_", "__bpf_trace_",
		"trace_call_bpf", "bpf_trace_run",
	};

	for (size_t i = 0; name && i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])))
			return true;
	return false;
}

int stacks_shown_names(struct stacks *sk, uint32_t id, uint32_t *out, unsigned int max,
		       unsigned int *skip)
{
	struct stk *e = stk_get(sk, id);
	unsigned int n, k = 0;
	uint32_t name, m;

	if (skip)
		*skip = 0;
	if (!e)
		return -ENOENT;
	n = (unsigned int)e->nk + e->nu;
	/* a stack of names (STACK_F_NAMES) has no tracing code: its frames are calls */
	while (!(e->flags & STACK_F_NAMES) && k < e->nk && k + 1 < n) {
		stk_name(sk, id, e, k, &name, &m);
		if (!sk->strings || !stacks_tracing_frame(intern_str(sk->strings, name)))
			break;
		k++;
	}
	for (unsigned int i = k; i < n && i - k < max; i++)
		stk_name(sk, id, e, i, &out[i - k], &m);
	if (skip)
		*skip = k;
	return (int)(n - k);
}

void stacks_set_name(struct stacks *sk, uint32_t id, unsigned int i, uint32_t name,
		     uint32_t module)
{
	struct stk *e = stk_get(sk, id);

	if (!e || i >= (unsigned int)e->nk + e->nu || !name)
		return;
	atomic_store_explicit(&e->names[2 * i + 1], module, memory_order_relaxed);
	atomic_store_explicit(&e->names[2 * i], name, memory_order_release);
}

void stacks_peek_name(const struct stacks *sk, uint32_t id, unsigned int i, uint32_t *name,
		      uint32_t *module)
{
	struct stk *e = stk_get(sk, id);

	*name = *module = 0;
	if (!e || i >= (unsigned int)e->nk + e->nu)
		return;
	*name = atomic_load_explicit(&e->names[2 * i], memory_order_acquire);
	*module = atomic_load_explicit(&e->names[2 * i + 1], memory_order_relaxed);
}

void stacks_get_stats(const struct stacks *sk, struct stacks_stats *out)
{
	struct stacks *s = (struct stacks *)sk;

	memset(out, 0, sizeof(*out));
	if (!sk)
		return;
	out->stacks = stacks_count(sk);
	out->frames = atomic_load_explicit(&s->frames, memory_order_relaxed);
	out->bytes = atomic_load_explicit(&s->bytes, memory_order_relaxed);
	out->limit = sk->limit;
	out->dropped = atomic_load_explicit(&s->dropped, memory_order_relaxed);
}

int stacks_weights_set(struct stacks *sk, enum stacks_wset set, const struct stack_weight *w,
		       size_t n)
{
	struct stack_weight *v = NULL;

	if (set >= STACKS_W_NR)
		return -EINVAL;
	if (n) {
		v = malloc(n * sizeof(*v));
		if (!v)
			return -ENOMEM;
		memcpy(v, w, n * sizeof(*v));
	}
	pthread_mutex_lock(&sk->wlock);
	free(sk->w[set].v);
	sk->w[set].v = v;
	sk->w[set].n = n;
	sk->w[set].gen++;
	pthread_mutex_unlock(&sk->wlock);
	return 0;
}

size_t stacks_weights_get(const struct stacks *sk, enum stacks_wset set,
			  struct stack_weight *out, size_t max, uint64_t *gen)
{
	struct stacks *s = (struct stacks *)sk;
	size_t n;

	if (!sk || set >= STACKS_W_NR)
		return 0;
	pthread_mutex_lock(&s->wlock);
	n = s->w[set].n;
	if (out && n && max)
		memcpy(out, s->w[set].v, (n < max ? n : max) * sizeof(*out));
	if (gen)
		*gen = s->w[set].gen;
	pthread_mutex_unlock(&s->wlock);
	return n;
}
