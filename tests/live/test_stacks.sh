#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Stack traces on this host's kernel, with a workload whose stacks are known:
# tests/tools/stackload sleeps N times through stk_leaf <- stk_middle <-
# stk_outer <- main (frame pointers) with a direct nanosleep(2).
#
#   - --stack sched:sched_switch: the trigger is on the event while ktop runs;
#     every sched_switch has a stack (--json's events_without_stack, and each
#     sched_switch of the JSON export has an "sf"), but those whose stack the
#     stop cut off: the kernel writes the stack as a record after its event
#     and refuses it once tracing_on is 0, so a CPU's last event may have none;
#     ktop counts them (events_cut_by_stop, at most one a CPU), and each is
#     the last sched_switch of its CPU in the export; every context switch of
#     stackload that sleeps goes through __x64_sys_nanosleep -> do_nanosleep
#     from entry_SYSCALL_64, as many as it slept; the folded export reads
#     back (every line "frame;...;frame COUNT") and sums to the events with
#     a stack; saved as trace.dat (-o x.dat), trace-cmd report shows each
#     stack as a kernel_stack record with its frames named (do_nanosleep as
#     often as stackload slept) and ktop reads as many stacks back.
#   - --ustack: stackload's user frames are named, root first main,
#     stk_outer, stk_middle, stk_leaf, then the kernel's entry.
#   - --offcpu (BPF): stackload's off-CPU stack has the same path, with its
#     switches and at least the time it slept.
#   - the state is back after each run (triggers and options included), at
#     the top level too (KTOP_TEST_TOP_LEVEL: options/stacktrace instead of
#     triggers), and after a SIGKILL once the next ktop has started.
set -u
cd "$(dirname "$0")/../.." || exit 2
. tests/live/lib_ktop.sh
. tests/live/lib_marker.sh

need stackload tracestate
if [ "$(id -u)" != 0 ] || [ ! -d "$TRACEFS/instances" ]; then
	echo "FAIL setup: needs root and tracefs at $TRACEFS"
	exit 1
fi
N=${KTOP_STACKS_N:-100}
NCPU=$(getconf _NPROCESSORS_ONLN)
state_save "$tmp/state.before"

# run_load OUT: stackload sleeping N x 2 ms, its pid in $LOAD_PID. It stays
# 1 s after: ktop reads its memory map when it decodes its first user stack,
# which a slow ktop (ASan) may do after the last sleep.
run_load() {
	"$TOOLS/stackload" -l 1000 sleep "$N" 2000 > "$1"
	LOAD_PID=$(awk '/^stackload pid/ { print $3 }' "$1")
}

# load_start OUT: stackload waiting for $tmp/go to sleep N x 2 ms, in the
# background (job $lp); its pid in $LOAD_PID
load_start() {
	rm -f "$tmp/go" "$1"
	"$TOOLS/stackload" -w "$tmp/go" -l 1000 sleep "$N" 2000 > "$1" &
	lp=$!
	wait_for "$1" '^stackload pid' 5
	LOAD_PID=$(awk '/^stackload pid/ { print $3 }' "$1")
}

# load_go KOUT: once ktop (job $k) has printed a line to KOUT, stackload
# sleeps; both are waited for. $t0 and $t1 (ns) bracket the sleeps.
load_go() {
	after_lines "$1" 1 10
	t0=$(date +%s%N)
	touch "$tmp/go"
	wait $lp
	t1=$(date +%s%N)
	wait $k
}

# json_check FILE PID: the --json summaries and the export against the workload
json_check() {
	python3 - "$@" <<'PY'
import json, sys
summ, export, pid, n, folded = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
out = []
without = with_ = cut = 0
for line in open(summ):
    if line.startswith('{'):
        s = json.loads(line).get('stacks', {})
        without += s.get('events_without_stack', 0)
        with_ += s.get('events_with_stack', 0)
        cut += s.get('events_cut_by_stop', 0)
out.append(f"summaries {with_} {without} {cut}")
j = json.load(open(export))
sf = j.get('stackFrames', {})
def path(i):
    p = []
    i = str(i)
    while i:
        p.append(sf[i]['name'])
        i = sf[i].get('parent')
    return p                          # leaf first: from the leaf up
sw = [e for e in j['traceEvents'] if e.get('name') == 'sched_switch']
nosf = sum(1 for e in sw if 'sf' not in e)
# those without a stack that are not the last of their CPU (the stop cuts only that one)
last = {}
for e in sw:
    last[e['cat']] = max(last.get(e['cat'], e['ts']), e['ts'])
inside = sum(1 for e in sw if 'sf' not in e and e['ts'] < last[e['cat']])
mine = [path(e['sf']) for e in sw if e.get('pid') == pid and 'sf' in e]
sleeps = [p for p in mine if 'do_nanosleep' in p and '__x64_sys_nanosleep' in p
          and 'entry_SYSCALL_64_after_hwframe' in p and p.index('do_nanosleep') <
          p.index('__x64_sys_nanosleep') < p.index('entry_SYSCALL_64_after_hwframe')]
out.append(f"export {len(sw)} {nosf} {len(mine)} {len(sleeps)} {inside}")
want = ['stk_leaf', 'stk_middle', 'stk_outer', 'main']
user = [p for p in sleeps if any(p[i:i + 4] == want for i in range(len(p)))]
out.append(f"user {len(user)}")
tot = lines = 0
ok = True
for line in open(folded):
    lines += 1
    frames, _, v = line.rstrip('\n').rpartition(' ')
    if not frames or not v.isdigit() or int(v) <= 0 or ' ' in frames:
        ok = False
    tot += int(v) if v.isdigit() else 0
with_export = len(j['traceEvents']) and sum(1 for e in j['traceEvents'] if 'sf' in e)
out.append(f"folded {lines} {tot} {with_export} {int(ok)}")
print('\n'.join(out))
PY
}

