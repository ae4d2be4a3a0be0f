/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by test_tracestate.c and test_tracestate_global.c: a directory laid
 * out like tracefs (no root needed), below fake_root, which each test file
 * names and creates itself.
 */
#ifndef KTOP_FAKE_TRACEFS_H
#define KTOP_FAKE_TRACEFS_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"

static char fake_root[256];

/* Write @content to @rel below fake_root, making its parent directories. */
static inline void fake_put(const char *rel, const char *content)
{
	char path[512], dir[512], *slash;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", fake_root, rel);
	/* mkdir -p of the parent */
	snprintf(dir, sizeof(dir), "%s", path);
	for (slash = dir + strlen(fake_root) + 1; (slash = strchr(slash, '/')); slash++) {
		*slash = '\0';
		mkdir(dir, 0755);
		*slash = '/';
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		if (write(fd, content, strlen(content)) < 0)
			perror(path);
		close(fd);
	}
}

/* What @rel below fake_root holds, as written (NULL: absent), in a static buffer. */
static inline char *fake_get(const char *rel)
{
	static char buf[4096];
	char path[512];
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", fake_root, rel);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[r < 0 ? 0 : r] = '\0';
	return buf;
}

/* rm -rf fake_root. Return: system()'s status, 0 on success. */
static inline int fake_remove(void)
{
	return test_rm_rf(fake_root);
}

#endif
