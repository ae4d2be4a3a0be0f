// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's trace text: the header of the trace file, then one line per
 * event with the latency column (src/model/flags.h) and the event text printed by
 * libtraceevent from the event's format (its print fmt).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "model/flags.h"
#include "krecord.h"
#include "format.h"
#include "lib/intern.h"
#include "store/schema.h"
#include "store/store.h"
#include "view/viewfilter.h"



/*
 * The duration column of the kernel's function_graph layout
 * (kernel/trace/trace_functions_graph.c): a mark for long calls ('+' over
 * 10 us ... '$' over 1 s), the time in microseconds with at most seven
 * digits, " us ", padded to the column, then "|  ".
 */
static void text_fgraph_duration(FILE *fp, uint64_t ns)
{
	static const struct { uint64_t over; char mark; } marks[] = {
		{ 1000000000ull, '$' }, { 100000000ull, '@' }, { 10000000ull, '*' },
		{ 1000000ull, '#' }, { 100000ull, '!' }, { 10000ull, '+' },
	};
	char mark = ' ', usecs[24], nsecs[8];
	int len;

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		if (ns > marks[i].over) {
			mark = marks[i].mark;
			break;
		}
	}
	len = snprintf(usecs, sizeof(usecs), "%llu", (unsigned long long)(ns / 1000));
	fprintf(fp, "%c %s", mark, usecs);
	if (len < 7) {
		/* the nanoseconds, cut so that the figure keeps to seven digits */
		snprintf(nsecs, (size_t)(8 - len < 5 ? 8 - len : 5), "%03u",
			 (unsigned int)(ns % 1000));
		fprintf(fp, ".%s", nsecs);
		len += (int)strlen(nsecs) + 1;
	}
	fprintf(fp, " us %*s|  ", len < 8 ? 8 - len : 0, "");
}

/*
 * function_graph's records in the graph layout, after the event columns:
 * an entry "func() {" at its depth, an exit "}" with the call's duration and
 * the function's name in a comment, as the kernel's funcgraph-tail option
 * writes it (the entry may be in another file, or lost). One line per
 * record: a leaf call is two lines, where the kernel's file merges them.
 * Return: true when @ev was printed here.
 */
static bool text_fgraph_line(FILE *fp, struct store *st, const struct ktop_event *ev,
			     const char *comm, const char *lat, uint64_t usecs)
{
	const char *func = intern_str(store_strings(st), (uint32_t)ev->args[0]);
	int depth = ev->nargs > 1 && (int64_t)ev->args[1] > 0 && ev->args[1] < 1000 ?
		    (int)ev->args[1] : 0;

	if (ev->type != KTOP_T_FGRAPH_ENTRY && ev->type != KTOP_T_FGRAPH_EXIT)
		return false;
	fprintf(fp, "%16s-%-7d [%03u] %s %5llu.%06llu: ", comm, ev->pid, ev->cpu, lat,
		(unsigned long long)(usecs / 1000000ull), (unsigned long long)(usecs % 1000000ull));
	if (ev->type == KTOP_T_FGRAPH_ENTRY) {
		fprintf(fp, "%14s|  %*s%s() {\n", "", depth * 2, "", func);
		return true;
	}
	text_fgraph_duration(fp, ev->nargs > 3 && ev->args[3] > ev->args[2] ?
			     ev->args[3] - ev->args[2] : 0);
	fprintf(fp, "%*s} /* %s */\n", depth * 2, "", func);
	return true;
}

/*
 * The ftrace tracers' own records are printed by the kernel without the
 * event name, in the tracer's layout (kernel/trace/trace_output.c):
 * function "func <-parent", timerlat "#seq context irq timer_latency N ns",
 * osnoise "runtime noise %avail max hw nmi irq sirq thread", and
 * function_graph's call graph (text_fgraph_line).
 * Return: true when @ev was printed here.
 */
