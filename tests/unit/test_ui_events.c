// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The event list (ui/panes/pane_events.c) without a terminal: its draw and
 * search run against a store, on the text screen (text_screen.c).
 *
 * A CPU's reader publishes a partly filled page up to 100 ms after the others
 * have published theirs, so events older than what the list shows can still
 * arrive. A search's match must stay on the page when they do.
 */
#include <stdlib.h>
#include "test.h"
#include "app/app.h"
#include "store/store.h"
#include "ui-local.h"
#include "panes/pane_events-local.h"
#include "text_screen.h"

static void draw(struct ui *ui, struct pane *p)
{
	text_screen_clear();
	p->h = SCR_ROWS;
	p->ops->draw(ui, p, 0, SCR_ROWS, SCR_COLS);
}

/* Rows of events holding @needle (the title, which names the search, is left out). */
static int screen_count(const char *needle)
{
	int n = 0;

	for (int i = 2; i < SCR_ROWS; i++)
		n += strstr(scr[i], needle) != NULL;
	return n;
}

static void add(struct store *st, unsigned int cpu, uint64_t ts, uint16_t type, uint64_t nr)
{
	struct ktop_event ev = {
		.ts = ts, .cpu = cpu, .pid = 100 + (int32_t)cpu, .type = type,
		.nargs = type == KTOP_T_SYS_EXIT ? 2 : 7,
	};

	ev.args[0] = nr;
	ev.args[1] = 7;
	store_append(st, &ev);
}

TEST(search_match_stays_on_the_page_when_older_events_arrive)
{
	struct store *st = store_new(0, 2);
	static const struct pane_ops *const panes[] = { &pane_events_ops };
	struct app app = { 0 };
	static struct ui ui;
	const uint64_t t_match = 2000000;
	struct events_state *es;
	struct pane *p;

	CHECK(st);
	/* CPU 0: a syscall entry every 10 us, one exit among them */
	for (uint64_t i = 0; i < 400; i++)
		add(st, 0, 1000000 + i * 10000,
		    1000000 + i * 10000 == t_match ? KTOP_T_SYS_EXIT : KTOP_T_SYS_ENTER, 39);
	store_publish(st, 0);
	app.st = st;
	ui.app = &app;
	ui.st = st;
	CHECK(ui_views_init(&ui, panes, 1, NULL, 0) == 0);
	p = ui_pane(&ui, "events");
	CHECK(p != NULL);
	es = p->priv;
	draw(&ui, p);
	CHECK(es->follow && es->n == SCR_ROWS - 2);

	CHECK(p->ops->search(&ui, p, "sys_exit", -1) & UI_HANDLED);
	draw(&ui, p);
	CHECK_EQ_U64(screen_count("sys_exit"), 1);
	CHECK(es->sel >= 0 && es->rows[es->sel].ev.ts == t_match);

	/* CPU 1's page comes in later: 500 events between the match and the page's end */
	for (uint64_t i = 1; i <= 500; i++)
		add(st, 1, t_match + i * 300, KTOP_T_SYS_ENTER, 0);
	store_publish(st, 1);
	draw(&ui, p);
	if (screen_count("sys_exit") != 1)
		for (int r = 0; r < SCR_ROWS; r++)
			printf("  |%.120s\n", scr[r]);
	CHECK_EQ_U64(screen_count("sys_exit"), 1);
	CHECK(es->sel >= 0 && es->sel < es->n && es->rows[es->sel].ev.ts == t_match);
	CHECK(es->rows[es->sel].ev.type == KTOP_T_SYS_EXIT);

	ui_views_destroy(&ui);
	store_free(st);
}

/* @n syscall entries on each of @ncpus CPUs from @t, 1 us apart, the CPUs interleaved */
static void fill(struct store *st, unsigned int ncpus, uint64_t t, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		for (unsigned int c = 0; c < ncpus; c++)
			add(st, c, t + i * 1000 + c * 100, KTOP_T_SYS_ENTER, i % 300);
	for (unsigned int c = 0; c < ncpus; c++)
		store_publish(st, c);
}

/* Is row @i of the page the oldest event the store holds? */
static bool row_is_oldest(struct store *st, const struct events_state *es, int i)
{
	struct store_stats ss;

	store_get_stats(st, &ss);
	return i >= 0 && i < es->n && es->rows[i].ev.ts == ss.first_ts;
}

/*
 * g before the list was ever drawn (3 and g read together): the page is the
 * oldest events held, full, and the oldest is selected; not one row.
 */
