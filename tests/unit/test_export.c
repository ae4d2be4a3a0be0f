// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Exports: trace.dat read back by trace-cmd itself and by libtracecmd, the
 * JSON loaded by Python's json module with its slices compared against the
 * function_graph model (src/model/fgraph.h) when an rt fixture has function_graph
 * records, the text compared with the kernel's own trace text recorded with
 * the fixture, CSV counts, atomic writes and errors.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "snap_common.h"
#include "store/stacks.h"
#include "formats/format.h"
#include "lib/file.h"
#include "model/fgraph.h"
#include "model/flags.h"

static char fixtures[SNAP_MAX_FIXTURES][64];
static int nfixtures;

__attribute__((constructor)) static void list_fixtures(void)
{
	nfixtures = snap_fixture_names(fixtures, SNAP_MAX_FIXTURES);
}

static char tmpdir[256];

static char *tmp_path(const char *name)
{
	char *path = malloc(512);

	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof(tmpdir), "/tmp/ktop-test-export.XXXXXX");
		if (!mkdtemp(tmpdir))
			abort();
	}
	if (!path)
		abort();
	snprintf(path, 512, "%s/%s", tmpdir, name);
	return path;
}

/* ---- trace.dat --------------------------------------------------------------- */

struct rline {
	unsigned int	cpu;
	int		pid;
	uint64_t	ts;
	char		name[64];
};

/*
 * Parse `trace-cmd report -t` lines: "comm-pid [cpu] sec.nsec: event: ...";
 * the kernel_stack and user_stack records (an event's stack) are counted in
 * *@stacks, not returned.
 */
static size_t report_lines(const char *file, struct rline **out, size_t *dropped,
			   size_t *stacks)
{
	char cmd[1024], line[4096];
	size_t n = 0, cap = 0;
	FILE *p;

	*out = NULL;
	*dropped = 0;
	*stacks = 0;
	/* -N: no plugins, one line per record (the function_graph plugin merges leaf calls) */
	snprintf(cmd, sizeof(cmd), "trace-cmd report -N -t '%s' 2>/dev/null", file);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p)) {
		char *br = strstr(line, "] "), *lb, *dash, *colon;
		unsigned long long sec, nsec;
		unsigned long long dn;
		struct rline r;

		if (sscanf(line, "CPU:%*u [%llu EVENTS DROPPED]", &dn) == 1) {
			*dropped += dn;
			continue;
		}
		if (!br)
			continue;
		lb = br;
		while (lb > line && *lb != '[')
			lb--;
		if (*lb != '[' || sscanf(lb, "[%u]", &r.cpu) != 1)
			continue;
		dash = lb;
		while (dash > line && *dash != '-')
			dash--;
		r.pid = atoi(dash + 1);
		if (sscanf(br + 2, " %llu.%llu", &sec, &nsec) != 2)
			continue;
		r.ts = sec * 1000000000ull + nsec;
		colon = strchr(br + 2, ':');
		if (!colon || sscanf(colon + 1, " %63[^:]", r.name) != 1)
			continue;
		if (!strcmp(r.name, "kernel_stack") || !strcmp(r.name, "user_stack")) {
			(*stacks)++;
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			*out = realloc(*out, cap * sizeof(**out));
			if (!*out)
				abort();
		}
		(*out)[n++] = r;
	}
	pclose(p);
	return n;
}

TEST(tracedat_trace_cmd_report_same_events)
{
	for (int f = 0; f < nfixtures; f++) {
		struct snapshot_meta meta;
		struct store *st = snap_fixture_store(fixtures[f], &meta);
		struct export_stats es;
		struct store_stats ss;
		struct rline *rl;
		char err[512] = "", *path = tmp_path("r.dat");
		size_t n, dropped, stacks, want_stacks = 0, matched = 0;
		struct stat sb;

		CHECK(st);
		CHECK(export_write(FORMAT_TRACEDAT, path, st, &meta, NULL, &es, err, sizeof(err)) == 0);
		CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0600);
		store_get_stats(st, &ss);
		CHECK_EQ_U64(es.events, ss.events);
		n = report_lines(path, &rl, &dropped, &stacks);
		CHECK_EQ_U64(n, ss.events);
		/* per CPU, in order: cpu, ts (ns), pid, event name */
		for (unsigned int cpu = 0; cpu < store_ncpus(st); cpu++) {
			uint64_t first, end, seq;
			size_t i = 0;

			store_cpu_range(st, cpu, &first, &end);
			for (seq = first; seq < end; seq++) {
				struct ktop_event ev;
				const struct ktop_schema_type *t;

				CHECK(store_get(st, cpu, seq, &ev) == 0);
				t = schema_get(store_schema(st), ev.type);
				while (i < n && rl[i].cpu != cpu)
					i++;
				CHECK(i < n);
				if (rl[i].ts != ev.ts || rl[i].pid != ev.pid || strcmp(rl[i].name, t->name))
					printf("  %s cpu %u seq %llu: report %llu %d %s, ktop %llu %d %s\n",
					       fixtures[f], cpu, (unsigned long long)seq,
					       (unsigned long long)rl[i].ts, rl[i].pid, rl[i].name,
					       (unsigned long long)ev.ts, ev.pid, t->name);
				CHECK(rl[i].ts == ev.ts && rl[i].pid == ev.pid &&
				      !strcmp(rl[i].name, t->name));
				i++;
				matched++;
				if (ev.stack) {
					struct stack_info si;

					CHECK(stacks_get(store_stacks(st), ev.stack, &si) == 0);
					want_stacks += (si.nkern > 0) + (si.nuser > 0);
				}
			}
		}
		CHECK_EQ_U64(matched, ss.events);
		/* an event's stack: its kernel_stack and user_stack records */
		CHECK_EQ_U64(stacks, want_stacks);
		/* lost events: trace-cmd shows the counts the store holds */
		CHECK_EQ_U64(dropped, ss.lost);
		printf("  %s: trace-cmd report printed %zu events (%zu dropped, %zu stack records), "
		       "file %llu bytes\n", fixtures[f], n, dropped, stacks,
		       (unsigned long long)es.bytes);
		free(rl);
		snapshot_meta_free(&meta);
		store_free(st);
		unlink(path);
		free(path);
	}
}

