// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Stack trace triggers and options of a session (stacktrig.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/err.h"
#include "lib/evspec.h"
#include "lib/file.h"
#include "stacktrig.h"

struct stacktrig {
	char		dir[512];
	char		**files;	/* trigger files written, "events/SYS/EVENT/trigger" */
	unsigned int	nfiles;
	bool		opt_kern;	/* options/stacktrace set by us */
	bool		opt_user;	/* options/userstacktrace */
	bool		cleared;
};

static int trig_write(const char *dir, const char *file, const char *s)
{
	char path[1024];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) >= sizeof(path))
		return -ENAMETOOLONG;
	return file_write_str(path, s, O_TRUNC);
}

static int trig_add(struct stacktrig *t, const char *file)
{
	char **v = realloc(t->files, (t->nfiles + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	t->files = v;
	t->files[t->nfiles] = strdup(file);
	if (!t->files[t->nfiles])
		return -ENOMEM;
	t->nfiles++;
	return 0;
}

static bool trig_has(const struct stacktrig *t, const char *file)
{
	for (unsigned int i = 0; i < t->nfiles; i++)
		if (!strcmp(t->files[i], file))
			return true;
	return false;
}

/* Which parts the enabled event @sys:@name is asked for. */
static unsigned int trig_parts(const struct stacktrig_req *req, unsigned int n, const char *sys,
			       const char *name)
{
	unsigned int parts = 0;

	for (unsigned int i = 0; i < n; i++)
		if (evspec_match(req[i].spec, sys, name))
			parts |= req[i].parts;
	return parts;
}

/* Triggers on the enabled events asked for. Return: 0, or the kernel's refusal. */
static int trig_events(struct stacktrig *t, const char *set_event, const struct stacktrig_req *req,
		       unsigned int n, bool top, unsigned int *asked, char *err, size_t errlen)
{
	char *list = strdup(set_event), *save = NULL, *line, file[768];
	int ret = 0;

	if (!list)
		return -ENOMEM;
	for (line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');
		unsigned int parts;

		if (!colon)
			continue;
		*colon = '\0';
		parts = trig_parts(req, n, line, colon + 1);
		*asked |= parts;
		if (!(parts & STACKTRIG_KERN) || top)
			continue;
		snprintf(file, sizeof(file), "events/%s/%s/trigger", line, colon + 1);
		if (trig_has(t, file))
			continue;	/* set by an earlier call */
		ret = trig_write(t->dir, file, "stacktrace");
		if (ret == -EEXIST)
			ret = 0;	/* there already (a glob named it twice) */
		if (!ret)
			ret = trig_add(t, file);
		if (ret) {
			snprintf(err, errlen, "%s:%s: %s", line, colon + 1, strerror(-ret));
			break;
		}
	}
	free(list);
	return ret;
}

/* Take back what one stacktrig_apply() did: triggers from @nfiles on, options it set. */
static void trig_undo(struct stacktrig *t, unsigned int nfiles, bool kern, bool user)
{
	for (unsigned int i = nfiles; i < t->nfiles; i++) {
		trig_write(t->dir, t->files[i], "!stacktrace");
		free(t->files[i]);
	}
	t->nfiles = nfiles < t->nfiles ? nfiles : t->nfiles;
	if (t->opt_kern && !kern)
		trig_write(t->dir, "options/stacktrace", "0");
	if (t->opt_user && !user)
		trig_write(t->dir, "options/userstacktrace", "0");
	t->opt_kern = kern;
	t->opt_user = user;
}

/*
 * The kernel's stacktrace trigger refused (or the top level): options/stacktrace
 * instead, for every event of the buffer; the triggers set so far go, the
 * option covers them. Return: 0, or the option's refusal (@err).
 */
static int trig_all_events(struct stacktrig *t, bool top, const char *why, char *note,
			   size_t notelen, char *err, size_t errlen)
{
	size_t nl = strlen(note);
	int ret;

	for (unsigned int i = 0; i < t->nfiles; i++) {
		trig_write(t->dir, t->files[i], "!stacktrace");
		free(t->files[i]);
	}
	t->nfiles = 0;
	ret = trig_write(t->dir, "options/stacktrace", "1");
	if (ret) {
		snprintf(err, errlen, "cannot turn on kernel stack traces in %s: the stacktrace "
			 "trigger was refused (%s) and options/stacktrace: %s", t->dir,
			 why[0] ? why : "top level", strerror(-ret));
		return ret;
	}
	t->opt_kern = true;
	snprintf(note + nl, notelen - nl, "kernel stacks: %s, so options/stacktrace records one "
		 "after every event of the session (a stack walk each, 1-30 us); ktop keeps those "
		 "of the events asked for", top ? "the top-level buffer takes no triggers ktop "
		 "could take back after a crash" : why);
	return 0;
}

/* Stack traces for @req on @t's directory, adding to what @t already set. */
static int trig_apply(struct stacktrig *t, bool top, const struct stacktrig_req *req,
		      unsigned int n, char *note, size_t notelen, char *err, size_t errlen)
{
	unsigned int asked = 0, user = 0, nfiles = t->nfiles;
	bool kern0 = t->opt_kern, user0 = t->opt_user;
	char path[1024], why[256] = "";
	char *set_event;
	int ret = 0;

	note[0] = '\0';
	snprintf(path, sizeof(path), "%s/set_event", t->dir);
	ret = file_read(path, FILE_NO_MAX, &set_event, NULL);
	if (ret)
		return err_set(err, errlen, ret, "cannot read %s: %s", path, strerror(-ret));
	for (unsigned int i = 0; i < n; i++) {
		/* every spec must name an enabled event */
		unsigned int a = 0;

		if (trig_events(t, set_event, &req[i], 1, true, &a, why, sizeof(why)) || !a) {
			snprintf(err, errlen, "--stack %s: no such event enabled in %s", req[i].spec,
				 t->dir);
			ret = -ENOENT;
			goto out;
		}
		user |= req[i].parts & STACKTRIG_USER;
	}
	/* options/stacktrace, once on, gives every event its stack already */
	ret = trig_events(t, set_event, req, n, top || t->opt_kern, &asked, why, sizeof(why));
	if (!t->opt_kern && (ret || (top && (asked & STACKTRIG_KERN))))
		ret = trig_all_events(t, top, why, note, notelen, err, errlen);
	if (!ret && user && !t->opt_user) {
		ret = trig_write(t->dir, "options/userstacktrace", "1");
		if (ret) {
			snprintf(err, errlen, "cannot turn on user stack traces "
				 "(%s/options/userstacktrace): %s", t->dir, strerror(-ret));
		} else {
			t->opt_user = true;
			snprintf(note + strlen(note), notelen - strlen(note), "%suser stacks: "
				 "options/userstacktrace records one after every event of the "
				 "session (the kernel has no per-event switch); ktop keeps those "
				 "of the events asked for", note[0] ? "; " : "");
		}
	}
out:
	if (ret)
		trig_undo(t, nfiles, kern0, user0);
	free(set_event);
	return ret;
}

int stacktrig_set(struct stacktrig **out, const char *dir, bool top,
		  const struct stacktrig_req *req, unsigned int n, char *note, size_t notelen,
		  char *err, size_t errlen)
{
	struct stacktrig *t;
	int ret;

	*out = NULL;
	note[0] = '\0';
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	snprintf(t->dir, sizeof(t->dir), "%s", dir);
	ret = trig_apply(t, top, req, n, note, notelen, err, errlen);
	if (ret) {
		stacktrig_free(t);
		return ret;
	}
	*out = t;
	return 0;
}

int stacktrig_add(struct stacktrig *t, bool top, const struct stacktrig_req *req, unsigned int n,
		  char *note, size_t notelen, char *err, size_t errlen)
{
	if (t->cleared) {
		snprintf(err, errlen, "the session's stack traces were taken back already");
		return -ESHUTDOWN;
	}
	return trig_apply(t, top, req, n, note, notelen, err, errlen);
}

void stacktrig_clear(struct stacktrig *t)
{
	if (!t || t->cleared)
		return;
	for (unsigned int i = 0; i < t->nfiles; i++)
		trig_write(t->dir, t->files[i], "!stacktrace");
	if (t->opt_kern)
		trig_write(t->dir, "options/stacktrace", "0");
	if (t->opt_user)
		trig_write(t->dir, "options/userstacktrace", "0");
	t->cleared = true;
}

void stacktrig_free(struct stacktrig *t)
{
	if (!t)
		return;
	for (unsigned int i = 0; i < t->nfiles; i++)
		free(t->files[i]);
	free(t->files);
	free(t);
}

unsigned int stacktrig_count(const struct stacktrig *t)
{
	return t && !t->cleared ? t->nfiles : 0;
}

bool stacktrig_all_events(const struct stacktrig *t)
{
	return t && t->opt_kern;
}
