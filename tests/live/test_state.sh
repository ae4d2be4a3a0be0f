#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Live, as root: the kernel's tracing state (tracing_on, current_tracer,
# set_event and every events/*/*/enable, buffer sizes, options, pid filters,
# cpumask, clock, ktop instances) is identical before and after each way ktop
# can end: normal exit, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE and a fatal
# signal (SIGSEGV). Each case is run with build/tools/session_drive (the
# session and consumer modules alone), in an instance and at top level
# (KTOP_TEST_TOP_LEVEL=1), and with ./ktop --batch when it runs.
#
# While each case runs, the test checks the session really changed the
# kernel (instance present, events enabled), so an exit path that did
# nothing cannot pass by accident.
#
# Prints "ok NAME" / "FAIL NAME: evidence", then "N passed, N failed".

cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib_state.sh

# same NAME [top]: compare $TMP/before with now, raw; "top": after a session at
# the top level, which may allocate the top-level buffer (same_top)
same() {
	[ "${2:-}" = top ] && { same_top "$1" "$TMP/before"; return; }
	snap "$TMP/after"
	if diff "$TMP/before" "$TMP/after" > "$TMP/diff"; then
		return 0
	fi
	bad "$1" "state differs: $(head -5 "$TMP/diff" | tr '\n' ' ')"
	return 1
}

# active NAME PID TOP: the session is really there (instance or top level)
active() {
	if [ "$3" = top ]; then
		ev=$(cat $T/set_event)
		[ -n "$ev" ] || { bad "$1" "top-level session but top set_event is empty"; return 1; }
	else
		d=$T/instances/ktop-$2
		[ -d "$d" ] || { bad "$1" "instance ktop-$2 not present while running"; return 1; }
		# tracing_on is not checked: a concurrent `trace-cmd record` turns it
		# off in every instance (tracecmd_disable_all_tracing)
		[ -n "$(cat $d/set_event)" ] || { bad "$1" "ktop-$2 has no event enabled"; return 1; }
	fi
	return 0
}

# drive_signal NAME SIG TOP(top|inst): start, check active, send SIG, compare
drive_signal() {
	name=$1 sig=$2 top=$3
	snap "$TMP/before"
	if [ "$top" = top ]; then
		KTOP_TEST_TOP_LEVEL=1 $DRIVE -e sched -e irq > "$TMP/out" 2> "$TMP/err" &
	else
		$DRIVE -e sched -e irq > "$TMP/out" 2> "$TMP/err" &
	fi
	pid=$!
	if ! wait_ready "$TMP/out"; then
		kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
		bad "$name" "not ready: $(cat "$TMP/err")"
		return
	fi
	sleep 0.3
	active "$name" $pid $top || { kill -TERM $pid; wait $pid 2>/dev/null; return; }
	kill -s $sig $pid
	wait $pid
	rc=$?
	[ -d $T/instances/ktop-$pid ] && { bad "$name" "instance ktop-$pid left (rc $rc)"; return; }
	same "$name" $top || return
	ok "$name (exit $rc)"
}

top_claim_or_fail

# 1. normal exit (duration), instance and top level
snap "$TMP/before"
$DRIVE -e sched -e irq -d 1 > "$TMP/out" 2> "$TMP/err"
rc=$?
if [ $rc -ne 0 ] || ! grep -q '^ready ktop-' "$TMP/out"; then
	bad drive_exit "rc $rc: $(cat "$TMP/err")"
elif ! grep -Eq '^events [1-9]' "$TMP/out"; then
	bad drive_exit "no event read: $(tail -1 "$TMP/out")"
else
	same drive_exit && ok "drive_exit ($(tail -1 "$TMP/out"))"
fi

snap "$TMP/before"
KTOP_TEST_TOP_LEVEL=1 $DRIVE -e sched -e irq -b 2048 -d 1 > "$TMP/out" 2> "$TMP/err"
rc=$?
if [ $rc -ne 0 ] || ! grep -q '^ready (top level)' "$TMP/out"; then
	bad drive_exit_top "rc $rc: $(cat "$TMP/out" "$TMP/err")"
else
	same drive_exit_top top && ok "drive_exit_top ($(tail -1 "$TMP/out"))"
fi

# 2. terminating signals
for sig in INT TERM HUP QUIT PIPE; do
	drive_signal "drive_SIG$sig" $sig inst
done
for sig in INT TERM HUP; do
	drive_signal "drive_top_SIG$sig" $sig top
done

# 3. a fatal signal: the handler restores best-effort, then dies of it
for top in inst top; do
	name=drive_SIGSEGV_$top
	snap "$TMP/before"
	if [ $top = top ]; then
		KTOP_TEST_TOP_LEVEL=1 $DRIVE -e sched -S > "$TMP/out" 2> "$TMP/err" &
	else
		$DRIVE -e sched -S > "$TMP/out" 2> "$TMP/err" &
	fi
	pid=$!
	wait $pid 2>/dev/null
	rc=$?
	if [ $rc -ne 139 ]; then
		bad $name "expected death by SIGSEGV (139), got $rc"
	elif [ -d $T/instances/ktop-$pid ]; then
		# the fatal path could not rmdir: say so, then clean for the next cases
		bad $name "instance ktop-$pid left"
		$DRIVE -e sched -d 0.1 > /dev/null 2>&1
	else
		same $name $top && ok "$name (exit $rc)"
	fi
done

