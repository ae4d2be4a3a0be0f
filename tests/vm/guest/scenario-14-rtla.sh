# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 6: ktop's timerlat table side by side with Debian's rtla (copied into
# the initramfs from the host's rtla package), on the same run: ktop
# (-e none: the timerlat records only, as rtla records them) traces in its
# instance, and while it does, `rtla timerlat top -d DUR` runs in its own.
# Both instances get the same timerlat samples (osnoise/timerlat_period_us
# is global: ktop sets 2000 us, rtla finds and keeps 2000), and ktop's window
# holds rtla's, so per CPU:
#  - ktop's count >= rtla's, and ktop's samples per second are within TOL
#    percent of rtla's (see below why TOL is wide);
#  - ktop's max IRQ and thread latencies >= rtla's (rtla prints whole us);
#  - the CPU time each tool used (user + system, from the parent's cutime
#    and cstime) is printed side by side, per second of its run;
#  - the tracing state is as before once both have ended.
# Timed runs one after the other were tried first: under TCG on a loaded
# host, the count of either tool moved by 10% from run to run.
# The exact checks are count and max (rtla's samples are a subset of
# ktop's). The rates are over different windows (ktop's holds rtla's), and
# under TCG the share of timer periods that fire moves with the host's
# load: quiet, they were 1-3% apart; with the CI host loaded, 5-12%. So TOL
# only catches a gross disagreement (25%); the rates are printed.
# One kernel (backports): timerlat of 6.12; that of 6.1 in latency-batch.
# kernels: backports
# timeout: 300

DUR=5
PERIOD=2000
TOL=25
need ktop
need rtla
need tracestate
need pidof
tracestate --save /tmp/rt.before || fail "tracestate --save failed"

# Run "$@" in a child shell; print its user+system CPU time to stderr as
# "rc RC cpu TICKS" (cutime and cstime of the shell once the command has
# ended, in clock ticks of 1/100 s).
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
	sed -e 's/[#|]/ /g' "$1" |
		awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && $6 ~ /^[0-9]+$/ && NF >= 10 { print $1, $2, $6, $10 }'
}

note "== ktop --batch --interval 1 -p timerlat -e none -O timerlat_period_us=$PERIOD, then rtla"
( cpu_of ktop --batch --no-bpf --interval 1 -p timerlat -e none \
	-O timerlat_period_us=$PERIOD > /tmp/k.txt 2> /tmp/k.err ) &
kbg=$!
wait_for 'kp=$(pidof ktop) && ktop_tracing $kp timerlat' 300 ||
	{ show /tmp/k.err; fail "ktop did not start tracing"; }
kp=$(pidof ktop)
note "ktop $kp tracing; rtla timerlat top -q -d $DUR -p $PERIOD"
cpu_of rtla timerlat top -q -d $DUR -p $PERIOD > /tmp/r.txt 2> /tmp/r.err
rcpu=$(sed -n 's/^rc \([0-9]*\) cpu \([0-9]*\)$/\1 \2/p' /tmp/r.err)
set -- $rcpu
[ "${1:-1}" = 0 ] || { kill -INT $kp; show /tmp/r.err; show /tmp/r.txt 40; fail "rtla exit status ${1:-?}"; }
rticks=$2
# SIGINT: ktop's last summary holds every sample to this moment, so all of
# rtla's run
kill -INT $kp
wait $kbg
kcpu=$(sed -n 's/^rc \([0-9]*\) cpu \([0-9]*\)$/\1 \2/p' /tmp/k.err)
set -- $kcpu
[ "${1:-1}" = 0 ] || { show /tmp/k.err; show /tmp/k.txt 40; fail "ktop exit status ${1:-?}"; }
kticks=$2
kup=$(sed -n 's/^ktop .* up \([0-9.]*\)s, summary.*/\1/p' /tmp/k.txt | tail -n 1)
if ! tracestate --diff /tmp/rt.before > /tmp/rt.diff 2>&1; then
	sed 's/^/  /' /tmp/rt.diff | head -n 20
	fail "tracing state not restored after ktop and rtla"
fi
note "--- rtla's table:"
sed 's/^/  /' /tmp/r.txt | tail -n 6

ktop_rows /tmp/k.txt > /tmp/k.rows
rtla_rows /tmp/r.txt > /tmp/r.rows
[ -s /tmp/k.rows ] || { show /tmp/k.txt 40; fail "no per-CPU rows in ktop's table"; }
[ -s /tmp/r.rows ] || { show /tmp/r.txt 40; fail "no per-CPU rows in rtla's output"; }
[ -n "$kup" ] || { show /tmp/k.txt 40; fail "no 'up N s' in ktop's last summary"; }
note "CPU time: ktop $(awk -v t="$kticks" -v s="$kup" 'BEGIN { printf "%.2f s in %.1f s (%.0f%% of a CPU)", t / 100, s, t / s }'), rtla $(awk -v t="$rticks" -v s="$DUR" 'BEGIN { printf "%.2f s in %d s (%.0f%% of a CPU)", t / 100, s, t / s }')"

bad=0
for cpu in $(seq 0 $(($(nproc) - 1))); do
	k=$(awk -v c="$cpu" '$1 == c' /tmp/k.rows)
	r=$(awk -v c="$cpu" '$1 == c' /tmp/r.rows)
	line=$(awk -v k="$k" -v r="$r" -v tol="$TOL" -v kup="$kup" -v dur="$DUR" 'BEGIN {
		split(k, a, " "); split(r, b, " ")
		kr = a[2] / kup; rr = b[2] / dur
		pct = rr ? 100 * (kr > rr ? kr - rr : rr - kr) / rr : 100
		ok = a[2] > 0 && b[2] > 0 && a[2] >= b[2] && pct <= tol
		for (i = 3; i <= 4; i++)
			if (a[i] + 1 < b[i]) ok = 0
		printf "%s samples ktop %d in %.1f s (%.1f/s), rtla %d in %d s (%.1f/s), %.1f%% apart; max irq us ktop %s rtla %s; max thread us ktop %s rtla %s",
			ok ? "ok " : "BAD", a[2], kup, kr, b[2], dur, rr, pct, a[3], b[3], a[4], b[4]
	}')
	note "cpu $cpu: $line"
	case $line in BAD*) bad=1 ;; esac
done
[ $bad = 0 ] || { show /tmp/k.txt 30; fail "ktop and rtla disagree (ktop >= rtla, rates within $TOL%)"; }
