/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The TUI's private types: the UI's state, panes and prompts, the requests
 * they send each other, the key table. Only ui/ includes this (and the UI's
 * unit tests).
 *
 * ui/ in layers (tests/layers.sh checks them as the build archives the UI
 * library; a breach fails the build):
 *   ui/draw/     the drawing library: the screen (draw/screen.h) and its
 *                backends (draw/backend.h: draw/curses.c, and the unit tests'
 *                text screen), rows of attributed text (richstr), themes, the
 *                line editor, row formatting. It knows no struct ui, no pane,
 *                no prompt.
 *   ui/          this header; the frame (frame.c: header, tabs, footer, keys,
 *                the tables of panes and prompts), routing (route.c), the key
 *                table (keys.c), and what panes share: the view and the
 *                marked window (view.c), the statistics (stats.c), the
 *                function_graph tree (graph_feed.c), walks over the store
 *                (evnav.c), feeds (tracer_feed.c), row selection (rowsel.c).
 *   ui/panes/    one file per pane, pane_NAME.c, with the helpers of panes.
 *   ui/prompts/  one file per prompt (a file may hold a family: prompt_line.c).
 * Panes and prompts include draw/ and ui/, never each other: each exports its
 * ops alone, and uses nothing another pane or prompt defines.
 *
 * Panes and prompts are objects with a vtable (struct pane_ops, struct
 * prompt_ops), found by name (ui_pane, ui_prompt). One that needs another asks
 * the UI with a typed request (ui_request), never by index or through text
 * for the other side to parse. Neither acts on the program itself: what
 * changes the kernel or the recording goes through src/app/app.h's actions (app_
 * switch_tracer, app_filter_apply, app_mark, app_set_recording). Key handlers
 * return enum ui_result flags, and only the main loop acts on those.
 *
 * Adding a pane ("net", tab label "Net"):
 *   1. ui/panes/pane_net.c: its state (priv_size bytes, zeroed; in
 *      pane_net-local.h if its tests read it), and a
 *      `const struct pane_ops pane_net_ops` with designated initialisers: name,
 *      label, draw, and what else it does (key, click, search, update, request,
 *      footer or keys, folded). Everything else in the file is static.
 *   2. Declare it below (extern const struct pane_ops pane_net_ops) and list it
 *      in frame.c's pane_table[], in tab order (the number keys go by place).
 *   3. Draw with draw/screen.h (ui_draw_rs of a row formatted off screen into a
 *      struct richstr, colours by role); read the store and the view
 *      (ui_view(), src/view/viewfilter.h); say on the footer with ui_message().
 *      A feature this kernel or run lacks: ui_draw_unavailable().
 *   4. Its keys: ui/keys.c, with .pane = "net" for its own (the help and
 *      man/ktop.1's KEYS list them: tests/unit/test_ui_keys.c holds them equal).
 *   5. To show another pane or prompt, or to be shown by one: a request (kind,
 *      arguments and target below and in route.c), never a call into it.
 *   6. A test: tests/unit/test_ui_net.c links the UI library on a text screen
 *      (tests/unit/text_screen.h): build the pane with ui_views_init(), draw it,
 *      send keys through its ops, read scr[][]. The TUI as a person uses it:
 *      tests/tui/ (tmux).
 * A prompt likewise: ui/prompts/, struct prompt_ops, frame.c's prompt_table[].
 */
#ifndef KTOP_UI_LOCAL_H
#define KTOP_UI_LOCAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include "model/flags.h"
#include "draw/lineedit.h"
#include "draw/richstr.h"
#include "draw/rowfmt.h"
#include "draw/screen.h"
#include "draw/theme.h"
#include "evnav.h"
#include "stats.h"

struct app;
struct ui;
struct pane;
struct prompt;
struct stack_set;

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
	ACT_PANE,		/* + the number key's tab (0: the first) */
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
	ACT_PROBE,		/* the probe prompt; a pane: on its selected row's function */
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
	/* the view filter (prompt_view.c): what every pane shows of what is held */
	ACT_VIEW_PROMPT,
	ACT_VIEW_TASK,		/* a pane: narrow to its selected row's task */
	ACT_VIEW_TASK_KIDS,	/* ... with its children and threads */
	ACT_VIEW_CPU,		/* ... its CPU */
	ACT_VIEW_EVENT,		/* ... its event */
	ACT_VIEW_WIDEN,
	ACT_VIEW_CLEAR,
	ACT_HIDE_SELF,		/* tasks pane: ktop's own threads shown or hidden */
	ACT_SORT_INVERT,	/* tasks pane: the sort order reversed */
	/* stacks (pane_stacks.c) */
	ACT_STACK_CALLERS,	/* a pane: the caller tree of its selected row */
	ACT_STACK_ICICLE,	/* ... its icicle */
	ACT_STACK_ON,		/* a pane: stack traces on for its selected row's event, live */
	ACT_STACK_SOURCE,	/* stacks pane: event stacks, off-CPU, function_graph */
	ACT_STACK_ALL,		/* stacks pane: every stack of the source (drop the scope) */
	ACT_ZOOM_OUT,		/* stacks pane: the icicle's zoom one frame out */
	ACT_RECORDER,		/* the flight recorder's prompt (prompt_recorder.c) */
	/* latency pane: the A->B latencies measured in the kernel (src/agg/agg.h) */
	ACT_AGG_SECTION,	/* the A->B latencies, or the osnoise/timerlat table */
	ACT_AGG_ADD,		/* the prompt: a new START -> END to measure, live */
	/* the network pane (pane_net.c) */
	ACT_NET_DROPS,		/* connections <-> drops */
	ACT_NET_CLOSED,		/* closed connections hidden or shown */
	ACT_NET_GROUP,		/* drops by reason and location, reason, location */
	ACT_NET_PROBE,		/* tcp:tcp_probe on or off, live */
	ACT_NR,
};

