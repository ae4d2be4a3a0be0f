#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ktop -i BASE --diff NEW on recordings made here (root):
#  - BASE is two seconds of this machine; NEW lasts until a second after
#    nwrite made N write(2) calls: nwrite's task is new in the diff, with its
#    events per second of NEW's length; syscalls:sys_enter_write and
#    sys_exit_write have each side's rate as its own summary gives it (other
#    writers on this shared machine move them too), and the pairs of the
#    in-kernel latency of the writes (--latency) each side's own count;
#  - a recording diffed against itself shows no change (JSON and text);
#  - -o FILE.folded holds the two-column folded diff: read back here, each
#    line's NEW is that stack's count in NEW's own folded export, its BASE
#    BASE's count scaled to NEW's length, and no stack is missing;
#  - --diff live: the live session against BASE, nwrite new in it;
#  - a missing or broken file is refused with exit status 2 and its name;
#  - the tracing state is the same afterwards.

cd "$(dirname "$0")/../.." || exit 2
. tests/live/lib_ktop.sh
need tracestate nwrite

N=${KTOP_TEST_NWRITES:-200000}
LAT='syscalls:sys_enter_write -> syscalls:sys_exit_write'
EV=(-e syscalls:sys_enter_write -e syscalls:sys_exit_write -e sched:sched_process_exec
    -e sched:sched_process_exit -e sched:sched_switch --stack sched:sched_switch --latency "$LAT")
state_save "$tmp/state"

# --- 1. two recordings with a known difference --------------------------------------
"$KTOP" --batch --duration 2 -b 16384 "${EV[@]}" -o "$tmp/base.ktop" \
	>/dev/null 2>"$tmp/b.err"
check "BASE recorded (stderr: $(head -c 300 "$tmp/b.err"))" [ -s "$tmp/base.ktop" ]
# nwrite starts once ktop traces (its first summary), and ends well before ktop does
mkfifo "$tmp/go"
"$TOOLS/nwrite" "$N" "$tmp/go" &
wpid=$!
"$KTOP" --batch --duration 60 -b 16384 "${EV[@]}" -o "$tmp/new.ktop" \
	>"$tmp/n.out" 2>"$tmp/n.err" &
kpid=$!
wait_for "$tmp/n.out" '^ktop' 30
echo go >"$tmp/go"
# NEW ends a second after nwrite, however long its writes took on this machine
wait $wpid
sleep 1
kill -INT $kpid
wait $kpid
check "NEW recorded with nwrite (pid $wpid) in it (stderr: $(head -c 300 "$tmp/n.err"))" \
	[ -s "$tmp/new.ktop" ]

