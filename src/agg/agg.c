// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The aggregation set (agg.h): the measures of a run, each on the engine
 * that can take it; a poller thread that reads their figures about once a
 * second into results the views copy; the watcher a flight recorder uses;
 * what puts the kernel back on every exit path, and after a SIGKILL.
 *
 * Pace: a hist file read takes the kernel's event_mutex while it prints the
 * table. The synthetic event's two tables (at most 64 buckets, and the
 * per-key rows) are read each poll (KTOP_AGG_POLL_MS, default 1000); the
 * START and END events' tables, which hold an entry for every key ever seen,
 * only every tenth poll and at the end, for their Dropped counts.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agg-local.h"
#include "lib/err.h"
#include "lib/file.h"
#include "lib/strutil.h"

#define AGG_FULL_EVERY	10	/* polls between two reads of the START/END tables */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* ---- results -------------------------------------------------------------- */

unsigned int agg_bucket(uint64_t v)
{
	unsigned int b = 0;

	if (v <= 1)
		return 0;
	v--;
	while (v) {
		b++;
		v >>= 1;
	}
	return b < AGG_BUCKETS ? b : AGG_BUCKETS - 1;	/* the last takes all above */
}

/* @a * @b, UINT64_MAX where it does not fit. */
static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

void agg_bucket_bounds(unsigned int unit_ns, unsigned int b, uint64_t *lo, uint64_t *hi)
{
	uint64_t u = unit_ns ? unit_ns : 1;

	if (b > AGG_BUCKETS - 1)
		b = AGG_BUCKETS - 1;
	*lo = b ? mul_sat(1ull << (b - 1), u) : 0;
	*hi = b < AGG_BUCKETS - 1 ? mul_sat(1ull << b, u) : UINT64_MAX;
}

uint64_t agg_quantile(const struct agg_result *r, double q)
{
	uint64_t cum = 0, total = 0, unit = r->unit_ns ? r->unit_ns : 1;
	double rank;

	for (int b = 0; b < AGG_BUCKETS; b++)
		total += r->bucket[b];
	if (!total)
		return 0;
	rank = q * (double)total;
	if (rank < 1)
		rank = 1;
	for (int b = 0; b < AGG_BUCKETS; b++) {
		double lo, hi, v;

		if (!r->bucket[b] || (double)(cum + r->bucket[b]) < rank) {
			cum += r->bucket[b];
			continue;
		}
		lo = b ? (double)(1ull << (b - 1)) * unit : 0;
		hi = b < 64 ? (double)(1ull << b) * unit : 1.8e19;
		v = lo + (hi - lo) * (rank - (double)cum) / (double)r->bucket[b];
		if (v < (double)r->min_ns)
			v = (double)r->min_ns;
		if (v > (double)r->max_ns)
			v = (double)r->max_ns;
		return (uint64_t)v;
	}
	return r->max_ns;
}

void agg_result_clear(struct agg_result *r)
{
	free(r->rows);
	r->rows = NULL;
	r->nrows = 0;
}

int agg_result_copy(struct agg_result *dst, const struct agg_result *src)
{
	*dst = *src;
	dst->rows = NULL;
	if (!src->nrows)
		return 0;
	dst->rows = malloc(src->nrows * sizeof(*src->rows));
	if (!dst->rows) {
		dst->nrows = 0;
		return -ENOMEM;
	}
	memcpy(dst->rows, src->rows, src->nrows * sizeof(*src->rows));
	return 0;
}

char *agg_fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.*fus", ns < 10000 ? 2 : ns < 100000 ? 1 : 0, ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.*fms", ns < 10000000 ? 2 : ns < 100000000 ? 1 : 0, ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
	return buf;
}

static int row_cmp(const void *a, const void *b)
{
	const struct agg_row *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->key, y->key);
}

