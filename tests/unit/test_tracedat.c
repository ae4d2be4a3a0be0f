// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * trace.dat (src/formats/tracedat*.c) against Debian's trace-cmd 3.1.6 as the
 * independent reader, on files trace-cmd itself recorded in the rt guests
 * (the directories tests/fixtures/tracedat-rt*: function_graph, function, events, two
 * buffers, versions 6 and 7, compressed and not; `make fixtures`):
 *
 *   - ktop's reading has, per buffer and CPU, the events and missed-event
 *     counts of `trace-cmd report` and of libtracecmd's two readers
 *     (tests/tools/tdat_libtracecmd: trace-cmd's iterator, KernelShark's
 *     per-CPU reads); the buffers, their clocks and the tracer (from the
 *     records) are the file's;
 *   - the function_graph tree ktop builds (src/model/fgraph.h) is the tree
 *     `trace-cmd report` draws with its plugin: the same calls, nesting and
 *     durations, task by task;
 *   - trace-cmd file -> .ktop -> trace.dat (v7 zstd, v7 none, v6) ->
 *     `trace-cmd report` prints the lines of the original, and libtracecmd
 *     reads every export with the same counts;
 *   - every truncation and many corruptions of a v7 and a v6 file are
 *     refused with a message naming the file (or read), never a crash.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "snap_common.h"

/*
 * Under the sanitizers a load costs ~17 ms (a fork per trace.dat): the corrupt-input
 * sweep then samples half as densely, so that it stays within the suite's time limit.
 */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SPARSE 2
#else
#define SPARSE 1
#endif
#include "formats/format.h"
#include "model/fgraph.h"
#include "formats/tracedat.h"
#include "store/stacks.h"
#include "kernel/stacksym.h"
#include "kernel/symbols.h"
#include "lib/err.h"
#include "view/viewfilter.h"

/* strcmp for qsort of char * */
static int strcmp_p(const char **a, const char **b)
{
	return strcmp(*a, *b);
}

#define MAX_FILES	32
#define MAX_KEYS	64
#define LIBTOOL		"build/tools/tdat_libtracecmd"

static char files[MAX_FILES][1024];
static int nfiles, ncommitted;

__attribute__((constructor)) static void list_files(void)
{
	DIR *root = opendir(fixture_root());
	struct dirent *de, *fe;
	FILE *p;
	char line[512];

	while (root && (de = readdir(root))) {
		char dir[512];
		DIR *d;

		if (strncmp(de->d_name, "tracedat-", 9))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", fixture_root(), de->d_name);
		d = opendir(dir);
		while (d && (fe = readdir(d)) && nfiles < MAX_FILES) {
			size_t l = strlen(fe->d_name);

			if (l > 4 && !strcmp(fe->d_name + l - 4, ".dat"))
				snprintf(files[nfiles++], sizeof(files[0]), "%s/%s", dir, fe->d_name);
		}
		if (d)
			closedir(d);
	}
	if (root)
		closedir(root);
	qsort(files, nfiles, sizeof(files[0]), (int (*)(const void *, const void *))strcmp);
	/* a checkout without the files would otherwise pass quietly */
	p = popen("git ls-files 'tests/fixtures/tracedat-*/*.dat' 2>/dev/null", "r");
	while (p && fgets(line, sizeof(line), p))
		ncommitted++;
	if (p)
		pclose(p);
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static bool name_has(const char *path, const char *what)
{
	return strstr(base(path), what) != NULL;
}

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
	static char path[4][512];
	static int k;

	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof(tmpdir), "/tmp/ktop-test-tracedat.XXXXXX");
		if (!mkdtemp(tmpdir))
			abort();
	}
	k = (k + 1) % 4;
	snprintf(path[k], sizeof(path[k]), "%s/%s", tmpdir, name);
	return path[k];
}

/* ---- counts per buffer and CPU, by three readers ------------------------------- */

struct key {
	char		buf[64];
	int		cpu;
	uint64_t	events, missed;
};

struct counts {
	struct key	k[MAX_KEYS];
	int		n;
};

static struct key *key_of(struct counts *c, const char *buf, int cpu)
{
	for (int i = 0; i < c->n; i++)
		if (c->k[i].cpu == cpu && !strcmp(c->k[i].buf, buf))
			return &c->k[i];
	if (c->n == MAX_KEYS)
		abort();
	memset(&c->k[c->n], 0, sizeof(c->k[0]));
	snprintf(c->k[c->n].buf, sizeof(c->k[0].buf), "%s", buf);
	c->k[c->n].cpu = cpu;
	return &c->k[c->n++];
}

/* ktop: the store's events and lost marks (a mark of unknown size counts 1) per stream. */
static void ktop_counts(struct store *st, const struct snapshot_meta *m, struct counts *c)
{
	size_t nl = store_lost_marks(st, 0, UINT64_MAX, NULL, 0);
	struct store_lost *l = calloc(nl + 1, sizeof(*l));

	memset(c, 0, sizeof(*c));
	nl = store_lost_marks(st, 0, UINT64_MAX, l, nl);
	for (unsigned int s = 0; s < store_ncpus(st); s++) {
		const struct snapshot_buffer *b;
		struct store_stats ss;
		unsigned int cpu;
		struct key *k;

		b = snapshot_meta_buffer(m, s, &cpu);
		store_get_cpu_stats(st, s, &ss);
		k = key_of(c, b ? b->name : "top", (int)cpu);
		k->events += ss.events;
		for (size_t i = 0; i < nl; i++)
			if (l[i].cpu == s)
				k->missed += l[i].count ? l[i].count : 1;
	}
	free(l);
}

