#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# --probe on this host's kernel, which has uprobe events (no kprobes): ktop's
# uprobe and uretprobes on build/tools/probe_target see every call with the
# right values (in --json's top events and in the events of -o FILE.txt);
# a probe another tool defined before ktop started survives every ktop
# exit; the tracing state and dynamic_events are as before; a ktop killed
# with SIGKILL leaves its ktop_<pid> group behind and the next ktop removes
# it; refused specs exit 2 and define nothing (all or none).

cd "$(dirname "$0")/../.." || exit 2
. tests/live/lib_ktop.sh
need tracestate probe_target

TARGET=$(readlink -f "$TOOLS/probe_target")
DYN=$TRACEFS/dynamic_events
[ -e "$DYN" ] || DYN=$TRACEFS/uprobe_events
N=20
word_off=$(readelf -Ws "$TARGET" | awk '$8 == "ktop_probe_word" { print $2 }')
load_off=$(readelf -lW "$TARGET" | awk '$1 == "LOAD" && / R E / { print $2, $3; exit }')

if [ -z "$word_off" ] || [ -z "$load_off" ]; then
	fail "setup: no ktop_probe_word symbol or executable segment in $TARGET"
	finish
fi
# the oracle for the offset: readelf's vaddr - p_vaddr + p_offset
file_off=$(printf '0x%x' $(( 0x$word_off - $(echo "$load_off" | cut -d' ' -f2) + \
	$(echo "$load_off" | cut -d' ' -f1) )))

# "another tool": a uprobe of its own, defined before ktop starts
OTHER="p:other_$$/word $TARGET:$file_off"
if ! echo "$OTHER" >> "$DYN"; then
	fail "setup: cannot define the other tool's probe ($OTHER)"
	finish
