/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * User-space symbols: which file and function an address of a process is
 * in, from the process's /proc/PID/maps and the file's ELF symbol table.
 *
 * A process's maps are read once (usyms_capture, while it lives: the decoder
 * calls it when it first meets a user stack of the process) and kept; an
 * address outside every mapping kept reads them again once, as long as the
 * process is there (a library loaded since). ELF files are read once each
 * (libelf: .symtab, else .dynsym; functions only), and addresses are taken
 * from the mapping's file offset through the PT_LOAD segments to the
 * symbol's address, so PIE executables and shared objects at any load
 * address resolve. DWARF is not read. An exec'ed process whose new image was
 * never captured may resolve against the old one; a file replaced on disk
 * against the new one.
 *
 * Threads: any; one mutex guards the caches (lookups are memoized by the
 * stack table, so each frame comes here once).
 */
#ifndef KTOP_USYMS_H
#define KTOP_USYMS_H

#include <stddef.h>
#include <stdint.h>

struct usyms;

/* @root: where "/proc" is ("" for the real one; tests point it elsewhere). */
struct usyms *usyms_new(const char *root);
void usyms_free(struct usyms *u);

/* Read /proc/@tgid/maps unless already kept. Return: 0 or -errno (ENOENT: gone). */
int usyms_capture(struct usyms *u, uint32_t tgid);

/**
 * usyms_lookup - the function at @addr in process @tgid
 * @name: receives the function's name ("" when the file has no symbol there)
 * @module: receives the file's base name ("[vdso]" etc. for special mappings)
 * Return: 0 when @addr is in a mapping of the process (even with no symbol:
 * then @name is ""), -ENOENT otherwise.
 */
int usyms_lookup(struct usyms *u, uint32_t tgid, uint64_t addr, char *name, size_t namelen,
		 char *module, size_t modlen);

#endif
