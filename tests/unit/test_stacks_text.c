// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Stacks decoded from recorded pages against the kernel's own text of the
 * same records (trace.txt of every tests/fixtures/stacks-* fixture: the
 * stacktrace trigger's <stack trace> and options/userstacktrace's <user
 * stack trace> records, see tests/fixtures/README):
 *
 *   - every event has the stack the text shows after it on its CPU (kernel
 *     frames by name, from the fixture's kallsyms; user frames by address,
 *     as the kernel prints them), and no other;
 *   - the caller tree and the icicle (src/model/stacktree.h) equal what this
 *     file's own reader of the text computes: one node per distinct frame
 *     path, leaf first or root first, with its count of events and of the
 *     events whose stack ends there;
 *   - the events under a node are as many as the node counts;
 *   - the folded export read back line by line ("frame;...;frame COUNT",
 *     root first) sums to the number of events with a stack and holds the
 *     same stacks.
 */
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "ingest/decode.h"
#include "formats/format.h"
#include "formats/ktop.h"
#include "model/fgraph.h"
#include "fgraph_text.h"
#include "ingest/fixture.h"
#include "formats/folded.h"
#include "lib/intern.h"
#include "ingest/rb_page.h"
#include "store/schema.h"
#include "store/stacks.h"
#include "model/stacktree.h"
#include "store/store.h"
#include "kernel/symbols.h"
#include "view/viewfilter.h"
#include "test.h"
#include "stacks_text.h"

/* The events of one CPU of the store against the text's, frame by frame. */
static int compare_cpu(struct store *st, const struct text *t, unsigned int cpu, uint64_t *with)
{
	uint64_t first, end, seq;
	size_t i = 0;

	store_cpu_range(st, cpu, &first, &end);
	for (seq = first; seq < end; seq++, i++) {
		struct ktop_event ev;
		const struct ktop_schema_type *ty;
		struct stack_frame f;
		const struct tev *e;
		unsigned int n = 0;

		while (i < t->n && t->ev[i].cpu != cpu)
			i++;
		if (i >= t->n || store_get(st, cpu, seq, &ev))
			return -1;
		e = &t->ev[i];
		ty = schema_get(store_schema(st), ev.type);
		if (!ty || strcmp(ty->name, e->name)) {
			printf("  cpu%u seq %llu: %s, the text says %s\n", cpu,
			       (unsigned long long)seq, ty ? ty->name : "?", e->name);
			return -1;
		}
		for (; !stacks_frame(store_stacks(st), ev.stack, n, &f); n++) {
			const char *want = n < e->nk ? e->frames[n] :
					   n - e->nk < e->nu ? e->user[n - e->nk] : "(none)";

			if (strcmp(f.name, want)) {
				printf("  cpu%u seq %llu %s frame %u: %s, the text says %s\n", cpu,
				       (unsigned long long)seq, e->name, n, f.name, want);
				return -1;
			}
		}
		if (n != e->nk + e->nu) {
			printf("  cpu%u seq %llu %s: %u frames, the text has %u\n", cpu,
			       (unsigned long long)seq, e->name, n, e->nk + e->nu);
			return -1;
		}
		*with += n > 0;
	}
	while (i < t->n && t->ev[i].cpu != cpu)
		i++;
	return i < t->n ? -1 : 0;
}

/* The path of tree node @id from the root, joined with SEP. */
static char *node_path(const struct stack_tree *tr, uint32_t id)
{
	const char *names[MAX_FRAMES];
	unsigned int n = 0;
	size_t len = 1;
	char *s;

	for (; id && n < MAX_FRAMES; id = stack_tree_node(tr, id)->parent)
		names[n++] = stack_tree_name(tr, id);
	for (unsigned int k = 0; k < n; k++)
		len += strlen(names[k]) + 1;
	s = calloc(1, len);
	for (unsigned int k = n; k > 0; k--) {
		strcat(s, names[k - 1]);
		if (k > 1)
			strcat(s, SEP);
	}
	return s;
}

