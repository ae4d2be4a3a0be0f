// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Writing one save: its name from the pattern, the free space checked first,
 * what part of the window the store still held and what was lost in it, the
 * note the file carries, then the export (src/formats/), which writes a
 * temporary file and renames it (src/lib/safefile.h): a save is whole or
 * absent, never cut, whatever stops it.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "formats/format.h"
#include "formats/tracedat.h"
#include "lib/err.h"
#include "store/meta.h"
#include "store/store.h"
#include "recorder-local.h"

/* Bytes a save may leave free at least: 64 MiB, or a twentieth of a smaller file system. */
#define SPACE_RESERVE	(64ull << 20)

/* ---- the file name ------------------------------------------------------------------ */

int recorder_pattern_check(const char *pattern, unsigned int max, char *err, size_t errlen)
{
	bool numbered = false;

	if (!pattern[0])
		return err_set(err, errlen, -EINVAL, "-o: an empty file name pattern");
	if (!strcmp(pattern, "-"))
		return err_set(err, errlen, -EINVAL, "-o -: the flight recorder writes files, one "
			       "per save, not standard output; give a pattern such as "
			       "'cap-%%t-%%n.ktop'");
	for (const char *p = pattern; *p; p++) {
		if (*p != '%')
			continue;
		p++;
		if (*p == 'n' || *p == 't')
			numbered = true;
		else if (*p != '%')
			return err_set(err, errlen, -EINVAL, "-o '%s': '%%%c' is not an escape "
				       "of a save's name: %%n (its number), %%t (its time), %%%%",
				       pattern, *p ? *p : ' ');
	}
	if (!numbered && max != 1)
		return err_set(err, errlen, -EINVAL, "-o '%s': every save would get this one "
			       "name; put %%n (the save's number) or %%t (its time) in it, e.g. "
			       "'cap-%%t-%%n.ktop', or give --save-max 1", pattern);
	if (pattern[strlen(pattern) - 1] == '/')
		return err_set(err, errlen, -EINVAL, "-o '%s': a directory; give a file name "
			       "pattern in it, e.g. '%scap-%%t-%%n.ktop'", pattern, pattern);
	return 0;
}

int recorder_pattern_expand(const char *pattern, unsigned int n, uint64_t wall_ns, char *buf,
			    size_t len)
{
	time_t t = (time_t)(wall_ns / 1000000000ull);
	size_t o = 0;
	struct tm tm;
	char tmp[32];

	if (!wall_ns)
		t = time(NULL);
	localtime_r(&t, &tm);
	for (const char *p = pattern; *p; p++) {
		const char *add = tmp;

		if (*p != '%' || !p[1]) {
			tmp[0] = *p;
			tmp[1] = 0;
		} else if (*++p == 'n') {
			snprintf(tmp, sizeof(tmp), "%u", n);
		} else if (*p == 't') {
			strftime(tmp, sizeof(tmp), "%Y%m%d-%H%M%S", &tm);
		} else {
			tmp[0] = *p;
			tmp[1] = 0;
		}
		if (o + strlen(add) >= len)
			return -ENAMETOOLONG;
		memcpy(buf + o, add, strlen(add));
		o += strlen(add);
	}
	buf[o] = 0;
	return 0;
}

/* ---- the free space -------------------------------------------------------------------- */

static void human(uint64_t b, char *buf, size_t len)
{
	if (b >= 10ull << 30)
		snprintf(buf, len, "%.1f GiB", (double)b / (1 << 30));
	else if (b >= 10ull << 20)
		snprintf(buf, len, "%.1f MiB", (double)b / (1 << 20));
	else
		snprintf(buf, len, "%.1f KiB", (double)b / 1024);
}

int rec_space_check(const char *path, uint64_t need, char *msg, size_t len)
{
	char dir[PATH_MAX], a[32], b[32], c[32];
	const char *slash = strrchr(path, '/');
	uint64_t avail, size, reserve;
	struct statvfs vfs;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (statvfs(dir, &vfs))
		return err_set(msg, len, -errno, "%s: %s", dir, strerror(errno));
	avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	size = (uint64_t)vfs.f_blocks * vfs.f_frsize;
	reserve = size / 20 < SPACE_RESERVE ? size / 20 : SPACE_RESERVE;
	if (avail >= need + reserve)
		return 0;
	human(need, a, sizeof(a));
	human(avail, b, sizeof(b));
	human(reserve, c, sizeof(c));
	return err_set(msg, len, -ENOSPC, "not written: it needs about %s and %s has %s free "
		       "(%s are kept free); make room or write elsewhere (-o)", a, dir, b, c);
}

