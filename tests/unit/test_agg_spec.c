// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The --latency and --hist spec parser, resolved against formats recorded
 * from real kernels (the rt 6.12 guest's sched events, this host's
 * syscalls): fields, offsets and sizes as the format files give them, the
 * where split per event, what the BPF engine can take, and every refusal
 * with the position its caret points at.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agg/agg_spec.h"
#include "ingest/fixture.h"
#include "test.h"

static struct agg_formats *fmts(const char *fixture)
{
	struct agg_formats *f = NULL;
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/%s/events", fixture_root(), fixture);
	if (agg_formats_new(&f, dir))
		return NULL;
	return f;
}

static int parse(const char *fixture, enum agg_spec_kind k, const char *text,
		 struct agg_spec *s, struct agg_err *e)
{
	struct agg_formats *f = fmts(fixture);
	int ret;

	if (!f)
		return -ENOMEM;
	ret = agg_spec_parse(k, text, f, s, e);
	if (ret)
		printf("# '%s': %s (at %d)\n", text, e->msg, e->pos);
	agg_formats_free(f);
	return ret;
}

TEST(wakeup_latency)
{
	struct agg_spec s;
	struct agg_err e;
	char buf[512];

	CHECK(!parse("rt612-sched-irq", AGG_LATENCY,
		     "sched:sched_waking -> sched:sched_switch on pid = next_pid", &s, &e));
	CHECK_STR(s.ev[0].name, "sched_waking");
	CHECK_STR(s.ev[1].sys, "sched");
	CHECK(s.ev[0].id > 0 && s.ev[1].id > 0 && s.ev[0].id != s.ev[1].id);
	CHECK_EQ_U64(s.nmatch, 1);
	CHECK_STR(s.match[0][0].name, "pid");
	CHECK_STR(s.match[1][0].name, "next_pid");
	CHECK_EQ_U64(s.match[0][0].size, 4);
	CHECK(s.match[0][0].kind == AGG_FT_SINT);
	/* the rt kernels' common fields move the others: offsets from the format */
	CHECK(s.match[1][0].offset > 8);
	CHECK(!s.match_default);
	CHECK(s.key_default);
	CHECK_EQ_U64(s.nkey, 1);
	CHECK_STR(s.key[0].name, "next_pid");
	CHECK_STR(s.bpf_no, "");
	CHECK_STR(agg_spec_title(&s, buf, sizeof(buf)),
		  "sched:sched_waking -> sched:sched_switch on pid = next_pid");
}

TEST(event_spellings_and_default_match)
{
	struct agg_spec s;
	struct agg_err e;

	CHECK(!parse("host-sched", AGG_LATENCY, "raw_syscalls/sys_enter->raw_syscalls.sys_exit",
		     &s, &e));
	CHECK(s.match_default);
	CHECK_STR(s.match[0][0].name, "common_pid");
	CHECK_EQ_U64(s.match[0][0].offset, 4);
	/* a bare event name found in the one system that has it */
	CHECK(!parse("host-sched", AGG_LATENCY, "sys_enter -> sys_exit by id", &s, &e));
	CHECK_STR(s.ev[0].sys, "raw_syscalls");
	CHECK(!s.key_default);
	CHECK_STR(s.key[0].name, "id");
	CHECK_EQ_U64(s.key[0].size, 8);
}

TEST(where_goes_to_each_event)
{
	struct agg_spec s;
	struct agg_err e;

	CHECK(!parse("rt612-sched-irq", AGG_LATENCY,
		     "sched:sched_waking -> sched:sched_switch on pid = next_pid where "
		     "prio < 100 && next_comm == \"vmload\" && start.target_cpu != 1", &s, &e));
	CHECK_STR(s.filt[0].kernel, "prio < 100 && target_cpu != 1");
	CHECK_STR(s.filt[1].kernel, "next_comm == \"vmload\"");
	CHECK_EQ_U64(s.filt[0].npred, 2);
	CHECK_STR(s.filt[0].pred[0].f.name, "prio");
	CHECK(s.filt[0].pred[0].op == AGG_OP_LT);
	CHECK_EQ_U64(s.filt[0].pred[0].val, 100);
	CHECK_EQ_U64(s.filt[1].npred, 1);
	CHECK_STR(s.filt[1].pred[0].str, "vmload");
	CHECK_STR(s.bpf_no, "");
	/* what the kernel takes and the BPF engine does not */
	CHECK(!parse("rt612-sched-irq", AGG_LATENCY,
		     "sched_waking -> sched_switch on pid = next_pid where (prio < 100 || "
		     "prio > 120) && next_comm ~ \"vm*\"", &s, &e));
	CHECK_STR(s.filt[0].kernel, "(prio < 100 || prio > 120)");
	CHECK_STR(s.filt[1].kernel, "next_comm ~ \"vm*\"");
	CHECK(strstr(s.bpf_no, "FIELD OP VALUE"));
	/* a negative number in a signed field */
	CHECK(!parse("rt612-sched-irq", AGG_LATENCY,
		     "sched_waking -> sched_switch on pid = next_pid where end.prev_state >= -1",
		     &s, &e));
	CHECK_EQ_U64(s.filt[1].pred[0].val, (uint64_t)-1);
}

