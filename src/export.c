// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Exports: trace.dat (src/formats/tracedat_write.c), Chrome/Perfetto JSON,
 * kernel text, CSV.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "export.h"
#include "viewfilter.h"
#include "flags.h"
#include "intern.h"
#include "output.h"
#include "safefile.h"
#include "schema.h"
#include "snapshot.h"
#include "store.h"
#include "formats/tracedat.h"

static int fail(char *err, size_t errlen, int ret, const char *path, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, errlen, "%s: ", path);

	if (n < 0 || (size_t)n >= errlen)
		return ret;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - n, fmt, ap);
	va_end(ap);
	return ret;
}

static void window(const struct export_opts *o, uint64_t *t0, uint64_t *t1)
{
	*t0 = o ? o->t0 : 0;
	*t1 = o && (o->t0 || o->t1) ? o->t1 : UINT64_MAX;
}

int export_format_from_name(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (!dot)
		return -1;
	if (!strcmp(dot, ".ktop"))
		return EXPORT_KTOP;
	if (!strcmp(dot, ".dat"))
		return EXPORT_TRACEDAT;
	if (!strcmp(dot, ".json"))
		return EXPORT_JSON;
	if (!strcmp(dot, ".txt") || !strcmp(dot, ".trace"))
		return EXPORT_TEXT;
	if (!strcmp(dot, ".csv"))
		return EXPORT_CSV;
	return -1;
}

const char *export_format_name(enum export_format f)
{
	static const char *names[] = { "ktop", "trace.dat", "json", "text", "csv" };

	return (unsigned int)f < sizeof(names) / sizeof(names[0]) ? names[f] : "?";
}

/* ---- trace.dat: src/formats/tracedat_write.c ----------------------------------- */

int export_tracedat(const char *path, struct store *st, const struct snapshot_meta *meta,
		    const struct export_opts *opts, struct export_stats *stats,
		    char *err, size_t errlen)
{
	struct tracedat_save_opts o = { 0 };

	if (opts) {
		o.t0 = opts->t0;
		o.t1 = opts->t1;
		o.view = opts->view;
		o.file_flags = opts->file_flags;
		o.version = opts->dat_version;
		o.compress = opts->dat_compress;
	}
	return tracedat_save(path, st, meta, &o, stats, err, errlen);
}

/* ---- output files with stdio ------------------------------------------------------ */

struct outf {
	FILE			*fp;
	struct safefile_out	out;
};

static int outf_open(struct outf *o, const char *path, unsigned int flags, char *err,
		     size_t errlen)
{
	int ret = safefile_out_open(&o->out, path, flags, err, errlen), fd;

	if (ret)
		return ret;
	fd = fcntl(o->out.fd, F_DUPFD_CLOEXEC, 3);
	/* in place (standard output, a FIFO): a stop request must end a wait on its reader */
	o->fp = fd < 0 ? NULL : o->out.in_place ? output_fdopen(fd, true) : fdopen(fd, "w");
	if (!o->fp) {
		if (fd >= 0)
			close(fd);
		safefile_out_close(&o->out, false, err, errlen);
		return fail(err, errlen, -ENOMEM, path, "out of memory");
	}
	setvbuf(o->fp, NULL, _IOFBF, 1 << 16);
	return 0;
}

static int outf_close(struct outf *o, const char *path, int ret, struct export_stats *s,
		      char *err, size_t errlen)
{
	long size;

	if (fflush(o->fp) || ferror(o->fp)) {
		if (!ret)
			ret = fail(err, errlen, -EIO, path, "write: %s", strerror(errno));
	}
	size = ftell(o->fp);
	if (fclose(o->fp) && !ret)
		ret = fail(err, errlen, -EIO, path, "write: %s", strerror(errno));
	if (safefile_out_close(&o->out, !ret, err, errlen) && !ret)
		ret = -EIO;
	if (s && size > 0)
		s->bytes = size;
	return ret;
}

/* ---- JSON -------------------------------------------------------------------------- */

