# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for the live tests (sourced, not run). Run from the repo root.

KTOP=${KTOP:-./ktop}
TOOLS=${KTOP_TOOLS:-build/tools}
TRACEFS=/sys/kernel/tracing
export LC_ALL=C

npass=0
nfail=0
tmp=$(mktemp -d /tmp/ktop-live.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

ok() {
	echo "ok $*"
	npass=$((npass + 1))
}

fail() {
	echo "FAIL $*"
	nfail=$((nfail + 1))
}

# check NAME CONDITION-COMMAND... : ok or FAIL by the command's status
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else fail "$name"; fi
}

finish() {
	echo "$npass passed, $nfail failed"
	[ "$nfail" -eq 0 ]
	exit
}

need() {
	if [ ! -x "$KTOP" ]; then
		echo "FAIL setup: $KTOP is not built (make ktop)"
		exit 1
	fi
	for t in "$@"; do
		if [ ! -x "$TOOLS/$t" ]; then
			echo "FAIL setup: $TOOLS/$t is not built (make tools)"
			exit 1
		fi
	done
}

# The kernel's tracing state, raw (every value as the kernel shows it, "7
# (expanded: 1408)" too), ignoring instances of other live ktops (other
# people may run ktop on this machine at the same time).
state_save() {
	"$TOOLS/tracestate" -x -R --save "$1"
}

# state_same NAME SAVED: compare now with SAVED, show the differences.
state_same() {
	local out
	out=$("$TOOLS/tracestate" -x --diff "$2" 2>&1)
	if [ $? -eq 0 ]; then
		ok "$1"
	else
		fail "$1: tracing state changed:"
		echo "$out" | head -20 | sed 's/^/    /'
	fi
}

# no_instance NAME PID: ktop-PID is gone
no_instance() {
	if [ -e "$TRACEFS/instances/ktop-$2" ]; then
		fail "$1: instance ktop-$2 left behind"
	else
		ok "$1"
	fi
}

# wait_for FILE PATTERN SECONDS: until grep -q PATTERN FILE
wait_for() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# after_lines FILE N SECONDS: wait until FILE has N more lines than now
after_lines() {
	local want i
	want=$(($(wc -l <"$1") + $2))
	for ((i = 0; i < $3 * 10; i++)); do
		[ "$(wc -l <"$1")" -ge "$want" ] && return 0
		sleep 0.1
	done
	return 1
}
