// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The --latency and --hist spec parser (syntax in agg_spec.h): a small
 * hand-written scanner over the text, every error with the position it
 * stopped at, then the names resolved against the events' formats with
 * libtraceevent. The where clause is not compiled here: the kernel compiles
 * its own text (the hist engine); what is checked is that every field it
 * names exists on the event its clause goes to, and, for the BPF engine,
 * that each clause is a plain FIELD OP VALUE it can evaluate.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "agg_spec.h"
#include "lib/err.h"
#include "lib/file.h"
#include "lib/strutil.h"

struct agg_formats {
	struct tep_handle	*tep;
	char			dir[4096];
};

int agg_formats_new(struct agg_formats **out, const char *events_dir)
{
	struct agg_formats *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->tep = tep_alloc();
	if (!f->tep) {
		free(f);
		return -ENOMEM;
	}
	snprintf(f->dir, sizeof(f->dir), "%s", events_dir);
	*out = f;
	return 0;
}

void agg_formats_free(struct agg_formats *f)
{
	if (!f)
		return;
	tep_free(f->tep);
	free(f);
}

struct tep_handle *agg_formats_tep(struct agg_formats *f)
{
	return f->tep;
}

char *agg_event_name(const struct agg_event *ev, char *buf, size_t len)
{
	str_fmt(buf, len, "%s:%s", ev->sys, ev->name);
	return buf;
}

/* The format text of @sys/@name: "format", else a recorded "format.gz". */
static int read_format(const struct agg_formats *f, const char *sys, const char *name,
		       char **buf, size_t *len)
{
	char path[4352];

	str_fmt(path, sizeof(path), "%s/%s/%s/format", f->dir, sys, name);
	if (!file_read(path, 1 << 20, buf, len))
		return 0;
	strcat(path, ".gz");
	return file_read_gz(path, 1 << 20, buf, len) ? -ENOENT : 0;
}

static bool has_format(const struct agg_formats *f, const char *sys, const char *name)
{
	char path[4352];

	str_fmt(path, sizeof(path), "%s/%s/%s/format", f->dir, sys, name);
	if (!access(path, R_OK))
		return true;
	strcat(path, ".gz");
	return !access(path, R_OK);
}

static bool plain_name(const char *s)
{
	if (!*s || strlen(s) >= AGG_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

int agg_formats_event(struct agg_formats *f, const char *sys, const char *name,
		      struct agg_event *ev, char *err, size_t errlen)
{
	struct tep_event *te;
	char *buf = NULL;
	size_t len;
	int ret;

	if (!plain_name(name) || (sys && *sys && !plain_name(sys)))
		return err_set(err, errlen, -ENOENT, "'%s%s%s' is not an event name", sys ? sys : "",
			       sys && *sys ? ":" : "", name);
	if (!sys || !*sys) {
		char found[4][AGG_NAME_MAX];
		struct dirent *de;
		int n = 0;
		DIR *d;

		d = opendir(f->dir);
		if (!d)
			return err_set(err, errlen, -errno, "cannot list %s: %s", f->dir,
				       strerror(errno));
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.' || !plain_name(de->d_name) ||
			    !has_format(f, de->d_name, name))
				continue;
			if (n < 4)
				str_fmt(found[n], AGG_NAME_MAX, "%s", de->d_name);
			n++;
		}
		closedir(d);
		if (!n)
			return err_set(err, errlen, -ENOENT, "no event '%s' in any system", name);
		if (n > 1)
			return err_set(err, errlen, -EEXIST, "event '%s' is in %d systems (%s:%s, "
				       "%s:%s%s): say which", name, n, found[0], name, found[1], name,
				       n > 2 ? ", ..." : "");
		sys = found[0];
		snprintf(ev->sys, sizeof(ev->sys), "%s", found[0]);
	} else {
		snprintf(ev->sys, sizeof(ev->sys), "%s", sys);
	}
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	te = tep_find_event_by_name(f->tep, ev->sys, ev->name);
	if (!te) {
		ret = read_format(f, ev->sys, ev->name, &buf, &len);
		if (ret) {
			char path[4352];

			snprintf(path, sizeof(path), "%s/%s", f->dir, ev->sys);
			return err_set(err, errlen, -ENOENT, access(path, F_OK) ?
				       "no event system '%s'" : "no event '%s:%s'", ev->sys,
				       ev->name);
		}
		if (tep_parse_event(f->tep, buf, len, ev->sys)) {
			free(buf);
			return err_set(err, errlen, -EINVAL, "the format of %s:%s does not parse",
				       ev->sys, ev->name);
		}
		free(buf);
		te = tep_find_event_by_name(f->tep, ev->sys, ev->name);
		if (!te)
			return err_set(err, errlen, -ENOENT, "no event '%s:%s'", ev->sys, ev->name);
	}
	ev->id = te->id;
	return 0;
}

