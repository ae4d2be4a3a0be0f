# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 6, VM scenarios (issue 3 scenario 3): the osnoise/timerlat per-CPU
# table in --batch.
#  1. ktop --batch -p timerlat and -p osnoise (with -O settings) print a
#     table with a row for every CPU whose sample count is > 0 and whose
#     figures keep max >= avg >= min (read here from the printed text); the
#     -O settings are in effect in osnoise/ while ktop runs; --json has the
#     same rows.
#  2. The osnoise/ directory is global: it is the same after each run as
#     before (tracestate), after a value the kernel refuses (ktop exits 2 and
#     changes nothing), and after a SIGKILL once the next ktop has started.
#  (rtla side by side: scenario-14-rtla.sh)
# One kernel (bookworm): osnoise and timerlat of 6.1; those of 6.12 in tui-
# graph-latency and rtla.
# kernels: bookworm
# timeout: 2400

need ktop
need tracestate
ncpu=$(nproc)
tracestate --save /tmp/lat.before || fail "tracestate --save failed"
for f in period_us runtime_us timerlat_period_us stop_tracing_us; do
	note "osnoise/$f before: $(cat "$T/osnoise/$f")"
done

same_state()
{
	if ! tracestate --diff /tmp/lat.before > /tmp/lat.diff 2>&1; then
		sed 's/^/  /' /tmp/lat.diff | head -n 20
		fail "tracing state not restored after $1"
	fi
	note "state restored after $1"
}

# Check the last table of text output $1 for tracer $2: a row per CPU with
# count > 0 and max >= avg >= min.  Prints what it read.
check_table()
{
	awk -v tracer="$2" -v ncpu="$ncpu" '
	/^(Timer latency|Operating system noise) per CPU/ { delete seen; rows = 0; in_t = 1; next }
	/^# Noise per period/ { in_t = 2; next }
	/^$/ { in_t = 0 }
	!in_t || /^#/ { next }
	tracer == "timerlat" && in_t == 1 && $7 == "|" {
		# CPU  count cur min avg max | count cur min avg max
		for (k = 0; k < 2; k++) {
			o = k * 6
			if ($(2 + o) + 0 <= 0 || !($(6 + o) + 0 >= $(5 + o) + 0 && $(5 + o) + 0 >= $(4 + o) + 0)) {
				print "BAD row: " $0; bad++
			}
		}
		if ($1 != "ALL") { seen[$1] = 1; cnt[$1] = $2 }
		last[$1] = $0
		next
	}
	tracer == "osnoise" && in_t == 2 && NF == 5 {
		# CPU periods min avg max
		if ($2 + 0 <= 0 || !($5 + 0 >= $4 + 0 && $4 + 0 >= $3 + 0)) { print "BAD row: " $0; bad++ }
		if ($1 != "ALL") { seen[$1] = 1; cnt[$1] = $2 }
		last[$1] = $0
		next
	}
	END {
		n = 0
		for (c = 0; c < ncpu; c++) {
			if (c in seen) { n++; print "  cpu " c ": " last[c] } else print "  cpu " c ": no row"
		}
		if ("ALL" in last) print "  ALL: " last["ALL"]
		exit !(n == ncpu && !bad)
	}' "$1"
}

