// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Routing: the panes and prompts by name, the typed requests between them,
 * the open prompt, and the footer's message (see ui-local.h). Only key codes
 * come from curses.h; nothing here draws, so the tests run it with the panes
 * they need and stand-ins for the others.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curses.h>
#include "lib/clock.h"
#include "store/store.h"
#include "ui-local.h"

/* Who takes each kind of request. */
static const char *const req_target[UI_REQ_NR] = {
	[UI_REQ_EVENTS]		= "events",
	[UI_REQ_TOP]		= "top",
	[UI_REQ_LATENCY_STOP]	= "latency",
	[UI_REQ_LATENCY_AGG]	= "latency",
	[UI_REQ_FILTER_TOGGLE]	= "filter",
	[UI_REQ_FILTER_UNDO]	= "filter",
	[UI_REQ_PROBE]		= "probe",
	[UI_REQ_NARROW]		= "view",
	[UI_REQ_WIDEN]		= "view",
	[UI_REQ_STACKS]		= "stacks",
	[UI_REQ_STACKS_ON]	= "stackson",
};

void ui_message(struct ui *ui, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ui->message, sizeof(ui->message), fmt, ap);
	va_end(ap);
	ui->message_until = clock_mono_ns() + 4000000000ull;
	ui->dirty = true;
}

/* The state the UI keeps for a pane or prompt: zeroed, freed after its destroy. */
static int priv_new(void **priv, size_t size)
{
	*priv = size ? calloc(1, size) : NULL;
	return size && !*priv ? -ENOMEM : 0;
}

/* Free the state when @ret is an init's failure (or -1: the end). Return: -ENOMEM then, else 0. */
static int priv_free_on(void **priv, int ret)
{
	if (!ret)
		return 0;
	free(*priv);
	*priv = NULL;
	return -ENOMEM;
}

static int pane_add(struct ui *ui, const struct pane_ops *ops)
{
	struct pane *p = &ui->panes[ui->npanes];

	p->ops = ops;
	if (priv_new(&p->priv, ops->priv_size) ||
	    priv_free_on(&p->priv, ops->init ? ops->init(ui, p) : 0))
		return -ENOMEM;
	ui->npanes++;
	return 0;
}

static int prompt_add(struct ui *ui, const struct prompt_ops *ops)
{
	struct prompt *pr = &ui->prompts[ui->nprompts];

	pr->ops = ops;
	ui_line_init(&pr->line, 0);
	if (priv_new(&pr->priv, ops->priv_size) ||
	    priv_free_on(&pr->priv, ops->init ? ops->init(ui, pr) : 0))
		return -ENOMEM;
	ui->nprompts++;
	return 0;
}

int ui_views_init(struct ui *ui, const struct pane_ops *const *panes, int npanes,
		  const struct prompt_ops *const *prompts, int nprompts)
{
	int ret = 0;

	if (npanes < 1 || npanes > UI_MAX_PANES || nprompts < 0 || nprompts > UI_MAX_PROMPTS)
		return -EINVAL;
	for (int i = 0; i < npanes && !ret; i++)
		ret = pane_add(ui, panes[i]);
	for (int i = 0; i < nprompts && !ret; i++)
		ret = prompt_add(ui, prompts[i]);
	if (ret) {
		ui_views_destroy(ui);
		return ret;
	}
	ui->active = &ui->panes[0];
	return 0;
}

void ui_views_destroy(struct ui *ui)
{
	ui->prompt = NULL;
	for (struct prompt *pr = ui->prompts; pr < ui->prompts + ui->nprompts; pr++) {
		if (pr->ops->destroy)
			pr->ops->destroy(pr);
		priv_free_on(&pr->priv, -1);
	}
	for (struct pane *p = ui->panes; p < ui->panes + ui->npanes; p++) {
		if (p->ops->destroy)
			p->ops->destroy(p);
		priv_free_on(&p->priv, -1);
	}
	ui->nprompts = ui->npanes = 0;
	ui->active = NULL;
}

struct pane *ui_pane(struct ui *ui, const char *name)
{
	for (int i = 0; name && i < ui->npanes; i++)
		if (!strcmp(ui->panes[i].ops->name, name))
			return &ui->panes[i];
	return NULL;
}

struct prompt *ui_prompt(struct ui *ui, const char *name)
{
	for (int i = 0; name && i < ui->nprompts; i++)
		if (!strcmp(ui->prompts[i].ops->name, name))
			return &ui->prompts[i];
	return NULL;
}

bool ui_showing(const struct ui *ui, const char *name)
{
	return ui->active && !strcmp(ui->active->ops->name, name);
}

int ui_show_pane(struct ui *ui, const char *name)
{
	struct pane *p = ui_pane(ui, name);

	if (!p)
		return 0;
	ui->active = p;
	return UI_HANDLED | UI_REDRAW;
}

