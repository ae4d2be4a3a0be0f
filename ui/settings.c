// SPDX-License-Identifier: GPL-2.0-or-later
/* The TUI's switches from the environment (settings.h), read once. */
#include <stdlib.h>
#include "settings.h"

static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

const struct ui_settings *ui_settings(void)
{
	static struct ui_settings s;
	static bool read;

	if (!read) {
		s.theme_dir = env("KTOP_THEME_DIR");
		s.filter_funcs = env("KTOP_FILTER_FUNCS");
		s.key_latency = env("KTOP_UI_KEY_LATENCY");
		s.no_color = env("NO_COLOR") != NULL;
		read = true;
	}
	return &s;
}
