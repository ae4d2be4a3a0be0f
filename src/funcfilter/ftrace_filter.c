// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Applying filter lines to tracefs; see ftrace_filter.h.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <tracefs.h>

#include "lib/clock.h"
#include "lib/err.h"
#include "store/event.h"
#include "lib/file.h"
#include "ftrace_filter.h"
#include "lib/intern.h"
#include "store/store.h"

#define UNDO_MAX	64
#define CHANGE_FILES	8	/* 3 function files, 2 pid files, 1 event filter */

enum file_kind {
	KIND_FUNCS,		/* set_ftrace_filter / set_ftrace_notrace (index form) */
	KIND_GRAPH,		/* set_graph_function (names) */
	KIND_PIDS,		/* set_ftrace_pid, set_event_pid */
	KIND_EVENT,		/* events/SYS/EVENT/filter */
};

struct file_change {
	char		path[PATH_MAX];
	char		name[160];	/* for messages: "set_ftrace_filter" */
	enum file_kind	kind;
	char		*before;	/* read back before the change */
	char		*after;		/* read back after it */
};

struct change {
	struct file_change	files[CHANGE_FILES];
	int			nfiles;
	char			line[256];
};

/* What a file this object changed holds now, abridged for the header. */
struct filter_now {
	char			name[160];	/* as struct file_change's */
	enum file_kind		kind;
	char			text[120];	/* "" when it holds nothing */
};

#define NOW_MAX		16

struct ftrace_filter {
	struct filter_now	now[NOW_MAX];
	int			nnow;
	char			dir[1024];
	char			top[1024];
	struct funcfilter_funcs	*funcs;
	char			unavailable[256];
	bool			index_ok;
	struct change		*undo[UNDO_MAX];
	size_t			nundo;
	struct change		*redo[UNDO_MAX];
	size_t			nredo;
};

static int setmsg(struct ftrace_filter_result *res, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int setmsg(struct ftrace_filter_result *res, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	res->err = err_vset(res->msg, sizeof(res->msg), ret, fmt, ap);
	va_end(ap);
	return ret;
}

static double now_ms(void)
{
	return (double)clock_mono_ns() / 1e6;
}

/* ---- files ------------------------------------------------------------------------- */

struct strbuf {
	char	*s;
	size_t	len, cap;
};

static int sb_add(struct strbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *ns;

		while (b->len + n + 1 > cap)
			cap *= 2;
		ns = realloc(b->s, cap);
		if (!ns)
			return -ENOMEM;
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

/* Is this read-back line a function (not a comment, :mod: cache or probe)? */
static bool funcs_line_is_function(const char *l, size_t n)
{
	return n && l[0] != '#' && !memchr(l, ':', n);
}

/*
 * Turn a read-back of a function file into the set it names. The k-th time a
 * line repeats it names the k-th function with that line.
 */
static int readback_to_set(const struct funcfilter_funcs *ff, const char *text,
			   struct funcfilter_set *set, size_t *unknown)
{
	const char *p = text;

	*unknown = 0;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p), first, i;

		if (funcs_line_is_function(p, n) && funcfilter_funcs_find_line(ff, p, n, &first)) {
			for (i = first; i != SIZE_MAX && funcfilter_set_test(set, i);
			     i = funcfilter_funcs_next_same(ff, i))
				;
			if (i != SIZE_MAX)
				funcfilter_set_add(set, i);
		} else if (funcs_line_is_function(p, n)) {
			(*unknown)++;
		}
		p += n + (nl != NULL);
	}
	return 0;
}

/*
 * Write a set of functions with O_TRUNC; an empty set truncates only.
 * @names: write names (set_graph_function, or kernels without index form).
 */
static int write_funcs(struct ftrace_filter *f, const char *path, const struct funcfilter_set *set,
		       bool names, bool *used_index)
{
	struct strbuf b = { 0 };
	char num[24];
	int fd, ret = 0;
	const char *prev = NULL;

	*used_index = false;
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (!names && f->index_ok) {
		for (size_t i = funcfilter_set_next(set, 0); i != SIZE_MAX && !ret;
		     i = funcfilter_set_next(set, i + 1)) {
			int n = snprintf(num, sizeof(num), "%zu ", i + 1);

			ret = sb_add(&b, num, (size_t)n);
		}
		if (ret || !b.len)
			goto out;
		ret = file_write_all(fd, b.s, b.len);
		if (!ret) {
			*used_index = true;
			goto out;
		}
		/* a kernel before 5.1 takes "1234" for a name that matches nothing */
		if (ret != -EINVAL)
			goto out;
		f->index_ok = false;
		close(fd);
		fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd < 0) {
			ret = -errno;
			goto out_free;
		}
		b.len = 0;
	}
	for (size_t i = funcfilter_set_next(set, 0); i != SIZE_MAX && !ret;
	     i = funcfilter_set_next(set, i + 1)) {
		const char *nm = funcfilter_funcs_name(f->funcs, i);

		/* a name enables all its duplicates: once is enough */
		if (prev && !strcmp(prev, nm))
			continue;
		prev = nm;
		ret = sb_add(&b, nm, strlen(nm));
		if (!ret)
			ret = sb_add(&b, " ", 1);
	}
	if (!ret && b.len)
		ret = file_write_all(fd, b.s, b.len);
