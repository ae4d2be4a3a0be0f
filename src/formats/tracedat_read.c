// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Loading a trace.dat into a store: the layout from tracedat_file.c, the
 * event formats parsed by libtraceevent into a tep, and every CPU's pages
 * fed to the decoder (src/ingest/decode.h) as the live consumer feeds it, from the
 * mapped file or from one decompressed chunk at a time. The decoder writes
 * the events in place into the store and turns the pages' missed-events
 * marks into lost-event records, as it does live.
 *
 * Buffers: each CPU of each buffer becomes one store CPU stream; the meta's
 * buffer table says which (snapshot_meta.buffers). The tracer is not in the
 * file (no option holds it): it is what the records show, unless ktop wrote
 * the file and named it in the VERSION option (tracedat_write.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <traceevent/event-parse.h>

#include "ingest/decode.h"
#include "lib/err.h"
#include "lib/evformat.h"
#include "format.h"
#include "store/stacks.h"
#include "kernel/stacksym.h"
#include "store/store.h"
#include "kernel/symbols.h"
#include "tracedat.h"
#include "tracedat-local.h"

struct tload {
	struct tdat		t;
	const char		*path;
	char			*err;
	size_t			errlen;
	size_t			mem_limit;
	const struct tdat_buffer **bufs;	/* the buffers loaded */
	uint32_t		*cpu0;		/* the first stream of each */
	uint32_t		*ncpus;
	size_t			nbufs;
	unsigned int		nstreams;
	struct tep_handle	*tep;
	struct symbols		*syms;
	struct store		*st;
	struct decode_ctx	*dc;
	uint64_t		bad;		/* records the decoder could not read */
};

/* ---- choosing the buffers ----------------------------------------------------- */

static bool buffer_empty(const struct tdat_buffer *b)
{
	for (size_t i = 0; i < b->nentries; i++)
		if (b->cpus[i].size)
			return false;
	return true;
}

static void list_buffers(const struct tdat *t, char *out, size_t len)
{
	size_t n = 0;

	out[0] = 0;
	for (size_t i = 0; i < t->nbuffers && n < len; i++)
		if (!t->buffers[i].text)
			n += snprintf(out + n, len - n, "%s%s", n ? ", " : "",
				      *t->buffers[i].name ? t->buffers[i].name :
				      TRACEDAT_TOP_BUFFER);
}

static int choose_buffers(struct tload *l, const char *want)
{
	struct tdat *t = &l->t;
	size_t nonempty = 0, text = 0;
	char names[256];

	l->bufs = calloc(t->nbuffers + 1, sizeof(*l->bufs));
	l->cpu0 = calloc(t->nbuffers + 1, sizeof(*l->cpu0));
	l->ncpus = calloc(t->nbuffers + 1, sizeof(*l->ncpus));
	if (!l->bufs || !l->cpu0 || !l->ncpus)
		return err_set_at(l->err, l->errlen, -ENOMEM, l->path, "out of memory");
	list_buffers(t, names, sizeof(names));
	if (want) {
		const struct tdat_buffer *b = tdat_find_buffer(t, want);

		if (!b || b->text)
			return err_set_at(l->err, l->errlen, -ENOENT, l->path, "no buffer '%s' in "
					  "this trace.dat (it has: %s)", want,
					  names[0] ? names : "none");
		l->bufs[l->nbufs++] = b;
	} else {
		for (size_t i = 0; i < t->nbuffers; i++) {
			text += t->buffers[i].text;
			nonempty += !t->buffers[i].text && !buffer_empty(&t->buffers[i]);
		}
		/* the top buffer of `record -B NAME` alone is there, empty: leave it out */
		for (size_t i = 0; i < t->nbuffers; i++)
			if (!t->buffers[i].text && (!buffer_empty(&t->buffers[i]) || !nonempty))
				l->bufs[l->nbufs++] = &t->buffers[i];
	}
	if (!l->nbufs)
		return err_set_at(l->err, l->errlen, -EPROTONOSUPPORT, l->path, "%s",
				  text ? "this trace.dat holds a latency tracer's text output "
				  "(trace-cmd record -p irqsoff, wakeup...), not events: "
				  "`trace-cmd report` prints it" : "this trace.dat has no buffer");
	for (size_t i = 0; i < l->nbufs; i++) {
		uint32_t n = l->bufs[i]->ncpus > t->ncpus ? l->bufs[i]->ncpus : t->ncpus;

		if (!n)
			n = 1;
		if (l->nstreams + n > SNAPSHOT_MAX_CPUS)
			return err_set_at(l->err, l->errlen, -EBADMSG, l->path, "corrupt trace.dat: "
					  "more than %u CPUs in its buffers", SNAPSHOT_MAX_CPUS);
		l->cpu0[i] = l->nstreams;
		l->ncpus[i] = n;
		l->nstreams += n;
	}
	return 0;
}

/* ---- formats, symbols, command lines ---------------------------------------------- */

/* The formats parsed into a tep; NULL on ENOMEM. */
static struct tep_handle *parse_formats(const struct tdat *t, unsigned int ncpus,
					unsigned int *parsed)
{
	struct tep_handle *tep = tep_alloc();
	char *hp;

	*parsed = 0;
	if (!tep)
		return NULL;
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, 8);
	tep_set_page_size(tep, t->page_size);
	tep_set_cpus(tep, (int)ncpus);
	hp = strndup(t->header_page.p ? t->header_page.p : "", t->header_page.len);
	if (!hp) {
		tep_free(tep);
		return NULL;
	}
	/* an empty header_page: libtraceevent's "old format" pages, as libtracecmd does */
	tep_parse_header_page(tep, hp, t->header_page.len, 8);
	free(hp);
	for (size_t i = 0; i < t->nformats; i++)
		if (!tep_parse_event(tep, t->formats[i].text.p, t->formats[i].text.len,
				     t->formats[i].system))
			(*parsed)++;
	return tep;
}

