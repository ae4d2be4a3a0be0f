#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Diffing two 10 M-event recordings (issue 29), next to opening one of them,
# in the same run on the same files:
#   first_screen  `ktop -i BASE --diff NEW` under tmux, the screen polled every
#                 10 ms until the CPUs pane shows the diff's rows ("CPUs: N rows,
#                 by change"): both recordings read whole and compared;
#     .anchor     `ktop -i BASE` alone under tmux until the file is in the store
#                 whole (LOADING left the header, SNAPSHOT there), with its first
#                 frame with events (the header's "held N") in the note;
#   batch         `ktop -i BASE --diff NEW --batch` (the diff printed), best of 2;
#     .anchor     `ktop -i BASE --batch --iterations 1` (one summary), best of 2.
# The recordings: two short live recordings of this machine (ktop --batch
# --duration 1 -o, root), NEW with nwrite's 200000 write(2) calls in it (a known
# difference), each copied forward in time to N events (snapshot_tool replicate,
# default 10,000,000). Without root, KTOP_BENCH_KTOP="BASE NEW" names the two
# files to copy (any .ktop or trace.dat). Nothing is committed or left behind.
set -u
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 2
KTOP=${KTOP:-./ktop}
N=${KTOP_BENCH_EVENTS:-10000000}
T=build/tools/snapshot_tool
tmp=$(mktemp -d /tmp/ktop-bench-diff.XXXXXX)
sock=ktop-bench-diff-$$
# the server, then its socket file (tmux leaves it behind)
trap 'tmux -L $sock kill-server 2>/dev/null; rm -rf "$tmp"
      rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock"' EXIT

command -v tmux >/dev/null || { echo "diff_open: tmux missing; skipped" >&2; exit 0; }
[ -x "$KTOP" ] && [ -x "$T" ] || { echo "diff_open: build ktop and tools first"; exit 1; }

if [ -n "${KTOP_BENCH_KTOP:-}" ]; then
	read -r b n <<< "$KTOP_BENCH_KTOP"
	[ -n "$n" ] || { echo "diff_open: KTOP_BENCH_KTOP wants two files: BASE NEW"; exit 1; }
else
	b=$tmp/base-live.ktop n=$tmp/new-live.ktop
	if ! timeout 30 "$KTOP" --batch --duration 1 -o "$b" >/dev/null 2>"$tmp/err"; then
		echo "diff_open: no recording ($(head -1 "$tmp/err")); set KTOP_BENCH_KTOP" >&2
		exit 0
	fi
	build/tools/nwrite 200000 &
	w=$!
	timeout 30 "$KTOP" --batch --duration 1 -o "$n" >/dev/null 2>"$tmp/err" ||
		{ echo "diff_open: NEW not recorded: $(head -1 "$tmp/err")"; exit 1; }
	wait $w
fi
$T replicate "$b" "$tmp/base.ktop" "$N" >/dev/null || exit 1
$T replicate "$n" "$tmp/new.ktop" "$N" >/dev/null || exit 1
rm -f "$tmp/base-live.ktop" "$tmp/new-live.ktop"
cat "$tmp/base.ktop" "$tmp/new.ktop" >/dev/null	# page cache, as for files just written
M=$((N / 1000000))
mb() { du -m "$1" | cut -f1; }

