// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tracefs consumer: one reader thread per CPU, each with its own
 * trace_pipe_raw opened non-blocking, a poll() on the pipe, a stop eventfd
 * and a flush eventfd (consumer_flush) with a 100 ms timeout. After every
 * wake-up the reader takes the full pages until there are none left, so
 * correctness never depends on when the kernel wakes pollers
 * (buffer_percent): at worst data waits 100 ms. Idle, a thread wakes 10 times
 * a second and does one empty splice and one empty read.
 *
 * Full pages are spliced into a pipe of the reader's own and read from there,
 * as trace-cmd record does: the kernel hands over the page. The page the
 * kernel is still writing is taken with read(), which copies it event by
 * event and leaves the rest of that page to be copied the same way; doing
 * that at every wake-up cost the reader 3-4x the CPU per event under a
 * one-byte dd (tests/bench/live_loss.sh, KTOP_NO_SPLICE=1 for the old way). So a
 * partly filled page is read only on a poll timeout (a trickle) or when
 * consumer_flush() asks for it (a summary up to now).
 *
 * Copying is decoupled from decoding, so that the kernel ring buffer drains
 * at the speed of a page copy (what trace-cmd record does) rather than at the
 * speed of decode + store (35-90 ns per event measured): pages go into a bounded
 * single-producer single-consumer page queue per CPU, and are decoded from
 * there
 *   - by the reader itself, a few pages at a time whenever the pipe is empty
 *     (default), or
 *   - by a decode thread per CPU (KTOP_DECODE_THREAD=1), woken by an eventfd.
 *     Measured on 2 CPUs under a one-byte dd it lost no less, and it touches
 *     the whole queue over time (the slots go round), where the reader,
 *     owning both ends, starts again at slot 0 whenever the queue is empty.
 * Neither busy-polls: a thread only loops while there is work queued.
 * When the queue is full the page just read is dropped, its events counted
 * (ktop_dropped) and recorded in the store as lost just before the next page
 * that is kept, so the gap shows wherever kernel losses show.
 *
 * Shutdown: set the stop flag, tracefs_cpu_stop(), signal the stop eventfd,
 * join, then decode what is queued and drain what is left in the kernel
 * buffers from the caller.
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

#include <event-parse.h>
#include <tracefs.h>

#include "lib/clock.h"
#include "consumer.h"
#include "decode.h"
#include "lib/file.h"
#include "rb_page.h"
#include "kernel/session.h"
#include "store/store.h"
#include "lib/tuning.h"

#define CONSUMER_POLL_MS	100
#define CONSUMER_WAKE_NS	(10ull * 1000 * 1000)	/* wake the UI at most every 10 ms */
#define CONSUMER_STATS_NS	(1000ull * 1000 * 1000)	/* per_cpu stats once a second */
#define CONSUMER_READ_BATCH	64			/* pages copied before looking up */
#define CONSUMER_DECODE_BATCH	16			/* pages decoded between two reads */
#define CONSUMER_DRAIN_MAX	65536			/* pages per CPU drained at stop */
#define CONSUMER_SPLICE_PAGES	16			/* pages moved per splice() */

