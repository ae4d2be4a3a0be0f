// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The flight recorder's core (src/recorder/): the conditions' grammar and
 * its messages, the file name patterns, the window rules (new, extended,
 * gap, --save-max, late, the kernel's stop), finding matches in a store (an
 * exec by name, latency samples of a recorded rt-kernel fixture against a
 * count made apart, lost marks), writing a window (read back: exactly its
 * events, the note, a cut "before" part said), a write cancelled (nothing
 * left), the free space refusal, and the thread end to end over a store.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>

#include "test.h"
#include "snap_common.h"
#include "agg/agg.h"
#include "bpfstats/bpfstats.h"
#include "formats/format.h"
#include "formats/tracedat.h"
#include "lib/err.h"
#include "lib/clock.h"
#include "lib/file.h"
#include "lib/intern.h"
#include "recorder/recorder-local.h"
#include "store/meta.h"

#define MS	1000000ull
#define SEC	1000000000ull

static char tmpdir[] = "/tmp/ktop-test-recorder.XXXXXX";

static const char *scratch(void)
{
	static bool made;

	if (!made)
		made = mkdtemp(tmpdir) != NULL;
	return tmpdir;
}

/* ---- the grammar ------------------------------------------------------------------------ */

TEST(cond_forms)
{
	struct recorder_cond c;
	struct err_pos fe;

	CHECK(!recorder_cond_parse(&c, "  sched:sched_process_exec comm ~ \"postgres*\" ", &fe));
	CHECK(c.kind == RECORDER_EVENT);
	CHECK_STR(c.system, "sched");
	CHECK_STR(c.event, "sched_process_exec");
	CHECK_STR(c.filter, "comm ~ \"postgres*\"");
	CHECK_STR(c.text, "sched:sched_process_exec comm ~ \"postgres*\"");
	CHECK_EQ_U64(c.filter_pos, 25);

	CHECK(!recorder_cond_parse(&c, "sched/sched_switch if prev_state & 2", &fe));
	CHECK_STR(c.system, "sched");
	CHECK_STR(c.event, "sched_switch");
	CHECK_STR(c.filter, "prev_state & 2");

	CHECK(!recorder_cond_parse(&c, "sched_process_exec", &fe));
	CHECK(c.kind == RECORDER_EVENT && !c.system[0] && !c.filter[0]);

	CHECK(!recorder_cond_parse(&c, "probe vfs_read%return $retval:s64 if retval < 0", &fe));
	CHECK(c.kind == RECORDER_PROBE);
	CHECK_STR(c.probe, "vfs_read%return $retval:s64");
	CHECK_STR(c.filter, "retval < 0");

	CHECK(!recorder_cond_parse(&c, "timerlat > 100us", &fe));
	CHECK(c.kind == RECORDER_LATENCY && c.lat == RECORDER_LAT_TIMERLAT && !c.ge);
	CHECK_EQ_U64(c.bound, 100000);
	CHECK(!recorder_cond_parse(&c, "timerlat thread>=2.5ms", &fe));
	CHECK(c.lat == RECORDER_LAT_TIMERLAT_THREAD && c.ge);
	CHECK_EQ_U64(c.bound, 2500000);
	CHECK(!recorder_cond_parse(&c, "osnoise > 50", &fe));	/* no unit: us, as rtla */
	CHECK(c.lat == RECORDER_LAT_OSNOISE);
	CHECK_EQ_U64(c.bound, 50000);

	CHECK(!recorder_cond_parse(&c, "lost", &fe));
	CHECK(c.kind == RECORDER_LOST && !c.bound);
	CHECK(!recorder_cond_parse(&c, "lost > 1000", &fe));
	CHECK_EQ_U64(c.bound, 1000);

	CHECK(!recorder_cond_parse(&c, "runq-p99 > 5ms", &fe));
	CHECK(c.kind == RECORDER_BPF && c.metric == BPFSTATS_RUNQ_P99_US);
	CHECK_EQ_U64(c.bound, 5000000);
	CHECK(!recorder_cond_parse(&c, "hardirq > 20%", &fe));
	CHECK_EQ_U64(c.bound, 20000);
	CHECK(!recorder_cond_parse(&c, "ctxsw > 100k", &fe));
	CHECK_EQ_U64(c.bound, 100000000);

	CHECK(!recorder_cond_parse(&c, "latency sched:sched_waking -> sched:sched_switch on pid = "
				   "next_pid > 2ms", &fe));
	CHECK(c.kind == RECORDER_AGG && !c.ge);
	CHECK_STR(c.agg, "sched:sched_waking -> sched:sched_switch on pid = next_pid");
	CHECK_EQ_U64(c.bound, 2000000);
	/* a where clause compares too: the bound is the last '>' */
	CHECK(!recorder_cond_parse(&c, "latency a:b -> c:d where prio > 100 >=1.5s", &fe));
	CHECK(c.kind == RECORDER_AGG && c.ge);
	CHECK_STR(c.agg, "a:b -> c:d where prio > 100");
	CHECK_EQ_U64(c.bound, 1500000000);
}

TEST(cond_errors_point_at_the_problem)
{
	static const struct {
		const char	*text;
		int		offset;
		const char	*says;
	} bad[] = {
		{ "", 0, "empty" },
		{ "timerlat > fast", 11, "not a duration" },
		{ "timerlat < 10us", 9, "wants '>" },
		{ "timerlat idle > 10us", 9, "'irq', 'thread'" },
		{ "timerlat > 10us now", 16, "unexpected" },
		{ "osnoise >", 9, "no duration" },
		{ "lost > many", 7, "count" },
		{ "hardirq > 120%", 10, "percentage" },
		{ "sched:sched_switch prev_state &", 31, "" },
		{ "sched:sched_switch if", 21, "wants a filter" },
		{ "probe", 5, "probe spec" },
		{ "sched:a:b", 0, "not an event" },
		{ "(comm == x)", 0, "starts with an event" },
		{ "latency", 7, "wants START -> END" },
		{ "latency sched:sched_waking > 2ms", 8, "wants START -> END" },
		{ "latency a:b -> c:d", 18, "wants '> DURATION' at the end" },
		{ "latency a:b -> c:d > soon", 21, "not a duration" },
		{ "latency a:b -> c:d > 2ms then", 25, "unexpected" },
		{ "latency a:b -> c:d > ", 20, "no duration" },
	};
	struct recorder_cond c;
	struct err_pos fe;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = recorder_cond_parse(&c, bad[i].text, &fe);

		if (ret != -EINVAL || fe.offset != bad[i].offset || !strstr(fe.msg, bad[i].says)) {
			printf("# '%s': %d at %d: %s\n", bad[i].text, ret, fe.offset, fe.msg);
			CHECK(0);
		}
	}
}

