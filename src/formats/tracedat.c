// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * trace.dat (trace-cmd's format): reading through libtracecmd, writing
 * through libtracecmd's output API, and the format's entry in the table.
 *
 * Reading: libtracecmd 1.x trusts what a file says, so the structure of a
 * file is walked first (tdat_check), then the file is read once in a child
 * (tdat_trial), then for real; records are decoded with ktop's own decoder
 * (src/decode.h), so the events match a live session's.
 *
 * Writing: libtracecmd 1.x writes a trace.dat from a tracefs directory and
 * per-CPU files of raw ring-buffer pages; it reads the headers and formats
 * from the directory named with tracecmd_output_set_trace_dir(). So a
 * temporary directory is laid out like tracefs (src/tdat_tree.h) from the
 * snapshot_meta, and every event is re-encoded into pages with the same
 * layout the kernel gave it (src/formats/krecord.h). Those output calls are
 * exported by libtracecmd.so but declared only in trace-cmd's private
 * header: their prototypes, unchanged since trace-cmd 3.0, are repeated
 * below.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <traceevent/event-parse.h>
#include <trace-cmd/trace-cmd.h>

#include "decode.h"
#include "formats/format.h"
#include "formats/krecord.h"
#include "intern.h"
#include "rb_page.h"
#include "safefile.h"
#include "schema.h"
#include "store.h"
#include "tdat_tree.h"
#include "viewfilter.h"

/* libtracecmd's output API (trace-cmd-private.h), exported by libtracecmd.so.1 */
struct tracecmd_output;
struct tracecmd_event_list;
struct tracecmd_output *tracecmd_output_create_fd(int fd);
int tracecmd_output_set_trace_dir(struct tracecmd_output *handle, const char *tracing_dir);
int tracecmd_output_set_kallsyms(struct tracecmd_output *handle, const char *kallsyms);
int tracecmd_output_set_version(struct tracecmd_output *handle, int file_version);
int tracecmd_output_write_headers(struct tracecmd_output *handle,
				  struct tracecmd_event_list *list);
int tracecmd_write_cmdlines(struct tracecmd_output *handle);
int tracecmd_write_cpus(struct tracecmd_output *handle, int cpus);
int tracecmd_write_options(struct tracecmd_output *handle);
int tracecmd_write_cpu_data(struct tracecmd_output *handle, int cpus,
			    char * const *cpu_data_files, const char *buff_name);
void tracecmd_output_close(struct tracecmd_output *handle);
void tracecmd_set_quiet(struct tracecmd_output *handle, bool set_quiet);
struct tracecmd_option *tracecmd_add_option(struct tracecmd_output *handle, unsigned short id,
					    int size, const void *data);

#define TDAT_OPT_TRACECLOCK	4	/* TRACECMD_OPTION_TRACECLOCK: trace_clock's text */

#define TDAT_PAGE_HDR	RB_PAGE_HDR(8)

/*
 * Leaks inside libtracecmd 1.3 (trace-cmd 3.1.6), not ours to fix: it never
 * frees the path given to tracecmd_output_set_kallsyms, and on a malformed
 * trace.dat tracecmd_open_fd fails without freeing what tracecmd_init_data
 * allocated (the fuzzer finds it). Debian builds libtracecmd without frame
 * pointers, so LeakSanitizer's fast unwinder stops at its first frame: the
 * second leak can only be named by the library. Here, because every ASan
 * build that reads or writes trace.dat (tests, the fuzzer, ktop) links this
 * file. Only LeakSanitizer calls this.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:tracecmd_output_set_kallsyms\nleak:libtracecmd.so\n";
}

/* ---- trace.dat ---------------------------------------------------------------- */

struct tdat_load {
	struct store		*st;
	struct decoder		**dec;
	/* per CPU: the last event, appended when the next record is not its stack */
	struct ktop_event	*held;
	bool			*has;
	unsigned int		ncpus;
	struct tep_handle	*tep;
	uint64_t		bad;
	int			err;
};

/*
 * The decoder had no symbol table (the kallsyms of a trace.dat is inside the
 * tep): addresses it kept as "0x..." are resolved with tep_find_function.
 */
static void tdat_syms(struct tdat_load *l, struct ktop_event *ev)
{
	const struct ktop_schema_type *t = schema_get(store_schema(l->st), ev->type);
	struct intern *in = store_strings(l->st);

	for (unsigned int k = 0; t && k < ev->nargs && k < t->nfields; k++) {
		const char *s, *name;
		unsigned long long addr;

		if (t->fields[k].kind != KTOP_FK_SYM)
			continue;
		s = intern_str(in, (uint32_t)ev->args[k]);
		if (strncmp(s, "0x", 2))
			continue;
		addr = strtoull(s, NULL, 16);
		name = tep_find_function(l->tep, addr);
		if (name)
			ev->args[k] = intern_id(in, name, strlen(name));
	}
}

