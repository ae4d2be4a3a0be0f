// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The .ktop writer (ktop.h): a file, or a stream flushed as the store grows.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

#include "lib/array.h"
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

/* ---- writer ----------------------------------------------------------------- */

struct comm_pair {
	int32_t		pid;
	uint32_t	id;
};

struct ktop_writer {
	int			fd;
	struct output		*out;		/* fd, written so that a stop ends a wait */
	char			name[256];
	char			err[512];
	int			level;
	uint64_t		t0, t1;
	struct viewfilter	*view;
	const int		*cancel;	/* export_opts.cancel */
	bool			agg;		/* version 4: AGG blocks may follow */
	ZSTD_CCtx		*cctx;
	struct buf		raw, comp;
	unsigned int		ncpus;
	uint64_t		*next;		/* per CPU: next seq to write */
	unsigned int		sent_types;	/* schema ids < this were sent */
	uint32_t		sent_strings;
	uint64_t		sent_lost;	/* number of the next mark to send */
	/* per CPU: events evicted before they could be written, not yet marked */
	struct store_lost	*unsent;
	struct comm_pair	*comms;		/* sent, sorted by pid */
	size_t			ncomms;
	struct ktop_event	*evs;		/* one block's events */
	struct snap_stk_w	*sw;		/* stacks sent */
	struct snap_payload	pl;		/* a stack block being built */
	struct store		*flushing;	/* the store of the flush in progress */
	struct buf		chunks;		/* the next CHUNKS block: u32 count, chunks */
	uint32_t		nchunks;
	int			chunk_level;	/* zstd level of CHUNKS blocks */
	uint64_t		rate;		/* bytes/s, 0: unbounded */
	double			tokens;		/* bytes that may go out now */
	double			last_refill;	/* CLOCK_MONOTONIC seconds */
	bool			failed;
	struct ktop_writer_stats st;
};

static double mono_now(void)
{
	return (double)clock_mono_ns() / 1e9;
}

static int __attribute__((format(printf, 3, 4)))
writer_fail(struct ktop_writer *w, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset_at(w->err, sizeof(w->err), ret, w->name, fmt, ap);
	va_end(ap);
	w->failed = true;
	return ret;
}

/*
 * Compress w->raw into w->comp at @level. *@out receives the compressed size,
 * or 0 when storing the bytes as they are is as good (BLK_F_RAW): a compressed
 * block must save an eighth, or the reader's time is better spent elsewhere.
 * Return: 0, or a negative errno (the writer's error says it).
 */
static int writer_compress(struct ktop_writer *w, int level, size_t *out)
{
	size_t bound = ZSTD_compressBound(w->raw.len), n;

	w->comp.len = 0;
	if (buf_reserve(&w->comp, bound))
		return writer_fail(w, -ENOMEM, "out of memory");
	n = ZSTD_compressCCtx(w->cctx, w->comp.p, bound, w->raw.p, w->raw.len, level);
	if (ZSTD_isError(n))
		return writer_fail(w, -EIO, "zstd: %s", ZSTD_getErrorName(n));
	*out = n > w->raw.len - w->raw.len / 8 ? 0 : n;
	return 0;
}