/* What a handler did: the main loop acts on these. */
enum ui_result {
	UI_HANDLED	= 1,
	UI_REDRAW	= 2,
	UI_QUIT		= 4,
	UI_RESIZE	= 8,	/* the layout changed: recompute */
	UI_CLEAR	= 16,	/* repaint the whole terminal (Ctrl-L) */
};

/* Key table: the one source for dispatch, the help overlay and the man page test. */
struct ui_key {
	int		keys[8];	/* curses key codes, 0-terminated */
	const char	*label;		/* as shown in help and man/ktop.1 KEYS */
	const char	*help;
	enum ui_action	act;
	int		arg;
	const char	*group;
	const char	*pane;		/* NULL: every pane; a pane's name: only there, before
					 * the global keys; its action goes to that pane */
};

extern const struct ui_key ui_keys[];
extern const unsigned int ui_nkeys;

/* Return: the table entry bound to @ch, or NULL. */
const struct ui_key *ui_key_lookup(int ch);
/* Return: the entry bound to @ch in the pane named @pane first, else the global one, or NULL. */
const struct ui_key *ui_key_lookup_in(int ch, const char *pane);

/*
 * ---- requests ----
 * What a pane or prompt asks of another, typed. ui_request() finds the target
 * by the name ui_req_target() gives for the kind and calls its request op; a
 * pane that handles it becomes the one shown. A new request: a kind here, its
 * arguments in the union, its target in route.c's table, and a case in the
 * target's request op. The caller tree of an event ("graph") or the probe
 * prompt on a function ("probe", a prompt whose request op opens it on that
 * name) fit as they are. Narrowing every pane goes to the view prompt, which
 * changes the view filter; the panes see its generation change (ui_view_gen).
 */