/* Unsigned decimal without stdio's format parsing (the JSON is mostly numbers). */
static void put_u64(FILE *fp, uint64_t v)
{
	char b[24], *p = b + sizeof(b);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	fwrite_unlocked(p, 1, b + sizeof(b) - p, fp);
}

static void put_i64(FILE *fp, int64_t v)
{
	if (v < 0) {
		fputc_unlocked('-', fp);
		put_u64(fp, -(uint64_t)v);
	} else {
		put_u64(fp, (uint64_t)v);
	}
}

static void json_str(FILE *fp, const char *s)
{
	size_t n = strlen(s), i;

	for (i = 0; i < n; i++)
		if (s[i] == '"' || s[i] == '\\' || (unsigned char)s[i] < 0x20 ||
		    (unsigned char)s[i] >= 0x7f)
			break;
	fputc_unlocked('"', fp);
	fwrite_unlocked(s, 1, i, fp);
	for (s += i; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(fp, "\\u%04x", c);
		else
			fputc_unlocked(c, fp);
	}
	fputc_unlocked('"', fp);
}

static void json_ts(FILE *fp, uint64_t ns)
{
	char b[4] = { '.', (char)('0' + ns % 1000 / 100), (char)('0' + ns % 100 / 10),
		      (char)('0' + ns % 10) };

	put_u64(fp, ns / 1000);
	fwrite_unlocked(b, 1, 4, fp);
}

struct jframe {
	uint32_t	func;
	int32_t		depth;
};

struct jstack {
	int32_t		pid;
	unsigned int	n, cap;
	struct jframe	*f;
	bool		used;
};

struct jtasks {
	struct jstack	*v;
	size_t		cap;	/* power of two, open addressing by pid */
	size_t		n;
};

static struct jstack *jtask(struct jtasks *t, int32_t pid)
{
	size_t i;

	if ((t->n + 1) * 2 > t->cap) {
		struct jtasks nt = { .cap = t->cap ? t->cap * 2 : 256 };

		nt.v = calloc(nt.cap, sizeof(*nt.v));
		if (!nt.v)
			return NULL;
		for (size_t k = 0; k < t->cap; k++) {
			if (!t->v[k].used)
				continue;
			for (i = (uint32_t)t->v[k].pid * 2654435761u & (nt.cap - 1); nt.v[i].used;
			     i = (i + 1) & (nt.cap - 1))
				;
			nt.v[i] = t->v[k];
		}
		nt.n = t->n;
		free(t->v);
		*t = nt;
	}
	for (i = (uint32_t)pid * 2654435761u & (t->cap - 1); t->v[i].used; i = (i + 1) & (t->cap - 1))
		if (t->v[i].pid == pid)
			return &t->v[i];
	t->v[i].used = true;
	t->v[i].pid = pid;
	t->n++;
	return &t->v[i];
}

static void json_args(FILE *fp, struct store *st, const struct ktop_schema_type *t,
		      const struct ktop_event *ev)
{
	struct intern *in = store_strings(st);

	fputs(",\"args\":{", fp);
	for (unsigned int k = 0; t && k < ev->nargs && k < t->nfields; k++) {
		if (k)
			fputc(',', fp);
		json_str(fp, t->fields[k].name);
		fputc(':', fp);
		switch (t->fields[k].kind) {
		case KTOP_FK_STR:
		case KTOP_FK_SYM:
			json_str(fp, intern_str(in, (uint32_t)ev->args[k]));
			break;
		case KTOP_FK_INT:
			put_i64(fp, (int64_t)ev->args[k]);
			break;
		case KTOP_FK_HEX:
			fprintf(fp, "\"0x%llx\"", (unsigned long long)ev->args[k]);
			break;
		default:
			put_u64(fp, ev->args[k]);
		}
	}
	fputc('}', fp);
}

/*
 * A track per task; the idle tasks (pid 0) of each CPU get their own track,
 * tid JSON_IDLE_TID + cpu, as their call stacks are separate.
 */
#define JSON_IDLE_TID	(1 << 30)

static int32_t json_tid(int32_t pid, unsigned int cpu)
{
	return pid ? pid : JSON_IDLE_TID + (int32_t)cpu;
}

