#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/layers.sh: the layers of src/, as the build enforces them (the
# Makefile runs this before it archives the core library; a failure stops
# the build). Each folder of src/ is a subsystem; a file may include its own
# folder's headers and the headers of the folders BELOW its own in LAYERS,
# never one above, never a UI header, and never another folder's -local.h
# (a folder's private types). src/main.c, the program's entry, is above all.
#
#   tests/layers.sh            check, print what breaks a rule, exit 1 if any
#   tests/layers.sh --graph    print "FROM -> TO (includes)" for every pair

LAYERS="lib store funcfilter kernel ingest model probe bpfstats agg view formats recorder source app batch pcp"

# Pairs that break the order today, each with the reason it is tolerated.
# Empty this list; never add to it.
ALLOWED="source->app"

set -u
cd "$(dirname "$0")/.." || exit 2

rank() {
	i=0
	for l in $LAYERS; do
		[ "$l" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
	echo -1
}

bad=0
pairs=$(mktemp) || exit 2
trap 'rm -f "$pairs"' EXIT

for d in src/*/; do
	d=${d#src/}
	d=${d%/}
	rd=$(rank "$d")
	if [ "$rd" -lt 0 ]; then
		echo "layers: src/$d/ is not in LAYERS (tests/layers.sh): give it a place"
		bad=1
		continue
	fi
	for f in src/"$d"/*.[ch]; do
		[ -e "$f" ] || continue
		sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
		while read -r inc; do
			case $inc in
			*.skel.h|syscall_names.h) continue ;;		# generated in build/
			../../bpf/*.h) continue ;;			# types shared with bpf/
			../*|*/../*)
				echo "layers: $f includes \"$inc\": no paths out of src/"
				echo BAD >> "$pairs"; continue ;;
			*/*) to=${inc%%/*} ;;
			*)   to=$d ;;
			esac
			if [ "$to" = "$d" ]; then
				[ -e "src/$d/$inc" ] || [ -e "src/$inc" ] || {
					echo "layers: $f includes \"$inc\", which is not in src/$d/ (a UI header?)"
					echo BAD >> "$pairs"
				}
				continue
			fi
			echo "$d -> $to" >> "$pairs"
			rt=$(rank "$to")
			case $inc in
			*-local.h)
				echo "layers: $f includes \"$inc\": another folder's private header"
				echo BAD >> "$pairs"; continue ;;
			esac
			if [ "$rt" -lt 0 ]; then
				echo "layers: $f includes \"$inc\": no such subsystem"
				echo BAD >> "$pairs"
			elif [ "$rt" -gt "$rd" ]; then
				case " $ALLOWED " in
				*" $d->$to "*) ;;
				*)
					echo "layers: $f includes \"$inc\": $d/ is below $to/ (LAYERS in tests/layers.sh)"
					echo BAD >> "$pairs" ;;
				esac
			fi
		done
	done
done

if [ "${1:-}" = --graph ]; then
	grep -v '^BAD$' "$pairs" | sort | uniq -c | awk '{ printf "%s -> %s (%d)\n", $2, $4, $1 }'
fi
grep -q '^BAD$' "$pairs" && bad=1
exit $bad
