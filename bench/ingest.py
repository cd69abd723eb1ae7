"""Time one full ingest of a repository, stage by stage, against the raw `git log` floor.

    .venv/bin/python bench/ingest.py PATH [--embedder hash|local]
    .venv/bin/python bench/ingest.py --multi PATH PATH ... [--embedder hash]

Prints one JSON object: seconds per stage (from the run's metadata), the whole run, and the time
`git log --format=...` alone takes over the same history, measured in the same run; then the
graph stage of a second run with nothing new (the current build is kept: `rerun_graph_reused`).

`--multi` measures what a run costs when little changed, as a user sees it (`ltm ingest` as a
command, imports included), for the first repository: cold, again with nothing new, and after one
new commit, in a home of its own and in a home holding every repository given. The repositories
are cloned into a temporary folder first, so the new commit never touches the paths given.

`--batch` measures one `ltm ingest A B C` of every repository given into one new home, cold, then
again after one new commit in each: wall seconds, and the graph builds the home's Dagster
instance recorded (materializations of `graph`, those that built rather than kept the build, and
their seconds). It imports nothing of the project, so `PYTHONPATH=<another checkout>` measures
that checkout's `ltm`.

`--one-commit ALONE_HOME SHARED_HOME --key KEY` measures the one-new-commit row on homes already
ingested (a cold ingest of eight repositories takes minutes): each round copies both homes, points
their registry entry for KEY at a fresh clone of the registered path with one new commit, and
times `ltm ingest` on each copy, the two homes alternated; each row carries the seconds of every
Dagster step of the run (from the copy's instance) and what the graph stage did. The registered
paths are never changed. With `PYTHONPATH=<another checkout>` it measures that checkout.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ltm.home import Home
from ltm.repos import register_local
from pipelines.run import ingest_partitions


def _ltm(*args: object) -> float:
    """Wall seconds of one `ltm` command in a fresh process."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "cli", *map(str, args)], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return round(time.perf_counter() - started, 2)


def _new_commit(repo: Path, n: int) -> None:
    (repo / f"bench_change_{n}.py").write_text(f"def bench_change_{n}():\n    return {n}\n")
    subprocess.run(["git", "-C", str(repo), "add", "."], check=True)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=bench", "-c", "user.email=bench@example.com",
                    "commit", "-q", "-m", f"bench change {n}"], check=True)


def _clones(paths: list[Path], into: Path) -> list[Path]:
    """A clone of every path in `into` (the benches change them; the originals stay as they are)."""
    for p in paths:
        subprocess.run(["git", "clone", "-q", str(p), str(into / p.name)], check=True)
    return [into / p.name for p in paths]


def multi(paths: list[Path], embedder: str) -> dict:
    """No change and one new commit for paths[0], alone and beside the other repositories."""
    with tempfile.TemporaryDirectory() as tmp:
        clones = _clones(paths, Path(tmp))
        first = clones[0]
        out: dict = {"repo": str(paths[0]), "home_repos": len(paths), "embedder": embedder}
        alone, shared = Path(tmp) / "alone", Path(tmp) / "shared"
        out["alone_cold_s"] = _ltm("ingest", first, "--home", alone, "--embedder", embedder)
        out["alone_no_change_s"] = _ltm("ingest", first, "--home", alone)
        _new_commit(first, 1)
        out["alone_one_commit_s"] = _ltm("ingest", first, "--home", alone)
        out["shared_cold_s"] = {c.name: _ltm("ingest", c, "--home", shared, "--embedder", embedder) for c in clones}
        out["shared_no_change_s"] = _ltm("ingest", first, "--home", shared)
        _new_commit(first, 2)
        out["shared_one_commit_s"] = _ltm("ingest", first, "--home", shared)
        out["one_commit_ratio_shared_to_alone"] = round(out["shared_one_commit_s"] / out["alone_one_commit_s"], 2)
    return out


def _graph_builds(home: Path) -> dict:
    """The `graph` materializations of the home's instance: count, real builds, build seconds."""
    from dagster import AssetKey, DagsterInstance

    instance = DagsterInstance.from_config(str(home / "dagster"))
    records = instance.fetch_materializations(AssetKey("graph"), limit=10_000).records
    metas = [r.asset_materialization.metadata for r in records]
    return {"materializations": len(records),
            "built": sum(not m["reused"].value for m in metas if "reused" in m),
            "seconds": round(sum(m["seconds"].value for m in metas if "seconds" in m), 2)}


def batch(paths: list[Path], embedder: str) -> dict:
    """One `ltm ingest` of every path into a new home, cold, then after one new commit in each."""
    with tempfile.TemporaryDirectory() as tmp:
        clones = _clones(paths, Path(tmp))
        home = Path(tmp) / "home"
        out: dict = {"repos": [p.name for p in paths], "embedder": embedder}
        out["cold_s"] = _ltm("ingest", *clones, "--home", home, "--embedder", embedder)
        cold = _graph_builds(home)
        out["cold_graph"] = cold
        for n, clone in enumerate(clones):
            _new_commit(clone, n)
        out["one_commit_each_s"] = _ltm("ingest", *clones, "--home", home)
        after = _graph_builds(home)
        out["one_commit_each_graph"] = {k: round(after[k] - cold[k], 2) for k in after}
    return out


