# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the tests that check ktop leaves the top level alone
# (tests/live/test_toplevel.sh, tests/tui/test_tui_toplevel.sh) and by the
# ones that take the top level on purpose (top_claim): a line in
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

# top_entries: how many events the top-level ring buffer holds now (per_cpu
# stats, which neither consume nor pause it)
top_entries() {
	sed -n 's/^entries: //p' "$MARK_T"/per_cpu/cpu*/stats | awk '{ s += $1 } END { print s + 0 }'
}

# top_claim: before a check that makes ktop take the top level on purpose
# (KTOP_TEST_TOP_LEVEL=1). ktop refuses a top level whose ring buffer holds
# events (someone else's) without --force. What this suite left there itself
# (the markers above) is cleared; anything else is not ours. Return: 1 with
# the reason in $MARK_WHY, and nothing changed.
top_claim() {
	local held other

	held=$(top_entries)
	[ "$held" = 0 ] && return 0
	other=$(grep -v '^#' "$MARK_T/trace" | grep -cv 'ktop-test-marker-')
	if [ "$other" != 0 ]; then
		MARK_WHY="the top-level ring buffer holds $held events, $other of them not this suite's markers: the checks that take the top level would clear them. Read or save them, clear the top level (echo > $MARK_T/trace), and run again"
		return 1
	fi
	: > "$MARK_T/trace"	# only this suite's own markers: ours to clear
}
