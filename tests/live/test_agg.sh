#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# In-kernel aggregation (issue 26) on this host's kernel, which has no hist
# triggers: the BPF engine.
#
# One ktop run measures, with pingpong's two threads passing a byte N times
# (pinned to one CPU, so every round wakes each once):
#   --latency 'sched:sched_waking -> sched:sched_switch on pid = next_pid'
#   --latency 'syscalls:sys_enter_read -> syscalls:sys_exit_read'  (same task)
#   --hist 'sched:sched_switch key=prev_pid'
# while it streams the same four events into its store and writes them out
# (-o run.txt). From that text a reader pairs each START with the next END
# of its key as the engine does (an END consumes its START; a START replaces
# one still waiting) and counts, per pingpong tid, the pairs and switches:
# each must equal the engine's row for that tid exactly (the program and the
# event run in the same tracepoint call; no event may be lost: checked).
# Refusals: an unknown field, a match of two sizes, an unknown event, a
# where the BPF engine cannot evaluate, --sql without hist triggers: exit 2,
# the message names the mistake, and the tracing state is as before.
set -u
cd "$(dirname "$0")/../.." || exit 2
. tests/live/lib_ktop.sh

N=${KTOP_PINGPONG_N:-2000}
pids=()

cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

need pingpong tracestate
if [ "$(id -u)" != 0 ] || [ ! -d "$TRACEFS/instances" ]; then
	echo "FAIL setup: needs root and tracefs at $TRACEFS"
	exit 1
fi

WAKE='sched:sched_waking -> sched:sched_switch on pid = next_pid'
READ='syscalls:sys_enter_read -> syscalls:sys_exit_read'

# ---- the engine against the streamed events -----------------------------

measure() {
	local a b k last res
	rm -f "$tmp/go" "$tmp/pp.out" "$tmp/k.out"
	"$TOOLS/pingpong" -n "$N" -c 0 -w "$tmp/go" > "$tmp/pp.out" &
	pids+=($!)
	wait_for "$tmp/pp.out" '^tids' 5 || { fail "pingpong did not start"; return; }
	read -r _ a b < <(grep '^tids' "$tmp/pp.out")
	"$KTOP" --json --interval 0.5 -b 4096 \
		-e sched:sched_waking -e sched:sched_switch \
		-e syscalls:sys_enter_read -e syscalls:sys_exit_read \
		--latency "$WAKE" --latency "$READ" --hist 'sched:sched_switch key=prev_pid' \
		-o "$tmp/run.txt" > "$tmp/k.out" 2> "$tmp/k.err" &
	k=$!
	pids+=($k)
	if ! wait_for "$tmp/k.out" '^{' 20; then
		fail "ktop with --latency did not start: $(head -c 300 "$tmp/k.err")"
		return
	fi
	touch "$tmp/go"
	wait_for "$tmp/pp.out" '^done' 60 || { fail "pingpong did not finish"; return; }
	after_lines "$tmp/k.out" 2 10
	kill -INT "$k"
	wait "$k"
	last=$(tail -n 1 "$tmp/k.out")
	res=$(python3 - "$tmp/run.txt" "$a" "$b" "$last" <<'PY'
import json, re, sys
txt, a, b, last = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), json.loads(sys.argv[4])
tids = (a, b)
ev = re.compile(r'^\s*(.+)-(\d+)\s+\[\d+\]\s+\S+\s+(\d+\.\d+): (\w+): (.*)$')
wait_pend, read_pend = {}, {}
wake = {a: 0, b: 0}; rd = {a: 0, b: 0}; sw = {a: 0, b: 0}
for line in open(txt):
    m = ev.match(line)
    if not m:
        continue
    pid, name, args = int(m.group(2)), m.group(4), m.group(5)
    f = dict(kv.split('=', 1) for kv in re.findall(r'(\w+=\S+)', args))
    if name == 'sched_waking':
        wait_pend[int(f['pid'])] = 1
    elif name == 'sched_switch':
        n = int(f['next_pid'])
        if wait_pend.pop(n, None) and n in wake:
            wake[n] += 1
        if int(f['prev_pid']) in sw:
            sw[int(f['prev_pid'])] += 1
    elif name == 'sys_enter_read':
        read_pend[pid] = 1
    elif name == 'sys_exit_read':
        if read_pend.pop(pid, None) and pid in rd:
            rd[pid] += 1
def row(meas, key):
    for r in meas['rows']:
        if r['key'] == str(key):
            return r['count']
    return -1
lat, hist = last['latencies'], last['hists']
eng = [lat[0]['engine'], lat[1]['engine'], hist[0]['engine']]
print(last['lost_total'], ' '.join(eng),
      wake[a], row(lat[0], a), wake[b], row(lat[0], b),
      rd[a], row(lat[1], a), rd[b], row(lat[1], b),
      sw[a], row(hist[0], a), sw[b], row(hist[0], b),
      lat[0]['count'], lat[0]['p50_ns'], lat[0]['max_ns'], sum(x['count'] for x in lat[0]['buckets']))
PY
)
	if [ -z "$res" ]; then
		fail "the run's JSON or text did not read: $(tail -c 300 "$tmp/k.err")"
		return
	fi
	read -r lost e0 e1 e2 wa la wb lb ra lra rb lrb sa lsa sb lsb cnt p50 max nb <<< "$res"
	echo "# engines $e0 $e1 $e2; lost $lost; wakeup pairs $wa/$la $wb/$lb (stream/engine)," \
	     "read pairs $ra/$lra $rb/$lrb, switches $sa/$lsa $sb/$lsb; all wakeups $cnt," \
	     "p50 ${p50}ns max ${max}ns"
	check "three measures on the BPF engine" [ "$e0 $e1 $e2" = "bpf bpf bpf" ]
	check "nothing lost in the stream (lost_total $lost)" [ "$lost" = 0 ]
	check "wakeup pairs of each pingpong tid: engine = stream ($la, $lb)" \
		[ "$wa" = "$la" -a "$wb" = "$lb" -a "$wa" -gt $((N / 4)) ]
	check "read pairs (same task) of each tid: engine = stream ($lra, $lrb)" \
		[ "$ra" = "$lra" -a "$rb" = "$lrb" -a "$ra" -ge "$N" ]
	check "--hist switches by prev_pid: engine = stream ($lsa, $lsb)" \
		[ "$sa" = "$lsa" -a "$sb" = "$lsb" -a "$sa" -ge "$N" ]
	check "the histogram holds every pair ($nb of $cnt), p50 <= max" \
		[ "$nb" = "$cnt" -a "$p50" -le "$max" ]
	check "no ktop-agg instance left" [ -z "$(ls "$TRACEFS/instances" | grep "^ktop-agg-$k\$")" ]
}

