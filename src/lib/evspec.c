// SPDX-License-Identifier: GPL-2.0-or-later
/* Event specifications (evspec.h). */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "evspec.h"

bool evspec_match(const char *spec, const char *system, const char *name)
{
	const char *colon = strchr(spec, ':');
	char sys[256];

	if (!colon)
		return !fnmatch(spec, system, 0) || !fnmatch(spec, name, 0);
	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - spec), spec);
	return !fnmatch(sys[0] ? sys : "*", system, 0) &&
	       !fnmatch(colon[1] ? colon + 1 : "*", name, 0);
}