enum ui_req_kind {
	UI_REQ_EVENTS,		/* "events": a window, a time, a CPU, a search */
	UI_REQ_TOP,		/* "top": narrowed to a pid, comm or CPU */
	UI_REQ_LATENCY_STOP,	/* "latency": the stop threshold */
	UI_REQ_LATENCY_AGG,	/* "latency": show an A->B latency just made, or why not */
	UI_REQ_FILTER_TOGGLE,	/* "filter": a function into the kernel's filter, or out */
	UI_REQ_FILTER_UNDO,	/* "filter": undo (or redo) the last filter change */
	UI_REQ_PROBE,		/* "probe": the probe prompt, opened on a place */
	UI_REQ_NARROW,		/* "view": narrow every pane to a task, CPU or event */
	UI_REQ_WIDEN,		/* "view": drop the newest clause, or all */
	UI_REQ_STACKS,		/* "stacks": the caller tree or icicle of a row */
	UI_REQ_STACKS_ON,	/* "stackson": stack traces on for an event (live), then that */
	UI_REQ_NR,
};

/* Show the event list: one CPU's events or all, at a time or a window, a search. */
struct ui_events_req {
	bool		one_cpu;	/* only @cpu's events, until the list follows the tail */
	unsigned int	cpu;
	uint64_t	t0, t1;		/* a window (t1 > 0): the page ends at the newest event
					 * at or before @t1, which is selected; the title names
					 * [@t0, @t1] */
	uint64_t	at;		/* no window: the page ends at this time; 0: stays */
	const char	*search;	/* then search older events for this; NULL: none */
};

/* Show the top view narrowed. */
struct ui_top_req {
	const struct ui_narrow	*narrow;	/* NULL: as it is */
};

/* The latency pane's stop threshold. */
struct ui_latency_req {
	uint64_t	stop_ns;	/* freeze above this latency; 0: never */
	/* UI_REQ_LATENCY_AGG: the measure made (its index), or -1 and why not */
	int		agg_idx;
	const char	*agg_err;	/* the spec's error, lines with a caret */
};

/* The kernel's function filter, through the filter prompt. */
struct ui_filter_req {
	const char	*func;		/* UI_REQ_FILTER_TOGGLE: a function name */
	bool		redo;		/* UI_REQ_FILTER_UNDO: redo instead */
};

/*
 * The probe prompt, on what a pane's selected row names ("probe this"): a
 * function, or an event (a function event's function, an eprobe on a trace
 * event, one of ktop's probes' spec). Neither: the prompt opens empty.
 */
struct ui_probe_req {
	const char	*func;		/* a function as panes print it ("f+0x1a [mod]"), or NULL */
	bool		event;		/* else: an event of @type, @arg0 its first argument */
	uint16_t	type;
	uint64_t	arg0;
};

/*
 * The view filter (src/view/viewfilter.h), through the view prompt: a clause for a
 * row's task, CPU or event (UI_REQ_NARROW), or widen back (UI_REQ_WIDEN).
 */
enum ui_view_what {
	UI_VIEW_TASK,		/* @pid; @kids: with its children and threads */
	UI_VIEW_CPU,		/* @cpu */
	UI_VIEW_EVENT,		/* @type */
	UI_VIEW_CLAUSE,		/* @text, a clause in -F's syntax (the stacks pane's "stack:") */
};

struct ui_view_req {
	enum ui_view_what	what;
	int32_t			pid;
	bool			kids;
	unsigned int		cpu;
	uint16_t		type;
	bool			all;		/* UI_REQ_WIDEN: every clause */
	const char		*text;
};

/* The stacks pane's sources (its model: stackview.h). */
enum sv_source {
	SV_SRC_EVENTS,		/* the stacks of events (count: events) */
	SV_SRC_OFFCPU,		/* BPF off-CPU stacks (value: ns off CPU) */
	SV_SRC_GRAPH,		/* function_graph call paths (value: ns) */
	SV_SRC_NR,
};

