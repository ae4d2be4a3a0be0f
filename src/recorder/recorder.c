// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The flight recorder (recorder.h): the object, the plan it asks of the
 * session, and its thread.
 *
 * The thread ("ktop-recorder") wakes every REC_POLL_MS: it reads what the
 * store gained up to where every CPU has published (the host's published(),
 * 300 ms behind now live, as the tracer panes feed), hands the conditions'
 * matches to the windows in time order (rec_window.c), and writes each
 * window once its after part is in. Matches lag the kernel by that bound
 * plus a poll: the window is cut by the events' own times, not by when they
 * were seen, so the lag costs only memory the store holds anyway.
 *
 * Locking: r->lock guards the watches, the windows, the list of saves and
 * the counters; the thread holds it while it scans and drops it while it
 * writes a file, so the UI's status and list calls never wait for a write.
 *
 * Ending (recorder_finish): the thread stops scanning and writes the
 * windows still waiting, cut at what the store holds, each said in its
 * note; a write still going at the deadline is cancelled (export_opts.cancel)
 * and leaves nothing. SIGTERM thus ends a recording ktop within a second.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agg/agg.h"
#include "bpfstats/bpfstats.h"
#include "lib/clock.h"
#include "lib/err.h"
#include "formats/format.h"
#include "store/meta.h"
#include "store/schema.h"
#include "store/store.h"
#include "view/viewfilter.h"
#include "recorder-local.h"

#define REC_POLL_MS		50
#define REC_WATCHES_MAX		64	/* ever added (removed ones stay until free) */
#define REC_POLL_MATCHES	4096	/* matches kept from one poll; more are counted */
#define REC_OFF_KEPT		16	/* kernel stops remembered for the windows after */
#define REC_LEARN_EVENTS	10000	/* a save this large sets the next one's estimate */
/* How often an in-kernel latency's measure is looked at (it is polled every second). */
#define REC_AGG_LOOK_NS		(200ull * 1000 * 1000)

struct recorder {
	struct recorder_opts	o;
	struct recorder_host	h;
	pthread_mutex_t		lock;
	pthread_cond_t		wake;
	pthread_t		thr;
	bool			started, joined;
	/* the conditions: every one added, by index; removed ones stay inactive */
	struct rec_watch	*w[REC_WATCHES_MAX];
	bool			active[REC_WATCHES_MAX];
	unsigned int		nw;
	bool			armed;
	struct rec_window	win;
	struct rec_scan		scan;
	struct viewfilter	*view;		/* -F: what a save keeps; NULL: all */
	bool			kernel_off;	/* the kernel stopped recording at a match */
	bool			ending;		/* the thread writes what waits, by a deadline */
	uint64_t		off_from;	/* ... at this one (trace clock) */
	/* the times recording was off after a kernel stop: [from, to], a ring */
	uint64_t		off[REC_OFF_KEPT][2];
	unsigned int		noff;
	int			stop;		/* finish asked (atomic) */
	int			cancel;		/* the write under way must stop (atomic) */
	uint64_t		deadline;	/* CLOCK_MONOTONIC of the finish */
	/* one poll's matches */
	struct rec_match	*pm;
	size_t			npm;
	uint64_t		dropped;	/* matches past REC_POLL_MATCHES in a poll */
	/* the saves, a ring of the newest */
	struct recorder_save	*saves;
	uint64_t		nsaves;		/* ids handed out: the newest is nsaves */
	uint64_t		saved, failed;
	uint64_t		last_wall;
	double			per_event;	/* bytes per event of the last save written */
	char			last_what[96];
	char			kernel[256];	/* the kernel's stop: in use, and why not */
	char			kernel_why[192];	/* why the kernel could not stop */
	struct snapshot_meta	*meta;		/* the metadata of the saves */
	unsigned int		meta_types;	/* the schema's types when it was read */
};

/* ---- the plan: what the conditions need of the session ------------------------------- */

/*
 * The kernel's own threshold for a latency condition, in whole microseconds,
 * so that every sample it stops at is a match: timerlat stops at
 * us(latency) >= T, osnoise at a noise > T us.
 */
static uint64_t kernel_lat_us(const struct recorder_cond *c)
{
	uint64_t us = c->bound / 1000, rem = c->bound % 1000;

	if (c->lat == RECORDER_LAT_OSNOISE)
		return c->ge && !rem && us ? us - 1 : us;	/* noise > T us */
	return c->ge && !rem ? us : us + 1;			/* us(latency) >= T */
}

/* Did the kernel stop at this latency sample (@v ns)? */
static bool kernel_lat_stops(const struct recorder_cond *c, uint64_t v)
{
	uint64_t t = kernel_lat_us(c);

	return c->lat == RECORDER_LAT_OSNOISE ? v > t * 1000 : v / 1000 >= t;
}