struct consumer_cpu {
	struct consumer		*c;
	struct tracefs_cpu	*tcpu;
	struct decoder		*dec;
	void			*page;		/* scratch: dropped and flushed pages */
	pthread_t		thread;
	pthread_t		dthread;	/* decode thread (KTOP_DECODE_THREAD) */
	unsigned int		cpu;
	int			fd;
	int			spipe[2];	/* splice: whole pages, fd -> here -> queue */
	int			spipe_bytes;	/* reader-owned: bytes spliced, not yet read */
	bool			flush_due;	/* reader-owned: take the partly filled page */
	uint64_t		flushed_ns;	/* reader-owned: when it last was */
	int			flush_req;	/* consumer_flush() asked for it (atomic) */
	int			kfd;		/* eventfd: consumer_flush() wakes the reader */
	int			dfd;		/* eventfd: pages queued for dthread */
	int			page_size;
	bool			running;
	bool			drunning;
	/* the page queue: slots written by the reader, consumed by the decoder */
	uint8_t			*qbuf;
	uint32_t		*qlen;
	uint64_t		*qdrop;		/* events dropped just before this slot */
	uint32_t		qcap;
	uint64_t		qhead;		/* reader: release store; decoder: acquire */
	uint64_t		qtail;		/* decoder: release store; reader: acquire */
	uint64_t		drop_pending;	/* reader-owned: not yet attached to a slot */
	uint64_t		last_stats_ns;	/* reader-owned */
	uint64_t		stats_missed;	/* missed when the stats were last read */
	struct decode_stats	ds;		/* owned by the decoding thread */
	/* read by consumer_get_stats() from any thread: atomic access only */
	uint64_t		events;
	uint64_t		pages;
	uint64_t		bytes;
	uint64_t		missed;
	uint64_t		overrun;
	uint64_t		dropped;
	uint64_t		errors;
	uint64_t		flags[DECODE_F_NR];
	uint64_t		flags_unrecorded;
	uint64_t		kdropped;
	uint64_t		kdropped_pages;
	uint64_t		backlog_max;
	uint64_t		read_ns;
	uint64_t		decode_ns;
	uint64_t		stacks;
	uint64_t		stack_dropped;
	uint64_t		stack_cut;
	bool			held;		/* decoder_held() when last published */
};

struct consumer {
	struct session		*s;
	struct store		*st;
	struct decode_ctx	*dc;
	int			wake_fd;
	int			stop_fd;
	int			stop;
	int			long_size;
	bool			decode_thread;
	bool			no_splice;	/* KTOP_NO_SPLICE=1: read() every page */
	uint64_t		last_wake_ns;
	unsigned int		ncpus;
	struct consumer_cpu	cpus[];
};

static bool consumer_stopping(const struct consumer *c)
{
	return __atomic_load_n(&c->stop, __ATOMIC_ACQUIRE);
}

/* The held event's stack can no longer come: tracing is off (decoder_flush()). */
static bool cc_flush(struct consumer_cpu *cc)
{
	bool stopped = cc->c->s && !session_recording(cc->c->s);

	return decoder_flush(cc->dec, stopped, &cc->ds) > 0;
}

/* Context: the decoding thread of @cc. */
static void cc_publish(struct consumer_cpu *cc)
{
	__atomic_store_n(&cc->events, cc->ds.events, __ATOMIC_RELAXED);
	__atomic_store_n(&cc->pages, cc->ds.pages, __ATOMIC_RELAXED);
	__atomic_store_n(&cc->missed, cc->ds.missed, __ATOMIC_RELAXED);
	__atomic_store_n(&cc->stacks, cc->ds.stacks, __ATOMIC_RELAXED);
	__atomic_store_n(&cc->stack_dropped, cc->ds.stack_dropped, __ATOMIC_RELAXED);
	__atomic_store_n(&cc->stack_cut, cc->ds.stack_cut, __ATOMIC_RELAXED);
	__atomic_store_n(&cc->held, decoder_held(cc->dec), __ATOMIC_RELAXED);
	for (int i = 0; i < DECODE_F_NR; i++)
		__atomic_store_n(&cc->flags[i], cc->ds.flags[i], __ATOMIC_RELAXED);
	__atomic_store_n(&cc->flags_unrecorded, cc->ds.flags_unrecorded, __ATOMIC_RELAXED);
}

static void consumer_wake(struct consumer *c)
{
	uint64_t now = clock_mono_ns(), last = __atomic_load_n(&c->last_wake_ns, __ATOMIC_RELAXED);
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
	char file[64], buf[512];
	uint64_t v;
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
	if (!file_text_u64(buf, "overrun", &v))
		__atomic_store_n(&cc->overrun, v, __ATOMIC_RELAXED);
	if (!file_text_u64(buf, "dropped events", &v))
		__atomic_store_n(&cc->dropped, v, __ATOMIC_RELAXED);
}

/* Bytes of records on a raw page (its commit field). */
static size_t page_fill(const uint8_t *page, size_t len, int long_size)
{
	uint64_t commit = 0;

	if (len < RB_PAGE_HDR((size_t)long_size))
		return 0;
	memcpy(&commit, page + 8, (size_t)long_size);
	return commit & RB_COMMIT_MASK;
}