/* An event condition against a recorded host's tracefs formats: the event, then its fields. */
TEST(cond_check_against_the_formats)
{
	static const struct {
		const char	*text;
		int		ret, offset;
		const char	*says;
	} cases[] = {
		{ "sched:sched_process_exec comm ~ \"rec*\" && pid > 1", 0, 0, "" },
		{ "sched_process_exec", 0, 0, "" },
		{ "timer:hrtimer_start expires > 0 && function != 0", 0, 0, "" },
		{ "sched:sched_process_exec prev_state & 2", -EINVAL, 25,
		  "sched:sched_process_exec has no field 'prev_state' (its fields: filename, pid, "
		  "old_pid)" },
		{ "sched:sched_switch prev_comm > 3", -EINVAL, 29, "is a string" },
		{ "sched:sched_switch if next_pid ~ \"1*\"", -EINVAL, 31, "is a number" },
		{ "timer:hrtimer_start nosuch == 1", -EINVAL, 20, "has no field 'nosuch'" },
		{ "sched:nosuch", -ENOENT, 0, "this kernel has no event sched:nosuch" },
		{ "nosuch_event", -ENOENT, 0, "this kernel has no event 'nosuch_event'" },
	};
	char root[512];

	snprintf(root, sizeof(root), "%s/host-sched", fixture_root());
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct recorder_cond c;
		struct err_pos fe = { 0 };
		int ret;

		CHECK(!recorder_cond_parse(&c, cases[i].text, &fe));
		ret = recorder_cond_check(&c, root, &fe);
		if (ret != cases[i].ret || (ret && (fe.offset != cases[i].offset ||
						    !strstr(fe.msg, cases[i].says)))) {
			printf("# '%s': %d at %d: %s\n", cases[i].text, ret, fe.offset, fe.msg);
			CHECK(0);
		}
		if (i == 1)
			CHECK_STR(c.system, "sched");
	}
}

TEST(opts_check_says_which_condition)
{
	const char *conds[] = { "sched:sched_switch", "timerlat > 1 hour" };
	struct recorder_opts o = { .conds = { conds[0], conds[1] }, .nconds = 2, .max = 3 };
	char err[1024];

	CHECK(recorder_opts_check(&o, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "--save-on 'timerlat > 1 hour'"));
	if (!strstr(err, "unexpected")) printf("# %s\n", err);
	CHECK(strstr(err, "unexpected 'hour'"));
	CHECK(strstr(err, "\n  timerlat > 1 hour\n               ^"));
	o.nconds = 1;
	CHECK(!recorder_opts_check(&o, err, sizeof(err)));
}

TEST(plan_gives_the_tracer_and_the_kernel_stop)
{
	const char *c1 = "timerlat > 100us", *c2 = "timerlat irq >= 40us", *c3 = "osnoise > 5us";
	struct recorder_opts o = { .conds = { c1, c2 }, .nconds = 2 };
	struct recorder_plan p;
	char err[512];

	CHECK(!recorder_plan(&o, NULL, &p, err, sizeof(err)));
	CHECK_STR(p.tracer, "timerlat");
	/* --save-after 0: the kernel stops at the lowest bound of each context */
	CHECK_EQ_U64(p.ntracer_opts, 2);
	CHECK_STR(p.tracer_opts[0], "stop_tracing_us=40");
	CHECK_STR(p.tracer_opts[1], "stop_tracing_total_us=101");
	o.after_ns = SEC;
	CHECK(!recorder_plan(&o, "timerlat", &p, err, sizeof(err)));
	CHECK_EQ_U64(p.ntracer_opts, 0);
	CHECK(recorder_plan(&o, "function", &p, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "one tracer at a time"));
	o.conds[1] = c3;
	CHECK(recorder_plan(&o, NULL, &p, err, sizeof(err)) == -EINVAL);
}

TEST(patterns)
{
	char buf[256], err[512];

	CHECK(!recorder_pattern_check("cap-%t-%n.ktop", 0, err, sizeof(err)));
	CHECK(recorder_pattern_check("cap.ktop", 10, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "%n"));
	CHECK(!recorder_pattern_check("cap.ktop", 1, err, sizeof(err)));
	CHECK(recorder_pattern_check("cap-%x.dat", 0, err, sizeof(err)) == -EINVAL);
	CHECK(recorder_pattern_check("-", 0, err, sizeof(err)) == -EINVAL);
	CHECK(!recorder_pattern_expand("d/cap-%n-%%.dat", 12, 0, buf, sizeof(buf)));
	CHECK_STR(buf, "d/cap-12-%.dat");
	/* 2024-01-02 03:04:05 in the local zone */
	{
		struct tm tm = { .tm_year = 124, .tm_mon = 0, .tm_mday = 2, .tm_hour = 3,
				 .tm_min = 4, .tm_sec = 5, .tm_isdst = -1 };
		uint64_t ns = (uint64_t)mktime(&tm) * SEC;

		CHECK(!recorder_pattern_expand("%t", 1, ns, buf, sizeof(buf)));
		CHECK_STR(buf, "20240102-030405");
	}
	CHECK(recorder_pattern_expand("%n%n%n", 1, 0, buf, 3) == -ENAMETOOLONG);
}

/* ---- the windows ------------------------------------------------------------------------ */

static struct rec_match mk(uint64_t ts, bool kstop)
{
	struct rec_match m = { .ts = ts, .kstop = kstop, .pid = 1 };

	return m;
}

