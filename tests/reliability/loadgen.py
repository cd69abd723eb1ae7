"""A large synthetic repository written with one `git fast-import` stream, and an RSS sampler.

`generate(path, files, commits)`: the first `files` commits each add one Python file (one function
each, 500 files per package); the remaining commits each rewrite one of those files (one in 200 of them says it fixes a bug). Authors and
dates are fixed, so the repository is the same every time.
`peak_rss(cmd)`: run a command, sampling the resident memory of its whole process tree;
`stage_peaks(home, samples)`: those samples cut by the steps of the home's last `ltm ingest` runs.
"""

from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path

AUTHORS = [("Ada Lovelace", "ada@example.com"), ("Grace Hopper", "grace@example.com"), ("Alan Turing", "alan@example.com")]


def _source(i: int, version: int) -> bytes:
    return (
        f'"""Module {i}, version {version}."""\n\n\n'
        f"def handler_{i}(request, retries={version}):\n"
        f'    """Handle request kind {i % 97} with {version} retries."""\n'
        f"    return request + {i}\n"
    ).encode()


def generate(path: Path, files: int, commits: int) -> Path:
    """A repository at `path` with `files` files at HEAD and `commits` commits on `main`."""
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    proc = subprocess.Popen(["git", "fast-import", "--quiet"], cwd=path, stdin=subprocess.PIPE)
    assert proc.stdin is not None
    out = proc.stdin
    when = 1_600_000_000
    for n in range(commits):
        i = n if n < files else (n * 7919) % files
        version = 0 if n < files else n
        name, email = AUTHORS[n % len(AUTHORS)]
        # one change in 200 is a bug fix: realistic, and SZZ runs a `git blame` per fixed line
        verb = "Add" if n < files else ("Fix" if n % 200 == 0 else "Tune")
        msg = f"{verb} retries of handler {i}".encode()
        body = _source(i, version)
        out.write(b"commit refs/heads/main\n")
        out.write(f"author {name} <{email}> {when + 60 * n} +0000\n".encode())
        out.write(f"committer {name} <{email}> {when + 60 * n} +0000\n".encode())
        out.write(b"data %d\n%s\n" % (len(msg), msg))
        out.write(f"M 100644 inline pkg{i // 500:03d}/mod_{i:05d}.py\n".encode())
        out.write(b"data %d\n%s\n" % (len(body), body))
    out.close()
    if proc.wait() != 0:
        raise RuntimeError("git fast-import failed")
    subprocess.run(["git", "-C", str(path), "reset", "-q", "--hard"], check=True)
    return path


def _tree_rss_kb(root: int) -> int:
    """Resident memory (kB) of `root` and all its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        except OSError:
            continue
        pid, ppid = int(fields["Pid"]), int(fields["PPid"])
        children.setdefault(ppid, []).append(pid)
        rss[pid] = int(fields.get("VmRSS", "0 kB").split()[0])
    total, todo = 0, [root]
    while todo:
        p = todo.pop()
        total += rss.get(p, 0)
        todo.extend(children.get(p, []))
    return total


def peak_rss(cmd: list[str], **popen) -> tuple[int, float, subprocess.CompletedProcess, list[tuple[float, int]]]:
    """(peak tree RSS in MiB, seconds, result, samples) of running `cmd`; samples are
    (wall-clock time, tree RSS in MiB), one every 0.25 s."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)
    samples: list[tuple[float, int]] = []

    def sample() -> None:
        while proc.poll() is None:
            samples.append((time.time(), _tree_rss_kb(proc.pid) // 1024))
            time.sleep(0.25)

    t = threading.Thread(target=sample, daemon=True)
    t.start()
    out, err = proc.communicate()
    t.join()
    peak = max((rss for _, rss in samples), default=0)
    return peak, time.perf_counter() - started, subprocess.CompletedProcess(cmd, proc.returncode, out, err), samples


def stage_peaks(home: Path, samples: list[tuple[float, int]]) -> dict[str, dict[str, float]]:
    """Seconds and peak tree RSS (MiB) of each step of the home's last `ltm ingest` (its extraction
    runs and its stores run: the runs its process made), from the Dagster event log."""
    from dagster import DagsterInstance, RunsFilter

    with DagsterInstance.from_config(str(home / "dagster")) as instance:
        last = instance.get_runs(limit=1)[0]
        same = {k: v for k, v in last.tags.items() if k in ("ltm/pid", "ltm/process_start")}
        runs = instance.get_runs(filters=RunsFilter(tags=same)) if same else [last]
        steps = sorted((s for r in runs for s in instance.get_run_step_stats(r.run_id)), key=lambda s: s.start_time or 0)
    out = {}
    for s in steps:
        inside = [rss for when, rss in samples if s.start_time <= when <= s.end_time]
        out[s.step_key] = {"seconds": round(s.end_time - s.start_time, 1), "peak_rss_mib": max(inside, default=0)}
    return out
