# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 16: every --probe refusal exits 2 with a message that says what is
# wrong, and leaves the tracing state and dynamic_events as they were:
# an unknown function (close names), no BTF (KTOP_PROBE_BTF at a missing
# file), a function the kernel will not probe (rcu_is_watching: notrace,
# kprobe blacklist), one the compiler inlined everywhere, a missing member
# (the struct's members), a binary without the symbol, a definition the
# kernel refuses (its error_log line, the caret under the token), and all
# or none: a good spec before a bad one is not left defined.
# One kernel (backports): the messages are alike on both, and 6.12 takes the
# longer way (no fprobe for a notrace function: a kprobe, then the refusal);
# KTOP_VM_ONLY runs it on 6.1 too, where the refusal names the blacklist only.
# kernels: backports
# timeout: 400

need ktop
need tracestate
need probe_tool
tracestate -R --save /tmp/pe.before || fail "tracestate -R --save failed"
cat $T/dynamic_events > /tmp/pe.dyn
inl=$(probe_tool inlined)
note "a function in BTF but not in kallsyms: ${inl:-none found}"
[ -n "$inl" ] || fail "probe_tool inlined found none: the inlined case cannot be tested"

# refuse NAME PATTERN ARGS...: exit 2, PATTERN in the message, nothing changed
refuse()
{
	local name=$1 pat=$2 rc
	shift 2
	${KENV:-} ktop --batch --no-bpf --duration 1 "$@" > /tmp/pe.out 2> /tmp/pe.err
	rc=$?
	note "$name: exit $rc: $(head -c 400 /tmp/pe.err)"
	[ $rc -eq 2 ] || fail "$name: exit status $rc, want 2"
	grep -qE -e "$pat" /tmp/pe.err || fail "$name: the message does not match /$pat/"
	cat $T/dynamic_events | cmp -s - /tmp/pe.dyn ||
		{ show $T/dynamic_events; fail "$name: dynamic_events changed"; }
	tracestate --diff /tmp/pe.before || fail "$name: tracing state changed"
}

refuse unknown "unknown function 'vfs_raed'.*did you mean vfs_read" --probe 'vfs_raed count'
KENV="env KTOP_PROBE_BTF=/nonexistent"
refuse no_btf "no prototype of vfs_read \(this kernel has no BTF" --probe 'vfs_read file->f_pos'
KENV=
# on the kprobe blacklist, by name; where fprobes are (6.12) notrace is said too
why="the kernel keeps kprobes out of it \\(the kprobe blacklist"
grep -q 'f\[:\[<group>/\]' $T/README && why="it is notrace .*no fprobe.*, and $why"
refuse blacklisted "rcu_is_watching cannot be probed: $why" --probe 'rcu_is_watching'
refuse inlined "$inl cannot be probed: .*inlined" --probe "$inl"
refuse no_member "struct file has no member 'nosuch'; its members: .*f_pos" \
	--probe 'vfs_read file->nosuch'
refuse no_symbol "/usr/bin/vmload has no function symbol 'nosuch_fn'" \
	--probe '/usr/bin/vmload:nosuch_fn'
refuse kernel_caret "the kernel refused the definition: " --probe 'vfs_read %xyz'
line=$(grep -A2 "refused" /tmp/pe.err | sed -n 2p)
caret=$(grep -A2 "refused" /tmp/pe.err | sed -n 3p)
pos=$(( ${#caret} - 1 ))
tok=$(echo "$line" | cut -c$((pos + 1))-$((pos + 4)))
note "caret under '$tok'"
[ "$tok" = "%xyz" ] || fail "the caret is not under %xyz: '$tok'"
refuse all_or_none "unknown function 'vfs_raed'" --probe 'vfs_read count' --probe 'vfs_raed'
