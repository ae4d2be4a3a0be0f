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

#include "lib/array.h"
#include "format.h"
#include "lib/hashmap.h"
#include "lib/intern.h"
#include "lib/jsonw.h"
#include "json_stacks.h"
#include "store/schema.h"
#include "store/store.h"
#include "view/viewfilter.h"


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
	unsigned int	n;
	size_t		cap;
	struct jframe	*f;
};

struct jtasks {
	struct jstack	*v;	/* in order of first sight */
	size_t		n, cap;
	struct hmap	idx;	/* tid -> index in v */
};

static struct jstack *jtask(struct jtasks *t, int32_t pid)
{
	uint64_t *i;
	bool added;

	i = hmap_put(&t->idx, (uint32_t)pid, &added);
	if (!i)
		return NULL;
	if (added) {
		if (array_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v))) {
			hmap_del(&t->idx, (uint32_t)pid, NULL);
			return NULL;
		}
		*i = t->n++;
		t->v[*i] = (struct jstack){ .pid = pid };
	}
	return &t->v[*i];
}

static void json_args(FILE *fp, struct store *st, const struct ktop_schema_type *t,
		      const struct ktop_event *ev)
{
	struct intern *in = store_strings(st);

	fputs(",\"args\":{", fp);
	for (unsigned int k = 0; t && k < ev->nargs && k < t->nfields; k++) {
		if (k)
			fputc(',', fp);
		jsonw_str_fp(fp, t->fields[k].name);
		fputc(':', fp);
		switch (t->fields[k].kind) {
		case KTOP_FK_STR:
		case KTOP_FK_SYM:
			jsonw_str_fp(fp, intern_str(in, (uint32_t)ev->args[k]));
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
	jsonw_str_fp(fp, name);
	fputs_unlocked(",\"cat\":\"cpu", fp);
	put_u64(fp, cpu);
	fputc_unlocked('"', fp);
}

/* One export in progress. */
struct jout {
	FILE			*fp;
	struct store		*st;
	struct intern		*in;
	struct jtasks		tasks;
	struct json_sf		*sf;		/* stackFrames of the events' stacks */
	uint64_t		last_ts;
	bool			first;
};

/* Close @js's frames down to @depth (@inclusive: that depth too) as ends without an exit. */
static void json_close_to(struct jout *o, struct jstack *js, int32_t depth, bool inclusive,
			  const struct ktop_event *ev)
{
	while (js->n && (js->f[js->n - 1].depth > depth ||
			 (inclusive && js->f[js->n - 1].depth == depth))) {
		js->n--;
		json_head(o->fp, "E", intern_str(o->in, js->f[js->n].func), js->pid, ev->ts,
			  ev->cpu, &o->first);
		fputs(",\"args\":{\"exit_missing\":true}}", o->fp);
	}
}

/* A function_graph entry or exit: B/E slices on the task's track. Return: 0 or -ENOMEM. */
static int json_fgraph(struct jout *o, const struct ktop_event *ev)
{
	uint32_t func = (uint32_t)ev->args[0];
	int32_t depth = (int32_t)ev->args[1];
	struct jstack *js = jtask(&o->tasks, json_tid(ev->pid, ev->cpu));
	uint64_t dur;

	if (!js)
		return -ENOMEM;
	if (ev->type == KTOP_T_FGRAPH_ENTRY) {
		/* frames at this depth or deeper never returned: close them */
		json_close_to(o, js, depth, true, ev);
		if (array_grow((void **)&js->f, &js->cap, js->n + 1, sizeof(*js->f)))
			return -ENOMEM;
		js->f[js->n++] = (struct jframe){ func, depth };
		json_head(o->fp, "B", intern_str(o->in, func), js->pid, ev->ts, ev->cpu, &o->first);
		fputs("}", o->fp);
		return 0;
	}
	/* exit: close deeper frames, then this one or a complete slice */
	json_close_to(o, js, depth, false, ev);
	if (js->n && js->f[js->n - 1].depth == depth && js->f[js->n - 1].func == func) {
		js->n--;
		json_head(o->fp, "E", intern_str(o->in, func), js->pid, ev->ts, ev->cpu, &o->first);
		fputs("}", o->fp);
		return 0;
	}
	dur = ev->nargs > 3 && ev->args[3] > ev->args[2] ? ev->args[3] - ev->args[2] : 0;
	if (dur > ev->ts)
		dur = ev->ts;
	/* a call entered before the trace began: as long as it ran */
	json_head(o->fp, "X", intern_str(o->in, func), js->pid, ev->ts - dur, ev->cpu, &o->first);
	fputs(",\"dur\":", o->fp);
	json_ts(o->fp, dur);
	fputs(",\"args\":{\"entry_missing\":true}}", o->fp);
	return 0;
}

/* One event of the store. Return: 0 or -ENOMEM. */
static int json_event(struct jout *o, const struct ktop_event *ev)
{
	const struct ktop_schema_type *t = schema_get(store_schema(o->st), ev->type);
	const char *name = t ? t->name : "unknown";
	uint64_t sf;

	o->last_ts = ev->ts;
	if (ev->type == KTOP_T_FGRAPH_ENTRY || ev->type == KTOP_T_FGRAPH_EXIT)
		return json_fgraph(o, ev);
	if (ev->type == KTOP_T_TIMERLAT || ev->type == KTOP_T_OSNOISE) {
		char cname[48];

		snprintf(cname, sizeof(cname), "%s cpu%u", name, ev->cpu);
		json_head(o->fp, "C", cname, 0, ev->ts, ev->cpu, &o->first);
		if (ev->type == KTOP_T_TIMERLAT)
			fprintf(o->fp, ",\"args\":{\"%s_ns\":%llu}}",
				ev->nargs > 1 && (int64_t)ev->args[1] == 0 ? "irq" : "thread",
				(unsigned long long)(ev->nargs > 2 ? ev->args[2] : 0));
		else
			fprintf(o->fp, ",\"args\":{\"noise_ns\":%llu,\"max_sample_ns\":%llu}}",
				(unsigned long long)ev->args[1], (unsigned long long)ev->args[2]);
		return 0;
	}
	json_head(o->fp, "i", name, json_tid(ev->pid, ev->cpu), ev->ts, ev->cpu, &o->first);
	fputs(",\"s\":\"t\"", o->fp);
	sf = ev->stack ? json_sf_leaf(o->sf, ev->stack) : 0;
	if (sf) {
		fputs(",\"sf\":", o->fp);
		put_u64(o->fp, sf);
	}
	json_args(o->fp, o->st, t, ev);
	fputs("}", o->fp);
	return 0;
}

/* After the events: calls still open, lost events, task names. */
static void json_tail(struct jout *o, uint64_t t0, uint64_t t1)
{
	size_t nlost;

	for (size_t k = 0; k < o->tasks.n; k++) {
		struct jstack *js = &o->tasks.v[k];

		while (js->n) {
			js->n--;
			json_head(o->fp, "E", intern_str(o->in, js->f[js->n].func), js->pid,
				  o->last_ts, 0, &o->first);
			fputs(",\"args\":{\"open\":true}}", o->fp);
		}
	}
	/* lost events: global instants */
	nlost = store_lost_marks(o->st, t0, t1, NULL, 0);
	if (nlost) {
		struct store_lost *l = calloc(nlost, sizeof(*l));

		nlost = l ? store_lost_marks(o->st, t0, t1, l, nlost) : 0;
		for (size_t k = 0; k < nlost; k++) {
			json_head(o->fp, "i", "lost events", 0, l[k].ts, l[k].cpu, &o->first);
			fprintf(o->fp, ",\"s\":\"g\",\"args\":{\"cpu\":%u,\"count\":%llu,"
				"\"reason\":\"%s\"}}", l[k].cpu, (unsigned long long)l[k].count,
				store_lost_why_name(l[k].why));
		}
		free(l);
	}
	for (size_t k = 0; k < o->tasks.n; k++) {
		int32_t tid = o->tasks.v[k].pid;
		char idle[32];
		const char *c;

		if (tid >= JSON_IDLE_TID) {
			snprintf(idle, sizeof(idle), "swapper/%d", tid - JSON_IDLE_TID);
			c = idle;
		} else if (!(c = store_comm(o->st, tid))) {
			continue;
		}
		fprintf(o->fp, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,"
			"\"args\":{\"name\":", tid >= JSON_IDLE_TID ? 0 : tid, tid);
		jsonw_str_fp(o->fp, c);
		fputs("}}", o->fp);
	}
}

static void json_other_data(FILE *fp, const struct snapshot_meta *meta)
{
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{", fp);
	fputs("\"generator\":\"ktop\"", fp);
	if (meta && meta->release[0]) {
		fputs(",\"kernel\":", fp);
		jsonw_str_fp(fp, meta->release);
	}
	if (meta && meta->tracer[0]) {
		fputs(",\"tracer\":", fp);
		jsonw_str_fp(fp, meta->tracer);
	}
	if (meta && meta->save_note) {
		fputs(",\"save_note\":", fp);
		jsonw_str_fp(fp, meta->save_note);
	}
	fputs("},\"traceEvents\":[", fp);
}

static int json_save(const struct format_out *out, struct store *st,
		     const struct snapshot_meta *meta, const struct export_opts *opts,
		     struct export_stats *stats, char *err, size_t errlen)
{
	struct jout o = { .st = st, .in = store_strings(st), .first = true };
	struct export_stats s = { 0 };
	struct store_iter *it = NULL;
	struct format_file f;
	struct ktop_event ev;
	uint64_t t0, t1, seq;
	int ret;

	format_window(opts, &t0, &t1);
	ret = format_out_open(&f, out, opts ? opts->file_flags : 0, true, err, errlen);
	if (ret)
		return ret;
	o.fp = f.fp;
	o.sf = json_sf_new(st);
	json_other_data(o.fp, meta);
	it = store_iter_new(st, t0, t1, NULL);
	if (!it || !o.sf) {
		ret = err_set_at(err, errlen, -ENOMEM, out->path, "out of memory");
		goto out;
	}
	while (store_iter_next(it, &ev, &seq)) {
		if (!(seq & 4095) && opts && format_cancelled(opts->cancel)) {
			ret = format_cancel_err(err, errlen, out->path);
			goto out;
		}
		if (opts && opts->view && !viewfilter_match(opts->view, &ev))
			continue;
		s.events++;
		ret = json_event(&o, &ev);
		if (ret) {
			err_set_at(err, errlen, ret, out->path, "out of memory");
			goto out;
		}
	}
	json_tail(&o, t0, t1);
	fputs("\n]", o.fp);
	json_sf_write(o.sf, o.fp);
	fputs("}\n", o.fp);
out:
	store_iter_free(it);
	json_sf_free(o.sf);
	for (size_t k = 0; k < o.tasks.n; k++)
		free(o.tasks.v[k].f);
	free(o.tasks.v);
	hmap_destroy(&o.tasks.idx);
	ret = format_out_close(&f, ret, &s, err, errlen);
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
