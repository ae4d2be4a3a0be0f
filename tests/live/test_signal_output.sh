#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A terminating signal ends ktop within a second whatever its output is doing
# (issue 14, finding 5): `ktop --stream` and `ktop --json --interval 0.02`
# writing into a pipe that nobody reads (`| sleep 30`; here a FIFO of one
# page, full at once) are blocked on a full pipe when SIGTERM or SIGHUP comes. Each must exit within 1 s with the status
# of a normal stop by that signal (0), its instance gone and the tracing state
# as before. A reader that keeps up still gets a whole stream after SIGTERM;
# one that reads, but too slowly for what is left, does not keep ktop either.
#
# Root, this host's kernel. Prints "ok NAME" / "FAIL NAME: why", then
# "N passed, N failed".

. "$(dirname "$0")/lib_ktop.sh"
need tracestate snapshot_tool

# ktop_of PATTERN: the newest process whose command line matches PATTERN,
# once its instance is there (10 s at most); its pid, empty if none
ktop_of() {
	local i pid
	for ((i = 0; i < 100; i++)); do
		pid=$(pgrep -n -f "$1")
		[ -n "$pid" ] && [ -d "$TRACEFS/instances/ktop-$pid" ] && break
		sleep 0.1
	done
	echo "$pid"
}

# signal_gone SIG PID: send SIG, wait up to 5 s for PID to end; sets $ms to
# the time it took and returns 1 (after a SIGKILL) if it did not end
signal_gone() {
	local t0 i
	t0=$(date +%s%N)
	kill -s "$1" "$2"
	for ((i = 0; i < 250; i++)); do
		kill -0 "$2" 2>/dev/null || break
		sleep 0.02
	done
	ms=$((($(date +%s%N) - t0) / 1000000))
	kill -0 "$2" 2>/dev/null || return 0
	kill -KILL "$2"
	return 1
}

# blocked NAME SIG ARGS...: ktop ARGS > a FIFO that a sleeping process holds
# open and never reads; send SIG once the pipe has long been full
blocked() {
	local name=$1 sig=$2 kpid spid rc
	shift 2
	state_save "$tmp/before"
	rm -f "$tmp/fifo"
	mkfifo "$tmp/fifo"
	# the reader never reads, and its pipe holds one page: full at once
	python3 -c '
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.fcntl(fd, 1031, 4096)	# F_SETPIPE_SZ
time.sleep(30)
' "$tmp/fifo" &
	spid=$!
	"$KTOP" "$@" >"$tmp/fifo" 2>"$tmp/err" &
	kpid=$!
	if [ "$(ktop_of "^$KTOP $*\$")" != "$kpid" ]; then
		fail "$name: instance ktop-$kpid never appeared: $(head -c 200 "$tmp/err")"
		kill -KILL "$kpid" "$spid" 2>/dev/null
		wait "$kpid" "$spid" 2>/dev/null
		return
	fi
	sleep 1.5
	if ! signal_gone "$sig" "$kpid"; then
		fail "$name: still running ${ms} ms after SIG$sig (blocked writing to a full pipe?)"
		wait "$kpid" 2>/dev/null
		no_instance "$name: instance removed (after SIGKILL)" "$kpid"
		# the next live ktop reaps it: do that now, for the next case
		timeout 20 "$KTOP" --batch --duration 0.2 >/dev/null 2>&1
		state_same "$name: tracing state restored (by the next ktop)" "$tmp/before"
	else
		wait "$kpid"
		rc=$?
		if [ "$ms" -gt 1000 ]; then
			fail "$name: ended ${ms} ms after SIG$sig, over 1 s"
		elif [ "$rc" -ne 0 ]; then
			fail "$name: exit status $rc after SIG$sig, want 0: $(head -c 200 "$tmp/err")"
		else
			ok "$name: ended ${ms} ms after SIG$sig, exit 0"
		fi
		no_instance "$name: instance removed" "$kpid"
		state_same "$name: tracing state restored" "$tmp/before"
	fi
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
}

for sig in TERM HUP; do
	blocked "ktop --stream | sleep 30, SIG$sig" "$sig" --stream
	blocked "ktop --json --interval 0.02 | sleep 60, SIG$sig" "$sig" --json --interval 0.02
done

# a reader that keeps up: SIGTERM ends the stream properly (end record), through a pipe
state_save "$tmp/before"
"$KTOP" --stream 2>"$tmp/err" | "$TOOLS/snapshot_tool" load - >"$tmp/load" 2>&1 &
kpid=$(ktop_of "^$KTOP --stream\$")
sleep 1.5
kill -TERM "$kpid"
wait
if grep -q '^events [1-9]' "$tmp/load"; then
	ok "ktop --stream | a reader, SIGTERM: a whole stream ($(cat "$tmp/load"))"
else
	fail "ktop --stream | a reader, SIGTERM: $(head -c 300 "$tmp/load") $(head -c 200 "$tmp/err")"
fi
no_instance "ktop --stream | a reader, SIGTERM: instance removed" "$kpid"
state_same "ktop --stream | a reader, SIGTERM: tracing state restored" "$tmp/before"

# a reader that is slow but keeps reading (a thin ssh link, 270 KB/s here,
# behind a stream of raw_syscalls under load, so the pipe is full when
# SIGTERM comes and seconds of data are waiting): ktop still ends within 1 s
state_save "$tmp/before"
timeout 6 dd if=/dev/zero of=/dev/null bs=1 2>/dev/null &
ddpid=$!
"$KTOP" --stream -e raw_syscalls 2>"$tmp/err" | python3 -c '
import sys, time
o = open(sys.argv[1], "wb")
while True:
    b = sys.stdin.buffer.read1(8192)
    if not b:
        break
    o.write(b)
    time.sleep(0.03)
' "$tmp/slow.ktop" &
kpid=$(ktop_of "^$KTOP --stream -e raw_syscalls\$")
sleep 2
name="ktop --stream | a slow reader, SIGTERM"
if ! signal_gone TERM "$kpid"; then
	fail "$name: still running ${ms} ms after SIGTERM"
	kill "$ddpid" 2>/dev/null
	wait
	no_instance "$name: instance removed (after SIGKILL)" "$kpid"
	timeout 20 "$KTOP" --batch --duration 0.2 >/dev/null 2>&1	# reaps it
else
	check "$name: ended ${ms} ms after SIGTERM" test "$ms" -le 1000
	kill "$ddpid" 2>/dev/null
	wait
	no_instance "$name: instance removed" "$kpid"
fi
state_same "$name: tracing state restored" "$tmp/before"

finish
