#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The real-kernel test rig: boot Debian's rt kernels (which have the function,
# function_graph, osnoise and timerlat tracers this host lacks) under qemu
# TCG with an initramfs holding busybox, ./ktop, build/tools/*, tmux and the
# scenario scripts of tests/vm/guest/.
#
#   tests/vm/run.sh [check]      run the scenarios, one "ok"/"FAIL" line each
#   tests/vm/run.sh fixtures     record tests/fixtures/rt-* from the guest
#   tests/vm/run.sh shell        boot to an interactive guest shell
#
# Environment:
#   KTOP_VM_KERNELS   flavours to boot, default "bookworm backports"
#                     (bookworm: 6.1-rt, function_graph only at top level;
#                      backports: 6.12-rt, function_graph in an instance too)
#   KTOP_VM_ONLY      scenario names to run (space separated) on every flavour;
#                     default: each scenario on the flavours its "# kernels:"
#                     line names (all when it has none)
#   KTOP_VM_ALL       1: every scenario on every flavour
#   KTOP_VM_TIMEOUT   seconds per boot before qemu is killed, default the sum of
#                     the scenarios' own limits + 120 (fixtures: 900)
#   KTOP_VM_PARALLEL  1 (default): boot the kernels at the same time; 0: in turn
#   KTOP_VM_CACHE     cache dir (default $XDG_CACHE_HOME/ktop-vm, else tests/vm/cache)
#   KTOP_BIN          the ktop to test, default ./ktop
#   KTOP_FIXTURES     where `fixtures` writes, default tests/fixtures
#
# Results come back over the serial console (ttyS0) as "@@KTOP-VM ..." lines;
# fixture files come back as a base64 tar over a second UART (ttyS1) into a
# host file, so kernel messages can never corrupt them.  Anything that stops
# the rig (no qemu, no kernel, no result) is a FAIL with the reason, never a
# pass or a silent skip.

set -u
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root" || exit 2
. "$here/kernel.sh"

mode=${1:-check}
case $mode in
check|fixtures|shell) ;;
-h|--help|help)
	sed -n '4,25p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
*)
	echo "usage: $0 [check|fixtures|shell]" >&2
	exit 2
	;;
esac

kernels=${KTOP_VM_KERNELS:-bookworm backports}

