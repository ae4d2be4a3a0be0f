#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make bench: run every benchmark and print its figures, one per line:
#   bench <name> <value> <unit>
#   bench <name>.anchor... <value> <unit> (<what the anchor is>)
# Benchmarks are tests/bench/*.sh (scripts, e.g. the live ones needing root; lib_*.sh
# are sourced helpers) and
# build/bench/* (programs built from tests/bench/*.c by make benches). Lines that are
# not "bench ..." are notes and go to stderr.
#
#   tests/bench/run.sh [NAME...]     only the benchmarks whose name contains NAME

set -uo pipefail
export LC_ALL=C
cd "$(dirname "$0")/../.." || exit 2

progs=()
shopt -s nullglob
for s in tests/bench/*.sh; do
	case $(basename "$s") in run.sh|lib_*.sh) continue ;; esac
	progs+=("$s")
done
for b in build/bench/*; do
	# tests/bench/NAME.sh runs build/bench/NAME itself (bench_snapshot.sh: next to a base build)
	[ -f "tests/bench/$(basename "$b").sh" ] && continue
	[ -x "$b" ] && [ -f "$b" ] && progs+=("$b")
done
shopt -u nullglob

status=0
for p in "${progs[@]}"; do
	name=$(basename "$p")
	name=${name%.sh}
	if [ $# -gt 0 ]; then
		want=0
		for w in "$@"; do
			case $name in *"$w"*) want=1 ;; esac
		done
		[ $want -eq 1 ] || continue
	fi
	echo "== $name" >&2
	case $p in
	*.sh)	cmd=(bash "$p") ;;
	*)	cmd=("$p") ;;
	esac
	timeout -k 10 600 "${cmd[@]}" </dev/null 2>&1 | while IFS= read -r l; do
		case $l in bench\ *) echo "$l" ;; *) echo "  $l" >&2 ;; esac
	done
	rc=${PIPESTATUS[0]}
	if [ $rc -ne 0 ]; then
		echo "  $name: exit status $rc" >&2
		status=1
	fi
done
exit $status
