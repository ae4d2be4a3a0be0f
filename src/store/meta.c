// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A trace's metadata (meta.h): keeping, copying, reading from a tracefs-like
 * directory, and parsing into a tep handle.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "lib/evformat.h"
#include "lib/file.h"
#include "meta.h"
#include "schema.h"
#include "store.h"

/* A side file of a trace is small; a bigger one is not what it claims to be. */
#define META_FILE_MAX	(256u << 20)

/* The texts a meta owns, by offset. */
static const size_t meta_text_off[] = {
	offsetof(struct snapshot_meta, header_page),
	offsetof(struct snapshot_meta, header_event),
	offsetof(struct snapshot_meta, kallsyms),
	offsetof(struct snapshot_meta, printk),
	offsetof(struct snapshot_meta, cmdlines),
	offsetof(struct snapshot_meta, options),
	offsetof(struct snapshot_meta, features),
	offsetof(struct snapshot_meta, save_note),
};
#define META_NTEXTS	(sizeof(meta_text_off) / sizeof(meta_text_off[0]))

static char **meta_text(struct snapshot_meta *m, size_t i)
{
	return (char **)((char *)m + meta_text_off[i]);
}

void snapshot_meta_free(struct snapshot_meta *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < META_NTEXTS; i++)
		free(*meta_text(m, i));
	for (size_t i = 0; i < m->nformats; i++) {
		free(m->formats[i].system);
		free(m->formats[i].text);
	}
	free(m->formats);
	free(m->buffers);
	free(m->cpustats);
	memset(m, 0, sizeof(*m));
}

int snapshot_meta_copy(struct snapshot_meta *dst, const struct snapshot_meta *src)
{
	struct snapshot_meta *s = (struct snapshot_meta *)src;

	memcpy(dst, src, sizeof(*dst));
	dst->formats = NULL;
	dst->nformats = 0;
	dst->buffers = NULL;
	dst->nbuffers = 0;
	dst->cpustats = NULL;
	if (src->nbuffers) {
		dst->buffers = malloc(src->nbuffers * sizeof(*dst->buffers));
		if (!dst->buffers)
			goto out_nomem;
		memcpy(dst->buffers, src->buffers, src->nbuffers * sizeof(*dst->buffers));
		dst->nbuffers = src->nbuffers;
	}
	if (src->cpustats && src->ncpus) {
		dst->cpustats = malloc(src->ncpus * sizeof(*dst->cpustats));
		if (!dst->cpustats)
			goto out_nomem;
		memcpy(dst->cpustats, src->cpustats, src->ncpus * sizeof(*dst->cpustats));
	}
	for (size_t i = 0; i < META_NTEXTS; i++) {
		const char *t = *meta_text(s, i);

		*meta_text(dst, i) = NULL;
		if (t && !(*meta_text(dst, i) = strdup(t)))
			goto out_nomem;
	}
	for (size_t i = 0; i < src->nformats; i++)
		if (snapshot_meta_add_format(dst, src->formats[i].system, src->formats[i].text))
			goto out_nomem;
	return 0;

out_nomem:
	snapshot_meta_free(dst);
	return -ENOMEM;
}

const struct snapshot_buffer *snapshot_meta_buffer(const struct snapshot_meta *m,
						   unsigned int stream, unsigned int *cpu)
{
	if (cpu)
		*cpu = stream;
	for (size_t i = 0; m && i < m->nbuffers; i++) {
		const struct snapshot_buffer *b = &m->buffers[i];

		if (stream >= b->cpu0 && stream - b->cpu0 < b->ncpus) {
			if (cpu)
				*cpu = stream - b->cpu0;
			return b;
		}
	}
	return NULL;
}

char *snapshot_meta_cpu_name(const struct snapshot_meta *m, unsigned int stream, char *buf,
			     size_t len)
{
	unsigned int cpu;
	const struct snapshot_buffer *b = snapshot_meta_buffer(m, stream, &cpu);

	if (b && m->nbuffers > 1 && strcmp(b->name, "top"))
		snprintf(buf, len, "%s:%u", b->name, cpu);
	else
		snprintf(buf, len, "%u", cpu);
	return buf;
}

