// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tracefs consumer: one thread per CPU, each with its own trace_pipe_raw
 * opened non-blocking, its own decoder, and a poll() on the pipe and a stop
 * eventfd with a 100 ms timeout. After every wake-up the thread reads pages
 * until the pipe is empty, so correctness never depends on when the kernel
 * wakes pollers (buffer_percent): at worst data waits 100 ms. Idle, a thread
 * wakes 10 times a second and does one empty read.
 *
 * Shutdown: set the stop flag, tracefs_cpu_stop(), signal the stop eventfd,
 * join, then drain what is left in the kernel buffers from the caller.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "consumer.h"
#include "decode.h"
#include "session.h"
#include "store.h"

#define CONSUMER_POLL_MS	100
#define CONSUMER_WAKE_NS	(10ull * 1000 * 1000)	/* wake the UI at most every 10 ms */
#define CONSUMER_STATS_NS	(1000ull * 1000 * 1000)	/* per_cpu stats once a second */
#define CONSUMER_BATCH		64			/* pages before looking up again */
#define CONSUMER_DRAIN_MAX	65536			/* pages per CPU drained at stop */

struct consumer_cpu {
	struct consumer		*c;
	struct tracefs_cpu	*tcpu;
	struct decoder		*dec;
	void			*page;
	pthread_t		thread;
	unsigned int		cpu;
	int			fd;
	int			page_size;
	bool			running;
	uint64_t		last_stats_ns;
	uint64_t		stats_missed;	/* ds.missed when the stats were last read */
	struct decode_stats	ds;	/* owned by the thread, published below */
	/* read by consumer_get_stats() from any thread: atomic access only */
	uint64_t		events;
	uint64_t		pages;
	uint64_t		bytes;
	uint64_t		missed;
	uint64_t		overrun;
	uint64_t		dropped;
	uint64_t		errors;
};

struct consumer {
	struct session		*s;
	struct store		*st;
	struct decode_ctx	*dc;
	int			wake_fd;
	int			stop_fd;
	int			stop;
	uint64_t		last_wake_ns;
	unsigned int		ncpus;
	struct consumer_cpu	cpus[];
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void cc_publish(struct consumer_cpu *cc, uint64_t bytes)
{
	__atomic_store_n(&cc->events, cc->ds.events, __ATOMIC_RELAXED);
	__atomic_store_n(&cc->pages, cc->ds.pages, __ATOMIC_RELAXED);
	__atomic_store_n(&cc->missed, cc->ds.missed, __ATOMIC_RELAXED);
	__atomic_fetch_add(&cc->bytes, bytes, __ATOMIC_RELAXED);
}

static void consumer_wake(struct consumer *c)
{
	uint64_t now = now_ns(), last = __atomic_load_n(&c->last_wake_ns, __ATOMIC_RELAXED);
	uint64_t one = 1;

	if (c->wake_fd < 0 || now - last < CONSUMER_WAKE_NS)
		return;
	if (!__atomic_compare_exchange_n(&c->last_wake_ns, &last, now, false, __ATOMIC_RELAXED,
					 __ATOMIC_RELAXED))
		return;		/* another CPU's thread just did */
	if (write(c->wake_fd, &one, sizeof(one)) < 0) {
		/* EAGAIN: the counter is full, the reader is awake anyway */
	}
}

/* "overrun: 12" and "dropped events: 3" from per_cpu/cpuN/stats. */
static void cc_read_stats(struct consumer_cpu *cc)
{
	struct tracefs_instance *inst = session_instance(cc->c->s);
	char file[64], buf[512], *p;
	int fd;
	ssize_t r;

	snprintf(file, sizeof(file), "per_cpu/cpu%u/stats", cc->cpu);
	fd = tracefs_instance_file_open(inst, file, O_RDONLY);
	if (fd < 0)
		return;
	r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (r <= 0)
		return;
	buf[r] = '\0';
	p = strstr(buf, "\noverrun:");
	if (!p && !strncmp(buf, "overrun:", 8))
		p = buf - 1;
	if (p)
		__atomic_store_n(&cc->overrun, strtoull(p + 9, NULL, 10), __ATOMIC_RELAXED);
	p = strstr(buf, "dropped events:");
	if (p)
		__atomic_store_n(&cc->dropped, strtoull(p + 15, NULL, 10), __ATOMIC_RELAXED);
}

/*
 * Read and decode up to @max pages. Return: pages read (0: the pipe is
 * empty), or -errno.
 */
static int cc_read_pages(struct consumer_cpu *cc, int max, bool flush)
{
	uint64_t bytes = 0;
	int n = 0, r;

	while (n < max) {
		r = flush ? tracefs_cpu_flush(cc->tcpu, cc->page) :
			    tracefs_cpu_read(cc->tcpu, cc->page, true);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			__atomic_fetch_add(&cc->errors, 1, __ATOMIC_RELAXED);
			cc_publish(cc, bytes);
			return -errno;
		}
		if (r == 0)
			break;
		if (decoder_page(cc->dec, cc->page, r, &cc->ds) < 0)
			cc->ds.bad++;
		bytes += r;
		n++;
	}
	if (n) {
		store_publish(cc->c->st, cc->cpu);
		cc_publish(cc, bytes);
	}
	return n;
}

