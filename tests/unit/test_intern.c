// SPDX-License-Identifier: GPL-2.0-or-later
/* String interning: ids, round trips, growth, concurrent inserts and reads. */
#include <pthread.h>
#include <stdint.h>

#include "lib/intern.h"
#include "test.h"

TEST(intern_basic)
{
	struct intern *in = intern_new();
	uint32_t a, b, c;

	CHECK(in);
	CHECK_EQ_U64(intern_id(in, "", 0), 0);
	CHECK_STR(intern_str(in, 0), "");
	a = intern_id(in, "swapper/0", 9);
	b = intern_id(in, "bash", 4);
	c = intern_id(in, "swapper/0", 9);
	CHECK(a != 0 && b != 0 && a != b);
	CHECK_EQ_U64(a, c);
	CHECK_STR(intern_str(in, a), "swapper/0");
	CHECK_STR(intern_str(in, b), "bash");
	/* @len counts, the string need not be terminated there */
	CHECK_EQ_U64(intern_id(in, "bashful", 4), b);
	CHECK(intern_id(in, "bas", 3) != b);
	CHECK_STR(intern_str(in, 12345), "");
	CHECK_STR(intern_str(in, UINT32_MAX), "");
	CHECK_EQ_U64(intern_count(in), 4);
	CHECK(intern_bytes(in) > 0);
	intern_free(in);
	intern_free(NULL);
}

TEST(intern_many)
{
	struct intern *in = intern_new();
	enum { N = 200000 };
	static uint32_t ids[N];
	char buf[64];

	CHECK(in);
	for (int i = 0; i < N; i++) {
		int len = snprintf(buf, sizeof(buf), "sym_%d_%x", i, i * 2654435761u);

		ids[i] = intern_id(in, buf, len);
		CHECK(ids[i] != UINT32_MAX);
		CHECK_EQ_U64(ids[i], i + 1);
	}
	CHECK_EQ_U64(intern_count(in), N + 1);
	for (int i = 0; i < N; i++) {
		int len = snprintf(buf, sizeof(buf), "sym_%d_%x", i, i * 2654435761u);

		CHECK_STR(intern_str(in, ids[i]), buf);
		CHECK_EQ_U64(intern_id(in, buf, len), ids[i]);
	}
	/* a long string bigger than an arena block */
	{
		size_t big = 200000;
		char *s = malloc(big + 1);
		uint32_t id;

		CHECK(s);
		memset(s, 'x', big);
		s[big] = '\0';
		id = intern_id(in, s, big);
		CHECK(id != UINT32_MAX);
		CHECK(strlen(intern_str(in, id)) == big);
		CHECK_EQ_U64(intern_id(in, s, big), id);
		free(s);
		CHECK_STR(intern_str(in, ids[N - 1]), buf);
	}
	intern_free(in);
}

#define CT_THREADS	4
#define CT_STRINGS	20000

struct ct_arg {
	struct intern	*in;
	int		tid;
	uint32_t	*ids;	/* [CT_STRINGS] */
	int		bad;
};

static void *ct_thread(void *p)
{
	struct ct_arg *a = p;
	char buf[32];

	/* every thread inserts the same strings in a different order (a permutation) */
	static const int mul[CT_THREADS] = { 1, 3, 7, 11 };

	for (int k = 0; k < CT_STRINGS; k++) {
		int i = (k * mul[a->tid] + a->tid * 977) % CT_STRINGS;
		int len = snprintf(buf, sizeof(buf), "s%d", i);
		uint32_t id = intern_id(a->in, buf, len);

		a->ids[i] = id;
		if (id == UINT32_MAX || strcmp(intern_str(a->in, id), buf))
			a->bad++;
		/* read something another thread may have just added */
		if (id > 1 && intern_str(a->in, id - 1)[0] != 's')
			a->bad++;
	}
	return NULL;
}

TEST(intern_concurrent)
{
	static uint32_t ids[CT_THREADS][CT_STRINGS];
	struct ct_arg args[CT_THREADS];
	pthread_t th[CT_THREADS];
	struct intern *in = intern_new();
	uint8_t *seen;

	CHECK(in);
	for (int t = 0; t < CT_THREADS; t++) {
		args[t] = (struct ct_arg){ .in = in, .tid = t, .ids = ids[t] };
		CHECK(!pthread_create(&th[t], NULL, ct_thread, &args[t]));
	}
	for (int t = 0; t < CT_THREADS; t++)
		pthread_join(th[t], NULL);
	for (int t = 0; t < CT_THREADS; t++)
		CHECK_EQ_U64(args[t].bad, 0);
	/* all threads agree, and ids are distinct */
	CHECK_EQ_U64(intern_count(in), CT_STRINGS + 1);
	seen = calloc(CT_STRINGS + 1, 1);
	CHECK(seen);
	for (int i = 0; i < CT_STRINGS; i++) {
		for (int t = 1; t < CT_THREADS; t++)
			CHECK_EQ_U64(ids[t][i], ids[0][i]);
		CHECK(ids[0][i] >= 1 && ids[0][i] <= CT_STRINGS);
		CHECK(!seen[ids[0][i]]);
		seen[ids[0][i]] = 1;
	}
	free(seen);
	intern_free(in);
}

TEST_MAIN()
