// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The view filter in the interactive view: what every pane shows, counts and
 * saves of the events already held (src/view/viewfilter.h), live, from a file or a
 * stream alike. It changes nothing in the kernel: the filter prompt (F4)
 * changes what is recorded, this one what is shown.
 *
 * The filter is the app's (app_view, src/app/app_view.c: --view's clauses come
 * first), a stack of clauses, ANDed. The view prompt (\, V) pushes one in the
 * syntax of -F/--view, checked as it is typed, a mistake shown with a caret
 * under its column; Tab completes event and field names. Panes push one for
 * their selected row's task, CPU or event through UI_REQ_NARROW (z, Z, #, e)
 * and widen back through UI_REQ_WIDEN (w drops the newest clause, W all);
 * panes see the change through ui_view_gen() and recount.
 *
 * The header's line and the panes' access to the filter are ui/view.c's.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/app.h"
#include "lib/err.h"
#include "store/schema.h"
#include "store/store.h"
#include "view/viewfilter.h"
#include "ui-local.h"

#define VIEW_ROWS		5		/* the prompt's overlay */
#define VIEW_COMPLETE_MAX	2048

struct view_state {
	/* the prompt */
	bool			bad;		/* the line does not parse: @fe says why */
	bool			pushed_err;	/* @fe came from the last Enter */
	struct err_pos	fe;
	char			hint[512];	/* completion candidates, or "" */
};

/* ---- narrowing and widening (UI_REQ_NARROW, UI_REQ_WIDEN) ------------------------ */

static void say_pushed(struct ui *ui, int ret, const char *what)
{
	struct viewfilter *vf = ui->app->view;

	if (ret == -ENOSPC)
		ui_message(ui, "view: at most %d clauses (w widens)", VIEWFILTER_MAX_CLAUSES);
	else if (ret)
		ui_message(ui, "view: cannot narrow to %s: %s", what, strerror(-ret));
	else
		ui_message(ui, "view narrowed to %s in every pane (w widens, W clears)",
			   viewfilter_clause(vf, viewfilter_nclauses(vf) - 1));
}

static int view_narrow(struct ui *ui, const struct ui_view_req *r)
{
	struct viewfilter *vf = ui->app->view;
	int ret;

	switch (r->what) {
	case UI_VIEW_TASK:
		ret = viewfilter_push_pid(vf, r->pid, r->kids ? VIEWFILTER_KIDS : 0);
		break;
	case UI_VIEW_CPU:
		ret = viewfilter_push_cpu(vf, r->cpu, 0);
		break;
	case UI_VIEW_CLAUSE:
		ret = r->text ? viewfilter_push(vf, r->text, NULL) : -EINVAL;
		break;
	default:
		ret = viewfilter_push_type(vf, r->type, 0);
		break;
	}
	say_pushed(ui, ret, r->what == UI_VIEW_TASK ? "the task" : r->what == UI_VIEW_CPU ?
		   "the CPU" : r->what == UI_VIEW_CLAUSE ? r->text : "the event");
	return UI_HANDLED | UI_REDRAW;
}

static int view_widen(struct ui *ui, bool all)
{
	struct viewfilter *vf = ui->app->view;
	char desc[VIEWFILTER_TEXT_MAX];

	if (!viewfilter_nclauses(vf)) {
		ui_message(ui, "view: every event held is shown already");
		return UI_HANDLED | UI_REDRAW;
	}
	if (all)
		viewfilter_clear(vf);
	else
		viewfilter_pop(vf);
	if (viewfilter_nclauses(vf))
		ui_message(ui, "view widened to %s", viewfilter_describe(vf, desc, sizeof(desc)));
	else
		ui_message(ui, "view: every event held");
	return UI_HANDLED | UI_REDRAW;
}

static int view_request(struct ui *ui, struct prompt *pr, const struct ui_req *r)
{
	if (r->kind != UI_REQ_NARROW && r->kind != UI_REQ_WIDEN)
		return 0;
	if (!ui->app->view) {
		ui_message(ui, "view: no view filter in this run");
		return UI_HANDLED | UI_REDRAW;
	}
	return r->kind == UI_REQ_NARROW ? view_narrow(ui, &r->view) : view_widen(ui, r->view.all);
}

/* ---- the prompt ------------------------------------------------------------------ */

/*
 * A file took any field name while its loader was still reading it
 * (app_view_start); read whole, its schema knows every event's fields.
 */
