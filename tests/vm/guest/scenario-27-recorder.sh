# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 27: the flight recorder on timerlat, where the kernel can stop at the
# spike itself. The spike is made to order: vmload rtspin spins on CPU 1 at
# SCHED_FIFO 99 for S ms, above the timerlat threads (FIFO 95), whose latency
# there is then about S.
#  0. A calibration run (no load) gives the largest thread latency M of this
#     TCG guest; the bound X is max(3 M, 250 ms), the spike S = X + 300 ms.
#     (A loaded host gives the guest hiccups of its own: a 112 ms thread
#     latency while ktop started, with a calibration max of 25 ms, took the
#     first save and the kernel's stop before the spikes at a 100 ms floor.)
#  1. --save-on 'timerlat thread >= Xus' --save-after 0.5 --save-max 1, a
#     spike 3 s in: one file; the sample its note names as the match is in
#     it, at that time, >= X; the file's events start --save-before (2 s)
#     before it (within 0.3 s) and end 0.5 s after it (within 0.3 s).
#  2. The same with --save-after 0, --save-before 5 and --save-max 2, two
#     spikes 2 s apart: the plan sets osnoise/stop_tracing_total_us to X while
#     ktop runs, the kernel stops recording at the spike: the file's last
#     event is the matching sample (no event of any CPU after it), its note
#     says the kernel stopped there; recording resumed: a second file, its
#     match later, and its window, which holds the first match, shows the
#     kernel's pause as its note names it ("off:"): the stop reached every
#     CPU within 0.15 s of the match (another CPU may record a little after
#     it: 18 ms once), then no event for 0.1 s and more (timerlat writes one
#     a millisecond per CPU).
#  3. The tracing state (osnoise/ included) is as before each run.
# One kernel (bookworm, 6.1): timerlat's stop thresholds are the same code on
# 6.12; the recorder's side is tested on the host (tests/live/test_recorder.sh).
# kernels: bookworm
# timeout: 1500

need ktop
need tracestate
need vmload
tracestate --save /tmp/rec.before || fail "tracestate --save failed"


same_state()
{
	if ! tracestate --diff /tmp/rec.before > /tmp/rec.diff 2>&1; then
		sed 's/^/  /' /tmp/rec.diff | head -n 20
		fail "tracing state not restored after $1"
	fi
	note "state restored after $1"
}

# spike MS: the timerlat thread on CPU 1 held off for MS ms
spike()
{
	note "spike: vmload rtspin 1 $1"
	vmload rtspin 1 "$1" || fail "vmload rtspin failed"
}

# -- 0: calibration ---------------------------------------------------------------
kstart /tmp/cal.txt --batch --interval 2 --duration 6 -p timerlat -e none ||
	fail "calibration: ktop -p timerlat did not start"
kwait 300
m=$(awk '/^Timer latency per CPU/ { t = 1 } t && $1 == "ALL" { v = $12 } END { print v + 0 }' /tmp/cal.txt)
x=$(awk -v m="$m" 'BEGIN { x = int(3 * m + 0.5); if (x < 250000) x = 250000; print x }')
sp=$(( x / 1000 + 300 ))
note "calibration: thread latency max ${m} us: the bound is ${x} us, the spike ${sp} ms"
awk '/^Timer latency per CPU/ { buf = "" } /per CPU since start/, /^$/ { buf = buf "  " $0 "\n" } END { printf "%s", buf }' /tmp/cal.txt | head -n 8
[ "$x" -gt 0 ] || fail "calibration: no thread latency"
same_state "the calibration run"

# check_file FILE: the matching sample in it, >= x us, at the note's time; prints
# "MATCH FIRST LAST" (trace seconds) into /tmp/times
check_file()
{
	ktop -i "$1" --batch > /tmp/note.txt 2>&1 || { show /tmp/note.txt; fail "$1 does not open"; }
	grep '^Save note' /tmp/note.txt | sed 's/^/  /'
	mts=$(sed -n 's/^Save note: match: timerlat thread >= [0-9]*us at \([0-9.]*\) (.*/\1/p' /tmp/note.txt | head -n 1)
	[ -n "$mts" ] || fail "$1: its note names no match"
	ktop -i "$1" --batch -o /tmp/file.txt > /dev/null 2>&1 || fail "$1: no text export"
	# "... 105.826571: #26 context    irq timer_latency     12345 ns": the sample at the match
	awk -v m="$mts" -v x="$x" '
		/^#/ { next }
		{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { ts = substr($i, 1, length($i) - 1); break } }
		!first { first = ts }
		{ last = ts }
		/timer_latency/ && (ts - m < 0.0000015 && m - ts < 0.0000015) {
			for (i = 1; i < NF; i++) if ($i == "timer_latency") v = $(i + 1)
			if (v + 0 >= x * 1000) found = $0
		}
		END {
			if (!found) { print "no sample >= " x " us at " m; exit 1 }
			print "  match: " found
			print m, first, last > "/tmp/times"
		}' /tmp/file.txt || { grep -n timer_latency /tmp/file.txt | tail -n 5; fail "$1: the spike's sample is not in it"; }
	read -r MATCH FIRST LAST < /tmp/times
	note "$1: match at $MATCH, events from $FIRST to $LAST"
}