/* `trace-cmd report -N`: one line per record, "NAME: " before an instance's. */
static int report_counts(const char *path, struct counts *c)
{
	char cmd[1200], line[8192];
	FILE *p;

	memset(c, 0, sizeof(*c));
	snprintf(cmd, sizeof(cmd), "trace-cmd report -N '%.1000s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		char buf[64] = "top", *s = line, *lb;
		long long n;
		int cpu;

		while (*s == ' ')
			s++;
		/* an instance's lines: "NAME: " first (a comm-pid never ends in ':') */
		if (strchr(s, ' ') && strchr(s, ' ')[-1] == ':' && strncmp(s, "CPU:", 4)) {
			snprintf(buf, sizeof(buf), "%.*s", (int)(strchr(s, ' ') - s - 1), s);
			s = strchr(s, ' ') + 1;
			while (*s == ' ')
				s++;
		}
		if (sscanf(s, "CPU:%d [%lld EVENTS DROPPED]", &cpu, &n) == 2) {
			key_of(c, buf, cpu)->missed += (uint64_t)n;
			continue;
		}
		if (sscanf(s, "CPU:%d [EVENTS DROPPED]", &cpu) == 1) {
			key_of(c, buf, cpu)->missed++;
			continue;
		}
		lb = strstr(s, "] ");
		while (lb && lb > s && lb[-1] != '[')
			lb--;
		if (!lb || lb == s || sscanf(lb, "%d]", &cpu) != 1)
			continue;
		key_of(c, buf, cpu)->events++;
	}
	return pclose(p) ? -1 : 0;
}

static int lib_counts(const char *path, struct counts *c)
{
	char cmd[1200], line[512], buf[64];
	unsigned long long ev, mi;
	FILE *p;
	int cpu;

	memset(c, 0, sizeof(*c));
	snprintf(cmd, sizeof(cmd), LIBTOOL " '%.1000s'", path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "count buffer=%63s cpu=%d events=%llu missed=%llu", buf, &cpu, &ev,
			   &mi) == 4) {
			struct key *k = key_of(c, buf, cpu);

			k->events += ev;
			k->missed += mi;
		} else if (!strncmp(line, "DIFF", 4)) {
			printf("  %s: %s", base(path), line);
		}
	return pclose(p) ? -1 : 0;
}

/* Every (buffer, CPU) of @a with events has the same counts in @b, and the reverse. */
static bool counts_equal(const char *what, const struct counts *a, const struct counts *b,
			 bool missed)
{
	bool ok = true;

	for (int pass = 0; pass < 2; pass++) {
		const struct counts *x = pass ? b : a, *y = pass ? a : b;

		for (int i = 0; i < x->n; i++) {
			const struct key *k = &x->k[i];
			uint64_t ye = 0, ym = 0;

			for (int j = 0; j < y->n; j++)
				if (y->k[j].cpu == k->cpu && !strcmp(y->k[j].buf, k->buf)) {
					ye = y->k[j].events;
					ym = y->k[j].missed;
				}
			if (ye != k->events || (missed && ym != k->missed)) {
				printf("  %s: buffer %s cpu %d: %llu events %llu missed vs %llu %llu\n",
				       what, k->buf, k->cpu, (unsigned long long)(pass ? ye : k->events),
				       (unsigned long long)(pass ? ym : k->missed),
				       (unsigned long long)(pass ? k->events : ye),
				       (unsigned long long)(pass ? k->missed : ym));
				ok = false;
			}
		}
	}
	return ok;
}

static uint64_t total(const struct counts *c)
{
	uint64_t n = 0;

	for (int i = 0; i < c->n; i++)
		n += c->k[i].events;
	return n;
}

TEST(tracedat_fixtures_present)
{
	printf("  %d trace.dat fixtures (%d committed)\n", nfiles, ncommitted);
	CHECK(nfiles >= ncommitted);
	CHECK(nfiles > 0);
}

TEST(tracedat_counts_match_trace_cmd)
{
	for (int f = 0; f < nfiles; f++) {
		struct counts kc, rc, lc;
		struct snapshot_meta meta;
		struct store *st = NULL;
		char err[512] = "";

		CHECK(format_load(files[f], 0, &st, &meta, err, sizeof(err)) == 0);
		ktop_counts(st, &meta, &kc);
		CHECK(report_counts(files[f], &rc) == 0);
		CHECK(lib_counts(files[f], &lc) == 0);
		printf("  %s: v%u %s, %zu buffer(s), %llu events, tracer %s, clock %s\n",
		       base(files[f]), meta.version, name_has(files[f], "none") ? "none" : "",
		       meta.nbuffers, (unsigned long long)total(&kc), meta.tracer, meta.clock);
		CHECK(total(&kc) > 0);
		CHECK(counts_equal("ktop vs trace-cmd report", &kc, &rc, true));
		CHECK(counts_equal("ktop vs libtracecmd", &kc, &lc, true));
		CHECK_STR(meta.source, "trace.dat");
		CHECK(meta.version == (name_has(files[f], "-v6") ? 6u : 7u));
		if (name_has(files[f], "fgraph"))
			CHECK_STR(meta.tracer, "function_graph");
		else if (name_has(files[f], "func"))
			CHECK_STR(meta.tracer, "function");
		else
			CHECK_STR(meta.tracer, "nop");
		if (name_has(files[f], "twobuf")) {
			/*
			 * trace-cmd record -C local ... -B ktopb -C global ...: 3.1.6
			 * writes the first clock for every buffer (trace-output.c takes
			 * the output handle's); tracedat_buffer_clocks checks ktop's
			 */
			CHECK(meta.nbuffers == 2);
			CHECK_STR(meta.buffers[0].name, "top");
			CHECK_STR(meta.buffers[1].name, "ktopb");
			CHECK_STR(meta.buffers[1].clock, "local");
			CHECK(strstr(meta.notes, "2 buffers: top (local) ktopb (local)"));
		}
		if (name_has(files[f], "lost"))
			printf("  %s: %llu events lost (marks), CPU stats overrun %llu + %llu\n",
			       base(files[f]), (unsigned long long)(kc.k[0].missed +
			       (kc.n > 1 ? kc.k[1].missed : 0)),
			       (unsigned long long)(meta.cpustats ? meta.cpustats[0].overrun : 0),
			       (unsigned long long)(meta.cpustats && meta.ncpus > 1 ?
						    meta.cpustats[1].overrun : 0));
		snapshot_meta_free(&meta);
		store_free(st);
	}
}

