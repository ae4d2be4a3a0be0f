// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ui/rowsel.c, the row selection of the graph and latency panes: movement
 * keys stay within the rows, the page follows the selection only as far as
 * it must, clicks on the header or below the rows select nothing.
 */
#include "test.h"
#include "ui-local.h"
#include "rowsel.h"

TEST(move_stays_within_the_rows)
{
	static const struct {
		long		sel, n;
		enum ui_action	act;
		long		want;
	} m[] = {
		{ 0, 10, ACT_UP, 0 },	{ 3, 10, ACT_UP, 2 },	{ 3, 10, ACT_DOWN, 4 },
		{ 9, 10, ACT_DOWN, 9 },	{ 3, 10, ACT_PGDN, 7 },	{ 7, 10, ACT_PGDN, 9 },
		{ 5, 10, ACT_PGUP, 1 },	{ 2, 10, ACT_PGUP, 0 },	{ 5, 10, ACT_HOME, 0 },
		{ 5, 10, ACT_END, 9 },
		/* one row: every key keeps it */
		{ 0, 1, ACT_DOWN, 0 },	{ 0, 1, ACT_END, 0 },
		/* not a movement: unchanged */
		{ 5, 10, ACT_FOLD_TOGGLE, 5 },
	};

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		long got = ui_rowsel_move(m[i].sel, m[i].n, 4, m[i].act);

		if (got != m[i].want)
			printf("move %zu: row %ld of %ld, action %d: %ld, not %ld\n", i, m[i].sel,
			       m[i].n, (int)m[i].act, got, m[i].want);
		CHECK(got == m[i].want);
	}
}

TEST(top_follows_the_selection_only_as_far_as_it_must)
{
	static const struct {
		long	sel, top, page, want;
	} t[] = {
		{ 5, 3, 4, 3 },		/* on the page: stays */
		{ 6, 3, 4, 3 },		/* last row of the page */
		{ 7, 3, 4, 4 },		/* one below: one down */
		{ 20, 3, 4, 17 },
		{ 2, 3, 4, 2 },		/* above: the selection at the top */
		{ 0, 9, 4, 0 },
		{ 20, 3, 0, 3 },	/* no page size: only upwards */
		{ 0, -2, 4, 0 },	/* never negative */
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		long got = ui_rowsel_top(t[i].sel, t[i].top, t[i].page);

		if (got != t[i].want)
			printf("top %zu: row %ld, top %ld, page %ld: %ld, not %ld\n", i, t[i].sel,
			       t[i].top, t[i].page, got, t[i].want);
		CHECK(got == t[i].want);
	}
}

TEST(click_selects_rows_only)
{
	CHECK(ui_rowsel_click(0, 0, 2, 10) == -1);	/* title */
	CHECK(ui_rowsel_click(0, 1, 2, 10) == -1);	/* column header */
	CHECK(ui_rowsel_click(0, 2, 2, 10) == 0);
	CHECK(ui_rowsel_click(5, 4, 2, 10) == 7);
	CHECK(ui_rowsel_click(5, 6, 2, 10) == 9);
	CHECK(ui_rowsel_click(5, 7, 2, 10) == -1);	/* below the last row */
}

TEST(mark_fills_the_width_as_selected)
{
	struct richstr rs;

	richstr_clear(&rs);
	richstr_add(&rs, ROLE_DIM, "ab");
	richstr_add(&rs, ROLE_EVENT, "cd");
	ui_rowsel_mark(&rs, 10);
	CHECK_EQ_U64(rs.len, 10);
	CHECK_STR(rs.ch, "abcd      ");
	for (int i = 0; i < rs.len; i++)
		CHECK(rs.role[i] == ROLE_SELECTED);
}

TEST_MAIN()
