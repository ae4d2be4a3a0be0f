// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The resolver of a store's stack frames (stacksym.h).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/intern.h"
#include "store/stacks.h"
#include "stacksym.h"
#include "store/store.h"
#include "symbols.h"
#include "usyms.h"

struct stack_syms {
	struct store		*st;
	struct intern		*in;
	const struct symbols	*ksyms;
	struct usyms		*usyms;		/* NULL offline */
};

static uint32_t sy_name(void *ctx, const struct stack_info *s, unsigned int i, uint32_t *module)
{
	struct stack_syms *sy = ctx;
	char name[512], mod[256];
	const char *k;
	uint64_t addr = s->frames[i];

	*module = 0;
	if (i < s->nkern) {
		k = symbols_lookup(sy->ksyms, addr, NULL);
		return k ? intern_id(sy->in, k, strlen(k)) : 0;
	}
	if (!sy->usyms)
		return 0;
	if (i > s->nkern && addr)
		addr--;		/* a return address: the call is the byte before */
	if (usyms_lookup(sy->usyms, s->tgid, addr, name, sizeof(name), mod, sizeof(mod)))
		return 0;
	if (mod[0])
		*module = intern_id(sy->in, mod, strlen(mod));
	return name[0] ? intern_id(sy->in, name, strlen(name)) : 0;
}

static void sy_new(void *ctx, const struct stack_info *s)
{
	struct stack_syms *sy = ctx;

	if (sy->usyms && s->tgid)
		usyms_capture(sy->usyms, s->tgid);
}

struct stack_syms *stack_syms_new(struct store *st, const struct symbols *ksyms, bool live)
{
	struct stack_syms *sy = calloc(1, sizeof(*sy));

	if (!sy)
		return NULL;
	sy->st = st;
	sy->in = store_strings(st);
	sy->ksyms = ksyms;
	if (live) {
		sy->usyms = usyms_new("");
		if (!sy->usyms) {
			free(sy);
			return NULL;
		}
	}
	stacks_set_resolver(store_stacks(st), sy_name, sy_new, sy);
	return sy;
}

void stack_syms_free(struct stack_syms *sy)
{
	if (!sy)
		return;
	stacks_set_resolver(store_stacks(sy->st), NULL, NULL, NULL);
	usyms_free(sy->usyms);
	free(sy);
}
