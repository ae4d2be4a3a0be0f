/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Saving a store (all of it, a time window, what a view filter leaves) in
 * one of the formats of src/formats/ (format.h has the table). The formats:
 *
 *   trace.dat   version 7 (zstd) by default, or 7 uncompressed, or 6;
 *               `trace-cmd report FILE` and KernelShark read it. The store
 *               holds decoded events, so each event is re-encoded into
 *               ring-buffer pages with the kernel's own event formats (the
 *               snapshot_meta's format texts); symbol fields are written
 *               back as the symbol's start address from the meta's kallsyms
 *               (src/formats/tracedat.h).
 *   JSON        Chrome trace-event format (Perfetto and chrome://tracing
 *               load it): function_graph calls as nested B/E slices per task,
 *               other events as instants, timerlat/osnoise samples as counters.
 *   text        the kernel's trace file format (latency column from
 *               src/model/flags.h, event text from the formats' print fmt).
 *   CSV         counts by event type, CPU or pid (the table panes).
 *   folded      stacks for flame graphs, "frame;frame;frame value" root first
 *               (src/formats/folded.h): event stacks, BPF off-CPU stacks or the
 *               function_graph paths.
 *
 * Every writer opens its file with safefile_out_open() (src/lib/safefile.h): a
 * regular file is replaced atomically (a temporary file in the same
 * directory, fsync, rename, mode 0600); "-" (standard output), a character
 * device or a FIFO is written in place.
 */
#ifndef KTOP_EXPORT_H
#define KTOP_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include "store/store.h"

struct snapshot_meta;

/* The ids of the format table (enum format_id, src/formats/format.h). */
enum export_format {
	EXPORT_KTOP,
	EXPORT_TRACEDAT,
	EXPORT_JSON,
	EXPORT_TEXT,
	EXPORT_CSV,
	EXPORT_FOLDED,
};

/* Return: the format of a file name by its ending (.ktop .dat .json .txt .csv .folded), or -1. */
int export_format_from_name(const char *path);
const char *export_format_name(enum export_format f);

struct viewfilter;

struct export_opts {
	uint64_t	t0, t1;		/* inclusive window; both 0: everything */
	enum store_key	csv_key;	/* EXPORT_CSV: STORE_KEY_TYPE, _CPU or _PID */
	/* enum safefile_out_flags: SAFEFILE_OUT_NO_TERMINAL from the interactive view */
	unsigned int	file_flags;
	struct viewfilter *view;	/* only its matches ("save what I see"); NULL: all */
	unsigned int	dat_version;	/* trace.dat: 6 or 7; 0: 7 */
	int		dat_compress;	/* trace.dat: enum tracedat_compress (0: zstd for v7) */
	int		folded;		/* EXPORT_FOLDED: enum folded_source (0: auto) */
};

struct export_stats {
	uint64_t	events;		/* written */
	uint64_t	skipped;	/* with no kernel format (trace.dat/text): not written */
	uint64_t	bytes;		/* file size */
};

/**
 * export_write - write @st in format @fmt to @path (a lookup in the format table)
 * @meta: event formats etc.; required for EXPORT_TRACEDAT and EXPORT_TEXT
 *	  (the formats), optional otherwise
 * @opts: may be NULL (everything; CSV by event type)
 * @stats: may be NULL
 * Context: any thread; @st may be written concurrently (a consistent prefix
 * is exported).
 * Return: 0, or a negative errno with a message naming @path in @err.
 */
int export_write(enum export_format fmt, const char *path, struct store *st,
		 const struct snapshot_meta *meta, const struct export_opts *opts,
		 struct export_stats *stats, char *err, size_t errlen);

#endif