# 3b. a busy top level: refused without --force; with it, taken over and put back
# exactly (two events, a pid filter and a buffer size set by "another tool")
name=drive_top_busy
echo 'sched:sched_switch irq:irq_handler_entry' > $T/set_event
echo 1 > $T/set_event_pid
snap "$TMP/before"
KTOP_TEST_TOP_LEVEL=1 $DRIVE -e raw_syscalls -d 0.5 > "$TMP/out" 2> "$TMP/err"
rc=$?
if [ $rc -ne 2 ] || ! grep -q 'events are enabled at the top level' "$TMP/err"; then
	bad $name "not refused: rc $rc: $(cat "$TMP/err")"
elif same $name; then
	KTOP_TEST_TOP_LEVEL=1 $DRIVE -F -e raw_syscalls -b 1024 > "$TMP/out" 2> "$TMP/err" &
	pid=$!
	if wait_ready "$TMP/out" && sleep 0.3 &&
	   [ "$(cat $T/set_event)" = "raw_syscalls:sys_exit
raw_syscalls:sys_enter" ] || [ "$(cat $T/set_event)" = "raw_syscalls:sys_enter
raw_syscalls:sys_exit" ]; then
		kill -TERM $pid
		wait $pid
		same $name && ok "$name (refused, then --force: set_event back to $(cat $T/set_event | tr '\n' ' '))"
	else
		bad $name "with --force: top set_event is '$(cat $T/set_event | tr '\n' ' ')'"
		kill -TERM $pid
		wait $pid
	fi
fi
echo > $T/set_event
echo > $T/set_event_pid

# 3c. two ktops at the top level: the second is refused even with --force (it
# would save the first's settings as "before" and leave them behind), and
# when the first ends the top level is as before both
name=drive_top_twice
snap "$TMP/before"
KTOP_TEST_TOP_LEVEL=1 $DRIVE -e raw_syscalls -d 3 > "$TMP/out" 2> "$TMP/err" &
pid=$!
if wait_ready "$TMP/out"; then
	KTOP_TEST_TOP_LEVEL=1 $DRIVE -F -e sched -d 0.5 > "$TMP/out2" 2> "$TMP/err2"
	rc=$?
	wait $pid
	if [ $rc -ne 2 ] || ! grep -q "ktop $pid traces at the top level" "$TMP/err2"; then
		bad $name "the second top-level session was not refused: rc $rc: $(cat "$TMP/err2")"
	else
		same $name top && ok "$name (the second refused: $(head -c 100 "$TMP/err2")...)"
	fi
else
	bad $name "the first top-level session did not start: $(cat "$TMP/err")"
	wait $pid
fi

# 4. a refused session leaves nothing behind
snap "$TMP/before"
$DRIVE -e sched -e nosuchsys:nosuchevent -d 1 > "$TMP/out" 2> "$TMP/err"
rc=$?
if [ $rc -ne 2 ] || ! grep -q "unknown event 'nosuchsys:nosuchevent'" "$TMP/err"; then
	bad drive_bad_event "rc $rc: $(cat "$TMP/err")"
else
	same drive_bad_event && ok "drive_bad_event ($(cat "$TMP/err"))"
fi
snap "$TMP/before"
KTOP_TEST_TOP_LEVEL=1 $DRIVE -e sched -e nosuchsys:nosuchevent -d 1 > "$TMP/out" 2> "$TMP/err"
rc=$?
if [ $rc -ne 2 ]; then
	bad drive_bad_event_top "rc $rc: $(cat "$TMP/err")"
else
	same drive_bad_event_top top && ok "drive_bad_event_top"
fi
if grep -qw function $T/available_tracers; then
	snap "$TMP/before"
	$DRIVE -p function -d 1 > "$TMP/out" 2> "$TMP/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q "tracer 'function'" "$TMP/err"; then
		same drive_refused_tracer && ok "drive_refused_tracer ($(cat "$TMP/err" | cut -c1-80)...)"
	elif [ $rc -eq 0 ]; then
		same drive_refused_tracer && ok "drive_refused_tracer (function permitted here)"
	else
		bad drive_refused_tracer "rc $rc: $(cat "$TMP/err")"
	fi
fi

# 5. the real program, when it builds and runs here
if [ -x $KTOP ] && $KTOP --batch --duration 1 > "$TMP/kout" 2> "$TMP/kerr"; then
	snap "$TMP/before"
	$KTOP --batch --duration 2 > "$TMP/kout" 2> "$TMP/kerr"
	rc=$?
	if [ $rc -ne 0 ]; then
		bad ktop_batch_exit "rc $rc: $(head -3 "$TMP/kerr")"
	else
		same ktop_batch_exit && ok "ktop_batch_exit"
	fi
	for sig in INT TERM HUP; do
		name=ktop_SIG$sig
		snap "$TMP/before"
		$KTOP --batch --interval 0.2 > "$TMP/kout" 2> "$TMP/kerr" &
		pid=$!
		i=0
		while [ $i -lt 100 ] && ! [ -d $T/instances/ktop-$pid ]; do
			sleep 0.1
			i=$((i + 1))
		done
		sleep 0.5
		if ! [ -d $T/instances/ktop-$pid ]; then
			kill -9 $pid 2>/dev/null
			wait $pid 2>/dev/null
			bad $name "instance ktop-$pid never appeared: $(head -3 "$TMP/kerr")"
			continue
		fi
		kill -s $sig $pid
		wait $pid
		rc=$?
		same $name && ok "$name (exit $rc)"
	done
	name=ktop_SIGPIPE
	snap "$TMP/before"
	$KTOP --batch --interval 0.2 2> "$TMP/kerr" | head -1 > "$TMP/kout"
	if [ ! -s "$TMP/kout" ]; then
		bad $name "no output before the pipe closed: $(head -3 "$TMP/kerr")"
	else
		same $name && ok "$name"
	fi
else
	echo "# ./ktop --batch not runnable here; only session_drive cases ran"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
