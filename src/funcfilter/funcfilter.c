// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The filter prompt's language: see funcfilter.h for the grammar.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/err.h"
#include "lib/file.h"
#include "funcfilter-local.h"
#include "lib/globmatch.h"

/* pcre2 limits: a catastrophic regex fails cleanly instead of spinning. */
#define FILTER_MATCH_LIMIT	200000
#define FILTER_DEPTH_LIMIT	2000
#define FILTER_MAX_TERMS	64

static const char *const target_files[FUNCFILTER_T_NR] = {
	[FUNCFILTER_T_FILTER]	= "set_ftrace_filter",
	[FUNCFILTER_T_NOTRACE]	= "set_ftrace_notrace",
	[FUNCFILTER_T_GRAPH]	= "set_graph_function",
};

const char *funcfilter_target_file(enum funcfilter_target t)
{
	return t < FUNCFILTER_T_NR ? target_files[t] : "";
}

/* ---- parsing ------------------------------------------------------------------------ */

struct term {
	enum funcfilter_target	target;
	bool			neg;
	bool			clear;
	bool			any;		/* :mod:M alone: every function of M */
	bool			literal;	/* no wildcard: a hash lookup */
	char			*pat;		/* glob or regex text */
	char			*mod;		/* NULL: any */
	pcre2_code		*re;
	int			offset;		/* in the line, for messages */
	int			len;
};

struct funcfilter_spec {
	struct term		terms[FILTER_MAX_TERMS];
	size_t			nterms;
	bool			append;
	bool			has[FUNCFILTER_T_NR];
	bool			clear[FUNCFILTER_T_NR];
	int			npids;		/* -1: no pid item */
	int			pids[FUNCFILTER_MAX_PIDS];
	bool			is_event;
	char			system[64];
	char			event[128];
	char			*expr;
	pcre2_match_context	*mctx;
};

void funcfilter_spec_free(struct funcfilter_spec *sp)
{
	if (!sp)
		return;
	for (size_t i = 0; i < sp->nterms; i++) {
		free(sp->terms[i].pat);
		free(sp->terms[i].mod);
		pcre2_code_free(sp->terms[i].re);
	}
	free(sp->expr);
	pcre2_match_context_free(sp->mctx);
	free(sp);
}

/* Length, control characters, UTF-8. Return: 0 or -errno with @err set. */
static int check_bytes(const char *line, size_t len, struct err_pos *err)
{
	const unsigned char *s = (const unsigned char *)line;

	if (len > FUNCFILTER_LINE_MAX)
		return err_pos_set(err, -1, -E2BIG,
					"the line is too long: %zu bytes (at most %d); "
					"nothing applied", len, FUNCFILTER_LINE_MAX);
	for (size_t i = 0; i < len;) {
		unsigned char c = s[i];
		size_t n, k;

		if (c < 0x80) {
			if ((c < 0x20 && c != '\t') || c == 0x7f)
				return err_pos_set(err, (int)i, -EILSEQ,
							"control character 0x%02x at "
							"column %zu; nothing applied", c, i + 1);
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 1;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3;
		else
			goto bad;
		for (k = 1; k <= n; k++)
			if (i + k >= len || (s[i + k] & 0xc0) != 0x80)
				goto bad;
		/* overlong 3- and 4-byte forms, surrogates, > U+10FFFF */
		if ((c == 0xe0 && s[i + 1] < 0xa0) || (c == 0xed && s[i + 1] > 0x9f) ||
		    (c == 0xf0 && s[i + 1] < 0x90) || (c == 0xf4 && s[i + 1] > 0x8f))
			goto bad;
		i += n + 1;
		continue;
bad:
		return err_pos_set(err, (int)i, -EILSEQ,
					"byte 0x%02x at column %zu is not UTF-8; nothing applied",
					c, i + 1);
	}
	return 0;
}

/* Is @m a line of /proc/modules (the module is loaded)? */
static bool module_loaded(const char *m)
{
	FILE *f = fopen("/proc/modules", "re");
	char buf[512];
	size_t ml = strlen(m);
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(buf, sizeof(buf), f))
		found = !strncmp(buf, m, ml) && buf[ml] == ' ';
	fclose(f);
	return found;
}

