// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's glob (its lib/glob.c), for the languages that take globs as
 * the kernel does: the filter prompt's and the view filter's.
 */
#include <stdbool.h>
#include <stddef.h>

#include "globmatch.h"

bool glob_match(const char *pat, const char *str)
{
	const char *back_pat = NULL, *back_str = NULL;

	for (;;) {
		unsigned char c = (unsigned char)*str++;
		unsigned char d = (unsigned char)*pat++;

		switch (d) {
		case '?':
			if (c == '\0')
				return false;
			break;
		case '*':
			if (*pat == '\0')
				return true;
			back_pat = pat;
			back_str = --str;
			break;
		case '[': {
			bool match = false, inverted = (*pat == '!');
			const char *cls = pat + inverted;
			unsigned char a = (unsigned char)*cls++;

			do {
				unsigned char b = a;

				if (a == '\0')
					goto literal;
				if (cls[0] == '-' && cls[1] != ']') {
					b = (unsigned char)cls[1];
					if (b == '\0')
						goto literal;
					cls += 2;
				}
				match |= (a <= c && c <= b);
			} while ((a = (unsigned char)*cls++) != ']');
			if (match == inverted)
				goto backtrack;
			pat = cls;
			break;
		}
		case '\\':
			d = (unsigned char)*pat++;
			/* fall through */
		default:
literal:
			if (c == d) {
				if (d == '\0')
					return true;
				break;
			}
backtrack:
			if (c == '\0' || !back_pat)
				return false;
			pat = back_pat;
			str = ++back_str;
			break;
		}
	}
}
