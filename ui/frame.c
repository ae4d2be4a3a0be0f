// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The frame: header, tabs, the active pane, the footer and the open prompt,
 * drawn on the screen (draw/screen.h) each frame. Key dispatch through
 * ui_keys[]: to the open prompt, else the keys every pane shares, else the
 * pane shown. The panes and prompts, in order. Only the UI thread calls
 * anything here.
 */
#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "app/app.h"
#include "lib/clock.h"
#include "kernel/features.h"
#include "store/store.h"
#include "lib/syscalls.h"
#include "ui-local.h"

/* The tabs, in order (the number keys pick them by place). */
static const struct pane_ops *const pane_table[] = {
	&pane_cpus_ops, &pane_top_ops, &pane_events_ops,
	&pane_graph_ops, &pane_latency_ops, &pane_bpf_ops, &pane_tasks_ops, &pane_stacks_ops,
	&pane_net_ops,
	&pane_fleet_ops,	/* key 0: last, whatever the others' number */
};

/* ktop -i BASE --diff NEW: the same tabs in the same places, BASE against NEW */
static const struct pane_ops *const diff_pane_table[] = {
	&pane_diff_cpus_ops, &pane_diff_top_ops, &pane_events_ops,
	&pane_diff_graph_ops, &pane_diff_latency_ops, &pane_diff_bpf_ops, &pane_diff_tasks_ops,
	&pane_diff_stacks_ops,
};

static const struct prompt_ops *const prompt_table[] = {
	&prompt_help_ops, &prompt_theme_ops, &prompt_search_ops, &prompt_jump_ops,
	&prompt_pid_ops, &prompt_comm_ops, &prompt_cpu_ops, &prompt_threshold_ops,
	&prompt_save_ops, &prompt_filter_ops, &prompt_view_ops, &prompt_probe_ops,
	&prompt_recorder_ops, &prompt_stackson_ops, &prompt_agg_ops,
};

#define NELEM(a)	((int)(sizeof(a) / sizeof((a)[0])))

/* A recording's (or a stream's, once its metadata came) flag style, the kernel's that wrote it. */
static void ui_fstyle_update(struct ui *ui)
{
	const struct snapshot_meta *m;

	if (ui->fstyle_meta || !ui->app || !(m = app_recording_meta(ui->app)))
		return;
	ui->fstyle = flags_style_of_meta(m);
	ui->fstyle_meta = true;
}

static int init_with(struct ui *ui, struct app *a, struct app *base)
{
	char name[64] = "", err[256];
	struct utsname un;
	int ret;

	memset(ui, 0, sizeof(*ui));
	pthread_mutex_init(&ui->lock, NULL);
	pthread_cond_init(&ui->cond, NULL);
	ui->app = a;
	ui->st = a->st;
	ui->refresh_ms = 250;
	ui->sort = UI_SORT_COUNT;
	ret = ui_stats_init(&ui->stats, a->st);
	if (ret)
		return ret;
	ui->stats.live_skip = app_flags(a) & SOURCE_GROWS;
	/* the kernel's syscall argument names, for the event list's raw_syscalls lines */
	syscall_args_dir(a->ft.tracefs);
	/* the flag letters of the kernel that wrote the events: a recording's own */
	ui->fstyle = flags_style_detect(uname(&un) ? NULL : un.release, false);
	ui_fstyle_update(ui);

	if (a->opts.theme && *a->opts.theme)
		snprintf(name, sizeof(name), "%s", a->opts.theme);
	else if (ui_config_get("theme", name, sizeof(name)))
		snprintf(name, sizeof(name), "default");
	if (ui_theme_load(&ui->theme, name, err, sizeof(err))) {
		ui_theme_builtin(&ui->theme);
		ui_message(ui, "theme: %s; using the built-in default", err);
	}
	ret = base ? ui_diff_start(ui, base) : 0;
	if (!ret && base)
		ret = ui_views_init(ui, diff_pane_table, NELEM(diff_pane_table), prompt_table,
				    NELEM(prompt_table));
	else if (!ret)
		ret = ui_views_init(ui, pane_table, NELEM(pane_table), prompt_table,
				    NELEM(prompt_table));
	if (ret) {
		ui_diff_stop(ui);
		ui_stats_destroy(&ui->stats);
		return ret;
	}
	/* the demo opens on its overview: the recording's busiest events and functions */
	if (a->opts.demo && !base)
		ui_show_pane(ui, "top");
	ui->tick_ns = clock_mono_ns();
	ui->dirty = true;
	return 0;
}