out:
	if (close(fd) && !ret)
		ret = -errno;
out_free:
	free(b.s);
	return ret;
}

/* Put a read-back text into a file, the way its kind wants it. */
static int restore_file(struct ftrace_filter *f, const struct file_change *fc, const char *text)
{
	bool idx;
	int fd, ret = 0;

	switch (fc->kind) {
	case KIND_FUNCS:
	case KIND_GRAPH: {
		struct funcfilter_set set;
		size_t unknown;
		struct strbuf other = { 0 };
		const char *p = text;

		if (!f->funcs)
			return -EPERM;
		ret = funcfilter_set_init(&set, funcfilter_funcs_count(f->funcs));
		if (ret)
			return ret;
		readback_to_set(f->funcs, text, &set, &unknown);
		ret = write_funcs(f, fc->path, &set, fc->kind == KIND_GRAPH, &idx);
		funcfilter_set_destroy(&set);
		/* cached :mod: filters go back as written */
		while (!ret && *p) {
			const char *nl = strchr(p, '\n');
			size_t n = nl ? (size_t)(nl - p) : strlen(p);

			if (n && p[0] != '#' && memchr(p, ':', n) && strstr(p, ":mod:"))
				ret = sb_add(&other, p, n) ?: sb_add(&other, "\n", 1);
			p += n + (nl != NULL);
		}
		if (!ret && other.len) {
			fd = open(fc->path, O_WRONLY | O_APPEND | O_CLOEXEC);
			if (fd < 0)
				ret = -errno;
			else {
				ret = file_write_all(fd, other.s, other.len);
				close(fd);
			}
		}
		free(other.s);
		return ret;
	}
	case KIND_PIDS: {
		const char *w = strncmp(text, "no pid", 6) ? text : "";

		fd = open(fc->path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		{
			/* one line of pids: newlines would end the list */
			char *t = strdup(w);

			if (!t) {
				close(fd);
				return -ENOMEM;
			}
			for (char *c = t; *c; c++)
				if (*c == '\n')
					*c = ' ';
			while (*t && t[strlen(t) - 1] == ' ')
				t[strlen(t) - 1] = '\0';
			if (*t)
				ret = file_write_all(fd, t, strlen(t));
			free(t);
		}
		if (close(fd) && !ret)
			ret = -errno;
		return ret;
	}
	case KIND_EVENT: {
		char *t = strdup(strncmp(text, "none", 4) ? text : "0");

		if (!t)
			return -ENOMEM;
		t[strcspn(t, "\n")] = '\0';
		if (!*t) {
			free(t);
			t = strdup("0");
			if (!t)
				return -ENOMEM;
		}
		fd = open(fc->path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd < 0) {
			ret = -errno;
		} else {
			/* an event filter is one expression: a single write */
			if (write(fd, t, strlen(t)) < 0)
				ret = -errno;
			if (close(fd) && !ret)
				ret = -errno;
		}
		free(t);
		return ret;
	}
	}
	return -EINVAL;
}

/* ---- error_log ------------------------------------------------------------------- */

static void error_log_path(const struct ftrace_filter *f, char *buf, size_t len)
{
	snprintf(buf, len, "%s/error_log", f->dir);
	if (access(buf, R_OK))
		snprintf(buf, len, "%s/error_log", f->top);
}

/* The last entry's first line ("[  12.3] ..."), to find later entries by. */
static char *error_log_last(const struct ftrace_filter *f)
{
	char path[PATH_MAX], *text, *last = NULL, *p, *ret;

	error_log_path(f, path, sizeof(path));
	if (file_read(path, FILE_NO_MAX, &text, NULL))
		return NULL;
	for (p = text; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
		if (*p == '[')
			last = p;
	ret = last ? strndup(last, strcspn(last, "\n")) : strdup("");
	free(text);
	return ret;
}

/*
 * The entries after @mark, one line: "event filter parse error: error:
 * Field not found (Command: prev_pidx == 1, column 1)".
 */
void ftrace_filter_error_log_parse(const char *text, const char *mark, char *out, size_t len)
{
	const char *p = text, *cmd = NULL;
	size_t at = 0;

	out[0] = '\0';
	if (mark && *mark) {
		const char *m = strstr(text, mark);

		/* skip the marked entry's own Command and caret lines */
		if (m) {
			p = m + strlen(mark);
			while (*p && !(p[-1] == '\n' && *p == '['))
				p++;
		}
	}
	while (*p && at < len) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (*p == '[') {
			const char *rb = memchr(p, ']', n);
			const char *s = rb ? rb + 2 : p;

			if (s > p + n)
				s = p + n;
			at += (size_t)snprintf(out + at, len - at, "%s%.*s", at ? "; " : "",
					       (int)(p + n - s), s);
		} else if (!strncmp(p, "  Command: ", 11)) {
			cmd = p + 11;
			at += (size_t)snprintf(out + at, len - at, " (command '%.*s'",
					       (int)(n - 11), cmd);
		} else if (cmd && memchr(p, '^', n)) {
			long col = (long)((const char *)memchr(p, '^', n) - p) - 11 + 1;

			at += (size_t)snprintf(out + at, len - at, ", column %ld)", col);
			cmd = NULL;
		}
		p += n + (nl != NULL);
	}
	if (cmd && at < len)
		snprintf(out + at, len - at, ")");
}

/* The entries the kernel logged after @mark, on one line. */
static void error_log_new(const struct ftrace_filter *f, const char *mark, char *out,
			  size_t len)
{
	char path[PATH_MAX], *text;

	out[0] = '\0';
	error_log_path(f, path, sizeof(path));
	if (file_read(path, FILE_NO_MAX, &text, NULL))
		return;
	ftrace_filter_error_log_parse(text, mark, out, len);
	free(text);
}

/* ---- open / close ------------------------------------------------------------------ */

static void load_funcs(struct ftrace_filter *f)
{
	char path[PATH_MAX];
	int ret;

	snprintf(path, sizeof(path), "%s/available_filter_functions", f->top);
	ret = funcfilter_funcs_load(&f->funcs, path);
	if (ret == -EPERM || ret == -EACCES)
		snprintf(f->unavailable, sizeof(f->unavailable), "this kernel does not permit "
			 "function filtering (%.150s: %s)", path, strerror(-ret));
	else if (ret == -ENOENT)
		snprintf(f->unavailable, sizeof(f->unavailable), "this kernel has no function "
			 "tracer (no %.150s; CONFIG_FUNCTION_TRACER)", path);
	else if (ret)
		snprintf(f->unavailable, sizeof(f->unavailable), "cannot read %.150s: %s", path,
			 strerror(-ret));
}

int ftrace_filter_open_dir(struct ftrace_filter **out, const char *dir, const char *top_dir,
			   char *err, size_t errlen)
{
	struct ftrace_filter *f = calloc(1, sizeof(*f));

	*out = NULL;
	if (!f) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	snprintf(f->dir, sizeof(f->dir), "%s", dir);
	snprintf(f->top, sizeof(f->top), "%s", top_dir ? top_dir : dir);
	f->index_ok = true;
	load_funcs(f);
	*out = f;
	return 0;
}

int ftrace_filter_open(struct ftrace_filter **out, struct tracefs_instance *inst,
		       char *err, size_t errlen)
{
	const char *top = tracefs_tracing_dir();
	char *idir = NULL;
	int ret;

	*out = NULL;
	if (!top) {
		snprintf(err, errlen, "tracefs is not mounted (mount -t tracefs nodev "
			 "/sys/kernel/tracing)");
		return -ENODEV;
	}
	if (inst) {
		idir = tracefs_instance_get_dir(inst);
		if (!idir) {
			snprintf(err, errlen, "cannot find the tracefs instance's directory");
			return -ENOENT;
		}
	}
	ret = ftrace_filter_open_dir(out, idir ? idir : top, top, err, errlen);
	tracefs_put_tracing_file(idir);
	return ret;
}

static void change_free(struct change *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->nfiles; i++) {
		free(c->files[i].before);
		free(c->files[i].after);
	}
	free(c);
}