/* `FILE@NAME` loads only that buffer; an unknown name is refused naming the buffers. */
TEST(tracedat_one_buffer)
{
	int checked = 0;

	for (int f = 0; f < nfiles; f++) {
		struct snapshot_meta meta, one;
		struct store *st = NULL, *st1 = NULL;
		char err[512] = "", arg[600];
		struct counts all, only;

		if (!name_has(files[f], "twobuf"))
			continue;
		CHECK(format_load(files[f], 0, &st, &meta, err, sizeof(err)) == 0);
		snprintf(arg, sizeof(arg), "%s@ktopb", files[f]);
		CHECK(format_load(arg, 0, &st1, &one, err, sizeof(err)) == 0);
		CHECK(one.nbuffers == 1 && !strcmp(one.buffers[0].name, "ktopb"));
		ktop_counts(st, &meta, &all);
		ktop_counts(st1, &one, &only);
		for (int i = 0; i < all.n; i++)
			if (strcmp(all.k[i].buf, "ktopb"))
				all.k[i].events = all.k[i].missed = 0;
		CHECK(counts_equal("@ktopb vs the whole file", &all, &only, true));
		store_free(st1);
		snapshot_meta_free(&one);
		snprintf(arg, sizeof(arg), "%s@nosuch", files[f]);
		CHECK(format_load(arg, 0, &st1, &one, err, sizeof(err)) == -ENOENT);
		CHECK(strstr(err, "nosuch") && strstr(err, "top, ktopb"));
		printf("  %s\n", err);
		store_free(st);
		snapshot_meta_free(&meta);
		checked++;
	}
	CHECK(checked || !nfiles);
}

/*
 * ktop's trace.dat of @st (version @v) at @path, read back by ktop into
 * *@bs and @bm. Return: 0, or -1 with the message printed.
 */
static int write_read(struct store *st, const struct snapshot_meta *m, unsigned int v,
		      const char *path, struct store **bs, struct snapshot_meta *bm)
{
	struct export_opts eo = { .dat_version = v };
	char err[512] = "";

	*bs = NULL;
	if (export_write(FORMAT_TRACEDAT, path, st, m, &eo, NULL, err, sizeof(err)) ||
	    format_load(path, 0, bs, bm, err, sizeof(err))) {
		printf("  %s\n", err);
		return -1;
	}
	return 0;
}

/* Events of @st the view filter @text keeps (-1: refused, the message printed). */
static long view_count(struct store *st, const struct snapshot_meta *m, const char *text)
{
	struct viewfilter *vf = viewfilter_new(st, NULL);
	struct err_pos fe = { 0 };
	long n = 0;

	if (!vf || viewfilter_set_buffers(vf, m))
		abort();
	if (viewfilter_push(vf, text, &fe)) {
		printf("  %s: %s\n", text, fe.msg);
		viewfilter_free(vf);
		return -1;
	}
	for (unsigned int cpu = 0; cpu < store_ncpus(st); cpu++) {
		uint64_t first, end;

		store_cpu_range(st, cpu, &first, &end);
		for (uint64_t i = first; i < end; i++) {
			struct ktop_event ev;

			if (!store_get(st, cpu, i, &ev) && ev.type != KTOP_T_NONE &&
			    viewfilter_match(vf, &ev))
				n++;
		}
	}
	viewfilter_free(vf);
	return n;
}

/*
 * buffer:NAME in the view filter (-F, the view prompt) keeps the events of
 * that buffer: as many as trace-cmd report prints for it.
 */
TEST(tracedat_buffer_view)
{
	int checked = 0;

	for (int f = 0; f < nfiles; f++) {
		struct snapshot_meta meta;
		struct store *st = NULL;
		struct counts rc;
		char err[512] = "";
		uint64_t top = 0, inst = 0;

		if (!name_has(files[f], "twobuf"))
			continue;
		CHECK(format_load(files[f], 0, &st, &meta, err, sizeof(err)) == 0);
		CHECK(report_counts(files[f], &rc) == 0);
		for (int i = 0; i < rc.n; i++)
			*(strcmp(rc.k[i].buf, "top") ? &inst : &top) += rc.k[i].events;
		CHECK(inst > 0 && top > 0);
		CHECK(view_count(st, &meta, "buffer:ktopb") == (long)inst);
		CHECK(view_count(st, &meta, "buffer:top") == (long)top);
		CHECK(view_count(st, &meta, "!buffer:ktopb") == (long)top);
		CHECK(view_count(st, &meta, "buffer:top,ktopb") == (long)(top + inst));
		CHECK(view_count(st, &meta, "buffer:nosuch") == -1);
		printf("  %s: buffer:ktopb %llu, buffer:top %llu events, as trace-cmd report\n",
		       base(files[f]), (unsigned long long)inst, (unsigned long long)top);
		store_free(st);
		snapshot_meta_free(&meta);
		checked++;
	}
	CHECK(checked || !nfiles);
}