/*
 * Bytes per event of each format, the file's fixed part apart, measured on
 * saves of the recorded fixtures (host sched, rt function_graph, timerlat,
 * osnoise, sched+irq; tests/unit/test_recorder.c checks them) and of 184000
 * events of this host's default events: .ktop 5.4-12.8 (zstd), trace.dat v7
 * 4.9-11.5 (zstd), v6 or uncompressed 39-51 (ring-buffer pages), JSON
 * 90-179, text 100-126. The figures are a little above the largest: the
 * check must not let a save fill the disk, nor refuse one with room to spare.
 */
#define REC_PER_KTOP		15
#define REC_PER_DAT_ZSTD	14
#define REC_PER_DAT_RAW		56
#define REC_PER_JSON		210
#define REC_PER_TEXT		140
#define REC_FIXED		(64u << 10)	/* the file's header, formats, names */

uint64_t rec_save_estimate(const struct format_ops *f, uint64_t events, unsigned int dat_version,
			   int dat_compress, double learnt)
{
	double per;

	switch (f->id) {
	case FORMAT_KTOP:
		per = REC_PER_KTOP;
		break;
	case FORMAT_TRACEDAT:
		per = dat_version != 6 && dat_compress != TRACEDAT_COMPRESS_NONE ?
		      REC_PER_DAT_ZSTD : REC_PER_DAT_RAW;
		break;
	case FORMAT_JSON:
		per = REC_PER_JSON;
		break;
	case FORMAT_TEXT:
		per = REC_PER_TEXT;
		break;
	default:
		return 1 << 20;		/* counts, stacks: small */
	}
	/* what the last save took, with a margin: the events' own mix */
	if (learnt > 0)
		per = learnt * 1.25;
	return (uint64_t)(per * (double)events) + REC_FIXED;
}

uint64_t rec_store_events(struct store *st, uint64_t t0, uint64_t t1)
{
	uint64_t n = 0;

	for (unsigned int cpu = 0; cpu < store_ncpus(st); cpu++) {
		uint64_t a = store_seek(st, cpu, t0), b = store_seek(st, cpu, t1 + 1);

		n += b > a ? b - a : 0;
	}
	return n;
}

uint64_t rec_store_last(struct store *st, uint64_t t0, uint64_t t1)
{
	uint64_t last = t0;

	for (unsigned int cpu = 0; cpu < store_ncpus(st); cpu++) {
		uint64_t first, end, s = store_seek(st, cpu, t1);
		struct ktop_event ev;

		store_cpu_range(st, cpu, &first, &end);
		if (s > first && s <= end && !store_get(st, cpu, s - 1, &ev) && ev.ts > last)
			last = ev.ts;
	}
	return last;
}

/*
 * What the store still holds of the window: from the newest of the CPUs'
 * oldest events, among the CPUs that had events evicted (an idle CPU's old
 * events say nothing). Return: that time, or @t0 when it holds all of it.
 */
static uint64_t held_from(struct store *st, uint64_t t0, uint64_t *evicted)
{
	uint64_t from = t0;

	*evicted = 0;
	for (unsigned int cpu = 0; cpu < store_ncpus(st); cpu++) {
		struct store_stats cs;

		store_get_cpu_stats(st, cpu, &cs);
		*evicted += cs.evicted;
		if (cs.evicted && cs.first_ts > from)
			from = cs.first_ts;
	}
	return from;
}

/* Lost events in [@t0, @t1], by reason. Return: their sum. */
static uint64_t window_lost(struct store *st, uint64_t t0, uint64_t t1, uint64_t *why)
{
	size_t n = store_lost_marks(st, t0, t1, NULL, 0);
	struct store_lost *v = n ? calloc(n, sizeof(*v)) : NULL;
	uint64_t sum = 0;

	memset(why, 0, STORE_LOST_NR * sizeof(*why));
	if (!v)
		return 0;
	n = store_lost_marks(st, t0, t1, v, n);
	for (size_t i = 0; i < n; i++) {
		sum += v[i].count;
		why[v[i].why < STORE_LOST_NR ? v[i].why : STORE_LOST_UNKNOWN] += v[i].count;
	}
	free(v);
	return sum;
}

/* ---- the note ------------------------------------------------------------------------ */

