"""Cold `ltm ingest --embedder hash` beside GitNexus's cold `analyze`, one command at a time, alternating.

    .venv/bin/python bench/peer_gitnexus.py --gitnexus /tmp/gn/node_modules/.bin/gitnexus \
        /tmp/requests /tmp/src-flask /tmp/src-express /tmp/src-gin [--rounds 2] [--before DIR]

GitNexus is not a dependency of this project: install it into a folder of its own
(`npm install gitnexus@1.6.12` in /tmp/gn) and pass its `bin`. For every repository and round,
each contender runs once, cold, on its own fresh `git clone` (made before the clock starts, so
GitNexus's `.gitnexus/` and the files it writes never touch the path given), in a fresh home:
  gitnexus     `gitnexus analyze` with HOME set to an empty folder (its registry lives there):
               HEAD only, no history, no embeddings
  ltm          `python -m cli ingest CLONE --home NEW --embedder hash` from this checkout
  ltm-before   the same with PYTHONPATH=DIR (a `git worktree add --detach DIR main`), when given
  ltm-head     with `--head-only`: the same as `ltm` with `--max-commits 1`, the work GitNexus does (the code
               at HEAD parsed, resolved, in a graph and a vector store) without the history's other commits
               and their fixes; `ltm` minus `ltm-head` is what mining the history costs
The order of the contenders rotates every round so a load that changes slowly falls on each of
them alike. Each figure is wall seconds and CPU seconds (user + system of the command and the
processes it waited for, from `os.wait4`), with the load average before it; the ltm runs also
give each stage's seconds (their `--json` events). Prints one JSON object per run, then a summary:
per repository and contender the median wall and CPU seconds and the ratio to GitNexus.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _timed(cmd: list[str], env: dict[str, str], cwd: Path, out: Path) -> dict:
    """Wall and CPU seconds and peak RSS of one command (its stdout kept in `out`)."""
    load = os.getloadavg()[0]
    started = time.perf_counter()
    with out.open("wb") as sink:
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=sink, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        tail = out.read_text(errors="replace")[-2000:]
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{tail}")
    return {"wall_s": round(wall, 2), "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
            "peak_rss_mb": round(usage.ru_maxrss / 1024), "load_before": round(load, 2),
            "load_after": round(os.getloadavg()[0], 2)}


def _stages(events: Path) -> dict[str, float]:
    """Each asset's `seconds` from the `--json` events of one `ltm ingest`."""
    out = {}
    for line in events.read_text(errors="replace").splitlines():
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if e.get("event") == "stage" and "seconds" in (e.get("metadata") or {}):
            out[e["stage"]] = e["metadata"]["seconds"]
    return out


def run_one(contender: str, repo: Path, work: Path, gitnexus: str, before: Path | None) -> dict:
    clone = work / "clone"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    env = {**os.environ}
    if contender == "gitnexus":
        (work / "gnhome").mkdir()
        env["HOME"] = str(work / "gnhome")
        fig = _timed([gitnexus, "analyze", str(clone)], env, clone, work / "out.txt")
    else:
        env["PYTHONPATH"] = str(before if contender == "ltm-before" else ROOT)
        cmd = [sys.executable, "-m", "cli", "ingest", str(clone), "--home", str(work / "home"), "--embedder", "hash",
               "--json", *(["--max-commits", "1"] if contender == "ltm-head" else [])]
        fig = _timed(cmd, env, Path(env["PYTHONPATH"]), work / "out.txt")
        fig["stages"] = _stages(work / "out.txt")
    return {"repo": repo.name, "contender": contender, **fig}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repos", nargs="+", type=Path)
    ap.add_argument("--gitnexus", required=True, help="the gitnexus executable (node_modules/.bin/gitnexus)")
    ap.add_argument("--before", type=Path, default=None, help="a checkout to run as `ltm-before` (PYTHONPATH)")
    ap.add_argument("--head-only", action="store_true", help="also run `ltm-head`: HEAD's code only (`--max-commits 1`)")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--rotate", type=int, default=0, help="start the rotation of the order this many places on "
                    "(a later invocation continues an earlier one's alternation)")
    args = ap.parse_args()
    contenders = ["gitnexus", "ltm", *(["ltm-before"] if args.before else []), *(["ltm-head"] if args.head_only else [])]
    runs: list[dict] = []
    for rnd in range(args.rounds):
        for i, repo in enumerate(args.repos):
            shift = (rnd + i + args.rotate) % len(contenders)
            for contender in contenders[shift:] + contenders[:shift]:
                with tempfile.TemporaryDirectory(prefix="peer-") as tmp:
                    fig = run_one(contender, repo.resolve(), Path(tmp), args.gitnexus, args.before)
                fig["round"] = rnd + 1
                runs.append(fig)
                print(json.dumps(fig), flush=True)
    summary = {}
    for repo in args.repos:
        row = {}
        for c in contenders:
            mine = [r for r in runs if r["repo"] == repo.name and r["contender"] == c]
            row[c] = {"wall_s": statistics.median(r["wall_s"] for r in mine),
                      "cpu_s": statistics.median(r["cpu_s"] for r in mine),
                      "loads": [r["load_before"] for r in mine]}
        for c in contenders[1:]:
            row[c]["wall_vs_gitnexus"] = round(row[c]["wall_s"] / row["gitnexus"]["wall_s"], 2)
        summary[repo.name] = row
    print(json.dumps({"summary": summary}, indent=1))


if __name__ == "__main__":
    main()