# shown ARGS...: under tmux, "FIRST WHOLE DIFF" milliseconds from the start until the
# header shows events held, until it says SNAPSHOT (the file read whole), and until
# the CPUs pane shows the diff's rows; "-" for what did not come within 120 s.
shown()
{
	local t0 now s first=- whole=- diff=- i

	tmux -L $sock kill-server 2>/dev/null
	t0=$(date +%s%N)
	tmux -L $sock -f /dev/null new-session -d -s t -x 120 -y 40 \
		"$KTOP $* -m 4G 2>'$tmp/stderr'; sleep 600"
	for ((i = 0; i < 12000; i++)); do
		s=$(tmux -L $sock capture-pane -p -t t 2>/dev/null | head -6)
		now=$(( ($(date +%s%N) - t0) / 1000000 ))
		[ "$first" = - ] && echo "$s" | head -2 | grep -q 'held [1-9]' && first=$now
		[ "$whole" = - ] && echo "$s" | head -1 | grep -q 'SNAPSHOT' && whole=$now
		[ "$diff" = - ] && echo "$s" | grep -q 'CPUs: [0-9]* rows, by change' && diff=$now
		case $* in
		*--diff*) [ "$diff" != - ] && break ;;
		*) [ "$whole" != - ] && break ;;
		esac
		sleep 0.01
	done
	tmux -L $sock capture-pane -p -t t >"$tmp/screen"
	tmux -L $sock kill-server 2>/dev/null
	echo "$first $whole $diff"
}

# best2 ARGS...: the best wall time of two runs of ktop ARGS (output to $tmp/out), in s
best2()
{
	local best= w i

	for i in 1 2; do
		/usr/bin/time -f '%e' -o "$tmp/time" "$KTOP" "$@" -m 4G >"$tmp/out" 2>"$tmp/err" ||
			{ echo "diff_open: ktop $* failed: $(tail -1 "$tmp/err")" >&2; return 1; }
		w=$(cat "$tmp/time")
		[ -z "$best" ] || [ "$(echo "$w < $best" | bc)" = 1 ] && best=$w
	done
	echo "$best"
}

read -r _ _ d <<< "$(shown -i "$tmp/base.ktop" --diff "$tmp/new.ktop")"
[ "$d" != - ] || { echo "diff_open: no diff on screen: $(head -c 300 "$tmp/stderr")";
		   sed 's/^/  | /' "$tmp/screen"; exit 1; }
rows=$(grep -o 'CPUs: [0-9]* rows' "$tmp/screen" | head -1)
read -r f1 w1 _ <<< "$(shown -i "$tmp/base.ktop")"
[ "$w1" != - ] || { echo "diff_open: BASE not read whole: $(head -c 300 "$tmp/stderr")"; exit 1; }
held=$(sed -n 's/.* held \([^ ]*\) .*/\1/p' "$tmp/screen" | head -1)
db=$(best2 -i "$tmp/base.ktop" --diff "$tmp/new.ktop" --batch) || exit 1
grep -E '^(BASE|NEW) ' "$tmp/out" | sed "s|$tmp/||; s/^/diff_open: /"
grep -q "^NEW .* $N events" "$tmp/out" ||
	{ echo "diff_open: NEW does not hold $N events"; exit 1; }
ob=$(best2 -i "$tmp/base.ktop" --batch --iterations 1) || exit 1

printf 'bench diff.first_screen_%dM %.3f s (ktop -i BASE --diff NEW under tmux until the diff'"'"'s rows: %s; %d M events each, %s + %s MB; %.1fx the anchor)\n' \
	"$M" "$(echo "$d / 1000" | bc -l)" "$rows" "$M" "$(mb "$tmp/base.ktop")" \
	"$(mb "$tmp/new.ktop")" "$(echo "$d / $w1" | bc -l)"
printf 'bench diff.first_screen_%dM.anchor %.3f s (ktop -i BASE alone under tmux until read whole: %s events held; its first frame with events at %.3f s)\n' \
	"$M" "$(echo "$w1 / 1000" | bc -l)" "$held" "$(echo "$f1 / 1000" | bc -l)"
printf 'bench diff.batch_%dM %.3f s (ktop -i BASE --diff NEW --batch, best of 2; %.1fx the anchor)\n' \
	"$M" "$db" "$(echo "$db / $ob" | bc -l)"
printf 'bench diff.batch_%dM.anchor %.3f s (ktop -i BASE --batch --iterations 1, best of 2)\n' \
	"$M" "$ob"
