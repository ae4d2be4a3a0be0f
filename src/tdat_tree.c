// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The temporary tracefs tree for libtracecmd's trace.dat writer (see
 * tdat_tree.h). libtracecmd opens those files by path, so they must exist
 * in a directory; naming it with the PID lets a later export remove a tree
 * whose owner was killed before it could.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evformat.h"
#include "tdat_tree.h"

#define TDAT_TREE_TMP		"/tmp"
#define TDAT_TREE_PREFIX	"ktop-tracedat."

/* The kernel's events/header_event: fixed since 2.6.3x. */
static const char header_event_text[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

/*
 * libtracecmd 1.x dereferences a NULL list when the tracing directory has no
 * events/ftrace/ format at all (a session that saved only the formats of its
 * trace events). This is the kernel's own ftrace:print format (64-bit, the
 * same since v4.x), written only in that case.
 */
static const char ftrace_print_format[] =
	"name: print\n"
	"ID: 5\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;\n"
	"\n"
	"print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n";

static int write_text(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	if (text)
		fputs(text, f);
	return fclose(f) ? -EIO : 0;
}

static int write_format(const char *dir, const struct snapshot_format *fm)
{
	char path[PATH_MAX], name[128];

	if (!evformat_name(fm->text, name, sizeof(name)) || strchr(fm->system, '/') ||
	    fm->system[0] == '.' || strchr(name, '/') || name[0] == '.')
		return 0;
	snprintf(path, sizeof(path), "%s/events/%s", dir, fm->system);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/events/%s/%s", dir, fm->system, name);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "events/%s/%s/format", fm->system, name);
	return write_text(dir, path, fm->text);
}

static int write_cmdlines(const char *dir, struct store *st)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/saved_cmdlines", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	for (int32_t pid = 1; pid < (1 << 23); pid++) {
		const char *c = store_comm(st, pid);

		if (c && *c)
			fprintf(f, "%d %s\n", pid, c);
	}
	return fclose(f) ? -EIO : 0;
}

static int tdat_tree_rm(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	if (remove(path)) {
		/* keep going: remove what can be removed */
	}
	return 0;
}

void tdat_tree_remove(const char *dir)
{
	/* depth first, symlinks not followed, never onto another file system */
	nftw(dir, tdat_tree_rm, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

int tdat_tree_sweep(const char *tmp)
{
	size_t plen = strlen(TDAT_TREE_PREFIX);
	struct dirent *de;
	int removed = 0;
	DIR *d;

	d = opendir(tmp);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char path[PATH_MAX], *end;
		struct stat sb;
		long pid;

		if (strncmp(de->d_name, TDAT_TREE_PREFIX, plen))
			continue;
		errno = 0;
		pid = strtol(de->d_name + plen, &end, 10);
		if (errno || end == de->d_name + plen || *end != '.' || pid <= 0 ||
		    pid > INT_MAX || pid == getpid())
			continue;
		/* ESRCH only: EPERM is a live process of another user */
		if (!kill((pid_t)pid, 0) || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", tmp, de->d_name);
		if (lstat(path, &sb) || !S_ISDIR(sb.st_mode) || sb.st_uid != geteuid() ||
		    (sb.st_mode & 077))
			continue;
		tdat_tree_remove(path);
		removed++;
	}
	closedir(d);
	return removed;
}

int tdat_tree_create(char *dir, size_t len, const struct snapshot_meta *meta, struct store *st)
{
	char sub[PATH_MAX];
	bool have_ftrace = false;
	int ret;

	tdat_tree_sweep(TDAT_TREE_TMP);
	if ((size_t)snprintf(dir, len, "%s/%s%d.XXXXXX", TDAT_TREE_TMP, TDAT_TREE_PREFIX,
			     (int)getpid()) >= len)
		return -ENAMETOOLONG;
	if (!mkdtemp(dir))
		return -errno;
	snprintf(sub, sizeof(sub), "%s/events", dir);
	mkdir(sub, 0700);
	ret = write_text(dir, "events/header_page", meta->header_page);
	if (!ret)
		ret = write_text(dir, "events/header_event",
				 meta->header_event ? meta->header_event : header_event_text);
	if (!ret)
		ret = write_text(dir, "printk_formats", meta->printk ? meta->printk : "");
	if (!ret)
		ret = write_text(dir, "kallsyms", meta->kallsyms ? meta->kallsyms : "");
	for (size_t i = 0; !ret && i < meta->nformats; i++) {
		ret = write_format(dir, &meta->formats[i]);
		have_ftrace |= !strcmp(meta->formats[i].system, "ftrace");
	}
	if (!ret && !have_ftrace) {
		struct snapshot_format pf = { (char *)"ftrace", (char *)ftrace_print_format };

		ret = write_format(dir, &pf);
	}
	if (!ret)
		ret = write_cmdlines(dir, st);
	if (ret)
		tdat_tree_remove(dir);
	return ret;
}