uint64_t consumer_page_records(const void *raw, size_t len, int long_size)
{
	const uint8_t *rec;
	struct rb_walk w;
	uint64_t n = 0;
	uint32_t rlen;

	if (rb_walk_init(&w, raw, len, long_size))
		return 0;
	while (rb_walk_next(&w, &rec, &rlen) == RB_WALK_EVENT)
		n++;
	return n;
}

/* ---- the page queue ----------------------------------------------------- */

static uint64_t cc_backlog(struct consumer_cpu *cc)
{
	uint64_t head = __atomic_load_n(&cc->qhead, __ATOMIC_ACQUIRE);
	uint64_t n = head - __atomic_load_n(&cc->qtail, __ATOMIC_ACQUIRE);

	/* a reader racing with cc_rewind() may see a wrapped difference */
	return n > cc->qcap ? 0 : n;
}

/*
 * With the queue empty, start again at slot 0: only as much queue memory as
 * the deepest backlog is ever touched, not all of it as the slots go round.
 * Context: a thread that is both the reader and the decoder of @cc.
 */
static void cc_rewind(struct consumer_cpu *cc)
{
	if (cc->qhead != cc->qtail || !cc->qhead)
		return;
	__atomic_store_n(&cc->qtail, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&cc->qhead, 0, __ATOMIC_RELEASE);
}

/*
 * Pages from the kernel into @buf, which has room for @max: whole pages
 * through the splice pipe, up to @max in one read(), or, with none left and
 * cc->flush_due set, the partly filled one by read() (the file comment says
 * why). A kernel that refuses the splice gets read() from then on.
 * Context: the reader of @cc. Return: bytes, 0, or -1 with errno (EAGAIN:
 * nothing to take now).
 */
static int cc_read_page(struct consumer_cpu *cc, void *buf, int max)
{
	size_t want;
	ssize_t n;

	if (cc->spipe[0] < 0)
		return tracefs_cpu_read(cc->tcpu, buf, true);
	if (!cc->spipe_bytes) {
		n = splice(cc->fd, NULL, cc->spipe[1], NULL, CONSUMER_SPLICE_PAGES *
			   (size_t)cc->page_size, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n < 0 && (errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP)) {
			close(cc->spipe[0]);
			close(cc->spipe[1]);
			cc->spipe[0] = cc->spipe[1] = -1;
			return tracefs_cpu_read(cc->tcpu, buf, true);
		}
		if (n < 0 && errno != EAGAIN)
			return -1;
		if (n <= 0) {
			if (!cc->flush_due) {
				errno = EAGAIN;
				return -1;
			}
			cc->flush_due = false;
			cc->flushed_ns = clock_mono_ns();
			return tracefs_cpu_read(cc->tcpu, buf, true);
		}
		cc->spipe_bytes = (int)n;
	}
	/* as many whole pages as were spliced and @buf takes: one read() */
	want = (size_t)cc->page_size * (size_t)max;
	if (want > (size_t)cc->spipe_bytes)
		want = (size_t)cc->spipe_bytes;
	n = read(cc->spipe[0], buf, want);
	if (n > 0)
		cc->spipe_bytes -= (int)n;
	else
		cc->spipe_bytes = 0;
	return (int)n;
}

/*
 * Copy up to @max pages from the kernel into the queue; when it is full, read
 * the page anyway (the kernel buffer must drain) and drop it, counted.
 * Context: the reader of @cc. Return: pages read (0: the pipe is empty), or
 * -errno.
 */
