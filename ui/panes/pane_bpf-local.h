/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The BPF pane's state (pane_bpf.c): private to it and its tests.
 */
#ifndef KTOP_UI_PANE_BPF_LOCAL_H
#define KTOP_UI_PANE_BPF_LOCAL_H

#include <stdbool.h>
#include <stdint.h>

#include "bpfstats/bpfstats.h"
#include "model/stacktree.h"

#define OUTL_MAX	256	/* outliers the pane keeps, newest last */
#define SPARK_MAX	240

struct bpf_state {
	int			cpu;		/* histograms: -1 all CPUs */
	bool			since_start;	/* histograms: since start, else recent */
	uint64_t		seq;		/* newest outlier read */
	int			n;		/* outliers held */
	struct bpfstats_outlier	outl[OUTL_MAX];
	int			sel;		/* selected outlier, 0: newest */
	int			top;		/* first outlier row shown */
	int			outl_y;		/* pane row of the first outlier row, -1: none */
	int			outl_rows;
	double			spark[SPARK_MAX];
	/* the off-CPU view (o) */
	bool			offcpu;
	int			tsel, ttop;	/* task rows: 0 every task, k the k-th task */
	uint32_t		off_tid;	/* the selected task; 0: every task */
	char			off_comm[BPFSTATS_COMM_LEN + 1];
	int			task_y, task_rows;	/* pane rows of the task list, -1: none */
	int			ssel, stop;	/* the selected stack, the first shown */
	int			stack_rows;
	struct stack_set	off;		/* off_pid's off-CPU stacks, by time */
	int32_t			off_pid;
	uint64_t		off_ns;		/* when they were read; 0: not yet */
	uint64_t		off_view;	/* the view filter they were read under */
};

#endif