static void *cc_thread(void *arg)
{
	struct consumer_cpu *cc = arg;
	struct consumer *c = cc->c;
	struct pollfd pfd[2];
	char name[16];
	sigset_t all;
	uint64_t now;
	int n;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	snprintf(name, sizeof(name), "ktop-cpu%u", cc->cpu);
	pthread_setname_np(pthread_self(), name);

	pfd[0].fd = cc->fd;
	pfd[0].events = POLLIN;
	pfd[1].fd = c->stop_fd;
	pfd[1].events = POLLIN;

	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		if (poll(pfd, 2, CONSUMER_POLL_MS) < 0 && errno != EINTR)
			break;
		if (__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE))
			break;
		/* read on timeout as well: trickles below the watermark */
		do {
			n = cc_read_pages(cc, CONSUMER_BATCH, false);
			if (n > 0)
				consumer_wake(c);
		} while (n == CONSUMER_BATCH && !__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE));
		if (n < 0) {
			/* never spin on a broken pipe */
			struct timespec ts = { 0, CONSUMER_POLL_MS * 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
		now = now_ns();
		/* once a second; sooner once drained after a loss, so both counts agree */
		if (now - cc->last_stats_ns >= CONSUMER_STATS_NS ||
		    (n == 0 && cc->ds.missed != cc->stats_missed &&
		     now - cc->last_stats_ns >= CONSUMER_STATS_NS / 10)) {
			cc->last_stats_ns = now;
			cc->stats_missed = cc->ds.missed;
			cc_read_stats(cc);
		}
	}
	return NULL;
}

static void cc_close(struct consumer_cpu *cc)
{
	if (cc->tcpu)
		tracefs_cpu_free_fd(cc->tcpu);
	cc->tcpu = NULL;
	if (cc->fd >= 0) {
		session_track_fd(cc->fd, false);
		close(cc->fd);
	}
	cc->fd = -1;
	decoder_free(cc->dec);
	cc->dec = NULL;
	free(cc->page);
	cc->page = NULL;
}

/* The sub-buffer size of the session's ring buffer (a page unless changed). */
static int sub_buffer_size(struct session *s)
{
	long pg = sysconf(_SC_PAGESIZE);
	long long kb;

	if (!tracefs_instance_file_read_number(session_instance(s), "buffer_subbuf_size_kb",
					       &kb) && kb > 0 && kb * 1024 > pg)
		return (int)(kb * 1024);
	return pg > 0 ? (int)pg : 4096;
}

static int cc_open(struct consumer_cpu *cc, int page_size)
{
	char file[64];
	int ret;

	snprintf(file, sizeof(file), "per_cpu/cpu%u/trace_pipe_raw", cc->cpu);
	cc->fd = tracefs_instance_file_open(session_instance(cc->c->s), file,
					    O_RDONLY | O_NONBLOCK);
	if (cc->fd < 0)
		return errno ? -errno : -ENOENT;
	session_track_fd(cc->fd, true);
	/* our own fd, so that poll() can watch it; free_fd leaves it to us */
	cc->tcpu = tracefs_cpu_alloc_fd(cc->fd, page_size, true);
	cc->page_size = page_size;
	cc->page = malloc(page_size);
	cc->dec = decoder_new(cc->c->dc, cc->cpu);
	if (!cc->tcpu || !cc->page || !cc->dec) {
		ret = errno ? -errno : -ENOMEM;
		cc_close(cc);
		return ret;
	}
	return 0;
}

