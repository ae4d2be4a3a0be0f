// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The live source (src/source/source.h): the running kernel. Starting it probes the
 * kernel, picks what to trace, opens the session, the store, symbols,
 * decoders and readers; the program's actions (tracer switch, marks, the
 * function filter, recording on/off) act on the session.
 *
 * The order matters for the promise "on failure the kernel state is unchanged":
 * everything that only reads (probe, checks of the request) comes before
 * session_open, the first call that writes to tracefs, and every later
 * failure unwinds through session_close.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <tracefs.h>
#include <event-parse.h>

#include "app/app.h"
#include "bpfstats/bpfstats.h"
#include "lib/clock.h"
#include "ingest/consumer.h"
#include "lib/debug.h"
#include "ingest/decode.h"
#include "lib/err.h"
#include "lib/file.h"
#include "store/meta.h"
#include "funcfilter/ftrace_filter.h"
#include "lib/intern.h"
#include "lib/taskstate.h"
#include "probe/probe.h"
#include "probe/probe_btf.h"
#include "store/schema.h"
#include "source.h"
#include "source_live.h"
#include "store/stacks.h"
#include "store/store.h"
#include "kernel/symbols.h"
#include "lib/tuning.h"
#include "model/net.h"

/* What ktop traces when asked for nothing: scheduling, interrupts, syscalls. */
static const char *const default_events[] = { "sched", "irq", "raw_syscalls" };


static inline struct live_src *LS(const struct app *a)
{
	return a->src_priv;
}

#define app_err err_set

/* ---- actions on the kernel -------------------------------------------------------- */

static int live_switch_tracer(struct app *a, const char *tracer, char *err, size_t errlen)
{
	struct live_src *ls = LS(a);
	int ret, r2;

	if (!ls->sess || !ls->cons)
		return app_err(err, errlen, -ENODEV, "not tracing live: no tracer to switch");
	if (!strcmp(session_tracer(ls->sess), tracer))
		return 0;
	/* refused before the readers stop: same checks, nothing written */
	ret = session_switch_latency_tracer(ls->sess, session_tracer(ls->sess), err, errlen);
	if (ret)
		return ret;
	app_readers_stop(a);
	ret = session_switch_latency_tracer(ls->sess, tracer, err, errlen);
	r2 = app_readers_start(a, err, errlen);
	return r2 ? r2 : ret;
}

void app_readers_stop(struct app *a)
{
	struct live_src *ls = live_src(a);

	if (!ls)
		return;
	consumer_stop(ls->cons);
	ls->cons = NULL;
}

int app_readers_start(struct app *a, char *err, size_t errlen)
{
	struct live_src *ls = live_src(a);
	char first[256];
	int ret;

	if (!ls)
		return app_err(err, errlen, -ENODEV, "not tracing live: no trace buffers to read");
	ret = consumer_start(&ls->cons, ls->sess, a->st, ls->dc, a->wake_fd);
	if (!ret)
		return 0;
	snprintf(first, sizeof(first), "%s", err);
	ls->cons = NULL;
	return app_err(err, errlen, ret, "%s%scannot read the trace buffers again: %s; quit and "
		       "start ktop again", first, first[0] ? "; " : "", strerror(-ret));
}

static const char *live_tracer(const struct app *a)
{
	const char *t = LS(a)->sess ? session_tracer(LS(a)->sess) : a->opts.so.tracer;

	return t ? t : "";
}

static const char *live_instance(const struct app *a)
{
	return LS(a)->sess ? session_name(LS(a)->sess) : "";
}

static int live_mark(struct app *a, const char *text)
{
	struct live_src *ls = LS(a);
	size_t n = strlen(text);
	int fd, ret = 0;

	if (!ls->sess)
		return -ENODEV;
	fd = tracefs_instance_file_open(session_instance(ls->sess), "trace_marker", O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, text, n > 4000 ? 4000 : n) < 0)
		ret = -errno;
	close(fd);
	/* in the views at once, not when its page fills or the readers time out */
	if (!ret)
		consumer_flush(ls->cons);
	return ret;
}

static int live_set_recording(struct app *a, bool on)
{
	if (!LS(a)->sess)
		return -ENODEV;
	return on ? session_start(LS(a)->sess) : session_stop(LS(a)->sess);
}

/*
 * Stop recording, then wait (2 s at most) until the readers have drained what
 * the buffers held: the store stops growing and no CPU has a backlog or an
 * event held back for its stack (its stack is in what was read, or the stop
 * cut it: decoder_flush()).
 */
