# SPDX-License-Identifier: GPL-2.0-or-later
# `make fixtures`, guest side: record each fixture with record_fixture into
# /tmp/fx/<name>, check it holds what the workload must have produced, then
# send /tmp/fx as a base64 tar between markers on the second UART (ttyS1,
# a file on the host).  Per-fixture results go to the console like the
# scenarios' do.
#
# Names: rt-<what> from bookworm's 6.1-rt, rt612-<what> from backports' 6.12-rt.

. /vm/lib.sh
PER_FIXTURE_TIMEOUT=${PER_FIXTURE_TIMEOUT:-120}
case ${KTOP_VM_FLAVOUR:-bookworm} in
backports)	P=rt612- ;;
*)		P=rt- ;;
esac
FX=/tmp/fx
mkdir -p "$FX" /tmp/log

# Each fx_NAME records $FX/$P<NAME with - for _> and checks its trace.txt.
fx_function()
{
	record_fixture -o "$FX/${P}function" -p function -l "$FUNC" -l vfs_read \
		-- vmload read /dev/zero 100 &&
	fx_expect "${P}function" "vmload-[0-9]+ .* $FUNC <-vfs_read" 100 &&
	fx_expect "${P}function" "vmload-[0-9]+ .* vfs_read <-" 100
}

fx_fgraph()
{
	record_fixture -o "$FX/${P}fgraph" -p function_graph -g vfs_read $TOPFG -b 2048 \
		-- vmload read /dev/zero 20 4096 &&
	fx_expect "${P}fgraph" "vfs_read\(\) \{" 20 &&
	fx_expect "${P}fgraph" "$FUNC\(\)" 20
}

# A per-CPU buffer too small for the run: the kernel overwrites its oldest
# pages (statsN overrun, a missed-events mark on each CPU's first page), so
# every CPU's records start in the middle of calls. A pingpong pinned to
# each CPU: its two threads sleep in pipe_read under vfs_read and wake each
# other, so each CPU switches between two tasks in the middle of calls.
fx_fgraph_lost()
{
	record_fixture -o "$FX/${P}fgraph-lost" -p function_graph -g vfs_read $TOPFG -b 32 \
		-- sh -c 'pingpong -n 100 -c 0 & pingpong -n 100 -c 1; wait' &&
	fx_expect "${P}fgraph-lost" "vfs_read\(\) \{" 1 &&
	fx_expect "${P}fgraph-lost" "pipe_read\(\) \{" 1 &&
	fx_expect "${P}fgraph-lost" " => " 1 &&
	fx_overrun "${P}fgraph-lost"
}

fx_osnoise()
{
	record_fixture -o "$FX/${P}osnoise" -p osnoise -e osnoise -t 2 &&
	fx_expect "${P}osnoise" "osnoise/[0-9]+-[0-9]+ +\[000\]" 1 &&
	fx_expect "${P}osnoise" "osnoise/[0-9]+-[0-9]+ +\[001\]" 1
}

fx_timerlat()
{
	record_fixture -o "$FX/${P}timerlat" -p timerlat -t 0.3 &&
	fx_expect "${P}timerlat" "\[000\].*context +irq timer_latency" 10 &&
	fx_expect "${P}timerlat" "\[001\].*context +thread timer_latency" 10
}

fx_sched_irq()
{
	record_fixture -o "$FX/${P}sched-irq" -e sched -e irq -t 0.2 \
		-- sh -c 'vmload spin 30; sleep 0.05; vmload read /dev/zero 50; sleep 0.05' &&
	fx_expect "${P}sched-irq" "sched_switch: .*next_comm=vmload" 1 &&
	fx_expect "${P}sched-irq" "sched_process_exec: .*vmload" 2 &&
	fx_expect "${P}sched-irq" "irq_handler_entry|softirq_entry" 1
}

# trace.dat files written by Debian's trace-cmd 3.1.6 itself (issue 19): the
# variants ktop must open, each a few KB. /proc/kallsyms is narrowed for the
# recordings (a bind mount) to the symbols of the rt fixtures' kallsyms, which
# the host puts in /vm/fxsyms: the full table would be ~6 MB in every file.
# Every other byte is as trace-cmd writes it. The host compares ktop's
# reading of each file with `trace-cmd report` of the same file. Named
# tracedat-rt*/, not rt*-: the tests that run every rt* directory take those
# for record_fixture's.
TD=$FX/tracedat-${P%-}
tdat_record()
{
	local out=$1
	shift
	note "trace-cmd record -o $out $*"
	trace-cmd record -q -o "$TD/$out" "$@" > "/tmp/log/tdat-$out" 2>&1 ||
		{ cat "/tmp/log/tdat-$out"; fail "trace-cmd record $out"; }
	echo "$out: trace-cmd record $*" >> "$TD/commands"
	tracing_reset
}