int ui_init(struct ui *ui, struct app *a)
{
	return init_with(ui, a, NULL);
}

int ui_init_diff(struct ui *ui, struct app *a, struct app *base)
{
	return init_with(ui, a, base);
}

void ui_destroy(struct ui *ui)
{
	ui_views_destroy(ui);
	ui_diff_stop(ui);
	ui_fgraph_free(ui);
	ui_stats_destroy(&ui->stats);
	pthread_cond_destroy(&ui->cond);
	pthread_mutex_destroy(&ui->lock);
}

void ui_theme_apply(struct ui *ui)
{
	ui_screen_theme(&ui->screen, &ui->theme);
	ui->dirty = true;
}

void ui_term_setup(struct ui *ui)
{
	ui_screen_setup(&ui->screen, &ui->theme);
	ui->dirty = true;
}

/* ---- header, tabs, footer ------------------------------------------------ */

static void join_events(const struct app *a, char *buf, size_t len)
{
	const char *const *ev;
	unsigned int nev = app_events(a, &ev);
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < nev && n + 2 < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? "," : "", ev[i]);
	if (!buf[0])
		snprintf(buf, len, "default");
}

/*
 * The header's "unavailable:" line, wrapped under its first word in at most
 * @max_lines lines (at 80 columns a whole line is cut otherwise), the last
 * ending with "..." when the text does not fit. Return: the lines drawn.
 */
static int draw_missing(struct ui *ui, int y, const char *text, int max_lines)
{
	static const char label[] = " unavailable: ";
	const int indent = (int)sizeof(label) - 1;
	int lines = 0, room = ui->screen.cols - indent;
	struct richstr rs;

	while (*text && lines < max_lines && room > 4) {
		int n = (int)strlen(text), cut = n;

		richstr_clear(&rs);
		if (lines)
			richstr_addf(&rs, ROLE_DIM, "%*s", indent, "");
		else
			richstr_add(&rs, ROLE_WARN, label);
		if (n > room && lines + 1 == max_lines) {
			/* the last line: whole words, then "..." */
			for (cut = room - 4; cut > 0 && text[cut] != ' '; cut--)
				;
			richstr_addn(&rs, ROLE_DIM, text, cut > 0 ? cut : room - 4);
			richstr_add(&rs, ROLE_DIM, " ...");
			cut = n;
		} else if (n > room) {
			/* after a reason ("; ") where one fits, else at a space */
			for (cut = room - 1; cut > 0 && strncmp(text + cut, "; ", 2); cut--)
				;
			cut = cut > 0 ? cut + 1 : richstr_wrap_len(text, n, room);
			richstr_addn(&rs, ROLE_DIM, text, cut);
		} else {
			richstr_add(&rs, ROLE_DIM, text);
		}
		ui_draw_rs(&ui->screen, y + lines++, 0, &rs, ui->screen.cols);
		text += cut;
		while (*text == ' ')
			text++;
	}
	return lines;
}