int recorder_opts_check(const struct recorder_opts *o, char *err, size_t errlen)
{
	struct recorder_cond c;
	struct err_pos fe;

	for (unsigned int i = 0; i < o->nconds; i++) {
		if (recorder_cond_parse(&c, o->conds[i], &fe)) {
			char buf[2 * RECORDER_COND_MAX + 300];
			const char *t = o->conds[i];

			while (*t == ' ' || *t == '\t')
				t++;
			return err_set(err, errlen, -EINVAL, "--save-on '%s': %s", o->conds[i],
				       viewfilter_error_format(t, &fe, buf, sizeof(buf)));
		}
	}
	return recorder_pattern_check(o->pattern ? o->pattern : RECORDER_DEFAULT_PATTERN, o->max,
				      err, errlen);
}

int recorder_plan(const struct recorder_opts *o, const char *tracer,
		  struct recorder_plan *plan, char *err, size_t errlen)
{
	uint64_t irq_us = 0, thread_us = 0, os_us = 0;
	const char *want = NULL;
	struct recorder_cond c;

	memset(plan, 0, sizeof(*plan));
	if (tracer && !strcmp(tracer, "nop"))
		tracer = NULL;
	for (unsigned int i = 0; i < o->nconds; i++) {
		const char *need;

		if (recorder_cond_parse(&c, o->conds[i], NULL))
			return err_set(err, errlen, -EINVAL, "--save-on '%s': not a condition",
				       o->conds[i]);
		if (c.kind == RECORDER_PROBE) {
			snprintf(plan->probes[plan->nprobes++], sizeof(plan->probes[0]), "%s",
				 c.probe);
			continue;
		}
		if (c.kind != RECORDER_LATENCY)
			continue;
		need = c.lat == RECORDER_LAT_OSNOISE ? "osnoise" : "timerlat";
		if ((tracer && strcmp(tracer, need)) || (want && strcmp(want, need)))
			return err_set(err, errlen, -EINVAL, "--save-on '%s' watches the %s "
				       "tracer's samples, and this run traces with %s: one "
				       "tracer at a time", c.text, need, tracer ? tracer : want);
		want = need;
		if (o->after_ns)
			continue;
		/* the kernel's stop at the match: the lowest threshold of each kind */
#define LOWEST(v, x)	((v) = !(v) || (x) < (v) ? (x) : (v))
		switch (c.lat) {
		case RECORDER_LAT_OSNOISE:
			LOWEST(os_us, kernel_lat_us(&c));
			break;
		case RECORDER_LAT_TIMERLAT_IRQ:
			LOWEST(irq_us, kernel_lat_us(&c));
			break;
		case RECORDER_LAT_TIMERLAT:
			LOWEST(irq_us, kernel_lat_us(&c));
			LOWEST(thread_us, kernel_lat_us(&c));
			break;
		default:
			LOWEST(thread_us, kernel_lat_us(&c));
		}
#undef LOWEST
	}
	plan->tracer = want;
	if (os_us)
		snprintf(plan->tracer_opts[plan->ntracer_opts++], sizeof(plan->tracer_opts[0]),
			 "stop_tracing_us=%" PRIu64, os_us);
	if (irq_us)
		snprintf(plan->tracer_opts[plan->ntracer_opts++], sizeof(plan->tracer_opts[0]),
			 "stop_tracing_us=%" PRIu64, irq_us);
	if (thread_us)
		snprintf(plan->tracer_opts[plan->ntracer_opts++], sizeof(plan->tracer_opts[0]),
			 "stop_tracing_total_us=%" PRIu64, thread_us);
	return 0;
}

/* ---- the object ------------------------------------------------------------------------ */

/* What the kernel's stop at the match is doing, for the status. Context: r->lock held. */
static void status_kernel(struct recorder *r)
{
	unsigned int trig = 0, lat = 0;

	for (unsigned int i = 0; i < r->nw; i++) {
		if (!r->active[i] || !r->w[i]->kstop)
			continue;
		if (r->w[i]->c.kind == RECORDER_LATENCY)
			lat++;
		else
			trig++;
	}
	r->kernel[0] = 0;
	if (trig || lat)
		snprintf(r->kernel, sizeof(r->kernel), "the kernel stops recording at the match "
			 "(%s%s%s)%s", trig ? "traceoff triggers" : "", trig && lat ? ", " : "",
			 lat ? "osnoise/stop_tracing_us, stop_tracing_total_us" : "",
			 r->kernel_why[0] ? "; " : "");
	snprintf(r->kernel + strlen(r->kernel), sizeof(r->kernel) - strlen(r->kernel), "%s",
		 r->kernel_why);
}

/* The bucket @b's smallest value (ns): every value in it is larger. */
static uint64_t agg_bucket_floor(unsigned int b, unsigned int unit_ns)
{
	return b ? (1ull << (b - 1)) * (unit_ns ? unit_ns : 1) : 0;
}

/*
 * An AGG watch's measure: the host's (made now if need be), and what it
 * holds now, so that only what comes after counts. Return: 0, or a negative
 * errno with @err.
 */
