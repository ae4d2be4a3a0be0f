// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * prev_state letters from the sched_switch format (taskstate.h). The print
 * fmt reads, on every kernel from 4.14 on (the constants differ):
 *
 *   (REC->prev_state & MASK) ? __print_flags(REC->prev_state & MASK, "|",
 *       { 0x01, "S" }, ...) : "R", REC->prev_state & PLUS ? "+" : ""
 *
 * MASK and PLUS are constant expressions ("((((0x0 | 0x1 | ...) + 1) << 1) -
 * 1)"), evaluated here by a small parser of C's integer operators.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "taskstate.h"

void taskstate_default(struct taskstate_fmt *f)
{
	static const char letters[] = "SDTtXZPI";

	memset(f, 0, sizeof(*f));
	f->mask = 0xff;
	f->plus = 0x100;
	for (unsigned int i = 0; i < sizeof(letters) - 1; i++) {
		f->bits[i].value = 1ull << i;
		f->bits[i].name[0] = letters[i];
	}
	f->n = sizeof(letters) - 1;
}

/* ---- constant expressions: | ^ & << >> + - * ~ ! ( ), numbers ---------------- */

struct cx {
	const char	*p;
	bool		bad;
};

static void cx_space(struct cx *c)
{
	while (*c->p == ' ' || *c->p == '\t' || *c->p == '\n')
		c->p++;
}

static uint64_t cx_or(struct cx *c);

static uint64_t cx_unary(struct cx *c)
{
	uint64_t v;
	char *end;

	cx_space(c);
	if (*c->p == '(') {
		c->p++;
		v = cx_or(c);
		cx_space(c);
		if (*c->p != ')')
			c->bad = true;
		else
			c->p++;
		return v;
	}
	if (*c->p == '~') {
		c->p++;
		return ~cx_unary(c);
	}
	if (*c->p == '-') {
		c->p++;
		return -cx_unary(c);
	}
	if (*c->p == '!') {
		c->p++;
		return !cx_unary(c);
	}
	v = strtoull(c->p, &end, 0);
	if (end == c->p)
		c->bad = true;
	c->p = end;
	while (*c->p == 'U' || *c->p == 'u' || *c->p == 'L' || *c->p == 'l')
		c->p++;
	return v;
}

/* Binary operators by precedence, lowest first. */
static const char *const cx_ops[][3] = {
	{ "|" }, { "^" }, { "&" }, { "<<", ">>" }, { "+", "-" }, { "*" },
};
#define CX_LEVELS	(sizeof(cx_ops) / sizeof(cx_ops[0]))

static const char *cx_op(struct cx *c, unsigned int level)
{
	cx_space(c);
	for (unsigned int i = 0; i < 3 && cx_ops[level][i]; i++) {
		const char *op = cx_ops[level][i];
		size_t n = strlen(op);

		/* "|" is not "||", "&" not "&&" */
		if (!strncmp(c->p, op, n) && (n == 2 || c->p[1] != c->p[0]))
			return op;
	}
	return NULL;
}

static uint64_t cx_level(struct cx *c, unsigned int level)
{
	uint64_t v, r;
	const char *op;

	if (level == CX_LEVELS)
		return cx_unary(c);
	v = cx_level(c, level + 1);
	while (!c->bad && (op = cx_op(c, level))) {
		c->p += strlen(op);
		r = cx_level(c, level + 1);
		switch (op[0]) {
		case '|': v |= r; break;
		case '^': v ^= r; break;
		case '&': v &= r; break;
		case '<': v = r < 64 ? v << r : 0; break;
		case '>': v = r < 64 ? v >> r : 0; break;
		case '+': v += r; break;
		case '-': v -= r; break;
		case '*': v *= r; break;
		}
	}
	return v;
}

static uint64_t cx_or(struct cx *c)
{
	return cx_level(c, 0);
}

/* Evaluate the expression at @p up to its end (a ',' ')' '?' at depth 0). */
static bool cx_eval(const char *p, uint64_t *out)
{
	struct cx c = { .p = p };

	*out = cx_or(&c);
	cx_space(&c);
	return !c.bad && (*c.p == ',' || *c.p == ')' || *c.p == '?');
}

/* ---- the print fmt ------------------------------------------------------------- */

/* The { VALUE, "NAME" } pairs from @p (after the delimiter argument). */
static int parse_pairs(const char *p, struct taskstate_fmt *f)
{
	f->n = 0;
	for (;;) {
		const char *q, *e;
		uint64_t v;
		char *end;

		while (*p == ' ' || *p == ',')
			p++;
		if (*p != '{')
			break;
		p++;
		while (*p == ' ')
			p++;
		v = strtoull(p, &end, 0);
		if (end == p)
			return -ENOENT;
		q = strchr(end, '"');
		e = q ? strchr(q + 1, '"') : NULL;
		if (!e || (size_t)(e - q - 1) >= sizeof(f->bits[0].name) ||
		    f->n == TASKSTATE_MAX_BITS)
			return -ENOENT;
		f->bits[f->n].value = v;
		memcpy(f->bits[f->n].name, q + 1, (size_t)(e - q - 1));
		f->bits[f->n].name[e - q - 1] = '\0';
		f->n++;
		p = strchr(e, '}');
		if (!p)
			return -ENOENT;
		p++;
	}
	return f->n ? 0 : -ENOENT;
}

int taskstate_parse(const char *text, struct taskstate_fmt *f)
{
	static const char flags_key[] = "__print_flags(REC->prev_state & ";
	static const char plus_key[] = "REC->prev_state & ";
	struct taskstate_fmt t;
	const char *p, *q;

	taskstate_default(f);
	p = text ? strstr(text, flags_key) : NULL;
	if (!p)
		return -ENOENT;
	memset(&t, 0, sizeof(t));
	p += sizeof(flags_key) - 1;
	if (!cx_eval(p, &t.mask))
		return -ENOENT;
	/* past the mask: the delimiter string, then the pairs */
	q = strstr(p, "\"|\"");
	if (!q || parse_pairs(q + 3, &t))
		return -ENOENT;
	/* ... : "R", REC->prev_state & PLUS ? "+" : "" */
	q = strstr(q, ": \"R\"");
	q = q ? strstr(q, plus_key) : NULL;
	if (q && !cx_eval(q + sizeof(plus_key) - 1, &t.plus))
		return -ENOENT;
	*f = t;
	return 0;
}

const char *taskstate_format(const struct taskstate_fmt *f, uint64_t state, char *buf,
			     size_t len)
{
	struct taskstate_fmt def;
	uint64_t v;
	size_t n = 0;

	if (!len)
		return buf;
	if (!f) {
		taskstate_default(&def);
		f = &def;
	}
	buf[0] = '\0';
	v = state & f->mask;
	if (!v) {
		n = (size_t)snprintf(buf, len, "R");
	} else {
		/* libtraceevent's __print_flags(): each named value whole, then the rest */
		for (unsigned int i = 0; i < f->n && v; i++) {
			uint64_t b = f->bits[i].value;

			if (!b || (v & b) != b)
				continue;
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? "|" : "",
					      f->bits[i].name);
			v &= ~b;
		}
		if (v)
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s0x%" PRIx64,
					      n ? "|" : "", v);
	}
	if (f->plus && (state & f->plus) && n < len)
		snprintf(buf + n, len - n, "+");
	return buf;
}
