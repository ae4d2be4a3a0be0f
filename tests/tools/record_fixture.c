// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * record_fixture - record raw ring-buffer pages of a real kernel into a
 * fixture directory for the decoder tests and benchmarks.
 *
 * Usage (root):
 *   record_fixture -o DIR [-e SYSTEM[:EVENT]]... [-p TRACER] [-l FILTER]...
 *                  [-g GRAPHFUNC]... [-n NOTRACE]... [-b BUFFER_KB] [-t SECONDS]
 *                  [-s SYSTEM:EVENT]... [-U] [-T] [-x] [-- CMD [ARG]...]
 *
 *   -o DIR      output directory (created; existing files are overwritten)
 *   -e EVENT    enable SYSTEM or SYSTEM:EVENT (repeatable)
 *   -p TRACER   current_tracer: function, function_graph, osnoise, timerlat, ...
 *   -l FILTER   set_ftrace_filter line (repeatable), -n for set_ftrace_notrace,
 *   -g FUNC     set_graph_function line (repeatable)
 *   -s EVENT    the stacktrace trigger on SYSTEM:EVENT (repeatable; the event must
 *               be enabled with -e): an ftrace:kernel_stack record after each
 *   -U          options/userstacktrace: an ftrace:user_stack record after every
 *               event (removed again on exit, as the triggers are)
 *   -b KB       per-CPU buffer size in KB (default 256: keeps fixtures small)
 *   -t SECONDS  trace this long (default 1, or 0 when a command is given);
 *               with a command, trace for the command and then this long more
 *   -T          use the top-level buffer instead of an instance (tracers that
 *               a kernel allows at top level only, e.g. function_graph on 6.1);
 *               refused unless the top level is idle (tracer nop, no events,
 *               no filters), and put back to exactly that state afterwards
 *   -x          do not save trace.txt (the kernel's text for the records)
 *
 * cpuN.raw and trace.txt are written gzip-compressed (.gz); src/ingest/fixture.c
 * reads either form.
 *   -- CMD      the workload, run once tracing is on
 *
 * What it does: creates its own instance ktop-fixture-<pid> (or takes the
 * idle top level with -T), sets the buffer size, enables the events and the
 * tracer, runs the workload or sleeps, turns tracing off, saves the kernel's
 * text rendering of the buffer (trace.txt, non-consuming), then reads every
 * CPU's raw pages through tracefs_cpu_read (trace_pipe_raw, non-blocking) into
 * DIR/cpuN.raw. It saves alongside: header_page, the format of every enabled
 * event (and every ftrace/ and osnoise/ format when a tracer is set), the
 * kallsyms lines that the records' addresses fall in, saved_cmdlines, each
 * CPU's per_cpu/cpuN/stats (statsN) and a meta file (release, machine,
 * command line, date, cpus, page size, long size, tracer, events). Finally it
 * removes its instance (or resets the top level), on every exit path
 * including SIGINT/SIGTERM/SIGHUP.
 *
 * Examples:
 *   record_fixture -o tests/fixtures/host-sched -e sched -e raw_syscalls -e irq \
 *                  -e timer -- sh -c 'for i in 1 2 3; do ls / >/dev/null; done'
 *   record_fixture -o tests/fixtures/rt-function -p function -l 'vfs_*' -t 1
 *   record_fixture -o tests/fixtures/rt-fgraph -p function_graph -g vfs_read -T \
 *                  -- cat /proc/version
 *   record_fixture -o tests/fixtures/rt-timerlat -p timerlat -e osnoise -t 1
 *
 * The tool is self-contained (libtracefs, libtraceevent and src/ingest/fixture.c), so
 * the qemu rig can copy it into a guest initramfs.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tracefs/tracefs.h>
#include <traceevent/event-parse.h>
#include <zlib.h>

#include "ingest/fixture.h"

#define MAX_ITEMS	64

