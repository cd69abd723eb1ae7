"""History + function-level MODIFIES against the raw `git log` floor and PyDriller, in one run.

    .venv/bin/pip install -e '.[bench]'      # pydriller (and lizard)
    .venv/bin/python bench/history.py PATH [--max-commits N] [--workers W] [--skip-pydriller] [--incremental]

On the same newest N commits (all when N is not given) it times:
  floor      `git log` with our exact flags (-p -U0 --raw -M -C --diff-merges=first-parent) to /dev/null
  ours       `mine_history`: commits, file changes, MODIFIES (cold: an empty span cache)
  pydriller  `Repository(order="reverse")`, every modified file's `changed_methods`
and prints one JSON object: seconds (wall and CPU of this process and its reaped children; use
`--workers 1` for CPU figures, a pool's workers are not counted), commits per second, the ratios,
and the agreement on
changed functions, Jaccard over (commit, file, name). Names are compared as lizard names them
for Python (the function's own name; nested functions carry their enclosing function's name).
Disagreements are classified; `--examples` prints a few of each class. `--incremental` also times
the commits stage on a clone: a full mine at HEAD~3, a run with nothing new, a run after the 3
newest commits, and checks the incremental lake equals a full mine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import time
from collections import Counter, defaultdict
from pathlib import Path

from ltm.extract.changes import log_args
from ltm.extract.gitrepo import GitRepo
from ltm.extract.history import mine_history
from ltm.extract.languages import language_for
from ltm.extract.spans import SpanCache, spans_of

KEY = "bench"


def cpu() -> float:
    """CPU seconds of this process and its reaped children (git; not a forkserver pool's workers)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def floor(repo: GitRepo, n: int | None) -> float:
    started = time.perf_counter()
    args = ["git", "-C", str(repo.path), "-c", "core.quotepath=off", *log_args("HEAD", max_commits=n)]
    subprocess.run(args, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def ours(repo: GitRepo, n: int | None, workers: int) -> tuple[float, dict]:
    started = time.perf_counter()
    out = mine_history(repo, KEY, "HEAD", cache=SpanCache(None), max_commits=n, workers=workers)
    seconds = time.perf_counter() - started
    prefix = f"fn:{KEY}:"
    changed = set()
    for m in out.modifies:
        if m["dst_label"] == "Function":
            path, _, qualified = m["dst"].removeprefix(prefix).rpartition(":")
            changed.add((m["src"].rpartition(":")[2], path, qualified))
    parents = Counter(child for _, child in out.parents)
    merges = {sha for sha, k in parents.items() if k > 1}
    return seconds, {"commits": [c["sha"] for c in out.commits], "changed": changed, "merges": merges,
                     "blobs_parsed": out.blobs_parsed, "file_changes": out.file_changes}


def pydriller(path: Path, n: int | None) -> tuple[float, dict]:
    from pydriller import Repository

    started = time.perf_counter()
    commits, changed, known, merges = [], set(), defaultdict(set), set()
    for c in Repository(str(path), order="reverse").traverse_commits():
        commits.append(c.hash)
        if c.merge:
            merges.add(c.hash)
        for f in c.modified_files:
            p = f.new_path or f.old_path
            for m in f.changed_methods:
                changed.add((c.hash, p, m.name))
            if language_for(p) is not None and language_for(p).name == "python":
                known[(c.hash, p)] |= {m.name for m in f.methods} | {m.name for m in f.methods_before}
        if n is not None and len(commits) >= n:
            break
    return time.perf_counter() - started, {"commits": commits, "changed": changed, "known": known, "merges": merges}


def lizard_name(qualified: str, kinds: dict[str, str]) -> str:
    """`Session.request.inner` -> `request.inner`: lizard drops class names, keeps enclosing functions."""
    parts = qualified.split(".")
    keep = [p for i, p in enumerate(parts) if kinds.get(".".join(parts[: i + 1])) != "class"]
    return ".".join(keep)


def compare(repo: GitRepo, mine: dict, theirs: dict, examples: int) -> dict:
    common = set(mine["commits"]) & set(theirs["commits"])
    # Our qualified names in lizard's form, from the spans of the blobs involved.
    kinds_of: dict[tuple[str, str], dict[str, str]] = {}
    ours_names: dict[tuple[str, str], set[str]] = defaultdict(set)
    with repo.blobs() as blobs:
        for fc in mine["file_changes"]:
            spec = language_for(fc["path"])
            if fc["sha"] not in common or spec is None or spec.name != "python" or fc["binary"]:
                continue
            kinds: dict[str, str] = {}
            for blob in (fc["old_blob"], fc["new_blob"]):
                if blob:
                    for s in spans_of(spec, blobs.read(blob)):
                        kinds.setdefault(s.qualified_name, s.kind)
            kinds_of[(fc["sha"], fc["path"])] = kinds
            ours_names[(fc["sha"], fc["path"])] = {lizard_name(q, kinds) for q, k in kinds.items() if k == "function"}
    a = {(c, p, lizard_name(q, kinds_of.get((c, p), {}))) for c, p, q in mine["changed"]
         if c in common and language_for(p) is not None and language_for(p).name == "python"}
    b = {t for t in theirs["changed"] if t[0] in common and language_for(t[1]) is not None
         and language_for(t[1]).name == "python"}
    classes: Counter = Counter()
    shown: dict[str, list] = defaultdict(list)
    for side, items in (("ours_only", a - b), ("pydriller_only", b - a)):
        for c, p, name in sorted(items):
            if c in theirs["merges"] or c in mine["merges"]:
                why = "merge commit (PyDriller lists no modified files for merges)"
            elif side == "ours_only" and name not in theirs["known"].get((c, p), set()):
                why = "entity lizard does not report (nested class method, unusual syntax, lizard parse)"
            elif side == "pydriller_only" and name not in ours_names.get((c, p), set()):
                why = "entity our query does not capture"
            else:
                why = "both see the entity; spans differ (decorators, comments, lizard's end line)"
            key = f"{side}: {why}"
            classes[key] += 1
            if len(shown[key]) < examples:
                shown[key].append([c[:10], p, name])
    union = a | b
    no_merge = {t for t in union if t[0] not in theirs["merges"]}
    return {
        "commits_compared": len(common),
        "ours": len(a), "pydriller": len(b), "both": len(a & b),
        "jaccard": round(len(a & b) / len(union), 4) if union else 1.0,
        "jaccard_without_merges": round(len(a & b & no_merge) / len(no_merge), 4) if no_merge else 1.0,
        "disagreements": dict(classes.most_common()),
        **({"examples": dict(shown)} if examples else {}),
    }


def incremental(path: Path, new_commits: int = 3) -> dict:
    """Mine a clone at HEAD~n, again with nothing new, then after the n newest commits arrive."""
    import tempfile

    from ltm.history_stage import stage_history
    from ltm.lake import Lake

    with tempfile.TemporaryDirectory() as tmp:
        clone = Path(tmp) / "clone"
        subprocess.run(["git", "clone", "-q", str(path), str(clone)], check=True)
        head = subprocess.run(["git", "-C", str(clone), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
        older = subprocess.run(["git", "-C", str(clone), "rev-parse", f"HEAD~{new_commits}"], capture_output=True,
                               text=True, check=True).stdout.strip()
        subprocess.run(["git", "-C", str(clone), "reset", "-q", "--hard", older], check=True)
        lake, cache = Lake(Path(tmp) / "lake"), Path(tmp) / "cache"
        first = stage_history(clone, KEY, lake, cache)
        before = lake.read("MODIFIES", KEY).num_rows
        again = stage_history(clone, KEY, lake, cache)
        subprocess.run(["git", "-C", str(clone), "reset", "-q", "--hard", head], check=True)
        inc = stage_history(clone, KEY, lake, cache)
        full = Lake(Path(tmp) / "full")
        stage_history(clone, KEY, full, None)
        same = all(
            sorted(map(str, lake.read(t, KEY).to_pylist())) == sorted(map(str, full.read(t, KEY).to_pylist()))
            for t in ("Commit", "PARENT_OF", "MODIFIES", "RENAMED_FROM", "file_changes")
        )
        added = lake.read("MODIFIES", KEY).num_rows - before
    return {
        "full_s": round(first.seconds, 2), "full_commits": first.commits_mined,
        "no_new_commits_s": round(again.seconds, 3), "no_new_commits_mode": again.mode,
        "no_new_commits_mined": again.commits_mined,
        "after_new_s": round(inc.seconds, 2), "after_new_mode": inc.mode, "after_new_mined": inc.commits_mined,
        "modifies_rows_added": added,
        "incremental_lake_equals_full_mine": same,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repo", type=Path)
    ap.add_argument("--max-commits", type=int, default=None, help="the newest N commits (default: all)")
    ap.add_argument("--workers", type=int, default=min(4, os.cpu_count() or 1), help="parse processes for ours")
    ap.add_argument("--skip-pydriller", action="store_true")
    ap.add_argument("--incremental", action="store_true", help="also time a run with nothing new and one after 3 commits")
    ap.add_argument("--examples", type=int, default=0, help="disagreement examples to print per class")
    args = ap.parse_args()
    repo = GitRepo(args.repo)
    load = os.getloadavg()
    c0 = cpu()
    floor_s = floor(repo, args.max_commits)
    c1 = cpu()
    ours_s, mine = ours(repo, args.max_commits, args.workers)
    c2 = cpu()
    n = len(mine["commits"])
    result: dict = {
        "repo": str(args.repo), "commits": n, "workers": args.workers, "cpus": os.cpu_count(),
        "load_before": [round(x, 2) for x in load],
        "floor_s": round(floor_s, 2), "ours_s": round(ours_s, 2),
        "floor_commits_per_s": round(n / floor_s, 1), "ours_commits_per_s": round(n / ours_s, 1),
        "ours_vs_floor": round(ours_s / floor_s, 2), "blobs_parsed": mine["blobs_parsed"],
        "floor_cpu_s": round(c1 - c0, 2), "ours_cpu_s": round(c2 - c1, 2),
        "ours_vs_floor_cpu": round((c2 - c1) / max(c1 - c0, 1e-9), 2),
    }
    if not args.skip_pydriller:
        c3 = cpu()
        py_s, theirs = pydriller(args.repo, args.max_commits)
        py_cpu = cpu() - c3
        result.update({
            "pydriller_cpu_s": round(py_cpu, 2),
            "ours_speedup_vs_pydriller_cpu": round(py_cpu / max(c2 - c1, 1e-9), 1),
            "pydriller_s": round(py_s, 2), "pydriller_commits_per_s": round(len(theirs["commits"]) / py_s, 1),
            "ours_speedup_vs_pydriller": round((n / ours_s) / (len(theirs["commits"]) / py_s), 1),
            "agreement": compare(repo, mine, theirs, args.examples),
        })
    if args.incremental:
        result["incremental"] = incremental(args.repo)
    result["load_after"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