TEST(window_rules)
{
	struct rec_window w;
	struct rec_pending p;
	struct rec_match m;

	rec_window_init(&w, 10 * SEC, 1 * SEC, 5 * SEC, 3);
	m = mk(100 * SEC, false);
	CHECK(rec_window_match(&w, &m) == REC_NEW);
	CHECK(!rec_window_due(&w, 100 * SEC + 999 * MS));
	/* a second match inside extends the window: one file names both */
	m = mk(100 * SEC + 500 * MS, false);
	CHECK(rec_window_match(&w, &m) == REC_EXTENDED);
	CHECK(!rec_window_due(&w, 101 * SEC + 100 * MS));
	CHECK(rec_window_due(&w, 101 * SEC + 500 * MS));
	/* an older one a CPU published late moves the start */
	m = mk(99 * SEC, false);
	CHECK(rec_window_match(&w, &m) == REC_EXTENDED);
	CHECK(rec_window_take(&w, &p));
	CHECK_EQ_U64(p.nmatch, 3);
	CHECK_EQ_U64(p.t0, 89 * SEC);
	CHECK_EQ_U64(p.t1, 101 * SEC + 500 * MS);
	CHECK(!rec_window_take(&w, &p));
	/* inside the window already written: late; within the gap: skipped */
	m = mk(101 * SEC, false);
	CHECK(rec_window_match(&w, &m) == REC_LATE);
	m = mk(106 * SEC, false);
	CHECK(rec_window_match(&w, &m) == REC_GAP);
	m = mk(107 * SEC, false);
	CHECK(rec_window_match(&w, &m) == REC_NEW);
	/* the next, past the first's end and the gap, while the first waits: two wait */
	m = mk(113 * SEC, false);
	CHECK(rec_window_match(&w, &m) == REC_NEW);
	CHECK(rec_window_due(&w, 108 * SEC));
	CHECK(rec_window_take(&w, &p));
	CHECK_EQ_U64(p.first, 107 * SEC);
	CHECK(!rec_window_due(&w, 113 * SEC));
	/* --save-max 3: the fourth is skipped */
	m = mk(200 * SEC, false);
	CHECK(rec_window_match(&w, &m) == REC_MAX);
	CHECK(!rec_window_done(&w));
	CHECK(rec_window_take(&w, &p));
	CHECK(rec_window_done(&w));
	CHECK_EQ_U64(w.matches, 8);
	CHECK_EQ_U64(w.late, 1);
	CHECK_EQ_U64(w.skipped_gap, 1);
	CHECK_EQ_U64(w.skipped_max, 1);
}

TEST(window_storm_and_kernel_stop)
{
	struct rec_window w;
	struct rec_pending p;
	struct rec_match m;
	uint64_t t;

	/* a match every 100 ms for two minutes: the window stops growing 60 s on */
	rec_window_init(&w, 10 * SEC, 1 * SEC, 0, 0);
	for (t = 100 * SEC; t < 220 * SEC; t += 100 * MS) {
		m = mk(t, false);
		rec_window_match(&w, &m);
		if (rec_window_due(&w, t))
			break;
	}
	CHECK(rec_window_take(&w, &p));
	CHECK_EQ_U64(p.t1, 160 * SEC);
	CHECK_EQ_U64(p.nmatch, 601);	/* 100 s .. 160 s, both ends */

	/* the kernel's stop: the window ends at the match, not a second later */
	rec_window_init(&w, 10 * SEC, 0, 0, 0);
	m = mk(50 * SEC, true);
	CHECK(rec_window_match(&w, &m) == REC_NEW);
	CHECK(rec_window_next(&w)->kstop);
	/* written once the other CPUs' slack is seen past */
	CHECK(!rec_window_due(&w, 50 * SEC));
	CHECK(rec_window_due(&w, 50 * SEC + REC_KSTOP_SETTLE_NS));
	CHECK(rec_window_take(&w, &p));
	CHECK_EQ_U64(p.t1, 50 * SEC);
}

/* ---- finding matches ---------------------------------------------------------------------- */

static struct store *exec_store(unsigned int ncpus)
{
	return store_new(64 << 20, ncpus);
}

static void add_ev(struct store *st, unsigned int cpu, uint64_t ts, uint16_t type, int32_t pid,
		   const char *str)
{
	struct ktop_event ev = { .ts = ts, .cpu = (uint16_t)cpu, .type = type, .pid = pid };

	if (str) {
		ev.args[0] = intern_id(store_strings(st), str, strlen(str));
		ev.args[1] = (uint64_t)pid;
		ev.args[2] = (uint64_t)pid;
		ev.nargs = 3;
	}
	store_append(st, &ev);
}

struct got {
	struct rec_match	m[64];
	unsigned int		n;
};

static void got_one(void *arg, const struct rec_match *m)
{
	struct got *g = arg;

	if (g->n < 64)
		g->m[g->n++] = *m;
}

static int compile(struct rec_watch *w, struct store *st, const char *text)
{
	struct err_pos fe;

	memset(w, 0, sizeof(*w));
	if (recorder_cond_parse(&w->c, text, &fe) || rec_watch_compile(w, st, NULL, NULL, &fe)) {
		printf("# %s: %s\n", text, fe.msg);
		return -1;
	}
	return 0;
}

TEST(scan_finds_an_exec_by_name)
{
	struct store *st = exec_store(2);
	struct rec_watch w, *ws[1] = { &w };
	struct rec_scan s;
	struct got g = { .n = 0 };

	CHECK(st);
	store_set_comm(st, 4242, "rec_target", 0);
	store_set_comm(st, 17, "bash", 0);
	/* thousands of other events in sealed chunks around the matches */
	for (uint64_t i = 0; i < 10000; i++)
		add_ev(st, i & 1, SEC + i * 100000, KTOP_T_SCHED_WAKEUP, 17, "bash");
	for (unsigned int c = 0; c < 2; c++)
		store_publish(st, c);
	CHECK(!rec_scan_init(&s, st, 0));
	CHECK(!compile(&w, st, "sched:sched_process_exec comm ~ \"rec_*\""));
	/* what was held before the scan started is not watched */
	add_ev(st, 1, 3 * SEC, KTOP_T_SCHED_PROCESS_EXEC, 17, "/bin/bash");
	add_ev(st, 1, 3 * SEC + 5, KTOP_T_SCHED_PROCESS_EXEC, 4242, "/tmp/rec_target");
	add_ev(st, 0, 3 * SEC + 9, KTOP_T_SCHED_WAKEUP, 4242, "rec_target");
	store_publish(st, 0);
	store_publish(st, 1);
	/*
	 * the fork's "bash", decoded by another CPU's reader after the exec: the
	 * comm table's last word, not the task's name at the exec
	 */
	store_set_comm(st, 4242, "bash", 0);
	rec_scan_events(&s, ws, 1, 3 * SEC + 6, got_one, &g);
	CHECK_EQ_U64(g.n, 1);
	CHECK_EQ_U64(g.m[0].ts, 3 * SEC + 5);
	CHECK_EQ_U64(g.m[0].pid, 4242);
	CHECK_EQ_U64(g.m[0].cpu, 1);
	CHECK(strstr(g.m[0].what, "rec_target pid 4242 on CPU 1"));
	/* only what is new: the same exec is not found twice; a later one is */
	add_ev(st, 0, 4 * SEC, KTOP_T_SCHED_PROCESS_EXEC, 4242, "/tmp/rec_target");
	store_publish(st, 0);
	g.n = 0;
	rec_scan_events(&s, ws, 1, UINT64_MAX, got_one, &g);
	CHECK_EQ_U64(g.n, 1);
	CHECK_EQ_U64(g.m[0].ts, 4 * SEC);
	rec_watch_destroy(&w);
	rec_scan_destroy(&s);
	store_free(st);
}

