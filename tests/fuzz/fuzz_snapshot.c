// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the snapshot readers: the input is written to a
 * memfd and opened with format_load(), which detects .ktop or trace.dat
 * from the content, exactly as `ktop -i FILE` does. A load must either
 * succeed or fail with a message naming the file; never crash, never leak.
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
#include "store/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[512] = "";
	struct snapshot_meta meta;
	struct store *st = NULL;
	int fd, ret;

	fd = fuzz_input(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	/* a small store: hostile input must not make it grow past this */
	ret = format_load(path, 8 << 20, &st, &meta, err, sizeof(err));
	if (ret) {
		if (!strstr(err, path))
			abort();	/* every error names the file */
	} else {
		store_free(st);
		snapshot_meta_free(&meta);
	}
	close(fd);
	return 0;
}