fx_tracedat()
{
	command -v trace-cmd > /dev/null || fail "trace-cmd is not in the initramfs"
	mkdir -p "$TD"
	if [ -s /vm/fxsyms ]; then
		awk 'NR == FNR { want[$1] = 1; next } $3 in want' /vm/fxsyms /proc/kallsyms \
			> /tmp/kallsyms.small &&
			mount --bind /tmp/kallsyms.small /proc/kallsyms ||
			fail "cannot narrow /proc/kallsyms"
		note "kallsyms narrowed to $(wc -l < /proc/kallsyms) lines"
	fi
	# function_graph: vfs_read trees, with sched_switch; versions 7 (zstd) and 6
	for v in 7 6; do
		tdat_record "fgraph-v$v.dat" --file-version "$v" -p function_graph -g vfs_read \
			$FG_READ_PATH -e sched:sched_switch vmload read /dev/zero 20 4096
	done
	# the function tracer, uncompressed version 7
	tdat_record func-v7none.dat --compression none -p function -l "$FUNC" -l vfs_read \
		-e sched:sched_switch vmload read /dev/zero 100
	# events only: version 6, version 7 uncompressed
	tdat_record events-v6.dat --file-version 6 -e sched -e irq \
		sh -c 'vmload spin 30; vmload read /dev/zero 50; sleep 0.05'
	tdat_record events-v7none.dat --compression none -e sched -e irq \
		sh -c 'vmload spin 30; vmload read /dev/zero 50; sleep 0.05'
	# two buffers: the top one and instance "ktopb" with its own clock, v7 zstd and v6
	for v in 7 6; do
		tdat_record "twobuf-v$v.dat" --file-version "$v" -C local -e sched:sched_switch \
			-e sched:sched_wakeup -B ktopb -C global -e irq -e sched:sched_process_exec \
			sh -c 'vmload spin 20; vmload read /dev/zero 20; sleep 0.05'
	done
	# a buffer too small for a syscall flood: missed-event marks and CPU stats overrun
	tdat_record lost-v7.dat -b 8 -e raw_syscalls vmload read /dev/zero 20000
	umount /proc/kallsyms 2>/dev/null
	ls -l "$TD"
}

# Stacks: the stacktrace trigger on sched_switch and softirq_entry, and every
# event's user stack (options/userstacktrace). Named stacks-rt / stacks-rt612:
# the rt* decoder tests count every record as an event, and stack records
# are not (tests/unit/test_stacks_text.c reads these). stackload sleeps
# through its frame-pointer functions: do_nanosleep in the kernel stacks.
fx_stacks()
{
	local n="stacks-${P%-}"

	record_fixture -o "$FX/$n" -b 512 -e sched:sched_switch -e irq:softirq_entry \
		-s sched:sched_switch -s irq:softirq_entry -U -- stackload sleep 30 1000 &&
	fx_expect "$n" ": <stack trace>" 30 &&
	fx_expect "$n" ": <user stack trace>" 30 &&
	fx_expect "$n" " => do_nanosleep" 30 &&
	fx_expect "$n" "softirq_entry:" 1 || { rm -rf "${FX:?}/$n"; return 1; }
}

# The network view (issue 25): netload's workloads on the loopback device
# (a TCP transfer each way over IPv4 and IPv6, connects to a closed port,
# UDP to a closed port), with every network event this kernel has of the
# list (6.1 has no sock:sock_send_length/recv_length). netload's own account
# of the workload is kept as workload.out: the test takes its expectations
# from there (ports, pids, bytes).
NET_EVENTS="sock:inet_sock_set_state sock:sock_send_length sock:sock_recv_length
	tcp:tcp_retransmit_skb tcp:tcp_send_reset tcp:tcp_receive_reset tcp:tcp_destroy_sock
	tcp:tcp_probe skb:kfree_skb net:net_dev_xmit net:netif_receive_skb
	sched:sched_process_exec sched:sched_process_fork task:task_rename"
fx_net()
{
	local n="${P}net" ev= e

	ip link set lo up || fail "cannot bring lo up"
	for e in $NET_EVENTS; do
		[ -d "$T/events/${e%%:*}/${e#*:}" ] && ev="$ev -e $e"
	done
	record_fixture -o "$FX/$n" -b 1024 $ev -- sh -c '{ netload tcp 100000 5000 &&
		netload tcp -6 20000 3000 && netload refused 9 && netload refused -6 9 &&
		netload udp 9 3 100 && netload udp -6 9 2 50; } > /tmp/netload.out' &&
	cp /tmp/netload.out "$FX/$n/workload.out" &&
	cat "$FX/$n/workload.out" &&
	fx_expect "$n" "inet_sock_set_state: .*TCP_SYN_SENT" 4 &&
	fx_expect "$n" "inet_sock_set_state: .*newstate=TCP_CLOSE" 6 &&
	fx_expect "$n" "kfree_skb: " 5 || { rm -rf "${FX:?}/$n"; return 1; }
}

