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
#include "source/source.h"
#include "store/store.h"

#define STREAM_FLUSH_NS	100000000ull	/* --stream: one flush every 100 ms */

/* Start @src; on failure everything it began is undone. */
static int app_start_source(struct app *a, const struct source_ops *src,
			    const struct source_args *args, char *err, size_t errlen)
{
	int ret;

	err[0] = 0;
	a->st = NULL;
	a->wake_fd = -1;
	a->bpf = NULL;
	a->bpf_why[0] = 0;
	a->ssyms = NULL;
	a->offcpu = NULL;
	a->offcpu_why[0] = 0;
	a->src = src;
	a->src_priv = NULL;
	ret = src->start(a, args, err, errlen);
	if (ret && !err[0])
		err_set(err, errlen, ret, "cannot start: %s", strerror(-ret));
	if (ret && src == &source_live)
		app_stop(a);	/* the kernel as it was; a recording's caller stops it */
	return ret;
}

int app_start(struct app *a, char *err, size_t errlen)
{
	return app_start_source(a, &source_live, NULL, err, errlen);
}

int app_open_snapshot(struct app *a, const char *path, int in_fd, int flags, char *err,
		      size_t errlen)
{
	struct source_args args = { .path = path, .fd = in_fd, .flags = flags };

	return app_start_source(a, &source_file, &args, err, errlen);
}

void app_stop(struct app *a)
{
	/* the recorder reads the store and acts on the source: before either goes */
	app_recorder_stop(a);
	/* the source writes the store: it stops first */
	if (a->src && a->src->stop)
		a->src->stop(a);
	app_view_stop(a);
	store_free(a->st);
	a->st = NULL;
	if (a->wake_fd >= 0)
		close(a->wake_fd);
	a->wake_fd = -1;
}

unsigned int app_flags(const struct app *a)
{
	return a->src && a->src->flags ? a->src->flags(a) : 0;
}

struct session *app_session(const struct app *a)
{
	return a->src && a->src->session ? a->src->session(a) : NULL;
}

struct consumer *app_consumer(const struct app *a)
{
	return a->src && a->src->consumer ? a->src->consumer(a) : NULL;
}

const char *app_instance(const struct app *a)
{
	return a->src && a->src->instance ? a->src->instance(a) : "";
}

const struct snapshot_meta *app_recording_meta(const struct app *a)
{
	return source_file_meta(a);
}

const char *app_tracer(const struct app *a)
{
	const char *t;

	if (a->src && a->src->tracer)
		return a->src->tracer(a);
	t = a->opts.so.tracer;
	return t ? t : "";
}

bool app_loading(const struct app *a)
{
	char err[8];
	bool loading = false;

	if (a->src && a->src->status)
		a->src->status(a, &loading, err, sizeof(err));
	return loading;
}

int app_loader_status(const struct app *a, char *err, size_t errlen)
{
	bool loading;

	return a->src && a->src->status ? a->src->status(a, &loading, err, errlen) : 0;
}

int app_loader_wait(struct app *a, char *err, size_t errlen)
{
	return a->src && a->src->wait ? a->src->wait(a, err, errlen) : 0;
}

uint64_t app_snapshot_end(const struct app *a)
{
	return app_loading(a) ? 0 : UINT64_MAX - 1;
}

uint64_t app_feed_end(const struct app *a, uint64_t lag_ns)
{
	if (!a->src || !a->src->feed_end)
		return app_snapshot_end(a);
	return a->src->feed_end(a, lag_ns);
}

/* ---- actions on the program ------------------------------------------------------- */

int app_switch_tracer(struct app *a, const char *tracer, char *err, size_t errlen)
{
	err[0] = '\0';
	if (!a->src || !a->src->switch_tracer)
		return err_set(err, errlen, -ENODEV, "not tracing live: no tracer to switch");
	return a->src->switch_tracer(a, tracer, err, errlen);
}

int app_mark(struct app *a, const char *text)
{
	return a->src && a->src->mark ? a->src->mark(a, text) : -ENODEV;
}

int app_set_recording(struct app *a, bool on)
{
	return a->src && a->src->set_recording ? a->src->set_recording(a, on) : -ENODEV;
}

void app_drain(struct app *a)
{
	if (a->src && a->src->drain)
		a->src->drain(a);
}

const struct ftrace_filter *app_filter(struct app *a, const char **why)
{
	static const char none[] = "viewing a recording: there is no live kernel to filter";

	if (a->src && a->src->filter)
		return a->src->filter(a, why);
	if (why)
		*why = none;
	return NULL;
}

int app_filter_current(struct app *a, struct funcfilter_set *out)
{
	return a->src && a->src->filter_current ? a->src->filter_current(a, out) : -ENODEV;
}

int app_filter_apply(struct app *a, const char *line, struct ftrace_filter_result *res)
{
	return a->src && a->src->filter_apply ? a->src->filter_apply(a, line, res) : -ENODEV;
}

int app_filter_undo(struct app *a, bool redo, struct ftrace_filter_result *res)
{
	return a->src && a->src->filter_undo ? a->src->filter_undo(a, redo, res) : -ENODEV;
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
	const struct ftrace_filter *f = a->src && a->src->filter_held ? a->src->filter_held(a) :
					NULL;
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
	memset(&m, 0, sizeof(m));
	ret = a->src && a->src->meta ? a->src->meta(a, &m, false, err, errlen) : 0;
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

	if (!a->bpf)
		return 0;
	bpfstats_get_status(a->bpf, &st);
	if (st.ticks == *ticks || bpfstats_raw_get(a->bpf, *seq, &raw))
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
	return a->bpf ? a->bpf : source_file_bpf(a);
}

const char *app_bpf_why(const struct app *a)
{
	return a->bpf_why;
}

unsigned int app_events(const struct app *a, const char *const **events)
{
	*events = a->opts.so.events;
	return a->opts.so.nevents;
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

	memset(&m, 0, sizeof(m));
	if (a->src && a->src->meta)
		a->src->meta(a, &m, true, err, sizeof(err));
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
		if (a->offcpu && now - offcpu_ns >= 1000000000ull) {
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