static int draw_header(struct ui *ui)
{
	const struct app *a = ui->app;
	char b1[32], b2[32], b3[32], ev[128], missing[512], filters[256];
	struct store_stats ss;
	struct richstr rs;
	uint64_t now = clock_mono_ns(), wt0, wt1, wn;
	const char *tracer;
	int y = 0;

	if (ui->fleet)
		return ui_fleet_header(ui);
	store_get_stats(ui->st, &ss);
	tracer = app_tracer(a);
	if (!*tracer)
		tracer = "nop";
	join_events(a, ev, sizeof(ev));

	richstr_clear(&rs);
	richstr_add(&rs, ROLE_HEADER_VALUE, " ktop ");
	richstr_addf(&rs, ROLE_HEADER, "tracer ");
	richstr_add(&rs, ROLE_HEADER_VALUE, tracer);
	richstr_add(&rs, ROLE_HEADER, "  events ");
	richstr_add(&rs, ROLE_HEADER_VALUE, ev);
	richstr_add(&rs, ROLE_HEADER, "  ");
	if (ui->paused) {
		richstr_addf(&rs, ROLE_PAUSED, " PAUSED +%s since ",
			     ui_fmt_count(b1, sizeof(b1), ss.appended - ui->paused_appended));
	} else {
		richstr_add(&rs, app_stream_state(a) == APP_STREAM_CUT ? ROLE_WARN :
			    ROLE_HEADER_VALUE, ui_source_word(ui));
	}
	{
		uint64_t span = ui_rec_span(ui);

		/* a recording: its own span of trace time, which does not tick */
		richstr_addf(&rs, ROLE_HEADER, "  %s  refresh %dms",
			     ui_fmt_elapsed(b2, sizeof(b2), span ? span :
					    now - (a->start_ns ? a->start_ns : now)),
			     ui->refresh_ms);
	}
	richstr_pad(&rs, ROLE_HEADER, ui->screen.cols);
	ui_draw_rs(&ui->screen, y++, 0, &rs, ui->screen.cols);

	richstr_clear(&rs);
	richstr_add(&rs, ROLE_HEADER, " events/s ");
	richstr_add(&rs, ROLE_HEADER_VALUE, ui_fmt_count(b1, sizeof(b1), (uint64_t)ui->ev_rate));
	richstr_add(&rs, ROLE_HEADER, "  held ");
	richstr_add(&rs, ROLE_HEADER_VALUE, ui_fmt_count(b1, sizeof(b1), ss.events));
	richstr_add(&rs, ROLE_HEADER, "  lost ");
	richstr_add(&rs, ss.lost ? ROLE_WARN : ROLE_HEADER_VALUE,
		    ui_fmt_count(b1, sizeof(b1), ss.lost));
	if (ss.lost_marks && !ss.lost)
		richstr_add(&rs, ROLE_WARN, "?");
	richstr_add(&rs, ROLE_HEADER, "  store ");
	ss.bytes += ss.lost_bytes + ss.tables;	/* all that counts against the limit */
	richstr_addf(&rs, ROLE_HEADER_VALUE, "%s/%s %d%%", ui_fmt_bytes(b2, sizeof(b2), ss.bytes),
		     ui_fmt_bytes(b3, sizeof(b3), ss.limit),
		     ss.limit ? (int)(100 * ss.bytes / ss.limit) : 0);
	if (ss.evicted)
		richstr_addf(&rs, ROLE_HEADER, " (%s evicted)",
			     ui_fmt_count(b1, sizeof(b1), ss.evicted));
	if (ui_window(ui, &wt0, &wt1, &wn)) {
		/* the event list's marked window, which s offers to save */
		richstr_add(&rs, ROLE_HEADER, "  window ");
		richstr_addf(&rs, ROLE_HEADER_VALUE, "%.6f s, %s events",
			     (double)(wt1 - wt0) / 1e9, ui_fmt_count(b1, sizeof(b1), wn));
	}
	/* last: the filters in effect may be long */
	richstr_add(&rs, ROLE_HEADER, "  filter ");
	richstr_add(&rs, ROLE_HEADER_VALUE, app_filter_desc(a, filters, sizeof(filters)));
	richstr_pad(&rs, ROLE_HEADER, ui->screen.cols);
	ui_draw_rs(&ui->screen, y++, 0, &rs, ui->screen.cols);
	/* --diff: the two sides, and what to know to read the figures */
	for (int line = 0; line < 2; line++) {
		if (!ui_diff_header(ui, line, &rs))
			continue;
		richstr_pad(&rs, ROLE_HEADER, ui->screen.cols);
		ui_draw_rs(&ui->screen, y++, 0, &rs, ui->screen.cols);
	}
	/* a stream that ended: when, after how many events, why */
	y += ui_stream_header(ui, y);
	/* the view filter, when one is set: what every pane shows of what is held */
	if (ui_view_header(ui, &rs)) {
		richstr_pad(&rs, ROLE_HEADER, ui->screen.cols);
		ui_draw_rs(&ui->screen, y++, 0, &rs, ui->screen.cols);
	}
	/* the flight recorder, when one runs (--save-on, or armed with R) */
	if (ui_recorder_header(ui, &rs)) {
		richstr_pad(&rs, ROLE_HEADER, ui->screen.cols);
		ui_draw_rs(&ui->screen, y++, 0, &rs, ui->screen.cols);
	}

	if (ui_unavailable_line(&a->ft, missing, sizeof(missing)) && ui->screen.rows >= 16)
		y += draw_missing(ui, y, missing, ui->screen.rows >= 20 ? 2 : 1);
	if (ui->show_lost) {
		richstr_clear(&rs);
		richstr_add(&rs, ROLE_HEADER, " lost per CPU:");
		for (unsigned int c = 0; c < ui->stats.ncpus; c++) {
			struct store_stats cs;
			const char *sep = " (";

			store_get_cpu_stats(ui->st, c, &cs);
			richstr_addf(&rs, cs.lost ? ROLE_WARN : ROLE_HEADER, " cpu%u %s", c,
				     ui_fmt_count(b1, sizeof(b1), cs.lost));
			/* why, the reasons that have some: they add up to the count */
			for (unsigned int w = 0; w < STORE_LOST_NR; w++) {
				if (!cs.lost_why[w])
					continue;
				richstr_addf(&rs, ROLE_HEADER, "%s%s %s", sep, store_lost_why_name(w),
					     ui_fmt_count(b1, sizeof(b1), cs.lost_why[w]));
				sep = ", ";
			}
			if (*sep == ',')
				richstr_add(&rs, ROLE_HEADER, ")");
		}
		richstr_pad(&rs, ROLE_HEADER, ui->screen.cols);
		ui_draw_rs(&ui->screen, y++, 0, &rs, ui->screen.cols);
	}
	return y;
}