static void live_drain(struct app *a)
{
	struct live_src *ls = LS(a);
	uint64_t prev = UINT64_MAX;
	int still = 0;

	if (!ls->sess || !ls->cons)
		return;
	session_stop(ls->sess);
	consumer_flush(ls->cons);
	for (int i = 0; i < 40 && still < 3; i++) {	/* at most 2 s */
		struct store_stats ss;
		struct timespec ts = { .tv_nsec = 50 * 1000 * 1000 };
		uint64_t backlog = 0;
		bool held = false;

		nanosleep(&ts, NULL);
		store_get_stats(a->st, &ss);
		for (unsigned int cpu = 0; cpu < store_ncpus(a->st); cpu++) {
			struct consumer_cpu_stats cs;

			consumer_get_stats(ls->cons, cpu, &cs);
			backlog += cs.backlog_pages;
			/* an event held for its stack goes in a poll timeout after the stop */
			held |= cs.held;
		}
		still = ss.events == prev && !backlog && !held ? still + 1 : 0;
		prev = ss.events;
	}
}

static const struct ftrace_filter *live_filter(struct app *a, const char **why)
{
	struct live_src *ls = LS(a);
	int ret;

	if (!ls->filter_tried) {
		ls->filter_tried = true;
		ret = ls->sess ? ftrace_filter_open(&ls->filter, session_instance(ls->sess),
						    ls->filter_why, sizeof(ls->filter_why)) : -ENODEV;
		if (ret) {
			ls->filter = NULL;
			if (!ls->filter_why[0])
				snprintf(ls->filter_why, sizeof(ls->filter_why), "%s", strerror(-ret));
		} else {
			snprintf(ls->filter_why, sizeof(ls->filter_why), "%s",
				 ftrace_filter_unavailable(ls->filter));
		}
	}
	if (why)
		*why = ls->filter_why;
	return ls->filter;
}

static const struct ftrace_filter *live_filter_held(const struct app *a)
{
	return LS(a) ? LS(a)->filter : NULL;
}

static int live_filter_current(struct app *a, struct funcfilter_set *out)
{
	if (!LS(a)->filter || !ftrace_filter_funcs(LS(a)->filter))
		return -ENODEV;
	return ftrace_filter_current(LS(a)->filter, FUNCFILTER_T_FILTER, out);
}

static int live_filter_apply(struct app *a, const char *line, struct ftrace_filter_result *res)
{
	if (!LS(a)->filter)
		return -ENODEV;
	return ftrace_filter_apply(LS(a)->filter, line, res);
}

static int live_filter_undo(struct app *a, bool redo, struct ftrace_filter_result *res)
{
	if (!LS(a)->filter)
		return -ENODEV;
	return redo ? ftrace_filter_redo(LS(a)->filter, res) : ftrace_filter_undo(LS(a)->filter, res);
}

/*
 * On the session's CLOCK_MONOTONIC (the newest record within a minute of
 * now): now - @lag_ns. On another clock: the oldest of the busy CPUs' newest
 * records.
 */
static uint64_t live_feed_end(const struct app *a, uint64_t lag_ns)
{
	return store_feed_end(a->st, lag_ns);
}

/* ---- starting ------------------------------------------------------------------- */

/* A whole tracefs file of the top level, NUL-terminated (free it), or NULL with errno set. */
static char *live_read_tracefs(const struct features *ft, const char *name)
{
	char path[512], *buf = NULL;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", ft->tracefs, name);
	ret = file_read(path, FILE_NO_MAX, &buf, NULL);
	if (ret)
		errno = -ret;
	return buf;
}

static const struct feature *app_feature_named(const struct features *ft, const char *name)
{
	for (int i = 0; i < FEATURE_NR; i++)
		if (ft->f[i].name && !strcmp(ft->f[i].name, name))
			return &ft->f[i];
	return NULL;
}

static bool app_word_in(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || strchr(" \t\n", p[-1])) && strchr(" \t\n", p[n]))
			return true;
	return false;
}

/* -p NAME: is there such a tracer, and may we use it? Reads only. */
static int app_check_tracer(const struct features *ft, const char *tracer, char *err,
			    size_t errlen)
{
	const struct feature *f = app_feature_named(ft, tracer);
	char *avail;
	bool found;

	if (!strcmp(tracer, "nop"))
		return 0;
	avail = live_read_tracefs(ft, "available_tracers");
	if (!avail)
		return app_err(err, errlen, -errno, "cannot read %s/available_tracers: %s",
			       ft->tracefs, strerror(errno));
	found = app_word_in(avail, tracer);
	if (!found) {
		int n = (int)strcspn(avail, "\n");

		if (f && f->config)
			app_err(err, errlen, -ENOENT,
				"tracer '%s' is not built into this kernel (%s); available: %.*s",
				tracer, f->config, n, avail);
		else
			app_err(err, errlen, -ENOENT, "unknown tracer '%s'; available: %.*s",
				tracer, n, avail);
		free(avail);
		return -ENOENT;
	}
	free(avail);
	if (f && f->state == FEAT_NOT_PERMITTED)
		return app_err(err, errlen, -EPERM, "tracer '%s' is not permitted here: %s", tracer,
			       f->detail[0] ? f->detail : "EPERM");
	return 0;
}

