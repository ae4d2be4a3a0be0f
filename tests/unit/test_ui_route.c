// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Routing between panes and prompts (ui/route.c) without a terminal: the
 * event list, the BPF pane and the prompts run their own code against a
 * store decoded from a recorded fixture (host-sched: sched_switch records of
 * two CPUs), and write into a text screen. A pane asks another through a
 * typed request; these tests check that what arrives is what was meant, to
 * the nanosecond (a time passed as text would be rounded to microseconds), and
 * that unknown names change nothing.
 */
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <curses.h>
#include "test.h"

#include "app/app.h"
#include "bpfstats/bpfstats.h"
#include "snap_common.h"
#include "source/source.h"
#include "store/store.h"
#include "ui-local.h"
#include "panes/pane_events-local.h"
#include "text_screen.h"

static struct {
	struct app	app;
	struct ui	ui;
	struct bpfstats	*bpf;
} rig;

/* The source the BPF pane asks for its statistics: the fed ones. */
static struct bpfstats *rig_bpf(const struct source *s, const char **why)
{
	if (why)
		*why = "";
	return rig.bpf;
}

static const struct source_ops rig_ops = { .name = "test", .bpf = rig_bpf };
static struct source rig_src = { .ops = &rig_ops };

static bool rig_open(void)
{
	static const struct pane_ops *const panes[] = { &pane_events_ops, &pane_bpf_ops };
	static const struct prompt_ops *const prompts[] = {
		&prompt_search_ops, &prompt_jump_ops, &prompt_save_ops,
	};

	memset(&rig, 0, sizeof(rig));
	rig.app.st = snap_fixture_store("host-sched", NULL);
	rig.ui.app = &rig.app;
	rig.ui.st = rig.app.st;
	return rig.app.st && !ui_views_init(&rig.ui, panes, 2, prompts, 3);
}

static void rig_close(void)
{
	ui_views_destroy(&rig.ui);
	bpfstats_free(rig.bpf);
	store_free(rig.app.st);
}

/*
 * The BPF pane showing outlier @o, which came as a poll of the programs brings
 * it (a bpfstats fed, no kernel), selected: Enter on it.
 * Return: what the key did.
 */
static int bpf_enter_outlier(const struct bpfstats_outlier *o)
{
	struct bpfstats_raw_cpu cpu[2] = { 0 };
	struct bpfstats_outlier ol = *o;
	struct bpfstats_raw raw = {
		.mono_ns = 1000000000, .ncpus = 2, .nonline = 2, .mode = "tp_btf",
		.interval = 0.5, .cpu = cpu,
	};
	struct pane *p = ui_pane(&rig.ui, "bpf");

	if (bpfstats_new_fed(&rig.bpf, &raw, NULL))
		return 0;
	raw.outl = &ol;
	raw.noutl = 1;
	if (bpfstats_feed(rig.bpf, &raw))
		return 0;
	rig.app.src = &rig_src;
	text_screen_draw(&rig.ui, p);
	return p->ops->key(&rig.ui, p, ACT_ENTER);
}

static struct events_state *events(void)
{
	return ui_pane(&rig.ui, "events")->priv;
}

static void draw_events(void)
{
	text_screen_draw(&rig.ui, ui_pane(&rig.ui, "events"));
}

static void type(const char *s)
{
	for (; *s; s++)
		ui_prompt_key(&rig.ui, (unsigned char)*s);
}

/* The @k-th sched_switch of @cpu that switches a task in (not the idle task). */
static bool nth_switch(unsigned int cpu, uint64_t k, struct ktop_event *out)
{
	uint64_t first, end;

	store_cpu_range(rig.app.st, cpu, &first, &end);
	for (uint64_t seq = first; seq < end; seq++)
		if (!store_get(rig.app.st, cpu, seq, out) && out->type == KTOP_T_SCHED_SWITCH &&
		    out->nargs >= 6 && out->args[5] && !k--)
			return true;
	return false;
}

/* The middle one of them. */
static bool middle_switch(unsigned int cpu, struct ktop_event *out)
{
	uint64_t n = 0;

	while (nth_switch(cpu, n, out))
		n++;
	return n && nth_switch(cpu, n / 2, out);
}

