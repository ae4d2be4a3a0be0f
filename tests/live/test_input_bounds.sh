#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Hostile or broken input, offline (issue 14, findings 6 and 7):
#   - a truncated stream on `-i -` is bad input as a truncated file is: exit
#     status 2 and the same message, naming standard input;
#   - a SIGKILL during a trace.dat export leaves /tmp/ktop-tracedat.PID.*
#     behind; the next export removes it;
# No root and no tracefs needed. Prints "ok NAME" / "FAIL NAME: why", then
# "N passed, N failed".

. "$(dirname "$0")/lib_ktop.sh"
need snapshot_tool
T=$TOOLS/snapshot_tool
DEMO=tests/fixtures/demo.ktop

# ---- a truncated stream: exit 2, as a truncated file --------------------------

head -c 20000 "$DEMO" >"$tmp/trunc.ktop"
timeout 20 "$KTOP" -i "$tmp/trunc.ktop" --batch >/dev/null 2>"$tmp/file.err"
rcf=$?
timeout 20 "$KTOP" -i - --batch <"$tmp/trunc.ktop" >/dev/null 2>"$tmp/stream.err"
rcs=$?
msgf=$(sed "s|$tmp/trunc.ktop|NAME|" "$tmp/file.err")
msgs=$(sed "s|standard input|NAME|" "$tmp/stream.err")
if [ $rcf -eq 2 ] && [ $rcs -eq 2 ] && [ "$msgf" = "$msgs" ] && grep -q '^ktop: standard input: truncated' "$tmp/stream.err"; then
	ok "truncated -i - and truncated file: both exit 2, '$(cat "$tmp/stream.err")'"
else
	fail "truncated: file exit $rcf '$(cat "$tmp/file.err")', stream exit $rcs '$(cat "$tmp/stream.err")'"
fi

# ---- SIGKILL during a trace.dat export: the next export removes its tree ------

ls -d /tmp/ktop-tracedat.* 2>/dev/null | sort >"$tmp/tdat.before"
"$T" replicate "$DEMO" "$tmp/big.ktop" 2000000 >/dev/null 2>&1
"$KTOP" -i "$tmp/big.ktop" --batch -o "$tmp/big.dat" >/dev/null 2>&1 &
kpid=$!
left=
for ((i = 0; i < 200; i++)); do
	left=$(ls -d /tmp/ktop-tracedat.* 2>/dev/null | sort | comm -13 "$tmp/tdat.before" -)
	[ -n "$left" ] && break
	sleep 0.05
done
kill -KILL $kpid 2>/dev/null
wait $kpid 2>/dev/null
rm -f "$tmp"/big.dat*
if [ -z "$left" ] || [ ! -d "$left" ]; then
	fail "trace.dat export: no temporary tree seen before the SIGKILL (the test cannot tell)"
else
	case "$left" in
	/tmp/ktop-tracedat.$kpid.*) ok "trace.dat export's temporary tree is named for its PID ($left)" ;;
	*) fail "trace.dat export's temporary tree $left is not named for its PID $kpid" ;;
	esac
	timeout 20 "$KTOP" -i "$DEMO" --batch -o "$tmp/small.dat" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "the next trace.dat export: exit $rc: $(cat "$tmp/err")"
	elif [ -e "$left" ]; then
		fail "the next trace.dat export left the dead export's $left in place"
		rm -rf "$left"
	else
		ok "the next trace.dat export removed the dead export's $left"
	fi
	now=$(ls -d /tmp/ktop-tracedat.* 2>/dev/null | sort | comm -13 "$tmp/tdat.before" -)
	check "no ktop-tracedat tree left after that export (${now:-none})" test -z "$now"
fi

finish
