// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The save prompt (s, S): when the event list has a marked time window (v),
 * first whether to save that window or everything (w/a); then a file name,
 * whose extension picks the format (.ktop, .dat trace.dat, .json, .txt,
 * .csv; anything else: .ktop); then app_save() (src/app/app.c) writes
 * the store, or only its events with timestamps in the window: atomic, mode
 * 0600. An existing file is never overwritten without a y at a second prompt.
 * "-" and a target that is a terminal (/dev/tty, /dev/stdout) are refused:
 * they would write over the screen.
 *
 * From a pane that shows stacks (pane_ops.folded: the stacks pane, 8) the
 * name offered ends in .folded: that file holds what the pane shows (its
 * scope, source, and the icicle's zoom) as folded stacks for flame graphs
 * (src/formats/folded.h); any other extension saves the trace as from any pane.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "app/app.h"
#include "formats/format.h"
#include "formats/folded.h"
#include "lib/safefile.h"
#include "model/stacktree.h"
#include "ui-local.h"

struct save_state {
	enum { SAVE_SCOPE, SAVE_NAME, SAVE_CONFIRM } step;
	char		path[PATH_MAX];
	/* what the file will hold: the window [t0, t1] of n events, or everything */
	bool		window;
	uint64_t	t0, t1, n;
	/* the stacks pane's: what a .folded name saves */
	bool		folded;
	struct stack_set set;
	bool		value;
	char		what[200];
};

static int name_prompt(struct ui *ui, struct prompt *pr)
{
	struct save_state *ss = pr->priv;
	char name[64];
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(name, sizeof(name), ss->window ? "ktop-%Y%m%d-%H%M%S-window.ktop" :
		 "ktop-%Y%m%d-%H%M%S.ktop", &tm);
	ss->step = SAVE_NAME;
	if (ui_view(ui)) {
		/* save what I see: only the events the view filter matches */
		char label[sizeof(pr->label)];

		snprintf(label, sizeof(label), "save the %s, %llu events in the view, to (.ktop .dat "
			 ".json .txt .csv):", ss->window ? "window" : "trace",
			 (unsigned long long)ui_ev_count_view(ui->st, ui_view(ui),
							      ss->window ? ss->t0 : 0,
							      ss->window ? ss->t1 : UINT64_MAX));
		return ui_prompt_ask(ui, pr, label, name, sizeof(ss->path) - 1);
	}
	return ui_prompt_ask(ui, pr, ss->window ? "save the window to (.ktop .dat .json .txt .csv):" :
			     "save to (.ktop .dat .json .txt .csv):", name, sizeof(ss->path) - 1);
}

/* The stacks pane shown: offer what it shows as .folded. */
static int folded_prompt(struct ui *ui, struct prompt *pr)
{
	struct save_state *ss = pr->priv;
	char name[64], label[sizeof(pr->label)];
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(name, sizeof(name), "ktop-%Y%m%d-%H%M%S.folded", &tm);
	ss->step = SAVE_NAME;
	snprintf(label, sizeof(label), "save the %zu stacks shown (.folded), or the trace (.ktop "
		 ".dat .json .txt .csv), to:", ss->set.n);
	return ui_prompt_ask(ui, pr, label, name, sizeof(ss->path) - 1);
}

static int save_open(struct ui *ui, struct prompt *pr)
{
	struct save_state *ss = pr->priv;
	char label[sizeof(pr->label)];

	stack_set_free(&ss->set);
	ss->folded = ui->active && ui->active->ops->folded &&
		     ui->active->ops->folded(ui, ui->active, &ss->set, &ss->value, ss->what,
					     sizeof(ss->what));
	if (ss->folded)
		return folded_prompt(ui, pr);

	ss->window = ui_window(ui, &ss->t0, &ss->t1, &ss->n);
	if (!ss->window)
		return name_prompt(ui, pr);
	snprintf(label, sizeof(label), "save the marked window (%llu events, %.6f s): w, "
		 "or everything: a?", (unsigned long long)ss->n, (double)(ss->t1 - ss->t0) / 1e9);
	ss->step = SAVE_SCOPE;
	return ui_prompt_ask(ui, pr, label, "w", 1);
}

static int save_now(struct ui *ui, struct save_state *ss)
{
	char err[512] = "";
	int fmt = format_id_by_name(ss->path);
	uint64_t t0 = ss->window ? ss->t0 : 0, t1 = ss->window ? ss->t1 : 0;

	if (fmt < 0)
		fmt = FORMAT_KTOP;
	if (ss->folded && fmt == FORMAT_FOLDED) {
		if (folded_save_set(ss->path, ui->st, &ss->set, ss->value,
				    SAFEFILE_OUT_NO_TERMINAL, err, sizeof(err)))
			ui_message(ui, "not saved: %s", err);
		else
			ui_message(ui, "saved %s (folded: %zu stacks, %s)", ss->path, ss->set.n,
				   ss->what);
		return UI_REDRAW;
	}
	if (app_save(ui->app, ss->path, fmt, t0, t1, SAFEFILE_OUT_NO_TERMINAL, err, sizeof(err)))
		ui_message(ui, "not saved: %s", err);
	else if (ss->window)
		ui_message(ui, "saved %s (%s, the window: %llu events)", ss->path,
			   format_id_name(fmt), (unsigned long long)ss->n);
	else
		ui_message(ui, "saved %s (%s%s)", ss->path, format_id_name(fmt),
			   ui_view(ui) ? ", the events in the view" : "");
	return UI_REDRAW;
}

static int save_submit(struct ui *ui, struct prompt *pr, const char *s)
{
	struct save_state *ss = pr->priv;
	struct stat sb;

	switch (ss->step) {
	case SAVE_SCOPE:
		if (s[0] == 'a' || s[0] == 'A')
			ss->window = false;
		else if (s[0] != 'w' && s[0] != 'W') {
			ui_message(ui, "not saved (w: the window, a: everything)");
			return UI_REDRAW;
		}
		return name_prompt(ui, pr);
	case SAVE_CONFIRM:
		if (s[0] == 'y' || s[0] == 'Y')
			return save_now(ui, ss);
		ui_message(ui, "not saved: %s exists", ss->path);
		return UI_REDRAW;
	case SAVE_NAME:
		break;
	}
	if (!*s)
		return UI_REDRAW;
	if (!strcmp(s, "-")) {
		/* standard output is the terminal the view draws on */
		ui_message(ui, "not saved: '-' (standard output) is this screen; give a file name");
		return UI_REDRAW;
	}
	snprintf(ss->path, sizeof(ss->path), "%s", s);
	if (!stat(ss->path, &sb)) {
		char label[sizeof(pr->label)];

		snprintf(label, sizeof(label), "%.60s exists: overwrite? y or n (Enter: n)",
			 ss->path);
		ss->step = SAVE_CONFIRM;
		return ui_prompt_ask(ui, pr, label, "", 8);
	}
	return save_now(ui, ss);
}

static int save_key(struct ui *ui, struct prompt *pr, int ch)
{
	const struct save_state *ss = pr->priv;
	const char answer[2] = { (char)ch, '\0' };

	if ((ss->step == SAVE_SCOPE || ss->step == SAVE_CONFIRM) && ch >= 0x20 && ch < 0x7f) {
		/* a one-key question: the key is the answer (y, or no) */
		ui_prompt_close(ui);
		return save_submit(ui, pr, answer) | UI_REDRAW;
	}
	return ui_prompt_line_key(ui, pr, ch);
}

static void save_destroy(struct prompt *pr)
{
	struct save_state *ss = pr->priv;

	stack_set_free(&ss->set);
}

const struct prompt_ops prompt_save_ops = {
	.name		= "save",
	.priv_size	= sizeof(struct save_state),
	.destroy	= save_destroy,
	.open		= save_open,
	.key		= save_key,
	.submit		= save_submit,
};
