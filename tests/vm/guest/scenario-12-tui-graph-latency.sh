# SPDX-License-Identifier: GPL-2.0-or-later
# Issues 5 and 6, the TUI panes under tmux in the guest (the host has neither
# tracer):
#  1. ktop -p function_graph -g vfs_read, pane 4, while vmload reads
#     /dev/zero: the tree shows "vfs_read() {" with read_zero below it; C
#     (fold everything) hides it and leaves the task rows; Enter on the
#     selected task shows its vfs_read calls folded ("vfs_read() { ... }");
#     E brings the whole tree back; "/ read_zero" finds the child and shows
#     it again after C; i on it opens the stacks pane's icicle of the
#     function_graph paths, zoomed to vfs_read, v their caller tree with
#     read_zero's row and vfs_read under it; q quits with status 0 and the
#     state as before.
#  2. ktop -p timerlat, pane 5: the table has the ALL row and a row per CPU
#     with samples; Enter on a CPU's row opens the event list at that CPU's
#     worst sample: the title names the CPU and its window, and the newest
#     row of that CPU on the page is at the worst sample's time stamp as the
#     pane printed it. o switches the instance to osnoise (its table, with
#     samples) and back, and the event list holds the marker of the switch.
# One kernel (backports): function_graph in an instance (6.9+), and 6.12's
# timerlat and osnoise.
# kernels: backports
# timeout: 1200

COUNT=20
need ktop
need tmux
need tracestate
need vmload

wait_gone()
{
	wait_for "! scr | grep -Eq -- '$1'" "$2"
}

evidence()
{
	note "--- screen ($1):"
	scr | sed -e 's/[[:space:]]*$//' -e '/^$/d' -e 's/^/  |/'
	show /tmp/tui.err
	[ -s /tmp/tui.rc ] && show /tmp/tui.rc
}