/* The tree of @st's stacks in @dir against the text's paths. */
static int compare_tree(struct store *st, const struct text *t, enum stack_tree_dir dir,
			uint64_t with)
{
	struct counts c = { 0 };
	struct stack_query q;
	struct stack_set set;
	struct stack_tree *tr;
	int bad = 0;

	stack_query_all(&q);
	if (stack_set_from_store(st, &q, &set))
		return -1;
	tr = stack_tree_build(st, &set, dir);
	text_tree(t, dir == STACK_TREE_ROOTS, &c);
	if (!tr || set.count != with || stack_tree_node(tr, 0)->count != with)
		bad++;
	if (tr && stack_tree_size(tr) != c.n + 1) {
		printf("  %s: %u nodes, the text gives %zu paths\n",
		       dir == STACK_TREE_ROOTS ? "icicle" : "caller tree", stack_tree_size(tr) - 1,
		       c.n);
		bad++;
	}
	for (uint32_t id = 1; tr && id < stack_tree_size(tr) && !bad; id++) {
		const struct stack_node *nd = stack_tree_node(tr, id);
		char *p = node_path(tr, id);
		struct kc *k = counts_find(&c, p);

		if (!k || k->n != nd->count || k->self != nd->self_count) {
			printf("  node %u (%s): count %llu self %llu, the text: %llu %llu\n", id,
			       p, (unsigned long long)nd->count, (unsigned long long)nd->self_count,
			       k ? (unsigned long long)k->n : 0, k ? (unsigned long long)k->self : 0);
			bad++;
		}
		free(p);
	}
	stack_tree_free(tr);
	stack_set_free(&set);
	counts_free(&c);
	return bad ? -1 : 0;
}

static int count_event(void *ctx, const struct ktop_event *ev, uint64_t seq)
{
	(void)ev;
	(void)seq;
	(*(uint64_t *)ctx)++;
	return 0;
}

TEST(stacks_match_kernel_text)
{
	char names[16][300];
	int n = list_stack_fixtures(names, 16);

	if (!n)
		printf("  note: no stacks-* fixture under %s\n", fixture_root());
	CHECK(n > 0 || strcmp(fixture_root(), "tests/fixtures"));
	for (int f = 0; f < n; f++) {
		struct res r = { 0 };
		struct store *st = fixture_stacks_store(names[f], &r);
		char path[700];
		struct text t;
		uint64_t with = 0;

		CHECK(st && r.ksyms);
		snprintf(path, sizeof(path), "%.299s/trace.txt", names[f]);
		CHECK(!text_read(path, &t));
		for (unsigned int cpu = 0; cpu < store_ncpus(st); cpu++)
			CHECK(!compare_cpu(st, &t, cpu, &with));
		printf("  %s: %zu events, %llu with a stack, %u distinct\n", names[f], t.n,
		       (unsigned long long)with, stacks_count(store_stacks(st)));
		CHECK(with > 0);
		CHECK(!compare_tree(st, &t, STACK_TREE_CALLERS, with));
		CHECK(!compare_tree(st, &t, STACK_TREE_ROOTS, with));
		text_free(&t);
		store_free(st);
		symbols_free(r.ksyms);
	}
}