static void ts_str(uint64_t ts, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 ".%09" PRIu64, (uint64_t)(ts / 1000000000ull),
		 (uint64_t)(ts % 1000000000ull));
}

static void wall_str(uint64_t wall_ns, char *buf, size_t len)
{
	time_t t = (time_t)(wall_ns / 1000000000ull);
	struct tm tm;
	char day[32];

	if (!wall_ns) {
		snprintf(buf, len, "wall clock unknown");
		return;
	}
	localtime_r(&t, &tm);
	strftime(day, sizeof(day), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03u", day, (unsigned int)(wall_ns / 1000000ull % 1000));
}

#define note_add(b, o, len, ...)						\
	do {								\
		if (*(o) < (len))					\
			*(o) += (size_t)snprintf((b) + *(o), (len) - *(o), __VA_ARGS__); \
	} while (0)

char *rec_save_note(const struct rec_save_req *q, const struct recorder_save *s)
{
	const struct rec_pending *p = q->p;
	size_t len = 8192, o = 0;
	char *b = malloc(len), t0[32], t1[32], w[48];
	unsigned int shown = p->nmatch < REC_MATCHES_KEPT ? p->nmatch : REC_MATCHES_KEPT;
	uint64_t last = p->first;

	if (!b)
		return NULL;
	for (unsigned int i = 0; i < shown; i++)
		last = p->m[i].ts > last ? p->m[i].ts : last;
	note_add(b, &o, len, "ktop flight recorder: save %u\n", q->id);
	for (unsigned int i = 0; i < shown; i++) {
		const struct rec_match *m = &p->m[i];
		const char *cond = m->cond < q->nw ? q->w[m->cond]->c.text : "?";

		ts_str(m->ts, t0, sizeof(t0));
		wall_str(q->wall_offset_ns ? m->ts + q->wall_offset_ns : 0, w, sizeof(w));
		note_add(b, &o, len, "match: %s at %s (%s): %s%s\n", cond, t0, w, m->what,
			 m->kstop ? "; the kernel stopped recording there" : "");
	}
	if (p->nmatch > shown)
		note_add(b, &o, len, "match: ... and %u more in the window\n", p->nmatch - shown);
	ts_str(s->t0, t0, sizeof(t0));
	ts_str(s->t1, t1, sizeof(t1));
	note_add(b, &o, len, "window: %s .. %s (%.3f s before the first match, %.3f s after "
		 "the last; asked: --save-before %.3f, --save-after %.3f)\n", t0, t1,
		 (double)(p->first - s->t0) / 1e9,
		 (double)(s->t1 > last ? s->t1 - last : 0) / 1e9,
		 (double)q->before / 1e9, (double)q->after / 1e9);
	if (q->cut)
		note_add(b, &o, len, "cut: %s\n", q->cut);
	for (unsigned int i = 0; i < q->noff; i++) {
		ts_str(q->off[i][0], t0, sizeof(t0));
		ts_str(q->off[i][1], t1, sizeof(t1));
		ts_str(q->off_match[i], w, sizeof(w));
		note_add(b, &o, len, "off: recording was stopped from %s to %s (the kernel's stop "
			 "at an earlier match, at %s; from: the last event recorded before the "
			 "stop reached every CPU): no events there\n", t0, t1, w);
	}
	ts_str(s->held_from, t0, sizeof(t0));
	if (s->held_from > s->t0)
		note_add(b, &o, len, "held: from %s: the store no longer held the first %.3f s "
			 "of the window (evicted for the -m bound)\n", t0,
			 (double)(s->held_from - s->t0) / 1e9);
	else
		note_add(b, &o, len, "held: all of the window\n");
	note_add(b, &o, len, "lost: %" PRIu64 " events in the window%s\n", s->lost,
		 s->lost ? " (the trace has holes there)" : "");
	note_add(b, &o, len, "kernel: %s\n", s->kernel_stop ?
		 "stopped recording at the match (the window ends there; another CPU may record "
		 "a little after it, until the stop reaches it)" : q->kstop_failed ?
		 "asked to stop recording at the match, it did not (events came after it): the "
		 "window ends there all the same" :
		 "kept recording (the window's end was read as it came)");
	return b;
}

/* ---- writing ------------------------------------------------------------------------- */

int rec_save_write(const struct rec_save_req *q, struct store *st, struct snapshot_meta *meta,
		   struct recorder_save *out)
{
	const struct rec_pending *p = q->p;
	const struct rec_match *m0 = &p->m[0];
	struct export_opts eo = { .t0 = p->t0, .t1 = p->t1, .csv_key = STORE_KEY_TYPE,
				  .view = q->view, .dat_version = q->dat_version,
				  .dat_compress = q->dat_compress, .cancel = q->cancel };
	const struct format_out fo = { .path = out->path, .fd = -1 };
	const struct format_ops *f;
	struct export_stats es = { 0 };
	uint64_t why[STORE_LOST_NR], ev0, ev1, need;
	char err[512] = "";
	struct stat sb;
	int ret;

	memset(out, 0, sizeof(*out));
	out->id = q->id;
	out->nmatch = p->nmatch;
	out->match_ts = p->first;
	out->match_wall_ns = q->wall_offset_ns ? p->first + q->wall_offset_ns : 0;
	out->t0 = p->t0 ? p->t0 : 1;	/* 0..0 would be "everything" to the exporters */
	out->t1 = p->t1;
	out->kernel_stop = p->kstop;
	eo.t0 = out->t0;
	if (m0->cond < q->nw)
		snprintf(out->cond, sizeof(out->cond), "%s", q->w[m0->cond]->c.text);
	snprintf(out->what, sizeof(out->what), "%s", m0->what);
	ret = recorder_pattern_expand(q->pattern, q->id, out->match_wall_ns, out->path,
				      sizeof(out->path));
	if (ret) {
		snprintf(out->path, sizeof(out->path), "%s", q->pattern);
		snprintf(out->msg, sizeof(out->msg), "the file name is too long");
		return out->err = ret;
	}
	if (!lstat(out->path, &sb)) {
		snprintf(out->msg, sizeof(out->msg), "not written: %.300s exists, and the recorder "
			 "replaces no file", out->path);
		return out->err = -EEXIST;
	}
	f = format_by_name(out->path);
	if (!f)
		f = format_by_id(FORMAT_KTOP);
	out->held_from = held_from(st, out->t0, &ev0);
	out->lost = window_lost(st, out->t0, out->t1, why);
	need = rec_save_estimate(f, rec_store_events(st, out->t0, out->t1), q->dat_version,
				 q->dat_compress, q->per_event);
	/* trace.dat carries kallsyms whole */
	if (f->id == FORMAT_TRACEDAT && meta->kallsyms && !q->per_event)
		need += strlen(meta->kallsyms);
	ret = rec_space_check(out->path, need, out->msg, sizeof(out->msg));
	if (ret)
		return out->err = ret;
	free(meta->save_note);
	meta->save_note = rec_save_note(q, out);
	ret = format_save(f, &fo, st, meta, &eo, &es, err, sizeof(err));
	held_from(st, out->t0, &ev1);
	out->events = es.events;
	out->bytes = es.bytes;
	if (ret) {
		snprintf(out->msg, sizeof(out->msg), "%.380s", err[0] ? err : strerror(-ret));
		return out->err = ret;
	}
	/* what the message adds to "saved FILE: ..." */
	if (out->held_from > out->t0)
		snprintf(out->msg, sizeof(out->msg), "the store no longer held the first %.3f s "
			 "of the window (evicted for -m)%s", (double)(out->held_from - out->t0) / 1e9,
			 ev1 != ev0 ? "; more went while it was written" : "");
	else if (ev1 != ev0 && out->held_from == out->t0 && held_from(st, out->t0, &ev1) > out->t0)
		snprintf(out->msg, sizeof(out->msg), "the store evicted the window's oldest "
			 "events while it was written (-m): the file may start late");
	if (out->lost)
		snprintf(out->msg + strlen(out->msg), sizeof(out->msg) - strlen(out->msg),
			 "%s%" PRIu64 " events lost in the window", out->msg[0] ? "; " : "",
			 out->lost);
	if (q->cut)
		snprintf(out->msg + strlen(out->msg), sizeof(out->msg) - strlen(out->msg),
			 "%s%s", out->msg[0] ? "; " : "", q->cut);
	if (q->noff) {
		uint64_t off = 0;

		for (unsigned int i = 0; i < q->noff; i++)
			off += q->off[i][1] - q->off[i][0];
		snprintf(out->msg + strlen(out->msg), sizeof(out->msg) - strlen(out->msg),
			 "%srecording was off for %.3f s of the window (an earlier kernel stop)",
			 out->msg[0] ? "; " : "", (double)off / 1e9);
	}
	return 0;
}
