# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 3, scenario 1: ktop's function tracer with a filter sees a known
# function called by a known workload, with the right pid and comm.
#   ktop --batch -p function -l read_zero --json
# vmload reads /dev/zero COUNT times: ktop must count exactly COUNT calls of
# read_zero, all from vmload's pid (scenario function-filter shows the
# kernel's own view of the same workload).
# One kernel (bookworm): the function tracer in an instance, alike on both.
# kernels: bookworm
# timeout: 300

COUNT=200
need ktop
need tracestate
tracestate --save /tmp/kf.before || fail "tracestate --save failed"
ktop_start /tmp/kf.json --batch --json --interval 0.5 -p function -l "$FUNC" ||
	fail "ktop did not start"
sess=$T/instances/ktop-$KPID
[ -d "$sess" ] && note "session: instance ktop-$KPID, set_ftrace_filter: $(cat "$sess/set_ftrace_filter")"
vmload read /dev/zero $COUNT &
pid=$!
wait $pid || fail "vmload failed"
# Wait for a summary that holds them all, then quit as a user would.
wait_for "[ \$(json_sum /tmp/kf.json '{\"function\":\"$FUNC\"') -ge $COUNT ]" 20
ktop_stop INT
note "ktop exit status $KRC, $(wc -l < /tmp/kf.json) summaries"
nf=$(json_sum /tmp/kf.json "{\"function\":\"$FUNC\"")
np=$(json_sum /tmp/kf.json "{\"pid\":$pid,")
comm=$(grep -o "{\"pid\":$pid,\"comm\":\"[^\"]*\"" /tmp/kf.json | head -n 1 | sed 's/.*"comm":"//; s/"$//')
note "ktop saw $FUNC $nf times, pid $pid $np times, comm '$comm' (expected $COUNT, $COUNT, vmload)"
if [ "$nf" -ne $COUNT ] || [ "$np" -ne $COUNT ] || [ "$comm" != vmload ] || [ "$KRC" -ne 0 ]; then
	show /tmp/kf.json.err
	note "ktop's summaries with events (top functions and tasks):"
	grep -v '"events":0,' /tmp/kf.json | grep -o '"top_functions":.*' | tail -n 5
	fail "ktop's function view does not match the workload"
fi
tracestate --diff /tmp/kf.before || fail "tracing state not restored after SIGINT"
