/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A parser of the kernel's function_graph text output (the `trace` file),
 * used by the tests to derive expected call trees independently of the
 * raw-record path. It knows the default column layout:
 *
 *    0)               |  vfs_read() {
 *    0)   0.451 us    |    rw_verify_area();
 *    0) + 12.345 us   |  }
 *    0)   1.000 us    |  } (comment with the function name)
 *   ------------------------------------------
 *    0)    bash-1234   =>   cat-5678
 *   ------------------------------------------
 *
 * with optional funcgraph-proc ("bash-1234    |") and funcgraph-abstime
 * ("  123.456789 |") columns, and "# ..." header lines. Each brace line
 * becomes a record; building trees from them is up to the caller.
 */
#ifndef FGRAPH_TEXT_H
#define FGRAPH_TEXT_H

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum ft_kind { FT_ENTRY, FT_LEAF, FT_EXIT, FT_SWITCH, FT_CTX };

struct ft_rec {
	enum ft_kind	kind;
	int		cpu;		/* -1: no CPU column */
	int		pid;		/* FT_SWITCH: the next pid; from the proc column; else -1 */
	int		indent;		/* spaces before the function text / 2 */
	char		func[96];	/* ENTRY/LEAF; EXIT: the name in the comment, or "" */
	char		mark;		/* ' ' or + ! # * @ $ */
	bool		has_dur;
	uint64_t	dur;		/* ns, as printed (truncated to its precision) */
	uint64_t	dur_unit;	/* ns per last printed digit (1, 10, 100, 1000) */
	char		label[96];	/* FT_CTX: the "# label" text */
};

/* "comm-123" -> 123 (the digits after the last '-'), -1 if none. */
static inline int ft_pid_of(const char *s, size_t n)
{
	size_t i = n;

	while (i > 0 && isdigit((unsigned char)s[i - 1]))
		i--;
	if (i == n || i == 0 || s[i - 1] != '-')
		return -1;
	return atoi(s + i);
}

/* Parse " 12.345 us" style text; Return: true on success. */
static inline bool ft_parse_dur(const char *s, const char *end, uint64_t *ns, uint64_t *unit)
{
	uint64_t us = 0, frac = 0;
	int nfrac = 0;

	while (s < end && (*s == ' '))
		s++;
	if (s >= end || !isdigit((unsigned char)*s))
		return false;
	while (s < end && isdigit((unsigned char)*s))
		us = us * 10 + (uint64_t)(*s++ - '0');
	if (s < end && *s == '.') {
		s++;
		while (s < end && isdigit((unsigned char)*s)) {
			frac = frac * 10 + (uint64_t)(*s++ - '0');
			nfrac++;
		}
	}
	while (s < end && *s == ' ')
		s++;
	if (end - s < 2 || strncmp(s, "us", 2))
		return false;
	*unit = 1000;
	for (int i = 0; i < nfrac; i++)
		*unit /= 10;
	*ns = us * 1000 + frac * *unit;
	return true;
}

/*
 * Parse one line. Return: 1 and @r filled for a record, 0 for a line to
 * ignore (headers, irq arrows, comments, blank).
 */
static inline int ft_parse_line(const char *line, struct ft_rec *r)
{
	const char *p = line, *bar, *q, *fn, *eol = line + strlen(line);
	int cpu = -1;

	memset(r, 0, sizeof(*r));
	r->pid = -1;
	r->mark = ' ';
	while (eol > line && (eol[-1] == '\n' || eol[-1] == '\r'))
		eol--;
	if (*p == '#') {
		p++;
		while (*p == ' ')
			p++;
		r->kind = FT_CTX;
		snprintf(r->label, sizeof(r->label), "%.*s", (int)(eol - p), p);
		return 1;
	}
	while (p < eol && *p == ' ')
		p++;
	if (p >= eol || *p == '-')
		return 0;
	/* optional abstime column "123.456789 |" */
	q = p;
	while (q < eol && (isdigit((unsigned char)*q) || *q == '.'))
		q++;
	if (q > p && q < eol && *q == ' ' && memchr(p, '.', (size_t)(q - p))) {
		const char *b = q;

		while (b < eol && *b == ' ')
			b++;
		if (b < eol && *b == '|') {
			p = b + 1;
			while (p < eol && *p == ' ')
				p++;
		}
	}
	/* CPU column "N)" */
	q = p;
	while (q < eol && isdigit((unsigned char)*q))
		q++;
	if (q > p && q < eol && *q == ')') {
		cpu = atoi(p);
		p = q + 1;
	}
	r->cpu = cpu;
	/* context switch line: "bash-1234 => cat-5678" */
	q = strstr(p, "=>");
	if (q && q < eol && !memchr(p, '|', (size_t)(q - p)) && q[-1] == ' ') {
		const char *a = q + 2, *b;

		while (a < eol && *a == ' ')
			a++;
		b = a;
		while (b < eol && *b != ' ')
			b++;
		r->kind = FT_SWITCH;
		r->pid = ft_pid_of(a, (size_t)(b - a));
		return r->pid >= 0 || (b - a >= 2 && !strncmp(b - 2, "-0", 2)) ? 1 : 0;
	}
	bar = memchr(p, '|', (size_t)(eol - p));
	if (!bar)
		return 0;
	/* optional proc column: "comm-pid |" before the duration column */
	{
		const char *s = p, *e = bar;

		while (s < e && *s == ' ')
			s++;
		while (e > s && e[-1] == ' ')
			e--;
		if (e > s && !memchr(s, ' ', (size_t)(e - s)) && ft_pid_of(s, (size_t)(e - s)) >= 0 &&
		    !strstr(s, "us")) {
			const char *bar2 = memchr(bar + 1, '|', (size_t)(eol - bar - 1));

			if (bar2) {
				r->pid = ft_pid_of(s, (size_t)(e - s));
				p = bar + 1;
				bar = bar2;
			}
		}
	}
	if (memchr(p, '=', (size_t)(bar - p)) || memchr(p, '<', (size_t)(bar - p)))
		return 0;	/* ==========> irq arrows */
	/* duration column: [mark] N.NNN us */
	q = p;
	while (q < bar && *q == ' ')
		q++;
	if (q < bar && strchr("+!#*@$", *q)) {
		r->mark = *q;
		q++;
	}
	r->has_dur = ft_parse_dur(q, bar, &r->dur, &r->dur_unit);
	fn = bar + 1;
	if (fn + 2 > eol)
		return 0;
	fn += 2;	/* "|  " */
	q = fn;
	while (q < eol && *q == ' ')
		q++;
	r->indent = (int)(q - fn) / 2;
	if (q >= eol)
		return 0;
	if (*q == '}') {
		const char *c = strstr(q, "/*");

		r->kind = FT_EXIT;
		if (c && c < eol) {
			c += 2;
			while (*c == ' ')
				c++;
			const char *e = c;

			while (e < eol && *e != ' ' && *e != '*')
				e++;
			snprintf(r->func, sizeof(r->func), "%.*s", (int)(e - c), c);
		}
		return 1;
	}
	if (*q == '/')
		return 0;	/* comment: events, lost marks, ... */
	{
		const char *e = q;

		while (e < eol && *e != '(' && *e != ' ')
			e++;
		if (e >= eol || *e != '(')
			return 0;
		snprintf(r->func, sizeof(r->func), "%.*s", (int)(e - q), q);
		if (strstr(e, "() {") == e)
			r->kind = FT_ENTRY;
		else if (strstr(e, "();") == e)
			r->kind = FT_LEAF;
		else
			return 0;
	}
	return 1;
}

#endif
