# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 26: in-kernel latencies on kernels with hist triggers, both engines in
# one run. ktop --agg-engine both measures
#   sched:sched_waking -> sched:sched_switch on pid = next_pid
# twice, with the hist engine (synthetic event ktop_<pid>_0 and triggers in
# ktop-agg-<pid>) and the BPF one, while it streams the same two events and
# writes them out (-o). pingpong's two threads, pinned to CPU 0, pass a byte
# N times. For each of its tids the hist engine's pairs and the BPF engine's
# must be equal (stated margin: 1% or 2 pairs; on one CPU both see the same
# tracepoint calls in the same order), and both equal to the pairs an awk
# reader makes from the streamed events the engines' way (an END consumes
# the latest START of its key); nothing may be lost.
# Cleanup: after SIGINT the tracing state is as before (tracestate), with no
# ktop-agg instance and no ktop_ synthetic event; after SIGKILL they are
# there, and the next ktop (--features, as root) removes them; another tool's
# synthetic event and its instance with a hist trigger stay throughout.
# timeout: 420

N=400
need ktop
need tracestate
need pingpong
KTOP_GUEST_OPTS=		# the BPF engine: BPF programs load here
WAKE='sched:sched_waking -> sched:sched_switch on pid = next_pid'

# another tool's: a synthetic event and an instance with a trigger on it
echo 'zz_lat u64 lat' >> $T/synthetic_events || fail "cannot define the foreign event"
mkdir $T/instances/zzfx || fail "cannot make the foreign instance"
echo 'hist:keys=lat' >> $T/instances/zzfx/events/synthetic/zz_lat/trigger ||
	fail "cannot add the foreign trigger"
tracestate -x -R --save /tmp/al.before || fail "tracestate -R --save failed"
cat $T/synthetic_events > /tmp/al.syn.before

pingpong -n $N -c 0 -w /tmp/al.go > /tmp/al.pp &
PP=$!
wait_for "grep -q '^tids' /tmp/al.pp" 10 || fail "pingpong did not start"
read -r _ A B < /tmp/al.pp
ktop_start /tmp/al.json --json --interval 0.5 -b 4096 --agg-engine both \
	-e sched:sched_waking -e sched:sched_switch --latency "$WAKE" -o /tmp/al.txt ||
	fail "ktop did not start"
show $T/synthetic_events
ls $T/instances
wait_for "grep -q '^{' /tmp/al.json" 120 || fail "no summary from ktop"
: > /tmp/al.go
wait $PP || fail "pingpong failed"
sleep 1
ktop_stop INT
[ "$KRC" = 0 ] || { show /tmp/al.json.err; fail "ktop exit status $KRC"; }
tail -n 1 /tmp/al.json > /tmp/al.last

