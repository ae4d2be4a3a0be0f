// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The save prompt (s, S): when the event list has a marked time window (v),
 * first whether to save that window or everything (w/a); then a file name,
 * whose extension picks the format (.ktop, .dat trace.dat, .json, .txt,
 * .csv; anything else: .ktop); then app_save() (src/app_snapshot.c) writes
 * the store, or only its events with timestamps in the window: atomic, mode
 * 0600. An existing file is never overwritten without a y at a second prompt.
 * "-" and a target that is a terminal (/dev/tty, /dev/stdout) are refused:
 * they would write over the screen.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "app.h"
#include "export.h"
#include "safefile.h"
#include "ui-local.h"

static char save_path[sizeof(((struct ui *)0)->prompt_buf)];
/* what the file will hold: the window [save_t0, save_t1], or everything (save_window false) */
static bool save_window;
static uint64_t save_t0, save_t1, save_n;

static void save_prompt(struct ui *ui, enum ui_prompt_kind kind, const char *label,
			const char *text)
{
	ui->modal = MODAL_PROMPT;
	ui->prompt_kind = kind;
	snprintf(ui->prompt_label, sizeof(ui->prompt_label), "%s", label);
	snprintf(ui->prompt_buf, sizeof(ui->prompt_buf), "%s", text);
	ui->prompt_len = (int)strlen(ui->prompt_buf);
}

static int name_prompt(struct ui *ui)
{
	char name[64];
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(name, sizeof(name), save_window ? "ktop-%Y%m%d-%H%M%S-window.ktop" :
		 "ktop-%Y%m%d-%H%M%S.ktop", &tm);
	save_prompt(ui, PROMPT_SAVE, save_window ? "save the window to (.ktop .dat .json .txt .csv):" :
		    "save to (.ktop .dat .json .txt .csv):", name);
	return UI_REDRAW;
}

int prompt_save_open(struct ui *ui)
{
	char label[sizeof(ui->prompt_label)];

	save_window = pane_events_window(ui, &save_t0, &save_t1, &save_n);
	if (!save_window)
		return name_prompt(ui);
	snprintf(label, sizeof(label), "save the marked window (%llu events, %.6f s): w, "
		 "or everything: a?", (unsigned long long)save_n,
		 (double)(save_t1 - save_t0) / 1e9);
	save_prompt(ui, PROMPT_SAVE_SCOPE, label, "w");
	return UI_REDRAW;
}

static int save_now(struct ui *ui, const char *path)
{
	char err[512] = "";
	int fmt = export_format_from_name(path);
	uint64_t t0 = save_window ? save_t0 : 0, t1 = save_window ? save_t1 : 0;

	if (fmt < 0)
		fmt = EXPORT_KTOP;
	if (app_save(ui->app, path, fmt, t0, t1, SAFEFILE_OUT_NO_TERMINAL, err, sizeof(err)))
		ui_message(ui, "not saved: %s", err);
	else if (save_window)
		ui_message(ui, "saved %s (%s, the window: %llu events)", path,
			   export_format_name(fmt), (unsigned long long)save_n);
	else
		ui_message(ui, "saved %s (%s)", path, export_format_name(fmt));
	return UI_REDRAW;
}

int prompt_save_submit(struct ui *ui)
{
	const char *s = ui->prompt_buf;
	struct stat sb;

	ui->modal = MODAL_NONE;
	if (ui->prompt_kind == PROMPT_SAVE_SCOPE) {
		if (s[0] == 'a' || s[0] == 'A')
			save_window = false;
		else if (s[0] != 'w' && s[0] != 'W') {
			ui_message(ui, "not saved (w: the window, a: everything)");
			return UI_REDRAW;
		}
		return name_prompt(ui);
	}
	if (ui->prompt_kind == PROMPT_SAVE_CONFIRM) {
		if (s[0] == 'y' || s[0] == 'Y')
			return save_now(ui, save_path);
		ui_message(ui, "not saved: %s exists", save_path);
		return UI_REDRAW;
	}
	if (!*s)
		return UI_REDRAW;
	if (!strcmp(s, "-")) {
		/* standard output is the terminal the view draws on */
		ui_message(ui, "not saved: '-' (standard output) is this screen; give a file name");
		return UI_REDRAW;
	}
	snprintf(save_path, sizeof(save_path), "%s", s);
	if (!stat(save_path, &sb)) {
		char label[sizeof(ui->prompt_label)];

		snprintf(label, sizeof(label), "%.60s exists: overwrite? (y/N)", save_path);
		save_prompt(ui, PROMPT_SAVE_CONFIRM, label, "");
		return UI_REDRAW;
	}
	return save_now(ui, save_path);
}
