/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One hash map for ktop: 64-bit keys to 64-bit values (or pointers), open
 * addressing with linear probing in a power-of-two table of {key, value}
 * pairs, Fibonacci hashing (the key times 2^64/phi, top bits), at most 70%
 * full, deletion by backward shift (no tombstones, so lookups never slow down
 * after many deletions).
 *
 * Key 0 marks an empty slot, so it is kept aside in one extra slot past the
 * table: every key is allowed. A zeroed struct hmap is an empty map.
 *
 * Lookups and the get-or-insert of a counter are inline: tests/bench/bench_hashmap.c
 * measures them against the hand-written probe loops they replace.
 *
 * Strings: struct strmap maps NUL-terminated strings the caller keeps (the
 * lines of a file read whole, interned names) to 64-bit values, in insertion
 * order; hash_str() hashes bytes for callers that need only the hash.
 *
 * Context: a map is not thread-safe; one writer, or readers only.
 */
#ifndef KTOP_HASHMAP_H
#define KTOP_HASHMAP_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HMAP_GOLDEN	0x9e3779b97f4a7c15ull

struct hmap_slot {
	uint64_t	key;		/* 0: empty */
	uint64_t	val;
};

struct hmap {
	struct hmap_slot	*slots;		/* cap + 1; slots[cap] holds key 0 */
	size_t			cap;		/* power of two; 0: nothing inserted yet */
	size_t			n;		/* keys held, key 0 included */
	unsigned int		shift;		/* 64 - log2(cap) */
	bool			has_zero;
};

/* Free the table; the map is empty (and usable) again. */
void hmap_destroy(struct hmap *m);

/* Forget every key, keeping the table's memory. */
void hmap_clear(struct hmap *m);

/**
 * hmap_reserve - make room for @n keys without growing on the way
 * Return: 0 or -ENOMEM.
 */
int hmap_reserve(struct hmap *m, size_t n);

/* Not for callers: grow if needed, insert @key (absent). Return: its value slot, or NULL. */
uint64_t *hmap__insert_slow(struct hmap *m, uint64_t key, bool *added);

static inline size_t hmap_home(const struct hmap *m, uint64_t key)
{
	return (size_t)((key * HMAP_GOLDEN) >> m->shift);
}

/**
 * hmap_get - the value of @key
 * Return: a pointer to its value (valid until the next insertion or
 * deletion), or NULL when @key is absent.
 */
static inline uint64_t *hmap_get(const struct hmap *m, uint64_t key)
{
	size_t i, mask = m->cap - 1;

	if (!key)
		return m->has_zero ? &m->slots[m->cap].val : NULL;
	if (!m->cap)
		return NULL;
	for (i = hmap_home(m, key);; i = (i + 1) & mask) {
		if (m->slots[i].key == key)
			return &m->slots[i].val;
		if (!m->slots[i].key)
			return NULL;
	}
}

/**
 * hmap_put - the value of @key, inserted as 0 when absent
 * @added: set to whether @key was new; may be NULL
 *
 * For counters and get-or-create: `(*hmap_put(m, k, NULL))++`, or store an
 * index or pointer when *@added.
 * Return: a pointer to the value (valid until the next insertion or
 * deletion), or NULL on ENOMEM (the map is unchanged).
 */
static inline uint64_t *hmap_put(struct hmap *m, uint64_t key, bool *added)
{
	size_t i, mask = m->cap - 1;

	if (added)
		*added = false;
	if (key && m->cap) {
		for (i = hmap_home(m, key);; i = (i + 1) & mask) {
			if (m->slots[i].key == key)
				return &m->slots[i].val;
			if (!m->slots[i].key)
				break;
		}
		/* below 70% full after this one: take the empty slot found */
		if ((m->n + 1) * 10 <= m->cap * 7) {
			m->slots[i].key = key;
			m->slots[i].val = 0;
			m->n++;
			if (added)
				*added = true;
			return &m->slots[i].val;
		}
	} else if (!key && m->has_zero) {
		return &m->slots[m->cap].val;
	}
	return hmap__insert_slow(m, key, added);
}

/* Set @key to @val. Return: 0 or -ENOMEM. */
int hmap_set(struct hmap *m, uint64_t key, uint64_t val);

/* Add @n to @key's value (a new key's starts at 0): a count. Return: 0 or -ENOMEM. */
static inline int hmap_add(struct hmap *m, uint64_t key, uint64_t n)
{
	uint64_t *v = hmap_put(m, key, NULL);

	if (!v)
		return -ENOMEM;
	*v += n;
	return 0;
}

/**
 * hmap_del - remove @key
 * @val: receives its value; may be NULL
 * Return: whether @key was present.
 */
bool hmap_del(struct hmap *m, uint64_t key, uint64_t *val);

static inline size_t hmap_count(const struct hmap *m)
{
	return m->n;
}

/**
 * hmap_next - iterate: `size_t pos = 0; while (hmap_next(m, &pos, &k, &v)) ...`
 * @key, @val: receive the entry; either may be NULL
 *
 * The order is the table's. Inserting or deleting during the walk is not
 * allowed (collect the keys, then delete).
 * Return: false when the walk is over.
 */
bool hmap_next(const struct hmap *m, size_t *pos, uint64_t *key, uint64_t *val);

/* Pointer values. */
static inline void *hmap_get_ptr(const struct hmap *m, uint64_t key)
{
	uint64_t *v = hmap_get(m, key);

	return v ? (void *)(uintptr_t)*v : NULL;
}

static inline int hmap_set_ptr(struct hmap *m, uint64_t key, void *p)
{
	return hmap_set(m, key, (uint64_t)(uintptr_t)p);
}

/**
 * hash_str - a 64-bit hash of @len bytes at @p
 *
 * Eight bytes a step, then a full avalanche: any bit of the input flips
 * about half the bits of the result, so any slice of it makes an index.
 */
uint64_t hash_str(const void *p, size_t len);

/* ---- strings ---------------------------------------------------------------- */

struct strmap_ent {
	const char	*key;		/* the caller's string, NUL-terminated */
	uint64_t	val;
	size_t		next;		/* next entry with the same hash, or SIZE_MAX */
};

/*
 * String keys to values. The map does not copy keys: each must stay valid
 * and unchanged while the map is in use. Entries are never removed; they
 * are m->ent[0 .. m->n - 1] in insertion order. A zeroed strmap is empty.
 */
struct strmap {
	struct hmap		by_hash;	/* hash_str(key) -> first entry with that hash */
	struct strmap_ent	*ent;
	size_t			n, cap;
};

void strmap_destroy(struct strmap *m);

/**
 * strmap_get - the value of the key equal to @len bytes at @s
 * @s: need not be NUL-terminated
 * Return: a pointer to its value (valid until the next insertion), or NULL.
 */
uint64_t *strmap_get(const struct strmap *m, const char *s, size_t len);

/**
 * strmap_put - the value of @key, inserted as 0 when absent
 * @key: NUL-terminated; kept by pointer when added (see above)
 * @added: set to whether @key was new; may be NULL
 * Return: a pointer to its value (valid until the next insertion), or NULL on
 * ENOMEM (the map is unchanged).
 */
uint64_t *strmap_put(struct strmap *m, const char *key, bool *added);

#endif
