// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The small utilities: the clocks (src/lib/clock.h), the error formatter
 * (src/lib/err.c), an event format's name (src/lib/evformat.c) on every format file
 * of the fixtures, and the ring-buffer page layout (src/ingest/rb_page.h) against
 * the recording kernels' header_page, growable arrays (src/lib/array.c), and
 * writing a whole buffer (file_write_all), the text helpers (src/lib/strutil.h).
 */
#include <dirent.h>
#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/array.h"
#include "lib/clock.h"
#include "lib/err.h"
#include "lib/evformat.h"
#include "lib/file.h"
#include "lib/strutil.h"
#include "ingest/fixture.h"
#include "ingest/rb_page.h"
#include "test.h"

TEST(clocks)
{
	uint64_t m0 = clock_mono_ns(), c0 = clock_thread_ns(), m1, c1, prev = m0;
	struct timespec ts = { .tv_nsec = 20 * 1000 * 1000 };
	volatile uint64_t spin = 0;

	/* monotonic: never backwards, and a sleep shows on it */
	for (int i = 0; i < 100000; i++) {
		uint64_t now = clock_mono_ns();

		CHECK(now >= prev);
		prev = now;
	}
	nanosleep(&ts, NULL);
	m1 = clock_mono_ns();
	c1 = clock_thread_ns();
	CHECK(m1 - m0 >= 20 * NSEC_PER_MSEC);
	/* the thread's CPU time does not count the sleep */
	CHECK(c1 - c0 < m1 - m0 - 15 * NSEC_PER_MSEC);
	/* and does count work */
	c0 = clock_thread_ns();
	while (clock_thread_ns() - c0 < 5 * NSEC_PER_MSEC)
		spin++;
	CHECK(spin > 0);
}

TEST(err_formats_and_returns)
{
	char err[16];

	errno = EBUSY;
	CHECK(err_set(err, sizeof(err), -ENOENT, "no %s", "such file") == -ENOENT);
	CHECK_STR(err, "no such file");
	CHECK(errno == EBUSY);
	/* cut to the buffer, always terminated */
	CHECK(err_set(err, sizeof(err), -EINVAL, "%s", "a message longer than sixteen") == -EINVAL);
	CHECK_STR(err, "a message longe");
	CHECK(err_set_at(err, sizeof(err), -EIO, "out.json", "write: %s", "EIO") == -EIO);
	CHECK_STR(err, "out.json: write");
	/* a subject longer than the buffer: cut, and no message after it */
	CHECK(err_set_at(err, sizeof(err), -EIO, "/a/very/long/path/name", "x") == -EIO);
	CHECK_STR(err, "/a/very/long/pa");
	CHECK(errno == EBUSY);
	/* no buffer: only the return code */
	CHECK(err_set(NULL, 0, -EPERM, "ignored %d", 1) == -EPERM);
	CHECK(err_set_at(NULL, 0, 7, "x", "y") == 7);
	err[0] = 'k';
	CHECK(err_set(err, 0, 0, "nothing") == 0 && err[0] == 'k');
}

/* Every events/SYS/EVENT/format of every fixture names EVENT. */
TEST(evformat_name_of_every_fixture_format)
{
	char cmd[700], path[1024], name[128];
	unsigned int n = 0;
	FILE *find;

	snprintf(cmd, sizeof(cmd), "find '%s' -path '*/events/*/*/format'", fixture_root());
	find = popen(cmd, "r");
	CHECK(find);
	while (fgets(path, sizeof(path), find)) {
		char *text, *dir, *event;

		path[strcspn(path, "\n")] = '\0';
		CHECK(file_read(path, FILE_NO_MAX, &text, NULL) == 0);
		dir = strdup(path);
		*strrchr(dir, '/') = '\0';
		event = strrchr(dir, '/') + 1;
		CHECK(evformat_name(text, name, sizeof(name)));
		if (strcmp(name, event))
			printf("  %s: name %s\n", path, name);
		CHECK_STR(name, event);
		/* one byte too small: refused, not cut */
		CHECK(!evformat_name(text, name, strlen(event)) && !name[0]);
		free(dir);
		free(text);
		n++;
	}
	pclose(find);
	printf("  %u format files\n", n);
	CHECK(n > 100);
}

TEST(evformat_name_only_at_line_start)
{
	char name[32];

	CHECK(!evformat_name("ID: 5\nprint fmt: \"name: %s\"\n", name, sizeof(name)));
	CHECK(evformat_name("ID: 5\nname: late\n", name, sizeof(name)));
	CHECK_STR(name, "late");
	CHECK(!evformat_name("name: \nID: 1\n", name, sizeof(name)));
	CHECK(!evformat_name("", name, sizeof(name)));
}

