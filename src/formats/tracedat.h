/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace.dat, trace-cmd's file format (what `trace-cmd record` writes and
 * `trace-cmd report` and KernelShark read), versions 6 and 7, read and
 * written by ktop itself.
 *
 * Reading: the file is mapped, its header, options and sections are walked
 * with every offset and size checked against the file (tracedat_file.c), and
 * each CPU's ring-buffer pages go straight to ktop's page decoder
 * (src/ingest/decode.h), from the map or, for a compressed buffer, one decompressed
 * chunk at a time. libtraceevent parses the event formats; libtracecmd is
 * not used (it trusts the file, and crashes on corrupt ones).
 *
 *   versions	6 and 7
 *   compression	none, zstd, zlib (version 7; Debian's trace-cmd 3.1.6 writes zstd)
 *   buffers	the top buffer and every instance (`trace-cmd record -B NAME`),
 *		each CPU of each buffer one store CPU stream, named in the
 *		meta's buffer table (snapshot_meta.buffers)
 *   refused	big-endian files, and latency-tracer files (their data is the
 *		kernel's text, not events): exit status 2 with a message
 *
 * Writing: version 7 compressed with zstd by default, or 7 uncompressed, or
 * version 6, laid out as trace-cmd 3.1.6 lays them out, from memory: the
 * store's events are laid out again as kernel records with the kernel's own
 * event formats (src/formats/krecord.h), each event's stack as the
 * ftrace:kernel_stack (and user_stack) record after it, and packed into
 * pages (tracedat_pager.c); no tracefs tree, no temporary file.
 *
 * tracedat.c is the format's entry in the table (src/formats/format.h).
 */
#ifndef KTOP_TRACEDAT_H
#define KTOP_TRACEDAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct store;
struct snapshot_meta;
struct viewfilter;
struct export_stats;
struct format_out;

/* Buffer name of `-i FILE@top` and of the top instance in the meta's table. */
#define TRACEDAT_TOP_BUFFER	"top"

struct tracedat_load_opts {
	int		fd;		/* the file, from its start (not closed); -1: open @path */
	size_t		mem_limit;	/* the store's (-m); 0: STORE_DEFAULT_MEMORY */
	/* only this buffer (`-i FILE@NAME`; "top" or "": the top instance); NULL: all */
	const char	*buffer;
};

/**
 * tracedat_load - read a trace.dat into a new store
 * @path: the file's path (opened when o->fd is -1), named in messages
 * @o: may be NULL (open @path, all buffers, the default memory limit)
 * @out: receives the store (free with store_free)
 * @meta: receives the header_page and header_event, formats, kallsyms,
 *	  printk formats, saved cmdlines, clock, tracer (read from the
 *	  records: no option holds it), buffers and CPU stats; free with
 *	  snapshot_meta_free(); may be NULL
 *
 * Memory: the store is bounded by the limit (oldest events evicted first);
 * the metadata (formats, kallsyms, ...) must fit in it too, else -E2BIG.
 * Return: 0, or a negative errno (-EBADMSG for a corrupt or truncated file,
 * -EPROTONOSUPPORT for a variant ktop does not read, -ENOENT for an unknown
 * buffer) with a message naming @path in @err.
 * Context: any thread.
 */
int tracedat_load(const char *path, const struct tracedat_load_opts *o, struct store **out,
		  struct snapshot_meta *meta, char *err, size_t errlen);

enum tracedat_compress {
	TRACEDAT_COMPRESS_DEFAULT,	/* version 7: zstd; version 6: none */
	TRACEDAT_COMPRESS_NONE,
	TRACEDAT_COMPRESS_ZSTD,
};

struct tracedat_save_opts {
	uint64_t		t0, t1;		/* inclusive window; both 0: everything */
	struct viewfilter	*view;		/* only its matches; NULL: all */
	unsigned int		file_flags;	/* enum safefile_out_flags */
	unsigned int		version;	/* 6 or 7; 0: 7 */
	enum tracedat_compress	compress;	/* version 7 only */
	const int		*cancel;	/* export_opts.cancel */
};

/**
 * tracedat_save - write @st as a trace.dat to @out
 * @meta: the event formats (required), header_page, kallsyms (symbol fields
 *	  and stack frames are written back as addresses), printk formats,
 *	  saved cmdlines, clock, tracer and buffer table
 * @o: may be NULL (everything, version 7, zstd)
 * @stats: may be NULL
 *
 * A file is replaced atomically, a pipe or device gets a spool first (the
 * format is written with offsets patched): format_out_open().
 * Return: 0, or a negative errno with a message naming out->path in @err.
 * Context: any thread; @st may be written concurrently (a consistent prefix
 * is written).
 */
int tracedat_save(const struct format_out *out, struct store *st,
		  const struct snapshot_meta *meta, const struct tracedat_save_opts *o,
		  struct export_stats *stats, char *err, size_t errlen);

/* Return: the tracer the records of @st show ("function_graph", ...), or "nop". */
const char *tracedat_infer_tracer(const struct store *st);

#endif
