#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A recording in the interactive view reads its own time base (issue 31 #11),
# the demo under tmux, no root:
#   1. the header's clock is the recording's span of trace time and stands
#      still (it ticked with the wall clock on a file that does not change);
#   2. the rates are the counts over that span, as `--batch` prints them for
#      the same file: the header's events/s, the CPU pane's "all" row and the
#      top view's RATE/s of its first event (they were 0 after the first
#      second: everything arrived at once, then nothing);
#   3. the flag letters are those of the kernel that wrote the recording, not
#      of the one reading it: the demo (6.1-rt, common_preempt_lazy_count)
#      has seven columns, as its text export (-o FILE.txt) writes them, in
#      the event list and the CPU pane's legend;
#   4. a long stack: clause in the view line gives way to "N of M events"
#      at 80 columns (it pushed the count off the edge).
cd "$(dirname "$0")/../.." || exit 2
. tests/tui/lib_tui.sh
need
demo=${KTOP_FIXTURES:-tests/fixtures}/demo.ktop

# what --batch says of the demo: the rate of all events, and of the first top event
batch=$(timeout 30 "$KTOP" -i "$demo" --batch 2>&1)
b_all=$(awk '$1 == "all" { print $3; exit }' <<<"$batch")
b_ev=$(awk '/^Top events/ { getline; getline; print $2; exit }' <<<"$batch")
b_ev_rate=$(awk -v e="$b_ev" '/^Top events/ { t = 1 } t && $2 == e { print $1; exit }' <<<"$batch")
span=$(sed -n 's/.*interval \([0-9.]*\)s (trace time).*/\1/p' <<<"$batch")
[ -n "$b_all" ] && [ -n "$b_ev" ] && [ -n "$span" ] || { fail "batch_of_the_demo: $batch"; finish; }
want_ev=$(awk -v c="$b_ev_rate" -v s="$span" 'BEGIN { printf "%d\n", c / s + 0.5 }')

tui_start 120 30 --demo
if ! wait_screen 'SNAPSHOT' 10; then
	fail "demo_starts"; evidence start; cat "$tmp/stderr"; finish
fi
sleep 1.2
c1=$(scr | head -1 | grep -o '[0-9][0-9]:[0-9][0-9]:[0-9][0-9]')
sleep 2.2
c2=$(scr | head -1 | grep -o '[0-9][0-9]:[0-9][0-9]:[0-9][0-9]')
secs=$(awk -F: -v t="$c2" 'BEGIN { split(t, a, ":"); print a[1] * 3600 + a[2] * 60 + a[3] }')
if [ -n "$c1" ] && [ "$c1" = "$c2" ] && awk -v a="$secs" -v b="$span" 'BEGIN { exit !(a - b < 1.5 && b - a < 1.5) }'; then
	ok "clock_is_the_recordings_span ($c2, ${span}s of trace time)"
else
	fail "clock_is_the_recordings_span: $c1 then $c2, the recording spans ${span}s"
fi
hdr=$(scr | sed -n 's/^ events\/s \([0-9.]*[kM]\?\) .*/\1/p' | head -1)
keys 1
wait_screen '^all ' 3
all=$(scr | awk '$1 == "all" { print $2; exit }')
if [ "$hdr" = "$b_all" ] && [ "$all" = "$b_all" ]; then
	ok "events_per_s_over_the_recording (header $hdr, CPU pane $all, --batch $b_all)"
else
	fail "events_per_s_over_the_recording: header '$hdr', CPU pane '$all', --batch '$b_all'"
	evidence cpus 8
fi
keys 2
wait_screen 'RATE/s' 3
sleep 1.2
row=$(scr | awk -v e="${b_ev#*:}" '$NF == e || $(NF-1) == e { print $2; exit }')
if [ -n "$row" ] && [ "$row" = "$want_ev" ] && [ "$row" != 0 ]; then
	ok "top_rate_over_the_recording (${b_ev#*:}: $row/s, $b_ev_rate in ${span}s)"
else
	fail "top_rate_over_the_recording: ${b_ev#*:} '$row', want $want_ev"
	evidence top 10
fi
# the tasks pane's EV/s on a recording: the rate over what was read, still
# there seconds later (it fell to 0 a second after the file was read)
keys 7
wait_screen ' EV/s ' 3
sleep 0.5
r1=$(scr | awk '$1 ~ /^[0-9]+$/ && $2 ~ /[0-9]/ { print $1, $3; exit }')
sleep 2.5
r2=$(scr | awk -v p="${r1%% *}" '$1 == p { print $1, $3; exit }')
if [ -n "$r1" ] && [ "$r1" = "$r2" ] && [ "${r2#* }" != 0 ]; then
	ok "tasks_rate_stays_on_a_recording (pid/EV/s: $r1, then $r2)"
else
	fail "tasks_rate_stays_on_a_recording: '$r1', 2.5 s later '$r2'"; evidence tasks 8
fi
# 3. the recording's flag letters
timeout 30 "$KTOP" -i "$demo" --batch -o "$tmp/demo.txt" >/dev/null 2>&1
ncol=$(grep -c '^#.*=> ' "$tmp/demo.txt")
keys 3
wait_screen 'TIMESTAMP' 3
n7=$(scr | grep -cE '\] [.dDbX][.nN][.L][.zZhHs][0-9a-f.][0-9a-f.+][0-9a-f.] ')
keys 1
if [ "$ncol" = 7 ] && [ "$n7" -gt 5 ] && wait_screen '^ 6 lazy  +preempt-lazy-depth' 3 &&
   wait_screen '^ 7 migrate ' 1; then
	ok "flag_letters_of_the_recordings_kernel (the text: $ncol columns; $n7 rows of seven)"
else
	fail "flag_letters_of_the_recordings_kernel: text legend $ncol lines, $n7 rows of seven letters"
	evidence legend 20
fi
tui_stop

# 4. a long view clause at 80 columns
long="stack:$(printf 'a%.0s' {1..40});$(printf 'b%.0s' {1..40});__schedule"
tui_start 80 24 --demo -F "'$long'"
if wait_screen 'SNAPSHOT' 10 && wait_screen '^ view stack:a+.*\.\.\.  0 of 5\.73k events' 3; then
	ok "long_view_clause_keeps_its_count"
else
	fail "long_view_clause_keeps_its_count"; evidence view 4
fi
tui_stop
finish