static bool is_word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* comm:NAME -> the tids whose comm is NAME. */
static int resolve_comm(struct funcfilter_spec *sp, const char *name, int off,
			struct err_pos *err)
{
	DIR *d = opendir("/proc"), *td;
	struct dirent *de, *te;
	int n = 0;

	if (!d)
		return err_pos_set(err, off, -errno, "comm:%s: cannot read /proc: %s", name,
					strerror(errno));
	while ((de = readdir(d))) {
		char path[600], comm[64];

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", de->d_name);
		td = opendir(path);
		if (!td)
			continue;
		while ((te = readdir(td))) {
			if (!isdigit((unsigned char)te->d_name[0]))
				continue;
			snprintf(path, sizeof(path), "/proc/%s/task/%s/comm", de->d_name,
				 te->d_name);
			if (file_read_value(path, comm, sizeof(comm)))
				continue;
			if (!strcmp(comm, name) && sp->npids < FUNCFILTER_MAX_PIDS)
				sp->pids[sp->npids++] = atoi(te->d_name), n++;
		}
		closedir(td);
	}
	closedir(d);
	if (!n)
		return err_pos_set(err, off, -ENOENT,
					"comm:%s: no task has that name; nothing applied", name);
	return 0;
}

static int parse_pids(struct funcfilter_spec *sp, const char *s, size_t len, int off,
		      struct err_pos *err)
{
	size_t i = 0;

	if (sp->npids < 0)
		sp->npids = 0;
	while (i < len) {
		long v = 0;
		size_t st = i;

		while (i < len && isdigit((unsigned char)s[i]) && v < 1 << 23)
			v = v * 10 + (s[i++] - '0');
		if (i == st || (i < len && s[i] != ',') || v > 4194304)
			return err_pos_set(err, off + (int)i, -EINVAL,
						"pid:%.*s: expected numbers separated by commas",
						(int)len, s);
		if (sp->npids >= FUNCFILTER_MAX_PIDS)
			return err_pos_set(err, off, -E2BIG, "more than %d pids",
						FUNCFILTER_MAX_PIDS);
		sp->pids[sp->npids++] = (int)v;
		i += i < len;
	}
	return 0;
}

static int compile_regex(struct funcfilter_spec *sp, struct term *t, const char *re, size_t len,
			 int off, struct err_pos *err)
{
	PCRE2_UCHAR msg[200];
	PCRE2_SIZE eoff;
	int ec;

	t->re = pcre2_compile((PCRE2_SPTR)re, len, 0, &ec, &eoff, NULL);
	if (!t->re) {
		pcre2_get_error_message(ec, msg, sizeof(msg));
		return err_pos_set(err, off + (int)eoff, -EINVAL,
					"regex error at column %d: %s; nothing applied",
					off + (int)eoff + 1, (char *)msg);
	}
	/* without JIT, pcre2_match interprets: slower but the same results */
	pcre2_jit_compile(t->re, PCRE2_JIT_COMPLETE);
	if (!sp->mctx) {
		sp->mctx = pcre2_match_context_create(NULL);
		if (!sp->mctx)
			return -ENOMEM;
		pcre2_set_match_limit(sp->mctx, FILTER_MATCH_LIMIT);
		pcre2_set_depth_limit(sp->mctx, FILTER_DEPTH_LIMIT);
	}
	return 0;
}

/* One term at line[*pos]; advances *pos past it. */
/*
 * ":mod:NAME" at @line[*@pos], into @t->mod (kernel spelling: '_' for '-').
 * Return: 0 with *@pos past it, or a negative errno with @err set.
 */
static int parse_mod(struct term *t, const char *line, size_t *pos,
		     const struct funcfilter_funcs *ff, struct err_pos *err)
{
	size_t i = *pos, ms = i + 5;
	int ret;

	if (strncmp(line + i, ":mod:", 5))
		return err_pos_set(err, (int)i, -EINVAL, "unexpected ':' at column %zu (a "
					"pattern may end in :mod:MODULE)", i + 1);
	for (i = ms; line[i] && !isspace((unsigned char)line[i]); i++)
		if (!is_word_char(line[i]) && line[i] != '-')
			return err_pos_set(err, (int)i, -EINVAL,
						"bad module name at column %zu", i + 1);
	if (i == ms)
		return err_pos_set(err, (int)ms, -EINVAL, ":mod: needs a module name");
	t->mod = strndup(line + ms, i - ms);
	if (!t->mod)
		return -ENOMEM;
	for (char *c = t->mod; *c; c++)
		if (*c == '-')
			*c = '_';
	if (ff && !funcfilter_funcs_has_module(ff, t->mod) && !module_loaded(t->mod)) {
		ret = err_pos_set(err, (int)ms, -ENOENT, "module %s is not loaded (not in "
				       "/proc/modules); nothing applied", t->mod);
		free(t->mod);
		t->mod = NULL;
		return ret;
	}
	*pos = i;
	return 0;
}

