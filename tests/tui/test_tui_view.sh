#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# View filters and the tasks pane in the interactive view (issue 18 #1, #2),
# under tmux, keys in, screen text out:
#   1. a snapshot (-i tests/fixtures/demo.ktop): in the event list, z narrows
#      to the selected row's task (the header says "view pid:N  X of Y
#      events", every row is that task's), # adds its CPU, w widens back one
#      clause, W clears; the view prompt (\) shows a mistake with a caret;
#      -F starts the view narrowed; the tasks pane (7) lists tasks and Enter
#      narrows to the selected one; q quits with status 0.
#   2. live: the same narrowing and widening on the live event list, then q;
#      the kernel's tracing state is as before.
cd "$(dirname "$0")/../.." || exit 2
. tests/tui/lib_tui.sh
need
demo=${KTOP_FIXTURES:-tests/fixtures}/demo.ktop

# the view line of the header: " view CLAUSES  N of M events ..."
view_line() {
	scr | grep -E '^ view .* of .* events' | head -1
}

# the TASK-PID column of the event rows: "comm-PID", one per line
row_pids() {
	scr | sed -n 's/^ *[^ ].*-\([0-9]\+\) \+\[[0-9]\{3\}\] .*/\1/p'
}

row_cpus() {
	scr | sed -n 's/^ *[^ ].*-[0-9]\+ \+\[0*\([0-9]\+\)\] .*/\1/p'
}

# all_rows_are VALUE LIST: every line of LIST is VALUE, and there is one at least
all_rows_are() {
	[ -n "$2" ] && [ -z "$(echo "$2" | grep -vx -- "$1")" ]
}

# narrow_and_widen LABEL: in the event list, z then # then w then W
narrow_and_widen() {
	local label=$1 v pids pid cpus cpu
	keys 3
	sleep 0.5
	keys F k k k
	sleep 0.5
	keys z
	if wait_screen '^ view pid:[0-9]+  [0-9.]+[kM]? of [0-9.]+[kM]? events' 5; then
		v=$(view_line)
		pid=$(echo "$v" | sed -n 's/^ view pid:\([0-9]*\) .*/\1/p')
		sleep 0.5
		pids=$(row_pids)
		if all_rows_are "$pid" "$pids"; then
			ok "${label}_z_narrows_to_the_rows_task ($v; $(echo "$pids" | wc -l) rows)"
		else
			fail "${label}_z_narrows_to_the_rows_task (pid $pid)"; evidence z 20
		fi
	else
		fail "${label}_z_narrows_to_the_rows_task: no view line"; evidence z 20
		return
	fi
	# the selected row's CPU, which # takes: Enter prints that row on the
	# message line. Not the bottom row's: live, the task may have run on the
	# other CPU in the rows under the selection.
	keys Enter
	sleep 0.5
	cpu=$(scr | tail -1 | sed -n 's/^ *[^ ].*-'"$pid"' \+\[0*\([0-9]\+\)\] .*/\1/p')
	if [ -z "$cpu" ]; then
		fail "${label}_enter_shows_the_selected_row"; evidence enter 8
		return
	fi
	keys '#'
	if wait_screen "^ view pid:$pid && cpu:$cpu " 5; then
		sleep 0.5
		cpus=$(row_cpus)
		if all_rows_are "$cpu" "$cpus" && all_rows_are "$pid" "$(row_pids)"; then
			ok "${label}_hash_adds_the_rows_cpu ($(view_line))"
		else
			fail "${label}_hash_adds_the_rows_cpu"; evidence cpu 20
		fi
	else
		fail "${label}_hash_adds_the_rows_cpu"; evidence cpu 20
	fi
	keys w
	if wait_screen "^ view pid:$pid  " 5 && ! view_line | grep -q 'cpu:'; then
		ok "${label}_w_widens_back_one_clause"
	else
		fail "${label}_w_widens_back_one_clause"; evidence widen 8
	fi
	# W, then G: the tail of every task again, not only the narrowed task's
	keys W
	sleep 0.5
	keys G
	sleep 0.7
	if wait_gone '^ view ' 5 && [ -n "$(row_pids)" ] && ! all_rows_are "$pid" "$(row_pids)"; then
		ok "${label}_W_clears_the_view (rows of $(row_pids | sort -u | wc -l) tasks)"
	else
		fail "${label}_W_clears_the_view"; evidence clear 20
	fi
}

state_save "$tmp/before.state"

# 1. a snapshot
if [ ! -f "$demo" ]; then
	fail "demo: $demo is missing (see tests/fixtures/README)"
	finish
fi
tui_start 140 40 "-i $demo"
if wait_screen '^ ktop tracer' 10 && wait_screen 'SNAPSHOT' 5; then
	ok "snapshot_view_starts"
else
	fail "snapshot_view_starts"; evidence start; cat "$tmp/stderr"
fi
narrow_and_widen snapshot
keys '\'
wait_screen 'View filter' 3
keys -l 'prev_stat & 2'
keys Enter
if wait_screen "^ +\\^ no event has a field 'prev_stat'" 3 && wait_screen '> prev_stat & 2' 1; then
	ok "snapshot_prompt_shows_a_caret_under_the_mistake"
else
	fail "snapshot_prompt_shows_a_caret_under_the_mistake"; evidence prompt 45
fi
keys C-u
keys -l 'event:sched_switch'
keys Enter
if wait_screen '^ view event:sched:sched_switch|^ view event:sched_switch' 3 &&
   [ -z "$(scr | grep -E '\[[0-9]{3}\] [^ ]+ +[0-9]+\.[0-9]{6}: ' | grep -v 'sched_switch:')" ]; then
	ok "snapshot_prompt_clause_narrows_the_event_list"
else
	fail "snapshot_prompt_clause_narrows_the_event_list"; evidence clause 20
fi
keys W
keys 7
if wait_screen '^Tasks: [0-9]+' 5 && wait_screen 'PID +EVENTS +EV/s' 1; then
	ok "tasks_pane_lists_tasks"
else
	fail "tasks_pane_lists_tasks"; evidence tasks 20
fi
# the first row: its pid; Enter narrows every pane to it
tpid=$(scr | sed -n '/PID \+EVENTS/{n;p;q}' | awk '{ print $1 }')
keys Enter
if [ -n "$tpid" ] && wait_screen "^ view pid:$tpid  " 5; then
	keys 3
	sleep 0.7
	if all_rows_are "$tpid" "$(row_pids)"; then
		ok "tasks_enter_narrows_every_pane (pid $tpid)"
	else
		fail "tasks_enter_narrows_every_pane (pid $tpid)"; evidence tasks-enter 20
	fi
else
	fail "tasks_enter_narrows_every_pane (pid '$tpid')"; evidence tasks-enter 20
fi
quit_ok "snapshot_quits_with_q"

# -F: the view starts narrowed
tui_start 140 40 "-i $demo -F cpu:1"
if wait_screen '^ view cpu:1  [0-9.]+[kM]? of ' 10 && keys 3 && sleep 0.7 &&
   all_rows_are 1 "$(row_cpus)"; then
	ok "F_starts_the_view_narrowed"
else
	fail "F_starts_the_view_narrowed"; evidence F 20; cat "$tmp/stderr"
fi
quit_ok "F_view_quits_with_q"

# 2. live
start_load
tui_start 140 40 ""
if wait_screen 'LIVE' 20; then
	ok "live_view_starts"
else
	fail "live_view_starts"; evidence live; cat "$tmp/stderr"
fi
sleep 1
narrow_and_widen live
quit_ok "live_quits_with_q"
state_same "tracing_state_unchanged" "$tmp/before.state"
finish
