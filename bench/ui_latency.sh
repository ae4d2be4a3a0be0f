#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Keypress-to-screen latency of ktop's interactive view, measured through tmux:
# send a pane-switch key, poll the screen until the new pane's title shows.
# Target: <= 50 ms. Anchor, same run and method: a shell loop in tmux that
# redraws a line per key (the floor of tmux + the polling itself).
#
#   bench ui.key_latency_p50 V ms / ui.key_latency_p99 V ms
#   bench ui.key_latency_p50.anchor V ms (...)
cd "$(dirname "$0")/.." || exit 2
export LC_ALL=C.UTF-8
KTOP=${KTOP:-./ktop}
N=${UI_LAT_N:-40}
SOCK=ktop-bench-lat-$$
tmp=$(mktemp -d /tmp/ktop-bench-lat.XXXXXX)
trap 'tmux -L $SOCK kill-server 2>/dev/null; rm -rf "$tmp"' EXIT

[ "$(id -u)" = 0 ] || { echo "bench ui.key_latency: needs root" >&2; exit 1; }
command -v tmux >/dev/null || { echo "bench ui.key_latency: tmux missing (make deps)" >&2; exit 1; }
[ -x "$KTOP" ] || { echo "bench ui.key_latency: $KTOP not built" >&2; exit 1; }

scr() { tmux -L $SOCK capture-pane -p -t "$1"; }

now_ns() { date +%s%N; }

# measure SESSION KEY1 PATTERN1 KEY2 PATTERN2: N alternating presses, ms per press
measure() {
	local s=$1 i k p t0 t1 j
	for ((i = 0; i < N; i++)); do
		if ((i % 2)); then k=$2; p=$3; else k=$4; p=$5; fi
		t0=$(now_ns)
		tmux -L $SOCK send-keys -t "$s" "$k"
		for ((j = 0; j < 2000; j++)); do
			scr "$s" | grep -Eq -- "$p" && break
		done
		t1=$(now_ns)
		echo $(( (t1 - t0) / 1000 ))
		sleep 0.05
	done
}

pct() {	# FILE P: the P-th percentile of the microsecond values, in ms
	sort -n "$1" | awk -v p="$2" '{ v[NR] = $1 } END { i = int((NR - 1) * p) + 1; printf "%.1f", v[i] / 1000 }'
}

tmux -L $SOCK -f /dev/null new-session -d -s k -x 120 -y 40 \
	"XDG_CONFIG_HOME=$tmp $KTOP 2>$tmp/err; sleep 60"
for ((i = 0; i < 400; i++)); do scr k | grep -q 'events/s [0-9]' && break; sleep 0.05; done
scr k | grep -q 'events/s' || { echo "bench ui.key_latency: ktop did not start: $(cat $tmp/err)" >&2; exit 1; }
measure k 2 'Top events and functions' 3 'Events: (following|frozen)' > "$tmp/ktop.us"
tmux -L $SOCK send-keys -t k q

tmux -L $SOCK -f /dev/null new-session -d -s a -x 120 -y 40 \
	"bash -c 'while read -rsn1 k; do printf \"\\033[H\\033[2Kgot key %s\" \"\$k\"; done'"
sleep 0.3
measure a 2 'got key 2' 3 'got key 3' > "$tmp/anchor.us"

echo "bench ui.key_latency_p50 $(pct "$tmp/ktop.us" 0.5) ms"
echo "bench ui.key_latency_p99 $(pct "$tmp/ktop.us" 0.99) ms"
echo "bench ui.key_latency_p50.anchor $(pct "$tmp/anchor.us" 0.5) ms (a shell loop redrawing one line per key, same tmux polling)"
echo "bench ui.key_latency_p99.anchor $(pct "$tmp/anchor.us" 0.99) ms (same)"
