#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The event list's search on a recording of 10 M events whose match lies at
# the oldest end (issue 31): the demo recording, then copies of its events
# before 107.5 s (snapshot_tool replicate ... 107.5), so that what the demo
# holds after that (vmload's exit, pid 224) is there once, 10 M events back.
# Under tmux, with root's ktop on the file (the kernel is not touched):
#   1. / "comm=vmload pid=224" from the newest event finds the newest line
#      holding it (sched_process_free, 107.624621), where the search used to
#      give up after 8 M events with "no older match";
#   2. n goes on from there to the next older one (sched_stat_runtime at
#      107.602797);
#   3. a text no line holds: "no older match" after every event held (10.0M).
# The lines are checked against grep over ktop's own text export first: the
# text is in these events and nowhere else.
cd "$(dirname "$0")/../.." || exit 2
. tests/tui/lib_tui.sh
need
need_tool snapshot_tool

N=10000000
rec=$tmp/far.ktop
if ! "$TOOLS/snapshot_tool" replicate tests/fixtures/demo.ktop "$rec" "$N" 107.5 >"$tmp/rep" 2>&1; then
	fail "setup: snapshot_tool replicate: $(cat "$tmp/rep")"; finish
fi

# the text is in the demo's tail only
"$TOOLS/snapshot_tool" replicate tests/fixtures/demo.ktop "$tmp/small.ktop" 6000 107.5 >/dev/null 2>&1
"$KTOP" -i "$tmp/small.ktop" -o "$tmp/small.txt" --batch --iterations 1 >/dev/null 2>&1
if [ "$(grep -c 'comm=vmload pid=224' "$tmp/small.txt")" != 16 ]; then
	fail "setup: the demo's tail has 16 lines with 'comm=vmload pid=224': $(grep -c 'comm=vmload pid=224' "$tmp/small.txt")"
	finish
fi

# search SECONDS TEXT: / TEXT Enter, then wait until the search ended
search() {
	keys /
	wait_screen 'search older events for:' 3 || return 1
	keys -l "$1"
	keys Enter
}

tui_start 160 40 -i "$rec" -m 4G
if ! wait_screen 'SNAPSHOT' 60; then
	fail "ktop_opens_the_recording"; evidence start; cat "$tmp/stderr"; finish
fi
keys 3
wait_screen 'Events: ' 5

search "comm=vmload pid=224"
if wait_screen '107\.624621: sched_process_free: comm=vmload pid=224' 120 &&
   wait_screen 'search "comm=vmload pid=224" \(n older' 5; then
	ok "search_finds_a_match_10M_events_back"
else
	fail "search_finds_a_match_10M_events_back"; evidence first
fi

keys n
if wait_screen '107\.602797: sched_stat_runtime: comm=vmload pid=224' 60; then
	ok "n_goes_on_to_the_next_older_match"
else
	fail "n_goes_on_to_the_next_older_match"; evidence n
fi

keys End
search "comm=nosuchtask pid=224"
if wait_screen '"comm=nosuchtask pid=224": no older match \(10\.0M events searched\)' 120; then
	ok "no_match_only_after_every_event_held"
else
	fail "no_match_only_after_every_event_held"; evidence none
fi
quit_ok "quit"
finish
