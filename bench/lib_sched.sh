# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the benchmarks that load the scheduler (bpf_overhead.sh,
# offcpu_overhead.sh, stacks_overhead.sh); bench/run.sh does not run lib_*.sh.

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
