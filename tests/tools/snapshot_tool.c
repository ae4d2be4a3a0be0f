// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snapshot_tool - drive the formats (src/formats/) from the shell, for
 * tests/live/test_snapshot.sh (until ktop's own -o/-i/--stream exist, and
 * beside them after).
 *
 *   snapshot_tool export FIXTURE_DIR OUT     decode a recorded fixture and write
 *                                            OUT in the format of its extension
 *                                            (.ktop .dat .json .txt .csv)
 *   snapshot_tool stream FIXTURE_DIR [N]     write a .ktop stream of the fixture's
 *                                            events to stdout, in N flushes
 *                                            (default 4), 50 ms apart
 *   snapshot_tool load FILE|-                load a .ktop or trace.dat (or a
 *                                            stream from stdin) and print
 *                                            "events N lost N cpus N source S"
 *   snapshot_tool dump FILE|-                load, then one line per event:
 *                                            "cpu ts pid system:name"
 *   snapshot_tool replicate IN OUT N [UNTIL] load IN, append copies of its events
 *                                            (shifted in time) up to N events,
 *                                            write OUT (tests/bench/reopen_frame.sh);
 *                                            with UNTIL (seconds, as the event list
 *                                            shows them) the copies take only the
 *                                            events before it, so that what IN holds
 *                                            after UNTIL is there once, far back
 *                                            (tests/tui/test_tui_search.sh)
 *   snapshot_tool merge OUT DIR...           decode several fixtures (recorded
 *                                            one after the other on one boot,
 *                                            given in time order) into one store
 *                                            and write OUT (tests/fixtures/demo.ktop)
 *
 * Exit status: 0, 1 for a usage or write error, 2 for a bad input file (the
 * message names the file and the problem), 3 for EPIPE on stdout.
 */
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ingest/decode.h"
#include "formats/format.h"
#include "formats/ktop.h"
#include "ingest/fixture.h"
#include "lib/intern.h"
#include "store/schema.h"
#include "store/store.h"
#include "store/stacks.h"
#include "kernel/stacksym.h"
#include "kernel/symbols.h"

static struct store *fixture_store(const char *dir, struct snapshot_meta *meta)
{
	struct fixture *fx = fixture_open(dir);
	struct stack_syms *sy;
	struct symbols *syms;
	struct decode_ctx *dc;
	struct store *st;

	if (!fx) {
		fprintf(stderr, "%s: %s\n", dir, strerror(errno));
		return NULL;
	}
	st = store_new(0, fixture_ncpus(fx));
	syms = symbols_load(fixture_path(fx, "kallsyms"));
	dc = st ? decode_ctx_new(fixture_tep(fx), st, syms) : NULL;
	/* the stacks' kernel frames named from the fixture's kallsyms, as a live run does */
	sy = st ? stack_syms_new(st, syms, false) : NULL;
	for (unsigned int cpu = 0; dc && cpu < fixture_ncpus(fx); cpu++) {
		struct decoder *d = decoder_new(dc, cpu);

		for (size_t i = 0; d && i < fixture_npages(fx, cpu); i++)
			decoder_page(d, fixture_page(fx, cpu, i), fixture_page_size(fx), NULL);
		decoder_free(d);
		store_publish(st, cpu);
	}
	for (uint32_t id = 1; sy && id <= stacks_count(store_stacks(st)); id++) {
		uint32_t names[2 * STACK_MAX_FRAMES];

		stacks_names(store_stacks(st), id, names, 2 * STACK_MAX_FRAMES);
	}
	stack_syms_free(sy);
	memset(meta, 0, sizeof(*meta));
	snapshot_meta_load_dir(meta, dir, NULL);
	decode_ctx_free(dc);
	symbols_free(syms);
	fixture_close(fx);
	return st;
}

/* The "name: X" line of an event format text. */
static bool merge_format_name(const char *text, char *name, size_t len)
{
	const char *p = strstr(text, "name: ");

	if (!p)
		return false;
	p += 6;
	snprintf(name, len, "%.*s", (int)strcspn(p, "\n"), p);
	return true;
}

