// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The running program's entry points (app.h), whatever the source of the
 * events: starting one (the live kernel or a recording, src/source/source.h),
 * stopping it, the program's actions (passed to the source, refused with a
 * message where it has no kernel), saving the store in any format
 * (src/formats/) and --stream.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "agg/agg.h"
#include "app.h"
#include "bpfstats/bpfstats.h"
#include "lib/clock.h"
#include "lib/err.h"
#include "formats/format.h"
#include "formats/ktop.h"
#include "formats/folded.h"
#include "funcfilter/ftrace_filter.h"
#include "kernel/session.h"
#include "source/remote.h"
#include "source/source.h"
#include "store/store.h"

#define STREAM_FLUSH_NS	100000000ull	/* --stream: one flush every 100 ms */

/*
 * What every start has: the eventfd the source writes, no store yet. Return:
 * 0 or a negative errno with the message.
 */
static int app_sink(struct app *a, struct source_sink *sink, char *err, size_t errlen)
{
	err[0] = 0;
	a->st = NULL;
	a->src = NULL;
	a->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (a->wake_fd < 0)
		return err_set(err, errlen, -errno, "eventfd: %s", strerror(errno));
	*sink = (struct source_sink){ .wake_fd = a->wake_fd };
	return 0;
}

/* What the source said at its open, for everything that reads struct app. */
static int app_started(struct app *a, const struct source_sink *sink, int ret, char *err,
		       size_t errlen)
{
	const struct source_ops *ops = a->src ? a->src->ops : NULL;

	a->st = sink->st;
	if (ret && !err[0])
		err_set(err, errlen, ret, "cannot start: %s", strerror(-ret));
	if (ret)
		return ret;
	if (ops->features)
		a->ft = *ops->features(a->src);
	snprintf(a->mode_why, sizeof(a->mode_why), "%s", ops->describe(a->src));
	a->start_ns = ops->start_ns(a->src);
	return 0;
}

/*
 * What the app makes in the kernel before the live session opens: the
 * in-kernel aggregations (all or none, so a refused spec leaves the kernel as
 * it was).
 */
static int app_before_session(void *arg, const struct features *ft, char *err, size_t errlen)
{
	struct app *a = arg;

	a->ft = *ft;
	return app_agg_start(a, err, errlen);
}

int app_start(struct app *a, char *err, size_t errlen)
{
	const struct app_opts *o = &a->opts;
	struct source_live_args in = {
		.so = &o->so, .mem_limit = o->memory,
		.bpf_interval = o->batch && o->interval > 0 ? o->interval : 0.5,
		.no_bpf = o->no_bpf, .bpf_syscalls = o->bpf_syscalls, .offcpu = o->offcpu,
		.net = o->net != 0, .net_probe = o->net == APP_NET_PROBE,
		.probes = o->probes, .nprobes = o->nprobes,
		.before_session = app_before_session, .before_arg = a,
	};
	struct source_sink sink;
	int ret;

	ret = app_sink(a, &sink, err, errlen);
	if (!ret)
		ret = source_live_open(&in, &sink, &a->src, err, errlen);
	ret = app_started(a, &sink, ret, err, errlen);
	if (ret)
		app_stop(a);	/* the kernel as it was; a recording's caller stops it */
	return ret;
}

int app_open_snapshot(struct app *a, const char *path, int in_fd, int flags, char *err,
		      size_t errlen)
{
	struct source_file_args in = {
		.path = path, .fd = in_fd, .mem_limit = a->opts.memory,
		.sync = flags & APP_SNAP_SYNC, .end_signal = flags & APP_SNAP_END_SIGNAL,
		.tracer = a->opts.so.tracer,
		.remote = a->remote ? remote_dest(a->remote) : NULL,
	};
	struct source_sink sink;
	int ret;

	ret = app_sink(a, &sink, err, errlen);
	if (!ret)
		ret = source_file_open(&in, &sink, &a->src, err, errlen);
	return app_started(a, &sink, ret, err, errlen);
}

