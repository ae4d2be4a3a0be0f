#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What an A->B latency measured in the kernel (--latency, issue 26) costs per
# paired event, next to the same latency measured by bpftrace and by
# streaming both events to user space.
#
# The latency: sched:sched_waking -> sched:sched_switch on pid = next_pid.
# Load: `perf bench sched pipe` pinned to one CPU (two tasks passing a token:
# wakeups and context switches, the events measured). Configurations,
# interleaved round by round, median of each:
#   off       nothing attached
#   bpf       ktop's BPF engine (build/tools/agg_tool -e bpf: src/agg/, the
#             program bpf/agglat.bpf.c, polled once a second as ktop does):
#             the histogram, count/sum/min/max, the per-key breakdown (count,
#             sum, max and its time) and the worst pair
#   bpftrace  the anchor: the same figures in a bpftrace script (@start[pid] =
#             nsecs on sched_waking; on sched_switch hist(), stats() and max()
#             by next_pid, and delete)
#   bt_hist   bpftrace keeping the histogram only (the usual one-liner)
#   stream    ktop streaming both events to user space (-e sched:sched_waking
#             -e sched:sched_switch --batch), where the pairs would be made
# Cost per pair, the pairs being the BPF engine's count of the same load:
# for the BPF tools, their programs' run time (the kernel's BPF run-time
# accounting, kernel.bpf_stats_enabled: immune to the neighbours' noise) plus
# the tool's own CPU time (the scheduler's ns of its threads); for streaming,
# ktop's CPU time (its readers, decoding, the store). What writing the events
# costs the load is not in that: the load's CPU time on this shared VM (which
# includes what its host steals) varies between runs by as much: a line of
# its own gives it (the medians' difference) with none's range. The hist engine (hist
# triggers and a synthetic event) exists only where the kernel has
# CONFIG_HIST_TRIGGERS, which this host's has not: it says so.
# Prints:
#   bench agg.bpf.ns_per_pair V ns                  (the BPF engine)
#   bench agg.bpf.ns_per_pair.anchor.bpftrace V ns  (bpftrace, the same figures)
#   bench agg.bpf.ns_per_pair.anchor.bt_hist V ns   (bpftrace, the histogram only)
#   bench agg.bpf.ns_per_pair.anchor.stream V ns    (ktop streaming both events)
#   bench agg.bpf.ratio.anchor.NAME R x             (NAME's cost per pair / the engine's)
#   bench agg.bpf.stream_load_ns_per_pair V ns      (the event writes, noisy)
# Environment: KTOP_BENCH_LOOPS (default 200000), KTOP_BENCH_ROUNDS (3),
# KTOP_BENCH_CPU (0; "" for unpinned).
set -u
cd "$(dirname "$0")/../.." || exit 2
export LC_ALL=C

TOOLS=${KTOP_TOOLS:-build/tools}
LOOPS=${KTOP_BENCH_LOOPS:-200000}
ROUNDS=${KTOP_BENCH_ROUNDS:-3}
CPU=${KTOP_BENCH_CPU-0}
WAKE='sched:sched_waking -> sched:sched_switch on pid = next_pid'
TRACEFS=/sys/kernel/tracing
. tests/bench/lib_sched.sh
sched_bench_begin agg bpf_stats

for need in perf bpftrace bpftool python3; do
	command -v "$need" > /dev/null || { echo "bench agg: $need missing (make deps)"; exit 1; }
done
[ -x "$TOOLS/agg_tool" ] || { echo "bench agg: $TOOLS/agg_tool not built (make tools)"; exit 1; }
[ -x ./ktop ] || { echo "bench agg: ./ktop not built (make ktop)"; exit 1; }
[ -f "$TRACEFS/events/hist/enable" ] || [ -f "$TRACEFS/synthetic_events" ] ||
	echo "# the hist engine: this kernel has no hist triggers and synthetic events" \
	     "(CONFIG_HIST_TRIGGERS, CONFIG_SYNTH_EVENTS); on the rt guests only" >&2

cat > "$tmp/wake.bt" <<'EOF'
tracepoint:sched:sched_waking { @start[args->pid] = nsecs; }
tracepoint:sched:sched_switch /@start[args->next_pid]/ {
	$lat = nsecs - @start[args->next_pid];
	@lat = hist($lat);
	@by[args->next_pid] = stats($lat);
	@max[args->next_pid] = max($lat);
	delete(@start[args->next_pid]);
}
EOF
cat > "$tmp/hist.bt" <<'EOF'
tracepoint:sched:sched_waking { @start[args->pid] = nsecs; }
tracepoint:sched:sched_switch /@start[args->next_pid]/ {
	@lat = hist(nsecs - @start[args->next_pid]);
	delete(@start[args->next_pid]);
}
EOF

# CPU time (ns) of process PID's threads so far (the scheduler's, not clock ticks)
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }

