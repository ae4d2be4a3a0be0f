/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The temporary tracefs-like tree that libtracecmd 1.x reads a trace.dat's
 * headers and formats from (src/formats/tracedat.c): /tmp/ktop-tracedat.PID.XXXXXX,
 * mode 0700. It is removed when the export ends; one that a killed ktop left
 * behind (SIGKILL during an export) is removed by the next export, of any
 * ktop of the same user, once its PID is dead.
 */
#ifndef KTOP_TDAT_TREE_H
#define KTOP_TDAT_TREE_H

#include <stddef.h>

#include "snapshot.h"
#include "store.h"

#define TDAT_TREE_PATH_MAX	64

/**
 * tdat_tree_create - remove stale trees, then lay out a new one
 * @dir: receives the tree's path
 * @len: size of @dir, at least TDAT_TREE_PATH_MAX
 * @meta: header_page, header_event, printk formats, kallsyms and event formats
 * @st: the comm table (saved_cmdlines)
 *
 * On failure nothing is left behind.
 * Return: 0 or a negative errno.
 */
int tdat_tree_create(char *dir, size_t len, const struct snapshot_meta *meta, struct store *st);

/* Remove the tree at @dir (a path tdat_tree_create gave). */
void tdat_tree_remove(const char *dir);

/**
 * tdat_tree_sweep - remove the trees of ktops that died during an export
 * @tmp: the directory they are in (/tmp)
 *
 * Only trees named for a dead PID, owned by this user and mode 0700 (so no one
 * else can have put anything in them) are removed.
 * Return: how many were removed.
 */
int tdat_tree_sweep(const char *tmp);

#endif
