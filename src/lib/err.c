// SPDX-License-Identifier: GPL-2.0-or-later
/* Error messages into the caller's buffer (see err.h). */
#include <errno.h>
#include <stdio.h>

#include "err.h"

int err_vset(char *err, size_t errlen, int ret, const char *fmt, va_list ap)
{
	int saved = errno;

	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
	errno = saved;
	return ret;
}

int err_set(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(err, errlen, ret, fmt, ap);
	va_end(ap);
	return ret;
}

int err_vset_at(char *err, size_t errlen, int ret, const char *where, const char *fmt,
		va_list ap)
{
	int saved = errno, n;

	if (!err || !errlen)
		return ret;
	n = snprintf(err, errlen, "%s: ", where);
	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	errno = saved;
	return ret;
}

int err_set_at(char *err, size_t errlen, int ret, const char *where, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset_at(err, errlen, ret, where, fmt, ap);
	va_end(ap);
	return ret;
}

int err_pos_set(struct err_pos *err, int offset, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->offset = offset;
		va_start(ap, fmt);
		err_vset(err->msg, sizeof(err->msg), ret, fmt, ap);
		va_end(ap);
	}
	return ret;
}