static int agg_watch_make(struct recorder *r, struct rec_watch *w, struct err_pos *err)
{
	const char *spec = strstr(w->c.text, w->c.agg);
	int ret, at = spec ? (int)(spec - w->c.text) : 0;
	struct agg_result res;
	char msg[1024] = "";

	if (!r->h.latency)
		return err_pos_set(err, at, -ENODEV, "in-kernel latencies need the live kernel "
				   "(--latency)");
	ret = r->h.latency(r->h.arg, w->c.agg, &w->agg, msg, sizeof(msg));
	if (ret < 0) {
		/* the measure's own message: its first line (its caret is under the spec) */
		msg[strcspn(msg, "\n")] = 0;
		return err_pos_set(err, at, ret, "latency '%.400s': %s", w->c.agg, msg);
	}
	w->agg_idx = (unsigned int)ret;
	memset(&res, 0, sizeof(res));
	if (agg_set_result(w->agg, w->agg_idx, &res))
		return err_pos_set(err, at, -EINVAL, "latency '%.400s': no such measure",
				   w->c.agg);
	if (res.kind != AGG_LATENCY) {
		agg_result_clear(&res);
		return err_pos_set(err, at, -EINVAL, "'%.400s' is not a latency", w->c.agg);
	}
	w->agg_polled = res.polled_ns;
	w->agg_max = res.count ? res.max_ns : 0;
	memcpy(w->agg_bucket, res.bucket, sizeof(w->agg_bucket));
	agg_result_clear(&res);
	return 0;
}

/*
 * Make a watch of @text and arm it. Context: r->lock held (or before the thread).
 * Return: its index, or a negative errno with @err.
 */
static int watch_add(struct recorder *r, const char *text, struct err_pos *err)
{
	struct rec_watch *w;
	unsigned int idx, nactive = 0;
	char why[256] = "";
	int ret;

	for (unsigned int i = 0; i < r->nw; i++)
		nactive += r->active[i];
	if (nactive >= RECORDER_MAX_CONDS || r->nw >= REC_WATCHES_MAX)
		return err_pos_set(err, -1, -ENOSPC, "at most %d conditions at a time",
					RECORDER_MAX_CONDS);
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	ret = recorder_cond_parse(&w->c, text, err);
	if (ret)
		goto out_free;
	switch (w->c.kind) {
	case RECORDER_EVENT:
		if (r->h.tracefs && r->h.tracefs[0]) {
			ret = recorder_cond_check(&w->c, r->h.tracefs, err);
			if (ret)
				goto out_free;
		}
		break;
	case RECORDER_PROBE:
		ret = r->h.probe_event ? r->h.probe_event(r->h.arg, w->c.probe, w->c.system,
							  sizeof(w->c.system), w->c.event,
							  sizeof(w->c.event)) : -ENODEV;
		if (ret) {
			ret = err_pos_set(err, 0, ret, "no probe was made of '%s' in this "
					       "run (%s)", w->c.probe, r->h.probe_event ?
					       strerror(-ret) : "probes need the live kernel");
			goto out_free;
		}
		break;
	case RECORDER_LATENCY:
		if (!r->h.tracer || strcmp(r->h.tracer, w->c.lat == RECORDER_LAT_OSNOISE ?
					   "osnoise" : "timerlat")) {
			ret = err_pos_set(err, 0, -EINVAL, "this run traces with %s, not %s: "
					       "its samples never come (-p %s)",
					       r->h.tracer && r->h.tracer[0] ? r->h.tracer : "no tracer",
					       w->c.lat == RECORDER_LAT_OSNOISE ? "osnoise" : "timerlat",
					       w->c.lat == RECORDER_LAT_OSNOISE ? "osnoise" : "timerlat");
			goto out_free;
		}
		break;
	case RECORDER_BPF:
		if (!r->h.bpf) {
			ret = err_pos_set(err, 0, -ENODEV, "the BPF statistics are off in this "
					       "run (see the BPF pane, --no-bpf)");
			goto out_free;
		}
		break;
	case RECORDER_LOST:
		w->lost_seq = 0;
		break;
	case RECORDER_AGG:
		ret = agg_watch_make(r, w, err);
		if (ret)
			goto out_free;
		break;
	}
	ret = rec_watch_compile(w, r->h.st, r->h.known_field, r->h.arg, err);
	if (ret)
		goto out_free;
	if (w->c.kind == RECORDER_LOST) {
		struct store_stats ss;

		store_get_stats(r->h.st, &ss);
		w->lost_seq = ss.lost_marks;	/* from now on */
	}
	if (w->c.kind == RECORDER_BPF)
		w->bpf_last = clock_mono_ns();
	/* the kernel's stop at the match: with --save-after 0, where there is a kernel to ask */
	if (!r->o.after_ns && (w->c.kind == RECORDER_EVENT || w->c.kind == RECORDER_PROBE)) {
		if (!r->h.instance_dir || r->h.top_level)
			snprintf(why, sizeof(why), "the kernel's stop at the match is not used: %s",
				 r->h.top_level ? "the session is the top level, where ktop sets "
				 "no triggers" : "no kernel to ask (a recording)");
		else if (!rec_kernel_trigger_set(w, r->h.instance_dir, why, sizeof(why)))
			w->kstop = true;
		if (!w->kstop)
			snprintf(r->kernel_why, sizeof(r->kernel_why), "%.190s", why);
	} else if (!r->o.after_ns && w->c.kind == RECORDER_LATENCY) {
		/* recorder_plan() gave the session its stop_tracing_us */
		w->kstop = r->h.instance_dir && !r->h.top_level;
	} else if (!r->o.after_ns && w->c.kind == RECORDER_AGG) {
		snprintf(r->kernel_why, sizeof(r->kernel_why), "the kernel's stop at the match is "
			 "not used for an in-kernel latency: its match is seen at its measure's "
			 "next poll");
	}
	idx = r->nw++;
	r->w[idx] = w;
	r->active[idx] = true;
	status_kernel(r);
	return (int)idx;
out_free:
	if (err && err->offset >= 0 && text)
		err->offset += (int)(strspn(text, " \t"));
	free(w);
	return ret;
}