/* The events a node lists are the ones it counts. */
TEST(events_under_a_node)
{
	char names[16][300];
	int n = list_stack_fixtures(names, 16);

	for (int f = 0; f < n; f++) {
		struct res r = { 0 };
		struct store *st = fixture_stacks_store(names[f], &r);
		struct stack_query q;
		struct stack_set set;
		struct stack_tree *tr;
		uint32_t id;
		uint64_t got = 0;

		CHECK(st);
		stack_query_all(&q);
		CHECK(!stack_set_from_store(st, &q, &set));
		tr = stack_tree_build(st, &set, STACK_TREE_CALLERS);
		CHECK(tr);
		/* the biggest leaf frame, and its biggest caller */
		id = stack_tree_node(tr, 0)->first_child;
		CHECK(id != STACK_TREE_NONE);
		CHECK(stack_tree_events(st, &q, tr, id, count_event, &got) ==
		      (long)stack_tree_node(tr, id)->count);
		CHECK_EQ_U64(got, stack_tree_node(tr, id)->count);
		id = stack_tree_node(tr, id)->first_child;
		got = 0;
		if (id != STACK_TREE_NONE)
			CHECK(stack_tree_events(st, &q, tr, id, count_event, &got) ==
			      (long)stack_tree_node(tr, id)->count);
		/* a function filter keeps the stacks that hold it */
		q.func = stack_tree_node(tr, stack_tree_node(tr, 0)->first_child)->name;
		stack_set_free(&set);
		CHECK(!stack_set_from_store(st, &q, &set));
		CHECK_EQ_U64(set.count, stack_tree_node(tr, stack_tree_node(tr, 0)->first_child)->count);
		stack_set_free(&set);
		stack_tree_free(tr);
		store_free(st);
		symbols_free(r.ksyms);
	}
}

/* The folded export read back: every line "frame;...;frame COUNT", root first. */
TEST(folded_reads_back)
{
	char names[16][300];
	int n = list_stack_fixtures(names, 16);

	for (int f = 0; f < n; f++) {
		struct res r = { 0 };
		struct store *st = fixture_stacks_store(names[f], &r);
		char path[700], line[65536];
		struct counts want = { 0 }, got = { 0 };
		struct stack_query q;
		struct stack_set set;
		uint64_t sum = 0, with = 0;
		struct text t;
		FILE *fp;

		CHECK(st);
		snprintf(path, sizeof(path), "%.299s/trace.txt", names[f]);
		CHECK(!text_read(path, &t));
		for (size_t i = 0; i < t.n; i++) {
			if (!tev_frames(&t.ev[i]))
				continue;
			with++;
			counts_add(&want, chain(&t.ev[i], true, MAX_FRAMES), 1, 0);
		}
		counts_done(&want);
		stack_query_all(&q);
		CHECK(!stack_set_from_store(st, &q, &set));
		fp = tmpfile();
		CHECK(fp);
		CHECK(folded_write_set(fp, st, &set, false) > 0);
		rewind(fp);
		while (fgets(line, sizeof(line), fp)) {
			char *sp = strrchr(line, ' '), *end, *p;
			unsigned long long v;

			CHECK(sp && sp > line);
			v = strtoull(sp + 1, &end, 10);
			CHECK(v > 0 && (*end == '\n' || !*end));
			*sp = '\0';
			for (p = line; *p; p++) {
				CHECK(*p != ' ');
				if (*p == ';')
					*p = SEP[0];
			}
			counts_add(&got, strdup(line), v, 0);
			sum += v;
		}
		fclose(fp);
		counts_done(&got);
		CHECK_EQ_U64(sum, with);
		CHECK_EQ_U64(got.n, want.n);
		for (size_t i = 0; i < got.n; i++) {
			CHECK_STR(got.v[i].key, want.v[i].key);
			CHECK_EQ_U64(got.v[i].n, want.v[i].n);
		}
		counts_free(&want);
		counts_free(&got);
		stack_set_free(&set);
		text_free(&t);
		store_free(st);
		symbols_free(r.ksyms);
	}
}

/* The names of stack @id of @st, joined (addresses too, for kernel and user frames). */
static char *stack_text(struct store *st, uint32_t id)
{
	char *s = calloc(1, 1 << 16);
	struct stack_frame f;
	size_t n = 0;

	for (unsigned int i = 0; s && !stacks_frame(store_stacks(st), id, i, &f); i++)
		n += (size_t)snprintf(s + n, (1 << 16) - n, "%s@%llx/%s;", f.name,
				      (unsigned long long)f.addr, f.module);
	return s;
}

