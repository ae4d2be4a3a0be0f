// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the filter prompt matches against (see funcfilter.h): the index of
 * available_filter_functions (by line, by name, sorted) and sets of its
 * functions.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/file.h"
#include "funcfilter-local.h"

/* ---- available_filter_functions ------------------------------------------------ */

static int funcs_mod_id(struct funcfilter_funcs *ff, const char *m)
{
	for (size_t i = ff->nmods; i-- > 1;)
		if (!strcmp(ff->mods[i], m))
			return (int)i;
	if (ff->nmods >= UINT16_MAX)
		return 0;
	if (!(ff->nmods & (ff->nmods - 1)) || ff->nmods == 1) {
		const char **p = realloc(ff->mods, sizeof(*p) * (ff->nmods ? ff->nmods * 2 : 2));

		if (!p)
			return -ENOMEM;
		ff->mods = p;
	}
	ff->mods[ff->nmods] = m;
	return (int)ff->nmods++;
}

static int cmp_by_name(const void *a, const void *b, void *arg)
{
	const struct funcfilter_funcs *ff = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(ff->text + ff->name[x], ff->text + ff->name[y]);

	return c ? c : (x > y) - (x < y);
}

struct funcfilter_funcs *funcfilter_funcs_parse(const char *buf, size_t len)
{
	struct funcfilter_funcs *ff = calloc(1, sizeof(*ff));
	size_t nlines = 0, cap, i;
	char *p, *end;

	if (!ff)
		return NULL;
	ff->text = malloc(len + 1);
	if (!ff->text)
		goto out_free;
	memcpy(ff->text, buf, len);
	ff->text[len] = '\0';
	for (i = 0; i < len; i++)
		nlines += buf[i] == '\n';
	cap = nlines + 1;
	ff->name = malloc(cap * sizeof(*ff->name));
	ff->mod = malloc(cap * sizeof(*ff->mod));
	ff->next = malloc(cap * sizeof(*ff->next));
	ff->mods = malloc(2 * sizeof(*ff->mods));
	if (!ff->name || !ff->mod || !ff->next || !ff->mods)
		goto out_free;
	ff->mods[0] = "";
	ff->nmods = 1;
	p = ff->text;
	end = ff->text + len;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *sp;
		int mid = 0;

		if (!nl)
			nl = end;
		*nl = '\0';
		if (nl > p) {
			/* "name [module]"; older kernels may add more after a tab */
			sp = strchr(p, ' ');
			if (sp) {
				*sp = '\0';
				if (sp[1] == '[') {
					char *cb = strchr(sp + 2, ']');

					if (cb)
						*cb = '\0';
					mid = funcs_mod_id(ff, sp + 2);
					if (mid < 0)
						goto out_free;
				}
			}
			ff->name[ff->n] = (uint32_t)(p - ff->text);
			ff->mod[ff->n] = (uint16_t)mid;
			ff->next[ff->n] = UINT32_MAX;
			ff->n++;
		}
		p = nl + 1;
	}
	/* chains of equal names in index order */
	ff->sorted = malloc((ff->n + 1) * sizeof(*ff->sorted));
	if (!ff->sorted)
		goto out_free;
	for (i = ff->n; i-- > 0;) {
		uint64_t *first;
		bool added;

		first = strmap_put(&ff->first, ff->text + ff->name[i], &added);
		if (!first)
			goto out_free;
		if (!added)
			ff->next[i] = (uint32_t)*first;
		*first = i;
	}
	for (i = 0; i < ff->n; i++)
		ff->sorted[i] = (uint32_t)i;
	qsort_r(ff->sorted, ff->n, sizeof(*ff->sorted), cmp_by_name, ff);
	return ff;

out_free:
	funcfilter_funcs_free(ff);
	return NULL;
}

int funcfilter_funcs_load(struct funcfilter_funcs **out, const char *path)
{
	size_t len;
	char *buf;
	int ret;

	*out = NULL;
	ret = file_read_gz(path, FILE_NO_MAX, &buf, &len);
	if (ret)
		return ret;
	*out = funcfilter_funcs_parse(buf, len);
	free(buf);
	return *out ? 0 : -ENOMEM;
}

