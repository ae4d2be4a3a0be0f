/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The decoder's side of stack traces (internal to src/ingest/decode.c).
 *
 * The kernel writes a stack as its own record right after the event it
 * belongs to, on the same CPU: ftrace:kernel_stack (the stacktrace trigger
 * or options/stacktrace) and ftrace:user_stack (options/userstacktrace,
 * written before the trigger's kernel stack). A stack record therefore
 * belongs to the last event before it on its CPU, which is how the kernel's
 * own text output reads too. The decoder never stores a stack record as an
 * event: it interns the addresses in the store's stack table
 * (src/store/stacks.h) and puts the id on that event's row, combining the kernel
 * and the user part when both come.
 *
 * kernel_stack: "int size; unsigned long caller[8]" in the format file, but
 * the record holds @size callers (the array is as long as the stack);
 * user_stack: "unsigned int tgid; unsigned long caller[8]", 8 callers at
 * most, ended by a 0. Offsets come from the format; a ULONG_MAX entry ends a
 * stack (older kernels), as it ends the kernel's own printing.
 */
#ifndef KTOP_DECODE_STACK_H
#define KTOP_DECODE_STACK_H

#include <stdbool.h>
#include <stdint.h>
#include "store/stacks.h"
#include "store/store.h"

struct tep_event;

/* Which parts of a stack: bits of dtype stacked/want, and of a record. */
enum {
	DSTK_KERN	= 1,
	DSTK_USER	= 2,
};

/* How to read one kind of stack record. */
struct dstack_fmt {
	uint16_t	off_n;		/* kernel: int size; user: unsigned int tgid */
	uint16_t	off_caller;
	uint16_t	ncaller;	/* user: the fixed array's length; kernel: 0 */
	uint8_t		part;		/* DSTK_KERN or DSTK_USER */
	uint8_t		lsize;		/* 8 or 4 */
};

/* A decoder's stack state, allocated at its first stack record. */
struct dstack {
	struct stacks_cache	cache;
	/* the last row of a page, held back until the next page (its stack may be there) */
	bool			held;
	const void		*ht;		/* its dtype */
	struct store_brow	hrow;
	uint64_t		hargs[KTOP_MAX_ARGS];
	uint32_t		rec_stack;	/* decoder_record(): the last event's stack */
	/*
	 * the row the last stack records of this page went to, and their parts,
	 * an empty one included (a kernel thread's user stack): it waits for no more
	 */
	const struct store_brow	*grow;
	unsigned int		got;
	uint64_t		buf[STACK_MAX_FRAMES + 1];
};

/* Return: true and @f filled when @ev is ftrace:kernel_stack or ftrace:user_stack. */
bool dstack_fmt_init(struct tep_event *ev, int long_size, struct dstack_fmt *f);

/**
 * dstack_combine - the stack of an event whose stack was @old, after the
 * stack record @data
 * @dup: set when the event already had that part (the record is not used)
 * Return: the new stack id (@old when nothing changes; 0 when the record
 * holds no frame or the table is full).
 */
uint32_t dstack_combine(struct dstack *ds, struct stacks *sk, const struct dstack_fmt *f,
			const void *data, int size, uint32_t old, bool *dup);

/* Return: the DSTK_* parts stack @id has (0 for no stack). */
unsigned int dstack_parts(const struct stacks *sk, uint32_t id);

#endif
