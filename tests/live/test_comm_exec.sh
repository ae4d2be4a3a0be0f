#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The comm table keeps a task's newest name by trace time, whichever CPU's
# reader decodes last (root): 20 times, a bash pinned to CPU 0 execs taskset,
# which moves to CPU 1 and execs nwrite there. CPU 0 then holds the pid's
# pre-exec events (bash, taskset), CPU 1 its post-exec ones (nwrite); a
# quiet CPU 0's reader may decode its page last. Every one of the 20 pids
# must be named nwrite in the saved trace text. Before the fix 17, 0 and 20
# of 20 were named taskset in three runs here. Needs 2 CPUs or more.

cd "$(dirname "$0")/../.." || exit 2
. tests/live/lib_ktop.sh
need tracestate nwrite

if [ "$(nproc)" -lt 2 ] || ! command -v taskset >/dev/null; then
	echo "ok skipped: needs 2 CPUs and taskset"
	finish
fi
NWRITE=$(readlink -f "$TOOLS/nwrite")
state_save "$tmp/state"
"$KTOP" --batch -b 4096 -e sched:sched_switch -e sched:sched_process_exec --duration 60 \
	-o "$tmp/t.txt" >"$tmp/out" 2>"$tmp/err" &
kpid=$!
if wait_for "$tmp/out" 'summary 1' 30; then
	for i in $(seq 1 20); do
		taskset -c 0 bash -c "echo \$\$ >>'$tmp/pids'; exec taskset -c 1 '$NWRITE' 200" \
			>/dev/null
	done
	sleep 1
fi
kill -INT "$kpid" 2>/dev/null
wait "$kpid"
rc=$?
check "ktop ends with status 0 (got $rc)" [ "$rc" -eq 0 ]
named=0
other=
for p in $(cat "$tmp/pids" 2>/dev/null); do
	c=$(grep -m1 -oE "[^ ]+-$p +\[[0-9]+\]" "$tmp/t.txt" | sed -E 's/-[0-9]+ +\[.*//')
	if [ "$c" = nwrite ]; then named=$((named + 1)); else other="$other $p:${c:-none}"; fi
done
if [ "$named" -eq 20 ]; then
	ok "20 of 20 exec'd pids named nwrite, their newest name"
else
	fail "$named of 20 exec'd pids named nwrite; the others:$other"
fi
no_instance "instance removed" "$kpid"
state_same "tracing state as before" "$tmp/state"
finish
