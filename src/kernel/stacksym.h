/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Naming the frames of a store's stacks: the resolver installed in its stack
 * table (stacks_set_resolver). Kernel addresses through the kallsyms table
 * (src/kernel/symbols.h), user addresses through the process's mappings and ELF
 * symbols (src/kernel/usyms.h) when tracing live. A frame neither names is
 * "[unknown]" (the address stays in the table).
 *
 * Kernel frames are looked up at the address the kernel gives, as its own
 * text output does; user frames past the first are return addresses, looked
 * up one byte back so that a call at the very end of a function names that
 * function and not the next.
 */
#ifndef KTOP_STACKSYM_H
#define KTOP_STACKSYM_H

#include <stdbool.h>

struct store;
struct symbols;
struct stack_syms;

/**
 * stack_syms_new - name @st's stack frames from now on
 * @ksyms: kernel symbols, may be NULL; must outlive the result
 * @live: user frames of live processes (/proc/PID/maps, captured when a
 *	  process's first user stack is interned)
 * Return: the resolver (free with stack_syms_free, which uninstalls it), or NULL.
 * Context: setup, before anything interns stacks.
 */
struct stack_syms *stack_syms_new(struct store *st, const struct symbols *ksyms, bool live);
void stack_syms_free(struct stack_syms *sy);

#endif