TEST(hist_spec)
{
	struct agg_spec s;
	struct agg_err e;
	char buf[256];

	CHECK(!parse("host-syscalls", AGG_HIST, "syscalls:sys_enter_read key=common_pid,fd "
		     "val=count where count > 1", &s, &e));
	CHECK_EQ_U64(s.nkey, 2);
	CHECK_STR(s.key[1].name, "fd");
	CHECK(s.has_val);
	CHECK_STR(s.val.name, "count");
	CHECK_STR(s.filt[0].kernel, "count > 1");
	CHECK_STR(agg_spec_title(&s, buf, sizeof(buf)),
		  "syscalls:sys_enter_read key=common_pid,fd val=count where count > 1");
	CHECK(!parse("rt612-sched-irq", AGG_HIST, "sched:sched_switch keys=prev_comm", &s, &e));
	CHECK(s.key[0].kind == AGG_FT_STR);
	CHECK_EQ_U64(s.key[0].size, 16);
	CHECK_STR(s.bpf_no, "");
}

/* The position of a spec's error (-2 when it parsed) and its message. */
static int err_at(const char *fixture, enum agg_spec_kind k, const char *text, char *msg,
		  size_t len)
{
	struct agg_formats *f = fmts(fixture);
	struct agg_spec s;
	struct agg_err e;
	int ret;

	ret = agg_spec_parse(k, text, f, &s, &e);
	agg_formats_free(f);
	if (!ret)
		return -2;
	agg_err_format(&e, text, msg, len);
	return e.pos;
}

TEST(refusals_point_at_the_mistake)
{
	const char *sp = "sched:sched_waking -> sched:sched_switch on pid = nxt_pid";
	char msg[1024];

	CHECK(err_at("rt612-sched-irq", AGG_LATENCY, sp, msg, sizeof(msg)) ==
	      (int)(strstr(sp, "nxt_pid") - sp));
	CHECK(strstr(msg, "sched:sched_switch has no field 'nxt_pid'; its fields: prev_comm"));
	CHECK(strstr(msg, "\n  sched:sched_waking -> sched:sched_switch on pid = nxt_pid\n"));
	/* the caret line: two blanks, then the position */
	CHECK(strstr(msg, "\n                                                    ^"));

	sp = "sched:sched_wakin -> sched:sched_switch";
	CHECK(err_at("rt612-sched-irq", AGG_LATENCY, sp, msg, sizeof(msg)) == 0);
	CHECK(strstr(msg, "START event: no event 'sched:sched_wakin'"));
	sp = "schedx:sched_waking -> sched:sched_switch";
	CHECK(err_at("rt612-sched-irq", AGG_LATENCY, sp, msg, sizeof(msg)) == 0);
	CHECK(strstr(msg, "no event system 'schedx'"));

	/* sizes that differ: pid_t against a u64 */
	sp = "raw_syscalls:sys_enter -> raw_syscalls:sys_exit on common_pid = id";
	CHECK(err_at("host-sched", AGG_LATENCY, sp, msg, sizeof(msg)) ==
	      (int)(strstr(sp, "= id") + 2 - sp));
	CHECK(strstr(msg, "common_pid (int, 4 bytes) and id (long, 8 bytes) differ in size"));
	/* a string against a number */
	sp = "sched_waking -> sched_switch on comm = next_pid";
	CHECK(err_at("rt612-sched-irq", AGG_LATENCY, sp, msg, sizeof(msg)) > 0);
	CHECK(strstr(msg, "comm is a string (char[16]) and next_pid a number"));

	sp = "sched_waking -> sched_switch on pid = next_pid where prio < 1 || next_prio > 2";
	CHECK(err_at("rt612-sched-irq", AGG_LATENCY, sp, msg, sizeof(msg)) ==
	      (int)(strstr(sp, "next_prio") - sp));
	CHECK(strstr(msg, "names fields of both events"));
	sp = "sched_waking -> sched_switch on pid = next_pid where nosuch == 1";
	CHECK(err_at("rt612-sched-irq", AGG_LATENCY, sp, msg, sizeof(msg)) ==
	      (int)(strstr(sp, "nosuch") - sp));
	CHECK(strstr(msg, "neither sched:sched_waking nor sched:sched_switch has a field "
		      "'nosuch'"));
	sp = "sched_waking -> sched_switch on pid = next_pid where common_pid == 1";
	CHECK(err_at("rt612-sched-irq", AGG_LATENCY, sp, msg, sizeof(msg)) > 0);
	CHECK(strstr(msg, "write start.common_pid or end.common_pid"));
	sp = "sched_waking -> sched_switch on pid = next_pid where next_comm == 12";
	CHECK(err_at("rt612-sched-irq", AGG_LATENCY, sp, msg, sizeof(msg)) ==
	      (int)(strstr(sp, "12") - sp));
	CHECK(strstr(msg, "put the value in quotes"));
	sp = "sched_waking sched_switch";
	CHECK(err_at("rt612-sched-irq", AGG_LATENCY, sp, msg, sizeof(msg)) == 13);
	CHECK(strstr(msg, "expected '->'"));
	sp = "sched_waking -> sched_switch on pid == next_pid";
	CHECK(err_at("rt612-sched-irq", AGG_LATENCY, sp, msg, sizeof(msg)) ==
	      (int)(strstr(sp, "==") - sp));
	sp = "sched_waking -> sched_switch when";
	CHECK(err_at("rt612-sched-irq", AGG_LATENCY, sp, msg, sizeof(msg)) ==
	      (int)(strstr(sp, "when") - sp));

	sp = "sched:sched_switch val=prev_pid";
	CHECK(err_at("rt612-sched-irq", AGG_HIST, sp, msg, sizeof(msg)) == (int)strlen(sp));
	CHECK(strstr(msg, "key=FIELD[,FIELD] is missing"));
	sp = "sched:sched_switch key=prev_pid val=prev_comm";
	CHECK(err_at("rt612-sched-irq", AGG_HIST, sp, msg, sizeof(msg)) ==
	      (int)(strstr(sp, "prev_comm") - sp));
	CHECK(strstr(msg, "val= sums a number"));
}

TEST_MAIN()