/* Each buffer's own clock survives ktop's writing and reading, in both versions. */
TEST(tracedat_buffer_clocks)
{
	int checked = 0;

	for (int f = 0; f < nfiles; f++) {
		struct snapshot_meta meta;
		struct store *st = NULL;
		char err[512] = "";

		if (!name_has(files[f], "twobuf-v7"))
			continue;
		CHECK(format_load(files[f], 0, &st, &meta, err, sizeof(err)) == 0);
		snprintf(meta.buffers[1].clock, sizeof(meta.buffers[1].clock), "global");
		for (unsigned int v = 6; v <= 7; v++) {
			struct snapshot_meta back;
			struct store *bs;

			CHECK(write_read(st, &meta, v, tmp_path("clocks.dat"), &bs, &back) == 0);
			CHECK(back.nbuffers == 2);
			CHECK_STR(back.buffers[0].clock, "local");
			CHECK_STR(back.buffers[1].clock, "global");
			CHECK(strstr(back.notes, "each with its own clock"));
			printf("  v%u: %s\n", v, back.notes);
			store_free(bs);
			snapshot_meta_free(&back);
		}
		store_free(st);
		snapshot_meta_free(&meta);
		checked++;
	}
	CHECK(checked || !nfiles);
}

/* ---- the function_graph tree ----------------------------------------------------- */

struct call {
	int32_t		pid;
	unsigned int	depth;
	char		func[96];
	uint64_t	dur;		/* ns; UINT64_MAX: no exit seen */
};

struct calls {
	struct call	*v;
	size_t		n, cap;
};

static struct call *call_add(struct calls *c)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 256;
		c->v = realloc(c->v, c->cap * sizeof(*c->v));
		if (!c->v)
			abort();
	}
	memset(&c->v[c->n], 0, sizeof(c->v[0]));
	return &c->v[c->n++];
}

/* " + 39.147 us  |" -> ns (the plugin prints usecs.nsecs exactly) */
static bool report_dur(const char *s, const char *bar, uint64_t *ns)
{
	unsigned long long us, rem;

	while (s < bar && !(*s >= '0' && *s <= '9'))
		s++;
	if (s >= bar || sscanf(s, "%llu.%3llu us", &us, &rem) != 2)
		return false;
	*ns = us * 1000 + rem;
	return true;
}

/*
 * The calls of `trace-cmd report` (function_graph plugin) in pre-order per
 * task: "func() {" ... "}", or "func();" for a leaf.
 */
static int report_calls(const char *path, struct calls *out)
{
	struct {
		int32_t	pid;
		size_t	open[64];
		int	depth;
	} task[64];
	int ntask = 0;
	char cmd[1200], line[8192];
	FILE *p;

	memset(out, 0, sizeof(*out));
	snprintf(cmd, sizeof(cmd), "trace-cmd report '%.1000s' 2>/dev/null", path);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		char *fe = strstr(line, " funcgraph_entry: "), *fx = strstr(line, " funcgraph_exit: ");
		char *bar, *lb, *dash, *txt;
		int32_t pid;
		int t, sp = 0;

		if (!fe && !fx)
			continue;
		lb = strstr(line, " [");
		for (dash = lb; dash && dash > line && dash[-1] != '-'; dash--)
			;
		bar = strchr(fe ? fe : fx, '|');
		if (!lb || !dash || dash == line || !bar)
			continue;
		pid = atoi(dash);
		for (t = 0; t < ntask && task[t].pid != pid; t++)
			;
		if (t == ntask && ntask < 64)
			task[ntask++] = (typeof(task[0])){ .pid = pid };
		if (t == 64)
			continue;
		for (txt = bar + 1; *txt == ' '; txt++)
			sp++;
		if (fx) {
			/* "}": closes the innermost open call of the task */
			if (task[t].depth > 0) {
				struct call *c = &out->v[task[t].open[--task[t].depth]];

				if (!report_dur(fx, bar, &c->dur))
					c->dur = UINT64_MAX;
			}
			continue;
		}
		{
			struct call *c = call_add(out);
			size_t n = strcspn(txt, "(");

			c->pid = pid;
			c->depth = sp >= 2 ? (unsigned int)(sp - 2) / 2 : 0;
			snprintf(c->func, sizeof(c->func), "%.*s", (int)n, txt);
			if (strstr(txt, "() {")) {
				c->dur = UINT64_MAX;
				if (task[t].depth < 64)
					task[t].open[task[t].depth++] = out->n - 1;
			} else if (!report_dur(fe, bar, &c->dur)) {
				c->dur = UINT64_MAX;
			}
		}
	}
	return p && !pclose(p) ? 0 : -1;
}

static const char *sym_name(void *ctx, uint32_t sym)
{
	return intern_str(ctx, sym);
}

