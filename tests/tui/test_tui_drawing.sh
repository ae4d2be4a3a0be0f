#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What the view draws and how it reaches the terminal, under tmux:
#   1. a frame is sent in a few writes, not one per cursor movement: the UI
#      thread's write(2) count (/proc/PID/task/PID/io, syscw) over 24 pane
#      switches of the recorded demo. ncurses 6.4 flushed after every cursor
#      move until the screen had been suspended once: ~100 writes of ~20 bytes
#      a frame, each waking tmux (or sshd) to read it.
#   2. the help overlay at 150x45: it covers the pane (the tabs do not show
#      through), every description is whole (the longest one too), a label
#      and its description are apart ("Enter, Space  graph: ..."), and it
#      scrolls to its last line.
#   3. the graph pane's merged call paths at 80 columns (the demo): the
#      figures' narrow layout leaves names 4 levels down whole, and l scrolls
#      the names sideways (not a fold: the rows stay the same) so that one 6
#      levels down shows whole; the tasks pane there says COMMAND is past the
#      edge, and l scrolls the columns after PID to the names.
#   4. live: 3 and g together (one read of the terminal, before the event
#      list was ever drawn) show a full page of the oldest events held, not
#      one row.
cd "$(dirname "$0")/../.." || exit 2
. tests/tui/lib_tui.sh
need

# 1. writes per frame
tui_start 120 40 --demo
if ! wait_screen 'SNAPSHOT' 10; then
	fail "demo_starts"; evidence start; cat "$tmp/stderr"; finish
fi
# the pane shell's one child (KTOP may be a copy under another name)
pid=$(pgrep -P "$(tmux -L "$SOCK" display-message -p -t t '#{pane_pid}')" | head -1)
syscw() { awk '/^syscw/ { print $2 }' "/proc/$pid/task/$pid/io"; }
sleep 0.5
w0=$(syscw)
for ((i = 0; i < 4; i++)); do
	for p in 1 2 3 4 5 6; do
		keys "$p"
		sleep 0.1
	done
done
wait_screen 'BPF statistics' 3
sleep 0.3
w1=$(syscw)
per=$(( (w1 - w0) / 24 ))
if [ -n "$w0" ] && [ "$per" -le 4 ]; then
	ok "a_frame_is_a_few_writes ($((w1 - w0)) writes for 24 pane switches)"
else
	fail "a_frame_is_a_few_writes: $((w1 - w0)) writes for 24 pane switches (~$per a frame)"
fi
tui_stop

# 2. the help overlay
tui_start 150 45 --demo
if ! wait_screen 'SNAPSHOT' 10; then
	fail "demo_starts"; evidence start; cat "$tmp/stderr"; finish
fi
keys '?'
wait_screen 'ktop help: every key' 3
if scr | grep -q '1 CPUs   2 Top'; then
	fail "help_covers_the_pane"; evidence help
else
	ok "help_covers_the_pane"
fi
: > "$tmp/help.txt"
for ((i = 0; i < 6; i++)); do
	scr >> "$tmp/help.txt"
	keys NPage
	sleep 0.2
done
flat=$(tr -s ' \n|\342\224\202' ' ' < "$tmp/help.txt")
if grep -q 'Spacegraph' "$tmp/help.txt"; then
	fail "help_label_and_description_apart: 'Spacegraph'"
elif [[ $flat == *"Enter, Space graph: fold or unfold the selected call"* ]] &&
     [[ $flat == *"latency: the event list at the selected CPU's worst sample, from the window before it"* ]] &&
     [[ $flat == *"see pane 1."* ]]; then
	ok "help_descriptions_whole_and_scrolled_to_the_end"
else
	fail "help_descriptions_whole_and_scrolled_to_the_end"; sed 's/^/    | /' "$tmp/help.txt" | head -60
fi
keys Escape
tui_stop

# 3. the graph at 80 columns
tui_start 80 30 --demo
if ! wait_screen 'SNAPSHOT' 10; then
	fail "demo_starts"; evidence start; cat "$tmp/stderr"; finish
fi
keys 4 v E
wait_screen 'call paths merged' 3
sleep 0.3
if scr | grep -q 'rw_verify_area() {' && scr | grep -q 'aa_file_perm() {'; then
	ok "graph_narrow_layout_leaves_names_room"
else
	fail "graph_narrow_layout_leaves_names_room"; evidence graph
fi
rows0=$(scr | grep -cE '\|( |$)')
keys l l
sleep 0.5
if wait_screen 'names scrolled 16' 2 && scr | grep -q 'preempt_schedule_irq() {' &&
   [ "$(scr | grep -cE '\|( |$)')" = "$rows0" ]; then
	ok "graph_l_scrolls_the_names"
else
	fail "graph_l_scrolls_the_names"; evidence graph-l
fi
# the tasks pane at 80 columns (issue 31 #5): COMMAND starts past the edge and
# the title says so; l moves the columns after PID until the names show,
# the pids stay where they are
keys 7
wait_screen 'Tasks: [0-9]' 3
if scr | grep -q 'COMMAND: l or Right' && ! scr | grep -q 'ktimers/1'; then
	ok "tasks_at_80_columns_says_where_command_is"
else
	fail "tasks_at_80_columns_says_where_command_is"; evidence tasks-80
fi
pids0=$(scr | awk 'NR > 5 { print substr($0, 1, 8) }' | head -5)
# a whole column a step: every title of the header stays whole (it read
# "PIDS" and "PID/s" when the columns moved 8 characters a step)
cut=
for n in 1 2 3 4 5 6 7 8 9; do
	keys l
	wait_screen "$n columns? scrolled" 3 || { cut="$cut step$n:no-title"; continue; }
	bad=$(scr | grep -A1 -m1 '^Tasks: ' | sed -n 2p | tr -s ' ' '\n' | grep -v '^$' |
		grep -vxE 'PID|EVENTS|EV/s|SYSC/s|CSW/s|RUNQ|OFF-CPU|CPU|S|LAST|COMMAND')
	[ -z "$bad" ] || cut="$cut step$n:$(echo $bad)"
done
if [ -z "$cut" ]; then
	ok "tasks_scroll_keeps_titles_whole"
else
	fail "tasks_scroll_keeps_titles_whole:$cut"; evidence tasks-80-cut
fi
keys h h h h h h
if wait_screen '3 columns scrolled' 3 && scr | grep -q ' COMMAND' &&
   scr | grep -q 'ktimers/1' &&
   [ "$(scr | awk 'NR > 5 { print substr($0, 1, 8) }' | head -5)" = "$pids0" ]; then
	ok "tasks_l_scrolls_to_the_names"
else
	fail "tasks_l_scrolls_to_the_names"; evidence tasks-80-l
fi
tui_stop

# 4. 3g at once, live
tui_start 120 35
if ! wait_screen 'events/s [0-9]' 10; then
	fail "live_starts"; evidence start; cat "$tmp/stderr"; finish
fi
sleep 1
keys 3g
if wait_screen 'Events: frozen' 3 && sleep 0.5 &&
   [ "$(scr | grep -cE '\[[0-9]{3}\] ')" -ge 25 ]; then
	ok "3g_shows_a_full_page_of_the_oldest_events"
else
	fail "3g_shows_a_full_page_of_the_oldest_events: $(scr | grep -cE '\[[0-9]{3}\] ') rows"
	evidence 3g
fi
keys q
tui_stop
finish
