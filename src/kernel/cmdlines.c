// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fill missing comms from tracefs saved_cmdlines ("PID COMM" per line).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmdlines.h"
#include "store/store.h"

int cmdlines_fill(struct store *st, const char *tracefs)
{
	char path[512], line[128];
	int named = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/saved_cmdlines", tracefs);
	fp = fopen(path, "re");
	if (!fp)
		return -errno;
	while (fgets(line, sizeof(line), fp)) {
		char *end, *comm;
		long pid = strtol(line, &end, 10);

		if (end == line || *end != ' ' || pid <= 0 || pid > 0x7fffffff)
			continue;
		comm = end + 1;
		comm[strcspn(comm, "\n")] = 0;
		/* the kernel's placeholder for a slot it has not filled */
		if (!comm[0] || !strcmp(comm, "<...>"))
			continue;
		if (store_comm(st, (int32_t)pid))
			continue;
		store_set_comm(st, (int32_t)pid, comm, 0);
		named++;
	}
	fclose(fp);
	return named;
}
