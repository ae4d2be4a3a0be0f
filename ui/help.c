// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The help overlay (F1, ?), a prompt that only scrolls: generated from
 * ui_keys[], the table that dispatches keys.
 */
#include <curses.h>
#include <string.h>
#include "ui-local.h"

static const char *const help_tail[] = {
	"",
	"Mouse: click a tab or a row to select it, click a column header to sort",
	"by it, the wheel scrolls.",
	"",
	"Flags column (d.h1.) as the kernel prints it: see pane 1.",
};

#define NTAIL	((int)(sizeof(help_tail) / sizeof(help_tail[0])))

/* One line per key, plus a title line per group. */
int ui_help_lines(void)
{
	const char *group = NULL;
	int n = 0;

	for (unsigned int i = 0; i < ui_nkeys; i++) {
		if (!group || strcmp(group, ui_keys[i].group)) {
			group = ui_keys[i].group;
			n += i ? 2 : 1;
		}
		n++;
	}
	return n + NTAIL;
}

static void help_line(int idx, struct richstr *rs)
{
	const char *group = NULL;
	int n = 0;

	richstr_clear(rs);
	for (unsigned int i = 0; i < ui_nkeys; i++) {
		if (!group || strcmp(group, ui_keys[i].group)) {
			group = ui_keys[i].group;
			if (i && n++ == idx)
				return;
			if (n++ == idx) {
				richstr_add(rs, ROLE_EVENT, group);
				return;
			}
		}
		if (n++ == idx) {
			richstr_add(rs, ROLE_OVERLAY, "  ");
			richstr_add(rs, ROLE_FKEY, ui_keys[i].label);
			richstr_pad(rs, ROLE_OVERLAY, 14);
			richstr_add(rs, ROLE_OVERLAY, ui_keys[i].help);
			return;
		}
	}
	idx -= n;
	if (idx >= 0 && idx < NTAIL)
		richstr_add(rs, ROLE_OVERLAY, help_tail[idx]);
}

static void help_draw(struct ui *ui, struct prompt *pr)
{
	const int *top = pr->priv;
	int w = ui->cols > 84 ? 80 : ui->cols - 2, h = ui->rows - 2, x, y;
	struct richstr rs;

	if (w < 20 || h < 5)
		return;
	x = (ui->cols - w) / 2;
	y = 1;
	attrset(A_NORMAL);
	for (int r = y; r < y + h; r++)
		ui_fill_row(ui, r, ROLE_OVERLAY, 0);
	/* the box and its contents */
	for (int r = y; r < y + h; r++) {
		richstr_clear(&rs);
		richstr_pad(&rs, ROLE_OVERLAY, w);
		ui_draw_rs(ui, r, x, &rs, w);
	}
	richstr_clear(&rs);
	richstr_add(&rs, ROLE_SELECTED, " ktop help: every key ");
	richstr_add(&rs, ROLE_OVERLAY, " (Up/Down/PgUp/PgDn scroll, any other key closes)");
	ui_draw_rs(ui, y, x + 1, &rs, w - 2);
	for (int r = 0; r < h - 2; r++) {
		help_line(*top + r, &rs);
		ui_draw_rs(ui, y + 1 + r, x + 2, &rs, w - 4);
	}
}

static int help_open(struct ui *ui, struct prompt *pr)
{
	*(int *)pr->priv = 0;
	return UI_HANDLED | UI_REDRAW;
}

/* Up/Down/PgUp/PgDn scroll, F10 quits, any other key closes. */
static int help_key(struct ui *ui, struct prompt *pr, int ch)
{
	const struct ui_key *k = ui_key_lookup(ch);
	enum ui_action act = k ? k->act : ACT_NONE;
	int page = ui->rows - 6, *top = pr->priv;

	if (act == ACT_DOWN)
		(*top)++;
	else if (act == ACT_UP)
		(*top)--;
	else if (act == ACT_PGDN)
		*top += page;
	else if (act == ACT_PGUP)
		*top -= page;
	else if (act == ACT_QUIT && ch == KEY_F(10))
		return UI_QUIT;
	else
		ui_prompt_close(ui);
	if (*top > ui_help_lines() - page)
		*top = ui_help_lines() - page;
	if (*top < 0)
		*top = 0;
	return UI_REDRAW;
}

const struct prompt_ops prompt_help_ops = {
	.name		= "help",
	.priv_size	= sizeof(int),
	.open		= help_open,
	.key		= help_key,
	.draw		= help_draw,
};
