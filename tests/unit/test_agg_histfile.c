// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The hist file parser on files the rt guests' kernels printed
 * (tests/fixtures/hist-rt: 6.1, hist-rt612: 6.12; recipe in
 * tests/fixtures/README): several tables per file, log2 keys, onmax lines
 * with saved fields, a table that dropped entries, a snapshot's details,
 * string keys padded to 50 columns, .execname keys, an empty table. The
 * figures are checked against the file's own totals and against a plain
 * count of its lines, not against numbers typed here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg/agg.h"
#include "agg/agg_histfile.h"
#include "ingest/fixture.h"
#include "lib/file.h"
#include "test.h"

static char *load(const char *fx, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s/%s", fixture_root(), fx, name);
	return file_read_text(path);
}

/* Lines beginning with @prefix in table @t (0-based) of @text. */
static size_t count_lines(const char *text, int t, const char *prefix)
{
	const char *p = text;
	size_t n = 0;
	int table = -1;

	while (*p) {
		if (!strncmp(p, "# event histogram", 17))
			table++;
		else if (table == t && !strncmp(p, prefix, strlen(prefix)))
			n++;
		p += strcspn(p, "\n");
		p += *p == '\n';
	}
	return n;
}

static uint64_t sum_val(const struct agg_hf_table *t, const char *name)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < t->nent; i++) {
		const struct agg_hf_kv *kv = agg_hf_val(&t->ent[i], name);

		sum += kv ? kv->num : 0;
	}
	return sum;
}

static void check_latency_file(const char *fx)
{
	struct agg_histfile h;
	const struct agg_hf_table *t;
	char err[256] = "", *text = load(fx, "ktopfx_lat.hist");
	uint64_t max = 0, snap_key;
	bool key_seen = false;

	CHECK(text);
	CHECK(!agg_histfile_parse(text, &h, err, sizeof(err)));
	CHECK_EQ_U64(h.ntab, 5);
	for (size_t i = 0; i < h.ntab; i++) {
		CHECK_EQ_U64(h.tab[i].nent, count_lines(text, i, "{ "));
		CHECK(h.tab[i].has_totals);
		CHECK_EQ_U64(h.tab[i].entries, h.tab[i].nent);
		/*
		 * Hits is the sum of the hitcounts; where the map was full, the
		 * 6.1 guest's kernel counted one more hit than its entries hold.
		 */
		if (!h.tab[i].dropped)
			CHECK_EQ_U64(sum_val(&h.tab[i], "hitcount"), h.tab[i].hits);
		CHECK(sum_val(&h.tab[i], "hitcount") <= h.tab[i].hits);
	}

	/* the log2 buckets, each with its smallest latency saved by onmax(C - lat) */
	t = agg_histfile_find(&h, "hist:keys=lat.log2:vals=hitcount,lat:");
	CHECK(t && t == &h.tab[0] && !t->paused);
	CHECK(t->nent > 5);
	CHECK_EQ_U64(count_lines(text, 0, "\tmax:"), t->nent);
	for (size_t i = 0; i < t->nent; i++) {
		const struct agg_hf_entry *e = &t->ent[i];
		const struct agg_hf_kv *lat = agg_hf_val(e, "lat"), *cnt = &e->val[0];
		uint64_t b, lo;

		CHECK(e->nkey == 1 && e->key[0].kind == AGG_HF_LOG2);
		b = e->key[0].num;
		CHECK_STR(cnt->name, "hitcount");
		CHECK_STR(e->track, "max");
		CHECK_EQ_U64(e->nsaved, 1);
		CHECK_STR(e->saved[0].name, "lat");
		/* the kernel's bucket b holds (2^(b-1), 2^b] */
		lo = e->saved[0].num;
		CHECK(lo <= (1ull << b) && (b == 0 || lo > (1ull << (b - 1))));
		CHECK_EQ_U64(e->track_val, 4611686018427387904ull - lo);
		/* the bucket's sum lies within its count times its bounds */
		CHECK(lat && lat->kind == AGG_HF_NUM);
		CHECK(lat->num >= cnt->num * lo && lat->num <= cnt->num * (1ull << b));
	}

	/* per key, with onmax($mx).save(te,lat) */
	t = &h.tab[1];
	CHECK(strstr(t->trigger, "onmax($mx).save(te,lat)"));
	for (size_t i = 0; i < t->nent; i++) {
		const struct agg_hf_entry *e = &t->ent[i];
		const struct agg_hf_kv *te = agg_hf_saved(e, "te");

		CHECK_STR(e->key[0].name, "next_pid");
		CHECK(e->key[0].kind == AGG_HF_NUM);
		CHECK(te && te->kind == AGG_HF_NUM && te->num > 1000000000ull);
		CHECK_EQ_U64(e->track_val, agg_hf_saved(e, "lat")->num);
		CHECK(e->track_val <= agg_hf_val(e, "lat")->num);
		if (e->track_val > max)
			max = e->track_val;
	}

	/* size=128: the map filled and dropped the rest */
	t = &h.tab[2];
	CHECK_EQ_U64(t->entries, 128);
	CHECK(t->dropped > 0);

	/* a filter nothing passed: an empty table, its trigger with the " if " */
	t = &h.tab[3];
	CHECK(strstr(t->trigger, " if next_pid > 1000000"));
	CHECK(t->nent == 0 && t->hits == 0 && t->has_totals);

	/* onmax().snapshot(): the details, the value no larger than the largest max */
	t = &h.tab[4];
	CHECK(t->snapshot);
	CHECK(t->snap_val > 0 && t->snap_val <= max);
	CHECK(!strncmp(t->snap_key, "next_pid:", 9));
	snap_key = strtoull(t->snap_key + 9, NULL, 10);
	for (size_t i = 0; i < h.tab[1].nent; i++)
		key_seen |= h.tab[1].ent[i].key[0].num == snap_key;
	CHECK(key_seen);
	agg_histfile_free(&h);
	free(text);
}

