// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * .ktop snapshots: round trips through a file and through a stream, time
 * windows, atomic writes, EPIPE, and every kind of bad input the issue lists
 * (truncated, bit flips, wrong version, zero length, huge sizes, not a trace).
 * The expected events always come from the fixtures decoded afresh.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "test.h"
#include "snap_common.h"

static char fixtures[SNAP_MAX_FIXTURES][64];
static int nfixtures;

__attribute__((constructor)) static void list_fixtures(void)
{
	nfixtures = snap_fixture_names(fixtures, SNAP_MAX_FIXTURES);
}

static char tmpdir[256];

/* Return: @name in the test's directory (one of 16 rotating buffers). */
static const char *tmp_path(const char *name)
{
	static char paths[16][512];
	static unsigned int next;
	char *path = paths[next++ % 16];

	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof(tmpdir), "/tmp/ktop-test-snapshot.XXXXXX");
		if (!mkdtemp(tmpdir))
			abort();
	}
	snprintf(path, 512, "%s/%s", tmpdir, name);
	return path;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	p = malloc(n + 1);
	if (p && fread(p, 1, n, f) != (size_t)n) {
		free(p);
		p = NULL;
	}
	fclose(f);
	*len = n;
	return p;
}

static int spit(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	if (n && fwrite(p, 1, n, f) != n) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

TEST(file_round_trip_every_fixture)
{
	for (int i = 0; i < nfixtures; i++) {
		struct snapshot_meta meta, back;
		struct store *st, *st2 = NULL;
		struct store_stats a, b;
		char err[512] = "";
		struct stat sb;
		const char *path = tmp_path("rt.ktop");
		size_t na, nb;

		st = snap_fixture_store(fixtures[i], &meta);
		CHECK(st);
		CHECK(snap_count(st) > 0);
		CHECK(meta.nformats > 0);
		CHECK(ktop_write(path, st, &meta, NULL, err, sizeof(err)) == 0);
		CHECK(stat(path, &sb) == 0);
		CHECK((sb.st_mode & 0777) == 0600);
		CHECK(format_load(path, 0, &st2, &back, err, sizeof(err)) == 0);
		CHECK(st2);
		CHECK(snap_compare(st, st2, 0, UINT64_MAX) == 0);
		store_get_stats(st, &a);
		store_get_stats(st2, &b);
		CHECK_EQ_U64(a.events, b.events);
		CHECK_EQ_U64(a.lost, b.lost);
		CHECK_EQ_U64(a.lost_marks, b.lost_marks);
		/* lost marks: same cpu, ts, count */
		na = store_lost_marks(st, 0, UINT64_MAX, NULL, 0);
		nb = store_lost_marks(st2, 0, UINT64_MAX, NULL, 0);
		CHECK_EQ_U64(na, nb);
		if (na) {
			struct store_lost la[na], lb[nb];

			store_lost_marks(st, 0, UINT64_MAX, la, na);
			store_lost_marks(st2, 0, UINT64_MAX, lb, nb);
			for (size_t k = 0; k < na; k++)
				CHECK(la[k].ts == lb[k].ts && la[k].count == lb[k].count &&
				      la[k].cpu == lb[k].cpu && la[k].why == lb[k].why);
		}
		CHECK(!memcmp(a.lost_why, b.lost_why, sizeof(a.lost_why)));
		/* every comm known to the original is known to the copy */
		for (int32_t pid = 0; pid < 70000; pid++) {
			const char *c1 = store_comm(st, pid), *c2 = store_comm(st2, pid);

			CHECK((!c1 && !c2) || (c1 && c2 && !strcmp(c1, c2)));
		}
		CHECK_STR(back.release, meta.release);
		CHECK_EQ_U64(back.nformats, meta.nformats);
		CHECK_EQ_U64(back.ncpus, store_ncpus(st));
		CHECK(back.header_page && meta.header_page &&
		      !strcmp(back.header_page, meta.header_page));
		for (size_t k = 0; k < meta.nformats; k++)
			CHECK(!strcmp(meta.formats[k].text, back.formats[k].text));
		printf("  %s: %llu events, %llu lost marks, %zu formats\n", fixtures[i],
		       (unsigned long long)a.events, (unsigned long long)a.lost_marks,
		       meta.nformats);
		snapshot_meta_free(&meta);
		snapshot_meta_free(&back);
		store_free(st);
		store_free(st2);
		unlink(path);
	}
}

TEST(time_window)
{
	struct store *st = snap_fixture_store("host-sched", NULL), *st2 = NULL;
	struct ktop_write_opts o = { 0 };
	struct store_stats s;
	char err[512];
	const char *path = tmp_path("win.ktop");
	uint64_t n = 0;

	CHECK(st);
	store_get_stats(st, &s);
	o.t0 = s.first_ts + (s.last_ts - s.first_ts) / 3;
	o.t1 = s.first_ts + 2 * (s.last_ts - s.first_ts) / 3;
	CHECK(ktop_write(path, st, NULL, &o, err, sizeof(err)) == 0);
	CHECK(format_load(path, 0, &st2, NULL, err, sizeof(err)) == 0);
	CHECK(snap_compare(st, st2, o.t0, o.t1) == 0);
	for (unsigned int cpu = 0; cpu < store_ncpus(st); cpu++) {
		uint64_t f, e;
		struct ktop_event ev;

		store_cpu_range(st, cpu, &f, &e);
		for (uint64_t i = f; i < e; i++)
			if (!store_get(st, cpu, i, &ev) && ev.ts >= o.t0 && ev.ts <= o.t1)
				n++;
	}
	CHECK(n > 0 && n < s.events);
	CHECK_EQ_U64(snap_count(st2), n);
	store_free(st);
	store_free(st2);
	unlink(path);
}

/* A stream written in several flushes while the store grows reads back whole. */
TEST(stream_incremental)
{
	struct store *full = snap_fixture_store("host-sched", NULL), *live, *got;
	struct ktop_writer *w;
	struct ktop_reader *r;
	struct schema *sf;
	char err[512];
	int fds[2], ret, blocks = 0;

	CHECK(full);
	sf = store_schema(full);
	live = store_new(0, store_ncpus(full));
	CHECK(live);
	CHECK(pipe(fds) == 0);
	/* a pipe holds 64 KiB; the reader runs in a child-free way: big pipe */
	fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
	w = ktop_writer_new(fds[1], "pipe", live, NULL, NULL, err, sizeof(err));
	CHECK(w);
	/* copy events in three slices, flushing after each */
	for (int slice = 0; slice < 3; slice++) {
		for (unsigned int cpu = 0; cpu < store_ncpus(full); cpu++) {
			uint64_t f, e;

			store_cpu_range(full, cpu, &f, &e);
			for (uint64_t i = f + (e - f) * slice / 3; i < f + (e - f) * (slice + 1) / 3;
			     i++) {
				struct ktop_event ev;
				const struct ktop_schema_type *t;
				int id;

				CHECK(store_get(full, cpu, i, &ev) == 0);
				t = schema_get(sf, ev.type);
				CHECK(t);
				id = schema_find(store_schema(live), t->system, t->name);
				if (id < 0)
					id = schema_add(store_schema(live), t->system, t->name,
							t->nfields, t->fields);
				CHECK(id > 0);
				ev.type = id;
				for (unsigned int k = 0; k < ev.nargs && k < t->nfields; k++) {
					const char *s;

					if (t->fields[k].kind != KTOP_FK_STR &&
					    t->fields[k].kind != KTOP_FK_SYM)
						continue;
					s = intern_str(store_strings(full), (uint32_t)ev.args[k]);
					ev.args[k] = intern_id(store_strings(live), s, strlen(s));
				}
				CHECK(store_append(live, &ev) == 0);
			}
			store_publish(live, cpu);
		}
		CHECK(ktop_writer_flush(w, live) == 0);
	}
	CHECK(ktop_writer_finish(w) == 0);
	ktop_writer_free(w);
	close(fds[1]);
	r = ktop_reader_new(fds[0], "pipe", 0, err, sizeof(err));
	CHECK(r);
	while ((ret = ktop_reader_next(r)) > 0)
		blocks++;
	CHECK(ret == 0);
	CHECK(blocks > 3);
	got = ktop_reader_store(r);
	CHECK(snap_compare(full, got, 0, UINT64_MAX) == 0);
	ktop_reader_free(r);
	close(fds[0]);
	store_free(full);
	store_free(live);
}

/* Over the bandwidth bound, a flush sends lost-event records instead of events. */
/* An empty store of @limit with @full's schema and strings, so its events copy as they are. */
static struct store *live_like(struct store *full, size_t limit)
{
	struct store *live = store_new(limit, store_ncpus(full));

	if (!live)
		return NULL;
	for (unsigned int id = KTOP_T_DYNAMIC; id < schema_max_id(store_schema(full)); id++) {
		const struct ktop_schema_type *t = schema_get(store_schema(full), id);

		if (t && schema_add(store_schema(live), t->system, t->name, t->nfields,
				    t->fields) != (int)id)
			goto out_free;
	}
	for (uint32_t id = 1; id < intern_count(store_strings(full)); id++) {
		const char *s = intern_str(store_strings(full), id);

		if (intern_id(store_strings(live), s, strlen(s)) != id)
			goto out_free;
	}
	return live;

out_free:
	store_free(live);
	return NULL;
}

TEST(stream_bandwidth_bound)
{
	struct store *full = snap_fixture_store("host-sched", NULL), *live, *got;
	struct ktop_write_opts o = { .max_bytes_per_sec = 200 };
	struct ktop_writer_stats ws;
	struct ktop_writer *w;
	struct ktop_reader *r;
	struct store_stats fs, gs;
	uint64_t sent = 0;
	char err[512];
	int fds[2], ret;

	CHECK(full);
	store_get_stats(full, &fs);
	live = live_like(full, 0);
	CHECK(live);
	CHECK(pipe(fds) == 0);
	fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
	w = ktop_writer_new(fds[1], "pipe", live, NULL, &o, err, sizeof(err));
	CHECK(w);
	for (int slice = 0; slice < 3; slice++) {
		for (unsigned int cpu = 0; cpu < store_ncpus(full); cpu++) {
			uint64_t f, e;

			store_cpu_range(full, cpu, &f, &e);
			for (uint64_t i = f + (e - f) * slice / 3; i < f + (e - f) * (slice + 1) / 3;
			     i++) {
				struct ktop_event ev;

				CHECK(store_get(full, cpu, i, &ev) == 0);
				CHECK(store_append(live, &ev) == 0);
				if (!slice)
					sent++;
			}
			/* the sender's own losses keep their reasons through the stream */
			if (!slice)
				store_add_lost(live, cpu, 1, 3, cpu ? STORE_LOST_KTOP :
					       STORE_LOST_KERNEL);
			store_publish(live, cpu);
		}
		CHECK(ktop_writer_flush(w, live) == 0);
	}
	CHECK(ktop_writer_finish(w) == 0);
	ktop_writer_stats(w, &ws);
	ktop_writer_free(w);
	close(fds[1]);
	/* the first slice fit the one-second burst; the next two did not */
	CHECK_EQ_U64(ws.events, sent);
	CHECK_EQ_U64(ws.dropped, fs.events - sent);
	r = ktop_reader_new(fds[0], "pipe", 0, err, sizeof(err));
	CHECK(r);
	while ((ret = ktop_reader_next(r)) > 0)
		;
	CHECK(ret == 0);
	got = ktop_reader_store(r);
	store_get_stats(got, &gs);
	CHECK_EQ_U64(gs.events, sent);
	CHECK_EQ_U64(gs.lost, fs.events - sent + 3 * store_ncpus(full));
	/* the bound's records say so, per CPU, and the reasons add up to the total */
	CHECK_EQ_U64(gs.lost_why[STORE_LOST_STREAM], fs.events - sent);
	CHECK_EQ_U64(gs.lost_why[STORE_LOST_KERNEL], 3);
	CHECK_EQ_U64(gs.lost_why[STORE_LOST_KTOP], 3 * (store_ncpus(full) - 1));
	CHECK_EQ_U64(gs.lost_why[STORE_LOST_UNSENT] + gs.lost_why[STORE_LOST_UNKNOWN], 0);
	for (unsigned int cpu = 0; cpu < store_ncpus(full); cpu++) {
		struct store_stats fc, gc;
		uint64_t f, e, fsent;

		store_get_cpu_stats(full, cpu, &fc);
		store_get_cpu_stats(got, cpu, &gc);
		store_cpu_range(full, cpu, &f, &e);
		fsent = (e - f) / 3;
		CHECK_EQ_U64(gc.lost_why[STORE_LOST_STREAM], fc.events - fsent);
		CHECK_EQ_U64(gc.lost, gc.lost_why[STORE_LOST_STREAM] + 3);
	}
	printf("  %llu events sent, %llu left out as lost records (%llu marks)\n",
	       (unsigned long long)gs.events, (unsigned long long)gs.lost,
	       (unsigned long long)gs.lost_marks);
	ktop_reader_free(r);
	close(fds[0]);
	store_free(full);
	store_free(live);
}

/* The reader went away: -EPIPE, and the process (SIGPIPE default) lives on. */
TEST(stream_epipe)
{
	struct store *st = snap_fixture_store("host-sched", NULL);
	struct ktop_writer *w = NULL;
	char err[512] = "";
	int fds[2], ret = 0;

	CHECK(st);
	signal(SIGPIPE, SIG_DFL);
	CHECK(pipe(fds) == 0);
	close(fds[0]);
	w = ktop_writer_new(fds[1], "stdout", st, NULL, NULL, err, sizeof(err));
	if (w) {
		ret = ktop_writer_flush(w, st);
		ktop_writer_free(w);
	} else {
		ret = -errno;
	}
	close(fds[1]);
	CHECK(ret == -EPIPE);
	CHECK(strstr(err, "stdout") || !w);
	store_free(st);
}

/* --- bad input ------------------------------------------------------------ */

static int load_err(const char *path, char *err, size_t len)
{
	struct store *st = NULL;
	struct snapshot_meta m;
	int ret;

	err[0] = 0;
	ret = format_load(path, 0, &st, &m, err, len);
	if (!ret) {
		store_free(st);
		snapshot_meta_free(&m);
	}
	return ret;
}

static uint8_t *good_file(size_t *len)
{
	struct snapshot_meta meta;
	struct store *st = snap_fixture_store("host-sched", &meta);
	const char *path = tmp_path("good.ktop");
	char err[512];
	uint8_t *p = NULL;

	if (st && !ktop_write(path, st, &meta, NULL, err, sizeof(err)))
		p = slurp(path, len);
	snapshot_meta_free(&meta);
	store_free(st);
	return p;
}

TEST(bad_zero_length)
{
	const char *path = tmp_path("empty.ktop");
	char err[512];

	CHECK(spit(path, "", 0) == 0);
	CHECK(load_err(path, err, sizeof(err)) < 0);
	CHECK(strstr(err, path) && strstr(err, "empty"));
	printf("  %s\n", err);
}

TEST(bad_not_a_trace)
{
	const char *path = tmp_path("text.ktop");
	char err[512];

	CHECK(spit(path, "hello, this is not a trace\n", 27) == 0);
	CHECK(load_err(path, err, sizeof(err)) < 0);
	CHECK(strstr(err, path) && strstr(err, "not a trace"));
	printf("  %s\n", err);
	CHECK(load_err("/nonexistent/x.ktop", err, sizeof(err)) == -ENOENT);
	CHECK(load_err("/tmp", err, sizeof(err)) < 0);
}

TEST(bad_truncated_every_length)
{
	const char *path = tmp_path("trunc.ktop");
	size_t len, fails = 0, tried = 0;
	uint8_t *p = good_file(&len);
	char err[512];

	CHECK(p && len > 100);
	/* every prefix near the structure boundaries, then a stride through the rest */
	for (size_t n = 1; n < len; n += n < 200 ? 1 : 97) {
		CHECK(spit(path, p, n) == 0);
		tried++;
		if (load_err(path, err, sizeof(err)) < 0 && strstr(err, path))
			fails++;
		else
			printf("  prefix %zu of %zu loaded: '%s'\n", n, len, err);
	}
	CHECK_EQ_U64(fails, tried);
	CHECK(spit(path, p, len - 1) == 0);
	CHECK(load_err(path, err, sizeof(err)) < 0);
	CHECK(strstr(err, "truncated"));
	printf("  %s\n", err);
	free(p);
}

TEST(bad_bit_flips)
{
	const char *path = tmp_path("flip.ktop");
	size_t len, fails = 0, tried = 0;
	uint8_t *p = good_file(&len);
	char err[512];

	CHECK(p);
	srand(12345);
	for (int i = 0; i < 300; i++) {
		size_t pos = i < 100 ? (size_t)i : (size_t)rand() % len;
		uint8_t bit = 1u << (rand() % 8);

		p[pos] ^= bit;
		CHECK(spit(path, p, len) == 0);
		tried++;
		if (load_err(path, err, sizeof(err)) < 0 && strstr(err, path))
			fails++;
		else
			printf("  flip at %zu loaded\n", pos);
		p[pos] ^= bit;
	}
	/* the CRCs catch every single-bit flip */
	CHECK_EQ_U64(fails, tried);
	free(p);
}

static void fix_header_crc(uint8_t *p)
{
	uint32_t c = (uint32_t)crc32(crc32(0, NULL, 0), p, 28);

	memcpy(p + 28, &c, 4);
}

TEST(bad_wrong_version)
{
	const char *path = tmp_path("ver.ktop");
	size_t len;
	uint8_t *p = good_file(&len);
	char err[512];
	uint32_t v = KTOP_FILE_VERSION + 1;

	CHECK(p);
	memcpy(p + 8, &v, 4);
	fix_header_crc(p);
	CHECK(spit(path, p, len) == 0);
	CHECK(load_err(path, err, sizeof(err)) == -EPROTONOSUPPORT);
	CHECK(strstr(err, path) && strstr(err, "version"));
	printf("  %s\n", err);
	free(p);
}

TEST(bad_huge_sizes)
{
	const char *path = tmp_path("huge.ktop");
	size_t len;
	uint8_t *p = good_file(&len);
	char err[512];

	CHECK(p);
	/* first block header at 32: raw_len and comp_len claim 4 GiB, header CRC fixed */
	for (int field = 8; field <= 12; field += 4) {
		uint8_t q[64];
		uint32_t huge = 0xfffffff0u, c;

		memcpy(q, p, sizeof(q));
		memcpy(q + 32 + field, &huge, 4);
		c = (uint32_t)crc32(crc32(0, NULL, 0), q + 32, 20);
		memcpy(q + 32 + 20, &c, 4);
		memcpy(p, q, sizeof(q));
		CHECK(spit(path, p, len) == 0);
		CHECK(load_err(path, err, sizeof(err)) == -E2BIG);
		CHECK(strstr(err, path) && strstr(err, "limit"));
		printf("  %s\n", err);
	}
	free(p);
}

TEST(bad_trailing_garbage_and_stdin_name)
{
	const char *path = tmp_path("tail.ktop");
	size_t len;
	uint8_t *p = good_file(&len), *q;
	char err[512];

	CHECK(p);
	/* data after END is ignored by the reader (a stream may be cut after END) */
	q = malloc(len + 10);
	CHECK(q);
	memcpy(q, p, len);
	memset(q + len, 'x', 10);
	CHECK(spit(path, q, len + 10) == 0);
	CHECK(load_err(path, err, sizeof(err)) == 0);
	free(q);
	free(p);
}

TEST(detect)
{
	static const uint8_t tdat[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g', '6' };

	CHECK(format_detect("", 0) == NULL);
	CHECK(format_detect("KTOPSNAP\1\0\0\0", 12) == &format_ktop);
	CHECK(format_detect(tdat, sizeof(tdat)) == &format_tracedat);
	CHECK(format_detect("# tracer: nop\n", 14) == NULL);
}

TEST(meta_tep_parses_formats)
{
	struct snapshot_meta meta;
	struct store *st = snap_fixture_store("host-sched", &meta);
	struct tep_handle *tep;

	CHECK(st);
	tep = snapshot_meta_tep(&meta);
	CHECK(tep);
	CHECK(tep_find_event_by_name(tep, "sched", "sched_switch"));
	CHECK(tep_find_event_by_name(tep, "raw_syscalls", "sys_enter"));
	tep_free(tep);
	snapshot_meta_free(&meta);
	store_free(st);
}

/*
 * More lost marks and comms than one block holds: the writer splits them
 * (blocks stay far under KTOP_FILE_MAX_BLOCK) and the reader gets them all.
 */
TEST(many_marks_and_comms_round_trip)
{
	struct store *st = store_new(0, 2), *st2 = NULL;
	const char *path = tmp_path("many.ktop");
	struct store_lost *la, *lb;
	struct snapshot_meta back;
	struct store_stats a, b;
	char err[512];
	size_t na, nb;

	CHECK(st);
	for (uint64_t i = 0; i < 150000; i++)
		store_add_lost(st, i & 1, 1000 + i, i % 5, STORE_LOST_KERNEL);
	for (int32_t pid = 1; pid < 140000; pid++)
		store_set_comm(st, pid, pid & 1 ? "odd" : "even", 0);
	CHECK(ktop_write(path, st, NULL, NULL, err, sizeof(err)) == 0);
	CHECK(format_load(path, 0, &st2, &back, err, sizeof(err)) == 0);
	store_get_stats(st, &a);
	store_get_stats(st2, &b);
	CHECK_EQ_U64(b.lost_marks, a.lost_marks);
	CHECK_EQ_U64(b.lost, a.lost);
	na = store_lost_marks(st, 0, UINT64_MAX, NULL, 0);
	nb = store_lost_marks(st2, 0, UINT64_MAX, NULL, 0);
	CHECK_EQ_U64(na, 150000);
	CHECK_EQ_U64(nb, na);
	la = calloc(na, sizeof(*la));
	lb = calloc(nb, sizeof(*lb));
	CHECK(la && lb);
	store_lost_marks(st, 0, UINT64_MAX, la, na);
	store_lost_marks(st2, 0, UINT64_MAX, lb, nb);
	for (size_t k = 0; k < na; k++)
		CHECK(la[k].ts == lb[k].ts && la[k].count == lb[k].count && la[k].cpu == lb[k].cpu);
	free(la);
	free(lb);
	for (int32_t pid = 1; pid < 140000; pid++)
		CHECK_STR(store_comm(st2, pid), pid & 1 ? "odd" : "even");
	snapshot_meta_free(&back);
	store_free(st2);
	store_free(st);
}

/*
 * Events evicted from the writer's store before it could write them (the
 * sender's memory bound) reach the reader as lost, reason "unsent", as many
 * as the writer counted skipped.
 */
TEST(unsent_events_marked_lost)
{
	struct store *full = snap_fixture_store("host-sched", NULL), *live, *st2 = NULL;
	const char *path = tmp_path("unsent.ktop");
	struct ktop_writer_stats ws;
	struct ktop_writer *w;
	struct store_stats fs, ls, gs;
	struct snapshot_meta back;
	char err[512];
	int fd;

	CHECK(full);
	store_get_stats(full, &fs);
	live = live_like(full, 1u << 20);
	CHECK(live);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	w = ktop_writer_new(fd, path, live, NULL, NULL, err, sizeof(err));
	CHECK(w);
	/* the fixture's events again and again, until the memory limit evicts some */
	for (uint64_t round = 0; round < 500; round++) {
		for (unsigned int cpu = 0; cpu < store_ncpus(full); cpu++) {
			uint64_t f, e;

			store_cpu_range(full, cpu, &f, &e);
			for (uint64_t i = f; i < e; i++) {
				struct ktop_event ev;

				CHECK(store_get(full, cpu, i, &ev) == 0);
				ev.ts += round * (fs.last_ts - fs.first_ts + 1);
				CHECK(store_append(live, &ev) == 0);
			}
			store_publish(live, cpu);
		}
		store_get_stats(live, &ls);
		if (ls.evicted)
			break;
	}
	CHECK(ls.evicted > 0);
	CHECK(ktop_writer_flush(w, live) == 0);
	CHECK(ktop_writer_finish(w) == 0);
	ktop_writer_stats(w, &ws);
	ktop_writer_free(w);
	close(fd);
	CHECK_EQ_U64(ws.skipped, ls.evicted);
	CHECK(format_load(path, 0, &st2, &back, err, sizeof(err)) == 0);
	CHECK(st2);
	store_get_stats(st2, &gs);
	CHECK_EQ_U64(gs.lost_why[STORE_LOST_UNSENT], ws.skipped);
	CHECK_EQ_U64(gs.lost, ws.skipped);
	CHECK_EQ_U64(gs.events + ws.skipped, ls.appended);
	printf("  %llu events written, %llu evicted before: lost, reason unsent\n",
	       (unsigned long long)gs.events, (unsigned long long)ws.skipped);
	snapshot_meta_free(&back);
	store_free(st2);
	store_free(live);
	store_free(full);
}

/*
 * A stream of version 2 (tests/fixtures/stream-v2-lost.ktop, recorded by the
 * ktop of that version under its --stream-rate bound) still opens; its lost
 * records carry no reason and read as "unknown", all of them.
 */
TEST(version_2_stream_reads_with_unknown_reasons)
{
	struct store *st = NULL;
	struct snapshot_meta m;
	struct store_stats s;
	char path[600], err[512];

	snprintf(path, sizeof(path), "%s/stream-v2-lost.ktop", fixture_root());
	CHECK(format_load(path, 0, &st, &m, err, sizeof(err)) == 0);
	if (!st) {
		printf("  %s\n", err);
		return;
	}
	CHECK_EQ_U64(m.version, 2);
	store_get_stats(st, &s);
	CHECK(s.events > 0 && s.lost > s.events);
	CHECK_EQ_U64(s.lost_why[STORE_LOST_UNKNOWN], s.lost);
	for (unsigned int cpu = 0; cpu < store_ncpus(st); cpu++) {
		struct store_stats c;

		store_get_cpu_stats(st, cpu, &c);
		CHECK_EQ_U64(c.lost_why[STORE_LOST_UNKNOWN], c.lost);
	}
	printf("  version 2: %llu events, %llu lost, reason unknown\n",
	       (unsigned long long)s.events, (unsigned long long)s.lost);
	snapshot_meta_free(&m);
	store_free(st);
}

TEST(cleanup)
{
	if (tmpdir[0])
		CHECK(test_rm_rf(tmpdir) == 0);
}

TEST_MAIN()
