// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --batch/--json's Connections and Drops (src/batch/batch_net.c) on recordings
 * of the network fixtures (host-net, rt-net, rt612-net) written as .ktop
 * files, opened as ktop -i opens them: the rows of netload's transfers with
 * its bytes (workload.out), the JSON keys issue 25 lists, the drop names
 * from the recording's own formats, and the sections under a view.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/app.h"
#include "batch/batch.h"
#include "formats/format.h"
#include "ingest/fixture.h"
#include "kernel/symbols.h"
#include "store/meta.h"
#include "store/store.h"
#include "snap_common.h"
#include "test.h"
#include "view/viewfilter.h"

static char tmpdir[] = "/tmp/ktop-test-batch-net-XXXXXX";

/* One summary of the recording at @path, as ktop -i PATH --batch [--json] [-F VIEW]. */
static char *run(const char *path, bool json, const char *view)
{
	struct app a;
	char err[512] = "", *buf = NULL;
	size_t len = 0;
	FILE *fp;
	int ret;

	memset(&a, 0, sizeof(a));
	a.wake_fd = -1;
	a.opts.memory = STORE_DEFAULT_MEMORY;
	a.opts.batch = true;
	a.opts.json = json;
	a.opts.iterations = 1;
	a.opts.interval = 1;
	if (view)
		a.opts.views[a.opts.nviews++] = view;
	if (app_open_snapshot(&a, path, -1, APP_SNAP_SYNC, err, sizeof(err)) ||
	    app_view_start(&a, err, sizeof(err))) {
		printf("# %s\n", err);
		app_stop(&a);
		return NULL;
	}
	fp = open_memstream(&buf, &len);
	ret = fp ? batch_run(&a, fp) : -1;
	if (fp)
		fclose(fp);
	app_stop(&a);
	if (ret) {
		free(buf);
		return NULL;
	}
	return buf;
}

static const char *const fixtures[] = { "host-net", "rt-net", "rt612-net" };

static char *workload(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s/workload.out", fixture_root(), name);
	return fixture_read_file(path, NULL);
}

TEST(setup)
{
	CHECK(mkdtemp(tmpdir));
}

/* Each transfer of workload.out: its two rows with the bytes each way, in both outputs. */
TEST(connections_of_each_fixture)
{
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		char path[600], *work, *text, *json;
		unsigned int rows = 0;

		snprintf(path, sizeof(path), "%s/%s.ktop", tmpdir, fixtures[i]);
		work = workload(fixtures[i]);
		if (!work && i)
			continue;	/* an rt fixture not recorded here */
		CHECK(work && snap_fixture_ktop(fixtures[i], path));
		text = run(path, false, NULL);
		json = run(path, true, NULL);
		CHECK(text && json);
		CHECK(strstr(text, "\nConnections: "));
		CHECK(strstr(text, "\nDrops: "));
		CHECK(strstr(json, ",\"connections\":[{\"pid\":"));
		CHECK(strstr(json, ",\"drops\":[{\"reason\":"));
		for (const char *l = work; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
			unsigned long long sent, recvd;
			unsigned int cport, sport;
			int cpid, spid;
			char want[256];

			if (sscanf(l, "client %d %u server %d %u sent %llu received %llu", &cpid,
				   &cport, &spid, &sport, &sent, &recvd) != 6)
				continue;
			/* the client's row: sport, dport, bytes sent, bytes received in this order */
			snprintf(want, sizeof(want), "\"sport\":%u,", cport);
			CHECK(strstr(json, want));
			snprintf(want, sizeof(want), "\"pid\":%d,\"comm\":\"nl-client\"", cpid);
			CHECK(strstr(json, want));
			snprintf(want, sizeof(want), "\"dport\":%u,\"state\":\"CLOSE\"", sport);
			CHECK(strstr(json, want));
			if (!strstr(text, "bytes from sock_send_length"))
				continue;	/* 6.1: from tcp_probe (test_net) */
			snprintf(want, sizeof(want), ":%u ", cport);
			CHECK(strstr(text, want));
			snprintf(want, sizeof(want), "\"bytes_sent\":%llu,\"bytes_received\":%llu",
				 sent, recvd);
			CHECK(strstr(json, want));
			snprintf(want, sizeof(want), "\"bytes_sent\":%llu,\"bytes_received\":%llu",
				 recvd, sent);
			CHECK(strstr(json, want));
			rows++;
		}
		printf("# %s: %u transfers checked\n", fixtures[i], rows);
		/* the names come from the recording's own format */
		CHECK(strstr(json, "\"reason\":\"NO_SOCKET\""));
		CHECK(strstr(text, " NO_SOCKET "));
		free(text);
		free(json);
		free(work);
		unlink(path);
	}
}

/* Under a view the model is fed the events it keeps, and the sections say so. */
TEST(sections_under_a_view)
{
	char path[600], *text;

	snprintf(path, sizeof(path), "%s/view.ktop", tmpdir);
	CHECK(snap_fixture_ktop("host-net", path));
	text = run(path, false, "!event:skb:kfree_skb");
	CHECK(text);
	CHECK(strstr(text, "\nConnections (of the events the view keeps): "));
	CHECK(strstr(text, "\nDrops (of the events the view keeps): 0 "));
	free(text);
	unlink(path);
}

TEST(cleanup)
{
	CHECK(!rmdir(tmpdir));
}

TEST_MAIN()
