/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A text search over the event list's lines: does the line ui_fmt_event()
 * writes for an event hold a text? The predicate of the event list's search
 * (src/view/evsearch.h drives it over the store). No curses, no pane.
 */
#ifndef KTOP_UI_LINEMATCH_H
#define KTOP_UI_LINEMATCH_H

#include <stdbool.h>
#include <stddef.h>
#include "model/flags.h"
#include "draw/richstr.h"
#include "view/evsearch.h"

struct store;

#define LINEMATCH_MAX	127	/* longest text, as the search prompt takes */

struct lm_priv;

struct linematch {
	struct store		*st;
	enum flags_style	style;
	char			needle[LINEMATCH_MAX + 1];
	struct richstr		line;		/* scratch */
	struct lm_priv		*priv;		/* what the line's layout says (linematch.c) */
};

/*
 * linematch_init - a search for @needle (cut to LINEMATCH_MAX bytes) in the lines
 * of @st's events, as formatted in @style. Return: 0, or -EINVAL for "".
 */
int linematch_init(struct linematch *m, struct store *st, enum flags_style style,
		   const char *needle);
void linematch_destroy(struct linematch *m);

/*
 * Can the line of an event of @type (from task @pid) hold the text? False is
 * certain; true means "format it and see" (linematch_line). The store's
 * string table is read on the first call: strings interned later are not
 * known (a search forwards stops at the events published when it started).
 */
bool linematch_type_may(struct linematch *m, uint16_t type);
bool linematch_task_may(struct linematch *m, int32_t pid, uint16_t type);
/* Can the line of syscall event @ev (sys_enter, sys_exit) hold the text? */
bool linematch_sys_may(struct linematch *m, const struct ktop_event *ev);
/* Does the line of @ev hold the text? */
bool linematch_line(struct linematch *m, const struct ktop_event *ev);

/* The predicate, with a struct linematch as its argument. */
extern const struct evsearch_ops linematch_ops;

#endif
