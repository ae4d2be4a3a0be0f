/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A map from task ids to 64-bit values: open addressing, linear probing,
 * Fibonacci hashing, at most half full. A zeroed struct pidmap is empty.
 * (The utilities' general hash map will take its place once merged.)
 * Context: not thread-safe; one thread.
 */
#ifndef KTOP_PIDMAP_H
#define KTOP_PIDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pidmap {
	uint64_t	*key;		/* pid + 1 (as u32), 0: empty */
	uint64_t	*val;
	size_t		cap, n;		/* cap: a power of two, or 0 */
};

static inline size_t pidmap_home(const struct pidmap *m, int32_t pid)
{
	return (size_t)(((uint64_t)(uint32_t)pid * 0x9e3779b97f4a7c15ull) >> 32) & (m->cap - 1);
}

/* Return: the value of @pid, or NULL when absent (valid until the next insertion). */
static inline uint64_t *pidmap_get(const struct pidmap *m, int32_t pid)
{
	uint64_t k = (uint64_t)(uint32_t)pid + 1;

	if (!m->cap)
		return NULL;
	for (size_t i = pidmap_home(m, pid);; i = (i + 1) & (m->cap - 1)) {
		if (m->key[i] == k)
			return &m->val[i];
		if (!m->key[i])
			return NULL;
	}
}

/**
 * pidmap_put - the value of @pid, inserted as 0 when absent
 * @added: when not NULL, set to whether it was inserted
 * Return: a pointer to the value, or NULL on ENOMEM.
 */
uint64_t *pidmap_put(struct pidmap *m, int32_t pid, bool *added);

/* Forget every key (keeps the memory); destroy frees it. */
void pidmap_clear(struct pidmap *m);
void pidmap_destroy(struct pidmap *m);

/* The i-th slot's pid, for walking every key: false when slot @i is empty. */
static inline bool pidmap_slot(const struct pidmap *m, size_t i, int32_t *pid, uint64_t *val)
{
	if (!m->key[i])
		return false;
	*pid = (int32_t)(uint32_t)(m->key[i] - 1);
	*val = m->val[i];
	return true;
}

#endif
