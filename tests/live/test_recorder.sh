#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The flight recorder (--save-on) on this host's kernel (its default events).
# A program with a name of the test's own is exec'd at a moment the test
# picks; meanwhile the test writes a tick into ktop's own instance's
# trace_marker every 100 ms, so a saved file's ticks (print events) say which
# seconds it holds, independently of the recorder's own note:
#   - one exec: exactly one file, holding the exec event and the ticks from
#     --save-before seconds before it to --save-after after, and not more;
#   - two execs 0.4 s apart: one file naming both;
#   - --save-max: no more files than that, the rest counted;
#   - --save-after 0: the kernel's traceoff trigger stops recording at the
#     exec (no tick after it in the file), and recording resumes for the next;
#   - SIGTERM with a window still waiting: ktop ends within a second, the
#     file is whole and says where it was cut;
#   - a file system with no room (a 1 MiB tmpfs, filled): the save is
#     refused with the reason and ktop goes on;
#   - a probe condition (a uprobe's return value), lost events (a tiny
#     buffer under a syscall flood), a BPF statistic each make their file;
#   - bad conditions exit 2 and leave the tracing state as it was;
# and no instance is left behind.

cd "$(dirname "$0")/../.." || exit 2
. tests/live/lib_ktop.sh
need tracestate

if [ "$(id -u)" != 0 ]; then
	echo "FAIL recorder: needs root"
	finish
fi

name=rectgt$$
cp /bin/true "$tmp/$name" || exit 1
state_save "$tmp/state"

# start_ktop OUT ARGS...: ktop --batch in the background (pid in $kp), until its first summary
start_ktop() {
	local out=$1
	shift
	$KTOP --batch --interval 0.5 "$@" >"$out" 2>"$out.err" </dev/null &
	kp=$!
	if ! wait_for "$out" '^Recorder:\|"recorder":' 15; then
		fail "ktop did not start: $(head -c 300 "$out.err")"
		kill -TERM $kp 2>/dev/null
		wait $kp
		finish
	fi
}

# ticks in the background: a line into ktop's instance's trace_marker every
# 100 ms (pid in $tp); each is an ftrace print event in the store
start_ticks() {
	(
		i=0
		while [ -e "$TRACEFS/instances/ktop-$kp/trace_marker" ]; do
			{ echo "tick $i" > "$TRACEFS/instances/ktop-$kp/trace_marker"; } 2>/dev/null
			i=$((i + 1))
			sleep 0.1
		done
	) &
	tp=$!
}

stop_ktop() {
	kill -TERM $kp 2>/dev/null
	wait $kp
	rc=$?
	kill $tp 2>/dev/null
	wait $tp 2>/dev/null
	no_instance "$1: no instance left" $kp
}

# file_times FILE: "EXEC FIRST LAST NTICKS NEXEC" in trace seconds: the test
# program's exec and the first and last tick the saved FILE holds
file_times() {
	$KTOP -i "$1" --batch -F 'event:print,sched_process_exec' -o "$1.txt" >/dev/null 2>&1
	awk -v n="$name" '
		/^#/ { next }
		{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { ts = substr($i, 1, length($i) - 1); break } }
		/sched_process_exec:/ && index($0, n) { if (!ex) ex = ts; nex++ }
		/ print: / { if (!first) first = ts; last = ts; nt++ }
		END { printf "%s %s %s %d %d\n", ex ? ex : 0, first ? first : 0, last ? last : 0, nt, nex }
	' "$1.txt"
}

# near A B TOL: |A - B| <= TOL
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }

# ---- one exec: one file, the seconds around it --------------------------------------------------
out=$tmp/one
start_ktop $out --save-on "sched:sched_process_exec comm ~ \"$name*\"" --save-before 3 \
	--save-after 1 -o "$tmp/one-%n.ktop"
