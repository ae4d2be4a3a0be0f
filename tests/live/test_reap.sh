#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Live, as root: after a ktop is killed with SIGKILL (no handler runs), the
# next start removes its stale ktop-<pid> instance and puts back the top-level
# state it had saved; it leaves alone the instances of ktops still running.
# Run with build/tools/session_drive, and with ./ktop --batch when it runs;
# ktop --features and ktop -i FILE reap too, and say so.
#
# Prints "ok NAME" / "FAIL NAME: evidence", then "N passed, N failed".

cd "$(dirname "$0")/../.." || exit 1
. tests/live/lib_state.sh
# tracestate -x hides instances of live pids: list them all here
instances() { ls $T/instances | grep '^ktop-' | tr '\n' ' '; }

# start_killed OUTVAR [env...]: start session_drive, wait until ready, SIGKILL it
start_killed() {
	"$@" $DRIVE -e sched -e irq > "$TMP/out" 2> "$TMP/err" &
	pid=$!
	if ! wait_ready "$TMP/out"; then
		kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
		return 1
	fi
	sleep 0.2
	kill -9 $pid
	wait $pid 2>/dev/null
	return 0
}

top_claim_or_fail

# 1. instance left by SIGKILL, reaped by the next start
snap "$TMP/before"
if ! start_killed env; then
	bad reap_instance "session_drive not ready: $(cat "$TMP/err")"
elif ! [ -d $T/instances/ktop-$pid ]; then
	bad reap_instance "SIGKILL left no instance ktop-$pid: nothing to reap, test is void"
else
	$DRIVE -e sched -d 0.2 > "$TMP/out2" 2> "$TMP/err2"
	if [ -d $T/instances/ktop-$pid ]; then
		bad reap_instance "ktop-$pid still there after the next start ($(cat "$TMP/err2"))"
	else
		snap "$TMP/after"
		if diff "$TMP/before" "$TMP/after" > "$TMP/diff"; then
			ok "reap_instance (ktop-$pid: $(cat "$TMP/err2"))"
		else
			bad reap_instance "state differs: $(head -5 "$TMP/diff" | tr '\n' ' ')"
		fi
	fi
fi

# 2. top level taken over, SIGKILL, the next start restores it from /run/ktop,
# and the events the dead session left in the top-level buffer are gone (the
# reap clears them; putting back trace_clock clears them too)
snap "$TMP/before"
if ! start_killed env KTOP_TEST_TOP_LEVEL=1; then
	bad reap_top "session_drive not ready: $(cat "$TMP/err")"
else
	state=$(ls /run/ktop/toplevel-$pid.state /tmp/ktop/toplevel-$pid.state 2>/dev/null)
	snap "$TMP/killed"
	# its events stay enabled after SIGKILL: the buffer keeps filling until the reap
	sleep 0.1
	left=$(top_entries)
	if [ -z "$state" ]; then
		bad reap_top "no saved state file for pid $pid"
	elif diff -q "$TMP/before" "$TMP/killed" > /dev/null; then
		bad reap_top "top level unchanged after SIGKILL: the test is void"
	else
		$DRIVE -e sched -d 0.2 > "$TMP/out2" 2> "$TMP/err2"
		if [ -e "$state" ]; then
			bad reap_top "$state still there after the next start"
		elif same_top reap_top "$TMP/before"; then
			ok "reap_top (changed: $(diff "$TMP/before" "$TMP/killed" | grep -c '^>') entries, all restored)"
		fi
		held=$(top_entries)
		if [ "$left" = 0 ]; then
			bad reap_top_buffer "the killed session left no events in the buffer: the check is void"
		elif [ "$held" = 0 ]; then
			ok "reap_top_buffer (the dead session's $left unread events cleared with its state)"
		else
			bad reap_top_buffer "$held events left in the top-level buffer after the reap"
		fi
	fi
fi

# 2b. the same, but another tool took the top level over after the kill: the
# next start must leave that tool's setup alone (and say so)
snap "$TMP/before"
$TS --save "$TMP/before.state"
if ! start_killed env KTOP_TEST_TOP_LEVEL=1; then
	bad reap_top_taken_over "session_drive not ready: $(cat "$TMP/err")"
else
	echo 'irq:irq_handler_entry' > $T/set_event	# "another tool"
	$DRIVE -e sched -d 0.2 > "$TMP/out2" 2> "$TMP/err2"
	ev=$(cat $T/set_event)
	if [ "$ev" != "irq:irq_handler_entry" ]; then
		bad reap_top_taken_over "the other tool's set_event became '$ev'"
	elif ! grep -q "top level was changed after ktop $pid died" "$TMP/err2"; then
		bad reap_top_taken_over "no warning: $(cat "$TMP/err2")"
	elif ls /run/ktop/toplevel-$pid.* /tmp/ktop/toplevel-$pid.* 2>/dev/null | grep -q .; then
		bad reap_top_taken_over "files of $pid left in /run/ktop"
	else
		ok "reap_top_taken_over (left alone, warned)"
	fi
	# put back what the killed ktop and "the other tool" changed; the events they
	# left in the top-level buffer are this test's (top_claim_or_fail found it empty)
	$TS --restore "$TMP/before.state"
	: > $T/trace
	same_top reap_top_taken_over_cleanup "$TMP/before"
