#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ktop --batch / --json on this host's kernel (root):
#  - a child making N write() calls shows at least N (and not many more than
#    N) raw_syscalls:sys_enter events for its pid, with and without -P;
#  - every --json line is a valid JSON object with the documented fields;
#  - the text summary says what was traced and why, has a row per CPU, stops
#    after --iterations / --duration, and needs no terminal;
#  - the tracing state is the same afterwards and ktop's instance is gone.

cd "$(dirname "$0")/../.." || exit 2
. tests/live/lib_ktop.sh
need tracestate nwrite

N=${KTOP_TEST_NWRITES:-200000}
ncpu=$(nproc)
# KTOP_TEST_PARTS: which parts to run (tests/run.sh runs "json" again with the
# ASan+UBSan ktop, whose start-up is slow)
parts=" ${KTOP_TEST_PARTS:-json pid duration sigint cpu text flags} "
part() { [[ $parts == *" $1 "* ]]; }

# --- 1. N writes seen, JSON valid ------------------------------------------
# ktop runs until told to stop: after the child exits, wait for two more
# summaries (the machine may be loaded; the child's pace is not ours), then
# SIGINT, which ends a batch run normally. The buffer is big (32 MB per CPU)
# because every task's syscalls are traced and the machine may be busy: this
# test is about seeing events, tests/live/test_lost.sh about losing them.
state_save "$tmp/state"
if part json; then
"$KTOP" --json -b 32768 -e raw_syscalls:sys_enter --duration 120 >"$tmp/j.out" 2>"$tmp/j.err" &
kpid=$!
cpid=-1
if wait_for "$tmp/j.out" '"summary"' 40; then
	"$TOOLS/nwrite" "$N" &
	cpid=$!
	wait $cpid
	echo "  (nwrite pid $cpid made $N writes)"
	after_lines "$tmp/j.out" 2 30
fi
kill -INT $kpid
wait $kpid
rc=$?
check "json: exit status 0 after SIGINT (got $rc; stderr: $(head -c 300 "$tmp/j.err"))" [ $rc -eq 0 ]
check "json: python3 -m json.tool accepts a summary" \
	sh -c "head -n 1 '$tmp/j.out' | python3 -m json.tool >/dev/null"
out=$(python3 - "$tmp/j.out" "$cpid" "$N" "$ncpu" <<'PY' 2>&1
import json, sys
path, cpid, n, ncpu = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
objs = [json.loads(l) for l in open(path) if l.strip()]
errs = []
need = ["time", "uptime_s", "summary", "interval_s", "mode", "tracer", "session", "events",
        "events_per_s", "events_total", "lost", "lost_total", "store", "cpus", "top_events",
        "top_functions", "top_tasks"]
for i, o in enumerate(objs):
    miss = [k for k in need if k not in o]
    if miss:
        errs.append("summary %s lacks %s" % (o.get("summary"), miss))
        continue
    if o["summary"] != i + 1:
        errs.append("summary %d numbered %s" % (i + 1, o["summary"]))
    if len(o["cpus"]) != ncpu:
        errs.append("summary %s has %d cpus, want %d" % (o["summary"], len(o["cpus"]), ncpu))
    if sum(c["events"] for c in o["cpus"]) != o["events"]:
        errs.append("per-CPU events do not add up in summary %s" % o["summary"])
    if sum(e["count"] for e in o["top_events"]) != o["events"]:
        errs.append("top_events do not add up to events in summary %s" % o["summary"])
    for e in o["top_events"]:
        if e["event"] != "raw_syscalls:sys_enter":
            errs.append("unexpected event %s" % e["event"])
seen = sum(t["count"] for o in objs for t in o["top_tasks"] if t["pid"] == cpid)
print("seen=%d lost=%d" % (seen, objs[-1]["lost_total"] if objs else -1))
for e in errs:
    print("ERR " + e)
PY
)
seen=$(echo "$out" | sed -n 's/^seen=\([0-9]*\).*/\1/p')
lost=$(echo "$out" | sed -n 's/^seen=.* lost=//p')
check "json: every line is a summary with the documented fields" \
	[ -z "$(echo "$out" | grep '^ERR\|Error\|Traceback')" ]
echo "$out" | grep '^ERR\|Error' | head -5 | sed 's/^/    /'
check "json: child's $N write() calls show >= $N sys_enter for its pid (saw ${seen:-none}, lost ${lost:-?})" \
	[ "${seen:-0}" -ge "$N" ]
check "json: and not many more (<= N+500; saw ${seen:-none})" [ "${seen:-0}" -le $((N + 500)) ]
state_same "json: tracing state unchanged" "$tmp/state"
no_instance "json: instance removed" $kpid
fi

