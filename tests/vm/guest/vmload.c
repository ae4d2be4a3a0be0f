// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmload: known workloads for the guest scenarios, built statically by
 * tests/vm/run.sh.  Its comm is "vmload" and it runs in the pid the shell's
 * $! reports, so a scenario knows which pid and which kernel functions to
 * expect.
 *
 *   vmload read PATH COUNT [BS]   COUNT read(2) calls of BS bytes (default 1)
 *                                 on PATH: vfs_read -> read_zero for /dev/zero.
 *   vmload spin MS                burn the CPU for MS milliseconds
 *   vmload rtspin CPU MS          the same on CPU at SCHED_FIFO 99, above the
 *                                 timerlat threads (FIFO 95): their latency
 *                                 on CPU is then about MS, a spike made to
 *                                 order (the flight recorder's scenario)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int load_read(const char *path, long count, size_t bs)
{
	char *buf = malloc(bs);
	int fd = open(path, O_RDONLY);
	long i;

	if (!buf || fd < 0) {
		fprintf(stderr, "vmload: %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (i = 0; i < count; i++) {
		ssize_t n = read(fd, buf, bs);

		if (n < 0) {
			fprintf(stderr, "vmload: read: %s\n", strerror(errno));
			return 1;
		}
		if (n == 0)
			lseek(fd, 0, SEEK_SET);
	}
	close(fd);
	free(buf);
	return 0;
}

static int load_spin(long ms)
{
	struct timespec a, b;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		x++;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
	return 0;
}

static int load_rtspin(int cpu, long ms)
{
	struct sched_param sp = { .sched_priority = 99 };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) || sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "vmload: rtspin: %s\n", strerror(errno));
		return 1;
	}
	return load_spin(ms);
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "read"))
		return load_read(argv[2], atol(argv[3]), argc > 4 ? (size_t)atol(argv[4]) : 1);
	if (argc == 3 && !strcmp(argv[1], "spin"))
		return load_spin(atol(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "rtspin"))
		return load_rtspin(atoi(argv[2]), atol(argv[3]));
	fprintf(stderr, "usage: vmload read PATH COUNT [BS] | vmload spin MS | "
		"vmload rtspin CPU MS\n");
	return 2;
}
