/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The filter prompt's private types (src/funcfilter/filter.c: the language;
 * src/funcfilter/filter_funcs.c: the index of available_filter_functions, function
 * sets, globs). Nothing else includes this.
 */
#ifndef KTOP_FILTER_LOCAL_H
#define KTOP_FILTER_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include "filter.h"
#include "lib/hashmap.h"

struct filter_funcs {
	char		*text;		/* the lines, NUL-split into name and module */
	uint32_t	*name;		/* offset of each name in text */
	uint16_t	*mod;		/* index into mods, 0: kernel image ("") */
	uint32_t	*next;		/* next index with the same name, UINT32_MAX: none */
	uint32_t	*sorted;	/* indexes sorted by name */
	struct strmap	first;		/* name -> its first index */
	size_t		n;
	const char	**mods;
	size_t		nmods;
};

/* Return: the first index named @len bytes of @name, or SIZE_MAX (next: ff->next). */
size_t filter_funcs_first_named(const struct filter_funcs *ff, const char *name, size_t len);

#endif
