/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The latency pane's state (pane_latency.c): private to it and its tests.
 */
#ifndef KTOP_UI_PANE_LATENCY_LOCAL_H
#define KTOP_UI_PANE_LATENCY_LOCAL_H

#include <stdbool.h>
#include <stdint.h>

#include "model/latency.h"
#include "tracer_rows.h"

#define LAT_MAX_CPUS	1024

/* What the pane shows: A toggles; by default the A->B latencies where there are any. */
enum lat_show { LAT_SHOW_AUTO, LAT_SHOW_TRACER, LAT_SHOW_AGG };

struct lat_state {
	struct latency		*l;
	uint64_t		t0;		/* the next feed starts here */
	int			sel;		/* row in the sorted order; 0 is "ALL" */
	int			sel_cpu;	/* -1: ALL */
	int			top;
	enum ui_lat_sort	sort;
	enum latency_series	series;		/* histogram and sparkline */
	enum latency_hist_mode	mode;
	uint64_t		stop_ns;	/* 0: no threshold */
	bool			stopped;
	bool			switched;	/* o: the table starts at the switch */
	int			pick;		/* o without a kernel to switch: the table
						 * shown (enum latency_table), -1: by the data */
	struct latency_worst	stop_at;	/* the sample that crossed it */
	uint64_t		view_gen;	/* the view filter the model was fed under */
	int			rows[LAT_MAX_CPUS + 1];	/* CPU of each row, -1: ALL */
	int			nrows;
	/* the A->B latencies measured in the kernel (src/agg/agg.h) */
	enum lat_show		show;
	int			agg_sel;	/* the measure selected */
	int			agg_sort;	/* the breakdown's order: enum agg_sort (pane_latency.c) */
	char			agg_err[1024];	/* the last spec m could not make */
};

#endif