/* A glob's text @t->pat, at @pstart in the line: could it name a function? */
static int check_glob(const struct term *t, size_t pstart, struct err_pos *err)
{
	for (const char *c = t->pat; *c; c++)
		if ((unsigned char)*c >= 0x80 || (!is_word_char(*c) && !strchr("*?[]!-^.\\", *c)))
			return err_pos_set(err, (int)(pstart + (size_t)(c - t->pat)), -EINVAL,
						"'%c' at column %zu cannot be in a function name "
						"(regexes are written /.../)", *c,
						pstart + (size_t)(c - t->pat) + 1);
	if (isdigit((unsigned char)t->pat[0]))
		return err_pos_set(err, (int)pstart, -EINVAL,
					"'%s': a function name cannot start with a digit", t->pat);
	return 0;
}

static int parse_term(struct funcfilter_spec *sp, const char *line, size_t *pos,
		      enum funcfilter_target target, const struct funcfilter_funcs *ff,
		      struct err_pos *err)
{
	size_t i = *pos, len = strlen(line), pstart, pend;
	struct term *t;
	bool regex = false;
	int ret;

	if (sp->nterms >= FILTER_MAX_TERMS)
		return err_pos_set(err, (int)i, -E2BIG, "more than %d patterns in one line",
					FILTER_MAX_TERMS);
	t = &sp->terms[sp->nterms];
	memset(t, 0, sizeof(*t));
	t->target = target;
	t->offset = (int)i;
	if (line[i] == '!') {
		t->neg = true;
		i++;
	}
	pstart = i;
	if (line[i] == '/') {
		regex = true;
		for (i++; i < len && line[i] != '/'; i++)
			if (line[i] == '\\' && i + 1 < len)
				i++;
		if (i >= len)
			return err_pos_set(err, (int)pstart, -EINVAL,
						"unbalanced regex: no closing '/' "
						"for the one at column %zu; nothing applied",
						pstart + 1);
		pend = ++i;
	} else {
		while (i < len && !isspace((unsigned char)line[i]) && line[i] != ':')
			i++;
		pend = i;
	}
	/* :mod:NAME, or :clear */
	if (line[i] == ':') {
		if (!strncmp(line + i, ":clear", 6) && pend == pstart && !t->neg &&
		    (!line[i + 6] || isspace((unsigned char)line[i + 6]))) {
			t->clear = true;
			i += 6;
			goto done;
		}
		ret = parse_mod(t, line, &i, ff, err);
		if (ret)
			return ret;
	}
	if (i < len && !isspace((unsigned char)line[i])) {
		free(t->mod);
		return err_pos_set(err, (int)i, -EINVAL,
					"unexpected '%c' at column %zu after the pattern", line[i],
					i + 1);
	}
	if (pend == pstart) {
		if (!t->mod) {
			return err_pos_set(err, (int)pstart, -EINVAL,
						"empty pattern at column %zu", pstart + 1);
		}
		t->any = true;
	} else if (regex) {
		t->pat = strndup(line + pstart + 1, pend - pstart - 2);
		if (!t->pat)
			return -ENOMEM;
		/* count the term now so that funcfilter_spec_free frees it on error */
		sp->nterms++;
		ret = compile_regex(sp, t, line + pstart + 1, pend - pstart - 2, (int)pstart + 1,
				    err);
		if (ret)
			return ret;
		sp->nterms--;
	} else {
		t->pat = strndup(line + pstart, pend - pstart);
		if (!t->pat)
			return -ENOMEM;
		t->literal = !strpbrk(t->pat, "*?[\\");
		ret = check_glob(t, pstart, err);
		if (ret) {
			free(t->pat);
			free(t->mod);
			return ret;
		}
	}
done:
	t->len = (int)(i - (size_t)t->offset);
	sp->nterms++;
	sp->has[target] = true;
	if (t->clear)
		sp->clear[target] = true;
	*pos = i;
	return 0;
}

