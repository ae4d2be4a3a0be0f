#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Snapshots on this host's kernel: record real sched + raw_syscalls events
# (build/tools/record_fixture, raw pages through tracefs), then
#   - .ktop / trace.dat / JSON / text exports (build/tools/snapshot_tool);
#   - `trace-cmd report` of ktop's trace.dat prints the same events (cpu,
#     time stamp in ns, pid, event name) as ktop's own store holds;
#   - the trace.dat and the .ktop reload to the same events;
#   - a .ktop stream through a pipe loads whole; a closed pipe is EPIPE
#     (exit 3, a message), not death by SIGPIPE;
#   - bad files: exit status 2 and a message naming the file;
#   - ktop -i (.ktop, trace.dat, as nobody, bad input: exit 2), -o (each
#     format, offline and live; trace-cmd report reads the live trace.dat),
#     --stream | -i -, --stream's end on EPIPE and SIGHUP.
# The tracing state is compared before and after.

. "$(dirname "$0")/lib_ktop.sh"
need record_fixture snapshot_tool tracestate
T=$TOOLS/snapshot_tool

state_save "$tmp/state0"

"$TOOLS/record_fixture" -o "$tmp/fx" -b 256 -e sched:sched_switch -e sched:sched_wakeup \
	-e sched:sched_process_exec -e raw_syscalls \
	-- sh -c 'for i in 1 2 3 4 5; do cat /proc/version >/dev/null; done' >"$tmp/rec.log" 2>&1
rc=$?
state_same "tracing state unchanged by the recording" "$tmp/state0"
if [ $rc -ne 0 ]; then
	fail "record: record_fixture exit status $rc: $(tail -n 3 "$tmp/rec.log")"
	finish
fi

for ext in ktop dat json txt csv; do
	if "$T" export "$tmp/fx" "$tmp/s.$ext" 2>"$tmp/err.$ext"; then
		mode=$(stat -c %a "$tmp/s.$ext")
		check "export .$ext (mode $mode)" test "$mode" = 600
	else
		fail "export .$ext: $(cat "$tmp/err.$ext")"
	fi
done

# ktop's own view of the events: the .ktop reloaded
"$T" dump "$tmp/s.ktop" >"$tmp/ktop.dump" 2>"$tmp/err"
n=$(wc -l <"$tmp/ktop.dump")
check "the recording has events ($n)" test "$n" -gt 100

# trace-cmd report of the trace.dat: the same events, per CPU in order
if command -v trace-cmd >/dev/null; then
	trace-cmd report -N -t "$tmp/s.dat" 2>"$tmp/report.err" |
		sed -n 's/^ *.*-\([0-9][0-9]*\) *\[\([0-9]*\)\] *\([0-9]*\)\.\([0-9]*\): *\([^: ]*\):.*/\2 \3\4 \1 \5/p' |
		awk '{ printf "%d %.0f %s %s\n", $1, $2, $3, $4 }' | sort -s -n -k1,1 >"$tmp/report.ev"
	cut -d' ' -f1-3 "$tmp/ktop.dump" >"$tmp/a"
	paste -d' ' "$tmp/a" <(sed 's/.*://' "$tmp/ktop.dump") | sort -s -n -k1,1 >"$tmp/ktop.ev"
	if cmp -s "$tmp/report.ev" "$tmp/ktop.ev"; then
		ok "trace-cmd report prints the same $(wc -l <"$tmp/report.ev") events (cpu, ns, pid, name)"
	else
		fail "trace-cmd report differs from ktop's events:"
		diff "$tmp/ktop.ev" "$tmp/report.ev" | head -n 10 | sed 's/^/    /'
	fi
else
	fail "trace-cmd is not installed (make deps)"
fi

# reopen the trace.dat: same events as the .ktop
"$T" dump "$tmp/s.dat" >"$tmp/dat.dump" 2>"$tmp/err"
if cmp -s "$tmp/dat.dump" "$tmp/ktop.dump"; then
	ok "trace.dat reloads to the same events"
else
	fail "trace.dat reload differs: $(cat "$tmp/err")"
	diff "$tmp/ktop.dump" "$tmp/dat.dump" | head -n 6 | sed 's/^/    /'
fi

check "the JSON loads (python3 json)" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/s.json"
check "the text has one line per event" test "$(grep -vc '^#' "$tmp/s.txt")" -eq "$n"

# a stream through a pipe, in 5 flushes
want=$("$T" load "$tmp/s.ktop")
got=$("$T" stream "$tmp/fx" 5 | "$T" load - 2>&1)
check "stream through a pipe: $got" test "${got% source *}" = "${want% source *}"

