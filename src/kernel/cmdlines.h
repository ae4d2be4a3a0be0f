/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's saved_cmdlines as the last resort for a task's name.
 *
 * comm comes first from the events themselves (sched_switch, exec, wakeup:
 * see src/ingest/decode.c). A session that traces no scheduler events (-p function
 * -l FUNC, say) never sees those, so pids it met only in other events are
 * named from saved_cmdlines, which the kernel fills for every task that
 * wrote to a ring buffer.
 */
#ifndef KTOP_CMDLINES_H
#define KTOP_CMDLINES_H

struct store;

/**
 * cmdlines_fill - name the store's unnamed pids from saved_cmdlines
 * @tracefs: the tracefs mount point (saved_cmdlines lives at its top level)
 *
 * Only pids the store has no comm for are set; names from events win.
 * Context: any thread (store_set_comm is thread-safe).
 * Return: how many pids were named, or a negative errno when the file
 * cannot be read.
 */
int cmdlines_fill(struct store *st, const char *tracefs);

#endif
