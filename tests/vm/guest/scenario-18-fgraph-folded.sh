# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 17: the function_graph icicle's stacks (the stacks pane on the graph
# source; width = total time) against the kernel's own text of the same
# records.
#  1. record_fixture records function_graph -g vfs_read while vmload reads
#     /dev/zero COUNT times: the raw pages and the kernel's text rendering of
#     the same buffer (trace.txt, read before the pages are consumed).
#  2. snapshot_tool turns the raw pages into a .ktop; ktop -i reads it and
#     writes the graph's folded stacks (--folded graph: self ns per call
#     path, the values the icicle's widths add up; --folded graph-count:
#     calls), through the same stack set the stacks pane draws.
#  3. An independent reader (awk) of trace.txt computes the same from the
#     kernel's text: per task (the text's "A-1 => B-2" switch lines), the
#     open calls; a call's self time is its duration less its children's,
#     keyed by its path from the root.  Every path and call count must be
#     equal, and the ns too, within what the text's cut decimals leave
#     unknown (it prints at most 7 digits); the folded lines sum to the
#     text's total time of the top-level calls; vmload's path
#     vfs_read;read_zero is there exactly COUNT times.
# The functions are filtered (-l) to the four of a read of /dev/zero: no
# interrupt's calls come in, which ktop files under their own context
# root while the text nests them where they struck.
# timeout: 300

COUNT=50

need ktop
need record_fixture
need snapshot_tool
need vmload
need tracestate
# A fresh boot's top-level buffer is not allocated ("7 (expanded: 1408)"): recording at
# the top level allocates it for good, and it then reads 1410. Run alone, this scenario
# sees the fresh boot: allocate it first, as any earlier scenario would have.
if grep -q expanded "$T/buffer_size_kb"; then
	kb=$(sed -n 's/.*expanded: *\([0-9]*\).*/\1/p' "$T/buffer_size_kb")
	echo "$kb" > "$T/buffer_size_kb"
	note "top-level buffer allocated: $(cat "$T/buffer_size_kb") KB"
fi
tracestate --save /tmp/ff.before || fail "tracestate --save failed"

# function_graph -g needs the top level where an instance refuses it (6.1)
TOPFG=
mkdir "$T/instances/ktopvm-ff"
echo function_graph > "$T/instances/ktopvm-ff/current_tracer" 2>/dev/null || TOPFG=-T
[ -e "$T/instances/ktopvm-ff/set_graph_function" ] || TOPFG=-T
echo nop > "$T/instances/ktopvm-ff/current_tracer"
rmdir "$T/instances/ktopvm-ff"
note "recording ${TOPFG:-in an instance}"

# shellcheck disable=SC2086
record_fixture -o /tmp/ff -p function_graph -g vfs_read $TOPFG -b 4096 \
	-l vfs_read -l rw_verify_area -l security_file_permission -l read_zero \
	-- vmload read /dev/zero $COUNT > /tmp/ff.log 2>&1 ||
	{ show /tmp/ff.log; fail "record_fixture failed"; }
zcat /tmp/ff/trace.txt.gz > /tmp/ff.txt 2>/dev/null || cp /tmp/ff/trace.txt /tmp/ff.txt ||
	fail "no trace.txt"
note "kernel text: $(grep -c '|' /tmp/ff.txt) lines, $(grep -c 'vfs_read() {' /tmp/ff.txt) vfs_read entries; durations of 4 digits of us or more:"
grep -E '[0-9]{4,}\.[0-9]+ us' /tmp/ff.txt | head -n 5 | sed 's/^/  /'
for s in 0 1 2 3; do
	[ -e /tmp/ff/stats$s ] && note "cpu$s: $(grep -E '^(overrun|dropped)' /tmp/ff/stats$s | tr '\n' ' ')"
done

snapshot_tool export /tmp/ff /tmp/ff.ktop > /tmp/ff.exp 2>&1 ||
	{ show /tmp/ff.exp; fail "snapshot_tool export failed"; }
