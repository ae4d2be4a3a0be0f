/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A streaming JSON writer: --json summaries, the Perfetto/Chrome JSON
 * export, anything else that speaks JSON. It places the commas and colons,
 * escapes strings, and writes to a FILE or to a growing buffer.
 *
 * Strings: JSON text is UTF-8 (RFC 8259), and ktop's strings are bytes from
 * the kernel (comm names, symbol names, event fields) that are UTF-8 most of
 * the time. So:
 *   - valid UTF-8 is copied byte for byte ("é" stays C3 A9, not \u00e9);
 *   - only what JSON requires is escaped: '"', '\\' and the control bytes
 *     below 0x20 (\b \f \n \r \t by name, the others as \u00XX); DEL (0x7f)
 *     is an ordinary character;
 *   - bytes that are not UTF-8 (a Latin-1 comm, a name cut in the middle of
 *     a character) become "\ufffd", one per maximal ill-formed subsequence,
 *     as the Unicode standard recommends (and as Python's
 *     bytes.decode("utf-8", "replace") does): the output is always valid
 *     JSON, and the replacement is visible, not a guess at a codepage.
 *
 * Errors (out of memory, a failed write, nesting past JSONW_MAX_DEPTH, a
 * close without its open, a key outside an object or a member without one)
 * are sticky: later calls do nothing and
 * jsonw_finish() returns the first one. So a writer needs one check, at the
 * end.
 *
 * Usage:
 *	struct jsonw w;
 *
 *	jsonw_init_file(&w, stdout);
 *	jsonw_obj_open(&w);
 *	jsonw_kv_str(&w, "comm", comm);
 *	jsonw_key(&w, "cpus");
 *	jsonw_arr_open(&w);
 *	for (...)
 *		jsonw_u64(&w, n);
 *	jsonw_arr_close(&w);
 *	jsonw_obj_close(&w);
 *	ret = jsonw_finish(&w);
 */
#ifndef KTOP_JSONW_H
#define KTOP_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSONW_MAX_DEPTH	64

struct jsonw {
	char		*buf;		/* FILE: output not yet written, else the document */
	size_t		len, cap;
	FILE		*fp;		/* NULL: a buffer writer */
	int		err;		/* the first error, 0 or -errno */
	unsigned int	depth;
	/* bit d: the container at depth d + 1 ... */
	uint64_t	nonempty;	/* has an element */
	uint64_t	object;		/* is an object */
	bool		after_key;	/* a key was written, its value comes next */
	bool		newline;	/* jsonw_newline(): '\n' before the next token */
};

/**
 * jsonw_init_file - a writer to @fp
 * @fp: the stream; it stays the caller's (jsonw_finish() does not close it)
 *
 * Output is gathered in the writer and handed to @fp in large pieces.
 */
void jsonw_init_file(struct jsonw *w, FILE *fp);

/* A writer to memory; take the document with jsonw_take(). */
void jsonw_init_buf(struct jsonw *w);

/**
 * jsonw_finish - end the document
 *
 * A FILE writer writes what is left (it does not fflush @fp) and frees its
 * buffer; a buffer writer keeps the document for jsonw_take(). Containers
 * still open are an error (-EINVAL), not closed silently.
 * Return: 0, or the first error: -ENOMEM, -EINVAL, or the errno of the write.
 */
int jsonw_finish(struct jsonw *w);

/**
 * jsonw_take - the document of a buffer writer
 * @lenp: its length in bytes; may be NULL
 *
 * Return: the NUL-terminated document (the caller frees it), or NULL after an
 * error or for a FILE writer. The writer is empty afterwards.
 */
char *jsonw_take(struct jsonw *w, size_t *lenp);

/* Free what the writer holds; safe after jsonw_finish() or jsonw_take(). */
void jsonw_destroy(struct jsonw *w);

void jsonw_obj_open(struct jsonw *w);
void jsonw_obj_close(struct jsonw *w);
void jsonw_arr_open(struct jsonw *w);
void jsonw_arr_close(struct jsonw *w);

/* An object member's name; its value is the next thing written. */
void jsonw_key(struct jsonw *w, const char *key);

/* A string, escaped as described above; NULL writes null. */
void jsonw_str(struct jsonw *w, const char *s);

/* @len bytes of @s, which may hold NULs (written as \u0000). */
void jsonw_strn(struct jsonw *w, const char *s, size_t len);

void jsonw_u64(struct jsonw *w, uint64_t v);
void jsonw_i64(struct jsonw *w, int64_t v);
void jsonw_bool(struct jsonw *w, bool v);
void jsonw_null(struct jsonw *w);

/**
 * jsonw_double - a number with @decimals digits after the point ("%.*f")
 *
 * NaN and the infinities, which JSON cannot say, are written as null.
 */
void jsonw_double(struct jsonw *w, double v, int decimals);

/**
 * jsonw_fixed - @v / 10^@decimals, exactly, with all @decimals digits
 *
 * For integer units shown in a larger one without floating point: ns as
 * microseconds is jsonw_fixed(w, ns, 3) -> 1234.567.
 */
void jsonw_fixed(struct jsonw *w, uint64_t v, unsigned int decimals);

/**
 * jsonw_raw - a value that is already JSON text, written as it is
 *
 * The caller answers for it being one valid JSON value.
 */
void jsonw_raw(struct jsonw *w, const char *json, size_t len);

/**
 * jsonw_newline - put a line break before the next token
 *
 * For documents read line by line: before each element of a large array
 * (after its comma), before the closing bracket, or, at depth 0, at the end.
 */
void jsonw_newline(struct jsonw *w);

/**
 * jsonw_str_fp - a JSON string straight to @fp, escaped as jsonw_str() does
 * @s: NULL writes null
 *
 * For writers that print the rest of their JSON themselves (the Chrome
 * trace export, --json's summaries): one escaper for all of ktop. A string
 * that needs no escaping is one fwrite().
 */
void jsonw_str_fp(FILE *fp, const char *s);

/* key and value in one call */
void jsonw_kv_str(struct jsonw *w, const char *key, const char *s);
void jsonw_kv_u64(struct jsonw *w, const char *key, uint64_t v);
void jsonw_kv_i64(struct jsonw *w, const char *key, int64_t v);
void jsonw_kv_double(struct jsonw *w, const char *key, double v, int decimals);
void jsonw_kv_bool(struct jsonw *w, const char *key, bool v);

#endif
