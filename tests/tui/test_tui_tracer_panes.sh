#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The function graph (4) and latency (5) panes under tmux on this host, whose
# kernel has neither function_graph nor osnoise/timerlat: each pane says why,
# with the CONFIG_ option, the panes' own keys change nothing else and break
# nothing, the help overlay lists them, and the kernel's tracing state is as
# before. The panes with real trees and tables are tested in the qemu guest
# (tests/vm/guest/scenario-05-tui-graph.sh) and without a terminal
# (tests/unit/test_ui_tracers.c).
cd "$(dirname "$0")/../.." || exit 2
. tests/tui/lib_tui.sh
need

state_save "$tmp/before.state"
start_load
tui_start 120 40
wait_screen '^ ktop tracer' 20

# what this kernel says about function_graph, from --features
fg_state=$("$KTOP" --features 2>/dev/null | grep -m1 -E '^ *function_graph')

keys 4
if wait_screen '^ +Function graph$' 5 &&
   wait_screen 'function_graph: (not built in \(CONFIG_FUNCTION_GRAPH_TRACER\)|not permitted \(EPERM\))' 3; then
	ok "graph_pane_names_the_reason"
else
	fail "graph_pane_names_the_reason (features: $fg_state)"; evidence graph
fi
if wait_screen 'CONFIG_FUNCTION_GRAPH_TRACER' 1 && wait_screen 'Everything else works' 1; then
	ok "graph_pane_explains_what_is_needed"
else
	fail "graph_pane_explains_what_is_needed"; evidence graph
fi
# the graph pane's own keys (c, C, e, E, Space, v, H) do nothing here, and do
# not fall through to the global ones (c and C narrow the top view, Space pauses)
keys c C e E Space v H ']' '['
sleep 0.5
if ! scr | grep -q 'PAUSED' && ! scr | grep -q 'narrow to' && scr | grep -q 'Function graph'; then
	ok "graph_keys_stay_in_the_pane"
else
	fail "graph_keys_stay_in_the_pane"; evidence graph-keys
fi

keys 5
if wait_screen '^ +OS noise and timer latency$' 5 &&
   wait_screen 'osnoise: (not built in \(CONFIG_OSNOISE_TRACER\)|not permitted)' 3 &&
   wait_screen 'timerlat: (not built in \(CONFIG_TIMERLAT_TRACER\)|not permitted)' 3; then
	ok "latency_pane_names_the_reasons"
else
	fail "latency_pane_names_the_reasons"; evidence latency
fi
keys Enter b T
sleep 0.3
if scr | grep -q 'OS noise and timer latency' && ! scr | grep -q 'stop when a latency'; then
	ok "latency_keys_harmless_without_tracer"
else
	fail "latency_keys_harmless_without_tracer"; evidence latency-keys
fi

# the help overlay lists the panes' keys
keys '?'
# a page at a time: the group may be on any page of the help
found=0
for ((pg = 0; pg < 8; pg++)); do
	wait_screen 'Graph pane \(4\)' 1 && { found=1; break; }
	keys NPage
done
if [ "$found" = 1 ]; then
	ok "help_lists_graph_keys"
else
	fail "help_lists_graph_keys"; evidence help
fi
keys Escape
wait_gone 'ktop help' 3

# everything else still works: the event list shows events
keys 3
if wait_screen '\[[0-9]{3}\] .* [0-9]+\.[0-9]{6}: [a-z_]+: ' 5; then
	ok "event_list_still_works"
else
	fail "event_list_still_works"; evidence events
fi

keys q
pid_gone=0
for ((i = 0; i < 100; i++)); do
	[ -f "$tmp/exit" ] && { pid_gone=1; break; }
	sleep 0.05
done
if [ $pid_gone = 1 ] && grep -q 'EXIT=0' "$tmp/exit"; then
	ok "quit_exit_0"
else
	fail "quit_exit_0: $(cat "$tmp/exit" 2>/dev/null)"; cat "$tmp/stderr"
fi
state_same "kernel_state_restored" "$tmp/before.state"
finish
