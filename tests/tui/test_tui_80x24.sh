#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Every pane at 80x24 (issue 31 #5), the recorded demo under tmux (it opens
# on the top view, 2):
#   1. each pane (1-9, 0): no line is wider than 80 columns, every tab shows,
#      and the pane's title, its column header and the footer end in a whole
#      word: the last word of each at 80 columns is a word the same line
#      shows at 200 columns (a line cut at the edge ends in half a word);
#   2. the latency pane's table fits: timerlat's header ends with the thread
#      latency's max (the narrow layout), its rows are no wider, and Right
#      changes the sort there ("sorted by max") with the table still whole;
#      o: osnoise's header ends with THREAD;
#   3. the fleet pane with no --pcp says what to start it with, whole.
cd "$(dirname "$0")/../.." || exit 2
. tests/tui/lib_tui.sh
need

# the last word of line @2 (1-based) of screen text @1
last_word() {
	sed -n "${2}p" <<<"$1" | awk '{ print $NF }'
}

tui_start 80 24 --demo
if ! wait_screen 'SNAPSHOT' 10; then
	fail "demo_starts"; evidence start; cat "$tmp/stderr"; finish
fi
# the demo opens on its overview, the top view (2), as the README says (it
# opened on the CPU pane)
if wait_screen '^Top events and functions' 3 && wait_screen ' sample_threshold$' 5 &&
   scr | grep -q 'EVENT / FUNCTION'; then
	ok "demo_opens_on_the_top_view"
else
	fail "demo_opens_on_the_top_view"; evidence first 8
fi
for p in 1 2 3 4 5 6 7 8 9 0; do
	keys "$p"
	sleep 0.5
	narrow=$(scr)
	tmux -L "$SOCK" resize-window -t t -x 200 -y 24
	sleep 0.5
	wide=$(scr)
	tmux -L "$SOCK" resize-window -t t -x 80 -y 24
	sleep 0.5
	bad=""
	awk 'length > 80 { bad = 1 } END { exit !bad }' <<<"$narrow" && bad="a line wider than 80"
	for t in '1 CPUs' '2 Top' '3 Events' '5 Latency' '8 Stacks' '9 Net' '0 Fleet'; do
		sed -n 3p <<<"$narrow" | grep -qF "$t" || bad="$bad; tab '$t' missing"
	done
	for l in 4 5 24; do
		w=$(last_word "$narrow" "$l")
		[ -z "$w" ] && continue
		# figures change as the clock goes: words only
		grep -q '[A-Za-z]' <<<"$w" || continue
		sed -n "${l}p" <<<"$wide" | tr ' ' '\n' | grep -qxF -- "$w" ||
			bad="$bad; line $l ends in '$w', not a word at 200 columns"
	done
	if [ -z "$bad" ]; then
		ok "pane_${p}_fits_80x24"
	else
		fail "pane_${p}_fits_80x24: ${bad#; }"
		printf '%s\n' "$narrow" | sed 's/^/    | /'
	fi
done

# the fleet pane without --pcp: what to start it with, whole (it was cut
# after "make install-pmda," at 80 columns)
keys 0
want="Start ktop with --pcp HOST[:PORT],... (each host's pmcd runs ktop's agent:"
want="$want make install-pmda, ./Install), or --pcp-archive ARCHIVE,... (their"
want="$want pmlogger archives)."
if wait_screen '^Fleet: no hosts' 3 && scr | tr -s ' \n' '  ' | grep -qF -- "$want" &&
   ! scr | awk 'length > 80 { bad = 1 } END { exit !bad }'; then
	ok "fleet_without_hosts_says_it_whole_at_80"
else
	fail "fleet_without_hosts_says_it_whole_at_80"; evidence fleet-80
fi

# 2. the latency table
keys 5
if wait_screen '^timerlat: ' 3 && sed -n 5p <<<"$(scr)" | grep -Eq 'Thr .* max$' &&
   ! scr | awk 'length > 80 { bad = 1 } END { exit !bad }'; then
	ok "latency_timerlat_table_whole_at_80"
else
	fail "latency_timerlat_table_whole_at_80"; evidence lat80 12
fi
keys Right
if wait_screen 'sorted by max' 3 && sed -n 5p <<<"$(scr)" | grep -Eq 'Thr .* max$'; then
	ok "latency_right_sorts_at_80"
else
	fail "latency_right_sorts_at_80"; evidence latsort 12
fi
keys o
if wait_screen '^osnoise: ' 3 && sed -n 5p <<<"$(scr)" | grep -Eq 'THREAD$'; then
	ok "latency_osnoise_table_whole_at_80"
else
	fail "latency_osnoise_table_whole_at_80"; evidence os80 12
fi
tui_stop
finish
