// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Output that a signal can always end (see output.h for why and how).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "output.h"

enum output_how {
	OUT_PLAIN,	/* a file: write() does not wait for a reader */
	OUT_NONBLOCK,	/* a non-blocking description: write, poll on EAGAIN */
	OUT_SEND,	/* a socket: send(MSG_DONTWAIT) */
	OUT_POLL,	/* blocking and not reopenable: poll, then PIPE_BUF at most */
};

struct output {
	int		fd;	/* the caller's */
	int		wfd;	/* written to: fd, or our own reopened description */
	enum output_how	how;
	uint64_t	last_ms;	/* when the reader last took something */
};

static atomic_int output_stop_fd = -1;
/* CLOCK_MONOTONIC ms when a stop request was first seen; 0: none yet */
static _Atomic uint64_t output_stop_ms;

void output_set_stop_fd(int fd)
{
	atomic_store(&output_stop_fd, fd);
}

static uint64_t output_now_ms(void)
{
	return clock_mono_ns() / NSEC_PER_MSEC;
}

/*
 * A private non-blocking description of the pipe or terminal behind @fd, so
 * that O_NONBLOCK changes nothing for the shell or anyone else sharing @fd's.
 * Return: the new fd, or -1.
 */
static int output_reopen(int fd, int flags)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (flags & O_APPEND));
}

struct output *output_new(int fd)
{
	struct output *o = calloc(1, sizeof(*o));
	struct stat sb;
	int flags;

	if (!o)
		return NULL;
	o->fd = o->wfd = fd;
	o->how = OUT_POLL;
	o->last_ms = output_now_ms();
	flags = fcntl(fd, F_GETFL);
	if (fstat(fd, &sb) || flags < 0)
		return o;	/* the first write says what is wrong */
	if (S_ISREG(sb.st_mode) || S_ISBLK(sb.st_mode)) {
		o->how = OUT_PLAIN;
	} else if (flags & O_NONBLOCK) {
		o->how = OUT_NONBLOCK;
	} else if (S_ISSOCK(sb.st_mode)) {
		o->how = OUT_SEND;
	} else if (S_ISFIFO(sb.st_mode) || (S_ISCHR(sb.st_mode) && isatty(fd))) {
		/* ENXIO: a FIFO nobody reads; the first write is EPIPE then */
		o->wfd = output_reopen(fd, flags);
		if (o->wfd >= 0)
			o->how = OUT_NONBLOCK;
		else
			o->wfd = fd;
	}
	return o;
}

void output_free(struct output *o)
{
	if (!o)
		return;
	if (o->wfd != o->fd)
		close(o->wfd);
	free(o);
}

/*
 * Until @o->wfd has room, or ktop is stopping and the reader has taken
 * nothing for OUTPUT_STOP_GRACE_MS or the stop is OUTPUT_STOP_MAX_MS old.
 * Return: 0 (write now), -EINTR, or a negative errno.
 */
static int output_wait(struct output *o)
{
	int sfd = atomic_load(&output_stop_fd);

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = o->wfd, .events = POLLOUT },
			{ .fd = sfd, .events = POLLIN },
		};
		uint64_t stop = atomic_load(&output_stop_ms), now = output_now_ms(), dl = 0;
		int timeout = -1, n;

		if (stop) {
			dl = (stop > o->last_ms ? stop : o->last_ms) + OUTPUT_STOP_GRACE_MS;
			if (dl > stop + OUTPUT_STOP_MAX_MS)
				dl = stop + OUTPUT_STOP_MAX_MS;
			timeout = now >= dl ? 0 : (int)(dl - now);
		}
		n = poll(pfd, !stop && sfd >= 0 ? 2 : 1, timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (pfd[0].revents & POLLNVAL)
			return -EBADF;
		if (pfd[0].revents)
			return 0;	/* room, or an error the write will report */
		if (stop && output_now_ms() >= dl)
			return -EINTR;
		if (!stop && (pfd[1].revents & POLLIN)) {
			uint64_t zero = 0;

			atomic_compare_exchange_strong(&output_stop_ms, &zero, output_now_ms());
		}
	}
}

/* One attempt. Return: bytes written, or -1 with errno. */
static ssize_t output_try(struct output *o, struct iovec *iov, int cnt)
{
	if (o->how == OUT_SEND) {
		struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)cnt };

		return sendmsg(o->wfd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	}
	if (o->how == OUT_POLL) {
		/* with room, a pipe takes PIPE_BUF bytes without blocking */
		size_t len = iov->iov_len < PIPE_BUF ? iov->iov_len : PIPE_BUF;

		return write(o->wfd, iov->iov_base, len);
	}
	return writev(o->wfd, iov, cnt > IOV_MAX ? IOV_MAX : cnt);
}

int output_write(struct output *o, struct iovec *iov, int cnt)
{
	sigset_t pipe_set, old;
	struct timespec zero = { 0, 0 };
	int ret = 0;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	while (cnt > 0) {
		ssize_t n;

		if (!iov->iov_len) {
			iov++;
			cnt--;
			continue;
		}
		if (o->how == OUT_POLL) {
			ret = output_wait(o);
			if (ret)
				break;
		}
		n = output_try(o, iov, cnt);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				ret = output_wait(o);
				if (ret)
					break;
				continue;
			}
			ret = -errno;
			break;
		}
		o->last_ms = output_now_ms();
		while (cnt > 0 && (size_t)n >= iov->iov_len) {
			n -= iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt > 0) {
			iov->iov_base = (char *)iov->iov_base + n;
			iov->iov_len -= n;
		}
	}
	/* the SIGPIPE a vanished reader raised is ours to drop, not a stop request */
	if (ret == -EPIPE && !sigismember(&old, SIGPIPE)) {
		while (sigtimedwait(&pipe_set, NULL, &zero) == SIGPIPE)
			;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

/* ---- stdio ------------------------------------------------------------------ */

struct output_cookie {
	struct output	*o;
	int		fd;
	bool		close_fd;
};

static ssize_t output_cookie_write(void *cookie, const char *buf, size_t size)
{
	struct output_cookie *c = cookie;
	struct iovec iov = { (void *)buf, size };
	int ret = output_write(c->o, &iov, 1);

	if (ret) {
		errno = -ret;
		return -1;
	}
	return (ssize_t)size;
}

static int output_cookie_close(void *cookie)
{
	struct output_cookie *c = cookie;
	int ret = 0;

	output_free(c->o);
	if (c->close_fd)
		ret = close(c->fd);
	free(c);
	return ret;
}

FILE *output_fdopen(int fd, bool close_fd)
{
	cookie_io_functions_t io = { .write = output_cookie_write, .close = output_cookie_close };
	struct output_cookie *c = calloc(1, sizeof(*c));
	FILE *fp;

	if (!c)
		return NULL;
	c->fd = fd;
	c->close_fd = close_fd;
	c->o = output_new(fd);
	fp = c->o ? fopencookie(c, "w", io) : NULL;
	if (!fp) {
		output_free(c->o);
		free(c);
		return NULL;
	}
	setvbuf(fp, NULL, _IOFBF, 1 << 16);
	return fp;
}
