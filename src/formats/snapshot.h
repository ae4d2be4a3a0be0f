/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Snapshots: a trace opened from a file or a stream instead of a live
 * kernel. The formats themselves are in src/formats/ (format.h has the
 * table): .ktop (formats/ktop.h), trace.dat, and the export-only ones. This
 * header keeps the names the rest of ktop loads with: snapshot_load() and
 * snapshot_detect() look the format up in the table.
 */
#ifndef KTOP_SNAPSHOT_H
#define KTOP_SNAPSHOT_H

#include <stddef.h>

#include "ktop.h"
#include "store/meta.h"

struct store;

enum snapshot_kind {
	SNAPSHOT_KIND_UNKNOWN,	/* not a trace */
	SNAPSHOT_KIND_KTOP,
	SNAPSHOT_KIND_TRACEDAT,
	SNAPSHOT_KIND_EMPTY,	/* zero length */
};

/* Return: what the first @len bytes of a file say it is (format_detect()). */
enum snapshot_kind snapshot_detect(const void *head, size_t len);

/**
 * snapshot_load - open a .ktop or trace.dat file (detected from its content)
 * @path: a file, or "-" for stdin (.ktop stream only; read to its END), or
 *	FILE@NAME: buffer NAME of a trace.dat
 * @mem_limit: for the store (0: STORE_DEFAULT_MEMORY)
 * @out: receives the filled store (free with store_free)
 * @meta: receives the metadata (free with snapshot_meta_free); may be NULL
 *
 * format_load() under its old name.
 * Return: 0, or a negative errno with a message naming the file and the
 * problem in @err (the caller exits with status 2).
 */
int snapshot_load(const char *path, size_t mem_limit, struct store **out,
		  struct snapshot_meta *meta, char *err, size_t errlen);

#endif
