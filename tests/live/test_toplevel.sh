#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Live, as root: ktop leaves the top level alone unless the top level is its
# session (issue 14). A marker line written to the top-level trace_marker
# must survive, and every top-level file must read exactly as before, raw
# ("7 (expanded: 1408)" on a fresh boot included: tracestate -R), after:
#  - ktop --features (which used to write 'function' to the top-level
#    current_tracer when an instance refused it: the kernel clears the
#    top-level buffer before it refuses);
#  - refused requests (exit 2): an unknown event, a tracer the kernel refuses;
#  - a normal run, ktop --batch --duration 1;
#  - a run that would take the top level (a tracer only the top level runs;
#    KTOP_TEST_TOP_LEVEL=1 stands in for one): refused, exit 2, while the
#    top-level ring buffer holds another tool's events, and it says --force.
# The TUI counterpart is tests/tui/test_tui_toplevel.sh; the freshly booted
# case (where the top-level buffer is not allocated yet) runs in the qemu
# guests, tests/vm/guest/scenario-00-fresh-state.sh.

cd "$(dirname "$0")/../.." || exit 2
. tests/live/lib_ktop.sh
. tests/live/lib_marker.sh
need tracestate
[ "$(id -u)" = 0 ] || { echo "FAIL setup: needs root (tracefs is root's)"; exit 1; }

# left_alone NAME WANT_RC CMD...: run CMD with a fresh marker and a raw state
# saved before; check its exit status, the marker and the state
left_alone() {
	local name=$1 want=$2 rc
	shift 2
	if ! marker_put; then
		fail "$name: $MARK_WHY"
		return
	fi
	state_save "$tmp/state"
	"$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	if [ $rc -ne "$want" ]; then
		fail "$name: exit status $rc, not $want: $(head -c 300 "$tmp/err")"
	elif marker_kept; then
		ok "$name: the top level's trace_marker line is still there"
	else
		fail "$name: the top-level ring buffer was cleared (marker '$MARK' gone)"
	fi
	state_same "$name: top-level files raw as before" "$tmp/state"
}

left_alone "--features" 0 "$KTOP" --features
grep -E '^(function|function_graph) ' "$tmp/out" | sed 's/^/  # /'
left_alone "refused: -e nosuch" 2 "$KTOP" --batch -e nosuch
check "refused: -e nosuch says why" grep -q "unknown event 'nosuch'" "$tmp/err"
if grep -qw function "$TRACEFS/available_tracers"; then
	"$KTOP" --features > "$tmp/feat" 2>&1
	if grep -E '^function ' "$tmp/feat" | grep -q 'not permitted'; then
		left_alone "refused: -p function (EPERM here)" 2 "$KTOP" --batch -p function
		check "refused: -p function says EPERM in an instance, not at the top level" \
			grep -q "not permitted here: writing current_tracer in an instance" "$tmp/err"
	fi
fi
left_alone "--batch --duration 1" 0 "$KTOP" --batch --duration 1
check "--batch --duration 1 printed a summary" grep -q '^Events:' "$tmp/out"
left_alone "top-level run over another tool's events" 2 \
	env KTOP_TEST_TOP_LEVEL=1 "$KTOP" --batch --duration 1 -e sched
check "top-level run: says what the buffer holds and --force" \
	grep -q "top-level ring buffer holds [0-9]* event.*--force to discard" "$tmp/err"
finish