static void model_walk(struct fgraph *g, uint32_t id, int32_t pid, struct calls *out)
{
	for (uint32_t k = fgraph_first_child(g, FGRAPH_TIMELINE, id); k != FGRAPH_NONE;
	     k = fgraph_next_sibling(g, FGRAPH_TIMELINE, k)) {
		struct fgraph_info in;

		if (fgraph_node(g, FGRAPH_TIMELINE, k, &in) || in.kind != FGRAPH_K_CALL)
			continue;
		{
			struct call *c = call_add(out);

			c->pid = pid;
			c->depth = in.depth;
			snprintf(c->func, sizeof(c->func), "%s", in.name ? in.name : "?");
			c->dur = in.flags & (FGRAPH_F_EXIT_MISSING | FGRAPH_F_OPEN) ? UINT64_MAX :
				 in.total;
		}
		model_walk(g, k, pid, out);
	}
}

/* ktop's function_graph view of @st: the timeline's calls in pre-order per task. */
static int model_calls(struct store *st, struct calls *out)
{
	struct fgraph_config cfg = { .name = sym_name, .name_ctx = store_strings(st) };
	struct fgraph *g = fgraph_new(&cfg);

	memset(out, 0, sizeof(*out));
	if (!g || fgraph_feed_store(g, st, 0, UINT64_MAX) < 0)
		return -1;
	for (uint32_t k = fgraph_first_child(g, FGRAPH_TIMELINE, FGRAPH_ROOT); k != FGRAPH_NONE;
	     k = fgraph_next_sibling(g, FGRAPH_TIMELINE, k)) {
		struct fgraph_info in;

		if (!fgraph_node(g, FGRAPH_TIMELINE, k, &in))
			model_walk(g, k, in.kind == FGRAPH_K_TASK ? in.pid : -1, out);
	}
	fgraph_free(g);
	return 0;
}

/* The calls of task @pid, in order, from @c into @out (pointers). */
static size_t of_pid(const struct calls *c, int32_t pid, const struct call **out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n && n < max; i++)
		if (c->v[i].pid == pid)
			out[n++] = &c->v[i];
	return n;
}

/*
 * The function_graph tree ktop builds from @st equals the one `trace-cmd
 * report` draws from @report_of: the same calls, task by task, with the same
 * nesting, names and durations. Return: the calls compared.
 */
static size_t tree_vs_report(struct store *st, const char *report_of, const char *label)
{
	const struct call **a = calloc(65536, sizeof(*a)), **b = calloc(65536, sizeof(*b));
	struct calls mc = { 0 }, rc = { 0 };
	size_t same = 0, bad = 0;

	if (!a || !b || model_calls(st, &mc) || report_calls(report_of, &rc) || !rc.n) {
		printf("  %s: no tree to compare\n", label);
		bad++;
	} else if (mc.n != rc.n) {
		printf("  %s: ktop %zu calls, trace-cmd report %zu\n", label, mc.n, rc.n);
		bad++;
	}
	for (size_t i = 0; !bad && i < rc.n; i++) {
		int32_t pid = rc.v[i].pid;
		size_t na, nb, j;

		for (j = 0; j < i && rc.v[j].pid != pid; j++)
			;
		if (j < i)
			continue;	/* the task's calls are compared already */
		na = of_pid(&mc, pid, a, 65536);
		nb = of_pid(&rc, pid, b, 65536);
		if (na != nb) {
			printf("  %s: pid %d: ktop %zu calls, report %zu\n", label, pid, na, nb);
			bad++;
		}
		for (size_t k = 0; k < na && k < nb; k++) {
			if (a[k]->depth == b[k]->depth && !strcmp(a[k]->func, b[k]->func) &&
			    a[k]->dur == b[k]->dur) {
				same++;
				continue;
			}
			printf("  %s: pid %d call %zu: ktop %u %s %llu, report %u %s %llu\n", label,
			       pid, k, a[k]->depth, a[k]->func, (unsigned long long)a[k]->dur,
			       b[k]->depth, b[k]->func, (unsigned long long)b[k]->dur);
			bad++;
		}
	}
	free(mc.v);
	free(rc.v);
	free(a);
	free(b);
	return bad ? 0 : same;
}

TEST(tracedat_fgraph_tree_matches_report)
{
	int checked = 0;

	for (int f = 0; f < nfiles; f++) {
		struct snapshot_meta meta;
		struct store *st = NULL;
		char err[512] = "";
		size_t same;

		if (!name_has(files[f], "fgraph"))
			continue;
		CHECK(format_load(files[f], 0, &st, &meta, err, sizeof(err)) == 0);
		same = tree_vs_report(st, files[f], base(files[f]));
		CHECK(same > 0);
		printf("  %s: %zu calls, the same tree (nesting, names, durations)\n",
		       base(files[f]), same);
		/*
		 * issue 18 bug 5: ktop's own trace.dat, reopened by ktop, names the
		 * tracer and gives the same graph as report of the original
		 */
		for (unsigned int v = 6; v <= 7; v++) {
			struct snapshot_meta bm;
			struct store *bs;

			CHECK(write_read(st, &meta, v, tmp_path("own-fgraph.dat"), &bs, &bm) == 0);
			CHECK_STR(bm.tracer, "function_graph");
			CHECK_EQ_U64(tree_vs_report(bs, files[f], "ktop's own file"), same);
			printf("  %s -> ktop's v%u trace.dat -> ktop: tracer %s, the same %zu calls\n",
			       base(files[f]), v, bm.tracer, same);
			store_free(bs);
			snapshot_meta_free(&bm);
		}
		store_free(st);
		snapshot_meta_free(&meta);
		checked++;
	}
	CHECK(checked || !nfiles);
}

/* ---- round trips ---------------------------------------------------------------- */