void agg_key_text(const struct agg_field *f, unsigned int n, const uint8_t *bytes, char *buf,
		  size_t len)
{
	size_t at = 0, off = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < n && at < len; i++) {
		const uint8_t *p = bytes + off;

		if (i)
			at += snprintf(buf + at, len - at, ", ");
		if (at >= len)
			break;
		if (f[i].kind == AGG_FT_STR) {
			size_t k = strnlen((const char *)p, f[i].size);

			at += snprintf(buf + at, len - at, "%.*s", (int)k, (const char *)p);
		} else {
			uint64_t v = 0;

			memcpy(&v, p, f[i].size < 8 ? f[i].size : 8);
			if (f[i].kind == AGG_FT_SINT && f[i].size < 8) {
				unsigned int sh = 64 - 8 * f[i].size;

				v = (uint64_t)((int64_t)(v << sh) >> sh);
			}
			at += snprintf(buf + at, len - at, f[i].kind == AGG_FT_SINT ? "%lld" : "%llu",
				       (long long)v);
		}
		off += f[i].size;
	}
}

/* ---- the emergency list ------------------------------------------------------- */

#define EM_SLOTS	96
#define EM_LINE		1600

static struct {
	volatile pid_t	owner;
	volatile int	used[EM_SLOTS];
	int		phase[EM_SLOTS];
	char		path[EM_SLOTS][PATH_MAX];
	char		line[EM_SLOTS][EM_LINE];
	int		n;
} em;
static pthread_mutex_t em_lock = PTHREAD_MUTEX_INITIALIZER;

int agg_em_add(enum agg_em_phase phase, const char *path, const char *line)
{
	int slot = -1;

	pthread_mutex_lock(&em_lock);
	if (strlen(path) < PATH_MAX && strlen(line) < EM_LINE) {
		for (int i = 0; i < EM_SLOTS && slot < 0; i++)
			if (!em.used[i] && i >= em.n)
				slot = i;
	}
	if (slot >= 0) {
		em.owner = getpid();
		em.phase[slot] = phase;
		strcpy(em.path[slot], path);
		strcpy(em.line[slot], line);
		__atomic_store_n(&em.used[slot], 1, __ATOMIC_RELEASE);
		em.n = slot + 1;
	}
	pthread_mutex_unlock(&em_lock);
	return slot;
}

void agg_em_drop(int slot)
{
	if (slot < 0 || slot >= EM_SLOTS)
		return;
	pthread_mutex_lock(&em_lock);
	__atomic_store_n(&em.used[slot], 0, __ATOMIC_RELEASE);
	while (em.n && !em.used[em.n - 1])
		em.n--;
	pthread_mutex_unlock(&em_lock);
}

void agg_emergency(void)
{
	if (em.owner != getpid())
		return;
	for (int phase = AGG_EM_TRIGGER; phase <= AGG_EM_SYNTH; phase++) {
		for (int i = em.n - 1; i >= 0; i--) {
			if (!__atomic_load_n(&em.used[i], __ATOMIC_ACQUIRE) || em.phase[i] != phase)
				continue;
			em.used[i] = 0;
			if (phase == AGG_EM_RMDIR) {
				char on[PATH_MAX + 16];
				size_t n = strlen(em.path[i]);

				if (n + 12 < sizeof(on)) {
					memcpy(on, em.path[i], n);
					memcpy(on + n, "/tracing_on", 12);
					file_write_str(on, "0", O_TRUNC);
				}
				rmdir(em.path[i]);
			} else {
				file_write_str(em.path[i], em.line[i], O_APPEND);
			}
		}
	}
}

int agg_tracefs_append(const char *path, const char *line)
{
	return file_write_str(path, line, O_APPEND);
}

void agg_error_log(const char *dir, const char *cmd, int ret, char *buf, size_t len)
{
	static const char tag[] = "  Command: ";
	char path[PATH_MAX + 16], msg[256] = "", *text, *p, *found = NULL;
	size_t cl = strcspn(cmd, " ");
	int pos = -1;

	snprintf(path, sizeof(path), "%s/error_log", dir);
	text = file_read_text(path);
	for (p = text; p && (p = strstr(p, tag)); p++)
		if (!strncmp(p + sizeof(tag) - 1, cmd, cl ? cl : strlen(cmd)))
			found = p;
	if (found) {
		char *line = found, *e, *caret;

		while (line > text && line[-1] != '\n')
			line--;
		if (line > text) {
			char *prev = line - 1;

			while (prev > text && prev[-1] != '\n')
				prev--;
			e = strstr(prev, "error: ");
			if (e && e < line)
				snprintf(msg, sizeof(msg), "%.*s", (int)strcspn(e + 7, "\n"), e + 7);
		}
		caret = strchr(found, '\n');
		if (caret && (e = strchr(caret + 1, '^')) && e - caret - 1 >= (int)sizeof(tag) - 1)
			pos = (int)(e - caret - 1) - (int)(sizeof(tag) - 1);
	}
	free(text);
	if (msg[0] && pos >= 0)
		str_fmt(buf, len, "the kernel refused it: %s\n  %s\n  %*s^", msg, cmd, pos, "");
	else
		str_fmt(buf, len, "the kernel refused it (%s)%s%s:\n  %s", strerror(-ret),
			msg[0] ? ": " : "", msg, cmd);
}

