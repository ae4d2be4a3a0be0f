/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A snapshot of the settings of one tracefs directory (the top level or an
 * instance) as a list of (file, content): tracing_on, current_tracer, events,
 * buffer sizes, options, pid and function filters, clock, cpumask. Used to
 * save the top level before ktop takes it over and to put it back exactly,
 * and by the tests to compare the kernel's state before and after a run.
 *
 * Contents are normalised (trailing blanks and '#' comment lines dropped,
 * trace_clock reduced to the selected clock, "7 (expanded: 1408)" to 1408),
 * which is what restoring needs; the tests compare raw captures
 * (TRACESTATE_RAW).
 * Event files (enable, filter, trigger) are kept only when they differ from
 * the default, so a missing entry means "0", "none" or "".
 */
#ifndef KTOP_TRACESTATE_H
#define KTOP_TRACESTATE_H

#include <stdio.h>
#include <stdbool.h>

struct tracestate;

enum tracestate_flags {
	TRACESTATE_NO_EVENTS	= 1 << 0,	/* skip the events/<sys>/<event>/ walk */
	TRACESTATE_NO_INSTANCES	= 1 << 1,	/* do not record the list of instances */
	/*
	 * Skip events/<sys>/<event>/trigger: a trigger is compared, never
	 * restored, so a capture for restoring does not need it (a third of
	 * the files read, seconds under emulation).
	 */
	TRACESTATE_NO_TRIGGERS	= 1 << 2,
	/*
	 * For tests: every value exactly as the kernel shows it ("7 (expanded:
	 * 1408)", "[local] global", '#' lines, the newline), plus
	 * buffer_total_size_kb, trace_options and saved_cmdlines_size. Event files
	 * at their default are still left out. Compared and saved, never restored.
	 */
	TRACESTATE_RAW		= 1 << 3,
};

/**
 * tracestate_capture - read the settings of the tracefs directory @dir
 * @dir: "/sys/kernel/tracing" or ".../instances/NAME" (any directory laid
 *       out like one, which is how the unit tests use it)
 * @flags: enum tracestate_flags
 *
 * Files that do not exist are left out; files that cannot be read (EPERM)
 * are recorded as unreadable and never written back.
 * Return: the state (free with tracestate_free), or NULL with errno set.
 */
struct tracestate *tracestate_capture(const char *dir, unsigned int flags);
void tracestate_free(struct tracestate *ts);

/**
 * tracestate_capture_files - like tracestate_capture, but only the files
 * named in @files (NULL-terminated, relative to @dir, e.g. "osnoise/period_us",
 * "tracing_thresh"): for saving the global settings a session changes while
 * it runs in an instance. Files that do not exist are left out.
 * Return: the state, or NULL with errno set.
 */
struct tracestate *tracestate_capture_files(const char *dir, const char *const *files);

/**
 * tracestate_add_compared - add an entry that is compared, never restored
 * @key: its name, e.g. "synthetic_events" (a file of the directory or not)
 * @value: its content, as the caller filtered it
 * For the tests' captures of what the library does not read on its own.
 * Return: 0 or -ENOMEM.
 */
int tracestate_add_compared(struct tracestate *ts, const char *key, const char *value);

/* Directory the state was captured from (or loaded for). */
const char *tracestate_dir(const struct tracestate *ts);
/* Captured (or saved) with TRACESTATE_RAW? */
bool tracestate_is_raw(const struct tracestate *ts);

/* Return: the normalised content of @file ("tracing_on", "options/raw", ...), or NULL. */
const char *tracestate_get(const struct tracestate *ts, const char *file);
/* Number of entries. */
int tracestate_count(const struct tracestate *ts);

/* One "file<TAB>content" line per entry (newlines in content shown as \n). */
void tracestate_print(const struct tracestate *ts, FILE *fp);

/**
 * tracestate_diff - compare two states entry by entry
 * @fp: receives one line per difference ("file: 'a' -> 'b'"); may be NULL
 * @ignore: entries whose file name starts with one of these prefixes are
 *          skipped (NULL-terminated array, or NULL)
 * Return: the number of differences.
 */
int tracestate_diff(const struct tracestate *a, const struct tracestate *b, FILE *fp,
		    const char *const *ignore);

/**
 * tracestate_restore - make the directory's settings equal to @ts again
 *
 * Reads the current state, then writes only what differs, in an order the
 * kernel accepts (tracer first, tracing_on last). The list of instances is
 * compared but never changed.
 * Return: 0, or the first negative errno met (it carries on past errors);
 * -EINVAL for a raw state (TRACESTATE_RAW), which is never written back.
 */
int tracestate_restore(const struct tracestate *ts);

/**
 * tracestate_restore_blind - write every saved entry back without reading
 *
 * For the fatal-signal path: no allocation, only open/write/close on paths
 * prepared at capture time. Writes that are no-ops in the kernel (same
 * tracer, same size) cost nothing there; per-event files are not touched
 * (set_event is written instead).
 * Context: any, including a signal handler.
 * Return: number of writes that failed.
 */
int tracestate_restore_blind(const struct tracestate *ts);

/**
 * tracestate_check_dir - is @ts a state of the directory @dir, and is every
 * entry a file inside it?
 * @dir: the tracefs mount (compared after realpath(), as are the entries:
 *	 no "..", no absolute key, no link that leads out)
 * @why: the first thing that is not, for a message
 *
 * For a state file read back from disk before it is restored: a planted file
 * must not make ktop write anywhere else.
 * Return: 0, or -EPERM (another negative errno when @dir cannot be resolved).
 */
int tracestate_check_dir(const struct tracestate *ts, const char *dir, char *why, size_t whylen);

/* Save to / load from a text file (for restoring after a SIGKILL). Return: 0 or -errno. */
int tracestate_save(const struct tracestate *ts, const char *path);
struct tracestate *tracestate_load(const char *path);

#endif
