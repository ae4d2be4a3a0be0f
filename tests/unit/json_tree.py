#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Load a Chrome/Perfetto JSON trace written by ktop, check its structure, and
# print what tests/unit/test_export.c compares:
#   count PH N               events of each phase
#   path TID a/b/c           every B/E slice, with the names of the slices
#                            open above it on its track (outermost first)
#   dirty TID                the track has an irregular slice (an X for a
#                            call entered before the trace began, an E marked
#                            exit_missing or open)
# Exit status 1 (and a line "error ...") when the file does not load or B/E
# do not nest: an E whose name is not the innermost open B of its track.
import json
import sys

try:
    with open(sys.argv[1]) as f:
        doc = json.load(f)
except Exception as e:  # noqa: BLE001
    print("error load %s" % e)
    sys.exit(1)
counts = {}
stacks = {}
dirty = set()
for e in doc["traceEvents"]:
    ph = e["ph"]
    counts[ph] = counts.get(ph, 0) + 1
    if ph == "X":
        dirty.add(e["tid"])
    if ph not in ("B", "E"):
        continue
    st = stacks.setdefault(e["tid"], [])
    if ph == "B":
        st.append(e["name"])
        print("path %s %s" % (e["tid"], "/".join(st)))
        continue
    if not st or st[-1] != e["name"]:
        print("error nesting tid %s: E %s, open %s" % (e["tid"], e["name"], st[-1] if st else None))
        sys.exit(1)
    args = e.get("args", {})
    if args.get("exit_missing") or args.get("open"):
        dirty.add(e["tid"])
    st.pop()
for tid in sorted(dirty):
    print("dirty %s" % tid)
for ph in sorted(counts):
    print("count %s %d" % (ph, counts[ph]))
