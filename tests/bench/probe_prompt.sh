#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The probe prompt, end to end as a person sees it: ktop under tmux, the
# event list shown, build/tools/probe_target calling ktop_probe_word every
# millisecond; the prompt (K) holds the spec and its preview is drawn; then
# Enter, and the clock runs until the probe's first event is on the screen
# (tmux capture-pane, polled every 10 ms: the figure includes that polling
# and tmux's own delay). Each round removes the probe again (K, Ctrl-D).
#
# Anchor, in the same session: a line written to ktop's instance's
# trace_marker until it is on the screen, the same way: what any new event
# takes to reach the screen (the readers' wake-up, a frame, tmux), without
# making a probe. The difference is the prompt's own cost: defining the
# probe, the readers stopping and starting while the decoders learn its
# format (KTOP_DEBUG_START's "probe:" lines give those steps; their sum is
# reported as probe.prompt_add_ms).
#
# Prints:
#   bench probe.prompt_first_event_s V s
#   bench probe.prompt_first_event_s.anchor.marker V s (...)
#   bench probe.prompt_add_ms V ms
# Environment: KTOP_BENCH_ROUNDS (default 5).
set -u
cd "$(dirname "$0")/../.." || exit 2
export LC_ALL=C.UTF-8

KTOP=${KTOP:-./ktop}
TOOLS=${KTOP_TOOLS:-build/tools}
ROUNDS=${KTOP_BENCH_ROUNDS:-5}
TRACEFS=/sys/kernel/tracing
SOCK=ktop-bench-pp-$$
tmp=$(mktemp -d /tmp/ktop-bench-pprompt.XXXXXX)
loadpid=""
cleanup() {
	[ -n "$loadpid" ] && kill "$loadpid" 2>/dev/null
	tmux -L "$SOCK" kill-server 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

command -v tmux > /dev/null || { echo "bench probe_prompt: tmux missing (make deps)"; exit 1; }
[ -x "$TOOLS/probe_target" ] || { echo "bench probe_prompt: $TOOLS/probe_target not built (make tools)"; exit 1; }
[ -x "$KTOP" ] || { echo "bench probe_prompt: $KTOP not built"; exit 1; }
TARGET=$(readlink -f "$TOOLS/probe_target")

scr() { tmux -L "$SOCK" capture-pane -p -t t 2>/dev/null; }
keys() { tmux -L "$SOCK" send-keys -t t "$@"; }
now() { date +%s.%N; }
# wait_re REGEX SECONDS: poll the screen every 10 ms
wait_re() {
	local i
	for ((i = 0; i < $2 * 100; i++)); do
		scr | grep -Eq -- "$1" && return 0
		sleep 0.01
	done
	return 1
}

tmux -L "$SOCK" -f /dev/null new-session -d -s t -x 200 -y 50 \
	"KTOP_DEBUG_START=1 $KTOP --no-bpf -e sched:sched_kthread_stop 2> $tmp/err; sleep 600"
wait_re '^ ktop tracer' 30 || { echo "bench probe_prompt: ktop did not start: $(head -c 300 "$tmp/err")"; exit 1; }
sh=$(tmux -L "$SOCK" display-message -p -t t '#{pane_pid}')
kpid=$(pgrep -P "$sh" -x ktop)
marker=$TRACEFS/instances/ktop-$kpid/trace_marker
[ -w "$marker" ] || { echo "bench probe_prompt: no instance ktop-$kpid"; exit 1; }
"$TARGET" 1000000000 1 > /dev/null &
loadpid=$!
keys 3

# a median of the numbers in file $1
median() {
	sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

for ((r = 1; r <= ROUNDS; r++)); do
	# the anchor: a marker line to the screen
	t0=$(now)
	echo "bench-anchor-$r" > "$marker"
	wait_re "tracing_mark_write: bench-anchor-$r\$|print: .*bench-anchor-$r" 10 ||
		{ echo "bench probe_prompt: the marker never showed"; scr | tail -5; exit 1; }
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' >> "$tmp/anchor"
	# the prompt: the spec typed and previewed, then Enter to the first event
	keys K
	# a name of its own each round: the events of the rounds before stay on the list
	keys -l "bench$r=$TARGET:ktop_probe_word \$arg1:string n=\$arg2:s32"
	wait_re "writes p:ktop_[0-9]+/bench$r " 10 ||
		{ echo "bench probe_prompt: no preview"; scr | tail -15; exit 1; }
	lines=$(wc -l < "$tmp/err")
	t0=$(now)
	keys Enter
	wait_re " bench$r: __probe_ip=0x[0-9a-f]+ arg1=word-" 10 ||
		{ echo "bench probe_prompt: no event on screen"; scr | tail -15; exit 1; }
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' >> "$tmp/prompt"
	# the steps ktop took (KTOP_DEBUG_START), from the Enter to enabled
	tail -n +"$((lines + 1))" "$tmp/err" | awk '/start: probe: (defined|readers|enabled)/ { s += $(NF - 4) } END { printf "%.1f\n", s }' >> "$tmp/add"
	echo "round $r: marker $(tail -1 "$tmp/anchor") s, Enter to the first event $(tail -1 "$tmp/prompt") s (ktop's part: $(tail -1 "$tmp/add") ms)"
	# remove it again (the list has one probe: it is selected)
	keys K C-d
	wait_re 'no probes yet' 10 || { echo "bench probe_prompt: not removed"; exit 1; }
	keys Escape
	sleep 0.3
done
kill "$loadpid" 2>/dev/null
loadpid=""
keys q
sleep 1
echo "bench probe.prompt_first_event_s $(median "$tmp/prompt") s"
echo "bench probe.prompt_first_event_s.anchor.marker $(median "$tmp/anchor") s (a trace_marker line to the screen, same session, same polling)"
echo "bench probe.prompt_add_ms $(median "$tmp/add") ms"
