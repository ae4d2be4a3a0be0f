#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# --view (-F) with --batch/--json and -o on this host's kernel (root):
#  - a task narrowed by pid: every counted event is its own, and its N writes
#    are all there; the "view" object says N of M;
#  - a field expression (sys_enter id == 1, write): only those events count;
#  - -o under a view writes only the matches (read back with -i FILE --json);
#  - --json carries the BPF section the text summary has (issue 18 #13);
#  - --hide-self leaves ktop's own threads out of top_tasks, which are
#    marked "self" otherwise;
#  - a field no event has is refused with status 2 and the state unchanged;
#    -i with a missing file names it, terminal or not (issue 18 #16);
#  - the tracing state is the same afterwards.

cd "$(dirname "$0")/../.." || exit 2
. tests/live/lib_ktop.sh
need tracestate nwrite

N=${KTOP_TEST_NWRITES:-50000}
state_save "$tmp/state"

# --- 1. a task by pid, and an expression, in one session each ------------------
# nwrite waits on a FIFO, so its pid is known before ktop starts
run_pid() {
	local kpid rc
	mkfifo "$tmp/go.p"
	"$TOOLS/nwrite" "$N" "$tmp/go.p" &
	cpid=$!
	"$KTOP" --json -b 16384 -e raw_syscalls -e sched -F "pid:$cpid" --duration 60 \
		>"$tmp/p.out" 2>"$tmp/p.err" &
	kpid=$!
	if wait_for "$tmp/p.out" '"summary"' 40; then
		echo go >"$tmp/go.p"
		wait $cpid
		after_lines "$tmp/p.out" 2 30
	else
		echo go >"$tmp/go.p"
		wait $cpid
	fi
	kill -INT $kpid
	wait $kpid
	rc=$?
	check "pid: exit status 0 (got $rc; stderr: $(head -c 300 "$tmp/p.err"))" [ $rc -eq 0 ]
}
run_pid
out=$(python3 - "$tmp/p.out" "$cpid" "$N" <<'PY' 2>&1
import json, sys
path, cpid, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
objs = [json.loads(l) for l in open(path) if l.strip()]
errs = []
events = sum(o["events"] for o in objs)
tasks = [t for o in objs for t in o["top_tasks"]]
mine = sum(t["count"] for t in tasks if t["pid"] == cpid)
other = [t for t in tasks if t["pid"] != cpid]
enter = sum(e["count"] for o in objs for e in o["top_events"]
            if e["event"] == "raw_syscalls:sys_enter")
if other:
    errs.append("other tasks counted: %s" % other[:3])
# the flag columns count the view's events too (issue 31 #2): none above its events
for o in objs:
    for c in o["cpus"]:
        over = dict((k, v) for k, v in c["flags"].items() if v > c["events"])
        if over:
            errs.append("summary %d cpu %d: %d events, flags %s" %
                        (o["summary"], c["cpu"], c["events"], over))
if mine != events:
    errs.append("top_tasks %d != events %d" % (mine, events))
if enter < n:
    errs.append("sys_enter %d < %d writes" % (enter, n))
v = objs[-1].get("view")
if not v or v["filter"] != "pid:%d" % cpid or not (0 < v["matched"] <= v["held"]):
    errs.append("view object: %s" % v)
print("; ".join(errs) if errs else "ok %d events, %d sys_enter of %d held" %
      (events, enter, v["held"]))
PY
)
check "pid: only the task's events, all its writes ($out)" [ "${out#ok}" != "$out" ]

# the write syscall alone, by a field expression
"$KTOP" --json -b 16384 -e raw_syscalls -F 'sys_enter: id == 1' --duration 3 \
	>"$tmp/x.out" 2>"$tmp/x.err" &
kpid=$!
wait_for "$tmp/x.out" '"summary"' 40 && "$TOOLS/nwrite" 1000
wait $kpid
rc=$?
out=$(python3 - "$tmp/x.out" <<'PY' 2>&1
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
evs = set(e["event"] for o in objs for e in o["top_events"])
n = sum(o["events"] for o in objs)
print("ok %d events" % n if evs <= {"raw_syscalls:sys_enter"} and n >= 1000
      else "events %s, %d" % (evs, n))
PY
)
check "expr: only sys_enter id 1 counts, the 1000 writes among them (rc $rc, $out)" \
	[ $rc -eq 0 ] && [ "${out#ok}" != "$out" ]

