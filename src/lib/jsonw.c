// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The JSON writer (see jsonw.h). Everything goes through one buffer: a FILE
 * writer hands it to the stream whenever it holds JSONW_FLUSH bytes, so the
 * many small pieces of a document cost a memcpy each, not a stdio call.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"

#define JSONW_FLUSH	(64u << 10)

static void jw_fail(struct jsonw *w, int err)
{
	if (!w->err)
		w->err = err;
}

static void jw_flush(struct jsonw *w)
{
	if (!w->fp || !w->len)
		return;
	errno = 0;
	if (!w->err && fwrite(w->buf, 1, w->len, w->fp) != w->len)
		jw_fail(w, errno ? -errno : -EIO);
	w->len = 0;
}

/* Room for @n more bytes (and a NUL). Return: where to write them, or NULL. */
static char *jw_room(struct jsonw *w, size_t n)
{
	size_t cap;
	char *nb;

	if (w->err)
		return NULL;
	if (w->cap - w->len > n)
		return w->buf + w->len;
	if (w->fp && w->len) {
		jw_flush(w);
		if (w->err)
			return NULL;
		if (w->cap > n)
			return w->buf;
	}
	cap = w->cap ? w->cap : (w->fp ? JSONW_FLUSH : 256);
	while (cap - w->len <= n) {
		if (cap > SIZE_MAX / 2) {
			jw_fail(w, -ENOMEM);
			return NULL;
		}
		cap *= 2;
	}
	nb = realloc(w->buf, cap);
	if (!nb) {
		jw_fail(w, -ENOMEM);
		return NULL;
	}
	w->buf = nb;
	w->cap = cap;
	return w->buf + w->len;
}

static void jw_put(struct jsonw *w, const void *p, size_t n)
{
	char *d = jw_room(w, n);

	if (!d)
		return;
	memcpy(d, p, n);
	w->len += n;
	if (w->fp && w->len >= JSONW_FLUSH)
		jw_flush(w);
}

static void jw_putc(struct jsonw *w, char c)
{
	jw_put(w, &c, 1);
}

static void jw_pending_newline(struct jsonw *w)
{
	if (w->newline) {
		w->newline = false;
		jw_putc(w, '\n');
	}
}

/* The comma before the next element of the current container, if any, and a pending newline. */
static void jw_sep(struct jsonw *w)
{
	if (w->depth) {
		uint64_t bit = 1ull << (w->depth - 1);

		if (w->nonempty & bit)
			jw_putc(w, ',');
		w->nonempty |= bit;
	}
	jw_pending_newline(w);
}

static bool jw_in_object(const struct jsonw *w)
{
	return w->depth && (w->object >> (w->depth - 1) & 1);
}

/* Before any value: after its key in an object, else after a comma. */
static void jw_value(struct jsonw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (jw_in_object(w)) {
		jw_fail(w, -EINVAL);	/* a member without a name */
		return;
	}
	jw_sep(w);
}

void jsonw_init_file(struct jsonw *w, FILE *fp)
{
	memset(w, 0, sizeof(*w));
	w->fp = fp;
}

void jsonw_init_buf(struct jsonw *w)
{
	memset(w, 0, sizeof(*w));
}

int jsonw_finish(struct jsonw *w)
{
	if (w->depth || w->after_key)
		jw_fail(w, -EINVAL);
	jw_pending_newline(w);
	if (w->fp) {
		jw_flush(w);
		if (!w->err && ferror(w->fp))
			jw_fail(w, -EIO);
		free(w->buf);
		w->buf = NULL;
		w->len = w->cap = 0;
	} else if (jw_room(w, 0)) {
		w->buf[w->len] = '\0';
	}
	return w->err;
}

char *jsonw_take(struct jsonw *w, size_t *lenp)
{
	char *doc = NULL;

	if (!w->fp && !w->err && jw_room(w, 0)) {
		w->buf[w->len] = '\0';
		doc = w->buf;
		if (lenp)
			*lenp = w->len;
		w->buf = NULL;
		w->len = w->cap = 0;
	}
	return doc;
}

