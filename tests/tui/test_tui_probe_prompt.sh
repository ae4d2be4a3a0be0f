#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The probe prompt (K) under tmux, on this host's uprobes: ktop starts with
# no probe (and one rare event, so the probes' events stay on the event
# list's page); in the prompt, Enter on the empty line gives an example this
# kernel takes (it previews without an error), Tab completes build/tools/probe_target's
# symbol and a type, the preview shows the line it will write, a spec the
# kernel refuses shows the error_log message with its caret and defines
# nothing; Enter makes a uprobe and a uretprobe, probe_target's calls then
# show in the event list with their values and in the top view; the prompt's
# list shows the kernel's hit counts, and Ctrl-D removes each probe (no event
# after that); a trace.dat saved then still has their formats (trace-cmd
# report shows the fields); a probe hit every ms shows its rate; q removes
# it and leaves the tracing state and dynamic_events as they were.
cd "$(dirname "$0")/../.." || exit 2
. tests/tui/lib_tui.sh
need
need_probe_target
TARGET=$(readlink -f "$TOOLS/probe_target")

state_save "$tmp/before.state"
tui_start 160 40 --no-bpf -e sched:sched_kthread_stop
if ! wait_screen '^ ktop tracer' 20; then
	fail "start"; evidence start; cat "$tmp/stderr"
	finish
fi
pid=$(ktop_pid)
G=ktop_$pid
keys 3 K
if wait_screen 'Probe +this kernel has: .*uprobe' 5 && wait_screen 'no probes yet' 2; then
	ok "prompt: K opens it, with what this kernel can probe"
else
	fail "prompt"; evidence prompt
fi

# Enter on the empty line: an example this kernel takes (it offered a kprobe on
# a kernel without kprobe_events); typed, it previews without an error
keys Enter
if wait_screen 'empty probe spec: give PLACE \[ARG\.\.\.\], e\.g\. ' 5; then
	ex=$(scr | grep -m1 -o "empty probe spec: give PLACE \[ARG\.\.\.\], e\.g\. '[^']*'" |
		sed "s/.*e\.g\. '\([^']*\)'/\1/")
	keys -l "$ex"
	if [ -n "$ex" ] && wait_screen '^ +writes [a-z]:' 10 &&
	   ! scr | grep -qi 'refused\|not found\|no such\|unknown'; then
		ok "empty Enter: its example '$ex' is a spec this kernel takes"
	else
		fail "empty Enter: example '$ex' does not preview"; evidence example
	fi
	keys C-u
else
	fail "empty Enter: no example"; evidence empty-enter
fi
dyn_same "empty Enter: nothing defined"