TEST(home_before_the_first_draw_shows_a_full_page)
{
	static const struct pane_ops *const panes[] = { &pane_events_ops };
	struct store *st = store_new(0, 2);
	struct app app = { 0 };
	static struct ui ui;
	struct events_state *es;
	struct pane *p;

	CHECK(st);
	fill(st, 2, 1000000, 1000);
	app.st = st;
	ui.app = &app;
	ui.st = st;
	CHECK(ui_views_init(&ui, panes, 1, NULL, 0) == 0);
	p = ui_pane(&ui, "events");
	ui.active = p;
	es = p->priv;
	CHECK(p->h == 0);
	CHECK(p->ops->key(&ui, p, ACT_HOME) & UI_REDRAW);
	draw(&ui, p);
	CHECK_EQ_U64(es->n, SCR_ROWS - 2);
	CHECK(row_is_oldest(st, es, 0));
	CHECK_EQ_U64(es->sel, 0);
	CHECK(!es->follow);
	ui_views_destroy(&ui);
	store_free(st);
}

/*
 * Once eviction starts, g shows the oldest event still held, and a frozen page
 * whose events age out moves on to the oldest held: never "no events held
 * yet" over a store that holds events.
 */
TEST(home_and_a_frozen_page_follow_eviction)
{
	static const struct pane_ops *const panes[] = { &pane_events_ops };
	struct store *st = store_new(1u << 20, 2);
	struct store_stats ss;
	struct app app = { 0 };
	static struct ui ui;
	struct events_state *es;
	uint64_t t = 1000000;
	struct pane *p;

	CHECK(st);
	/* enough to evict: ~12 bytes an event against a 1 MiB limit */
	fill(st, 2, t, 200000);
	t += 200000 * 1000;
	store_get_stats(st, &ss);
	CHECK(ss.evicted > 0 && ss.events > 0);
	app.st = st;
	ui.app = &app;
	ui.st = st;
	CHECK(ui_views_init(&ui, panes, 1, NULL, 0) == 0);
	p = ui_pane(&ui, "events");
	ui.active = p;
	es = p->priv;
	draw(&ui, p);
	CHECK(es->follow && es->n == SCR_ROWS - 2);

	p->ops->key(&ui, p, ACT_HOME);
	draw(&ui, p);
	CHECK(!strstr(scr[0], "no events held"));
	CHECK_EQ_U64(es->n, SCR_ROWS - 2);
	CHECK(row_is_oldest(st, es, 0));
	CHECK_EQ_U64(es->sel, 0);

	/* what the page shows ages out */
	fill(st, 2, t, 200000);
	t += 200000 * 1000;
	draw(&ui, p);
	if (es->n != SCR_ROWS - 2)
		printf("  |%.120s\n", scr[0]);
	CHECK(!strstr(scr[0], "no events held"));
	CHECK_EQ_U64(es->n, SCR_ROWS - 2);
	CHECK(row_is_oldest(st, es, 0));
	CHECK_EQ_U64(es->sel, 0);
	CHECK(!es->follow);

	/* frozen in the middle of what is held, then all of it ages out */
	draw(&ui, p);
	for (int i = 0; i < 5; i++)
		p->ops->key(&ui, p, ACT_PGDN);
	draw(&ui, p);
	CHECK(!es->follow && !row_is_oldest(st, es, 0));
	fill(st, 2, t, 400000);
	draw(&ui, p);
	CHECK_EQ_U64(es->n, SCR_ROWS - 2);
	CHECK(row_is_oldest(st, es, 0));
	ui_views_destroy(&ui);
	store_free(st);
}

/* @n syscall returns of getpid (39) on CPU 0, 1 us apart from @t, each returning @ret */
static void fill_exits(struct store *st, uint64_t t, uint64_t n, uint64_t ret)
{
	for (uint64_t i = 0; i < n; i++) {
		struct ktop_event ev = {
			.ts = t + i * 1000, .cpu = 0, .pid = 100, .type = KTOP_T_SYS_EXIT,
			.nargs = 2, .args = { 39, ret },
		};

		store_append(st, &ev);
	}
	store_publish(st, 0);
}

/*
 * The events pane of the search cases, drawn, over @st filled with the match
 * ("getpid -> 123456" at 1 ms), then 2 M returns of 7. Return: the pane, or
 * NULL when the views do not start.
 */
static struct pane *search_pane(struct ui *ui, struct app *app, struct store *st)
{
	static const struct pane_ops *const panes[] = { &pane_events_ops };

	fill_exits(st, 1000000, 1, 123456);
	fill_exits(st, 2000000, 2000000, 7);
	app->st = st;
	ui->app = app;
	ui->st = st;
	if (ui_views_init(ui, panes, 1, NULL, 0))
		return NULL;
	ui->active = ui_pane(ui, "events");
	draw(ui, ui->active);
	return ui->active;
}

/*
 * A search that takes longer than its key goes on in slices (the pane's
 * work), saying how far it is; Esc stops it and the selection stays where it
 * was; n again lets it go on; run to its end it selects the oldest event,
 * the one match, 2 M events back.
 */
