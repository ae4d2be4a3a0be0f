// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The hash map's slow paths (growth, deletion, iteration) and the string
 * map built on it (see hashmap.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "hashmap.h"

#define HMAP_MIN_CAP	16

void hmap_destroy(struct hmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

void hmap_clear(struct hmap *m)
{
	if (m->slots)
		memset(m->slots, 0, (m->cap + 1) * sizeof(*m->slots));
	m->n = 0;
	m->has_zero = false;
}

static int hmap_resize(struct hmap *m, size_t cap)
{
	struct hmap_slot *ns = calloc(cap + 1, sizeof(*ns));
	unsigned int shift = 64;
	size_t i, j;

	if (!ns)
		return -ENOMEM;
	for (i = cap; i > 1; i >>= 1)
		shift--;
	for (i = 0; i < m->cap; i++) {
		uint64_t key = m->slots[i].key;

		if (!key)
			continue;
		for (j = (size_t)((key * HMAP_GOLDEN) >> shift); ns[j].key; j = (j + 1) & (cap - 1))
			;
		ns[j] = m->slots[i];
	}
	if (m->slots)
		ns[cap] = m->slots[m->cap];
	free(m->slots);
	m->slots = ns;
	m->cap = cap;
	m->shift = shift;
	return 0;
}

int hmap_reserve(struct hmap *m, size_t n)
{
	size_t cap = m->cap ? m->cap : HMAP_MIN_CAP;

	while (n * 10 > cap * 7) {
		if (cap > SIZE_MAX / 20)
			return -ENOMEM;
		cap *= 2;
	}
	return cap > m->cap ? hmap_resize(m, cap) : 0;
}

uint64_t *hmap__insert_slow(struct hmap *m, uint64_t key, bool *added)
{
	size_t i;

	if (added)
		*added = false;
	if (hmap_reserve(m, m->n + 1))
		return NULL;
	if (!key) {
		m->has_zero = true;
		i = m->cap;
	} else {
		for (i = hmap_home(m, key); m->slots[i].key; i = (i + 1) & (m->cap - 1))
			;
	}
	m->slots[i].key = key;
	m->slots[i].val = 0;
	m->n++;
	if (added)
		*added = true;
	return &m->slots[i].val;
}

int hmap_set(struct hmap *m, uint64_t key, uint64_t val)
{
	uint64_t *v = hmap_put(m, key, NULL);

	if (!v)
		return -ENOMEM;
	*v = val;
	return 0;
}

bool hmap_del(struct hmap *m, uint64_t key, uint64_t *val)
{
	size_t i, j, home, mask = m->cap - 1;

	if (!key) {
		if (!m->has_zero)
			return false;
		if (val)
			*val = m->slots[m->cap].val;
		m->has_zero = false;
		m->n--;
		return true;
	}
	if (!m->cap)
		return false;
	for (i = hmap_home(m, key); m->slots[i].key != key; i = (i + 1) & mask)
		if (!m->slots[i].key)
			return false;
	if (val)
		*val = m->slots[i].val;
	/*
	 * Backward shift: pull back each later entry of the run that may sit in
	 * the hole, i.e. whose home is not cyclically within (hole, j].
	 */
	for (j = (i + 1) & mask; m->slots[j].key; j = (j + 1) & mask) {
		home = hmap_home(m, m->slots[j].key);
		if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i].key = 0;
	m->n--;
	return true;
}

bool hmap_next(const struct hmap *m, size_t *pos, uint64_t *key, uint64_t *val)
{
	for (; *pos < m->cap; (*pos)++) {
		if (m->slots[*pos].key)
			goto found;
	}
	if (*pos == m->cap && m->has_zero)
		goto found;
	return false;
found:
	if (key)
		*key = m->slots[*pos].key;
	if (val)
		*val = m->slots[*pos].val;
	(*pos)++;
	return true;
}

static inline uint64_t fmix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

uint64_t hash_str(const void *p, size_t len)
{
	const unsigned char *s = p;
	uint64_t h = len * HMAP_GOLDEN, w;

	for (; len >= 8; s += 8, len -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	if (len) {
		w = 0;
		memcpy(&w, s, len);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return fmix64(h);
}

/* ---- strings ---------------------------------------------------------------- */

void strmap_destroy(struct strmap *m)
{
	hmap_destroy(&m->by_hash);
	free(m->ent);
	memset(m, 0, sizeof(*m));
}

uint64_t *strmap_get(const struct strmap *m, const char *s, size_t len)
{
	uint64_t *first = hmap_get(&m->by_hash, hash_str(s, len));

	for (size_t i = first ? (size_t)*first : SIZE_MAX; i != SIZE_MAX; i = m->ent[i].next) {
		const char *k = m->ent[i].key;

		/* no NUL in @s: equal up to @len means @k is at least @len long */
		if (!strncmp(k, s, len) && !k[len])
			return &m->ent[i].val;
	}
	return NULL;
}

uint64_t *strmap_put(struct strmap *m, const char *key, bool *added)
{
	size_t len = strlen(key), i;
	uint64_t h = hash_str(key, len), *v;
	bool new_hash;

	if (added)
		*added = false;
	v = strmap_get(m, key, len);
	if (v)
		return v;
	if (array_grow((void **)&m->ent, &m->cap, m->n + 1, sizeof(*m->ent)))
		return NULL;
	v = hmap_put(&m->by_hash, h, &new_hash);
	if (!v)
		return NULL;
	i = m->n++;
	m->ent[i] = (struct strmap_ent){ .key = key, .next = new_hash ? SIZE_MAX : (size_t)*v };
	*v = i;
	if (added)
		*added = true;
	return &m->ent[i].val;
}
