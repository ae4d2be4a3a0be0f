// SPDX-License-Identifier: GPL-2.0-or-later
/* The statistics of the events a view filter keeps (stats_view.h). No curses here. */
#include "app/app.h"
#include "lib/clock.h"
#include "stats_view.h"
#include "store/store.h"
#include "tracer_feed.h"
#include "ui-local.h"

#define VIEW_LAG_NS	(300ull * 1000 * 1000)	/* a live feed ends this far behind now */
#define VIEW_FEED_NS	(20ull * 1000 * 1000)	/* feeding a frame, at most about */
#define SECOND_NS	1000000000ull

void ui_stats_view_drop(struct ui_stats_view *vs)
{
	if (vs->init)
		ui_stats_destroy(&vs->s);
	vs->init = false;
}

static struct viewfilter_pos stats_view_start(struct ui *ui, uint64_t horizon,
					      enum ui_stats_view_from from)
{
	if (from == UI_STATS_VIEW_LAST_SECOND && (app_flags(ui->app) & SOURCE_GROWS) &&
	    horizon > SECOND_NS)
		return (struct viewfilter_pos){ .ts = horizon - SECOND_NS };
	return VIEWFILTER_POS_START;
}

struct ui_stats *ui_stats_view_feed(struct ui *ui, struct ui_stats_view *vs,
				    struct viewfilter *vf, enum ui_stats_view_from from)
{
	uint64_t horizon = ui_feed_window_end(ui, VIEW_LAG_NS), c0 = clock_thread_ns(), n = 0;
	struct viewfilter_walk *w;
	struct ktop_event ev;
	uint64_t seq;

	if (!vs->init || vs->gen != ui_view_gen(ui)) {
		ui_stats_view_drop(vs);
		if (ui_stats_init(&vs->s, ui->st))
			return NULL;
		vs->s.fed = true;
		vs->init = true;
		vs->gen = ui_view_gen(ui);
		vs->pos = stats_view_start(ui, horizon, from);
		vs->caught_up = vs->was_caught_up = false;
		vs->tick_ns = clock_mono_ns();
	}
	if (ui->paused && vs->caught_up)
		return &vs->s;
	w = horizon ? viewfilter_walk_new(vf, &vs->pos, 1, false) : NULL;
	vs->caught_up = w != NULL;
	while (w && viewfilter_walk_next(w, &ev, &seq)) {
		if (ev.ts > horizon)
			break;
		ui_stats_count(&vs->s, &ev);
		vs->pos = (struct viewfilter_pos){ .ts = ev.ts, .seq = seq, .cpu = ev.cpu };
		if (!(++n & 1023) && clock_thread_ns() - c0 > VIEW_FEED_NS) {
			vs->caught_up = false;
			ui->dirty = true;
			break;
		}
	}
	viewfilter_walk_free(w);
	/* rates once a second, once a whole second was counted */
	if (clock_mono_ns() - vs->tick_ns >= SECOND_NS) {
		vs->s.span_ns = ui_rec_span(ui);
		ui_stats_tick(&vs->s, clock_mono_ns());
		vs->s.rates_valid = vs->was_caught_up;
		vs->was_caught_up = vs->caught_up;
		vs->tick_ns = clock_mono_ns();
	}
	return &vs->s;
}
