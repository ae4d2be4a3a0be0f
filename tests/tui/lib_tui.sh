# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for the TUI tests (sourced, not run): drive ./ktop in a private tmux
# server, keys in, screen text out. Run from the repo root, as root.

KTOP=${KTOP:-./ktop}
TOOLS=${KTOP_TOOLS:-build/tools}
TRACEFS=/sys/kernel/tracing
export LC_ALL=C.UTF-8

npass=0
nfail=0
tmp=$(mktemp -d /tmp/ktop-tui.XXXXXX)
SOCK=ktop-tui-$$
LOADPID=

tui_cleanup() {
	tui_stop
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$SOCK"
	[ -n "$LOADPID" ] && kill "$LOADPID" 2>/dev/null
	rm -rf "$tmp"
}
trap tui_cleanup EXIT

ok() {
	echo "ok $*"
	npass=$((npass + 1))
}

fail() {
	echo "FAIL $*"
	nfail=$((nfail + 1))
}

finish() {
	# a sanitizer build (KTOP=build-asan/ktop) reports on stderr
	if grep -Eq 'Sanitizer|runtime error' "$tmp/stderr" 2>/dev/null; then
		fail "sanitizer: $(grep -Em1 'Sanitizer|runtime error' "$tmp/stderr")"
	fi
	echo "$npass passed, $nfail failed"
	[ "$nfail" -eq 0 ]
	exit
}

need() {
	if [ "$(id -u)" != 0 ]; then
		echo "FAIL setup: the TUI tests trace the live kernel and need root"
		exit 1
	fi
	if ! command -v tmux >/dev/null; then
		echo "FAIL setup: tmux is not installed (make deps)"
		exit 1
	fi
	if [ ! -x "$KTOP" ]; then
		echo "FAIL setup: $KTOP is not built (make ktop)"
		exit 1
	fi
	if [ ! -x "$TOOLS/tracestate" ]; then
		echo "FAIL setup: $TOOLS/tracestate is not built (make tools)"
		exit 1
	fi
}

# need_tool NAME: a test program of tests/tools, built
need_tool() {
	if [ ! -x "$TOOLS/$1" ]; then
		echo "FAIL setup: $TOOLS/$1 is not built (make tools)"
		exit 1
	fi
}

# A light, steady source of syscalls and context switches.
start_load() {
	(while :; do cat /proc/version >/dev/null; sleep 0.01; done) >/dev/null 2>&1 &
	LOADPID=$!
}

# tui_start COLS ROWS ARGS...: ktop in a new tmux session "t"; its status goes to $tmp/exit
tui_start() {
	local cols=$1 rows=$2
	shift 2
	tui_start_cmd "$cols" "$rows" "XDG_CONFIG_HOME='$tmp/conf' ${TUI_ENV:-} $KTOP $* 2>'$tmp/stderr'"
}

# tui_start_cmd COLS ROWS 'SHELL COMMAND': the same for a whole command line (a pipeline)
tui_start_cmd() {
	local cols=$1 rows=$2 i err
	rm -f "$tmp/exit" "$tmp/stty"
	mkdir -p "$tmp/conf"
	# a server that is still going away after kill-server makes new-session
	# fail with "server exited unexpectedly" (about 1 in 10 here): try again.
	# The terminal's modes after ktop: written whole, then renamed into place,
	# so that a reader never sees the file half written (or the last run's).
	for ((i = 0; i < 50; i++)); do
		err=$(tmux -L "$SOCK" -f /dev/null new-session -d -s t -x "$cols" -y "$rows" \
			"cd '$PWD' && $3; echo \"EXIT=\$?\" >'$tmp/exit'; stty -a >'$tmp/stty.tmp'; mv '$tmp/stty.tmp' '$tmp/stty'; sleep 600" 2>&1) && break
		sleep 0.1
	done
	[ "$i" -lt 50 ] || fail "tmux new-session: $err"
	tmux -L "$SOCK" set-option -t t remain-on-exit on >/dev/null 2>&1
}

