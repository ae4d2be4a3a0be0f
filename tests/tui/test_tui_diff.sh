#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The diff panes (ktop -i BASE --diff NEW, issue 29) under tmux, keys in,
# screen text out, on two recordings made here with a known difference:
# BASE is two seconds of this machine, NEW a second or so longer than nwrite
# takes to make N write(2) calls in it (and the same events: the writes, sched_switch with
# its stacks, the in-kernel latency of the writes). The rates the panes must
# show come from each recording's own --json summary, read alone.
#   1. -i BASE --diff NEW: the header names both sides and their lengths;
#      Tasks (7): rows by the largest change first; nwrite's row (at the
#      top unless another workload of this shared machine changed more) BASE 0, ratio "new", NEW its events
#      (2N and a few: an enter and an exit per write) per second of NEW's
#      length, DELTA the same, in the theme's colour of growth; l picks the
#      next figure (the title says which), F6 the next sort (by ratio); Top
#      (2): the two write events, BASE and NEW the rates
#      each recording's own summary gives (other writers on this machine
#      move them too), DELTA their difference; v: the syscalls table;
#      Latency (5), v: the writes' latency histogram, both sides drawn over
#      each other (a bucket that grew has + in its bar); Stacks (8): the differential icicle from
#      "all"; v: the caller tree, whose "all" has the sched_switch rates of
#      the Top pane; q: exit 0, and -o FILE.folded holds the two-column
#      folded diff.
#   2. -i NEW --diff BASE: nwrite is "gone", its delta minus its rate, in the
#      colour of shrinkage.
#   3. -i NEW --diff NEW: every row of the tasks and events shows no change
#      (DELTA 0, ratio 1.00x).
#   4. -i BASE --diff live: the header says NEW is live; nwrite run meanwhile
#      is a new task in the Tasks pane. The tracing state is as before.
cd "$(dirname "$0")/../.." || exit 2
. tests/tui/lib_tui.sh
need
need_tool nwrite
state_save "$tmp/state.before"

N=${KTOP_TEST_NWRITES:-100000}
EV=(-e syscalls:sys_enter_write -e syscalls:sys_exit_write -e sched:sched_switch
    --stack sched:sched_switch --latency 'syscalls:sys_enter_write -> syscalls:sys_exit_write')

# --- the two recordings ------------------------------------------------------------------
"$KTOP" --batch --duration 2 -b 16384 "${EV[@]}" -o "$tmp/base.ktop" >/dev/null 2>"$tmp/b.err"
: >"$tmp/n.out"
mkfifo "$tmp/go"
"$TOOLS/nwrite" "$N" "$tmp/go" &
wpid=$!
"$KTOP" --batch --duration 60 -b 16384 "${EV[@]}" -o "$tmp/new.ktop" >"$tmp/n.out" \
	2>"$tmp/n.err" &
kpid=$!
for ((i = 0; i < 300; i++)); do grep -q '^ktop' "$tmp/n.out" && break; sleep 0.1; done
echo go >"$tmp/go"
# NEW ends a second after nwrite, however long its writes took on this machine
wait $wpid
sleep 1
kill -INT $kpid
wait $kpid
if [ ! -s "$tmp/base.ktop" ] || [ ! -s "$tmp/new.ktop" ]; then
	fail "recordings: $(head -c 300 "$tmp/b.err" "$tmp/n.err")"
	finish
fi

# num TEXT: a figure as the panes print it ("45.8k", "-1.2M", "+781") as a number
num() {
	python3 -c '
import sys
s = sys.argv[1].lstrip("+")
m = {"k": 1e3, "M": 1e6, "G": 1e9}
print(float(s[:-1]) * m[s[-1]] if s and s[-1] in m else float(s))' "$1"
}

# near GOT WANT PCT: |GOT - WANT| <= PCT% of |WANT|
near() {
	python3 -c 'import sys; g, w, p = map(float, sys.argv[1:]); sys.exit(abs(g - w) > p / 100 * abs(w))' \
		"$1" "$2" "$3"
}

# row REGEX: the first screen line matching, its fields
row() {
	scr | grep -E -m1 -- "$1"
}

# data: the table's rows on the screen (under its BASE NEW DELTA RATIO heading)
data() {
	scr | sed -n '/^ *BASE *NEW *DELTA *RATIO/,$p' | sed 1d | grep -E '^ +[-0-9]'
}

# sorted: the rows on the screen by the largest change first (|DELTA| never grows)
sorted() {
	data | awk '{ print $3 }' | while read -r d; do num "$d"; done | python3 -c '
import sys
v = [abs(float(x)) for x in sys.stdin]
sys.exit(len(v) < 3 or any(v[i] < v[i + 1] for i in range(len(v) - 1)))'
}

