// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Recorded fixture directories: a tep built from the saved formats, and the
 * raw pages in memory. Used by the unit tests and the benchmarks, never by
 * the live path.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

#include "decode.h"
#include "lib/evformat.h"
#include "lib/file.h"
#include "fixture.h"
#include "store/store.h"
#include "lib/tuning.h"

#define FIXTURE_MAX_CPUS	1024

struct fixture {
	char			*dir;
	struct tep_handle	*tep;
	char			*meta;
	size_t			page_size;
	unsigned int		ncpus;
	void			**raw;		/* per CPU */
	size_t			*raw_len;
	char			path[PATH_MAX];
};

char *fixture_read_file(const char *path, size_t *len)
{
	char gzpath[PATH_MAX], *buf;
	int ret;

	ret = file_read(path, FILE_NO_MAX, &buf, len);
	if (!ret)
		return buf;
	/* no plain copy: a .gz one, decompressed */
	snprintf(gzpath, sizeof(gzpath), "%s.gz", path);
	if (!file_read_gz(gzpath, FILE_NO_MAX, &buf, len))
		return buf;
	errno = -ret;
	return NULL;
}

const char *fixture_root(void)
{
	return tuning()->fixtures;
}

const char *fixture_path(struct fixture *fx, const char *name)
{
	snprintf(fx->path, sizeof(fx->path), "%s/%s", fx->dir, name);
	return fx->path;
}

const char *fixture_meta(const struct fixture *fx, const char *key)
{
	size_t klen = strlen(key);
	static __thread char val[512];

	for (const char *l = fx->meta; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (!strncmp(l, key, klen) && l[klen] == '=') {
			const char *v = l + klen + 1;
			size_t n = strcspn(v, "\n");

			snprintf(val, sizeof(val), "%.*s", (int)n, v);
			return val;
		}
	}
	return NULL;
}

static int fixture_load_formats(struct fixture *fx)
{
	char sysdir[PATH_MAX];
	struct dirent *sd;
	int nevents = 0;
	DIR *sdir;

	snprintf(sysdir, sizeof(sysdir), "%s/events", fx->dir);
	sdir = opendir(sysdir);
	if (!sdir)
		return -errno;
	while ((sd = readdir(sdir)))
		if (sd->d_name[0] != '.')
			nevents += evformat_load_system(fx->tep, sysdir, sd->d_name, true);
	closedir(sdir);
	return nevents ? 0 : -ENOENT;
}

static int fixture_load_raw(struct fixture *fx)
{
	struct dirent *de;
	DIR *d;

	d = opendir(fx->dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		unsigned int cpu;
		char tail[8];

		char name[32];

		if (sscanf(de->d_name, "cpu%u.%7s", &cpu, tail) != 2 ||
		    (strcmp(tail, "raw") && strcmp(tail, "raw.gz")) || cpu >= FIXTURE_MAX_CPUS)
			continue;
		if (cpu >= fx->ncpus) {
			void **raw = realloc(fx->raw, (cpu + 1) * sizeof(*raw));
			size_t *len;

			if (!raw)
				goto out_nomem;
			fx->raw = raw;
			len = realloc(fx->raw_len, (cpu + 1) * sizeof(*len));
			if (!len)
				goto out_nomem;
			fx->raw_len = len;
			for (unsigned int i = fx->ncpus; i <= cpu; i++) {
				fx->raw[i] = NULL;
				fx->raw_len[i] = 0;
			}
			fx->ncpus = cpu + 1;
		}
		snprintf(name, sizeof(name), "cpu%u.raw", cpu);
		free(fx->raw[cpu]);
		fx->raw[cpu] = fixture_read_file(fixture_path(fx, name), &fx->raw_len[cpu]);
		if (!fx->raw[cpu])
			goto out_nomem;
	}
	closedir(d);
	return fx->ncpus ? 0 : -ENOENT;

out_nomem:
	closedir(d);
	return -ENOMEM;
}

struct fixture *fixture_open(const char *dir)
{
	struct fixture *fx;
	const char *v;
	size_t len;
	char *buf;
	int long_size = 8, err = ENOMEM, ret;