# A run: ktop with stacks while stackload runs; sets R_* from json_check.
stacked_run() {
	local name=$1 opts=$2 k
	rm -f "$tmp/k.json" "$tmp/x.json" "$tmp/x.folded" "$tmp/load.out" "$tmp/trig"
	# shellcheck disable=SC2086
	$KTOP --json --interval 1 --duration 4 $opts -o "$tmp/x.ktop" > "$tmp/k.json" 2>&1 &
	k=$!
	after_lines "$tmp/k.json" 1 10
	cat "$TRACEFS/instances/ktop-$k/events/sched/sched_switch/trigger" > "$tmp/trig" 2>/dev/null
	cat "$TRACEFS/instances/ktop-$k/options/userstacktrace" >> "$tmp/trig" 2>/dev/null
	run_load "$tmp/load.out"
	wait $k
	R_STATUS=$?
	R_PID=$k
	$KTOP -i "$tmp/x.ktop" --batch --iterations 1 -o "$tmp/x.json" > /dev/null 2>&1
	$KTOP -i "$tmp/x.ktop" --batch --iterations 1 -o "$tmp/x.folded" > /dev/null 2>&1
	json_check "$tmp/k.json" "$tmp/x.json" "$LOAD_PID" "$N" "$tmp/x.folded" > "$tmp/res" 2>&1
	read -r _ R_WITH R_WITHOUT R_CUT < <(grep '^summaries' "$tmp/res")
	read -r _ R_SW R_NOSF R_MINE R_SLEEPS R_INSIDE < <(grep '^export' "$tmp/res")
	read -r _ R_USER < <(grep '^user' "$tmp/res")
	read -r _ R_FLINES R_FSUM R_FWANT R_FOK < <(grep '^folded' "$tmp/res")
	echo "# $name: status $R_STATUS; summaries: ${R_WITH:-?} with a stack, ${R_WITHOUT:-?}" \
	     "without, ${R_CUT:-?} cut by the stop; export: ${R_SW:-?} sched_switch, ${R_NOSF:-?}" \
	     "without sf (${R_INSIDE:-?} of them before their CPU's last), stackload" \
	     "${R_MINE:-?} switches, ${R_SLEEPS:-?} through do_nanosleep, ${R_USER:-?} with its" \
	     "user frames; folded ${R_FLINES:-?} lines sum ${R_FSUM:-?} (events with a stack" \
	     "${R_FWANT:-?})"
	[ -n "${R_WITH:-}" ] || { cat "$tmp/res" | head -20; return 1; }
}