for t in timerlat osnoise; do
	if [ $t = timerlat ]; then
		set -- -O timerlat_period_us=2000
		want="timerlat_period_us 2000"
	else
		# period before runtime: the kernel refuses a period below the
		# current runtime (1 s by default), so ktop has to order them
		set -- -O period_us=200000 -O runtime_us=100000
		want="period_us 200000"
	fi
	note "== ktop --batch -p $t $*"
	kstart /tmp/$t.txt --batch --interval 1 --duration 3 -p $t "$@" ||
		fail "ktop -p $t did not start"
	f=${want% *}
	v=$(cat "$T/osnoise/$f")
	note "while tracing: osnoise/$f = $v"
	[ "$KDONE" = 1 ] || [ "$v" = "${want#* }" ] || fail "-O $f=${want#* } not in effect"
	[ -d "$T/instances/ktop-$KPID" ] && note "session: instance ktop-$KPID" || note "session: top level"
	kwait 120
	[ "$KRC" -eq 0 ] || { show /tmp/$t.txt.err; fail "ktop -p $t: exit status $KRC"; }
	note "--- ktop's last table:"
	awk '/^(Timer latency|Operating system noise) per CPU/ { buf = "" } /per CPU since start/, /^$/ { buf = buf "  " $0 "\n" } END { printf "%s", buf }' /tmp/$t.txt | head -n 16
	check_table /tmp/$t.txt $t || fail "$t: the table lacks a CPU, a count is 0, or max >= avg >= min does not hold"
	same_state "ktop -p $t"
done

note "== a value the kernel refuses, an unknown name"
ktop --batch -p timerlat -O nosuch=1 --duration 1 > /tmp/bad.out 2>&1
rc=$?
note "exit status $rc: $(cat /tmp/bad.out)"
[ $rc -eq 2 ] && grep -q "timerlat_period_us" /tmp/bad.out || fail "unknown -O name: no clear error"
ktop --batch -p osnoise -O runtime_us=100000 -O period_us=50000 --duration 2 > /tmp/bad.out 2>&1
rc=$?
note "exit status $rc: $(cat /tmp/bad.out)"
[ $rc -eq 2 ] || fail "a refused -O value should exit 2"
grep -q "period_us" /tmp/bad.out || fail "the message does not name the refused setting"
same_state "a refused -O value (runtime_us was set before period_us was refused)"

note "== --json, then SIGKILL: the next ktop restores osnoise/"
kstart /tmp/k.json --batch --json --interval 1 -p osnoise -O period_us=300000 \
	-O runtime_us=100000 || fail "ktop --json -p osnoise did not start"
# wait for a summary with samples on every CPU
ok=0
for i in $(seq 1 120); do
	last=$(grep '"latency"' /tmp/k.json | tail -n 1)
	n=0
	for cpu in $(seq 0 $((ncpu - 1))); do
		echo "$last" | grep -q "{\"cpu\":$cpu,\"samples\":[1-9]" && n=$((n + 1))
	done
	[ $n -eq $ncpu ] && { ok=1; break; }
	sleep 1
done
kill -9 "$KPID"
wait "$KPID" 2>/dev/null
[ $ok = 1 ] || { echo "$last" | head -c 1500; echo; fail "json: not every CPU has samples"; }
note "json: $(echo "$last" | grep -o '"all":{.*' | head -c 400)"
echo "$last" | grep -o '"period_noise":{[^}]*}' | while read -r pn; do
	mn=$(echo "$pn" | sed 's/.*"min_ns":\([0-9]*\).*/\1/')
	av=$(echo "$pn" | sed 's/.*"avg_ns":\([0-9]*\).*/\1/')
	mx=$(echo "$pn" | sed 's/.*"max_ns":\([0-9]*\).*/\1/')
	[ "$mx" -ge "$av" ] && [ "$av" -ge "$mn" ] || echo "BAD $pn"
done > /tmp/pn.bad
[ -s /tmp/pn.bad ] && { cat /tmp/pn.bad; fail "json: max >= avg >= min does not hold"; }
note "after SIGKILL: osnoise/period_us $(cat "$T/osnoise/period_us"), runtime_us $(cat "$T/osnoise/runtime_us"); saved: $(ls /run/ktop 2>/dev/null | tr '\n' ' ')"
[ "$(cat "$T/osnoise/period_us")" = 300000 ] || fail "-O period_us=300000 was not in effect"
kstart /tmp/k2.txt --batch -e sched:sched_switch --duration 1 || fail "the next ktop did not start"
kwait 120
same_state "SIGKILL and the next start"

