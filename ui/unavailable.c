// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What this kernel or this run does not offer (src/kernel/features.h), in the
 * words the UI uses: the header's "unavailable:" line, and the page a pane
 * shows in place of a feature it lacks, with what would give it.
 */
#include <stdio.h>

#include "app/app.h"
#include "kernel/features.h"
#include "ui-local.h"

#define NELEM(a)	((int)(sizeof(a) / sizeof((a)[0])))

static const char *state_words(enum feature_state s)
{
	static const char *const words[] = {
		[FEAT_AVAILABLE] = "available", [FEAT_NOT_BUILT] = "not built in",
		[FEAT_NOT_PERMITTED] = "not permitted (EPERM)", [FEAT_NEEDS_ROOT] = "needs root",
		[FEAT_TOP_LEVEL_ONLY] = "top level only", [FEAT_NOT_TRIED] = "not tried",
	};

	return s < NELEM(words) && words[s] ? words[s] : "unknown";
}

void ui_draw_unavailable(struct ui *ui, int y, int h, int w, const char *title,
			 const int *features, int nfeatures, const char *plan)
{
	const struct features *ft = &ui->app->ft;
	char buf[1024];
	int row = y;

	ui_draw_text(&ui->screen, row++, 2, ROLE_EVENT, title, w - 2);
	row++;
	for (int i = 0; i < nfeatures && row < y + h; i++) {
		const struct feature *f = &ft->f[features[i]];

		if (!f->name)
			continue;
		snprintf(buf, sizeof(buf), "%s: %s%s%s%s%s", f->name, state_words(f->state),
			 f->config && f->state == FEAT_NOT_BUILT ? " (" : "",
			 f->config && f->state == FEAT_NOT_BUILT ? f->config : "",
			 f->config && f->state == FEAT_NOT_BUILT ? ")" : "",
			 f->detail[0] ? "" : "");
		row += ui_draw_wrapped(&ui->screen, row, y + h - row, w,
				       f->state == FEAT_AVAILABLE ? ROLE_OK : ROLE_WARN, buf);
		if (f->detail[0] && row < y + h)
			row += ui_draw_wrapped(&ui->screen, row, y + h - row, w, ROLE_DIM,
					       f->detail);
	}
	if (row < y + h)
		row++;
	if (row < y + h)
		row += ui_draw_wrapped(&ui->screen, row, y + h - row, w, ROLE_DEFAULT, plan);
	if (ui->app->mode_why[0] && row + 1 < y + h) {
		snprintf(buf, sizeof(buf), "This run: %s", ui->app->mode_why);
		ui_draw_wrapped(&ui->screen, row + 1, y + h - row - 1, w, ROLE_DIM, buf);
	}
}

size_t ui_unavailable_line(const struct features *ft, char *buf, size_t len)
{
	bool done[FEATURE_NR] = { false };
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < FEATURE_NR; i++) {
		const struct feature *f = &ft->f[i];

		if (done[i] || !f->name || f->state == FEAT_AVAILABLE ||
		    f->state == FEAT_TOP_LEVEL_ONLY)
			continue;
		for (int j = i; j < FEATURE_NR && n + 2 < len; j++) {
			if (done[j] || !ft->f[j].name || ft->f[j].state != f->state)
				continue;
			done[j] = true;
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
					      j == i ? (n ? "; " : "") : ", ", ft->f[j].name);
		}
		if (n + 2 < len)
			n += (size_t)snprintf(buf + n, len - n, " (%s)", state_words(f->state));
	}
	return n < len ? n : len - 1;
}

