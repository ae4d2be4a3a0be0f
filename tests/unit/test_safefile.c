// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/lib/safefile.c: output files (new, replaced, a character device, a FIFO,
 * standard output, a terminal, symbolic links owned by us and by another
 * uid, directories, block devices, a spool for writers that seek), trusted
 * directories for small files (owner, mode, links on the way, planted
 * links at the name) and bounded, non-blocking reads. Cases that need
 * another owner or a device node (chown, mknod) run when the test runs as
 * root, as it does in `make check`; as a user they check what they can.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "lib/safefile.h"

#define NOBODY	65534

static char dir[128];

static const char *p(const char *name)
{
	static char buf[4][256];
	static int i;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/ktop-test-safefile.XXXXXX");
		if (!mkdtemp(dir))
			abort();
	}
	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static bool root(void)
{
	return geteuid() == 0;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static bool has(const char *path, const char *text)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return !strcmp(buf, text);
}

/* Entries of the test directory whose name starts with @prefix. */
static int count_prefix(const char *prefix)
{
	char cmd[512], out[32] = "";
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -c '^%s'", dir, prefix);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	if (!fgets(out, sizeof(out), f))
		out[0] = '\0';
	pclose(f);
	return atoi(out);
}

static int write_out(const char *path, unsigned int flags, const char *text, char *err,
		     size_t errlen)
{
	struct safefile_out o;
	int ret;

	ret = safefile_out_open(&o, path, flags, err, errlen);
	if (ret)
		return ret;
	if (write(o.fd, text, strlen(text)) != (ssize_t)strlen(text))
		return safefile_out_close(&o, false, err, errlen);
	return safefile_out_close(&o, true, err, errlen);
}

TEST(out_new_and_replaced_regular_files_atomic_0600)
{
	struct stat a, b;
	char err[256];

	CHECK(write_out(p("new.ktop"), 0, "one", err, sizeof(err)) == 0);
	CHECK(has(p("new.ktop"), "one"));
	CHECK(stat(p("new.ktop"), &a) == 0 && (a.st_mode & 0777) == 0600);
	chmod(p("new.ktop"), 0644);
	CHECK(write_out(p("new.ktop"), 0, "two", err, sizeof(err)) == 0);
	CHECK(stat(p("new.ktop"), &b) == 0 && (b.st_mode & 0777) == 0600);
	CHECK(a.st_ino != b.st_ino);	/* renamed over, not rewritten */
	CHECK(has(p("new.ktop"), "two"));
	CHECK_EQ_U64(count_prefix("new.ktop."), 0);
}

TEST(out_failure_leaves_nothing)
{
	struct safefile_out o;
	char err[256] = "";

	put(p("keep.ktop"), "old");
	CHECK(safefile_out_open(&o, p("keep.ktop"), 0, err, sizeof(err)) == 0);
	CHECK(write(o.fd, "partial", 7) == 7);
	CHECK(safefile_out_close(&o, false, err, sizeof(err)) == -EIO);
	CHECK(has(p("keep.ktop"), "old"));
	CHECK(safefile_out_open(&o, p("never.ktop"), 0, err, sizeof(err)) == 0);
	CHECK(safefile_out_close(&o, false, err, sizeof(err)) == -EIO);
	CHECK(access(p("never.ktop"), F_OK) != 0);
	CHECK_EQ_U64(count_prefix("keep.ktop."), 0);
	CHECK_EQ_U64(count_prefix("never.ktop."), 0);
	CHECK(safefile_out_open(&o, "/nonexistent-dir/x.ktop", 0, err, sizeof(err)) == -ENOENT);
	CHECK(strstr(err, "/nonexistent-dir/x.ktop: directory"));
}

