// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The .ktop reader (ktop.h), and the format's entry in the table (format.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "agg/agg.h"
#include "bpfstats/bpfstats.h"
#include "lib/clock.h"
#include "lib/err.h"
#include "format.h"
#include "ktop-local.h"
#include "ktop_agg.h"
#include "ktop_bpf.h"
#include "ktop.h"
#include "lib/intern.h"
#include "lib/output.h"
#include "lib/safefile.h"
#include "store/schema.h"
#include "store/store.h"
#include "view/viewfilter.h"

static bool ktop_detect(const void *head, size_t len)
{
	return len >= 8 && !memcmp(head, SNAP_MAGIC, 8);
}

/* ---- reader ----------------------------------------------------------------- */

static const struct format_reader_ops ktop_reader_ops;
struct chunk_ent;

struct ktop_reader {
	struct format_reader	base;		/* st, meta, name, err */
	int			fd;
	size_t			mem_limit;
	uint64_t		off;		/* bytes consumed */
	uint64_t		nblocks;
	uint64_t		events;
	ZSTD_DCtx		*dctx;
	struct buf		comp, raw;
	uint32_t		*strmap;	/* file string id -> store id */
	uint32_t		nstr;		/* ids received (id 0 included) */
	uint64_t		strbytes;
	uint64_t		raw_in, comp_in;	/* bytes decompressed, and read */
	uint64_t		meta_bytes;
	uint16_t		*typemap;	/* file type id -> store id, 0: unknown */
	struct snap_stk_r	*sr;		/* stacks: file ids -> the store's */
	struct chunk_ent	*ents;		/* the chunks of a CHUNKS block */
	size_t			ents_cap;
	bool			ended;
};

static int __attribute__((format(printf, 3, 4)))
reader_fail(struct ktop_reader *r, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset_at(r->base.err, sizeof(r->base.err), ret, r->base.name, fmt, ap);
	va_end(ap);
	return ret;
}

/*
 * What a file brings besides events and lost marks cannot be evicted: its
 * metadata, the string map and the store's tables must fit in the memory
 * limit. @more: bytes about to be allocated. Return: 0 or -E2BIG.
 */