/* "[system:]event: expr" at the start of the line? Fills sp and returns 1. */
static int parse_event(struct funcfilter_spec *sp, const char *line, struct err_pos *err)
{
	size_t i = 0, a, b = 0, c;

	while (isspace((unsigned char)line[i]))
		i++;
	a = i;
	while (is_word_char(line[i]))
		i++;
	if (i == a || line[i] != ':')
		return 0;
	b = i;
	if (is_word_char(line[i + 1])) {
		i++;
		while (is_word_char(line[i]))
			i++;
		if (line[i] != ':')
			return 0;
	}
	c = i;
	if (line[c + 1] && !isspace((unsigned char)line[c + 1]))
		return 0;
	if (!strncmp(line + a, "pid:", 4) || !strncmp(line + a, "comm:", 5))
		return 0;
	sp->is_event = true;
	if (c == b) {
		snprintf(sp->event, sizeof(sp->event), "%.*s", (int)(b - a), line + a);
	} else {
		snprintf(sp->system, sizeof(sp->system), "%.*s", (int)(b - a), line + a);
		snprintf(sp->event, sizeof(sp->event), "%.*s", (int)(c - b - 1), line + b + 1);
	}
	i = c + 1;
	while (isspace((unsigned char)line[i]))
		i++;
	if (!line[i])
		return err_pos_set(err, (int)i, -EINVAL,
					"%s: no filter expression (write '%s: 0' to "
					"clear the event's filter)", sp->event, sp->event);
	sp->expr = strdup(line + i);
	if (!sp->expr)
		return -ENOMEM;
	/* trailing blanks are noise to the kernel's parser */
	for (size_t n = strlen(sp->expr); n && isspace((unsigned char)sp->expr[n - 1]); n--)
		sp->expr[n - 1] = '\0';
	return 1;
}

int funcfilter_spec_parse(struct funcfilter_spec **out, const char *line,
			  const struct funcfilter_funcs *ff, struct err_pos *err)
{
	struct funcfilter_spec *sp;
	size_t len, i = 0;
	int ret;

	*out = NULL;
	if (err) {
		err->offset = -1;
		err->msg[0] = '\0';
	}
	len = strnlen(line, FUNCFILTER_LINE_MAX + 1);
	if (len > FUNCFILTER_LINE_MAX)
		len = strlen(line);
	ret = check_bytes(line, len, err);
	if (ret)
		return ret;
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return -ENOMEM;
	sp->npids = -1;
	ret = parse_event(sp, line, err);
	if (ret < 0)
		goto out_free;
	if (ret > 0)
		goto out;
	while (isspace((unsigned char)line[i]))
		i++;
	if (line[i] == '+') {
		sp->append = true;
		i++;
	}
	for (;;) {
		enum funcfilter_target target = FUNCFILTER_T_FILTER;

		while (isspace((unsigned char)line[i]))
			i++;
		if (!line[i])
			break;
		if (line[i] == '-' && strchr("ngl", line[i + 1]) &&
		    (!line[i + 2] || isspace((unsigned char)line[i + 2]))) {
			size_t flag = i;

			target = line[i + 1] == 'n' ? FUNCFILTER_T_NOTRACE :
				 line[i + 1] == 'g' ? FUNCFILTER_T_GRAPH : FUNCFILTER_T_FILTER;
			i += 2;
			while (isspace((unsigned char)line[i]))
				i++;
			if (!line[i]) {
				ret = err_pos_set(err, (int)flag, -EINVAL,
						       "-%c needs a pattern", line[flag + 1]);
				goto out_free;
			}
		} else if (!strncmp(line + i, "pid:", 4)) {
			size_t st = i + 4;

			for (i = st; line[i] && !isspace((unsigned char)line[i]); i++)
				;
			ret = parse_pids(sp, line + st, i - st, (int)st, err);
			if (ret)
				goto out_free;
			continue;
		} else if (!strncmp(line + i, "comm:", 5)) {
			size_t st = i + 5;
			char name[64];

			for (i = st; line[i] && !isspace((unsigned char)line[i]); i++)
				;
			if (i == st || i - st > 15) {
				ret = err_pos_set(err, (int)st, -EINVAL,
						       "comm: needs a task name of 1 "
						       "to 15 characters");
				goto out_free;
			}
			snprintf(name, sizeof(name), "%.*s", (int)(i - st), line + st);
			if (sp->npids < 0)
				sp->npids = 0;
			ret = resolve_comm(sp, name, (int)st, err);
			if (ret)
				goto out_free;
			continue;
		}
		ret = parse_term(sp, line, &i, target, ff, err);
		if (ret)
			goto out_free;
	}
	if (!sp->nterms && sp->npids < 0) {
		ret = err_pos_set(err, -1, -EINVAL,
				       "empty filter: type a pattern (vfs_*, /regex/), "
				       "pid:N, comm:NAME or EVENT: EXPR");
		goto out_free;
	}
out:
	*out = sp;
	return 0;
out_free:
	funcfilter_spec_free(sp);
	return ret;
}