/* A switch of @cpu with another CPU's events among the @rows events up to it. */
static bool busy_switch(unsigned int cpu, int rows, struct ktop_event *out)
{
	struct ui_evrow page[64];

	for (uint64_t k = 0; rows <= 64 && nth_switch(cpu, k, out); k++) {
		struct ui_evpos at = { out->ts, UINT64_MAX, UINT32_MAX };
		int n = ui_ev_read(rig.app.st, &at, -1, true, -1, page, rows);

		for (int i = 0; i < n; i++)
			if (page[i].ev.cpu != cpu)
				return true;
	}
	return false;
}

/* "SECONDS.MICROS" as the TIMESTAMP column and the title print a time. */
static const char *ts_text(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%llu.%06llu", (unsigned long long)((ns + 500) / 1000 / 1000000),
		 (unsigned long long)((ns + 500) / 1000 % 1000000));
	return buf;
}

TEST(bpf_outlier_shows_its_cpu_and_window_in_the_event_list)
{
	char want[128], b0[32], b1[32], cpu_tag[16];
	struct events_state *es;
	struct ktop_event sw;
	int rows = 0;

	CHECK(rig_open());
	/* where the other CPU was busy too: its events would be on the page */
	CHECK(busy_switch(1, SCR_ROWS - 2, &sw));
	CHECK(ui_show_pane(&rig.ui, "bpf") & UI_HANDLED);
	/* a search another pane did, and one the list did before: neither is this view's */
	snprintf(rig.ui.search, sizeof(rig.ui.search), "vfs_read");
	snprintf(events()->search, sizeof(events()->search), "sched_wakeup");

	/* the BPF program stamps the same switch a few microseconds apart */
	CHECK(bpf_enter_outlier(&(struct bpfstats_outlier){
		.seq = 1, .ts = sw.ts + 2345, .latency_ns = 41000, .pid = (uint32_t)sw.args[5],
		.cpu = sw.cpu,
	}) & UI_HANDLED);
	CHECK(ui_showing(&rig.ui, "events"));
	es = events();
	CHECK(es->only_cpu == (int)sw.cpu && !es->follow);
	/* to the nanosecond: nothing went through text */
	CHECK_EQ_U64(es->req_t1, sw.ts);
	CHECK_EQ_U64(es->req_t0, sw.ts - 41000);
	draw_events();
	snprintf(want, sizeof(want), "CPU %u, %s-%s", sw.cpu, ts_text(b0, sizeof(b0), sw.ts - 41000),
		 ts_text(b1, sizeof(b1), sw.ts));
	if (!strstr(scr[0], want))
		printf("  title \"%.150s\" lacks \"%s\"\n", scr[0], want);
	CHECK(strstr(scr[0], want) != NULL);
	CHECK(strstr(scr[0], "search") == NULL);
	/* only that CPU's events, up to the switch itself, which is selected */
	snprintf(cpu_tag, sizeof(cpu_tag), "[%03u]", sw.cpu);
	for (int r = 2; r < SCR_ROWS; r++) {
		if (scr[r][0] == ' ' && scr[r][1] == ' ' && !strchr(scr[r], ':'))
			continue;
		if (!strstr(scr[r], cpu_tag))
			printf("  row %d \"%.100s\" is not of CPU %u\n", r, scr[r], sw.cpu);
		CHECK(strstr(scr[r], cpu_tag) != NULL);
		rows++;
	}
	CHECK(rows > 1 && rows == es->n);
	CHECK(es->sel == es->n - 1);
	CHECK_EQ_U64(es->rows[es->sel].ev.ts, sw.ts);
	CHECK(es->rows[es->sel].ev.type == KTOP_T_SCHED_SWITCH);
	/* End: the live tail of every CPU again, without the window */
	CHECK(ui_pane(&rig.ui, "events")->ops->key(&rig.ui, ui_pane(&rig.ui, "events"), ACT_END));
	CHECK(es->follow && es->only_cpu == -1 && !es->req_t1);
	rig_close();
}

