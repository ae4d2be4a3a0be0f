// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The recorder's conditions: their grammar, and the check of an event
 * condition against the kernel's formats (read only).
 *
 *   COND     := EVENT [['if'] FILTER]
 *             | 'probe' SPEC ['if' FILTER]
 *             | 'timerlat' ['irq' | 'thread' | 'user'] OP DURATION
 *             | 'osnoise' OP DURATION
 *             | 'lost' [OP COUNT]
 *             | BPFSTAT OP VALUE
 *             | 'latency' SPEC OP DURATION
 *   EVENT    := SYSTEM:NAME | SYSTEM/NAME | NAME
 *   OP       := '>' | '>='
 *   DURATION := NUMBER ['ns' | 'us' | 'ms' | 's']      (no unit: us, as rtla)
 *   BPFSTAT  := 'runq-p99' | 'runq-avg' (DURATION) | 'hardirq' | 'softirq' (NUMBER['%'])
 *             | 'ctxsw' | 'syscalls' (NUMBER['k'|'M'], per second)
 *   SPEC     := START '->' END [...]     --latency's spec (src/agg/agg_spec.h): the
 *                                        bound is the last '>' or '>=' of the text
 *
 * FILTER is the kernel's event filter grammar (src/view/vfexpr.h); the same
 * text goes to the kernel when it stops recording at the match (a traceoff
 * trigger's "if FILTER").
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "bpfstats/bpfstats.h"
#include "lib/err.h"
#include "lib/file.h"
#include "store/schema.h"
#include "store/store.h"
#include "view/vfexpr.h"
#include "recorder-local.h"

#define cond_err(err, pos, ...)	err_pos_set(err, pos, -EINVAL, __VA_ARGS__)

/* The BPF statistics a condition may name, and how their values read. */
enum { BV_DURATION, BV_PERCENT, BV_RATE };

static const struct {
	const char	*name;
	int		metric;		/* enum bpfstats_metric */
	int		kind;
	const char	*what;
} bpf_stats[] = {
	{ "runq-p99", BPFSTATS_RUNQ_P99_US, BV_DURATION, "run-queue latency, 99th percentile" },
	{ "runq-avg", BPFSTATS_RUNQ_AVG_US, BV_DURATION, "run-queue latency, mean" },
	{ "hardirq", BPFSTATS_HARDIRQ_PCT, BV_PERCENT, "share of time in hardirqs" },
	{ "softirq", BPFSTATS_SOFTIRQ_PCT, BV_PERCENT, "share of time in softirqs" },
	{ "ctxsw", BPFSTATS_CTXSW, BV_RATE, "context switches per second" },
	{ "syscalls", BPFSTATS_SYSCALL_RATE, BV_RATE, "syscalls per second" },
};

static int bpf_stat_index(int metric)
{
	for (size_t i = 0; i < sizeof(bpf_stats) / sizeof(bpf_stats[0]); i++)
		if (bpf_stats[i].metric == metric)
			return (int)i;
	return -1;
}

/* A number with an optional fraction. Return: the characters read, 0 when none. */
static size_t read_number(const char *s, size_t len, double *v)
{
	char buf[64], *end;
	size_t n = 0;

	while (n < len && n < sizeof(buf) - 1 && (isdigit((unsigned char)s[n]) || s[n] == '.'))
		n++;
	if (!n)
		return 0;
	memcpy(buf, s, n);
	buf[n] = 0;
	*v = strtod(buf, &end);
	return end == buf + n ? n : 0;
}

int rec_parse_duration(const char *s, size_t len, uint64_t *ns)
{
	static const struct {
		const char	*unit;
		double		mul;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "", 1e3 } };
	double v;
	size_t n = read_number(s, len, &v);

	if (!n)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (len - n == strlen(units[i].unit) && !strncmp(s + n, units[i].unit, len - n)) {
			if (v * units[i].mul > 1e18)
				return -EINVAL;
			*ns = (uint64_t)(v * units[i].mul + 0.5);
			return 0;
		}
	}
	return -EINVAL;
}

/* A value of BPF statistic kind @kind, stored x 1000 (durations: ns). */
static int parse_bpf_value(int kind, const char *s, size_t len, uint64_t *out)
{
	double v, mul = 1;
	size_t n;

	if (kind == BV_DURATION)
		return rec_parse_duration(s, len, out);
	n = read_number(s, len, &v);
	if (!n)
		return -EINVAL;
	if (kind == BV_PERCENT && len - n == 1 && s[n] == '%')
		n++;
	else if (kind == BV_RATE && len - n == 1 && (s[n] == 'k' || s[n] == 'K'))
		mul = 1e3, n++;
	else if (kind == BV_RATE && len - n == 1 && s[n] == 'M')
		mul = 1e6, n++;
	if (n != len || v * mul > 1e15 || (kind == BV_PERCENT && v > 100))
		return -EINVAL;
	*out = (uint64_t)(v * mul * 1000 + 0.5);
	return 0;
}