/* A .ktop file carries every event's stack, named, and the off-CPU totals. */
TEST(snapshot_carries_stacks)
{
	char names[16][300], path[] = "/tmp/ktop-test-stacks-XXXXXX", err[512];
	int n = list_stack_fixtures(names, 16), fd;

	CHECK(n > 0);
	fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	for (int f = 0; f < n; f++) {
		struct stack_weight w[2] = { { 1, 42, 3, 3000 }, { 2, -1, 1, 500 } }, r[4];
		struct res res = { 0 };
		struct store *st = fixture_stacks_store(names[f], &res), *back = NULL;
		uint64_t compared = 0;

		CHECK(st && stacks_count(store_stacks(st)) >= 2);
		CHECK(!stacks_weights_set(store_stacks(st), STACKS_W_OFFCPU, w, 2));
		CHECK(!ktop_write(path, st, NULL, NULL, err, sizeof(err)));
		CHECK(!format_load(path, 0, &back, NULL, err, sizeof(err)));
		for (unsigned int cpu = 0; cpu < store_ncpus(st); cpu++) {
			uint64_t first, end, f2, e2;

			store_cpu_range(st, cpu, &first, &end);
			store_cpu_range(back, cpu, &f2, &e2);
			CHECK_EQ_U64(e2 - f2, end - first);
			for (uint64_t i = 0; i < end - first; i++) {
				struct ktop_event a, b;
				char *x, *y;

				CHECK(!store_get(st, cpu, first + i, &a));
				CHECK(!store_get(back, cpu, f2 + i, &b));
				CHECK((a.stack != 0) == (b.stack != 0));
				if (!a.stack)
					continue;
				x = stack_text(st, a.stack);
				y = stack_text(back, b.stack);
				CHECK(x && y);
				CHECK_STR(x, y);
				free(x);
				free(y);
				compared++;
			}
		}
		CHECK(compared > 0);
		CHECK(stacks_weights_get(store_stacks(back), STACKS_W_OFFCPU, r, 4, NULL) == 2);
		for (int k = 0; k < 2; k++) {
			char *x = stack_text(st, w[k].stack), *y = stack_text(back, r[k].stack);

			CHECK_STR(x, y);
			CHECK(r[k].pid == w[k].pid && r[k].count == w[k].count &&
			      r[k].value == w[k].value);
			free(x);
			free(y);
		}
		store_free(back);
		store_free(st);
		symbols_free(res.ksyms);
	}
	unlink(path);
}

