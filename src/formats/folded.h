/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Folded stacks, the text flamegraph.pl, inferno, speedscope and Pyroscope
 * read: one line per distinct stack, frames root first joined by ';', a
 * space, and the stack's value:
 *
 *	main;stk_outer;stk_middle;stk_leaf;entry_SYSCALL_64_after_hwframe;...;__schedule 200
 *
 * A stack with user frames reads user root .. user leaf, then the kernel
 * from its entry to its leaf. Frames are merged by name, as the flame graph
 * does: stacks that differ only in addresses within the same functions are
 * one line, and the tracing code's own frames at the kernel leaf
 * (__traceiter_*, trace_event_raw_event_*, ...: stacks_shown_names()) are
 * left out; a ';' or a blank inside a name becomes '_'. Sources (enum
 * folded_source, --folded):
 *	events       the stacks of the events that have one (value: events)
 *	offcpu       the BPF off-CPU stacks (value: ns off CPU)
 *	graph        the function_graph tree's call paths (value: self ns)
 *	graph-count  the same paths (value: calls)
 * and auto takes the first of these the store has.
 */
#ifndef KTOP_FOLDED_H
#define KTOP_FOLDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct store;
struct stack_set;

enum folded_source {
	FOLDED_AUTO,
	FOLDED_EVENTS,
	FOLDED_OFFCPU,
	FOLDED_GRAPH,
	FOLDED_GRAPH_COUNT,
};

/* Return: the source named @s ("events", "offcpu", "graph", "graph-count", "auto"), or -1. */
int folded_source_from_name(const char *s);

/**
 * folded_write_set - the stacks of @set as folded lines, values from @value
 * (true) or the counts (false), one line per distinct list of frames
 * Return: the number of lines, or -EIO or -ENOMEM.
 */
long folded_write_set(FILE *fp, struct store *st, const struct stack_set *set, bool value);

/**
 * folded_save_set - write @set as folded lines to @path, as the exports write
 * files (safefile: atomic, mode 0600; @file_flags: enum safefile_out_flags)
 * Return: 0, or a negative errno with the message naming @path in @err
 * (-ENOENT: an empty set).
 */
int folded_save_set(const char *path, struct store *st, const struct stack_set *set, bool value,
		    unsigned int file_flags, char *err, size_t errlen);

/*
 * All of it, and the format itself (-o FILE.folded), is src/formats/folded.c;
 * export_opts.folded picks the source.
 */

#endif
