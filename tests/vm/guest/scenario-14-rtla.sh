# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 6: ktop's timerlat table side by side with Debian's rtla (copied into
# the initramfs from the host's rtla package), same boot, same settings
# (timerlat_period_us 2000, every CPU, DUR seconds each, one after the other;
# ktop with -e none: the timerlat records only, as rtla records them; ktop's
# default adds irq, sched and noise events, which under TCG delay the timer):
#  - every CPU has samples in both, and ktop's count is within TOL percent of
#    rtla's (both count the timer IRQ samples of DUR s at 500 Hz per CPU);
#  - the max IRQ and thread latencies are of the same order (within 10x:
#    under TCG they are milliseconds and jumpy);
#  - the CPU time each tool used (user + system, of the process and its
#    threads, from the parent's cutime/cstime) is printed side by side;
#  - the tracing state is as before after each tool.
# rtla is read from its own text (rtla timerlat top -q), ktop from its table.
# timeout: 300

DUR=8
PERIOD=2000
TOL=5
need ktop
need rtla
need tracestate
tracestate --save /tmp/rt.before || fail "tracestate --save failed"

same_state()
{
	if ! tracestate --diff /tmp/rt.before > /tmp/rt.diff 2>&1; then
		sed 's/^/  /' /tmp/rt.diff | head -n 20
		fail "tracing state not restored after $1"
	fi
}

# Run "$@" in a child shell; print its user+system CPU seconds (cutime and
# cstime of the shell once the command has ended, in clock ticks of 1/100 s).
cpu_of()
{
	sh -c '"$@"; rc=$?; set -- $(cut -d")" -f2 /proc/$$/stat)
	       echo "rc $rc cpu $(( ${14} + ${15} ))" >&2' cpu_of "$@"
}

# "cpu count irq_max thread_max" per CPU, from ktop's last timerlat table:
# CPU count cur min avg max | count cur min avg max
ktop_rows()
{
	awk '/^Timer latency per CPU/ { n = 0; delete r; t = 1; next }
	     t && /^$/ { t = 0 }
	     t && $1 ~ /^[0-9]+$/ { gsub(/\|/, ""); r[n++] = $1 " " $2 " " $6 " " $11 }
	     END { for (i = 0; i < n; i++) print r[i] }' "$1"
}

# The same from rtla timerlat top: CPU #count | cur min avg max | cur min avg max
rtla_rows()
{
	sed -e 's/[#|]/ /g' "$1" | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && $6 ~ /^[0-9]+$/ && NF >= 10 { print $1, $2, $6, $10 }'
}

note "== ktop --batch -p timerlat -e none -O timerlat_period_us=$PERIOD --duration $DUR"
cpu_of ktop --batch -p timerlat -e none -O timerlat_period_us=$PERIOD --duration $DUR \
	--interval $DUR > /tmp/k.txt 2> /tmp/k.err
kcpu=$(sed -n 's/^rc \([0-9]*\) cpu \([0-9]*\)$/\1 \2/p' /tmp/k.err)
set -- $kcpu
[ "${1:-1}" = 0 ] || { show /tmp/k.err; show /tmp/k.txt 40; fail "ktop exit status ${1:-?}"; }
kticks=$2
same_state "ktop"

note "== rtla timerlat top -q -d $DUR -p $PERIOD"
cpu_of rtla timerlat top -q -d $DUR -p $PERIOD > /tmp/r.txt 2> /tmp/r.err
rcpu=$(sed -n 's/^rc \([0-9]*\) cpu \([0-9]*\)$/\1 \2/p' /tmp/r.err)
set -- $rcpu
[ "${1:-1}" = 0 ] || { show /tmp/r.err; show /tmp/r.txt 40; fail "rtla exit status ${1:-?}"; }
rticks=$2
same_state "rtla"
note "--- rtla's table:"
sed 's/^/  /' /tmp/r.txt | tail -n 6

ktop_rows /tmp/k.txt > /tmp/k.rows
rtla_rows /tmp/r.txt > /tmp/r.rows
[ -s /tmp/k.rows ] || { show /tmp/k.txt 40; fail "no per-CPU rows in ktop's table"; }
[ -s /tmp/r.rows ] || { show /tmp/r.txt 40; fail "no per-CPU rows in rtla's output"; }
note "CPU time for $DUR s of timerlat: ktop $(awk -v t="$kticks" 'BEGIN { printf "%.2f", t / 100 }') s, rtla $(awk -v t="$rticks" 'BEGIN { printf "%.2f", t / 100 }') s"

bad=0
for cpu in $(seq 0 $(($(nproc) - 1))); do
	k=$(awk -v c="$cpu" '$1 == c' /tmp/k.rows)
	r=$(awk -v c="$cpu" '$1 == c' /tmp/r.rows)
	line=$(awk -v k="$k" -v r="$r" -v tol="$TOL" 'BEGIN {
		split(k, a, " "); split(r, b, " ")
		d = a[2] > b[2] ? a[2] - b[2] : b[2] - a[2]
		m = a[2] > b[2] ? a[2] : b[2]
		pct = m ? 100 * d / m : 100
		ok = a[2] > 0 && b[2] > 0 && pct <= tol
		for (i = 3; i <= 4; i++) {
			lo = a[i] < b[i] ? a[i] : b[i]; hi = a[i] > b[i] ? a[i] : b[i]
			if (lo <= 0 || hi / lo > 10) ok = 0
		}
		printf "%s samples ktop %d rtla %d (%.1f%% apart); max irq us ktop %s rtla %s; max thread us ktop %s rtla %s",
			ok ? "ok " : "BAD", a[2], b[2], pct, a[3], b[3], a[4], b[4]
	}')
	note "cpu $cpu: $line"
	case $line in BAD*) bad=1 ;; esac
done
[ $bad = 0 ] || { show /tmp/k.txt 30; fail "ktop and rtla disagree (tolerance $TOL% on counts, 10x on max)"; }
