/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * String interning: every distinct string (comm, symbol name, event field
 * string) is stored once and named by a 32-bit id. Id 0 is the empty string.
 */
#ifndef KTOP_INTERN_H
#define KTOP_INTERN_H

#include <stddef.h>
#include <stdint.h>

struct intern;

/* Return: a new table (free with intern_free), or NULL on ENOMEM. */
struct intern *intern_new(void);
void intern_free(struct intern *in);

/**
 * intern_id - the id of @s, adding it if new
 * Context: any thread; concurrent callers are serialised internally only
 * when the string is new.
 * Return: the id, or UINT32_MAX on ENOMEM.
 */
uint32_t intern_id(struct intern *in, const char *s, size_t len);

/**
 * intern_str - the string of @id
 * Context: any thread. The pointer stays valid until intern_free().
 * Return: the NUL-terminated string, or "" for an unknown id.
 */
const char *intern_str(const struct intern *in, uint32_t id);

/* Return: number of ids handed out, and bytes used. */
uint32_t intern_count(const struct intern *in);
size_t intern_bytes(const struct intern *in);

#endif