# --- 2. -P PID: only that task ---------------------------------------------
if part pid; then
mkfifo "$tmp/go"
"$TOOLS/nwrite" "$N" "$tmp/go" &
cpid=$!
"$KTOP" --json -b 32768 -P $cpid -e raw_syscalls:sys_enter --duration 120 >"$tmp/p.out" 2>"$tmp/p.err" &
kpid=$!
wait_for "$tmp/p.out" '"summary"' 40
echo go >"$tmp/go"	# release the child (also when ktop failed)
wait $cpid
after_lines "$tmp/p.out" 2 30
kill -INT $kpid
wait $kpid
rc=$?
check "pid: exit status 0 (got $rc; stderr: $(head -c 300 "$tmp/p.err"))" [ $rc -eq 0 ]
res=$(python3 - "$tmp/p.out" "$cpid" <<'PY' 2>&1
import json, sys
cpid = int(sys.argv[2])
objs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
mine = sum(t["count"] for o in objs for t in o["top_tasks"] if t["pid"] == cpid)
other = sum(t["count"] for o in objs for t in o["top_tasks"] if t["pid"] != cpid)
print(mine, other, objs[-1]["lost_total"])
PY
)
read -r mine other lost <<<"$res"
check "pid: -P $cpid sees the child's writes (>= $N; saw ${mine:-none}, lost ${lost:-?})" \
	[ "${mine:-0}" -ge "$N" ]
check "pid: -P $cpid sees no other task (saw ${other:-?} events of others)" [ "${other:-1}" -eq 0 ]
state_same "pid: tracing state unchanged" "$tmp/state"
fi

# --- 2b. --duration ends the run by itself ------------------------------------
if part duration; then
"$KTOP" --json -e sched:sched_switch --duration 2 --interval 0.5 >"$tmp/d.out" 2>"$tmp/d.err" &
kpid=$!
wait_for "$tmp/d.out" '"summary"' 30
t0=$(date +%s.%N)
wait $kpid
rc=$?
t1=$(date +%s.%N)
took=$(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }")
up=$(python3 -c 'import json,sys; print([json.loads(l) for l in open(sys.argv[1])][-1]["uptime_s"])' \
	"$tmp/d.out" 2>/dev/null)
check "duration: exit status 0 (got $rc; $(head -c 300 "$tmp/d.err"))" [ $rc -eq 0 ]
check "duration: --interval 0.5 --duration 2 gives 4 summaries (got $(wc -l <"$tmp/d.out"))" \
	[ "$(wc -l <"$tmp/d.out")" -eq 4 ]
check "duration: the last one at 2 s (uptime_s ${up:-?})" \
	awk "BEGIN { exit !(${up:-0} >= 1.99 && ${up:-0} < 2.3) }"
check "duration: and ktop exits soon after the first summary (${took} s later)" \
	awk "BEGIN { exit !($took >= 1.2 && $took < 4) }"
fi

# --- 2c. SIGINT ends the run with one last summary, to that moment ------------
# (a 60 s interval: without it, nothing would be printed). 20 execs of
# /bin/true while ktop traces must all be in it.
if part sigint; then
"$KTOP" --json --no-bpf -e sched:sched_process_exec --interval 60 >"$tmp/s.out" 2>"$tmp/s.err" &
kpid=$!
d=/sys/kernel/tracing/instances/ktop-$kpid
for ((i = 0; i < 100; i++)); do
	[ "$(cat "$d/tracing_on" 2>/dev/null)" = 1 ] && [ -n "$(cat "$d/set_event" 2>/dev/null)" ] && break
	sleep 0.1
