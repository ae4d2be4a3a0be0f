// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The help overlay (F1, ?), a prompt that only scrolls: generated from
 * ui_keys[], the table that dispatches keys. It takes the whole terminal,
 * cleared, in a box; the keys' descriptions wrap under themselves at any
 * width, and what does not fit scrolls (the bottom line says which lines
 * are shown). No curses calls here: tests/unit/test_ui_help.c draws it into
 * a text screen.
 */
#include <curses.h>
#include <stdio.h>
#include <string.h>
#include "ui-local.h"
#include "help-local.h"

static const char *const help_tail[] = {
	"",
	"Mouse: click a tab or a row to select it, click a column header to sort by it, "
	"the wheel scrolls.",
	"",
	"Flags column (d.h1.) as the kernel prints it: see pane 1.",
};

#define NTAIL	((int)(sizeof(help_tail) / sizeof(help_tail[0])))


/* Where wrapped lines go: line @idx of the help, to be shown or only counted. */
struct help_out {
	struct ui	*ui;
	int		from, n;	/* the lines [from, from + n) are drawn */
	int		y, x, w;
	int		idx;		/* the next line's number */
};

static void emit(struct help_out *o, const struct richstr *rs)
{
	if (o->idx >= o->from && o->idx < o->from + o->n)
		ui_draw_rs(&o->ui->screen, o->y + o->idx - o->from, o->x, rs, o->w);
	o->idx++;
}

/*
 * @prefix (its roles kept) followed by @text wrapped to the width, the
 * continuation lines indented to the prefix's length (to 2 columns when
 * that leaves less than 10).
 */
static void emit_wrapped(struct help_out *o, const struct richstr *prefix, enum ui_role role,
			 const char *text)
{
	int indent = prefix->len + 10 <= o->w ? prefix->len : 2, room = o->w - prefix->len;
	struct richstr rs = *prefix;

	if (room < 10 && *text) {	/* the text starts on the next line */
		emit(o, &rs);
		richstr_clear(&rs);
		richstr_pad(&rs, ROLE_OVERLAY, indent);
		room = o->w - indent;
	}
	if (room < 1)
		room = 1;
	do {
		int n = richstr_wrap_len(text, (int)strlen(text), room);

		richstr_addn(&rs, role, text, n);
		emit(o, &rs);
		text += n;
		while (*text == ' ')
			text++;
		richstr_clear(&rs);
		richstr_pad(&rs, ROLE_OVERLAY, indent);
		room = o->w - indent > 0 ? o->w - indent : 1;
	} while (*text);
}

/* Lay the help out at width @o->w: draw the lines asked for. Return: the lines in all. */
static int help_layout(struct help_out *o)
{
	const char *group = NULL;
	struct richstr rs, empty;
	int label_w = 0;

	for (unsigned int i = 0; i < ui_nkeys; i++)
		if ((int)strlen(ui_keys[i].label) > label_w)
			label_w = (int)strlen(ui_keys[i].label);
	richstr_clear(&empty);
	o->idx = 0;
	for (unsigned int i = 0; i < ui_nkeys; i++) {
		if (!group || strcmp(group, ui_keys[i].group)) {
			if (group)
				emit(o, &empty);
			group = ui_keys[i].group;
			richstr_clear(&rs);
			richstr_add(&rs, ROLE_EVENT, group);
			emit(o, &rs);
		}
		/* "  LABEL  description": the label column as wide as the widest label */
		richstr_clear(&rs);
		richstr_add(&rs, ROLE_OVERLAY, "  ");
		richstr_add(&rs, ROLE_FKEY, ui_keys[i].label);
		richstr_pad(&rs, ROLE_OVERLAY, 2 + label_w + 2);
		emit_wrapped(o, &rs, ROLE_OVERLAY, ui_keys[i].help);
	}
	for (int i = 0; i < NTAIL; i++) {
		if (!*help_tail[i]) {
			emit(o, &empty);
			continue;
		}
		richstr_clear(&rs);
		emit_wrapped(o, &rs, ROLE_OVERLAY, help_tail[i]);
	}
	return o->idx;
}

static void help_draw(struct ui *ui, struct prompt *pr)
{
	struct help_state *hs = pr->priv;
	struct help_out o = { .ui = ui, .y = 1, .x = 2, .w = ui->screen.cols - 4 };
	struct richstr rs;

	if (ui->screen.cols < 20 || ui->screen.rows < 5)
		return;
	/* the whole terminal: nothing of the pane shows through */
	ui_draw_box(&ui->screen, 0, 0, ui->screen.rows, ui->screen.cols);
	hs->page = ui->screen.rows - 2;
	o.n = 0;
	hs->nlines = help_layout(&o);
	if (hs->top > hs->nlines - hs->page)
		hs->top = hs->nlines - hs->page;
	if (hs->top < 0)
		hs->top = 0;
	o.from = hs->top;
	o.n = hs->page;
	help_layout(&o);
	richstr_clear(&rs);
	richstr_add(&rs, ROLE_SELECTED, " ktop help: every key ");
	if (ui->screen.cols >= 80)
		richstr_add(&rs, ROLE_OVERLAY, " Up/Down/PgUp/PgDn/Home/End scroll, any other key "
			    "closes ");
	ui_draw_rs(&ui->screen, 0, 2, &rs, ui->screen.cols - 4);
	richstr_clear(&rs);
	richstr_addf(&rs, ROLE_OVERLAY, " lines %d-%d of %d ", hs->top + 1,
		     hs->top + hs->page < hs->nlines ? hs->top + hs->page : hs->nlines,
		     hs->nlines);
	ui_draw_rs(&ui->screen, ui->screen.rows - 1, 2, &rs, ui->screen.cols - 4);
}

static int help_open(struct ui *ui, struct prompt *pr)
{
	struct help_state *hs = pr->priv;

	hs->top = 0;
	return UI_HANDLED | UI_REDRAW;
}

/* Up/Down/PgUp/PgDn/Home/End scroll, F10 quits, any other key closes. */
static int help_key(struct ui *ui, struct prompt *pr, int ch)
{
	const struct ui_key *k = ui_key_lookup(ch);
	enum ui_action act = k ? k->act : ACT_NONE;
	struct help_state *hs = pr->priv;
	int page = hs->page > 1 ? hs->page : 1;

	if (act == ACT_DOWN)
		hs->top++;
	else if (act == ACT_UP)
		hs->top--;
	else if (act == ACT_PGDN)
		hs->top += page;
	else if (act == ACT_PGUP)
		hs->top -= page;
	else if (act == ACT_HOME)
		hs->top = 0;
	else if (act == ACT_END)
		hs->top = hs->nlines - page;
	else if (act == ACT_QUIT && ch == KEY_F(10))
		return UI_QUIT;
	else
		ui_prompt_close(ui);
	if (hs->top > hs->nlines - page)
		hs->top = hs->nlines - page;
	if (hs->top < 0)
		hs->top = 0;
	return UI_REDRAW;
}

const struct prompt_ops prompt_help_ops = {
	.name		= "help",
	.priv_size	= sizeof(struct help_state),
	.open		= help_open,
	.key		= help_key,
	.draw		= help_draw,
};