static size_t skip_ws(const char *t, size_t p)
{
	while (t[p] == ' ' || t[p] == '\t')
		p++;
	return p;
}

/* The word at @p (up to a blank or an operator). */
static size_t word_len(const char *t, size_t p)
{
	size_t n = 0;

	while (t[p + n] && !isspace((unsigned char)t[p + n]) && t[p + n] != '>' &&
	       t[p + n] != '<' && t[p + n] != '=')
		n++;
	return n;
}

static bool word_is(const char *t, size_t p, size_t n, const char *w)
{
	return n == strlen(w) && !strncmp(t + p, w, n);
}

/* OP VALUE at @p: '>' or '>=', then the rest. Return: the value's offset, or -EINVAL. */
static int parse_op(struct recorder_cond *c, size_t p, const char *what, struct err_pos *err)
{
	const char *t = c->text;

	p = skip_ws(t, p);
	if (t[p] != '>')
		return cond_err(err, (int)p, "%s: wants '> %s' here", c->kind == RECORDER_LOST ?
				"lost" : "the bound", what);
	p++;
	if (t[p] == '=') {
		c->ge = true;
		p++;
	}
	p = skip_ws(t, p);
	if (!t[p])
		return cond_err(err, (int)p, "no %s after the operator", what);
	return (int)p;
}

static int parse_latency(struct recorder_cond *c, size_t p, size_t n, struct err_pos *err)
{
	const char *t = c->text;
	size_t v, end;
	int ret;

	c->kind = RECORDER_LATENCY;
	c->lat = word_is(t, p, n, "osnoise") ? RECORDER_LAT_OSNOISE : RECORDER_LAT_TIMERLAT;
	p = skip_ws(t, p + n);
	n = word_len(t, p);
	if (c->lat == RECORDER_LAT_TIMERLAT && n) {
		if (word_is(t, p, n, "irq"))
			c->lat = RECORDER_LAT_TIMERLAT_IRQ;
		else if (word_is(t, p, n, "thread"))
			c->lat = RECORDER_LAT_TIMERLAT_THREAD;
		else if (word_is(t, p, n, "user"))
			c->lat = RECORDER_LAT_TIMERLAT_USER;
		else
			return cond_err(err, (int)p, "timerlat: 'irq', 'thread', 'user' or "
					"'> DURATION' here, not '%.*s'", (int)n, t + p);
		p += n;
	}
	ret = parse_op(c, p, "duration (100us, 2ms)", err);
	if (ret < 0)
		return ret;
	v = (size_t)ret;
	end = v + word_len(t, v);
	if (t[skip_ws(t, end)])
		return cond_err(err, (int)skip_ws(t, end), "unexpected '%s' after the bound",
				t + skip_ws(t, end));
	if (rec_parse_duration(t + v, end - v, &c->bound) || !c->bound)
		return cond_err(err, (int)v, "'%.*s' is not a duration: write 100us, 2.5ms, "
				"1s or 300 (us)", (int)(end - v), t + v);
	return 0;
}

static int parse_lost(struct recorder_cond *c, size_t p, struct err_pos *err)
{
	const char *t = c->text;
	char *endp;
	int ret;

	c->kind = RECORDER_LOST;
	p = skip_ws(t, p);
	if (!t[p])
		return 0;	/* any loss */
	ret = parse_op(c, p, "count", err);
	if (ret < 0)
		return ret;
	errno = 0;
	c->bound = strtoull(t + ret, &endp, 10);
	if (endp == t + ret || errno || t[skip_ws(t, (size_t)(endp - t))])
		return cond_err(err, ret, "lost: wants a count of events ('lost > 1000')");
	return 0;
}

