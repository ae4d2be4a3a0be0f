/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Field expressions of a view filter, in the kernel's event filter grammar
 * (Documentation/trace/events.rst, "Event filtering"), evaluated on the
 * arguments the store holds:
 *
 *   expr := expr '||' expr | expr '&&' expr | '!' expr | '(' expr ')' | pred
 *   pred := FIELD OP VALUE
 *   OP   := '==' '!=' '<' '<=' '>' '>=' '&'    numbers ('&': any bit in common)
 *         | '==' '!=' '~'                       strings ('~': the kernel's glob)
 *
 * FIELD is a field of the event's format as the store keeps it (src/store/schema.h:
 * "prev_state", "next_comm", "args[1]"), or common_pid, common_flags,
 * common_preempt_count, and, as in libtraceevent, CPU (also cpu, common_cpu)
 * and COMM (also comm where the event has no such field: the task's name).
 * VALUE is a number (decimal, 0x hex, 0 octal, negative) or a string in
 * double or single quotes; a string field takes an unquoted word too.
 * Numbers compare signed for signed fields, unsigned otherwise, as the kernel
 * does. Symbol fields (function addresses, held as names) compare as strings.
 *
 * Over many event types at once, a predicate on a field an event does not
 * have is false for that event (libtraceevent's rule), so "prev_state & 2"
 * selects sched_switch events only; a field no known event has is an error.
 *
 * Why not libtraceevent's tep_filter_*: it evaluates raw ring-buffer records
 * through a tep handle. The store holds decoded columns, snapshots and streams
 * carry no raw records, and re-encoding each event to match it would cost
 * more than the match; this compiles the same grammar against the schema
 * once per event type and evaluates on the decoded slots (tests compare both
 * on recorded fixtures).
 */
#ifndef KTOP_VFEXPR_H
#define KTOP_VFEXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct store;
struct err_pos;

/* Is @name a field of some event the caller knows of (e.g. the session's formats)? */
typedef bool (*vfexpr_field_fn)(void *arg, const char *name);

struct vfexpr;

/**
 * vfexpr_parse - compile an expression
 * @st: the store whose schema and strings the events use; NULL: check the
 *	syntax only (nothing can be evaluated then)
 * @known: more field names to accept (types not in the schema yet: a live
 *	   session registers an event's type when its first record arrives); may be NULL
 * @err: the message and the byte offset in @text of the problem
 *
 * Return: 0 and *@out (free with vfexpr_free), -EINVAL with @err, or -ENOMEM.
 */
int vfexpr_parse(struct vfexpr **out, const char *text, struct store *st, vfexpr_field_fn known,
		 void *arg, struct err_pos *err);
void vfexpr_free(struct vfexpr *x);

struct ktop_schema_type;

/**
 * vfexpr_check_type - does every predicate of @x read a field of type @t (or a
 * common one), with an operator and value that fit it? For an expression
 * meant for one event (a flight recorder's condition), where vfexpr_parse()
 * accepts a field that any type has.
 * @text: the text @x was parsed from (for the message)
 * Return: 0, or -EINVAL with the message and the offset in @text in @err.
 */
int vfexpr_check_type(struct vfexpr *x, const char *text, const struct ktop_schema_type *t,
		      struct err_pos *err);

/* What an expression makes of all events of one type. */
enum vfexpr_verdict {
	VFX_FALSE,	/* none match (a field the type lacks, or a constant) */
	VFX_TRUE,	/* all match */
	VFX_EVAL,	/* evaluate each event */
};

/* Context (this and vfexpr_eval): one thread at a time; they cache per type and per string. */
enum vfexpr_verdict vfexpr_type(struct vfexpr *x, uint16_t type);

/* The parts of one event an expression reads. */
struct vfexpr_ev {
	const uint64_t	*args;
	uint64_t	ts;		/* read by the network clauses' joins only */
	int32_t		pid;
	uint16_t	cpu;
	uint16_t	type;
	uint8_t		flags;
	uint8_t		pc;
	uint8_t		nargs;
	/*
	 * The task's name at the event, where the caller knows it better than
	 * the store's comm table (the last name seen for the pid, which another
	 * CPU's reader may have set after this event: a fork decoded after the
	 * child's exec); NULL: the table's.
	 */
	const char	*comm;
};

/* Return: whether the event matches (any type; VFX_FALSE/TRUE types answer at once). */
bool vfexpr_eval(struct vfexpr *x, const struct vfexpr_ev *ev);

/* Does the expression read the task's name (COMM), the pid or the CPU? */
bool vfexpr_uses_common(const struct vfexpr *x);

#endif