start_ticks
sleep 4.5
"$tmp/$name"
wait_for $out '^saved ' 10 || fail "one exec: no 'saved' line: $(grep -E '^(Recorder|save)' $out | tail -2)"
sleep 1
stop_ktop "one exec"
n=$(ls "$tmp"/one-*.ktop 2>/dev/null | wc -l)
check "one exec: exactly one file ($n)" [ "$n" -eq 1 ]
if [ -f "$tmp/one-1.ktop" ]; then
	read -r ex first last nt nex < <(file_times "$tmp/one-1.ktop")
	echo "# exec at $ex; ticks $first .. $last ($nt); execs of $name: $nex"
	check "one exec: the file holds the exec" [ "$nex" -eq 1 ]
	# ticks every 100 ms: the first within 0.2 s of exec - 3, the last of exec + 1
	check "one exec: it starts --save-before (3 s) before the exec" near "$first" "$(echo "$ex - 3" | bc)" 0.2
	check "one exec: it ends --save-after (1 s) after it" near "$last" "$(echo "$ex + 1" | bc)" 0.2
	# not more than the 4 s hold (a busy machine delays the writer: fewer)
	check "one exec: at most 41 ticks of 100 ms ($nt)" [ "$nt" -ge 20 -a "$nt" -le 41 ]
	$KTOP -i "$tmp/one-1.ktop" --batch > "$tmp/note" 2>&1
	check "one exec: the file's note names the condition" grep -q "Save note: match: sched:sched_process_exec comm ~ \"$name\*\" at" "$tmp/note"
	check "one exec: the note says the store held all of it" grep -q 'Save note: held: all of the window' "$tmp/note"
	check "one exec: the saved line" grep -q "^saved $tmp/one-1.ktop: sched:sched_process_exec comm ~ \"$name\*\" at .*window" $out
fi

# ---- two execs inside one window: one file naming both ------------------------------------------
out=$tmp/two
start_ktop $out --save-on "sched:sched_process_exec comm ~ \"$name*\"" --save-before 1 \
	--save-after 1 -o "$tmp/two-%n.ktop" --json
start_ticks
sleep 1.5
"$tmp/$name"
sleep 0.4
"$tmp/$name"
wait_for $out '"saves":\[{' 10 || fail "two execs: no save"
sleep 1
stop_ktop "two execs"
n=$(ls "$tmp"/two-*.ktop 2>/dev/null | wc -l)
check "two execs: one file ($n)" [ "$n" -eq 1 ]
if [ -f "$tmp/two-1.ktop" ]; then
	read -r ex first last nt nex < <(file_times "$tmp/two-1.ktop")
	check "two execs: the file holds both ($nex)" [ "$nex" -eq 2 ]
	$KTOP -i "$tmp/two-1.ktop" --batch > "$tmp/note" 2>&1
	check "two execs: the note names both" [ "$(grep -c 'Save note: match: ' "$tmp/note")" -eq 2 ]
	check "two execs: JSON's save says 2 matches" grep -q '"matches":2,' $out
	check "two execs: JSON's save has file, condition, time, window" \
		grep -qE '"saves":\[\{"file":"[^"]*two-1.ktop","condition":"sched:sched_process_exec .*","match":"[^"]*","time":"[0-9T:.-]+Z","ts":[0-9.]+,"window_start":[0-9.]+,"window_end":[0-9.]+,.*"events":[0-9]+' $out
fi

# ---- --save-max 2: four execs, two files --------------------------------------------------------
out=$tmp/max
start_ktop $out --save-on "sched:sched_process_exec comm ~ \"$name*\"" --save-before 0.5 \
	--save-after 0.2 --save-max 2 -o "$tmp/max-%n.ktop"
for i in 1 2 3 4; do
	sleep 0.7
	"$tmp/$name"
done
sleep 1.5
stop_ktop "--save-max"
n=$(ls "$tmp"/max-*.ktop 2>/dev/null | wc -l)
check "--save-max 2: two files of four execs ($n)" [ "$n" -eq 2 ]
check "--save-max 2: the rest counted ($(grep '^Recorder: armed' $out | tail -1))" \
	grep -q 'save-max reached.*2 past --save-max' $out

# ---- --save-after 0: the kernel stops recording at the exec -------------------------------------
out=$tmp/stop
start_ktop $out --save-on "sched:sched_process_exec comm ~ \"$name*\"" --save-before 1 \
	--save-after 0 -o "$tmp/stop-%n.ktop"