for w in graph graph-count; do
	ktop -i /tmp/ff.ktop --batch --folded $w -o /tmp/ff.$w.folded > /tmp/ff.out 2>&1 ||
		{ show /tmp/ff.out 40; fail "ktop -i --folded $w failed"; }
done
note "--- ktop's folded (self ns):"
sed 's/^/  /' /tmp/ff.graph.folded | head -n 12

# The independent reader: the kernel's text to folded lines, "ns" or "count".
text_folded()
{
	awk -v what="$1" '
	# a context switch on a CPU: "N)  comm-PID  =>  comm-PID", the calls open per task
	/^ *[0-9]+\) .*=>/ && !/\|/ {
		cpu = $0; sub(/\).*/, "", cpu); cpu += 0
		to = $NF; sub(/.*-/, "", to)
		who[cpu] = "p" to
		next
	}
	!/^ *[0-9]+\) / || !/\|  / { next }
	{
		cpu = $0; sub(/\).*/, "", cpu); cpu += 0
		t = (cpu in who) ? who[cpu] : "c" cpu
		i = index($0, "|  ")
		head = substr($0, 1, i - 1)
		body = substr($0, i + 3)
		if (body ~ /^ *\/\*/) next
		dur = -1
		if (match(head, /[0-9]+\.[0-9]+ us/)) {
			# us.nnn, fewer decimals past 4 digits of us (7 columns):
			# each digit cut leaves up to unit - 1 ns unknown
			# (as a number: busybox awk reads the decimals "063" alone as octal)
			d = substr(head, RSTART, RLENGTH - 3)
			split(d, dp, ".")
			unit = 1
			for (k = length(dp[2]); k < 3; k++) unit *= 10
			dur = int(d * 1000 + 0.5)
			slack = unit - 1
		}
		name = body; sub(/^ */, "", name); sub(/\(.*/, "", name)
		n = depth[t] + 0
		if (body ~ /\(\) \{/) {
			st[t, n] = name; kid[t, n] = 0; kslack[t, n] = 0; depth[t] = n + 1
		} else if (body ~ /^ *\}/) {
			if (n == 0) { unmatched++; next }
			n--; depth[t] = n
			if (dur < 0) { nodur++; next }
			path = st[t, 0]
			for (k = 1; k <= n; k++) path = path ";" st[t, k]
			add(path, dur - kid[t, n], dur, slack + kslack[t, n], slack, t, n)
		} else if (body ~ /\(\);/) {
			if (dur < 0) { nodur++; next }
			path = ""
			for (k = 0; k < n; k++) path = path st[t, k] ";"
			add(path name, dur, dur, slack, slack, t, n)
		}
	}
	function add(path, self, dur, sslack, dslack, t, n) {
		ns[path] += self; calls[path]++; pslack[path] += sslack
		if (n > 0) { kid[t, n - 1] += dur; kslack[t, n - 1] += dslack }
		else { top += dur; topslack += dslack }
	}
	END {
		for (q in ns) print q, (what == "ns" ? ns[q] " " pslack[q] : calls[q])
		printf "total %d slack %d unmatched %d nodur %d\n", top, topslack, unmatched, nodur > "/dev/stderr"
	}' /tmp/ff.txt
}
text_folded ns 2> /tmp/ff.sum | sort > /tmp/ff.text.graph
text_folded count 2> /dev/null | sort > /tmp/ff.text.graph-count
note "text reader: $(cat /tmp/ff.sum)"
note "--- the text's folded (self ns, +- what its cut decimals leave unknown):"
sed 's/^/  /' /tmp/ff.text.graph | head -n 12

for w in graph graph-count; do
	sort /tmp/ff.$w.folded > /tmp/ff.k.$w
	grep -vqE '^[^ ;]+(;[^ ;]+)* [0-9]+$' /tmp/ff.k.$w &&
		{ show /tmp/ff.k.$w; fail "$w: a line that is not 'frame;...;frame VALUE'"; }
