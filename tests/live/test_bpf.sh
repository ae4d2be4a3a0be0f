#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ktop's BPF statistics against a known pattern, and cleanup on every exit path.
#
# pingpong (tests/tools/pingpong.c) makes two threads, pinned to one CPU, pass
# a byte through pipes N times. While bpf_drive (tests/tools/bpf_drive.c, which
# runs src/bpfstats/bpfstats.c) counts, a tracefs instance records sched_wakeup for
# exactly those two tids. Then:
#   - context switches (all CPUs) >= 2N, and the two tasks went off CPU >= 2N times;
#   - the run-queue latency samples of the two tids equal the wakeups tracefs saw
#     (tolerance: max(2, 0.5%)), and the histogram holds at least that many;
# for the tp_btf programs and the raw_tp fallback. Unpinned, a wakeup of a task
# still on its CPU is no run-queue wait: samples <= wakeups, loosely.
# Cleanup: the program ids bpf_drive had loaded are gone after a normal exit,
# SIGINT, SIGHUP, SIGTERM and SIGKILL.
set -u
cd "$(dirname "$0")/../.." || exit 2
. tests/live/lib_ktop.sh

N=${KTOP_PINGPONG_N:-20000}
inst=$TRACEFS/instances/ktop-test-bpf-$$
pids=()

cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	if [ -d "$inst" ]; then
		echo 0 > "$inst/events/enable" 2>/dev/null
		rmdir "$inst" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

for t in bpf_drive pingpong; do
	if [ ! -x "$TOOLS/$t" ]; then
		echo "FAIL setup: $TOOLS/$t is not built (make tools)"
		exit 1
	fi
done
if [ "$(id -u)" != 0 ] || [ ! -d "$TRACEFS/instances" ]; then
	echo "FAIL setup: needs root and tracefs at $TRACEFS"
	exit 1
fi

# field VALUE-AFTER KEY FILE-LINE: the word after KEY in a line
field() {
	echo "$2" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'
}

# pattern NAME CPU DRIVE-FLAGS: one ping-pong run; sets globals for the checks
pattern() {
	local name=$1 cpu=$2 flags=$3 tids a b wake over d c line la lb
	# a background job truncates its output file only once it runs: remove
	# the last run's files first, or wait_for could read them
	rm -f "$tmp/go" "$tmp/pp.out" "$tmp/drv.out"
	"$TOOLS/pingpong" -n "$N" ${cpu:+-c "$cpu"} -w "$tmp/go" > "$tmp/pp.out" &
	pids+=($!)
	local pp=$!
	if ! wait_for "$tmp/pp.out" '^tids' 5; then
		fail "$name: pingpong did not start"
		return 1
	fi
	read -r _ a b < <(grep '^tids' "$tmp/pp.out")

	mkdir "$inst" || { fail "$name: cannot create $inst"; return 1; }
	echo 8192 > "$inst/buffer_size_kb"
	echo "pid == $a || pid == $b" > "$inst/events/sched/sched_wakeup/filter"
	echo 1 > "$inst/events/sched/sched_wakeup/enable"

	"$TOOLS/bpf_drive" -q -i 0.25 -T "$a,$b" $flags > "$tmp/drv.out" 2>&1 &
	pids+=($!)
	d=$!
	if ! wait_for "$tmp/drv.out" '^ready' 10; then
		fail "$name: bpf_drive did not attach: $(head -c 300 "$tmp/drv.out")"
		kill -KILL "$pp" "$d" 2>/dev/null
		echo 0 > "$inst/events/enable"; rmdir "$inst"
		return 1
	fi
	touch "$tmp/go"
	wait "$pp"
	sleep 0.3
	kill -INT "$d"
	wait "$d"
	echo 0 > "$inst/events/sched/sched_wakeup/enable"
	wake=0
	over=0
	for c in "$inst"/per_cpu/cpu*/stats; do
		wake=$((wake + $(awk '/^entries:/ { print $2 }' "$c")))
		over=$((over + $(awk '/^overrun:/ { print $2 }' "$c")))
	done
	rmdir "$inst"

	line=$(grep "^task $a " "$tmp/drv.out")
	la=$(field runq_n "$line"); oa=$(field offcpu_n "$line")
	line=$(grep "^task $b " "$tmp/drv.out")
	lb=$(field runq_n "$line"); ob=$(field offcpu_n "$line")
	ctxsw=$(field ctxsw "$(grep '^cpu -1 ' "$tmp/drv.out")")
	hist=$(field count "$(grep '^hist runq ' "$tmp/drv.out")")
	P_MODE=$(field ready "$(grep '^ready' "$tmp/drv.out")")
	P_WAKE=$wake P_OVER=$over P_RUNQ=$(( ${la:-0} + ${lb:-0} )) P_OFF=$(( ${oa:-0} + ${ob:-0} ))
	P_CTXSW=${ctxsw:-0} P_HIST=${hist:-0}
	echo "# $name: tids $a $b mode $P_MODE rounds $N $(grep '^done' "$tmp/pp.out") tracefs_wakeups $P_WAKE" \
	     "(overrun $P_OVER) bpf_runq_n $P_RUNQ bpf_offcpu_n $P_OFF ctxsw_all $P_CTXSW hist_count $P_HIST"
	return 0
}

