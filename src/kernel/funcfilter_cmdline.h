/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The command line's function filters (-l, -n, -g) in the filter prompt's
 * language (src/funcfilter/funcfilter.h): globs, /pcre2 regexes/, '!', :mod:. They become
 * one prompt line, "-l A -l B -n C -g D", resolved against the kernel's
 * available_filter_functions and written as the prompt writes it
 * (src/funcfilter/ftrace_filter.h: index form, read back, the kernel's error_log on
 * failure), so that '-l /^vfs_(read|write)$/' means the same on the command
 * line as in the prompt.
 */
#ifndef KTOP_FUNCFILTER_CMDLINE_H
#define KTOP_FUNCFILTER_CMDLINE_H

#include <stddef.h>

struct session_opts;

/**
 * funcfilter_cmdline_line - @o's -l, -n and -g as one filter prompt line
 * @buf: receives "-l A -l B -n C -g D", "" when there are none
 * Return: 0, or -E2BIG when it does not fit in @len.
 */
int funcfilter_cmdline_line(const struct session_opts *o, char *buf, size_t len);

/**
 * funcfilter_cmdline_apply - write @o's function filters in the tracefs directory @dir
 * @top: the tracefs mount (available_filter_functions, error_log, and a global
 *       set_graph_function for an instance without its own)
 * @err: receives a message naming the option's term on failure
 *
 * Nothing when there are no such options. A term that matches no function is
 * an error, as in the prompt; on any error the files are as they were.
 * Return: 0 or a negative errno.
 */
int funcfilter_cmdline_apply(const struct session_opts *o, const char *dir, const char *top,
			     char *err, size_t errlen);

#endif