TEST(tracedat_reload_same_events)
{
	for (int f = 0; f < nfixtures; f++) {
		struct snapshot_meta meta, back;
		struct store *st = snap_fixture_store(fixtures[f], &meta), *st2 = NULL;
		struct store_stats a, b;
		char err[512] = "", *path = tmp_path("reload.dat");

		CHECK(st);
		CHECK(export_write(FORMAT_TRACEDAT, path, st, &meta, NULL, NULL, err, sizeof(err)) == 0);
		/* detected from the content, whatever the name */
		CHECK(format_load(path, 0, &st2, &back, err, sizeof(err)) == 0);
		CHECK_STR(back.source, "trace.dat");
		CHECK(snap_compare(st, st2, 0, UINT64_MAX) == 0);
		store_get_stats(st, &a);
		store_get_stats(st2, &b);
		CHECK_EQ_U64(a.events, b.events);
		CHECK_EQ_U64(a.lost, b.lost);
		snapshot_meta_free(&meta);
		snapshot_meta_free(&back);
		store_free(st);
		store_free(st2);
		unlink(path);
		free(path);
	}
}

TEST(tracedat_window_and_errors)
{
	struct snapshot_meta meta, none;
	struct store *st = snap_fixture_store("host-sched", &meta), *st2 = NULL;
	struct export_opts o = { 0 };
	struct store_stats ss;
	char err[512] = "", *path = tmp_path("w.dat");

	CHECK(st);
	store_get_stats(st, &ss);
	o.t0 = ss.first_ts + (ss.last_ts - ss.first_ts) / 4;
	o.t1 = ss.first_ts + (ss.last_ts - ss.first_ts) / 2;
	CHECK(export_write(FORMAT_TRACEDAT, path, st, &meta, &o, NULL, err, sizeof(err)) == 0);
	CHECK(format_load(path, 0, &st2, NULL, err, sizeof(err)) == 0);
	CHECK(snap_compare(st, st2, o.t0, o.t1) == 0);
	CHECK(snap_count(st2) > 0 && snap_count(st2) < ss.events);
	store_free(st2);
	/* no formats: a clear error, no file */
	memset(&none, 0, sizeof(none));
	unlink(path);
	CHECK(export_write(FORMAT_TRACEDAT, path, st, &none, NULL, NULL, err, sizeof(err)) < 0);
	CHECK(strstr(err, path) && strstr(err, "formats"));
	CHECK(access(path, F_OK) != 0);
	/* a directory that does not exist */
	CHECK(export_write(FORMAT_TRACEDAT, "/nonexistent/dir/x.dat", st, &meta, NULL, NULL, err,
			      sizeof(err)) < 0);
	CHECK(strstr(err, "/nonexistent/dir/x.dat"));
	snapshot_meta_free(&meta);
	store_free(st);
	free(path);
}

TEST(tracedat_bad_input)
{
	char *path = tmp_path("bad.dat"), err[512];
	struct store *st = NULL;
	FILE *f;
	static const uint8_t hdr[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g',
				       '9', 0, 0, 8, 0, 0x10, 0, 0 };

	f = fopen(path, "wb");
	CHECK(f);
	fwrite(hdr, 1, sizeof(hdr), f);
	fclose(f);
	CHECK(format_load(path, 0, &st, NULL, err, sizeof(err)) < 0);
	CHECK(strstr(err, path) && strstr(err, "version"));
	printf("  %s\n", err);
	f = fopen(path, "wb");
	CHECK(f);
	fwrite(hdr, 1, 12, f);
	fclose(f);
	CHECK(format_load(path, 0, &st, NULL, err, sizeof(err)) < 0);
	CHECK(strstr(err, path));
	printf("  %s\n", err);
	free(path);
}

/*
 * A trace.dat the fuzzer found (kept in its corpus) that sends libtracecmd's
 * tracecmd_iterate_events() round without end: ktop's own reader refuses it
 * at once (its event formats are not text), or walks its pages once.
 */
TEST(tracedat_endless_libtracecmd_loop)
{
	const char *path = "tests/fuzz/corpus/e5ca3803213e777e66c55ff106ae74658d41b415";
	struct snapshot_meta meta;
	struct store *st = NULL;
	struct timespec t0, t1;
	char err[512] = "";
	double s;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = format_load(path, 0, &st, &meta, err, sizeof(err));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	/* refused (its formats are not text) or read, at once */
	if (ret) {
		CHECK(strstr(err, path));
		printf("  %s (%.3f s)\n", err, s);
	} else {
		CHECK(st && snap_count(st) == 0);
		CHECK(strstr(meta.notes, "could not be decoded"));
		printf("  %s (%.3f s)\n", meta.notes, s);
		snapshot_meta_free(&meta);
		store_free(st);
	}
	CHECK(s < 2);
}

/* ---- round trips ------------------------------------------------------------- */

/* Save @st as @path (.ktop or trace.dat by its name), load it back into *@out. */
static int chain_step(const char *path, struct store *st, const struct snapshot_meta *m,
		      struct store **out, struct snapshot_meta *back)
{
	char err[512] = "";
	int ret;

