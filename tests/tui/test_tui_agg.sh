#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The A->B latencies of the latency pane (5) under tmux, on this host's BPF
# engine (issue 26): ktop starts with --latency on the wakeup latency while
# pingpong's two threads, pinned to one CPU, pass a byte N times; the pane
# lists the measure (pairs, figures, engine), the log2 histogram as bars and
# the breakdown by next_pid, where each pingpong tid has at most N + 1
# wakeups (a round wakes a thread once, or not where the thread was only
# preempted: on one CPU that is most of them) and at least N / 4. m
# opens the prompt: a spec the engine refuses shows the message and the
# caret under the field, and makes nothing; m again offers the text to mend,
# and a syscall latency is measured from then on. Enter opens the event list
# on the window from the worst pair's START to its END (its title); A
# switches to the per-CPU table and back. q leaves the tracing state as it
# was.
cd "$(dirname "$0")/../.." || exit 2
. tests/tui/lib_tui.sh
need
need_tool pingpong
N=${KTOP_PINGPONG_N:-4000}
WAKE='sched:sched_waking -> sched:sched_switch on pid = next_pid'

state_save "$tmp/before.state"
"$TOOLS/pingpong" -n "$N" -c 0 -w "$tmp/go" > "$tmp/pp.out" &
PP=$!
for ((i = 0; i < 100; i++)); do grep -q '^tids' "$tmp/pp.out" && break; sleep 0.05; done
read -r _ A B < "$tmp/pp.out"
tui_start 220 50 -e sched:sched_switch --latency "\"$WAKE\""
if ! wait_screen '^ ktop tracer' 20; then
	fail "start"; evidence start; cat "$tmp/stderr"
	kill "$PP" 2>/dev/null
	finish
fi
: > "$tmp/go"
wait "$PP" || fail "pingpong failed"
keys 5
row0='^ +0 +[0-9]+ +[0-9.]+ .* bpf +sched:sched_waking -> sched:sched_switch on pid = next_pid'
if wait_screen 'A->B latencies measured in the kernel' 5 && wait_screen "$row0" 5 &&
   wait_screen 'histogram of [0-9]+ pairs \(log2 buckets.*\), bpf engine' 5 &&
   wait_screen '^ +[0-9.]+ - +[0-9.]+ us +[0-9]+ #' 2; then
	ok "pane 5: the measure's row, its engine, the histogram as bars"
else
	fail "pane 5"; evidence pane
fi
# each pingpong tid: up to N wakeups (one more for the start pipe), in the breakdown by next_pid
pairs_of() { scr | sed -n "s/^ *\([0-9][0-9]*\) \{1,\}[^ ]\{1,\} \{1,\}[^ ]\{1,\}  $1 *\$/\1/p" | head -1; }
for ((i = 0; i < 40; i++)); do
	pa=$(pairs_of "$A") pb=$(pairs_of "$B")
	[ -n "$pa" ] && [ -n "$pb" ] && [ "$pa" -ge $((N / 4)) ] && [ "$pb" -ge $((N / 4)) ] &&
		break
	sleep 0.25
done
lo=$((N / 4)) hi=$((N + 1))
if [ -n "$pa" ] && [ -n "$pb" ] && [ "$pa" -ge $lo ] && [ "$pa" -le $hi ] &&
   [ "$pb" -ge $lo ] && [ "$pb" -le $hi ]; then
	ok "breakdown: pingpong's tids $A and $B woken $pa and $pb times in $N rounds"
else
	fail "breakdown: pingpong's tids $A ($pa) and $B ($pb), wanted $lo..$hi"
	evidence breakdown
fi

# the breakdown's order: F6/> the next (pairs, mean, max, key), Left the previous
brk_rows() { scr | sed -n '/^ *PAIRS.* MAX .*next_pid/,$p' |
	sed -n 's/^ *\([0-9][0-9]*\) \{1,\}\([^ ]\{1,\}\) \{1,\}\([^ ]\{1,\}\)  \([0-9][0-9]*\) *$/\1 \2 \3 \4/p'; }
# "2.13us" -> ns
to_ns='function ns(v) { n = v + 0; if (v ~ /ns$/) return n; if (v ~ /us$/) return n * 1e3;
	if (v ~ /ms$/) return n * 1e6; return n * 1e9 }'
keys '>'
if wait_screen 'MEAN v .*\(by mean; F6' 3 &&
   brk_rows | awk "$to_ns"' { m = ns($2); if (NR > 1 && m > prev * 1.0001) bad = 1; prev = m; n++ }
	END { exit !(n >= 2 && !bad) }'; then
	ok "> sorts the breakdown by mean latency, largest first"
else
	fail "> by mean"; evidence sort-mean; brk_rows | head -5
fi
keys '>'
if wait_screen 'MAX v .*\(by max; F6' 3 &&
   brk_rows | awk "$to_ns"' { m = ns($3); if (NR > 1 && m > prev * 1.0001) bad = 1; prev = m; n++ }
	END { exit !(n >= 2 && !bad) }'; then
	ok "> again: by the largest latency"