/* timerlat samples over a bound in the recorded rt fixture, counted apart, by context */
TEST(scan_latency_samples_of_a_fixture)
{
	static const char *const texts[] = { "timerlat > 20us", "timerlat thread >= 30us",
					     "timerlat irq > 5us" };
	struct snapshot_meta meta;
	struct store *st = snap_fixture_store("rt-timerlat", &meta);
	struct rec_watch w, *ws[1] = { &w };

	CHECK(st);
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct store_iter *it = store_iter_new(st, 0, UINT64_MAX, NULL);
		struct rec_scan s;
		struct ktop_event ev;
		uint64_t want = 0, seq, n = 0;
		struct got g = { .n = 0 };

		CHECK(it && !compile(&w, st, texts[i]));
		while (store_iter_next(it, &ev, &seq)) {
			bool ctx = i == 0 || (i == 1 ? ev.args[1] == 1 : ev.args[1] == 0);
			bool over = i == 1 ? ev.args[2] >= 30000 : ev.args[2] > (i ? 5000u : 20000u);

			want += ev.type == KTOP_T_TIMERLAT && ctx && over;
		}
		store_iter_free(it);
		CHECK(!rec_scan_init(&s, st, 0));
		/* from the start: the fixture is what "arrives" */
		for (unsigned int c = 0; c < s.ncpus; c++)
			s.next[c] = 0;
		rec_scan_events(&s, ws, 1, UINT64_MAX, got_one, &g);
		n = g.n;
		if (want > 64)
			want = 64;	/* got_one keeps 64 */
		if (n != want)
			printf("# %s: %llu found, %llu counted apart\n", texts[i],
			       (unsigned long long)n, (unsigned long long)want);
		CHECK(n == want && n > 0);
		CHECK(strstr(g.m[0].what, "us on CPU"));
		rec_watch_destroy(&w);
		rec_scan_destroy(&s);
	}
	snapshot_meta_free(&meta);
	store_free(st);
}

TEST(scan_lost_marks)
{
	struct store *st = exec_store(2);
	struct rec_watch w;
	struct rec_scan s;
	struct got g = { .n = 0 };

	CHECK(st && !rec_scan_init(&s, st, 0));
	CHECK(!compile(&w, st, "lost > 100"));
	store_add_lost(st, 0, 5 * SEC, 50, STORE_LOST_KERNEL);
	store_add_lost(st, 1, 6 * SEC, 500, STORE_LOST_KTOP);
	rec_scan_lost(&s, &w, 3, got_one, &g);
	CHECK_EQ_U64(g.n, 1);
	CHECK_EQ_U64(g.m[0].cond, 3);
	CHECK_EQ_U64(g.m[0].value, 500);
	CHECK(strstr(g.m[0].what, "500 events lost on CPU 1 (ktop)"));
	g.n = 0;
	rec_scan_lost(&s, &w, 3, got_one, &g);
	CHECK_EQ_U64(g.n, 0);
	rec_watch_destroy(&w);
	rec_scan_destroy(&s);
	store_free(st);
}

/* ---- writing a window ----------------------------------------------------------------------- */

/* A store of events every 10 ms on 2 CPUs from 1 s to 41 s. */
static struct store *timeline(size_t mem)
{
	struct store *st = store_new(mem, 2);

	if (!st)
		return NULL;
	store_set_comm(st, 7, "worker", 0);
	for (uint64_t t = 1 * SEC; t < 41 * SEC; t += 10 * MS) {
		add_ev(st, 0, t, KTOP_T_SCHED_WAKEUP, 7, "worker");
		add_ev(st, 1, t + 5 * MS, KTOP_T_SCHED_WAKEUP, 7, "worker");
	}
	store_publish(st, 0);
	store_publish(st, 1);
	return st;
}

static void req_for(struct rec_save_req *q, struct rec_pending *p, struct rec_watch *w,
		    const struct rec_watch **wv, const char *pattern)
{
	memset(p, 0, sizeof(*p));
	p->active = true;
	p->first = 30 * SEC;
	p->t0 = 20 * SEC;
	p->t1 = 31 * SEC;
	p->nmatch = 2;
	p->m[0] = mk(30 * SEC, false);
	p->m[1] = mk(30 * SEC + 400 * MS, false);
	snprintf(p->m[0].what, sizeof(p->m[0].what), "sched_process_exec by rec_target");
	wv[0] = w;
	memset(q, 0, sizeof(*q));
	q->p = p;
	q->w = wv;
	q->nw = 1;
	q->pattern = pattern;
	q->id = 1;
	q->before = 10 * SEC;
	q->after = 1 * SEC;
	q->wall_offset_ns = 1700000000ull * SEC;
}

static uint64_t count_between(struct store *st, uint64_t t0, uint64_t t1, uint64_t *lo,
			      uint64_t *hi)
{
	struct store_iter *it = store_iter_new(st, 0, UINT64_MAX, NULL);
	struct ktop_event ev;
	uint64_t n = 0, seq;

	*lo = UINT64_MAX;
	*hi = 0;
	while (it && store_iter_next(it, &ev, &seq)) {
		if (ev.ts < t0 || ev.ts > t1)
			continue;
		n++;
		*lo = ev.ts < *lo ? ev.ts : *lo;
		*hi = ev.ts > *hi ? ev.ts : *hi;
	}
	store_iter_free(it);
	return n;
}

TEST(save_writes_the_window_and_its_note)
{
	struct store *st = timeline(0), *back = NULL;
	struct snapshot_meta meta = { .release = "test" }, bm;
	struct rec_watch w = { 0 };
	const struct rec_watch *wv[1];
	struct rec_save_req q;
	struct rec_pending p;
	struct recorder_save s;
	char pattern[600], err[512];
	uint64_t want, lo, hi, blo, bhi;

	CHECK(st);
	CHECK(!recorder_cond_parse(&w.c, "sched:sched_process_exec comm ~ \"rec*\"", NULL));
	snprintf(pattern, sizeof(pattern), "%s/win-%%n.ktop", scratch());
	req_for(&q, &p, &w, wv, pattern);
	CHECK(!rec_save_write(&q, st, &meta, &s));
	CHECK(!s.err);
	CHECK(strstr(s.path, "/win-1.ktop"));
	want = count_between(st, 20 * SEC, 31 * SEC, &lo, &hi);
	CHECK_EQ_U64(s.events, want);
	CHECK_EQ_U64(s.held_from, 20 * SEC);
	CHECK(!s.msg[0]);
	CHECK(!format_load(s.path, 0, &back, &bm, err, sizeof(err)));
	CHECK_EQ_U64(count_between(back, 0, UINT64_MAX, &blo, &bhi), want);
	CHECK_EQ_U64(blo, lo);
	CHECK_EQ_U64(bhi, hi);
	CHECK(bm.save_note);
	CHECK(strstr(bm.save_note, "ktop flight recorder: save 1\n"));
	CHECK(strstr(bm.save_note, "match: sched:sched_process_exec comm ~ \"rec*\" at "
		      "30.000000000 ("));
	CHECK(strstr(bm.save_note, "window: 20.000000000 .. 31.000000000 (10.000 s before"));
	CHECK(strstr(bm.save_note, "held: all of the window\n"));
	CHECK(strstr(bm.save_note, "lost: 0 events"));
	/* a second save under the same name is refused, the first kept */
	CHECK(rec_save_write(&q, st, &meta, &s) == -EEXIST);
	CHECK(strstr(s.msg, "exists"));
	snapshot_meta_free(&bm);
	snapshot_meta_free(&meta);
	store_free(back);
	store_free(st);
}