void jsonw_destroy(struct jsonw *w)
{
	free(w->buf);
	w->buf = NULL;
	w->len = w->cap = 0;
}

static void jw_open(struct jsonw *w, char c)
{
	uint64_t bit;

	jw_value(w);
	if (w->depth == JSONW_MAX_DEPTH) {
		jw_fail(w, -EINVAL);
		return;
	}
	bit = 1ull << w->depth++;
	w->nonempty &= ~bit;
	if (c == '{')
		w->object |= bit;
	else
		w->object &= ~bit;
	jw_putc(w, c);
}

static void jw_close(struct jsonw *w, char c)
{
	if (!w->depth || w->after_key || jw_in_object(w) != (c == '}')) {
		jw_fail(w, -EINVAL);
		return;
	}
	w->depth--;
	jw_pending_newline(w);
	jw_putc(w, c);
}

void jsonw_obj_open(struct jsonw *w)
{
	jw_open(w, '{');
}

void jsonw_obj_close(struct jsonw *w)
{
	jw_close(w, '}');
}

void jsonw_arr_open(struct jsonw *w)
{
	jw_open(w, '[');
}

void jsonw_arr_close(struct jsonw *w)
{
	jw_close(w, ']');
}

/*
 * The length of the well-formed UTF-8 sequence at @s (Unicode table 3-7), or
 * 0 with *@bad set to the length of its maximal ill-formed subpart (>= 1).
 */
static size_t utf8_seq(const unsigned char *s, size_t n, size_t *bad)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t need, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		need = 1;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 2;
		if (s[0] == 0xe0)
			lo = 0xa0;
		else if (s[0] == 0xed)
			hi = 0x9f;	/* no surrogates */
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 3;
		if (s[0] == 0xf0)
			lo = 0x90;
		else if (s[0] == 0xf4)
			hi = 0x8f;	/* nothing past U+10FFFF */
	} else {
		*bad = 1;
		return 0;
	}
	for (i = 1; i <= need; i++) {
		if (i >= n || s[i] < lo || s[i] > hi) {
			*bad = i;
			return 0;
		}
		lo = 0x80;
		hi = 0xbf;
	}
	return need + 1;
}

/* Does byte @c need more than a copy? */
static inline bool jw_special(unsigned char c)
{
	return c < 0x20 || c == '"' || c == '\\' || c >= 0x80;
}