static int parse_bpf(struct recorder_cond *c, size_t p, size_t n, int i, struct err_pos *err)
{
	static const char *const wants[] = { "duration (5ms)", "percentage (20%)",
					     "rate per second (100k)" };
	const char *t = c->text;
	size_t v, end;
	int ret;

	c->kind = RECORDER_BPF;
	c->metric = bpf_stats[i].metric;
	ret = parse_op(c, p + n, wants[bpf_stats[i].kind], err);
	if (ret < 0)
		return ret;
	v = (size_t)ret;
	end = v + word_len(t, v);
	if (t[skip_ws(t, end)])
		return cond_err(err, (int)skip_ws(t, end), "unexpected '%s' after the bound",
				t + skip_ws(t, end));
	if (parse_bpf_value(bpf_stats[i].kind, t + v, end - v, &c->bound))
		return cond_err(err, (int)v, "%s (%s) wants a %s, not '%.*s'", bpf_stats[i].name,
				bpf_stats[i].what, wants[bpf_stats[i].kind], (int)(end - v),
				t + v);
	return 0;
}

/*
 * 'latency' SPEC OP DURATION: an in-kernel A->B latency over a bound. The
 * spec is --latency's, checked against the kernel when its measure is made;
 * the bound is the last '>' of the text (a where clause may compare too).
 */
static int parse_agg(struct recorder_cond *c, size_t p, struct err_pos *err)
{
	const char *t = c->text, *gt = strrchr(t + p, '>');
	size_t s = skip_ws(t, p), op, v, end;

	c->kind = RECORDER_AGG;
	if (!t[s] || !strstr(t + s, "->"))
		return cond_err(err, (int)s, "latency: wants START -> END as --latency takes it, "
				"then '> DURATION' (latency sched:sched_waking -> "
				"sched:sched_switch on pid = next_pid > 2ms)");
	if (!gt || (gt > t && gt[-1] == '-'))
		return cond_err(err, (int)strlen(t), "latency: wants '> DURATION' at the end "
				"(> 2ms)");
	op = (size_t)(gt - t);
	v = op + 1;
	if (t[v] == '=') {
		c->ge = true;
		v++;
	}
	v = skip_ws(t, v);
	end = v + word_len(t, v);
	if (!t[v])
		return cond_err(err, (int)v, "no duration (100us, 2ms) after the operator");
	if (t[skip_ws(t, end)])
		return cond_err(err, (int)skip_ws(t, end), "unexpected '%s' after the bound",
				t + skip_ws(t, end));
	if (rec_parse_duration(t + v, end - v, &c->bound) || !c->bound)
		return cond_err(err, (int)v, "'%.*s' is not a duration: write 100us, 2.5ms, "
				"1s or 300 (us)", (int)(end - v), t + v);
	while (op > s && isspace((unsigned char)t[op - 1]))
		op--;
	if (!strstr(t + s, "->") || (size_t)(strstr(t + s, "->") - t) >= op)
		return cond_err(err, (int)s, "latency: wants START -> END before the bound");
	snprintf(c->agg, sizeof(c->agg), "%.*s", (int)(op - s), t + s);
	return 0;
}

/* Where " if " starts (a word of its own), or NULL. */
static const char *find_if(const char *s)
{
	for (const char *q = s; (q = strstr(q, "if")); q++) {
		if ((q == s || isspace((unsigned char)q[-1])) && (!q[2] || isspace((unsigned char)q[2])))
			return q;
	}
	return NULL;
}

static int parse_filter(struct recorder_cond *c, size_t p, struct err_pos *err)
{
	struct vfexpr *x = NULL;
	int ret;

	p = skip_ws(c->text, p);
	if (!c->text[p])
		return cond_err(err, (int)p, "'if' wants a filter after it (comm ~ \"name*\")");
	snprintf(c->filter, sizeof(c->filter), "%s", c->text + p);
	c->filter_pos = (int)p;
	ret = vfexpr_parse(&x, c->filter, NULL, NULL, NULL, err);
	vfexpr_free(x);
	if (ret && err)
		err->offset += (int)p;
	return ret;
}

static bool ev_char(char ch)
{
	return isalnum((unsigned char)ch) || strchr("_:/.-", ch);
}

static int parse_probe(struct recorder_cond *c, size_t p, struct err_pos *err)
{
	const char *t = c->text, *iff;
	size_t end;

	c->kind = RECORDER_PROBE;
	p = skip_ws(t, p);
	iff = find_if(t + p);
	end = iff ? (size_t)(iff - t) : strlen(t);
	while (end > p && isspace((unsigned char)t[end - 1]))
		end--;
	if (end == p)
		return cond_err(err, (int)p, "probe: wants a probe spec, as --probe takes "
				"('probe vfs_read%%return $retval')");
	snprintf(c->probe, sizeof(c->probe), "%.*s", (int)(end - p), t + p);
	return iff ? parse_filter(c, (size_t)(iff - t) + 2, err) : 0;
}