"$T" stream "$tmp/fx" 5 2>"$tmp/pipe.err" | head -c 64 >/dev/null
rc=${PIPESTATUS[0]}
if [ "$rc" -eq 3 ] && grep -q "Broken pipe" "$tmp/pipe.err"; then
	ok "closed pipe: EPIPE reported, exit 3, no SIGPIPE death"
else
	fail "closed pipe: exit status $rc ($(cat "$tmp/pipe.err"))"
fi

# bad input: exit status 2 and the file's name in the message
: >"$tmp/empty.ktop"
head -c 1000 "$tmp/s.ktop" >"$tmp/trunc.ktop"
head -c 3000 "$tmp/s.dat" >"$tmp/trunc.dat"
cp "$tmp/s.ktop" "$tmp/flip.ktop"
# byte 200 inverted: writing a fixed 0xff left the file as it was when the
# byte already was 0xff (the payload is compressed: about 1 run in 256)
b=$(od -An -tu1 -j 200 -N 1 "$tmp/s.ktop" | tr -d ' ')
printf "\\$(printf %03o $((255 - ${b:-0})))" |
	dd of="$tmp/flip.ktop" bs=1 seek=200 conv=notrunc status=none
if cmp -s "$tmp/s.ktop" "$tmp/flip.ktop"; then
	fail "flip.ktop is s.ktop: byte 200 not inverted"
else
	ok "flip.ktop differs from s.ktop at byte 200"
fi
for f in empty.ktop trunc.ktop trunc.dat flip.ktop s.txt; do
	"$T" load "$tmp/$f" >/dev/null 2>"$tmp/bad.err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q "$tmp/$f" "$tmp/bad.err"; then
		ok "bad input $f: exit 2, '$(cut -c1-90 "$tmp/bad.err")'"
	else
		fail "bad input $f: exit status $rc, message '$(cat "$tmp/bad.err")'"
	fi
done

# ktop itself: -i (both formats), -o (every format), --stream | -i -
out=$(timeout 20 "$KTOP" -i "$tmp/s.ktop" --batch 2>&1)
rc=$?
ev=$(echo "$out" | sed -n 's/^Events: \([0-9]*\) this interval.*/\1/p' | head -1)
check "ktop -i FILE.ktop --batch: exit 0, one summary of all $n events ($ev)" \
	test "$rc" -eq 0 -a "$ev" = "$n" -a "$(echo "$out" | grep -c '^ktop ')" -eq 1
out=$(timeout 20 "$KTOP" -i "$tmp/s.dat" --batch 2>&1)
ev=$(echo "$out" | sed -n 's/^Events: \([0-9]*\) this interval.*/\1/p' | head -1)
check "ktop -i FILE.dat --batch: the same $n events ($ev)" test "$ev" = "$n"
top_k=$(timeout 20 "$KTOP" -i "$tmp/s.ktop" --batch | sed -n '/^Top events/,/^$/p')
top_d=$(timeout 20 "$KTOP" -i "$tmp/s.dat" --batch | sed -n '/^Top events/,/^$/p')
check "ktop -i: .ktop and trace.dat give the same top events" test "$top_k" = "$top_d"
# no root needed, no tracefs touched
cp "$tmp/s.ktop" "$tmp/pub.ktop"
chmod 644 "$tmp/pub.ktop"
chmod 755 "$tmp"
out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups \
	timeout 20 "$PWD/${KTOP#./}" -i "$tmp/pub.ktop" --batch 2>&1)
check "ktop -i as nobody (no root)" test $? -eq 0 -a -n "$(echo "$out" | grep "^Events: $n ")"
for f in empty.ktop trunc.ktop trunc.dat flip.ktop s.txt; do
	timeout 20 "$KTOP" -i "$tmp/$f" --batch >/dev/null 2>"$tmp/bad.err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q "$tmp/$f" "$tmp/bad.err"; then
		ok "ktop -i bad $f: exit 2, '$(cut -c1-90 "$tmp/bad.err")'"
	else
		fail "ktop -i bad $f: exit status $rc, message '$(cat "$tmp/bad.err")'"
	fi
done
timeout 20 "$KTOP" -i "$tmp/nonexistent.ktop" --batch >/dev/null 2>"$tmp/bad.err"
rc=$?
check "ktop -i missing file: exit 2, names it" test $rc -eq 2 -a -n "$(grep nonexistent "$tmp/bad.err")"

