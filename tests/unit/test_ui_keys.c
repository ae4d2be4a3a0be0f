// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The key table (ui/keys.c) is the one source of the key dispatch and the help
 * overlay; this test holds man/ktop.1's KEYS section to it, entry for entry,
 * and checks the table itself. No terminal: keys.c takes only key codes from
 * curses.h.
 */
#include <stdlib.h>
#include "test.h"

#include <curses.h>
#include "ui-local.h"

#include "ingest/fixture.h"

/* Undo the man escapes used in KEYS: "\-" and "\e". */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] == '-') {
			*d++ = '-';
			s++;
		} else if (s[0] == '\\' && s[1] == 'e') {
			*d++ = '\\';
			s++;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

TEST(man_keys_section_lists_the_key_table)
{
	char *man = fixture_read_file("man/ktop.1", NULL), *p, *end, *line, *save = NULL;
	char *lines[2048];
	unsigned int n = 0, k = 0;
	int bad = 0;

	CHECK(man != NULL);
	p = strstr(man, "\n.SH KEYS");
	CHECK(p != NULL);
	end = strstr(p + 1, "\n.SH ");
	if (end)
		*end = '\0';
	for (line = strtok_r(p, "\n", &save); line && n < 2048; line = strtok_r(NULL, "\n", &save))
		lines[n++] = line;
	/* a KEYS section longer than this would lose its last keys silently */
	CHECK(n < 2048);
	for (unsigned int i = 0; i + 2 < n; i++) {
		char label[128], help[256];
		size_t hl;

		if (strcmp(lines[i], ".TP") || strncmp(lines[i + 1], ".B ", 3))
			continue;
		snprintf(label, sizeof(label), "%s", lines[i + 1] + 3);
		snprintf(help, sizeof(help), "%s", lines[i + 2]);
		unescape(label);
		unescape(help);
		hl = strlen(help);
		if (hl && help[hl - 1] == '.')
			help[hl - 1] = '\0';
		if (k >= ui_nkeys) {
			printf("  man page has an extra key: %s\n", label);
			bad++;
			continue;
		}
		if (strcmp(label, ui_keys[k].label) || strcmp(help, ui_keys[k].help)) {
			printf("  entry %u: man \"%s\" / \"%s\", table \"%s\" / \"%s\"\n", k, label,
			       help, ui_keys[k].label, ui_keys[k].help);
			bad++;
		}
		k++;
	}
	if (k < ui_nkeys)
		printf("  man page lacks %u keys, first: %s\n", ui_nkeys - k, ui_keys[k].label);
	free(man);
	CHECK(bad == 0);
	CHECK_EQ_U64(k, ui_nkeys);
}

TEST(no_key_is_bound_twice)
{
	for (unsigned int i = 0; i < ui_nkeys; i++)
		for (unsigned int a = 0; a < 8 && ui_keys[i].keys[a]; a++)
			CHECK(ui_key_lookup_in(ui_keys[i].keys[a], ui_keys[i].pane) == &ui_keys[i]);
}

TEST(the_keys_the_issue_asks_for_are_bound)
{
	static const struct {
		int		key;
		enum ui_action	act;
	} want[] = {
		{ '\t', ACT_NEXT_PANE }, { KEY_BTAB, ACT_PREV_PANE }, { '3', ACT_PANE },
		{ KEY_UP, ACT_UP }, { 'k', ACT_UP }, { KEY_DOWN, ACT_DOWN }, { 'j', ACT_DOWN },
		{ 'h', ACT_LEFT }, { 'l', ACT_RIGHT }, { KEY_PPAGE, ACT_PGUP },
		{ KEY_NPAGE, ACT_PGDN }, { KEY_HOME, ACT_HOME }, { KEY_END, ACT_END },
		{ '\n', ACT_ENTER }, { KEY_F(1), ACT_HELP }, { '?', ACT_HELP },
		{ KEY_F(2), ACT_THEME }, { KEY_F(3), ACT_SEARCH }, { '/', ACT_SEARCH },
		{ 'n', ACT_SEARCH_NEXT }, { 'N', ACT_SEARCH_PREV }, { KEY_F(4), ACT_FILTER },
		{ 'f', ACT_FILTER },
		{ KEY_F(5), ACT_TREE }, { KEY_F(6), ACT_SORT }, { KEY_F(10), ACT_QUIT },
		{ 'q', ACT_QUIT }, { ' ', ACT_PAUSE }, { '+', ACT_SLOWER }, { '-', ACT_FASTER },
		/* issue 9: s saves; sorting on htop's keys */
		{ 's', ACT_SAVE }, { '>', ACT_SORT }, { '<', ACT_SORT_PREV },
		/* issue 18: view filters, narrowing from a row, widening back; the tasks pane */
		{ '\\', ACT_VIEW_PROMPT }, { 'V', ACT_VIEW_PROMPT }, { 'z', ACT_VIEW_TASK },
		{ 'Z', ACT_VIEW_TASK_KIDS }, { '#', ACT_VIEW_CPU }, { 'e', ACT_VIEW_EVENT },
		{ 'w', ACT_VIEW_WIDEN }, { 'W', ACT_VIEW_CLEAR }, { '7', ACT_PANE },
		/* issue 17: the stacks pane, from a row's stacks, stack traces on live */
		{ '8', ACT_PANE }, { 'y', ACT_STACK_CALLERS }, { 'i', ACT_STACK_ICICLE },
		{ 'Y', ACT_STACK_ON },
	};

	for (unsigned int i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct ui_key *k = ui_key_lookup(want[i].key);

		if (!k || k->act != want[i].act)
			printf("  key %d: %s\n", want[i].key, k ? k->label : "unbound");
		CHECK(k && k->act == want[i].act);
	}
	CHECK(ui_key_lookup('Q') == NULL);
	/* the tasks pane: Enter narrows, F5 its tree, F3 searches as everywhere */
	CHECK(ui_key_lookup_in('\n', "tasks")->act == ACT_ENTER);
	CHECK(ui_key_lookup_in(KEY_F(5), "tasks")->act == ACT_TREE);
	CHECK(ui_key_lookup_in(KEY_F(3), "tasks")->act == ACT_SEARCH);
	CHECK(ui_key_lookup_in('H', "tasks")->act == ACT_HIDE_SELF);
	/* the stacks pane: Enter lists or zooms, Backspace zooms out, the graph's folding keys */
	CHECK(ui_key_lookup_in('\n', "stacks")->act == ACT_ENTER);
	CHECK(ui_key_lookup_in(KEY_BACKSPACE, "stacks")->act == ACT_ZOOM_OUT);
	CHECK(ui_key_lookup_in(' ', "stacks")->act == ACT_FOLD_TOGGLE);
	CHECK(ui_key_lookup_in('C', "stacks")->act == ACT_FOLD_ALL);
	CHECK(ui_key_lookup_in('o', "stacks")->act == ACT_STACK_SOURCE);
	CHECK(ui_key_lookup_in('x', "stacks")->act == ACT_STACK_ALL);
	CHECK(ui_key_lookup_in(KEY_F(3), "stacks")->act == ACT_SEARCH);
	/* the diff panes: sorts, figures, tables; their stacks pane: views, sources, zoom */
	CHECK(ui_key_lookup_in(KEY_F(6), "diff")->act == ACT_PANE_SORT);
	CHECK(ui_key_lookup_in('<', "diff")->act == ACT_SORT_PREV);
	CHECK(ui_key_lookup_in('l', "diff")->act == ACT_RIGHT);
	CHECK(ui_key_lookup_in('v', "diff")->act == ACT_VIEW);
	CHECK(ui_key_lookup_in('s', "diff")->act == ACT_SAVE);
	CHECK(ui_key_lookup_in('v', "diff-stacks")->act == ACT_VIEW);
	CHECK(ui_key_lookup_in('o', "diff-stacks")->act == ACT_STACK_SOURCE);
	CHECK(ui_key_lookup_in(KEY_BACKSPACE, "diff-stacks")->act == ACT_ZOOM_OUT);
	CHECK(ui_key_lookup_in(KEY_DOWN, "diff-stacks")->act == ACT_DOWN);
}

/*
 * A pane's own key names one of the panes (ui/frame.c's table) by its name, or
 * a key set panes share (struct pane_ops.keyset: the diff panes').
 */
TEST(pane_keys_name_a_pane)
{
	static const char *const panes[] = { "cpus", "top", "events", "graph", "latency", "bpf",
					     "tasks", "stacks", "net", "fleet", "diff", "diff-stacks" };
	unsigned int scoped = 0;

	for (unsigned int i = 0; i < ui_nkeys; i++) {
		bool found = false;

		if (!ui_keys[i].pane)
			continue;
		scoped++;
		for (unsigned int j = 0; j < sizeof(panes) / sizeof(panes[0]); j++)
			found |= !strcmp(ui_keys[i].pane, panes[j]);
		if (!found)
			printf("  %s: no pane \"%s\"\n", ui_keys[i].label, ui_keys[i].pane);
		CHECK(found);
	}
	CHECK(scoped > 0);
}

/* s saves from every pane (no pane's own binding hides it); v marks a window in the event list */
TEST(s_saves_in_every_pane_and_v_marks_in_the_event_list)
{
	static const char *const panes[] = { "cpus", "top", "events", "graph", "latency", "bpf",
					     "tasks", "stacks", "net" };

	for (unsigned int i = 0; i < sizeof(panes) / sizeof(panes[0]); i++) {
		const char *pane = panes[i];
		const struct ui_key *k = ui_key_lookup_in('s', pane);

		if (!k || k->act != ACT_SAVE)
			printf("  pane %s: s is %s\n", pane, k ? k->label : "unbound");
		CHECK(k && k->act == ACT_SAVE);
		k = ui_key_lookup_in(KEY_F(6), pane);
		CHECK(k && (k->act == ACT_SORT || k->act == ACT_PANE_SORT));
		k = ui_key_lookup_in('>', pane);
		CHECK(k && (k->act == ACT_SORT || k->act == ACT_PANE_SORT));
	}
	CHECK(ui_key_lookup_in('v', "events") && ui_key_lookup_in('v', "events")->act == ACT_MARK);
	CHECK(ui_key_lookup('v') == NULL || ui_key_lookup('v')->act != ACT_MARK);
}

TEST_MAIN()