const char *ui_req_target(enum ui_req_kind kind)
{
	return kind >= 0 && kind < UI_REQ_NR ? req_target[kind] : NULL;
}

int ui_request(struct ui *ui, const struct ui_req *r)
{
	const char *to = ui_req_target(r->kind);
	struct prompt *pr;
	struct pane *p;
	int ret;

	p = ui_pane(ui, to);
	if (p) {
		ret = p->ops->request ? p->ops->request(ui, p, r) : 0;
		if (ret & UI_HANDLED)
			ui->active = p;
		return ret;
	}
	pr = ui_prompt(ui, to);
	if (pr && pr->ops->request)
		return pr->ops->request(ui, pr, r);
	return 0;
}

int ui_show_events(struct ui *ui, const struct ui_events_req *r)
{
	return ui_request(ui, &(struct ui_req){ .kind = UI_REQ_EVENTS, .events = *r });
}

int ui_search(struct ui *ui, int dir)
{
	struct pane *p = ui->active;

	if (!ui->search[0]) {
		ui_message(ui, "no search yet: press / or F3");
		return UI_REDRAW;
	}
	if (!p || !p->ops->search)
		/* a pane that cannot search: the event list does */
		return ui_show_events(ui, &(struct ui_events_req){ .search = ui->search }) |
		       UI_REDRAW;
	return p->ops->search(ui, p, ui->search, dir) | UI_REDRAW;
}

void ui_work_later(struct ui *ui)
{
	ui->working = true;
}

bool ui_work(struct ui *ui, uint64_t budget_ns)
{
	bool more = false;

	for (int i = 0; i < ui->npanes; i++) {
		struct pane *p = &ui->panes[i];

		if (p->ops->work && p->ops->work(ui, p, budget_ns))
			more = true;
	}
	ui->working = more;
	return more;
}

void ui_set_paused(struct ui *ui, bool on)
{
	struct store_stats ss;

	store_get_stats(ui->st, &ss);
	ui->paused = on;
	ui->paused_appended = ss.appended;
	ui->paused_ns = clock_mono_ns();
}

/* ---- the open prompt --------------------------------------------------------- */

int ui_prompt_open(struct ui *ui, const char *name)
{
	struct prompt *pr = ui_prompt(ui, name);
	int ret;

	if (!pr)
		return 0;
	if (ui->prompt)
		ui_prompt_close(ui);
	ret = pr->ops->open ? pr->ops->open(ui, pr) : UI_HANDLED;
	if (ret & UI_HANDLED)
		ui->prompt = pr;
	return ret | UI_REDRAW;
}

int ui_prompt_ask(struct ui *ui, struct prompt *pr, const char *label, const char *text,
		  size_t max)
{
	snprintf(pr->label, sizeof(pr->label), "%s", label);
	ui_line_init(&pr->line, max);
	ui_line_set(&pr->line, text);
	ui->prompt = pr;
	return UI_HANDLED | UI_REDRAW;
}

void ui_prompt_close(struct ui *ui)
{
	struct prompt *pr = ui->prompt;

	ui->prompt = NULL;
	if (pr && pr->ops->close)
		pr->ops->close(ui, pr);
}

int ui_prompt_line_key(struct ui *ui, struct prompt *pr, int ch)
{
	char line[UI_LINE_MAX + 1];

	if (ch == 27) {
		ui_prompt_close(ui);
		return UI_REDRAW;
	}
	if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
		/* a copy: submit may ask the next question on the same line */
		memcpy(line, pr->line.text, pr->line.len + 1);
		ui_prompt_close(ui);
		return pr->ops->submit ? pr->ops->submit(ui, pr, line) | UI_REDRAW : UI_REDRAW;
	}
	if (ch == '\t')
		return pr->ops->complete ? pr->ops->complete(ui, pr) | UI_REDRAW : UI_REDRAW;
	ui_line_key(&pr->line, ch);
	return UI_REDRAW;
}

int ui_prompt_stay_key(struct ui *ui, struct prompt *pr, int ch, bool *changed)
{
	*changed = false;
	switch (ch) {
	case 27:
		ui_prompt_close(ui);
		return UI_REDRAW;
	case '\n':
	case '\r':
	case KEY_ENTER:
		return pr->ops->submit ? pr->ops->submit(ui, pr, pr->line.text) : UI_REDRAW;
	case '\t':
		return pr->ops->complete ? pr->ops->complete(ui, pr) : UI_REDRAW;
	default:
		*changed = ui_line_key(&pr->line, ch) == UI_LINE_CHANGED;
		return UI_REDRAW;
	}
}

int ui_prompt_key(struct ui *ui, int ch)
{
	struct prompt *pr = ui->prompt;

	if (!pr)
		return 0;
	return pr->ops->key ? pr->ops->key(ui, pr, ch) : ui_prompt_line_key(ui, pr, ch);
}
