// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The help overlay (ui/prompts/help.c) without a terminal, drawn into a text screen
 * at several sizes: it covers the whole screen (nothing of the pane behind
 * shows through), every key's label and description is there in full,
 * wrapped at narrow widths, with a space between label and description, and
 * what does not fit scrolls to the end.
 */
#include <stdlib.h>
#include "test.h"

#include <curses.h>
#include "ui-local.h"
#include "prompts/help-local.h"

#define SCR_ROWS	60
#include "text_screen.h"

static struct ui ui;

/* a pane to be behind the overlay */
static const struct pane_ops pane_ops = { .name = "behind", .label = "Behind" };
static const struct pane_ops *const panes[] = { &pane_ops };

/* Draw at @cols x @rows over a screen full of 0x01 bytes, text no key or line has ('#' is a key). */
static void draw_at(int cols, int rows)
{
	text_screen_clear();
	for (int r = 0; r < SCR_ROWS; r++)
		memset(scr[r], '\x01', SCR_COLS);
	ui.screen.cols = cols;
	ui.screen.rows = rows;
	ui.prompt->ops->draw(&ui, ui.prompt);
}

/* Everything the overlay shows, page after page, as one text of words. */
static void all_text(int cols, int rows, char *out, size_t len)
{
	size_t n = 0;

	out[0] = '\0';
	ui_prompt_open(&ui, "help");
	for (int page = 0; page < 50 && n + 1 < len; page++) {
		struct help_state *hs = ui.prompt->priv;
		int top;

		draw_at(cols, rows);
		for (int r = 1; r < rows - 1 && n + 1 < len; r++) {
			char line[SCR_COLS + 1];
			int a = 1, b = cols - 1;

			/* inside the border */
			snprintf(line, sizeof(line), "%.*s", b - a, scr[r] + a);
			n += (size_t)snprintf(out + n, len - n, "%s\n", line);
		}
		top = hs->top;
		ui_prompt_key(&ui, KEY_NPAGE);
		if (hs->top == top)
			break;
	}
	if (ui.prompt)
		ui_prompt_close(&ui);
}

/* Does @text hold @words in order, whatever the spaces and line breaks between them? */
static bool has_words(const char *text, const char *words)
{
	char w[256];

	while (*words) {
		size_t k = strcspn(words, " ");
		const char *m;

		snprintf(w, sizeof(w), "%.*s", (int)k, words);
		m = strstr(text, w);
		if (!m)
			return false;
		text = m + k;
		words += k;
		while (*words == ' ')
			words++;
	}
	return true;
}

TEST(covers_the_screen_and_names_every_key_in_full)
{
	static const struct prompt_ops *const prompts[] = { &prompt_help_ops };
	static const int sizes[][2] = { { 200, 60 }, { 120, 40 }, { 80, 24 }, { 50, 20 } };
	static char text[200000];

	CHECK(ui_views_init(&ui, panes, 1, prompts, 1) == 0);
	for (unsigned int s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		int cols = sizes[s][0], rows = sizes[s][1];
		int shown = 0;

		ui_prompt_open(&ui, "help");
		CHECK(ui.prompt != NULL);
		draw_at(cols, rows);
		/* nothing of what was behind shows, and nothing is drawn outside */
		for (int r = 0; r < SCR_ROWS; r++)
			for (int c = 0; c < SCR_COLS; c++)
				if ((r < rows && c < cols) == (scr[r][c] == '\x01')) {
					if (!shown++)
						printf("  %dx%d: row %d col %d is '%c'\n", cols, rows,
						       r, c, scr[r][c]);
				}
		CHECK_EQ_U64(shown, 0);
		CHECK(strstr(scr[0], "ktop help") != NULL);
		CHECK(strstr(scr[rows - 1], "lines 1-") != NULL);
		ui_prompt_close(&ui);

		all_text(cols, rows, text, sizeof(text));
		for (unsigned int i = 0; i < ui_nkeys; i++) {
			char want[512];

			/* the label, at least one space, the whole description */
			snprintf(want, sizeof(want), "%s ", ui_keys[i].label);
			if (!strstr(text, want) || !has_words(strstr(text, want), ui_keys[i].help)) {
				printf("  %dx%d: \"%s\" \"%s\" not shown in full\n", cols, rows,
				       ui_keys[i].label, ui_keys[i].help);
				CHECK(false);
			}
		}
		CHECK(has_words(text, "Flags column (d.h1.) as the kernel prints it: see pane 1."));
	}
	ui_views_destroy(&ui);
}

TEST(scrolls_to_the_end_and_back)
{
	static const struct prompt_ops *const prompts[] = { &prompt_help_ops };
	struct help_state *hs;
	char want[64];

	CHECK(ui_views_init(&ui, panes, 1, prompts, 1) == 0);
	ui_prompt_open(&ui, "help");
	draw_at(80, 24);
	hs = ui.prompt->priv;
	CHECK(hs->nlines > hs->page && hs->page == 22);
	ui_prompt_key(&ui, KEY_END);
	draw_at(80, 24);
	CHECK_EQ_U64(hs->top, hs->nlines - hs->page);
	snprintf(want, sizeof(want), "lines %d-%d of %d", hs->top + 1, hs->nlines, hs->nlines);
	CHECK(strstr(scr[23], want) != NULL);
	CHECK(strstr(scr[22], "see pane 1") != NULL);
	/* a wider terminal after a resize: the end is still within reach */
	draw_at(200, 60);
	CHECK(hs->top <= hs->nlines - hs->page || hs->top == 0);
	ui_prompt_key(&ui, KEY_HOME);
	draw_at(80, 24);
	CHECK_EQ_U64(hs->top, 0);
	CHECK(strstr(scr[1], "Panes") != NULL);
	/* any other key closes it */
	ui_prompt_key(&ui, 'x');
	CHECK(ui.prompt == NULL);
	ui_views_destroy(&ui);
}

TEST_MAIN()
