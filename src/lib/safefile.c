// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Files ktop writes, opened so that running as root cannot be turned against
 * the machine. See safefile.h for the rules.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "err.h"
#include "file.h"
#include "output.h"
#include "safefile.h"

#define SAFEFILE_MAX_LINKS	40	/* as the kernel's path walk */

static bool trusted_uid(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

/* A temporary name next to @base: "BASE.XXXXXX" with six random letters. */
static void tmp_name(char *buf, size_t len, const char *base)
{
	static const char az[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char r[6];
	size_t n;

	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		uint64_t ns = clock_mono_ns();

		for (size_t i = 0; i < sizeof(r); i++)
			r[i] = (unsigned char)((ns >> (i * 5)) ^ (getpid() >> i));
	}
	n = (size_t)snprintf(buf, len, "%s.", base);
	for (size_t i = 0; i < sizeof(r) && n + 1 < len; i++)
		buf[n++] = az[r[i] % (sizeof(az) - 1)];
	buf[n < len ? n : len - 1] = '\0';
}

/*
 * Create a temporary file next to @base in @dir_fd: O_EXCL and O_NOFOLLOW,
 * so nothing that already has the name (a planted symbolic link) is opened.
 * Return: the fd, with its name in @tmp, or -errno.
 */
static int tmp_create(int dir_fd, const char *base, mode_t mode, char *tmp, size_t tmplen)
{
	for (int i = 0; i < 100; i++) {
		int fd;

		tmp_name(tmp, tmplen, base);
		fd = openat(dir_fd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0 || errno != EEXIST)
			return fd < 0 ? -errno : fd;
	}
	return -EEXIST;
}

/* ---- trusted directories ----------------------------------------------------- */

/*
 * @fd is a directory only root or the effective uid can change? On the way
 * (@last false) a sticky directory writable by all (/tmp) is fine: nobody
 * else can rename what root or we own in it.
 */
static int dir_trusted(int fd, const char *shown, bool last, char *why, size_t whylen)
{
	struct stat st;

	if (fstat(fd, &st))
		return err_set(why, whylen, -errno, "%s: %s", shown, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return err_set(why, whylen, -ENOTDIR, "%s is not a directory", shown);
	if (!trusted_uid(st.st_uid))
		return err_set(why, whylen, -EPERM, "%s belongs to uid %u%s", shown,
			   (unsigned int)st.st_uid, geteuid() ? "" : " and ktop runs as root");
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && (last || !(st.st_mode & S_ISVTX)))
		return err_set(why, whylen, -EPERM, "%s is writable by %s (mode %04o)", shown,
			   st.st_mode & S_IWOTH ? "others" : "its group",
			   (unsigned int)(st.st_mode & 07777));
	return 0;
}

/* Append component @c (length @n) to the path shown in messages. */
static void shown_add(char *shown, size_t len, const char *c, size_t n)
{
	size_t l = strlen(shown);

	if (l && shown[l - 1] != '/' && l + 1 < len)
		shown[l++] = '/';
	snprintf(shown + l, len - l, "%.*s", (int)n, c);
}

/* Open the start of a walk: / or the current directory, checked. */
static int walk_root(bool absolute, char *shown, size_t slen, char *why, size_t whylen)
{
	int fd = open(absolute ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	snprintf(shown, slen, "%s", absolute ? "/" : ".");
	ret = dir_trusted(fd, shown, false, why, whylen);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

int safefile_dir_open(const char *path, mode_t mkdir_mode, char *why, size_t whylen)
{
	char rest[PATH_MAX * 2], target[PATH_MAX], shown[PATH_MAX];
	int fd, links = 0, ret;
	char *p = rest;

	if (snprintf(rest, sizeof(rest), "%s", path) >= (int)sizeof(rest) || !*path)
		return err_set(why, whylen, -ENAMETOOLONG, "%s: bad directory name", path);
	fd = walk_root(rest[0] == '/', shown, sizeof(shown), why, whylen);
	if (fd < 0)
		return fd;
	for (;;) {
		struct stat st;
		size_t n;
		int nfd;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		n = strcspn(p, "/");
		if (n == 1 && p[0] == '.') {
			p += n;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			ret = err_set(why, whylen, -EPERM, "%s: '..' is not followed", path);
			goto out_close;
		}
		if (n >= NAME_MAX + 1) {
			ret = err_set(why, whylen, -ENAMETOOLONG, "%s: name too long", path);
			goto out_close;
		}
		memcpy(target, p, n);
		target[n] = '\0';
		p += n;
		nfd = openat(fd, target, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0 && errno == ENOENT && mkdir_mode &&
		    (!mkdirat(fd, target, mkdir_mode) || errno == EEXIST))
			nfd = openat(fd, target, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0) {
			ret = -errno;
			shown_add(shown, sizeof(shown), target, n);
			err_set(why, whylen, ret, "%s: %s", shown, strerror(-ret));
			goto out_close;
		}
		if (fstat(nfd, &st)) {
			ret = -errno;
			close(nfd);
			goto out_close;
		}
		if (S_ISLNK(st.st_mode)) {
			char *t = target;
			ssize_t tl;

			shown_add(shown, sizeof(shown), target, n);
			if (!trusted_uid(st.st_uid)) {
				close(nfd);
				ret = err_set(why, whylen, -EPERM,
					  "%s is a symbolic link owned by uid %u", shown,
					  (unsigned int)st.st_uid);
				goto out_close;
			}
			tl = readlinkat(nfd, "", target, sizeof(target) - 1);
			close(nfd);
			if (tl <= 0 || ++links > SAFEFILE_MAX_LINKS ||
			    (size_t)tl + strlen(p) + 2 > sizeof(rest)) {
				ret = err_set(why, whylen, -ELOOP, "%s: too many or too long links",
					  shown);
				goto out_close;
			}
			target[tl] = '\0';
			/* the rest of the walk: the link's text, then what followed it */
			memmove(rest + tl + 1, p, strlen(p) + 1);
			memcpy(rest, t, (size_t)tl);
			rest[tl] = '/';
			p = rest;
			if (rest[0] == '/') {
				close(fd);
				fd = walk_root(true, shown, sizeof(shown), why, whylen);
				if (fd < 0)
					return fd;
			} else {
				/* relative to the link's directory, which is where fd is */
				char *slash = strrchr(shown, '/');

				if (slash)
					slash[slash == shown] = '\0';
			}
			continue;
		}
		shown_add(shown, sizeof(shown), target, n);
		ret = dir_trusted(nfd, shown, false, why, whylen);
		close(fd);
		fd = nfd;
		if (ret)
			goto out_close;
	}
	ret = dir_trusted(fd, shown, true, why, whylen);
	if (ret)
		goto out_close;
	return fd;

out_close:
	close(fd);
	return ret;
}

int safefile_replace(const char *path, const void *data, size_t len, mode_t mode,
		     char *why, size_t whylen)
{
	char dir[PATH_MAX], tmp[NAME_MAX + 1];
	const char *base = strrchr(path, '/');
	int dir_fd, fd, ret;

	if (!base || !base[1] || (size_t)(base - path) >= sizeof(dir))
		return err_set(why, whylen, -EINVAL, "not a file name");
	snprintf(dir, sizeof(dir), "%.*s", (int)(base == path ? 1 : base - path), path);
	base++;
	dir_fd = safefile_dir_open(dir, 0700, why, whylen);
	if (dir_fd < 0)
		return dir_fd;
	fd = tmp_create(dir_fd, base, mode, tmp, sizeof(tmp));
	if (fd < 0) {
		ret = err_set(why, whylen, fd, "cannot create a temporary file: %s", strerror(-fd));
		goto out_dir;
	}
	ret = file_write_all(fd, data, len);
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (ret)
		err_set(why, whylen, ret, "write: %s", strerror(-ret));
	else if (renameat(dir_fd, tmp, dir_fd, base))
		ret = err_set(why, whylen, -errno, "rename: %s", strerror(errno));
	if (ret)
		unlinkat(dir_fd, tmp, 0);
out_dir:
	close(dir_fd);
	return ret;
}

int safefile_read(const char *path, size_t max, char **out, size_t *lenp)
{
	int fd, flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW;
	struct stat st;
	int ret = 0;

	*out = NULL;
	if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
		if (!trusted_uid(st.st_uid))
			return -ELOOP;
		flags &= ~O_NOFOLLOW;
	}
	fd = open(path, flags);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		ret = -errno;
	else if (!S_ISREG(st.st_mode))
		ret = -EINVAL;
	else if ((size_t)st.st_size > max)
		ret = -EFBIG;
	else
		ret = file_read_fd(fd, max, out, lenp);
	close(fd);
	return ret;
}

int safefile_xdg_path(const char *xdg_var, const char *home_dir, const char *name, char *buf,
		      size_t len)
{
	const char *xdg = getenv(xdg_var), *home = getenv("HOME");

	if (xdg && *xdg)
		snprintf(buf, len, "%s/ktop/%s", xdg, name);
	else if (home && *home)
		snprintf(buf, len, "%s/%s/ktop/%s", home, home_dir, name);
	else
		return -ENOENT;
	return 0;
}

/* ---- output files ------------------------------------------------------------ */

static int __attribute__((format(printf, 5, 6)))
out_fail(struct safefile_out *o, char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset_at(err, errlen, ret, o->path, fmt, ap);
	va_end(ap);
	return ret;
}

/* An unlinked file to write a seeking format into, for a target that cannot seek. */
static int spool_open(void)
{
	char t[] = "/tmp/ktop-spool.XXXXXX";
	int fd;

	fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	fd = mkostemp(t, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(t);
	return fd;
}

/* Replace @target atomically: a temporary in its directory, renamed at the end. */
static int out_atomic(struct safefile_out *o, const char *target, char *err, size_t errlen)
{
	const char *slash = strrchr(target, '/'), *base = slash ? slash + 1 : target;
	char dir[PATH_MAX], tmp[NAME_MAX + 1];
	int fd;

	if (!*base)
		return out_fail(o, err, errlen, -EISDIR, "not a file name");
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash == target ? 1 : slash - target),
			 target);
	o->dir_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (o->dir_fd < 0)
		return out_fail(o, err, errlen, -errno, "directory %s: %s", dir, strerror(errno));
	o->name = strdup(base);
	if (!o->name)
		return out_fail(o, err, errlen, -ENOMEM, "out of memory");
	fd = tmp_create(o->dir_fd, base, 0600, tmp, sizeof(tmp));
	if (fd < 0)
		return out_fail(o, err, errlen, fd, "cannot create a temporary file: %s",
				strerror(-fd));
	fchmod(fd, 0600);	/* whatever the umask */
	o->fd = fd;
	o->tmp = strdup(tmp);
	if (!o->tmp) {
		unlinkat(o->dir_fd, tmp, 0);
		return out_fail(o, err, errlen, -ENOMEM, "out of memory");
	}
	return 0;
}

/*
 * Write in place to @fd, already open: standard output (@std) or an existing
 * device or FIFO, which must still be one now that it is open.
 */
static int out_in_place(struct safefile_out *o, int fd, bool std, unsigned int flags,
			char *err, size_t errlen)
{
	struct stat st;
	int sp;

	if (fd < 0)
		return out_fail(o, err, errlen, -errno, "%s", strerror(errno));
	o->fd = fd;
	o->in_place = true;
	if (fstat(fd, &st))
		return out_fail(o, err, errlen, -errno, "%s", strerror(errno));
	if (!std && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode)))
		return out_fail(o, err, errlen, -EAGAIN, "changed while it was opened; try again");
	if ((flags & SAFEFILE_OUT_NO_TERMINAL) && isatty(fd))
		return out_fail(o, err, errlen, -EINVAL, "is a terminal: writing there would "
				"garble the screen; give a file name");
	if (!(flags & SAFEFILE_OUT_SEEKABLE))
		return 0;
	sp = spool_open();
	if (sp < 0)
		return out_fail(o, err, errlen, sp, "cannot create a spool file in /tmp: %s",
				strerror(-sp));
	o->dst_fd = fd;
	o->fd = sp;
	return 0;
}