TEST(bpf_outlier_without_its_switch_shows_that_time)
{
	struct ktop_event sw, next;
	struct events_state *es;
	struct ui_evwalk w;
	struct ui_evrow r;
	uint64_t at;

	CHECK(rig_open());
	CHECK(middle_switch(0, &sw));
	CHECK(bpf_enter_outlier(&(struct bpfstats_outlier){
		.seq = 1, .ts = sw.ts, .latency_ns = 41000, .pid = 0x7ffffff0, .cpu = sw.cpu,
	}) & UI_HANDLED);
	CHECK(ui_showing(&rig.ui, "events"));
	CHECK(strstr(rig.ui.message, "no sched_switch to") != NULL);
	es = events();
	draw_events();
	CHECK(es->only_cpu == -1 && !es->follow && es->n > 0);
	/* the page ends at the last event at or before 100 us after the stamp */
	at = sw.ts + 100000;
	CHECK(es->rows[es->n - 1].ev.ts <= at);
	CHECK(!ui_evwalk_init(&w, rig.app.st, &(struct ui_evpos){ at, UINT64_MAX, UINT32_MAX },
			      1, false));
	if (ui_evwalk_next(&w, &r)) {
		next = r.ev;
		CHECK(next.ts > at);
	}
	ui_evwalk_destroy(&w);
	rig_close();
}

TEST(search_prompt_opens_submits_and_closes)
{
	struct prompt *search;
	struct events_state *es;
	struct richstr rs;

	CHECK(rig_open());
	search = ui_prompt(&rig.ui, "search");
	CHECK(search != NULL);
	ui_show_pane(&rig.ui, "events");
	CHECK(ui_prompt_open(&rig.ui, "search") & UI_HANDLED);
	CHECK(rig.ui.prompt == search);
	CHECK_STR(search->label, "search older events for:");
	type("sched_switch");
	CHECK_STR(search->line.text, "sched_switch");
	ui_prompt_key(&rig.ui, '\n');
	CHECK(rig.ui.prompt == NULL);
	CHECK_STR(rig.ui.search, "sched_switch");
	es = events();
	CHECK_STR(es->search, "sched_switch");
	CHECK(!es->follow && es->have_sel);
	draw_events();
	ui_fmt_event(&rs, rig.app.st, rig.ui.fstyle, &es->rows[es->sel].ev);
	CHECK(strstr(rs.ch, "sched_switch") != NULL);

	/* Esc: closed, nothing submitted */
	ui_prompt_open(&rig.ui, "search");
	type("zzz");
	ui_prompt_key(&rig.ui, 27);
	CHECK(rig.ui.prompt == NULL);
	CHECK_STR(rig.ui.search, "sched_switch");

	/* from a pane that cannot search, the event list searches */
	ui_show_pane(&rig.ui, "bpf");
	ui_prompt_open(&rig.ui, "search");
	type("sched_wakeup");
	ui_prompt_key(&rig.ui, KEY_ENTER);
	CHECK(ui_showing(&rig.ui, "events"));
	CHECK_STR(es->search, "sched_wakeup");
	rig_close();
}

TEST(jump_prompt_freezes_the_event_list_at_a_time)
{
	struct events_state *es;
	struct ktop_event sw;
	char t[32], t2[32];

	CHECK(rig_open());
	CHECK(middle_switch(1, &sw));
	ui_prompt_open(&rig.ui, "jump");
	type(ts_text(t, sizeof(t), sw.ts));
	ui_prompt_key(&rig.ui, '\r');
	CHECK(rig.ui.prompt == NULL);
	CHECK(ui_showing(&rig.ui, "events"));
	es = events();
	draw_events();
	CHECK(!es->follow && es->n > 0 && es->only_cpu == -1);
	CHECK_STR(ts_text(t, sizeof(t), es->rows[es->n - 1].ev.ts), ts_text(t2, sizeof(t2), sw.ts));
	CHECK(!strncmp(rig.ui.message, "at ", 3));
	/* not a time: said, and the list stays where it is */
	ui_show_pane(&rig.ui, "bpf");
	ui_prompt_open(&rig.ui, "jump");
	type("12x");
	ui_prompt_key(&rig.ui, '\n');
	CHECK(strstr(rig.ui.message, "not a time") != NULL);
	CHECK(ui_showing(&rig.ui, "bpf"));
	rig_close();
}

