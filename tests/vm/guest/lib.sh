# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers sourced by every guest scenario (busybox ash).  A scenario prints
# what it saw, calls fail() on the first wrong thing, and exits 0 when all
# was right.  Every line it prints is evidence the host shows on failure.

T=/sys/kernel/tracing

# The functions of a read(2) of /dev/zero, for function_graph runs with
# -g vfs_read. Without a function filter the kernel patches all ~38000
# functions: under TCG that alone takes ~23 s per start, and everything after
# runs through the graph trampoline. The tree is the same shape: vfs_read ->
# rw_verify_area -> security_file_permission, vfs_read -> read_zero.
FG_READ_PATH="-l vfs_read -l rw_verify_area -l security_file_permission -l read_zero"

# Options for every ktop started by ktop_start and kstart (the batch runs):
# no BPF statistics, whose loading costs 0.5-3 s per start under TCG. The
# BPF programs are tested on the host (tests/live/test_bpf.sh) and load in
# the guest's TUI scenarios, which start ktop with its defaults.
KTOP_GUEST_OPTS=${KTOP_GUEST_OPTS---no-bpf}

# Each line starts with the guest's uptime: where a scenario's time goes.
note()
{
	local up rest
	read -r up rest < /proc/uptime
	echo "[$up] $*"
}

fail()
{
	echo "FAIL: $*"
	exit 1
}

# Print a file's content with its name, for the evidence.
show()
{
	echo "--- $1:"
	head -n "${2:-20}" "$1" 2>&1 | sed 's/^/  /'
}

# ktop or a tool is in the initramfs, or this scenario cannot run.
need()
{
	command -v "$1" > /dev/null || fail "$1 is not in the initramfs (not built on the host?)"
}

# Back to the boot state, like rtla's tests/engine.sh does before each case.
# Only what differs is written: on a fresh boot the top-level buffer is not
# allocated yet ("7 (expanded: 1408)"), and writing current_tracer, an event's
# enable (even 0) or set_event there would allocate it for good, which the
# fresh-state scenario must be the first to see.
tracing_reset()
{
	local i v
	for i in "$T"/instances/*; do
		[ -d "$i" ] || continue
		echo nop > "$i/current_tracer" 2>/dev/null
		echo 0 > "$i/events/enable" 2>/dev/null
		rmdir "$i" 2>/dev/null
	done
	[ "$(cat "$T/tracing_on")" = 0 ] || echo 0 > "$T/tracing_on"
	[ "$(cat "$T/current_tracer")" = nop ] || echo nop > "$T/current_tracer"
	[ -z "$(cat "$T/set_event")" ] || echo 0 > "$T/events/enable"
	for i in set_ftrace_filter set_ftrace_notrace set_graph_function set_graph_notrace \
		 set_ftrace_pid set_event_pid set_event_notrace_pid set_ftrace_notrace_pid; do
		[ -e "$T/$i" ] || continue
		v=$(grep -v '^#' "$T/$i" 2>/dev/null)
		[ -z "$v" ] || [ "$v" = "no pid" ] || echo > "$T/$i"
	done
	[ -f /tmp/boot_buffer_size_kb ] || cat "$T/buffer_size_kb" > /tmp/boot_buffer_size_kb
	# "7 (expanded: 1408)" once allocated cannot go back: its size then is 1408
	v=$(sed 's/.*(expanded: \([0-9]*\)).*/\1/' /tmp/boot_buffer_size_kb)
	case $(cat "$T/buffer_size_kb") in
	"$(cat /tmp/boot_buffer_size_kb)"|*"(expanded:"*) ;;
	*) echo "$v" > "$T/buffer_size_kb" ;;
	esac
	echo > "$T/trace"
	echo 1 > "$T/tracing_on"
}

# What a plain event enable in a scratch instance does to the kernel, once:
# the baseline ktop is compared with (see runner.sh and scenario 00).
plain_enable_baseline()
{
	local d="$T/instances/vm-baseline"
	[ -f /tmp/plain_enable_done ] && return 0
	mkdir "$d" || return 1
	echo 1 > "$d/events/sched/sched_switch/enable"
	echo 0 > "$d/events/sched/sched_switch/enable"
	rmdir "$d"
	: > /tmp/plain_enable_done
}

