// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pane: OS noise and timer latency. Its content belongs to another piece of work; until it
 * lands, the pane keeps its place in the layout and says plainly what this
 * kernel permits and why.
 */
#include "features.h"
#include "ui-local.h"

static const int latency_features[] = { FEATURE_OSNOISE, FEATURE_TIMERLAT };

static void latency_draw(struct ui *ui, struct pane *p, int y, int h, int w)
{
	ui_draw_unavailable(ui, y, h, w, "OS noise and timer latency",
			    latency_features, (int)(sizeof(latency_features) / sizeof(int)),
			    "osnoise and timerlat histograms and per-CPU noise are shown here once "
			    "ktop drives those tracers (ktop issue 6). They need "
			    "CONFIG_OSNOISE_TRACER and CONFIG_TIMERLAT_TRACER; the reasons this "
			    "kernel gives are above.");
}

const struct pane_ops pane_latency_ops = {
	.name	= "Latency",
	.draw	= latency_draw,
};
