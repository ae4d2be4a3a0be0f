// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/lib/file.c: whole-file reads, checked against what stdio, gzip(1) and the
 * kernel say about the same files: a recorded fixture, /proc files that
 * report size 0 (as tracefs files do) and outgrow the first guess, a pipe fed
 * in pieces, gzip'd fixture pages, and the bounds.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/file.h"
#include "ingest/fixture.h"
#include "test.h"

/* @path read with stdio (or the output of @cmd when @cmd). Return: the bytes, or NULL. */
static char *stdio_read(const char *path, const char *cmd, size_t *lenp)
{
	FILE *fp = cmd ? popen(cmd, "r") : fopen(path, "r");
	size_t len = 0, cap = 1 << 16, n;
	char *buf = malloc(cap);

	if (!fp || !buf) {
		free(buf);
		if (fp)
			cmd ? pclose(fp) : fclose(fp);
		return NULL;
	}
	while ((n = fread(buf + len, 1, cap - len, fp)) > 0) {
		len += n;
		if (len == cap)
			buf = realloc(buf, cap *= 2);
	}
	if (cmd)
		pclose(fp);
	else
		fclose(fp);
	*lenp = len;
	return buf;
}

static char *tmp_file(const void *data, size_t len)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/ktop-test-file-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	if (write(fd, data, len) != (ssize_t)len) {
		close(fd);
		return NULL;
	}
	close(fd);
	return path;
}

TEST(fixture_file_as_stdio_reads_it)
{
	char path[600], *got, *want;
	size_t glen = 99, wlen = 0;

	snprintf(path, sizeof(path), "%s/host-irq/saved_cmdlines", fixture_root());
	want = stdio_read(path, NULL, &wlen);
	CHECK(want && wlen > 0);
	CHECK(file_read(path, FILE_NO_MAX, &got, &glen) == 0);
	CHECK_EQ_U64(glen, wlen);
	CHECK(!memcmp(got, want, wlen) && got[glen] == '\0');
	free(got);
	/* the bound is inclusive: exactly the size is fine, one byte less is not */
	CHECK(file_read(path, wlen, &got, NULL) == 0);
	free(got);
	CHECK(file_read(path, wlen - 1, &got, &glen) == -EFBIG && !got && glen == 0);
	free(want);
}

/* /proc/kallsyms says size 0 and holds megabytes: the tracefs case, and growth. */
TEST(size_zero_file_read_to_its_end)
{
	struct stat sb;
	size_t glen = 0, wlen = 0, same;
	char *got, *want;

	CHECK(!stat("/proc/kallsyms", &sb) && sb.st_size == 0);
	want = stdio_read("/proc/kallsyms", NULL, &wlen);
	CHECK(want && wlen > 65536);
	CHECK(file_read("/proc/kallsyms", FILE_NO_MAX, &got, &glen) == 0);
	CHECK(got[glen] == '\0' && glen > 65536);
	/*
	 * The kernel image's symbols come first and do not change; modules and
	 * BPF programs (other ktop runs load some) come and go after them.
	 */
	same = strstr(want, "\t[") ? (size_t)(strstr(want, "\t[") - want) : wlen;
	same = same < glen ? same : glen;
	printf("  %zu bytes, the first %zu of the kernel image\n", glen, same);
	CHECK(same > 65536 && !memcmp(got, want, same));
	free(got);
	free(want);
	/* no size to refuse early: the bound stops the read itself */
	CHECK(file_read("/proc/kallsyms", 10000, &got, &glen) == -EFBIG && !got);
}

struct feeder {
	int		fd;
	size_t		len;
	const char	*data;
};

static void *feed(void *arg)
{
	struct feeder *f = arg;

	/* in odd pieces, with pauses: the reader sees short reads */
	for (size_t off = 0; off < f->len;) {
		size_t n = f->len - off < 7777 ? f->len - off : 7777;
		ssize_t w = write(f->fd, f->data + off, n);

		if (w <= 0)
			break;
		off += (size_t)w;
		if (off % 5 == 0)
			usleep(100);
	}
	close(f->fd);
	return NULL;
}

TEST(pipe_read_until_eof_fd_left_open)
{
	struct feeder f = { .len = 300000 };
	char *data = malloc(f.len), *got;
	bool open_after;
	int p[2], ret;
	pthread_t th;
	size_t len = 0;

	CHECK(data && !pipe(p));
	for (size_t i = 0; i < f.len; i++)
		data[i] = (char)(i * 131 + (i >> 9));
	f.fd = p[1];
	f.data = data;
	signal(SIGPIPE, SIG_IGN);
	CHECK(!pthread_create(&th, NULL, feed, &f));
	ret = file_read_fd(p[0], FILE_NO_MAX, &got, &len);
	/* still ours to close; closing it ends a writer the reader left early */
	open_after = fcntl(p[0], F_GETFD) >= 0;
	close(p[0]);
	pthread_join(th, NULL);
	CHECK(ret == 0 && open_after);
	CHECK_EQ_U64(len, f.len);
	CHECK(!memcmp(got, data, len));
	free(got);
	free(data);
}