/* What a target is, before anything is opened or created. */
enum out_kind {
	OUT_STDOUT,	/* "-" */
	OUT_ATOMIC,	/* a new or regular file: replace o->path's target atomically */
	OUT_IN_PLACE,	/* a character device, FIFO or socket: write into it */
};

/*
 * Classify @path (o->path) without creating anything; @real receives the file
 * an OUT_ATOMIC replacement goes to, *@follow whether an OUT_IN_PLACE open
 * may follow a (trusted) symbolic link. Return: enum out_kind, or -errno with
 * a message.
 */
static int out_classify(struct safefile_out *o, const char *path, unsigned int flags,
			char *real, size_t reallen, bool *follow, char *err, size_t errlen)
{
	struct stat lst, st;

	*follow = false;
	if (!strcmp(path, "-")) {
		if (flags & SAFEFILE_OUT_NO_TERMINAL)
			return out_fail(o, err, errlen, -EINVAL, "standard output is the terminal "
					"the view draws on; give a file name");
		return OUT_STDOUT;
	}
	if (!*path)
		return out_fail(o, err, errlen, -EINVAL, "empty file name");
	snprintf(real, reallen, "%s", path);
	if (lstat(path, &lst)) {
		if (errno != ENOENT)
			return out_fail(o, err, errlen, -errno, "%s", strerror(errno));
		return OUT_ATOMIC;
	}
	st = lst;
	if (S_ISLNK(lst.st_mode)) {
		if (!trusted_uid(lst.st_uid))
			return out_fail(o, err, errlen, -EPERM, "a symbolic link owned by uid %u: "
					"not followed (remove it, or name the file it points to)",
					(unsigned int)lst.st_uid);
		if (stat(path, &st))
			return out_fail(o, err, errlen, -errno, "a symbolic link to %s: %s",
					errno == ENOENT ? "nothing" : "what cannot be reached",
					strerror(errno));
		if (S_ISREG(st.st_mode)) {
			char buf[PATH_MAX];

			if (!realpath(path, buf))
				return out_fail(o, err, errlen, -errno, "%s", strerror(errno));
			snprintf(real, reallen, "%s", buf);
			return OUT_ATOMIC;
		}
		*follow = true;
	}
	if (S_ISREG(st.st_mode))
		return OUT_ATOMIC;
	if (S_ISDIR(st.st_mode))
		return out_fail(o, err, errlen, -EISDIR, "is a directory");
	if (S_ISBLK(st.st_mode))
		return out_fail(o, err, errlen, -EPERM, "is a block device: ktop writes files, "
				"pipes and character devices, never disks");
	return OUT_IN_PLACE;
}

