/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef KTOP_GLOBMATCH_H
#define KTOP_GLOBMATCH_H

#include <stdbool.h>

/* The kernel's glob_match (lib/glob.c): * ? [..] [!..] and \ escapes. */
bool glob_match(const char *pat, const char *str);

#endif
