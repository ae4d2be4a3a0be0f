#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Hostile or broken input, offline (issue 14, findings 6 and 7):
#   - -m bounds memory whatever a file or stream holds: each kind of
#     build/tools/snapshot_bomb file (lost-event marks in a 74 KB file that
#     decompress to 768 MB, marks at a 10000:1 ratio, 3.6 million ordinary
#     marks, a comm for every 4096th pid, 500k strings, 65472 event types,
#     4096 CPUs, one 16 MiB block that does not compress), read with -m 1M
#     from the file and from standard input, ends within 2 s, with a peak
#     RSS under -m plus 48 MiB (the reader's two block buffers are 32 MiB of
#     it), and is refused (exit 2, a message naming the input) or read whole
#     with the oldest marks evicted, every lost event still counted and the
#     store's own count of its memory within -m;
#   - a truncated stream on `-i -` is bad input as a truncated file is: exit
#     status 2 and the same message, naming standard input;
#   - a trace.dat export writes from memory (src/formats/tracedat_write.c):
#     while it runs, the only files it has open are its input and the
#     output's temporary beside the output (no tree of files in /tmp, as the
#     libtracecmd writer needed); a SIGKILL leaves no file under the output's
#     name, and the next export writes a whole file.
# No root and no tracefs needed. Prints "ok NAME" / "FAIL NAME: why", then
# "N passed, N failed".

. "$(dirname "$0")/lib_ktop.sh"
need snapshot_tool snapshot_bomb
if [ ! -x /usr/bin/time ]; then
	echo "FAIL setup: /usr/bin/time (GNU time, Debian package time) is not installed (make deps)"
	exit 1
fi
T=$TOOLS/snapshot_tool
DEMO=tests/fixtures/demo.ktop
BOUND_KB=$(((1 + 48) * 1024))	# -m 1M plus the stated 48 MiB

# measure OUT IN ARGS...: run ktop ARGS with stdin from IN; OUT gets
# "STATUS WALL_S MAXRSS_KB" (GNU time: its own fork is a megabyte or two, where
# a shell's or python's would add theirs to the child's peak before the exec);
# stdout and stderr go to $tmp/m.out and $tmp/m.err
measure() {
	local out=$1 in=$2
	shift 2
	/usr/bin/time -o "$out" -f '%x %e %M' timeout 60 "$@" <"$in" >"$tmp/m.out" 2>"$tmp/m.err"
	tail -n 1 "$out" >"$out.last" && mv "$out.last" "$out"
}

# ---- memory bombs: bounded by -m, quickly ------------------------------------

for kind in lost64 lost16 lostmild bigblock comm strings schema cpus; do
	if ! "$TOOLS/snapshot_bomb" "$kind" "$tmp/bomb.ktop" >"$tmp/bomb.want" 2>"$tmp/err"; then
		fail "snapshot_bomb $kind: $(cat "$tmp/err")"
		continue
	fi
	size=$(stat -c %s "$tmp/bomb.ktop")
	for src in file stdin; do
		name="bomb $kind ($size bytes) from the $src, -m 1M"
		if [ $src = file ]; then
			measure "$tmp/m" /dev/null "$KTOP" -i "$tmp/bomb.ktop" -m 1M --batch --iterations 1
			who=$tmp/bomb.ktop
		else
			measure "$tmp/m" "$tmp/bomb.ktop" "$KTOP" -i - -m 1M --batch --iterations 1
			who="standard input"
		fi
		read -r rc secs rss <"$tmp/m"
		ms=$(echo "$secs" | awk '{ printf "%d", $1 * 1000 }')
		msg=$(head -c 300 "$tmp/m.err")
		lost=$(sed -n 's/^Lost: .* \([0-9]*\) since start$/\1/p' "$tmp/m.out" | tail -1)
		want=$(sed -n 's/.* lost \([0-9]*\)$/\1/p' "$tmp/bomb.want")
		why=
		[ "$ms" -le 2000 ] || why="$why; took $ms ms"
		[ "$rss" -le $BOUND_KB ] || why="$why; peak RSS $rss KiB over $BOUND_KB"
		case $kind in
		lostmild | bigblock | cpus)
			[ "$rc" -eq 0 ] || why="$why; exit $rc, want 0: $msg"
			[ "${lost:-x}" = "$want" ] || why="$why; $lost lost events counted, want $want"
			pct=$(sed -n 's/^Store: .* (\([0-9.]*\)%).*/\1/p' "$tmp/m.out" | tail -1)
			awk -v p="${pct:-999}" 'BEGIN { exit !(p <= 100) }' ||
				why="$why; the store says it uses more than -m: $(grep '^Store:' "$tmp/m.out")"
			if [ $kind = lostmild ] && ! grep -q 'evicted (and [0-9]* lost-event marks)' "$tmp/m.out"; then
				why="$why; no marks evicted: $(grep '^Store:' "$tmp/m.out")"
			fi
			;;
		*)
			[ "$rc" -eq 2 ] || why="$why; exit $rc, want 2 (refused)"
			case "$msg" in
			"ktop: $who: "*) ;;
			*) why="$why; message does not name $who: '$msg'" ;;
			esac
			;;
		esac
		if [ -n "$why" ]; then
			fail "$name: ${why#; }"
		else
			ok "$name: exit $rc in $ms ms, peak RSS $((rss / 1024)) MiB${msg:+: $(echo "$msg" | cut -c1-110)}"
		fi
	done