fi
cleanup_other() { echo "-:other_$$/word" >> "$DYN" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup_other EXIT
cat "$DYN" > "$tmp/dyn.before"
state_save "$tmp/state"

# dyn_same NAME: dynamic_events holds exactly what it held before ktop
dyn_same() {
	# tracefs files say size 0: compare what they read, not what stat says
	if cat "$DYN" | cmp -s - "$tmp/dyn.before"; then
		ok "$1"
	else
		fail "$1: dynamic_events changed:"
		diff "$tmp/dyn.before" "$DYN" | head -10 | sed 's/^/    /'
	fi
}

# wait_group PID: until ktop_PID has events (10 s)
wait_group() {
	local i
	for ((i = 0; i < 100; i++)); do
		grep -q ":ktop_$1/" "$DYN" && [ -d "$TRACEFS/instances/ktop-$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# 1. uprobe and uretprobes: every call, the right values
P_WORD="build/tools/probe_target:ktop_probe_word \$arg1:string n=\$arg2:s32"
P_RET="build/tools/probe_target:ktop_probe_word%return \$retval:s32"
P_NAME="probe_name=$TARGET:ktop_probe_name%return +0(\$retval):string"
$KTOP --json --no-bpf --interval 0.3 -o "$tmp/out.ktop" --probe "$P_WORD" --probe "$P_RET" \
	--probe "$P_NAME" > "$tmp/json" 2> "$tmp/err" &
kpid=$!
if ! wait_group $kpid; then
	fail "uprobe_start: no ktop_$kpid group and instance: $(head -c 300 "$tmp/err")"
	kill -9 $kpid 2>/dev/null
	finish
fi
defs=$(grep -c ":ktop_$kpid/" "$DYN")
check "uprobe_defined: 3 definitions in ktop_$kpid ($defs)" [ "$defs" -eq 3 ]
# the first summary comes once tracing is on
wait_for "$tmp/json" '"summary"' 10 || fail "uprobe_start: no summary: $(head -c 300 "$tmp/err")"
"$TOOLS/probe_target" $N > "$tmp/target.out"
py_count() {
	python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    try:
        o = json.loads(line)
    except ValueError:
        continue
    n += sum(e["count"] for e in o.get("top_events", []) if e["event"] == sys.argv[2])
print(n)' "$tmp/json" "$1"
}
for ((i = 0; i < 50; i++)); do
	[ "$(py_count "ktop_$kpid:probe_name")" -ge $N ] && break
	sleep 0.1
done
kill -INT $kpid
wait $kpid
rc=$?
check "uprobe_exit: ktop exit status 0 after SIGINT ($rc)" [ $rc -eq 0 ]
for ev in ktop_probe_word ktop_probe_word__return probe_name; do
	c=$(py_count "ktop_$kpid:$ev")
	check "uprobe_json_count $ev: $c of $N calls in --json's top events" [ "$c" -eq $N ]
done
# uprobe events whose context the kernel did not record (flags "DBZff" on
# 6.18) count under no flag, NMI least of all; the summaries say how many
flagsum() {
	python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1]):
    try:
        o = json.loads(line)
    except ValueError:
        continue
    n += sum(c["flags"]["nmi"] if sys.argv[2] == "nmi" else c.get(sys.argv[2], 0)
             for c in o["cpus"])
print(n)' "$tmp/json" "$1"
}
nmi=$(flagsum nmi)
unrec=$(flagsum flags_not_recorded)
check "uprobe_flags: no uprobe hit counted as in NMI ($nmi NMI of $((3 * N)) hits)" \
	[ "$nmi" -lt "$N" ]
# the events, in order, with their values: the snapshot (-o .ktop) reopened
# without the probes and written as text
$KTOP -i "$tmp/out.ktop" --batch -o "$tmp/out.txt" > "$tmp/reopen" 2>&1
c=$(grep -cE "^ +$N +ktop_$kpid:(ktop_probe_word|ktop_probe_word__return|probe_name)\$" "$tmp/reopen")
check "snapshot_top_events: the reopened .ktop counts $N of each probe ($c of 3 lines)" [ "$c" -eq 3 ]
grep -E ": (ktop_probe_word|ktop_probe_word__return|probe_name):" "$tmp/out.txt" |
	sed 's/^.*: \(ktop_probe_word\|ktop_probe_word__return\|probe_name\): ([^)]*) */\1 /' \
	> "$tmp/got"
for ((i = 0; i < N; i++)); do
	w="word-$i"
	echo "ktop_probe_word arg1=\"$w\" n=$i"
	echo "ktop_probe_word__return retval=$(( ${#w} * 1000 + i ))"
	echo "probe_name arg1=\"name-$i\""
done > "$tmp/want"
if cmp -s "$tmp/want" "$tmp/got"; then
	ok "uprobe_values: $N calls, each with its string, n, return value and returned string"
else
	fail "uprobe_values: the events differ from the calls:"
	diff "$tmp/want" "$tmp/got" | head -8 | sed 's/^/    /'
fi
# ... and as many as the kernel's own letters give away (preempt count 0xff: "DBZff")
ff=$(grep -cE '\] .{3}ff +[0-9]' "$tmp/out.txt")
check "uprobe_flags_not_recorded: $unrec in the summaries, $ff in the trace text" \
	[ "$unrec" -eq "$ff" ]
grep -q "^done " "$tmp/target.out" || fail "probe_target did not finish: $(cat "$tmp/target.out")"
# trace.dat: trace-cmd reads the probe events' formats and fields from it
if command -v trace-cmd > /dev/null; then
	$KTOP -i "$tmp/out.ktop" --batch -o "$tmp/out.dat" > /dev/null 2>&1
	c=$(trace-cmd report "$tmp/out.dat" 2>/dev/null | grep -c 'ktop_probe_word: .*arg1="word-[0-9]*" n=[0-9]*$')
	check "tracedat_report: trace-cmd report shows $c of $N calls with their fields" [ "$c" -eq $N ]
fi
dyn_same "uprobe_dyn_restored: only the other tool's probe is left"
state_same "uprobe_state_restored" "$tmp/state"
no_instance "uprobe_no_instance" $kpid

# 1b. a stream: ktop --stream | ktop -i -
( $KTOP --stream --no-bpf --duration 4 --probe "$P_WORD" 2> "$tmp/serr" |
	$KTOP -i - --batch --interval 0.5 -o "$tmp/stream.txt" > "$tmp/stream.out" 2>&1 ) &
spid=$!
# tracing: the reading side has printed a summary of the stream
wait_for "$tmp/stream.out" "^Top events" 10 || fail "stream: no summary: $(head -c 300 "$tmp/serr")"
"$TOOLS/probe_target" 5 > /dev/null
wait $spid
c=$(grep -c 'ktop_probe_word: .*arg1="word-[0-4]" n=[0-4]$' "$tmp/stream.txt" 2>/dev/null)
check "stream: the reading ktop got the 5 calls with their fields ($c)" [ "$c" -eq 5 ]
dyn_same "stream_dyn_restored"

# 2. other exits: SIGHUP (the normal path), SIGSEGV (the emergency path, no allocation)
for sig in HUP SEGV; do
	$KTOP --batch --no-bpf --interval 0.3 --probe "$P_WORD" --probe "$P_RET" > "$tmp/out" \
		2> "$tmp/err" &
	kpid=$!
	# tracing: the first summary is out
	if ! wait_group $kpid || ! wait_for "$tmp/out" "^Top events" 10; then
		fail "sig$sig: $(head -c 300 "$tmp/err")"
		kill -9 $kpid 2>/dev/null
		continue
	fi
	kill -$sig $kpid
	wait $kpid 2>/dev/null
	dyn_same "sig${sig}_dyn_restored: ktop_$kpid's probes gone, the other tool's kept"
	no_instance "sig${sig}_no_instance" $kpid
done
state_same "signals_state_restored" "$tmp/state"

# 3. SIGKILL: the group stays behind; the next ktop removes it, and only it
$KTOP --batch --no-bpf --interval 0.3 --probe "$P_WORD" > /dev/null 2> "$tmp/err" &
kpid=$!
if ! wait_group $kpid; then
	fail "sigkill_start: $(head -c 300 "$tmp/err")"
	kill -9 $kpid 2>/dev/null
else
	kill -9 $kpid
	wait $kpid 2>/dev/null
	if ! grep -q ":ktop_$kpid/" "$DYN"; then
		fail "sigkill_left: no ktop_$kpid probe after SIGKILL: the test is void"
	else
		ok "sigkill_left: ktop_$kpid's probe stays after SIGKILL"
		$KTOP --batch --no-bpf --duration 0.5 -e sched:sched_switch > /dev/null 2> "$tmp/err2"
		check "sigkill_reaped: the next ktop removed ktop_$kpid" \
			bash -c "! grep -q ':ktop_$kpid/' '$DYN'"
		dyn_same "sigkill_other_kept: the other tool's probe is still there"
		state_same "sigkill_state" "$tmp/state"
	fi
fi

# 4. refusals: exit 2, a message saying what, nothing defined (all or none)
refuse() {
	local name=$1 pat=$2 rc
	shift 2
	timeout 30 $KTOP --batch --no-bpf --duration 1 "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 2 ]; then
		fail "$name: exit status $rc, want 2: $(head -c 300 "$tmp/err")"
	elif ! grep -qE -e "$pat" "$tmp/err"; then
		fail "$name: message does not match /$pat/: $(head -c 400 "$tmp/err")"
	else
		ok "$name: exit 2: $(head -n 1 "$tmp/err" | cut -c1-150)"
	fi
	dyn_same "$name: dynamic_events unchanged"
	state_same "$name: tracing state unchanged" "$tmp/state"
}
refuse "no_symbol_all_or_none" "has no function symbol 'ktop_probe_wrd'; did you mean ktop_probe_word" \
	--probe "$P_WORD" --probe "build/tools/probe_target:ktop_probe_wrd"
refuse "kernel_refusal_caret" "the kernel refused the definition: Invalid register name" \
	--probe "$P_WORD" --probe "build/tools/probe_target:ktop_probe_word %xyz"
grep -A2 "refused" "$tmp/err" | tail -2 > "$tmp/caret"
line=$(sed -n 1p "$tmp/caret")
caret=$(sed -n 2p "$tmp/caret")
pos=$(( ${#caret} - 1 ))
check "kernel_refusal_caret_under_token: '^' under '%xyz' (${line:$pos:4})" \
	[ "${line:$pos:4}" = "%xyz" ]
refuse "no_library" "no trace event nosuchlib:foo, and no library or program named nosuchlib" \
	--probe "nosuchlib:foo"
refuse "syntax" "unknown type 'bogus'" --probe "$P_WORD x:bogus"
if ! grep -q kprobe_events <(ls $TRACEFS); then
	refuse "no_kprobes_here" "this kernel has no kprobe or fprobe events" --probe "vfs_read count"
fi
refuse "uprobe_symbol_type" "symbol names kernel addresses" \
	--probe "build/tools/probe_target:ktop_probe_word \$arg1:symbol"

# 4b. the library as the probe prompt will use it (build/tools/probe_tool)
"$TOOLS/probe_tool" cycle "$P_WORD" "$P_RET" > "$tmp/cycle" 2>&1
printf '%s\n' "list ktop_probe_word uprobe" "list ktop_probe_word__return uretprobe" \
	"enable_on 0" "enable ktop_probe_word 1" \
	"remove_enabled -16 cannot remove probe event ktop_PID/ktop_probe_word: Device or resource busy (still enabled in an instance)" \
	"enable_off 0" "enable ktop_probe_word 0" "remove 0 " "count 1" > "$tmp/cycle.want"
if sed 's/ktop_[0-9]*\//ktop_PID\//' "$tmp/cycle" | cmp -s - "$tmp/cycle.want"; then
	ok "library_cycle: list, enable in an instance, remove refused while enabled, disable, remove"
else
	fail "library_cycle:"; diff "$tmp/cycle.want" "$tmp/cycle" | head -8 | sed 's/^/    /'
fi
dyn_same "library_cycle: nothing left"
"$TOOLS/probe_tool" preview "libc:malloc size=\$arg1:u64" > "$tmp/pv" 2>&1
check "preview_libc: libc:malloc found through ktop's own libraries ($(grep '^how' "$tmp/pv" | cut -c1-90))" \
	grep -q "^how libc found as loaded by ktop itself (/proc/self/maps); malloc at 0x" "$tmp/pv"
"$TOOLS/probe_tool" complete "build/tools/probe_target:ktop_probe_w" > "$tmp/cpl" 2>&1
check "complete_symbol: ktop_probe_word from the ELF symbols" grep -qx "ktop_probe_word" "$tmp/cpl"
dyn_same "preview_complete_define_nothing"

# 5. --features names the probe kinds, creating nothing
$KTOP --features > "$tmp/feat" 2>&1
if grep -qE '^uprobe +available' "$tmp/feat" && grep -qE '^kprobe ' "$tmp/feat" &&
   grep -qE '^eprobe ' "$tmp/feat" && grep -qE '^fprobe ' "$tmp/feat"; then
	ok "features_probes: $(grep -E '^(k|u|f|e)probe' "$tmp/feat" | awk '{print $1 ":" $2}' | tr '\n' ' ')"
else
	fail "features_probes: $(grep -i probe "$tmp/feat" | head -5)"
fi
dyn_same "features_defines_nothing"

finish