	if (strstr(path, ".ktop"))
		ret = ktop_write(path, st, m, NULL, err, sizeof(err));
	else
		ret = export_write(FORMAT_TRACEDAT, path, st, m, NULL, NULL, err, sizeof(err));
	if (!ret)
		ret = format_load(path, 0, out, back, err, sizeof(err));
	if (ret)
		printf("  %s: %s\n", path, err);
	unlink(path);
	return ret;
}

/*
 * Issue 15 point 2: live -> .ktop -> trace.dat -> .ktop -> trace.dat keeps
 * the events, lost marks, tracer and what the next format needs (event
 * formats, header_event, printk formats, kallsyms, clock) at every step.
 */
TEST(roundtrip_chain)
{
	static const char *const steps[] = { "c1.ktop", "c2.dat", "c3.ktop", "c4.dat" };

	for (int f = 0; f < nfixtures; f++) {
		struct snapshot_meta m[5];
		struct store *st[5] = { snap_fixture_store(fixtures[f], &m[0]) };
		struct store_stats a, b;

		CHECK(st[0]);
		if (!m[0].tracer[0])
			snprintf(m[0].tracer, sizeof(m[0].tracer), "nop");
		store_get_stats(st[0], &a);
		for (int i = 0; i < 4; i++) {
			char *path = tmp_path(steps[i]);

			CHECK(chain_step(path, st[i], &m[i], &st[i + 1], &m[i + 1]) == 0);
			free(path);
			CHECK(snap_compare(st[0], st[i + 1], 0, UINT64_MAX) == 0);
			store_get_stats(st[i + 1], &b);
			CHECK_EQ_U64(b.events, a.events);
			CHECK_EQ_U64(b.lost, a.lost);
			if (strcmp(m[i + 1].tracer, m[0].tracer))
				printf("  %s step %s: tracer %s, not %s\n", fixtures[f], steps[i],
				       m[i + 1].tracer, m[0].tracer);
			CHECK_STR(m[i + 1].tracer, m[0].tracer);
			CHECK_EQ_U64(m[i + 1].nformats >= m[0].nformats ? 1 : 0, 1);
			CHECK(m[i + 1].header_page);
			CHECK(!m[0].kallsyms || !*m[0].kallsyms ||
			      (m[i + 1].kallsyms && !strcmp(m[i + 1].kallsyms, m[0].kallsyms)));
			/* the fixtures have none: a trace.dat brings the kernel's */
			CHECK(i == 0 || m[i + 1].header_event);
			CHECK(!m[0].printk || (m[i + 1].printk &&
					       !strcmp(m[i + 1].printk, m[0].printk)));
			CHECK(!m[0].clock[0] || !strcmp(m[i + 1].clock, m[0].clock));
		}
		printf("  %s: %llu events, %llu lost, tracer %s through 4 steps\n", fixtures[f],
		       (unsigned long long)a.events, (unsigned long long)a.lost, m[4].tracer);
		for (int i = 0; i < 5; i++) {
			snapshot_meta_free(&m[i]);
			store_free(st[i]);
		}
	}
}

/* ---- JSON ------------------------------------------------------------------------ */

/* Run json_tree.py on @path. Return: its output (free it), NULL when it failed. */
static char *json_tree(const char *path)
{
	char cmd[1024], *out = NULL;
	size_t len = 0;
	FILE *p, *m;
	int c, rc;

	snprintf(cmd, sizeof(cmd), "python3 tests/unit/json_tree.py '%s'", path);
	p = popen(cmd, "r");
	if (!p)
		return NULL;
	m = open_memstream(&out, &len);
	while ((c = fgetc(p)) != EOF)
		fputc(c, m);
	fclose(m);
	rc = pclose(p);
	if (rc) {
		printf("  json_tree.py: %.300s\n", out);
		free(out);
		return NULL;
	}
	return out;
}

