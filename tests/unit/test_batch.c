// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Headless summaries from a store filled by hand (no tracefs, no root): the
 * per-CPU event and flag counts, the top lists and their names, JSON escaping,
 * and that a second summary counts only what arrived after the first; then a
 * recording from a fixture, and summaries under a view filter.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/app.h"
#include "batch/batch.h"
#include "formats/folded.h"
#include "lib/intern.h"
#include "lib/clock.h"
#include "store/event.h"
#include "ingest/fixture.h"
#include "store/stacks.h"
#include "store/store.h"
#include "model/stacktree.h"
#include "test.h"
#include "view/viewfilter.h"

static struct app *app_fake(void)
{
	static struct app a;

	memset(&a, 0, sizeof(a));
	a.opts.interval = 0.05;
	a.opts.iterations = 1;
	a.opts.json = true;
	a.opts.batch = true;
	a.wake_fd = -1;
	a.st = store_new(16 << 20, 2);
	snprintf(a.mode_why, sizeof(a.mode_why), "test \"mode\"");
	a.start_ns = clock_mono_ns();
	return &a;
}

static void put(struct store *st, unsigned int cpu, uint64_t ts, uint16_t type, int32_t pid,
		uint8_t flags, uint8_t pc)
{
	struct ktop_event ev = {
		.ts = ts, .pid = pid, .cpu = (uint16_t)cpu, .type = type, .flags = flags, .pc = pc,
		.nargs = 0,
	};

	store_append(st, &ev);
}

/* Three events on CPU 0, three on CPU 1, with known flags. */
static void fill(struct store *st)
{
	for (int i = 0; i < 3; i++)
		put(st, 0, 1000 + i, KTOP_T_SCHED_SWITCH, 100,
		    KTOP_KF_IRQS_OFF | KTOP_KF_NEED_RESCHED, 0x01);
	put(st, 1, 1500, KTOP_T_SYS_ENTER, 200, KTOP_KF_HARDIRQ, 0x10);
	put(st, 1, 1501, KTOP_T_SYS_ENTER, 200, KTOP_KF_HARDIRQ, 0x10);
	put(st, 1, 1502, KTOP_T_SYS_ENTER, 200, KTOP_KF_SOFTIRQ | KTOP_KF_NMI, 0x00);
	store_publish(st, 0);
	store_publish(st, 1);
	store_set_comm(st, 100, "wr\"it\\er", 0);
	store_set_comm(st, 200, "sys", 0);
}

static char *run(struct app *a)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	if (!fp)
		return NULL;
	if (batch_run(a, fp)) {
		fclose(fp);
		free(buf);
		return NULL;
	}
	fclose(fp);
	return buf;
}

/* Every string of the NULL-terminated @want is in @out; prints the first that is not. */
static bool has_all(const char *out, const char *const *want)
{
	for (; *want; want++) {
		if (!strstr(out, *want)) {
			printf("missing from the summary: \"%s\"\n", *want);
			return false;
		}
	}
	return true;
}

/* The JSON summary of fill(): its counts, flags, names and escaping. */
static const char *const json_want[] = {
	"\"summary\":1,",
	"\"mode\":\"test \\\"mode\\\"\"",
	"\"events\":6,",
	"\"events_total\":6,",
	"\"lost_total\":0",
	"{\"cpu\":0,\"events\":3,",
	"{\"cpu\":1,\"events\":3,",
	"\"flags\":{\"irqs_off\":3,\"need_resched\":3,\"hardirq\":0,"
	"\"softirq\":0,\"nmi\":0,\"preempt\":3,\"migrate_disable\":0}",
	"\"flags\":{\"irqs_off\":0,\"need_resched\":0,\"hardirq\":2,"
	"\"softirq\":1,\"nmi\":1,\"preempt\":0,\"migrate_disable\":2}",
	"{\"event\":\"sched:sched_switch\",\"count\":3}",
	"{\"event\":\"raw_syscalls:sys_enter\",\"count\":3}",
	"{\"pid\":100,\"comm\":\"wr\\\"it\\\\er\",\"count\":3}",
	"{\"pid\":200,\"comm\":\"sys\",\"count\":3}",
	"\"top_functions\":[]",
	NULL
};

