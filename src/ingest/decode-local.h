/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The decoder's private types (src/ingest/decode.c, src/ingest/decode_stack.c): how each
 * event type is loaded, the shared context, a per-CPU decoder and the
 * window of the store a page is decoded into. Nothing else includes this.
 */
#ifndef KTOP_DECODE_LOCAL_H
#define KTOP_DECODE_LOCAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "decode.h"
#include "decode_stack.h"
#include "store/schema.h"
#include "store/store.h"

struct tep_handle;
struct tep_event;
struct kbuffer;
struct intern;
struct symbols;

/* How one argument slot is loaded. */
enum dop {
	DOP_ZERO,	/* field absent in this kernel's format */
	DOP_U8, DOP_U16, DOP_U32, DOP_U64,
	DOP_S8, DOP_S16, DOP_S32, DOP_S64,
	DOP_STR,	/* char[N]: interned, up to the first NUL */
	DOP_STR_TAIL,	/* char[] at the end of the record */
	DOP_DLOC,	/* __data_loc char[]: interned */
	DOP_RLOC,	/* __rel_loc char[]: interned */
	DOP_HEX,	/* fixed array: interned hex string */
	DOP_DLOC_HEX,	/* __data_loc/__rel_loc non-char array: interned hex string */
	DOP_SYM,	/* kernel address: interned symbol name */
	DOP_SYM_OFF,	/* one the format prints with %pS/%pB: "name+0xoff" inside a function */
};

/* What to do after the loads. */
enum dpost {
	DPOST_NONE,
	DPOST_SWITCH,		/* comm of prev and next */
	DPOST_COMM_PID,		/* args 0 (comm), 1 (pid): wakeup, exit, thread_noise */
	DPOST_EXEC,		/* comm = basename(filename) */
	DPOST_REPEATS,		/* delta ts = top << 32 | bottom */
	DPOST_COMM_SLOTS,	/* generic event naming a task: args aux_comm, aux_pid */
	DPOST_STACK,		/* not an event: the stack of the one before (decode_stack.h) */
};

#define DECODE_STACK_REC	1	/* decode_one(): a stack record, no row */

struct dslot {
	uint16_t	off;
	uint16_t	size;
	uint8_t		op;
	uint8_t		rel;	/* DOP_DLOC_HEX: the location is relative */
	/* integers, for the path without a switch (dtype.ints): */
	uint8_t		sh;	/* 64 - bits: an 8-byte load shifted left and back */
	uint8_t		sgn;	/* 1: shift back arithmetically */
};

struct dtype {
	_Atomic uint16_t	type;	/* ktop type id; 0 until registered (dynamic) */
	uint8_t			nargs;
	uint8_t			post;
	uint16_t		min_size;
	uint16_t		aux_off;	/* DPOST_REPEATS: bottom_delta_ts */
	uint8_t			aux_comm;	/* DPOST_COMM_SLOTS: slot of the comm */
	uint8_t			aux_pid;	/* its pid slot, or AUX_COMMON_PID */
	bool			ints;		/* every slot an integer field */
	bool			copy;		/* ints, all 8 bytes and back to back, at most 8 */
	uint16_t		load_end;	/* ints: bytes the 8-byte loads read */
	uint16_t		copy_end;	/* copy: bytes the one 64-byte copy reads */
	/* stacks: DSTK_* parts seen following this event / asked for it */
	_Atomic uint8_t		stacked;
	uint8_t			want;
	struct dstack_fmt	*stk;		/* a stack record (DPOST_STACK) */
	struct dslot		slot[KTOP_MAX_ARGS];
	/* for dynamic registration */
	struct tep_event	*event;
	uint8_t			nfields;
	struct ktop_field	fields[KTOP_MAX_ARGS];
};

struct decode_ctx {
	struct tep_handle	*tep;
	struct store		*st;
	struct intern		*strs;
	struct schema		*schema;
	struct symbols		*syms;
	struct dtype		**by_id;
	unsigned int		nids;
	int			long_size;	/* KBUFFER_LSIZE_* */
	bool			old_format;
	bool			fast_walk;	/* 64-bit little-endian pages: decoder_walk() */
	bool			lazy_count;	/* common_preempt_lazy_count exists */
	bool			std_common;	/* type u16 @0, flags u8 @2, pc u8 @3, pid s32 @4 */
	bool			stack_filter;	/* keep only the stack parts dtype.want asks */
	struct dslot		c_type, c_flags, c_pc, c_pid;
	uint16_t		common_min;
	/*
	 * The flag categories (enum decode_flag) of common_flags and of
	 * common_preempt_count values, one FLAG_BITS-bit counter per category:
	 * a sum of these counts every category of many events at once.
	 */
	uint64_t		fcat[256], pcat[256];
};

