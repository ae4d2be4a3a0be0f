/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace.dat internals shared by the layout parser (tracedat_file.c), the
 * loader (tracedat_read.c) and the writer (tracedat_write.c).
 *
 * The layout, as libtracecmd 3.1.6 writes it (trace-output.c) and reads it
 * (trace-input.c); every number in the file's byte order (little endian
 * here: ktop refuses big-endian files):
 *
 *   header      "\x17\x08\x44tracing", version as text "6\0" or "7\0", endian
 *               byte, user-space long size, u32 page size;
 *               v7 then: compression name "\0", its version "\0", u64 offset
 *               of the first options section
 *   v6          header_page, header_event (name "\0", u64 size, text), the
 *               ftrace formats (u32 n; n x u64 size, text), the other formats
 *               (u32 systems; system "\0", u32 n; n x u64 size, text),
 *               kallsyms (u32 size, text), printk formats (u32 size, text),
 *               saved cmdlines (u64 size, text), u32 CPUs, "options  \0" and
 *               options (u16 id, u32 size, data; a bare u16 0 ends them),
 *               "flyrecord\0", CPUs x (u64 offset, u64 size), the clock
 *               (u64 size, text: only with a TRACECLOCK option), then the
 *               pages, each CPU's page aligned. An instance's BUFFER option
 *               gives the offset of its own "flyrecord\0" and table.
 *   v7          sections: u16 id, u16 flags (1: compressed), u32 description,
 *               u64 size, then the content; a compressed metadata section is
 *               one block (u32 zsize, u32 usize, frame). Options sections
 *               (id 0) chain: the last option, DONE, holds the offset of the
 *               next (0: none). Options 16-21 hold the offsets of the
 *               metadata sections (same inner layout as v6); a BUFFER option
 *               holds its section's offset, name, clock, page size and
 *               (u32 cpu, u64 offset, u64 size) per CPU. A compressed CPU is
 *               a chunk table: u32 count, count x (u32 zsize, u32 usize,
 *               frame), and its size leaves out the count.
 */
#ifndef KTOP_TRACEDAT_LOCAL_H
#define KTOP_TRACEDAT_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TDAT_MAGIC		"\x17\x08\x44tracing"
#define TDAT_MAGIC_LEN		10

/* Option and section ids (trace-cmd-private.h, enum tracecmd_option_id). */
enum tdat_id {
	TDAT_ID_DONE		= 0,
	TDAT_ID_DATE		= 1,
	TDAT_ID_CPUSTAT		= 2,
	TDAT_ID_BUFFER		= 3,
	TDAT_ID_TRACECLOCK	= 4,
	TDAT_ID_UNAME		= 5,
	TDAT_ID_HOOK		= 6,
	TDAT_ID_OFFSET		= 7,
	TDAT_ID_CPUCOUNT	= 8,
	TDAT_ID_VERSION		= 9,
	TDAT_ID_PROCMAPS	= 10,
	TDAT_ID_TRACEID		= 11,
	TDAT_ID_TIME_SHIFT	= 12,
	TDAT_ID_GUEST		= 13,
	TDAT_ID_TSC2NSEC	= 14,
	TDAT_ID_STRINGS		= 15,
	TDAT_ID_HEADER_INFO	= 16,
	TDAT_ID_FTRACE_EVENTS	= 17,
	TDAT_ID_EVENT_FORMATS	= 18,
	TDAT_ID_KALLSYMS	= 19,
	TDAT_ID_PRINTK		= 20,
	TDAT_ID_CMDLINES	= 21,
	TDAT_ID_BUFFER_TEXT	= 22,
};

#define TDAT_SEC_HDR		16	/* u16 id, u16 flags, u32 description, u64 size */
#define TDAT_SEC_COMPRESSED	1
#define TDAT_PAGES_IN_CHUNK	10	/* trace-output.c: a compressed chunk is 10 pages */

/* Caps on what a file may claim, beyond fitting in the file. */
#define TDAT_MAX_CHUNK		(16u << 20)	/* uncompressed bytes of one chunk */
#define TDAT_MAX_PAGE		(1u << 20)	/* ring-buffer page (sub-buffer) size */
#define TDAT_MAX_OPTION_SECTIONS 4096u
/*
 * The whole file may not decompress to more than this many times its size
 * past TDAT_RATIO_SLACK: the work a small file can cause stays small. Ring
 * buffers of sparse events compress well (up to ~100x measured); zstd turns
 * 1 KiB into 16 MiB of zeros.
 */
#define TDAT_MAX_RATIO		1024u
#define TDAT_RATIO_SLACK	(64ull << 20)

enum tdat_compress {
	TDAT_Z_NONE,
	TDAT_Z_ZSTD,
	TDAT_Z_ZLIB,
};

/* Bytes of the file, or of a decompressed section the struct tdat owns. */
struct tdat_text {
	const char	*p;
	size_t		len;
};

struct tdat_format {
	const char	*system;	/* NUL-terminated, in the file */
	struct tdat_text text;
};

/* One CPU of one buffer: where its data is in the file. */
struct tdat_cpu {
	uint32_t	cpu;
	uint64_t	off;
	uint64_t	size;		/* compressed: the chunks, without the u32 count */
};