/* A stream: stacks that appear between flushes go out before what names them. */
TEST(stream_sends_new_stacks_as_they_come)
{
	char path[] = "/tmp/ktop-test-stream-XXXXXX", err[512];
	struct store *st = store_new(0, 1), *back = NULL;
	struct ktop_writer *w;
	struct intern *in = store_strings(st);
	uint64_t k[3] = { 0xffffffff81000010ull, 0xffffffff81000020ull, 0xffffffff81000030ull };
	struct stack_weight wt;
	struct ktop_event ev;
	int fd = mkstemp(path);

	CHECK(fd >= 0 && st);
	w = ktop_writer_new(fd, path, st, NULL, NULL, err, sizeof(err));
	CHECK(w);
	for (int round = 0; round < 3; round++) {
		uint32_t id;

		k[0] += 0x100;
		id = stacks_intern(store_stacks(st), k, 3, NULL, 0, 0, 0, NULL);
		CHECK(id == (uint32_t)round + 1);
		stacks_set_name(store_stacks(st), id, 0, intern_id(in, "leaf", 4), 0);
		memset(&ev, 0, sizeof(ev));
		ev.ts = 1000 + round;
		ev.type = KTOP_T_SYS_EXIT;
		ev.nargs = 2;
		ev.stack = id;
		CHECK(!store_append(st, &ev));
		store_publish(st, 0);
		if (round == 2) {
			/* a weight naming a stack no event has */
			k[1] = 7;
			wt = (struct stack_weight){ stacks_intern(store_stacks(st), k, 3, NULL, 0,
								  0, 0, NULL), 9, 1, 77 };
			CHECK(!stacks_weights_set(store_stacks(st), STACKS_W_OFFCPU, &wt, 1));
		}
		CHECK(!ktop_writer_flush(w, st));
	}
	CHECK(!ktop_writer_finish(w));
	ktop_writer_free(w);
	close(fd);
	CHECK(!format_load(path, 0, &back, NULL, err, sizeof(err)));
	for (uint64_t i = 0; i < 3; i++) {
		struct stack_frame f;

		CHECK(!store_get(back, 0, i, &ev));
		CHECK(ev.stack);
		CHECK(!stacks_frame(store_stacks(back), ev.stack, 0, &f));
		CHECK_STR(f.name, "leaf");
		CHECK_EQ_U64(f.addr, 0xffffffff81000010ull + 0x100 * (i + 1));
	}
	CHECK(stacks_weights_get(store_stacks(back), STACKS_W_OFFCPU, &wt, 1, NULL) == 1);
	CHECK(wt.value == 77 && wt.pid == 9);
	store_free(back);
	store_free(st);
	unlink(path);
}

/*
 * The function_graph paths as stacks (stack_set_from_fgraph, the folded
 * export's "graph-count"): every call counted once at its path, as a reader
 * of the kernel's function_graph text counts them (braces and leaves nest by
 * CPU; interrupt frames where the kernel nests them, irq_inline).
 */
TEST(fgraph_paths_match_kernel_text)
{
	static const char *const fx[] = { "rt-fgraph", "rt612-fgraph" };
	int done = 0;

	for (size_t f = 0; f < sizeof(fx) / sizeof(fx[0]); f++) {
		struct fgraph_config cfg = { .irq_inline = true };
		char dir[600], path[700], line[4096], stack[64][96];
		struct counts want = { 0 }, got = { 0 };
		struct stack_set set;
		struct res r = { 0 };
		struct store *st;
		struct fgraph *g;
		int depth[64] = { 0 };
		FILE *fp, *txt;

		snprintf(dir, sizeof(dir), "%s/%s", fixture_root(), fx[f]);
		snprintf(path, sizeof(path), "%s/trace.txt", dir);
		if (access(dir, R_OK))
			continue;
		st = fixture_stacks_store(dir, &r);
		g = fgraph_new(&cfg);
		CHECK(st && g);
		CHECK(fgraph_feed_store(g, st, 0, UINT64_MAX) > 0);
		CHECK(!stack_set_from_fgraph(st, g, 0, false, &set));
		fp = tmpfile();
		CHECK(fp && folded_write_set(fp, st, &set, false) > 0);
		rewind(fp);
		while (fgets(line, sizeof(line), fp)) {
			char *sp = strrchr(line, ' ');

			*sp = '\0';
			for (char *p = line; *p; p++)
				if (*p == ';')
					*p = SEP[0];
			counts_add(&got, strdup(line), strtoull(sp + 1, NULL, 10), 0);
		}
		fclose(fp);
		counts_done(&got);
		/* the text, read on its own: one count per call at its path, by CPU */
		{
			char *text = fixture_read_file(path, NULL), *save = NULL;

			CHECK(text);
			txt = fmemopen(text, strlen(text), "r");
			while (txt && fgets(line, sizeof(line), txt)) {
				struct ft_rec rec;
				char key[8192] = "";
				int c;

				if (ft_parse_line(line, &rec) != 1 || rec.cpu < 0 || rec.cpu >= 64)
					continue;
				c = rec.cpu;
				if (rec.kind == FT_EXIT) {
					if (depth[c])
						depth[c]--;
					continue;
				}
				if (rec.kind != FT_ENTRY && rec.kind != FT_LEAF)
					continue;
				for (int k = 0; k < depth[c]; k++) {
					strcat(key, stack[k]);
					strcat(key, SEP);
				}
				strcat(key, rec.func);
				counts_add(&want, strdup(key), 1, 0);
				if (rec.kind == FT_ENTRY && depth[c] < 64)
					snprintf(stack[depth[c]++], sizeof(stack[0]), "%s", rec.func);
			}
			(void)save;
			if (txt)
				fclose(txt);
			free(text);
		}
		counts_done(&want);
		printf("  %s: %zu call paths, %llu calls\n", fx[f], got.n,
		       (unsigned long long)set.count);
		CHECK_EQ_U64(got.n, want.n);
		for (size_t i = 0; i < got.n; i++) {
			CHECK_STR(got.v[i].key, want.v[i].key);
			CHECK_EQ_U64(got.v[i].n, want.v[i].n);
		}
		counts_free(&got);
		counts_free(&want);
		stack_set_free(&set);
		fgraph_free(g);
		store_free(st);
		symbols_free(r.ksyms);
		done++;
	}
	if (!done)
		printf("  note: no rt*-fgraph fixture under %s\n", fixture_root());
}