if stacked_run "kernel stacks" "--stack sched:sched_switch"; then
	check "kernel stacks: ktop ran" [ "$R_STATUS" -eq 0 ]
	check "kernel stacks: trigger set while running" grep -q '^stacktrace' "$tmp/trig"
	check "kernel stacks: every sched_switch has a stack, but those the stop cut ($R_CUT) (summaries)" \
		[ "$R_WITH" -gt 0 -a "$R_WITHOUT" -eq "$R_CUT" -a "$R_CUT" -le "$NCPU" ]
	check "kernel stacks: every sched_switch has a stack, but a CPU's last the stop cut (export)" \
		[ "$R_SW" -gt 0 -a "$R_NOSF" -eq "$R_CUT" -a "$R_INSIDE" -eq 0 ]
	check "kernel stacks: stackload's $N sleeps went through do_nanosleep ($R_SLEEPS)" \
		[ "$R_SLEEPS" -ge "$N" ]
	check "kernel stacks: folded lines read back, sum = events with a stack" \
		[ "$R_FOK" -eq 1 -a "$R_FSUM" -eq "$R_FWANT" -a "$R_FLINES" -gt 0 ]
	no_instance "kernel stacks: instance removed" "$R_PID"
	state_same "kernel stacks: state restored" "$tmp/state.before"
	# saved as trace.dat: each stack a kernel_stack record after its event, named in
	# trace-cmd report; ktop reads the same stacks back
	$KTOP -i "$tmp/x.ktop" --batch --iterations 1 -o "$tmp/x.dat" > /dev/null 2>&1
	trace-cmd report "$tmp/x.dat" > "$tmp/x.report" 2>/dev/null
	rs=$(grep -c ': kernel_stack:' "$tmp/x.report")
	rn=$(grep -c '^=> do_nanosleep ' "$tmp/x.report")
	ks=$($KTOP -i "$tmp/x.ktop" --batch --iterations 1 2>/dev/null |
		sed -n 's/^Top stacks (this interval: \([0-9]*\) events with a stack.*/\1/p')
	ds=$($KTOP -i "$tmp/x.dat" --batch --iterations 1 -o "$tmp/x.dat.folded" 2>/dev/null |
		sed -n 's/^Top stacks (this interval: \([0-9]*\) events with a stack.*/\1/p')
	check "kernel stacks as trace.dat: trace-cmd report shows $rs kernel_stack records ($ks events with a stack), $rn through do_nanosleep" \
		[ "${ks:-0}" -gt 0 -a "$rs" -eq "${ks:-0}" -a "$rn" -ge "$N" ]
	dn=$(awk '/;do_nanosleep;/ { n += $NF } END { print n + 0 }' "$tmp/x.dat.folded")
	[ "$dn" -ge "$N" ] || ds="$ds (do_nanosleep in $dn stacks of the folded export)"
	check "kernel stacks as trace.dat: ktop reads back ${ds:-no} events with a stack, named" \
		[ "${ds:-0}" = "${ks:-x}" ]
else
	fail "kernel stacks: no result"
fi

if stacked_run "user stacks" "--ustack sched:sched_switch"; then
	check "user stacks: userstacktrace on while running" grep -qx 1 "$tmp/trig"
	check "user stacks: stackload's sleeps name main <- stk_outer <- stk_middle <- stk_leaf ($R_USER)" \
		[ "$R_USER" -ge "$N" ]
	check "user stacks: every sched_switch has a stack, but those the stop cut ($R_CUT)" \
		[ "$R_WITHOUT" -eq "$R_CUT" -a "$R_CUT" -le "$NCPU" -a "$R_NOSF" -eq "$R_CUT" -a \
		  "$R_INSIDE" -eq 0 ]
	state_same "user stacks: state restored" "$tmp/state.before"
else
	fail "user stacks: no result"
fi

# --offcpu: BPF, where stackload blocks and for how long (-P: its totals only)
rm -f "$tmp/o.json"
load_start "$tmp/load.out"
$KTOP --json --interval 1 --duration 4 --offcpu -P "$LOAD_PID" -e sched:sched_process_exit \
	> "$tmp/o.json" 2>&1 &
k=$!
load_go "$tmp/o.json"
res=$(python3 - "$tmp/o.json" "$LOAD_PID" <<'PY'
import json, sys
def has(s, seq):
    return any(s[i:i + len(seq)] == seq for i in range(len(s)))
last = None
for line in open(sys.argv[1]):
    if line.startswith('{'):
        last = json.loads(line).get('offcpu', {})
sw = ns = user = leaf = 0
for e in (last or {}).get('top', []):
    s = e['stack']
    if e['pid'] != int(sys.argv[2]) or 'do_nanosleep' not in s or '__x64_sys_nanosleep' not in s:
        continue
    # a user stack the stack map had no room for (a hash collision) leaves the
    # kernel path: summed all the same
    sw += e['switches']
    ns += e['ns']
    leaf += s[0] == '__schedule'
    if has(s, ['stk_leaf', 'stk_middle', 'stk_outer', 'main']):
        user = max(user, e['switches'])
print(sw, ns, int(leaf > 0), user)
PY
)
read -r osw ons oleaf ouser <<< "$res"
[ "${osw:-0}" -gt 0 ] || cut -c1-300 "$tmp/o.json" | sed 's/^/    /'
echo "# offcpu: stackload $N x 2 ms: ${osw} switches, ${ons} ns off CPU, wall $(((t1 - t0) / 1000)) us"
# (one or two of N may be missing on a slow run: a switch back in after the last poll)
check "offcpu: stackload's nanosleep path, $N switches ($osw)" [ "${osw:-0}" -ge $((N - 2)) ]
check "offcpu: at least the time slept (${ons} ns >= ${osw:-0} x 2 ms)" \
	[ "${ons:-0}" -ge $((${osw:-0} * 2000000)) -a "${osw:-0}" -gt 0 ]
