// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Whole-file reads (see file.h). One loop serves plain files and gzip
 * streams: it grows the buffer by doubling from a first guess (the file's
 * size when it has one, else a page) and stops one byte past the bound.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "file.h"

#define FILE_FIRST_GUESS	4096

/* A source: read up to @n bytes into @buf. Return: bytes, 0 at the end, or -errno. */
typedef ssize_t (*file_src_read)(void *src, void *buf, size_t n);

static ssize_t fd_src_read(void *src, void *buf, size_t n)
{
	ssize_t r;

	do {
		r = read(*(int *)src, buf, n);
	} while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

static ssize_t gz_src_read(void *src, void *buf, size_t n)
{
	int r, zerr;

	r = gzread(src, buf, n > INT_MAX ? INT_MAX : (unsigned int)n);
	if (r > 0)
		return r;
	/* 0 is also what a stream cut short gives, with Z_BUF_ERROR set */
	gzerror(src, &zerr);
	if (zerr == Z_OK || zerr == Z_STREAM_END)
		return r;
	return zerr == Z_ERRNO && errno ? -errno : zerr == Z_MEM_ERROR ? -ENOMEM : -EIO;
}

static int file_slurp(file_src_read rd, void *src, size_t guess, size_t max, char **out,
		      size_t *lenp)
{
	size_t limit = max == SIZE_MAX ? SIZE_MAX - 1 : max + 1;	/* bytes we may hold */
	size_t cap = guess < limit ? guess : limit, len = 0;
	char *buf, *nb;
	ssize_t r;
	int ret;

	*out = NULL;
	if (lenp)
		*lenp = 0;
	buf = malloc(cap + 1);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (len == cap) {
			if (len > max) {
				ret = -EFBIG;
				goto out_free;
			}
			cap = cap > limit / 2 ? limit : cap * 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				ret = -ENOMEM;
				goto out_free;
			}
			buf = nb;
		}
		r = rd(src, buf + len, cap - len);
		if (r < 0) {
			ret = (int)r;
			goto out_free;
		}
		if (!r)
			break;
		len += (size_t)r;
	}
	if (len > max) {
		ret = -EFBIG;
		goto out_free;
	}
	buf[len] = '\0';
	*out = buf;
	if (lenp)
		*lenp = len;
	return 0;

out_free:
	free(buf);
	return ret;
}

int file_read_fd(int fd, size_t max, char **out, size_t *lenp)
{
	size_t guess = FILE_FIRST_GUESS;
	struct stat sb;

	if (!fstat(fd, &sb) && S_ISREG(sb.st_mode) && sb.st_size > 0) {
		if ((uint64_t)sb.st_size > max) {
			*out = NULL;
			if (lenp)
				*lenp = 0;
			return -EFBIG;
		}
		/* one byte more, so the read that finds the end needs no growth */
		guess = (size_t)sb.st_size + 1;
	}
	return file_slurp(fd_src_read, &fd, guess, max, out, lenp);
}

int file_read(const char *path, size_t max, char **out, size_t *lenp)
{
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*out = NULL;
		if (lenp)
			*lenp = 0;
		return -errno;
	}
	ret = file_read_fd(fd, max, out, lenp);
	close(fd);
	return ret;
}

int file_read_gz(const char *path, size_t max, char **out, size_t *lenp)
{
	gzFile gz;
	int ret;

	*out = NULL;
	if (lenp)
		*lenp = 0;
	errno = 0;
	gz = gzopen(path, "rbe");
	if (!gz)
		return errno ? -errno : -ENOMEM;
	ret = file_slurp(gz_src_read, gz, 1 << 16, max, out, lenp);
	gzclose(gz);
	return ret;
}

int file_read_value(const char *path, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r;
	int fd, ret = 0;

	if (!len)
		return -EINVAL;
	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* to the end: one byte more than fits says the value is too long */
	for (;;) {
		char extra;

		r = fd_src_read(&fd, n < len - 1 ? buf + n : &extra, n < len - 1 ? len - 1 - n : 1);
		if (r < 0) {
			ret = (int)r;
			break;
		}
		if (!r)
			break;
		if (n == len - 1) {
			ret = -EFBIG;
			break;
		}
		n += (size_t)r;
	}
	close(fd);
	if (ret) {
		buf[0] = '\0';
		return ret;
	}
	while (n && isspace((unsigned char)buf[n - 1]))
		n--;
	buf[n] = '\0';
	return 0;
}

char *file_read_text(const char *path)
{
	char *text;
	int ret = file_read(path, FILE_NO_MAX, &text, NULL);

	if (ret)
		errno = -ret;
	return text;
}

int file_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (!w)
			return -EIO;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int file_write_str(const char *path, const char *s, int oflags)
{
	size_t len = strlen(s);
	int fd, ret;

	fd = open(path, O_WRONLY | O_CLOEXEC | oflags);
	if (fd < 0)
		return -errno;
	ret = len ? file_write_all(fd, s, len) : 0;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

int file_text_u64(const char *text, const char *key, uint64_t *out)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p) {
		if (!strncmp(p, key, klen) && p[klen] == ':') {
			*out = strtoull(p + klen + 1, NULL, 10);
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -ENOENT;
}
