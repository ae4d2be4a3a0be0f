// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/source/source_file.c: opening a snapshot the way ktop -i does (sync, and with
 * the loader thread), saving it with app_save in each format, and bad input.
 * The expected events come from format_load() of the same file, the
 * library's own reader, not from numbers written here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "app/app.h"
#include "formats/format.h"
#include "ingest/fixture.h"
#include "store/store.h"

static char demo[4096];

static const char *demo_path(void)
{
	const char *fx = getenv("KTOP_FIXTURES");

	snprintf(demo, sizeof(demo), "%s/demo.ktop", fx && *fx ? fx : "tests/fixtures");
	return demo;
}

static uint64_t held(struct store *st)
{
	struct store_stats ss;

	store_get_stats(st, &ss);
	return ss.events;
}

static uint64_t want_events(const char *path)
{
	struct store *st;
	char err[256];
	uint64_t n;

	if (format_load(path, 0, &st, NULL, err, sizeof(err)))
		return 0;
	n = held(st);
	store_free(st);
	return n;
}

static void app_init(struct app *a)
{
	memset(a, 0, sizeof(*a));
	a->wake_fd = -1;
	a->opts.memory = STORE_DEFAULT_MEMORY;
}

TEST(open_sync_has_every_event_and_the_tracer)
{
	struct app a;
	char err[256] = "";
	uint64_t want = want_events(demo_path());

	CHECK(want > 0);
	app_init(&a);
	CHECK(app_open_snapshot(&a, demo, -1, APP_SNAP_SYNC, err, sizeof(err)) == 0);
	CHECK(!(app_flags(&a) & SOURCE_GROWS) && !app_session(&a) && !app_consumer(&a) && a.st);
	CHECK_EQ_U64(held(a.st), want);
	CHECK(!app_loading(&a));
	CHECK_EQ_U64(app_snapshot_end(&a), UINT64_MAX - 1);
	/* the recording's tracer, not written into the options */
	CHECK(app_recording_meta(&a) && app_recording_meta(&a)->tracer[0] &&
	      !strcmp(app_tracer(&a), app_recording_meta(&a)->tracer) && !a.opts.so.tracer);
	CHECK(strstr(a.mode_why, demo) != NULL);
	app_stop(&a);
	CHECK(!a.st && !app_recording_meta(&a) && !a.src);
}

TEST(open_with_loader_thread_ends_with_every_event)
{
	struct app a;
	char err[256] = "";
	uint64_t want = want_events(demo_path()), v;

	app_init(&a);
	CHECK(app_open_snapshot(&a, demo, -1, 0, err, sizeof(err)) == 0);
	CHECK(a.wake_fd >= 0);
	CHECK(app_loader_wait(&a, err, sizeof(err)) == 0);
	CHECK(!app_loading(&a));
	CHECK_EQ_U64(held(a.st), want);
	/* the loader said so on the wake fd */
	CHECK(read(a.wake_fd, &v, sizeof(v)) == sizeof(v) && v > 0);
	app_stop(&a);
}

TEST(stream_on_a_pipe_reads_live)
{
	struct app a;
	char err[256] = "";
	uint64_t want = want_events(demo_path());
	int p[2], fd = open(demo, O_RDONLY);
	char buf[65536];
	ssize_t n;

	CHECK(fd >= 0 && pipe(p) == 0);
	/* the whole file into the pipe first would block at 64K: a writer child */
	if (!fork()) {
		close(p[0]);
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			if (write(p[1], buf, (size_t)n) != n)
				_exit(1);
		_exit(0);
	}
	close(p[1]);
	close(fd);
	app_init(&a);
	CHECK(app_open_snapshot(&a, "-", p[0], 0, err, sizeof(err)) == 0);
	CHECK(app_flags(&a) & SOURCE_GROWS);
	CHECK(app_loader_wait(&a, err, sizeof(err)) == 0);
	CHECK_EQ_U64(held(a.st), want);
	app_stop(&a);
	close(p[0]);
}

TEST(save_every_format_atomic_0600_and_reload)
{
	static const char *const ext[] = { "ktop", "dat", "json", "txt", "csv" };
	char dir[] = "/tmp/ktop-test-app-snap.XXXXXX", path[256], err[256] = "";
	uint64_t want = want_events(demo_path());
	struct app a;
	struct stat sb;

	CHECK(mkdtemp(dir));
	app_init(&a);
	CHECK(app_open_snapshot(&a, demo, -1, APP_SNAP_SYNC, err, sizeof(err)) == 0);
	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		snprintf(path, sizeof(path), "%s/x.%s", dir, ext[i]);
		CHECK(app_save(&a, path, -1, 0, 0, 0, err, sizeof(err)) == 0);
		CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0600 && sb.st_size > 0);
	}
	snprintf(path, sizeof(path), "%s/x.ktop", dir);
	CHECK_EQ_U64(want_events(path), want);
	snprintf(path, sizeof(path), "%s/x.dat", dir);
	CHECK_EQ_U64(want_events(path), want);
	/* an unknown extension: .ktop content */
	snprintf(path, sizeof(path), "%s/x.snapshot", dir);
	CHECK(app_save(&a, path, -1, 0, 0, 0, err, sizeof(err)) == 0);
	CHECK_EQ_U64(want_events(path), want);
	app_stop(&a);
	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		snprintf(path, sizeof(path), "%s/x.%s", dir, ext[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/x.snapshot", dir);
	unlink(path);
	CHECK(rmdir(dir) == 0);	/* no temporary file left behind */
}

TEST(bad_input_names_the_file)
{
	char path[] = "/tmp/ktop-test-app-bad.XXXXXX", err[256] = "";
	struct app a;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	CHECK(write(fd, "hello, not a trace\n", 19) == 19);
	close(fd);
	app_init(&a);
	CHECK(app_open_snapshot(&a, path, -1, APP_SNAP_SYNC, err, sizeof(err)) < 0);
	CHECK(strstr(err, path) != NULL);
	app_stop(&a);
	unlink(path);
	app_init(&a);
	CHECK(app_open_snapshot(&a, "/nonexistent/x.ktop", -1, 0, err, sizeof(err)) == -ENOENT);
	CHECK(strstr(err, "/nonexistent/x.ktop") != NULL);
	app_stop(&a);
}

TEST_MAIN()
