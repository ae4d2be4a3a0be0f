// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The .ktop AGG block (format version 4): the aggregations' results go into
 * a file and come back the same; a file without them stays version 3, which
 * older ktops read; a version 4 file's optional block of a type this ktop
 * does not know is skipped, a required one refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agg/agg.h"
#include "formats/format.h"
#include "formats/ktop-local.h"
#include "formats/ktop.h"
#include "lib/file.h"
#include "store/store.h"
#include "test.h"

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
	static char path[512];

	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof(tmpdir), "/tmp/ktop-test-aggktop.XXXXXX");
		if (!mkdtemp(tmpdir))
			return NULL;
	}
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return path;
}

/* Two measures as a run would have them: a latency and a --hist. */
static struct agg_set *two_results(void)
{
	struct agg_result r[2];
	struct agg_set *s = NULL;

	if (agg_set_new_fed(&s))
		return NULL;
	memset(r, 0, sizeof(r));
	r[0].idx = 0;
	r[0].kind = AGG_LATENCY;
	r[0].engine = "bpf";
	snprintf(r[0].title, sizeof(r[0].title), "sched:sched_waking -> sched:sched_switch on "
		 "pid = next_pid");
	snprintf(r[0].start, sizeof(r[0].start), "sched:sched_waking");
	snprintf(r[0].end, sizeof(r[0].end), "sched:sched_switch");
	snprintf(r[0].keynames, sizeof(r[0].keynames), "next_pid");
	snprintf(r[0].why, sizeof(r[0].why), "no hist triggers");
	r[0].unit_ns = 1;
	r[0].count = 7;
	r[0].sum_ns = 70000;
	r[0].min_ns = 2000;
	r[0].max_ns = 30000;
	r[0].bucket[11] = 2;
	r[0].bucket[13] = 4;
	r[0].bucket[15] = 1;
	r[0].dropped = 3;
	r[0].starts = 9;
	r[0].ends = 20;
	r[0].rate = 12.5;
	r[0].worst = (struct agg_worst){ .lat_ns = 30000, .te_ns = 123456789 };
	snprintf(r[0].worst.key, sizeof(r[0].worst.key), "42");
	r[0].rows = calloc(2, sizeof(*r[0].rows));
	r[0].nrows = 2;
	r[0].rows[0] = (struct agg_row){ .key = "42", .count = 5, .sum = 60000, .max = 30000,
					 .max_te = 123456789 };
	r[0].rows[1] = (struct agg_row){ .key = "7", .count = 2, .sum = 10000, .max = 6000 };
	r[1].idx = 1;
	r[1].kind = AGG_HIST;
	r[1].engine = "hist";
	snprintf(r[1].title, sizeof(r[1].title), "sched:sched_switch key=prev_comm");
	r[1].count = 11;
	r[1].rows = calloc(1, sizeof(*r[1].rows));
	r[1].nrows = 1;
	r[1].rows[0] = (struct agg_row){ .key = "bash", .count = 11 };
	if (agg_set_feed(s, r, 2)) {
		agg_set_free(s);
		return NULL;
	}
	return s;
}

static uint32_t file_version(const char *path)
{
	uint8_t hdr[32] = { 0 };
	int fd = open(path, O_RDONLY);

	if (fd < 0 || read(fd, hdr, sizeof(hdr)) != sizeof(hdr)) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	close(fd);
	return get_le32(hdr + 8);
}

/* Read @path whole; the reader's aggregation set, taken, in *@agg. */
static int read_all(const char *path, struct agg_set **agg, char *err, size_t len)
{
	struct format_reader *r = NULL;
	struct format_in in = { .path = path, .name = path };
	int ret;

	in.fd = open(path, O_RDONLY);
	if (in.fd < 0)
		return -errno;
	ret = format_open(&in, &r, err, len);
	if (!ret)
		while ((ret = format_reader_next(r)) > 0)
			;
	if (ret < 0 && r)
		snprintf(err, len, "%s", r->err);
	if (ret)
		printf("  %s: %s\n", path, err);
	if (r) {
		*agg = r->agg;
		r->agg = NULL;
	}
	format_reader_free(r);
	close(in.fd);
	return ret;
}

TEST(results_round_trip)
{
	struct agg_set *s = two_results(), *back = NULL;
	struct ktop_write_opts o = { .agg = s };
	struct store *st = store_new(0, 2);
	const char *path = tmp_path("agg.ktop");
	struct agg_result a, b;
	char err[512] = "";

	CHECK(s && st && path);
	CHECK(ktop_write(path, st, NULL, &o, err, sizeof(err)) == 0);
	CHECK_EQ_U64(file_version(path), 4);
	CHECK(read_all(path, &back, err, sizeof(err)) == 0);
	CHECK(back);
	CHECK_EQ_U64(agg_set_count(back), 2);
	for (unsigned int i = 0; i < 2; i++) {
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		CHECK(!agg_set_result(s, i, &a));
		CHECK(!agg_set_result(back, i, &b));
		CHECK_STR(b.title, a.title);
		CHECK_STR(b.engine, a.engine);
		CHECK(b.kind == a.kind);
		CHECK_STR(b.start, a.start);
		CHECK_STR(b.keynames, a.keynames);
		CHECK_EQ_U64(b.count, a.count);
		CHECK_EQ_U64(b.sum_ns, a.sum_ns);
		CHECK_EQ_U64(b.min_ns, a.min_ns);
		CHECK_EQ_U64(b.max_ns, a.max_ns);
		CHECK_EQ_U64(b.dropped, a.dropped);
		CHECK_EQ_U64(b.starts, a.starts);
		CHECK(!memcmp(b.bucket, a.bucket, sizeof(a.bucket)));
		CHECK_EQ_U64(b.worst.te_ns, a.worst.te_ns);
		CHECK_STR(b.worst.key, a.worst.key);
		CHECK(b.rate == a.rate);
		CHECK_EQ_U64(b.nrows, a.nrows);
		for (size_t k = 0; k < a.nrows; k++) {
			CHECK_STR(b.rows[k].key, a.rows[k].key);
			CHECK_EQ_U64(b.rows[k].count, a.rows[k].count);
			CHECK_EQ_U64(b.rows[k].sum, a.rows[k].sum);
			CHECK_EQ_U64(b.rows[k].max_te, a.rows[k].max_te);
		}
		CHECK_EQ_U64(agg_quantile(&b, 0.5), agg_quantile(&a, 0.5));
		agg_result_clear(&a);
		agg_result_clear(&b);
	}
	agg_set_free(back);
	agg_set_free(s);
	store_free(st);
}

