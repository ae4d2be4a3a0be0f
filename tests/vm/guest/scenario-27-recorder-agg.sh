# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 27 on issue 26: the flight recorder on an in-kernel A->B latency
# measured by the hist engine (a synthetic event and hist triggers in
# ktop-agg-PID; the host's test, tests/live/test_recorder_agg.sh, has the
# BPF engine). The latency is exec -> exit of vmload spin MS, so the test
# picks it, with the bound 300 ms:
#   - spin 20 (under the bound): no file;
#   - spin 1500: one file, the measure's new maximum, holding that run's
#     exec and exit; its note names the latency and "its largest";
#   - spin 700 (over the bound, not the largest): a second file, from the
#     histogram's buckets wholly above the bound;
#   - the tracing state is as before (no synthetic event, trigger or
#     instance left).
# kernels: backports
# timeout: 600

need ktop
need tracestate
need vmload
tracestate --save /tmp/ra.before || fail "tracestate --save failed"
SPEC='sched:sched_process_exec -> sched:sched_process_exit where comm == "vmload"'

rm -f /tmp/ra-*.ktop
kstart /tmp/ra.txt --batch --interval 1 --agg-engine hist \
	-e sched:sched_process_exec -e sched:sched_process_exit \
	--save-on "latency $SPEC > 300ms" --save-before 3 --save-after 0.5 -o '/tmp/ra-%n.ktop' ||
	fail "ktop --save-on 'latency ...' did not start"
grep -q '^Latency 0: .*\[hist' /tmp/ra.txt || wait_for "grep -q '^Latency 0: .*\[hist' /tmp/ra.txt" 60 ||
	{ show /tmp/ra.txt; fail "the measure is not the hist engine's"; }
grep '^Latency 0:' /tmp/ra.txt | head -n 1 | sed 's/^/  /'
vmload spin 20
sleep 4
n=$(grep -c '^saved ' /tmp/ra.txt)
[ "$n" -eq 0 ] || fail "20 ms, under the bound: $n files"
note "spin 20: no file"
vmload spin 1500 &
P1=$!
wait $P1
wait_for "grep -q '^saved /tmp/ra-1.ktop' /tmp/ra.txt" 120 || { show /tmp/ra.txt; fail "spin 1500: no file"; }
sleep 2
vmload spin 700
wait_for "grep -q '^saved /tmp/ra-2.ktop' /tmp/ra.txt" 120 || { show /tmp/ra.txt; fail "spin 700: no second file"; }
ktop_stop TERM
grep -E '^(Recorder|saved|save )' /tmp/ra.txt | sort -u | sed 's/^/  /'
n=$(ls /tmp/ra-*.ktop 2>/dev/null | wc -l)
[ "$n" -eq 2 ] || fail "$n files, want 2"

ktop -i /tmp/ra-1.ktop --batch > /tmp/ra-1.note 2>&1 || fail "ra-1.ktop does not open"
grep '^Save note: match' /tmp/ra-1.note | sed 's/^/  /'
grep -q '^Save note: match: latency .* at .*: latency 1\.[0-9]*s, its largest' /tmp/ra-1.note ||
	fail "the first file's note does not name the new maximum"
ktop -i /tmp/ra-1.ktop --batch -F 'event:sched_process_exec,sched_process_exit' -o /tmp/ra-1.txt \
	> /dev/null 2>&1 || fail "ra-1.ktop: no text export"
grep -q "sched_process_exec.*vmload.*pid=$P1" /tmp/ra-1.txt || fail "ra-1.ktop lacks the exec of $P1"
grep -q "sched_process_exit.*comm=vmload pid=$P1" /tmp/ra-1.txt || fail "ra-1.ktop lacks the exit of $P1"
note "ra-1.ktop: the exec and exit of vmload $P1"
ktop -i /tmp/ra-2.ktop --batch > /tmp/ra-2.note 2>&1 || fail "ra-2.ktop does not open"
grep '^Save note: match' /tmp/ra-2.note | sed 's/^/  /'
grep -q '^Save note: match: .*: latency > 537[.0-9]*ms: 1 pair over 300[.0-9]*ms' /tmp/ra-2.note ||
	fail "the second file's note does not name the bucket over the bound"

if ! tracestate --diff /tmp/ra.before > /tmp/ra.diff 2>&1; then
	sed 's/^/  /' /tmp/ra.diff | head -n 20
	fail "tracing state not restored"
fi
note "state restored"