/* The view's joins walk up to where every CPU has published (the host's published()). */
static uint64_t view_published(void *arg, uint64_t lag_ns)
{
	struct recorder *r = arg;

	(void)lag_ns;	/* the host's own */
	return r->h.published(r->h.arg);
}

static void *rec_thread(void *arg);

int recorder_new(struct recorder **out, const struct recorder_opts *o,
		 const struct recorder_host *h, char *err, size_t errlen)
{
	struct recorder *r;
	struct err_pos fe;
	int ret;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	r->o = *o;
	if (!r->o.pattern)
		r->o.pattern = RECORDER_DEFAULT_PATTERN;
	r->h = *h;
	r->armed = true;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->wake, NULL);
	rec_window_init(&r->win, o->before_ns, o->after_ns, o->gap_ns, o->max);
	r->saves = calloc(RECORDER_SAVES_KEPT, sizeof(*r->saves));
	r->pm = malloc(REC_POLL_MATCHES * sizeof(*r->pm));
	r->meta = calloc(1, sizeof(*r->meta));
	if (!r->saves || !r->pm || !r->meta || rec_scan_init(&r->scan, h->st, 0)) {
		recorder_free(r);
		return err_set(err, errlen, -ENOMEM, "out of memory");
	}
	if (o->nviews) {
		r->view = viewfilter_new(h->st, NULL);
		if (!r->view) {
			recorder_free(r);
			return err_set(err, errlen, -ENOMEM, "out of memory");
		}
		viewfilter_set_live(r->view, h->known_field, h->arg, NULL);
		if (r->h.published)
			viewfilter_set_feed_end(r->view, view_published, r);
		for (unsigned int i = 0; i < o->nviews; i++) {
			ret = viewfilter_push(r->view, o->views[i], &fe);
			if (ret) {
				recorder_free(r);
				return err_set(err, errlen, ret, "--view '%s': %s", o->views[i],
					       fe.msg);
			}
		}
	}
	for (unsigned int i = 0; i < o->nconds; i++) {
		ret = watch_add(r, o->conds[i], &fe);
		if (ret < 0) {
			char buf[2 * RECORDER_COND_MAX + 300];

			err_set(err, errlen, ret, "--save-on '%s': %s", o->conds[i],
				viewfilter_error_format(o->conds[i], &fe, buf, sizeof(buf)));
			recorder_free(r);
			return ret;
		}
	}
	*out = r;
	return 0;
}

int recorder_start(struct recorder *r)
{
	int ret;

	if (r->started)
		return 0;
	ret = pthread_create(&r->thr, NULL, rec_thread, r);
	if (ret)
		return -ret;
	r->started = true;
	return 0;
}

/* ---- the thread ------------------------------------------------------------------------- */

static void collect(void *arg, const struct rec_match *m)
{
	struct recorder *r = arg;

	if (r->npm < REC_POLL_MATCHES)
		r->pm[r->npm++] = *m;
	else
		r->dropped++;
}

static int match_cmp(const void *a, const void *b)
{
	const struct rec_match *x = a, *y = b;

	return (x->ts > y->ts) - (x->ts < y->ts);
}

/* The BPF statistic of watch @w: its samples since the last look. */
static void scan_bpf(struct recorder *r, struct rec_watch *w, unsigned int idx)
{
	struct bpfstats_status st;
	uint64_t times[16], last = w->bpf_last;
	double v[16];
	size_t n;

	bpfstats_get_status(r->h.bpf, &st);
	n = bpfstats_series(r->h.bpf, (enum bpfstats_metric)w->c.metric, -1, v, times, 16);
	for (size_t i = 0; i < n; i++) {
		uint64_t x = (uint64_t)(v[i] * 1000 + 0.5);
		struct rec_match m;
		char val[64];

		if (times[i] <= w->bpf_last)
			continue;
		if (times[i] > last)
			last = times[i];
		if (w->c.ge ? x < w->c.bound : x <= w->c.bound)
			continue;
		memset(&m, 0, sizeof(m));
		m.cond = idx;
		m.ts = (uint64_t)((int64_t)times[i] + st.clock_offset_ns);
		m.value = x;
		m.pid = -1;
		snprintf(m.what, sizeof(m.what), "%s over the last %.1f s (BPF)",
			 recorder_value_str(&w->c, x, val, sizeof(val)), st.interval);
		collect(r, &m);
	}
	w->bpf_last = last;
}

