#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Run ktop's test suites and print one overall line "N passed, N failed".
#
#   tests/run.sh [SUITE...]     SUITE: all (default), fast (all but vm), unit,
#                               asan, tsan, live, live-asan, tui, fuzz, vm
#
# Suites are found by directory:
#   unit   build/tests/test_*              (tests/unit/test_*.c, built by make tests)
#   asan   build-asan/tests/test_*         (the same, ASan+UBSan: make SAN=asan tests)
#   tsan   build-tsan/tests/test_*         (the same, TSan: make SAN=tsan tests)
#   live   tests/live/*.sh                 (root, this host's kernel)
#   live-asan  tests/live/test_batch.sh's JSON part with build-asan/ktop
#          (make SAN=asan ktop): the real ingestion path under ASan+UBSan+LSan
#   tui    tests/tui/*.sh                  (root, under tmux)
#   fuzz   tests/fuzz/run.sh               (libFuzzer on the snapshot readers, ~60 s)
#   vm     tests/vm/run.sh                 (qemu, the rt kernels)
# Scripts named lib*.sh, common*.sh or _*.sh are helpers and are not run.
#
# A test program prints "ok NAME" / "FAIL NAME: why" lines and exits non-zero
# when something failed; when it ends with a "N passed, N failed" line, that
# line is its count. A program that fails without a FAIL line counts as one
# failure; one that succeeds silently as one pass. A missing suite (nothing
# built, no root, no tracefs) is a failure with the reason, never a skip.
#
# A program that failed keeps its whole output: build/test-logs/RUN/SUITE_NAME.log
# (RUN: when this run started), named in the list of failures at the end.
#
# Environment: KTOP (default ./ktop) for the scripts; KTOP_TEST_TIMEOUT
# (seconds per program, default 300; 3600 for vm, whose guests get
# KTOP_VM_TIMEOUT, default 3300: a hung guest fails well inside CI's 90
# minutes); KTOP_TEST_VERBOSE=1 shows
# every line of output.

set -uo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.." || exit 2
export KTOP=${KTOP:-./ktop}

total_pass=0
total_fail=0
logdir=$(mktemp -d /tmp/ktop-tests.XXXXXX)
trap 'rm -rf "$logdir"' EXIT
keepdir=build/test-logs/$(date +%Y%m%d-%H%M%S)

suite_pass=0
suite_fail=0

say_fail() {
	echo "FAIL $*"
	echo "$cur_suite: $*" | cut -c1-300 >> "$logdir/failed.txt"
	suite_fail=$((suite_fail + 1))
}
cur_suite=-

