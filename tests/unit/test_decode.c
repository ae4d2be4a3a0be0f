// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The decoder against independent readings of the same recorded records:
 *  - libtraceevent's generic by-name path (tep_get_field_val/_raw,
 *    tep_find_function on the fixture's kallsyms) for every argument of
 *    every record;
 *  - the kernel's own trace text (trace.txt) for pid, cpu, timestamp and
 *    event name, record by record;
 *  - the kernel's per-CPU stats (overrun) and the trace header
 *    (entries-in-buffer) for lost and decoded counts.
 *
 * Fixtures: every tests/fixtures/host-* and rt* (rt-, rt612-) directory (KTOP_FIXTURES
 * overrides the root). At least one host fixture must exist; each rt fixture
 * must contain the events of its tracer.
 */
#include <dirent.h>
#include <pthread.h>
#include <errno.h>
#include <stdbool.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

#include "ingest/decode.h"
#include "ingest/fixture.h"
#include "lib/evformat.h"
#include "lib/intern.h"
#include "store/schema.h"
#include "store/store.h"
#include "kernel/symbols.h"
#include "lib/tuning.h"
#include "test.h"

/* A ring-buffer absolute time stamp header: type 31, the low 27 bits of the time. */
#define RB_TIME_STAMP_HDR(lo)	(31u | (uint32_t)(lo) << 5)

#define MAX_FIXTURES 32

static int list_fixtures(const char *prefix, char names[][256], int max)
{
	struct dirent *de;
	int n = 0;
	DIR *d = opendir(fixture_root());

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		char hp[300];

		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		/* record_fixture's output; other tests keep other data under rt-* too */
		snprintf(hp, sizeof(hp), "%.120s/%.120s/header_page", fixture_root(), de->d_name);
		if (access(hp, R_OK))
			continue;
		snprintf(names[n++], 256, "%.120s/%.120s", fixture_root(), de->d_name);
	}
	closedir(d);
	return n;
}

struct env {
	struct fixture		*fx;
	struct tep_handle	*tep;
	struct store		*st;
	struct symbols		*syms;
	struct decode_ctx	*dc;
	struct decoder		*d;
	struct trace_seq	s;
	const char		*name;
	bool			negate;	/* set the sign bit of every integer field first */
	uint8_t			copy[65536];
	/* results */
	uint64_t		records;
	uint64_t		by_type[KTOP_T_DYNAMIC + 1];
	uint64_t		dynamic;
	uint64_t		args_checked;
	int32_t			exec_pid;	/* last exec on this CPU, checked at switch-out */
	char			exec_comm[32];
	uint64_t		exec_checked;
	uint64_t		exec_renamed;	/* exec comm changed later, untraced */
	uint64_t		renames_checked;
	char			fail[512];
};

static int env_open(struct env *e, const char *dir, unsigned int cpu)
{
	memset(e, 0, sizeof(*e));
	e->name = dir;
	e->fx = fixture_open(dir);
	if (!e->fx)
		return -1;
	e->tep = fixture_tep(e->fx);
	e->st = store_new(0, fixture_ncpus(e->fx));
	e->syms = symbols_load(fixture_path(e->fx, "kallsyms"));	/* may be NULL */
	e->dc = e->st ? decode_ctx_new(e->tep, e->st, e->syms) : NULL;
	e->d = e->dc ? decoder_new(e->dc, cpu) : NULL;
	trace_seq_init(&e->s);
	return e->d ? 0 : -1;
}

static void env_close(struct env *e)
{
	decoder_free(e->d);
	decode_ctx_free(e->dc);
	symbols_free(e->syms);
	store_free(e->st);
	fixture_close(e->fx);
	trace_seq_destroy(&e->s);
}

static uint64_t sext(uint64_t v, int size)
{
	switch (size) {
	case 1:
		return (uint64_t)(int64_t)(int8_t)v;
	case 2:
		return (uint64_t)(int64_t)(int16_t)v;
	case 4:
		return (uint64_t)(int64_t)(int32_t)v;
	default:
		return v;
	}
}

/* Expected symbol text for @addr, through libtraceevent's own kallsyms table. */
/*
 * The name libtraceevent gives @addr; "name+0xoff" when the decoder kept the
 * offset (@got says so: a field the format prints with %pS; test_export
 * checks that choice against the kernel's own text).
 */
static void expect_sym(struct env *e, uint64_t addr, const char *got, char *buf, size_t len)
{
	const char *fn = tep_find_function(e->tep, addr);
	unsigned long long start = fn ? tep_find_function_address(e->tep, addr) : 0;

	if (fn && strstr(got, "+0x") && addr > start)
		snprintf(buf, len, "%s+0x%llx", fn, (unsigned long long)addr - start);
	else if (fn)
		snprintf(buf, len, "%s", fn);
	else
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
}

static int failf(struct env *e, const char *what, struct tep_event *ev, const char *field,
		 const char *got, const char *want)
{
	snprintf(e->fail, sizeof(e->fail),
		 "%.100s: record %llu %.40s:%.40s field %.40s: got '%.100s' want '%.100s' (%.40s)",
		 e->name, (unsigned long long)e->records, ev->system, ev->name, field, got, want,
		 what);
	return 1;
}