bool funcfilter_spec_has_target(const struct funcfilter_spec *sp, enum funcfilter_target t)
{
	return sp && t < FUNCFILTER_T_NR && sp->has[t];
}

bool funcfilter_spec_appends(const struct funcfilter_spec *sp)
{
	return sp && sp->append;
}

bool funcfilter_spec_clears(const struct funcfilter_spec *sp, enum funcfilter_target t)
{
	return sp && t < FUNCFILTER_T_NR && sp->clear[t];
}

int funcfilter_spec_pids(const struct funcfilter_spec *sp, const int **pids)
{
	*pids = sp->pids;
	return sp->npids;
}

bool funcfilter_spec_event(const struct funcfilter_spec *sp, const char **system,
			   const char **event, const char **expr)
{
	if (!sp || !sp->is_event)
		return false;
	*system = sp->system;
	*event = sp->event;
	*expr = sp->expr;
	return true;
}

/* ---- matching ------------------------------------------------------------------- */

/* Function @i matches @t: added to @out, or taken out by a '!' pattern. */
static void term_mark(const struct term *t, struct funcfilter_set *out, size_t i)
{
	if (t->neg)
		out->bits[i / 64] &= ~(1ull << (i % 64));
	else
		funcfilter_set_add(out, i);
}

/*
 * Add (or, for '!' terms, remove) what @t matches to @out.
 * Return: the number of functions matched, or -ERANGE (match limit).
 */
static long term_apply(const struct funcfilter_spec *sp, const struct term *t,
		       const struct funcfilter_funcs *ff, pcre2_match_data *md,
		       struct funcfilter_set *out, struct err_pos *err)
{
	long n = 0;

	if (t->literal && !t->mod) {
		size_t len = strlen(t->pat);

		for (size_t i = funcfilter_funcs_first_named(ff, t->pat, len); i != SIZE_MAX;
		     i = ff->next[i] == UINT32_MAX ? SIZE_MAX : ff->next[i], n++)
			term_mark(t, out, i);
		return n;
	}
	for (size_t i = 0; i < ff->n; i++) {
		const char *name = ff->text + ff->name[i];
		bool m;

		if (t->mod && strcmp(ff->mods[ff->mod[i]], t->mod))
			continue;
		if (t->any) {
			m = true;
		} else if (t->re) {
			int rc = pcre2_match(t->re, (PCRE2_SPTR)name, PCRE2_ZERO_TERMINATED, 0, 0,
					     md, sp->mctx);

			if (rc == PCRE2_ERROR_NOMATCH) {
				m = false;
			} else if (rc < 0) {
				PCRE2_UCHAR msg[160];

				pcre2_get_error_message(rc, msg, sizeof(msg));
				return err_pos_set(err, t->offset, -ERANGE,
							"regex /%s/ is too costly on '%s' (%s): "
							"simplify it; nothing applied",
							t->pat, name, (char *)msg);
			} else {
				m = true;
			}
		} else {
			m = glob_match(t->pat, name);
		}
		if (!m)
			continue;
		term_mark(t, out, i);
		n++;
	}
	return n;
}

static const char *term_text(const struct term *t, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s%s", t->neg ? "!" : "", t->re ? "/" : "",
		 t->pat ? t->pat : "", t->re ? "/" : "", t->mod ? ":mod:" : "",
		 t->mod ? t->mod : "");
	return buf;
}

