#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What a ktop uprobe costs the probed program, next to the same uprobe in
# bpftrace, and how long --probe takes to its first event.
#
# Load: build/tools/probe_target N, which calls ktop_probe_word(word, i)
# N times. Measured: the CPU time (user + system) the load used per call: a
# uprobe's cost (the breakpoint trap, the handler, writing the record or
# running the BPF program) lands in the probed task. Configurations,
# interleaved round by round, median of each:
#   off        no probe
#   ktop       ktop --probe 'probe_target:ktop_probe_word' (the hit, no arguments)
#   ktop.args  the same with $arg1:string n=$arg2:s32 (a string copied per hit)
#   bpftrace   bpftrace -e 'uprobe:...:ktop_probe_word { @[comm] = count(); }', the anchor
# Prints:
#   bench probe.uprobe_ns V ns                       (ktop, per hit)
#   bench probe.uprobe_ns.args V ns                  (ktop with arguments)
#   bench probe.uprobe_ns.anchor.bpftrace V ns (...)
#   bench probe.first_event_s V s                    (ktop start to the first event counted)
#   bench probe.first_event_s.anchor.bpftrace V s (...)
# Environment: KTOP_BENCH_CALLS (default 100000), KTOP_BENCH_ROUNDS (5),
# KTOP_BENCH_CPU (0; "" for unpinned).
set -u
cd "$(dirname "$0")/../.." || exit 2
export LC_ALL=C

KTOP=${KTOP:-./ktop}
TOOLS=${KTOP_TOOLS:-build/tools}
CALLS=${KTOP_BENCH_CALLS:-100000}
ROUNDS=${KTOP_BENCH_ROUNDS:-5}
CPU=${KTOP_BENCH_CPU-0}
tmp=$(mktemp -d /tmp/ktop-bench-probe.XXXXXX)
bg=""
restore() {
	[ -n "$bg" ] && kill -INT $bg 2>/dev/null && wait $bg 2>/dev/null
	rm -rf "$tmp"
}
trap restore EXIT
trap 'exit 130' INT TERM HUP

for need in bpftrace python3; do
	command -v "$need" > /dev/null || { echo "bench probe: $need missing (make deps)"; exit 1; }
done
[ -x "$TOOLS/probe_target" ] || { echo "bench probe: $TOOLS/probe_target not built (make tools)"; exit 1; }
[ -x "$KTOP" ] || { echo "bench probe: $KTOP not built"; exit 1; }
TARGET=$(readlink -f "$TOOLS/probe_target")
PIN=()
[ -n "$CPU" ] && PIN=(taskset -c "$CPU")

# load: CPU microseconds (user + system) of N calls, as one number
load() {
	local t
	t=$( { TIMEFORMAT='%3U %3S'; time "${PIN[@]}" "$TARGET" "$CALLS" > /dev/null; } 2>&1 )
	awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.0f\n", (a[1] + a[2]) * 1e6 }'
}

# wait_line FILE REGEX SECONDS
wait_line() {
	local i
	for ((i = 0; i < $3 * 20; i++)); do
		grep -qE -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

start() {
	# emptied here: a background job's own "> file" may come after the first look
	: > "$tmp/out"
	: > "$tmp/err"
	case $1 in
	off)
		return 0 ;;
	ktop|ktop.args)
		local args=()
		[ "$1" = ktop.args ] && args=('$arg1:string' 'n=$arg2:s32')
		$KTOP --batch --no-bpf --interval 1 \
			--probe "$TARGET:ktop_probe_word ${args[*]}" > "$tmp/out" 2> "$tmp/err" &
		bg=$!
		wait_line "$tmp/out" "^Top events" 30 ;;
	bpftrace)
		bpftrace -e "uprobe:$TARGET:ktop_probe_word { @[comm] = count(); }" \
			> "$tmp/out" 2> "$tmp/err" &
		bg=$!
		wait_line "$tmp/out" "^Attaching" 30 && sleep 0.5 ;;
	esac
}

stop() {
	[ -n "$bg" ] || return 0
	kill -INT $bg 2>/dev/null
	wait $bg 2>/dev/null
	bg=""
}

configs="off ktop ktop.args bpftrace"
for ((r = 0; r < ROUNDS; r++)); do
	for c in $configs; do
		if ! start $c; then
			echo "bench probe: $c did not start: $(head -c 300 "$tmp/err")"
			stop
			exit 1
		fi
		echo "$(load)" >> "$tmp/$c"
		stop
	done
	echo "round $((r + 1)): $(for c in $configs; do printf '%s %s us  ' $c "$(tail -1 "$tmp/$c")"; done)"
done

median() {
	sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
off=$(median "$tmp/off")
per_hit() {
	awk -v a="$(median "$tmp/$1")" -v o="$off" -v n="$CALLS" 'BEGIN { printf "%.0f", (a - o) * 1000 / n }'
}
echo "load: $CALLS calls, median CPU time off $off us"
echo "bench probe.uprobe_ns $(per_hit ktop) ns"
echo "bench probe.uprobe_ns.args $(per_hit ktop.args) ns"
echo "bench probe.uprobe_ns.anchor.bpftrace $(per_hit bpftrace) ns (bpftrace 'uprobe:...{ @[comm] = count(); }', same load and run)"

# Time to the first event: probe_target calls the function every millisecond;
# from the moment the tool is started to the first hit it reports.
"$TARGET" 1000000000 1 > /dev/null &
loadpid=$!
for ((r = 0; r < 3; r++)); do
	: > "$tmp/fj"
	: > "$tmp/fb"
	t0=$(date +%s.%N)
	$KTOP --json --no-bpf --interval 0.02 --probe "$TARGET:ktop_probe_word" > "$tmp/fj" 2> "$tmp/err" &
	bg=$!
	wait_line "$tmp/fj" '"event":"ktop_[0-9]+:ktop_probe_word","count":[1-9]' 60
	t1=$(date +%s.%N)
	stop
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' >> "$tmp/first.ktop"
	t0=$(date +%s.%N)
	bpftrace -e "uprobe:$TARGET:ktop_probe_word { printf(\"hit\\n\"); exit(); }" \
		> "$tmp/fb" 2> /dev/null &
	bg=$!
	wait_line "$tmp/fb" "^hit" 60
	t1=$(date +%s.%N)
	stop
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' >> "$tmp/first.bpftrace"
done
kill $loadpid 2>/dev/null
wait $loadpid 2>/dev/null
echo "first event: ktop $(tr '\n' ' ' < "$tmp/first.ktop")s, bpftrace $(tr '\n' ' ' < "$tmp/first.bpftrace")s"
echo "bench probe.first_event_s $(median "$tmp/first.ktop") s"
echo "bench probe.first_event_s.anchor.bpftrace $(median "$tmp/first.bpftrace") s (bpftrace to its first printf of the same uprobe)"