/* The text summary of fill(). */
static const char *const text_want[] = {
	"Trace: test \"mode\"\n",
	"Events: 6 this interval",
	"Lost: 0 this interval, 0 since start",
	/* CPU row: events, rate, lost, then the seven flag columns */
	"\n   0          3 ",
	"\n all          6 ",
	"         3  sched:sched_switch\n",
	"         3  raw_syscalls:sys_enter\n",
	"         3      100  wr\"it\\er\n",
	"(no function tracer in this session)",
	NULL
};

TEST(json_counts)
{
	struct app *a = app_fake();
	char *out;

	CHECK(a->st);
	fill(a->st);
	out = run(a);
	CHECK(out);
	/* one line, one object */
	CHECK(strchr(out, '\n') == out + strlen(out) - 1);
	CHECK(out[0] == '{');
	CHECK(has_all(out, json_want));
	free(out);
	store_free(a->st);
}

TEST(text_counts)
{
	struct app *a = app_fake();
	char *out;

	CHECK(a->st);
	a->opts.json = false;
	fill(a->st);
	out = run(a);
	CHECK(out);
	CHECK(has_all(out, text_want));
	free(out);
	store_free(a->st);
}

/*
 * Lost events of each reason: the per-CPU breakdown names them, and its terms
 * add up to the CPU's total, the CPUs' to the summary's.
 */
TEST(lost_breakdown_by_reason)
{
	static const char *const text[] = {
		"Lost: 53 this interval, 53 since start",
		"\n   0         12  = kernel 5 (missed 0, overrun 0) + dropped 0 + dropped by ktop 7"
		" + stream bound 0 + unsent 0 + unknown 0\n",
		"\n   1         41  = kernel 0 (missed 0, overrun 0) + dropped 0 + dropped by ktop 0"
		" + stream bound 11 + unsent 13 + unknown 17\n",
		NULL
	};
	static const char *const json[] = {
		"\"lost\":53,\"lost_total\":53,",
		"\"cpu\":0,\"events\":3,",
		"\"lost_total\":12,\"missed_total\":0,\"overrun_total\":0,\"dropped_total\":0,"
		"\"ktop_dropped_total\":7,\"kernel_total\":5,\"stream_total\":0,"
		"\"unsent_total\":0,\"unknown_total\":0,",
		"\"lost_total\":41,\"missed_total\":0,\"overrun_total\":0,\"dropped_total\":0,"
		"\"ktop_dropped_total\":0,\"kernel_total\":0,\"stream_total\":11,"
		"\"unsent_total\":13,\"unknown_total\":17,",
		NULL
	};
	struct app *a;
	char *out;

	for (int as_json = 0; as_json < 2; as_json++) {
		a = app_fake();
		CHECK(a->st);
		a->opts.json = as_json;
		fill(a->st);
		store_add_lost(a->st, 0, 1000, 5, STORE_LOST_KERNEL);
		store_add_lost(a->st, 0, 1001, 7, STORE_LOST_KTOP);
		store_add_lost(a->st, 1, 1500, 11, STORE_LOST_STREAM);
		store_add_lost(a->st, 1, 1501, 13, STORE_LOST_UNSENT);
		store_add_lost(a->st, 1, 1502, 17, STORE_LOST_UNKNOWN);
		out = run(a);
		CHECK(out);
		if (getenv("TEST_DEBUG"))
			fputs(out, stderr);
		CHECK(has_all(out, as_json ? json : text));
		free(out);
		store_free(a->st);
	}
}

struct later {
	struct store	*st;
	int		done;
};

