// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * .ktop snapshots and streams (format: see snapshot.h), and loading of
 * trace.dat files (src/formats/tracedat.h).
 *
 * Layout, little-endian:
 *   file header  "KTOPSNAP" u32 version u32 header_size(32) u64 created_ns
 *                u32 flags u32 crc32(bytes 0..27)
 *   block        u32 'KBLK' u16 type u16 flags u32 raw_len u32 comp_len
 *                u32 crc32(payload) u32 crc32(bytes 0..19), then comp_len
 *                bytes: one zstd frame of raw_len bytes
 * Inside the payloads, integers are LEB128 varints (zigzag for signed ones).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <traceevent/event-parse.h>
#include <trace-cmd/trace-cmd.h>

#include "safefile.h"
#include "snapshot.h"
#include "viewfilter.h"
#include "store.h"
#include "intern.h"
#include "schema.h"
#include "decode.h"
#include "fixture.h"
#include "output.h"
#include "formats/tracedat.h"

#define SNAP_MAGIC		"KTOPSNAP"
#define SNAP_HDR_SIZE		32
#define BLK_MAGIC		0x4b4c424bu	/* "KBLK" */
#define BLK_HDR_SIZE		24
#define WRITE_BLOCK_EVENTS	16384u
#define WRITE_BLOCK_ITEMS	65536u	/* lost marks or comms in one block */
#define COMM_SCAN_MAX		(1u << 23)	/* store.c COMM_MAX_PID */

enum blk_type {
	BLK_META = 1,
	BLK_SCHEMA,
	BLK_STRINGS,
	BLK_COMM,
	BLK_EVENTS,
	BLK_LOST,
	BLK_END,
	BLK_NR,
};

enum meta_key {
	MK_RELEASE = 1,
	MK_HOSTNAME,
	MK_TRACER,
	MK_CLOCK,
	MK_NCPUS,
	MK_PAGE_SIZE,
	MK_HEADER_PAGE,
	MK_KALLSYMS,
	MK_FEATURES,
	MK_FORMAT,	/* system NUL text */
	MK_PRINTK,	/* printk_formats text */
	MK_BUFFER,	/* one buffer: "cpu0 ncpus page_size\tclock\tname" */
	MK_CMDLINES,	/* saved_cmdlines text */
};

/* ---- byte buffers and cursors --------------------------------------------- */

struct buf {
	uint8_t	*p;
	size_t	len, cap;
	int	err;
};

static int buf_reserve(struct buf *b, size_t more)
{
	size_t cap;
	uint8_t *n;

	if (b->err)
		return b->err;
	if (b->len + more <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + more)
		cap *= 2;
	n = realloc(b->p, cap);
	if (!n)
		return b->err = -ENOMEM;
	b->p = n;
	b->cap = cap;
	return 0;
}

static void buf_put(struct buf *b, const void *p, size_t n)
{
	if (buf_reserve(b, n))
		return;
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static inline void buf_u8(struct buf *b, uint8_t v)
{
	if (b->len < b->cap) {
		b->p[b->len++] = v;
		return;
	}
	buf_put(b, &v, 1);
}

static inline void buf_var(struct buf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n++] = (v & 0x7f) | (v > 0x7f ? 0x80 : 0);
		v >>= 7;
	} while (v);
	if (b->len + n <= b->cap) {
		memcpy(b->p + b->len, tmp, n);
		b->len += n;
		return;
	}
	buf_put(b, tmp, n);
}