TEST(without_results_version_3)
{
	struct store *st = store_new(0, 2);
	const char *path = tmp_path("plain.ktop");
	struct agg_set *back = NULL;
	char err[512];

	CHECK(st && path);
	CHECK(ktop_write(path, st, NULL, NULL, err, sizeof(err)) == 0);
	CHECK_EQ_U64(file_version(path), 3);
	CHECK(read_all(path, &back, err, sizeof(err)) == 0);
	CHECK(!back);
	store_free(st);
}

/* @path with a block of type @type (flags @flags, payload "hello") before its END block. */
static int add_block(const char *path, const char *out, uint8_t type, uint8_t flags)
{
	uint8_t hdr[BLK_HDR_SIZE], *p, *q;
	size_t len, endoff;
	char *text;
	int ret;

	if (file_read(path, FILE_NO_MAX, &text, &len))
		return -EIO;
	p = (uint8_t *)text;
	/* the END block: the first of its type */
	for (endoff = SNAP_HDR_SIZE; endoff < len;) {
		if (p[endoff + 4] == BLK_END)
			break;
		endoff += BLK_HDR_SIZE + get_le32(p + endoff + 12);
	}
	if (endoff >= len) {
		free(text);
		return -EBADMSG;
	}
	put_le32(hdr, BLK_MAGIC);
	hdr[4] = type;
	hdr[5] = flags | BLK_F_RAW;
	hdr[6] = hdr[7] = 0;
	put_le32(hdr + 8, 5);
	put_le32(hdr + 12, 5);
	put_le32(hdr + 16, crc("hello", 5));
	put_le32(hdr + 20, crc(hdr, 20));
	q = malloc(len + sizeof(hdr) + 5);
	if (!q) {
		free(text);
		return -ENOMEM;
	}
	memcpy(q, p, endoff);
	memcpy(q + endoff, hdr, sizeof(hdr));
	memcpy(q + endoff + sizeof(hdr), "hello", 5);
	memcpy(q + endoff + sizeof(hdr) + 5, p + endoff, len - endoff);
	{
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		ret = fd < 0 ? -errno : file_write_all(fd, q, len + sizeof(hdr) + 5);
		if (fd >= 0)
			close(fd);
	}
	free(q);
	free(text);
	return ret;
}

TEST(unknown_blocks)
{
	struct agg_set *s = two_results(), *back = NULL;
	struct ktop_write_opts o = { .agg = s };
	struct store *st = store_new(0, 2);
	char v4[512], v3[512], out[512], err[512] = "";

	CHECK(s && st);
	snprintf(v4, sizeof(v4), "%s", tmp_path("v4.ktop"));
	snprintf(v3, sizeof(v3), "%s", tmp_path("v3.ktop"));
	snprintf(out, sizeof(out), "%s", tmp_path("x.ktop"));
	CHECK(ktop_write(v4, st, NULL, &o, err, sizeof(err)) == 0);
	CHECK(ktop_write(v3, st, NULL, NULL, err, sizeof(err)) == 0);
	/* version 4: a later ktop's optional block is skipped, the rest read */
	CHECK(add_block(v4, out, 200, BLK_F_OPTIONAL) == 0);
	CHECK(read_all(out, &back, err, sizeof(err)) == 0);
	CHECK(back && agg_set_count(back) == 2);
	agg_set_free(back);
	back = NULL;
	/* a required one is refused, naming it */
	CHECK(add_block(v4, out, 200, 0) == 0);
	CHECK(read_all(out, &back, err, sizeof(err)) == -EBADMSG);
	CHECK(strstr(err, "unknown block type 200"));
	agg_set_free(back);
	back = NULL;
	/* version 3 knows no optional blocks, nor AGG */
	CHECK(add_block(v3, out, 200, BLK_F_OPTIONAL) == 0);
	CHECK(read_all(out, &back, err, sizeof(err)) == -EBADMSG);
	CHECK(add_block(v3, out, BLK_AGG, BLK_F_OPTIONAL) == 0);
	CHECK(read_all(out, &back, err, sizeof(err)) == -EBADMSG);
	agg_set_free(back);
	agg_set_free(s);
	store_free(st);
}

TEST(cleanup)
{
	if (tmpdir[0])
		CHECK(test_rm_rf(tmpdir) == 0);
}

TEST_MAIN()