start_ticks
sleep 1.5
"$tmp/$name"
sleep 2
"$tmp/$name"
wait_for $out '^saved .*stop-2.ktop' 10
sleep 0.5
check "kernel stop: the trigger is in ktop's instance" grep -q '^Recorder: the kernel stops recording at the match (traceoff triggers)' $out
stop_ktop "kernel stop"
n=$(ls "$tmp"/stop-*.ktop 2>/dev/null | wc -l)
check "kernel stop: recording resumed: a file per exec ($n)" [ "$n" -eq 2 ]
if [ -f "$tmp/stop-1.ktop" ]; then
	read -r ex first last nt nex < <(file_times "$tmp/stop-1.ktop")
	echo "# exec at $ex; ticks $first .. $last ($nt)"
	check "kernel stop: the file holds the exec" [ "$nex" -eq 1 ]
	check "kernel stop: no tick after the exec" awk -v l="$last" -v e="$ex" 'BEGIN { exit !(l <= e) }'
	check "kernel stop: ticks up to 0.15 s before it" near "$last" "$ex" 0.15
	$KTOP -i "$tmp/stop-1.ktop" --batch > "$tmp/note" 2>&1
	check "kernel stop: the note says so" grep -q 'Save note: kernel: stopped recording at the match' "$tmp/note"
fi

# ---- SIGTERM with a window waiting: within a second, the file whole and cut --------------------
out=$tmp/term
start_ktop $out --save-on "sched:sched_process_exec comm ~ \"$name*\"" --save-before 1 \
	--save-after 10 -o "$tmp/term-%n.ktop"
sleep 1.2
"$tmp/$name"
sleep 1
t0=$(date +%s%N)
kill -TERM $kp
wait $kp
rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "SIGTERM: exit status 0 ($rc)" [ "$rc" -eq 0 ]
check "SIGTERM: ended in ${ms} ms (< 1000)" [ "$ms" -lt 1000 ]
no_instance "SIGTERM: no instance left" $kp
check "SIGTERM: the waiting window written, cut, and said" grep -q '^saved .*term-1.ktop: .*ktop was stopped' $out
check "SIGTERM: no temporary file left" [ -z "$(ls "$tmp" | grep 'term-1.ktop.')" ]
if [ -f "$tmp/term-1.ktop" ]; then
	$KTOP -i "$tmp/term-1.ktop" --batch > "$tmp/note" 2>&1
	check "SIGTERM: the file reads back, its note says where it was cut" grep -q 'Save note: cut: ktop was stopped' "$tmp/note"
fi

# ---- a file system with no room: refused, said, and ktop goes on --------------------------------
# The tmpfs is filled before ktop starts: how big a save is depends on how
# busy the machine is (a quiet machine's 5 s fit in 1 MiB), a full file
# system refuses any save whatever the machine does.
mkdir -p "$tmp/small"
if mount -t tmpfs -o size=1m rectest "$tmp/small"; then
	dd if=/dev/zero of="$tmp/small/filler" bs=4k 2>/dev/null
	out=$tmp/full
	start_ktop $out --save-on "sched:sched_process_exec comm ~ \"$name*\"" --save-before 5 \
		--save-after 0.2 -o "$tmp/small/full-%n.ktop"
	sleep 5.5
	"$tmp/$name"
	wait_for $out '^save 1 refused' 10
	lines=$(wc -l < $out)
	sleep 1.5
	check "no room: the save refused with the reason" grep -q "^save 1 refused: $tmp/small/full-1.ktop: .*not written: it needs about .* free" $out
	check "no room: ktop goes on" [ "$(wc -l < $out)" -gt "$lines" ]
	stop_ktop "no room"
	check "no room: nothing written there" [ "$(ls -A "$tmp/small")" = filler ]
	umount "$tmp/small"
else
	fail "no room: cannot mount a tmpfs to fill"
fi

