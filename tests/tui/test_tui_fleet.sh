#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The fleet pane (0) under tmux: ktop --pcp over two private pmcds (one
# reached as localhost, one as 127.0.0.1, each with ktop --pmda as its
# agent, tests/live/lib_pcp.sh) shows a row per host with rates; Enter shows
# the selected host's CPUs and Backspace hides them; F6 sorts; a pmcd that
# stops turns its row to down while the other stays up; 1 and 0 move between
# panes; q quits with status 0.
cd "$(dirname "$0")/../.." || exit 1
. tests/tui/lib_tui.sh
need
. tests/live/lib_pcp.sh
pcp_need
pids=()
trap 'for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done; wait 2>/dev/null; tui_cleanup' EXIT

p1=$(pcp_port)
pcp_start a "$p1" || { fail "pmcd a with ktop --pmda"; finish; }
p2=$(pcp_port)
[ "$p2" = "$p1" ] && p2=$((p1 + 1))
pcp_start b "$p2" || { fail "pmcd b with ktop --pmda"; finish; }
A=localhost:$p1
B=127.0.0.1:$p2

tui_start 160 32 --pcp "$A,$B"
if wait_screen "^$A +up +[0-9]+ " 10 && wait_screen "^$B +up +[0-9]+ " 5; then
	ok "the fleet pane shows both hosts up, with events/s"
else
	fail "the fleet pane shows both hosts up"; evidence "two hosts"
fi
check_tab() { scr | grep -Eq ' 0 Fleet( |$)' && scr | grep -q ' FLEET '; }
if check_tab; then ok "the tab reads 0 Fleet, the header FLEET"; else fail "tab 0 Fleet"; evidence tabs; fi
# the header is the fleet's, not the empty local session's (no held/store)
if wait_screen '^ ktop FLEET +pmcd, live +hosts 2 +up 2 +down 0 ' 3 &&
	wait_screen '^ events/s [0-9.]+[a-zA-Z]? +lost/s ' 3 && ! scr | grep -q ' held .* store '; then
	ok "the header counts the hosts up and down and sums their rates"
else
	fail "the fleet's header"; evidence header
fi

keys Enter
if wait_screen "^CPUs of ($A|$B)" 3 && wait_screen '^ +1 +[0-9]+ +[0-9]+ +[0-9.]+%' 3; then
	ok "Enter shows the selected host's CPUs with rates and flag shares"
else
	fail "Enter shows the host's CPUs"; evidence Enter
fi
keys BSpace
if wait_gone "^CPUs of" 3; then ok "Backspace hides the CPUs"; else fail "Backspace"; evidence BSpace; fi

keys F6
if wait_screen 'sorted by events/s' 3; then ok "F6 sorts by the next column"; else
	fail "F6 sorts"; evidence F6; fi

pcp_stop b
if wait_screen "^$B +down +pmcd does not answer" 8 && scr | grep -Eq "^$A +up +[0-9]+ "; then
	ok "a stopped pmcd's row turns down with why; the other stays up"
	if scr | grep -Eq '^ ktop FLEET .* hosts 2 +up 1 +down 1 '; then
		ok "the header counts the down host"
	else
		fail "the header counts the down host"; evidence header-down
	fi
else
	fail "down host"; evidence down
fi
if scr | grep -n -E "^($A|$B) " | head -2 | tail -1 | grep -q "$B"; then
	ok "the down host is listed after the up one"
else
	fail "down hosts last"; evidence order
fi

keys 1
if wait_screen '^CPU +events/s' 3 || ! scr | grep -q "^$A"; then ok "1 leaves the fleet pane"; else
	fail "1 leaves the fleet pane"; evidence 1; fi
keys 0
if wait_screen "^$A +up" 3; then ok "0 comes back to the fleet pane"; else
	fail "0 comes back"; evidence 0; fi
quit_ok "q quits with status 0"
pcp_stop a
finish
