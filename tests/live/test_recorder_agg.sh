#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The flight recorder on an in-kernel A->B latency (issue 27 on issue 26's
# measures): --save-on 'latency START -> END ... > BOUND' on this host's
# BPF engine. The latency is exec -> exit of a program of the test's own
# name (a copy of sleep), so the test picks it:
#   - a run of 0.05 s, under the bound (300 ms): no file;
#   - a run of 1 s: one file, at the pair's end (the measure's new
#     maximum), holding that run's exec and exit;
#   - a run of 0.6 s, over the bound but not the largest: a second file, from
#     the histogram's buckets above the bound;
#   - the same spec also given as --latency: one measure, not two;
#   - a bad spec (an event this kernel has not) and a bad condition exit 2
#     and leave the tracing state as it was; no instance is left.

cd "$(dirname "$0")/../.." || exit 2
. tests/live/lib_ktop.sh
need tracestate

if [ "$(id -u)" != 0 ]; then
	echo "FAIL recorder agg: needs root"
	finish
fi

name=rlat$$
cp /bin/sleep "$tmp/$name" || exit 1
state_save "$tmp/state"
spec="sched:sched_process_exec -> sched:sched_process_exit where comm == \"$name\""
out=$tmp/out

# two events only: the windows stay small, their writes quick on a busy machine
$KTOP --batch --interval 0.5 -e sched:sched_process_exec -e sched:sched_process_exit \
	--latency "$spec" --save-on "latency $spec > 300ms" \
	--save-before 2 --save-after 0.3 -o "$tmp/lat-%n.ktop" >"$out" 2>"$out.err" </dev/null &
kp=$!
if ! wait_for "$out" '^Recorder:' 20; then
	fail "ktop did not start: $(head -c 300 "$out.err")"
	kill -TERM $kp 2>/dev/null
	wait $kp
	finish
fi

# saves: how many "saved" lines so far
saves() {
	grep -c '^saved ' "$out"
}

"$tmp/$name" 0.05
sleep 3	# three polls of the measure
check "under the bound: no file" [ "$(saves)" -eq 0 ]

"$tmp/$name" 1 &
p1=$!
wait $p1
wait_for "$out" '^saved ' 20
check "over the bound: one file, at the new maximum" \
	grep -q "^saved $tmp/lat-1.ktop: latency $spec > 300ms at .*, window " "$out"
if [ -f "$tmp/lat-1.ktop" ]; then
	$KTOP -i "$tmp/lat-1.ktop" --batch -F 'event:sched_process_exec,sched_process_exit' \
		-o "$tmp/lat-1.txt" >/dev/null 2>&1
	check "the file holds the run's exec" grep -q "sched_process_exec.*$name.*pid=$p1" \
		"$tmp/lat-1.txt"
	check "the file holds the run's exit" grep -q "sched_process_exit.*comm=$name pid=$p1" \
		"$tmp/lat-1.txt"
	$KTOP -i "$tmp/lat-1.ktop" --batch > "$tmp/note" 2>&1
	check "its note names the latency" grep -q 'Save note:.*latency 1\.0[0-9]*s, its largest' \
		"$tmp/note"
else
	fail "over the bound: no file $tmp/lat-1.ktop"
	grep '^Recorder:\|^save\|^  pairs' "$out" | sort | uniq -c | sed 's/^/#   /'
fi

sleep 1
"$tmp/$name" 0.6
wait_for "$out" "^saved $tmp/lat-2.ktop" 20
check "over the bound, not the largest: a second file, from the buckets" \
	grep -q "^saved $tmp/lat-2.ktop: latency .* at " "$out"
check "one file each, no more" [ "$(saves)" -eq 2 ]
if [ -f "$tmp/lat-2.ktop" ]; then
	$KTOP -i "$tmp/lat-2.ktop" --batch > "$tmp/note2" 2>&1
	check "its note says the pair came from the buckets" \
		grep -q 'Save note:.*latency > 537[.0-9]*ms: 1 pair over 300[.0-9]*ms' "$tmp/note2"
fi
grep -h '^saved \|Save note' "$out" "$tmp/note" "$tmp/note2" 2>/dev/null | sed 's/^/# /'

# the --latency and the condition's are one measure: "Latency 0:" alone
check "the same spec as --latency: one measure ($(grep -o '^Latency [0-9]*:' "$out" |
	sort -u | tr '\n' ' '))" [ "$(grep -o '^Latency [0-9]*:' "$out" | sort -u)" = "Latency 0:" ]
kill -TERM $kp
wait $kp
rc=$?
check "SIGTERM: exit status 0 ($rc)" [ "$rc" -eq 0 ]
no_instance "no instance left" $kp

# ---- refused: exit 2, nothing changed ------------------------------------------------------
$KTOP --batch --save-on 'latency sched:nosuch -> sched:sched_switch > 1ms' -o "$tmp/bad-%n.ktop" \
	>"$tmp/bad" 2>&1 </dev/null
rc=$?
check "an unknown event: exit 2 ($rc)" [ "$rc" -eq 2 ]
check "an unknown event: said" grep -q "latency 'sched:nosuch -> sched:sched_switch': .*nosuch" \
	"$tmp/bad"
$KTOP --batch --save-on 'latency sched:sched_waking > 1ms' >"$tmp/bad2" 2>&1 </dev/null
rc=$?
check "no END: exit 2 ($rc)" [ "$rc" -eq 2 ]
check "no END: said" grep -q "wants START -> END" "$tmp/bad2"
state_same "tracing state unchanged" "$tmp/state"
finish
