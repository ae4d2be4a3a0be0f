// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pidmap.h"

static int pidmap_grow(struct pidmap *m)
{
	struct pidmap g = { .cap = m->cap ? m->cap * 2 : 64 };

	g.key = calloc(g.cap, sizeof(*g.key));
	g.val = malloc(g.cap * sizeof(*g.val));
	if (!g.key || !g.val) {
		free(g.key);
		free(g.val);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		size_t h;

		if (!m->key[i])
			continue;
		h = pidmap_home(&g, (int32_t)(uint32_t)(m->key[i] - 1));
		while (g.key[h])
			h = (h + 1) & (g.cap - 1);
		g.key[h] = m->key[i];
		g.val[h] = m->val[i];
	}
	g.n = m->n;
	free(m->key);
	free(m->val);
	*m = g;
	return 0;
}

uint64_t *pidmap_put(struct pidmap *m, int32_t pid, bool *added)
{
	uint64_t k = (uint64_t)(uint32_t)pid + 1, *v = pidmap_get(m, pid);
	size_t i;

	if (added)
		*added = !v;
	if (v)
		return v;
	if ((m->n + 1) * 2 > m->cap && pidmap_grow(m))
		return NULL;
	for (i = pidmap_home(m, pid); m->key[i]; i = (i + 1) & (m->cap - 1))
		;
	m->key[i] = k;
	m->val[i] = 0;
	m->n++;
	return &m->val[i];
}

void pidmap_clear(struct pidmap *m)
{
	if (m->cap)
		memset(m->key, 0, m->cap * sizeof(*m->key));
	m->n = 0;
}

void pidmap_destroy(struct pidmap *m)
{
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof(*m));
}
