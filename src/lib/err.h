/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Error messages for the user. A function that can fail in a way the user
 * must hear about takes (char *err, size_t errlen), returns 0 or a negative
 * errno, and on failure leaves one line in err saying what is wrong and, where
 * it helps, what to do. These helpers fill err and hand back the return code,
 * so a failure path is one statement:
 *
 *	if (fd < 0)
 *		return err_set_at(err, errlen, -errno, path, "%s", strerror(errno));
 */
#ifndef KTOP_ERR_H
#define KTOP_ERR_H

#include <stdarg.h>
#include <stddef.h>

/**
 * err_set - format a message into @err
 * @err: the caller's buffer; may be NULL (then only @ret is returned)
 * @errlen: its size; a longer message is cut, always NUL-terminated
 * @ret: what to return, normally a negative errno
 *
 * Return: @ret.
 * Context: any thread; errno is preserved.
 */
int err_set(char *err, size_t errlen, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* err_set() with a va_list. */
int err_vset(char *err, size_t errlen, int ret, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

/**
 * err_set_at - "@where: message": a message about a file or an object
 * @where: what the message is about (a path, an option, a block's name)
 *
 * Return: @ret.
 */
int err_set_at(char *err, size_t errlen, int ret, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* err_set_at() with a va_list, for helpers that add their own @where. */
int err_vset_at(char *err, size_t errlen, int ret, const char *where, const char *fmt,
		va_list ap) __attribute__((format(printf, 5, 0)));

/* A message about a place in a line of text (a prompt's or an option's). */
struct err_pos {
	int	offset;		/* byte offset in the line of the problem, -1: the line */
	char	msg[256];
};

/**
 * err_pos_set - say what is wrong at byte @offset of a line
 * @err: may be NULL (then only @ret is returned)
 *
 * For the filter prompt's, the view filter's and the expression parsers alike.
 * Return: @ret.
 */
int err_pos_set(struct err_pos *err, int offset, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