static uint64_t count_of(const char *tree, const char *ph)
{
	char key[16];
	const char *p;

	snprintf(key, sizeof(key), "count %s ", ph);
	p = strstr(tree, key);
	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

TEST(json_loads_and_counts)
{
	for (int f = 0; f < nfixtures; f++) {
		struct snapshot_meta meta;
		struct store *st = snap_fixture_store(fixtures[f], &meta);
		struct export_stats es;
		struct store_stats ss;
		char err[512] = "", *path = tmp_path("t.json"), *tree;
		uint64_t fg = 0, lat = 0;
		struct store_iter *it;
		struct ktop_event ev;
		uint64_t seq;

		CHECK(st);
		CHECK(export_write(FORMAT_JSON, path, st, &meta, NULL, &es, err, sizeof(err)) == 0);
		tree = json_tree(path);
		CHECK(tree);
		store_get_stats(st, &ss);
		it = store_iter_new(st, 0, UINT64_MAX, NULL);
		while (store_iter_next(it, &ev, &seq)) {
			fg += ev.type == KTOP_T_FGRAPH_ENTRY || ev.type == KTOP_T_FGRAPH_EXIT;
			lat += ev.type == KTOP_T_TIMERLAT || ev.type == KTOP_T_OSNOISE;
		}
		store_iter_free(it);
		/* every other event is one instant, plus one per lost-event record */
		CHECK_EQ_U64(count_of(tree, "i"), ss.events - fg - lat + ss.lost_marks);
		CHECK_EQ_U64(count_of(tree, "C"), lat);
		/* a lost-event record says why (the fixtures': the kernel's ring buffer) */
		if (ss.lost_marks) {
			char *text = NULL;
			size_t len;

			CHECK(file_read(path, 256u << 20, &text, &len) == 0);
			CHECK(text && strstr(text, "\"reason\":\"kernel\"}"));
			free(text);
		}
		CHECK_EQ_U64(count_of(tree, "B"), count_of(tree, "E"));
		printf("  %s: %llu instants, %llu counters, %llu slices, %llu bytes\n", fixtures[f],
		       (unsigned long long)count_of(tree, "i"), (unsigned long long)count_of(tree, "C"),
		       (unsigned long long)count_of(tree, "B"), (unsigned long long)es.bytes);
		free(tree);
		snapshot_meta_free(&meta);
		store_free(st);
		unlink(path);
		free(path);
	}
}

static const char *fg_name(void *ctx, uint32_t sym)
{
	return intern_str(store_strings(ctx), sym);
}

/* Pre-order paths of @id's calls into @m; Return: false when the subtree is irregular. */
static bool fg_paths(struct fgraph *g, uint32_t id, char *prefix, size_t plen, FILE *m,
		     int32_t tid)
{
	bool clean = true;

	for (uint32_t c = fgraph_first_child(g, FGRAPH_TIMELINE, id); c != FGRAPH_NONE;
	     c = fgraph_next_sibling(g, FGRAPH_TIMELINE, c)) {
		struct fgraph_info in;
		size_t n;

		if (fgraph_node(g, FGRAPH_TIMELINE, c, &in))
			return false;
		if (in.kind != FGRAPH_K_CALL ||
		    (in.flags & (FGRAPH_F_ENTRY_MISSING | FGRAPH_F_EXIT_MISSING | FGRAPH_F_OPEN |
				 FGRAPH_F_HAS_GAP | FGRAPH_F_DEPTH_OVERFLOW |
				 FGRAPH_F_PARENT_MISSING)))
			clean = false;
		if (in.kind != FGRAPH_K_CALL)
			continue;
		n = strlen(prefix);
		snprintf(prefix + n, plen - n, "%s%s", n ? "/" : "", in.name);
		fprintf(m, "path %d %s\n", tid, prefix);
		clean &= fg_paths(g, c, prefix, plen, m, tid);
		prefix[n] = 0;
	}
	return clean;
}

/* The JSON's slices against the function_graph model, for rt fixtures with calls. */
TEST(json_nesting_matches_fgraph_tree)
{
	DIR *d = opendir(fixture_root());
	struct dirent *de;
	int compared = 0, fixtures_seen = 0;

	CHECK(d);
	while ((de = readdir(d))) {
		struct fgraph_config cfg = { .irq_inline = true };
		struct snapshot_meta meta;
		struct store *st;
		struct fgraph *g;
		struct fgraph_stats fs;
		char err[512], *path, *tree, prefix[8192];
		int tasks = 0, same = 0;

		if (strncmp(de->d_name, "rt", 2))
			continue;
		st = snap_fixture_store(de->d_name, &meta);
		if (!st)
			continue;
		cfg.name = fg_name;
		cfg.name_ctx = st;
		g = fgraph_new(&cfg);
		CHECK(g);
		fgraph_feed_store(g, st, 0, UINT64_MAX);
		fgraph_get_stats(g, &fs);
		if (!fs.entries) {
			fgraph_free(g);
			store_free(st);
			snapshot_meta_free(&meta);
			continue;
		}
		fixtures_seen++;
		path = tmp_path("fg.json");
		CHECK(export_write(FORMAT_JSON, path, st, &meta, NULL, NULL, err, sizeof(err)) == 0);
		tree = json_tree(path);
		CHECK(tree);
		for (uint32_t t = fgraph_first_child(g, FGRAPH_TIMELINE, FGRAPH_ROOT);
		     t != FGRAPH_NONE; t = fgraph_next_sibling(g, FGRAPH_TIMELINE, t)) {
			struct fgraph_info in;
			char *mine = NULL, *theirs = NULL, key[64], dkey[64];
			size_t ml = 0, tl = 0;
			int32_t tid;
			FILE *m, *o;
			bool clean;

			if (fgraph_node(g, FGRAPH_TIMELINE, t, &in) || in.kind != FGRAPH_K_TASK)
				continue;
			tid = in.pid ? in.pid : (1 << 30) + in.cpu;
			m = open_memstream(&mine, &ml);
			prefix[0] = 0;
			clean = fg_paths(g, t, prefix, sizeof(prefix), m, tid);
			fclose(m);
			snprintf(key, sizeof(key), "path %d ", tid);
			snprintf(dkey, sizeof(dkey), "dirty %d\n", tid);
			o = open_memstream(&theirs, &tl);
			for (char *l = tree; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
				if (!strncmp(l, key, strlen(key)))
					fprintf(o, "%.*s\n", (int)strcspn(l, "\n"), l);
			fclose(o);
			tasks++;
			if (clean && !strstr(tree, dkey) && ml) {
				if (strcmp(mine, theirs))
					printf("  %s tid %d differs:\n--- fgraph\n%.400s--- json\n%.400s",
					       de->d_name, tid, mine, theirs);
				CHECK(!strcmp(mine, theirs));
				same++;
			}
			free(mine);
			free(theirs);
		}
		printf("  %s: %d of %d tasks regular and compared, all the same\n", de->d_name,
		       same, tasks);
		compared += same;
		free(tree);
		unlink(path);
		free(path);
		fgraph_free(g);
		store_free(st);
		snapshot_meta_free(&meta);
	}
	closedir(d);
	if (!fixtures_seen)
		printf("SKIP json_nesting_matches_fgraph_tree: no rt* fixture with function_graph "
		       "records in %s (recorded in the qemu guest, see tests/fixtures/README)\n",
		       fixture_root());
	else
		CHECK(compared > 0);
}

/*
 * Comm names are bytes from the kernel, UTF-8 most of the time: the JSON keeps
 * valid UTF-8 byte for byte and says U+FFFD for a byte that is not (issue 15;
 * the old escaper wrote "caf\u00c3\u00a9").
 */
TEST(json_keeps_utf8_comm)
{
	static const char comm[] = "caf\xc3\xa9 \xe5\x90\x8d \xff!";
	static const char want[] = "\"name\":\"caf\xc3\xa9 \xe5\x90\x8d \\ufffd!\"";
	bool tried = false;

	for (int f = 0; f < nfixtures && !tried; f++) {
		struct snapshot_meta meta;
		struct store *st = snap_fixture_store(fixtures[f], &meta);
		char err[512] = "", *path = tmp_path("u.json"), *text = NULL, *tree;
		struct store_iter *it = st ? store_iter_new(st, 0, UINT64_MAX, NULL) : NULL;
		struct ktop_event ev;
		int32_t pid = 0;
		uint64_t seq;

		while (it && !pid && store_iter_next(it, &ev, &seq))
			if (ev.type == KTOP_T_FGRAPH_ENTRY && ev.pid > 0)
				pid = ev.pid;	/* a track with a thread_name record */
		store_iter_free(it);
		if (pid) {
			tried = true;
			store_set_comm(st, pid, comm, 0);
			CHECK(export_write(FORMAT_JSON, path, st, &meta, NULL, NULL, err,
					   sizeof(err)) == 0);
			CHECK(file_read(path, FILE_NO_MAX, &text, NULL) == 0);
			CHECK(text && strstr(text, want));
			tree = json_tree(path);	/* still JSON */
			CHECK(tree);
			free(tree);
			free(text);
			unlink(path);
		}
		free(path);
		if (st) {
			snapshot_meta_free(&meta);
			store_free(st);
		}
	}
	CHECK(tried);
}

/* ---- text --------------------------------------------------------------------------- */

struct tline {
	char	*prefix;	/* "pid [cpu] flags ts: event:" without the comm */
	char	*info;
	int	cpu;
};

static size_t text_lines(char *text, struct tline **out)
{
	size_t n = 0, cap = 0;

	*out = NULL;
	for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
		char *br = strstr(l, " ["), *dash, *c1, *c2;

		if (l[0] == '#' || !br)
			continue;
		/* a stack record: ktop keeps it on its event (src/store/stacks.h), not as a line */
		if (strstr(l, ": <stack trace>") || strstr(l, ": <user stack trace>"))
			continue;
		dash = br;
		while (dash > l && *dash != '-')
			dash--;
		c1 = strstr(br, ": ");
		c2 = c1 ? strstr(c1 + 2, ": ") : NULL;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			*out = realloc(*out, cap * sizeof(**out));
		}
		(*out)[n].cpu = atoi(br + 2);
		(*out)[n].prefix = dash + 1;
		if (c2) {
			c2[1] = 0;
			(*out)[n].info = c2 + 2;
		} else {
			(*out)[n].info = NULL;	/* a tracer's own layout: no event name */
		}
		n++;
	}
	return n;
}

