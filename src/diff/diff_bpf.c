// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The diff's BPF table: ktop's BPF statistics (src/bpfstats/bpfstats.h) of
 * each side, where it has them: the live session's own, or those a .ktop
 * stream carries. Its totals since the programs loaded, per second of the
 * side's length: context switches, run-queue waits, hard and soft
 * interrupts, and per syscall and per interrupt vector (by name).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/app.h"
#include "bpfstats/bpfstats.h"
#include "diff-local.h"

#define BPF_ROWS_MAX	512

static void bpf_row(struct diff_build *b, struct diff_side *s, int side, const char *name,
		    uint64_t count, uint64_t ns, bool timed)
{
	struct diff_row *r = diff_build_row(b, name, strlen(name), NULL);

	if (!r)
		return;
	r->in |= side == DIFF_BASE ? DIFF_IN_BASE : DIFF_IN_NEW;
	r->v[side][0] = diff_rate(s, (double)count);
	r->v[side][1] = timed ? diff_rate(s, (double)ns) : NAN;
	r->v[side][2] = timed && count ? (double)ns / (double)count : NAN;
}

void diff_make_bpf(struct diff *d, struct diff_build *b)
{
	struct bpfstats_syscall *sc = malloc(BPF_ROWS_MAX * sizeof(*sc));
	struct bpfstats_irq *irq = malloc(BPF_ROWS_MAX * sizeof(*irq));

	if (!sc || !irq) {
		b->err = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < DIFF_NSIDES; i++) {
		struct diff_side *s = &d->side[i];
		struct bpfstats *bs = s->ready ? app_bpf(s->a) : NULL;
		struct bpfstats_hist rq;
		struct bpfstats_cpu c;
		size_t n;

		if (!bs || bpfstats_cpu_totals(bs, -1, &c))
			continue;
		b->t->have[i] = true;
		bpf_row(b, s, i, "context switches", c.ctxsw, 0, false);
		if (!bpfstats_runq_hist(bs, -1, 0, &rq))
			bpf_row(b, s, i, "run-queue waits", rq.count, rq.sum_ns, true);
		bpf_row(b, s, i, "hardirq", c.hardirq_n, c.hardirq_ns, true);
		bpf_row(b, s, i, "softirq", c.softirq_n, c.softirq_ns, true);
		n = bpfstats_syscalls(bs, -1, 0, sc, BPF_ROWS_MAX);
		for (size_t k = 0; k < n && k < BPF_ROWS_MAX; k++) {
			char name[64];

			snprintf(name, sizeof(name), "syscall %s", sc[k].name);
			bpf_row(b, s, i, name, sc[k].h.count, sc[k].h.sum_ns, true);
		}
		n = bpfstats_irqs(bs, -1, 0, irq, BPF_ROWS_MAX);
		for (size_t k = 0; k < n && k < BPF_ROWS_MAX; k++) {
			char name[64];

			snprintf(name, sizeof(name), "%s %s", irq[k].soft ? "softirq" : "irq",
				 irq[k].name);
			bpf_row(b, s, i, name, irq[k].count, irq[k].ns, true);
		}
	}
	/* one side only: its time figures are unknown on the other */
	for (size_t k = 0; k < b->t->n; k++) {
		struct diff_row *r = &b->t->rows[k];

		for (int i = 0; i < DIFF_NSIDES; i++)
			if (!(r->in & (1u << i)))
				r->v[i][1] = r->v[i][2] = NAN;
	}
	if (!b->t->have[0] && !b->t->have[1])
		snprintf(b->t->note, sizeof(b->t->note),
			 "neither side has ktop's BPF statistics (a live session, or a .ktop "
			 "stream that carried them)");
out:
	free(sc);
	free(irq);
}
