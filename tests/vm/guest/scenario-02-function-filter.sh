# SPDX-License-Identifier: GPL-2.0-or-later
# The rig itself, without ktop: in an instance, the function tracer filtered
# on $FUNC sees exactly vmload's COUNT calls, all from vmload's pid.  This is
# what scenario ktop-function expects ktop to report.

COUNT=200
I=$T/instances/ktopvm-func
mkdir "$I" || fail "cannot create an instance"
echo "$FUNC" > "$I/set_ftrace_filter" || fail "cannot filter on $FUNC"
[ "$(cat "$I/set_ftrace_filter")" = "$FUNC" ] || { show "$I/set_ftrace_filter"; fail "filter not set"; }
echo function > "$I/current_tracer" || fail "cannot select the function tracer in an instance"
vmload read /dev/zero $COUNT &
pid=$!
wait $pid || fail "vmload failed"
echo 0 > "$I/tracing_on"
cat "$I/trace" > /tmp/func.txt
echo nop > "$I/current_tracer"
echo > "$I/set_ftrace_filter"
rmdir "$I"
n=$(count " $FUNC <-" /tmp/func.txt)
np=$(count "^ *vmload-$pid +\[[0-9]+\].* $FUNC <-" /tmp/func.txt)
note "function tracer, filter $FUNC: $n calls, $np from vmload pid $pid (expected $COUNT)"
[ "$n" -eq $COUNT ] && [ "$np" -eq $COUNT ] || { show /tmp/func.txt 30; fail "wrong calls"; }
