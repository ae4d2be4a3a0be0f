// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The small utilities: the clocks (src/clock.h), the error formatter
 * (src/err.c), an event format's name (src/evformat.c) on every format file
 * of the fixtures, and the ring-buffer page layout (src/rb_page.h) against
 * the recording kernels' header_page.
 */
#include <dirent.h>
#include <errno.h>
#include <unistd.h>

#include "clock.h"
#include "err.h"
#include "evformat.h"
#include "file.h"
#include "fixture.h"
#include "rb_page.h"
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

TEST_MAIN()
