/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * File formats: one interface, one file per format in src/formats/, one table.
 *
 *   ktop_read.c, ktop_write.c   .ktop files and streams (ktop.h; ktop_stacks.c:
 *                their stacks)
 *   tracedat.c   trace-cmd's trace.dat (reader and writer): version 7 (zstd)
 *                by default, or 7 uncompressed, or 6; `trace-cmd report FILE`
 *                and KernelShark read it. The store holds decoded events, so
 *                each event is re-encoded into ring-buffer pages with the
 *                kernel's own event formats (the snapshot_meta's format
 *                texts); symbol fields are written back as the symbol's start
 *                address from the meta's kallsyms (tracedat.h).
 *   json.c       Chrome trace-event JSON (writer; Perfetto and chrome://tracing
 *                load it): function_graph calls as nested B/E slices per
 *                task, other events as instants, timerlat/osnoise samples as
 *                counters.
 *   text.c       the kernel's trace text (writer; latency column from
 *                src/model/flags.h, event text from the formats' print fmt)
 *   csv.c        counts by event, CPU, task or function (writer; the table panes)
 *   folded.c     folded stacks for flame graphs, "frame;frame;frame value"
 *                root first (writer; folded.h): event stacks, BPF off-CPU
 *                stacks or the function_graph paths
 *
 * Each exports one `const struct format_ops` filled with designated
 * initialisers; format.c lists them in one table, and everything that picks a
 * format (-i FILE, -o FILE, the view's save prompt, --stream) looks it up
 * there: by content (format_detect), by file name (format_by_name), or by
 * name (format_by_id). A format that cannot read leaves open NULL; one that
 * cannot write leaves save NULL.
 *
 * Reading is progressive: open() reads what a store needs to exist (a .ktop
 * file's header and metadata) and returns a reader whose store the UI may
 * draw at once; next() adds the next piece (a block, a chunk, a CPU's pages)
 * and publishes it, until it returns 0. A loader thread calls next() while the
 * UI draws (src/source/source_file.c); format_load() calls it to the end.
 *
 * Writing: save() writes the store, or the part of it a time window and a
 * view filter leave, to a path or to an fd written in place. Every writer
 * opens its file with format_out_open() (safefile_out_open(),
 * src/lib/safefile.h): a regular file is replaced atomically (a temporary
 * file in the same directory, fsync, rename, mode 0600); "-" (standard
 * output), a character device or a FIFO is written in place.
 * format_out_close() finishes it for every format.
 *
 * Metadata (struct snapshot_meta, src/store/meta.h) travels with the store:
 * whatever a format can carry (event formats, header_page, kallsyms, saved
 * cmdlines, tracer and options, clock) it reads into the meta and writes from
 * it, so that any file can be saved again in any other format.
 */
#ifndef KTOP_FORMAT_H
#define KTOP_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"
#include "lib/safefile.h"
#include "store/meta.h"
#include "store/store.h"

struct store;
struct viewfilter;
struct format_reader;

/* The formats, in the table's order. */
enum format_id {
	FORMAT_KTOP,
	FORMAT_TRACEDAT,
	FORMAT_JSON,
	FORMAT_TEXT,
	FORMAT_CSV,
	FORMAT_FOLDED,
	FORMAT_NR,
};

/* What a save writes: a window, a view, and each format's choices. */
struct export_opts {
	uint64_t	t0, t1;		/* inclusive window; both 0: everything */
	enum store_key	csv_key;	/* FORMAT_CSV: STORE_KEY_TYPE, _CPU or _PID */
	/* enum safefile_out_flags: SAFEFILE_OUT_NO_TERMINAL from the interactive view */
	unsigned int	file_flags;
	struct viewfilter *view;	/* only its matches ("save what I see"); NULL: all */
	unsigned int	dat_version;	/* trace.dat: 6 or 7; 0: 7 */
	int		dat_compress;	/* trace.dat: enum tracedat_compress (0: zstd for v7) */
	int		folded;		/* FORMAT_FOLDED: enum folded_source (0: auto) */
	/*
	 * When it points at a non-zero value (set by another thread), the writer
	 * stops at its next batch of events with -ECANCELED and leaves no file
	 * (the flight recorder's saves when ktop must end). NULL: never.
	 */
	const int	*cancel;
	/* the in-kernel aggregations' results: .ktop carries them; NULL: none */
	struct agg_set	*agg;
};

/* What a save wrote. */
struct export_stats {
	uint64_t	events;		/* written */
	uint64_t	skipped;	/* with no kernel format (trace.dat/text): not written */
	uint64_t	bytes;		/* file size */
};

/* Where an input comes from. */
struct format_in {
	int		fd;		/* at the start of the file; the reader does not close it */
	const char	*path;		/* a file's path; NULL for a stream (standard input) */
	const char	*name;		/* for messages: the path, or "standard input" */
	size_t		mem_limit;	/* the store's (-m); 0: STORE_DEFAULT_MEMORY */
	/* FILE@PART: read only PART (a trace.dat's buffer); NULL: everything */
	const char	*part;
};

/* Where an output goes: @path opened with safefile_out_open(), or @fd (>= 0) in place. */
struct format_out {
	const char	*path;		/* also the name in messages ("-": standard output) */
	int		fd;		/* >= 0: written in place from its offset, not closed */
};

struct format_ops {
	enum format_id	id;
	const char	*name;		/* "ktop", "trace.dat", "json", "text", "csv", "folded" */
	/* file name endings that choose this format for -o, NULL-terminated */
	const char	*const *exts;
	/* can be read from a pipe as it is written (-i -, --stream) */
	bool		stream;
	/* has parts to read alone, named as FILE@PART (a trace.dat's buffers) */
	bool		parts;

	/*
	 * detect - is this the format of a file starting with @head (@len bytes,
	 * up to FORMAT_HEAD_MAX)? NULL: never detected (write-only formats).
	 */
	bool (*detect)(const void *head, size_t len);

	/*
	 * open - start reading @in: on success *@out holds a reader whose store
	 * and metadata exist (the store may still be empty). On failure a
	 * negative errno and a message naming in->name in @err.
	 */
	int (*open)(const struct format_in *in, struct format_reader **out, char *err,
		    size_t errlen);

	/*
	 * save - write @st (what @opts leaves of it) to @out. @meta may be NULL:
	 * a format that needs what it lacks refuses with a message. @stats may
	 * be NULL. Context: any thread; writers may append to @st meanwhile (a
	 * consistent prefix is written).
	 * Return: 0, or a negative errno with a message naming out->path in @err.
	 */
	int (*save)(const struct format_out *out, struct store *st,
		    const struct snapshot_meta *meta, const struct export_opts *opts,
		    struct export_stats *stats, char *err, size_t errlen);
};

#define FORMAT_HEAD_MAX		64	/* bytes format_detect() looks at */

/* --- the table --------------------------------------------------------------- */

/* Return: the format @id, or NULL for an id past the table. */
const struct format_ops *format_by_id(enum format_id id);
/* Return: the format whose file name ending @path has (".ktop", ".dat", ...), or NULL. */
const struct format_ops *format_by_name(const char *path);
/* Return: the format whose detect() claims @head, or NULL: not a trace ktop reads. */
const struct format_ops *format_detect(const void *head, size_t len);
/* Return: format @i of the table (0 .. FORMAT_NR - 1), NULL past the end or for a gap. */
const struct format_ops *format_nth(unsigned int i);
/* Return: the id of the format whose file name ending @path has, or -1. */
int format_id_by_name(const char *path);
/* Return: the name of format @f ("ktop", "trace.dat", ...), "?" past the table. */
const char *format_id_name(enum format_id f);

/* --- readers ------------------------------------------------------------------- */

struct format_reader_ops {
	/*
	 * next - read the next piece and publish its events in the store.
	 * Return: 1 (more may follow), 0 (the end, everything read), or a
	 * negative errno with the message in r->err. Context: the thread that
	 * owns the reader, the store's only writer.
	 */
	int (*next)(struct format_reader *r);
	/* free the reader, and the store unless it was taken */
	void (*free)(struct format_reader *r);
};

/*
 * What every reader has; a format's reader embeds it first. The store and
 * the metadata are filled by open(); the metadata is complete then (a reader
 * learns nothing about the kernel later), the store grows with next().
 */
struct format_reader {
	const struct format_reader_ops	*ops;
	const struct format_ops		*fmt;
	struct store			*st;	/* owned until format_reader_take_store() */
	struct snapshot_meta		meta;
	/*
	 * The BPF statistics a .ktop stream carries (its BPF blocks), once the
	 * first came; fed by next(), read from any thread (load it with
	 * __atomic_load_n); freed with the reader.
	 */
	struct bpfstats			*bpf;
	/*
	 * The in-kernel aggregations' results a .ktop carries (its AGG
	 * blocks), once the first came: a fed set (agg_set_new_fed), read from
	 * any thread (load it with __atomic_load_n); freed with the reader.
	 */
	struct agg_set			*agg;
	char				name[256];
	char				err[512];
};

/**
 * format_open - detect the format of @in from its content and open a reader
 * A stream (in->path NULL) is read as a .ktop stream, the only format that
 * can come through a pipe.
 * Return: 0 and the reader in *@out, or a negative errno with a message
 * naming in->name in @err (-ENOMSG: not a trace; -EBADMSG: empty or corrupt).
 */
int format_open(const struct format_in *in, struct format_reader **out, char *err,
		size_t errlen);

/**
 * format_split_part - FILE@PART: the file and the part it names
 * @arg: what -i was given
 * @file: receives the file part (@len bytes)
 * @part: receives the part, a pointer into @arg
 *
 * Only when @arg itself is no file and it has an '@' whose left side is one.
 * Return: true when @arg named a part.
 */
bool format_split_part(const char *arg, char *file, size_t len, const char **part);

/**
 * format_in_open - open @arg for reading into @in (fd, path, name)
 * @arg: a file, or FILE@PART (format_split_part); "-" is not handled here
 * @file: where the file part is kept (@len bytes; in->path points to it)
 * Return: 0 (close in->fd when done), or a negative errno with a message
 * naming @arg in @err.
 */
int format_in_open(struct format_in *in, const char *arg, char *file, size_t len, char *err,
		   size_t errlen);

/* Read the next piece (see format_reader_ops.next). */
int format_reader_next(struct format_reader *r);
/* Take the store: the reader no longer frees it. */
struct store *format_reader_take_store(struct format_reader *r);
/* Free @r (accepts NULL). */
void format_reader_free(struct format_reader *r);

/**
 * format_load - open @path (or "-": standard input) and read it whole
 * @out: receives the store (free with store_free)
 * @meta: receives the metadata (free with snapshot_meta_free); may be NULL
 * Return: 0, or a negative errno with a message naming the file in @err.
 */
int format_load(const char *path, size_t mem_limit, struct store **out,
		struct snapshot_meta *meta, char *err, size_t errlen);

/* --- writers ------------------------------------------------------------------- */

/**
 * format_save - write @st in format @f
 * Return: 0, -EOPNOTSUPP when @f cannot write, or what f->save() returns.
 */
int format_save(const struct format_ops *f, const struct format_out *out, struct store *st,
		const struct snapshot_meta *meta, const struct export_opts *opts,
		struct export_stats *stats, char *err, size_t errlen);

/**
 * export_write - write @st in format @fmt to @path (a lookup in the format table)
 * @meta: event formats etc.; required for FORMAT_TRACEDAT and FORMAT_TEXT
 *	  (the formats), optional otherwise
 * @opts: may be NULL (everything; CSV by event type)
 * @stats: may be NULL
 * Context: any thread; @st may be written concurrently (a consistent prefix
 * is exported).
 * Return: 0, or a negative errno with a message naming @path in @err.
 */
int export_write(enum format_id fmt, const char *path, struct store *st,
		 const struct snapshot_meta *meta, const struct export_opts *opts,
		 struct export_stats *stats, char *err, size_t errlen);

/*
 * An output file as a format writes it: the safefile (atomic replacement or
 * in place) and, for formats that print, a stdio stream on it.
 */
struct format_file {
	struct safefile_out	out;
	FILE			*fp;		/* format_out_open(..., true): buffered */
};

/**
 * format_out_open - open @out for a whole file
 * @flags: enum safefile_out_flags (SAFEFILE_OUT_SEEKABLE for a writer that seeks)
 * @stdio: also open f->fp (64 KiB buffered; in place, a stop request ends a
 *	   wait on a reader that takes nothing: src/lib/output.h)
 * Return: 0, or a negative errno with a message naming out->path in @err;
 * then nothing is left open.
 */
int format_out_open(struct format_file *f, const struct format_out *out, unsigned int flags,
		    bool stdio, char *err, size_t errlen);

/**
 * format_out_close - flush, and finish (@ret == 0) or abandon the file
 * @stats: its bytes are set to the file's size when known; may be NULL
 * Return: @ret when it is an error, else 0 or the error of finishing.
 */
int format_out_close(struct format_file *f, int ret, struct export_stats *stats, char *err,
		     size_t errlen);

/* Has the writer been asked to stop (export_opts.cancel)? Context: any thread. */
static inline bool format_cancelled(const int *cancel)
{
	return cancel && __atomic_load_n(cancel, __ATOMIC_RELAXED);
}

/* The message of a write stopped by export_opts.cancel. Return: -ECANCELED. */
int format_cancel_err(char *err, size_t errlen, const char *path);

/* The window of @o: [*t0, *t1], everything when both are 0 or @o is NULL. */
void format_window(const struct export_opts *o, uint64_t *t0, uint64_t *t1);

/* The formats (src/formats/NAME.c). */
extern const struct format_ops format_ktop;
extern const struct format_ops format_tracedat;
extern const struct format_ops format_json;
extern const struct format_ops format_text;
extern const struct format_ops format_csv;
extern const struct format_ops format_folded;

#endif