/* Does -e PATTERN name at least one event in available_events ("sys:event" lines)? */
static bool app_event_matches(const char *avail, const char *pat)
{
	const char *colon = strchr(pat, ':');
	char sys[128], ev[256];

	for (const char *p = avail; *p; ) {
		const char *nl = strchr(p, '\n'), *c;
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		c = memchr(p, ':', len);
		if (c && (size_t)(c - p) < sizeof(sys) && len - (size_t)(c - p) < sizeof(ev)) {
			char full[384];

			memcpy(sys, p, (size_t)(c - p));
			sys[c - p] = 0;
			memcpy(ev, c + 1, len - (size_t)(c - p) - 1);
			ev[len - (size_t)(c - p) - 1] = 0;
			snprintf(full, sizeof(full), "%s:%s", sys, ev);
			if (colon ? !fnmatch(pat, full, 0) :
			    (!fnmatch(pat, sys, 0) || !fnmatch(pat, ev, 0)))
				return true;
		}
		p += len + (nl ? 1 : 0);
	}
	return false;
}

/*
 * The available event nearest to a mistyped @spec ("sched:sched_swich"), by
 * edit distance over "SYSTEM:EVENT" (or the event's name alone when @spec
 * has no system), at most 2 edits and fewer than a third of its length:
 * into @near, "" when none is that close or @spec is a glob.
 */
static void app_event_near(const char *avail, const char *spec, char *near, size_t len)
{
	bool sys = strchr(spec, ':') || strchr(spec, '/');
	int best = 3, cap;
	const char *p;
	char want[128];

	near[0] = '\0';
	if (strpbrk(spec, "*?[") || strlen(spec) >= sizeof(want))
		return;
	snprintf(want, sizeof(want), "%s", spec);
	for (char *s = want; *s; s++)
		if (*s == '/')
			*s = ':';
	cap = (int)strlen(want) / 3;
	if (cap > 2)
		cap = 2;
	for (p = avail; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *e = strchr(p, '\n'), *colon;
		char line[128];
		size_t n = e ? (size_t)(e - p) : strlen(p);
		int d;

		if (!n || n >= sizeof(line))
			continue;
		memcpy(line, p, n);
		line[n] = '\0';
		colon = strchr(line, ':');
		d = probe_edit_distance(sys || !colon ? line : colon + 1, want, cap);
		if (d <= cap && d < best) {
			best = d;
			snprintf(near, len, "%s", line);
		}
	}
}

static int app_check_events(const struct features *ft, const struct session_opts *so,
			    char *err, size_t errlen)
{
	char *avail;

	if (!so->nevents)
		return 0;
	avail = live_read_tracefs(ft, "available_events");
	if (!avail)
		return app_err(err, errlen, -errno, "cannot read %s/available_events: %s",
			       ft->tracefs, strerror(errno));
	for (unsigned int i = 0; i < so->nevents; i++) {
		if (!app_event_matches(avail, so->events[i])) {
			char near[160];
			int ret;

			app_event_near(avail, so->events[i], near, sizeof(near));
			ret = app_err(err, errlen, -ENOENT,
				      "unknown event '%s': no match in %s/available_events%s%s%s",
				      so->events[i], ft->tracefs, near[0] ? " (did you mean " : "",
				      near, near[0] ? "?)" : "");
			free(avail);
			return ret;
		}
	}
	free(avail);
	return 0;
}

/* @nuser: the events asked with -e (those --net added come after them). */
static void app_describe_request(struct app *a, unsigned int nuser)
{
	const struct session_opts *so = &a->opts.so;
	size_t len = sizeof(a->mode_why);
	char *p = a->mode_why;
	int n;

	if (so->tracer && strcmp(so->tracer, "nop"))
		n = snprintf(p, len, "tracer %s%s", so->tracer, so->nevents ? " + events" : "");
	else
		n = snprintf(p, len, "events");
	for (unsigned int i = 0; i < nuser && n > 0 && (size_t)n < len; i++)
		n += snprintf(p + n, len - (size_t)n, "%s%s", i ? ", " : " ", so->events[i]);
	if (so->nevents > nuser && n > 0 && (size_t)n < len)
		n += snprintf(p + n, len - (size_t)n, "%s%u network events (--net%s)",
			      nuser ? " + " : " ", so->nevents - nuser,
			      a->opts.net == APP_NET_PROBE ? "=probe" : "");
	/* the probes' group: which events it holds */
	for (unsigned int i = 0; i < probe_set_count(LS(a)->probes) && n > 0 && (size_t)n < len; i++)
		n += snprintf(p + n, len - (size_t)n, "%s%s", i ? ", " : " (probes ",
			      probe_set_get(LS(a)->probes, i)->event);
	if (probe_set_count(LS(a)->probes) && n > 0 && (size_t)n < len)
		n += snprintf(p + n, len - (size_t)n, ")");
	if (n > 0 && (size_t)n < len)
		snprintf(p + n, len - (size_t)n, ", as asked on the command line");
}