/* Decode every fixture of @dirs into one store; keep each event format once. */
static int cmd_merge(const char *out, int ndirs, char **dirs)
{
	struct snapshot_meta meta = { 0 };
	struct store *st = NULL;
	unsigned int ncpus = 1;
	char err[512];
	int ret, fmt;

	for (int i = 0; i < ndirs; i++) {
		struct fixture *fx = fixture_open(dirs[i]);

		if (!fx) {
			fprintf(stderr, "%s: %s\n", dirs[i], strerror(errno));
			return 2;
		}
		if (fixture_ncpus(fx) > ncpus)
			ncpus = fixture_ncpus(fx);
		fixture_close(fx);
	}
	st = store_new(0, ncpus);
	if (!st)
		return 1;
	for (int i = 0; i < ndirs; i++) {
		struct fixture *fx = fixture_open(dirs[i]);
		struct symbols *syms = symbols_load(fixture_path(fx, "kallsyms"));
		struct decode_ctx *dc = decode_ctx_new(fixture_tep(fx), st, syms);
		struct snapshot_meta m = { 0 };

		for (unsigned int cpu = 0; dc && cpu < fixture_ncpus(fx); cpu++) {
			struct decoder *d = decoder_new(dc, cpu);

			for (size_t k = 0; d && k < fixture_npages(fx, cpu); k++)
				decoder_page(d, fixture_page(fx, cpu, k), fixture_page_size(fx),
					     NULL);
			decoder_free(d);
			store_publish(st, cpu);
		}
		if (!i) {
			snapshot_meta_load_dir(&meta, dirs[i], NULL);
		} else {
			snapshot_meta_load_dir(&m, dirs[i], NULL);
			for (size_t f = 0; f < m.nformats; f++) {
				char name[128], other[128];
				bool have = false;

				if (!merge_format_name(m.formats[f].text, name, sizeof(name)))
					continue;
				for (size_t g = 0; g < meta.nformats && !have; g++) {
					const struct snapshot_format *h = &meta.formats[g];

					have = !strcmp(h->system, m.formats[f].system) &&
					       merge_format_name(h->text, other, sizeof(other)) &&
					       !strcmp(name, other);
				}
				if (!have)
					snapshot_meta_add_format(&meta, m.formats[f].system,
								 m.formats[f].text);
			}
			/* kallsyms: the lines of every fixture (duplicates are harmless) */
			if (m.kallsyms && *m.kallsyms) {
				size_t a = meta.kallsyms ? strlen(meta.kallsyms) : 0;
				char *k = realloc(meta.kallsyms, a + strlen(m.kallsyms) + 1);

				if (k) {
					strcpy(k + a, m.kallsyms);
					meta.kallsyms = k;
				}
			}
			snapshot_meta_free(&m);
		}
		decode_ctx_free(dc);
		symbols_free(syms);
		fixture_close(fx);
	}
	meta.ncpus = ncpus;
	fmt = format_id_by_name(out);
	ret = export_write(fmt < 0 ? FORMAT_KTOP : (enum format_id)fmt, out, st, &meta, NULL,
			   NULL, err, sizeof(err));
	if (ret)
		fprintf(stderr, "%s\n", err);
	store_free(st);
	snapshot_meta_free(&meta);
	return ret ? 1 : 0;
}

