/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The TUI's private types: the screen state, panes, the key table. Only ui/
 * includes this. Panes never act on the program themselves: their key
 * handlers return enum ui_result flags and the main loop acts.
 */
#ifndef KTOP_UI_LOCAL_H
#define KTOP_UI_LOCAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include "evnav.h"
#include "flags.h"
#include "format.h"
#include "richstr.h"
#include "stats.h"
#include "theme.h"

struct app;
struct ui;
struct pane;
struct prompt_filter;

/* What a key or a click asks for. The key table maps keys to these. */
enum ui_action {
	ACT_NONE,
	/* global */
	ACT_QUIT,
	ACT_HELP,
	ACT_THEME,
	ACT_SEARCH,
	ACT_FILTER,
	ACT_TREE,
	ACT_SORT,
	ACT_PAUSE,
	ACT_FASTER,
	ACT_SLOWER,
	ACT_NEXT_PANE,
	ACT_PREV_PANE,
	ACT_PANE,		/* + the number key's pane index */
	ACT_LOST,
	ACT_NARROW_PID,
	ACT_NARROW_COMM,
	ACT_NARROW_CPU,
	ACT_NARROW_CLEAR,
	ACT_ESC,
	ACT_REDRAW,
	/* within a pane */
	ACT_UP,
	ACT_DOWN,
	ACT_LEFT,
	ACT_RIGHT,
	ACT_PGUP,
	ACT_PGDN,
	ACT_HOME,
	ACT_END,
	ACT_ENTER,
	ACT_SEARCH_NEXT,
	ACT_SEARCH_PREV,
	ACT_JUMP_TIME,
	ACT_FREEZE,
	/* the filter prompt (prompt_filter.c) */
	ACT_FILTER_UNDO,
	ACT_FILTER_REDO,
	ACT_FILTER_TOGGLE,	/* a pane: add its selected function to the filter or remove it */
	/* pane-scoped (struct ui_key.pane): graph and latency panes */
	ACT_FOLD_TOGGLE,
	ACT_FOLD_CHILDREN,
	ACT_UNFOLD_CHILDREN,
	ACT_FOLD_ALL,
	ACT_UNFOLD_ALL,
	ACT_NEXT_SIBLING,
	ACT_PREV_SIBLING,
	ACT_PARENT,
	ACT_HOT_PATH,
	ACT_VIEW,
	ACT_PANE_SORT,
	ACT_HIST_MODE,
	ACT_JUMP_WORST,
	ACT_THRESHOLD,
	ACT_SAVE,		/* the save prompt (prompt_save.c) */
	ACT_SORT_PREV,		/* top view: the previous sort key */
	ACT_MARK,		/* event list: set or clear the time window's mark */
	ACT_SWITCH_TRACER,	/* latency: osnoise <-> timerlat, live */
	ACT_NR,
};

/* What a handler did: the main loop acts on these. */
enum ui_result {
	UI_HANDLED	= 1,
	UI_REDRAW	= 2,
	UI_QUIT		= 4,
	UI_RESIZE	= 8,	/* the layout changed: recompute */
};

/* Key table: the one source for dispatch, the help overlay and the man page test. */
struct ui_key {
	int		keys[8];	/* curses key codes, 0-terminated */
	const char	*label;		/* as shown in help and man/ktop.1 KEYS */
	const char	*help;
	enum ui_action	act;
	int		arg;
	const char	*group;
	int		pane;		/* 0: every pane; N: only in pane N (1-6), before the
					 * global keys; its action goes to that pane */
};

extern const struct ui_key ui_keys[];
extern const unsigned int ui_nkeys;

/* Return: the table entry bound to @ch, or NULL. */
const struct ui_key *ui_key_lookup(int ch);
/* Return: the entry bound to @ch in pane @pane (1-6) first, else the global one, or NULL. */
const struct ui_key *ui_key_lookup_in(int ch, int pane);

