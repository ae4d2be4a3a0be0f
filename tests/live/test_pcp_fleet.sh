#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ktop --pcp and --pcp-archive headless (--batch, --json): two private pmcds
# with ktop --pmda as their agent stand for two hosts (one reached as
# localhost, one as 127.0.0.1; tests/live/lib_pcp.sh). Both rows are up with
# rates and per-CPU figures; stopping one pmcd turns its row down (with why)
# and keeps the other; pmlogger's archive of an agent replays as the same
# table, within PCP's time window options; bad input exits with status 2.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib_ktop.sh
. tests/live/lib_pcp.sh
need netload probe_target
pcp_need
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# json_check FILE PYTHON-EXPR: the expression over the last JSON line (j) holds
json_check() {
	python3 -c '
import json, sys
j = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
h = {x["host"]: x for x in j["hosts"]}
sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2" 2>"$tmp/py.err"
}

p1=$(pcp_port)
pcp_start a "$p1" || { fail "pmcd a with ktop --pmda"; finish; }
p2=$(pcp_port)
[ "$p2" = "$p1" ] && p2=$((p1 + 1))
pcp_start b "$p2" || { fail "pmcd b with ktop --pmda"; finish; }
A=localhost:$p1
B=127.0.0.1:$p2
ncpu=$(nproc)

# an archive of host a, while both run
cat > "$tmp/logger.conf" <<EOC
log mandatory on 500 msec { ktop }
EOC
pmlogger -h "$A" -c "$tmp/logger.conf" -s 9 -l "$tmp/logger.log" "$tmp/arch" 2>>"$tmp/logger.log" &
logger=$!
pids+=($logger)

"$KTOP" --pcp "$A,$B" --json --iterations 2 > "$tmp/two.json" 2>"$tmp/two.err"
check "--pcp --json exits 0 ($(head -c 200 "$tmp/two.err"))" [ $? -eq 0 ]
check "two summaries, one JSON line each" [ "$(wc -l < "$tmp/two.json")" -eq 2 ]
check "both hosts up with events/s, lost and a top event" json_check "$tmp/two.json" \
	"all(h[k]['up'] and h[k]['events_per_s'] > 0 and h[k]['lost'] >= 0 and h[k]['top_event'] for k in ('$A', '$B'))"
check "each host has its $ncpu CPUs, each with events/s and flag shares" json_check \
	"$tmp/two.json" "all(len(h[k]['cpus']) == $ncpu and all(c['events_per_s'] > 0 and 0 <= c['flags']['irqs_off'] <= 1 for c in h[k]['cpus']) for k in h)"
check "the BPF run-queue p99 is there, timerlat is not (this kernel has none)" json_check \
	"$tmp/two.json" "all(h[k]['runq_p99_ns'] > 0 and h[k]['timerlat_max_ns'] is None for k in h)"

"$KTOP" --pcp "$A,$B" --batch --iterations 1 > "$tmp/two.txt" 2>&1
check "--batch prints the table: a row per host, up" \
	[ "$(grep -cE "^($A|$B) +up +[0-9]+ " "$tmp/two.txt")" -eq 2 ]

wait "$logger"
pcp_stop b
"$KTOP" --pcp "$A,$B" --json --iterations 2 > "$tmp/down.json" 2>&1
check "--pcp exits 0 with a host down" [ $? -eq 0 ]
check "the stopped pmcd's host is down, with why" json_check "$tmp/down.json" \
	"not h['$B']['up'] and 'pmcd does not answer' in h['$B']['why']"
check "the other host stays up, with rates" json_check "$tmp/down.json" \
	"h['$A']['up'] and h['$A']['events_per_s'] > 0"

# the archive, replayed: the same table from pmlogger's history
"$KTOP" --pcp-archive "$tmp/arch" --batch > "$tmp/arch.txt" 2>&1
st=$?
n=$(grep -c '^ktop .* fleet of 1 hosts (archives)' "$tmp/arch.txt")
check "--pcp-archive --batch replays the archive to its end ($n summaries, status $st)" \
	[ "$st" -eq 0 -a "$n" -ge 3 ]
check "--pcp-archive rows are the recorded host's, with events/s" \
	grep -qE "^[^ ]+ +up +[1-9][0-9]* " "$tmp/arch.txt"
"$KTOP" --pcp-archive "$tmp/arch" --json --interval 0.5 > "$tmp/arch.json" 2>&1
check "--pcp-archive --json --interval 0.5: per-CPU rates from the archive" json_check \
	"$tmp/arch.json" "j['source'] == 'archives' and len(j['hosts'][0]['cpus']) == $ncpu"