static void out_init(struct safefile_out *o, const char *path)
{
	o->fd = o->dst_fd = o->dir_fd = -1;
	o->tmp = o->name = NULL;
	o->in_place = false;
	snprintf(o->path, sizeof(o->path), "%s", path);
}

static int out_open(struct safefile_out *o, const char *path, unsigned int flags,
		    char *err, size_t errlen)
{
	char real[PATH_MAX];
	bool follow;
	int kind;

	out_init(o, path);
	kind = out_classify(o, path, flags, real, sizeof(real), &follow, err, errlen);
	switch (kind) {
	case OUT_STDOUT:
		return out_in_place(o, fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3), true, flags,
				    err, errlen);
	case OUT_ATOMIC:
		return out_atomic(o, real, err, errlen);
	case OUT_IN_PLACE:
		/* a character device, FIFO or socket: write into it, never replace it */
		return out_in_place(o, open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC |
					    (follow ? 0 : O_NOFOLLOW)), false, flags,
				    err, errlen);
	}
	return kind;
}

int safefile_out_check(const char *path, unsigned int flags, char *err, size_t errlen)
{
	char real[PATH_MAX], dir[PATH_MAX], tmp[NAME_MAX + 1];
	struct safefile_out o;
	const char *slash;
	int kind, dfd, fd;
	bool follow;

	out_init(&o, path);
	kind = out_classify(&o, path, flags, real, sizeof(real), &follow, err, errlen);
	if (kind != OUT_ATOMIC)
		return kind < 0 ? kind : 0;
	slash = strrchr(real, '/');
	if (slash && !slash[1])
		return out_fail(&o, err, errlen, -EISDIR, "not a file name");
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash == real ? 1 : slash - real), real);
	/*
	 * Make the temporary file the end will make, and remove it: access()
	 * says yes to root where the file system refuses (sysfs, procfs, a
	 * read-only mount), and that was found after the whole run.
	 */
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return out_fail(&o, err, errlen, -errno, "directory %s: %s", dir,
				strerror(errno));
	fd = tmp_create(dfd, slash ? slash + 1 : real, 0600, tmp, sizeof(tmp));
	if (fd < 0) {
		close(dfd);
		return out_fail(&o, err, errlen, fd, "cannot create a file in %s: %s", dir,
				strerror(-fd));
	}
	close(fd);
	unlinkat(dfd, tmp, 0);
	close(dfd);
	return 0;
}

