/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ktop's own format (.ktop), as a file or as a live stream (src/formats/ktop.c).
 *
 * A .ktop file is a 32-byte file header followed by framed blocks. Every
 * block has a 24-byte header (magic, type, sizes, CRC32 of the header and of
 * the payload) and a zstd-compressed payload. Block types: META (kernel
 * release, tracer, event format texts, kallsyms), SCHEMA (dynamic types),
 * STRINGS (new interned strings), COMM (pid -> comm), EVENTS (one CPU, up to
 * 64 Ki events, columnar and delta/varint coded), LOST (lost-event records,
 * with their reason from version 3 on) and END (event count). A file is exactly a stream that ended with END, so
 * `ktop --stream` and `-o x.ktop` share the writer, and `-i -` and `-i x.ktop`
 * share the reader. Every size in a block is checked against hard caps before
 * anything is allocated, so hostile input costs bounded memory.
 */
#ifndef KTOP_FORMAT_KTOP_H
#define KTOP_FORMAT_KTOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/meta.h"

struct store;
struct viewfilter;

/*
 * Read: 1 to 4. Version 3: each lost-event record says why (enum
 * store_lost_why); those of older files read as STORE_LOST_UNKNOWN.
 * Version 4: AGG blocks (the --latency/--hist results) and BLK_F_OPTIONAL,
 * which a reader that does not know a block's type skips. Written: 4 when
 * the file or stream carries AGG blocks (ktop_write_opts.agg), else 3,
 * so that a ktop of version 3 still reads every file without them, and
 * refuses the others naming the version.
 */
#define KTOP_FILE_VERSION	4
#define KTOP_FILE_VERSION_PLAIN	3
#define KTOP_FILE_VERSION_MIN	1
#define KTOP_CHUNK_LEVEL	1
/*
 * Hard caps on what a file may claim (bounded memory on hostile input). Past
 * them, what a reader keeps counts against its memory limit (the store's):
 * events and lost marks are evicted oldest first, and a file whose strings,
 * comm table, event types and metadata do not fit is refused. What a reader
 * holds besides is the two buffers of one block, 2 * KTOP_FILE_MAX_BLOCK.
 */
#define KTOP_FILE_MAX_BLOCK	(16u << 20)	/* one block, compressed or not */
/*
 * A file may expand no more than this many times its size, past the first
 * KTOP_FILE_RATIO_SLACK bytes (ktop's own blocks: 50 at most, measured):
 * the work a small file can cause stays small (zstd turns 1 KiB into 16 MiB
 * of zeros).
 */
#define KTOP_FILE_MAX_RATIO	256u
#define KTOP_FILE_RATIO_SLACK	(4u << 20)
#define KTOP_FILE_MAX_BLOCK_EVENTS 65536u
#define KTOP_FILE_MAX_STRINGS	(16u << 20)	/* interned strings in one file */
#define KTOP_FILE_MAX_STRBYTES	(512u << 20)

/* --- writing -------------------------------------------------------------- */

struct ktop_writer;

struct ktop_write_opts {
	uint64_t	t0, t1;		/* time window, inclusive; both 0: everything */
	int		level;		/* zstd level, 0: 3 */
	/*
	 * zstd level of the blocks of sealed chunks, 0: KTOP_CHUNK_LEVEL. The
	 * chunks are compact already: zstd's fastest levels still take a
	 * third off (bench_snapshot) at a fraction of the cost of level 3.
	 */
	int		chunk_level;
	/*
	 * Bandwidth bound for streams (0: none): a token bucket of this many
	 * bytes per second (burst: one second's worth). A flush that finds the
	 * bucket empty sends no events; it sends lost-event records (per CPU:
	 * the count and the time of the first event left out, reason
	 * STORE_LOST_STREAM) instead, so the reader shows the gap and its cause.
	 */
	uint64_t	max_bytes_per_sec;
	/* stop with -ECANCELED once it points at non-zero (export_opts.cancel) */
	const int	*cancel;
	/* ktop_write(): enum safefile_out_flags (src/lib/safefile.h) */
	unsigned int	file_flags;
	/* only its matches (src/view/viewfilter.h; the writer's thread owns it); NULL: all */
	struct viewfilter *view;
	/*
	 * The in-kernel aggregations (src/agg/agg.h) whose results go along:
	 * a file gets one AGG block of their last poll before its END, a
	 * stream one per ktop_writer_agg(); NULL: none (version 3).
	 */
	struct agg_set	*agg;
};