# Everything a tracing session can change, one "name: value" per line, so two
# dumps can be diffed.  build/tools/tracestate does the same from C when it is
# in the initramfs; both are printed on a mismatch.
tracing_state_sh()
{
	local d f
	for d in "$T" "$T"/instances/*; do
		[ -d "$d" ] || continue
		echo "dir: ${d#$T}"
		for f in current_tracer tracing_on buffer_size_kb tracing_cpumask trace_clock \
			 set_ftrace_filter set_ftrace_notrace set_graph_function set_graph_notrace \
			 set_ftrace_pid set_event_pid set_event_notrace_pid set_ftrace_notrace_pid \
			 set_event tracing_thresh buffer_percent; do
			[ -r "$d/$f" ] || continue
			sed "s|^|${d#$T}/$f: |" "$d/$f" 2>/dev/null | head -n 200
		done
		for f in "$d"/options/*; do
			[ -f "$f" ] && echo "${d#$T}/options/${f##*/}: $(cat "$f")"
		done
	done
}

tracing_state()
{
	tracing_state_sh
	if command -v tracestate > /dev/null; then
		echo "== tracestate"
		tracestate 2>&1
	fi
}

# Number of lines in FILE matching an extended regex.
count()
{
	grep -cE "$1" "$2" 2>/dev/null || true
}

# Wait up to $2 seconds (by the clock: a loaded TCG guest runs slowly) for a
# command to succeed.
wait_for()
{
	local cmd=$1 end
	end=$(awk -v a="$(now)" -v b="${2:-10}" 'BEGIN { print a + b }')
	while ! eval "$cmd" > /dev/null 2>&1; do
		awk -v a="$(now)" -v b="$end" 'BEGIN { exit !(a >= b) }' && return 1
		sleep 0.1
	done
	return 0
}

# The known function the function-tracer scenarios filter on: only a read of
# /dev/zero calls it, and only vmload reads /dev/zero in the guest.
FUNC=read_zero

# tmux_new COLS ROWS CMD: a detached tmux session "ktopvm" running CMD. A
# server still going away after kill-server makes new-session fail ("server
# exited unexpectedly"): try again for up to 10 s.
tmux_new()
{
	local i=0
	while ! tmux -f /dev/null new-session -d -s ktopvm -x "$1" -y "$2" "$3"; do
		i=$((i + 1))
		[ $i -lt 100 ] || return 1
		sleep 0.1
	done
}

# The TUI scenarios' screen (tmux session "ktopvm", see tmux_new): its text,
# a wait for a line matching an extended regex (seconds), keys to it.
scr()
{
	tmux capture-pane -p -t ktopvm 2>/dev/null
}

wait_screen()
{
	wait_for "scr | grep -Eq -- '$1'" "$2"
}

keys()
{
	tmux send-keys -t ktopvm "$@"
}

# Seconds since boot, for timing notes.
now()
{
	cut -d' ' -f1 /proc/uptime
}

# Start ktop in the background with output to $1 (stderr to $1.err); the
# rest are its arguments. Sets KPID, and KTRACER to its -p tracer (nop).
ktop_launch()
{
	local out=$1 a prev=
	shift
	KTRACER=nop
	for a in "$@"; do
		[ "$prev" = -p ] && KTRACER=$a
		prev=$a
	done
	ktop $KTOP_GUEST_OPTS "$@" > "$out" 2> "$out.err" &
	KPID=$!
}

# ktop_launch, then wait until its session traces: an instance ktop-KPID
# whose tracing_on is 1 with the tracer asked for, or the top level taken over.
ktop_start()
{
	local out=$1 tracer
	ktop_launch "$@"
	tracer=$KTRACER
	shift
	local t0=$(now)
	# Stop waiting when ktop has ended too (its stderr says why).
	wait_for "{ ktop_tracing $KPID $tracer && : > /tmp/seen.$KPID; } || ! kill -0 $KPID" \
		"${KTOP_START_LIMIT:-180}"
	if [ ! -e "/tmp/seen.$KPID" ]; then
		kill -0 "$KPID" 2>/dev/null &&
			note "ktop $* did not start tracing within ${KTOP_START_LIMIT:-180} s" ||
			note "ktop $* ended before it was seen tracing"
		show "$out.err"
		show "$out"
		ls "$T/instances"
		kill -9 "$KPID" 2>/dev/null
		return 1
	fi
	note "ktop $KPID tracing after $(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }') s"
	return 0
}

