// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Starting and stopping everything a live ktop needs: probe the kernel, pick
 * what to trace, open the session, the store, symbols, decoders, collectors.
 *
 * The order matters for the promise "on failure the kernel state is unchanged":
 * everything that only reads (probe, checks of the request) comes before
 * session_open, the first call that writes to tracefs, and every later
 * failure unwinds through session_close.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include <tracefs.h>

#include "app.h"
#include "bpfstats.h"
#include "consumer.h"
#include "debug.h"
#include "decode.h"
#include "ftrace_filter.h"
#include "probe.h"
#include "schema.h"
#include "store.h"
#include "symbols.h"
#include "tuning.h"

/* What ktop traces when asked for nothing: scheduling, interrupts, syscalls. */
static const char *const default_events[] = { "sched", "irq", "raw_syscalls" };

uint64_t app_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int app_err(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return ret;
}

int app_switch_tracer(struct app *a, const char *tracer, char *err, size_t errlen)
{
	int ret, r2;

	err[0] = '\0';
	if (!a->live || !a->sess || !a->cons)
		return app_err(err, errlen, -ENODEV, "not tracing live: no tracer to switch");
	if (!strcmp(session_tracer(a->sess), tracer))
		return 0;
	/* refused before the readers stop: same checks, nothing written */
	ret = session_switch_latency_tracer(a->sess, session_tracer(a->sess), err, errlen);
	if (ret)
		return ret;
	app_readers_stop(a);
	ret = session_switch_latency_tracer(a->sess, tracer, err, errlen);
	r2 = app_readers_start(a, err, errlen);
	return r2 ? r2 : ret;
}

void app_readers_stop(struct app *a)
{
	consumer_stop(a->cons);
	a->cons = NULL;
}

int app_readers_start(struct app *a, char *err, size_t errlen)
{
	char first[256];
	int ret;

	ret = consumer_start(&a->cons, a->sess, a->st, a->dc, a->wake_fd);
	if (!ret)
		return 0;
	snprintf(first, sizeof(first), "%s", err);
	a->cons = NULL;
	return app_err(err, errlen, ret, "%s%scannot read the trace buffers again: %s; quit and "
		       "start ktop again", first, first[0] ? "; " : "", strerror(-ret));
}

const char *app_tracer(const struct app *a)
{
	const char *t = a->sess ? session_tracer(a->sess) : a->opts.so.tracer;

	return t ? t : "";
}

int app_mark(struct app *a, const char *text)
{
	size_t n = strlen(text);
	int fd, ret = 0;

	if (!a->sess || !a->live)
		return -ENODEV;
	fd = tracefs_instance_file_open(session_instance(a->sess), "trace_marker", O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, text, n > 4000 ? 4000 : n) < 0)
		ret = -errno;
	close(fd);
	/* in the views at once, not when its page fills or the readers time out */
	if (!ret)
		consumer_flush(a->cons);
	return ret;
}

int app_set_recording(struct app *a, bool on)
{
	if (!a->sess || !a->live)
		return -ENODEV;
	return on ? session_start(a->sess) : session_stop(a->sess);
}

const struct ftrace_filter *app_filter(struct app *a, const char **why)
{
	int ret;

	if (!a->filter_tried) {
		a->filter_tried = true;
		if (!a->live || !a->sess) {
			snprintf(a->filter_why, sizeof(a->filter_why), "viewing a recording: there "
				 "is no live kernel to filter");
		} else {
			ret = ftrace_filter_open(&a->filter, session_instance(a->sess),
						 a->filter_why, sizeof(a->filter_why));
			if (ret) {
				a->filter = NULL;
				if (!a->filter_why[0])
					snprintf(a->filter_why, sizeof(a->filter_why), "%s",
						 strerror(-ret));
			} else {
				snprintf(a->filter_why, sizeof(a->filter_why), "%s",
					 ftrace_filter_unavailable(a->filter));
			}
		}
	}
	if (why)
		*why = a->filter_why;
	return a->filter;
}

int app_filter_current(struct app *a, struct filter_set *out)
{
	if (!a->filter || !ftrace_filter_funcs(a->filter))
		return -ENODEV;
	return ftrace_filter_current(a->filter, FILTER_T_FILTER, out);
}

int app_filter_apply(struct app *a, const char *line, struct ftrace_filter_result *res)
{
	if (!a->filter)
		return -ENODEV;
	return ftrace_filter_apply(a->filter, line, res);
}