# ---- refusals ------------------------------------------------------------

refuse() {
	local name=$1 want=$2 rc
	shift 2
	state_save "$tmp/before"
	"$KTOP" --batch --iterations 1 "$@" > /dev/null 2> "$tmp/r.err"
	rc=$?
	if [ "$rc" = 2 ] && grep -q -- "$want" "$tmp/r.err"; then
		ok "refused, exit 2: $name"
	else
		fail "$name: exit $rc, wanted 2 and '$want' in: $(head -c 400 "$tmp/r.err")"
	fi
	state_same "$name: tracing state unchanged" "$tmp/before"
}

measure
refuse "unknown field, with a caret" "sched:sched_switch has no field 'nxt_pid'" \
	--latency 'sched:sched_waking -> sched:sched_switch on pid = nxt_pid'
grep -q '^  *\^$' "$tmp/r.err" && ok "the caret line is there" || fail "no caret line"
refuse "fields of two sizes" "differ in size" \
	--latency 'raw_syscalls:sys_enter -> raw_syscalls:sys_exit on common_pid = id'
refuse "unknown event" "no event 'sched:sched_wakin'" \
	--latency 'sched:sched_wakin -> sched:sched_switch on pid = next_pid'
refuse "a where the BPF engine cannot evaluate" "FIELD OP VALUE" \
	--latency "$WAKE where prio < 100 || prio > 120"
refuse "--sql without hist triggers" "needs hist triggers" \
	--sql 'SELECT start.pid FROM sched_waking AS start JOIN sched_switch AS end ON start.pid = end.next_pid'
refuse "--agg-engine hist without hist triggers" "needs hist triggers" \
	--agg-engine hist --latency "$WAKE"
finish
