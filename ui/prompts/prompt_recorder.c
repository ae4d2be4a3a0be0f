// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The flight recorder in the view (src/recorder/recorder.h, --save-on): a line
 * in the header ("recorder armed: 2 conditions | saved 3 | last 14:02:11
 * timerlat 212.4us on CPU 1"), and the recorder prompt (R): a condition typed
 * on its line and armed with Enter (its mistake comes back with a caret, and
 * the prompt stays open), the conditions armed (Ctrl-D removes the selected
 * one, Ctrl-T disarms or arms them all), and the saves, newest last, refused
 * ones with their reason. Enter on a save opens its file as ktop -i does: a
 * ktop of its own in this terminal, in the foreground (Ctrl-C is its); q
 * there comes back here, where tracing and the recorder went on.
 * The prompt edits and shows; the recorder is the app's (src/app/app.h); the
 * header's line is ui/recorder.c's.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <curses.h>
#include "app/app.h"
#include "recorder/recorder.h"
#include "rowsel.h"
#include "ui-local.h"

#define RP_SAVES	64	/* saves listed at most: the newest */
#define RP_TOP		6	/* rows above the lists: status, kernel, line, 3 of message */

struct prompt_recorder {
	int			sel;		/* over the conditions, then the saves */
	unsigned int		nconds;
	char			conds[RECORDER_MAX_CONDS][160];
	size_t			nsaves;
	struct recorder_save	saves[RP_SAVES];
	struct recorder_status	st;
	char			res[2048];	/* what the last Enter or key did */
	bool			res_err;
};

static void rp_refresh(struct ui *ui, struct prompt_recorder *rp)
{
	struct recorder *r = ui->app->rec;
	uint64_t after;

	rp->nconds = 0;
	rp->nsaves = 0;
	memset(&rp->st, 0, sizeof(rp->st));
	if (!r)
		return;
	recorder_status(r, &rp->st);
	while (rp->nconds < RECORDER_MAX_CONDS &&
	       recorder_cond_text(r, rp->nconds, rp->conds[rp->nconds], sizeof(rp->conds[0])))
		rp->nconds++;
	after = rp->st.saved + rp->st.failed > RP_SAVES ? rp->st.saved + rp->st.failed - RP_SAVES : 0;
	rp->nsaves = recorder_saves(r, after, rp->saves, RP_SAVES);
	rp->sel = (int)ui_rowsel_clamp(rp->sel, (long)(rp->nconds + rp->nsaves));
}

static int rp_open(struct ui *ui, struct prompt *pr)
{
	struct prompt_recorder *rp = pr->priv;

	if (!(app_flags(ui->app) & SOURCE_KERNEL)) {
		ui_message(ui, "recorder: the flight recorder watches a live session; this one is "
			   "a recording");
		return UI_REDRAW;
	}
	ui_line_init(&pr->line, RECORDER_COND_MAX - 1);
	rp->res[0] = '\0';
	rp_refresh(ui, rp);
	/* the newest save selected: Enter opens it */
	rp->sel = (int)ui_rowsel_clamp((long)(rp->nconds + rp->nsaves) - 1,
				       (long)(rp->nconds + rp->nsaves));
	return UI_HANDLED | UI_REDRAW;
}

/*
 * Open @path as ktop -i does, in this terminal: a ktop of its own, its own
 * process group in the foreground (so that Ctrl-C there is its), then the
 * view again. Tracing, the readers and the recorder go on meanwhile.
 */
static void rp_open_file(struct ui *ui, struct prompt_recorder *rp, const char *path)
{
	char exe[PATH_MAX];
	void (*ttou)(int);
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int status = 0;
	pid_t pid;

	if (n <= 0) {
		snprintf(rp->res, sizeof(rp->res), "cannot find ktop's own program: %s",
			 strerror(errno));
		rp->res_err = true;
		return;
	}
	exe[n] = '\0';
	ui_screen_leave(&ui->screen);
	pid = fork();
	if (pid == 0) {
		static const int dfl[] = { SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGPIPE, SIGTSTP,
					   SIGTTIN, SIGTTOU, SIGCHLD, SIGWINCH };
		sigset_t none;

		setpgid(0, 0);
		for (size_t i = 0; i < sizeof(dfl) / sizeof(dfl[0]); i++)
			signal(dfl[i], SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execl(exe, "ktop", "-i", path, (char *)NULL);
		_exit(127);
	}
	if (pid > 0) {
		setpgid(pid, pid);
		ttou = signal(SIGTTOU, SIG_IGN);
		tcsetpgrp(STDIN_FILENO, pid);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		tcsetpgrp(STDIN_FILENO, getpgrp());
		signal(SIGTTOU, ttou);
	}
	ui_screen_back(&ui->screen);
	ui->dirty = true;
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(rp->res, sizeof(rp->res), "ktop -i %s: %s", path, pid < 0 ?
			 strerror(errno) : WIFEXITED(status) ? "it could not open the file (exit "
			 "status 2 says why on its standard error)" : "it was killed");
		rp->res_err = true;
	} else {
		snprintf(rp->res, sizeof(rp->res), "back from %s", path);
		rp->res_err = false;
	}
}

static int rp_submit(struct ui *ui, struct prompt *pr, const char *line)
{
	struct prompt_recorder *rp = pr->priv;
	char err[2048];
	int ret;

	rp_refresh(ui, rp);
	if (!line[strspn(line, " \t")]) {
		/* nothing typed: Enter opens the selected save */
		int i = rp->sel - (int)rp->nconds;

		if (i < 0 || i >= (int)rp->nsaves) {
			snprintf(rp->res, sizeof(rp->res), "type a condition to arm, or select a save "
				 "to open");
			rp->res_err = true;
		} else if (rp->saves[i].err) {
			snprintf(rp->res, sizeof(rp->res), "save %llu was not written: %s",
				 (unsigned long long)rp->saves[i].id, rp->saves[i].msg);
			rp->res_err = true;
		} else {
			rp_open_file(ui, rp, rp->saves[i].path);
		}
		return UI_REDRAW;
	}
	if (pr->line.overflow) {
		snprintf(rp->res, sizeof(rp->res), "the condition is longer than %d bytes",
			 RECORDER_COND_MAX - 1);
		rp->res_err = true;
		return UI_REDRAW;
	}
	ret = app_recorder_add(ui->app, line, err, sizeof(err));
	rp->res_err = ret != 0;
	if (ret) {
		snprintf(rp->res, sizeof(rp->res), "%.2040s", err);
		return UI_REDRAW;
	}
	snprintf(rp->res, sizeof(rp->res), "armed: %.900s", line);
	ui_line_init(&pr->line, RECORDER_COND_MAX - 1);
	rp_refresh(ui, rp);
	return UI_REDRAW;
}

static int rp_key(struct ui *ui, struct prompt *pr, int ch)
{
	struct prompt_recorder *rp = pr->priv;
	struct recorder *r = ui->app->rec;
	bool changed;

	switch (ch) {
	case KEY_UP:
	case KEY_DOWN:
		rp_refresh(ui, rp);
		rp->sel = (int)ui_rowsel_clamp(rp->sel + (ch == KEY_UP ? -1 : 1),
					       (long)(rp->nconds + rp->nsaves));
		return UI_REDRAW;
	case UI_CTRL('t'):
		rp_refresh(ui, rp);
		if (!r) {
			snprintf(rp->res, sizeof(rp->res), "nothing armed yet: type a condition");
			rp->res_err = true;
			return UI_REDRAW;
		}
		recorder_arm(r, !rp->st.armed);
		snprintf(rp->res, sizeof(rp->res), "%s", rp->st.armed ? "disarmed: no new window "
			 "opens (one under way is still written)" : "armed");
		rp->res_err = false;
		rp_refresh(ui, rp);
		return UI_REDRAW;
	case UI_CTRL('d'):
		rp_refresh(ui, rp);
		if (!r || rp->sel < 0 || rp->sel >= (int)rp->nconds) {
			snprintf(rp->res, sizeof(rp->res), "select a condition to remove");
			rp->res_err = true;
			return UI_REDRAW;
		}
		snprintf(rp->res, sizeof(rp->res), "removed: %.900s", rp->conds[rp->sel]);
		rp->res_err = recorder_remove(r, (unsigned int)rp->sel) != 0;
		rp_refresh(ui, rp);
		return UI_REDRAW;
	}
	return ui_prompt_stay_key(ui, pr, ch, &changed);
}

static void rp_fmt_save(struct richstr *rs, const struct recorder_save *s, bool sel)
{
	char when[16] = "--:--:--";
	time_t t = (time_t)(s->match_wall_ns / 1000000000ull);
	struct tm tm;

	if (s->match_wall_ns) {
		localtime_r(&t, &tm);
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
	}
	richstr_clear(rs);
	richstr_add(rs, sel ? ROLE_SELECTED : ROLE_OVERLAY, sel ? "> " : "  ");
	richstr_addf(rs, ROLE_OVERLAY, "%4llu %s ", (unsigned long long)s->id, when);
	if (s->err) {
		richstr_addf(rs, ROLE_WARN, "refused  %s: %s", s->what, s->msg);
		return;
	}
	richstr_addf(rs, ROLE_OVERLAY, "%6.1f s %9llu ev  ", (double)(s->t1 - s->t0) / 1e9,
		     (unsigned long long)s->events);
	richstr_add(rs, ROLE_EVENT, s->path);
	richstr_addf(rs, ROLE_DIM, "  %s%s%s", s->what, s->msg[0] ? "; " : "", s->msg);
}

static void rp_draw(struct ui *ui, struct prompt *pr)
{
	static const struct richstr_key keys[] = {
		{ "Enter", " arm the line, or open the selected save  " }, { "Up/Down", " select  " },
		{ "^T", " disarm/arm  " }, { "^D", " remove  " }, { "Esc", " close" },
	};
	struct prompt_recorder *rp = pr->priv;
	int nc = rp->nconds ? (int)rp->nconds : 1, ns = rp->nsaves ? (int)rp->nsaves : 1;
	int h = RP_TOP + 1 + nc + 1 + ns + 1, w = ui->screen.cols, y, row, used;
	char line[512];
	struct richstr rs;

	rp_refresh(ui, rp);
	y = ui_overlay_bottom(&ui->screen, &h, w);
	richstr_clear(&rs);
	richstr_add(&rs, ROLE_COLHDR, "Flight recorder  ");
	if (ui->app->rec)
		richstr_add(&rs, ROLE_OVERLAY, ui_recorder_status(&rp->st, line, sizeof(line)));
	else
		richstr_add(&rs, ROLE_DIM, "nothing armed: type a condition (as --save-on takes "
			    "it) and press Enter");
	ui_overlay_row(&ui->screen, y, w, &rs);
	richstr_clear(&rs);
	richstr_add(&rs, ROLE_DIM, rp->st.kernel[0] ? rp->st.kernel :
		    "e.g. sched:sched_process_exec comm ~ \"pg*\"   timerlat > 100us   lost > 1000"
		    "   runq-p99 > 5ms   latency A -> B on f = g > 2ms");
	ui_overlay_row(&ui->screen, y + 1, w, &rs);
	ui_overlay_line(&ui->screen, y + 2, w, &pr->line);
	/* the last Enter's or key's word: an error has a caret line under its condition */
	row = y + 3;
	used = rp->res[0] ? ui_draw_wrapped(&ui->screen, row, 3, w,
					    rp->res_err ? ROLE_ERROR : ROLE_OK, rp->res) : 0;
	row += used > 1 ? used : 1;
	richstr_clear(&rs);
	richstr_add(&rs, ROLE_COLHDR, "   conditions armed");
	ui_overlay_row(&ui->screen, row++, w, &rs);
	for (int i = 0; i < nc && row < y + h - 1; i++) {
		richstr_clear(&rs);
		if (!rp->nconds) {
			richstr_add(&rs, ROLE_DIM, "  none");
		} else {
			richstr_add(&rs, i == rp->sel ? ROLE_SELECTED : ROLE_OVERLAY,
				    i == rp->sel ? "> " : "  ");
			richstr_add(&rs, rp->st.armed ? ROLE_OK : ROLE_DIM, rp->st.armed ? "on  " :
				    "off ");
			richstr_add(&rs, ROLE_OVERLAY, rp->conds[i]);
		}
		ui_overlay_row(&ui->screen, row++, w, &rs);
	}
	richstr_clear(&rs);
	richstr_add(&rs, ROLE_COLHDR, "      # matched  window   events  file");
	ui_overlay_row(&ui->screen, row++, w, &rs);
	for (int i = 0; i < ns && row < y + h - 1; i++) {
		if (!rp->nsaves) {
			richstr_clear(&rs);
			richstr_add(&rs, ROLE_DIM, "  no saves yet");
		} else {
			rp_fmt_save(&rs, &rp->saves[i], (int)rp->nconds + i == rp->sel);
		}
		ui_overlay_row(&ui->screen, row++, w, &rs);
	}
	richstr_clear(&rs);
	richstr_add_keys(&rs, keys, sizeof(keys) / sizeof(keys[0]), ROLE_OVERLAY);
	ui_overlay_row(&ui->screen, y + h - 1, w, &rs);
}

const struct prompt_ops prompt_recorder_ops = {
	.name		= "recorder",
	.priv_size	= sizeof(struct prompt_recorder),
	.open		= rp_open,
	.key		= rp_key,
	.draw		= rp_draw,
	.submit		= rp_submit,
};
