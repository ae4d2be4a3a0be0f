# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the tracing-state tests (test_state.sh, test_reap.sh): the tools,
# a scratch folder, the ok/FAIL counters, and the root and tools checks.
# Usage: . tests/live/lib_state.sh NAME   (from the repository's top)

set -u
TS=build/tools/tracestate
DRIVE=${KTOP_DRIVE:-build/tools/session_drive}
KTOP=${KTOP:-./ktop}
T=/sys/kernel/tracing
TMP=$(mktemp -d "/tmp/ktop-$1.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0

ok() { echo "ok $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1: $2"; fail=$((fail + 1)); }

if [ "$(id -u)" != 0 ]; then
	echo "FAIL $1: needs root (tracefs is root's)"
	echo "0 passed, 1 failed"
	exit 1
fi
for b in $TS $DRIVE; do
	[ -x $b ] || { echo "FAIL setup: $b missing (make tools)"; echo "0 passed, 1 failed"; exit 1; }
done

snap() { $TS -x > "$1" 2>&1; }

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