static void field_fill(const struct tep_format_field *tf, struct agg_field *out)
{
	unsigned long fl = tf->flags;

	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", tf->name);
	snprintf(out->type, sizeof(out->type), "%s", tf->type);
	out->offset = tf->offset;
	out->size = tf->size;
	if (fl & TEP_FIELD_IS_DYNAMIC)
		out->kind = (fl & TEP_FIELD_IS_STRING) || strstr(tf->type, "char") ? AGG_FT_DSTR :
			    AGG_FT_OTHER;
	else if (fl & TEP_FIELD_IS_ARRAY)
		out->kind = (fl & TEP_FIELD_IS_STRING) || !strncmp(tf->type, "char", 4) ?
			    AGG_FT_STR : AGG_FT_OTHER;
	else if (tf->size > 8)
		out->kind = AGG_FT_OTHER;
	else
		out->kind = fl & TEP_FIELD_IS_SIGNED ? AGG_FT_SINT : AGG_FT_UINT;
}

int agg_formats_field(struct agg_formats *f, const struct agg_event *ev, const char *name,
		      struct agg_field *out)
{
	struct tep_event *te = tep_find_event_by_name(f->tep, ev->sys, ev->name);
	struct tep_format_field *tf;

	if (!te)
		return -ENOENT;
	tf = tep_find_any_field(te, name);
	if (!tf)
		return -ENOENT;
	field_fill(tf, out);
	return 0;
}

char *agg_formats_fields(struct agg_formats *f, const struct agg_event *ev, char *buf,
			 size_t len)
{
	struct tep_event *te = tep_find_event_by_name(f->tep, ev->sys, ev->name);
	size_t n = 0;

	buf[0] = '\0';
	if (!te)
		return buf;
	for (struct tep_format_field *tf = te->format.fields; tf && n < len; tf = tf->next)
		n += snprintf(buf + n, len - n, "%s%s", n ? ", " : "", tf->name);
	return buf;
}

/* ---- errors -------------------------------------------------------------- */