static bool text_tracer_line(FILE *fp, struct store *st, const struct ktop_event *ev,
			     const char *comm, const char *lat, uint64_t usecs)
{
	static const char *const ctx[] = { "irq", "thread", "user-ret" };
	struct intern *in = store_strings(st);

	if (text_fgraph_line(fp, st, ev, comm, lat, usecs))
		return true;
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

/* The legend of osnoise's and timerlat's own header on a PREEMPT_RT kernel (seven columns). */
static const char rt_legend[] =
	"#                                _-------=> irqs-off\n"
	"#                               / _------=> need-resched\n"
	"#                              | / _-----=> need-resched-lazy\n"
	"#                              || / _----=> hardirq/softirq\n"
	"#                              ||| / _---=> preempt-depth\n"
	"#                              |||| / _--=> preempt-lazy-depth\n"
	"#                              ||||| / _-=> migrate-disable\n";

/* Their own column headers, below rt_legend: osnoise's and timerlat's. */
static const struct {
	const char	*tracer;
	const char	*columns;
} rt_headers[] = {
	{ "osnoise",
	  "#                              |||||| /                                     "
	  "          MAX\n"
	  "#                              ||||| /                                     "
	  "        SINGLE      Interference counters:\n"
	  "#                              |||||||               RUNTIME      NOISE  %% OF"
	  " CPU  NOISE    +-----------------------------+\n"
	  "#           TASK-PID      CPU# |||||||   TIMESTAMP    IN US       IN US  AVAIL"
	  "ABLE  IN US     HW    NMI    IRQ   SIRQ THREAD\n"
	  "#              | |         |   |||||||      |           |             |    |  "
	  "          |      |      |      |      |      |\n" },
	{ "timerlat",
	  "#                              |||||| /\n"
	  "#                              |||||||             ACTIVATION\n"
	  "#           TASK-PID      CPU# |||||||   TIMESTAMP    ID            CONTEXT  "
	  "              LATENCY\n"
	  "#              | |         |   |||||||      |         |                  |  "
	  "                     |\n" },
};

/*
 * The header: the tracer, the counts, and the legend of the latency columns
 * with as many columns as the rows have (flags_format). osnoise and timerlat
 * print their own header instead (kernel/trace/trace_osnoise.c), without the
 * counts; on PREEMPT_RT kernels, the only ones their layout is known from
 * here, it has seven columns whatever the rows have.
 */
static void text_header(FILE *fp, const struct snapshot_meta *meta, enum flags_style style,
			struct store *st)
{
	const char *tracer = meta->tracer[0] ? meta->tracer : "nop";
	bool rt = strstr(meta->release, "-rt") != NULL;
	struct store_stats ss;

	fprintf(fp, "# tracer: %s\n#\n", tracer);
	if (meta->save_note) {
		/* why the flight recorder wrote it, as comment lines */
		for (const char *l = meta->save_note; *l;) {
			size_t n = strcspn(l, "\n");

			fprintf(fp, "# %.*s\n", (int)n, l);
			l += n + (l[n] == '\n');
		}
		fputs("#\n", fp);
	}
	for (size_t i = 0; rt && i < sizeof(rt_headers) / sizeof(rt_headers[0]); i++) {
		if (!strcmp(tracer, rt_headers[i].tracer)) {
			fprintf(fp, "%s%s", rt_legend, rt_headers[i].columns);
			return;
		}
	}
	store_get_stats(st, &ss);
	fprintf(fp, "# entries-in-buffer/entries-written: %llu/%llu   #P:%u\n#\n",
		(unsigned long long)ss.events, (unsigned long long)(ss.appended + ss.lost),
		store_ncpus(st));
	if (style == FLAGS_STYLE_RT_LAZY_COUNT) {
		fputs("#                                _-------=> irqs-off/BH-disabled\n"
		      "#                               / _------=> need-resched\n"
		      "#                              | / _-----=> need-resched-lazy\n"
		      "#                              || / _----=> hardirq/softirq\n"
		      "#                              ||| / _---=> preempt-depth\n"
		      "#                              |||| / _--=> preempt-lazy-depth\n"
		      "#                              ||||| / _-=> migrate-disable\n"
		      "#                              |||||| /     delay\n"
		      "#           TASK-PID     CPU#  |||||||  TIMESTAMP  FUNCTION\n"
		      "#              | |         |   |||||||      |         |\n", fp);
		return;
	}
	fputs("#                                _-----=> irqs-off/BH-disabled\n"
	      "#                               / _----=> need-resched\n"
	      "#                              | / _---=> hardirq/softirq\n"
	      "#                              || / _--=> preempt-depth\n"
	      "#                              ||| / _-=> migrate-disable\n"
	      "#                              |||| /     delay\n"
	      "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
	      "#              | |         |   |||||     |         |\n", fp);
}

static int text_save(const struct format_out *out, struct store *st,
		     const struct snapshot_meta *meta, const struct export_opts *opts,
		     struct export_stats *stats, char *err, size_t errlen)
{
	struct export_stats s = { 0 };
	struct tep_handle *tep;
	struct store_iter *it = NULL;
	struct krecord kr;
	struct trace_seq seq;
	struct ktop_event ev;
	enum flags_style style;
	uint8_t *rec;
	struct format_file o;
	uint64_t t0, t1, q, usecs;
	int ret;

	format_window(opts, &t0, &t1);
	if (!meta || !meta->nformats)
		return err_set_at(err, errlen, -EINVAL, out->path,
				  "no kernel event formats in this session: "
				  "cannot write the kernel's text format");
	tep = snapshot_meta_tep(meta);
	if (!tep)
		return err_set_at(err, errlen, -EINVAL, out->path,
				  "the event formats do not parse");
	rec = malloc(KRECORD_MAX);
	if (krecord_init(&kr, tep, st, meta) || !rec) {
		krecord_fini(&kr);
		free(rec);
		tep_free(tep);
		return err_set_at(err, errlen, -ENOMEM, out->path, "out of memory");
	}
	ret = format_out_open(&o, out, opts ? opts->file_flags : 0, true, err, errlen);
	if (ret)
		goto out_free;
	style = flags_style_of_meta(meta);
	text_header(o.fp, meta, style, st);
	trace_seq_init(&seq);
	it = store_iter_new(st, t0, t1, NULL);
	if (!it) {
		ret = err_set_at(err, errlen, -ENOMEM, out->path, "out of memory");
		goto out;
	}
	while (store_iter_next(it, &ev, &q)) {
		const struct ktop_schema_type *t = schema_get(store_schema(st), ev.type);
		struct tep_record r = { 0 };
		const char *comm = store_comm(st, ev.pid);
		char lat[FLAGS_COLUMN_MAX];
		int size;

		if (!(q & 4095) && opts && format_cancelled(opts->cancel)) {
			ret = format_cancel_err(err, errlen, out->path);
			goto out;
		}
		if (opts && opts->view && !viewfilter_match(opts->view, &ev))
			continue;
		size = krecord_encode(&kr, &ev, rec);
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
out:
	store_iter_free(it);
	trace_seq_destroy(&seq);
	ret = format_out_close(&o, ret, &s, err, errlen);
out_free:
	krecord_fini(&kr);
	free(rec);
	tep_free(tep);
	if (stats)
		*stats = s;
	return ret;
}

static const char *const text_exts[] = { ".txt", ".trace", NULL };

const struct format_ops format_text = {
	.id	= FORMAT_TEXT,
	.name	= "text",
	.exts	= text_exts,
	.save	= text_save,
};
