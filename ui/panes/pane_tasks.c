// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tasks pane ("tasks"), htop's first screen for what the store holds: one
 * row per task (thread) from src/view/tasks.h: events and their rate, syscalls/s,
 * context switches/s, run-queue wait and off-CPU time (from ktop's BPF
 * program where it runs, else from the sched events held), the CPU it was
 * last seen on, its state, when it was last seen. Sortable (F6, >, <, I
 * inverts), searchable (F3, /, n, N), a tree by parent (F5, t), ktop's own
 * threads marked [ktop] and hidden with H. Enter narrows every pane to the
 * selected task (a view filter clause, as z; Z with its children and
 * threads; # its CPU).
 *
 * Under a view filter the counts are those of the events it matches. The
 * model reads the store on the UI thread, up to where every CPU has
 * published, in time slices within a budget per frame (as the graph pane);
 * only while the pane is shown.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/app.h"
#include "lib/clock.h"
#include "rowsel.h"
#include "store/store.h"
#include "view/tasks.h"
#include "tracer_feed.h"
#include "tasks_rows.h"
#include "ui-local.h"
#include "pane_tasks-local.h"

#define TASKS_LAG_NS	(300ull * 1000 * 1000)	/* a live feed ends this far behind now */
#define TASKS_FEED_NS	(20ull * 1000 * 1000)	/* feeding a frame, at most about */
#define TASKS_MAX_ROWS	65536

static int tasks_init(struct ui *ui, struct pane *p)
{
	struct tasks_state *ts = p->priv;

	ts->q.sort = TASKS_BY_EVENTS;
	ts->slice = 10000000;
	ts->sel_pid = -1;
	return 0;
}

static void tasks_destroy(struct pane *p)
{
	struct tasks_state *ts = p->priv;

	tasks_free(ts->tm);
	free(ts->rows);
}

static int tasks_feed_slice(struct ui *ui, void *ctx, uint64_t t0, uint64_t t1)
{
	struct tasks_state *ts = ctx;

	(void)ui;
	(void)t0;	/* the model reads on from where it stopped */
	return tasks_update(ts->tm, t1) < 0 ? -1 : 0;
}

/* Read what was published since the last frame, within the budget. */
static void tasks_feed(struct ui *ui, struct tasks_state *ts)
{
	uint64_t t1, t_in = clock_thread_ns(), now = clock_mono_ns();

	if (!ts->tm) {
		ts->tm = tasks_new(ui->st, ui->app->rel);
		if (!ts->tm)
			return;
		/* live: ktop's threads, BPF's per-task figures */
		if (app_flags(ui->app) & SOURCE_KERNEL) {
			tasks_set_self(ts->tm, "/proc/self/task");
			tasks_set_bpf(ts->tm, app_bpf(ui->app));
		}
		ts->gen = ~0ull;
	}
	if (ts->gen != ui_view_gen(ui)) {
		tasks_set_view(ts->tm, ui_view(ui));
		ts->gen = ui_view_gen(ui);
		ts->fed = 0;
	}
	if (ui->paused && ts->fed)
		return;
	t1 = ui_feed_window_end(ui, TASKS_LAG_NS);
	ui_feed_slices(ui, &ts->fed, t1, &ts->slice, t_in, TASKS_FEED_NS, tasks_feed_slice, ts);
	/*
	 * Rates over the trace time read in the last second; a recording's
	 * stay those of what was read (they fell to 0 a second after it was)
	 */
	if (now - ts->tick_ns >= 1000000000ull && ts->fed > 1 &&
	    (!ui_rec_span(ui) || ts->fed != ts->tick_fed)) {
		tasks_tick(ts->tm, ts->fed - 1);
		ts->tick_ns = now;
		ts->tick_fed = ts->fed;
	}
}

/* The rows of the query, the selection kept on its task. */
static void tasks_layout(struct ui *ui, struct tasks_state *ts)
{
	if (!ts->rows) {
		ts->rows = calloc(TASKS_MAX_ROWS, sizeof(*ts->rows));
		if (!ts->rows)
			return;
	}
	ts->total = ts->tm ? tasks_rows(ts->tm, &ts->q, ts->rows, TASKS_MAX_ROWS) : 0;
	ts->n = ts->total < TASKS_MAX_ROWS ? ts->total : TASKS_MAX_ROWS;
	if (ui_view(ui) && !ts->q.tree) {
		/* the list under a view: the tasks with events it matches */
		size_t k = 0;

		for (size_t i = 0; i < ts->n; i++)
			if (ts->rows[i].events)
				ts->rows[k++] = ts->rows[i];
		ts->n = ts->total = k;
	}
	for (size_t i = 0; ts->sel_pid >= 0 && i < ts->n; i++) {
		if (ts->rows[i].pid == ts->sel_pid) {
			ts->sel = (long)i;
			break;
		}
	}
	ts->sel = ui_rowsel_clamp(ts->sel, (long)ts->n);
	ts->sel_pid = ts->n ? ts->rows[ts->sel].pid : -1;
}

static void tasks_title(struct ui *ui, const struct tasks_state *ts, struct richstr *rs)
{
	char b[32];

	richstr_clear(rs);
	richstr_addf(rs, ROLE_DEFAULT, "Tasks: %s", ui_fmt_count(b, sizeof(b), ts->total));
	richstr_addf(rs, ROLE_DIM, "  by %s%s%s", tasks_sort_name(ts->q.sort),
		     ts->q.reverse ? ", inverted" : "", ts->q.tree ? ", tree by parent" : "");
	if (ts->q.hide_self)
		richstr_add(rs, ROLE_DIM, ", ktop's threads hidden (H shows)");
	if (ui_view(ui))
		richstr_add(rs, ROLE_WARN, "  counting the events in the view");
	if (ts->hscroll)
		richstr_addf(rs, ROLE_WARN, "  %d column%s scrolled (h/l)", ts->hscroll,
			     ts->hscroll > 1 ? "s" : "");
	else if (ts->width < tasks_fixed_width() + 8)
		richstr_add(rs, ROLE_WARN, "  COMMAND: l or Right");
	richstr_add(rs, ROLE_DIM, app_bpf(ui->app) ? "  runq/off-CPU: BPF where tracked" :
		    "  runq/off-CPU: from the sched events held");
}

static void tasks_draw(struct ui *ui, struct pane *p, int y, int h, int w)
{
	struct tasks_state *ts = p->priv;
	int rows = h - 2 > 0 ? h - 2 : 1;
	struct richstr rs;

	tasks_feed(ui, ts);
	tasks_layout(ui, ts);
	ts->width = w;
	tasks_title(ui, ts, &rs);
	richstr_fit_words(&rs, w);
	ui_draw_rs(&ui->screen, y, 0, &rs, w);
	tasks_fmt_header(&rs, ts->q.sort);
	richstr_cut(&rs, TASKS_PID_W, tasks_hscroll_chars(ts->hscroll));
	/* whole columns only: the next comes with l or Right */
	richstr_fit_words(&rs, w);
	richstr_pad(&rs, ROLE_COLHDR, w);
	ui_draw_rs(&ui->screen, y + 1, 0, &rs, w);
	if (!ts->n) {
		ui_draw_text(&ui->screen, y + 2, 2, ROLE_DIM, ui_view(ui) ?
			     "no task in the events the view matches" : "no task seen yet", w - 2);
		return;
	}
	ts->top = ui_rowsel_top(ts->sel, ts->top, rows);
	for (int r = 0; r < rows && ts->top + r < (long)ts->n; r++) {
		tasks_fmt_row(&rs, &ts->rows[ts->top + r], store_task_states(ui->st), ts->q.tree);
		richstr_cut(&rs, TASKS_PID_W, tasks_hscroll_chars(ts->hscroll));
		richstr_fit_words(&rs, w);
		if (ts->top + r == ts->sel)
			ui_rowsel_mark(&rs, w);
		ui_draw_rs(&ui->screen, y + 2 + r, 0, &rs, w);
	}
}

/* Does row @r match a search for @needle: its comm contains it, or its pid starts with it? */
static bool row_matches(const struct tasks_row *r, const char *needle)
{
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", r->pid);
	return (r->comm && strstr(r->comm, needle)) || !strncmp(pid, needle, strlen(needle));
}

static int tasks_search(struct ui *ui, struct pane *p, const char *needle, int dir)
{
	struct tasks_state *ts = p->priv;

	tasks_feed(ui, ts);
	tasks_layout(ui, ts);
	/* n goes down the list (dir -1, as older in the event list), N up; around the end */
	for (long k = 1; k <= (long)ts->n; k++) {
		long i = (ts->sel + (dir < 0 ? k : -k) + 2 * (long)ts->n) % (long)ts->n;

		if (row_matches(&ts->rows[i], needle)) {
			ts->sel = i;
			ts->sel_pid = ts->rows[i].pid;
			return UI_HANDLED | UI_REDRAW;
		}
	}
	ui_message(ui, "\"%s\": no task matches (a name containing it, a pid starting with it)",
		   needle);
	return UI_HANDLED | UI_REDRAW;
}

/* Enter, z, Z, #: narrow every pane to the selected task, or to its CPU. */
static int tasks_narrow(struct ui *ui, struct tasks_state *ts, enum ui_action act)
{
	const struct tasks_row *r;

	if (!ts->n || ts->sel < 0 || ts->sel >= (long)ts->n)
		return 0;
	r = &ts->rows[ts->sel];
	if (act == ACT_VIEW_CPU && r->last_cpu < 0)
		return 0;
	return ui_request(ui, &(struct ui_req){
		.kind = UI_REQ_NARROW,
		.view = {
			.what = act == ACT_VIEW_CPU ? UI_VIEW_CPU : UI_VIEW_TASK,
			.pid = r->pid, .kids = act == ACT_VIEW_TASK_KIDS,
			.cpu = (unsigned int)(r->last_cpu >= 0 ? r->last_cpu : 0),
		},
	});
}

static int tasks_key(struct ui *ui, struct pane *p, enum ui_action act)
{
	struct tasks_state *ts = p->priv;
	long page = p->h > 3 ? p->h - 3 : 1;

	/* the rows as drawn (a key may come before the first draw) */
	tasks_feed(ui, ts);
	tasks_layout(ui, ts);
	if (ui_rowsel_moves(act)) {
		ts->sel = ui_rowsel_move(ts->sel, (long)ts->n, page, act);
		ts->sel_pid = ts->n ? ts->rows[ts->sel].pid : -1;
		return UI_HANDLED | UI_REDRAW;
	}
	switch (act) {
	case ACT_ENTER:
	case ACT_VIEW_TASK:
	case ACT_VIEW_TASK_KIDS:
	case ACT_VIEW_CPU:
		return tasks_narrow(ui, ts, act);
	case ACT_PANE_SORT:
	case ACT_SORT_PREV:
		ts->q.sort = (enum tasks_sort)((ts->q.sort + (act == ACT_PANE_SORT ? 1 :
							      TASKS_SORT_NR - 1)) % TASKS_SORT_NR);
		ui_message(ui, "tasks sorted by %s", tasks_sort_name(ts->q.sort));
		break;
	case ACT_SORT_INVERT:
		ts->q.reverse = !ts->q.reverse;
		break;
	case ACT_TREE:
		ts->q.tree = !ts->q.tree;
		ui_message(ui, ts->q.tree ? "tasks: a tree by parent (F5: a list)" : "tasks: a list");
		break;
	case ACT_LEFT:
	case ACT_RIGHT:
		/* at 80 columns COMMAND starts past the edge: the columns after PID move */
		if (act == ACT_LEFT && ts->hscroll > 0)
			ts->hscroll--;
		else if (act == ACT_RIGHT && ts->hscroll < TASKS_HSCROLL_MAX)
			ts->hscroll++;
		break;
	case ACT_HIDE_SELF:
		ts->q.hide_self = !ts->q.hide_self;
		ui_message(ui, ts->q.hide_self ? "tasks: ktop's own threads hidden" :
			   "tasks: ktop's own threads shown, marked [ktop]");
		break;
	default:
		return 0;
	}
	return UI_HANDLED | UI_REDRAW;
}

static int tasks_click(struct ui *ui, struct pane *p, int row, int col)
{
	struct tasks_state *ts = p->priv;
	long i = ui_rowsel_click(ts->top, row, 2, (long)ts->n);

	if (row == 1) {
		/* a column header: sort by it (past PID, where the header is scrolled to) */
		ts->q.sort = tasks_col_sort(col >= TASKS_PID_W ?
					    col + tasks_hscroll_chars(ts->hscroll) : col);
	} else if (i >= 0) {
		ts->sel = i;
		ts->sel_pid = ts->rows[i].pid;
	}
	return UI_HANDLED | UI_REDRAW;
}

const struct pane_ops pane_tasks_ops = {
	.name		= "tasks",
	.label		= "Tasks",
	.priv_size	= sizeof(struct tasks_state),
	.init		= tasks_init,
	.destroy	= tasks_destroy,
	.draw		= tasks_draw,
	.key		= tasks_key,
	.click		= tasks_click,
	.keys		= "Enter narrow F6 sort I invert F5 tree H hide ktop / search h/l scroll",
	.search		= tasks_search,
};