/* ---- the set ---------------------------------------------------------------------- */

int agg_set_new(struct agg_set **out, const struct agg_opts *o, char *err, size_t errlen)
{
	struct agg_set *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	s->o = *o;
	snprintf(s->tracefs, sizeof(s->tracefs), "%s", o->tracefs ? o->tracefs :
		 "/sys/kernel/tracing");
	if (o->events_dir)
		snprintf(s->events_dir, sizeof(s->events_dir), "%s", o->events_dir);
	else
		str_fmt(s->events_dir, sizeof(s->events_dir), "%s/events", s->tracefs);
	snprintf(s->clock, sizeof(s->clock), "%s", o->clock ? o->clock : "mono");
	if (!s->o.poll_ms)
		s->o.poll_ms = 1000;
	s->wake[0] = s->wake[1] = -1;
	ret = agg_formats_new(&s->fmts, s->events_dir);
	if (ret) {
		free(s);
		return err_set(err, errlen, ret, "out of memory");
	}
	pthread_mutex_init(&s->lock, NULL);
	str_fmt(s->inst, sizeof(s->inst), "%s/instances/ktop-agg-%d", s->tracefs, getpid());
	if (o->has_hist)
		snprintf(s->why, sizeof(s->why), "hist: the kernel has hist triggers and "
			 "synthetic events, so it measures in place%s", o->has_bpf ?
			 " (bpf: --agg-engine bpf)" : "");
	else if (o->has_bpf)
		snprintf(s->why, sizeof(s->why), "bpf: this kernel has no hist triggers or "
			 "synthetic events (CONFIG_HIST_TRIGGERS, CONFIG_SYNTH_EVENTS), so a BPF "
			 "tracepoint program measures");
	else
		str_fmt(s->why, sizeof(s->why), "none: this kernel has no hist triggers "
			"(CONFIG_HIST_TRIGGERS) and BPF is off (%s)", o->no_bpf_why ?
			o->no_bpf_why : "not available");
	*out = s;
	return 0;
}

int agg_set_new_fed(struct agg_set **out)
{
	struct agg_set *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->fed = true;
	s->wake[0] = s->wake[1] = -1;
	pthread_mutex_init(&s->lock, NULL);
	snprintf(s->why, sizeof(s->why), "measured where the recording was made");
	*out = s;
	return 0;
}

int agg_set_feed(struct agg_set *s, struct agg_result *res, unsigned int n)
{
	int ret = 0;

	pthread_mutex_lock(&s->lock);
	for (unsigned int i = 0; i < n; i++) {
		unsigned int k = res[i].idx;
		struct agg_item *it;

		if (k >= AGG_MAX_ITEMS || k > s->n) {
			agg_result_clear(&res[i]);
			ret = -EINVAL;
			continue;
		}
		if (k == s->n) {
			it = calloc(1, sizeof(*it));
			if (!it) {
				agg_result_clear(&res[i]);
				ret = -ENOMEM;
				continue;
			}
			it->idx = k;
			s->items[k] = it;
			__atomic_store_n(&s->n, k + 1, __ATOMIC_RELEASE);
		}
		it = s->items[k];
		agg_result_clear(&it->res);
		it->res = res[i];
		res[i].rows = NULL;
		res[i].nrows = 0;
	}
	pthread_mutex_unlock(&s->lock);
	return ret;
}

const char *agg_set_engine_why(const struct agg_set *s)
{
	return s->why;
}