int app_filter_undo(struct app *a, bool redo, struct ftrace_filter_result *res)
{
	if (!a->filter)
		return -ENODEV;
	return redo ? ftrace_filter_redo(a->filter, res) : ftrace_filter_undo(a->filter, res);
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
	const struct session_opts *o = &a->opts.so;
	unsigned int changed;
	size_t at;

	ftrace_filter_summary(a->filter, buf, len, &changed);
	at = strlen(buf);
	if (!(changed & (1u << FILTER_T_FILTER)))
		at = desc_items(buf, len, at, "functions ", o->filters,
				o->nfilters);
	if (!(changed & (1u << FILTER_T_NOTRACE)))
		at = desc_items(buf, len, at, "notrace ", o->notrace,
				o->nnotrace);
	if (!(changed & (1u << FILTER_T_GRAPH)))
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

uint64_t app_feed_end(const struct app *a, uint64_t lag_ns)
{
	uint64_t now = app_now_ns(), newest = 0, oldest = UINT64_MAX;
	unsigned int n = store_ncpus(a->st);

	if (!a->live)
		return app_snapshot_end(a);
	for (unsigned int cpu = 0; cpu < n; cpu++) {
		struct store_stats ss;

		store_get_cpu_stats(a->st, cpu, &ss);
		if (!ss.last_ts)
			continue;
		if (ss.last_ts > newest)
			newest = ss.last_ts;
		if (ss.last_ts < oldest)
			oldest = ss.last_ts;
	}
	if (!newest)
		return 0;
	/* the same clock as ours: within a minute of now */
	if (newest <= now + 60000000000ull && newest + 60000000000ull >= now)
		return now > lag_ns ? now - lag_ns : 0;
	return oldest;
}

/* Read a whole tracefs file into a NUL-terminated buffer. Caller frees. */
static char *app_read_tracefs(const struct features *ft, const char *name)
{
	size_t len = 0, cap = 0;
	char path[512];
	char *buf = NULL;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", ft->tracefs, name);
	fp = fopen(path, "r");
	if (!fp)
		return NULL;
	for (;;) {
		size_t n;

		if (cap - len < 4096) {
			char *p = realloc(buf, cap ? cap * 2 : 65536);

			if (!p) {
				free(buf);
				fclose(fp);
				return NULL;
			}
			buf = p;
			cap = cap ? cap * 2 : 65536;
		}
		n = fread(buf + len, 1, cap - len - 1, fp);
		if (!n)
			break;
		len += n;
	}
	fclose(fp);
	buf[len] = 0;
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
	avail = app_read_tracefs(ft, "available_tracers");
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

static int app_check_events(const struct features *ft, const struct session_opts *so,
			    char *err, size_t errlen)
{
	char *avail;

	if (!so->nevents)
		return 0;
	avail = app_read_tracefs(ft, "available_events");
	if (!avail)
		return app_err(err, errlen, -errno, "cannot read %s/available_events: %s",
			       ft->tracefs, strerror(errno));
	for (unsigned int i = 0; i < so->nevents; i++) {
		if (!app_event_matches(avail, so->events[i])) {
			free(avail);
			return app_err(err, errlen, -ENOENT,
				       "unknown event '%s': no match in %s/available_events",
				       so->events[i], ft->tracefs);
		}
	}
	free(avail);
	return 0;
}

static void app_describe_request(struct app *a)
{
	const struct session_opts *so = &a->opts.so;
	size_t len = sizeof(a->mode_why);
	char *p = a->mode_why;
	int n;

	if (so->tracer && strcmp(so->tracer, "nop"))
		n = snprintf(p, len, "tracer %s%s", so->tracer, so->nevents ? " + events" : "");
	else
		n = snprintf(p, len, "events");
	for (unsigned int i = 0; i < so->nevents && n > 0 && (size_t)n < len; i++)
		n += snprintf(p + n, len - (size_t)n, "%s%s", i ? ", " : " ", so->events[i]);
	/* the probes' group: which events it holds */
	for (unsigned int i = 0; i < probe_set_count(a->probes) && n > 0 && (size_t)n < len; i++)
		n += snprintf(p + n, len - (size_t)n, "%s%s", i ? ", " : " (probes ",
			      probe_set_get(a->probes, i)->event);
	if (probe_set_count(a->probes) && n > 0 && (size_t)n < len)
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

static int app_open_session(struct app *a, char *err, size_t errlen)
{
	struct session_opts *so = &a->opts.so;
	bool by_default = !so->tracer && !so->nevents && !so->no_events;
	char why[200];
	int ret;

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
		app_describe_request(a);
	}

	ret = session_open(&a->sess, so, &a->ft, err, errlen);
	if (ret && by_default && so->tracer) {
		/* function_graph looked possible but was refused: say so, use events */
		snprintf(why, sizeof(why), "function_graph refused: %.150s", err);
		app_use_default_events(a, why);
		ret = session_open(&a->sess, so, &a->ft, err, errlen);
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
	ret = probe_set_new(&a->probes, a->ft.tracefs, tuning()->probe_btf, err, errlen);
	if (ret)
		return ret;
	/* from the first definition on, a crash removes them too */
	session_set_emergency_hook(probe_emergency);
	ret = probe_create_all(a->probes, a->opts.probes, a->opts.nprobes, err, errlen);
	if (ret) {
		probe_set_free(a->probes);
		a->probes = NULL;
		return ret;
	}
	so->events[so->nevents++] = probe_set_group(a->probes);
	return 0;
}

/* What the probes' definitions say their fields are: x64 is hex, symbol a symbol. */
static void app_probe_kinds(struct app *a)
{
	for (unsigned int i = 0; i < probe_set_count(a->probes); i++)
		app_probe_kinds_one(a, probe_set_get(a->probes, i));
}

/*
 * kallsyms is read while the session is set up: both take seconds on a slow
 * machine, and once a function tracer is on, every kernel function (reading
 * /proc/kallsyms too) gets slower.
 */
static void *app_syms_thread(void *arg)
{
	struct app *a = arg;

	a->syms = symbols_load("/proc/kallsyms");
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

int app_start(struct app *a, char *err, size_t errlen)
{
	bool syms_thread = false;
	pthread_t syms_tid;
	int ncpus, ret;

	err[0] = 0;
	a->sess = NULL;
	a->st = NULL;
	a->syms = NULL;
	a->dc = NULL;
	a->cons = NULL;
	a->wake_fd = -1;
	a->live = true;
	a->bpf = NULL;
	a->bpf_why[0] = 0;
	a->meta = NULL;
	a->loader = NULL;
	a->probes = NULL;
	a->ssyms = NULL;
	a->offcpu = NULL;
	a->offcpu_why[0] = 0;

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
	if (ret) {
		features_release(&a->ft);
		return ret;
	}

	syms_thread = !pthread_create(&syms_tid, NULL, app_syms_thread, a);
	ret = app_open_session(a, err, errlen);
	/* the probe's instance is the session's now, or it goes */
	if (!a->sess || strcmp(session_name(a->sess), a->ft.kept))
		features_release(&a->ft);
	a->ft.kept[0] = '\0';
	debug_step("open session");
	if (syms_thread)
		pthread_join(syms_tid, NULL);
	else
		a->syms = symbols_load("/proc/kallsyms");
	debug_step("load kallsyms (rest)");
	if (ret) {
		symbols_free(a->syms);
		a->syms = NULL;
		probe_set_free(a->probes);
		a->probes = NULL;
		return ret;
	}

	ncpus = session_ncpus(a->sess);
	a->st = store_new(a->opts.memory, ncpus > 0 ? (unsigned int)ncpus : 1);
	if (!a->st) {
		ret = app_err(err, errlen, -ENOMEM, "cannot allocate the event store");
		goto out_close;
	}
	/* Without symbols, addresses print as hex: worth a note, not a failure. */
	a->dc = decode_ctx_new(session_tep(a->sess), a->st, a->syms);
	if (!a->dc) {
		ret = app_err(err, errlen, errno ? -errno : -EINVAL,
			      "cannot prepare the event decoders: %s", strerror(errno));
		goto out_close;
	}
	app_probe_kinds(a);
	ret = app_stacks_start(a, err, errlen);
	if (ret)
		goto out_close;
	a->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (a->wake_fd < 0) {
		ret = app_err(err, errlen, -errno, "eventfd: %s", strerror(errno));
		goto out_close;
	}
	debug_step("decoders");
	ret = consumer_start(&a->cons, a->sess, a->st, a->dc, a->wake_fd);
	debug_step("start readers");
	if (ret) {
		app_err(err, errlen, ret, "cannot start reading the trace buffers: %s",
			strerror(-ret));
		goto out_close;
	}
	/*
	 * BPF before tracing: loading and attaching the programs (the verifier,
	 * text patching for the trampolines) takes seconds on a slow machine and
	 * delays timers; ktop's own start-up must not be what the trace shows.
	 */
	app_start_bpf(a);
	debug_step("BPF statistics");
	app_offcpu_start(a);
	debug_step("BPF off-CPU stacks");
	ret = session_start(a->sess);
	debug_step("tracing on");
	if (ret) {
		app_err(err, errlen, ret, "cannot turn tracing on: %s", strerror(-ret));
		goto out_close;
	}
	a->start_ns = app_now_ns();
	/* outliers from before tracing have no events in the trace to jump to */
	bpfstats_outliers_from(a->bpf, a->start_ns);
	return 0;

out_close:
	app_stop(a);
	return ret;
}

void app_stop(struct app *a)
{
	/* a snapshot's loader thread writes the store: it stops first */
	app_snapshot_stop(a);
	bpfstats_free(a->bpf);
	a->bpf = NULL;
	app_offcpu_stop(a);
	/* the style is that destroyers accept NULL; do not rely on it here */
	if (a->sess)
		session_stop(a->sess);
	if (a->cons)
		consumer_stop(a->cons);
	a->cons = NULL;
	ftrace_filter_close(a->filter);
	a->filter = NULL;
	a->filter_tried = false;
	if (a->sess)
		session_close(a->sess);
	a->sess = NULL;
	/* after the instance that had them enabled */
	probe_set_free(a->probes);
	a->probes = NULL;
	app_probe_forget(a);
	if (a->dc)
		decode_ctx_free(a->dc);
	a->dc = NULL;
	app_stacks_stop(a);
	if (a->syms)
		symbols_free(a->syms);
	a->syms = NULL;
	app_view_stop(a);
	if (a->st)
		store_free(a->st);
	a->st = NULL;
	if (a->wake_fd >= 0)
		close(a->wake_fd);
	a->wake_fd = -1;
}