/* Appends two more events on CPU 1 once the first summary is out. */
static void *append_later(void *arg)
{
	struct later *l = arg;

	usleep(300 * 1000);	/* interval is 50 ms: summary 1 is printed by now */
	put(l->st, 1, 2000, KTOP_T_SYS_EXIT, 300, 0, 0);
	put(l->st, 1, 2001, KTOP_T_SYS_EXIT, 300, 0, 0x02);
	store_publish(l->st, 1);
	__atomic_store_n(&l->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

TEST(second_summary_is_incremental)
{
	struct app *a = app_fake();
	struct later l;
	pthread_t t;
	char *out, *second, *exit2;

	CHECK(a->st);
	fill(a->st);
	a->opts.iterations = 30;	/* 1.5 s: the writer lands around summary 6 */
	l.st = a->st;
	l.done = 0;
	pthread_create(&t, NULL, append_later, &l);
	out = run(a);
	pthread_join(t, NULL);
	CHECK(out);
	if (getenv("TEST_DEBUG"))
		fputs(out, stderr);
	second = strstr(out, "\"summary\":2,");
	CHECK(second);
	CHECK(strstr(out, "\"summary\":4,"));
	/* the first summary holds the six events; the later two come once */
	CHECK(strstr(out, "\"events\":6,"));
	CHECK(strstr(out, "\"events\":2,\"events_per_s\""));
	exit2 = strstr(out, "{\"event\":\"raw_syscalls:sys_exit\",\"count\":2}");
	CHECK(exit2);
	CHECK(!strstr(exit2 + 30, "raw_syscalls:sys_exit"));
	CHECK(strstr(out, "\"events_total\":8,"));
	/* after the first summary nothing is counted again */
	CHECK(!strstr(second, "sched:sched_switch"));
	free(out);
	store_free(a->st);
}

/* ---- a recording, and a view ------------------------------------------------------
 * A recording's rates and times come from its own timestamps (issue 18 #4: a
 * 66 s trace read in a second said "up 1.0s, 1165981/s"); --json has the BPF
 * section the text summary has (#13), here its "not available" form
 * (tests/live/test_batch_view.sh checks the figures); under --view the counts,
 * the top lists and the view line count only matches.
 */

static struct fixture *fx;

/* A recording's source as far as the batch printer asks it: no BPF, and why. */
static struct bpfstats *no_bpf(const struct source *s, const char **why)
{
	if (why)
		*why = "BPF statistics: not in a snapshot";
	return NULL;
}

static const struct source_ops fixture_ops = { .name = "fixture", .bpf = no_bpf };
static struct source fixture_src = { .ops = &fixture_ops };

static struct app *app_fixture(const char *name, bool json)
{
	static struct app a;
	char dir[512];

	memset(&a, 0, sizeof(a));
	a.opts.interval = 1.0;
	a.opts.iterations = 1;
	a.opts.json = json;
	a.opts.batch = true;
	a.wake_fd = -1;
	snprintf(dir, sizeof(dir), "%s/%s", fixture_root(), name);
	fx = fixture_open(dir);
	a.st = fx ? store_new(0, fixture_ncpus(fx)) : NULL;
	if (!a.st || fixture_decode(fx, a.st, NULL))
		return NULL;
	snprintf(a.mode_why, sizeof(a.mode_why), "snapshot %s", name);
	a.src = &fixture_src;
	/* as main_offline does for a file: one summary, at once */
	a.start_ns = clock_mono_ns() - 1000000000ull;
	return &a;
}

static void app_done(struct app *a)
{
	viewfilter_free(a->view);
	store_free(a->st);
	fixture_close(fx);
}

static double num(const char *json, const char *key)
{
	char k[64];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(json, k);
	return p ? strtod(p + strlen(k), NULL) : -1;
}

TEST(recording_rates_from_its_timestamps)
{
	struct app *a = app_fixture("host-sched", true);
	struct store_stats ss;
	double span, interval, up, rate;
	char *out;

	CHECK(a);
	store_get_stats(a->st, &ss);
	span = (double)(ss.last_ts - ss.first_ts) / 1e9;
	out = run(a);
	CHECK(out);
	interval = num(out, "interval_s");
	up = num(out, "uptime_s");
	rate = num(out, "events_per_s");
	printf("# span %.3f s: interval_s %.3f uptime_s %.3f events_per_s %.0f (%llu events)\n",
	       span, interval, up, rate, (unsigned long long)ss.events);
	CHECK(strstr(out, "\"clock\":\"trace\""));
	CHECK(interval > span - 0.002 && interval < span + 0.002);
	CHECK(up > span - 0.002 && up < span + 0.002);
	CHECK(rate > ss.events / span * 0.99 && rate < ss.events / span * 1.01);
	free(out);
	app_done(a);

	a = app_fixture("host-sched", false);
	CHECK(a);
	out = run(a);
	CHECK(out);
	{
		char want[64];

		snprintf(want, sizeof(want), "up %.1fs, summary 1, interval %.2fs (trace time)",
			 span, span);
		if (!strstr(out, want))
			printf("# wanted '%s' in:\n%.300s\n", want, out);
		CHECK(strstr(out, want));
	}
	free(out);
	app_done(a);
}

TEST(json_has_the_bpf_section)
{
	struct app *a = app_fixture("host-sched", true);
	char *out;

	CHECK(a);
	out = run(a);
	CHECK(out && strstr(out, ",\"bpf\":{\"error\":\"BPF statistics: not in a snapshot\"}"));
	free(out);
	app_done(a);
}

TEST(summaries_under_a_view)
{
	struct app *a = app_fixture("host-sched", true);
	struct viewfilter_counts vc;
	char *out, *p;
	double events;

	CHECK(a);
	a->view = viewfilter_new(a->st, NULL);
	CHECK(!viewfilter_push(a->view, "comm:cat", NULL));
	CHECK(!viewfilter_push(a->view, "!event:raw_syscalls:sys_exit", NULL));
	viewfilter_update(a->view, 0);
	viewfilter_counts(a->view, &vc);
	CHECK(vc.matched > 0 && vc.matched < vc.held);
	out = run(a);
	CHECK(out);
	events = num(out, "events");
	CHECK_EQ_U64((uint64_t)events, vc.matched);
	CHECK(strstr(out, "\"view\":{\"filter\":\"comm:cat && !event:raw_syscalls:sys_exit\""));
	CHECK(!strstr(out, "\"event\":\"raw_syscalls:sys_exit\""));
	/* every top task is a cat */
	p = strstr(out, "\"top_tasks\":[");
	CHECK(p);
	for (p = strstr(p, "\"comm\":"); p && p < strstr(out, "\"self_hidden\"");
	     p = strstr(p + 1, "\"comm\":"))
		CHECK(!strncmp(p, "\"comm\":\"cat\"", 12));
	free(out);
	app_done(a);
}

/*
 * The off-CPU section of a recording under a view: the totals are by task, so
 * those of the view's pid:/comm: tasks, as the event sections count the
 * view's events.
 */
TEST(offcpu_section_under_a_view)
{
	static const struct {
		const char	*view;		/* NULL: none */
		double		ns;
	} cases[] = { { NULL, 4200 }, { "pid:42", 3700 }, { "!pid:42", 500 } };

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct app *a = app_fixture("stacks-host", true);
		struct stack_weight w[] = {
			{ 1, 42, 3, 3000 }, { 2, 42, 1, 700 }, { 2, 7, 2, 500 },
		};
		char *out, *p;

		CHECK(a && stacks_count(store_stacks(a->st)) >= 2);
		CHECK(!stacks_weights_set(store_stacks(a->st), STACKS_W_OFFCPU, w, 3));
		if (cases[c].view) {
			a->view = viewfilter_new(a->st, NULL);
			CHECK(a->view && !viewfilter_push(a->view, cases[c].view, NULL));
		}
		out = run(a);
		CHECK(out);
		p = strstr(out, "\"offcpu\":");
		CHECK(p);
		printf("  %s: ns_total %.0f\n", cases[c].view ? cases[c].view : "(no view)",
		       num(p, "ns_total"));
		CHECK(num(p, "ns_total") == cases[c].ns);
		free(out);
		app_done(a);
	}
}

/* A stack of kernel frames named by address (a function per 4 KiB) and unnamed user frames. */
static uint32_t addr_stack(struct store *st, const uint64_t *k, unsigned int nk, uint64_t user,
			   uint32_t tgid)
{
	static const char *const fn[] = {
		"", "trace_event_raw_event_sched_switch", "__traceiter_sched_switch", "__schedule",
		"schedule", "do_nanosleep",
	};
	struct intern *in = store_strings(st);
	uint32_t id = stacks_intern(store_stacks(st), k, nk, &user, user ? 1 : 0, tgid, 0, NULL);

	for (unsigned int i = 0; id && i < nk; i++) {
		const char *s = fn[k[i] >> 12];

		stacks_set_name(store_stacks(st), id, i, intern_id(in, s, strlen(s)), 0);
	}
	return id;
}

/*
 * Issue 31 #9: stacks that differ only in addresses within the same functions
 * (user frames ktop cannot name, kernel offsets) and in the tracepoint's own
 * frames at the leaf are one row of "Top stacks", one folded line and one
 * path of the caller tree, and none of them shows the tracing code.
 */
TEST(stacks_apart_only_by_address_are_one)
{
	static const uint64_t ka[] = { 0x1010, 0x2010, 0x3010, 0x4010, 0x5010 };
	static const uint64_t kb[] = { 0x1020, 0x2030, 0x3040, 0x4050, 0x5060 };
	static const uint64_t kc[] = { 0x3080, 0x4090, 0x50a0 };
	static const uint64_t kd[] = { 0x1010, 0x2010, 0x3010, 0x4010 };
	struct app *a = app_fake();
	struct stack_set set = { 0 };
	struct stack_query q;
	struct stack_tree *t;
	uint32_t id[4];
	char *out, *buf = NULL, *line, *p = NULL;
	size_t len = 0;
	unsigned int rows = 0;
	FILE *fp;

	id[0] = addr_stack(a->st, ka, 5, 0x401000, 100);
	id[1] = addr_stack(a->st, kb, 5, 0x402000, 101);
	id[2] = addr_stack(a->st, kc, 3, 0x403000, 102);
	id[3] = addr_stack(a->st, kd, 4, 0, 0);
	CHECK(id[0] && id[1] && id[2] && id[3] && stacks_count(store_stacks(a->st)) == 4);
	for (int i = 0; i < 12; i++) {
		struct ktop_event ev = {
			.ts = 1000 + (uint64_t)i, .pid = 100, .type = KTOP_T_SCHED_SWITCH,
			.stack = id[i < 6 ? 0 : i < 9 ? 1 : i < 11 ? 2 : 3],
		};

		store_append(a->st, &ev);
	}
	store_publish(a->st, 0);
	/* the set keeps the ids apart (a node's events are found by them); printing merges */
	stack_query_all(&q);
	CHECK(!stack_set_from_store(a->st, &q, &set));
	CHECK_EQ_U64(set.n, 4);
	CHECK(!stack_set_merge(a->st, &set, false, false));
	CHECK_EQ_U64(set.n, 2);
	CHECK_EQ_U64(set.v[0].count, 11);
	CHECK_EQ_U64(set.v[1].count, 1);
	stack_set_free(&set);
	/* the folded export: one line per list of frames, no tracing code */
	CHECK(!stack_set_from_store(a->st, &q, &set));
	fp = open_memstream(&buf, &len);
	CHECK(fp && folded_write_set(fp, a->st, &set, false) == 2);
	fclose(fp);
	printf("%s", buf);
	CHECK_STR(buf, "[unknown];do_nanosleep;schedule;__schedule 11\nschedule;__schedule 1\n");
	free(buf);
	/* the caller tree: one leaf, __schedule, every event under it */
	t = stack_tree_build(a->st, &set, STACK_TREE_CALLERS);
	CHECK(t && stack_tree_node(t, 0)->nchildren == 1);
	CHECK_STR(stack_tree_name(t, stack_tree_node(t, 0)->first_child), "__schedule");
	CHECK_EQ_U64(stack_tree_node(t, stack_tree_node(t, 0)->first_child)->count, 12);
	stack_tree_free(t);
	stack_set_free(&set);
	/* --batch: one row for the eleven */
	a->opts.json = false;
	out = run(a);
	CHECK(out && (p = strstr(out, "Top stacks")));
	printf("%s", p);
	/* the section ends at its blank line */
	for (line = p; (line = strchr(line, '\n')) && line[1] != '\n'; line++)
		rows += !strncmp(line + 1, "        ", 8) && strstr(line + 1, " <- ") &&
			strstr(line + 1, " <- ") < strchr(line + 1, '\n');
	CHECK_EQ_U64(rows, 2);
	CHECK(strstr(out, "        11  sched:sched_switch       __schedule <- schedule <- "
		      "do_nanosleep <- [unknown]\n"));
	CHECK(strstr(out, "         1  sched:sched_switch       __schedule <- schedule\n"));
	CHECK(!strstr(out, "traceiter") && !strstr(out, "raw_event"));
	free(out);
	store_free(a->st);
}

TEST_MAIN()