static int writer_block(struct ktop_writer *w, enum blk_type type)
{
	int level = type == BLK_CHUNKS ? w->chunk_level : w->level;
	uint8_t hdr[BLK_HDR_SIZE];
	struct iovec iov[2];
	const uint8_t *data;
	size_t n = 0;
	int ret;

	if (w->raw.err)
		return writer_fail(w, w->raw.err, "out of memory");
	if (w->raw.len > KTOP_FILE_MAX_BLOCK)
		return writer_fail(w, -E2BIG, "block of %zu bytes over the limit", w->raw.len);
	ret = writer_compress(w, level, &n);
	if (ret)
		return ret;
	data = n ? w->comp.p : w->raw.p;
	put_le32(hdr, BLK_MAGIC);
	hdr[4] = type;
	hdr[5] = (n ? 0 : BLK_F_RAW) | (type == BLK_AGG ? BLK_F_OPTIONAL : 0);
	hdr[6] = hdr[7] = 0;
	if (!n)
		n = w->raw.len;
	put_le32(hdr + 8, (uint32_t)w->raw.len);
	put_le32(hdr + 12, (uint32_t)n);
	put_le32(hdr + 16, crc(data, n));
	put_le32(hdr + 20, crc(hdr, 20));
	iov[0] = (struct iovec){ hdr, sizeof(hdr) };
	iov[1] = (struct iovec){ (void *)data, n };
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

/* The members ktop_meta_fields lists, each under its key; empty ones are left out. */
static void meta_put_fields(struct buf *b, const struct snapshot_meta *meta)
{
	for (size_t i = 0; i < ktop_meta_nfields; i++) {
		const struct meta_field *f = &ktop_meta_fields[i];
		const char *p = (const char *)meta + f->off;

		switch (f->kind) {
		case MF_ARRAY:
			meta_put_str(b, f->key, p);
			break;
		case MF_TEXT:
			meta_put_str(b, f->key, *(char *const *)p);
			break;
		case MF_UINT:
			if (*(const uint32_t *)p)
				meta_put_num(b, f->key, *(const uint32_t *)p);
			break;
		}
	}
}

struct ktop_writer *ktop_writer_new(int fd, const char *name, const struct store *st,
				    const struct snapshot_meta *meta,
				    const struct ktop_write_opts *opts,
				    char *err, size_t errlen)
{
	struct ktop_writer *w;
	uint8_t hdr[SNAP_HDR_SIZE];
	struct iovec iov;
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
	w->cancel = opts ? opts->cancel : NULL;
	w->tokens = (double)w->rate;
	w->last_refill = mono_now();
	w->cctx = ZSTD_createCCtx();
	w->chunk_level = opts && opts->chunk_level ? opts->chunk_level : KTOP_CHUNK_LEVEL;
	w->evs = malloc(WRITE_BLOCK_EVENTS * sizeof(*w->evs));
	w->out = output_new(fd);
	w->sw = snap_stk_w_new();
	if (!w->cctx || !w->evs || !w->out || !w->sw || buf_reserve(&w->chunks, 4)) {
		ret = -ENOMEM;
		writer_fail(w, ret, "out of memory");
		goto out_fail;
	}
	w->chunks.len = 4;	/* the count goes first */
	memset(hdr, 0, sizeof(hdr));
	memcpy(hdr, SNAP_MAGIC, 8);
	w->agg = opts && opts->agg;
	put_le32(hdr + 8, w->agg ? KTOP_FILE_VERSION : KTOP_FILE_VERSION_PLAIN);
	put_le32(hdr + 12, SNAP_HDR_SIZE);
	put_le64(hdr + 16, clock_wall_ns());
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
		meta_put_fields(&w->raw, meta);
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
	ktop_writer_free(w);
	errno = -ret;
	return NULL;
}

static int writer_strings(struct ktop_writer *w, struct intern *in);

/* One record of a LOST block: cpu, ts, count, and (version 3 on) why. */
static void lost_put(struct buf *b, const struct store_lost *l)
{
	buf_var(b, l->cpu);
	buf_var(b, l->ts);
	buf_var(b, l->count);
	buf_var(b, l->why);
}

/* The lost-event records not sent yet, WRITE_BLOCK_ITEMS a block at most. */
static int writer_lost(struct ktop_writer *w, struct store *st)
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
			lost_put(&w->raw, &l[i]);
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

static int writer_comms(struct ktop_writer *w, struct store *st)
{
	struct intern *in = store_strings(st);
	struct comm_pair *now = NULL;
	size_t n = 0, cap = 0, changed = 0, j = 0;
	int ret;

	/* every pid the store knows a comm for, in pid order */
	for (int32_t pid = 0; pid < (int32_t)COMM_SCAN_MAX; pid++) {
		const char *c = store_comm_next(st, &pid);

		if (!c || pid >= (int32_t)COMM_SCAN_MAX)
			break;
		if (array_grow((void **)&now, &cap, n + 1, sizeof(*now))) {
			free(now);
			return writer_fail(w, -ENOMEM, "out of memory");
		}
		now[n].pid = pid;
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

/* A block of a payload built elsewhere (the stack blocks). */
static int writer_payload(struct ktop_writer *w, enum blk_type type,
			  const struct snap_payload *pl)
{
	if (pl->err)
		return writer_fail(w, pl->err, "out of memory");
	w->raw.len = 0;
	buf_put(&w->raw, pl->p, pl->len);
	return writer_block(w, type);
}

/*
 * The stacks not sent yet, named, after the strings their names need: every
 * stack the events up to now can name, in id order (a version 2 reader gives
 * them the same ids, which the chunks' stack column holds).
 */
static int writer_stacks(struct ktop_writer *w, struct store *st)
{
	int ret;

	snap_stk_w_name(w->sw, st);
	if (!snap_stk_w_pending(w->sw))
		return 0;
	ret = writer_strings(w, store_strings(st));
	if (ret)
		return ret;
	ret = snap_stk_w_stacks(w->sw, st, &w->pl);
	if (ret)
		return writer_fail(w, ret, "out of memory");
	return writer_payload(w, BLK_STACKS, &w->pl);
}

/* EVSTK before an EVENTS block whose events have stacks. */
static int writer_event_stacks(struct ktop_writer *w, unsigned int cpu, size_t n)
{
	uint32_t max;
	int ret;

	ret = snap_stk_w_evstk(cpu, w->evs, n, &w->pl, &max);
	if (ret)
		return writer_fail(w, ret, "out of memory");
	if (!max)
		return 0;
	if (max > snap_stk_w_sent(w->sw)) {
		/* interned since the flush began */
		ret = writer_stacks(w, w->flushing);
		if (ret)
			return ret;
		ret = snap_stk_w_evstk(cpu, w->evs, n, &w->pl, &max);
		if (ret)
			return writer_fail(w, ret, "out of memory");
	}
	return writer_payload(w, BLK_EVSTK, &w->pl);
}

/* STACKW when the off-CPU totals changed. */
static int writer_weights(struct ktop_writer *w, struct store *st)
{
	uint32_t max;
	int ret;

	ret = snap_stk_w_weights(w->sw, st, &w->pl, &max);
	if (ret)
		return writer_fail(w, ret, "out of memory");
	if (!w->pl.len)
		return 0;
	if (max > snap_stk_w_sent(w->sw)) {
		struct snap_payload keep = w->pl;

		w->pl = (struct snap_payload){ 0 };
		ret = writer_stacks(w, st);
		free(w->pl.p);
		w->pl = keep;
		if (ret)
			return ret;
	}
	return writer_payload(w, BLK_STACKW, &w->pl);
}

/* Append column @c of @n events: the varints (zigzag for signed) or bytes it holds. */
static void writer_column(struct buf *b, const struct ktop_event *evs, size_t n,
			  enum ev_col c)
{
	uint64_t prev = evs[0].ts;

	for (size_t i = 0; i < n; i++) {
		const struct ktop_event *e = &evs[i];

		switch (c) {
		case EV_DTS:
			buf_var(b, e->ts - prev);
			prev = e->ts;
			break;
		case EV_PID:
			buf_var(b, zz_enc(e->pid));
			break;
		case EV_TYPE:
			buf_var(b, e->type);
			break;
		case EV_FLAGS:
			buf_u8(b, e->flags);
			break;
		case EV_PC:
			buf_u8(b, e->pc);
			break;
		case EV_NARGS:
			buf_u8(b, e->nargs);
			break;
		case EV_ARGS:
			for (unsigned int a = 0; a < e->nargs; a++)
				buf_var(b, zz_enc((int64_t)e->args[a]));
			break;
		case EV_NCOLS:
			break;
		}
	}
}

static int writer_events(struct ktop_writer *w, unsigned int cpu, size_t n)
{
	struct buf *b = &w->raw;
	size_t col[EV_NCOLS], start, nargs = 0;
	int ret;

	if (!n)
		return 0;
	ret = writer_event_stacks(w, cpu, n);
	if (ret)
		return ret;
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
	b->len += EV_NCOLS * 4;

	for (int c = 0; c < EV_NCOLS; c++) {
		size_t c0 = b->len;

		writer_column(b, w->evs, n, c);
		col[c] = b->len - c0;
	}
	if (b->err)
		return writer_fail(w, b->err, "out of memory");
	for (int i = 0; i < EV_NCOLS; i++)
		put_le32(b->p + start + 4 * i, (uint32_t)col[i]);
	w->st.events += n;
	return writer_block(w, BLK_EVENTS);
}

/* Send the strings interned since the last call, in blocks of bounded size. */
static int writer_strings(struct ktop_writer *w, struct intern *in)
{
	uint32_t nstr = intern_count(in);

	if (!w->sent_strings)
		w->sent_strings = 1;	/* id 0 is always "" */
	while (nstr > w->sent_strings) {
		uint32_t first = w->sent_strings, last = first;
		size_t bytes = 0;
		int ret;

		while (last < nstr && bytes < KTOP_FILE_MAX_BLOCK / 4)
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
static int writer_drop(struct ktop_writer *w, struct store *st, const uint64_t *end)
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
		lost_put(&w->raw, &(struct store_lost){ .cpu = (uint16_t)cpu, .ts = ev.ts,
				  .count = end[cpu] - w->next[cpu], .why = STORE_LOST_STREAM });
		w->st.dropped += end[cpu] - w->next[cpu];
		w->next[cpu] = end[cpu];
	}
	return writer_block(w, BLK_LOST);
}

/* The dynamic types not sent yet, ids in order (a reader gives them the same ids). */
static int writer_schema(struct ktop_writer *w, struct schema *sc)
{
	unsigned int maxid = schema_max_id(sc);
	size_t cnt = 0;
	int ret;

	if (w->sent_types < KTOP_T_DYNAMIC)
		w->sent_types = KTOP_T_DYNAMIC;
	if (maxid <= w->sent_types)
		return 0;
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
	if (!ret)
		w->sent_types = maxid;
	return ret;
}

/*
 * @n events of @cpu were evicted from the store before they could be written
 * (the sender's memory bound): counted, and marked lost for the reader by
 * writer_unsent(). @ts: the time they came before, 0 when not known.
 */
static void writer_skip(struct ktop_writer *w, unsigned int cpu, uint64_t n, uint64_t ts)
{
	struct store_lost *u = &w->unsent[cpu];

	w->st.skipped += n;
	if (ts && (!u->count || !u->ts || ts < u->ts))
		u->ts = ts;
	u->count += n;
}

/*
 * One LOST block of the events writer_skip() counted since the last one, a
 * record per CPU; one whose time is not known goes before the oldest event
 * the store still holds of its CPU (evicted ones are older).
 */
static int writer_unsent(struct ktop_writer *w, struct store *st)
{
	size_t cnt = 0;

	for (unsigned int cpu = 0; cpu < w->ncpus; cpu++) {
		struct store_lost *u = &w->unsent[cpu];
		struct store_stats ss;

		if (u->count && !u->ts) {
			store_get_cpu_stats(st, cpu, &ss);
			u->ts = ss.first_ts ? ss.first_ts : ss.last_ts;
		}
		/* a window's file: the marks in it (those after it come before its end) */
		if (u->ts < w->t0)
			u->count = 0;
		if (u->ts > w->t1)
			u->ts = w->t1;
		u->cpu = (uint16_t)cpu;
		u->why = STORE_LOST_UNSENT;
		cnt += u->count > 0;
	}
	if (!cnt)
		return 0;
	w->raw.len = 0;
	buf_var(&w->raw, cnt);
	for (unsigned int cpu = 0; cpu < w->ncpus; cpu++) {
		if (w->unsent[cpu].count)
			lost_put(&w->raw, &w->unsent[cpu]);
		memset(&w->unsent[cpu], 0, sizeof(w->unsent[cpu]));
	}
	return writer_block(w, BLK_LOST);
}

/*
 * Events [@lo, @hi) of @cpu as EVENTS blocks, those in the window and the
 * view only: the rows of a chunk that is not sent whole.
 */
static int writer_rows(struct ktop_writer *w, struct store *st, unsigned int cpu,
		       uint64_t lo, uint64_t hi)
{
	size_t n = 0;
	int ret;

	while (lo < hi) {
		uint64_t k = hi - lo < WRITE_BLOCK_EVENTS - n ? hi - lo : WRITE_BLOCK_EVENTS - n;
		size_t base = n, got = store_get_range(st, cpu, lo, lo + k, &w->evs[n]);

		for (size_t i = 0; i < got; i++) {
			struct ktop_event *ev = &w->evs[base + i];

			if (ev->type == KTOP_T_NONE) {
				writer_skip(w, cpu, 1, 0);
				continue;
			}
			if (ev->ts < w->t0 || ev->ts > w->t1 ||
			    (w->view && !viewfilter_match(w->view, ev)))
				continue;
			if (ev->nargs > KTOP_MAX_ARGS)
				ev->nargs = KTOP_MAX_ARGS;
			w->evs[n++] = *ev;
		}
		lo += got ? got : k;
		if (n == WRITE_BLOCK_EVENTS) {
			ret = writer_events(w, cpu, n);
			if (ret)
				return ret;
			n = 0;
		}
	}
	return writer_events(w, cpu, n);
}

/* Send the chunks gathered in w->chunks as one CHUNKS block. */
static int writer_chunks_send(struct ktop_writer *w)
{
	struct buf keep;
	int ret;

	if (!w->nchunks)
		return 0;
	/* every stack the chunks name goes before them */
	ret = writer_stacks(w, w->flushing);
	if (ret)
		return ret;
	put_le32(w->chunks.p, w->nchunks);
	/* the block is built in w->raw: lend it the chunks' buffer */
	keep = w->raw;
	w->raw = w->chunks;
	ret = writer_block(w, BLK_CHUNKS);
	w->chunks = w->raw;
	w->raw = keep;
	w->chunks.len = 4;
	w->nchunks = 0;
	return ret;
}

/* Add @cpu's sealed chunk at @first_seq, as its bytes, to the next CHUNKS block. */
static int writer_chunk(struct ktop_writer *w, struct store *st, unsigned int cpu,
			uint64_t first_seq, uint32_t n)
{
	size_t len, at, max = store_chunk_export_max();
	int ret;

	if (w->chunks.len + max + 20 > WRITE_CHUNK_BYTES) {
		ret = writer_chunks_send(w);
		if (ret)
			return ret;
	}
	if (buf_reserve(&w->chunks, max + 20))
		return writer_fail(w, -ENOMEM, "out of memory");
	/* cpu, u32 length, the bytes */
	at = w->chunks.len;
	buf_var(&w->chunks, cpu);
	len = store_chunk_export(st, cpu, first_seq, w->chunks.p + w->chunks.len + 4);
	if (!len) {
		w->chunks.len = at;
		writer_skip(w, cpu, n, 0);	/* evicted meanwhile */
		return 0;
	}
	put_le32(w->chunks.p + w->chunks.len, (uint32_t)len);
	w->chunks.len += 4 + len;
	w->nchunks++;
	w->st.events += n;
	w->st.chunks++;
	return 0;
}

struct witem {
	uint64_t	t_min, t_max, first_seq;
	uint32_t	n;
	uint16_t	cpu;
	bool		sealed;
};

static int witem_cmp(const void *a, const void *b)
{
	const struct witem *x = a, *y = b;

	if (x->t_min != y->t_min)
		return x->t_min < y->t_min ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return (x->first_seq > y->first_seq) - (x->first_seq < y->first_seq);
}

/* The chunks of every CPU from w->next up to @end, oldest first across CPUs. */
static struct witem *writer_items(struct ktop_writer *w, struct store *st,
				  const uint64_t *end, size_t *np)
{
	struct store_chunk_info ci[256];
	struct witem *v = NULL;
	size_t n = 0, cap = 0;

	for (unsigned int cpu = 0; cpu < w->ncpus; cpu++) {
		uint64_t from = w->next[cpu];
		size_t k;

		while (from < end[cpu] && (k = store_chunks(st, cpu, from, ci, 256))) {
			for (size_t i = 0; i < k && ci[i].first_seq < end[cpu]; i++) {
				if (array_grow((void **)&v, &cap, n + 1, sizeof(*v))) {
					free(v);
					return NULL;
				}
				v[n++] = (struct witem){ ci[i].t_min, ci[i].t_max, ci[i].first_seq,
							 ci[i].n, (uint16_t)cpu, ci[i].sealed };
			}
			from = ci[k - 1].first_seq + ci[k - 1].n;
			if (!ci[k - 1].sealed)
				break;
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), witem_cmp);
	*np = n;
	return v ? v : calloc(1, sizeof(*v));
}

/*
 * The events: sealed chunks that the window and the view leave whole go as
 * they are (CHUNKS blocks), the rest as rows (EVENTS blocks), in time order
 * across CPUs, each CPU's in seq order.
 */
static int writer_data(struct ktop_writer *w, struct store *st, const uint64_t *end)
{
	struct witem *v;
	size_t n = 0;
	int ret = 0;

	v = writer_items(w, st, end, &n);
	if (!v)
		return writer_fail(w, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n && !ret; i++) {
		const struct witem *c = &v[i];
		uint64_t lo = c->first_seq, hi = c->first_seq + c->n;

		if (format_cancelled(w->cancel)) {
			ret = writer_fail(w, -ECANCELED, "stopped before it was complete "
					  "(ktop is ending): nothing written");
			break;
		}
		if (w->next[c->cpu] > lo)
			lo = w->next[c->cpu];
		else
			writer_skip(w, c->cpu, lo - w->next[c->cpu], c->t_min);
		if (hi > end[c->cpu])
			hi = end[c->cpu];
		if (lo >= hi || c->t_max < w->t0 || c->t_min > w->t1) {
			w->next[c->cpu] = hi > w->next[c->cpu] ? hi : w->next[c->cpu];
			continue;
		}
		if (c->sealed && lo == c->first_seq && hi == c->first_seq + c->n && !w->view &&
		    w->t0 <= c->t_min && c->t_max <= w->t1) {
			ret = writer_chunk(w, st, c->cpu, lo, c->n);
		} else {
			ret = writer_chunks_send(w);
			if (!ret)
				ret = writer_rows(w, st, c->cpu, lo, hi);
		}
		w->next[c->cpu] = hi;
	}
	if (!ret)
		ret = writer_chunks_send(w);
	free(v);
	for (unsigned int cpu = 0; cpu < w->ncpus && !ret; cpu++) {
		if (w->next[cpu] < end[cpu]) {
			writer_skip(w, cpu, end[cpu] - w->next[cpu], 0);
			w->next[cpu] = end[cpu];
		}
	}
	return ret;
}

/* Refill the bandwidth bucket. Return: true when it is empty (send lost records instead). */
static bool writer_bucket_empty(struct ktop_writer *w)
{
	double t;

	if (!w->rate)
		return false;
	t = mono_now();
	w->tokens += (t - w->last_refill) * (double)w->rate;
	if (w->tokens > (double)w->rate)
		w->tokens = (double)w->rate;
	w->last_refill = t;
	return w->tokens <= 0;
}

int ktop_writer_bpf(struct ktop_writer *w, const struct bpfstats_raw *r)
{
	if (w->failed)
		return -EIO;
	w->raw.len = 0;
	ktop_bpf_encode(&w->raw, r);
	return writer_block(w, BLK_BPF);
}

int ktop_writer_agg(struct ktop_writer *w, struct agg_set *s)
{
	if (w->failed)
		return -EIO;
	if (!w->agg)
		return -EINVAL;
	w->raw.len = 0;
	ktop_agg_encode(&w->raw, s);
	return writer_block(w, BLK_AGG);
}

int ktop_writer_flush(struct ktop_writer *w, struct store *st)
{
	unsigned int ncpus = store_ncpus(st);
	uint64_t *end = NULL, bytes0;
	int ret = 0;

	if (w->failed)
		return -EIO;
	if (!w->next || w->ncpus != ncpus) {
		free(w->next);
		free(w->unsent);
		w->ncpus = ncpus;
		w->next = calloc(ncpus ? ncpus : 1, sizeof(*w->next));
		w->unsent = calloc(ncpus ? ncpus : 1, sizeof(*w->unsent));
		if (!w->next || !w->unsent)
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
	w->flushing = st;
	ret = writer_schema(w, store_schema(st));
	if (!ret)
		ret = writer_strings(w, store_strings(st));
	if (!ret)
		ret = writer_stacks(w, st);
	if (ret)
		goto out;
	/* bandwidth bound: when the bucket is empty, lost records instead of events */
	if (writer_bucket_empty(w)) {
		ret = writer_drop(w, st, end);
		goto out;
	}
	bytes0 = w->st.bytes;
	ret = writer_data(w, st, end);
	if (!ret)
		ret = writer_unsent(w, st);
	if (!ret)
		ret = writer_weights(w, st);
	if (!ret)
		ret = writer_lost(w, st);
	/* comm table changes (their strings are all in the string table now) */
	if (!ret)
		ret = writer_comms(w, st);
	if (!ret && w->rate)
		w->tokens -= (double)(w->st.bytes - bytes0);
out:
	free(end);
	return ret;
}

int ktop_writer_finish(struct ktop_writer *w)
{
	if (w->failed)
		return -EIO;
	w->raw.len = 0;
	buf_var(&w->raw, w->st.events);
	return writer_block(w, BLK_END);
}

const char *ktop_writer_error(const struct ktop_writer *w)
{
	return w->err;
}

void ktop_writer_stats(const struct ktop_writer *w, struct ktop_writer_stats *out)
{
	*out = w->st;
}

void ktop_writer_free(struct ktop_writer *w)
{
	if (!w)
		return;
	ZSTD_freeCCtx(w->cctx);
	output_free(w->out);
	buf_free(&w->raw);
	buf_free(&w->comp);
	buf_free(&w->chunks);
	free(w->next);
	free(w->unsent);
	free(w->comms);
	free(w->evs);
	snap_stk_w_free(w->sw);
	free(w->pl.p);
	free(w);
}

/* A whole .ktop file: header, everything @st holds (what @opts leave), END. */
static int ktop_write_out(const struct format_out *out, struct store *st,
			  const struct snapshot_meta *meta, const struct ktop_write_opts *opts,
			  struct export_stats *stats, char *err, size_t errlen)
{
	struct ktop_writer_stats ws = { 0 };
	struct ktop_writer *w;
	struct format_file f;
	int ret;

	ret = format_out_open(&f, out, opts ? opts->file_flags : 0, false, err, errlen);
	if (ret)
		return ret;
	w = ktop_writer_new(f.out.fd, out->path, st, meta, opts, err, errlen);
	if (!w)
		return format_out_close(&f, -errno, stats, err, errlen);
	ret = ktop_writer_flush(w, st);
	if (!ret && opts && opts->agg)
		ret = ktop_writer_agg(w, opts->agg);
	if (!ret)
		ret = ktop_writer_finish(w);
	if (ret)
		snprintf(err, errlen, "%s", ktop_writer_error(w));
	ktop_writer_stats(w, &ws);
	ktop_writer_free(w);
	ret = format_out_close(&f, ret, stats, err, errlen);
	if (stats)
		stats->events = ws.events;
	return ret;
}

/* A whole .ktop file to @out (format_ops.save). */
int ktop_save(const struct format_out *out, struct store *st,
		     const struct snapshot_meta *meta, const struct export_opts *eo,
		     struct export_stats *stats, char *err, size_t errlen)
{
	struct ktop_write_opts wo = {
		.t0 = eo ? eo->t0 : 0, .t1 = eo ? eo->t1 : 0,
		.file_flags = eo ? eo->file_flags : 0, .view = eo ? eo->view : NULL,
		.cancel = eo ? eo->cancel : NULL,
		.agg = eo ? eo->agg : NULL,
	};

	return ktop_write_out(out, st, meta, &wo, stats, err, errlen);
}

int ktop_write(const char *path, struct store *st, const struct snapshot_meta *meta,
	       const struct ktop_write_opts *opts, char *err, size_t errlen)
{
	struct format_out out = { .path = path, .fd = -1 };

	return ktop_write_out(&out, st, meta, opts, NULL, err, errlen);
}
