#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ktop -i BASE --diff NEW --json on recordings of the two rt kernels (6.1-rt as
# BASE, 6.12-rt as NEW: a kernel upgrade, the same workload on both), each
# figure checked against an independent reader of the recordings' text, in
# Python here, none of ktop's code (tests/unit/test_diff.c checks the same
# tables through the C API, with readers of its own):
#  1. function_graph per call path: the trace.dat files Debian's trace-cmd
#     recorded in the guests (tests/fixtures/tracedat-rt*/fgraph-v7.dat, read by
#     ktop's trace.dat reader), against `trace-cmd report -t` of each: every
#     path the report nests (per task: "f() {" ... "}", "f();") is a row, with
#     calls/s, total and self time a second and a call, on each side, their
#     deltas, and new/gone/both as the reports have it; each side's length is
#     the report's first to last time stamp. Then NEW against BASE: every delta
#     the other way round.
#  2. timerlat per latency bucket: the record_fixture recordings
#     (tests/fixtures/rt*-timerlat, raw pages written as .ktop by snapshot_tool)
#     against the kernel's own text of the same records (trace.txt.gz): each
#     row [lo, hi) of each series (irq, thread) holds the samples/s whose
#     printed timer_latency falls in it, on each side, and the delta; every
#     sample is in a row.
# No tracing: nothing in the kernel is touched (checked).

cd "$(dirname "$0")/../.." || exit 2
. tests/live/lib_ktop.sh
need snapshot_tool tracestate
FX=${KTOP_FIXTURES:-tests/fixtures}
command -v trace-cmd >/dev/null || { echo "FAIL setup: trace-cmd not installed (make deps)"; exit 1; }
state_save "$tmp/state"

# --- 1. function_graph paths against trace-cmd report ----------------------------------
B=$FX/tracedat-rt/fgraph-v7.dat
N=$FX/tracedat-rt612/fgraph-v7.dat
for f in "$B" "$N"; do
	[ -s "$f" ] || { echo "FAIL setup: $f missing (tests/fixtures/README)"; exit 1; }
done
"$KTOP" -i "$B" --diff "$N" --json >"$tmp/p.json" 2>"$tmp/p.err"
rc1=$?
"$KTOP" -i "$N" --diff "$B" --json >"$tmp/r.json" 2>>"$tmp/p.err"
rc2=$?
check "--diff --json of the two trace.dat files: exit 0 both ways (got $rc1 $rc2; $(head -c 300 "$tmp/p.err"))" \
	[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ]