struct opts {
	const char	*out;
	const char	*events[MAX_ITEMS];
	int		nevents;
	const char	*filters[MAX_ITEMS];
	int		nfilters;
	const char	*notrace[MAX_ITEMS];
	int		nnotrace;
	const char	*graph[MAX_ITEMS];
	int		ngraph;
	const char	*tracer;
	unsigned long	buffer_kb;
	double		seconds;
	bool		seconds_set;
	bool		top_level;
	bool		no_text;
	const char	*stacks[MAX_ITEMS];	/* -s */
	int		nstacks;
	bool		ustack;			/* -U */
	char		**cmd;
	char		cmdline[4096];
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

static void usage(void)
{
	fprintf(stderr, "usage: record_fixture -o DIR [-e SYS[:EVENT]]... [-p TRACER] "
		"[-l FILTER]... [-n NOTRACE]... [-g FUNC]... [-b KB] [-t SEC] "
		"[-s SYS:EVENT]... [-U] [-T] [-x] [-- CMD...]\n");
	exit(2);
}

static int write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	if (len && fwrite(buf, 1, len, f) != len) {
		fclose(f);
		return -EIO;
	}
	return fclose(f) ? -errno : 0;
}

/* @path.gz, compressed: the fixtures are committed, and trace text shrinks ~10x. */
static int write_file_gz(const char *path, const void *buf, size_t len)
{
	char gzpath[4096 + 8];
	gzFile gz;
	int ret = 0;

	snprintf(gzpath, sizeof(gzpath), "%s.gz", path);
	gz = gzopen(gzpath, "wb9e");
	if (!gz)
		return -errno;
	if (len && gzwrite(gz, buf, len) != (int)len)
		ret = -EIO;
	if (gzclose(gz) != Z_OK)
		ret = -EIO;
	return ret;
}