/* One argument slot against libtraceevent. Return: 0 or 1 (e->fail set). */
static int check_arg(struct env *e, struct tep_event *ev, struct tep_record *rec,
		     const struct ktop_schema_type *t, unsigned int i, const struct ktop_event *k)
{
	const struct ktop_field *kf = &t->fields[i];
	struct intern *in = store_strings(e->st);
	char want[512], got[512], name[64];
	struct tep_format_field *f;
	unsigned long long val;
	const char *br;
	int len;
	void *raw;

	br = strchr(kf->name, '[');
	snprintf(name, sizeof(name), "%.*s", br ? (int)(br - kf->name) : (int)strlen(kf->name),
		 kf->name);
	f = tep_find_field(ev, name);
	if (!f) {
		/* absent in this kernel: the decoder must give 0 */
		if (k->args[i])
			return failf(e, "absent field not zero", ev, kf->name, "nonzero", "0");
		return 0;
	}
	if (br) {
		unsigned int idx = strtoul(br + 1, NULL, 10);
		unsigned int esz = f->elementsize ? f->elementsize : f->size / f->arraylen;

		val = tep_read_number(e->tep, (char *)rec->data + f->offset + idx * esz, esz);
		if (k->args[i] != val) {
			snprintf(got, sizeof(got), "%llu", (unsigned long long)k->args[i]);
			snprintf(want, sizeof(want), "%llu", val);
			return failf(e, "array element", ev, kf->name, got, want);
		}
		return 0;
	}
	switch (kf->kind) {
	case KTOP_FK_INT:
	case KTOP_FK_UINT:
	case KTOP_FK_HEX:
		if (tep_get_field_val(&e->s, ev, name, rec, &val, 0))
			return failf(e, "tep_get_field_val failed", ev, kf->name, "", "");
		if (f->flags & TEP_FIELD_IS_SIGNED)
			val = sext(val, f->size);
		if (!strcmp(t->name, "func_repeats") && !strcmp(name, "top_delta_ts")) {
			unsigned long long bottom;

			tep_get_field_val(&e->s, ev, "bottom_delta_ts", rec, &bottom, 0);
			val = (val << 32) | bottom;
		}
		if (k->args[i] != val) {
			snprintf(got, sizeof(got), "%#llx", (unsigned long long)k->args[i]);
			snprintf(want, sizeof(want), "%#llx", val);
			return failf(e, "integer", ev, kf->name, got, want);
		}
		return 0;
	case KTOP_FK_SYM:
		if (tep_get_field_val(&e->s, ev, name, rec, &val, 0))
			return failf(e, "tep_get_field_val failed", ev, kf->name, "", "");
		snprintf(got, sizeof(got), "%s", intern_str(in, k->args[i]));
		expect_sym(e, val, got, want, sizeof(want));
		if (strcmp(got, want))
			return failf(e, "symbol", ev, kf->name, got, want);
		return 0;
	case KTOP_FK_STR:
		raw = tep_get_field_raw(&e->s, ev, name, rec, &len, 0);
		if (!raw && len)
			return failf(e, "tep_get_field_raw failed", ev, kf->name, "", "");
		if (evformat_field_is_text(f)) {
			if (!(f->flags & TEP_FIELD_IS_DYNAMIC) && !f->size)
				len = rec->size - f->offset;	/* char[] at the end */
			snprintf(want, sizeof(want), "%.*s", (int)strnlen(raw ? raw : "", len),
				 raw ? (char *)raw : "");
		} else {
			int n = 0;

			for (int b = 0; b < len && b < 64; b++)
				n += snprintf(want + n, sizeof(want) - n, "%02x",
					      ((unsigned char *)raw)[b]);
			want[n] = '\0';
		}
		snprintf(got, sizeof(got), "%s", intern_str(in, k->args[i]));
		if (strcmp(got, want))
			return failf(e, "string", ev, kf->name, got, want);
		return 0;
	}
	return failf(e, "unknown kind", ev, kf->name, "", "");
}

/* The number of fields libtraceevent sees that the decoder could keep. */
static unsigned int keepable_fields(struct tep_event *ev)
{
	unsigned int n = 0;

	for (struct tep_format_field *f = ev->format.fields; f; f = f->next) {
		if (f->flags & TEP_FIELD_IS_DYNAMIC)
			n += f->size == 4;
		else if (f->flags & TEP_FIELD_IS_ARRAY)
			n += evformat_field_is_text(f) || (f->size && f->size <= 64);
		else
			n += f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8;
	}
	return n > KTOP_MAX_ARGS ? KTOP_MAX_ARGS : n;
}

/*
 * What the kernel guarantees about the tracers' own records, on top of the
 * field-by-field agreement: addresses the fixture's kallsyms covers resolve
 * to names, a function returns after it was called, a sample's noise fits in
 * its runtime.
 */
static int check_semantics(struct env *e, struct tep_event *ev, const struct ktop_event *k)
{
	struct intern *in = store_strings(e->st);
	char got[64], want[64];

	switch (k->type) {
	case KTOP_T_FUNCTION:
	case KTOP_T_FGRAPH_ENTRY:
	case KTOP_T_FGRAPH_EXIT:
		if (e->syms && !strncmp(intern_str(in, k->args[0]), "0x", 2))
			return failf(e, "function address not resolved", ev, "ip/func",
				     intern_str(in, k->args[0]), "a symbol");
		if (k->type == KTOP_T_FGRAPH_EXIT && k->args[3] < k->args[2]) {
			snprintf(got, sizeof(got), "%llu", (unsigned long long)k->args[3]);
			snprintf(want, sizeof(want), ">= %llu", (unsigned long long)k->args[2]);
			return failf(e, "returned before called", ev, "rettime", got, want);
		}
		break;
	case KTOP_T_OSNOISE:
		if (k->args[1] > k->args[0] || k->args[2] > k->args[1]) {	/* all in us */
			snprintf(got, sizeof(got), "noise %llu max %llu",
				 (unsigned long long)k->args[1], (unsigned long long)k->args[2]);
			snprintf(want, sizeof(want), "within runtime %llu",
				 (unsigned long long)k->args[0]);
			return failf(e, "noise", ev, "noise", got, want);
		}
		break;
	case KTOP_T_TIMERLAT:
		if (k->args[1] > 2) {	/* irq, thread (and user-space return on newer kernels) */
			snprintf(got, sizeof(got), "%llu", (unsigned long long)k->args[1]);
			return failf(e, "context", ev, "context", got, "0, 1 or 2");
		}
		break;
	}
	return 0;
}