static int reader_budget(struct ktop_reader *r, uint64_t more)
{
	uint64_t limit = r->mem_limit ? r->mem_limit : STORE_DEFAULT_MEMORY;
	uint64_t used = more + r->meta_bytes + (uint64_t)r->nstr * sizeof(*r->strmap);

	if (r->base.st)
		used += store_table_bytes(r->base.st);
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

#define META_FIELD(k, kind, member) \
	{ k, kind, offsetof(struct snapshot_meta, member), sizeof(((struct snapshot_meta *)0)->member) }

const struct meta_field ktop_meta_fields[] = {
	META_FIELD(MK_RELEASE,		MF_ARRAY,	release),
	META_FIELD(MK_HOSTNAME,		MF_ARRAY,	hostname),
	META_FIELD(MK_TRACER,		MF_ARRAY,	tracer),
	META_FIELD(MK_CLOCK,		MF_ARRAY,	clock),
	META_FIELD(MK_PAGE_SIZE,	MF_UINT,	page_size),
	META_FIELD(MK_HEADER_PAGE,	MF_TEXT,	header_page),
	META_FIELD(MK_KALLSYMS,		MF_TEXT,	kallsyms),
	META_FIELD(MK_FEATURES,		MF_TEXT,	features),
	META_FIELD(MK_HEADER_EVENT,	MF_TEXT,	header_event),
	META_FIELD(MK_PRINTK,		MF_TEXT,	printk),
	META_FIELD(MK_CMDLINES,		MF_TEXT,	cmdlines),
	META_FIELD(MK_OPTIONS,		MF_TEXT,	options),
	META_FIELD(MK_SAVE_NOTE,	MF_TEXT,	save_note),
};

const size_t ktop_meta_nfields = sizeof(ktop_meta_fields) / sizeof(ktop_meta_fields[0]);

/* A decimal meta value (not NUL-terminated in the block). */
static uint32_t meta_uint(const char *v, size_t len)
{
	char num[24];

	snprintf(num, sizeof(num), "%.*s", (int)(len < 23 ? len : 23), v);
	return strtoul(num, NULL, 10);
}

/* Store the value @v (@len bytes) of @key if the table has it: 1 stored, 0 not ours, -ENOMEM. */
static int meta_field_set(struct snapshot_meta *m, uint64_t key, const char *v, size_t len)
{
	for (size_t i = 0; i < ktop_meta_nfields; i++) {
		const struct meta_field *f = &ktop_meta_fields[i];
		char *p = (char *)m + f->off;

		if (f->key != key)
			continue;
		switch (f->kind) {
		case MF_ARRAY:
			snprintf(p, f->size, "%.*s", (int)len, v);
			break;
		case MF_UINT:
			*(uint32_t *)p = meta_uint(v, len);
			break;
		case MF_TEXT:
			free(*(char **)p);
			*(char **)p = strndup(v, len);
			if (!*(char **)p)
				return -ENOMEM;
			break;
		}
		return 1;
	}
	return 0;
}

static int reader_meta(struct ktop_reader *r, struct cur *c)
{
	struct snapshot_meta *m = &r->base.meta;

	while (c->p < c->end && !c->bad) {
		uint64_t key = cur_var(c), len = cur_var(c);
		const char *v = (const char *)c->p;
		int ret;

		if (c->bad || len > (size_t)(c->end - c->p))
			return reader_fail(r, -EBADMSG, "corrupt metadata block");
		c->p += len;
		ret = meta_field_set(m, key, v, len);
		if (ret < 0)
			return reader_fail(r, ret, "out of memory");
		if (ret)
			continue;
		switch (key) {
		case MK_NCPUS:
			m->ncpus = meta_uint(v, len);
			break;
		case MK_BUFFER:
			if (meta_add_buffer(m, v, len))
				return reader_fail(r, -EBADMSG, "corrupt buffer record");
			break;
		case MK_FORMAT: {
			const char *nul = memchr(v, 0, len);
			char *text;

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
	r->base.st = store_new(r->mem_limit, m->ncpus);
	r->sr = r->base.st ? snap_stk_r_new(r->base.st, m->version >= 2) : NULL;
	if (!r->base.st || !r->sr)
		return reader_fail(r, -ENOMEM, "out of memory for the store");
	return 0;
}

static int reader_schema(struct ktop_reader *r, struct cur *c)
{
	struct schema *sc = store_schema(r->base.st);
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
			else if (r->base.meta.version >= 2 && (uint64_t)nid != id)
				ret = -EBADMSG;	/* the chunks name types by the writer's ids */
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

static int reader_strings(struct ktop_reader *r, struct cur *c)
{
	struct intern *in = store_strings(r->base.st);
	uint64_t first = cur_var(c), n = cur_var(c);
	uint32_t *map;

	if (c->bad || first != (r->nstr ? r->nstr : 1) ||
	    n > KTOP_FILE_MAX_STRINGS || first + n > KTOP_FILE_MAX_STRINGS ||
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
		if (r->strbytes > KTOP_FILE_MAX_STRBYTES)
			return reader_fail(r, -E2BIG, "string table over %u bytes",
					   KTOP_FILE_MAX_STRBYTES);
		id = intern_id(in, (const char *)c->p, len);
		if (id == UINT32_MAX)
			return reader_fail(r, -ENOMEM, "out of memory");
		/* version 2: the chunks name strings by the writer's ids, so ours must match */
		if (r->base.meta.version >= 2 && id != first + i)
			return reader_fail(r, -EBADMSG, "string table: string %llu is a copy of "
					   "string %u", (unsigned long long)(first + i), id);
		map[first + i] = id;
		c->p += len;
		if (!(i & 1023) && reader_budget(r, (first + n - r->nstr) * sizeof(*map)))
			return -E2BIG;
	}
	r->nstr = first + n;
	return reader_budget(r, 0);
}

static int reader_comm(struct ktop_reader *r, struct cur *c)
{
	struct intern *in = store_strings(r->base.st);
	uint64_t n = cur_var(c);

	if (c->bad || n > (size_t)(c->end - c->p))
		return reader_fail(r, -EBADMSG, "corrupt comm table");
	for (uint64_t i = 0; i < n; i++) {
		int64_t pid = zz_dec(cur_var(c));
		uint64_t id = cur_var(c);

		if (c->bad || (id && id >= r->nstr) || pid < 0 || pid > INT32_MAX)
			return reader_fail(r, -EBADMSG, "corrupt comm table");
		/* no trace time: a stream's later comm blocks replace its earlier ones */
		store_set_comm(r->base.st, (int32_t)pid, intern_str(in, id ? r->strmap[id] : 0), 0);
		/* a page of the comm table per 4096 pids: a few bytes each can cost 48 KiB */
		if (!(i & 255) && reader_budget(r, 0))
			return -E2BIG;
	}
	return reader_budget(r, 0);
}

static int reader_lost(struct ktop_reader *r, struct cur *c)
{
	uint64_t n = cur_var(c);

	if (c->bad || n > (size_t)(c->end - c->p))
		return reader_fail(r, -EBADMSG, "corrupt lost-event block");
	for (uint64_t i = 0; i < n; i++) {
		uint64_t cpu = cur_var(c), ts = cur_var(c), cnt = cur_var(c);
		/* a reason this ktop does not know (a newer writer's) reads as unknown */
		uint64_t why = r->base.meta.version >= 3 ? cur_var(c) : STORE_LOST_UNKNOWN;

		if (c->bad || cpu >= store_ncpus(r->base.st))
			return reader_fail(r, -EBADMSG, "corrupt lost-event block");
		store_add_lost(r->base.st, (unsigned int)cpu, ts, cnt,
			       why < STORE_LOST_NR ? (enum store_lost_why)why : STORE_LOST_UNKNOWN);
	}
	return 0;
}

static int reader_events(struct ktop_reader *r, struct cur *c)
{
	struct schema *sc = store_schema(r->base.st);
	uint64_t cpu = cur_var(c), n = cur_var(c), ts = cur_var(c);
	struct cur col[EV_NCOLS];
	const uint8_t *p;
	const struct ktop_schema_type *t = NULL;
	uint16_t last_type = 0;
	const uint32_t *stk;

	if (c->bad || cpu >= store_ncpus(r->base.st) || !n || n > KTOP_FILE_MAX_BLOCK_EVENTS ||
	    (size_t)(c->end - c->p) < EV_NCOLS * 4)
		return reader_fail(r, -EBADMSG, "corrupt event block header");
	p = c->p + EV_NCOLS * 4;
	for (int i = 0; i < EV_NCOLS; i++) {
		uint32_t len = get_le32(c->p + 4 * i);

		if (len > (size_t)(c->end - p))
			return reader_fail(r, -EBADMSG, "corrupt event block (column %d size)", i);
		col[i] = (struct cur){ p, p + len, false };
		p += len;
	}
	/* the one-byte columns hold one byte an event */
	for (int i = EV_FLAGS; i <= EV_NARGS; i++)
		if (col[i].end - col[i].p != (ptrdiff_t)n)
			return reader_fail(r, -EBADMSG, "corrupt event block (column sizes)");
	stk = snap_stk_r_events(r->sr, (unsigned int)cpu, n);
	for (uint64_t i = 0; i < n; i++) {
		struct ktop_event ev;
		uint64_t type;

		ts += cur_var(&col[EV_DTS]);
		ev.ts = ts;
		ev.pid = (int32_t)zz_dec(cur_var(&col[EV_PID]));
		type = cur_var(&col[EV_TYPE]);
		ev.flags = col[EV_FLAGS].p[i];
		ev.pc = col[EV_PC].p[i];
		ev.nargs = col[EV_NARGS].p[i];
		ev.cpu = (uint16_t)cpu;
		ev.stack = stk ? stk[i] : 0;
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
			uint64_t v = (uint64_t)zz_dec(cur_var(&col[EV_ARGS]));

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
		if (col[EV_DTS].bad || col[EV_PID].bad || col[EV_TYPE].bad || col[EV_ARGS].bad)
			return reader_fail(r, -EBADMSG, "corrupt event block (short column)");
		if (store_append(r->base.st, &ev))
			return reader_fail(r, -ENOMEM, "out of memory");
	}
	store_publish(r->base.st, (unsigned int)cpu);
	/* a file may have 4096 CPUs: hold one CPU's open chunk, not each one's */
	if (store_seal_idle(r->base.st, (unsigned int)cpu))
		return reader_fail(r, -ENOMEM, "out of memory");
	r->events += n;
	return 0;
}

/* A block header: its magic and checksum, type, sizes, the expansion bound. */
static int reader_block_header(struct ktop_reader *r, const uint8_t *hdr, ssize_t n)
{
	uint32_t raw_len = get_le32(hdr + 8), comp_len = get_le32(hdr + 12);
	unsigned int type = hdr[4];

	if (n < 0)
		return reader_fail(r, (int)n, "read: %s", strerror((int)-n));
	if (n == 0)
		return reader_fail(r, -EBADMSG, "truncated: the file ends after %llu bytes "
				   "(%llu blocks) without its end record",
				   (unsigned long long)r->off, (unsigned long long)r->nblocks);
	if ((size_t)n < BLK_HDR_SIZE)
		return reader_fail(r, -EBADMSG, "truncated: %zd of %u header bytes of block %llu "
				   "at offset %llu", n, BLK_HDR_SIZE,
				   (unsigned long long)r->nblocks, (unsigned long long)r->off);
	if (get_le32(hdr) != BLK_MAGIC || get_le32(hdr + 20) != crc(hdr, 20))
		return reader_fail(r, -EBADMSG, "corrupt block header (block %llu at offset %llu)",
				   (unsigned long long)r->nblocks, (unsigned long long)r->off);
	if (raw_len > KTOP_FILE_MAX_BLOCK || comp_len > KTOP_FILE_MAX_BLOCK)
		return reader_fail(r, -E2BIG, "block %llu at offset %llu claims %u/%u bytes, "
				   "over the %u-byte limit", (unsigned long long)r->nblocks,
				   (unsigned long long)r->off, comp_len, raw_len,
				   KTOP_FILE_MAX_BLOCK);
	if ((hdr[5] & BLK_F_OPTIONAL) && r->base.meta.version >= 4 && type >= BLK_NR)
		;	/* a later ktop's block this one may skip (ktop_reader_next) */
	else if (!type || type >= BLK_NR || (type == BLK_CHUNKS && r->base.meta.version < 2) ||
		 (type == BLK_AGG && r->base.meta.version < 4) ||
		 (hdr[5] & ~(BLK_F_RAW | (r->base.meta.version >= 4 ? BLK_F_OPTIONAL : 0))) ||
		 ((hdr[5] & BLK_F_RAW) && raw_len != comp_len))
		return reader_fail(r, -EBADMSG, "unknown block type %u (flags %#x) at offset %llu",
				   type, hdr[5], (unsigned long long)r->off);
	r->raw_in += raw_len;
	r->comp_in += BLK_HDR_SIZE + comp_len;
	if (r->raw_in > KTOP_FILE_MAX_RATIO * r->comp_in + KTOP_FILE_RATIO_SLACK)
		return reader_fail(r, -E2BIG, "block %llu at offset %llu: the file would expand "
				   "to %llu bytes from %llu, more than %u times: not a file ktop "
				   "wrote (a decompression bomb?)", (unsigned long long)r->nblocks,
				   (unsigned long long)r->off, (unsigned long long)r->raw_in,
				   (unsigned long long)r->comp_in, KTOP_FILE_MAX_RATIO);
	if ((r->nblocks == 0) != (type == BLK_META))
		return reader_fail(r, -EBADMSG, "block %llu: metadata %s",
				   (unsigned long long)r->nblocks,
				   type == BLK_META ? "repeated" : "missing");
	return 0;
}

/* The payload of the block whose header is @hdr, checked and decompressed into r->raw. */
static int reader_block_payload(struct ktop_reader *r, const uint8_t *hdr)
{
	uint32_t raw_len = get_le32(hdr + 8), comp_len = get_le32(hdr + 12);
	bool stored = hdr[5] & BLK_F_RAW;
	struct buf *in = stored ? &r->raw : &r->comp;
	ssize_t n;
	size_t d;

	in->len = 0;
	/* + 16: the store's varint reads of an adopted chunk's header look ahead */
	if (buf_reserve(&r->comp, comp_len) || buf_reserve(&r->raw, raw_len + 16))
		return reader_fail(r, -ENOMEM, "out of memory");
	n = read_full(r->fd, in->p, comp_len);
	if (n < 0)
		return reader_fail(r, (int)n, "read: %s", strerror((int)-n));
	if ((size_t)n < comp_len)
		return reader_fail(r, -EBADMSG, "truncated: block %llu at offset %llu has %zd of "
				   "%u bytes", (unsigned long long)r->nblocks,
				   (unsigned long long)r->off, n, comp_len);
	if (crc(in->p, comp_len) != get_le32(hdr + 16))
		return reader_fail(r, -EBADMSG, "checksum mismatch in block %llu at offset %llu",
				   (unsigned long long)r->nblocks, (unsigned long long)r->off);
	if (stored)
		return 0;
	if (ZSTD_getFrameContentSize(r->comp.p, comp_len) != raw_len)
		return reader_fail(r, -EBADMSG, "block %llu: size mismatch",
				   (unsigned long long)r->nblocks);
	d = ZSTD_decompressDCtx(r->dctx, r->raw.p, raw_len + 1, r->comp.p, comp_len);
	if (ZSTD_isError(d) || d != raw_len)
		return reader_fail(r, -EBADMSG, "block %llu does not decompress",
				   (unsigned long long)r->nblocks);
	return 0;
}

/* One chunk of a CHUNKS block: where its bytes are, and the chunk once checked. */
struct chunk_ent {
	const uint8_t		*p;
	uint32_t		len;
	uint32_t		cpu;
	struct store_chunk_in	*c;
};

/* Chunks [lo, hi) of a block, imported (copied and checked) on one thread. */
struct chunk_job {
	const struct store	*st;
	struct chunk_ent	*e;
	size_t			lo, hi;
	size_t			bad;		/* the first that failed, hi: none */
	int			ret;
	char			why[256];
};

static void *chunk_job_run(void *arg)
{
	struct chunk_job *j = arg;

	j->bad = j->hi;
	for (size_t i = j->lo; i < j->hi; i++) {
		j->ret = store_chunk_import(j->st, j->e[i].p, j->e[i].len, &j->e[i].c, j->why,
					    sizeof(j->why));
		if (j->ret) {
			j->bad = i;
			break;
		}
	}
	return NULL;
}

/* The entries of a CHUNKS block into r->ents. Return: how many, or -EBADMSG. */
static long reader_chunk_list(struct ktop_reader *r, struct cur *c)
{
	uint64_t n, cpu;

	if (c->end - c->p < 4)
		return reader_fail(r, -EBADMSG, "corrupt chunk block");
	n = get_le32(c->p);
	c->p += 4;
	/* a chunk takes 5 bytes at least: a count past that is a lie */
	if (n > (size_t)(c->end - c->p) / 5)
		return reader_fail(r, -EBADMSG, "corrupt chunk block (%llu chunks)",
				   (unsigned long long)n);
	if (n > r->ents_cap) {
		struct chunk_ent *e = realloc(r->ents, n * sizeof(*e));

		if (!e)
			return reader_fail(r, -ENOMEM, "out of memory");
		r->ents = e;
		r->ents_cap = n;
	}
	for (uint64_t i = 0; i < n; i++) {
		struct chunk_ent *e = &r->ents[i];

		cpu = cur_var(c);
		if (c->bad || cpu >= store_ncpus(r->base.st) || c->end - c->p < 4)
			return reader_fail(r, -EBADMSG, "corrupt chunk block (chunk %llu)",
					   (unsigned long long)i);
		e->len = get_le32(c->p);
		c->p += 4;
		if (e->len > (size_t)(c->end - c->p))
			return reader_fail(r, -EBADMSG, "corrupt chunk block (chunk %llu of %u "
					   "bytes)", (unsigned long long)i, e->len);
		e->p = c->p;
		e->cpu = (uint32_t)cpu;
		e->c = NULL;
		c->p += e->len;
	}
	if (c->p != c->end)
		return reader_fail(r, -EBADMSG, "corrupt chunk block (%td bytes after its chunks)",
				   c->end - c->p);
	return (long)n;
}

/*
 * Import @n chunks: checking them is most of a load's work, so a block of
 * many is shared with a second thread; this one then pushes them in order.
 */
static void reader_chunk_import(struct ktop_reader *r, size_t n, struct chunk_job *j)
{
	sigset_t all, old;
	pthread_t th;
	bool helper = false;

	j[0] = (struct chunk_job){ .st = r->base.st, .e = r->ents, .lo = 0, .hi = n };
	j[1] = (struct chunk_job){ .st = r->base.st, .e = r->ents, .lo = n, .hi = n, .bad = n };
	if (n >= 16) {
		j[0].hi = j[1].lo = n / 2;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		helper = !pthread_create(&th, NULL, chunk_job_run, &j[1]);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (!helper)
			j[0].hi = j[1].lo = n;
	}
	chunk_job_run(&j[0]);
	if (helper)
		pthread_join(th, NULL);
	else
		j[1].bad = j[1].hi;
}

/* A chunk could not go in: free those after it, say why. */
static int reader_fail_chunks(struct ktop_reader *r, int ret, size_t i, const char *why,
			      struct chunk_ent *rest, size_t nrest)
{
	for (size_t k = 0; k < nrest; k++)
		store_chunk_in_free(rest[k].c);
	return reader_fail(r, ret, "block %llu, chunk %zu: %s",
			   (unsigned long long)r->nblocks - 1, i, why);
}

/*
 * A CHUNKS block: sealed chunks of the writer's store, handed to ours as they
 * are (each checked first: store_chunk_import). Their string, type and
 * stack ids are the writer's: version 2 readers build those tables with the
 * same ids.
 */
static int reader_chunks(struct ktop_reader *r, struct cur *c)
{
	const struct chunk_job *f;
	struct chunk_job j[2];
	long n = reader_chunk_list(r, c);
	size_t bad, i;
	char why[256];
	int ret = 0;

	if (n <= 0)
		return (int)n;
	reader_chunk_import(r, (size_t)n, j);
	/* the first that failed: the chunks before it go in, the rest are freed */
	f = j[0].bad < j[0].hi ? &j[0] : &j[1];
	bad = f->bad;
	for (i = 0; i < (size_t)n; i++) {
		struct chunk_ent *e = &r->ents[i];
		uint32_t events;

		if (i >= bad) {
			store_chunk_in_free(e->c);
			continue;
		}
		events = store_chunk_in_events(e->c);
		ret = store_chunk_push(r->base.st, e->cpu, e->c, why, sizeof(why));
		if (ret) {
			bad = i;
			return reader_fail_chunks(r, ret, i, why, &r->ents[i + 1], n - i - 1);
		}
		r->events += events;
	}
	if (bad < (size_t)n)
		return reader_fail(r, f->ret, "block %llu, chunk %zu: %s",
				   (unsigned long long)r->nblocks - 1, bad, f->why);
	return 0;
}

/* A poll of the far side's BPF statistics: the first makes them, each feeds them. */
static int reader_bpf(struct ktop_reader *r, const uint8_t *p, size_t n)
{
	struct bpfstats *bs = r->base.bpf;
	struct bpfstats_raw raw;
	char why[256];
	int ret;

	ret = ktop_bpf_decode(p, n, &raw, why, sizeof(why));
	if (ret)
		return reader_fail(r, ret, "block %llu: %s", (unsigned long long)r->nblocks - 1,
				   why);
	if (!bs) {
		ret = bpfstats_new_fed(&bs, &raw, NULL);
		if (!ret)
			__atomic_store_n(&r->base.bpf, bs, __ATOMIC_RELEASE);
	}
	if (!ret)
		ret = bpfstats_feed(bs, &raw);
	bpfstats_raw_free(&raw);
	if (ret)
		return reader_fail(r, ret, "block %llu: BPF statistics that do not follow the "
				   "last ones (%s)", (unsigned long long)r->nblocks - 1,
				   strerror(-ret));
	return 0;
}

/* The aggregations' results of the run that wrote it: the first makes the set, each feeds it. */
static int reader_agg(struct ktop_reader *r, const uint8_t *p, size_t n)
{
	struct agg_set *s = r->base.agg;
	struct agg_result *res = NULL;
	unsigned int nres = 0;
	char why[256];
	int ret;

	ret = ktop_agg_decode(p, n, &res, &nres, why, sizeof(why));
	if (ret)
		return reader_fail(r, ret, "block %llu: %s", (unsigned long long)r->nblocks - 1,
				   why);
	if (!s) {
		ret = agg_set_new_fed(&s);
		if (!ret)
			__atomic_store_n(&r->base.agg, s, __ATOMIC_RELEASE);
	}
	if (!ret)
		ret = agg_set_feed(s, res, nres);
	for (unsigned int i = 0; i < nres; i++)
		agg_result_clear(&res[i]);
	free(res);
	if (ret)
		return reader_fail(r, ret, "block %llu: aggregation results that do not follow "
				   "the last ones (%s)", (unsigned long long)r->nblocks - 1,
				   strerror(-ret));
	return 0;
}

int ktop_reader_next(struct ktop_reader *r)
{
	uint8_t hdr[BLK_HDR_SIZE];
	uint32_t raw_len;
	unsigned int type;
	struct cur c;
	ssize_t n;
	int ret;

	if (r->ended)
		return 0;
	n = read_full(r->fd, hdr, sizeof(hdr));
	ret = reader_block_header(r, hdr, n);
	if (!ret)
		ret = reader_block_payload(r, hdr);
	if (ret)
		return ret;
	type = hdr[4];
	raw_len = get_le32(hdr + 8);
	r->off += sizeof(hdr) + get_le32(hdr + 12);
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
	case BLK_CHUNKS:
		ret = reader_chunks(r, &c);
		break;
	case BLK_STACKS:
	case BLK_EVSTK:
	case BLK_STACKW: {
		char why[256] = "out of memory";

		ret = snap_stk_r_block(r->sr, type, c.p, (size_t)(c.end - c.p), r->strmap, r->nstr,
				       why, sizeof(why));
		if (ret)
			return reader_fail(r, ret, "%s", why);
		break;
	}
	case BLK_BPF:
		ret = reader_bpf(r, c.p, raw_len);
		break;
	case BLK_AGG:
		ret = reader_agg(r, c.p, raw_len);
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

struct ktop_reader *ktop_reader_new(int fd, const char *name, size_t mem_limit,
				    char *err, size_t errlen)
{
	struct ktop_reader *r;
	uint8_t hdr[SNAP_HDR_SIZE];
	ssize_t n;
	int ret;

	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(err, errlen, "%s: out of memory", name);
		errno = ENOMEM;
		return NULL;
	}
	r->base.ops = &ktop_reader_ops;
	r->base.fmt = &format_ktop;
	r->fd = fd;
	r->mem_limit = mem_limit;
	snprintf(r->base.name, sizeof(r->base.name), "%s", name);
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
	r->base.meta.version = get_le32(hdr + 8);
	if (r->base.meta.version < KTOP_FILE_VERSION_MIN ||
	    r->base.meta.version > KTOP_FILE_VERSION || get_le32(hdr + 12) != SNAP_HDR_SIZE) {
		ret = reader_fail(r, -EPROTONOSUPPORT,
				  "unsupported format version %u (this ktop reads versions %u to %u%s)",
				  r->base.meta.version, KTOP_FILE_VERSION_MIN, KTOP_FILE_VERSION,
				  r->base.meta.version > KTOP_FILE_VERSION ? ": a newer ktop wrote it" :
				  "");
		goto out_fail;
	}
	r->off = sizeof(hdr);
	ret = ktop_reader_next(r);
	if (ret < 0)
		goto out_fail;
	return r;

out_fail:
	snprintf(err, errlen, "%s", r->base.err);
	ktop_reader_free(r);
	errno = -ret;
	return NULL;
}

struct store *ktop_reader_store(struct ktop_reader *r)
{
	return r->base.st;
}

struct store *ktop_reader_take_store(struct ktop_reader *r)
{
	struct store *st = r->base.st;

	r->base.st = NULL;
	return st;
}

const struct snapshot_meta *ktop_reader_meta(const struct ktop_reader *r)
{
	return &r->base.meta;
}

const char *ktop_reader_error(const struct ktop_reader *r)
{
	return r->base.err;
}

void ktop_reader_free(struct ktop_reader *r)
{
	if (!r)
		return;
	ZSTD_freeDCtx(r->dctx);
	buf_free(&r->comp);
	buf_free(&r->raw);
	snap_stk_r_free(r->sr);
	bpfstats_free(r->base.bpf);
	agg_set_free(r->base.agg);
	store_free(r->base.st);
	snapshot_meta_free(&r->base.meta);
	free(r->strmap);
	free(r->typemap);
	free(r->ents);
	free(r);
}

/* ---- the format ----------------------------------------------------------------- */

static int ktop_next(struct format_reader *r)
{
	return ktop_reader_next((struct ktop_reader *)r);
}

static void ktop_free(struct format_reader *r)
{
	ktop_reader_free((struct ktop_reader *)r);
}

static const struct format_reader_ops ktop_reader_ops = {
	.next	= ktop_next,
	.free	= ktop_free,
};

static int ktop_open(const struct format_in *in, struct format_reader **out, char *err,
		     size_t errlen)
{
	struct ktop_reader *r;

	r = ktop_reader_new(in->fd, in->name, in->mem_limit, err, errlen);
	if (!r)
		return errno ? -errno : -EBADMSG;
	if (!in->path)
		snprintf(r->base.meta.source, sizeof(r->base.meta.source), "ktop-stream");
	*out = &r->base;
	return 0;
}

static const char *const ktop_exts[] = { ".ktop", NULL };

const struct format_ops format_ktop = {
	.id	= FORMAT_KTOP,
	.name	= "ktop",
	.exts	= ktop_exts,
	.stream	= true,
	.detect	= ktop_detect,
	.open	= ktop_open,
	.save	= ktop_save,
};
