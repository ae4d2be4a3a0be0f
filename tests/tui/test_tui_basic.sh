#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ktop's interactive view as a person uses it, under tmux, on this host's live
# kernel: start and see real numbers, switch panes, search, pause and resume,
# resize, change theme, help overlay, quit; the terminal and the kernel's
# tracing state are as before.
cd "$(dirname "$0")/../.." || exit 2
. tests/tui/lib_tui.sh
need

state_save "$tmp/before.state"
start_load
tui_start 120 40

# 1. start: header, panes, and real non-zero numbers
if wait_screen '^ ktop tracer' 20 && wait_screen 'events/s [1-9]' 10; then
	ok "start_header_shows_events_per_second"
else
	fail "start_header_shows_events_per_second"; evidence start; cat "$tmp/stderr"
fi
# a CPU row: "  0     12.3k      0    6.2% ..." with a non-zero rate and some share
if wait_screen '^ +[0-9]+ +[0-9.]*[1-9][0-9.]*[kMG]? +[0-9.kMG]+ +[0-9.]+%' 10; then
	ok "cpu_pane_has_nonzero_rates_and_shares"
else
	fail "cpu_pane_has_nonzero_rates_and_shares"; evidence cpus
fi
if scr | grep -q 'Flags column of the kernel' && scr | grep -Eq '^ 3 context +z NMI'; then
	ok "cpu_pane_shows_flag_legend"
else
	fail "cpu_pane_shows_flag_legend"; evidence legend
fi
if scr | grep -q 'unavailable: .*function'; then
	ok "header_names_missing_features"
else
	fail "header_names_missing_features"; evidence header 5
fi

# 2. switch panes: number keys, Tab, Shift-Tab
keys 2
if wait_screen 'Top events and functions by count' 5 &&
   wait_screen '^ +[0-9.]+[kMG]? +[0-9.kMG-]+ .*(sys_enter|sched_switch|sys_exit)' 5; then
	ok "top_pane_lists_events_with_counts"
else
	fail "top_pane_lists_events_with_counts"; evidence top
fi
keys F6
if wait_screen 'Top events and functions by rate' 3; then
	ok "f6_changes_sort_key"
else
	fail "f6_changes_sort_key"; evidence sort 6
fi
keys Tab
if wait_screen 'Events: following the live tail' 5 &&
   wait_screen '-[0-9]+ +\[[0-9]{3}\] [.dDbX][.NnpLlBb][.zZhHs][.0-9a-f][.0-9a-f] +[0-9]+\.[0-9]{6}: [a-z_]+: ' 5; then
	ok "tab_to_event_list_in_kernel_trace_format"
else
	fail "tab_to_event_list_in_kernel_trace_format"; evidence events
fi
keys BTab
if wait_screen 'Top events and functions' 3; then
	ok "shift_tab_goes_back"
else
	fail "shift_tab_goes_back"; evidence btab 6
fi
keys 4
if wait_screen 'function_graph: not built in' 3; then
	ok "graph_pane_says_why_not_available"
else
	fail "graph_pane_says_why_not_available"; evidence graph
fi

# 3. search in the event list: / sched_switch Enter, then the selected row
keys 3
wait_screen 'Events:' 3
keys / sched_switch Enter
if wait_screen 'Events: frozen' 5 && wait_screen 'search "sched_switch"' 2; then
	keys Enter
	# the selected row, shown whole in the footer: comm (16 wide, may hold spaces)-PID [CPU]
	if wait_footer '^.{16}-[0-9]+ +\[[0-9]{3}\] .*: sched_switch: prev_comm=' 5; then
		ok "search_selects_a_matching_event"
	else
		fail "search_selects_a_matching_event"; evidence search
	fi
else
	fail "search_selects_a_matching_event: no frozen view after search"; evidence search
fi
before=$(scr | tail -1)
keys n
sleep 0.3
keys Enter
if wait_footer 'sched_switch: prev_comm=' 10 && [ "$(scr | tail -1)" != "$before" ]; then
	ok "n_finds_the_next_older_match"
else
	fail "n_finds_the_next_older_match"; evidence n
fi
keys End
if wait_screen 'Events: following the live tail' 3; then
	ok "end_follows_the_tail_again"