else
	fail "> by max"; evidence sort-max; brk_rows | head -5
fi
keys '>'
if wait_screen '\(by key; F6' 3 && [ "$(brk_rows | wc -l)" -ge 2 ] &&
   brk_rows | awk '{ print $4 }' | LC_ALL=C sort -c 2>/dev/null; then
	ok "> again: by key ($(brk_rows | wc -l) keys in order)"
else
	fail "> by key"; evidence sort-key
fi
keys Left
if wait_screen 'MAX v .*\(by max; F6' 3; then ok "Left: back to by max"; else
	fail "Left"; evidence sort-left; fi
keys '>' '>'
wait_screen 'PAIRS v .*\(by pairs; F6' 3 || { fail "back to by pairs"; evidence sort-pairs; }

# a spec the engine refuses: the message, the caret under the field, nothing made
keys m
wait_footer 'measure in the kernel: START -> END' 3 || { fail "m: no prompt"; evidence prompt; }
keys -l 'sched:sched_waking -> sched:sched_switch on pid = prev_comm'
keys Enter
if wait_screen '^refused: pid is a number .* and prev_comm a string' 5; then
	line=$(scr | grep -n '^  sched:sched_waking -> sched:sched_switch on pid = prev_comm' | head -1)
	row=${line%%:*}
	text=${line#*:}
	caret=$(scr | sed -n "$((row + 1))p")
	want=$(echo "$text" | grep -bo 'prev_comm' | cut -d: -f1)
	got=$(echo "$caret" | grep -bo '\^' | cut -d: -f1)
	if [ -n "$line" ] && [ "$want" = "$got" ] && ! scr | grep -Eq '^ +1 +[0-9]+ '; then
		ok "refused: the message, the caret under prev_comm (column $got), no measure made"
	else
		fail "refused: caret at '$got', prev_comm at '$want'"; evidence refused
	fi
else
	fail "refused: no message"; evidence refused
fi
# m again: the text to mend; a syscall latency from now on
keys m
if wait_footer 'START -> END .*: sched:sched_waking -> sched:sched_switch on pid = prev_comm' 3; then
	ok "m again: the refused text offered to mend"
else
	fail "m again"; evidence mend
fi
keys C-u
keys -l 'raw_syscalls:sys_enter -> raw_syscalls:sys_exit on common_pid = common_pid'
keys Enter
row1='^ +1 +[1-9][0-9]* +[0-9.]+ .* bpf +raw_syscalls:sys_enter -> raw_syscalls:sys_exit'
if wait_screen "$row1" 10 && wait_gone '^refused:' 1 && wait_screen "$row0" 1 &&
   wait_screen '^1 worst .*, common_pid [0-9]+' 3; then
	ok "made: measure 1 counts syscall pairs, selected; measure 0 goes on"
else
	fail "made"; evidence made; cat "$tmp/stderr"
fi

# Enter on measure 0: the event list over its worst pair, START to END (+200 us):
# the title's window is the one the pane asked for
keys k
jumped=
for ((try = 0; try < 3 && !jumped; try++)); do
	wait_screen '^0 worst .*, next_pid [0-9]+, END at [0-9.]+' 3 || break
	line=$(scr | grep -E '^0 worst .*, next_pid [0-9]+, END at [0-9.]+' | head -1)
	key=$(echo "$line" | sed -n 's/.*, next_pid \([0-9]*\), END at.*/\1/p')
	end=$(echo "$line" | sed -n 's/.*, END at \([0-9.]*\).*/\1/p')
	keys Enter
	wait_footer '^0: the events of its worst pair \(.*, next_pid [0-9]+\)' 5
	got=$(scr | tail -1 | sed -n 's/^0: the events of its worst pair (.*, next_pid \([0-9]*\)).*/\1/p')
	win=$(scr | sed -n 's/^Events: .*  \([0-9.]*\)-\([0-9.]*\)  [0-9]* rows.*/\2/p' | head -1)
	if [ -n "$key" ] && [ "$got" = "$key" ]; then
		jumped=1
	else
		keys 5	# a new worst came between the screen and Enter: again
	fi
done
if [ -n "$jumped" ] && [ -n "$win" ] &&
   awk -v w="$win" -v e="$end" 'BEGIN { d = w - e - 0.0002; exit !(d > -0.0000015 && d < 0.0000015) }'; then
	ok "Enter: the event list over the worst pair (next_pid=$key), up to its END $end + 200 us"
else
	fail "Enter: window end '$win' for END '$end' (next_pid '$key', message '$got')"
	evidence jump
fi
keys 5 A
if wait_screen 'OS noise and timer latency' 3; then
	keys A
	if wait_screen "$row0" 3; then
		ok "A: the per-CPU table's page and back"
	else
		fail "A back"; evidence A2
	fi
else
	fail "A"; evidence A
fi
quit_ok "q: exit status 0"
state_same "tracing state as before" "$tmp/before.state"
finish
