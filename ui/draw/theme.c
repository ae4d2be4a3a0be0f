// SPDX-License-Identifier: GPL-2.0-or-later
/* Theme files and the config file. No curses here: unit tests include this file. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/safefile.h"
#include "lib/tuning.h"
#include "theme.h"

/*
 * Theme and config files are read with safefile_read(): a regular file of at
 * most CONFIG_MAX bytes, never a FIFO, nor a link someone else planted (the
 * config may sit in a user's $HOME while ktop runs as root).
 */
#define CONFIG_MAX	(64 * 1024)

#ifndef KTOP_DATADIR
#define KTOP_DATADIR "/usr/local/share/ktop"
#endif

static const char *const role_names[ROLE_NR] = {
	[ROLE_DEFAULT]		= "default",
	[ROLE_HEADER]		= "header",
	[ROLE_HEADER_VALUE]	= "header_value",
	[ROLE_TAB]		= "tab",
	[ROLE_TAB_ACTIVE]	= "tab_active",
	[ROLE_COLHDR]		= "column_header",
	[ROLE_COLHDR_SORT]	= "column_header_sorted",
	[ROLE_SELECTED]		= "selected",
	[ROLE_DIM]		= "dim",
	[ROLE_WARN]		= "warning",
	[ROLE_ERROR]		= "error",
	[ROLE_OK]		= "ok",
	[ROLE_PAUSED]		= "paused",
	[ROLE_TASK]		= "task",
	[ROLE_PID]		= "pid",
	[ROLE_CPU]		= "cpu",
	[ROLE_FLAGS]		= "flags",
	[ROLE_TIME]		= "timestamp",
	[ROLE_EVENT]		= "event",
	[ROLE_FIELD]		= "field",
	[ROLE_MATCH]		= "search_match",
	[ROLE_BAR]		= "bar",
	[ROLE_FKEY]		= "footer_key",
	[ROLE_FTEXT]		= "footer_text",
	[ROLE_OVERLAY]		= "overlay",
	[ROLE_DUR_US]		= "duration_us",
	[ROLE_DUR_MS]		= "duration_ms",
	[ROLE_DUR_S]		= "duration_s",
	[ROLE_WINDOW]		= "window",
	[ROLE_STK_KERNEL]	= "stack_kernel",
	[ROLE_STK_SYSCALL]	= "stack_syscall",
	[ROLE_STK_SCHED]	= "stack_sched",
	[ROLE_STK_LOCK]		= "stack_lock",
	[ROLE_STK_TIME]		= "stack_time",
	[ROLE_STK_MM]		= "stack_mm",
	[ROLE_STK_FS]		= "stack_fs",
	[ROLE_STK_NET]		= "stack_net",
	[ROLE_STK_BLOCK]	= "stack_block",
	[ROLE_STK_IRQ]		= "stack_irq",
	[ROLE_STK_USER]		= "stack_user",
	[ROLE_STK_LIB]		= "stack_lib",
	[ROLE_STK_UNKNOWN]	= "stack_unknown",
	[ROLE_DIFF_GROW]	= "diff_grow",
	[ROLE_DIFF_SHRINK]	= "diff_shrink",
	[ROLE_DIFF_SAME]	= "diff_same",
};

static const unsigned int mono_attr[ROLE_NR] = {
	[ROLE_HEADER_VALUE]	= UI_A_BOLD,
	[ROLE_TAB_ACTIVE]	= UI_A_REVERSE,
	[ROLE_COLHDR]		= UI_A_UNDERLINE,
	[ROLE_COLHDR_SORT]	= UI_A_REVERSE,
	[ROLE_SELECTED]		= UI_A_REVERSE,
	[ROLE_DIM]		= UI_A_DIM,
	[ROLE_WARN]		= UI_A_BOLD,
	[ROLE_ERROR]		= UI_A_BOLD | UI_A_UNDERLINE,
	[ROLE_PAUSED]		= UI_A_REVERSE | UI_A_BOLD,
	[ROLE_EVENT]		= UI_A_BOLD,
	[ROLE_MATCH]		= UI_A_UNDERLINE | UI_A_BOLD,
	[ROLE_BAR]		= UI_A_BOLD,
	[ROLE_FKEY]		= UI_A_REVERSE,
	[ROLE_OVERLAY]		= UI_A_REVERSE,
	[ROLE_DUR_MS]		= UI_A_BOLD,
	[ROLE_DUR_S]		= UI_A_BOLD | UI_A_UNDERLINE,
	[ROLE_WINDOW]		= UI_A_UNDERLINE,
	[ROLE_STK_KERNEL]	= UI_A_REVERSE,
	[ROLE_STK_SYSCALL]	= UI_A_REVERSE,
	[ROLE_STK_SCHED]	= UI_A_REVERSE,
	[ROLE_STK_LOCK]		= UI_A_REVERSE,
	[ROLE_STK_TIME]		= UI_A_REVERSE,
	[ROLE_STK_MM]		= UI_A_REVERSE,
	[ROLE_STK_FS]		= UI_A_REVERSE,
	[ROLE_STK_NET]		= UI_A_REVERSE,
	[ROLE_STK_BLOCK]	= UI_A_REVERSE,
	[ROLE_STK_IRQ]		= UI_A_REVERSE,
	[ROLE_STK_USER]		= UI_A_REVERSE,
	[ROLE_STK_LIB]		= UI_A_REVERSE,
	[ROLE_STK_UNKNOWN]	= UI_A_REVERSE,
	[ROLE_DIFF_GROW]	= UI_A_REVERSE | UI_A_BOLD,
	[ROLE_DIFF_SHRINK]	= UI_A_UNDERLINE,
	[ROLE_DIFF_SAME]	= UI_A_REVERSE,
};

