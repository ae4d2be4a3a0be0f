// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The BPF pane ("bpf"): statistics (src/bpfstats/bpfstats.h), aggregated in the kernel by ktop's
 * CO-RE programs and polled by the ktop-bpf thread: a live run-queue latency
 * histogram (runqlat) and the busiest syscall's latency (funclatency), per-CPU
 * sparklines, the top tasks by off-CPU time and by run-queue wait, and the
 * run-queue latency outliers; Enter on an outlier opens the event list at its
 * time. Left/Right pick the CPU of the histograms, v their window.
 *
 * o: the off-CPU view: the tasks by time off CPU (every task first), and
 * below them where the selected one waits: its off-CPU stacks (--offcpu,
 * src/bpfstats/bpf_offcpu.h), by time, each a line of frames from where it blocked
 * to its callers; Enter or i opens that task's stacks in the stacks pane's
 * icicle, y in its caller tree, with the selected stack (] [) selected.
 *
 * Without the BPF statistics (off, refused by the kernel, or a recording
 * that did not carry them) the pane says why; where there are off-CPU stacks
 * all the same (a recording made with --offcpu), it shows the off-CPU view
 * below that line, the tasks by the stacks' own totals, as the stacks pane
 * shows those stacks. When there is neither, the rest of ktop goes on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/app.h"
#include "bpf_rows.h"
#include "bpfstats/bpfstats.h"
#include "lib/clock.h"
#include "store/event.h"
#include "kernel/features.h"
#include "lib/intern.h"
#include "rowsel.h"
#include "model/stacktree.h"
#include "store/stacks.h"
#include "store/store.h"
#include "view/viewfilter.h"
#include "ui-local.h"
#include "pane_bpf-local.h"

#define TASKS_SHOWN	5
#define RECENT_S	10.0	/* the "recent" histogram window */
#define COL_W		78	/* a histogram column */
#define TASK_W		56	/* a top-task table */
#define TASKS_VIEW_MAX	512	/* tasks an off-CPU list without the BPF statistics holds */
#define OFF_TASKS_MAX	128	/* tasks the off-CPU view lists */
#define OFF_FRAMES	64	/* frames of a stack row */
#define OFF_REFRESH_NS	1000000000ull	/* the off-CPU stacks are read once a second */


static const int bpf_features[] = { FEATURE_BPF, FEATURE_BTF };

static int bpf_init(struct ui *ui, struct pane *p)
{
	struct bpf_state *bs = p->priv;

	bs->cpu = -1;
	bs->outl_y = -1;
	bs->task_y = -1;
	return 0;
}

static void bpf_destroy(struct pane *p)
{
	struct bpf_state *bs = p->priv;

	stack_set_free(&bs->off);
}

/* Read the outliers that arrived since the last frame. */
static void bpf_pull_outliers(struct bpfstats *b, struct bpf_state *bs)
{
	struct bpfstats_outlier tmp[64];
	size_t got;

	while ((got = bpfstats_outliers(b, bs->seq, tmp, 64)) > 0) {
		for (size_t i = 0; i < got; i++) {
			if (bs->n == OUTL_MAX) {
				memmove(bs->outl, bs->outl + 1,
					(OUTL_MAX - 1) * sizeof(bs->outl[0]));
				bs->n--;
			}
			bs->outl[bs->n++] = tmp[i];
			/* keep the same outlier selected as new ones arrive */
			if (bs->sel > 0)
				bs->sel++;
		}
		bs->seq = tmp[got - 1].seq;
		if (got < 64)
			break;
	}
	bs->sel = (int)ui_rowsel_clamp(bs->sel, bs->n);
}

static unsigned int recent_ticks(const struct bpfstats_status *st)
{
	double iv = st->interval > 0 ? st->interval : 0.5;
	unsigned int t = (unsigned int)(RECENT_S / iv + 0.5);

	if (t < 1)
		t = 1;
	return t > BPFSTATS_HIST_WINDOW ? BPFSTATS_HIST_WINDOW : t;
}

static void window_name(const struct bpf_state *bs, const struct bpfstats_status *st,
			char *buf, size_t len)
{
	if (bs->since_start)
		snprintf(buf, len, "since start");
	else
		snprintf(buf, len, "last %.0f s", recent_ticks(st) * st->interval);
}

static bool view_task_keep(void *ctx, uint32_t tid)
{
	return viewfilter_task_ok(ctx, (int32_t)tid);
}

/*
 * The top tasks by @by since start, those the view's task clauses keep (all
 * of them, ranked after the view): up to @max in @out. Return: how many
 * there are.
 */
static size_t top_tasks(struct ui *ui, struct bpfstats *b, enum bpfstats_sort by,
			struct bpfstats_task *out, size_t max)
{
	struct viewfilter *vf = ui_view(ui);

	if (!vf)
		return bpfstats_top_tasks(b, by, 0, out, max);
	return bpfstats_top_tasks_if(b, by, 0, view_task_keep, vf, out, max);
}