/* The bytes JSON escapes with a letter (RFC 8259, 7); other controls are \u00XX. */
static const char short_esc[0x80] = {
	['"'] = '"', ['\\'] = '\\', ['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n', ['\r'] = 'r',
	['\t'] = 't',
};

static void jw_escape(struct jsonw *w, const unsigned char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0, run, seq, bad;

	while (i < n) {
		unsigned char c = s[i];

		for (run = i; run < n && !jw_special(s[run]); run++)
			;
		if (run > i) {
			jw_put(w, s + i, run - i);
			i = run;
			continue;
		}
		if (c >= 0x80) {
			seq = utf8_seq(s + i, n - i, &bad);
			if (seq) {
				jw_put(w, s + i, seq);
				i += seq;
			} else {
				jw_put(w, "\\ufffd", 6);
				i += bad;
			}
			continue;
		}
		if (short_esc[c]) {
			char e[2] = { '\\', short_esc[c] };

			jw_put(w, e, 2);
		} else {
			char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

			jw_put(w, u, 6);
		}
		i++;
	}
}

static void jw_string(struct jsonw *w, const char *s, size_t n)
{
	jw_putc(w, '"');
	jw_escape(w, (const unsigned char *)s, n);
	jw_putc(w, '"');
}

void jsonw_str_fp(FILE *fp, const char *s)
{
	size_t n, i;
	struct jsonw w;

	if (!s) {
		fputs("null", fp);
		return;
	}
	n = strlen(s);
	for (i = 0; i < n && !jw_special((unsigned char)s[i]); i++)
		;
	if (i == n) {
		fputc('"', fp);
		fwrite(s, 1, n, fp);
		fputc('"', fp);
		return;
	}
	jsonw_init_buf(&w);
	jw_string(&w, s, n);
	if (!w.err)
		fwrite(w.buf, 1, w.len, fp);
	jsonw_destroy(&w);
}

void jsonw_key(struct jsonw *w, const char *key)
{
	if (w->after_key || !jw_in_object(w)) {
		jw_fail(w, -EINVAL);
		return;
	}
	jw_sep(w);
	jw_string(w, key, strlen(key));
	jw_putc(w, ':');
	w->after_key = true;
}

void jsonw_strn(struct jsonw *w, const char *s, size_t len)
{
	jw_value(w);
	jw_string(w, s, len);
}

void jsonw_str(struct jsonw *w, const char *s)
{
	if (!s) {
		jsonw_null(w);
		return;
	}
	jsonw_strn(w, s, strlen(s));
}

/* Decimal digits of @v, at the end of @end. Return: where they begin. */
static char *jw_digits(char *end, uint64_t v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

void jsonw_u64(struct jsonw *w, uint64_t v)
{
	char b[24], *p = jw_digits(b + sizeof(b), v);

	jw_value(w);
	jw_put(w, p, b + sizeof(b) - p);
}

void jsonw_i64(struct jsonw *w, int64_t v)
{
	char b[24], *p = jw_digits(b + sizeof(b), v < 0 ? -(uint64_t)v : (uint64_t)v);

	if (v < 0)
		*--p = '-';
	jw_value(w);
	jw_put(w, p, b + sizeof(b) - p);
}

void jsonw_fixed(struct jsonw *w, uint64_t v, unsigned int decimals)
{
	char b[48], *end = b + sizeof(b), *p = end;

	if (decimals > 19)
		decimals = 19;
	for (unsigned int i = 0; i < decimals; i++) {
		*--p = (char)('0' + v % 10);
		v /= 10;
	}
	if (decimals)
		*--p = '.';
	p = jw_digits(p, v);
	jw_value(w);
	jw_put(w, p, end - p);
}

void jsonw_double(struct jsonw *w, double v, int decimals)
{
	char b[64];
	int n;

	if (!isfinite(v)) {
		jsonw_null(w);
		return;
	}
	if (decimals < 0)
		decimals = 0;
	else if (decimals > 17)
		decimals = 17;
	n = snprintf(b, sizeof(b), "%.*f", decimals, v);
	if (n < 0 || (size_t)n >= sizeof(b)) {
		/* beyond 1e46: the shortest exact form, which JSON also reads */
		n = snprintf(b, sizeof(b), "%.17g", v);
	}
	jw_value(w);
	jw_put(w, b, (size_t)n);
}

void jsonw_bool(struct jsonw *w, bool v)
{
	jw_value(w);
	jw_put(w, v ? "true" : "false", v ? 4 : 5);
}

void jsonw_null(struct jsonw *w)
{
	jw_value(w);
	jw_put(w, "null", 4);
}

void jsonw_raw(struct jsonw *w, const char *json, size_t len)
{
	jw_value(w);
	jw_put(w, json, len);
}

void jsonw_newline(struct jsonw *w)
{
	w->newline = true;
}

void jsonw_kv_str(struct jsonw *w, const char *key, const char *s)
{
	jsonw_key(w, key);
	jsonw_str(w, s);
}

void jsonw_kv_u64(struct jsonw *w, const char *key, uint64_t v)
{
	jsonw_key(w, key);
	jsonw_u64(w, v);
}

void jsonw_kv_i64(struct jsonw *w, const char *key, int64_t v)
{
	jsonw_key(w, key);
	jsonw_i64(w, v);
}

void jsonw_kv_double(struct jsonw *w, const char *key, double v, int decimals)
{
	jsonw_key(w, key);
	jsonw_double(w, v, decimals);
}

void jsonw_kv_bool(struct jsonw *w, const char *key, bool v)
{
	jsonw_key(w, key);
	jsonw_bool(w, v);
}