TEST(out_character_device_written_in_place)
{
	struct stat a, b;
	char err[256];

	if (!root())
		return;	/* mknod */
	CHECK(mknod(p("null"), S_IFCHR | 0666, makedev(1, 3)) == 0);
	CHECK(stat(p("null"), &a) == 0);
	CHECK(write_out(p("null"), 0, "gone", err, sizeof(err)) == 0);
	CHECK(write_out(p("null"), SAFEFILE_OUT_SEEKABLE, "gone", err, sizeof(err)) == 0);
	CHECK(stat(p("null"), &b) == 0 && S_ISCHR(b.st_mode) && b.st_rdev == makedev(1, 3));
	CHECK(a.st_ino == b.st_ino && a.st_mode == b.st_mode);
	CHECK_EQ_U64(count_prefix("null."), 0);
}

struct reader {
	char	path[256];
	char	got[256];
	int	fd;	/* or a pipe's read end */
};

static void *read_all_thread(void *arg)
{
	struct reader *r = arg;
	int fd = r->fd >= 0 ? r->fd : open(r->path, O_RDONLY);
	size_t n = 0;
	ssize_t k;

	while (fd >= 0 && n + 1 < sizeof(r->got) &&
	       (k = read(fd, r->got + n, sizeof(r->got) - 1 - n)) > 0)
		n += (size_t)k;
	r->got[n] = '\0';
	if (fd >= 0)
		close(fd);
	return NULL;
}

TEST(out_fifo_written_in_place_with_and_without_spool)
{
	for (int seek = 0; seek < 2; seek++) {
		struct reader r = { .fd = -1 };
		char err[256] = "";
		struct stat st;
		pthread_t t;
		int ret;

		snprintf(r.path, sizeof(r.path), "%s", p(seek ? "s.fifo" : "f.fifo"));
		CHECK(mkfifo(r.path, 0600) == 0);
		pthread_create(&t, NULL, read_all_thread, &r);
		ret = write_out(r.path, seek ? SAFEFILE_OUT_SEEKABLE : 0, "through the fifo", err,
				sizeof(err));
		pthread_join(t, NULL);
		CHECK(ret == 0);
		CHECK_STR(r.got, "through the fifo");
		CHECK(lstat(r.path, &st) == 0 && S_ISFIFO(st.st_mode));
	}
}

TEST(out_spool_can_seek_and_reaches_the_pipe)
{
	struct reader r = { .fd = -1 };
	struct safefile_out o;
	char err[256] = "";
	int pfd[2], saved;
	pthread_t t;

	CHECK(pipe(pfd) == 0);
	r.fd = pfd[0];
	saved = dup(STDOUT_FILENO);
	fflush(stdout);
	dup2(pfd[1], STDOUT_FILENO);
	close(pfd[1]);
	pthread_create(&t, NULL, read_all_thread, &r);
	CHECK(safefile_out_open(&o, "-", SAFEFILE_OUT_SEEKABLE, err, sizeof(err)) == 0);
	CHECK(write(o.fd, "xxxxEND", 7) == 7);
	CHECK(lseek(o.fd, 0, SEEK_SET) == 0);	/* as libtracecmd does */
	CHECK(write(o.fd, "HEAD", 4) == 4);
	CHECK(safefile_out_close(&o, true, err, sizeof(err)) == 0);
	dup2(saved, STDOUT_FILENO);	/* the last writer of the pipe goes */
	close(saved);
	pthread_join(t, NULL);
	CHECK_STR(r.got, "HEADEND");
}

TEST(out_terminal_and_dash_refused_for_the_view)
{
	struct safefile_out o;
	char err[256] = "";
	const char *pts;
	int m;

	CHECK(safefile_out_open(&o, "-", SAFEFILE_OUT_NO_TERMINAL, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "standard output"));
	m = posix_openpt(O_RDWR | O_NOCTTY);
	CHECK(m >= 0 && !grantpt(m) && !unlockpt(m) && (pts = ptsname(m)));
	CHECK(safefile_out_open(&o, pts, SAFEFILE_OUT_NO_TERMINAL, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "is a terminal"));
	close(m);
}