TEST(a_long_search_goes_on_in_slices_and_esc_stops_it)
{
	struct store *st = store_new(0, 1);
	struct app app = { 0 };
	static struct ui ui;
	struct events_state *es;
	struct ui_evpos was;
	struct pane *p;
	int slices = 0;

	CHECK(st);
	p = search_pane(&ui, &app, st);
	CHECK(p);
	es = p->priv;
	/* a row selected, the page frozen */
	p->ops->key(&ui, p, ACT_UP);
	p->ops->key(&ui, p, ACT_UP);
	draw(&ui, p);
	CHECK(!es->follow && es->have_sel);
	was = es->sel_pos;

	/* the key: a first slice, then the search goes on */
	CHECK(p->ops->search(&ui, p, "-> 123456", -1) & UI_HANDLED);
	CHECK(es->run != NULL);
	CHECK(ui.working);
	CHECK(strstr(ui.message, "searching older events for \"-> 123456\""));
	CHECK(strstr(ui.message, "Esc stops"));
	draw(&ui, p);
	CHECK(strstr(scr[0], "searching older"));
	CHECK(p->ops->work(&ui, p, 1000000));
	/* Esc: stopped, the selection and the page as they were */
	CHECK(p->ops->key(&ui, p, ACT_ESC) & UI_HANDLED);
	CHECK(es->run == NULL);
	CHECK(strstr(ui.message, "stopped"));
	CHECK(!p->ops->work(&ui, p, 1000000));
	draw(&ui, p);
	CHECK(!es->follow && es->have_sel);
	CHECK(!ui_evpos_cmp(&es->sel_pos, &was));

	/* n: it starts again, and runs to the oldest event */
	CHECK(p->ops->search(&ui, p, "-> 123456", -1) & UI_HANDLED);
	while (es->run && slices < 100000) {
		p->ops->work(&ui, p, 1000000);
		slices++;
	}
	CHECK(slices > 1);
	CHECK(es->run == NULL);
	draw(&ui, p);
	CHECK(es->have_sel && es->sel_pos.ts == 1000000);
	CHECK_EQ_U64(screen_count("getpid -> 123456"), 1);
	CHECK(strstr(ui.message, "found"));
	/* and n from there: no older match, after every event older than it (none) */
	CHECK(p->ops->search(&ui, p, "-> 123456", -1) & UI_HANDLED);
	while (es->run)
		p->ops->work(&ui, p, 1000000);
	CHECK(strstr(ui.message, "no older match"));
	CHECK(es->sel_pos.ts == 1000000);
	ui_views_destroy(&ui);
	store_free(st);
}

/*
 * Left and Right scroll the columns of a search that goes on and do not stop
 * it (they did: Right at once after the search's Enter, as one does to see
 * the fields it looks for, ended every search that took longer than its key);
 * it then ends on its own, slice after slice, on its match; Esc still stops.
 */
TEST(left_right_scroll_a_search_that_goes_on)
{
	struct store *st = store_new(0, 1);
	struct app app = { 0 };
	static struct ui ui;
	struct events_state *es;
	struct pane *p;
	int slices = 0;

	CHECK(st);
	p = search_pane(&ui, &app, st);
	CHECK(p);
	es = p->priv;

	CHECK(p->ops->search(&ui, p, "-> 123456", -1) & UI_HANDLED);
	CHECK(es->run != NULL && ui.working);
	for (int i = 0; i < 5; i++)
		CHECK(p->ops->key(&ui, p, ACT_RIGHT) & UI_HANDLED);
	CHECK(p->ops->key(&ui, p, ACT_LEFT) & UI_HANDLED);
	CHECK(es->run != NULL);
	CHECK_EQ_U64(es->hscroll, 32);
	CHECK(!strstr(ui.message, "stopped"));
	draw(&ui, p);
	CHECK(strstr(scr[0], "searching older"));
	/* no key: the slices take it to its match */
	while (es->run && slices < 100000) {
		p->ops->work(&ui, p, 1000000);
		slices++;
	}
	CHECK(slices > 1);
	CHECK(es->run == NULL);
	CHECK(strstr(ui.message, "\"-> 123456\": found"));
	draw(&ui, p);
	CHECK(es->have_sel && es->sel_pos.ts == 1000000);
	CHECK_EQ_U64(screen_count("getpid -> 123456"), 1);
	CHECK_EQ_U64(es->hscroll, 32);

	/* Esc, and any other key of the list, still stop it */
	CHECK(p->ops->search(&ui, p, "-> 99", 1) & UI_HANDLED);
	CHECK(es->run != NULL);
	CHECK(p->ops->key(&ui, p, ACT_RIGHT) & UI_HANDLED);
	CHECK(es->run != NULL);
	CHECK(p->ops->key(&ui, p, ACT_DOWN) & UI_HANDLED);
	CHECK(es->run == NULL);
	CHECK(strstr(ui.message, "stopped"));
	ui_views_destroy(&ui);
	store_free(st);
}

TEST_MAIN()
