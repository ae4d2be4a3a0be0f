// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for ktop's trace.dat reader and writer
 * (src/formats/tracedat*.c): the input is written to a memfd and read with
 * tracedat_load(), which walks the layout itself before any page reaches
 * the decoder. A load must succeed or fail with a message naming the file,
 * within the memory limit; never crash, never leak. What loads is written
 * back (version 7 zstd, or version 6 for every other input) and read again:
 * the writer must take whatever the reader gives it.
 *
 * Seeds: the .dat files in tests/fuzz/corpus (trace-cmd's and ktop's own).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "formats/format.h"
#include "formats/tracedat.h"
#include "store/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void write_back(struct store *st, const struct snapshot_meta *meta, unsigned int version)
{
	struct tracedat_save_opts o = { .version = version };
	struct format_out out;
	struct snapshot_meta back;
	struct store *st2 = NULL;
	char path[64], err[512] = "";
	int fd = memfd_create("fuzz-out", 0);

	if (fd < 0)
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	out.path = path;
	out.fd = fd;
	/* no formats: refused with a message; else it must write, and read back */
	if (tracedat_save(&out, st, meta, &o, NULL, err, sizeof(err))) {
		if (!strstr(err, path))
			abort();
	} else if (!tracedat_load(path, NULL, &st2, &back, err, sizeof(err))) {
		store_free(st2);
		snapshot_meta_free(&back);
	} else if (!strstr(err, path)) {
		abort();
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tracedat_load_opts o = { .fd = -1, .mem_limit = 8 << 20 };
	char path[64], err[512] = "";
	struct snapshot_meta meta;
	struct store *st = NULL;
	int fd, ret;

	fd = fuzz_input(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	/* a small store: hostile input must not make it grow past this */
	ret = tracedat_load(path, &o, &st, &meta, err, sizeof(err));
	if (ret) {
		if (!strstr(err, path))
			abort();	/* every error names the file */
	} else {
		write_back(st, &meta, size & 1 ? 6 : 7);
		store_free(st);
		snapshot_meta_free(&meta);
	}
	close(fd);
	return 0;
}