static int cc_fill(struct consumer_cpu *cc, int max)
{
	uint64_t head = cc->qhead, tail, bytes = 0, backlog;
	size_t ps = (size_t)cc->page_size;
	int n = 0, r, ret = 0;
	bool caught_up = false;

	while (n < max && !caught_up) {
		uint32_t slot = (uint32_t)(head % cc->qcap), room;
		uint8_t *buf;
		bool full;

		tail = __atomic_load_n(&cc->qtail, __ATOMIC_ACQUIRE);
		full = head - tail >= cc->qcap;
		/* free slots up to the end of the queue's memory, at most what is asked */
		room = full ? 1 : cc->qcap - (uint32_t)(head - tail);
		if (!full && room > cc->qcap - slot)
			room = cc->qcap - slot;
		if (room > (uint32_t)(max - n))
			room = (uint32_t)(max - n);
		buf = full ? cc->page : cc->qbuf + slot * ps;
		r = cc_read_page(cc, buf, (int)room);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			__atomic_fetch_add(&cc->errors, 1, __ATOMIC_RELAXED);
			ret = -errno;
			break;
		}
		if (r == 0)
			break;
		bytes += (uint64_t)r;
		/* one page, or several whole ones from the splice pipe */
		for (size_t off = 0; off < (size_t)r; off += ps, buf += ps) {
			size_t len = (size_t)r - off < ps ? (size_t)r - off : ps;

			n++;
			if (full) {
				uint64_t lost = consumer_page_records(buf, len, cc->c->long_size);

				cc->drop_pending += lost;
				__atomic_fetch_add(&cc->kdropped, lost, __ATOMIC_RELAXED);
				__atomic_fetch_add(&cc->kdropped_pages, 1, __ATOMIC_RELAXED);
				continue;
			}
			cc->qlen[head % cc->qcap] = (uint32_t)len;
			cc->qdrop[head % cc->qcap] = cc->drop_pending;
			cc->drop_pending = 0;
			__atomic_store_n(&cc->qhead, ++head, __ATOMIC_RELEASE);
			/*
			 * Less than half a page (read(), not spliced): we caught up
			 * with the writer. Reading on would copy a few events per
			 * syscall (and queue a page for each); wait for poll or the
			 * next round instead.
			 */
			if (page_fill(buf, len, cc->c->long_size) * 2 < len)
				caught_up = true;
		}
	}
	if (bytes)
		__atomic_fetch_add(&cc->bytes, bytes, __ATOMIC_RELAXED);
	backlog = head - __atomic_load_n(&cc->qtail, __ATOMIC_ACQUIRE);
	if (backlog > __atomic_load_n(&cc->backlog_max, __ATOMIC_RELAXED))
		__atomic_store_n(&cc->backlog_max, backlog, __ATOMIC_RELAXED);
	return ret ? ret : n;
}

/* Context: the decoding thread of @cc (the owner of cc->dec and cc->ds). */
static void cc_decode_page(struct consumer_cpu *cc, uint8_t *page, size_t len, uint64_t lost)
{
	if (lost) {
		uint64_t ts;

		memcpy(&ts, page, sizeof(ts));
		store_add_lost(cc->c->st, cc->cpu, ts, lost, STORE_LOST_KTOP);
	}
	if (decoder_page(cc->dec, page, len, &cc->ds) < 0)
		cc->ds.bad++;
}

/*
 * Decode up to @max queued pages, freeing each slot as soon as it is done.
 * Context: the decoding thread of @cc. Return: pages decoded.
 */
static int cc_decode(struct consumer_cpu *cc, int max)
{
	uint64_t tail = cc->qtail, head = __atomic_load_n(&cc->qhead, __ATOMIC_ACQUIRE);
	int n = 0;

	while (n < max && tail != head) {
		uint32_t slot = tail % cc->qcap;

		cc_decode_page(cc, cc->qbuf + slot * (size_t)cc->page_size, cc->qlen[slot],
			       cc->qdrop[slot]);
		__atomic_store_n(&cc->qtail, ++tail, __ATOMIC_RELEASE);
		n++;
		if (tail == head)
			head = __atomic_load_n(&cc->qhead, __ATOMIC_ACQUIRE);
	}
	if (n)
		cc_publish(cc);
	return n;
}

/* ---- threads ------------------------------------------------------------- */

/*
 * What a CPU's thread starts with: every signal blocked, its name, and the
 * first two entries of its poll set: @fd (its own work) and the stop fd.
 */
static void cc_thread_init(struct consumer_cpu *cc, const char *what, int fd,
			   struct pollfd *pfd)
{
	char name[16];
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	snprintf(name, sizeof(name), "ktop-%s%u", what, cc->cpu);
	pthread_setname_np(pthread_self(), name);
	pfd[0].fd = fd;
	pfd[0].events = POLLIN;
	pfd[1].fd = cc->c->stop_fd;
	pfd[1].events = POLLIN;
}

