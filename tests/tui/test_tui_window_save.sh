#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Saving a time window from the interactive view, under tmux, on the demo
# snapshot: in the event list, v marks a row and Up moves the cursor; the
# title shows the window (start-end, duration, events) and the header its
# length and count; s asks window or everything; the file written holds the
# window's events: as many as the screen said (snapshot_tool load), exactly
# the demo's events between its first and last timestamps (snapshot_tool dump
# of both files, compared line for line), starting and ending at the times
# shown. Then a for everything, Esc clearing the window, and sorting on
# htop's keys (>, <) now that s saves.
cd "$(dirname "$0")/../.." || exit 2
. tests/tui/lib_tui.sh
need
demo=${KTOP_FIXTURES:-tests/fixtures}/demo.ktop
if [ ! -f "$demo" ]; then
	fail "demo: $demo is missing (see tests/fixtures/README)"
	finish
fi
if [ ! -x "$TOOLS/snapshot_tool" ]; then
	fail "setup: $TOOLS/snapshot_tool is not built (make tools)"
	finish
fi

# save_as NAME: clear the file name prompt, type NAME, Enter
save_as() {
	for ((i = 0; i < 60; i++)); do keys BSpace; done
	keys -l "$1"
	keys Enter
}

TUI_ENV="KTOP_FIXTURES='$PWD/$(dirname "$demo")'" tui_start 130 40 --demo
if wait_screen '^ ktop tracer' 10 && wait_screen 'SNAPSHOT' 10; then
	ok "demo_starts"
else
	fail "demo_starts"; evidence start; cat "$tmp/stderr"; finish
fi
keys 3
wait_screen 'Events: following' 5 || { fail "event_list"; evidence events; finish; }

# 1. v marks the newest row; 20 rows up is the window's other end
keys v
wait_screen 'Events: window ' 3 || fail "v_marks_a_window"
for ((i = 0; i < 20; i++)); do keys Up; done
sleep 0.5
title=$(scr | grep -m1 'Events: window ')
# "Events: window 107.965881-107.983549  0.017668 s  21 events  (s saves, v clears)"
w0=$(sed -n 's/.*Events: window \([0-9.]*\)-\([0-9.]*\)  \([0-9.]*\) s  \([0-9]*\) events.*/\1/p' <<<"$title")
w1=$(sed -n 's/.*Events: window \([0-9.]*\)-\([0-9.]*\)  \([0-9.]*\) s  \([0-9]*\) events.*/\2/p' <<<"$title")
wn=$(sed -n 's/.*Events: window \([0-9.]*\)-\([0-9.]*\)  \([0-9.]*\) s  \([0-9]*\) events.*/\4/p' <<<"$title")
if [ -n "$wn" ] && [ "$wn" -ge 21 ] && [ "$w0" != "$w1" ]; then
	ok "window_in_title ($w0-$w1, $wn events)"
else
	fail "window_in_title ('$title')"; evidence window
fi
if scr | sed -n 2p | grep -Eq "window [0-9.]+ s, $wn events"; then
	ok "window_in_header"
else
	fail "window_in_header"; evidence header 3
fi
# the rows in the window are drawn in the window role (default theme: blue background),
# the selected row in its own: tmux writes the colours where they change, so a window row
# starts with them (...44m) or, after another window row, has no escape at all, where every
# other event row has several (task, pid, CPU, flags ... in their colours)
nhl=$(scr_esc | grep -E '[0-9]+\.[0-9]{6}:' |
	grep -cE $'^(\033\\[[0-9;]*m)*\033\\[[0-9;]*44m|^[^\033]*$')
# the whole window is on the page: every event in it but the selected row
if [ -n "$wn" ] && [ "$nhl" -eq $((wn - 1)) ]; then
	ok "window_rows_highlighted ($nhl rows and the selected one)"
else
	fail "window_rows_highlighted ($nhl rows, window of '$wn' events)"
	scr_esc | sed -n 20,40p | cat -v | cut -c1-60 | sed 's/^/    | /'
fi

# 2. s: window or everything? w, a file name, saved
keys s
if wait_screen "save the marked window \\($wn events" 3; then
	ok "s_asks_window_or_everything"
else
	fail "s_asks_window_or_everything"; evidence ask
fi
keys w
wait_screen 'save the window to' 3 || fail "w_asks_for_a_file_name"
save_as "$tmp/win.ktop"
if wait_screen "saved $tmp/win.ktop \\(ktop, the window: $wn events\\)" 10; then
	ok "s_w_saves_the_window"
else
	fail "s_w_saves_the_window"; evidence saved
fi
[ "$(stat -c %a "$tmp/win.ktop" 2>/dev/null)" = 600 ] && ok "window_file_mode_0600" ||
	fail "window_file_mode_0600 ($(stat -c %a "$tmp/win.ktop" 2>&1))"
got=$("$TOOLS/snapshot_tool" load "$tmp/win.ktop" 2>&1 | sed -n 's/^events \([0-9]*\) .*/\1/p')
if [ -n "$got" ] && [ "$got" = "$wn" ]; then
	ok "window_file_has_the_events_shown ($got)"
