/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An attributed line buffer: text plus one colour role per column. Panes format
 * rows into it off screen, so formatting is testable without a terminal; only
 * The screen's backend (curses.c) turns roles into attributes. (htop's RichString.)
 */
#ifndef KTOP_UI_RICHSTR_H
#define KTOP_UI_RICHSTR_H

#include <stddef.h>
#include <stdint.h>
#include "theme.h"

#define RICHSTR_MAX	512

struct richstr {
	int	len;
	char	ch[RICHSTR_MAX + 1];
	uint8_t	role[RICHSTR_MAX];
};

void richstr_clear(struct richstr *rs);
/* Append @n bytes of @s (stops at NUL); non-printable bytes become '?'. */
void richstr_addn(struct richstr *rs, enum ui_role role, const char *s, int n);
void richstr_add(struct richstr *rs, enum ui_role role, const char *s);
void richstr_addf(struct richstr *rs, enum ui_role role, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Append spaces up to column @col (nothing when already past it). */
void richstr_pad(struct richstr *rs, enum ui_role role, int col);
/* Append @s right-aligned in a field of @width columns (truncated on the left). */
void richstr_add_right(struct richstr *rs, enum ui_role role, const char *s, int width);
/* Cut to at most @width columns. */
void richstr_truncate(struct richstr *rs, int width);
/*
 * Cut to at most @width columns at a word's end: a line of words (a title,
 * the footer's key hints) that does not fit loses its last words whole,
 * never half a word.
 */
void richstr_fit_words(struct richstr *rs, int width);
/* Remove @n columns from column @at on (fewer at the end of the line). */
void richstr_cut(struct richstr *rs, int at, int n);
/* Set the role of columns [from, to). */
void richstr_set_role(struct richstr *rs, int from, int to, enum ui_role role);

/*
 * Word wrap: how many of the @n bytes of @s start the next line of at most @w
 * columns: all when they fit, else up to the last space that fits, else @w.
 */
int richstr_wrap_len(const char *s, int n, int w);

/* A key hint of a footer or prompt: the key, then what it does. */
struct richstr_key {
	const char	*key;
	const char	*text;
};

/* Append @n key hints: each key in ROLE_FKEY, its text (with its spacing) in @text. */
void richstr_add_keys(struct richstr *rs, const struct richstr_key *keys, size_t n,
		      enum ui_role text);

#endif