/*
 * The stacks pane (pane_stacks.c): the caller tree or the icicle of a pane's
 * selected row: an event (its type's stacks, the event's own selected), an
 * event type, a function; of the event stacks, the BPF off-CPU stacks or the
 * function_graph paths. UI_REQ_STACKS_ON, the same to the stacks-on prompt
 * (prompt_stackson.c): it first asks for kernel stacks or kernel and user
 * stacks of @type's event from now on (live; app_stacks_add()), then shows
 * them; when the kernel refuses, it says what --stack would.
 */
struct ui_stacks_req {
	bool		icicle;		/* the icicle; false: the caller tree */
	enum sv_source	src;
	int32_t		type;		/* event stacks of this type; -1: every type */
	uint32_t	func;		/* event stacks through this function, function_graph
					 * paths ending in it (a string id); 0: none */
	uint32_t	stack;		/* select this stack's path (an event's); 0: none */
	int32_t		pid;		/* off-CPU stacks of this thread only; 0: every thread */
	const uint32_t	*path;		/* or this path, root first (string ids) */
	unsigned int	npath;
	const char	*what;		/* the title's words for the scope */
};

struct ui_req {
	enum ui_req_kind	kind;
	union {
		struct ui_events_req	events;
		struct ui_top_req	top;
		struct ui_latency_req	latency;
		struct ui_filter_req	filter;
		struct ui_probe_req	probe;
		struct ui_view_req	view;
		struct ui_stacks_req	stacks;
	};
};

/*
 * A pane: one tab. The UI allocates @priv_size zeroed bytes in p->priv before
 * init and frees them after destroy; init (0, or -1 on failure) and destroy do
 * what else the pane needs (NULL: nothing). key, click, search and request
 * return enum ui_result flags.
 */
struct pane_ops {
	const char	*name;		/* what ui_pane() and requests find it by: "events" */
	const char	*label;		/* tab label: "Events" */
	/* the pane-scoped keys it takes (ui_keys[].pane); NULL: those of its name */
	const char	*keyset;
	size_t		priv_size;
	int		(*init)(struct ui *ui, struct pane *p);
	void		(*destroy)(struct pane *p);
	/* Draw rows [y, y + h) of width @w. */
	void		(*draw)(struct ui *ui, struct pane *p, int y, int h, int w);
	int		(*key)(struct ui *ui, struct pane *p, enum ui_action act);
	/* A click at pane row @row (-1: the column header) and column @col. */
	int		(*click)(struct ui *ui, struct pane *p, int row, int col);
	/* Keys worth showing in the footer for this pane: @keys, or what @footer
	 * says where they depend on the pane's state. */
	const char	*keys;
	const char	*(*footer)(struct ui *ui, struct pane *p);
	/* Search for @needle, @dir -1 older / +1 newer. */
	int		(*search)(struct ui *ui, struct pane *p, const char *needle, int dir);
	/* Work a key left to go on in slices (a long search): do about @budget_ns of
	 * it. Return: true while some is left. May be NULL. */
	bool		(*work)(struct ui *ui, struct pane *p, uint64_t budget_ns);
	/* Every frame, for every pane, before the active one draws: read new data even
	 * when not shown (the latency pane's stop threshold). May be NULL. */
	void		(*update)(struct ui *ui, struct pane *p);
	/* A typed request: UI_HANDLED when done (the UI then shows the pane), 0 when
	 * the pane does not take this kind. */
	int		(*request)(struct ui *ui, struct pane *p, const struct ui_req *r);
	/* The stacks it shows, for the save prompt's .folded: a copy in @out (free with
	 * stack_set_free), @value: widths are ns (else counts), @what: their words.
	 * Return: false when it shows none. May be NULL. */
	bool		(*folded)(struct ui *ui, struct pane *p, struct stack_set *out,
				  bool *value, char *what, size_t len);
};

struct pane {
	const struct pane_ops	*ops;
	void			*priv;
	int			h;		/* rows of the last frame's pane area */
};

