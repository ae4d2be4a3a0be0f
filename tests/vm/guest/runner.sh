# SPDX-License-Identifier: GPL-2.0-or-later
# Run each /vm/scenario-*.sh in its own shell with a time limit, from a reset
# tracing state; print "@@KTOP-VM ..." result lines on the console for
# tests/vm/run.sh.  The scenario's output is sent as evidence only when it
# failed. A scenario whose behaviour does not depend on the kernel's version
# runs on one flavour ("# kernels: bookworm"), to keep the VM part within its
# time budget; KTOP_VM_ALL=1 (ktop.all=1) runs every scenario on every
# flavour, as does naming them in KTOP_VM_ONLY.

PER_SCENARIO_TIMEOUT=${PER_SCENARIO_TIMEOUT:-60}
. /vm/lib.sh

names=
for f in /vm/scenario-*.sh; do
	n=${f#/vm/scenario-}
	n=${n%.sh}
	n=${n#[0-9][0-9]-}
	if [ -n "${KTOP_VM_ONLY:-}" ]; then
		case " $KTOP_VM_ONLY " in *" $n "*) ;; *) continue ;; esac
	elif [ "${KTOP_VM_ALL:-0}" != 1 ]; then
		# "# kernels: F ...": the flavours it runs on (default: all)
		k=$(sed -n 's/^# kernels: //p' "$f")
		case " ${k:-$KTOP_VM_FLAVOUR} " in *" $KTOP_VM_FLAVOUR "*) ;; *) continue ;; esac
	fi
	names="$names $n"
done

echo "@@KTOP-VM kernel $(uname -r)"
echo "@@KTOP-VM uptime $(cut -d" " -f1 /proc/uptime) s at the start of the scenarios"
echo "@@KTOP-VM scenarios$names"
mkdir -p /tmp/log
for f in /vm/scenario-*.sh; do
	n=${f#/vm/scenario-}
	n=${n%.sh}
	n=${n#[0-9][0-9]-}
	case " $names " in *" $n "*) ;; *) continue ;; esac
	# Every scenario but fresh-state starts where a plain event enable in a
	# scratch instance leaves the kernel: on 6.1 that allocates the top-level
	# buffer (its expansion is global), which any tracing tool does once and
	# the kernel cannot undo. fresh-state runs first and checks that ktop
	# changes nothing beyond it; the others then hold the same whether they
	# run after it or alone (KTOP_VM_ONLY).
	[ "$n" = fresh-state ] || plain_enable_baseline
	tracing_reset
	t0=$(cut -d' ' -f1 /proc/uptime)
	lim=$(sed -n 's/^# timeout: \([0-9]*\).*/\1/p' "$f")
	timeout "${lim:-$PER_SCENARIO_TIMEOUT}" sh -c ". /vm/lib.sh; . $f" > /tmp/log/$n 2>&1 < /dev/null
	rc=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	if [ "$rc" -eq 0 ]; then
		echo "@@KTOP-VM result $n ok $secs"
	else
		[ "$rc" -eq 143 ] && echo "FAIL: killed after ${lim:-$PER_SCENARIO_TIMEOUT}s" >> /tmp/log/$n
		echo "@@KTOP-VM result $n FAIL $secs"
		tail -n 60 /tmp/log/$n | sed "s|^|@@KTOP-VM evidence $n |"
	fi
	sed "s|^|@@KTOP-VM log $n |" /tmp/log/$n
done
tracing_reset
echo "@@KTOP-VM done"