static inline uint64_t zz_enc(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t zz_dec(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static void buf_str(struct buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	buf_var(b, n);
	buf_put(b, s, n);
}

static void buf_free(struct buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

struct cur {
	const uint8_t	*p, *end;
	bool		bad;
};

static inline uint64_t cur_var(struct cur *c)
{
	uint64_t v = 0;
	unsigned int shift = 0;

	if (__builtin_expect(c->p < c->end && *c->p < 0x80, 1))
		return *c->p++;	/* the common one-byte case */

	while (c->p < c->end) {
		uint8_t x = *c->p++;

		if (shift == 63 && x > 1)
			break;
		v |= (uint64_t)(x & 0x7f) << shift;
		if (!(x & 0x80))
			return v;
		shift += 7;
		if (shift > 63)
			break;
	}
	c->bad = true;
	return 0;
}

static inline uint8_t cur_u8(struct cur *c)
{
	if (c->p >= c->end) {
		c->bad = true;
		return 0;
	}
	return *c->p++;
}

/* A length-prefixed string, copied NUL-terminated (free it), NULL when bad. */
static char *cur_strdup(struct cur *c, size_t max)
{
	uint64_t n = cur_var(c);
	char *s;

	if (c->bad || n > max || n > (size_t)(c->end - c->p)) {
		c->bad = true;
		return NULL;
	}
	s = malloc(n + 1);
	if (!s) {
		c->bad = true;
		return NULL;
	}
	memcpy(s, c->p, n);
	s[n] = 0;
	c->p += n;
	return s;
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static inline uint32_t get_le32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t crc(const void *p, size_t n)
{
	return (uint32_t)crc32(crc32(0, NULL, 0), p, (uInt)n);
}

/* ---- meta ------------------------------------------------------------------ */

void snapshot_meta_free(struct snapshot_meta *m)
{
	if (!m)
		return;
	free(m->header_page);
	free(m->kallsyms);
	free(m->features);
	free(m->printk);
	free(m->cmdlines);
	free(m->buffers);
	free(m->cpustats);
	for (size_t i = 0; i < m->nformats; i++) {
		free(m->formats[i].system);
		free(m->formats[i].text);
	}
	free(m->formats);
	memset(m, 0, sizeof(*m));
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

/* Keep one buffer of a META block ("cpu0 ncpus page_size\tclock\tname"). */
static int meta_add_buffer(struct snapshot_meta *m, const char *v, size_t len)
{
	struct snapshot_buffer b, *n;
	char line[160];
	const char *clk, *name;
	int used = 0;

	memset(&b, 0, sizeof(b));
	snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) - 1 ? len : sizeof(line) - 1),
		 v);
	clk = strchr(line, '\t');
	name = clk ? strchr(clk + 1, '\t') : NULL;
	if (!name || sscanf(line, "%u %u %u%n", &b.cpu0, &b.ncpus, &b.page_size, &used) != 3 ||
	    line + used != clk || m->nbuffers >= SNAPSHOT_MAX_BUFFERS || !b.ncpus ||
	    b.ncpus > SNAPSHOT_MAX_CPUS || b.cpu0 > SNAPSHOT_MAX_CPUS - b.ncpus)
		return -EBADMSG;
	snprintf(b.clock, sizeof(b.clock), "%.*s", (int)(name - clk - 1), clk + 1);
	snprintf(b.name, sizeof(b.name), "%s", name + 1);
	n = realloc(m->buffers, (m->nbuffers + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	m->buffers = n;
	m->buffers[m->nbuffers++] = b;
	return 0;
}

/* "name: NAME" of a format text. */
static bool format_name(const char *text, char *name, size_t len)
{
	const char *p = strstr(text, "name: ");
	size_t n;

	if (!p)
		return false;
	p += 6;
	n = strcspn(p, "\n");
	if (!n || n >= len)
		return false;
	memcpy(name, p, n);
	name[n] = 0;
	return true;
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

int snapshot_meta_load_dir(struct snapshot_meta *m, const char *dir, const struct store *only)
{
	struct schema *sc = only ? store_schema((struct store *)only) : NULL;
	char path[PATH_MAX], name[256];
	struct dirent *sd, *ed;
	DIR *sdir, *edir;
	char *text;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/meta", dir);
	text = fixture_read_file(path, NULL);
	if (text) {
		for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
			char *eq = strchr(line, '=');

			if (eq) {
				*eq = 0;
				meta_kv(m, line, eq + 1);
			}
		}
		free(text);
	}
	if (!m->header_page) {
		snprintf(path, sizeof(path), "%s/header_page", dir);
		m->header_page = fixture_read_file(path, NULL);
		if (!m->header_page) {
			snprintf(path, sizeof(path), "%s/events/header_page", dir);
			m->header_page = fixture_read_file(path, NULL);
		}
	}
	if (!m->kallsyms) {
		snprintf(path, sizeof(path), "%s/kallsyms", dir);
		m->kallsyms = fixture_read_file(path, NULL);
	}
	snprintf(path, sizeof(path), "%s/events", dir);
	sdir = opendir(path);
	if (!sdir)
		return -ENOENT;
	while (!ret && (sd = readdir(sdir))) {
		if (sd->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", dir, sd->d_name);
		edir = opendir(path);
		if (!edir)
			continue;
		while (!ret && (ed = readdir(edir))) {
			if (ed->d_name[0] == '.')
				continue;
			if (sc && strcmp(sd->d_name, "ftrace") &&
			    schema_find(sc, sd->d_name, ed->d_name) < 0)
				continue;
			snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir, sd->d_name,
				 ed->d_name);
			text = fixture_read_file(path, NULL);
			if (!text)
				continue;
			if (format_name(text, name, sizeof(name)))
				ret = snapshot_meta_add_format(m, sd->d_name, text);
			free(text);
		}
		closedir(edir);
	}
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

enum snapshot_kind snapshot_detect(const void *head, size_t len)
{
	static const uint8_t tdat[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

	if (!len)
		return SNAPSHOT_KIND_EMPTY;
	if (len >= 8 && !memcmp(head, SNAP_MAGIC, 8))
		return SNAPSHOT_KIND_KTOP;
	if (len >= sizeof(tdat) && !memcmp(head, tdat, sizeof(tdat)))
		return SNAPSHOT_KIND_TRACEDAT;
	return SNAPSHOT_KIND_UNKNOWN;
}

/* ---- writer ----------------------------------------------------------------- */

struct comm_pair {
	int32_t		pid;
	uint32_t	id;
};

struct snapshot_writer {
	int			fd;
	struct output		*out;		/* fd, written so that a stop ends a wait */
	char			name[256];
	char			err[512];
	int			level;
	uint64_t		t0, t1;
	struct viewfilter	*view;
	ZSTD_CCtx		*cctx;
	struct buf		raw, comp;
	unsigned int		ncpus;
	uint64_t		*next;		/* per CPU: next seq to write */
	unsigned int		sent_types;	/* schema ids < this were sent */
	uint32_t		sent_strings;
	uint64_t		sent_lost;	/* number of the next mark to send */
	struct comm_pair	*comms;		/* sent, sorted by pid */
	size_t			ncomms;
	struct ktop_event	*evs;		/* one block's events */
	uint64_t		rate;		/* bytes/s, 0: unbounded */
	double			tokens;		/* bytes that may go out now */
	double			last_refill;	/* CLOCK_MONOTONIC seconds */
	bool			failed;
	struct snapshot_writer_stats st;
};

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int writer_fail(struct snapshot_writer *w, int ret, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(w->err, sizeof(w->err), "%s: ", w->name);
	va_start(ap, fmt);
	vsnprintf(w->err + n, sizeof(w->err) - n, fmt, ap);
	va_end(ap);
	w->failed = true;
	return ret;
}

static int writer_block(struct snapshot_writer *w, enum blk_type type)
{
	uint8_t hdr[BLK_HDR_SIZE];
	struct iovec iov[2];
	size_t bound, n;
	int ret;

	if (w->raw.err)
		return writer_fail(w, w->raw.err, "out of memory");
	if (w->raw.len > SNAPSHOT_MAX_BLOCK)
		return writer_fail(w, -E2BIG, "block of %zu bytes over the limit", w->raw.len);
	bound = ZSTD_compressBound(w->raw.len);
	w->comp.len = 0;
	if (buf_reserve(&w->comp, bound))
		return writer_fail(w, -ENOMEM, "out of memory");
	n = ZSTD_compressCCtx(w->cctx, w->comp.p, bound, w->raw.p, w->raw.len, w->level);
	if (ZSTD_isError(n))
		return writer_fail(w, -EIO, "zstd: %s", ZSTD_getErrorName(n));
	put_le32(hdr, BLK_MAGIC);
	hdr[4] = type;
	hdr[5] = 0;
	hdr[6] = hdr[7] = 0;
	put_le32(hdr + 8, (uint32_t)w->raw.len);
	put_le32(hdr + 12, (uint32_t)n);
	put_le32(hdr + 16, crc(w->comp.p, n));
	put_le32(hdr + 20, crc(hdr, 20));
	iov[0] = (struct iovec){ hdr, sizeof(hdr) };
	iov[1] = (struct iovec){ w->comp.p, n };
	ret = output_write(w->out, iov, 2);
	if (ret)
		return writer_fail(w, ret, "write: %s", strerror(-ret));
	w->st.bytes += sizeof(hdr) + n;
	w->st.raw_bytes += w->raw.len;
	w->st.blocks++;
	w->raw.len = 0;
	return 0;
}

static void meta_put(struct buf *b, enum meta_key k, const void *p, size_t n)
{
	buf_var(b, k);
	buf_var(b, n);
	buf_put(b, p, n);
}

static void meta_put_str(struct buf *b, enum meta_key k, const char *s)
{
	if (s && *s)
		meta_put(b, k, s, strlen(s));
}

static void meta_put_num(struct buf *b, enum meta_key k, uint64_t v)
{
	char tmp[24];

	meta_put(b, k, tmp, snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v));
}

struct snapshot_writer *snapshot_writer_new(int fd, const char *name, const struct store *st,
					    const struct snapshot_meta *meta,
					    const struct snapshot_write_opts *opts,
					    char *err, size_t errlen)
{
	struct snapshot_writer *w;
	uint8_t hdr[SNAP_HDR_SIZE];
	struct iovec iov;
	struct timespec now;
	int ret;

	w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(err, errlen, "%s: out of memory", name);
		errno = ENOMEM;
		return NULL;
	}
	w->fd = fd;
	snprintf(w->name, sizeof(w->name), "%s", name);
	w->level = opts && opts->level ? opts->level : 3;
	w->t0 = opts ? opts->t0 : 0;
	w->t1 = opts && (opts->t0 || opts->t1) ? opts->t1 : UINT64_MAX;
	w->rate = opts ? opts->max_bytes_per_sec : 0;
	w->view = opts ? opts->view : NULL;
	w->tokens = (double)w->rate;
	w->last_refill = mono_now();
	w->cctx = ZSTD_createCCtx();
	w->evs = malloc(WRITE_BLOCK_EVENTS * sizeof(*w->evs));
	w->out = output_new(fd);
	if (!w->cctx || !w->evs || !w->out) {
		ret = -ENOMEM;
		writer_fail(w, ret, "out of memory");
		goto out_fail;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr, SNAP_MAGIC, 8);
	put_le32(hdr + 8, SNAPSHOT_VERSION);
	put_le32(hdr + 12, SNAP_HDR_SIZE);
	put_le64(hdr + 16, (uint64_t)now.tv_sec * 1000000000ull + now.tv_nsec);
	put_le32(hdr + 28, crc(hdr, 28));
	iov = (struct iovec){ hdr, sizeof(hdr) };
	ret = output_write(w->out, &iov, 1);
	if (ret) {
		writer_fail(w, ret, "write: %s", strerror(-ret));
		goto out_fail;
	}
	w->st.bytes += sizeof(hdr);

	meta_put_num(&w->raw, MK_NCPUS, store_ncpus(st));
	if (meta) {
		meta_put_str(&w->raw, MK_RELEASE, meta->release);
		meta_put_str(&w->raw, MK_HOSTNAME, meta->hostname);
		meta_put_str(&w->raw, MK_TRACER, meta->tracer);
		meta_put_str(&w->raw, MK_CLOCK, meta->clock);
		if (meta->page_size)
			meta_put_num(&w->raw, MK_PAGE_SIZE, meta->page_size);
		meta_put_str(&w->raw, MK_HEADER_PAGE, meta->header_page);
		meta_put_str(&w->raw, MK_KALLSYMS, meta->kallsyms);
		meta_put_str(&w->raw, MK_FEATURES, meta->features);
		meta_put_str(&w->raw, MK_PRINTK, meta->printk);
		meta_put_str(&w->raw, MK_CMDLINES, meta->cmdlines);
		for (size_t i = 0; i < meta->nbuffers; i++) {
			const struct snapshot_buffer *b = &meta->buffers[i];
			char line[160];

			snprintf(line, sizeof(line), "%u %u %u\t%s\t%s", b->cpu0, b->ncpus,
				 b->page_size, b->clock, b->name);
			meta_put_str(&w->raw, MK_BUFFER, line);
		}
		for (size_t i = 0; i < meta->nformats; i++) {
			size_t ls = strlen(meta->formats[i].system);
			size_t lt = strlen(meta->formats[i].text);

			buf_var(&w->raw, MK_FORMAT);
			buf_var(&w->raw, ls + 1 + lt);
			buf_put(&w->raw, meta->formats[i].system, ls + 1);
			buf_put(&w->raw, meta->formats[i].text, lt);
		}
	}
	ret = writer_block(w, BLK_META);
	if (ret)
		goto out_fail;
	return w;

out_fail:
	snprintf(err, errlen, "%s", w->err);
	snapshot_writer_free(w);
	errno = -ret;
	return NULL;
}

static int writer_strings(struct snapshot_writer *w, struct intern *in);

/* The lost-event records not sent yet, WRITE_BLOCK_ITEMS a block at most. */
static int writer_lost(struct snapshot_writer *w, struct store *st)
{
	struct store_lost *l = NULL;
	size_t n;
	int ret = 0;

	do {
		size_t cnt = 0;

		if (!l)
			l = malloc(WRITE_BLOCK_ITEMS * sizeof(*l));
		if (!l)
			return writer_fail(w, -ENOMEM, "out of memory");
		n = store_lost_marks_from(st, &w->sent_lost, l, WRITE_BLOCK_ITEMS);
		for (size_t i = 0; i < n; i++)
			cnt += l[i].ts >= w->t0 && l[i].ts <= w->t1;
		if (!cnt)
			continue;
		w->raw.len = 0;
		buf_var(&w->raw, cnt);
		for (size_t i = 0; i < n; i++) {
			if (l[i].ts < w->t0 || l[i].ts > w->t1)
				continue;
			buf_var(&w->raw, l[i].cpu);
			buf_var(&w->raw, l[i].ts);
			buf_var(&w->raw, l[i].count);
		}
		ret = writer_block(w, BLK_LOST);
	} while (!ret && n == WRITE_BLOCK_ITEMS);
	free(l);
	return ret;
}

static int comm_cmp(const void *a, const void *b)
{
	const struct comm_pair *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int writer_comms(struct snapshot_writer *w, struct store *st)
{
	struct intern *in = store_strings(st);
	struct comm_pair *now = NULL;
	size_t n = 0, cap = 0, changed = 0, j = 0;
	int ret;

	/* every pid the store knows a comm for; the comm pages make gaps cheap */
	for (uint32_t pid = 0; pid < COMM_SCAN_MAX; pid++) {
		const char *c = store_comm(st, (int32_t)pid);

		if (!c)
			continue;
		if (n == cap) {
			struct comm_pair *x;

			cap = cap ? cap * 2 : 256;
			x = realloc(now, cap * sizeof(*x));
			if (!x) {
				free(now);
				return writer_fail(w, -ENOMEM, "out of memory");
			}
			now = x;
		}
		now[n].pid = (int32_t)pid;
		now[n].id = intern_id(in, c, strlen(c));
		n++;
	}
	/* count the changes against what was sent (both sorted by pid) */
	for (size_t i = 0; i < n; i++) {
		while (j < w->ncomms && w->comms[j].pid < now[i].pid)
			j++;
		if (j >= w->ncomms || w->comms[j].pid != now[i].pid || w->comms[j].id != now[i].id)
			changed++;
	}
	if (!changed) {
		free(now);
		return 0;
	}
	/* comms interned after the string table went out must go first */
	ret = writer_strings(w, in);
	if (ret) {
		free(now);
		return ret;
	}
	/* in blocks of WRITE_BLOCK_ITEMS changes, each with its count first */
	j = 0;
	for (size_t i = 0, in_blk = 0; i < n && !ret; i++) {
		while (j < w->ncomms && w->comms[j].pid < now[i].pid)
			j++;
		if (j < w->ncomms && w->comms[j].pid == now[i].pid && w->comms[j].id == now[i].id)
			continue;
		if (!in_blk) {
			w->raw.len = 0;
			buf_var(&w->raw, changed < WRITE_BLOCK_ITEMS ? changed : WRITE_BLOCK_ITEMS);
		}
		buf_var(&w->raw, zz_enc(now[i].pid));
		buf_var(&w->raw, now[i].id);
		changed--;
		if (++in_blk == WRITE_BLOCK_ITEMS || !changed) {
			ret = writer_block(w, BLK_COMM);
			in_blk = 0;
		}
	}
	free(w->comms);
	w->comms = now;
	w->ncomms = n;
	qsort(w->comms, n, sizeof(*now), comm_cmp);
	return ret;
}

static int writer_events(struct snapshot_writer *w, unsigned int cpu, size_t n)
{
	struct buf *b = &w->raw;
	size_t col[7], start, nargs = 0;
	uint64_t prev;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		nargs += w->evs[i].nargs;
	b->len = 0;
	if (buf_reserve(b, 64 + n * 20 + nargs * 10))
		return writer_fail(w, -ENOMEM, "out of memory");
	buf_var(b, cpu);
	buf_var(b, n);
	buf_var(b, w->evs[0].ts);
	/* column sizes first, filled in after: 7 fixed-width u32 slots */
	start = b->len;
	b->len += 7 * 4;

	size_t c0 = b->len;

	prev = w->evs[0].ts;
	for (size_t i = 0; i < n; i++) {
		buf_var(b, w->evs[i].ts - prev);
		prev = w->evs[i].ts;
	}
	col[0] = b->len - c0;
	c0 = b->len;
	for (size_t i = 0; i < n; i++)
		buf_var(b, zz_enc(w->evs[i].pid));
	col[1] = b->len - c0;
	c0 = b->len;
	for (size_t i = 0; i < n; i++)
		buf_var(b, w->evs[i].type);
	col[2] = b->len - c0;
	c0 = b->len;
	for (size_t i = 0; i < n; i++)
		buf_u8(b, w->evs[i].flags);
	col[3] = b->len - c0;
	c0 = b->len;
	for (size_t i = 0; i < n; i++)
		buf_u8(b, w->evs[i].pc);
	col[4] = b->len - c0;
	c0 = b->len;
	for (size_t i = 0; i < n; i++)
		buf_u8(b, w->evs[i].nargs);
	col[5] = b->len - c0;
	c0 = b->len;
	for (size_t i = 0; i < n; i++)
		for (unsigned int a = 0; a < w->evs[i].nargs; a++)
			buf_var(b, zz_enc((int64_t)w->evs[i].args[a]));
	col[6] = b->len - c0;
	if (b->err)
		return writer_fail(w, b->err, "out of memory");
	for (int i = 0; i < 7; i++)
		put_le32(b->p + start + 4 * i, (uint32_t)col[i]);
	w->st.events += n;
	return writer_block(w, BLK_EVENTS);
}

/* Send the strings interned since the last call, in blocks of bounded size. */
static int writer_strings(struct snapshot_writer *w, struct intern *in)
{
	uint32_t nstr = intern_count(in);

	if (!w->sent_strings)
		w->sent_strings = 1;	/* id 0 is always "" */
	while (nstr > w->sent_strings) {
		uint32_t first = w->sent_strings, last = first;
		size_t bytes = 0;
		int ret;

		while (last < nstr && bytes < SNAPSHOT_MAX_BLOCK / 4)
			bytes += strlen(intern_str(in, last++)) + 5;
		w->raw.len = 0;
		buf_var(&w->raw, first);
		buf_var(&w->raw, last - first);
		for (uint32_t id = first; id < last; id++)
			buf_str(&w->raw, intern_str(in, id));
		ret = writer_block(w, BLK_STRINGS);
		if (ret)
			return ret;
		w->sent_strings = last;
	}
	return 0;
}

/*
 * Leave out every CPU's events up to @end (the bandwidth bound): the reader
 * gets one lost-event record per CPU instead, at the first event left out.
 */
static int writer_drop(struct snapshot_writer *w, struct store *st, const uint64_t *end)
{
	size_t cnt = 0;

	w->raw.len = 0;
	for (unsigned int cpu = 0; cpu < w->ncpus; cpu++)
		cnt += end[cpu] > w->next[cpu];
	if (!cnt)
		return 0;
	buf_var(&w->raw, cnt);
	for (unsigned int cpu = 0; cpu < w->ncpus; cpu++) {
		struct ktop_event ev;
		uint64_t seq = w->next[cpu], first, e2;

		if (end[cpu] <= seq)
			continue;
		store_cpu_range(st, cpu, &first, &e2);
		if (seq < first)
			seq = first;
		ev.ts = 0;
		if (seq < end[cpu])
			store_get(st, cpu, seq, &ev);
		buf_var(&w->raw, cpu);
		buf_var(&w->raw, ev.ts);
		buf_var(&w->raw, end[cpu] - w->next[cpu]);
		w->st.dropped += end[cpu] - w->next[cpu];
		w->next[cpu] = end[cpu];
	}
	return writer_block(w, BLK_LOST);
}

int snapshot_writer_flush(struct snapshot_writer *w, struct store *st)
{
	struct schema *sc = store_schema(st);
	struct intern *in = store_strings(st);
	unsigned int ncpus = store_ncpus(st), maxid;
	uint64_t *end = NULL, bytes0;
	int ret = 0;

	if (w->failed)
		return -EIO;
	if (!w->next || w->ncpus != ncpus) {
		free(w->next);
		w->ncpus = ncpus;
		w->next = calloc(ncpus ? ncpus : 1, sizeof(*w->next));
		if (!w->next)
			return writer_fail(w, -ENOMEM, "out of memory");
	}
	/* What the events may reference is captured after the event ranges. */
	end = calloc(ncpus ? ncpus : 1, sizeof(*end));
	if (!end)
		return writer_fail(w, -ENOMEM, "out of memory");
	for (unsigned int cpu = 0; cpu < ncpus; cpu++) {
		uint64_t first;

		store_cpu_range(st, cpu, &first, &end[cpu]);
	}

	/* schema: dynamic types not sent yet */
	maxid = schema_max_id(sc);
	if (w->sent_types < KTOP_T_DYNAMIC)
		w->sent_types = KTOP_T_DYNAMIC;
	if (maxid > w->sent_types) {
		size_t cnt = 0;

		w->raw.len = 0;
		for (unsigned int id = w->sent_types; id < maxid; id++)
			cnt += schema_get(sc, id) != NULL;
		buf_var(&w->raw, cnt);
		for (unsigned int id = w->sent_types; id < maxid; id++) {
			const struct ktop_schema_type *t = schema_get(sc, id);

			if (!t)
				continue;
			buf_var(&w->raw, id);
			buf_str(&w->raw, t->system);
			buf_str(&w->raw, t->name);
			buf_var(&w->raw, t->nfields);
			for (unsigned int f = 0; f < t->nfields; f++) {
				buf_u8(&w->raw, t->fields[f].kind);
				buf_str(&w->raw, t->fields[f].name);
			}
		}
		ret = writer_block(w, BLK_SCHEMA);
		if (ret)
			goto out;
		w->sent_types = maxid;
	}

	ret = writer_strings(w, in);
	if (ret)
		goto out;

	/* bandwidth bound: refill the bucket; when empty, send lost records instead */
	if (w->rate) {
		double t = mono_now();

		w->tokens += (t - w->last_refill) * (double)w->rate;
		if (w->tokens > (double)w->rate)
			w->tokens = (double)w->rate;
		w->last_refill = t;
		if (w->tokens <= 0) {
			ret = writer_drop(w, st, end);
			goto out;
		}
	}
	bytes0 = w->st.bytes;

	/* events, per CPU, in blocks */
	for (unsigned int cpu = 0; cpu < ncpus; cpu++) {
		uint64_t first, e2, seq;
		size_t n = 0;

		store_cpu_range(st, cpu, &first, &e2);
		seq = w->next[cpu];
		if (seq < first) {
			w->st.skipped += first - seq;
			seq = first;
		}
		if (w->t0 && seq < end[cpu])
			seq = store_seek(st, cpu, w->t0) > seq ? store_seek(st, cpu, w->t0) : seq;
		for (; seq < end[cpu]; seq++) {
			struct ktop_event *ev = &w->evs[n];

			if (store_get(st, cpu, seq, ev)) {
				w->st.skipped++;
				continue;
			}
			if (ev->ts < w->t0)
				continue;
			if (ev->ts > w->t1) {
				seq = end[cpu];
				break;
			}
			if (w->view && !viewfilter_match(w->view, ev))
				continue;
			if (ev->nargs > KTOP_MAX_ARGS)
				ev->nargs = KTOP_MAX_ARGS;
			if (++n == WRITE_BLOCK_EVENTS) {
				ret = writer_events(w, cpu, n);
				if (ret)
					goto out;
				n = 0;
			}
		}
		ret = writer_events(w, cpu, n);
		if (ret)
			goto out;
		w->next[cpu] = end[cpu];
	}

	ret = writer_lost(w, st);
	if (ret)
		goto out;

	/* comm table changes (their strings are all in the string table now) */
	ret = writer_comms(w, st);
	if (ret)
		goto out;
	if (w->rate)
		w->tokens -= (double)(w->st.bytes - bytes0);
out:
	free(end);
	return ret;
}

int snapshot_writer_finish(struct snapshot_writer *w)
{
	if (w->failed)
		return -EIO;
	w->raw.len = 0;
	buf_var(&w->raw, w->st.events);
	return writer_block(w, BLK_END);
}

const char *snapshot_writer_error(const struct snapshot_writer *w)
{
	return w->err;
}

void snapshot_writer_stats(const struct snapshot_writer *w, struct snapshot_writer_stats *out)
{
	*out = w->st;
}

void snapshot_writer_free(struct snapshot_writer *w)
{
	if (!w)
		return;
	ZSTD_freeCCtx(w->cctx);
	output_free(w->out);
	buf_free(&w->raw);
	buf_free(&w->comp);
	free(w->next);
	free(w->comms);
	free(w->evs);
	free(w);
}

int snapshot_write(const char *path, struct store *st, const struct snapshot_meta *meta,
		   const struct snapshot_write_opts *opts, char *err, size_t errlen)
{
	struct snapshot_writer *w;
	struct safefile_out out;
	int ret;

	ret = safefile_out_open(&out, path, opts ? opts->file_flags : 0, err, errlen);
	if (ret)
		return ret;
	w = snapshot_writer_new(out.fd, path, st, meta, opts, err, errlen);
	if (!w) {
		ret = -errno;
		safefile_out_close(&out, false, err, errlen);
		return ret;
	}
	ret = snapshot_writer_flush(w, st);
	if (!ret)
		ret = snapshot_writer_finish(w);
	if (ret)
		snprintf(err, errlen, "%s", snapshot_writer_error(w));
	snapshot_writer_free(w);
	if (ret) {
		safefile_out_close(&out, false, err, errlen);
		return ret;
	}
	return safefile_out_close(&out, true, err, errlen);
}

/* ---- reader ----------------------------------------------------------------- */

struct snapshot_reader {
	int			fd;
	char			name[256];
	char			err[512];
	size_t			mem_limit;
	uint64_t		off;		/* bytes consumed */
	uint64_t		nblocks;
	uint64_t		events;
	ZSTD_DCtx		*dctx;
	struct buf		comp, raw;
	struct store		*st;
	struct snapshot_meta	meta;
	uint32_t		*strmap;	/* file string id -> store id */
	uint32_t		nstr;		/* ids received (id 0 included) */
	uint64_t		strbytes;
	uint64_t		raw_in, comp_in;	/* bytes decompressed, and read */
	uint64_t		meta_bytes;
	uint16_t		*typemap;	/* file type id -> store id, 0: unknown */
	bool			ended;
};

static int reader_fail(struct snapshot_reader *r, int ret, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(r->err, sizeof(r->err), "%s: ", r->name);
	va_start(ap, fmt);
	vsnprintf(r->err + n, sizeof(r->err) - n, fmt, ap);
	va_end(ap);
	return ret;
}

/*
 * What a file brings besides events and lost marks cannot be evicted: its
 * metadata, the string map and the store's tables must fit in the memory
 * limit. @more: bytes about to be allocated. Return: 0 or -E2BIG.
 */
static int reader_budget(struct snapshot_reader *r, uint64_t more)
{
	uint64_t limit = r->mem_limit ? r->mem_limit : STORE_DEFAULT_MEMORY;
	uint64_t used = more + r->meta_bytes + (uint64_t)r->nstr * sizeof(*r->strmap);

	if (r->st)
		used += store_table_bytes(r->st);
	if (used <= limit)
		return 0;
	return reader_fail(r, -E2BIG, "its metadata, strings, comm table and event types need "
			   "%.1f MiB or more, over the memory limit (-m) of %.1f MiB",
			   used / 1048576.0, limit / 1048576.0);
}

/* Return: bytes read (< n only at EOF), or a negative errno. */
static ssize_t read_full(int fd, void *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = read(fd, (char *)p + got, n - got);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!k)
			break;
		got += k;
	}
	return got;
}

static int reader_meta(struct snapshot_reader *r, struct cur *c)
{
	struct snapshot_meta *m = &r->meta;

	while (c->p < c->end && !c->bad) {
		uint64_t key = cur_var(c), len = cur_var(c);
		const char *v = (const char *)c->p;
		char num[24];
		char **dst = NULL;

		if (c->bad || len > (size_t)(c->end - c->p))
			return reader_fail(r, -EBADMSG, "corrupt metadata block");
		c->p += len;
		snprintf(num, sizeof(num), "%.*s", (int)(len < 23 ? len : 23), v);
		switch (key) {
		case MK_RELEASE:
			snprintf(m->release, sizeof(m->release), "%.*s", (int)len, v);
			break;
		case MK_HOSTNAME:
			snprintf(m->hostname, sizeof(m->hostname), "%.*s", (int)len, v);
			break;
		case MK_TRACER:
			snprintf(m->tracer, sizeof(m->tracer), "%.*s", (int)len, v);
			break;
		case MK_CLOCK:
			snprintf(m->clock, sizeof(m->clock), "%.*s", (int)len, v);
			break;
		case MK_NCPUS:
			m->ncpus = strtoul(num, NULL, 10);
			break;
		case MK_PAGE_SIZE:
			m->page_size = strtoul(num, NULL, 10);
			break;
		case MK_HEADER_PAGE:
			dst = &m->header_page;
			break;
		case MK_KALLSYMS:
			dst = &m->kallsyms;
			break;
		case MK_FEATURES:
			dst = &m->features;
			break;
		case MK_PRINTK:
			dst = &m->printk;
			break;
		case MK_CMDLINES:
			dst = &m->cmdlines;
			break;
		case MK_BUFFER:
			if (meta_add_buffer(m, v, len))
				return reader_fail(r, -EBADMSG, "corrupt buffer record");
			break;
		case MK_FORMAT: {
			const char *nul = memchr(v, 0, len);
			char *text;
			int ret;

			if (!nul)
				return reader_fail(r, -EBADMSG, "corrupt event format record");
			text = strndup(nul + 1, len - (nul + 1 - v));
			if (!text)
				return reader_fail(r, -ENOMEM, "out of memory");
			ret = snapshot_meta_add_format(m, v, text);
			free(text);
			if (ret)
				return reader_fail(r, ret, "too many event formats");
			break;
		}
		default:
			break;	/* newer minor keys are skipped */
		}
		if (dst) {
			free(*dst);
			*dst = strndup(v, len);
			if (!*dst)
				return reader_fail(r, -ENOMEM, "out of memory");
		}
	}
	if (c->bad)
		return reader_fail(r, -EBADMSG, "corrupt metadata block");
	if (!m->ncpus || m->ncpus > SNAPSHOT_MAX_CPUS)
		return reader_fail(r, -EBADMSG, "bad CPU count %u in the metadata", m->ncpus);
	for (size_t i = 0; i < m->nbuffers; i++)
		if (m->buffers[i].cpu0 + m->buffers[i].ncpus > m->ncpus)
			return reader_fail(r, -EBADMSG, "buffer %s has CPUs past the %u of the "
					   "metadata", m->buffers[i].name, m->ncpus);
	snprintf(m->source, sizeof(m->source), "ktop");
	r->st = store_new(r->mem_limit, m->ncpus);
	if (!r->st)
		return reader_fail(r, -ENOMEM, "out of memory for the store");
	return 0;
}

static int reader_schema(struct snapshot_reader *r, struct cur *c)
{
	struct schema *sc = store_schema(r->st);
	uint64_t n = cur_var(c);
	int ret = 0;

	if (c->bad || n > 65536)
		return reader_fail(r, -EBADMSG, "corrupt schema block");
	for (uint64_t i = 0; i < n && !ret; i++) {
		struct ktop_field fields[KTOP_MAX_ARGS];
		char *sys, *name, *fn[KTOP_MAX_ARGS] = { 0 };
		uint64_t id = cur_var(c), nf;
		int nid;

		sys = cur_strdup(c, 256);
		name = cur_strdup(c, 256);
		nf = cur_var(c);
		if (c->bad || id < KTOP_T_DYNAMIC || id > UINT16_MAX || nf > KTOP_MAX_ARGS)
			ret = -EBADMSG;
		for (uint64_t f = 0; !ret && f < nf; f++) {
			uint8_t kind = cur_u8(c);

			fn[f] = cur_strdup(c, 256);
			if (c->bad || kind > KTOP_FK_SYM) {
				ret = -EBADMSG;
				break;
			}
			fields[f].name = fn[f];
			fields[f].kind = kind;
		}
		if (!ret) {
			nid = schema_find(sc, sys, name);
			if (nid < 0)
				nid = schema_add(sc, sys, name, nf, fields);
			if (nid < 0)
				ret = nid;
			else
				r->typemap[id] = nid;
		}
		free(sys);
		free(name);
		for (unsigned int f = 0; f < KTOP_MAX_ARGS; f++)
			free(fn[f]);
		if (!ret && !(i & 255) && reader_budget(r, 0))
			return -E2BIG;
	}
	if (ret)
		return reader_fail(r, ret, "corrupt schema block");
	return reader_budget(r, 0);
}

static int reader_strings(struct snapshot_reader *r, struct cur *c)
{
	struct intern *in = store_strings(r->st);
	uint64_t first = cur_var(c), n = cur_var(c);
	uint32_t *map;

	if (c->bad || first != (r->nstr ? r->nstr : 1) ||
	    n > SNAPSHOT_MAX_STRINGS || first + n > SNAPSHOT_MAX_STRINGS ||
	    n > (size_t)(c->end - c->p))
		return reader_fail(r, -EBADMSG, "corrupt string table (ids %llu+%llu after %u)",
				   (unsigned long long)first, (unsigned long long)n, r->nstr);
	if (reader_budget(r, (first + n - r->nstr) * sizeof(*map)))
		return -E2BIG;
	map = realloc(r->strmap, (first + n) * sizeof(*map));
	if (!map)
		return reader_fail(r, -ENOMEM, "out of memory");
	r->strmap = map;
	map[0] = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t len = cur_var(c);
		uint32_t id;

		if (c->bad || len > (size_t)(c->end - c->p))
			return reader_fail(r, -EBADMSG, "corrupt string table");
		r->strbytes += len;
		if (r->strbytes > SNAPSHOT_MAX_STRBYTES)
			return reader_fail(r, -E2BIG, "string table over %u bytes",
					   SNAPSHOT_MAX_STRBYTES);
		id = intern_id(in, (const char *)c->p, len);
		if (id == UINT32_MAX)
			return reader_fail(r, -ENOMEM, "out of memory");
		map[first + i] = id;
		c->p += len;
		if (!(i & 1023) && reader_budget(r, (first + n - r->nstr) * sizeof(*map)))
			return -E2BIG;
	}
	r->nstr = first + n;
	return reader_budget(r, 0);
}

static int reader_comm(struct snapshot_reader *r, struct cur *c)
{
	struct intern *in = store_strings(r->st);
	uint64_t n = cur_var(c);

	if (c->bad || n > (size_t)(c->end - c->p))
		return reader_fail(r, -EBADMSG, "corrupt comm table");
	for (uint64_t i = 0; i < n; i++) {
		int64_t pid = zz_dec(cur_var(c));
		uint64_t id = cur_var(c);

		if (c->bad || (id && id >= r->nstr) || pid < 0 || pid > INT32_MAX)
			return reader_fail(r, -EBADMSG, "corrupt comm table");
		store_set_comm(r->st, (int32_t)pid, intern_str(in, id ? r->strmap[id] : 0));
		/* a page of the comm table per 4096 pids: a few bytes each can cost 16 KiB */
		if (!(i & 255) && reader_budget(r, 0))
			return -E2BIG;
	}
	return reader_budget(r, 0);
}

static int reader_lost(struct snapshot_reader *r, struct cur *c)
{
	uint64_t n = cur_var(c);

	if (c->bad || n > (size_t)(c->end - c->p))
		return reader_fail(r, -EBADMSG, "corrupt lost-event block");
	for (uint64_t i = 0; i < n; i++) {
		uint64_t cpu = cur_var(c), ts = cur_var(c), cnt = cur_var(c);

		if (c->bad || cpu >= store_ncpus(r->st))
			return reader_fail(r, -EBADMSG, "corrupt lost-event block");
		store_add_lost(r->st, (unsigned int)cpu, ts, cnt);
	}
	return 0;
}

static int reader_events(struct snapshot_reader *r, struct cur *c)
{
	struct schema *sc = store_schema(r->st);
	uint64_t cpu = cur_var(c), n = cur_var(c), ts = cur_var(c);
	struct cur col[7];
	const uint8_t *p;
	const struct ktop_schema_type *t = NULL;
	uint16_t last_type = 0;

	if (c->bad || cpu >= store_ncpus(r->st) || !n || n > SNAPSHOT_MAX_BLOCK_EVENTS ||
	    (size_t)(c->end - c->p) < 28)
		return reader_fail(r, -EBADMSG, "corrupt event block header");
	p = c->p + 28;
	for (int i = 0; i < 7; i++) {
		uint32_t len = get_le32(c->p + 4 * i);

		if (len > (size_t)(c->end - p))
			return reader_fail(r, -EBADMSG, "corrupt event block (column %d size)", i);
		col[i] = (struct cur){ p, p + len, false };
		p += len;
	}
	if (col[3].end - col[3].p != (ptrdiff_t)n || col[4].end - col[4].p != (ptrdiff_t)n ||
	    col[5].end - col[5].p != (ptrdiff_t)n)
		return reader_fail(r, -EBADMSG, "corrupt event block (column sizes)");
	for (uint64_t i = 0; i < n; i++) {
		struct ktop_event ev;
		uint64_t type;

		ts += cur_var(&col[0]);
		ev.ts = ts;
		ev.pid = (int32_t)zz_dec(cur_var(&col[1]));
		type = cur_var(&col[2]);
		ev.flags = col[3].p[i];
		ev.pc = col[4].p[i];
		ev.nargs = col[5].p[i];
		ev.cpu = (uint16_t)cpu;
		if (type >= KTOP_T_DYNAMIC && type <= UINT16_MAX)
			type = r->typemap[type];
		else if (type >= KTOP_T_NR_FIXED || type == 0)
			type = 0;
		if (!type || ev.nargs > KTOP_MAX_ARGS)
			return reader_fail(r, -EBADMSG, "corrupt event (type %llu, %u args)",
					   (unsigned long long)type, ev.nargs);
		ev.type = (uint16_t)type;
		if (!t || ev.type != last_type) {
			t = schema_get(sc, ev.type);
			last_type = ev.type;
			if (!t)
				return reader_fail(r, -EBADMSG, "event of unknown type %u", ev.type);
		}
		for (unsigned int a = 0; a < ev.nargs; a++) {
			uint64_t v = (uint64_t)zz_dec(cur_var(&col[6]));

			if (a < t->nfields && (t->fields[a].kind == KTOP_FK_STR ||
					       t->fields[a].kind == KTOP_FK_SYM)) {
				if (v && v >= r->nstr)
					return reader_fail(r, -EBADMSG,
							   "event references unknown string %llu",
							   (unsigned long long)v);
				v = v ? r->strmap[v] : 0;
			}
			ev.args[a] = v;
		}
		for (unsigned int a = ev.nargs; a < KTOP_MAX_ARGS; a++)
			ev.args[a] = 0;
		if (col[0].bad || col[1].bad || col[2].bad || col[6].bad)
			return reader_fail(r, -EBADMSG, "corrupt event block (short column)");
		if (store_append(r->st, &ev))
			return reader_fail(r, -ENOMEM, "out of memory");
	}
	store_publish(r->st, (unsigned int)cpu);
	/* a file may have 4096 CPUs: hold one CPU's open chunk, not each one's */
	if (store_seal_idle(r->st, (unsigned int)cpu))
		return reader_fail(r, -ENOMEM, "out of memory");
	r->events += n;
	return 0;
}

int snapshot_reader_next(struct snapshot_reader *r)
{
	uint8_t hdr[BLK_HDR_SIZE];
	uint32_t raw_len, comp_len;
	unsigned int type;
	struct cur c;
	ssize_t n;
	size_t d;
	int ret;

	if (r->ended)
		return 0;
	n = read_full(r->fd, hdr, sizeof(hdr));
	if (n < 0)
		return reader_fail(r, (int)n, "read: %s", strerror((int)-n));
	if (n == 0)
		return reader_fail(r, -EBADMSG, "truncated: the file ends after %llu bytes "
				   "(%llu blocks) without its end record",
				   (unsigned long long)r->off, (unsigned long long)r->nblocks);
	if ((size_t)n < sizeof(hdr))
		return reader_fail(r, -EBADMSG, "truncated: %zd of %zu header bytes of block %llu "
				   "at offset %llu", n, sizeof(hdr),
				   (unsigned long long)r->nblocks, (unsigned long long)r->off);
	if (get_le32(hdr) != BLK_MAGIC || get_le32(hdr + 20) != crc(hdr, 20))
		return reader_fail(r, -EBADMSG, "corrupt block header (block %llu at offset %llu)",
				   (unsigned long long)r->nblocks, (unsigned long long)r->off);
	type = hdr[4];
	raw_len = get_le32(hdr + 8);
	comp_len = get_le32(hdr + 12);
	if (raw_len > SNAPSHOT_MAX_BLOCK || comp_len > SNAPSHOT_MAX_BLOCK)
		return reader_fail(r, -E2BIG, "block %llu at offset %llu claims %u/%u bytes, "
				   "over the %u-byte limit", (unsigned long long)r->nblocks,
				   (unsigned long long)r->off, comp_len, raw_len, SNAPSHOT_MAX_BLOCK);
	if (!type || type >= BLK_NR)
		return reader_fail(r, -EBADMSG, "unknown block type %u at offset %llu", type,
				   (unsigned long long)r->off);
	r->raw_in += raw_len;
	r->comp_in += sizeof(hdr) + comp_len;
	if (r->raw_in > SNAPSHOT_MAX_RATIO * r->comp_in + SNAPSHOT_RATIO_SLACK)
		return reader_fail(r, -E2BIG, "block %llu at offset %llu: the file would expand "
				   "to %llu bytes from %llu, more than %u times: not a file ktop "
				   "wrote (a decompression bomb?)", (unsigned long long)r->nblocks,
				   (unsigned long long)r->off, (unsigned long long)r->raw_in,
				   (unsigned long long)r->comp_in, SNAPSHOT_MAX_RATIO);
	if ((r->nblocks == 0) != (type == BLK_META))
		return reader_fail(r, -EBADMSG, "block %llu: metadata %s",
				   (unsigned long long)r->nblocks,
				   type == BLK_META ? "repeated" : "missing");
	r->comp.len = 0;
	if (buf_reserve(&r->comp, comp_len) || buf_reserve(&r->raw, raw_len + 1))
		return reader_fail(r, -ENOMEM, "out of memory");
	n = read_full(r->fd, r->comp.p, comp_len);
	if (n < 0)
		return reader_fail(r, (int)n, "read: %s", strerror((int)-n));
	if ((size_t)n < comp_len)
		return reader_fail(r, -EBADMSG, "truncated: block %llu at offset %llu has %zd of "
				   "%u bytes", (unsigned long long)r->nblocks,
				   (unsigned long long)r->off, n, comp_len);
	if (crc(r->comp.p, comp_len) != get_le32(hdr + 16))
		return reader_fail(r, -EBADMSG, "checksum mismatch in block %llu at offset %llu",
				   (unsigned long long)r->nblocks, (unsigned long long)r->off);
	if (ZSTD_getFrameContentSize(r->comp.p, comp_len) != raw_len)
		return reader_fail(r, -EBADMSG, "block %llu: size mismatch",
				   (unsigned long long)r->nblocks);
	d = ZSTD_decompressDCtx(r->dctx, r->raw.p, raw_len + 1, r->comp.p, comp_len);
	if (ZSTD_isError(d) || d != raw_len)
		return reader_fail(r, -EBADMSG, "block %llu does not decompress",
				   (unsigned long long)r->nblocks);
	r->off += sizeof(hdr) + comp_len;
	r->nblocks++;
	c = (struct cur){ r->raw.p, r->raw.p + raw_len, false };
	switch (type) {
	case BLK_META:
		r->meta_bytes = raw_len;
		ret = reader_meta(r, &c);
		if (!ret)
			ret = reader_budget(r, 0);
		break;
	case BLK_SCHEMA:
		ret = reader_schema(r, &c);
		break;
	case BLK_STRINGS:
		ret = reader_strings(r, &c);
		break;
	case BLK_COMM:
		ret = reader_comm(r, &c);
		break;
	case BLK_EVENTS:
		ret = reader_events(r, &c);
		break;
	case BLK_LOST:
		ret = reader_lost(r, &c);
		break;
	case BLK_END: {
		uint64_t total = cur_var(&c);

		if (c.bad || total != r->events)
			return reader_fail(r, -EBADMSG, "end record says %llu events, read %llu",
					   (unsigned long long)total,
					   (unsigned long long)r->events);
		r->ended = true;
		return 0;
	}
	default:
		ret = 0;
	}
	return ret ? ret : 1;
}

struct snapshot_reader *snapshot_reader_new(int fd, const char *name, size_t mem_limit,
					    char *err, size_t errlen)
{
	struct snapshot_reader *r;
	uint8_t hdr[SNAP_HDR_SIZE];
	ssize_t n;
	int ret;

	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(err, errlen, "%s: out of memory", name);
		errno = ENOMEM;
		return NULL;
	}
	r->fd = fd;
	r->mem_limit = mem_limit;
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->dctx = ZSTD_createDCtx();
	r->typemap = calloc(65536, sizeof(*r->typemap));
	if (!r->dctx || !r->typemap) {
		ret = reader_fail(r, -ENOMEM, "out of memory");
		goto out_fail;
	}
	n = read_full(fd, hdr, sizeof(hdr));
	if (n < 0) {
		ret = reader_fail(r, (int)n, "read: %s", strerror((int)-n));
		goto out_fail;
	}
	if (n == 0) {
		ret = reader_fail(r, -EBADMSG, "empty file (0 bytes)");
		goto out_fail;
	}
	if ((size_t)n >= 8 && memcmp(hdr, SNAP_MAGIC, 8)) {
		ret = reader_fail(r, -ENOMSG, "not a ktop snapshot (bad magic)");
		goto out_fail;
	}
	if ((size_t)n < sizeof(hdr)) {
		ret = reader_fail(r, -EBADMSG, "truncated: %zd of %zu file header bytes", n,
				  sizeof(hdr));
		goto out_fail;
	}
	if (get_le32(hdr + 28) != crc(hdr, 28)) {
		ret = reader_fail(r, -EBADMSG, "corrupt file header (checksum mismatch)");
		goto out_fail;
	}
	r->meta.version = get_le32(hdr + 8);
	if (r->meta.version != SNAPSHOT_VERSION || get_le32(hdr + 12) != SNAP_HDR_SIZE) {
		ret = reader_fail(r, -EPROTONOSUPPORT,
				  "unsupported format version %u (this ktop reads version %u)",
				  r->meta.version, SNAPSHOT_VERSION);
		goto out_fail;
	}
	r->off = sizeof(hdr);
	ret = snapshot_reader_next(r);
	if (ret < 0)
		goto out_fail;
	return r;

out_fail:
	snprintf(err, errlen, "%s", r->err);
	snapshot_reader_free(r);
	errno = -ret;
	return NULL;
}

struct store *snapshot_reader_store(struct snapshot_reader *r)
{
	return r->st;
}

struct store *snapshot_reader_take_store(struct snapshot_reader *r)
{
	struct store *st = r->st;

	r->st = NULL;
	return st;
}

const struct snapshot_meta *snapshot_reader_meta(const struct snapshot_reader *r)
{
	return &r->meta;
}

const char *snapshot_reader_error(const struct snapshot_reader *r)
{
	return r->err;
}

void snapshot_reader_free(struct snapshot_reader *r)
{
	if (!r)
		return;
	ZSTD_freeDCtx(r->dctx);
	buf_free(&r->comp);
	buf_free(&r->raw);
	store_free(r->st);
	snapshot_meta_free(&r->meta);
	free(r->strmap);
	free(r->typemap);
	free(r);
}

/* ---- trace.dat ---------------------------------------------------------------- */

int snapshot_load_tracedat(const char *path, size_t mem_limit, struct store **out,
			   struct snapshot_meta *meta, char *err, size_t errlen)
{
	struct tracedat_load_opts o = { .mem_limit = mem_limit };
	char file[PATH_MAX];

	/* FILE@NAME: only the buffer (instance) NAME */
	if (tracedat_split_buffer(path, file, sizeof(file), &o.buffer))
		path = file;
	return tracedat_load(path, &o, out, meta, err, errlen);
}

/* ---- loading ------------------------------------------------------------------ */

int snapshot_load(const char *path, size_t mem_limit, struct store **out,
		  struct snapshot_meta *meta, char *err, size_t errlen)
{
	struct snapshot_reader *r;
	uint8_t head[16];
	bool is_stdin = !strcmp(path, "-");
	const char *name = is_stdin ? "standard input" : path;
	ssize_t n = 0;
	int fd, ret;

	*out = NULL;
	if (meta)
		memset(meta, 0, sizeof(*meta));
	if (is_stdin) {
		fd = 0;
	} else {
		struct stat sb;

		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			char file[PATH_MAX];
			const char *buffer;

			ret = -errno;
			if (tracedat_split_buffer(path, file, sizeof(file), &buffer))
				return snapshot_load_tracedat(path, mem_limit, out, meta, err,
							      errlen);
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return ret;
		}
		if (fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			close(fd);
			snprintf(err, errlen, "%s: is a directory, not a trace", path);
			return -EISDIR;
		}
		n = pread(fd, head, sizeof(head), 0);
		if (n < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s: read: %s", path, strerror(errno));
			close(fd);
			return ret;
		}
		switch (snapshot_detect(head, n)) {
		case SNAPSHOT_KIND_EMPTY:
			close(fd);
			snprintf(err, errlen, "%s: empty file (0 bytes), not a trace", path);
			return -EBADMSG;
		case SNAPSHOT_KIND_TRACEDAT:
			close(fd);
			return snapshot_load_tracedat(path, mem_limit, out, meta, err, errlen);
		case SNAPSHOT_KIND_KTOP:
			break;
		default:
			close(fd);
			if (n < 8 && !memcmp(head, SNAP_MAGIC, n))
				snprintf(err, errlen, "%s: truncated ktop snapshot (%zd bytes)",
					 path, n);
			else
				snprintf(err, errlen, "%s: not a trace (neither a ktop snapshot "
					 "nor a trace.dat file)", path);
			return -ENOMSG;
		}
	}
	r = snapshot_reader_new(fd, name, mem_limit, err, errlen);
	if (!r) {
		ret = -errno;
		goto out_close;
	}
	while ((ret = snapshot_reader_next(r)) > 0)
		;
	if (ret < 0) {
		snprintf(err, errlen, "%s", snapshot_reader_error(r));
	} else {
		if (meta) {
			*meta = r->meta;
			memset(&r->meta, 0, sizeof(r->meta));
			if (is_stdin)
				snprintf(meta->source, sizeof(meta->source), "ktop-stream");
		}
		*out = snapshot_reader_take_store(r);
	}
	snapshot_reader_free(r);
out_close:
	if (!is_stdin)
		close(fd);
	return ret;
}
