#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Keypress-to-screen latency of ktop's interactive view, measured through tmux:
# send a pane-switch key, poll the screen until the new pane's title shows.
# Target: <= 50 ms. Anchor, same run and method: a shell loop in tmux that
# redraws a line per key (the floor of tmux + the polling itself). The screen
# is polled through one tmux control-mode client (no fork per poll).
#
#   bench ui.key_latency_p50 V ms / ui.key_latency_p99 V ms    (through tmux)
#   bench ui.key_to_frame_p50 V ms / ui.key_to_frame_p99 V ms  (inside ktop, from
#                                           KTOP_UI_KEY_LATENCY: poll wake-up to frame sent)
#   bench ui.key_latency_p50.anchor V ms (...)
cd "$(dirname "$0")/.." || exit 2
export LC_ALL=C.UTF-8
KTOP=${KTOP:-./ktop}
N=${UI_LAT_N:-40}
SOCK=ktop-bench-lat-$$
tmp=$(mktemp -d /tmp/ktop-bench-lat.XXXXXX)
trap 'tmux -L $SOCK kill-server 2>/dev/null; rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"; rm -rf "$tmp"' EXIT

[ "$(id -u)" = 0 ] || { echo "bench ui.key_latency: needs root" >&2; exit 1; }
command -v tmux >/dev/null || { echo "bench ui.key_latency: tmux missing (make deps)" >&2; exit 1; }
[ -x "$KTOP" ] || { echo "bench ui.key_latency: $KTOP not built" >&2; exit 1; }

# tmux control mode: one client for the whole run, so polling the screen does
# not fork a tmux client each time (~1 ms a poll instead of ~10).
TM_OUT=
cm_open() {
	coproc TM { tmux -L $SOCK -C attach -t "$1" 2>&1; }
	echo "refresh-client -f no-output" >&"${TM[1]}"
	echo "display-message -p SYNC-$$" >&"${TM[1]}"
	local line
	while IFS= read -r -t 10 line <&"${TM[0]}"; do
		[ "$line" = "SYNC-$$" ] && break
	done
	while IFS= read -r -t 10 line <&"${TM[0]}"; do
		case $line in %end*|%error*) break ;; esac
	done
}

cm_cmd() {	# run a tmux command, its output in TM_OUT
	local line
	echo "$1" >&"${TM[1]}"
	TM_OUT=
	while IFS= read -r -t 10 line <&"${TM[0]}"; do
		case $line in
		%begin*) TM_OUT= ;;
		%end*|%error*) break ;;
		%*) ;;
		*) TM_OUT+="$line"$'\n' ;;
		esac
	done
}

cm_close() {
	echo "detach-client" >&"${TM[1]}" 2>/dev/null
	wait "$TM_PID" 2>/dev/null
}

scr() { tmux -L $SOCK capture-pane -p -t "$1"; }

now_ns() { date +%s%N; }

# measure SESSION KEY1 PATTERN1 KEY2 PATTERN2: N alternating presses, us per press
measure() {
	local s=$1 i k p t0 t1 j
	cm_open "$s"
	for ((i = 0; i < N; i++)); do
		if ((i % 2)); then k=$2; p=$3; else k=$4; p=$5; fi
		t0=$(now_ns)
		cm_cmd "send-keys -t $s $k"
		for ((j = 0; j < 5000; j++)); do
			cm_cmd "capture-pane -p -t $s"
			[[ $TM_OUT =~ $p ]] && break
		done
		t1=$(now_ns)
		echo $(( (t1 - t0) / 1000 ))
		sleep 0.05
	done
	cm_close
}

pct() {	# FILE P: the P-th percentile of the microsecond values, in ms
	sort -n "$1" | awk -v p="$2" '{ v[NR] = $1 } END { i = int((NR - 1) * p) + 1; printf "%.1f", v[i] / 1000 }'
}

tmux -L $SOCK -f /dev/null new-session -d -s k -x 120 -y 40 \
	"XDG_CONFIG_HOME=$tmp KTOP_UI_KEY_LATENCY=$tmp/inproc.ns $KTOP ${UI_LAT_ARGS:-} 2>$tmp/err; sleep 60"
for ((i = 0; i < 400; i++)); do scr k | grep -q 'events/s [0-9]' && break; sleep 0.05; done
scr k | grep -q 'events/s' || { echo "bench ui.key_latency: ktop did not start: $(cat $tmp/err)" >&2; exit 1; }
measure k 2 'Top events and functions' 3 'Events: (following|frozen)' > "$tmp/ktop.us"
rate=$(scr k | grep -Eo 'events/s [0-9.]+[kMG]?' | head -1)

# the anchor runs while ktop still runs (and collects), so both see the same load
tmux -L $SOCK -f /dev/null new-session -d -s a -x 120 -y 40 \
	"bash -c 'while read -rsn1 k; do printf \"\\033[H\\033[2Kgot key %s\" \"\$k\"; done'"
sleep 0.3
measure a 2 'got key 2' 3 'got key 3' > "$tmp/anchor.us"

tmux -L $SOCK send-keys -t k q
for ((i = 0; i < 100; i++)); do [ -s "$tmp/inproc.ns" ] && break; sleep 0.05; done
awk '!/busy/ { print int($1 / 1000) }' "$tmp/inproc.ns" > "$tmp/inproc.us" 2>/dev/null
awk '/busy/ { n++; if ($2 > m) m = $2 } END { printf "ktop: %d loop iterations away from poll() > 2 ms, longest %.1f ms\n", n, m / 1e6 }' "$tmp/inproc.ns" >&2

echo "bench ui.key_latency_p50 $(pct "$tmp/ktop.us" 0.5) ms (through tmux, $rate)"
echo "bench ui.key_latency_p99 $(pct "$tmp/ktop.us" 0.99) ms"
if [ -s "$tmp/inproc.us" ]; then
	echo "bench ui.key_to_frame_p50 $(pct "$tmp/inproc.us" 0.5) ms (inside ktop: poll wake-up to frame sent, $rate)"
	echo "bench ui.key_to_frame_p99 $(pct "$tmp/inproc.us" 0.99) ms"
fi
echo "bench ui.key_latency_p50.anchor $(pct "$tmp/anchor.us" 0.5) ms (a shell loop redrawing one line per key, same tmux polling, ktop running alongside)"
echo "bench ui.key_latency_p99.anchor $(pct "$tmp/anchor.us" 0.99) ms (same)"
