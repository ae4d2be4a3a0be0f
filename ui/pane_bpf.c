// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pane: BPF statistics. Its content belongs to another piece of work; until it
 * lands, the pane keeps its place in the layout and says plainly what this
 * kernel permits and why.
 */
#include "features.h"
#include "ui-local.h"

static const int bpf_features[] = { FEATURE_BPF, FEATURE_BTF };

static void bpf_draw(struct ui *ui, struct pane *p, int y, int h, int w)
{
	ui_draw_unavailable(ui, y, h, w, "BPF statistics",
			    bpf_features, (int)(sizeof(bpf_features) / sizeof(int)),
			    "Per-CPU statistics aggregated in the kernel by ktop's BPF programs "
			    "(ktop issue 8) appear here. They need root, CONFIG_BPF_SYSCALL and "
			    "BTF at "
			    "/sys/kernel/btf/vmlinux; the state of each on this kernel is above.");
}

const struct pane_ops pane_bpf_ops = {
	.name	= "BPF",
	.draw	= bpf_draw,
};
