#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Lost events are reported: with a tiny ring buffer (-b 4, KB per CPU) and a
# one-byte dd hammering raw_syscalls on CPU 1, the kernel overwrites events
# before ktop reads them, and ktop must say so (per CPU, and in total).
# As a control, a run without load and with a normal buffer loses none.

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

# control: no load, a normal buffer: nothing lost
"$KTOP" --json -b 4096 -e sched:sched_switch --duration 2 >"$tmp/c.out" 2>"$tmp/c.err"
rc=$?
ctl=$(python3 -c 'import json,sys; print([json.loads(l) for l in open(sys.argv[1])][-1]["lost_total"])' \
	"$tmp/c.out" 2>/dev/null)
check "control: exit 0 and nothing lost without load (rc $rc, lost_total ${ctl:-?})" \
	[ $rc -eq 0 -a "${ctl:-1}" = 0 ]
state_same "tracing state unchanged at the end" "$tmp/state"
finish
