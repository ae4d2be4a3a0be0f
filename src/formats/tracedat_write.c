// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Writing a trace.dat from memory, in the layout libtracecmd 3.1.6 writes
 * (tracedat-local.h): version 7 with zstd-compressed sections and CPU data
 * by default, version 7 uncompressed, or version 6 for older readers.
 *
 *   v7: header | header info, ftrace formats, event formats, kallsyms, printk
 *       formats, saved cmdlines (one section each) | one BUFFER section per
 *       buffer (each CPU page aligned; compressed: chunks of 10 pages) | one
 *       options section | the STRINGS section (section descriptions)
 *   v6: header | the same metadata inline | CPU count | options | the top
 *       buffer's "flyrecord" table, clock and pages | each instance's
 *
 * No tracefs, no temporary files: the formats, kallsyms and page size are
 * the snapshot's own, the command lines the store's comm table. The tracer
 * is named in the VERSION option ("ktop 0.1.0 (tracer function_graph)"),
 * since no option of the format holds it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zstd.h>
#include <traceevent/event-parse.h>

#include "lib/err.h"
#include "lib/evformat.h"
#include "format.h"
#include "krecord.h"
#include "lib/safefile.h"
#include "store/schema.h"
#include "store/stacks.h"
#include "store/store.h"
#include "tracedat.h"
#include "tracedat-local.h"
#include "view/viewfilter.h"

#define WOUT_BUF	(1u << 20)
#define COMM_SCAN_MAX	(1u << 23)	/* store.c COMM_MAX_PID */
#define EV_BATCH	1024

