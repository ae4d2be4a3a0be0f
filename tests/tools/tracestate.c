// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracestate: print, save, compare or restore the settings of a tracefs
 * directory, so shell tests can diff the kernel's state before and after.
 *
 *   tracestate [-E] [-x] [-R] [DIR]     print one "file<TAB>content" line per entry
 *   tracestate --save FILE [DIR]        save (format of src/kernel/tracestate.c)
 *   tracestate --diff FILE [DIR]        compare FILE with now; exit 1 when different
 *   tracestate --restore FILE           put the saved state back
 *
 * -E skips the per-event files (faster); -x lists only the instances named
 * ktop-<pid> (or ktop-probe-<pid>, ktop-agg-<pid>) whose pid is dead: leftovers. Instances of
 * other tools and of ktops still running on the same machine are not judged. DIR defaults to
 * /sys/kernel/tracing.
 *
 * Every capture also holds synthetic_events (where the kernel has it), compared,
 * never restored: a synthetic event left behind has default event files, which
 * the events walk does not record. With -x the ktop_<pid>_* events of live pids
 * are left out, as their instances are. (Hist triggers are compared with the
 * other events/.../trigger files; those of a ktop-agg-<pid> instance go with it.)
 *
 * -R: raw, every value as the kernel shows it (TRACESTATE_RAW), for the
 * tests' before/after comparisons; a raw save cannot be restored. --diff of a
 * raw save compares raw. --expanded-ok (with --diff of a raw save): a test
 * that runs a session at the top level on purpose allocates the top-level
 * buffer on a freshly booted kernel, which cannot be undone: the one change
 * accepted is buffer_size_kb "S (expanded: M)" -> K with M <= K <=
 * M * 4096 / 4080 + 1 (whole pages of 4080 data bytes), each per-CPU
 * buffer_size_kb "S" -> K, and buffer_total_size_kb likewise. It is printed
 * as "expected: ...". Every other file must be equal.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/tracestate.h"

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
	else if (!strncmp(p, "agg-", 4))	/* an --latency's hist triggers */
		p += 4;
	pid = strtol(p, &end, 10);
	if (*end || end == p)
		return true;	/* ktop-test-...: some other tool's */
	return pid_alive(pid);
}

/*
 * Add "synthetic_events" to @ts: the kernel's lines, without those of the
 * ktops still running when @hide_live. Return: 0, or -ENOMEM.
 */
static int add_synthetic(struct tracestate *ts, const char *dir, bool hide_live)
{
	char path[4096], line[4096], *all = NULL;
	size_t len = 0;
	FILE *fp, *out;
	int ret;

	snprintf(path, sizeof(path), "%s/synthetic_events", dir);
	fp = fopen(path, "re");
	if (!fp)
		return 0;	/* no synthetic events on this kernel */
	out = open_memstream(&all, &len);
	if (!out) {
		fclose(fp);
		return -ENOMEM;
	}
	while (fgets(line, sizeof(line), fp)) {
		char *end;
		long pid;

		if (hide_live && !strncmp(line, "ktop_", 5)) {
			pid = strtol(line + 5, &end, 10);
			if (end != line + 5 && *end == '_' && pid_alive(pid))
				continue;
		}
		fputs(line, out);
	}
	fclose(fp);
	if (fclose(out))
		return -ENOMEM;
	ret = tracestate_add_compared(ts, "synthetic_events", all);
	free(all);
	return ret;
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
	fprintf(stderr, "usage: tracestate [-E] [-x] [-R] [DIR]\n"
			"       tracestate [-E] [-x] [-R] --save FILE [DIR]\n"
			"       tracestate [-E] [-x] [--expanded-ok] --diff FILE [DIR]\n"
			"       tracestate --restore FILE\n");
	exit(2);
}

/* "N\n" -> N; "S (expanded: M)\n" -> S and *exp = M. Return: false for anything else. */
static bool parse_size(const char *v, unsigned long *n, unsigned long *exp)
{
	char tail[4] = "";
	int k;

	*exp = 0;
	if (!v)
		return false;
	if (sscanf(v, "%lu (expanded: %lu)%n", n, exp, &k) == 2)
		return !strcmp(v + k, "\n") || !v[k];
	*exp = 0;
	return sscanf(v, "%lu%3s", n, tail) == 1;
}

