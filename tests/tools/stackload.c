// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stackload - a workload with known stacks, for the stack tests and benchmarks.
 *
 *   stackload [-w FILE] [-l MS] sleep N US   N nanosleep(2) calls of US microseconds
 *   stackload [-w FILE] [-l MS] read N       N read(2) calls of one byte from /dev/zero
 *
 * -w FILE: print the pid, then wait until FILE exists before starting (so a
 * test can point a tracer at the pid first). -l MS: stay MS milliseconds
 * after the calls before exiting (a tracer reads a process's memory map
 * while the process lives: a slower reader, e.g. under ASan, still finds it).
 *
 * The system calls are made with an inline `syscall` instruction from
 * stk_leaf(), called through stk_middle() and stk_outer() from main(), all
 * built with frame pointers (the Makefile builds this file with
 * -fno-omit-frame-pointer): a user stack of this program names
 * stk_leaf <- stk_middle <- stk_outer <- main, whatever the C library was
 * built with. The kernel stack of a sleep goes through do_nanosleep (or
 * hrtimer_nanosleep), of a read through vfs_read and read_zero (or
 * read_iter_zero).
 *
 * Prints "stackload pid PID" first, so a test can look for its events.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

static long raw_syscall3(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile ("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c)
			  : "rcx", "r11", "memory");
	return ret;
}

/* A call, so that stk_leaf() is no leaf: GCC 12 sets up no frame in a leaf function. */
static __attribute__((noipa)) void stk_frame(void)
{
}

static __attribute__((noipa)) long stk_leaf(int what, long a, long b)
{
	stk_frame();
	if (what == 0)
		return raw_syscall3(SYS_nanosleep, a, 0, 0);
	return raw_syscall3(SYS_read, a, b, 1);
}

static __attribute__((noipa)) long stk_middle(int what, long a, long b)
{
	long r = stk_leaf(what, a, b);

	__asm__ volatile ("" ::: "memory");	/* no tail call */
	return r;
}

static __attribute__((noipa)) long stk_outer(int what, long a, long b)
{
	long r = stk_middle(what, a, b);

	__asm__ volatile ("" ::: "memory");
	return r;
}

int main(int argc, char **argv)
{
	const char *wait_file = NULL;
	long n, linger_ms = 0;
	char buf[8];

	while (argc > 2 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "-w"))
			wait_file = argv[2];
		else if (!strcmp(argv[1], "-l"))
			linger_ms = atol(argv[2]);
		else
			break;
		argc -= 2;
		argv += 2;
	}
	n = argc > 2 ? atol(argv[2]) : 0;
	if (argc < 3 || (strcmp(argv[1], "sleep") && strcmp(argv[1], "read"))) {
		fprintf(stderr, "usage: stackload [-w FILE] [-l MS] sleep N US | read N\n");
		return 2;
	}
	printf("stackload pid %d\n", getpid());
	fflush(stdout);
	while (wait_file && access(wait_file, F_OK))
		usleep(10000);
	if (!strcmp(argv[1], "sleep")) {
		long us = argc > 3 ? atol(argv[3]) : 1000;
		struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

		for (long i = 0; i < n; i++)
			stk_outer(0, (long)&ts, 0);
	} else {
		int fd = open("/dev/zero", O_RDONLY);

		if (fd < 0)
			return 1;
		for (long i = 0; i < n; i++)
			stk_outer(1, fd, (long)buf);
		close(fd);
	}
	if (linger_ms > 0)
		usleep((useconds_t)linger_ms * 1000);
	return 0;
}
