// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Chrome trace-event JSON (Perfetto and chrome://tracing load it): function_graph
 * calls as nested B/E slices per task, other events as instants, timerlat and
 * osnoise samples as counters, lost events as global instants.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/format.h"
#include "intern.h"
#include "schema.h"
#include "store.h"
#include "viewfilter.h"


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

static int json_save(const struct format_out *out, struct store *st,
		     const struct snapshot_meta *meta, const struct export_opts *opts,
		     struct export_stats *stats, char *err, size_t errlen)
{
	struct schema *sc = store_schema(st);
	struct intern *in = store_strings(st);
	struct export_stats s = { 0 };
	struct jtasks tasks = { 0 };
	struct store_iter *it;
	struct ktop_event ev;
	struct format_file o;
	uint64_t t0, t1, seq, last_ts = 0;
	bool first = true;
	size_t nlost;
	int ret;

	format_window(opts, &t0, &t1);
	ret = format_out_open(&o, out, opts ? opts->file_flags : 0, true, err, errlen);
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
		ret = format_fail(err, errlen, -ENOMEM, out->path, "out of memory");
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
				ret = format_fail(err, errlen, -ENOMEM, out->path, "out of memory");
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
						ret = format_fail(err, errlen, -ENOMEM, out->path, "out of memory");
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
	ret = format_out_close(&o, ret, &s, err, errlen);
	if (stats)
		*stats = s;
	return ret;
}

static const char *const json_exts[] = { ".json", NULL };

const struct format_ops format_json = {
	.id	= FORMAT_JSON,
	.name	= "json",
	.exts	= json_exts,
	.save	= json_save,
};
