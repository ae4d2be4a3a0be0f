// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Small text helpers (strutil.h).
 */
#include <stdarg.h>
#include <stdio.h>

#include "strutil.h"

int str_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n;
}