/*
 * libtraceevent 1.7's parser leaks what it allocated for a format it then
 * refuses (the fuzzer finds them: 21 bytes of a malformed field). Debian
 * builds it without frame pointers, so LeakSanitizer can name only the
 * library's entry point. Only LeakSanitizer calls this.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:tep_parse_event\n";
}

/* Set by sanitizer runtimes (libFuzzer registers its crash report there). */
extern void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

/*
 * libtraceevent 1.7 trusts a format's text: some corrupt ones crash
 * tep_parse_event() (the fuzzer and tests/unit/test_tracedat.c find them).
 * So the formats are parsed once in a child first, which dies plainly on a
 * crash (default signal actions, no sanitizer callback: a fuzzer parent does
 * not take it for its own) and stops at a CPU-time limit far above what the
 * parse takes. It costs one more parse: ~3 ms for a recording's usual few
 * dozen formats, ~130 ms for all ~2000 of a kernel.
 * Context: any thread; the child calls only libtraceevent, setrlimit, _exit.
 */
#define TRIAL_CPU_S	4

static int formats_trial(struct tload *l)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGXCPU };
	struct rlimit cpu = { TRIAL_CPU_S, TRIAL_CPU_S + 1 };
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return err_set_at(l->err, l->errlen, -errno, l->path, "cannot check the event "
				  "formats: fork: %s", strerror(errno));
	if (pid == 0) {
		struct sigaction sa = { .sa_handler = SIG_DFL };
		unsigned int parsed;

		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			sigaction(sigs[i], &sa, NULL);
		if (__sanitizer_set_death_callback)
			__sanitizer_set_death_callback(NULL);
		setrlimit(RLIMIT_CPU, &cpu);
		_exit(parse_formats(&l->t, l->nstreams, &parsed) ? 0 : 3);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return err_set_at(l->err, l->errlen, -errno, l->path, "cannot check the "
					  "event formats: waitpid: %s", strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status))
		return err_set_at(l->err, l->errlen, -ENOMEM, l->path, "out of memory");
	return err_set_at(l->err, l->errlen, -EBADMSG, l->path, "corrupt trace.dat: its event "
			  "formats %s libtraceevent (signal %d)", WTERMSIG(status) == SIGXCPU ||
			  WTERMSIG(status) == SIGKILL ? "send round without end" : "crash",
			  WTERMSIG(status));
}