/*
 * A hole an earlier kernel stop left: it starts at the last event recorded
 * before the restart (another CPU's, after the match), and the note says so.
 */
TEST(save_names_the_hole_from_the_last_event)
{
	struct store *st = timeline(0), *back = NULL;
	struct snapshot_meta meta = { .release = "test" }, bm;
	struct rec_watch w = { 0 };
	const struct rec_watch *wv[1];
	struct rec_save_req q;
	struct rec_pending p;
	struct recorder_save s;
	char pattern[600], err[512];

	CHECK(st);
	/* CPU 0 every 10 ms from 1 s, CPU 1 5 ms after it */
	CHECK_EQ_U64(rec_store_last(st, 30 * SEC, 30 * SEC + 500 * MS), 30 * SEC + 495 * MS);
	CHECK_EQ_U64(rec_store_last(st, 30 * SEC + 1 * MS, 30 * SEC + 4 * MS),
		     30 * SEC + 1 * MS);
	CHECK_EQ_U64(rec_store_last(st, 45 * SEC, 50 * SEC), 45 * SEC);
	CHECK_EQ_U64(rec_store_last(st, 40 * SEC, 50 * SEC), 40 * SEC + 995 * MS);
	CHECK(!recorder_cond_parse(&w.c, "lost", NULL));
	snprintf(pattern, sizeof(pattern), "%s/hole-%%n.ktop", scratch());
	req_for(&q, &p, &w, wv, pattern);
	q.noff = 1;
	q.off[0][0] = 25 * SEC + 5 * MS;
	q.off[0][1] = 25 * SEC + 300 * MS;
	q.off_match[0] = 25 * SEC;
	CHECK(!rec_save_write(&q, st, &meta, &s));
	CHECK(strstr(s.msg, "recording was off for 0.295 s of the window"));
	CHECK(!format_load(s.path, 0, &back, &bm, err, sizeof(err)));
	CHECK(bm.save_note && strstr(bm.save_note, "off: recording was stopped from "
				     "25.005000000 to 25.300000000 (the kernel's stop at an "
				     "earlier match, at 25.000000000; from: the last event "
				     "recorded before the stop reached every CPU): no events "
				     "there\n"));
	snapshot_meta_free(&bm);
	snapshot_meta_free(&meta);
	store_free(back);
	store_free(st);
}

/* Save [@t0, @t1] of @st as @ext into scratch: the file's size (0: failed) and its events. */
static uint64_t save_size(struct store *st, struct snapshot_meta *meta, const char *ext,
			  unsigned int ver, int z, uint64_t t0, uint64_t t1, uint64_t *events)
{
	static unsigned int n;
	struct rec_watch w = { 0 };
	const struct rec_watch *wv[1];
	struct rec_save_req q;
	struct rec_pending p;
	struct recorder_save s;
	char pattern[600];
	struct stat sb;

	if (recorder_cond_parse(&w.c, "lost", NULL))
		return 0;
	snprintf(pattern, sizeof(pattern), "%s/est-%u-%%n%s", scratch(), n++, ext);
	req_for(&q, &p, &w, wv, pattern);
	p.t0 = t0;
	p.t1 = t1;
	q.dat_version = ver;
	q.dat_compress = z;
	if (rec_save_write(&q, st, meta, &s) || stat(s.path, &sb) || s.bytes != (uint64_t)sb.st_size)
		return 0;
	unlink(s.path);
	*events = s.events;
	return s.bytes;
}

/*
 * The free-space check's estimate against what saves of events recorded
 * from real kernels take in each format, the file's fixed part (a save of
 * an empty window) apart: per event, never less (a save must not fill the
 * disk) and not several times more (a save refused with room to spare); the
 * fixed part within the estimate's. After a save, the next estimate goes by
 * what it took.
 */
TEST(save_estimate_is_near_the_file)
{
	static const char *const fixtures[] = { "host-sched", "rt-fgraph", "rt-timerlat",
						"rt-sched-irq", "rt-osnoise" };
	static const struct { const char *ext; unsigned int ver; int z; } fmts[] = {
		{ ".ktop", 0, 0 }, { ".json", 0, 0 }, { ".txt", 0, 0 },
		{ ".dat", 7, TRACEDAT_COMPRESS_DEFAULT }, { ".dat", 6, TRACEDAT_COMPRESS_DEFAULT },
		{ ".dat", 7, TRACEDAT_COMPRESS_NONE },
	};

	for (size_t k = 0; k < sizeof(fixtures) / sizeof(fixtures[0]); k++) {
		struct snapshot_meta meta;
		struct store *st = snap_fixture_store(fixtures[k], &meta);

		CHECK(st);
		for (size_t i = 0; st && i < sizeof(fmts) / sizeof(fmts[0]); i++) {
			const struct format_ops *f = format_by_name(fmts[i].ext);
			uint64_t n = 0, none = 0, all, fixed, est, est0, learnt;
			double per, est_per;

			all = save_size(st, &meta, fmts[i].ext, fmts[i].ver, fmts[i].z, 1,
					UINT64_MAX - 1, &n);
			fixed = save_size(st, &meta, fmts[i].ext, fmts[i].ver, fmts[i].z, 1, 1,
					  &none);
			CHECK(f && all && fixed && n > 100 && !none);
			if (!f || !all || !fixed || n <= 100 || none)
				continue;
			per = (double)(all - fixed) / (double)n;
			est = rec_save_estimate(f, n, fmts[i].ver, fmts[i].z, 0);
			est0 = rec_save_estimate(f, 0, fmts[i].ver, fmts[i].z, 0);
			est_per = (double)(est - est0) / (double)n;
			learnt = rec_save_estimate(f, n, fmts[i].ver, fmts[i].z,
						   (double)all / (double)n);
			printf("# %s %s v%u z%d: %llu events, %.1f B each + %llu B; estimate "
			       "%.1f B each (%.2fx) + %llu B\n", fixtures[k], fmts[i].ext,
			       fmts[i].ver, fmts[i].z, (unsigned long long)n, per,
			       (unsigned long long)fixed, est_per, est_per / per,
			       (unsigned long long)est0);
			CHECK(est_per >= per && est_per <= 3 * per);
			CHECK(est0 >= fixed);
			CHECK(learnt >= all);
		}
		snapshot_meta_free(&meta);
		store_free(st);
	}
}

