// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The app's side of snapshots (src/snapshot.h, src/export.h): opening one
 * instead of tracing (-i FILE, -i -, --demo), saving the store (-o FILE, the
 * TUI's `s`), and the live stream (--stream).
 *
 * A .ktop file or stream is read by a loader thread: the store exists once
 * the file header and META block are in, so the UI draws its first frame
 * while the rest of the blocks arrive; the loader writes app->wake_fd after
 * blocks, like the live collectors. trace.dat files are loaded whole first
 * (libtracecmd reads them in one pass).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <event-parse.h>

#include "app.h"
#include "clock.h"
#include "export.h"
#include "folded.h"
#include "intern.h"
#include "session.h"
#include "snapshot.h"
#include "store.h"

#define LOADER_WAKE_NS	50000000ull	/* wake the UI at most every 50 ms while loading */
#define STREAM_FLUSH_NS	100000000ull	/* --stream: one flush every 100 ms */

struct app_loader {
	pthread_t		th;
	struct snapshot_reader	*r;
	int			fd;
	bool			close_fd;
	bool			started;
	bool			end_signal;	/* batch: exit at the stream's end */
	int			wake_fd;
	atomic_bool		done;
	atomic_bool		stop;
	int			ret;
	uint64_t		end_rt;		/* CLOCK_REALTIME ns when it finished */
	char			name[256];
	char			err[512];
};

static int snap_err(char *err, size_t errlen, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int snap_err(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return ret;
}

static void loader_wake(int fd)
{
	uint64_t one = 1;

	if (fd >= 0 && write(fd, &one, sizeof(one)) < 0)
		return;		/* the counter is full: the reader is awake anyway */
}

static void *loader_main(void *arg)
{
	struct app_loader *l = arg;
	uint64_t last = app_now_ns();
	int ret;

	while (!atomic_load(&l->stop)) {
		uint64_t now;

		ret = snapshot_reader_next(l->r);
		if (ret <= 0) {
			l->ret = ret;
			if (ret < 0)
				snprintf(l->err, sizeof(l->err), "%s",
					 snapshot_reader_error(l->r));
			break;
		}
		now = app_now_ns();
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

bool app_loading(const struct app *a)
{
	return a->loader && !atomic_load(&a->loader->done);
}

uint64_t app_snapshot_end(const struct app *a)
{
	return app_loading(a) ? 0 : UINT64_MAX - 1;
}

int app_loader_wait(struct app *a, char *err, size_t errlen)
{
	struct app_loader *l = a->loader;

	if (!l || !l->started)
		return 0;
	pthread_join(l->th, NULL);
	l->started = false;
	if (l->ret < 0)
		return snap_err(err, errlen, l->ret, "%s", l->err);
	return 0;
}

int app_loader_status(const struct app *a, char *err, size_t errlen)
{
	const struct app_loader *l = a->loader;

	if (!l || !atomic_load(&l->done) || l->ret >= 0)
		return 0;
	snprintf(err, errlen, "%s", l->err);
	return l->ret;
}

uint64_t app_loader_end_rt(const struct app *a)
{
	const struct app_loader *l = a->loader;

	return l && atomic_load(&l->done) ? l->end_rt : 0;
}

void app_snapshot_stop(struct app *a)
{
	struct app_loader *l = a->loader;

	if (l) {
		atomic_store(&l->stop, true);
		/*
		 * A file's loader sees the flag after its block; a stream's may
		 * sit in read() on a quiet pipe: after 200 ms it is cancelled
		 * there (read is a cancellation point; the reader is freed below).
		 */
		for (int i = 0; l->started && i < 20 && !atomic_load(&l->done); i++)
			usleep(10000);
		if (l->started && !atomic_load(&l->done))
			pthread_cancel(l->th);
		if (l->started)
			pthread_join(l->th, NULL);
		/* the store outlives the reader: app_stop frees it */
		if (l->r && a->st == snapshot_reader_store(l->r))
			snapshot_reader_take_store(l->r);
		snapshot_reader_free(l->r);
		if (l->close_fd)
			close(l->fd);
		free(l);
		a->loader = NULL;
	}
	if (a->meta) {
		snapshot_meta_free(a->meta);
		free(a->meta);
		a->meta = NULL;
	}
}

/* What the batch header and the UI say about the snapshot. */
static void snap_describe(struct app *a, const char *name)
{
	const struct snapshot_meta *m = a->meta;

	snprintf(a->mode_why, sizeof(a->mode_why), "snapshot %s (%s%s%s%s%s, tracer %s)", name,
		 m->source[0] ? m->source : "?", m->release[0] ? ", kernel " : "", m->release,
		 m->hostname[0] ? ", host " : "", m->hostname, m->tracer[0] ? m->tracer : "nop");
	if (m->tracer[0])
		a->opts.so.tracer = m->tracer;
}

static int snap_common_start(struct app *a)
{
	a->sess = NULL;
	a->cons = NULL;
	a->syms = NULL;
	a->dc = NULL;
	a->bpf = NULL;
	a->loader = NULL;
	a->meta = NULL;
	snprintf(a->bpf_why, sizeof(a->bpf_why), "BPF statistics: not in a snapshot");
	a->start_ns = app_now_ns();
	a->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (a->wake_fd < 0)
		return -errno;
	a->meta = calloc(1, sizeof(*a->meta));
	return a->meta ? 0 : -ENOMEM;
}

int app_open_snapshot(struct app *a, const char *path, int in_fd, int flags, char *err,
		      size_t errlen)
{
	bool is_stdin = !strcmp(path, "-");
	struct app_loader *l;
	uint8_t head[16];
	ssize_t n = 0;
	int ret, fd;

	err[0] = 0;
	a->st = NULL;
	a->live = false;
	ret = snap_common_start(a);
	if (ret)
		return snap_err(err, errlen, ret, "cannot start: %s", strerror(-ret));

	if (is_stdin) {
		struct pollfd pfd[2];

		fd = in_fd >= 0 ? in_fd : STDIN_FILENO;
		/* a stream may take a while to begin (ssh): a signal must still end ktop */
		pfd[0] = (struct pollfd){ .fd = fd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = session_signal_fd(), .events = POLLIN };
		while (poll(pfd, 2, -1) < 0 && errno == EINTR)
			;
		if (session_signal_pending())
			return snap_err(err, errlen, -EINTR,
					"standard input: interrupted before the stream began");
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return snap_err(err, errlen, -errno, "%s: %s", path, strerror(errno));
		n = pread(fd, head, sizeof(head), 0);
		if (n < 0) {
			ret = snap_err(err, errlen, -errno, "%s: %s", path, strerror(errno));
			close(fd);
			return ret;
		}
		if (snapshot_detect(head, (size_t)n) != SNAPSHOT_KIND_KTOP) {
			/* trace.dat, or bad input: snapshot_load says which, naming the file */
			close(fd);
			ret = snapshot_load(path, a->opts.memory, &a->st, a->meta, err, errlen);
			if (ret)
				return ret;
			snap_describe(a, path);
			return 0;
		}
	}

	l = calloc(1, sizeof(*l));
	if (!l) {
		if (!is_stdin)
			close(fd);
		return snap_err(err, errlen, -ENOMEM, "out of memory");
	}
	l->fd = fd;
	l->close_fd = !is_stdin;
	l->wake_fd = a->wake_fd;
	l->end_signal = is_stdin && (flags & APP_SNAP_END_SIGNAL);
	snprintf(l->name, sizeof(l->name), "%s", is_stdin ? "standard input" : path);
	a->loader = l;
	l->r = snapshot_reader_new(fd, l->name, a->opts.memory, err, errlen);
	if (!l->r)
		return errno ? -errno : -EBADMSG;
	a->st = snapshot_reader_store(l->r);
	a->start_ns = app_now_ns();	/* a stream's header may have kept us waiting */
	/* a copy: the reader's meta stays the reader's */
	{
		const struct snapshot_meta *m = snapshot_reader_meta(l->r);

		memcpy(a->meta->release, m->release, sizeof(m->release));
		memcpy(a->meta->hostname, m->hostname, sizeof(m->hostname));
		memcpy(a->meta->tracer, m->tracer, sizeof(m->tracer));
		memcpy(a->meta->clock, m->clock, sizeof(m->clock));
		memcpy(a->meta->source, m->source, sizeof(m->source));
		a->meta->ncpus = m->ncpus;
		a->meta->page_size = m->page_size;
		a->meta->version = m->version;
	}
	snap_describe(a, is_stdin ? "stream on standard input" : path);
	/* a stream is live data: the panes follow it as it grows */
	a->live = is_stdin;

	if (flags & APP_SNAP_SYNC) {
		for (;;) {
			ret = snapshot_reader_next(l->r);
			if (ret <= 0)
				break;
		}
		atomic_store(&l->done, true);
		if (ret < 0)
			return snap_err(err, errlen, ret, "%s", snapshot_reader_error(l->r));
		return 0;
	}
	ret = pthread_create(&l->th, NULL, loader_main, l);
	if (ret)
		return snap_err(err, errlen, -ret, "cannot start the loader thread: %s",
				strerror(ret));
	l->started = true;
	return 0;
}

/* ---- metadata of a live session ---------------------------------------- */

static int str_cmp(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The kallsyms lines whose names are strings of @st (all when @st is NULL). */
static char *snap_kallsyms(struct store *st)
{
	struct intern *in = st ? store_strings(st) : NULL;
	size_t len = 0, cap = 1 << 16, nstr = 0;
	const char **names = NULL;
	char line[512], *out;
	FILE *fp;

	fp = fopen("/proc/kallsyms", "r");
	if (!fp)
		return NULL;
	out = malloc(cap);
	if (!out)
		goto out_close;
	out[0] = 0;
	if (in) {
		uint32_t n = intern_count(in);

		names = calloc(n ? n : 1, sizeof(*names));
		if (!names) {
			free(out);
			out = NULL;
			goto out_close;
		}
		for (uint32_t id = 1; id < n; id++) {
			const char *s = intern_str(in, id);

			if (s && *s)
				names[nstr++] = s;
		}
		qsort(names, nstr, sizeof(*names), str_cmp);
	}
	while (fgets(line, sizeof(line), fp)) {
		size_t l = strlen(line);

		if (names) {
			char name[256], *key = name;

			if (sscanf(line, "%*s %*s %255s", name) != 1 ||
			    !bsearch(&key, names, nstr, sizeof(*names), str_cmp))
				continue;
		}
		if (len + l + 1 > cap) {
			char *p = realloc(out, cap * 2);

			if (!p)
				break;
			out = p;
			cap *= 2;
		}
		memcpy(out + len, line, l + 1);
		len += l;
	}
out_close:
	free(names);
	fclose(fp);
	return out;
}

/* The "name: X" line of an event format text. */
static bool snap_format_name(const char *text, char *name, size_t len)
{
	const char *p = strstr(text, "name: ");

	if (!p)
		return false;
	p += 6;
	snprintf(name, len, "%.*s", (int)strcspn(p, "\n"), p);
	return true;
}

/*
 * --stream: the formats of the session's events (its tep holds the systems it
 * enabled), read from tracefs, besides those load_dir already kept.
 */
static void snap_tep_formats(struct app *a, struct snapshot_meta *m)
{
	struct tep_handle *tep = a->sess ? session_tep(a->sess) : NULL;
	struct tep_event **evs;
	char path[1024];
	int n;

	if (!tep)
		return;
	evs = tep_list_events(tep, TEP_EVENT_SORT_SYSTEM);
	n = tep_get_events_count(tep);
	for (int i = 0; evs && i < n && evs[i]; i++) {
		char name[256];
		bool have = false;
		char *text;
		FILE *fp;
		size_t len;

		for (size_t f = 0; f < m->nformats && !have; f++)
			have = !strcmp(m->formats[f].system, evs[i]->system) &&
			       snap_format_name(m->formats[f].text, name, sizeof(name)) &&
			       !strcmp(name, evs[i]->name);
		if (have)
			continue;
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", a->ft.tracefs,
			 evs[i]->system, evs[i]->name);
		fp = fopen(path, "r");
		if (!fp)
			continue;
		text = calloc(1, 65536);
		len = text ? fread(text, 1, 65535, fp) : 0;
		fclose(fp);
		if (len)
			snapshot_meta_add_format(m, evs[i]->system, text);
		free(text);
	}
}

/*
 * Fill @m for the live session: uname, tracer, the event formats from tracefs
 * (only those of the store's types when @only is set, else those of the
 * session's systems) and, for a file, the kallsyms lines of its symbols.
 */
static int snap_live_meta(struct app *a, struct snapshot_meta *m, struct store *only)
{
	struct utsname un;
	const char *t = a->sess ? session_tracer(a->sess) : NULL;
	int ret;

	memset(m, 0, sizeof(*m));
	if (!uname(&un)) {
		snprintf(m->release, sizeof(m->release), "%s", un.release);
		snprintf(m->hostname, sizeof(m->hostname), "%s", un.nodename);
	}
	snprintf(m->tracer, sizeof(m->tracer), "%s", t && *t ? t : "nop");
	m->ncpus = store_ncpus(a->st);
	m->features = strdup(a->mode_why);
	if (only) {
		m->kallsyms = snap_kallsyms(only);
		ret = snapshot_meta_load_dir(m, a->ft.tracefs, only);
		/* the probes removed since: their events are in the store */
		app_probe_formats(a, m);
		return ret;
	}
	/* a stream: no kallsyms (5 MB), the formats of what the session enabled */
	ret = snapshot_meta_load_dir(m, a->ft.tracefs, a->st);
	snap_tep_formats(a, m);
	app_probe_formats(a, m);
	return m->nformats ? 0 : ret;
}

int app_save(struct app *a, const char *path, int fmt, uint64_t t0, uint64_t t1,
	     unsigned int file_flags, char *err, size_t errlen)
{
	struct export_opts eo = { .t0 = t0, .t1 = t1, .csv_key = STORE_KEY_TYPE,
				  .file_flags = file_flags,
				  .view = app_view(a) };
	struct snapshot_meta lm;
	const struct snapshot_meta *m = a->meta;
	int ret;

	eo.folded = a->opts.folded ? folded_source_from_name(a->opts.folded) : FOLDED_AUTO;
	app_offcpu_poll(a);	/* the off-CPU totals up to now, with --offcpu */

	if (fmt < 0)
		fmt = export_format_from_name(path);
	if (fmt < 0)
		fmt = EXPORT_KTOP;
	memset(&lm, 0, sizeof(lm));
	if (a->sess || !m) {
		ret = snap_live_meta(a, &lm, a->st);
		if (ret && (fmt == EXPORT_TRACEDAT || fmt == EXPORT_TEXT)) {
			snapshot_meta_free(&lm);
			return snap_err(err, errlen, ret, "%s: cannot read the event formats "
					"from %s: %s", path, a->ft.tracefs, strerror(-ret));
		}
		m = &lm;
	} else if (a->loader && a->loader->r) {
		/* the whole META block (formats, kallsyms) was read before the loader started */
		m = snapshot_reader_meta(a->loader->r);
	}
	ret = export_write((enum export_format)fmt, path, a->st, m, &eo, NULL, err, errlen);
	snapshot_meta_free(&lm);
	return ret;
}

/* ---- --stream -------------------------------------------------------------- */

int app_stream(struct app *a, int fd, uint64_t max_bytes_per_sec, FILE *log)
{
	struct snapshot_write_opts wo = { .max_bytes_per_sec = max_bytes_per_sec };
	struct snapshot_writer_stats ws;
	struct snapshot_writer *w;
	struct snapshot_meta m;
	uint64_t end = 0, offcpu_ns = 0;
	char err[512] = "";
	int ret, werr, status = 0;

	snap_live_meta(a, &m, NULL);
	w = snapshot_writer_new(fd, "standard output", a->st, &m, &wo, err, sizeof(err));
	werr = errno;
	snapshot_meta_free(&m);
	if (!w) {
		/* the reader went away, or took nothing of the header as we stop: quietly */
		if (werr == EPIPE || werr == EINTR)
			return 0;
		fprintf(log, "ktop: --stream: %s\n", err);
		return 1;
	}
	if (a->opts.duration > 0)
		end = a->start_ns + (uint64_t)(a->opts.duration * 1e9);
	for (;;) {
		uint64_t now = app_now_ns(), v;
		int ms = (int)(STREAM_FLUSH_NS / 1000000);
		/*
		 * The output too: a reader that went away (the view quit, ssh was
		 * killed) shows as POLLERR/POLLHUP even while nothing is written, as
		 * when -e picked a rare event; otherwise the far side would trace on.
		 */
		struct pollfd pfd[2] = {
			{ .fd = session_signal_fd(), .events = POLLIN },
			{ .fd = fd, .events = 0 },
		};

		if (session_signal_pending())
			break;
		if (end && now >= end)
			break;
		if (poll(pfd, 2, ms) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents & (POLLERR | POLLHUP)) {
			ret = -EPIPE;
			goto out;	/* the reader went away: quietly, as on EPIPE */
		}
		if (a->wake_fd >= 0 && read(a->wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			break;
		/* the off-CPU totals go out as a whole set: once a second is enough */
		if (a->offcpu && now - offcpu_ns >= 1000000000ull) {
			app_offcpu_poll(a);
			offcpu_ns = now;
		}
		ret = snapshot_writer_flush(w, a->st);
		if (ret == -EPIPE || ret == -EINTR)
			goto out;	/* the reader went away, or took nothing as we stop */
		if (ret) {
			fprintf(log, "ktop: --stream: %s\n", snapshot_writer_error(w));
			status = 1;
			goto out;
		}
	}
	/* a signal or the end of --duration: a proper end, so the reader sees a whole file */
	app_offcpu_poll(a);
	ret = snapshot_writer_flush(w, a->st);
	if (!ret)
		ret = snapshot_writer_finish(w);
out:
	snapshot_writer_stats(w, &ws);
	/* not when the reader stopped reading: stderr may be the same full pipe */
	if ((ws.dropped || ws.skipped) && ret != -EINTR)
		fprintf(log, "ktop: --stream: %llu events sent, %llu left out for the bandwidth "
			"bound, %llu evicted before they could be sent\n",
			(unsigned long long)ws.events, (unsigned long long)ws.dropped,
			(unsigned long long)ws.skipped);
	snapshot_writer_free(w);
	return status;
}