/* One line of why function_graph cannot be the default here. */
static void app_fgraph_why(const struct features *ft, char *buf, size_t len)
{
	const struct feature *f = &ft->f[FEATURE_FUNCTION_GRAPH];

	switch (f->state) {
	case FEAT_NOT_BUILT:
		snprintf(buf, len, "function_graph is not built in (%s)",
			 f->config ? f->config : "CONFIG_FUNCTION_GRAPH_TRACER");
		break;
	case FEAT_NOT_PERMITTED:
		snprintf(buf, len, "function_graph is not permitted (EPERM%s%s)",
			 f->detail[0] ? ": " : "", f->detail);
		break;
	default:
		snprintf(buf, len, "function_graph is %s%s%s", feature_state_str(f->state),
			 f->detail[0] ? ": " : "", f->detail);
	}
}

static bool app_fgraph_ok(const struct features *ft)
{
	enum feature_state s = ft->f[FEATURE_FUNCTION_GRAPH].state;

	return s == FEAT_AVAILABLE || s == FEAT_TOP_LEVEL_ONLY;
}

static void app_use_default_events(struct app *a, const char *why)
{
	struct session_opts *so = &a->opts.so;

	so->tracer = NULL;
	so->nevents = 0;
	for (size_t i = 0; i < sizeof(default_events) / sizeof(default_events[0]); i++)
		so->events[so->nevents++] = default_events[i];
	snprintf(a->mode_why, sizeof(a->mode_why),
		 "events sched, irq, raw_syscalls (default): %s", why);
}

/*
 * --net: add the network events this kernel has to what is asked (once each),
 * and say which it has not in the mode line. Return: 0, or a negative errno.
 */
static int live_net_events(struct app *a, char *note, size_t notelen, char *err, size_t errlen)
{
	struct session_opts *so = &a->opts.so;
	char *avail = live_read_tracefs(&a->ft, "available_events");
	const char *want[SESSION_MAX_LIST];
	unsigned int nwant = 0;
	size_t o = 0;

	note[0] = '\0';
	if (!avail)
		return app_err(err, errlen, -errno, "cannot read %s/available_events: %s",
			       a->ft.tracefs, strerror(errno));
	for (unsigned int i = 0; net_trace_events[i] && nwant < SESSION_MAX_LIST; i++)
		want[nwant++] = net_trace_events[i];
	if (a->opts.net == APP_NET_PROBE && nwant < SESSION_MAX_LIST)
		want[nwant++] = NET_PROBE_EVENT;
	for (unsigned int i = 0; i < nwant; i++) {
		bool dup = false;

		if (!app_event_matches(avail, want[i])) {
			o += (size_t)snprintf(note + o, o < notelen ? notelen - o : 0, "%s%s",
					      o ? ", " : "; not on this kernel: ", want[i]);
			continue;
		}
		for (unsigned int k = 0; k < so->nevents; k++)
			dup |= !strcmp(so->events[k], want[i]);
		if (dup)
			continue;
		if (so->nevents == SESSION_MAX_LIST) {
			free(avail);
			return app_err(err, errlen, -E2BIG, "--net: more than %d events asked",
				       SESSION_MAX_LIST);
		}
		so->events[so->nevents++] = want[i];
	}
	free(avail);
	return 0;
}