# ktop PID is alive and its session is tracing with TRACER.
ktop_tracing()
{
	local pid=$1 tracer=$2 d
	kill -0 "$pid" 2>/dev/null || return 1
	# The feature probe also writes current_tracer, in ktop-PID (which the
	# session then takes over) with tracing_on 0: that is not the session
	# yet. The instance is tracing_on 1 from its mkdir until the probe's first
	# write: with no tracer, the session's events must be on too.
	for d in "$T/instances/ktop-$pid" "$T"; do
		[ -d "$d" ] || continue
		[ "$(cat "$d/tracing_on" 2>/dev/null)" = 1 ] || continue
		[ "$(cat "$d/current_tracer" 2>/dev/null)" = "$tracer" ] || continue
		[ "$tracer" != nop ] || [ -n "$(cat "$d/set_event" 2>/dev/null)" ] || continue
		return 0
	done
	return 1
}

# Stop ktop KPID with a signal (default INT) and wait for it; its status in KRC.
ktop_stop()
{
	kill -"${1:-INT}" "$KPID" 2>/dev/null
	local n=0
	while kill -0 "$KPID" 2>/dev/null; do
		n=$((n + 1))
		[ "$n" -ge 300 ] && { note "ktop $KPID still alive 30 s after SIG${1:-INT}"; kill -9 "$KPID"; }
		sleep 0.1
	done
	wait "$KPID"
	KRC=$?
}

# Sum of "count" over the JSON objects of ktop --json output $1 that start
# with the text $2 (e.g. '{"function":"read_zero"').
json_sum()
{
	grep -o "$2[^}]*}" "$1" | sed -n 's/.*"count":\([0-9]*\).*/\1/p' |
		awk '{ s += $1 } END { print s + 0 }'
}

# Wait up to $1 seconds for ktop KPID to end by itself; its status in KRC.
ktop_wait()
{
	local n=0
	while kill -0 "$KPID" 2>/dev/null; do
		n=$((n + 1))
		if [ "$n" -ge $(($1 * 10)) ]; then
			note "ktop $KPID did not end within $1 s: SIGKILL"
			kill -9 "$KPID"
			break
		fi
		sleep 0.1
	done
	wait "$KPID"
	KRC=$?
}

# Start ktop like ktop_start (above), but stop waiting as soon as ktop has
# exited (its stderr is the evidence), and wait by the clock (up to
# $KSTART_LIMIT s): under a loaded TCG host, a start takes a minute or more.
kstart()
{
	local out=$1 tracer t0
	ktop_launch "$@"
	tracer=$KTRACER
	shift
	KDONE=0
	t0=$(now)
	while ! ktop_tracing "$KPID" "$tracer"; do
		if ! kill -0 "$KPID" 2>/dev/null; then
			wait "$KPID"
			KRC=$?
			KDONE=1
			# a short --duration can end between two looks
			[ "$KRC" -eq 0 ] && { note "ktop $KPID ran and ended (status 0)"; return 0; }
			note "ktop $* exited with status $KRC before tracing"
			show "$out.err"
			return 1
		fi
		if awk -v a="$t0" -v b="$(now)" -v l="${KSTART_LIMIT:-900}" 'BEGIN { exit !(b - a > l) }'; then
			note "ktop $* did not start tracing within ${KSTART_LIMIT:-900} s"
			show "$out.err"
			note "instances: $(ls "$T/instances" | tr '\n' ' '), top-level tracer $(cat "$T/current_tracer")"
			for t in /proc/"$KPID"/task/*; do
				note "thread ${t##*/}: $(cut -d' ' -f3,14,15 "$t/stat") wchan $(cat "$t/wchan" 2>/dev/null)"
			done
			note "load: $(cat /proc/loadavg)"
			kill -9 "$KPID"
			return 1
		fi
		sleep 0.2
	done
	note "ktop $KPID tracing after $(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }') s"
}

# ktop_wait for a ktop kstart may have seen end already.
kwait()
{
	[ "$KDONE" = 1 ] && return 0
	ktop_wait "$@"
}
