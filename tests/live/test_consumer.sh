#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Live, as root: the consumer (src/ingest/consumer.c, one thread per CPU reading
# trace_pipe_raw) and the session's filters, through build/tools/session_drive:
#   - a child making N one-byte reads and writes shows at least 2N sys_enter
#     events for its pid (-P), and not wildly more;
#   - ktop's own threads are kept out of the trace (set_event_notrace_pid +
#     event-fork): without that, reading feeds itself;
#   - with a tiny buffer under load, lost events are counted, and the count
#     from the pages' missed-event marks equals per_cpu/cpuN/stats overrun;
#   - -C 1 records on CPU 1 only;
#   - idle, the consumer threads use well under 1% of a core.
#
# Prints "ok NAME" / "FAIL NAME: evidence", then "N passed, N failed".

cd "$(dirname "$0")/../.." || exit 1
# the tools, $TMP, ok/bad, the root and tools checks, wait_ready
. tests/live/lib_state.sh

# field NAME FILE: the number after NAME on the last line of FILE
field() { tail -1 "$2" | tr ' ' '\n' | grep -A1 -x "$1" | tail -1; }

# 1. a known workload under -P
N=20000
mkfifo "$TMP/go"
sh -c "read x < '$TMP/go'; exec dd if=/dev/zero of=/dev/null bs=1 count=$N" 2>/dev/null &
child=$!
$DRIVE -e raw_syscalls:sys_enter -P $child -b 8192 -d 3 > "$TMP/out" 2> "$TMP/err" &
drv=$!
if wait_ready "$TMP/out"; then
	echo go > "$TMP/go"
	wait $child
	wait $drv
	got=$(field pids "$TMP/out")
	lost=$(field lost "$TMP/out")
	other=$(( $(field events "$TMP/out") - got ))
	if [ "$lost" != 0 ]; then
		bad consumer_pid_events "lost $lost events with an 8 MB buffer: $(tail -1 "$TMP/out")"
	elif [ "$got" -lt $((2 * N)) ] || [ "$got" -gt $((2 * N + 1000)) ]; then
		bad consumer_pid_events "dd made $N reads + $N writes, saw $got sys_enter for pid $child"
	elif [ "$other" -gt 100 ]; then
		bad consumer_pid_events "$other events of other pids despite -P $child"
	else
		ok "consumer_pid_events ($got sys_enter for $N+$N syscalls of pid $child, $other others)"
	fi
else
	kill $child $drv 2>/dev/null
	bad consumer_pid_events "not ready: $(cat "$TMP/err")"
fi

# 2. self exclusion: the same session with and without it
$DRIVE -e sched -e raw_syscalls -d 2 > "$TMP/on" 2> "$TMP/err"
$DRIVE -n -e sched -e raw_syscalls -d 2 > "$TMP/off" 2>> "$TMP/err"
on=$(field self "$TMP/on")
off=$(field self "$TMP/off")
if [ -z "$on" ] || [ -z "$off" ]; then
	bad consumer_self_excluded "no figures: $(cat "$TMP/err")"
# (the floor only makes sure there is something to compare: on a quiet
# machine the readers' own syscalls come to ~1000 in 2 s, seen as low as 950)
elif [ $((on * 10)) -ge "$off" ] || [ "$off" -lt 200 ]; then
	bad consumer_self_excluded "own events: $on excluded vs $off not excluded"
else
	ok "consumer_self_excluded (own threads' events in 2 s: $on excluded, $off not)"
fi

# 3. lost events under load with a tiny buffer
$DRIVE -e raw_syscalls -b 8 -d 2.5 > "$TMP/out" 2> "$TMP/err" &
drv=$!
if wait_ready "$TMP/out"; then
	taskset -c 1 timeout 1 dd if=/dev/zero of=/dev/null bs=1 2>/dev/null
	wait $drv
	lost=$(field lost "$TMP/out")
	over=$(field overrun "$TMP/out")
	if [ "$over" -eq 0 ]; then
		bad consumer_lost "no overrun with an 8 KB buffer under dd bs=1: $(tail -1 "$TMP/out")"
	elif [ "$lost" -ne "$over" ]; then
		bad consumer_lost "missed-event marks say $lost, per_cpu stats overrun $over"
	else
		ok "consumer_lost (8 KB buffer under dd bs=1: $lost lost = stats overrun)"
	fi
else
	kill $drv 2>/dev/null
	bad consumer_lost "not ready: $(cat "$TMP/err")"
fi

# 4. -C 1: CPU 1 only (needs 2 CPUs)
if [ -d /sys/kernel/tracing/per_cpu/cpu1 ]; then
	$DRIVE -e sched -e raw_syscalls -C 1 -d 1 > "$TMP/out" 2> "$TMP/err"
	c0=$(grep '^cpu0 ' "$TMP/out" | awk '{print $3}')
	c1=$(grep '^cpu1 ' "$TMP/out" | awk '{print $3}')
	if [ "${c0:-x}" = 0 ] && [ "${c1:-0}" -gt 0 ]; then
		ok "consumer_cpu_filter (-C 1: cpu0 $c0 events, cpu1 $c1)"
	else
		bad consumer_cpu_filter "-C 1: cpu0 ${c0:-?} events, cpu1 ${c1:-?}: $(cat "$TMP/err")"
	fi
fi

# 5. idle cost: an event that does not fire (hung tasks), CPU time of the ktop-cpuN threads over 5 s
$DRIVE -e sched:sched_process_hang -d 7 > "$TMP/out" 2> "$TMP/err" &
drv=$!
if wait_ready "$TMP/out"; then
	sleep 0.5
	t0=$(cat /proc/$drv/task/*/schedstat 2>/dev/null | awk '{s += $1} END {print s}')
	sleep 5
	t1=$(cat /proc/$drv/task/*/schedstat 2>/dev/null | awk '{s += $1} END {print s}')
	wait $drv
	# whole process, all threads, in per mille of one core
	pm=$(( (t1 - t0) / 5000000 ))
	if [ "$pm" -lt 10 ]; then
		ok "consumer_idle_cpu ($(( (t1 - t0) / 1000 )) us of CPU in 5 s, all threads: < 1%)"
	else
		bad consumer_idle_cpu "$pm per mille of a core while idle"
	fi
else
	kill $drv 2>/dev/null
	bad consumer_idle_cpu "not ready: $(cat "$TMP/err")"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
