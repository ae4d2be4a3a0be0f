// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The command line's -l, -n, -g (src/kernel/funcfilter_cmdline.h) in the filter prompt's
 * language, applied to a directory laid out like a tracefs instance whose
 * available_filter_functions is the one recorded from Debian's 6.12-rt kernel
 * (tests/fixtures/rt-filter). Expected sets come from independent matchers:
 * POSIX regcomp(3) for regexes, fnmatch(3) for globs.
 */
#include <errno.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "fake_tracefs.h"
#include "lib/file.h"
#include "kernel/funcfilter_cmdline.h"
#include "ingest/fixture.h"
#include "kernel/session.h"

static char *funcs;	/* the recorded list */

/* Set up fake_root: top/ (the list, error_log) and top/instances/k/ (the set_* files). */
static bool fake_tracefs(void)
{
	char path[600];
	size_t len;

	snprintf(fake_root, sizeof(fake_root), "/tmp/ktop-test-fcl.%d", (int)getpid());
	if (mkdir(fake_root, 0700))
		return false;
	snprintf(path, sizeof(path), "%s/rt-filter/rt612/available_filter_functions.gz",
		 fixture_root());
	if (!funcs && file_read_gz(path, FILE_NO_MAX, &funcs, &len))
		return false;
	fake_put("available_filter_functions", funcs);
	fake_put("error_log", "");
	fake_put("set_graph_function", "");
	fake_put("instances/k/set_ftrace_filter", "");
	fake_put("instances/k/set_ftrace_notrace", "");
	return true;
}

/* The 1-based line numbers of the functions @match takes, as the index form writes them. */
static void want_indexes(bool (*match)(const char *, const void *), const void *arg, char *out,
			 size_t len)
{
	const char *p = funcs;
	size_t at = 0, line = 0;

	out[0] = '\0';
	while (*p) {
		size_t n = strcspn(p, "\n");
		char name[256];

		line++;
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(p, " \n"), p);
		if (match(name, arg) && at + 24 < len)
			at += (size_t)snprintf(out + at, len - at, "%zu ", line);
		p += n + (p[n] == '\n');
	}
}

static bool by_regex(const char *name, const void *re)
{
	return !regexec(re, name, 0, NULL, 0);
}

static bool by_glob(const char *name, const void *glob)
{
	return !fnmatch(glob, name, 0);
}

TEST(command_line_filters_resolve_as_the_prompt_does)
{
	static char want[1 << 16], dir[300], ln[512], err[512];
	struct session_opts o = { 0 };
	regex_t re;

	CHECK(fake_tracefs());
	snprintf(dir, sizeof(dir), "%s/instances/k", fake_root);
	o.filters[o.nfilters++] = "/^vfs_(read|write)$/";
	o.notrace[o.nnotrace++] = "*spin_lock*";
	o.graph_funcs[o.ngraph_funcs++] = "do_sys_open";
	CHECK(funcfilter_cmdline_line(&o, ln, sizeof(ln)) == 0);
	CHECK_STR(ln, "-l /^vfs_(read|write)$/ -n *spin_lock* -g do_sys_open");
	CHECK(funcfilter_cmdline_apply(&o, dir, fake_root, err, sizeof(err)) == 0);
	/* the regex, not a glob: exactly vfs_read and vfs_write */
	CHECK(!regcomp(&re, "^vfs_(read|write)$", REG_EXTENDED | REG_NOSUB));
	want_indexes(by_regex, &re, want, sizeof(want));
	regfree(&re);
	CHECK(strlen(want) > 4);
	CHECK_STR(fake_get("instances/k/set_ftrace_filter"), want);
	want_indexes(by_glob, "*spin_lock*", want, sizeof(want));
	CHECK(strlen(want) > 4);
	CHECK_STR(fake_get("instances/k/set_ftrace_notrace"), want);
	/* the instance has no set_graph_function: the global one, by name */
	CHECK(!strncmp(fake_get("set_graph_function"), "do_sys_open", 11));

	/* a term that matches nothing: named, and nothing written */
	fake_put("instances/k/set_ftrace_filter", "");
	o.filters[o.nfilters++] = "vfs_no_such_function";
	CHECK(funcfilter_cmdline_apply(&o, dir, fake_root, err, sizeof(err)) == -EINVAL);
	if (!strstr(err, "vfs_no_such_function") || !strstr(err, "matches no function"))
		printf("  \"%s\"\n", err);
	CHECK(strstr(err, "vfs_no_such_function") && strstr(err, "matches no function"));
	CHECK_STR(fake_get("instances/k/set_ftrace_filter"), "");
	/* a kernel without a function list (EPERM here): said */
	unlink(strcat(strcpy(want, fake_root), "/available_filter_functions"));
	o.nfilters = 1;
	CHECK(funcfilter_cmdline_apply(&o, dir, fake_root, err, sizeof(err)) < 0);
	CHECK(strstr(err, "function filters") != NULL);
	/* nothing to do: nothing touched */
	o.nfilters = o.nnotrace = o.ngraph_funcs = 0;
	CHECK(funcfilter_cmdline_apply(&o, dir, fake_root, err, sizeof(err)) == 0);
	CHECK(fake_remove() == 0);
	free(funcs);
}

TEST_MAIN()
