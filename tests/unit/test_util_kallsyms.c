// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/kernel/symbols.c as ktop's one kallsyms reader: the line splitter on real
 * lines (a module's, an absolute symbol's), text and file giving the same
 * table, and name -> address on every name of the fixtures' kallsyms and of
 * this machine's, against a plain scan of the file (the lowest address of
 * each name), with and without the name index. Address -> name is
 * test_symbols.c's, against libtraceevent.
 */
#include <dirent.h>
#include <errno.h>
#include "lib/clock.h"
#include "lib/file.h"
#include "ingest/fixture.h"
#include "kernel/symbols.h"
#include "test.h"

TEST(line_split)
{
	static const char mod[] = "ffffffffc0201000 t ftrace_trampoline\t[__builtin__ftrace]\n";
	struct symbols_line l;

	CHECK(symbols_parse_line(mod, sizeof(mod) - 2, &l));
	CHECK(l.addr == 0xffffffffc0201000ull && l.type == 't');
	CHECK(l.name_len == 17 && !strncmp(l.name, "ftrace_trampoline", 17));
	CHECK(l.module_len == 17 && !strncmp(l.module, "__builtin__ftrace", 17));
	CHECK(symbols_parse_line("000000000003a000 A __per_cpu_end", 32, &l));
	CHECK(l.addr == 0x3a000 && l.type == 'A' && l.name_len == 13 && !l.module_len);
	/* the length bounds the line: what follows is not read */
	CHECK(symbols_parse_line("ffffffff84a00000 T _stext_and_more", 25, &l));
	CHECK(l.name_len == 6 && !strncmp(l.name, "_stext", 6));
	CHECK(!symbols_parse_line("ffffffff84a00000 T ", 19, &l));
	CHECK(!symbols_parse_line("ffffffff84a00000  T x", 21, &l));
	CHECK(!symbols_parse_line("zz T x", 6, &l));
	CHECK(!symbols_parse_line("1ffffffff84a00000 T x", 21, &l));	/* 65 bits */
	CHECK(!symbols_parse_line("", 0, &l));
}

/* The lowest address of @name among the file's lines, as a plain scan finds it. */
static uint64_t scan_addr(const char *text, const char *name)
{
	size_t len = strlen(name);
	uint64_t best = 0;

	for (const char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		char *end;
		uint64_t a = strtoull(l, &end, 16);

		if (end[0] != ' ' || !end[1] || strchr("aAuU", end[1]) || end[2] != ' ')
			continue;
		if (!strncmp(end + 3, name, len) && strchr("\n\t ", end[3 + len]) &&
		    (!best || a < best))
			best = a;
	}
	return best;
}

struct tally {
	unsigned long	names, files;
	char		fail[768];
};

/* Every name of @text, with @flags; @stride: every Nth line only. */
static int check_names(const char *what, const char *text, size_t len, unsigned int flags,
		       unsigned int stride, struct tally *t)
{
	struct symbols *s = symbols_parse(text, len, flags);
	unsigned int i = 0;
	int bad = 0;

	if (!s) {
		snprintf(t->fail, sizeof(t->fail), "%s: %s", what, strerror(errno));
		return 1;
	}
	for (const char *l = text; *l && !bad; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		struct symbols_line sl;
		char name[256];
		uint64_t got, want;

		if (i++ % stride || !symbols_parse_line(l, strcspn(l, "\n"), &sl) ||
		    strchr("aAuU", sl.type) || sl.name_len >= sizeof(name))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)sl.name_len, sl.name);
		got = symbols_addr(s, name);
		want = scan_addr(text, name);
		if (got != want) {
			snprintf(t->fail, sizeof(t->fail), "%s: %s at %#llx, the file says %#llx",
				 what, name, (unsigned long long)got, (unsigned long long)want);
			bad = 1;
		}
		t->names++;
	}
	if (!bad && (symbols_addr(s, "no_such_symbol_here") ||
		     symbols_addr(s, "0xffffffff81000010") != 0xffffffff81000010ull)) {
		snprintf(t->fail, sizeof(t->fail), "%s: unknown or 0x names", what);
		bad = 1;
	}
	symbols_free(s);
	return bad;
}

TEST(fixture_names_to_lowest_address)
{
	struct dirent *de;
	struct tally t = { 0 };
	DIR *d = opendir(fixture_root());

	CHECK(d);
	while ((de = readdir(d))) {
		char path[600], *text;
		size_t len;

		snprintf(path, sizeof(path), "%.200s/%.200s/kallsyms", fixture_root(), de->d_name);
		if (file_read(path, FILE_NO_MAX, &text, &len) || !len) {
			free(text);	/* NULL when there is no such file */
			continue;
		}
		CHECK(!check_names(path, text, len, SYMBOLS_BY_NAME, 1, &t) &&
		      !check_names(path, text, len, 0, 1, &t));
		t.files++;
		free(text);
	}
	closedir(d);
	if (t.fail[0])
		printf("  %s\n", t.fail);
	printf("  %lu files, %lu names\n", t.files, t.names);
	CHECK(t.files > 5 && t.names > 1000);
}

