#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The trace-cmd anchor of the decode benchmark, on the very same records
# (needs root):
#  1. tests/tools/record_fixture records raw_syscalls + sched around a known
#     workload (dd bs=1: four syscall events per byte) into raw pages, in its
#     own instance;
#  2. bench_decode decodes those pages into the store -> ktop's rate;
#  3. `trace-cmd restore` wraps the same raw pages into a trace.dat (it only
#     reads tracefs: trace-cmd never drives the kernel here; `trace-cmd record`
#     cannot run on this host anyway, it dies on /proc/sys/kernel/ftrace_enabled
#     EPERM), and `trace-cmd report` prints them -> trace-cmd's rate, in CPU
#     time (user + sys) like bench_decode.
# Prints:
#   bench decode.syscalls.store_rate <M events/s> ...
#   bench decode.syscalls.ns_per_event <ns>
#   bench decode.syscalls.store_rate.anchor <M events/s> (trace-cmd report ...)

set -uo pipefail
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 2

BYTES=${KTOP_ANCHOR_BYTES:-50000}

if [ "$(id -u)" != 0 ] || [ ! -d /sys/kernel/tracing/events ]; then
	echo "decode_anchor: needs root and tracefs; skipped"
	exit 0
fi
if ! command -v trace-cmd >/dev/null; then
	echo "decode_anchor: trace-cmd not installed; skipped"
	exit 0
fi
[ -x build/tools/record_fixture ] && [ -x build/bench/bench_decode ] ||
	{ echo "decode_anchor: build tools and benches first (make tools benches)"; exit 1; }

tmp=$(mktemp -d /tmp/ktop-decode-anchor.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# 1. the records
build/tools/record_fixture -o "$tmp/fx" -b 16384 -x -e raw_syscalls -e sched -- \
	dd if=/dev/zero of=/dev/null bs=1 count="$BYTES" >"$tmp/fx.out" 2>&1 ||
	{ cat "$tmp/fx.out"; exit 1; }
records=$(sed -n 's/^records=//p' "$tmp/fx/meta")

# 2. ktop
KTOP_BENCH_FIXTURE="$tmp/fx" build/bench/bench_decode > "$tmp/ktop.out" ||
	{ cat "$tmp/ktop.out"; exit 1; }
sed -n 's/^bench decode\.\(store_rate\|ns_per_event\) /bench decode.syscalls.\1 /p' "$tmp/ktop.out"

# 3. trace-cmd on the same pages
cpus=()
for f in "$tmp"/fx/cpu*.raw.gz; do
	zcat "$f" > "$tmp/$(basename "${f%.gz}")"
done
for ((c = 0; ; c++)); do
	[ -f "$tmp/cpu$c.raw" ] || break
	cpus+=("$tmp/cpu$c.raw")
done
trace-cmd restore -c -o "$tmp/head.dat" >/dev/null 2>&1 &&
	trace-cmd restore -i "$tmp/head.dat" -o "$tmp/trace.dat" "${cpus[@]}" >/dev/null 2>&1 ||
	{ echo "decode_anchor: trace-cmd restore failed"; exit 1; }
TIMEFORMAT='%U %S %R'
t=$( { time trace-cmd report -i "$tmp/trace.dat" >"$tmp/report.txt" 2>/dev/null; } 2>&1 )
lines=$(grep -c ': \(sys_\|sched_\)' "$tmp/report.txt")
read -r user sys real <<< "$t"
cpu=$(echo "$user + $sys" | bc -l)
printf 'bench decode.syscalls.store_rate.anchor %.3f Mevents/s (trace-cmd report of the same %d records via trace-cmd restore; %.2f s CPU, %.2f s wall; %d lines)\n' \
	"$(echo "$records / $cpu / 1000000" | bc -l)" "$records" "$cpu" "$real" "$lines"
