// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The flight recorder in the running program (--save-on, src/recorder/recorder.h):
 * what its conditions need of the session before it opens (a tracer, the
 * kernel's stop threshold, probes, events), and the host it runs on once
 * tracing: the store, the metadata a save carries (as app_save writes it),
 * how far every CPU has published, the kernel's recording switch.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>
#include <traceevent/event-parse.h>

#include "app.h"
#include "lib/clock.h"
#include "lib/err.h"
#include "lib/evspec.h"
#include "lib/file.h"
#include "kernel/session.h"
#include "probe/probe.h"
#include "probe/probe_gen.h"
#include "recorder/recorder.h"
#include "source/source.h"
#include "view/viewfilter.h"

/* How far behind now the recorder reads: what every CPU has published (batch_tracers' lag). */
#define REC_LAG_NS	(300ull * 1000 * 1000)

/* Is @arg (one of -O's NAME=VALUE) the setting @name? */
static bool is_setting(const char *arg, const char *name)
{
	return !strncmp(arg, name, strlen(name)) && arg[strlen(name)] == '=';
}

int app_recorder_prepare(struct app *a, char *err, size_t errlen)
{
	struct app_opts *o = &a->opts;
	struct session_opts *so = &o->so;
	struct recorder_plan *p = &a->rec_plan;
	int ret;

	if (!o->rec.nconds)
		return 0;
	ret = recorder_plan(&o->rec, so->tracer, p, err, errlen);
	if (ret)
		return ret;
	if (p->tracer && !so->tracer)
		so->tracer = p->tracer;
	for (unsigned int i = 0; i < p->ntracer_opts; i++) {
		size_t n = strcspn(p->tracer_opts[i], "=");

		for (unsigned int k = 0; k < so->ntracer_opts; k++)
			if (!strncmp(so->tracer_opts[k], p->tracer_opts[i], n + 1))
				return err_set(err, errlen, -EINVAL, "-O %s and --save-on with "
					       "--save-after 0 both set the kernel's stop (%.*s): "
					       "leave out the -O", so->tracer_opts[k], (int)n,
					       p->tracer_opts[i]);
		if (so->ntracer_opts >= SESSION_MAX_LIST)
			return err_set(err, errlen, -E2BIG, "too many -O settings");
		so->tracer_opts[so->ntracer_opts++] = p->tracer_opts[i];
	}
	for (unsigned int i = 0; i < so->ntracer_opts && o->rec.after_ns; i++)
		if (is_setting(so->tracer_opts[i], "stop_tracing_us") ||
		    is_setting(so->tracer_opts[i], "stop_tracing_total_us"))
			return err_set(err, errlen, -EINVAL, "-O %s stops the kernel's recording at "
				       "a sample, and --save-on then never sees what follows it: "
				       "leave out the -O, or give --save-after 0 (the recorder then "
				       "sets the kernel's stop itself)", so->tracer_opts[i]);
	for (unsigned int i = 0; i < p->nprobes; i++) {
		if (o->nprobes >= SESSION_MAX_LIST)
			return err_set(err, errlen, -E2BIG, "too many probes");
		o->probes[o->nprobes++] = p->probes[i];
	}
	/*
	 * An event condition against the kernel's formats now (read only), so a
	 * bad one changes nothing; explicit events: the conditions' go with them
	 * (the defaults are checked once open).
	 */
	for (unsigned int i = 0; i < o->rec.nconds; i++) {
		const char *tracefs = geteuid() == 0 ? tracefs_tracing_dir() : NULL;
		struct recorder_cond c;
		struct err_pos fe;
		bool have = false;

		if (recorder_cond_parse(&c, o->rec.conds[i], NULL) || c.kind != RECORDER_EVENT)
			continue;
		if (tracefs && recorder_cond_check(&c, tracefs, &fe)) {
			char buf[2 * RECORDER_COND_MAX + 300];

			return err_set(err, errlen, -EINVAL, "--save-on '%s': %s", o->rec.conds[i],
				       viewfilter_error_format(c.text, &fe, buf, sizeof(buf)));
		}
		if (!so->nevents)
			continue;
		for (unsigned int k = 0; k < so->nevents && !have; k++)
			have = evspec_match(so->events[k], c.system, c.event);
		if (have)
			continue;
		if (so->nevents >= SESSION_MAX_LIST || o->nspecbuf >= SESSION_MAX_LIST)
			return err_set(err, errlen, -E2BIG, "too many -e options");
		if (strlen(c.system) > 63 || strlen(c.event) > 63)
			return err_set(err, errlen, -EINVAL, "--save-on '%s': the event's name is "
				       "too long", c.text);
		snprintf(o->specbuf[o->nspecbuf], sizeof(o->specbuf[0]), "%.63s%s%.63s",
			 c.system, c.system[0] ? ":" : "", c.event);
		so->events[so->nevents++] = o->specbuf[o->nspecbuf++];
	}
	return 0;
}

/* ---- the host --------------------------------------------------------------------------- */

static int host_meta(void *arg, struct snapshot_meta *m, bool full, char *err, size_t errlen)
{
	struct app *a = arg;

	/* not full: what a --stream carries, the session's formats without kallsyms */
	return app_meta(a, m, !full, err, errlen);
}

static uint64_t host_published(void *arg)
{
	return app_feed_end(arg, REC_LAG_NS);
}

static int host_set_recording(void *arg, bool on)
{
	return app_set_recording(arg, on);
}

static bool host_known(void *arg, const char *name)
{
	return app_field_known(arg, name);
}

/* The probe made of @spec (--save-on 'probe SPEC'): its group and event. */
static int host_probe_event(void *arg, const char *spec, char *sys, size_t syslen, char *name,
			    size_t namelen)
{
	struct probe_info pi[SESSION_MAX_LIST];
	unsigned int n = app_probe_list(arg, pi, SESSION_MAX_LIST);

	for (unsigned int i = 0; i < n; i++) {
		if (strcmp(pi[i].def->spec, spec))
			continue;
		snprintf(sys, syslen, "%s", pi[i].def->group);
		snprintf(name, namelen, "%s", pi[i].def->event);
		return 0;
	}
	return -ENOENT;
}

/*
 * The measure of an in-kernel latency condition (--save-on 'latency SPEC >
 * 2ms'): a --latency of the same spec, or one made now (shown as theirs are).
 */
static int host_latency(void *arg, const char *spec, struct agg_set **set, char *err,
			size_t errlen)
{
	struct app *a = arg;
	int ret;

	for (unsigned int i = 0; a->agg && i < a->opts.naggs; i++) {
		if (a->opts.agg_kind[i] == APP_AGG_LATENCY && !strcmp(a->opts.aggs[i], spec)) {
			*set = a->agg;
			return a->agg_idx[i];
		}
	}
	ret = app_agg_add(a, APP_AGG_LATENCY, spec, err, errlen);
	if (ret >= 0)
		*set = a->agg;
	return ret;
}

/*
 * An event condition's event must be enabled in the session: with explicit
 * -e options app_recorder_prepare() added it; with the defaults, it must be
 * among them. Return: 0, or -EINVAL with what to add.
 */
static int check_enabled(struct app *a, const char *text, char *err, size_t errlen)
{
	struct session *s = app_session(a);
	struct recorder_cond c;
	struct err_pos fe;
	char path[1024], *v;
	bool on;

	if (!s || recorder_cond_parse(&c, text, NULL) || c.kind != RECORDER_EVENT)
		return 0;
	if (recorder_cond_check(&c, a->ft.tracefs, &fe))
		return 0;	/* recorder_new says why */
	snprintf(path, sizeof(path), "%s/events/%s/%s/enable", session_dir(s), c.system, c.event);
	v = file_read_text(path);
	on = v && v[0] == '1';
	free(v);
	if (!on)
		return err_set(err, errlen, -EINVAL, "'%s': %s:%s is not traced in this session "
			       "(%s); add -e %s:%s", c.text, c.system, c.event, a->mode_why,
			       c.system, c.event);
	return 0;
}

/* The recorder over the live store, for @o's conditions (none: armed from the view later). */
static int recorder_make(struct app *a, const struct recorder_opts *o, char *err, size_t errlen)
{
	struct session *s = app_session(a);
	struct recorder_host h = {
		.st = a->st, .arg = a, .meta = host_meta, .published = host_published,
		.set_recording = host_set_recording, .probe_event = host_probe_event,
		.known_field = host_known, .tracefs = a->ft.tracefs, .bpf = app_bpf(a),
		.latency = host_latency,
		.wake_fd = a->wake_fd,
	};
	int ret;

	if (!(app_flags(a) & SOURCE_KERNEL))
		return err_set(err, errlen, -ENODEV, "the flight recorder watches a live session: "
			       "this one is a recording");
	for (unsigned int i = 0; i < o->nconds; i++) {
		ret = check_enabled(a, o->conds[i], err, errlen);
		if (ret)
			return ret;
	}
	h.instance_dir = s ? session_dir(s) : NULL;
	h.top_level = s && !strcmp(session_name(s), "(top level)");
	h.tracer = app_tracer(a);
	/* the live trace clock is CLOCK_MONOTONIC (session.c sets "mono") */
	h.wall_offset_ns = (int64_t)(clock_wall_ns() - clock_mono_ns());
	ret = recorder_new(&a->rec, o, &h, err, errlen);
	if (!ret)
		ret = recorder_start(a->rec);
	if (ret && !err[0])
		err_set(err, errlen, ret, "cannot start the flight recorder: %s", strerror(-ret));
	return ret;
}

int app_recorder_start(struct app *a, char *err, size_t errlen)
{
	int ret;

	if (!a->opts.rec.nconds)
		return 0;
	ret = recorder_make(a, &a->opts.rec, err, errlen);
	if (ret && ret != -ENODEV && !strncmp(err, "'", 1)) {
		char msg[1024];

		snprintf(msg, sizeof(msg), "--save-on %s", err);
		snprintf(err, errlen, "%s", msg);
	}
	return ret;
}

int app_recorder_add(struct app *a, const char *text, char *err, size_t errlen)
{
	struct err_pos fe;
	int ret;

	ret = check_enabled(a, text, err, errlen);
	if (ret)
		return ret;
	if (!a->rec) {
		/* the first condition armed from the view: the settings of the command line */
		struct recorder_opts o = a->opts.rec;

		o.nconds = 0;
		if (!o.pattern)
			o.pattern = RECORDER_DEFAULT_PATTERN;
		ret = recorder_pattern_check(o.pattern, o.max, err, errlen);
		if (!ret)
			ret = recorder_make(a, &o, err, errlen);
		if (ret)
			return ret;
	}
	ret = recorder_add(a->rec, text, &fe);
	if (ret) {
		char buf[2 * RECORDER_COND_MAX + 300];

		return err_set(err, errlen, ret, "%s", fe.offset >= 0 ?
			       viewfilter_error_format(text, &fe, buf, sizeof(buf)) : fe.msg);
	}
	return 0;
}

void app_recorder_finish(struct app *a, uint64_t deadline_ns)
{
	recorder_finish(a->rec, deadline_ns);
}

void app_recorder_stop(struct app *a)
{
	/* a save under way gets what is left of a stop's second, then is abandoned */
	recorder_finish(a->rec, clock_mono_ns() + APP_RECORDER_FINISH_NS);
	recorder_free(a->rec);
	a->rec = NULL;
}
