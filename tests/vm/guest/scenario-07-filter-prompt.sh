# SPDX-License-Identifier: GPL-2.0-or-later
# timeout: 240
# The filter prompt's kernel side (src/ftrace_filter.c, driven by
# filter_apply) in an instance with the function tracer running:
#  - a regex leaves exactly the functions grep -E finds in
#    available_filter_functions in set_ftrace_filter;
#  - undo restores the previous filter (a function, then "all functions"),
#    redo the new one;
#  - a bad event filter shows the kernel's error_log message, changes nothing;
#  - function events after the change are only of the filtered functions;
#  - bench: index form vs names vs one by one (tracer off, then on).

need filter_apply
need vmload
note "t=$(now) start"
I=ktopvm-filter
D=$T/instances/$I
AFF=$T/available_filter_functions
mkdir "$D" || fail "cannot create an instance"
echo function > "$D/current_tracer" || fail "no function tracer in an instance"
echo "$FUNC" > "$D/set_ftrace_filter" || fail "cannot set a first filter"

# 1. regex -> exactly grep's functions; undo/redo/undo
RE='^(vfs|ksys)_|_(read|write)_iter$'
awk -v re="$RE" '$1 ~ re' "$AFF" | sort > /tmp/want
[ -s /tmp/want ] || fail "no function matches $RE in available_filter_functions"
filter_apply -i "$I" apply "/$RE/" save /tmp/f.applied undo save /tmp/f.undo \
	redo save /tmp/f.redo undo save /tmp/f.undo2 > /tmp/fa.out 2>&1
cat /tmp/fa.out
sort /tmp/f.applied > /tmp/got
note "regex /$RE/: kernel holds $(wc -l < /tmp/got) lines, grep -E finds $(wc -l < /tmp/want)"
cmp -s /tmp/got /tmp/want || { diff /tmp/want /tmp/got | head -20; fail "set_ftrace_filter differs from grep -E"; }
grep -q '^result apply rc=0 changed=1 index=1' /tmp/fa.out || fail "not applied in the index form"
[ "$(cat /tmp/f.undo)" = "$FUNC" ] || { show /tmp/f.undo; fail "undo did not restore $FUNC"; }
sort /tmp/f.redo | cmp -s - /tmp/want || fail "redo did not restore the regex's functions"
[ "$(cat /tmp/f.undo2)" = "$FUNC" ] || fail "second undo did not restore $FUNC"

note "t=$(now) regex, undo, redo done"

# 2. undo back to an empty filter ("all functions") must truncate; with the
# tracer off, as tracing every function under TCG takes minutes
echo nop > "$D/current_tracer"
echo > "$D/set_ftrace_filter"
cat "$D/set_ftrace_filter" > /tmp/f.empty
filter_apply -i "$I" apply "+ $FUNC vfs_read" save /tmp/f.two undo save /tmp/f.back > /tmp/fa2.out 2>&1 ||
	{ cat /tmp/fa2.out; fail "apply/undo from an empty filter failed"; }
[ "$(sort /tmp/f.two | tr '\n' ' ')" = "$FUNC vfs_read " ] || { show /tmp/f.two; fail "'+ $FUNC vfs_read' wrong"; }
cmp -s /tmp/f.back /tmp/f.empty || { show /tmp/f.back; fail "undo did not give back the empty filter"; }
note "undo to empty: $(cat /tmp/f.back)"

note "t=$(now) undo to empty done"

# 2b. notrace (index form) and graph roots (names), and clearing them;
# 6.1 has no set_graph_function in instances
G=; GC=
[ -e "$D/set_graph_function" ] && G='-g vfs_read' && GC='-g :clear'
awk '$1 ~ /^vfs_read/' "$AFF" | sort > /tmp/want.n
filter_apply -i "$I" apply "-n vfs_read* $G" > /tmp/fa2b.out 2>&1 ||
	{ cat /tmp/fa2b.out; fail "-n/-g apply failed"; }
