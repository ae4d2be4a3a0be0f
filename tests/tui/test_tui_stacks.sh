#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The stacks pane (issue 17) under tmux on this host's kernel, keys in, screen
# text out, with a workload whose stacks are known: tests/tools/stackload
# sleeping in nanosleep(2) over and over.
#   1. ktop --stack sched:sched_switch: in the event list, a switch-out of the
#      workload (/ prev_pid=PID: others' stackloads may run too), z narrows to
#      its task, y opens the
#      caller tree of sched_switch with that event's stack selected: the
#      workload's syscall path is on the screen, each caller one level under
#      the frame it called (do_nanosleep <- __x64_sys_nanosleep <-
#      entry_SYSCALL_64...); v: the icicle draws the same path root first,
#      one row per frame, over the whole width; / finds a frame, Enter zooms
#      into it (the title's path, the first row), Backspace zooms out; in the
#      caller tree Enter on do_nanosleep narrows the view to the events under
#      it (a stack: clause) and lists them, all the workload's switches; s
#      offers a .folded file of the stacks shown, which reads back; q; the
#      kernel's tracing state is as before.
#   2. ktop without stacks: Y on a sched_switch asks kernel or user stacks; k
#      turns its kernel stacks on while tracing (the stacktrace trigger on the
#      event in ktop's instance) and the stacks pane fills with __schedule's
#      callers (the view, -F, keeps the workload's); q; state as before. u turns user stacks on too (the
#      instance's userstacktrace): the workload's own frames (stk_middle)
#      show under the kernel's.
#   3. Y in a recording: says it needs a live session, nothing else changes.
#   4. ktop --offcpu -P WORKLOAD (BPF): o in the stacks pane shows the off-CPU
#      stacks, a TIME column, the workload's sleep path with the time it slept.
#      The BPF pane (6), o: its off-CPU view lists the stacks of every task,
#      the workload's "schedule <- do_nanosleep <- hrtimer_nanosleep" among
#      them; Up/Down to the workload's task (found on the screen: hundreds
#      of tasks sleep as long on a busy host): its own stacks, that path first with
#      at least 20 ms a switch; i opens the stacks pane's icicle of that task's
#      waits, do_nanosleep in it.
#   5. A .ktop recorded with --offcpu (its off-CPU stacks, not the BPF
#      statistics) in the BPF pane (6): what is off, then the off-CPU view,
#      the workload's task listed and its sleep path.
cd "$(dirname "$0")/../.." || exit 2
. tests/tui/lib_tui.sh
need
need_tool stackload
state_save "$tmp/state.before"

"$TOOLS/stackload" sleep 1000000 20000 > "$tmp/load" &
LOADPID=$!
for ((i = 0; i < 100; i++)); do grep -q '^stackload pid' "$tmp/load" && break; sleep 0.05; done

# callers_in_order LABEL REGEX...: lines matching each REGEX, in this order down the
# screen, each indented more than the one before (the caller tree: callers under a frame)
callers_in_order() {
	local label=$1 prev_row=-1 prev_ind=-1 row ind line re
	shift
	for re in "$@"; do
		line=$(scr | grep -nE -- "$re" | head -1)
		row=${line%%:*}
		ind=$(echo "${line#*:}" | awk -v re="$re" '{ print match($0, re) }')
		if [ -z "$line" ] || [ "$row" -le "$prev_row" ] || [ "$ind" -le "$prev_ind" ]; then
			fail "$label: '$re' not under the frame before it"; evidence "$label" 45
			return 1
		fi
		prev_row=$row
		prev_ind=$ind
	done
	ok "$label"
}

# icicle_in_order LABEL NAME...: each NAME starts a row, rows in this order, going down
icicle_in_order() {
	local label=$1 prev=-1 row name
	shift
	for name in "$@"; do
		row=$(row_of "^$name( |\$)")
		if [ -z "$row" ] || [ "$row" -le "$prev" ]; then
			fail "$label: no row starting with $name below the row before"
			evidence "$label" 45
			return 1
		fi
		prev=$row
	done
	ok "$label"
}

# search TEXT: the search prompt (/) with TEXT, Enter
search() {
	keys /
	sleep 0.2
	keys -l "$1"
	keys Enter
	sleep 0.5
}

# ---- 1. --stack sched:sched_switch ------------------------------------------------------------
tui_start 170 50 --stack sched:sched_switch
if ! wait_screen 'LIVE' 10; then
	fail "live_start"; evidence start; finish
fi
sleep 2
keys 3 F
sleep 0.3
search "prev_pid=$LOADPID "
keys z
if wait_screen "^ view pid:$LOADPID " 5; then
	ok "event_list_narrowed_to_the_workload"
else
	fail "event_list_narrowed_to_the_workload"; evidence z
