// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The recording source (src/source/source.h): a file in any format ktop reads
 * (src/formats/, detected from its content), or a .ktop stream on a pipe
 * (-i -). A loader thread reads it into the store: the store exists once the
 * reader has opened the input (a .ktop's header and metadata), so the views
 * draw their first frame while the rest arrives; the loader writes the
 * sink's wake_fd as it goes, like the live readers. A recording has no
 * kernel: the program's actions are NULL (app.h refuses them with a message).
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/err.h"
#include "formats/format.h"
#include "kernel/session.h"
#include "lib/taskstate.h"
#include "store/meta.h"
#include "source.h"
#include "store/store.h"

#define LOADER_WAKE_NS	50000000ull	/* wake the UI at most every 50 ms while loading */

/* The recording source's state. */
struct file_src {
	struct source		base;
	pthread_t		th;
	struct format_reader	*r;
	struct snapshot_meta	meta;		/* a copy: the reader's stays the reader's */
	int			fd;
	bool			close_fd;
	bool			stream;		/* -i -: a pipe that grows */
	bool			started;
	bool			end_signal;	/* batch: exit at the stream's end */
	int			wake_fd;
	atomic_bool		done;
	atomic_bool		stop;
	int			ret;
	uint64_t		end_rt;		/* CLOCK_REALTIME ns when it finished */
	uint64_t		start_ns;	/* CLOCK_MONOTONIC: opened */
	struct store		*st;		/* the reader's, handed to the sink */
	const char		*tracer;	/* the recording's, else the options' -p */
	char			mode_why[256];	/* what it reads */
	char			err[512];
	char			file[PATH_MAX];	/* the file of -i FILE@NAME */
};

static inline struct file_src *FS(const struct source *s)
{
	return (struct file_src *)s;
}

static void loader_wake(int fd)
{
	uint64_t one = 1;

	if (fd >= 0 && write(fd, &one, sizeof(one)) < 0)
		return;		/* the counter is full: the reader is awake anyway */
}

static void *loader_main(void *arg)
{
	struct file_src *l = arg;
	uint64_t last = clock_mono_ns();
	int ret;

	while (!atomic_load(&l->stop)) {
		uint64_t now;

		ret = format_reader_next(l->r);
		if (ret <= 0) {
			l->ret = ret;
			if (ret < 0)
				snprintf(l->err, sizeof(l->err), "%s", l->r->err);
			break;
		}
		now = clock_mono_ns();
		if (now - last >= LOADER_WAKE_NS) {
			loader_wake(l->wake_fd);
			last = now;
		}
	}
	l->end_rt = clock_wall_ns();
	atomic_store(&l->done, true);
	loader_wake(l->wake_fd);
	if (l->end_signal && !atomic_load(&l->stop))
		kill(getpid(), SIGTERM);	/* batch -i -: the stream ended, so do we */
	return NULL;
}

static int file_status(const struct source *s, bool *loading, char *err, size_t errlen)
{
	const struct file_src *l = FS(s);

	*loading = !atomic_load(&l->done);
	if (!atomic_load(&l->done) || l->ret >= 0)
		return 0;
	snprintf(err, errlen, "%s", l->err);
	return l->ret;
}

static int file_wait(struct source *s, char *err, size_t errlen)
{
	struct file_src *l = FS(s);

	if (!l->started)
		return 0;
	pthread_join(l->th, NULL);
	l->started = false;
	if (l->ret < 0)
		return err_set(err, errlen, l->ret, "%s", l->err);
	return 0;
}

static uint64_t file_feed_end(const struct source *s, uint64_t lag_ns)
{
	const struct file_src *l = FS(s);

	if (atomic_load(&l->done))
		return UINT64_MAX - 1;
	/* a stream feeds the tracer's panes as it arrives, as a live session does */
	return l->stream ? store_feed_end(l->st, lag_ns) : 0;
}

/* Stop the loader, free @s; the store it handed to the sink stays the sink's. */
static void file_close(struct source *s)
{
	struct file_src *l = FS(s);

	atomic_store(&l->stop, true);
	/*
	 * A file's loader sees the flag after its block; a stream's may sit in
	 * read() on a quiet pipe: after 200 ms it is cancelled there (read is a
	 * cancellation point; the reader is freed below).
	 */
	for (int i = 0; l->started && i < 20 && !atomic_load(&l->done); i++)
		usleep(10000);
	if (l->started && !atomic_load(&l->done))
		pthread_cancel(l->th);
	if (l->started)
		pthread_join(l->th, NULL);
	/* the store outlives the reader: the sink's owner frees it */
	if (l->r && l->st && l->st == l->r->st)
		format_reader_take_store(l->r);
	format_reader_free(l->r);
	if (l->close_fd)
		close(l->fd);
	snapshot_meta_free(&l->meta);
	free(l);
}

/* What the batch header and the UI say about the recording. */
static void file_set_describe(struct file_src *l, const char *name)
{
	const struct snapshot_meta *m = &l->meta;

	/* cut where it is too long: the header and pane 1 show what fits */
	if (snprintf(l->mode_why, sizeof(l->mode_why), "%s (%s%s%s%s%s, tracer %s)", name,
		     m->source[0] ? m->source : "?", m->release[0] ? ", kernel " : "", m->release,
		     m->hostname[0] ? ", host " : "", m->hostname,
		     m->tracer[0] ? m->tracer : "nop") < 0)
		l->mode_why[0] = '\0';
	if (m->notes[0]) {
		size_t n = strlen(l->mode_why);

		/* several buffers, their clocks, what the reader did not apply */
		snprintf(l->mode_why + n, sizeof(l->mode_why) - n, "; %s", m->notes);
	}
	if (m->tracer[0])
		l->tracer = m->tracer;
}

/* Standard input: wait for the stream to begin (ssh may take a while); a signal still ends ktop. */
static int file_wait_stream(int fd, char *err, size_t errlen)
{
	struct pollfd pfd[2] = {
		{ .fd = fd, .events = POLLIN },
		{ .fd = session_signal_fd(), .events = POLLIN },
	};

	while (poll(pfd, 2, -1) < 0 && errno == EINTR)
		;
	if (session_signal_pending())
		return err_set(err, errlen, -EINTR,
			       "standard input: interrupted before the stream began");
	return 0;
}

/* Read the whole input before returning (@sync), or start the loader. */
static int file_load(struct file_src *l, bool sync, char *err, size_t errlen)
{
	int ret;

	if (sync) {
		while ((ret = format_reader_next(l->r)) > 0)
			;
		atomic_store(&l->done, true);
		if (ret < 0)
			return err_set(err, errlen, ret, "%s", l->r->err);
		return 0;
	}
	ret = pthread_create(&l->th, NULL, loader_main, l);
	if (ret)
		return err_set(err, errlen, -ret, "cannot start the loader thread: %s",
			       strerror(ret));
	l->started = true;
	return 0;
}

static const struct source_ops source_file;

static int file_open(struct file_src *l, const struct source_file_args *args,
		     struct source_sink *sink, char *err, size_t errlen)
{
	bool is_stdin = !strcmp(args->path, "-");
	struct format_in in = { .mem_limit = args->mem_limit };
	struct taskstate_fmt tsf;
	int ret;

	l->fd = -1;
	l->wake_fd = sink->wake_fd;
	l->stream = is_stdin;
	l->tracer = args->tracer;
	if (is_stdin) {
		in.fd = args->fd >= 0 ? args->fd : STDIN_FILENO;
		in.name = "standard input";
		ret = file_wait_stream(in.fd, err, errlen);
		if (ret)
			return ret;
	} else {
		/* a file, or FILE@NAME: one buffer of a trace.dat */
		ret = format_in_open(&in, args->path, l->file, sizeof(l->file), err, errlen);
		if (ret)
			return ret;
		in.mem_limit = args->mem_limit;
		l->close_fd = true;
	}
	l->fd = in.fd;
	l->end_signal = is_stdin && args->end_signal;
	ret = format_open(&in, &l->r, err, errlen);
	if (ret)
		return ret;
	l->st = sink->st = l->r->st;
	l->start_ns = clock_mono_ns();	/* a stream's header may have kept us waiting */
	if (snapshot_meta_copy(&l->meta, &l->r->meta))
		return err_set(err, errlen, -ENOMEM, "out of memory");
	/* prev_state's letters as the recording's kernel printed them */
	if (!taskstate_parse(snapshot_meta_format(&l->meta, "sched", "sched_switch"), &tsf))
		store_set_task_states(l->st, &tsf);
	{
		char what[200];

		/* --remote: the far side's kernel, by the host ssh reached */
		if (is_stdin && args->remote)
			snprintf(what, sizeof(what), "live stream from %.160s over ssh",
				 args->remote);
		else
			snprintf(what, sizeof(what), "%s %.180s", is_stdin ? "stream" : "snapshot",
				 is_stdin ? "on standard input" : args->path);
		file_set_describe(l, what);
	}
	return file_load(l, args->sync, err, errlen);
}

int source_file_open(const struct source_file_args *args, struct source_sink *sink,
		     struct source **out, char *err, size_t errlen)
{
	struct file_src *l = calloc(1, sizeof(*l));
	int ret;

	*out = NULL;
	if (!l)
		return err_set(err, errlen, -ENOMEM, "cannot start: %s", strerror(ENOMEM));
	l->base.ops = &source_file;
	ret = file_open(l, args, sink, err, errlen);
	if (ret) {
		file_close(&l->base);
		return ret;
	}
	*out = &l->base;
	return 0;
}

static unsigned int file_flags(const struct source *s)
{
	/* a stream is live data: the views follow it as it grows */
	return FS(s)->stream ? SOURCE_GROWS : 0;
}

static const char *file_describe(const struct source *s)
{
	return FS(s)->mode_why;
}

static uint64_t file_start_ns(const struct source *s)
{
	return FS(s)->start_ns;
}

static int file_meta(struct source *s, struct snapshot_meta *out, bool stream, char *err,
		     size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (snapshot_meta_copy(out, &FS(s)->meta))
		return err_set(err, errlen, -ENOMEM, "out of memory");
	return 0;
}

static const struct snapshot_meta *file_recorded_meta(const struct source *s)
{
	return &FS(s)->meta;
}

static const char *file_tracer(const struct source *s)
{
	const char *t = FS(s)->tracer;

	return t ? t : "";
}

static const char *file_instance(const struct source *s)
{
	return "";
}

static uint64_t file_end_rt(const struct source *s)
{
	const struct file_src *l = FS(s);

	return atomic_load(&l->done) ? l->end_rt : 0;
}

/* The BPF statistics a .ktop stream carries (its BPF blocks), once the first came. */
static struct bpfstats *file_bpf(const struct source *s, const char **why)
{
	const struct file_src *l = FS(s);

	if (why)
		*why = "BPF statistics: not in this recording (a stream from ktop --stream "
		       "carries them)";
	return l->r ? __atomic_load_n(&l->r->bpf, __ATOMIC_ACQUIRE) : NULL;
}

/* The in-kernel aggregations' results a .ktop carries (its AGG blocks). */
static struct agg_set *file_recorded_agg(const struct source *s)
{
	const struct file_src *l = FS(s);

	return l->r ? __atomic_load_n(&l->r->agg, __ATOMIC_ACQUIRE) : NULL;
}

static const struct source_ops source_file = {
	.name		= "file",
	.close		= file_close,
	.flags		= file_flags,
	.describe	= file_describe,
	.start_ns	= file_start_ns,
	.feed_end	= file_feed_end,
	.meta		= file_meta,
	.recorded_meta	= file_recorded_meta,
	.recorded_agg	= file_recorded_agg,
	.tracer		= file_tracer,
	.instance	= file_instance,
	.status		= file_status,
	.wait		= file_wait,
	.end_rt		= file_end_rt,
	.bpf		= file_bpf,
};
