#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench_snapshot next to itself as it was before .ktop files carried the
# store's sealed chunks: the same benchmark built from KTOP_BENCH_BASE
# (default 6f76397, main before that change) in a temporary directory, run
# on the same machine in the same run, on the same replayed events. Each of
# our figures is printed with the base's after it; the base's own lines are
# notes. KTOP_BENCH_BASE=none skips the base.
#
# Usage: tests/bench/bench_snapshot.sh [EVENTS [BIG_EVENTS]]

set -uo pipefail
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 2

base=${KTOP_BENCH_BASE:-6f76397}
args=("${1:-1000000}" "${2:-10000000}")
ours=build/bench/bench_snapshot
[ -x "$ours" ] || { echo "bench_snapshot: $ours missing (make benches)" >&2; exit 1; }

tmp=$(mktemp -d /tmp/ktop-bench-base.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
declare -A was=()
if [ "$base" != none ]; then
	if git archive "$base" 2>/dev/null | tar -x -C "$tmp" &&
	   make -C "$tmp" -j2 build/bench/bench_snapshot >"$tmp/build.log" 2>&1; then
		(cd "$tmp" && ./build/bench/bench_snapshot "${args[@]}") >"$tmp/base.out" 2>/dev/null
		while read -r _ name value _; do
			was[$name]=$value
		done < <(grep '^bench ' "$tmp/base.out")
	else
		echo "bench_snapshot: cannot build the base $base (not in this clone?): no side-by-side" >&2
	fi
fi

"$ours" "${args[@]}" | while IFS= read -r l; do
	case $l in
	bench\ *)
		read -r _ name value _ <<<"$l"
		if [ -n "${was[$name]:-}" ]; then
			echo "$l [base $base in the same run: ${was[$name]}]"
		else
			echo "$l"
		fi ;;
	*)	echo "$l" >&2 ;;
	esac
done
exit "${PIPESTATUS[0]}"