int funcfilter_spec_resolve(const struct funcfilter_spec *sp, const struct funcfilter_funcs *ff,
			    enum funcfilter_target t, const struct funcfilter_set *current,
			    struct funcfilter_set *out, struct err_pos *err)
{
	pcre2_match_data *md;
	bool any_pos = false;
	char tb[200];
	int ret = 0;

	if (err) {
		err->offset = -1;
		err->msg[0] = '\0';
	}
	memset(out->bits, 0, (out->nbits / 64 + 1) * sizeof(*out->bits));
	if (!sp->has[t] || sp->clear[t])
		return 0;
	for (size_t k = 0; k < sp->nterms; k++)
		any_pos |= sp->terms[k].target == t && !sp->terms[k].neg;
	if ((sp->append || !any_pos) && current)
		memcpy(out->bits, current->bits,
		       (out->nbits < current->nbits ? out->nbits : current->nbits) / 64 * 8 +
		       ((out->nbits < current->nbits ? out->nbits : current->nbits) % 64 ? 8 : 0));
	md = pcre2_match_data_create(4, NULL);
	if (!md)
		return -ENOMEM;
	for (size_t k = 0; k < sp->nterms; k++) {
		const struct term *tm = &sp->terms[k];
		long n;

		if (tm->target != t)
			continue;
		n = term_apply(sp, tm, ff, md, out, err);
		if (n < 0) {
			ret = (int)n;
			goto out;
		}
		if (!n) {
			ret = err_pos_set(err, tm->offset, -EINVAL,
					       "%s matches no function%s; nothing applied",
					       term_text(tm, tb, sizeof(tb)),
					       tm->mod ? " of that module" : "");
			goto out;
		}
	}
	if (t == FUNCFILTER_T_FILTER && !funcfilter_set_count(out) && !any_pos &&
	    (!current || !funcfilter_set_count(current)))
		ret = err_pos_set(err, -1, -EINVAL,
				       "'!' removes from the current filter, which is empty "
				       "(every function is traced): to leave functions out, "
				       "use -n PATTERN");
	else if (t == FUNCFILTER_T_FILTER && !funcfilter_set_count(out))
		ret = err_pos_set(err, -1, -EINVAL,
				       "this would leave set_ftrace_filter empty, which "
				       "the kernel reads as every function; say :clear for that");
out:
	pcre2_match_data_free(md);
	return ret;
}

/* ---- preview and completion ------------------------------------------------------ */

