// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The live source (src/source/source.h): the running kernel. Opening it probes the
 * kernel, picks what to trace, opens the session, the store, symbols,
 * decoders and readers; the program's actions (tracer switch, marks, the
 * function filter, recording on/off) act on the session. Its facilities,
 * probes and stacks, are live_probe.c's and live_stacks.c's (live-local.h).
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
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <tracefs.h>
#include <event-parse.h>

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
#include "live-local.h"
#include "store/stacks.h"
#include "store/store.h"
#include "kernel/symbols.h"
#include "lib/tuning.h"
#include "model/net.h"

/* What ktop traces when asked for nothing: scheduling, interrupts, syscalls. */
static const char *const default_events[] = { "sched", "irq", "raw_syscalls" };

/* ---- actions on the kernel -------------------------------------------------------- */

static int live_switch_tracer(struct source *s, const char *tracer, char *err, size_t errlen)
{
	struct live_src *ls = LS(s);
	int ret, r2;

	if (!ls->sess || !ls->cons)
		return err_set(err, errlen, -ENODEV, "not tracing live: no tracer to switch");
	if (!strcmp(session_tracer(ls->sess), tracer))
		return 0;
	/* refused before the readers stop: same checks, nothing written */
	ret = session_switch_latency_tracer(ls->sess, session_tracer(ls->sess), err, errlen);
	if (ret)
		return ret;
	live_readers_stop(ls);
	ret = session_switch_latency_tracer(ls->sess, tracer, err, errlen);
	r2 = live_readers_start(ls, err, errlen);
	return r2 ? r2 : ret;
}

void live_readers_stop(struct live_src *ls)
{
	consumer_stop(ls->cons);
	ls->cons = NULL;
}

int live_readers_start(struct live_src *ls, char *err, size_t errlen)
{
	char first[256];
	int ret;

	ret = consumer_start(&ls->cons, ls->sess, ls->st, ls->dc, ls->wake_fd);
	if (!ret)
		return 0;
	snprintf(first, sizeof(first), "%s", err);
	ls->cons = NULL;
	return err_set(err, errlen, ret, "%s%scannot read the trace buffers again: %s; quit and "
		       "start ktop again", first, first[0] ? "; " : "", strerror(-ret));
}

static const char *live_tracer(const struct source *s)
{
	const char *t = LS(s)->sess ? session_tracer(LS(s)->sess) : LS(s)->so.tracer;

	return t ? t : "";
}

static unsigned int live_events(const struct source *s, const char *const **events)
{
	*events = LS(s)->so.events;
	return LS(s)->so.nevents;
}

static const char *live_instance(const struct source *s)
{
	return LS(s)->sess ? session_name(LS(s)->sess) : "";
}

