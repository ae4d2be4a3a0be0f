/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a trace carries besides its events: the kernel's event formats and
 * page header, kallsyms, saved cmdlines, printk formats, the tracer, its
 * options and clock. Every format reads what it has of these into a
 * snapshot_meta and writes from one, so a trace opened in one format can be
 * saved in any other (a trace.dat needs the formats; the text export prints
 * events with them).
 */
#ifndef KTOP_FORMAT_META_H
#define KTOP_FORMAT_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct store;
struct tep_handle;

#define SNAPSHOT_MAX_FORMATS	16384u
#define SNAPSHOT_MAX_CPUS	4096u	/* what a trace may claim */

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
 * Every pointer is owned by the meta (freed by snapshot_meta_free); every
 * text may be NULL.
 */
struct snapshot_meta {
	char			release[65];	/* uname -r of the traced kernel */
	char			hostname[65];
	char			tracer[32];	/* "nop", "function_graph", ... */
	char			clock[32];	/* trace_clock, "" when unknown */
	uint32_t		ncpus;
	uint32_t		page_size;	/* ring-buffer page size, 0: 4096 */
	char			*header_page;	/* events/header_page text */
	char			*header_event;	/* events/header_event text */
	char			*kallsyms;	/* kallsyms lines (all, or just those needed) */
	char			*printk;	/* printk_formats ("0xADDR : \"fmt\"" lines) */
	char			*cmdlines;	/* saved_cmdlines ("PID COMM" lines) */
	char			*options;	/* the tracer's options, trace_options lines */
	char			*features;	/* free text: what the kernel permitted */
	size_t			nformats;
	struct snapshot_format	*formats;
	/* 0: one buffer of ncpus CPUs; else each store CPU stream is in one */
	size_t			nbuffers;
	struct snapshot_buffer	*buffers;
	struct snapshot_cpustat	*cpustats;	/* ncpus entries, or NULL */
	char			notes[256];	/* what the reader could not honour */
	/*
	 * Why this file was written, when a flight recorder wrote it: the
	 * conditions matched, when, the window, what part of it the store still
	 * held (src/recorder/recorder.h). NULL otherwise.
	 */
	char			*save_note;
	/* filled by the readers */
	char			source[16];	/* "ktop", "ktop-stream", "trace.dat" */
	uint32_t		version;	/* file format version */
};

/* Free what @m points to (not @m) and zero it. Accepts NULL. */
void snapshot_meta_free(struct snapshot_meta *m);

/**
 * snapshot_meta_copy - a deep copy of @src into @dst (overwritten)
 * Return: 0 or -ENOMEM (then @dst is empty).
 */
int snapshot_meta_copy(struct snapshot_meta *dst, const struct snapshot_meta *src);

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

/* Return: the format text of @system:@name, or NULL. */
const char *snapshot_meta_format(const struct snapshot_meta *m, const char *system,
				 const char *name);

/**
 * snapshot_meta_load_dir - fill @m from a tracefs-like directory
 * @dir: /sys/kernel/tracing, or a recorded fixture directory (src/ingest/fixture.h),
 *	 whose files may be gzip-compressed (NAME.gz)
 * @only: when not NULL, only the formats of types registered in @only's
 *	  schema (system:name) are kept, plus the ftrace/ ones; NULL: all
 *
 * Reads header_page (or events/header_page), events/header_event,
 * events/SYS/EVENT/format, kallsyms, printk_formats, saved_cmdlines and
 * "meta" (fixture key=value: release, tracer, trace_clock, cpus, page_size)
 * when present. Fields already set in @m are kept.
 * Return: 0, or a negative errno (-ENOENT when @dir has no event formats).
 */
int snapshot_meta_load_dir(struct snapshot_meta *m, const char *dir, const struct store *only);

/**
 * snapshot_meta_tep - a tep handle parsed from @m's header_page and formats
 * Return: the handle (free with tep_free), or NULL with errno set (ENOENT
 * when @m has no formats).
 */
struct tep_handle *snapshot_meta_tep(const struct snapshot_meta *m);

#endif
