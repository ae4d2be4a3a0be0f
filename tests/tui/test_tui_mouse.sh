#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The mouse in ktop's interactive view: a click on a tab selects the pane, a
# click on a column header sorts, a click on a row selects it, the wheel
# scrolls the event list back.
cd "$(dirname "$0")/../.." || exit 2
. tests/tui/lib_tui.sh
need

start_load
tui_start 120 40
wait_screen 'events/s [0-9]' 20 || { fail "start"; evidence start; finish; }

y=$(row_of '^ 1 CPUs +2 Top')
x=$(scr | sed -n "$((y + 1))p" | grep -bo '2 Top' | cut -d: -f1)
click $((x + 1)) "$y"
if wait_screen 'Top events and functions by count' 3; then
	ok "click_on_tab_selects_pane"
else
	fail "click_on_tab_selects_pane (x=$x y=$y)"; evidence tab
fi

y=$(row_of '^ +COUNT +RATE/s +TOTAL +AVG +MAX')
x=$(scr | sed -n "$((y + 1))p" | grep -bo 'MAX' | cut -d: -f1)
click "$x" "$y"
if wait_screen 'Top events and functions by max' 3; then
	ok "click_on_column_header_sorts"
else
	fail "click_on_column_header_sorts (x=$x y=$y)"; evidence sort
fi

keys 3
wait_screen 'Events: following' 3
click 10 20 64
if wait_screen 'Events: frozen' 3; then
	ok "wheel_scrolls_event_list_back"
else
	fail "wheel_scrolls_event_list_back"; evidence wheel
fi
keys End
wait_screen 'Events: following' 3
click 10 12
keys Enter
# the footer shows the selected event whole; it must be a row of the page (late
# events of the other CPU may still shift rows, so not necessarily row 12)
if wait_screen 'Events: frozen' 3 && wait_footer '^.{16}-[0-9]+ +\[[0-9]{3}\] ' 3; then
	sel=$(scr | tail -1 | cut -c1-60)
	if scr | head -n -1 | grep -qF -- "$sel"; then
		ok "click_on_row_selects_it"
	else
		fail "click_on_row_selects_it: '$sel' is not on the page"; evidence row
	fi
else
	fail "click_on_row_selects_it: no selection shown"; evidence row
fi
keys q
finish
