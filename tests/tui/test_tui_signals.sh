#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Leaving the interactive view by signals: SIGHUP to ktop (an ssh link
# dropped), killing the tmux session (the terminal goes away: SIGHUP to the
# pane), SIGTERM and SIGINT. Each time ktop exits, its instance is gone and
# the kernel's tracing state is exactly as before.
cd "$(dirname "$0")/../.." || exit 2
. tests/tui/lib_tui.sh
need

state_save "$tmp/before.state"

# run_and_signal NAME HOW: start ktop, wait for live numbers, end it by HOW
run_and_signal() {
	local name=$1 how=$2 pid
	tui_start 100 30
	if ! wait_screen 'events/s [0-9]' 20; then
		fail "$name: ktop did not start"; evidence start; cat "$tmp/stderr"
		tui_stop
		return
	fi
	pid=$(ktop_pid)
	if [ -z "$pid" ]; then
		fail "$name: no ktop process in the pane"
		return
	fi
	case $how in
	hup)	kill -HUP "$pid" ;;
	term)	kill -TERM "$pid" ;;
	int)	keys C-c ;;
	segv)	kill -SEGV "$pid" ;;
	session) tmux -L "$SOCK" kill-server ;;
	esac
	if ! wait_exit "$pid" 10; then
		fail "$name: ktop $pid still running 10 s after the signal"
		kill -KILL "$pid" 2>/dev/null
		return
	fi
	if [ -e "$TRACEFS/instances/ktop-$pid" ]; then
		fail "$name: instance ktop-$pid left behind"
	else
		ok "$name: ktop exited, instance removed"
	fi
	if [ "$how" != session ]; then
		# the shell after ktop writes it whole and renames it into place (lib_tui.sh)
		for ((i = 0; i < 50; i++)); do [ -s "$tmp/stty" ] && break; sleep 0.1; done
		if grep -Eq '(^| )icanon' "$tmp/stty" && grep -Eq '(^| )echo ' "$tmp/stty"; then
			ok "$name: terminal restored ($(cat "$tmp/exit"))"
		else
			fail "$name: terminal not restored: $(grep -Eo -- '-?icanon|-?echo ' "$tmp/stty" | tr '\n' ' ')"
		fi
	fi
	tui_stop
	state_same "$name: tracing state as before" "$tmp/before.state"
}

run_and_signal sighup hup
run_and_signal tmux_session_killed session
run_and_signal sigterm term
run_and_signal ctrl_c int
# a crash: the fatal-signal path restores the terminal, then the kernel state
run_and_signal sigsegv segv
finish