# guest/scenario-NN-NAME.sh -> NAME
scenario_name()
{
	local n=${1##*/scenario-}
	n=${n%.sh}
	echo "${n#[0-9][0-9]-}"
}

# Default boot limit: every scenario's own limit ("# timeout: N", else 60 s)
# plus two minutes, so a hung guest ends, but a slow one is not cut short.
default_timeout()
{
	local f n sum=120
	if [ "$mode" = fixtures ]; then
		echo 900
		return
	fi
	for f in "$here"/guest/scenario-*.sh; do
		n=$(scenario_name "$f")
		if [ -n "${KTOP_VM_ONLY:-}" ]; then
			case " $KTOP_VM_ONLY " in *" $n "*) ;; *) continue ;; esac
		fi
		n=$(sed -n 's/^# timeout: \([0-9]*\).*/\1/p' "$f")
		sum=$((sum + ${n:-60}))
	done
	echo "$sum"
}
boot_timeout=${KTOP_VM_TIMEOUT:-$(default_timeout)}
ktop_bin=${KTOP_BIN:-./ktop}
fixtures_dir=${KTOP_FIXTURES:-tests/fixtures}
cache=$(vm_cache_dir)
mkdir -p "$cache/runs" || exit 2
# Per-run files, so runs started at the same time (make check in two shells)
# do not write over each other's logs; keep the last few for inspection.
run=$cache/runs/$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$run" || exit 2
ls -d "$cache"/runs/*/ 2>/dev/null | head -n -6 | xargs -r rm -rf

npass=0
nfail=0
t_all=$(date +%s.%N)

elapsed()
{
	awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'
}

# A failure of the rig itself, not of one scenario.
rig_fail()
{
	echo "FAIL $1"
	shift
	for l in "$@"; do
		echo "    $l"
	done
	nfail=$((nfail + 1))
}

finish()
{
	echo "$npass passed, $nfail failed (vm total $(elapsed "$t_all") s)"
	[ "$nfail" -eq 0 ] && [ "$npass" -gt 0 ]
	exit $?
}

# ---- initramfs -------------------------------------------------------------

# Copy an ELF and every library ldd names, at their absolute paths.
copy_elf()
{
	local src=$1 dst=$2 stage=$3 lib
	install -D -m 0755 "$src" "$stage$dst" || return 1
	for lib in $(ldd "$src" 2>/dev/null | awk '/=> \//{ print $3 } /^\t\//{ print $1 }'); do
		[ -e "$stage$lib" ] && continue
		install -D -m 0755 "$(readlink -f "$lib")" "$stage$lib" || return 1
	done
}

build_initramfs()
{
	local out=$1 stage t f
	stage=$run/stage
	rm -rf "$stage"
	mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,root,etc,vm,lib64} ||
		return 1
	install -m 0755 "$(command -v busybox)" "$stage/bin/busybox" || return 1
	file -L "$stage/bin/busybox" | grep -q 'statically linked' || {
		echo "vm: $(command -v busybox) is not static: install busybox-static" >&2
		return 1
	}
	install -m 0755 "$here/guest/init" "$stage/init" || return 1
	cp "$here"/guest/*.sh "$stage/vm/" || return 1
	[ -f "$here/guest/scenarios.list" ] && cp "$here/guest/scenarios.list" "$stage/vm/"
	mkdir -p "$stage/vm/bin"
	copy_elf "$(command -v tmux)" /usr/bin/tmux "$stage" || return 1
	# Debian's rtla, for the side-by-side scenario (which fails without it)
	if command -v rtla > /dev/null; then
		copy_elf "$(command -v rtla)" /usr/bin/rtla "$stage" || return 1
	fi
	if [ -x "$ktop_bin" ]; then
		copy_elf "$ktop_bin" /usr/bin/ktop "$stage" || return 1
	fi
	# Debian's trace-cmd, for the trace.dat fixtures (fixtures.sh fx_tracedat),
	# and the names of the rt fixtures' symbols, to narrow its kallsyms
	if command -v trace-cmd > /dev/null; then
		copy_elf "$(command -v trace-cmd)" /usr/bin/trace-cmd "$stage" || return 1
	fi
	cat "$root"/tests/fixtures/rt*/kallsyms 2>/dev/null | awk 'NF >= 3 { print $3 }' |
		sort -u > "$stage/vm/fxsyms"
	for t in "$root"/build/tools/*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		copy_elf "$t" "/usr/bin/$(basename "$t")" "$stage" || return 1
	done
	for t in "$cache"/guestbin/*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		copy_elf "$t" "/usr/bin/$(basename "$t")" "$stage" || return 1
	done
	install -D -m 0755 "$(readlink -f /lib64/ld-linux-x86-64.so.2)" \
		"$stage/lib64/ld-linux-x86-64.so.2" || return 1
	for f in d/dumb l/linux s/screen s/screen-256color t/tmux t/tmux-256color v/vt100 \
		 x/xterm x/xterm-256color; do
		for t in /lib/terminfo /usr/share/terminfo; do
			[ -e "$t/$f" ] && install -D -m 0644 "$t/$f" "$stage/usr/share/terminfo/$f" && break
		done
	done
	mkdir -p "$stage/usr/lib/locale"
	cp -a /usr/lib/locale/C.utf8 "$stage/usr/lib/locale/" || return 1
	echo "root:x:0:0:root:/root:/bin/sh" > "$stage/etc/passwd"
	echo "root:x:0:" > "$stage/etc/group"
	(cd "$stage" && find . | cpio -o -H newc -R 0:0 --quiet) > "$out.tmp" &&
		mv "$out.tmp" "$out"
	local rc=$?
	rm -rf "$stage"
	return $rc
}

# Small static helpers for the guest workloads (busybox cat uses sendfile,
# so a real read(2) loop is needed for vfs_read).
build_guestbin()
{
	local c b
	mkdir -p "$cache/guestbin" || return 1
	for c in "$here"/guest/*.c; do
		[ -f "$c" ] || continue
		b=$cache/guestbin/$(basename "$c" .c)
		[ "$b" -nt "$c" ] && continue
		${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -Werror -static -o "$b.$$" "$c" &&
			mv -f "$b.$$" "$b" || return 1
	done
}

# ---- one boot ----------------------------------------------------------------

# boot FLAVOUR VMLINUZ INITRD CONSOLE_LOG XFER_FILE APPEND
boot()
{
	local vmlinuz=$2 initrd=$3 log=$4 xfer=$5 append=$6 rc
	local qemu=(qemu-system-x86_64 -accel tcg,thread=single -cpu max -m 1G -smp 2
		    -kernel "$vmlinuz" -initrd "$initrd"
		    -append "console=ttyS0 quiet panic=-1 no_timer_check 8250.nr_uarts=2 noirqdebug $append"
		    -nographic -no-reboot -nic none
		    -serial mon:stdio -serial "file:$xfer")
	if [ "$mode" = shell ]; then
		"${qemu[@]}"
		return $?
	fi
	: > "$xfer"
	timeout -k 5 "$boot_timeout" "${qemu[@]}" < /dev/null > "$log" 2>&1
	rc=$?
	# Markers may follow terminal escapes from the firmware on the same line.
	tr -d '\r' < "$log" | sed 's/^.*\(@@KTOP-VM \)/\1/' > "$log.txt"
	return $rc
}

# Turn the guest's "@@KTOP-VM" lines into ok/FAIL lines.
report_check()
{
	local flavour=$1 log=$2 qrc=$3 kver expected name res secs shown=
	kver=$(sed -n 's/^@@KTOP-VM kernel //p' "$log" | head -n 1)
	sed -n "s/^@@KTOP-VM uptime \(.*\)/vm: $flavour: guest uptime \1/p" "$log" | head -n 1
	expected=$(sed -n 's/^@@KTOP-VM scenarios //p' "$log" | head -n 1)
	if [ -z "$kver" ]; then
		rig_fail "$flavour: the guest never reached /init (qemu exit $qrc)" \
			"$(tail -n 25 "$log")"
		return
	fi
	for name in $expected; do
		res=$(awk -v n="$name" '$1 == "@@KTOP-VM" && $2 == "result" && $3 == n { print $4; exit }' "$log")
		secs=$(awk -v n="$name" '$1 == "@@KTOP-VM" && $2 == "result" && $3 == n { print $5; exit }' "$log")
		if [ "$res" = ok ]; then
			echo "ok $flavour/$name ($kver, ${secs}s)"
			npass=$((npass + 1))
			continue
		fi
		if [ -z "$res" ]; then
			echo "FAIL $flavour/$name ($kver): no result from the guest (qemu exit $qrc)"
			if [ -z "$shown" ]; then
				grep -v '^@@KTOP-VM \(evidence\|log\|result\|scenarios\)' "$log" |
					tail -n 8 | cut -c1-300 | sed 's/^/    /'
				shown=1
			fi
		else
			echo "FAIL $flavour/$name ($kver, ${secs}s)"
		fi
		awk -v n="$name" '$1 == "@@KTOP-VM" && $2 == "evidence" && $3 == n {
			sub(/^@@KTOP-VM evidence [^ ]* ?/, ""); print "    " substr($0, 1, 300) }' "$log"
		nfail=$((nfail + 1))
	done
	if [ -z "$expected" ]; then
		rig_fail "$flavour: the guest listed no scenarios" "$(tail -n 15 "$log")"
	elif ! grep -q '^@@KTOP-VM done' "$log"; then
		rig_fail "$flavour: the guest did not finish (qemu exit $qrc, timeout ${boot_timeout}s)"
	fi
}

# Unpack the base64 tar the guest wrote on ttyS1 into the fixtures dir.
report_fixtures()
{
	local flavour=$1 log=$2 xfer=$3 qrc=$4 tmp n d
	tmp=$run/fx
	rm -rf "$tmp" && mkdir -p "$tmp"
	tr -d '\r' < "$xfer" > "$xfer.txt"
	sed -n '/^@@KTOP-VM-XFER begin$/,/^@@KTOP-VM-XFER end$/p' "$xfer.txt" |
		sed '1d;$d' | base64 -d 2> "$tmp.err" | tar -xz -C "$tmp" 2>> "$tmp.err"
	if ! grep -q '^@@KTOP-VM-XFER end$' "$xfer.txt" || [ -s "$tmp.err" ]; then
		rig_fail "$flavour: fixtures did not come back whole (qemu exit $qrc)" \
			"$(cat "$tmp.err" 2>/dev/null)" "$(tail -n 25 "$log")"
		rm -rf "$tmp" "$tmp.err"
		return
	fi
	rm -f "$tmp.err"
	# Per-fixture results reported by the guest.
	report_check "$flavour" "$log" "$qrc"
	n=0
	for d in "$tmp"/*/; do
		[ -d "$d" ] || continue
		d=${d%/}
		rm -rf "${fixtures_dir:?}/$(basename "$d")"
		mkdir -p "$fixtures_dir"
		mv "$d" "$fixtures_dir/" || { rig_fail "$flavour: cannot write $fixtures_dir"; break; }
		echo "  fixture $fixtures_dir/$(basename "$d") $(du -sk "$fixtures_dir/$(basename "$d")" |
			cut -f1) KB"
		n=$((n + 1))
	done
	rm -rf "$tmp"
	[ "$n" -gt 0 ] || rig_fail "$flavour: the guest sent no fixtures"
}