/*
 * --folded offcpu under a view ("save what I see"): the off-CPU totals are by
 * task, so the view's pid:/comm: clauses choose whose; a view with none (an
 * event clause) keeps every task's.
 */
TEST(folded_offcpu_holds_the_view_tasks)
{
	static const struct {
		const char	*view;
		uint64_t	value;		/* ns the file must hold */
	} cases[] = {
		{ "pid:42", 3000 + 700 },
		{ "pid:7", 500 },
		{ "!pid:42", 500 },
		{ "event:sched:sched_switch", 3000 + 700 + 500 },
	};
	char names[16][300], dir[] = "/tmp/ktop-test-offfold.XXXXXX", path[400], err[512];
	int n = list_stack_fixtures(names, 16);
	struct res r = { 0 };
	struct store *st;

	CHECK(n > 0);
	CHECK(mkdtemp(dir));
	st = fixture_stacks_store(names[0], &r);
	CHECK(st && stacks_count(store_stacks(st)) >= 2);
	{
		struct stack_weight w[] = {
			{ 1, 42, 3, 3000 }, { 2, 42, 1, 700 }, { 2, 7, 2, 500 },
		};

		CHECK(!stacks_weights_set(store_stacks(st), STACKS_W_OFFCPU, w, 3));
	}
	snprintf(path, sizeof(path), "%s/o.folded", dir);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct export_opts o = { .folded = FOLDED_OFFCPU };
		struct viewfilter *vf = viewfilter_new(st, NULL);
		uint64_t sum;
		size_t lines;

		CHECK(vf && !viewfilter_push(vf, cases[c].view, NULL));
		o.view = vf;
		CHECK(!export_write(FORMAT_FOLDED, path, st, NULL, &o, NULL, err, sizeof(err)));
		sum = test_folded_sum(path, &lines);
		printf("  %s: %llu ns in %zu lines\n", cases[c].view, (unsigned long long)sum, lines);
		CHECK(lines > 0);
		CHECK_EQ_U64(sum, cases[c].value);
		viewfilter_free(vf);
	}
	store_free(st);
	symbols_free(r.ksyms);
	CHECK(!test_rm_rf(dir));
}

/* The stacks-* fixtures' pages: a 64-bit kernel's (the test checks their long_size). */
#define FX_LONG		8
#define FX_HDR		RB_PAGE_HDR(FX_LONG)

/*
 * One recorded page of @fx's CPU @cpu, the first with a stack record that
 * does not start with one, its missed-events flags cleared. Its record
 * boundaries, after each data record but the last, go to @cut (offsets into
 * its events), *@ncut of them, with the time of the record before each in
 * @cts and whether a stack record follows in @stk.
 * Return: the page (page_size bytes, malloc'ed), or NULL.
 */