static int check_record(void *arg, unsigned int cpu, unsigned long long ts, void *data, int size)
{
	struct env *e = arg;
	struct tep_record rec = { .ts = ts, .cpu = cpu, .data = data, .size = size };
	const struct ktop_schema_type *t;
	unsigned long long val;
	struct ktop_event k;
	struct tep_event *ev;
	char got[64], want[64];

	e->records++;
	ev = tep_find_event(e->tep, tep_data_type(e->tep, &rec));
	if (!ev) {
		snprintf(e->fail, sizeof(e->fail), "%s: record %llu: unknown event id", e->name,
			 (unsigned long long)e->records);
		return 1;
	}
	if (e->negate && size <= (int)sizeof(e->copy)) {
		/* the same record with every integer field made negative */
		memcpy(e->copy, data, size);
		for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
			if (!(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) &&
			    f->size && f->offset + f->size <= size)
				e->copy[f->offset + f->size - 1] |= 0x80;
		data = e->copy;
		rec.data = data;
	}
	if (decoder_record(e->d, data, size, ts, &k)) {
		snprintf(e->fail, sizeof(e->fail), "%s: record %llu %s:%s: decoder_record failed",
			 e->name, (unsigned long long)e->records, ev->system, ev->name);
		return 1;
	}
	if (k.ts != ts || k.cpu != cpu)
		return failf(e, "ts/cpu", ev, "-", "", "");
	tep_get_common_field_val(&e->s, ev, "common_pid", &rec, &val, 0);
	if ((uint64_t)(int64_t)k.pid != sext(val, 4))
		return failf(e, "common", ev, "common_pid", "", "");
	tep_get_common_field_val(&e->s, ev, "common_flags", &rec, &val, 0);
	if (k.flags != val)
		return failf(e, "common", ev, "common_flags", "", "");
	tep_get_common_field_val(&e->s, ev, "common_preempt_count", &rec, &val, 0);
	if (k.pc != val)
		return failf(e, "common", ev, "common_preempt_count", "", "");
	t = schema_get(store_schema(e->st), k.type);
	if (!t)
		return failf(e, "no schema", ev, "-", "", "");
	if (strcmp(t->name, ev->name) || strcmp(t->system, ev->system))
		return failf(e, "type", ev, "-", t->name, ev->name);
	if (k.nargs != t->nfields) {
		snprintf(got, sizeof(got), "%u", k.nargs);
		snprintf(want, sizeof(want), "%u", t->nfields);
		return failf(e, "nargs", ev, "-", got, want);
	}
	if (k.type >= KTOP_T_DYNAMIC && t->nfields != keepable_fields(ev)) {
		snprintf(got, sizeof(got), "%u", t->nfields);
		snprintf(want, sizeof(want), "%u", keepable_fields(ev));
		return failf(e, "dynamic field count", ev, "-", got, want);
	}
	for (unsigned int i = 0; i < t->nfields; i++) {
		if (check_arg(e, ev, &rec, t, i, &k))
			return 1;
		e->args_checked++;
	}
	/* comm as the store now knows it, against the record's own comm fields */
	if (e->negate)
		;	/* pids made negative: no comm kept */
	else if (k.type == KTOP_T_SCHED_SWITCH || k.type == KTOP_T_SCHED_WAKEUP ||
	    k.type == KTOP_T_SCHED_WAKEUP_NEW || k.type == KTOP_T_SCHED_PROCESS_EXIT) {
		const char *cf = k.type == KTOP_T_SCHED_SWITCH ? "next_comm" : "comm";
		const char *pf = k.type == KTOP_T_SCHED_SWITCH ? "next_pid" : "pid";
		const char *have;
		int len;
		char *c = tep_get_field_raw(&e->s, ev, cf, &rec, &len, 0);

		tep_get_field_val(&e->s, ev, pf, &rec, &val, 0);
		snprintf(want, sizeof(want), "%.*s", (int)strnlen(c, len), c);
		have = store_comm(e->st, (int32_t)val);
		if ((int32_t)val > 0 && (!have || strcmp(have, want)))
			return failf(e, "store_comm", ev, cf, have ? have : "(null)", want);
	}
	if (k.type == KTOP_T_SCHED_PROCESS_EXEC && !e->negate) {
		/* the kernel sets comm from the file name: compare with its next switch-out */
		const char *have;

		tep_get_field_val(&e->s, ev, "pid", &rec, &val, 0);
		have = store_comm(e->st, (int32_t)val);
		if (!have)
			return failf(e, "store_comm after exec", ev, "filename", "(null)", "set");
		e->exec_pid = (int32_t)val;
		snprintf(e->exec_comm, sizeof(e->exec_comm), "%s", have);
	}
	if (k.type == KTOP_T_SCHED_SWITCH && !e->negate && e->exec_pid) {
		int len;
		char *c = tep_get_field_raw(&e->s, ev, "prev_comm", &rec, &len, 0);

		tep_get_field_val(&e->s, ev, "prev_pid", &rec, &val, 0);
		if ((int32_t)val == e->exec_pid) {
			snprintf(want, sizeof(want), "%.*s", (int)strnlen(c, len), c);
			e->exec_pid = 0;
			if (strcmp(want, e->exec_comm)) {
				/*
				 * A task may rename itself after exec (busybox applets
				 * do): only a fixture that traced task_rename can
				 * tell, so elsewhere the mismatch is counted, not failed.
				 */
				if (tep_find_event_by_name(e->tep, "task", "task_rename"))
					return failf(e, "comm derived at exec vs kernel's prev_comm",
						     ev, "prev_comm", e->exec_comm, want);
				printf("  note: %s: pid %d: exec named it %s, later %s "
				       "(renamed? task_rename not traced)\n", e->name,
				       (int)val, e->exec_comm, want);
				e->exec_renamed++;
			} else {
				e->exec_checked++;
			}
		}
	}
	if (!e->negate && k.type >= KTOP_T_DYNAMIC &&
	    ((!strcmp(ev->system, "task") && !strcmp(ev->name, "task_rename")) ||
	     (!strcmp(ev->system, "sched") && !strcmp(ev->name, "sched_process_fork")))) {
		bool fork = !strcmp(ev->name, "sched_process_fork");
		const char *have;
		int len;
		char *c = tep_get_field_raw(&e->s, ev, fork ? "child_comm" : "newcomm", &rec,
					    &len, 0);

		if (tep_get_field_val(&e->s, ev, fork ? "child_pid" : "pid", &rec, &val, 0))
			tep_get_common_field_val(&e->s, ev, "common_pid", &rec, &val, 0);
		snprintf(want, sizeof(want), "%.*s", (int)strnlen(c, len), c);
		have = store_comm(e->st, (int32_t)val);
		if ((int32_t)val > 0 && (!have || strcmp(have, want)))
			return failf(e, "store_comm", ev, fork ? "child_comm" : "newcomm",
				     have ? have : "(null)", want);
		if ((int32_t)val == e->exec_pid)
			snprintf(e->exec_comm, sizeof(e->exec_comm), "%.31s", want);
		e->renames_checked++;
	}
	if (!e->negate && check_semantics(e, ev, &k))
		return 1;
	e->by_type[k.type < KTOP_T_DYNAMIC ? k.type : KTOP_T_DYNAMIC]++;
	return 0;
}

struct fixture_totals {
	uint64_t	records;
	uint64_t	by_type[KTOP_T_DYNAMIC + 1];
	uint64_t	args;
	uint64_t	exec_checked;
	uint64_t	renames_checked;
	char		tracer[64];
};

/* Every record of every CPU of @dir against libtraceevent. Return: 0 or 1. */
static int check_fixture(const char *dir, struct fixture_totals *tot, bool negate)
{
	struct fixture *fx = fixture_open(dir);
	unsigned int ncpus;
	const char *tr;

	memset(tot, 0, sizeof(*tot));
	if (!fx) {
		printf("  %s: fixture_open: %s\n", dir, strerror(errno));
		return 1;
	}
	ncpus = fixture_ncpus(fx);
	tr = fixture_meta(fx, "tracer");
	snprintf(tot->tracer, sizeof(tot->tracer), "%s", tr ? tr : "nop");
	fixture_close(fx);
	for (unsigned int cpu = 0; cpu < ncpus; cpu++) {
		struct env *e = calloc(1, sizeof(*e));
		int ret;

		if (!e || env_open(e, dir, cpu)) {
			printf("  %s: setup failed: %s\n", dir, strerror(errno));
			free(e);
			return 1;
		}
		e->negate = negate;
		ret = fixture_for_each_record(e->fx, cpu, check_record, e);
		if (ret)
			printf("  %s\n", e->fail[0] ? e->fail : "fixture_for_each_record failed");
		tot->records += e->records;
		tot->args += e->args_checked;
		tot->exec_checked += e->exec_checked;
		tot->renames_checked += e->renames_checked;
		for (int i = 0; i <= KTOP_T_DYNAMIC; i++)
			tot->by_type[i] += e->by_type[i];
		env_close(e);
		free(e);
		if (ret)
			return 1;
	}
	printf("  %s: %llu records, %llu arguments, %llu exec and %llu fork/rename comms "
	       "checked (tracer %s)\n   ", dir, (unsigned long long)tot->records,
	       (unsigned long long)tot->args, (unsigned long long)tot->exec_checked,
	       (unsigned long long)tot->renames_checked, tot->tracer);
	{
		struct schema *sc = schema_new();

		for (int t = 1; t <= KTOP_T_DYNAMIC; t++) {
			const struct ktop_schema_type *st = sc ? schema_get(sc, t) : NULL;

			if (tot->by_type[t])
				printf(" %s=%llu", t == KTOP_T_DYNAMIC ? "other" :
				       st ? st->name : "?", (unsigned long long)tot->by_type[t]);
		}
		printf("\n");
		schema_free(sc);
	}
	return 0;
}

