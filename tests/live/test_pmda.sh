#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ktop --pmda, PCP's agent, under a private pmcd (tests/live/lib_pcp.sh) and
# under dbpmda: every metric listed with its help text; per-CPU counters
# that rise between two fetches a second apart while each CPU runs a
# workload; pmlogger records an archive that pmdumplog and pmrep read back;
# instances keep their numbers across a restart; a recording's timerlat
# figures (a .ktop of the rt guest's fixture) through dbpmda, without pmcd;
# stopping pmcd leaves no ktop instance, probe or BPF program behind, and
# the tracing state as it was.
cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib_ktop.sh
. tests/live/lib_pcp.sh
need tracestate snapshot_tool
pcp_need
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "${KEEP:-}" ] && cp -r "$tmp" /tmp/keep-pmda; rm -rf "$tmp"
}
trap cleanup EXIT

nmetrics=$("$KTOP" --pmda-files "$tmp" && grep -c "KTOP:" "$tmp/pmns")
state_save "$tmp/before"
low=$(bpftool prog show -j 2>/dev/null | python3 -c '
import json, sys
print(max([p["id"] for p in json.load(sys.stdin)] + [0]))')

port=$(pcp_port)
H=localhost:$port
if ! pcp_start a "$port"; then
	fail "pmcd with ktop --pmda as its agent did not start tracing"
	finish
fi
ok "pmcd on port $port runs ktop --pmda; ktop.agent.status says tracing"
agent=$(pcp_agent_pid a)

# every metric, with its help text
listed=$(pminfo -h "$H" ktop | wc -l)
check "pminfo lists all $nmetrics metrics (saw $listed)" [ "$listed" -eq "$nmetrics" ]
pminfo -h "$H" -tT ktop > "$tmp/help" 2>&1
nohelp=$(grep -c -i 'no.*help\|Error' "$tmp/help")
nhelp=$(grep -c '^Help:' "$tmp/help")
check "every metric has one-line and long help ($nhelp of $nmetrics, $nohelp missing)" \
	[ "$nhelp" -eq "$nmetrics" -a "$nohelp" -eq 0 ]
pminfo -h "$H" -f ktop > "$tmp/all" 2>&1
check "pminfo -f ktop answers every metric without an error" \
	[ "$(grep -c 'Error\|Unknown' "$tmp/all")" -eq 0 ]
# wait_switch: until ktop.event.count has sched:sched_switch (the first
# events reach the store within a reader's poll, 100 ms)
wait_switch() {
	for ((i = 0; i < 50; i++)); do
		pminfo -h "$H" -f ktop.event.count 2>&1 | grep -q '"sched:sched_switch"' && return
		sleep 0.1
	done
}
wait_switch
check "the event instances are named system:name" \
	grep -q '"sched:sched_switch"' <(pminfo -h "$H" -f ktop.event.count 2>&1)
check "histogram buckets are pmdabpf's lo-hi instances" grep -q '"1024-2047"' "$tmp/all"
pminfo -h "$H" -l ktop.cpu.events > "$tmp/labels" 2>&1
check "labels: agent, tracer and kernel on the domain, cpu on instances" \
	grep -q "\"agent\":\"ktop\".*\"kernel\":\"$(uname -r)\".*\"tracer\":\"nop\"" "$tmp/labels"
check "labels: each CPU instance has its number" grep -q '"cpu":1' "$tmp/labels"

# two fetches a second apart while each CPU runs a syscall loop
for c in $(seq 0 $(($(nproc) - 1))); do
	taskset -c "$c" dd if=/dev/zero of=/dev/null bs=1 count=3000000 2>/dev/null &
	pids+=($!)
done
sleep 0.3
pminfo -h "$H" -f ktop.cpu.events > "$tmp/f1"
sleep 1
pminfo -h "$H" -f ktop.cpu.events > "$tmp/f2"
rising=$(paste <(grep -o 'value [0-9]*' "$tmp/f1") <(grep -o 'value [0-9]*' "$tmp/f2") |
	awk '$4 > $2 { n++ } END { print n + 0 }')
check "ktop.cpu.events rises on every CPU ($rising of $(nproc)) between fetches a second apart" \
	[ "$rising" -eq "$(nproc)" ]

# pmlogger records an archive that pmdumplog and pmrep read
cat > "$tmp/logger.conf" <<EOC
log mandatory on 500 msec {
	ktop.events.total
	ktop.cpu.events
	ktop.event.count
	ktop.agent.status
}
EOC
pmlogger -h "$H" -c "$tmp/logger.conf" -s 4 -l "$tmp/logger.log" "$tmp/arch" 2>>"$tmp/logger.log"
pmdumplog -a "$tmp/arch" > "$tmp/dump" 2>&1
check "pmlogger's archive holds the per-CPU counters (pmdumplog)" \
	grep -q 'ktop.cpu.events.*numval: 2\|(ktop.cpu.events)' "$tmp/dump"
pmrep -a "$tmp/arch" -t 1 -p -H ktop.events.total > "$tmp/rep" 2>&1
reps=$(grep -c '[0-9]' "$tmp/rep")
check "pmrep -a reads ktop.events.total as a rate ($reps lines)" [ "$reps" -ge 1 ]
cp "$tmp/arch".* "$tmp/" 2>/dev/null

# the README's pmie rule parses against the agent's metrics
printf 'some_inst ( ktop.timerlat.thread.interval_max > 100000 )\n  -> syslog "timerlat over 100us on %%i of %%h";\n' > "$tmp/rule"
pmie -h "$H" -C "$tmp/rule" > "$tmp/pmie" 2>&1
check "the README's pmie rule on ktop.timerlat.thread.interval_max parses (pmie -C: $(head -c 80 \
	"$tmp/pmie"))" [ ! -s "$tmp/pmie" ]

# instance numbers survive a restart (pmdaCache under the test's PCP_VAR_DIR)
pminfo -h "$H" -f ktop.event.count | grep -o 'inst \[[0-9]* or "sched:sched_switch"\]' \
	> "$tmp/inst1"
pcp_stop a
if [ -n "$agent" ] && kill -0 "$agent" 2>/dev/null; then
	fail "stopping pmcd stopped its agent (pid $agent still runs)"
else
	ok "stopping pmcd stopped its agent"
fi
no_instance "stopping pmcd leaves no instance ktop-$agent" "$agent"
pcp_start a "$port" || fail "pmcd restarts"
wait_switch
pminfo -h "$H" -f ktop.event.count | grep -o 'inst \[[0-9]* or "sched:sched_switch"\]' \
	> "$tmp/inst2"
check "sched:sched_switch keeps its instance number across a restart ($(cat "$tmp/inst1"))" \
	cmp -s "$tmp/inst1" "$tmp/inst2"
agent=$(pcp_agent_pid a)
pcp_stop a
no_instance "a second stop leaves no instance ktop-$agent" "$agent"

# SIGTERM to the agent itself (pmcd alive): it stops and puts the state back
pcp_start a "$port" || fail "pmcd starts a third time"
agent=$(pcp_agent_pid a)
kill -TERM "$agent"
for ((i = 0; i < 100; i++)); do kill -0 "$agent" 2>/dev/null || break; sleep 0.1; done
check "SIGTERM stops the agent, its log says so" grep -q 'stopping (Terminated)' \
	"$tmp/pcp-a/ktop.log"
no_instance "SIGTERM leaves no instance ktop-$agent" "$agent"
pcp_stop a
# an agent that stopped properly: its reaper went without a word
check "a clean stop leaves no reaper's message" [ "$(grep -c 'reaper:' "$tmp/pcp-a/ktop.log")" -eq 0 ]

# SIGKILL to the agent while it traces (pmcd's own last resort): its reaper
# removes the instance at once, with no other ktop started to reap it
pcp_start a "$port" || fail "pmcd starts a fourth time"
agent=$(pcp_agent_pid a)
if [ -n "$agent" ] && [ -e "$TRACEFS/instances/ktop-$agent" ]; then
	kill -KILL "$agent"
	for ((i = 0; i < 100; i++)); do
		[ -e "$TRACEFS/instances/ktop-$agent" ] || break
		sleep 0.1
	done
	no_instance "SIGKILL: the agent's reaper removed instance ktop-$agent within $((i / 10)).$((i % 10)) s" "$agent"
	check "the reaper says what it removed in the agent's log" wait_for "$tmp/pcp-a/ktop.log" \
		"reaper: ktop $agent ended without putting the kernel back; removed [1-9]" 5
else
	fail "the agent ($agent) traces in its instance before SIGKILL"
fi
pcp_stop a

# an in-kernel latency (--latency, the BPF engine here) through dbpmda: its
# pairs, sum, maximum and log2 histogram agree with one another, and rise
# while a syscall loop runs; started through pmdaktop's quoting of
# ktop.options, as make install-pmda's agent is
d=$tmp/lat
pcp_files "$d"
mkdir -p "$d/bin"
ln -s "$KTOP_ABS" "$d/bin/ktop"
sed "s|@BINDIR@|$d/bin|" src/pcp/pmda/pmdaktop.in > "$d/pmdaktop"
printf '# the test'"'"'s\n-e sched --latency '"'"'raw_syscalls:sys_enter -> raw_syscalls:sys_exit on common_pid = common_pid'"'"'\n' \
	> "$d/ktop.options"
taskset -c 0 dd if=/dev/zero of=/dev/null bs=1 count=100000000 2>/dev/null &
pids+=($!)
cat > "$d/in" <<EOD
open pipe /bin/sh $d/pmdaktop
wait 2
fetch ktop.latency.measure
fetch ktop.latency.count ktop.latency.max ktop.latency.total ktop.latency.hist
wait 1
fetch ktop.latency.count
instance $PMDA_DOMAIN.9
EOD
(cd "$d" && PCP_VAR_DIR="$d/var" timeout 60 dbpmda -n "$d/root" -e < "$d/in" > "$d/out" 2>&1)
kill -TERM "${pids[-1]}" 2>/dev/null
check "dbpmda: the measure as ktop.options gave it, quoted" grep -q \
	'value "raw_syscalls:sys_enter -> raw_syscalls:sys_exit on common_pid = common_pid"' \
	"$d/out"
read -r n1 mx tot hsum hlo n2 <<<"$(awk '
	/\(ktop.latency.count\)/ { c++; sec = "count"; next }
	/\(ktop.latency.max\)/ { sec = "max"; next }
	/\(ktop.latency.total\)/ { sec = "total"; next }
	/\(ktop.latency.hist\)/ { sec = "hist"; i = 0; next }
	/^[^ ]/ || /PMID/ { sec = "" }
	/inst \[/ && sec != "" { v = $NF
		if (sec == "count") cnt[c] = v; else if (sec == "max") mx = v
		else if (sec == "total") tot = v
		else { hs += v; if (v > 0) top = i; i++ } }
	END { print cnt[1] + 0, mx + 0, tot + 0, hs + 0, top + 0, cnt[2] + 0 }' "$d/out")"
check "dbpmda: the latency counts pairs ($n1), rising a second later ($n2)" \
	[ "$n1" -gt 0 -a "$n2" -gt "$n1" ]
check "dbpmda: its histogram holds every pair of the same fetch ($hsum of $n1)" \
	[ "$hsum" -eq "$n1" ]
# the highest non-empty bucket's bounds hold the maximum
lo=$(grep -o "name: \"[^\"]*/[0-9]*-[0-9]*\"" "$d/out" | sed -n "$((hlo + 1))p" |
	sed 's/.*\/\([0-9]*\)-\([0-9]*\)"/\1 \2/')
read -r blo bhi <<<"$lo"
check "dbpmda: the largest latency ($mx ns) lies in the highest non-empty bucket ($blo-$bhi)" \
	[ -n "$blo" ] && [ "$mx" -ge "$blo" -a \( "$hlo" -eq 39 -o "$mx" -le "$bhi" \) ]
check "dbpmda: the sum of the latencies ($tot ns) lies between count x 0 and count x max" \
	[ "$tot" -gt 0 ] && awk -v t="$tot" -v n="$n1" -v m="$mx" 'BEGIN { exit !(t <= n * m) }'

# nothing of the agent's is left: programs, probes, the tracing state
left=$(bpftool prog show -j 2>/dev/null | python3 -c '
import json, sys
low = int(sys.argv[1])
print(" ".join(str(p["id"]) for p in json.load(sys.stdin)
               if p["id"] > low and p.get("name", "").startswith("ktop_")))' "$low")
for ((i = 0; i < 50 && ${#left} > 0; i++)); do
	sleep 0.1
	left=$(for id in $left; do bpftool prog show id "$id" >/dev/null 2>&1 && echo "$id"; done)
done
check "no ktop BPF program is left after pmcd stopped (${left:-none})" [ -z "$left" ]
check "no ktop probe event is left" \
	[ "$(grep -c "ktop_$agent" /sys/kernel/tracing/dynamic_events 2>/dev/null)" -eq 0 ]
state_same "the tracing state is as before the agents ran" "$tmp/before"

# dbpmda, no pmcd: the timerlat figures of a recording (the rt guest's fixture)
"$TOOLS/snapshot_tool" export tests/fixtures/rt-timerlat "$tmp/tl.ktop" >/dev/null
d=$tmp/db
pcp_files "$d"
cat > "$d/in" <<EOD
open pipe $KTOP_ABS --pmda -i $tmp/tl.ktop
fetch ktop.agent.tracer
instance $PMDA_DOMAIN.0
fetch ktop.timerlat.irq.samples ktop.timerlat.thread.max
fetch ktop.timerlat.thread.hist
text ktop.timerlat.thread.hist
EOD
(cd "$d" && PCP_VAR_DIR="$d/var" timeout 30 dbpmda -n "$d/root" -e < "$d/in" > "$d/out" 2>&1)
check "dbpmda: the agent serves the recording's tracer" grep -q 'value "timerlat"' "$d/out"
check "dbpmda: instances cpu0 and cpu1" grep -q 'name: "cpu1"' "$d/out"
samples=$("$TOOLS/snapshot_tool" dump "$tmp/tl.ktop" | grep -c 'timerlat')
got=$(awk '/timerlat.irq.samples/ { on = 1; next } on && /value/ { s += $NF } /363.5.12/ { on = 0 }
	END { print s + 0 }' "$d/out")
# every timerlat record is one sample, in IRQ or thread context: irq <= all
check "dbpmda: IRQ samples ($got) within the recording's timerlat records ($samples)" \
	[ "$got" -gt 0 -a "$got" -le "$samples" ]
check "dbpmda: a thread-latency histogram with counts" grep -q 'value [1-9]' <(sed -n \
	'/363.7.1 (ktop.timerlat.thread.hist)/,$p' "$d/out")
check "dbpmda: help text" grep -q 'heat map' "$d/out"
# an agent that cannot start tracing stays connected and says why
cat > "$d/in2" <<EOD
open pipe $KTOP_ABS --pmda -i $tmp/nosuch.ktop
fetch ktop.agent.status ktop.cpu.events
EOD
(cd "$d" && PCP_VAR_DIR="$d/var" timeout 30 dbpmda -n "$d/root" -e < "$d/in2" > "$d/out2" 2>&1)
check "dbpmda: an agent that cannot trace says why in ktop.agent.status, and no events" \
	grep -q 'value ".*nosuch.ktop.*No such file' "$d/out2"
finish
