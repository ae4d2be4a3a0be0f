/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Stacks in .ktop files and streams (internal to the .ktop writer and reader,
 * ktop_write.c and ktop_read.c).
 *
 * Three block types carry them; a file without stacks has none of them, so
 * it reads in any ktop. Integers are LEB128 varints as in the other blocks
 * (zz: zigzag), addresses 8 bytes little-endian.
 *
 *   STACKS (8)   stacks new since the last one, each once, before any block
 *                that names them:
 *                  uv count, then per stack:
 *                  uv id (the writer's; ids only grow), uv flags (stacks.h),
 *                  uv tgid, uv nkern, uv nuser,
 *                  (nkern + nuser) x u64 frame, leaf first (kernel, then user;
 *                  STACK_F_NAMES: string ids),
 *                  (nkern + nuser) x (uv name, uv module): string ids of a
 *                  STRINGS block sent before, 0 = not named
 *   EVSTK (9)    the stack ids of the events of the EVENTS block that
 *                follows it (the same CPU and count), sent only when one of
 *                them has a stack:
 *                  uv cpu, uv n, n x uv stack id (0: none)
 *   STACKW (10)  a weighted set of stacks that are not events, replacing the
 *                previous one of the same set (a stream sends it when it
 *                changed):
 *                  uv set (0: BPF off-CPU), uv n,
 *                  n x (uv stack id, zz pid, uv count, uv value)
 *
 * A reader interns each stack in its own store's table with its names,
 * maps the ids of EVSTK and STACKW through that, and refuses a block that
 * names a stack or string it was not sent. A version 1 file's ids may differ
 * from the reader's. Version 2 files carry the store's sealed chunks (CHUNKS
 * blocks), whose stack column names stacks by the writer's table ids: the
 * writer sends its whole table in id order, the reader must give every
 * stack the id the file gives it (a file where it cannot is refused), and
 * the chunks go into the store as they are. EVSTK is then only for the
 * events sent as rows (EVENTS blocks).
 */
#ifndef KTOP_FORMAT_KTOP_STACKS_H
#define KTOP_FORMAT_KTOP_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "store/event.h"

struct store;

enum {
	SNAP_BLK_STACKS	= 8,
	SNAP_BLK_EVSTK	= 9,
	SNAP_BLK_STACKW	= 10,
};

/* A payload being built; free p. */
struct snap_payload {
	uint8_t		*p;
	size_t		len, cap;
	int		err;
};

/* ---- writer ---- */

struct snap_stk_w;

struct snap_stk_w *snap_stk_w_new(void);
void snap_stk_w_free(struct snap_stk_w *sw);

/* Name every stack of @st not sent yet (interns strings: before the STRINGS block). */
void snap_stk_w_name(struct snap_stk_w *sw, struct store *st);
/* Return: true when stacks named by snap_stk_w_name() wait to be sent. */
bool snap_stk_w_pending(const struct snap_stk_w *sw);
/* Return: the highest stack id sent so far. */
uint32_t snap_stk_w_sent(const struct snap_stk_w *sw);

/* The STACKS payload of the stacks named and not sent (marks them sent). */
int snap_stk_w_stacks(struct snap_stk_w *sw, struct store *st, struct snap_payload *out);
/*
 * The EVSTK payload for @n events of @cpu; out->len 0 when none has a stack.
 * *@max receives the highest stack id named.
 */
int snap_stk_w_evstk(unsigned int cpu, const struct ktop_event *ev, size_t n,
		     struct snap_payload *out, uint32_t *max);
/* The STACKW payload of the off-CPU set when it changed since the last; len 0 if not. */
int snap_stk_w_weights(struct snap_stk_w *sw, struct store *st, struct snap_payload *out,
		       uint32_t *max);

/* ---- reader ---- */

struct snap_stk_r;

/* @same_ids: version 2, the store's ids must be the file's (see above). */
struct snap_stk_r *snap_stk_r_new(struct store *st, bool same_ids);
void snap_stk_r_free(struct snap_stk_r *sr);

/*
 * Apply one block. @strmap maps the file's string ids (< @nstr) to the
 * store's. Return: 0, or -EBADMSG with a message in @err.
 */
int snap_stk_r_block(struct snap_stk_r *sr, unsigned int type, const uint8_t *p, size_t len,
		     const uint32_t *strmap, uint32_t nstr, char *err, size_t errlen);

/*
 * The store's stack ids for the EVENTS block of @cpu with @n events that
 * follows an EVSTK block, or NULL when none was sent for it. Valid until
 * the next call.
 */
const uint32_t *snap_stk_r_events(struct snap_stk_r *sr, unsigned int cpu, size_t n);

#endif