TEST(fd_offset_at_the_end)
{
	static const char text[] = "header_page\nsecond line\n";
	char *path = tmp_file(text, sizeof(text) - 1), *got;
	size_t len;
	int fd;

	CHECK(path);
	fd = open(path, O_RDONLY);
	unlink(path);
	CHECK(fd >= 0);
	CHECK(lseek(fd, 12, SEEK_SET) == 12);
	CHECK(file_read_fd(fd, FILE_NO_MAX, &got, &len) == 0);
	CHECK_STR(got, "second line\n");
	CHECK(lseek(fd, 0, SEEK_CUR) == (off_t)sizeof(text) - 1);
	close(fd);
	free(got);
}

TEST(errors_are_negative_errno)
{
	char *got = (char *)1;

	CHECK(file_read("/nonexistent/ktop", FILE_NO_MAX, &got, NULL) == -ENOENT && !got);
	got = (char *)1;
	CHECK(file_read("/", FILE_NO_MAX, &got, NULL) == -EISDIR && !got);
}

/* The gzip'd pages of a fixture, against gzip -dc. */
TEST(gz_as_gzip_decompresses_it)
{
	char path[600], cmd[700], *got, *want;
	size_t glen = 0, wlen = 0;

	snprintf(path, sizeof(path), "%s/host-sched/cpu0.raw.gz", fixture_root());
	snprintf(cmd, sizeof(cmd), "gzip -dc '%s'", path);
	want = stdio_read(NULL, cmd, &wlen);
	CHECK(want && wlen > 4096);
	CHECK(file_read_gz(path, FILE_NO_MAX, &got, &glen) == 0);
	CHECK_EQ_U64(glen, wlen);
	CHECK(!memcmp(got, want, wlen));
	free(got);
	/* the bound is on what it inflates to, not on the file */
	CHECK(file_read_gz(path, wlen - 1, &got, NULL) == -EFBIG && !got);
	CHECK(file_read_gz(path, wlen, &got, NULL) == 0);
	free(got);
	free(want);
}

TEST(gz_reads_plain_files_and_refuses_corrupt_ones)
{
	char path[600], *plain, *got, *gz, *tmp;
	size_t plen, glen, gzlen;

	snprintf(path, sizeof(path), "%s/rt-fgraph/kallsyms", fixture_root());
	CHECK(file_read(path, FILE_NO_MAX, &plain, &plen) == 0);
	CHECK(file_read_gz(path, FILE_NO_MAX, &got, &glen) == 0);
	CHECK(glen == plen && !memcmp(got, plain, plen));
	free(got);
	free(plain);
	/* a gzip stream cut in half */
	snprintf(path, sizeof(path), "%s/host-sched/cpu1.raw.gz", fixture_root());
	CHECK(file_read(path, FILE_NO_MAX, &gz, &gzlen) == 0 && gzlen > 100);
	tmp = tmp_file(gz, gzlen / 2);
	CHECK(tmp);
	got = (char *)1;
	CHECK(file_read_gz(tmp, FILE_NO_MAX, &got, NULL) == -EIO && !got);
	unlink(tmp);
	free(gz);
}

/* per_cpu/cpuN/stats as the kernel wrote it (host, recorded with its fixture) */
TEST(text_u64_reads_a_stats_line)
{
	char *text = file_read_text("tests/fixtures/host-overrun/stats1");
	uint64_t v = 1;

	CHECK(text);
	if (!text)
		return;
	CHECK(file_text_u64(text, "entries", &v) == 0);
	CHECK(v == 197);
	/* "overrun", not the "commit overrun" line before it */
	CHECK(file_text_u64(text, "overrun", &v) == 0);
	CHECK(v == 80143);
	CHECK(file_text_u64(text, "commit overrun", &v) == 0);
	CHECK(v == 0);
	CHECK(file_text_u64(text, "dropped events", &v) == 0 && v == 0);
	CHECK(file_text_u64(text, "bytes", &v) == 0 && v > 0);
	CHECK(file_text_u64(text, "events", &v) == -ENOENT);
	CHECK(file_text_u64(text, "overrun:", &v) == -ENOENT);
	free(text);
}

TEST(value_trimmed_and_bounded)
{
	char buf[8], *path, comm[17] = "";

	path = tmp_file("nop \n\n", 6);
	CHECK(path);
	CHECK(file_read_value(path, buf, sizeof(buf)) == 0);
	CHECK_STR(buf, "nop");
	unlink(path);
	/* 7 bytes fit in 8; 8 do not, whatever white space they end with */
	path = tmp_file("1234567", 7);
	CHECK(file_read_value(path, buf, sizeof(buf)) == 0);
	CHECK_STR(buf, "1234567");
	unlink(path);
	path = tmp_file("1234567\n", 8);
	CHECK(file_read_value(path, buf, sizeof(buf)) == -EFBIG);
	CHECK_STR(buf, "");
	unlink(path);
	/* a /proc value: size 0, as the kernel names us */
	CHECK(!prctl(PR_SET_NAME, "ktop-test-fil", 0, 0, 0));
	CHECK(file_read_value("/proc/self/comm", comm, sizeof(comm)) == 0);
	CHECK_STR(comm, "ktop-test-fil");
	CHECK(file_read_value("/nonexistent", buf, sizeof(buf)) == -ENOENT);
}

TEST_MAIN()
