"""Peak memory of a command: its own process and its whole process tree (parser processes, git).

    .venv/bin/python bench/peak_rss.py OUT.json COMMAND [ARGS...]

`/usr/bin/time -v` reports the largest single process only; this samples the command's RSS and
the sum over it and all its descendants every 0.25 s (psutil, which `distributed` installs), and writes to OUT.json (and prints
without the timeline): wall seconds, CPU seconds of the children it waited for, the two peaks in
MiB, the load, and a timeline every 5 s of (seconds, process MiB, tree MiB) to see when the peak
comes. Used for BENCHMARKS.md's "#21 memory" with `bench/bugs_stage.py --stage history|bugs`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import psutil


def main() -> None:
    out, cmd = sys.argv[1], sys.argv[2:]
    if not cmd:
        sys.exit(__doc__)
    started, cpu = time.time(), os.times()
    proc = subprocess.Popen(cmd)
    p = psutil.Process(proc.pid)
    peak_main = peak_tree = 0
    timeline: list[tuple[float, int, int]] = []
    last = 0.0
    while proc.poll() is None:
        try:
            main_rss = p.memory_info().rss
            tree = main_rss
            for c in p.children(recursive=True):
                try:
                    tree += c.memory_info().rss
                except psutil.Error:  # a child that ended between the listing and the read
                    pass
        except psutil.Error:
            break
        peak_main, peak_tree = max(peak_main, main_rss), max(peak_tree, tree)
        now = time.time() - started
        if now - last >= 5:
            timeline.append((round(now, 1), main_rss >> 20, tree >> 20))
            last = now
        time.sleep(0.25)
    rc, done = proc.wait(), os.times()
    res = {"cmd": " ".join(cmd), "rc": rc, "wall_s": round(time.time() - started, 1),
           "cpu_children_s": round(done.children_user + done.children_system - cpu.children_user - cpu.children_system, 1),
           "peak_main_mib": peak_main >> 20, "peak_tree_mib": peak_tree >> 20, "load": os.getloadavg(),
           "timeline_s_main_tree_mib": timeline}
    with open(out, "w") as f:
        json.dump(res, f)
    print(json.dumps({k: v for k, v in res.items() if k != "timeline_s_main_tree_mib"}))
    sys.exit(rc)


if __name__ == "__main__":
    main()