static int parse_event(struct recorder_cond *c, size_t p, struct err_pos *err)
{
	const char *t = c->text, *sep;
	size_t n = 0;

	c->kind = RECORDER_EVENT;
	while (t[p + n] && ev_char(t[p + n]))
		n++;
	if (!n || (t[p + n] && !isspace((unsigned char)t[p + n])))
		return cond_err(err, (int)(p + n), "a condition starts with an event "
				"(sched:sched_switch), probe, timerlat, osnoise, lost, latency "
				"or a BPF statistic (runq-p99...)");
	sep = memchr(t + p, ':', n);
	if (!sep)
		sep = memchr(t + p, '/', n);
	if (sep) {
		size_t sl = (size_t)(sep - t - p);

		if (!sl || sl >= sizeof(c->system) || n - sl - 1 == 0 ||
		    n - sl - 1 >= sizeof(c->event) || memchr(sep + 1, ':', n - sl - 1) ||
		    memchr(sep + 1, '/', n - sl - 1))
			return cond_err(err, (int)p, "'%.*s' is not an event: write SYSTEM:NAME",
					(int)n, t + p);
		memcpy(c->system, t + p, sl);
		c->system[sl] = 0;
		memcpy(c->event, sep + 1, n - sl - 1);
		c->event[n - sl - 1] = 0;
	} else {
		if (n >= sizeof(c->event))
			return cond_err(err, (int)p, "event name too long");
		memcpy(c->event, t + p, n);
		c->event[n] = 0;
	}
	p = skip_ws(t, p + n);
	if (!t[p])
		return 0;
	if (!strncmp(t + p, "if", 2) && (!t[p + 2] || isspace((unsigned char)t[p + 2])))
		p += 2;
	return parse_filter(c, p, err);
}

int recorder_cond_parse(struct recorder_cond *c, const char *text, struct err_pos *err)
{
	size_t p, n, len;

	memset(c, 0, sizeof(*c));
	if (err) {
		err->offset = -1;
		err->msg[0] = 0;
	}
	p = skip_ws(text, 0);
	len = strlen(text + p);
	while (len && isspace((unsigned char)text[p + len - 1]))
		len--;
	if (!len)
		return cond_err(err, (int)p, "empty condition");
	if (len >= sizeof(c->text))
		return cond_err(err, (int)sizeof(c->text), "condition longer than %zu bytes",
				sizeof(c->text) - 1);
	/* offsets are into the trimmed text: the caller shows that */
	memcpy(c->text, text + p, len);
	c->text[len] = 0;
	n = word_len(c->text, 0);
	if (word_is(c->text, 0, n, "timerlat") || word_is(c->text, 0, n, "osnoise"))
		return parse_latency(c, 0, n, err);
	if (word_is(c->text, 0, n, "lost"))
		return parse_lost(c, n, err);
	if (word_is(c->text, 0, n, "probe"))
		return parse_probe(c, n, err);
	if (word_is(c->text, 0, n, "latency"))
		return parse_agg(c, n, err);
	for (size_t i = 0; i < sizeof(bpf_stats) / sizeof(bpf_stats[0]); i++)
		if (word_is(c->text, 0, n, bpf_stats[i].name))
			return parse_bpf(c, 0, n, (int)i, err);
	return parse_event(c, 0, err);
}

const char *recorder_value_str(const struct recorder_cond *c, uint64_t value, char *buf,
			       size_t len)
{
	static const char *const lat[] = { "timerlat", "timerlat irq", "timerlat thread",
					   "timerlat user", "osnoise" };
	int i;

	switch (c->kind) {
	case RECORDER_LATENCY:
		snprintf(buf, len, "%s %.1fus", lat[c->lat], (double)value / 1e3);
		break;
	case RECORDER_LOST:
		snprintf(buf, len, "lost %llu", (unsigned long long)value);
		break;
	case RECORDER_AGG:
		if (value >= 1000000000ull)
			snprintf(buf, len, "latency %.3fs", (double)value / 1e9);
		else if (value >= 1000000ull)
			snprintf(buf, len, "latency %.3fms", (double)value / 1e6);
		else
			snprintf(buf, len, "latency %.1fus", (double)value / 1e3);
		break;
	case RECORDER_BPF:
		i = bpf_stat_index(c->metric);
		if (i < 0)
			snprintf(buf, len, "bpf %llu", (unsigned long long)value);
		else if (bpf_stats[i].kind == BV_DURATION)
			snprintf(buf, len, "%s %.1fus", bpf_stats[i].name, (double)value / 1e3);
		else if (bpf_stats[i].kind == BV_PERCENT)
			snprintf(buf, len, "%s %.1f%%", bpf_stats[i].name, (double)value / 1e3);
		else
			snprintf(buf, len, "%s %.0f/s", bpf_stats[i].name, (double)value / 1e3);
		break;
	default:
		snprintf(buf, len, "%s", c->event);
	}
	return buf;
}