/* Once a second; sooner once drained after a loss, so that both counts agree. */
static void cc_maybe_stats(struct consumer_cpu *cc, bool drained)
{
	uint64_t now = clock_mono_ns(), missed = __atomic_load_n(&cc->missed, __ATOMIC_RELAXED);

	if (now - cc->last_stats_ns >= CONSUMER_STATS_NS ||
	    (drained && missed != cc->stats_missed &&
	     now - cc->last_stats_ns >= CONSUMER_STATS_NS / 10)) {
		cc->last_stats_ns = now;
		cc->stats_missed = missed;
		cc_read_stats(cc);
	}
}

static void cc_pause(void)
{
	struct timespec ts = { 0, CONSUMER_POLL_MS * 1000 * 1000 };

	nanosleep(&ts, NULL);	/* never spin on a broken pipe */
}

/*
 * The reader. Copying comes first: decoding (when it is ours to do) happens
 * only once the pipe is empty, a few pages at a time, so the kernel buffer
 * is looked at again within ~100 us of decoding.
 */
static void *cc_thread(void *arg)
{
	struct consumer_cpu *cc = arg;
	struct consumer *c = cc->c;
	bool decode = !c->decode_thread;
	uint64_t one = 1, kick, t0, t1, t2;
	struct pollfd pfd[3];
	int n, d = 0, rounds;
	bool idle;

	cc_thread_init(cc, "cpu", cc->fd, pfd);
	pfd[2].fd = cc->kfd;
	pfd[2].events = POLLIN;

	while (!consumer_stopping(c)) {
		idle = false;
		/* sleep only with nothing left to decode */
		if (!decode || !cc_backlog(cc)) {
			int pr = poll(pfd, 3, CONSUMER_POLL_MS);

			if (pr < 0 && errno != EINTR)
				break;
			if (pr == 0)
				cc->flush_due = idle = true;	/* a trickle: take what there is */
			if (pr > 0 && (pfd[2].revents & POLLIN) &&
			    read(cc->kfd, &kick, sizeof(kick)) < 0) {
				/* EAGAIN: cannot happen with one reader; harmless */
			}
			if (consumer_stopping(c))
				break;
		}
		/*
		 * Wake-ups for full pages can come more often than the poll
		 * timeout: the partly filled page is also taken when it was last
		 * taken a timeout ago, so no event waits much longer than that.
		 */
		if (__atomic_exchange_n(&cc->flush_req, 0, __ATOMIC_ACQ_REL) ||
		    clock_mono_ns() - cc->flushed_ns >= CONSUMER_POLL_MS * 1000000ull)
			cc->flush_due = true;
		if (decode)
			cc_rewind(cc);
		t0 = clock_thread_ns();
		/* read on timeout as well: trickles below the watermark */
		rounds = 0;
		do {
			n = cc_fill(cc, CONSUMER_READ_BATCH);
		} while (n == CONSUMER_READ_BATCH && ++rounds < 16 && !consumer_stopping(c));
		t1 = clock_thread_ns();
		__atomic_fetch_add(&cc->read_ns, t1 - t0, __ATOMIC_RELAXED);
		if (n > 0 || rounds) {
			if (!decode && write(cc->dfd, &one, sizeof(one)) < 0) {
				/* EAGAIN: the counter is full, the decoder is awake */
			}
		}
		if (decode) {
			d = cc_decode(cc, CONSUMER_DECODE_BATCH);
			/*
			 * Quiet for a whole poll timeout, nothing read since: the event
			 * held for its stack goes in. (Not when this round read a page:
			 * its last event's stack may still be on its way.)
			 */
			if (idle && n == 0 && !rounds && !d && !cc_backlog(cc) &&
			    cc_flush(cc)) {
				cc_publish(cc);
				d++;
			}
			if (d) {
				t2 = clock_thread_ns();
				__atomic_fetch_add(&cc->decode_ns, t2 - t1, __ATOMIC_RELAXED);
				consumer_wake(c);
			}
		}
		if (n < 0)
			cc_pause();
		cc_maybe_stats(cc, n == 0 && !d);
	}
	return NULL;
}

