// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Snapshot, compare and restore the settings of a tracefs directory.
 * See tracestate.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/array.h"
#include "lib/file.h"
#include "tracestate.h"

enum ts_kind {
	TS_PLAIN,	/* O_TRUNC, one write */
	TS_LINES,	/* O_TRUNC, then one write per line (set_event, filters, pids) */
	TS_FILTER,	/* events/.../filter: "none" is written as "0" */
	TS_COMPARE,	/* compared, never written (instances, triggers) */
};

enum ts_group {
	TS_G_MAIN,
	TS_G_EVENT,	/* events/<sys>/<event>/<file>: absent means default */
};

struct ts_entry {
	char		*key;		/* relative to the directory */
	char		*path;		/* absolute, prepared for the blind restore */
	char		*value;		/* normalised */
	unsigned char	kind;
	unsigned char	group;
	bool		unreadable;
};

struct tracestate {
	char		*dir;
	bool		raw;			/* TRACESTATE_RAW: compared, never restored */
	char		expanded_kb[24];	/* size of a buffer not yet allocated */
	struct ts_entry	*e;
	int		n;
	size_t		cap;
};

struct ts_file {
	const char	*name;
	enum ts_kind	kind;
};

/*
 * Restore order: the tracer first (changing it resets tracer options and the
 * buffer), then its filters and options, then buffers, pids, events, and
 * tracing_on last so that nothing is recorded half-configured.
 */
static const struct ts_file ts_files_head[] = {
	{ "current_tracer",		TS_PLAIN },
	{ "set_ftrace_filter",		TS_LINES },
	{ "set_ftrace_notrace",		TS_LINES },
	{ "set_graph_function",		TS_LINES },
	{ "set_graph_notrace",		TS_LINES },
	{ "max_graph_depth",		TS_PLAIN },
	{ "set_ftrace_pid",		TS_LINES },
	{ "set_ftrace_notrace_pid",	TS_LINES },
};

static const struct ts_file ts_files_mid[] = {
	{ "trace_clock",		TS_PLAIN },
	{ "buffer_percent",		TS_PLAIN },
	{ "buffer_subbuf_size_kb",	TS_PLAIN },
	{ "buffer_size_kb",		TS_PLAIN },
};

static const struct ts_file ts_files_tail[] = {
	{ "tracing_cpumask",		TS_PLAIN },
	{ "tracing_thresh",		TS_PLAIN },
	/* osnoise/timerlat settings: global, top level only (twice: period/runtime order) */
	{ "osnoise/cpus",		TS_PLAIN },
	{ "osnoise/period_us",		TS_PLAIN },
	{ "osnoise/runtime_us",		TS_PLAIN },
	{ "osnoise/period_us",		TS_PLAIN },
	{ "osnoise/stop_tracing_us",	TS_PLAIN },
	{ "osnoise/stop_tracing_total_us", TS_PLAIN },
	{ "osnoise/timerlat_period_us",	TS_PLAIN },
	{ "osnoise/print_stack",	TS_PLAIN },
	{ "set_event_pid",		TS_LINES },
	{ "set_event_notrace_pid",	TS_LINES },
	{ "set_event",			TS_LINES },
};