static int cmd_replicate(const char *in, const char *out, uint64_t want, uint64_t until)
{
	struct snapshot_meta meta;
	struct store_stats ss;
	struct store *st;
	uint64_t n, span, shift = 0;
	char err[512];
	int ret;

	if (format_load(in, (size_t)want * 64 + (256u << 20), &st, &meta, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	store_get_stats(st, &ss);
	n = ss.events;
	span = ss.last_ts - ss.first_ts + 1000;
	static uint64_t end[SNAPSHOT_MAX_CPUS], first[SNAPSHOT_MAX_CPUS];
	unsigned int ncpus = store_ncpus(st);

	/* the original events only: the copies are appended after them */
	for (unsigned int cpu = 0; cpu < ncpus && cpu < SNAPSHOT_MAX_CPUS; cpu++)
		store_cpu_range(st, cpu, &first[cpu], &end[cpu]);
	for (uint64_t was = 0; n && n < want && n > was;) {
		was = n;
		shift += span;
		for (unsigned int cpu = 0; cpu < ncpus && cpu < SNAPSHOT_MAX_CPUS && n < want;
		     cpu++) {
			for (uint64_t i = first[cpu]; i < end[cpu] && n < want; i++) {
				struct ktop_event ev;

				if (store_get(st, cpu, i, &ev) || ev.ts >= until)
					continue;
				ev.ts += shift;
				if (store_append(st, &ev))
					break;
				n++;
			}
			store_publish(st, cpu);
		}
	}
	ret = ktop_write(out, st, &meta, NULL, err, sizeof(err));
	if (ret)
		fprintf(stderr, "%s\n", err);
	store_free(st);
	snapshot_meta_free(&meta);
	return ret ? 1 : 0;
}

/* A store with the schema and strings of @src and none of its events. */
static struct store *empty_like(struct store *src)
{
	struct store *st = store_new(0, store_ncpus(src));

	for (unsigned int id = KTOP_T_DYNAMIC; st && id < schema_max_id(store_schema(src)); id++) {
		const struct ktop_schema_type *t = schema_get(store_schema(src), id);

		if (t)
			schema_add(store_schema(st), t->system, t->name, t->nfields, t->fields);
	}
	for (uint32_t id = 1; st && id < intern_count(store_strings(src)); id++) {
		const char *s = intern_str(store_strings(src), id);

		intern_id(store_strings(st), s, strlen(s));
	}
	return st;
}

static int cmd_stream(const char *dir, int parts)
{
	struct snapshot_meta meta;
	struct store *full = fixture_store(dir, &meta), *live;
	struct ktop_writer *w;
	struct timespec pause = { 0, 50 * 1000 * 1000 };
	char err[512];
	int ret = 0;

	if (!full)
		return 2;
	live = empty_like(full);
	for (int32_t pid = 0; pid < 70000; pid++)
		if (store_comm(full, pid))
			store_set_comm(live, pid, store_comm(full, pid), 0);
	w = ktop_writer_new(1, "<stdout>", live, &meta, NULL, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "%s\n", err);
		return errno == EPIPE ? 3 : 1;
	}
	for (int p = 0; p < parts && !ret; p++) {
		for (unsigned int cpu = 0; cpu < store_ncpus(full); cpu++) {
			uint64_t f, e;

			store_cpu_range(full, cpu, &f, &e);
			for (uint64_t i = f + (e - f) * p / parts; i < f + (e - f) * (p + 1) / parts;
			     i++) {
				struct ktop_event ev;

				if (!store_get(full, cpu, i, &ev))
					store_append(live, &ev);	/* same ids: same schema/strings */
			}
			store_publish(live, cpu);
		}
		/* the lost marks go with the last part */
		if (p == parts - 1) {
			size_t n = store_lost_marks(full, 0, UINT64_MAX, NULL, 0);
			struct store_lost *l = calloc(n + 1, sizeof(*l));

			n = l ? store_lost_marks(full, 0, UINT64_MAX, l, n) : 0;
			for (size_t k = 0; k < n; k++)
				store_add_lost(live, l[k].cpu, l[k].ts, l[k].count, l[k].why);
			free(l);
		}
		ret = ktop_writer_flush(w, live);
		nanosleep(&pause, NULL);
	}
	if (!ret)
		ret = ktop_writer_finish(w);
	if (ret)
		fprintf(stderr, "%s\n", ktop_writer_error(w));
	ktop_writer_free(w);
	store_free(live);
	store_free(full);
	snapshot_meta_free(&meta);
	return ret == -EPIPE ? 3 : ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct snapshot_meta meta;
	struct store *st;
	char err[512];
	int ret;

	if (argc < 3) {
		fprintf(stderr, "usage: snapshot_tool export|stream|load|dump ARGS (see the source)\n");
		return 1;
	}
	if (!strcmp(argv[1], "export") && argc == 4) {
		int fmt = format_id_by_name(argv[3]);
		struct export_stats es;

		st = fixture_store(argv[2], &meta);
		if (!st)
			return 2;
		if (fmt < 0) {
			fprintf(stderr, "%s: unknown extension\n", argv[3]);
			return 1;
		}
		ret = export_write(fmt, argv[3], st, &meta, NULL, &es, err, sizeof(err));
		if (ret)
			fprintf(stderr, "%s\n", err);
		store_free(st);
		snapshot_meta_free(&meta);
		return ret ? 1 : 0;
	}
	if (!strcmp(argv[1], "replicate") && (argc == 5 || argc == 6))
		return cmd_replicate(argv[2], argv[3], strtoull(argv[4], NULL, 10),
				     argc == 6 ? (uint64_t)(strtod(argv[5], NULL) * 1e9) : UINT64_MAX);
	if (!strcmp(argv[1], "merge") && argc >= 4)
		return cmd_merge(argv[2], argc - 3, argv + 3);
	if (!strcmp(argv[1], "stream"))
		return cmd_stream(argv[2], argc > 3 ? atoi(argv[3]) : 4);
	if (!strcmp(argv[1], "load") || !strcmp(argv[1], "dump")) {
		struct store_stats ss;

		ret = format_load(argv[2], 0, &st, &meta, err, sizeof(err));
		if (ret) {
			fprintf(stderr, "ktop: %s\n", err);
			return 2;
		}
		store_get_stats(st, &ss);
		if (!strcmp(argv[1], "load")) {
			printf("events %llu lost %llu cpus %u source %s\n",
			       (unsigned long long)ss.events, (unsigned long long)ss.lost,
			       store_ncpus(st), meta.source);
		} else {
			for (unsigned int cpu = 0; cpu < store_ncpus(st); cpu++) {
				uint64_t f, e;

				store_cpu_range(st, cpu, &f, &e);
				for (uint64_t i = f; i < e; i++) {
					struct ktop_event ev;
					const struct ktop_schema_type *t;

					if (store_get(st, cpu, i, &ev))
						continue;
					t = schema_get(store_schema(st), ev.type);
					printf("%u %llu %d %s:%s\n", cpu, (unsigned long long)ev.ts,
					       ev.pid, t ? t->system : "?", t ? t->name : "?");
				}
			}
		}
		store_free(st);
		snapshot_meta_free(&meta);
		return 0;
	}
	fprintf(stderr, "usage: snapshot_tool export|stream|load|dump ARGS\n");
	return 1;
}
