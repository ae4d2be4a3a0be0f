// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tdat_libtracecmd - what libtracecmd (trace-cmd's library, KernelShark's
 * loader) reads from a trace.dat: the independent reader the tests compare
 * ktop's reading and writing with.
 *
 *   tdat_libtracecmd FILE
 *
 * Opens FILE with tracecmd_open(), then for the top buffer and every
 * instance reads every record twice, as the two kinds of libtracecmd users
 * do: tracecmd_iterate_events() (trace-cmd report's loop) and, per CPU,
 * tracecmd_read_cpu_first() + tracecmd_read_data() (KernelShark's
 * libkshark-tepdata loader). Prints one line per buffer and CPU:
 *
 *   count buffer=NAME cpu=N events=N missed=N
 *
 * (NAME "top" for the top instance; missed: the records' missed-event
 * counts, -1 "some" counted as 1), then "version V compression Z clock C".
 * Exit status: 0; 1 when the two walks disagree; 2 when libtracecmd cannot
 * open the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace-cmd/trace-cmd.h>

/* exported by libtracecmd.so.1, declared only in trace-cmd-private.h */
int tracecmd_cpus(struct tracecmd_input *handle);
unsigned long tracecmd_get_in_file_version(struct tracecmd_input *handle);
int tracecmd_get_file_compress_proto(struct tracecmd_input *handle, const char **name,
				     const char **version);
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle);

#define MAX_CPUS	4096

struct counts {
	unsigned long long	events[MAX_CPUS];
	unsigned long long	missed[MAX_CPUS];
};

static int count_one(struct tracecmd_input *h, struct tep_record *r, int cpu, void *arg)
{
	struct counts *c = arg;

	if (cpu >= 0 && cpu < MAX_CPUS) {
		c->events[cpu]++;
		if (r->missed_events)
			c->missed[cpu] += r->missed_events > 0 ? (unsigned long long)r->missed_events : 1;
	}
	return 0;
}

/* Return: 0, or 1 when the iterator and the per-CPU reads disagree. */
static int buffer(struct tracecmd_input *h, const char *name)
{
	static struct counts it, rd;
	int cpus = tracecmd_cpus(h), bad = 0;

	memset(&it, 0, sizeof(it));
	memset(&rd, 0, sizeof(rd));
	tracecmd_iterate_events(h, NULL, 0, count_one, &it);
	for (int cpu = 0; cpu < cpus && cpu < MAX_CPUS; cpu++) {
		struct tep_record *r = tracecmd_read_cpu_first(h, cpu);

		while (r) {
			count_one(h, r, cpu, &rd);
			tracecmd_free_record(r);
			r = tracecmd_read_data(h, cpu);
		}
	}
	for (int cpu = 0; cpu < cpus && cpu < MAX_CPUS; cpu++) {
		printf("count buffer=%s cpu=%d events=%llu missed=%llu\n", name, cpu,
		       it.events[cpu], it.missed[cpu]);
		if (it.events[cpu] != rd.events[cpu]) {
			printf("DIFF buffer=%s cpu=%d: iterate %llu, read_data %llu\n", name, cpu,
			       it.events[cpu], rd.events[cpu]);
			bad = 1;
		}
	}
	return bad;
}

int main(int argc, char **argv)
{
	const char *zname = NULL, *zver = NULL, *clock;
	struct tracecmd_input *h;
	int bad;

	if (argc != 2) {
		fprintf(stderr, "usage: tdat_libtracecmd FILE\n");
		return 2;
	}
	tracecmd_set_loglevel(TEP_LOG_NONE);
	h = tracecmd_open(argv[1], TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h) {
		fprintf(stderr, "tdat_libtracecmd: libtracecmd cannot open %s\n", argv[1]);
		return 2;
	}
	bad = buffer(h, "top");
	for (int i = 0; i < tracecmd_buffer_instances(h); i++) {
		struct tracecmd_input *b = tracecmd_buffer_instance_handle(h, i);
		const char *name = tracecmd_buffer_instance_name(h, i);

		if (!b) {
			printf("DIFF instance %d (%s): no handle\n", i, name ? name : "?");
			bad = 1;
			continue;
		}
		bad |= buffer(b, name ? name : "?");
		tracecmd_close(b);
	}
	tracecmd_get_file_compress_proto(h, &zname, &zver);
	clock = tracecmd_get_trace_clock(h);
	printf("version %lu compression %s clock %s\n", tracecmd_get_in_file_version(h),
	       zname ? zname : "none", clock ? clock : "?");
	tracecmd_close(h);
	return bad;
}