check "offcpu: no longer than it ran" [ "${ons:-0}" -le $((t1 - t0)) ]
check "offcpu: the stack starts where it blocked (__schedule)" [ "${oleaf:-0}" -eq 1 ]
check "offcpu: its user frames, main <- stk_outer <- stk_middle <- stk_leaf (${ouser:-0} switches)" \
	[ "${ouser:-0}" -ge $((N * 9 / 10)) ]
if command -v bpftool > /dev/null; then
	check "offcpu: no ktop BPF program left" [ -z "$(bpftool prog list 2>/dev/null | grep ktop_)" ]
fi
state_same "offcpu: state restored" "$tmp/state.before"

# --offcpu under --view pid: (BPF watches every task): only that task's totals
rm -f "$tmp/ov.json"
load_start "$tmp/load.out"
$KTOP --json --interval 1 --duration 3 --offcpu --view "pid:$LOAD_PID" \
	-e sched:sched_process_exit > "$tmp/ov.json" 2>&1 &
k=$!
load_go "$tmp/ov.json"
res=$(python3 - "$tmp/ov.json" "$LOAD_PID" <<'PY'
import json, sys
last = None
for line in open(sys.argv[1]):
    if line.startswith('{'):
        last = json.loads(line).get('offcpu', {})
top = (last or {}).get('top', [])
print(len(top), sum(1 for e in top if e['pid'] != int(sys.argv[2])),
      sum(e['ns'] for e in top), (last or {}).get('ns_total', 0))
PY
)
read -r vn vother vns vtotal <<< "$res"
echo "# offcpu --view pid:$LOAD_PID: ${vn:-0} stacks, ${vother:-?} of other tasks, total ${vtotal:-0} ns"
check "offcpu --view pid: its stacks only (${vn:-0}, ${vother:-?} others)" \
	[ "${vn:-0}" -gt 0 -a "${vother:-1}" -eq 0 ]
# (the JSON lists 50 stacks at the most: fewer here, so they sum to the total)
check "offcpu --view pid: the total is its stacks' (${vtotal:-0} ns = ${vns:-0})" \
	[ "${vtotal:-0}" -gt 0 -a "${vtotal:-0}" -eq "${vns:-0}" -a "${vn:-0}" -lt 50 ]
state_same "offcpu --view: state restored" "$tmp/state.before"

# the top level: options/stacktrace stands in for triggers, and comes back
top_claim || fail "top level: $MARK_WHY"
rm -f "$tmp/t.out"
KTOP_TEST_TOP_LEVEL=1 $KTOP --batch --interval 1 --duration 2 --stack sched:sched_switch \
	> "$tmp/t.out" 2>&1 &
k=$!
opt=0
while kill -0 $k 2>/dev/null; do
	[ "$(cat "$TRACEFS/options/stacktrace")" = 1 ] && { opt=1; break; }
	sleep 0.05
done
wait $k
check "top level: options/stacktrace on while running ($opt)" [ "$opt" = 1 ]
check "top level: the summary says why" grep -q "options/stacktrace" "$tmp/t.out"
state_same "top level: state restored" "$tmp/state.before"

# SIGKILL: nothing runs the exit path; the next ktop puts it back
for mode in instance top; do
	rm -f "$tmp/kill.out"
	if [ $mode = top ]; then
		KTOP_TEST_TOP_LEVEL=1 $KTOP --batch --interval 1 --duration 30 --ustack sched:sched_switch \
			> "$tmp/kill.out" 2>&1 &
	else
		$KTOP --batch --interval 1 --duration 30 --ustack sched:sched_switch > "$tmp/kill.out" 2>&1 &
	fi
	k=$!
	after_lines "$tmp/kill.out" 1 10
	kill -KILL $k
	wait $k 2>/dev/null
	$KTOP --batch --iterations 1 -e sched:sched_process_exit > /dev/null 2>&1
	no_instance "SIGKILL ($mode): instance reaped" "$k"
	state_same "SIGKILL ($mode): state restored by the next ktop" "$tmp/state.before"
done

# bad input: clear message, status 2, nothing changed
$KTOP --batch --stack 'no_such:event' --iterations 1 > "$tmp/bad.out" 2>&1
check "--stack of an unknown event: status 2" [ $? -eq 2 ]
check "--stack of an unknown event: says which" grep -q "no_such:event" "$tmp/bad.out"
$KTOP --batch --folded flame --iterations 1 > "$tmp/bad.out" 2>&1
check "--folded with a bad source: status 2" [ $? -eq 2 ]
state_same "bad input: state unchanged" "$tmp/state.before"
finish
