"""Raw tree-sitter parse throughput against our full code extraction, over the same files.

    .venv/bin/python bench/parse.py PATH [--workers N] [--repeat 3]

Prints one JSON object. `raw`: `Parser.parse` alone, one process, over every file the extraction
parses (read into memory first, not timed). `ours_1` and `ours_n`: the whole `extract_code` (git
listing and reading, skip rules, parse, queries, resolution, chunks) with 1 and N workers.
`ratio` is ours_n / (raw x N): the target is >= 0.6. The machine's load average is printed
before and after, since other work on the same cores lowers every wall-clock figure; CPU seconds
(this process and its children: git, pool workers) are also printed, as they move less with
load: `cpu_ratio_1_worker` = raw CPU / our CPU is the per-core efficiency. Best of `--repeat` runs.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from collections import Counter
from pathlib import Path

from tree_sitter import Parser

from ltm.extract.code_entities import extract_code
from ltm.extract.filters import skip_reason
from ltm.extract.gitrepo import GitRepo
from ltm.extract.languages import language_for, ts_language


def _sources(repo: GitRepo) -> list[tuple[str, bytes]]:
    out = []
    with repo.blobs() as blobs:
        for entry in repo.tree("HEAD"):
            spec = language_for(entry.path)
            if spec is None or skip_reason(entry.path, entry.size, None):
                continue
            src = blobs.read(entry.blob)
            if skip_reason(entry.path, entry.size, src) is None:
                out.append((spec.name, src))
    return out


def _best(fn, repeat: int) -> tuple[float, float]:
    """Best wall seconds and best CPU seconds (this process and its finished children) of `repeat` runs."""
    runs = [_timed(fn) for _ in range(repeat)]
    return min(r[0] for r in runs), min(r[1] for r in runs)


def _cpu() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _timed(fn) -> tuple[float, float]:
    started, cpu = time.perf_counter(), _cpu()
    fn()
    return time.perf_counter() - started, _cpu() - cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("repo", type=Path)
    ap.add_argument("--workers", type=int, default=None, help="default: the extraction's own choice")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    load_before = os.getloadavg()[0]
    repo = GitRepo(args.repo)
    sources = _sources(repo)
    mb = sum(len(s) for _, s in sources) / 1e6
    parsers = {name: Parser(ts_language(name)) for name in {n for n, _ in sources}}

    def raw() -> None:
        for name, src in sources:
            parsers[name].parse(src)

    raw_s, raw_cpu = _best(raw, args.repeat)
    last = {}

    def ours(workers: int):
        def run() -> None:
            last[workers] = extract_code(repo, "bench", workers=workers)
        return run

    ours_1, ours_1_cpu = _best(ours(1), args.repeat)
    ours_n, ours_n_cpu = _best(ours(args.workers), args.repeat)
    out = last[args.workers]
    n = out.workers
    report = {
        "repo": str(args.repo),
        "files": len(sources),
        "mb": round(mb, 2),
        "languages": dict(Counter(n for n, _ in sources)),
        "raw_parse_mb_s": round(mb / raw_s, 2),
        "ours_1_worker_mb_s": round(mb / ours_1, 2),
        "ours_n_workers_mb_s": round(mb / ours_n, 2),
        "ratio_1_worker": round(raw_s / ours_1, 3),
        "ratio": round(raw_s / (ours_n * n), 3),
        "raw_parse_cpu_s": round(raw_cpu, 3),
        "ours_1_worker_cpu_s": round(ours_1_cpu, 3),
        "ours_n_workers_cpu_s": round(ours_n_cpu, 3),
        "cpu_ratio_1_worker": round(raw_cpu / ours_1_cpu, 3) if ours_1_cpu else None,
        "target_ratio": 0.6,
        "workers_used": out.workers,
        "functions": len(out.tables["Function"]),
        "calls": dict(out.resolution),
        "load_avg_before": round(load_before, 2),
        "load_avg_after": round(os.getloadavg()[0], 2),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
