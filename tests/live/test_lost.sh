#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Lost events are reported: with a tiny ring buffer (-b 4, KB per CPU) and a
# one-byte dd hammering raw_syscalls on CPU 1, the kernel overwrites events
# before ktop reads them, and ktop must say so (per CPU, and in total).
# A stream under a tiny --stream-rate: the receiver attributes the sender's drops
# to the stream bound. As a control, a run without load and with a normal buffer
# loses none.

cd "$(dirname "$0")/../.." || exit 2
. tests/live/lib_ktop.sh
need tracestate

ncpu=$(nproc)
cpu=$((ncpu > 1 ? 1 : 0))
state_save "$tmp/state"

"$KTOP" --json -b 4 -e raw_syscalls --duration 4 >"$tmp/l.out" 2>"$tmp/l.err" &
kpid=$!
wait_for "$tmp/l.out" '"summary"' 8
timeout 2 taskset -c $cpu dd if=/dev/zero of=/dev/null bs=1 count=100000000 2>/dev/null
wait $kpid
rc=$?
check "tiny buffer: exit status 0 (got $rc; $(head -c 300 "$tmp/l.err"))" [ $rc -eq 0 ]
res=$(python3 - "$tmp/l.out" "$cpu" <<'PY' 2>&1
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
cpu = int(sys.argv[2])
last = objs[-1]
iv = sum(o["lost"] for o in objs)
c = [x for x in last["cpus"] if x["cpu"] == cpu][0]
print(last["lost_total"], iv, c["lost_total"], last["events_total"])
PY
)
read -r total ivsum cpulost seen <<<"$res"
echo "  (lost_total ${total:-?}, on CPU $cpu ${cpulost:-?}, seen ${seen:-?})"
check "tiny buffer: lost events reported (lost_total ${total:-?} > 0)" [ "${total:-0}" -gt 0 ]
check "tiny buffer: on the loaded CPU $cpu (${cpulost:-?} > 0)" [ "${cpulost:-0}" -gt 0 ]
check "tiny buffer: per-interval losses add up to the total (${ivsum:-?} = ${total:-?})" \
	[ "${ivsum:-x}" = "${total:-y}" ]
check "tiny buffer: events were still seen (${seen:-?} > 0)" [ "${seen:-0}" -gt 0 ]
state_same "tiny buffer: tracing state unchanged" "$tmp/state"
no_instance "tiny buffer: instance removed" $kpid

# text mode shows it too
"$KTOP" --batch -b 4 -e raw_syscalls --duration 2 >"$tmp/t.out" 2>&1 &
kpid=$!
wait_for "$tmp/t.out" '^ktop ' 8
timeout 1 taskset -c $cpu dd if=/dev/zero of=/dev/null bs=1 count=100000000 2>/dev/null
wait $kpid
check "text: 'Lost: N ... since start' with N > 0" \
	grep -qE '^Lost: [0-9]+ this interval, [1-9][0-9]* since start' "$tmp/t.out"

# --stream-rate: what the sender leaves out for its bandwidth bound reaches the
# receiver as lost, reason "stream bound", per CPU; each CPU's reasons add up to
# its total, the CPUs' to the summary's, and the sender's own count agrees.
timeout 6 taskset -c $cpu dd if=/dev/zero of=/dev/null bs=1 count=2000000000 2>/dev/null &
dpid=$!
timeout 30 "$KTOP" --stream --stream-rate 2K --no-bpf -b 4096 -e raw_syscalls --duration 3 \
	2>"$tmp/s.err" | tee "$tmp/s.ktop" |
	timeout 30 "$KTOP" -i - --json --interval 0.5 >"$tmp/s.json" 2>"$tmp/s.rerr"
rcs="${PIPESTATUS[*]}"
kill $dpid 2>/dev/null
wait $dpid 2>/dev/null
check "stream bound: sender and receiver exit 0 ($rcs; $(head -c 200 "$tmp/s.rerr"))" \
	[ "$rcs" = "0 0 0" ]
