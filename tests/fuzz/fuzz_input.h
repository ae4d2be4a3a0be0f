/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fuzzers' input as a file: a memfd holding @data, named
 * /proc/self/fd/N in @path (the readers take paths, as `ktop -i FILE` does).
 */
#ifndef KTOP_FUZZ_INPUT_H
#define KTOP_FUZZ_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

/* Return: the memfd (close it), or -1 (then skip the input). */
static inline int fuzz_input(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("fuzz", 0);

	if (fd < 0)
		return -1;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