fi
keys y
if wait_screen '^Stacks: caller tree of sched_switch events ' 5 &&
   wait_screen ' do_nanosleep' 10; then
	ok "y_opens_the_caller_tree_of_the_event ($(scr | grep -m1 '^Stacks:' | cut -c1-120))"
else
	fail "y_opens_the_caller_tree_of_the_event"; evidence y
fi
callers_in_order "caller_tree_shows_the_workloads_syscall_path" ' __schedule( |$)' \
	' do_nanosleep( |$)' ' __x64_sys_nanosleep( |$)' ' entry_SYSCALL_64'
keys v
if wait_screen '^Stacks: icicle of sched_switch events' 5; then
	sleep 0.5
	icicle_in_order "icicle_draws_the_path_root_first" 'entry_SYSCALL_64[a-z_]*' \
		'__x64_sys_nanosleep' 'do_nanosleep' '__schedule'
else
	fail "icicle_draws_the_path_root_first: no icicle"; evidence v
fi
# The search's weight is the selected frame's events over the view's: nearly
# all the workload's switches go through its sleep (a preemption on the way
# back to user mode, seen once in 446, takes another path)
search '__x64_sys_nanosleep'
if wait_screen '"__x64_sys_nanosleep": 1 frame, [0-9.]+%' 5 &&
   scr | awk '
	/^Stacks: icicle/ { for (i = 1; i < NF; i++) if ($(i + 1) == "events,") all = $i
			    if (match($0, /1 frame, [0-9.]+%/)) w = substr($0, RSTART + 9, RLENGTH - 10) }
	/^__x64_sys_nanosleep  [0-9]+ events/ { n = $2 }
	END { if (!all || !n || w == "") exit 1
	      p = 100 * n / all; exit !(n >= 0.99 * all && (w - p < 0.051 && p - w < 0.051)) }'; then
	ok "search_weighs_the_match ($(scr | grep -o '"__x64_sys_nanosleep": 1 frame, [0-9.]*%'): its events over the view's)"
else
	fail "search_weighs_the_match"; evidence search
fi
keys Enter
if wait_screen '^zoom: all > .*> __x64_sys_nanosleep  \(Backspace' 5 &&
   [ "$(row_of '^__x64_sys_nanosleep( |$)')" = "$(( $(row_of '^zoom: ') + 1 ))" ]; then
	ok "enter_zooms_into_the_frame"
else
	fail "enter_zooms_into_the_frame"; evidence zoom
fi
keys BSpace
# (the zoom line leaves __x64_sys_nanosleep once the key is in)
if wait_gone '^zoom: .*__x64_sys_nanosleep' 5 &&
   wait_screen '^zoom: all > entry_SYSCALL_64[a-z_]*( > [a-z_0-9]+)*  \(Backspace' 1; then
	ok "backspace_zooms_out_one_frame"
else
	fail "backspace_zooms_out_one_frame"; evidence out
fi
keys Home
if wait_screen '^zoom: all  \(Enter' 5 && wait_screen '^all( |$)' 1; then
	ok "home_zooms_to_the_root"
else
	fail "home_zooms_to_the_root"; evidence home
fi
# s: the stacks shown as .folded
keys s
if wait_screen 'save the [0-9]+ stacks shown \(\.folded\)' 5; then
	keys C-u
	keys -l "$tmp/shown.folded"
	keys Enter
	if wait_screen "saved $tmp/shown.folded \(folded" 5 &&
	   python3 - "$tmp/shown.folded" <<'PY'
import sys
n = 0
for line in open(sys.argv[1]):
    frames, _, v = line.rstrip('\n').rpartition(' ')
    assert frames and v.isdigit() and int(v) > 0 and ' ' not in frames, line
    n += int(v)
    assert 'do_nanosleep' in frames.split(';') or True
assert n > 0
PY
	then
		ok "s_saves_the_stacks_shown_as_folded ($(wc -l < "$tmp/shown.folded") lines)"
	else
		fail "s_saves_the_stacks_shown_as_folded"; evidence save
	fi
else
	fail "s_offers_folded"; evidence s
fi
grep -q ';do_nanosleep;' "$tmp/shown.folded" 2>/dev/null ||
	fail "folded_file_holds_the_workloads_path: $(head -3 "$tmp/shown.folded" 2>/dev/null)"
# the caller tree's Enter: the events under do_nanosleep
keys v
sleep 0.3
search 'do_nanosleep'
keys Enter
if wait_screen "^ view pid:$LOADPID && event:sched:sched_switch && stack:do_nanosleep;" 5 &&
   wait_screen "prev_pid=$LOADPID " 5; then
	sleep 0.5
	others=$(scr | grep -E '\[[0-9]{3}\]' | grep -vc "prev_pid=$LOADPID ")
	if [ "$others" = 0 ]; then
		ok "enter_lists_the_events_under_the_frame ($(scr | grep -c "prev_pid=$LOADPID ") rows)"
	else
		fail "enter_lists_the_events_under_the_frame: $others other rows"; evidence enter
	fi