# a definition the kernel refuses: its error_log message, the caret, nothing defined
keys -l "$TOOLS/probe_target:ktop_probe_word r=%bogus"
keys Enter
if wait_screen 'the kernel refused the definition: Invalid register name' 5; then
	line=$(scr | grep -n " p:$G/ktop_probe_word .* r=%bogus:x64" | head -1)
	row=${line%%:*}
	text=${line#*:}
	caret=$(scr | sed -n "$((row + 1))p")
	want=$(( $(echo "$text" | grep -bo '%bogus' | cut -d: -f1) ))
	got=$(( $(echo "$caret" | grep -bo '\^' | cut -d: -f1) ))
	if [ -n "$line" ] && [ "$want" -eq "$got" ]; then
		ok "refused: the kernel's message, the caret under %bogus (column $got)"
	else
		fail "refused: caret at $got, %bogus at $want"; evidence refused
	fi
else
	fail "refused: no error_log message"; evidence refused
fi
dyn_same "refused: nothing defined"

# Tab: the symbol, then a type; the preview: the line it will write
keys C-u
keys -l "$TOOLS/probe_target:ktop_probe_w"
keys Tab
keys -l ' $arg1:str'
keys Tab
keys -l ' n=$arg2:s32'
if wait_screen "^ > $TOOLS/probe_target:ktop_probe_word \\\$arg1:string n=\\\$arg2:s32 *\$" 5; then
	ok "complete: the symbol and the type"
else
	fail "complete"; evidence complete
fi
if wait_screen "writes p:$G/ktop_probe_word $TARGET:0x[0-9a-f]+ arg1=\\+0\\(%di\\):string n=%si:s32" 5 &&
   wait_screen 'uprobe, fields: __probe_ip:hex arg1:string n:int' 2; then
	ok "preview: the definition line and the fields"
else
	fail "preview"; evidence preview
fi
keys Enter
if wait_gone 'Probe +this kernel has' 10 && wait_screen "probe $G/ktop_probe_word made" 2; then
	ok "make: the prompt closes and says so"
else
	fail "make"; evidence make; cat "$tmp/stderr"
fi
keys K
keys -l "$TOOLS/probe_target:ktop_probe_word%return \$retval:s32"
keys Enter
wait_screen "probe $G/ktop_probe_word__return made" 10 || { fail "make return"; evidence make2; }
n=$(grep -c ":$G/" "$DYN")
if [ "$n" -eq 2 ]; then
	ok "make: 2 definitions in $G"
else
	fail "make: $n definitions in $G: $(cat "$DYN")"
fi

"$TOOLS/probe_target" 3 > /dev/null
probe_word_seen

# the list: the kernel's hit counts; Ctrl-D removes the selected probe (from the
# event list following its tail: no row selected, the prompt opens empty)
keys 3 K
if wait_screen '> on +ktop_probe_word +[-0-9./s]+ +3 hits' 5 &&
   wait_screen '  on +ktop_probe_word__return +[-0-9./s]+ +3 hits' 2; then
	ok "list: both on, 3 hits each (uprobe_profile)"
else
	fail "list"; evidence list
fi
keys C-d
if wait_screen "probe $G/ktop_probe_word removed" 5 && ! grep -q ":$G/ktop_probe_word " "$DYN" &&
   grep -q ":$G/ktop_probe_word__return " "$DYN"; then
	ok "remove: the selected probe goes, the other stays"
else
	fail "remove: $(cat "$DYN")"; evidence remove
fi
keys C-d
if wait_screen 'no probes yet' 5 && dyn_as_before; then
	ok "remove: both gone, dynamic_events as before"
else
	fail "remove both: $(cat "$DYN")"; evidence remove2
fi
keys Escape 3
"$TOOLS/probe_target" 2 > /dev/null
sleep 1
n=$(scr | grep -Ec -- '-[0-9]+ +\[[0-9]+\] .* ktop_probe_word(__return)?: ')
if [ "$n" -eq 6 ]; then
	ok "removed: the 6 events stay in the list, no new ones"
else
	fail "removed: $n events, want 6"; evidence after
fi
# saved after the removal: the probes' formats go with their events (ktop kept them)
keys s C-u
keys -l "$tmp/after.dat"
keys Enter
if wait_screen "saved $tmp/after.dat" 10 && command -v trace-cmd > /dev/null; then
	c=$(trace-cmd report "$tmp/after.dat" 2>/dev/null | grep -Ec 'ktop_probe_word: .*arg1="word-[0-9]" n=[0-9]$')
	r=$(trace-cmd report "$tmp/after.dat" 2>/dev/null | grep -Ec 'ktop_probe_word__return: .*retval=600[0-2]$')
	if [ "$c" -eq 3 ] && [ "$r" -eq 3 ]; then
		ok "save: trace-cmd report shows the removed probes' 3 calls and 3 returns with their fields"
	else
		fail "save: trace-cmd report shows $c calls and $r returns with fields, want 3 and 3"
	fi
else
	fail "save: not saved (or no trace-cmd)"; evidence save
fi
# hits per second: a call every millisecond (at most 1000/s, fewer when the
# sleeps run long on a busy machine); q then removes the probe too
keys K
keys -l "$TOOLS/probe_target:ktop_probe_name"
keys Enter
wait_screen "probe $G/ktop_probe_name made" 10 || { fail "make for the rate"; evidence rate0; }
"$TOOLS/probe_target" 1000000 1 > /dev/null &
LOADPID=$!
keys K
if wait_screen '> on +ktop_probe_name +([1-9][0-9]{2}|10[0-9]{2})\.[0-9]/s' 8; then
	ok "list: hits/s of a call every ms: $(scr | grep -Eo '> on +ktop_probe_name +[0-9.]+/s' | awk '{ print $4 }')"
else
	fail "list: no rate of 100-1099/s"; evidence rate
fi
kill $LOADPID 2>/dev/null
wait $LOADPID 2>/dev/null
LOADPID=
keys Escape q
wait_exit "$pid" 10 || fail "quit: ktop $pid still running"
dyn_same "quit: dynamic_events as before"
state_same "quit: tracing state as before" "$tmp/before.state"
finish