# wait_line FILE REGEX SECONDS
wait_line() {
	local i
	for ((i = 0; i < $3 * 20; i++)); do
		grep -Eq "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# one CONFIG: print "CPU-us/op BPF-ns/op TOOL-us/op PAIRS/op"
one() {
	local low v t0 t1 pat='^$' pairs=0
	low=$(max_prog_id)
	case $1 in
	off)
		echo "$(pipe_load "$LOOPS" "$CPU") 0 0 0"
		return;;
	bpf)
		pat=ktop_agg
		"$TOOLS/agg_tool" -e bpf -l "$WAKE" > "$tmp/agg.out" 2>&1 &
		bg=$!
		wait_line "$tmp/agg.out" '^ready' 10 || echo "bench agg: agg_tool did not start" >&2;;
	bpftrace|bt_hist)
		pat='sched_'
		bpftrace "$tmp/$([ "$1" = bpftrace ] && echo wake || echo hist).bt" \
			> "$tmp/bt.out" 2>&1 &
		bg=$!
		wait_progs "$low" 'sched_switch' || echo "bench agg: bpftrace did not attach" >&2
		sleep 0.5;;
	stream)
		./ktop --batch --no-bpf -e sched:sched_waking -e sched:sched_switch \
			> "$tmp/stream.out" 2>&1 &
		bg=$!
		# tracing: its instance is there with the events on
		for ((i = 0; i < 100; i++)); do
			[ "$(cat "$TRACEFS/instances/ktop-$bg/events/sched/sched_switch/enable" \
				2>/dev/null)" = 1 ] && break
			sleep 0.05
		done
		sleep 0.5;;
	esac
	t0=$(cpu_ns "$bg")
	v=$(pipe_load "$LOOPS" "$CPU")
	t1=$(cpu_ns "$bg")
	v="$v $(prog_ns "$low" "$pat" | awk -v n="$LOOPS" '{ printf "%.1f", $1 / n }')"
	v="$v $(awk -v a="$t0" -v b="$t1" -v n="$LOOPS" 'BEGIN { printf "%.4f", (b - a) / 1e3 / n }')"
	kill -INT "$bg" 2>/dev/null
	wait "$bg" 2>/dev/null
	bg=""
	[ "$1" = bpf ] && pairs=$(awk -v n="$LOOPS" '$1 == "total" { print $4 / n; exit }' \
		"$tmp/agg.out")
	echo "$v ${pairs:-0}"
}

CONFIGS="off bpf bpftrace bt_hist stream"
for ((r = 0; r < ROUNDS; r++)); do
	for c in $CONFIGS; do
		one "$c" >> "$tmp/$c"
	done
done
for c in $CONFIGS; do
	for f in 1 2 3 4; do
		awk -v f=$f '{ print $f }' "$tmp/$c" > "$tmp/$c.$f"
	done
	eval "cpu_$c=$(median < "$tmp/$c.1")"
	eval "prog_$c=$(median < "$tmp/$c.2")"
	eval "tool_$c=$(median < "$tmp/$c.3")"
	echo "# $c: load CPU us/op $(tr '\n' ' ' < "$tmp/$c.1")(median $(eval echo \$cpu_$c)); BPF ns/op $(tr '\n' ' ' < "$tmp/$c.2");" \
	     "tool CPU us/op $(tr '\n' ' ' < "$tmp/$c.3")"
done
ppo=$(median < "$tmp/bpf.4")
echo "# pairs per operation (the BPF engine's count, all tasks): $(tr '\n' ' ' < "$tmp/bpf.4")"
if awk -v p="$ppo" 'BEGIN { exit !(p <= 0) }'; then
	echo "bench agg: the BPF engine counted no pairs"
	exit 1
fi
if [ -z "$stats_was" ]; then
	echo "bench agg: no BPF run-time accounting (kernel.bpf_stats_enabled) on this kernel"
	exit 1
fi
# BPF: (program ns per op + tool us per op) / pairs per op
bpf_pair() {
	awk -v b="$1" -v t="$2" -v p="$ppo" 'BEGIN { printf "%.0f", (b + t * 1000) / p }'
}
b=$(bpf_pair "$prog_bpf" "$tool_bpf")
t=$(bpf_pair "$prog_bpftrace" "$tool_bpftrace")
h=$(bpf_pair "$prog_bt_hist" "$tool_bt_hist")
# streaming: ktop's CPU per pair; what writing the events costs the load is
# not in it (below)
s=$(awk -v t="$tool_stream" -v p="$ppo" 'BEGIN { printf "%.0f", t * 1000 / p }')
s_kern=$(awk -v c="$(median < "$tmp/stream.1")" -v o="$(median < "$tmp/off.1")" -v p="$ppo" \
	'BEGIN { printf "%.0f", (c - o) * 1000 / p }')
off_range="$(sort -g "$tmp/off.1" | head -n 1)..$(sort -g "$tmp/off.1" | tail -n 1)"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "inf" }'; }
echo "bench agg.bpf.ns_per_pair $b ns (ktop's BPF engine: its programs' run time plus its" \
     "CPU, per sched_waking->sched_switch pair of perf bench sched pipe on CPU ${CPU:-any}," \
     "median of $ROUNDS; $ppo pairs/op)"
echo "bench agg.bpf.ns_per_pair.anchor.bpftrace $t ns (bpftrace $(bpftrace --version |
	awk '{ print $2 }'): hist, stats and max by next_pid, same load)"
echo "bench agg.bpf.ns_per_pair.anchor.bt_hist $h ns (bpftrace, the histogram only)"
echo "bench agg.bpf.ns_per_pair.anchor.stream $s ns (ktop streaming both events: its own CPU" \
     "only; the kernel's event writes in the load come on top, next line)"
echo "bench agg.bpf.stream_load_ns_per_pair $s_kern ns (the load's CPU time above none's while" \
     "ktop streams, medians, per pair: noisy here, none's runs took $off_range us/op)"
echo "bench agg.bpf.ratio.anchor.bpftrace $(ratio "$t" "$b") x (bpftrace's cost per pair /" \
     "the engine's)"
echo "bench agg.bpf.ratio.anchor.bt_hist $(ratio "$h" "$b") x (bpftrace histogram only / the engine)"
echo "bench agg.bpf.ratio.anchor.stream $(ratio "$s" "$b") x (ktop's CPU streaming both" \
     "events, without the kernel's writes / the engine's cost per pair)"
