// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The layout of a trace.dat (tracedat-local.h has the map): header, options,
 * metadata sections and where each CPU's pages are, for versions 6 and 7.
 *
 * Nothing in the file is trusted: every read goes through a cursor that
 * stops at the end of what it may read (the file, a section, an option), so
 * a corrupt or truncated file is a message, never a read out of bounds, and
 * every count is bounded by the bytes that would have to hold it.
 * libtracecmd 3.1.6 does none of this (truncated files crash it: see
 * tests/fuzz), which is why ktop walks the layout itself.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "lib/err.h"
#include "format.h"
#include "tracedat.h"
#include "tracedat-local.h"

/* ---- bounded reading -------------------------------------------------------- */

struct tcur {
	const uint8_t	*p, *end;
	bool		bad;
};

static bool cur_need(struct tcur *c, uint64_t n)
{
	if (c->bad || n > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		return false;
	}
	return true;
}

static uint64_t cur_num(struct tcur *c, unsigned int size)
{
	uint64_t v = 0;

	if (!cur_need(c, size))
		return 0;
	for (unsigned int i = 0; i < size; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += size;
	return v;
}

/* @n bytes; NULL (and the cursor bad) when they are not all there. */
static const uint8_t *cur_bytes(struct tcur *c, uint64_t n)
{
	const uint8_t *p = c->p;

	if (!cur_need(c, n))
		return NULL;
	c->p += n;
	return p;
}

/* A NUL-terminated string of at most @max bytes (NUL included). */
static const char *cur_str(struct tcur *c, size_t max)
{
	size_t left = c->bad ? 0 : (size_t)(c->end - c->p);
	const uint8_t *nul = memchr(c->p, 0, left < max ? left : max);
	const char *s = (const char *)c->p;

	if (c->bad || !nul) {
		c->bad = true;
		return NULL;
	}
	c->p = nul + 1;
	return s;
}

static uint64_t get_num(const uint8_t *p, unsigned int size)
{
	struct tcur c = { p, p + size, false };

	return cur_num(&c, size);
}

/* The cursor over [off, off + len) of the file; bad when it is not inside. */
static struct tcur file_cur(const struct tdat *t, uint64_t off, uint64_t len)
{
	struct tcur c = { t->map, t->map, true };

	if (off <= t->size && len <= t->size - off)
		c = (struct tcur){ t->map + off, t->map + off + len, false };
	return c;
}

static int tdat_fail(struct tdat *t, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int tdat_fail(struct tdat *t, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset_at(t->err, t->errlen, ret, t->path, fmt, ap);
	va_end(ap);
	return ret;
}

static int corrupt(struct tdat *t, const char *what, uint64_t off)
{
	return tdat_fail(t, -EBADMSG, "truncated or corrupt trace.dat: %s at offset %llu "
			 "(the file has %zu bytes)", what, (unsigned long long)off, t->size);
}

static uint64_t cur_off(const struct tdat *t, const struct tcur *c)
{
	return c->p >= t->map && c->p <= t->map + t->size ? (uint64_t)(c->p - t->map) : 0;
}

static int own(struct tdat *t, void *p)
{
	void **n = realloc(t->owned, (t->nowned + 1) * sizeof(*n));

	if (!n) {
		free(p);
		return tdat_fail(t, -ENOMEM, "out of memory");
	}
	t->owned = n;
	t->owned[t->nowned++] = p;
	return 0;
}

/* ---- compression ------------------------------------------------------------ */

int tdat_decompress(enum tdat_compress z, void *zctx, void *out, size_t usize, const void *in,
		    size_t zsize)
{
	if (z == TDAT_Z_ZSTD) {
		size_t r = zctx ? ZSTD_decompressDCtx(zctx, out, usize, in, zsize)
				: ZSTD_decompress(out, usize, in, zsize);

		return ZSTD_isError(r) || r != usize ? -EBADMSG : 0;
	}
	if (z == TDAT_Z_ZLIB) {
		uLongf ol = usize;

		if (zsize > UINT32_MAX)
			return -EBADMSG;
		return uncompress(out, &ol, in, (uLong)zsize) != Z_OK || ol != usize ? -EBADMSG : 0;
	}
	return -EBADMSG;
}

/* Count @usize more decompressed bytes against the file's ratio bound. */
static int unpack_budget(struct tdat *t, uint64_t usize)
{
	t->unpacked += usize;
	if (t->unpacked <= (uint64_t)t->size * TDAT_MAX_RATIO + TDAT_RATIO_SLACK)
		return 0;
	return tdat_fail(t, -EBADMSG, "corrupt trace.dat: it decompresses to more than %u times "
			 "its size", TDAT_MAX_RATIO);
}

/*
 * The content of the section whose header is at @off: *@c over the file, or
 * over its decompressed copy (owned by @t). @id: the id it must have.
 */
static int section(struct tdat *t, uint64_t off, unsigned int id, struct tcur *c, uint16_t *flags,
		   uint64_t meta_limit, const char *what)
{
	struct tcur h = file_cur(t, off, TDAT_SEC_HDR);
	uint64_t size;
	uint8_t *out;
	uint32_t zs, us;

	if (h.bad)
		return corrupt(t, what, off);
	if (cur_num(&h, 2) != id)
		return tdat_fail(t, -EBADMSG, "corrupt trace.dat: no %s section at offset %llu",
				 what, (unsigned long long)off);
	*flags = (uint16_t)cur_num(&h, 2);
	cur_num(&h, 4);			/* the description: cosmetic */
	size = cur_num(&h, 8);
	*c = file_cur(t, off + TDAT_SEC_HDR, size);
	if (c->bad)
		return corrupt(t, what, off);
	if (!(*flags & TDAT_SEC_COMPRESSED) || id == TDAT_ID_BUFFER)
		return 0;
	if (t->compress == TDAT_Z_NONE)
		return tdat_fail(t, -EBADMSG, "corrupt trace.dat: a compressed %s section in a file "
				 "without compression", what);
	zs = (uint32_t)cur_num(c, 4);
	us = (uint32_t)cur_num(c, 4);
	if (!cur_need(c, zs))
		return corrupt(t, what, off);
	if (t->meta_bytes + us > meta_limit)
		return tdat_fail(t, -E2BIG, "its metadata (%s) needs %.1f MiB or more, over the "
				 "memory limit (-m) of %.1f MiB", what,
				 (t->meta_bytes + us) / 1048576.0, meta_limit / 1048576.0);
	if (unpack_budget(t, us))
		return -EBADMSG;
	out = malloc((size_t)us + 1);
	if (!out)
		return tdat_fail(t, -ENOMEM, "out of memory");
	if (tdat_decompress(t->compress, NULL, out, us, c->p, zs)) {
		free(out);
		return tdat_fail(t, -EBADMSG, "corrupt trace.dat: the %s section at offset %llu "
				 "does not decompress", what, (unsigned long long)off);
	}
	out[us] = 0;
	if (own(t, out))
		return -ENOMEM;
	t->meta_bytes += us;
	*c = (struct tcur){ out, out + us, false };
	return 0;
}

/* ---- the metadata (same inner layout in v6 and v7) ------------------------------ */

static bool text_item(struct tcur *c, unsigned int size_bytes, struct tdat_text *out)
{
	uint64_t n = cur_num(c, size_bytes);
	const uint8_t *p = cur_bytes(c, n);

	if (!p)
		return false;
	*out = (struct tdat_text){ (const char *)p, (size_t)n };
	return true;
}

static int meta_headers(struct tdat *t, struct tcur *c, uint64_t off)
{
	if (!cur_need(c, 12) || memcmp(c->p, "header_page", 12))
		return corrupt(t, "no header_page", off);
	c->p += 12;
	if (!text_item(c, 8, &t->header_page))
		return corrupt(t, "header_page", off);
	if (!cur_need(c, 13) || memcmp(c->p, "header_event", 13))
		return corrupt(t, "no header_event", off);
	c->p += 13;
	if (!text_item(c, 8, &t->header_event))
		return corrupt(t, "header_event", off);
	return 0;
}

/* A format is the kernel's text: tabs, newlines, printable ASCII (libtraceevent crashes on less). */
static bool is_text(struct tdat_text x)
{
	for (size_t i = 0; i < x.len; i++) {
		unsigned char c = (unsigned char)x.p[i];

		if ((c < 0x20 && c != '\t' && c != '\n') || c > 0x7e)
			return false;
	}
	return true;
}

static int add_format(struct tdat *t, const char *system, struct tdat_text text)
{
	struct tdat_format *n;

	if (!is_text(text) || !is_text((struct tdat_text){ system, strlen(system) }))
		return tdat_fail(t, -EBADMSG, "corrupt trace.dat: event format %zu (%.32s) is "
				 "not text", t->nformats + 1, system);
	if (t->nformats >= SNAPSHOT_MAX_FORMATS)
		return tdat_fail(t, -EBADMSG, "corrupt trace.dat: more than %u event formats",
				 SNAPSHOT_MAX_FORMATS);
	if (!(t->nformats & (t->nformats + 1))) {
		n = realloc(t->formats, (t->nformats * 2 + 1) * sizeof(*n));
		if (!n)
			return tdat_fail(t, -ENOMEM, "out of memory");
		t->formats = n;
	}
	t->formats[t->nformats++] = (struct tdat_format){ system, text };
	return 0;
}

static int meta_ftrace(struct tdat *t, struct tcur *c, uint64_t off)
{
	uint64_t n = cur_num(c, 4);

	for (uint64_t i = 0; i < n && !c->bad; i++) {
		struct tdat_text text;

		if (!text_item(c, 8, &text))
			break;
		if (add_format(t, "ftrace", text))
			return -EBADMSG;
	}
	return c->bad ? corrupt(t, "the ftrace event formats", off) : 0;
}

static int meta_events(struct tdat *t, struct tcur *c, uint64_t off)
{
	uint64_t nsys = cur_num(c, 4);

	for (uint64_t s = 0; s < nsys && !c->bad; s++) {
		const char *system = cur_str(c, 256);
		uint64_t n = cur_num(c, 4);

		for (uint64_t i = 0; i < n && !c->bad; i++) {
			struct tdat_text text;

			if (!text_item(c, 8, &text))
				break;
			if (add_format(t, system, text))
				return -EBADMSG;
		}
	}
	return c->bad ? corrupt(t, "the event formats", off) : 0;
}

/* kallsyms and printk formats: u32 size; saved cmdlines: u64 size. */
static int meta_text(struct tdat *t, struct tcur *c, unsigned int size_bytes,
		     struct tdat_text *out, const char *what, uint64_t off)
{
	return text_item(c, size_bytes, out) ? 0 : corrupt(t, what, off);
}

/* ---- options ------------------------------------------------------------------ */

/* TRACECLOCK holds the whole trace_clock file: "[local] global counter ...". */
static void option_clock(char *clock, size_t len, const uint8_t *p, uint32_t size)
{
	const uint8_t *lb = memchr(p, '[', size), *rb;

	if (!lb)
		return;
	rb = memchr(lb, ']', size - (lb - p));
	if (rb && (size_t)(rb - lb - 1) < len)
		snprintf(clock, len, "%.*s", (int)(rb - lb - 1), (const char *)lb + 1);
}

static int add_buffer(struct tdat *t, struct tdat_buffer **out)
{
	struct tdat_buffer *n;

	if (t->nbuffers >= SNAPSHOT_MAX_BUFFERS)
		return tdat_fail(t, -EBADMSG, "corrupt trace.dat: more than %u buffers",
				 SNAPSHOT_MAX_BUFFERS);
	n = realloc(t->buffers, (t->nbuffers + 1) * sizeof(*n));
	if (!n)
		return tdat_fail(t, -ENOMEM, "out of memory");
	t->buffers = n;
	*out = &t->buffers[t->nbuffers++];
	memset(*out, 0, sizeof(**out));
	return 0;
}

static int cpu_cmp(const void *a, const void *b)
{
	const struct tdat_cpu *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

static bool page_size_ok(uint64_t ps)
{
	return ps >= 256 && ps <= TDAT_MAX_PAGE && !(ps & (ps - 1));
}

/* Check a buffer's CPU entries against the file; sort them by CPU. */
static int buffer_check(struct tdat *t, struct tdat_buffer *b)
{
	const char *name = *b->name ? b->name : TRACEDAT_TOP_BUFFER;

	qsort(b->cpus, b->nentries, sizeof(*b->cpus), cpu_cmp);
	for (size_t i = 0; i < b->nentries; i++) {
		const struct tdat_cpu *c = &b->cpus[i];
		uint64_t need = c->size + (b->compressed ? 4 : 0);

		if (c->cpu >= SNAPSHOT_MAX_CPUS || (i && c->cpu == b->cpus[i - 1].cpu))
			return tdat_fail(t, -EBADMSG, "corrupt trace.dat: buffer %s lists CPU %u %s",
					 name, c->cpu, c->cpu >= SNAPSHOT_MAX_CPUS ? "(too many)" :
					 "twice");
		if (c->off > t->size || need > t->size - c->off || need < c->size)
			return tdat_fail(t, -EBADMSG, "truncated or corrupt trace.dat: CPU %u of "
					 "buffer %s is at %llu+%llu, past the end of the %zu-byte "
					 "file", c->cpu, name, (unsigned long long)c->off,
					 (unsigned long long)need, t->size);
		if (c->cpu + 1 > b->ncpus)
			b->ncpus = c->cpu + 1;
	}
	return 0;
}

/* v7 BUFFER / BUFFER_TEXT option: the section, name, clock, page size, CPUs. */
static int option_buffer_v7(struct tdat *t, unsigned int id, struct tcur *o, uint64_t off,
			    uint64_t meta_limit)
{
	struct tdat_buffer *b;
	struct tcur sec;
	uint64_t soff = cur_num(o, 8), n;
	const char *name = cur_str(o, 256), *clock = cur_str(o, 64);
	uint16_t flags;
	int ret;

	if (o->bad)
		return corrupt(t, "a BUFFER option", off);
	ret = add_buffer(t, &b);
	if (ret)
		return ret;
	b->name = name;
	snprintf(b->clock, sizeof(b->clock), "%s", clock);
	if (id == TDAT_ID_BUFFER_TEXT) {
		b->text = true;
		return section(t, soff, TDAT_ID_BUFFER_TEXT, &sec, &flags, meta_limit,
			       "latency text");
	}
	b->page_size = (uint32_t)cur_num(o, 4);
	n = cur_num(o, 4);
	if (o->bad || n > (uint64_t)(o->end - o->p) / 20)
		return corrupt(t, "a BUFFER option", off);
	if (!page_size_ok(b->page_size))
		return tdat_fail(t, -EBADMSG, "corrupt trace.dat: buffer %s has a page size of %u",
				 *name ? name : TRACEDAT_TOP_BUFFER, b->page_size);
	ret = section(t, soff, TDAT_ID_BUFFER, &sec, &flags, meta_limit, "buffer");
	if (ret)
		return ret;
	b->compressed = flags & TDAT_SEC_COMPRESSED;
	if (b->compressed && t->compress == TDAT_Z_NONE)
		return tdat_fail(t, -EBADMSG, "corrupt trace.dat: a compressed buffer in a file "
				 "without compression");
	b->cpus = calloc(n ? n : 1, sizeof(*b->cpus));
	if (!b->cpus)
		return tdat_fail(t, -ENOMEM, "out of memory");
	b->nentries = n;
	for (uint64_t i = 0; i < n; i++) {
		b->cpus[i].cpu = (uint32_t)cur_num(o, 4);
		b->cpus[i].off = cur_num(o, 8);
		b->cpus[i].size = cur_num(o, 8);
	}
	return buffer_check(t, b);
}

struct v6_buf {
	uint64_t	off;
	const char	*name;
};

struct opt_ctx {
	struct v6_buf	*v6;		/* v6 BUFFER options, in file order */
	size_t		nv6;
	bool		have_clock;	/* TRACECLOCK seen (v6: a clock follows each table) */
	uint64_t	sec[TDAT_ID_CMDLINES + 1];	/* v7: metadata sections by id */
	uint64_t	next;		/* v7 DONE: the next options section */
	uint64_t	meta_limit;
};

/* One option (v6 and v7); @o covers its data, @off is where it is for messages. */
static int option(struct tdat *t, struct opt_ctx *x, unsigned int id, struct tcur *o, uint64_t off)
{
	uint32_t size = (uint32_t)(o->end - o->p);

	switch (id) {
	case TDAT_ID_DATE:
		t->has_date = true;
		break;
	case TDAT_ID_OFFSET:
		t->has_offset = true;
		break;
	case TDAT_ID_CPUSTAT:
		/* one option a CPU (and "\nBuffer: NAME\n\n" before an instance's): one text */
		if (size && t->cpustat_len + size <= x->meta_limit) {
			char *n = realloc(t->cpustat, t->cpustat_len + size + 1);

			if (!n)
				return tdat_fail(t, -ENOMEM, "out of memory");
			memcpy(n + t->cpustat_len, o->p, size);
			t->cpustat = n;
			t->cpustat_len += size;
			n[t->cpustat_len - 1] = '\n';	/* its NUL, as trace-cmd reads it */
			n[t->cpustat_len] = 0;
		}
		break;
	case TDAT_ID_TRACECLOCK:
		option_clock(t->clock, sizeof(t->clock), o->p, size);
		x->have_clock = true;
		break;
	case TDAT_ID_UNAME:
		t->uname = (struct tdat_text){ (const char *)o->p, strnlen((const char *)o->p, size) };
		break;
	case TDAT_ID_VERSION:
		t->tool_version = (struct tdat_text){ (const char *)o->p,
						      strnlen((const char *)o->p, size) };
		break;
	case TDAT_ID_CPUCOUNT:
		t->ncpus = (uint32_t)cur_num(o, 4);
		if (o->bad || !t->ncpus || t->ncpus > SNAPSHOT_MAX_CPUS)
			return tdat_fail(t, -EBADMSG, "corrupt trace.dat: CPU count option %u",
					 t->ncpus);
		break;
	case TDAT_ID_TRACEID:
		t->trace_id = cur_num(o, 8);
		break;
	case TDAT_ID_TIME_SHIFT:
		t->has_time_shift = true;
		break;
	case TDAT_ID_GUEST:
		t->has_guest = true;
		break;
	case TDAT_ID_TSC2NSEC:
		t->has_tsc2nsec = true;
		break;
	case TDAT_ID_PROCMAPS:
		t->has_procmaps = true;
		break;
	case TDAT_ID_HOOK:
		t->has_hook = true;
		break;
	case TDAT_ID_BUFFER:
	case TDAT_ID_BUFFER_TEXT:
		if (t->version >= 7)
			return option_buffer_v7(t, id, o, off, x->meta_limit);
		if (id == TDAT_ID_BUFFER) {
			struct v6_buf *n = realloc(x->v6, (x->nv6 + 1) * sizeof(*n));

			if (!n)
				return tdat_fail(t, -ENOMEM, "out of memory");
			x->v6 = n;
			n[x->nv6].off = cur_num(o, 8);
			n[x->nv6].name = cur_str(o, 256);
			if (o->bad)
				return corrupt(t, "a BUFFER option", off);
			if (x->nv6++ >= SNAPSHOT_MAX_BUFFERS)
				return tdat_fail(t, -EBADMSG, "corrupt trace.dat: more than %u "
						 "buffers", SNAPSHOT_MAX_BUFFERS);
		}
		break;
	case TDAT_ID_HEADER_INFO:
	case TDAT_ID_FTRACE_EVENTS:
	case TDAT_ID_EVENT_FORMATS:
	case TDAT_ID_KALLSYMS:
	case TDAT_ID_PRINTK:
	case TDAT_ID_CMDLINES:
		if (t->version >= 7)
			x->sec[id] = cur_num(o, 8);
		break;
	default:
		break;	/* newer trace-cmd (BTF, modules, ...) and unknown ids: skipped */
	}
	return o->bad ? corrupt(t, "an option", off) : 0;
}

/* ---- version 6 ---------------------------------------------------------------- */

/* "flyrecord\0", the (offset, size) table of @ncpus CPUs, the clock. */
static int v6_flyrecord(struct tdat *t, struct opt_ctx *x, uint64_t off, const char *name)
{
	struct tcur c = file_cur(t, off, t->size - (off < t->size ? off : t->size));
	struct tdat_buffer *b;
	int ret;

	if (!cur_need(&c, 10) || memcmp(c.p, "flyrecord", 10))
		return corrupt(t, "no \"flyrecord\" CPU table", off);
	c.p += 10;
	if ((uint64_t)t->ncpus * 16 > (uint64_t)(c.end - c.p))
		return corrupt(t, "the CPU table", off);
	ret = add_buffer(t, &b);
	if (ret)
		return ret;
	b->name = name;
	b->page_size = t->page_size;
	b->cpus = calloc(t->ncpus, sizeof(*b->cpus));
	if (!b->cpus)
		return tdat_fail(t, -ENOMEM, "out of memory");
	b->nentries = t->ncpus;
	for (uint32_t i = 0; i < t->ncpus; i++) {
		b->cpus[i].cpu = i;
		b->cpus[i].off = cur_num(&c, 8);
		b->cpus[i].size = cur_num(&c, 8);
	}
	if (x->have_clock) {
		struct tdat_text clk;

		if (!text_item(&c, 8, &clk))
			return corrupt(t, "the trace clock after the CPU table", off);
		option_clock(b->clock, sizeof(b->clock), (const uint8_t *)clk.p, (uint32_t)clk.len);
	}
	if (!b->clock[0])
		snprintf(b->clock, sizeof(b->clock), "%s", t->clock);
	return buffer_check(t, b);
}

static int v6_parse(struct tdat *t, struct tcur *c, struct opt_ctx *x)
{
	uint64_t off;
	int ret;

	ret = meta_headers(t, c, cur_off(t, c));
	if (!ret && (!is_text(t->header_page) || !is_text(t->header_event)))
		ret = tdat_fail(t, -EBADMSG, "corrupt trace.dat: header_page is not text");
	if (!ret)
		ret = meta_ftrace(t, c, cur_off(t, c));
	if (!ret)
		ret = meta_events(t, c, cur_off(t, c));
	if (!ret)
		ret = meta_text(t, c, 4, &t->kallsyms, "kallsyms", cur_off(t, c));
	if (!ret)
		ret = meta_text(t, c, 4, &t->printk, "printk formats", cur_off(t, c));
	if (!ret)
		ret = meta_text(t, c, 8, &t->cmdlines, "saved command lines", cur_off(t, c));
	if (ret)
		return ret;
	t->ncpus = (uint32_t)cur_num(c, 4);
	if (c->bad)
		return corrupt(t, "the CPU count", cur_off(t, c));
	while (cur_need(c, 10) && !memcmp(c->p, "options  ", 10)) {
		c->p += 10;
		for (;;) {
			uint64_t at = cur_off(t, c);
			unsigned int id = (unsigned int)cur_num(c, 2);
			uint64_t len;
			struct tcur o;

			if (c->bad)
				return corrupt(t, "the options", at);
			if (id == TDAT_ID_DONE)
				break;
			len = cur_num(c, 4);
			o.p = cur_bytes(c, len);
			if (!o.p)
				return corrupt(t, "an option", at);
			o.end = o.p + len;
			o.bad = false;
			ret = option(t, x, id, &o, at);
			if (ret)
				return ret;
		}
	}
	if (c->bad)
		return corrupt(t, "the options", cur_off(t, c));
	if (!t->ncpus || t->ncpus > SNAPSHOT_MAX_CPUS)
		return tdat_fail(t, -EBADMSG, "corrupt trace.dat: %u CPUs", t->ncpus);
	off = cur_off(t, c);
	if (cur_need(c, 10) && !memcmp(c->p, "latency  ", 10)) {
		struct tdat_buffer *b;

		ret = add_buffer(t, &b);
		if (!ret) {
			b->name = "";
			b->text = true;
		}
		return ret;
	}
	ret = v6_flyrecord(t, x, off, "");
	for (size_t i = 0; !ret && i < x->nv6; i++)
		ret = v6_flyrecord(t, x, x->v6[i].off, x->v6[i].name);
	return ret;
}

/* ---- version 7 ---------------------------------------------------------------- */

static int v7_options(struct tdat *t, struct opt_ctx *x, uint64_t first)
{
	uint64_t off = first;
	unsigned int n = 0;
	int ret;

	while (off) {
		struct tcur c;
		uint16_t flags;

		if (++n > TDAT_MAX_OPTION_SECTIONS)
			return tdat_fail(t, -EBADMSG, "corrupt trace.dat: more than %u options "
					 "sections (a loop?)", TDAT_MAX_OPTION_SECTIONS);
		ret = section(t, off, TDAT_ID_DONE, &c, &flags, x->meta_limit, "options");
		if (ret)
			return ret;
		x->next = 0;
		for (;;) {
			uint64_t at = cur_off(t, &c);
			unsigned int id = (unsigned int)cur_num(&c, 2);
			uint64_t len = cur_num(&c, 4);
			struct tcur o;

			o.p = cur_bytes(&c, len);
			if (!o.p)
				return corrupt(t, "an option", at ? at : off);
			o.end = o.p + len;
			o.bad = false;
			if (id == TDAT_ID_DONE) {
				x->next = cur_num(&o, 8);
				if (o.bad)
					return corrupt(t, "the end of an options section", off);
				break;
			}
			ret = option(t, x, id, &o, at ? at : off);
			if (ret)
				return ret;
		}
		if (x->next && x->next <= off)
			return tdat_fail(t, -EBADMSG, "corrupt trace.dat: the options section at "
					 "%llu points back to %llu", (unsigned long long)off,
					 (unsigned long long)x->next);
		off = x->next;
	}
	return 0;
}

/*
 * trace-cmd writes the sections one after the other up to the end of the
 * file (its reader finds the STRINGS sections so): one that runs past the
 * end is a truncated file, even where ktop needs nothing of it.
 */
static int v7_sections_end(struct tdat *t, uint64_t pos)
{
	while (pos < t->size) {
		struct tcur h = file_cur(t, pos, TDAT_SEC_HDR);
		uint64_t id, size;

		if (h.bad)
			return corrupt(t, "a section header cut short", pos);
		id = cur_num(&h, 2);
		cur_num(&h, 2);
		cur_num(&h, 4);
		size = cur_num(&h, 8);
		if (id > TDAT_ID_BUFFER_TEXT + 16)
			return 0;	/* not trace-cmd's contiguous layout: nothing to tell */
		if (size > t->size - pos - TDAT_SEC_HDR)
			return tdat_fail(t, -EBADMSG, "truncated or corrupt trace.dat: the section "
					 "at %llu (%llu bytes) runs past the end of the %zu-byte file",
					 (unsigned long long)pos, (unsigned long long)size, t->size);
		pos += TDAT_SEC_HDR + size;
	}
	return 0;
}

static int v7_parse(struct tdat *t, struct tcur *c, struct opt_ctx *x)
{
	static const struct {
		unsigned int	id;
		const char	*what;
	} need[] = {
		{ TDAT_ID_HEADER_INFO, "header info" },
		{ TDAT_ID_FTRACE_EVENTS, "ftrace event formats" },
		{ TDAT_ID_EVENT_FORMATS, "event formats" },
		{ TDAT_ID_KALLSYMS, "kallsyms" },
		{ TDAT_ID_PRINTK, "printk formats" },
		{ TDAT_ID_CMDLINES, "saved command lines" },
	};
	const char *zname = cur_str(c, sizeof(t->compress_name));
	uint64_t first;
	int ret;

	cur_str(c, 64);			/* the compression library's version */
	first = cur_num(c, 8);
	if (c->bad)
		return corrupt(t, "the version 7 header", cur_off(t, c));
	ret = v7_sections_end(t, cur_off(t, c));
	if (ret)
		return ret;
	snprintf(t->compress_name, sizeof(t->compress_name), "%s", zname);
	if (!strcmp(zname, "zstd"))
		t->compress = TDAT_Z_ZSTD;
	else if (!strcmp(zname, "zlib"))
		t->compress = TDAT_Z_ZLIB;
	else if (!strcmp(zname, "none") || !*zname)
		t->compress = TDAT_Z_NONE;
	else
		return tdat_fail(t, -EPROTONOSUPPORT, "trace.dat compressed with '%s': ktop reads "
				 "zstd, zlib and none", zname);
	ret = v7_options(t, x, first);
	for (size_t i = 0; !ret && i < sizeof(need) / sizeof(need[0]); i++) {
		struct tcur s;
		uint16_t flags;
		uint64_t off = x->sec[need[i].id];

		if (!off) {
			/* libtracecmd writes them all; only header info is required */
			if (need[i].id == TDAT_ID_HEADER_INFO)
				ret = tdat_fail(t, -EBADMSG, "corrupt trace.dat: no header info "
						"section");
			continue;
		}
		ret = section(t, off, need[i].id, &s, &flags, x->meta_limit, need[i].what);
		if (ret)
			break;
		switch (need[i].id) {
		case TDAT_ID_HEADER_INFO:
			ret = meta_headers(t, &s, off);
			if (!ret && (!is_text(t->header_page) || !is_text(t->header_event)))
				ret = tdat_fail(t, -EBADMSG, "corrupt trace.dat: header_page is not "
						"text");
			break;
		case TDAT_ID_FTRACE_EVENTS:
			ret = meta_ftrace(t, &s, off);
			break;
		case TDAT_ID_EVENT_FORMATS:
			ret = meta_events(t, &s, off);
			break;
		case TDAT_ID_KALLSYMS:
			ret = meta_text(t, &s, 4, &t->kallsyms, "kallsyms", off);
			break;
		case TDAT_ID_PRINTK:
			ret = meta_text(t, &s, 4, &t->printk, "printk formats", off);
			break;
		default:
			ret = meta_text(t, &s, 8, &t->cmdlines, "saved command lines", off);
			break;
		}
	}
	if (ret)
		return ret;
	if (!t->ncpus)
		for (size_t i = 0; i < t->nbuffers; i++)
			if (t->buffers[i].ncpus > t->ncpus)
				t->ncpus = t->buffers[i].ncpus;
	return 0;
}

/* ---- the file ------------------------------------------------------------------- */

int tdat_parse(struct tdat *t, const uint8_t *map, size_t size, uint64_t meta_limit,
	       const char *path, char *err, size_t errlen)
{
	struct opt_ctx x = { .meta_limit = meta_limit };
	struct tcur c = { map, map + size, false };
	uint64_t ps, text = 0;
	const char *ver;
	int ret;

	memset(t, 0, sizeof(*t));
	t->map = map;
	t->size = size;
	t->path = path;
	t->err = err;
	t->errlen = errlen;
	if (size < TDAT_MAGIC_LEN || memcmp(map, TDAT_MAGIC, TDAT_MAGIC_LEN))
		return tdat_fail(t, -EBADMSG, "not a trace.dat file (no trace-cmd magic)");
	c.p += TDAT_MAGIC_LEN;
	ver = cur_str(&c, 8);
	if (!ver)
		return corrupt(t, "the version", TDAT_MAGIC_LEN);
	if (strcmp(ver, "6") && strcmp(ver, "7"))
		return tdat_fail(t, -EPROTONOSUPPORT, "unsupported trace.dat version '%.7s' (ktop "
				 "reads versions 6 and 7, as trace-cmd 3.1 writes them)", ver);
	t->version = (unsigned int)(ver[0] - '0');
	if (cur_num(&c, 1) != 0)
		return c.bad ? corrupt(t, "the header", cur_off(t, &c)) :
		       tdat_fail(t, -EPROTONOSUPPORT, "a big-endian trace.dat: ktop reads the "
				 "pages of little-endian machines only");
	cur_num(&c, 1);			/* the recorder's user-space long size: not the kernel's */
	ps = cur_num(&c, 4);
	if (c.bad)
		return corrupt(t, "the header", cur_off(t, &c));
	if (!page_size_ok(ps))
		return tdat_fail(t, -EBADMSG, "corrupt trace.dat header (page size %llu)",
				 (unsigned long long)ps);
	t->page_size = (uint32_t)ps;
	ret = t->version >= 7 ? v7_parse(t, &c, &x) : v6_parse(t, &c, &x);
	free(x.v6);
	if (ret)
		return ret;
	for (size_t i = 0; i < t->nformats; i++)
		text += t->formats[i].text.len;
	if (text + t->meta_bytes + t->kallsyms.len + t->cmdlines.len + t->printk.len > meta_limit)
		return tdat_fail(t, -E2BIG, "its kallsyms, formats and command lines need more "
				 "than the memory limit (-m) of %.1f MiB", meta_limit / 1048576.0);
	/* the top buffer first, as trace-cmd report lists them */
	for (size_t i = 1; i < t->nbuffers; i++)
		if (!*t->buffers[i].name) {
			struct tdat_buffer top = t->buffers[i];

			memmove(t->buffers + 1, t->buffers, i * sizeof(*t->buffers));
			t->buffers[0] = top;
			break;
		}
	return 0;
}

void tdat_free(struct tdat *t)
{
	for (size_t i = 0; i < t->nowned; i++)
		free(t->owned[i]);
	for (size_t i = 0; i < t->nbuffers; i++)
		free(t->buffers[i].cpus);
	free(t->owned);
	free(t->buffers);
	free(t->formats);
	free(t->cpustat);
	memset(t, 0, sizeof(*t));
}

const struct tdat_buffer *tdat_find_buffer(const struct tdat *t, const char *name)
{
	for (size_t i = 0; i < t->nbuffers; i++)
		if (!strcmp(t->buffers[i].name, name))
			return &t->buffers[i];
	if (!*name || !strcmp(name, TRACEDAT_TOP_BUFFER))
		for (size_t i = 0; i < t->nbuffers; i++)
			if (!*t->buffers[i].name)
				return &t->buffers[i];
	return NULL;
}

/* ---- the pages of one CPU ---------------------------------------------------------- */

int tdat_pages_start(struct tdat_pages *it, struct tdat *t, const struct tdat_buffer *b,
		     const struct tdat_cpu *c)
{
	memset(it, 0, sizeof(*it));
	it->t = t;
	it->b = b;
	it->c = c;
	it->pos = c->off;
	if (!b->compressed) {
		it->end = c->off + c->size / b->page_size * b->page_size;
		return 0;
	}
	it->end = c->off + 4 + c->size;
	it->chunks_left = (uint32_t)get_num(t->map + c->off, 4);
	it->pos = c->off + 4;
	if (t->compress == TDAT_Z_ZSTD) {
		it->zctx = ZSTD_createDCtx();
		if (!it->zctx)
			return tdat_fail(t, -ENOMEM, "out of memory");
	}
	return 0;
}

int tdat_pages_next(struct tdat_pages *it, struct tdat *t, const uint8_t **pages, size_t *len)
{
	uint32_t ps = it->b->page_size, zs, us;
	const char *name = *it->b->name ? it->b->name : TRACEDAT_TOP_BUFFER;

	if (!it->b->compressed) {
		if (it->pos >= it->end)
			return 0;
		*pages = t->map + it->pos;
		*len = it->end - it->pos;
		it->pos = it->end;
		return 1;
	}
	while (it->chunks_left) {
		it->chunks_left--;
		if (it->end - it->pos < 8)
			return tdat_fail(t, -EBADMSG, "truncated or corrupt trace.dat: CPU %u of "
					 "buffer %s ends inside a chunk header at %llu", it->c->cpu,
					 name, (unsigned long long)it->pos);
		zs = (uint32_t)get_num(t->map + it->pos, 4);
		us = (uint32_t)get_num(t->map + it->pos + 4, 4);
		if (zs > it->end - it->pos - 8 || us > TDAT_MAX_CHUNK)
			return tdat_fail(t, -EBADMSG, "truncated or corrupt trace.dat: CPU %u of "
					 "buffer %s: a chunk of %u bytes (%u uncompressed) at %llu "
					 "does not fit", it->c->cpu, name, zs, us,
					 (unsigned long long)it->pos);
		if (unpack_budget(t, us))
			return -EBADMSG;
		if (us > it->cap) {
			uint8_t *n = realloc(it->buf, us);

			if (!n)
				return tdat_fail(t, -ENOMEM, "out of memory");
			it->buf = n;
			it->cap = us;
		}
		if (tdat_decompress(t->compress, it->zctx, it->buf, us, t->map + it->pos + 8, zs))
			return tdat_fail(t, -EBADMSG, "corrupt trace.dat: CPU %u of buffer %s: the "
					 "chunk at %llu does not decompress", it->c->cpu, name,
					 (unsigned long long)it->pos);
		it->pos += 8 + (uint64_t)zs;
		if (us < ps)
			continue;
		*pages = it->buf;
		*len = us / ps * ps;
		return 1;
	}
	return 0;
}

void tdat_pages_end(struct tdat_pages *it)
{
	free(it->buf);
	ZSTD_freeDCtx(it->zctx);
	memset(it, 0, sizeof(*it));
}