# --- 2. -o under a view, read back -------------------------------------------
mkfifo "$tmp/go.o"
"$TOOLS/nwrite" 2000 "$tmp/go.o" &
cpid=$!
"$KTOP" --batch -b 16384 -e raw_syscalls -F "pid:$cpid" --duration 3 -o "$tmp/v.ktop" \
	>/dev/null 2>"$tmp/o.err" &
kpid=$!
sleep 1
echo go >"$tmp/go.o"
wait $cpid
wait $kpid
rc=$?
out=$("$KTOP" -i "$tmp/v.ktop" --json 2>&1 | python3 -c '
import json, sys
o = json.loads(sys.stdin.readline())
pids = set(t["pid"] for t in o["top_tasks"])
print("ok %d" % o["events"] if pids == {int(sys.argv[1])} and o["events"] >= 2000
      else "pids %s events %d" % (pids, o["events"]))' "$cpid")
check "-o: the saved file holds the task's events only (rc $rc, $out)" \
	[ $rc -eq 0 ] && [ "${out#ok}" != "$out" ]

# --- 3. the BPF section, ktop's own threads -----------------------------------
"$KTOP" --json -e sched --duration 2 >"$tmp/b.out" 2>"$tmp/b.err"
rc=$?
out=$(python3 - "$tmp/b.out" <<'PY' 2>&1
import json, sys
o = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
b = o.get("bpf")
if b is None:
    print("no bpf section")
elif "error" in b:
    print("ok (BPF off here: %s)" % b["error"])
else:
    need = ["mode", "irq_programs", "syscall_programs", "cpus", "runq", "top_runq",
            "top_offcpu", "syscalls", "irqs", "outliers"]
    miss = [k for k in need if k not in b]
    if not miss and not isinstance(b["irqs"], list):
        miss = ["irqs as a list"]
    print("lacks %s" % miss if miss else "ok mode %s, %d cpus rows, runq count %d" %
          (b["mode"], len(b["cpus"]), b["runq"]["count"]))
PY
)
check "json: a bpf section (rc $rc, $out)" [ $rc -eq 0 ] && [ "${out#ok}" != "$out" ]
self=$(python3 -c '
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(sum(1 for o in objs for t in o["top_tasks"] if t.get("self")))' "$tmp/b.out")
"$KTOP" --json -e sched --hide-self --duration 2 >"$tmp/h.out" 2>"$tmp/h.err"
rc=$?
out=$(python3 -c '
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
shown = sum(1 for o in objs for t in o["top_tasks"] if t.get("self"))
hidden = sum(o["self_hidden"] for o in objs)
print("ok %d hidden" % hidden if shown == 0 else "shown %d" % shown)' "$tmp/h.out")
check "--hide-self: none of ktop's threads in top_tasks (rc $rc, $out; $self marked without)" \
	[ $rc -eq 0 ] && [ "${out#ok}" != "$out" ]

# --- 4. refusals ---------------------------------------------------------------
"$KTOP" --batch -e sched -F 'no_such_field == 1' --duration 1 >/dev/null 2>"$tmp/r.err"
rc=$?
check "a field no event has: status 2 with a caret ($(head -1 "$tmp/r.err"))" \
	[ $rc -eq 2 ] && grep -q "no event has a field 'no_such_field'" "$tmp/r.err" && \
	grep -q '^  \^' "$tmp/r.err"
"$KTOP" -i /nonexistent/x.ktop </dev/null >/dev/null 2>"$tmp/n.err"
rc=$?
check "-i a missing file, no terminal: status 2, the file named ($(cat "$tmp/n.err"))" \
	[ $rc -eq 2 ] && grep -q '/nonexistent/x.ktop: No such file or directory' "$tmp/n.err"

state_same "tracing state unchanged" "$tmp/state"
finish