# away_from REGEX: the selection (the first row, in its own colour) off that row
away_from() {
	if data | head -1 | grep -qE -- "$1"; then keys j; else keys g; fi
	sleep 0.3
}

# own FILE top_events|top_tasks KEY VALUE: from the recording's own summary
# (--json of it alone), the row whose KEY is VALUE: its count and its count a
# second of the recording
own() {
	"$KTOP" -i "$1" --json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
n = [e["count"] for e in d[sys.argv[1]] if str(e[sys.argv[2]]) == sys.argv[3]]
n = n[0] if n else 0
print(n, n / d["interval_s"])' "$2" "$3" "$4"
}
# the writes a second of each side (other writers on this machine included),
# nwrite's events in NEW: its N writes, each an enter and an exit, its switches
read -r _ bw <<<"$(own "$tmp/base.ktop" top_events event syscalls:sys_enter_write)"
read -r _ nw <<<"$(own "$tmp/new.ktop" top_events event syscalls:sys_enter_write)"
read -r twn tw <<<"$(own "$tmp/new.ktop" top_tasks pid "$wpid")"

# --- 1. BASE against NEW --------------------------------------------------------------------
tui_start 140 40 -i "$tmp/base.ktop" --diff "$tmp/new.ktop" -o "$tmp/d.folded"
if wait_screen ' diff +BASE .*base\.ktop \([0-9.]+ s.* NEW .*new\.ktop \([0-9.]+ s' 20; then
	ok "header: BASE and NEW with their lengths"
else
	fail "header"; evidence header
fi

keys 7
wait_screen 'Tasks: [0-9]+ rows, by change' 20
# other workloads of this shared machine may change more: nwrite is where it is
line=$(row " $wpid nwrite *$")
read -r b n d r _ <<<"$line"
if [ -n "$line" ] && [ "$b" = 0 ] && [ "$r" = new ] && near "$(num "$n")" "$tw" 2 &&
   [ "$d" = "+$n" ] && [ "$twn" -ge $((2 * N)) ]; then
	ok "tasks: nwrite new, NEW $n/s, DELTA $d (its own summary: $twn events, $tw/s)"
else
	fail "tasks: want nwrite ($wpid) new, its $twn events (2N=$((2 * N)) and a few) at $tw/s: '$line'"
	evidence tasks
fi
if sorted; then
	ok "tasks: by the largest change first ($(data | head -1 | awk '{ print $NF }') $(data | head -1 | awk '{ print $3 }'))"
else
	fail "tasks: not by the largest change"; evidence tasks-sorted
fi
away_from " $wpid nwrite"
if scr_esc | grep -E " $wpid nwrite" | grep -qE $'\033\\[30m\033\\[48;5;210m *[+]'; then
	ok "tasks: nwrite's delta in the theme's diff_grow colour"
else
	fail "tasks: nwrite's delta colour: $(scr_esc | grep -E " $wpid nwrite" | cat -v | cut -c1-200)"
fi
keys l
if wait_screen 'Tasks: .* by change of SYSCALLS/s' 5; then
	ok "tasks: l: the next figure"
else
	fail "tasks: l"; evidence tasks-l
fi
keys h F6
if wait_screen 'Tasks: .* by ratio of EVENTS/s' 5; then
	ok "tasks: h, F6: by ratio of the events"
else
	fail "tasks: F6"; evidence tasks-F6
fi

keys 2
wait_screen 'Events: [0-9]+ rows, by change' 20
top=$(scr | grep -E 'syscalls:sys_(enter|exit)_write *$')
nev=$(echo "$top" | grep -c .)
bad=0
while read -r b n d r name; do
	near "$(num "$b")" "$bw" 2 && near "$(num "$n")" "$nw" 2 || bad=1
	near "$(num "$d")" "$(python3 -c "print($nw - $bw)")" 3 || bad=1
done <<<"$top"
if [ "$nev" = 2 ] && [ $bad = 0 ] && sorted; then
	ok "top: the write events at the rates of each side's own summary ($bw -> $nw /s), by the largest change"
else
	fail "top: want the write events at $bw -> $nw /s (their own summaries): $top"
	evidence top
fi
keys v
if wait_screen '^ Syscalls' 5; then
	ok "top: v: the syscalls table"
else
	fail "top: v"; evidence top-v
fi
keys v v v
wait_screen 'Events: [0-9]+ rows' 5
sw=$(row 'sched:sched_switch *$')

keys 5 v
if wait_screen 'Latency histograms: [0-9]+ rows' 5 &&
   scr | grep -q '^ syscalls:sys_enter_write -> syscalls:sys_exit_write' &&
   scr | grep -qE '^ +[0-9.]+[kM]? +[0-9.]+[kM]? +[0-9.]+[num]?s-[0-9.]+[num]?s +=*\++'; then
	ok "latency: v: the writes' histogram, NEW's growth drawn over BASE"
else
	fail "latency: histograms"; evidence latency