/*
 * The tabs, " 1 CPUs " apart by a blank; where that does not fit (80
 * columns), without the blank between them, then as "1 CPUs ": every tab shows.
 */
static void draw_tabs(struct ui *ui, int y)
{
	struct richstr rs;
	int tight = 0;

	for (; tight < 2; tight++) {
		int len = 0;

		for (int i = 0; i < ui->npanes; i++)
			len += (int)strlen(ui->panes[i].ops->label) + 5 - tight;
		if (len <= ui->screen.cols)
			break;
	}
	richstr_clear(&rs);
	for (int i = 0; i < ui->npanes; i++) {
		ui->tab_x[i] = rs.len;
		richstr_addf(&rs, &ui->panes[i] == ui->active ? ROLE_TAB_ACTIVE : ROLE_TAB,
			     "%s%d %s ", tight == 2 ? "" : " ",
			     ui->panes[i].ops == &pane_fleet_ops ? 0 : i + 1,
			     ui->panes[i].ops->label);
		if (!tight)
			richstr_add(&rs, ROLE_TAB, " ");
	}
	ui->tab_x[ui->npanes] = rs.len;
	ui->tabs_y = y;
	ui_draw_rs(&ui->screen, y, 0, &rs, ui->screen.cols);
}

static void draw_footer(struct ui *ui, int y)
{
	static const struct richstr_key fk[] = {
		{ "F1", "Help " }, { "F2", "Theme " }, { "F3", "Search " }, { "F4", "Filter " },
		{ "F5", "Tree " }, { "F6", "Sort " }, { "Spc", "Pause " }, { "F10", "Quit " },
	};
	struct pane *p = ui->active;
	struct richstr rs;

	ui->footer_y = y;
	richstr_clear(&rs);
	if (ui->prompt && !ui->prompt->ops->draw) {
		/* a question: its label and the line being typed */
		richstr_add(&rs, ROLE_FKEY, ui->prompt->label);
		richstr_add(&rs, ROLE_DEFAULT, " ");
		ui_line_fmt(&rs, &ui->prompt->line, ROLE_DEFAULT, ui->screen.cols);
		ui_draw_rs(&ui->screen, y, 0, &rs, ui->screen.cols);
		return;
	}
	if (ui->message[0] && clock_mono_ns() < ui->message_until) {
		richstr_add(&rs, ROLE_WARN, ui->message);
		ui_draw_rs(&ui->screen, y, 0, &rs, ui->screen.cols);
		return;
	}
	richstr_add_keys(&rs, fk, NELEM(fk), ROLE_FTEXT);
	richstr_add(&rs, ROLE_FTEXT, p->ops->footer ? p->ops->footer(ui, p) :
		    p->ops->keys ? p->ops->keys : "");
	richstr_fit_words(&rs, ui->screen.cols);
	richstr_pad(&rs, ROLE_FTEXT, ui->screen.cols);
	ui_draw_rs(&ui->screen, y, 0, &rs, ui->screen.cols);
}

