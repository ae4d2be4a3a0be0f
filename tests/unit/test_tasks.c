// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tasks model (src/view/tasks.h) on stores filled from the recorded fixtures,
 * against tests/unit/tasks_text.py, which counts the same figures from the
 * kernel's own text of the same records (trace.txt): events, syscalls,
 * switches, run-queue wait and off-CPU time, the CPU last seen and the state.
 * The text has microseconds: times may differ by 1 us per interval.
 * Then sorting, searching, hiding ktop's own threads, the tree by parent,
 * the view filter, and rates.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ingest/fixture.h"
#include "lib/hashmap.h"
#include "store/store.h"
#include "model/taskrel.h"
#include "view/tasks.h"
#include "test.h"
#include "view/viewfilter.h"

struct fx {
	struct fixture	*fx;
	struct store	*st;
};

static bool fx_open(struct fx *f, const char *name)
{
	char dir[512];

	snprintf(dir, sizeof(dir), "%s/%s", fixture_root(), name);
	f->fx = fixture_open(dir);
	f->st = f->fx ? store_new(0, fixture_ncpus(f->fx)) : NULL;
	return f->st && !fixture_decode(f->fx, f->st, NULL);
}

static void fx_close(struct fx *f)
{
	store_free(f->st);
	fixture_close(f->fx);
}

/* prev_state as the kernel's print fmt writes it ("S", "D|K"... "R", "R+"). */
static void state_text(const struct tasks_row *r, char *buf, size_t len)
{
	static const char letters[] = "SDTtXZPI";
	size_t n = 0;

	if (!r->state_known) {
		snprintf(buf, len, "-");
		return;
	}
	if (r->state == TASKS_RUNNING) {
		snprintf(buf, len, "run");
		return;
	}
	buf[0] = 0;
	for (int b = 0; b < 8; b++)
		if (r->state & (1u << b))
			n += snprintf(buf + n, len - n, "%s%c", n ? "|" : "", letters[b]);
	if (!(r->state & 0xff))
		n += snprintf(buf + n, len - n, "R");
	if (r->state & 0x100)
		snprintf(buf + n, len - n, "+");
}

struct want {
	long long	events, syscalls, switches, runq_ns, runq_n, offcpu_ns, offcpu_n, cpu;
	char		state[16];
};

static bool near(long long a, long long b, long long slack)
{
	return a - b <= slack && b - a <= slack;
}

static void check_fixture(const char *name)
{
	struct tasks_query q = { .sort = TASKS_BY_PID };
	struct tasks_row *rows;
	struct tasks *tm;
	struct fx fx;
	char cmd[1024], line[512];
	size_t n, seen = 0;
	FILE *p;

	if (!fx_open(&fx, name)) {
		printf("FAIL %s: fixture %s does not load\n", __func__, name);
		test_failed_now = 1;
		return;
	}
	tm = tasks_new(fx.st, NULL);
	CHECK(tm);
	CHECK(tasks_update(tm, UINT64_MAX) > 0);
	n = tasks_rows(tm, &q, NULL, 0);
	rows = calloc(n + 1, sizeof(*rows));
	CHECK(rows);
	CHECK_EQ_U64(tasks_rows(tm, &q, rows, n), n);
	snprintf(cmd, sizeof(cmd), "python3 tests/unit/tasks_text.py '%s'",
		 fixture_path(fx.fx, "trace.txt.gz"));
	p = popen(cmd, "r");
	CHECK(p);
	while (fgets(line, sizeof(line), p)) {
		struct tasks_row *r = NULL;
		struct want w;
		char st[16];
		int pid;

		if (sscanf(line, "task %d events %lld syscalls %lld switches %lld runq_ns %lld "
			   "runq_n %lld offcpu_ns %lld offcpu_n %lld cpu %lld state %15s", &pid,
			   &w.events, &w.syscalls, &w.switches, &w.runq_ns, &w.runq_n, &w.offcpu_ns,
			   &w.offcpu_n, &w.cpu, w.state) != 10)
			continue;
		seen++;
		for (size_t i = 0; i < n && !r; i++)
			if (rows[i].pid == pid)
				r = &rows[i];
		if (!r) {
			printf("# %s: task %d in the text, not in the model\n", name, pid);
			CHECK(0);
		}
		state_text(r, st, sizeof(st));
		if ((long long)r->events != w.events || (long long)r->syscalls != w.syscalls ||
		    (long long)r->switches != w.switches || r->last_cpu != w.cpu ||
		    strcmp(st, w.state) || !near((long long)r->runq_n, w.runq_n, 1) ||
		    !near((long long)r->offcpu_n, w.offcpu_n, 1) ||
		    !near((long long)r->runq_ns, w.runq_ns, 1000 * (w.runq_n + 1)) ||
		    !near((long long)r->offcpu_ns, w.offcpu_ns, 1000 * (w.offcpu_n + 1))) {
			printf("# %s: task %d: model %llu %llu %llu runq %llu/%llu off %llu/%llu cpu %d "
			       "%s; text %s", name, pid, (unsigned long long)r->events,
			       (unsigned long long)r->syscalls, (unsigned long long)r->switches,
			       (unsigned long long)r->runq_ns, (unsigned long long)r->runq_n,
			       (unsigned long long)r->offcpu_ns, (unsigned long long)r->offcpu_n,
			       r->last_cpu, st, line);
			CHECK(0);
		}
	}
	CHECK(pclose(p) == 0);
	CHECK_EQ_U64(seen, n);
	free(rows);
	tasks_free(tm);
	fx_close(&fx);
}