void ftrace_filter_close(struct ftrace_filter *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nundo; i++)
		change_free(f->undo[i]);
	for (size_t i = 0; i < f->nredo; i++)
		change_free(f->redo[i]);
	funcfilter_funcs_free(f->funcs);
	free(f);
}

const struct funcfilter_funcs *ftrace_filter_funcs(const struct ftrace_filter *f)
{
	return f ? f->funcs : NULL;
}

const char *ftrace_filter_unavailable(const struct ftrace_filter *f)
{
	return f->funcs ? "" : f->unavailable;
}

void ftrace_filter_set_index_form(struct ftrace_filter *f, bool on)
{
	f->index_ok = on;
}

size_t ftrace_filter_undo_depth(const struct ftrace_filter *f)
{
	return f->nundo;
}

size_t ftrace_filter_redo_depth(const struct ftrace_filter *f)
{
	return f->nredo;
}

int ftrace_filter_current(struct ftrace_filter *f, enum funcfilter_target t,
			  struct funcfilter_set *out)
{
	char path[PATH_MAX], *text;
	size_t unknown;
	int ret;

	out->bits = NULL;
	if (!f->funcs)
		return -EPERM;
	snprintf(path, sizeof(path), "%s/%s", f->dir, funcfilter_target_file(t));
	ret = file_read(path, FILE_NO_MAX, &text, NULL);
	if (ret)
		return ret;
	ret = funcfilter_set_init(out, funcfilter_funcs_count(f->funcs));
	if (!ret)
		readback_to_set(f->funcs, text, out, &unknown);
	free(text);
	return ret;
}

