/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Turning the kernel's stack traces on for chosen events of a session
 * (--stack EVENT, -e EVENT:stack, -e EVENT:ustack), and off again.
 *
 * Kernel stacks: the `stacktrace` trigger on each chosen event of ktop's
 * instance (events/SYS/EVENT/trigger), so only those events pay for the
 * stack walk. Where the kernel refuses the trigger, the instance's
 * options/stacktrace records a stack after every event of the instance
 * instead (ktop keeps those of the chosen events: decode_ctx_stack_filter),
 * and says so. At the top level (tracers a kernel allows nowhere else)
 * only the option is used: the top level's saved state puts options back
 * on every exit path, a SIGKILL included, where a trigger would outlive it.
 *
 * User stacks: options/userstacktrace, which has no per-event switch: every
 * event of the session then carries a user stack record; ktop keeps those
 * of the events asked with :ustack.
 *
 * Removing: the triggers go with the instance (rmdir removes them), and
 * stacktrig_clear() removes them and the options before that, so even an
 * instance that cannot be removed stops recording stacks.
 */
#ifndef KTOP_STACKTRIG_H
#define KTOP_STACKTRIG_H

#include <stdbool.h>
#include <stddef.h>

#define STACKTRIG_KERN	1	/* the same bits as decode_ctx_want_stacks() */
#define STACKTRIG_USER	2

struct stacktrig_req {
	const char	*spec;		/* "sys:event", "sys", "event"; globs */
	unsigned int	parts;		/* STACKTRIG_KERN | STACKTRIG_USER */
};

struct stacktrig;

/**
 * stacktrig_set - stack traces for the enabled events of tracefs dir @dir
 * that @req names
 * @top: @dir is the top level: options, never triggers
 * @note: receives, when the kernel's stacks cost more than asked (the
 *	  options), a sentence saying what and why; "" otherwise
 * @err: receives the message for the user on failure
 *
 * Call it once the events are enabled (set_event lists them) and before
 * tracing starts: a trigger on a disabled event fires all the same.
 * Return: 0 and *@out (undo with stacktrig_clear, free with stacktrig_free),
 * or a negative errno (-ENOENT: a spec names no enabled event) with nothing
 * left changed.
 */
int stacktrig_set(struct stacktrig **out, const char *dir, bool top,
		  const struct stacktrig_req *req, unsigned int n, char *note, size_t notelen,
		  char *err, size_t errlen);

/**
 * stacktrig_add - stack traces for more events of the same directory, while
 * tracing goes on (the interactive view's "stacks for this event")
 *
 * As stacktrig_set(), adding to what @t set: a trigger per event asked, or
 * nothing when options/stacktrace is on already (every event has its stack).
 * On failure what this call set is taken back; what @t had stays.
 * Return: 0, or a negative errno with the message in @err.
 */
int stacktrig_add(struct stacktrig *t, bool top, const struct stacktrig_req *req, unsigned int n,
		  char *note, size_t notelen, char *err, size_t errlen);

/* Remove the triggers and put the options back to 0. Safe twice; accepts NULL. */
void stacktrig_clear(struct stacktrig *t);
void stacktrig_free(struct stacktrig *t);

/* Return: the number of trigger files set (the tests compare with the kernel's). */
unsigned int stacktrig_count(const struct stacktrig *t);
/* Return: true when options/stacktrace stands in for triggers. */
bool stacktrig_all_events(const struct stacktrig *t);

#endif