TEST(host_fixtures_decode_like_libtraceevent)
{
	char names[MAX_FIXTURES][256];
	int n = list_fixtures("host-", names, MAX_FIXTURES);
	struct fixture_totals tot, all = { 0 };

	CHECK(n > 0);	/* committed with the decoder: missing means broken checkout */
	for (int i = 0; i < n; i++) {
		CHECK(check_fixture(names[i], &tot, false) == 0);
		all.records += tot.records;
		all.exec_checked += tot.exec_checked;
		all.renames_checked += tot.renames_checked;
		for (int t = 0; t <= KTOP_T_DYNAMIC; t++)
			all.by_type[t] += tot.by_type[t];
	}
	/* the host fixtures were recorded with sched, raw_syscalls, irq and timer on */
	CHECK(all.by_type[KTOP_T_SCHED_SWITCH] > 0);
	CHECK(all.by_type[KTOP_T_SCHED_WAKEUP] > 0);
	CHECK(all.by_type[KTOP_T_SYS_ENTER] > 0);
	CHECK(all.by_type[KTOP_T_SYS_EXIT] > 0);
	CHECK(all.by_type[KTOP_T_SCHED_PROCESS_EXEC] > 0);
	CHECK(all.by_type[KTOP_T_IRQ_HANDLER_ENTRY] > 0);
	CHECK(all.by_type[KTOP_T_IRQ_HANDLER_EXIT] > 0);
	CHECK(all.by_type[KTOP_T_SOFTIRQ_ENTRY] > 0);
	CHECK(all.by_type[KTOP_T_DYNAMIC] > 0);
	CHECK(all.exec_checked > 0);
	CHECK(all.renames_checked > 0);
}

TEST(rt_fixtures_decode_like_libtraceevent)
{
	char names[MAX_FIXTURES][256];
	int n = list_fixtures("rt", names, MAX_FIXTURES);
	struct fixture_totals tot;

	if (!n) {
		/* none on disk: fine only while none is committed either */
		FILE *git = popen("git ls-files -- tests/fixtures 2>/dev/null | "
				  "grep -c '^tests/fixtures/rt[^/]*/header_page$'", "r");
		int committed = 0;

		if (git) {
			if (fscanf(git, "%d", &committed) != 1)
				committed = 0;
			pclose(git);
		}
		printf("  note: no rt* fixture in %s (%d committed)\n", fixture_root(),
		       committed);
		CHECK(committed == 0 || strcmp(fixture_root(), "tests/fixtures"));
	}
	for (int i = 0; i < n; i++) {
		CHECK(check_fixture(names[i], &tot, false) == 0);
		CHECK(tot.records > 0);
		/* each tracer's own records must be there and decoded as their fixed type */
		if (!strcmp(tot.tracer, "function"))
			CHECK(tot.by_type[KTOP_T_FUNCTION] + tot.by_type[KTOP_T_FUNC_REPEATS] > 0);
		if (!strcmp(tot.tracer, "function_graph")) {
			CHECK(tot.by_type[KTOP_T_FGRAPH_ENTRY] > 0);
			CHECK(tot.by_type[KTOP_T_FGRAPH_EXIT] > 0);
		}
		if (!strcmp(tot.tracer, "osnoise"))
			CHECK(tot.by_type[KTOP_T_OSNOISE] > 0);
		if (!strcmp(tot.tracer, "timerlat"))
			CHECK(tot.by_type[KTOP_T_TIMERLAT] > 0);
	}
}

/* Sign extension of every integer size: the same records, fields made negative. */
TEST(negative_integers_like_libtraceevent)
{
	char names[2 * MAX_FIXTURES][256];
	int n = list_fixtures("host-", names, MAX_FIXTURES);
	struct fixture_totals tot;

	n += list_fixtures("rt", names + n, MAX_FIXTURES);
	CHECK(n > 0);
	for (int i = 0; i < n; i++)
		CHECK(check_fixture(names[i], &tot, true) == 0);
}

/* ---- whole pages: counts, lost events, the store --------------------------- */

static uint64_t stats_value(const char *text, const char *key)
{
	const char *p = text ? strstr(text, key) : NULL;

	return p ? strtoull(p + strlen(key), NULL, 10) : UINT64_MAX;
}

/* Missed-event marks without a count, as kbuffer reads the pages. */
static uint64_t unknown_marks(struct fixture *fx, unsigned int cpu)
{
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	uint64_t n = 0;

	for (size_t i = 0; kb && i < fixture_npages(fx, cpu); i++)
		if (kbuffer_load_subbuffer(kb, fixture_page(fx, cpu, i)) >= 0 &&
		    kbuffer_missed_events(kb) < 0)
			n++;
	kbuffer_free(kb);
	return n;
}

static int check_pages(const char *dir)
{
	struct fixture *fx = fixture_open(dir);
	struct decode_stats ds = { 0 };
	struct store_stats ss;
	struct decode_ctx *dc;
	struct store *st;
	uint64_t entries = UINT64_MAX, total = 0, unknown_total = 0;
	char *text;
	int bad = 0;

	if (!fx)
		return 1;
	st = store_new(0, fixture_ncpus(fx));
	dc = decode_ctx_new(fixture_tep(fx), st, NULL);
	if (!dc) {
		fixture_close(fx);
		store_free(st);
		return 1;
	}
	for (unsigned int cpu = 0; cpu < fixture_ncpus(fx); cpu++) {
		struct decoder *d = decoder_new(dc, cpu);
		struct decode_stats cs = { 0 };
		char name[32], *stats;
		uint64_t overrun, unknown;

		for (size_t i = 0; i < fixture_npages(fx, cpu); i++) {
			int n = decoder_page(d, fixture_page(fx, cpu, i), fixture_page_size(fx), &cs);

			if (n < 0) {
				printf("  %s: cpu%u page %zu: %d\n", dir, cpu, i, n);
				bad++;
			}
		}
		decoder_free(d);
		snprintf(name, sizeof(name), "stats%u", cpu);
		stats = fixture_read_file(fixture_path(fx, name), NULL);
		overrun = stats_value(stats, "overrun: ");
		free(stats);
		/*
		 * The kernel's own count of what it overwrote on this CPU. A page
		 * too full to hold the count carries a mark without one (kbuffer
		 * says -1): then the pages can only tell "at least".
		 */
		unknown = unknown_marks(fx, cpu);
		if (overrun != UINT64_MAX && (unknown ? overrun < cs.missed : overrun != cs.missed)) {
			printf("  %s: cpu%u: missed %llu, kernel overrun %llu\n", dir, cpu,
			       (unsigned long long)cs.missed, (unsigned long long)overrun);
			bad++;
		}
		if (cs.bad) {
			printf("  %s: cpu%u: %llu bad records\n", dir, cpu,
			       (unsigned long long)cs.bad);
			bad++;
		}
		unknown_total += unknown;
		ds.events += cs.events;
		ds.missed += cs.missed;
		ds.missed_marks += cs.missed_marks;
		total += cs.events;
	}
	store_get_stats(st, &ss);
	if (ss.events != total || ss.lost != ds.missed || ss.lost_marks != ds.missed_marks) {
		printf("  %s: store holds %llu events / %llu lost, decoded %llu / %llu\n", dir,
		       (unsigned long long)ss.events, (unsigned long long)ss.lost,
		       (unsigned long long)total, (unsigned long long)ds.missed);
		bad++;
	}
	/* "# entries-in-buffer/entries-written: N/M" from the kernel */
	text = fixture_read_file(fixture_path(fx, "trace.txt"), NULL);
	if (text)
		entries = stats_value(text, "entries-in-buffer/entries-written: ");
	free(text);
	if (entries != UINT64_MAX && entries != total) {
		printf("  %s: decoded %llu events, kernel says %llu in buffer\n", dir,
		       (unsigned long long)total, (unsigned long long)entries);
		bad++;
	}
	printf("  %s: %llu events, %llu missed in %llu marks (%llu without a count)\n", dir,
	       (unsigned long long)total, (unsigned long long)ds.missed,
	       (unsigned long long)ds.missed_marks, (unsigned long long)unknown_total);
	decode_ctx_free(dc);
	store_free(st);
	fixture_close(fx);
	return bad;
}