struct orig {
	struct tep_handle	*tep;
	struct trace_seq	seq;
	char			**info[64];
	size_t			n[64], cap[64];
};

static int orig_rec(void *arg, unsigned int cpu, unsigned long long ts, void *data, int size)
{
	struct orig *o = arg;
	struct tep_record r = { .ts = ts, .cpu = cpu, .data = data, .size = size };

	struct tep_event *e = tep_find_event(o->tep, tep_data_type(o->tep, &r));

	if (cpu >= 64)
		return 0;
	/* stack records belong to their event, as in text_lines() */
	if (e && !strcmp(e->system, "ftrace") && strstr(e->name, "_stack"))
		return 0;
	trace_seq_reset(&o->seq);
	tep_print_event(o->tep, &o->seq, &r, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&o->seq);
	if (o->n[cpu] == o->cap[cpu]) {
		o->cap[cpu] = o->cap[cpu] ? 2 * o->cap[cpu] : 1024;
		o->info[cpu] = realloc(o->info[cpu], o->cap[cpu] * sizeof(char *));
	}
	o->info[cpu][o->n[cpu]++] = strdup(o->seq.buffer);
	return 0;
}

/* Return: true when the store keeps fewer fields of @name than its kernel format has. */
static bool lossy_type(struct store *st, struct tep_handle *tep, const char *name)
{
	struct tep_event *e = tep_find_event_by_name(tep, NULL, name);
	const struct ktop_schema_type *t;
	int id, nf = 0;

	if (!e)
		return false;
	id = schema_find(store_schema(st), e->system, e->name);
	t = id > 0 ? schema_get(store_schema(st), id) : NULL;
	for (struct tep_format_field *f = e->format.fields; f; f = f->next)
		nf++;
	return t && t->nfields < nf;
}

/*
 * When both lines have a seven-letter latency column and differ only in its
 * sixth letter (preempt-lazy depth), blank that letter in both.
 * Return: true when it did.
 */
static bool lazy_col(char *x, char *y)
{
	char *cx = strchr(x, ']'), *cy = strchr(y, ']');

	if (!cx || !cy || strlen(cx) < 10 || strlen(cy) < 10 || cx[9] != ' ' || cy[9] != ' ' ||
	    cx[7] == cy[7])
		return false;
	cx[7] = cy[7] = '_';
	if (!strcmp(x, y))
		return true;
	return false;
}

/*
 * The text against what the kernel recorded: pid, CPU, latency column, time
 * stamp and event name of every line against the kernel's own trace file of
 * the same records; the event text against libtraceevent's rendering of the
 * original raw records (the kernel's trace file differs from libtraceevent
 * in hashed pointers and some symbolic fields), except for the event types
 * whose fields the store keeps only in part.
 */