int safefile_out_open(struct safefile_out *o, const char *path, unsigned int flags,
		      char *err, size_t errlen)
{
	int ret = out_open(o, path, flags, err, errlen);

	if (ret)
		safefile_out_close(o, false, NULL, 0);
	return ret;
}

int safefile_out_open_fd(struct safefile_out *o, int fd, const char *name, unsigned int flags,
			 char *err, size_t errlen)
{
	int ret;

	o->fd = o->dst_fd = o->dir_fd = -1;
	o->tmp = o->name = NULL;
	o->in_place = false;
	snprintf(o->path, sizeof(o->path), "%s", name);
	ret = out_in_place(o, fcntl(fd, F_DUPFD_CLOEXEC, 3), true, flags, err, errlen);
	if (ret)
		safefile_out_close(o, false, NULL, 0);
	return ret;
}

/*
 * Copy the spool into the target, which may be a pipe whose reader stopped
 * reading: written through an output (src/lib/output.h), so that a stop request
 * still ends ktop. Return: 0 or -errno.
 */
static int spool_copy(int from, int to)
{
	struct output *out;
	char buf[1 << 16];
	ssize_t r;
	int ret = 0;

	if (lseek(from, 0, SEEK_SET) < 0)
		return -errno;
	out = output_new(to);
	if (!out)
		return -ENOMEM;
	while (!ret) {
		struct iovec iov = { buf, 0 };

		r = read(from, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			ret = r < 0 ? -errno : 0;
			break;
		}
		iov.iov_len = (size_t)r;
		ret = output_write(out, &iov, 1);
	}
	output_free(out);
	return ret;
}

