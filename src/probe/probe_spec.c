// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probe spec parser (syntax in probe_spec.h). A hand-written recursive
 * descent over the text: every error names the position of the character it
 * stopped at, so the message can put a caret under it as the kernel's
 * error_log does.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/err.h"
#include "lib/strutil.h"
#include "probe_spec.h"

struct cur {
	const char	*s;	/* the whole spec */
	int		i;	/* position */
	int		end;	/* end of the current token */
};

int probe_err_set(struct probe_err *e, int pos, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return -EINVAL;
	e->pos = pos;
	va_start(ap, fmt);
	err_vset(e->msg, sizeof(e->msg), -EINVAL, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

char *probe_err_format(const struct probe_err *e, const char *text, char *buf, size_t len)
{
	int n;

	n = snprintf(buf, len, "%s", e->msg);
	if (e->pos < 0 || !text || e->pos > (int)strlen(text) || n < 0 || (size_t)n >= len)
		return buf;
	snprintf(buf + n, len - n, "\n  %s\n  %*s^", text, e->pos, "");
	return buf;
}

static bool is_ident_start(int c)
{
	return isalpha(c) || c == '_';
}

static bool is_ident(int c)
{
	return isalnum(c) || c == '_';
}

/* A C identifier at c->i, copied to @out. Return: its length, 0 when none. */
static int ident(struct cur *c, char *out, size_t len)
{
	int n = 0;

	if (c->i >= c->end || !is_ident_start((unsigned char)c->s[c->i]))
		return 0;
	while (c->i + n < c->end && is_ident((unsigned char)c->s[c->i + n]))
		n++;
	snprintf(out, len, "%.*s", n, c->s + c->i);
	c->i += n;
	return n;
}

/* A decimal or 0x number at c->i. Return: true when there was one. */
static bool number(struct cur *c, long *out)
{
	const char *p = c->s + c->i;
	char *end;
	long v;

	if (c->i >= c->end || !isdigit((unsigned char)*p))
		return false;
	errno = 0;
	v = strtol(p, &end, 0);
	if (errno || end > c->s + c->end)
		return false;
	c->i = (int)(end - c->s);
	*out = v;
	return true;
}

static bool eat(struct cur *c, const char *tok)
{
	size_t n = strlen(tok);

	if (c->i + (int)n > c->end || strncmp(c->s + c->i, tok, n))
		return false;
	c->i += n;
	return true;
}

static int parse_steps(struct cur *c, struct probe_expr *x, struct probe_err *e)
{
	while (c->i < c->end) {
		struct probe_step *st;
		int at = c->i;

		if (x->nsteps == PROBE_MAX_STEPS)
			return probe_err_set(e, at, "too many steps (at most %d)", PROBE_MAX_STEPS);
		st = &x->steps[x->nsteps];
		if (eat(c, "->")) {
			st->kind = PROBE_STEP_ARROW;
		} else if (eat(c, ".")) {
			st->kind = PROBE_STEP_DOT;
		} else if (eat(c, "[")) {
			st->kind = PROBE_STEP_INDEX;
			st->pos = c->i;
			if (!number(c, &st->index) || st->index < 0)
				return probe_err_set(e, c->i, "an index (a number >= 0) expected "
						     "after '['");
			if (!eat(c, "]"))
				return probe_err_set(e, c->i, "']' expected");
			x->nsteps++;
			continue;
		} else {
			return probe_err_set(e, at, "'->', '.', '[' or ':TYPE' expected here");
		}
		st->pos = c->i;
		if (!ident(c, st->name, sizeof(st->name)))
			return probe_err_set(e, c->i, "a member name expected after '%s'",
					     st->kind == PROBE_STEP_ARROW ? "->" : ".");
		x->nsteps++;
	}
	return 0;
}

static int parse_expr(struct cur *c, struct probe_expr *x, struct probe_err *e, int depth);

/* +OFFS(EXPR), -OFFS(EXPR), +uOFFS(EXPR) */
static int parse_deref(struct cur *c, struct probe_expr *x, struct probe_err *e, int depth)
{
	bool neg = c->s[c->i] == '-';
	int close, lvl = 0, at, ret;
	struct cur in;

	c->i++;
	x->base = PROBE_BASE_DEREF;
	if (c->i < c->end && c->s[c->i] == 'u') {
		x->user = true;
		c->i++;
	}
	if (!number(c, &x->offset))
		return probe_err_set(e, c->i, "an offset expected: +OFFS(...) as in +0($retval)");
	if (neg)
		x->offset = -x->offset;
	if (!eat(c, "("))
		return probe_err_set(e, c->i, "'(' expected after the offset");
	at = c->i;
	for (close = c->i; close < c->end; close++) {
		if (c->s[close] == '(')
			lvl++;
		else if (c->s[close] == ')' && !lvl--)
			break;
	}
	if (close >= c->end)
		return probe_err_set(e, c->end, "')' expected");
	x->inner = calloc(1, sizeof(*x->inner));
	if (!x->inner)
		return probe_err_set(e, -1, "out of memory");
	in = (struct cur){ .s = c->s, .i = at, .end = close };
	if (at == close)
		return probe_err_set(e, at, "an expression expected inside the parentheses");
	ret = parse_expr(&in, x->inner, e, depth + 1);
	if (ret)
		return ret;
	if (x->inner->base == PROBE_BASE_ARGS || x->inner->base == PROBE_BASE_COMM)
		return probe_err_set(e, at, "cannot dereference %s", x->inner->name);
	c->i = close + 1;
	if (c->i < c->end)
		return probe_err_set(e, c->i, "nothing may follow +OFFS(...) but ':TYPE'; "
				     "use ->member on a typed expression instead");
	return 0;
}

static int parse_dollar(struct cur *c, struct probe_expr *x, struct probe_err *e)
{
	int at = c->i;
	long n;

	c->i++;
	if (eat(c, "args") || eat(c, "arg*")) {
		x->base = PROBE_BASE_ARGS;
		snprintf(x->name, sizeof(x->name), "$args");
		if (c->i < c->end)
			return probe_err_set(e, c->i, "$args stands alone");
		return 0;
	}
	if (eat(c, "retval")) {
		x->base = PROBE_BASE_RETVAL;
		snprintf(x->name, sizeof(x->name), "$retval");
		return 0;
	}
	if (eat(c, "comm") && (c->i >= c->end || !is_ident((unsigned char)c->s[c->i]))) {
		x->base = PROBE_BASE_COMM;
		snprintf(x->name, sizeof(x->name), "$comm");
		return 0;
	}
	c->i = at + 1;
	if (eat(c, "arg") && c->i < c->end && isdigit((unsigned char)c->s[c->i])) {
		if (!number(c, &n) || n < 1 || n > 64)
			return probe_err_set(e, at, "$argN counts from 1 (the first argument) to 64");
		x->base = PROBE_BASE_ARGN;
		x->argn = (int)n;
		snprintf(x->name, sizeof(x->name), "$arg%ld", n);
		return 0;
	}
	c->i = at + 1;
	if (eat(c, "stack")) {
		while (c->i < c->end && isdigit((unsigned char)c->s[c->i]))
			c->i++;
		x->base = PROBE_BASE_RAW;
		snprintf(x->name, sizeof(x->name), "%.*s", c->i - at, c->s + at);
		if (c->i < c->end)
			return probe_err_set(e, c->i, "nothing may follow %s but ':TYPE'", x->name);
		return 0;
	}
	c->i = at + 1;
	if (!ident(c, x->name, sizeof(x->name)))
		return probe_err_set(e, at, "$ must be followed by argN, retval, comm, args, "
				     "stackN or an event field name");
	x->base = PROBE_BASE_FIELD;
	return 0;
}

static int parse_expr(struct cur *c, struct probe_expr *x, struct probe_err *e, int depth)
{
	int at = c->i, ret;
	char ch;

	x->pos = at;
	if (depth > 8)
		return probe_err_set(e, at, "dereferences nested too deep (at most 8)");
	if (c->i >= c->end)
		return probe_err_set(e, at, "an expression expected");
	ch = c->s[c->i];
	if (ch == '+' || ch == '-')
		return parse_deref(c, x, e, depth);
	if (ch == '%' || ch == '@') {
		int n = 1;

		while (c->i + n < c->end && (is_ident((unsigned char)c->s[c->i + n]) ||
					     (ch == '@' && strchr(".+-", c->s[c->i + n]))))
			n++;
		if (n == 1)
			return probe_err_set(e, at, "%s expected after '%c'",
					     ch == '%' ? "a register name (di, si, dx, ...)" :
					     "a symbol or an address", ch);
		x->base = PROBE_BASE_RAW;
		snprintf(x->name, sizeof(x->name), "%.*s", n, c->s + c->i);
		c->i += n;
		if (c->i < c->end)
			return probe_err_set(e, c->i, "nothing may follow %s but ':TYPE'", x->name);
		return 0;
	}
	if (ch == '$')
		ret = parse_dollar(c, x, e);
	else if (ident(c, x->name, sizeof(x->name)))
		ret = (x->base = PROBE_BASE_NAME, 0);
	else
		return probe_err_set(e, at, "an argument expected: a parameter name, $argN, "
				     "$retval, $comm, +OFFS(...), %%REG or @SYMBOL");
	if (ret || x->base == PROBE_BASE_RAW || x->base == PROBE_BASE_ARGS)
		return ret;
	ret = parse_steps(c, x, e);
	if (!ret && x->base == PROBE_BASE_COMM && x->nsteps)
		return probe_err_set(e, at, "$comm has no members");
	return ret;
}

static const char *const probe_types[] = {
	"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "x8", "x16", "x32", "x64",
	"hex", "char", "string", "ustring", "str", "symbol", "symstr", NULL
};

bool probe_type_valid(const char *type)
{
	const char *br;
	unsigned int a, b, s;
	char base[32], tail;

	for (int i = 0; probe_types[i]; i++)
		if (!strcmp(type, probe_types[i]))
			return true;
	/* bN@M/S: a bit field */
	if (sscanf(type, "b%u@%u/%u%c", &a, &b, &s, &tail) == 3)
		return a && (s == 8 || s == 16 || s == 32 || s == 64) && a + b <= s;
	/* T[N]: an array of a basic type */
	br = strchr(type, '[');
	if (!br || br == type || (size_t)(br - type) >= sizeof(base) ||
	    sscanf(br, "[%u%c", &a, &tail) != 2 || tail != ']' || br[strcspn(br, "]") + 1] ||
	    !a || a > 64)
		return false;
	snprintf(base, sizeof(base), "%.*s", (int)(br - type), type);
	return strcmp(base, "hex") && strcmp(base, "str") && probe_type_valid(base);
}

/* ARG: [NAME=]EXPR[:TYPE], the token [start, end) */
static int parse_arg(const char *s, int start, int end, struct probe_arg *a, struct probe_err *e)
{
	struct cur c = { .s = s, .i = start, .end = end };
	int colon = -1, lvl = 0, ret;

	a->pos = start;
	a->len = end - start;
	a->type_pos = start;
	/* NAME= */
	for (int i = start; i < end && is_ident((unsigned char)s[i]); i++) {
		if (i + 1 < end && s[i + 1] == '=' && is_ident_start((unsigned char)s[start])) {
			snprintf(a->name, sizeof(a->name), "%.*s", i + 1 - start, s + start);
			c.i = i + 2;
			break;
		}
	}
	/* :TYPE, outside parentheses */
	for (int i = c.i; i < end; i++) {
		if (s[i] == '(')
			lvl++;
		else if (s[i] == ')')
			lvl--;
		else if (s[i] == ':' && !lvl)
			colon = i;
	}
	if (colon >= 0) {
		if (colon + 1 == end)
			return probe_err_set(e, colon + 1, "a type expected after ':'");
		if ((size_t)(end - colon - 1) >= sizeof(a->type))
			return probe_err_set(e, colon + 1, "unknown type");
		snprintf(a->type, sizeof(a->type), "%.*s", end - colon - 1, s + colon + 1);
		a->type_pos = colon + 1;
		if (!probe_type_valid(a->type))
			return probe_err_set(e, colon + 1, "unknown type '%s'; types: u8..u64, "
					     "s8..s64, x8..x64, hex, char, string, ustring, "
					     "symbol, symstr, bN@M/S, T[N]", a->type);
		c.end = colon;
	}
	ret = parse_expr(&c, &a->expr, e, 0);
	if (ret)
		return ret;
	if (a->expr.base == PROBE_BASE_ARGS && (a->name[0] || a->type[0]))
		return probe_err_set(e, start, "$args takes no NAME= and no :TYPE (each "
				     "parameter gets its own)");
	return 0;
}

/* FUNC[+OFFS] or SYMBOL[+OFFS] or 0xOFFSET in [i, end) */
static int parse_func(struct probe_spec *sp, const char *s, int i, int end, char *name,
		      size_t len, bool allow_addr, struct probe_err *e)
{
	struct cur c = { .s = s, .i = i, .end = end };
	int n = 0;

	if (allow_addr && eat(&c, "0x")) {
		c.i = i;
		if (!number(&c, (long *)&sp->offset) || c.i != end)
			return probe_err_set(e, i, "a hex file offset expected (0x1234)");
		sp->has_offset = true;
		name[0] = '\0';
		return 0;
	}
	while (i + n < end && (is_ident((unsigned char)s[i + n]) || s[i + n] == '.'))
		n++;
	if (!n || !is_ident_start((unsigned char)s[i]))
		return probe_err_set(e, i, "a function or symbol name expected");
	if ((size_t)n >= len)
		return probe_err_set(e, i, "name too long");
	snprintf(name, len, "%.*s", n, s + i);
	c.i = i + n;
	if (c.i < end && s[c.i] == '+') {
		c.i++;
		if (!number(&c, (long *)&sp->offset))
			return probe_err_set(e, c.i, "an offset expected after '+'");
		sp->has_offset = true;
	}
	if (c.i != end)
		return probe_err_set(e, c.i, "unexpected '%c'", s[c.i]);
	return 0;
}

static int parse_head(struct probe_spec *sp, const char *s, int start, int end,
		      struct probe_err *e)
{
	int i = start, colon = -1, n;

	/* EVENT= */
	for (n = start; n < end && is_ident((unsigned char)s[n]); n++)
		;
	if (n < end && s[n] == '=' && n > start && is_ident_start((unsigned char)s[start])) {
		if (n - start >= PROBE_NAME_MAX)
			return probe_err_set(e, start, "event name too long");
		snprintf(sp->event, sizeof(sp->event), "%.*s", n - start, s + start);
		i = n + 1;
	}
	if (end - i > 7 && !strncmp(s + end - 7, "%return", 7)) {
		sp->ret = true;
		end -= 7;
	}
	sp->target_pos = i;
	if (i >= end)
		return probe_err_set(e, i, "a place to probe expected: FUNC, SYSTEM:EVENT or "
				     "BINARY:SYMBOL");
	for (n = i; n < end; n++)
		if (s[n] == ':')
			colon = n;
	if (colon < 0) {
		sp->place = PROBE_PLACE_FUNC;
		return parse_func(sp, s, i, end, sp->target, sizeof(sp->target), false, e);
	}
	if (colon == i)
		return probe_err_set(e, i, "a binary, library or event system expected "
				     "before ':'");
	if (colon + 1 == end)
		return probe_err_set(e, colon + 1, "a symbol or event name expected after ':'");
	if (colon - i >= (int)sizeof(sp->target))
		return probe_err_set(e, i, "path too long");
	snprintf(sp->target, sizeof(sp->target), "%.*s", colon - i, s + i);
	sp->place = memchr(s + i, '/', colon - i) ? PROBE_PLACE_BINARY : PROBE_PLACE_COLON;
	if (sp->place == PROBE_PLACE_COLON)
		for (n = i; n < colon; n++)
			if (!is_ident((unsigned char)s[n]) && !strchr(".-+", s[n]))
				return probe_err_set(e, n, "'%c' in a library or system name "
						     "(give a path with a '/' for a binary)", s[n]);
	return parse_func(sp, s, colon + 1, end, sp->symbol, sizeof(sp->symbol), true, e);
}

static void expr_free(struct probe_expr *x)
{
	while (x && x->inner) {
		struct probe_expr *in = x->inner;

		x->inner = in->inner;
		in->inner = NULL;
		free(in);
	}
}

void probe_spec_free(struct probe_spec *s)
{
	if (!s)
		return;
	for (unsigned int i = 0; i < PROBE_MAX_ARGS; i++)
		expr_free(&s->args[i].expr);
	free(s);
}

int probe_spec_parse(const char *text, struct probe_spec **out, struct probe_err *e)
{
	struct probe_spec *sp;
	int i = 0, start, ret, len;

	*out = NULL;
	e->pos = -1;
	e->msg[0] = '\0';
	len = (int)strlen(text);
	if (len >= PROBE_TEXT_MAX)
		return probe_err_set(e, -1, "probe spec too long (at most %d characters)",
				     PROBE_TEXT_MAX - 1);
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return probe_err_set(e, -1, "out of memory");
	snprintf(sp->text, sizeof(sp->text), "%s", text);
	for (int k = 0; k < len; k++) {
		if (!isprint((unsigned char)text[k]) && !isspace((unsigned char)text[k])) {
			ret = probe_err_set(e, k, "unprintable character in the probe spec");
			goto out_free;
		}
	}
	while (i < len && isspace((unsigned char)text[i]))
		i++;
	if (i == len) {
		ret = probe_err_set(e, -1, "empty probe spec: give FUNC [ARG...], e.g. "
				    "'vfs_read count'");
		goto out_free;
	}
	start = i;
	while (i < len && !isspace((unsigned char)text[i]))
		i++;
	ret = parse_head(sp, text, start, i, e);
	while (!ret) {
		while (i < len && isspace((unsigned char)text[i]))
			i++;
		if (i == len)
			break;
		if (sp->nargs == PROBE_MAX_ARGS) {
			ret = probe_err_set(e, i, "too many arguments (at most %d per probe)",
					    PROBE_MAX_ARGS);
			break;
		}
		start = i;
		while (i < len && !isspace((unsigned char)text[i]))
			i++;
		ret = parse_arg(text, start, i, &sp->args[sp->nargs++], e);
	}
	if (ret)
		goto out_free;
	*out = sp;
	return 0;

out_free:
	probe_spec_free(sp);
	return ret;
}

char *probe_expr_text(const struct probe_expr *x, char *buf, size_t len)
{
	size_t n = 0;
	char inner[256];

	buf[0] = '\0';
	switch (x->base) {
	case PROBE_BASE_DEREF:
		n = snprintf(buf, len, "%s%s%ld(%s)", x->offset < 0 ? "-" : "+", x->user ? "u" : "",
			     x->offset < 0 ? -x->offset : x->offset,
			     probe_expr_text(x->inner, inner, sizeof(inner)));
		break;
	case PROBE_BASE_FIELD:
		n = snprintf(buf, len, "$%s", x->name);
		break;
	default:
		n = snprintf(buf, len, "%s", x->name);
		break;
	}
	for (unsigned int i = 0; i < x->nsteps && n < len; i++) {
		const struct probe_step *st = &x->steps[i];

		if (st->kind == PROBE_STEP_INDEX)
			n += snprintf(buf + n, len - n, "[%ld]", st->index);
		else
			n += snprintf(buf + n, len - n, "%s%s",
				      st->kind == PROBE_STEP_ARROW ? "->" : ".", st->name);
	}
	return buf;
}