# -o converts offline: each format, mode 0600, same events back (.ktop, .dat)
for ext in ktop dat json txt csv; do
	rm -f "$tmp/o.$ext"
	timeout 20 "$KTOP" -i "$tmp/s.ktop" --batch -o "$tmp/o.$ext" >/dev/null 2>"$tmp/o.err"
	check "ktop -i .ktop -o .$ext: written, mode $(stat -c %a "$tmp/o.$ext" 2>/dev/null)" \
		test "$(stat -c %a "$tmp/o.$ext" 2>/dev/null)" = 600
done
"$T" dump "$tmp/o.ktop" >"$tmp/o.ktop.dump" 2>&1
check "ktop -o .ktop round trip: same events" cmp -s "$tmp/o.ktop.dump" "$tmp/ktop.dump"
"$T" dump "$tmp/o.dat" >"$tmp/o.dat.dump" 2>&1
check "ktop -o .dat round trip: same events" cmp -s "$tmp/o.dat.dump" "$tmp/ktop.dump"
check "ktop -o .json loads" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/o.json"

# -o live: a batch run writes its events, with the kernel's formats
timeout 30 "$KTOP" --batch --duration 1 -e sched -e raw_syscalls -o "$tmp/live.dat" \
	>/dev/null 2>"$tmp/live.err"
rc=$?
lev=$("$T" load "$tmp/live.dat" 2>&1 | awk '{ print $2 }')
check "ktop --batch -o live.dat: exit $rc, $lev events, mode $(stat -c %a "$tmp/live.dat" 2>/dev/null)" \
	test "$rc" -eq 0 -a "${lev:-0}" -gt 0 -a "$(stat -c %a "$tmp/live.dat" 2>/dev/null)" = 600
if command -v trace-cmd >/dev/null; then
	rn=$(trace-cmd report "$tmp/live.dat" 2>/dev/null | grep -c ': \(sched_\|sys_e\)')
	check "trace-cmd report reads ktop's live trace.dat ($rn of $lev events)" test "$rn" -eq "$lev"
fi

# --stream | -i -: live data through a pipe, kernel restored afterwards
timeout 30 "$KTOP" --stream --duration 2 2>"$tmp/stream.err" |
	timeout 30 "$KTOP" -i - --batch --interval 0.5 >"$tmp/stream.out" 2>"$tmp/stream.rerr"
rcs=("${PIPESTATUS[@]}")
sev=$(sed -n 's/^Events: [0-9]* this interval, .* \([0-9]*\) since start/\1/p' "$tmp/stream.out" | tail -1)
nsum=$(grep -c '^ktop ' "$tmp/stream.out")
check "ktop --stream | ktop -i - --batch: exit ${rcs[*]}, $nsum summaries, $sev events" \
	test "${rcs[0]}" -eq 0 -a "${rcs[1]}" -eq 0 -a "${sev:-0}" -gt 0 -a "$nsum" -ge 2
# the streaming side's BPF statistics come with the stream (summaries with run-queue rows)
nbpf=$(grep -c '^BPF: \(tp_btf\|raw_tp\) programs' "$tmp/stream.out")
check "ktop --stream | ktop -i - --batch: $nbpf summaries with the streaming side's BPF figures" \
	test "$nbpf" -ge 2
state_same "tracing state unchanged after --stream" "$tmp/state0"
# the reader goes away: the streaming side ends (EPIPE), quietly, kernel restored
timeout 30 "$KTOP" --stream 2>"$tmp/epipe.err" | head -c 100000 >/dev/null
rc=${PIPESTATUS[0]}
check "ktop --stream | head: the streaming side ends with status $rc (0), no message" \
	test "$rc" -eq 0 -a ! -s "$tmp/epipe.err"
state_same "tracing state unchanged after EPIPE" "$tmp/state0"
# SIGHUP (the ssh session dies): the stream ends, the kernel is restored
( "$KTOP" --stream >"$tmp/hup.ktop" 2>"$tmp/hup.err" & echo $! >"$tmp/hup.pid"; wait )&
sleep 2
kill -HUP "$(cat "$tmp/hup.pid")"
wait
hl=$("$T" load "$tmp/hup.ktop" 2>&1)
check "ktop --stream ends on SIGHUP with a whole stream ($hl)" test -n "$(echo "$hl" | grep '^events [1-9]')"
timeout 5 "$KTOP" --stream 2>"$tmp/tty.err" </dev/null >/dev/tty 2>/dev/null
check "ktop --stream to a terminal: refused" test $? -ne 0 -o ! -e /dev/tty

state_same "tracing state unchanged at the end" "$tmp/state0"
finish
