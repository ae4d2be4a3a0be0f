#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The event list's search on a 10 M-event recording whose match lies at the
# oldest end (issue 31), next to grep over the same recording's text export,
# in the same run. No root needed.
#
# The recording: the demo (tests/fixtures/demo.ktop), then copies of its
# events before 107.5 s up to N events (snapshot_tool replicate ... 107.5),
# so that its lines with "comm=vmload pid=224" (vmload's exit, in its tail)
# are there once, N events back. The search runs from the newest event, as
# / does (build/bench/bench_search: the store loaded, the search timed to
# its end); grep -c reads the text export ktop writes of the same recording
# (ktop -i FILE -o FILE.txt), from the page cache. Best of three each.
# Prints:
#   bench search.far_match <s> (the search, its figures)
#   bench search.far_match.anchor <s> (grep -c over the text export; ratio)
#   bench search.far_match_plain <s> (the same search formatting every event)
set -uo pipefail
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 2
KTOP=${KTOP:-./ktop}
N=${KTOP_BENCH_EVENTS:-10000000}
T=build/tools/snapshot_tool
B=build/bench/bench_search
TEXT="comm=vmload pid=224"

[ -x "$KTOP" ] && [ -x "$T" ] && [ -x "$B" ] ||
	{ echo "bench_search: build ktop, tools and benches first"; exit 1; }
tmp=$(mktemp -d /tmp/ktop-bench-search.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

$T replicate tests/fixtures/demo.ktop "$tmp/far.ktop" "$N" 107.5 >/dev/null || exit 1
"$KTOP" -i "$tmp/far.ktop" -m 4G -o "$tmp/far.txt" --batch --iterations 1 >/dev/null 2>"$tmp/err" ||
	{ echo "bench_search: ktop -o far.txt: $(cat "$tmp/err")"; exit 1; }

read -r wall cpu done total formatted skipped at <<< "$("$B" "$tmp/far.ktop" "$TEXT")" ||
	{ echo "bench_search: the search found nothing"; exit 1; }
read -r pwall pcpu _ _ pformatted _ pat <<< "$("$B" "$tmp/far.ktop" "$TEXT" plain)" ||
	{ echo "bench_search: the plain search found nothing"; exit 1; }
[ "$at" = "$pat" ] || { echo "bench_search: the two searches found $at and $pat"; exit 1; }

cat "$tmp/far.txt" >/dev/null	# page cache: grep finds it warm
best= bcpu= lines=
for i in 1 2 3; do
	/usr/bin/time -f '%e %U %S' -o "$tmp/time" grep -c -- "$TEXT" "$tmp/far.txt" >"$tmp/count"
	read -r w u s < "$tmp/time"
	lines=$(cat "$tmp/count")
	if [ -z "$best" ] || [ "$(echo "$w < $best" | bc)" = 1 ]; then
		best=$w
		bcpu=$(echo "$u + $s" | bc)
	fi
done
size=$(du -m "$tmp/far.txt" | cut -f1)
printf 'bench search.far_match %.3f s (/ "%s" from the newest of %s events to its match %s events back (at %s s): %.3f s CPU; %s events given to the line test, %s in chunks skipped unread; best of 3)\n' \
	"$wall" "$TEXT" "$total" "$done" "$at" "$cpu" "$formatted" "$skipped"
printf 'bench search.far_match.anchor %.3f s (grep -c "%s" over the same recording'"'"'s text export, %s MB, %s lines match, warm page cache, best of 3: %.3f s CPU; the search %.1fx faster in wall time, %.1fx in CPU time)\n' \
	"$best" "$TEXT" "$size" "$lines" "$bcpu" "$(echo "$best / $wall" | bc -l)" \
	"$(echo "$bcpu / $cpu" | bc -l)"
printf 'bench search.far_match_plain %.3f s (the same search formatting every event: %s formatted, %.3f s CPU; the layout'"'"'s answers make it %.1fx faster)\n' \
	"$pwall" "$pformatted" "$pcpu" "$(echo "$pwall / $wall" | bc -l)"
