/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A task's state at a switch-out (sched_switch's prev_state) as the kernel
 * prints it, "S", "D|K", "R", "R+", from the sched_switch format's own print
 * fmt: the __print_flags() table of letters, the mask it applies, and the bit
 * that adds "+" (TASK_REPORT_MAX: preempted while runnable, 0x100 on 6.x).
 * One function for every place that shows a state (the event list, the tasks
 * pane), so that a kernel whose bits move shows its own letters.
 */
#ifndef KTOP_TASKSTATE_H
#define KTOP_TASKSTATE_H

#include <stddef.h>
#include <stdint.h>

#define TASKSTATE_MAX_BITS	24

struct taskstate_fmt {
	uint64_t	mask;		/* the bits __print_flags() takes */
	uint64_t	plus;		/* the bits that add "+" (0: none) */
	unsigned int	n;
	struct {
		uint64_t	value;
		char		name[8];
	}		bits[TASKSTATE_MAX_BITS];
};

/* The table of Linux 4.14 to 6.18 (mask 0xff, "SDTtXZPI", "+" for 0x100). */
void taskstate_default(struct taskstate_fmt *f);

/**
 * taskstate_parse - the table of a sched_switch format
 * @text: the format file's text (or its "print fmt:" line)
 * @f: receives the table; the default table when the format has none
 * Return: 0, or -ENOENT (no prev_state __print_flags() table found; @f is the default).
 */
int taskstate_parse(const char *text, struct taskstate_fmt *f);

/**
 * taskstate_format - @state as the kernel's sched_switch prints prev_state
 * @f: a table (NULL: the default one)
 * Return: @buf ("R" when no bit of the mask is set; bits the table does not
 * name as "0x..", as libtraceevent's __print_flags() does; "+" for @f->plus).
 * Context: any thread.
 */
const char *taskstate_format(const struct taskstate_fmt *f, uint64_t state, char *buf,
			     size_t len);

#endif
