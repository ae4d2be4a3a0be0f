# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the benchmarks that load the scheduler (bpf_overhead.sh,
# offcpu_overhead.sh, stacks_overhead.sh); tests/bench/run.sh does not run lib_*.sh.

# pipe_load LOOPS CPU: the CPU time (user + system) of `perf bench sched pipe
# -l LOOPS`, pinned to CPU ("" for unpinned), in microseconds per operation.
# CPU time, not wall time: BPF programs and the kernel's stack walks run in
# the context of the task that hits the tracepoint, so their cost lands in the
# load's CPU time, while wall time on this shared machine mostly measures the
# neighbours.
pipe_load() {
	local t
	t=$( { TIMEFORMAT='%3U %3S'; time {
		if [ -n "$2" ]; then
			taskset -c "$2" perf bench sched pipe -l "$1" > /dev/null 2>&1
		else
			perf bench sched pipe -l "$1" > /dev/null 2>&1
		fi; } ; } 2>&1 )
	echo "$t" | awk -v n="$1" '{ printf "%.4f\n", ($1 + $2) * 1e6 / n }'
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

# prog_ns LOW PATTERN: total run_time_ns of programs with id > LOW named like PATTERN
prog_ns() {
	bpftool prog show -j 2>/dev/null | python3 -c '
import json, re, sys
low, pat = int(sys.argv[1]), sys.argv[2]
print(sum(p.get("run_time_ns", 0) for p in json.load(sys.stdin)
          if p["id"] > low and re.search(pat, p.get("name", ""))))' "$1" "$2"
}

median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# sched_bench_begin NAME [bpf_stats]: $tmp (a private directory), $bg (a
# background tool the script starts, killed on exit), and with bpf_stats the
# kernel's BPF run-time accounting (run_time_ns per program: immune to the
# neighbours' noise) turned on, $stats_was its value before ("" when the
# kernel has none), put back on exit.
sched_bench_begin() {
	tmp=$(mktemp -d "/tmp/ktop-bench-$1.XXXXXX")
	bg=""
	stats_was=""
	[ "${2-}" = bpf_stats ] && stats_was=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null)
	trap sched_bench_end EXIT
	trap 'exit 130' INT TERM HUP
	[ -n "$stats_was" ] && sysctl -q -w kernel.bpf_stats_enabled=1
	return 0
}

sched_bench_end() {
	[ -n "$bg" ] && kill -KILL $bg 2>/dev/null
	[ -n "$stats_was" ] && sysctl -q -w kernel.bpf_stats_enabled="$stats_was"
	rm -rf "$tmp"
}

# sched_rounds CONFIG...: ROUNDS rounds of `one CONFIG` (the script's: it
# prints "CPU-us/op BPF-ns/op"), the configurations alternating; then m_CONFIG
# and b_CONFIG, the medians, and a "# CONFIG: ..." line of every round's figures.
sched_rounds() {
	local r c
	for ((r = 0; r < ROUNDS; r++)); do
		for c in "$@"; do
			one "$c" >> "$tmp/$c"
		done
	done
	for c in "$@"; do
		awk '{ print $1 }' "$tmp/$c" > "$tmp/$c.cpu"
		awk '{ print $2 }' "$tmp/$c" > "$tmp/$c.bpf"
		eval "m_$c=$(median < "$tmp/$c.cpu")"
		eval "b_$c=$(median < "$tmp/$c.bpf")"
		echo "# $c: load CPU us/op $(tr '\n' ' ' < "$tmp/$c.cpu")(median $(median < "$tmp/$c.cpu"));" \
		     "BPF ns/op $(tr '\n' ' ' < "$tmp/$c.bpf")"
	done
}

# cpct A B: how much A is above B, in percent
cpct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (a - b) * 100 / b }'; }