static int tdat_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *arg)
{
	struct tdat_load *l = arg;
	struct ktop_event ev;
	int ret;

	if (cpu < 0 || (unsigned int)cpu >= l->ncpus)
		return 0;
	if (rec->missed_events)
		store_add_lost(l->st, cpu, rec->ts, rec->missed_events > 0 ?
			       (uint64_t)rec->missed_events : 0);
	ret = decoder_record(l->dec[cpu], rec->data, rec->size, rec->ts, &ev);
	if (ret == DECODE_RECORD_STACK) {
		/* a stack record: its event is the one before it on this CPU */
		if (l->has[cpu])
			l->held[cpu].stack = ev.stack;
		return 0;
	}
	if (ret) {
		l->bad++;
		return 0;
	}
	ev.cpu = (uint16_t)cpu;
	tdat_syms(l, &ev);
	if (!store_comm(l->st, ev.pid)) {
		const char *c = tep_data_comm_from_pid(l->tep, ev.pid);

		if (c && strcmp(c, "<...>"))
			store_set_comm(l->st, ev.pid, c);
	}
	if (l->has[cpu] && store_append(l->st, &l->held[cpu])) {
		l->err = -ENOMEM;
		return 1;
	}
	l->held[cpu] = ev;
	l->has[cpu] = true;
	return 0;
}

/* The events still held for a stack record that did not come, then publish. */
static int tdat_flush(struct tdat_load *l)
{
	for (unsigned int c = 0; c < l->ncpus; c++) {
		if (l->has[c] && store_append(l->st, &l->held[c]))
			return -ENOMEM;
		store_publish(l->st, c);
	}
	return 0;
}

/* ---- trace.dat structure check ------------------------------------------------ */

/*
 * libtracecmd 1.x trusts the sizes and counts in a trace.dat file (hostile
 * files crash it), so the whole structure of a version 6 file is walked here
 * first: every size must fit in the file, every count is bounded by the
 * bytes left, and only the options whose contents libtracecmd reads as plain
 * text or numbers are accepted. Version 7 (sections, compression) is refused.
 */
struct tdat_walk {
	const uint8_t	*p, *end;
	const char	*what;		/* the part being read, for the message */
	bool		bad;
};

static bool tw_need(struct tdat_walk *w, uint64_t n)
{
	if (w->bad || n > (uint64_t)(w->end - w->p)) {
		w->bad = true;
		return false;
	}
	return true;
}

static uint64_t tw_u(struct tdat_walk *w, unsigned int size)
{
	uint64_t v = 0;

	if (!tw_need(w, size))
		return 0;
	for (unsigned int i = 0; i < size; i++)
		v |= (uint64_t)w->p[i] << (8 * i);
	w->p += size;
	return v;
}

static void tw_skip(struct tdat_walk *w, uint64_t n)
{
	if (tw_need(w, n))
		w->p += n;
}

static bool tw_tag(struct tdat_walk *w, const char *tag, size_t len)
{
	if (!tw_need(w, len) || memcmp(w->p, tag, len)) {
		w->bad = true;
		return false;
	}
	w->p += len;
	return true;
}

/* A NUL-terminated string of at most @max bytes. */
static void tw_str(struct tdat_walk *w, size_t max)
{
	size_t left = w->end - w->p;
	const uint8_t *nul = memchr(w->p, 0, left < max ? left : max);

	if (w->bad || !nul) {
		w->bad = true;
		return;
	}
	w->p = nul + 1;
}

/* @n bytes of text into *@dst (unless set, or @dst NULL), NUL-terminated. */
static void tw_text(struct tdat_walk *w, uint64_t n, char **dst)
{
	if (!tw_need(w, n))
		return;
	if (dst && !*dst)
		*dst = strndup((const char *)w->p, n);
	w->p += n;
}

/* An event format of @system (8-byte size, text), kept in @m when not NULL. */
static void tw_format(struct tdat_walk *w, const char *system, struct snapshot_meta *m)
{
	uint64_t n = tw_u(w, 8);
	char *text = NULL;

	tw_text(w, n, m && system ? &text : NULL);
	if (text)
		snapshot_meta_add_format(m, system, text);
	free(text);
}

