#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Snapshots in the interactive view, under tmux:
#   1. `ktop --stream | ktop -i -`: the reading side shows live data (its
#      event count grows), keys still work (its stdin is the pipe: ktop takes
#      the terminal from /dev/tty), and quitting it makes the streaming side
#      clean up (EPIPE/SIGPIPE): the kernel's tracing state is as before.
#   2. `ktop --demo` as the user nobody (no root, no tracefs): every pane
#      shows the demo's data; S saves it (mode 0600) and asks before
#      overwriting.
#   3. `ktop -i` of a .ktop written by `ktop -o` opens in the view.
cd "$(dirname "$0")/../.." || exit 2
. tests/tui/lib_tui.sh
need
demo=${KTOP_FIXTURES:-tests/fixtures}/demo.ktop

# held count from the header line "events/s N  held 12.3k  lost ..."
held() {
	scr | sed -n 's/.* held \([0-9.]*\)\([kMG]\?\) .*/\1 \2/p' | head -1 |
		awk '{ m = $2 == "k" ? 1e3 : $2 == "M" ? 1e6 : $2 == "G" ? 1e9 : 1; printf "%d\n", $1 * m }'
}

state_save "$tmp/before.state"
start_load

# 1. a live stream through a pipe
tui_start 120 40 "--stream 2>'$tmp/stream.err' | $KTOP -i -"
if wait_screen '^ ktop tracer' 20 && wait_screen 'stream on standard input|LIVE' 5; then
	ok "stream_view_starts"
else
	fail "stream_view_starts"; evidence start; cat "$tmp/stderr" "$tmp/stream.err"
fi
sleep 2
h1=$(held)
sleep 2
h2=$(held)
if [ -n "$h1" ] && [ -n "$h2" ] && [ "$h2" -gt "$h1" ] && [ "$h1" -gt 0 ]; then
	ok "stream_view_grows_live (held $h1 -> $h2)"
else
	fail "stream_view_grows_live (held '$h1' -> '$h2')"; evidence grow 6
fi
keys 3
if wait_screen '\[[0-9]{3}\] [.dDbX][.NnpLlBb][.zZhHs][.0-9a-f][.0-9a-f] +[0-9]+\.[0-9]{6}: [a-z_]+: ' 5; then
	ok "stream_view_event_list_has_kernel_events"
else
	fail "stream_view_event_list_has_kernel_events"; evidence events
fi
spid=$(pgrep -f -- "^$KTOP --stream" | head -1)
keys q
for ((i = 0; i < 100; i++)); do [ -f "$tmp/exit" ] && break; sleep 0.1; done
if [ "$(cat "$tmp/exit" 2>/dev/null)" = "EXIT=0" ]; then
	ok "stream_view_quits_with_q"
else
	fail "stream_view_quits_with_q ($(cat "$tmp/exit" 2>/dev/null))"; cat "$tmp/stderr"
fi
if [ -z "$spid" ] || wait_exit "$spid" 10; then
	ok "streaming_side_exits_when_the_reader_goes"
else
	fail "streaming_side_exits_when_the_reader_goes (pid $spid still there)"
	kill "$spid"
fi
tmux -L "$SOCK" kill-session -t t 2>/dev/null
state_same "tracing_state_unchanged_after_the_stream" "$tmp/before.state"

# 2. the demo, without root
if [ ! -f "$demo" ]; then
	fail "demo: $demo is missing (see tests/fixtures/README)"
	finish
fi
mkdir -p "$tmp/nobody"
chmod 777 "$tmp/nobody"
chmod 755 "$tmp"
# as nobody, in a directory nobody may write (for S)
rm -f "$tmp/exit"
tmux -L "$SOCK" -f /dev/null new-session -d -s t -x 130 -y 40 \
	"cd '$tmp/nobody' && KTOP_FIXTURES='$PWD/$(dirname "$demo")' setpriv --reuid=nobody --regid=nogroup --clear-groups $PWD/${KTOP#./} --demo 2>'$tmp/stderr'; echo \"EXIT=\$?\" >'$tmp/exit'; sleep 600"
if wait_screen '^ ktop tracer function_graph' 10 && wait_screen 'SNAPSHOT' 2; then
	ok "demo_starts_without_root"