TEST(pages_counts_match_kernel)
{
	char names[2 * MAX_FIXTURES][256];
	int n = list_fixtures("host-", names, MAX_FIXTURES);

	n += list_fixtures("rt", names + n, MAX_FIXTURES);
	CHECK(n > 0);
	for (int i = 0; i < n; i++)
		CHECK(check_pages(names[i]) == 0);
}

/* ---- decoder_page's own page walk against kbuffer's ----------------------- */

struct walk_cmp {
	struct decoder	*d;
	struct store	*st;
	unsigned int	cpu;
	uint64_t	seq, end;
	char		fail[256];
};

static int walk_cmp_record(void *arg, unsigned int cpu, unsigned long long ts, void *data,
			   int size)
{
	struct walk_cmp *w = arg;
	struct ktop_event a, b;

	if (w->seq >= w->end) {
		snprintf(w->fail, sizeof(w->fail), "cpu%u: page walk gave only %llu events", cpu,
			 (unsigned long long)w->end);
		return 1;
	}
	if (store_get(w->st, cpu, w->seq, &a) || decoder_record(w->d, data, size, ts, &b)) {
		snprintf(w->fail, sizeof(w->fail), "cpu%u seq %llu: not readable", cpu,
			 (unsigned long long)w->seq);
		return 1;
	}
	if (a.ts != b.ts || a.type != b.type || a.pid != b.pid || a.flags != b.flags ||
	    a.pc != b.pc || a.nargs != b.nargs ||
	    memcmp(a.args, b.args, a.nargs * sizeof(a.args[0]))) {
		snprintf(w->fail, sizeof(w->fail),
			 "cpu%u seq %llu: page walk ts %llu type %u, kbuffer ts %llu type %u", cpu,
			 (unsigned long long)w->seq, (unsigned long long)a.ts, a.type,
			 (unsigned long long)b.ts, b.type);
		return 1;
	}
	w->seq++;
	return 0;
}

static int check_walk(const char *dir, bool kbuffer_walk)
{
	struct fixture *fx = fixture_open(dir);
	struct decode_ctx *dc;
	struct store *st;
	int bad = 0;

	if (!fx)
		return 1;
	st = store_new(0, fixture_ncpus(fx));
	if (kbuffer_walk)
		setenv("KTOP_DECODE_KBUFFER_WALK", "1", 1);
	tuning_init(NULL, 0);
	dc = decode_ctx_new(fixture_tep(fx), st, NULL);
	unsetenv("KTOP_DECODE_KBUFFER_WALK");
	tuning_init(NULL, 0);
	for (unsigned int cpu = 0; dc && cpu < fixture_ncpus(fx) && !bad; cpu++) {
		struct decoder *d = decoder_new(dc, cpu);
		struct walk_cmp w = { .d = d, .st = st, .cpu = cpu };
		uint64_t first;

		for (size_t i = 0; i < fixture_npages(fx, cpu); i++)
			decoder_page(d, fixture_page(fx, cpu, i), fixture_page_size(fx), NULL);
		store_cpu_range(st, cpu, &first, &w.end);
		w.seq = first;
		bad = fixture_for_each_record(fx, cpu, walk_cmp_record, &w);
		if (!bad && w.seq != w.end) {
			snprintf(w.fail, sizeof(w.fail), "cpu%u: page walk gave %llu more events",
				 cpu, (unsigned long long)(w.end - w.seq));
			bad = 1;
		}
		if (bad)
			printf("  %s (%s walk): %s\n", dir, kbuffer_walk ? "kbuffer" : "own",
			       w.fail);
		decoder_free(d);
	}
	decode_ctx_free(dc);
	store_free(st);
	fixture_close(fx);
	return bad || !dc;
}

TEST(page_walk_matches_kbuffer)
{
	char names[2 * MAX_FIXTURES][256];
	int n = list_fixtures("host-", names, MAX_FIXTURES);

	n += list_fixtures("rt", names + n, MAX_FIXTURES);
	CHECK(n > 0);
	for (int i = 0; i < n; i++) {
		CHECK(check_walk(names[i], false) == 0);
		CHECK(check_walk(names[i], true) == 0);
	}
}

/* ---- the kernel's text, record by record ---------------------------------- */

struct text_line {
	int		pid;
	unsigned int	cpu;
	char		flags[16];
	char		ts[32];
	char		name[64];	/* "" when the line has no "name:" */
};

/* Parse "TASK-PID [CPU] FLAGS SECS.USECS: NAME: ..." Return: true when it is one. */
static bool parse_line(const char *l, struct text_line *t)
{
	const char *br = strstr(l, "] "), *lb, *p, *dash;
	int n;

	if (*l == '#' || !br)
		return false;
	for (lb = br; lb > l && *lb != '['; lb--)
		;
	if (lb == l || lb[-1] != ' ')
		return false;
	t->cpu = strtoul(lb + 1, NULL, 10);
	for (p = lb - 1; p > l && *p == ' '; p--)
		;
	for (dash = p; dash > l && *dash != '-'; dash--)
		;
	t->pid = strtol(dash + 1, NULL, 10);
	if (sscanf(br + 2, "%15s %31[0-9.]: %n", t->flags, t->ts, &n) != 2)
		return false;
	p = br + 2 + n;
	t->name[0] = '\0';
	if (strchr(p, ':') && strcspn(p, ": ") == strcspn(p, ":"))
		snprintf(t->name, sizeof(t->name), "%.*s", (int)strcspn(p, ":"), p);
	return true;
}