void app_stop(struct app *a)
{
	/* the recorder reads the store and acts on the source: before either goes */
	app_recorder_stop(a);
	/* the measures live in the kernel beside the session: they go before it */
	app_agg_stop(a);
	/* the source writes the store: it stops first */
	if (a->src)
		a->src->ops->close(a->src);
	a->src = NULL;
	app_view_stop(a);
	store_free(a->st);
	a->st = NULL;
	if (a->wake_fd >= 0)
		close(a->wake_fd);
	a->wake_fd = -1;
}

/* @a's source's operation @op, or NULL (no source, or it cannot do it). */
#define SRC_OP(a, op)	((a)->src ? (a)->src->ops->op : NULL)

unsigned int app_flags(const struct app *a)
{
	return SRC_OP(a, flags) ? a->src->ops->flags(a->src) : 0;
}

struct session *app_session(const struct app *a)
{
	return SRC_OP(a, session) ? a->src->ops->session(a->src) : NULL;
}

struct consumer *app_consumer(const struct app *a)
{
	return SRC_OP(a, consumer) ? a->src->ops->consumer(a->src) : NULL;
}

const char *app_instance(const struct app *a)
{
	return SRC_OP(a, instance) ? a->src->ops->instance(a->src) : "";
}

const struct snapshot_meta *app_recording_meta(const struct app *a)
{
	return SRC_OP(a, recorded_meta) ? a->src->ops->recorded_meta(a->src) : NULL;
}

const char *app_tracer(const struct app *a)
{
	const char *t;

	if (SRC_OP(a, tracer))
		return a->src->ops->tracer(a->src);
	t = a->opts.so.tracer;
	return t ? t : "";
}

unsigned int app_events(const struct app *a, const char *const **events)
{
	if (SRC_OP(a, events))
		return a->src->ops->events(a->src, events);
	*events = a->opts.so.events;
	return a->opts.so.nevents;
}

uint64_t app_end_rt(const struct app *a)
{
	return SRC_OP(a, end_rt) ? a->src->ops->end_rt(a->src) : 0;
}

bool app_loading(const struct app *a)
{
	char err[8];
	bool loading = false;

	if (SRC_OP(a, status))
		a->src->ops->status(a->src, &loading, err, sizeof(err));
	return loading;
}

int app_loader_status(const struct app *a, char *err, size_t errlen)
{
	bool loading;

	return SRC_OP(a, status) ? a->src->ops->status(a->src, &loading, err, errlen) : 0;
}

int app_loader_wait(struct app *a, char *err, size_t errlen)
{
	return SRC_OP(a, wait) ? a->src->ops->wait(a->src, err, errlen) : 0;
}

uint64_t app_snapshot_end(const struct app *a)
{
	return app_loading(a) ? 0 : UINT64_MAX - 1;
}

uint64_t app_feed_end(const struct app *a, uint64_t lag_ns)
{
	if (!SRC_OP(a, feed_end))
		return app_snapshot_end(a);
	return a->src->ops->feed_end(a->src, lag_ns);
}

/* ---- actions on the program ------------------------------------------------------- */

int app_switch_tracer(struct app *a, const char *tracer, char *err, size_t errlen)
{
	err[0] = '\0';
	if (!SRC_OP(a, switch_tracer))
		return err_set(err, errlen, -ENODEV, "not tracing live: no tracer to switch");
	return a->src->ops->switch_tracer(a->src, tracer, err, errlen);
}

int app_mark(struct app *a, const char *text)
{
	return SRC_OP(a, mark) ? a->src->ops->mark(a->src, text) : -ENODEV;
}

int app_set_recording(struct app *a, bool on)
{
	return SRC_OP(a, set_recording) ? a->src->ops->set_recording(a->src, on) : -ENODEV;
}

void app_drain(struct app *a)
{
	if (SRC_OP(a, drain))
		a->src->ops->drain(a->src);
}

const struct ftrace_filter *app_filter(struct app *a, const char **why)
{
	static const char none[] = "viewing a recording: there is no live kernel to filter";

	if (SRC_OP(a, filter))
		return a->src->ops->filter(a->src, why);
	if (why)
		*why = none;
	return NULL;
}