/*
 * An in-kernel latency (watch @w): at each new poll of its measure, a new
 * maximum over the bound matches at its END's time; else, pairs new in the
 * log2 buckets wholly above the bound match at the poll's time (they ended
 * in the poll interval before it: --save-before covers them from 1 s on).
 * A pair in the bucket the bound falls in is seen only as a new maximum.
 * The live trace clock is CLOCK_MONOTONIC, as the measures' times are.
 */
static void scan_agg(struct recorder *r, struct rec_watch *w, unsigned int idx)
{
	uint64_t over = 0, floor = 0, now = clock_mono_ns();
	struct agg_result res;
	struct rec_match m;
	char val[64], bound[32];

	/* a measure is polled about once a second: a look every REC_AGG_LOOK_NS is enough */
	if (now - w->agg_looked < REC_AGG_LOOK_NS)
		return;
	w->agg_looked = now;
	memset(&res, 0, sizeof(res));
	if (!w->agg || agg_set_result(w->agg, w->agg_idx, &res))
		return;
	if (!res.polled_ns || res.polled_ns == w->agg_polled) {
		agg_result_clear(&res);
		return;
	}
	for (unsigned int b = AGG_BUCKETS; b-- > 1;) {
		uint64_t f = agg_bucket_floor(b, res.unit_ns);

		if (f < w->c.bound)
			break;
		if (res.bucket[b] > w->agg_bucket[b]) {
			over += res.bucket[b] - w->agg_bucket[b];
			if (!floor)
				floor = f;
		}
	}
	memset(&m, 0, sizeof(m));
	m.cond = idx;
	m.pid = -1;
	if (res.count && res.max_ns > w->agg_max &&
	    (w->c.ge ? res.max_ns >= w->c.bound : res.max_ns > w->c.bound)) {
		m.ts = res.worst.te_ns ? res.worst.te_ns : res.polled_ns;
		m.value = res.max_ns;
		snprintf(m.what, sizeof(m.what), "%s, its largest%s%.40s", recorder_value_str(
			 &w->c, m.value, val, sizeof(val)), res.worst.key[0] ? ", key " : "",
			 res.worst.key);
		collect(r, &m);
	} else if (over) {
		m.ts = res.polled_ns;
		m.value = floor;
		snprintf(m.what, sizeof(m.what), "latency > %s: %" PRIu64 " pair%s over %s in the "
			 "poll before", agg_fmt_ns(val, sizeof(val), floor), over,
			 over == 1 ? "" : "s", agg_fmt_ns(bound, sizeof(bound), w->c.bound));
		collect(r, &m);
	}
	w->agg_polled = res.polled_ns;
	if (res.count && res.max_ns > w->agg_max)
		w->agg_max = res.max_ns;
	memcpy(w->agg_bucket, res.bucket, sizeof(w->agg_bucket));
	agg_result_clear(&res);
}

/* The kernel's stop at a latency sample: only where its own threshold stopped it. */
static void match_kstop(struct recorder *r, struct rec_match *m)
{
	const struct rec_watch *w = r->w[m->cond];

	if (m->kstop && w->c.kind == RECORDER_LATENCY)
		m->kstop = kernel_lat_stops(&w->c, m->value);
}

/* Scan what the store gained; feed the windows. Context: r->lock held. */
static void rec_poll(struct recorder *r, uint64_t published)
{
	struct rec_watch *act[REC_WATCHES_MAX] = { NULL };
	unsigned int nact = 0, idx[REC_WATCHES_MAX];

	for (unsigned int i = 0; i < r->nw; i++) {
		if (!r->active[i])
			continue;
		idx[nact] = i;
		act[nact++] = r->w[i];
	}
	r->npm = 0;
	rec_scan_events(&r->scan, act, nact, published, collect, r);
	/* rec_scan_events numbers matches by their place in act[]: back to watch indexes */
	for (size_t i = 0; i < r->npm; i++)
		r->pm[i].cond = idx[r->pm[i].cond];
	for (unsigned int k = 0; k < nact; k++) {
		if (act[k]->c.kind == RECORDER_LOST)
			rec_scan_lost(&r->scan, act[k], idx[k], collect, r);
		else if (act[k]->c.kind == RECORDER_BPF && r->h.bpf)
			scan_bpf(r, act[k], idx[k]);
		else if (act[k]->c.kind == RECORDER_AGG)
			scan_agg(r, act[k], idx[k]);
	}
	qsort(r->pm, r->npm, sizeof(*r->pm), match_cmp);
	for (size_t i = 0; i < r->npm; i++) {
		struct rec_match *m = &r->pm[i];

		match_kstop(r, m);
		if (m->kstop && !r->kernel_off) {
			r->kernel_off = true;
			r->off_from = m->ts;
		}
		if (r->armed)
			rec_window_match(&r->win, m);
	}
}

static void rec_wake_host(struct recorder *r)
{
	uint64_t one = 1;

	if (r->h.wake_fd >= 0 && write(r->h.wake_fd, &one, sizeof(one)) < 0) {
		/* a wake-up is pending already */
	}
}