# Hist files (issue 26): the tables the kernel prints for the triggers ktop's
# hist engine writes (src/agg/agg_hist.c: a wakeup latency through a
# synthetic event, its log2 buckets with the per-bucket minimum, its per-key
# counts with onmax().save()), and the other shapes the parser must take:
# string and multiple keys, .execname, a map too small for its keys
# (Dropped), onmax().snapshot(), a trigger with a filter, an empty table.
# Files: NAME.hist as read, commands (event and trigger, in order), the
# synthetic event's format; the instance, triggers and event are removed.
fx_hist()
{
	local d=$FX/hist-${P%-} I=$T/instances/ktopfx C=4611686018427387904 e
	mkdir -p "$d" && mkdir "$I" || fail "cannot make $d or $I"
	echo 'ktopfx_lat pid_t next_pid; u64 lat; u64 te' >> "$T/synthetic_events" ||
		fail "no synthetic event"
	trig()
	{
		echo "$1 $2" >> "$d/commands"
		echo "$2" >> "$I/events/$1/trigger" || { cat "$I/error_log"; fail "refused: $2"; }
	}
	trig sched/sched_waking 'hist:keys=pid:clock=mono:size=16384:ts0=common_timestamp'
	trig sched/sched_switch 'hist:keys=next_pid:clock=mono:size=16384:next_pid=next_pid,l=common_timestamp-$ts0,te=common_timestamp:onmatch(sched.sched_waking).trace(ktopfx_lat,$next_pid,$l,$te)'
	trig synthetic/ktopfx_lat "hist:keys=lat.log2:vals=hitcount,lat:sort=lat:mn=$C-lat:onmax(\$mn).save(lat)"
	trig synthetic/ktopfx_lat 'hist:keys=next_pid:vals=hitcount,lat:size=2048:mx=lat:onmax($mx).save(te,lat)'
	trig synthetic/ktopfx_lat 'hist:keys=lat:vals=hitcount:size=128'
	trig synthetic/ktopfx_lat 'hist:keys=lat.log2:vals=hitcount:sort=lat if next_pid > 1000000'
	trig synthetic/ktopfx_lat 'hist:keys=next_pid:vals=hitcount:sn=lat:onmax($sn).snapshot()'
	trig sched/sched_switch 'hist:keys=prev_comm,prev_pid:vals=hitcount,prev_prio:sort=hitcount.descending'
	trig raw_syscalls/sys_enter 'hist:keys=common_pid.execname,id:vals=hitcount'
	echo 1 > "$I/tracing_on"
	pingpong -n 300 -c 0 > /dev/null && pingpong -n 300 > /dev/null &&
		vmload read /dev/zero 200 > /dev/null || fail "the workload failed"
	for e in sched/sched_waking sched/sched_switch synthetic/ktopfx_lat raw_syscalls/sys_enter; do
		cat "$I/events/$e/hist" > "$d/$(basename "$e").hist"
	done
	cp "$T/events/synthetic/ktopfx_lat/format" "$d/ktopfx_lat.format"
	uname -r > "$d/release"
	# off again: triggers first (an instance with hist triggers is busy), the
	# event last (one whose triggers went with an rmdir stays busy for good).
	# As written, last first: the kernel lists some it does not take back
	# ("sort=lat.log2": "Invalid sort modifier").
	awk '{ l[NR] = $0 } END { for (i = NR; i; i--) print l[i] }' "$d/commands" |
		while read -r e l; do
			echo "!$l" >> "$I/events/$e/trigger" ||
				{ echo "refused: !$l"; tail -n 3 "$I/error_log"; }
		done
	rmdir "$I" && echo '!ktopfx_lat' >> "$T/synthetic_events" || fail "cannot remove ktopfx"
	for e in sched_switch ktopfx_lat raw_syscalls; do
		note "$e: $(grep -c '^{' "$d/$e.hist" 2>/dev/null) entries"
	done
	grep -q 'Dropped: [1-9]' "$d/ktopfx_lat.hist" || fail "no table dropped entries"
	grep -q '	max:' "$d/ktopfx_lat.hist" || fail "no onmax line"
	[ "$(grep -c '^# event histogram' "$d/ktopfx_lat.hist")" -eq 5 ] || fail "not 5 tables"
	ls -l "$d"
}