done
rm -f "$tmp/bomb.ktop"

# ---- a truncated stream: exit 2, as a truncated file --------------------------

head -c 20000 "$DEMO" >"$tmp/trunc.ktop"
timeout 20 "$KTOP" -i "$tmp/trunc.ktop" --batch >/dev/null 2>"$tmp/file.err"
rcf=$?
timeout 20 "$KTOP" -i - --batch <"$tmp/trunc.ktop" >/dev/null 2>"$tmp/stream.err"
rcs=$?
msgf=$(sed "s|$tmp/trunc.ktop|NAME|" "$tmp/file.err")
msgs=$(sed "s|standard input|NAME|" "$tmp/stream.err")
if [ $rcf -eq 2 ] && [ $rcs -eq 2 ] && [ "$msgf" = "$msgs" ] && grep -q '^ktop: standard input: truncated' "$tmp/stream.err"; then
	ok "truncated -i - and truncated file: both exit 2, '$(cat "$tmp/stream.err")'"
else
	fail "truncated: file exit $rcf '$(cat "$tmp/file.err")', stream exit $rcs '$(cat "$tmp/stream.err")'"
fi

# ---- a trace.dat export: no temporary tree, nothing left by a SIGKILL ----------

"$T" replicate "$DEMO" "$tmp/big.ktop" 2000000 >/dev/null 2>&1
mkdir -p "$tmp/out"
"$KTOP" -i "$tmp/big.ktop" --batch -o "$tmp/out/big.dat" >/dev/null 2>&1 &
kpid=$!
# the files it has open, sampled until the output's temporary shows
seen= others=
for ((i = 0; i < 400; i++)); do
	open=$(ls -l /proc/$kpid/fd 2>/dev/null | sed -n 's|.* -> \(/.*\)|\1|p' |
		grep -v '^/dev/\|^/proc/\|^pipe:\|^socket:\|^anon_inode:')
	others=$(echo "$open" | grep -v "^$tmp/big.ktop\$\|^$tmp/out\$\|^$tmp/out/big.dat\.[A-Za-z0-9]*\$" |
		grep . | head -n 3 | tr '\n' ' ')
	[ -n "$others" ] && break
	echo "$open" | grep -q "^$tmp/out/big.dat\." && seen=1 && break
	sleep 0.02
done
kill -KILL $kpid 2>/dev/null
wait $kpid 2>/dev/null
if [ -n "$others" ]; then
	fail "trace.dat export: files open besides its input and output: $others"
elif [ -z "$seen" ]; then
	fail "trace.dat export: its output's temporary never showed (the test cannot tell)"
else
	ok "trace.dat export: only its input, the output's directory and temporary open, no files in /tmp"
fi
if [ -e "$tmp/out/big.dat" ]; then
	fail "a SIGKILL during a trace.dat export left a file under the output's name"
else
	ok "a SIGKILL during a trace.dat export leaves nothing under the output's name"
fi
rm -f "$tmp"/out/big.dat*
timeout 20 "$KTOP" -i "$DEMO" --batch -o "$tmp/small.dat" >/dev/null 2>"$tmp/err"
rc=$?
n=$("$T" load "$tmp/small.dat" 2>&1 | awk '{ print $2 }')
if [ $rc -ne 0 ] || [ "${n:-0}" -le 0 ]; then
	fail "the next trace.dat export: exit $rc, ${n:-no} events: $(cat "$tmp/err")"
else
	ok "the next trace.dat export writes a whole file ($n events)"
fi

finish