/* ---- apply ------------------------------------------------------------------------- */

/* events/SYS/EVENT/filter of @event; "" system: search every system. */
static int find_event_filter(const struct ftrace_filter *f, const char *sys, const char *event,
			     char *path, size_t len)
{
	char d[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	int n = 0;

	if (*sys) {
		snprintf(path, len, "%s/events/%s/%s/filter", f->dir, sys, event);
		return access(path, F_OK) ? -ENOENT : 0;
	}
	snprintf(d, sizeof(d), "%s/events", f->dir);
	dir = opendir(d);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		char p[PATH_MAX];

		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(p, sizeof(p), "%s/%s/%s/filter", d, de->d_name, event) >=
		    sizeof(p))
			continue;
		if (!access(p, F_OK) && !n++)
			snprintf(path, len, "%s", p);
	}
	closedir(dir);
	return n == 1 ? 0 : n ? -EEXIST : -ENOENT;
}

/* The text of @file as the change left it (@before: as it was before), or NULL. */
static const char *change_text(const struct change *c, const char *file, bool before)
{
	for (int i = 0; c && i < c->nfiles; i++)
		if (!strcmp(c->files[i].name, file))
			return before ? c->files[i].before : c->files[i].after;
	return NULL;
}

/*
 * Counts and the abridged set_ftrace_filter, from the texts @c read back
 * (a 10k-function file is slow for the kernel to print: read it once).
 */
static void summarize(struct ftrace_filter *f, struct ftrace_filter_result *res,
		      const struct change *c, bool before)
{
	size_t at = 0;

	res->effective[0] = '\0';
	res->all_functions = false;
	for (int t = 0; f->funcs && t < FUNCFILTER_T_NR; t++) {
		const char *file = funcfilter_target_file((enum funcfilter_target)t);
		const char *text = change_text(c, file, before);
		char path[PATH_MAX], *own = NULL;
		struct funcfilter_set s;
		size_t unknown;

		res->count[t] = 0;
		if (!text) {
			snprintf(path, sizeof(path), "%s/%s", f->dir, file);
			if (file_read(path, FILE_NO_MAX, &own, NULL))
				continue;
			text = own;
		}
		if (!funcfilter_set_init(&s, funcfilter_funcs_count(f->funcs))) {
			readback_to_set(f->funcs, text, &s, &unknown);
			res->count[t] = funcfilter_set_count(&s);
			funcfilter_set_destroy(&s);
		}
		if (t == FUNCFILTER_T_FILTER) {
			const char *p = text;

			res->all_functions = !res->count[t];
			if (res->all_functions)
				snprintf(res->effective, sizeof(res->effective), "all functions");
			else
				at = (size_t)snprintf(res->effective, sizeof(res->effective),
						      "%zu:", res->count[t]);
			while (!res->all_functions && *p && at < sizeof(res->effective) - 8) {
				size_t n = strcspn(p, "\n");

				if (funcs_line_is_function(p, n))
					at += (size_t)snprintf(res->effective + at,
							       sizeof(res->effective) - at,
							       " %.*s", (int)n, p);
				p += n + (p[n] == '\n');
			}
			if (!res->all_functions && *p)
				snprintf(res->effective + at, sizeof(res->effective) - at, " ...");
		}
		free(own);
	}
}

