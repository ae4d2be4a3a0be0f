// SPDX-License-Identifier: GPL-2.0-or-later
/* The name of an event format text, and a system's formats into a tep (see evformat.h). */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "evformat.h"
#include "file.h"

bool evformat_name(const char *text, char *name, size_t len)
{
	const char *p;
	size_t n;

	if (len)
		name[0] = '\0';
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, "name: ", 6))
			continue;
		p += 6;
		n = strcspn(p, "\n");
		if (!n || n >= len)
			return false;
		memcpy(name, p, n);
		name[n] = '\0';
		return true;
	}
	return false;
}

bool evformat_field_is_text(const struct tep_format_field *f)
{
	const char *t = f->type ? f->type : "";

	return (f->flags & TEP_FIELD_IS_STRING) && strstr(t, "char") && !strstr(t, "unsigned");
}

bool evformat_field_fits(const struct tep_format_field *f, int max)
{
	return f->offset >= 0 && f->size >= 0 && f->offset <= max && f->size <= max - f->offset;
}

int evformat_load_system(struct tep_handle *tep, const char *events_dir, const char *sys,
			 bool gz)
{
	char path[PATH_MAX + 512];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s", events_dir, sys);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		size_t len;
		char *buf;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s/format", events_dir, sys, de->d_name);
		if (file_read(path, FILE_NO_MAX, &buf, &len)) {
			if (!gz)
				continue;
			strncat(path, ".gz", sizeof(path) - strlen(path) - 1);
			if (file_read_gz(path, FILE_NO_MAX, &buf, &len))
				continue;
		}
		if (tep_parse_event(tep, buf, len, sys) == 0)
			n++;
		free(buf);
	}
	closedir(d);
	return n;
}
