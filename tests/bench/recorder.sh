#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The flight recorder's costs, live (issue 27).
#
# 1. From a match to its file closed: ktop --json -e sched with
#    --save-on 'sched:sched_process_exec comm ~ NAME*' --save-before 2
#    --save-after 0.5; the test's program is exec'd ROUNDS times, 3 s apart.
#    For each save: the file's mtime (its last write, before the rename) less
#    the match's time (its trace timestamp on CLOCK_MONOTONIC, moved to the
#    wall clock), and the recorder's own write time (write_ms: the metadata
#    and the export). Medians.
#      bench recorder.match_to_file_s            the whole
#      bench recorder.match_to_file_s.anchor     --save-after + the 0.3 s the
#                                                recorder reads behind now: the
#                                                least it can be
#      bench recorder.write_ms                   the write alone
#      bench recorder.write_ms.anchor            ktop -i FILE -o COPY.ktop of the
#                                                same file: its events read and
#                                                written again by the exporter
# 2. Ingest while saves are written: raw_syscalls under a one-byte dd pinned
#    to one CPU for SECONDS, ktop --json -e raw_syscalls -e
#    sched:sched_process_exec -b 1024 -m 128M, with and without
#    --save-on (an exec every second, windows of 1 s before and 0.2 s after:
#    a save of ~1.2 s of the flood under way most of the time; the files are
#    removed as they come). Rounds alternate; medians of the events stored per
#    second of the load and of the events lost.
#      bench recorder.ingest_events_per_s        with saves being written
#      bench recorder.ingest_events_per_s.anchor the same without --save-on
#      bench recorder.lost_pct / .anchor         lost / (lost + stored)
# Needs root. The tracing state is checked unchanged.
# Environment: KTOP_BENCH_ROUNDS (5), KTOP_BENCH_SECONDS (6), KTOP_BENCH_CPU (1).