TEST(latency_tables_rt61)
{
	check_latency_file("hist-rt");
}

TEST(latency_tables_rt612)
{
	check_latency_file("hist-rt612");
}

static void check_keys_file(const char *fx)
{
	struct agg_histfile h;
	const struct agg_hf_table *t;
	char err[256] = "", *text = load(fx, "sched_switch.hist");
	size_t pingpong = 0;

	CHECK(text);
	CHECK(!agg_histfile_parse(text, &h, err, sizeof(err)));
	CHECK_EQ_U64(h.ntab, 2);
	t = agg_histfile_find(&h, "hist:keys=prev_comm,prev_pid:");
	CHECK(t);
	CHECK_EQ_U64(t->nent, count_lines(text, 1, "{ "));
	for (size_t i = 0; i < t->nent; i++) {
		const struct agg_hf_entry *e = &t->ent[i];

		CHECK_EQ_U64(e->nkey, 2);
		CHECK_STR(e->key[0].name, "prev_comm");
		CHECK(e->key[0].kind != AGG_HF_NUM || !strcmp(e->key[0].text, "0"));
		CHECK(e->key[0].text[0] && e->key[0].text[strlen(e->key[0].text) - 1] != ' ');
		CHECK_STR(e->key[1].name, "prev_pid");
		CHECK(e->key[1].kind == AGG_HF_NUM);
		CHECK_STR(e->val[1].name, "prev_prio");
		pingpong += !strcmp(e->key[0].text, "pingpong");
	}
	/* pingpong ran twice, two threads each */
	CHECK(pingpong >= 4);
	/* sort=hitcount.descending: the kernel's order is kept */
	CHECK(t->ent[0].val[0].num >= t->ent[t->nent - 1].val[0].num);
	agg_histfile_free(&h);
	free(text);

	text = load(fx, "sys_enter.hist");
	CHECK(text);
	CHECK(!agg_histfile_parse(text, &h, err, sizeof(err)));
	CHECK_EQ_U64(h.ntab, 1);
	t = &h.tab[0];
	CHECK(t->nent > 10);
	pingpong = 0;
	for (size_t i = 0; i < t->nent; i++) {
		const struct agg_hf_entry *e = &t->ent[i];

		CHECK(e->key[0].kind == AGG_HF_TASK);
		CHECK(e->key[0].num > 0 || !strcmp(e->key[0].text, "<idle>"));
		CHECK(e->key[1].kind == AGG_HF_NUM);
		pingpong += !strcmp(e->key[0].text, "pingpong") ? e->val[0].num : 0;
	}
	/* each of the four threads wrote and read 300 bytes one at a time */
	CHECK(pingpong >= 4 * 300);
	agg_histfile_free(&h);
	free(text);
}