else
	fail "enter_lists_the_events_under_the_frame"; evidence enter
fi
quit_ok "quit_after_stacks"
state_same "state_restored_after_stacks" "$tmp/state.before"

# ---- 2. Y: stack traces on while tracing ------------------------------------------------------
# -F: every task's switches are traced, the view keeps the workload's (on a busy machine the
# caller tree of every task's is thousands of stacks, tens of thousands of switches a second)
tui_start 170 50 -e sched:sched_switch -F "pid:$LOADPID"
if ! wait_screen 'LIVE' 10; then
	fail "live_start_without_stacks"; evidence start; finish
fi
sleep 1
pid=$(ktop_pid)
trig=$TRACEFS/instances/ktop-$pid/events/sched/sched_switch/trigger
keys 3 F
sleep 0.3
search "prev_pid=$LOADPID "
keys Y
if wait_screen 'stack traces of sched:sched_switch from now on: k kernel, u kernel and user' 5
then
	ok "Y_asks_kernel_or_user"
else
	fail "Y_asks_kernel_or_user"; evidence Y_asks
fi
keys k
if wait_screen 'kernel stacks of sched:sched_switch from now on' 10 &&
   grep -q '^stacktrace' "$trig" 2>/dev/null; then
	ok "Y_k_turns_the_trigger_on ($(head -1 "$trig"))"
else
	fail "Y_k_turns_the_trigger_on ($(cat "$trig" 2>&1 | head -2))"; evidence Y
fi
if wait_screen '^Stacks: caller tree of sched_switch events' 5 && wait_screen ' __schedule' 10; then
	# the workload's switches (the view's): / finds its sleep path
	sleep 1
	search 'do_nanosleep'
fi
if wait_screen ' do_nanosleep( |$)' 5; then
	ok "Y_fills_the_caller_tree"
else
	fail "Y_fills_the_caller_tree"; evidence Y2
fi
quit_ok "quit_after_Y"
state_same "state_restored_after_Y" "$tmp/state.before"

# ---- 2b. Y, u: kernel and user stacks ---------------------------------------------------------
tui_start 170 50 -e sched:sched_switch -F "pid:$LOADPID"
if wait_screen 'LIVE' 10; then
	sleep 1
	pid=$(ktop_pid)
	keys 3 F
	sleep 0.3
	search "prev_pid=$LOADPID "
	keys Y
	wait_screen 'k kernel, u kernel and user' 5
	keys u
	if wait_screen 'kernel and user stacks of sched:sched_switch from now on' 10 &&
	   grep -qx 1 "$TRACEFS/instances/ktop-$pid/options/userstacktrace" 2>/dev/null; then
		ok "Y_u_turns_user_stacks_on"
	else
		fail "Y_u_turns_user_stacks_on"; evidence Yu
	fi
	# the workload's own frames, under the kernel's in the caller tree
	sleep 2
	search 'stk_middle'
	if wait_screen ' stk_middle( |$)' 10; then
		ok "Y_u_names_the_workloads_frames"
	else
		fail "Y_u_names_the_workloads_frames"; evidence Yu2
	fi
else
	fail "live_start_for_user_stacks"; evidence Yu_start
fi
quit_ok "quit_after_Yu"
state_same "state_restored_after_Yu" "$tmp/state.before"

# ---- 3. Y in a recording ----------------------------------------------------------------------
tui_start 120 40 -i "${KTOP_FIXTURES:-tests/fixtures}/demo.ktop"
if wait_screen 'SNAPSHOT' 10; then
	keys 3
	sleep 0.5
	keys Y
	if wait_screen 'stack traces need a live session' 5; then
		ok "Y_in_a_recording_says_why"
	else
		fail "Y_in_a_recording_says_why"; evidence rec
	fi
else
	fail "recording_start"; evidence rec
fi
quit_ok "quit_recording"

# slept_20ms NAME ROW TIME_FIELD COUNT_FIELD: ok NAME when the row's time off CPU is at
# least 20 ms (19, for rounding) for each of its switches out (time 1.2ms / 3.4s, count
# 12 / 1.2k)
slept_20ms() {
	if echo "$2" | awk -v tf="$3" -v cf="$4" '{ t = $tf + 0; if ($tf ~ /ms$/) t /= 1e3;
		else if ($tf ~ /us$/) t /= 1e6; n = $cf + 0; if ($cf ~ /k$/) n *= 1e3;
		exit !(n > 0 && t >= 0.019 * n) }'; then
		ok "$1 ($(echo "$2" | cut -c1-70 | sed 's/  */ /g'))"
	else
		fail "$1: less than 20 ms a switch: $2"
	fi
}

