#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ktop's own CPU use in the interactive view at the default refresh, over
# 10 s, in a tmux terminal: the UI (its thread and its statistics helper
# thread) and the whole process (with the collectors). Target: < 1% of a core for the UI. Anchor, same run: procps
# top at a 1 s refresh in the same kind of terminal.
#
#   bench ui.idle_cpu_ui V %  / ui.idle_cpu_process V %   (a trace with almost no events)
#   bench ui.busy_cpu_ui V %  / ui.busy_cpu_process V %   (the default events, this host)
#   bench ui.idle_cpu_ui.anchor V % (top -d 1)
cd "$(dirname "$0")/../.." || exit 2
export LC_ALL=C.UTF-8
KTOP=${KTOP:-./ktop}
SECS=${UI_IDLE_SECS:-10}
SOCK=ktop-bench-idle-$$
tmp=$(mktemp -d /tmp/ktop-bench-idle.XXXXXX)
trap 'tmux -L $SOCK kill-server 2>/dev/null; rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"; rm -rf "$tmp"' EXIT

[ "$(id -u)" = 0 ] || { echo "bench ui.idle_cpu: needs root" >&2; exit 1; }
command -v tmux >/dev/null || { echo "bench ui.idle_cpu: tmux missing (make deps)" >&2; exit 1; }

HZ=$(getconf CLK_TCK)
ticks() {	# /proc/.../stat -> utime + stime
	awk '{ sub(/.*\) /, ""); print $12 + $13 }' "$1" 2>/dev/null
}

# cpu_pct PID STATFILE: % of one core used over SECS
cpu_pct() {
	local a b
	a=$(ticks "$2")
	sleep "$SECS"
	b=$(ticks "$2")
	awk -v a="$a" -v b="$b" -v hz="$HZ" -v s="$SECS" 'BEGIN { printf "%.2f", (b - a) * 100 / hz / s }'
}

# run_ktop SESSION ARGS...: start ktop, measure; sets ui, proc, rate
run_ktop() {
	local s=$1 sh pid a b
	shift
	tmux -L $SOCK -f /dev/null new-session -d -s "$s" -x 120 -y 40 \
		"XDG_CONFIG_HOME=$tmp $KTOP $* 2>$tmp/err; sleep 60"
	for ((i = 0; i < 400; i++)); do
		tmux -L $SOCK capture-pane -p -t "$s" | grep -q 'events/s [0-9]' && break
		sleep 0.05
	done
	sh=$(tmux -L $SOCK display-message -p -t "$s" '#{pane_pid}')
	pid=$(pgrep -P "$sh" -x ktop)
	[ -n "$pid" ] || { echo "bench ui.idle_cpu: ktop did not start: $(cat $tmp/err)" >&2; exit 1; }
	sleep 2
	# the UI: its main thread plus its statistics helper (ktop-ui-stats)
	helper=$(grep -l '^ktop-ui-stats$' /proc/$pid/task/*/comm 2>/dev/null | head -1)
	helper=${helper%/comm}
	a=$(ticks /proc/$pid/stat)
	h0=$(ticks "$helper/stat")
	ui=$(cpu_pct "$pid" /proc/$pid/task/$pid/stat)
	h1=$(ticks "$helper/stat")
	b=$(ticks /proc/$pid/stat)
	ui=$(awk -v u="$ui" -v a="${h0:-0}" -v b="${h1:-0}" -v hz="$HZ" -v s="$SECS" 'BEGIN { printf "%.2f", u + (b - a) * 100 / hz / s }')
	proc=$(awk -v a="$a" -v b="$b" -v hz="$HZ" -v s="$SECS" 'BEGIN { printf "%.2f", (b - a) * 100 / hz / s }')
	rate=$(tmux -L $SOCK capture-pane -p -t "$s" | grep -Eo 'events/s [0-9.]+[kMG]?' | head -1)
	tmux -L $SOCK send-keys -t "$s" q
}

# an almost idle trace: only exec events (the machine itself is shared and busy)
run_ktop q -e sched:sched_process_exec
qui=$ui qproc=$proc qrate=$rate
# the default view: sched, irq and syscall events of whatever runs here
run_ktop k

tmux -L $SOCK -f /dev/null new-session -d -s a -x 120 -y 40 "top -d 1"
sleep 1
tpid=$(pgrep -P "$(tmux -L $SOCK display-message -p -t a '#{pane_pid}')" -x top || pgrep -n -x top)
anchor=$(cpu_pct "$tpid" /proc/$tpid/stat)

echo "bench ui.idle_cpu_ui $qui % (-e sched:sched_process_exec, $qrate)"
echo "bench ui.idle_cpu_process $qproc % (UI plus collector threads, $qrate)"
echo "bench ui.busy_cpu_ui $ui % (default events, $rate from other work on this machine)"
echo "bench ui.busy_cpu_process $proc % (same)"
echo "bench ui.idle_cpu_ui.anchor $anchor % (procps top -d 1 in the same terminal)"