static int perr(struct agg_err *e, int pos, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int perr(struct agg_err *e, int pos, int ret, const char *fmt, ...)
{
	va_list ap;

	e->pos = pos;
	va_start(ap, fmt);
	err_vset(e->msg, sizeof(e->msg), ret, fmt, ap);
	va_end(ap);
	return ret;
}

char *agg_err_format(const struct agg_err *e, const char *text, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s", e->msg);

	if (e->pos < 0 || !text || e->pos > (int)strlen(text) || n < 0 || (size_t)n >= len)
		return buf;
	snprintf(buf + n, len - n, "\n  %s\n  %*s^", text, e->pos, "");
	return buf;
}

/* ---- scanning ------------------------------------------------------------- */

struct cur {
	const char	*s;
	int		i;
};

static void skip_ws(struct cur *c)
{
	while (isspace((unsigned char)c->s[c->i]))
		c->i++;
}

static bool is_ident(int ch)
{
	return isalnum(ch) || ch == '_';
}

/* An identifier at c->i (skipping blanks first) into @out. Return: its length. */
static int ident(struct cur *c, char *out, size_t len)
{
	int n = 0;

	skip_ws(c);
	if (!isalpha((unsigned char)c->s[c->i]) && c->s[c->i] != '_')
		return 0;
	while (is_ident((unsigned char)c->s[c->i + n]))
		n++;
	snprintf(out, len, "%.*s", n, c->s + c->i);
	c->i += n;
	return n;
}

/* Is the word @kw next (followed by a blank or the end)? Consumes it when so. */
static bool keyword(struct cur *c, const char *kw)
{
	size_t n = strlen(kw);

	skip_ws(c);
	if (strncasecmp(c->s + c->i, kw, n) || is_ident((unsigned char)c->s[c->i + n]))
		return false;
	c->i += n;
	return true;
}

/*
 * An event name: SYS:EVENT, SYS/EVENT, SYS.EVENT or EVENT. Return: 0 with
 * @ev resolved, or an error pointing at the name.
 */
static int event_at(struct cur *c, struct agg_formats *f, struct agg_event *ev,
		    struct agg_err *e, const char *what)
{
	char word[2 * AGG_NAME_MAX + 2], sys[AGG_NAME_MAX] = "", msg[512];
	int start, n = 0, sep = -1, ret;

	skip_ws(c);
	start = c->i;
	while (is_ident((unsigned char)c->s[c->i + n]) ||
	       (strchr(":/.", c->s[c->i + n]) && c->s[c->i + n] && sep < 0 && (sep = n) >= 0))
		n++;
	if (!n)
		return perr(e, start, -EINVAL, "expected the %s event (SYSTEM:EVENT)", what);
	if (n >= (int)sizeof(word))
		return perr(e, start, -EINVAL, "the %s event's name is too long", what);
	snprintf(word, sizeof(word), "%.*s", n, c->s + c->i);
	c->i += n;
	if (sep >= 0) {
		snprintf(sys, sizeof(sys), "%.*s", sep, word);
		memmove(word, word + sep + 1, strlen(word + sep));
	}
	ret = agg_formats_event(f, sys, word, ev, msg, sizeof(msg));
	if (ret)
		return perr(e, start, ret, "%s event: %s", what, msg);
	return 0;
}

/* ---- fields ----------------------------------------------------------------- */

static const char *kind_name(const struct agg_field *fl)
{
	switch (fl->kind) {
	case AGG_FT_STR:
	case AGG_FT_DSTR:
		return "a string";
	case AGG_FT_OTHER:
		return "an array";
	default:
		return "a number";
	}
}

/* @name's field of @ev, or an error naming the event's fields. */
static int field_of(struct agg_formats *f, const struct agg_event *ev, const char *name,
		    int pos, struct agg_field *out, struct agg_err *e)
{
	char list[512], en[2 * AGG_NAME_MAX];

	if (!agg_formats_field(f, ev, name, out))
		return 0;
	return perr(e, pos, -EINVAL, "%s has no field '%s'; its fields: %s (and common_pid, "
		    "common_flags, ...)", agg_event_name(ev, en, sizeof(en)), name,
		    agg_formats_fields(f, ev, list, sizeof(list)));
}

/* "start.F", "end.F" or "F": which event the qualifier names, -1 for none. */
static int qualifier(struct cur *c)
{
	skip_ws(c);
	if (!strncasecmp(c->s + c->i, "start.", 6)) {
		c->i += 6;
		return 0;
	}
	if (!strncasecmp(c->s + c->i, "end.", 4)) {
		c->i += 4;
		return 1;
	}
	return -1;
}

static void bpf_no(struct agg_spec *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void bpf_no(struct agg_spec *s, const char *fmt, ...)
{
	va_list ap;

	if (s->bpf_no[0])
		return;
	va_start(ap, fmt);
	vsnprintf(s->bpf_no, sizeof(s->bpf_no), fmt, ap);
	va_end(ap);
}

/*
 * A BPF program on a syscalls:* event gets a record whose common fields are
 * overwritten (a pt_regs pointer): common_pid it reads as the current task,
 * the others it cannot read.
 */
static void bpf_common_ok(struct agg_spec *s, const struct agg_event *ev,
			  const struct agg_field *fl)
{
	if (!strcmp(ev->sys, "syscalls") && !strncmp(fl->name, "common_", 7) &&
	    strcmp(fl->name, "common_pid"))
		bpf_no(s, "a BPF program on %s:%s cannot read %s (the kernel puts a register "
		       "pointer where the common fields are)", ev->sys, ev->name, fl->name);
}

/* A field the BPF engine keys on: fixed size, a string no longer than it compares. */
static void bpf_key_ok(struct agg_spec *s, const struct agg_field *fl)
{
	if (fl->kind == AGG_FT_DSTR || fl->kind == AGG_FT_OTHER)
		bpf_no(s, "the BPF engine keys on numbers and fixed strings, not on %s (%s %s)",
		       fl->kind == AGG_FT_DSTR ? "a variable-length string" : "an array",
		       fl->type, fl->name);
	else if (fl->kind == AGG_FT_STR && fl->size > AGG_STR_MAX)
		bpf_no(s, "the BPF engine keys on strings of up to %d bytes; %s is %s",
		       AGG_STR_MAX, fl->name, fl->type);
}

static unsigned int key_bytes(const struct agg_field *fl, unsigned int n)
{
	unsigned int sum = 0;

	for (unsigned int i = 0; i < n; i++)
		sum += fl[i].size;
	return sum;
}

/* ---- where ------------------------------------------------------------------ */

static const char *const ops[] = {
	[AGG_OP_EQ] = "==", [AGG_OP_NE] = "!=", [AGG_OP_LE] = "<=", [AGG_OP_GE] = ">=",
	[AGG_OP_LT] = "<", [AGG_OP_GT] = ">", [AGG_OP_AND] = "&",
};

/* The comparison at @p: its enum agg_op and length; -1 for "~", -2 for none. */
static int op_at(const char *p, int *len)
{
	static const int order[] = { AGG_OP_EQ, AGG_OP_NE, AGG_OP_LE, AGG_OP_GE, AGG_OP_LT,
				     AGG_OP_GT, AGG_OP_AND };

	if (*p == '~') {
		*len = 1;
		return -1;
	}
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		int i = order[k], n = strlen(ops[i]);

		if (!strncmp(p, ops[i], n) && !(i == AGG_OP_AND && p[1] == '&')) {
			*len = n;
			return i;
		}
	}
	return -2;
}

/*
 * One clause ([start.|end.]FIELD OP VALUE, or anything in parentheses) at
 * @from..@to of the where: which event it goes to, its kernel text, and, when
 * it is a plain comparison, its predicate.
 */
struct clause {
	int		from, to;
	int		side;		/* -1: not known yet */
	char		kernel[AGG_TEXT_MAX];
	bool		plain;		/* one FIELD OP VALUE */
	struct agg_pred	pred;
	char		why_not[160];	/* why not plain */
};

static int value_at(struct cur *c, int to, struct clause *cl, int op_pos, struct agg_err *e)
{
	const struct agg_field *fl = &cl->pred.f;
	char word[AGG_TEXT_MAX], *end;
	int start, n;

	skip_ws(c);
	start = c->i;
	if (c->s[c->i] == '"' || c->s[c->i] == '\'') {
		char q = c->s[c->i];
		const char *close = strchr(c->s + c->i + 1, q);

		if (!close || close - c->s >= to)
			return perr(e, start, -EINVAL, "the string has no closing %c", q);
		n = close - (c->s + c->i + 1);
		if (fl->kind != AGG_FT_STR && fl->kind != AGG_FT_DSTR)
			return perr(e, start, -EINVAL, "%s is %s (%s): compare it with a number",
				    fl->name, kind_name(fl), fl->type);
		if (cl->pred.op != AGG_OP_EQ && cl->pred.op != AGG_OP_NE)
			return perr(e, op_pos, -EINVAL, "a string compares with ==, != or ~ only");
		if (fl->kind == AGG_FT_DSTR) {
			cl->plain = false;
			snprintf(cl->why_not, sizeof(cl->why_not), "compares a variable-length "
				 "string (%s)", fl->name);
		} else if (n > AGG_STR_MAX) {
			cl->plain = false;
			snprintf(cl->why_not, sizeof(cl->why_not), "compares a string longer than "
				 "%d bytes", AGG_STR_MAX);
		}
		snprintf(cl->pred.str, sizeof(cl->pred.str), "%.*s", n, c->s + c->i + 1);
		c->i += n + 2;
		return 0;
	}
	n = 0;
	while (c->i + n < to && !isspace((unsigned char)c->s[c->i + n]) && c->s[c->i + n] != ')')
		n++;
	if (!n)
		return perr(e, start, -EINVAL, "expected a value to compare %s with", fl->name);
	snprintf(word, sizeof(word), "%.*s", n, c->s + c->i);
	if (fl->kind == AGG_FT_STR || fl->kind == AGG_FT_DSTR)
		return perr(e, start, -EINVAL, "%s is a string (%s): put the value in quotes",
			    fl->name, fl->type);
	errno = 0;
	if (word[0] == '-')
		cl->pred.val = (uint64_t)strtoll(word, &end, 0);
	else
		cl->pred.val = strtoull(word, &end, 0);
	if (*end || errno)
		return perr(e, start, -EINVAL, "'%s' is not a number", word);
	c->i += n;
	return 0;
}

static int clause_parse(const struct agg_spec *s, struct agg_formats *f, const char *text,
			struct clause *cl, struct agg_err *e)
{
	struct cur c = { .s = text, .i = cl->from };
	int depth = 0;

	cl->side = -1;
	cl->plain = true;
	cl->why_not[0] = '\0';
	while (c.i < cl->to) {
		char name[AGG_NAME_MAX];
		int q, pos, sides, oplen, op, at = c.i;
		struct agg_field fl;

		skip_ws(&c);
		if (c.i >= cl->to)
			break;
		at = c.i;
		if (text[c.i] == '(' || text[c.i] == ')') {
			depth += text[c.i] == '(' ? 1 : -1;
			c.i++;
			continue;
		}
		if (text[c.i] == '!' && text[c.i + 1] != '=') {
			cl->plain = false;
			snprintf(cl->why_not, sizeof(cl->why_not), "negates a condition (!)");
			c.i++;
			continue;
		}
		if (!strncmp(text + c.i, "||", 2) || !strncmp(text + c.i, "&&", 2)) {
			cl->plain = false;
			snprintf(cl->why_not, sizeof(cl->why_not), "has %s inside parentheses",
				 text[c.i] == '|' ? "||" : "&&");
			c.i += 2;
			continue;
		}
		q = qualifier(&c);
		pos = c.i;
		if (!ident(&c, name, sizeof(name)))
			return perr(e, at, -EINVAL, "expected a field name");
		if (s->kind == AGG_HIST && q >= 0)
			return perr(e, at, -EINVAL, "start. and end. name the events of a latency");
		/* which event has it */
		sides = 0;
		for (int i = 0; i < (s->kind == AGG_LATENCY ? 2 : 1); i++)
			if ((q < 0 || q == i) && !agg_formats_field(f, &s->ev[i], name, &fl))
				sides |= 1 << i;
		if (!sides) {
			char en[2 * AGG_NAME_MAX], en2[2 * AGG_NAME_MAX];

			if (s->kind == AGG_HIST || q >= 0)
				return field_of(f, &s->ev[q > 0 ? q : 0], name, pos, &fl, e);
			return perr(e, pos, -EINVAL, "neither %s nor %s has a field '%s'",
				    agg_event_name(&s->ev[0], en, sizeof(en)),
				    agg_event_name(&s->ev[1], en2, sizeof(en2)), name);
		}
		if (sides == 3)
			return perr(e, pos, -EINVAL, "both events have a field '%s': write start.%s "
				    "or end.%s", name, name, name);
		sides = sides == 2 ? 1 : 0;
		if (cl->side >= 0 && cl->side != sides)
			return perr(e, pos, -EINVAL, "this condition names fields of both events: "
				    "each && clause of the where must be about one event");
		cl->side = sides;
		agg_formats_field(f, &s->ev[sides], name, &fl);
		skip_ws(&c);
		op = op_at(text + c.i, &oplen);
		if (op == -2)
			return perr(e, c.i, -EINVAL, "expected a comparison after %s (== != < <= > >= "
				    "& ~)", name);
		if (cl->pred.f.name[0]) {
			cl->plain = false;
			snprintf(cl->why_not, sizeof(cl->why_not), "has more than one comparison "
				 "inside parentheses");
		}
		cl->pred.f = fl;
		cl->pred.op = op < 0 ? AGG_OP_EQ : op;
		if (op == -1) {
			cl->plain = false;
			snprintf(cl->why_not, sizeof(cl->why_not), "matches a glob (~)");
		} else if (fl.kind == AGG_FT_OTHER) {
			return perr(e, pos, -EINVAL, "%s is an array (%s): it cannot be compared",
				    name, fl.type);
		}
		c.i += oplen;
		{
			int op_pos = c.i - oplen, ret;

			if (op == -1) {
				/* a glob: the kernel's; take the value as it is */
				skip_ws(&c);
				while (c.i < cl->to && !isspace((unsigned char)text[c.i]) &&
				       text[c.i] != ')')
					c.i++;
				continue;
			}
			ret = value_at(&c, cl->to, cl, op_pos, e);
			if (ret)
				return ret;
		}
	}
	if (depth)
		return perr(e, cl->to, -EINVAL, "unbalanced parentheses");
	if (cl->side < 0)
		return perr(e, cl->from, -EINVAL, "this condition names no field");
	return 0;
}

/* The kernel's text of @text[from, to) without start./end. qualifiers. */
static void kernel_text(const char *text, int from, int to, char *out, size_t len)
{
	size_t n = 0;
	char q = 0;

	while (from < to && isspace((unsigned char)text[from]))
		from++;
	for (int i = from; i < to && n + 1 < len; i++) {
		if (q) {
			q = text[i] == q ? 0 : q;
		} else if (text[i] == '"' || text[i] == '\'') {
			q = text[i];
		} else if ((i == from || !is_ident((unsigned char)text[i - 1])) &&
			   (!strncasecmp(text + i, "start.", 6) || !strncasecmp(text + i, "end.", 4))) {
			i += text[i] == 's' || text[i] == 'S' ? 5 : 3;
			continue;
		}
		out[n++] = text[i];
	}
	while (n && isspace((unsigned char)out[n - 1]))
		n--;
	out[n] = '\0';
}

/* Split the where at @from on top-level && into clauses, each to its event. */
static int where_parse(struct agg_spec *s, struct agg_formats *f, const char *text, int from,
		       struct agg_err *e)
{
	int i = from, start, depth = 0, end = strlen(text);
	char q = 0;

	while (isspace((unsigned char)text[i]))
		i++;
	if (i >= end)
		return perr(e, i, -EINVAL, "where: expected a condition");
	start = i;
	for (;; i++) {
		struct clause cl = { 0 };
		struct agg_filter *af;
		int ret;

		if (i < end) {
			if (q) {
				q = text[i] == q ? 0 : q;
				continue;
			}
			if (text[i] == '"' || text[i] == '\'') {
				q = text[i];
				continue;
			}
			depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
			if (depth < 0)
				return perr(e, i, -EINVAL, "unbalanced parentheses");
			if (depth || strncmp(text + i, "&&", 2))
				continue;
		} else if (q) {
			return perr(e, i, -EINVAL, "the string has no closing %c", q);
		}
		cl.from = start;
		cl.to = i;
		ret = clause_parse(s, f, text, &cl, e);
		if (ret)
			return ret;
		af = &s->filt[cl.side];
		kernel_text(text, cl.from, cl.to, cl.kernel, sizeof(cl.kernel));
		if (strlen(af->kernel) + strlen(cl.kernel) + 5 >= sizeof(af->kernel))
			return perr(e, cl.from, -EINVAL, "the where is too long");
		if (af->kernel[0])
			strcat(af->kernel, " && ");
		strcat(af->kernel, cl.kernel);
		if (!cl.plain)
			bpf_no(s, "the BPF engine takes where clauses of the form FIELD OP VALUE "
			       "joined by &&; '%s' %s", cl.kernel, cl.why_not);
		else if (af->npred == AGG_PRED_MAX)
			bpf_no(s, "the BPF engine takes up to %d conditions per event", AGG_PRED_MAX);
		else
			af->pred[af->npred++] = cl.pred;
		if (i >= end)
			break;
		i++;
		start = i + 1;
	}
	return 0;
}

/* ---- the specs ---------------------------------------------------------------- */

/* FIELD[,FIELD]... of @ev into @out. */
static int field_list(struct cur *c, struct agg_formats *f, const struct agg_event *ev,
		      struct agg_field *out, unsigned int max, unsigned int *n, struct agg_err *e)
{
	*n = 0;
	do {
		char name[AGG_NAME_MAX];
		int pos, ret;

		if (qualifier(c) == 0)
			return perr(e, c->i - 6, -EINVAL, "the breakdown is by END's fields");
		pos = c->i;
		if (!ident(c, name, sizeof(name)))
			return perr(e, c->i, -EINVAL, "expected a field name");
		if (*n == max)
			return perr(e, pos, -EINVAL, "at most %u fields", max);
		ret = field_of(f, ev, name, pos, &out[*n], e);
		if (ret)
			return ret;
		if (out[*n].kind == AGG_FT_OTHER)
			return perr(e, pos, -EINVAL, "%s is an array (%s): it cannot be a key",
				    name, out[*n].type);
		(*n)++;
		skip_ws(c);
	} while (c->s[c->i] == ',' && ++c->i);
	return 0;
}

/* on SF = EF [, SF = EF]... (also "and", "&&" between pairs) */
static int match_list(struct cur *c, struct agg_formats *f, struct agg_spec *s,
		      struct agg_err *e)
{
	do {
		struct agg_field *a, *b;
		char n0[AGG_NAME_MAX], n1[AGG_NAME_MAX];
		int p0, p1, q, ret;

		if (s->nmatch == AGG_MATCH_MAX)
			return perr(e, c->i, -EINVAL, "at most %d match pairs", AGG_MATCH_MAX);
		q = qualifier(c);
		if (q == 1)
			return perr(e, c->i - 4, -EINVAL, "on: START's field comes first "
				    "(on START_FIELD = END_FIELD)");
		p0 = c->i;
		if (!ident(c, n0, sizeof(n0)))
			return perr(e, c->i, -EINVAL, "on: expected START's field");
		skip_ws(c);
		if (c->s[c->i] != '=' || c->s[c->i + 1] == '=')
			return perr(e, c->i, -EINVAL, "on: expected '=' between START's field and "
				    "END's (on pid = next_pid)");
		c->i++;
		q = qualifier(c);
		if (q == 0)
			return perr(e, c->i - 6, -EINVAL, "on: END's field comes second");
		p1 = c->i;
		if (!ident(c, n1, sizeof(n1)))
			return perr(e, c->i, -EINVAL, "on: expected END's field");
		a = &s->match[0][s->nmatch];
		b = &s->match[1][s->nmatch];
		ret = field_of(f, &s->ev[0], n0, p0, a, e);
		if (!ret)
			ret = field_of(f, &s->ev[1], n1, p1, b, e);
		if (ret)
			return ret;
		if (a->kind == AGG_FT_OTHER || b->kind == AGG_FT_OTHER)
			return perr(e, a->kind == AGG_FT_OTHER ? p0 : p1, -EINVAL, "%s is an array "
				    "(%s): it cannot be matched", a->kind == AGG_FT_OTHER ? n0 : n1,
				    a->kind == AGG_FT_OTHER ? a->type : b->type);
		if ((a->kind == AGG_FT_STR || a->kind == AGG_FT_DSTR) !=
		    (b->kind == AGG_FT_STR || b->kind == AGG_FT_DSTR))
			return perr(e, p1, -EINVAL, "%s is %s (%s) and %s %s (%s): a match needs "
				    "two of a kind", n0, kind_name(a), a->type, n1, kind_name(b),
				    b->type);
		if (a->size != b->size)
			return perr(e, p1, -EINVAL, "%s (%s, %u bytes) and %s (%s, %u bytes) differ "
				    "in size: the kernel matches keys byte for byte, so a match "
				    "needs fields of one size", n0, a->type, a->size, n1, b->type,
				    b->size);
		s->nmatch++;
		skip_ws(c);
		if (c->s[c->i] == ',') {
			c->i++;
			continue;
		}
		if (!strncmp(c->s + c->i, "&&", 2)) {
			c->i += 2;
			continue;
		}
		if (keyword(c, "and"))
			continue;
		break;
	} while (1);
	return 0;
}

static int latency_parse(struct cur *c, struct agg_formats *f, struct agg_spec *s,
			 struct agg_err *e)
{
	int ret = event_at(c, f, &s->ev[0], e, "START");

	if (ret)
		return ret;
	skip_ws(c);
	if (strncmp(c->s + c->i, "->", 2))
		return perr(e, c->i, -EINVAL, "expected '->' after the START event "
			    "(START -> END [on F = F] [by F] [where ...])");
	c->i += 2;
	ret = event_at(c, f, &s->ev[1], e, "END");
	if (ret)
		return ret;
	for (;;) {
		skip_ws(c);
		if (!c->s[c->i])
			break;
		if (keyword(c, "on")) {
			if (s->nmatch)
				return perr(e, c->i - 2, -EINVAL, "'on' given twice");
			ret = match_list(c, f, s, e);
		} else if (keyword(c, "by")) {
			if (s->nkey)
				return perr(e, c->i - 2, -EINVAL, "'by' given twice");
			ret = field_list(c, f, &s->ev[1], s->key, AGG_KEYF_MAX, &s->nkey, e);
		} else if (keyword(c, "where")) {
			return where_parse(s, f, c->s, c->i, e) ?: 0;
		} else {
			return perr(e, c->i, -EINVAL, "expected 'on', 'by' or 'where'");
		}
		if (ret)
			return ret;
	}
	return 0;
}

static int hist_parse(struct cur *c, struct agg_formats *f, struct agg_spec *s,
		      struct agg_err *e)
{
	int ret = event_at(c, f, &s->ev[0], e, "the");

	if (ret)
		return ret;
	for (;;) {
		skip_ws(c);
		if (!c->s[c->i])
			break;
		if (!strncmp(c->s + c->i, "key=", 4) || !strncmp(c->s + c->i, "keys=", 5)) {
			if (s->nkey)
				return perr(e, c->i, -EINVAL, "key= given twice");
			c->i += c->s[c->i + 3] == '=' ? 4 : 5;
			ret = field_list(c, f, &s->ev[0], s->key, AGG_KEYF_MAX, &s->nkey, e);
		} else if (!strncmp(c->s + c->i, "val=", 4) || !strncmp(c->s + c->i, "vals=", 5)) {
			char name[AGG_NAME_MAX];
			int pos;

			if (s->has_val)
				return perr(e, c->i, -EINVAL, "val= given twice");
			c->i += c->s[c->i + 3] == '=' ? 4 : 5;
			pos = c->i;
			if (!ident(c, name, sizeof(name)))
				return perr(e, c->i, -EINVAL, "expected a field name");
			ret = field_of(f, &s->ev[0], name, pos, &s->val, e);
			if (!ret && s->val.kind != AGG_FT_UINT && s->val.kind != AGG_FT_SINT)
				ret = perr(e, pos, -EINVAL, "val= sums a number; %s is %s (%s)", name,
					   kind_name(&s->val), s->val.type);
			s->has_val = true;
		} else if (keyword(c, "where")) {
			ret = where_parse(s, f, c->s, c->i, e);
			if (ret)
				return ret;
			break;
		} else {
			return perr(e, c->i, -EINVAL, "expected key=FIELD[,FIELD], val=FIELD or "
				    "'where'");
		}
		if (ret)
			return ret;
	}
	if (!s->nkey)
		return perr(e, (int)strlen(c->s), -EINVAL, "key=FIELD[,FIELD] is missing (the "
			    "fields to count by)");
	return 0;
}

int agg_spec_parse(enum agg_spec_kind kind, const char *text, struct agg_formats *f,
		   struct agg_spec *out, struct agg_err *e)
{
	struct cur c = { .s = text };
	int ret;

	memset(out, 0, sizeof(*out));
	e->pos = -1;
	e->msg[0] = '\0';
	out->kind = kind;
	if (strlen(text) >= sizeof(out->text))
		return perr(e, -1, -EINVAL, "the spec is longer than %zu bytes",
			    sizeof(out->text) - 1);
	snprintf(out->text, sizeof(out->text), "%s", text);
	ret = kind == AGG_LATENCY ? latency_parse(&c, f, out, e) : hist_parse(&c, f, out, e);
	if (ret)
		return ret;
	if (kind == AGG_LATENCY) {
		if (!out->nmatch) {
			out->match_default = true;
			out->nmatch = 1;
			agg_formats_field(f, &out->ev[0], "common_pid", &out->match[0][0]);
			agg_formats_field(f, &out->ev[1], "common_pid", &out->match[1][0]);
		}
		if (!out->nkey) {
			out->key_default = true;
			out->nkey = out->nmatch;
			memcpy(out->key, out->match[1], sizeof(out->key[0]) * out->nmatch);
		}
		for (unsigned int i = 0; i < out->nmatch; i++) {
			bpf_key_ok(out, &out->match[1][i]);
			bpf_common_ok(out, &out->ev[0], &out->match[0][i]);
			bpf_common_ok(out, &out->ev[1], &out->match[1][i]);
		}
		if (key_bytes(out->match[1], out->nmatch) > AGG_KEY_BYTES)
			bpf_no(out, "the BPF engine matches on up to %d bytes of fields",
			       AGG_KEY_BYTES);
	}
	for (unsigned int i = 0; i < out->nkey; i++) {
		bpf_key_ok(out, &out->key[i]);
		bpf_common_ok(out, &out->ev[kind == AGG_LATENCY ? 1 : 0], &out->key[i]);
	}
	for (int i = 0; i < 2; i++)
		for (unsigned int k = 0; k < out->filt[i].npred; k++)
			bpf_common_ok(out, &out->ev[i], &out->filt[i].pred[k].f);
	if (out->has_val)
		bpf_common_ok(out, &out->ev[0], &out->val);
	if (key_bytes(out->key, out->nkey) > AGG_KEY_BYTES)
		bpf_no(out, "the BPF engine keys on up to %d bytes of fields", AGG_KEY_BYTES);
	return 0;
}

char *agg_spec_title(const struct agg_spec *s, char *buf, size_t len)
{
	char a[2 * AGG_NAME_MAX], b[2 * AGG_NAME_MAX];
	size_t n;

	agg_event_name(&s->ev[0], a, sizeof(a));
	if (s->kind == AGG_HIST) {
		n = snprintf(buf, len, "%s key=", a);
		for (unsigned int i = 0; i < s->nkey && n < len; i++)
			n += snprintf(buf + n, len - n, "%s%s", i ? "," : "", s->key[i].name);
		if (s->has_val && n < len)
			n += snprintf(buf + n, len - n, " val=%s", s->val.name);
	} else {
		n = snprintf(buf, len, "%s -> %s on ", a, agg_event_name(&s->ev[1], b, sizeof(b)));
		for (unsigned int i = 0; i < s->nmatch && n < len; i++)
			n += snprintf(buf + n, len - n, "%s%s = %s", i ? ", " : "",
				      s->match[0][i].name, s->match[1][i].name);
		if (!s->key_default)
			for (unsigned int i = 0; i < s->nkey && n < len; i++)
				n += snprintf(buf + n, len - n, "%s%s", i ? "," : " by ",
					      s->key[i].name);
	}
	for (int i = 0; i < 2 && n < len; i++)
		if (s->filt[i].kernel[0])
			n += snprintf(buf + n, len - n, " %s %s%s", i && s->filt[0].kernel[0] ?
				      "&&" : "where", s->kind == AGG_LATENCY ? (i ? "end: " :
				      "start: ") : "", s->filt[i].kernel);
	return buf;
}
