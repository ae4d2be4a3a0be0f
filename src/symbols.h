/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Kernel symbol resolution from /proc/kallsyms (or a recorded copy). */
#ifndef KTOP_SYMBOLS_H
#define KTOP_SYMBOLS_H

#include <stdint.h>

struct symbols;

/* Return: the table (free with symbols_free), or NULL with errno set. */
struct symbols *symbols_load(const char *kallsyms_path);
void symbols_free(struct symbols *s);

/**
 * symbols_lookup - the function containing @addr
 * @off: receives addr - start, may be NULL
 * Return: the name, or NULL when @addr is outside every symbol.
 * Context: any thread (read only after load).
 */
const char *symbols_lookup(const struct symbols *s, uint64_t addr, uint64_t *off);

#endif