fi

# 3. a running ktop's instance is not reaped by another start
$DRIVE -e sched > "$TMP/out" 2> "$TMP/err" &
live=$!
if ! wait_ready "$TMP/out"; then
	bad reap_spares_live "session_drive not ready: $(cat "$TMP/err")"
else
	$DRIVE -e irq -d 0.2 > "$TMP/out2" 2> "$TMP/err2"
	if [ -d $T/instances/ktop-$live ]; then
		ok "reap_spares_live (ktop-$live kept while its process runs)"
	else
		bad reap_spares_live "ktop-$live removed while running"
	fi
fi
kill -TERM $live 2>/dev/null
wait $live 2>/dev/null

# 4. leftovers without a lock file: a dead pid, and a live pid that is not a ktop
dead=$(sh -c 'echo $$')
sleep 30 &
notktop=$!
mkdir $T/instances/ktop-$dead $T/instances/ktop-probe-$dead $T/instances/ktop-$notktop
$DRIVE -e sched -d 0.1 > "$TMP/out2" 2> "$TMP/err2"
left=$(ls $T/instances | grep -E "^ktop-(probe-)?($dead|$notktop)\$" | tr '\n' ' ')
if [ -n "$left" ]; then
	bad reap_nolock "left: $left"
	for i in $left; do rmdir $T/instances/$i; done
else
	ok "reap_nolock (ktop-$dead, ktop-probe-$dead, ktop-$notktop of 'sleep')"
fi
kill $notktop 2>/dev/null
wait $notktop 2>/dev/null

# 5. the real program, when it builds and runs here: what a SIGKILLed ktop
# left is removed by the next live start, and by --features and -i FILE too
# (as root), which say so on stderr

# ktop_killed: start ktop --batch, wait for its instance, SIGKILL it (pid in
# $pid). Return: 1 when it left no instance (the case would be void)
ktop_killed() {
	$KTOP --batch --interval 0.2 > /dev/null 2>&1 &
	pid=$!
	i=0
	while [ $i -lt 100 ] && ! [ -d $T/instances/ktop-$pid ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 0.3
	kill -9 $pid
	wait $pid 2>/dev/null
	[ -d $T/instances/ktop-$pid ]
}

# ktop_reaps NAME CMD...: after a SIGKILLed ktop, CMD removes its instance,
# and the state is as before
ktop_reaps() {
	name=$1
	shift
	snap "$TMP/before"
	if ! ktop_killed; then
		bad $name "SIGKILLed ktop left no instance ktop-$pid: the test is void"
		return
	fi
	"$@" > /dev/null 2> "$TMP/kerr"
	snap "$TMP/after"
	if [ -d $T/instances/ktop-$pid ]; then
		bad $name "ktop-$pid still there after $*"
	elif ! diff "$TMP/before" "$TMP/after" > "$TMP/diff"; then
		bad $name "state differs: $(head -5 "$TMP/diff" | tr '\n' ' ')"
	elif [ "$1" = "$KTOP" ] && [ "$2" != --batch ] &&
	     ! grep -q 'cleaned up 1 leftover of killed ktop sessions' "$TMP/kerr"; then
		bad $name "ktop-$pid removed, but not said: $(head -c 200 "$TMP/kerr")"
	else
		ok "$name (ktop-$pid$(sed -n 's/^ktop: cleaned up/: cleaned up/p' "$TMP/kerr"))"
	fi
}

if [ -x $KTOP ] && $KTOP --batch --duration 1 > /dev/null 2>&1; then
	ktop_reaps ktop_reap $KTOP --batch --duration 1
	ktop_reaps ktop_reap_features $KTOP --features
	ktop_reaps ktop_reap_offline $KTOP -i tests/fixtures/demo.ktop --batch
else
	echo "# ./ktop --batch not runnable here; only session_drive cases ran"
fi

# a save cut by a SIGKILL between its write and its rename leaves NAME.tmp in
# ktop's run directory: the next reap removes those of dead ktops only
run=$(ls -d /run/ktop 2>/dev/null)
if [ -n "$run" ] && [ -x $KTOP ]; then
	sleep 30 & dead=$!; kill -9 $dead; wait $dead 2>/dev/null	# a pid no one has
	echo x > "$run/toplevel-$dead.ours.tmp"
	echo x > "$run/global-$dead.state.tmp"
	$KTOP --features > /dev/null 2>&1
	if [ -e "$run/toplevel-$dead.ours.tmp" ] || [ -e "$run/global-$dead.state.tmp" ]; then
		bad reap_tmp "a dead pid's unfinished saves are still in $run: $(ls "$run" | tr '\n' ' ')"
	else
		ok "reap_tmp (a dead ktop's unfinished saves in $run removed)"
	fi
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