TEST(save_says_what_eviction_cut)
{
	/* a store too small for 40 s: the oldest go, the window's start with them */
	struct store *st = timeline(96 << 10);
	struct snapshot_meta meta = { .release = "test" }, bm;
	struct store *back = NULL;
	struct rec_watch w = { 0 };
	const struct rec_watch *wv[1];
	struct store_stats ss;
	struct rec_save_req q;
	struct rec_pending p;
	struct recorder_save s;
	char pattern[600], err[512];

	CHECK(st);
	store_get_stats(st, &ss);
	CHECK(ss.evicted > 0 && ss.first_ts > 20 * SEC);
	CHECK(!recorder_cond_parse(&w.c, "lost", NULL));
	snprintf(pattern, sizeof(pattern), "%s/cut-%%n.ktop", scratch());
	req_for(&q, &p, &w, wv, pattern);
	CHECK(!rec_save_write(&q, st, &meta, &s));
	CHECK(s.held_from > 20 * SEC);
	CHECK(strstr(s.msg, "the store no longer held the first"));
	CHECK(!format_load(s.path, 0, &back, &bm, err, sizeof(err)));
	CHECK(bm.save_note && strstr(bm.save_note, "held: from "));
	CHECK(strstr(bm.save_note, "(evicted for the -m bound)"));
	snapshot_meta_free(&bm);
	snapshot_meta_free(&meta);
	store_free(back);
	store_free(st);
}

/* No file, no temporary left in the directory. */
static int dir_entries(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		n += !strncmp(de->d_name, prefix, strlen(prefix));
	if (d)
		closedir(d);
	return n;
}

TEST(save_cancelled_leaves_nothing)
{
	static const char *const exts[] = { "ktop", "json", "txt" };
	struct store *st = timeline(0);
	struct snapshot_meta meta;
	struct rec_watch w = { 0 };
	const struct rec_watch *wv[1];
	struct rec_save_req q;
	struct rec_pending p;
	struct recorder_save s;
	char pattern[600];
	int cancel = 1;

	CHECK(st);
	/* the text format needs event formats: a recorded fixture's */
	store_free(st);
	st = snap_fixture_store("host-sched", &meta);
	CHECK(st);
	CHECK(!recorder_cond_parse(&w.c, "lost", NULL));
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		snprintf(pattern, sizeof(pattern), "%s/cancel-%%n.%s", scratch(), exts[i]);
		req_for(&q, &p, &w, wv, pattern);
		p.t0 = 1;
		p.t1 = UINT64_MAX - 1;
		q.cancel = &cancel;
		CHECK(rec_save_write(&q, st, &meta, &s) == -ECANCELED);
		CHECK(strstr(s.msg, "stopped before it was complete"));
		CHECK(access(s.path, F_OK));
		CHECK_EQ_U64(dir_entries(scratch(), "cancel-"), 0);
	}
	snapshot_meta_free(&meta);
	store_free(st);
}

TEST(space_check_refuses_and_says_why)
{
	char msg[384], path[600];

	snprintf(path, sizeof(path), "%s/x.ktop", scratch());
	CHECK(!rec_space_check(path, 1024, msg, sizeof(msg)));
	CHECK(rec_space_check(path, 1ull << 60, msg, sizeof(msg)) == -ENOSPC);
	CHECK(strstr(msg, "not written: it needs about"));
	CHECK(strstr(msg, scratch()));
	CHECK(strstr(msg, "free"));
}

/* ---- the thread, end to end ---------------------------------------------------------------- */

struct fake_host {
	struct fake_agg	*agg;
	struct store	*st;
	uint64_t	published;	/* atomic */
	int		recording_on;
};

static uint64_t fake_published(void *arg)
{
	struct fake_host *h = arg;

	return __atomic_load_n(&h->published, __ATOMIC_RELAXED);
}

static int fake_meta(void *arg, struct snapshot_meta *m, bool full, char *err, size_t errlen)
{
	snprintf(m->release, sizeof(m->release), "fake");
	return 0;
}

TEST(recorder_thread_end_to_end)
{
	struct fake_host fh = { 0 };
	const char *cond = "sched:sched_process_exec comm ~ \"rec_*\"";
	struct recorder_opts o = { .conds = { cond }, .nconds = 1, .before_ns = 2 * SEC,
				   .after_ns = 500 * MS, .max = 5 };
	struct recorder_host h = { .meta = fake_meta, .published = fake_published,
				   .wake_fd = -1 };
	struct recorder_status rs;
	struct recorder_save sv[4];
	struct recorder *r;
	char pattern[600], err[1024], line[1024];
	size_t n = 0;

	fh.st = store_new(64 << 20, 2);
	CHECK(fh.st);
	store_set_comm(fh.st, 99, "rec_target", 0);
	h.st = fh.st;
	h.arg = &fh;
	snprintf(pattern, sizeof(pattern), "%s/e2e-%%n.ktop", scratch());
	o.pattern = pattern;
	CHECK(!recorder_new(&r, &o, &h, err, sizeof(err)));
	CHECK(!recorder_start(r));
	for (uint64_t t = 1 * SEC; t < 8 * SEC; t += 10 * MS)
		add_ev(fh.st, 0, t, KTOP_T_SCHED_WAKEUP, 99, "rec_target");
	add_ev(fh.st, 1, 5 * SEC, KTOP_T_SCHED_PROCESS_EXEC, 99, "/tmp/rec_target");
	add_ev(fh.st, 1, 5 * SEC + 100 * MS, KTOP_T_SCHED_PROCESS_EXEC, 99, "/tmp/rec_target");
	store_publish(fh.st, 0);
	store_publish(fh.st, 1);
	/* the after part is not in yet: nothing written */
	__atomic_store_n(&fh.published, 5 * SEC + 200 * MS, __ATOMIC_RELAXED);
	usleep(200 * 1000);
	recorder_status(r, &rs);
	CHECK(rs.pending && !rs.saved);
	__atomic_store_n(&fh.published, 8 * SEC, __ATOMIC_RELAXED);
	for (int i = 0; i < 400 && !n; i++) {
		usleep(10 * 1000);
		n = recorder_saves(r, 0, sv, 4);
	}
	CHECK_EQ_U64(n, 1);
	CHECK(!sv[0].err);
	CHECK_EQ_U64(sv[0].nmatch, 2);
	CHECK_EQ_U64(sv[0].t0, 3 * SEC);
	CHECK_EQ_U64(sv[0].t1, 5 * SEC + 600 * MS);
	CHECK(!access(sv[0].path, R_OK));
	recorder_save_line(&sv[0], line, sizeof(line));
	CHECK(strstr(line, "saved "));
	CHECK(strstr(line, ": sched:sched_process_exec comm ~ \"rec_*\" at "));
	CHECK(strstr(line, "window 3.000000..5.600000"));
	CHECK(strstr(line, ", 2 matches"));
	recorder_status(r, &rs);
	CHECK_EQ_U64(rs.saved, 1);
	CHECK(strstr(recorder_status_line(&rs, line, sizeof(line)), "armed: 1 condition · saved 1"));
	/* a window still waiting when ktop stops: written cut at what is held, and said */
	add_ev(fh.st, 1, 9 * SEC, KTOP_T_SCHED_PROCESS_EXEC, 99, "/tmp/rec_target");
	store_publish(fh.st, 1);
	__atomic_store_n(&fh.published, 9 * SEC + 100 * MS, __ATOMIC_RELAXED);
	for (int i = 0; i < 400 && !rs.pending; i++) {
		usleep(10 * 1000);
		recorder_status(r, &rs);
	}
	CHECK(rs.pending);
	recorder_finish(r, clock_mono_ns() + SEC);
	n = recorder_saves(r, 1, sv, 4);
	CHECK_EQ_U64(n, 1);
	CHECK(!sv[0].err);
	CHECK_EQ_U64(sv[0].t1, 9 * SEC + 100 * MS);
	CHECK(strstr(sv[0].msg, "ktop was stopped 0.100 s after the first match"));
	recorder_free(r);
	store_free(fh.st);
}

