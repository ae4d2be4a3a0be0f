#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Opening a trace.dat (issues 15 and 19): `ktop -i FILE --batch --iterations 1`
# next to `trace-cmd report FILE > /dev/null` on the same file, in the same
# run (target: ktop >= 20x faster), for version 6, version 7 uncompressed and
# version 7 zstd. No root needed.
#
# The files: the raw_syscalls recording Debian's trace-cmd made in the 6.12-rt
# guest (tests/fixtures/tracedat-rt612/lost-v7.dat) is copied forward in time
# to N events (snapshot_tool replicate, default 2,000,000) and written by
# ktop in the three variants (-o FILE.dat --dat-version/--dat-compress);
# trace-cmd report prints every event of each (checked: its line count).
# KTOP_BENCH_DAT="FILE..." measures files of your own instead (e.g. ones
# `trace-cmd record` wrote).
# Prints per variant:
#   bench tracedat.read_VARIANT <M events/s> (wall time, events, size)
#   bench tracedat.read_VARIANT.anchor <M events/s> (trace-cmd report ...; ratio)
set -uo pipefail
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 2
KTOP=${KTOP:-./ktop}
N=${KTOP_BENCH_EVENTS:-2000000}
T=build/tools/snapshot_tool
SRC=tests/fixtures/tracedat-rt612/lost-v7.dat

command -v trace-cmd >/dev/null || { echo "tracedat_read: trace-cmd not installed; skipped"; exit 0; }
[ -x "$KTOP" ] && [ -x "$T" ] || { echo "tracedat_read: build ktop and tools first"; exit 1; }
tmp=$(mktemp -d /tmp/ktop-bench-tracedat.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# "WALL CPU" seconds of a command (CPU: user + sys), its output to /dev/null
timed()
{
	/usr/bin/time -f '%e %U %S' -o "$tmp/time" "$@" >/dev/null 2>>"$tmp/err" ||
		{ echo "tracedat_read: $* failed: $(tail -1 "$tmp/err")"; return 1; }
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$tmp/time"
}

files=()
if [ -n "${KTOP_BENCH_DAT:-}" ]; then
	for f in $KTOP_BENCH_DAT; do
		files+=("$(basename "${f%.dat}"):$f")
	done
else
	$T replicate "$SRC" "$tmp/big.ktop" "$N" >/dev/null || exit 1
	for v in "v6 --dat-version 6" "v7none --dat-compress none" "v7zstd --dat-compress zstd"; do
		set -- $v
		"$KTOP" -i "$tmp/big.ktop" -m 4G --batch --iterations 1 "${@:2}" \
			-o "$tmp/$1.dat" >/dev/null 2>"$tmp/err" ||
			{ echo "tracedat_read: ktop -o $1.dat: $(cat "$tmp/err")"; exit 1; }
		files+=("$1:$tmp/$1.dat")
	done
	rm -f "$tmp/big.ktop"
fi

status=0
for e in "${files[@]}"; do
	name=${e%%:*}
	f=${e#*:}
	cat "$f" >/dev/null	# page cache: both readers find it warm
	# ktop: best of three (the machine is shared)
	best= cpu=
	for i in 1 2 3; do
		read -r w c <<< "$(timed "$KTOP" -i "$f" -m 4G --batch --iterations 1)" || exit 1
		[ -z "$best" ] || [ "$(echo "$w < $best" | bc)" = 1 ] && best=$w cpu=$c
	done
	held=$("$KTOP" -i "$f" -m 4G --batch --iterations 1 | sed -n 's/.*, \([0-9]*\) events held.*/\1/p')
	read -r rep rcpu <<< "$(timed trace-cmd report "$f")" || exit 1
	lines=$(trace-cmd report "$f" 2>/dev/null | grep -vc '^\(cpus=\|version = \|CPU [0-9]* is empty\|CPU:[0-9]*\)')
	size=$(du -m "$f" | cut -f1)
	printf 'bench tracedat.read_%s %.2f Mevents/s (ktop -i FILE --batch --iterations 1: %.3f s wall, %.3f s CPU, best of 3; %s events, %s MB)\n' \
		"$name" "$(echo "$held / $best / 1000000" | bc -l)" "$best" "$cpu" "$held" "$size"
	printf 'bench tracedat.read_%s.anchor %.2f Mevents/s (trace-cmd report FILE > /dev/null: %.3f s wall, %.3f s CPU, %s lines; ktop %.1fx faster in wall time, %.1fx in CPU time; target >= 20x)\n' \
		"$name" "$(echo "$lines / $rep / 1000000" | bc -l)" "$rep" "$rcpu" "$lines" \
		"$(echo "$rep / $best" | bc -l)" "$(echo "$rcpu / $cpu" | bc -l)"
	if [ "$lines" != "$held" ]; then
		echo "tracedat_read: $name: trace-cmd report printed $lines event lines, ktop holds $held"
		status=1
	fi
done
exit $status