static int app_open_session(struct app *a, char *err, size_t errlen)
{
	struct session_opts *so = &a->opts.so;
	bool by_default = !so->tracer && !so->nevents && !so->no_events && !a->opts.net;
	unsigned int nuser = so->nevents;
	char why[200], netnote[400] = "";
	int ret;

	if (a->opts.net) {
		ret = live_net_events(a, netnote, sizeof(netnote), err, errlen);
		if (ret)
			return ret;
	}

	if (so->no_events && !so->nevents && (!so->tracer || !strcmp(so->tracer, "nop")))
		return app_err(err, errlen, -EINVAL,
			       "-e none leaves nothing to trace without a tracer: add -p TRACER");
	for (unsigned int i = 0; i < so->npids; i++)
		if (kill(so->pids[i], 0) && errno == ESRCH)
			return app_err(err, errlen, -ESRCH, "-P %d: no such process", so->pids[i]);
	if (by_default) {
		if (app_fgraph_ok(&a->ft)) {
			so->tracer = "function_graph";
			snprintf(a->mode_why, sizeof(a->mode_why),
				 "function_graph (default): this kernel permits it%s",
				 a->ft.f[FEATURE_FUNCTION_GRAPH].state == FEAT_TOP_LEVEL_ONLY ?
				 " (top-level buffer only)" : "");
		} else {
			app_fgraph_why(&a->ft, why, sizeof(why));
			app_use_default_events(a, why);
		}
	} else {
		if (so->tracer)
			ret = app_check_tracer(&a->ft, so->tracer, err, errlen);
		else
			ret = 0;
		if (!ret)
			ret = app_check_events(&a->ft, so, err, errlen);
		if (ret)
			return ret;
		app_describe_request(a, nuser);
		if (a->opts.net) {
			size_t n = strlen(a->mode_why);

			snprintf(a->mode_why + n, sizeof(a->mode_why) - n, "%s", netnote);
		}
	}

	ret = session_open(&LS(a)->sess, so, &a->ft, err, errlen);
	if (ret && by_default && so->tracer) {
		/* function_graph looked possible but was refused: say so, use events */
		snprintf(why, sizeof(why), "function_graph refused: %.150s", err);
		app_use_default_events(a, why);
		ret = session_open(&LS(a)->sess, so, &a->ft, err, errlen);
	}
	if (ret && !err[0])
		app_err(err, errlen, ret, "cannot set up tracing: %s", strerror(-ret));
	return ret;
}

/*
 * BPF statistics are an addition: when they cannot run (no BPF, no BTF,
 * --no-bpf) the reason is kept for the UI and the batch header, and tracing
 * goes on without them.
 */
static void app_start_bpf(struct app *a)
{
	struct bpfstats_opts bo = {
		.interval = a->opts.batch && a->opts.interval > 0 ? a->opts.interval : 0.5,
		.wake_fd = a->wake_fd,
		.no_syscalls = !a->opts.bpf_syscalls,	/* the costly part: opt in */
	};

	if (a->opts.no_bpf) {
		snprintf(a->bpf_why, sizeof(a->bpf_why), "BPF statistics off (--no-bpf)");
		return;
	}
	if (bpfstats_new(&a->bpf, &bo, &a->ft, a->bpf_why, sizeof(a->bpf_why)))
		a->bpf = NULL;
	else if (bpfstats_start(a->bpf)) {
		snprintf(a->bpf_why, sizeof(a->bpf_why), "BPF poller thread could not start");
		bpfstats_free(a->bpf);
		a->bpf = NULL;
	}
}

/*
 * --probe: ktop's probe events, all defined or none, before the session
 * enables their group in its instance (and reads their formats with the
 * others'). Return: 0, or a negative errno with @err naming the spec.
 */
static int app_start_probes(struct app *a, char *err, size_t errlen)
{
	struct session_opts *so = &a->opts.so;
	int ret;

	/* a SIGKILLed ktop's probes: its instance went with session_reap_stale() */
	probe_reap_stale(a->ft.tracefs, session_ktop_alive);
	if (!a->opts.nprobes)
		return 0;
	if (so->nevents >= SESSION_MAX_LIST)
		return app_err(err, errlen, -E2BIG, "too many -e options to add the probes' group");
	ret = probe_set_new(&LS(a)->probes, a->ft.tracefs, tuning()->probe_btf, err, errlen);
	if (ret)
		return ret;
	/* from the first definition on, a crash removes them too */
	session_set_emergency_hook(probe_emergency);
	ret = probe_create_all(LS(a)->probes, a->opts.probes, a->opts.nprobes, err, errlen);
	if (ret) {
		probe_set_free(LS(a)->probes);
		LS(a)->probes = NULL;
		return ret;
	}
	so->events[so->nevents++] = probe_set_group(LS(a)->probes);
	return 0;
}

/* What the probes' definitions say their fields are: x64 is hex, symbol a symbol. */
static void app_probe_kinds(struct app *a)
{
	for (unsigned int i = 0; i < probe_set_count(LS(a)->probes); i++)
		app_probe_kinds_one(a, probe_set_get(LS(a)->probes, i));
}

/*
 * kallsyms is read while the session is set up: both take seconds on a slow
 * machine, and once a function tracer is on, every kernel function (reading
 * /proc/kallsyms too) gets slower.
 */
static void *app_syms_thread(void *arg)
{
	struct app *a = arg;

	LS(a)->syms = symbols_load("/proc/kallsyms");
	return NULL;
}