/* By time off CPU, most first; then by thread. */
static int offcpu_task_cmp(const void *x, const void *y)
{
	const struct bpfstats_task *a = x, *b = y;

	if (a->offcpu_ns != b->offcpu_ns)
		return a->offcpu_ns > b->offcpu_ns ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

/* By thread. */
static int weight_pid_cmp(const void *x, const void *y)
{
	const struct stack_weight *a = x, *b = y;

	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

/*
 * The tasks by time off CPU, those the view's task clauses keep, up to @max
 * in @out (TASKS_VIEW_MAX of room): the BPF statistics' (@b: every task they
 * track), or without them the off-CPU stacks' own totals by thread. Return:
 * how many there are.
 */
static size_t offcpu_tasks(struct ui *ui, struct bpfstats *b, struct bpfstats_task *out,
			   size_t max)
{
	struct bpfstats_task *all;
	struct stack_query q;
	struct stack_set set;
	size_t n = 0;

	if (b)
		return top_tasks(ui, b, BPFSTATS_BY_OFFCPU, out, max);
	stack_query_all(&q);
	viewfilter_stack_query(ui_view(ui), &q);
	if (stack_set_from_offcpu(ui->st, true, &q, &set))
		return 0;
	all = calloc(set.n ? set.n : 1, sizeof(*all));
	if (!all) {
		stack_set_free(&set);
		return 0;
	}
	/* by thread: a task's stacks are next to each other */
	qsort(set.v, set.n, sizeof(*set.v), weight_pid_cmp);
	for (size_t i = 0; i < set.n; i++) {
		const struct stack_weight *sw = &set.v[i];

		if (!i || sw->pid != set.v[i - 1].pid) {
			const char *comm = store_comm(ui->st, sw->pid);

			all[n].tid = (uint32_t)sw->pid;
			snprintf(all[n].comm, sizeof(all[n].comm), "%s", comm ? comm : "<...>");
			n++;
		}
		all[n - 1].offcpu_ns += sw->value;
		all[n - 1].offcpu_n += sw->count;
	}
	qsort(all, n, sizeof(*all), offcpu_task_cmp);
	memcpy(out, all, (n < TASKS_VIEW_MAX ? n : TASKS_VIEW_MAX) * sizeof(*out));
	free(all);
	stack_set_free(&set);
	return n;
}

/* Off-CPU stacks to show without the BPF statistics (a recording's, say). */
static bool offcpu_alone(struct ui *ui)
{
	return !app_bpf(ui->app) &&
	       (app_offcpu(ui->app) ||
		stacks_weights_get(store_stacks(ui->st), STACKS_W_OFFCPU, NULL, 0, NULL));
}

static int draw_tasks(struct ui *ui, struct bpfstats *b, int y, int x, int h, int w,
		      enum bpfstats_sort by)
{
	struct bpfstats_task t[TASKS_VIEW_MAX];
	struct richstr rs;
	size_t n, total;
	int row = 0;

	if (h <= 0)
		return 0;
	total = top_tasks(ui, b, by, t, TASKS_SHOWN);
	n = total < TASKS_SHOWN ? total : TASKS_SHOWN;
	richstr_clear(&rs);
	richstr_add(&rs, ROLE_EVENT, by == BPFSTATS_BY_OFFCPU ?
		    "Top tasks by off-CPU time" : "Top tasks by run-queue wait");
	richstr_addf(&rs, ROLE_DIM, "  (since start, %zu tasks%s)", total,
		     ui_view(ui) ? " in the view" : "");
	ui_draw_rs(&ui->screen, y + row++, x, &rs, w);
	if (row < h) {
		bpf_fmt_task_header(&rs, by);
		ui_draw_rs(&ui->screen, y + row++, x, &rs, w);
	}
	for (size_t i = 0; i < n && row < h; i++) {
		bpf_fmt_task_row(&rs, &t[i], by);
		ui_draw_rs(&ui->screen, y + row++, x, &rs, w);
	}
	return row;
}

/* One row per CPU (and all CPUs): sparklines of context switches and run-queue p99. */
static int draw_sparks(struct ui *ui, struct bpfstats *b, struct bpf_state *bs,
		       const struct bpfstats_status *st, int y, int h, int w)
{
	static const enum bpfstats_metric m[] = { BPFSTATS_CTXSW, BPFSTATS_RUNQ_P99_US,
						  BPFSTATS_HARDIRQ_PCT };
	static const char *const mname[] = { "ctxsw/s", "runq p99", "irq" };
	int nm = w >= 150 ? 3 : 2, row = 0;
	int sw = (w - 6 - nm * 20) / nm;
	struct richstr rs;
	char buf[32];

	if (h <= 0)
		return 0;
	if (sw > SPARK_MAX)
		sw = SPARK_MAX;
	if (sw < 8)
		sw = 8;
	richstr_clear(&rs);
	richstr_add(&rs, ROLE_EVENT, "Per CPU");
	richstr_addf(&rs, ROLE_DIM, "  (one cell per %.1f s, newest right; scaled per row)",
		     st->interval);
	ui_draw_rs(&ui->screen, y + row++, 0, &rs, w);
	for (int c = -1; c < (int)st->ncpus && row < h; c++) {
		if (c >= 0 && ui_view(ui) && !viewfilter_cpu_ok(ui_view(ui), (unsigned int)c))
			continue;	/* not in the view's CPUs */
		richstr_clear(&rs);
		if (c < 0)
			richstr_add(&rs, ROLE_CPU, "all  ");
		else
			richstr_addf(&rs, ROLE_CPU, "%-4d ", c);
		for (int i = 0; i < nm; i++) {
			size_t n = bpfstats_series(b, m[i], c, bs->spark, NULL, (size_t)sw);
			double last = n ? bs->spark[n - 1] : 0;

			richstr_addf(&rs, ROLE_DIM, " %s ", mname[i]);
			bpf_fmt_spark(&rs, ROLE_BAR, bs->spark, n, sw);
			if (m[i] == BPFSTATS_CTXSW)
				richstr_addf(&rs, ROLE_DEFAULT, " %6s", ui_fmt_count(buf,
					     sizeof(buf), (uint64_t)(last + 0.5)));
			else if (m[i] == BPFSTATS_RUNQ_P99_US)
				richstr_addf(&rs, ROLE_DEFAULT, " %6s",
					     ui_fmt_dur(buf, sizeof(buf), (uint64_t)(last * 1e3)));
			else
				richstr_addf(&rs, ROLE_DEFAULT, " %5.1f%%", last);
		}
		ui_draw_rs(&ui->screen, y + row++, 0, &rs, w);
	}
	return row;
}

static void draw_outliers(struct ui *ui, struct bpf_state *bs,
			  const struct bpfstats_status *st, int py, int y, int h, int w)
{
	struct richstr rs;
	char b1[32], b2[32];
	int rows = h - 2;

	bs->outl_y = -1;
	if (h <= 0)
		return;
	richstr_clear(&rs);
	richstr_add(&rs, ROLE_EVENT, "Run-queue latency outliers");
	richstr_addf(&rs, ROLE_DIM, "  (newest first; %s received, %s dropped; Enter: the "
		     "event list at that time)", ui_fmt_count(b1, sizeof(b1), st->outliers),
		     ui_fmt_count(b2, sizeof(b2), st->outliers_dropped));
	richstr_fit_words(&rs, w);
	ui_draw_rs(&ui->screen, y, 0, &rs, w);
	if (h < 2)
		return;
	bpf_fmt_outlier_header(&rs);
	richstr_pad(&rs, ROLE_COLHDR, w);
	ui_draw_rs(&ui->screen, y + 1, 0, &rs, w);
	if (!bs->n) {
		if (rows > 0)
			ui_draw_text(&ui->screen, y + 2, 2, ROLE_DIM, "none yet", w - 2);
		return;
	}
	if (rows < 1)
		return;
	if (bs->sel < bs->top)
		bs->top = bs->sel;
	if (bs->sel >= bs->top + rows)
		bs->top = bs->sel - rows + 1;
	if (bs->top < 0)
		bs->top = 0;
	bs->outl_y = y + 2 - py;
	bs->outl_rows = rows;
	for (int r = 0; r < rows && bs->top + r < bs->n; r++) {
		int i = bs->top + r;

		bpf_fmt_outlier_row(&rs, &bs->outl[bs->n - 1 - i]);
		if (i == bs->sel) {
			richstr_set_role(&rs, 0, rs.len, ROLE_SELECTED);
			richstr_pad(&rs, ROLE_SELECTED, w);
		}
		ui_draw_rs(&ui->screen, y + 2 + r, 0, &rs, w);
	}
}

/* ---- the off-CPU view (o) ------------------------------------------------------------ */

/* The off-CPU stacks of the selected task, read again once a second or when it changes. */
static void offcpu_refresh(struct ui *ui, struct bpf_state *bs)
{
	uint64_t now = clock_mono_ns();
	struct stack_query q;
	struct stack_set set;

	if (bs->off_ns && bs->off_pid == (int32_t)bs->off_tid && bs->off_view == ui_view_gen(ui) &&
	    (ui->paused || now - bs->off_ns < OFF_REFRESH_NS))
		return;
	if (!bs->off_ns || now - bs->off_ns >= OFF_REFRESH_NS)
		app_offcpu_poll(ui->app);	/* -ENODEV without --offcpu: the store's, from a file */
	/* the view's tasks (pid:, comm:) */
	stack_query_all(&q);
	q.pid = (int32_t)bs->off_tid;
	viewfilter_stack_query(ui_view(ui), &q);
	if (stack_set_from_offcpu(ui->st, false, &q, &set))
		return;		/* ENOMEM: the last set stays */
	bs->off_view = ui_view_gen(ui);
	if (bs->off_pid != (int32_t)bs->off_tid)
		bs->ssel = bs->stop = 0;
	stack_set_free(&bs->off);
	bs->off = set;
	bs->off_pid = (int32_t)bs->off_tid;
	bs->off_ns = now;
	if (bs->ssel >= (int)bs->off.n)
		bs->ssel = bs->off.n ? (int)bs->off.n - 1 : 0;
}

/* Select task row @r of @t (@n tasks; row 0: every task). */
static void offcpu_select(struct bpf_state *bs, const struct bpfstats_task *t, size_t n, long r)
{
	if (r < 0 || r > (long)n)
		r = 0;
	bs->tsel = (int)r;
	bs->off_tid = r ? t[r - 1].tid : 0;
	memcpy(bs->off_comm, r ? t[r - 1].comm : "", r ? BPFSTATS_COMM_LEN : 1);
	bs->off_comm[BPFSTATS_COMM_LEN] = '\0';
}

/* " (rows 3-9 of 40)" when rows [@top, @top + @shown) are not all @n of them. */
static void rows_note(struct richstr *rs, int top, int shown, size_t n)
{
	if (n && (top > 0 || (size_t)(top + shown) < n))
		richstr_addf(rs, ROLE_WARN, "  rows %d-%d of %zu (Up/Down scroll)", shown ? top + 1 : 0,
			     top + shown, n);
}

/* The task list: every task, then the tasks by time off CPU. Return: the rows drawn. */
static int offcpu_tasks_draw(struct ui *ui, struct bpf_state *bs, const struct bpfstats_task *t,
			     size_t n, int py, int y, int h, int w)
{
	struct richstr rs;
	int rows = h - 2, row;

	bs->task_y = -1;
	if (h <= 0)
		return 0;
	if (bs->tsel > (int)n)
		offcpu_select(bs, t, n, (long)n);
	if (rows > 0) {
		if (bs->tsel < bs->ttop)
			bs->ttop = bs->tsel;
		if (bs->tsel >= bs->ttop + rows)
			bs->ttop = bs->tsel - rows + 1;
		if (bs->ttop > (int)n + 1 - rows)
			bs->ttop = (int)n + 1 - rows;
		if (bs->ttop < 0)
			bs->ttop = 0;
	}
	richstr_clear(&rs);
	richstr_add(&rs, ROLE_EVENT, "Off-CPU time by task");
	richstr_addf(&rs, ROLE_DIM, "  (since start, %zu tasks%s; Up/Down: a task, Enter/i: its "
		     "icicle, y: its callers, ]/[: a stack, o: back)", n,
		     ui_view(ui) ? " in the view" : "");
	rows_note(&rs, bs->ttop, rows > 0 ? (rows < (int)n + 1 - bs->ttop ? rows :
					     (int)n + 1 - bs->ttop) : 0, n + 1);
	richstr_fit_words(&rs, w);
	ui_draw_rs(&ui->screen, y, 0, &rs, w);
	if (h < 2)
		return 1;
	bpf_fmt_task_header(&rs, BPFSTATS_BY_OFFCPU);
	ui_draw_rs(&ui->screen, y + 1, 2, &rs, w - 2);
	bs->task_y = y + 2 - py;
	bs->task_rows = rows;
	for (row = 0; row < rows && bs->ttop + row <= (int)n; row++) {
		int i = bs->ttop + row;

		if (i) {
			bpf_fmt_task_row(&rs, &t[i - 1], BPFSTATS_BY_OFFCPU);
		} else {
			richstr_clear(&rs);
			richstr_add(&rs, ROLE_TASK, "  (every task)");
		}
		if (i == bs->tsel) {
			richstr_set_role(&rs, 0, rs.len, ROLE_SELECTED);
			richstr_pad(&rs, ROLE_SELECTED, w - 2);
		}
		ui_fill_row(&ui->screen, y + 2 + row, ROLE_DEFAULT, w);
		ui_draw_text(&ui->screen, y + 2 + row, 0, ROLE_SELECTED, i == bs->tsel ? ">" : " ",
			     1);
		ui_draw_rs(&ui->screen, y + 2 + row, 2, &rs, w - 2);
	}
	return 2 + row;
}

/* What the stacks block says when it has no stack to show. */
static void offcpu_none(struct ui *ui, const struct bpf_state *bs, int y, int h, int w)
{
	const struct app *a = ui->app;
	char text[768];

	if (app_offcpu(a) ||
	    stacks_weights_get(store_stacks(ui->st), STACKS_W_OFFCPU, NULL, 0, NULL))
		snprintf(text, sizeof(text), "No off-CPU stacks%s yet (read every second).",
			 bs->off_tid ? " of this task" : "");
	else
		snprintf(text, sizeof(text), "Off-CPU stacks are off: start ktop with --offcpu (a BPF "
			 "program on sched_switch records the kernel and user stack of each task "
			 "as it blocks, and how long it stays off CPU; one stack walk per context "
			 "switch). %s%s", app_offcpu_why(a)[0] ? "Here: " : "", app_offcpu_why(a));
	ui_draw_wrapped(&ui->screen, y, h, w, ROLE_DIM, text);
}

/* The stacks of the selected task, by time off CPU. */
static void offcpu_stacks_draw(struct ui *ui, struct bpf_state *bs, int y, int h, int w)
{
	struct stacks *sk = store_stacks(ui->st);
	const char *names[OFF_FRAMES];
	uint32_t ids[OFF_FRAMES];
	struct richstr rs;
	char b1[32];
	int rows = h - 2;

	if (h <= 0)
		return;
	if (rows > 0) {
		if (bs->ssel < bs->stop)
			bs->stop = bs->ssel;
		if (bs->ssel >= bs->stop + rows)
			bs->stop = bs->ssel - rows + 1;
		if (bs->stop > (int)bs->off.n - rows)
			bs->stop = (int)bs->off.n - rows;
		if (bs->stop < 0)
			bs->stop = 0;
	}
	bs->stack_rows = rows;
	richstr_clear(&rs);
	if (bs->off_tid)
		richstr_addf(&rs, ROLE_EVENT, "Off-CPU stacks of %u %s", bs->off_tid, bs->off_comm);
	else
		richstr_add(&rs, ROLE_EVENT, "Off-CPU stacks of every task");
	if (!bs->off_tid && ui_view(ui))
		richstr_add(&rs, ROLE_WARN, " in the view");
	if (bs->off.n)
		richstr_addf(&rs, ROLE_DIM, "  (--offcpu, since start: %s off CPU in %zu stack%s)",
			     ui_fmt_dur(b1, sizeof(b1), bs->off.value), bs->off.n,
			     bs->off.n == 1 ? "" : "s");
	rows_note(&rs, bs->stop, rows > 0 ? (rows < (int)bs->off.n - bs->stop ? rows :
					     (int)bs->off.n - bs->stop) : 0, bs->off.n);
	richstr_fit_words(&rs, w);
	ui_draw_rs(&ui->screen, y, 0, &rs, w);
	if (!bs->off.n) {
		offcpu_none(ui, bs, y + 1, h - 1, w);
		return;
	}
	if (h < 2)
		return;
	bpf_fmt_offcpu_header(&rs);
	ui_draw_rs(&ui->screen, y + 1, 2, &rs, w - 2);
	for (int r = 0; r < rows && bs->stop + r < (int)bs->off.n; r++) {
		const struct stack_weight *sw = &bs->off.v[bs->stop + r];
		int n = stacks_shown_names(sk, sw->stack, ids, OFF_FRAMES, NULL);

		if (n > OFF_FRAMES)
			n = OFF_FRAMES;
		for (int k = 0; k < n; k++)
			names[k] = ids[k] ? intern_str(store_strings(ui->st), ids[k]) : "[unknown]";
		bpf_fmt_offcpu_row(&rs, sw->value, bs->off.value, sw->count, names,
				   n > 0 ? (unsigned int)n : 0);
		if (bs->stop + r == bs->ssel) {
			richstr_set_role(&rs, 0, rs.len, ROLE_SELECTED);
			richstr_pad(&rs, ROLE_SELECTED, w - 2);
		}
		ui_draw_text(&ui->screen, y + 2 + r, 0, ROLE_SELECTED,
			     bs->stop + r == bs->ssel ? ">" : " ", 1);
		ui_draw_rs(&ui->screen, y + 2 + r, 2, &rs, w - 2);
	}
}

/*
 * The off-CPU view below the status lines: the task list gets a third of the
 * rows (at most what it has), the stacks the rest.
 */
static void offcpu_draw(struct ui *ui, struct bpf_state *bs, struct bpfstats *b, int py, int y,
			int h, int w)
{
	struct bpfstats_task t[TASKS_VIEW_MAX];
	size_t n = offcpu_tasks(ui, b, t, OFF_TASKS_MAX);
	int th, used;

	bs->outl_y = -1;
	if (n > OFF_TASKS_MAX)
		n = OFF_TASKS_MAX;
	/* the selected task stays selected as the order changes */
	for (size_t i = 0; bs->off_tid && i < n; i++)
		if (t[i].tid == bs->off_tid)
			bs->tsel = (int)i + 1;
	offcpu_refresh(ui, bs);
	th = (h - 1) / 3;
	if (th < 3)
		th = h < 8 ? (h + 1) / 2 : 3;
	if (th > (int)n + 3)
		th = (int)n + 3;
	used = offcpu_tasks_draw(ui, bs, t, n, py, y, th, w);
	offcpu_stacks_draw(ui, bs, y + used + 1, h - used - 1, w);
}

/* Enter, i, y: the selected task's off-CPU stacks in the stacks pane, the selected one selected. */
static int offcpu_open(struct ui *ui, struct bpf_state *bs, bool icicle)
{
	char what[64];

	if (!bs->off.n) {
		ui_message(ui, "no off-CPU stacks%s: %s", bs->off_tid ? " of this task" : "",
			   app_offcpu(ui->app) ? "none yet" : "start ktop with --offcpu");
		return UI_HANDLED | UI_REDRAW;
	}
	if (bs->off_tid)
		snprintf(what, sizeof(what), "the waits of %u %s", bs->off_tid, bs->off_comm);
	else
		snprintf(what, sizeof(what), "every task's waits");
	return ui_request(ui, &(struct ui_req){
		.kind = UI_REQ_STACKS,
		.stacks = {
			.icicle = icicle, .src = SV_SRC_OFFCPU, .type = -1, .pid = (int32_t)bs->off_tid,
			.stack = bs->ssel < (int)bs->off.n ? bs->off.v[bs->ssel].stack : 0,
			.what = what,
		},
	}) | UI_REDRAW;
}

/* The keys of the off-CPU view. Return: enum ui_result, or -1: not one of them. */
static int offcpu_key(struct ui *ui, struct bpf_state *bs, enum ui_action act)
{
	struct bpfstats_task t[TASKS_VIEW_MAX];
	size_t n;

	if (ui_rowsel_moves(act)) {
		n = offcpu_tasks(ui, app_bpf(ui->app), t, OFF_TASKS_MAX);
		if (n > OFF_TASKS_MAX)
			n = OFF_TASKS_MAX;
		offcpu_select(bs, t, n, ui_rowsel_move(bs->tsel, (long)n + 1,
						       bs->task_rows > 1 ? bs->task_rows : 1, act));
		return UI_HANDLED | UI_REDRAW;
	}
	switch (act) {
	case ACT_NEXT_SIBLING:
		if (bs->ssel + 1 < (int)bs->off.n)
			bs->ssel++;
		return UI_HANDLED | UI_REDRAW;
	case ACT_PREV_SIBLING:
		if (bs->ssel > 0)
			bs->ssel--;
		return UI_HANDLED | UI_REDRAW;
	case ACT_ENTER:
	case ACT_STACK_ICICLE:
		return offcpu_open(ui, bs, true);
	case ACT_STACK_CALLERS:
		return offcpu_open(ui, bs, false);
	default:
		return -1;
	}
}

static void bpf_draw(struct ui *ui, struct pane *p, int y, int h, int w)
{
	struct bpfstats *b = app_bpf(ui->app);
	struct bpf_state *bs = p->priv;
	struct bpfstats_status st;
	struct bpfstats_hist hist;
	struct bpfstats_syscall sc[1];
	struct richstr rs;
	char win[32], title[160], b1[32];
	int row, blk, lh, rh, spark_h, wide;
	unsigned int ticks;
	bool sc_on;

	if (!b && offcpu_alone(ui)) {
		/* the off-CPU view alone, under what is off */
		richstr_clear(&rs);
		richstr_add(&rs, ROLE_WARN, app_bpf_why(ui->app)[0] ? app_bpf_why(ui->app) :
			    "BPF statistics: not started");
		richstr_add(&rs, ROLE_DIM, "; off-CPU stacks below");
		ui_draw_rs(&ui->screen, y, 0, &rs, w);
		offcpu_draw(ui, bs, NULL, y, y + 1, h - 1, w);
		return;
	}
	if (!b) {
		char plan[512];

		bs->outl_y = -1;
		snprintf(plan, sizeof(plan), "BPF statistics are off: %s. Everything else in "
			 "ktop works without them.",
			 app_bpf_why(ui->app)[0] ? app_bpf_why(ui->app) : "not started");
		ui_draw_unavailable(ui, y, h, w, "BPF statistics", bpf_features,
				    (int)(sizeof(bpf_features) / sizeof(bpf_features[0])), plan);
		return;
	}
	bpfstats_get_status(b, &st);
	bpf_pull_outliers(b, bs);
	if (bs->cpu >= (int)st.ncpus)
		bs->cpu = -1;
	ticks = bs->since_start ? 0 : recent_ticks(&st);
	window_name(bs, &st, win, sizeof(win));

	richstr_clear(&rs);
	if (!(app_flags(ui->app) & SOURCE_KERNEL)) {
		/* a stream's: the far side's poller, its polls as they arrive */
		richstr_addf(&rs, ROLE_DEFAULT, "BPF %s of %s, %u CPUs, every %.1f s, %llu polls "
			     "received", st.mode ? st.mode : "?", ui->app->remote ?
			     remote_dest(ui->app->remote) : "the stream's sender", st.ncpus,
			     st.interval, (unsigned long long)st.ticks);
	} else {
		richstr_addf(&rs, ROLE_DEFAULT, "BPF %s, %u CPUs, every %.1f s, %llu polls "
			     "(last %s)", st.mode ? st.mode : "?", st.ncpus, st.interval,
			     (unsigned long long)st.ticks, ui_fmt_dur(b1, sizeof(b1), st.poll_ns));
	}
	richstr_addf(&rs, ROLE_DIM, ", %llu tasks tracked", (unsigned long long)st.tasks);
	if (st.tasks_untracked)
		richstr_addf(&rs, ROLE_WARN, ", %llu untracked (map full)",
			     (unsigned long long)st.tasks_untracked);
	if (!st.running && (app_flags(ui->app) & SOURCE_KERNEL))
		richstr_add(&rs, ROLE_WARN, "  poller stopped");
	richstr_add(&rs, ROLE_DIM, bs->offcpu ? "  [o: histograms and outliers]" :
		    "  [Left/Right: CPU, v: window, o: off-CPU tasks and stacks]");
	richstr_fit_words(&rs, w);
	ui_draw_rs(&ui->screen, y, 0, &rs, w);
	row = 1;
	if (ui_view(ui)) {
		char un[256];

		/* BPF figures are not events: only task and CPU clauses apply, and only here */
		richstr_clear(&rs);
		richstr_add(&rs, ROLE_WARN, "View: top tasks by their task clauses, per-CPU rows by "
			    "their CPU clauses; histograms and outliers are of every task");
		if (*viewfilter_describe_events(ui_view(ui), un, sizeof(un)))
			richstr_addf(&rs, ROLE_WARN, "; not applicable here: %s", un);
		ui_draw_rs(&ui->screen, y + row++, 0, &rs, w);
	}
	if (bs->offcpu) {
		offcpu_draw(ui, bs, b, y, y + row, h - row, w);
		return;
	}

	/* the histograms get what the per-CPU rows, the top tasks and 5 outliers leave */
	spark_h = (int)st.ncpus + 2;
	blk = h - row - (spark_h + 1) - (TASKS_SHOWN + 3) - 7;
	if (blk > 22)
		blk = 22;
	wide = w >= 2 * COL_W + 2;
	if (blk >= 6) {
		int ly = y + row, lw = wide ? COL_W : w;

		if (bs->cpu < 0)
			snprintf(title, sizeof(title), "Run-queue latency, all CPUs, %s", win);
		else
			snprintf(title, sizeof(title), "Run-queue latency, CPU %d, %s", bs->cpu,
				 win);
		memset(&hist, 0, sizeof(hist));
		bpfstats_runq_hist(b, bs->cpu, ticks, &hist);
		sc_on = st.syscalls && bpfstats_syscalls(b, bs->cpu, ticks ? 1 : 0, sc, 1) > 0;
		/* one above the other: the syscall histogram, or the line saying it is off */
		lh = bpf_draw_hist(&ui->screen, ly, 0, wide ? blk : sc_on ? blk / 2 : blk - 1, lw,
				   title, &hist);
		if (sc_on) {
			/* the busiest syscall over the window: funclatency's view of it */
			snprintf(title, sizeof(title), "Syscall latency: %s, %s", sc[0].name,
				 ticks ? "last poll" : "since start");
			if (wide)
				rh = bpf_draw_hist(&ui->screen, ly, COL_W + 2, blk,
						   w - COL_W - 2, title, &sc[0].h);
			else
				rh = bpf_draw_hist(&ui->screen, ly + lh, 0, blk - lh, w, title,
						   &sc[0].h);
		} else if (!st.syscalls) {
			static const char off[] = "Syscall latency: off (--bpf-syscalls loads it; "
						  "every syscall pays for it)";

			if (wide)
				ui_draw_text(&ui->screen, ly, COL_W + 2, ROLE_DIM, off,
					     w - COL_W - 2);
			else
				ui_draw_text(&ui->screen, ly + lh, 0, ROLE_DIM, off, w);
			rh = 1;
		} else {
			rh = 0;
		}
		row += wide ? (lh > rh ? lh : rh) : lh + rh;
		row++;
		/* top tasks side by side when they fit, else one table */
		if (w >= 2 * TASK_W + 2) {
			int a = draw_tasks(ui, b, y + row, 0, TASKS_SHOWN + 2, TASK_W,
					   BPFSTATS_BY_OFFCPU);
			int c = draw_tasks(ui, b, y + row, TASK_W + 2, TASKS_SHOWN + 2,
					   w - TASK_W - 2, BPFSTATS_BY_RUNQ);

			row += (a > c ? a : c) + 1;
		} else if (h - row - spark_h > 12) {
			row += draw_tasks(ui, b, y + row, 0, TASKS_SHOWN + 2, w,
					  BPFSTATS_BY_OFFCPU) + 1;
		}
	}
	if (h - row > spark_h + 2)
		row += draw_sparks(ui, b, bs, &st, y + row, spark_h, w) + 1;
	draw_outliers(ui, bs, &st, y, y + row, h - row, w);
}

/*
 * The trace's sched_switch that an outlier stamps: the BPF program and the
 * ring buffer stamp the same switch apart (a few microseconds, more on a busy
 * machine), so the nearest switch to its task on its CPU within 1 ms.
 * Return: its time stamp, 0 when the store holds none.
 */
static uint64_t outlier_switch(struct ui *ui, const struct bpfstats_outlier *o)
{
	uint64_t t0 = o->ts > 1000000 ? o->ts - 1000000 : 0, best = 0, bestd = UINT64_MAX;
	struct store_iter *it = store_iter_new(ui->st, t0, o->ts + 1000000, NULL);
	struct ktop_event ev;
	uint64_t seq;

	if (!it)
		return 0;
	while (store_iter_next(it, &ev, &seq)) {
		uint64_t d = ev.ts > o->ts ? ev.ts - o->ts : o->ts - ev.ts;

		if (ev.type != KTOP_T_SCHED_SWITCH || ev.cpu != o->cpu || ev.nargs < 6 ||
		    ev.args[5] != o->pid)
			continue;
		if (d < bestd) {
			bestd = d;
			best = ev.ts;
		}
	}
	store_iter_free(it);
	return best;
}

/*
 * Enter: the event list at the selected outlier, its CPU's events up to the
 * sched_switch that ended the wait (the last row: what led to it above).
 */
static int bpf_enter(struct ui *ui, struct bpf_state *bs)
{
	const struct bpfstats_outlier *o;
	uint64_t ts;

	if (bs->sel < 0 || bs->sel >= bs->n) {
		ui_message(ui, "no outlier selected");
		return UI_HANDLED | UI_REDRAW;
	}
	o = &bs->outl[bs->n - 1 - bs->sel];
	ts = outlier_switch(ui, o);
	if (ts)
		return ui_show_events(ui, &(struct ui_events_req){
			.one_cpu = true, .cpu = o->cpu, .t0 = ts > o->latency_ns ? ts - o->latency_ns : 0,
			.t1 = ts,
		}) | UI_HANDLED | UI_REDRAW;
	/*
	 * No such switch held (not traced, evicted): the page ends 100 us after
	 * the stamp, so that its bottom rows hold that time.
	 */
	ui_show_events(ui, &(struct ui_events_req){ .at = o->ts + 100000 });
	ui_message(ui, "no sched_switch to %u on CPU %u held within 1 ms of %.6f: "
		   "the event list at that time", o->pid, o->cpu, (double)o->ts / 1e9);
	return UI_HANDLED | UI_REDRAW;
}

static int bpf_key(struct ui *ui, struct pane *p, enum ui_action act)
{
	struct bpf_state *bs = p->priv;
	struct bpfstats_status st;
	int ncpus, ret;

	if (offcpu_alone(ui)) {
		/* the off-CPU view is all there is: o has nothing to switch to */
		ret = act == ACT_STACK_SOURCE ? -1 : offcpu_key(ui, bs, act);
		return ret < 0 ? 0 : ret;
	}
	if (!app_bpf(ui->app))
		return 0;
	if (act == ACT_STACK_SOURCE) {
		bs->offcpu = !bs->offcpu;
		return UI_HANDLED | UI_REDRAW;
	}
	if (bs->offcpu && (ret = offcpu_key(ui, bs, act)) >= 0)
		return ret;
	if (ui_rowsel_moves(act)) {
		bs->sel = (int)ui_rowsel_move(bs->sel, bs->n, bs->outl_rows > 1 ? bs->outl_rows : 1,
					      act);
		return UI_HANDLED | UI_REDRAW;
	}
	switch (act) {
	case ACT_LEFT:
	case ACT_RIGHT:
		bpfstats_get_status(app_bpf(ui->app), &st);
		ncpus = (int)st.ncpus;
		if (act == ACT_LEFT)
			bs->cpu = bs->cpu < 0 ? ncpus - 1 : bs->cpu - 1;
		else
			bs->cpu = bs->cpu + 1 >= ncpus ? -1 : bs->cpu + 1;
		break;
	case ACT_VIEW:
		bs->since_start = !bs->since_start;
		break;
	case ACT_ENTER:
		return bpf_enter(ui, bs);
	default:
		return 0;
	}
	return UI_HANDLED | UI_REDRAW;
}

static int bpf_click(struct ui *ui, struct pane *p, int row, int col)
{
	struct bpf_state *bs = p->priv;
	long r = ui_rowsel_click(bs->top, row, bs->outl_y, bs->n);

	if ((bs->offcpu || offcpu_alone(ui)) && bs->task_y >= 0 && row >= bs->task_y &&
	    row < bs->task_y + bs->task_rows) {
		struct bpfstats_task t[TASKS_VIEW_MAX];
		size_t n = offcpu_tasks(ui, app_bpf(ui->app), t, OFF_TASKS_MAX);

		if (n > OFF_TASKS_MAX)
			n = OFF_TASKS_MAX;
		r = ui_rowsel_click(bs->ttop, row, bs->task_y, (long)n + 1);
		if (r >= 0)
			offcpu_select(bs, t, n, r);
		return UI_HANDLED | UI_REDRAW;
	}
	if (!bs->offcpu && bs->outl_y >= 0 && r >= 0 && row < bs->outl_y + bs->outl_rows)
		bs->sel = (int)r;
	return UI_HANDLED | UI_REDRAW;
}

static const char *bpf_footer(struct ui *ui, struct pane *p)
{
	const struct bpf_state *bs = p->priv;

	if (!app_bpf(ui->app))
		return offcpu_alone(ui) ? "Up/Down task ]/[ stack Enter/i icicle y callers" : "";
	return bs->offcpu ? "Up/Down task ]/[ stack Enter/i icicle y callers o outliers" :
	       "Left/Right CPU v window Enter outlier's events o off-CPU";
}

const struct pane_ops pane_bpf_ops = {
	.name		= "bpf",
	.label		= "BPF",
	.priv_size	= sizeof(struct bpf_state),
	.init		= bpf_init,
	.destroy	= bpf_destroy,
	.draw		= bpf_draw,
	.key		= bpf_key,
	.click		= bpf_click,
	.footer		= bpf_footer,
};