/* The same text as themes/default.theme, so ktop looks right uninstalled. */
static const char builtin_text[] =
	"default = default default\n"
	"header = black cyan\n"
	"header_value = black cyan bold\n"
	"tab = default default\n"
	"tab_active = black green bold\n"
	"column_header = black green\n"
	"column_header_sorted = black cyan bold\n"
	"selected = black cyan\n"
	"dim = 8/blue default\n"
	"warning = yellow default bold\n"
	"error = red default bold\n"
	"ok = green default\n"
	"paused = black yellow bold\n"
	"task = default default\n"
	"pid = cyan default\n"
	"cpu = yellow default\n"
	"flags = magenta default\n"
	"timestamp = green default\n"
	"event = cyan default bold\n"
	"field = default default\n"
	"search_match = black yellow\n"
	"bar = green default\n"
	"footer_key = default default bold\n"
	"footer_text = black cyan\n"
	"overlay = black white\n"
	"duration_us = yellow default\n"
	"duration_ms = red default bold\n"
	"duration_s = magenta default bold\n"
	"window = brightwhite blue\n"
	"stack_kernel = black 180/yellow\n"
	"stack_syscall = black 214/yellow\n"
	"stack_sched = black 117/cyan\n"
	"stack_lock = black 210/red\n"
	"stack_time = black 183/magenta\n"
	"stack_mm = black 114/green\n"
	"stack_fs = black 176/magenta\n"
	"stack_net = black 75/cyan\n"
	"stack_block = black 137/yellow\n"
	"stack_irq = black 203/red\n"
	"stack_user = black 150/green\n"
	"stack_lib = black 108/cyan\n"
	"stack_unknown = black 250/white\n"
	"diff_grow = black 210/red\n"
	"diff_shrink = black 111/blue\n"
	"diff_same = black 250/white\n";

const char *ui_role_name(enum ui_role r)
{
	return (unsigned int)r < ROLE_NR ? role_names[r] : "?";
}

unsigned int ui_role_mono_attr(enum ui_role r)
{
	return (unsigned int)r < ROLE_NR ? mono_attr[r] : 0;
}

static const char *const color_names[] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
};

/* "red", "brightred", "default", "208/yellow", "8/blue" -> 256-colour and 8-colour values */
static int parse_color(const char *tok, short *c256, short *c8, unsigned int *attr)
{
	const char *slash = strchr(tok, '/');
	const char *name = tok;

	if (slash) {
		char *end;
		long n = strtol(tok, &end, 10);

		if (end != slash || n < 0 || n > 255)
			return -EINVAL;
		*c256 = (short)n;
		name = slash + 1;
	} else {
		*c256 = -2;
	}
	if (!strcmp(name, "default")) {
		*c8 = UI_COLOR_DEFAULT;
		goto out;
	}
	bool bright = !strncmp(name, "bright", 6);

	if (bright)
		name += 6;
	for (unsigned int i = 0; i < 8; i++) {
		if (!strcmp(name, color_names[i])) {
			*c8 = (short)i;
			if (bright && attr)
				*attr |= UI_A_BOLD;
			if (*c256 == -2)
				*c256 = (short)(bright ? i + 8 : i);
			return 0;
		}
	}
	return -EINVAL;
out:
	if (*c256 == -2)
		*c256 = UI_COLOR_DEFAULT;
	return 0;
}