static void view_prepare(struct ui *ui, struct viewfilter *vf)
{
	if (!app_session(ui->app) && !app_loading(ui->app))
		viewfilter_set_live(vf, NULL, NULL, NULL);
}

/* As the user types: the compile Enter does (a field no event has too), without the push. */
static void view_check(struct ui *ui, struct prompt *pr)
{
	struct view_state *vs = pr->priv;
	struct viewfilter *vf = ui->app->view;

	vs->pushed_err = false;
	if (!pr->line.len || !vf) {
		vs->bad = pr->line.len && viewfilter_check(pr->line.text, &vs->fe) != 0;
		return;
	}
	view_prepare(ui, vf);
	vs->bad = viewfilter_try(vf, pr->line.text, &vs->fe) == -EINVAL;
}

static int view_open(struct ui *ui, struct prompt *pr)
{
	struct view_state *vs = pr->priv;

	if (!ui->app->view) {
		ui_message(ui, "view: no view filter in this run");
		return UI_REDRAW;
	}
	vs->bad = vs->pushed_err = false;
	vs->hint[0] = '\0';
	return ui_prompt_ask(ui, pr, "view:", "", 0);
}

static int view_submit(struct ui *ui, struct prompt *pr, const char *line)
{
	struct view_state *vs = pr->priv;
	struct viewfilter *vf = ui->app->view;
	int ret;

	if (!*line)
		return UI_REDRAW;
	view_prepare(ui, vf);
	ret = viewfilter_push(vf, line, &vs->fe);
	if (ret == -EINVAL) {
		/* ask again with the same line, the caret under the problem */
		ui_prompt_ask(ui, pr, "view:", line, 0);
		vs->bad = vs->pushed_err = true;
		return UI_HANDLED | UI_REDRAW;
	}
	say_pushed(ui, ret, line);
	return UI_HANDLED | UI_REDRAW;
}

static void view_close(struct ui *ui, struct prompt *pr)
{
	struct view_state *vs = pr->priv;

	vs->hint[0] = '\0';
}

static int view_key(struct ui *ui, struct prompt *pr, int ch)
{
	struct view_state *vs = pr->priv;
	int ret;

	if (ch != '\t')
		vs->hint[0] = '\0';
	ret = ui_prompt_line_key(ui, pr, ch);
	if (ui->prompt == pr && ch != '\t' && ch != '\n' && ch != '\r')
		view_check(ui, pr);
	return ret;
}

/* Tab: the names a word may complete to. */
struct completion {
	const char	*cand[VIEW_COMPLETE_MAX];
	char		*owned[VIEW_COMPLETE_MAX];
	size_t		n;
};

static void cand_add(struct completion *c, const char *word, size_t wl, const char *s,
		     bool copy)
{
	if (!s || strncmp(s, word, wl) || c->n >= VIEW_COMPLETE_MAX)
		return;
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->cand[i], s))
			return;
	c->owned[c->n] = copy ? strdup(s) : NULL;
	c->cand[c->n] = copy ? c->owned[c->n] : s;
	if (c->cand[c->n])
		c->n++;
}

static void cand_names(struct completion *c, struct store *st, const char *word, size_t wl,
		       bool events_only)
{
	static const char *const words[] = {
		"pid:", "comm:", "cpu:", "buffer:", "event:", "stack:", "port:", "addr:", "conn:",
		"common_pid", "common_flags",
		"common_preempt_count", "CPU", "COMM",
	};
	const struct schema *sc = store_schema(st);
	char full[160];

	for (size_t i = 0; !events_only && i < sizeof(words) / sizeof(words[0]); i++)
		cand_add(c, word, wl, words[i], false);
	for (unsigned int id = 0; sc && id <= schema_max_id(sc); id++) {
		const struct ktop_schema_type *t = schema_get(sc, (uint16_t)id);

		if (!t || !t->name)
			continue;
		cand_add(c, word, wl, t->name, false);
		snprintf(full, sizeof(full), "%s:%s", t->system ? t->system : "", t->name);
		if (t->system)
			cand_add(c, word, wl, full, true);
		for (unsigned int f = 0; !events_only && f < t->nfields; f++)
			cand_add(c, word, wl, t->fields[f].name, false);
	}
}

