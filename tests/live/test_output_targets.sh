#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# -o TARGET as root, offline on the recorded demo (the kernel is not touched):
#   - /dev/null stays the character device it was, same inode, for every
#     format;
#   - a FIFO gets the whole file (trace.dat, which ktop writes with
#     seeks, through a spool) byte for byte as a regular -o writes it;
#   - -o -, -o /dev/stdout and a link to /dev/fd/3 write into pipes, and
#     what comes out loads with ktop -i (or equals the regular trace.dat);
#   - a block device and a directory are refused and stay what they were; a
#     directory where no file can be made (sysfs) is refused before
#     tracing, with status 2;
#   - a link planted by another uid is refused and its target untouched; a
#     link root owns to a regular file replaces that file and stays a link;
#   - no temporary file is left next to any target.
# The /dev paths are those of a private /dev (a tmpfs in a mount namespace of
# its own, with its own null node and std* links): a ktop that renames over
# its target, as main did, must not replace the machine's /dev/null.
# Needs root (mknod, chown, unshare).

. "$(dirname "$0")/lib_ktop.sh"
need
demo=${KTOP_FIXTURES:-tests/fixtures}/demo.ktop
if [ "$(id -u)" != 0 ]; then
	echo "FAIL setup: needs root (mknod, chown)"
	exit 1
fi

# describe PATH: type, device numbers, inode, mode
describe() { stat -c '%F %t:%T %i %a' "$1" 2>&1; }
# leftovers: entries of $tmp/t that are temporaries of a target
leftovers() { ls -A "$tmp/t" | grep -E '\.[A-Za-z0-9]{6}$'; }
out() { "$KTOP" -i "$demo" --batch -o "$@"; }

mkdir "$tmp/t"
out "$tmp/ref.dat" >/dev/null 2>"$tmp/err" && out "$tmp/ref.json" >/dev/null 2>>"$tmp/err" ||
	{ fail "setup: a regular -o fails: $(cat "$tmp/err")"; finish; }

# in_dev CMD...: run CMD with a private /dev (null, null.EXT, fd, stdin, stdout, stderr)
in_dev() {
	unshare -m --propagation private bash -c 'mount -t tmpfs -o mode=755 ktop-dev /dev &&
		for n in null null.dat null.json null.txt null.csv; do
			mknod -m 666 /dev/$n c 1 3 || exit 1
		done && ln -s /proc/self/fd /dev/fd &&
		ln -s /proc/self/fd/0 /dev/stdin && ln -s /proc/self/fd/1 /dev/stdout &&
		ln -s /proc/self/fd/2 /dev/stderr && exec "$@"' in_dev "$@"
}

# 1. /dev/null, every format (the format comes from the name: /dev/null.EXT,
#    made the same way, for the others)
for ext in ktop dat json txt csv; do
	f=/dev/null.$ext
	[ $ext = ktop ] && f=/dev/null
	res=$(in_dev bash -c 'before=$(stat -c "%F %t:%T %i %a" "$3")
		"$1" -i "$2" --batch -o "$3" >/dev/null 2>"$4"
		rc=$?
		echo "$rc|$before|$(stat -c "%F %t:%T %i %a" "$3")|$(ls -A /dev | tr "\n" " ")"' \
		_ "$KTOP" "$demo" "$f" "$tmp/err")
	IFS='|' read -r rc before after devls <<<"$res"
	if [ "$rc" = 0 ] && [ -n "$before" ] && [ "$before" = "$after" ] &&
	   [ "$devls" = "fd null null.csv null.dat null.json null.txt stderr stdin stdout " ]; then
		ok "o_dev_null_stays_a_device $f ($after)"
	else
		fail "o_dev_null_stays_a_device $f: rc $rc, '$before' -> '$after', /dev: $devls $(cat "$tmp/err")"
	fi
done

# 2. FIFOs: the reader gets the same bytes as a regular file holds
for ext in dat json; do
	f=$tmp/t/pipe.$ext
	mkfifo "$f"
	timeout 60 cat "$f" >"$tmp/got.$ext" &
	reader=$!
	timeout 60 "$KTOP" -i "$demo" --batch -o "$f" >/dev/null 2>"$tmp/err"
	rc=$?
	# a ktop that renamed over the FIFO never opened it: release the reader
	[ -p "$f" ] || kill $reader 2>/dev/null
	wait $reader
	if [ $rc -eq 0 ] && [ -p "$f" ] && cmp -s "$tmp/got.$ext" "$tmp/ref.$ext"; then
		ok "o_fifo_gets_the_whole_file .$ext ($(stat -c %s "$tmp/got.$ext") bytes)"
	else
		fail "o_fifo_gets_the_whole_file .$ext: rc $rc, $(describe "$f"), $(cat "$tmp/err")"
	fi
done

# 3. standard output and /dev/stderr into pipes
out - 2>"$tmp/err" | python3 -c 'import sys
b = sys.stdin.buffer.read()
i = b.find(b"KTOPSNAP")
sys.stdout.buffer.write(b[i:] if i >= 0 else b"")' >"$tmp/dash.ktop"
if [ -s "$tmp/dash.ktop" ] && "$KTOP" -i "$tmp/dash.ktop" --batch >/dev/null 2>>"$tmp/err"; then
	ok "o_dash_writes_a_loadable_ktop_to_a_pipe ($(stat -c %s "$tmp/dash.ktop") bytes)"
else
	fail "o_dash_writes_a_loadable_ktop_to_a_pipe: $(cat "$tmp/err")"
fi
ln -s /dev/fd/3 "$tmp/t/fd3.dat"
in_dev "$KTOP" -i "$demo" --batch -o "$tmp/t/fd3.dat" 3>&1 >/dev/null 2>"$tmp/err" |
	cat >"$tmp/fd3.dat"
if cmp -s "$tmp/fd3.dat" "$tmp/ref.dat" && [ -L "$tmp/t/fd3.dat" ]; then
	ok "o_link_to_dev_fd_writes_trace_dat_into_the_pipe"
else
	fail "o_link_to_dev_fd_writes_trace_dat_into_the_pipe: $(head -c 200 "$tmp/fd3.dat" | tr -cd '[:print:]') $(cat "$tmp/err")"
fi
in_dev bash -c '"$1" -i "$2" --batch -o /dev/stdout 2>"$3"; [ -L /dev/stdout ] || echo NOLINK' \
	_ "$KTOP" "$demo" "$tmp/err" | python3 -c 'import sys
b = sys.stdin.buffer.read()
i = b.find(b"KTOPSNAP")
sys.stdout.buffer.write(b[i:] if i >= 0 and not b.endswith(b"NOLINK\n") else b"")' \
	>"$tmp/stdout.ktop"
if [ -s "$tmp/stdout.ktop" ] && "$KTOP" -i "$tmp/stdout.ktop" --batch >/dev/null 2>>"$tmp/err"; then
	ok "o_dev_stdout_writes_a_loadable_ktop_to_a_pipe"
else
	fail "o_dev_stdout_writes_a_loadable_ktop_to_a_pipe: $(cat "$tmp/err")"
fi

# 4. refused targets stay as they were
mknod "$tmp/t/blk" b 7 200
before=$(describe "$tmp/t/blk")
out "$tmp/t/blk" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -eq 2 ] && [ "$(describe "$tmp/t/blk")" = "$before" ] && grep -q 'block device' "$tmp/err"; then
	ok "o_block_device_refused ($(cat "$tmp/err"))"