void ui_frame(struct ui *ui, bool ingest)
{
	uint64_t t0 = clock_mono_ns();
	struct pane *p;
	int y, ph;

	/*
	 * Clean before drawing, not after: what draws may do a slice of a longer
	 * job (the view's evaluation, the feeds) and set ui->dirty for the next
	 * frame to go on.
	 */
	ui->dirty = false;
	if (ingest && !ui->paused)
		ui_stats_ingest(&ui->stats, UI_INGEST_SLICE_NS, NULL);
	ui_screen_begin(&ui->screen);
	if (ui->screen.rows < UI_MIN_ROWS || ui->screen.cols < UI_MIN_COLS) {
		char buf[128];

		snprintf(buf, sizeof(buf), "ktop: the terminal is %dx%d; it needs at least %dx%d",
			 ui->screen.cols, ui->screen.rows, UI_MIN_COLS, UI_MIN_ROWS);
		ui_draw_wrapped(&ui->screen, 0, ui->screen.rows, ui->screen.cols + 4, ROLE_WARN,
				buf);
		goto out;
	}
	y = draw_header(ui);
	draw_tabs(ui, y++);
	ph = ui->screen.rows - 1 - y;
	ui->pane_y = y;
	ui->pane_h = ph;
	for (int i = 0; i < ui->npanes; i++) {
		/* every pane's page, for keys that come before it is first drawn */
		ui->panes[i].h = ph;
		if (ui->panes[i].ops->update)
			ui->panes[i].ops->update(ui, &ui->panes[i]);
	}
	p = ui->active;
	p->ops->draw(ui, p, y, ph, ui->screen.cols);
	draw_footer(ui, ui->screen.rows - 1);
	if (ui->prompt && ui->prompt->ops->draw)
		ui->prompt->ops->draw(ui, ui->prompt);
out:
	ui_screen_end(&ui->screen);
	ui->frames++;
	ui->last_frame_ns = clock_mono_ns() - t0;
}

void ui_tick(struct ui *ui, uint64_t now_ns)
{
	struct store_stats ss;
	double dt = (double)(now_ns - ui->tick_ns) / 1e9;
	uint64_t span = ui_rec_span(ui);

	if (dt <= 0)
		return;
	store_get_stats(ui->st, &ss);
	ui_fstyle_update(ui);
	ui->stats.span_ns = span;
	if (span)
		ui->ev_rate = (double)ss.appended / ((double)span / 1e9);
	else if (ss.appended >= ui->appended_prev)
		ui->ev_rate = (double)(ss.appended - ui->appended_prev) / dt;
	ui->appended_prev = ss.appended;
	ui->tick_ns = now_ns;
	if (!ui->paused)
		ui_stats_tick(&ui->stats, now_ns);
	ui_diff_tick(ui, now_ns);
	ui->dirty = true;
}