int app_filter_current(struct app *a, struct funcfilter_set *out)
{
	return SRC_OP(a, filter_current) ? a->src->ops->filter_current(a->src, out) : -ENODEV;
}

int app_filter_apply(struct app *a, const char *line, struct ftrace_filter_result *res)
{
	return SRC_OP(a, filter_apply) ? a->src->ops->filter_apply(a->src, line, res) : -ENODEV;
}

int app_filter_undo(struct app *a, bool redo, struct ftrace_filter_result *res)
{
	return SRC_OP(a, filter_undo) ? a->src->ops->filter_undo(a->src, redo, res) : -ENODEV;
}

/* Append "; LABEL a b c" for the @n command-line items @v to @buf. */
static size_t desc_items(char *buf, size_t len, size_t at, const char *label,
			 const char *const *v, unsigned int n)
{
	for (unsigned int i = 0; i < n && at + 1 < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s%s", i ? " " : at ? "; " : "",
				       i ? "" : label, v[i]);
	return at < len ? at : len - 1;
}

const char *app_filter_desc(const struct app *a, char *buf, size_t len)
{
	const struct ftrace_filter *f = SRC_OP(a, filter_held) ?
					a->src->ops->filter_held(a->src) : NULL;
	const struct session_opts *o = &a->opts.so;
	unsigned int changed;
	size_t at;

	ftrace_filter_summary(f, buf, len, &changed);
	at = strlen(buf);
	if (!(changed & (1u << FUNCFILTER_T_FILTER)))
		at = desc_items(buf, len, at, "functions ", o->filters,
				o->nfilters);
	if (!(changed & (1u << FUNCFILTER_T_NOTRACE)))
		at = desc_items(buf, len, at, "notrace ", o->notrace,
				o->nnotrace);
	if (!(changed & (1u << FUNCFILTER_T_GRAPH)))
		at = desc_items(buf, len, at, "graph ", o->graph_funcs,
				o->ngraph_funcs);
	for (unsigned int i = 0; !(changed & FTRACE_FILTER_PIDS) && i < o->npids && at + 1 < len;
	     i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%d", i ? " " : at ? "; pid:" : "pid:",
				       o->pids[i]);
	if (!buf[0])
		snprintf(buf, len, "none");
	return buf;
}

/* ---- saving ------------------------------------------------------------------------ */

int app_meta(struct app *a, struct snapshot_meta *out, bool stream, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	return SRC_OP(a, meta) ? a->src->ops->meta(a->src, out, stream, err, errlen) : 0;
}

int app_save(struct app *a, const char *path, int fmt, uint64_t t0, uint64_t t1,
	     unsigned int file_flags, char *err, size_t errlen)
{
	struct export_opts eo = { .t0 = t0, .t1 = t1, .csv_key = STORE_KEY_TYPE,
				  .file_flags = file_flags, .view = app_view(a),
				  .dat_version = a->opts.dat_version,
				  .dat_compress = a->opts.dat_compress };
	const struct format_out out = { .path = path, .fd = -1 };
	const struct format_ops *f;
	struct snapshot_meta m;
	int ret;

	eo.folded = a->opts.folded ? folded_source_from_name(a->opts.folded) : FOLDED_AUTO;
	app_offcpu_poll(a);	/* the off-CPU totals up to now, with --offcpu */
	/* a .ktop carries the aggregations' figures (format version 4), polled now */
	eo.agg = app_agg(a);
	if (eo.agg)
		agg_set_poll(eo.agg);
	f = fmt >= 0 ? format_by_id((enum format_id)fmt) : format_by_name(path);
	if (!f)
		f = &format_ktop;
	ret = app_meta(a, &m, false, err, errlen);
	/* what a trace.dat or text needs: the formats; the other formats do without */
	if (ret && (f == &format_tracedat || f == &format_text)) {
		char why[512];

		snprintf(why, sizeof(why), "%s", err);
		snapshot_meta_free(&m);
		return err_set(err, errlen, ret, "%s: %s", path, why);
	}
	ret = format_save(f, &out, a->st, &m, &eo, NULL, err, errlen);
	snapshot_meta_free(&m);
	return ret;
}