def _steps(home: Path) -> dict:
    """Seconds of every step of the home's runs since the last `_steps` mark, and the graph's metadata."""
    from dagster import AssetKey, DagsterInstance

    instance = DagsterInstance.from_config(str(home / "dagster"))
    runs = instance.get_runs(limit=2)  # the extraction run, then the stores run
    steps = {s.step_key: round(s.end_time - s.start_time, 2)
             for r in reversed(runs) for s in instance.get_run_step_stats(r.run_id) if s.end_time and s.start_time}
    [graph] = instance.fetch_materializations(AssetKey("graph"), limit=1).records
    meta = graph.asset_materialization.metadata
    keep = ("seconds", "reused", "mode", "changed_partitions", "amend_refused", "amended_rows")
    return {"steps": steps, "graph": {k: getattr(meta[k], "value", meta[k]) for k in keep if k in meta}}


def _one_commit_home(template: Path, key: str, into: Path, n: int) -> tuple[Path, Path]:
    """A copy of `template` whose registry entry `key` names a fresh clone with one new commit."""
    home = into / template.name
    subprocess.run(["cp", "-a", str(template), str(home)], check=True)
    registry = json.loads((home / "registry.json").read_text())
    clone = into / f"{key}-{template.name}"
    subprocess.run(["git", "clone", "-q", registry[key]["path"], str(clone)], check=True)
    _new_commit(clone, n)
    registry[key]["path"] = str(clone)
    (home / "registry.json").write_text(json.dumps(registry, indent=2))
    return home, clone


def one_commit(alone: Path, shared: Path, key: str, rounds: int) -> dict:
    """One new commit in `key`, in a copy of each prepared home, the homes alternated, `rounds` times."""
    rows: list[dict] = []
    for r in range(rounds):
        for template in ((alone, shared) if r % 2 == 0 else (shared, alone)):
            with tempfile.TemporaryDirectory() as tmp:
                home, clone = _one_commit_home(template, key, Path(tmp), 100 + r)
                load = Path("/proc/loadavg").read_text().split()[0]
                seconds = _ltm("ingest", clone, "--home", home)
                rows.append({"home": template.name, "round": r, "one_commit_s": seconds, "load": load,
                             **_steps(home)})
    out: dict = {"repo": key, "rows": rows}
    for template in (alone, shared):
        times = sorted(x["one_commit_s"] for x in rows if x["home"] == template.name)
        out[f"{template.name}_median_s"] = times[len(times) // 2]
    out["ratio_shared_to_alone"] = round(out[f"{shared.name}_median_s"] / out[f"{alone.name}_median_s"], 2)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repo", type=Path, nargs="?")
    ap.add_argument("--multi", type=Path, nargs="+", help="Repositories of one home; the first is measured.")
    ap.add_argument("--batch", type=Path, nargs="+", help="Repositories ingested by one `ltm ingest` into one home.")
    ap.add_argument("--one-commit", type=Path, nargs=2, metavar=("ALONE_HOME", "SHARED_HOME"),
                    help="Prepared homes: one new commit in --key, in a copy of each.")
    ap.add_argument("--key", default="requests", help="With --one-commit: the partition key measured.")
    ap.add_argument("--rounds", type=int, default=2, help="With --one-commit: rounds, the homes alternated.")
    ap.add_argument("--embedder", default="hash")
    args = ap.parse_args()
    if args.one_commit:
        print(json.dumps(one_commit(*args.one_commit, args.key, args.rounds), indent=2))
        return
    if args.batch:
        print(json.dumps(batch(args.batch, args.embedder), indent=2))
        return
    if args.multi:
        print(json.dumps(multi(args.multi, args.embedder), indent=2))
        return
    if args.repo is None:
        ap.error("give a repository path, or --multi PATH ...")
    started = time.perf_counter()
    subprocess.run(["git", "-C", str(args.repo), "log", "--format=%H%x1f%P%x1f%an%x1f%ae%x1f%aI%x1f%B"],
                   stdout=subprocess.DEVNULL, check=True)
    floor = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as tmp:
        home = Home.resolve(Path(tmp) / "home").create()
        key = register_local(home, args.repo)
        started = time.perf_counter()
        [summary] = ingest_partitions(home, [key], args.embedder)
        total = time.perf_counter() - started
        [again] = ingest_partitions(home, [key], args.embedder)  # a Dagster run with nothing new
    meta = summary.metadata
    print(json.dumps({
        "repo": str(args.repo),
        "commits": meta["commits"]["commits"],
        "functions": meta["code_entities"].get("rows_Function"),
        "git_log_floor_s": round(floor, 3),
        "commits_stage_s": meta["commits"]["seconds"],
        "code_stage_s": meta["code_entities"]["seconds"],
        "graph_build_s": meta["graph"]["seconds"],
        "ingest_total_s": round(total, 2),
        "rerun_graph_s": again.metadata["graph"]["seconds"],
        "rerun_graph_reused": again.metadata["graph"]["reused"],
        "embedder": args.embedder,
    }, indent=2))


if __name__ == "__main__":
    main()