# ---- main ----------------------------------------------------------------------

for tool in qemu-system-x86_64 busybox cpio tmux apt-get dpkg-deb xz zstd readelf; do
	command -v $tool > /dev/null || {
		rig_fail "vm rig: $tool is not installed (make deps)"
		finish
	}
done
if [ "$mode" != fixtures ] && [ ! -x "$ktop_bin" ]; then
	echo "vm: note: $ktop_bin is not built; the ktop scenarios will fail" >&2
fi
if ! build_guestbin; then
	rig_fail "vm rig: cannot build the guest helpers (tests/vm/guest/*.c)"
	finish
fi
initrd=$run/initrd.cpio
t0=$(date +%s.%N)
if ! build_initramfs "$initrd"; then
	rig_fail "vm rig: cannot build the initramfs"
	finish
fi
echo "vm: initramfs $(du -k "$initrd" | cut -f1) KB in $(elapsed "$t0") s"

append="ktop.mode=$mode"
[ -n "${KTOP_VM_ONLY:-}" ] && append="$append ktop.only=$(echo "$KTOP_VM_ONLY" | tr ' ' ',')"
[ "${KTOP_VM_ALL:-0}" = 1 ] && append="$append ktop.all=1"

# Fetch first (apt is not safe to run twice at once), then boot.
booted=
for flavour in $kernels; do
	if ! vmlinuz=$(vm_kernel_fetch "$flavour"); then
		rig_fail "$flavour: cannot fetch the rt kernel (see the message above)"
		continue
	fi
	vmlinuz=$(vm_kernel_pvh "$vmlinuz")
	eval "vmlinuz_$flavour=\$vmlinuz"
	booted="$booted $flavour"
	if [ "$mode" = shell ]; then
		echo "vm: $flavour: $(basename "$vmlinuz"); leave with 'poweroff -f' (or Ctrl-a x)"
		boot "$flavour" "$vmlinuz" "$initrd" "$run/console-$flavour.log" \
			"$run/xfer-$flavour.txt" "$append ktop.flavour=$flavour"
		rm -f "$initrd"
		exit 0
	fi