/* Recording back on, once no window waits for what the kernel stopped at. */
static void rec_resume(struct recorder *r)
{
	const struct rec_pending *p = rec_window_next(&r->win);
	uint64_t now;

	if (!r->kernel_off || (p && p->kstop))
		return;
	/*
	 * The live trace clock is CLOCK_MONOTONIC: a later window shows the
	 * hole, up to now, read before recording is on again (every event
	 * recorded after it is later).
	 */
	now = clock_mono_ns();
	if (r->h.set_recording)
		r->h.set_recording(r->h.arg, true);
	r->kernel_off = false;
	r->off[r->noff % REC_OFF_KEPT][0] = r->off_from;
	r->off[r->noff % REC_OFF_KEPT][1] = now;
	r->noff++;
}

/*
 * The metadata the saves carry: read when the thread starts, and again when
 * the store has new event types (a probe made since: its format), but not
 * once ktop is ending (the windows cut then have a deadline). The session's
 * event formats, which every format but trace.dat needs; trace.dat writes
 * symbols back as addresses and has kallsyms too (0.1-0.3 s a read here), so
 * its metadata is read for each save.
 * Return: 0, or the error of a read that left no event formats (trace.dat
 * and text cannot do without; the others can).
 */
static int rec_meta(struct recorder *r, char *err, size_t errlen)
{
	unsigned int types = schema_max_id(store_schema(r->h.st));
	const struct format_ops *f = format_by_name(r->o.pattern);
	bool full = f == &format_tracedat;
	int ret;


	if (!r->h.meta ||
	    (r->meta->release[0] && (r->meta_types == types || r->ending) && !full))
		return 0;
	if (r->ending && full && r->meta->kallsyms)
		return 0;
	snapshot_meta_free(r->meta);
	ret = r->h.meta(r->h.arg, r->meta, full, err, errlen);
	r->meta_types = types;
	if (ret && (f == &format_tracedat || f == &format_text) && !r->meta->nformats)
		return ret;
	return 0;
}

/*
 * Write the oldest waiting window. Context: r->lock held; dropped while the
 * file is written. @cut: why the window ends before its time, or NULL.
 */
static void rec_write_one(struct recorder *r, const char *cut, uint64_t published)
{
	struct rec_save_req q = { .pattern = r->o.pattern, .before = r->o.before_ns,
				  .after = r->o.after_ns, .wall_offset_ns = r->h.wall_offset_ns,
				  .view = r->view, .dat_version = r->o.dat_version,
				  .dat_compress = r->o.dat_compress, .cancel = &r->cancel,
				  .cut = cut };
	struct rec_pending p;
	struct recorder_save s;
	char err[512] = "";
	uint64_t t;
	int ret;

	if (!rec_window_take(&r->win, &p))
		return;
	q.p = &p;
	q.w = (const struct rec_watch *const *)r->w;
	q.nw = r->nw;
	q.id = (unsigned int)++r->nsaves;
	q.per_event = r->per_event;
	/*
	 * Did the kernel stop? Its threshold is the condition's, so it should
	 * have; but events recorded well after the match (past the other CPUs'
	 * slack; a CPU writes one a millisecond under timerlat) say it did not,
	 * and the file must not claim it.
	 */
	if (p.kstop && published > p.t1 + REC_KSTOP_SLACK_NS &&
	    rec_store_events(r->h.st, p.t1 + REC_KSTOP_SLACK_NS, published)) {
		p.kstop = false;
		for (unsigned int i = 0; i < p.nmatch && i < REC_MATCHES_KEPT; i++)
			p.m[i].kstop = false;
		q.kstop_failed = true;
	}
	/* the window is in the store: the kernel may record again */
	rec_resume(r);
	/*
	 * The holes an earlier kernel stop left in this window (not its own: it
	 * ends there). A hole starts at the last event recorded before the restart,
	 * not at the match: the kernel stops the CPU of the match right after its
	 * sample, another CPU once the stop reaches it (a timerlat sample of
	 * CPU 0 0.5 ms after CPU 1's match, in a 6.1-rt guest under TCG).
	 */
	for (unsigned int i = 0; i < r->noff && i < REC_OFF_KEPT; i++) {
		const uint64_t *o = r->off[i];
		uint64_t from;

		if (o[1] <= p.t0 || o[0] >= p.t1 || q.noff >= REC_OFF_KEPT)
			continue;
		from = rec_store_last(r->h.st, o[0], o[1]);
		if (from >= p.t1)
			continue;
		q.off[q.noff][0] = from > p.t0 ? from : p.t0;
		q.off[q.noff][1] = o[1] < p.t1 ? o[1] : p.t1;
		q.off_match[q.noff] = o[0];
		q.noff++;
	}
	pthread_mutex_unlock(&r->lock);
	t = clock_mono_ns();
	ret = rec_meta(r, err, sizeof(err));
	if (ret) {
		memset(&s, 0, sizeof(s));
		s.id = q.id;
		snprintf(s.path, sizeof(s.path), "%s", r->o.pattern);
		snprintf(s.cond, sizeof(s.cond), "%s", r->w[p.m[0].cond]->c.text);
		snprintf(s.msg, sizeof(s.msg), "not written: no event formats for the file: %.300s",
			 err);
		s.err = ret;
	} else {
		ret = rec_save_write(&q, r->h.st, r->meta, &s);
	}
	s.write_ns = clock_mono_ns() - t;
	pthread_mutex_lock(&r->lock);
	if (s.err)
		r->failed++;
	else
		r->saved++;
	/*
	 * The next save's estimate goes by this one's bytes per event of the
	 * store's window (what the estimate counts, -F or not), from a window
	 * large enough for the file's fixed part not to weigh.
	 */
	if (!s.err) {
		uint64_t n = rec_store_events(r->h.st, s.t0, s.t1);

		if (n >= REC_LEARN_EVENTS)
			r->per_event = (double)s.bytes / (double)n;
	}
	r->last_wall = s.match_wall_ns ? s.match_wall_ns : (uint64_t)time(NULL) * 1000000000ull;
	snprintf(r->last_what, sizeof(r->last_what), "%s", s.what);
	r->saves[(s.id - 1) % RECORDER_SAVES_KEPT] = s;
	rec_wake_host(r);
}