/* ---- keys ------------------------------------------------------------------ */

/* The keys that open a prompt, and its name. */
static const struct {
	enum ui_action	act;
	const char	*prompt;
} act_prompts[] = {
	{ ACT_HELP, "help" }, { ACT_THEME, "theme" }, { ACT_SEARCH, "search" },
	{ ACT_FILTER, "filter" }, { ACT_SAVE, "save" }, { ACT_JUMP_TIME, "jump" },
	{ ACT_NARROW_PID, "pid" }, { ACT_NARROW_COMM, "comm" }, { ACT_NARROW_CPU, "cpu" },
	{ ACT_VIEW_PROMPT, "view" }, { ACT_RECORDER, "recorder" },
};

/*
 * Show tab @i (0: the first). The number keys, Tab and a click on the tabs go
 * by place; everything else names the pane.
 */
static int show_tab(struct ui *ui, int i)
{
	if (i < 0 || i >= ui->npanes)
		return 0;
	ui->active = &ui->panes[i];
	return UI_REDRAW;
}

static int tab_of(const struct ui *ui)
{
	return (int)(ui->active - ui->panes);
}

static int mouse_event(struct ui *ui)
{
	struct pane *p = ui->active;
	enum ui_mouse m;
	int ret = 0, y, x;

	m = ui_screen_mouse(&y, &x);
	if (m == UI_MOUSE_NONE || ui->prompt)
		return 0;
	if (m == UI_MOUSE_WHEEL_UP || m == UI_MOUSE_WHEEL_DOWN) {
		enum ui_action act = m == UI_MOUSE_WHEEL_UP ? ACT_UP : ACT_DOWN;

		for (int i = 0; i < 3 && p->ops->key; i++)
			ret |= p->ops->key(ui, p, act);
		return ret | UI_REDRAW;
	}
	if (y == ui->tabs_y) {
		for (int i = 0; i < ui->npanes; i++)
			if (x >= ui->tab_x[i] && x < ui->tab_x[i + 1])
				show_tab(ui, i);
		return UI_REDRAW;
	}
	if (y >= ui->pane_y && y < ui->pane_y + ui->pane_h && p->ops->click)
		return p->ops->click(ui, p, y - ui->pane_y, x) | UI_REDRAW;
	return 0;
}

/* Return: @v times @num / @den, kept within [lo, hi]. */
static int scale_within(int v, int num, int den, int lo, int hi)
{
	v = v * num / den;
	return v < lo ? lo : v > hi ? hi : v;
}

/*
 * The keys every pane shares (but the pane's own keys go to the pane, and so
 * do the ones not handled here).
 * Return: true, and the enum ui_result in @ret, when the key was one of them.
 */