struct tdat_buffer {
	const char	*name;		/* "" for the top instance */
	char		clock[32];
	uint32_t	page_size;
	bool		compressed;
	bool		text;		/* latency tracer output: text, no pages */
	uint32_t	ncpus;		/* max CPU id + 1 */
	size_t		nentries;
	struct tdat_cpu	*cpus;		/* sorted by id, distinct */
};

struct tdat {
	const uint8_t		*map;
	size_t			size;
	unsigned int		version;	/* 6 or 7 */
	uint32_t		page_size;
	enum tdat_compress	compress;
	char			compress_name[16];
	uint32_t		ncpus;		/* the file's CPU count */

	struct tdat_text	header_page, header_event, kallsyms, printk, cmdlines;
	size_t			nformats;
	struct tdat_format	*formats;	/* ftrace's first, system "ftrace" */

	/* options */
	char			clock[32];	/* TRACECLOCK's [bracketed] clock */
	struct tdat_text	uname, tool_version;
	char			*cpustat;	/* every CPUSTAT option's text, in order */
	size_t			cpustat_len;
	uint64_t		trace_id;
	bool			has_date, has_offset, has_time_shift, has_guest, has_tsc2nsec,
				has_procmaps, has_hook;

	size_t			nbuffers;
	struct tdat_buffer	*buffers;	/* the top first when it has pages */

	/* what the parse allocated: decompressed sections, the option buffers */
	void			**owned;
	size_t			nowned;
	uint64_t		meta_bytes;	/* decompressed metadata held */
	uint64_t		unpacked;	/* bytes decompressed so far (the ratio bound) */
	const char		*path;		/* for messages */
	char			*err;
	size_t			errlen;
};

/**
 * tdat_parse - walk the layout of the mapped file @map
 * @meta_limit: the metadata (formats, kallsyms, ...) may not take more
 *
 * Every offset and size is checked against the file before use; nothing is
 * read from the pages yet.
 * Return: 0, or -EBADMSG (corrupt, truncated), -EPROTONOSUPPORT (a variant
 * ktop does not read), -E2BIG (over @meta_limit), -ENOMEM, with a message
 * naming @path in @err. Free with tdat_free() in every case.
 */
int tdat_parse(struct tdat *t, const uint8_t *map, size_t size, uint64_t meta_limit,
	       const char *path, char *err, size_t errlen);
void tdat_free(struct tdat *t);

/* Walking the pages of one CPU of one buffer: from the map, or chunk by chunk. */
struct tdat_pages {
	const struct tdat	*t;
	const struct tdat_buffer *b;
	const struct tdat_cpu	*c;
	uint64_t		pos;		/* the next chunk header, or the next page */
	uint64_t		end;
	uint32_t		chunks_left;
	uint8_t			*buf;		/* one decompressed chunk */
	size_t			cap;
	void			*zctx;		/* ZSTD_DCtx */
};

/*
 * tdat_pages_next - the next run of whole pages of @it's CPU
 * Return: 1 with *@pages and *@len (a multiple of the page size, valid until
 * the next call), 0 at the end, or -EBADMSG with a message (a chunk that
 * does not decompress, or lies outside its CPU's data).
 */
int tdat_pages_start(struct tdat_pages *it, struct tdat *t, const struct tdat_buffer *b,
		     const struct tdat_cpu *c);
int tdat_pages_next(struct tdat_pages *it, struct tdat *t, const uint8_t **pages, size_t *len);
void tdat_pages_end(struct tdat_pages *it);

/*
 * tdat_decompress - one block of the file's compression into @out (@usize bytes)
 * Return: 0, or -EBADMSG when it does not decompress to exactly @usize bytes.
 */
int tdat_decompress(enum tdat_compress z, void *zctx, void *out, size_t usize,
		    const void *in, size_t zsize);

/* Return: @t's buffer named @name ("top" and "" are the top instance), or NULL. */
const struct tdat_buffer *tdat_find_buffer(const struct tdat *t, const char *name);

/* ---- writing: records into pages (tracedat_pager.c) ------------------------------ */

/* One CPU's records packed into ring-buffer pages, each handed to @emit when full. */
struct tdat_pager {
	uint8_t		*page;
	size_t		psize, used;	/* used: data bytes after the header */
	unsigned int	long_size;	/* the kernel's long: commit and missed count */
	unsigned int	hdr;		/* 8 + long_size */
	uint64_t	last_ts;
	bool		open;
	uint64_t	missed;		/* flag the page: count, UINT64_MAX unknown */
	int		(*emit)(void *arg, const uint8_t *page);
	void		*arg;
	int		err;		/* the first error of @emit */
};

int tdat_pager_init(struct tdat_pager *p, size_t psize, unsigned int long_size,
		    int (*emit)(void *arg, const uint8_t *page), void *arg);
/* @count events were lost before @ts (0: some): flag the next page. */
void tdat_pager_lost(struct tdat_pager *p, uint64_t ts, uint64_t count);
void tdat_pager_add(struct tdat_pager *p, uint64_t ts, const uint8_t *rec, int size);
/*
 * The next records, up to three of @bytes in all, go on one page: start a
 * new page when the open one has no room left for them (and a new one has).
 */
void tdat_pager_together(struct tdat_pager *p, uint64_t ts, size_t bytes);
/* Emit the open page and free. Return: 0 or @emit's first error. */
int tdat_pager_finish(struct tdat_pager *p);

#endif