# ---- 4. BPF off-CPU stacks --------------------------------------------------------------------
# -F: the BPF pane's tasks by time off CPU are every task's (-P records the workload's events
# alone): on a busy machine the workload ties with hundreds that slept all along, past the
# 128 listed; the view keeps its task alone, as a user would narrow to it
tui_start 170 50 --offcpu -P "$LOADPID" -F "pid:$LOADPID" -e sched:sched_switch
if wait_screen 'LIVE' 10; then
	sleep 2
	keys 8 o
	if wait_screen '^Stacks: caller tree of every task.s waits  off-CPU stacks \(BPF\)' 5 &&
	   wait_screen ' do_nanosleep( |$)' 10 && wait_screen '^ +TIME +SHARE +COUNT' 1; then
		# the first frame: at least 20 ms off CPU for each time the workload slept
		row=$(scr | grep -m1 -E '^ +[0-9.]+(us|ms|s) +[0-9.]+% +[0-9.]+k? ')
		slept_20ms offcpu_stacks_of_the_workload "$row" 1 3
	else
		fail "offcpu_stacks_of_the_workload"; evidence offcpu
	fi
	keys v
	if wait_screen '^zoom: all' 5 && wait_screen '^do_nanosleep( |$)' 5; then
		ok "offcpu_icicle"
	else
		fail "offcpu_icicle"; evidence offcpu_icicle
	fi
	# the BPF pane's off-CPU view
	keys 6 o
	if wait_screen '^Off-CPU stacks of every task' 5 &&
	   wait_screen ' schedule <- do_nanosleep <- hrtimer_nanosleep' 5; then
		ok "bpf_offcpu_every_task"
	else
		fail "bpf_offcpu_every_task"; evidence bpf_offcpu
	fi
	# towards the workload's row when it is on the screen, else down the list
	for ((i = 0; i < 80; i++)); do
		scr | grep -q "^Off-CPU stacks of $LOADPID stackload" && break
		at=$(scr | grep -n -m1 -E "^[> ] +$LOADPID stackload " | cut -d: -f1)
		sel=$(scr | grep -n -m1 -E '^> ' | cut -d: -f1)
		if [ -n "$at" ] && [ -n "$sel" ] && [ "$at" -lt "$sel" ]; then keys Up; else keys Down; fi
		sleep 0.1
	done
	if wait_screen "^Off-CPU stacks of $LOADPID stackload" 2 &&
	   wait_screen '^> +[0-9.]+(us|ms|s) .*schedule <- do_nanosleep <- ' 3; then
		# the first stack of the task: at least 20 ms off CPU a switch out
		row=$(scr | grep -m1 -E '^> +[0-9.]+(us|ms|s) ')
		slept_20ms bpf_offcpu_task_sleeps_in_nanosleep "$row" 2 4
	else
		fail "bpf_offcpu_task_sleeps_in_nanosleep"; evidence bpf_offcpu_task
	fi
	keys i
	if wait_screen "^Stacks: icicle of the waits of $LOADPID stackload  off-CPU stacks" 5 &&
	   wait_screen '(^| )do_nanosleep( |$)' 5; then
		ok "bpf_offcpu_i_opens_the_task_icicle"
	else
		fail "bpf_offcpu_i_opens_the_task_icicle"; evidence bpf_offcpu_icicle
	fi
else
	fail "offcpu_start"; evidence offcpu_start
fi
quit_ok "quit_offcpu"
state_same "state_restored_after_offcpu" "$tmp/state.before"

# ---- 5. a recording with off-CPU stacks and no BPF statistics: the BPF pane -----------------
# (a .ktop keeps the off-CPU stacks, not the statistics): it says what is off and shows its
# off-CPU view, the workload's task among the tasks by time off CPU, its sleep path
"$KTOP" --offcpu -P "$LOADPID" -e sched:sched_switch --batch --duration 2 \
	-o "$tmp/offcpu.ktop" >"$tmp/offcpu_rec.out" 2>&1
tui_start 170 50 -i "$tmp/offcpu.ktop"
keys 6
if wait_screen '^BPF statistics: not in this recording.*; off-CPU stacks below' 10 &&
   wait_screen '^Off-CPU time by task' 2 && wait_screen "^[> ] +$LOADPID stackload " 2 &&
   wait_screen ' schedule <- do_nanosleep <- hrtimer_nanosleep' 2; then
	ok "bpf_offcpu_view_of_a_recording"
else
	fail "bpf_offcpu_view_of_a_recording"; evidence bpf_offcpu_recording
	tail -3 "$tmp/offcpu_rec.out"
fi
quit_ok "quit_offcpu_recording"
state_same "state_restored_after_offcpu_recording" "$tmp/state.before"
finish
