#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The interactive view leaves the top level alone (issue 14): a line written
# to the top-level trace_marker before a short live run (start, live
# numbers, q) is still in the top-level ring buffer after it, and every
# top-level file reads exactly as before, raw. The batch and --features
# cases are in tests/live/test_toplevel.sh.
cd "$(dirname "$0")/../.." || exit 2
. tests/tui/lib_tui.sh
. tests/live/lib_marker.sh
need

if ! marker_put; then
	fail "marker: $MARK_WHY"
	finish
fi
state_save "$tmp/before.state"
tui_start 100 30
if ! wait_screen 'events/s [0-9]' 20; then
	fail "ktop did not start"; evidence start; cat "$tmp/stderr"
fi
pid=$(ktop_pid)
keys q
if [ -n "$pid" ] && ! wait_exit "$pid" 10; then
	fail "ktop $pid still running 10 s after q"
	kill -KILL "$pid" 2>/dev/null
fi
tui_stop
if marker_kept; then
	ok "live view: the top level's trace_marker line is still there"
else
	fail "live view: the top-level ring buffer was cleared (marker '$MARK' gone)"
fi
state_same "live view: top-level files raw as before" "$tmp/before.state"
finish
