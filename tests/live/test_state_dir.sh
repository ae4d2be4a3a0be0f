#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Live, as root: ktop's state directory (lock and crash-recovery files) and
# the reaper that restores what a killed ktop's state files say.
#   1. /run/ktop cannot be made (a read-only /run) and another user owns
#      /tmp/ktop, with state files planted in it naming a file outside
#      tracefs (one through "events/../../..", one through a directory of
#      its own): ktop --batch traces in its instance all the same (exit 0),
#      says once why it uses neither directory, creates nothing in /tmp/ktop
#      and changes neither victim; a session that must save the top level
#      first (KTOP_TEST_TOP_LEVEL) is refused with exit status 2.
#   2. /run/ktop is root's, with the same planted files (as if root had been
#      tricked into copying them there): each is rejected with a message
#      naming it, left in place, and no victim changes.
# Each case runs in a mount namespace of its own with private tmpfs /run and
# /tmp, so the machine's /run/ktop and /tmp are never touched; the kernel's
# tracing state is compared before and after. Run under the kernel lock.

. "$(dirname "$0")/lib_ktop.sh"
need tracestate
if [ "$(id -u)" != 0 ]; then
	echo "FAIL setup: needs root"
	exit 1
fi
KTOP_ABS=$(readlink -f "$KTOP")
case $KTOP_ABS in
/tmp/* | /run/*)
	# a clone under /tmp (as CI may make): the private /tmp would hide it
	bindir=$(mktemp -d /var/tmp/ktop-state-dir.XXXXXX) || exit 1
	cp "$KTOP_ABS" "$bindir/ktop" || { rm -rf "$bindir"; exit 1; }
	KTOP_ABS=$bindir/ktop
	;;
esac
dead=$(sh -c 'echo $$')
while [ -e /proc/$dead ]; do dead=$(sh -c 'echo $$'); done
state_save "$tmp/before.state"

# The part that runs in the namespace: $1 the case (foreign, rooted), $2 ktop,
# $3 a pid that is not running. Prints ok/FAIL lines.
inner='
set -u
case_=$1 ktop=$2 dead=$3
ok() { echo "ok $*"; }
fail() { echo "FAIL $*"; }
mount -t tmpfs -o mode=1777 ktop-tmp /tmp || { fail "$case_: mount /tmp"; exit; }
if [ "$case_" = foreign ]; then
	mount -t tmpfs -o ro,mode=755 ktop-run /run || { fail "$case_: mount /run"; exit; }
	dir=/tmp/ktop
	mkdir -m 755 $dir && chown 65534:65534 $dir
else
	mount -t tmpfs -o mode=755 ktop-run /run || { fail "$case_: mount /run"; exit; }
	dir=/run/ktop
	mkdir -m 700 $dir
fi
mkdir /tmp/v
echo precious > /tmp/v/tracing_thresh
echo precious > /tmp/v/victim2
printf "ktop-tracestate 1\ndir\t/tmp/v\n000\ttracing_thresh\tpwned\n" > $dir/global-$dead.state
printf "ktop-tracestate 1\ndir\t/sys/kernel/tracing\n010\tevents/../../../../tmp/v/victim2\tpwned\n" \
	> $dir/toplevel-$dead.state
[ "$case_" = foreign ] && chown 65534:65534 $dir/*
listing() { ls -lAn --time-style=+%s.%N $dir | tail -n +2; md5sum $dir/* /tmp/v/*; }
listing > /tmp/before
"$ktop" --batch -e sched:sched_switch --duration 0.3 > /tmp/out 2> /tmp/err
rc=$?
listing > /tmp/after
err=$(tr "\n" " " < /tmp/err)
if [ "$(cat /tmp/v/tracing_thresh /tmp/v/victim2)" = "precious
precious" ]; then
	ok "$case_: the victims outside tracefs are unchanged"
else
	fail "$case_: a victim changed: $(cat /tmp/v/tracing_thresh /tmp/v/victim2 | tr "\n" " ") ($err)"
fi
if cmp -s /tmp/before /tmp/after; then
	ok "$case_: nothing created, removed or changed in $dir"
else
	fail "$case_: $dir changed: $(diff /tmp/before /tmp/after | tr "\n" " ")"
fi
if [ "$case_" = foreign ]; then
	if [ $rc -eq 0 ] && grep -q "^Events: [1-9]" /tmp/out; then
		ok "$case_: ktop traces in its instance all the same"
	else
		fail "$case_: ktop --batch: exit $rc: $err"
	fi
	n=$(grep -c "no safe directory for the lock and crash-recovery files" /tmp/err)
	if [ "$n" = 1 ] && grep -q "/tmp/ktop belongs to uid 65534" /tmp/err &&
	   grep -q "/run/ktop: Read-only file system" /tmp/err; then
		ok "$case_: says once why ($(head -1 /tmp/err | cut -c1-160)...)"
	else
		fail "$case_: the reason, once: $n times: $err"
	fi
	KTOP_TEST_TOP_LEVEL=1 "$ktop" --batch -e sched:sched_switch --duration 0.3 > /tmp/out 2> /tmp/err
	rc=$?
	if [ $rc -eq 2 ] && grep -q "no safe directory to save the top-level state in" /tmp/err; then
		ok "$case_: a top-level session is refused (exit 2)"
	else
		fail "$case_: top-level session: exit $rc: $(tr "\n" " " < /tmp/err)"
	fi
else
	if [ $rc -eq 0 ] &&
	   grep -q "$dir/global-$dead.state: names the directory /tmp/v, not /sys/kernel/tracing: not restored" /tmp/err &&
	   grep -q "$dir/toplevel-$dead.state: names /sys/kernel/tracing/events/../../../../tmp/v/victim2, not a file in /sys/kernel/tracing: not restored" /tmp/err; then
		ok "$case_: each planted file is rejected by name"
	else
		fail "$case_: exit $rc, messages: $err"
	fi
fi
'

for c in foreign rooted; do
	unshare -m --propagation private bash -c "$inner" inner "$c" "$KTOP_ABS" "$dead" \
		>"$tmp/$c.out" 2>&1
	while read -r line; do
		case $line in
		"ok "*) ok "${line#ok }" ;;
		"FAIL "*) fail "${line#FAIL }" ;;
		*) echo "    $line" ;;
		esac
	done <"$tmp/$c.out"
	grep -qE '^(ok|FAIL) ' "$tmp/$c.out" || fail "$c: no result: $(head -3 "$tmp/$c.out")"
done
[ -n "${bindir:-}" ] && rm -rf "$bindir"
state_same "tracing_state_unchanged" "$tmp/before.state"
ls "$TRACEFS/instances" | grep -q "^ktop-$dead\$" && fail "instance ktop-$dead exists"
finish