sent=$(sed -n 's/.*events sent, \([0-9]*\) left out for the bandwidth bound, \([0-9]*\) evicted.*/\1 \2/p' \
	"$tmp/s.err")
read -r bound unsent <<<"$sent"
res=$(python3 - "$tmp/s.json" <<'PY' 2>&1
import json, sys
last = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
parts = ("kernel_total", "dropped_total", "ktop_dropped_total", "stream_total",
         "unsent_total", "unknown_total")
bad = [c["cpu"] for c in last["cpus"] if sum(c[k] for k in parts) != c["lost_total"]]
cpus = sum(c["lost_total"] for c in last["cpus"])
print(last["lost_total"], cpus, sum(c["stream_total"] for c in last["cpus"]),
      sum(c["unsent_total"] for c in last["cpus"]), sum(c["unknown_total"] for c in last["cpus"]),
      max(c["stream_total"] for c in last["cpus"]), len(bad))
PY
)
read -r total cpus stream runsent unknown smax nbad <<<"$res"
echo "  (sender: ${bound:-?} left out, ${unsent:-?} evicted; receiver: lost ${total:-?}," \
	"stream bound ${stream:-?}, unsent ${runsent:-?})"
check "stream bound: the receiver counts the sender's drops as lost (${total:-?} > 0)" \
	[ "${total:-0}" -gt 0 ]
check "stream bound: attributed to the stream bound, as many as the sender left out\
 (${stream:-?} = ${bound:-?} > 0)" [ "${stream:-x}" = "${bound:-y}" -a "${bound:-0}" -gt 0 ]
check "stream bound: the sender's evictions as unsent (${runsent:-?} = ${unsent:-?}), none unknown\
 (${unknown:-?})" [ "${runsent:-x}" = "${unsent:-y}" -a "${unknown:-x}" = 0 ]
check "stream bound: each CPU's reasons add up to its lost (${nbad:-?} CPUs do not),\
 the CPUs' to the total (${cpus:-?} = ${total:-?})" [ "${nbad:-x}" = 0 -a "${cpus:-x}" = "${total:-y}" ]
# the text summary of the same stream: a "stream bound" term on every CPU row, adding up
"$KTOP" -i "$tmp/s.ktop" --batch >"$tmp/s.txt" 2>&1
rows=$(awk '/^Lost per CPU/ { on = 1; next } on && /^$/ { on = 0 }
	on && / = kernel / { n++; s = 0; for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/ && \
		($(i - 1) == "kernel" || $(i - 1) == "dropped" || $(i - 1) == "ktop" || \
		 $(i - 1) == "bound" || $(i - 1) == "unsent" || $(i - 1) == "unknown")) s += $i
		if (s == $2 && / \+ stream bound [0-9]/) good++ }
	END { print n + 0, good + 0 }' "$tmp/s.txt")
read -r nrows ngood <<<"$rows"
check "stream bound: --batch's Lost per CPU rows name the stream bound and add up\
 ($ngood of $nrows rows)" [ "${nrows:-0}" -gt 0 -a "${ngood:-x}" = "${nrows:-y}" ]
state_same "stream bound: tracing state unchanged" "$tmp/state"

# control: no load, a normal buffer: nothing lost
"$KTOP" --json -b 4096 -e sched:sched_switch --duration 2 >"$tmp/c.out" 2>"$tmp/c.err"
rc=$?
ctl=$(python3 -c 'import json,sys; print([json.loads(l) for l in open(sys.argv[1])][-1]["lost_total"])' \
	"$tmp/c.out" 2>/dev/null)
check "control: exit 0 and nothing lost without load (rc $rc, lost_total ${ctl:-?})" \
	[ $rc -eq 0 -a "${ctl:-1}" = 0 ]
state_same "tracing state unchanged at the end" "$tmp/state"
finish
