// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The CPU pane ("cpus"): per-CPU event rate and the share of events with each flag of the
 * kernel's latency column, with a legend of that column's letters. Fits in 80
 * columns. Under a view filter the rates and shares are those of the events
 * the view keeps (a table of the pane's own, ui/stats_view.h); the losses are
 * every event's, and say so.
 */
#include <stdlib.h>
#include "app/app.h"
#include "rowsel.h"
#include "stats_view.h"
#include "ui-local.h"
#include "pane_cpus-local.h"


static void cpus_header(struct ui *ui, struct pane *p, struct richstr *rs)
{
	ui_fmt_cpu_header(rs);
}

/* The legend, kernel letters as trace_print_lat_fmt() prints them. */
static const char *const legend_common[] = {
	"Flags column of the kernel's trace, e.g. \"dNh1.\", a letter per column (? none)",
	" 1 irqs     d irqs off  D irqs and BH off  b BH off  . irqs on",
	NULL,	/* resched: depends on the kernel */
	NULL,
	" 3 context  z NMI  Z NMI in hardirq  h hardirq  H hardirq in softirq  s softirq",
	" 4 preempt  preempt_count depth, hex digit, . when 0 (column preempt: > 0)",
	" 5 migrate  migrate_disable depth, hex digit, . when 0 (column migrdis)",
};

/* The old PREEMPT_RT lazy patch's seven columns (FLAGS_STYLE_RT_LAZY_COUNT: 6.1-rt) */
static const char *const legend_rt_lazy[] = {
	"Flags column of the trace, e.g. \"dn.h1..\", a letter per column (? none)",
	" 1 irqs     d irqs off  D irqs and BH off  b BH off  X no irq flags  . on",
	" 2 resched  n need-resched   3 lazy  L need-resched-lazy",
	" 4 context  z NMI  Z NMI in hardirq  h hardirq  H hardirq in softirq  s softirq",
	" 5 preempt  preempt_count depth, hex digit, . when 0 (column preempt: > 0)",
	" 6 lazy     preempt-lazy-depth, hex digit, + over 15, . when 0",
	" 7 migrate  migrate_disable depth, hex digit, . when 0 (column migrdis)",
};

static const char *legend_line(struct ui *ui, int i)
{
	if (ui->fstyle == FLAGS_STYLE_RT_LAZY_COUNT)
		return legend_rt_lazy[i];
	if (i == 1 && ui->fstyle == FLAGS_STYLE_NOSUPPORT)
		return " 1 irqs     d irqs off  D irqs and BH off  b BH off  X no irq flags  . on";
	if (i == 2)
		return " 2 resched  N need-resched + preempt-resched  n need-resched"
		       "  p preempt";
	if (i == 3)
		return ui->fstyle == FLAGS_STYLE_NOSUPPORT ? NULL :
		       "            lazy: l lazy  L lazy+preempt  b need+lazy  B all three";
	return legend_common[i];
}

static void cpus_draw(struct ui *ui, struct pane *p, int y, int h, int w)
{
	struct cpus_state *cs = p->priv;
	struct viewfilter *vf = ui_view(ui);
	struct ui_stats *s = vf ? ui_stats_view_feed(ui, &cs->view, vf,
						      UI_STATS_VIEW_LAST_SECOND) : NULL;
	uint64_t tot[UI_FLAG_NR] = { 0 }, total = 0, lost = 0, unrec = 0;
	int ncpu, nleg = 7, rows, row = y;
	double rate = 0;
	struct richstr rs;
	char b[32];

	if (!vf)
		ui_stats_view_drop(&cs->view);
	if (!s)
		s = &ui->stats;
	ncpu = (int)s->ncpus;

	cpus_header(ui, p, &rs);
	richstr_pad(&rs, ROLE_COLHDR, w);
	ui_draw_rs(&ui->screen, row++, 0, &rs, w);
	/* CPU rows get what the legend leaves; the legend goes when space is short */
	rows = h - 1 - 1 - (h - 2 - ncpu >= nleg + 2 ? nleg + 2 : 0);
	if (rows < 1)
		rows = 1;
	if (cs->sel >= ncpu)
		cs->sel = ncpu - 1;
	if (cs->sel < cs->top)
		cs->top = cs->sel;
	if (cs->sel >= cs->top + rows)
		cs->top = cs->sel - rows + 1;
	for (int c = 0; c < ncpu; c++) {
		const struct ui_cpu_stat *st = &s->cpu[c];

		for (int i = 0; i < UI_FLAG_NR; i++)
			tot[i] += st->shown[i];
		total += st->shown_total;
		unrec += st->shown_unrec;
		lost += st->lost;
		rate += st->rate;
		if (c < cs->top || c >= cs->top + rows)
			continue;
		ui_fmt_cpu_row(&rs, c, st->rate, st->lost, st->shown, st->shown_total);
		if (c == cs->sel && ui->active == p) {
			richstr_set_role(&rs, 0, rs.len, ROLE_SELECTED);
			richstr_pad(&rs, ROLE_SELECTED, w);
		}
		ui_draw_rs(&ui->screen, row++, 0, &rs, w);
	}
	ui_fmt_cpu_row(&rs, 0, rate, lost, tot, total);
	rs.ch[0] = 'a', rs.ch[1] = 'l', rs.ch[2] = 'l';
	richstr_set_role(&rs, 0, 3, ROLE_EVENT);
	ui_draw_rs(&ui->screen, row++, 0, &rs, w);
	if (h - (row - y) < nleg + 2)
		return;
	row++;
	richstr_clear(&rs);
	if (vf) {
		richstr_add(&rs, ROLE_WARN, cs->view.caught_up ? "In the view: " :
			    "In the view (counting its matches...): ");
		richstr_add(&rs, ROLE_DIM, "events/s and shares of the events it keeps; lost: "
			    "every event's.");
	} else {
		richstr_add(&rs, ROLE_DIM,
			    "Shares: the CPU's events of the last second with the flag set.");
	}
	if (unrec)
		richstr_addf(&rs, ROLE_WARN, " %s without flags (not recorded: \"?\" in the list) left out.",
			     ui_fmt_count(b, sizeof(b), unrec));
	ui_draw_rs(&ui->screen, row++, 0, &rs, w);
	for (int i = 0; i < nleg && row < y + h; i++) {
		const char *l = legend_line(ui, i);

		if (l)
			ui_draw_text(&ui->screen, row++, 0, i ? ROLE_DEFAULT : ROLE_EVENT, l, w);
	}
	/* what ktop chose to trace, and why */
	if (ui->app->mode_why[0] && row + 1 < y + h)
		ui_draw_wrapped(&ui->screen, row + 1, y + h - row - 1, w, ROLE_DIM,
				ui->app->mode_why);
}

static int cpus_key(struct ui *ui, struct pane *p, enum ui_action act)
{
	struct cpus_state *cs = p->priv;
	int n = (int)ui->stats.ncpus;

	struct ui_narrow nw = ui->stats.narrow;

	if (ui_rowsel_moves(act)) {
		cs->sel = (int)ui_rowsel_move(cs->sel, n, p->h - 2, act);
		return UI_HANDLED | UI_REDRAW;
	}
	if (act == ACT_VIEW_CPU)	/* #: every pane, through the view filter */
		return ui_request(ui, &(struct ui_req){
			.kind = UI_REQ_NARROW,
			.view = { .what = UI_VIEW_CPU, .cpu = (unsigned int)cs->sel },
		});
	if (act != ACT_ENTER)
		return 0;
	nw.cpu = cs->sel;
	ui_message(ui, "top view narrowed to CPU %d (x clears)", cs->sel);
	return ui_request(ui, &(struct ui_req){ .kind = UI_REQ_TOP, .top.narrow = &nw }) |
	       UI_HANDLED | UI_REDRAW;
}

static void cpus_destroy(struct pane *p)
{
	struct cpus_state *cs = p->priv;

	ui_stats_view_drop(&cs->view);
}

static int cpus_click(struct ui *ui, struct pane *p, int row, int col)
{
	struct cpus_state *cs = p->priv;
	long r = ui_rowsel_click(cs->top, row, 1, ui->stats.ncpus);

	if (r >= 0)
		cs->sel = (int)r;
	return UI_HANDLED | UI_REDRAW;
}

const struct pane_ops pane_cpus_ops = {
	.name		= "cpus",
	.label		= "CPUs",
	.priv_size	= sizeof(struct cpus_state),
	.draw		= cpus_draw,
	.key		= cpus_key,
	.destroy	= cpus_destroy,
	.click		= cpus_click,
	.keys		= "Enter: top view of CPU  #: view of CPU (every pane)",
};
