#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The flight recorder runs unattended (issue 27): a condition that fires
# twice a second (an exec of the test's own program) for 75 s, with
# --save-max 60, under a small store (-m 16M), while the files it writes are
# removed as they come. The test fills the store itself first: a filler of
# syscalls (dd bs=1: about 80k raw_syscalls events a second, ~0.9 MB/s in
# the store) runs until the workload ends, so that the store is full and
# evicting whatever else the machine does (on a quiet CI machine its own
# events did not fill 24M in 75 s). Every 5 s meanwhile: ktop's resident
# memory, its open file descriptors and the tracefs instances it has. They
# must stay flat: RSS within 10 % (+4 MiB) of the largest of the first three
# samples (the save path's buffers grow to the largest window in the first
# saves: +3-6 MB here, then flat over 150 saves), descriptors within 2 of
# the first (a save in progress holds its file and directory), and exactly
# one instance, ktop-PID, every time. The saves stop at --save-max,
# the matches after it are counted, SIGTERM ends it, nothing is left.
#
# This is the CI version (~100 s, ~150 matches). KTOP_SOAK_SECONDS and
# KTOP_SOAK_RATE make it longer or denser by hand: an hour of a match a
# second is 3600 matches, e.g. KTOP_SOAK_SECONDS=600 KTOP_SOAK_RATE=6.

cd "$(dirname "$0")/../.." || exit 2
. tests/live/lib_ktop.sh
need tracestate

secs=${KTOP_SOAK_SECONDS:-75}
rate=${KTOP_SOAK_RATE:-2}
max=${KTOP_SOAK_MAX:-60}
name=recsoak$$
cp /bin/true "$tmp/$name" || exit 1
state_save "$tmp/state"

$KTOP --json --interval 1 -m 16M --save-on "sched:sched_process_exec comm ~ \"$name*\"" \
	--save-before 2 --save-after 0.2 --save-max "$max" -o "$tmp/soak-%n.ktop" \
	>"$tmp/out" 2>"$tmp/err" </dev/null &
kp=$!
if ! wait_for "$tmp/out" '"recorder":' 20; then
	fail "ktop did not start: $(head -c 300 "$tmp/err")"
	kill -TERM $kp
	wait $kp
	finish
fi

# store_bytes: "BYTES LIMIT" of ktop's last summary
store_bytes() {
	grep '"store"' "$tmp/out" | tail -n 1 |
		sed -n 's/.*"store":{"bytes":\([0-9]*\),"limit":\([0-9]*\).*/\1 \2/p'
}

# the filler: 10000 one-byte reads and writes every 0.5 s, until $tmp/stop
# (not print events of distinct texts: the store interns strings for good)
(
	while [ ! -e "$tmp/stop" ] && [ -e "$TRACEFS/instances/ktop-$kp" ]; do
		dd if=/dev/zero of=/dev/null bs=1 count=10000 2>/dev/null
		sleep 0.5
	done
) &
fp=$!

# until the store is full (bytes >= 90 % of the limit), at most 60 s
i=0
while [ $i -lt 120 ]; do
	set -- $(store_bytes)
	[ $# -eq 2 ] && [ "$1" -ge $(( $2 * 9 / 10 )) ] && break
	sleep 0.5
	i=$((i + 1))
done
check "soak: the store full before the workload ($(store_bytes | tr ' ' /) bytes after $((i / 2)) s)" \
	[ $i -lt 120 ]

# the workload: an exec $rate times a second; the saves removed as they come
(
	end=$(( $(date +%s) + secs ))
	while [ "$(date +%s)" -lt "$end" ]; do
		"$tmp/$name"
		sleep "$(awk -v r="$rate" 'BEGIN { print 1 / r }')"
	done
) &
wp=$!
( while kill -0 $wp 2>/dev/null; do rm -f "$tmp"/soak-*.ktop; sleep 0.5; done ) &
rp=$!

# samples: every 5 s, while the store stays full
: > "$tmp/samples"
while kill -0 $wp 2>/dev/null; do
	sleep 5
	set -- $(store_bytes)
	[ $# -eq 2 ] && [ "$1" -ge $(( $2 * 9 / 10 )) ] || continue
	last=$(grep '"store"' "$tmp/out" | tail -n 1)
	rss=$(awk '/^VmRSS:/ { print $2 }' /proc/$kp/status)
	fds=$(ls /proc/$kp/fd | wc -l)
	inst=$(ls $TRACEFS/instances | grep -c "^ktop-$kp")
	others=$(ls $TRACEFS/instances | grep -v '^ktop-[0-9]*$' | grep -c "$kp")
	saved=$(echo "$last" | sed -n 's/.*"recorder":{[^}]*"saved":\([0-9]*\).*/\1/p')
	echo "$rss $fds $inst $others ${saved:-0}" >> "$tmp/samples"
done
wait $wp
touch "$tmp/stop"
wait $fp
kill $rp 2>/dev/null
wait $rp 2>/dev/null
sleep 1.5
kill -TERM $kp
wait $kp
rc=$?

echo "# samples (RSS kB, fds, ktop-PID instances, other instances of it, saved):"
sed 's/^/#   /' "$tmp/samples"
n=$(wc -l < "$tmp/samples")
check "soak: $n samples with the store full (want 8 or more)" [ "$n" -ge 8 ]
read -r _ fds0 _ _ _ < "$tmp/samples"
rss0=$(head -n 3 "$tmp/samples" | awk '$1 > m { m = $1 } END { print m + 0 }')
awk -v r0="$rss0" -v f0="$fds0" '
	{ if ($1 > rmax) rmax = $1; if ($2 > fmax) fmax = $2; if (!fmin || $2 < fmin) fmin = $2 }
	END {
		printf "# RSS %d kB (the first three samples), %d at most (%+.1f %%); fds %d..%d\n",
		       r0, rmax, 100 * (rmax - r0) / r0, fmin, fmax
	}' "$tmp/samples"
check "soak: RSS flat (within 10 % + 4 MiB of the first three samples)" \
	awk -v r0="$rss0" '$1 > r0 * 1.1 + 4096 { bad = 1 } END { exit bad }' "$tmp/samples"
check "soak: descriptors flat (within 2 of the first sample)" \
	awk -v f0="$fds0" '$2 > f0 + 2 || $2 < f0 - 2 { bad = 1 } END { exit bad }' "$tmp/samples"
check "soak: one instance, ktop-$kp, at every sample" \
	awk '$3 != 1 || $4 != 0 { bad = 1 } END { exit bad }' "$tmp/samples"
last=$(grep '"recorder"' "$tmp/out" | tail -n 1 | grep -o '"recorder":{[^}]*}')
echo "# $last"
matches=$(echo "$last" | sed -n 's/.*"matches":\([0-9]*\).*/\1/p')
saved=$(echo "$last" | sed -n 's/.*"saved":\([0-9]*\).*/\1/p')
skipped=$(echo "$last" | sed -n 's/.*"skipped_max":\([0-9]*\).*/\1/p')
check "soak: --save-max $max files saved ($saved), no more" [ "${saved:-0}" -eq "$max" ]
check "soak: the matches after it counted ($skipped of $matches)" \
	[ "${skipped:-0}" -gt 0 -a "$(( ${saved:-0} + ${skipped:-0} ))" -le "${matches:-0}" ]
check "soak: SIGTERM: exit status 0 ($rc)" [ "$rc" -eq 0 ]
no_instance "soak: no instance left" $kp
check "soak: no temporary left" [ -z "$(ls "$tmp" | grep 'soak-.*\.ktop\.')" ]
state_same "soak: tracing state unchanged" "$tmp/state"
finish
