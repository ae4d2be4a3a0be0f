/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Applying a filter prompt line (src/funcfilter/funcfilter.h) to the kernel: set_ftrace_filter,
 * set_ftrace_notrace, set_graph_function, set_ftrace_pid + set_event_pid and
 * events' filter files of one tracefs instance, with the kernel's error_log
 * and the effective content read back after every write, and undo/redo.
 *
 * Function sets are resolved in user space against available_filter_functions
 * and written in the kernel's index form ("12248 12250 ...", 1-based line
 * numbers of available_filter_functions, accepted by set_ftrace_filter and
 * set_ftrace_notrace since Linux 5.1) in one open with O_TRUNC; if the
 * kernel refuses indexes, names are written instead (set_graph_function
 * always takes names). Tracing goes on during the change: the kernel swaps
 * its filter hash when the file is closed.
 *
 * The undo stack holds, per change, the content of each file as read back
 * before and after it; undo writes the "before" back exactly (an empty
 * set_ftrace_filter, "all functions", is restored by a bare O_TRUNC open).
 *
 * Context: one thread (the UI's) owns a struct ftrace_filter; the calls block
 * for the duration of the writes (about 10-100 ms for 10k functions).
 */
#ifndef KTOP_FTRACE_FILTER_H
#define KTOP_FTRACE_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "funcfilter.h"

struct tracefs_instance;
struct store;
struct ktop_event;

struct ftrace_filter;

struct ftrace_filter_result {
	int		err;			/* 0 or a negative errno */
	int		err_offset;		/* byte in the line of a parse error, -1: none */
	char		msg[512];		/* one line for the status bar */
	char		kernel_error[512];	/* error_log entries the write added, "" none */
	bool		changed;		/* the kernel's state changed (undo possible) */
	bool		index_form;		/* functions were written as indexes */
	bool		all_functions;		/* set_ftrace_filter is empty afterwards */
	size_t		count[FUNCFILTER_T_NR];	/* functions in each file afterwards */
	char		effective[256];		/* set_ftrace_filter afterwards, abridged */
	double		apply_ms;		/* the kernel writes and read-backs */
	double		write_ms;		/* the writes alone (open to close) */
	char		marker[256];		/* text for the store's KTOP_T_MARKER event */
};

/**
 * ftrace_filter_open - get ready to filter tracing in @inst (NULL: top level)
 * @err: a message when it fails
 *
 * Reads available_filter_functions. Where the kernel forbids that (EPERM, as
 * on kernels locked down against function tracing) the object is still made
 * and pid and event filters work; function lines then fail with "this kernel
 * does not permit function filtering".
 * Return: 0, or a negative errno (ENOMEM, or no tracefs).
 */
int ftrace_filter_open(struct ftrace_filter **out, struct tracefs_instance *inst,
		       char *err, size_t errlen);

/*
 * The same on explicit directories (tests): @dir holds the set_* files,
 * @top_dir available_filter_functions and error_log (NULL: @dir).
 */
int ftrace_filter_open_dir(struct ftrace_filter **out, const char *dir, const char *top_dir,
			   char *err, size_t errlen);
void ftrace_filter_close(struct ftrace_filter *f);	/* accepts NULL; the kernel is left as is */

/* The function list (NULL when the kernel refused it), and why it is missing. */
const struct funcfilter_funcs *ftrace_filter_funcs(const struct ftrace_filter *f);
const char *ftrace_filter_unavailable(const struct ftrace_filter *f);	/* "" when available */

/**
 * ftrace_filter_current - read @t back from the kernel as a set
 * @out: initialised by the callee to funcfilter_funcs_count() bits; free with
 *       funcfilter_set_destroy()
 * Return: 0, or a negative errno. An empty file gives an empty set.
 */
int ftrace_filter_current(struct ftrace_filter *f, enum funcfilter_target t,
			  struct funcfilter_set *out);

/**
 * ftrace_filter_apply - parse @line, resolve it, write it, read it back
 *
 * Nothing is written when the line has any error. When a kernel write fails,
 * every file this call touched is put back as it was, and res->kernel_error
 * carries what the kernel's error_log said.
 * Return: res->err.
 */
int ftrace_filter_apply(struct ftrace_filter *f, const char *line,
			struct ftrace_filter_result *res);

/* Undo the last change / redo the last undone one. Return: 0, -ENOENT when none. */
int ftrace_filter_undo(struct ftrace_filter *f, struct ftrace_filter_result *res);
int ftrace_filter_redo(struct ftrace_filter *f, struct ftrace_filter_result *res);
size_t ftrace_filter_undo_depth(const struct ftrace_filter *f);
size_t ftrace_filter_redo_depth(const struct ftrace_filter *f);

/* ftrace_filter_summary()'s @targets bit for the pid files, beside 1 << FUNCFILTER_T_* */
#define FTRACE_FILTER_PIDS	(1u << FUNCFILTER_T_NR)

/**
 * ftrace_filter_summary - what the files this object changed hold now, one line
 * @buf: receives e.g. "functions vfs_read vfs_write (2); pid:1234 1235;
 *       sched_switch: prev_pid == 1"; "" when they hold nothing
 * @targets: receives the files this object has changed, whatever they hold
 *           now: bit 1 << FUNCFILTER_T_* for the function files, FTRACE_FILTER_PIDS
 *           (what the command line set there no longer holds)
 *
 * From what was read back after each change, undo and redo: no kernel read.
 * Context: the thread that owns @f.
 */
void ftrace_filter_summary(const struct ftrace_filter *f, char *buf, size_t len,
			   unsigned int *targets);

/* Force names instead of indexes (benchmarks; old kernels are detected). */
void ftrace_filter_set_index_form(struct ftrace_filter *f, bool on);

/**
 * ftrace_filter_marker_event - fill a KTOP_T_MARKER event for a filter change
 * @text: usually res->marker; interned in the store's string table
 * @ts: a time in the ring buffer's clock after which the change took effect
 *      (e.g. the store's last_ts when ftrace_filter_apply returned)
 *
 * The store has one writer per CPU stream: the caller hands @ev to
 * store_append() from the writer thread of @cpu's stream.
 * Context: any thread (interning is thread-safe). Return: 0 or -ENOMEM.
 */
int ftrace_filter_marker_event(struct store *st, const char *text, uint64_t ts, uint16_t cpu,
			       struct ktop_event *ev);

/**
 * ftrace_filter_error_log_parse - the error_log entries after @mark, one line
 * @text: the content of an error_log file
 * @mark: the first line of the last entry before the write ("" or NULL: all)
 * @out: receives e.g. "event filter parse error: error: Invalid value (did you
 *       forget quotes)? (command 'prev_pid ==', column 13)"
 */
void ftrace_filter_error_log_parse(const char *text, const char *mark, char *out, size_t len);

/* ---- history of prompt lines, kept across runs ------------------------------------ */

struct funcfilter_history;

/**
 * funcfilter_history_open - load the history file
 * @path: NULL for $XDG_STATE_HOME/ktop/filter_history (default
 *        ~/.local/state/ktop/filter_history)
 * Read with safefile_read(): a missing file, or one that is not a regular
 * file of at most 500 lines (a FIFO, a symbolic link another uid planted),
 * is an empty history.
 * Return: 0 or a negative errno.
 */
int funcfilter_history_open(struct funcfilter_history **out, const char *path);
void funcfilter_history_free(struct funcfilter_history *h);
size_t funcfilter_history_count(const struct funcfilter_history *h);
/* @i 0 is the newest line. Return: NULL when out of range. */
const char *funcfilter_history_get(const struct funcfilter_history *h, size_t i);
/**
 * funcfilter_history_add - append @line (not when equal to the newest) and save
 * @why: when not saved, what stopped it (see safefile_replace())
 *
 * The file is replaced with safefile_replace(), mode 0600. When its
 * directory is not trusted (-EPERM) later lines are kept in memory only and
 * saving is not tried again.
 * Return: 0 or -errno (-EPERM: not saved, the directory is not trusted).
 */
int funcfilter_history_add(struct funcfilter_history *h, const char *line, char *why,
			   size_t whylen);

#endif
