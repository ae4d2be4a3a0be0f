# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 16: --probe on kernel functions, the same specs on both kernels:
#   vfs_read file->f_path.dentry->d_name.name:string count   (BTF members)
#   vfs_read%return $retval
#   sched:sched_process_exec filename pid                     (an eprobe)
#   /usr/bin/vmload:main $arg1:s32                            (a uprobe)
# 6.1 has no fprobes: a kprobe with the offsets computed from BTF from $arg1,
# and a kretprobe. 6.12 has fprobes with BTF arguments: f: events with the
# names and -> as written. vmload reads /dev/zero COUNT times: ktop's events
# from its pid must be exactly COUNT reads of "zero" with count=1, COUNT
# returns of 1, one exec of /usr/bin/vmload and one main with argc 4. (Not an
# eprobe on sys_enter_openat's filename: 6.12's eprobes read one byte of a
# "const char *" field, FILTER_PTR_STRING, where 6.1's read the pointer.) A probe of
# "another tool" defined before ktop stays; the state is as before after.
# timeout: 300

COUNT=50
need ktop
need tracestate
need vmload
tracestate -R --save /tmp/pk.before || fail "tracestate -R --save failed"
echo 'p:othertool/vr vfs_read' >> $T/dynamic_events || fail "cannot define the other tool's probe"
cat $T/dynamic_events > /tmp/pk.dyn.before
note "before: $(cat /tmp/pk.dyn.before)"
ktop_start /tmp/pk.json --json --interval 0.5 -o /tmp/pk.txt \
	--probe 'vfs_read file->f_path.dentry->d_name.name:string count' \
	--probe 'vfs_read%return $retval' \
	--probe 'sched:sched_process_exec filename pid' \
	--probe '/usr/bin/vmload:main $arg1:s32' || fail "ktop did not start"
show $T/dynamic_events
G=ktop_$KPID
if grep -q 'f\[:\[<group>/\]' $T/README; then
	kind=fprobe
	want1="f:$G/vfs_read vfs_read name=file->f_path.dentry->d_name.name:string count=count:u64"
	want2="f:$G/vfs_read__return vfs_read%return retval=\$retval:s64"
else
	kind=kprobe
	want1="p:$G/vfs_read vfs_read name=+0(+[0-9]*(+[0-9]*(\$arg1))):string count=\$arg3:u64"
	want2="r[0-9]*:$G/vfs_read__return vfs_read retval=\$retval:s64"
fi
want3="e:$G/sched_process_exec sched.sched_process_exec filename=\$filename:string pid=\$pid:s32"
want4="p:$G/main /usr/bin/vmload:0x[0-9a-f]* arg1=%di:s32"
for w in "$want1" "$want2" "$want3" "$want4"; do
	grep -qxF "$w" $T/dynamic_events || grep -qx "$w" $T/dynamic_events ||
		fail "no definition matching '$w' ($kind kernel)"
done
note "definitions as expected on a $kind kernel"
vmload read /dev/zero $COUNT &
pid=$!
wait $pid || fail "vmload failed"
wait_for "[ \$(json_sum /tmp/pk.json '{\"event\":\"$G:main\"') -ge 1 ]" 30
sleep 1
ktop_stop INT
note "ktop exit status $KRC"
[ "$KRC" -eq 0 ] || { show /tmp/pk.json.err; fail "ktop exit status $KRC"; }
reads=$(grep -E -- "-$pid +\[.*vfs_read: .*name=\"zero\" count=1\$" /tmp/pk.txt | wc -l)
rets=$(grep -E -- "-$pid +\[.*vfs_read__return: .*retval=1\$" /tmp/pk.txt | wc -l)
opens=$(grep -E -- "-$pid +\[.*sched_process_exec: .*filename=\"/usr/bin/vmload\" pid=$pid\$" /tmp/pk.txt | wc -l)
mains=$(grep -E -- "-$pid +\[.*main: .*arg1=4\$" /tmp/pk.txt | wc -l)
note "vmload $pid: $reads reads of zero, $rets returns of 1, $opens exec, $mains main (want $COUNT $COUNT 1 1)"
if [ "$reads" -ne $COUNT ] || [ "$rets" -ne $COUNT ] || [ "$opens" -ne 1 ] || [ "$mains" -ne 1 ]; then
	grep -E -- "-$pid +\[" /tmp/pk.txt | head -n 8
	fail "ktop's probe events do not match the workload"
fi
grep -E -- "-$pid +\[" /tmp/pk.txt | head -n 4
cat $T/dynamic_events | cmp -s - /tmp/pk.dyn.before ||
	{ show $T/dynamic_events; fail "dynamic_events is not as before (the other tool's probe only)"; }
echo '-:othertool/vr' >> $T/dynamic_events || fail "the other tool's probe is gone"
# on a fresh 6.1 boot an event enable in any instance allocates the top-level
# buffer at its default size, for good (as every session there): only that may differ
tracestate --expanded-ok --diff /tmp/pk.before || fail "tracing state not restored"
