# SPDX-License-Identifier: GPL-2.0-or-later
# One kernel (bookworm): the filter writes are alike on both; on 6.12 the
# graph filter would be the instance's own set_graph_function, which
# tui-graph-latency's -g uses there.
# kernels: bookworm
# timeout: 240
# The filter prompt's kernel side (src/funcfilter/ftrace_filter.c, driven by
# filter_apply) in an instance:
#  - with the function tracer running, a regex leaves exactly the functions
#    grep -E finds in available_filter_functions in set_ftrace_filter,
#    in the index form; undo restores the previous filter, redo the new one;
#  - function events after a change made while tracing are only of the
#    filtered functions;
#  - undo back to an empty filter ("all functions") truncates; notrace
#    (index form) and graph roots (names) are set and cleared; the names
#    fallback gives the same set as the index form;
#  - a bad event filter shows the kernel's error_log message and changes
#    nothing; a pattern matching nothing is refused before any write;
#  - bench: ~10k functions in the index form vs names (sampled), tracer off.
# filter_apply runs few times: each start reads available_filter_functions,
# which the kernel formats slowly under TCG.

need filter_apply
need vmload
note "t=$(now) start"
I=ktopvm-filter
D=$T/instances/$I
mkdir "$D" || fail "cannot create an instance"
# names only (no module is loaded in the guest); grep, as busybox awk
# recompiles a dynamic regex on every line (minutes for 40k lines under TCG)
sed 's/ .*//' "$T/available_filter_functions" > /tmp/names
G=; GC=
[ -e "$D/set_graph_function" ] && G='-g vfs_read' && GC='-g :clear'

# section NAME FILE: the output lines of the commands after "echo NAME"
section()
{
	sed -n "/^== $1\$/,/^== /p" "$2"
}

# --- A: while the function tracer runs ------------------------------------
# the filter first: a function tracer with an empty filter would patch and
# trace every function, which takes minutes under TCG
echo "$FUNC" > "$D/set_ftrace_filter" || fail "cannot set a first filter"
echo function > "$D/current_tracer" || fail "no function tracer in an instance"
note "t=$(now) tracer on"
RE='^(vfs|ksys)_|_(read|write)_iter$'
grep -E "$RE" /tmp/names | sort > /tmp/want
[ -s /tmp/want ] || fail "no function matches $RE in available_filter_functions"
note "t=$(now) expected set computed"
filter_apply -i "$I" echo regex apply "/$RE/" save /tmp/f.applied undo save /tmp/f.undo \
	redo save /tmp/f.redo undo save /tmp/f.undo2 \
	echo narrow apply "/^($FUNC|vfs_read)\$/" echo end > /tmp/fa.out 2>&1
rc=$?
cat /tmp/fa.out
[ $rc -eq 0 ] || fail "filter_apply failed (exit $rc)"
note "t=$(now) filter_apply done"
sed 's/ .*//' /tmp/f.applied | sort > /tmp/got
note "regex /$RE/: kernel holds $(wc -l < /tmp/got) lines, grep -E finds $(wc -l < /tmp/want)"
cmp -s /tmp/got /tmp/want || { diff /tmp/want /tmp/got | head -20; fail "set_ftrace_filter differs"; }
section regex /tmp/fa.out | grep -q '^result apply rc=0 changed=1 index=1' ||
	fail "not applied in the index form"
[ "$(cat /tmp/f.undo)" = "$FUNC" ] || { show /tmp/f.undo; fail "undo did not restore $FUNC"; }
sed 's/ .*//' /tmp/f.redo | sort | cmp -s - /tmp/want || fail "redo did not restore the regex's functions"
[ "$(cat /tmp/f.undo2)" = "$FUNC" ] || fail "second undo did not restore $FUNC"

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
note "t=$(now) tracing part done"

# --- B: tracer off (tracing every function under TCG takes minutes) --------
echo nop > "$D/current_tracer"
echo > "$D/set_ftrace_filter"
cat "$D/set_ftrace_filter" > /tmp/f.empty
EF=$D/events/sched/sched_switch/filter
cat "$EF" > /tmp/ef.before
grep '^vfs_read' /tmp/names | sort > /tmp/want.v
filter_apply -i "$I" echo two apply "+ $FUNC vfs_read" save /tmp/f.two undo save /tmp/f.back \
	echo notrace apply "-n vfs_read* $G" savefile set_ftrace_notrace /tmp/n.set \
	echo clear apply "-n :clear $GC" savefile set_ftrace_notrace /tmp/n.clear \
	echo badevent apply 'sched_switch: prev_pid ==' \
	echo nomatch apply 'no_such_function_xyz*' save /tmp/f.nomatch \
	echo names names apply '/^vfs_read/' save /tmp/f.names echo end > /tmp/fb.out 2>&1
cat /tmp/fb.out
[ "$(sort /tmp/f.two | tr '\n' ' ')" = "$FUNC vfs_read " ] || { show /tmp/f.two; fail "'+ $FUNC vfs_read' wrong"; }
cmp -s /tmp/f.back /tmp/f.empty || { show /tmp/f.back; fail "undo did not give back the empty filter"; }
note "undo to empty: $(cat /tmp/f.back)"
sed 's/ .*//' /tmp/n.set | sort | cmp -s - /tmp/want.v || { show /tmp/n.set; fail "set_ftrace_notrace is not vfs_read*"; }
section notrace /tmp/fb.out | grep -q '^result apply rc=0 changed=1 index=1' || fail "notrace: no index form"
[ -z "$(grep -v '^#' /tmp/n.clear)" ] || fail "-n :clear left $(cat /tmp/n.clear)"
[ -n "$G" ] || note "no set_graph_function in an instance on this kernel"
section badevent /tmp/fb.out | grep -q '^kernel: event filter parse error' || fail "error_log message not shown"
section badevent /tmp/fb.out | grep -q '^result apply rc=-22 changed=0' || fail "bad event filter not refused"
cmp -s /tmp/ef.before "$EF" || fail "event filter changed: $(cat "$EF")"
section nomatch /tmp/fb.out | grep -q 'matches no function' || fail "no-match not reported"
cmp -s /tmp/f.nomatch /tmp/f.back || fail "no-match changed the filter"
section names /tmp/fb.out | grep -q '^result apply rc=0 changed=1 index=0' || fail "names: index form used"
sed 's/ .*//' /tmp/f.names | sort | cmp -s - /tmp/want.v || { show /tmp/f.names; fail "names: wrong set"; }
note "t=$(now) tracer-off part done"

# --- C: bench, ~10k functions; names sampled (each name scans every record) --
echo > "$D/set_ftrace_filter"
filter_apply -i "$I" bench '/^[a-d]/' 10 2>&1 | sed 's/^/tracer-off: /'
note "t=$(now) bench done"

echo nop > "$D/current_tracer"
echo > "$D/set_ftrace_filter"
echo > "$D/set_ftrace_notrace"
rmdir "$D" || fail "cannot remove the instance"
note "all filter checks passed"