/*
 * A field outside any record (libtraceevent reads "offset:4294901772" as
 * -65524): the file is corrupt, said so by name, before a decoder or a
 * writer could use the offset.
 */
static int check_fields(struct tload *l)
{
	int nev = tep_get_events_count(l->tep);

	for (int i = 0; i < nev; i++) {
		struct tep_event *ev = tep_get_event(l->tep, i);
		struct tep_format_field *f = ev ? ev->format.common_fields : NULL;

		for (int k = 0; k < 2; k++, f = ev ? ev->format.fields : NULL)
			for (; f; f = f->next)
				if (!evformat_field_fits(f, UINT16_MAX))
					return err_set_at(l->err, l->errlen, -EBADMSG, l->path,
						"corrupt trace.dat: the format of %s:%s puts "
						"field %s at offset %u, size %u, outside a record",
						ev->system, ev->name, f->name,
						(unsigned int)f->offset, (unsigned int)f->size);
	}
	return 0;
}

static int build_tep(struct tload *l)
{
	struct tdat *t = &l->t;
	unsigned int parsed = 0;
	int ret;

	ret = formats_trial(l);
	if (ret)
		return ret;
	l->tep = parse_formats(t, l->nstreams, &parsed);
	if (!l->tep)
		return err_set_at(l->err, l->errlen, -ENOMEM, l->path, "out of memory");
	if (!parsed)
		return err_set_at(l->err, l->errlen, -EBADMSG, l->path, "corrupt trace.dat: none "
				  "of its %zu event formats parses", t->nformats);
	return check_fields(l);
}

/* saved_cmdlines: "PID COMM" lines. */
static void load_cmdlines(struct tload *l)
{
	const char *p = l->t.cmdlines.p, *end = p + l->t.cmdlines.len;

	while (p && p < end) {
		const char *nl = memchr(p, '\n', end - p), *sp;
		size_t n = (nl ? nl : end) - p;
		char comm[64], num[16];
		long pid;

		sp = memchr(p, ' ', n);
		if (sp && sp > p && (size_t)(sp - p) < sizeof(num) && n - (sp - p) - 1 > 0 &&
		    n - (sp - p) - 1 < sizeof(comm)) {
			snprintf(num, sizeof(num), "%.*s", (int)(sp - p), p);
			snprintf(comm, sizeof(comm), "%.*s", (int)(n - (sp - p) - 1), sp + 1);
			pid = strtol(num, NULL, 10);
			if (pid > 0 && pid < (1l << 30))
				store_set_comm(l->st, (int32_t)pid, comm, STORE_COMM_LAST);
		}
		p = nl ? nl + 1 : end;
	}
}

/* ---- the pages ---------------------------------------------------------------------- */

static int load_cpu(struct tload *l, const struct tdat_buffer *b, const struct tdat_cpu *c,
		    unsigned int stream)
{
	struct decode_stats ds = { 0 };
	struct tdat_pages it;
	struct decoder *d;
	const uint8_t *pages;
	size_t len;
	int ret;

	d = decoder_new(l->dc, stream);
	if (!d)
		return err_set_at(l->err, l->errlen, -ENOMEM, l->path, "out of memory");
	ret = tdat_pages_start(&it, &l->t, b, c);
	while (!ret && (ret = tdat_pages_next(&it, &l->t, &pages, &len)) > 0) {
		ret = 0;
		for (size_t o = 0; o + b->page_size <= len; o += b->page_size)
			if (decoder_page(d, (void *)(pages + o), b->page_size, &ds) < 0)
				ds.bad++;	/* a page that lies about its size: skipped */
	}
	tdat_pages_end(&it);
	decoder_free(d);
	store_seal_idle(l->st, stream);
	l->bad += ds.bad;
	return ret < 0 ? ret : 0;
}