struct text_cmp {
	struct env	*e;
	char		*text;	/* strtok'd lines of this CPU, in order */
	char		*save;
	unsigned int	cpu;
	uint64_t	matched;
	bool		check_names;
	char		fail[512];
};

static bool next_line(struct text_cmp *c, struct text_line *t)
{
	char *l;

	while ((l = strtok_r(c->text, "\n", &c->save))) {
		c->text = NULL;
		if (parse_line(l, t) && t->cpu == c->cpu)
			return true;
	}
	return false;
}

static int cmp_text(void *arg, unsigned int cpu, unsigned long long ts, void *data, int size)
{
	struct text_cmp *c = arg;
	struct tep_record rec = { .ts = ts, .cpu = cpu, .data = data, .size = size };
	struct ktop_event k;
	struct text_line t;
	struct tep_event *ev;
	unsigned long long us = (ts + 500) / 1000;	/* the kernel's ns2usecs() */
	char want_ts[32];

	if (!next_line(c, &t)) {
		snprintf(c->fail, sizeof(c->fail), "cpu%u: text ends before record %llu", cpu,
			 (unsigned long long)c->matched);
		return 1;
	}
	if (decoder_record(c->e->d, data, size, ts, &k))
		return 1;
	ev = tep_find_event(c->e->tep, tep_data_type(c->e->tep, &rec));
	snprintf(want_ts, sizeof(want_ts), "%llu.%06llu", us / 1000000, us % 1000000);
	if (t.pid != k.pid || strcmp(t.ts, want_ts) ||
	    (c->check_names && t.name[0] && ev && strcmp(ev->system, "ftrace") &&
	     strcmp(t.name, ev->name))) {
		snprintf(c->fail, sizeof(c->fail),
			 "cpu%u record %llu: text pid %d ts %s name %s; decoded pid %d ts %s name %s",
			 cpu, (unsigned long long)c->matched, t.pid, t.ts, t.name, k.pid, want_ts,
			 ev ? ev->name : "?");
		return 1;
	}
	c->matched++;
	return 0;
}

TEST(records_match_kernel_text)
{
	char names[2 * MAX_FIXTURES][256];
	int n = list_fixtures("host-", names, MAX_FIXTURES), checked = 0;

	n += list_fixtures("rt", names + n, MAX_FIXTURES);
	CHECK(n > 0);
	for (int i = 0; i < n; i++) {
		struct fixture *fx = fixture_open(names[i]);
		const char *tr;
		bool graph;
		unsigned int ncpus;
		char *text0;

		CHECK(fx);
		tr = fixture_meta(fx, "tracer");
		graph = tr && !strcmp(tr, "function_graph");	/* its text has no such columns */
		ncpus = fixture_ncpus(fx);
		text0 = fixture_read_file(fixture_path(fx, "trace.txt"), NULL);
		free(text0);
		if (graph || !text0) {
			fixture_close(fx);
			continue;
		}
		fixture_close(fx);
		for (unsigned int cpu = 0; cpu < ncpus; cpu++) {
			struct text_cmp c = { .cpu = cpu, .check_names = true };
			struct env *e = calloc(1, sizeof(*e));
			struct text_line t;
			char *text;
			int ret;

			CHECK(e && env_open(e, names[i], cpu) == 0);
			text = fixture_read_file(fixture_path(e->fx, "trace.txt"), NULL);
			c.e = e;
			c.text = text;
			ret = fixture_for_each_record(e->fx, cpu, cmp_text, &c);
			if (!ret && next_line(&c, &t)) {
				snprintf(c.fail, sizeof(c.fail), "cpu%u: text has more lines", cpu);
				ret = 1;
			}
			if (ret)
				printf("  %s: %s\n", names[i], c.fail);
			free(text);
			env_close(e);
			free(e);
			CHECK(ret == 0);
			checked++;
		}
	}
	CHECK(checked > 0);
}

/* ---- the comm table keeps the newest name by trace time ------------------ */

/*
 * Each CPU's reader decodes at its own pace, so across an exec a lagging
 * CPU's event from before it (the parent's comm) may be decoded after the
 * other CPU's events from after it. The table must still end with the name
 * of the latest sighting in trace time, whichever CPU was decoded last.
 */
#define NAMED_MAX	4096

struct named {
	int32_t		pid;
	uint64_t	ts;		/* of the newest sighting */
	bool		tie;		/* two names at that same time: not checked */
	char		comm[16];	/* its name */
	char		last[2][16];	/* the last name each CPU's records give */
};

struct named_walk {
	struct tep_handle	*tep;
	struct trace_seq	s;
	struct named		*v;
	size_t			n;
	bool			full;
};

static void named_see(struct named_walk *w, unsigned int cpu, uint64_t ts, int64_t pid,
		      const char *comm, int len)
{
	struct named *e = NULL;
	char name[16];

	if (pid <= 0)
		return;
	snprintf(name, sizeof(name), "%.*s", (int)strnlen(comm, len), comm);
	for (size_t i = 0; i < w->n && !e; i++)
		if (w->v[i].pid == pid)
			e = &w->v[i];
	if (!e) {
		if (w->n == NAMED_MAX) {
			w->full = true;
			return;
		}
		e = &w->v[w->n++];
		*e = (struct named){ .pid = (int32_t)pid, .ts = ts };
		snprintf(e->comm, sizeof(e->comm), "%s", name);
	} else if (ts > e->ts || (ts == e->ts && !strcmp(name, e->comm))) {
		e->ts = ts;
		e->tie = false;
		snprintf(e->comm, sizeof(e->comm), "%s", name);
	} else if (ts == e->ts) {
		e->tie = true;
	}
	if (cpu < 2)
		snprintf(e->last[cpu], sizeof(e->last[cpu]), "%s", name);
}

/* A field's string, as libtraceevent reads it: NULL when the event has none. */
static const char *named_field(struct named_walk *w, struct tep_event *ev,
			       struct tep_record *rec, const char *name, int *len)
{
	return tep_find_any_field(ev, name) ? tep_get_field_raw(&w->s, ev, name, rec, len, 0) :
	       NULL;
}