/* ---- --stream -------------------------------------------------------------- */

/*
 * The BPF statistics after each of their polls (--stream): the reader's BPF
 * pane shows this machine's. Return: 0 or the writer's error.
 */
static int app_stream_bpf(struct app *a, struct ktop_writer *w, uint64_t *ticks,
			  uint64_t *seq)
{
	struct bpfstats_status st;
	struct bpfstats_raw raw;
	int ret;

	struct bpfstats *bpf = app_bpf(a);

	if (!bpf)
		return 0;
	bpfstats_get_status(bpf, &st);
	if (st.ticks == *ticks || bpfstats_raw_get(bpf, *seq, &raw))
		return 0;
	ret = ktop_writer_bpf(w, &raw);
	*ticks = st.ticks;
	if (raw.noutl)
		*seq = raw.outl[raw.noutl - 1].seq;
	bpfstats_raw_free(&raw);
	return ret;
}

struct bpfstats *app_bpf(const struct app *a)
{
	return SRC_OP(a, bpf) ? a->src->ops->bpf(a->src, NULL) : NULL;
}

const char *app_bpf_why(const struct app *a)
{
	const char *why = "";

	if (SRC_OP(a, bpf))
		a->src->ops->bpf(a->src, &why);
	return why;
}

int app_stream(struct app *a, int fd, uint64_t max_bytes_per_sec, FILE *log)
{
	struct ktop_write_opts wo = { .max_bytes_per_sec = max_bytes_per_sec,
				      .agg = app_agg(a) };
	struct ktop_writer_stats ws;
	struct ktop_writer *w;
	uint64_t end = 0, offcpu_ns = 0, bpf_ticks = 0, bpf_seq = 0, agg_ns = 0;
	struct snapshot_meta m;
	char err[512] = "";
	int ret, werr, status = 0;

	app_meta(a, &m, true, err, sizeof(err));
	w = ktop_writer_new(fd, "standard output", a->st, &m, &wo, err, sizeof(err));
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
		uint64_t now = clock_mono_ns(), v;
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
		if (app_offcpu(a) && now - offcpu_ns >= 1000000000ull) {
			app_offcpu_poll(a);
			offcpu_ns = now;
		}
		ret = ktop_writer_flush(w, a->st);
		if (!ret)
			ret = app_stream_bpf(a, w, &bpf_ticks, &bpf_seq);
		/* the aggregations' figures, as often as they are polled */
		if (!ret && wo.agg && now - agg_ns >= 1000000000ull) {
			ret = ktop_writer_agg(w, wo.agg);
			agg_ns = now;
		}
		if (ret == -EPIPE || ret == -EINTR)
			goto out;	/* the reader went away, or took nothing as we stop */
		if (ret) {
			fprintf(log, "ktop: --stream: %s\n", ktop_writer_error(w));
			status = 1;
			goto out;
		}
	}
	/* a signal or the end of --duration: a proper end, so the reader sees a whole file */
	app_offcpu_poll(a);
	ret = ktop_writer_flush(w, a->st);
	if (!ret && wo.agg) {
		agg_set_poll(wo.agg);
		ret = ktop_writer_agg(w, wo.agg);
	}
	if (!ret)
		ret = ktop_writer_finish(w);
out:
	ktop_writer_stats(w, &ws);
	/* not when the reader stopped reading: stderr may be the same full pipe */
	if ((ws.dropped || ws.skipped) && ret != -EINTR)
		fprintf(log, "ktop: --stream: %llu events sent, %llu left out for the bandwidth "
			"bound, %llu evicted before they could be sent\n",
			(unsigned long long)ws.events, (unsigned long long)ws.dropped,
			(unsigned long long)ws.skipped);
	ktop_writer_free(w);
	return status;
}
