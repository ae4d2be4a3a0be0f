#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What ktop's BPF off-CPU stacks (--offcpu) cost a context-switch-heavy load,
# next to libbpf-tools offcputime (Debian libbpf-tools) on the same load in
# the same run.
#
# Load: `perf bench sched pipe` pinned to one CPU: every operation is two
# context switches, each a stack walk (kernel and user) in both tools.
# Measured, interleaved round by round, median of each:
#   - the kernel's own run time of the program (kernel.bpf_stats_enabled,
#     run_time_ns of ktop_offcpu* / offcputime's sched_switch program) per
#     operation: immune to the neighbours' noise;
#   - the load's CPU time per operation (noisier).
# ktop runs with --offcpu -e sched:sched_process_exit (a quiet event); its
# other BPF programs (kstat) run too: only the off-CPU program's run time is
# counted in the first figure, both are in the second.
# Prints:
#   bench offcpu.ns_per_op V ns                     (ktop's off-CPU program)
#   bench offcpu.ns_per_op.anchor.offcputime V ns   (offcputime, same load)
#   bench offcpu.cpu_overhead_pct V %               (load CPU time vs no tool)
#   bench offcpu.cpu_overhead_pct.anchor.offcputime V %
# Environment: KTOP_BENCH_LOOPS (default 50000), KTOP_BENCH_ROUNDS (5),
# KTOP_BENCH_CPU (0).
set -u
cd "$(dirname "$0")/../.." || exit 2
export LC_ALL=C

KTOP=${KTOP:-./ktop}
LOOPS=${KTOP_BENCH_LOOPS:-50000}
ROUNDS=${KTOP_BENCH_ROUNDS:-5}
CPU=${KTOP_BENCH_CPU-0}
# $tmp, $bg, the BPF run-time accounting, the load, rounds and medians:
# tests/bench/lib_sched.sh
. tests/bench/lib_sched.sh
sched_bench_begin offcpu bpf_stats

for need in perf offcputime bpftool python3; do
	command -v "$need" > /dev/null || { echo "bench offcpu: $need missing (make deps)"; exit 1; }
done
[ -x "$KTOP" ] || { echo "bench offcpu: $KTOP not built"; exit 1; }

load() {
	pipe_load "$LOOPS" "$CPU"
}

# one CONFIG: "CPU-us/op BPF-ns/op"
one() {
	local low v pat
	low=$(max_prog_id)
	case $1 in
	off)
		echo "$(load) 0"
		return;;
	ktop)
		pat='^ktop_offcpu'
		$KTOP --json --interval 1 --duration 600 --offcpu -e sched:sched_process_exit \
			> "$tmp/k.json" 2>&1 &
		bg=$!;;
	offcputime)
		pat='sched_switch'
		offcputime 3600 > /dev/null 2>&1 &
		bg=$!;;
	esac
	wait_progs "$low" "$pat" || echo "bench offcpu: $1 did not attach" >&2
	v=$(load)
	v="$v $(prog_ns "$low" "$pat" | awk -v n="$LOOPS" '{ printf "%.1f", $1 / n }')"
	kill -INT "$bg" 2>/dev/null
	wait "$bg" 2>/dev/null
	bg=""
	echo "$v"
}

sched_rounds off ktop offcputime
if [ -n "$stats_was" ]; then
	echo "bench offcpu.ns_per_op $b_ktop ns (ktop --offcpu: its sched_switch program's run time" \
	     "per op of perf bench sched pipe on CPU $CPU, 2 switches per op, median of $ROUNDS)"
	echo "bench offcpu.ns_per_op.anchor.offcputime $b_offcputime ns (libbpf-tools offcputime," \
	     "same load)"
fi
echo "bench offcpu.cpu_overhead_pct $(cpct "$m_ktop" "$m_off") % (load CPU time with ktop --offcpu" \
     "(its kstat programs too) vs without; noisy on a shared machine)"
echo "bench offcpu.cpu_overhead_pct.anchor.offcputime $(cpct "$m_offcputime" "$m_off") % (same, offcputime)"
