// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The event list (ui/pane_events.c) without a terminal: its own draw and
 * search functions run against a store, and the few screen functions they
 * call are replaced below by ones that write into a text screen.
 *
 * A CPU's reader publishes a partly filled page up to 100 ms after the others
 * have published theirs, so events older than what the list shows can still
 * arrive. A search's match must stay on the page when they do.
 */
#include <stdlib.h>
#include "test.h"
#include "../../ui/richstr.c"
#include "../../ui/format.c"
#include "../../ui/evnav.c"
#include "../../ui/lineedit.c"
#include "../../ui/route.c"
#include "../../ui/prompt_view.c"
#include "../../ui/pane_events.c"
#include "app.h"
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

	CHECK(events_search(&ui, p, "sys_exit", -1) & UI_HANDLED);
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

TEST_MAIN()