# -- 1: the recorder reads the window's end as it comes -----------------------------
rm -f /tmp/tl-*.ktop
kstart /tmp/r1.txt --batch --interval 1 -p timerlat -e none \
	--save-on "timerlat thread >= ${x}us" --save-before 2 --save-after 0.5 --save-max 1 \
	-o '/tmp/tl-%n.ktop' || fail "ktop --save-on did not start"
sleep 3
spike "$sp"
wait_for "grep -q '^save' /tmp/r1.txt" 240
ktop_stop TERM
grep -E '^(Recorder|saved|save )' /tmp/r1.txt | sort -u | sed 's/^/  /'
n=$(ls /tmp/tl-*.ktop 2>/dev/null | wc -l)
[ "$n" -eq 1 ] || fail "1: $n files, want 1"
check_file /tmp/tl-1.ktop
awk -v m="$MATCH" -v f="$FIRST" -v l="$LAST" 'BEGIN {
	b = m - f; a = l - m
	printf "  %.3f s before the match, %.3f s after\n", b, a
	exit !(b > 1.7 && b <= 2.0001 && a > 0.2 && a <= 0.5001) }' ||
	fail "1: the window is not 2 s before and 0.5 s after the match"
same_state "--save-on, --save-after 0.5"

# -- 2: the kernel stops at the spike ---------------------------------------------------
rm -f /tmp/tk-*.ktop
kstart /tmp/r2.txt --batch --interval 1 -p timerlat -e none \
	--save-on "timerlat thread >= ${x}us" --save-before 5 --save-after 0 --save-max 2 \
	-o '/tmp/tk-%n.ktop' || fail "ktop --save-after 0 did not start"
st=$(cat "$T/osnoise/stop_tracing_total_us")
note "while ktop runs: osnoise/stop_tracing_total_us $st, stop_tracing_us $(cat "$T/osnoise/stop_tracing_us")"
[ "$KDONE" = 1 ] || [ "$st" = "$x" ] || fail "2: the kernel's threshold is not the bound"
sleep 3
spike "$sp"
# the second spike 2 s after the first, whose window is still being written:
# the second window (5 s before its match) holds the first match and the pause
# (the matches were 3.2 s apart once, with 550 ms spikes on a loaded host)
sleep 2
spike "$sp"
wait_for "grep -q '^save.*tk-2.ktop' /tmp/r2.txt" 240
ktop_stop TERM
grep -E '^(Recorder|saved|save )' /tmp/r2.txt | sort -u | sed 's/^/  /'
grep -q 'Recorder: the kernel stops recording at the match (osnoise/stop_tracing_us, stop_tracing_total_us)' /tmp/r2.txt ||
	fail "2: the recorder does not say the kernel stops"
n=$(ls /tmp/tk-*.ktop 2>/dev/null | wc -l)
[ "$n" -eq 2 ] || fail "2: $n files, want 2 (recording resumed after the first)"
check_file /tmp/tk-1.ktop
grep -q 'Save note: match: .*; the kernel stopped recording there' /tmp/note.txt ||
	fail "2: the note does not say the kernel stopped at the match"
awk -v m="$MATCH" -v l="$LAST" 'BEGIN { exit !(l <= m + 0.0000015) }' ||
	fail "2: events after the match ($LAST > $MATCH): the kernel did not stop there"
m1=$MATCH
check_file /tmp/tk-2.ktop
awk -v a="$m1" -v b="$MATCH" 'BEGIN { exit !(b > a) }' || fail "2: the second file's match is not later"
# the first match's pause, in the second file, as its note names it: "off:
# recording was stopped from X to Y (... at M; ...)", M the first match, X the
# last event recorded before the stop reached every CPU (the match's CPU stops
# right after its sample, another CPU when the stop reaches it: 0.5 ms and
# 18 ms after it here), Y the restart. Without the kernel's stop, timerlat
# writes a sample a millisecond per CPU: X would be the restart, no pause.
off=$(sed -n "s/^Save note: off: recording was stopped from \([0-9.]*\) to \([0-9.]*\) (the kernel's stop at an earlier match, at $m1;.*/\1 \2/p" /tmp/note.txt)
[ -n "$off" ] || { grep '^Save note: off' /tmp/note.txt; fail "2: the second file's note does not name the first stop"; }
awk -v m="$m1" -v x="${off% *}" -v y="${off#* }" '
	/^#/ { next }
	{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { ts = substr($i, 1, length($i) - 1); break } }
	ts + 0 < m - 0.0000015 { before++ }
	ts + 0 > m + 0.0000015 && ts + 0 <= x + 0.0000015 { if (++until <= 5) shown = shown "    " $0 "\n" }
	ts + 0 > x + 0.0000015 && ts + 0 < y - 0.0000015 { if (++in_off <= 5) shown = shown "  ! " $0 "\n" }
	END { printf "  the second file: %d events before the first match, %d after it until the stop reached every CPU (%.6f s later), %d in the %.3f s recording was off\n%s",
		before, until, x - m, in_off, y - x, shown
	      exit !(before > 0 && x >= m && x - m < 0.15 && y - x >= 0.1 && !in_off) }' /tmp/file.txt ||
	fail "2: no pause after the first match in the second file: the kernel did not stop"
same_state "--save-on, --save-after 0 (osnoise/stop_tracing_us put back)"