/* KTOP_DECODE_THREAD: decodes the queue of one CPU, woken by the reader. */
static void *cc_decode_thread(void *arg)
{
	struct consumer_cpu *cc = arg;
	struct consumer *c = cc->c;
	struct pollfd pfd[2];
	uint64_t v, t0;
	int d;

	cc_thread_init(cc, "dec", cc->dfd, pfd);

	while (!consumer_stopping(c)) {
		if (!cc_backlog(cc)) {
			int pr = poll(pfd, 2, CONSUMER_POLL_MS);

			if (pr < 0 && errno != EINTR)
				break;
			if (consumer_stopping(c))
				break;
			if (pr == 0 && cc_flush(cc)) {
				cc_publish(cc);
				consumer_wake(c);
			}
			if (read(cc->dfd, &v, sizeof(v)) < 0) {
				/* EAGAIN: woken by the timeout */
			}
		}
		t0 = clock_thread_ns();
		d = cc_decode(cc, CONSUMER_DECODE_BATCH * 4);
		if (d) {
			__atomic_fetch_add(&cc->decode_ns, clock_thread_ns() - t0, __ATOMIC_RELAXED);
			consumer_wake(c);
		}
	}
	return NULL;
}

static uint64_t cc_last_ts(struct consumer_cpu *cc)
{
	struct store_stats ss;

	store_get_cpu_stats(cc->c->st, cc->cpu, &ss);
	return ss.last_ts;
}

/*
 * After the threads are gone: decode the queue, then what is left in the
 * kernel buffer. Context: the thread that joined @cc's threads.
 */
static void cc_drain(struct consumer_cpu *cc)
{
	int n = 0, r;

	while (cc_decode(cc, CONSUMER_READ_BATCH) > 0)
		;
	while (n < CONSUMER_DRAIN_MAX) {
		/* whole pages spliced but not read yet, then the kernel's rest */
		if (cc->spipe_bytes > 0) {
			r = (int)read(cc->spipe[0], cc->page, (size_t)cc->page_size);
			cc->spipe_bytes = r > 0 ? cc->spipe_bytes - r : 0;
		} else {
			r = tracefs_cpu_flush(cc->tcpu, cc->page);
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		cc_decode_page(cc, cc->page, (size_t)r, cc->drop_pending);
		cc->drop_pending = 0;
		__atomic_fetch_add(&cc->bytes, (uint64_t)r, __ATOMIC_RELAXED);
		n++;
	}
	cc_flush(cc);
	if (cc->drop_pending) {
		/* dropped at the very end: nothing followed to carry the mark */
		store_add_lost(cc->c->st, cc->cpu, cc_last_ts(cc), cc->drop_pending,
			       STORE_LOST_KTOP);
		cc->drop_pending = 0;
	}
	store_publish(cc->c->st, cc->cpu);
	cc_publish(cc);
}

/* ---- setup ----------------------------------------------------------------- */

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
	for (int i = 0; i < 2; i++) {
		if (cc->spipe[i] >= 0)
			close(cc->spipe[i]);
		cc->spipe[i] = -1;
	}
	cc->spipe_bytes = 0;
	if (cc->dfd >= 0)
		close(cc->dfd);
	cc->dfd = -1;
	if (cc->kfd >= 0)
		close(cc->kfd);
	cc->kfd = -1;
	decoder_free(cc->dec);
	cc->dec = NULL;
	free(cc->page);
	cc->page = NULL;
	free(cc->qbuf);
	cc->qbuf = NULL;
	free(cc->qlen);
	cc->qlen = NULL;
	free(cc->qdrop);
	cc->qdrop = NULL;
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

/* KTOP_READ_QUEUE_MB (src/lib/tuning.h), at least a few pages. */
static uint32_t queue_pages(int page_size)
{
	unsigned long long pages = ((unsigned long long)tuning()->read_queue_mb << 20) /
				   (unsigned long long)page_size;

	return pages < 4 ? 4 : (uint32_t)pages;
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
	if (!cc->c->no_splice && !pipe2(cc->spipe, O_CLOEXEC | O_NONBLOCK)) {
		/* room for one splice; without it, read() every page */
		if (fcntl(cc->spipe[1], F_SETPIPE_SZ, CONSUMER_SPLICE_PAGES * page_size) <
		    CONSUMER_SPLICE_PAGES * page_size) {
			close(cc->spipe[0]);
			close(cc->spipe[1]);
			cc->spipe[0] = cc->spipe[1] = -1;
		}
	}
	cc->page = malloc(page_size);
	cc->dec = decoder_new(cc->c->dc, cc->cpu);
	cc->qcap = queue_pages(page_size);
	/* untouched queue memory is never faulted in: it costs only under load */
	cc->qbuf = malloc((size_t)cc->qcap * (size_t)page_size);
	cc->qlen = calloc(cc->qcap, sizeof(*cc->qlen));
	cc->qdrop = calloc(cc->qcap, sizeof(*cc->qdrop));
	if (cc->c->decode_thread)
		cc->dfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	cc->kfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!cc->tcpu || !cc->page || !cc->dec || !cc->qbuf || !cc->qlen || !cc->qdrop ||
	    (cc->c->decode_thread && cc->dfd < 0) || cc->kfd < 0) {
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
	struct tep_handle *tep = session_tep(s);
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
	c->decode_thread = tuning()->decode_thread;
	c->no_splice = tuning()->no_splice;
	c->long_size = tep && tep_get_long_size(tep) == 4 ? 4 : 8;
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
		c->cpus[i].dfd = -1;
		c->cpus[i].kfd = -1;
		c->cpus[i].spipe[0] = c->cpus[i].spipe[1] = -1;
	}
	for (i = 0; i < ncpus; i++) {
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
		struct consumer_cpu *cc = &c->cpus[i];

		if (cc->fd < 0)
			continue;
		if (c->decode_thread) {
			ret = -pthread_create(&cc->dthread, NULL, cc_decode_thread, cc);
			if (ret)
				goto out_stop;
			cc->drunning = true;
		}
		ret = -pthread_create(&cc->thread, NULL, cc_thread, cc);
		if (ret)
			goto out_stop;
		cc->running = true;
	}
	*out = c;
	return 0;

out_stop:
	consumer_stop(c);
	return ret;
}