TEST(text_matches_kernel_trace)
{
	for (int f = 0; f < nfixtures; f++) {
		struct snapshot_meta meta;
		struct store *st = snap_fixture_store(fixtures[f], &meta);
		char err[512], *path = tmp_path("t.txt"), kpath[4200], *mine, *theirs;
		struct orig o = { 0 };
		struct fixture *fx;
		struct tline *a, *b;
		size_t na, nb, same = 0, lossy = 0, tracer_lines = 0, lazy_diff = 0;

		CHECK(st);
		CHECK(export_write(FORMAT_TEXT, path, st, &meta, NULL, NULL, err, sizeof(err)) == 0);
		mine = fixture_read_file(path, NULL);
		snprintf(kpath, sizeof(kpath), "%s/%s/trace.txt", fixture_root(), fixtures[f]);
		theirs = fixture_read_file(kpath, NULL);
		CHECK(mine);
		if (!theirs) {
			/* recorded with -x: the original records' rendering is all there is */
			theirs = strdup(mine);
			printf("  %s: no trace.txt: event text only\n", fixtures[f]);
		}
		snprintf(kpath, sizeof(kpath), "%s/%s", fixture_root(), fixtures[f]);
		fx = fixture_open(kpath);
		CHECK(fx);
		o.tep = fixture_tep(fx);
		trace_seq_init(&o.seq);
		for (unsigned int cpu = 0; cpu < fixture_ncpus(fx) && cpu < 64; cpu++)
			fixture_for_each_record(fx, cpu, orig_rec, &o);
		na = text_lines(mine, &a);
		nb = text_lines(theirs, &b);
		if (!nb && na) {
			/* function_graph's trace file has its own layout: event text only */
			printf("  %s: the kernel's text is not in the event layout: event text only\n",
			       fixtures[f]);
			free(b);
			free(theirs);
			theirs = fixture_read_file(path, NULL);
			nb = text_lines(theirs, &b);
		}
		CHECK_EQ_U64(na, nb);
		/* same lines per CPU in the same order (ties across CPUs may interleave) */
		for (int cpu = 0; cpu < (int)store_ncpus(st) && cpu < 64; cpu++) {
			size_t i = 0, j = 0, k = 0;

			for (;;) {
				char name[64];

				while (i < na && a[i].cpu != cpu)
					i++;
				while (j < nb && b[j].cpu != cpu)
					j++;
				if (i >= na || j >= nb)
					break;
				/*
				 * 6.1-rt's seven-letter column: the store has no slot for
				 * common_preempt_lazy_count (struct ktop_event), so its
				 * digit (the 6th letter) is compared apart and counted.
				 */
				if (lazy_col(a[i].prefix, b[j].prefix))
					lazy_diff++;
				if (strcmp(a[i].prefix, b[j].prefix))
					printf("  %s:\n  ktop:   %s\n  kernel: %s\n", fixtures[f],
					       a[i].prefix, b[j].prefix);
				CHECK(!strcmp(a[i].prefix, b[j].prefix));
				CHECK(k < o.n[cpu]);
				name[0] = 0;
				sscanf(strrchr(a[i].prefix, ']') + 1, " %*s %*s %63[^:]", name);
				if (!a[i].info) {
					tracer_lines++;	/* compared whole with the kernel's */
				} else if (!strcmp(a[i].info, o.info[cpu][k])) {
					same++;
				} else if (lossy_type(st, o.tep, name)) {
					lossy++;
				} else {
					printf("  %s %s:\n  ktop:     %s\n  original: %s\n", fixtures[f],
					       name, a[i].info, o.info[cpu][k]);
					CHECK(!strcmp(a[i].info, o.info[cpu][k]));
				}
				i++;
				j++;
				k++;
			}
			CHECK(i >= na && j >= nb);
		}
		printf("  %s: %zu lines; event text identical on %zu, %zu of types the store "
		       "keeps in part, %zu in a tracer's layout; %zu lines differ only in the "
		       "preempt-lazy depth (not kept)\n", fixtures[f], na, same, lossy,
		       tracer_lines, lazy_diff);
		CHECK(same + tracer_lines > 0);
		for (int cpu = 0; cpu < 64; cpu++) {
			for (size_t k = 0; k < o.n[cpu]; k++)
				free(o.info[cpu][k]);
			free(o.info[cpu]);
		}
		trace_seq_destroy(&o.seq);
		fixture_close(fx);
		free(a);
		free(b);
		free(mine);
		free(theirs);
		snapshot_meta_free(&meta);
		store_free(st);
		unlink(path);
		free(path);
	}
}

/* ---- CSV ------------------------------------------------------------------------- */

/* The kernel's trace.txt of fixture @name (free it), NULL when it has none. */
static char *kernel_text(const char *name)
{
	char kpath[4200];

	snprintf(kpath, sizeof(kpath), "%s/%s/trace.txt", fixture_root(), name);
	return fixture_read_file(kpath, NULL);
}

/* ktop's text export of fixture @name (free it), and *@ncpus; NULL when it failed. */
static char *ktop_text(const char *name, unsigned int *ncpus)
{
	struct snapshot_meta meta;
	struct store *st = snap_fixture_store(name, &meta);
	char err[512], *path = tmp_path("k.txt"), *text = NULL;

	if (st && !export_write(FORMAT_TEXT, path, st, &meta, NULL, NULL, err, sizeof(err)))
		text = fixture_read_file(path, NULL);
	*ncpus = st ? store_ncpus(st) : 0;
	snapshot_meta_free(&meta);
	store_free(st);
	unlink(path);
	free(path);
	return text;
}

/* One CPU's function_graph lines: the graph part, after "C) " or after the timestamp. */
struct glines {
	char	*v[8192];
	size_t	n;
};

/* "} /\* f *\/" -> "}": the kernel names an exit's function only when it lost the entry. */
static char *graph_strip_tail(char *g)
{
	char *c = strstr(g, "} /* ");

	if (c)
		c[1] = 0;
	return g;
}