/* Every (pid, comm) a record gives, read by name with libtraceevent. */
static int named_record(void *arg, unsigned int cpu, unsigned long long ts, void *data, int size)
{
	static const struct {
		const char *sys, *name, *comm, *pid;
	} said[] = {
		{ "sched", "sched_switch", "prev_comm", "prev_pid" },
		{ "sched", "sched_switch", "next_comm", "next_pid" },
		{ "sched", "sched_wakeup", "comm", "pid" },
		{ "sched", "sched_wakeup_new", "comm", "pid" },
		{ "sched", "sched_waking", "comm", "pid" },
		{ "sched", "sched_process_exit", "comm", "pid" },
		{ "sched", "sched_process_fork", "child_comm", "child_pid" },
		{ "task", "task_rename", "newcomm", "pid" },
	};
	struct named_walk *w = arg;
	struct tep_record rec = { .ts = ts, .cpu = (int)cpu, .size = size, .data = data };
	struct tep_event *ev = tep_find_event(w->tep, tep_data_type(w->tep, &rec));
	unsigned long long pid;
	const char *c;
	int len;

	if (!ev)
		return 0;
	for (size_t i = 0; i < sizeof(said) / sizeof(said[0]); i++) {
		if (strcmp(ev->system, said[i].sys) || strcmp(ev->name, said[i].name))
			continue;
		c = named_field(w, ev, &rec, said[i].comm, &len);
		if (c && !tep_get_field_val(&w->s, ev, said[i].pid, &rec, &pid, 0))
			named_see(w, cpu, ts, (int64_t)(int32_t)pid, c, len);
	}
	if (!strcmp(ev->system, "sched") && !strcmp(ev->name, "sched_process_exec") &&
	    (c = named_field(w, ev, &rec, "filename", &len)) &&
	    !tep_get_field_val(&w->s, ev, "pid", &rec, &pid, 0)) {
		/* the kernel names the new image kbasename(filename), 15 bytes */
		const char *end = c + strnlen(c, len), *base = end;

		while (base > c && base[-1] != '/')
			base--;
		named_see(w, cpu, ts, (int64_t)(int32_t)pid, base, (int)(end - base));
	}
	return 0;
}

/*
 * Decode @dir's two CPUs one after the other (@first, then the other), whole,
 * into one store. Return: the pids whose stored comm is not the newest, or -1.
 * *@stale: the pids where the CPU decoded last gave another name (what the
 * table showed when it kept the name decoded last).
 */
static int comm_order(struct fixture *fx, const struct named_walk *w, unsigned int first,
		      int *stale)
{
	struct store *st = store_new(0, 2);
	struct decode_ctx *dc = st ? decode_ctx_new(fixture_tep(fx), st, NULL) : NULL;
	int wrong = 0;

	if (!dc) {
		store_free(st);
		return -1;
	}
	for (unsigned int k = 0; k < 2; k++) {
		unsigned int cpu = k ? !first : first;
		struct decoder *d = decoder_new(dc, cpu);

		if (!d) {
			wrong = -1;
			break;
		}
		for (size_t i = 0; i < fixture_npages(fx, cpu); i++)
			decoder_page(d, fixture_page(fx, cpu, i), fixture_page_size(fx), NULL);
		decoder_free(d);
	}
	for (size_t i = 0; wrong >= 0 && i < w->n; i++) {
		const struct named *e = &w->v[i];
		const char *have = store_comm(st, e->pid);
		const char *last = e->last[!first][0] ? e->last[!first] : e->last[first];

		if (e->tie)
			continue;
		*stale += strcmp(last, e->comm) != 0;
		if (!have || strcmp(have, e->comm)) {
			printf("  %s first: pid %d is '%s', newest '%s' (decoded last: '%s')\n",
			       first ? "cpu1" : "cpu0", e->pid, have ? have : "(null)", e->comm,
			       last);
			wrong++;
		}
	}
	decode_ctx_free(dc);
	store_free(st);
	return wrong;
}

TEST(comm_newest_by_time_across_cpus)
{
	char names[MAX_FIXTURES][256];
	int n = list_fixtures("host-", names, MAX_FIXTURES);
	int stale = 0, fixtures = 0;
	size_t pids = 0;

	CHECK(n > 0);
	for (int f = 0; f < n; f++) {
		struct fixture *fx = fixture_open(names[f]);
		struct named_walk w = { 0 };
		int st0 = 0;

		CHECK(fx);
		if (fixture_ncpus(fx) != 2) {
			fixture_close(fx);
			continue;
		}
		w.tep = fixture_tep(fx);
		w.v = calloc(NAMED_MAX, sizeof(*w.v));
		CHECK(w.v);
		trace_seq_init(&w.s);
		for (unsigned int cpu = 0; cpu < 2; cpu++)
			CHECK(fixture_for_each_record(fx, cpu, named_record, &w) == 0);
		CHECK(!w.full);
		CHECK_EQ_U64(comm_order(fx, &w, 0, &st0), 0);
		CHECK_EQ_U64(comm_order(fx, &w, 1, &st0), 0);
		printf("  %s: %zu pids named, %d named otherwise by the CPU decoded last\n",
		       names[f], w.n, st0);
		stale += st0;
		pids += w.n;
		fixtures++;
		trace_seq_destroy(&w.s);
		free(w.v);
		fixture_close(fx);
	}
	CHECK(fixtures > 0);
	CHECK(pids > 0);
	/* the recordings hold execs seen by both CPUs: decode order alone would get them wrong */
	CHECK(stale > 0);
}

/* One decoder per CPU on its own thread, one shared context and store (TSan). */
struct cpu_job {
	struct fixture		*fx;
	struct decode_ctx	*dc;
	unsigned int		cpu;
	struct decode_stats	ds;
};

static void *cpu_job_run(void *arg)
{
	struct cpu_job *j = arg;
	struct decoder *d = decoder_new(j->dc, j->cpu);

	for (int round = 0; d && round < 3; round++)
		for (size_t i = 0; i < fixture_npages(j->fx, j->cpu); i++)
			decoder_page(d, fixture_page(j->fx, j->cpu, i), fixture_page_size(j->fx),
				     &j->ds);
	decoder_free(d);
	return NULL;
}

TEST(decoders_on_threads)
{
	char names[MAX_FIXTURES][256];
	struct cpu_job jobs[64];
	pthread_t th[64];
	struct decode_ctx *dc;
	struct fixture *fx;
	struct store *st;
	unsigned int n;
	uint64_t events = 0;

	CHECK(list_fixtures("host-sched", names, MAX_FIXTURES) == 1);
	fx = fixture_open(names[0]);
	CHECK(fx);
	n = fixture_ncpus(fx) < 64 ? fixture_ncpus(fx) : 64;
	st = store_new(0, n);
	dc = decode_ctx_new(fixture_tep(fx), st, NULL);
	CHECK(dc);
	for (unsigned int c = 0; c < n; c++) {
		jobs[c] = (struct cpu_job){ .fx = fx, .dc = dc, .cpu = c };
		CHECK(pthread_create(&th[c], NULL, cpu_job_run, &jobs[c]) == 0);
	}
	for (unsigned int c = 0; c < n; c++) {
		pthread_join(th[c], NULL);
		events += jobs[c].ds.events;
		CHECK(jobs[c].ds.bad == 0);
	}
	CHECK(events > 0);
	/* every dynamic type registered once, whichever thread met it first */
	for (unsigned int id = KTOP_T_DYNAMIC; id < schema_max_id(store_schema(st)); id++) {
		const struct ktop_schema_type *t = schema_get(store_schema(st), id);

		CHECK(t && schema_find(store_schema(st), t->system, t->name) == (int)id);
	}
	decode_ctx_free(dc);
	store_free(st);
	fixture_close(fx);
}

/* ---- pages built by hand: the clamp, bad records, long pages ------------- */