static uint8_t *stack_page(struct fixture *fx, unsigned int cpu, uint32_t *cut, uint64_t *cts,
			   bool *stk, size_t *ncut, size_t max)
{
	struct tep_handle *tep = fixture_tep(fx);
	struct tep_event *ks = tep_find_event_by_name(tep, "ftrace", "kernel_stack");
	struct tep_event *us = tep_find_event_by_name(tep, "ftrace", "user_stack");
	size_t psz = fixture_page_size(fx);

	for (size_t i = 0; ks && i < fixture_npages(fx, cpu); i++) {
		const uint8_t *page = fixture_page(fx, cpu, i);
		bool stacks = false, lead = false;
		const uint8_t *rec;
		struct rb_walk w;
		uint64_t commit;
		uint8_t *copy;
		uint32_t len;

		*ncut = 0;
		if (rb_walk_init(&w, page, psz, FX_LONG))
			return NULL;
		while (rb_walk_next(&w, &rec, &len) == RB_WALK_EVENT && *ncut < max) {
			uint16_t type;
			bool is_stack;

			memcpy(&type, rec, 2);
			is_stack = type == ks->id || (us && type == us->id);
			stacks |= is_stack;
			lead |= !*ncut && is_stack;
			if (*ncut)
				stk[*ncut - 1] = is_stack;
			cts[*ncut] = w.ts;
			cut[(*ncut)++] = w.off;
		}
		/* a page that starts with a stack: its event is in the page before */
		if (!stacks || lead || *ncut < 2)
			continue;
		(*ncut)--;		/* the end of the last record is the page's end */
		copy = malloc(psz);
		if (!copy)
			return NULL;
		memcpy(copy, page, psz);
		memcpy(&commit, copy + 8, FX_LONG);
		commit &= RB_COMMIT_MASK;
		memcpy(copy + 8, &commit, FX_LONG);
		return copy;
	}
	return NULL;
}

/* @page's events before @off (@first), or from @off on, after the time @ts (!@first). */
static void page_part(const uint8_t *page, size_t psz, uint32_t off, uint64_t ts, bool first,
		      uint8_t *out)
{
	uint64_t commit;

	memcpy(&commit, page + 8, FX_LONG);
	memset(out, 0, psz);
	if (first) {
		memcpy(out, page, FX_HDR + off);
		commit = off;
	} else {
		memcpy(out, &ts, 8);
		memcpy(out + FX_HDR, page + FX_HDR + off, commit - off);
		commit -= off;
	}
	memcpy(out + 8, &commit, FX_LONG);
}

/* @st's events of CPU @a and CPU @b are the same: times, types, tasks, stacks. */
static bool same_events(struct store *st, unsigned int a, unsigned int b)
{
	uint64_t fa, ea, fb, eb;

	store_cpu_range(st, a, &fa, &ea);
	store_cpu_range(st, b, &fb, &eb);
	if (ea - fa != eb - fb)
		return false;
	for (uint64_t i = 0; i < ea - fa; i++) {
		struct ktop_event x, y;

		if (store_get(st, a, fa + i, &x) || store_get(st, b, fb + i, &y) ||
		    x.ts != y.ts || x.type != y.type || x.pid != y.pid || x.stack != y.stack)
			return false;
	}
	return true;
}

/* decode_ctx_want_stacks() for each of a fixture's "stacks" (a,b,...). Return: types matched. */
static int want_stacks(struct decode_ctx *dc, const char *list, unsigned int parts)
{
	char buf[256], *save = NULL;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", list);
	for (char *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save))
		n += decode_ctx_want_stacks(dc, p, parts);
	return n;
}