unsigned int agg_set_count(const struct agg_set *s)
{
	return __atomic_load_n(&s->n, __ATOMIC_ACQUIRE);
}

/* The engine for @sp (AUTO resolved), or NULL with @err saying why none can. */
static const struct agg_engine_ops *pick(struct agg_set *s, const struct agg_spec *sp,
					 enum agg_engine want, bool sql, char *why, size_t wlen,
					 char *err, size_t errlen)
{
	if (want == AGG_ENGINE_HIST || sql) {
		if (!s->o.has_hist) {
			err_set(err, errlen, -EOPNOTSUPP, "%s needs hist triggers and synthetic "
				"events, which this kernel does not have (CONFIG_HIST_TRIGGERS, "
				"CONFIG_SYNTH_EVENTS)%s", sql ? "--sql" : "--agg-engine hist",
				sql ? ": --latency measures with the BPF engine" : "");
			return NULL;
		}
		snprintf(why, wlen, "%s", sql ? "--sql: sqlhist's SQL becomes hist triggers" :
			 want == AGG_ENGINE_HIST ? "asked for (--agg-engine hist)" :
			 "the kernel has hist triggers and synthetic events");
		return &agg_engine_hist;
	}
	if (want == AGG_ENGINE_AUTO && s->o.has_hist) {
		snprintf(why, wlen, "the kernel has hist triggers and synthetic events");
		return &agg_engine_hist;
	}
	if (!s->o.has_bpf) {
		err_set(err, errlen, -EOPNOTSUPP, "%s: BPF is off (%s)%s",
			want == AGG_ENGINE_BPF ? "--agg-engine bpf" : "no engine can measure it",
			s->o.no_bpf_why ? s->o.no_bpf_why : "not available",
			s->o.has_hist ? "" : ", and this kernel has no hist triggers "
			"(CONFIG_HIST_TRIGGERS)");
		return NULL;
	}
	if (sp->bpf_no[0]) {
		err_set(err, errlen, -EOPNOTSUPP, "%s%s", s->o.has_hist ? "" :
			"this kernel has no hist triggers (CONFIG_HIST_TRIGGERS), and ", sp->bpf_no);
		return NULL;
	}
	snprintf(why, wlen, "%s", want == AGG_ENGINE_BPF ? "asked for (--agg-engine bpf)" :
		 "this kernel has no hist triggers (CONFIG_HIST_TRIGGERS): a BPF tracepoint "
		 "program measures it");
	return &agg_engine_bpf;
}

static void item_free(struct agg_item *it)
{
	if (!it)
		return;
	agg_result_clear(&it->res);
	free(it);
}

/* Make one measure on @ops. Context: the set's lock held. */
static int add_one(struct agg_set *s, const struct agg_spec *sp, const char *sql,
		   const struct agg_engine_ops *ops, const char *why, char *err, size_t errlen)
{
	struct agg_item *it;
	int ret;

	if (s->n == AGG_MAX_ITEMS)
		return err_set(err, errlen, -ENOSPC, "at most %d measures", AGG_MAX_ITEMS);
	it = calloc(1, sizeof(*it));
	if (!it)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	it->spec = *sp;
	if (sql)
		snprintf(it->sql, sizeof(it->sql), "%s", sql);
	it->idx = s->n;
	it->ops = ops;
	it->unit_ns = 1;
	snprintf(it->why, sizeof(it->why), "%s", why);
	ret = ops->create(s, it, sql != NULL, err, errlen);
	if (ret) {
		item_free(it);
		return ret;
	}
	it->res.idx = it->idx;
	it->res.kind = it->spec.kind;
	it->res.engine = ops->name;
	it->res.unit_ns = it->unit_ns;
	it->res.running = true;
	snprintf(it->res.why, sizeof(it->res.why), "%s", it->why);
	agg_spec_title(&it->spec, it->res.title, sizeof(it->res.title));
	if (sql)
		snprintf(it->res.title, sizeof(it->res.title), "%s", sql);
	agg_event_name(&it->spec.ev[0], it->res.start, sizeof(it->res.start));
	if (it->spec.kind == AGG_LATENCY)
		agg_event_name(&it->spec.ev[1], it->res.end, sizeof(it->res.end));
	for (unsigned int i = 0, n = 0; i < it->spec.nkey; i++)
		n += snprintf(it->res.keynames + n, sizeof(it->res.keynames) - n, "%s%s",
			      i ? ", " : "", it->spec.key[i].name);
	__atomic_store_n(&s->items[s->n], it, __ATOMIC_RELEASE);
	__atomic_store_n(&s->n, s->n + 1, __ATOMIC_RELEASE);
	return it->idx;
}

