// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * String interning.
 *
 * Readers never lock: id -> string goes through a two-level table of pointers
 * that only grows, and string -> id probes an open-addressing hash table whose
 * slots are published with release stores after the string they name. Inserts
 * are serialised by a mutex. When the hash table grows, the old one is kept
 * (retired) until intern_free(), so a reader probing it concurrently stays safe;
 * a miss on a stale table just falls through to the locked path. (That is why
 * this is not src/lib/hashmap.h's map, which has one writer or readers only; the
 * hash is its hash_str().)
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "intern.h"

#define INTERN_PAGE_SHIFT	12
#define INTERN_PAGE_SIZE	(1u << INTERN_PAGE_SHIFT)
#define INTERN_DIR_SIZE		(1u << 16)	/* up to 2^28 ids */
#define INTERN_ARENA_SIZE	(64u << 10)

/* A slot holds (hash32 << 32) | (id + 1); 0 is empty. */
struct intern_table {
	uint64_t		mask;
	struct intern_table	*retired;	/* older table, freed at intern_free */
	_Atomic uint64_t	slots[];
};

struct intern_arena {
	struct intern_arena	*next;
	size_t			used;
	char			data[];
};

struct intern {
	pthread_mutex_t			lock;
	_Atomic(struct intern_table *)	table;
	_Atomic uint32_t		count;
	size_t				nslots_used;
	_Atomic size_t			bytes;
	struct intern_arena		*arena;
	_Atomic(const char **)		dir[INTERN_DIR_SIZE];
};

static uint32_t intern_hash(const char *s, size_t len)
{
	return (uint32_t)hash_str(s, len);
}

static struct intern_table *intern_table_alloc(uint64_t nslots)
{
	struct intern_table *t;

	t = calloc(1, sizeof(*t) + nslots * sizeof(t->slots[0]));
	if (!t)
		return NULL;
	t->mask = nslots - 1;
	return t;
}

struct intern *intern_new(void)
{
	struct intern *in;
	const char **page;

	in = calloc(1, sizeof(*in));
	if (!in)
		return NULL;
	pthread_mutex_init(&in->lock, NULL);
	atomic_init(&in->table, intern_table_alloc(1024));
	page = calloc(INTERN_PAGE_SIZE, sizeof(*page));
	if (!atomic_load_explicit(&in->table, memory_order_relaxed) || !page) {
		free(page);
		intern_free(in);
		return NULL;
	}
	page[0] = "";
	atomic_store_explicit(&in->dir[0], page, memory_order_relaxed);
	atomic_store_explicit(&in->count, 1, memory_order_relaxed);
	return in;
}

void intern_free(struct intern *in)
{
	struct intern_table *t, *tn;
	struct intern_arena *a, *an;

	if (!in)
		return;
	for (t = atomic_load(&in->table); t; t = tn) {
		tn = t->retired;
		free(t);
	}
	for (a = in->arena; a; a = an) {
		an = a->next;
		free(a);
	}
	for (unsigned int i = 0; i < INTERN_DIR_SIZE; i++)
		free((void *)atomic_load_explicit(&in->dir[i], memory_order_relaxed));
	pthread_mutex_destroy(&in->lock);
	free(in);
}

static const char *intern_str_raw(const struct intern *in, uint32_t id)
{
	const char **page;

	page = atomic_load_explicit(&((struct intern *)in)->dir[id >> INTERN_PAGE_SHIFT],
				    memory_order_acquire);
	return page ? page[id & (INTERN_PAGE_SIZE - 1)] : NULL;
}

/* Return: the id, or UINT32_MAX when absent from @t. */
static uint32_t intern_probe(const struct intern *in, const struct intern_table *t,
			     uint32_t h, const char *s, size_t len)
{
	uint64_t i = h & t->mask;

	for (;;) {
		uint64_t v = atomic_load_explicit(&t->slots[i], memory_order_acquire);
		const char *str;
		uint32_t id;

		if (!v)
			return UINT32_MAX;
		if ((uint32_t)(v >> 32) == h) {
			id = (uint32_t)v - 1;
			str = intern_str_raw(in, id);
			if (str && !strncmp(str, s, len) && str[len] == '\0')
				return id;
		}
		i = (i + 1) & t->mask;
	}
}

static void intern_table_put(struct intern_table *t, uint64_t v)
{
	uint64_t i = (v >> 32) & t->mask;

	while (atomic_load_explicit(&t->slots[i], memory_order_relaxed))
		i = (i + 1) & t->mask;
	atomic_store_explicit(&t->slots[i], v, memory_order_release);
}

