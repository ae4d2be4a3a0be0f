/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The live source's state (source_live.c), shared with its facilities:
 * probes made while tracing (live_probe.c) and stacks (live_stacks.c).
 * Nothing outside src/source/ includes this.
 */
#ifndef KTOP_SOURCE_LIVE_LOCAL_H
#define KTOP_SOURCE_LIVE_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/features.h"
#include "kernel/session.h"
#include "source.h"

struct bpf_offcpu;
struct bpfstats;
struct consumer;
struct decode_ctx;
struct ftrace_filter;
struct live_probe_log;
struct probe_def;
struct probe_set;
struct snapshot_meta;
struct stack_syms;
struct store;
struct symbols;

/*
 * Owners: the thread that opened the source (the app's) for everything, but
 * what the readers, the BPF poller and the loader-less feed touch through
 * their own objects (consumer, bpfstats, the store).
 */
struct live_src {
	struct source		base;
	struct session_opts	so;		/* the options', with what the source added */
	struct features		ft;		/* what the kernel permits (probed at the open) */
	char			mode_why[256];	/* what it traces, and why */
	struct store		*st;		/* the sink's */
	int			wake_fd;	/* the sink's */
	uint64_t		start_ns;	/* CLOCK_MONOTONIC: tracing on */
	struct session		*sess;
	struct symbols		*syms;		/* /proc/kallsyms, read at the open */
	struct decode_ctx	*dc;
	struct consumer		*cons;		/* NULL while the readers stop */
	/* BPF statistics: NULL when off, see bpf_why */
	struct bpfstats		*bpf;
	char			bpf_why[256];
	/* probes: --probe's and the prompt's (live_probe.c) */
	struct probe_set	*probes;	/* NULL until made, or when refused */
	bool			probe_tried;	/* the set was tried; see probe_why */
	char			probe_why[512];
	struct live_probe_log	*probe_log;	/* the formats of every probe made */
	/* stacks (live_stacks.c) */
	struct stack_syms	*ssyms;		/* names the store's stack frames */
	struct bpf_offcpu	*offcpu;	/* --offcpu; NULL: off, see offcpu_why */
	char			offcpu_why[256];
	/* the kernel's function filter, opened on first use */
	struct ftrace_filter	*filter;
	char			filter_why[256];
	bool			filter_tried;
	/* what was asked; args.so points to so */
	struct source_live_args	args;
};

/* The live source of @s (only the live source's code calls it, on its own sources). */
static inline struct live_src *LS(const struct source *s)
{
	return (struct live_src *)s;
}

/*
 * live_readers_stop, live_readers_start - stop the readers (what the buffers
 * hold is drained into the store) while the session or the decoders change,
 * then start them again. Tracing goes on meanwhile: the ring buffer keeps what
 * comes. @err may hold what went wrong before: start adds to it.
 * Return (start): 0, or a negative errno; reading has then stopped.
 */
void live_readers_stop(struct live_src *ls);
int live_readers_start(struct live_src *ls, char *err, size_t errlen);
/* Write @text to the instance's trace_marker. Return: 0 or a negative errno. */
int live_mark_text(struct live_src *ls, const char *text);

/* ---- probes (live_probe.c) ---- */

/* --probe: define them all or none, before the session opens. Return: 0 or -errno (@err). */
int live_probe_start(struct live_src *ls, char *err, size_t errlen);
/* Tell the decoders the kinds of the probes' fields their formats cannot say. */
void live_probe_kinds(struct live_src *ls);
/* Add the formats of probes made (and perhaps removed) since to @m, where missing. */
void live_probe_formats(const struct live_src *ls, struct snapshot_meta *m);
/* Remove the probes (after the instance that had them enabled) and forget them. */
void live_probe_stop(struct live_src *ls);
extern const struct source_probe_ops live_probe_ops;

/* ---- stacks (live_stacks.c) ---- */

/* Which events carry stacks, the frames' names. Return: 0 or -ENOMEM (@err). */
int live_stacks_start(struct live_src *ls, char *err, size_t errlen);
void live_stacks_stop(struct live_src *ls);
/* --offcpu: load the off-CPU BPF program, or say why not in ls->offcpu_why. */
void live_offcpu_start(struct live_src *ls);
void live_offcpu_stop(struct live_src *ls);
extern const struct source_stacks_ops live_stacks_ops;

#endif
