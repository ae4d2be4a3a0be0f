#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What stack traces cost, live: the same event at the same load with and
# without stacks.
#
# Load: `perf bench sched pipe` pinned to one CPU (two context switches per
# operation, each a sched:sched_switch event). ktop records sched_switch in
# four configurations, interleaved round by round, median of each:
#   events   -e sched:sched_switch (no stacks)
#   stacks   --stack sched:sched_switch (the stacktrace trigger: a kernel stack
#            walk in the switching task, and a kernel_stack record per event)
#   ustacks  --ustack sched:sched_switch (and options/userstacktrace)
#   off      no ktop: the load alone
# Prints:
#   bench stacks.load_us_per_op.{off,events,stacks,ustacks}   the load's CPU time
#       per operation (user + system: the kernel's stack walk lands there)
#   bench stacks.events_per_s.{events,stacks,ustacks}   sched_switch events ktop
#       stored per second of the load
#   bench stacks.ktop_ns_per_event.{events,stacks,ustacks}   ktop's own CPU per
#       event (its readers: read + decode + store, from --json)
#   bench stacks.lost.{...}   events lost (kernel overrun + ktop drops)
# Environment: KTOP_BENCH_LOOPS (default 20000), KTOP_BENCH_ROUNDS (3),
# KTOP_BENCH_CPU (0).
set -u
cd "$(dirname "$0")/../.." || exit 2
export LC_ALL=C

KTOP=${KTOP:-./ktop}
LOOPS=${KTOP_BENCH_LOOPS:-20000}
ROUNDS=${KTOP_BENCH_ROUNDS:-3}
CPU=${KTOP_BENCH_CPU-0}
# $tmp, $bg and medians: tests/bench/lib_sched.sh
. tests/bench/lib_sched.sh
sched_bench_begin stacks

for need in perf python3; do
	command -v "$need" > /dev/null || { echo "bench stacks: $need missing (make deps)"; exit 1; }
done
[ -x "$KTOP" ] || { echo "bench stacks: $KTOP not built"; exit 1; }


# load: "CPU-us/op wall-s" of one run
load() {
	local t0 t1 c
	t0=$(date +%s%N)
	c=$( { TIMEFORMAT='%3U %3S'; time taskset -c "$CPU" perf bench sched pipe -l "$LOOPS" \
		> /dev/null 2>&1; } 2>&1 )
	t1=$(date +%s%N)
	echo "$c" | awk -v n="$LOOPS" -v w="$(((t1 - t0) / 1000))" \
		'{ printf "%.4f %.6f\n", ($1 + $2) * 1e6 / n, w / 1e6 }'
}

# one CONFIG: "load-us/op events/s ktop-ns/event lost"
one() {
	local opts l i
	case $1 in
	off)	echo "$(load | awk '{ print $1 }') 0 0 0"; return;;
	events)	opts="-e sched:sched_switch";;
	stacks)	opts="--stack sched:sched_switch";;
	ustacks) opts="--ustack sched:sched_switch";;
	esac
	rm -f "$tmp/k.json"
	# shellcheck disable=SC2086
	$KTOP --json --interval 1 --duration 600 -b 4096 $opts > "$tmp/k.json" 2>&1 &
	bg=$!
	for ((i = 0; i < 100; i++)); do
		[ -s "$tmp/k.json" ] && break
		sleep 0.1
	done
	l=$(load)
	kill -INT $bg
	wait $bg
	bg=""
	python3 - "$tmp/k.json" $l <<'PY'
import json, sys
last = None
for line in open(sys.argv[1]):
    if line.startswith('{'):
        last = json.loads(line)
us, wall = float(sys.argv[2]), float(sys.argv[3])
if not last:
    print(us, 0, 0, 0)
    sys.exit()
cpu_ns = sum(c['read_cpu_ns'] + c['decode_cpu_ns'] for c in last['cpus'])
dec = sum(c['decoded_total'] for c in last['cpus'])
print(us, last['events_total'] / wall, cpu_ns / dec if dec else 0, last['lost_total'])
PY
}

configs="off events stacks ustacks"
for ((r = 0; r < ROUNDS; r++)); do
	for c in $configs; do
		one "$c" >> "$tmp/$c"
	done
done
for c in $configs; do
	for k in 1 2 3 4; do
		awk -v k=$k '{ print $k }' "$tmp/$c" > "$tmp/$c.$k"
	done
	echo "# $c: load us/op $(tr '\n' ' ' < "$tmp/$c.1")events/s $(tr '\n' ' ' < "$tmp/$c.2")" \
	     "ktop ns/event $(tr '\n' ' ' < "$tmp/$c.3")lost $(tr '\n' ' ' < "$tmp/$c.4")"
	eval "l_$c=$(median < "$tmp/$c.1") e_$c=$(median < "$tmp/$c.2")"
	eval "n_$c=$(median < "$tmp/$c.3") x_$c=$(median < "$tmp/$c.4")"
done
echo "bench stacks.load_us_per_op.stacks $l_stacks us (perf bench sched pipe on CPU $CPU," \
     "2 sched_switch per op, with --stack sched:sched_switch; median of $ROUNDS)"
echo "bench stacks.load_us_per_op.ustacks $l_ustacks us (with --ustack)"
echo "bench stacks.load_us_per_op.anchor.events $l_events us (the same event without stacks)"
echo "bench stacks.load_us_per_op.anchor.off $l_off us (no ktop)"
printf 'bench stacks.events_per_s.stacks %.0f events/s (sched_switch stored per second of the load)\n' "$e_stacks"
printf 'bench stacks.events_per_s.ustacks %.0f events/s\n' "$e_ustacks"
printf 'bench stacks.events_per_s.anchor.events %.0f events/s (without stacks)\n' "$e_events"
printf 'bench stacks.ktop_ns_per_event.stacks %.1f ns (ktop readers: read + decode + store, per event)\n' "$n_stacks"
printf 'bench stacks.ktop_ns_per_event.ustacks %.1f ns\n' "$n_ustacks"
printf 'bench stacks.ktop_ns_per_event.anchor.events %.1f ns (without stacks)\n' "$n_events"
echo "bench stacks.lost $x_stacks events (--stack; --ustack: $x_ustacks; no stacks: $x_events)"