struct rec_pick {
	uint8_t		data[8][64];
	int		size[8];
	int		n;
};

static int pick_record(void *arg, unsigned int cpu, unsigned long long ts, void *data, int size)
{
	struct rec_pick *r = arg;

	if (size <= 64 && size % 4 == 0 && size >= 8) {
		memcpy(r->data[r->n], data, size);
		r->size[r->n++] = size;
	}
	return r->n == 8;
}

/* Append a data record of @size bytes, @delta ns after the previous one. */
static size_t page_rec(uint8_t *page, size_t off, const void *data, int size, uint32_t delta)
{
	uint32_t h = (uint32_t)(size / 4) | delta << 5;

	memcpy(page + 16 + off, &h, 4);
	memcpy(page + 16 + off + 4, data, size);
	return off + 4 + size;
}

static void page_done(uint8_t *page, uint64_t ts, size_t off)
{
	uint64_t commit = off;

	memcpy(page, &ts, 8);
	memcpy(page + 8, &commit, 8);
}

static bool ev_same(const struct ktop_event *a, const struct ktop_event *b)
{
	return a->ts == b->ts && a->pid == b->pid && a->type == b->type &&
	       a->flags == b->flags && a->pc == b->pc && a->nargs == b->nargs &&
	       !memcmp(a->args, b->args, a->nargs * sizeof(a->args[0]));
}

static void flags_of(const struct ktop_event *ev, uint64_t *c)
{
	c[DECODE_F_IRQS_OFF] += !!(ev->flags & KTOP_KF_IRQS_OFF);
	c[DECODE_F_NEED_RESCHED] += !!(ev->flags & KTOP_KF_NEED_RESCHED);
	c[DECODE_F_HARDIRQ] += !!(ev->flags & KTOP_KF_HARDIRQ);
	c[DECODE_F_SOFTIRQ] += !!(ev->flags & KTOP_KF_SOFTIRQ);
	c[DECODE_F_NMI] += !!(ev->flags & KTOP_KF_NMI);
	c[DECODE_F_PREEMPT] += KTOP_PC_PREEMPT(ev->pc) > 0;
	c[DECODE_F_MIGRATE] += KTOP_PC_MIGRATE(ev->pc) > 0;
}

/*
 * An older timestamp in a page is clamped to the last event's and counted; a
 * record of no known event is counted bad and takes no seq; a long page (a
 * bigger sub-buffer) spans more than one chunk and the decoder's windows.
 */
TEST(page_clamp_bad_long)
{
	static uint8_t page[196608];
	char names[MAX_FIXTURES][256];
	struct decode_stats ds = { 0 };
	uint64_t want[DECODE_F_NR] = { 0 }, base = 1000000000, first, end, ts;
	struct ktop_event ev, got;
	struct rec_pick r = { .n = 0 };
	struct store_stats ss;
	uint8_t bad[8];
	uint32_t stamp[2];
	size_t off = 0;
	struct env e;
	int n = 0;

	CHECK(list_fixtures("host-sched", names, MAX_FIXTURES) == 1);
	CHECK(env_open(&e, names[0], 0) == 0);
	fixture_for_each_record(e.fx, 0, pick_record, &r);
	CHECK(r.n == 8);
	memset(bad, 0xff, sizeof(bad));		/* event id 0xffff: none */
	memset(page, 0, sizeof(page));
	off = page_rec(page, off, r.data[0], r.size[0], 100);
	off = page_rec(page, off, r.data[1], r.size[1], 50);
	/* an absolute time stamp older than the last event */
	stamp[0] = RB_TIME_STAMP_HDR((base + 20) & ((1u << 27) - 1));
	stamp[1] = (uint32_t)((base + 20) >> 27);
	memcpy(page + 16 + off, stamp, 8);
	off += 8;
	off = page_rec(page, off, r.data[2], r.size[2], 0);
	off = page_rec(page, off, bad, sizeof(bad), 1);
	off = page_rec(page, off, r.data[3], r.size[3], 1000);
	page_done(page, base, off);
	CHECK_EQ_U64(decoder_page(e.d, page, 4096, &ds), 4);
	CHECK_EQ_U64(ds.events, 4);
	CHECK_EQ_U64(ds.bad, 1);
	store_get_stats(e.st, &ss);
	CHECK_EQ_U64(ss.reordered, 1);
	CHECK_EQ_U64(ss.first_ts, base + 100);
	for (int i = 0; i < 4; i++) {
		static const uint64_t t[] = { 100, 150, 150, 1021 };

		CHECK(!store_get(e.st, 0, i, &got));
		CHECK_EQ_U64(got.ts, base + t[i]);
		CHECK(!decoder_record(e.d, r.data[i], r.size[i], got.ts, &ev));
		CHECK(ev_same(&ev, &got));
		flags_of(&ev, want);
	}
	for (int k = 0; k < DECODE_F_NR; k++)
		CHECK_EQ_U64(ds.flags[k], want[k]);

	/* a 192 KiB page: more than a chunk, more than a window */
	memset(&ds, 0, sizeof(ds));
	memset(want, 0, sizeof(want));
	memset(page, 0, sizeof(page));
	off = 0;
	while (off + 4 + 64 <= sizeof(page) - 16) {
		off = page_rec(page, off, r.data[n % 8], r.size[n % 8], 3);
		n++;
	}
	page_done(page, base + 10000, off);
	CHECK(n > 2048 + 600);
	CHECK_EQ_U64(decoder_page(e.d, page, sizeof(page), &ds), n);
	CHECK_EQ_U64(ds.bad, 0);
	store_cpu_range(e.st, 0, &first, &end);
	CHECK_EQ_U64(end, 4 + n);
	ts = base + 10000;
	for (int i = 0; i < n; i++) {
		ts += 3;
		CHECK(!store_get(e.st, 0, 4 + i, &got));
		CHECK(!decoder_record(e.d, r.data[i % 8], r.size[i % 8], ts, &ev));
		CHECK(ev_same(&ev, &got));
		flags_of(&ev, want);
	}
	for (int k = 0; k < DECODE_F_NR; k++)
		CHECK_EQ_U64(ds.flags[k], want[k]);
	env_close(&e);
}

TEST(decode_rejects_garbage)
{
	char names[MAX_FIXTURES][256];
	struct env e;
	struct ktop_event k;
	uint8_t buf[64];

	CHECK(list_fixtures("host-", names, MAX_FIXTURES) > 0);
	CHECK(env_open(&e, names[0], 0) == 0);
	memset(buf, 0xff, sizeof(buf));	/* event id 0xffff: none */
	CHECK(decoder_record(e.d, buf, sizeof(buf), 1, &k) == -ENOENT);
	CHECK(decoder_record(e.d, buf, 2, 1, &k) == -EINVAL);
	/* a page whose commit runs past its length */
	memset(buf, 0, sizeof(buf));
	buf[8] = 200;
	CHECK(decoder_page(e.d, buf, sizeof(buf), NULL) == -EINVAL);
	env_close(&e);
}

TEST_MAIN()