/* ktop's lines, leaf calls (an entry and its exit next on the CPU) merged as the kernel does. */
static void graph_mine(char *text, struct glines *cpu, int ncpu)
{
	for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
		char *br = strstr(l, " ["), *g = br ? strstr(br, ": ") : NULL;
		int c = br ? atoi(br + 2) : -1;

		if (l[0] == '#' || !g || c < 0 || c >= ncpu || !strstr(g, "|  ") ||
		    cpu[c].n >= 8192)
			continue;
		cpu[c].v[cpu[c].n++] = g + 2;
	}
	for (int c = 0; c < ncpu; c++) {
		size_t o = 0;

		for (size_t i = 0; i < cpu[c].n; i++) {
			char *e = cpu[c].v[i], *x = i + 1 < cpu[c].n ? cpu[c].v[i + 1] : NULL;
			char *eb = strstr(e, "|  "), *xb = x ? strstr(x, "|  ") : NULL;
			size_t fl = strlen(e) - (size_t)(eb - e);
			char want[512];

			if (xb && strstr(e, "() {") && fl > 7) {
				/* "|  <indent>f() {" then "|  <indent>} /\* f *\/" */
				size_t ind = strspn(eb + 3, " ");

				snprintf(want, sizeof(want), "%*s} /* %.*s */", (int)ind, "",
					 (int)(strlen(eb + 3 + ind) - 4), eb + 3 + ind);
				if (!strcmp(xb + 3, want)) {
					/* the exit's duration, the entry's name: "f();" */
					snprintf(xb + 3, strlen(xb + 3) + 1, "%*s%.*s();", (int)ind, "",
						 (int)(strlen(eb + 3 + ind) - 4), eb + 3 + ind);
					cpu[c].v[o++] = x;
					i++;
					continue;
				}
			}
			cpu[c].v[o++] = graph_strip_tail(e);
		}
		cpu[c].n = o;
	}
}

/* The kernel's function_graph file: " C) DURATION |  calls", context switches left out. */
static void graph_kernel(char *text, struct glines *cpu, int ncpu)
{
	for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
		char *p = strchr(l, ')');
		int c = atoi(l);

		if (l[0] == '#' || !p || strstr(l, "=>") || c < 0 || c >= ncpu || cpu[c].n >= 8192)
			continue;
		cpu[c].v[cpu[c].n++] = graph_strip_tail(p + 2);
	}
}

/*
 * Issue 18 #3.12: function_graph's records come out in the kernel's graph
 * layout (duration column with its marks, indentation, "f() {", "}"),
 * compared line by line, per CPU, with the kernel's own function_graph
 * trace file recorded with each function_graph fixture.
 */
TEST(text_fgraph_matches_kernel_graph)
{
	int seen = 0;

	for (int f = 0; f < nfixtures; f++) {
		char *mine, *theirs = kernel_text(fixtures[f]);
		struct glines *a, *b;
		unsigned int ncpus;
		size_t lines = 0;

		if (!theirs || strncmp(theirs, "# tracer: function_graph", 24)) {
			free(theirs);
			continue;
		}
		seen++;
		mine = ktop_text(fixtures[f], &ncpus);
		a = calloc(2, sizeof(*a));
		b = calloc(2, sizeof(*b));
		CHECK(mine && a && b && ncpus <= 2);
		graph_mine(mine, a, 2);
		graph_kernel(theirs, b, 2);
		for (int c = 0; c < 2; c++) {
			if (a[c].n != b[c].n)
				printf("  %s cpu %d: %zu graph lines, the kernel's %zu\n", fixtures[f], c,
				       a[c].n, b[c].n);
			CHECK_EQ_U64(a[c].n, b[c].n);
			for (size_t i = 0; i < a[c].n; i++) {
				if (strcmp(a[c].v[i], b[c].v[i]))
					printf("  %s cpu %d line %zu:\n  ktop:   '%s'\n  kernel: '%s'\n",
					       fixtures[f], c, i, a[c].v[i], b[c].v[i]);
				CHECK_STR(a[c].v[i], b[c].v[i]);
			}
			lines += a[c].n;
		}
		printf("  %s: %zu graph lines as the kernel wrote them\n", fixtures[f], lines);
		free(a);
		free(b);
		free(mine);
		free(theirs);
	}
	CHECK(seen > 0);
}

/* The legend of the latency columns: the "#" lines from the first "_-" to "| |". */
static void text_legend(const char *text, char *out, size_t len)
{
	const char *p = strstr(text, "#                                _"), *e;

	out[0] = 0;
	e = p ? strstr(p, "| |") : NULL;
	e = e ? strchr(e, '\n') : NULL;
	if (p && e)
		snprintf(out, len, "%.*s", (int)(e - p), p);
}

/*
 * Issue 18 #3.12: the legend has as many latency columns as the rows (seven
 * on 6.1-rt, five elsewhere): the same lines as the kernel's own trace file.
 */
TEST(text_header_matches_kernel)
{
	int compared = 0, seven = 0;

	for (int f = 0; f < nfixtures; f++) {
		char *mine, *theirs = kernel_text(fixtures[f]), lm[2048], lk[2048];
		unsigned int ncpus;

		text_legend(theirs ? theirs : "", lk, sizeof(lk));
		if (!lk[0]) {
			free(theirs);
			continue;
		}
		mine = ktop_text(fixtures[f], &ncpus);
		CHECK(mine);
		text_legend(mine, lm, sizeof(lm));
		if (strcmp(lm, lk))
			printf("  %s:\n%s\n  the kernel's:\n%s\n", fixtures[f], lm, lk);
		CHECK_STR(lm, lk);
		compared++;
		seven += strstr(lk, "|||||||") != NULL;
		free(mine);
		free(theirs);
	}
	printf("  %d legends as the kernel's, %d of them with seven columns\n", compared, seven);
	CHECK(compared > 0 && seven > 0);
}