else
	fail "end_follows_the_tail_again"; evidence end
fi

# jump to a time: the TIMESTAMP of a row on screen, minus a little
ts=$(scr | grep -Eo ' [0-9]+\.[0-9]{6}: ' | sed -n 5p | tr -d ' :')
keys t
wait_screen 'jump to time' 2
keys "$ts" Enter
if [ -n "$ts" ] && wait_screen 'Events: frozen' 3; then
	last=$(scr | grep -Eo ' [0-9]+\.[0-9]{6}: ' | tail -1 | tr -d ' :')
	if awk -v a="$last" -v b="$ts" 'BEGIN { exit !(a == b) }'; then
		ok "t_jumps_to_a_time ($ts)"
	else
		fail "t_jumps_to_a_time: asked $ts, last row $last"; evidence jump
	fi
else
	fail "t_jumps_to_a_time: no frozen view ($ts)"; evidence jump
fi
keys End

# lost events per CPU on demand, refresh interval, narrowing the top view
keys L
if wait_screen 'lost per CPU: cpu0 [0-9]' 3; then
	ok "L_shows_lost_events_per_cpu"
else
	fail "L_shows_lost_events_per_cpu"; evidence lost 6
fi
keys L
keys +
if wait_screen 'refresh 375ms' 3; then
	ok "plus_slows_refresh"
else
	fail "plus_slows_refresh"; evidence refresh 3
fi
keys -
wait_screen 'refresh 250ms' 3 || fail "minus_restores_refresh"
keys p
keys 1 Enter
if wait_screen 'narrowed to pid 1 ' 3; then
	ok "p_narrows_top_view_to_a_pid"
else
	fail "p_narrows_top_view_to_a_pid"; evidence narrow 8
fi
keys x
wait_gone 'narrowed to' 3 || fail "x_clears_narrowing"
keys 3
wait_screen 'Events:' 3

# 4. pause and resume: the view stands still, the header counts what arrived
keys Space
if wait_screen 'PAUSED \+[0-9.]+[kMG]? since' 3; then
	# the header is drawn first: let the frame that shows it reach tmux whole
	sleep 0.5
	a=$(scr | sed -n '6,30p')
	sleep 1.2
	b=$(scr | sed -n '6,30p')
	n1=$(scr | grep -Eo 'PAUSED \+[0-9.kMG]+' | head -1)
	sleep 1.2
	n2=$(scr | grep -Eo 'PAUSED \+[0-9.kMG]+' | head -1)
	if [ "$a" = "$b" ] && [ -n "$n1" ] && [ "$n1" != "$n2" ]; then
		ok "pause_freezes_view_and_counts_arrivals"
	else
		fail "pause_freezes_view_and_counts_arrivals: rows same=$([ "$a" = "$b" ] && echo yes || echo no) '$n1' -> '$n2'"
		evidence pause
	fi
else
	fail "pause_freezes_view_and_counts_arrivals: no PAUSED"; evidence pause
fi
keys Space
if wait_screen ' LIVE ' 3; then
	ok "space_resumes"
else
	fail "space_resumes"; evidence resume 3
fi

# 5. resize: 80x24 fully usable, too small says so, back
tmux -L "$SOCK" resize-window -t t -x 80 -y 24
if wait_screen '^F1Help F2Theme' 3 && [ "$(scr | wc -l)" -le 24 ] &&
   ! scr | awk 'length > 80 { bad = 1 } END { exit !bad }' &&
   scr | head -1 | grep -q 'ktop tracer'; then
	keys 1
	if wait_screen '^all +[0-9.]+' 3 && wait_screen ' 5 migrate' 3; then
		ok "resize_to_80x24_keeps_header_panes_footer_legend"
	else
		fail "resize_to_80x24_keeps_header_panes_footer_legend"; evidence 80x24
	fi
else
	fail "resize_to_80x24: layout"; evidence 80x24
fi
# the header names every feature that --features says is missing, whole, at 80
# columns (the probe kinds, listed apart after them, belong to the probe prompt)
hdr=$(scr | sed '/^ 1 CPUs /,$d')
feats=$("$KTOP" --features 2>/dev/null |
	awk '/^probe kinds/ { exit } $2 ~ /^(not|needs|unknown)$/ { print $1 }')
