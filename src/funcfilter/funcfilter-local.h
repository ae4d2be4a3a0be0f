/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The filter prompt's private types (funcfilter.c: the language;
 * funcfilter_funcs.c: the index of available_filter_functions and function
 * sets). Nothing else includes this.
 */
#ifndef KTOP_FUNCFILTER_LOCAL_H
#define KTOP_FUNCFILTER_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include "funcfilter.h"
#include "lib/hashmap.h"

struct funcfilter_funcs {
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
size_t funcfilter_funcs_first_named(const struct funcfilter_funcs *ff, const char *name,
				    size_t len);

#endif