TEST(csv_counts)
{
	struct store *st = snap_fixture_store("host-sched", NULL);
	struct export_opts o = { .csv_key = STORE_KEY_CPU };
	char err[512], *path = tmp_path("c.csv"), *text, *l;
	uint64_t per_cpu[64] = { 0 }, got[64] = { 0 };

	CHECK(st);
	for (unsigned int cpu = 0; cpu < store_ncpus(st) && cpu < 64; cpu++) {
		uint64_t f, e;

		store_cpu_range(st, cpu, &f, &e);
		per_cpu[cpu] = e - f;
	}
	CHECK(export_write(FORMAT_CSV, path, st, NULL, &o, NULL, err, sizeof(err)) == 0);
	text = fixture_read_file(path, NULL);
	CHECK(text);
	CHECK(!strncmp(text, "cpu,events,percent\n", 19));
	for (l = strchr(text, '\n') + 1; *l; l = strchr(l, '\n') + 1) {
		unsigned int cpu;
		unsigned long long n;

		CHECK(sscanf(l, "%u,%llu,", &cpu, &n) == 2 && cpu < 64);
		got[cpu] = n;
	}
	for (int i = 0; i < 64; i++)
		CHECK_EQ_U64(got[i], per_cpu[i]);
	free(text);
	o.csv_key = STORE_KEY_TYPE;
	CHECK(export_write(FORMAT_CSV, path, st, NULL, &o, NULL, err, sizeof(err)) == 0);
	text = fixture_read_file(path, NULL);
	CHECK(text && strstr(text, "\"sched\",\"sched_switch\","));
	free(text);
	unlink(path);
	free(path);
	store_free(st);
}

TEST(format_names_and_atomic_replace)
{
	struct store *st = snap_fixture_store("host-sparse", NULL);
	char err[512], *path = tmp_path("x.json");
	FILE *f;
	struct stat sb;

	CHECK(format_id_by_name("a.ktop") == FORMAT_KTOP);
	CHECK(format_id_by_name("a.dat") == FORMAT_TRACEDAT);
	CHECK(format_id_by_name("a.json") == FORMAT_JSON);
	CHECK(format_id_by_name("a.csv") == FORMAT_CSV);
	CHECK(format_id_by_name("a.txt") == FORMAT_TEXT);
	CHECK(format_id_by_name("a") == -1);
	/* an existing file is replaced whole; no temporary is left behind */
	f = fopen(path, "w");
	CHECK(f);
	fputs("old", f);
	fclose(f);
	chmod(path, 0644);
	CHECK(export_write(FORMAT_JSON, path, st, NULL, NULL, NULL, err, sizeof(err)) == 0);
	CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0600 && sb.st_size > 3);
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "test -z \"$(ls '%s' | grep 'x.json.')\"", tmpdir);
		CHECK(system(cmd) == 0);
	}
	unlink(path);
	free(path);
	store_free(st);
}

/*
 * A save note (a flight recorder's) travels with the trace: .ktop keeps it in
 * its metadata and reads it back, JSON names it in otherData, the text
 * export prints it as comment lines. A writer asked to stop (export_opts.cancel)
 * stops with -ECANCELED, in every format that writes events, and leaves no file.
 */
TEST(save_note_and_cancel)
{
	static const char note[] = "ktop flight recorder: save 3\nheld: all of the window";
	static const struct {
		enum format_id		f;
		const char		*name;
	} fmts[] = {
		{ FORMAT_KTOP, "c.ktop" }, { FORMAT_TRACEDAT, "c.dat" }, { FORMAT_JSON, "c.json" },
		{ FORMAT_TEXT, "c.txt" },
	};
	struct snapshot_meta meta, back;
	struct store *st = snap_fixture_store("host-sched", &meta), *rd = NULL;
	struct export_opts o = { .csv_key = STORE_KEY_TYPE };
	char err[512], *path, *text;
	int cancel = 1;

	CHECK(st);
	meta.save_note = strdup(note);
	CHECK(meta.save_note);
	path = tmp_path("note.ktop");
	CHECK(!export_write(FORMAT_KTOP, path, st, &meta, NULL, NULL, err, sizeof(err)));
	CHECK(!format_load(path, 0, &rd, &back, err, sizeof(err)));
	CHECK_STR(back.save_note, note);
	snapshot_meta_free(&back);
	store_free(rd);
	free(path);
	path = tmp_path("note.json");
	CHECK(!export_write(FORMAT_JSON, path, st, &meta, NULL, NULL, err, sizeof(err)));
	text = file_read_text(path);
	CHECK(text && strstr(text, "\"save_note\":\"ktop flight recorder: save 3\\nheld: all"));
	free(text);
	free(path);
	path = tmp_path("note.txt");
	CHECK(!export_write(FORMAT_TEXT, path, st, &meta, NULL, NULL, err, sizeof(err)));
	text = file_read_text(path);
	CHECK(text && strstr(text, "# tracer: nop\n#\n# ktop flight recorder: save 3\n"
				"# held: all of the window\n#\n"));
	free(text);
	free(path);

	o.cancel = &cancel;
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		char cmd[600];

		path = tmp_path(fmts[i].name);
		CHECK(export_write(fmts[i].f, path, st, &meta, &o, NULL, err, sizeof(err)) ==
		      -ECANCELED);
		CHECK(strstr(err, "stopped before it was complete"));
		CHECK(access(path, F_OK) && errno == ENOENT);
		snprintf(cmd, sizeof(cmd), "test -z \"$(ls '%s' | grep '^%s')\"", tmpdir,
			 fmts[i].name);
		CHECK(system(cmd) == 0);
		free(path);
	}
	snapshot_meta_free(&meta);
	store_free(st);
}

TEST(cleanup)
{
	if (tmpdir[0])
		CHECK(test_rm_rf(tmpdir) == 0);
}

TEST_MAIN()
