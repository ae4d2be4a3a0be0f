// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The filter prompt's history, kept across runs in the user's state
 * directory (see ftrace_filter.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "funcfilter.h"
#include "ftrace_filter.h"
#include "lib/safefile.h"

#define HISTORY_MAX	500

/* the most a history file can be: a bigger one is not ours (safefile_read refuses it) */
#define HISTORY_FILE_MAX	(HISTORY_MAX * (FUNCFILTER_LINE_MAX + 1))

struct funcfilter_history {
	char	path[PATH_MAX];
	char	**lines;	/* oldest first */
	size_t	n;
	int	save_err;	/* the first refusal to save: not tried again */
};

int funcfilter_history_open(struct funcfilter_history **out, const char *path)
{
	struct funcfilter_history *h = calloc(1, sizeof(*h));
	char *text = NULL, *p;
	int ret;

	*out = NULL;
	if (!h)
		return -ENOMEM;
	if (path)
		snprintf(h->path, sizeof(h->path), "%s", path);
	else if ((ret = safefile_xdg_path("XDG_STATE_HOME", ".local/state", "filter_history",
						  h->path, sizeof(h->path))))
		goto out_free;
	/* a regular file of bounded size; a link only when root or we own it */
	ret = safefile_read(h->path, HISTORY_FILE_MAX, &text, NULL);
	/* missing, or not a file of ours (a planted link, a FIFO, too big): empty */
	if (ret == -ENOENT || ret == -ELOOP || ret == -EINVAL || ret == -EFBIG) {
		*out = h;
		return 0;
	}
	if (ret)
		goto out_free;
	for (p = text; *p;) {
		size_t n = strcspn(p, "\n");

		if (n && n <= FUNCFILTER_LINE_MAX) {
			char **nl = realloc(h->lines, (h->n + 1) * sizeof(*nl));

			if (!nl || !(nl[h->n] = strndup(p, n))) {
				h->lines = nl ? nl : h->lines;
				ret = -ENOMEM;
				goto out_free;
			}
			h->lines = nl;
			h->n++;
		}
		p += n + (p[n] == '\n');
	}
	free(text);
	*out = h;
	return 0;
out_free:
	free(text);
	funcfilter_history_free(h);
	return ret;
}

void funcfilter_history_free(struct funcfilter_history *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->n; i++)
		free(h->lines[i]);
	free(h->lines);
	free(h);
}

size_t funcfilter_history_count(const struct funcfilter_history *h)
{
	return h ? h->n : 0;
}

const char *funcfilter_history_get(const struct funcfilter_history *h, size_t i)
{
	return h && i < h->n ? h->lines[h->n - 1 - i] : NULL;
}

int funcfilter_history_add(struct funcfilter_history *h, const char *line, char *why, size_t whylen)
{
	char **nl, *text = NULL;
	size_t len = 0;
	FILE *fp;
	int ret;

	if (!*line || strchr(line, '\n') || strlen(line) > FUNCFILTER_LINE_MAX)
		return -EINVAL;
	if (h->n && !strcmp(h->lines[h->n - 1], line))
		return 0;
	nl = realloc(h->lines, (h->n + 1) * sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	h->lines = nl;
	h->lines[h->n] = strdup(line);
	if (!h->lines[h->n])
		return -ENOMEM;
	h->n++;
	if (h->n > HISTORY_MAX) {
		free(h->lines[0]);
		memmove(h->lines, h->lines + 1, (h->n - 1) * sizeof(*h->lines));
		h->n--;
	}
	if (h->save_err == -EPERM)
		return h->save_err;	/* said once: the directory is not ours to write */
	fp = open_memstream(&text, &len);
	if (!fp)
		return -ENOMEM;
	for (size_t i = 0; i < h->n; i++)
		fprintf(fp, "%s\n", h->lines[i]);
	if (fclose(fp)) {
		free(text);
		return -ENOMEM;
	}
	/* a new file renamed over the old: a crash never leaves half a history */
	ret = safefile_replace(h->path, text, len, 0600, why, whylen);
	free(text);
	h->save_err = ret;
	return ret;
}