static struct file_change *change_add(struct change *c, const char *dir, const char *file,
				      enum file_kind kind)
{
	struct file_change *fc = &c->files[c->nfiles++];

	snprintf(fc->path, sizeof(fc->path), "%.1024s/%.1024s", dir, file);
	snprintf(fc->name, sizeof(fc->name), "%.150s", file);
	fc->kind = kind;
	return fc;
}

/* Push @c on @stack (dropping the oldest when full). */
static void stack_push(struct change **stack, size_t *n, struct change *c)
{
	if (*n == UNDO_MAX) {
		change_free(stack[0]);
		memmove(stack, stack + 1, (UNDO_MAX - 1) * sizeof(*stack));
		(*n)--;
	}
	stack[(*n)++] = c;
}

/* Read every file of @c back into ->after. */
static void change_read_after(struct change *c)
{
	for (int i = 0; i < c->nfiles; i++) {
		free(c->files[i].after);
		if (file_read(c->files[i].path, FILE_NO_MAX, &c->files[i].after, NULL))
			c->files[i].after = strdup("");
	}
}

/*
 * Note what the files of @c hold now (@undo: their "before"): functions as
 * "N: first names", pids and event filters as read back ("none" is nothing).
 */
static void now_note(struct ftrace_filter *f, const struct change *c, bool undo)
{
	for (int i = 0; i < c->nfiles; i++) {
		const struct file_change *fc = &c->files[i];
		const char *t = undo ? fc->before : fc->after, *p = t ? t : "";
		struct filter_now *nw = NULL;
		size_t at = 0, nf = 0;

		for (int k = 0; k < f->nnow && !nw; k++)
			if (!strcmp(f->now[k].name, fc->name))
				nw = &f->now[k];
		if (!nw)	/* a new file; when full, the oldest noted goes */
			nw = &f->now[f->nnow < NOW_MAX ? f->nnow++ : 0];
		snprintf(nw->name, sizeof(nw->name), "%s", fc->name);
		nw->kind = fc->kind;
		nw->text[0] = '\0';
		if (fc->kind == KIND_PIDS || fc->kind == KIND_EVENT) {
			p += strspn(p, " \n");
			if (strncmp(p, "none", 4))
				snprintf(nw->text, sizeof(nw->text), "%.*s", (int)strcspn(p, "\n"), p);
			continue;
		}
		for (size_t n; *p; p += n + (p[n] == '\n')) {
			n = strcspn(p, "\n");
			if (!funcs_line_is_function(p, n))
				continue;
			if (nf++ < 3 && at + n + 8 < sizeof(nw->text))
				at += (size_t)snprintf(nw->text + at, sizeof(nw->text) - at, " %.*s",
						       (int)strcspn(p, " \n"), p);
		}
		if (nf)
			snprintf(nw->text + at, sizeof(nw->text) - at, "%s (%zu)", nf > 3 ? " ..." :
				 "", nf);
	}
}

void ftrace_filter_summary(const struct ftrace_filter *f, char *buf, size_t len,
			   unsigned int *targets)
{
	bool pids = false;
	size_t at = 0;

	buf[0] = '\0';
	*targets = 0;
	for (int i = 0; f && i < f->nnow && at + 1 < len; i++) {
		const struct filter_now *nw = &f->now[i];
		bool notrace = !strcmp(nw->name, "set_ftrace_notrace");
		const char *ev = strrchr(nw->name, '/');
		int evn = 0;

		*targets |= nw->kind == KIND_PIDS ? FTRACE_FILTER_PIDS : nw->kind == KIND_EVENT ?
			    0 : 1u << (nw->kind == KIND_GRAPH ? FUNCFILTER_T_GRAPH :
				       notrace ? FUNCFILTER_T_NOTRACE : FUNCFILTER_T_FILTER);
		if (!nw->text[0] || (nw->kind == KIND_PIDS && pids))
			continue;
		/* events/SYS/EVENT/filter: "EVENT: expression" */
		for (const char *e = ev; e && e > nw->name && e[-1] != '/'; e--)
			evn++;
		pids |= nw->kind == KIND_PIDS;	/* set_ftrace_pid and set_event_pid agree */
		at += (size_t)snprintf(buf + at, len - at, "%s%.*s%s%s", at ? "; " : "",
				       nw->kind == KIND_EVENT ? evn : 99,
				       nw->kind == KIND_EVENT ? ev - evn : nw->kind == KIND_PIDS ?
				       "pid" : nw->kind == KIND_GRAPH ? "graph" : notrace ?
				       "notrace" : "functions", nw->kind == KIND_PIDS ? ":" :
				       nw->kind == KIND_EVENT ? ": " : "", nw->text);
	}
	if (at >= len && len > 4)
		snprintf(buf + len - 4, 4, "...");
}