out=$(python3 - "$tmp/p.json" "$tmp/r.json" "$B" "$N" <<'PY' 2>&1
import json, re, subprocess, sys
from collections import defaultdict

LINE = re.compile(r'^\s*(.*?)-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+): (\S+):\s*(.*)$')

def report(path):
    """Per call path (root first, ';'-joined): [calls, total ns, self ns]; the length in s."""
    out = subprocess.run(["trace-cmd", "report", "-t", path], capture_output=True,
                         text=True, check=True).stdout
    paths = defaultdict(lambda: [0, 0, 0])
    open_calls = defaultdict(list)          # pid -> [[func, ns of its children], ...]
    first = last = None
    for l in out.splitlines():
        m = LINE.match(l)
        if not m:
            continue
        ts = int(m.group(4)) * 10**9 + int(m.group(5).ljust(9, "0"))
        first = ts if first is None else first
        last = ts
        ev, rest = m.group(6), m.group(7)
        if ev not in ("funcgraph_entry", "funcgraph_exit"):
            continue
        st = open_calls[int(m.group(2))]
        dur, _, txt = rest.partition("|")
        dm = re.search(r"([\d.]+) us", dur)
        ns = round(float(dm.group(1)) * 1000) if dm else None
        txt = txt.strip()
        if ev == "funcgraph_entry" and txt.endswith("{"):
            st.append([txt[:txt.index("(")], 0])
            continue
        if ev == "funcgraph_entry":             # a leaf: "f();" with its duration
            f, child = txt[:txt.index("(")], 0
        elif st:                                # "}": the innermost open call
            f, child = st.pop()
        else:
            continue                            # the report began inside this call
        p = ";".join([s[0] for s in st] + [f])
        paths[p][0] += 1
        paths[p][1] += ns
        paths[p][2] += ns - child
        if st:
            st[-1][1] += ns
    return paths, (last - first) / 1e9

def near(got, want, rel=1e-6, ab=1e-3):
    """A figure with no calls on a side (a time per call) is null, as its delta."""
    if got is None or want is None:
        return got is None and want is None
    return abs(got - want) <= rel * abs(want) + ab

fwd, rev = (json.load(open(p))["diff"] for p in sys.argv[1:3])
text = [report(sys.argv[3]), report(sys.argv[4])]
errs, checked = [], 0
for i, side in enumerate(("base", "new")):
    if not near(fwd[side]["secs"], text[i][1], 0, 1e-6):
        errs.append("%s length %.6f s, the report's %.9f s" % (side, fwd[side]["secs"], text[i][1]))
rows = {r["path"]: r for r in fwd["paths"]}
for p in set(text[0][0]) | set(text[1][0]):
    r = rows.get(p)
    if not r:
        errs.append("path %s: no row" % p)
        continue
    want = {}
    for i, side in enumerate(("base", "new")):
        calls, total, self_ = text[i][0].get(p, [0, 0, 0])
        secs = text[i][1]
        want[side] = {"per_s": calls / secs, "total_ns_per_s": total / secs,
                      "self_ns_per_s": self_ / secs,
                      "total_ns_per_call": total / calls if calls else None,
                      "self_ns_per_call": self_ / calls if calls else None}
        for k, w in want[side].items():
            if not near(r[side + "_" + k], w):
                errs.append("%s %s %s: %s, the report %.6f" % (p, side, k, r[side + "_" + k], w))
    for k in want["base"]:
        d = None if None in (want["new"][k], want["base"][k]) else want["new"][k] - want["base"][k]
        if not near(r["delta_" + k], d, 1e-6, 2e-3):
            errs.append("%s delta_%s: %s, the reports %.6f" % (p, k, r["delta_" + k], d))
    status = {(1, 1): "both", (1, 0): "gone", (0, 1): "new"}[(p in text[0][0], p in text[1][0])]
    if r["status"] != status:
        errs.append("%s: %s, the reports say %s" % (p, r["status"], status))
    checked += 1
extra = [p for p in rows if p not in text[0][0] and p not in text[1][0]]
if extra:
    errs.append("rows no report has: %s" % extra)
# the other way round: each delta negated, new and gone swapped
swap = {"both": "both", "new": "gone", "gone": "new"}
for r in rev["paths"]:
    f = rows.get(r["path"])
    if not f or swap[f["status"]] != r["status"] or not near(r["delta_per_s"], -f["delta_per_s"]) \
       or not near(r["delta_total_ns_per_call"], f["delta_total_ns_per_call"] and
                   -f["delta_total_ns_per_call"]):
        errs.append("reversed %s: %s" % (r["path"], r))
print("paths %d checked (of %d rows; %d reversed), lengths %.6f s and %.6f s" %
      (checked, len(rows), len(rev["paths"]), text[0][1], text[1][1]))
for e in errs[:20]:
    print("ERR " + e)
PY
)
echo "$out" | sed 's/^/  /'
check "function_graph: every call path of both reports a row, calls/s, time/s and time/call as trace-cmd report gives them, and the deltas" \
	sh -c "echo '$out' | grep -q '^paths [1-9]' && ! echo '$out' | grep -q 'ERR\|Traceback'"
check "function_graph: the diff has new and gone rows as the reports do (gone: a path 6.12 lacks)" \
	python3 -c 'import json,sys; s={r["status"] for r in json.load(open(sys.argv[1]))["diff"]["paths"]}; sys.exit(not {"both","gone"} <= s)' "$tmp/p.json"

# --- 2. timerlat buckets against the kernel's text ----------------------------------------
for f in rt-timerlat rt612-timerlat; do
	"$TOOLS/snapshot_tool" export "$FX/$f" "$tmp/$f.ktop" 2>"$tmp/x.err" ||
		{ echo "FAIL setup: snapshot_tool export $f: $(cat "$tmp/x.err")"; exit 1; }
