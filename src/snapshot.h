/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Snapshots: ktop's own file format (.ktop), as a file or as a live stream,
 * and loading of .ktop and trace.dat files into a store.
 *
 * A .ktop file is a 32-byte file header followed by framed blocks. Every
 * block has a 24-byte header (magic, type, sizes, CRC32 of the header and of
 * the payload) and a zstd-compressed payload. Block types: META (kernel
 * release, tracer, event format texts, kallsyms), SCHEMA (dynamic types),
 * STRINGS (new interned strings), COMM (pid -> comm), EVENTS (one CPU, up to
 * 64 Ki events, columnar and delta/varint coded), LOST (lost-event records)
 * and END (event count). A file is exactly a stream that ended with END, so
 * `ktop --stream` and `-o x.ktop` share the writer, and `-i -` and `-i x.ktop`
 * share the reader. Every size in a block is checked against hard caps before
 * anything is allocated, so hostile input costs bounded memory.
 *
 * Format detection is by content (snapshot_detect): .ktop magic, trace.dat
 * magic, anything else is "not a trace".
 */
#ifndef KTOP_SNAPSHOT_H
#define KTOP_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct store;
struct tep_handle;
struct viewfilter;

#define SNAPSHOT_VERSION	1
/*
 * Hard caps on what a file may claim (bounded memory on hostile input). Past
 * them, what a reader keeps counts against its memory limit (the store's):
 * events and lost marks are evicted oldest first, and a file whose strings,
 * comm table, event types and metadata do not fit is refused. What a reader
 * holds besides is the two buffers of one block, 2 * SNAPSHOT_MAX_BLOCK.
 */
#define SNAPSHOT_MAX_BLOCK	(16u << 20)	/* one block, compressed or not */
/*
 * A file may expand no more than this many times its size, past the first
 * SNAPSHOT_RATIO_SLACK bytes (ktop's own blocks: 50 at most, measured):
 * the work a small file can cause stays small (zstd turns 1 KiB into 16 MiB
 * of zeros).
 */
#define SNAPSHOT_MAX_RATIO	256u
#define SNAPSHOT_RATIO_SLACK	(4u << 20)
#define SNAPSHOT_MAX_BLOCK_EVENTS 65536u
#define SNAPSHOT_MAX_STRINGS	(16u << 20)	/* interned strings in one file */
#define SNAPSHOT_MAX_STRBYTES	(512u << 20)
#define SNAPSHOT_MAX_CPUS	4096u
#define SNAPSHOT_MAX_FORMATS	16384u

/* One event format file (events/SYSTEM/NAME/format) as the kernel wrote it. */
struct snapshot_format {
	char	*system;
	char	*text;
};

/*
 * One ring buffer of a recording: the top instance, or an instance
 * (`trace-cmd record -B NAME`). Its CPU c is the store's CPU stream
 * cpu0 + c, so the buffer of an event is known from its stream alone.
 */
struct snapshot_buffer {
	char		name[64];	/* "top" for the top instance */
	char		clock[32];	/* its trace_clock, "" when unknown */
	uint32_t	cpu0;		/* its first store CPU stream */
	uint32_t	ncpus;
	uint32_t	page_size;	/* ring-buffer page size, 0: the meta's */
};

/* The kernel's per_cpu/cpuN/stats of one store CPU stream, as recorded. */
struct snapshot_cpustat {
	bool		valid;
	uint64_t	entries;	/* in the buffer when read */
	uint64_t	overrun;	/* overwritten: lost */
	uint64_t	commit_overrun;
	uint64_t	dropped;	/* not written (buffer full, no overwrite) */
	uint64_t	read;		/* read events */
};

#define SNAPSHOT_MAX_BUFFERS	256u

/*
 * What a snapshot carries besides the events. Every pointer is owned by the
 * meta (freed by snapshot_meta_free); every text may be NULL.
 */
struct snapshot_meta {
	char			release[65];	/* uname -r of the traced kernel */
	char			hostname[65];
	char			tracer[32];	/* "nop", "function_graph", ... */
	char			clock[32];	/* trace_clock, "" when unknown */
	uint32_t		ncpus;
	uint32_t		page_size;	/* ring-buffer page size, 0: 4096 */
	char			*header_page;	/* events/header_page text */
	char			*kallsyms;	/* kallsyms lines (all, or just those needed) */
	char			*features;	/* free text: what the kernel permitted */
	size_t			nformats;
	struct snapshot_format	*formats;
	char			*printk;	/* printk_formats text (trace_printk) */
	/* saved_cmdlines as recorded ("PID COMM" lines); NULL: the store's comm table */
	char			*cmdlines;
	/* 0: one buffer of ncpus CPUs; else each store CPU stream is in one */
	size_t			nbuffers;
	struct snapshot_buffer	*buffers;
	struct snapshot_cpustat	*cpustats;	/* ncpus entries, or NULL */
	char			notes[256];	/* what the reader could not honour */
	/* filled by the loaders */
	char			source[16];	/* "ktop", "ktop-stream", "trace.dat" */
	uint32_t		version;	/* file format version */
};

