#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Probe events in the interactive view, under tmux, on this host's uprobes:
# ktop --probe on build/tools/probe_target, the event list (pane 3) shows
# each call with its named, typed fields (the string, n, the return value,
# the addresses in hex), the top view (pane 2) counts them; q leaves the
# tracing state and dynamic_events as they were.
cd "$(dirname "$0")/../.." || exit 2
. tests/tui/lib_tui.sh
need
need_probe_target

state_save "$tmp/before.state"
tui_start 160 30 --no-bpf \
	--probe "'$TOOLS/probe_target:ktop_probe_word \$arg1:string n=\$arg2:s32'" \
	--probe "'$TOOLS/probe_target:ktop_probe_word%return \$retval:s32'"

if wait_screen '^ ktop tracer' 20 && wait_screen 'events ktop_[0-9]+' 5; then
	ok "start: the probes' group is traced"
else
	fail "start"; evidence start; cat "$tmp/stderr"
	finish
fi
"$TOOLS/probe_target" 3 > /dev/null
probe_word_seen
pid=$(ktop_pid)
keys q
wait_exit "$pid" 10 || fail "quit: ktop $pid still running"
dyn_same "quit: the probes are gone"
state_same "quit: tracing state as before" "$tmp/before.state"
finish