int agg_set_add(struct agg_set *s, enum agg_spec_kind kind, bool sql, const char *text,
		char *err, size_t errlen)
{
	char why[256], msg[1024], why2[256];
	const struct agg_engine_ops *ops, *ops2 = NULL;
	struct agg_spec sp;
	struct agg_err e;
	int ret, first;

	if (s->fed)
		return err_set(err, errlen, -ENODEV, "a recording has no kernel to measure in");
	pthread_mutex_lock(&s->lock);
	if (sql) {
		memset(&sp, 0, sizeof(sp));
		sp.kind = AGG_LATENCY;
		snprintf(sp.text, sizeof(sp.text), "%s", text);
	} else {
		ret = agg_spec_parse(kind, text, s->fmts, &sp, &e);
		if (ret) {
			agg_err_format(&e, text, msg, sizeof(msg));
			err_set(err, errlen, ret, "%s", msg);
			goto out;
		}
	}
	ops = pick(s, &sp, s->o.engine == AGG_ENGINE_BOTH ? AGG_ENGINE_HIST : s->o.engine, sql,
		   why, sizeof(why), err, errlen);
	if (!ops) {
		ret = -EOPNOTSUPP;
		goto out;
	}
	if (s->o.engine == AGG_ENGINE_BOTH && !sql) {
		ops2 = pick(s, &sp, AGG_ENGINE_BPF, false, why2, sizeof(why2), err, errlen);
		if (!ops2) {
			ret = -EOPNOTSUPP;
			goto out;
		}
		snprintf(why, sizeof(why), "both engines asked for (--agg-engine both)");
		snprintf(why2, sizeof(why2), "both engines asked for (--agg-engine both)");
	}
	ret = first = add_one(s, &sp, sql ? text : NULL, ops, why, err, errlen);
	if (ret >= 0 && ops2) {
		ret = add_one(s, &sp, NULL, ops2, why2, err, errlen);
		if (ret < 0) {
			/* all or nothing: the first goes again */
			struct agg_item *it = s->items[first];

			it->ops->destroy(s, it);
			s->items[first] = NULL;
			s->n--;
			item_free(it);
		} else {
			ret = first;
		}
	}
out:
	pthread_mutex_unlock(&s->lock);
	return ret;
}

/* Poll measure @it into its result. Context: one poller at a time. */
static void poll_item(struct agg_set *s, struct agg_item *it, bool full)
{
	struct agg_result r;
	char err[256] = "";
	uint64_t now = now_ns();
	int ret;

	memset(&r, 0, sizeof(r));
	ret = it->ops->poll(s, it, &r, full, err, sizeof(err));
	pthread_mutex_lock(&s->lock);
	if (ret) {
		snprintf(it->res.error, sizeof(it->res.error), "%s", err);
		agg_result_clear(&r);
		pthread_mutex_unlock(&s->lock);
		return;
	}
	if (r.nrows > 1)
		qsort(r.rows, r.nrows, sizeof(*r.rows), row_cmp);
	/* keep what the engine does not fill */
	r.idx = it->res.idx;
	r.kind = it->res.kind;
	memcpy(r.title, it->res.title, sizeof(r.title));
	memcpy(r.start, it->res.start, sizeof(r.start));
	memcpy(r.end, it->res.end, sizeof(r.end));
	memcpy(r.keynames, it->res.keynames, sizeof(r.keynames));
	memcpy(r.why, it->res.why, sizeof(r.why));
	memcpy(r.kobj, it->res.kobj, sizeof(r.kobj));
	r.engine = it->res.engine;
	r.running = it->res.running;
	r.unit_ns = it->unit_ns;
	if (!full) {
		/* the slow figures of the last full poll */
		if (!r.dropped)
			r.dropped = it->res.dropped;
		if (!r.starts)
			r.starts = it->res.starts;
		if (!r.ends)
			r.ends = it->res.ends;
	}
	if (it->res.polled_ns && now > it->res.polled_ns && r.count >= it->res.count)
		r.rate = (double)(r.count - it->res.count) * 1e9 / (double)(now - it->res.polled_ns);
	r.polled_ns = now;
	agg_result_clear(&it->res);
	it->res = r;
	if (s->watch && r.kind == AGG_LATENCY && r.count && r.max_ns > it->watched_max) {
		struct agg_worst w = r.worst;

		it->watched_max = r.max_ns;
		s->watch(s->watch_arg, it->idx, &w);
	}
	pthread_mutex_unlock(&s->lock);
}