tui_start()
{
	rm -f /tmp/tui.rc
	tmux_new 160 50 \
		"ktop $* 2> /tmp/tui.err; echo \"ktop exit \$?\" > /tmp/tui.rc" ||
		fail "tmux did not start"
	# under a loaded TCG host, probing and starting take minutes
	wait_screen '^ ktop tracer' 400 || {
		evidence start
		[ -s /tmp/tui.rc ] && show /tmp/tui.rc
		ps | grep -v grep | grep ktop
		for p in $(pidof ktop); do
			note "ktop $p: $(cut -d' ' -f3 /proc/$p/stat) wchan $(cat /proc/$p/wchan)"
			for t in /proc/$p/task/*; do
				note "  thread $(cat $t/comm): $(cut -d' ' -f3 $t/stat) $(cat $t/wchan)"
			done
		done
		ls "$T/instances"
		note "top level: $(cat $T/current_tracer) tracing_on $(cat $T/tracing_on)"
		fail "no ktop header within 400 s"
	}
	note "header: $(scr | head -n 1)"
}

tui_quit()
{
	keys q
	wait_for "[ -s /tmp/tui.rc ]" 60 || { evidence quit; fail "ktop did not quit on 'q'"; }
	note "$(cat /tmp/tui.rc)"
	tmux kill-server 2>/dev/null
	grep -qx 'ktop exit 0' /tmp/tui.rc || { show /tmp/tui.err; fail "ktop did not exit with 0"; }
}

# ---- 1. the function graph ---------------------------------------------------
tracestate --save /tmp/tui.before || fail "tracestate --save failed"
tui_start -p function_graph -g vfs_read $FG_READ_PATH -b 4096
keys 4
vmload read /dev/zero $COUNT || fail "vmload failed"
if ! wait_screen 'vfs_read\(\) \{' 60; then
	evidence graph
	fail "pane 4 shows no vfs_read() { call"
fi
note "graph: $(scr | grep -m1 -E 'vfs_read\(\) \{')"
# the live view follows the newest calls (other tasks read too): search finds
# vmload's child; again (with vmload again) if the search came before the
# tree had vmload's calls
found=0
for try in 1 2 3; do
	keys / "$FUNC" Enter
	wait_screen "$FUNC\(\)(;| \{)" 10 && { found=1; break; }
	note "try $try: no $FUNC yet: $(scr | tail -n 1)"
	vmload read /dev/zero $COUNT || fail "vmload failed"
done
if [ $found = 0 ]; then
	evidence search
	fail "/ $FUNC did not find and show the child"
fi
note "search: $(scr | grep -m1 -E "$FUNC\(\)(;| \{)")"

keys C
if ! wait_gone 'vfs_read\(\) \{' 10 || ! wait_screen '^ +\|  \+ .*\([0-9]+ calls?\)' 10; then
	evidence fold-all
	fail "C did not fold the tree to its context rows"
fi
note "folded: $(scr | grep -cE '\([0-9]+ calls?\)') context rows"
# the selection is on a context row now: Enter unfolds it, its calls stay folded
keys Enter
if ! wait_screen '\{ \.\.\. \}' 10; then
	evidence unfold-one
	fail "Enter did not unfold the selected context into folded calls"
fi
note "unfolded one: $(scr | grep -m1 -E '\{ \.\.\. \}')"
keys E
if ! wait_gone '\{ \.\.\. \}' 10 || ! wait_screen '\(\) \{ *$' 10; then
	evidence unfold-all
	fail "E did not unfold everything"
fi

keys C
wait_gone "$FUNC\(\)(;| \{)" 10 || { evidence fold-again; fail "C did not hide $FUNC"; }
keys / "$FUNC" Enter
if ! wait_screen "$FUNC\(\)(;| \{)" 10; then
	evidence search
	fail "/ $FUNC did not find and show the child"
fi
note "search: $(scr | grep -m1 -E "$FUNC\(\)(;| \{)")"
# i on the selected call: the stacks pane's icicle of the function_graph paths of this
# live kernel (issue 30 #8), zoomed to vfs_read. $FUNC is too thin a frame to be drawn
# there (vfs_read's time is mostly the blocking reads of the terminal and pipes): v,
# the caller tree of the same paths, shows its row, vfs_read under it.
keys i
if ! wait_screen "^Stacks: icicle of every call path, at $FUNC +function_graph paths +[0-9]" 30 ||
   ! wait_screen '^zoom: all > vfs_read' 10 || ! wait_screen '^vfs_read ' 10; then
	evidence icicle
	fail "i did not open the icicle of the function_graph paths, zoomed to vfs_read"
fi
note "icicle: $(scr | grep -m1 '^Stacks: ')"
keys v
if ! wait_screen "^Stacks: caller tree of every call path, at $FUNC +function_graph paths" 10 ||
   ! wait_for "scr | sed '1,/^Stacks: /d' | grep -A1 -E ' $FUNC *\$' | grep -q ' vfs_read *\$'" 10
then
	evidence callers
	fail "v did not show $FUNC's row with vfs_read under it"
fi
note "callers: $(scr | sed '1,/^Stacks: /d' | grep -A1 -E " $FUNC *\$" | tr -s ' ' | tr '\n' '/')"
tui_quit
tracestate --diff /tmp/tui.before || fail "tracing state not restored after the graph run"

# ---- 2. timerlat -------------------------------------------------------------
# (/tmp/tui.before still holds the state to come back to: part 1 ended there)
# osnoise settings too, for the switch below: its default (1 s of every 1 s)
# would keep the guest's CPUs busy. -e none: the timerlat records only; with
# the cause events (~9k/s under TCG) the event list's search, which formats
# every event it passes (~16k/s here), cannot reach a marker a few s back.
tui_start -p timerlat -e none -O timerlat_period_us=5000 -O period_us=200000 -O runtime_us=50000
keys 5
if ! wait_screen 'timerlat: per-CPU timer latency' 60 || ! wait_screen '^ +ALL +[1-9][0-9]* \|' 60; then
	evidence latency
	fail "pane 5 shows no timerlat table"
fi
ncpu=$(grep -c '^processor' /proc/cpuinfo)
wait_screen "^ +$((ncpu - 1)) +[1-9][0-9]* \|" 30 || { evidence cpus; fail "no row for CPU $((ncpu - 1))"; }
for c in $(seq 0 $((ncpu - 1))); do
	scr | grep -Eq "^ +$c +[1-9][0-9]* \|" || { evidence rows; fail "no row with samples for CPU $c"; }
done
note "latency: $(scr | grep -m1 -E '^ +ALL ')"

# select the first CPU row (sorted by CPU: CPU 0) and freeze the table's
# figures with Space (pause) so that the worst line and the jump agree
keys Down
wait_screen '^worst .* on CPU 0 at [0-9]+\.[0-9]{6}' 10 || { evidence worst; fail "no worst line for CPU 0"; }
keys Space
sleep 1
worst=$(scr | grep -m1 -E '^worst ')
wcpu=$(echo "$worst" | sed -n 's/.* on CPU \([0-9]*\) at .*/\1/p')
wts=$(echo "$worst" | sed -n 's/.* at \([0-9]*\.[0-9]*\) .*/\1/p')
note "worst: $worst"
[ "$wcpu" = 0 ] || fail "the worst line names CPU '$wcpu', not 0"
keys Enter
if ! wait_screen "Events: frozen .*CPU $wcpu, [0-9.]+-$wts" 20; then
	evidence jump
	fail "Enter did not open the event list at CPU $wcpu up to $wts"
fi
cpu3=$(printf '%03d' "$wcpu")
last=$(scr | grep -E "\[$cpu3\] .* [0-9]+\.[0-9]{6}: " | tail -n 1)
lts=$(echo "$last" | sed -n 's/.* \([0-9]*\.[0-9]\{6\}\): .*/\1/p')
note "newest row of CPU $wcpu on the page: $last"
[ "$lts" = "$wts" ] || { evidence page; fail "the page ends at $lts on CPU $wcpu, the sample is at $wts"; }
echo "$last" | grep -q 'timerlat' || note "(the row at the sample's time is not the timerlat record itself)"
keys Space

# o in pane 5: osnoise in ktop's instance while tracing goes on, and back
keys 5 o
inst=$(ls -d "$T"/instances/ktop-* | head -n 1)
wait_for "[ \"\$(cat $inst/current_tracer)\" = osnoise ]" 30 ||
	{ evidence switch; fail "o did not switch $inst to osnoise"; }
if ! wait_screen 'osnoise: per-CPU noise since the switch' 30 ||
   ! wait_screen '^ +ALL +[1-9][0-9]* ' 60; then
	evidence osnoise
	fail "after o, pane 5 shows no osnoise table with samples"
fi
note "switched: $(scr | grep -m1 -E '^ +ALL ')"
keys o
wait_for "[ \"\$(cat $inst/current_tracer)\" = timerlat ]" 30 ||
	{ evidence switch-back; fail "o did not switch $inst back to timerlat"; }
# the marker at once, while it is among the newest events: a search formats
# every event it passes, and under TCG gives up after 3 s (~100k events)
# (again after a while if it ran before the marker was read in)
found=0
for try in 1 2 3 4 5; do
	keys 3 G / 'ktop: tracer osnoise -> timerlat' Enter
	# the row itself (the pane's title repeats the search text), no '?' for
	# the newline the kernel ends a trace_marker text with
	wait_screen 'buf=ktop: tracer osnoise -> timerlat *$' 4 && { found=1; break; }
done
[ $found = 1 ] ||
	{ evidence marker; fail "no 'tracer osnoise -> timerlat' marker in the event list"; }
note "marker: $(scr | grep -m1 'buf=ktop: tracer osnoise')"
keys 5
wait_screen 'timerlat: per-CPU timer latency since the switch' 30 ||
	{ evidence switch-back; fail "after o again, pane 5 is not timerlat's table"; }
tui_quit
tracestate --diff /tmp/tui.before || fail "tracing state not restored after the timerlat run"
