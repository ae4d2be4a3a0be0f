# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 19 in the guest, as it was filed: what `trace-cmd record` writes by
# default (version 7, zstd, the guest's whole kallsyms, ~6 MB) opens in ktop.
#  1. trace-cmd record -p function_graph -g vfs_read -e sched:sched_switch
#     while vmload reads /dev/zero: `ktop -i tc.dat --batch` exits 0, holds
#     as many events as `trace-cmd report -N` prints, says tracer
#     function_graph and draws vfs_read trees with read_zero in them;
#  2. ktop's own export of it (-o own.dat: version 7 zstd) prints the lines
#     of tc.dat in trace-cmd report, and reopened by ktop gives the same
#     graph section (issue 18 bug 5);
#  3. ktop -i changes nothing in tracefs (it reads a file).
# One kernel (backports): the issue was seen there, and the file's layout is
# trace-cmd's, not the kernel's (the rt fixtures hold files of both).
# kernels: backports
# timeout: 300

need ktop
need trace-cmd
need tracestate
need vmload

note "trace-cmd record (defaults: version 7, zstd)"
trace-cmd record -q -o /tmp/tc.dat -p function_graph -g vfs_read $FG_READ_PATH \
	-e sched:sched_switch vmload read /dev/zero 20 4096 > /tmp/tc.log 2>&1 ||
	{ show /tmp/tc.log; fail "trace-cmd record failed"; }
tracing_reset
head -c 12 /tmp/tc.dat | tail -c 2 | od -An -c | tr -d ' \n' > /tmp/tc.ver
[ "$(cat /tmp/tc.ver)" = '7\0' ] || fail "trace-cmd wrote version $(cat /tmp/tc.ver), not 7"
note "tc.dat: $(wc -c < /tmp/tc.dat) bytes"
tracestate --save /tmp/td.before || fail "tracestate --save failed"

# -- 1: ktop reads it ----------------------------------------------------------
ktop -i /tmp/tc.dat --batch --iterations 1 > /tmp/k.txt 2> /tmp/k.err ||
	{ show /tmp/k.err; fail "ktop -i tc.dat: exit status $?"; }
held=$(sed -n 's/.*, \([0-9]*\) events held.*/\1/p' /tmp/k.txt)
lines=$(trace-cmd report -N /tmp/tc.dat 2>/dev/null |
	grep -vc '^\(cpus=\|version = \|CPU [0-9]* is empty\|CPU:[0-9]*\)')
note "ktop holds $held events, trace-cmd report -N prints $lines"
[ -n "$held" ] && [ "$held" = "$lines" ] || { show /tmp/k.txt; fail "events: ktop $held, report $lines"; }
grep -q '^Trace: .*tracer function_graph' /tmp/k.txt || { show /tmp/k.txt; fail "not tracer function_graph"; }
awk '/^Function graph:/ { p = 1 } p' /tmp/k.txt > /tmp/k.graph
grep -q 'vfs_read() {' /tmp/k.graph && grep -q 'read_zero();' /tmp/k.graph ||
	{ show /tmp/k.graph 30; fail "no vfs_read tree with read_zero in ktop's graph"; }
note "--- ktop's graph of tc.dat:"
head -n 12 /tmp/k.graph | sed 's/^/  /'

# -- 2: ktop writes it back ---------------------------------------------------------
ktop -i /tmp/tc.dat --batch --iterations 1 -o /tmp/own.dat > /dev/null 2> /tmp/k.err ||
	{ show /tmp/k.err; fail "ktop -o own.dat failed"; }
trace-cmd report /tmp/tc.dat > /tmp/tc.report 2>&1
trace-cmd report /tmp/own.dat > /tmp/own.report 2>&1
cmp -s /tmp/tc.report /tmp/own.report ||
	{ diff /tmp/tc.report /tmp/own.report | head -n 10; fail "trace-cmd report differs for own.dat"; }
note "trace-cmd report: the same $(wc -l < /tmp/own.report) lines for tc.dat and own.dat ($(wc -c < /tmp/own.dat) bytes)"
ktop -i /tmp/own.dat --batch --iterations 1 > /tmp/o.txt 2> /tmp/k.err ||
	{ show /tmp/k.err; fail "ktop -i own.dat failed"; }
awk '/^Function graph:/ { p = 1 } p' /tmp/o.txt > /tmp/o.graph
grep -q '^Trace: .*tracer function_graph' /tmp/o.txt && cmp -s /tmp/k.graph /tmp/o.graph ||
	{ diff /tmp/k.graph /tmp/o.graph | head; fail "own.dat reopened: another tracer or graph"; }

# -- 3: nothing changed in tracefs ---------------------------------------------------
tracestate --diff /tmp/td.before > /tmp/td.diff 2>&1 ||
	{ show /tmp/td.diff; fail "ktop -i changed the tracing state"; }
note "ok: tc.dat and ktop's own.dat read alike; tracing state unchanged"