/*
 * What the session will do, for features_probe_keep(): see app_open_session().
 * FEATURES_TRACER for a tracer the probe tries (a name the kernel does not
 * have is refused without it), or for none and no events: function_graph
 * when permitted.
 */
static unsigned int app_probe_flags(const struct session_opts *so)
{
	static const char *const probed[] = { "function", "function_graph", "osnoise",
					      "timerlat" };
	const char *t = so->tracer;
	unsigned int flags = 0;

	if (t && (!strcmp(t, "osnoise") || !strcmp(t, "timerlat")))
		flags |= FEATURES_LATENCY;
	for (size_t i = 0; t && i < sizeof(probed) / sizeof(probed[0]); i++)
		if (!strcmp(t, probed[i]))
			flags |= FEATURES_TRACER;
	if (!t && !so->nevents && !so->no_events)
		flags |= FEATURES_TRACER;
	return flags;
}

/* ---- metadata of a live session ----------------------------------------------- */

static int str_cmp(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* What live_kallsyms() keeps: the lines of the names of @names (sorted). */
struct ksym_keep {
	const char	**names;
	size_t		nstr, len, cap;
	char		*out;
};

static int ksym_keep_line(const struct symbols_line *sl, const char *line, size_t l, void *arg)
{
	struct ksym_keep *k = arg;
	char name[256], *key = name;

	if (sl->name_len >= sizeof(name))
		return 0;
	memcpy(name, sl->name, sl->name_len);
	name[sl->name_len] = '\0';
	if (!bsearch(&key, k->names, k->nstr, sizeof(*k->names), str_cmp))
		return 0;
	if (k->len + l + 1 > k->cap) {
		char *p = realloc(k->out, k->cap * 2);

		if (!p)
			return 1;	/* what fits */
		k->out = p;
		k->cap *= 2;
	}
	memcpy(k->out + k->len, line, l);
	k->len += l;
	k->out[k->len] = '\0';
	return 0;
}

/* The kallsyms lines whose names are strings of @st. */
static char *live_kallsyms(struct store *st)
{
	struct intern *in = store_strings(st);
	struct ksym_keep k = { .cap = 1 << 16 };
	uint32_t n = intern_count(in);

	k.out = malloc(k.cap);
	k.names = calloc(n ? n : 1, sizeof(*k.names));
	if (!k.out || !k.names) {
		free(k.out);
		free(k.names);
		return NULL;
	}
	k.out[0] = '\0';
	for (uint32_t id = 1; id < n; id++) {
		const char *s = intern_str(in, id);

		if (s && *s)
			k.names[k.nstr++] = s;
	}
	qsort(k.names, k.nstr, sizeof(*k.names), str_cmp);
	if (symbols_scan("/proc/kallsyms", ksym_keep_line, &k) < 0) {
		free(k.out);
		k.out = NULL;
	}
	free(k.names);
	return k.out;
}

/*
 * --stream: the formats of the session's events (its tep holds the systems it
 * enabled), read from tracefs, besides those load_dir already kept.
 */
static void live_tep_formats(struct app *a, struct snapshot_meta *m)
{
	struct tep_handle *tep = LS(a)->sess ? session_tep(LS(a)->sess) : NULL;
	struct tep_event **evs;
	char path[1024];
	int n;

	if (!tep)
		return;
	evs = tep_list_events(tep, TEP_EVENT_SORT_SYSTEM);
	n = tep_get_events_count(tep);
	for (int i = 0; evs && i < n && evs[i]; i++) {
		char *text = NULL;

		if (snapshot_meta_format(m, evs[i]->system, evs[i]->name))
			continue;
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", a->ft.tracefs,
			 evs[i]->system, evs[i]->name);
		if (!file_read(path, 1 << 20, &text, NULL) && *text)
			snapshot_meta_add_format(m, evs[i]->system, text);
		free(text);
	}
}

/* The session's clock and the tracer's options, as its instance says. */
static void live_meta_instance(struct app *a, struct snapshot_meta *m)
{
	struct tracefs_instance *in;
	char *clock;

	if (!LS(a)->sess)
		return;
	in = session_instance(LS(a)->sess);
	clock = tracefs_get_clock(in);
	if (clock)
		snprintf(m->clock, sizeof(m->clock), "%s", clock);
	free(clock);
	m->options = tracefs_instance_file_read(in, "trace_options", NULL);
}

/*
 * Name the kernel frames of @st's stacks (the resolver interns each name
 * once): live_kallsyms() then keeps their lines, so that a trace.dat's
 * kernel_stack records are named by trace-cmd report and by ktop reading
 * it back.
 */
