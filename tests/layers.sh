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
#   tests/layers.sh [src]      check, print what breaks a rule, exit 1 if any
#   tests/layers.sh --graph    print "FROM -> TO (includes)" for every pair
#
# ui/ has layers too (tests/layers.sh ui [OBJ...], run by the build before it
# archives the UI library; see ui_check below): ui/draw/ draws and knows
# nothing above it; ui/ itself is the frame and what panes share; ui/panes/
# and ui/prompts/ sit on both and never on each other. Given the objects, it
# also checks that no pane or prompt calls another's functions.

LAYERS="lib store funcfilter kernel ingest model probe bpfstats agg view formats recorder source app diff batch pcp"

# Pairs that break the order today, each with the reason it is tolerated.
# Empty this list; never add to it.
ALLOWED=""

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

# The includes of a file, one a line: the quoted ones only.
includes() {
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1"
}

#
# ui/, from the bottom up:
#   ui/draw/     the drawing library: the screen and its backends, rows of
#                attributed text, themes, the line editor, row formatting.
#                Includes src/ and its own folder: no struct ui, no pane.
#   ui/          the frame (frame.c), routing (route.c), the key table, the
#                models panes share (stats, the function_graph tree, walks
#                over the store), ui-local.h (what panes and prompts are).
#                Includes src/, draw/ and its own folder.
#   ui/panes/    one file per pane (pane_NAME.c), and helpers of panes.
#   ui/prompts/  one file per prompt. Both include src/, draw/ and ui/ (bare
#                names: "ui-local.h"), panes/ its own folder, never each other.
# A file names a header of draw/ as "draw/NAME.h" (its own folder's bare).
# A pane's or prompt's NAME-local.h (its state, which its tests read) is
# included by NAME.c alone.
# With objects: a pane or prompt (panes/pane_*.o, prompts/*.o) defines no
# global but its *_ops, and uses nothing another pane or prompt defines.
#
ui_check() {
	ubad=0
	for f in ui/*.[ch] ui/*/*.[ch]; do
		dir=${f%/*}
		case $f in
		ui/panes/*|ui/prompts/*) ;;
		*/pane_*|*/prompt_*)
			echo "layers: $f: a pane's file is in ui/panes/, a prompt's in ui/prompts/"
			ubad=1 ;;
		esac
		case $dir in
		ui/draw) may="src draw" ;;
		ui) may="src draw core" ;;
		ui/panes|ui/prompts) may="src draw core own" ;;
		*) echo "layers: $f: ui/${dir#ui/}/ is no layer of ui/ (tests/layers.sh)"
		   ubad=1; continue ;;
		esac
		for inc in $(includes "$f"); do
			case $inc in
			../*|*/../*) what=path ;;
			draw/*) what=draw; [ -e "ui/$inc" ] || what=missing ;;
			*/*) what=src; [ -d "src/${inc%%/*}" ] || what=other ;;
			*)
				if [ -e "$dir/$inc" ]; then
					what=own
					[ "$dir" = ui/draw ] && what=draw
					[ "$dir" = ui ] && what=core
				elif [ -e "ui/$inc" ]; then
					what=core
				else
					what=missing
				fi ;;
			esac
			case " $may " in
			*" $what "*) ;;
			*)
				echo "layers: $f includes \"$inc\": ${dir#ui/} may include only $may (tests/layers.sh)"
				ubad=1 ;;
			esac
			# a pane's or prompt's -local.h (its state, for its tests) is its own
			stem=${f##*/}
			case $what:$inc in
			own:*-local.h)
				[ "${inc%-local.h}" = "${stem%.[ch]}" ] || {
					echo "layers: $f includes \"$inc\": another pane's or prompt's state"
					ubad=1
				} ;;
			esac
		done
	done
	# the objects: what panes and prompts define, and what they use
	defs=$(mktemp) || exit 2
	for o in "$@"; do
		case $o in */ui/panes/pane_*.o|*/ui/prompts/*.o) ;; *) continue ;; esac
		nm -g --defined-only "$o" | awk -v o="$o" '$3 !~ /^(__|\.)/ { print o, $3 }'
	done > "$defs"
	while read -r o sym; do
		case $sym in
		*_ops) ;;
		*) echo "layers: ${o#*/} defines $sym: a pane or prompt exports its ops alone"
		   ubad=1 ;;
		esac
	done < "$defs"
	for o in "$@"; do
		case $o in */ui/panes/pane_*.o|*/ui/prompts/*.o) ;; *) continue ;; esac
		for sym in $(nm -u "$o" | awk '{ print $2 }'); do
			owner=$(awk -v s="$sym" '$2 == s { print $1 }' "$defs")
			[ -n "$owner" ] && [ "$owner" != "$o" ] && {
				echo "layers: ${o#*/} uses $sym of ${owner#*/}: ask the UI (ui_request) instead"
				ubad=1
			}
		done
	done
	rm -f "$defs"
	return $ubad
}

if [ "${1:-}" = ui ]; then
	shift
	ui_check "$@"
	exit $?
fi
[ "${1:-}" = src ] && shift

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
		includes "$f" |
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
