// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The --batch tracer views (src/batch/batch_tracers.c) on fixtures recorded from
 * the rt kernels: the function_graph text and JSON, and the latency table.
 *
 * Expectations come from the kernel's own text output of the same run
 * (trace.txt): the number of top-level vfs_read calls and of read_zero
 * calls. The printed tree is read back by a parser here: braces balance,
 * a child is one level deeper, every leaf and closing brace has a duration
 * and a parent lasts at least as long as its children together.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "batch/batch_tracers.h"
#include "ingest/decode.h"
#include "ingest/fixture.h"
#include "app/opts.h"
#include "store/store.h"
#include "kernel/symbols.h"
#include "test.h"

struct fx_app {
	struct app		a;
	struct fixture		*fx;
	struct decode_ctx	*dc;
	struct symbols		*syms;
	char			*text;	/* the kernel's trace.txt */
};

static bool fx_load(struct fx_app *f, const char *name)
{
	char dir[512];

	memset(f, 0, sizeof(*f));
	snprintf(dir, sizeof(dir), "%s/%s", fixture_root(), name);
	f->fx = fixture_open(dir);
	if (!f->fx)
		return false;
	f->a.st = store_new(0, fixture_ncpus(f->fx));
	f->syms = symbols_load(fixture_path(f->fx, "kallsyms"));
	f->dc = f->a.st ? decode_ctx_new(fixture_tep(f->fx), f->a.st, f->syms) : NULL;
	for (unsigned int cpu = 0; f->dc && cpu < fixture_ncpus(f->fx); cpu++) {
		struct decoder *d = decoder_new(f->dc, cpu);

		for (size_t i = 0; d && i < fixture_npages(f->fx, cpu); i++)
			decoder_page(d, fixture_page(f->fx, cpu, i), fixture_page_size(f->fx), NULL);
		decoder_free(d);
		store_publish(f->a.st, cpu);
	}
	f->text = fixture_read_file(fixture_path(f->fx, "trace.txt"), NULL);
	return f->dc && f->text;
}

static void fx_free(struct fx_app *f)
{
	decode_ctx_free(f->dc);
	if (f->syms)
		symbols_free(f->syms);
	store_free(f->a.st);
	fixture_close(f->fx);
	free(f->text);
}

static char *run_text(struct batch_tracers *bt, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);

	if (json)
		batch_tracers_json(bt, o);
	else
		batch_tracers_text(bt, o);
	fclose(o);
	return buf;
}

/* Kernel text: top-level (depth 0) lines of @fn, and all lines of @fn. */
static void kernel_counts(const char *text, const char *fn, long *top, long *all)
{
	char pat[128];
	const char *p;

	*top = *all = 0;
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *bar = strstr(p, "|  "), *eol = strchr(p, '\n');
		size_t l = strlen(fn);

		if (p[0] == '#' || !bar || (eol && bar > eol))
			continue;
		bar += 3;
		snprintf(pat, sizeof(pat), "%s(", fn);
		if (!strncmp(bar, pat, l + 1))
			++*top, ++*all;
		else {
			while (*bar == ' ')
				bar++;
			if (!strncmp(bar, pat, l + 1))
				++*all;
		}
	}
}

struct tl_check {
	long	lines, top_fn, bad, summaries, maxlv, not_shown;
};

