/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Walking the store's events in time order across CPUs, forwards or backwards
 * from any position: the event list's scrolling, paging and search. Events are
 * ordered by (ts, cpu, seq). No curses here.
 */
#ifndef KTOP_UI_EVNAV_H
#define KTOP_UI_EVNAV_H

#include <stdbool.h>
#include <stdint.h>
#include "store/event.h"

struct store;
struct viewfilter;
struct viewfilter_walk;

struct ui_evpos {
	uint64_t	ts;
	uint64_t	seq;
	uint32_t	cpu;
};

/* After every event / before every event. */
#define UI_EVPOS_END	((struct ui_evpos){ UINT64_MAX, UINT64_MAX, UINT32_MAX })
#define UI_EVPOS_START	((struct ui_evpos){ 0, 0, 0 })

struct ui_evrow {
	struct ktop_event	ev;
	uint64_t		seq;
};

struct ui_evwalk {
	struct store		*st;
	unsigned int		ncpus;
	int			cpu;		/* only this CPU's events; -1: every CPU's */
	int			dir;		/* +1 newer, -1 older */
	uint64_t		*next;		/* per CPU: next seq (backwards: one past) */
	uint64_t		*first;
	struct ui_evrow		*head;
	bool			*have;
	/* per CPU, events read ahead in the walk's direction: reading one CPU's
	 * events in runs keeps the store's decoded-chunk cache warm */
	struct ui_evrow		*buf;
	uint16_t		*bn, *bi;
	/* under a view filter: its walk gives the events (@cpu still applies) */
	struct viewfilter_walk	*vw;
};

#define UI_EVWALK_BATCH	64

int ui_evpos_cmp(const struct ui_evpos *a, const struct ui_evpos *b);
struct ui_evpos ui_evpos_of(const struct ui_evrow *r);

/**
 * ui_evwalk_init - start a walk from @pos
 * @dir: +1 for events after @pos (newer), -1 for events before it (older)
 * @incl: include the event at @pos itself
 * Return: 0 or -ENOMEM. Free with ui_evwalk_destroy.
 */
int ui_evwalk_init(struct ui_evwalk *w, struct store *st, const struct ui_evpos *pos,
		   int dir, bool incl);
/* The same over @cpu's events only (-1: every CPU's). */
int ui_evwalk_init_cpu(struct ui_evwalk *w, struct store *st, const struct ui_evpos *pos,
		       int dir, bool incl, int cpu);
/* The same over the events @vf matches (NULL: every event). */
int ui_evwalk_init_view(struct ui_evwalk *w, struct store *st, struct viewfilter *vf,
			const struct ui_evpos *pos, int dir, bool incl, int cpu);
/* Return: true and the next event in the walk's direction; false at the end. */
bool ui_evwalk_next(struct ui_evwalk *w, struct ui_evrow *out);
void ui_evwalk_destroy(struct ui_evwalk *w);

/*
 * Up to @n events of @cpu (-1: every CPU) before @pos (@dir < 0) or after it,
 * @incl: including it, oldest first. Return: how many.
 */
int ui_ev_read(struct store *st, const struct ui_evpos *pos, int dir, bool incl, int cpu,
	       struct ui_evrow *out, int n);
/* The same over the events @vf matches (NULL: every event). */
int ui_ev_read_view(struct store *st, struct viewfilter *vf, const struct ui_evpos *pos,
		    int dir, bool incl, int cpu, struct ui_evrow *out, int n);
/* Up to @n events before @pos (@incl: including it), oldest first. Return: how many. */
int ui_ev_before(struct store *st, const struct ui_evpos *pos, bool incl,
		 struct ui_evrow *out, int n);
/* Up to @n events after @pos (@incl: including it), oldest first. Return: how many. */
int ui_ev_after(struct store *st, const struct ui_evpos *pos, bool incl,
		struct ui_evrow *out, int n);

/*
 * Return: how many events @st holds with @t0 <= ts <= @t1: the events an export of
 * the window [@t0, @t1] writes (src/formats/format.h). No walk: a seek per CPU.
 */
uint64_t ui_ev_count(struct store *st, uint64_t t0, uint64_t t1);
/* The same of the events @vf matches (NULL: every event), as an export under it writes. */
uint64_t ui_ev_count_view(struct store *st, struct viewfilter *vf, uint64_t t0, uint64_t t1);

#endif