void consumer_flush(struct consumer *c)
{
	uint64_t one = 1;

	if (!c)
		return;
	for (unsigned int i = 0; i < c->ncpus; i++) {
		struct consumer_cpu *cc = &c->cpus[i];

		if (!cc->running)
			continue;
		__atomic_store_n(&cc->flush_req, 1, __ATOMIC_RELEASE);
		if (write(cc->kfd, &one, sizeof(one)) < 0) {
			/* EAGAIN: the counter is full, a wake-up is pending */
		}
	}
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
		struct consumer_cpu *cc = &c->cpus[i];

		if (cc->running)
			pthread_join(cc->thread, NULL);
		if (cc->drunning)
			pthread_join(cc->dthread, NULL);
		cc->running = cc->drunning = false;
	}
	/* the threads are gone: this thread now owns every queue, decoder and stream */
	for (i = 0; i < c->ncpus; i++) {
		struct consumer_cpu *cc = &c->cpus[i];

		if (cc->tcpu && cc->dec)
			cc_drain(cc);
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
	for (int i = 0; i < DECODE_F_NR; i++)
		out->flags[i] = __atomic_load_n(&cc->flags[i], __ATOMIC_RELAXED);
	out->flags_unrecorded = __atomic_load_n(&cc->flags_unrecorded, __ATOMIC_RELAXED);
	out->ktop_dropped = __atomic_load_n(&cc->kdropped, __ATOMIC_RELAXED);
	out->ktop_dropped_pages = __atomic_load_n(&cc->kdropped_pages, __ATOMIC_RELAXED);
	out->backlog_pages = cc->qbuf ? cc_backlog(cc) : 0;
	out->backlog_max = __atomic_load_n(&cc->backlog_max, __ATOMIC_RELAXED);
	out->queue_pages = cc->qcap;
	out->page_size = (uint64_t)cc->page_size;
	out->read_ns = __atomic_load_n(&cc->read_ns, __ATOMIC_RELAXED);
	out->decode_ns = __atomic_load_n(&cc->decode_ns, __ATOMIC_RELAXED);
	out->stacks = __atomic_load_n(&cc->stacks, __ATOMIC_RELAXED);
	out->stack_dropped = __atomic_load_n(&cc->stack_dropped, __ATOMIC_RELAXED);
	out->stack_cut = __atomic_load_n(&cc->stack_cut, __ATOMIC_RELAXED);
	out->held = __atomic_load_n(&cc->held, __ATOMIC_RELAXED);
}
