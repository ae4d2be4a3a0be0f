#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Why events were lost, in the view (L: lost per CPU in the header):
#   1. `ktop --stream --stream-rate 2K | ktop -i -` under a one-byte dd: the
#      sender leaves most events out; the receiving view's L line names the
#      reason, "stream", on the loaded CPU;
#   2. a .ktop stream of version 2 (tests/fixtures/stream-v2-lost.ktop,
#      recorded by the ktop of that version): its records carry no reason, and
#      the view says "unknown" rather than blaming the kernel.
# The tracing state is as before.
cd "$(dirname "$0")/../.." || exit 2
. tests/tui/lib_tui.sh
need

state_save "$tmp/before.state"
ncpu=$(nproc)
cpu=$((ncpu > 1 ? 1 : 0))

# 1. a bound stream under load
timeout 8 taskset -c $cpu dd if=/dev/zero of=/dev/null bs=1 count=2000000000 2>/dev/null &
LOADPID=$!
tui_start_cmd 160 30 "$KTOP --stream --stream-rate 2K --no-bpf -e raw_syscalls --duration 3 \
2>'$tmp/send.err' | $KTOP -i - 2>'$tmp/stderr'"
wait_screen '^ ktop tracer' 10
# the sender has ended and said how many it left out; the view keeps what came
for ((i = 0; i < 100; i++)); do [ -s "$tmp/send.err" ] && break; sleep 0.1; done
keys L
if wait_screen "lost per CPU:.* cpu$cpu [0-9.]+[kMG]? \\((kernel [0-9.kMG]+, )?(ktop [0-9.kMG]+, )?stream [1-9]" 5
then
	ok "L_names_the_stream_bound_on_the_loaded_cpu ($(scr | grep -o 'lost per CPU:.*' |
		sed 's/ *$//'); sender: $(head -c 160 "$tmp/send.err"))"
else
	fail "L_names_the_stream_bound_on_the_loaded_cpu: $(cat "$tmp/send.err")"; evidence stream 8
fi
quit_ok "stream_view_quits_with_status_0"
kill "$LOADPID" 2>/dev/null
wait "$LOADPID" 2>/dev/null
LOADPID=

# 2. an older stream: the reasons were not recorded
tui_start 160 30 -i tests/fixtures/stream-v2-lost.ktop
wait_screen '^ ktop tracer' 10
keys L
if wait_screen 'lost per CPU: cpu0 [0-9.]+k \(unknown [0-9.]+k\) cpu1 [0-9.]+k \(unknown ' 5; then
	ok "L_says_unknown_for_a_version_2_stream"
else
	fail "L_says_unknown_for_a_version_2_stream"; evidence v2 8
fi
quit_ok "v2_view_quits_with_status_0"

state_same "tracing_state_as_before" "$tmp/before.state"
finish