TEST(tasks_figures_equal_the_text_host_sched)
{
	check_fixture("host-sched");
}

TEST(tasks_figures_equal_the_text_host_rename)
{
	check_fixture("host-rename");
}

TEST(tasks_figures_equal_the_text_rt)
{
	check_fixture("rt-sched-irq");
	check_fixture("rt612-sched-irq");
}

/* Sorting, searching, ktop's own threads, the tree. */
TEST(tasks_sort_search_self_tree)
{
	struct tasks_query q = { .sort = TASKS_BY_EVENTS };
	struct tasks_row rows[512];
	char dir[] = "/tmp/ktop-test-tasks.XXXXXX", path[128];
	struct taskrel *tr;
	struct tasks *tm;
	struct fx fx;
	size_t n, k;
	int32_t busiest;

	CHECK(fx_open(&fx, "host-sched"));
	tr = taskrel_new(fx.st);
	tm = tasks_new(fx.st, tr);
	CHECK(tm && tr);
	CHECK(tasks_update(tm, UINT64_MAX) > 0);
	n = tasks_rows(tm, &q, rows, 512);
	CHECK(n > 3 && n <= 512);
	for (size_t i = 1; i < n; i++)
		CHECK(rows[i - 1].events >= rows[i].events);
	busiest = rows[0].pid;
	q.reverse = true;
	CHECK_EQ_U64(tasks_rows(tm, &q, rows, 512), n);
	CHECK(rows[n - 1].pid == busiest);
	q.sort = TASKS_BY_COMM;
	q.reverse = false;
	tasks_rows(tm, &q, rows, 512);
	for (size_t i = 1; i < n; i++)
		CHECK(strcmp(rows[i - 1].comm, rows[i].comm) <= 0);
	/* search: by name, by pid prefix */
	q.search = "cat";
	k = tasks_rows(tm, &q, rows, 512);
	CHECK(k >= 8);
	for (size_t i = 0; i < k; i++)
		CHECK(strstr(rows[i].comm, "cat"));
	/* ktop's own threads: a directory like /proc/self/task naming the busiest */
	CHECK(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/%d", dir, busiest);
	CHECK(!mkdir(path, 0700));
	tasks_set_self(tm, dir);
	q.search = NULL;
	q.hide_self = true;
	CHECK_EQ_U64(tasks_rows(tm, &q, rows, 512), n - 1);
	for (size_t i = 0; i < n - 1; i++)
		CHECK(rows[i].pid != busiest && !rows[i].self);
	q.hide_self = false;
	tasks_rows(tm, &q, rows, 512);
	for (size_t i = 0; i < n; i++)
		CHECK(rows[i].self == (rows[i].pid == busiest));
	rmdir(path);
	rmdir(dir);
	/* the tree: the forked cats right after their parent sh, one level down */
	q.tree = true;
	q.sort = TASKS_BY_PID;
	CHECK_EQ_U64(tasks_rows(tm, &q, rows, 512), n);
	k = 0;
	for (size_t i = 0; i < n; i++) {
		if (rows[i].parent < 0)
			continue;
		/* a row's parent, when listed, comes before it, one level up */
		for (size_t j = 0; j < i; j++)
			if (rows[j].pid == rows[i].parent) {
				CHECK(rows[i].depth == rows[j].depth + 1);
				k++;
			}
	}
	CHECK(k >= 8);
	tasks_free(tm);
	taskrel_free(tr);
	fx_close(&fx);
}

/* Under a view filter only matching events count; rates come from trace time. */
TEST(tasks_view_and_rates)
{
	struct tasks_query q = { .sort = TASKS_BY_EVENTS };
	struct tasks_row rows[512];
	struct viewfilter *vf;
	struct store_stats ss;
	struct tasks *tm;
	struct fx fx;
	uint64_t total = 0, sc = 0;
	size_t n;

	CHECK(fx_open(&fx, "host-sched"));
	vf = viewfilter_new(fx.st, NULL);
	CHECK(!viewfilter_push(vf, "event:raw_syscalls:sys_enter", NULL));
	tm = tasks_new(fx.st, NULL);
	tasks_set_view(tm, vf);
	tasks_update(tm, UINT64_MAX);
	n = tasks_rows(tm, &q, rows, 512);
	for (size_t i = 0; i < n; i++) {
		CHECK_EQ_U64(rows[i].events, rows[i].syscalls);
		total += rows[i].events;
	}
	viewfilter_update(vf, 0);
	{
		struct viewfilter_counts vc;

		viewfilter_counts(vf, &vc);
		CHECK_EQ_U64(total, vc.matched);
	}
	/* rates over the trace's own span, before any tick */
	store_get_stats(fx.st, &ss);
	for (size_t i = 0; i < n; i++) {
		double want = (double)rows[i].syscalls / ((double)(ss.last_ts - ss.first_ts) / 1e9);

		CHECK(rows[i].syscalls_rate >= want * 0.999 && rows[i].syscalls_rate <= want * 1.001);
		sc += rows[i].syscalls;
	}
	CHECK(sc > 0);
	/* a tick closes an interval: no new events, so the next one's rates are 0 */
	tasks_tick(tm, ss.last_ts);
	tasks_tick(tm, ss.last_ts + 1000000000ull);
	tasks_rows(tm, &q, rows, 512);
	CHECK(rows[0].events_rate == 0);
	tasks_free(tm);
	viewfilter_free(vf);
	fx_close(&fx);
}

/*
 * Issue 31 #11: "by syscalls" and "by switches" sort by the figures the pane
 * shows, the rates (here of the trace's second half), not by totals that
 * are not on screen.
 */
TEST(tasks_sort_by_the_rates_shown)
{
	struct tasks_query q = { .sort = TASKS_BY_SYSCALLS };
	struct tasks_row rows[512];
	struct store_stats ss;
	struct tasks *tm;
	uint64_t mid;
	bool differ = false;
	struct fx fx;
	size_t n;

	CHECK(fx_open(&fx, "host-sched"));
	store_get_stats(fx.st, &ss);
	mid = ss.first_ts + (ss.last_ts - ss.first_ts) / 2;
	tm = tasks_new(fx.st, NULL);
	tasks_update(tm, mid);
	tasks_tick(tm, mid);
	tasks_update(tm, UINT64_MAX);
	tasks_tick(tm, ss.last_ts);
	for (int k = 0; k < 2; k++) {
		q.sort = k ? TASKS_BY_SWITCHES : TASKS_BY_SYSCALLS;
		n = tasks_rows(tm, &q, rows, 512);
		CHECK(n > 3);
		for (size_t i = 1; i < n; i++) {
			double r0 = k ? rows[i - 1].switches_rate : rows[i - 1].syscalls_rate;
			double r1 = k ? rows[i].switches_rate : rows[i].syscalls_rate;
			uint64_t t0 = k ? rows[i - 1].switches : rows[i - 1].syscalls;
			uint64_t t1 = k ? rows[i].switches : rows[i].syscalls;

			CHECK(r0 >= r1);
			differ |= t0 < t1;
		}
	}
	/* the halves differ: sorting by the totals would not give this order */
	CHECK(differ);
	CHECK_STR(tasks_sort_name(TASKS_BY_SYSCALLS), "syscalls/s");
	tasks_free(tm);
	fx_close(&fx);
}

TEST_MAIN()
