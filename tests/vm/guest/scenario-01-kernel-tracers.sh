# SPDX-License-Identifier: GPL-2.0-or-later
# The guest kernel has what the other scenarios need: function_graph,
# osnoise and timerlat work and give output, their event formats are there.
# Also notes whether function_graph is allowed in an instance (6.1: no,
# 6.12: yes), the fact ktop's top-level code path depends on.
# timeout: 180

note "kernel $(uname -r), flavour ${KTOP_VM_FLAVOUR:-?}, $(nproc) CPUs"
for t in function function_graph osnoise timerlat; do
	grep -qw "$t" "$T/available_tracers" || { show "$T/available_tracers"; fail "no $t tracer"; }
done
for e in ftrace/function ftrace/funcgraph_entry ftrace/funcgraph_exit ftrace/osnoise \
	 ftrace/timerlat osnoise/thread_noise osnoise/irq_noise sched/sched_switch irq/irq_handler_entry; do
	[ -f "$T/events/$e/format" ] || fail "no events/$e/format"
done
grep -q '^vfs_read$' "$T/available_filter_functions" || fail "vfs_read is not traceable"
grep -q "^$FUNC\$" "$T/available_filter_functions" || fail "$FUNC is not traceable"

# function_graph at top level, graphing vfs_read of a known reader.  Patching
# every function in or out takes ~18 s under TCG: limit it to a few.
echo 2048 > "$T/buffer_size_kb"
echo "vfs_read rw_verify_area $FUNC" > "$T/set_ftrace_filter" || fail "cannot set set_ftrace_filter"
echo vfs_read > "$T/set_graph_function" || fail "cannot set set_graph_function"
t0=$(now)
echo function_graph > "$T/current_tracer" || fail "cannot select function_graph"
note "function_graph on in $(awk -v a=$t0 -v b=$(now) 'BEGIN{print b-a}') s"
vmload read /dev/zero 50 &
pid=$!
wait $pid
echo 0 > "$T/tracing_on"
cat "$T/trace" > /tmp/fg.txt
t0=$(now)
echo nop > "$T/current_tracer"
note "function_graph off in $(awk -v a=$t0 -v b=$(now) 'BEGIN{print b-a}') s"
echo > "$T/set_graph_function"
echo > "$T/set_ftrace_filter"
n_entry=$(count 'vfs_read\(\) \{' /tmp/fg.txt)
n_zero=$(count 'read_zero\(\)' /tmp/fg.txt)
n_dur=$(count '[0-9.]+ us +\|' /tmp/fg.txt)
note "function_graph: $n_entry vfs_read entries, $n_zero read_zero calls, $n_dur lines with a duration"
[ "$n_zero" -ge 50 ] && [ "$n_entry" -ge 50 ] && [ "$n_dur" -ge 50 ] ||
	{ show /tmp/fg.txt 40; fail "function_graph did not show vmload's 50 reads"; }

# function_graph in an instance: which code path ktop must take.
mkdir "$T/instances/ktopvm-probe" || fail "cannot create an instance"
echo "$FUNC" > "$T/instances/ktopvm-probe/set_ftrace_filter"	# patch 1 function, not 40,000
if echo function_graph > "$T/instances/ktopvm-probe/current_tracer" 2>/dev/null; then
	note "function_graph in an instance: allowed"
else
	note "function_graph in an instance: refused (top level only)"
fi
echo nop > "$T/instances/ktopvm-probe/current_tracer"
for f in set_graph_function set_graph_notrace set_ftrace_filter set_ftrace_pid; do
	[ -e "$T/instances/ktopvm-probe/$f" ] && note "$f in an instance: present" ||
		note "$f in an instance: absent (top level only)"
done
echo osnoise > "$T/instances/ktopvm-probe/current_tracer" 2>/dev/null &&
	note "osnoise in an instance: allowed" || note "osnoise in an instance: refused"
echo nop > "$T/instances/ktopvm-probe/current_tracer"
echo > "$T/instances/ktopvm-probe/set_ftrace_filter"
rmdir "$T/instances/ktopvm-probe" || fail "cannot remove the probe instance"

# osnoise and timerlat: samples from every CPU.  Short osnoise runtime, so
# the emulated CPUs are not all taken for a whole second.
period=$(cat "$T/osnoise/period_us")
runtime=$(cat "$T/osnoise/runtime_us")
echo 50000 > "$T/osnoise/runtime_us"
echo 200000 > "$T/osnoise/period_us"
for t in osnoise timerlat; do
	echo > "$T/trace"
	echo 1 > "$T/tracing_on"
	echo $t > "$T/current_tracer" || fail "cannot select $t"
	# timerlat writes ~4,000 lines/s: a short run keeps the greps quick.
	[ $t = timerlat ] && sleep 0.3 || sleep 1
	echo 0 > "$T/tracing_on"
	cat "$T/trace" > /tmp/$t.txt
	note "$t done at $(now)"
	echo nop > "$T/current_tracer"
	for cpu in $(seq 0 $(($(nproc) - 1))); do
		c=$(printf '%03d' "$cpu")
		n=$(grep -v '^#' /tmp/$t.txt | grep -c "\[$c\]")
		note "$t: $n lines from CPU $cpu"
		[ "$n" -ge 1 ] || { show /tmp/$t.txt 30; fail "$t gave nothing on CPU $cpu"; }
	done
done
echo "$period" > "$T/osnoise/period_us"
echo "$runtime" > "$T/osnoise/runtime_us"
[ "$(cat "$T/osnoise/period_us") $(cat "$T/osnoise/runtime_us")" = "$period $runtime" ] ||
	fail "osnoise period/runtime not restored"
echo 1 > "$T/tracing_on"
