#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What ktop's BPF programs cost a context-switch-heavy load.
#
# Load: `perf bench sched pipe` (two tasks passing a token through pipes),
# pinned to one CPU so that every operation is two context switches and two
# wakeups: the worst case for scheduler hooks. Measured: the CPU time (user +
# system) the load used per operation. Configurations, interleaved
# round by round, median of each:
#   off      no BPF
#   default  ktop's default programs (sched, irq; no syscalls), polled at 4 Hz
#   all      ktop's programs, all of them (--bpf-syscalls: sched, irq, syscalls)
#   sched    ktop's sched programs only (-S -I): the same job as runqlat
#   runqlat  libbpf-tools' runqlat (Debian libbpf-tools), the anchor
# Prints:
#   bench bpf.overhead_pct V %                      (ktop's default programs)
#   bench bpf.overhead_pct.all V %                  (all, with --bpf-syscalls)
#   bench bpf.overhead_pct.sched V %                (sched programs only)
#   bench bpf.overhead_pct.anchor.runqlat V % (...) (runqlat on the same load)
#   bench bpf.poll_us V us                          (one poll of every map)
# Environment: KTOP_BENCH_LOOPS (default 100000), KTOP_BENCH_ROUNDS (5),
# KTOP_BENCH_CPU (0; "" for unpinned).
set -u
cd "$(dirname "$0")/../.." || exit 2
export LC_ALL=C

TOOLS=${KTOP_TOOLS:-build/tools}
LOOPS=${KTOP_BENCH_LOOPS:-100000}
ROUNDS=${KTOP_BENCH_ROUNDS:-5}
CPU=${KTOP_BENCH_CPU-0}
# $tmp, $bg, the BPF run-time accounting, the load, rounds and medians:
# tests/bench/lib_sched.sh
. tests/bench/lib_sched.sh
sched_bench_begin bpf bpf_stats

for need in perf runqlat bpftool python3; do
	command -v "$need" > /dev/null || { echo "bench bpf: $need missing (make deps)"; exit 1; }
done
[ -x "$TOOLS/bpf_drive" ] || { echo "bench bpf: $TOOLS/bpf_drive not built (make tools)"; exit 1; }

load() {
	pipe_load "$LOOPS" "$CPU"
}

# one CONFIG: print "CPU-us/op BPF-ns/op" of one load under CONFIG
one() {
	local low v pat=ktop_
	low=$(max_prog_id)
	case $1 in
	off)
		load
		return;;
	default|all|sched)
		local flags="-q -i 0.25"
		[ "$1" = default ] && flags="$flags -S"
		[ "$1" = sched ] && flags="$flags -S -I"
		"$TOOLS/bpf_drive" $flags > "$tmp/drv.out" 2>&1 &
		bg=$!
		for ((i = 0; i < 100; i++)); do
			grep -q '^ready' "$tmp/drv.out" && break
			sleep 0.05
		done;;
	runqlat)
		pat=sched_
		runqlat 3600 1 > /dev/null 2>&1 &
		bg=$!
		wait_progs "$low" 'sched_switch' || echo "bench bpf: runqlat did not attach" >&2;;
	esac
	v=$(load)
	v="$v $(prog_ns "$low" "$pat" | awk -v n="$LOOPS" '{ printf "%.1f", $1 / n }')"
	kill -INT "$bg" 2>/dev/null
	wait "$bg" 2>/dev/null
	bg=""
	[ "$1" = all ] && awk '/^status/ { for (i = 1; i < NF; i++) if ($i == "poll_us") print $(i + 1) }' \
		"$tmp/drv.out" >> "$tmp/poll"
	echo "$v"
}

sched_rounds off default all sched runqlat
# pct BPF-NS CPU-US: BPF ns/op as a share of the CPU us/op
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a * 100 / (b * 1000) }'; }
# overhead = BPF run time per operation / the load's CPU time per operation without BPF
if [ -n "$stats_was" ]; then
	echo "bench bpf.overhead_pct $(pct "$b_default" "$m_off") % (ktop's default programs," \
	     "sched and irq: BPF run time per op of perf bench sched pipe on CPU ${CPU:-any} /" \
	     "its CPU time without BPF, median of $ROUNDS)"
	echo "bench bpf.overhead_pct.all $(pct "$b_all" "$m_off") % (ktop --bpf-syscalls: all programs)"
	echo "bench bpf.overhead_pct.sched $(pct "$b_sched" "$m_off") % (ktop, sched programs only)"
	echo "bench bpf.overhead_pct.anchor.runqlat $(pct "$b_runqlat" "$m_off") %" \
	     "(libbpf-tools runqlat on the same load)"
	echo "bench bpf.ns_per_op $b_default ns (ktop's default programs; with --bpf-syscalls:" \
	     "$b_all ns; sched only: $b_sched ns)"
	echo "bench bpf.ns_per_op.anchor.runqlat $b_runqlat ns (libbpf-tools runqlat)"
fi
echo "bench bpf.cpu_overhead_pct $(cpct "$m_default" "$m_off") % (load CPU time with ktop's default programs" \
     "vs without; noisy on a shared machine)"
echo "bench bpf.cpu_overhead_pct.anchor.runqlat $(cpct "$m_runqlat" "$m_off") % (same, runqlat)"
echo "bench bpf.poll_us $(median < "$tmp/poll") us (one poll of every map, 2 CPUs)"