static int view_complete(struct ui *ui, struct prompt *pr)
{
	struct view_state *vs = pr->priv;
	const char *text = pr->line.text;
	struct completion *c = calloc(1, sizeof(*c));
	size_t start = pr->line.cursor, wl, hl = 0;
	bool events_only = false;

	if (!c)
		return UI_REDRAW;
	while (start > 0 && (isalnum((unsigned char)text[start - 1]) ||
			     strchr("_:/*", text[start - 1])))
		start--;
	/* after "event:" or a list's comma: event names only */
	if (!strncmp(text + start, "event:", 6)) {
		start += 6;
		events_only = true;
	} else if (start > 0 && text[start - 1] == ',') {
		events_only = true;
	}
	wl = pr->line.cursor - start;
	cand_names(c, ui->st, text + start, wl, events_only);
	vs->hint[0] = '\0';
	if (!c->n) {
		snprintf(vs->hint, sizeof(vs->hint), "no event or field starts with '%.*s'",
			 (int)wl, text + start);
		goto out;
	}
	ui_line_complete(&pr->line, start, c->cand, c->n);
	for (size_t i = 0; c->n > 1 && i < c->n && hl + 2 < sizeof(vs->hint); i++)
		hl += (size_t)snprintf(vs->hint + hl, sizeof(vs->hint) - hl, "%s ", c->cand[i]);
	view_check(ui, pr);
out:
	for (size_t i = 0; i < c->n; i++)
		free(c->owned[i]);
	free(c);
	return UI_REDRAW;
}

static void view_draw(struct ui *ui, struct prompt *pr)
{
	static const struct richstr_key keys[] = {
		{ "Enter", " narrow " }, { "Tab", " complete " }, { "^U", " clear " },
		{ "Esc", " close    then w widens, W clears" },
	};
	struct view_state *vs = pr->priv;
	struct viewfilter *vf = ui->app->view;
	int h = VIEW_ROWS, w = ui->screen.cols, y, x0;
	char desc[VIEWFILTER_TEXT_MAX];
	struct richstr rs;

	y = ui_overlay_bottom(&ui->screen, &h, w);
	richstr_clear(&rs);
	richstr_add(&rs, ROLE_FKEY, " View filter ");
	richstr_add(&rs, ROLE_OVERLAY, " narrows what every pane shows and s saves of the events "
		    "held; the kernel records on (F4 changes what is recorded)");
	ui_overlay_row(&ui->screen, y, w, &rs);
	richstr_clear(&rs);
	richstr_add(&rs, ROLE_DIM, "now: ");
	richstr_add(&rs, ROLE_OVERLAY, vf && viewfilter_nclauses(vf) ?
		    viewfilter_describe(vf, desc, sizeof(desc)) : "every event held");
	richstr_add(&rs, ROLE_DIM, "  (a new clause is ANDed: pid:PID[+] comm:GLOB[+] "
		    "cpu:LIST buffer:NAME event:EV,... EV: EXPR, EXPR; '!' negates)");
	ui_overlay_row(&ui->screen, y + 1, w, &rs);
	x0 = ui_overlay_line(&ui->screen, y + 2, w, &pr->line);
	richstr_clear(&rs);
	if (vs->hint[0]) {
		richstr_add(&rs, ROLE_DIM, vs->hint);
	} else if (vs->bad) {
		int at = vs->fe.offset >= 0 ? x0 + vs->fe.offset : x0;

		/* a caret under the column of the problem, then what it is */
		richstr_pad(&rs, ROLE_OVERLAY, at > 0 ? at : 0);
		richstr_add(&rs, ROLE_ERROR, "^ ");
		richstr_add(&rs, ROLE_ERROR, vs->fe.msg);
	} else if (pr->line.len) {
		richstr_add(&rs, ROLE_OK, "Enter narrows every pane to this too");
	}
	ui_overlay_row(&ui->screen, y + 3, w, &rs);
	richstr_clear(&rs);
	richstr_add_keys(&rs, keys, sizeof(keys) / sizeof(keys[0]), ROLE_OVERLAY);
	ui_overlay_row(&ui->screen, y + h - 1, w, &rs);
}

const struct prompt_ops prompt_view_ops = {
	.name		= "view",
	.priv_size	= sizeof(struct view_state),
	.open		= view_open,
	.key		= view_key,
	.draw		= view_draw,
	.submit		= view_submit,
	.complete	= view_complete,
	.close		= view_close,
	.request	= view_request,
};
