#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# The tasks model's figures, counted from a fixture's trace.txt (the kernel's
# own text of the same records), for tests/unit/test_tasks.c. One line per
# task:
#   task PID events N syscalls N switches N runq_ns N runq_n N offcpu_ns N
#        offcpu_n N cpu N state S
# events: lines with the task as TASK-PID; syscalls: its sys_enter lines;
# switches: sched_switch with it as prev_pid; run-queue wait: sched_wakeup(_new)
# -> its next switch-in, unless the wakeup came before its last switch-out;
# off-CPU: switch-out -> next switch-in (pid 0 has neither); cpu: the CPU of its
# last line or switch-in; state: prev_state at its last switch-out, or "run"
# after a switch-in ("-" when never switched). Times are the text's
# microseconds, in ns.
import gzip
import re
import sys

LINE = re.compile(r"^\s*(.*)-(\d+)\s+\[(\d+)\]\s+\S+\s+(\d+)\.(\d+): (\w+): (.*)$")


def kv(rest, key):
    m = re.search(r"(?:^| )" + key + r"=(\S+)", rest)
    return m.group(1) if m else None


def main():
    path = sys.argv[1]
    opener = gzip.open if path.endswith(".gz") else open
    tasks = {}

    def t(pid):
        if pid not in tasks:
            tasks[pid] = dict(events=0, syscalls=0, switches=0, runq_ns=0, runq_n=0,
                              offcpu_ns=0, offcpu_n=0, cpu=-1, state="-", off=0, wake=0)
        return tasks[pid]

    with opener(path, "rt") as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            pid, cpu = int(m.group(2)), int(m.group(3))
            ts = int(m.group(4)) * 1000000000 + int(m.group(5).ljust(6, "0")[:6]) * 1000
            ev, rest = m.group(6), m.group(7)
            me = t(pid)
            me["events"] += 1
            me["cpu"] = cpu
            if ev == "sys_enter":
                me["syscalls"] += 1
            elif ev == "sched_switch":
                prev, nxt = int(kv(rest, "prev_pid")), int(kv(rest, "next_pid"))
                p = t(prev)
                p["switches"] += 1
                p["state"] = kv(rest, "prev_state")
                p["cpu"] = cpu
                if prev:
                    p["off"] = ts
                n = t(nxt)
                n["state"] = "run"
                n["cpu"] = cpu
                if nxt:
                    off, wake = n["off"], n["wake"]
                    n["off"] = n["wake"] = 0
                    if wake and wake < off:
                        wake = 0
                    if off:
                        n["offcpu_ns"] += ts - off
                        n["offcpu_n"] += 1
                    if wake:
                        n["runq_ns"] += ts - wake
                        n["runq_n"] += 1
            elif ev in ("sched_wakeup", "sched_wakeup_new"):
                t(int(kv(rest, "pid")))["wake"] = ts
            elif ev == "sched_process_exit":
                t(int(kv(rest, "pid")))
    for pid in sorted(tasks):
        x = tasks[pid]
        print("task %d events %d syscalls %d switches %d runq_ns %d runq_n %d offcpu_ns %d "
              "offcpu_n %d cpu %d state %s" % (pid, x["events"], x["syscalls"], x["switches"],
                                              x["runq_ns"], x["runq_n"], x["offcpu_ns"],
                                              x["offcpu_n"], x["cpu"], x["state"]))


main()
