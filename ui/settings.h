/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every tuning and test switch the TUI takes from the environment, in one
 * place and read once (man/ktop.1 ENVIRONMENT lists them for the user).
 * Nothing else in ui/ reads these variables.
 */
#ifndef KTOP_UI_SETTINGS_H
#define KTOP_UI_SETTINGS_H

#include <stdbool.h>

struct ui_settings {
	const char	*theme_dir;	/* KTOP_THEME_DIR: searched first for themes */
	const char	*filter_funcs;	/* KTOP_FILTER_FUNCS: a recorded available_filter_
					 * functions (plain or .gz) for the filter prompt's
					 * preview where the kernel refuses its own */
	const char	*key_latency;	/* KTOP_UI_KEY_LATENCY: a file that gets, on exit, the
					 * time from poll() waking to the frame sent, per key
					 * (bench/ui_latency.sh) */
	bool		no_color;	/* NO_COLOR set to anything: no colours */
};

/*
 * Return: the settings, read from the environment on the first call; an unset
 * or empty variable gives NULL (false).
 * Context: the UI thread.
 */
const struct ui_settings *ui_settings(void);

#endif