int consumer_start(struct consumer **out, struct session *s, struct store *st,
		   struct decode_ctx *dc, int wake_fd)
{
	unsigned int ncpus = session_ncpus(s), i;
	struct consumer *c;
	int ret, page_size, opened = 0;

	*out = NULL;
	c = calloc(1, sizeof(*c) + ncpus * sizeof(c->cpus[0]));
	if (!c)
		return -ENOMEM;
	c->s = s;
	c->st = st;
	c->dc = dc;
	c->wake_fd = wake_fd;
	c->ncpus = ncpus;
	c->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (c->stop_fd < 0) {
		ret = -errno;
		free(c);
		return ret;
	}
	page_size = sub_buffer_size(s);
	for (i = 0; i < ncpus; i++) {
		c->cpus[i].c = c;
		c->cpus[i].cpu = i;
		c->cpus[i].fd = -1;
		ret = cc_open(&c->cpus[i], page_size);
		if (ret == -ENOENT || ret == -ENODEV)
			continue;	/* an offline or absent CPU */
		if (ret)
			goto out_stop;
		opened++;
	}
	if (!opened) {
		ret = -ENOENT;
		goto out_stop;
	}
	for (i = 0; i < ncpus; i++) {
		if (c->cpus[i].fd < 0)
			continue;
		ret = -pthread_create(&c->cpus[i].thread, NULL, cc_thread, &c->cpus[i]);
		if (ret)
			goto out_stop;
		c->cpus[i].running = true;
	}
	*out = c;
	return 0;

out_stop:
	consumer_stop(c);
	return ret;
}

void consumer_stop(struct consumer *c)
{
	uint64_t one = 1;
	unsigned int i;

	if (!c)
		return;
	__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < c->ncpus; i++)
		if (c->cpus[i].tcpu)
			tracefs_cpu_stop(c->cpus[i].tcpu);
	if (write(c->stop_fd, &one, sizeof(one)) < 0) {
		/* cannot fail for a fresh eventfd; threads also time out */
	}
	for (i = 0; i < c->ncpus; i++) {
		if (c->cpus[i].running)
			pthread_join(c->cpus[i].thread, NULL);
		c->cpus[i].running = false;
	}
	/* the threads are gone: this thread now owns every decoder and stream */
	for (i = 0; i < c->ncpus; i++) {
		struct consumer_cpu *cc = &c->cpus[i];

		if (cc->tcpu && cc->dec)
			cc_read_pages(cc, CONSUMER_DRAIN_MAX, true);
		if (cc->tcpu)
			cc_read_stats(cc);
		cc_close(cc);
	}
	if (c->wake_fd >= 0 && write(c->wake_fd, &one, sizeof(one)) < 0) {
		/* best effort */
	}
	close(c->stop_fd);
	free(c);
}

void consumer_get_stats(struct consumer *c, unsigned int cpu, struct consumer_cpu_stats *out)
{
	struct consumer_cpu *cc;

	memset(out, 0, sizeof(*out));
	if (!c || cpu >= c->ncpus)
		return;
	cc = &c->cpus[cpu];
	out->events = __atomic_load_n(&cc->events, __ATOMIC_RELAXED);
	out->pages = __atomic_load_n(&cc->pages, __ATOMIC_RELAXED);
	out->bytes = __atomic_load_n(&cc->bytes, __ATOMIC_RELAXED);
	out->missed = __atomic_load_n(&cc->missed, __ATOMIC_RELAXED);
	out->overrun = __atomic_load_n(&cc->overrun, __ATOMIC_RELAXED);
	out->dropped = __atomic_load_n(&cc->dropped, __ATOMIC_RELAXED);
}
