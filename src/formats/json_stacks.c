// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * "stackFrames" and "sf" of the Chrome trace-event JSON (json_stacks.h).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "lib/hashmap.h"
#include "lib/intern.h"
#include "lib/jsonw.h"
#include "json_stacks.h"
#include "store/stacks.h"
#include "store/store.h"

struct sf_node {
	uint32_t	parent;		/* frame id, 0: a root */
	uint32_t	name;		/* string id */
	uint8_t		kind;		/* enum stack_frame_kind */
};

struct json_sf {
	struct store	*st;
	struct sf_node	*nodes;		/* frame id i at nodes[i - 1] */
	uint32_t	n;
	size_t		cap;
	struct hmap	ids;		/* parent << 32 | name -> frame id */
	uint32_t	*leaf;		/* stack id -> its leaf frame id, 0: not yet */
	uint32_t	nleaf;
};

struct json_sf *json_sf_new(struct store *st)
{
	struct json_sf *sf = calloc(1, sizeof(*sf));

	if (sf)
		sf->st = st;
	return sf;
}

void json_sf_free(struct json_sf *sf)
{
	if (!sf)
		return;
	free(sf->nodes);
	hmap_destroy(&sf->ids);
	free(sf->leaf);
	free(sf);
}

/* The id of frame @name under @parent, made if new. Return: 0 on ENOMEM. */
static uint32_t sf_child(struct json_sf *sf, uint32_t parent, uint32_t name, uint8_t kind)
{
	uint64_t key = (uint64_t)parent << 32 | name, *id;
	bool added;

	id = hmap_put(&sf->ids, key, &added);
	if (!id)
		return 0;
	if (!added)
		return (uint32_t)*id;
	if (array_grow((void **)&sf->nodes, &sf->cap, sf->n + 1, sizeof(*sf->nodes))) {
		hmap_del(&sf->ids, key, NULL);
		return 0;
	}
	sf->nodes[sf->n] = (struct sf_node){ parent, name, kind };
	*id = ++sf->n;
	return sf->n;
}

uint64_t json_sf_leaf(struct json_sf *sf, uint32_t stack)
{
	struct stacks *sk = store_stacks(sf->st);
	struct stack_info si;
	uint32_t id = 0;

	if (!sf || !stack || stacks_get(sk, stack, &si))
		return 0;
	if (stack >= sf->nleaf) {
		uint32_t n = stacks_count(sk) + 1, *v = realloc(sf->leaf, n * sizeof(*v));

		if (!v)
			return 0;
		memset(v + sf->nleaf, 0, (n - sf->nleaf) * sizeof(*v));
		sf->leaf = v;
		sf->nleaf = n;
	}
	if (sf->leaf[stack])
		return sf->leaf[stack];
	/* root first: the table holds the leaf first */
	for (int i = (int)si.nkern + si.nuser - 1; i >= 0; i--) {
		struct stack_frame f;

		if (stacks_frame(sk, stack, (unsigned int)i, &f))
			return 0;
		id = sf_child(sf, id, f.name_id, (uint8_t)f.kind);
		if (!id)
			return 0;
	}
	sf->leaf[stack] = id;
	return id;
}

void json_sf_write(struct json_sf *sf, FILE *fp)
{
	static const char *const cat[] = { "kernel", "user", "function" };
	struct intern *in;
	struct jsonw w;
	char id[16];

	if (!sf || !sf->n)
		return;
	in = store_strings(sf->st);
	fputs(",\"stackFrames\":", fp);
	jsonw_init_file(&w, fp);
	jsonw_obj_open(&w);
	for (uint32_t i = 0; i < sf->n; i++) {
		const struct sf_node *n = &sf->nodes[i];
		const char *name = intern_str(in, n->name);

		snprintf(id, sizeof(id), "%u", i + 1);
		jsonw_newline(&w);
		jsonw_key(&w, id);
		jsonw_obj_open(&w);
		jsonw_key(&w, "name");
		jsonw_str(&w, name[0] ? name : "[unknown]");
		jsonw_key(&w, "category");
		jsonw_str(&w, n->kind < 3 ? cat[n->kind] : "?");
		if (n->parent) {
			snprintf(id, sizeof(id), "%u", n->parent);
			jsonw_key(&w, "parent");
			jsonw_str(&w, id);
		}
		jsonw_obj_close(&w);
	}
	jsonw_obj_close(&w);
	jsonw_finish(&w);
}