/* From a file and from its text: the same table. */
TEST(load_is_parse_of_the_file)
{
	char path[600], *text;
	struct symbols *a, *b;
	size_t len;

	snprintf(path, sizeof(path), "%s/rt612-fgraph/kallsyms", fixture_root());
	CHECK(file_read(path, FILE_NO_MAX, &text, &len) == 0);
	a = symbols_load(path);
	b = symbols_parse(text, len, SYMBOLS_BY_NAME);
	CHECK(a && b && symbols_count(a) == symbols_count(b) && symbols_count(a) > 100);
	for (const char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		uint64_t addr = strtoull(l, NULL, 16), oa = 1, ob = 2;

		for (uint64_t d = 0; d < 64; d += 7) {
			const char *na = symbols_lookup(a, addr + d, &oa);
			const char *nb = symbols_lookup(b, addr + d, &ob);

			CHECK(na == nb ? !na : na && nb && !strcmp(na, nb) && oa == ob);
		}
	}
	symbols_free(a);
	symbols_free(b);
	free(text);
}

struct scan_tally {
	size_t		lines, stop_at;
	const char	*text;		/* the file's text: each line must be the next of it */
	bool		bad;
};

static int scan_line(const struct symbols_line *sl, const char *line, size_t len, void *arg)
{
	struct scan_tally *t = arg;
	const char *p = t->text ? strstr(t->text, line) : NULL;

	/* the lines come whole, in order, the split pointing into them */
	t->bad |= !p || line[len - 1] != '\n' || sl->name < line || sl->name >= line + len;
	t->text = p ? p + len : NULL;
	t->lines++;
	return t->lines == t->stop_at ? 7 : 0;
}

/* symbols_scan: every symbol line of the file, as symbols_parse_line() splits it. */
TEST(scan_sees_every_symbol_line)
{
	struct scan_tally t = { 0 };
	struct symbols_line sl;
	size_t want = 0;
	char path[600], *text;
	size_t len;

	snprintf(path, sizeof(path), "%s/rt612-fgraph/kallsyms", fixture_root());
	CHECK(file_read(path, FILE_NO_MAX, &text, &len) == 0);
	for (const char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "")
		want += symbols_parse_line(l, strcspn(l, "\n"), &sl);
	t.text = text;
	CHECK(symbols_scan(path, scan_line, &t) == 0);
	CHECK(!t.bad && t.lines == want && want > 100);
	/* a nonzero return stops the scan and is what it returns */
	t = (struct scan_tally){ .text = text, .stop_at = 3 };
	CHECK(symbols_scan(path, scan_line, &t) == 7 && t.lines == 3);
	CHECK(symbols_scan("/nonexistent/kallsyms", scan_line, &t) == -ENOENT);
	free(text);
}

/* This machine's kallsyms (as root: real addresses), every 97th name. */
TEST(proc_kallsyms_names)
{
	struct tally t = { 0 };
	struct symbols *s;
	uint64_t t0, t1;
	char *text;
	size_t len;

	CHECK(file_read("/proc/kallsyms", FILE_NO_MAX, &text, &len) == 0);
	t0 = clock_mono_ns();
	s = symbols_parse(text, len, SYMBOLS_BY_NAME);
	t1 = clock_mono_ns();
	if (!s) {
		printf("  /proc/kallsyms without addresses here (%s)\n", strerror(errno));
		CHECK(errno == EACCES);
		free(text);
		return;
	}
	printf("  %zu symbols, parsed and indexed by name in %.1f ms\n", symbols_count(s),
	       (double)(t1 - t0) / 1e6);
	CHECK(symbols_addr(s, "_stext") == scan_addr(text, "_stext"));
	symbols_free(s);
	CHECK(!check_names("/proc/kallsyms", text, len, SYMBOLS_BY_NAME, 97, &t));
	if (t.fail[0])
		printf("  %s\n", t.fail);
	CHECK(t.names > 1000);
	free(text);
}

TEST(errors)
{
	static const char zeros[] = "0000000000000000 T _stext\n0000000000000000 t foo\n";

	errno = 0;
	CHECK(!symbols_parse(zeros, sizeof(zeros) - 1, 0) && errno == EACCES);
	CHECK(!symbols_parse("", 0, 0) && errno == ENOENT);
	CHECK(!symbols_parse("not kallsyms\n", 13, 0) && errno == ENOENT);
	CHECK(!symbols_load("/nonexistent/kallsyms") && errno == ENOENT);
	CHECK(symbols_addr(NULL, "x") == 0 && symbols_addr(NULL, "0x10") == 0x10);
	CHECK(symbols_count(NULL) == 0);
}

TEST_MAIN()