	fx = calloc(1, sizeof(*fx));
	if (!fx)
		goto out_err;
	fx->dir = strdup(dir);
	fx->tep = tep_alloc();
	if (!fx->dir || !fx->tep)
		goto out_free;
	fx->meta = fixture_read_file(fixture_path(fx, "meta"), NULL);
	if (!fx->meta) {
		err = errno ? errno : ENOENT;
		goto out_free;
	}
	v = fixture_meta(fx, "long_size");
	if (v)
		long_size = atoi(v);
	v = fixture_meta(fx, "page_size");
	fx->page_size = v ? strtoul(v, NULL, 10) : 4096;
	if (!fx->page_size)
		fx->page_size = 4096;
	tep_set_long_size(fx->tep, long_size);
	tep_set_page_size(fx->tep, fx->page_size);
	tep_set_file_bigendian(fx->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(fx->tep, tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);

	buf = fixture_read_file(fixture_path(fx, "header_page"), &len);
	if (!buf) {
		err = ENOENT;
		goto out_free;
	}
	ret = tep_parse_header_page(fx->tep, buf, len, long_size);
	free(buf);
	if (ret) {
		err = EINVAL;
		goto out_free;
	}
	ret = fixture_load_formats(fx);
	if (ret) {
		err = -ret;
		goto out_free;
	}
	buf = fixture_read_file(fixture_path(fx, "saved_cmdlines"), NULL);
	if (buf) {
		tep_parse_saved_cmdlines(fx->tep, buf);
		free(buf);
	}
	buf = fixture_read_file(fixture_path(fx, "kallsyms"), NULL);
	if (buf) {
		tep_parse_kallsyms(fx->tep, buf);
		free(buf);
	}
	ret = fixture_load_raw(fx);
	if (ret) {
		err = -ret;
		goto out_free;
	}
	return fx;

out_free:
	fixture_close(fx);
out_err:
	errno = err;
	return NULL;
}

void fixture_close(struct fixture *fx)
{
	if (!fx)
		return;
	for (unsigned int i = 0; i < fx->ncpus; i++)
		free(fx->raw[i]);
	free(fx->raw);
	free(fx->raw_len);
	if (fx->tep)
		tep_free(fx->tep);
	free(fx->meta);
	free(fx->dir);
	free(fx);
}

struct tep_handle *fixture_tep(struct fixture *fx)
{
	return fx->tep;
}

unsigned int fixture_ncpus(const struct fixture *fx)
{
	return fx->ncpus;
}

size_t fixture_page_size(const struct fixture *fx)
{
	return fx->page_size;
}

size_t fixture_npages(const struct fixture *fx, unsigned int cpu)
{
	return cpu < fx->ncpus ? fx->raw_len[cpu] / fx->page_size : 0;
}

void *fixture_page(const struct fixture *fx, unsigned int cpu, size_t i)
{
	if (i >= fixture_npages(fx, cpu))
		return NULL;
	return (char *)fx->raw[cpu] + i * fx->page_size;
}

int fixture_for_each_record(struct fixture *fx, unsigned int cpu, fixture_record_fn fn,
			    void *arg)
{
	struct kbuffer *kb;
	int ret = 0;

	kb = kbuffer_alloc(tep_get_header_page_size(fx->tep) == 4 ? KBUFFER_LSIZE_4 :
			   KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	if (!kb)
		return -ENOMEM;
	for (size_t i = 0; i < fixture_npages(fx, cpu) && !ret; i++) {
		unsigned long long ts;
		void *data;

		if (kbuffer_load_subbuffer(kb, fixture_page(fx, cpu, i)) < 0) {
			ret = -EINVAL;
			break;
		}
		for (data = kbuffer_read_event(kb, &ts); data && !ret;
		     data = kbuffer_next_event(kb, &ts))
			ret = fn(arg, cpu, ts, data, kbuffer_event_size(kb));
	}
	kbuffer_free(kb);
	return ret;
}

int fixture_decode(struct fixture *fx, struct store *st, struct symbols *syms)
{
	struct decode_ctx *dc = decode_ctx_new(fx->tep, st, syms);
	int ret = 0;

	if (!dc)
		return -errno ? -errno : -ENOMEM;
	for (unsigned int cpu = 0; cpu < fx->ncpus && cpu < store_ncpus(st) && !ret; cpu++) {
		struct decoder *d = decoder_new(dc, cpu);

		if (!d) {
			ret = -ENOMEM;
			break;
		}
		for (size_t i = 0; i < fixture_npages(fx, cpu); i++)
			decoder_page(d, fixture_page(fx, cpu, i), fx->page_size, NULL);
		decoder_free(d);
		store_publish(st, cpu);
	}
	decode_ctx_free(dc);
	return ret;
}