missing_ok=1
for feat in $feats; do
	echo "$hdr" | grep -Eq "(: |, |; |^ +)$feat[ ,;]" || missing_ok=0
done
if [ -n "$feats" ] && ! echo "$hdr" | grep -q 'unavailable: '; then
	missing_ok=0
fi
if [ "$missing_ok" = 1 ]; then
	ok "header_names_every_missing_feature_at_80x24"
else
	fail "header_names_every_missing_feature_at_80x24"; evidence header-80x24 6
fi
tmux -L "$SOCK" resize-window -t t -x 30 -y 8
if wait_screen 'needs at least' 3; then
	ok "too_small_terminal_says_so"
else
	fail "too_small_terminal_says_so"; evidence small
fi
tmux -L "$SOCK" resize-window -t t -x 120 -y 40
if wait_screen '^F1Help F2Theme' 3 && wait_screen 'Flags column' 3; then
	ok "resize_back_redraws"
else
	fail "resize_back_redraws"; evidence back
fi

# 6. theme: F2, move down, Enter: colours change and the choice is saved
before=$(scr_esc | head -3 | md5sum)
keys F2
if wait_screen 'Setup: colour theme' 3; then
	keys Down
	sleep 0.3
	keys Enter
	if wait_screen 'saved in ktop.conf' 3; then
		name=$(scr | grep -Eo 'theme [a-z-]+, saved' | awk '{print $2}' | tr -d ,)
		after=$(scr_esc | head -3 | md5sum)
		if grep -q "^theme = $name\$" "$tmp/conf/ktop/ktop.conf" 2>/dev/null &&
		   [ "$before" != "$after" ]; then
			ok "f2_switches_theme_live_and_saves_it ($name)"
		else
			fail "f2_switches_theme_live_and_saves_it: conf=$(cat "$tmp/conf/ktop/ktop.conf" 2>&1) colours changed=$([ "$before" != "$after" ] && echo yes || echo no)"
		fi
	else
		fail "f2_switches_theme: no confirmation"; evidence theme
	fi
else
	fail "f2_opens_theme_chooser"; evidence theme
fi

# 7. help overlay: every key of the table, then Esc
keys '?'
if wait_screen 'ktop help: every key' 3 && scr | grep -q 'Shift-Tab' &&
   scr | grep -q 'F3, /'; then
	ok "help_overlay_lists_keys"
else
	fail "help_overlay_lists_keys"; evidence help
fi
keys Escape
if wait_gone 'ktop help: every key' 3; then
	ok "esc_closes_help"
else
	fail "esc_closes_help"; evidence esc
fi

# 8. F4: the filter prompt says what this kernel permits (tests/tui/test_tui_filter.sh: more)
keys F4
if wait_screen 'Filter +(this kernel does not permit function filtering|[0-9.]+k? functions available)' 3; then
	ok "f4_filter_prompt_is_honest"
else
	fail "f4_filter_prompt_is_honest"; evidence f4
fi
keys Escape

# 9. quit: exit status 0, terminal restored, tracing state as before
pid=$(ktop_pid)
keys q
for ((i = 0; i < 100; i++)); do [ -s "$tmp/exit" ] && break; sleep 0.1; done
if grep -q '^EXIT=0$' "$tmp/exit" 2>/dev/null; then
	ok "q_quits_with_status_0"
else
	fail "q_quits_with_status_0: $(cat "$tmp/exit" 2>&1) $(cat "$tmp/stderr" 2>&1)"
fi
# the shell after ktop writes it whole and renames it into place (lib_tui.sh)
for ((i = 0; i < 50; i++)); do [ -s "$tmp/stty" ] && break; sleep 0.1; done
if grep -Eq '(^| )icanon' "$tmp/stty" && grep -Eq '(^| )echo ' "$tmp/stty"; then
	ok "terminal_restored_after_quit"
else
	fail "terminal_restored_after_quit: $(grep -Eo -- '-?icanon|-?echo ' "$tmp/stty" | tr '\n' ' ')"
fi
[ -n "$pid" ] && [ -e "$TRACEFS/instances/ktop-$pid" ] && fail "instance ktop-$pid left behind"
state_same "tracing_state_unchanged_after_quit" "$tmp/before.state"
finish