/*
 * The function files @sp changes: what each holds now (in @c) and the sets
 * they are to hold (in @sets). Return: 0, or a negative errno with @res set.
 */
static int plan_funcs(struct ftrace_filter *f, const struct funcfilter_spec *sp, struct change *c,
		      struct funcfilter_set *sets, struct ftrace_filter_result *res)
{
	struct err_pos ferr;
	int ret;

	for (int t = 0; t < FUNCFILTER_T_NR; t++) {
		struct file_change *fc;
		struct funcfilter_set cur;
		size_t unknown;

		if (!funcfilter_spec_has_target(sp, (enum funcfilter_target)t))
			continue;
		if (!f->funcs)
			return setmsg(res, -EPERM, "%s; nothing applied", f->unavailable);
		fc = change_add(c, f->dir, funcfilter_target_file((enum funcfilter_target)t),
				t == FUNCFILTER_T_GRAPH ? KIND_GRAPH : KIND_FUNCS);
		/* an instance without its own set_graph_function uses the global one */
		if (t == FUNCFILTER_T_GRAPH && access(fc->path, F_OK))
			snprintf(fc->path, sizeof(fc->path), "%.1024s/set_graph_function", f->top);
		ret = file_read(fc->path, FILE_NO_MAX, &fc->before, NULL);
		if (ret)
			return setmsg(res, ret, "cannot read %s: %s%s; nothing applied", fc->path,
				      strerror(-ret), ret == -EPERM ? " (this kernel does not "
				      "permit function filtering)" : "");
		/* the current set, from the text just read */
		ret = funcfilter_set_init(&cur, funcfilter_funcs_count(f->funcs));
		if (ret)
			return setmsg(res, ret, "cannot read %s: %s", fc->path, strerror(-ret));
		readback_to_set(f->funcs, fc->before, &cur, &unknown);
		ret = funcfilter_set_init(&sets[t], funcfilter_funcs_count(f->funcs));
		if (ret) {
			funcfilter_set_destroy(&cur);
			return setmsg(res, ret, "cannot read %s: %s", fc->path, strerror(-ret));
		}
		ret = funcfilter_spec_resolve(sp, f->funcs, (enum funcfilter_target)t, &cur,
					      &sets[t], &ferr);
		funcfilter_set_destroy(&cur);
		if (ret) {
			res->err_offset = ferr.offset;
			return setmsg(res, ret, "%s", ferr.msg);
		}
	}
	return 0;
}

/* The pid files and the event filter @sp changes, read into @c. Return: as plan_funcs(). */
static int plan_others(struct ftrace_filter *f, const struct funcfilter_spec *sp, struct change *c,
		       struct ftrace_filter_result *res)
{
	static const char *const pidfiles[] = { "set_ftrace_pid", "set_event_pid" };
	const char *sys, *event, *expr;
	char evpath[PATH_MAX], rel[PATH_MAX];
	struct file_change *fc;
	const int *pids;
	int ret;

	if (funcfilter_spec_pids(sp, &pids) >= 0) {
		for (int k = 0; k < 2; k++) {
			fc = change_add(c, f->dir, pidfiles[k], KIND_PIDS);
			/* set_ftrace_pid is missing without a function tracer */
			if (file_read(fc->path, FILE_NO_MAX, &fc->before, NULL))
				c->nfiles--;
		}
	}
	if (!funcfilter_spec_event(sp, &sys, &event, &expr))
		return 0;
	ret = find_event_filter(f, sys, event, evpath, sizeof(evpath));
	if (ret)
		return setmsg(res, ret, "event %s%s%s: %s; nothing applied", sys, *sys ? ":" : "",
			      event, ret == -EEXIST ? "several systems have it: write "
			      "SYSTEM:EVENT:" : "no such event in this instance");
	snprintf(rel, sizeof(rel), "%s", evpath + strlen(f->dir) + 1);
	fc = change_add(c, f->dir, rel, KIND_EVENT);
	ret = file_read(fc->path, FILE_NO_MAX, &fc->before, NULL);
	if (ret)
		return setmsg(res, ret, "cannot read %s: %s", fc->path, strerror(-ret));
	return 0;
}