/* `trace-cmd report` of @path, as text (free it). */
static char *report_text(const char *path, size_t *len)
{
	char cmd[1200], *out = NULL;
	size_t n = 0;
	FILE *p, *m;
	int c;

	snprintf(cmd, sizeof(cmd), "trace-cmd report '%.1000s' 2>&1", path);
	p = popen(cmd, "r");
	m = open_memstream(&out, &n);
	while (p && m && (c = fgetc(p)) != EOF)
		fputc(c, m);
	if (m)
		fclose(m);
	if (p)
		pclose(p);
	*len = n;
	return out;
}

/* Lines of @a not in @b at the same place; prints the first few. Return: how many. */
static size_t diff_lines(const char *what, char *a, char *b)
{
	char *sa, *sb, *la = strtok_r(a, "\n", &sa), *lb = strtok_r(b, "\n", &sb);
	size_t n = 0, shown = 0;

	while (la || lb) {
		if (!la || !lb || strcmp(la, lb)) {
			if (shown++ < 4)
				printf("  %s:\n    - %s\n    + %s\n", what, la ? la : "(end)",
				       lb ? lb : "(end)");
			n++;
		}
		la = la ? strtok_r(NULL, "\n", &sa) : NULL;
		lb = lb ? strtok_r(NULL, "\n", &sb) : NULL;
	}
	return n;
}

TEST(tracedat_roundtrip_same_report)
{
	static const struct {
		unsigned int	version;
		int		compress;
		const char	*name;
	} outs[] = {
		{ 7, TRACEDAT_COMPRESS_DEFAULT, "v7 zstd" },
		{ 7, TRACEDAT_COMPRESS_NONE, "v7 none" },
		{ 6, TRACEDAT_COMPRESS_DEFAULT, "v6" },
	};

	for (int f = 0; f < nfiles; f++) {
		struct snapshot_meta meta, km;
		struct store *st = NULL, *ks = NULL;
		char err[512] = "", *orig;
		const char *kpath = tmp_path("rt.ktop");
		size_t olen;

		CHECK(format_load(files[f], 0, &st, &meta, err, sizeof(err)) == 0);
		CHECK(ktop_write(kpath, st, &meta, NULL, err, sizeof(err)) == 0);
		CHECK(format_load(kpath, 0, &ks, &km, err, sizeof(err)) == 0);
		CHECK_STR(km.tracer, meta.tracer);
		CHECK(km.nbuffers == meta.nbuffers);
		orig = report_text(files[f], &olen);
		CHECK(orig && olen > 0);
		for (size_t o = 0; o < sizeof(outs) / sizeof(outs[0]); o++) {
			struct export_opts eo = { .dat_version = outs[o].version,
						  .dat_compress = outs[o].compress };
			const char *dpath = tmp_path("rt.dat");
			struct counts kc, lc, bc;
			struct snapshot_meta bm;
			struct store *bs = NULL;
			char *back, *ocopy;
			size_t blen, nd;

			CHECK(export_write(FORMAT_TRACEDAT, dpath, ks, &km, &eo, NULL, err,
					   sizeof(err)) == 0);
			back = report_text(dpath, &blen);
			ocopy = strdup(orig);
			CHECK(back && ocopy);
			nd = diff_lines(base(files[f]), ocopy, back);
			printf("  %s -> .ktop -> %s: trace-cmd report %zu bytes, %zu lines differ\n",
			       base(files[f]), outs[o].name, blen, nd);
			CHECK(nd == 0);
			/* libtracecmd (KernelShark's loader) reads it with the same counts */
			ktop_counts(st, &meta, &kc);
			CHECK(lib_counts(dpath, &lc) == 0);
			CHECK(counts_equal("original vs libtracecmd of the export", &kc, &lc, true));
			/* and ktop reads its own file back: the same buffers, tracer, events */
			CHECK(format_load(dpath, 0, &bs, &bm, err, sizeof(err)) == 0);
			ktop_counts(bs, &bm, &bc);
			CHECK(counts_equal("original vs ktop's export read back", &kc, &bc, true));
			CHECK_STR(bm.tracer, meta.tracer);
			CHECK(bm.version == outs[o].version);
			CHECK(snap_compare(st, bs, 0, UINT64_MAX) == 0);
			free(back);
			free(ocopy);
			store_free(bs);
			snapshot_meta_free(&bm);
		}
		free(orig);
		store_free(ks);
		snapshot_meta_free(&km);
		store_free(st);
		snapshot_meta_free(&meta);
	}
}

/* ---- stacks ----------------------------------------------------------------------- */

/* Frame @i of stack @id of @st as "name@addr", or "" when @id has no frame @i. */
static void frame_text(struct store *st, uint32_t id, unsigned int i, char *out, size_t len)
{
	struct stack_frame fr;

	out[0] = 0;
	if (!stacks_frame(store_stacks(st), id, i, &fr))
		snprintf(out, len, "%s@%llx", fr.name, (unsigned long long)fr.addr);
}