"$KTOP" --pcp-archive "$tmp/arch" --batch --start +2 --finish +4 > "$tmp/win.txt" 2>&1
w=$(grep -c '^ktop .* fleet of 1 hosts' "$tmp/win.txt")
check "--start +2 --finish +4 narrows the replay ($w summaries of $n)" [ "$w" -ge 1 -a "$w" -lt "$n" ]

# bad input: status 2, a message, nothing started
"$KTOP" --pcp-archive "$tmp/nosuch" --batch > "$tmp/bad1" 2>&1
st=$?
check "a missing archive: status 2 naming it" [ $st -eq 2 ] && grep -q "nosuch" "$tmp/bad1"
"$KTOP" --pcp-archive "$tmp/arch" --batch --start @notatime > "$tmp/bad2" 2>&1
st=$?
check "a bad --start: status 2 ($(head -1 "$tmp/bad2" | cut -c1-100))" [ $st -eq 2 ]
"$KTOP" --pcp "$A" -e sched --batch > "$tmp/bad3" 2>&1
st=$?
check "--pcp with -e: status 2, what to trace is the agent's" [ $st -eq 2 ] && \
	grep -q "agent's business" "$tmp/bad3"
pcp_stop a

# the network model's figures (issue 25), when the agent traces network
# events, and a probe's hits
TARGET=$(readlink -f "$TOOLS/probe_target")
p3=$(pcp_port)
pcp_start c "$p3" -e sock -e tcp -e skb:kfree_skb --probe "$TARGET:ktop_probe_word" ||
	fail "pmcd c with a network and probe agent"
C=localhost:$p3
"$TOOLS/probe_target" 500 > /dev/null
for ((i = 0; i < 30; i++)); do
	hits=$(pminfo -h "$C" -f ktop.probe.hits 2>/dev/null | awk '/value/ { print $NF }')
	[ "${hits:-0}" -ge 500 ] && break
	sleep 0.1
done
check "ktop.probe.hits counts the 500 calls of the probed function (${hits:-none})" \
	[ "${hits:-0}" -eq 500 ]
check "the probe's instance label holds its definition" \
	grep -q '"definition":"p:ktop_[0-9]*/ktop_probe_word' <(pminfo -h "$C" -l ktop.probe.hits 2>&1)
"$TOOLS/netload" udp 9 2000 64 > "$tmp/udp1" 2>&1
for ((i = 0; i < 30; i++)); do
	d=$(pminfo -h "$C" -f ktop.net.drops 2>/dev/null | awk '/value/ { print $2 }')
	[ "${d:-0}" -ge 2000 ] && break
	sleep 0.1
done
check "ktop.net.drops counts netload's 2000 datagrams to a closed port (${d:-none})" \
	[ "${d:-0}" -ge 2000 ]
check "ktop.net.drop.count names the reason NO_SOCKET" \
	grep -q '"NO_SOCKET"' <(pminfo -h "$C" -f ktop.net.drop.count 2>&1)
(sleep 0.3; "$TOOLS/netload" udp 9 20000 64 >/dev/null 2>&1) &
pids+=($!)
"$TOOLS/probe_target" 3000 1 > /dev/null &
pids+=($!)
"$KTOP" --pcp "$C" --json --iterations 2 --interval 0.5 > "$tmp/net.json" 2>&1
check "the fleet's drops/s is the agent's ktop.net.drops rate" json_check "$tmp/net.json" \
	"h['$C']['drops_per_s'] is not None and h['$C']['drops_per_s'] > 0"
check "the fleet's probe hits/s is the rate of ktop.probe.hits" json_check "$tmp/net.json" \
	"h['$C']['probe_hits_per_s'] is not None and h['$C']['probe_hits_per_s'] > 0"
# SIGTERM, the agent's own exit path: pmcd's shutdown gives an agent about
# half a second before SIGKILL, and removing a probe after the instance can
# take longer on a loaded machine (the next ktop then reaps them)
agent=$(pcp_agent_pid c)
kill -TERM "$agent"
for ((i = 0; i < 100; i++)); do kill -0 "$agent" 2>/dev/null || break; sleep 0.1; done
pcp_stop c
no_probe() { ! grep -q "ktop_$agent/" /sys/kernel/tracing/dynamic_events; }
check "SIGTERM to the agent removes its probe (group ktop_$agent)" no_probe
no_instance "and its instance ktop-$agent" "$agent"
finish
