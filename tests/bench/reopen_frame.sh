#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Reopening a 10 M-event snapshot to the first frame (issue 9: <= 1 s).
# A 10 M-event .ktop is made from a short live recording (ktop --batch -o,
# needs root; or $KTOP_BENCH_KTOP, any .ktop) by copying its events forward
# in time (snapshot_tool replicate). Then `ktop -i FILE` runs under tmux and
# the screen is polled every 10 ms:
#   first_frame  the header shows events held (the loader thread's first
#                blocks are in the store and the panes draw them);
#   anchor       the whole file is in the store (LOADING left the header).
set -u
cd "$(dirname "$0")/../.." || exit 2
KTOP=${KTOP:-./ktop}
N=${KTOP_BENCH_EVENTS:-10000000}
tmp=$(mktemp -d /tmp/ktop-bench-reopen.XXXXXX)
sock=ktop-bench-reopen-$$
trap 'tmux -L $sock kill-server 2>/dev/null; rm -rf "$tmp"' EXIT

command -v tmux >/dev/null || { echo "reopen_frame: tmux missing" >&2; exit 0; }
src=${KTOP_BENCH_KTOP:-}
if [ -z "$src" ]; then
	src=$tmp/live.ktop
	if ! timeout 30 "$KTOP" --batch --duration 1 -o "$src" >/dev/null 2>"$tmp/err"; then
		echo "reopen_frame: no recording ($(head -1 "$tmp/err")); set KTOP_BENCH_KTOP" >&2
		exit 0
	fi
fi
build/tools/snapshot_tool replicate "$src" "$tmp/big.ktop" "$N" || exit 1
cat "$tmp/big.ktop" >/dev/null	# page cache, as for a file just written
M=$((N / 1000000))

t0=$(date +%s%N)
tmux -L $sock -f /dev/null new-session -d -s t -x 120 -y 40 \
	"$KTOP -i '$tmp/big.ktop' -m 4G 2>'$tmp/stderr'; sleep 600"
first= all=
for ((i = 0; i < 12000; i++)); do
	s=$(tmux -L $sock capture-pane -p -t t 2>/dev/null | head -2)
	now=$(date +%s%N)
	if [ -z "$first" ] && echo "$s" | grep -q 'held [1-9]'; then
		first=$(( (now - t0) / 1000000 ))
	fi
	if echo "$s" | grep -q 'SNAPSHOT'; then
		all=$(( (now - t0) / 1000000 ))
		break
	fi
	sleep 0.01
done
held=$(tmux -L $sock capture-pane -p -t t | sed -n 's/.* held \([^ ]*\) .*/\1/p' | head -1)
[ -n "$first" ] || { echo "reopen_frame: no frame: $(cat "$tmp/stderr")" >&2; exit 1; }
printf 'bench snapshot.reopen_%dM_first_frame %.3f s (target <= 1 s; ktop -i under tmux, header with events)\n' \
	"$M" "$(echo "$first / 1000" | bc -l)"
printf 'bench snapshot.reopen_%dM_first_frame.anchor %.3f s (the same file loaded whole: %s events held)\n' \
	"$M" "$(echo "${all:-0} / 1000" | bc -l)" "$held"
