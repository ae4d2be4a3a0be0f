/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The table of distinct stacks of a store.
 *
 * An event with a stack carries a 32-bit stack id (struct ktop_event.stack,
 * a column of the store's chunks); the frames live here, once per distinct
 * stack, so a million events with 2,000 distinct stacks cost the store one
 * small varint each. Id 0 means "no stack". Ids count from 1, densely, and
 * are never reused: a table only grows (up to its byte limit; past it new
 * stacks are counted as dropped and their events get no stack).
 *
 * A stack is a call chain, leaf first, in two parts: the kernel frames
 * (frames[0..nkern), from the ftrace:kernel_stack record or a BPF stack map)
 * then the user frames of process @tgid (frames[nkern..nkern+nuser), from
 * ftrace:user_stack or a BPF user stack). Root first, the chain reads user
 * root (main) ... user leaf, then kernel entry ... kernel leaf. A stack of
 * kind STACK_F_NAMES holds interned name ids instead of addresses (paths of
 * the function_graph tree, made into stacks so that the same trees and
 * exports serve them).
 *
 * Frames are named lazily, through the resolver the owner sets (kallsyms for
 * kernel addresses, /proc/PID/maps and ELF symbols for user ones: see
 * src/kernel/stacksym.h), and each name is kept, so a frame is resolved once. Names
 * are ids of the store's string table. A snapshot carries the names with
 * the frames, so a stack read back from a file needs no resolver.
 *
 * Threads: interning takes a mutex only for a stack the caller's cache has not
 * seen (struct stacks_cache, one per writer thread); reading an entry by id
 * takes no lock (entries are immutable once published, names are atomics).
 */
#ifndef KTOP_STACKS_H
#define KTOP_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stacks;
struct intern;

#define STACK_NONE		0
#define STACK_MAX_FRAMES	255	/* per part; deeper stacks are cut at the root */
#define STACKS_DEFAULT_BYTES	(64ull << 20)

enum stack_flags {
	STACK_F_NAMES	= 1,	/* frames are string ids (function_graph paths), no addresses */
};

enum stack_frame_kind {
	STACK_FRAME_KERNEL,
	STACK_FRAME_USER,
	STACK_FRAME_NAME,	/* a STACK_F_NAMES stack's frame */
};

/* One stack, as the table holds it. Pointers stay valid until stacks_free(). */
struct stack_info {
	uint32_t	id;
	uint32_t	tgid;		/* process of the user frames; 0 when there are none */
	uint16_t	nkern;		/* kernel frames, leaf first: frames[0..nkern) */
	uint16_t	nuser;		/* user frames, leaf first: frames[nkern..nkern+nuser) */
	uint16_t	flags;		/* enum stack_flags */
	const uint64_t	*frames;
};

/* One frame with its name. */
struct stack_frame {
	uint64_t		addr;		/* the address (0 for STACK_FRAME_NAME) */
	const char		*name;		/* "[unknown]" when it cannot be resolved */
	const char		*module;	/* user: the file's base name; kernel: "" */
	uint32_t		name_id;	/* in the store's string table */
	uint32_t		module_id;
	enum stack_frame_kind	kind;
};

/*
 * The owner's resolver: name frame @i (leaf first) of @s. Return the name's
 * id in the string table (0: cannot be resolved) and set *@module (0: none).
 * Called at most once per frame that has no name yet; from any reader thread.
 */
typedef uint32_t (*stacks_name_fn)(void *ctx, const struct stack_info *s, unsigned int i,
				   uint32_t *module);
/*
 * Called once for each new stack that has user frames, by the thread that
 * interned it (a decoder): the moment to capture /proc/@tgid/maps while the
 * task still lives. Must be quick.
 */
typedef void (*stacks_new_fn)(void *ctx, const struct stack_info *s);

/**
 * stacks_new - an empty table
 * @strings: the string table names are interned in (the store's)
 * @max_bytes: memory for frames and names (0: STACKS_DEFAULT_BYTES)
 * Return: the table (free with stacks_free), or NULL on ENOMEM.
 */
struct stacks *stacks_new(struct intern *strings, size_t max_bytes);
void stacks_free(struct stacks *sk);

/* Set the resolver and the new-stack hook (either may be NULL). Context: setup. */
void stacks_set_resolver(struct stacks *sk, stacks_name_fn name, stacks_new_fn on_new,
			 void *ctx);

/* A writer thread's cache in front of the table's lock; zero it before use. */
struct stacks_cache {
	struct {
		uint64_t	hash;
		uint32_t	id;
	} e[512];
};

/**
 * stacks_intern - the id of a stack, added if new
 * @kern: @nk kernel frames, leaf first (may be NULL when @nk is 0)
 * @user: @nu user frames of process @tgid, leaf first
 * @flags: enum stack_flags
 * @cache: the calling thread's cache, or NULL
 *
 * Frames past STACK_MAX_FRAMES in a part are dropped (the root end).
 * Return: the id (>= 1), or 0 when both parts are empty, the table is full
 * (counted in stacks_stats.dropped) or on ENOMEM.
 * Context: any thread.
 */
uint32_t stacks_intern(struct stacks *sk, const uint64_t *kern, unsigned int nk,
		       const uint64_t *user, unsigned int nu, uint32_t tgid, unsigned int flags,
		       struct stacks_cache *cache);

/* Return: 0 and the stack, or -ENOENT for an unknown id. Context: any thread. */
int stacks_get(const struct stacks *sk, uint32_t id, struct stack_info *out);

/* Return: the highest id handed out (ids are 1..this). Context: any thread. */
uint32_t stacks_count(const struct stacks *sk);

/**
 * stacks_frame - frame @i (leaf first, 0 .. nkern + nuser - 1) of stack @id
 *
 * Resolves the frame's name through the resolver the first time.
 * Return: 0 and the frame, or -ENOENT. Context: any thread.
 */
int stacks_frame(struct stacks *sk, uint32_t id, unsigned int i, struct stack_frame *out);

/**
 * stacks_names - the name ids of the frames of @id, leaf first
 * @out: receives up to @max ids (resolved as stacks_frame() does)
 * Return: the number of frames (may exceed @max), or -ENOENT.
 */
int stacks_names(struct stacks *sk, uint32_t id, uint32_t *out, unsigned int max);

/*
 * Whether @name is a frame of the tracing code itself (__traceiter_*,
 * trace_event_raw_event_*, perf_trace_*, __bpf_trace_*, ...): a stack taken
 * by a tracepoint is walked from inside it, so its kernel leaf is this code.
 */
bool stacks_tracing_frame(const char *name);

/**
 * stacks_shown_names - the name ids of the frames of @id a view shows, leaf first
 * @out: receives up to @max ids: every frame but the tracing code's own at the
 *	kernel leaf (stacks_tracing_frame(); a stack of nothing else keeps its last)
 * @skip: when not NULL, receives how many leaf frames were left out: out[k] is
 *	frame @skip + k of stacks_frame()
 *
 * Every view of stacks (the stacks pane's trees, the view filter's stack:
 * clauses, --batch's "Top stacks", the folded export, --diff) names a stack by
 * these frames, so two stacks that differ only in addresses within the same
 * functions, or in the tracing code's frames, are one there.
 * Return: the number of frames shown (may exceed @max), or -ENOENT.
 */
int stacks_shown_names(struct stacks *sk, uint32_t id, uint32_t *out, unsigned int max,
		       unsigned int *skip);

/*
 * Give frame @i of @id its name (a snapshot reader, whose names come with
 * the file). Ids 0 leave the frame to the resolver.
 */
void stacks_set_name(struct stacks *sk, uint32_t id, unsigned int i, uint32_t name,
		     uint32_t module);
/* The name and module ids set so far (0: not yet), without resolving. */
void stacks_peek_name(const struct stacks *sk, uint32_t id, unsigned int i, uint32_t *name,
		      uint32_t *module);

struct stacks_stats {
	uint32_t	stacks;		/* distinct stacks */
	uint64_t	frames;		/* frames held */
	uint64_t	bytes;		/* memory used */
	uint64_t	limit;
	uint64_t	dropped;	/* new stacks refused for the byte limit */
};
void stacks_get_stats(const struct stacks *sk, struct stacks_stats *out);

/*
 * Weighted sets of stacks that are not events: the BPF off-CPU totals
 * (STACKS_W_OFFCPU: count = times switched out there, value = ns off CPU).
 * A set is replaced as a whole by each poll; readers get a copy.
 */
enum stacks_wset {
	STACKS_W_OFFCPU,
	STACKS_W_NR,
};

struct stack_weight {
	uint32_t	stack;
	int32_t		pid;		/* -1: any / merged */
	uint64_t	count;
	uint64_t	value;
};

/* Replace set @set with @n entries (copied). Return: 0 or -ENOMEM. Context: any thread. */
int stacks_weights_set(struct stacks *sk, enum stacks_wset set, const struct stack_weight *w,
		       size_t n);
/*
 * Copy set @set into @out (up to @max). Return: its size (may exceed @max).
 * *@gen, when not NULL, receives the set's generation (bumped by each set).
 */
size_t stacks_weights_get(const struct stacks *sk, enum stacks_wset set,
			  struct stack_weight *out, size_t max, uint64_t *gen);

#endif
