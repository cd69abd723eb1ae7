"""Peak memory of a command: its own process and its whole process tree (parser processes, git).

    .venv/bin/python bench/peak_rss.py OUT.json COMMAND [ARGS...]

`/usr/bin/time -v` reports the largest single process only; this samples the command's RSS and
the sum over it and all its descendants every 0.25 s (psutil, which `distributed` installs), and writes to OUT.json (and prints
without the timeline): wall seconds, CPU seconds of the children it waited for, the two peaks in
MiB, the load, and a timeline every 5 s of (seconds, process MiB, tree MiB) to see when the peak
comes. RSS counts a page every process maps (git's pack, the parser processes' shared libraries)
once per process; so every second it also sums the tree's PSS (`/proc/PID/smaps_rollup`, Linux),
which splits a shared page among its processes: `peak_tree_pss_mib` (null where the kernel has no
smaps_rollup). Used for BENCHMARKS.md's "#21 memory" with `bench/bugs_stage.py --stage history|bugs`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import psutil

PSS_EVERY = 1.0  # seconds between PSS sums: reading smaps_rollup walks each process's mappings


def pss(pid: int) -> int | None:
    """Proportional set size of one process in bytes, or None where smaps_rollup cannot be read."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        return None
    return None


def main() -> None:
    out, cmd = sys.argv[1], sys.argv[2:]
    if not cmd:
        sys.exit(__doc__)
    started, cpu = time.time(), os.times()
    proc = subprocess.Popen(cmd)
    p = psutil.Process(proc.pid)
    peak_main = peak_tree = 0
    peak_pss: int | None = None
    timeline: list[tuple[float, int, int]] = []
    last = last_pss = -PSS_EVERY
    while proc.poll() is None:
        try:
            main_rss = p.memory_info().rss
            tree = main_rss
            children = p.children(recursive=True)
            for c in children:
                try:
                    tree += c.memory_info().rss
                except psutil.Error:  # a child that ended between the listing and the read
                    pass
        except psutil.Error:
            break
        peak_main, peak_tree = max(peak_main, main_rss), max(peak_tree, tree)
        now = time.time() - started
        if now - last_pss >= PSS_EVERY:
            sizes = [pss(x) for x in [p.pid, *(c.pid for c in children)]]
            if sizes[0] is not None:  # a child gone since the listing counts 0
                peak_pss = max(peak_pss or 0, sum(x or 0 for x in sizes))
            last_pss = now
        if now - last >= 5:
            timeline.append((round(now, 1), main_rss >> 20, tree >> 20))
            last = now
        time.sleep(0.25)
    rc, done = proc.wait(), os.times()
    res = {"cmd": " ".join(cmd), "rc": rc, "wall_s": round(time.time() - started, 1),
           "cpu_children_s": round(done.children_user + done.children_system - cpu.children_user - cpu.children_system, 1),
           "peak_main_mib": peak_main >> 20, "peak_tree_mib": peak_tree >> 20,
           "peak_tree_pss_mib": None if peak_pss is None else peak_pss >> 20, "load": os.getloadavg(),
           "timeline_s_main_tree_mib": timeline}
    with open(out, "w") as f:
        json.dump(res, f)
    print(json.dumps({k: v for k, v in res.items() if k != "timeline_s_main_tree_mib"}))
    sys.exit(rc)


if __name__ == "__main__":
    main()
