/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel symbols: ktop's one reader of kallsyms text, /proc/kallsyms or a
 * recorded copy (a snapshot's META block, a fixture, a trace.dat's kallsyms
 * section). Address -> name for decoding function records and stacks; name ->
 * address for writing records back as the kernel wrote them (trace.dat).
 *
 * The text: one symbol a line, "ADDR TYPE NAME" and, for a module's symbols,
 * "\t[MODULE]" after the name:
 *
 *	ffffffff81000000 T _stext
 *	ffffffffc0a01000 t ext4_fill_super\t[ext4]
 */
#ifndef KTOP_SYMBOLS_H
#define KTOP_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symbols;

/* One line of kallsyms text, as symbols_parse_line() splits it. */
struct symbols_line {
	uint64_t	addr;
	const char	*name;		/* into the line, not NUL-terminated */
	size_t		name_len;
	const char	*module;	/* "" for the kernel image */
	size_t		module_len;
	char		type;		/* 'T', 't', 'd', ... */
};

/**
 * symbols_parse_line - split one line of kallsyms text
 * @line: the line; it may go on past @len (a newline, the next line)
 * @len: its length, without the newline
 * @out: the parts, pointing into @line
 *
 * Return: false for a line that is not "ADDR TYPE NAME[\t[MODULE]]".
 */
bool symbols_parse_line(const char *line, size_t len, struct symbols_line *out);

/*
 * A callback of symbols_scan(): @sl, one symbol line split, and the @line
 * itself (@len bytes, its newline included). Return: 0 to go on, else
 * symbols_scan() stops and returns it.
 */
typedef int (*symbols_scan_fn)(const struct symbols_line *sl, const char *line, size_t len,
			       void *arg);

/**
 * symbols_scan - call @fn for each symbol line of the kallsyms file @path,
 * as it is read (the scans that keep no table: a name looked up once, the
 * lines a save keeps); lines that are not "ADDR TYPE NAME" are skipped
 * Return: 0 after the last line, what @fn returned to stop, or a negative
 * errno when @path cannot be opened.
 */
int symbols_scan(const char *path, symbols_scan_fn fn, void *arg);

enum symbols_flags {
	SYMBOLS_BY_NAME	= 1 << 0,	/* index names too, for a fast symbols_addr() */
};

/**
 * symbols_parse - a symbol table from kallsyms text
 * @text: the text (need not be NUL-terminated); not kept
 * @len: its length
 * @flags: enum symbols_flags
 *
 * Absolute ('a'/'A') and undefined ('U'/'u') symbols are skipped; module
 * names are not part of the symbol names.
 * Return: the table (free with symbols_free), or NULL with errno set: EACCES
 * when every address is zero (kallsyms as an unprivileged user sees it,
 * kptr_restrict), ENOENT when the text has no symbol, ENOMEM.
 * Context: setup; the table is read-only afterwards.
 */
struct symbols *symbols_parse(const char *text, size_t len, unsigned int flags);

/**
 * symbols_load - symbols_parse() of the file @kallsyms_path, without a name index
 * @kallsyms_path: /proc/kallsyms, or a recorded copy
 *
 * Return: the table (free with symbols_free), or NULL with errno set: as
 * symbols_parse(), or the error of reading the file (ENOENT, EACCES, ...).
 * Context: setup; the table is read-only afterwards.
 */
struct symbols *symbols_load(const char *kallsyms_path);

void symbols_free(struct symbols *s);

/* Return: how many symbols the table holds (aliases at one address included). */
size_t symbols_count(const struct symbols *s);

/**
 * symbols_lookup - the function containing @addr
 * @off: receives addr - start, may be NULL
 *
 * A symbol ends where the next one begins, so an address between two symbols
 * is the lower one's, as the kernel's %pS says. Of several names at one
 * address, global text wins over local text, and that over the rest; the
 * __pfx_/__cfi_ stubs come last.
 * Return: the name, or NULL when @addr is outside every symbol.
 * Context: any thread (read only after load).
 */
const char *symbols_lookup(const struct symbols *s, uint64_t addr, uint64_t *off);

/**
 * symbols_addr - the address of the symbol @name
 *
 * Of several symbols with one name (static functions of different files),
 * the lowest address. "0xHEX", the name the decoder gives an address outside
 * every symbol, is that address; "name+0xOFF", the name it gives an address
 * inside a function where the format prints the offset (%pS), is name's plus
 * OFF. Without SYMBOLS_BY_NAME this is a walk over the whole table.
 * Return: the address, or 0 when @name is unknown (or @s is NULL).
 * Context: any thread (read only after load).
 */
uint64_t symbols_addr(const struct symbols *s, const char *name);

#endif