/* The trace_clock option's text: the clock in brackets. */
static void tdat_clock(struct snapshot_meta *m, const char *text, size_t len)
{
	const char *a = memchr(text, '[', len), *b;

	b = a ? memchr(a, ']', len - (size_t)(a - text)) : NULL;
	if (b && b - a - 1 < (ptrdiff_t)sizeof(m->clock))
		snprintf(m->clock, sizeof(m->clock), "%.*s", (int)(b - a - 1), a + 1);
}

/*
 * The headers, event formats, kallsyms, printk formats and saved cmdlines:
 * checked, and kept in @m when not NULL (what a save in another format needs).
 */
static void tdat_walk_head(struct tdat_walk *w, struct snapshot_meta *m)
{
	uint64_t n;

	w->what = "header_page";
	if (tw_tag(w, "header_page", 12))
		tw_text(w, tw_u(w, 8), m ? &m->header_page : NULL);
	w->what = "header_event";
	if (tw_tag(w, "header_event", 13))
		tw_text(w, tw_u(w, 8), m ? &m->header_event : NULL);
	w->what = "ftrace event formats";
	n = tw_u(w, 4);
	for (uint64_t i = 0; i < n && !w->bad; i++)
		tw_format(w, "ftrace", m);
	w->what = "event formats";
	n = tw_u(w, 4);
	for (uint64_t i = 0; i < n && !w->bad; i++) {
		const char *sys = (const char *)w->p;
		uint64_t ne;

		tw_str(w, 256);
		ne = tw_u(w, 4);
		for (uint64_t j = 0; j < ne && !w->bad; j++)
			tw_format(w, sys, m);
	}
	w->what = "kallsyms";
	tw_text(w, tw_u(w, 4), m ? &m->kallsyms : NULL);
	w->what = "printk formats";
	tw_text(w, tw_u(w, 4), m ? &m->printk : NULL);
	w->what = "saved command lines";
	tw_text(w, tw_u(w, 8), m ? &m->cmdlines : NULL);
}

static int tdat_check(const uint8_t *file, size_t size, const char *path,
		      struct snapshot_meta *m, char *err, size_t errlen)
{
	struct tdat_walk w = { file, file + size, "file header", false };
	uint64_t cpus, page;
	const char *v;
	size_t vl;

	if (size < 10 + 2) {
		snprintf(err, errlen, "%s: truncated trace.dat header", path);
		return -EBADMSG;
	}
	v = (const char *)file + 10;
	vl = strnlen(v, size - 10);
	if (vl == size - 10 || !vl || vl > 3) {
		snprintf(err, errlen, "%s: truncated trace.dat header", path);
		return -EBADMSG;
	}
	if (strcmp(v, "6")) {
		snprintf(err, errlen, "%s: unsupported trace.dat version '%.3s' (ktop reads "
			 "version 6; `trace-cmd convert --file-version 6` converts)", path, v);
		return -EPROTONOSUPPORT;
	}
	w.p = file + 10 + vl + 1;
	if (tw_u(&w, 1) != 0 || tw_u(&w, 1) != 8) {
		snprintf(err, errlen, "%s: not a little-endian 64-bit trace.dat (or corrupt)",
			 path);
		return w.bad ? -EBADMSG : -EPROTONOSUPPORT;
	}
	page = tw_u(&w, 4);
	if (w.bad || page < 1024 || page > (1u << 20) || (page & (page - 1))) {
		snprintf(err, errlen, "%s: corrupt trace.dat header (page size %llu)", path,
			 (unsigned long long)page);
		return -EBADMSG;
	}
	tdat_walk_head(&w, m);
	w.what = "CPU count";
	cpus = tw_u(&w, 4);
	if (!w.bad && (!cpus || cpus > SNAPSHOT_MAX_CPUS)) {
		snprintf(err, errlen, "%s: corrupt trace.dat (%llu CPUs)", path,
			 (unsigned long long)cpus);
		return -EBADMSG;
	}
	w.what = "options";
	while (!w.bad && tw_need(&w, 10) && !memcmp(w.p, "options  ", 10)) {
		w.p += 10;
		for (;;) {
			uint64_t id = tw_u(&w, 2), len;

			if (w.bad || !id)
				break;
			len = tw_u(&w, 4);
			if (id == 4 && m && tw_need(&w, len))
				tdat_clock(m, (const char *)w.p, len);
			/* DATE CPUSTAT TRACECLOCK UNAME CPUCOUNT VERSION TRACEID: plain data */
			if (!w.bad && id != 1 && id != 2 && id != 4 && id != 5 && id != 8 &&
			    id != 9 && id != 11) {
				snprintf(err, errlen, "%s: trace.dat option %llu is not read by ktop "
					 "(several buffers, guests or time shifts)", path,
					 (unsigned long long)id);
				return -EPROTONOSUPPORT;
			}
			tw_skip(&w, len);
		}
	}
	w.what = "flyrecord section";
	if (tw_tag(&w, "flyrecord", 10)) {
		for (uint64_t c = 0; c < cpus && !w.bad; c++) {
			uint64_t off = tw_u(&w, 8), len = tw_u(&w, 8);

			if (!w.bad && (off > size || len > size - off)) {
				snprintf(err, errlen, "%s: corrupt trace.dat (CPU %llu data at %llu+%llu "
					 "past the end of the %zu-byte file)", path,
					 (unsigned long long)c, (unsigned long long)off,
					 (unsigned long long)len, size);
				return -EBADMSG;
			}
		}
	}
	if (w.bad) {
		snprintf(err, errlen, "%s: truncated or corrupt trace.dat (%s at offset %zu)", path,
			 w.what, (size_t)(w.p - file));
		return -EBADMSG;
	}
	return 0;
}

