#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Idle cost: ktop's own CPU use (utime + stime of all its threads, from
# /proc/PID/stat) over 10 s of steady state, start-up excluded, while the
# kernel is as idle as this machine gets:
#   idle.cpu_pct             ktop --batch, the default view (sched, irq and
#                            syscall events of the whole machine)
#   idle.cpu_pct.rare_event  ktop --batch -e sched:sched_process_exec: almost
#                            no events, so this is the cost of waiting itself
#                            (busy polling would show here)
# Anchor: top -b -d 1 over the same 10 s (a once-a-second batch monitor).
# Needs root.

set -u
cd "$(dirname "$0")/../.." || exit 2
export LC_ALL=C
KTOP=${KTOP:-./ktop}
secs=${KTOP_BENCH_IDLE_SECONDS:-10}
hz=$(getconf CLK_TCK)
tmp=$(mktemp -d /tmp/ktop-bench.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill -INT $p 2>/dev/null; done; wait; rm -rf "$tmp"' EXIT

if [ "$(id -u)" -ne 0 ]; then
	echo "idle_cost: needs root" >&2
	exit 1
fi

ticks() {	# utime + stime of PID, in clock ticks
	awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"
}

"$KTOP" --json >"$tmp/a.json" 2>"$tmp/a.err" &
pa=$!
"$KTOP" --json -e sched:sched_process_exec >"$tmp/b.json" 2>"$tmp/b.err" &
pb=$!
top -b -d 1 >/dev/null 2>&1 &
pt=$!
pids=($pa $pb $pt)
sleep 2		# start-up (event formats, symbols) is not idle cost
a0=$(ticks $pa) b0=$(ticks $pb) t0=$(ticks $pt)
w0=$(date +%s.%N)
sleep "$secs"
a1=$(ticks $pa) b1=$(ticks $pb) t1=$(ticks $pt)
w1=$(date +%s.%N)
for p in "${pids[@]}"; do kill -INT $p; done
wait $pa; ra=$?
wait $pb; rb=$?
wait $pt
pids=()
if [ -z "$a1" ] || [ -z "$b1" ] || [ $ra -ne 0 ] || [ $rb -ne 0 ]; then
	echo "idle_cost: ktop failed: $(head -c 300 "$tmp/a.err" "$tmp/b.err")" >&2
	exit 1
fi
pct() { awk "BEGIN { printf \"%.2f\", 100 * ($2 - $1) / $hz / ($w1 - $w0) }"; }
rate=$(python3 -c '
import json, sys
o = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(int(sum(x["events_per_s"] for x in o) / max(len(o), 1)))' "$tmp/a.json")
echo "ktop default view ingested ~$rate events/s on this 'idle' machine"
echo "bench idle.cpu_pct $(pct $a0 $a1) %"
echo "bench idle.cpu_pct.rare_event $(pct $b0 $b1) %"
echo "bench idle.cpu_pct.anchor $(pct $t0 $t1) % (top -b -d 1, same ${secs} s)"