TEST(out_symbolic_links)
{
	struct stat st;
	char err[256] = "";

	/* ours, to a regular file: that file is replaced, the link stays */
	put(p("real.ktop"), "old");
	CHECK(symlink("real.ktop", p("link.ktop")) == 0);
	CHECK(write_out(p("link.ktop"), 0, "new", err, sizeof(err)) == 0);
	CHECK(lstat(p("link.ktop"), &st) == 0 && S_ISLNK(st.st_mode));
	CHECK(has(p("real.ktop"), "new"));
	CHECK(stat(p("real.ktop"), &st) == 0 && (st.st_mode & 0777) == 0600);
	/* to nothing: refused */
	CHECK(symlink("nowhere", p("dangling.ktop")) == 0);
	CHECK(write_out(p("dangling.ktop"), 0, "x", err, sizeof(err)) == -ENOENT);
	CHECK(strstr(err, "symbolic link to nothing"));
	CHECK(access(p("nowhere"), F_OK) != 0);
	if (!root())
		return;
	/* another uid's link (planted in /tmp, say): not followed */
	put(p("victim"), "precious");
	CHECK(symlink(p("victim"), p("planted.ktop")) == 0);
	CHECK(lchown(p("planted.ktop"), NOBODY, NOBODY) == 0);
	CHECK(write_out(p("planted.ktop"), 0, "pwned", err, sizeof(err)) == -EPERM);
	CHECK(strstr(err, "owned by uid 65534"));
	CHECK(has(p("victim"), "precious"));
	CHECK(lstat(p("planted.ktop"), &st) == 0 && S_ISLNK(st.st_mode));
}

TEST(out_directory_and_block_device_refused)
{
	char err[256] = "";

	CHECK(mkdir(p("adir"), 0700) == 0);
	CHECK(write_out(p("adir"), 0, "x", err, sizeof(err)) == -EISDIR);
	CHECK(write_out(p("adir/"), 0, "x", err, sizeof(err)) == -EISDIR);
	if (!root())
		return;
	CHECK(mknod(p("blk"), S_IFBLK | 0600, makedev(7, 200)) == 0);
	CHECK(write_out(p("blk"), 0, "x", err, sizeof(err)) == -EPERM);
	CHECK(strstr(err, "block device"));
}

TEST(replace_writes_0600_and_replaces_a_planted_link)
{
	char why[256] = "", path[256];
	struct stat st;

	/* missing directories are made 0700 */
	snprintf(path, sizeof(path), "%s", p("conf/ktop/ktop.conf"));
	CHECK(safefile_replace(path, "a = 1\n", 6, 0600, why, sizeof(why)) == 0);
	CHECK(has(path, "a = 1\n"));
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
	CHECK(stat(p("conf/ktop"), &st) == 0 && (st.st_mode & 0777) == 0700);
	/* a link at the name is replaced, never written through */
	put(p("victim2"), "precious");
	unlink(path);
	CHECK(symlink(p("victim2"), path) == 0);
	CHECK(safefile_replace(path, "b = 2\n", 6, 0644, why, sizeof(why)) == 0);
	CHECK(has(p("victim2"), "precious"));
	CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
	CHECK(has(path, "b = 2\n"));
	CHECK_EQ_U64(count_prefix("conf/ktop/ktop.conf."), 0);
}