/* ---- the check against the kernel's formats ------------------------------------------ */

/* The one system under @tracefs/events with an event @name; "" and a list when not one. */
static int find_system(const char *tracefs, const char *name, char *sys, size_t syslen,
		       char *found, size_t flen)
{
	char path[1024];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/events", tracefs);
	d = opendir(path);
	if (!d)
		return -errno;
	found[0] = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs, de->d_name, name);
		if (access(path, F_OK))
			continue;
		if (!n++ && strlen(de->d_name) < syslen)
			memcpy(sys, de->d_name, strlen(de->d_name) + 1);
		snprintf(found + strlen(found), flen - strlen(found), "%s%s:%s", n > 1 ? ", " : "",
			 de->d_name, name);
	}
	closedir(d);
	return n;
}

/* The fields of a tracefs format as a schema type (strings, numbers); @t's names point into @ev. */
static void type_from_format(struct tep_event *ev, struct ktop_schema_type *t)
{
	struct tep_format_field *f;

	memset(t, 0, sizeof(*t));
	t->system = ev->system;
	t->name = ev->name;
	for (f = ev->format.fields; f && t->nfields < KTOP_MAX_ARGS; f = f->next) {
		struct ktop_field *k = &t->fields[t->nfields++];

		k->name = f->name;
		if (f->flags & (TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_ARRAY))
			k->kind = KTOP_FK_STR;
		else if (f->flags & TEP_FIELD_IS_SIGNED)
			k->kind = KTOP_FK_INT;
		else
			k->kind = KTOP_FK_UINT;
	}
}

int recorder_cond_check(struct recorder_cond *c, const char *tracefs, struct err_pos *err)
{
	const struct ktop_schema_type *fixed = NULL;
	struct ktop_schema_type t;
	struct tep_handle *tep = NULL;
	struct tep_event *ev = NULL;
	struct schema *sc = NULL;
	struct vfexpr *x = NULL;
	char path[1024], found[512], *text = NULL;
	size_t len;
	int ret, id;

	if (c->kind != RECORDER_EVENT)
		return 0;
	if (!c->system[0]) {
		ret = find_system(tracefs, c->event, c->system, sizeof(c->system), found,
				  sizeof(found));
		if (ret < 0)
			return cond_err(err, 0, "cannot list %s/events: %s", tracefs,
					strerror(-ret));
		if (ret != 1) {
			c->system[0] = 0;
			return ret ? cond_err(err, 0, "'%s' names %d events (%s): write "
					      "SYSTEM:NAME", c->event, ret, found) :
				     err_pos_set(err, 0, -ENOENT, "this kernel has no event "
						      "'%s' (see %s/available_events)",
						      c->event, tracefs);
		}
	}
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs, c->system, c->event);
	text = file_read_text(path);
	if (!text) {
		ret = errno ? -errno : -EIO;
		return err_pos_set(err, 0, ret, "this kernel has no event %s:%s (%s: %s)",
					c->system, c->event, path, strerror(-ret));
	}
	len = strlen(text);
	if (!c->filter[0]) {
		free(text);
		return 0;
	}
	/* the fields: ktop's own layout for the types it decodes itself, else the format's */
	sc = schema_new();
	id = sc ? schema_find(sc, c->system, c->event) : -ENOENT;
	if (id >= 0)
		fixed = schema_get(sc, (uint16_t)id);
	tep = tep_alloc();
	if (!tep) {
		ret = -ENOMEM;
		goto out;
	}
	if (!fixed) {
		if (tep_parse_event(tep, text, len, c->system) || !(ev = tep_find_event_by_name(
				tep, c->system, c->event))) {
			ret = cond_err(err, 0, "cannot parse the format of %s:%s", c->system,
				       c->event);
			goto out;
		}
		type_from_format(ev, &t);
		fixed = &t;
	}
	ret = vfexpr_parse(&x, c->filter, NULL, NULL, NULL, err);
	if (!ret)
		ret = vfexpr_check_type(x, c->filter, fixed, err);
	if (ret && err && err->offset >= 0)
		err->offset += c->filter_pos;
out:
	vfexpr_free(x);
	tep_free(tep);
	schema_free(sc);
	free(text);
	return ret;
}