done
"$KTOP" -i "$tmp/rt-timerlat.ktop" --diff "$tmp/rt612-timerlat.ktop" --json >"$tmp/t.json" \
	2>"$tmp/t.err"
rc=$?
check "--diff --json of the two timerlat recordings: exit 0 (got $rc; $(head -c 300 "$tmp/t.err"))" \
	[ $rc -eq 0 ]
out=$(python3 - "$tmp/t.json" "$FX/rt-timerlat/trace.txt.gz" "$FX/rt612-timerlat/trace.txt.gz" <<'PY' 2>&1
import gzip, json, re, sys

LINE = re.compile(r'^\s*\S.*?\[\d+\] \S+\s+(\d+)\.(\d+):(.*)$')
SAMPLE = re.compile(r'context\s+(irq|thread) timer_latency\s+(\d+) ns')

def text(path):
    """The samples' latencies (ns) by context; the length in s (first to last stamp)."""
    lat = {"irq": [], "thread": []}
    first = last = None
    for l in gzip.open(path, "rt"):
        m = LINE.match(l)
        if not m or l.startswith("#"):
            continue
        ts = int(m.group(1)) * 10**6 + int(m.group(2))
        first = ts if first is None else first
        last = ts
        s = SAMPLE.search(m.group(3))
        if s:
            lat[s.group(1)].append(int(s.group(2)))
    return lat, (last - first) / 1e6

d = json.load(open(sys.argv[1]))["diff"]
tx = [text(sys.argv[2]), text(sys.argv[3])]
errs, checked, held = [], 0, {}
for i, side in enumerate(("base", "new")):
    # the text's stamps are microseconds: the lengths agree within 2 us
    if abs(d[side]["secs"] - tx[i][1]) > 2e-6:
        errs.append("%s length %.6f s, the text's %.6f s" % (side, d[side]["secs"], tx[i][1]))
for r in d["histograms"]:
    ctx = r["series"].replace("timerlat ", "")
    if ctx not in ("irq", "thread"):
        continue
    delta = tol = 0
    for i, side in enumerate(("base", "new")):
        n = sum(1 for v in tx[i][0][ctx] if r["lo_ns"] <= v < r["hi_ns"])
        held[(side, ctx)] = held.get((side, ctx), 0) + n
        want = n / tx[i][1]
        delta += want if i else -want
        # within the 2 us of the text's length
        tol += 1e-6 + want * 2e-6 / tx[i][1]
        if abs(r[side + "_per_s"] - want) > 1e-6 + want * 2e-6 / tx[i][1]:
            errs.append("%s [%d, %d) %s: %s/s, the text %d samples" %
                        (r["series"], r["lo_ns"], r["hi_ns"], side, r[side + "_per_s"], n))
    if abs(r["delta_per_s"] - delta) > tol:
        errs.append("%s [%d, %d) delta %s, the text %.6f" %
                    (r["series"], r["lo_ns"], r["hi_ns"], r["delta_per_s"], delta))
    checked += 1
for i, side in enumerate(("base", "new")):
    for ctx in ("irq", "thread"):
        if held.get((side, ctx), 0) != len(tx[i][0][ctx]):
            errs.append("%s %s: %d of the text's %d samples in a bucket" %
                        (side, ctx, held.get((side, ctx), 0), len(tx[i][0][ctx])))
print("buckets %d checked; samples irq/thread base %d/%d new %d/%d" %
      (checked, len(tx[0][0]["irq"]), len(tx[0][0]["thread"]), len(tx[1][0]["irq"]),
       len(tx[1][0]["thread"])))
for e in errs[:20]:
    print("ERR " + e)
PY
)
echo "$out" | sed 's/^/  /'
check "timerlat: each bucket's samples/s on both sides and its delta as the kernel's text gives them, every sample in a bucket" \
	sh -c "echo '$out' | grep -q '^buckets [1-9]' && ! echo '$out' | grep -q 'ERR\|Traceback'"

state_same "tracing state unchanged" "$tmp/state"
finish