# ---- the other kinds: a probe with a filter on its return value, lost events, a BPF statistic ----
target=$(readlink -f "$TOOLS/probe_target")
if [ -x "$target" ]; then
	out=$tmp/probe
	# ktop_probe_word returns strlen("word-<i>") * 1000 + i: 6007 is the call i = 7 alone
	start_ktop $out --save-on "probe $target:ktop_probe_word%return \$retval:s32 if retval == 6007" \
		--save-before 0.5 --save-after 0.2 -o "$tmp/probe-%n.ktop"
	"$target" 20 50 > /dev/null
	wait_for $out '^saved ' 10
	sleep 0.5
	stop_ktop "probe"
	n=$(ls "$tmp"/probe-*.ktop 2>/dev/null | wc -l)
	check "probe: one file for the one call returning 6007 ($n)" [ "$n" -eq 1 ]
	check "probe: its line names the probe" grep -q "^saved .*probe-1.ktop: probe $target:ktop_probe_word%return" $out
	check "probe: that call alone matched (not several)" \
		grep -q "^saved .*probe-1.ktop: .*[0-9] events\$" $out
else
	fail "probe: $TOOLS/probe_target is not built (make tools)"
fi

out=$tmp/lost
start_ktop $out -e raw_syscalls -b 8 --save-on 'lost > 100' --save-before 0.5 --save-after 0.1 \
	--save-max 1 -o "$tmp/lost-%n.ktop"
timeout 2 taskset -c "$(($(nproc) - 1))" dd if=/dev/zero of=/dev/null bs=1 count=100000000 2>/dev/null
wait_for $out '^saved ' 10
stop_ktop "lost"
check "lost: a file when more than 100 events were lost at once" [ -f "$tmp/lost-1.ktop" ]
check "lost: its line says what was lost in its window" grep -q '^saved .*lost-1.ktop: lost > 100 at .*events lost in the window' $out

out=$tmp/bpf
start_ktop $out --save-on 'runq-p99 > 1us' --save-before 0.5 --save-after 0.1 --save-max 1 \
	-o "$tmp/bpf-%n.ktop"
wait_for $out '^save' 15
stop_ktop "bpf"
check "BPF: a file when the run-queue p99 passed 1 us" [ -f "$tmp/bpf-1.ktop" ]
check "BPF: what matched, in its line" grep -q '^saved .*bpf-1.ktop: runq-p99 > 1us at .*' $out
if [ -f "$tmp/bpf-1.ktop" ]; then
	$KTOP -i "$tmp/bpf-1.ktop" --batch > "$tmp/note" 2>&1
	check "BPF: the note names the statistic" grep -q 'Save note: match: runq-p99 > 1us at .*: runq-p99 .*us over the last' "$tmp/note"
fi

# ---- bad conditions: exit 2, the state as it was ------------------------------------------------
refuse() {
	local what=$1 pat=$2 rc
	shift 2
	timeout 30 $KTOP --batch "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 2 ]; then
		fail "$what: exit status $rc, want 2 ($(head -c 200 "$tmp/err"))"
	elif ! grep -qE -e "$pat" "$tmp/err"; then
		fail "$what: message does not match /$pat/: $(head -c 300 "$tmp/err")"
	else
		ok "$what: exit 2: $(head -n 1 "$tmp/err")"
	fi
	state_same "$what: tracing state unchanged" "$tmp/state"
}
refuse "no such event" "this kernel has no event sched:nosuch" --save-on 'sched:nosuch'
refuse "a field the event lacks" "has no field 'prev_state'.*\(at column 26\)" \
	--save-on 'sched:sched_process_exec prev_state & 2'
refuse "a string compared as a number" "'filename' is a string" \
	--save-on 'sched:sched_process_exec filename > 3'
refuse "bad syntax" "'fast' is not a duration" --save-on 'timerlat > fast'
refuse "a probe that cannot be made" "--probe '/bin/true:no_such_symbol_x'" \
	--save-on 'probe /bin/true:no_such_symbol_x'
refuse "a BPF statistic without BPF" "the BPF statistics are off" --no-bpf --save-on 'runq-p99 > 5ms'
refuse "the pattern: no %n or %t" "every save would get this one name" --save-on lost -o "$tmp/x.ktop"

state_same "after all of it: tracing state unchanged" "$tmp/state"
finish