static int load_pages(struct tload *l)
{
	for (size_t i = 0; i < l->nbufs; i++) {
		const struct tdat_buffer *b = l->bufs[i];

		for (size_t k = 0; k < b->nentries; k++) {
			int ret;

			if (!b->cpus[k].size)
				continue;
			ret = load_cpu(l, b, &b->cpus[k], l->cpu0[i] + b->cpus[k].cpu);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* ---- the meta ------------------------------------------------------------------------ */

static char *text_dup(struct tdat_text x)
{
	return x.p ? strndup(x.p, x.len) : NULL;
}

static const char *buffer_name(const struct tdat_buffer *b)
{
	return *b->name ? b->name : TRACEDAT_TOP_BUFFER;
}

/* The kernel's per_cpu/cpuN/stats, one text per CPU, "Buffer: NAME" before an instance's. */
static void meta_cpustats(struct tload *l, struct snapshot_meta *m)
{
	const char *p = l->t.cpustat, *buf = "";
	size_t blen = 0;
	long cpu = -1;

	if (!p || !(m->cpustats = calloc(m->ncpus, sizeof(*m->cpustats))))
		return;
	for (; *p; p += strcspn(p, "\n"), p += *p == '\n') {
		struct snapshot_cpustat *cs = NULL;
		unsigned long long v;
		size_t i;

		if (!strncmp(p, "Buffer: ", 8)) {
			buf = p + 8;
			blen = strcspn(buf, "\n");
			cpu = -1;
			continue;
		}
		if (sscanf(p, "CPU: %ld", &cpu) == 1)
			continue;
		for (i = 0; cpu >= 0 && i < l->nbufs; i++)
			if (strlen(l->bufs[i]->name) == blen && !strncmp(l->bufs[i]->name, buf, blen))
				break;
		if (cpu < 0 || i == l->nbufs || cpu >= (long)l->ncpus[i])
			continue;
		cs = &m->cpustats[l->cpu0[i] + cpu];
		cs->valid = true;
		if (sscanf(p, "entries: %llu", &v) == 1)
			cs->entries = v;
		else if (sscanf(p, "overrun: %llu", &v) == 1)
			cs->overrun = v;
		else if (sscanf(p, "commit overrun: %llu", &v) == 1)
			cs->commit_overrun = v;
		else if (sscanf(p, "dropped events: %llu", &v) == 1)
			cs->dropped = v;
		else if (sscanf(p, "read events: %llu", &v) == 1)
			cs->read = v;
	}
}

/* What the reader shows but does not apply, and what it left out. */
static void meta_notes(struct tload *l, struct snapshot_meta *m)
{
	const struct tdat *t = &l->t;
	size_t n = 0, len = sizeof(m->notes);
	bool clocks = false;

#define NOTE(...) (n += snprintf(m->notes + n, n < len ? len - n : 0, __VA_ARGS__))
	if (l->nbufs > 1 || (l->nbufs == 1 && *l->bufs[0]->name)) {
		NOTE("%zu buffer%s:", l->nbufs, l->nbufs > 1 ? "s" : "");
		for (size_t i = 0; i < l->nbufs; i++) {
			NOTE(" %s (%s)", buffer_name(l->bufs[i]), l->bufs[i]->clock[0] ?
			     l->bufs[i]->clock : "?");
			clocks |= strcmp(l->bufs[i]->clock, l->bufs[0]->clock) != 0;
		}
		NOTE("%s", clocks ? ", each with its own clock, not merged" : "");
	}
	if (t->has_time_shift || t->has_guest)
		NOTE("%sa %s recording (trace-cmd -A): its timestamps are its own clock's, not "
		     "synchronized with the %s", n ? "; " : "", t->has_guest ? "host" : "guest",
		     t->has_guest ? "guests' files" : "host's");
	if (t->has_tsc2nsec)
		NOTE("%sTSC2NSEC not applied: times are TSC counts", n ? "; " : "");
	if (t->has_date || t->has_offset)
		NOTE("%stimestamp offset (--date/--ts-offset) not applied", n ? "; " : "");
	for (size_t i = 0; i < t->nbuffers; i++)
		if (t->buffers[i].text)
			NOTE("%sbuffer %s: latency text left out", n ? "; " : "",
			     buffer_name(&t->buffers[i]));
	if (l->bad)
		NOTE("%s%llu records could not be decoded", n ? "; " : "",
		     (unsigned long long)l->bad);
#undef NOTE
}

static int fill_meta(struct tload *l, struct snapshot_meta *m)
{
	const struct tdat *t = &l->t;
	const char *tool = t->tool_version.p;
	char un[256];

	memset(m, 0, sizeof(*m));
	m->ncpus = l->nstreams;
	m->page_size = t->page_size;
	m->version = t->version;
	snprintf(m->source, sizeof(m->source), "trace.dat");
	snprintf(m->clock, sizeof(m->clock), "%s", t->clock[0] ? t->clock : l->bufs[0]->clock);
	if (t->uname.p) {
		char sys[64], host[65], rel[65];

		snprintf(un, sizeof(un), "%.*s", (int)t->uname.len, t->uname.p);
		/* "(none)": what uname says of an unset name, and what ktop writes for one */
		if (sscanf(un, "%63s %64s %64s", sys, host, rel) == 3) {
			snprintf(m->hostname, sizeof(m->hostname), "%s", strcmp(host, "(none)") ?
				 host : "");
			snprintf(m->release, sizeof(m->release), "%s", strcmp(rel, "(none)") ?
				 rel : "");
		}
	}
	/* ktop names its tracer in VERSION ("ktop 0.1.0 (tracer NAME)") */
	if (tool && t->tool_version.len > 5 && !strncmp(tool, "ktop ", 5)) {
		const char *tr = strstr(tool, "(tracer ");

		if (tr)
			snprintf(m->tracer, sizeof(m->tracer), "%.*s",
				 (int)strcspn(tr + 8, ")"), tr + 8);
	}
	if (!m->tracer[0])
		snprintf(m->tracer, sizeof(m->tracer), "%s", tracedat_infer_tracer(l->st));
	m->header_page = text_dup(t->header_page);
	m->header_event = text_dup(t->header_event);
	m->kallsyms = text_dup(t->kallsyms);
	m->printk = t->printk.len ? text_dup(t->printk) : NULL;
	m->cmdlines = t->cmdlines.len ? text_dup(t->cmdlines) : NULL;
	m->buffers = calloc(l->nbufs, sizeof(*m->buffers));
	if ((t->header_page.p && !m->header_page) || (t->header_event.p && !m->header_event) ||
	    (t->kallsyms.p && !m->kallsyms) || !m->buffers)
		return -ENOMEM;
	m->nbuffers = l->nbufs;
	for (size_t i = 0; i < l->nbufs; i++) {
		struct snapshot_buffer *b = &m->buffers[i];

		snprintf(b->name, sizeof(b->name), "%s", buffer_name(l->bufs[i]));
		snprintf(b->clock, sizeof(b->clock), "%s", l->bufs[i]->clock);
		b->cpu0 = l->cpu0[i];
		b->ncpus = l->ncpus[i];
		b->page_size = l->bufs[i]->page_size;
	}
	for (size_t i = 0; i < t->nformats; i++) {
		char *text = text_dup(t->formats[i].text);
		int ret = text ? snapshot_meta_add_format(m, t->formats[i].system, text) : -ENOMEM;

		free(text);
		if (ret)
			return ret;
	}
	meta_cpustats(l, m);
	meta_notes(l, m);
	return 0;
}

const char *tracedat_infer_tracer(const struct store *st)
{
	struct store_filter f = { .t0 = 0, .t1 = UINT64_MAX, .pid = -1, .cpu = -1 };
	struct store_count c[KTOP_T_NR_FIXED + 64];
	bool seen[KTOP_T_NR_FIXED] = { false };
	size_t n = store_count_by(st, STORE_KEY_TYPE, &f, c, sizeof(c) / sizeof(c[0]));

	for (size_t i = 0; i < n && i < sizeof(c) / sizeof(c[0]); i++)
		if (c[i].key < KTOP_T_NR_FIXED && c[i].count)
			seen[c[i].key] = true;
	/* function_graph's records first: its tracer may also write function records */
	if (seen[KTOP_T_FGRAPH_ENTRY] || seen[KTOP_T_FGRAPH_EXIT])
		return "function_graph";
	if (seen[KTOP_T_TIMERLAT])
		return "timerlat";
	if (seen[KTOP_T_OSNOISE])
		return "osnoise";
	if (seen[KTOP_T_FUNCTION] || seen[KTOP_T_FUNC_REPEATS])
		return "function";
	return "nop";
}

/* ---- loading ---------------------------------------------------------------------------- */

/*
 * The kernel frames of the stacks (kernel_stack records) named now, from the
 * file's kallsyms: the table keeps a name once given, and nothing else will
 * name them later (user frames stay addresses: no process maps in a file).
 */
static void name_stacks(struct tload *l)
{
	struct stacks *sk = store_stacks(l->st);
	uint32_t n = stacks_count(sk);
	struct stack_syms *sy;

	if (!n || !l->syms)
		return;
	sy = stack_syms_new(l->st, l->syms, false);
	if (!sy)
		return;
	for (uint32_t id = 1; id <= n; id++) {
		struct stack_info si;
		struct stack_frame fr;

		if (stacks_get(sk, id, &si))
			continue;
		for (unsigned int i = 0; i < si.nkern; i++)
			stacks_frame(sk, id, i, &fr);
	}
	stack_syms_free(sy);
}

static int load(struct tload *l, const struct tracedat_load_opts *o, struct snapshot_meta *meta)
{
	int ret;

	ret = choose_buffers(l, o ? o->buffer : NULL);
	if (!ret)
		ret = build_tep(l);
	if (ret)
		return ret;
	if (l->t.kallsyms.len)
		l->syms = symbols_parse(l->t.kallsyms.p, l->t.kallsyms.len, 0);
	l->st = store_new(l->mem_limit, l->nstreams);
	if (!l->st)
		return err_set_at(l->err, l->errlen, -ENOMEM, l->path, "out of memory");
	l->dc = decode_ctx_new(l->tep, l->st, l->syms);
	if (!l->dc)
		return err_set_at(l->err, l->errlen, errno == ENOMEM ? -ENOMEM : -EBADMSG,
				  l->path, "corrupt trace.dat: its event formats cannot be decoded "
				  "(%s)", strerror(errno));
	ret = load_pages(l);
	if (ret)
		return ret;
	name_stacks(l);
	/* the kernel's comms at the end of the recording: as trace-cmd report names tasks */
	load_cmdlines(l);
	for (unsigned int s = 0; s < l->nstreams; s++)
		store_publish(l->st, s);
	if (meta && fill_meta(l, meta)) {
		snapshot_meta_free(meta);
		return err_set_at(l->err, l->errlen, -ENOMEM, l->path, "out of memory");
	}
	return 0;
}

int tracedat_load(const char *path, const struct tracedat_load_opts *o, struct store **out,
		  struct snapshot_meta *meta, char *err, size_t errlen)
{
	struct tload l = { .path = path, .err = err, .errlen = errlen };
	struct stat sb;
	uint8_t *map;
	int fd, ret;

	*out = NULL;
	if (meta)
		memset(meta, 0, sizeof(*meta));
	l.mem_limit = o && o->mem_limit ? o->mem_limit : STORE_DEFAULT_MEMORY;
	fd = o && o->fd >= 0 ? o->fd : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set_at(err, errlen, -errno, path, "%s", strerror(errno));
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode))
		ret = err_set_at(err, errlen, -EINVAL, path, "not a regular file (a trace.dat is "
				 "read from a file)");
	else if (sb.st_size < TDAT_MAGIC_LEN)
		ret = err_set_at(err, errlen, -EBADMSG, path, "truncated trace.dat header "
				 "(%lld bytes)", (long long)sb.st_size);
	else
		ret = 0;
	map = ret ? MAP_FAILED : mmap(NULL, sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (!(o && o->fd >= 0))
		close(fd);
	if (ret)
		return ret;
	if (map == MAP_FAILED)
		return err_set_at(err, errlen, -errno, path, "mmap: %s", strerror(errno));
	madvise(map, sb.st_size, MADV_SEQUENTIAL);
	ret = tdat_parse(&l.t, map, sb.st_size, l.mem_limit, path, err, errlen);
	if (!ret)
		ret = load(&l, o, meta);
	if (!ret) {
		*out = l.st;
		l.st = NULL;
	}
	decode_ctx_free(l.dc);
	store_free(l.st);
	symbols_free(l.syms);
	if (l.tep)
		tep_free(l.tep);
	free(l.bufs);
	free(l.cpu0);
	free(l.ncpus);
	tdat_free(&l.t);
	munmap(map, sb.st_size);
	return ret;
}