"$KTOP" -i "$tmp/base.ktop" --json >"$tmp/base.json" 2>/dev/null
"$KTOP" -i "$tmp/new.ktop" --json >"$tmp/new.json" 2>/dev/null
"$KTOP" -i "$tmp/base.ktop" --diff "$tmp/new.ktop" --json >"$tmp/d.json" 2>"$tmp/d.err"
rc=$?
check "--diff --json: exit 0 (got $rc; $(head -c 300 "$tmp/d.err"))" [ $rc -eq 0 ]
out=$(python3 - "$tmp/d.json" "$wpid" "$N" <<'PY' 2>&1
import json, sys
path, wpid, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
d = json.load(open(path))["diff"]
errs = []
secs = d["new"]["secs"]
if not 1 < secs < 60:
    errs.append("NEW lasts %s s" % secs)
if d["new"]["lost"]:
    errs.append("NEW lost %d events" % d["new"]["lost"])
# on this shared machine another workload may change more: nwrite is where it is
t = ([r for r in d["tasks"] if r["pid"] == wpid] or [d["tasks"][0]])[0]
print("nwrite's task: %s pid %s %s %.0f/s" % (t["comm"], t["pid"], t["status"], t["new_per_s"]))
if t["comm"] != "nwrite" or t["pid"] != wpid or t["status"] != "new":
    errs.append("nwrite's task is %s" % t)
# its N writes, each an enter and an exit, and its switches out (each a
# sched_switch it is prev of: the FIFO's wait, preemptions), exec and exit
ev = t["new_per_s"] * secs
if not 2 * n <= ev + 0.5 <= 2 * n * 1.01:
    errs.append("nwrite has %.1f events in NEW, want 2N=%d and a few" % (ev, 2 * n))
if abs(t["delta_per_s"] - t["new_per_s"]) > 1e-6 or t["base_per_s"] != 0 or t["ratio"] is not None:
    errs.append("a new task's figures: %s" % t)
wr = [e for e in d["events"] if e["event"] in ("syscalls:sys_enter_write", "syscalls:sys_exit_write")]
print("write events %s" % [(e["event"], round(e["delta_per_s"])) for e in wr])
if len(wr) != 2:
    errs.append("write events: %s" % wr)
own = {side: json.load(open(path.replace("d.json", side + ".json"))) for side in ("base", "new")}
for e in wr:
    # each side's rate is its own summary's count over its own length (other
    # writers on this shared machine move them too, so not N alone)
    for side in ("base", "new"):
        o = own[side]
        c = [x["count"] for x in o["top_events"] if x["event"] == e["event"]]
        want = (c[0] if c else 0) / o["interval_s"]
        if abs(e[side + "_per_s"] - want) > 0.01 * want + 0.5:
            errs.append("%s: %s %.0f/s, its own summary %.0f/s" % (e["event"], side, e[side + "_per_s"], want))
    if abs(e["delta_per_s"] - (e["new_per_s"] - e["base_per_s"])) > 1e-3:
        errs.append("%s: delta is not new - base" % e["event"])
# the in-kernel latency of the writes: N more pairs, each side's own count
lat = [r for r in d["latencies"] if r["measure"].startswith("syscalls:sys_enter_write -> ") and "[" not in r["measure"]]
if len(lat) != 1 or lat[0]["status"] != "both":
    errs.append("latencies: %s" % lat)
else:
    l = lat[0]
    own = {}
    for side in ("base", "new"):
        o = json.load(open(path.replace("d.json", side + ".json")))
        own[side] = [x for x in o["latencies"] if x["title"] == l["measure"]][0]["count"]
        got = l[side + "_per_s"] * d[side]["secs"]
        if abs(got - own[side]) > 0.5:
            errs.append("latencies: %s pairs %.1f, its own summary %d" % (side, got, own[side]))
    print("latency pairs base %d new %d" % (own["base"], own["new"]))
    if l["delta_per_s"] < 0.5 * n / secs:
        errs.append("latencies: grew by %.0f/s, want N/s (%.0f/s) or so" % (l["delta_per_s"], n / secs))
for k in ("events", "tasks", "cpus", "syscalls", "functions", "paths", "latency", "histograms",
          "stacks", "connections", "drops", "bpf", "latencies", "notes", "base", "new"):
    if k not in d:
        errs.append("no %s" % k)
for e in errs:
    print("ERR " + e)
PY
)
echo "$out" | sed 's/^/  /'
check "diff: nwrite's task is new, with its 2N events per NEW's second" \
	[ -z "$(echo "$out" | grep 'ERR.*\(task\|nwrite\)\|Traceback')" ]
check "diff: the write events at each side's own rates; the in-kernel latency's pairs too" \
	[ -z "$(echo "$out" | grep 'ERR\|Traceback')" ]

# the text: the same rows, nwrite first among the tasks
"$KTOP" -i "$tmp/base.ktop" --diff "$tmp/new.ktop" --batch >"$tmp/d.txt" 2>&1
check "--diff --batch: the tasks table lists nwrite, new" \
	sh -c "sed -n '/^Tasks:/,/^\$/p' '$tmp/d.txt' | grep -q ' new .* $wpid  nwrite'"

# --- 2. a recording against itself ------------------------------------------------------
"$KTOP" -i "$tmp/new.ktop" --diff "$tmp/new.ktop" --json >"$tmp/s.json" 2>&1
out=$(python3 - "$tmp/s.json" <<'PY' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))["diff"]
rows = 0
for k, v in d.items():
    if not isinstance(v, list) or k == "notes":
        continue
    for r in v:
        rows += 1
        if r["status"] != "both":
            print("ERR %s %s is %s" % (k, r, r["status"]))
        for f, x in r.items():
            if f.startswith("delta_") and x not in (0, None):
                print("ERR %s: %s %s" % (k, f, x))
print("rows=%d" % rows)
PY
)
check "self diff: every row on both sides, every delta 0 ($(echo "$out" | tail -n 1))" \
	sh -c "[ -z \"\$(echo '$out' | grep 'ERR\|Traceback')\" ] && echo '$out' | grep -q 'rows=[1-9]'"
"$KTOP" -i "$tmp/new.ktop" --diff "$tmp/new.ktop" --batch >"$tmp/s.txt" 2>&1
check "self diff: the text says no change under each table" \
	sh -c "[ \$(grep -c '^Events:\|^Tasks:' '$tmp/s.txt') -eq 2 ] &&
	       [ \$(grep -c '(no change)' '$tmp/s.txt') -ge 2 ]"

