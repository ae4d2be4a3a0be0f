# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 3, scenario 6: the kernel's tracing state is exactly restored after
# a normal quit, after SIGHUP, and after SIGKILL followed by the next start.
# Before ktop runs, the top level is given non-default settings (buffer
# size, a notrace filter, an option), so a restore that resets to defaults
# instead of to what was there fails too.  Compared with build/tools/tracestate
# (and a shell dump as evidence).
# One kernel (bookworm): the top-level path (function_graph before 6.9); the
# instance path is checked by ktop-function here and by the host's live tests.
# kernels: bookworm
# timeout: 900

need ktop
need tracestate
echo 1410 > "$T/buffer_size_kb"
echo kfree > "$T/set_ftrace_notrace"
echo 1 > "$T/options/sym-offset"
tracestate --save /tmp/before.ts || fail "tracestate --save failed"
tracing_state_sh > /tmp/before.sh

same_state()
{
	local what=$1
	if ! tracestate --diff /tmp/before.ts > /tmp/diff.txt 2>&1; then
		note "after $what, the state differs:"
		sed 's/^/  /' /tmp/diff.txt | head -n 30
		tracing_state_sh > /tmp/after.sh
		diff /tmp/before.sh /tmp/after.sh | head -n 30
		return 1
	fi
	note "after $what: state restored"
	return 0
}

# One code path per kernel, to keep within the time budget: where the kernel
# allows function_graph only at top level (6.1), function_graph (the top
# level saved and restored); elsewhere (6.12) the function tracer in an
# instance.  Scenario ktop-function also checks the state after SIGINT.
mkdir "$T/instances/ktopvm-probe"
echo "$FUNC" > "$T/instances/ktopvm-probe/set_ftrace_filter"
if echo function_graph > "$T/instances/ktopvm-probe/current_tracer" 2>/dev/null; then
	set -- "-p function -l $FUNC"
	note "function_graph is allowed in an instance: testing the instance path"
else
	set -- "-p function_graph -g vfs_read -l vfs_read -l $FUNC"
	note "function_graph is refused in an instance: testing the top-level path"
fi
echo nop > "$T/instances/ktopvm-probe/current_tracer"
echo > "$T/instances/ktopvm-probe/set_ftrace_filter"
rmdir "$T/instances/ktopvm-probe"

bad=0
for args in "$@"; do
	# shellcheck disable=SC2086
	set -- --batch --interval 0.5 $args
	note "== ktop $*"

	# Normal quit: --duration runs out.
	ktop_start /tmp/r1.out "$@" --duration 2 || fail "ktop did not start"
	ktop_wait 60
	[ "$KRC" -eq 0 ] || { note "normal quit: exit status $KRC"; show /tmp/r1.out.err; bad=1; }
	same_state "a normal quit (--duration)" || bad=1

	ktop_start /tmp/r2.out "$@" || fail "ktop did not start"
	ktop_stop HUP
	same_state "SIGHUP (exit status $KRC)" || bad=1

	ktop_start /tmp/r3.out "$@" || fail "ktop did not start"
	ktop_stop KILL
	if tracestate --diff /tmp/before.ts > /tmp/diff.txt 2>&1; then
		note "after SIGKILL: nothing left behind"
	else
		note "after SIGKILL, left behind: $(head -n 3 /tmp/diff.txt | tr '\n' ' ')"
	fi
	ktop_start /tmp/r4.out "$@" --duration 2 || fail "ktop did not start after a SIGKILL"
	ktop_wait 60
	[ "$KRC" -eq 0 ] || { note "start after SIGKILL: exit status $KRC"; show /tmp/r4.out.err; bad=1; }
	same_state "SIGKILL then the next start and quit" || bad=1
done
echo 0 > "$T/options/sym-offset"
[ "$bad" -eq 0 ] || fail "tracing state not restored (see above)"