TEST(keys_rt61)
{
	check_keys_file("hist-rt");
}

TEST(keys_rt612)
{
	check_keys_file("hist-rt612");
}

TEST(odd_input)
{
	struct agg_histfile h;
	char err[256];

	CHECK(!agg_histfile_parse("", &h, err, sizeof(err)));
	CHECK_EQ_U64(h.ntab, 0);
	CHECK(agg_histfile_parse("hello\n", &h, err, sizeof(err)) < 0);
	CHECK(strstr(err, "not a hist file"));
	agg_histfile_free(&h);
	CHECK(agg_histfile_parse("# event histogram\n{ pid: 1 \n", &h, err, sizeof(err)) < 0);
	CHECK(strstr(err, "closing }"));
	agg_histfile_free(&h);
	/* a stacktrace key spans lines */
	CHECK(!agg_histfile_parse("# event histogram\n# trigger info: hist:keys=stacktrace:"
				  "vals=hitcount [paused]\n\n{ stacktrace:\n         a+0x1/0x2\n"
				  "         b+0x3/0x4\n} hitcount:          7\n\nTotals:\n"
				  "    Hits: 7\n    Entries: 1\n    Dropped: 0\n", &h, err,
				  sizeof(err)));
	CHECK(h.ntab == 1 && h.tab[0].paused && h.tab[0].nent == 1);
	CHECK_STR(h.tab[0].ent[0].key[0].name, "stacktrace");
	CHECK(strstr(h.tab[0].ent[0].key[0].text, "a+0x1/0x2"));
	CHECK_EQ_U64(h.tab[0].ent[0].val[0].num, 7);
	agg_histfile_free(&h);
}

/* A value's .log2 bucket (agg_bucket) has it within its bounds, (lo, hi], in every unit. */
TEST(bucket_bounds_hold_their_values)
{
	static const uint64_t v[] = { 0, 1, 2, 3, 4, 5, 1000, 1023, 1024, 1025, 999999,
				      1ull << 40, (1ull << 40) + 1, 1ull << 62, (1ull << 62) + 1,
				      UINT64_MAX };
	static const unsigned int unit[] = { 0, 1, 1000 };
	uint64_t lo, hi, plo, phi;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		unsigned int b = agg_bucket(v[i]);

		agg_bucket_bounds(1, b, &lo, &hi);
		CHECK(b < AGG_BUCKETS);
		CHECK(v[i] <= hi && (v[i] > lo || (!b && !v[i])));
	}
	for (size_t u = 0; u < sizeof(unit) / sizeof(unit[0]); u++) {
		uint64_t un = unit[u] ? unit[u] : 1;

		agg_bucket_bounds(unit[u], 0, &lo, &hi);
		CHECK(lo == 0 && hi == un);
		for (unsigned int b = 1; b < AGG_BUCKETS; b++) {
			agg_bucket_bounds(unit[u], b - 1, &plo, &phi);
			agg_bucket_bounds(unit[u], b, &lo, &hi);
			/* adjacent, growing, saturated where 64 bits end; the last open */
			CHECK(lo == phi && hi >= lo);
			CHECK(hi == UINT64_MAX || hi == (1ull << b) * un);
		}
		CHECK(hi == UINT64_MAX);
	}
	agg_bucket_bounds(1000, 10, &lo, &hi);
	CHECK(lo == 512000 && hi == 1024000);
}

TEST_MAIN()