static int mkdir_p(const char *path)
{
	char tmp[4096];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Copy tracefs file @rel (relative to the tracing dir) to @out/@dst. */
static int copy_tracefs(const char *rel, const char *out, const char *dst)
{
	char src[4096], path[4096 + 512], *buf;
	size_t len;
	int ret;

	snprintf(src, sizeof(src), "%s/%s", tracefs_tracing_dir(), rel);
	buf = fixture_read_file(src, &len);
	if (!buf)
		return -errno;
	snprintf(path, sizeof(path), "%s/%s", out, dst);
	ret = write_file(path, buf, len);
	free(buf);
	return ret;
}

static int copy_format(const char *out, const char *system, const char *event)
{
	char rel[1024], dir[4096 + 1024];
	int ret;

	snprintf(dir, sizeof(dir), "%s/events/%s/%s", out, system, event);
	ret = mkdir_p(dir);
	if (ret)
		return ret;
	snprintf(rel, sizeof(rel), "events/%s/%s/format", system, event);
	snprintf(dir, sizeof(dir), "events/%s/%s/format", system, event);
	return copy_tracefs(rel, out, dir);
}

/* Copy every format of @system. */
static void copy_system(const char *out, const char *system)
{
	char **events = tracefs_system_events(NULL, system);

	for (int i = 0; events && events[i]; i++)
		copy_format(out, system, events[i]);
	tracefs_list_free(events);
}

/* ---- state ------------------------------------------------------------ */

static struct tracefs_instance *inst;	/* NULL: the top level */
static bool instance_made;
static bool top_taken;

static int set_file(const char *file, const char *val)
{
	int ret = tracefs_instance_file_write(inst, file, val);

	if (ret < 0) {
		fprintf(stderr, "record_fixture: write '%s' to %s: %s\n", val, file,
			strerror(errno));
		return -1;
	}
	return 0;
}

static int append_file(const char *file, const char *val)
{
	int ret = tracefs_instance_file_append(inst, file, val);

	if (ret < 0) {
		fprintf(stderr, "record_fixture: append '%s' to %s: %s\n", val, file,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* A file whose content means "nothing set": empty or only # comment lines. */
static bool file_idle(const char *file)
{
	char *s = tracefs_instance_file_read(inst, file, NULL);
	bool idle = true;

	if (!s)
		return true;	/* absent (not built in) or unreadable: nothing to undo */
	for (char *l = s; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
		if (*l != '#' && *l != '\n')
			idle = false;
	free(s);
	return idle;
}

static char *saved_buffer_kb;
static int saved_tracing_on = 1;
static const struct opts *set_opts;	/* what setup() set, for cleanup() */

/* The trigger file of "sys:event". */
static void trigger_file(const char *spec, char *buf, size_t len)
{
	const char *colon = strchr(spec, ':');

	snprintf(buf, len, "events/%.*s/%s/trigger", colon ? (int)(colon - spec) : 0, spec,
		 colon ? colon + 1 : spec);
}

static int top_level_check(void)
{
	char *tracer = tracefs_instance_file_read(NULL, "current_tracer", NULL);
	bool ok = tracer && !strcmp(tracer, "nop\n");

	free(tracer);
	if (!ok || !file_idle("set_event") || !file_idle("set_ftrace_filter") ||
	    !file_idle("set_ftrace_notrace") || !file_idle("set_graph_function")) {
		fprintf(stderr, "record_fixture: -T: the top level is in use (tracer, events "
			"or filters set); refusing to touch it\n");
		return -1;
	}
	saved_buffer_kb = tracefs_instance_file_read(NULL, "buffer_size_kb", NULL);
	saved_tracing_on = tracefs_trace_is_on(NULL);
	return 0;
}

static void cleanup(void)
{
	if (!instance_made && !top_taken)
		return;
	tracefs_trace_off(inst);
	for (int i = 0; set_opts && i < set_opts->nstacks; i++) {
		char file[512];

		trigger_file(set_opts->stacks[i], file, sizeof(file));
		tracefs_instance_file_write(inst, file, "!stacktrace");
	}
	if (set_opts && set_opts->ustack)
		tracefs_instance_file_write(inst, "options/userstacktrace", "0");
	tracefs_instance_file_write(inst, "current_tracer", "nop");
	tracefs_event_disable(inst, NULL, NULL);
	tracefs_instance_file_clear(inst, "set_ftrace_filter");
	tracefs_instance_file_clear(inst, "set_ftrace_notrace");
	tracefs_instance_file_clear(inst, "set_graph_function");
	if (instance_made) {
		tracefs_instance_destroy(inst);
		tracefs_instance_free(inst);
	} else {
		/* top level: it was idle; give it back that way */
		tracefs_instance_file_clear(NULL, "trace");
		if (saved_buffer_kb) {
			const char *x = strstr(saved_buffer_kb, "(expanded:");
			char kb[32];

			/*
			 * "7 (expanded: 1408)" on a fresh boot: the tracer has
			 * allocated it since, for good; 7 would shrink it to 7 KB
			 */
			snprintf(kb, sizeof(kb), "%lu", strtoul(x ? x + strlen("(expanded:") :
							       saved_buffer_kb, NULL, 10));
			tracefs_instance_file_write(NULL, "buffer_size_kb", kb);
		}
		if (saved_tracing_on > 0)
			tracefs_trace_on(NULL);
	}
	free(saved_buffer_kb);
	saved_buffer_kb = NULL;
	inst = NULL;
	instance_made = false;
	top_taken = false;
}

static int setup(const struct opts *o)
{
	char name[64], kb[32];

	if (o->top_level) {
		inst = NULL;
		if (top_level_check())
			return -1;
		top_taken = true;
	} else {
		snprintf(name, sizeof(name), "ktop-fixture-%d", (int)getpid());
		inst = tracefs_instance_create(name);
		if (!inst) {
			fprintf(stderr, "record_fixture: create instance %s: %s\n", name,
				strerror(errno));
			return -1;
		}
		instance_made = true;
	}
	if (tracefs_trace_off(inst) < 0)
		return -1;
	snprintf(kb, sizeof(kb), "%lu", o->buffer_kb);
	if (set_file("buffer_size_kb", kb))
		return -1;
	if (tracefs_instance_file_clear(inst, "trace") < 0)
		return -1;
	for (int i = 0; i < o->nevents; i++) {
		char sys[256], *ev;

		snprintf(sys, sizeof(sys), "%s", o->events[i]);
		ev = strchr(sys, ':');
		if (!ev)
			ev = strchr(sys, '/');
		if (ev)
			*ev++ = '\0';
		if (tracefs_event_enable(inst, sys, ev) < 0) {
			fprintf(stderr, "record_fixture: enable %s: %s\n", o->events[i],
				strerror(errno));
			return -1;
		}
	}
	for (int i = 0; i < o->nfilters; i++)
		if (append_file("set_ftrace_filter", o->filters[i]))
			return -1;
	for (int i = 0; i < o->nnotrace; i++)
		if (append_file("set_ftrace_notrace", o->notrace[i]))
			return -1;
	for (int i = 0; i < o->ngraph; i++)
		if (append_file("set_graph_function", o->graph[i]))
			return -1;
	if (o->tracer && set_file("current_tracer", o->tracer))
		return -1;
	/* after the events: a trigger fires on a disabled event too */
	set_opts = o;
	for (int i = 0; i < o->nstacks; i++) {
		char file[512];

		trigger_file(o->stacks[i], file, sizeof(file));
		if (set_file(file, "stacktrace"))
			return -1;
	}
	if (o->ustack && set_file("options/userstacktrace", "1"))
		return -1;
	return 0;
}

static void sleep_for(double sec)
{
	struct timespec ts = { (time_t)sec, (long)((sec - (time_t)sec) * 1e9) };

	while (!stop && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int run(const struct opts *o)
{
	pid_t child = -1;
	int status;

	if (tracefs_trace_on(inst) < 0)
		return -1;
	if (o->cmd) {
		child = fork();
		if (child < 0)
			return -1;
		if (!child) {
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			execvp(o->cmd[0], o->cmd);
			fprintf(stderr, "record_fixture: exec %s: %s\n", o->cmd[0],
				strerror(errno));
			_exit(127);
		}
		while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
			if (stop)
				kill(child, SIGTERM);
		}
	}
	sleep_for(o->seconds);
	tracefs_trace_off(inst);
	if (o->cmd && (!WIFEXITED(status) || WEXITSTATUS(status)))
		fprintf(stderr, "record_fixture: note: the workload exited with status %d\n",
			WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}

/* ---- saving ------------------------------------------------------------- */

static int save_text(const struct opts *o)
{
	char path[4096];
	size_t len = 0;
	char *s;
	int ret;

	s = tracefs_instance_file_read(inst, "trace", NULL);
	if (!s)
		return -errno;
	len = strlen(s);
	snprintf(path, sizeof(path), "%s/trace.txt", o->out);
	ret = write_file_gz(path, s, len);
	free(s);
	return ret;
}

/* The sub-buffer size trace_pipe_raw gives (a page unless changed by the kernel). */
static long subbuf_size;

static int save_raw(const struct opts *o, int ncpus, long *pages_out)
{
	long total = 0;

	for (int cpu = 0; cpu < ncpus; cpu++) {
		struct tracefs_cpu *tcpu;
		size_t len = 0, cap = 0;
		char path[4096], *all = NULL;
		int r, size, ret;

		char *stats;

		tcpu = tracefs_cpu_open(inst, cpu, true);
		if (!tcpu)
			continue;	/* offline CPU */
		/* before reading: overrun there must match the pages' missed-event marks */
		snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", cpu);
		stats = tracefs_instance_file_read(inst, path, NULL);
		if (stats) {
			snprintf(path, sizeof(path), "%s/stats%d", o->out, cpu);
			write_file(path, stats, strlen(stats));
			free(stats);
		}
		size = tracefs_cpu_read_size(tcpu);
		subbuf_size = size;
		for (;;) {
			if (len + size > cap) {
				char *p = realloc(all, cap = cap ? cap * 2 : 64 * (size_t)size);

				if (!p) {
					free(all);
					tracefs_cpu_close(tcpu);
					return -ENOMEM;
				}
				all = p;
			}
			r = tracefs_cpu_read(tcpu, all + len, true);
			if (r <= 0)
				r = tracefs_cpu_flush(tcpu, all + len);
			if (r <= 0)
				break;
			/* always whole pages: the loader indexes by page size */
			memset(all + len + r, 0, size - r);
			len += size;
			total++;
		}
		tracefs_cpu_close(tcpu);
		snprintf(path, sizeof(path), "%s/cpu%d.raw", o->out, cpu);
		ret = write_file_gz(path, all, len);
		free(all);
		if (ret)
			return ret;
	}
	*pages_out = total;
	return 0;
}

/* Sorted /proc/kallsyms for the subset. */
struct ksym {
	unsigned long long	addr;
	char			*line;
	bool			keep;
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct scan {
	struct tep_handle	*tep;
	struct ksym		*syms;
	size_t			nsyms;
	int			long_size;
	bool			seen[65536];
	long			records;
};

static void ksym_mark(struct scan *sc, unsigned long long addr)
{
	size_t lo = 0, hi = sc->nsyms;

	if (!sc->nsyms || addr < sc->syms[0].addr)
		return;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (sc->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (lo + 1 == sc->nsyms)
		return;		/* past the last symbol: not a text address */
	/* every alias at this address, and the next symbol to bound it */
	for (size_t i = lo; i > 0 && sc->syms[i - 1].addr == sc->syms[lo].addr; i--)
		sc->syms[i - 1].keep = true;
	sc->syms[lo].keep = true;
	for (size_t i = lo + 1; i < sc->nsyms; i++) {
		sc->syms[i].keep = true;
		if (sc->syms[i].addr != sc->syms[lo + 1].addr)
			break;
	}
}

static int scan_record(void *arg, unsigned int cpu, unsigned long long ts, void *data, int size)
{
	struct scan *sc = arg;
	struct tep_event *ev;
	int id;

	sc->records++;
	id = tep_data_type(sc->tep, &(struct tep_record){ .data = data, .size = size });
	if (id < 0 || id >= 65536)
		return 0;
	sc->seen[id] = true;
	ev = tep_find_event(sc->tep, id);
	if (!ev)
		return 0;
	if (!strcmp(ev->system, "ftrace") && !strcmp(ev->name, "kernel_stack")) {
		/* "caller[8]" in the format, @size callers in the record */
		struct tep_format_field *n = tep_find_field(ev, "size");
		struct tep_format_field *c = tep_find_field(ev, "caller");

		for (unsigned long long i = 0; n && c && i < tep_read_number(sc->tep,
		     (char *)data + n->offset, 4) && c->offset + (i + 1) * sc->long_size <=
		     (unsigned long long)size; i++)
			ksym_mark(sc, tep_read_number(sc->tep, (char *)data + c->offset +
						      i * sc->long_size, sc->long_size));
		return 0;
	}
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next) {
		unsigned long long v;

		if (f->size != sc->long_size || (f->flags & (TEP_FIELD_IS_ARRAY |
							    TEP_FIELD_IS_DYNAMIC)))
			continue;
		if (f->offset + f->size > size)
			continue;
		v = tep_read_number(sc->tep, (char *)data + f->offset, f->size);
		ksym_mark(sc, v);
	}
	return 0;
}

static int save_kallsyms_and_formats(const struct opts *o, long *records)
{
	struct fixture *fx;
	struct scan *sc;
	char *all, *line, *save = NULL, path[4096];
	size_t cap = 0;
	FILE *f;
	int ret = 0;

	fx = fixture_open(o->out);
	if (!fx) {
		fprintf(stderr, "record_fixture: cannot reload %s: %s\n", o->out, strerror(errno));
		return -1;
	}
	sc = calloc(1, sizeof(*sc));
	all = fixture_read_file("/proc/kallsyms", NULL);
	if (!sc || !all) {
		ret = -ENOMEM;
		goto out;
	}
	sc->tep = fixture_tep(fx);
	sc->long_size = tep_get_long_size(sc->tep) ? tep_get_long_size(sc->tep) : 8;
	for (line = strtok_r(all, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sc->nsyms == cap) {
			struct ksym *p;

			cap = cap ? cap * 2 : 65536;
			p = realloc(sc->syms, cap * sizeof(*p));
			if (!p) {
				ret = -ENOMEM;
				goto out;
			}
			sc->syms = p;
		}
		sc->syms[sc->nsyms].addr = strtoull(line, NULL, 16);
		sc->syms[sc->nsyms].line = line;
		sc->syms[sc->nsyms].keep = false;
		if (sc->syms[sc->nsyms].addr)
			sc->nsyms++;
	}
	qsort(sc->syms, sc->nsyms, sizeof(*sc->syms), ksym_cmp);
	for (unsigned int cpu = 0; cpu < fixture_ncpus(fx); cpu++)
		fixture_for_each_record(fx, cpu, scan_record, sc);
	*records = sc->records;

	snprintf(path, sizeof(path), "%s/kallsyms", o->out);
	f = fopen(path, "we");
	if (!f) {
		ret = -errno;
		goto out;
	}
	for (size_t i = 0; i < sc->nsyms; i++)
		if (sc->syms[i].keep)
			fprintf(f, "%s\n", sc->syms[i].line);
	fclose(f);
	if (!sc->nsyms)
		fprintf(stderr, "record_fixture: note: /proc/kallsyms shows no addresses "
			"(not root, or kptr_restrict): kallsyms left empty\n");
out:
	if (sc)
		free(sc->syms);
	free(sc);
	free(all);
	fixture_close(fx);
	return ret;
}

/* Formats of the enabled events (set_event lists them as system:event). */
static void save_enabled_formats(const struct opts *o)
{
	char *s = tracefs_instance_file_read(inst, "set_event", NULL), *save = NULL;

	for (char *l = s ? strtok_r(s, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
		char *ev = strchr(l, ':');

		if (!ev)
			continue;
		*ev++ = '\0';
		copy_format(o->out, l, ev);
	}
	free(s);
}

static void save_meta(const struct opts *o, int ncpus, long pages, long records)
{
	char path[4096], date[64], *clock;
	struct utsname u;
	time_t now = time(NULL);
	FILE *f;

	snprintf(path, sizeof(path), "%s/meta", o->out);
	f = fopen(path, "we");
	if (!f)
		return;
	uname(&u);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	clock = tracefs_instance_file_read(inst, "trace_clock", NULL);
	fprintf(f, "release=%s\nversion=%s\nmachine=%s\ndate=%s\ncpus=%d\n", u.release,
		u.version, u.machine, date, ncpus);
	fprintf(f, "page_size=%ld\nlong_size=%zu\n",
		subbuf_size > 0 ? subbuf_size : sysconf(_SC_PAGESIZE), sizeof(long));
	fprintf(f, "tracer=%s\ntop_level=%d\nbuffer_kb=%lu\n", o->tracer ? o->tracer : "nop",
		o->top_level, o->buffer_kb);
	fprintf(f, "events=");
	for (int i = 0; i < o->nevents; i++)
		fprintf(f, "%s%s", i ? "," : "", o->events[i]);
	fprintf(f, "\ntrace_clock=%.*s\n", clock && strchr(clock, '[') ?
		(int)strcspn(strchr(clock, '[') + 1, "]") : 0,
		clock && strchr(clock, '[') ? strchr(clock, '[') + 1 : "");
	fprintf(f, "stacks=");
	for (int i = 0; i < o->nstacks; i++)
		fprintf(f, "%s%s", i ? "," : "", o->stacks[i]);
	fprintf(f, "\nuser_stacks=%d\n", o->ustack);
	fprintf(f, "pages=%ld\nrecords=%ld\ncommand=%s\n", pages, records, o->cmdline);
	free(clock);
	fclose(f);
}

static void parse_args(struct opts *o, int argc, char **argv)
{
	int c;

	o->buffer_kb = 256;
	for (int i = 0, n = 0; i < argc; i++)
		n += snprintf(o->cmdline + n, sizeof(o->cmdline) - n > 0 ?
			      sizeof(o->cmdline) - n : 0, "%s%s", i ? " " : "", argv[i]);
	while ((c = getopt(argc, argv, "+o:e:p:l:n:g:b:t:s:UTxh")) != -1) {
		switch (c) {
		case 'o':
			o->out = optarg;
			break;
		case 'e':
			if (o->nevents < MAX_ITEMS)
				o->events[o->nevents++] = optarg;
			break;
		case 'p':
			o->tracer = optarg;
			break;
		case 'l':
			if (o->nfilters < MAX_ITEMS)
				o->filters[o->nfilters++] = optarg;
			break;
		case 'n':
			if (o->nnotrace < MAX_ITEMS)
				o->notrace[o->nnotrace++] = optarg;
			break;
		case 'g':
			if (o->ngraph < MAX_ITEMS)
				o->graph[o->ngraph++] = optarg;
			break;
		case 'b':
			o->buffer_kb = strtoul(optarg, NULL, 10);
			break;
		case 't':
			o->seconds = strtod(optarg, NULL);
			o->seconds_set = true;
			break;
		case 'T':
			o->top_level = true;
			break;
		case 's':
			if (o->nstacks < MAX_ITEMS)
				o->stacks[o->nstacks++] = optarg;
			break;
		case 'U':
			o->ustack = true;
			break;
		case 'x':
			o->no_text = true;
			break;
		default:
			usage();
		}
	}
	if (!o->out || (!o->nevents && !o->tracer) || !o->buffer_kb)
		usage();
	if (optind < argc)
		o->cmd = argv + optind;
	if (!o->seconds_set)
		o->seconds = o->cmd ? 0 : 1;
}

int main(int argc, char **argv)
{
	static struct opts o;
	long pages = 0, records = 0;
	struct sigaction sa = { .sa_handler = on_signal };
	int ncpus, ret = 1;

	parse_args(&o, argc, argv);
	if (geteuid()) {
		fprintf(stderr, "record_fixture: needs root (tracefs)\n");
		return 2;
	}
	if (mkdir_p(o.out)) {
		fprintf(stderr, "record_fixture: mkdir %s: %s\n", o.out, strerror(errno));
		return 1;
	}
	ncpus = sysconf(_SC_NPROCESSORS_CONF);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	if (setup(&o) || stop)
		goto out;
	if (run(&o) || stop)
		goto out;
	if (!o.no_text && save_text(&o))
		fprintf(stderr, "record_fixture: note: trace.txt not saved\n");
	if (save_raw(&o, ncpus, &pages))
		goto out;
	if (copy_tracefs("events/header_page", o.out, "header_page") ||
	    copy_tracefs("saved_cmdlines", o.out, "saved_cmdlines"))
		goto out;
	save_enabled_formats(&o);
	if (o.tracer) {
		copy_system(o.out, "ftrace");
		copy_system(o.out, "osnoise");
	} else if (o.nstacks || o.ustack) {
		copy_format(o.out, "ftrace", "kernel_stack");
		copy_format(o.out, "ftrace", "user_stack");
	}
	save_meta(&o, ncpus, pages, -1);
	/* reload what we wrote: finds the addresses in the records */
	if (save_kallsyms_and_formats(&o, &records))
		goto out;
	save_meta(&o, ncpus, pages, records);
	printf("record_fixture: %s: %ld pages, %ld records\n", o.out, pages, records);
	ret = 0;
out:
	cleanup();
	if (stop)
		fprintf(stderr, "record_fixture: interrupted (signal %d); state restored\n",
			(int)stop);
	return stop ? 1 : ret;
}