extern const struct pane_ops pane_cpus_ops;
extern const struct pane_ops pane_top_ops;
extern const struct pane_ops pane_events_ops;
extern const struct pane_ops pane_graph_ops;
extern const struct pane_ops pane_latency_ops;
extern const struct pane_ops pane_bpf_ops;
extern const struct pane_ops pane_tasks_ops;
extern const struct pane_ops pane_net_ops;
extern const struct pane_ops pane_stacks_ops;
extern const struct pane_ops pane_fleet_ops;
/* --diff (panes/pane_diff.c, pane_diff_stacks.c): the tables of BASE against NEW; the
 * event list stays (NEW's events) */
extern const struct pane_ops pane_diff_cpus_ops;
extern const struct pane_ops pane_diff_top_ops;
extern const struct pane_ops pane_diff_graph_ops;
extern const struct pane_ops pane_diff_latency_ops;
extern const struct pane_ops pane_diff_bpf_ops;
extern const struct pane_ops pane_diff_tasks_ops;
extern const struct pane_ops pane_diff_stacks_ops;

/*
 * A prompt: what takes the keys while it is open, from a question on the
 * footer line to an overlay (the filter prompt, help, the theme chooser).
 * @priv as for panes. One prompt is open at a time (ui->prompt).
 */
struct prompt_ops {
	const char	*name;		/* what ui_prompt_open() and requests find it by */
	size_t		priv_size;
	int		(*init)(struct ui *ui, struct prompt *pr);
	void		(*destroy)(struct prompt *pr);
	/* Opened by a key: ask (ui_prompt_ask) or set up. Without UI_HANDLED it stays
	 * closed (and has said why). NULL: opens with the line as it was. */
	int		(*open)(struct ui *ui, struct prompt *pr);
	/* A key while open. NULL: ui_prompt_line_key(). */
	int		(*key)(struct ui *ui, struct prompt *pr, int ch);
	/* Draw it over the frame. NULL: the label and line on the footer row. */
	void		(*draw)(struct ui *ui, struct prompt *pr);
	/* Enter: act on @line. The line editor closes the prompt first; submit may
	 * ask again (a next question). */
	int		(*submit)(struct ui *ui, struct prompt *pr, const char *line);
	/* Tab: complete the line. NULL: Tab does nothing. */
	int		(*complete)(struct ui *ui, struct prompt *pr);
	/* After Esc or before submit. May be NULL. */
	void		(*close)(struct ui *ui, struct prompt *pr);
	/* A typed request; it may open the prompt. 0: not for this prompt. */
	int		(*request)(struct ui *ui, struct prompt *pr, const struct ui_req *r);
};

struct prompt {
	const struct prompt_ops	*ops;
	void			*priv;
	char			label[128];	/* the question before the line */
	struct ui_line		line;
};

/* prompt_line.c: the one-line questions */
extern const struct prompt_ops prompt_search_ops;	/* "search": / and F3 */
extern const struct prompt_ops prompt_jump_ops;		/* "jump": t, a time in the event list */
extern const struct prompt_ops prompt_pid_ops;		/* "pid", "comm", "cpu": narrow the */
extern const struct prompt_ops prompt_comm_ops;		/* top view (p, c, C) */
extern const struct prompt_ops prompt_cpu_ops;
extern const struct prompt_ops prompt_threshold_ops;	/* "threshold": the latency pane's T */
extern const struct prompt_ops prompt_save_ops;		/* "save": prompt_save.c */
extern const struct prompt_ops prompt_filter_ops;	/* "filter": prompt_filter.c */
extern const struct prompt_ops prompt_help_ops;		/* "help": help.c */
extern const struct prompt_ops prompt_theme_ops;	/* "theme": prompt_theme.c */
extern const struct prompt_ops prompt_probe_ops;	/* "probe": prompt_probe.c */
extern const struct prompt_ops prompt_view_ops;		/* "view": prompt_view.c */
extern const struct prompt_ops prompt_stackson_ops;	/* "stackson": Y, prompt_stackson.c */
extern const struct prompt_ops prompt_recorder_ops;	/* "recorder": prompt_recorder.c */
extern const struct prompt_ops prompt_agg_ops;		/* "agg": prompt_line.c */