static void *rec_thread(void *arg)
{
	struct recorder *r = arg;
	char why[512];
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_setname_np(pthread_self(), "ktop-recorder");
	/* the metadata now, not at the first match */
	rec_meta(r, why, sizeof(why));
	pthread_mutex_lock(&r->lock);
	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		uint64_t published = r->h.published(r->h.arg);
		struct timespec ts;

		rec_poll(r, published);
		while (rec_window_due(&r->win, published) &&
		       !__atomic_load_n(&r->stop, __ATOMIC_RELAXED))
			rec_write_one(r, NULL, published);
		rec_resume(r);
		if (rec_window_done(&r->win)) {
			for (unsigned int i = 0; i < r->nw; i++)
				rec_kernel_trigger_clear(r->w[i]);
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += REC_POLL_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		if (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED))
			pthread_cond_timedwait(&r->wake, &r->lock, &ts);
	}
	/* the windows still waiting: what the store holds of them, now */
	r->ending = true;
	if (r->armed) {
		uint64_t published = r->h.published(r->h.arg);

		rec_poll(r, published);
		while (rec_window_next(&r->win) && clock_mono_ns() < r->deadline) {
			struct rec_pending *p = &r->win.w[0];
			char cut[160];

			if (p->t1 <= published) {
				rec_write_one(r, NULL, published);
				continue;
			}
			snprintf(cut, sizeof(cut), "ktop was stopped %.3f s after the first match, "
				 "before the %.3f s asked after it", published > p->first ?
				 (double)(published - p->first) / 1e9 : 0.0,
				 (double)r->o.after_ns / 1e9);
			p->t1 = published > p->first ? published : p->first;
			rec_write_one(r, cut, published);
		}
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/* ---- finishing ------------------------------------------------------------------------ */

void recorder_finish(struct recorder *r, uint64_t deadline_ns)
{
	struct timespec ts;
	uint64_t now;

	if (!r || r->joined)
		return;
	if (r->started) {
		pthread_mutex_lock(&r->lock);
		r->deadline = deadline_ns;
		__atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
		pthread_cond_signal(&r->wake);
		pthread_mutex_unlock(&r->lock);
		/* give a write under way until the deadline, then cancel it */
		for (;;) {
			now = clock_mono_ns();
			if (now >= deadline_ns || pthread_tryjoin_np(r->thr, NULL) == 0) {
				if (now >= deadline_ns) {
					__atomic_store_n(&r->cancel, 1, __ATOMIC_RELAXED);
					pthread_join(r->thr, NULL);
				}
				break;
			}
			ts.tv_sec = 0;
			ts.tv_nsec = 5000000;
			nanosleep(&ts, NULL);
		}
	}
	r->joined = true;
	for (unsigned int i = 0; i < r->nw; i++)
		rec_kernel_trigger_clear(r->w[i]);
	if (r->kernel_off && r->h.set_recording)
		r->h.set_recording(r->h.arg, true);
	r->kernel_off = false;
}

void recorder_free(struct recorder *r)
{
	if (!r)
		return;
	recorder_finish(r, 0);
	for (unsigned int i = 0; i < r->nw; i++) {
		rec_watch_destroy(r->w[i]);
		free(r->w[i]);
	}
	rec_scan_destroy(&r->scan);
	viewfilter_free(r->view);
	if (r->meta)
		snapshot_meta_free(r->meta);
	free(r->meta);
	free(r->saves);
	free(r->pm);
	pthread_cond_destroy(&r->wake);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

/* ---- the UI's and the batch printer's side --------------------------------------------- */

void recorder_arm(struct recorder *r, bool on)
{
	pthread_mutex_lock(&r->lock);
	if (on && !r->armed) {
		/* from now on: what came while disarmed is not watched */
		for (unsigned int i = 0; i < r->nw; i++) {
			struct store_stats ss;

			store_get_stats(r->h.st, &ss);
			r->w[i]->lost_seq = ss.lost_marks;
			r->w[i]->bpf_last = clock_mono_ns();
		}
	}
	r->armed = on;
	pthread_mutex_unlock(&r->lock);
}

int recorder_add(struct recorder *r, const char *text, struct err_pos *err)
{
	int ret;

	pthread_mutex_lock(&r->lock);
	ret = watch_add(r, text, err);
	pthread_mutex_unlock(&r->lock);
	return ret < 0 ? ret : 0;
}

/* The index of the @i-th active condition, or -1. */
static int nth_active(const struct recorder *r, unsigned int i)
{
	for (unsigned int k = 0; k < r->nw; k++)
		if (r->active[k] && !i--)
			return (int)k;
	return -1;
}

int recorder_remove(struct recorder *r, unsigned int i)
{
	int k;

	pthread_mutex_lock(&r->lock);
	k = nth_active(r, i);
	if (k >= 0) {
		r->active[k] = false;
		rec_kernel_trigger_clear(r->w[k]);
		status_kernel(r);
	}
	pthread_mutex_unlock(&r->lock);
	return k < 0 ? -ENOENT : 0;
}

bool recorder_cond_text(struct recorder *r, unsigned int i, char *buf, size_t len)
{
	int k;

	pthread_mutex_lock(&r->lock);
	k = nth_active(r, i);
	snprintf(buf, len, "%s", k >= 0 ? r->w[k]->c.text : "");
	pthread_mutex_unlock(&r->lock);
	return k >= 0;
}

void recorder_status(struct recorder *r, struct recorder_status *out)
{
	const struct rec_pending *p;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&r->lock);
	out->armed = r->armed;
	for (unsigned int i = 0; i < r->nw; i++)
		out->nconds += r->active[i];
	out->matches = r->win.matches;
	out->saved = r->saved;
	out->failed = r->failed;
	out->skipped_gap = r->win.skipped_gap;
	out->skipped_max = r->win.skipped_max + r->dropped;
	out->late = r->win.late;
	p = rec_window_next(&r->win);
	out->pending = p != NULL;
	out->pending_t1 = p ? p->t1 : 0;
	out->max_reached = r->o.max && r->win.opened >= r->o.max;
	out->last_wall_ns = r->last_wall;
	snprintf(out->last_what, sizeof(out->last_what), "%s", r->last_what);
	snprintf(out->kernel, sizeof(out->kernel), "%s", r->kernel);
	pthread_mutex_unlock(&r->lock);
}

size_t recorder_saves(struct recorder *r, uint64_t after_id, struct recorder_save *out,
		      size_t max)
{
	size_t n = 0;
	uint64_t first;

	pthread_mutex_lock(&r->lock);
	first = r->nsaves > RECORDER_SAVES_KEPT ? r->nsaves - RECORDER_SAVES_KEPT + 1 : 1;
	if (after_id + 1 > first)
		first = after_id + 1;
	for (uint64_t id = first; id <= r->nsaves && n < max; id++) {
		const struct recorder_save *s = &r->saves[(id - 1) % RECORDER_SAVES_KEPT];

		/* an id handed out whose write is still under way has no record yet */
		if (s->id != id)
			break;
		out[n++] = *s;
	}
	pthread_mutex_unlock(&r->lock);
	return n;
}

static void hms(uint64_t wall_ns, char *buf, size_t len)
{
	time_t t = (time_t)(wall_ns / 1000000000ull);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, len, "%H:%M:%S", &tm);
}

