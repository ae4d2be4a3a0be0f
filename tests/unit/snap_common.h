/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the unit tests that read recorded fixtures: fill a store from a recorded
 * fixture (the same path a live session takes: raw pages -> decoder_page),
 * and compare two stores event by event, by meaning (type names, string
 * texts) rather than by ids, which may differ between stores.
 */
#ifndef KTOP_SNAP_COMMON_H
#define KTOP_SNAP_COMMON_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "ingest/decode.h"
#include "ingest/fixture.h"
#include "lib/intern.h"
#include "store/schema.h"
#include "formats/format.h"
#include "formats/ktop.h"
#include "store/store.h"
#include "kernel/symbols.h"

#define SNAP_MAX_FIXTURES	64

/* Every recorded fixture (a directory with a meta file), sorted. Return: how many. */
static inline int snap_fixture_names(char names[][64], int max)
{
	DIR *d = opendir(fixture_root());
	struct dirent *de;
	char path[600];
	int n = 0;

	while (d && (de = readdir(d)) && n < max) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= 64)
			continue;
		snprintf(path, sizeof(path), "%s/%s/meta", fixture_root(), de->d_name);
		if (access(path, R_OK))
			continue;
		memcpy(names[n++], de->d_name, strlen(de->d_name) + 1);	/* < 64: checked */
	}
	if (d)
		closedir(d);
	qsort(names, n, 64, (int (*)(const void *, const void *))strcmp);
	return n;
}

/* Return: the store of @name's events (and its meta), or NULL. */
static inline struct store *snap_fixture_store(const char *name, struct snapshot_meta *meta)
{
	char dir[512];
	struct fixture *fx;
	struct symbols *syms;
	struct decode_ctx *dc;
	struct store *st;

	if (snprintf(dir, sizeof(dir), "%s/%s", fixture_root(), name) >= (int)sizeof(dir))
		return NULL;
	fx = fixture_open(dir);
	if (!fx) {
		printf("  fixture_open %s: %s\n", dir, strerror(errno));
		return NULL;
	}
	st = store_new(0, fixture_ncpus(fx));
	syms = symbols_load(fixture_path(fx, "kallsyms"));
	dc = st ? decode_ctx_new(fixture_tep(fx), st, syms) : NULL;
	if (!dc) {
		store_free(st);
		symbols_free(syms);
		fixture_close(fx);
		return NULL;
	}
	for (unsigned int cpu = 0; cpu < fixture_ncpus(fx); cpu++) {
		struct decoder *d = decoder_new(dc, cpu);

		for (size_t i = 0; d && i < fixture_npages(fx, cpu); i++)
			decoder_page(d, fixture_page(fx, cpu, i), fixture_page_size(fx), NULL);
		decoder_free(d);
		store_publish(st, cpu);
	}
	if (meta) {
		memset(meta, 0, sizeof(*meta));
		if (snapshot_meta_load_dir(meta, dir, NULL))
			printf("  snapshot_meta_load_dir %s failed\n", dir);
	}
	decode_ctx_free(dc);
	symbols_free(syms);
	fixture_close(fx);
	return st;
}

/* Fixture @name as a .ktop (its events, formats and kallsyms) at @path. Return: true when written. */
static inline bool snap_fixture_ktop(const char *name, const char *path)
{
	struct snapshot_meta meta = { 0 };
	struct fixture *fx;
	struct symbols *syms;
	struct store *st;
	char dir[512], err[256];
	int ret = -1;

	snprintf(dir, sizeof(dir), "%s/%s", fixture_root(), name);
	fx = fixture_open(dir);
	if (!fx)
		return false;
	st = store_new(0, fixture_ncpus(fx));
	syms = symbols_load(fixture_path(fx, "kallsyms"));
	if (st && !fixture_decode(fx, st, syms) && !snapshot_meta_load_dir(&meta, dir, NULL)) {
		meta.ncpus = fixture_ncpus(fx);
		ret = export_write(FORMAT_KTOP, path, st, &meta, NULL, NULL, err, sizeof(err));
		if (ret)
			printf("# %s\n", err);
	}
	snapshot_meta_free(&meta);
	symbols_free(syms);
	store_free(st);
	fixture_close(fx);
	return !ret;
}

static inline uint64_t snap_count(const struct store *st)
{
	struct store_stats s;

	store_get_stats(st, &s);
	return s.events;
}