static void live_name_stacks(struct store *st)
{
	struct stacks *sk = store_stacks(st);
	uint32_t n = stacks_count(sk);

	for (uint32_t id = 1; id <= n; id++) {
		struct stack_info si;
		struct stack_frame fr;

		if (stacks_get(sk, id, &si) || (si.flags & STACK_F_NAMES))
			continue;
		for (unsigned int i = 0; i < si.nkern; i++)
			stacks_frame(sk, id, i, &fr);
	}
}

/*
 * Fill @m for the live session: uname, tracer, the event formats from tracefs
 * (only those of the store's types when @only is set, else those of the
 * session's systems) and, for a file, the kallsyms lines of its symbols.
 */
static int live_meta_fill(struct app *a, struct snapshot_meta *m, struct store *only)
{
	struct utsname un;
	const char *t = LS(a)->sess ? session_tracer(LS(a)->sess) : NULL;
	int ret;

	memset(m, 0, sizeof(*m));
	if (!uname(&un)) {
		snprintf(m->release, sizeof(m->release), "%s", un.release);
		snprintf(m->hostname, sizeof(m->hostname), "%s", un.nodename);
	}
	snprintf(m->tracer, sizeof(m->tracer), "%s", t && *t ? t : "nop");
	m->ncpus = store_ncpus(a->st);
	live_meta_instance(a, m);
	m->features = strdup(a->mode_why);
	if (only) {
		live_name_stacks(only);
		m->kallsyms = live_kallsyms(only);
		ret = snapshot_meta_load_dir(m, a->ft.tracefs, only);
		/* the probes removed since: their events are in the store */
		app_probe_formats(a, m);
		return ret;
	}
	/* a stream: no kallsyms (5 MB), the formats of what the session enabled */
	ret = snapshot_meta_load_dir(m, a->ft.tracefs, a->st);
	live_tep_formats(a, m);
	app_probe_formats(a, m);
	return m->nformats ? 0 : ret;
}


/* Reap, probe, check: what comes before anything is written to tracefs. */
static int live_prepare(struct app *a, char *err, size_t errlen)
{
	int ret;

	/*
	 * First put back what a killed ktop left: probing a top level still
	 * held by a dead session's tracer would find it busy and misjudge what
	 * this kernel permits. Without root there is nothing it could reap.
	 */
	debug_step("begin");
	if (geteuid() == 0)
		session_reap_stale();
	debug_step("reap stale sessions");
	ret = features_probe_keep(&a->ft, app_probe_flags(&a->opts.so));
	debug_step("probe features");
	if (ret)
		return app_err(err, errlen, ret, "cannot probe the kernel's tracing support: %s",
			       strerror(-ret));
	if (!a->ft.root)
		return app_err(err, errlen, -EPERM,
			       "ktop needs root to trace (tracefs and BPF are root-only here); "
			       "try: sudo ktop");
	if (!a->ft.tracefs[0])
		return app_err(err, errlen, -ENODEV,
			       "tracefs is not mounted; mount it with: "
			       "mount -t tracefs nodev /sys/kernel/tracing");
	ret = app_start_probes(a, err, errlen);
	debug_step("probe events");
	/* before the session: a refused measure leaves the kernel as it was */
	if (!ret)
		ret = app_agg_start(a, err, errlen);
	debug_step("in-kernel aggregations");
	if (ret)
		features_release(&a->ft);
	return ret;
}

/* The session, with kallsyms read meanwhile on another thread. */
static int live_open(struct app *a, char *err, size_t errlen)
{
	struct live_src *ls = LS(a);
	bool syms_thread;
	pthread_t syms_tid;
	int ret;

	syms_thread = !pthread_create(&syms_tid, NULL, app_syms_thread, a);
	ret = app_open_session(a, err, errlen);
	/* the probe's instance is the session's now, or it goes */
	if (!ls->sess || strcmp(session_name(ls->sess), a->ft.kept))
		features_release(&a->ft);
	a->ft.kept[0] = '\0';
	debug_step("open session");
	if (syms_thread)
		pthread_join(syms_tid, NULL);
	else
		ls->syms = symbols_load("/proc/kallsyms");
	debug_step("load kallsyms (rest)");
	if (ret) {
		symbols_free(ls->syms);
		ls->syms = NULL;
		probe_set_free(ls->probes);
		ls->probes = NULL;
	}
	return ret;
}

/* prev_state's letters from this kernel's sched_switch format (the default without one). */
static void live_task_states(struct app *a)
{
	struct taskstate_fmt f;
	char path[PATH_MAX];
	char *text;

	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/format", a->ft.tracefs);
	text = file_read_text(path);
	if (!taskstate_parse(text, &f))
		store_set_task_states(a->st, &f);
	free(text);
}