# run_prog NAME TIMEOUT CMD...: run one test program and count its results.
run_prog() {
	local name=$1 tmo=$2 log rc p f summary
	shift 2
	log=$logdir/$(echo "$name" | tr '/ ' '__').log
	timeout -k 10 "$tmo" "$@" </dev/null >"$log" 2>&1
	rc=$?
	if [ "${KTOP_TEST_VERBOSE:-0}" = 1 ]; then
		sed 's/^/    /' "$log"
	fi
	# the result lines, as the program printed them
	grep -E '^(ok|FAIL|not ok|PASS|SKIP|XFAIL)\b' "$log" | sed "s|^|  [$name] |"
	summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
	if [ -n "$summary" ]; then
		p=${summary%% passed*}
		f=${summary#*passed, }
		f=${f%% failed}
	else
		p=$(grep -cE '^(ok|PASS)\b' "$log")
		# "FAIL file.c:12: expr" is the detail of the "FAIL case" line after it
		f=$(grep -E '^(FAIL|not ok)\b' "$log" | grep -cvE '^FAIL [^ ]+:[0-9]+: ')
	fi
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		echo "  [$name] FAIL: timed out after ${tmo}s"
		f=$((f + 1))
	elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "  [$name] FAIL: exit status $rc without a FAIL line"
		f=1
	elif [ "$rc" -eq 0 ] && [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
		echo "  [$name] ok (exit status 0)"
		p=1
	fi
	if [ "$f" -gt 0 ]; then
		# its whole output, kept; the list at the very end (what a CI log's tail
		# shows) names it
		mkdir -p "$keepdir" && cp "$log" "$keepdir/"
		{ printf '%s: ' "$name"
		  grep -m 3 -E '^(FAIL|not ok)\b' "$log" | tr '\n' ' ' | cut -c1-400
		  printf '(whole output: %s/%s)\n' "$keepdir" "${log##*/}"; } >> "$logdir/failed.txt"
	fi
	if [ "$f" -gt 0 ] && [ "${KTOP_TEST_VERBOSE:-0}" != 1 ]; then
		echo "  [$name] last lines of its output:"
		tail -n 25 "$log" | sed 's/^/    | /'
	fi
	suite_pass=$((suite_pass + p))
	suite_fail=$((suite_fail + f))
}

# Kernel-facing suites need root and a mounted tracefs.
need_kernel() {
	if [ "$(id -u)" -ne 0 ]; then
		say_fail "$1: needs root (run make check as root)"
		return 1
	fi
	if ! mountpoint -q /sys/kernel/tracing; then
		if ! mount -t tracefs nodev /sys/kernel/tracing 2>"$logdir/mount.err"; then
			say_fail "$1: tracefs is not mounted and mounting it failed: $(cat "$logdir/mount.err")"
			return 1
		fi
		echo "  (mounted tracefs at /sys/kernel/tracing)"
	fi
	return 0
}

run_unit() {	# $1: suite name, $2: build dir
	local bins=() b env=()
	shopt -s nullglob
	bins=("$2"/tests/test_*)
	shopt -u nullglob
	if [ ${#bins[@]} -eq 0 ]; then
		say_fail "$1: no test programs in $2/tests (build them with make${3:+ $3} tests)"
		return
	fi
	case $1 in
	asan)
		env=(env ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1
		     UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)
		;;
	tsan)
		env=(env TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1)
		# TSan's shadow memory cannot cope with the kernel's large mmap randomisation
		if command -v setarch >/dev/null; then
			env+=(setarch "$(uname -m)" -R)
		fi
		;;
	esac
	for b in "${bins[@]}"; do
		[ -x "$b" ] || continue
		case $b in *.d|*.o) continue ;; esac
		run_prog "$1/$(basename "$b")" "${KTOP_TEST_TIMEOUT:-300}" "${env[@]}" "$b"
	done
}

run_scripts() {	# $1: suite name = directory under tests/
	local scripts=() s
	shopt -s nullglob
	for s in tests/"$1"/*.sh; do
		case $(basename "$s") in lib*|common*|_*) continue ;; esac
		scripts+=("$s")
	done
	shopt -u nullglob
	if [ ${#scripts[@]} -eq 0 ]; then
		say_fail "$1: no test scripts in tests/$1/"
		return
	fi
	need_kernel "$1" || return
	for s in "${scripts[@]}"; do
		run_prog "$1/$(basename "$s" .sh)" "${KTOP_TEST_TIMEOUT:-300}" bash "$s"
	done
}

run_live_asan() {
	if [ ! -x build-asan/ktop ]; then
		say_fail "live-asan: build-asan/ktop is not built (make SAN=asan ktop)"
		return
	fi
	need_kernel live-asan || return
	run_prog "live-asan/test_batch" "${KTOP_TEST_TIMEOUT:-300}" \
		env KTOP=build-asan/ktop KTOP_TEST_PARTS=json \
		ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		bash tests/live/test_batch.sh
}

run_vm() {
	if [ ! -f tests/vm/run.sh ]; then
		say_fail "vm: tests/vm/run.sh is missing"
		return
	fi
	run_prog vm "${KTOP_TEST_TIMEOUT:-3600}" env KTOP_VM_TIMEOUT="${KTOP_VM_TIMEOUT:-3300}" bash tests/vm/run.sh check
}

run_suite() {
	local t0 t1
	suite_pass=0
	suite_fail=0
	cur_suite=$1
	t0=$(date +%s)
	echo "== $1"
	case $1 in
	unit)	run_unit unit build ;;
	asan)	run_unit asan build-asan SAN=asan ;;
	tsan)	run_unit tsan build-tsan SAN=tsan ;;
	live)	run_scripts live ;;
	live-asan) run_live_asan ;;
	tui)	run_scripts tui ;;
	fuzz)	run_prog fuzz 300 bash tests/fuzz/run.sh ;;
	vm)	run_vm ;;
	*)	say_fail "unknown suite '$1'" ;;
	esac
	t1=$(date +%s)
	echo "== $1: $suite_pass passed, $suite_fail failed ($((t1 - t0))s)"
	total_pass=$((total_pass + suite_pass))
	total_fail=$((total_fail + suite_fail))
}

suites=()
[ $# -eq 0 ] && set -- all
for a in "$@"; do
	case $a in
	all)	suites+=(unit asan tsan live live-asan tui fuzz vm) ;;
	fast)	suites+=(unit asan tsan live live-asan tui fuzz) ;;
	*)	suites+=("$a") ;;
	esac
done
for s in "${suites[@]}"; do
	run_suite "$s"
done

if [ -s "$logdir/failed.txt" ]; then
	echo "== what failed (details above):"
	sed 's/^/  /' "$logdir/failed.txt"
fi
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