/* Issue 18: Ctrl-U in the save prompt clears the default name. */
TEST(save_prompt_clears_its_name_asks_before_overwriting)
{
	struct prompt *save;
	char path[] = "/tmp/ktop-test-route.XXXXXX", label[sizeof(save->label)], want[600];
	int fd = mkstemp(path);
	struct stat sb;

	CHECK(fd >= 0);
	CHECK(write(fd, "keep", 4) == 4);
	close(fd);
	CHECK(rig_open());
	save = ui_prompt(&rig.ui, "save");
	CHECK(ui_prompt_open(&rig.ui, "save") & UI_HANDLED);
	CHECK(rig.ui.prompt == save);
	CHECK(!strncmp(save->line.text, "ktop-", 5) && save->line.cursor == save->line.len);
	ui_prompt_key(&rig.ui, 'u' & 0x1f);
	CHECK_EQ_U64(save->line.len, 0);
	type(path);
	ui_prompt_key(&rig.ui, '\n');
	/* it exists: a second question, the same prompt */
	CHECK(rig.ui.prompt == save);
	snprintf(label, sizeof(label), "%.60s exists: overwrite? y or n (Enter: n)", path);
	CHECK_STR(save->label, label);
	/* one key answers (issue 31 #7) */
	type("n");
	CHECK(rig.ui.prompt == NULL);
	snprintf(want, sizeof(want), "not saved: %s exists", path);
	CHECK_STR(rig.ui.message, want);
	CHECK(!stat(path, &sb) && sb.st_size == 4);
	/* Esc at the name: nothing */
	rig.ui.message[0] = '\0';
	ui_prompt_open(&rig.ui, "save");
	ui_prompt_key(&rig.ui, 27);
	CHECK(rig.ui.prompt == NULL && !rig.ui.message[0]);
	unlink(path);
	rig_close();
}

TEST(unknown_names_and_requests_change_nothing)
{
	struct pane *shown;

	CHECK(rig_open());
	ui_show_pane(&rig.ui, "bpf");
	shown = rig.ui.active;
	CHECK(ui_pane(&rig.ui, "nosuch") == NULL && ui_pane(&rig.ui, NULL) == NULL);
	CHECK(ui_prompt(&rig.ui, "nosuch") == NULL);
	CHECK(ui_show_pane(&rig.ui, "nosuch") == 0);
	CHECK(ui_prompt_open(&rig.ui, "nosuch") == 0 && rig.ui.prompt == NULL);
	/* targets this UI does not have: the top view, the filter prompt */
	CHECK(ui_request(&rig.ui, &(struct ui_req){ .kind = UI_REQ_TOP }) == 0);
	CHECK(ui_request(&rig.ui, &(struct ui_req){ .kind = UI_REQ_FILTER_TOGGLE,
						    .filter.func = "vfs_read" }) == 0);
	CHECK(ui_request(&rig.ui, &(struct ui_req){ .kind = UI_REQ_NR }) == 0);
	CHECK(ui_req_target(UI_REQ_NR) == NULL);
	CHECK(rig.ui.active == shown);
	/* a pane gets only its own kinds */
	CHECK(pane_events_ops.request(&rig.ui, ui_pane(&rig.ui, "events"),
				      &(struct ui_req){ .kind = UI_REQ_LATENCY_STOP }) == 0);
	CHECK(ui_prompt_key(&rig.ui, 'x') == 0);	/* no prompt open */
	rig_close();
}

TEST(line_editor_edits_at_the_cursor)
{
	struct ui_line l;

	ui_line_init(&l, 8);
	for (const char *c = "abef"; *c; c++)
		CHECK(ui_line_key(&l, *c) == UI_LINE_CHANGED);
	CHECK(ui_line_key(&l, KEY_LEFT) == UI_LINE_MOVED);
	ui_line_key(&l, KEY_LEFT);
	ui_line_key(&l, 'c');
	ui_line_key(&l, 'd');
	CHECK_STR(l.text, "abcdef");
	ui_line_key(&l, KEY_BACKSPACE);
	ui_line_key(&l, 'u' & 0x1f);
	CHECK(l.len == 0 && l.cursor == 0);
	ui_line_set(&l, "abcdefgh");
	CHECK(!ui_line_insert(&l, "i", 1) && l.overflow && l.len == 8);
	ui_line_key(&l, KEY_HOME);
	ui_line_key(&l, KEY_DC);
	CHECK_STR(l.text, "bcdefgh");
	CHECK(!l.overflow);
	CHECK(ui_line_key(&l, KEY_F(1)) == 0);
	l.cursor = 3;
	CHECK(ui_line_replace(&l, 1, "XY"));
	CHECK_STR(l.text, "bXYefgh");
	CHECK(l.cursor == 3);
	CHECK(!ui_line_replace(&l, 0, "0123456789"));
	CHECK_STR(l.text, "bXYefgh");
}

TEST_MAIN()