/* The kernel's events/header_event (fixed since 2.6.3x), when the meta has none. */
static const char header_event_text[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

/* trace_clock's list, as the kernel prints it; the one in use is bracketed. */
static const char *const clocks[] = {
	"local", "global", "counter", "uptime", "perf", "mono", "mono_raw", "boot", "tai",
	"x86-tsc",
};

/* ---- a growable buffer and the output ------------------------------------------- */

struct mbuf {
	uint8_t	*p;
	size_t	n, cap;
	bool	oom;
};

static void mb_put(struct mbuf *b, const void *d, size_t n)
{
	if (b->oom || !n)
		return;
	if (b->n + n > b->cap) {
		size_t cap = (b->n + n) * 2 + 4096;
		uint8_t *p = realloc(b->p, cap);

		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void mb_num(struct mbuf *b, uint64_t v, unsigned int size)
{
	uint8_t le[8];

	for (unsigned int i = 0; i < size; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	mb_put(b, le, size);
}

static void mb_str(struct mbuf *b, const char *s)
{
	mb_put(b, s, strlen(s) + 1);
}

/* A text with its size first (@size_bytes: 4 or 8). */
static void mb_text(struct mbuf *b, const char *text, unsigned int size_bytes)
{
	size_t n = text ? strlen(text) : 0;

	mb_num(b, n, size_bytes);
	mb_put(b, text, n);
}

struct tw_buffer {
	char		name[64];	/* "" for the top instance */
	char		clock[32];
	uint32_t	cpu0, ncpus, page_size;
	uint64_t	sec;		/* v7: its section; v6: its "flyrecord" */
	uint64_t	bufopt;		/* v6: where its BUFFER option's offset is */
	uint64_t	*off, *size;
};

/* How a stack record is laid out (the meta's ftrace/kernel_stack or user_stack format). */
struct tw_stack {
	struct tep_event	*ev;		/* NULL: no such format, stacks not written */
	int			off_n;		/* size (kernel) or tgid (user) */
	int			off_caller;
	int			fixed;		/* user_stack: its array's slots; 0: the frames */
	uint8_t			*rec;
};

struct tw {
	int			fd;
	uint64_t		pos;	/* the file offset of wb's end */
	struct mbuf		wb;	/* written to fd at pos - wb.n when large */
	int			werr;
	unsigned int		version;
	bool			z;
	ZSTD_CCtx		*cctx;
	struct mbuf		zb, chunk, strings, opts;
	uint64_t		nchunks;
	const struct snapshot_meta *m;
	struct store		*st;
	uint64_t		t0, t1;
	struct viewfilter	*view;
	const int		*cancel;	/* export_opts.cancel */
	struct tep_handle	*tep;
	struct krecord		kr;
	uint8_t			*rec;
	struct tw_stack		kstk, ustk;	/* ftrace:kernel_stack, ftrace:user_stack */
	struct ktop_event	*evs;
	unsigned int		long_size;
	uint32_t		page_size;
	struct tw_buffer	*bufs;
	size_t			nbufs;
	uint32_t		ncpus;	/* v6: the most CPUs of any buffer */
	struct export_stats	s;
};

static void w_flush(struct tw *w)
{
	uint64_t at = w->pos - w->wb.n;
	size_t done = 0;

	while (!w->werr && done < w->wb.n) {
		ssize_t k = pwrite(w->fd, w->wb.p + done, w->wb.n - done, (off_t)(at + done));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			w->werr = k < 0 ? -errno : -EIO;
		else
			done += (size_t)k;
	}
	w->wb.n = 0;
}

static void w_put(struct tw *w, const void *p, size_t n)
{
	mb_put(&w->wb, p, n);
	w->pos += n;
	if (w->wb.oom && !w->werr)
		w->werr = -ENOMEM;
	if (w->wb.n >= WOUT_BUF)
		w_flush(w);
}

static void w_num(struct tw *w, uint64_t v, unsigned int size)
{
	uint8_t le[8];

	for (unsigned int i = 0; i < size; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	w_put(w, le, size);
}

static void w_pad(struct tw *w, uint64_t align)
{
	static const uint8_t zero[4096];
	uint64_t to = (w->pos + align - 1) / align * align;

	while (w->pos < to)
		w_put(w, zero, to - w->pos > sizeof(zero) ? sizeof(zero) : to - w->pos);
}

/* Overwrite @size bytes at @at, which may still be in the buffer. */
static void w_patch(struct tw *w, uint64_t at, uint64_t v, unsigned int size)
{
	uint64_t start = w->pos - w->wb.n;
	uint8_t le[8];

	for (unsigned int i = 0; i < size; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	if (at >= start) {
		memcpy(w->wb.p + (at - start), le, size);
	} else if (!w->werr && pwrite(w->fd, le, size, (off_t)at) != (ssize_t)size) {
		w->werr = -EIO;
	}
}

/* One compressed block: u32 zsize, u32 usize, the zstd frame. */
static void w_zblock(struct tw *w, const void *p, size_t n)
{
	size_t cap = ZSTD_compressBound(n), z;

	w->zb.n = 0;
	if (w->zb.cap < cap) {
		uint8_t *q = realloc(w->zb.p, cap);

		if (!q) {
			w->werr = -ENOMEM;
			return;
		}
		w->zb.p = q;
		w->zb.cap = cap;
	}
	z = ZSTD_compress2(w->cctx, w->zb.p, cap, p, n);
	if (ZSTD_isError(z)) {
		w->werr = -EIO;
		return;
	}
	w_num(w, z, 4);
	w_num(w, n, 4);
	w_put(w, w->zb.p, z);
}

/* ---- version 7 sections ---------------------------------------------------------- */

static uint64_t sec_begin(struct tw *w, unsigned int id, bool compressed, const char *desc)
{
	uint64_t at = w->pos;

	w_num(w, id, 2);
	w_num(w, compressed ? TDAT_SEC_COMPRESSED : 0, 2);
	w_num(w, w->strings.n, 4);
	mb_str(&w->strings, desc);
	w_num(w, 0, 8);		/* the size, patched by sec_end() */
	return at;
}

static void sec_end(struct tw *w, uint64_t at)
{
	w_patch(w, at + 8, w->pos - at - TDAT_SEC_HDR, 8);
}

/* A metadata item: a section of its own in v7 (compressed when the file is), inline in v6. */
static uint64_t w_meta(struct tw *w, unsigned int id, const char *desc, struct mbuf *b)
{
	uint64_t at = w->pos;

	if (b->oom) {
		w->werr = -ENOMEM;
	} else if (w->version < 7) {
		w_put(w, b->p, b->n);
	} else {
		at = sec_begin(w, id, w->z, desc);
		if (w->z)
			w_zblock(w, b->p, b->n);
		else
			w_put(w, b->p, b->n);
		sec_end(w, at);
	}
	b->n = 0;
	return at;
}

static void opt_add(struct tw *w, unsigned int id, const void *p, size_t n)
{
	mb_num(&w->opts, id, 2);
	mb_num(&w->opts, n, 4);
	mb_put(&w->opts, p, n);
}

static void opt_str(struct tw *w, unsigned int id, const char *s)
{
	opt_add(w, id, s, strlen(s) + 1);
}

/* ---- the metadata ----------------------------------------------------------------- */

static void build_headers(struct tw *w, struct mbuf *b)
{
	const char *hp = w->m->header_page ? w->m->header_page : "";

	mb_put(b, "header_page", 12);
	mb_text(b, hp, 8);
	mb_put(b, "header_event", 13);
	mb_text(b, w->m->header_event ? w->m->header_event : header_event_text, 8);
}

static void build_ftrace(struct tw *w, struct mbuf *b)
{
	uint32_t n = 0;

	for (size_t i = 0; i < w->m->nformats; i++)
		n += !strcmp(w->m->formats[i].system, "ftrace");
	mb_num(b, n, 4);
	for (size_t i = 0; i < w->m->nformats; i++)
		if (!strcmp(w->m->formats[i].system, "ftrace"))
			mb_text(b, w->m->formats[i].text, 8);
}

/* The other formats, by system in the order the systems first appear. */
static void build_events(struct tw *w, struct mbuf *b)
{
	const struct snapshot_meta *m = w->m;
	uint32_t nsys = 0;

	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			mb_num(b, nsys, 4);
		for (size_t i = 0; i < m->nformats; i++) {
			const char *sys = m->formats[i].system;
			uint32_t n = 0;
			size_t j;

			for (j = 0; j < i && strcmp(m->formats[j].system, sys); j++)
				;
			if (j < i || !strcmp(sys, "ftrace"))
				continue;	/* system done already, or ftrace's */
			if (!pass) {
				nsys++;
				continue;
			}
			for (j = i; j < m->nformats; j++)
				n += !strcmp(m->formats[j].system, sys);
			mb_str(b, sys);
			mb_num(b, n, 4);
			for (j = i; j < m->nformats; j++)
				if (!strcmp(m->formats[j].system, sys))
					mb_text(b, m->formats[j].text, 8);
		}
	}
}

/* saved_cmdlines as recorded, or from the store's comm table: "PID COMM" lines. */
static void build_cmdlines(struct tw *w, struct mbuf *b)
{
	struct mbuf t = { 0 };

	if (w->m->cmdlines) {
		mb_text(b, w->m->cmdlines, 8);
		return;
	}
	for (uint32_t pid = 1; pid < COMM_SCAN_MAX; pid++) {
		const char *c = store_comm(w->st, (int32_t)pid);
		char line[96];
		int n;

		if (!c || !*c)
			continue;
		n = snprintf(line, sizeof(line), "%u %s\n", pid, c);
		mb_put(&t, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
	}
	mb_num(b, t.n, 8);
	mb_put(b, t.p, t.n);
	b->oom |= t.oom;
	free(t.p);
}

/* The sections of the metadata, in trace-cmd's order; v7: their offsets in @sec. */
static void write_metadata(struct tw *w, uint64_t sec[TDAT_ID_CMDLINES + 1])
{
	struct mbuf b = { 0 };

	build_headers(w, &b);
	sec[TDAT_ID_HEADER_INFO] = w_meta(w, TDAT_ID_HEADER_INFO, "headers", &b);
	build_ftrace(w, &b);
	sec[TDAT_ID_FTRACE_EVENTS] = w_meta(w, TDAT_ID_FTRACE_EVENTS, "ftrace events", &b);
	build_events(w, &b);
	sec[TDAT_ID_EVENT_FORMATS] = w_meta(w, TDAT_ID_EVENT_FORMATS, "events format", &b);
	mb_text(&b, w->m->kallsyms, 4);
	sec[TDAT_ID_KALLSYMS] = w_meta(w, TDAT_ID_KALLSYMS, "kallsyms", &b);
	mb_text(&b, w->m->printk, 4);
	sec[TDAT_ID_PRINTK] = w_meta(w, TDAT_ID_PRINTK, "printk", &b);
	build_cmdlines(w, &b);
	sec[TDAT_ID_CMDLINES] = w_meta(w, TDAT_ID_CMDLINES, "command lines", &b);
	free(b.p);
}

static void clock_option(struct tw *w, const char *clock)
{
	char text[256];
	size_t n = 0;
	bool found = false;

	if (!*clock)
		clock = "local";
	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		bool cur = !strcmp(clocks[i], clock);

		found |= cur;
		n += snprintf(text + n, sizeof(text) - n, cur ? "[%s] " : "%s ", clocks[i]);
	}
	if (!found)
		n += snprintf(text + n, sizeof(text) - n, "[%s] ", clock);
	snprintf(text + n - 1, sizeof(text) - n + 1, "\n");
	opt_str(w, TDAT_ID_TRACECLOCK, text);
}

/* TRACECLOCK, UNAME, VERSION: what trace-cmd writes besides the layout. */
static void common_options(struct tw *w)
{
	char text[512];
	struct utsname u;

	clock_option(w, w->m->clock);
	if (uname(&u))
		snprintf(u.machine, sizeof(u.machine), "?");
	snprintf(text, sizeof(text), "Linux %s %s %s", w->m->hostname[0] ? w->m->hostname : "(none)",
		 w->m->release[0] ? w->m->release : "(none)", u.machine);
	opt_str(w, TDAT_ID_UNAME, text);
	snprintf(text, sizeof(text), "ktop %s (tracer %s)", KTOP_VERSION,
		 w->m->tracer[0] ? w->m->tracer : "nop");
	opt_str(w, TDAT_ID_VERSION, text);
}

/* CPUSTAT per CPU of each buffer: what was written, and what was lost. */
static void cpustat_options(struct tw *w, const uint64_t *events, const uint64_t *lost)
{
	char text[512];

	for (size_t i = 0; i < w->nbufs; i++) {
		const struct tw_buffer *b = &w->bufs[i];

		if (*b->name) {
			snprintf(text, sizeof(text), "\nBuffer: %s\n\n", b->name);
			opt_str(w, TDAT_ID_CPUSTAT, text);
		}
		for (uint32_t c = 0; c < b->ncpus; c++)
			opt_str(w, TDAT_ID_CPUSTAT, (snprintf(text, sizeof(text),
				"CPU: %u\nentries: %llu\noverrun: %llu\ncommit overrun: 0\n"
				"dropped events: 0\nread events: %llu\n", c,
				(unsigned long long)events[b->cpu0 + c],
				(unsigned long long)lost[b->cpu0 + c],
				(unsigned long long)events[b->cpu0 + c]), text));
	}
}

/* ---- the pages of one CPU ----------------------------------------------------------- */

static void chunk_flush(struct tw *w)
{
	if (!w->chunk.n)
		return;
	if (w->z) {
		w_zblock(w, w->chunk.p, w->chunk.n);
		w->nchunks++;
	} else {
		w_put(w, w->chunk.p, w->chunk.n);
	}
	w->chunk.n = 0;
}

static int page_emit(void *arg, const uint8_t *page)
{
	struct tw *w = arg;
	size_t ps = w->page_size;

	mb_put(&w->chunk, page, ps);
	if (w->chunk.oom)
		return -ENOMEM;
	if (w->chunk.n >= TDAT_PAGES_IN_CHUNK * ps)
		chunk_flush(w);
	return w->werr;
}

static int lost_cmp(const void *a, const void *b)
{
	const struct store_lost *x = a, *y = b;

	return (x->ts > y->ts) - (x->ts < y->ts);
}

/* ---- stacks: the kernel_stack and user_stack records after their event --------------- */

/* Where @name's format puts its fields; rec NULL when the meta has no such format. */
static int stack_init(struct tw *w, struct tw_stack *k, const char *name)
{
	struct tep_event *ev = tep_find_event_by_name(w->tep, "ftrace", name);
	struct tep_format_field *n, *c;

	memset(k, 0, sizeof(*k));
	if (!ev)
		return 0;
	n = tep_find_field(ev, strcmp(name, "user_stack") ? "size" : "tgid");
	c = tep_find_field(ev, "caller");
	/* a corrupt format (fields outside a record, a huge array): no stacks written */
	if (!n || !c || n->size != 4 || !evformat_field_fits(n, KRECORD_MAX / 2) ||
	    !evformat_field_fits(c, KRECORD_MAX / 2) || c->offset < n->offset + 4 ||
	    c->size / (int)w->long_size > STACK_MAX_FRAMES + 1)
		return 0;
	k->ev = ev;
	k->off_n = n->offset;
	k->off_caller = c->offset;
	/* the kernel's user stack is its fixed array; a kernel stack as deep as it is */
	k->fixed = strcmp(name, "user_stack") ? 0 : c->size / (int)w->long_size;
	k->rec = malloc(c->offset + (STACK_MAX_FRAMES + 1) * 8);
	return k->rec ? 0 : -ENOMEM;
}

static void put_word(uint8_t *p, unsigned int size, uint64_t v)
{
	for (unsigned int i = 0; i < size; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/*
 * The record of @n frames (leaf first) of @ev's stack in @k->rec, with @ev's
 * common fields. Return: its size, 0 when there is no format or no frame.
 */
static int stack_record(struct tw *w, struct tw_stack *k, const struct ktop_event *ev,
			const uint64_t *frames, unsigned int n, uint32_t tgid)
{
	unsigned int ls = w->long_size, slots = k->fixed ? (unsigned int)k->fixed : n;
	struct tep_format_field *f;
	int size;

	if (!k->ev || !n)
		return 0;
	if (n > slots)
		n = slots;
	size = k->off_caller + (int)(slots * ls);
	memset(k->rec, 0, size);
	for (f = k->ev->format.common_fields; f; f = f->next) {
		uint64_t v = !strcmp(f->name, "common_type") ? (uint64_t)k->ev->id :
			     !strcmp(f->name, "common_flags") ? ev->flags :
			     !strcmp(f->name, "common_preempt_count") ? ev->pc :
			     !strcmp(f->name, "common_pid") ? (uint32_t)ev->pid : 0;

		if (evformat_field_fits(f, k->off_caller))
			put_word(k->rec + f->offset, f->size, v);
	}
	put_word(k->rec + k->off_n, 4, k->fixed ? tgid : n);
	for (unsigned int i = 0; i < n; i++)
		put_word(k->rec + k->off_caller + i * ls, ls, frames[i]);
	return size;
}

/*
 * @ev (its record in w->rec, @size bytes), then its stack as the kernel
 * writes it: the kernel_stack record, then the user_stack one, all on one
 * page (the decoder gives a stack to the event before it on its page).
 */
static void add_event(struct tw *w, struct tdat_pager *pg, const struct ktop_event *ev,
		      int size)
{
	struct stack_info si;
	int ks = 0, us = 0;

	if (ev->stack && !stacks_get(store_stacks(w->st), ev->stack, &si) &&
	    !(si.flags & STACK_F_NAMES)) {
		ks = stack_record(w, &w->kstk, ev, si.frames, si.nkern, 0);
		us = stack_record(w, &w->ustk, ev, si.frames + si.nkern, si.nuser, si.tgid);
		if (ks || us)
			tdat_pager_together(pg, ev->ts, (size_t)size + ks + us);
	}
	tdat_pager_add(pg, ev->ts, w->rec, size);
	if (ks)
		tdat_pager_add(pg, ev->ts, w->kstk.rec, ks);
	if (us)
		tdat_pager_add(pg, ev->ts, w->ustk.rec, us);
}

/*
 * Call @fn for each event of @stream in the window that the view keeps, in
 * order, until it returns non-zero. Return: that value, or 0.
 */
static int tw_events(struct tw *w, unsigned int stream,
		     int (*fn)(struct tw *w, const struct ktop_event *ev, void *arg), void *arg)
{
	uint64_t first, end, seq;
	int ret = 0;

	store_cpu_range(w->st, stream, &first, &end);
	seq = w->t0 ? store_seek(w->st, stream, w->t0) : first;
	while (seq < end && !ret) {
		size_t n = store_get_range(w->st, stream, seq, seq + EV_BATCH < end ?
					   seq + EV_BATCH : end, w->evs);

		if (!n)
			break;
		if (format_cancelled(w->cancel)) {
			if (!w->werr)
				w->werr = -ECANCELED;
			return -ECANCELED;
		}
		seq += n;
		for (size_t i = 0; i < n && !ret; i++) {
			const struct ktop_event *ev = &w->evs[i];

			if (ev->ts > w->t1)
				return 0;
			if (ev->type != KTOP_T_NONE && ev->ts >= w->t0 &&
			    (!w->view || viewfilter_match(w->view, ev)))
				ret = fn(w, ev, arg);
		}
	}
	return ret;
}

struct tw_stream {
	struct tdat_pager	pg;
	unsigned int		stream;
	const struct store_lost	*lost;
	size_t			nlost, li;
	uint64_t		*events, *lostn;
};

/* One event into the pages, after the lost marks before it (they flag a page). */
static int stream_event(struct tw *w, const struct ktop_event *ev, void *arg)
{
	struct tw_stream *ts = arg;
	int size;

	for (; ts->li < ts->nlost && ts->lost[ts->li].ts <= ev->ts; ts->li++)
		if (ts->lost[ts->li].cpu == ts->stream) {
			tdat_pager_lost(&ts->pg, ev->ts, ts->lost[ts->li].count);
			*ts->lostn += ts->lost[ts->li].count;
		}
	size = krecord_encode(&w->kr, ev, w->rec);
	if (!size) {
		w->s.skipped++;
		return 0;
	}
	add_event(w, &ts->pg, ev, size);
	w->s.events++;
	(*ts->events)++;
	return ts->pg.err;
}

/* Events of @stream in the window (and the view) into pages; their lost marks flag pages. */
static int write_stream(struct tw *w, unsigned int stream, const struct store_lost *lost,
			size_t nlost, uint64_t *events, uint64_t *lostn)
{
	struct tw_stream ts = { .stream = stream, .lost = lost, .nlost = nlost,
				.events = events, .lostn = lostn };
	int ret;

	ret = tdat_pager_init(&ts.pg, w->page_size, w->long_size, page_emit, w);
	if (ret)
		return ret;
	tw_events(w, stream, stream_event, &ts);
	ret = tdat_pager_finish(&ts.pg);
	chunk_flush(w);
	return ret ? ret : w->werr;
}

/* Every CPU of buffer @b, each page aligned; the offsets and sizes into b->off/size. */
static int write_buffer_data(struct tw *w, struct tw_buffer *b, const struct store_lost *lost,
			     size_t nlost, uint64_t *events, uint64_t *lostn)
{
	for (uint32_t c = 0; c < b->ncpus; c++) {
		unsigned int s = b->cpu0 + c;
		uint64_t count_at = 0;
		int ret;

		w_pad(w, w->page_size);
		b->off[c] = w->pos;
		if (w->z) {
			count_at = w->pos;
			w_num(w, 0, 4);		/* the chunk count, patched */
			w->nchunks = 0;
		}
		ret = write_stream(w, s, lost, nlost, &events[s], &lostn[s]);
		if (ret)
			return ret;
		if (w->z) {
			w_patch(w, count_at, w->nchunks, 4);
			/* as libtracecmd: the chunks' bytes, without the count */
			b->size[c] = w->nchunks ? w->pos - count_at - 4 : 0;
		} else {
			b->size[c] = w->pos - b->off[c];
		}
	}
	return 0;
}

/* ---- the file ------------------------------------------------------------------------ */

static void write_header(struct tw *w)
{
	w_put(w, TDAT_MAGIC, TDAT_MAGIC_LEN);
	w_put(w, w->version >= 7 ? "7" : "6", 2);
	w_num(w, 0, 1);				/* little endian */
	w_num(w, sizeof(long), 1);		/* the writer's user-space long */
	w_num(w, w->page_size, 4);
	if (w->version >= 7) {
		w_put(w, w->z ? "zstd" : "none", 5);
		if (w->z)
			w_put(w, ZSTD_versionString(), strlen(ZSTD_versionString()) + 1);
		else
			w_put(w, "", 1);
	}
}

static void buffer_option_v7(struct tw *w, const struct tw_buffer *b)
{
	struct mbuf o = { 0 };

	mb_num(&o, b->sec, 8);
	mb_str(&o, b->name);
	mb_str(&o, b->clock[0] ? b->clock : "local");
	mb_num(&o, b->page_size, 4);
	mb_num(&o, b->ncpus, 4);
	for (uint32_t c = 0; c < b->ncpus; c++) {
		mb_num(&o, c, 4);
		mb_num(&o, b->off[c], 8);
		mb_num(&o, b->size[c], 8);
	}
	opt_add(w, TDAT_ID_BUFFER, o.p, o.n);
	if (o.oom)
		w->werr = -ENOMEM;
	free(o.p);
}

static int write_v7(struct tw *w, const struct store_lost *lost, size_t nlost, uint64_t *events,
		    uint64_t *lostn)
{
	uint64_t sec[TDAT_ID_CMDLINES + 1] = { 0 }, first_opt, opt_at, str_at;
	int ret;

	write_header(w);
	first_opt = w->pos;
	w_num(w, 0, 8);			/* the first options section, patched */
	write_metadata(w, sec);
	for (size_t i = 0; i < w->nbufs; i++) {
		struct tw_buffer *b = &w->bufs[i];
		char desc[96];

		snprintf(desc, sizeof(desc), "buffer flyrecord %s", b->name);
		b->sec = sec_begin(w, TDAT_ID_BUFFER, w->z, desc);
		ret = write_buffer_data(w, b, lost, nlost, events, lostn);
		if (ret)
			return ret;
		sec_end(w, b->sec);
	}
	for (unsigned int id = TDAT_ID_HEADER_INFO; id <= TDAT_ID_CMDLINES; id++) {
		uint8_t le[8];

		for (unsigned int i = 0; i < 8; i++)
			le[i] = (uint8_t)(sec[id] >> (8 * i));
		opt_add(w, id, le, 8);
	}
	{
		uint8_t n[4] = { (uint8_t)w->ncpus, (uint8_t)(w->ncpus >> 8),
				 (uint8_t)(w->ncpus >> 16), (uint8_t)(w->ncpus >> 24) };

		opt_add(w, TDAT_ID_CPUCOUNT, n, 4);
	}
	common_options(w);
	cpustat_options(w, events, lostn);
	for (size_t i = 0; i < w->nbufs; i++)
		buffer_option_v7(w, &w->bufs[i]);
	mb_num(&w->opts, TDAT_ID_DONE, 2);	/* DONE: the next options section, none */
	mb_num(&w->opts, 8, 4);
	mb_num(&w->opts, 0, 8);
	if (w->opts.oom)
		return -ENOMEM;
	opt_at = sec_begin(w, TDAT_ID_DONE, false, "options");
	w_put(w, w->opts.p, w->opts.n);
	sec_end(w, opt_at);
	w_patch(w, first_opt, opt_at, 8);
	str_at = sec_begin(w, TDAT_ID_STRINGS, w->z, "strings");
	if (w->strings.oom)
		return -ENOMEM;
	if (w->z)
		w_zblock(w, w->strings.p, w->strings.n);
	else
		w_put(w, w->strings.p, w->strings.n);
	sec_end(w, str_at);
	return w->werr;
}

/* An event write_stream() will write: one with a kernel format. */
static int count_event(struct tw *w, const struct ktop_event *ev, void *arg)
{
	if (krecord_event(&w->kr, ev->type) && schema_get(store_schema(w->st), ev->type))
		(*(uint64_t *)arg)++;
	return 0;
}

/* Version 6 puts the CPU stats before the pages: count what write_stream() will write. */
static void count_v6(struct tw *w, const struct store_lost *lost, size_t nlost, uint64_t *events,
		     uint64_t *lostn)
{
	for (unsigned int s = 0; s < store_ncpus(w->st); s++)
		tw_events(w, s, count_event, &events[s]);
	for (size_t i = 0; i < nlost; i++)
		if (lost[i].ts >= w->t0 && lost[i].ts <= w->t1)
			lostn[lost[i].cpu] += lost[i].count;
}

/* "flyrecord\0", the CPU table (patched once the pages are out), the clock, the pages. */
static int flyrecord_v6(struct tw *w, struct tw_buffer *b, const struct store_lost *lost,
			size_t nlost, uint64_t *events, uint64_t *lostn)
{
	uint64_t table;
	char clk[48];
	int ret, n;

	w_put(w, "flyrecord", 10);
	table = w->pos;
	for (uint32_t c = 0; c < w->ncpus; c++) {
		w_num(w, 0, 8);
		w_num(w, 0, 8);
	}
	n = snprintf(clk, sizeof(clk), "[%s]", b->clock[0] ? b->clock : "local");
	w_num(w, n, 8);
	w_put(w, clk, n);
	ret = write_buffer_data(w, b, lost, nlost, events, lostn);
	for (uint32_t c = 0; !ret && c < b->ncpus; c++) {
		w_patch(w, table + 16 * c, b->off[c], 8);
		w_patch(w, table + 16 * c + 8, b->size[c], 8);
	}
	return ret ? ret : w->werr;
}

static int write_v6(struct tw *w, const struct store_lost *lost, size_t nlost, uint64_t *events,
		    uint64_t *lostn)
{
	uint64_t sec[TDAT_ID_CMDLINES + 1], *ev2, *lost2;
	int ret = 0;

	ev2 = calloc(store_ncpus(w->st), sizeof(*ev2));
	lost2 = calloc(store_ncpus(w->st), sizeof(*lost2));
	if (!ev2 || !lost2) {
		free(ev2);
		free(lost2);
		return -ENOMEM;
	}
	count_v6(w, lost, nlost, ev2, lost2);
	write_header(w);
	write_metadata(w, sec);
	w_num(w, w->ncpus, 4);
	common_options(w);
	cpustat_options(w, ev2, lost2);
	free(ev2);
	free(lost2);
	w_put(w, "options  ", 10);
	w_put(w, w->opts.p, w->opts.n);
	/* BUFFER per instance: u64 offset of its "flyrecord" (patched), name */
	for (size_t i = 1; i < w->nbufs; i++) {
		w_num(w, TDAT_ID_BUFFER, 2);
		w_num(w, 8 + strlen(w->bufs[i].name) + 1, 4);
		w->bufs[i].bufopt = w->pos;
		w_num(w, 0, 8);
		w_put(w, w->bufs[i].name, strlen(w->bufs[i].name) + 1);
	}
	w_num(w, TDAT_ID_DONE, 2);		/* v6: a bare id ends the options */
	if (w->opts.oom)
		return -ENOMEM;
	for (size_t i = 0; !ret && i < w->nbufs; i++) {
		if (i)
			w_patch(w, w->bufs[i].bufopt, w->pos, 8);
		ret = flyrecord_v6(w, &w->bufs[i], lost, nlost, events, lostn);
	}
	return ret ? ret : w->werr;
}

/* The buffers to write, the top instance first: the meta's table, or one of every CPU. */
static int setup_buffers(struct tw *w)
{
	const struct snapshot_meta *m = w->m;
	unsigned int n = store_ncpus(w->st);
	bool table = m->nbuffers > 0, top = false;
	size_t k = 0;

	for (size_t i = 0; i < m->nbuffers; i++) {
		table &= m->buffers[i].cpu0 + m->buffers[i].ncpus <= n;
		top |= !strcmp(m->buffers[i].name, TRACEDAT_TOP_BUFFER);
	}
	w->nbufs = table ? m->nbuffers + !top : 1;
	w->bufs = calloc(w->nbufs, sizeof(*w->bufs));
	if (!w->bufs)
		return -ENOMEM;
	if (!table || !top) {
		/* every CPU in the top buffer; or an empty top before the instances */
		snprintf(w->bufs[0].clock, sizeof(w->bufs[0].clock), "%s", m->clock);
		w->bufs[0].ncpus = table ? 0 : n;
		k = 1;
	}
	for (size_t pass = 0; table && pass < 2; pass++)
		for (size_t i = 0; i < m->nbuffers; i++) {
			const struct snapshot_buffer *b = &m->buffers[i];
			bool is_top = !strcmp(b->name, TRACEDAT_TOP_BUFFER);

			if (is_top != !pass)
				continue;
			snprintf(w->bufs[k].name, sizeof(w->bufs[k].name), "%s", is_top ? "" : b->name);
			snprintf(w->bufs[k].clock, sizeof(w->bufs[k].clock), "%s",
				 b->clock[0] ? b->clock : m->clock);
			w->bufs[k].cpu0 = b->cpu0;
			w->bufs[k++].ncpus = b->ncpus;
		}
	for (size_t i = 0; i < w->nbufs; i++) {
		struct tw_buffer *b = &w->bufs[i];

		b->page_size = w->page_size;
		b->off = calloc(b->ncpus + 1, sizeof(*b->off));
		b->size = calloc(b->ncpus + 1, sizeof(*b->size));
		if (!b->off || !b->size)
			return -ENOMEM;
		if (b->ncpus > w->ncpus)
			w->ncpus = b->ncpus;
	}
	if (!w->ncpus)
		w->ncpus = 1;
	return 0;
}

static void tw_free(struct tw *w)
{
	for (size_t i = 0; w->bufs && i < w->nbufs; i++) {
		free(w->bufs[i].off);
		free(w->bufs[i].size);
	}
	free(w->bufs);
	free(w->wb.p);
	free(w->zb.p);
	free(w->chunk.p);
	free(w->strings.p);
	free(w->opts.p);
	free(w->rec);
	free(w->evs);
	krecord_fini(&w->kr);
	free(w->kstk.rec);
	free(w->ustk.rec);
	ZSTD_freeCCtx(w->cctx);
	if (w->tep)
		tep_free(w->tep);
}

static int tw_init(struct tw *w, struct store *st, const struct snapshot_meta *m,
		   const struct tracedat_save_opts *o)
{
	int ret;

	w->st = st;
	w->m = m;
	w->version = o && o->version ? o->version : 7;
	w->z = w->version >= 7 && (!o || o->compress != TRACEDAT_COMPRESS_NONE);
	w->t0 = o ? o->t0 : 0;
	w->t1 = o && (o->t0 || o->t1) ? o->t1 : UINT64_MAX;
	w->view = o ? o->view : NULL;
	w->cancel = o ? o->cancel : NULL;
	w->page_size = m->page_size ? m->page_size : 4096;
	w->tep = snapshot_meta_tep(m);
	if (!w->tep)
		return -EINVAL;
	w->long_size = tep_get_header_page_size(w->tep) == 4 ? 4 : 8;
	ret = krecord_init(&w->kr, w->tep, st, m);
	w->rec = malloc(KRECORD_MAX);
	w->evs = malloc(EV_BATCH * sizeof(*w->evs));
	if (ret || !w->rec || !w->evs || stack_init(w, &w->kstk, "kernel_stack") ||
	    stack_init(w, &w->ustk, "user_stack"))
		return -ENOMEM;
	if (w->z) {
		w->cctx = ZSTD_createCCtx();
		if (!w->cctx)
			return -ENOMEM;
		/* as libtracecmd: frames without their content size */
		ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_contentSizeFlag, 0);
	}
	return setup_buffers(w);
}

int tracedat_save(const struct format_out *out, struct store *st,
		  const struct snapshot_meta *meta, const struct tracedat_save_opts *o,
		  struct export_stats *stats, char *err, size_t errlen)
{
	const char *path = out->path;
	unsigned int n = store_ncpus(st);
	struct store_lost *lost = NULL;
	uint64_t *events, *lostn;
	struct format_file f;
	struct tw w = { 0 };
	size_t nlost;
	int ret;

	if (stats)
		memset(stats, 0, sizeof(*stats));
	if (!meta || !meta->nformats)
		return err_set_at(err, errlen, -EINVAL, path, "no kernel event formats in this "
				  "session: cannot write trace.dat");
	if (o && o->version && o->version != 6 && o->version != 7)
		return err_set_at(err, errlen, -EINVAL, path, "trace.dat version %u: ktop writes "
				  "versions 6 and 7", o->version);
	ret = tw_init(&w, st, meta, o);
	events = calloc(n, sizeof(*events));
	lostn = calloc(n, sizeof(*lostn));
	if (ret || !events || !lostn) {
		ret = err_set_at(err, errlen, ret == -EINVAL ? ret : -ENOMEM, path, "%s",
				 ret == -EINVAL ? "the event formats do not parse" : "out of memory");
		goto out;
	}
	nlost = store_lost_marks(st, w.t0, w.t1, NULL, 0);
	lost = calloc(nlost + 1, sizeof(*lost));
	if (!lost) {
		ret = err_set_at(err, errlen, -ENOMEM, path, "out of memory");
		goto out;
	}
	nlost = store_lost_marks(st, w.t0, w.t1, lost, nlost);
	qsort(lost, nlost, sizeof(*lost), lost_cmp);
	ret = format_out_open(&f, out, SAFEFILE_OUT_SEEKABLE | (o ? o->file_flags : 0), false,
			      err, errlen);
	if (ret)
		goto out;
	w.fd = f.out.fd;
	ret = w.version >= 7 ? write_v7(&w, lost, nlost, events, lostn) :
			       write_v6(&w, lost, nlost, events, lostn);
	w_flush(&w);
	if (!ret)
		ret = w.werr;
	if (ret == -ECANCELED)
		format_cancel_err(err, errlen, path);
	else if (ret)
		err_set_at(err, errlen, ret, path, "write: %s", strerror(-ret));
	ret = format_out_close(&f, ret, NULL, err, errlen);
	w.s.bytes = w.pos;
out:
	if (stats)
		*stats = w.s;
	free(events);
	free(lostn);
	free(lost);
	tw_free(&w);
	return ret;
}