static int tdat_precheck(int fd, const char *path, struct snapshot_meta *m, char *err,
			 size_t errlen)
{
	struct stat sb;
	uint8_t *map;
	int ret;

	if (fstat(fd, &sb)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (sb.st_size < 16) {
		snprintf(err, errlen, "%s: truncated trace.dat header", path);
		return -EBADMSG;
	}
	map = mmap(NULL, sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		snprintf(err, errlen, "%s: mmap: %s", path, strerror(errno));
		return -errno;
	}
	ret = tdat_check(map, sb.st_size, path, m, err, errlen);
	munmap(map, sb.st_size);
	return ret;
}


/* Set by sanitizer runtimes (libFuzzer registers its crash report there). */
extern void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

/*
 * The trial child dies plainly on a crash: default signal actions and no
 * sanitizer death callback, so a fuzzer parent does not take the child's
 * crash for its own.
 */
static void tdat_trial_child_plain(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGXCPU };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(NULL);
}

static int tdat_trial_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *arg)
{
	return 0;
}

/*
 * libtracecmd 1.3 trusts what a trace.dat says, and files that pass
 * tdat_check can still crash it or send tracecmd_iterate_events() round
 * forever (the fuzzer finds both). Read the file once in a child first: a
 * crash there becomes an error message, not a dead ktop, and a loop ends at
 * a CPU-time limit far above what reading takes (TDAT_TRIAL_CPU_S plus a
 * second per TDAT_TRIAL_BYTES_PER_S of file).
 * Context: any thread; the child calls only libtracecmd, setrlimit and _exit().
 */
#define TDAT_TRIAL_CPU_S	4
#define TDAT_TRIAL_BYTES_PER_S	(16ull << 20)

static int tdat_trial(const char *path, char *err, size_t errlen)
{
	int status, flags = TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS;
	struct rlimit cpu = { TDAT_TRIAL_CPU_S, TDAT_TRIAL_CPU_S + 1 };
	struct stat sb;
	pid_t pid;

	if (!stat(path, &sb) && sb.st_size > 0) {
		cpu.rlim_cur += (rlim_t)((uint64_t)sb.st_size / TDAT_TRIAL_BYTES_PER_S);
		cpu.rlim_max = cpu.rlim_cur + 1;
	}

	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "%s: cannot check the file: fork: %s", path, strerror(errno));
		return -errno;
	}
	if (pid == 0) {
		struct tracecmd_input *h;
		int r;

		tdat_trial_child_plain();
		setrlimit(RLIMIT_CPU, &cpu);
		h = tracecmd_open(path, flags);

		if (!h)
			_exit(3);
		r = tracecmd_iterate_events(h, NULL, 0, tdat_trial_record, NULL);
		tracecmd_close(h);
		_exit(r < 0 ? 4 : 0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			snprintf(err, errlen, "%s: cannot check the file: waitpid: %s", path,
				 strerror(errno));
			return -errno;
		}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
		snprintf(err, errlen, "%s: libtracecmd cannot read this trace.dat (corrupt or "
			 "truncated)", path);
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 4)
		snprintf(err, errlen, "%s: libtracecmd cannot read the events of this trace.dat "
			 "(corrupt)", path);
	else if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGKILL))
		snprintf(err, errlen, "%s: corrupt trace.dat: libtracecmd was still reading it "
			 "after %llu s of CPU", path, (unsigned long long)cpu.rlim_cur);
	else
		snprintf(err, errlen, "%s: corrupt trace.dat: libtracecmd failed on it (%s %d)",
			 path, WIFSIGNALED(status) ? "signal" : "exit status",
			 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	return -EBADMSG;
}