#define FLAG_BITS	9
#define FLAG_MAX	((1u << FLAG_BITS) - 1)	/* events per sum of fcat/pcat */

#define STR_CACHE	1024	/* entries, power of two */
#define STR_KEY		32	/* strings up to this long are cached */
#define SYM_CACHE	4096

struct str_entry {
	uint64_t	key[STR_KEY / 8];
	uint32_t	len;
	uint32_t	id;
};

struct sym_entry {
	uint64_t	addr;
	uint32_t	id;
	uint32_t	valid;		/* 0 empty, 1 the name, 2 the name with its offset */
};

struct decoder {
	struct decode_ctx	*dc;
	struct kbuffer		*kb;
	struct dstack		*stk;		/* NULL until the first stack record */
	unsigned int		cpu;
	struct str_entry	str[STR_CACHE];
	struct sym_entry	sym[SYM_CACHE];
};

/*
 * Where a page's events go: a window of the open chunk of the decoder's
 * store stream (store_reserve), rows decoded straight into it and committed
 * when the window is full or the page done. No batch to copy, and the
 * reorder clamp and the flag counts ride along. Passed by value to the
 * helpers off the hot path, so the walk keeps it in registers.
 */
struct dwin {
	struct store_wbuf	w;
	uint32_t		n;		/* rows decoded (valid) */
	uint32_t		a;		/* next argument slot */
	uint32_t		nmax;		/* rows that fit, at most FLAG_MAX */
	uint32_t		amax;		/* last argument slot an event may start at */
	uint64_t		last;		/* ts of the last row (clamped) */
	uint64_t		reordered;
	uint64_t		fl;		/* flag categories, FLAG_BITS each */
	uint32_t		unrec;		/* rows whose context was not recorded */
	uint64_t		appended;	/* rows committed from this page */
	struct dtype		*lt;		/* the type of the last row */
};


static inline uint64_t load_slot(const uint8_t *p, uint8_t op)
{
	union {
		uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
		int8_t s8; int16_t s16; int32_t s32; int64_t s64;
	} v;

	switch (op) {
	case DOP_U8:
		return *p;
	case DOP_S8:
		return (uint64_t)(int64_t)(int8_t)*p;
	case DOP_U16:
		memcpy(&v.u16, p, 2);
		return v.u16;
	case DOP_S16:
		memcpy(&v.s16, p, 2);
		return (uint64_t)(int64_t)v.s16;
	case DOP_U32:
		memcpy(&v.u32, p, 4);
		return v.u32;
	case DOP_S32:
		memcpy(&v.s32, p, 4);
		return (uint64_t)(int64_t)v.s32;
	case DOP_U64:
	case DOP_S64:
		memcpy(&v.u64, p, 8);
		return v.u64;
	default:
		return 0;
	}
}

/* decode.c: the window's rows into the store; a new window for an event at @ts. */
struct dwin decoder_commit(struct decoder *d, struct dwin w, struct decode_stats *stats);
struct dwin decoder_refill(struct decoder *d, struct dwin w, uint64_t ts,
			   struct decode_stats *stats);

/* decode_stack.c: stack records, and the event held back for its stack */
int dtype_stack(struct decode_ctx *dc, struct dtype *t);
struct dtype *decoder_stack_type(struct decoder *d, const void *data, int size);
void decoder_stack(struct decoder *d, struct dwin *w, struct dtype *t, const void *data,
		   int size, struct decode_stats *stats);
struct dwin decoder_hold(struct decoder *d, struct dwin w);
struct dwin decoder_unhold(struct decoder *d, struct dwin w, struct decode_stats *stats);
int decoder_record_stack(struct decoder *d, struct dtype *t, const void *data, int size,
			 uint64_t ts, struct ktop_event *out);

#endif
