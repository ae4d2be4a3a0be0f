/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Colours named by role. A theme maps every role to a foreground, a
 * background and attributes; themes/NAME.theme files are plain text:
 *
 *	# comment
 *	role = FG BG [bold] [reverse] [underline] [dim]
 *
 * where FG/BG are black red green yellow blue magenta cyan white default,
 * bright<name>, or N/name (colour N of 256 where the terminal has it, else
 * name). No curses here: the screen's backend (curses.c) applies a theme to the
 * terminal.
 */
#ifndef KTOP_UI_THEME_H
#define KTOP_UI_THEME_H

#include <stdbool.h>
#include <stddef.h>

enum ui_role {
	ROLE_DEFAULT,
	ROLE_HEADER,		/* the status lines */
	ROLE_HEADER_VALUE,
	ROLE_TAB,
	ROLE_TAB_ACTIVE,
	ROLE_COLHDR,		/* column headers */
	ROLE_COLHDR_SORT,	/* the column the view is sorted by */
	ROLE_SELECTED,		/* the selected row */
	ROLE_DIM,
	ROLE_WARN,
	ROLE_ERROR,
	ROLE_OK,
	ROLE_PAUSED,
	ROLE_TASK,
	ROLE_PID,
	ROLE_CPU,
	ROLE_FLAGS,
	ROLE_TIME,
	ROLE_EVENT,
	ROLE_FIELD,
	ROLE_MATCH,		/* search hit */
	ROLE_BAR,		/* share bars */
	ROLE_FKEY,		/* footer key names */
	ROLE_FTEXT,		/* footer text */
	ROLE_OVERLAY,		/* help, theme chooser, prompts */
	ROLE_DUR_US,		/* function_graph duration markers + ! (> 10 us, > 100 us) */
	ROLE_DUR_MS,		/* # * (> 1 ms, > 10 ms) */
	ROLE_DUR_S,		/* @ $ (> 100 ms, > 1 s) */
	ROLE_WINDOW,		/* event list: the rows of the marked time window */
	/* stack frames (icicle, caller tree), by kernel subsystem or user module */
	ROLE_STK_KERNEL,	/* the kernel, where no subsystem below names it */
	ROLE_STK_SYSCALL,	/* system call entry */
	ROLE_STK_SCHED,		/* the scheduler */
	ROLE_STK_LOCK,		/* locks, futexes */
	ROLE_STK_TIME,		/* timers, sleeps */
	ROLE_STK_MM,		/* memory, page faults */
	ROLE_STK_FS,		/* files, pipes, poll */
	ROLE_STK_NET,		/* networking */
	ROLE_STK_BLOCK,		/* block devices */
	ROLE_STK_IRQ,		/* interrupts, softirqs */
	ROLE_STK_USER,		/* user frames of the program */
	ROLE_STK_LIB,		/* user frames of a shared library */
	ROLE_STK_UNKNOWN,	/* [unknown] frames */
	ROLE_DIFF_GROW,		/* --diff: a figure or frame that grew from BASE to NEW */
	ROLE_DIFF_SHRINK,	/* ... that shrank */
	ROLE_DIFF_SAME,		/* ... about the same (an icicle's frame) */
	ROLE_NR,
};

enum ui_attr {
	UI_A_BOLD	= 1,
	UI_A_REVERSE	= 2,
	UI_A_UNDERLINE	= 4,
	UI_A_DIM	= 8,
};

#define UI_COLOR_DEFAULT	(-1)

struct ui_style {
	short		fg, bg;		/* 0-255, or UI_COLOR_DEFAULT */
	short		fg8, bg8;	/* the same for terminals with fewer than 256 colours */
	unsigned int	attr;		/* enum ui_attr */
};

struct ui_theme {
	char		name[64];
	struct ui_style	style[ROLE_NR];
};

const char *ui_role_name(enum ui_role r);

/* Attributes used when the terminal has no colour (TERM=vt100, NO_COLOR). */
unsigned int ui_role_mono_attr(enum ui_role r);

/* The built-in default theme (used when no theme file can be found). */
void ui_theme_builtin(struct ui_theme *t);

/**
 * ui_theme_parse - parse theme text into @t (starting from the built-in default)
 * @err: receives "line N: what" on failure
 * Return: 0, or -EINVAL.
 */
int ui_theme_parse(struct ui_theme *t, const char *name, const char *text,
		   char *err, size_t errlen);

/**
 * ui_theme_load - find NAME.theme in the theme directories and parse it
 * Return: 0, -ENOENT when no such theme, -EINVAL when it does not parse.
 */
int ui_theme_load(struct ui_theme *t, const char *name, char *err, size_t errlen);

/**
 * ui_theme_list - names of the themes found (sorted, unique)
 * Return: how many were written to @names (each a malloc'd string the caller frees).
 */
int ui_theme_list(char **names, int max);

/* $XDG_CONFIG_HOME/ktop/ktop.conf (or ~/.config/...). Return: 0 or -errno. */
int ui_config_path(char *buf, size_t len);
/* Read "key = value" @key from the config file into @val. Return: 0 or -errno. */
int ui_config_get(const char *key, char *val, size_t len);
/**
 * ui_config_set - set @key in the config file, keeping its other lines
 * @why: on failure, what stopped it (e.g. "/home/u belongs to uid 1000 and
 *	 ktop runs as root": the directory is not trusted, see src/lib/safefile.h)
 *
 * The file is replaced with safefile_replace(), mode 0644.
 * Return: 0 or -errno (-EPERM: not written, the directory is not trusted).
 */
int ui_config_set(const char *key, const char *val, char *why, size_t whylen);

#endif