/* recorder.c: the header's recorder line. Return: false when no recorder runs. */
bool ui_recorder_header(struct ui *ui, struct richstr *rs);
/* The recorder's status (@st) as one line of ASCII. Return: @buf. */
struct recorder_status;
const char *ui_recorder_status(const struct recorder_status *st, char *buf, size_t len);

#define UI_MAX_PANES	10
#define UI_MAX_PROMPTS	16

/*
 * The marked time window: v in the event list marks one end, its cursor is the
 * other; the header shows it and s offers to save it. The event list keeps it
 * up to date; everyone else reads it (ui_window).
 */
struct ui_window {
	bool		on;
	uint64_t	mark;		/* the end v marked */
	uint64_t	t0, t1;		/* the window, oldest end first */
};

/*
 * view.c: the marked window [@t0, @t1] and, if @n is not NULL, how many events
 * the store holds in it (in the view). Return: false when no window is marked.
 */
bool ui_window(struct ui *ui, uint64_t *t0, uint64_t *t1, uint64_t *n);

/*
 * graph_feed.c: the function_graph model of what the view keeps, the UI's: the
 * graph pane shows it, the stacks pane takes its call paths.
 */
struct ui_fgraph {
	struct fgraph	*g;		/* NULL until first used */
	uint64_t	next;		/* the next feed starts at this trace time */
	uint64_t	slice;		/* trace time fed per step, ns */
	uint64_t	view_gen;	/* the view filter it is fed under */
	unsigned int	resets;		/* new trees started for its size */
	unsigned int	tree;		/* bumped with each new tree: node ids start again */
};

struct fgraph;
/* Return: the model (made on first use; ui_fgraph_free frees it), NULL on ENOMEM. */
struct fgraph *ui_fgraph(struct ui *ui);
/* Feed it the events published since, within a budget per frame (unless paused). */
void ui_fgraph_feed(struct ui *ui);
void ui_fgraph_free(struct ui *ui);

/*
 * view.c: the view filter every pane honours (the app's, src/app/app_view.c),
 * on the UI thread; panes ask it (src/view/viewfilter.h) what it keeps. NULL, 0,
 * false when no clause is set.
 */
struct viewfilter;
struct viewfilter *ui_view(struct ui *ui);
/* Changes whenever a clause is pushed or removed (0: none ever). */
uint64_t ui_view_gen(struct ui *ui);
/* Bring the counts up to date for a frame, then the header's line. Return: false: no view. */
bool ui_view_header(struct ui *ui, struct richstr *rs);

/* ui/stream_status.c: LIVE, LOADING, SNAPSHOT, or a stream's ENDED, DISCONNECTED */
const char *ui_source_word(const struct ui *ui);
/*
 * The span of trace time of a whole recording (-i FILE: the source does not
 * grow), from its first event to its newest; 0 live or on a stream. Rates on
 * a recording are over this, as --batch reads them.
 */
uint64_t ui_rec_span(struct ui *ui);
/* Draw the line (two at most) on a stream that ended at row @y. Return: rows used. */
int ui_stream_header(struct ui *ui, int y);
/* ktop --pcp: the fleet's two header lines (hosts up and down, their sums). Return: 2. */
int ui_fleet_header(struct ui *ui);

/* The statistics helper reads new events in slices, at most this much a second. */
#define UI_INGEST_SLICE_NS	2000000ull
#define UI_INGEST_CAP_NS	250000000ull
/* Work left in slices (ui_work): this much at a time, keys read between slices. */
#define UI_WORK_SLICE_NS	40000000ull

