// SPDX-License-Identifier: GPL-2.0-or-later
/* Syscall names by number, and their argument names (see syscalls.h). */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file.h"
#include "syscalls.h"

/* [nr] = "name", one line a syscall: generated, see the Makefile */
static const char *const syscall_names[] = {
#include "syscall_names.h"
};

#define NSYSCALLS	(sizeof(syscall_names) / sizeof(syscall_names[0]))


const char *syscall_name(uint32_t nr)
{
	if (nr >= NSYSCALLS)
		return NULL;
	return syscall_names[nr];
}

/* What was read of each syscall's event format: once, then kept. */
static struct {
	pthread_mutex_t	lock;
	char		dir[512];	/* the tracefs mount; "": the usual one */
	struct {
		int8_t	n;		/* arguments; -1: not known; unset until read */
		bool	read;
		char	name[SYSCALL_MAX_ARGS][SYSCALL_ARG_NAME_MAX];
	}		args[NSYSCALLS];
} sc = { .lock = PTHREAD_MUTEX_INITIALIZER };

void syscall_args_dir(const char *tracefs)
{
	pthread_mutex_lock(&sc.lock);
	snprintf(sc.dir, sizeof(sc.dir), "%s", tracefs ? tracefs : "");
	for (size_t i = 0; i < NSYSCALLS; i++)
		sc.args[i].read = false;
	pthread_mutex_unlock(&sc.lock);
}

int syscall_args_parse(const char *text, char names[][SYSCALL_ARG_NAME_MAX], int max)
{
	const char *p = strstr(text, "__syscall_nr;");
	int n = 0;

	if (!p)
		return -EINVAL;
	/* "\tfield:TYPE NAME;\t..." per argument, until the blank line */
	while ((p = strchr(p, '\n')) && !strncmp(p + 1, "\tfield:", 7) && n < max) {
		const char *semi = strchr(p + 8, ';'), *nl = strchr(p + 1, '\n');
		const char *b;

		if (!semi || (nl && semi > nl))
			return -EINVAL;
		for (b = semi; b > p + 8 && b[-1] != ' ' && b[-1] != '*'; b--)
			;
		if (b == semi || semi - b >= SYSCALL_ARG_NAME_MAX)
			return -EINVAL;
		snprintf(names[n++], SYSCALL_ARG_NAME_MAX, "%.*s", (int)(semi - b), b);
		p++;
	}
	return n;
}

/* Read @nr's format: events/syscalls/sys_enter_NAME/format (fstat's is newfstat's). */
static void args_read(uint32_t nr)
{
	static const char *const prefix[] = { "", "new" };
	const char *dir = sc.dir[0] ? sc.dir : "/sys/kernel/tracing";

	sc.args[nr].read = true;
	sc.args[nr].n = -1;
	for (unsigned int i = 0; i < 2 && sc.args[nr].n < 0; i++) {
		char path[768], *text;

		snprintf(path, sizeof(path), "%s/events/syscalls/sys_enter_%s%s/format", dir,
			 prefix[i], syscall_names[nr]);
		if (file_read(path, 1 << 16, &text, NULL))
			continue;
		sc.args[nr].n = (int8_t)syscall_args_parse(text, sc.args[nr].name,
							    SYSCALL_MAX_ARGS);
		if (sc.args[nr].n < 0)
			sc.args[nr].n = -1;
		free(text);
	}
}

int syscall_args(uint32_t nr, const char *names[SYSCALL_MAX_ARGS])
{
	int n;

	if (nr >= NSYSCALLS || !syscall_names[nr])
		return -ENOENT;
	pthread_mutex_lock(&sc.lock);
	if (!sc.args[nr].read)
		args_read(nr);
	n = sc.args[nr].n;
	for (int i = 0; i < n; i++)
		names[i] = sc.args[nr].name[i];
	pthread_mutex_unlock(&sc.lock);
	return n < 0 ? -ENOENT : n;
}