static bool common_key(struct ui *ui, const struct ui_key *k, int ch, int *ret)
{
	int n = ui->npanes;

	*ret = UI_REDRAW;
	switch (k->act) {
	case ACT_QUIT:
		*ret = UI_QUIT;
		break;
	case ACT_FILTER_UNDO:
	case ACT_FILTER_REDO:
		*ret |= ui_request(ui, &(struct ui_req){
			.kind = UI_REQ_FILTER_UNDO, .filter.redo = k->act == ACT_FILTER_REDO,
		});
		break;
	case ACT_TREE:
		ui_show_pane(ui, "graph");
		break;
	case ACT_SORT:
	case ACT_SORT_PREV:
		ui->sort = (enum ui_sort)((ui->sort + (k->act == ACT_SORT ? 1 : UI_SORT_NR - 1)) %
					  UI_SORT_NR);
		ui_show_pane(ui, "top");
		ui_message(ui, "top view sorted by %s", ui_sort_name(ui->sort));
		break;
	case ACT_PAUSE:
		ui_set_paused(ui, !ui->paused);
		break;
	case ACT_FASTER:
	case ACT_SLOWER:
		ui->refresh_ms = scale_within(ui->refresh_ms, k->act == ACT_SLOWER ? 3 : 2,
					      k->act == ACT_SLOWER ? 2 : 3, 50, 10000);
		ui_message(ui, "refresh every %d ms", ui->refresh_ms);
		break;
	case ACT_NEXT_PANE:
	case ACT_PREV_PANE:
		show_tab(ui, (tab_of(ui) + (k->act == ACT_NEXT_PANE ? 1 : n - 1)) % n);
		break;
	case ACT_PANE:
		if (ch == '0')
			ui_show_pane(ui, "fleet");
		else
			show_tab(ui, k->arg < 0 ? ch - '1' : k->arg);
		break;
	case ACT_LOST:
		ui->show_lost = !ui->show_lost;
		break;
	case ACT_NARROW_CLEAR:
		ui_stats_set_narrow(&ui->stats, &(struct ui_narrow){ .pid = -1, .cpu = -1 });
		ui_message(ui, "top view: all pids, comms and CPUs");
		break;
	case ACT_REDRAW:
		*ret |= UI_CLEAR;
		break;
	case ACT_VIEW_WIDEN:
	case ACT_VIEW_CLEAR:
		*ret |= ui_request(ui, &(struct ui_req){
			.kind = UI_REQ_WIDEN, .view.all = k->act == ACT_VIEW_CLEAR,
		});
		break;
	case ACT_SEARCH_NEXT:
	case ACT_SEARCH_PREV:
		*ret = ui_search(ui, k->act == ACT_SEARCH_NEXT ? -1 : 1);
		break;
	default:
		for (int i = 0; i < NELEM(act_prompts); i++) {
			if (act_prompts[i].act == k->act) {
				*ret = ui_prompt_open(ui, act_prompts[i].prompt);
				return true;
			}
		}
		return false;
	}
	return true;
}

int ui_handle_key(struct ui *ui, int ch)
{
	struct pane *p = ui->active;
	const struct ui_key *k;
	int ret;

	if (ch == KEY_MOUSE)
		return mouse_event(ui);
	if (ch == KEY_RESIZE)
		return UI_RESIZE | UI_REDRAW;
	if (ui->prompt)
		return ui_prompt_key(ui, ch);
	k = ui_key_lookup_in(ch, p->ops->keyset ? p->ops->keyset : p->ops->name);
	if (!k)
		return 0;
	/* a pane's own binding (ui_keys[].pane) goes to that pane only */
	if (!k->pane && common_key(ui, k, ch, &ret))
		return ret;
	ret = p->ops->key ? p->ops->key(ui, p, k->act) : 0;
	if (!ret && k->act == ACT_PROBE)	/* no row to probe: the prompt, empty */
		ret = ui_request(ui, &(struct ui_req){ .kind = UI_REQ_PROBE });
	if (!ret && k->act == ACT_FILTER_TOGGLE)
		ui_message(ui, "a: select a function in the top view first");
	if (!ret && (k->act == ACT_STACK_CALLERS || k->act == ACT_STACK_ICICLE)) {
		/* no row to take the stacks of here: the stacks pane as it is */
		ret = ui_show_pane(ui, "stacks");
	} else if (!ret && k->act == ACT_STACK_ON) {
		ui_message(ui, "Y: select an event in the event list (3) or the top view (2)");
		ret = UI_REDRAW;
	}
	if (!ret && k->act >= ACT_VIEW_TASK && k->act <= ACT_VIEW_EVENT) {
		ui_message(ui, "%s: no selected row with %s in this pane", k->label,
			   k->act == ACT_VIEW_CPU ? "a CPU" :
			   k->act == ACT_VIEW_EVENT ? "an event" : "a task");
		ret = UI_REDRAW;
	}
	return ret | (k->act == ACT_FILTER_TOGGLE ? UI_REDRAW : 0);
}