else
	fail "demo_starts_without_root"; evidence demo; cat "$tmp/stderr"
fi
keys 2
if wait_screen '^ +[0-9.]+[kMG]? +[0-9]+ .*(funcgraph_entry|sched_switch|sample_threshold|vfs_read)' 5; then
	ok "demo_top_pane"
else
	fail "demo_top_pane"; evidence top
fi
keys 3
# the demo's kernel (6.1-rt, common_preempt_lazy_count) writes seven flag columns
if wait_screen '\] [.dDbX][.n][.L][.zZhHs][.0-9a-f][.0-9a-f+][.0-9a-f] +[0-9]+\.[0-9]{6}: (sched_|softirq|timerlat|osnoise|irq_noise|sample_threshold)' 5; then
	ok "demo_event_list"
else
	fail "demo_event_list"; evidence events
fi
keys 4
if wait_screen 'vfs_read\(\)|rw_verify_area\(\)|read_zero\(\)' 5; then
	ok "demo_graph_pane_has_calls"
else
	fail "demo_graph_pane_has_calls"; evidence graph
fi
keys 5
if wait_screen '(timerlat|osnoise).*' 5 && wait_screen '^ +ALL +[1-9][0-9]* ' 5; then
	ok "demo_latency_pane_has_samples"
else
	fail "demo_latency_pane_has_samples"; evidence latency
fi
keys S
if wait_screen 'save to' 3; then
	keys C-u
	for ((i = 0; i < 40; i++)); do keys BSpace; done
	keys -l "saved.json"
	keys Enter
	if wait_screen 'saved saved.json' 5 && [ "$(stat -c %a "$tmp/nobody/saved.json" 2>/dev/null)" = 600 ] &&
	   python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/nobody/saved.json"; then
		ok "S_saves_json_mode_0600"
	else
		fail "S_saves_json_mode_0600"; evidence save 45; ls -la "$tmp/nobody"
	fi
	keys S
	wait_screen 'save to' 3
	for ((i = 0; i < 40; i++)); do keys BSpace; done
	keys -l "saved.json"
	keys Enter
	if wait_screen 'exists: overwrite' 3; then
		# one key answers (issue 31 #7): n alone, no Enter
		keys n
		wait_screen 'not saved: .*saved.json exists' 3 && ! scr | grep -q 'overwrite?' &&
			ok "S_asks_before_overwriting_n_alone_answers" ||
			{ fail "S_asks_before_overwriting_n_alone_answers"; evidence overwrite; }
		# the keys after it are the next save's, none lost
		keys S
		wait_screen 'save to' 3
		for ((i = 0; i < 40; i++)); do keys BSpace; done
		keys -l "again.json"
		keys Enter
		wait_screen 'saved again.json' 5 && [ -s "$tmp/nobody/again.json" ] &&
			ok "the_save_after_the_answer_takes_every_key" ||
			{ fail "the_save_after_the_answer_takes_every_key"; evidence again; }
	else
		fail "S_asks_before_overwriting"; evidence overwrite
	fi
else
	fail "S_opens_the_save_prompt"; evidence save
fi
keys q
for ((i = 0; i < 50; i++)); do [ -f "$tmp/exit" ] && break; sleep 0.1; done
check_exit=$(cat "$tmp/exit" 2>/dev/null)
[ "$check_exit" = "EXIT=0" ] && ok "demo_quits_with_status_0" ||
	{ fail "demo_quits_with_status_0 ($check_exit)"; cat "$tmp/stderr"; }
tui_stop

# 3. -o then -i in the view
timeout 30 "$KTOP" --batch --duration 1 -o "$tmp/live.ktop" >/dev/null 2>"$tmp/o.err"
if [ -s "$tmp/live.ktop" ]; then
	tui_start 120 40 "-i '$tmp/live.ktop'"
	if wait_screen 'SNAPSHOT' 10 && wait_screen "snapshot $tmp/live.ktop" 3; then
		ok "open_ktop_written_by_o"
	else
		fail "open_ktop_written_by_o"; evidence open; cat "$tmp/stderr"
	fi
	keys q
else
	fail "ktop -o wrote nothing: $(cat "$tmp/o.err")"
fi
state_same "tracing_state_unchanged_at_the_end" "$tmp/before.state"
finish
