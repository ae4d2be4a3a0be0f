/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The TUI entry point: the only way into ui/ from main(). */
#ifndef KTOP_UI_H
#define KTOP_UI_H

struct app;

/**
 * ui_run - run the interactive view until the user quits or a terminating
 * signal arrives.
 * Context: the main thread; the only thread that calls ncurses.
 * Return: the process exit status.
 */
int ui_run(struct app *a);

struct fleet;
/*
 * ui_run_fleet - ui_run() showing the fleet pane first, over @f's hosts
 * (ktop --pcp, --pcp-archive); @a holds no events (an empty store).
 */
int ui_run_fleet(struct app *a, struct fleet *f);

/*
 * ui_run_diff - ui_run() with the diff panes: @base (ktop -i BASE) against @a
 * (--diff NEW: a second recording, or the live session); both started.
 */
int ui_run_diff(struct app *a, struct app *base);

#endif