static void json_head(FILE *fp, const char *ph, const char *name, int32_t tid, uint64_t ts,
		      unsigned int cpu, bool *first)
{
	fputs(*first ? "\n" : ",\n", fp);
	*first = false;
	fputs_unlocked("{\"ph\":\"", fp);
	fputs_unlocked(ph, fp);
	fputs_unlocked("\",\"pid\":", fp);
	put_i64(fp, tid >= JSON_IDLE_TID ? 0 : tid);
	fputs_unlocked(",\"tid\":", fp);
	put_i64(fp, tid);
	fputs_unlocked(",\"ts\":", fp);
	json_ts(fp, ts);
	fputs_unlocked(",\"name\":", fp);
	json_str(fp, name);
	fputs_unlocked(",\"cat\":\"cpu", fp);
	put_u64(fp, cpu);
	fputc_unlocked('"', fp);
}

int export_json(const char *path, struct store *st, const struct snapshot_meta *meta,
		const struct export_opts *opts, struct export_stats *stats,
		char *err, size_t errlen)
{
	struct schema *sc = store_schema(st);
	struct intern *in = store_strings(st);
	struct export_stats s = { 0 };
	struct jtasks tasks = { 0 };
	struct store_iter *it;
	struct ktop_event ev;
	struct outf o;
	uint64_t t0, t1, seq, last_ts = 0;
	bool first = true;
	size_t nlost;
	int ret;

	window(opts, &t0, &t1);
	ret = outf_open(&o, path, opts ? opts->file_flags : 0, err, errlen);
	if (ret)
		return ret;
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{", o.fp);
	fputs("\"generator\":\"ktop\"", o.fp);
	if (meta && meta->release[0]) {
		fputs(",\"kernel\":", o.fp);
		json_str(o.fp, meta->release);
	}
	if (meta && meta->tracer[0]) {
		fputs(",\"tracer\":", o.fp);
		json_str(o.fp, meta->tracer);
	}
	fputs("},\"traceEvents\":[", o.fp);
	it = store_iter_new(st, t0, t1, NULL);
	if (!it) {
		ret = fail(err, errlen, -ENOMEM, path, "out of memory");
		goto out;
	}
	while (store_iter_next(it, &ev, &seq)) {
		const struct ktop_schema_type *t = schema_get(sc, ev.type);
		const char *name = t ? t->name : "unknown";
		struct jstack *js;

		if (opts && opts->view && !viewfilter_match(opts->view, &ev))
			continue;

		last_ts = ev.ts;
		s.events++;
		if (ev.type == KTOP_T_FGRAPH_ENTRY || ev.type == KTOP_T_FGRAPH_EXIT) {
			uint32_t func = (uint32_t)ev.args[0];
			int32_t depth = (int32_t)ev.args[1];

			js = jtask(&tasks, json_tid(ev.pid, ev.cpu));
			if (!js) {
				ret = fail(err, errlen, -ENOMEM, path, "out of memory");
				goto out;
			}
			if (ev.type == KTOP_T_FGRAPH_ENTRY) {
				/* frames at this depth or deeper never returned: close them */
				while (js->n && js->f[js->n - 1].depth >= depth) {
					js->n--;
					json_head(o.fp, "E", intern_str(in, js->f[js->n].func),
						  json_tid(ev.pid, ev.cpu), ev.ts, ev.cpu, &first);
					fputs(",\"args\":{\"exit_missing\":true}}", o.fp);
				}
				if (js->n == js->cap) {
					struct jframe *nf;

					js->cap = js->cap ? js->cap * 2 : 16;
					nf = realloc(js->f, js->cap * sizeof(*nf));
					if (!nf) {
						ret = fail(err, errlen, -ENOMEM, path, "out of memory");
						goto out;
					}
					js->f = nf;
				}
				js->f[js->n++] = (struct jframe){ func, depth };
				json_head(o.fp, "B", intern_str(in, func), js->pid, ev.ts, ev.cpu,
					  &first);
				fputs("}", o.fp);
				continue;
			}
			/* exit: close deeper frames, then this one or a complete slice */
			while (js->n && js->f[js->n - 1].depth > depth) {
				js->n--;
				json_head(o.fp, "E", intern_str(in, js->f[js->n].func), js->pid,
					  ev.ts, ev.cpu, &first);
				fputs(",\"args\":{\"exit_missing\":true}}", o.fp);
			}
			if (js->n && js->f[js->n - 1].depth == depth &&
			    js->f[js->n - 1].func == func) {
				js->n--;
				json_head(o.fp, "E", intern_str(in, func), js->pid, ev.ts, ev.cpu,
					  &first);
				fputs("}", o.fp);
			} else {
				uint64_t dur = ev.nargs > 3 && ev.args[3] > ev.args[2] ?
					       ev.args[3] - ev.args[2] : 0;

				if (dur > ev.ts)
					dur = ev.ts;
				/* a call entered before the trace began: as long as it ran */
				json_head(o.fp, "X", intern_str(in, func), js->pid, ev.ts - dur,
					  ev.cpu, &first);
				fputs(",\"dur\":", o.fp);
				json_ts(o.fp, dur);
				fputs(",\"args\":{\"entry_missing\":true}}", o.fp);
			}
			continue;
		}
		if (ev.type == KTOP_T_TIMERLAT || ev.type == KTOP_T_OSNOISE) {
			char cname[48];

			snprintf(cname, sizeof(cname), "%s cpu%u", name, ev.cpu);
			json_head(o.fp, "C", cname, 0, ev.ts, ev.cpu, &first);
			if (ev.type == KTOP_T_TIMERLAT)
				fprintf(o.fp, ",\"args\":{\"%s_ns\":%llu}}",
					ev.nargs > 1 && (int64_t)ev.args[1] == 0 ? "irq" : "thread",
					(unsigned long long)(ev.nargs > 2 ? ev.args[2] : 0));
			else
				fprintf(o.fp, ",\"args\":{\"noise_ns\":%llu,\"max_sample_ns\":%llu}}",
					(unsigned long long)ev.args[1],
					(unsigned long long)ev.args[2]);
			continue;
		}
		json_head(o.fp, "i", name, json_tid(ev.pid, ev.cpu), ev.ts, ev.cpu, &first);
		fputs(",\"s\":\"t\"", o.fp);
		json_args(o.fp, st, t, &ev);
		fputs("}", o.fp);
	}
	store_iter_free(it);
	/* calls still open when the trace ended */
	for (size_t k = 0; k < tasks.cap; k++) {
		struct jstack *js = &tasks.v[k];

		while (js->used && js->n) {
			js->n--;
			json_head(o.fp, "E", intern_str(in, js->f[js->n].func), js->pid, last_ts, 0,
				  &first);
			fputs(",\"args\":{\"open\":true}}", o.fp);
		}
	}
	/* lost events: global instants */
	nlost = store_lost_marks(st, t0, t1, NULL, 0);
	if (nlost) {
		struct store_lost *l = calloc(nlost, sizeof(*l));

		nlost = l ? store_lost_marks(st, t0, t1, l, nlost) : 0;
		for (size_t k = 0; k < nlost; k++) {
			json_head(o.fp, "i", "lost events", 0, l[k].ts, l[k].cpu, &first);
			fprintf(o.fp, ",\"s\":\"g\",\"args\":{\"cpu\":%u,\"count\":%llu}}", l[k].cpu,
				(unsigned long long)l[k].count);
		}
		free(l);
	}
	/* task names */
	for (size_t k = 0; k < tasks.cap; k++) {
		int32_t tid = tasks.v[k].pid;
		char idle[32];
		const char *c;

		if (!tasks.v[k].used)
			continue;
		if (tid >= JSON_IDLE_TID) {
			snprintf(idle, sizeof(idle), "swapper/%d", tid - JSON_IDLE_TID);
			c = idle;
		} else if (!(c = store_comm(st, tid))) {
			continue;
		}
		fprintf(o.fp, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,"
			"\"args\":{\"name\":", tid >= JSON_IDLE_TID ? 0 : tid, tid);
		json_str(o.fp, c);
		fputs("}}", o.fp);
	}
	fputs("\n]}\n", o.fp);
out:
	for (size_t k = 0; k < tasks.cap; k++)
		free(tasks.v[k].f);
	free(tasks.v);
	ret = outf_close(&o, path, ret, &s, err, errlen);
	if (stats)
		*stats = s;
	return ret;
}

/* ---- kernel text -------------------------------------------------------------------- */

static bool meta_has_lazy_count(const struct snapshot_meta *m)
{
	for (size_t i = 0; i < m->nformats; i++)
		if (strstr(m->formats[i].text, "common_preempt_lazy_count"))
			return true;
	return false;
}

/*
 * The ftrace tracers' own records are printed by the kernel without the
 * event name, in the tracer's layout (kernel/trace/trace_output.c):
 * function "func <-parent", timerlat "#seq context irq timer_latency N ns",
 * osnoise "runtime noise %avail max hw nmi irq sirq thread".
 * function_graph's layout (a call graph) is not reproduced: its records are
 * printed as events. Return: true when @ev was printed here.
 */
static bool text_tracer_line(FILE *fp, struct store *st, const struct ktop_event *ev,
			     const char *comm, const char *lat, uint64_t usecs)
{
	static const char *const ctx[] = { "irq", "thread", "user-ret" };
	struct intern *in = store_strings(st);

	if (ev->type != KTOP_T_FUNCTION && ev->type != KTOP_T_TIMERLAT &&
	    ev->type != KTOP_T_OSNOISE)
		return false;
	fprintf(fp, "%16s-%-7d [%03u] %s %5llu.%06llu: ", comm, ev->pid, ev->cpu, lat,
		(unsigned long long)(usecs / 1000000ull), (unsigned long long)(usecs % 1000000ull));
	if (ev->type == KTOP_T_FUNCTION) {
		fprintf(fp, "%s <-%s\n", intern_str(in, (uint32_t)ev->args[0]),
			intern_str(in, (uint32_t)ev->args[1]));
	} else if (ev->type == KTOP_T_TIMERLAT) {
		int64_t c = (int64_t)ev->args[1];

		fprintf(fp, "#%-5u context %6s timer_latency %9llu ns\n", (unsigned int)ev->args[0],
			c >= 0 && c < 3 ? ctx[c] : "?", (unsigned long long)ev->args[2]);
	} else {
		uint64_t runtime = ev->args[0], noise = ev->args[1], ratio = 0;

		if (runtime && noise <= runtime)
			ratio = (runtime - noise) * 10000000 / runtime;
		fprintf(fp, "%llu %10llu %3llu.%05llu %7llu %6u %6u %6u %6u %6u\n",
			(unsigned long long)runtime, (unsigned long long)noise,
			(unsigned long long)(ratio / 100000), (unsigned long long)(ratio % 100000),
			(unsigned long long)ev->args[2], (unsigned int)ev->args[3],
			(unsigned int)ev->args[4], (unsigned int)ev->args[5],
			(unsigned int)ev->args[6], (unsigned int)ev->args[7]);
	}
	return true;
}

int export_text(const char *path, struct store *st, const struct snapshot_meta *meta,
		const struct export_opts *opts, struct export_stats *stats,
		char *err, size_t errlen)
{
	struct export_stats s = { 0 };
	struct store_stats ss;
	struct tep_handle *tep;
	struct store_iter *it = NULL;
	struct tdat_encoder enc;
	struct trace_seq seq;
	struct ktop_event ev;
	enum flags_style style;
	uint8_t *rec;
	struct outf o;
	uint64_t t0, t1, q, usecs;
	int ret;

	window(opts, &t0, &t1);
	if (!meta || !meta->nformats)
		return fail(err, errlen, -EINVAL, path, "no kernel event formats in this session: "
			    "cannot write the kernel's text format");
	tep = snapshot_meta_tep(meta);
	if (!tep)
		return fail(err, errlen, -EINVAL, path, "the event formats do not parse");
	rec = malloc(TDAT_REC_MAX);
	if (tdat_encoder_init(&enc, tep, st, meta->kallsyms) || !rec) {
		tdat_encoder_fini(&enc);
		free(rec);
		tep_free(tep);
		return fail(err, errlen, -ENOMEM, path, "out of memory");
	}
	ret = outf_open(&o, path, opts ? opts->file_flags : 0, err, errlen);
	if (ret)
		goto out_free;
	style = flags_style_detect(meta->release[0] ? meta->release : NULL,
				   meta_has_lazy_count(meta));
	store_get_stats(st, &ss);
	fprintf(o.fp, "# tracer: %s\n#\n", meta->tracer[0] ? meta->tracer : "nop");
	fprintf(o.fp, "# entries-in-buffer/entries-written: %llu/%llu   #P:%u\n#\n",
		(unsigned long long)ss.events, (unsigned long long)(ss.appended + ss.lost),
		store_ncpus(st));
	fputs("#                                _-----=> irqs-off/BH-disabled\n"
	      "#                               / _----=> need-resched\n"
	      "#                              | / _---=> hardirq/softirq\n"
	      "#                              || / _--=> preempt-depth\n"
	      "#                              ||| / _-=> migrate-disable\n"
	      "#                              |||| /     delay\n"
	      "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
	      "#              | |         |   |||||     |         |\n", o.fp);
	trace_seq_init(&seq);
	it = store_iter_new(st, t0, t1, NULL);
	if (!it) {
		ret = fail(err, errlen, -ENOMEM, path, "out of memory");
		goto out;
	}
	while (store_iter_next(it, &ev, &q)) {
		const struct ktop_schema_type *t = schema_get(store_schema(st), ev.type);
		struct tep_record r = { 0 };
		const char *comm = store_comm(st, ev.pid);
		char lat[FLAGS_COLUMN_MAX];
		int size;

		if (opts && opts->view && !viewfilter_match(opts->view, &ev))
			continue;
		size = tdat_encode(&enc, &ev, rec);
		if (!comm)
			comm = ev.pid ? "<...>" : "<idle>";
		flags_format(lat, style, ev.flags, ev.pc, 0);
		usecs = (ev.ts + 500) / 1000;
		if (text_tracer_line(o.fp, st, &ev, comm, lat, usecs)) {
			s.events++;
			continue;
		}
		fprintf(o.fp, "%16s-%-7d [%03u] %s %5llu.%06llu: %s: ", comm, ev.pid, ev.cpu, lat,
			(unsigned long long)(usecs / 1000000ull),
			(unsigned long long)(usecs % 1000000ull),
			t ? t->name : "unknown");
		if (size) {
			r.ts = ev.ts;
			r.cpu = ev.cpu;
			r.data = rec;
			r.size = size;
			r.record_size = size;
			trace_seq_reset(&seq);
			tep_print_event(tep, &seq, &r, "%s", TEP_PRINT_INFO);
			trace_seq_terminate(&seq);
			fprintf(o.fp, "%s\n", seq.buffer);
		} else {
			/* no kernel format (ktop's own marks): field=value */
			for (unsigned int k = 0; t && k < ev.nargs && k < t->nfields; k++) {
				if (t->fields[k].kind == KTOP_FK_STR || t->fields[k].kind == KTOP_FK_SYM)
					fprintf(o.fp, "%s%s=%s", k ? " " : "", t->fields[k].name,
						intern_str(store_strings(st), (uint32_t)ev.args[k]));
				else
					fprintf(o.fp, "%s%s=%llu", k ? " " : "", t->fields[k].name,
						(unsigned long long)ev.args[k]);
			}
			fputc('\n', o.fp);
			s.skipped++;
		}
		s.events++;
	}
	store_iter_free(it);
out:
	trace_seq_destroy(&seq);
	ret = outf_close(&o, path, ret, &s, err, errlen);
out_free:
	tdat_encoder_fini(&enc);
	free(rec);
	tep_free(tep);
	if (stats)
		*stats = s;
	return ret;
}

/* ---- CSV ---------------------------------------------------------------------------- */

static void csv_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

int export_csv(const char *path, struct store *st, const struct snapshot_meta *meta,
	       const struct export_opts *opts, struct export_stats *stats,
	       char *err, size_t errlen)
{
	enum store_key key = opts ? opts->csv_key : STORE_KEY_TYPE;
	struct store_filter f = { .pid = -1, .cpu = -1 };
	struct export_stats s = { 0 };
	struct store_count *c;
	struct outf o;
	uint64_t total = 0;
	size_t n, max = 65536;
	int ret;

	window(opts, &f.t0, &f.t1);
	c = calloc(max, sizeof(*c));
	if (!c)
		return fail(err, errlen, -ENOMEM, path, "out of memory");
	n = opts && opts->view ? viewfilter_count_by(opts->view, key, -1, f.t0, f.t1, c, max) :
				 store_count_by(st, key, &f, c, max);
	if (n > max)
		n = max;
	ret = outf_open(&o, path, opts ? opts->file_flags : 0, err, errlen);
	if (ret) {
		free(c);
		return ret;
	}
	for (size_t i = 0; i < n; i++)
		total += c[i].count;
	switch (key) {
	case STORE_KEY_CPU:
		fputs("cpu,events,percent\n", o.fp);
		break;
	case STORE_KEY_PID:
		fputs("pid,comm,events,percent\n", o.fp);
		break;
	case STORE_KEY_FUNC:
		fputs("function,calls,percent\n", o.fp);
		break;
	default:
		fputs("system,event,events,percent\n", o.fp);
	}
	for (size_t i = 0; i < n; i++) {
		double pct = total ? 100.0 * c[i].count / total : 0;

		switch (key) {
		case STORE_KEY_CPU:
			fprintf(o.fp, "%llu", (unsigned long long)c[i].key);
			break;
		case STORE_KEY_PID: {
			const char *comm = store_comm(st, (int32_t)c[i].key);

			fprintf(o.fp, "%lld,", (long long)(int32_t)c[i].key);
			csv_str(o.fp, comm ? comm : "");
			break;
		}
		case STORE_KEY_FUNC:
			csv_str(o.fp, intern_str(store_strings(st), (uint32_t)c[i].key));
			break;
		default: {
			const struct ktop_schema_type *t = schema_get(store_schema(st),
								      (uint16_t)c[i].key);

			csv_str(o.fp, t ? t->system : "");
			fputc(',', o.fp);
			csv_str(o.fp, t ? t->name : "");
		}
		}
		fprintf(o.fp, ",%llu,%.2f\n", (unsigned long long)c[i].count, pct);
		s.events += c[i].count;
	}
	free(c);
	ret = outf_close(&o, path, 0, &s, err, errlen);
	if (stats)
		*stats = s;
	return ret;
}

int export_write(enum export_format fmt, const char *path, struct store *st,
		 const struct snapshot_meta *meta, const struct export_opts *opts,
		 struct export_stats *stats, char *err, size_t errlen)
{
	switch (fmt) {
	case EXPORT_KTOP: {
		struct snapshot_write_opts so = { .t0 = opts ? opts->t0 : 0,
						  .t1 = opts ? opts->t1 : 0,
						  .file_flags = opts ? opts->file_flags : 0,
						  .view = opts ? opts->view : NULL };
		struct stat sb;
		int ret = snapshot_write(path, st, meta, &so, err, errlen);

		if (stats) {
			memset(stats, 0, sizeof(*stats));
			if (!ret && strcmp(path, "-") && !stat(path, &sb))
				stats->bytes = sb.st_size;
		}
		return ret;
	}
	case EXPORT_TRACEDAT:
		return export_tracedat(path, st, meta, opts, stats, err, errlen);
	case EXPORT_JSON:
		return export_json(path, st, meta, opts, stats, err, errlen);
	case EXPORT_TEXT:
		return export_text(path, st, meta, opts, stats, err, errlen);
	case EXPORT_CSV:
		return export_csv(path, st, meta, opts, stats, err, errlen);
	}
	return fail(err, errlen, -EINVAL, path, "unknown export format");
}