#define UI_MIN_COLS	40
#define UI_MIN_ROWS	12

struct fleet;
struct diff;

struct ui {
	struct app		*app;
	struct fleet		*fleet;		/* --pcp, --pcp-archive: the fleet pane's hosts */
	uint64_t		fleet_t0;	/* when the fleet's header was first drawn */
	/* ktop -i BASE --diff NEW (ui/diff.c): @app is NEW, @base BASE; NULL: no diff */
	struct diff		*diff;
	struct app		*base;
	uint64_t		diff_next;	/* monotonic ns: the diff's next refresh */
	uint64_t		diff_cost;	/* ns the last table took to make */
	struct store		*st;
	struct ui_stats		stats;
	struct ui_fgraph	fgraph;
	struct ui_theme		theme;
	enum flags_style	fstyle;
	bool			fstyle_meta;	/* fstyle is the recording's kernel's */
	/* the tabs, in order, and the one shown */
	struct pane		panes[UI_MAX_PANES];
	int			npanes;
	struct pane		*active;
	/* every prompt, and the open one (NULL: none) */
	struct prompt		prompts[UI_MAX_PROMPTS];
	int			nprompts;
	struct prompt		*prompt;
	struct ui_screen	screen;		/* where everything is drawn */
	int			refresh_ms;
	bool			paused;
	uint64_t		paused_appended;	/* store appended when paused */
	uint64_t		paused_ns;
	bool			show_lost;
	enum ui_sort		sort;
	char			search[128];	/* the last search, for n and N */
	struct ui_window	window;
	char			message[256];
	uint64_t		message_until;
	/* header figures, refreshed by ui_tick */
	double			ev_rate;
	uint64_t		appended_prev;
	uint64_t		tick_ns;
	/* layout of the last frame, for the mouse */
	int			tabs_y, pane_y, pane_h, footer_y;
	int			tab_x[UI_MAX_PANES + 1];
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
	uint64_t		key_wake_rt[UI_KEY_LAT_MAX];	/* that wake-up, CLOCK_REALTIME ns */
	unsigned int		nkey_lat;
	uint64_t		busy[UI_KEY_LAT_MAX];	/* > 2 ms away from poll(), ns */
	unsigned int		nbusy;
	uint64_t		frames;
	uint64_t		last_frame_ns;
	bool			dirty;
	bool			working;	/* a pane has work in slices (ui_work) */
};

/* frame.c: the UI's set-up, the frame, the keys. */
int ui_init(struct ui *ui, struct app *a);
void ui_destroy(struct ui *ui);
/* After the terminal is opened (newterm): colours, keypad, mouse, the theme. */
void ui_term_setup(struct ui *ui);
/* Colour the screen as ui->theme says, and draw the next frame whole. */
void ui_theme_apply(struct ui *ui);
/* Read new events (unless paused) and draw a whole frame, then send it. */
void ui_frame(struct ui *ui, bool ingest);
/* Once a second: rates. */
void ui_tick(struct ui *ui, uint64_t now_ns);
/* One key (or KEY_MOUSE / KEY_RESIZE). Return: enum ui_result flags. */
int ui_handle_key(struct ui *ui, int ch);

/*
 * diff.c: ktop -i BASE --diff NEW in the view. ui_diff_start() compares @base
 * with ui->app; ui_init_diff() (frame.c) starts it and shows the diff panes in
 * place of the others (the event list stays: NEW's events). ui_diff_tick()
 * refreshes the diff while a side is read or NEW is live (each second, or 10x
 * the last table's cost when that is longer).
 */