struct pane_ops {
	const char	*name;		/* tab label */
	int		(*init)(struct ui *ui, struct pane *p);
	void		(*destroy)(struct pane *p);
	/* Format the column header into @rs (NULL: the pane has none). */
	void		(*header)(struct ui *ui, struct pane *p, struct richstr *rs);
	/* Draw rows [y, y + h) of width @w. */
	void		(*draw)(struct ui *ui, struct pane *p, int y, int h, int w);
	int		(*key)(struct ui *ui, struct pane *p, enum ui_action act);
	/* A click at pane row @row (-1: the column header) and column @col. */
	int		(*click)(struct ui *ui, struct pane *p, int row, int col);
	/* Keys worth showing in the footer for this pane. */
	const char	*(*footer)(struct ui *ui, struct pane *p);
	/* Search for @needle, @dir -1 older / +1 newer. Return: enum ui_result. */
	int		(*search)(struct ui *ui, struct pane *p, const char *needle, int dir);
	/* Tree view (F5) fold/unfold. */
	int		(*fold)(struct ui *ui, struct pane *p, bool unfold);
	/* Every frame, for every pane, before the active one draws: read new data even
	 * when not shown (the latency pane's stop threshold). May be NULL. */
	void		(*update)(struct ui *ui, struct pane *p);
};

struct pane {
	const struct pane_ops	*ops;
	void			*priv;
	int			h;		/* rows of the last draw */
};

extern const struct pane_ops pane_cpus_ops;
extern const struct pane_ops pane_top_ops;
extern const struct pane_ops pane_events_ops;
extern const struct pane_ops pane_graph_ops;
extern const struct pane_ops pane_latency_ops;
extern const struct pane_ops pane_bpf_ops;

#define UI_NPANES	6

/* The event list: jump to "SECONDS[.frac]" or "-N" (N s before the newest). */
int pane_events_jump(struct ui *ui, struct pane *p, const char *spec);
/* The event list: show @cpu's events (-1: all) in [@t0, @t1], frozen at @t1. */
int pane_events_show(struct ui *ui, struct pane *p, int cpu, uint64_t t0, uint64_t t1);
/*
 * The event list's marked time window (v): [@t0, @t1] and, if @n is not NULL, how
 * many events the store holds in it. Return: false when no window is marked.
 */
bool pane_events_window(struct ui *ui, uint64_t *t0, uint64_t *t1, uint64_t *n);
/* The latency pane: "N" us stop threshold (0 or "off": none). */
int pane_latency_threshold(struct ui *ui, struct pane *p, const char *spec);
/* Search the event list for @needle from its selected row. */
int ui_search(struct ui *ui, int dir);

enum ui_modal {
	MODAL_NONE,
	MODAL_HELP,
	MODAL_THEME,
	MODAL_PROMPT,
	MODAL_FILTER,		/* the filter prompt (prompt_filter.c) */
};

enum ui_prompt_kind {
	PROMPT_SEARCH,
	PROMPT_JUMP,
	PROMPT_FILTER,
	PROMPT_PID,
	PROMPT_COMM,
	PROMPT_CPU,
	PROMPT_THRESHOLD,	/* latency pane: stop threshold */
	PROMPT_SAVE_SCOPE,	/* prompt_save.c: the marked window or everything? */
	PROMPT_SAVE,		/* prompt_save.c: the file name */
	PROMPT_SAVE_CONFIRM,	/* prompt_save.c: overwrite? */
};

/* The statistics helper reads new events in slices, at most this much a second. */
#define UI_INGEST_SLICE_NS	2000000ull
#define UI_INGEST_CAP_NS	250000000ull

#define UI_MIN_COLS	40
#define UI_MIN_ROWS	12

