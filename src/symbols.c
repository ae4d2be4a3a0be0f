// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel symbols from /proc/kallsyms (or a recorded copy): one sorted array
 * of start addresses and one block of names, searched by bisection.
 *
 * A symbol's end is the next symbol's start, so an address between two
 * symbols resolves to the lower one, as the kernel's %pS does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
};

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

static int symbols_add(struct symbols *s, size_t *cap, size_t *ncap, uint64_t addr,
		       char type, const char *name, size_t len)
{
	if (s->nsyms == *cap) {
		size_t n = *cap ? *cap * 2 : 4096;
		struct sym *p = realloc(s->syms, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->syms = p;
		*cap = n;
	}
	if (s->names_len + len + 1 > *ncap) {
		size_t n = *ncap ? *ncap * 2 : 65536;
		char *p;

		while (n < s->names_len + len + 1)
			n *= 2;
		p = realloc(s->names, n);
		if (!p)
			return -ENOMEM;
		s->names = p;
		*ncap = n;
	}
	memcpy(s->names + s->names_len, name, len);
	s->names[s->names_len + len] = '\0';
	s->syms[s->nsyms].addr = addr;
	s->syms[s->nsyms].name = (uint32_t)s->names_len;
	s->syms[s->nsyms].rank = sym_rank(type, s->names + s->names_len);
	s->nsyms++;
	s->names_len += len + 1;
	return 0;
}

/**
 * symbols_load - read a kallsyms file
 * @kallsyms_path: /proc/kallsyms, or a recorded copy (same text format)
 *
 * Absolute ('a'/'A') and undefined symbols are skipped; module names
 * ("\t[mod]") are dropped from the symbol names.
 *
 * Return: the table (free with symbols_free), or NULL with errno set: EACCES
 * when every address reads as zero (kallsyms as seen by an unprivileged user,
 * kptr_restrict), ENOENT or another open() error, ENOMEM.
 * Context: setup; the table is read-only afterwards.
 */
struct symbols *symbols_load(const char *kallsyms_path)
{
	size_t cap = 0, ncap = 0, nonzero = 0, out;
	struct symbols *s;
	char *line = NULL;
	size_t linecap = 0;
	int err = 0;
	FILE *f;

	f = fopen(kallsyms_path, "re");
	if (!f)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		err = ENOMEM;
		goto out_close;
	}
	while (getline(&line, &linecap, f) > 0) {
		unsigned long long addr;
		char type, *name, *end;

		addr = strtoull(line, &end, 16);
		if (end == line || *end != ' ')
			continue;
		type = end[1];
		if (!type || end[2] != ' ')
			continue;
		if (type == 'a' || type == 'A' || type == 'U' || type == 'u')
			continue;
		name = end + 3;
		end = name + strcspn(name, " \t\n");
		if (end == name)
			continue;
		if (addr)
			nonzero++;
		if (symbols_add(s, &cap, &ncap, addr, type, name, end - name)) {
			err = ENOMEM;
			goto out_free;
		}
	}
	if (!nonzero) {
		err = s->nsyms ? EACCES : ENOENT;
		goto out_free;
	}
	qsort(s->syms, s->nsyms, sizeof(*s->syms), sym_cmp);
	/* keep the best-ranked alias of each address */
	out = 0;
	for (size_t i = 0; i < s->nsyms; i++) {
		if (out && s->syms[out - 1].addr == s->syms[i].addr)
			continue;
		s->syms[out++] = s->syms[i];
	}
	s->nsyms = out;
	free(line);
	fclose(f);
	return s;

out_free:
	symbols_free(s);
	s = NULL;
out_close:
	free(line);
	fclose(f);
	errno = err;
	return NULL;
}

void symbols_free(struct symbols *s)
{
	if (!s)
		return;
	free(s->syms);
	free(s->names);
	free(s);
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
	if (lo == s->nsyms - 1 && addr - s->syms[lo].addr >= SYMBOLS_LAST_SPAN)
		return NULL;
	if (off)
		*off = addr - s->syms[lo].addr;
	return s->names + s->syms[lo].name;
}