int ui_diff_start(struct ui *ui, struct app *base);
/* ui_init() for a diff: the diff panes in the tabs, @base against @a. */
int ui_init_diff(struct ui *ui, struct app *a, struct app *base);
void ui_diff_stop(struct ui *ui);
void ui_diff_tick(struct ui *ui, uint64_t now_ns);
/* The header's diff lines: @line 0 the two sides, 1 the notes. Return: false: none. */
bool ui_diff_header(struct ui *ui, int line, struct richstr *rs);
/* Are both sides read? Return: false, with what is being read in @why. */
bool ui_diff_ready(struct ui *ui, char *why, size_t len);
/*
 * A diff table for a pane, made now if it was not (how long that took is kept
 * for the refresh's pace). Return: NULL while a side is still being read
 * (@why says which, and how far).
 */
struct diff_table;
const struct diff_table *ui_diff_table(struct ui *ui, int kind, char *why, size_t len);

/*
 * unavailable.c: what this kernel or run does not offer. The header's line: each
 * reason once ("function, set_ftrace_filter (not permitted (EPERM));
 * function_graph (not built in)"). Return: the length written to @buf.
 */
struct features;
size_t ui_unavailable_line(const struct features *ft, char *buf, size_t len);
/* A pane's page in place of a feature this kernel or run lacks: the features'
 * states and what would give it. */
void ui_draw_unavailable(struct ui *ui, int y, int h, int w, const char *title,
			 const int *features, int nfeatures, const char *plan);

/*
 * route.c: the panes and prompts by name, requests between them, the open
 * prompt, the footer's message. No curses. Each int return is enum ui_result
 * flags; 0 means nothing was done (an unknown name, a request nobody takes),
 * and the state is as it was.
 */
/* Say @fmt on the footer for a few seconds. */
void ui_message(struct ui *ui, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ui_views_init(struct ui *ui, const struct pane_ops *const *panes, int npanes,
		  const struct prompt_ops *const *prompts, int nprompts);
void ui_views_destroy(struct ui *ui);
/* Return: the pane or prompt named @name, or NULL. */
struct pane *ui_pane(struct ui *ui, const char *name);
struct prompt *ui_prompt(struct ui *ui, const char *name);
/* True when the pane shown is the one named @name. */
bool ui_showing(const struct ui *ui, const char *name);
/* Show the pane named @name. */
int ui_show_pane(struct ui *ui, const char *name);
/* Return: the name of the pane or prompt that takes requests of @kind. */
const char *ui_req_target(enum ui_req_kind kind);
/* Deliver @r to its target; a pane that takes it is shown. */
int ui_request(struct ui *ui, const struct ui_req *r);
/* The event list as @r says (UI_REQ_EVENTS). */
int ui_show_events(struct ui *ui, const struct ui_events_req *r);
/* Search for ui->search in the pane shown, or in the event list when it cannot. */
int ui_search(struct ui *ui, int dir);
/* A pane has work to go on in slices: the main loop calls ui_work() until it is done. */
void ui_work_later(struct ui *ui);
/*
 * Give each pane with work left about @budget_ns of it (its .work). Return:
 * true while some is left (ui->working).
 */
bool ui_work(struct ui *ui, uint64_t budget_ns);
/* Pause the view (collection goes on), or resume it. */
void ui_set_paused(struct ui *ui, bool on);
/* Open the prompt named @name (closing any other). */
int ui_prompt_open(struct ui *ui, const char *name);
/* Ask @label on the footer with @text as the line (@max bytes at most), and open @pr. */
int ui_prompt_ask(struct ui *ui, struct prompt *pr, const char *label, const char *text,
		  size_t max);
void ui_prompt_close(struct ui *ui);
/* A key for the open prompt. */
int ui_prompt_key(struct ui *ui, int ch);
/* The line editor's keys: Esc closes, Enter closes and submits, Tab completes. */
int ui_prompt_line_key(struct ui *ui, struct prompt *pr, int ch);
/*
 * The same for a prompt that stays open on Enter (its submit closes it when
 * done: the filter and probe prompts). *@changed: the text may have changed.
 */
int ui_prompt_stay_key(struct ui *ui, struct prompt *pr, int ch, bool *changed);

#endif