/* Called locked. Return: 0 or -ENOMEM. */
static int intern_grow(struct intern *in)
{
	struct intern_table *old = atomic_load_explicit(&in->table, memory_order_relaxed);
	struct intern_table *t;

	t = intern_table_alloc((old->mask + 1) * 2);
	if (!t)
		return -ENOMEM;
	for (uint64_t i = 0; i <= old->mask; i++) {
		uint64_t v = atomic_load_explicit(&old->slots[i], memory_order_relaxed);

		if (v)
			intern_table_put(t, v);
	}
	t->retired = old;
	atomic_store_explicit(&in->table, t, memory_order_release);
	return 0;
}

/* Called locked. Return: a stable copy of @s, or NULL. */
static const char *intern_copy(struct intern *in, const char *s, size_t len)
{
	struct intern_arena *a = in->arena;
	char *p;

	if (!a || a->used + len + 1 > INTERN_ARENA_SIZE) {
		size_t sz = len + 1 > INTERN_ARENA_SIZE ? len + 1 : INTERN_ARENA_SIZE;

		a = malloc(sizeof(*a) + sz);
		if (!a)
			return NULL;
		a->used = 0;
		if (len + 1 > INTERN_ARENA_SIZE && in->arena) {
			/* a big string gets its own block behind the current one */
			a->next = in->arena->next;
			in->arena->next = a;
		} else {
			a->next = in->arena;
			in->arena = a;
		}
		atomic_fetch_add_explicit(&in->bytes, sizeof(*a) + sz, memory_order_relaxed);
	}
	p = a->data + a->used;
	memcpy(p, s, len);
	p[len] = '\0';
	a->used += len + 1;
	return p;
}

uint32_t intern_id(struct intern *in, const char *s, size_t len)
{
	struct intern_table *t;
	const char **page;
	const char *copy;
	uint32_t h, id;

	if (!len)
		return 0;
	h = intern_hash(s, len);
	t = atomic_load_explicit(&in->table, memory_order_acquire);
	id = intern_probe(in, t, h, s, len);
	if (id != UINT32_MAX)
		return id;

	pthread_mutex_lock(&in->lock);
	t = atomic_load_explicit(&in->table, memory_order_relaxed);
	id = intern_probe(in, t, h, s, len);
	if (id != UINT32_MAX)
		goto out_unlock;
	id = atomic_load_explicit(&in->count, memory_order_relaxed);
	if (id >= INTERN_DIR_SIZE * INTERN_PAGE_SIZE - 1 ||
	    ((in->nslots_used + 1) * 4 > (t->mask + 1) * 3 && intern_grow(in)))
		goto out_nomem;
	t = atomic_load_explicit(&in->table, memory_order_relaxed);
	page = atomic_load_explicit(&in->dir[id >> INTERN_PAGE_SHIFT], memory_order_relaxed);
	if (!page) {
		page = calloc(INTERN_PAGE_SIZE, sizeof(*page));
		if (!page)
			goto out_nomem;
		atomic_fetch_add_explicit(&in->bytes, INTERN_PAGE_SIZE * sizeof(*page),
					  memory_order_relaxed);
		atomic_store_explicit(&in->dir[id >> INTERN_PAGE_SHIFT], page,
				      memory_order_release);
	}
	copy = intern_copy(in, s, len);
	if (!copy)
		goto out_nomem;
	page[id & (INTERN_PAGE_SIZE - 1)] = copy;
	/* the string and its page entry are visible before the id or the slot */
	atomic_store_explicit(&in->count, id + 1, memory_order_release);
	intern_table_put(t, ((uint64_t)h << 32) | (id + 1));
	in->nslots_used++;
out_unlock:
	pthread_mutex_unlock(&in->lock);
	return id;
out_nomem:
	pthread_mutex_unlock(&in->lock);
	return UINT32_MAX;
}

const char *intern_str(const struct intern *in, uint32_t id)
{
	const char *s;

	if (!in || id >= atomic_load_explicit(&in->count, memory_order_acquire))
		return "";
	s = intern_str_raw(in, id);
	return s ? s : "";
}

uint32_t intern_count(const struct intern *in)
{
	return atomic_load_explicit(&in->count, memory_order_acquire);
}

size_t intern_bytes(const struct intern *in)
{
	struct intern_table *t = atomic_load_explicit(&((struct intern *)in)->table,
						      memory_order_acquire);

	/*
	 * The arenas and id pages, the table and the retired ones (together
	 * smaller than it). Not the directory inside struct intern: 512 KiB of
	 * address space of which a string table touches a page per 2M ids.
	 */
	return atomic_load_explicit(&in->bytes, memory_order_relaxed) +
	       2 * (t->mask + 1) * sizeof(t->slots[0]);
}
