# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 16, the probe prompt under tmux, on kernel functions (the host has
# only uprobes): ktop -e sched:sched_process_exec, the top view; K on the
# selected row (sched_process_exec) opens the prompt on an eprobe of it, Tab
# completes its field filename;
# then, typed, with Tab completing a member from the guest's BTF:
#   vfs_read file->f_path.dentry->d_name.name:string count
# the prototype and the definition line as this kernel takes it (6.12: an f:
# event with the names and -> as written; 6.1: a kprobe with the offsets from
# BTF); Enter defines and enables it. "vfs_read %xyz": the kernel's
# error_log message with its caret, nothing more defined. vmload's reads of
# /dev/zero are then in the event list (found with /) with name=zero
# count=1; the prompt's list has the probe on, Ctrl-T turns it off in ktop's
# instance and on again, Ctrl-D removes it; q: status 0, dynamic_events and
# the tracing state as before. Then (6.12, where function_graph runs in an
# instance) K on read_zero in the graph opens the prompt on it.
# Both kernels: the kprobe path (6.1) and the fprobe path (6.12) differ.
# timeout: 900

COUNT=20
need ktop
need tmux
need tracestate
need vmload

evidence()
{
	note "--- screen ($1):"
	scr | sed -e 's/[[:space:]]*$//' -e '/^$/d' -e 's/^/  |/'
	show /tmp/pp.err
	show $T/dynamic_events
}

# start ARGS: ktop ARGS under tmux, its header shown; kpid, its group G and instance D
start()
{
	rm -f /tmp/pp.rc
	tmux_new 160 45 \
		"ktop --no-bpf $* 2> /tmp/pp.err; echo \"ktop exit \$?\" > /tmp/pp.rc" ||
		fail "tmux did not start"
	wait_screen '^ ktop tracer' 400 || { evidence start; fail "ktop $*: no header within 400 s"; }
	kpid=$(pidof ktop)
	G=ktop_$kpid
	D=$T/instances/ktop-$kpid
}

# quit NAME: q, status 0, dynamic_events and the tracing state as before
quit()
{
	keys Escape q
	wait_for "[ -s /tmp/pp.rc ]" 60 || { evidence quit; fail "$1: ktop did not quit on 'q'"; }
	tmux kill-server 2>/dev/null
	grep -qx 'ktop exit 0' /tmp/pp.rc || { show /tmp/pp.err; fail "$1: ktop did not exit with 0"; }
	cat $T/dynamic_events | cmp -s - /tmp/pp.dyn.before ||
		{ show $T/dynamic_events; fail "$1: dynamic_events changed"; }
	# on a fresh 6.1 boot an event enable in any instance allocates the top-level
	# buffer at its default size, for good (as every session there): only that may differ
	tracestate --expanded-ok --diff /tmp/pp.before || fail "$1: tracing state not restored"
}

tracestate -R --save /tmp/pp.before || fail "tracestate -R --save failed"
cat $T/dynamic_events > /tmp/pp.dyn.before
if grep -q 'f\[:\[<group>/\]' $T/README; then
	kind=fprobe
else
	kind=kprobe
fi
start -e sched:sched_process_exec
note "ktop $kpid, group $G, a $kind kernel"

# "probe this" in the top view: an eprobe on the selected event, a field by Tab
keys 2
vmload read /dev/zero 1 || fail "vmload failed"
wait_screen '^ +[0-9]+ .* sched_process_exec$' 30 || { evidence top; fail "no sched_process_exec row"; }
keys K
wait_screen '^ > sched:sched_process_exec *$' 30 || { evidence probe-this; fail "K did not open on the row's event"; }
keys -l 'filen'
keys Tab
wait_screen '^ > sched:sched_process_exec filename *$' 60 || { evidence field; fail "Tab did not complete the field"; }
wait_screen "writes e:$G/sched_process_exec sched.sched_process_exec filename=\\\$filename:string" 60 ||
	{ evidence eprobe; fail "no eprobe preview"; }
note "probe this: $(scr | grep -m1 'writes e:')"

# typed, with Tab: the prototype, the definition line of this kernel
keys C-u
keys -l 'vfs_read file->f_path.dentry->d_na'
keys Tab
keys -l '.name:string count'
wait_screen '^ > vfs_read file->f_path\.dentry->d_name\.name:string count *$' 60 ||
	{ evidence tab; fail "Tab did not complete d_name"; }
wait_screen 'ssize_t vfs_read\(struct file \*file, char \*buf, size_t count, loff_t \*pos\)' 60 ||
	{ evidence proto; fail "no prototype"; }