/* Only in a raw capture: what the others imply, as the kernel shows it. */
static const struct ts_file ts_files_raw[] = {
	{ "buffer_total_size_kb",	TS_COMPARE },
	{ "trace_options",		TS_COMPARE },
	{ "saved_cmdlines_size",	TS_COMPARE },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int ts_add(struct tracestate *ts, const char *key, const char *value, enum ts_kind kind,
		  enum ts_group group, bool unreadable)
{
	struct ts_entry *e;

	if (array_grow((void **)&ts->e, &ts->cap, (size_t)ts->n + 1, sizeof(*ts->e)))
		return -ENOMEM;
	e = &ts->e[ts->n];
	memset(e, 0, sizeof(*e));
	e->key = strdup(key);
	e->value = strdup(value ? value : "");
	if (asprintf(&e->path, "%s/%s", ts->dir, key) < 0)
		e->path = NULL;
	if (!e->key || !e->value || !e->path) {
		free(e->key);
		free(e->value);
		free(e->path);
		return -ENOMEM;
	}
	e->kind = kind;
	e->group = group;
	e->unreadable = unreadable;
	ts->n++;
	return 0;
}

/*
 * Normalise @buf in place: drop '#' comment lines and trailing blanks on
 * every line and at the end; reduce the values the kernel decorates.
 * Return: @buf, or the value that stands for it (a per-CPU size not yet
 * allocated: the expanded size read before, in @ts).
 */
static const char *ts_normalise(struct tracestate *ts, const char *key, char *buf)
{
	const char *base = strrchr(key, '/');
	char *r = buf, *w = buf, *p, *q;

	base = base ? base + 1 : key;
	while (*r) {
		char *eol = strchr(r, '\n');
		size_t l = eol ? (size_t)(eol - r) : strlen(r);

		while (l && (r[l - 1] == ' ' || r[l - 1] == '\t' || r[l - 1] == '\r'))
			l--;
		if (r[0] != '#' && l) {
			if (w != buf)
				*w++ = '\n';
			memmove(w, r, l);
			w += l;
		}
		if (!eol)
			break;
		r = eol + 1;
	}
	*w = '\0';

	if (!strcmp(base, "trace_clock")) {
		p = strchr(buf, '[');
		q = p ? strchr(p, ']') : NULL;
		if (p && q) {
			memmove(buf, p + 1, q - p - 1);
			buf[q - p - 1] = '\0';
		}
	} else if (!strcmp(base, "buffer_size_kb")) {
		/* "7 (expanded: 1408)": not yet allocated, 1408 once used */
		p = strstr(buf, "(expanded:");
		if (p) {
			p += strlen("(expanded:");
			while (*p == ' ')
				p++;
			q = p;
			while (*q >= '0' && *q <= '9')
				q++;
			memmove(buf, p, q - p);
			buf[q - p] = '\0';
			if (ts && !strchr(key, '/'))
				snprintf(ts->expanded_kb, sizeof(ts->expanded_kb), "%s", buf);
		} else if (ts && strchr(key, '/') && ts->expanded_kb[0]) {
			/* per-CPU sizes read "7" until the buffer is expanded */
			return ts->expanded_kb;
		}
	} else if (!strcmp(buf, "no pid")) {
		buf[0] = '\0';
	}
	return buf;
}

static int ts_add_file(struct tracestate *ts, const char *key, enum ts_kind kind,
		       enum ts_group group)
{
	const char *shown, *cmp;
	char path[4096];
	char *buf, *norm;
	bool skip = false;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", ts->dir, key);
	buf = file_read_text(path);
	if (!buf) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		if (errno == ENOMEM)
			return -ENOMEM;
		/* EPERM and the like: there, but not ours to read or write */
		return ts_add(ts, key, "?unreadable", kind, group, true);
	}
	/* raw: kept as read; an event file is still left out when at its default */
	norm = ts->raw && group == TS_G_EVENT ? strdup(buf) : buf;
	if (!norm) {
		free(buf);
		return -ENOMEM;
	}
	cmp = !ts->raw || norm != buf ? ts_normalise(ts->raw ? NULL : ts, key, norm) : norm;
	shown = ts->raw ? buf : cmp;
	if (group == TS_G_EVENT) {
		const char *base = strrchr(key, '/') + 1;

		skip = (!strcmp(base, "enable") && !strcmp(cmp, "0")) ||
		       (!strcmp(base, "filter") && !strcmp(cmp, "none")) ||
		       (!strcmp(base, "trigger") && !cmp[0]);
	}
	ret = skip ? 0 : ts_add(ts, key, shown, kind, group, false);
	if (norm != buf)
		free(norm);
	free(buf);
	return ret;
}