set -u
cd "$(dirname "$0")/../.." || exit 2
export LC_ALL=C
KTOP=${KTOP:-./ktop}
TOOLS=build/tools
rounds=${KTOP_BENCH_ROUNDS:-5}
secs=${KTOP_BENCH_SECONDS:-6}
ncpu=$(nproc)
cpu=${KTOP_BENCH_CPU:-$((ncpu > 1 ? 1 : 0))}
tmp=$(mktemp -d /tmp/ktop-bench-rec.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

if [ "$(id -u)" -ne 0 ]; then
	echo "recorder: needs root" >&2
	exit 1
fi
for f in "$KTOP" "$TOOLS/tracestate"; do
	[ -x "$f" ] || { echo "recorder: $f is not built (make ktop tools)" >&2; exit 1; }
done
"$TOOLS/tracestate" -x --save "$tmp/state"
name=recbench$$
cp /bin/true "$tmp/$name" || exit 1

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# wait_line FILE REGEX SECONDS
wait_line() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# ---- 1: match to file -------------------------------------------------------------------
"$KTOP" --json --interval 0.5 -e sched --save-on "sched:sched_process_exec comm ~ \"$name*\"" \
	--save-before 2 --save-after 0.5 -o "$tmp/m-%n.ktop" >"$tmp/m.json" 2>"$tmp/m.err" &
kp=$!
wait_line "$tmp/m.json" '"recorder"' 20 || { echo "recorder: ktop did not start: $(cat "$tmp/m.err")" >&2; exit 1; }
sleep 2.5
for ((r = 1; r <= rounds; r++)); do
	"$tmp/$name"
	sleep 3
done
wait_line "$tmp/m.json" "m-$rounds.ktop" 10
kill -TERM $kp
wait $kp
# the wall clock less CLOCK_MONOTONIC, now (the trace clock is mono)
off=$(python3 -c 'import time; print("%.6f" % (time.time() - time.clock_gettime(time.CLOCK_MONOTONIC)))')
python3 - "$tmp" "$off" "$rounds" <<'EOF' > "$tmp/m.txt"
import json, os, sys
tmp, off, n = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
for l in open(tmp + "/m.json"):
    if not l.strip():
        continue
    for s in json.loads(l).get("saves", []):
        if "error" in s:
            continue
        mt = os.stat(s["file"]).st_mtime_ns / 1e9
        print("%.6f %.1f %d %s" % (mt - (s["ts"] + off), s["write_ms"], s["events"], s["file"]))
EOF
cat "$tmp/m.txt" | sed 's/^/  save: match to file (s), write (ms), events, file: /' >&2
if [ "$(wc -l < "$tmp/m.txt")" -lt "$rounds" ]; then
	echo "recorder: $(wc -l < "$tmp/m.txt") saves of $rounds" >&2
	exit 1
fi
# the anchor: the exporter on the same file, read and written again
for f in $(awk '{ print $4 }' "$tmp/m.txt"); do
	t0=$(date +%s%N)
	"$KTOP" -i "$f" --batch -o "$tmp/copy.ktop" > /dev/null 2>&1
	echo "$(( ($(date +%s%N) - t0) / 1000 ))" | awk '{ printf "%.1f\n", $1 / 1000 }'
done > "$tmp/anchor.txt"
events=$(awk '{ print $3 }' "$tmp/m.txt" | median)
echo "bench recorder.match_to_file_s $(awk '{ print $1 }' "$tmp/m.txt" | median) s"
echo "bench recorder.match_to_file_s.anchor 0.800 s (--save-after 0.5 + the 0.3 s the recorder reads behind now: the least it can be)"
echo "bench recorder.write_ms $(awk '{ print $2 }' "$tmp/m.txt" | median) ms (a 2.5 s window of sched events, ${events} events, .ktop, metadata included)"
echo "bench recorder.write_ms.anchor $(median < "$tmp/anchor.txt") ms (ktop -i FILE --batch -o COPY.ktop of the same file)"

# ---- 2: ingest with saves being written ----------------------------------------------------
load() {
	timeout "$secs" taskset -c "$cpu" dd if=/dev/zero of=/dev/null bs=1 count=2000000000 \
		2>/dev/null
}

# one run: "events_per_s lost_pct saves" over the load's summaries
one() {
	local with=$1 args=() ep
	rm -f "$tmp"/i-*.ktop
	[ "$with" = 1 ] && args=(--save-on "sched:sched_process_exec comm ~ \"$name*\"" \
		--save-before 1 --save-after 0.2 --save-max 0 -o "$tmp/i-%n.ktop")
	"$KTOP" --json --interval 1 -e raw_syscalls -e sched:sched_process_exec -b 1024 -m 128M \
		--duration $((secs + 3)) "${args[@]}" >"$tmp/i.json" 2>"$tmp/i.err" &
	kp=$!
	wait_line "$tmp/i.json" '"summary"' 20 || return 1
	( for ((s = 0; s < secs; s++)); do "$tmp/$name"; sleep 1; done ) &
	ep=$!
	( while kill -0 $kp 2>/dev/null; do rm -f "$tmp"/i-*.ktop; sleep 0.3; done ) &
	load
	wait $ep
	wait $kp
	python3 - "$tmp/i.json" <<'EOF'
import json, sys
o = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
busy = [x for x in o if x["events_per_s"] > 0]
busy = sorted(busy, key=lambda x: -x["events"])[:max(1, len(busy) - 3)]
ev = sum(x["events"] for x in busy)
dt = sum(x["interval_s"] for x in busy)
last = o[-1]
lost, seen = last["lost_total"], last["events_total"]
saves = last.get("recorder", {}).get("saved", 0)
print("%.0f %.3f %d" % (ev / dt if dt else 0, 100.0 * lost / (lost + seen) if lost + seen else 0, saves))
EOF
}

: > "$tmp/with.txt"
: > "$tmp/without.txt"
for ((r = 1; r <= rounds; r++)); do
	one 1 >> "$tmp/with.txt" || { echo "recorder: a run failed: $(cat "$tmp/i.err")" >&2; exit 1; }
	one 0 >> "$tmp/without.txt" || { echo "recorder: a run failed: $(cat "$tmp/i.err")" >&2; exit 1; }
done
sed 's/^/  with saves: events\/s, lost %, saves: /' "$tmp/with.txt" >&2
sed 's/^/  without: events\/s, lost %: /' "$tmp/without.txt" >&2
saves=$(awk '{ print $3 }' "$tmp/with.txt" | median)
echo "bench recorder.ingest_events_per_s $(awk '{ print $1 }' "$tmp/with.txt" | median) events/s (raw_syscalls under dd bs=1, $saves saves written in ${secs} s, median of $rounds)"
echo "bench recorder.ingest_events_per_s.anchor $(awk '{ print $1 }' "$tmp/without.txt" | median) events/s (the same without --save-on)"
echo "bench recorder.lost_pct $(awk '{ print $2 }' "$tmp/with.txt" | median) %"
echo "bench recorder.lost_pct.anchor $(awk '{ print $2 }' "$tmp/without.txt" | median) % (without --save-on)"

"$TOOLS/tracestate" -x --diff "$tmp/state" > "$tmp/diff" 2>&1 ||
	{ echo "recorder: the tracing state changed: $(head -5 "$tmp/diff")" >&2; exit 1; }
