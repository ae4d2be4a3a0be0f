# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the tests that check ktop leaves the top level alone
# (tests/live/test_toplevel.sh, tests/tui/test_tui_toplevel.sh): a line in
# the top-level ring buffer, written through trace_marker, must still be
# there after ktop ran. The top level is someone else's: writing its
# trace_marker is the one write the tests make there. Writing current_tracer
# at the top level (as ktop --features did) clears that buffer.

MARK_T=/sys/kernel/tracing
MARK_N=0
MARK=

# marker_put: write a new marker line (in $MARK). Return: 1 with the reason
# in $MARK_WHY when the top level does not record (tracing_on 0: not ours to
# change), so the check would prove nothing.
marker_put() {
	MARK_N=$((MARK_N + 1))
	MARK="ktop-test-marker-$$-$MARK_N-$(date +%s%N)"
	MARK_WHY=
	if [ "$(cat "$MARK_T/tracing_on")" != 1 ]; then
		MARK_WHY="the top level does not record (tracing_on 0): no marker can be placed"
		return 1
	fi
	if ! echo "$MARK" > "$MARK_T/trace_marker"; then
		MARK_WHY="writing $MARK_T/trace_marker failed"
		return 1
	fi
	if ! grep -q "$MARK" "$MARK_T/trace"; then
		MARK_WHY="the marker written is not in $MARK_T/trace"
		return 1
	fi
	return 0
}

# marker_kept: is $MARK still in the top level's trace (read, not consumed)?
marker_kept() {
	grep -q "$MARK" "$MARK_T/trace"
}
