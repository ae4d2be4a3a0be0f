// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The BPF figures as data (src/bpfstats/bpfstats_feed.c): a bpfstats with no kernel,
 * fed two polls of a far side, answers the queries the BPF pane and the
 * batch printer make (rates, run-queue histograms, tasks, irqs with the far
 * side's names, syscalls, outliers) as a poller of that kernel would; what
 * it holds comes back out as it went in; a poll that does not fit changes
 * nothing. The stream's BPF block (src/formats/ktop_bpf.c) gives back what
 * was encoded, and every cut or flipped byte of it is refused, not read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bpfstats/bpfstats.h"
#include "formats/ktop-local.h"
#include "formats/ktop_bpf.h"
#include "test.h"

static struct bpfstats_raw_cpu cpus[2][2];
static struct bpfstats_raw_vec sirq[2][1], irq[2][1];
static struct bpfstats_irq irqname[1] = { { .vec = 24, .name = "eth0-rx" } };
static struct bpfstats_raw_sys sys[2][1];
static struct bpfstats_task task[2][2];
static bool dead[2][2];
static struct bpfstats_outlier outl[2][1];

/* Poll @i (0, 1) of a 2-CPU far side: each counter grows between them. */
static void make_raw(struct bpfstats_raw *r, int i)
{
	uint64_t k = (uint64_t)i + 1;

	memset(r, 0, sizeof(*r));
	r->mono_ns = 10000000000ull + (uint64_t)i * 500000000ull;
	r->ncpus = 2;
	r->nonline = 2;
	r->irqs = true;
	r->syscalls = true;
	strcpy(r->mode, "tp_btf");
	r->interval = 0.5;
	for (int c = 0; c < 2; c++) {
		cpus[i][c] = (struct bpfstats_raw_cpu){ .ctxsw = 100 * k * (uint64_t)(c + 1),
							.hardirq_ns = 1000000 * k };
		cpus[i][c].runq.slot[20] = 10 * k;	/* ~1 ms */
		cpus[i][c].runq.count = 10 * k;
		cpus[i][c].runq.sum_ns = 10 * k * 1100000;
	}
	r->cpu = cpus[i];
	sirq[i][0] = (struct bpfstats_raw_vec){ .id = 1, .cpu = 1, .ns = 5000 * k, .count = 5 * k };
	r->softirq = sirq[i];
	r->nsoftirq = 1;
	irq[i][0] = (struct bpfstats_raw_vec){ .id = 24, .cpu = 0, .ns = 7000 * k, .count = 7 * k };
	r->irq = irq[i];
	r->nirq = 1;
	r->irq_name = irqname;
	r->nirq_name = 1;
	sys[i][0] = (struct bpfstats_raw_sys){ .id = 0, .cpu = 1 };
	sys[i][0].h.slot[12] = 3 * k;
	sys[i][0].h.count = 3 * k;
	sys[i][0].h.sum_ns = 3 * k * 5000;
	r->sys = sys[i];
	r->nsys = 1;
	task[i][0] = (struct bpfstats_task){ .tid = 42, .tgid = 42, .comm = "worker",
					     .offcpu_ns = 2000000 * k, .offcpu_n = 4 * k,
					     .runq_ns = 300000 * k, .runq_n = 4 * k,
					     .runq_max_ns = 150000 };
	task[i][1] = (struct bpfstats_task){ .tid = 7, .tgid = 7, .comm = "kswapd0",
					     .offcpu_ns = 100 * k, .offcpu_n = k,
					     .runq_ns = 10 * k, .runq_n = k, .runq_max_ns = 10 };
	r->task = task[i];
	r->task_dead = dead[i];
	r->ntask = 2;
	outl[i][0] = (struct bpfstats_outlier){ .ts = 123 + (uint64_t)i, .latency_ns = 20000000,
						.pid = 42, .cpu = 1, .comm = "worker" };
	r->outl = outl[i];
	r->noutl = 1;
}

TEST(fed_polls_answer_as_the_far_side)
{
	struct bpfstats_raw r0, r1;
	struct bpfstats_status st;
	struct bpfstats_hist h;
	struct bpfstats_task t[4];
	struct bpfstats_irq iq[4];
	struct bpfstats_syscall sc[4];
	struct bpfstats_outlier o[4];
	struct bpfstats *bs;
	double v;

	make_raw(&r0, 0);
	make_raw(&r1, 1);
	CHECK(bpfstats_new_fed(&bs, &r0, NULL) == 0);
	CHECK(bpfstats_feed(bs, &r0) == 0);
	CHECK(bpfstats_feed(bs, &r1) == 0);
	bpfstats_get_status(bs, &st);
	CHECK_EQ_U64(st.ticks, 2);
	CHECK_EQ_U64(st.ncpus, 2);
	CHECK(st.irqs && st.syscalls && !strcmp(st.mode, "tp_btf") && !st.running);
	/* the second poll: 300 more switches in 0.5 s over both CPUs */
	CHECK(bpfstats_series(bs, BPFSTATS_CTXSW, -1, &v, NULL, 1) == 1);
	CHECK(v > 599.9 && v < 600.1);
	CHECK(bpfstats_series(bs, BPFSTATS_CTXSW, 1, &v, NULL, 1) == 1);
	CHECK(v > 399.9 && v < 400.1);
	/* run-queue: 20 since start, 10 in the last poll, all in slot 20 */
	CHECK(bpfstats_runq_hist(bs, -1, 0, &h) == 0);
	CHECK_EQ_U64(h.count, 40);
	CHECK(bpfstats_runq_hist(bs, -1, 1, &h) == 0);
	CHECK_EQ_U64(h.count, 20);
	CHECK_EQ_U64(h.slot[20], 20);
	/* tasks by off-CPU time, the far side's names */
	CHECK(bpfstats_top_tasks(bs, BPFSTATS_BY_OFFCPU, 0, t, 4) == 2);
	CHECK_EQ_U64(t[0].tid, 42);
	CHECK_STR(t[0].comm, "worker");
	CHECK_EQ_U64(t[0].offcpu_ns, 4000000);
	CHECK(bpfstats_top_tasks(bs, BPFSTATS_BY_OFFCPU, 1, t, 4) == 2);
	CHECK_EQ_U64(t[0].offcpu_ns, 2000000);
	/* the irq named as the far side's /proc/interrupts names it */
	CHECK(bpfstats_irqs(bs, -1, 0, iq, 4) == 2);
	CHECK(!strcmp(iq[0].name, "eth0-rx") || !strcmp(iq[1].name, "eth0-rx"));
	CHECK(bpfstats_syscalls(bs, -1, 1, sc, 4) == 1);
	CHECK_EQ_U64(sc[0].id, 0);
	CHECK_EQ_U64(sc[0].h.count, 3);
	/* both outliers, in order, with the far side's timestamps */
	CHECK(bpfstats_outliers(bs, 0, o, 4) == 2);
	CHECK_EQ_U64(o[0].ts, 123);
	CHECK_EQ_U64(o[1].ts, 124);
	CHECK_EQ_U64(o[1].seq, 2);
	bpfstats_free(bs);
}

TEST(what_goes_in_comes_out)
{
	struct bpfstats_raw r0, r1, back;
	struct bpfstats *bs;

	make_raw(&r0, 0);
	make_raw(&r1, 1);
	CHECK(bpfstats_new_fed(&bs, &r0, NULL) == 0);
	CHECK(bpfstats_raw_get(bs, 0, &back) == -EAGAIN);	/* nothing polled yet */
	CHECK(bpfstats_feed(bs, &r0) == 0);
	CHECK(bpfstats_feed(bs, &r1) == 0);
	CHECK(bpfstats_raw_get(bs, 1, &back) == 0);
	CHECK_EQ_U64(back.mono_ns, r1.mono_ns);
	CHECK(!memcmp(back.cpu, r1.cpu, sizeof(cpus[1])));
	CHECK(back.nsoftirq == 1 && !memcmp(back.softirq, r1.softirq, sizeof(sirq[1])));
	CHECK(back.nirq == 1 && !memcmp(back.irq, r1.irq, sizeof(irq[1])));
	CHECK(back.nirq_name == 1 && !strcmp(back.irq_name[0].name, "eth0-rx"));
	CHECK(back.nsys == 1 && !memcmp(&back.sys[0].h, &r1.sys[0].h, sizeof(r1.sys[0].h)));
	CHECK_EQ_U64(back.ntask, 2);
	CHECK_EQ_U64(back.task[0].tid, 7);	/* sorted by tid */
	CHECK_EQ_U64(back.task[1].offcpu_ns, r1.task[0].offcpu_ns);
	/* outliers after seq 1: the second only */
	CHECK_EQ_U64(back.noutl, 1);
	CHECK_EQ_U64(back.outl[0].ts, 124);
	bpfstats_raw_free(&back);
	bpfstats_free(bs);
}

TEST(a_poll_that_does_not_fit_changes_nothing)
{
	struct bpfstats_raw r0, r1;
	struct bpfstats_status st;
	struct bpfstats *bs, *none;

	make_raw(&r0, 0);
	make_raw(&r1, 1);
	CHECK(bpfstats_new_fed(&bs, &r0, NULL) == 0);
	CHECK(bpfstats_feed(bs, &r0) == 0);
	CHECK(bpfstats_feed(bs, &r0) == -EINVAL);		/* not newer */
	r1.ncpus = 3;
	CHECK(bpfstats_feed(bs, &r1) == -EINVAL);		/* another machine's shape */
	r1.ncpus = 2;
	sirq[1][0].id = 99;
	CHECK(bpfstats_feed(bs, &r1) == -EINVAL);		/* no such vector */
	sirq[1][0].id = 1;
	irq[1][0].id = 25;
	CHECK(bpfstats_feed(bs, &r1) == -EINVAL);		/* an irq nobody named */
	bpfstats_get_status(bs, &st);
	CHECK_EQ_U64(st.ticks, 1);
	r0.ncpus = 0;
	CHECK(bpfstats_new_fed(&none, &r0, NULL) == -EINVAL && !none);
	bpfstats_free(bs);
}

/* The parts of two polls that must agree after a trip through the block. */
static int raw_same(const struct bpfstats_raw *a, const struct bpfstats_raw *b)
{
	return a->mono_ns == b->mono_ns && a->ncpus == b->ncpus && a->nonline == b->nonline &&
	       a->irqs == b->irqs && a->syscalls == b->syscalls && !strcmp(a->mode, b->mode) &&
	       a->interval == b->interval && !memcmp(a->cpu, b->cpu, a->ncpus * sizeof(*a->cpu)) &&
	       a->nsoftirq == b->nsoftirq &&
	       !memcmp(a->softirq, b->softirq, a->nsoftirq * sizeof(*a->softirq)) &&
	       a->nirq == b->nirq && !memcmp(a->irq, b->irq, a->nirq * sizeof(*a->irq)) &&
	       a->nirq_name == b->nirq_name && a->irq_name[0].vec == b->irq_name[0].vec &&
	       !strcmp(a->irq_name[0].name, b->irq_name[0].name) && a->nsys == b->nsys &&
	       !memcmp(a->sys, b->sys, a->nsys * sizeof(*a->sys)) && a->ntask == b->ntask &&
	       !memcmp(a->task, b->task, a->ntask * sizeof(*a->task)) &&
	       !memcmp(a->task_dead, b->task_dead, a->ntask * sizeof(*a->task_dead)) &&
	       a->noutl == b->noutl && !memcmp(a->outl, b->outl, a->noutl * sizeof(*a->outl));
}

TEST(stream_block_round_trip)
{
	struct bpfstats_raw r, back;
	struct buf b = { 0 };
	char err[128];

	make_raw(&r, 1);
	dead[1][1] = true;
	CHECK(ktop_bpf_encode(&b, &r) == 0);
	CHECK(ktop_bpf_decode(b.p, b.len, &back, err, sizeof(err)) == 0);
	CHECK(raw_same(&r, &back));
	bpfstats_raw_free(&back);
	dead[1][1] = false;
	/* every shorter block is refused, and so is one byte more */
	for (size_t n = 0; n < b.len; n++)
		CHECK(ktop_bpf_decode(b.p, n, &back, err, sizeof(err)) < 0);
	CHECK(buf_reserve(&b, 1) == 0);
	b.p[b.len] = 0;
	CHECK(ktop_bpf_decode(b.p, b.len + 1, &back, err, sizeof(err)) == -EBADMSG);
	CHECK(strstr(err, "does not parse"));
	/* another version of the block is named as such */
	b.p[0] = 9;
	CHECK(ktop_bpf_decode(b.p, b.len, &back, err, sizeof(err)) == -EPROTO);
	CHECK(strstr(err, "version 9"));
	buf_free(&b);
}

/* Flipped bytes decode to a poll within bounds, or are refused: never past the block. */
TEST(stream_block_flipped_bytes)
{
	struct bpfstats_raw r, back;
	struct buf b = { 0 };
	char err[128];
	int ok = 0, bad = 0;

	make_raw(&r, 0);
	CHECK(ktop_bpf_encode(&b, &r) == 0);
	for (size_t i = 1; i < b.len; i++) {
		uint8_t keep = b.p[i];

		b.p[i] ^= 0xa5;
		if (ktop_bpf_decode(b.p, b.len, &back, err, sizeof(err)) == 0) {
			CHECK(back.ncpus >= 1 && back.ncpus <= b.len);
			bpfstats_raw_free(&back);
			ok++;
		} else {
			bad++;
		}
		b.p[i] = keep;
	}
	CHECK(bad > 0);
	buf_free(&b);
	printf("# flipped bytes: %d decoded within bounds, %d refused\n", ok, bad);
}

TEST_MAIN()

static bool keep_small(void *ctx, uint32_t tid)
{
	return tid <= *(uint32_t *)ctx;
}

/*
 * A view's tasks ranked among themselves: a task the view keeps is listed
 * however many others rank above it (the BPF pane once read only the top 512
 * tasks and filtered those, so a view's quiet task was not there), and the
 * count is of the view's tasks.
 */
TEST(top_tasks_of_a_view_rank_every_task)
{
	static struct bpfstats_task many[1000];
	static bool many_dead[1000];
	struct bpfstats_raw r;
	struct bpfstats_task t[4];
	struct bpfstats *bs;
	uint32_t lim = 3;

	make_raw(&r, 0);
	for (uint32_t i = 0; i < 1000; i++)
		many[i] = (struct bpfstats_task){ .tid = i + 1, .tgid = i + 1, .comm = "t",
						  .offcpu_ns = 1000ull * (i + 1), .offcpu_n = 1,
						  .runq_ns = 10, .runq_n = 1 };
	r.task = many;
	r.task_dead = many_dead;
	r.ntask = 1000;
	CHECK(bpfstats_new_fed(&bs, &r, NULL) == 0);
	CHECK(bpfstats_feed(bs, &r) == 0);
	CHECK(bpfstats_top_tasks(bs, BPFSTATS_BY_OFFCPU, 0, t, 4) == 1000);
	CHECK_EQ_U64(t[0].tid, 1000);
	CHECK(bpfstats_top_tasks_if(bs, BPFSTATS_BY_OFFCPU, 0, keep_small, &lim, t, 4) == 3);
	CHECK_EQ_U64(t[0].tid, 3);
	CHECK_EQ_U64(t[0].offcpu_ns, 3000);
	CHECK_EQ_U64(t[2].tid, 1);
	CHECK(bpfstats_top_tasks_if(bs, BPFSTATS_BY_OFFCPU, 0, NULL, NULL, t, 4) == 1000);
	CHECK_EQ_U64(t[3].tid, 997);
	bpfstats_free(bs);
}
