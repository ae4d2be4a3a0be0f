// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The key table. Dispatch (ui_handle_key), the help overlay (help.c) and the
 * KEYS section test against man/ktop.1 all read this one table, so they cannot
 * drift apart. Only key codes come from curses.h; nothing here draws.
 */
#include <curses.h>
#include <string.h>
#include "ui-local.h"


/* .pane is left out (NULL: every pane) except for the panes' own bindings */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
const struct ui_key ui_keys[] = {
	/* Panes */
	{ { '\t' }, "Tab", "next pane", ACT_NEXT_PANE, 0, "Panes" },
	{ { KEY_BTAB }, "Shift-Tab", "previous pane", ACT_PREV_PANE, 0, "Panes" },
	{ { '1', '2', '3', '4', '5', '6', '7', '8' }, "1-8",
	  "go to pane: 1 CPUs, 2 Top, 3 Events, 4 Graph, 5 Latency, 6 BPF, 7 Tasks, 8 Stacks",
	  ACT_PANE, -1, "Panes" },
	{ { '9' }, "9", "go to pane 9, Net: connections and drops (--net)", ACT_PANE, -1,
	  "Panes" },
	{ { '0' }, "0", "go to pane 0, Fleet: the hosts of --pcp or --pcp-archive", ACT_PANE, -1,
	  "Panes" },
	/* Moving */
	{ { KEY_UP, 'k' }, "Up, k", "move up one row", ACT_UP, 0, "Moving" },
	{ { KEY_DOWN, 'j' }, "Down, j", "move down one row", ACT_DOWN, 0, "Moving" },
	{ { KEY_LEFT, 'h' }, "Left, h", "scroll left (event list: the lines; graph: the names; "
	  "tasks, net: the columns after PID)", ACT_LEFT, 0, "Moving" },
	{ { KEY_RIGHT, 'l' }, "Right, l", "scroll right (event list: the lines; graph: the names; "
	  "tasks, net: the columns after PID)", ACT_RIGHT, 0, "Moving" },
	{ { KEY_PPAGE }, "PgUp", "up one page", ACT_PGUP, 0, "Moving" },
	{ { KEY_NPAGE }, "PgDn", "down one page", ACT_PGDN, 0, "Moving" },
	{ { KEY_HOME, 'g' }, "Home, g", "first row (event list: oldest event held)", ACT_HOME,
	  0, "Moving" },
	{ { KEY_END, 'G' }, "End, G", "last row (event list: follow the live tail)", ACT_END, 0,
	  "Moving" },
	{ { '\n', '\r', KEY_ENTER }, "Enter",
	  "top view: list the selected row's events; CPU pane: top view of that CPU",
	  ACT_ENTER, 0, "Moving" },
	/* Commands */
	{ { KEY_F(1), '?' }, "F1, ?", "this help", ACT_HELP, 0, "Commands" },
	{ { KEY_F(2) }, "F2", "setup: choose a colour theme (saved in ktop.conf)", ACT_THEME, 0,
	  "Commands" },
	{ { KEY_F(3), '/' }, "F3, /",
	  "search the event list (older first; a long search goes on in steps, Esc stops it)",
	  ACT_SEARCH, 0, "Commands" },
	{ { 'n' }, "n", "next match, older", ACT_SEARCH_NEXT, 0, "Commands" },
	{ { 'N' }, "N", "previous match, newer", ACT_SEARCH_PREV, 0, "Commands" },
	{ { KEY_F(4), 'f' }, "F4, f",
	  "filter prompt: set_ftrace_filter and friends, live (preview, Tab, Up/Down history)",
	  ACT_FILTER, 0, "Commands" },
	{ { 'u' }, "u", "undo the last filter change", ACT_FILTER_UNDO, 0, "Commands" },
	{ { 'U' }, "U", "redo the filter change undone", ACT_FILTER_REDO, 0, "Commands" },
	{ { 'a' }, "a", "top view: add the selected function to the filter, or remove it",
	  ACT_FILTER_TOGGLE, 0, "Commands" },
	{ { KEY_F(7), 'K' }, "F7, K",
	  "probe prompt: make, list, turn off, remove probe events live (on the selected row)",
	  ACT_PROBE, 0, "Commands" },
	{ { 'R' }, "R",
	  "flight recorder: arm a condition (as --save-on), disarm, list the saves (Enter opens one)",
	  ACT_RECORDER, 0, "Commands" },
	{ { KEY_F(5) }, "F5", "tree view (the function graph pane)", ACT_TREE, 0, "Commands" },
	{ { KEY_F(6), '>' }, "F6, >", "top view: next sort key", ACT_SORT, 0, "Commands" },
	{ { '<' }, "<", "top view: previous sort key", ACT_SORT_PREV, 0, "Commands" },
	{ { 't' }, "t", "event list: jump to a time", ACT_JUMP_TIME, 0, "Commands" },
	{ { 'F' }, "F", "event list: freeze or follow the live tail", ACT_FREEZE, 0,
	  "Commands" },
	{ { 'p' }, "p", "top view: narrow to a pid", ACT_NARROW_PID, 0, "Commands" },
	{ { 'c' }, "c", "top view: narrow to a comm", ACT_NARROW_COMM, 0, "Commands" },
	{ { 'C' }, "C", "top view: narrow to a CPU", ACT_NARROW_CPU, 0, "Commands" },
	{ { 'x' }, "x", "top view: clear the narrowing", ACT_NARROW_CLEAR, 0, "Commands" },
	{ { ' ' }, "Space", "pause the view (collection goes on)", ACT_PAUSE, 0, "Commands" },
	{ { '+', '=' }, "+", "refresh less often (+50%)", ACT_SLOWER, 0, "Commands" },
	{ { '-' }, "-", "refresh more often", ACT_FASTER, 0, "Commands" },
	{ { 'L' }, "L", "lost events per CPU in the header", ACT_LOST, 0, "Commands" },
	{ { 's', 'S' }, "s, S",
	  "save the trace, or the marked time window (v): .ktop, .dat (trace.dat), .json, .txt "
	  "or .csv", ACT_SAVE, 0, "Commands" },
	{ { UI_CTRL('l') }, "Ctrl-L", "redraw the whole screen", ACT_REDRAW, 0, "Commands" },
	{ { 27 }, "Esc", "close the overlay or prompt", ACT_ESC, 0, "Commands" },
	{ { KEY_F(10), 'q' }, "F10, q", "quit", ACT_QUIT, 0, "Commands" },
	/* the view filter: every pane, what is held (prompt_view.c) */
	{ { '\\', 'V' }, "\\, V",
	  "view filter prompt: narrow what every pane shows and s saves of the events held, as "
	  "-F/--view (the kernel records on: F4 changes what is recorded)", ACT_VIEW_PROMPT, 0,
	  "View filter (every pane)" },
	{ { 'z' }, "z", "narrow the view to the selected row's task (event list, tasks pane)",
	  ACT_VIEW_TASK, 0, "View filter (every pane)" },
	{ { 'Z' }, "Z", "narrow the view to the selected row's task with its children and threads",
	  ACT_VIEW_TASK_KIDS, 0, "View filter (every pane)" },
	{ { '#' }, "#", "narrow the view to the selected row's CPU (event list, CPU pane, tasks: "
	  "where it ran last)", ACT_VIEW_CPU, 0, "View filter (every pane)" },
	{ { 'e' }, "e", "narrow the view to the selected row's event (event list, top view)",
	  ACT_VIEW_EVENT, 0, "View filter (every pane)" },
	{ { 'w' }, "w", "widen the view back: drop the newest clause", ACT_VIEW_WIDEN, 0,
	  "View filter (every pane)" },
	{ { 'W' }, "W", "clear the view filter: every event held", ACT_VIEW_CLEAR, 0,
	  "View filter (every pane)" },
	/* stacks (pane_stacks.c): from the row a pane selects */
	{ { 'y' }, "y", "the caller tree of the selected row's stacks: an event (its type's, its "
	  "own selected), an event type or function (top view), a function (graph), a drop group "
	  "(net)", ACT_STACK_CALLERS, 0, "Stacks" },
	{ { 'i' }, "i", "the icicle (flame graph) of the selected row's stacks, as y",
	  ACT_STACK_ICICLE, 0, "Stacks" },
	{ { 'Y' }, "Y", "live: stack traces for the selected row's event from now on (event list, "
	  "top view; net: skb:kfree_skb); k kernel stacks, as --stack EVENT, u kernel and user, as --ustack EVENT",
	  ACT_STACK_ON, 0, "Stacks" },
	/* Pane 3, the event list */
	{ { 'v' }, "v",
	  "event list: mark the selected row as one end of a time window (v again: clear)",
	  ACT_MARK, 0, "Event list pane (3)", "events" },
	/* Pane 4, the function graph: these come before the keys above there */
	{ { '\n', '\r', KEY_ENTER, ' ' }, "Enter, Space", "graph: fold or unfold the selected call",
	  ACT_FOLD_TOGGLE, 0, "Graph pane (4)", "graph" },
	{ { 'c' }, "c", "graph: fold the children of the selected call", ACT_FOLD_CHILDREN, 0,
	  "Graph pane (4)", "graph" },
	{ { 'e' }, "e", "graph: unfold the selected call and its children", ACT_UNFOLD_CHILDREN,
	  0, "Graph pane (4)", "graph" },
	{ { 'C' }, "C", "graph: fold everything", ACT_FOLD_ALL, 0, "Graph pane (4)", "graph" },
	{ { 'E' }, "E", "graph: unfold everything", ACT_UNFOLD_ALL, 0, "Graph pane (4)", "graph" },
	{ { ']' }, "]", "graph: next sibling", ACT_NEXT_SIBLING, 0, "Graph pane (4)", "graph" },
	{ { '[' }, "[", "graph: previous sibling", ACT_PREV_SIBLING, 0, "Graph pane (4)", "graph" },
	{ { 'P' }, "P", "graph: go to the parent", ACT_PARENT, 0, "Graph pane (4)", "graph" },
	{ { 'H' }, "H", "graph: go to the longest child (the hot path)", ACT_HOT_PATH, 0,
	  "Graph pane (4)", "graph" },
	{ { 'v' }, "v", "graph: timeline or aggregated call paths", ACT_VIEW, 0,
	  "Graph pane (4)", "graph" },
	{ { KEY_F(6), '>', '<' }, "F6, >, <",
	  "graph: sort by order, total, self, count, max, name",
	  ACT_PANE_SORT, 0, "Graph pane (4)", "graph" },
	{ { 'F' }, "F", "graph: follow the newest calls, or stay", ACT_FREEZE, 0,
	  "Graph pane (4)", "graph" },
	/* Pane 5, osnoise/timerlat latency */
	{ { '\n', '\r', KEY_ENTER }, "Enter",
	  "latency: the event list at the selected CPU's worst sample, from the window before it; "
	  "A->B: at the selected latency's worst pair, from its START to its END",
	  ACT_JUMP_WORST, 0, "Latency pane (5)", "latency" },
	{ { KEY_F(6), '>', '<' }, "F6, >, <", "latency: next sort column; A->B: the breakdown's "
	  "order (pairs or count, mean or sum, max, key; Left the previous)", ACT_PANE_SORT, 0,
	  "Latency pane (5)", "latency" },
	{ { 'v' }, "v", "latency: histogram and sparkline of IRQ, thread or user-return latency",
	  ACT_VIEW, 0, "Latency pane (5)", "latency" },
	{ { 'b' }, "b", "latency: histogram buckets log2 or linear", ACT_HIST_MODE, 0,
	  "Latency pane (5)", "latency" },
	{ { 'T' }, "T", "latency: stop threshold (freeze the view above N us)", ACT_THRESHOLD, 0,
	  "Latency pane (5)", "latency" },
	{ { 'o' }, "o", "latency: timerlat <-> osnoise: live, switch the tracer (tracing goes on); "
	  "in a recording, show the other tracer's samples",
	  ACT_SWITCH_TRACER, 0, "Latency pane (5)", "latency" },
	{ { 'A' }, "A", "latency: the A->B latencies measured in the kernel (--latency, --sql, "
	  "--hist), or the osnoise/timerlat table", ACT_AGG_SECTION, 0, "Latency pane (5)",
	  "latency" },
	{ { 'm' }, "m", "latency: measure a new A->B latency in the kernel, live: START -> END "
	  "[on START_FIELD = END_FIELD] [where FILTER], as --latency", ACT_AGG_ADD, 0,
	  "Latency pane (5)", "latency" },
	/* Pane 6, BPF statistics */
	{ { '\n', '\r', KEY_ENTER }, "Enter", "BPF: the event list at the selected outlier's time; "
	  "off-CPU view: the selected task's off-CPU stacks in the icicle (i too, y: caller tree)",
	  ACT_ENTER, 0, "BPF pane (6)", "bpf" },
	{ { 'o' }, "o", "BPF: the off-CPU view (tasks by time off CPU, the selected one's off-CPU "
	  "stacks from --offcpu), or back to the histograms and outliers", ACT_STACK_SOURCE, 0,
	  "BPF pane (6)", "bpf" },
	{ { ']' }, "]", "BPF: off-CPU view: the next stack", ACT_NEXT_SIBLING, 0, "BPF pane (6)",
	  "bpf" },
	{ { '[' }, "[", "BPF: off-CPU view: the previous stack", ACT_PREV_SIBLING, 0,
	  "BPF pane (6)", "bpf" },
	{ { KEY_LEFT, 'h' }, "Left, h", "BPF: histograms of the previous CPU (or all)", ACT_LEFT,
	  0, "BPF pane (6)", "bpf" },
	{ { KEY_RIGHT, 'l' }, "Right, l", "BPF: histograms of the next CPU (or all)", ACT_RIGHT, 0,
	  "BPF pane (6)", "bpf" },
	{ { 'v' }, "v", "BPF: histograms of the last 10 s or since start", ACT_VIEW, 0,
	  "BPF pane (6)", "bpf" },
	/* Pane 7, tasks */
	{ { '\n', '\r', KEY_ENTER }, "Enter", "tasks: narrow every pane to the selected task",
	  ACT_ENTER, 0, "Tasks pane (7)", "tasks" },
	{ { KEY_F(6), '>' }, "F6, >", "tasks: next sort column", ACT_PANE_SORT, 0,
	  "Tasks pane (7)", "tasks" },
	{ { '<' }, "<", "tasks: previous sort column", ACT_SORT_PREV, 0, "Tasks pane (7)",
	  "tasks" },
	{ { 'I' }, "I", "tasks: invert the sort order", ACT_SORT_INVERT, 0, "Tasks pane (7)",
	  "tasks" },
	{ { KEY_F(5), 't' }, "F5, t", "tasks: tree by parent, or a list", ACT_TREE, 0,
	  "Tasks pane (7)", "tasks" },
	{ { 'H' }, "H", "tasks: hide or show ktop's own threads (marked [ktop])", ACT_HIDE_SELF,
	  0, "Tasks pane (7)", "tasks" },
	/* Pane 8, stacks: caller tree and icicle */
	{ { '\n', '\r', KEY_ENTER }, "Enter",
	  "stacks: caller tree: the events under the selected frame (narrows the view); icicle: "
	  "zoom into the frame", ACT_ENTER, 0, "Stacks pane (8)", "stacks" },
	{ { KEY_BACKSPACE, 127, 8 }, "Backspace",
	  "stacks: icicle: zoom out one frame (Esc too, Home: to the root)", ACT_ZOOM_OUT, 0,
	  "Stacks pane (8)", "stacks" },
	{ { KEY_UP, 'k' }, "Up, k", "stacks: caller tree: the row above; icicle: the caller (zoom "
	  "out at the top)", ACT_UP, 0, "Stacks pane (8)", "stacks" },
	{ { KEY_DOWN, 'j' }, "Down, j", "stacks: caller tree: the row below; icicle: the widest "
	  "callee", ACT_DOWN, 0, "Stacks pane (8)", "stacks" },
	{ { KEY_LEFT, 'h' }, "Left, h", "stacks: icicle: the frame to the left; caller tree: "
	  "scroll the names", ACT_LEFT, 0, "Stacks pane (8)", "stacks" },
	{ { KEY_RIGHT, 'l' }, "Right, l", "stacks: icicle: the frame to the right; caller tree: "
	  "scroll the names", ACT_RIGHT, 0, "Stacks pane (8)", "stacks" },
	{ { ' ' }, "Space", "stacks: fold or unfold the selected frame's callers",
	  ACT_FOLD_TOGGLE, 0, "Stacks pane (8)", "stacks" },
	{ { 'c' }, "c", "stacks: fold each caller of the selected frame",
	  ACT_FOLD_CHILDREN, 0, "Stacks pane (8)", "stacks" },
	{ { 'e' }, "e", "stacks: unfold the selected frame and its callers", ACT_UNFOLD_CHILDREN,
	  0, "Stacks pane (8)", "stacks" },
	{ { 'C' }, "C", "stacks: fold everything", ACT_FOLD_ALL, 0, "Stacks pane (8)", "stacks" },
	{ { 'E' }, "E", "stacks: unfold everything", ACT_UNFOLD_ALL, 0, "Stacks pane (8)",
	  "stacks" },
	{ { ']' }, "]", "stacks: next sibling", ACT_NEXT_SIBLING, 0, "Stacks pane (8)", "stacks" },
	{ { '[' }, "[", "stacks: previous sibling", ACT_PREV_SIBLING, 0, "Stacks pane (8)",
	  "stacks" },
	{ { 'P' }, "P", "stacks: go to the parent", ACT_PARENT, 0, "Stacks pane (8)", "stacks" },
	{ { 'H' }, "H", "stacks: go to the biggest child (the hot path)", ACT_HOT_PATH, 0,
	  "Stacks pane (8)", "stacks" },
	{ { 'v' }, "v", "stacks: caller tree or icicle", ACT_VIEW, 0, "Stacks pane (8)", "stacks" },
	{ { 'o' }, "o", "stacks: event stacks, BPF off-CPU stacks (--offcpu) or function_graph "
	  "paths", ACT_STACK_SOURCE, 0, "Stacks pane (8)", "stacks" },
	{ { 'x' }, "x", "stacks: every stack of the source, not only the row's it was opened on",
	  ACT_STACK_ALL, 0, "Stacks pane (8)", "stacks" },
	/* Pane 9, net */
	{ { '\n', '\r', KEY_ENTER }, "Enter", "net: the selected connection's timeline in the "
	  "event list (a conn: view clause); drops: the events of the selected group",
	  ACT_ENTER, 0, "Net pane (9)", "net" },
	{ { KEY_F(6), '>' }, "F6, >", "net: next sort column", ACT_PANE_SORT, 0, "Net pane (9)",
	  "net" },
	{ { '<' }, "<", "net: previous sort column", ACT_SORT_PREV, 0, "Net pane (9)", "net" },
	{ { 'I' }, "I", "net: invert the sort order", ACT_SORT_INVERT, 0, "Net pane (9)", "net" },
	{ { 'd' }, "d", "net: the connections or the drops (by reason and location)",
	  ACT_NET_DROPS, 0, "Net pane (9)", "net" },
	{ { 'c' }, "c", "net: hide or show the closed connections", ACT_NET_CLOSED, 0,
	  "Net pane (9)", "net" },
	{ { 'g' }, "g", "net: drops by reason and location, by reason, by location "
	  "(connections: the first row)",
	  ACT_NET_GROUP, 0, "Net pane (9)", "net" },
	{ { 'P' }, "P", "net: live, tcp:tcp_probe on or off (srtt, cwnd; fires per segment)",
	  ACT_NET_PROBE, 0, "Net pane (9)", "net" },
	/* Pane 0, fleet */
	{ { '\n', '\r', KEY_ENTER }, "Enter", "fleet: the selected host's CPUs, or back",
	  ACT_ENTER, 0, "Fleet pane (0)", "fleet" },
	{ { KEY_BACKSPACE, 127, 8 }, "Backspace", "fleet: back from the host's CPUs", ACT_ZOOM_OUT,
	  0, "Fleet pane (0)", "fleet" },
	{ { KEY_F(6), '>' }, "F6, >", "fleet: next sort column (down hosts stay last)",
	  ACT_PANE_SORT, 0, "Fleet pane (0)", "fleet" },
	{ { '<' }, "<", "fleet: previous sort column", ACT_SORT_PREV, 0, "Fleet pane (0)",
	  "fleet" },
	{ { 'I' }, "I", "fleet: invert the sort order", ACT_SORT_INVERT, 0, "Fleet pane (0)",
	  "fleet" },
	/* ktop -i BASE --diff NEW: the diff panes (pane_diff.c), all but the event list */
	{ { KEY_F(6), '>' }, "F6, >", "diff: next sort: change, ratio, NEW, BASE, name, the "
	  "table's order", ACT_PANE_SORT, 0, "Diff panes (-i BASE --diff NEW)", "diff" },
	{ { '<' }, "<", "diff: previous sort", ACT_SORT_PREV, 0, "Diff panes (-i BASE --diff NEW)",
	  "diff" },
	{ { KEY_LEFT, 'h' }, "Left, h", "diff: the previous figure of the table (BASE, NEW, DELTA, "
	  "RATIO are of it)", ACT_LEFT, 0, "Diff panes (-i BASE --diff NEW)", "diff" },
	{ { KEY_RIGHT, 'l' }, "Right, l", "diff: the next figure of the table", ACT_RIGHT, 0,
	  "Diff panes (-i BASE --diff NEW)", "diff" },
	{ { 'v' }, "v", "diff: the pane's next table (top: events, syscalls, connections, drops; "
	  "graph: functions, call paths; latency: series, histograms, in-kernel latencies)",
	  ACT_VIEW, 0, "Diff panes (-i BASE --diff NEW)", "diff" },
	/* ... and its stacks pane (pane_diff_stacks.c) */
	{ { 'v' }, "v", "diff stacks: differential icicle or caller tree", ACT_VIEW, 0,
	  "Diff stacks pane (8)", "diff-stacks" },
	{ { 'o' }, "o", "diff stacks: the events' stacks or the function_graph paths (self time)",
	  ACT_STACK_SOURCE, 0, "Diff stacks pane (8)", "diff-stacks" },
	{ { '\n', '\r', KEY_ENTER }, "Enter", "diff stacks: icicle: zoom into the selected frame",
	  ACT_ENTER, 0, "Diff stacks pane (8)", "diff-stacks" },
	{ { KEY_BACKSPACE, 127, 8 }, "Backspace", "diff stacks: icicle: zoom out one frame (Esc "
	  "too, Home: to the root)", ACT_ZOOM_OUT, 0, "Diff stacks pane (8)", "diff-stacks" },
};
#pragma GCC diagnostic pop

const unsigned int ui_nkeys = sizeof(ui_keys) / sizeof(ui_keys[0]);

static const struct ui_key *key_find(int ch, const char *pane)
{
	for (unsigned int i = 0; i < ui_nkeys; i++) {
		if (pane ? !ui_keys[i].pane || strcmp(ui_keys[i].pane, pane) : !!ui_keys[i].pane)
			continue;
		for (unsigned int k = 0; k < 8 && ui_keys[i].keys[k]; k++)
			if (ui_keys[i].keys[k] == ch)
				return &ui_keys[i];
	}
	return NULL;
}

const struct ui_key *ui_key_lookup(int ch)
{
	return key_find(ch, NULL);
}

const struct ui_key *ui_key_lookup_in(int ch, const char *pane)
{
	const struct ui_key *k = pane ? key_find(ch, pane) : NULL;

	return k ? k : key_find(ch, NULL);
}
