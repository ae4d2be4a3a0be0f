// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Stack records -> the store's stack table (see decode_stack.h).
 */
#include <string.h>

#include <traceevent/event-parse.h>

#include "decode_stack.h"

bool dstack_fmt_init(struct tep_event *ev, int long_size, struct dstack_fmt *f)
{
	struct tep_format_field *n, *c;
	bool user;

	if (!ev || !ev->system || strcmp(ev->system, "ftrace"))
		return false;
	if (!strcmp(ev->name, "kernel_stack"))
		user = false;
	else if (!strcmp(ev->name, "user_stack"))
		user = true;
	else
		return false;
	n = tep_find_field(ev, user ? "tgid" : "size");
	c = tep_find_field(ev, "caller");
	if (!n || !c || n->size != 4 || (long_size != 4 && long_size != 8))
		return false;
	memset(f, 0, sizeof(*f));
	f->off_n = n->offset;
	f->off_caller = c->offset;
	f->lsize = long_size;
	f->part = user ? DSTK_USER : DSTK_KERN;
	f->ncaller = user ? c->size / long_size : 0;
	return true;
}

/* The addresses of the record into @out, leaf first. Return: how many. */
static unsigned int dstack_read(const struct dstack_fmt *f, const uint8_t *p, int size,
				uint64_t *out, uint32_t *tgid)
{
	unsigned int n, max;
	int32_t v;

	if (size < f->off_caller)
		return 0;
	max = (size - f->off_caller) / f->lsize;
	memcpy(&v, p + f->off_n, 4);
	if (f->part == DSTK_USER) {
		*tgid = (uint32_t)v;
		n = f->ncaller;
	} else {
		*tgid = 0;
		n = v > 0 ? (unsigned int)v : 0;
	}
	if (n > max)
		n = max;
	if (n > STACK_MAX_FRAMES)
		n = STACK_MAX_FRAMES;
	for (unsigned int i = 0; i < n; i++) {
		uint64_t a;

		if (f->lsize == 8) {
			memcpy(&a, p + f->off_caller + 8 * i, 8);
			if (a == UINT64_MAX)
				return i;
		} else {
			uint32_t a32;

			memcpy(&a32, p + f->off_caller + 4 * i, 4);
			if (a32 == UINT32_MAX)
				return i;
			a = a32;
		}
		/* a user stack ends at its first 0: the rest of the array is unused */
		if (!a && f->part == DSTK_USER)
			return i;
		out[i] = a;
	}
	return n;
}

uint32_t dstack_combine(struct dstack *ds, struct stacks *sk, const struct dstack_fmt *f,
			const void *data, int size, uint32_t old, bool *dup)
{
	struct stack_info si = { 0 };
	unsigned int n;
	uint32_t tgid;

	*dup = false;
	n = dstack_read(f, data, size, ds->buf, &tgid);
	if (!n)
		return old;
	if (old && stacks_get(sk, old, &si))
		old = 0;
	if (f->part == DSTK_KERN) {
		if (si.nkern) {
			*dup = true;
			return old;
		}
		return stacks_intern(sk, ds->buf, n, si.frames + si.nkern, si.nuser, si.tgid, 0,
				     &ds->cache);
	}
	if (si.nuser) {
		*dup = true;
		return old;
	}
	return stacks_intern(sk, si.frames, si.nkern, ds->buf, n, tgid, 0, &ds->cache);
}

unsigned int dstack_parts(const struct stacks *sk, uint32_t id)
{
	struct stack_info si;

	if (!id || stacks_get(sk, id, &si))
		return 0;
	return (si.nkern ? DSTK_KERN : 0) | (si.nuser ? DSTK_USER : 0);
}