/*
 * A trace.dat of version 6 does not name its tracer: the tracers' own records
 * in the store say which it was (trace-cmd report decides the same way).
 */
static void tdat_tracer(struct snapshot_meta *m, struct store *st)
{
	static const struct { uint16_t type; const char *tracer; } by[] = {
		{ KTOP_T_FGRAPH_ENTRY, "function_graph" }, { KTOP_T_FGRAPH_EXIT, "function_graph" },
		{ KTOP_T_FUNCTION, "function" }, { KTOP_T_TIMERLAT, "timerlat" },
		{ KTOP_T_OSNOISE, "osnoise" },
	};
	struct store_filter f = { .t0 = 0, .t1 = UINT64_MAX, .pid = -1, .cpu = -1 };
	struct store_count c[64];
	size_t n = store_count_by(st, STORE_KEY_TYPE, &f, c, 64);

	snprintf(m->tracer, sizeof(m->tracer), "nop");
	for (size_t k = 0; k < sizeof(by) / sizeof(by[0]); k++)
		for (size_t i = 0; i < n && i < 64; i++)
			if (c[i].key == by[k].type && c[i].count) {
				snprintf(m->tracer, sizeof(m->tracer), "%s", by[k].tracer);
				return;
			}
}

static int tdat_load(const char *path, size_t mem_limit, struct store **out,
		     struct snapshot_meta *meta, char *err, size_t errlen)
{
	struct tracecmd_input *h;
	struct decode_ctx *dc = NULL;
	struct tdat_load l;
	int fd, cpus, ret;

	memset(&l, 0, sizeof(l));
	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	ret = tdat_precheck(fd, path, meta, err, errlen);
	close(fd);
	if (ret)
		return ret;
	tracecmd_set_loglevel(TEP_LOG_NONE);
	ret = tdat_trial(path, err, errlen);
	if (ret)
		return ret;
	h = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!h) {
		snprintf(err, errlen, "%s: libtracecmd cannot read this trace.dat (corrupt or "
			 "truncated)", path);
		return -EBADMSG;
	}
	l.tep = tracecmd_get_tep(h);
	cpus = l.tep ? tep_get_cpus(l.tep) : 0;
	if (cpus <= 0 || (unsigned int)cpus > SNAPSHOT_MAX_CPUS) {
		snprintf(err, errlen, "%s: bad CPU count %d", path, cpus);
		ret = -EBADMSG;
		goto out_close;
	}
	l.ncpus = cpus;
	l.st = store_new(mem_limit, l.ncpus);
	l.dec = calloc(l.ncpus, sizeof(*l.dec));
	l.held = calloc(l.ncpus, sizeof(*l.held));
	l.has = calloc(l.ncpus, sizeof(*l.has));
	if (!l.st || !l.dec || !l.held || !l.has) {
		ret = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", path);
		goto out_free;
	}
	dc = decode_ctx_new(l.tep, l.st, NULL);
	if (!dc) {
		ret = errno ? -errno : -EINVAL;
		snprintf(err, errlen, "%s: cannot set up the decoder: %s", path, strerror(-ret));
		goto out_free;
	}
	for (unsigned int c = 0; c < l.ncpus; c++) {
		l.dec[c] = decoder_new(dc, c);
		if (!l.dec[c]) {
			ret = -ENOMEM;
			snprintf(err, errlen, "%s: out of memory", path);
			goto out_free;
		}
	}
	ret = tracecmd_iterate_events(h, NULL, 0, tdat_record, &l);
	if (!l.err)
		l.err = tdat_flush(&l);
	if (l.err) {
		ret = l.err;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		goto out_free;
	}
	if (meta) {
		meta->ncpus = l.ncpus;
		meta->page_size = tep_get_page_size(l.tep);
		snprintf(meta->source, sizeof(meta->source), "trace.dat");
		tdat_tracer(meta, l.st);
	}
	*out = l.st;
	l.st = NULL;
	ret = 0;
out_free:
	for (unsigned int c = 0; l.dec && c < l.ncpus; c++)
		decoder_free(l.dec[c]);
	free(l.dec);
	free(l.held);
	free(l.has);
	decode_ctx_free(dc);
	store_free(l.st);