if [ $kind = fprobe ]; then
	want="writes f:$G/vfs_read vfs_read name=file->f_path\\.dentry->d_name\\.name:string count=count:u64"
else
	want="writes p:$G/vfs_read vfs_read name=\\+0\\(\\+[0-9]+\\(\\+[0-9]+\\(\\\$arg1\\)\\)\\):string count=\\\$arg3:u64"
fi
wait_screen "$want" 60 || { evidence preview; fail "no preview '$want'"; }
note "preview: $(scr | grep -m1 'writes ')"
keys Enter
wait_screen "probe $G/vfs_read made" 120 || { evidence make; fail "Enter did not make the probe"; }
grep -q ":$G/vfs_read vfs_read" $T/dynamic_events || { evidence defined; fail "not in dynamic_events"; }
[ "$(cat $D/events/$G/vfs_read/enable)" = 1 ] || fail "not enabled in $D"
note "made: $(grep ":$G/" $T/dynamic_events)"

# a definition the kernel refuses: its message and caret, nothing more defined
keys K C-u	# (K in the top view opened on its selected row)
keys -l 'vfs_read %xyz'
keys Enter
wait_screen 'the kernel refused the definition: ' 60 ||
	{ evidence refused; fail "no error_log message"; }
line=$(scr | grep -n " [pf]:$G/vfs_read_2 vfs_read .*%xyz" | head -n 1)
row=${line%%:*}
text=${line#*:}
caret=$(scr | sed -n "$((row + 1))p")
want=$(echo "$text" | awk '{ print index($0, "%xyz") }')
got=$(echo "$caret" | awk '{ print index($0, "^") }')
[ -n "$line" ] && [ "$want" = "$got" ] || { evidence caret; fail "caret at $got, %xyz at $want"; }
[ "$(grep -c ":$G/" $T/dynamic_events)" = 1 ] || { evidence refused2; fail "the refused one is defined"; }
note "refused: $(scr | grep -m1 'the kernel refused')"
keys Escape

# vmload's reads in the event list
vmload read /dev/zero $COUNT &
vpid=$!
wait $vpid || fail "vmload failed"
keys 3 /
keys -l 'name=zero count=1'
keys Enter
wait_screen "vmload-$vpid +\\[[0-9]+\\] .* vfs_read: .*name=\"?zero\"? count=1 *\$" 120 ||
	{ evidence events; fail "no vfs_read of zero by vmload $vpid in the event list"; }
note "event: $(scr | grep -m1 -E "vmload-$vpid .* vfs_read: ")"

# the list: on; Ctrl-T off and on in ktop's instance; Ctrl-D removes it
keys End K
wait_screen '> on +vfs_read ' 30 || { evidence list; fail "the list does not show vfs_read on"; }
note "list: $(scr | grep -m1 -E '> on +vfs_read ')"
keys C-t
wait_for "[ \"\$(cat $D/events/$G/vfs_read/enable)\" = 0 ]" 30 || { evidence off; fail "Ctrl-T did not turn it off"; }
wait_screen '> off +vfs_read ' 30 || { evidence off2; fail "the list does not show it off"; }
keys C-t
wait_for "[ \"\$(cat $D/events/$G/vfs_read/enable)\" = 1 ]" 30 || { evidence on; fail "Ctrl-T did not turn it on"; }
keys C-d
wait_screen "probe $G/vfs_read removed" 60 || { evidence remove; fail "Ctrl-D did not remove it"; }
grep -q ":$G/" $T/dynamic_events && { evidence removed; fail "still in dynamic_events"; }
quit prompt

# "probe this" in the graph: where function_graph runs in an instance (6.12)
[ $kind = fprobe ] || exit 0
start -p function_graph -g vfs_read $FG_READ_PATH
keys 4
# the search selects the call (and the tree stops following the newest calls);
# again (with vmload again) when the search came before the tree had its calls
found=0
for try in 1 2 3; do
	vmload read /dev/zero $COUNT || fail "vmload failed"
	keys / "$FUNC" Enter
	wait_for "! scr | grep -q 'Function graph: .* following'" 20 && { found=1; break; }
	note "try $try: $(scr | tail -n 1)"
done
[ $found = 1 ] || { evidence graph; fail "/ $FUNC did not select it in the graph"; }
note "selected: $(scr | grep -m1 -E "$FUNC\\(\\)")"
keys K
wait_screen "^ > $FUNC *\$" 30 || { evidence graph-probe; fail "K in the graph did not open on $FUNC"; }
wait_screen "writes f:$G/$FUNC $FUNC" 60 || { evidence graph-preview; fail "no preview for $FUNC"; }
note "graph: $(scr | grep -m1 'writes f:')"
quit graph
