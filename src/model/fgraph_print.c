// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The function_graph model as text (fgraph_print): the timeline as the
 * kernel's function_graph tracer prints it, the aggregated view as a table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgraph-local.h"

/* ---- text ---------------------------------------------------------------- */

/* The kernel's trace_find_mark(): the largest threshold a duration passes. */
static const struct {
	uint64_t	ns;
	char		mark;
} fgraph_marks[] = {
	{ 1000000000ull, '$' },
	{ 100000000ull, '@' },
	{ 10000000ull, '*' },
	{ 1000000ull, '#' },
	{ 100000ull, '!' },
	{ 10000ull, '+' },
};

char fgraph_mark(uint64_t ns)
{
	for (size_t i = 0; i < sizeof(fgraph_marks) / sizeof(fgraph_marks[0]); i++)
		if (ns > fgraph_marks[i].ns)
			return fgraph_marks[i].mark;
	return ' ';
}

/* As the kernel's trace_print_graph_duration(): at most 7 digits, then " us ", padded. */
int fgraph_fmt_duration(char *buf, size_t len, uint64_t ns)
{
	char us[24], frac[8];
	int n, w;

	n = snprintf(us, sizeof(us), "%llu", (unsigned long long)(ns / 1000));
	w = n;
	frac[0] = 0;
	if (n < 7) {
		int keep = 8 - n - 1 < 3 ? 8 - n - 1 : 3;

		snprintf(frac, sizeof(frac), ".%03llu", (unsigned long long)(ns % 1000));
		frac[1 + keep] = 0;
		w += 1 + keep;
	}
	return snprintf(buf, len, "%s%s us %*s", us, frac, w < 8 ? 8 - w : 0, "");
}

struct pr {
	struct fgraph			*g;
	FILE				*f;
	const struct fgraph_print_opts	*o;
	char				name[96];
};

static void pr_prefix(struct pr *p, int cpu, bool with_dur, uint64_t dur)
{
	char d[40];

	if (!p->o->no_cpu) {
		if (cpu >= 0)
			fprintf(p->f, " %*d) ", (int)p->g->cpu_width, cpu);
		else
			fprintf(p->f, " %*s  ", (int)p->g->cpu_width, "");
	}
	if (with_dur) {
		fgraph_fmt_duration(d, sizeof(d), dur);
		fprintf(p->f, "%c %s|  ", fgraph_mark(dur), d);
	} else {
		fputs("              |  ", p->f);
	}
}

/*
 * The children of @id, at level @lv under the top, indented @ind steps. A
 * call deeper than one level below its parent call (an interrupt in a return
 * path, see entry_skew; or ancestors not seen) is indented by its depth, as
 * the kernel does.
 */
static void pr_timeline(struct pr *p, uint32_t id, unsigned int lv, unsigned int ind)
{
	struct fgraph *g = p->g;
	const struct fg_node *up = &g->n[id];
	uint32_t k;

	for (k = up->first; k != NONE; k = g->n[k].next) {
		const struct fg_node *x = &g->n[k];
		bool closed = !(x->flags & (FGRAPH_F_OPEN | FGRAPH_F_EXIT_MISSING));
		unsigned int in = ind;
		const char *nm;

		if (p->o->max_level && lv >= p->o->max_level)
			return;
		if (x->kind == FGRAPH_K_GAP) {
			pr_prefix(p, -1, false, 0);
			fprintf(p->f, "%*s/* lost ", ind * 2, "");
			if (x->func)
				fprintf(p->f, "%u events */\n", x->func);
			else
				fputs("events */\n", p->f);
			continue;
		}
		if (x->kind != FGRAPH_K_CALL)
			continue;
		if (closed && p->o->min_dur && x->dur < p->o->min_dur)
			continue;
		if (up->kind == FGRAPH_K_CALL && x->depth > up->depth + 1u)
			in += x->depth - up->depth - 1u;
		nm = fgraph_sym_name(g, x->func, p->name, sizeof(p->name));
		if (x->first == NONE && closed && !x->overflow) {
			pr_prefix(p, x->cpu, true, x->dur);
			fprintf(p->f, "%*s%s();%s\n", in * 2, "", nm,
				x->flags & FGRAPH_F_ENTRY_MISSING ? " /* entry missing */" : "");
			continue;
		}
		pr_prefix(p, x->cpu, false, 0);
		fprintf(p->f, "%*s%s() {%s\n", in * 2, "", nm,
			x->flags & FGRAPH_F_ENTRY_MISSING ? " /* entry missing */" : "");
		pr_timeline(p, k, lv + 1, in + 1);
		if (x->overflow) {
			pr_prefix(p, -1, false, 0);
			fprintf(p->f, "%*s/* %u calls deeper than max_depth */\n", (in + 1) * 2, "",
				x->overflow);
		}
		pr_prefix(p, x->cpu, closed, x->dur);
		/* the children's lines reused p->name */
		nm = fgraph_sym_name(g, x->func, p->name, sizeof(p->name));
		if (closed)
			fprintf(p->f, "%*s}\n", in * 2, "");
		else
			fprintf(p->f, "%*s} /* %s: %s */\n", in * 2, "", nm,
				x->flags & FGRAPH_F_OPEN ? "still running" : "exit missing");
	}
}