done
for ((i = 0; i < 20; i++)); do /bin/true; done
kill -INT $kpid
wait $kpid
rc=$?
n=$(python3 -c '
import json, sys
o = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(len(o), sum(e["count"] for e in o[-1]["top_events"] if e["event"] == "sched:sched_process_exec") if o else 0)
' "$tmp/s.out" 2>&1)
check "sigint: exit status 0 (got $rc; $(head -c 300 "$tmp/s.err"))" [ $rc -eq 0 ]
check "sigint: one summary, with the 20 execs of /bin/true (summaries, execs: $n)" \
	awk -v n="$n" 'BEGIN { split(n, a, " "); exit !(a[1] == 1 && a[2] >= 20) }'
fi

# --- 2c. -C LIST: only those CPUs ---------------------------------------------
if part cpu && [ "$ncpu" -gt 1 ]; then
	"$KTOP" --json -C 0 -e sched:sched_switch --duration 1.5 --interval 0.5 \
		>"$tmp/c.out" 2>"$tmp/c.err"
	rc=$?
	check "cpu: -C 0 exit status 0 (got $rc; $(head -c 300 "$tmp/c.err"))" [ $rc -eq 0 ]
	res=$(python3 -c '
import json, sys
o = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(sum(c["events"] for x in o for c in x["cpus"] if c["cpu"] == 0),
      sum(c["events"] for x in o for c in x["cpus"] if c["cpu"] != 0))' "$tmp/c.out" 2>/dev/null)
	read -r on0 others <<<"$res"
	check "cpu: -C 0 sees CPU 0 (${on0:-?} events) and no other CPU (${others:-?})" \
		[ "${on0:-0}" -gt 0 -a "${others:-1}" -eq 0 ]
fi

# --- 3. text, the default view, no terminal ----------------------------------
if part text; then
"$KTOP" --batch --iterations 2 --interval 0.5 >"$tmp/t.out" 2>"$tmp/t.err" </dev/null
rc=$?
check "text: exit status 0 without a terminal (got $rc; $(head -c 300 "$tmp/t.err"))" [ $rc -eq 0 ]
check "text: --iterations 2 prints 2 summaries" [ "$(grep -c '^ktop .* summary ' "$tmp/t.out")" -eq 2 ]
check "text: the second summary comes at 1.0 s (up 1.0s or 1.1s)" grep -q '^ktop .* up 1\.[01]s, summary 2, ' "$tmp/t.out"
# BPF: the syscall latency programs are opt-in (--bpf-syscalls), and say so
if grep -q '^BPF: ' "$tmp/t.out"; then
	check "text: BPF without syscall programs by default" \
		grep -q '^BPF: .*, no syscall latency (--bpf-syscalls)' "$tmp/t.out"
	# two summaries: the BPF poller's first tick may come after the first one;
	# each shows the last tick's syscalls, so something makes them meanwhile
	timeout 5 dd if=/dev/zero of=/dev/null bs=1 count=100000000 2>/dev/null &
	ddpid=$!
	"$KTOP" --batch --bpf-syscalls --iterations 2 --interval 0.6 >"$tmp/s.out" 2>&1 </dev/null
	kill $ddpid 2>/dev/null
	wait $ddpid 2>/dev/null
	check "text: --bpf-syscalls loads them: the BPF line and the syscall table" \
		grep -q '^BPF: .*, syscalls, poll' "$tmp/s.out"
	check "text: --bpf-syscalls: syscalls by total time" \
		grep -q '(syscalls by total time)' "$tmp/s.out"
fi
# what was chosen and why: function_graph when permitted, else events, with the reason
fg=$("$KTOP" --features 2>/dev/null | grep -w function_graph | head -1)
if echo "$fg" | grep -qw available; then
	check "text: default view is function_graph (features: $fg)" \
		grep -q '^Trace: function_graph (default)' "$tmp/t.out"
else
	check "text: default view is sched, irq, raw_syscalls and says why function_graph is not used" \
		grep -q '^Trace: events sched, irq, raw_syscalls (default): function_graph' "$tmp/t.out"
fi
for ((c = 0; c < ncpu; c++)); do
	check "text: a row for CPU $c" grep -qE "^ +$c +[0-9]+ +[0-9]+ +[0-9]+" "$tmp/t.out"
done
check "text: top events name sched/irq/raw_syscalls events" \
	grep -qE '^ +[0-9]+  (sched|irq|raw_syscalls):' "$tmp/t.out"
check "text: header shows store memory" grep -qE '^Store: .* used of 256\.0M' "$tmp/t.out"
check "text: lost per CPU section" grep -q '^Lost per CPU' "$tmp/t.out"
check "text: reader line shows the decode backlog and ktop's own drops" \
	grep -qE '^Reader: decode backlog .* of .*; dropped by ktop \(decode backlog\): [0-9]+ this interval, [0-9]+ since start' "$tmp/t.out"
state_same "text: tracing state unchanged" "$tmp/state"
fi

# --- 4. flag columns, counted by the decoder ---------------------------------
# The kernel sets the hardirq flag on every irq_handler_entry (it runs in
# hard interrupt context) and never on softirq_entry, and the softirq flag on
# every softirq_entry (plus on a handler that interrupted a softirq): so per
# summary, the hardirq column sums to the irq_handler_entry count of the top
# events list, and the softirq column to between the two.
if part flags; then
"$KTOP" --json -e irq:softirq_entry -e irq:irq_handler_entry --iterations 3 --interval 0.5 \
	>"$tmp/f.out" 2>"$tmp/f.err"
rc=$?
check "flags: exit status 0 (got $rc; $(head -c 300 "$tmp/f.err"))" [ $rc -eq 0 ]
res=$(python3 - "$tmp/f.out" <<'PY' 2>&1
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
bad, seen = [], 0
for o in objs:
    top = {e["event"]: e["count"] for e in o["top_events"]}
    irq, soft = top.get("irq:irq_handler_entry", 0), top.get("irq:softirq_entry", 0)
    fh = sum(c["flags"]["hardirq"] for c in o["cpus"])
    fs = sum(c["flags"]["softirq"] for c in o["cpus"])
    seen += irq + soft
    if fh != irq or not (soft <= fs <= soft + irq):
        bad.append("summary %d: hardirq %d vs %d handlers, softirq %d vs %d softirqs"
                   % (o["summary"], fh, irq, fs, soft))
    if sum(c["events"] for c in o["cpus"]) != o["events"]:
        bad.append("summary %d: CPU rows do not add up" % o["summary"])
print(len(objs), seen, "; ".join(bad) or "ok")
PY
)
read -r nsum nseen verdict <<<"$res"
check "flags: 3 summaries with irq events (${nsum:-?} summaries, ${nseen:-?} events)" \
	[ "${nsum:-0}" -eq 3 -a "${nseen:-0}" -gt 0 ]
check "flags: hardirq/softirq columns match the irq events ($verdict)" [ "$verdict" = ok ]
state_same "flags: tracing state unchanged" "$tmp/state"
fi
finish
