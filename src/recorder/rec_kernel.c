// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's stop at the match, for an event condition: a traceoff trigger
 * on the event in ktop's instance, "traceoff if FILTER" with the condition's
 * own filter (the kernel's grammar, as the store's). The kernel records the
 * matching event, then stops recording the instance in the same context
 * (traceoff is a post trigger: measured on this host, the event is in the
 * buffer, nothing after it), so what led to it stays in the ring buffer
 * however late user space reads. The recorder turns recording back on once
 * the window is in the store.
 *
 * Only in ktop's instance, never at the top level; the trigger goes with the
 * instance on every exit path (its rmdir removes it), and rec_kernel_trigger_clear()
 * takes it back before.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/file.h"
#include "recorder-local.h"

int rec_kernel_trigger_set(struct rec_watch *w, const char *instance_dir, char *why, size_t len)
{
	char path[sizeof(w->trigger_path)];
	int ret;

	w->trigger_path[0] = 0;
	if (snprintf(path, sizeof(path), "%s/events/%s/%s/trigger", instance_dir, w->c.system,
		     w->c.event) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	snprintf(w->trigger, sizeof(w->trigger), "traceoff%s%s", w->c.filter[0] ? " if " : "",
		 w->c.filter);
	/* not O_TRUNC: that would take the event's other triggers (--stack) with it */
	ret = file_write_str(path, w->trigger, 0);
	if (ret) {
		snprintf(why, len, "the kernel refused '%s' on %s:%s (%s)", w->trigger,
			 w->c.system, w->c.event, strerror(-ret));
		return ret;
	}
	snprintf(w->trigger_path, sizeof(w->trigger_path), "%s", path);
	return 0;
}

void rec_kernel_trigger_clear(struct rec_watch *w)
{
	if (!w->trigger_path[0])
		return;
	/* the kernel removes a traceoff trigger by its command, whatever its filter */
	file_write_str(w->trigger_path, "!traceoff", 0);
	w->trigger_path[0] = 0;
}
