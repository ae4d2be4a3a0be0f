// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The save prompt (S): a file name, whose extension picks the format (.ktop,
 * .dat trace.dat, .json, .txt, .csv; anything else: .ktop), then the whole
 * store is written through app_save() (src/app_snapshot.c): atomic, mode
 * 0600. An existing file is never overwritten without a y at a second prompt.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "app.h"
#include "export.h"
#include "ui-local.h"

static char save_path[sizeof(((struct ui *)0)->prompt_buf)];

static void save_prompt(struct ui *ui, enum ui_prompt_kind kind, const char *label,
			const char *text)
{
	ui->modal = MODAL_PROMPT;
	ui->prompt_kind = kind;
	snprintf(ui->prompt_label, sizeof(ui->prompt_label), "%s", label);
	snprintf(ui->prompt_buf, sizeof(ui->prompt_buf), "%s", text);
	ui->prompt_len = (int)strlen(ui->prompt_buf);
}

int prompt_save_open(struct ui *ui)
{
	char name[64];
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(name, sizeof(name), "ktop-%Y%m%d-%H%M%S.ktop", &tm);
	save_prompt(ui, PROMPT_SAVE, "save to (.ktop .dat .json .txt .csv):", name);
	return UI_REDRAW;
}

static int save_now(struct ui *ui, const char *path)
{
	char err[512] = "";
	int fmt = export_format_from_name(path);

	if (fmt < 0)
		fmt = EXPORT_KTOP;
	if (app_save(ui->app, path, fmt, 0, 0, err, sizeof(err)))
		ui_message(ui, "not saved: %s", err);
	else
		ui_message(ui, "saved %s (%s)", path, export_format_name(fmt));
	return UI_REDRAW;
}

int prompt_save_submit(struct ui *ui)
{
	const char *s = ui->prompt_buf;
	struct stat sb;

	ui->modal = MODAL_NONE;
	if (ui->prompt_kind == PROMPT_SAVE_CONFIRM) {
		if (s[0] == 'y' || s[0] == 'Y')
			return save_now(ui, save_path);
		ui_message(ui, "not saved: %s exists", save_path);
		return UI_REDRAW;
	}
	if (!*s)
		return UI_REDRAW;
	snprintf(save_path, sizeof(save_path), "%s", s);
	if (!stat(save_path, &sb)) {
		char label[sizeof(ui->prompt_label)];

		snprintf(label, sizeof(label), "%.60s exists: overwrite? (y/N)", save_path);
		save_prompt(ui, PROMPT_SAVE_CONFIRM, label, "");
		return UI_REDRAW;
	}
	return save_now(ui, save_path);
}
