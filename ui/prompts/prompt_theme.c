// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The theme chooser (F2): Up/Down try each theme on the live screen, Enter
 * keeps it (saved in ktop.conf), Esc goes back to the one before.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ui-local.h"

#define THEMES_MAX	32

struct theme_state {
	char	*names[THEMES_MAX];
	int	n;
	int	sel;
	char	before[64];	/* the theme when the chooser opened */
	bool	said_unsaved;	/* why ktop.conf was not written: said */
};

static void theme_free_names(struct theme_state *ts)
{
	for (int i = 0; i < ts->n; i++)
		free(ts->names[i]);
	ts->n = 0;
}

static void theme_select(struct ui *ui, struct theme_state *ts, int idx)
{
	char err[256];
	struct ui_theme t;

	if (idx < 0 || idx >= ts->n)
		return;
	ts->sel = idx;
	if (ui_theme_load(&t, ts->names[idx], err, sizeof(err))) {
		ui_message(ui, "theme: %s", err);
		return;
	}
	ui->theme = t;
	if (ui->screen.ready)
		ui_theme_apply(ui);
}

static int theme_open(struct ui *ui, struct prompt *pr)
{
	struct theme_state *ts = pr->priv;

	theme_free_names(ts);
	ts->n = ui_theme_list(ts->names, THEMES_MAX);
	snprintf(ts->before, sizeof(ts->before), "%s", ui->theme.name);
	ts->sel = 0;
	for (int i = 0; i < ts->n; i++)
		if (!strcmp(ts->names[i], ui->theme.name))
			ts->sel = i;
	return UI_HANDLED | UI_REDRAW;
}

static int theme_key(struct ui *ui, struct prompt *pr, int ch)
{
	const struct ui_key *k = ui_key_lookup(ch);
	enum ui_action act = k ? k->act : ACT_NONE;
	struct theme_state *ts = pr->priv;
	char why[256];
	int ret;

	if (act == ACT_UP) {
		theme_select(ui, ts, ts->sel - 1);
	} else if (act == ACT_DOWN) {
		theme_select(ui, ts, ts->sel + 1);
	} else if (act == ACT_ENTER) {
		ui_prompt_close(ui);
		ret = ui_config_set("theme", ui->theme.name, why, sizeof(why));
		if (!ret)
			ui_message(ui, "theme %s, saved in ktop.conf", ui->theme.name);
		else if (ts->said_unsaved)	/* the reason once, not at every choice */
			ui_message(ui, "theme %s (not saved)", ui->theme.name);
		else
			ui_message(ui, "theme %s, not saved in ktop.conf: %s", ui->theme.name, why);
		ts->said_unsaved |= ret != 0;
	} else if (act == ACT_ESC || act == ACT_THEME || act == ACT_QUIT) {
		ui_prompt_close(ui);
		for (int i = 0; i < ts->n; i++)
			if (!strcmp(ts->names[i], ts->before))
				theme_select(ui, ts, i);
	}
	return UI_REDRAW;
}

static void theme_draw(struct ui *ui, struct prompt *pr)
{
	const struct theme_state *ts = pr->priv;
	int h = ts->n + 4, w = 40, y, x;

	if (h > ui->screen.rows - 2)
		h = ui->screen.rows - 2;
	if (w > ui->screen.cols)
		w = ui->screen.cols;
	y = (ui->screen.rows - h) / 2;
	x = (ui->screen.cols - w) / 2;
	ui_draw_box(&ui->screen, y, x, h, w);
	ui_draw_text(&ui->screen, y, x + 2, ROLE_OVERLAY, " Setup: colour theme ", w - 4);
	for (int i = 0; i < ts->n && i < h - 4; i++) {
		struct richstr rs;

		richstr_clear(&rs);
		richstr_addf(&rs, i == ts->sel ? ROLE_SELECTED : ROLE_OVERLAY, " %s %-24s",
			     i == ts->sel ? ">" : " ", ts->names[i]);
		ui_draw_rs(&ui->screen, y + 1 + i, x + 2, &rs, w - 4);
	}
	ui_draw_text(&ui->screen, y + h - 2, x + 2, ROLE_OVERLAY,
		     "Up/Down try  Enter keep  Esc undo", w - 4);
}

static void theme_destroy(struct prompt *pr)
{
	theme_free_names(pr->priv);
}

const struct prompt_ops prompt_theme_ops = {
	.name		= "theme",
	.priv_size	= sizeof(struct theme_state),
	.destroy	= theme_destroy,
	.open		= theme_open,
	.key		= theme_key,
	.draw		= theme_draw,
};
