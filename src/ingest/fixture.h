/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Offline access to a recorded fixture directory (tests/tools/record_fixture.c
 * writes them; tests/fixtures/README describes the layout):
 *
 *   meta                    key=value lines (release, cpus, page_size, ...)
 *   header_page             events/header_page of the recording kernel
 *   events/SYS/EVENT/format every event format needed to parse the records
 *   cpuN.raw                raw ring-buffer pages of CPU N, page_size each
 *   kallsyms                the symbols the records' addresses fall in
 *   saved_cmdlines          pid -> comm snapshot at the end of the recording
 *   trace.txt               the kernel's own text for the same records
 *
 * Any file may instead be stored gzip-compressed as NAME.gz.
 *
 * Usage:
 *	struct fixture *fx = fixture_open("tests/fixtures/host-sched");
 *	struct tep_handle *tep = fixture_tep(fx);
 *	for (cpu = 0; cpu < fixture_ncpus(fx); cpu++)
 *		for (i = 0; i < fixture_npages(fx, cpu); i++)
 *			decoder_page(d, fixture_page(fx, cpu, i), fixture_page_size(fx), &st);
 *	fixture_close(fx);
 */
#ifndef KTOP_FIXTURE_H
#define KTOP_FIXTURE_H

#include <stddef.h>

struct tep_handle;
struct fixture;

/**
 * fixture_open - load a fixture directory
 * @dir: the directory
 *
 * Builds a tep from header_page and every events/ x/ y/format, registers
 * saved_cmdlines and kallsyms with it (so tep_print_event resolves them like
 * trace-cmd would) and reads every cpuN.raw into memory.
 * Return: the fixture (free with fixture_close), or NULL with errno set.
 */
struct fixture *fixture_open(const char *dir);
void fixture_close(struct fixture *fx);

/* The directory of fixtures: $KTOP_FIXTURES, else tests/fixtures. */
const char *fixture_root(void);

struct tep_handle *fixture_tep(struct fixture *fx);
/* One past the highest CPU with a cpuN.raw file. */
unsigned int fixture_ncpus(const struct fixture *fx);
size_t fixture_page_size(const struct fixture *fx);
size_t fixture_npages(const struct fixture *fx, unsigned int cpu);
/* Return: page @i of @cpu (page_size bytes), or NULL. */
void *fixture_page(const struct fixture *fx, unsigned int cpu, size_t i);
/* Return: the value of @key in meta, or NULL. */
const char *fixture_meta(const struct fixture *fx, const char *key);
/* Return: "@dir/@name" in a buffer owned by the fixture (valid until the next call). */
const char *fixture_path(struct fixture *fx, const char *name);

/*
 * Every record of @cpu in ring order. @fn returns non-zero to stop; that
 * value is returned. kbuffer is used the same way decoder_page() uses it.
 */
typedef int (*fixture_record_fn)(void *arg, unsigned int cpu, unsigned long long ts,
				 void *data, int size);
int fixture_for_each_record(struct fixture *fx, unsigned int cpu, fixture_record_fn fn,
			    void *arg);

struct store;
struct symbols;

/**
 * fixture_decode - decode every page of every CPU into @st (src/ingest/decode.h),
 * as a live session's consumers would, and publish them
 * @syms: for symbol fields, or NULL
 * Return: 0, or a negative errno.
 */
int fixture_decode(struct fixture *fx, struct store *st, struct symbols *syms);

/*
 * Return: the contents of @path, or of @path.gz decompressed, NUL-terminated
 * (free it), or NULL with errno set; @len may be NULL.
 */
char *fixture_read_file(const char *path, size_t *len);

#endif
