// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracestate: print, save, compare or restore the settings of a tracefs
 * directory, so shell tests can diff the kernel's state before and after.
 *
 *   tracestate [-E] [-x] [DIR]          print one "file<TAB>content" line per entry
 *   tracestate --save FILE [DIR]        save (format of src/tracestate.c)
 *   tracestate --diff FILE [DIR]        compare FILE with now; exit 1 when different
 *   tracestate --restore FILE           put the saved state back
 *
 * -E skips the per-event files (faster); -x lists only the instances named
 * ktop-<pid> (or ktop-probe-<pid>) whose pid is dead: leftovers. Instances of
 * other tools and of ktops still running on the same machine are not judged. DIR defaults to
 * /sys/kernel/tracing.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracestate.h"

static bool pid_alive(long pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

/*
 * With -x only ktop's own instances count, and only those of dead pids: what
 * other tools and other running ktops do on a shared machine is not judged.
 */
static bool instance_hidden(const char *name)
{
	const char *p;
	char *end;
	long pid;

	if (strncmp(name, "ktop-", 5))
		return true;
	p = name + 5;
	if (!strncmp(p, "probe-", 6))
		p += 6;
	pid = strtol(p, &end, 10);
	if (*end || end == p)
		return true;	/* ktop-test-...: some other tool's */
	return pid_alive(pid);
}

static void print_instances(const char *dir, bool hide_live)
{
	char path[4096];
	struct dirent **names;
	int n;

	snprintf(path, sizeof(path), "%s/instances", dir);
	n = scandir(path, &names, NULL, alphasort);
	if (n < 0)
		return;
	fputs("instances\t", stdout);
	for (int i = 0, first = 1; i < n; i++) {
		const char *nm = names[i]->d_name;

		if (nm[0] != '.' && !(hide_live && instance_hidden(nm))) {
			printf("%s%s", first ? "" : "\\n", nm);
			first = 0;
		}
		free(names[i]);
	}
	free(names);
	putchar('\n');
}

static void usage(void)
{
	fprintf(stderr, "usage: tracestate [-E] [-x] [DIR]\n"
			"       tracestate --save FILE [DIR]\n"
			"       tracestate --diff FILE [DIR]\n"
			"       tracestate --restore FILE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "save",	required_argument, NULL, 's' },
		{ "diff",	required_argument, NULL, 'd' },
		{ "restore",	required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = "/sys/kernel/tracing", *save = NULL, *diff = NULL, *restore = NULL;
	unsigned int flags = 0;
	struct tracestate *a, *b;
	bool hide_live = false;
	int c, n, ret;

	while ((c = getopt_long(argc, argv, "Exh", lopts, NULL)) != -1) {
		switch (c) {
		case 'E': flags |= TRACESTATE_NO_EVENTS; break;
		case 'x': hide_live = true; break;
		case 's': save = optarg; break;
		case 'd': diff = optarg; break;
		case 'r': restore = optarg; break;
		default: usage();
		}
	}
	if (optind < argc)
		dir = argv[optind++];
	if (optind < argc)
		usage();

	if (restore) {
		a = tracestate_load(restore);
		if (!a) {
			fprintf(stderr, "tracestate: %s: %s\n", restore, strerror(errno));
			return 2;
		}
		ret = tracestate_restore(a);
		tracestate_free(a);
		if (ret) {
			fprintf(stderr, "tracestate: restore: %s\n", strerror(-ret));
			return 1;
		}
		return 0;
	}

	a = tracestate_capture(dir, flags | (hide_live ? TRACESTATE_NO_INSTANCES : 0));
	if (!a) {
		fprintf(stderr, "tracestate: %s: %s\n", dir, strerror(errno));
		return 2;
	}
	if (save) {
		ret = tracestate_save(a, save);
		tracestate_free(a);
		if (ret) {
			fprintf(stderr, "tracestate: %s: %s\n", save, strerror(-ret));
			return 2;
		}
		return 0;
	}
	if (diff) {
		b = tracestate_load(diff);
		if (!b) {
			fprintf(stderr, "tracestate: %s: %s\n", diff, strerror(errno));
			tracestate_free(a);
			return 2;
		}
		n = tracestate_diff(b, a, stdout, NULL);
		tracestate_free(a);
		tracestate_free(b);
		return n ? 1 : 0;
	}
	tracestate_print(a, stdout);
	if (hide_live)
		print_instances(dir, true);
	tracestate_free(a);
	return 0;
}