/* Write one file of @c. Return: 0 or -errno. */
static int write_change(struct ftrace_filter *f, struct file_change *fc,
			const struct funcfilter_spec *sp, const struct funcfilter_set *sets,
			struct ftrace_filter_result *res)
{
	char buf[FUNCFILTER_MAX_PIDS * 12 + 1] = "";
	const char *sys, *event, *expr;
	enum funcfilter_target t;
	const int *pids;
	size_t at = 0;
	bool idx = false;
	int npids, ret;

	switch (fc->kind) {
	case KIND_FUNCS:
	case KIND_GRAPH:
		t = !strcmp(fc->name, "set_ftrace_notrace") ? FUNCFILTER_T_NOTRACE :
		    fc->kind == KIND_GRAPH ? FUNCFILTER_T_GRAPH : FUNCFILTER_T_FILTER;
		ret = write_funcs(f, fc->path, &sets[t], fc->kind == KIND_GRAPH, &idx);
		res->index_form |= idx;
		return ret;
	case KIND_PIDS:
		npids = funcfilter_spec_pids(sp, &pids);
		for (int k = 0; k < npids; k++)
			at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%s%d", k ? " " : "",
					       pids[k]);
		return restore_file(f, fc, buf);
	case KIND_EVENT:
		funcfilter_spec_event(sp, &sys, &event, &expr);
		return restore_file(f, fc, expr);
	}
	return -EINVAL;
}

/*
 * Write every file of @c; on a failure, put back what was written, the
 * failed file included. Return: 0, or a negative errno with @res set.
 */
static int write_changes(struct ftrace_filter *f, struct change *c,
			 const struct funcfilter_spec *sp, const struct funcfilter_set *sets,
			 const char *mark, struct ftrace_filter_result *res)
{
	for (int i = 0; i < c->nfiles; i++) {
		struct file_change *fc = &c->files[i];
		char kerr[sizeof(res->kernel_error)];
		int ret = write_change(f, fc, sp, sets, res);

		if (!ret)
			continue;
		error_log_new(f, mark, kerr, sizeof(kerr));
		snprintf(res->kernel_error, sizeof(res->kernel_error), "%s", kerr);
		setmsg(res, ret, "writing %s failed: %s%s%s%s", fc->name, strerror(-ret),
		       ret == -EPERM && fc->kind != KIND_EVENT ? " (this kernel does not "
		       "permit function filtering)" : "", *kerr ? "; kernel: " : "", kerr);
		for (int k = 0; k <= i; k++)
			restore_file(f, &c->files[k], c->files[k].before);
		return ret;
	}
	return 0;
}

/* Did the kernel keep what was written? What it did not is said in kernel_error. */
static void check_kept(const struct funcfilter_spec *sp, const struct funcfilter_set *sets,
		       struct ftrace_filter_result *res)
{
	for (int t = 0; t < FUNCFILTER_T_NR; t++) {
		size_t want, at = strlen(res->kernel_error);

		if (!funcfilter_spec_has_target(sp, (enum funcfilter_target)t) ||
		    t == FUNCFILTER_T_GRAPH)
			continue;
		want = funcfilter_set_count(&sets[t]);
		if (res->count[t] == want)
			continue;
		snprintf(res->kernel_error + at, sizeof(res->kernel_error) - at,
			 "%s%s holds %zu functions, %zu were written", at ? "; " : "",
			 funcfilter_target_file((enum funcfilter_target)t), res->count[t], want);
	}
}

int ftrace_filter_apply(struct ftrace_filter *f, const char *line,
			struct ftrace_filter_result *res)
{
	struct funcfilter_set sets[FUNCFILTER_T_NR] = { 0 };
	struct funcfilter_spec *sp = NULL;
	struct err_pos ferr;
	struct change *c = NULL;
	char *mark = NULL;
	double t0;
	int ret;

	memset(res, 0, sizeof(*res));
	res->err_offset = -1;
	ret = funcfilter_spec_parse(&sp, line, f->funcs, &ferr);
	if (ret) {
		res->err_offset = ferr.offset;
		return setmsg(res, ret, "%s", ferr.msg);
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		ret = setmsg(res, -ENOMEM, "out of memory");
		goto out;
	}
	snprintf(c->line, sizeof(c->line), "%s", line);
	/* plan: what files change, what they hold now, and the new sets */
	ret = plan_funcs(f, sp, c, sets, res);
	if (!ret)
		ret = plan_others(f, sp, c, res);
	if (ret)
		goto out;
	mark = error_log_last(f);
	t0 = now_ms();
	ret = write_changes(f, c, sp, sets, mark, res);
	res->write_ms = now_ms() - t0;
	if (ret) {
		res->apply_ms = now_ms() - t0;
		goto out;
	}
	change_read_after(c);
	error_log_new(f, mark, res->kernel_error, sizeof(res->kernel_error));
	res->apply_ms = now_ms() - t0;
	summarize(f, res, c, false);
	check_kept(sp, sets, res);
	res->changed = true;
	now_note(f, c, false);
	stack_push(f->undo, &f->nundo, c);
	c = NULL;
	while (f->nredo)
		change_free(f->redo[--f->nredo]);
	snprintf(res->marker, sizeof(res->marker), "filter: %s", line);
	setmsg(res, 0, "applied in %.1f ms%s%s%s", res->apply_ms,
	       res->index_form ? " (index form)" : "", f->funcs ? ": set_ftrace_filter " : "",
	       f->funcs ? res->effective : "");
out:
	free(mark);
	for (int t = 0; t < FUNCFILTER_T_NR; t++)
		funcfilter_set_destroy(&sets[t]);
	change_free(c);
	funcfilter_spec_free(sp);
	return ret;
}