else
	fail "o_block_device_refused: rc $rc, '$before' -> '$(describe "$tmp/t/blk")' $(cat "$tmp/err")"
fi
mkdir "$tmp/t/adir"
out "$tmp/t/adir" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ -d "$tmp/t/adir" ] && ok "o_directory_refused" ||
	fail "o_directory_refused: rc $rc $(cat "$tmp/err")"
# a live run with a target -o refuses is refused before it traces, not at the end
t0=$(date +%s%N)
"$KTOP" --batch --duration 5 -o "$tmp/t/adir" >"$tmp/out" 2>"$tmp/err"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
if [ $rc -eq 2 ] && [ $ms -lt 2000 ] && ! grep -q 'Events:' "$tmp/out" &&
   grep -q 'is a directory' "$tmp/err"; then
	ok "o_refused_before_tracing (${ms} ms: $(cat "$tmp/err"))"
else
	fail "o_refused_before_tracing: rc $rc after ${ms} ms, $(head -c 200 "$tmp/out") $(cat "$tmp/err")"
fi

# a directory where root may write by its mode but no file can be made
# (sysfs, issue 31 #10: access() says yes to root there): the temporary file
# is made and removed at the start, so the refusal comes before tracing,
# with status 2 (it came after the whole run, with status 1)
t0=$(date +%s%N)
"$KTOP" --batch --duration 2 -o "/sys/kernel/ktop-test-$$.ktop" >"$tmp/out" 2>"$tmp/err"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
if [ $rc -eq 2 ] && [ $ms -lt 1500 ] && ! grep -q 'Events:' "$tmp/out" &&
   grep -q 'cannot create a file in /sys/kernel' "$tmp/err" &&
   ! ls /sys/kernel | grep -q "ktop-test-$$"; then
	ok "o_unwritable_directory_refused_before_tracing (${ms} ms: $(cat "$tmp/err"))"
else
	fail "o_unwritable_directory_refused_before_tracing: rc $rc after ${ms} ms," \
		"$(head -c 200 "$tmp/out") $(cat "$tmp/err")"
fi

# 5. links: another uid's is not followed; root's to a regular file is
echo precious >"$tmp/victim"
ln -s "$tmp/victim" "$tmp/t/planted.ktop"
chown -h 65534:65534 "$tmp/t/planted.ktop"
out "$tmp/t/planted.ktop" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -eq 2 ] && [ "$(cat "$tmp/victim")" = precious ] && [ -L "$tmp/t/planted.ktop" ] &&
   grep -q 'owned by uid 65534' "$tmp/err"; then
	ok "o_link_of_another_uid_refused ($(cat "$tmp/err"))"
else
	fail "o_link_of_another_uid_refused: rc $rc, victim '$(head -c 20 "$tmp/victim")' $(cat "$tmp/err")"
fi
echo old >"$tmp/real.dat"
ln -s "$tmp/real.dat" "$tmp/t/ours.dat"
out "$tmp/t/ours.dat" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ] && [ -L "$tmp/t/ours.dat" ] && cmp -s "$tmp/real.dat" "$tmp/ref.dat" &&
   [ "$(stat -c %a "$tmp/real.dat")" = 600 ]; then
	ok "o_link_of_root_replaces_the_file_it_names"
else
	fail "o_link_of_root_replaces_the_file_it_names: rc $rc $(cat "$tmp/err")"
fi

left=$(leftovers)
[ -z "$left" ] && ok "no_temporary_files_left" || fail "no_temporary_files_left: $left"
finish