else
	fail "window_file_has_the_events_shown (file '$got', screen '$wn')"
fi
# every demo event from the file's first to its last timestamp, and nothing else
"$TOOLS/snapshot_tool" dump "$tmp/win.ktop" | sort >"$tmp/win.dump"
"$TOOLS/snapshot_tool" dump "$demo" | sort >"$tmp/demo.dump"
lo=$(awk 'NR == 1 || $2 < m { m = $2 } END { print m }' "$tmp/win.dump")
hi=$(awk 'NR == 1 || $2 > m { m = $2 } END { print m }' "$tmp/win.dump")
awk -v lo="$lo" -v hi="$hi" '$2 >= lo && $2 <= hi' "$tmp/demo.dump" >"$tmp/demo.win"
if [ -s "$tmp/win.dump" ] && cmp -s "$tmp/win.dump" "$tmp/demo.win"; then
	ok "window_file_is_the_demo_between_its_ends ($(wc -l <"$tmp/win.dump") events)"
else
	fail "window_file_is_the_demo_between_its_ends ($(wc -l <"$tmp/win.dump") vs $(wc -l <"$tmp/demo.win"))"
	diff "$tmp/win.dump" "$tmp/demo.win" | head -5
fi
# its ends are the times on screen (microseconds, rounded as the TIMESTAMP column)
us() { awk -v t="$1" 'BEGIN { u = int((t + 500) / 1000); printf "%d.%06d\n", int(u / 1000000), u % 1000000 }'; }
if [ "$(us "$lo")" = "$w0" ] && [ "$(us "$hi")" = "$w1" ]; then
	ok "window_file_starts_and_ends_as_shown"
else
	fail "window_file_starts_and_ends_as_shown (file $(us "$lo")-$(us "$hi"), screen $w0-$w1)"
fi
# ktop reopens it
if timeout 20 "$KTOP" -i "$tmp/win.ktop" --batch --duration 1 2>&1 | grep -q "$wn events held"; then
	ok "ktop_i_batch_reads_the_window_file"
else
	fail "ktop_i_batch_reads_the_window_file"
	timeout 20 "$KTOP" -i "$tmp/win.ktop" --batch --duration 1 2>&1 | head -8
fi

# 3. the same name again: asks before overwriting, n keeps the file
keys s
wait_screen 'save the marked window' 3
keys w
wait_screen 'save the window to' 3
save_as "$tmp/win.ktop"
if wait_screen 'exists: overwrite' 3; then
	keys n
	wait_screen 'not saved' 3 && ok "window_save_asks_before_overwriting" ||
		{ fail "window_save_asks_before_overwriting"; evidence overwrite; }
else
	fail "window_save_asks_before_overwriting"; evidence overwrite
fi

# 4. a: everything, in trace.dat
keys s
wait_screen 'save the marked window' 3
keys a
if wait_screen '^save to ' 3; then
	save_as "$tmp/all.dat"
	wait_screen "saved $tmp/all.dat \\(trace.dat\\)" 20 || { fail "s_a_saves"; evidence all; }
	all=$("$TOOLS/snapshot_tool" load "$tmp/all.dat" 2>&1 | sed -n 's/^events \([0-9]*\) .*/\1/p')
	want=$("$TOOLS/snapshot_tool" load "$demo" 2>&1 | sed -n 's/^events \([0-9]*\) .*/\1/p')
	[ -n "$all" ] && [ "$all" = "$want" ] && ok "s_a_saves_everything ($all events)" ||
		fail "s_a_saves_everything (file '$all', demo '$want')"
else
	fail "s_a_saves_everything (no file name prompt)"; evidence all
fi

# 5. Esc clears the window; s then asks only for a name
keys Escape
if wait_gone 'Events: window ' 5; then
	ok "esc_clears_the_window"
else
	fail "esc_clears_the_window"; evidence esc
fi
keys s
if wait_screen '^save to ' 3; then
	ok "s_without_a_window_asks_for_a_name"
else
	fail "s_without_a_window_asks_for_a_name"; evidence name
fi
keys Escape
wait_gone '^save to ' 5

# 6. sorting moved to htop's keys
keys 2
wait_screen 'Top events and functions by count' 5
keys '>'
if wait_screen 'Top events and functions by rate' 3; then
	keys '<'
	wait_screen 'Top events and functions by count' 3 && ok "sort_keys_gt_lt" ||
		{ fail "sort_keys_gt_lt (< did not go back)"; evidence sort 6; }
else
	fail "sort_keys_gt_lt (> did not sort)"; evidence sort 6
fi

keys q
for ((i = 0; i < 50; i++)); do [ -f "$tmp/exit" ] && break; sleep 0.1; done
[ "$(cat "$tmp/exit" 2>/dev/null)" = "EXIT=0" ] && ok "quits_with_status_0" ||
	{ fail "quits_with_status_0 ($(cat "$tmp/exit" 2>/dev/null))"; cat "$tmp/stderr"; }
finish
