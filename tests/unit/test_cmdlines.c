// SPDX-License-Identifier: GPL-2.0-or-later
/* cmdlines_fill: names only unnamed pids, from a saved_cmdlines file. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "test.h"
#include "kernel/cmdlines.h"
#include "store/store.h"

TEST(fills_only_unnamed_pids)
{
	char dir[] = "/tmp/ktop-cmdlines.XXXXXX", path[128];
	struct store *st = store_new(1 << 20, 1);
	FILE *fp;

	CHECK(st && mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/saved_cmdlines", dir);
	fp = fopen(path, "w");
	CHECK(fp);
	fputs("243 vmload\n17 kworker/0:1\n99 <...>\nbogus line\n18 from-cmdlines\n", fp);
	fclose(fp);

	store_set_comm(st, 18, "from-event", 0);
	CHECK_EQ_U64(cmdlines_fill(st, dir), 2);
	CHECK_STR(store_comm(st, 243), "vmload");
	CHECK_STR(store_comm(st, 17), "kworker/0:1");
	CHECK_STR(store_comm(st, 18), "from-event");
	CHECK(store_comm(st, 99) == NULL);
	/* a second pass names nothing new */
	CHECK_EQ_U64(cmdlines_fill(st, dir), 0);
	unlink(path);
	rmdir(dir);
	store_free(st);
}

TEST(missing_file_is_an_error)
{
	struct store *st = store_new(1 << 20, 1);

	CHECK(st);
	CHECK(cmdlines_fill(st, "/nonexistent-ktop-dir") < 0);
	store_free(st);
}

TEST_MAIN()