/* Free what @m points to (not @m) and zero it. Accepts NULL. */
void snapshot_meta_free(struct snapshot_meta *m);

/**
 * snapshot_meta_buffer - the buffer that store CPU stream @stream belongs to
 * @cpu: receives its CPU number within that buffer; may be NULL
 * Return: the buffer, or NULL when @m has no buffer table (then @cpu is
 * @stream) or none holds @stream.
 */
const struct snapshot_buffer *snapshot_meta_buffer(const struct snapshot_meta *m,
						   unsigned int stream, unsigned int *cpu);

/**
 * snapshot_meta_cpu_name - how to name store CPU stream @stream: "3", or
 * "NAME:3" for a CPU of an instance when the meta has several buffers
 * Return: @buf.
 */
char *snapshot_meta_cpu_name(const struct snapshot_meta *m, unsigned int stream, char *buf,
			     size_t len);

/**
 * snapshot_meta_add_format - keep one event format text
 * Return: 0, -ENOMEM, or -E2BIG past SNAPSHOT_MAX_FORMATS.
 */
int snapshot_meta_add_format(struct snapshot_meta *m, const char *system, const char *text);

/**
 * snapshot_meta_load_dir - fill @m from a tracefs-like directory
 * @dir: /sys/kernel/tracing, or a recorded fixture directory (src/fixture.h),
 *	 whose files may be gzip-compressed (NAME.gz)
 * @only: when not NULL, only the formats of types registered in @only's
 *	  schema (system:name) are kept, plus the ftrace/ ones; NULL: all
 *
 * Reads header_page (or events/header_page), events/SYS/EVENT/format,
 * kallsyms and "meta" (fixture key=value: release, tracer, trace_clock,
 * cpus, page_size) when present. Fields already set in @m are kept.
 * Return: 0, or a negative errno (-ENOENT when @dir has no event formats).
 */
int snapshot_meta_load_dir(struct snapshot_meta *m, const char *dir, const struct store *only);

/**
 * snapshot_meta_tep - a tep handle parsed from @m's header_page and formats
 * Return: the handle (free with tep_free), or NULL with errno set (ENOENT
 * when @m has no formats).
 */
struct tep_handle *snapshot_meta_tep(const struct snapshot_meta *m);

enum snapshot_kind {
	SNAPSHOT_KIND_UNKNOWN,	/* not a trace */
	SNAPSHOT_KIND_KTOP,
	SNAPSHOT_KIND_TRACEDAT,
	SNAPSHOT_KIND_EMPTY,	/* zero length */
};

/* Return: what the first @len bytes of a file say it is. */
enum snapshot_kind snapshot_detect(const void *head, size_t len);

/* --- writing -------------------------------------------------------------- */

struct snapshot_writer;

struct snapshot_write_opts {
	uint64_t	t0, t1;		/* time window, inclusive; both 0: everything */
	int		level;		/* zstd level, 0: 3 */
	/*
	 * Bandwidth bound for streams (0: none): a token bucket of this many
	 * bytes per second (burst: one second's worth). A flush that finds the
	 * bucket empty sends no events; it sends lost-event records (per CPU:
	 * the count and the time of the first event left out) instead, so the
	 * reader shows the gap like a kernel overrun.
	 */
	uint64_t	max_bytes_per_sec;
	/* snapshot_write(): enum safefile_out_flags (src/safefile.h) */
	unsigned int	file_flags;
	/* only its matches (src/viewfilter.h; the writer's thread owns it); NULL: all */
	struct viewfilter *view;
};

/**
 * snapshot_writer_new - start a .ktop file or stream on @fd
 * @fd: any writable fd (a pipe too); not closed by the writer
 * @name: for error messages ("-" for stdout)
 * @st: the store that will be flushed (its CPU count goes into META)
 * @meta: written first; may be NULL
 *
 * Writes the file header and the META block. SIGPIPE is blocked around every
 * write and a pending one is consumed, so a closed pipe gives -EPIPE rather
 * than killing the process.
 * Return: the writer (free with snapshot_writer_free), or NULL with errno set
 * and a message in @err.
 */
struct snapshot_writer *snapshot_writer_new(int fd, const char *name, const struct store *st,
					    const struct snapshot_meta *meta,
					    const struct snapshot_write_opts *opts,
					    char *err, size_t errlen);