/* @k is what allocating @m KB of pages gives: the kernel rounds up to whole pages. */
static bool allocated_size(unsigned long m, unsigned long k, unsigned long n)
{
	return k >= m && k <= m * 4096 / 4080 + n;
}

/*
 * --expanded-ok: the entries that differ only because the top-level buffer,
 * unallocated in @a, is allocated at its default size in @b. Fills @ign
 * (NULL-terminated, at most @max - 1 entries; the strings are static).
 * Return: how many, 0 when the change is not that (or there is none).
 */
static int expansion_entries(const struct tracestate *a, const struct tracestate *b,
			     const char **ign, int max)
{
	static char keys[1024][48];
	unsigned long s, m, k, x, ts, tm, tk;
	int n = 0, ncpu = 0;

	if (!parse_size(tracestate_get(a, "buffer_size_kb"), &s, &m) || !m ||
	    !parse_size(tracestate_get(b, "buffer_size_kb"), &k, &x) || x ||
	    !allocated_size(m, k, 1))
		return 0;
	ign[n++] = "buffer_size_kb";
	printf("expected: buffer_size_kb: %lu (expanded: %lu) -> %lu: the top-level buffer "
	       "allocated at its default size\n", s, m, k);
	for (int cpu = 0; cpu < 1024 && n < max - 2; cpu++) {
		unsigned long cs, cx, ck;

		snprintf(keys[cpu], sizeof(keys[cpu]), "per_cpu/cpu%d/buffer_size_kb", cpu);
		if (!tracestate_get(a, keys[cpu]))
			continue;
		ncpu++;
		if (parse_size(tracestate_get(a, keys[cpu]), &cs, &cx) && cs == s && !cx &&
		    parse_size(tracestate_get(b, keys[cpu]), &ck, &cx) && ck == k && !cx)
			ign[n++] = keys[cpu];
	}
	if (parse_size(tracestate_get(a, "buffer_total_size_kb"), &ts, &tm) && tm &&
	    parse_size(tracestate_get(b, "buffer_total_size_kb"), &tk, &x) && !x &&
	    ncpu && allocated_size(tm, tk, ncpu))
		ign[n++] = "buffer_total_size_kb";
	ign[n] = NULL;
	return n;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "expanded-ok", no_argument,	   NULL, 'X' },
		{ "save",	required_argument, NULL, 's' },
		{ "diff",	required_argument, NULL, 'd' },
		{ "restore",	required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = "/sys/kernel/tracing", *save = NULL, *diff = NULL, *restore = NULL;
	unsigned int flags = 0;
	struct tracestate *a, *b = NULL;
	bool hide_live = false, expanded_ok = false;
	const char *ign[1030] = { NULL };
	int c, n, ret;

	while ((c = getopt_long(argc, argv, "ExRh", lopts, NULL)) != -1) {
		switch (c) {
		case 'E': flags |= TRACESTATE_NO_EVENTS; break;
		case 'x': hide_live = true; break;
		case 'R': flags |= TRACESTATE_RAW; break;
		case 'X': expanded_ok = true; break;
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

	if (diff) {
		b = tracestate_load(diff);
		if (!b) {
			fprintf(stderr, "tracestate: %s: %s\n", diff, strerror(errno));
			return 2;
		}
		/* compared as it was saved */
		if (tracestate_is_raw(b))
			flags |= TRACESTATE_RAW;
		else if (expanded_ok)
			usage();
	}
	a = tracestate_capture(dir, flags | (hide_live ? TRACESTATE_NO_INSTANCES : 0));
	if (!a) {
		fprintf(stderr, "tracestate: %s: %s\n", dir, strerror(errno));
		tracestate_free(b);
		return 2;
	}
	ret = add_synthetic(a, dir, hide_live);
	if (ret) {
		fprintf(stderr, "tracestate: %s: %s\n", dir, strerror(-ret));
		tracestate_free(a);
		tracestate_free(b);
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
		if (expanded_ok)
			expansion_entries(b, a, ign, (int)(sizeof(ign) / sizeof(ign[0])));
		n = tracestate_diff(b, a, stdout, ign);
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
