# SPDX-License-Identifier: GPL-2.0-or-later
# PENDING (needs issue 6: the osnoise/timerlat table in --batch --json).
# Issue 3, scenario 3: osnoise and timerlat each give per-CPU samples, and
# ktop's --batch output shows them for every CPU.  The JSON field names are
# a guess to be replaced by the real ones.
# timeout: 150

need ktop
for t in osnoise timerlat; do
	ktop_start /tmp/$t.json --batch --json --interval 0.5 --duration 3 -p $t ||
		fail "ktop -p $t did not start"
	ktop_wait 60
	[ "$KRC" -eq 0 ] || fail "ktop -p $t: exit status $KRC"
	for cpu in $(seq 0 $(($(nproc) - 1))); do
		grep -q "\"latency\":.*{\"cpu\":$cpu,\"samples\":[1-9]" /tmp/$t.json ||
			fail "$t: no samples for CPU $cpu in ktop's output (issue 6 not done)"
	done
done