static int fake_set_recording(void *arg, bool on)
{
	struct fake_host *h = arg;

	h->recording_on += on;
	return 0;
}

/*
 * --save-after 0 with a kernel to ask (a directory laid out as an instance's
 * events/): the trigger is written there, the window ends at the match,
 * recording is turned back on once it is in; when events came after the
 * match all the same, the save does not claim the kernel stopped.
 */
TEST(recorder_kernel_stop)
{
	struct fake_host fh = { 0 };
	const char *cond = "sched:sched_process_exec comm ~ \"rec_*\"";
	struct recorder_opts o = { .conds = { cond }, .nconds = 1, .before_ns = 1 * SEC,
				   .after_ns = 0, .max = 5 };
	struct recorder_host h = { .meta = fake_meta, .published = fake_published,
				   .set_recording = fake_set_recording, .wake_fd = -1 };
	struct recorder_status rs;
	struct recorder_save sv[4];
	struct recorder *r;
	char pattern[600], dir[600], trig[1400], err[1024], *t;
	size_t n = 0;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/inst", scratch());
	snprintf(trig, sizeof(trig), "mkdir -p %s/events/sched/sched_process_exec && : > "
		 "%s/events/sched/sched_process_exec/trigger", dir, dir);
	CHECK(!system(trig));
	snprintf(trig, sizeof(trig), "%s/events/sched/sched_process_exec/trigger", dir);
	fh.st = store_new(64 << 20, 2);
	CHECK(fh.st);
	store_set_comm(fh.st, 99, "rec_target", 0);
	h.st = fh.st;
	h.arg = &fh;
	h.instance_dir = dir;
	snprintf(pattern, sizeof(pattern), "%s/ks-%%n.ktop", scratch());
	o.pattern = pattern;
	CHECK(!recorder_new(&r, &o, &h, err, sizeof(err)));
	t = file_read_text(trig);
	CHECK(t && !strcmp(t, "traceoff if comm ~ \"rec_*\""));
	free(t);
	recorder_status(r, &rs);
	CHECK(strstr(rs.kernel, "the kernel stops recording at the match (traceoff triggers)"));
	CHECK(!recorder_start(r));
	/* the kernel stopped: nothing after the exec */
	for (uint64_t ts = 1 * SEC; ts < 3 * SEC; ts += 10 * MS)
		add_ev(fh.st, 0, ts, KTOP_T_SCHED_WAKEUP, 99, "rec_target");
	add_ev(fh.st, 1, 3 * SEC, KTOP_T_SCHED_PROCESS_EXEC, 99, "/tmp/rec_target");
	/* the other CPU, until the stop reached it */
	add_ev(fh.st, 0, 3 * SEC + 20 * MS, KTOP_T_SCHED_WAKEUP, 99, "rec_target");
	store_publish(fh.st, 0);
	store_publish(fh.st, 1);
	__atomic_store_n(&fh.published, 3 * SEC + 200 * MS, __ATOMIC_RELAXED);
	usleep(200 * 1000);
	CHECK(!recorder_saves(r, 0, sv, 4));
	__atomic_store_n(&fh.published, 3 * SEC + 300 * MS, __ATOMIC_RELAXED);
	for (int i = 0; i < 400 && !n; i++) {
		usleep(10 * 1000);
		n = recorder_saves(r, 0, sv, 4);
	}
	CHECK_EQ_U64(n, 1);
	CHECK(sv[0].kernel_stop);
	CHECK_EQ_U64(sv[0].t1, 3 * SEC);
	CHECK(fh.recording_on >= 1);
	/* asked again, but events came after this match: the kernel did not stop */
	for (uint64_t ts = 5 * SEC; ts < 7 * SEC; ts += 10 * MS)
		add_ev(fh.st, 0, ts, KTOP_T_SCHED_WAKEUP, 99, "rec_target");
	add_ev(fh.st, 1, 6 * SEC, KTOP_T_SCHED_PROCESS_EXEC, 99, "/tmp/rec_target");
	store_publish(fh.st, 0);
	store_publish(fh.st, 1);
	__atomic_store_n(&fh.published, 6 * SEC + 300 * MS, __ATOMIC_RELAXED);
	n = 0;
	for (int i = 0; i < 400 && !n; i++) {
		usleep(10 * 1000);
		n = recorder_saves(r, 1, sv, 4);
	}
	CHECK_EQ_U64(n, 1);
	CHECK(!sv[0].kernel_stop);
	CHECK_EQ_U64(sv[0].t1, 6 * SEC);
	recorder_finish(r, clock_mono_ns() + SEC);
	/* the trigger taken back */
	f = fopen(trig, "r");
	CHECK(f);
	CHECK(fgets(err, sizeof(err), f) && strstr(err, "!traceoff"));
	fclose(f);
	recorder_free(r);
	store_free(fh.st);
}

/* ---- an in-kernel latency's measure (a set fed by hand, as a poller would) ------------ */

struct fake_agg {
	struct agg_set	*set;
	char		spec[256];
};