fi

keys 8
if wait_screen 'Stacks: differential icicle' 5 && wait_screen '^all *$' 5; then
	ok "stacks: the differential icicle from all"
else
	fail "stacks: icicle"; evidence icicle
fi
keys v
wait_screen 'Stacks: caller tree' 5
all=$(row '^ .* - all *$')
# the same rates (the delta within its rounding: the tree's and the table's sums)
if [ -n "$sw" ] && [ "$(echo "$all" | awk '{ print $1, $2 }')" = \
     "$(echo "$sw" | awk '{ print $1, $2 }')" ] &&
   near "$(num "$(echo "$all" | awk '{ print $3 }')")" "$(num "$(echo "$sw" | awk '{ print $3 }')")" 1; then
	ok "stacks: v: the caller tree's all has sched_switch's rates ($(echo "$all" | awk '{ print $1, $2, $3 }'))"
else
	fail "stacks: caller tree: all '$all', sched_switch '$sw'"; evidence tree
fi
quit_ok "q: exit 0"
if [ -s "$tmp/d.folded" ] && awk 'NF < 3 || $(NF) !~ /^[0-9.]+$/ || $(NF-1) !~ /^[0-9.]+$/ { bad = 1 }
	END { exit bad }' "$tmp/d.folded"; then
	ok "-o FILE.folded: $(wc -l <"$tmp/d.folded") lines of stack, BASE, NEW"
else
	fail "-o FILE.folded: $(head -c 200 "$tmp/d.folded" 2>&1)"
fi

# --- 2. NEW against BASE: nwrite is gone ---------------------------------------------------------
tui_start 140 40 -i "$tmp/new.ktop" --diff "$tmp/base.ktop"
wait_screen ' diff +BASE .*new\.ktop \(' 20
keys 7
wait_screen 'Tasks: [0-9]+ rows' 20
away_from " $wpid nwrite"
line=$(row " $wpid nwrite *$")
read -r b n d r _ <<<"$line"
if [ "$n" = 0 ] && [ "$r" = gone ] && [ "$d" = "-$b" ] &&
   scr_esc | grep -E " $wpid nwrite" | grep -qE $'\033\\[30m\033\\[48;5;111m *-'; then
	ok "reversed: nwrite gone, DELTA $d in the theme's diff_shrink colour"
else
	fail "reversed: nwrite '$line'"; evidence reversed
fi
quit_ok "reversed: q"

# --- 3. a recording against itself --------------------------------------------------------------
tui_start 140 40 -i "$tmp/new.ktop" --diff "$tmp/new.ktop"
wait_screen ' diff +BASE ' 20
keys 7
wait_screen 'Tasks: [0-9]+ rows' 20
tasks=$(scr | sed -n '/^ *BASE *NEW *DELTA *RATIO/,$p' | sed 1d | grep -E '^ +[0-9]')
keys 2
wait_screen 'Events: [0-9]+ rows' 20
events=$(scr | sed -n '/^ *BASE *NEW *DELTA *RATIO/,$p' | sed 1d | grep -E '^ +[0-9]')
nrows=$(printf '%s\n%s\n' "$tasks" "$events" | grep -c .)
changed=$(printf '%s\n%s\n' "$tasks" "$events" | awk 'NF && ($1 != $2 || $3 != "0" || $4 != "1.00x")')
if [ "$nrows" -ge 5 ] && [ -z "$changed" ]; then
	ok "self diff: $nrows rows of tasks and events, each BASE = NEW, DELTA 0, 1.00x"
else
	fail "self diff: $nrows rows, changed: $(echo "$changed" | head -3)"; evidence self
fi
quit_ok "self diff: q"

# --- 4. live NEW ----------------------------------------------------------------------------------
tui_start 140 40 -i "$tmp/base.ktop" --diff live -b 16384 "$(printf '%q ' "${EV[@]}")"
if wait_screen ' NEW live ' 20; then
	ok "live: the header says NEW is live"
else
	fail "live: header"; evidence live
fi
keys 7
# nwrite waits on a FIFO after its exec: the per-CPU readers take the forked
# shell's last events (comm "bash", same pid) before nwrite's own, whose comm
# then names the pid (the comm table keeps the newest name decoded)
mkfifo "$tmp/live-go"
"$TOOLS/nwrite" "$N" "$tmp/live-go" &
lpid=$!
sleep 0.5
echo go > "$tmp/live-go"
wait $lpid
if wait_screen " $lpid nwrite *\$" 30 && row " $lpid nwrite *\$" | grep -qE '^ +0 .* new +'; then
	ok "live: nwrite ($lpid) run meanwhile is a new task"
else
	fail "live: nwrite ($lpid) not new in the tasks"; evidence live-tasks
fi
quit_ok "live: q"
state_same "tracing state unchanged" "$tmp/state.before"
finish
