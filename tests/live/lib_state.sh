# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the tracing-state tests (test_state.sh, test_reap.sh): the tools,
# a scratch folder, the ok/FAIL counters, and the root and tools checks.
# Usage: . tests/live/lib_state.sh   (from the repository's top; the test's
# name comes from $0: dash passes no arguments to ".", and TMP was "", the
# scratch files /before, /after... in the root directory)

set -u
TS=build/tools/tracestate
DRIVE=${KTOP_DRIVE:-build/tools/session_drive}
KTOP=${KTOP:-./ktop}
T=/sys/kernel/tracing
TMP=$(mktemp -d "/tmp/ktop-$(basename "$0" .sh).XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0

ok() { echo "ok $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1: $2"; fail=$((fail + 1)); }

if [ "$(id -u)" != 0 ]; then
	echo "FAIL $(basename "$0" .sh): needs root (tracefs is root's)"
	echo "0 passed, 1 failed"
	exit 1
fi
for b in $TS $DRIVE; do
	[ -x $b ] || { echo "FAIL setup: $b missing (make tools)"; echo "0 passed, 1 failed"; exit 1; }
done

# top_claim_or_fail: for the tests whose sessions take the top level on
# purpose (KTOP_TEST_TOP_LEVEL=1): the top-level ring buffer must hold nothing
# of anyone else's (tests/live/lib_marker.sh), else the test ends here
. tests/live/lib_marker.sh
top_claim_or_fail() {
	top_claim && return 0
	echo "FAIL $(basename "$0" .sh): $MARK_WHY"
	echo "0 passed, 1 failed"
	exit 1
}

# snap FILE: the kernel's state raw, every value as the kernel shows it ("7
# (expanded: 1408)" too): printed to FILE for diff, saved to FILE.raw for same_top
snap() { $TS -x -R > "$1" 2>&1; $TS -x -R --save "$1.raw" >> "$1" 2>&1; }

# same_top NAME BEFORE: the state is BEFORE's (a snap) again, after a session
# that ran at the top level on purpose (KTOP_TEST_TOP_LEVEL). On a freshly
# booted kernel the top-level buffer is not allocated yet; such a session
# allocates it, and nothing can undo that. So that one change, and only it,
# is accepted and said: buffer_size_kb "7 (expanded: 1408)" -> "1410", each
# per-CPU buffer_size_kb "7" -> "1410", buffer_total_size_kb likewise
# (tracestate --expanded-ok). Every other file is compared raw. Return: 1 with
# a FAIL line naming the differences.
same_top() {
	if $TS -x --expanded-ok --diff "$2.raw" > "$TMP/diff" 2>&1; then
		grep '^expected:' "$TMP/diff" | sed 's/^/# /'
		return 0
	fi
	bad "$1" "state differs: $(grep -v '^expected:' "$TMP/diff" | head -5 | tr '\n' ' ')"
	return 1
}

# wait_ready FILE: until "ready NAME" shows in FILE (10 s)
wait_ready() {
	i=0
	while [ $i -lt 100 ]; do
		grep -q '^ready' "$1" 2>/dev/null && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