sort "$D/set_ftrace_notrace" | cmp -s - /tmp/want.n ||
	{ show "$D/set_ftrace_notrace"; fail "set_ftrace_notrace is not vfs_read*"; }
if [ -n "$G" ]; then
	[ "$(cat "$D/set_graph_function")" = vfs_read ] ||
		{ show "$D/set_graph_function"; fail "set_graph_function is not vfs_read"; }
else
	note "no set_graph_function in an instance on this kernel"
fi
filter_apply -i "$I" apply "-n :clear $GC" > /tmp/fa2c.out 2>&1 || { cat /tmp/fa2c.out; fail "clear"; }
[ -z "$(grep -v '^#' "$D/set_ftrace_notrace")" ] || fail "-n :clear left $(cat "$D/set_ftrace_notrace")"
[ -z "$G" ] || [ -z "$(grep -v '^#' "$D/set_graph_function")" ] || fail "-g :clear failed"
note "t=$(now) notrace and graph done"

# 3. the kernel's error_log for a bad event filter; nothing changed
EF=$D/events/sched/sched_switch/filter
before=$(cat "$EF")
filter_apply -i "$I" apply 'sched_switch: prev_pid ==' > /tmp/fa3.out 2>&1
cat /tmp/fa3.out
grep -q '^kernel: event filter parse error' /tmp/fa3.out || fail "error_log message not shown"
grep -q '^result apply rc=-22 changed=0' /tmp/fa3.out || fail "bad event filter not refused"
[ "$(cat "$EF")" = "$before" ] || fail "event filter changed: $(cat "$EF")"
# a pattern that matches nothing: refused before any write
cat "$D/set_ftrace_filter" > /tmp/f.pre
filter_apply -i "$I" apply 'no_such_function_xyz*' > /tmp/fa4.out 2>&1
grep -q 'matches no function' /tmp/fa4.out || { cat /tmp/fa4.out; fail "no-match not reported"; }
cmp -s /tmp/f.pre "$D/set_ftrace_filter" || fail "no-match changed the filter"

note "t=$(now) error_log and no-match done"

# 4. events after a change made while tracing: only the filtered functions
echo "$FUNC" > "$D/set_ftrace_filter"
echo function > "$D/current_tracer"
filter_apply -i "$I" apply "/^($FUNC|vfs_read)\$/" > /tmp/fa5.out 2>&1 || { cat /tmp/fa5.out; fail "apply"; }
echo > "$D/trace"
vmload read /dev/zero 100 || fail "vmload failed"
echo 0 > "$D/tracing_on"
grep -v '^#' "$D/trace" | sed -n 's/.*: \([^ ]*\) <-.*/\1/p' | sort | uniq -c > /tmp/funcs
echo 1 > "$D/tracing_on"
cat /tmp/funcs
others=$(awk -v a="$FUNC" '$2 != a && $2 != "vfs_read"' /tmp/funcs | wc -l)
nz=$(awk -v a="$FUNC" '$2 == a { print $1 }' /tmp/funcs)
[ "$others" -eq 0 ] || fail "functions outside the filter were traced"
[ "${nz:-0}" -ge 100 ] || fail "only ${nz:-0} $FUNC events (want >= 100)"

note "t=$(now) filtered events done"

# 5. bench: ~10k functions with the tracer off (under TCG, patching 10k call
# sites would time the emulator, not the filter); names sampled, as each name
# scans every record
echo nop > "$D/current_tracer"
echo > "$D/set_ftrace_filter"
filter_apply -i "$I" bench '/^[a-d]/' 50 2>&1 | sed 's/^/tracer-off: /'
note "t=$(now) bench done"

echo nop > "$D/current_tracer"
echo > "$D/set_ftrace_filter"
rmdir "$D" || fail "cannot remove the instance"
note "all filter checks passed"
