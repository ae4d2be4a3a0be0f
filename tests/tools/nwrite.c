// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nwrite: a known workload for the live tests.
 *
 *   nwrite N [FIFO]    (if FIFO is given, first wait until a line can be read
 *                       from it) then make exactly N write(2) calls of one
 *                       byte to /dev/null, and exit 0.
 *
 * Besides the N writes it makes only the few system calls of process start-up
 * and exit, so a tracer must see at least N sys_enter events for its pid, and
 * not many more.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n, i;
	int fd;

	if (argc < 2 || (n = strtol(argv[1], NULL, 10)) < 0) {
		fprintf(stderr, "usage: nwrite N [FIFO]\n");
		return 2;
	}
	if (argc > 2) {
		char c;
		int f = open(argv[2], O_RDONLY);

		if (f < 0 || read(f, &c, 1) < 0) {
			perror(argv[2]);
			return 2;
		}
		close(f);
	}
	fd = open("/dev/null", O_WRONLY);
	if (fd < 0) {
		perror("/dev/null");
		return 2;
	}
	for (i = 0; i < n; i++)
		if (write(fd, "x", 1) != 1) {
			perror("write");
			return 1;
		}
	return 0;
}