/*
 * Events of one CPU read in blocks (store_get_range): two stores read event
 * by event in turn would each decode a whole chunk per event (the thread's
 * decode cache holds one chunk), minutes under TSan.
 */
struct snap_rd {
	struct store		*st;
	unsigned int		cpu;
	uint64_t		next, end;
	size_t			i, n;
	struct ktop_event	ev[256];
};

/* Return: 0 and the next event in *@out (type KTOP_T_NONE: evicted), -ENOENT at the end. */
static inline int snap_rd_next(struct snap_rd *r, struct ktop_event *out)
{
	if (r->i == r->n) {
		uint64_t to = r->end - r->next > 256 ? r->next + 256 : r->end;

		r->i = 0;
		r->n = r->next < r->end ? store_get_range(r->st, r->cpu, r->next, to, r->ev) : 0;
		r->next += r->n;
		if (!r->n)
			return -ENOENT;
	}
	*out = r->ev[r->i++];
	return 0;
}

/*
 * Compare every event of @a with @b (same CPU order, same seq order).
 * Return: 0, or the index of the first difference + 1 (printed).
 */
static inline long snap_compare(struct store *a, struct store *b, uint64_t t0, uint64_t t1)
{
	struct schema *sa = store_schema(a), *sb = store_schema(b);
	struct intern *ia = store_strings(a), *ib = store_strings(b);
	long n = 0;

	if (store_ncpus(a) != store_ncpus(b)) {
		printf("  ncpus %u != %u\n", store_ncpus(a), store_ncpus(b));
		return 1;
	}
	for (unsigned int cpu = 0; cpu < store_ncpus(a); cpu++) {
		struct snap_rd ra, rb;
		uint64_t fa, ea, fb, eb, j;
		struct ktop_event x, y;

		store_cpu_range(a, cpu, &fa, &ea);
		store_cpu_range(b, cpu, &fb, &eb);
		ra = (struct snap_rd){ .st = a, .cpu = cpu, .next = fa, .end = ea };
		rb = (struct snap_rd){ .st = b, .cpu = cpu, .next = fb, .end = eb };
		j = fb;
		while (!snap_rd_next(&ra, &x)) {
			const struct ktop_schema_type *tx, *ty;

			if (x.type == KTOP_T_NONE)
				continue;	/* evicted */
			if (x.ts < t0 || x.ts > t1)
				continue;
			n++;
			if (j >= eb || (j++, snap_rd_next(&rb, &y)) || y.type == KTOP_T_NONE) {
				printf("  cpu %u: event %ld missing in the copy\n", cpu, n);
				return n;
			}
			tx = schema_get(sa, x.type);
			ty = schema_get(sb, y.type);
			if (x.ts != y.ts || x.pid != y.pid || x.flags != y.flags || x.pc != y.pc ||
			    x.nargs != y.nargs || !tx || !ty || strcmp(tx->name, ty->name) ||
			    strcmp(tx->system, ty->system)) {
				printf("  cpu %u event %ld differs: ts %llu/%llu pid %d/%d type %s/%s\n",
				       cpu, n, (unsigned long long)x.ts, (unsigned long long)y.ts,
				       x.pid, y.pid, tx ? tx->name : "?", ty ? ty->name : "?");
				return n;
			}
			for (unsigned int k = 0; k < x.nargs; k++) {
				enum ktop_field_kind kind = k < tx->nfields ? tx->fields[k].kind :
							    KTOP_FK_UINT;

				if (kind == KTOP_FK_STR || kind == KTOP_FK_SYM) {
					if (strcmp(intern_str(ia, (uint32_t)x.args[k]),
						   intern_str(ib, (uint32_t)y.args[k]))) {
						printf("  cpu %u event %ld %s arg %u: '%s' != '%s'\n",
						       cpu, n, tx->name, k,
						       intern_str(ia, (uint32_t)x.args[k]),
						       intern_str(ib, (uint32_t)y.args[k]));
						return n;
					}
				} else if (x.args[k] != y.args[k]) {
					printf("  cpu %u event %ld %s arg %u: %llu != %llu\n", cpu, n,
					       tx->name, k, (unsigned long long)x.args[k],
					       (unsigned long long)y.args[k]);
					return n;
				}
			}
		}
		if (j != eb) {
			printf("  cpu %u: the copy has %llu extra events\n", cpu,
			       (unsigned long long)(eb - j));
			return n + 1;
		}
	}
	return 0;
}

#endif
