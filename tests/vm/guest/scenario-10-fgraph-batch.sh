# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 5, VM scenario (issue 3 scenario 2): the function_graph call tree in
# --batch.
#  1. ktop --batch -p function_graph -g vfs_read --duration 2 while vmload
#     reads /dev/zero: the text shows vfs_read() { ... } with children
#     indented deeper and durations.  The text is checked here by its own
#     parser (awk), not by ktop: braces balance in every summary, every
#     closing brace and every leaf has a duration, a child is indented one
#     level (2 spaces) deeper than its parent, and a parent's duration is at
#     least the sum of its children's.
#  2. --json with --max-depth: the merged call paths hold read_zero under
#     vfs_read exactly COUNT times (vmload's reads).
#  3. The tracing state is the same before and after each run (6.1: the top
#     level, saved and restored; 6.12: an instance, with the global
#     max_graph_depth and set_graph_function saved and restored).
# timeout: 2400

COUNT=50

need ktop
need tracestate
need vmload
tracestate --save /tmp/fg.before || fail "tracestate --save failed"
max_depth0=$(cat "$T/max_graph_depth" 2>/dev/null)

# -- 1: the text tree ------------------------------------------------------
( while :; do vmload read /dev/zero 10 > /dev/null 2>&1; sleep 0.2; done ) &
loop=$!
kstart /tmp/fg.txt --batch --interval 0.5 --duration 2 -p function_graph -g vfs_read $FG_READ_PATH ||
	{ kill $loop; fail "ktop did not start"; }
[ -d "$T/instances/ktop-$KPID" ] && where="instance ktop-$KPID" || where="top level"
note "session: $where, current_tracer $(cat "$T/instances/ktop-$KPID/current_tracer" 2>/dev/null || cat "$T/current_tracer")"
kwait 120
kill $loop 2>/dev/null
wait $loop 2>/dev/null
[ "$KRC" -eq 0 ] || { show /tmp/fg.txt.err; fail "ktop exit status $KRC"; }
note "--- the first call trees ktop printed:"
awk '/^Function graph:/ { p = 1 } /^Call paths/ { p = 0 } p' /tmp/fg.txt | head -n 24 | sed 's/^/  /'

# The independent reader of the kernel-style text.
awk '
function fail(msg) { print "BAD line " NR ": " msg ": " $0; bad++ }
function endblock() {
	if (sp != 0) { print "BAD: " sp " braces left open at the end of a summary"; bad++ }
	sp = 0
}
/^Function graph:/ { endblock(); tl = 1; summaries++; next }
/^Call paths since start/ { endblock(); tl = 0; next }
!tl || /^#/ || !/\|  / { next }
{
	i = index($0, "|  ")
	head = substr($0, 1, i - 1)
	body = substr($0, i + 3)
	if (body ~ /^ *\/\*/)
		next			# a lost-events comment
	match(body, /^ */)
	ind = RLENGTH
	if (ind % 2) { fail("odd indentation"); next }
	lv = ind / 2
	dur = -1
	if (match(head, /[0-9]+(\.[0-9]+)? us/))
		dur = substr(head, RSTART, RLENGTH - 3) + 0
	name = body
	sub(/^ */, "", name)
	sub(/\(.*/, "", name)
	if (body ~ /\(\) \{/) {
		if (lv != sp) fail("opens at level " lv " inside " sp " open calls")
		stack[sp] = name; lvl[sp] = lv; sum[sp] = 0; kids[sp] = 0; sp++
		if (lv + 1 > maxlv) maxlv = lv + 1
	} else if (body ~ /^ *\}/) {
		if (sp == 0) { fail("closing brace without an open call"); next }
		sp--
		if (lv != lvl[sp]) fail("closing brace at level " lv ", opened at " lvl[sp])
		if (body ~ /exit missing/) { incomplete++; next }
		if (dur < 0) { fail("closing brace without a duration"); next }
		if (dur + 0.0015 < sum[sp]) fail("parent " stack[sp] " " dur " us < children " sum[sp] " us")
		if (stack[sp] == "vfs_read") { vfs++; if (kids[sp]) vfs_nested++ }
		if (sp > 0) { sum[sp - 1] += dur; kids[sp - 1]++ }
		closed++
	} else if (body ~ /\(\);/) {
		if (lv != sp) fail("leaf at level " lv " inside " sp " open calls")
		if (dur < 0) { fail("leaf without a duration"); next }
		if (sp > 0) { sum[sp - 1] += dur; kids[sp - 1]++; if (stack[0] == "vfs_read") under++ }
		else if (name == "vfs_read") vfs++
		leaves++
	} else {
		fail("not a call line")
	}
}
END {
	endblock()
	printf "parsed %d summaries: %d vfs_read calls, %d with nested children, %d calls under vfs_read trees as leaves, %d closed blocks, %d leaves, nesting %d levels, %d incomplete, %d bad lines\n", summaries, vfs, vfs_nested, under, closed, leaves, maxlv, incomplete, bad
	exit !(bad == 0 && summaries > 0 && vfs_nested > 0 && maxlv >= 2)
}' /tmp/fg.txt > /tmp/fg.check
rc=$?
sed 's/^/  /' /tmp/fg.check | tail -n 12
[ $rc -eq 0 ] || fail "the printed call tree is wrong or has no nested vfs_read"
tracestate --diff /tmp/fg.before > /tmp/fg.diff 2>&1 ||
	{ sed 's/^/  /' /tmp/fg.diff | head -n 20; fail "tracing state not restored after run 1"; }
note "state restored after run 1"

# -- 2: JSON, exact count ----------------------------------------------------
# No --duration: under TCG the 50 reads can take seconds. SIGINT once they
# are done ends the run with a last summary that holds them all.
kstart /tmp/fg.json --batch --json --interval 0.5 -p function_graph \
	-g vfs_read $FG_READ_PATH --max-depth 6 || fail "ktop --json did not start"
if [ ! -d "$T/instances/ktop-$KPID" ] || [ ! -e "$T/instances/ktop-$KPID/max_graph_depth" ]; then
	note "max_graph_depth while tracing: $(cat "$T/max_graph_depth") (was $max_depth0)"
	[ "$KDONE" = 1 ] || [ "$(cat "$T/max_graph_depth")" = 6 ] || fail "--max-depth 6 was not applied"
fi
vmload read /dev/zero $COUNT &
pid=$!
wait $pid || fail "vmload failed"
ktop_stop INT
[ "$KRC" -eq 0 ] || { show /tmp/fg.json.err; fail "ktop --json exit status $KRC"; }
last=$(grep '"graph"' /tmp/fg.json | tail -n 1)
[ -n "$last" ] || { show /tmp/fg.json; fail "no graph in ktop's --json output"; }
n=$(echo "$last" | grep -o '{"function":"read_zero","parent":"vfs_read"[^}]*}' |
	sed -n 's/.*"calls":\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
note "json: read_zero under vfs_read: $n calls (vmload made $COUNT reads)"
note "json: $(echo "$last" | grep -o '"graph":{[^[]*')"
[ "$n" -eq $COUNT ] || fail "read_zero under vfs_read: $n calls, expected $COUNT"
tracestate --diff /tmp/fg.before > /tmp/fg.diff 2>&1 ||
	{ sed 's/^/  /' /tmp/fg.diff | head -n 20; fail "tracing state not restored after run 2"; }
note "state restored after run 2 (max_graph_depth $(cat "$T/max_graph_depth"))"