/* Write one side of @c; on failure, put the files done back. */
static int change_write(struct ftrace_filter *f, struct change *c, bool undo,
			struct ftrace_filter_result *res)
{
	char *mark = error_log_last(f);
	double t0 = now_ms();
	int ret = 0, i;

	for (i = 0; i < c->nfiles && !ret; i++) {
		struct file_change *fc = &c->files[i];

		ret = restore_file(f, fc, undo ? fc->before : fc->after);
		if (ret)
			setmsg(res, ret, "%s: writing %s failed: %s", undo ? "undo" : "redo",
			       fc->name, strerror(-ret));
	}
	error_log_new(f, mark, res->kernel_error, sizeof(res->kernel_error));
	if (ret)
		for (int k = 0; k < i; k++)
			restore_file(f, &c->files[k], undo ? c->files[k].after :
				     c->files[k].before);
	res->apply_ms = now_ms() - t0;
	res->write_ms = res->apply_ms;
	free(mark);
	if (ret)
		return ret;
	/* exactly as before? */
	for (i = 0; i < c->nfiles; i++) {
		struct file_change *fc = &c->files[i];
		const char *want = undo ? fc->before : fc->after;
		char *now = NULL;

		if (file_read(fc->path, FILE_NO_MAX, &now, NULL) || strcmp(now, want))
			snprintf(res->kernel_error, sizeof(res->kernel_error),
				 "%s does not read back as it was", fc->name);
		free(now);
	}
	summarize(f, res, c, undo);
	res->changed = true;
	now_note(f, c, undo);
	snprintf(res->marker, sizeof(res->marker), "filter %s: %.200s", undo ? "undo" : "redo",
		 c->line);
	setmsg(res, 0, "%s '%s' in %.1f ms%s%s", undo ? "undid" : "redid", c->line,
	       res->apply_ms, f->funcs ? ": set_ftrace_filter " : "",
	       f->funcs ? res->effective : "");
	return 0;
}

/*
 * Undo (@undo) or redo the change on top of @from: write it back, then move
 * it onto @to. Undo and redo are this one step with the two stacks swapped.
 */
static int history_step(struct ftrace_filter *f, struct change **from, size_t *nfrom,
			struct change **to, size_t *nto, bool undo,
			struct ftrace_filter_result *res)
{
	int ret;

	memset(res, 0, sizeof(*res));
	res->err_offset = -1;
	if (!*nfrom)
		return setmsg(res, -ENOENT, undo ? "nothing to undo" : "nothing to redo");
	ret = change_write(f, from[*nfrom - 1], undo, res);
	if (ret)
		return ret;
	stack_push(to, nto, from[--*nfrom]);
	return 0;
}

int ftrace_filter_undo(struct ftrace_filter *f, struct ftrace_filter_result *res)
{
	return history_step(f, f->undo, &f->nundo, f->redo, &f->nredo, true, res);
}

int ftrace_filter_redo(struct ftrace_filter *f, struct ftrace_filter_result *res)
{
	return history_step(f, f->redo, &f->nredo, f->undo, &f->nundo, false, res);
}

int ftrace_filter_marker_event(struct store *st, const char *text, uint64_t ts, uint16_t cpu,
			       struct ktop_event *ev)
{
	uint32_t id = intern_id(store_strings(st), text, strlen(text));

	if (id == UINT32_MAX)
		return -ENOMEM;
	memset(ev, 0, sizeof(*ev));
	ev->ts = ts;
	ev->cpu = cpu;
	ev->pid = getpid();
	ev->type = KTOP_T_MARKER;
	ev->nargs = 1;
	ev->args[0] = id;
	return 0;
}