static int parse_line(struct ui_theme *t, char *line)
{
	char *eq = strchr(line, '='), *tok, *save;
	struct ui_style st = { 0 };
	int role = -1, ntok = 0;

	if (!eq)
		return -EINVAL;
	*eq = '\0';
	tok = strtok_r(line, " \t", &save);
	if (!tok)
		return -EINVAL;
	for (int i = 0; i < ROLE_NR; i++)
		if (!strcmp(tok, role_names[i]))
			role = i;
	if (role < 0)
		return -ENOENT;
	for (tok = strtok_r(eq + 1, " \t\r\n", &save); tok;
	     tok = strtok_r(NULL, " \t\r\n", &save)) {
		if (ntok == 0) {
			if (parse_color(tok, &st.fg, &st.fg8, &st.attr))
				return -EINVAL;
		} else if (ntok == 1) {
			if (parse_color(tok, &st.bg, &st.bg8, NULL))
				return -EINVAL;
		} else if (!strcmp(tok, "bold")) {
			st.attr |= UI_A_BOLD;
		} else if (!strcmp(tok, "reverse")) {
			st.attr |= UI_A_REVERSE;
		} else if (!strcmp(tok, "underline")) {
			st.attr |= UI_A_UNDERLINE;
		} else if (!strcmp(tok, "dim")) {
			st.attr |= UI_A_DIM;
		} else {
			return -EINVAL;
		}
		ntok++;
	}
	if (ntok < 2)
		return -EINVAL;
	t->style[role] = st;
	return 0;
}

static int parse_text(struct ui_theme *t, const char *text, char *err, size_t errlen)
{
	const char *p = text;
	int lineno = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char line[256], *s;
		int ret;

		lineno++;
		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, p, n);
		line[n] = '\0';
		p += nl ? (size_t)(nl - p) + 1 : strlen(p);
		s = line;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s || *s == '#' || !strncmp(s, "name", 4))
			continue;
		ret = parse_line(t, s);
		if (ret) {
			snprintf(err, errlen, "line %d: %s", lineno,
				 ret == -ENOENT ? "unknown role" :
						  "expected: role = FG BG [attrs]");
			return -EINVAL;
		}
	}
	return 0;
}

void ui_theme_builtin(struct ui_theme *t)
{
	char err[64];

	memset(t, 0, sizeof(*t));
	for (int i = 0; i < ROLE_NR; i++) {
		t->style[i].fg = t->style[i].bg = UI_COLOR_DEFAULT;
		t->style[i].fg8 = t->style[i].bg8 = UI_COLOR_DEFAULT;
	}
	parse_text(t, builtin_text, err, sizeof(err));
	snprintf(t->name, sizeof(t->name), "default");
}

int ui_theme_parse(struct ui_theme *t, const char *name, const char *text,
		   char *err, size_t errlen)
{
	ui_theme_builtin(t);
	snprintf(t->name, sizeof(t->name), "%s", name);
	return parse_text(t, text, err, errlen);
}

/* Theme directories, most specific first. */
static int theme_dirs(char dirs[][PATH_MAX], int max)
{
	const char *env = tuning()->theme_dir;
	char exe[PATH_MAX];
	ssize_t n;
	int nd = 0;

	if (env && *env && nd < max)
		snprintf(dirs[nd++], PATH_MAX, "%s", env);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0 && nd < max) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(dirs[nd++], PATH_MAX, "%.*s/themes", PATH_MAX - 8, exe);
		}
	}
	if (nd < max)
		snprintf(dirs[nd++], PATH_MAX, "themes");
	if (nd < max)
		snprintf(dirs[nd++], PATH_MAX, "%s/themes", KTOP_DATADIR);
	return nd;
}

static int valid_name(const char *name)
{
	if (!*name || strlen(name) > 48)
		return 0;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_')
			return 0;
	return 1;
}

