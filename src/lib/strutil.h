/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Small text helpers every layer may use: formatting whose truncation is
 * accepted, hex digits, durations.
 */
#ifndef KTOP_STRUTIL_H
#define KTOP_STRUTIL_H

#include <stddef.h>
#include <stdint.h>

/*
 * str_fmt - snprintf for texts whose truncation is accepted (names,
 * messages, definitions bounded by their spec's length): the compiler's
 * truncation warnings do not look through it.
 * Return: the length the text would have had.
 */
int str_fmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The value of hex digit @c (0-9, a-f, A-F). Return: 0..15, or -1 for any other. */
int hex_digit(int c);

/* @ns as "512ns", "12.3us", "1.23ms", "2.50s". Return: @buf. */
char *str_dur(char *buf, size_t len, uint64_t ns);

#endif