static int ts_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the entries of @path (dirs only if @dirs). Return: count or -errno. */
static int ts_list_dir(const char *path, bool dirs, char ***out)
{
	char **v = NULL;
	struct dirent *de;
	size_t cap = 0;
	int n = 0;
	DIR *d;

	*out = NULL;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (dirs && de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		if (dirs && de->d_type == DT_UNKNOWN) {
			struct stat st;
			char p[4096];

			snprintf(p, sizeof(p), "%s/%s", path, de->d_name);
			if (stat(p, &st) || !S_ISDIR(st.st_mode))
				continue;
		}
		if (array_grow((void **)&v, &cap, (size_t)n + 1, sizeof(*v)))
			goto fail;
		v[n] = strdup(de->d_name);
		if (!v[n])
			goto fail;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), ts_cmp_str);
	*out = v;
	return n;
fail:
	closedir(d);
	while (n--)
		free(v[n]);
	free(v);
	return -ENOMEM;
}

static void ts_free_list(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int ts_add_files(struct tracestate *ts, const struct ts_file *f, size_t n)
{
	int ret;

	for (size_t i = 0; i < n; i++) {
		ret = ts_add_file(ts, f[i].name, f[i].kind, TS_G_MAIN);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * One file of each entry of @sub: "@sub/NAME@file" for every NAME in @sub
 * (only its directories when @dirs). Every option is "options/NAME"; every
 * CPU's buffer size "per_cpu/cpuN/buffer_size_kb".
 */
static int ts_add_each(struct tracestate *ts, const char *sub, bool dirs, const char *file)
{
	char path[4096], key[512];
	char **names;
	int n, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", ts->dir, sub);
	n = ts_list_dir(path, dirs, &names);
	if (n < 0)
		return n == -ENOMEM ? n : 0;
	for (int i = 0; i < n && !ret; i++) {
		snprintf(key, sizeof(key), "%s/%s%s", sub, names[i], file);
		ret = ts_add_file(ts, key, TS_PLAIN, TS_G_MAIN);
	}
	ts_free_list(names, n);
	return ret;
}

static int ts_add_events(struct tracestate *ts, bool triggers)
{
	static const char *const files[] = { "enable", "filter", "trigger" };
	const size_t nfiles = triggers ? ARRAY_SIZE(files) : ARRAY_SIZE(files) - 1;
	char path[4096], key[1024];
	char **sys, **evs;
	int nsys, nev, ret = 0;

	snprintf(path, sizeof(path), "%s/events", ts->dir);
	nsys = ts_list_dir(path, true, &sys);
	if (nsys < 0)
		return nsys == -ENOMEM ? nsys : 0;
	for (int i = 0; i < nsys && !ret; i++) {
		snprintf(path, sizeof(path), "%s/events/%s", ts->dir, sys[i]);
		nev = ts_list_dir(path, true, &evs);
		if (nev < 0) {
			ret = nev == -ENOMEM ? nev : 0;
			continue;
		}
		for (int j = 0; j < nev && !ret; j++) {
			for (size_t k = 0; k < nfiles && !ret; k++) {
				snprintf(key, sizeof(key), "events/%s/%s/%s", sys[i], evs[j],
					 files[k]);
				ret = ts_add_file(ts, key,
						  k == 0 ? TS_PLAIN :
						  k == 1 ? TS_FILTER : TS_COMPARE, TS_G_EVENT);
			}
		}
		ts_free_list(evs, nev);
	}
	ts_free_list(sys, nsys);
	return ret;
}

static int ts_add_instances(struct tracestate *ts)
{
	char path[4096];
	char **names;
	char *joined;
	size_t len = 1;
	int n, ret;

	snprintf(path, sizeof(path), "%s/instances", ts->dir);
	n = ts_list_dir(path, true, &names);
	if (n < 0)
		return n == -ENOMEM ? n : 0;
	for (int i = 0; i < n; i++)
		len += strlen(names[i]) + 1;
	joined = calloc(1, len);
	if (!joined) {
		ts_free_list(names, n);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		if (i)
			strcat(joined, "\n");
		strcat(joined, names[i]);
	}
	ret = ts_add(ts, "instances", joined, TS_COMPARE, TS_G_MAIN, false);
	free(joined);
	ts_free_list(names, n);
	return ret;
}

static struct tracestate *ts_new(const char *dir)
{
	struct tracestate *ts = calloc(1, sizeof(*ts));
	size_t l;

	if (!ts)
		return NULL;
	ts->dir = strdup(dir);
	if (!ts->dir) {
		free(ts);
		return NULL;
	}
	l = strlen(ts->dir);
	while (l > 1 && ts->dir[l - 1] == '/')
		ts->dir[--l] = '\0';
	return ts;
}

struct tracestate *tracestate_capture(const char *dir, unsigned int flags)
{
	struct tracestate *ts;
	struct stat st;
	int ret;

	if (stat(dir, &st))
		return NULL;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return NULL;
	}
	ts = ts_new(dir);
	if (!ts) {
		errno = ENOMEM;
		return NULL;
	}
	ts->raw = flags & TRACESTATE_RAW;
	ret = ts_add_files(ts, ts_files_head, ARRAY_SIZE(ts_files_head));
	if (!ret)
		ret = ts_add_each(ts, "options", false, "");
	if (!ret)
		ret = ts_add_files(ts, ts_files_mid, ARRAY_SIZE(ts_files_mid));
	if (!ret)
		ret = ts_add_each(ts, "per_cpu", true, "/buffer_size_kb");
	if (!ret)
		ret = ts_add_files(ts, ts_files_tail, ARRAY_SIZE(ts_files_tail));
	if (!ret && ts->raw)
		ret = ts_add_files(ts, ts_files_raw, ARRAY_SIZE(ts_files_raw));
	if (!ret && !(flags & TRACESTATE_NO_EVENTS))
		ret = ts_add_events(ts, !(flags & TRACESTATE_NO_TRIGGERS));
	if (!ret && !(flags & TRACESTATE_NO_INSTANCES))
		ret = ts_add_instances(ts);
	if (!ret)
		ret = ts_add_file(ts, "tracing_on", TS_PLAIN, TS_G_MAIN);
	if (ret) {
		tracestate_free(ts);
		errno = -ret;
		return NULL;
	}
	return ts;
}

struct tracestate *tracestate_capture_files(const char *dir, const char *const *files)
{
	static const struct ts_file *const tabs[] = { ts_files_head, ts_files_mid, ts_files_tail };
	static const size_t ntabs[] = {
		ARRAY_SIZE(ts_files_head), ARRAY_SIZE(ts_files_mid), ARRAY_SIZE(ts_files_tail)
	};
	struct tracestate *ts = ts_new(dir);
	int ret = 0;

	if (!ts) {
		errno = ENOMEM;
		return NULL;
	}
	/* in restore order: the order of the tables, then the rest as given */
	for (size_t t = 0; t < 3 && !ret; t++)
		for (size_t i = 0; i < ntabs[t] && !ret; i++)
			for (const char *const *f = files; *f && !ret; f++)
				if (!strcmp(*f, tabs[t][i].name))
					ret = ts_add_file(ts, *f, tabs[t][i].kind, TS_G_MAIN);
	for (const char *const *f = files; *f && !ret; f++) {
		bool known = false;

		for (size_t t = 0; t < 3 && !known; t++)
			for (size_t i = 0; i < ntabs[t] && !known; i++)
				known = !strcmp(*f, tabs[t][i].name);
		if (!known)
			ret = ts_add_file(ts, *f, TS_PLAIN, TS_G_MAIN);
	}
	if (ret) {
		tracestate_free(ts);
		errno = -ret;
		return NULL;
	}
	return ts;
}

int tracestate_add_compared(struct tracestate *ts, const char *key, const char *value)
{
	return ts_add(ts, key, value, TS_COMPARE, TS_G_MAIN, false);
}

void tracestate_free(struct tracestate *ts)
{
	if (!ts)
		return;
	for (int i = 0; i < ts->n; i++) {
		free(ts->e[i].key);
		free(ts->e[i].path);
		free(ts->e[i].value);
	}
	free(ts->e);
	free(ts->dir);
	free(ts);
}

const char *tracestate_dir(const struct tracestate *ts)
{
	return ts->dir;
}

bool tracestate_is_raw(const struct tracestate *ts)
{
	return ts->raw;
}

int tracestate_count(const struct tracestate *ts)
{
	return ts->n;
}

static const struct ts_entry *ts_find(const struct tracestate *ts, const char *key)
{
	for (int i = 0; i < ts->n; i++)
		if (!strcmp(ts->e[i].key, key))
			return &ts->e[i];
	return NULL;
}

const char *tracestate_get(const struct tracestate *ts, const char *file)
{
	const struct ts_entry *e = ts_find(ts, file);

	return e ? e->value : NULL;
}

static void ts_print_escaped(FILE *fp, const char *s)
{
	for (; *s; s++) {
		if (*s == '\n')
			fputs("\\n", fp);
		else if (*s == '\\')
			fputs("\\\\", fp);
		else if (*s == '\t')
			fputs("\\t", fp);
		else
			fputc(*s, fp);
	}
}

void tracestate_print(const struct tracestate *ts, FILE *fp)
{
	for (int i = 0; i < ts->n; i++) {
		fputs(ts->e[i].key, fp);
		fputc('\t', fp);
		ts_print_escaped(fp, ts->e[i].value);
		fputc('\n', fp);
	}
}

/* The value an event file has when it is not listed. */
static const char *ts_event_default(const char *key)
{
	const char *base = strrchr(key, '/');

	base = base ? base + 1 : key;
	if (!strcmp(base, "enable"))
		return "0";
	if (!strcmp(base, "filter"))
		return "none";
	return "";
}

static bool ts_ignored(const char *key, const char *const *ignore)
{
	for (; ignore && *ignore; ignore++)
		if (!strncmp(key, *ignore, strlen(*ignore)))
			return true;
	return false;
}

static void ts_diff_line(FILE *fp, const char *key, const char *a, const char *b)
{
	if (!fp)
		return;
	fprintf(fp, "%s: '", key);
	ts_print_escaped(fp, a ? a : "(absent)");
	fputs("' -> '", fp);
	ts_print_escaped(fp, b ? b : "(absent)");
	fputs("'\n", fp);
}

int tracestate_diff(const struct tracestate *a, const struct tracestate *b, FILE *fp,
		    const char *const *ignore)
{
	int ndiff = 0;

	for (int i = 0; i < a->n; i++) {
		const struct ts_entry *ea = &a->e[i], *eb = ts_find(b, ea->key);
		const char *vb;

		if (ts_ignored(ea->key, ignore))
			continue;
		vb = eb ? eb->value : ea->group == TS_G_EVENT ? ts_event_default(ea->key) : NULL;
		if (!vb || strcmp(ea->value, vb)) {
			ts_diff_line(fp, ea->key, ea->value, vb);
			ndiff++;
		}
	}
	for (int i = 0; i < b->n; i++) {
		const struct ts_entry *eb = &b->e[i];
		const char *va;

		if (ts_find(a, eb->key) || ts_ignored(eb->key, ignore))
			continue;
		va = eb->group == TS_G_EVENT ? ts_event_default(eb->key) : NULL;
		if (!va || strcmp(va, eb->value)) {
			ts_diff_line(fp, eb->key, va, eb->value);
			ndiff++;
		}
	}
	return ndiff;
}

/* Write @value to @path as @kind says. No allocation. Return: 0 or -errno. */
static int ts_write(const char *path, const char *value, enum ts_kind kind)
{
	const char *p, *eol;
	int fd, ret = 0;
	ssize_t w;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (kind == TS_FILTER && !strcmp(value, "none"))
		value = "0";
	if (kind == TS_LINES) {
		for (p = value; *p; p = eol + 1) {
			eol = strchr(p, '\n');
			if (!eol)
				eol = p + strlen(p);
			if (eol > p) {
				/*
				 * End every item with a newline: tracefs parsers carry
				 * an unterminated word over into the next write().
				 */
				w = write(fd, p, eol - p);
				if (w >= 0)
					w = write(fd, "\n", 1);
				if (w < 0 && !ret)
					ret = -errno;
			}
			if (!*eol)
				break;
		}
	} else if (*value) {
		w = write(fd, value, strlen(value));
		if (w < 0)
			ret = -errno;
	}
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

int tracestate_restore(const struct tracestate *ts)
{
	struct tracestate *cur;
	int ret = 0, r;
	bool events;

	if (ts->raw)
		return -EINVAL;
	/* Compare events only when they were captured. */
	events = false;
	for (int i = 0; i < ts->n && !events; i++)
		events = ts->e[i].group == TS_G_EVENT;
	cur = tracestate_capture(ts->dir, (events ? 0 : TRACESTATE_NO_EVENTS) |
				 TRACESTATE_NO_INSTANCES | TRACESTATE_NO_TRIGGERS);
	if (!cur)
		return -errno;

	for (int i = 0; i < ts->n; i++) {
		const struct ts_entry *e = &ts->e[i], *c;

		if (e->unreadable || e->kind == TS_COMPARE || !strcmp(e->key, "tracing_on"))
			continue;
		c = ts_find(cur, e->key);
		if (c && (c->unreadable || !strcmp(c->value, e->value)))
			continue;
		if (!c && e->group == TS_G_MAIN)
			continue;	/* the file went away: nothing to write to */
		r = ts_write(e->path, e->value, e->kind);
		if (r && !ret)
			ret = r;
	}
	/* Event files set now but not then: back to their defaults. */
	for (int i = 0; i < cur->n; i++) {
		const struct ts_entry *c = &cur->e[i];

		if (c->group != TS_G_EVENT || c->kind == TS_COMPARE || ts_find(ts, c->key))
			continue;
		r = ts_write(c->path, ts_event_default(c->key), c->kind);
		if (r && !ret)
			ret = r;
	}
	/* tracing_on last */
	{
		const struct ts_entry *e = ts_find(ts, "tracing_on");
		const struct ts_entry *c = ts_find(cur, "tracing_on");

		if (e && !e->unreadable && (!c || strcmp(c->value, e->value))) {
			r = ts_write(e->path, e->value, TS_PLAIN);
			if (r && !ret)
				ret = r;
		}
	}
	tracestate_free(cur);
	return ret;
}

int tracestate_restore_blind(const struct tracestate *ts)
{
	const struct ts_entry *on = NULL;
	int failed = 0;

	if (ts->raw)
		return ts->n;
	for (int i = 0; i < ts->n; i++) {
		const struct ts_entry *e = &ts->e[i];

		if (e->unreadable || e->kind == TS_COMPARE || e->group == TS_G_EVENT)
			continue;
		if (!strcmp(e->key, "tracing_on")) {
			on = e;
			continue;
		}
		if (ts_write(e->path, e->value, e->kind))
			failed++;
	}
	if (on && ts_write(on->path, on->value, TS_PLAIN))
		failed++;
	return failed;
}

int tracestate_save(const struct tracestate *ts, const char *path)
{
	char tmp[4096];
	FILE *fp;
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	fp = fdopen(fd, "w");
	if (!fp) {
		close(fd);
		unlink(tmp);
		return -errno;
	}
	fputs(ts->raw ? "ktop-tracestate 1 raw\n" : "ktop-tracestate 1\n", fp);
	fputs("dir\t", fp);
	ts_print_escaped(fp, ts->dir);
	fputc('\n', fp);
	for (int i = 0; i < ts->n; i++) {
		const struct ts_entry *e = &ts->e[i];

		fprintf(fp, "%d%d%d\t", e->kind, e->group, e->unreadable);
		ts_print_escaped(fp, e->key);
		fputc('\t', fp);
		ts_print_escaped(fp, e->value);
		fputc('\n', fp);
	}
	if (fflush(fp) || fsync(fileno(fp))) {
		fclose(fp);
		unlink(tmp);
		return -EIO;
	}
	if (fclose(fp)) {
		unlink(tmp);
		return -EIO;
	}
	if (rename(tmp, path)) {
		unlink(tmp);
		return -errno;
	}
	return 0;
}

/* Undo ts_print_escaped in place up to the next unescaped TAB; return the rest. */
static char *ts_unescape_field(char *s)
{
	char *r = s, *w = s;

	while (*r && *r != '\t' && *r != '\n') {
		if (*r == '\\' && r[1]) {
			r++;
			*w++ = *r == 'n' ? '\n' : *r == 't' ? '\t' : *r;
			r++;
		} else {
			*w++ = *r++;
		}
	}
	if (*r == '\t') {
		*w = '\0';
		return r + 1;
	}
	*w = '\0';
	return NULL;
}

struct tracestate *tracestate_load(const char *path)
{
	struct tracestate *ts = NULL;
	char *buf, *line, *next, *key, *val;
	bool raw;
	int ret = 0;

	ret = file_read(path, FILE_NO_MAX, &buf, NULL);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	raw = !strncmp(buf, "ktop-tracestate 1 raw\ndir\t", 26);
	if (!raw && strncmp(buf, "ktop-tracestate 1\ndir\t", 22)) {
		ret = -EINVAL;
		goto out;
	}
	line = buf + (raw ? 26 : 22);
	next = strchr(line, '\n');
	if (!next) {
		ret = -EINVAL;
		goto out;
	}
	*next++ = '\0';
	ts_unescape_field(line);
	ts = ts_new(line);
	if (!ts) {
		ret = -ENOMEM;
		goto out;
	}
	ts->raw = raw;
	for (line = next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strlen(line) < 5 || line[3] != '\t') {
			ret = -EINVAL;
			break;
		}
		key = line + 4;
		val = ts_unescape_field(key);
		if (!val) {
			ret = -EINVAL;
			break;
		}
		ts_unescape_field(val);
		ret = ts_add(ts, key, val, line[0] - '0', line[1] - '0', line[2] == '1');
		if (ret)
			break;
	}
out:
	free(buf);
	if (ret) {
		tracestate_free(ts);
		errno = -ret;
		return NULL;
	}
	return ts;
}

/* @key is a plain relative path: no leading '/', no empty, "." or ".." part. */
static bool ts_key_plain(const char *key)
{
	const char *p = key;

	if (!*key || *key == '/')
		return false;
	while (*p) {
		size_t n = strcspn(p, "/");

		if (!n || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)p[i] < ' ')
				return false;
		p += n;
		if (*p == '/' && !*++p)
			return false;
	}
	return true;
}

int tracestate_check_dir(const struct tracestate *ts, const char *dir, char *why, size_t whylen)
{
	char want[PATH_MAX], have[PATH_MAX], path[PATH_MAX * 2], real[PATH_MAX];
	size_t wl;

	if (!realpath(dir, want)) {
		snprintf(why, whylen, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	if (!realpath(ts->dir, have) || strcmp(have, want)) {
		snprintf(why, whylen, "names the directory %s, not %s", ts->dir, want);
		return -EPERM;
	}
	wl = strlen(want);
	for (int i = 0; i < ts->n; i++) {
		const char *key = ts->e[i].key;

		snprintf(path, sizeof(path), "%s/%s", want, key);
		/* a file that is there must resolve inside: no link out of tracefs */
		if (!ts_key_plain(key) ||
		    (realpath(path, real) && (strncmp(real, want, wl) || real[wl] != '/'))) {
			snprintf(why, whylen, "names %s/%s, not a file in %s", ts->dir, key, want);
			return -EPERM;
		}
	}
	return 0;
}
