#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The flight recorder in the view, under tmux: started with --save-on, the
# header's recorder line says it is armed with one condition and nothing
# saved; an exec of the test's own program makes a save, and the line says
# "saved 1" and what matched. R opens the recorder prompt: the condition and
# the save are listed; a second condition typed there is armed (the line
# says 2 conditions), a bad one comes back with its message and a caret and
# arms nothing; Ctrl-T disarms (the line says so) and arms again; Ctrl-D
# removes the selected condition. Enter on the save opens its file as ktop -i
# does (SNAPSHOT in that ktop's header, the file's name), q there comes back
# to the live view, which went on. A ktop started without --save-on has no
# recorder line until a condition is armed from R. q leaves the tracing
# state as it was.
cd "$(dirname "$0")/../.." || exit 2
. tests/tui/lib_tui.sh
need

name=rectui$$
cp /bin/true "$tmp/$name" || exit 1
state_save "$tmp/before.state"

tui_start 160 45 --no-bpf --save-on "'sched:sched_process_exec comm ~ \"$name*\"'" \
	--save-before 1 --save-after 0.3 -o "'$tmp/tui-%n.ktop'"
if ! wait_screen '^ ktop tracer' 20; then
	fail "start"; evidence start; cat "$tmp/stderr"
	finish
fi
if wait_screen '^ recorder armed: 1 condition \| saved 0 ' 5; then
	ok "header: the recorder line, armed, nothing saved"
else
	fail "header line"; evidence header
fi

sleep 1.2
"$tmp/$name"
if wait_screen "^ recorder armed: 1 condition \| saved 1 \| last [0-9:]{8} sched_process_exec by $name pid" 10; then
	ok "header: saved 1, and what matched"
else
	fail "header after a match"; evidence match
fi
[ -f "$tmp/tui-1.ktop" ] && ok "the file is there" || fail "no file tui-1.ktop"

# the prompt: the condition and the save
keys R
if wait_screen 'Flight recorder +armed: 1 condition' 5 &&
   wait_screen "on +sched:sched_process_exec comm ~ \"$name\*\"" 2 &&
   wait_screen "> +1 [0-9:]{8} +[0-9.]+ s +[0-9]+ ev +$tmp/tui-1.ktop" 2; then
	ok "prompt: R lists the condition and the save (selected)"
else
	fail "prompt"; evidence prompt
fi

# a bad condition: the message and a caret, nothing armed
keys -l 'sched:sched_process_exec prev_state & 2'
keys Enter
if wait_screen "has no field 'prev_state'" 5; then
	msg=$(scr | grep -n '^ *sched:sched_process_exec prev_state & 2 *$' | head -1)
	row=${msg%%:*}
	text=${msg#*:}
	caret=$(scr | sed -n "$((row + 1))p")
	want=$(echo "$text" | grep -bo 'prev_state' | cut -d: -f1)
	got=$(echo "$caret" | grep -bo '\^' | cut -d: -f1)
	if [ -n "$msg" ] && [ -n "$want" ] && [ "$want" = "$got" ] &&
	   wait_screen 'armed: 1 condition' 1; then
		ok "prompt: a bad condition: its message, the caret under prev_state, nothing armed"
	else
		fail "prompt: bad condition's caret"; evidence bad
	fi
else
	fail "prompt: bad condition"; evidence bad
fi

# a good one: armed
keys C-u
keys -l 'lost > 1000000000'
keys Enter
if wait_screen 'armed: lost > 1000000000' 5 && wait_screen 'Flight recorder +armed: 2 conditions' 2; then
	ok "prompt: a second condition armed"
else
	fail "prompt: arm"; evidence arm
fi

# Ctrl-T: disarm, then arm again
keys C-t
if wait_screen 'Flight recorder +disarmed: 2 conditions' 5; then
	ok "prompt: Ctrl-T disarms"
else
	fail "prompt: disarm"; evidence disarm
fi
keys C-t
wait_screen 'Flight recorder +armed: 2 conditions' 5 && ok "prompt: Ctrl-T arms again" ||
	{ fail "prompt: arm again"; evidence arm2; }

# Ctrl-D on the second condition: removed (Up to the first, Down to the second)
keys Up Up Up Up Up Down
keys C-d
if wait_screen 'removed: lost > 1000000000' 5 && wait_screen 'Flight recorder +armed: 1 condition' 2; then
	ok "prompt: Ctrl-D removes the selected condition"
else
	fail "prompt: remove"; evidence remove
fi

# Enter on the save: ktop -i opens it here; q comes back
keys Down
keys Enter
if wait_screen ' SNAPSHOT ' 15; then
	ok "Enter on the save: ktop -i opens its file (SNAPSHOT)"
else
	fail "Enter: no SNAPSHOT"; evidence open
fi
keys q
if wait_screen ' LIVE ' 10 && wait_screen "back from $tmp/tui-1.ktop" 5; then
	ok "q there: back in the live view"
else
	fail "back: not live"; evidence back
fi
keys Escape
wait_gone 'Flight recorder' 5
quit_ok "q: exit status 0"
state_same "q: tracing state as before" "$tmp/before.state"

# without --save-on: no recorder line until R arms a condition
tui_start 160 45 --no-bpf
if ! wait_screen '^ ktop tracer' 20; then
	fail "start 2"; evidence start2; cat "$tmp/stderr"
	finish
fi
if scr | grep -q '^ recorder '; then
	fail "no --save-on: a recorder line"; evidence norec
else
	ok "no --save-on: no recorder line"
fi
keys R
wait_screen 'nothing armed: type a condition' 5 || { fail "R: empty prompt"; evidence empty; }
keys -l 'lost'
keys Enter
keys Escape
if wait_screen '^ recorder armed: 1 condition \| saved 0 ' 5; then
	ok "R, lost, Enter: the recorder starts, its line in the header"
else
	fail "arm from the view"; evidence armview
fi
quit_ok "q (2): exit status 0"
state_same "q (2): tracing state as before" "$tmp/before.state"
finish
