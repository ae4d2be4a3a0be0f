// SPDX-License-Identifier: GPL-2.0-or-later
/* Attributed line buffer. No curses here: unit tests include this file. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "richstr.h"

void richstr_clear(struct richstr *rs)
{
	rs->len = 0;
	rs->ch[0] = '\0';
}

void richstr_addn(struct richstr *rs, enum ui_role role, const char *s, int n)
{
	for (int i = 0; i < n && s[i] && rs->len < RICHSTR_MAX; i++) {
		unsigned char c = (unsigned char)s[i];

		/* One byte, one column: keep the column arithmetic exact. */
		rs->ch[rs->len] = (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
		rs->role[rs->len++] = (uint8_t)role;
	}
	rs->ch[rs->len] = '\0';
}

void richstr_add(struct richstr *rs, enum ui_role role, const char *s)
{
	richstr_addn(rs, role, s, RICHSTR_MAX);
}

void richstr_addf(struct richstr *rs, enum ui_role role, const char *fmt, ...)
{
	char buf[RICHSTR_MAX + 1];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	richstr_add(rs, role, buf);
}

void richstr_pad(struct richstr *rs, enum ui_role role, int col)
{
	if (col > RICHSTR_MAX)
		col = RICHSTR_MAX;
	while (rs->len < col) {
		rs->ch[rs->len] = ' ';
		rs->role[rs->len++] = (uint8_t)role;
	}
	rs->ch[rs->len] = '\0';
}

void richstr_add_right(struct richstr *rs, enum ui_role role, const char *s, int width)
{
	int n = (int)strlen(s);

	if (n > width) {
		s += n - width;
		n = width;
	}
	richstr_pad(rs, role, rs->len + width - n);
	richstr_addn(rs, role, s, n);
}

void richstr_cut(struct richstr *rs, int at, int n)
{
	if (n <= 0 || at < 0 || at >= rs->len)
		return;
	if (n > rs->len - at)
		n = rs->len - at;
	memmove(rs->ch + at, rs->ch + at + n, (size_t)(rs->len - at - n) + 1);
	memmove(rs->role + at, rs->role + at + n, (size_t)(rs->len - at - n));
	rs->len -= n;
}

void richstr_truncate(struct richstr *rs, int width)
{
	if (width < 0)
		width = 0;
	if (rs->len > width) {
		rs->len = width;
		rs->ch[width] = '\0';
	}
}

void richstr_fit_words(struct richstr *rs, int width)
{
	int cut;

	if (width < 0)
		width = 0;
	if (rs->len <= width)
		return;
	/* a blank at the edge: the words before it are whole */
	for (cut = width; cut > 0 && rs->ch[cut] != ' '; cut--)
		;
	if (!cut)
		cut = width;	/* one word wider than the line */
	while (cut > 0 && rs->ch[cut - 1] == ' ')
		cut--;
	richstr_truncate(rs, cut);
}

void richstr_set_role(struct richstr *rs, int from, int to, enum ui_role role)
{
	if (from < 0)
		from = 0;
	for (int i = from; i < to && i < rs->len; i++)
		rs->role[i] = (uint8_t)role;
}

int richstr_wrap_len(const char *s, int n, int w)
{
	int cut;

	if (n <= w)
		return n;
	for (cut = w; cut > 0 && s[cut] != ' '; cut--)
		;
	return cut > 0 ? cut : w;
}

void richstr_add_keys(struct richstr *rs, const struct richstr_key *keys, size_t n,
		      enum ui_role text)
{
	for (size_t i = 0; i < n; i++) {
		richstr_add(rs, ROLE_FKEY, keys[i].key);
		richstr_add(rs, text, keys[i].text);
	}
}