/* Every event of @a has in @b the same stack: kernel frames (names, addresses), user addresses. */
static long stacks_differ(struct store *a, struct store *b, uint64_t *with)
{
	long bad = 0;

	*with = 0;
	for (unsigned int cpu = 0; cpu < store_ncpus(a); cpu++) {
		uint64_t fa, ea, fb, eb;

		store_cpu_range(a, cpu, &fa, &ea);
		store_cpu_range(b, cpu, &fb, &eb);
		if (ea - fa != eb - fb)
			return -1;
		for (uint64_t i = 0; fa + i < ea; i++) {
			struct ktop_event x, y;
			struct stack_info sx = { 0 }, sy = { 0 };

			if (store_get(a, cpu, fa + i, &x) || store_get(b, cpu, fb + i, &y))
				return -1;
			if (!x.stack && !y.stack)
				continue;
			(*with)++;
			if (!x.stack || !y.stack || stacks_get(store_stacks(a), x.stack, &sx) ||
			    stacks_get(store_stacks(b), y.stack, &sy) || sx.nkern != sy.nkern ||
			    sx.nuser != sy.nuser || (sx.nuser && sx.tgid != sy.tgid)) {
				if (bad++ < 3)
					printf("  cpu %u event %llu: stack %u (%u+%u frames), back %u "
					       "(%u+%u)\n", cpu, (unsigned long long)i, x.stack,
					       sx.nkern, sx.nuser, y.stack, sy.nkern, sy.nuser);
				continue;
			}
			for (unsigned int k = 0; k < sx.nkern + sx.nuser; k++) {
				char fx[160], fy[160];

				frame_text(a, x.stack, k, fx, sizeof(fx));
				frame_text(b, y.stack, k, fy, sizeof(fy));
				if (k >= sx.nkern) {
					/* user frames: addresses (a file has no process maps) */
					if (sx.frames[k] == sy.frames[k])
						continue;
				} else if (!strcmp(fx, fy)) {
					continue;
				}
				if (bad++ < 3)
					printf("  cpu %u event %llu frame %u: %s, back %s\n", cpu,
					       (unsigned long long)i, k, fx, fy);
			}
		}
	}
	return bad;
}

/* The "=> NAME" lines of the kernel_stack records of `trace-cmd report`, sorted. */
static size_t report_frames(const char *path, char ***out)
{
	char cmd[1200], line[1024], **v = NULL;
	size_t n = 0, cap = 0;
	bool in_kernel = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "trace-cmd report '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		char name[256];

		if (strstr(line, ": kernel_stack:") || strstr(line, ": <stack trace>")) {
			in_kernel = true;
			continue;
		}
		if (strncmp(line, "=> ", 3)) {
			in_kernel = false;
			continue;
		}
		if (!in_kernel || sscanf(line + 3, "%255s", name) != 1)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			v = realloc(v, cap * sizeof(*v));
			if (!v)
				abort();
		}
		v[n++] = strdup(name);
	}
	if (p)
		pclose(p);
	qsort(v, n, sizeof(*v), (int (*)(const void *, const void *))strcmp_p);
	*out = v;
	return n;
}

/* The kernel frames' names of every event's stack in @st, sorted. */
static size_t store_frames(struct store *st, char ***out)
{
	char **v = NULL;
	size_t n = 0, cap = 0;

	for (unsigned int cpu = 0; cpu < store_ncpus(st); cpu++) {
		uint64_t first, end;

		store_cpu_range(st, cpu, &first, &end);
		for (uint64_t i = first; i < end; i++) {
			struct ktop_event ev;
			struct stack_info si;

			if (store_get(st, cpu, i, &ev) || !ev.stack ||
			    stacks_get(store_stacks(st), ev.stack, &si))
				continue;
			for (unsigned int k = 0; k < si.nkern; k++) {
				struct stack_frame fr;

				if (n == cap) {
					cap = cap ? 2 * cap : 1024;
					v = realloc(v, cap * sizeof(*v));
					if (!v)
						abort();
				}
				stacks_frame(store_stacks(st), ev.stack, k, &fr);
				v[n++] = strdup(fr.name);
			}
		}
	}
	qsort(v, n, sizeof(*v), (int (*)(const void *, const void *))strcmp_p);
	*out = v;
	return n;
}

