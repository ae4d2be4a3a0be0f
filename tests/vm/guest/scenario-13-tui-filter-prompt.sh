# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 7, the filter prompt under tmux in the guest (the host refuses function
# filtering): ktop -p function -l read_zero; f opens the prompt, which counts
# the kernel's available_filter_functions; typing vfs_read* then vfs_re*
# changes the preview count to what awk counts in that file; Enter on
# /^(read_zero|vfs_read)$/ leaves exactly those two in ktop's set_ftrace_filter
# and a "ktop: filter" marker in the event list; u restores read_zero alone;
# q quits with status 0 and the state as before.
# One kernel (backports): the filter writes are alike on both.
# kernels: backports
# timeout: 900

need ktop
need tmux
need tracestate
tracestate --save /tmp/tf.before || fail "tracestate --save failed"
cat "$T/available_filter_functions" > /tmp/aff
total=$(wc -l < /tmp/aff)
n1=$(awk '$1 ~ /^vfs_read/' /tmp/aff | wc -l)
n2=$(awk '$1 ~ /^vfs_re/' /tmp/aff | wc -l)
[ "$n1" -gt 0 ] && [ "$n1" != "$n2" ] || fail "vfs_read* $n1, vfs_re* $n2: no test"

evidence()
{
	note "--- screen ($1):"
	scr | sed 's/^/  |/'
	show /tmp/tf.err
}

tmux_new 160 40 \
	"XDG_STATE_HOME=/tmp/tfstate ktop -p function -l $FUNC 2> /tmp/tf.err; echo \"ktop exit \$?\" > /tmp/tf.rc" ||
	fail "tmux did not start"
wait_screen '^ ktop tracer' 300 || { evidence start; fail "no ktop header within 300 s"; }
D=$(ls -d $T/instances/ktop-* 2>/dev/null | head -n 1)
[ -n "$D" ] || D=$T
note "ktop's tracing directory: $D"

tmux send-keys -t ktopvm f
wait_screen 'Filter +[0-9.]+k? functions available to filter' 120 ||
	{ evidence open; fail "f: no filter prompt with the function count"; }
tmux send-keys -t ktopvm -l 'vfs_read*'
wait_screen "set_ftrace_filter: $n1 of $total functions" 30 ||
	{ evidence preview1; fail "preview of vfs_read* is not $n1 of $total"; }
tmux send-keys -t ktopvm Left BSpace BSpace
wait_screen "set_ftrace_filter: $n2 of $total functions" 30 ||
	{ evidence preview2; fail "preview of vfs_re* is not $n2 of $total"; }
note "preview: vfs_read* $n1, vfs_re* $n2 of $total"
tmux send-keys -t ktopvm C-u
tmux send-keys -t ktopvm -l "/^($FUNC|vfs_read)\$/"
tmux send-keys -t ktopvm Enter
wait_for "[ \"\$(sort $D/set_ftrace_filter | tr '\n' ' ')\" = \"$FUNC vfs_read \" ]" 60 ||
	{ evidence apply; show $D/set_ftrace_filter; fail "set_ftrace_filter is not $FUNC vfs_read"; }
wait_screen 'set_ftrace_filter: 2 functions' 10 ||
	{ evidence applied; fail "no read-back count after Enter"; }
note "applied: $(scr | tail -n 1)"
tmux send-keys -t ktopvm 3 /
tmux send-keys -t ktopvm -l 'ktop: filter'
tmux send-keys -t ktopvm Enter
wait_screen 'buf=ktop: filter' 30 || { evidence marker; fail "no filter marker in the event list"; }
tmux send-keys -t ktopvm u
wait_for "[ \"\$(cat $D/set_ftrace_filter)\" = \"$FUNC\" ]" 60 ||
	{ evidence undo; show $D/set_ftrace_filter; fail "u did not restore $FUNC"; }
note "undo: $(scr | tail -n 1)"
tmux send-keys -t ktopvm q
wait_for "[ -s /tmp/tf.rc ]" 30 || { evidence quit; fail "ktop did not quit on 'q'"; }
tmux kill-server 2>/dev/null
grep -qx 'ktop exit 0' /tmp/tf.rc || { show /tmp/tf.err; fail "ktop did not exit with 0"; }
tracestate --diff /tmp/tf.before || fail "tracing state not restored after 'q'"