static size_t appendf(char *buf, size_t len, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static size_t appendf(char *buf, size_t len, size_t at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (at >= len)
		return at;
	va_start(ap, fmt);
	n = vsnprintf(buf + at, len - at, fmt, ap);
	va_end(ap);
	if (n < 0)
		return at;
	return at + (size_t)n >= len ? len - 1 : at + (size_t)n;
}

int funcfilter_preview_line(const struct funcfilter_funcs *ff, const char *line,
			    const struct funcfilter_set *current, struct funcfilter_preview *pv)
{
	struct funcfilter_spec *sp;
	struct funcfilter_set set = { 0 };
	size_t at = 0;
	int ret;

	memset(pv, 0, sizeof(*pv));
	pv->target = FUNCFILTER_T_NR;
	ret = funcfilter_spec_parse(&sp, line, ff, &pv->err);
	if (ret)
		goto out_err;
	if (sp->is_event) {
		at = appendf(pv->text, sizeof(pv->text), at, "event filter %s%s%s := %s",
			     sp->system, sp->system[0] ? ":" : "", sp->event, sp->expr);
		goto out_ok;
	}
	if (sp->npids >= 0) {
		at = appendf(pv->text, sizeof(pv->text), at, "pids:");
		for (int i = 0; i < sp->npids; i++)
			at = appendf(pv->text, sizeof(pv->text), at, " %d", sp->pids[i]);
		at = appendf(pv->text, sizeof(pv->text), at, sp->npids ? ";" : " (clear);");
	}
	for (int t = 0; t < FUNCFILTER_T_NR; t++) {
		size_t n;

		if (!sp->has[t])
			continue;
		if (sp->clear[t]) {
			at = appendf(pv->text, sizeof(pv->text), at, "%s%s: clear", at ? " " : "",
				     target_files[t]);
			continue;
		}
		if (!ff) {
			at = appendf(pv->text, sizeof(pv->text), at, "%s%s: (function list "
				     "unavailable)", at ? " " : "", target_files[t]);
			continue;
		}
		ret = funcfilter_set_init(&set, ff->n);
		if (ret)
			goto out_spec;
		ret = funcfilter_spec_resolve(sp, ff, (enum funcfilter_target)t, current, &set,
					      &pv->err);
		if (ret) {
			funcfilter_set_destroy(&set);
			goto out_err;
		}
		n = funcfilter_set_count(&set);
		if (pv->target == FUNCFILTER_T_NR) {
			pv->target = (enum funcfilter_target)t;
			pv->count = n;
			for (size_t i = funcfilter_set_next(&set, 0);
			     i != SIZE_MAX && pv->nnames < FUNCFILTER_PREVIEW_NAMES;
			     i = funcfilter_set_next(&set, i + 1))
				pv->names[pv->nnames++] = ff->text + ff->name[i];
		}
		at = appendf(pv->text, sizeof(pv->text), at, "%s%s: %zu of %zu functions",
			     at ? " " : "", target_files[t], n, ff->n);
		if (pv->target == (enum funcfilter_target)t) {
			for (size_t k = 0; k < pv->nnames && at < sizeof(pv->text) - 40; k++)
				at = appendf(pv->text, sizeof(pv->text), at, "%s%s", k ? " " : ": ",
					     pv->names[k]);
			if (pv->count > pv->nnames)
				at = appendf(pv->text, sizeof(pv->text), at, " ...");
		}
		funcfilter_set_destroy(&set);
	}
out_ok:
	pv->ok = true;
	funcfilter_spec_free(sp);
	return 0;
out_err:
	if (pv->err.offset >= 0)
		snprintf(pv->text, sizeof(pv->text), "col %d: %s", pv->err.offset + 1,
			 pv->err.msg);
	else
		snprintf(pv->text, sizeof(pv->text), "%s", pv->err.msg);
out_spec:
	funcfilter_spec_free(sp);
	return ret;
}

size_t funcfilter_complete(const struct funcfilter_funcs *ff, const char *line, size_t cursor,
			   struct funcfilter_completion *c)
{
	size_t s, lo, hi, wlen, plen;
	const char *w, *prev = NULL;

	memset(c, 0, sizeof(*c));
	if (cursor > strlen(line))
		cursor = strlen(line);
	for (s = cursor; s > 0 && !isspace((unsigned char)line[s - 1]); s--)
		;
	c->start = s;
	snprintf(c->prefix, sizeof(c->prefix), "%.*s", (int)(cursor - s), line + s);
	w = line + s;
	if (*w == '+' && s == 0)
		w++;
	if (*w == '!')
		w++;
	wlen = (size_t)(line + cursor - w);
	if (!ff || !ff->n || wlen >= 200 || memchr(w, '/', wlen) || memchr(w, ':', wlen) ||
	    memchr(w, '*', wlen) || memchr(w, '?', wlen) || memchr(w, '[', wlen))
		return 0;
	/* binary search the sorted names for the first >= w */
	lo = 0;
	hi = ff->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strncmp(ff->text + ff->name[ff->sorted[mid]], w, wlen) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	plen = 0;
	for (size_t i = lo; i < ff->n; i++) {
		const char *nm = ff->text + ff->name[ff->sorted[i]];

		if (strncmp(nm, w, wlen))
			break;
		/* duplicates (same name, several entries) complete once */
		if (prev && !strcmp(nm, prev))
			continue;
		prev = nm;
		if (!c->ncand) {
			plen = strlen(nm);
		} else {
			const char *p0 = c->cand[0];
			size_t k = 0;

			while (k < plen && p0[k] == nm[k])
				k++;
			plen = k;
		}
		if (c->ncand < FUNCFILTER_COMPLETE_MAX)
			c->cand[c->ncand] = nm;
		c->ncand++;
	}
	if (c->ncand) {
		size_t keep = (size_t)(w - (line + s));

		snprintf(c->prefix, sizeof(c->prefix), "%.*s%.*s", (int)keep, line + s,
			 (int)plen, c->cand[0]);
	}
	return c->ncand;
}
