// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * symbols_lookup against libtraceevent's own kallsyms resolution
 * (tep_parse_kallsyms + tep_find_function_address) on the fixtures' kallsyms
 * and, when readable with real addresses, on this machine's /proc/kallsyms.
 * Where several names share a start address any of them is right, so names
 * are checked against the file's own list for that address.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "ingest/fixture.h"
#include "kernel/symbols.h"
#include "test.h"

/* The file's lines by address, read with nothing but strtoull. */
struct line {
	uint64_t	addr;
	const char	*name;	/* after "ADDR T " */
};

static struct line *lines;
static size_t nlines;

static int line_cmp(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void index_file(const char *text)
{
	size_t cap = 0;

	nlines = 0;
	for (const char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		char *end;
		uint64_t a = strtoull(l, &end, 16);

		if (end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		if (nlines == cap) {
			cap = cap ? 2 * cap : 4096;
			lines = realloc(lines, cap * sizeof(*lines));
		}
		lines[nlines].addr = a;
		lines[nlines].name = end + 3;
		nlines++;
	}
	qsort(lines, nlines, sizeof(*lines), line_cmp);
}

/* Is @name one of the names the file gives for @start? */
static bool file_has(uint64_t start, const char *name)
{
	struct line key = { .addr = start }, *l;
	size_t len = strlen(name);

	l = bsearch(&key, lines, nlines, sizeof(*lines), line_cmp);
	if (!l)
		return false;
	while (l > lines && l[-1].addr == start)
		l--;
	for (; l < lines + nlines && l->addr == start; l++)
		if (!strncmp(l->name, name, len) && strchr("\n\t \0", l->name[len]))
			return true;
	return false;
}

struct probe {
	uint64_t	checked;
	char		fail[256];
};

static int probe_addr(struct symbols *s, struct tep_handle *tep, uint64_t addr,
		      struct probe *pr)
{
	unsigned long long tstart = tep_find_function_address(tep, addr);
	const char *tname = tep_find_function(tep, addr);
	uint64_t off = 0;
	const char *name = symbols_lookup(s, addr, &off);

	if (!tname)
		return 0;	/* libtraceevent has no answer to compare with */
	if (!name || addr - off != tstart || !file_has(tstart, name)) {
		snprintf(pr->fail, sizeof(pr->fail), "%#llx: got %s+%#llx, libtraceevent %s at %#llx",
			 (unsigned long long)addr, name ? name : "(null)", (unsigned long long)off,
			 tname, tstart);
		return 1;
	}
	pr->checked++;
	return 0;
}

/* Every start, start+1 and midpoint of the text symbols in @path. */
static int check_file(const char *path, unsigned int stride, struct probe *pr)
{
	struct tep_handle *tep = tep_alloc();
	char *text = fixture_read_file(path, NULL);
	struct symbols *s = symbols_load(path);
	uint64_t prev = 0;
	unsigned int i = 0;
	int bad = 0;

	if (!tep || !text || !s) {
		snprintf(pr->fail, sizeof(pr->fail), "%s: load failed: %s", path, strerror(errno));
		bad = 1;
		goto out;
	}
	tep_parse_kallsyms(tep, text);
	index_file(text);
	for (const char *l = text; *l && !bad; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
		uint64_t a = strtoull(l, NULL, 16);
		char type = l[17];

		if ((type != 't' && type != 'T') || i++ % stride)
			continue;
		bad |= probe_addr(s, tep, a, pr);
		bad |= !bad && probe_addr(s, tep, a + 1, pr);
		if (!bad && prev && prev < a)
			bad |= probe_addr(s, tep, prev + (a - prev) / 2, pr);
		prev = a;
	}
out:
	symbols_free(s);
	free(text);
	if (tep)
		tep_free(tep);
	return bad;
}

TEST(fixture_kallsyms_like_libtraceevent)
{
	struct dirent *de;
	struct probe pr = { 0 };
	DIR *d = opendir(fixture_root());
	int files = 0;
	size_t len = 0;

	CHECK(d);
	while ((de = readdir(d))) {
		char path[600];

		if (strncmp(de->d_name, "host-", 5) && strncmp(de->d_name, "rt", 2))
			continue;
		snprintf(path, sizeof(path), "%.200s/%.200s/kallsyms", fixture_root(), de->d_name);
		if (access(path, R_OK))
			continue;
		free(fixture_read_file(path, &len));
		if (!len)
			continue;	/* no addresses in those records (sched, syscalls) */
		if (check_file(path, 1, &pr))
			printf("  %s\n", pr.fail);
		CHECK(!pr.fail[0]);
		files++;
	}
	closedir(d);
	printf("  %d files, %llu addresses agree\n", files, (unsigned long long)pr.checked);
	CHECK(files > 0 && pr.checked > 0);
}

TEST(proc_kallsyms_like_libtraceevent)
{
	struct probe pr = { 0 };
	struct symbols *s = symbols_load("/proc/kallsyms");

	if (!s) {
		/* unprivileged: every address reads as zero, which must be said as EACCES */
		printf("  /proc/kallsyms without addresses here (%s)\n", strerror(errno));
		CHECK(errno == EACCES);
		return;
	}
	symbols_free(s);
	if (check_file("/proc/kallsyms", 13, &pr))
		printf("  %s\n", pr.fail);
	CHECK(!pr.fail[0]);
	printf("  %llu addresses agree\n", (unsigned long long)pr.checked);
	CHECK(pr.checked > 1000);
}

TEST(zero_addresses_are_eacces)
{
	char path[] = "/tmp/ktop-test-kallsyms-XXXXXX";
	int fd = mkstemp(path);
	static const char zeros[] = "0000000000000000 T _stext\n0000000000000000 t foo\n";
	struct symbols *s;

	CHECK(fd >= 0);
	CHECK(write(fd, zeros, sizeof(zeros) - 1) == (ssize_t)sizeof(zeros) - 1);
	close(fd);
	errno = 0;
	s = symbols_load(path);
	unlink(path);
	CHECK(!s && errno == EACCES);
	CHECK(!symbols_load("/nonexistent/kallsyms") && errno == ENOENT);
	CHECK(!symbols_lookup(NULL, 0x1000, NULL));
}

TEST_MAIN()
