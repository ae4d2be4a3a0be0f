# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 26, the latency pane's A->B latencies under tmux on the hist engine
# (the host has only the BPF one: tests/tui/test_tui_agg.sh): ktop --no-bpf
# --latency on the wakeup latency; pane 5 shows the measure on the "hist"
# engine with its pairs and the histogram's bars; m and a syscall latency
# typed while it runs make a second synthetic event ktop_<pid>_1 and its
# triggers in ktop-agg-<pid>, and the pane shows its pairs; a spec naming a
# field the event has not shows the message and makes nothing. q: status 0,
# no ktop_ synthetic event, no ktop-agg instance, the tracing state as before.
# 6.12 only: scenario 23 runs both engines on both kernels; this one is the
# UI over the same set.
# kernels: backports
# timeout: 600

need ktop
need tmux
need tracestate
need pingpong
WAKE='sched:sched_waking -> sched:sched_switch on pid = next_pid'

evidence()
{
	note "--- screen ($1):"
	scr | sed -e 's/[[:space:]]*$//' -e '/^$/d' -e 's/^/  |/'
	show /tmp/ap.err
	show $T/synthetic_events
}

tracestate -x -R --save /tmp/ap.before || fail "tracestate -R --save failed"
rm -f /tmp/ap.rc
tmux_new 200 45 "ktop --no-bpf -e sched:sched_switch --latency '$WAKE' 2> /tmp/ap.err; echo \"ktop exit \$?\" > /tmp/ap.rc" ||
	fail "tmux did not start"
wait_screen '^ ktop tracer' 400 || { evidence start; fail "no header within 400 s"; }
kpid=$(pidof ktop)
pingpong -n 200 -c 0 > /dev/null &
keys 5
wait_screen '^ +0 +[1-9][0-9]* +[0-9.]+ .* hist +sched:sched_waking -> sched:sched_switch on pid = next_pid' 60 ||
	{ evidence pane; fail "pane 5: no row of the hist engine with pairs"; }
wait_screen 'histogram of [0-9]+ pairs \(log2 buckets.*\), hist engine' 10 &&
wait_screen '^ +[0-9.]+ - +[0-9.]+ us +[0-9]+ #' 5 || { evidence bars; fail "pane 5: no histogram"; }
note "pane 5: the hist engine's row and bars"

# a field the event has not: the message, nothing made
keys m
wait_screen 'measure in the kernel: START -> END' 10 || { evidence prompt; fail "m: no prompt"; }
keys -l 'raw_syscalls:sys_enter -> raw_syscalls:sys_exit on idx = id'
keys Enter
wait_screen "^refused: raw_syscalls:sys_enter has no field .idx." 30 || { evidence refused; fail "refused: no message"; }
grep -q "^ktop_${kpid}_1[[:space:]]" $T/synthetic_events && fail "refused: ktop_${kpid}_1 made"
# m again, mended: a second synthetic event and its triggers
keys m
wait_screen 'START -> END .*on idx = id' 10 || { evidence mend; fail "m again: the text is not offered"; }
keys C-u
keys -l 'raw_syscalls:sys_enter -> raw_syscalls:sys_exit'
keys Enter
wait_screen '^ +1 +[1-9][0-9]* +[0-9.]+ .* hist +raw_syscalls:sys_enter -> raw_syscalls:sys_exit' 120 ||
	{ evidence made; fail "made: no row 1 with pairs on the hist engine"; }
grep -q "^ktop_${kpid}_1[[:space:]]" $T/synthetic_events || { evidence syn; fail "no synthetic event ktop_${kpid}_1"; }
grep -q "ktop_${kpid}_1" $T/instances/ktop-agg-$kpid/events/raw_syscalls/sys_exit/trigger ||
	{ cat $T/instances/ktop-agg-$kpid/events/raw_syscalls/sys_exit/trigger; fail "no trigger on sys_exit for it"; }
note "m: ktop_${kpid}_1 made, its pairs shown"
wait

keys q
wait_for "[ -s /tmp/ap.rc ]" 120 || { evidence quit; fail "ktop did not quit on 'q'"; }
tmux kill-server 2>/dev/null
grep -qx 'ktop exit 0' /tmp/ap.rc || { show /tmp/ap.err; fail "ktop did not exit with 0"; }
grep -q "^ktop_${kpid}_" $T/synthetic_events && { show $T/synthetic_events; fail "ktop_${kpid}_ events left"; }
[ -d "$T/instances/ktop-agg-$kpid" ] && fail "ktop-agg-$kpid left"
tracestate -x --expanded-ok --diff /tmp/ap.before || fail "tracing state not restored"
note "ok"
