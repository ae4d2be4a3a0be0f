// SPDX-License-Identifier: GPL-2.0-or-later
/* The name of an event format text (see evformat.h). */
#include <string.h>

#include "evformat.h"

bool evformat_name(const char *text, char *name, size_t len)
{
	const char *p;
	size_t n;

	if (len)
		name[0] = '\0';
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, "name: ", 6))
			continue;
		p += 6;
		n = strcspn(p, "\n");
		if (!n || n >= len)
			return false;
		memcpy(name, p, n);
		name[n] = '\0';
		return true;
	}
	return false;
}