# tui_stop: end the tmux server (and what runs in it), and wait until it is gone
tui_stop() {
	local pid i
	pid=$(tmux -L "$SOCK" display-message -p '#{pid}' 2>/dev/null)
	tmux -L "$SOCK" kill-server 2>/dev/null
	[ -n "$pid" ] || return 0
	for ((i = 0; i < 100; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.05
	done
}

scr() {
	tmux -L "$SOCK" capture-pane -p -t t 2>/dev/null
}

# scr_esc: the screen with colours and attributes as escape sequences
scr_esc() {
	tmux -L "$SOCK" capture-pane -p -e -t t 2>/dev/null
}

keys() {
	tmux -L "$SOCK" send-keys -t t "$@"
}

# wait_screen REGEX [SECONDS]: poll the screen until a line matches (grep -E)
wait_screen() {
	local n=$(( ${2:-5} * 20 )) i
	for ((i = 0; i < n; i++)); do
		scr | grep -Eq -- "$1" && return 0
		sleep 0.05
	done
	return 1
}

# wait_gone REGEX [SECONDS]: poll until no line matches
wait_gone() {
	local n=$(( ${2:-5} * 20 )) i
	for ((i = 0; i < n; i++)); do
		scr | grep -Eq -- "$1" || return 0
		sleep 0.05
	done
	return 1
}

# ktop_pid: the ktop process in the tmux pane
ktop_pid() {
	local sh
	sh=$(tmux -L "$SOCK" display-message -p -t t '#{pane_pid}' 2>/dev/null)
	[ -n "$sh" ] && pgrep -P "$sh" -x ktop
}

# evidence LABEL: the current screen, indented, for a FAIL line
evidence() {
	echo "    --- screen ($1) ---"
	scr | sed -e 's/[[:space:]]*$//' -e '/^$/d' -e 's/^/    | /' | head -${2:-45}
}

# The kernel's tracing state, raw (as the kernel shows it), ignoring instances
# of other ktops that are alive.
state_save() {
	"$TOOLS/tracestate" -x -R --save "$1"
}

# Other people's tests on this shared machine may change the top level for a
# while and put it back: a difference must last 10 s to count.
state_same() {
	local out i rc
	for ((i = 0; i < 20; i++)); do
		out=$("$TOOLS/tracestate" -x --diff "$2" 2>&1)
		rc=$?
		[ $rc -eq 0 ] && break
		sleep 0.5
	done
	if [ $rc -eq 0 ]; then
		ok "$1"
	else
		fail "$1: tracing state changed:"
		echo "$out" | head -20 | sed 's/^/    /'
	fi
}

# quit_ok LABEL: q, and ktop exits with status 0; the tmux server goes
quit_ok() {
	keys q
	for ((i = 0; i < 100; i++)); do [ -f "$tmp/exit" ] && break; sleep 0.1; done
	if [ "$(cat "$tmp/exit" 2>/dev/null)" = "EXIT=0" ]; then
		ok "$1"
	else
		fail "$1 ($(cat "$tmp/exit" 2>/dev/null))"; cat "$tmp/stderr"
	fi
	tui_stop
}

# wait_exit PID SECONDS
wait_exit() {
	local i
	for ((i = 0; i < $2 * 20; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.05
	done
	return 1
}

# click X Y [BUTTON]: a mouse press and release at 0-based X, Y (xterm X10 encoding);
# BUTTON 0 left, 64 wheel up, 65 wheel down
click() {
	local b=${3:-0} cb cx cy rel
	cb=$(printf "\\$(printf %03o $((32 + b)))")
	cx=$(printf "\\$(printf %03o $((33 + $1)))")
	cy=$(printf "\\$(printf %03o $((33 + $2)))")
	rel=$(printf "\\$(printf %03o 35)")
	tmux -L "$SOCK" send-keys -t t -l $'\033[M'"$cb$cx$cy"
	[ "$b" -lt 64 ] && tmux -L "$SOCK" send-keys -t t -l $'\033[M'"$rel$cx$cy"
}

# row_of REGEX: the 0-based screen row of the first line matching
row_of() {
	scr | grep -nE -- "$1" | head -1 | cut -d: -f1 | awk '{ print $1 - 1 }'
}

# wait_footer REGEX [SECONDS]: poll until the last screen line matches
wait_footer() {
	local n=$(( ${2:-5} * 20 )) i
	for ((i = 0; i < n; i++)); do
		scr | tail -1 | grep -Eq -- "$1" && return 0
		sleep 0.05
	done
	return 1
}

# need_probe_target: build/tools/probe_target is built; DYN: where probe events are
# defined, its lines now in $tmp/dyn.before
need_probe_target() {
	if [ ! -x "$TOOLS/probe_target" ]; then
		echo "FAIL setup: $TOOLS/probe_target is not built (make tools)"
		exit 1
	fi
	DYN=$TRACEFS/dynamic_events
	[ -e "$DYN" ] || DYN=$TRACEFS/uprobe_events
	cat "$DYN" > "$tmp/dyn.before"
}

# dyn_as_before: dynamic_events (or uprobe_events) reads as need_probe_target
# found it
dyn_as_before() {
	cat "$DYN" | cmp -s - "$tmp/dyn.before"
}

# dyn_same NAME: ok NAME when dyn_as_before, else FAIL NAME with what is there
dyn_same() {
	if dyn_as_before; then
		ok "$1"
	else
		fail "$1: dynamic_events changed: $(head -3 "$DYN")"
	fi
}

# probe_word_seen: after build/tools/probe_target 3 with a uprobe of
# ktop_probe_word ($arg1:string n=$arg2:s32) and a uretprobe ($retval:s32):
# the event list (pane 3) shows the 3 calls and 3 returns with their named,
# typed fields, and the top view (pane 2) counts 3 of each
probe_word_seen() {
	local n
	keys 3
	if wait_screen 'ktop_probe_word: __probe_ip=0x[0-9a-f]+ arg1=word-2 n=2$' 10 &&
	   scr | grep -Eq 'ktop_probe_word: __probe_ip=0x[0-9a-f]+ arg1=word-0 n=0$' &&
	   scr | grep -Eq 'ktop_probe_word__return: __probe_func=0x[0-9a-f]+ __probe_ret_ip=0x[0-9a-f]+ retval=6001$'; then
		ok "event_list: every call with its named, typed fields"
	else
		fail "event_list"; evidence events
	fi
	n=$(scr | grep -Ec -- '-[0-9]+ +\[[0-9]+\] .* ktop_probe_word(__return)?: ')
	if [ "$n" -eq 6 ]; then
		ok "event_list: 6 events, 3 calls and 3 returns"
	else
		fail "event_list: $n events, want 6"; evidence events
	fi
	keys 2
	if wait_screen '^ +3 +[0-9]+ .* ktop_probe_word$' 5 &&
	   wait_screen '^ +3 +[0-9]+ .* ktop_probe_word__return$' 5; then
		ok "top_view: 3 of each"
	else
		fail "top_view"; evidence top
	fi
}