# check_pattern NAME: the checks on the globals pattern() set
check_pattern() {
	local tol diff
	if [ "$P_CTXSW" -ge $((2 * N)) ]; then ok "$1 ctxsw >= 2N ($P_CTXSW)";
	else fail "$1 ctxsw >= 2N: $P_CTXSW < $((2 * N))"; fi
	# each round puts each thread off CPU once; the first switch-out may
	# precede the attach and the last one (exit) has no switch-in: 2N - 2
	if [ "$P_OFF" -ge $((2 * N - 2)) ]; then ok "$1 pingpong off-CPU >= 2N-2 ($P_OFF)";
	else fail "$1 pingpong off-CPU >= 2N-2: $P_OFF < $((2 * N - 2))"; fi
	# a round wakes one or both threads (a thread preempted right after its
	# write is still runnable when the answer comes: no wakeup needed)
	if [ "$P_OVER" -ne 0 ] || [ "$P_WAKE" -lt "$N" ]; then
		fail "$1 tracefs reference: $P_WAKE wakeups, $P_OVER overrun (expected >= $N, 0)"
		return
	fi
	tol=$((P_WAKE / 200)); [ "$tol" -lt 2 ] && tol=2
	diff=$((P_RUNQ - P_WAKE)); diff=${diff#-}
	if [ "$diff" -le "$tol" ]; then ok "$1 runq samples = tracefs wakeups ($P_RUNQ vs $P_WAKE)";
	else fail "$1 runq samples = tracefs wakeups: $P_RUNQ vs $P_WAKE (tolerance $tol)"; fi
	if [ "$P_HIST" -ge "$P_RUNQ" ]; then ok "$1 histogram holds them ($P_HIST >= $P_RUNQ)";
	else fail "$1 histogram holds them: $P_HIST < $P_RUNQ"; fi
}

have_state=""
if [ -x "$TOOLS/tracestate" ]; then
	state_save "$tmp/state.before" && have_state=1
fi

pattern "pinned tp_btf" 0 "" && check_pattern "pinned tp_btf"
if [ "${P_MODE:-}" != tp_btf ]; then
	fail "pinned tp_btf: programs loaded as '${P_MODE:-none}'"
fi
N=$((N / 4))
pattern "pinned raw_tp" 0 "-r -S -I" && check_pattern "pinned raw_tp"
pattern "unpinned" "" "-S -I" && {
	# informational: wakeups of a task still on its CPU have no run-queue wait
	if [ "$P_CTXSW" -ge $((2 * N)) ]; then ok "unpinned ctxsw >= 2N ($P_CTXSW)";
	else fail "unpinned ctxsw >= 2N: $P_CTXSW"; fi
	tol=$((P_WAKE / 200)); [ "$tol" -lt 2 ] && tol=2
	if [ "$P_RUNQ" -le $((P_WAKE + tol)) ] && [ "$P_RUNQ" -ge $((P_WAKE / 2)) ]; then
		ok "unpinned runq samples ~ wakeups ($P_RUNQ vs $P_WAKE)"
	else
		fail "unpinned runq samples ~ wakeups: $P_RUNQ vs $P_WAKE"
	fi
}

# Outliers and tracefs events share a clock: with trace_clock "mono" in the
# instance, every run-queue outlier of the pingpong threads (threshold 1 ns,
# so every wakeup is one, however fast the machine: at 1 us a CI machine had
# only 40 of 2000 rounds) has a sched_switch to that tid, on that CPU, at the
# same time (within 20 us: the BPF program and the trace event run in the
# same tracepoint call).
outliers_align() {
	local a b d pp res
	rm -f "$tmp/go" "$tmp/pp.out" "$tmp/drv.out"
	"$TOOLS/pingpong" -n 1000 -c 0 -w "$tmp/go" > "$tmp/pp.out" &
	pp=$!
	pids+=($pp)
	wait_for "$tmp/pp.out" '^tids' 5 || { fail "outliers align: pingpong did not start"; return; }
	read -r _ a b < <(grep '^tids' "$tmp/pp.out")
	mkdir "$inst" || { fail "outliers align: cannot create $inst"; return; }
	echo "${KTOP_TEST_TRACE_CLOCK:-mono}" > "$inst/trace_clock"	# "local": must fail
	echo 8192 > "$inst/buffer_size_kb"
	echo "next_pid == $a || next_pid == $b" > "$inst/events/sched/sched_switch/filter"
	echo 1 > "$inst/events/sched/sched_switch/enable"
	"$TOOLS/bpf_drive" -q -A -o 0.001 -S -I -i 0.25 > "$tmp/drv.out" 2>&1 &
	d=$!
	pids+=($d)
	if ! wait_for "$tmp/drv.out" '^ready' 10; then
		fail "outliers align: bpf_drive did not attach"
		kill -KILL "$pp" "$d" 2>/dev/null
	else
		touch "$tmp/go"
		wait "$pp"
		sleep 0.3
		kill -INT "$d"
		wait "$d"
	fi
	echo 0 > "$inst/events/sched/sched_switch/enable"
	cat "$inst/trace" > "$tmp/trace.txt"
	rmdir "$inst"
	res=$(python3 - "$tmp/drv.out" "$tmp/trace.txt" "$a" "$b" <<'PY'
import bisect, re, sys
drv, trace, tids = sys.argv[1], sys.argv[2], {int(sys.argv[3]), int(sys.argv[4])}
ev = {}
pat = re.compile(r'\[(\d+)\].*?\s(\d+\.\d+): sched_switch: .*next_pid=(\d+)')
for line in open(trace):
    m = pat.search(line)
    if m:
        key = (int(m.group(1)), int(m.group(3)))
        ev.setdefault(key, []).append(round(float(m.group(2)) * 1e6))
for v in ev.values():
    v.sort()
total = matched = 0
worst = 0
for line in open(drv):
    f = line.split()
    if not f or f[0] != "outlier" or int(f[7]) not in tids:
        continue
    total += 1
    ts_us, key = int(f[3]) // 1000, (int(f[5]), int(f[7]))
    v = ev.get(key, [])
    i = bisect.bisect_left(v, ts_us)
    best = min([abs(v[j] - ts_us) for j in (i - 1, i) if 0 <= j < len(v)] or [10**12])
    if best <= 20:
        matched += 1
        worst = max(worst, best)
print(total, matched, worst, sum(len(v) for v in ev.values()))
PY
)
	read -r total matched worst nev <<< "$res"
	echo "# outliers align: $total outliers of the pingpong tids, $matched matched" \
	     "a sched_switch (worst $worst us), $nev sched_switch events"
	if [ "${total:-0}" -ge 100 ] && [ $((matched * 100)) -ge $((total * 99)) ]; then
		ok "outliers align with tracefs (trace_clock mono): $matched/$total within 20 us"
	else
		fail "outliers align with tracefs: $matched/${total:-0} matched (need >= 100, 99%)"
	fi
}

# ktop_progs_after ID: "id name" of loaded ktop_* programs with an id above ID
# (bpftool here cannot show owner pids: program ids only grow, so the ones
# that appear while a bpf_drive runs are its own)
ktop_progs_after() {
	bpftool prog show -j 2>/dev/null | python3 -c '
import json, sys
low = int(sys.argv[1])
for p in json.load(sys.stdin):
    if p["id"] > low and p.get("name", "").startswith("ktop_"):
        print(p["id"], p["name"])' "$1"
}

max_prog_id() {
	bpftool prog show -j 2>/dev/null | python3 -c '
import json, sys
print(max([p["id"] for p in json.load(sys.stdin)] + [0]))'
}

# exit_path NAME HOW: start bpf_drive, end it HOW, check its programs are gone
exit_path() {
	local name=$1 how=$2 d ids left n low i
	low=$(max_prog_id)
	rm -f "$tmp/x.out"
	if [ "$how" = normal ]; then
		"$TOOLS/bpf_drive" -q -i 0.25 -t 1.5 > "$tmp/x.out" 2>&1 &
	else
		"$TOOLS/bpf_drive" -q -i 0.25 > "$tmp/x.out" 2>&1 &
	fi
	d=$!
	pids+=($d)
	if ! wait_for "$tmp/x.out" '^ready' 10; then
		fail "cleanup $name: bpf_drive did not attach"
		kill -KILL "$d" 2>/dev/null
		return
	fi
	# bpftool can fail on a program that goes away while it lists: retry
	for ((i = 0; i < 10; i++)); do
		ids=$(ktop_progs_after "$low")
		n=$(echo "$ids" | grep -c ' ktop_')
		[ "$n" -eq 11 ] && break
		sleep 0.1
	done
	if [ "$n" -ne 11 ]; then
		fail "cleanup $name: expected 11 ktop_* programs while running, saw: $(echo $ids)"
	fi
	[ "$how" != normal ] && kill "-$how" "$d"
	wait "$d" 2>/dev/null
	# the kernel frees a program after its last fd closes, asynchronously (RCU)
	for ((i = 0; i < 50; i++)); do
		left=""
		for id in $(echo "$ids" | awk '{ print $1 }'); do
			bpftool prog show id "$id" > /dev/null 2>&1 && left="$left $id"
		done
		[ -z "$left" ] && break
		sleep 0.1
	done
	if [ -z "$left" ] && [ "$n" -eq 11 ]; then
		ok "cleanup $name: $n ktop_* programs gone"
	else
		fail "cleanup $name: programs still loaded:$left"
	fi
	if [ "$how" != KILL ] && ! grep -q '^freed' "$tmp/x.out"; then
		fail "cleanup $name: bpf_drive did not reach bpfstats_free"
	fi
}

outliers_align

for how in normal INT HUP TERM KILL; do
	exit_path "$how" "$how"
done

# Without the right to load BPF: a reason, not a crash, and nothing loaded.
if command -v setpriv > /dev/null; then
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$TOOLS/bpf_drive" -t 0.2 2>&1)
	rc=$?
	if [ $rc -eq 3 ] && echo "$out" | grep -q '^unavailable .*root'; then
		ok "unprivileged: says why ($out)"
	else
		fail "unprivileged: rc $rc, output: $out"
	fi
fi

[ -n "$have_state" ] && state_same "tracing state unchanged" "$tmp/state.before"
finish
