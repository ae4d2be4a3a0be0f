#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Live loss: raw_syscalls under a one-byte dd pinned to one CPU for 5 s, with
# the same per-CPU buffer size, read by
#   - ktop (--json -e raw_syscalls -b KB): lost / (lost + seen), from its last
#     summary;
#   - trace-cmd record -e raw_syscalls -b KB (loss from the kernel's per-CPU
#     stats it saves: overrun / (overrun + read events)), when trace-cmd
#     record can run on this kernel;
#   - splice_record (build/tools): the data path of trace-cmd record (splice
#     of whole pages, no decoding) through libtracefs, which runs where
#     trace-cmd record cannot (it needs ftrace_enabled and set_ftrace_filter
#     writable, which this kernel refuses).
# Needs root. Leaves the tracing state as it found it (checked).
#
# Environment: KTOP_BENCH_BUFFER_KB (default 1024), KTOP_BENCH_SECONDS (5),
# KTOP_BENCH_CPU (the CPU dd runs on, default 1, or 0 on one CPU).

set -u
cd "$(dirname "$0")/.." || exit 2
export LC_ALL=C
KTOP=${KTOP:-./ktop}
TOOLS=build/tools
kb=${KTOP_BENCH_BUFFER_KB:-1024}
secs=${KTOP_BENCH_SECONDS:-5}
ncpu=$(nproc)
cpu=${KTOP_BENCH_CPU:-$((ncpu > 1 ? 1 : 0))}
tmp=$(mktemp -d /tmp/ktop-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

if [ "$(id -u)" -ne 0 ]; then
	echo "live_loss: needs root" >&2
	exit 1
fi
for f in "$KTOP" "$TOOLS/tracestate" "$TOOLS/splice_record"; do
	[ -x "$f" ] || { echo "live_loss: $f is not built (make ktop tools)" >&2; exit 1; }
done

load() {	# the producer: exactly the same each time
	timeout "$secs" taskset -c "$cpu" dd if=/dev/zero of=/dev/null bs=1 count=2000000000 \
		2>/dev/null
}

"$TOOLS/tracestate" -x --save "$tmp/state"

# --- ktop ---------------------------------------------------------------
"$KTOP" --json -e raw_syscalls -b "$kb" --duration $((secs + 2)) >"$tmp/k.json" 2>"$tmp/k.err" &
kpid=$!
for ((i = 0; i < 80; i++)); do
	grep -q '"summary"' "$tmp/k.json" 2>/dev/null && break
	sleep 0.1
done
load
wait $kpid
rc=$?
if [ $rc -ne 0 ]; then
	echo "live_loss: ktop failed ($rc): $(head -c 300 "$tmp/k.err")" >&2
	exit 1
fi
read -r klost kseen kdrop rns dns <<<"$(python3 -c '
import json, sys
o = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
c = o["cpus"]
dec = sum(x.get("decoded_total", 0) for x in c) or 1
print(o["lost_total"], o["events_total"], o.get("ktop_dropped_total", 0),
      "%.1f" % (sum(x.get("read_cpu_ns", 0) for x in c) / dec),
      "%.1f" % (sum(x.get("decode_cpu_ns", 0) for x in c) / dec))' "$tmp/k.json")"
kpct=$(awk "BEGIN { printf \"%.3f\", $klost + $kseen ? 100 * $klost / ($klost + $kseen) : 0 }")
echo "ktop: seen $kseen lost $klost over ${secs}s of load, -b $kb"
echo "bench live.lost_pct $kpct %"
echo "bench live.events_seen $kseen events"
echo "bench live.ktop_dropped $kdrop events (of the lost: read, then dropped by ktop, decode backlog full)"
echo "bench live.reader_ns_per_event $rns ns (reader threads' CPU copying pages, per decoded event)"
echo "bench live.decode_ns_per_event $dns ns (CPU decoding and storing, per decoded event)"

# --- trace-cmd record ----------------------------------------------------
if command -v trace-cmd >/dev/null; then
	timeout $((secs + 20)) trace-cmd record -e raw_syscalls -b "$kb" -o "$tmp/tc.dat" \
		taskset -c "$cpu" timeout "$secs" dd if=/dev/zero of=/dev/null bs=1 \
		count=2000000000 >"$tmp/tc.out" 2>&1
	rc=$?
	# trace-cmd can leave state behind when it fails: put everything back
	if ! "$TOOLS/tracestate" -x --diff "$tmp/state" >/dev/null 2>&1; then
		"$TOOLS/tracestate" --restore "$tmp/state"
		echo "note: trace-cmd changed the tracing state; restored"
	fi
	if [ $rc -eq 0 ]; then
		read -r tread tover <<<"$(trace-cmd report --stat -i "$tmp/tc.dat" 2>/dev/null | awk '
			/^overrun:/ { o += $2 } /^read events:/ { r += $3 } END { print r + 0, o + 0 }')"
		tpct=$(awk "BEGIN { printf \"%.3f\", $tread + $tover ? 100 * $tover / ($tread + $tover) : 0 }")
		echo "bench live.lost_pct.anchor.trace_cmd_record $tpct % (trace-cmd record -e raw_syscalls -b $kb, same load; read $tread overrun $tover)"
	else
		echo "note: trace-cmd record cannot run on this kernel: $(grep -v '^CPU\|bytes in size' "$tmp/tc.out" | tr '\n' ' ' | head -c 200)"
	fi
fi

# --- splice_record: trace-cmd record's data path ----------------------------
"$TOOLS/splice_record" -e raw_syscalls -b "$kb" -d $((secs + 2)) >"$tmp/s.out" 2>&1 &
spid=$!
sleep 0.5
load
wait $spid
read -r sread sover spct <<<"$(awk '/^total/ { print $3, $5, $7 }' "$tmp/s.out")"
if [ -n "${spct:-}" ]; then
	echo "bench live.lost_pct.anchor.splice_record $spct % (splice of whole pages, trace-cmd record's data path, -b $kb, same load; read $sread overrun $sover)"
	echo "bench live.events_seen.anchor.splice_record $sread events (same run)"
else
	echo "live_loss: splice_record failed: $(head -c 300 "$tmp/s.out")" >&2
fi

if ! "$TOOLS/tracestate" -x --diff "$tmp/state" >"$tmp/diff" 2>&1; then
	echo "live_loss: tracing state changed:" >&2
	cat "$tmp/diff" >&2
	"$TOOLS/tracestate" --restore "$tmp/state"
	exit 1
fi