static int fake_latency(void *arg, const char *spec, struct agg_set **set, char *err,
			size_t errlen)
{
	struct fake_agg *fa = ((struct fake_host *)arg)->agg;

	snprintf(fa->spec, sizeof(fa->spec), "%s", spec);
	if (strstr(spec, "nosuch"))
		return err_set(err, errlen, -ENOENT, "no event 'nosuch'\n  nosuch -> x\n  ^");
	*set = fa->set;
	return 0;
}

/* One poll of measure 0: @count pairs, the largest @max ns (its END at @te), @lat one more. */
static void feed_poll(struct agg_set *set, uint64_t polled, uint64_t count, uint64_t max,
		      uint64_t te, const uint64_t *lat, unsigned int nlat)
{
	static uint64_t bucket[AGG_BUCKETS];
	struct agg_result r;

	memset(&r, 0, sizeof(r));
	r.kind = AGG_LATENCY;
	r.polled_ns = polled;
	r.count = count;
	r.max_ns = max;
	r.unit_ns = 1;
	r.worst.lat_ns = max;
	r.worst.te_ns = te;
	snprintf(r.worst.key, sizeof(r.worst.key), "42");
	for (unsigned int i = 0; i < nlat; i++)
		bucket[agg_bucket(lat[i])]++;
	memcpy(r.bucket, bucket, sizeof(bucket));
	CHECK(!agg_set_feed(set, &r, 1));
}

/*
 * --save-on 'latency A -> B > 2ms': what the measure held when armed does
 * not count; a new maximum over the bound matches at its END's time; a pair
 * in a bucket wholly above the bound that is not the maximum matches at the
 * poll's time; a pair under the bound, or in the bucket the bound falls in
 * and not the maximum, does not. A spec the host refuses: its message.
 */
TEST(recorder_agg_latency)
{
	struct fake_agg fa = { 0 };
	struct fake_host fh = { .agg = &fa };
	const char *cond = "latency sched:sched_waking -> sched:sched_switch on pid = next_pid "
			   "> 2ms";
	struct recorder_opts o = { .conds = { cond }, .nconds = 1, .before_ns = 1 * SEC,
				   .after_ns = 200 * MS, .max = 5 };
	struct recorder_host h = { .meta = fake_meta, .published = fake_published,
				   .latency = fake_latency, .wake_fd = -1 };
	const uint64_t l3ms[] = { 3 * MS }, l5ms[] = { 5 * MS }, l1ms[] = { 1 * MS },
		       l15[] = { 1500000 }, l205[] = { 2050000 };
	struct recorder_status rs = { 0 };
	struct recorder_save sv[4];
	struct recorder *r;
	char pattern[600], err[1024];
	size_t n = 0;

	CHECK(!agg_set_new_fed(&fa.set));
	fh.st = store_new(64 << 20, 2);
	CHECK(fh.st && fa.set);
	h.st = fh.st;
	h.arg = &fh;
	snprintf(pattern, sizeof(pattern), "%s/agg-%%n.ktop", scratch());
	o.pattern = pattern;
	for (uint64_t t = 100 * MS; t < 10 * SEC; t += 10 * MS)
		add_ev(fh.st, 0, t, KTOP_T_SCHED_WAKEUP, 99, "rec_target");
	store_publish(fh.st, 0);
	/* held when armed: a 3 ms pair among ten of 1 ms */
	for (int i = 0; i < 10; i++)
		feed_poll(fa.set, 1 * SEC, 0, 0, 0, l1ms, 1);
	feed_poll(fa.set, 1 * SEC, 11, 3 * MS, 900 * MS, l3ms, 1);
	CHECK(!recorder_new(&r, &o, &h, err, sizeof(err)));
	CHECK_STR(fa.spec, "sched:sched_waking -> sched:sched_switch on pid = next_pid");
	CHECK(!recorder_start(r));
	/* a new maximum, 5 ms, its END at 1.9 s */
	feed_poll(fa.set, 2 * SEC, 12, 5 * MS, 1900 * MS, l5ms, 1);
	__atomic_store_n(&fh.published, 3 * SEC, __ATOMIC_RELAXED);
	for (int i = 0; i < 400 && !n; i++) {
		usleep(10 * 1000);
		n = recorder_saves(r, 0, sv, 4);
	}
	CHECK_EQ_U64(n, 1);
	CHECK(!sv[0].err);
	CHECK_EQ_U64(sv[0].match_ts, 1900 * MS);
	CHECK_EQ_U64(sv[0].t0, 900 * MS);
	CHECK_EQ_U64(sv[0].t1, 2100 * MS);
	CHECK_STR(sv[0].what, "latency 5.000ms, its largest, key 42");
	CHECK_STR(sv[0].cond, cond);
	/* 3 ms again, not the largest: its bucket (2.10..4.19 ms) is over 2 ms: at the poll */
	feed_poll(fa.set, 4 * SEC, 13, 5 * MS, 1900 * MS, l3ms, 1);
	for (int i = 0; i < 400 && rs.matches < 2; i++) {
		usleep(10 * 1000);
		recorder_status(r, &rs);
	}
	CHECK_EQ_U64(rs.matches, 2);
	/* 1.5 ms, then 2.05 ms in the bucket the bound falls in (1.05..2.10 ms): not seen */
	feed_poll(fa.set, 6 * SEC, 14, 5 * MS, 1900 * MS, l15, 1);
	usleep(150 * 1000);
	feed_poll(fa.set, 7 * SEC, 15, 5 * MS, 1900 * MS, l205, 1);
	__atomic_store_n(&fh.published, 9 * SEC, __ATOMIC_RELAXED);
	for (int i = 0; i < 400 && n < 2; i++) {
		usleep(10 * 1000);
		n = recorder_saves(r, 0, sv, 4);
	}
	usleep(200 * 1000);
	n = recorder_saves(r, 0, sv, 4);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(sv[1].match_ts, 4 * SEC);
	CHECK_STR(sv[1].what, "latency > 2.10ms: 1 pair over 2.00ms in the poll before");
	recorder_status(r, &rs);
	CHECK_EQ_U64(rs.matches, 2);
	recorder_free(r);

	/* the host refuses the spec: said, with the condition */
	o.conds[0] = "latency nosuch -> x > 1ms";
	CHECK(recorder_new(&r, &o, &h, err, sizeof(err)) == -ENOENT);
	CHECK(strstr(err, "--save-on 'latency nosuch -> x > 1ms': latency 'nosuch -> x': "
		      "no event 'nosuch'"));
	CHECK(strstr(err, "(at column 9)"));
	store_free(fh.st);
	agg_set_free(fa.set);
}

TEST(zz_cleanup)
{
	CHECK(!test_rm_rf(scratch()));
}

TEST_MAIN()
