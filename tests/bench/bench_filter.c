// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The filter prompt (src/funcfilter/funcfilter.c) against the available_filter_functions
 * recorded from Debian's 6.12-rt (42,485 functions, tests/fixtures/rt-filter):
 *
 *   filter.preview_keystroke   worst preview time while typing a regex that
 *                              ends up matching ~10k functions, one keystroke
 *                              at a time (target <= 20 ms)
 *   filter.preview_full        the complete line's preview; anchor: the same
 *                              count with POSIX regexec(3)
 *   filter.glob_preview        a glob of the same size
 *   filter.resolve_format      user-space part of applying it: resolve, and
 *                              format the index-form write buffer
 *   filter.complete            Tab on a 3-letter prefix
 *
 * Writing to the kernel is timed in the qemu guest (tests/vm/guest/
 * scenario-07-filter-prompt.sh prints "bench filter_apply.*" lines in its
 * log), because this host refuses set_ftrace_filter.
 */
#include <fnmatch.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "funcfilter/funcfilter.h"

#define REGEX	"/_(read|write|lock|alloc|free|init|get|put|set)/"
#define GLOB	"*_*lock*"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static char *load(const char *path, size_t *len)
{
	size_t cap = 1 << 20;
	char *buf = malloc(cap);
	gzFile gz = gzopen(path, "rb");
	int r;

	*len = 0;
	if (!gz || !buf) {
		free(buf);
		return NULL;
	}
	while ((r = gzread(gz, buf + *len, (unsigned int)(cap - *len))) > 0) {
		*len += (size_t)r;
		if (*len == cap)
			buf = realloc(buf, cap *= 2);
	}
	gzclose(gz);
	return buf;
}

int main(void)
{
	const char *root = getenv("KTOP_FIXTURES") ? getenv("KTOP_FIXTURES") : "tests/fixtures";
	struct funcfilter_preview pv;
	struct funcfilter_funcs *ff;
	struct funcfilter_completion c;
	char path[512], line[256], *text;
	double worst = 0, sum = 0, t0, full, anchor, c0, cworst = 0;
	size_t len, n, keys = strlen(REGEX), matched = 0;
	regex_t re;

	snprintf(path, sizeof(path), "%s/rt-filter/rt612/available_filter_functions.gz", root);
	text = load(path, &len);
	if (!text) {
		printf("cannot read %s\n", path);
		return 1;
	}
	t0 = now_ms();
	ff = funcfilter_funcs_parse(text, len);
	printf("bench filter.load %.1f ms (%zu functions, index + sort)\n", now_ms() - t0,
	       funcfilter_funcs_count(ff));
	n = funcfilter_funcs_count(ff);

	/* typing the regex one key at a time */
	for (size_t k = 1; k <= keys; k++) {
		double d;

		snprintf(line, sizeof(line), "%.*s", (int)k, REGEX);
		t0 = now_ms();
		c0 = cpu_ms();
		funcfilter_preview_line(ff, line, NULL, &pv);
		d = now_ms() - t0;
		sum += d;
		if (d > worst)
			worst = d;
		if (cpu_ms() - c0 > cworst)
			cworst = cpu_ms() - c0;
	}
	t0 = now_ms();
	for (int i = 0; i < 10; i++)
		funcfilter_preview_line(ff, REGEX, NULL, &pv);
	full = (now_ms() - t0) / 10;
	printf("bench filter.preview_keystroke %.2f ms (worst wall time of %zu keystrokes, mean "
	       "%.2f, worst CPU time %.2f ms; final line matches %zu of %zu)\n", worst, keys,
	       sum / (double)keys, cworst, pv.count, n);
	printf("bench filter.preview_keystroke_cpu %.2f ms (worst thread CPU time per keystroke:"
	       " the figure without the other load of this shared machine)\n", cworst);
	printf("bench filter.preview_full %.2f ms (%s: %zu of %zu functions)\n", full, REGEX,
	       pv.count, n);

	/* anchor: POSIX regexec over the same names */
	snprintf(line, sizeof(line), "%.*s", (int)(strlen(REGEX) - 2), REGEX + 1);
	if (regcomp(&re, line, REG_EXTENDED | REG_NOSUB))
		return 1;
	t0 = now_ms();
	for (size_t i = 0; i < n; i++)
		matched += !regexec(&re, funcfilter_funcs_name(ff, i), 0, NULL, 0);
	anchor = now_ms() - t0;
	regfree(&re);
	printf("bench filter.preview_full.anchor %.2f ms (POSIX regexec over the same %zu names,"
	       " %zu matches)\n", anchor, n, matched);
	if (matched != pv.count)
		printf("MISMATCH: pcre2 %zu, regexec %zu\n", pv.count, matched);

	t0 = now_ms();
	funcfilter_preview_line(ff, GLOB, NULL, &pv);
	printf("bench filter.glob_preview %.2f ms (%s: %zu functions)\n", now_ms() - t0, GLOB,
	       pv.count);
	matched = 0;
	t0 = now_ms();
	for (size_t i = 0; i < n; i++)
		matched += !fnmatch(GLOB, funcfilter_funcs_name(ff, i), 0);
	printf("bench filter.glob_preview.anchor %.2f ms (fnmatch(3), %zu matches)\n",
	       now_ms() - t0, matched);

	/* what applying costs before the kernel: resolve + format the write */
	{
		struct funcfilter_spec *sp;
		struct err_pos err;
		struct funcfilter_set set;
		char *buf = malloc(n * 8 + 1), *bn = malloc(len + 1);
		size_t at = 0, atn = 0;

		t0 = now_ms();
		funcfilter_spec_parse(&sp, REGEX, ff, &err);
		funcfilter_set_init(&set, n);
		funcfilter_spec_resolve(sp, ff, FUNCFILTER_T_FILTER, NULL, &set, &err);
		for (size_t i = funcfilter_set_next(&set, 0); i != SIZE_MAX;
		     i = funcfilter_set_next(&set, i + 1))
			at += (size_t)sprintf(buf + at, "%zu ", i + 1);
		printf("bench filter.resolve_format %.2f ms (%zu functions, %zu bytes of "
		       "indexes)\n", now_ms() - t0, funcfilter_set_count(&set), at);
		t0 = now_ms();
		for (size_t i = funcfilter_set_next(&set, 0); i != SIZE_MAX;
		     i = funcfilter_set_next(&set, i + 1))
			atn += (size_t)sprintf(bn + atn, "%s ", funcfilter_funcs_name(ff, i));
		printf("bench filter.resolve_format.anchor %zu B (the same functions as names: "
		       "the bytes the kernel would strcmp against every record)\n", atn);
		free(buf);
		free(bn);
		funcfilter_set_destroy(&set);
		funcfilter_spec_free(sp);
	}

	t0 = now_ms();
	for (int i = 0; i < 100; i++)
		funcfilter_complete(ff, "-g vfs", 6, &c);
	printf("bench filter.complete %.3f ms (Tab on 'vfs': %zu candidates, prefix '%s')\n",
	       (now_ms() - t0) / 100, c.ncand, c.prefix);
	funcfilter_funcs_free(ff);
	free(text);
	return 0;
}
