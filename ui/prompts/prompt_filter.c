// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The filter prompt (F4, f): a thin layer over src/funcfilter/funcfilter.h (the language,
 * the as-you-type preview, Tab completion) and src/funcfilter/ftrace_filter.h (apply to
 * the kernel with error_log and read-back, undo/redo, history). Tracing goes
 * on while it is open. It shows, as the user types, how many functions of
 * available_filter_functions the line selects and the first of them, or the
 * parse error (pcre2's message) with a caret at its offset; Enter applies and
 * shows the kernel's answer.
 *
 * Where the kernel refuses function filtering (EPERM, as on lockdown kernels)
 * the prompt says so and applies nothing to set_ftrace_filter; a recorded
 * function list named by $KTOP_FILTER_FUNCS (plain or .gz) still gives a
 * preview, labelled as not this kernel's.
 *
 * The prompt edits, previews and reports; the filter itself is the app's
 * (app_filter, app_filter_apply, app_filter_undo in src/app/app.h), and each
 * change is marked in the trace with app_mark.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curses.h>
#include "app/app.h"
#include "funcfilter/funcfilter.h"
#include "funcfilter/ftrace_filter.h"
#include "lib/tuning.h"
#include "ui-local.h"

#define PF_ROWS		9	/* the overlay's height */

struct prompt_filter {
	bool			ready;		/* set up (on first use) */
	const struct ftrace_filter *ff;		/* the app's; NULL: not live, or refused */
	const char		*why;		/* why not, or why functions cannot be filtered */
	/* a recorded list, when the kernel's is refused */
	struct funcfilter_funcs	*offline;
	char			offline_name[128];
	struct funcfilter_history *hist;
	char			hist_why[256];
	/* set_ftrace_filter now, for '+' and '!' lines */
	struct funcfilter_set	current;
	bool			have_current;
	long			hist_idx;	/* -1: the line being edited */
	char			saved[FUNCFILTER_LINE_MAX + 1];
	bool			dirty;		/* preview out of date */
	int			pv_ret;
	struct funcfilter_preview	pv;
	bool			show_comp;
	struct funcfilter_completion comp;
	bool			have_res;
	struct ftrace_filter_result res;
};

static const struct funcfilter_funcs *pf_funcs(const struct prompt_filter *pf)
{
	const struct funcfilter_funcs *f = pf->ff ? ftrace_filter_funcs(pf->ff) : NULL;

	return f ? f : pf->offline;
}

/* Load a recorded available_filter_functions, plain or gzip'd. Return: NULL on failure. */
static struct funcfilter_funcs *pf_load_offline(const char *path)
{
	struct funcfilter_funcs *ff;

	return funcfilter_funcs_load(&ff, path) ? NULL : ff;
}

static void pf_refresh_current(struct ui *ui, struct prompt_filter *pf)
{
	if (pf->have_current)
		funcfilter_set_destroy(&pf->current);
	pf->have_current = !app_filter_current(ui->app, &pf->current);
}

/* Set up on first use: the app's filter, the offline list, the history. */
static struct prompt_filter *pf_get(struct ui *ui, struct prompt *pr)
{
	struct prompt_filter *pf = pr->priv;
	const char *recorded = tuning()->filter_funcs;
	int ret;

	if (pf->ready)
		return pf;
	pf->ready = true;
	pf->hist_idx = -1;
	pf->dirty = true;
	pf->ff = app_filter(ui->app, &pf->why);
	if (!(pf->ff && ftrace_filter_funcs(pf->ff)) && recorded) {
		pf->offline = pf_load_offline(recorded);
		snprintf(pf->offline_name, sizeof(pf->offline_name), "%s", recorded);
	}
	ret = funcfilter_history_open(&pf->hist, NULL);
	if (ret) {
		pf->hist = NULL;
		snprintf(pf->hist_why, sizeof(pf->hist_why), "history: %s", strerror(-ret));
	}
	pf_refresh_current(ui, pf);
	return pf;
}

static void pf_destroy(struct prompt *pr)
{
	struct prompt_filter *pf = pr->priv;

	if (pf->have_current)
		funcfilter_set_destroy(&pf->current);
	funcfilter_funcs_free(pf->offline);
	funcfilter_history_free(pf->hist);
}

static int pf_open(struct ui *ui, struct prompt *pr)
{
	struct prompt_filter *pf = pf_get(ui, pr);

	ui_line_init(&pr->line, FUNCFILTER_LINE_MAX);
	pf->hist_idx = -1;
	pf->show_comp = false;
	pf->have_res = false;
	pf->dirty = true;
	pf_refresh_current(ui, pf);
	return UI_HANDLED | UI_REDRAW;
}

static int pf_complete(struct ui *ui, struct prompt *pr)
{
	struct prompt_filter *pf = pr->priv;
	const struct funcfilter_funcs *funcs = pf_funcs(pf);
	struct funcfilter_completion *c = &pf->comp;

	pf->show_comp = false;
	if (!funcs || !funcfilter_complete(funcs, pr->line.text, pr->line.cursor, c))
		return UI_REDRAW;
	if (ui_line_replace(&pr->line, c->start, c->prefix)) {
		pf->show_comp = c->ncand > 1;
		pf->dirty = true;
	}
	return UI_REDRAW;
}

static void pf_history(struct prompt_filter *pf, struct ui_line *l, int dir)
{
	long n = pf->hist ? (long)funcfilter_history_count(pf->hist) : 0, i = pf->hist_idx + dir;
	const char *s;

	if (i < -1 || i >= n)
		return;
	if (pf->hist_idx == -1)
		snprintf(pf->saved, sizeof(pf->saved), "%s", l->text);
	pf->hist_idx = i;
	s = i < 0 ? pf->saved : funcfilter_history_get(pf->hist, (size_t)i);
	ui_line_set(l, s ? s : "");
	pf->dirty = true;
}

/* The status-bar line for a result: the message, the kernel's word, the count. */
static void pf_result_message(struct ui *ui, const struct prompt_filter *pf)
{
	const struct ftrace_filter_result *r = &pf->res;
	char cnt[64] = "";

	if (!r->err && !r->all_functions && pf->ff && ftrace_filter_funcs(pf->ff))
		snprintf(cnt, sizeof(cnt), " [set_ftrace_filter: %zu functions]",
			 r->count[FUNCFILTER_T_FILTER]);
	ui_message(ui, "%s%s%s%s", r->msg, cnt, r->kernel_error[0] ? "; error_log: " : "",
		   r->kernel_error);
}

/*
 * After the filter changed (or a change was refused): mark the change in the
 * trace itself, so that it stands in time order between the events before it
 * and those after it, and read the filter back.
 */
static void pf_changed(struct ui *ui, struct prompt_filter *pf)
{
	const struct ftrace_filter_result *r = &pf->res;
	char text[300];
	int ret;

	if (r->changed) {
		snprintf(text, sizeof(text), "ktop: %.290s", r->marker[0] ? r->marker : r->msg);
		ret = app_mark(ui->app, text);
		if (ret && ret != -ENODEV)
			ui_message(ui, "filter changed; trace_marker not written: %s",
				   strerror(-ret));
	}
	pf->have_res = true;
	pf_refresh_current(ui, pf);
	pf->dirty = true;
}

/* Enter: apply the line; the prompt closes when the kernel took it. */
static int pf_submit(struct ui *ui, struct prompt *pr, const char *line)
{
	struct prompt_filter *pf = pr->priv;
	char why[200];

	if (pr->line.overflow) {
		ui_message(ui, "filter: the line is longer than %d bytes; nothing applied",
			   FUNCFILTER_LINE_MAX);
		return UI_REDRAW;
	}
	if (!*line)
		return UI_REDRAW;
	if (pf->hist && funcfilter_history_add(pf->hist, line, why, sizeof(why)) < 0 &&
	    !pf->hist_why[0])	/* the first reason stays in the footer: said once */
		snprintf(pf->hist_why, sizeof(pf->hist_why), "history not saved: %s", why);
	pf->hist_idx = -1;
	if (!pf->ff) {
		memset(&pf->res, 0, sizeof(pf->res));
		pf->res.err = -EPERM;
		snprintf(pf->res.msg, sizeof(pf->res.msg), "nothing applied: %s", pf->why);
		pf->have_res = true;
		return UI_REDRAW;
	}
	app_filter_apply(ui->app, line, &pf->res);
	pf_changed(ui, pf);
	if (!pf->res.err) {
		/* applied: close, and say what the kernel now has */
		ui_prompt_close(ui);
		pf_result_message(ui, pf);
	}
	return UI_REDRAW;
}

static int pf_undo(struct ui *ui, struct prompt_filter *pf, bool redo)
{
	int ret;

	if (!pf->ff) {
		ui_message(ui, "filter %s: %s", redo ? "redo" : "undo", pf->why);
		return UI_REDRAW;
	}
	ret = app_filter_undo(ui->app, redo, &pf->res);
	if (ret == -ENOENT) {
		ui_message(ui, "no filter change to %s", redo ? "redo" : "undo");
		return UI_REDRAW;
	}
	pf_changed(ui, pf);
	pf_result_message(ui, pf);
	return UI_REDRAW;
}

/* Add function @name to set_ftrace_filter, or remove it when it is there. */
static int pf_toggle(struct ui *ui, struct prompt_filter *pf, const char *name)
{
	const struct funcfilter_funcs *funcs = pf->ff ? ftrace_filter_funcs(pf->ff) : NULL;
	char line[300];
	size_t first, n;
	bool in = false;

	if (!funcs) {
		ui_message(ui, "filter: %s; %s not added", pf->why[0] ? pf->why :
			   "no function list", name);
		return UI_HANDLED | UI_REDRAW;
	}
	pf_refresh_current(ui, pf);
	n = funcfilter_funcs_find_line(funcs, name, strlen(name), &first);
	for (size_t i = first; n && i != SIZE_MAX; i = funcfilter_funcs_next_same(funcs, i))
		if (pf->have_current && funcfilter_set_test(&pf->current, i))
			in = true;
	snprintf(line, sizeof(line), in ? "!%s" : "+ %s", name);
	app_filter_apply(ui->app, line, &pf->res);
	pf_changed(ui, pf);
	pf_result_message(ui, pf);
	return UI_HANDLED | UI_REDRAW;
}

/* u and U anywhere, a in the top view: the filter changes without the prompt open. */
static int pf_request(struct ui *ui, struct prompt *pr, const struct ui_req *r)
{
	struct prompt_filter *pf = pf_get(ui, pr);

	switch (r->kind) {
	case UI_REQ_FILTER_TOGGLE:
		return pf_toggle(ui, pf, r->filter.func);
	case UI_REQ_FILTER_UNDO:
		return pf_undo(ui, pf, r->filter.redo) | UI_HANDLED;
	default:
		return 0;
	}
}

static int pf_key(struct ui *ui, struct prompt *pr, int ch)
{
	struct prompt_filter *pf = pr->priv;
	bool changed;
	int ret;

	if (ch != '\t')
		pf->show_comp = false;
	switch (ch) {
	case KEY_UP:
		pf_history(pf, &pr->line, 1);
		return UI_REDRAW;
	case KEY_DOWN:
		pf_history(pf, &pr->line, -1);
		return UI_REDRAW;
	case UI_CTRL('z'):
		return pf_undo(ui, pf, false);
	case UI_CTRL('y'):
		return pf_undo(ui, pf, true);
	}
	ret = ui_prompt_stay_key(ui, pr, ch, &changed);
	pf->dirty |= changed;
	return ret;
}

/* ---- drawing ------------------------------------------------------------------------- */

/* Row 0: what this prompt can do here. */
static void pf_fmt_status(struct richstr *rs, const struct prompt_filter *pf,
			  const struct funcfilter_funcs *funcs)
{
	char b[64];

	richstr_clear(rs);
	richstr_add(rs, ROLE_FKEY, " Filter ");
	if (pf->ff && ftrace_filter_funcs(pf->ff)) {
		richstr_addf(rs, ROLE_OK, " %s functions available to filter",
			     ui_fmt_count(b, sizeof(b), funcfilter_funcs_count(funcs)));
		richstr_addf(rs, ROLE_OVERLAY, "; set_ftrace_filter now: %s",
			     !pf->have_current ? "?" : funcfilter_set_count(&pf->current) ?
			     ui_fmt_count(b, sizeof(b), funcfilter_set_count(&pf->current)) :
			     "all functions");
		richstr_addf(rs, ROLE_DIM, "; undo %zu redo %zu", ftrace_filter_undo_depth(pf->ff),
			     ftrace_filter_redo_depth(pf->ff));
	} else {
		richstr_addf(rs, ROLE_WARN, " %s", pf->why && pf->why[0] ? pf->why :
			     "function filtering is unavailable");
		if (pf->ff)
			richstr_add(rs, ROLE_OVERLAY, "; pid and event filters still apply");
	}
}

/* Row 2: the preview, or the error with a caret at its offset (@x0: line byte 0's column). */
static void pf_fmt_preview(struct richstr *rs, const struct prompt_filter *pf,
			   const struct ui_line *l, const struct funcfilter_funcs *funcs, int x0,
			   int w)
{
	richstr_clear(rs);
	if (l->overflow) {
		richstr_addf(rs, ROLE_ERROR, "the line is longer than %d bytes: cut short, "
			     "nothing will be applied", FUNCFILTER_LINE_MAX);
	} else if (!l->len) {
		richstr_add(rs, ROLE_DIM, "type a glob (vfs_*), /regex/, !pattern, :mod:NAME, "
			    "-n / -g PATTERN, pid:N, comm:NAME or SYSTEM:EVENT: EXPR");
	} else if (!pf->pv.ok) {
		int off = pf->pv.err.offset;

		if (off >= 0 && x0 + off >= 0 && x0 + off < w - 4) {
			richstr_pad(rs, ROLE_OVERLAY, x0 + off);
			richstr_add(rs, ROLE_ERROR, "^ ");
		}
		richstr_add(rs, ROLE_ERROR, pf->pv.err.msg);
		if (off >= 0)
			richstr_addf(rs, ROLE_ERROR, " (at offset %d)", off);
	} else {
		if (pf->offline && funcs == pf->offline)
			richstr_add(rs, ROLE_WARN, "[recorded list] ");
		richstr_add(rs,
			    pf->pv.count || pf->pv.target == FUNCFILTER_T_NR ? ROLE_OK : ROLE_WARN,
			    pf->pv.text);
		if (!funcs && pf->pv.target != FUNCFILTER_T_NR)
			richstr_add(rs, ROLE_DIM, "  (syntax checked only: no function list)");
	}
}

/* Row 3: the first names, or the completion candidates. */
static void pf_fmt_names(struct richstr *rs, const struct prompt_filter *pf,
			 const struct ui_line *l, const struct funcfilter_funcs *funcs, int w)
{
	richstr_clear(rs);
	if (pf->show_comp) {
		richstr_addf(rs, ROLE_DIM, "%zu candidates: ", pf->comp.ncand);
		for (size_t i = 0; i < pf->comp.ncand && i < FUNCFILTER_COMPLETE_MAX &&
		     rs->len < w; i++)
			richstr_addf(rs, ROLE_OVERLAY, "%s ", pf->comp.cand[i]);
	} else if (l->len && pf->pv.ok && pf->pv.nnames) {
		if (pf->offline && funcs == pf->offline)
			richstr_addf(rs, ROLE_DIM, "[%s, not this kernel] ", pf->offline_name);
		for (size_t i = 0; i < pf->pv.nnames && rs->len < w; i++)
			richstr_addf(rs, ROLE_OVERLAY, "%s ", pf->pv.names[i]);
		if (pf->pv.count > pf->pv.nnames)
			richstr_add(rs, ROLE_DIM, "...");
	} else if (!funcs && !pf->offline_name[0]) {
		richstr_add(rs, ROLE_DIM, "no function list to preview against: this kernel "
			    "refuses available_filter_functions (KTOP_FILTER_FUNCS=FILE names a "
			    "recorded one)");
	} else if (!funcs) {
		richstr_addf(rs, ROLE_WARN, "could not read the function list %s",
			     pf->offline_name);
	}
}

/* Rows 4-6: the last apply, undo or redo: the kernel's answer. */
static void pf_draw_result(struct ui *ui, const struct prompt_filter *pf, int y, int w)
{
	const struct ftrace_filter_result *r = &pf->res;
	struct richstr rs;

	richstr_clear(&rs);
	richstr_add(&rs, r->err ? ROLE_ERROR : ROLE_OK, r->msg);
	if (r->apply_ms > 0)
		richstr_addf(&rs, ROLE_DIM, " (%.1f ms)", r->apply_ms);
	ui_overlay_row(&ui->screen, y, w, &rs);
	richstr_clear(&rs);
	if (r->kernel_error[0]) {
		richstr_add(&rs, ROLE_WARN, "error_log: ");
		richstr_add(&rs, ROLE_OVERLAY, r->kernel_error);
	} else if (!r->err || r->changed) {
		richstr_add(&rs, ROLE_DIM, "error_log: nothing new");
	}
	ui_overlay_row(&ui->screen, y + 1, w, &rs);
	richstr_clear(&rs);
	if ((!r->err || r->changed) && pf->ff && ftrace_filter_funcs(pf->ff)) {
		richstr_addf(&rs, ROLE_OVERLAY, "read back: set_ftrace_filter %s",
			     r->all_functions ? "empty (all functions)" : "");
		if (!r->all_functions)
			richstr_addf(&rs, ROLE_OVERLAY, "%zu functions: %s",
				     r->count[FUNCFILTER_T_FILTER], r->effective);
	}
	ui_overlay_row(&ui->screen, y + 2, w, &rs);
}

/* The last row: the keys. */
static void pf_fmt_keys(struct richstr *rs, const struct prompt_filter *pf)
{
	static const struct richstr_key keys[] = {
		{ "Enter", " apply " }, { "Tab", " complete " }, { "Up/Down", " history " },
		{ "^Z/^Y", " undo/redo " }, { "^U", " clear " }, { "Esc", " close" },
	};

	richstr_clear(rs);
	richstr_add_keys(rs, keys, sizeof(keys) / sizeof(keys[0]), ROLE_OVERLAY);
	if (pf->hist_why[0])
		richstr_addf(rs, ROLE_DIM, "  (%s)", pf->hist_why);
}

static void pf_draw(struct ui *ui, struct prompt *pr)
{
	struct prompt_filter *pf = pr->priv;
	const struct funcfilter_funcs *funcs = pf_funcs(pf);
	int h = PF_ROWS, w = ui->screen.cols, y, x0;
	struct richstr rs;

	if (pf->dirty) {
		pf->pv_ret = funcfilter_preview_line(funcs, pr->line.text,
						     pf->have_current ? &pf->current : NULL,
						     &pf->pv);
		pf->dirty = false;
	}
	y = ui_overlay_bottom(&ui->screen, &h, w);
	pf_fmt_status(&rs, pf, funcs);
	ui_overlay_row(&ui->screen, y, w, &rs);
	/* 1: the line */
	x0 = ui_overlay_line(&ui->screen, y + 1, w, &pr->line);
	pf_fmt_preview(&rs, pf, &pr->line, funcs, x0, w);
	ui_overlay_row(&ui->screen, y + 2, w, &rs);
	pf_fmt_names(&rs, pf, &pr->line, funcs, w);
	ui_overlay_row(&ui->screen, y + 3, w, &rs);
	if (pf->have_res)
		pf_draw_result(ui, pf, y + 4, w);
	pf_fmt_keys(&rs, pf);
	ui_overlay_row(&ui->screen, y + h - 1, w, &rs);
}

const struct prompt_ops prompt_filter_ops = {
	.name		= "filter",
	.priv_size	= sizeof(struct prompt_filter),
	.destroy	= pf_destroy,
	.open		= pf_open,
	.key		= pf_key,
	.draw		= pf_draw,
	.submit		= pf_submit,
	.complete	= pf_complete,
	.request	= pf_request,
};