int safefile_out_close(struct safefile_out *o, bool ok, char *err, size_t errlen)
{
	int ret = 0;

	if (o->dst_fd >= 0) {
		if (ok && (ret = spool_copy(o->fd, o->dst_fd)))
			out_fail(o, err, errlen, ret, "write: %s", strerror(-ret));
		if (close(o->dst_fd) && ok && !ret)
			ret = out_fail(o, err, errlen, -errno, "close: %s", strerror(errno));
		close(o->fd);
	} else if (o->tmp) {
		if (ok && fsync(o->fd))
			ret = out_fail(o, err, errlen, -errno, "fsync: %s", strerror(errno));
		if (close(o->fd) && ok && !ret)
			ret = out_fail(o, err, errlen, -errno, "close: %s", strerror(errno));
		if (ok && !ret && renameat(o->dir_fd, o->tmp, o->dir_fd, o->name))
			ret = out_fail(o, err, errlen, -errno, "rename: %s", strerror(errno));
		if (!ok || ret)
			unlinkat(o->dir_fd, o->tmp, 0);
	} else if (o->fd >= 0) {
		if (close(o->fd) && ok)
			ret = out_fail(o, err, errlen, -errno, "close: %s", strerror(errno));
	}
	if (o->dir_fd >= 0)
		close(o->dir_fd);
	free(o->tmp);
	free(o->name);
	o->fd = o->dst_fd = o->dir_fd = -1;
	o->tmp = o->name = NULL;
	return ok ? ret : -EIO;
}
