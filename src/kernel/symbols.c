// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel symbols from kallsyms text (see symbols.h): one array sorted by
 * address (aliases at one address in order of preference), one block of
 * names, searched by bisection; with SYMBOLS_BY_NAME, a string map from
 * name to the lowest-addressed symbol of that name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/file.h"
#include "lib/hashmap.h"
#include "lib/strutil.h"
#include "symbols.h"

struct sym {
	uint64_t	addr;
	uint32_t	name;		/* offset into names */
	uint8_t		rank;		/* lower wins among aliases at one address */
};

struct symbols {
	struct sym	*syms;
	size_t		nsyms;
	char		*names;
	size_t		names_len;
	struct strmap	by_name;	/* name -> index in syms (SYMBOLS_BY_NAME) */
};

bool symbols_parse_line(const char *line, size_t len, struct symbols_line *out)
{
	size_t i = 0, name, end;
	uint64_t addr = 0;
	int d;

	for (; i < len && (d = hex_digit(line[i])) >= 0; i++) {
		if (i == 16)
			return false;	/* wider than 64 bits */
		addr = addr << 4 | (uint64_t)d;
	}
	if (!i || i + 3 > len || line[i] != ' ' || line[i + 1] == ' ' || line[i + 2] != ' ')
		return false;
	name = i + 3;
	for (end = name; end < len && line[end] != ' ' && line[end] != '\t'; end++)
		;
	if (end == name)
		return false;
	out->addr = addr;
	out->type = line[i + 1];
	out->name = line + name;
	out->name_len = end - name;
	out->module = "";
	out->module_len = 0;
	if (end + 2 < len && line[end] == '\t' && line[end + 1] == '[' && line[len - 1] == ']') {
		out->module = line + end + 2;
		out->module_len = len - 1 - (end + 2);
	}
	return true;
}

/*
 * Among aliases at one address prefer global text, then local text, then the
 * rest; the padding/CFI stubs the compiler adds before each function last.
 */
static uint8_t sym_rank(char type, const char *name)
{
	if (!strncmp(name, "__pfx_", 6) || !strncmp(name, "__cfi_", 6))
		return 9;
	switch (type) {
	case 'T':
		return 0;
	case 't':
		return 1;
	case 'W':
	case 'w':
		return 2;
	default:
		return 5;
	}
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/* Index names, each to its lowest-addressed symbol. Return: 0 or -ENOMEM. */
static int symbols_index_names(struct symbols *s)
{
	for (size_t i = 0; i < s->nsyms; i++) {
		bool added;
		uint64_t *v = strmap_put(&s->by_name, s->names + s->syms[i].name, &added);

		if (!v)
			return -ENOMEM;
		if (added)
			*v = i;
	}
	return 0;
}

/* Lines at most: the arrays are sized once, from the text. */
static size_t count_lines(const char *text, size_t len)
{
	size_t n = 1;

	for (const char *p = text; (p = memchr(p, '\n', len - (size_t)(p - text))); p++)
		n++;
	return n;
}

struct symbols *symbols_parse(const char *text, size_t len, unsigned int flags)
{
	const char *p, *nl, *end = text + len;
	size_t nonzero = 0;
	struct symbols_line l;
	struct symbols *s;
	int err = ENOMEM;

	s = calloc(1, sizeof(*s));
	if (!s)
		goto out_err;
	s->syms = malloc(count_lines(text, len) * sizeof(*s->syms));
	s->names = malloc(len + 1);	/* names are shorter than their lines */
	if (!s->syms || !s->names)
		goto out_free;
	for (p = text; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (!symbols_parse_line(p, (size_t)(nl - p), &l) || strchr("aAuU", l.type))
			continue;
		if (l.addr)
			nonzero++;
		memcpy(s->names + s->names_len, l.name, l.name_len);
		s->names[s->names_len + l.name_len] = '\0';
		s->syms[s->nsyms++] = (struct sym){
			.addr = l.addr,
			.name = (uint32_t)s->names_len,
			.rank = sym_rank(l.type, s->names + s->names_len),
		};
		s->names_len += l.name_len + 1;
	}
	if (!nonzero) {
		err = s->nsyms ? EACCES : ENOENT;
		goto out_free;
	}
	qsort(s->syms, s->nsyms, sizeof(*s->syms), sym_cmp);
	if ((flags & SYMBOLS_BY_NAME) && symbols_index_names(s))
		goto out_free;
	return s;

out_free:
	symbols_free(s);
out_err:
	errno = err;
	return NULL;
}

struct symbols *symbols_load(const char *kallsyms_path)
{
	struct symbols *s;
	size_t len;
	char *text;
	int ret;

	ret = file_read(kallsyms_path, FILE_NO_MAX, &text, &len);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	s = symbols_parse(text, len, 0);
	ret = errno;
	free(text);
	errno = ret;
	return s;
}

int symbols_scan(const char *path, symbols_scan_fn fn, void *arg)
{
	FILE *fp = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int ret = 0;

	if (!fp)
		return -errno;
	while (!ret && (n = getline(&line, &cap, fp)) > 0) {
		struct symbols_line sl;

		if (symbols_parse_line(line, strcspn(line, "\n"), &sl))
			ret = fn(&sl, line, (size_t)n, arg);
	}
	free(line);
	fclose(fp);
	return ret;
}

void symbols_free(struct symbols *s)
{
	if (!s)
		return;
	strmap_destroy(&s->by_name);
	free(s->syms);
	free(s->names);
	free(s);
}

size_t symbols_count(const struct symbols *s)
{
	return s ? s->nsyms : 0;
}

/*
 * The last symbol has no successor to bound it: accept addresses up to this
 * far past its start, which covers any single function.
 */
#define SYMBOLS_LAST_SPAN	(1u << 20)

const char *symbols_lookup(const struct symbols *s, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi;

	if (!s || !s->nsyms || addr < s->syms[0].addr)
		return NULL;
	hi = s->nsyms;
	/* invariant: syms[lo].addr <= addr, and syms[hi].addr > addr (or hi == n) */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (hi == s->nsyms && addr - s->syms[lo].addr >= SYMBOLS_LAST_SPAN)
		return NULL;
	/* the preferred alias comes first at its address */
	while (lo && s->syms[lo - 1].addr == s->syms[lo].addr)
		lo--;
	if (off)
		*off = addr - s->syms[lo].addr;
	return s->names + s->syms[lo].name;
}

static uint64_t addr_of(const struct symbols *s, const char *name, size_t len)
{
	uint64_t *v;

	if (s && s->by_name.n) {
		v = strmap_get(&s->by_name, name, len);
		if (v)
			return s->syms[*v].addr;
	} else if (s) {
		for (size_t i = 0; i < s->nsyms; i++)
			if (!strncmp(s->names + s->syms[i].name, name, len) &&
			    !s->names[s->syms[i].name + len])
				return s->syms[i].addr;
	}
	return 0;
}

uint64_t symbols_addr(const struct symbols *s, const char *name)
{
	const char *plus = strstr(name, "+0x");
	uint64_t a = addr_of(s, name, strlen(name));

	if (a)
		return a;
	if (plus && plus > name) {
		/* "name+0xoff": an address inside a function (%pS) */
		a = addr_of(s, name, (size_t)(plus - name));
		return a ? a + strtoull(plus + 3, NULL, 16) : 0;
	}
	if (name[0] == '0' && name[1] == 'x')
		return strtoull(name, NULL, 16);
	return 0;
}
