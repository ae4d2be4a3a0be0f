// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/lib/hashmap.h against the hand-written table it replaces: counting events
 * per key, as store.c's cmap_add did for store_count (a window's top pids,
 * types, functions) and ui/stats.c's tab_get does per event.
 *
 *   hashmap.count        hmap_put + increment, ns per event
 *   hashmap.count.anchor the same keys through cmap_add's probe loop, kept
 *                        here as it was in src/store/store.c (keys and counts in two
 *                        arrays, grown at half full)
 *   hashmap.get          hmap_get of keys present, ns per lookup
 *
 * Keys: 20 M draws from 50,000 distinct keys, skewed as event streams are
 * (a few pids and types hold most events), in a working set larger than L1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/clock.h"
#include "lib/hashmap.h"

#define DRAWS		20000000u
#define DISTINCT	50000u

/* ---- the anchor: src/store/store.c's cmap, as it was ---------------------------------- */

struct cmap {
	uint64_t	*key;
	uint64_t	*cnt;
	size_t		cap, n;
};

static int cmap_grow(struct cmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256;
	uint64_t *key = malloc(cap * sizeof(*key)), *cnt = calloc(cap, sizeof(*cnt));

	if (!key || !cnt) {
		free(key);
		free(cnt);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		size_t h;

		if (!m->cnt[i])
			continue;
		h = (m->key[i] * 0x9e3779b97f4a7c15ull) >> 20 & (cap - 1);
		while (cnt[h])
			h = (h + 1) & (cap - 1);
		key[h] = m->key[i];
		cnt[h] = m->cnt[i];
	}
	free(m->key);
	free(m->cnt);
	m->key = key;
	m->cnt = cnt;
	m->cap = cap;
	return 0;
}

static int cmap_add(struct cmap *m, uint64_t k, uint64_t n)
{
	size_t h;

	if ((m->n + 1) * 2 > m->cap && cmap_grow(m))
		return -ENOMEM;
	h = (k * 0x9e3779b97f4a7c15ull) >> 20 & (m->cap - 1);
	while (m->cnt[h] && m->key[h] != k)
		h = (h + 1) & (m->cap - 1);
	if (!m->cnt[h]) {
		m->key[h] = k;
		m->n++;
	}
	m->cnt[h] += n;
	return 0;
}

/* ---- keys ------------------------------------------------------------------------ */

static uint64_t *keys;

/* A skewed draw: squaring a uniform variate favours the low ranks. */
static void make_keys(void)
{
	uint64_t x = 88172645463325252ull;

	keys = malloc(DRAWS * sizeof(*keys));
	for (uint32_t i = 0; i < DRAWS; i++) {
		double u;
		uint64_t rank;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		u = (double)(x >> 11) / (double)(1ull << 53);
		rank = (uint64_t)(u * u * DISTINCT);
		/* pids (allocated in order, with gaps), and ui/stats' (type << 32 | pid) */
		keys[i] = rank % 2 ? 300 + rank * 5 : (rank % 40) << 32 | (rank + 1);
	}
}

int main(void)
{
	struct cmap c = { 0 };
	struct hmap m = { 0 };
	uint64_t t0, sum = 0, csum = 0, *v;
	double ns_map, ns_anchor, ns_get;
	size_t pos = 0;

	make_keys();
	if (!keys)
		return 1;
	/* five times each, alternating; the best run of each counts (CPU time) */
	ns_map = ns_anchor = 1e9;
	for (int round = 0; round < 5; round++) {
		hmap_destroy(&m);
		t0 = clock_thread_ns();
		for (uint32_t i = 0; i < DRAWS; i++) {
			v = hmap_put(&m, keys[i], NULL);
			if (!v)
				return 1;
			(*v)++;
		}
		if ((double)(clock_thread_ns() - t0) / DRAWS < ns_map)
			ns_map = (double)(clock_thread_ns() - t0) / DRAWS;

		free(c.key);
		free(c.cnt);
		memset(&c, 0, sizeof(c));
		t0 = clock_thread_ns();
		for (uint32_t i = 0; i < DRAWS; i++)
			if (cmap_add(&c, keys[i], 1))
				return 1;
		if ((double)(clock_thread_ns() - t0) / DRAWS < ns_anchor)
			ns_anchor = (double)(clock_thread_ns() - t0) / DRAWS;
	}
	t0 = clock_thread_ns();
	for (uint32_t i = 0; i < DRAWS; i++)
		sum += *hmap_get(&m, keys[i]);
	ns_get = (double)(clock_thread_ns() - t0) / DRAWS;

	/* both counted the same */
	for (size_t i = 0; i < c.cap; i++)
		csum += c.cnt[i];
	while (hmap_next(&m, &pos, NULL, NULL))
		;
	if (hmap_count(&m) != c.n || csum != DRAWS) {
		printf("MISMATCH: %zu keys in the map, %zu in cmap\n", hmap_count(&m), c.n);
		return 1;
	}
	printf("bench hashmap.count %.2f ns/event (hmap_put + increment, %u draws of %zu keys)\n",
	       ns_map, DRAWS, hmap_count(&m));
	printf("bench hashmap.count.anchor %.2f ns/event (store.c's cmap_add probe loop, same "
	       "keys)\n", ns_anchor);
	printf("bench hashmap.get %.2f ns/lookup (keys present; checksum %llu)\n", ns_get,
	       (unsigned long long)sum);
	hmap_destroy(&m);
	free(c.key);
	free(c.cnt);
	free(keys);
	return 0;
}
