#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# trace.dat on the command line (issue 19; issue 18 bug 5), offline: the
# files Debian's trace-cmd 3.1.6 recorded in the rt guests
# (tests/fixtures/tracedat-rt*), read by the ktop binary:
#   - `ktop -i FILE --batch` holds as many events as `trace-cmd report FILE`
#     prints, for every file (versions 6 and 7, zstd and none, two buffers);
#   - FILE@NAME holds only that buffer's events, and -F buffer:NAME keeps
#     them; an unknown NAME is refused with the names there are (exit 2);
#   - ktop's own trace.dat of a function_graph recording (-o, each of
#     --dat-version 6/7 and --dat-compress zstd/none), reopened by ktop, says
#     tracer function_graph and prints the same graph section as the
#     original; trace-cmd report prints the original's lines from it;
#   - truncated and corrupt files, and bad --dat-* values: exit 2, a message
#     naming the file or the option, never a crash.
# No root and no tracefs needed. Prints "ok NAME" / "FAIL NAME: why", then
# "N passed, N failed".

. "$(dirname "$0")/lib_ktop.sh"
need
if ! command -v trace-cmd >/dev/null; then
	echo "FAIL setup: trace-cmd is not installed (make deps)"
	exit 1
fi
files=$(ls tests/fixtures/tracedat-rt*/*.dat 2>/dev/null)
if [ -z "$files" ]; then
	echo "FAIL setup: no tests/fixtures/tracedat-rt*/*.dat (make fixtures)"
	exit 1
fi

# events held by `ktop -i ARG --batch`, from the Store line
held() {
	timeout 20 "$KTOP" -i "$1" --batch --iterations 1 "${@:2}" 2>"$tmp/err" |
		sed -n 's/.*, \([0-9]*\) events held.*/\1/p'
}

# the event lines of `trace-cmd report -N` (no plugins: function_graph's entry and
# exit of a leaf call are two lines; not its cpus=, lost-event and empty-CPU lines)
report_events() {
	trace-cmd report -N "$@" 2>/dev/null |
		grep -vc '^\(cpus=\|version = \|CPU [0-9]* is empty\|CPU:[0-9]*\)'
}

# refused NAME PATTERN ARGS...: `ktop ARGS` exits 2 with a message matching PATTERN
refused() {
	local name=$1 pat=$2 rc
	shift 2
	timeout 20 "$KTOP" "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q -- "$pat" "$tmp/err"; then
		ok "$name: exit 2, $(cat "$tmp/err")"
	else
		fail "$name: exit $rc, '$(cat "$tmp/err")'"
	fi
}

# ---- every file: as many events as trace-cmd report prints ----------------------
for f in $files; do
	name=${f#tests/fixtures/}
	k=$(held "$f")
	r=$(report_events "$f")
	if [ -n "$k" ] && [ "$k" = "$r" ]; then
		ok "$name: ktop -i holds $k events, trace-cmd report prints $r"
	else
		fail "$name: ktop -i holds '${k:-none}' events ($(head -c 200 "$tmp/err")), trace-cmd report prints $r"
	fi
done

# ---- FILE@NAME ----------------------------------------------------------------
for f in tests/fixtures/tracedat-rt*/twobuf-v7.dat; do
	name=${f#tests/fixtures/}
	all=$(held "$f")
	top=$(held "$f@top")
	inst=$(held "$f@ktopb")
	# report prints an instance's events prefixed with its name
	rb=$(trace-cmd report -N "$f" 2>/dev/null | grep -c '^ktopb: ')
	if [ -n "$inst" ] && [ "$inst" = "$rb" ] && [ "$((top + inst))" = "$all" ] && [ "$top" -gt 0 ]; then
		ok "$name@ktopb: $inst events (trace-cmd report's ktopb: lines: $rb), @top $top, all $all"
	else
		fail "$name@NAME: @top '$top' + @ktopb '$inst' (report's ktopb: lines: $rb) != all '$all'"
	fi
	vb=$(timeout 20 "$KTOP" -i "$f" --batch --iterations 1 -F buffer:ktopb 2>&1 |
		sed -n 's/^View: buffer:ktopb: \([0-9]*\) of .*/\1/p')
	check "$name -F buffer:ktopb: ${vb:-no} events match (trace-cmd report's ktopb: lines: $rb)" \
		[ "${vb:-x}" = "$rb" ]
	refused "$name@nosuch" "no buffer 'nosuch'.*top, ktopb" -i "$f@nosuch" --batch
done

# ---- ktop's own trace.dat of function_graph, reopened (bug 5) ----------------------
graph() {
	timeout 20 "$KTOP" -i "$1" --batch --iterations 1 2>&1 | sed -n '/^Function graph:/,$p'
}
for f in tests/fixtures/tracedat-rt*/fgraph-v7.dat; do
	name=${f#tests/fixtures/}
	want=$(graph "$f")
	trace-cmd report "$f" >"$tmp/orig.txt" 2>/dev/null
	for v in "--dat-version 7" "--dat-version 7 --dat-compress none" "--dat-version 6"; do
		rm -f "$tmp/own.dat"
		timeout 20 "$KTOP" -i "$f" --batch --iterations 1 $v -o "$tmp/own.dat" >/dev/null 2>"$tmp/err"
		rc=$?
		trace=$(timeout 20 "$KTOP" -i "$tmp/own.dat" --batch --iterations 1 2>&1 | grep '^Trace:')
		got=$(graph "$tmp/own.dat")
		trace-cmd report "$tmp/own.dat" >"$tmp/own.txt" 2>/dev/null
		if [ $rc -ne 0 ]; then
			fail "$name -o own.dat $v: exit $rc: $(cat "$tmp/err")"
		elif [ -z "$want" ] || [ "$want" != "$got" ]; then
			fail "$name -o own.dat $v: the reopened file's graph differs:"
			diff <(echo "$want") <(echo "$got") | head -n 6 | sed 's/^/    /'
		elif ! echo "$trace" | grep -q 'tracer function_graph'; then
			fail "$name -o own.dat $v, reopened: $trace"
		elif ! cmp -s "$tmp/orig.txt" "$tmp/own.txt"; then
			fail "$name -o own.dat $v: trace-cmd report differs from the original's:"
			diff "$tmp/orig.txt" "$tmp/own.txt" | head -n 6 | sed 's/^/    /'
		else
			ok "$name -o own.dat $v: reopened says tracer function_graph, the same graph ($(echo "$got" | wc -l) lines), trace-cmd report the same $(wc -l <"$tmp/orig.txt") lines"
		fi
	done
	case $(head -c 12 "$tmp/own.dat" | tail -c 2 | od -An -c | tr -d ' ') in
	6\\0) ok "--dat-version 6 writes a version 6 header" ;;
	*) fail "--dat-version 6 wrote: $(head -c 12 "$tmp/own.dat" | od -An -c)" ;;
	esac
done

# ---- bad input: exit 2 and a message ------------------------------------------------
f=$(ls tests/fixtures/tracedat-rt*/fgraph-v7.dat | head -n 1)
size=$(stat -c %s "$f")
n=0
bad=
for cut in 5 12 40 $((size / 4)) $((size / 2)) $((size - 100)) $((size - 1)); do
	head -c "$cut" "$f" >"$tmp/cut.dat"
	timeout 20 "$KTOP" -i "$tmp/cut.dat" --batch >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 2 ] || ! grep -q "^ktop: $tmp/cut.dat: " "$tmp/err"; then
		bad="$bad [$cut bytes: exit $rc, $(head -c 160 "$tmp/err")]"
	fi
	n=$((n + 1))
done
[ -z "$bad" ] && ok "$n truncations of $(basename "$f"): exit 2 and a message naming the file" ||
	fail "truncated: $bad"
# bytes flipped all over the file (headers, compressed sections, pages): read or
# refused with a message, never a crash
refused=0 read=0 bad=
for ((at = 7; at < size; at += size / 23)); do
	cp "$f" "$tmp/flip.dat"
	printf '\x7f\xff\x00\x7f' | dd of="$tmp/flip.dat" bs=1 seek=$at conv=notrunc 2>/dev/null
	timeout 20 "$KTOP" -i "$tmp/flip.dat" --batch >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 0 ]; then
		read=$((read + 1))
	elif [ $rc -eq 2 ] && grep -q "^ktop: $tmp/flip.dat: " "$tmp/err"; then
		refused=$((refused + 1))
	else
		bad="$bad [at $at: exit $rc, $(head -c 160 "$tmp/err")]"
	fi
done
[ -z "$bad" ] && ok "4 bytes overwritten at $((refused + read)) places: $refused refused (exit 2, the file named), $read read" ||
	fail "corrupt: $bad"
cp "$f" "$tmp/v9.dat"
printf '9' | dd of="$tmp/v9.dat" bs=1 seek=10 conv=notrunc 2>/dev/null
refused "version 9" "version '9'" -i "$tmp/v9.dat" --batch
for o in "--dat-version 5" "--dat-compress lz4" "--dat-version 6 --dat-compress zstd"; do
	# shellcheck disable=SC2086
	refused "$o" "--dat-" -i "$f" --batch $o -o "$tmp/x.dat"
	[ ! -e "$tmp/x.dat" ] || fail "$o: wrote $tmp/x.dat"
done

finish
