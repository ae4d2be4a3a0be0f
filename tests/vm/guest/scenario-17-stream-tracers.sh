# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 18 (remote use): a stream carries the tracer's panes as a live
# session does. The reading side of `ktop --stream -p TRACER | ktop -i -
# --batch` prints the tracer's tables from the stream while it arrives:
#  1. timerlat: "Timer latency per CPU since start (N events read)" with
#     N > 0 in two summaries or more (not only in the last, printed once the
#     whole stream is in);
#  2. function_graph -g vfs_read, while vmload reads /dev/zero: two
#     summaries or more count top-level calls (> 0), and vfs_read is in the tree.
#  3. The tracing state is the same before and after.
# One kernel (backports, 6.12): the stream's side is the same code on both,
# and function_graph runs in an instance there.
# kernels: backports
# timeout: 1800

need ktop
need tracestate
need vmload
tracestate --save /tmp/st.before || fail "tracestate --save failed"

# -- 1: timerlat ---------------------------------------------------------------
ktop --stream -p timerlat -e none --duration 6 2>/tmp/st1.err |
	ktop -i - --batch --interval 1 >/tmp/st1.txt 2>/tmp/st1.rerr
rc=$?
n=$(sed -n 's/^Timer latency per CPU since start (\([0-9]*\) events read).*/\1/p' /tmp/st1.txt |
	awk '$1 > 0' | wc -l)
note "timerlat over a stream: reader status $rc, $n summaries with a table of events"
if [ "$rc" -ne 0 ] || [ "$n" -lt 2 ]; then
	show /tmp/st1.err
	show /tmp/st1.rerr
	grep -n 'Timer latency\|^ktop' /tmp/st1.txt | head -n 20
	fail "no timerlat table from the stream"
fi

# -- 2: function_graph -----------------------------------------------------------
( while :; do vmload read /dev/zero 10 > /dev/null 2>&1; sleep 0.2; done ) &
loop=$!
ktop --stream -p function_graph -g vfs_read --duration 6 2>/tmp/st2.err |
	ktop -i - --batch --interval 1 >/tmp/st2.txt 2>/tmp/st2.rerr
rc=$?
kill $loop 2>/dev/null
wait $loop 2>/dev/null
calls=$(sed -n 's/^Function graph: \([0-9]*\) top-level calls.*/\1/p' /tmp/st2.txt |
	awk '$1 > 0' | wc -l)
note "function_graph over a stream: reader status $rc, $calls summaries with calls"
if [ "$rc" -ne 0 ] || [ "$calls" -lt 2 ] || ! grep -q 'vfs_read' /tmp/st2.txt; then
	show /tmp/st2.err
	show /tmp/st2.rerr
	grep -n 'Function graph\|vfs_read' /tmp/st2.txt | head -n 20
	fail "no function_graph tree from the stream"
fi

# -- 3 ----------------------------------------------------------------------------
tracestate --diff /tmp/st.before > /tmp/st.diff 2>&1 || { show /tmp/st.diff; fail "tracing state changed"; }
note "tracing state as before"