/* Read the printed timeline back; count top-level calls of @fn. */
static void tl_parse(const char *out, const char *fn, struct tl_check *c)
{
	double sum[256] = { 0 };
	int sp = 0;
	bool in = false;
	char *dup = strdup(out), *save, *line;

	memset(c, 0, sizeof(*c));
	for (line = strtok_r(dup, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *bar, *body, *d;
		double dur = -1;
		int ind = 0;

		if (!strncmp(line, "Function graph:", 15)) {
			in = true;
			c->summaries++;
			continue;
		}
		if (!strncmp(line, "Call paths", 10)) {
			in = false;
			c->bad += sp != 0;
			continue;
		}
		if (in && strstr(line, "more calls this interval not shown")) {
			c->not_shown += atol(line + strspn(line, " ."));
			continue;
		}
		if (!in || line[0] == '#' || !(bar = strstr(line, "|  ")))
			continue;
		body = bar + 3;
		if (strstr(body, "/*") && !strchr(body, '('))
			continue;
		while (body[ind] == ' ')
			ind++;
		d = strstr(line, " us");
		if (d && d < bar) {
			while (d > line && (isdigit((unsigned char)d[-1]) || d[-1] == '.'))
				d--;
			dur = atof(d);
		}
		c->lines++;
		if (ind % 2 || ind / 2 != sp - (body[ind] == '}') || sp > 250) {
			c->bad++;
			continue;
		}
		if (strstr(body, "() {")) {
			if (sp == 0 && !strncmp(body + ind, fn, strlen(fn)) &&
			    body[ind + strlen(fn)] == '(')
				c->top_fn++;
			sum[sp++] = 0;
			if (sp > c->maxlv)
				c->maxlv = sp;
		} else if (body[ind] == '}') {
			sp--;
			if (strstr(body, "exit missing"))
				continue;
			if (dur < 0 || dur + 0.0015 < sum[sp])
				c->bad++;
			if (sp > 0)
				sum[sp - 1] += dur;
		} else if (strstr(body, "();")) {
			if (dur < 0)
				c->bad++;
			if (sp > 0)
				sum[sp - 1] += dur;
			else if (!strncmp(body + ind, fn, strlen(fn)))
				c->top_fn++;
		} else {
			c->bad++;
		}
	}
	free(dup);
}

static long json_calls(const char *json, const char *fn, const char *parent)
{
	char pat[200];
	const char *p = json;
	long n = 0;

	snprintf(pat, sizeof(pat), "{\"function\":\"%s\",\"parent\":\"%s\"", fn, parent);
	while ((p = strstr(p, pat))) {
		const char *c = strstr(p, "\"calls\":");

		if (c)
			n += atol(c + 8);
		p++;
	}
	return n;
}

static void fgraph_fixture(const char *name)
{
	struct fx_app f;
	struct batch_tracers *bt;
	struct tl_check c;
	long ktop, kall, rz_top, rz_all;
	char *text, *json;

	if (!fx_load(&f, name)) {
		fx_free(&f);
		CHECK(!"fixture missing");
		return;
	}
	opts_defaults(&f.a.opts);
	bt = batch_tracers_new_tracer(&f.a, "function_graph");
	CHECK(bt != NULL);
	/* two summaries: the first half of the events, then the rest */
	{
		struct store_stats ss;

		store_get_stats(f.a.st, &ss);
		batch_tracers_update_to(bt, getenv("KTOP_TEST_NOSPLIT") ? UINT64_MAX - 1 :
					ss.first_ts + (ss.last_ts - ss.first_ts) / 2);
		text = run_text(bt, false);
		batch_tracers_update_to(bt, UINT64_MAX - 1);
	}
	{
		char *t2 = run_text(bt, false);
		size_t l1 = strlen(text), l2 = strlen(t2);

		text = realloc(text, l1 + l2 + 1);
		memcpy(text + l1, t2, l2 + 1);
		free(t2);
	}
	json = run_text(bt, true);
	kernel_counts(f.text, "vfs_read", &ktop, &kall);
	kernel_counts(f.text, "read_zero", &rz_top, &rz_all);
	tl_parse(text, "vfs_read", &c);
	printf("  %s: kernel: %ld top-level vfs_read, %ld read_zero; ktop printed %ld "
	       "top-level vfs_read (+%ld not shown) in %ld summaries, %ld lines, %ld levels, %ld bad; "
	       "json read_zero under vfs_read %ld\n", name, ktop, rz_all, c.top_fn, c.not_shown,
	       c.summaries, c.lines, c.maxlv, c.bad, json_calls(json, "read_zero", "vfs_read"));
	if (getenv("KTOP_TEST_SHOW"))
		fputs(text, stdout);
	CHECK(ktop > 0);
	CHECK_EQ_U64(c.summaries, 2);
	CHECK_EQ_U64(c.bad, 0);
	CHECK(c.maxlv >= 2);
	/* every top-level call is printed, or counted as not shown (line limit) */
	CHECK(c.top_fn <= ktop && c.top_fn + c.not_shown >= ktop);
	CHECK_EQ_U64(json_calls(json, "read_zero", "vfs_read"), rz_all);
	CHECK(strstr(json, ",\"graph\":{\"new_calls\":") == json);
	free(text);
	free(json);
	batch_tracers_free(bt);
	fx_free(&f);
}

TEST(fgraph_rt61)
{
	fgraph_fixture("rt-fgraph");
}

TEST(fgraph_rt612)
{
	fgraph_fixture("rt612-fgraph");
}

/* Sample counts per CPU from the kernel text: "timerlat:" (irq+thread) or "osnoise:" lines. */
static void latency_fixture(const char *name, const char *tracer)
{
	struct fx_app f;
	struct batch_tracers *bt;
	long kcount[2] = { 0 };
	char *text, *json, key[64];
	const char *p;

	if (!fx_load(&f, name)) {
		fx_free(&f);
		CHECK(!"fixture missing");
		return;
	}
	opts_defaults(&f.a.opts);
	bt = batch_tracers_new_tracer(&f.a, tracer);
	CHECK(bt != NULL);
	batch_tracers_update_to(bt, UINT64_MAX - 1);
	text = run_text(bt, false);
	json = run_text(bt, true);
	/* record lines: "comm-pid [cpu] flags ts: REST"; timerlat's IRQ samples say
	 * "context    irq", osnoise's period samples start REST with a number */
	for (p = f.text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *b = strstr(p, " ["), *eol = strchr(p, '\n'), *r;
		bool hit;

		if (p[0] == '#' || !b || (eol && b > eol) || !(r = strstr(b, ": ")) ||
		    (eol && r > eol))
			continue;
		r += 2;
		if (!strcmp(tracer, "timerlat")) {
			const char *c = strstr(r, "context");

			hit = c && (!eol || c < eol);
			if (hit) {
				c += 7;
				while (*c == ' ')
					c++;
				hit = !strncmp(c, "irq", 3);
			}
		} else {
			hit = isdigit((unsigned char)*r);
		}
		if (hit && atoi(b + 2) >= 0 && atoi(b + 2) < 2)
			kcount[atoi(b + 2)]++;
	}
	(void)key;
	printf("  %s: kernel text: cpu0 %ld, cpu1 %ld samples\n%s", name, kcount[0], kcount[1],
	       text);
	for (int cpu = 0; cpu < 2; cpu++) {
		char pat[64];

		if (!kcount[cpu])
			continue;
		snprintf(pat, sizeof(pat), "{\"cpu\":%d,\"samples\":%ld,", cpu, kcount[cpu]);
		CHECK(strstr(json, pat) != NULL);
		if (!strstr(json, pat))
			printf("  missing %s in %.600s\n", pat, json);
	}
	CHECK(strstr(text, "ALL") != NULL);
	free(text);
	free(json);
	batch_tracers_free(bt);
	fx_free(&f);
}

TEST(timerlat_rt61)
{
	latency_fixture("rt-timerlat", "timerlat");
}

TEST(osnoise_rt612)
{
	latency_fixture("rt612-osnoise", "osnoise");
}

TEST_MAIN()