/* The store, the decoders and the readers of an open session, then tracing on. */
static int live_run(struct app *a, char *err, size_t errlen)
{
	struct live_src *ls = LS(a);
	int ncpus = session_ncpus(ls->sess), ret;

	a->st = store_new(a->opts.memory, ncpus > 0 ? (unsigned int)ncpus : 1);
	if (!a->st)
		return app_err(err, errlen, -ENOMEM, "cannot allocate the event store");
	live_task_states(a);
	/* Without symbols, addresses print as hex: worth a note, not a failure. */
	ls->dc = decode_ctx_new(session_tep(ls->sess), a->st, ls->syms);
	if (!ls->dc)
		return app_err(err, errlen, errno ? -errno : -EINVAL,
			       "cannot prepare the event decoders: %s", strerror(errno));
	app_probe_kinds(a);
	ret = app_stacks_start(a, ls->dc, ls->syms, err, errlen);
	if (ret)
		return ret;
	a->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (a->wake_fd < 0)
		return app_err(err, errlen, -errno, "eventfd: %s", strerror(errno));
	debug_step("decoders");
	ret = consumer_start(&ls->cons, ls->sess, a->st, ls->dc, a->wake_fd);
	debug_step("start readers");
	if (ret)
		return app_err(err, errlen, ret, "cannot start reading the trace buffers: %s",
			       strerror(-ret));
	/*
	 * BPF before tracing: loading and attaching the programs (the verifier,
	 * text patching for the trampolines) takes seconds on a slow machine and
	 * delays timers; ktop's own start-up must not be what the trace shows.
	 */
	app_start_bpf(a);
	debug_step("BPF statistics");
	app_offcpu_start(a, ls->syms);
	debug_step("BPF off-CPU stacks");
	ret = session_start(ls->sess);
	debug_step("tracing on");
	if (ret)
		return app_err(err, errlen, ret, "cannot turn tracing on: %s", strerror(-ret));
	a->start_ns = clock_mono_ns();
	/* outliers from before tracing have no events in the trace to jump to */
	bpfstats_outliers_from(a->bpf, a->start_ns);
	return 0;
}

static int live_start(struct app *a, const struct source_args *args, char *err, size_t errlen)
{
	int ret;

	a->src_priv = calloc(1, sizeof(struct live_src));
	if (!a->src_priv)
		return app_err(err, errlen, -ENOMEM, "out of memory");
	ret = live_prepare(a, err, errlen);
	if (!ret)
		ret = live_open(a, err, errlen);
	if (!ret)
		ret = live_run(a, err, errlen);
	return ret;
}

/* Stop the readers, close the session, restore the kernel. Safe twice. */
static void live_stop(struct app *a)
{
	struct live_src *ls = LS(a);

	if (!ls)
		return;
	bpfstats_free(a->bpf);
	a->bpf = NULL;
	app_agg_stop(a);
	app_offcpu_stop(a);
	if (ls->sess)
		session_stop(ls->sess);
	consumer_stop(ls->cons);
	ftrace_filter_close(ls->filter);
	if (ls->sess)
		session_close(ls->sess);
	/* after the instance that had them enabled */
	probe_set_free(ls->probes);
	ls->probes = NULL;
	app_probe_forget(a);
	decode_ctx_free(ls->dc);
	app_stacks_stop(a);
	symbols_free(ls->syms);
	free(ls);
	a->src_priv = NULL;
}

static int live_meta(struct app *a, struct snapshot_meta *out, bool stream, char *err,
		     size_t errlen)
{
	int ret = live_meta_fill(a, out, stream ? NULL : a->st);

	if (ret)
		app_err(err, errlen, ret, "cannot read the event formats from %s: %s",
			a->ft.tracefs, strerror(-ret));
	return ret;
}

static unsigned int live_flags(const struct app *a)
{
	return SOURCE_KERNEL | SOURCE_GROWS;
}

static struct session *live_session(const struct app *a)
{
	return LS(a) ? LS(a)->sess : NULL;
}

static struct consumer *live_consumer(const struct app *a)
{
	return LS(a) ? LS(a)->cons : NULL;
}

const struct source_ops source_live = {
	.name		= "live",
	.start		= live_start,
	.stop		= live_stop,
	.flags		= live_flags,
	.feed_end	= live_feed_end,
	.meta		= live_meta,
	.tracer		= live_tracer,
	.instance	= live_instance,
	.switch_tracer	= live_switch_tracer,
	.mark		= live_mark,
	.set_recording	= live_set_recording,
	.drain		= live_drain,
	.filter		= live_filter,
	.filter_apply	= live_filter_apply,
	.filter_undo	= live_filter_undo,
	.filter_current	= live_filter_current,
	.filter_held	= live_filter_held,
	.session	= live_session,
	.consumer	= live_consumer,
};
