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
if [ ! -x "$TOOLS/probe_target" ]; then
	echo "FAIL setup: $TOOLS/probe_target is not built (make tools)"
	exit 1
fi
DYN=$TRACEFS/dynamic_events
[ -e "$DYN" ] || DYN=$TRACEFS/uprobe_events

state_save "$tmp/before.state"
cat "$DYN" > "$tmp/dyn.before"
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
keys 3
if wait_screen 'ktop_probe_word: __probe_ip=0x[0-9a-f]+ arg1=word-2 n=2$' 10 &&
   scr | grep -Eq 'ktop_probe_word: __probe_ip=0x[0-9a-f]+ arg1=word-0 n=0$' &&
   scr | grep -Eq 'ktop_probe_word__return: __probe_func=0x[0-9a-f]+ __probe_ret_ip=0x[0-9a-f]+ retval=6001$'; then
	ok "event_list: every call with its named, typed fields"
else
	fail "event_list"; evidence events
fi
n=$(scr | grep -Ec -- '-[0-9]+ +\[[0-9]+\] .* ktop_probe_word(__return)?: ')
if [ "$n" -eq 6 ]; then
	ok "event_list: 6 events, 3 calls and 3 returns"
else
	fail "event_list: $n events, want 6"; evidence events
fi
keys 2
if wait_screen '^ +3 +[0-9]+ .* ktop_probe_word$' 5 && wait_screen '^ +3 +[0-9]+ .* ktop_probe_word__return$' 5; then
	ok "top_view: 3 of each"
else
	fail "top_view"; evidence top
fi
pid=$(ktop_pid)
keys q
wait_exit "$pid" 10 || fail "quit: ktop $pid still running"
if cat "$DYN" | cmp -s - "$tmp/dyn.before"; then
	ok "quit: the probes are gone"
else
	fail "quit: dynamic_events changed: $(cat "$DYN" | head -3)"
fi
state_same "quit: tracing state as before" "$tmp/before.state"
finish
