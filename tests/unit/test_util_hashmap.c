// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/lib/hashmap.c: the hash map against a plain array on random insertions,
 * updates and deletions (key 0 and UINT64_MAX included, keys that share
 * their low or high bits, so runs collide and deletion has to shift them
 * back), iteration, reserve; hash_str's spread; the string map on the names of
 * a real kallsyms.
 */
#include <errno.h>

#include "lib/file.h"
#include "ingest/fixture.h"
#include "lib/hashmap.h"
#include "test.h"

#define DOMAIN	4096

/* Key i of the domain: 0, UINT64_MAX, and runs that differ only high or only low. */
static uint64_t dom_key(unsigned int i)
{
	switch (i % 4) {
	case 0:
		return (uint64_t)i / 4;				/* 0, 1, 2 ... */
	case 1:
		return (uint64_t)(i / 4 + 1) << 44;		/* high bits only */
	case 2:
		return UINT64_MAX - i / 4;			/* UINT64_MAX ... */
	default:
		return (uint64_t)(i / 4 + 1) * HMAP_GOLDEN;	/* multiples of the multiplier */
	}
}

struct ref {
	bool		in[DOMAIN];
	uint64_t	val[DOMAIN];
	size_t		n;
};

/* Everything in @r is in @m with its value, and nothing else is. */
static bool same(const struct hmap *m, const struct ref *r)
{
	size_t pos = 0, seen = 0;
	uint64_t k, v;

	if (hmap_count(m) != r->n)
		return false;
	for (unsigned int i = 0; i < DOMAIN; i++) {
		uint64_t *p = hmap_get(m, dom_key(i));

		if (r->in[i] != !!p || (p && *p != r->val[i]))
			return false;
	}
	while (hmap_next(m, &pos, &k, &v))
		seen++;
	return seen == r->n;
}

/* @rounds random operations on keys 0 .. @domain - 1 of dom_key(), checked against @r. */
static bool random_ops(struct ref *r, unsigned int domain, int rounds, unsigned int seed)
{
	struct hmap m = { 0 };
	bool ok = true;

	memset(r, 0, sizeof(*r));
	for (int round = 0; round < rounds && ok; round++) {
		unsigned int i = (unsigned int)rand_r(&seed) % domain;
		unsigned int op = (unsigned int)rand_r(&seed) % 8;
		uint64_t key = dom_key(i), v = (uint64_t)rand_r(&seed) << 20 | (uint64_t)round;
		uint64_t old = 0, *p;
		bool added;

		if (op < 3) {
			ok = hmap_set(&m, key, v) == 0;
			r->n += !r->in[i];
			r->in[i] = true;
			r->val[i] = v;
		} else if (op < 5) {
			p = hmap_put(&m, key, &added);
			ok = p && added == !r->in[i] && *p == (r->in[i] ? r->val[i] : 0);
			if (p)
				(*p)++;
			r->n += !r->in[i];
			r->val[i] = r->in[i] ? r->val[i] + 1 : 1;
			r->in[i] = true;
		} else {
			ok = hmap_del(&m, key, &old) == r->in[i] && (!r->in[i] || old == r->val[i]);
			r->n -= r->in[i];
			r->in[i] = false;
		}
		if (ok && round % (domain < 100 ? 1 : 5000) == 0)
			ok = same(&m, r);
	}
	ok = ok && same(&m, r);
	hmap_clear(&m);
	memset(r, 0, sizeof(*r));
	ok = ok && same(&m, r) && m.cap;
	hmap_destroy(&m);
	return ok && !hmap_get(&m, 0) && !hmap_get(&m, 5) && !hmap_del(&m, 5, NULL);
}

TEST(random_ops_like_an_array)
{
	static struct ref r;

	CHECK(random_ops(&r, DOMAIN, 200000, 1));
}

/* A few keys in the smallest table: runs wrap past its end all the time. */
TEST(random_ops_in_a_small_table)
{
	static struct ref r;

	for (unsigned int seed = 1; seed <= 50; seed++)
		CHECK(random_ops(&r, 11, 2000, seed));
}

/* Keys whose run wraps past the end of the table: deletion must pull them back. */
TEST(wrapped_run_deletion)
{
	struct hmap m = { 0 };
	uint64_t last[4], n = 0;

	CHECK(hmap_reserve(&m, 8) == 0 && m.cap == 16);
	for (uint64_t k = 1; n < 4; k++)
		if (hmap_home(&m, k) == m.cap - 1)
			last[n++] = k;
	/* at slots 15, 0, 1, 2, all with their home at 15 */
	for (int i = 0; i < 4; i++)
		CHECK(hmap_set(&m, last[i], (uint64_t)i) == 0);
	CHECK(m.slots[0].key == last[1] && m.slots[2].key == last[3]);
	for (int del = 0; del < 4; del++) {
		CHECK(hmap_del(&m, last[del], NULL));
		for (int i = del + 1; i < 4; i++)
			CHECK(hmap_get(&m, last[i]) && *hmap_get(&m, last[i]) == (uint64_t)i);
		CHECK(!hmap_get(&m, last[del]));
	}
	hmap_destroy(&m);
}