done

# One qemu per kernel, in parallel by default: each is single-threaded TCG.
run_one()
{
	local flavour=$1 t0 qrc vmlinuz
	eval "vmlinuz=\$vmlinuz_$flavour"
	t0=$(date +%s.%N)
	boot "$flavour" "$vmlinuz" "$initrd" "$run/console-$flavour.log" \
		"$run/xfer-$flavour.txt" "$append ktop.flavour=$flavour"
	qrc=$?
	echo "$qrc $(elapsed "$t0")" > "$run/boot-$flavour.rc"
}
for flavour in $booted; do
	rm -f "$run/boot-$flavour.rc"
	if [ "${KTOP_VM_PARALLEL:-1}" = 1 ]; then
		run_one "$flavour" &
	else
		run_one "$flavour"
	fi
done
wait
for flavour in $booted; do
	log=$run/console-$flavour.log
	read -r qrc secs < "$run/boot-$flavour.rc" 2>/dev/null || { qrc=255; secs="?"; }
	echo "vm: $flavour: $(basename "$(eval echo "\$vmlinuz_$flavour")") booted and ran" \
	     "in $secs s (qemu exit $qrc, console log $log.txt)"
	if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
		echo "vm: $flavour: qemu was killed after ${boot_timeout}s"
	fi
	if [ "$mode" = fixtures ]; then
		report_fixtures "$flavour" "$log.txt" "$run/xfer-$flavour.txt" "$qrc"
	else
		report_check "$flavour" "$log.txt" "$qrc"
	fi
done
rm -f "$initrd"
[ "$mode" = shell ] && exit 0
# Every scenario ran on some kernel (a "# kernels:" line naming no flavour
# booted here would drop it without a word).
if [ "$mode" = check ] && [ -z "${KTOP_VM_ONLY:-}" ] && [ "$kernels" = "bookworm backports" ]; then
	for f in "$here"/guest/scenario-*.sh; do
		n=$(scenario_name "$f")
		ran=
		for flavour in $booted; do
			sed -n 's/^@@KTOP-VM scenarios //p' "$run/console-$flavour.log.txt" 2>/dev/null |
				head -n 1 | grep -qw -- "$n" && ran=1
		done
		[ -n "$ran" ] || rig_fail "scenario $n ran on no kernel (its '# kernels:' line:" \
			"$(grep -m1 '^# kernels:' "$f" || echo none))"
	done
fi
finish
