#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Build and run the libFuzzer targets (tests/fuzz/fuzz_*.c) for a bounded
# time: FUZZ_SECONDS in total (default 60), split between the targets.
# Each target starts from its corpus in tests/fuzz/corpus/ (copied: the
# repository's corpus is not changed; FUZZ_KEEP=1 merges new inputs back).
# Prints "ok NAME ..." or "FAIL NAME: ..." per target, then "N passed, N failed".
# No root needed.

set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2

total=${FUZZ_SECONDS:-60}
pass=0
fail=0
work=$(mktemp -d /tmp/ktop-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT

if ! make --no-print-directory -j2 fuzz >"$work/build.log" 2>&1; then
	echo "FAIL fuzz-build: make fuzz failed (clang and libclang-rt-14-dev are needed):"
	tail -n 15 "$work/build.log" | sed 's/^/    /'
	echo "0 passed, 1 failed"
	exit 1
fi

shopt -s nullglob
bins=(build-fuzz/fuzz_*)
shopt -u nullglob
if [ ${#bins[@]} -eq 0 ]; then
	echo "FAIL fuzz: no targets built in build-fuzz/"
	echo "0 passed, 1 failed"
	exit 1
fi
per=$((total / ${#bins[@]}))
[ "$per" -lt 5 ] && per=5

for b in "${bins[@]}"; do
	name=$(basename "$b")
	corpus=$work/$name.corpus
	mkdir -p "$corpus" "$work/$name.art"
	cp tests/fuzz/corpus/* "$corpus"/ 2>/dev/null
	(cd "$work/$name.art" && timeout -k 5 $((per + 60)) "$OLDPWD/$b" \
		-max_total_time="$per" -timeout=10 -rss_limit_mb=1024 -max_len=65536 \
		-print_final_stats=1 "$corpus") >"$work/$name.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$name.log" | tail -n 1)
	crash=$(ls "$work/$name.art" 2>/dev/null | head -n 1)
	if [ "$rc" -eq 0 ] && [ -z "$crash" ]; then
		echo "ok $name: ${runs:-?} inputs in ${per}s, no crash, no leak, no hang"
		pass=$((pass + 1))
		if [ "${FUZZ_KEEP:-0}" = 1 ]; then
			"$b" -merge=1 tests/fuzz/corpus "$corpus" >/dev/null 2>&1
		fi
	else
		mkdir -p build-fuzz/artifacts
		[ -n "$crash" ] && cp "$work/$name.art/$crash" build-fuzz/artifacts/
		echo "FAIL $name: exit status $rc${crash:+, input kept in build-fuzz/artifacts/$crash}"
		# the seed: with -seed=N and the same corpus, libFuzzer makes the same inputs again
		grep -E 'INFO: Seed:|ERROR|SUMMARY|#[0-9]+ 0x' "$work/$name.log" | head -n 13 |
			sed 's/^/    /'
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