static void free_strs(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/*
 * issue 17: the stacks of the rt guests' and the host's stack fixtures
 * (tests/fixtures/stacks-*: stacktrace triggers, userstacktrace) written as
 * trace.dat: trace-cmd report shows each event's kernel_stack record with the
 * frames ktop holds, and ktop reads every event's stack back.
 */
TEST(tracedat_stacks_roundtrip)
{
	char names[SNAP_MAX_FIXTURES][64];
	int n = snap_fixture_names(names, SNAP_MAX_FIXTURES), checked = 0;

	for (int f = 0; f < n; f++) {
		struct snapshot_meta meta;
		struct stack_syms *sy;
		struct symbols *ks;
		struct store *st;

		if (strncmp(names[f], "stacks-", 7))
			continue;
		st = snap_fixture_store(names[f], &meta);
		CHECK(st && meta.kallsyms);
		/* the original's frames named from the fixture's kallsyms, as a live session's */
		ks = symbols_parse(meta.kallsyms, strlen(meta.kallsyms), 0);
		sy = stack_syms_new(st, ks, false);
		CHECK(ks && sy);
		for (unsigned int v = 6; v <= 7; v++) {
			const char *path = tmp_path("stacks.dat");
			char **rf = NULL, **kf = NULL;
			struct snapshot_meta bm;
			struct store *bs;
			size_t nr, nk, same = 0;
			uint64_t with;

			CHECK(write_read(st, &meta, v, path, &bs, &bm) == 0);
			nr = report_frames(path, &rf);
			nk = store_frames(st, &kf);
			for (size_t i = 0; i < nr && i < nk; i++)
				same += !strcmp(rf[i], kf[i]);
			if (nr != nk || same != nk)
				printf("  %s v%u: report %zu kernel frames, ktop %zu, %zu the same\n",
				       names[f], v, nr, nk, same);
			CHECK(nk > 0 && nr == nk && same == nk);
			free_strs(rf, nr);
			free_strs(kf, nk);
			CHECK(snap_compare(st, bs, 0, UINT64_MAX) == 0);
			CHECK(stacks_differ(st, bs, &with) == 0);
			CHECK(with > 0);
			printf("  %s -> v%u trace.dat: %zu kernel frames in trace-cmd report as ktop "
			       "holds them; %llu events' stacks read back the same\n", names[f], v,
			       nk, (unsigned long long)with);
			store_free(bs);
			snapshot_meta_free(&bm);
		}
		stack_syms_free(sy);
		symbols_free(ks);
		store_free(st);
		snapshot_meta_free(&meta);
		checked++;
	}
	CHECK(checked > 0);
}

/* ---- corrupt and truncated files ------------------------------------------------ */

static int load_bytes(const uint8_t *p, size_t n, char *err, size_t errlen)
{
	const char *path = tmp_path("bad.dat");
	struct snapshot_meta meta;
	struct store *st = NULL;
	FILE *f = fopen(path, "wb");
	int ret;

	if (!f || fwrite(p, 1, n, f) != n || fclose(f))
		abort();
	ret = format_load(path, 16 << 20, &st, &meta, err, errlen);
	if (!ret) {
		store_free(st);
		snapshot_meta_free(&meta);
	} else if (!strstr(err, path)) {
		printf("  an error without the file's name: %s\n", err);
		ret = -1000;
	}
	return ret;
}

TEST(tracedat_corrupt_and_truncated)
{
	int checked = 0;

	for (int f = 0; f < nfiles; f++) {
		size_t n, refused = 0, read = 0, tries = 0;
		char err[512], first[512] = "";
		uint8_t *p, *q;
		FILE *in;
		struct stat sb;

		/* a compressed v7 file and a v6 file: the two layouts */
		if (!name_has(files[f], "fgraph"))
			continue;
		CHECK(stat(files[f], &sb) == 0);
		n = (size_t)sb.st_size;
		p = malloc(n);
		q = malloc(n);
		in = fopen(files[f], "rb");
		CHECK(p && q && in && fread(p, 1, n, in) == n);
		fclose(in);
		/*
		 * every truncation point in the first KiB (headers), then every 97th,
		 * (every other one, every 194th, under the sanitizers)
		 * and the last 64: each one refused as truncated
		 */
		for (size_t cut = 0; cut < n; cut += cut < 1024 || cut >= n - 64 ? SPARSE : 97 * SPARSE) {
			int ret = load_bytes(p, cut, err, sizeof(err));

			if (ret != -EBADMSG && !(cut < 10 && ret == -ENOMSG))
				printf("  cut at %zu of %zu: %d %s\n", cut, n, ret, ret ? err : "read");
			/* shorter than the magic: "not a trace" */
			CHECK(ret == -EBADMSG || (cut < 10 && ret == -ENOMSG));
			if (!first[0] && cut > n / 2)
				snprintf(first, sizeof(first), "%s", err);
			refused++;
			tries++;
		}
		/* byte flips (all bits): every 3rd byte of the first 4 KiB, then every 197th */
		for (size_t at = 0; at < n; at += at < 4096 ? 3 * SPARSE : 197 * SPARSE) {
			int ret;

			memcpy(q, p, n);
			q[at] ^= 0xff;
			ret = load_bytes(q, n, err, sizeof(err));
			if (ret && ret != -EBADMSG && ret != -EPROTONOSUPPORT && ret != -E2BIG &&
			    at >= 10)
				printf("  byte %zu flipped: %d %s\n", at, ret, err);
			CHECK(ret != -1000);
			CHECK(ret == 0 || ret == -EBADMSG || ret == -EPROTONOSUPPORT || ret == -E2BIG ||
			      (at < 10 && ret == -ENOMSG));
			ret ? refused++ : read++;
			tries++;
		}
		printf("  %s: %zu truncated or corrupt copies: %zu refused, %zu read; e.g. %s\n",
		       base(files[f]), tries, refused, read, first);
		/* a v7 file cut in its data: refused, saying so */
		CHECK(load_bytes(p, n - 100, err, sizeof(err)) == -EBADMSG);
		CHECK(strstr(err, "truncated or corrupt trace.dat"));
		free(p);
		free(q);
		checked++;
	}
	CHECK(checked || !nfiles);
}

/*
 * A format whose field lies outside any record: "offset:4294901772", which
 * libtraceevent reads as -65524 (made from ktop-host-sparse-v7none.dat; the
 * trace.dat writer wrote 64 KiB before its record buffer). Refused, naming
 * the event and the field.
 */
TEST(tracedat_field_outside_record)
{
	const char *path = "tests/fuzz/corpus/regress-field-offset.dat";
	struct snapshot_meta meta;
	struct store *st = NULL;
	char err[512] = "";
	int ret;

	ret = format_load(path, 16 << 20, &st, &meta, err, sizeof(err));
	if (!ret) {
		store_free(st);
		snapshot_meta_free(&meta);
	}
	printf("  %s\n", err);
	CHECK(ret == -EBADMSG);
	CHECK(strstr(err, path));
	CHECK(strstr(err, "sched:sched_process_fork puts field parent_pid at offset 4294901772, "
		      "size 4, outside a record"));
}

TEST(cleanup)
{
	if (tmpdir[0])
		CHECK(test_rm_rf(tmpdir) == 0);
}

TEST_MAIN()