void agg_set_poll(struct agg_set *s)
{
	unsigned int n = s->fed ? 0 : agg_set_count(s);

	for (unsigned int i = 0; i < n; i++)
		poll_item(s, __atomic_load_n(&s->items[i], __ATOMIC_ACQUIRE), true);
}

static void *poller(void *arg)
{
	struct agg_set *s = arg;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_setname_np(pthread_self(), "ktop-agg");
	for (;;) {
		struct pollfd p = { .fd = s->wake[0], .events = POLLIN };
		unsigned int n = agg_set_count(s);
		bool full = s->npolls++ % AGG_FULL_EVERY == 0;

		for (unsigned int i = 0; i < n; i++)
			poll_item(s, __atomic_load_n(&s->items[i], __ATOMIC_ACQUIRE), full);
		if (poll(&p, 1, s->o.poll_ms) > 0)
			break;
	}
	return NULL;
}

int agg_set_start(struct agg_set *s)
{
	int ret;

	if (s->started || s->fed)
		return 0;
	if (pipe2(s->wake, O_CLOEXEC))
		return -errno;
	ret = -pthread_create(&s->thread, NULL, poller, s);
	if (ret) {
		close(s->wake[0]);
		close(s->wake[1]);
		s->wake[0] = s->wake[1] = -1;
		return ret;
	}
	s->started = true;
	return 0;
}

void agg_set_free(struct agg_set *s)
{
	if (!s)
		return;
	if (s->started) {
		if (write(s->wake[1], "", 1) < 0) {
			/* the poller ends at its next poll anyway */
		}
		pthread_join(s->thread, NULL);
		s->started = false;
	}
	if (s->wake[0] >= 0) {
		close(s->wake[0]);
		close(s->wake[1]);
	}
	pthread_mutex_lock(&s->lock);
	for (int i = (int)s->n - 1; i >= 0; i--) {
		if (s->items[i]->ops)
			s->items[i]->ops->destroy(s, s->items[i]);
		item_free(s->items[i]);
		s->items[i] = NULL;
	}
	s->n = 0;
	if (s->inst_made)
		agg_hist_instance_remove(s);
	pthread_mutex_unlock(&s->lock);
	pthread_mutex_destroy(&s->lock);
	agg_formats_free(s->fmts);
	free(s);
}

int agg_set_result(struct agg_set *s, unsigned int i, struct agg_result *out)
{
	int ret = -EINVAL;

	pthread_mutex_lock(&s->lock);
	if (i < s->n)
		ret = agg_result_copy(out, &s->items[i]->res);
	pthread_mutex_unlock(&s->lock);
	return ret;
}

int agg_max(struct agg_set *s, unsigned int i, struct agg_worst *out)
{
	int ret = -EINVAL;

	pthread_mutex_lock(&s->lock);
	if (i < s->n && s->items[i]->res.kind == AGG_LATENCY) {
		ret = s->items[i]->res.count ? 0 : -ENOENT;
		*out = s->items[i]->res.worst;
	}
	pthread_mutex_unlock(&s->lock);
	return ret;
}

void agg_watch(struct agg_set *s, void (*fn)(void *arg, unsigned int i,
					     const struct agg_worst *w), void *arg)
{
	pthread_mutex_lock(&s->lock);
	s->watch = fn;
	s->watch_arg = arg;
	pthread_mutex_unlock(&s->lock);
}