TEST(replace_refuses_untrusted_directories)
{
	char why[256] = "", path[256];

	/* writable by the group */
	CHECK(mkdir(p("gw"), 0770) == 0 && chmod(p("gw"), 0770) == 0);
	snprintf(path, sizeof(path), "%s", p("gw/ktop/ktop.conf"));
	CHECK(safefile_replace(path, "x", 1, 0600, why, sizeof(why)) == -EPERM);
	CHECK(strstr(why, "/gw is writable by its group"));
	CHECK(access(p("gw/ktop"), F_OK) != 0);
	if (!root())
		return;
	/* another user's directory on the way, and a link to one */
	CHECK(mkdir(p("home"), 0755) == 0 && chown(p("home"), NOBODY, NOBODY) == 0);
	CHECK(mkdir(p("home/.config"), 0700) == 0);
	put(p("victim3"), "precious");
	CHECK(mkdir(p("home/.config/ktop"), 0700) == 0);
	CHECK(symlink(p("victim3"), p("home/.config/ktop/ktop.conf")) == 0);
	snprintf(path, sizeof(path), "%s", p("home/.config/ktop/ktop.conf"));
	CHECK(safefile_replace(path, "x", 1, 0600, why, sizeof(why)) == -EPERM);
	CHECK(strstr(why, "/home belongs to uid 65534 and ktop runs as root"));
	CHECK(has(p("victim3"), "precious"));
	CHECK_EQ_U64(count_prefix("home/.config/ktop/ktop.conf."), 0);
	/* a link planted by that user pointing at a root directory */
	CHECK(mkdir(p("rootdir"), 0700) == 0);
	CHECK(symlink(p("rootdir"), p("userlink")) == 0);
	CHECK(lchown(p("userlink"), NOBODY, NOBODY) == 0);
	snprintf(path, sizeof(path), "%s", p("userlink/ktop.conf"));
	CHECK(safefile_replace(path, "x", 1, 0600, why, sizeof(why)) == -EPERM);
	CHECK(strstr(why, "userlink is a symbolic link owned by uid 65534"));
	CHECK(access(p("rootdir/ktop.conf"), F_OK) != 0);
	/* the same link owned by root is followed */
	CHECK(symlink("rootdir", p("ourlink")) == 0);
	snprintf(path, sizeof(path), "%s", p("ourlink/ktop.conf"));
	CHECK(safefile_replace(path, "y", 1, 0600, why, sizeof(why)) == 0);
	CHECK(has(p("rootdir/ktop.conf"), "y"));
}

TEST(read_bounded_regular_files_only)
{
	char *text = NULL;
	size_t len = 0;

	put(p("r.conf"), "theme = x\n");
	CHECK(safefile_read(p("r.conf"), 100, &text, &len) == 0);
	CHECK_STR(text, "theme = x\n");
	CHECK_EQ_U64(len, 10);
	free(text);
	CHECK(safefile_read(p("r.conf"), 5, &text, NULL) == -EFBIG);
	CHECK(!text);
	/* a FIFO is refused at once, not waited on */
	CHECK(mkfifo(p("r.fifo"), 0600) == 0);
	CHECK(safefile_read(p("r.fifo"), 100, &text, NULL) == -EINVAL);
	CHECK(safefile_read(dir, 100, &text, NULL) == -EINVAL);
	/* our own link is followed */
	CHECK(symlink("r.conf", p("r.link")) == 0);
	CHECK(safefile_read(p("r.link"), 100, &text, NULL) == 0);
	free(text);
	if (!root())
		return;
	CHECK(symlink("r.conf", p("r.planted")) == 0);
	CHECK(lchown(p("r.planted"), NOBODY, NOBODY) == 0);
	CHECK(safefile_read(p("r.planted"), 100, &text, NULL) == -ELOOP);
}

TEST(zz_cleanup)
{
	CHECK(test_rm_rf(dir) == 0);
}

/* The config and history paths: $XDG_..., else below $HOME, else none. */
TEST(xdg_path)
{
	char buf[256];

	setenv("XDG_STATE_HOME", "/x/state", 1);
	setenv("HOME", "/home/u", 1);
	CHECK(!safefile_xdg_path("XDG_STATE_HOME", ".local/state", "filter_history", buf,
				 sizeof(buf)));
	CHECK_STR(buf, "/x/state/ktop/filter_history");
	setenv("XDG_STATE_HOME", "", 1);
	CHECK(!safefile_xdg_path("XDG_STATE_HOME", ".local/state", "filter_history", buf,
				 sizeof(buf)));
	CHECK_STR(buf, "/home/u/.local/state/ktop/filter_history");
	unsetenv("HOME");
	unsetenv("XDG_CONFIG_HOME");
	CHECK(safefile_xdg_path("XDG_CONFIG_HOME", ".config", "ktop.conf", buf, sizeof(buf)) ==
	      -ENOENT);
}

TEST_MAIN()