const char *recorder_save_line(const struct recorder_save *s, char *buf, size_t len)
{
	char when[32] = "?";

	if (s->match_wall_ns)
		hms(s->match_wall_ns, when, sizeof(when));
	if (s->err) {
		snprintf(buf, len, "save %" PRIu64 " refused: %s: %s at %s (%.6f): %s", s->id,
			 s->path, s->cond, when, (double)s->match_ts / 1e9, s->msg);
		return buf;
	}
	snprintf(buf, len, "saved %s: %s at %s (%.6f), window %.6f..%.6f, %" PRIu64 " events",
		 s->path, s->cond, when, (double)s->match_ts / 1e9, (double)s->t0 / 1e9,
		 (double)s->t1 / 1e9, s->events);
	if (s->nmatch > 1)
		snprintf(buf + strlen(buf), len - strlen(buf), ", %u matches", s->nmatch);
	if (s->msg[0])
		snprintf(buf + strlen(buf), len - strlen(buf), "; %s", s->msg);
	return buf;
}

const char *recorder_status_line(const struct recorder_status *s, char *buf, size_t len)
{
	char when[32];

	snprintf(buf, len, "%s: %u condition%s · saved %" PRIu64, s->armed ? "armed" : "disarmed",
		 s->nconds, s->nconds == 1 ? "" : "s", s->saved);
	if (s->failed)
		snprintf(buf + strlen(buf), len - strlen(buf), " · refused %" PRIu64, s->failed);
	if (s->pending)
		snprintf(buf + strlen(buf), len - strlen(buf), " · recording a window");
	if (s->max_reached)
		snprintf(buf + strlen(buf), len - strlen(buf), " · --save-max reached");
	if (s->last_wall_ns) {
		hms(s->last_wall_ns, when, sizeof(when));
		snprintf(buf + strlen(buf), len - strlen(buf), " · last %s %s", when, s->last_what);
	}
	return buf;
}