fx_expect()
{
	local d=$FX/$1 n
	[ -s "$d/meta" ] && [ -s "$d/header_page" ] || fail "$1: no meta or header_page"
	ls "$d"/cpu*.raw* > /dev/null 2>&1 || fail "$1: no cpuN.raw"
	n=$(zcat "$d/trace.txt.gz" 2>/dev/null | grep -cE "$2")
	note "$1: $n lines matching '$2' (want >= $3)"
	[ "$n" -ge "$3" ] || { zcat "$d/trace.txt.gz" | head -n 30; fail "$1: too few"; }
}

# The kernel overwrote events of the recording (overrun in some statsN).
fx_overrun()
{
	local n
	n=$(cat "$FX/$1"/stats* | awk '/^overrun:/ { s += $2 } END { print s + 0 }')
	note "$1: $n events overwritten (want > 0)"
	[ "$n" -gt 0 ] || fail "$1: the buffer did not overrun"
}

[ -n "${FX_LIB:-}" ] && return 0

# function_graph -g needs the top level (record_fixture -T) where an
# instance refuses function_graph (6.1) or has no set_graph_function (6.12).
TOPFG=
mkdir "$T/instances/ktopvm-probe"
echo "$FUNC" > "$T/instances/ktopvm-probe/set_ftrace_filter"
echo function_graph > "$T/instances/ktopvm-probe/current_tracer" 2>/dev/null || TOPFG=-T
[ -e "$T/instances/ktopvm-probe/set_graph_function" ] || TOPFG=-T
echo > "$T/instances/ktopvm-probe/set_ftrace_filter"
echo nop > "$T/instances/ktopvm-probe/current_tracer"
rmdir "$T/instances/ktopvm-probe"
export TOPFG P

names="function fgraph fgraph_lost osnoise timerlat sched_irq stacks tracedat net hist"
[ -n "${KTOP_VM_ONLY:-}" ] && names=$(echo "$KTOP_VM_ONLY" | sed 's/fixture-//g')
echo "@@KTOP-VM kernel $(uname -r)"
echo "@@KTOP-VM uptime $(cut -d" " -f1 /proc/uptime) s at the start of the scenarios"
echo "@@KTOP-VM scenarios$(for n in $names; do printf ' fixture-%s' "$n"; done)"
for n in $names; do
	tracing_reset
	t0=$(now)
	# tracedat: nine trace-cmd recordings
	tmo=$PER_FIXTURE_TIMEOUT
	[ "$n" = tracedat ] && tmo=$((PER_FIXTURE_TIMEOUT * 4))
	FX_LIB=1 timeout "$tmo" sh -c ". /vm/fixtures.sh; fx_$n" \
		> /tmp/log/$n 2>&1 < /dev/null
	rc=$?
	secs=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
	if [ "$rc" -eq 0 ]; then
		echo "@@KTOP-VM result fixture-$n ok $secs"
	else
		echo "@@KTOP-VM result fixture-$n FAIL $secs"
		tail -n 40 /tmp/log/$n | sed "s|^|@@KTOP-VM evidence fixture-$n |"
		rm -rf "${FX:?}/$P$(echo "$n" | tr _ -)"
		[ "$n" = tracedat ] && rm -rf "${TD:?}"
		[ "$n" = hist ] && rm -rf "${FX:?}/hist-${P%-}"
	fi
	sed "s|^|@@KTOP-VM log fixture-$n |" /tmp/log/$n
done
tracing_reset
t_x=$(now)
{
	echo "@@KTOP-VM-XFER begin"
	tar -C "$FX" -cz . | base64
	echo "@@KTOP-VM-XFER end"
} > /tmp/xfer.b64
# close() does not wait for the UART to drain and poweroff -f would cut the
# tail: wait until the port's tx counter covers every byte (+1 CR per line).
want=$(( $(wc -c < /tmp/xfer.b64) + $(wc -l < /tmp/xfer.b64) ))
tx0=$(sed -n 's/^1: .* tx:\([0-9]*\).*/\1/p' /proc/tty/driver/serial)
cat /tmp/xfer.b64 > /dev/ttyS1
n=0
while :; do
	tx=$(sed -n 's/^1: .* tx:\([0-9]*\).*/\1/p' /proc/tty/driver/serial)
	[ $((tx - tx0)) -ge "$want" ] && break
	n=$((n + 1))
	[ "$n" -ge 1200 ] && { echo "fixtures: ttyS1 sent $((tx - tx0)) of $want bytes"; break; }
	sleep 0.1
done
echo "@@KTOP-VM xfer $want bytes of base64 in $(awk -v a="$t_x" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }') s"
echo "@@KTOP-VM done"