/**
 * snapshot_writer_flush - write what @st gained since the last flush
 *
 * New schema types, new strings, comm changes, events published since the
 * last flush (per CPU, by seq; events evicted before they were written are
 * counted in snapshot_writer_stats' skipped) and new lost-event records.
 * Call it periodically for a stream (ktop --stream: e.g. every 100 ms), or
 * once for a file.
 * Context: any one thread; @st may be written concurrently by its consumers.
 * Return: 0, -EPIPE when the reader went away, or another negative errno
 * (message in the writer: snapshot_writer_error()).
 */
int snapshot_writer_flush(struct snapshot_writer *w, struct store *st);

/* Write the END block (a stream that ends without it reads as truncated). */
int snapshot_writer_finish(struct snapshot_writer *w);
const char *snapshot_writer_error(const struct snapshot_writer *w);

struct snapshot_writer_stats {
	uint64_t	events;		/* written */
	uint64_t	skipped;	/* evicted from the store before they were written */
	uint64_t	dropped;	/* left out for the bandwidth bound */
	uint64_t	bytes;		/* written to the fd */
	uint64_t	raw_bytes;	/* block payloads before compression */
	uint64_t	blocks;
};
void snapshot_writer_stats(const struct snapshot_writer *w, struct snapshot_writer_stats *out);
void snapshot_writer_free(struct snapshot_writer *w);

/**
 * snapshot_write - write a whole .ktop file atomically
 * @path: opened with safefile_out_open(): a regular file is replaced
 *	  atomically (a temporary file in the same directory, fsync, rename,
 *	  mode 0600); "-" (stdout), a device or a FIFO is written in place
 * @opts: may be NULL (everything, level 3)
 * Return: 0, or a negative errno with a message naming @path in @err.
 */
int snapshot_write(const char *path, struct store *st, const struct snapshot_meta *meta,
		   const struct snapshot_write_opts *opts, char *err, size_t errlen);

/* --- reading -------------------------------------------------------------- */

struct snapshot_reader;

/**
 * snapshot_reader_new - start reading a .ktop file or stream from @fd
 * @fd: not closed by the reader; reads block (use it from a loader thread
 *	for `ktop -i -`)
 * @mem_limit: for the store (0: STORE_DEFAULT_MEMORY)
 *
 * Reads the file header and the META block and creates the store.
 * Return: the reader, or NULL with errno set (EBADMSG: corrupt or truncated,
 * EPROTONOSUPPORT: wrong version, ENOMSG: not a .ktop file, E2BIG: a size
 * over the caps) and a message naming @name in @err.
 */
struct snapshot_reader *snapshot_reader_new(int fd, const char *name, size_t mem_limit,
					    char *err, size_t errlen);
/* The store being filled: owned by the reader until snapshot_reader_take_store. */
struct store *snapshot_reader_store(struct snapshot_reader *r);
struct store *snapshot_reader_take_store(struct snapshot_reader *r);
const struct snapshot_meta *snapshot_reader_meta(const struct snapshot_reader *r);

/**
 * snapshot_reader_next - read one block and apply it to the store
 * Context: the thread that owns @r (the store's only writer).
 * Return: 1 after a block (events of a block are published), 0 after END,
 * or a negative errno (message: snapshot_reader_error; -EBADMSG for an EOF
 * before END).
 */
int snapshot_reader_next(struct snapshot_reader *r);
const char *snapshot_reader_error(const struct snapshot_reader *r);
void snapshot_reader_free(struct snapshot_reader *r);

/**
 * snapshot_load - open a .ktop or trace.dat file (detected from its content)
 * @path: a file, or "-" for stdin (.ktop stream only; read to its END)
 * @mem_limit: for the store (0: STORE_DEFAULT_MEMORY)
 * @out: receives the filled store (free with store_free)
 * @meta: receives the metadata (free with snapshot_meta_free); may be NULL
 *
 * trace.dat files are read by src/formats/tracedat.h, their pages decoded
 * with the project's decoder (src/decode.h), so the events match a live
 * session's. @path may be FILE@NAME for one buffer of a trace.dat.
 * Return: 0, or a negative errno with a message naming the file and the
 * problem in @err (the caller exits with status 2).
 */
int snapshot_load(const char *path, size_t mem_limit, struct store **out,
		  struct snapshot_meta *meta, char *err, size_t errlen);

/* Load a trace.dat file (or FILE@BUFFER) only (snapshot_load calls it). */
int snapshot_load_tracedat(const char *path, size_t mem_limit, struct store **out,
			   struct snapshot_meta *meta, char *err, size_t errlen);

#endif
