// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Folded stacks for flame graphs (src/formats/folded.h says what a line holds and
 * where the stacks come from): writing a stack set, and the format's entry in
 * the table, write only.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/fgraph.h"
#include "folded.h"
#include "format.h"
#include "lib/intern.h"
#include "model/stacktree.h"
#include "store/store.h"
#include "view/viewfilter.h"

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

long folded_write_set(FILE *fp, struct store *st, const struct stack_set *in_set, bool value)
{
	struct intern *in = store_strings(st);
	uint32_t names[2 * STACK_MAX_FRAMES + 2];
	struct stack_set merged = *in_set, *set = &merged;
	long lines = 0;

	/* one line per distinct list of frames (addresses within a function are one) */
	merged.v = malloc((in_set->n ? in_set->n : 1) * sizeof(*merged.v));
	if (!merged.v)
		return -ENOMEM;
	memcpy(merged.v, in_set->v, in_set->n * sizeof(*merged.v));
	if (stack_set_merge(st, &merged, false, value)) {
		free(merged.v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < set->n; i++) {
		const struct stack_weight *w = &set->v[i];
		int n = stacks_shown_names(store_stacks(st), w->stack, names,
					   sizeof(names) / sizeof(names[0]), NULL);
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
	free(merged.v);
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

/* The function_graph paths of @q's window and view as a stack set. */
static int graph_set(struct store *st, const struct stack_query *q, bool ns, struct stack_set *out)
{
	const struct fgraph_config cfg = { .keep = q->keep, .keep_ctx = q->keep_ctx };
	struct fgraph *g = fgraph_new(&cfg);
	long n;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!g)
		return -ENOMEM;
	n = fgraph_feed_store(g, st, q->t0, q->t1 ? q->t1 : UINT64_MAX);
	ret = n < 0 ? (int)n : stack_set_from_fgraph(st, g, 0, ns, out);
	fgraph_free(g);
	return ret;
}

/*
 * The stacks @src names (FOLDED_AUTO: the first source the store has) into
 * @set; *@value: the set's values are the weights (else the counts).
 * Return: 0 or a negative errno.
 */
static int folded_set(struct store *st, const struct export_opts *opts, enum folded_source *src,
		      struct stack_set *set, bool *value)
{
	struct stack_query q;
	int ret = 0;

	*value = false;
	stack_query_all(&q);
	/* "save what I see" */
	viewfilter_stack_query(opts ? opts->view : NULL, &q);
	if (opts && (opts->t0 || opts->t1)) {
		q.t0 = opts->t0;
		q.t1 = opts->t1;
	}
	if (*src == FOLDED_AUTO || *src == FOLDED_EVENTS) {
		stack_set_free(set);
		ret = stack_set_from_store(st, &q, set);
		if (!ret && (set->n || *src == FOLDED_EVENTS))
			*src = FOLDED_EVENTS;
	}
	if (!ret && (*src == FOLDED_AUTO || *src == FOLDED_OFFCPU)) {
		stack_set_free(set);
		ret = stack_set_from_offcpu(st, false, &q, set);
		*value = true;
		if (!ret && (set->n || *src == FOLDED_OFFCPU))
			*src = FOLDED_OFFCPU;
	}
	if (!ret && (*src == FOLDED_AUTO || *src == FOLDED_GRAPH || *src == FOLDED_GRAPH_COUNT)) {
		*value = true;
		stack_set_free(set);
		ret = graph_set(st, &q, *src != FOLDED_GRAPH_COUNT, set);
	}
	return ret;
}

static int folded_save(const struct format_out *out, struct store *st,
		       const struct snapshot_meta *meta, const struct export_opts *opts,
		       struct export_stats *stats, char *err, size_t errlen)
{
	enum folded_source src = opts ? (enum folded_source)opts->folded : FOLDED_AUTO;
	struct export_stats s = { 0 };
	struct stack_set set = { 0 };
	struct format_file f;
	bool value;
	long lines;
	int ret;

	ret = folded_set(st, opts, &src, &set, &value);
	if (ret) {
		err_set_at(err, errlen, ret, out->path, "%s", strerror(-ret));
		goto out;
	}
	if (!set.n) {
		ret = err_set_at(err, errlen, -ENOENT, out->path, "no stacks to write: %s",
				 src == FOLDED_EVENTS ? "no event has a stack (record some with "
				 "--stack EVENT)" : src == FOLDED_OFFCPU ? "no off-CPU stacks "
				 "(record them with --offcpu)" : src == FOLDED_AUTO ? "no event "
				 "stacks, off-CPU stacks or function_graph calls in this store "
				 "(record some with --stack EVENT or --offcpu)" : "no function_graph "
				 "calls in this store");
		goto out;
	}
	ret = format_out_open(&f, out, opts ? opts->file_flags : 0, true, err, errlen);
	if (ret)
		goto out;
	lines = folded_write_set(f.fp, st, &set, value);
	if (lines < 0)
		ret = (int)lines;
	s.events = set.count;
	ret = format_out_close(&f, ret, &s, err, errlen);
out:
	stack_set_free(&set);
	if (stats)
		*stats = s;
	return ret;
}

static const char *const folded_exts[] = { ".folded", NULL };

const struct format_ops format_folded = {
	.id	= FORMAT_FOLDED,
	.name	= "folded",
	.exts	= folded_exts,
	.save	= folded_save,
};
