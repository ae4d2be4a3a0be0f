// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * probe_tool: the probe library as the later probe prompt will call it,
 * from a shell, for the guest scenarios and by hand. Defines nothing except
 * with "create". Root: it reads tracefs.
 *
 *   probe_tool preview SPEC       the definition line, prototype, fields; or
 *                                 the message (exit 2)
 *   probe_tool complete TEXT [N]  the candidates for the word before column N
 *                                 (default: the end), one per line
 *   probe_tool create SPEC...     define them (all or none), print the lines,
 *                                 wait for a line on stdin, remove them
 *   probe_tool inlined            a function the kernel's BTF describes that
 *                                 is not in kallsyms (inlined everywhere)
 *   probe_tool cycle SPEC...      what the prompt's probe list does: create,
 *                                 list, enable in an instance of its own
 *                                 (ktop-<pid>), remove while enabled (refused),
 *                                 disable, remove the first, free the rest;
 *                                 one line per step
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe/probe.h"
#include "probe/probe_btf.h"
#include "lib/tuning.h"

static const char *kind_str(enum ktop_field_kind k)
{
	static const char *const n[] = { "int", "uint", "hex", "str", "sym" };

	return k <= KTOP_FK_SYM ? n[k] : "?";
}

static int preview(struct probe_set *ps, const char *spec)
{
	struct probe_def d;
	char err[4096];

	if (probe_preview(ps, spec, &d, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	printf("line %s\n", d.line);
	printf("kind %s\n", probe_kind_name(d.kind));
	if (d.proto[0])
		printf("proto %s\n", d.proto);
	if (d.how[0])
		printf("how %s\n", d.how);
	for (unsigned int i = 0; i < d.nfields; i++)
		printf("field %s %s\n", d.fields[i].name, kind_str(d.fields[i].kind));
	return 0;
}

static int complete(struct probe_set *ps, const char *text, size_t cursor)
{
	char *out[256];
	size_t start;
	int n = probe_complete(ps, text, cursor, out, 256, &start);

	printf("start %zu\n", start);
	for (int i = 0; i < n; i++) {
		printf("%s\n", out[i]);
		free(out[i]);
	}
	return n ? 0 : 1;
}

static int create(struct probe_set *ps, int n, char **specs)
{
	char err[4096], line[16];

	if (probe_create_all(ps, (const char *const *)specs, (unsigned int)n, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	for (unsigned int i = 0; i < probe_set_count(ps); i++)
		printf("%s\n", probe_set_get(ps, i)->line);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		line[0] = '\0';
	return 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Text symbols of kallsyms, sorted. */
static char **ksyms_load(size_t *n)
{
	char line[512], **v = NULL;
	size_t cap = 0;
	FILE *fp = fopen("/proc/kallsyms", "r");

	*n = 0;
	while (fp && fgets(line, sizeof(line), fp)) {
		char type, sym[256];

		if (sscanf(line, "%*s %c %255s", &type, sym) != 2 || (type != 't' && type != 'T'))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 65536;
			v = realloc(v, cap * sizeof(*v));
		}
		v[(*n)++] = strdup(sym);
	}
	if (fp)
		fclose(fp);
	qsort(v, *n, sizeof(*v), str_cmp);
	return v;
}

static int inlined(struct probe_set *ps)
{
	struct probe_btf *btf;
	const char **fn;
	size_t nk, nf;
	char **ks = ksyms_load(&nk);
	int ret = 1;

	if (!ks || probe_btf_open(&btf, tuning()->probe_btf))
		return 1;
	nf = (size_t)probe_btf_funcs(btf, "", NULL, 0);
	fn = calloc(nf, sizeof(*fn));
	probe_btf_funcs(btf, "", fn, nf);
	for (size_t i = 0; i < nf && ret; i++) {
		const char *key = fn[i];
		size_t l = strlen(key);
		char **hit = bsearch(&key, ks, nk, sizeof(*ks), str_cmp);
		struct probe_def d;
		char err[2048];
		size_t lo = 0, hi = nk;

		if (hit)
			continue;
		/* no clone (name.isra.0) either: inlined everywhere */
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (strcmp(ks[mid], key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < nk && !strncmp(ks[lo], key, l) && ks[lo][l] == '.')
			continue;
		if (probe_preview(ps, key, &d, err, sizeof(err)) && strstr(err, "inlined")) {
			printf("%s\n", key);
			ret = 0;
		}
	}
	free(fn);
	probe_btf_free(btf);
	for (size_t i = 0; i < nk; i++)
		free(ks[i]);
	free(ks);
	return ret;
}

static void show_enable(const char *inst, const char *group, const char *event)
{
	char path[1024], v[16] = "";
	FILE *fp;

	snprintf(path, sizeof(path), "%s/events/%s/%s/enable", inst, group, event);
	fp = fopen(path, "r");
	if (fp && fgets(v, sizeof(v), fp))
		v[strcspn(v, "\n")] = '\0';
	if (fp)
		fclose(fp);
	printf("enable %s %s\n", event, v[0] ? v : "?");
}

static int cycle(struct probe_set *ps, int n, char **specs)
{
	const char *g = probe_set_group(ps);
	char inst[256], err[4096], ev[PROBE_NAME_MAX];
	int ret;

	if (probe_create_all(ps, (const char *const *)specs, (unsigned int)n, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	for (unsigned int i = 0; i < probe_set_count(ps); i++)
		printf("list %s %s\n", probe_set_get(ps, i)->event,
		       probe_kind_name(probe_set_get(ps, i)->kind));
	snprintf(ev, sizeof(ev), "%s", probe_set_get(ps, 0)->event);
	snprintf(inst, sizeof(inst), "/sys/kernel/tracing/instances/ktop-%d", getpid());
	if (mkdir(inst, 0700)) {
		perror(inst);
		return 1;
	}
	ret = probe_enable(ps, inst, ev, true);
	printf("enable_on %d\n", ret);
	show_enable(inst, g, ev);
	ret = probe_remove(ps, ev, err, sizeof(err));
	printf("remove_enabled %d %s\n", ret, ret ? err : "");
	ret = probe_enable(ps, inst, ev, false);
	printf("enable_off %d\n", ret);
	show_enable(inst, g, ev);
	rmdir(inst);
	ret = probe_remove(ps, ev, err, sizeof(err));
	printf("remove %d %s\n", ret, ret ? err : "");
	printf("count %u\n", probe_set_count(ps));
	return 0;
}

int main(int argc, char **argv)
{
	struct probe_set *ps;
	char err[1024];
	int ret;

	if (argc < 2) {
		fprintf(stderr, "usage: probe_tool preview SPEC | complete TEXT [N] | "
			"create SPEC... | inlined | cycle SPEC...\n");
		return 2;
	}
	if (probe_set_new(&ps, "/sys/kernel/tracing", tuning()->probe_btf, err,
			  sizeof(err))) {
		fprintf(stderr, "probe_tool: %s\n", err);
		return 1;
	}
	if (!strcmp(argv[1], "preview") && argc == 3)
		ret = preview(ps, argv[2]);
	else if (!strcmp(argv[1], "complete") && argc >= 3)
		ret = complete(ps, argv[2], argc > 3 ? strtoul(argv[3], NULL, 10) : strlen(argv[2]));
	else if (!strcmp(argv[1], "create") && argc >= 3)
		ret = create(ps, argc - 2, argv + 2);
	else if (!strcmp(argv[1], "inlined"))
		ret = inlined(ps);
	else if (!strcmp(argv[1], "cycle") && argc >= 3)
		ret = cycle(ps, argc - 2, argv + 2);
	else
		ret = 2;
	probe_set_free(ps);
	return ret;
}
