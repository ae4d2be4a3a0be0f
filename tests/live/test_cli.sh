#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The command line refuses what cannot work with a clear message and exit
# status 2, and leaves the kernel's tracing state exactly as it was: bad
# options, unknown events and tracers, tracers this kernel lacks or forbids,
# and running as a user other than root. --help, --version and --features
# work and exit 0.

cd "$(dirname "$0")/../.." || exit 2
. tests/live/lib_ktop.sh
need tracestate

state_save "$tmp/state"

# refuse NAME 'PATTERN-IN-MESSAGE' ARGS...: exit 2, message on stderr, state unchanged
refuse() {
	local name=$1 pat=$2 rc
	shift 2
	timeout 30 $KTOP "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 2 ]; then
		fail "$name: exit status $rc, want 2 (ktop $*: $(head -c 200 "$tmp/err"))"
	elif ! grep -qiE -e "$pat" "$tmp/err"; then
		fail "$name: message does not match /$pat/: $(head -c 300 "$tmp/err")"
	elif [ -s "$tmp/out" ]; then
		fail "$name: wrote to stdout: $(head -c 200 "$tmp/out")"
	else
		ok "$name: exit 2: $(head -n 1 "$tmp/err")"
	fi
	state_same "$name: tracing state unchanged" "$tmp/state"
}

refuse "unknown long option" "unknown option '--bogus'" --batch --bogus
refuse "unknown short option" "unknown option '-Z'" --batch -Z
refuse "missing argument" "-e needs an argument" --batch -e
refuse "bad number" "--interval wants" --batch --interval abc
refuse "stray argument" "unexpected argument 'foo'" --batch foo
refuse "bad size" "-m wants a size" --batch -m 12X
refuse "unknown event" "unknown event 'nosuchsys:nosuchevent'" --batch -e nosuchsys:nosuchevent
refuse "unknown event among good ones" "unknown event 'sched:nope_\*'" \
	--batch -e sched -e 'sched:nope_*'
# a typo gets the nearest event (issue 31 #11), as -m 1K gets its unit
refuse "misspelt event" "unknown event 'sched:sched_swich'.*did you mean sched:sched_switch\?" \
	--batch -e sched:sched_swich
refuse "unknown tracer" "unknown tracer 'nosuchtracer'" --batch -p nosuchtracer
# an empty --probe suggests a probe this kernel has (issue 31 #11)
if [ -e "$TRACEFS/kprobe_events" ]; then
	refuse "--probe '': a kernel function" "empty probe spec.*e\.g\. 'vfs_read count'" \
		--batch --probe ''
else
	refuse "--probe '': no kprobe where the kernel has none" \
		"empty probe spec.*e\.g\. 'bash:readline' \(a uprobe: this kernel has no kprobe_events\)" \
		--batch --probe ''
	if grep -q vfs_read "$tmp/err"; then
		fail "--probe '': suggests a kprobe: $(cat "$tmp/err")"
	fi
fi
refuse "-e none without a tracer" "-e none leaves nothing to trace without a tracer" --batch -e none
nopid=$(( $(cat /proc/sys/kernel/pid_max) - 1 ))
while [ -e /proc/$nopid ]; do nopid=$((nopid - 1)); done
refuse "no such pid" "-P $nopid: no such process" --batch -P $nopid

# tracers this kernel does not have or does not permit: say which and why
avail=$(cat $TRACEFS/available_tracers)
for t in function_graph osnoise timerlat; do
	if ! echo " $avail " | grep -q " $t "; then
		refuse "$t not built in" "'$t' is not built into this kernel \(CONFIG_" --batch -p $t
		break
	fi
done
if echo " $avail " | grep -q " function " && \
   "$KTOP" --features 2>/dev/null | grep -w '^ *function' | grep -q 'not permitted'; then
	refuse "function not permitted" "function.*not permitted" --batch -p function
fi

# not root: refused before touching anything
if command -v setpriv >/dev/null; then
	cp "$KTOP" "$tmp/ktop"
	chmod 755 "$tmp" "$tmp/ktop"
	KTOP_SAVE=$KTOP
	KTOP="setpriv --reuid=65534 --regid=65534 --clear-groups $tmp/ktop"
	refuse "not root" "needs root" --batch
	KTOP=$KTOP_SAVE
else
	fail "not root: setpriv (util-linux) is missing"
fi

# what works without tracing
"$KTOP" --help >"$tmp/out" 2>&1
rc=$?
check "--help: exit 0 (got $rc)" [ $rc -eq 0 ]
check "--help: lists -p, --tracer" grep -q -e '-p, --tracer' "$tmp/out"
v=$("$KTOP" --version 2>&1)
check "--version: prints 'ktop X.Y.Z' ($v)" eval 'echo "$v" | grep -qE "^ktop [0-9]+\.[0-9]+\.[0-9]+$"'
"$KTOP" --features >"$tmp/out" 2>&1
rc=$?
check "--features: exit 0 (got $rc)" [ $rc -eq 0 ]
check "--features: lists function_graph and its state" \
	grep -qE 'function_graph.*(available|not built in|not permitted|needs root|top level)' "$tmp/out"
# the probe kinds' README is tracefs's, not ktop's (issue 31 #11)
check "--features: the probe kinds name the tracefs README" \
	eval '! grep -E "(^|[^s] )README" "$tmp/out" | grep -v "tracefs README" | grep -q .'
state_same "after all of it: tracing state unchanged" "$tmp/state"
finish
