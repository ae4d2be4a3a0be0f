// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The latency column ("d.h1.") against the kernel's own text for the same
 * records: every fixture saved the instance's trace file (trace.txt) before
 * consuming the raw pages, so line N of CPU c is record N of cpuc.raw.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <unistd.h>

#include <traceevent/event-parse.h>

#include "store/event.h"
#include "ingest/fixture.h"
#include "model/flags.h"
#include "test.h"

#define MAX_FIXTURES 32

static int list_fixtures(char names[][256], int max)
{
	struct dirent *de;
	int n = 0;
	DIR *d = opendir(fixture_root());

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		char hp[300];

		if (strncmp(de->d_name, "host-", 5) && strncmp(de->d_name, "rt", 2))
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

/* The flags column of a trace line "TASK-PID [CPU] FLAGS TS: ...". */
static bool line_flags(const char *l, unsigned int *cpu, char *flags, size_t len)
{
	const char *br = strstr(l, "] "), *lb;
	char tmp[32];

	if (*l == '#' || !br)
		return false;
	for (lb = br; lb > l && *lb != '['; lb--)
		;
	if (lb == l)
		return false;
	*cpu = strtoul(lb + 1, NULL, 10);
	if (sscanf(br + 2, "%31s", tmp) != 1)
		return false;
	snprintf(flags, len, "%s", tmp);
	return true;
}

struct cmp {
	struct tep_handle	*tep;
	struct trace_seq	s;
	enum flags_style	style;
	unsigned int		cpu;
	char			*text, *save;
	uint64_t		matched;
	char			seen[64][FLAGS_COLUMN_MAX];
	int			nseen;
	char			fail[256];
};

static int cmp_record(void *arg, unsigned int cpu, unsigned long long ts, void *data, int size)
{
	struct cmp *c = arg;
	struct tep_record rec = { .ts = ts, .cpu = cpu, .data = data, .size = size };
	unsigned long long flags = 0, pc = 0, lazy = 0;
	char want[32], got[FLAGS_COLUMN_MAX];
	struct tep_event *ev;
	unsigned int lcpu;
	char *l;
	bool found = false;

	while ((l = strtok_r(c->text, "\n", &c->save))) {
		c->text = NULL;
		if (line_flags(l, &lcpu, want, sizeof(want)) && lcpu == cpu) {
			found = true;
			break;
		}
	}
	if (!found) {
		snprintf(c->fail, sizeof(c->fail), "cpu%u: text ends at record %llu", cpu,
			 (unsigned long long)c->matched);
		return 1;
	}
	ev = tep_find_event(c->tep, tep_data_type(c->tep, &rec));
	if (!ev)
		return 1;
	tep_get_common_field_val(&c->s, ev, "common_flags", &rec, &flags, 0);
	tep_get_common_field_val(&c->s, ev, "common_preempt_count", &rec, &pc, 0);
	if (c->style == FLAGS_STYLE_RT_LAZY_COUNT)
		tep_get_common_field_val(&c->s, ev, "common_preempt_lazy_count", &rec, &lazy, 0);
	flags_format(got, c->style, flags, pc, lazy);
	if (strcmp(got, want)) {
		snprintf(c->fail, sizeof(c->fail),
			 "cpu%u record %llu: flags %#llx pc %#llx: got '%s', kernel printed '%s'",
			 cpu, (unsigned long long)c->matched, flags, pc, got, want);
		return 1;
	}
	found = false;
	for (int i = 0; i < c->nseen && !found; i++)
		found = !strcmp(c->seen[i], got);
	if (!found && c->nseen < 64)
		snprintf(c->seen[c->nseen++], FLAGS_COLUMN_MAX, "%s", got);
	c->matched++;
	return 0;
}

TEST(flags_match_kernel_text)
{
	char names[MAX_FIXTURES][256];
	int n = list_fixtures(names, MAX_FIXTURES), checked = 0;

	CHECK(n > 0);
	for (int i = 0; i < n; i++) {
		struct fixture *fx = fixture_open(names[i]);
		struct tep_event **evs;
		const char *tr;
		bool lazy;
		enum flags_style style;
		char *text;

		CHECK(fx);
		tr = fixture_meta(fx, "tracer");
		text = fixture_read_file(fixture_path(fx, "trace.txt"), NULL);
		if (!text || (tr && !strcmp(tr, "function_graph"))) {
			free(text);
			fixture_close(fx);
			continue;
		}
		free(text);
		evs = tep_list_events(fixture_tep(fx), TEP_EVENT_SORT_ID);
		CHECK(evs && evs[0]);
		lazy = tep_find_common_field(evs[0], "common_preempt_lazy_count") != NULL;
		style = flags_style_detect(fixture_meta(fx, "release"), lazy);
		for (unsigned int cpu = 0; cpu < fixture_ncpus(fx); cpu++) {
			struct cmp *c = calloc(1, sizeof(*c));
			int ret;

			CHECK(c);
			c->tep = fixture_tep(fx);
			c->style = style;
			c->cpu = cpu;
			trace_seq_init(&c->s);
			text = fixture_read_file(fixture_path(fx, "trace.txt"), NULL);
			c->text = text;
			ret = fixture_for_each_record(fx, cpu, cmp_record, c);
			if (ret)
				printf("  %s: %s\n", names[i], c->fail);
			else {
				printf("  %s cpu%u: %llu records, columns seen:", names[i], cpu,
				       (unsigned long long)c->matched);
				for (int s = 0; s < c->nseen; s++)
					printf(" %s", c->seen[s]);
				printf("\n");
			}
			trace_seq_destroy(&c->s);
			free(text);
			free(c);
			if (ret) {
				fixture_close(fx);
				CHECK(ret == 0);
			}
			checked++;
		}
		fixture_close(fx);
	}
	CHECK(checked > 0);
}

TEST(flags_style_by_kernel)
{
	/* the rules of trace_print_lat_fmt() history, not output: which bit means what */
	CHECK(flags_style_detect("6.1.0-28-rt-amd64", true) == FLAGS_STYLE_RT_LAZY_COUNT);
	CHECK(flags_style_detect("6.1.0-28-amd64", false) == FLAGS_STYLE_NOSUPPORT);
	CHECK(flags_style_detect("6.12.9-rt-amd64", false) == FLAGS_STYLE_LAZY);
	CHECK(flags_style_detect("5.15.0", false) == FLAGS_STYLE_NOSUPPORT);
	CHECK(flags_style_detect("7.0", false) == FLAGS_STYLE_LAZY);
}

TEST(flags_columns_width)
{
	char buf[FLAGS_COLUMN_MAX];

	/* every flag byte gives a fixed-width column in every style */
	for (int st = FLAGS_STYLE_NOSUPPORT; st <= FLAGS_STYLE_RT_LAZY_COUNT; st++)
		for (int f = 0; f < 256; f++) {
			int n = flags_format(buf, st, f, 0xff, 0x3);

			CHECK(n == (st == FLAGS_STYLE_RT_LAZY_COUNT ? 7 : 5));
			CHECK((int)strlen(buf) == n);
		}
}

/*
 * Issue 31 #3: uprobe events on this host (6.18) carry the context that
 * tracing_gen_ctx_dec() leaves when it takes one off 0, "DBZff" (flags 0xff,
 * count 0xff), or off a task that needed rescheduling, "dL.ff" (0x23, 0xff):
 * both as the kernel's own trace text showed them. Shown as not recorded;
 * an ordinary context, and deep but possible depths, keep their letters.
 */
TEST(flags_not_recorded_shown_as_such)
{
	static const struct {
		uint8_t		flags, pc;
		const char	*kernel, *shown;
	} cases[] = {
		{ 0xff, 0xff, "DBZff", "?????" },
		{ 0x23, 0xff, "dL.ff", "?????" },
		{ 0x0d, 0x01, "dnh1.", "dnh1." },
		{ 0x00, 0xfe, "...ef", "...ef" },
		{ 0x01, 0x0f, "d..f.", "d..f." },
	};
	char buf[FLAGS_COLUMN_MAX];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		flags_format(buf, FLAGS_STYLE_LAZY, cases[i].flags, cases[i].pc, 0);
		CHECK_STR(buf, cases[i].kernel);
		flags_format_shown(buf, FLAGS_STYLE_LAZY, cases[i].flags, cases[i].pc, 0);
		CHECK_STR(buf, cases[i].shown);
		CHECK(ktop_ctx_recorded(cases[i].pc) == !strcmp(cases[i].shown, cases[i].kernel));
	}
	CHECK(flags_format_shown(buf, FLAGS_STYLE_RT_LAZY_COUNT, 0xff, 0xff, 0) == 7);
	CHECK_STR(buf, "???????");
}

TEST_MAIN()
