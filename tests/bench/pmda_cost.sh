#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ktop as PCP's agent (ktop --pmda), what it costs, on this machine's kernel,
# under a private pmcd (tests/live/lib_pcp.sh), on a steady load (a dd of
# 20,000 one-byte reads and writes every 50 ms; its event rate is printed):
#   pmda.cpu_pct           the agent's CPU (its threads' run time, from
#                          /proc/PID/task/*/schedstat) over 10 s, at its default sampling
#                          (updates each second) with pmlogger fetching the
#                          whole ktop tree every second
#   pmda.cpu_pct.anchor    ktop --batch --interval 1 (no PCP), the same events, the
#                          same 10 s, running beside it (each in its own instance)
#   pmda.pmcd_cpu_pct      pmcd itself meanwhile
#   pmda.fetch_ms.p50/.p99 one pmFetch of every ktop metric (all of them and their
#                          instances) through pmcd, 200 fetches 20 ms apart
#   pmda.fetch_ms.anchor   the same for pmcd's own metrics (a DSO in pmcd)
# Needs root and PCP (make deps; Debian's python3-pcp, through /usr/bin/python3).

set -u
cd "$(dirname "$0")/../.." || exit 2
export LC_ALL=C
KTOP=${KTOP:-./ktop}
KTOP_TOOLS=build/tools
secs=${KTOP_BENCH_PMDA_SECONDS:-10}
. tests/live/lib_ktop.sh
. tests/live/lib_pcp.sh
pids=()
trap 'for p in "${pids[@]}"; do kill -TERM $p 2>/dev/null; done; wait; rm -rf "$tmp"' EXIT

if [ "$(id -u)" -ne 0 ]; then
	echo "pmda_cost: needs root" >&2
	exit 1
fi
pcp_need >&2

ticks() {	# CPU time of PID's threads, ns (schedstat: finer than stat's clock ticks)
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'
}

(while :; do dd if=/dev/zero of=/dev/null bs=1 count=20000 2>/dev/null; sleep 0.05; done) &
pids+=($!)
port=$(pcp_port)
pcp_start a "$port" >&2 || { echo "pmda_cost: pmcd with ktop --pmda did not start" >&2; exit 1; }
agent=$(pcp_agent_pid a)
pmcd=${pcp_pid[a]}
printf 'log mandatory on 1 sec { ktop }\n' > "$tmp/logger.conf"
pmlogger -h "localhost:$port" -c "$tmp/logger.conf" -l "$tmp/logger.log" "$tmp/arch" &
pids+=($!)
"$KTOP" --batch --interval 1 > /dev/null 2>"$tmp/batch.err" &
batch=$!
pids+=($batch)
sleep 3		# start-up (formats, BPF load) is not the steady cost
evs() { pminfo -h "localhost:$port" -f ktop.events.total | awk '/value/ { print $2 }'; }
e0=$(evs)
a0=$(ticks "$agent") b0=$(ticks "$batch") p0=$(ticks "$pmcd")
w0=$(date +%s.%N)
sleep "$secs"
a1=$(ticks "$agent") b1=$(ticks "$batch") p1=$(ticks "$pmcd")
w1=$(date +%s.%N)
e1=$(evs)
pct() { awk "BEGIN { printf \"%.2f\", 100 * ($2 - $1) / 1e9 / ($w1 - $w0) }"; }
rate=$(awk "BEGIN { printf \"%.0f\", ($e1 - $e0) / ($w1 - $w0) }")
echo "bench pmda.cpu_pct $(pct "$a0" "$a1") % (ktop --pmda, updates each second, pmlogger fetching all ktop metrics each second; $rate events/s)"
echo "bench pmda.cpu_pct.anchor $(pct "$b0" "$b1") % (ktop --batch --interval 1, no PCP, beside it on the same events, same seconds)"
echo "bench pmda.pmcd_cpu_pct $(pct "$p0" "$p1") % (pmcd itself meanwhile)"

/usr/bin/python3 - "localhost:$port" <<'PY'
import statistics, sys, time
from pcp import pmapi
import cpmapi as c_api

ctx = pmapi.pmContext(c_api.PM_CONTEXT_HOST, sys.argv[1])

def lat(tree):
    names = []
    ctx.pmTraversePMNS(tree, lambda n: names.append(n))
    ids = ctx.pmLookupName(names)
    t = []
    for _ in range(200):
        t0 = time.perf_counter()
        r = ctx.pmFetch(ids)
        t.append((time.perf_counter() - t0) * 1e3)
        ctx.pmFreeResult(r)
        time.sleep(0.02)
    t.sort()
    return len(names), statistics.median(t), t[int(len(t) * 0.99) - 1]

n, p50, p99 = lat("ktop")
print("bench pmda.fetch_ms.p50 %.3f ms (one pmFetch of all %d ktop metrics through pmcd)" % (p50, n))
print("bench pmda.fetch_ms.p99 %.3f ms" % p99)
n, p50, p99 = lat("pmcd")
print("bench pmda.fetch_ms.anchor %.3f ms (p50 of all %d of pmcd's own metrics, a DSO in pmcd; p99 %.3f)" % (p50, n, p99))
PY
pcp_stop a >&2
