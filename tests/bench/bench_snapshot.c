// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Snapshot benchmark: write and read rates (MB/s of file, events/s) and bytes
 * per event for .ktop, trace.dat and JSON on the same events, and the time to
 * reopen a 10 M-event .ktop into a ready store (targets on the 10 M events: write
 * >= 15 M events/s, read >= 30 M events/s, reopened in <= 0.4 s).
 * tests/bench/bench_snapshot.sh runs it next to the same benchmark built from
 * the commit before .ktop carried the store's chunks.
 *
 * The events are real: the host-sched fixture (raw pages recorded from this
 * host's kernel) decoded, then replayed shifted in time to the wanted count.
 * JSON is not read back by ktop; its read rate is Python's json.load, which
 * is what a consumer of the file pays.
 *
 * Anchor: the naive snapshot, the store's events dumped as an array of
 * struct ktop_event with one fwrite and read back with one fread, measured in
 * the same run on the same events.
 *
 * Usage: bench_snapshot [EVENTS [BIG_EVENTS]]   (defaults 1000000 and 10000000)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ingest/decode.h"
#include "formats/format.h"
#include "formats/ktop.h"
#include "ingest/fixture.h"
#include "lib/intern.h"
#include "store/schema.h"
#include "store/store.h"
#include "kernel/symbols.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU seconds of this process (every thread), user and system. */
static double cpu_secs(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static uint64_t file_size(const char *path)
{
	struct stat sb;

	return stat(path, &sb) ? 0 : (uint64_t)sb.st_size;
}

/* The fixture's events, decoded once; then copied shifted in time to @n events. */
static struct store *make_store(const char *fixture, uint64_t n, struct snapshot_meta *meta)
{
	char dir[512];
	struct fixture *fx;
	struct symbols *syms;
	struct decode_ctx *dc;
	struct store *base, *st;
	struct store_stats bs;
	uint64_t added = 0, shift = 0;

	snprintf(dir, sizeof(dir), "%s/%s", fixture_root(), fixture);
	fx = fixture_open(dir);
	if (!fx)
		return NULL;
	base = store_new(0, fixture_ncpus(fx));
	syms = symbols_load(fixture_path(fx, "kallsyms"));
	dc = decode_ctx_new(fixture_tep(fx), base, syms);
	for (unsigned int cpu = 0; dc && cpu < fixture_ncpus(fx); cpu++) {
		struct decoder *d = decoder_new(dc, cpu);

		for (size_t i = 0; d && i < fixture_npages(fx, cpu); i++)
			decoder_page(d, fixture_page(fx, cpu, i), fixture_page_size(fx), NULL);
		decoder_free(d);
		store_publish(base, cpu);
	}
	memset(meta, 0, sizeof(*meta));
	snapshot_meta_load_dir(meta, dir, NULL);
	decode_ctx_free(dc);
	symbols_free(syms);
	fixture_close(fx);

	/* the same schema and strings (ids kept: registered in id order) */
	st = store_new((n ? n : 1000000) * 64 + (256u << 20), store_ncpus(base));
	for (unsigned int id = KTOP_T_DYNAMIC; id < schema_max_id(store_schema(base)); id++) {
		const struct ktop_schema_type *t = schema_get(store_schema(base), id);

		if (t)
			schema_add(store_schema(st), t->system, t->name, t->nfields, t->fields);
	}
	for (uint32_t id = 1; id < intern_count(store_strings(base)); id++) {
		const char *s = intern_str(store_strings(base), id);

		intern_id(store_strings(st), s, strlen(s));
	}
	for (int32_t pid = 0; pid < 70000; pid++)
		if (store_comm(base, pid))
			store_set_comm(st, pid, store_comm(base, pid), 0);
	store_get_stats(base, &bs);
	if (!n)
		n = bs.events;	/* one pass: the recorded events as they are */
	while (added < n) {
		for (unsigned int cpu = 0; cpu < store_ncpus(base) && added < n; cpu++) {
			uint64_t f, e;

			store_cpu_range(base, cpu, &f, &e);
			for (uint64_t i = f; i < e && added < n; i++) {
				struct ktop_event ev;

				if (store_get(base, cpu, i, &ev))
					continue;
				ev.ts += shift;
				store_append(st, &ev);
				added++;
			}
			store_publish(st, cpu);
		}
		shift += bs.last_ts - bs.first_ts + 1000;
	}
	store_free(base);
	return st;
}

static void report(const char *fmt, const char *what, double secs, uint64_t bytes, uint64_t n)
{
	printf("bench snapshot.%s.%s_rate %.1f MB/s\n", fmt, what, bytes / secs / 1e6);
	printf("bench snapshot.%s.%s_events %.2f Mevents/s\n", fmt, what, n / secs / 1e6);
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
	uint64_t big = argc > 2 ? strtoull(argv[2], NULL, 10) : 10000000;
	char dir[] = "/tmp/ktop-bench-snapshot.XXXXXX", path[600], err[512], cmd[700];
	struct snapshot_meta meta, m2;
	struct store *st, *st2;
	struct store_stats ss;
	double t;
	uint64_t bytes;
	int ret = 0;

	if (!mkdtemp(dir))
		return 1;
	st = make_store("host-sched", n, &meta);
	if (!st) {
		fprintf(stderr, "cannot load the host-sched fixture\n");
		return 1;
	}
	store_get_stats(st, &ss);
	n = ss.events;
	fprintf(stderr, "%llu events (host-sched fixture replayed)\n", (unsigned long long)n);

	/* bytes per event on the recorded events themselves, without the replay's repetition */
	{
		struct snapshot_meta m1;
		struct store *one = make_store("host-sched", 0, &m1);
		static const char *ext[] = { "ktop", "dat", "json" };
		static const enum format_id fm[] = { FORMAT_KTOP, FORMAT_TRACEDAT, FORMAT_JSON };

		store_get_stats(one, &ss);
		for (int i = 0; i < 3; i++) {
			snprintf(path, sizeof(path), "%s/one.%s", dir, ext[i]);
			if (export_write(fm[i], path, one, &m1, NULL, NULL, err, sizeof(err)))
				ret = 1;
			printf("bench snapshot.%s.bytes_per_event_recorded %.2f B (%llu recorded "
			       "events, host-sched)\n", i == 1 ? "tracedat" : ext[i],
			       (double)file_size(path) / ss.events, (unsigned long long)ss.events);
			unlink(path);
		}
		store_free(one);
		snapshot_meta_free(&m1);
	}

	/* anchor: naive array dump */
	{
		struct ktop_event *v = malloc(n * sizeof(*v));
		struct store_iter *it = store_iter_new(st, 0, UINT64_MAX, NULL);
		uint64_t k = 0, seq;
		FILE *f;

		while (v && store_iter_next(it, &v[k], &seq) && k + 1 < n)
			k++;
		store_iter_free(it);
		snprintf(path, sizeof(path), "%s/naive.bin", dir);
		t = now();
		f = fopen(path, "w");
		fwrite(v, sizeof(*v), n, f);
		fflush(f);
		fsync(fileno(f));
		fclose(f);
		t = now() - t;
		bytes = file_size(path);
		printf("bench snapshot.anchor.write_rate %.1f MB/s (naive: struct ktop_event "
		       "array, one fwrite+fsync)\n", bytes / t / 1e6);
		printf("bench snapshot.anchor.bytes_per_event %.1f B (naive: struct ktop_event "
		       "array)\n", (double)bytes / n);
		t = now();
		f = fopen(path, "r");
		if (fread(v, sizeof(*v), n, f) != n)
			ret = 1;
		fclose(f);
		t = now() - t;
		printf("bench snapshot.anchor.read_rate %.1f MB/s (naive: one fread, page cache)\n",
		       bytes / t / 1e6);
		free(v);
		unlink(path);
	}

	/* .ktop */
	snprintf(path, sizeof(path), "%s/s.ktop", dir);
	t = now();
	if (ktop_write(path, st, &meta, NULL, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		ret = 1;
	}
	t = now() - t;
	bytes = file_size(path);
	report("ktop", "write", t, bytes, n);
	printf("bench snapshot.ktop.bytes_per_event %.2f B (replayed: zstd finds the "
	       "repetition)\n", (double)bytes / n);
	t = now();
	if (format_load(path, (size_t)n * 64 + (256u << 20), &st2, &m2, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		ret = 1;
	} else {
		store_free(st2);
		snapshot_meta_free(&m2);
	}
	t = now() - t;
	report("ktop", "read", t, bytes, n);
	if (!getenv("KTOP_BENCH_KEEP"))
		unlink(path);

	/* trace.dat */
	snprintf(path, sizeof(path), "%s/s.dat", dir);
	t = now();
	if (export_write(FORMAT_TRACEDAT, path, st, &meta, NULL, NULL, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		ret = 1;
	}
	t = now() - t;
	bytes = file_size(path);
	report("tracedat", "write", t, bytes, n);
	printf("bench snapshot.tracedat.bytes_per_event %.2f B\n", (double)bytes / n);
	t = now();
	if (format_load(path, (size_t)n * 64 + (256u << 20), &st2, &m2, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		ret = 1;
	} else {
		store_free(st2);
		snapshot_meta_free(&m2);
	}
	t = now() - t;
	report("tracedat", "read", t, bytes, n);
	unlink(path);

	/* JSON */
	snprintf(path, sizeof(path), "%s/s.json", dir);
	t = now();
	if (export_write(FORMAT_JSON, path, st, &meta, NULL, NULL, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		ret = 1;
	}
	t = now() - t;
	bytes = file_size(path);
	report("json", "write", t, bytes, n);
	printf("bench snapshot.json.bytes_per_event %.2f B\n", (double)bytes / n);
	snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' %s",
		 path);
	t = now();
	if (system(cmd))
		ret = 1;
	t = now() - t;
	report("json", "read_python", t, bytes, n);
	unlink(path);
	store_free(st);

	/* reopening a big .ktop to a ready store */
	if (big) {
		st = make_store("host-sched", big, &m2);
		snapshot_meta_free(&m2);
		snprintf(path, sizeof(path), "%s/big.ktop", dir);
		t = now();
		if (!st || ktop_write(path, st, &meta, NULL, err, sizeof(err))) {
			fprintf(stderr, "big: %s\n", err);
			ret = 1;
		}
		t = now() - t;
		printf("bench snapshot.ktop.write_%lluM_events %.2f Mevents/s (target >= 15; the "
		       "replayed store written whole, fsync included)\n",
		       (unsigned long long)(big / 1000000), big / t / 1e6);
		store_free(st);
		{
			/* as ktop -i does: a loader thread reads blocks while the UI draws */
			struct ktop_reader *r;
			double t_first = 0, cpu = cpu_secs();
			int fd = open(path, O_RDONLY), k;

			t = now();
			r = ktop_reader_new(fd, path, (size_t)big * 64 + (256u << 20), err,
					    sizeof(err));
			while (r && (k = ktop_reader_next(r)) > 0) {
				if (!t_first) {
					store_get_stats(ktop_reader_store(r), &ss);
					if (ss.events)
						t_first = now() - t;
				}
			}
			t = now() - t;
			cpu = cpu_secs() - cpu;
			if (!r || k < 0) {
				fprintf(stderr, "%s\n", r ? ktop_reader_error(r) : err);
				ret = 1;
			} else {
				store_get_stats(ktop_reader_store(r), &ss);
			}
			ktop_reader_free(r);
			close(fd);
			printf("bench snapshot.ktop.reopen_%lluM_first_events %.4f s (first block "
			       "of events in the store: the first frame can be drawn)\n",
			       (unsigned long long)(big / 1000000), t_first);
			/* a note: what the reopen cost in CPU, whatever else ran meanwhile */
			printf("reopen of %lluM events: %.3f s of CPU (both threads), %.3f s wall\n",
			       (unsigned long long)(big / 1000000), cpu, t);
		}
		printf("bench snapshot.ktop.reopen_%lluM %.3f s (target <= 0.4 s; all %llu events "
		       "in the store, %.1f MB file)\n", (unsigned long long)(big / 1000000), t,
		       (unsigned long long)ss.events, file_size(path) / 1e6);
		printf("bench snapshot.ktop.read_%lluM_events %.2f Mevents/s (target >= 30; the "
		       "reopen)\n", (unsigned long long)(big / 1000000), ss.events / t / 1e6);
		unlink(path);
	}
	snapshot_meta_free(&meta);
	rmdir(dir);
	return ret;
}