struct ui {
	struct app		*app;
	struct store		*st;
	struct ui_stats		stats;
	struct ui_theme		theme;
	char			*theme_names[32];
	int			nthemes;
	enum flags_style	fstyle;
	struct pane		panes[UI_NPANES];
	int			active;
	int			rows, cols;
	bool			color;		/* colours in use */
	bool			utf8;
	bool			term_ready;	/* curses initialised */
	int			refresh_ms;
	bool			paused;
	uint64_t		paused_appended;	/* store appended when paused */
	uint64_t		paused_ns;
	bool			show_lost;
	enum ui_sort		sort;
	enum ui_modal		modal;
	int			help_top;
	int			theme_sel;
	char			theme_before[64];
	bool			said_config_unsaved;	/* why ktop.conf was not written: said */
	enum ui_prompt_kind	prompt_kind;
	char			prompt_label[96];
	char			prompt_buf[128];
	int			prompt_len;
	char			search[128];
	struct prompt_filter	*filter;	/* the filter prompt's state, NULL until opened */
	char			message[256];
	uint64_t		message_until;
	/* header figures, refreshed by ui_tick */
	double			ev_rate;
	uint64_t		appended_prev;
	uint64_t		tick_ns;
	/* layout of the last frame, for the mouse */
	int			tabs_y, pane_y, pane_h, footer_y;
	int			tab_x[UI_NPANES + 1];
	/*
	 * Reading new events into ui->stats happens in a low-priority helper
	 * thread (ktop-ui-stats, no curses), so that the UI thread sleeps in
	 * poll() and wakes at once for a key however busy the kernel is. @lock
	 * guards @stats and @paused; the UI thread holds it while it handles a
	 * key, ticks or draws a frame.
	 */
	pthread_mutex_t		lock;
	pthread_cond_t		cond;
	pthread_t		ingest_thread;
	bool			ingest_running;
	bool			ingest_stop;
	uint64_t		ingest_ns_sec;	/* helper's time in the current second */
	/* measurements */
#define UI_KEY_LAT_MAX	1024
	uint64_t		key_lat[UI_KEY_LAT_MAX];	/* poll wake-up to frame sent, ns */
	unsigned int		nkey_lat;
	uint64_t		busy[UI_KEY_LAT_MAX];	/* > 2 ms away from poll(), ns */
	unsigned int		nbusy;
	uint64_t		frames;
	uint64_t		last_frame_ns;
	bool			dirty;
};

/* screen.c: terminal-independent set-up and the frame. */
int ui_init(struct ui *ui, struct app *a);
void ui_destroy(struct ui *ui);
/* After initscr/newterm: colours, keypad, mouse. */
void ui_term_setup(struct ui *ui);
/* Apply ui->theme to the colour pairs. */
void ui_theme_apply(struct ui *ui);
/* Read new events (unless paused) and draw a whole frame (wnoutrefresh + doupdate). */
void ui_frame(struct ui *ui, bool ingest);
/* Once a second: rates. */
void ui_tick(struct ui *ui, uint64_t now_ns);
/* One key (or KEY_MOUSE / KEY_RESIZE). Return: enum ui_result flags. */
int ui_handle_key(struct ui *ui, int ch);
void ui_message(struct ui *ui, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Drawing helpers for panes. */
void ui_draw_rs(struct ui *ui, int y, int x, const struct richstr *rs, int w);
void ui_draw_text(struct ui *ui, int y, int x, enum ui_role role, const char *s, int w);
void ui_fill_row(struct ui *ui, int y, enum ui_role role, int w);
/* Wrap @text into rows [y, y + h) with a left margin; return rows used. */
int ui_draw_wrapped(struct ui *ui, int y, int h, int w, enum ui_role role, const char *text);
/* Text for a pane whose feature belongs to another issue or is missing here. */
void ui_draw_unavailable(struct ui *ui, int y, int h, int w, const char *title,
			 const int *features, int nfeatures, const char *plan);

/*
 * prompt_filter.c: the filter prompt (F4, f) over src/filter.h and src/ftrace_filter.h.
 * Each returns enum ui_result flags, except draw and free.
 */
int prompt_filter_open(struct ui *ui);
/*
 * prompt_save.c: s saves the store, or the event list's marked window (src/app_snapshot.c
 * app_save); never overwrites unasked
 */
int prompt_save_open(struct ui *ui);
int prompt_save_submit(struct ui *ui);
int prompt_filter_key(struct ui *ui, int ch);
void prompt_filter_draw(struct ui *ui);
int prompt_filter_undo(struct ui *ui, bool redo);
/* Add function @name to set_ftrace_filter, or remove it when it is there. */
int prompt_filter_toggle(struct ui *ui, const char *name);
void prompt_filter_free(struct ui *ui);

/* help.c: the help overlay, generated from ui_keys[]. */
void ui_draw_help(struct ui *ui);
int ui_help_lines(void);

#endif
