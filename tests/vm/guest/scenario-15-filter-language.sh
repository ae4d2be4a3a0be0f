# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 18 #3.14: -l, -n, -g take the filter prompt's language on the real
# kernel path (resolved against available_filter_functions, written as the
# prompt writes them), not a glob passed on to the kernel:
#   1. -l '/^read_(zero|null)$/' (a regex) traces exactly those: ktop counts
#      vmload's COUNT read_zero calls, and set_ftrace_filter reads back
#      read_null and read_zero and nothing else;
#   2. -l 'read_ze*' -n '/^read_zero$/' (a glob less a regex): nothing of
#      read_zero, set_ftrace_notrace reads back read_zero;
#   3. a broken regex exits 2 naming it as a regex error with its column, a
#      term that matches no function exits 2 naming it; neither changes the
#      tracing state.
# One kernel (bookworm): the function tracer in an instance, alike on both.
# kernels: bookworm
# timeout: 300

COUNT=200
need ktop
need tracestate
tracestate --save /tmp/fl.before || fail "tracestate --save failed"

# 1. a regex
ktop_start /tmp/fl1.json --batch --json --interval 0.5 -p function -l '/^read_(zero|null)$/' ||
	fail "ktop -l REGEX did not start"
sess=$T/instances/ktop-$KPID
got=$(sed 's/ .*//' "$sess/set_ftrace_filter" | sort | tr '\n' ' ')
note "set_ftrace_filter: $got"
[ "$got" = "read_null read_zero " ] || { ktop_stop INT; fail "set_ftrace_filter holds '$got'"; }
vmload read /dev/zero $COUNT &
pid=$!
wait $pid || fail "vmload failed"
wait_for "[ \$(json_sum /tmp/fl1.json '{\"function\":\"read_zero\"') -ge $COUNT ]" 20
ktop_stop INT
nf=$(json_sum /tmp/fl1.json '{"function":"read_zero"')
note "ktop saw read_zero $nf times (expected $COUNT), exit $KRC"
[ "$nf" -eq $COUNT ] && [ "$KRC" -eq 0 ] || { show /tmp/fl1.json.err; fail "-l REGEX: $nf calls"; }
tracestate --diff /tmp/fl.before || fail "tracing state not restored after -l REGEX"

# 2. a glob less a regex
ktop_start /tmp/fl2.json --batch --json --interval 0.5 -p function -l 'read_ze*' \
	-n '/^read_zero$/' || fail "ktop -l GLOB -n REGEX did not start"
sess=$T/instances/ktop-$KPID
got=$(sed 's/ .*//' "$sess/set_ftrace_notrace" | tr '\n' ' ')
note "set_ftrace_notrace: $got"
vmload read /dev/zero $COUNT &
wait $! || fail "vmload failed"
sleep 1.5
ktop_stop INT
nf=$(json_sum /tmp/fl2.json '{"function":"read_zero"')
note "ktop saw read_zero $nf times (expected 0), exit $KRC"
[ "$got" = "read_zero " ] && [ "$nf" -eq 0 ] && [ "$KRC" -eq 0 ] ||
	{ show /tmp/fl2.json.err; fail "-n REGEX: notrace '$got', $nf calls"; }
tracestate --diff /tmp/fl.before || fail "tracing state not restored after -n REGEX"

# 3. refusals
ktop --batch -p function -l '/^read_(zero/' > /tmp/fl3.out 2>&1
rc=$?
note "broken regex: exit $rc: $(head -c 200 /tmp/fl3.out)"
[ $rc -eq 2 ] && grep -q "regex error at column" /tmp/fl3.out ||
	fail "a broken regex is not named as one"
ktop --batch -p function -l 'read_no_such_fn*' > /tmp/fl4.out 2>&1
rc=$?
note "no match: exit $rc: $(head -c 300 /tmp/fl4.out)"
[ $rc -eq 2 ] && grep -q "read_no_such_fn\* matches no function" /tmp/fl4.out ||
	fail "a term that matches nothing is not named"
tracestate --diff /tmp/fl.before || fail "tracing state changed by a refused start"
