# SPDX-License-Identifier: GPL-2.0-or-later
# PENDING (needs issue 5: the function_graph tree in --batch --json).
# Issue 3, scenario 2: function_graph with a graph function gives a
# correctly nested tree with durations, and --batch shows it.
# vmload does COUNT reads of /dev/zero: the tree under vfs_read must hold
# read_zero as a child with COUNT calls, every duration >= its children's sum.
# The JSON field names below are a guess to be replaced by the real ones.
# timeout: 150

COUNT=50
need ktop
ktop_start /tmp/fg.json --batch --json --interval 0.5 -p function_graph -g vfs_read ||
	fail "ktop did not start"
vmload read /dev/zero $COUNT &
pid=$!
wait $pid
sleep 2
ktop_stop INT
grep -q '"graph"' /tmp/fg.json || fail "no graph in ktop's --json output (issue 5 not done)"
n=$(grep -o '{"function":"read_zero"[^}]*"parent":"vfs_read"[^}]*}' /tmp/fg.json |
	sed -n 's/.*"calls":\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
[ "$n" -eq $COUNT ] || fail "read_zero under vfs_read: $n calls, expected $COUNT"