/*
 * A stack is a record after its event, and a page may end between them (the
 * kernel goes on in the next page), or tracing may stop between them (the
 * kernel then refuses the stack). A recorded page cut at each of its record
 * boundaries: its two parts decode to the events the whole page does, with
 * the same stacks (the event that ends the first part waits for the second);
 * the first part alone, let go after a stop (decoder_flush(stopped)), counts
 * its last event as cut by the stop exactly when a stack record followed it
 * in the page, and never while tracing is on.
 */
TEST(stack_across_a_page_cut_or_a_stop)
{
	char names[16][300];
	int n = list_stack_fixtures(names, 16);

	CHECK(n > 0);
	for (int f = 0; f < n; f++) {
		struct fixture *fx = fixture_open(names[f]);
		size_t ncut = 0, psz, cuts = 0, stops = 0;
		uint32_t cut[512];
		uint64_t cts[512];
		bool stk[512];
		char spec[256] = "";
		unsigned int parts;
		uint8_t *page, *a, *b;

		CHECK(fx && fixture_meta(fx, "long_size") &&
		      atoi(fixture_meta(fx, "long_size")) == FX_LONG);
		psz = fixture_page_size(fx);
		if (fixture_meta(fx, "stacks"))
			snprintf(spec, sizeof(spec), "%s", fixture_meta(fx, "stacks"));
		parts = fixture_meta(fx, "user_stacks") &&
			!strcmp(fixture_meta(fx, "user_stacks"), "1") ? 3 : 1;
		page = stack_page(fx, 0, cut, cts, stk, &ncut, 512);
		a = malloc(psz);
		b = malloc(psz);
		CHECK(spec[0] && page && a && b && ncut > 0);
		for (size_t c = 0; c < ncut; c++) {
			struct store *st = store_new(0, 4);
			struct decode_ctx *dc = st ? decode_ctx_new(fixture_tep(fx), st, NULL) : NULL;
			struct decode_stats on = { 0 }, off = { 0 }, whole = { 0 };
			struct decoder *d[4];

			CHECK(dc && want_stacks(dc, spec, parts) > 0);
			for (unsigned int i = 0; i < 4; i++)
				CHECK((d[i] = decoder_new(dc, i)));
			page_part(page, psz, cut[c], 0, true, a);
			page_part(page, psz, cut[c], cts[c], false, b);
			/* CPU 0: the whole page; 1: its two parts; 2, 3: the first part */
			CHECK(decoder_page(d[0], page, psz, &whole) > 0);
			CHECK(decoder_page(d[1], a, psz, &whole) >= 0);
			CHECK(decoder_page(d[1], b, psz, &whole) >= 0);
			CHECK(decoder_page(d[2], a, psz, &off) >= 0);
			CHECK(decoder_page(d[3], a, psz, &on) >= 0);
			/* (the page's own last event may wait for the page after it) */
			decoder_flush(d[0], false, &whole);
			decoder_flush(d[1], false, &whole);
			decoder_flush(d[2], true, &off);
			decoder_flush(d[3], false, &on);
			CHECK_EQ_U64(whole.stack_cut, 0);
			CHECK_EQ_U64(whole.stack_dropped, 0);
			CHECK(same_events(st, 0, 1));
			CHECK(same_events(st, 2, 3));
			CHECK_EQ_U64(on.stack_cut, 0);
			CHECK_EQ_U64(off.stack_cut, stk[c]);
			cuts++;
			stops += off.stack_cut;
			for (unsigned int i = 0; i < 4; i++)
				decoder_free(d[i]);
			decode_ctx_free(dc);
			store_free(st);
		}
		printf("  %s: a page of %zu records cut at each boundary; %zu of the %zu first "
		       "parts end in an event whose stack follows\n", names[f], ncut + 1, stops,
		       cuts);
		CHECK(stops > 0 && stops < cuts);
		free(page);
		free(a);
		free(b);
		fixture_close(fx);
	}
}

TEST_MAIN()
