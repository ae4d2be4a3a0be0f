/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * User-space probe places: the binary a spec names, and a symbol's file
 * offset in it (the kernel's uprobe wants PATH:0xOFFSET), from the ELF
 * symbol tables through libelf.
 */
#ifndef KTOP_PROBE_ELF_H
#define KTOP_PROBE_ELF_H

#include <stdbool.h>
#include <stddef.h>

struct probe_elf_sym {
	unsigned long	vaddr;		/* st_value */
	unsigned long	size;		/* st_size */
	unsigned long	offset;		/* in the file: where the uprobe goes */
	bool		ifunc;		/* STT_GNU_IFUNC: the resolver, not the function */
	bool		dynsym;		/* found in .dynsym (the binary is stripped) */
};

/**
 * probe_elf_find - the file a uprobe place names
 * @name: a path (it has a '/'); else a library, "libc" or "libc.so.6",
 *	  looked for first among the libraries ktop itself has loaded
 *	  (/proc/self/maps: the file the dynamic linker picked), then in the
 *	  dynamic linker's directories (/etc/ld.so.conf and its includes, then
 *	  the default ones); else a program in $PATH
 * @how: receives how it was found, for the preview ("ld.so.conf directory
 *	 /usr/lib/x86_64-linux-gnu")
 *
 * Return: 0 with the absolute path in @path, or -ENOENT.
 */
int probe_elf_find(const char *name, char *path, size_t len, char *how, size_t hlen);

/**
 * probe_elf_symbol - where function @sym is in the ELF file @path
 * Return: 0, -ENOENT (no such function symbol), -ENOEXEC (not an ELF file
 * or no loadable segment holds the symbol), or another negative errno.
 */
int probe_elf_symbol(const char *path, const char *sym, struct probe_elf_sym *out);

/**
 * probe_elf_symbols - the function symbols of @path starting with @prefix,
 * sorted, for completion; or with @near set, those closest to @prefix
 * (a typo), for the "no such symbol" message
 * @out: receives malloc()ed names (free each, see probe_elf_symbols_free)
 * Return: how many went into @out, or a negative errno.
 */
int probe_elf_symbols(const char *path, const char *prefix, bool near, char **out, size_t max);
void probe_elf_symbols_free(char **names, int n);

#endif