int ui_theme_load(struct ui_theme *t, const char *name, char *err, size_t errlen)
{
	char dirs[4][PATH_MAX];
	int nd = theme_dirs(dirs, 4);

	if (!valid_name(name)) {
		snprintf(err, errlen, "bad theme name '%s'", name);
		return -ENOENT;
	}
	for (int i = 0; i < nd; i++) {
		char path[PATH_MAX + 64], perr[96], *text;
		int ret;

		snprintf(path, sizeof(path), "%.*s/%.48s.theme", PATH_MAX - 64, dirs[i], name);
		/* a regular file, bounded: ./themes may be anyone's directory */
		ret = safefile_read(path, CONFIG_MAX, &text, NULL);
		if (ret == -ENOENT || ret == -ENOTDIR || ret == -EACCES)
			continue;
		if (ret) {
			snprintf(err, errlen, "%s: %s", path, ret == -EFBIG ? "larger than 64 KB" :
				 ret == -EINVAL ? "not a regular file" : strerror(-ret));
			return ret;
		}
		ret = ui_theme_parse(t, name, text, perr, sizeof(perr));
		free(text);
		if (ret) {
			snprintf(err, errlen, "%s: %s", path, perr);
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(name, "default")) {
		ui_theme_builtin(t);
		return 0;
	}
	snprintf(err, errlen, "no theme '%s' (looked for %s.theme in %s and %d more)",
		 name, name, dirs[0], nd - 1);
	return -ENOENT;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int ui_theme_list(char **names, int max)
{
	char dirs[4][PATH_MAX];
	int nd = theme_dirs(dirs, 4), n = 0;

	for (int i = 0; i < nd; i++) {
		struct dirent *de;
		DIR *d = opendir(dirs[i]);

		if (!d)
			continue;
		while ((de = readdir(d))) {
			size_t len = strlen(de->d_name);
			int dup = 0;

			if (len <= 6 || strcmp(de->d_name + len - 6, ".theme"))
				continue;
			de->d_name[len - 6] = '\0';
			if (!valid_name(de->d_name))
				continue;
			for (int j = 0; j < n; j++)
				dup |= !strcmp(names[j], de->d_name);
			if (!dup && n < max)
				names[n++] = strdup(de->d_name);
		}
		closedir(d);
	}
	if (n == 0 && max > 0)
		names[n++] = strdup("default");
	qsort(names, (size_t)n, sizeof(*names), cmp_str);
	return n;
}

int ui_config_path(char *buf, size_t len)
{
	return safefile_xdg_path("XDG_CONFIG_HOME", ".config", "ktop.conf", buf, len);
}

/*
 * Line @line (length @n) sets @key? "key = value", blanks around; the value
 * (trailing blanks cut) goes to @val when not NULL.
 */
static bool config_line_is(const char *line, size_t n, const char *key, char *val, size_t len)
{
	const char *p = line, *end = line + n, *e;
	size_t klen = strlen(key);

	while (p < end && isspace((unsigned char)*p))
		p++;
	if ((size_t)(end - p) < klen || strncmp(p, key, klen))
		return false;
	p += klen;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || *p++ != '=')
		return false;
	if (!val)
		return true;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	e = end;
	while (e > p && isspace((unsigned char)e[-1]))
		e--;
	snprintf(val, len, "%.*s", (int)(e - p), p);
	return true;
}

int ui_config_get(const char *key, char *val, size_t len)
{
	char path[PATH_MAX], *text, *p;
	int ret;

	if (ui_config_path(path, sizeof(path)))
		return -ENOENT;
	ret = safefile_read(path, CONFIG_MAX, &text, NULL);
	if (ret)
		return ret;
	ret = -ENOENT;
	for (p = text; *p;) {
		size_t n = strcspn(p, "\n");

		if (config_line_is(p, n, key, val, len))
			ret = 0;	/* the last one wins */
		p += n + (p[n] == '\n');
	}
	free(text);
	return ret;
}

int ui_config_set(const char *key, const char *val, char *why, size_t whylen)
{
	char path[PATH_MAX], *text = NULL, *out = NULL, *p;
	size_t olen = 0;
	FILE *fp;
	int ret;

	if (ui_config_path(path, sizeof(path))) {
		snprintf(why, whylen, "neither $XDG_CONFIG_HOME nor $HOME is set");
		return -ENOENT;
	}
	/* not a file of ours (a planted link, a FIFO, too big): written afresh */
	ret = safefile_read(path, CONFIG_MAX, &text, NULL);
	if (ret && ret != -ENOENT && ret != -ELOOP && ret != -EINVAL && ret != -EFBIG) {
		snprintf(why, whylen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	fp = open_memstream(&out, &olen);
	if (!fp) {
		free(text);
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	for (p = text; p && *p;) {
		size_t n = strcspn(p, "\n");

		/* keep every other line as it was */
		if (!config_line_is(p, n, key, NULL, 0))
			fprintf(fp, "%.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
	fprintf(fp, "%s = %s\n", key, val);
	free(text);
	if (fclose(fp)) {
		free(out);
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	/* 0644: a setting, nothing secret; replaced, never written through a link */
	ret = safefile_replace(path, out, olen, 0644, why, whylen);
	free(out);
	return ret;
}