void funcfilter_funcs_free(struct funcfilter_funcs *ff)
{
	if (!ff)
		return;
	free(ff->text);
	free(ff->name);
	free(ff->mod);
	free(ff->next);
	free(ff->sorted);
	strmap_destroy(&ff->first);
	free(ff->mods);
	free(ff);
}

size_t funcfilter_funcs_count(const struct funcfilter_funcs *ff)
{
	return ff ? ff->n : 0;
}

const char *funcfilter_funcs_name(const struct funcfilter_funcs *ff, size_t i)
{
	return ff && i < ff->n ? ff->text + ff->name[i] : "";
}

const char *funcfilter_funcs_module(const struct funcfilter_funcs *ff, size_t i)
{
	return ff && i < ff->n ? ff->mods[ff->mod[i]] : "";
}

bool funcfilter_funcs_has_module(const struct funcfilter_funcs *ff, const char *module)
{
	for (size_t i = 1; ff && i < ff->nmods; i++)
		if (!strcmp(ff->mods[i], module))
			return true;
	return false;
}

size_t funcfilter_funcs_first_named(const struct funcfilter_funcs *ff, const char *name, size_t len)
{
	const uint64_t *first = ff ? strmap_get(&ff->first, name, len) : NULL;

	return first ? (size_t)*first : SIZE_MAX;
}

static bool funcs_mod_is(const struct funcfilter_funcs *ff, size_t i, const char *mod, size_t mlen)
{
	const char *m = ff->mods[ff->mod[i]];

	return !strncmp(m, mod, mlen) && !m[mlen];
}

size_t funcfilter_funcs_find_line(const struct funcfilter_funcs *ff, const char *line, size_t len,
				  size_t *first)
{
	const char *sp = memchr(line, ' ', len), *mod = "";
	size_t nlen = sp ? (size_t)(sp - line) : len, mlen = 0, n = 0, i;

	*first = SIZE_MAX;
	if (sp && sp + 2 < line + len && sp[1] == '[' && line[len - 1] == ']') {
		mod = sp + 2;
		mlen = (size_t)(line + len - 1 - mod);
	}
	for (i = funcfilter_funcs_first_named(ff, line, nlen); i != SIZE_MAX;
	     i = ff->next[i] == UINT32_MAX ? SIZE_MAX : ff->next[i]) {
		if (!funcs_mod_is(ff, i, mod, mlen))
			continue;
		if (!n++)
			*first = i;
	}
	return n;
}

size_t funcfilter_funcs_next_same(const struct funcfilter_funcs *ff, size_t i)
{
	uint16_t m;

	if (!ff || i >= ff->n)
		return SIZE_MAX;
	m = ff->mod[i];
	for (uint32_t j = ff->next[i]; j != UINT32_MAX; j = ff->next[j])
		if (ff->mod[j] == m)
			return j;
	return SIZE_MAX;
}

/* ---- sets ------------------------------------------------------------------------ */

int funcfilter_set_init(struct funcfilter_set *s, size_t nbits)
{
	s->nbits = nbits;
	s->bits = calloc(nbits / 64 + 1, sizeof(*s->bits));
	return s->bits ? 0 : -ENOMEM;
}

void funcfilter_set_destroy(struct funcfilter_set *s)
{
	if (!s)
		return;
	free(s->bits);
	s->bits = NULL;
	s->nbits = 0;
}

size_t funcfilter_set_count(const struct funcfilter_set *s)
{
	size_t n = 0;

	if (!s->bits)
		return 0;
	for (size_t w = 0; w < s->nbits / 64 + 1; w++)
		n += (size_t)__builtin_popcountll(s->bits[w]);
	return n;
}

size_t funcfilter_set_next(const struct funcfilter_set *s, size_t from)
{
	size_t w = from / 64;
	uint64_t m;

	if (from >= s->nbits)
		return SIZE_MAX;
	m = s->bits[w] & (~0ull << (from % 64));
	for (;;) {
		if (m) {
			size_t i = w * 64 + (size_t)__builtin_ctzll(m);

			return i < s->nbits ? i : SIZE_MAX;
		}
		if (++w > s->nbits / 64)
			return SIZE_MAX;
		m = s->bits[w];
	}
}