/* Fill, then delete every other key in table order: each deletion shifts a run back. */
TEST(deletion_keeps_runs_reachable)
{
	struct hmap m = { 0 };
	uint64_t *keys = malloc(100000 * sizeof(*keys)), k;
	size_t pos = 0, n = 0;

	CHECK(keys);
	for (uint64_t i = 1; i <= 100000; i++)
		CHECK(hmap_set(&m, i << 32, i) == 0);	/* only high bits differ */
	while (hmap_next(&m, &pos, &k, NULL))
		keys[n++] = k;
	CHECK_EQ_U64(n, 100000);
	for (size_t i = 0; i < n; i += 2)
		CHECK(hmap_del(&m, keys[i], NULL));
	for (size_t i = 0; i < n; i++) {
		uint64_t *v = hmap_get(&m, keys[i]);

		CHECK(i % 2 ? v && *v == keys[i] >> 32 : !v);
	}
	CHECK_EQ_U64(hmap_count(&m), 50000);
	hmap_destroy(&m);
	free(keys);
}

TEST(reserve_means_no_growth)
{
	struct hmap m = { 0 };
	struct hmap_slot *slots;
	int x, y;

	CHECK(hmap_reserve(&m, 10000) == 0);
	slots = m.slots;
	for (uint64_t i = 0; i < 10000; i++)
		CHECK(hmap_put(&m, i * 7919, NULL));
	CHECK(m.slots == slots);
	/* and it does grow, past 70% of its slots */
	for (uint64_t i = 10000; m.slots == slots; i++)
		CHECK(hmap_put(&m, i * 7919, NULL));
	CHECK(hmap_count(&m) > m.cap / 2 * 7 / 10);
	hmap_clear(&m);
	CHECK(hmap_set_ptr(&m, 0, &x) == 0 && hmap_set_ptr(&m, 3, &y) == 0);
	CHECK(hmap_get_ptr(&m, 0) == &x && hmap_get_ptr(&m, 3) == &y && !hmap_get_ptr(&m, 4));
	hmap_destroy(&m);
}

/* One flipped input bit flips about half of the 64 output bits. */
TEST(hash_str_avalanche)
{
	unsigned int seed = 7;
	uint64_t flips = 0, trials = 0;

	for (int t = 0; t < 2000; t++) {
		unsigned char b[24];
		size_t len = 1 + (size_t)rand_r(&seed) % sizeof(b);
		uint64_t h;

		for (size_t i = 0; i < len; i++)
			b[i] = (unsigned char)rand_r(&seed);
		h = hash_str(b, len);
		for (size_t bit = 0; bit < len * 8; bit++) {
			b[bit / 8] ^= (unsigned char)(1u << bit % 8);
			flips += (uint64_t)__builtin_popcountll(h ^ hash_str(b, len));
			b[bit / 8] ^= (unsigned char)(1u << bit % 8);
			trials++;
		}
	}
	printf("  %.2f of 64 bits flip on average\n", (double)flips / (double)trials);
	CHECK(flips > trials * 31 && flips < trials * 33);
	/* the length counts: "a" and "a\0" differ */
	CHECK(hash_str("a\0", 1) != hash_str("a\0", 2));
}

/* Kernel symbol names: many share long prefixes (__pfx_, __x64_sys_). */
static char *names_of(const char *text, size_t *n)
{
	char *names = strdup(text), *p, *save;
	size_t count = 0;
	char *out = names;

	for (p = strtok_r(names, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
		char *name = strchr(p, ' ');

		if (!name || !(name = strchr(name + 1, ' ')))
			continue;
		name++;
		name[strcspn(name, " \t")] = '\0';
		memmove(out, name, strlen(name) + 1);
		out += strlen(name) + 1;
		count++;
	}
	*n = count;
	return names;
}

TEST(strmap_on_kallsyms_names)
{
	struct strmap m = { 0 };
	char path[600], *text, *names, *p;
	size_t n, distinct = 0;
	bool added;

	snprintf(path, sizeof(path), "%s/rt612-fgraph/kallsyms", fixture_root());
	CHECK(file_read(path, FILE_NO_MAX, &text, NULL) == 0);
	names = names_of(text, &n);
	CHECK(n > 100);
	p = names;
	for (size_t i = 0; i < n; i++, p += strlen(p) + 1) {
		uint64_t *v = strmap_put(&m, p, &added);

		CHECK(v);
		if (added) {
			*v = i;
			distinct++;
		}
	}
	CHECK_EQ_U64(m.n, distinct);
	/* every name maps to its first occurrence, found from a slice too */
	p = names;
	for (size_t i = 0; i < n; i++, p += strlen(p) + 1) {
		char slice[512];
		size_t len = strlen(p);
		uint64_t *v;
		char *q = names;

		snprintf(slice, sizeof(slice), "%sXYZ", p);
		v = strmap_get(&m, slice, len);
		CHECK(v && *v <= i);
		for (uint64_t k = 0; k < *v; k++)
			q += strlen(q) + 1;
		CHECK_STR(q, p);
		CHECK(!strmap_get(&m, slice, len + 1));
		if (len > 1)
			CHECK(!strmap_get(&m, p, len - 1) || strmap_get(&m, p, len - 1) != v);
	}
	/* entries in insertion order */
	CHECK_EQ_U64(m.ent[0].val, 0);
	CHECK_STR(m.ent[0].key, names);
	strmap_destroy(&m);
	free(names);
	free(text);
}

TEST_MAIN()