done
# calls: equal, path for path
if ! cmp -s /tmp/ff.k.graph-count /tmp/ff.text.graph-count; then
	diff /tmp/ff.text.graph-count /tmp/ff.k.graph-count | head -n 20 | sed 's/^/  /'
	fail "calls: ktop's folded stacks differ from the kernel's text (< text, > ktop)"
fi
note "calls: $(wc -l < /tmp/ff.k.graph-count) paths, equal to the kernel's text"
# self ns: the same paths, each within what the text's cut decimals leave unknown
awk 'NR == FNR { v[$1] = $2; s[$1] = $3; next }
	{
		if (!($1 in v)) { print "only in ktop: " $0; bad++; next }
		d = $2 - v[$1]; if (d < 0) d = -d
		if (d > s[$1]) { print "differs: " $1 " ktop " $2 " text " v[$1] " (+-" s[$1] ")"; bad++ }
		else if (d) cut++
		seen[$1] = 1
	}
	END {
		for (p in v) if (!(p in seen)) { print "only in the text: " p; bad++ }
		printf "%d paths, %d equal to the ns, %d within the text'"'"'s cut decimals\n", FNR, FNR - cut - bad, cut
		exit bad > 0
	}' /tmp/ff.text.graph /tmp/ff.k.graph > /tmp/ff.cmp
rc=$?
sed 's/^/  /' /tmp/ff.cmp
if [ $rc -ne 0 ]; then
	# evidence: ktop's own text of the calls (--batch) beside the kernel's
	ktop -i /tmp/ff.ktop --batch > /tmp/ff.batch 2>&1
	grep -E '^ *[0-9]+\) .*[0-9] us' /tmp/ff.txt | sed 's/^ *[0-9]*) *[-+!#*@$]* *//' > /tmp/ff.d1
	awk '/^Function graph:/ { p = 1 } /^Call paths/ { p = 0 } p' /tmp/ff.batch |
		grep -E '^ *[0-9]+\) .*[0-9] us' | sed 's/^ *[0-9]*) *[-+!#*@$]* *//' > /tmp/ff.d2
	note "timed lines: $(wc -l < /tmp/ff.d1) in the text, $(wc -l < /tmp/ff.d2) in ktop's --batch; those that differ:"
	paste -d '#' /tmp/ff.d1 /tmp/ff.d2 | awk -F'#' '$1 != $2 { print NR ": " $1 " / " $2 }' |
		head -n 8 | sed 's/^/  /'
	awk '/^Call paths/ { p = 1 } p' /tmp/ff.batch | head -n 12 | sed 's/^/  /'
	fail "self ns: ktop's folded stacks differ from the kernel's text"
fi
sum=$(awk '{ s += $NF } END { print s + 0 }' /tmp/ff.k.graph)
top=$(sed -n 's/^total \([0-9]*\) .*/\1/p' /tmp/ff.sum)
slack=$(sed -n 's/^total [0-9]* slack \([0-9]*\) .*/\1/p' /tmp/ff.sum)
note "folded sum $sum ns, the text's top-level calls $top ns (+-$slack)"
[ "$sum" -le $((top + slack)) ] && [ "$sum" -ge $((top - slack)) ] ||
	fail "the folded lines sum to $sum ns, the graph's total time is $top ns (+-$slack)"
n=$(awk '$1 == "vfs_read;read_zero" { print $2 }' /tmp/ff.k.graph-count)
note "vfs_read;read_zero: ${n:-0} calls (vmload made $COUNT reads)"
[ "${n:-0}" -eq $COUNT ] || fail "vfs_read;read_zero: ${n:-0} calls, expected $COUNT"
tracestate --diff /tmp/ff.before > /tmp/ff.diff 2>&1 ||
	{ sed 's/^/  /' /tmp/ff.diff | head -n 20; fail "tracing state not restored"; }
note "state restored"
