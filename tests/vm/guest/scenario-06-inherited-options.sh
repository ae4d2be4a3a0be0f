# SPDX-License-Identifier: GPL-2.0-or-later
# A new tracefs instance takes the top level's trace options. With
# options/stacktrace and options/userstacktrace left on at the top level (by
# another tool, or a user), ktop's instance must still record no stack it
# did not ask for: ktop sets both off in its instance, and on again only for
# --stack/--ustack. The top level keeps what its owner set. The guest is a
# fresh boot: this scenario may write the top level, as a user would.
# One kernel (backports): instance creation is alike on both.
# kernels: backports
# timeout: 300

need ktop
echo 1 > "$T/options/stacktrace"
echo 1 > "$T/options/userstacktrace"

ktop_start /tmp/k6 --batch --duration 4 -e sched:sched_switch || fail "ktop did not start"
d=$T/instances/ktop-$KPID
st=$(cat "$d/options/stacktrace" 2>/dev/null)
ust=$(cat "$d/options/userstacktrace" 2>/dev/null)
ktop_wait 60
note "ktop's instance: stacktrace=$st userstacktrace=$ust (top level 1 and 1)"
[ "$st" = 0 ] && [ "$ust" = 0 ] ||
	fail "ktop's instance inherited the top level's stack options (stacktrace=$st userstacktrace=$ust)"
[ "$KRC" = 0 ] || { show /tmp/k6.err; fail "ktop --batch exit status $KRC"; }
grep -q 'kernel_stack\|user_stack' /tmp/k6 &&
	{ show /tmp/k6 40; fail "the summary counts stack records nobody asked for"; }

# --stack on the same top level: the trigger (or the option) gives stacks
ktop_start /tmp/k6s --batch --duration 4 -e sched:sched_switch --stack sched:sched_switch ||
	fail "ktop --stack did not start"
trig=$(cat "$T/instances/ktop-$KPID/events/sched/sched_switch/trigger" 2>/dev/null | head -n 1)
ktop_wait 60
note "with --stack: sched_switch's trigger '$trig'"
case "$trig" in
stacktrace*) ;;
*) fail "--stack: no stacktrace trigger on sched_switch ('$trig')" ;;
esac

[ "$(cat "$T/options/stacktrace")" = 1 ] && [ "$(cat "$T/options/userstacktrace")" = 1 ] ||
	fail "ktop changed the top level's options"
note "the top level kept stacktrace=1 userstacktrace=1"
echo 0 > "$T/options/stacktrace"
echo 0 > "$T/options/userstacktrace"
