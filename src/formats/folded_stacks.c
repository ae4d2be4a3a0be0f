// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Folded stacks (folded.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "folded.h"
#include "format.h"
#include "lib/intern.h"
#include "model/stacktree.h"
#include "store/store.h"

int folded_source_from_name(const char *s)
{
	static const char *const names[] = {
		[FOLDED_AUTO] = "auto", [FOLDED_EVENTS] = "events", [FOLDED_OFFCPU] = "offcpu",
		[FOLDED_GRAPH] = "graph", [FOLDED_GRAPH_COUNT] = "graph-count",
	};

	for (size_t i = 0; s && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i]))
			return (int)i;
	return -1;
}

/* A frame name with the format's separators made harmless. */
static void put_name(FILE *fp, const char *s)
{
	if (!strpbrk(s, "; \t\n\r")) {
		fputs(s, fp);
		return;
	}
	for (; *s; s++)
		fputc(*s == ';' || *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' ? '_' : *s, fp);
}

long folded_write_set(FILE *fp, struct store *st, const struct stack_set *set, bool value)
{
	struct intern *in = store_strings(st);
	uint32_t names[2 * STACK_MAX_FRAMES + 2];
	long lines = 0;

	for (size_t i = 0; i < set->n; i++) {
		const struct stack_weight *w = &set->v[i];
		int n = stacks_names(store_stacks(st), w->stack, names,
				     sizeof(names) / sizeof(names[0]));
		uint64_t v = value ? w->value : w->count;

		if (n <= 0 || !v)
			continue;
		if (n > (int)(sizeof(names) / sizeof(names[0])))
			n = (int)(sizeof(names) / sizeof(names[0]));
		/* the table holds the leaf first */
		for (int k = n - 1; k >= 0; k--) {
			const char *s = intern_str(in, names[k]);

			put_name(fp, s[0] ? s : "[unknown]");
			if (k)
				fputc(';', fp);
		}
		fprintf(fp, " %llu\n", (unsigned long long)v);
		lines++;
	}
	return ferror(fp) ? -EIO : lines;
}

int folded_save_set(const char *path, struct store *st, const struct stack_set *set, bool value,
		    unsigned int file_flags, char *err, size_t errlen)
{
	struct export_stats s = { .events = value ? 0 : set->count };
	struct format_out out = { .path = path, .fd = -1 };
	struct format_file f;
	long lines;
	int ret;

	if (!set->n) {
		snprintf(err, errlen, "%s: no stacks to write", path);
		return -ENOENT;
	}
	ret = format_out_open(&f, &out, file_flags, true, err, errlen);
	if (ret)
		return ret;
	lines = folded_write_set(f.fp, st, set, value);
	return format_out_close(&f, lines < 0 ? (int)lines : 0, &s, err, errlen);
}