/* "field: char data; offset:16;" in the header_page of every recording kernel. */
TEST(rb_page_header_as_the_kernels_say)
{
	struct dirent *de;
	DIR *d = opendir(fixture_root());
	unsigned int n = 0;

	CHECK(d);
	while ((de = readdir(d))) {
		char path[600], *text, *p;
		unsigned int data_off, commit_size;

		snprintf(path, sizeof(path), "%.200s/%.200s/header_page", fixture_root(),
			 de->d_name);
		if (file_read(path, FILE_NO_MAX, &text, NULL))
			continue;
		p = strstr(text, "field: local_t commit;");
		CHECK(p && sscanf(p, "field: local_t commit;\toffset:8;\tsize:%u;",
				  &commit_size) == 1);
		p = strstr(text, "field: char data;");
		CHECK(p && sscanf(p, "field: char data;\toffset:%u;", &data_off) == 1);
		CHECK_EQ_U64(data_off, RB_PAGE_HDR(commit_size));
		free(text);
		n++;
	}
	closedir(d);
	CHECK(n > 5);
	/* the header's bit fields fill 32 bits */
	CHECK(RB_TYPE_BITS + RB_TS_SHIFT == 32 && RB_TYPE_TIME_STAMP == RB_TYPE_MASK);
	CHECK((RB_COMMIT_MASK & RB_MISSED_EVENTS) == 0 && (RB_COMMIT_MASK & RB_MISSED_STORED) == 0);
}

/* Growing keeps the elements, doubles from ARRAY_FIRST_CAP, and refuses sizes that overflow. */
TEST(array_grow_keeps_and_doubles)
{
	size_t cap = 0, n;
	uint32_t *v = NULL;

	for (n = 0; n < 1000; n++) {
		CHECK(array_grow((void **)&v, &cap, n + 1, sizeof(*v)) == 0);
		CHECK(cap >= n + 1);
		v[n] = (uint32_t)n * 7;
	}
	CHECK_EQ_U64(cap, 1024);
	for (n = 0; n < 1000; n++)
		if (v[n] != n * 7)
			break;
	CHECK_EQ_U64(n, 1000);
	CHECK(array_grow((void **)&v, &cap, 10, sizeof(*v)) == 0);
	CHECK_EQ_U64(cap, 1024);
	CHECK(array_grow((void **)&v, &cap, SIZE_MAX / 2, sizeof(*v)) == -ENOMEM);
	CHECK_EQ_U64(cap, 1024);
	CHECK(v[999] == 999 * 7);
	free(v);
}

/* A queue consumed from the front moves back rather than grows while half of it is free. */
TEST(array_fifo_moves_before_growing)
{
	size_t lo = 0, hi = 0, cap = 0;
	int *v = NULL;

	for (int i = 0; i < ARRAY_FIRST_CAP; i++) {
		CHECK(array_fifo_room((void **)&v, &lo, &hi, &cap, sizeof(*v)) == 0);
		v[hi++] = i;
	}
	CHECK_EQ_U64(cap, ARRAY_FIRST_CAP);
	lo = ARRAY_FIRST_CAP / 2 + 1;		/* consumed past the half */
	CHECK(array_fifo_room((void **)&v, &lo, &hi, &cap, sizeof(*v)) == 0);
	CHECK_EQ_U64(cap, ARRAY_FIRST_CAP);
	CHECK_EQ_U64(lo, 0);
	CHECK_EQ_U64(hi, ARRAY_FIRST_CAP / 2 - 1);
	CHECK(v[0] == ARRAY_FIRST_CAP / 2 + 1 && v[hi - 1] == ARRAY_FIRST_CAP - 1);
	hi = cap;				/* full again, nothing consumed: grows */
	CHECK(array_fifo_room((void **)&v, &lo, &hi, &cap, sizeof(*v)) == 0);
	CHECK_EQ_U64(cap, 2 * ARRAY_FIRST_CAP);
	CHECK(v[0] == ARRAY_FIRST_CAP / 2 + 1);
	free(v);
}

/* Every byte reaches the other end, through a pipe's short writes. */
TEST(file_write_all_through_a_pipe)
{
	static char big[256 * 1024], back[sizeof(big)];
	size_t got = 0;
	int p[2], status;
	pid_t pid;

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 31);
	CHECK(pipe(p) == 0);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		_exit(file_write_all(p[1], big, sizeof(big)) ? 1 : 0);
	}
	close(p[1]);
	while (got < sizeof(back)) {
		ssize_t r = read(p[0], back + got, sizeof(back) - got);

		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(p[0]);
	CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !WEXITSTATUS(status));
	CHECK_EQ_U64(got, sizeof(big));
	CHECK(!memcmp(big, back, sizeof(big)));
	CHECK(file_write_all(-1, big, 1) == -EBADF);
}

TEST(strutil_fmt_and_hex)
{
	char buf[8];
	const char *hex = "0123456789abcdefABCDEF";

	CHECK(str_fmt(buf, sizeof(buf), "%s-%d", "abcdef", 42) == 9);
	CHECK(!strcmp(buf, "abcdef-"));
	for (int i = 0; hex[i]; i++)
		CHECK(hex_digit(hex[i]) == (i < 16 ? i : i - 6));
	CHECK(hex_digit('g') == -1 && hex_digit('G') == -1 && hex_digit('/') == -1);
	CHECK(hex_digit(':') == -1 && hex_digit('@') == -1 && hex_digit('`') == -1);
	CHECK(hex_digit(0) == -1 && hex_digit((char)0xe9) == -1 && hex_digit(' ') == -1);
	CHECK(!strcmp(str_dur(buf, sizeof(buf), 999), "999ns"));
	CHECK(!strcmp(str_dur(buf, sizeof(buf), 1000), "1.0us"));
	CHECK(!strcmp(str_dur(buf, sizeof(buf), 1230000), "1.23ms"));
	CHECK(!strcmp(str_dur(buf, sizeof(buf), 2500000000ull), "2.50s"));
}

TEST_MAIN()