/**
 * ktop_writer_new - start a .ktop file or stream on @fd
 * @fd: any writable fd (a pipe too); not closed by the writer
 * @name: for error messages ("-" for stdout)
 * @st: the store that will be flushed (its CPU count goes into META)
 * @meta: written first; may be NULL
 *
 * Writes the file header and the META block. SIGPIPE is blocked around every
 * write and a pending one is consumed, so a closed pipe gives -EPIPE rather
 * than killing the process.
 * Return: the writer (free with ktop_writer_free), or NULL with errno set
 * and a message in @err.
 */
struct ktop_writer *ktop_writer_new(int fd, const char *name, const struct store *st,
				    const struct snapshot_meta *meta,
				    const struct ktop_write_opts *opts,
				    char *err, size_t errlen);

/**
 * ktop_writer_flush - write what @st gained since the last flush
 *
 * New schema types, new strings, comm changes, events published since the
 * last flush (per CPU, by seq; events evicted before they were written are
 * counted in ktop_writer_stats' skipped) and new lost-event records.
 * Call it periodically for a stream (ktop --stream: e.g. every 100 ms), or
 * once for a file.
 * Context: any one thread; @st may be written concurrently by its consumers.
 * Return: 0, -EPIPE when the reader went away, or another negative errno
 * (message in the writer: ktop_writer_error()).
 */
int ktop_writer_flush(struct ktop_writer *w, struct store *st);

/* Write the END block (a stream that ends without it reads as truncated). */
int ktop_writer_finish(struct ktop_writer *w);

/*
 * A poll of the BPF statistics (bpfstats_raw_get) as a BPF block: the
 * reader of the stream shows them as the writer's machine has them.
 * Return: 0 or a negative errno (the writer's error then says why).
 */
struct bpfstats_raw;
int ktop_writer_bpf(struct ktop_writer *w, const struct bpfstats_raw *r);

/*
 * The aggregations' results now (agg_set_result of each) as an AGG block.
 * Return: 0, -EINVAL when the writer was not opened with opts->agg (a
 * version 3 file cannot hold it), or the writer's error.
 */
struct agg_set;
int ktop_writer_agg(struct ktop_writer *w, struct agg_set *s);
const char *ktop_writer_error(const struct ktop_writer *w);

struct ktop_writer_stats {
	uint64_t	events;		/* written */
	uint64_t	skipped;	/* evicted from the store before they were written */
	uint64_t	dropped;	/* left out for the bandwidth bound */
	uint64_t	bytes;		/* written to the fd */
	uint64_t	raw_bytes;	/* block payloads before compression */
	uint64_t	blocks;
	uint64_t	chunks;		/* sealed chunks copied as they are */
};
void ktop_writer_stats(const struct ktop_writer *w, struct ktop_writer_stats *out);
void ktop_writer_free(struct ktop_writer *w);

/**
 * ktop_write - write a whole .ktop file atomically
 * @path: opened with safefile_out_open(): a regular file is replaced
 *	  atomically (a temporary file in the same directory, fsync, rename,
 *	  mode 0600); "-" (stdout), a device or a FIFO is written in place
 * @opts: may be NULL (everything, level 3)
 * Return: 0, or a negative errno with a message naming @path in @err.
 */
int ktop_write(const char *path, struct store *st, const struct snapshot_meta *meta,
	       const struct ktop_write_opts *opts, char *err, size_t errlen);

/* --- reading -------------------------------------------------------------- */

struct ktop_reader;

/**
 * ktop_reader_new - start reading a .ktop file or stream from @fd
 * @fd: not closed by the reader; reads block (use it from a loader thread
 *	for `ktop -i -`)
 * @mem_limit: for the store (0: STORE_DEFAULT_MEMORY)
 *
 * Reads the file header and the META block and creates the store.
 * Return: the reader, or NULL with errno set (EBADMSG: corrupt or truncated,
 * EPROTONOSUPPORT: wrong version, ENOMSG: not a .ktop file, E2BIG: a size
 * over the caps) and a message naming @name in @err.
 */
struct ktop_reader *ktop_reader_new(int fd, const char *name, size_t mem_limit,
				    char *err, size_t errlen);
/* The store being filled: owned by the reader until ktop_reader_take_store. */
struct store *ktop_reader_store(struct ktop_reader *r);
struct store *ktop_reader_take_store(struct ktop_reader *r);
const struct snapshot_meta *ktop_reader_meta(const struct ktop_reader *r);

/**
 * ktop_reader_next - read one block and apply it to the store
 * Context: the thread that owns @r (the store's only writer).
 * Return: 1 after a block (events of a block are published), 0 after END,
 * or a negative errno (message: ktop_reader_error; -EBADMSG for an EOF
 * before END).
 */
int ktop_reader_next(struct ktop_reader *r);
const char *ktop_reader_error(const struct ktop_reader *r);
void ktop_reader_free(struct ktop_reader *r);

#endif
