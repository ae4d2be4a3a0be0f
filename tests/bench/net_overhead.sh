#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What `ktop --net` costs a loopback TCP transfer (issue 25), against no
# tracing and against libbpf-tools, on the same load in one run.
#
# Load: `netload stream SECONDS` (tests/tools/netload.c) in a network
# namespace of its own: one connection, 64 KB writes as fast as they go.
# Three configurations, interleaved round by round, median of each:
#   off      no tracing
#   ktop     ktop --net --json (its default BPF statistics too, as a user runs it)
#   anchor   libbpf-tools tcplife (sock:inet_sock_set_state, BPF) and a
#            tcpretrans: Debian's libbpf-tools 0.26 has none, and bcc's
#            tcpretrans.bt hooks kprobes, which this kernel lacks, so bpftrace
#            on tracepoint:tcp:tcp_retransmit_skb printing what tcpretrans
#            prints (pid, comm, ports, state)
# Prints:
#   bench net.loopback_mb_per_s.{off,ktop,anchor}   the transfer's throughput
#   bench net.loopback_ratio.ktop                   ktop's over off's, by round
#   bench net.loopback_ratio.anchor                 the anchor's over off's, by round
#   bench net.load_cpu_s_per_gb.{off,ktop,anchor}   the load's CPU (user + system) per GB
#   bench net.ktop_events_per_s                     what ktop stored during the load
#   bench net.ktop_lost                             events it lost (kernel + its own)
# The ratios are the median of each round's (a round runs the three a few
# seconds apart; the shared machine's load drifts more between rounds).
# Environment: KTOP_BENCH_SECONDS (default 2), KTOP_BENCH_ROUNDS (5).
set -u
cd "$(dirname "$0")/../.." || exit 2
export LC_ALL=C

KTOP=${KTOP:-./ktop}
SECS=${KTOP_BENCH_SECONDS:-2}
ROUNDS=${KTOP_BENCH_ROUNDS:-5}
NL=$PWD/build/tools/netload
ns=ktop-bench-net-$$
tmp=$(mktemp -d /tmp/ktop-bench-net.XXXXXX)
bgs=""

cleanup() {
	for p in $bgs; do kill -INT "$p" 2>/dev/null; done
	sleep 0.3
	for p in $bgs; do kill -KILL "$p" 2>/dev/null; done
	ip netns del "$ns" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

for need in ip tcplife bpftrace python3; do
	command -v "$need" > /dev/null || { echo "bench net: $need missing (make deps)"; exit 1; }
done
[ -x "$KTOP" ] && [ -x "$NL" ] || { echo "bench net: build ktop and tools first"; exit 1; }
ip netns add "$ns" && ip -n "$ns" link set lo up || { echo "bench net: ip netns add"; exit 1; }

# load: "MB/s CPU-s/GB" of one transfer
load() {
	local out
	out=$( { TIMEFORMAT='%3U %3S'; time ip netns exec "$ns" "$NL" stream "$SECS"; } 2>&1 )
	echo "$out" | awk '/^stream/ { bytes = $2; mbs = $6 } /^[0-9.]+ [0-9.]+$/ { cpu = $1 + $2 }
		END { if (bytes) printf "%.1f %.3f\n", mbs, cpu / (bytes / 1e9) }'
}

# wait_file FILE PATTERN: until FILE holds PATTERN (10 s at most)
wait_file() {
	for _ in $(seq 100); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

stop_bg() {
	for p in $bgs; do kill -INT "$p" 2>/dev/null; done
	for p in $bgs; do wait "$p" 2>/dev/null; done
	bgs=""
}

one() {
	local r
	case $1 in
	off)
		load
		return ;;
	ktop)
		"$KTOP" --net --json -b 4096 --interval 1 > "$tmp/k.json" 2> "$tmp/k.err" &
		bgs=$!
		wait_file "$tmp/k.json" '"summary"' || { echo "  ktop did not start: $(head -c 200 "$tmp/k.err")" >&2; }
		r=$(load)
		stop_bg
		python3 - "$tmp/k.json" >> "$tmp/kstats" <<'PY'
import json, sys
o = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(max(x["events_per_s"] for x in o), o[-1]["lost_total"])
PY
		echo "$r"
		return ;;
	anchor)
		stdbuf -oL tcplife > "$tmp/tl.out" 2>&1 &
		bgs=$!
		bpftrace -e 'tracepoint:tcp:tcp_retransmit_skb { printf("%d %s %d -> %d state %d\n",
			pid, comm, args->sport, args->dport, args->state); }' > "$tmp/bt.out" 2>&1 &
		bgs="$bgs $!"
		wait_file "$tmp/tl.out" 'PID' && wait_file "$tmp/bt.out" 'Attaching' ||
			echo "  the anchor did not start: $(head -c 200 "$tmp/tl.out" "$tmp/bt.out")" >&2
		r=$(load)
		stop_bg
		echo "$r"
		return ;;
	esac
}

median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

for ((i = 0; i < ROUNDS; i++)); do
	for c in off ktop anchor; do
		one $c >> "$tmp/$c"
	done
done
for c in off ktop anchor; do
	echo "# $c: MB/s $(awk '{ printf "%s ", $1 }' "$tmp/$c")"
	eval "mb_$c=$(awk '{ print $1 }' "$tmp/$c" | median)"
	eval "cpu_$c=$(awk '{ print $2 }' "$tmp/$c" | median)"
done
echo "bench net.loopback_mb_per_s.off $mb_off MB/s (no tracing)"
echo "bench net.loopback_mb_per_s.ktop $mb_ktop MB/s (ktop --net --json)"
echo "bench net.loopback_mb_per_s.anchor $mb_anchor MB/s (libbpf-tools tcplife + bpftrace tcp_retransmit_skb)"
# the ratios of each round (its three runs are seconds apart), then their median:
# the machine is shared, and its load drifts more between rounds than within one
rk=$(paste "$tmp/off" "$tmp/ktop" | awk '{ printf "%.4f\n", $3 / $1 }')
ra=$(paste "$tmp/off" "$tmp/anchor" | awk '{ printf "%.4f\n", $3 / $1 }')
echo "# ratios by round: ktop $(echo $rk) anchor $(echo $ra)"
echo "bench net.loopback_ratio.ktop $(echo "$rk" | median) of no tracing (median of the rounds' ratios)"
echo "bench net.loopback_ratio.anchor $(echo "$ra" | median) of no tracing (tcplife + tcpretrans)"
echo "bench net.load_cpu_s_per_gb.off $cpu_off s/GB (the load's user + system CPU)"
echo "bench net.load_cpu_s_per_gb.ktop $cpu_ktop s/GB"
echo "bench net.load_cpu_s_per_gb.anchor $cpu_anchor s/GB"
echo "bench net.ktop_events_per_s $(awk '{ print $1 }' "$tmp/kstats" | median) events/s (max summary of each run, median)"
echo "bench net.ktop_lost $(awk '{ s += $2 } END { print s + 0 }' "$tmp/kstats") events (all runs)"