out_close:
	tracecmd_close(h);
	return ret;
}

/* ---- ring-buffer pages --------------------------------------------------------- */

static void put_int(uint8_t *p, unsigned int size, uint64_t v)
{
	for (unsigned int i = 0; i < size && i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

struct pager {
	FILE		*fp;
	uint8_t		*page;
	size_t		psize, used;	/* used: data bytes after the header */
	uint64_t	last_ts;
	bool		open;
	uint64_t	missed;		/* flag the page: UINT64_MAX unknown count */
	int		err;
};

static void pager_close(struct pager *p)
{
	uint64_t commit = p->used;

	if (!p->open)
		return;
	if (p->missed) {
		commit |= RB_MISSED_EVENTS;
		if (p->missed != UINT64_MAX && TDAT_PAGE_HDR + p->used + 8 <= p->psize) {
			put_int(p->page + TDAT_PAGE_HDR + p->used, 8, p->missed);
			commit |= RB_MISSED_STORED;
		}
	}
	put_int(p->page + 8, 8, commit);
	if (fwrite(p->page, 1, p->psize, p->fp) != p->psize)
		p->err = -EIO;
	p->open = false;
	p->missed = 0;
}

static void pager_open(struct pager *p, uint64_t ts)
{
	memset(p->page, 0, p->psize);
	put_int(p->page, 8, ts);
	p->used = 0;
	p->last_ts = ts;
	p->open = true;
}

static void pager_add(struct pager *p, uint64_t ts, const uint8_t *rec, int size)
{
	size_t len = (size + 3) & ~3u, need;
	uint64_t delta;
	uint8_t *w;

	need = 4 + len + (len > RB_MAX_SMALL_DATA ? 4 : 0);
	if (!p->open)
		pager_open(p, ts);
	delta = ts - p->last_ts;
	if (delta >= (1ull << RB_TS_SHIFT))
		need += 8;
	/* keep 8 bytes free for a stored missed count */
	if (TDAT_PAGE_HDR + p->used + need + 8 > p->psize) {
		pager_close(p);
		pager_open(p, ts);
		delta = 0;
		need = 4 + len + (len > RB_MAX_SMALL_DATA ? 4 : 0);
		if (TDAT_PAGE_HDR + need > p->psize)
			return;	/* cannot happen for KRECORD_MAX/2 records and 4 KiB pages */
	}
	w = p->page + TDAT_PAGE_HDR + p->used;
	if (delta >= (1ull << RB_TS_SHIFT)) {
		put_int(w, 4, 30 | (uint32_t)((delta & ((1u << RB_TS_SHIFT) - 1)) << 5));
		put_int(w + 4, 4, delta >> RB_TS_SHIFT);
		w += 8;
		p->used += 8;
		delta = 0;
	}
	if (len <= RB_MAX_SMALL_DATA && len) {
		put_int(w, 4, (uint32_t)(len / 4) | (uint32_t)(delta << 5));
		memcpy(w + 4, rec, size);
		p->used += 4 + len;
	} else {
		put_int(w, 4, (uint32_t)(delta << 5));
		put_int(w + 4, 4, len + 4);
		memcpy(w + 8, rec, size);
		p->used += 8 + len;
	}
	p->last_ts = ts;
}

/* ---- writing ------------------------------------------------------------------ */

static int cmp_lost(const void *a, const void *b)
{
	const struct store_lost *x = a, *y = b;

	return (x->ts > y->ts) - (x->ts < y->ts);
}

/* What a trace.dat export holds while it writes. */
struct tdat_out {
	const char		*path;
	struct store		*st;
	const struct export_opts *opts;
	uint64_t		t0, t1;
	struct krecord		kr;
	uint8_t			*rec;
	struct store_lost	*lost;		/* by time */
	size_t			nlost;
	struct export_stats	s;
	uint32_t		psize;
	const char		*clock;		/* the trace's clock, "" unknown */
};

/* The lost-event marks of the window, by time. */
static int tdat_out_lost(struct tdat_out *o)
{
	size_t n = store_lost_marks(o->st, o->t0, o->t1, NULL, 0);

	o->lost = calloc(n + 1, sizeof(*o->lost));
	if (!o->lost)
		return -ENOMEM;
	o->nlost = store_lost_marks(o->st, o->t0, o->t1, o->lost, n);
	qsort(o->lost, o->nlost, sizeof(*o->lost), cmp_lost);
	return 0;
}

/* One CPU's events as ring-buffer pages into @file. Return: 0 or -errno. */
static int tdat_out_cpu(struct tdat_out *o, unsigned int cpu, const char *file)
{
	struct pager pg = { .psize = o->psize };
	uint64_t first, end;
	size_t li = 0;

	pg.fp = fopen(file, "we");
	pg.page = malloc(pg.psize);
	if (!pg.fp || !pg.page) {
		if (pg.fp)
			fclose(pg.fp);
		free(pg.page);
		return -EIO;
	}
	store_cpu_range(o->st, cpu, &first, &end);
	for (uint64_t seq = o->t0 ? store_seek(o->st, cpu, o->t0) : first; seq < end; seq++) {
		struct ktop_event ev;
		int size;

		if (store_get(o->st, cpu, seq, &ev) || ev.ts < o->t0)
			continue;
		if (ev.ts > o->t1)
			break;
		if (o->opts && o->opts->view && !viewfilter_match(o->opts->view, &ev))
			continue;
		/* lost events before this one: a flagged page, as the kernel does */
		for (; li < o->nlost && o->lost[li].ts <= ev.ts; li++) {
			if (o->lost[li].cpu != cpu)
				continue;
			pager_close(&pg);
			pager_open(&pg, ev.ts);
			pg.missed = pg.missed && pg.missed != UINT64_MAX ? pg.missed : 0;
			pg.missed = o->lost[li].count ? pg.missed + o->lost[li].count : UINT64_MAX;
		}
		size = krecord_encode(&o->kr, &ev, o->rec);
		if (!size) {
			o->s.skipped++;
			continue;
		}
		pager_add(&pg, ev.ts, o->rec, size);
		o->s.events++;
	}
	pager_close(&pg);
	if (fclose(pg.fp) && !pg.err)
		pg.err = -EIO;
	free(pg.page);
	return pg.err;
}

/* The TRACECLOCK option, as trace_clock reads ("[global]"), when the clock is known. */
static int tdat_out_clock(const struct tdat_out *o, struct tracecmd_output *out)
{
	char text[40];
	int n;

	if (!o->clock[0])
		return 0;
	n = snprintf(text, sizeof(text), "[%s]", o->clock);
	return tracecmd_add_option(out, TDAT_OPT_TRACECLOCK, n + 1, text) ? 0 : -1;
}

/* libtracecmd writes the file from the tree @tdir and the per-CPU page @files. */
static int tdat_out_file(struct tdat_out *o, const struct format_out *dst, const char *tdir,
			 char **files, char *err, size_t errlen)
{
	unsigned int ncpus = store_ncpus(o->st);
	struct tracecmd_output *out;
	struct format_file f;
	char sub[PATH_MAX];
	int fd, ret;

	/* libtracecmd seeks: a pipe or device target gets a spool, copied at the end */
	ret = format_out_open(&f, dst, SAFEFILE_OUT_SEEKABLE | (o->opts ? o->opts->file_flags : 0),
			      false, err, errlen);
	if (ret)
		return ret;
	tracecmd_set_loglevel(TEP_LOG_NONE);
	fd = fcntl(f.out.fd, F_DUPFD_CLOEXEC, 3);
	out = fd < 0 ? NULL : tracecmd_output_create_fd(fd);	/* closes fd */
	if (out) {
		tracecmd_set_quiet(out, true);	/* it prints to stdout otherwise */
		/* version 6: what trace-cmd 3.x and KernelShark read without options */
		tracecmd_output_set_version(out, 6);
	} else if (fd >= 0) {
		close(fd);
	}
	snprintf(sub, sizeof(sub), "%s/kallsyms", tdir);
	ret = -EIO;
	if (!out)
		format_fail(err, errlen, ret, o->path, "libtracecmd cannot create the file");
	else if (tracecmd_output_set_trace_dir(out, tdir) ||
		 tracecmd_output_set_kallsyms(out, sub) || tracecmd_output_write_headers(out, NULL))
		format_fail(err, errlen, ret, o->path, "libtracecmd: writing the headers failed");
	else if (tracecmd_write_cmdlines(out) < 0 || tracecmd_write_cpus(out, ncpus) < 0 ||
		 tdat_out_clock(o, out) || tracecmd_write_options(out) < 0)
		format_fail(err, errlen, ret, o->path, "libtracecmd: writing the options failed");
	else if (tracecmd_write_cpu_data(out, ncpus, files, NULL) < 0)
		format_fail(err, errlen, ret, o->path, "libtracecmd: writing the CPU data failed");
	else
		ret = 0;
	if (out)
		tracecmd_output_close(out);
	return format_out_close(&f, ret, &o->s, err, errlen);
}

/* Pages of every CPU into files under @tdir, then the trace.dat. */
static int tdat_out_all(struct tdat_out *o, const struct format_out *dst, const char *tdir,
			char *err, size_t errlen)
{
	unsigned int ncpus = store_ncpus(o->st);
	char **files = calloc(ncpus, sizeof(*files));
	int ret = 0;

	if (!files)
		return format_fail(err, errlen, -ENOMEM, o->path, "out of memory");
	for (unsigned int cpu = 0; cpu < ncpus && !ret; cpu++) {
		if (asprintf(&files[cpu], "%s/cpu%u", tdir, cpu) < 0) {
			files[cpu] = NULL;
			ret = format_fail(err, errlen, -ENOMEM, o->path, "out of memory");
			break;
		}
		ret = tdat_out_cpu(o, cpu, files[cpu]);
		if (ret)
			format_fail(err, errlen, ret, o->path, "temporary files: %s",
				    strerror(-ret));
	}
	if (!ret)
		ret = tdat_out_file(o, dst, tdir, files, err, errlen);
	for (unsigned int cpu = 0; cpu < ncpus; cpu++)
		free(files[cpu]);
	free(files);
	return ret;
}

static int tdat_save(const struct format_out *dst, struct store *st,
		     const struct snapshot_meta *meta, const struct export_opts *opts,
		     struct export_stats *stats, char *err, size_t errlen)
{
	struct tdat_out o = { .path = dst->path, .st = st, .opts = opts };
	char tdir[TDAT_TREE_PATH_MAX];
	struct tep_handle *tep;
	int ret;

	format_window(opts, &o.t0, &o.t1);
	if (!meta || !meta->nformats)
		return format_fail(err, errlen, -EINVAL, dst->path, "no kernel event formats in "
				   "this session: cannot write trace.dat");
	tep = snapshot_meta_tep(meta);
	if (!tep)
		return format_fail(err, errlen, -EINVAL, dst->path, "the event formats do not "
				   "parse");
	o.psize = meta->page_size ? meta->page_size : 4096;
	o.clock = meta->clock;
	ret = krecord_init(&o.kr, tep, st, meta);
	o.rec = malloc(KRECORD_MAX);
	if (ret || !o.rec || tdat_out_lost(&o)) {
		ret = format_fail(err, errlen, -ENOMEM, dst->path, "out of memory");
		goto out;
	}
	ret = tdat_tree_create(tdir, sizeof(tdir), meta, st);
	if (ret) {
		ret = format_fail(err, errlen, ret, dst->path, "temporary files: %s",
				  strerror(-ret));
		goto out;
	}
	ret = tdat_out_all(&o, dst, tdir, err, errlen);
	tdat_tree_remove(tdir);
out:
	if (stats)
		*stats = o.s;
	free(o.lost);
	free(o.rec);
	krecord_fini(&o.kr);
	tep_free(tep);
	return ret;
}

/* ---- the format ----------------------------------------------------------------- */

static bool tdat_detect(const void *head, size_t len)
{
	static const uint8_t magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

	return len >= sizeof(magic) && !memcmp(head, magic, sizeof(magic));
}

/* A trace.dat is read whole by open(): its reader has nothing left for next(). */
static int tdat_next(struct format_reader *r)
{
	return 0;
}

static void tdat_free(struct format_reader *r)
{
	store_free(r->st);
	snapshot_meta_free(&r->meta);
	free(r);
}

static const struct format_reader_ops tdat_reader_ops = {
	.next	= tdat_next,
	.free	= tdat_free,
};

static int tdat_open(const struct format_in *in, struct format_reader **out, char *err,
		     size_t errlen)
{
	struct format_reader *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return format_fail(err, errlen, -ENOMEM, in->name, "out of memory");
	r->ops = &tdat_reader_ops;
	r->fmt = &format_tracedat;
	snprintf(r->name, sizeof(r->name), "%s", in->name);
	ret = tdat_load(in->path, in->mem_limit, &r->st, &r->meta, err, errlen);
	if (ret) {
		tdat_free(r);
		return ret;
	}
	*out = r;
	return 0;
}

static const char *const tdat_exts[] = { ".dat", NULL };

const struct format_ops format_tracedat = {
	.id	= FORMAT_TRACEDAT,
	.name	= "trace.dat",
	.exts	= tdat_exts,
	.detect	= tdat_detect,
	.open	= tdat_open,
	.save	= tdat_save,
};
