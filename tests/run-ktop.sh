#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make run: start ./ktop live, or say why it cannot and what it does instead.
#   - the demo snapshot tests/fixtures/demo.ktop, when it exists, is opened
#     when live tracing is impossible (not root);
#   - otherwise ./ktop starts live with no options (its default view); where
#     tracefs is not mounted (a fresh boot), ktop mounts it.
# Extra arguments are passed to ktop.

set -u
cd "$(dirname "$0")/.." || exit 2
ktop=${KTOP:-./ktop}
demo=${KTOP_FIXTURES:-tests/fixtures}/demo.ktop

why=
if [ "$(id -u)" -ne 0 ]; then
	why="you are not root (tracefs and BPF are root-only here; try: sudo make run)"
fi

if [ -n "$why" ]; then
	if [ -f "$demo" ]; then
		echo "make run: cannot trace live: $why."
		echo "make run: opening the recorded demo snapshot $demo instead" \
			"(function_graph, osnoise, timerlat, sched; see tests/fixtures/README)."
		if [ ! -t 0 ] || [ ! -t 1 ]; then
			echo "make run: not a terminal; its summary (ktop -i $demo --batch):"
			exec "$ktop" -i "$demo" --batch "$@"
		fi
		exec "$ktop" -i "$demo" "$@"
	fi
	echo "make run: cannot trace live: $why." >&2
	echo "make run: no demo snapshot ($demo) to show instead." >&2
	exit 2
fi

if [ ! -t 0 ] || [ ! -t 1 ]; then
	echo "make run: not a terminal; running the headless view (ktop --batch) for 5 s instead."
	exec "$ktop" --batch --duration 5 "$@"
fi
exec "$ktop" "$@"