# --- 3. the folded diff, read back -------------------------------------------------------
"$KTOP" -i "$tmp/base.ktop" --diff "$tmp/new.ktop" --batch -o "$tmp/d.folded" >/dev/null 2>&1
"$KTOP" -i "$tmp/base.ktop" --batch -o "$tmp/b.folded" >/dev/null 2>&1
"$KTOP" -i "$tmp/new.ktop" --batch -o "$tmp/n.folded" >/dev/null 2>&1
out=$(python3 - "$tmp/d.folded" "$tmp/b.folded" "$tmp/n.folded" "$tmp/d.json" <<'PY' 2>&1
import json, sys
def folded(path, cols):
    m = {}
    for line in open(path):
        parts = line.rstrip("\n").rsplit(" ", cols)
        if len(parts) != cols + 1:
            print("ERR bad line %r" % line)
            continue
        m[parts[0]] = m.get(parts[0], [0] * cols)
        for i in range(cols):
            m[parts[0]][i] += float(parts[1 + i])
    return m
dif, base, new = folded(sys.argv[1], 2), folded(sys.argv[2], 1), folded(sys.argv[3], 1)
d = json.load(open(sys.argv[4]))["diff"]
scale = d["new"]["secs"] / d["base"]["secs"]
bad = 0
for s in set(base) | set(new):
    if s not in dif:
        print("ERR stack missing: %s" % s[:120])
        bad += 1
        continue
    b, n = dif[s]
    if n != new.get(s, [0])[0]:
        print("ERR %s: NEW %s, its own export %s" % (s[:80], n, new.get(s, [0])[0]))
        bad += 1
    if abs(b - base.get(s, [0])[0] * scale) > 1e-3 * max(1, b):
        print("ERR %s: BASE %s, want %s" % (s[:80], b, base.get(s, [0])[0] * scale))
        bad += 1
extra = set(dif) - set(base) - set(new)
print("lines=%d base=%d new=%d extra=%d bad=%d" % (len(dif), len(base), len(new), len(extra), bad))
PY
)
echo "$out" | tail -n 1 | sed 's/^/  /'
check "folded diff: two columns, NEW's counts and BASE's scaled to NEW's length" \
	sh -c "[ -z \"\$(echo '$out' | grep 'ERR\|Traceback')\" ] &&
	       echo '$out' | grep -q 'lines=[1-9][0-9]* .* extra=0 bad=0'"

# --- 4. --diff live ---------------------------------------------------------------------
"$KTOP" -i "$tmp/base.ktop" --diff live --json --interval 1 --duration 3 -b 16384 \
	"${EV[@]}" >"$tmp/l.json" 2>"$tmp/l.err" &
kpid=$!
if wait_for "$tmp/l.json" '"summary"' 30; then
	"$TOOLS/nwrite" "$N" &
	lpid=$!
	wait $lpid
fi
wait $kpid
rc=$?
out=$(python3 - "$tmp/l.json" "${lpid:-0}" <<'PY' 2>&1
import json, sys
objs = [json.loads(l)["diff"] for l in open(sys.argv[1]) if l.strip()]
last = objs[-1]
t = [r for r in last["tasks"] if r["pid"] == int(sys.argv[2])]
print("summaries=%d live=%s nwrite=%s" % (len(objs), last["new"]["live"],
      t[0]["status"] if t else None))
PY
)
check "--diff live: summaries against BASE, nwrite new in the last ($out; rc $rc)" \
	sh -c "[ $rc -eq 0 ] && echo '$out' | grep -q 'summaries=[2-9].*live=True nwrite=new'"

# --- 5. bad input ---------------------------------------------------------------------------
"$KTOP" -i "$tmp/base.ktop" --diff "$tmp/nosuch.ktop" --batch >/dev/null 2>"$tmp/e1"
rc=$?
check "a missing NEW: exit 2 naming it ($(head -c 200 "$tmp/e1"))" \
	sh -c "[ $rc -eq 2 ] && grep -q 'nosuch.ktop' '$tmp/e1'"
head -c 5000 /dev/urandom >"$tmp/junk.ktop"
"$KTOP" -i "$tmp/junk.ktop" --diff "$tmp/new.ktop" --batch >/dev/null 2>"$tmp/e2"
rc=$?
check "a broken BASE: exit 2 naming it ($(head -c 200 "$tmp/e2"))" \
	sh -c "[ $rc -eq 2 ] && grep -q 'junk.ktop' '$tmp/e2'"

state_same "tracing state unchanged" "$tmp/state"
finish
