#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What ktop's BPF programs cost a context-switch-heavy load.
#
# Load: `perf bench sched pipe` (two tasks passing a token through pipes),
# pinned to one CPU so that every operation is two context switches and two
# wakeups: the worst case for scheduler hooks. Configurations, interleaved
# round by round, median of each:
#   off      no BPF
#   all      ktop's programs, all of them (sched, irq, syscalls), polled at 4 Hz
#   sched    ktop's sched programs only (-S -I): the same job as runqlat
#   runqlat  libbpf-tools' runqlat (Debian libbpf-tools), the anchor
# Prints:
#   bench bpf.overhead_pct V %                      (all programs)
#   bench bpf.overhead_pct.sched V %                (sched programs only)
#   bench bpf.overhead_pct.anchor.runqlat V % (...) (runqlat on the same load)
#   bench bpf.poll_us V us                          (one poll of every map)
# Environment: KTOP_BENCH_LOOPS (default 100000), KTOP_BENCH_ROUNDS (5),
# KTOP_BENCH_CPU (0; "" for unpinned).
set -u
cd "$(dirname "$0")/.." || exit 2
export LC_ALL=C

TOOLS=${KTOP_TOOLS:-build/tools}
LOOPS=${KTOP_BENCH_LOOPS:-100000}
ROUNDS=${KTOP_BENCH_ROUNDS:-5}
CPU=${KTOP_BENCH_CPU-0}
tmp=$(mktemp -d /tmp/ktop-bench-bpf.XXXXXX)
bg=""
trap '[ -n "$bg" ] && kill -KILL $bg 2>/dev/null; rm -rf "$tmp"' EXIT

for need in perf runqlat bpftool python3; do
	command -v "$need" > /dev/null || { echo "bench bpf: $need missing (make deps)"; exit 1; }
done
[ -x "$TOOLS/bpf_drive" ] || { echo "bench bpf: $TOOLS/bpf_drive not built (make tools)"; exit 1; }

load() {
	if [ -n "$CPU" ]; then
		taskset -c "$CPU" perf bench sched pipe -l "$LOOPS" 2>/dev/null
	else
		perf bench sched pipe -l "$LOOPS" 2>/dev/null
	fi | awk '/usecs\/op/ { print $1 }'
}

max_prog_id() {
	bpftool prog show -j 2>/dev/null | python3 -c '
import json, sys
print(max([p["id"] for p in json.load(sys.stdin)] + [0]))'
}

# wait_progs LOW PATTERN: until a program named like PATTERN with id > LOW is loaded
wait_progs() {
	local i
	for ((i = 0; i < 50; i++)); do
		bpftool prog show -j 2>/dev/null | python3 -c '
import json, re, sys
low, pat = int(sys.argv[1]), sys.argv[2]
sys.exit(0 if any(p["id"] > low and re.search(pat, p.get("name", ""))
                  for p in json.load(sys.stdin)) else 1)' "$1" "$2" && return 0
		sleep 0.1
	done
	return 1
}

# one CONFIG: print usecs/op of one load under CONFIG
one() {
	local low v
	case $1 in
	off)
		load
		return;;
	all|sched)
		local flags="-q -i 0.25"
		[ "$1" = sched ] && flags="$flags -S -I"
		"$TOOLS/bpf_drive" $flags > "$tmp/drv.out" 2>&1 &
		bg=$!
		for ((i = 0; i < 100; i++)); do
			grep -q '^ready' "$tmp/drv.out" && break
			sleep 0.05
		done;;
	runqlat)
		low=$(max_prog_id)
		runqlat 3600 1 > /dev/null 2>&1 &
		bg=$!
		wait_progs "$low" 'sched_switch' || echo "bench bpf: runqlat did not attach" >&2;;
	esac
	v=$(load)
	kill -INT "$bg" 2>/dev/null
	wait "$bg" 2>/dev/null
	bg=""
	[ "$1" = all ] && awk '/^status/ { for (i = 1; i < NF; i++) if ($i == "poll_us") print $(i + 1) }' \
		"$tmp/drv.out" >> "$tmp/poll"
	echo "$v"
}

median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

for ((r = 0; r < ROUNDS; r++)); do
	for c in off all sched runqlat; do
		one "$c" >> "$tmp/$c"
	done
done
for c in off all sched runqlat; do
	eval "m_$c=$(median < "$tmp/$c")"
	echo "# $c usecs/op: $(tr '\n' ' ' < "$tmp/$c")(median $(median < "$tmp/$c"))"
done
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (a - b) * 100 / b }'; }
echo "bench bpf.overhead_pct $(pct "$m_all" "$m_off") % (ktop all programs, perf bench sched pipe" \
     "-l $LOOPS${CPU:+ on CPU $CPU}, median of $ROUNDS)"
echo "bench bpf.overhead_pct.sched $(pct "$m_sched" "$m_off") % (ktop sched programs only)"
echo "bench bpf.overhead_pct.anchor.runqlat $(pct "$m_runqlat" "$m_off") % (libbpf-tools runqlat," \
     "same load)"
echo "bench bpf.poll_us $(median < "$tmp/poll") us (one poll of every map, 2 CPUs)"