int snapshot_meta_add_format(struct snapshot_meta *m, const char *system, const char *text)
{
	struct snapshot_format *n;

	if (m->nformats >= SNAPSHOT_MAX_FORMATS)
		return -E2BIG;
	n = realloc(m->formats, (m->nformats + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	m->formats = n;
	n = &m->formats[m->nformats];
	n->system = strdup(system);
	n->text = strdup(text);
	if (!n->system || !n->text) {
		free(n->system);
		free(n->text);
		return -ENOMEM;
	}
	m->nformats++;
	return 0;
}

const char *snapshot_meta_format(const struct snapshot_meta *m, const char *system,
				 const char *name)
{
	char n[256];

	for (size_t i = 0; i < m->nformats; i++)
		if (!strcmp(m->formats[i].system, system) &&
		    evformat_name(m->formats[i].text, n, sizeof(n)) && !strcmp(n, name))
			return m->formats[i].text;
	return NULL;
}

/* @dir/@name, or @dir/@name.gz decompressed. Return: the text (free it), or NULL. */
static char *meta_read(const char *dir, const char *name)
{
	char path[PATH_MAX], *text = NULL;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!file_read(path, META_FILE_MAX, &text, NULL))
		return text;
	snprintf(path, sizeof(path), "%s/%s.gz", dir, name);
	if (!file_read_gz(path, META_FILE_MAX, &text, NULL))
		return text;
	return NULL;
}

static void meta_kv(struct snapshot_meta *m, const char *key, const char *val)
{
	if (!strcmp(key, "release") && !m->release[0])
		snprintf(m->release, sizeof(m->release), "%s", val);
	else if (!strcmp(key, "tracer") && !m->tracer[0])
		snprintf(m->tracer, sizeof(m->tracer), "%s", val);
	else if (!strcmp(key, "trace_clock") && !m->clock[0])
		snprintf(m->clock, sizeof(m->clock), "%s", val);
	else if (!strcmp(key, "cpus") && !m->ncpus)
		m->ncpus = strtoul(val, NULL, 10);
	else if (!strcmp(key, "page_size") && !m->page_size)
		m->page_size = strtoul(val, NULL, 10);
	else if (!strcmp(key, "hostname") && !m->hostname[0])
		snprintf(m->hostname, sizeof(m->hostname), "%s", val);
}

/* The key=value lines of a fixture's "meta" file. */
static void meta_load_kv(struct snapshot_meta *m, const char *dir)
{
	char *text = meta_read(dir, "meta"), *save = NULL;

	if (!text)
		return;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');

		if (eq) {
			*eq = 0;
			meta_kv(m, line, eq + 1);
		}
	}
	free(text);
}

/* Keep @dir/@name in *@dst unless it is set; @alt: another name to try. */
static void meta_load_text(char **dst, const char *dir, const char *name, const char *alt)
{
	if (*dst)
		return;
	*dst = meta_read(dir, name);
	if (!*dst && alt)
		*dst = meta_read(dir, alt);
}

/* The formats of events/@sys/ (only those @sc has, when not NULL). */
static int meta_load_system(struct snapshot_meta *m, const char *dir, const char *sys,
			    const struct schema *sc)
{
	char path[PATH_MAX], name[256];
	struct dirent *ed;
	DIR *edir;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/events/%s", dir, sys);
	edir = opendir(path);
	if (!edir)
		return 0;
	while (!ret && (ed = readdir(edir))) {
		char *text;

		if (ed->d_name[0] == '.')
			continue;
		if (sc && strcmp(sys, "ftrace") && schema_find(sc, sys, ed->d_name) < 0)
			continue;
		snprintf(path, sizeof(path), "events/%s/%s/format", sys, ed->d_name);
		text = meta_read(dir, path);
		if (!text)
			continue;
		if (evformat_name(text, name, sizeof(name)))
			ret = snapshot_meta_add_format(m, sys, text);
		free(text);
	}
	closedir(edir);
	return ret;
}

int snapshot_meta_load_dir(struct snapshot_meta *m, const char *dir, const struct store *only)
{
	struct schema *sc = only ? store_schema((struct store *)only) : NULL;
	char path[PATH_MAX];
	struct dirent *sd;
	DIR *sdir;
	int ret = 0;

	meta_load_kv(m, dir);
	meta_load_text(&m->header_page, dir, "header_page", "events/header_page");
	meta_load_text(&m->header_event, dir, "header_event", "events/header_event");
	meta_load_text(&m->kallsyms, dir, "kallsyms", NULL);
	meta_load_text(&m->printk, dir, "printk_formats", NULL);
	meta_load_text(&m->cmdlines, dir, "saved_cmdlines", NULL);
	snprintf(path, sizeof(path), "%s/events", dir);
	sdir = opendir(path);
	if (!sdir)
		return -ENOENT;
	while (!ret && (sd = readdir(sdir)))
		if (sd->d_name[0] != '.')
			ret = meta_load_system(m, dir, sd->d_name, sc);
	closedir(sdir);
	if (!ret && !m->nformats)
		ret = -ENOENT;
	return ret;
}

struct tep_handle *snapshot_meta_tep(const struct snapshot_meta *m)
{
	struct tep_handle *tep;
	unsigned int parsed = 0;

	if (!m->nformats) {
		errno = ENOENT;
		return NULL;
	}
	tep = tep_alloc();
	if (!tep) {
		errno = ENOMEM;
		return NULL;
	}
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, 8);
	tep_set_page_size(tep, m->page_size ? m->page_size : 4096);
	if (m->header_page)
		tep_parse_header_page(tep, m->header_page, strlen(m->header_page), 8);
	for (size_t i = 0; i < m->nformats; i++) {
		if (!tep_parse_event(tep, m->formats[i].text, strlen(m->formats[i].text),
				     m->formats[i].system))
			parsed++;
	}
	if (m->kallsyms)
		tep_parse_kallsyms(tep, m->kallsyms);
	if (m->printk)
		tep_parse_printk_formats(tep, m->printk);
	if (!parsed) {
		tep_free(tep);
		errno = EINVAL;
		return NULL;
	}
	return tep;
}