static void us3(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%llu.%03llu", (unsigned long long)(ns / 1000),
		 (unsigned long long)(ns % 1000));
}

static void pr_agg(struct pr *p, const struct fgraph_row *rows, long n)
{
	char t[32], s[32], a[32], m[32];
	struct fgraph_info in;
	long i;

	fprintf(p->f, "# %14s %14s %14s %14s %9s  %s\n", "total us", "self us", "avg us", "max us",
		"calls", "function");
	for (i = 0; i < n; i++) {
		if (fgraph_node(p->g, FGRAPH_AGG, rows[i].id, &in))
			continue;
		if (in.kind == FGRAPH_K_TASK || in.kind == FGRAPH_K_IRQ) {
			fprintf(p->f, "# %s\n", in.name);
			continue;
		}
		if (p->o->max_level && rows[i].level > p->o->max_level)
			continue;
		if (in.kind == FGRAPH_K_GAP) {
			fprintf(p->f, "  %14s %14s %14s %14s %9llu  %*s/* lost events */\n", "", "",
				"", "", (unsigned long long)in.count, (int)rows[i].level * 2, "");
			continue;
		}
		if (p->o->min_dur && in.max < p->o->min_dur)
			continue;
		us3(t, sizeof(t), in.total);
		us3(s, sizeof(s), in.self);
		us3(a, sizeof(a), in.count ? in.total / in.count : 0);
		us3(m, sizeof(m), in.max);
		fprintf(p->f, "%c %14s %14s %14s %14s %9llu  %*s%s", fgraph_mark(in.max), t, s, a,
			m, (unsigned long long)in.count, (int)rows[i].level * 2, "", in.name);
		if (in.incomplete)
			fprintf(p->f, " /* +%llu incomplete */", (unsigned long long)in.incomplete);
		fputc('\n', p->f);
	}
}

int fgraph_print(struct fgraph *g, FILE *f, const struct fgraph_print_opts *opts)
{
	struct fgraph_print_opts def = { .view = FGRAPH_TIMELINE, .top = FGRAPH_ROOT };
	struct pr p = { .g = g, .f = f, .o = opts ? opts : &def };
	struct fgraph_info in;
	uint32_t k;

	if (p.o->view == FGRAPH_AGG) {
		struct fgraph_row *rows;
		long n = fgraph_rows(g, FGRAPH_AGG, p.o->top, p.o->sort, NULL, NULL, NULL, 0);

		if (n < 0)
			return (int)n;
		rows = malloc((n + 1) * sizeof(*rows));
		if (!rows)
			return -ENOMEM;
		n = fgraph_rows(g, FGRAPH_AGG, p.o->top, p.o->sort, NULL, NULL, rows, n);
		if (n >= 0)
			pr_agg(&p, rows, n);
		free(rows);
	} else if (p.o->top != FGRAPH_ROOT) {
		if (p.o->top >= g->nn)
			return -ENOENT;
		pr_timeline(&p, p.o->top, 0, 0);
	} else {
		for (k = g->n[FGRAPH_ROOT].first; k != NONE; k = g->n[k].next) {
			if (g->n[k].first == NONE)
				continue;
			fgraph_node(g, FGRAPH_TIMELINE, k, &in);
			fprintf(f, "# %s\n", in.name);
			pr_timeline(&p, k, 0, 0);
		}
	}
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