int live_mark_text(struct live_src *ls, const char *text)
{
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

static int live_mark(struct source *s, const char *text)
{
	return live_mark_text(LS(s), text);
}

static int live_set_recording(struct source *s, bool on)
{
	if (!LS(s)->sess)
		return -ENODEV;
	return on ? session_start(LS(s)->sess) : session_stop(LS(s)->sess);
}

/*
 * Stop recording, then wait (2 s at most) until the readers have drained what
 * the buffers held: the store stops growing and no CPU has a backlog or an
 * event held back for its stack (its stack is in what was read, or the stop
 * cut it: decoder_flush()).
 */
static void live_drain(struct source *s)
{
	struct live_src *ls = LS(s);
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
		store_get_stats(ls->st, &ss);
		for (unsigned int cpu = 0; cpu < store_ncpus(ls->st); cpu++) {
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

static const struct ftrace_filter *live_filter(struct source *s, const char **why)
{
	struct live_src *ls = LS(s);
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

static const struct ftrace_filter *live_filter_held(const struct source *s)
{
	return LS(s)->filter;
}

static int live_filter_current(struct source *s, struct funcfilter_set *out)
{
	if (!LS(s)->filter || !ftrace_filter_funcs(LS(s)->filter))
		return -ENODEV;
	return ftrace_filter_current(LS(s)->filter, FUNCFILTER_T_FILTER, out);
}

static int live_filter_apply(struct source *s, const char *line, struct ftrace_filter_result *res)
{
	if (!LS(s)->filter)
		return -ENODEV;
	return ftrace_filter_apply(LS(s)->filter, line, res);
}

static int live_filter_undo(struct source *s, bool redo, struct ftrace_filter_result *res)
{
	if (!LS(s)->filter)
		return -ENODEV;
	return redo ? ftrace_filter_redo(LS(s)->filter, res) :
		      ftrace_filter_undo(LS(s)->filter, res);
}

/*
 * On the session's CLOCK_MONOTONIC (the newest record within a minute of
 * now): now - @lag_ns. On another clock: the oldest of the busy CPUs' newest
 * records.
 */
static uint64_t live_feed_end(const struct source *s, uint64_t lag_ns)
{
	return store_feed_end(LS(s)->st, lag_ns);
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

static const struct feature *live_feature_named(const struct features *ft, const char *name)
{
	for (int i = 0; i < FEATURE_NR; i++)
		if (ft->f[i].name && !strcmp(ft->f[i].name, name))
			return &ft->f[i];
	return NULL;
}

static bool live_word_in(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || strchr(" \t\n", p[-1])) && strchr(" \t\n", p[n]))
			return true;
	return false;
}

/* -p NAME: is there such a tracer, and may we use it? Reads only. */
static int live_check_tracer(const struct features *ft, const char *tracer, char *err,
			     size_t errlen)
{
	const struct feature *f = live_feature_named(ft, tracer);
	char *avail;
	bool found;

	if (!strcmp(tracer, "nop"))
		return 0;
	avail = live_read_tracefs(ft, "available_tracers");
	if (!avail)
		return err_set(err, errlen, -errno, "cannot read %s/available_tracers: %s",
			       ft->tracefs, strerror(errno));
	found = live_word_in(avail, tracer);
	if (!found) {
		int n = (int)strcspn(avail, "\n");

		if (f && f->config)
			err_set(err, errlen, -ENOENT,
				"tracer '%s' is not built into this kernel (%s); available: %.*s",
				tracer, f->config, n, avail);
		else
			err_set(err, errlen, -ENOENT, "unknown tracer '%s'; available: %.*s",
				tracer, n, avail);
		free(avail);
		return -ENOENT;
	}
	free(avail);
	if (f && f->state == FEAT_NOT_PERMITTED)
		return err_set(err, errlen, -EPERM, "tracer '%s' is not permitted here: %s", tracer,
			       f->detail[0] ? f->detail : "EPERM");
	return 0;
}

/* Does -e PATTERN name at least one event in available_events ("sys:event" lines)? */
static bool live_event_matches(const char *avail, const char *pat)
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
static void live_event_near(const char *avail, const char *spec, char *near, size_t len)
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

static int live_check_events(const struct features *ft, const struct session_opts *so,
			     char *err, size_t errlen)
{
	char *avail;

	if (!so->nevents)
		return 0;
	avail = live_read_tracefs(ft, "available_events");
	if (!avail)
		return err_set(err, errlen, -errno, "cannot read %s/available_events: %s",
			       ft->tracefs, strerror(errno));
	for (unsigned int i = 0; i < so->nevents; i++) {
		if (!live_event_matches(avail, so->events[i])) {
			char near[160];
			int ret;

			live_event_near(avail, so->events[i], near, sizeof(near));
			ret = err_set(err, errlen, -ENOENT,
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
static void live_describe_request(struct live_src *ls, unsigned int nuser)
{
	const struct session_opts *so = &ls->so;
	size_t len = sizeof(ls->mode_why);
	char *p = ls->mode_why;
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
			      ls->args.net_probe ? "=probe" : "");
	/* the probes' group: which events it holds */
	for (unsigned int i = 0; i < probe_set_count(ls->probes) && n > 0 && (size_t)n < len; i++)
		n += snprintf(p + n, len - (size_t)n, "%s%s", i ? ", " : " (probes ",
			      probe_set_get(ls->probes, i)->event);
	if (probe_set_count(ls->probes) && n > 0 && (size_t)n < len)
		n += snprintf(p + n, len - (size_t)n, ")");
	if (n > 0 && (size_t)n < len)
		snprintf(p + n, len - (size_t)n, ", as asked on the command line");
}

/* One line of why function_graph cannot be the default here. */
static void live_fgraph_why(const struct features *ft, char *buf, size_t len)
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

static bool live_fgraph_ok(const struct features *ft)
{
	enum feature_state s = ft->f[FEATURE_FUNCTION_GRAPH].state;

	return s == FEAT_AVAILABLE || s == FEAT_TOP_LEVEL_ONLY;
}

static void live_use_default_events(struct live_src *ls, const char *why)
{
	struct session_opts *so = &ls->so;

	so->tracer = NULL;
	so->nevents = 0;
	for (size_t i = 0; i < sizeof(default_events) / sizeof(default_events[0]); i++)
		so->events[so->nevents++] = default_events[i];
	snprintf(ls->mode_why, sizeof(ls->mode_why),
		 "events sched, irq, raw_syscalls (default): %s", why);
}

/*
 * --net: add the network events this kernel has to what is asked (once each),
 * and say which it has not in the mode line. Return: 0, or a negative errno.
 */
static int live_net_events(struct live_src *ls, char *note, size_t notelen, char *err,
			   size_t errlen)
{
	struct session_opts *so = &ls->so;
	char *avail = live_read_tracefs(&ls->ft, "available_events");
	const char *want[SESSION_MAX_LIST];
	unsigned int nwant = 0;
	size_t o = 0;

	note[0] = '\0';
	if (!avail)
		return err_set(err, errlen, -errno, "cannot read %s/available_events: %s",
			       ls->ft.tracefs, strerror(errno));
	for (unsigned int i = 0; net_trace_events[i] && nwant < SESSION_MAX_LIST; i++)
		want[nwant++] = net_trace_events[i];
	if (ls->args.net_probe && nwant < SESSION_MAX_LIST)
		want[nwant++] = NET_PROBE_EVENT;
	for (unsigned int i = 0; i < nwant; i++) {
		bool dup = false;

		if (!live_event_matches(avail, want[i])) {
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
			return err_set(err, errlen, -E2BIG, "--net: more than %d events asked",
				       SESSION_MAX_LIST);
		}
		so->events[so->nevents++] = want[i];
	}
	free(avail);
	return 0;
}

static int live_open_session(struct live_src *ls, char *err, size_t errlen)
{
	struct session_opts *so = &ls->so;
	bool by_default = !so->tracer && !so->nevents && !so->no_events && !ls->args.net;
	unsigned int nuser = so->nevents;
	char why[200], netnote[400] = "";
	int ret;

	if (ls->args.net) {
		ret = live_net_events(ls, netnote, sizeof(netnote), err, errlen);
		if (ret)
			return ret;
	}

	if (so->no_events && !so->nevents && (!so->tracer || !strcmp(so->tracer, "nop")))
		return err_set(err, errlen, -EINVAL,
			       "-e none leaves nothing to trace without a tracer: add -p TRACER");
	for (unsigned int i = 0; i < so->npids; i++)
		if (kill(so->pids[i], 0) && errno == ESRCH)
			return err_set(err, errlen, -ESRCH, "-P %d: no such process", so->pids[i]);
	if (by_default) {
		if (live_fgraph_ok(&ls->ft)) {
			so->tracer = "function_graph";
			snprintf(ls->mode_why, sizeof(ls->mode_why),
				 "function_graph (default): this kernel permits it%s",
				 ls->ft.f[FEATURE_FUNCTION_GRAPH].state == FEAT_TOP_LEVEL_ONLY ?
				 " (top-level buffer only)" : "");
		} else {
			live_fgraph_why(&ls->ft, why, sizeof(why));
			live_use_default_events(ls, why);
		}
	} else {
		if (so->tracer)
			ret = live_check_tracer(&ls->ft, so->tracer, err, errlen);
		else
			ret = 0;
		if (!ret)
			ret = live_check_events(&ls->ft, so, err, errlen);
		if (ret)
			return ret;
		live_describe_request(ls, nuser);
		if (ls->args.net) {
			size_t n = strlen(ls->mode_why);

			snprintf(ls->mode_why + n, sizeof(ls->mode_why) - n, "%s", netnote);
		}
	}

	ret = session_open(&ls->sess, so, &ls->ft, err, errlen);
	if (ret && by_default && so->tracer) {
		/* function_graph looked possible but was refused: say so, use events */
		snprintf(why, sizeof(why), "function_graph refused: %.150s", err);
		live_use_default_events(ls, why);
		ret = session_open(&ls->sess, so, &ls->ft, err, errlen);
	}
	if (ret && !err[0])
		err_set(err, errlen, ret, "cannot set up tracing: %s", strerror(-ret));
	return ret;
}

/*
 * BPF statistics are an addition: when they cannot run (no BPF, no BTF,
 * --no-bpf) the reason is kept for the UI and the batch header, and tracing
 * goes on without them.
 */
static void live_start_bpf(struct live_src *ls)
{
	struct bpfstats_opts bo = {
		.interval = ls->args.bpf_interval,
		.wake_fd = ls->wake_fd,
		.no_syscalls = !ls->args.bpf_syscalls,	/* the costly part: opt in */
	};

	if (ls->args.no_bpf) {
		snprintf(ls->bpf_why, sizeof(ls->bpf_why), "BPF statistics off (--no-bpf)");
		return;
	}
	if (bpfstats_new(&ls->bpf, &bo, &ls->ft, ls->bpf_why, sizeof(ls->bpf_why)))
		ls->bpf = NULL;
	else if (bpfstats_start(ls->bpf)) {
		snprintf(ls->bpf_why, sizeof(ls->bpf_why), "BPF poller thread could not start");
		bpfstats_free(ls->bpf);
		ls->bpf = NULL;
	}
}

/*
 * kallsyms is read while the session is set up: both take seconds on a slow
 * machine, and once a function tracer is on, every kernel function (reading
 * /proc/kallsyms too) gets slower.
 */
static void *live_syms_thread(void *arg)
{
	struct live_src *ls = arg;

	ls->syms = symbols_load("/proc/kallsyms");
	return NULL;
}

/*
 * What the session will do, for features_probe_keep(): see live_open_session().
 * FEATURES_TRACER for a tracer the probe tries (a name the kernel does not
 * have is refused without it), or for none and no events: function_graph
 * when permitted.
 */
static unsigned int live_probe_flags(const struct session_opts *so)
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
static void live_tep_formats(struct live_src *ls, struct snapshot_meta *m)
{
	struct tep_handle *tep = ls->sess ? session_tep(ls->sess) : NULL;
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
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", ls->ft.tracefs,
			 evs[i]->system, evs[i]->name);
		if (!file_read(path, 1 << 20, &text, NULL) && *text)
			snapshot_meta_add_format(m, evs[i]->system, text);
		free(text);
	}
}

/* The session's clock and the tracer's options, as its instance says. */
static void live_meta_instance(struct live_src *ls, struct snapshot_meta *m)
{
	struct tracefs_instance *in;
	char *clock;

	if (!ls->sess)
		return;
	in = session_instance(ls->sess);
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
static int live_meta_fill(struct live_src *ls, struct snapshot_meta *m, struct store *only)
{
	struct utsname un;
	const char *t = ls->sess ? session_tracer(ls->sess) : NULL;
	int ret;

	memset(m, 0, sizeof(*m));
	if (!uname(&un)) {
		snprintf(m->release, sizeof(m->release), "%s", un.release);
		snprintf(m->hostname, sizeof(m->hostname), "%s", un.nodename);
	}
	snprintf(m->tracer, sizeof(m->tracer), "%s", t && *t ? t : "nop");
	m->ncpus = store_ncpus(ls->st);
	live_meta_instance(ls, m);
	m->features = strdup(ls->mode_why);
	if (only) {
		live_name_stacks(only);
		m->kallsyms = live_kallsyms(only);
		ret = snapshot_meta_load_dir(m, ls->ft.tracefs, only);
		/* the probes removed since: their events are in the store */
		live_probe_formats(ls, m);
		return ret;
	}
	/* a stream: no kallsyms (5 MB), the formats of what the session enabled */
	ret = snapshot_meta_load_dir(m, ls->ft.tracefs, ls->st);
	live_tep_formats(ls, m);
	live_probe_formats(ls, m);
	return m->nformats ? 0 : ret;
}


/* Reap, probe, check: what comes before anything is written to tracefs. */
static int live_prepare(struct live_src *ls, char *err, size_t errlen)
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
	ret = features_probe_keep(&ls->ft, live_probe_flags(&ls->so));
	debug_step("probe features");
	if (ret)
		return err_set(err, errlen, ret, "cannot probe the kernel's tracing support: %s",
			       strerror(-ret));
	if (!ls->ft.root)
		return err_set(err, errlen, -EPERM,
			       "ktop needs root to trace (tracefs and BPF are root-only here); "
			       "try: sudo ktop");
	if (!ls->ft.tracefs[0])
		return err_set(err, errlen, -ENODEV,
			       "tracefs is not mounted; mount it with: "
			       "mount -t tracefs nodev /sys/kernel/tracing");
	ret = live_probe_start(ls, err, errlen);
	debug_step("probe events");
	/* before the session: a refused measure leaves the kernel as it was */
	if (!ret && ls->args.before_session)
		ret = ls->args.before_session(ls->args.before_arg, &ls->ft, err, errlen);
	debug_step("before the session (in-kernel aggregations)");
	if (ret)
		features_release(&ls->ft);
	return ret;
}

/* The session, with kallsyms read meanwhile on another thread. */
static int live_open(struct live_src *ls, char *err, size_t errlen)
{
	bool syms_thread;
	pthread_t syms_tid;
	int ret;

	syms_thread = !pthread_create(&syms_tid, NULL, live_syms_thread, ls);
	ret = live_open_session(ls, err, errlen);
	/* the probe's instance is the session's now, or it goes */
	if (!ls->sess || strcmp(session_name(ls->sess), ls->ft.kept))
		features_release(&ls->ft);
	ls->ft.kept[0] = '\0';
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
static void live_task_states(struct live_src *ls)
{
	struct taskstate_fmt f;
	char path[PATH_MAX];
	char *text;

	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/format", ls->ft.tracefs);
	text = file_read_text(path);
	if (!taskstate_parse(text, &f))
		store_set_task_states(ls->st, &f);
	free(text);
}

/* The store, the decoders and the readers of an open session, then tracing on. */
static int live_run(struct live_src *ls, struct source_sink *sink, char *err, size_t errlen)
{
	int ncpus = session_ncpus(ls->sess), ret;

	ls->st = store_new(ls->args.mem_limit, ncpus > 0 ? (unsigned int)ncpus : 1);
	if (!ls->st)
		return err_set(err, errlen, -ENOMEM, "cannot allocate the event store");
	sink->st = ls->st;
	live_task_states(ls);
	/* Without symbols, addresses print as hex: worth a note, not a failure. */
	ls->dc = decode_ctx_new(session_tep(ls->sess), ls->st, ls->syms);
	if (!ls->dc)
		return err_set(err, errlen, errno ? -errno : -EINVAL,
			       "cannot prepare the event decoders: %s", strerror(errno));
	live_probe_kinds(ls);
	ret = live_stacks_start(ls, err, errlen);
	if (ret)
		return ret;
	debug_step("decoders");
	ret = consumer_start(&ls->cons, ls->sess, ls->st, ls->dc, ls->wake_fd);
	debug_step("start readers");
	if (ret)
		return err_set(err, errlen, ret, "cannot start reading the trace buffers: %s",
			       strerror(-ret));
	/*
	 * BPF before tracing: loading and attaching the programs (the verifier,
	 * text patching for the trampolines) takes seconds on a slow machine and
	 * delays timers; ktop's own start-up must not be what the trace shows.
	 */
	live_start_bpf(ls);
	debug_step("BPF statistics");
	live_offcpu_start(ls);
	debug_step("BPF off-CPU stacks");
	ret = session_start(ls->sess);
	debug_step("tracing on");
	if (ret)
		return err_set(err, errlen, ret, "cannot turn tracing on: %s", strerror(-ret));
	ls->start_ns = clock_mono_ns();
	/* outliers from before tracing have no events in the trace to jump to */
	bpfstats_outliers_from(ls->bpf, ls->start_ns);
	return 0;
}

/* Stop the readers, close the session, restore the kernel, free @s (not the store). */
static void live_close(struct source *s)
{
	struct live_src *ls = LS(s);

	bpfstats_free(ls->bpf);
	ls->bpf = NULL;
	live_offcpu_stop(ls);
	if (ls->sess)
		session_stop(ls->sess);
	consumer_stop(ls->cons);
	ftrace_filter_close(ls->filter);
	if (ls->sess)
		session_close(ls->sess);
	/* after the instance that had them enabled */
	live_probe_stop(ls);
	decode_ctx_free(ls->dc);
	live_stacks_stop(ls);
	symbols_free(ls->syms);
	free(ls);
}

static const struct source_ops source_live;

int source_live_open(const struct source_live_args *in, struct source_sink *sink,
		     struct source **out, char *err, size_t errlen)
{
	struct live_src *ls = calloc(1, sizeof(*ls));
	int ret;

	*out = NULL;
	if (!ls)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	ls->base.ops = &source_live;
	ls->args = *in;
	ls->so = *in->so;
	ls->args.so = &ls->so;
	ls->wake_fd = sink->wake_fd;
	ret = live_prepare(ls, err, errlen);
	if (!ret)
		ret = live_open(ls, err, errlen);
	if (!ret)
		ret = live_run(ls, sink, err, errlen);
	if (ret) {
		live_close(&ls->base);
		return ret;
	}
	*out = &ls->base;
	return 0;
}

static int live_meta(struct source *s, struct snapshot_meta *out, bool stream, char *err,
		     size_t errlen)
{
	struct live_src *ls = LS(s);
	int ret = live_meta_fill(ls, out, stream ? NULL : ls->st);

	if (ret)
		err_set(err, errlen, ret, "cannot read the event formats from %s: %s",
			ls->ft.tracefs, strerror(-ret));
	return ret;
}

static unsigned int live_flags(const struct source *s)
{
	return SOURCE_KERNEL | SOURCE_GROWS;
}

static const char *live_describe(const struct source *s)
{
	return LS(s)->mode_why;
}

static uint64_t live_start_ns(const struct source *s)
{
	return LS(s)->start_ns;
}

static const struct features *live_features(const struct source *s)
{
	return &LS(s)->ft;
}

static struct bpfstats *live_bpf(const struct source *s, const char **why)
{
	if (why)
		*why = LS(s)->bpf_why;
	return LS(s)->bpf;
}

static struct session *live_session(const struct source *s)
{
	return LS(s)->sess;
}

static struct consumer *live_consumer(const struct source *s)
{
	return LS(s)->cons;
}

static const struct source_ops source_live = {
	.name		= "live",
	.close		= live_close,
	.flags		= live_flags,
	.describe	= live_describe,
	.start_ns	= live_start_ns,
	.features	= live_features,
	.feed_end	= live_feed_end,
	.meta		= live_meta,
	.tracer		= live_tracer,
	.events		= live_events,
	.instance	= live_instance,
	.bpf		= live_bpf,
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
	.probe		= &live_probe_ops,
	.stacks		= &live_stacks_ops,
};