# the measures of the last summary: one line each
sed 's/{"title"/\n{"title"/g' /tmp/al.last | grep '^{"title"' > /tmp/al.meas
show /tmp/al.meas 4
engines=$(sed -n 's/.*"engine":"\([a-z]*\)".*/\1/p' /tmp/al.meas | tr '\n' ' ')
note "engines: $engines"
[ "$engines" = "hist bpf " ] || fail "wanted the hist and the bpf engine, got '$engines'"
row() # MEASURE-LINE TID: the pairs of TID
{
	sed -n "${1}p" /tmp/al.meas | grep -o "\"key\":\"$2\",\"count\":[0-9]*" |
		sed 's/.*://' | head -n 1
}
lost=$(sed -n 's/.*"lost_total":\([0-9]*\).*/\1/p' /tmp/al.last)
set -- $(awk -v a="$A" -v b="$B" '
	{
		ev = ""
		for (i = 1; i <= NF; i++)
			if ($i == "sched_waking:" || $i == "sched_switch:") { ev = $i; break }
		if (ev == "")
			next
		for (j = i + 1; j <= NF; j++) {
			if (ev == "sched_waking:" && $j ~ /^pid=/)
				pend[substr($j, 5)] = 1
			if (ev == "sched_switch:" && $j ~ /^next_pid=/) {
				n = substr($j, 10)
				if (n in pend) { c[n]++; delete pend[n] }
			}
		}
	}
	END { print c[a] + 0, c[b] + 0 }' /tmp/al.txt)
SA=$1 SB=$2
HA=$(row 1 "$A") HB=$(row 1 "$B") BA=$(row 2 "$A") BB=$(row 2 "$B")
note "pairs of $A: stream $SA, hist $HA, bpf $BA; of $B: stream $SB, hist $HB, bpf $BB; lost $lost"
[ "$lost" = 0 ] || fail "the stream lost $lost events"
[ "${SA:-0}" -gt $((N / 4)) ] && [ "${SB:-0}" -gt $((N / 4)) ] ||
	fail "too few wakeup pairs in the stream ($SA, $SB) for $N rounds"
close() # X Y: within 1% or 2
{
	awk -v x="${1:-0}" -v y="${2:--1}" 'BEGIN { d = x - y; if (d < 0) d = -d
		m = x / 100; if (m < 2) m = 2; exit !(y >= 0 && d <= m) }'
}
close "$HA" "$BA" && close "$HB" "$BB" || fail "the hist and bpf engines differ"
[ "$HA" = "$SA" ] && [ "$HB" = "$SB" ] || fail "the hist engine and the stream differ"
[ "$BA" = "$SA" ] && [ "$BB" = "$SB" ] || fail "the BPF engine and the stream differ"
grep -q "ktop_$KPID" $T/synthetic_events && fail "ktop_$KPID events left after exit"
[ -d "$T/instances/ktop-agg-$KPID" ] && fail "ktop-agg-$KPID left after exit"
tracestate -x --diff /tmp/al.before > /tmp/al.diff 2>&1 ||
	{ show /tmp/al.diff; fail "tracing state changed by the run"; }

# SIGKILL: the instance and the events stay, the next ktop removes them
ktop_start /tmp/al2.json --json --interval 0.5 -e sched:sched_switch --latency "$WAKE" \
	--sql 'SELECT start.pid, (end.TIMESTAMP - start.TIMESTAMP) AS lat FROM sched_waking AS start JOIN sched_switch AS end ON start.pid = end.next_pid' ||
	fail "ktop did not start"
wait_for "grep -q '^{' /tmp/al2.json" 120 || fail "no summary from ktop"
grep -q '"engine":"hist"' /tmp/al2.json || fail "no hist engine measure"
grep -o '"title":"SELECT[^,]*,[^,]*,"count":[0-9]*' /tmp/al2.json | tail -n 1
K=$KPID
ktop_stop KILL
[ -d "$T/instances/ktop-agg-$K" ] || fail "ktop-agg-$K is not there after SIGKILL"
[ "$(grep -c "^ktop_${K}_" $T/synthetic_events)" = 2 ] ||
	{ show $T/synthetic_events; fail "not two ktop_${K}_ events after SIGKILL"; }
ktop --features > /tmp/al.feat 2> /tmp/al.feat.err
show /tmp/al.feat.err
grep -q '^hist_triggers *available' /tmp/al.feat || { show /tmp/al.feat 30; fail "--features: no hist_triggers"; }
[ -d "$T/instances/ktop-agg-$K" ] && fail "ktop-agg-$K still there after the next start"
grep -q "^ktop_${K}_" $T/synthetic_events && fail "ktop_${K}_ events still there"
grep -q '^zz_lat' $T/synthetic_events || fail "the foreign synthetic event went"
grep -q '^hist:keys=lat' $T/instances/zzfx/events/synthetic/zz_lat/trigger ||
	fail "the foreign trigger went"
tracestate -x --diff /tmp/al.before > /tmp/al.diff 2>&1 ||
	{ show /tmp/al.diff; fail "tracing state changed after SIGKILL and the next start"; }
echo '!hist:keys=lat' >> $T/instances/zzfx/events/synthetic/zz_lat/trigger
rmdir $T/instances/zzfx && echo '!zz_lat' >> $T/synthetic_events ||
	fail "cannot remove the foreign objects"
note "ok"
