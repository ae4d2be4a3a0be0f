# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 3, scenario 5: the TUI under tmux in the guest, with the function
# tracer the host cannot run: keys in, screen text out.  ktop -p function
# -l read_zero; pane 2 (top events and functions) must show read_zero with
# vmload's exact count; 'q' quits with status 0 and the state as before.
# One kernel (bookworm): the function tracer in an instance, alike on both.
# kernels: bookworm
# timeout: 300

COUNT=300
need ktop
need tmux
need tracestate
tracestate --save /tmp/tui.before || fail "tracestate --save failed"

evidence()
{
	note "--- screen ($1, blank lines dropped):"
	scr | grep -v '^ *$' | sed 's/^/  |/'
	show /tmp/tui.err
	note "instances: $(ls "$T/instances" | tr '\n' ' ')"
}

tmux_new 120 40 \
	"ktop -p function -l $FUNC 2> /tmp/tui.err; echo \"ktop exit \$?\" > /tmp/tui.rc" ||
	fail "tmux did not start"
wait_screen '^ ktop tracer' 180 || { evidence start; fail "no ktop header within 180 s"; }
note "header: $(scr | head -n 1)"
tmux send-keys -t ktopvm 2
wait_screen 'Top events and functions' 10 || { evidence pane2; fail "key 2 did not show the top pane"; }
vmload read /dev/zero $COUNT &
pid=$!
wait $pid || fail "vmload failed"
if ! wait_screen "^ +$COUNT +.*$FUNC" 20; then
	evidence top
	fail "the top pane does not show $FUNC with count $COUNT"
fi
note "top pane: $(scr | grep -E "$FUNC" | head -n 1)"
tmux send-keys -t ktopvm q
wait_for "[ -s /tmp/tui.rc ]" 30 || { evidence quit; fail "ktop did not quit on 'q'"; }
note "$(cat /tmp/tui.rc)"
tmux kill-server 2>/dev/null
grep -qx 'ktop exit 0' /tmp/tui.rc || { show /tmp/tui.err; fail "ktop did not exit with 0"; }
tracestate --diff /tmp/tui.before || fail "tracing state not restored after 'q'"
